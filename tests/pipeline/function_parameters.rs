//! Issue 19, item 4: a function parameter declared a temporary with
//! `--temp FUNCTION:NAME`. When its callers' arrays are not all the
//! function's alone, the parameter's declarator stays as written: a
//! dropped dimension is subscripted `[0]` (the declarator used to lose it:
//! `double B[N]` became `double B`, and the call `kernel(A, B, C)` no
//! longer compiled), a modulus applies to the subscript inside the
//! declared extent (`e % b` is at most `e`, so it stays in bounds wherever
//! the original access is).
//!
//! Issue 47: a parameter of a `static` function whose every caller
//! allocates a buffer, passes it and frees it, and does nothing else with
//! it, is a temporary without a flag, and shrinks where it is allocated:
//! the parameter's declarator and each caller's allocation (a declaration,
//! or the call of an allocation macro) take the new extents together.
//!
//! The expected subscripts are worked out by hand from the lifetimes; the
//! outputs are compiled with ASan/UBSan, run, and must print what the
//! original prints.

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

/// Polyfold on `output` (its output for the case `name`) changes nothing.
fn assert_idempotent(name: &str, output: &str) {
    let scratch = std::env::temp_dir().join(format!("polyfold-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch");
    let again = scratch.join(format!("{name}.c"));
    std::fs::write(&again, output).expect("write");
    assert_eq!(polyfold(&[], &again), output);
    let _ = std::fs::remove_dir_all(&scratch);
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
    // `main` initialises C before the call: C is the user's word only,
    // and keeps its declarator. B is `main`'s alone: it shrinks there too.
    assert_has(
        &output,
        // Over 120 columns on one line: broken after the comma, aligned
        // after the parenthesis (issue 49).
        "static void kernel(double A[N], double B[1] /* polyfold: B[i] -> B[0] */,\n                   \
         double C[N][N] /* polyfold: C[i][j] -> C[0][j % 2] */)",
    );
    assert_has(&output, "static double A[N], B[1], C[N][N];");
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
fn without_temp_only_a_buffer_the_caller_keeps_to_the_call_is_a_temporary() {
    let path = case("temp_parameter");
    let source = std::fs::read_to_string(&path).expect("test program");
    let output = polyfold(&[], &path);
    // A is read after the call, C written before it: both external. B
    // shrinks to one cell, in the kernel and in `main`.
    let expected = source
        .replace(
            "double B[N], double C",
            "double B[1] /* polyfold: B[i] -> B[0] */, double C",
        )
        .replace("B[i] = A[i] * 2.0;", "B[0] = A[i] * 2.0;")
        .replace("A[i] = B[i] + 1.0;", "A[i] = B[0] + 1.0;")
        .replace(
            "static double A[N], B[N], C[N][N];",
            "static double A[N], B[1], C[N][N];",
        );
    assert_ne!(expected, source);
    assert_eq!(output, expected);
    common::assert_runs_like_original(&path, "temp_parameter", "parameters-owned", &output);
}

#[test]
fn buffers_allocated_through_macros_shrink_at_the_macro_calls() {
    let path = case("caller_owned_macros");
    let output = polyfold(&[], &path);
    // tmp[i] is dead after row i's second loop: one cell. row[i][j] is
    // read only in row i: one row of M (the inner extent stays).
    assert_has(
        &output,
        "double ARRAY_1D(tmp, 1, n) /* polyfold: tmp[i] -> tmp[0] */)",
    );
    assert_has(&output, "tmp[0] = tmp[0] + A[i][j] * x[j];");
    assert_has(
        &output,
        "double ARRAY_2D(row, 1, M, n, m) /* polyfold: row[i][j] -> row[0][j] */",
    );
    assert_has(&output, "s[i] = s[i] + row[0][j] * row[0][m - 1 - j];");
    assert_has(
        &output,
        "  DECL_1D(tmp, double, 1, n);\n  DECL_2D(row, double, 1, M, n, m);\n",
    );
    // A, x, y and s are read by `main` after the calls.
    for kept in [
        "DECL_2D(A, double, N, M, n, m);",
        "DECL_1D(s, double, N, n);",
    ] {
        assert_has(&output, kept);
    }
    // The report names every site and what changed there (line 58 of
    // the file is `DECL_1D(tmp, double, N, n);`, line 25 the parameter).
    let report = polyfold(&["--report", "text", "--no-timings"], &path);
    assert_has(
        &report,
        "    resized: kernel_atax line 25, the parameter's declarator macro: `N` -> `1`\n    resized: main line 58, the allocation macro `DECL_1D`: `N` -> `1`\n",
    );
    common::assert_runs_like_original(&path, "caller_owned_macros", "parameters", &output);
    // Polyfold on its own output changes nothing.
    assert_idempotent("caller_owned_macros", &output);
}

#[test]
fn heap_scratch_buffers_shrink_at_their_allocation_size() {
    let path = case("heap_scratch");
    let output = polyfold(&[], &path);
    // t[y][x] lives within row y: one row, the row type stays `[w]`.
    assert_has(
        &output,
        "float (*t)[w] = malloc(1 * sizeof *t); /* polyfold: t[y][x] -> t[0][x] */",
    );
    assert_has(&output, "s = s + t[0][x] * t[0][w - 1 - x];");
    // The same row buffer sized `sizeof(float[h][w])`: the rows' count
    // changes in the `sizeof`, the row extent stays.
    assert_has(
        &output,
        "float (*r)[w] = malloc(sizeof(float[1][w])); /* polyfold: r[y][x] -> r[0][x] */",
    );
    // u[y] lives within iteration y: one cell.
    assert_has(
        &output,
        "double *u = malloc(sizeof(double) * 1); /* polyfold: u[y] -> u[0] */",
    );
    assert_has(&output, "u[0] = u[0] + in[y][x] * in[y][x];");
    // The linearised buffer `acc[y * w + x]` is `acc[y][x]`: once the
    // loops are fused, each value is read right after it is written, so
    // one cell, and its index is written linearly again.
    assert_has(
        &output,
        "float *acc = malloc(sizeof(float) * 1 * 1); /* polyfold: acc[y * w + x] -> acc[0] */",
    );
    assert_has(&output, "acc[0] = in[y][x] + 1.0f;");
    assert_has(&output, "s = s + acc[0];");
    // `bx` rows y, y + 1 and y + 2 are read after row y + 2 is written:
    // three rows of `w`, the row subscript modulo 3 times the row extent.
    assert_has(
        &output,
        "float *bx = malloc(sizeof(float) * 3 * w); /* polyfold: bx[y * w + x] -> bx[(y % 3) * w + x] */",
    );
    assert_has(&output, "bx[(y % 3) * w + x] = in[0][x] * 0.25f");
    // `sh[y * w + (x + 1)]` reaches column `w` (the next row's first
    // cell): `sh[y][x + 1]` would be another cell, so it keeps its layout.
    assert_has(&output, "float *sh = malloc(sizeof(float) * (h + 1) * w);");
    assert_has(&output, "sh[y * w + (x + 1)] = in[y][x] + 2.0f;");
    common::assert_runs_like_original(&path, "heap_scratch", "parameters", &output);
    assert_idempotent("heap_scratch", &output);
}

#[test]
fn a_linearised_heap_buffer_past_its_row_says_why_it_keeps_its_layout() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_polyfold"))
        .arg(case("heap_scratch"))
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "`sh` holds memory from an allocation, but the column of `sh[y * w + (x + 1)]` in S0 is not proven within its row (`0 .. w - 1`)"
        ),
        "{stderr}"
    );
}

