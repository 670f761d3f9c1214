//! A lattice lifted to every size from a lower end on, for an array with
//! live-in cells at small sizes only (issue 17: the same mapping, as a
//! formula, at every size).
//!
//! dynprog_split reads `c[0][N - 1]` after its loops; for N = 1 no
//! iteration writes it (a live-in cell), so no mapping of `c` is proven
//! for every N ≥ 1. From N = 2 on there is none, and the optimal lattice
//! of each fixed size is `c[i][k] -> c[(k - i) % (N - 1)]`: the lifted
//! strategy proposes it from N ≥ 2 (and so does successive modulo in the
//! skewed basis `(k - i, i)`), pinned by `_Static_assert(N >= 2)`
//! instead of `N == 10`, and the chosen size must equal what the
//! exhaustive lattice search finds at each size on its own (an
//! independent strategy that proves its result optimal among lattices).
//! Each output is compiled with the sanitizers and prints what the
//! original prints; the output for N = 10 rebuilt with N = 1 must not
//! compile (the pin). A pin is made on request only: these cases run
//! with `--pin-sizes`. Before, the mapping was `% 9`, pinned to N == 10,
//! and at 16 times the size the search did not run (another mapping).

use crate::common;

use std::path::Path;
use std::process::Command;

use polyfold_fuzz::check::{compile, scratch_dir};
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
            &["--report", "json", "--no-timings", "--pin-sizes"],
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
        // The skew `c1 - c0` of successive modulo (unimodular reindexing,
        // which runs first) finds the same formula as the lifted lattice.
        assert!(
            c["method"] == "lattice lifted to every size" || c["method"] == "unimodular reindexing",
            "N = {n}: {c}"
        );
        assert_eq!(c["new_cells"], n - 1, "N = {n}");
        // The exhaustive search, where it runs, finds no smaller lattice.
        // It does not run where even a lattice at the max-live bound,
        // pinned to this N, would not save an eighth of the N - 1 cells
        // certified for every N (a pin must pay for itself).
        let bound = c["lower_bound"].as_i64().expect("a lower bound");
        if let Some(optimal) = c["strategies"]
            .as_array()
            .expect("strategies")
            .iter()
            .find(|s| s["method"] == "optimal search")
        {
            assert_eq!(optimal["cells"], n - 1, "N = {n}");
        } else {
            assert!(
                n > 10 || bound * 8 > (n - 1) * 7,
                "N = {n}: the search should run at small sizes (bound {bound})"
            );
        }
        let output = polyfold(&dir, &format!("n{n}"), &source, &["--pin-sizes"]);
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
            assert_pinned_out(&dir, "pinned", &output, "c");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The output for N = 10 rebuilt with N = 1 does not compile: its
/// `_Static_assert` for `array` fails.
fn assert_pinned_out(dir: &Path, name: &str, output: &str, array: &str) {
    let pinned = output.replace("\n#define N 10\n", "\n#define N 1\n");
    let src = dir.join(format!("{name}.c"));
    std::fs::write(&src, pinned).expect("write");
    let err = compile(&src, &dir.join(format!("{name}.exe")), &["-std=c11"])
        .expect_err("N = 1 is outside the certificate");
    assert!(
        err.contains(&format!("polyfold: the storage of {array}")),
        "{err}"
    );
}

/// `source` with each `#define NAME v` of `defines` set to its new value.
fn with_defines(source: &str, defines: &[(&str, i64, i64)]) -> String {
    let mut text = source.to_string();
    for (name, from, to) in defines {
        let old = format!("\n#define {name} {from}\n");
        assert!(text.contains(&old), "{old}");
        text = text.replace(&old, &format!("\n#define {name} {to}\n"));
    }
    text
}

fn corpus(file: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(file);
    std::fs::read_to_string(path).expect("corpus kernel")
}

fn array_entry(report: &str, function: &str, name: &str) -> Value {
    let v: Value = serde_json::from_str(report).expect("JSON");
    v["files"][0]["arrays"]
        .as_array()
        .expect("arrays")
        .iter()
        .find(|a| a["array"] == name && a["function"] == function)
        .unwrap_or_else(|| panic!("no {function}.{name}: {report}"))
        .clone()
}

