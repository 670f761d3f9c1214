//! Issue 51, item 4: an `if` whose condition reads data (`if (A[a] ==
//! B[b]) score = 1; else score = -1;`) is modelled as pet models it: both
//! branches' accesses may happen, a write that may happen also reads the
//! cell it writes, and the condition's reads belong to the first
//! assignment of each branch (`frontend::analyze::data_if`). The arrays
//! whose accesses do not depend on the data still fold.
//!
//! Every kernel is compiled and run against its original (ASan/UBSan),
//! with inputs for which both branches run. The cells are derived by hand
//! in each test's comment.

use crate::common;

/// Needleman–Wunsch-like alignment on a 2-D table: a score chosen by
/// comparing characters, the table filled from its upper, left and
/// upper-left neighbours.
const ALIGN: &str = r#"#include <stdio.h>
#define N 64
int A[N], B[N];
int out[N + 1];
static int max3(int x, int y, int z)
{
    int m = x > y ? x : y;
    return m > z ? m : z;
}
static void kernel(void)
{
    int M[N + 1][N + 1];
    int score;
    int a, b;
    for (a = 0; a <= N; a++)
        M[0][a] = -a;
    for (b = 1; b <= N; b++) {
        M[b][0] = -b;
        for (a = 1; a <= N; a++) {
            if (A[a - 1] == B[b - 1])
                score = 1;
            else
                score = -1;
            M[b][a] = max3(M[b - 1][a - 1] + score, M[b - 1][a] - 1, M[b][a - 1] - 1);
        }
    }
    for (a = 0; a <= N; a++)
        out[a] = M[N][a];
}
int main(void)
{
    int i;
    for (i = 0; i < N; i++) {
        A[i] = (i * 7) % 4;
        B[i] = (i * 5 + 1) % 4;
    }
    kernel();
    for (i = 0; i <= N; i++)
        printf("%d\n", out[i]);
    return 0;
}
"#;

#[test]
fn a_score_chosen_by_comparing_characters_leaves_the_table_foldable() {
    let dir = common::scratch("pipeline", "data_conditions_align");
    let path = dir.join("align.c");
    std::fs::write(&path, ALIGN).expect("write");
    // When row b is filled up to column a, the values still to be read
    // are those of row b - 1 from column a - 1 on (N - a + 2 of them) and
    // those of row b up to column a - 1 (a of them): N + 2 at every step,
    // less than two rows (2 (N + 1)).
    let report = common::json_report(&[path.to_str().unwrap()]);
    assert_eq!(common::new_cells(&report, "M"), Some(64 + 2), "{report:#}");
    let output = common::polyfold_stdout(&[&path]);
    assert!(output.contains("int M[N + 2];"), "{output}");
    // Valid at every size, not only the one it was made for.
    for n in [1, 2, 3, 7, 64] {
        let original = dir.join(format!("align_{n}.c"));
        std::fs::write(&original, common::with_define(ALIGN, "N", n)).expect("write");
        common::assert_runs_like_original(
            &original,
            &format!("align_{n}"),
            "data_conditions",
            &common::with_define(&output, "N", n),
        );
    }
}

/// `t[i]` may be overwritten at each time step: where it is not, the value
/// of the step before is read. A write that may not happen must keep the
/// value it would overwrite.
const TIMED: &str = r#"#include <stdio.h>
#define N 40
#define K 5
static void kernel(int x[N], int y[N])
{
    int t[N];
    int i, k;
#pragma scop
    for (i = 0; i < N; i++)
        t[i] = x[i] + 100;
    for (k = 0; k < K; k++) {
        for (i = 0; i < N; i++)
            if (x[i] > k)
                t[i] = k;
        for (i = 0; i < N; i++)
            y[i] = y[i] + t[i];
    }
#pragma endscop
}
int main(void)
{
    int x[N], y[N], i;
    for (i = 0; i < N; i++) {
        x[i] = (i * 7) % 9;
        y[i] = i;
    }
    kernel(x, y);
    for (i = 0; i < N; i++)
        printf("%d ", y[i]);
    printf("\n");
    return 0;
}
"#;

