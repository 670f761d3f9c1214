//! Issue 49: a local temporary whose SCoP reads a cell before writing it
//! at some small size only (dynprog's `c[0][N - 1]` when N = 1) reads an
//! indeterminate value there (C11 6.2.4p6, 6.7.9p10): no storage has to
//! keep it, so the array is folded for every size, without a pin. Where
//! the value is defined (an initialiser, a `static`, a use before the
//! SCoP, a SCoP run twice in one lifetime), the array is not folded so.
//!
//! The fact (`starts_indeterminate`) is checked on each form by hand; the
//! folded kernel is compiled and run against the original at every size
//! where the original's output is defined, and the initialised kernel at
//! N = 1 too, where its output is defined and must stay the same.

use crate::common;

/// A dynprog-like kernel (seed 001, Figure 4, with an external input for
/// the upward reads): `c[i][k]` is read in row `i` only, `c[0][N - 1]` at
/// the end. When N = 1 no write runs and that read is the only access.
/// `DECL` is the declaration of `c`, `BEFORE` a statement before the SCoP.
const KERNEL: &str = r#"#include <stdio.h>
#define N 10
static void kernel(int W[N][N], int c_in[N][N], int out[1], int rowsum[N])
{
    int i, j, k;
    DECL
    int s;
    BEFORE
#pragma scop
    for (i = 0; i <= N - 2; i++) {
        for (j = i + 1; j <= N - 1; j++) {
            s = 0;
            for (k = i + 1; k <= j - 1; k++)
                s = s + c[i][k] + c_in[k][j];
            c[i][j] = s + W[i][j];
        }
        rowsum[i] = s;
    }
    out[0] = c[0][N - 1];
#pragma endscop
}

int main(void)
{
    int W[N][N], c_in[N][N], out[1], rowsum[N];
    int i, j;
    long total = 0;
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) {
            W[i][j] = (i * 5 + j * 3) % 7 - 2;
            c_in[i][j] = (i * 3 + j * 11) % 13 - 6;
        }
    for (i = 0; i < N; i++)
        rowsum[i] = 0;
    kernel(W, c_in, out, rowsum);
    for (i = 0; i < N; i++)
        total += rowsum[i] * (i + 1);
    printf("out %d rowsum %ld\n", out[0], total);
    return 0;
}
"#;

/// The report's line for an array whose live-in cells at other sizes
/// were left out.
const LIVE_IN_LINE: &str = "live-in: a cell read before any write at other sizes only";

fn kernel(decl: &str, before: &str) -> String {
    KERNEL.replace("DECL", decl).replace("BEFORE", before)
}

/// The `starts_indeterminate` fact of array `name` in the first SCoP of
/// `source`.
fn starts_indeterminate(source: &str, name: &str) -> bool {
    let program = polyfold::frontend::extract("t.c", source, &Default::default());
    let scop = program.scops.first().expect("a SCoP");
    scop.arrays
        .iter()
        .find(|a| a.name == name)
        .unwrap_or_else(|| panic!("no array `{name}`"))
        .facts
        .starts_indeterminate
}

#[test]
fn only_a_local_that_nothing_else_touches_starts_indeterminate() {
    // A plain local, used by the SCoP only: every run starts it afresh.
    assert!(starts_indeterminate(&kernel("int c[N][N];", ""), "c"));
    // Its values are defined (or may be) when the SCoP starts:
    let defined = [
        ("int c[N][N] = {0};", ""),
        ("static int c[N][N];", ""),
        ("volatile int c[N][N];", ""),
        ("int c[N][N];", "c[0][0] = 1;"),
        // A label a `goto` could reach before the SCoP.
        ("int c[N][N];", "again:; if (W[0][0] > 1000) goto again;"),
    ];
    for (decl, before) in defined {
        assert!(
            !starts_indeterminate(&kernel(decl, before), "c"),
            "{decl} {before}"
        );
    }
    // A label that no `goto` names cannot be jumped to (issue 51).
    assert!(starts_indeterminate(
        &kernel("int c[N][N];", "again:;"),
        "c"
    ));
    // Parameters belong to the caller.
    assert!(!starts_indeterminate(&kernel("int c[N][N];", ""), "W"));
}