#[test]
fn a_shifted_row_of_a_linearised_buffer_keeps_its_parentheses() {
    let path = case("linear_shifted");
    let output = polyfold(&[], &path);
    // The consumer loop runs 2 iterations of `y` later: its row `y` is
    // `y - 2`, a factor of the product.
    assert_has(&output, "keep[(y - 2) * w + x] - keep[(y - 1) * w + x];");
    assert_has(
        &output,
        "float (*tmp)[w] = malloc(3 * sizeof *tmp); /* polyfold: tmp[y][x] -> tmp[y % 3][x] */",
    );
    common::assert_runs_like_original(&path, "linear_shifted", "parameters", &output);
    assert_idempotent("linear_shifted", &output);
}

#[test]
fn temp_on_a_macro_declared_parameter_keeps_the_macro() {
    let path = case("temp_macro_parameter");
    // Without the flag, `kernel` is not `static`: `t` is external.
    let source = std::fs::read_to_string(&path).expect("test program");
    assert_eq!(polyfold(&[], &path), source);
    // With it, t[i] is dead after its iteration: one cell, inside the
    // declared extent; the macro's text stays.
    let output = polyfold(&["--temp", "kernel:t"], &path);
    assert_has(
        &output,
        "void kernel(int n, double ARRAY_1D(t, N, n) /* polyfold: t[i] -> t[0] */, double out[N])",
    );
    assert_has(&output, "out[i] = t[0] * t[0];");
    assert_has(&output, "double t[N], out[N];");
    common::assert_runs_like_original(&path, "temp_macro_parameter", "parameters", &output);
}
