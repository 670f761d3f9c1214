//! Projection: elimination of dimensions and existentials.
//!
//! Dimensions are eliminated by exact substitution when an equality fixes
//! them, and by Fourier–Motzkin elimination otherwise. Every result carries an
//! `exact` flag:
//! - `exact == true`: the integer points of the result are exactly the
//!   projections of the integer points of the input;
//! - `exact == false`: the result is a superset of that projection (the
//!   rational shadow, tightened to integers). It is never a subset.
//!
//! A Fourier–Motzkin step on variable `x` is exact when `x` has coefficient
//! `+1` in all its lower bounds or `-1` in all its upper bounds (then the
//! largest lower bound, or the smallest upper bound, is an integer witness),
//! or when every other pair of bounds leaves room for a multiple of its
//! coefficients whatever the other variables are (see [`pair_is_exact`]);
//! an equality step is exact when the coefficient of `x` is `±1`.
//!
//! [`project_out_keep_exists`] turns dimensions into existentials instead;
//! that is always exact. [`eliminate_exists_where_exact`] removes only the
//! existentials whose elimination is exact.
//!
//! Fourier–Motzkin can grow the system exponentially: past
//! [`MAX_FM_ROWS`] inequalities the elimination stops with
//! [`PolyError::Budget`] (callers fall back as for any exhausted budget).
//!
//! What this module does NOT do: it does not compute exact integer
//! projections in the general non-unit case (no splintering); callers keep
//! an existential instead when they need exactness.

use super::basic::BasicSet;
use super::constraints::{
    RowStatus, combine, drop_box_implied_rows, normalize_eq, normalize_ineq, remove_column,
    simplify,
};
use super::error::{PolyError, PolyResult, mul, neg};
use super::set::Set;
use super::space::Space;

/// The kinds of named dimensions of a space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DimType {
    Param,
    In,
    Out,
}

/// A projected polyhedron and whether it is exact (see the module docs).
#[derive(Clone, Debug)]
pub struct Projection {
    pub set: BasicSet,
    pub exact: bool,
}

/// A projected union and whether every piece is exact.
#[derive(Clone, Debug)]
pub struct SetProjection {
    pub set: Set,
    pub exact: bool,
}

impl Space {
    /// Column of dimension `index` of kind `ty`.
    pub(crate) fn col_of(&self, ty: DimType, index: usize) -> usize {
        match ty {
            DimType::Param => self.param_col(index),
            DimType::In => self.in_col(index),
            DimType::Out => self.out_col(index),
        }
    }

    /// Number of dimensions of kind `ty`.
    pub(crate) fn count_of(&self, ty: DimType) -> usize {
        match ty {
            DimType::Param => self.n_param(),
            DimType::In => self.n_in(),
            DimType::Out => self.n_out(),
        }
    }

    /// This space without dimensions `first..first + n` of kind `ty`.
    pub(crate) fn without_dims(&self, ty: DimType, first: usize, n: usize) -> Space {
        let mut s = self.clone();
        match ty {
            DimType::Param => {
                s.params.drain(first..first + n);
            }
            DimType::In => {
                s.domain.dims.drain(first..first + n);
            }
            DimType::Out => {
                if let Some(r) = &mut s.range {
                    r.dims.drain(first..first + n);
                }
            }
        }
        s
    }
}

/// Cost estimate of eliminating `col`: (not exact, number of new rows minus
/// removed rows). Smaller is better.
fn elimination_cost<'a>(
    eqs: &[Vec<i64>],
    ineqs: impl Iterator<Item = &'a Vec<i64>>,
    col: usize,
) -> (bool, i64) {
    if let Some(a) = eqs
        .iter()
        .map(|r| r[col])
        .filter(|a| *a != 0)
        .min_by_key(|a| a.unsigned_abs())
    {
        return (a.unsigned_abs() != 1, -1);
    }
    let ineqs: Vec<&Vec<i64>> = ineqs.collect();
    let mut n_lower = 0i64;
    let mut n_upper = 0i64;
    let mut lower_unit = true;
    let mut upper_unit = true;
    let (mut lower, mut upper) = (Vec::new(), Vec::new());
    for r in ineqs.iter().copied() {
        let a = r[col];
        if a > 0 {
            n_lower += 1;
            lower_unit &= a == 1;
            lower.push(r);
        } else if a < 0 {
            n_upper += 1;
            upper_unit &= a == -1;
            upper.push(r);
        }
    }
    let exact = lower_unit || upper_unit || n_lower == 0 || n_upper == 0 || {
        let width = ineqs.first().map_or(0, |r| r.len());
        let bounds = column_bounds(eqs.iter(), ineqs.iter().copied(), width);
        lower.iter().all(|l| {
            upper.iter().all(|u| {
                combine(-u[col], l, l[col], u)
                    .and_then(|row| pair_is_exact(l[col], -u[col], &row, &bounds))
                    .unwrap_or(false)
            })
        })
    };
    (!exact, n_lower * n_upper - n_lower - n_upper)
}