/// The SCoP in a loop: one array for both runs when declared outside the
/// loop, a new one per run when declared inside its body.
#[test]
fn a_scop_run_twice_in_one_lifetime_does_not_start_indeterminate() {
    let body = r#"#pragma scop
        for (i = 0; i < N; i++)
            c[i] = c[i] + 1;
#pragma endscop"#;
    let outside = format!(
        "#define N 8\nvoid f(int out[N])\n{{\n    int i, t;\n    int c[N];\n    \
         for (t = 0; t < 2; t++) {{\n{body}\n    }}\n    out[0] = 0;\n}}\n"
    );
    assert!(!starts_indeterminate(&outside, "c"));
    let inside = format!(
        "#define N 8\nvoid f(int out[N])\n{{\n    int i, t;\n    \
         for (t = 0; t < 2; t++) {{\n        int c[N];\n{body}\n    }}\n    out[0] = 0;\n}}\n"
    );
    assert!(starts_indeterminate(&inside, "c"));
    let in_if = format!(
        "#define N 8\nvoid f(int out[N], int t)\n{{\n    int i;\n    int c[N];\n    \
         if (t > 0) {{\n{body}\n    }}\n    out[0] = 0;\n}}\n"
    );
    assert!(starts_indeterminate(&in_if, "c"));
}

#[test]
fn a_cell_read_uninitialised_at_small_sizes_does_not_stop_a_fold_for_every_size() {
    let source = kernel("int c[N][N];", "");
    let dir = common::scratch("pipeline", "indeterminate_fold");
    let path = dir.join("dynprog_like.c");
    std::fs::write(&path, &source).expect("write");
    let output = common::polyfold_stdout(&[&path]);
    // By hand: row i writes c[i][i + 1 .. N - 1] at k - i = 1 .. N - 1 and
    // reads them in that row only; c[0][N - 1], which the end reads, sits
    // at N - 1, where no later row writes (row i >= 1 stops at
    // N - 1 - i). So N cells, and 0 <= k - i < N needs no `%`, in the
    // code or in the note.
    common::assert_lines(
        &output,
        &[
            "    int c[N]; /* polyfold: c[i][k] -> c[k - i] */",
            "                s = s + c[k - i] + c_in[k][j];",
            "            c[j - i] = s + W[i][j];",
            "    out[0] = c[N - 1];",
        ],
    );
    assert!(!output.contains("_Static_assert"), "{output}");
    let report = common::polyfold_stdout(&[
        std::ffi::OsStr::new("--report"),
        "text".as_ref(),
        path.as_os_str(),
    ]);
    assert!(report.contains(LIVE_IN_LINE), "{report}");
    // Every size where the original's output is defined (N >= 2; at
    // N = 1 it prints the indeterminate c[0][0]).
    for n in [2, 3, 4, 7, 23] {
        let o = common::with_define(&source, "N", n);
        let t = common::with_define(&output, "N", n);
        let a = common::run_c(&o, &dir, "original");
        let b = common::run_c(&t, &dir, "output");
        assert_eq!(a, b, "N = {n}");
    }
}

/// With `= {0}` the cell read at N = 1 is 0, a defined value: the array
/// is not folded for every size, and at N = 1 the output prints what the
/// original prints.
#[test]
fn a_cell_with_a_defined_value_keeps_it_at_small_sizes() {
    let source = kernel("int c[N][N] = {0};", "");
    let dir = common::scratch("pipeline", "indeterminate_defined");
    let path = dir.join("initialised.c");
    std::fs::write(&path, &source).expect("write");
    let output = common::polyfold_stdout(&[&path]);
    assert!(!output.contains("_Static_assert"), "{output}");
    let report = common::polyfold_stdout(&[
        std::ffi::OsStr::new("--report"),
        "text".as_ref(),
        path.as_os_str(),
    ]);
    assert!(!report.contains(LIVE_IN_LINE), "{report}");
    for n in [1, 2, 5, 12] {
        let o = common::with_define(&source, "N", n);
        let t = common::with_define(&output, "N", n);
        assert_eq!(
            common::run_c(&o, &dir, "original"),
            common::run_c(&t, &dir, "output"),
            "N = {n}"
        );
    }
}