/// dynprog_init's `c` holds the cells `0 <= i < j <= N - 1` (counted here
/// from the kernel's loops: its first nest writes rows 1..N-2, the second
/// writes and reads rows 0..N-2 right of the diagonal, and `out` reads
/// `c[0][N - 1]`), a strict upper triangle. Packed row by row without the
/// diagonal it needs exactly as many cells, N(N - 1)/2, fewer than the
/// optimal lattice of seed 001 Figure 3 (61 at N = 10) and with no `%`;
/// the proof that every access is inside needs N >= 2 (at N = 1 the read
/// of `c[0][0]` is outside, and the triangle has no cell), so the formula
/// is pinned from N = 2 on, the same at every size. Each output runs like
/// the original under the sanitizers, and N = 1 does not compile.
#[test]
fn a_strict_triangle_is_packed_without_its_diagonal_from_a_size_on() {
    let dir = scratch_dir("strict-triangle").expect("scratch dir");
    let source = corpus("dynprog_init.c");
    for n in [4i64, 7, 10, 40] {
        let text = with_defines(&source, &[("N", 10, n)]);
        let report = polyfold(
            &dir,
            &format!("n{n}"),
            &text,
            &["--report", "json", "--no-timings", "--pin-sizes"],
        );
        let c = array_entry(&report, "dynprog_init_kernel", "c");
        let mut cells = std::collections::BTreeSet::new();
        for i in 1..=n - 2 {
            for j in i + 1..=n - 1 {
                cells.insert((i, j));
            }
        }
        for i in 0..=n - 2 {
            for j in i + 1..=n - 1 {
                cells.insert((i, j));
                for k in i + 1..=j - 1 {
                    cells.insert((i, k));
                    cells.insert((k, j));
                }
            }
        }
        cells.insert((0, n - 1));
        assert_eq!(c["new_cells"], cells.len(), "N = {n}: {c}");
        assert_eq!(
            c["mapping"], "c[c0][c1] -> c[c0 * (2 * N - 3 - c0) / 2 + c1 - 1]",
            "N = {n}: {c}"
        );
        assert_eq!(c["method"], "triangle packed", "N = {n}");
        let output = polyfold(&dir, &format!("n{n}"), &text, &["--pin-sizes"]);
        common::assert_lines(
            &output,
            &[
                "    int c[N * (N - 1) / 2]; /* polyfold: c[i][j] -> c[i * (2 * N - 3 - i) / 2 + j - 1] */",
                "    _Static_assert(N >= 2, \"polyfold: the storage of c is certified only where this condition holds\");",
                "    out[0] = c[N - 2];",
            ],
        );
        assert!(!common::scop_text(&output).contains('%'), "{output}");
        if n <= 10 {
            assert_eq!(
                run(&dir, &format!("orig{n}"), &text),
                run(&dir, &format!("new{n}"), &output),
                "N = {n}"
            );
        }
        if n == 10 {
            assert_pinned_out(&dir, "pinned-triangle", &output, "c");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// blur_tiled's `blurx[ty][tx][x][y]` above the sizes of the fixed-size
/// lattice search: the front of a tile is its current column plus the two
/// last values of each earlier one, `y - 2x` over a range of 3B - 2 (seed
/// 000 Table 1: 3B - 2 per tile), and a tile row's last two values live
/// until the row below reads them, so two rows of NT tiles: successive
/// modulo in the skewed basis `(ty, tx, y - 2x, x)` gives `blurx[ty %
/// 2][tx][(y - 2x) % (3B - 2)]`, 2·NT·(3B - 2) cells, where the axes keep
/// 2·NT·B². Its proof needs B >= 2 (the row below reads `[B - 2]`), so it
/// is pinned from NT, B >= 2 on: the same formula at 16 and 32 times the
/// corpus sizes. `blury[ty * B + y]`, a product folded with B's value,
/// is another array's subscript: it does not make `blurx`'s model depend
/// on the value. The output for NT = 8, B = 16 runs like the original
/// under the sanitizers at that size and, with its defines changed, at
/// (2, 2), (2, 3), (3, 5) and (5, 7).
#[test]
fn a_tiled_blur_folds_onto_its_skewed_front_with_a_formula() {
    let dir = scratch_dir("skewed-front").expect("scratch dir");
    let source = corpus("blur_tiled.c");
    for (nt, b) in [(8i64, 16i64), (16, 32)] {
        let text = with_defines(&source, &[("B", 8, b), ("NT", 4, nt)]);
        let report = polyfold(
            &dir,
            &format!("blur{nt}"),
            &text,
            &["--report", "json", "--no-timings"],
        );
        let e = array_entry(&report, "blur_tiled_kernel", "blurx");
        assert_eq!(
            e["mapping"],
            "blurx[c0][c1][c2][c3] -> blurx[c0 % 2][c1 % NT][(-2c2 + c3) % (3 * B - 2)]",
            "{e}"
        );
        assert_eq!(e["new_cells"], 2 * nt * (3 * b - 2), "{e}");
        assert_eq!(e["method"], "unimodular reindexing", "{e}");
        if nt == 8 {
            let output = polyfold(&dir, "blur8", &text, &[]);
            common::assert_lines(
                &output,
                &[
                    // The note would make the line 124 columns: it goes on
                    // the line before (issue 49's 120).
                    "    /* polyfold: blurx[ty][tx][x][y] -> blurx[ty % 2][tx][(y + 3 * B - 2 * x - 2) % (3 * B - 2)] */",
                    "    double blurx[2][NT][3 * B - 2];",
                ],
            );
            // Cells within their declared extents (issue 48) prove it for
            // every size: the pin `NT >= 2 && B >= 2` it needed is gone.
            assert!(!output.contains("_Static_assert"), "{output}");
            for (nt2, b2) in [(8i64, 16i64), (2, 2), (2, 3), (3, 5), (5, 7)] {
                let original = with_defines(&text, &[("B", b, b2), ("NT", nt, nt2)]);
                let folded = with_defines(&output, &[("B", b, b2), ("NT", nt, nt2)]);
                assert_eq!(
                    run(&dir, &format!("blur-orig-{nt2}-{b2}"), &original),
                    run(&dir, &format!("blur-new-{nt2}-{b2}"), &folded),
                    "NT = {nt2}, B = {b2}"
                );
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
