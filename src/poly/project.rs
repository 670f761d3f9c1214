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
//! largest lower bound, or the smallest upper bound, is an integer witness);
//! an equality step is exact when the coefficient of `x` is `±1`.
//!
//! [`project_out_keep_exists`] turns dimensions into existentials instead;
//! that is always exact. [`eliminate_exists_where_exact`] removes only the
//! existentials whose elimination is exact.
//!
//! What this module does NOT do: it does not compute exact integer
//! projections in the non-unit case (no Omega "dark shadow" or splintering);
//! callers keep an existential instead when they need exactness.

use super::basic::BasicSet;
use super::constraints::{
    RowStatus, combine, normalize_eq, normalize_ineq, remove_column, simplify,
};
use super::error::{PolyResult, neg};
use super::set::Set;
use super::space::{Space, Tuple};

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
    pub fn col_of(&self, ty: DimType, index: usize) -> usize {
        match ty {
            DimType::Param => self.param_col(index),
            DimType::In => self.in_col(index),
            DimType::Out => self.out_col(index),
        }
    }

    /// Number of dimensions of kind `ty`.
    pub fn count_of(&self, ty: DimType) -> usize {
        match ty {
            DimType::Param => self.n_param(),
            DimType::In => self.n_in(),
            DimType::Out => self.n_out(),
        }
    }

    /// This space without dimensions `first..first + n` of kind `ty`.
    pub fn without_dims(&self, ty: DimType, first: usize, n: usize) -> Space {
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

/// Removes rows that are trivially true, detects trivially false rows
/// (returns `false`), normalises rows and removes exact duplicates. Columns
/// are left in place.
fn tidy_rows(eqs: &mut Vec<Vec<i64>>, ineqs: &mut Vec<Vec<i64>>) -> PolyResult<bool> {
    let mut new_eqs = Vec::with_capacity(eqs.len());
    for row in eqs.iter() {
        match normalize_eq(row)? {
            RowStatus::AlwaysTrue => {}
            RowStatus::AlwaysFalse => return Ok(false),
            RowStatus::Row(r) => new_eqs.push(r),
        }
    }
    let mut seen = std::collections::HashSet::new();
    new_eqs.retain(|r| seen.insert(r.clone()));
    *eqs = new_eqs;
    // Inequalities: keep the tightest constant per coefficient vector.
    let mut best: std::collections::HashMap<Vec<i64>, usize> = std::collections::HashMap::new();
    let mut new_ineqs: Vec<Vec<i64>> = Vec::with_capacity(ineqs.len());
    for row in ineqs.iter() {
        match normalize_ineq(row)? {
            RowStatus::AlwaysTrue => {}
            RowStatus::AlwaysFalse => return Ok(false),
            RowStatus::Row(r) => {
                let w = r.len();
                let key = r[..w - 1].to_vec();
                match best.get(&key) {
                    Some(&i) => {
                        if r[w - 1] < new_ineqs[i][w - 1] {
                            new_ineqs[i][w - 1] = r[w - 1];
                        }
                    }
                    None => {
                        best.insert(key, new_ineqs.len());
                        new_ineqs.push(r);
                    }
                }
            }
        }
    }
    *ineqs = new_ineqs;
    Ok(true)
}

/// Cost estimate of eliminating `col`: (not exact, number of new rows minus
/// removed rows). Smaller is better.
fn elimination_cost(eqs: &[Vec<i64>], ineqs: &[Vec<i64>], col: usize) -> (bool, i64) {
    if let Some(a) = eqs
        .iter()
        .map(|r| r[col])
        .filter(|a| *a != 0)
        .min_by_key(|a| a.unsigned_abs())
    {
        return (a.abs() != 1, -1);
    }
    let mut n_lower = 0i64;
    let mut n_upper = 0i64;
    let mut lower_unit = true;
    let mut upper_unit = true;
    for r in ineqs {
        let a = r[col];
        if a > 0 {
            n_lower += 1;
            lower_unit &= a == 1;
        } else if a < 0 {
            n_upper += 1;
            upper_unit &= a == -1;
        }
    }
    let exact = lower_unit || upper_unit || n_lower == 0 || n_upper == 0;
    (!exact, n_lower * n_upper - n_lower - n_upper)
}

/// Eliminates column `col` (leaves it as a zero column). Returns whether the
/// step was exact.
fn eliminate_column(
    eqs: &mut Vec<Vec<i64>>,
    ineqs: &mut Vec<Vec<i64>>,
    col: usize,
) -> PolyResult<bool> {
    // An equality involving `col`: substitute (scaled when not unit).
    if let Some(pi) = eqs
        .iter()
        .enumerate()
        .filter(|(_, r)| r[col] != 0)
        .min_by_key(|(_, r)| r[col].unsigned_abs())
        .map(|(i, _)| i)
    {
        let pivot = eqs.swap_remove(pi);
        let a = pivot[col];
        let eliminate = |row: &Vec<i64>| -> PolyResult<Vec<i64>> {
            let r = row[col];
            if r == 0 {
                return Ok(row.clone());
            }
            combine(a.abs(), row, neg(a.signum() * r)?, &pivot)
        };
        for row in eqs.iter_mut() {
            *row = eliminate(row)?;
        }
        for row in ineqs.iter_mut() {
            *row = eliminate(row)?;
        }
        return Ok(a.abs() == 1);
    }
    // Fourier–Motzkin.
    let mut lower = Vec::new();
    let mut upper = Vec::new();
    let mut rest = Vec::new();
    for row in ineqs.drain(..) {
        let a = row[col];
        if a > 0 {
            lower.push(row);
        } else if a < 0 {
            upper.push(row);
        } else {
            rest.push(row);
        }
    }
    let exact = lower.iter().all(|r| r[col] == 1)
        || upper.iter().all(|r| r[col] == -1)
        || lower.is_empty()
        || upper.is_empty();
    for l in &lower {
        for u in &upper {
            // l: a x + f >= 0 (a > 0); u: -b x + g >= 0 (b > 0).
            // b·l + a·u eliminates x.
            let row = combine(-u[col], l, l[col], u)?;
            rest.push(row);
        }
    }
    *ineqs = rest;
    Ok(exact)
}

/// Eliminates the given columns of `b` (any mix of variable and existential
/// columns), then removes them from the rows. The caller gives the space and
/// the number of existentials of the result, which must match the remaining
/// columns.
pub fn eliminate_columns(
    b: &BasicSet,
    cols: &[usize],
    new_space: Space,
    new_n_exist: usize,
) -> PolyResult<Projection> {
    let mut eqs = b.eqs.clone();
    let mut ineqs = b.ineqs.clone();
    let mut exact = true;
    let mut todo: Vec<usize> = cols.to_vec();
    todo.sort_unstable();
    todo.dedup();
    let mut nonempty = tidy_rows(&mut eqs, &mut ineqs)?;
    let initial_rows = ineqs.len().max(8);
    while nonempty && !todo.is_empty() {
        // Greedy choice: exact steps first, then fewest new rows.
        let (pos, _) = todo
            .iter()
            .enumerate()
            .map(|(i, &c)| (i, elimination_cost(&eqs, &ineqs, c)))
            .min_by_key(|(_, cost)| *cost)
            .expect("todo is not empty");
        let col = todo.swap_remove(pos);
        exact &= eliminate_column(&mut eqs, &mut ineqs, col)?;
        nonempty = tidy_rows(&mut eqs, &mut ineqs)?;
        if nonempty && ineqs.len() > 2 * initial_rows {
            nonempty = drop_redundant_rows(&b.space, b.n_exist, &mut eqs, &mut ineqs)?;
        }
    }
    if !nonempty {
        return Ok(Projection {
            set: BasicSet::empty(new_space),
            exact,
        });
    }
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

/// Removes rationally redundant inequalities from raw rows (columns kept).
/// Returns `false` when the system is found empty.
fn drop_redundant_rows(
    space: &Space,
    n_exist: usize,
    eqs: &mut Vec<Vec<i64>>,
    ineqs: &mut Vec<Vec<i64>>,
) -> PolyResult<bool> {
    let tmp = BasicSet {
        space: space.clone(),
        n_exist,
        eqs: eqs.clone(),
        ineqs: ineqs.clone(),
    };
    let reduced = super::constraints::remove_redundant(&tmp)?;
    if reduced.is_obviously_empty() {
        return Ok(false);
    }
    *eqs = reduced.eqs;
    *ineqs = reduced.ineqs;
    Ok(true)
}

/// Projects out dimensions `first..first + n` of kind `ty` by elimination.
pub fn project_out(b: &BasicSet, ty: DimType, first: usize, n: usize) -> PolyResult<Projection> {
    let cols: Vec<usize> = (first..first + n).map(|i| b.space.col_of(ty, i)).collect();
    let space = b.space.without_dims(ty, first, n);
    eliminate_columns(b, &cols, space, b.n_exist)
}

/// Eliminates every existential of `b` (exact flag as in the module docs).
pub fn project_out_exists(b: &BasicSet) -> PolyResult<Projection> {
    let b = simplify(b)?;
    let cols: Vec<usize> = (0..b.n_exist).map(|e| b.exist_col(e)).collect();
    eliminate_columns(&b, &cols, b.space.clone(), 0)
}

/// Turns dimensions `first..first + n` of kind `ty` into existentials (placed
/// after the existing ones). Always exact.
pub fn project_out_keep_exists(
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
pub fn eliminate_exists_where_exact(b: &BasicSet) -> PolyResult<BasicSet> {
    let mut cur = simplify(b)?;
    loop {
        if cur.n_exist == 0 || cur.is_obviously_empty() {
            return Ok(cur);
        }
        let candidate = (0..cur.n_exist)
            .map(|e| {
                let col = cur.exist_col(e);
                (e, elimination_cost(&cur.eqs, &cur.ineqs, col))
            })
            .filter(|(_, (inexact, _))| !inexact)
            .min_by_key(|(_, cost)| *cost);
        let Some((e, _)) = candidate else {
            return Ok(cur);
        };
        let col = cur.exist_col(e);
        let p = eliminate_columns(&cur, &[col], cur.space.clone(), cur.n_exist - 1)?;
        debug_assert!(p.exact);
        cur = p.set;
    }
}

/// Projects out dimensions of every piece of a union.
pub fn project_set_out(s: &Set, ty: DimType, first: usize, n: usize) -> PolyResult<SetProjection> {
    let space = s.space.without_dims(ty, first, n);
    let mut out = Set::empty(space);
    let mut exact = true;
    for piece in &s.pieces {
        let p = project_out(piece, ty, first, n)?;
        exact &= p.exact;
        let q = project_out_exists(&p.set)?;
        exact &= q.exact;
        if !q.set.is_obviously_empty() {
            out.pieces.push(q.set);
        }
    }
    Ok(SetProjection { set: out, exact })
}

/// Projects out dimensions of every piece, keeping them as existentials
/// where their elimination would not be exact. Always exact.
pub fn project_set_out_exact(s: &Set, ty: DimType, first: usize, n: usize) -> PolyResult<Set> {
    let space = s.space.without_dims(ty, first, n);
    let mut out = Set::empty(space);
    for piece in &s.pieces {
        let kept = project_out_keep_exists(piece, ty, first, n)?;
        let reduced = eliminate_exists_where_exact(&kept)?;
        if !reduced.is_obviously_empty() {
            out.pieces.push(reduced);
        }
    }
    Ok(out)
}

/// A set space over the given tuple (helper for callers that turn the
/// domain or range of a relation into a set).
pub fn set_space(params: Vec<String>, tuple: Tuple) -> Space {
    Space::set(params, tuple)
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::poly::brute::{
        BruteBox, RandomShape, basic_contains, for_each_point, proptest_cases, random_basic,
    };
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
}
