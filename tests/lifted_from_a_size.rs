//! A lattice lifted to every size from a lower end on, for an array with
//! live-in cells at small sizes only (issue 17: the same mapping, as a
//! formula, at every size).
//!
//! dynprog_split reads `c[0][N - 1]` after its loops; for N = 1 no
//! iteration writes it (a live-in cell), so no mapping of `c` is proven
//! for every N ≥ 1. From N = 2 on there is none, and the optimal lattice
//! of each fixed size is `c[i][k] -> c[(k - i) % (N - 1)]`: the lifted
//! strategy proposes it from N ≥ 2, pinned by `_Static_assert(N >= 2)`
//! instead of `N == 10`, and the chosen size must equal what the
//! exhaustive lattice search finds at each size on its own (an
//! independent strategy that proves its result optimal among lattices).
//! Each output is compiled with the sanitizers and prints what the
//! original prints; the output for N = 10 rebuilt with N = 1 must not
//! compile (the pin). Before, the mapping was `% 9`, pinned to N == 10,
//! and at 16 times the size the search did not run (another mapping).

mod common;

use std::path::Path;
use std::process::Command;

use polyfold::fuzz::check::{compile, scratch_dir};
use serde_json::Value;

fn kernel_with(n: i64) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/dynprog_split.c");
    let source = std::fs::read_to_string(path).expect("corpus kernel");
    assert!(source.contains("\n#define N 10\n"));
    source.replace("\n#define N 10\n", &format!("\n#define N {n}\n"))
}

/// Runs the binary on `text` (written to `dir/name.c`) with `args`.
fn polyfold(dir: &Path, name: &str, text: &str, args: &[&str]) -> String {
    let path = dir.join(format!("{name}.c"));
    std::fs::write(&path, text).expect("write");
    let mut all: Vec<&std::ffi::OsStr> = args.iter().map(std::ffi::OsStr::new).collect();
    all.push(path.as_os_str());
    common::polyfold_stdout(&all)
}

fn run(dir: &Path, name: &str, text: &str) -> String {
    let src = dir.join(format!("{name}.run.c"));
    std::fs::write(&src, text).expect("write");
    let exe = dir.join(format!("{name}.exe"));
    let flags = [
        "-std=c11",
        "-O1",
        "-fsanitize=address,undefined",
        "-fno-sanitize-recover=all",
    ];
    compile(&src, &exe, &flags).unwrap_or_else(|e| panic!("{name}: {e}"));
    let o = Command::new(&exe).output().expect("runs");
    assert!(
        o.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).expect("utf-8")
}

#[test]
fn a_lattice_with_live_in_cells_at_small_sizes_only_is_lifted_from_a_size_on() {
    let dir = scratch_dir("lifted-from").expect("scratch dir");
    for n in [4i64, 7, 10, 16, 40] {
        let source = kernel_with(n);
        let report = polyfold(
            &dir,
            &format!("n{n}"),
            &source,
            &["--report", "json", "--no-timings"],
        );
        let v: Value = serde_json::from_str(&report).expect("JSON");
        let arrays = v["files"][0]["arrays"].as_array().expect("arrays");
        let c = arrays
            .iter()
            .find(|a| a["array"] == "c" && a["function"] == "dynprog_split_kernel")
            .expect("c");
        assert_eq!(
            c["mapping"], "c[c0][c1] -> c[(-c0 + c1) % (N - 1)]",
            "N = {n}: {c}"
        );
        assert_eq!(c["method"], "lattice lifted to every size", "N = {n}");
        assert_eq!(c["new_cells"], n - 1, "N = {n}");
        // The exhaustive search, where it runs, finds no smaller lattice.
        if let Some(optimal) = c["strategies"]
            .as_array()
            .expect("strategies")
            .iter()
            .find(|s| s["method"] == "optimal search")
        {
            assert_eq!(optimal["cells"], n - 1, "N = {n}");
        } else {
            assert!(n > 10, "N = {n}: the search should run at small sizes");
        }
        let output = polyfold(&dir, &format!("n{n}"), &source, &[]);
        assert!(output.contains("    int c[N - 1]; /* polyfold: c[i][k] -> c[(k - i) % (N - 1)] */\n    _Static_assert(N >= 2, "), "{output}");
        if n <= 16 {
            assert_eq!(
                run(&dir, &format!("orig{n}"), &source),
                run(&dir, &format!("new{n}"), &output),
                "N = {n}"
            );
        }
        if n == 10 {
            // The pin: the same output for N = 1 does not compile.
            let pinned = output.replace("\n#define N 10\n", "\n#define N 1\n");
            let src = dir.join("pinned.c");
            std::fs::write(&src, pinned).expect("write");
            let err = compile(&src, &dir.join("pinned.exe"), &["-std=c11"])
                .expect_err("N = 1 is outside the certificate");
            assert!(err.contains("polyfold: the storage of c"), "{err}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
