//! Enumeration of the integer points of a polyhedron with fixed parameters.
//!
//! A bounding box per column comes from exact integer minima and maxima;
//! points are then enumerated column by column, pruning with every
//! constraint whose columns are all fixed so far, and each complete point is
//! checked against every constraint. Existential columns are enumerated like
//! the others and the results are deduplicated on the visible columns.

use super::simplex::{IntResult, integer_max, integer_min};
use super::{BasicSet, Budget, PolyError, PolyResult};

/// Fixes every parameter of `piece` to `values`.
pub(crate) fn fix_params(piece: &mut BasicSet, values: &[i64]) {
    for (q, v) in values.iter().enumerate() {
        let mut row = piece.zero_row();
        row[q] = 1;
        let last = row.len() - 1;
        row[last] = -v;
        piece.add_eq(row);
    }
}

/// Hard cap on the number of points visited, so that a huge domain is an
/// error and not a hang.
pub(crate) const MAX_VISITED: u64 = 50_000_000;

/// The integer points of `set` (params fixed to `params`), as vectors of the
/// set dimensions (without parameters or existentials), in lexicographic
/// order, without duplicates.
pub fn integer_points(
    set: &BasicSet,
    params: &[i64],
    budget: &mut Budget,
) -> PolyResult<Vec<Vec<i64>>> {
    let mut out: Vec<Vec<i64>> = Vec::new();
    for_each_integer_point(set, params, budget, &mut |p| out.push(p.to_vec()))?;
    out.sort();
    out.dedup();
    Ok(out)
}

/// Calls `f` on every integer point of `set` (params fixed to `params`), as
/// the vector of the set dimensions, in lexicographic order of all columns
/// (existentials included): a point is visited once per integer value of
/// its existentials, so callers deduplicate when the set has existentials.
pub(crate) fn for_each_integer_point(
    set: &BasicSet,
    params: &[i64],
    budget: &mut Budget,
    f: &mut dyn FnMut(&[i64]),
) -> PolyResult<()> {
    let n_param = set.space.n_param();
    let n_dim = set.space.n_dim();
    let n_cols = set.width() - 1;
    let mut fixed = set.clone();
    fix_params(&mut fixed, params);
    // Bounding box of every non-parameter column.
    let mut lo = vec![0i64; n_cols];
    let mut hi = vec![0i64; n_cols];
    for (q, v) in params.iter().enumerate() {
        lo[q] = *v;
        hi[q] = *v;
    }
    for col in n_param..n_cols {
        let mut objective = fixed.zero_row();
        objective[col] = 1;
        match integer_min(&fixed, &objective, budget)? {
            IntResult::Infeasible => return Ok(()),
            IntResult::Unbounded => return Err(PolyError::Solver("unbounded domain".into())),
            IntResult::Optimal { value, .. } => lo[col] = value,
        }
        match integer_max(&fixed, &objective, budget)? {
            IntResult::Infeasible => return Ok(()),
            IntResult::Unbounded => return Err(PolyError::Solver("unbounded domain".into())),
            IntResult::Optimal { value, .. } => hi[col] = value,
        }
    }
    // The last column each constraint mentions: it can be checked as soon as
    // that column is fixed.
    let rows: Vec<(&Vec<i64>, bool)> = set
        .eqs
        .iter()
        .map(|r| (r, true))
        .chain(set.ineqs.iter().map(|r| (r, false)))
        .collect();
    let mut by_last: Vec<Vec<(&Vec<i64>, bool)>> = vec![Vec::new(); n_cols.max(1)];
    for (row, is_eq) in rows {
        let last = (0..n_cols).rev().find(|c| row[*c] != 0).unwrap_or(0);
        by_last[last].push((row, is_eq));
    }
    let mut point = lo.clone();
    let mut visited: u64 = 0;
    if n_cols == n_param {
        // A zero-dimensional set: its only point is the empty vector.
        let ok = by_last.iter().flatten().all(|(row, is_eq)| {
            let v = crate::poly::basic::eval_row(row, &point).unwrap_or(-1);
            if *is_eq { v == 0 } else { v >= 0 }
        });
        if ok {
            f(&[]);
        }
        return Ok(());
    }
    // Parameter-only constraints.
    for (row, is_eq) in by_last[..n_param].iter().flatten() {
        let v = crate::poly::basic::eval_row(row, &point)?;
        if (*is_eq && v != 0) || (!*is_eq && v < 0) {
            return Ok(());
        }
    }
    let scan = Scan {
        lo: &lo,
        hi: &hi,
        by_last: &by_last,
    };
    enumerate_from(n_param, &scan, &mut point, &mut visited, budget, &mut |p| {
        f(&p[n_param..n_param + n_dim])
    })
}

/// The box of the scan and the constraints by their last column.
struct Scan<'a> {
    lo: &'a [i64],
    hi: &'a [i64],
    by_last: &'a [Vec<(&'a Vec<i64>, bool)>],
}

fn enumerate_from(
    col: usize,
    scan: &Scan<'_>,
    point: &mut Vec<i64>,
    visited: &mut u64,
    budget: &mut Budget,
    emit: &mut dyn FnMut(&[i64]),
) -> PolyResult<()> {
    let n_cols = point.len();
    // Tighten the box with the constraints whose last column is `col`:
    // with the earlier columns fixed, each gives a bound on `col`.
    let Scan { lo, hi, by_last } = *scan;
    let (mut from, mut to) = (lo[col] as i128, hi[col] as i128);
    for (row, is_eq) in &by_last[col] {
        let a = row[col] as i128;
        if a == 0 {
            continue;
        }
        let mut rest: i128 = row[row.len() - 1] as i128;
        for c in 0..col {
            rest += row[c] as i128 * point[c] as i128;
        }
        // a·x + rest >= 0 (or = 0). Divide in i64 when the values fit (an
        // i128 division is a slow library call).
        let (num, den) = (-rest, a);
        let (q, r) = match (i64::try_from(num), i64::try_from(den)) {
            (Ok(n), Ok(d)) if n != i64::MIN => (n.div_euclid(d) as i128, n.rem_euclid(d) as i128),
            _ => (num.div_euclid(den), num.rem_euclid(den)),
        };
        if *is_eq {
            if r != 0 {
                return Ok(());
            }
            from = from.max(q);
            to = to.min(q);
        } else if a > 0 {
            // x >= ceil(-rest / a).
            from = from.max(q + i128::from(r != 0));
        } else {
            // a < 0: x <= floor(rest / -a).
            let (n2, d2) = (rest, -a);
            let q2 = match (i64::try_from(n2), i64::try_from(d2)) {
                (Ok(n), Ok(d)) if n != i64::MIN => n.div_euclid(d) as i128,
                _ => n2.div_euclid(d2),
            };
            to = to.min(q2);
        }
    }
    if from > to {
        return Ok(());
    }
    for v in from as i64..=to as i64 {
        *visited += 1;
        if *visited > MAX_VISITED {
            return Err(PolyError::Budget);
        }
        // One step of the caller's budget per point visited: a huge domain
        // ends the enumeration instead of filling the memory.
        budget.tick()?;
        // Every row whose last column is `col` holds: [from, to] is
        // exactly the range they allow (computed in i128 above).
        point[col] = v;
        if col + 1 == n_cols {
            emit(point);
        } else {
            enumerate_from(col + 1, scan, point, visited, budget, emit)?;
        }
    }
    point[col] = lo[col];
    Ok(())
}
