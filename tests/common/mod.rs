//! Helpers shared by the integration tests (each stage's `main.rs` says
//! `#[path = "../common/mod.rs"] mod common;`, and its modules `use
//! crate::common;`; not every binary uses every helper).
#![allow(dead_code)]

pub mod snapshot;
pub mod tsan;

use std::path::Path;
use std::time::Duration;

/// Runs the `polyfold` binary with `args` in the crate's directory and
/// returns what it prints on stdout; it must exit 0 (else the test fails
/// with its stderr).
pub fn polyfold_stdout<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_polyfold"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .expect("the binary runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// Runs the `polyfold` binary with `args` (in the current directory)
/// and returns its output, whatever its exit code.
pub fn polyfold<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_polyfold"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Bytes the binary printed, as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The repository's root.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh, empty scratch folder for test `test` of `suite` (per process).
pub fn scratch(suite: &str, test: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("polyfold-{suite}-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

/// Builds the original program at `path` and `output` (polyfold's output
/// for it) with ASan/UBSan, runs both and asserts that they print the
/// same; `tag` names the scratch directory.
pub fn assert_runs_like_original(path: &Path, name: &str, tag: &str, output: &str) {
    use polyfold_fuzz::check::{build_and_run, scratch_dir};
    let scratch = scratch_dir(&format!("{tag}-{name}")).expect("scratch directory");
    let output_path = scratch.join(format!("{name}.polyfold.c"));
    std::fs::write(&output_path, output).expect("write");
    let limit = Duration::from_secs(20);
    let expected = build_and_run(path, name, &scratch, true, limit, None)
        .unwrap_or_else(|(_, e)| panic!("{name}: the original fails: {e}"));
    let actual = build_and_run(
        &output_path,
        &format!("{name}.polyfold"),
        &scratch,
        true,
        limit,
        None,
    )
    .unwrap_or_else(|(_, e)| panic!("{name}: the output fails: {e}\n{output}"));
    let _ = std::fs::remove_dir_all(&scratch);
    assert_eq!(
        String::from_utf8_lossy(&actual),
        String::from_utf8_lossy(&expected),
        "{name}: output:\n{output}"
    );
}

/// Writes `source` as `TAG.c` in `dir`, builds it with ASan/UBSan, runs
/// it and returns what it prints (panics when it fails).
pub fn run_c(source: &str, dir: &Path, tag: &str) -> Vec<u8> {
    let path = dir.join(format!("{tag}.c"));
    std::fs::write(&path, source).expect("write");
    polyfold_fuzz::check::build_and_run(&path, tag, dir, true, Duration::from_secs(20), None)
        .unwrap_or_else(|(_, e)| panic!("{tag}: {e}\n{source}"))
}

/// The text between `#pragma scop` and `#pragma endscop` of `output`
/// (empty without a SCoP).
pub fn scop_text(output: &str) -> &str {
    output
        .split("#pragma scop")
        .nth(1)
        .and_then(|rest| rest.split("#pragma endscop").next())
        .unwrap_or("")
}

/// Asserts that `output` has each of `lines` as a whole line.
pub fn assert_lines(output: &str, lines: &[&str]) {
    for line in lines {
        assert!(
            output.lines().any(|l| l == *line),
            "missing line\n{line}\nin\n{output}"
        );
    }
}

/// `source` with `#define NAME old` set to `value`.
pub fn with_define(source: &str, name: &str, value: i64) -> String {
    source
        .lines()
        .map(|l| {
            if l.starts_with(&format!("#define {name} ")) {
                format!("#define {name} {value}")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// The JSON report (`--report json --no-timings`) of `args`.
pub fn json_report(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["--report", "json", "--no-timings"];
    all.extend_from_slice(args);
    serde_json::from_str(&polyfold_stdout(&all)).expect("json report")
}

/// The new cells of `array` in the first file of a JSON report.
pub fn new_cells(report: &serde_json::Value, array: &str) -> Option<i64> {
    report["files"][0]["arrays"]
        .as_array()?
        .iter()
        .find(|a| a["array"] == array)?["new_cells"]
        .as_i64()
}
