//! Issue 19, item 4: a function parameter declared a temporary with
//! `--temp FUNCTION:NAME`. The caller passes its own array, so the
//! parameter's declarator stays as written: a dropped dimension is
//! subscripted `[0]` (the declarator used to lose it: `double B[N]`
//! became `double B`, and the call `kernel(A, B, C)` no longer compiled),
//! a modulus applies to the subscript inside the declared extent (`e % b`
//! is at most `e`, so it stays in bounds wherever the original access
//! is). The expected subscripts are worked out by hand from the
//! lifetimes; the outputs are compiled with ASan/UBSan, run, and must
//! print what the original prints.

use crate::common;

use std::path::{Path, PathBuf};

fn case(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/parameters")
        .join(format!("{name}.c"))
}

fn polyfold(args: &[&str], path: &Path) -> String {
    let mut all: Vec<&std::ffi::OsStr> = args.iter().map(std::ffi::OsStr::new).collect();
    all.push(path.as_os_str());
    common::polyfold_stdout(&all)
}

fn assert_has(output: &str, needle: &str) {
    assert!(output.contains(needle), "missing `{needle}` in\n{output}");
}

#[test]
fn a_parameter_keeps_its_declarator_and_a_dropped_dimension_becomes_zero() {
    let path = case("temp_parameter");
    let output = polyfold(&["--temp", "kernel:B", "--temp", "kernel:C"], &path);
    // B[i] is dead right after its one read: one cell, B[0]. C[i][j] is
    // read two columns later and each row starts anew: C[0][j % 2].
    assert_has(
        &output,
        "static void kernel(double A[N], double B[N] /* polyfold: B[i] -> B[0] */, \
         double C[N][N] /* polyfold: C[i][j] -> C[0][j % 2] */)",
    );
    assert_has(&output, "B[0] = A[i] * 2.0;");
    assert_has(&output, "C[0][1] = A[i] * 0.5;");
    assert_has(&output, "C[0][j % 2] = C[0][j % 2] * 0.5 + A[i];");
    common::assert_runs_like_original(&path, "temp_parameter", "parameters", &output);
}

#[test]
fn a_parameter_without_an_extent_folds_inside_the_callers_array() {
    let path = case("open_parameter");
    let output = polyfold(&["--temp", "kernel:B"], &path);
    assert_has(
        &output,
        "static void kernel(double A[N], double B[] /* polyfold: B[i] -> B[i % 2] */)",
    );
    assert_has(&output, "B[i % 2] = B[i % 2] * 0.5 + A[i];");
    common::assert_runs_like_original(&path, "open_parameter", "parameters", &output);
}

#[test]
fn without_temp_a_parameter_is_external() {
    let path = case("temp_parameter");
    let source = std::fs::read_to_string(&path).expect("test program");
    assert_eq!(polyfold(&[], &path), source);
}