#[test]
fn a_write_that_may_not_happen_keeps_the_value_it_would_overwrite() {
    let dir = common::scratch("pipeline", "data_conditions_timed");
    let path = dir.join("timed.c");
    std::fs::write(&path, TIMED).expect("write");
    // At the start of every step k >= 1 each t[i] holds a value that the
    // step reads where x[i] <= k (x[i] = 7i mod 9 takes every residue):
    // all N cells. Modelled as a write that always happens, the fused
    // steps would keep t in one cell and read another element's value.
    let report = common::json_report(&[path.to_str().unwrap()]);
    assert_eq!(common::new_cells(&report, "t"), Some(40), "{report:#}");
    let output = common::polyfold_stdout(&[&path]);
    common::assert_runs_like_original(&path, "timed", "data_conditions", &output);
}

/// A value written first, perhaps overwritten, then read: the three loops
/// fuse (the `if` travels with its loop's body) and `t` is one cell.
const MAY: &str = r#"#include <stdio.h>
#define N 40
static void kernel(int x[N], int y[N])
{
    int t[N];
    int i;
#pragma scop
    for (i = 0; i < N; i++)
        t[i] = x[i] + 100;
    for (i = 0; i < N; i++)
        if (x[i] > 2)
            t[i] = 0;
    for (i = 0; i < N; i++)
        y[i] = t[i] * 3;
#pragma endscop
}
int main(void)
{
    int x[N], y[N], i;
    for (i = 0; i < N; i++)
        x[i] = (i * 7) % 5;
    kernel(x, y);
    for (i = 0; i < N; i++)
        printf("%d ", y[i]);
    printf("\n");
    return 0;
}
"#;

#[test]
fn loops_with_a_data_condition_in_their_bodies_fuse() {
    let dir = common::scratch("pipeline", "data_conditions_may");
    let path = dir.join("may.c");
    std::fs::write(&path, MAY).expect("write");
    // Fused, t[i] is written, perhaps rewritten and read in iteration i:
    // one value at a time.
    let report = common::json_report(&[path.to_str().unwrap()]);
    assert_eq!(common::new_cells(&report, "t"), Some(1), "{report:#}");
    let output = common::polyfold_stdout(&[&path]);
    common::assert_lines(&output, &["        if (x[i] > 2)", "            t = 0;"]);
    common::assert_runs_like_original(&path, "may", "data_conditions", &output);
}

/// A condition that reads a temporary (`c[i]`), and a cell written on
/// both paths (`t[i]`): the value before the `if` dies there.
const BOTH: &str = r#"#include <stdio.h>
#define N 40
static void kernel(int x[N], int y[N])
{
    int t[N], c[N];
    int i;
#pragma scop
    for (i = 0; i < N; i++) {
        c[i] = x[i] - 2;
        if (c[i] > 0)
            t[i] = x[i];
        else
            t[i] = -x[i];
        y[i] = t[i] + c[i];
    }
#pragma endscop
}
int main(void)
{
    int x[N], y[N], i;
    for (i = 0; i < N; i++)
        x[i] = (i * 7) % 5;
    kernel(x, y);
    for (i = 0; i < N; i++)
        printf("%d ", y[i]);
    printf("\n");
    return 0;
}
"#;

#[test]
fn a_condition_reads_a_temporary_and_both_branches_write_one_cell() {
    let dir = common::scratch("pipeline", "data_conditions_both");
    let path = dir.join("both.c");
    std::fs::write(&path, BOTH).expect("write");
    // c[i] and t[i] are each written and read in iteration i only.
    let report = common::json_report(&[path.to_str().unwrap()]);
    assert_eq!(common::new_cells(&report, "c"), Some(1), "{report:#}");
    assert_eq!(common::new_cells(&report, "t"), Some(1), "{report:#}");
    let output = common::polyfold_stdout(&[&path]);
    common::assert_lines(&output, &["        if (c > 0)", "            t = x[i];"]);
    common::assert_runs_like_original(&path, "both", "data_conditions", &output);
}
