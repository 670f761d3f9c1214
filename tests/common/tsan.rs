//! ThreadSanitizer for the OpenMP tests: whether `cc -fopenmp
//! -fsanitize=thread` works here, and the races it reports inside
//! parallel regions.

use std::process::Command;
use std::sync::OnceLock;

use polyfold_fuzz::check::{compile, scratch_dir};

/// Whether `cc -fopenmp -fsanitize=thread` builds a program that runs
/// (probed once per test binary; a note says when the runs are skipped).
pub fn available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        let Ok(dir) = scratch_dir("tsan-probe") else {
            return false;
        };
        let src = dir.join("probe.c");
        let exe = dir.join("probe.exe");
        let ok = std::fs::write(&src, "int main(void) { return 0; }\n").is_ok()
            && compile(&src, &exe, &["-fopenmp", "-fsanitize=thread"]).is_ok()
            && Command::new(&exe)
                .output()
                .is_ok_and(|o| o.status.success());
        let _ = std::fs::remove_dir_all(&dir);
        if !ok {
            eprintln!(
                "note: cc -fopenmp -fsanitize=thread is not available; ThreadSanitizer runs skipped"
            );
        }
        ok
    })
}

/// The ThreadSanitizer race reports whose two accesses are both inside an
/// outlined OpenMP region (`*._omp_fn.*`): races between the threads of
/// the region. Reports where one access is in the code after the region
/// come from libgomp's uninstrumented barriers and are not counted.
pub fn races_inside_regions(stderr: &str) -> usize {
    stderr
        .split("WARNING: ThreadSanitizer: data race")
        .skip(1)
        .filter(|report| {
            let first_frames: Vec<&str> = report
                .lines()
                .map(str::trim)
                .filter(|l| l.starts_with("#0 "))
                .take(2)
                .collect();
            first_frames.len() == 2 && first_frames.iter().all(|f| f.contains("_omp_fn"))
        })
        .count()
}