/// Largest number of inequalities a Fourier–Motzkin elimination may
/// produce before it gives up with [`PolyError::Budget`].
pub(crate) const MAX_FM_ROWS: usize = 5000;

/// An inequality with its Fourier–Motzkin history: the set of rows of the
/// starting system it is a combination of, and whether it is *pure* (a
/// positive multiple of that combination, never tightened to integers).
#[derive(Clone, Debug)]
struct HistoryRow {
    row: Vec<i64>,
    history: Vec<u64>,
    pure: bool,
}

fn history_union(a: &[u64], b: &[u64]) -> Vec<u64> {
    a.iter().zip(b).map(|(x, y)| x | y).collect()
}

fn history_len(h: &[u64]) -> usize {
    h.iter().map(|w| w.count_ones() as usize).sum()
}

/// A system under Fourier–Motzkin elimination.
///
/// Besides normalisation and duplicate removal it applies Chernikov's rule:
/// after `k` eliminations, a *pure* row whose history has more than `k + 1`
/// starting rows is a non-negative combination of the rows of minimal
/// history, which the elimination keeps (or keeps stronger versions of), so
/// it is dropped without changing the set. The bookkeeping that keeps this
/// sound next to integer tightening and the other prunings:
/// - a row tightened to integers is stronger than the combination it came
///   from: it (and its descendants) stop being pure and are never dropped;
/// - when two rows with equal coefficients merge, the tighter one stays and
///   its recorded history becomes the intersection of both (a recorded
///   history is always a subset of the true one, which only makes drops
///   rarer);
/// - single-variable rows are never dropped by the rule, and rows implied by
///   the single-variable bounds are dropped only when they have no
///   coefficient left to eliminate (so they have no descendants);
/// - an elimination through an equality restarts the histories.
struct FmSystem {
    eqs: Vec<Vec<i64>>,
    ineqs: Vec<HistoryRow>,
    eliminated_since_reset: usize,
}

impl FmSystem {
    fn new(eqs: Vec<Vec<i64>>, ineqs: Vec<Vec<i64>>) -> FmSystem {
        let mut s = FmSystem {
            eqs,
            ineqs: ineqs
                .into_iter()
                .map(|row| HistoryRow {
                    row,
                    history: Vec::new(),
                    pure: true,
                })
                .collect(),
            eliminated_since_reset: 0,
        };
        s.reset_histories();
        s
    }

    fn reset_histories(&mut self) {
        let words = self.ineqs.len().div_ceil(64).max(1);
        for (i, r) in self.ineqs.iter_mut().enumerate() {
            let mut h = vec![0u64; words];
            h[i / 64] |= 1 << (i % 64);
            r.history = h;
            r.pure = true;
        }
        self.eliminated_since_reset = 0;
    }

