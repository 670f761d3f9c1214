//! The memory one step of a fused loop touches, at the known sizes: what
//! decides whether loops whose inner loops walk arrays across their rows
//! may still fuse (see [`super::fusion`]).
//!
//! One step of a loop at depth `d` runs the inner loops of each of its
//! statements in full. Each access then touches at most a box of cells:
//! per subscript, the range its inner iterators' terms span (the iterators
//! at depth `d` and above are fixed in a step). The ranges of the
//! iterators are interval bounds of their loops' bounds at the known
//! parameter values, so the box contains every cell the step touches
//! (triangular loops are counted as their bounding rectangles). A box
//! takes whole cache lines: its rows' cells, at least one line per row
//! (a walk across rows touches a line per cell). An array's footprint is
//! its largest box; the step's is the sum over the arrays. Overflow and anything not read (a loop bound that is not one
//! affine expression, an unknown size) give no estimate: the rule that
//! needs it then refuses.

use crate::ir::{AffExpr, Scop, Stmt};

/// The most bytes one step of a fused loop may touch for loops that walk
/// arrays across their rows to fuse: twice the 32 KiB L1 data cache of a
/// core of the machine the rule was measured on (512 KiB L2). PolyBench's
/// 2mm and 3mm fused (`tmp`'s, `E`'s rows with their consumer's; gcc
/// 12.2, the sum of 40 alternating runs of each program, 3 rounds; times
/// of the fused kernel over the original's): 2mm at SMALL_DATASET (60 KB
/// per step) 0.81-0.85 at -O2 and 0.82-0.90 at -O3 -march=native; 3mm at
/// SMALL (52 KB) 0.91-0.93 and 0.87-0.96; 2mm at NI = NJ = NK = NL = 80
/// (102 KB) 1.10-1.25 and 0.93-0.99; 2mm at MEDIUM (about 650 KB) 0.95
/// and 1.02, at LARGE 1.04 and 1.12, 3mm at LARGE (15 MB) 1.07 and 1.07
/// (medians of 5 runs).
pub(crate) const STEP_BYTES: i64 = 64 * 1024;

/// The bytes of a cell, for the estimate: the widest scalar a kernel
/// usually holds (`double`).
const CELL_BYTES: i64 = 8;

/// The bytes of a cache line: the least a walk across rows touches per
/// row.
const LINE_BYTES: i64 = 64;

/// Bytes that one step of a fused loop at depth `d` touches, over the
/// statements `stmts` of `scop`, at the parameters' known values (whole
/// cache lines: a row's cells, at least a line per row); `None`
/// when a subscript's range is bounded neither by its loops nor by its
/// array's extent (both read at the known values).
pub(crate) fn step_bytes(scop: &Scop, stmts: &[usize], d: usize) -> Option<i64> {
    let values: Vec<Option<i64>> = scop.params.iter().map(|p| p.value).collect();
    // Per array: the largest box of its accesses.
    let mut per_array: Vec<(crate::ir::ArrayId, i64)> = Vec::new();
    for &k in stmts {
        let s = scop.stmts.get(k)?;
        let ranges = iterator_ranges(scop, s, &values);
        for a in s.accesses() {
            let extents = &scop.array(a.array).extents;
            // Rows (the values of every subscript but the last) times the
            // bytes of a row.
            let (mut rows, mut row): (i64, i64) = (1, CELL_BYTES);
            let last = a.subscripts.len().saturating_sub(1);
            for (dim, sub) in a.subscripts.iter().enumerate() {
                // A subscript stays within its extent (C's rule), or the
                // original program is undefined anyway.
                let extent = extents
                    .get(dim)
                    .and_then(|e| e.aff.as_ref())
                    .and_then(|e| extreme(e, &values, &[], true));
                let width = subscript_width(sub, &ranges, values.len(), d);
                let width = match (width, extent) {
                    (Some(w), Some(e)) => w.min(e.max(1)),
                    (Some(w), None) => w,
                    (None, Some(e)) => e.max(1),
                    (None, None) => return None,
                };
                // The last subscript's cells share cache lines; each
                // value of another one starts lines of its own.
                if dim == last {
                    row = CELL_BYTES.checked_mul(width)?.max(LINE_BYTES);
                } else {
                    rows = rows.checked_mul(width)?;
                }
            }
            let bytes = rows.checked_mul(row)?;
            match per_array.iter_mut().find(|(id, _)| *id == a.array) {
                Some((_, most)) => *most = (*most).max(bytes),
                None => per_array.push((a.array, bytes)),
            }
        }
    }
    per_array
        .iter()
        .try_fold(0i64, |acc, (_, bytes)| acc.checked_add(*bytes))
}

