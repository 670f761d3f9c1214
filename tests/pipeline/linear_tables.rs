//! Issue 51, item 6: a local table declared with one extent, a product
//! (`int M[(N + 1) * (N + 1)]`), indexed `M[row + a]` with the row offset
//! in a scalar (`row = b * (N + 1)`), is read as the table it stands for
//! (`frontend::linear_local`): `M[b][a]`, at every size. Its boundary
//! column, written first in a loop of its own, is fused into the fill
//! (`schedule::fusion`: one loop that holds a loop, the other's statement
//! once per row), and the table folds to its two live rows.
//!
//! Every output is compiled and run against its original (ASan/UBSan) at
//! several sizes; the cells are derived by hand in each test's comment.

use crate::common;

/// Needleman–Wunsch as HLS code writes it: a linearised table, row 0 and
/// column 0 written first, scalar row offsets, an `if`/`else` score.
const NW: &str = r#"#include <stdio.h>
#define N 16
#define GAP (-1)
char SA[N], SB[N];
int out[N + 1];
static void kernel(void)
{
    int M[(N + 1) * (N + 1)];
    int a, b, row, row_up, score, up_left, up, left, max;
    for (a = 0; a < N + 1; a++)
        M[a] = a * GAP;
    for (b = 0; b < N + 1; b++)
        M[b * (N + 1)] = b * GAP;
    for (b = 1; b < N + 1; b++) {
        row_up = (b - 1) * (N + 1);
        row = b * (N + 1);
        for (a = 1; a < N + 1; a++) {
            if (SA[a - 1] == SB[b - 1])
                score = 1;
            else
                score = -1;
            up_left = M[row_up + (a - 1)] + score;
            up = M[row_up + a] + GAP;
            left = M[row + (a - 1)] + GAP;
            max = up_left > up ? up_left : up;
            max = max > left ? max : left;
            M[row + a] = max;
        }
    }
    for (a = 0; a < N + 1; a++)
        out[a] = M[N * (N + 1) + a];
}
int main(void)
{
    int i;
    for (i = 0; i < N; i++) {
        SA[i] = "ACGT"[(i * 7) % 4];
        SB[i] = "ACGT"[(i * 5 + 1) % 4];
    }
    kernel();
    for (i = 0; i <= N; i++)
        printf("%d\n", out[i]);
    return 0;
}
"#;

#[test]
fn a_linearised_table_with_scalar_row_offsets_folds_to_two_rows() {
    let dir = common::scratch("pipeline", "linear_tables_nw");
    let path = dir.join("nw.c");
    std::fs::write(&path, NW).expect("write");
    // Once column 0 of row b is written with row b's fill, row b reads
    // only rows b - 1 and b: two rows of N + 1 cells, 2 * 17 = 34 at
    // N = 16 (the table had 17 * 17 = 289).
    let report = common::json_report(&[path.to_str().unwrap()]);
    assert_eq!(common::new_cells(&report, "M"), Some(34), "{report:#}");
    let output = common::polyfold_stdout(&[&path]);
    // The factor that counts rows is what changes; the row stays.
    assert!(output.contains("int M[2 * (N + 1)];"), "{output}");
    assert!(
        output.contains("M[(b % 2) * (N + 1) + a] = max;"),
        "{output}"
    );
    // No known value in the model: the output holds at every size.
    for n in [1, 2, 3, 7, 16, 40] {
        let original = dir.join(format!("nw_{n}.c"));
        std::fs::write(&original, common::with_define(NW, "N", n)).expect("write");
        common::assert_runs_like_original(
            &original,
            &format!("nw_{n}"),
            "linear_tables",
            &common::with_define(&output, "N", n),
        );
    }
}

/// A table whose subscripts are affine as written keeps its one
/// dimension: `t[2 * N + i]` needs no split (and one access, `t[N - 1 -
/// i]`, is not a row of N plus a column in 0 .. N - 1).
const FLAT: &str = r#"#include <stdio.h>
#define N 50
static void kernel(const double in[N], double out[N])
{
    double t[3 * N];
    int i;
    for (i = 0; i < N; i++)
        t[i] = in[i] * 2.0;
    for (i = 0; i < N; i++)
        t[2 * N + i] = in[i] + 1.0;
    for (i = 0; i < N; i++)
        out[i] = t[N - 1 - i] + t[2 * N + i];
}
int main(void)
{
    double in[N], out[N];
    int i;
    for (i = 0; i < N; i++)
        in[i] = (double)(i % 7);
    kernel(in, out);
    for (i = 0; i < N; i++)
        printf("%.3f\n", out[i]);
    return 0;
}
"#;

#[test]
fn a_table_whose_subscripts_are_affine_as_written_keeps_one_dimension() {
    let dir = common::scratch("pipeline", "linear_tables_flat");
    let path = dir.join("flat.c");
    std::fs::write(&path, FLAT).expect("write");
    let scop = common::polyfold_stdout(&["--emit", "scop", path.to_str().unwrap()]);
    assert!(scop.contains("array t: double[3N]"), "{scop}");
    let output = common::polyfold_stdout(&[&path]);
    common::assert_runs_like_original(&path, "flat", "linear_tables", &output);
}

/// A column that leaves its row (`M[b * W + a + 1]` with `a` up to `W -
/// 1`) is not the cell `[b][a + 1]`: the table is refused and keeps its
/// layout, read as written.
const OUT_OF_ROW: &str = r#"#include <stdio.h>
#define H 6
#define W 5
int out[H * W];
static void kernel(void)
{
    int M[H * W];
    int a, b, row;
    for (a = 0; a < H * W; a++)
        M[a] = a;
    for (b = 1; b < H - 1; b++) {
        row = b * W;
        for (a = 0; a < W; a++)
            M[row + a + 1] = M[row + a - W] + M[row + a + 1];
    }
    for (a = 0; a < H * W; a++)
        out[a] = M[a];
}
int main(void)
{
    int i;
    kernel();
    for (i = 0; i < H * W; i++)
        printf("%d\n", out[i]);
    return 0;
}
"#;

#[test]
fn a_column_that_leaves_its_row_keeps_the_table_one_dimensional() {
    let dir = common::scratch("pipeline", "linear_tables_out_of_row");
    let path = dir.join("oor.c");
    std::fs::write(&path, OUT_OF_ROW).expect("write");
    let scop = common::polyfold_stdout(&["--emit", "scop", path.to_str().unwrap()]);
    assert!(!scop.contains("array M: int[H][W]"), "{scop}");
    let output = common::polyfold_stdout(&[&path]);
    common::assert_runs_like_original(&path, "oor", "linear_tables", &output);
}