    /// Normalises rows, removes trivial and duplicate rows and rows implied
    /// by the single-variable bounds. Returns `false` when a row is false.
    fn tidy(&mut self, todo: &[usize]) -> PolyResult<bool> {
        let mut new_eqs = Vec::with_capacity(self.eqs.len());
        for row in &self.eqs {
            match normalize_eq(row)? {
                RowStatus::AlwaysTrue => {}
                RowStatus::AlwaysFalse => return Ok(false),
                RowStatus::Row(r) => new_eqs.push(r),
            }
        }
        let mut seen: crate::util::hash::FastSet<Vec<i64>> = Default::default();
        new_eqs.retain(|r| seen.insert(r.clone()));
        self.eqs = new_eqs;
        let mut index: crate::util::hash::FastMap<Vec<i64>, usize> = Default::default();
        let mut kept: Vec<HistoryRow> = Vec::with_capacity(self.ineqs.len());
        for hr in self.ineqs.drain(..) {
            let w = hr.row.len();
            let g = hr.row[..w - 1]
                .iter()
                .try_fold(0i64, |g, a| super::constraints::gcd_i64(g, *a))?;
            let tightened = g > 1 && hr.row[w - 1] % g != 0;
            match normalize_ineq(&hr.row)? {
                RowStatus::AlwaysTrue => {}
                RowStatus::AlwaysFalse => return Ok(false),
                RowStatus::Row(r) => {
                    let key = r[..w - 1].to_vec();
                    let new = HistoryRow {
                        row: r,
                        history: hr.history,
                        pure: hr.pure && !tightened,
                    };
                    match index.get(&key) {
                        Some(&i) => {
                            let old = &mut kept[i];
                            let history: Vec<u64> = old
                                .history
                                .iter()
                                .zip(&new.history)
                                .map(|(a, b)| a & b)
                                .collect();
                            let (c_old, c_new) = (old.row[w - 1], new.row[w - 1]);
                            if c_new < c_old {
                                old.row = new.row;
                                old.pure = new.pure;
                            } else if c_new == c_old {
                                old.pure |= new.pure;
                            }
                            old.history = history;
                        }
                        None => {
                            index.insert(key, kept.len());
                            kept.push(new);
                        }
                    }
                }
            }
        }
        let rows: Vec<Vec<i64>> = kept.iter().map(|h| h.row.clone()).collect();
        let implied = box_implied_mask(&rows);
        self.ineqs = kept
            .into_iter()
            .zip(implied)
            .filter(|(h, imp)| !*imp || todo.iter().any(|c| h.row[*c] != 0))
            .map(|(h, _)| h)
            .collect();
        Ok(true)
    }

    /// Eliminates column `col` (leaves it as a zero column). Returns whether
    /// the step was exact.
    fn eliminate(&mut self, col: usize) -> PolyResult<bool> {
        // An equality involving `col`: substitute (scaled when not unit).
        if let Some(pi) = self
            .eqs
            .iter()
            .enumerate()
            .filter(|(_, r)| r[col] != 0)
            .min_by_key(|(_, r)| r[col].unsigned_abs())
            .map(|(i, _)| i)
        {
            let pivot = self.eqs.swap_remove(pi);
            let a = pivot[col];
            let eliminate = |row: &Vec<i64>| -> PolyResult<Vec<i64>> {
                let r = row[col];
                if r == 0 {
                    return Ok(row.clone());
                }
                combine(
                    a.checked_abs().ok_or(PolyError::Overflow)?,
                    row,
                    neg(mul(a.signum(), r)?)?,
                    &pivot,
                )
            };
            for row in self.eqs.iter_mut() {
                *row = eliminate(row)?;
            }
            for hr in self.ineqs.iter_mut() {
                hr.row = eliminate(&hr.row)?;
            }
            self.reset_histories();
            return Ok(a.unsigned_abs() == 1);
        }
        // Fourier–Motzkin.
        let width = self.ineqs.first().map_or(0, |h| h.row.len());
        let bounds = column_bounds(self.eqs.iter(), self.ineqs.iter().map(|h| &h.row), width);
        let mut lower = Vec::new();
        let mut upper = Vec::new();
        let mut rest = Vec::new();
        for hr in self.ineqs.drain(..) {
            let a = hr.row[col];
            if a > 0 {
                lower.push(hr);
            } else if a < 0 {
                upper.push(hr);
            } else {
                rest.push(hr);
            }
        }
        if lower.len().saturating_mul(upper.len()) > 4 * MAX_FM_ROWS {
            return Err(PolyError::Budget);
        }
        let unit = lower.iter().all(|r| r.row[col] == 1)
            || upper.iter().all(|r| r.row[col] == -1)
            || lower.is_empty()
            || upper.is_empty();
        let mut exact = true;
        for l in &lower {
            for u in &upper {
                // l: a x + f >= 0 (a > 0); u: -b x + g >= 0 (b > 0).
                // b·l + a·u eliminates x.
                let row = combine(neg(u.row[col])?, &l.row, l.row[col], &u.row)?;
                exact &= unit || pair_is_exact(l.row[col], neg(u.row[col])?, &row, &bounds)?;
                rest.push(HistoryRow {
                    row,
                    history: history_union(&l.history, &u.history),
                    pure: l.pure && u.pure,
                });
            }
        }
        self.ineqs = rest;
        self.eliminated_since_reset += 1;
        Ok(exact)
    }