/// How many values subscript `sub` takes in one step of the loop at
/// depth `d` (the iterators after it vary over `ranges`), when their
/// ranges are known.
fn subscript_width(
    sub: &AffExpr,
    ranges: &[Option<(i64, i64)>],
    np: usize,
    d: usize,
) -> Option<i64> {
    let mut width: i64 = 1;
    for (j, range) in ranges.iter().enumerate().skip(d + 1) {
        let c = *sub.coeffs.get(np + j)?;
        if c == 0 {
            continue;
        }
        let (lo, hi) = (*range)?;
        width = width.checked_add(c.checked_abs()?.checked_mul(hi.checked_sub(lo)?)?)?;
    }
    Some(width)
}

/// Per iterator of `s`: an interval that holds its values at the
/// parameters' `values` (the loops' bounds, one affine expression each,
/// evaluated over the intervals of the enclosing iterators); `None` where
/// a bound is not read or names an unknown value.
fn iterator_ranges(scop: &Scop, s: &Stmt, values: &[Option<i64>]) -> Vec<Option<(i64, i64)>> {
    let mut ranges: Vec<Option<(i64, i64)>> = Vec::new();
    for depth in 0..s.iterators.len() {
        let range = super::bounds::bounds(scop, s, depth).and_then(|(lower, upper)| {
            let lo = extreme(&lower, values, &ranges, false)?;
            let hi = extreme(&upper, values, &ranges, true)?;
            // A loop that never runs touches nothing: an empty interval.
            Some((lo, hi.max(lo)))
        });
        ranges.push(range);
    }
    ranges
}

/// The least (or the largest, `most`) value of `a` over the parameters'
/// values and the intervals of the iterators after them.
fn extreme(
    a: &AffExpr,
    values: &[Option<i64>],
    ranges: &[Option<(i64, i64)>],
    most: bool,
) -> Option<i64> {
    let np = values.len();
    let mut acc = a.constant;
    for (k, c) in a.coeffs.iter().enumerate() {
        if *c == 0 {
            continue;
        }
        let term = if k < np {
            c.checked_mul((*values.get(k)?)?)?
        } else {
            let (lo, hi) = (*ranges.get(k - np)?)?;
            let (x, y) = (c.checked_mul(lo)?, c.checked_mul(hi)?);
            if most { x.max(y) } else { x.min(y) }
        };
        acc = acc.checked_add(term)?;
    }
    Some(acc)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scop_of(source: &str) -> Scop {
        let program = crate::frontend::extract("t.c", source, &Default::default());
        program.scops.into_iter().next().expect("a SCoP")
    }

    /// A row of `E` (M cells) and all of `B` (K x M) per step of `i`,
    /// counted by hand: (M + K * M) * 8 bytes.
    #[test]
    fn a_matrix_product_step_touches_a_row_and_the_whole_right_operand() {
        let s = scop_of(
            "#define N 10\n#define M 20\n#define K 30\n\
             double A[N][K], B[K][M], E[N][M];\n\
             void f(void) {\n  for (int i = 0; i < N; i++)\n    for (int j = 0; j < M; j++) {\n\
             \x20     E[i][j] = 0;\n      for (int k = 0; k < K; k++)\n\
             \x20       E[i][j] += A[i][k] * B[k][j];\n    }\n}\n",
        );
        let all: Vec<usize> = (0..s.stmts.len()).collect();
        // A[i][k]: 30 cells of a row; B[k][j]: 30 rows of 20; E[i][j]:
        // 20 of a row.
        assert_eq!(step_bytes(&s, &all, 0), Some((30 + 600 + 20) * 8));
        // A step of `j` runs the `k` loop only: A 30 cells of a row, B one
        // cell (a line) in each of 30 rows, E one cell (a line).
        assert_eq!(step_bytes(&s, &all, 1), Some(30 * 8 + 30 * 64 + 64));
    }

    #[test]
    fn an_unknown_size_gives_no_estimate() {
        let s = scop_of(
            "void f(int n, double x[n][n], double y[n][n]) {\n  for (int i = 0; i < n; i++)\n\
             \x20   for (int j = 0; j < n; j++)\n      y[i][j] = x[j][i];\n}\n",
        );
        assert_eq!(step_bytes(&s, &[0], 0), None);
        // A step of the inner loop touches one cell (a line) of each.
        assert_eq!(step_bytes(&s, &[0], 1), Some(2 * 64));
    }
}