    /// Chernikov's rule (see the type docs).
    fn drop_by_history(&mut self) {
        let limit = self.eliminated_since_reset + 1;
        self.ineqs.retain(|h| {
            let w = h.row.len();
            let n_vars = h.row[..w - 1].iter().filter(|a| **a != 0).count();
            !(h.pure && n_vars > 1 && history_len(&h.history) > limit)
        });
    }
}

/// The bounds on each column (constant excluded) that the single-variable
/// rows of a system state: `(lower, upper)`, `None` when unbounded.
fn column_bounds<'a>(
    eqs: impl Iterator<Item = &'a Vec<i64>>,
    ineqs: impl Iterator<Item = &'a Vec<i64>>,
    width: usize,
) -> Vec<(Option<i64>, Option<i64>)> {
    let mut bounds = vec![(None, None); width.saturating_sub(1)];
    let single = |row: &[i64]| -> Option<(usize, i64, i64)> {
        let last = row.len() - 1;
        let mut vars = row[..last].iter().enumerate().filter(|(_, a)| **a != 0);
        let (v, a) = vars.next()?;
        vars.next().is_none().then_some((v, *a, row[last]))
    };
    let mut tighten = |v: usize, lo: Option<i64>, hi: Option<i64>| {
        let b: &mut (Option<i64>, Option<i64>) = &mut bounds[v];
        if let Some(lo) = lo {
            b.0 = Some(b.0.map_or(lo, |x: i64| x.max(lo)));
        }
        if let Some(hi) = hi {
            b.1 = Some(b.1.map_or(hi, |x: i64| x.min(hi)));
        }
    };
    for row in eqs {
        // a v + c = 0: v = -c / a when a divides c.
        if let Some((v, a, c)) = single(row)
            && c % a == 0
        {
            let x = -(c / a);
            tighten(v, Some(x), Some(x));
        }
    }
    for row in ineqs {
        // a v + c >= 0.
        if let Some((v, a, c)) = single(row) {
            if a > 0 {
                tighten(
                    v,
                    Some((-c).div_euclid(a) + i64::from((-c).rem_euclid(a) != 0)),
                    None,
                );
            } else {
                tighten(v, None, Some(c.div_euclid(-a)));
            }
        }
    }
    bounds
}

/// The least value of the affine `row` (constant last) over the box of
/// `bounds`, `None` when a variable it needs is unbounded that way.
fn box_minimum(row: &[i64], bounds: &[(Option<i64>, Option<i64>)]) -> Option<i128> {
    let last = row.len() - 1;
    let mut min = row[last] as i128;
    for (c, b) in row[..last].iter().zip(bounds) {
        let c = *c as i128;
        if c > 0 {
            min += c * b.0? as i128;
        } else if c < 0 {
            min += c * b.1? as i128;
        }
    }
    Some(min)
}

/// Whether the pair of bounds `a x >= -f` and `b x <= g` (`a, b > 0`)
/// loses no integer point when `x` is eliminated: their combination
/// `row = b f + a g >= 0` is the pair's real shadow, and the Omega test's
/// dark shadow `row >= (a - 1)(b - 1)` guarantees an integer `x` between
/// the bounds. The two coincide when `a` or `b` is 1, and when the other
/// rows' single-variable bounds (`bounds`, which stay in the projection)
/// imply `row >= (a - 1)(b - 1)` (bounds `x` between `L / a` and
/// `(L + w) / a` with `w >= a - 1`: some multiple of `a` is always inside,
/// as for a linearised index `a k + l` whose `l` spans `a` values).
/// When every pair of an elimination passes, its dark shadow is its real
/// shadow, so the projection is exact (the Omega test's exactness rule).
fn pair_is_exact(
    a: i64,
    b: i64,
    row: &[i64],
    bounds: &[(Option<i64>, Option<i64>)],
) -> PolyResult<bool> {
    if a == 1 || b == 1 {
        return Ok(true);
    }
    let slack = mul(a - 1, b - 1)? as i128;
    Ok(box_minimum(row, bounds).is_some_and(|min| min >= slack))
}

/// Which inequalities are implied by the single-variable bounds of the
/// system (see [`drop_box_implied_rows`]).
fn box_implied_mask(ineqs: &[Vec<i64>]) -> Vec<bool> {
    let mut rows = ineqs.to_vec();
    let before: Vec<Vec<i64>> = rows.clone();
    if drop_box_implied_rows(&mut rows).unwrap_or(0) == 0 {
        return vec![false; ineqs.len()];
    }
    // `rows` keeps the order of `before`: walk both to mark the dropped ones.
    let mut mask = Vec::with_capacity(before.len());
    let mut j = 0;
    for r in &before {
        if j < rows.len() && rows[j] == *r {
            mask.push(false);
            j += 1;
        } else {
            mask.push(true);
        }
    }
    mask
}

/// Eliminates the given columns of `b` (any mix of variable and existential
/// columns), then removes them from the rows. The caller gives the space and
/// the number of existentials of the result, which must match the remaining
/// columns.
pub(crate) fn eliminate_columns(
    b: &BasicSet,
    cols: &[usize],
    new_space: Space,
    new_n_exist: usize,
) -> PolyResult<Projection> {
    let mut sys = FmSystem::new(b.eqs.clone(), b.ineqs.clone());
    let mut exact = true;
    let mut todo: Vec<usize> = cols.to_vec();
    todo.sort_unstable();
    todo.dedup();
    let mut nonempty = sys.tidy(&todo)?;
    if nonempty {
        sys.reset_histories();
    }
    while nonempty && !todo.is_empty() {
        // Greedy choice: exact steps first, then fewest new rows.
        let (pos, _) = todo
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                (
                    i,
                    elimination_cost(&sys.eqs, sys.ineqs.iter().map(|h| &h.row), c),
                )
            })
            .min_by_key(|(_, cost)| *cost)
            .expect("todo is not empty");
        let col = todo.swap_remove(pos);
        exact &= sys.eliminate(col)?;
        nonempty = sys.tidy(&todo)?;
        sys.drop_by_history();
        if sys.ineqs.len() > MAX_FM_ROWS {
            // Runaway growth: report it instead of computing for ever.
            return Err(PolyError::Budget);
        }
    }
    if !nonempty {
        return Ok(Projection {
            set: BasicSet::empty(new_space),
            exact,
        });
    }
    let mut eqs = sys.eqs;
    let mut ineqs: Vec<Vec<i64>> = sys.ineqs.into_iter().map(|h| h.row).collect();
    let mut sorted: Vec<usize> = cols.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    for &c in sorted.iter().rev() {
        remove_column(&mut eqs, c);
        remove_column(&mut ineqs, c);
    }
    let result = BasicSet {
        space: new_space,
        n_exist: new_n_exist,
        eqs,
        ineqs,
    };
    debug_assert!(
        result
            .eqs
            .iter()
            .chain(result.ineqs.iter())
            .all(|r| r.len() == result.width())
    );
    Ok(Projection {
        set: simplify(&result)?,
        exact,
    })
}

/// Projects out dimensions `first..first + n` of kind `ty` by elimination.
pub fn project_out(b: &BasicSet, ty: DimType, first: usize, n: usize) -> PolyResult<Projection> {
    let cols: Vec<usize> = (first..first + n).map(|i| b.space.col_of(ty, i)).collect();
    let space = b.space.without_dims(ty, first, n);
    eliminate_columns(b, &cols, space, b.n_exist)
}

/// Eliminates every existential of `b` (exact flag as in the module docs).
pub(crate) fn project_out_exists(b: &BasicSet) -> PolyResult<Projection> {
    let b = simplify(b)?;
    let cols: Vec<usize> = (0..b.n_exist).map(|e| b.exist_col(e)).collect();
    eliminate_columns(&b, &cols, b.space.clone(), 0)
}

/// Turns dimensions `first..first + n` of kind `ty` into existentials (placed
/// after the existing ones). Always exact.
pub(crate) fn project_out_keep_exists(
    b: &BasicSet,
    ty: DimType,
    first: usize,
    n: usize,
) -> PolyResult<BasicSet> {
    let space = b.space.without_dims(ty, first, n);
    let moved: Vec<usize> = (first..first + n).map(|i| b.space.col_of(ty, i)).collect();
    let w = b.width();
    // New column order: kept variables, old existentials, moved dims, constant.
    let mut order: Vec<usize> = (0..b.space.n_var())
        .filter(|c| !moved.contains(c))
        .collect();
    order.extend(b.space.n_var()..w - 1);
    order.extend(moved.iter().copied());
    order.push(w - 1);
    let permute = |row: &Vec<i64>| -> Vec<i64> { order.iter().map(|&c| row[c]).collect() };
    let result = BasicSet {
        space,
        n_exist: b.n_exist + n,
        eqs: b.eqs.iter().map(permute).collect(),
        ineqs: b.ineqs.iter().map(permute).collect(),
    };
    simplify(&result)
}

/// Eliminates the existentials of `b` whose elimination is exact (unit
/// equality, or unit coefficients in all lower or all upper bounds), one at
/// a time, and keeps the others. The result has the same integer points.
pub(crate) fn eliminate_exists_where_exact(b: &BasicSet) -> PolyResult<BasicSet> {
    let mut cur = simplify(b)?;
    loop {
        if cur.n_exist == 0 || cur.is_obviously_empty() {
            return Ok(cur);
        }
        let mut candidates: Vec<(usize, (bool, i64))> = (0..cur.n_exist)
            .map(|e| {
                let col = cur.exist_col(e);
                (e, elimination_cost(&cur.eqs, cur.ineqs.iter(), col))
            })
            .filter(|(_, (inexact, _))| !inexact)
            .collect();
        candidates.sort_by_key(|(e, cost)| (*cost, *e));
        // The estimate looks at the rows before normalisation; the step
        // itself decides (a tightened row can make a pair inexact).
        let mut next = None;
        for (e, _) in candidates {
            let col = cur.exist_col(e);
            let p = eliminate_columns(&cur, &[col], cur.space.clone(), cur.n_exist - 1)?;
            if p.exact {
                next = Some(p.set);
                break;
            }
        }
        match next {
            Some(set) => cur = set,
            None => return Ok(cur),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::poly::brute::{
        BruteBox, RandomShape, basic_contains, for_each_point, proptest_cases, random_basic,
    };
    use crate::poly::space::Tuple;
    use crate::util::rng::Rng;

    #[test]
    fn unit_lower_bounds_are_exact_and_even_numbers_are_not() {
        // { [x, y] : 0 <= x and 2x <= y <= 5 } projected on y is 0 <= y <= 5
        // (x = 0 is a witness) and is exact: x has a unit lower bound only.
        let space = Space::set(vec![], Tuple::new(None, &["x", "y"]));
        let mut b = BasicSet::universe(space.clone());
        b.add_ineq(vec![1, 0, 0]);
        b.add_ineq(vec![-2, 1, 0]);
        b.add_ineq(vec![0, -1, 5]);
        let p = project_out(&b, DimType::In, 0, 1).unwrap();
        assert!(p.exact);
        let bx = BruteBox::new(-8, 8, 0, 0);
        for y in -8..=8 {
            assert_eq!(
                basic_contains(&p.set, &[y], &bx),
                (0..=5).contains(&y),
                "y = {y}"
            );
        }
        // { [x, y] : y = 2x and 0 <= y <= 4 } on y: the rational shadow is
        // 0 <= y <= 4, the true projection {0, 2, 4}: not exact, superset.
        let mut b = BasicSet::universe(space);
        b.add_eq(vec![2, -1, 0]);
        b.add_ineq(vec![0, 1, 0]);
        b.add_ineq(vec![0, -1, 4]);
        let p = project_out(&b, DimType::In, 0, 1).unwrap();
        assert!(!p.exact);
        for y in 0..=4 {
            assert!(basic_contains(&p.set, &[y], &bx));
        }
        // Keeping x as an existential is exact.
        let k = project_out_keep_exists(&b, DimType::In, 0, 1).unwrap();
        for y in -8..=8 {
            assert_eq!(
                basic_contains(&k, &[y], &BruteBox::new(-8, 8, -8, 8)),
                [0, 2, 4].contains(&y)
            );
        }
    }

    /// A linearised index `w = a k + l` whose `l` spans `a` values: the
    /// pair of bounds `a k` between `w - (a - 1)` and `w` always holds a
    /// multiple of `a`, so eliminating `k` is exact (Omega's dark shadow is
    /// the real shadow); with `l` one value short it is not, and `w = 6` is
    /// a hole. The width may come from a parameter bounded elsewhere
    /// (`l <= 2n` with `n = 3`, the `(2n + 1) k + l` of mot_detect).
    #[test]
    fn a_linearised_index_whose_row_spans_its_stride_projects_exactly() {
        // Columns: [n, k, l, w, const]; eliminate l (unit, by the equality)
        // then k (coefficient 7).
        let space = Space::set(vec!["n".into()], Tuple::new(None, &["k", "l", "w"]));
        let build = |short: i64| {
            let mut b = BasicSet::universe(space.clone());
            b.add_eq(vec![1, 0, 0, 0, -3]); // n = 3
            b.add_eq(vec![0, 7, 1, -1, 0]); // w = 7k + l
            b.add_ineq(vec![0, 0, 1, 0, 0]); // l >= 0
            b.add_ineq(vec![2, 0, -1, 0, -short]); // l <= 2n - short
            b.add_ineq(vec![0, 1, 0, 0, 0]); // k >= 0
            b.add_ineq(vec![0, -1, 0, 0, 3]); // k <= 3
            b
        };
        let bx = BruteBox::new(-2, 40, 0, 0);
        for short in [0, 1] {
            let p = project_out(&build(short), DimType::In, 0, 2).unwrap();
            assert_eq!(p.exact, short == 0, "l <= 2n - {short}: {}", p.set);
            for w in -2..=40 {
                let truth = (0..=3).any(|k| (0..=6 - short).contains(&(w - 7 * k)));
                let got = basic_contains(&p.set, &[3, w], &bx);
                assert!(got || !truth, "lost w = {w}");
                if p.exact {
                    assert_eq!(got, truth, "w = {w}");
                }
            }
            if short == 1 {
                assert!(
                    basic_contains(&p.set, &[3, 6], &bx),
                    "the shadow keeps the hole"
                );
            }
        }
        // With `n` unbounded the width `2n` proves nothing: not exact.
        let mut b = build(0);
        b.eqs.remove(0);
        b.add_ineq(vec![1, 0, 0, 0, 0]);
        assert!(!project_out(&b, DimType::In, 0, 2).unwrap().exact);
    }

    /// Property: projection of random boxed systems (up to 4 dimensions plus
    /// one parameter) is a superset of the brute-force projection, equal to
    /// it when flagged exact; `project_out_keep_exists` and
    /// `eliminate_exists_where_exact` are always equal to it. Cases scale
    /// with `POLYFOLD_PROPTEST_CASES`.
    #[test]
    fn projection_matches_brute_force() {
        let mut rng = Rng::new(0x5EED_0001);
        let mut n_exact = 0;
        let cases = proptest_cases(1500);
        for _ in 0..cases {
            let n_param = rng.below(2);
            let n_dim = 2 + rng.below(3);
            let half = match n_param + n_dim {
                0..=3 => 6,
                4 => 3,
                _ => 2,
            };
            let shape = RandomShape {
                n_rows: 2 + rng.below(3),
                max_coeff: 4,
                max_const: 8,
                half_box: half,
                exist_half_box: half,
                eq_one_in: 5,
                anchored: rng.chance(1, 2),
            };
            let params: Vec<String> = (0..n_param).map(|i| format!("p{i}")).collect();
            let dims: Vec<String> = (0..n_dim).map(|i| format!("x{i}")).collect();
            let space = Space::set(params, Tuple::anonymous(dims));
            let b = random_basic(&mut rng, &space, 0, &shape);
            let first = rng.below(n_dim);
            let n = 1 + rng.below(n_dim - first);
            let p = project_out(&b, DimType::In, first, n).unwrap();
            let k = project_out_keep_exists(&b, DimType::In, first, n).unwrap();
            let e = eliminate_exists_where_exact(&k).unwrap();
            // Brute-force projection.
            let bx = BruteBox::new(-half, half, -half, half);
            let mut truth: HashSet<Vec<i64>> = HashSet::new();
            let col0 = space.in_col(first);
            for_each_point(space.n_var(), -half, half, |pt| {
                if basic_contains(&b, pt, &bx) {
                    let mut q = pt[..col0].to_vec();
                    q.extend_from_slice(&pt[col0 + n..]);
                    truth.insert(q);
                }
                true
            });
            if p.exact {
                n_exact += 1;
            }
            for_each_point(space.n_var() - n, -half, half, |q| {
                let want = truth.contains(q);
                let got = basic_contains(&p.set, q, &bx);
                assert!(!want || got, "projection lost {q:?}: {b} -> {}", p.set);
                if p.exact {
                    assert_eq!(
                        got, want,
                        "exact projection wrong at {q:?}: {b} -> {}",
                        p.set
                    );
                }
                assert_eq!(basic_contains(&k, q, &bx), want, "keep_exists {b} -> {k}");
                assert_eq!(
                    basic_contains(&e, q, &bx),
                    want,
                    "exists elimination {b} -> {e}"
                );
                true
            });
        }
        // The test must exercise both kinds of projections.
        assert!(n_exact > cases / 10 && n_exact < cases, "{n_exact} exact");
    }

    /// Property: eliminating three or four of six variables (several
    /// Fourier–Motzkin rounds, where Chernikov's rule applies) gives a
    /// superset of the brute-force projection, equal when flagged exact.
    /// Cases scale with `POLYFOLD_PROPTEST_CASES`.
    #[test]
    fn multi_step_projection_matches_brute_force() {
        let mut rng = Rng::new(0x5EED_0002);
        let cases = proptest_cases(500);
        let mut n_exact = 0;
        for _ in 0..cases {
            let n_dim = 6;
            let half = 2;
            let shape = RandomShape {
                n_rows: 4 + rng.below(5),
                max_coeff: 2,
                max_const: 4,
                half_box: half,
                exist_half_box: half,
                eq_one_in: 12,
                anchored: true,
            };
            let dims: Vec<String> = (0..n_dim).map(|i| format!("x{i}")).collect();
            let space = Space::set(vec![], Tuple::anonymous(dims));
            let b = random_basic(&mut rng, &space, 0, &shape);
            let n = 3 + rng.below(2);
            let first = rng.below(n_dim - n + 1);
            let p = project_out(&b, DimType::In, first, n).unwrap();
            let bx = BruteBox::new(-half, half, 0, 0);
            let mut truth: HashSet<Vec<i64>> = HashSet::new();
            for_each_point(n_dim, -half, half, |pt| {
                if basic_contains(&b, pt, &bx) {
                    let mut q = pt[..first].to_vec();
                    q.extend_from_slice(&pt[first + n..]);
                    truth.insert(q);
                }
                true
            });
            n_exact += p.exact as usize;
            for_each_point(n_dim - n, -half, half, |q| {
                let want = truth.contains(q);
                let got = basic_contains(&p.set, q, &bx);
                assert!(!want || got, "projection lost {q:?}: {b} -> {}", p.set);
                if p.exact {
                    assert_eq!(
                        got, want,
                        "exact projection wrong at {q:?}: {b} -> {}",
                        p.set
                    );
                }
                true
            });
        }
        assert!(n_exact > cases / 10, "{n_exact} exact");
    }

    #[test]
    fn runaway_elimination_stops_with_a_budget_error() {
        // Dense random rows over 12 variables: eliminating 8 of them makes
        // Fourier–Motzkin explode; the result is either a valid system
        // within the row cap or a budget error, and it comes back quickly.
        let n = 12;
        let names: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
        let space = Space::set(vec![], Tuple::anonymous(names));
        let mut b = BasicSet::universe(space);
        let mut rng = Rng::new(99);
        for _ in 0..40 {
            let mut r: Vec<i64> = (0..n).map(|_| rng.range(-3, 3)).collect();
            r.push(rng.range(0, 30));
            b.add_ineq(r);
        }
        let start = std::time::Instant::now();
        match project_out(&b, DimType::In, 0, 8) {
            Ok(p) => assert!(p.set.ineqs.len() <= MAX_FM_ROWS),
            Err(e) => assert_eq!(e, PolyError::Budget),
        }
        assert!(start.elapsed() < std::time::Duration::from_secs(20));
    }
}
