//! Normalisation and simplification of constraint systems.
//!
//! What this module does:
//! - gcd normalisation of single rows, with integer tightening of
//!   inequalities (`2x + 3 >= 0` becomes `x + 1 >= 0`), detection of rows that
//!   are trivially false (the polyhedron is empty) or trivially true (dropped);
//! - elimination of equalities by exact substitution: an equality with a ±1
//!   coefficient on an existential removes that existential; every equality is
//!   used as a pivot to clear its column from all other rows (rows are scaled
//!   by a positive factor when the pivot coefficient is not ±1, which keeps the
//!   set of integer points unchanged);
//! - removal of duplicate rows, merging of opposite inequalities into
//!   equalities, and (with [`remove_redundant`]) removal of inequalities that
//!   the other constraints imply, decided by an exact rational LP.
//!
//! What it does NOT do: it never changes the set of integer points of the
//! polyhedron (projected on the non-existential columns), so it never
//! over- or under-approximates. It does not eliminate existentials that have
//! no unit-coefficient equality (see `project.rs` for that), and it does not
//! compute a canonical form: two equal sets may simplify to different systems.

use super::basic::BasicSet;
use super::error::{PolyError, PolyResult, add, mul, neg, sub};

/// What normalising one row found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum RowStatus {
    /// The row holds for every point (for example `0 >= 0` or `3 >= 0`).
    AlwaysTrue,
    /// The row holds for no integer point (`-1 >= 0`, or `2x = 1`).
    AlwaysFalse,
    /// The normalised row, equivalent to the original over the integers.
    Row(Vec<i64>),
}

/// Greatest common divisor of the absolute values, as a non-negative `i64`.
///
/// Returns an overflow error only for `gcd(i64::MIN, 0)` and similar, whose
/// value `2^63` does not fit.
pub(crate) fn gcd_i64(a: i64, b: i64) -> PolyResult<i64> {
    let mut x = a.unsigned_abs();
    let mut y = b.unsigned_abs();
    while y != 0 {
        let r = x % y;
        x = y;
        y = r;
    }
    i64::try_from(x).map_err(|_| PolyError::Overflow)
}

/// Floor of `a / b` for `b > 0`.
pub(crate) fn floor_div(a: i64, b: i64) -> i64 {
    debug_assert!(b > 0);
    a.div_euclid(b)
}

/// Ceiling of `a / b` for `b > 0`.
pub(crate) fn ceil_div(a: i64, b: i64) -> PolyResult<i64> {
    debug_assert!(b > 0);
    neg(floor_div(neg(a)?, b))
}

/// The gcd of all entries of `row` except the last (the constant).
fn coefficient_gcd(row: &[i64]) -> PolyResult<i64> {
    let mut g = 0i64;
    for &a in &row[..row.len() - 1] {
        if a != 0 {
            g = gcd_i64(g, a)?;
            if g == 1 {
                break;
            }
        }
    }
    Ok(g)
}

/// Normalises the inequality `row >= 0`: divides the coefficients by their
/// gcd and rounds the constant down (integer tightening).
pub(crate) fn normalize_ineq(row: &[i64]) -> PolyResult<RowStatus> {
    let c = *row.last().expect("a row has a constant column");
    let g = coefficient_gcd(row)?;
    if g == 0 {
        return Ok(if c >= 0 {
            RowStatus::AlwaysTrue
        } else {
            RowStatus::AlwaysFalse
        });
    }
    if g == 1 {
        return Ok(RowStatus::Row(row.to_vec()));
    }
    let n = row.len();
    let mut out = Vec::with_capacity(n);
    for &a in &row[..n - 1] {
        out.push(a / g);
    }
    out.push(floor_div(c, g));
    Ok(RowStatus::Row(out))
}

/// Normalises the equality `row = 0`: divides by the gcd of the coefficients
/// (false when it does not divide the constant) and makes the first non-zero
/// coefficient positive.
pub(crate) fn normalize_eq(row: &[i64]) -> PolyResult<RowStatus> {
    let c = *row.last().expect("a row has a constant column");
    let g = coefficient_gcd(row)?;
    if g == 0 {
        return Ok(if c == 0 {
            RowStatus::AlwaysTrue
        } else {
            RowStatus::AlwaysFalse
        });
    }
    if c % g != 0 {
        return Ok(RowStatus::AlwaysFalse);
    }
    let first = row.iter().find(|a| **a != 0).copied().unwrap_or(1);
    let mut out = Vec::with_capacity(row.len());
    for &a in row {
        let v = a / g;
        out.push(if first < 0 { neg(v)? } else { v });
    }
    Ok(RowStatus::Row(out))
}

/// `dst + factor * src`, entry by entry, with overflow checks.
pub fn add_scaled(dst: &[i64], factor: i64, src: &[i64]) -> PolyResult<Vec<i64>> {
    debug_assert_eq!(dst.len(), src.len());
    let mut out = Vec::with_capacity(dst.len());
    for (d, s) in dst.iter().zip(src) {
        out.push(add(*d, mul(factor, *s)?)?);
    }
    Ok(out)
}

/// `alpha * a + beta * b`, entry by entry, with overflow checks.
pub(crate) fn combine(alpha: i64, a: &[i64], beta: i64, b: &[i64]) -> PolyResult<Vec<i64>> {
    debug_assert_eq!(a.len(), b.len());
    let mut out = Vec::with_capacity(a.len());
    for (x, y) in a.iter().zip(b) {
        out.push(add(mul(alpha, *x)?, mul(beta, *y)?)?);
    }
    Ok(out)
}

/// The negation of an inequality over the integers: `not (row >= 0)` is
/// `-row - 1 >= 0`.
pub(crate) fn complement_ineq(row: &[i64]) -> PolyResult<Vec<i64>> {
    let mut out = Vec::with_capacity(row.len());
    for a in row {
        out.push(neg(*a)?);
    }
    let last = out.len() - 1;
    out[last] = sub(out[last], 1)?;
    Ok(out)
}

/// Removes column `col` from every row.
pub(crate) fn remove_column(rows: &mut [Vec<i64>], col: usize) {
    for row in rows.iter_mut() {
        row.remove(col);
    }
}

impl BasicSet {
    /// Whether the system contains a row with no variable that is false
    /// (such as the `-1 >= 0` of [`BasicSet::empty`]). A `true` answer means
    /// the polyhedron is empty; `false` means nothing.
    pub(crate) fn is_obviously_empty(&self) -> bool {
        let w = self.width();
        let constant_only = |row: &Vec<i64>| row[..w - 1].iter().all(|a| *a == 0);
        self.ineqs.iter().any(|r| constant_only(r) && r[w - 1] < 0)
            || self.eqs.iter().any(|r| constant_only(r) && r[w - 1] != 0)
    }

    /// Every constraint as an inequality row `r >= 0` (an equality gives
    /// `r` and `-r`).
    pub(crate) fn inequality_rows(&self) -> PolyResult<Vec<Vec<i64>>> {
        let mut rows = self.ineqs.clone();
        for e in &self.eqs {
            rows.push(e.clone());
            rows.push(
                e.iter()
                    .map(|x| crate::poly::error::neg(*x))
                    .collect::<PolyResult<_>>()?,
            );
        }
        Ok(rows)
    }

    /// An empty polyhedron over the same space (no existentials).
    pub(crate) fn empty_like(&self) -> BasicSet {
        BasicSet::empty(self.space.clone())
    }
}

/// Simplifies a polyhedron without changing its integer points: row
/// normalisation, equality elimination, duplicate removal, merging of
/// opposite inequalities into equalities and dropping of unused
/// existentials. Returns [`BasicSet::empty`] when a contradiction is found.
///
/// Does not call a solver (see [`remove_redundant`] for that).
pub fn simplify(b: &BasicSet) -> PolyResult<BasicSet> {
    let mut cur = b.clone();
    // A few rounds: merging opposite inequalities can create new equalities.
    for _round in 0..8 {
        match simplify_round(&cur)? {
            None => return Ok(b.empty_like()),
            Some((next, changed)) => {
                cur = next;
                if !changed {
                    break;
                }
            }
        }
    }
    Ok(cur)
}

/// One round of [`simplify`]; `None` means empty, the flag says whether new
/// equalities appeared (so that another round may help).
fn simplify_round(b: &BasicSet) -> PolyResult<Option<(BasicSet, bool)>> {
    let width = b.width();
    let n_var = b.space.n_var();
    let mut n_exist = b.n_exist;

    // 1. Normalise rows.
    let mut eqs: Vec<Vec<i64>> = Vec::new();
    for row in &b.eqs {
        match normalize_eq(row)? {
            RowStatus::AlwaysTrue => {}
            RowStatus::AlwaysFalse => return Ok(None),
            RowStatus::Row(r) => eqs.push(r),
        }
    }
    let mut ineqs: Vec<Vec<i64>> = Vec::new();
    for row in &b.ineqs {
        match normalize_ineq(row)? {
            RowStatus::AlwaysTrue => {}
            RowStatus::AlwaysFalse => return Ok(None),
            RowStatus::Row(r) => ineqs.push(r),
        }
    }
    debug_assert!(eqs.iter().chain(ineqs.iter()).all(|r| r.len() == width));

    // 2. Gaussian elimination over the equalities. Each equality becomes a
    // pivot on one column and that column is cleared from every other row.
    let mut pivots: Vec<Vec<i64>> = Vec::new();
    let mut pending = eqs;
    while !pending.is_empty() {
        // Choose the pending equality and column: prefer a unit coefficient
        // on an existential, then a unit coefficient anywhere (last column
        // first), then any coefficient.
        let mut best: Option<(usize, usize, u8)> = None;
        for (ri, row) in pending.iter().enumerate() {
            for col in (0..row.len() - 1).rev() {
                let a = row[col];
                if a == 0 {
                    continue;
                }
                let is_exist = col >= n_var;
                let score = match (a.unsigned_abs() == 1, is_exist) {
                    (true, true) => 3,
                    (true, false) => 2,
                    (false, true) => 1,
                    (false, false) => 0,
                };
                if best.is_none_or(|(_, _, s)| score > s) {
                    best = Some((ri, col, score));
                }
            }
        }
        let Some((ri, col, _)) = best else {
            // Only constant rows remain; they were normalised away already.
            break;
        };
        let pivot = pending.swap_remove(ri);
        let a = pivot[col];
        let eliminate = |row: &Vec<i64>| -> PolyResult<Vec<i64>> {
            let r = row[col];
            if r == 0 {
                return Ok(row.clone());
            }
            // |a|·row - sign(a)·r·pivot has a zero in `col`.
            combine(
                a.checked_abs().ok_or(PolyError::Overflow)?,
                row,
                neg(mul(a.signum(), r)?)?,
                &pivot,
            )
        };
        let mut next_pending = Vec::with_capacity(pending.len());
        for row in &pending {
            match normalize_eq(&eliminate(row)?)? {
                RowStatus::AlwaysTrue => {}
                RowStatus::AlwaysFalse => return Ok(None),
                RowStatus::Row(r) => next_pending.push(r),
            }
        }
        pending = next_pending;
        let mut next_ineqs = Vec::with_capacity(ineqs.len());
        for row in &ineqs {
            match normalize_ineq(&eliminate(row)?)? {
                RowStatus::AlwaysTrue => {}
                RowStatus::AlwaysFalse => return Ok(None),
                RowStatus::Row(r) => next_ineqs.push(r),
            }
        }
        ineqs = next_ineqs;
        let mut next_pivots = Vec::with_capacity(pivots.len() + 1);
        for row in &pivots {
            match normalize_eq(&eliminate(row)?)? {
                RowStatus::AlwaysTrue => {}
                RowStatus::AlwaysFalse => return Ok(None),
                RowStatus::Row(r) => next_pivots.push(r),
            }
        }
        pivots = next_pivots;
        if col >= n_var && a.unsigned_abs() == 1 {
            // The existential is determined by the others: substitute it out
            // and drop the equality and the column.
            remove_column(&mut pending, col);
            remove_column(&mut ineqs, col);
            remove_column(&mut pivots, col);
            n_exist -= 1;
        } else {
            pivots.push(pivot);
        }
    }
    let mut eqs = pivots;

    // 3. Duplicates and opposite pairs among inequalities.
    let w = n_var + n_exist + 1;
    let mut tightest: crate::util::hash::FastMap<Vec<i64>, i64> = Default::default();
    let mut order: Vec<Vec<i64>> = Vec::new();
    for row in &ineqs {
        let key = row[..w - 1].to_vec();
        let c = row[w - 1];
        match tightest.get_mut(&key) {
            Some(old) => {
                if c < *old {
                    *old = c;
                }
            }
            None => {
                tightest.insert(key.clone(), c);
                order.push(key);
            }
        }
    }
    let mut new_eq = false;
    let mut kept: Vec<Vec<i64>> = Vec::new();
    let mut absorbed: crate::util::hash::FastSet<Vec<i64>> = Default::default();
    for key in &order {
        if absorbed.contains(key) {
            continue;
        }
        let c = tightest[key];
        let mut negkey = Vec::with_capacity(key.len());
        for a in key {
            negkey.push(neg(*a)?);
        }
        if let Some(&c2) = tightest.get(&negkey) {
            // key·x + c >= 0 and -key·x + c2 >= 0: -c <= key·x <= c2.
            let s = add(c, c2)?;
            if s < 0 {
                return Ok(None);
            }
            if s == 0 {
                let mut row = key.clone();
                row.push(c);
                eqs.push(row);
                absorbed.insert(negkey);
                new_eq = true;
                continue;
            }
        }
        let mut row = key.clone();
        row.push(c);
        kept.push(row);
    }
    let mut ineqs = kept;

    // Duplicate equalities (normalised up to sign already).
    let mut seen: crate::util::hash::FastSet<Vec<i64>> = Default::default();
    eqs.retain(|r| seen.insert(r.clone()));

    // 4. Drop existentials that appear nowhere.
    let mut e = n_exist;
    while e > 0 {
        e -= 1;
        let col = n_var + e;
        if eqs.iter().chain(ineqs.iter()).all(|r| r[col] == 0) {
            remove_column(&mut eqs, col);
            remove_column(&mut ineqs, col);
            n_exist -= 1;
        }
    }

    Ok(Some((
        BasicSet {
            space: b.space.clone(),
            n_exist,
            eqs,
            ineqs,
        },
        new_eq,
    )))
}

/// Removes inequalities implied by the single-variable bounds of the system
/// (interval arithmetic): with `lo_j <= x_j <= hi_j` read off the rows that
/// involve one variable only, a row whose minimum over that box is `>= 0`
/// is implied. Rows with one variable are kept (they define the box).
/// Cheap and exact (it only drops implied rows); returns how many it dropped.
pub(crate) fn drop_box_implied_rows(ineqs: &mut Vec<Vec<i64>>) -> PolyResult<usize> {
    let Some(first) = ineqs.first() else {
        return Ok(0);
    };
    let n = first.len() - 1;
    let mut lo: Vec<Option<i128>> = vec![None; n];
    let mut hi: Vec<Option<i128>> = vec![None; n];
    let single = |row: &Vec<i64>| -> Option<usize> {
        let mut col = None;
        for (j, a) in row[..n].iter().enumerate() {
            if *a != 0 {
                if col.is_some() {
                    return None;
                }
                col = Some(j);
            }
        }
        col
    };
    for row in ineqs.iter() {
        if let Some(j) = single(row) {
            let a = row[j] as i128;
            let c = row[n] as i128;
            if a > 0 {
                // x >= ceil(-c / a)
                let b = (-c).div_euclid(a) + i128::from((-c).rem_euclid(a) != 0);
                lo[j] = Some(lo[j].map_or(b, |v| v.max(b)));
            } else {
                // x <= floor(c / -a)
                let b = c.div_euclid(-a);
                hi[j] = Some(hi[j].map_or(b, |v| v.min(b)));
            }
        }
    }
    let before = ineqs.len();
    ineqs.retain(|row| {
        if single(row).is_some() {
            return true;
        }
        let mut min = row[n] as i128;
        for (j, a) in row[..n].iter().enumerate() {
            let a = *a as i128;
            let bound = if a > 0 {
                lo[j]
            } else if a < 0 {
                hi[j]
            } else {
                continue;
            };
            let Some(v) = bound else {
                return true;
            };
            match a.checked_mul(v).and_then(|t| t.checked_add(min)) {
                Some(m) => min = m,
                None => return true,
            }
        }
        min < 0
    });
    Ok(before - ineqs.len())
}

/// Simplifies `b` (see [`simplify`]) and then removes every inequality that
/// the remaining constraints imply over the integers, decided by exact
/// rational LP: the inequality `r >= 0` is dropped when the rational minimum
/// of `r` over the other constraints is greater than `-1` (since `r` takes
/// integer values at integer points, it is then `>= 0` at every integer point
/// of the others). Returns [`BasicSet::empty`] when the system is rationally
/// infeasible. The integer points never change.
pub(crate) fn remove_redundant(b: &BasicSet) -> PolyResult<BasicSet> {
    use super::rational::Rat;
    use super::simplex::{LpResult, lp_min, rational_is_empty};
    let s = simplify(b)?;
    if s.is_obviously_empty() {
        return Ok(s);
    }
    if rational_is_empty(&s)? {
        return Ok(s.empty_like());
    }
    let mut kept: Vec<Vec<i64>> = s.ineqs.clone();
    drop_box_implied_rows(&mut kept)?;
    let minus_one = Rat::from_int(-1);
    let mut i = 0;
    while i < kept.len() {
        let row = kept.remove(i);
        let others = BasicSet {
            space: s.space.clone(),
            n_exist: s.n_exist,
            eqs: s.eqs.clone(),
            ineqs: kept.clone(),
        };
        match lp_min(&others, &row)? {
            LpResult::Optimal { value, .. } if value > minus_one => {
                // Redundant: leave it out.
            }
            LpResult::Infeasible => return Ok(s.empty_like()),
            _ => {
                kept.insert(i, row);
                i += 1;
            }
        }
    }
    Ok(BasicSet {
        space: s.space.clone(),
        n_exist: s.n_exist,
        eqs: s.eqs.clone(),
        ineqs: kept,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::brute::{
        BruteBox, RandomShape, basic_contains, for_each_point, proptest_cases, random_basic,
    };
    use crate::poly::space::{Space, Tuple};
    use crate::util::rng::Rng;

    #[test]
    fn tightening_and_trivial_rows_by_hand() {
        // 2x + 3 >= 0  <=>  x >= -1.5  <=>  x + 1 >= 0 over the integers.
        assert_eq!(normalize_ineq(&[2, 3]).unwrap(), RowStatus::Row(vec![1, 1]));
        // -4x + 6y - 3 >= 0  <=>  -2x + 3y - 2 >= 0 (floor(-3/2) = -2).
        assert_eq!(
            normalize_ineq(&[-4, 6, -3]).unwrap(),
            RowStatus::Row(vec![-2, 3, -2])
        );
        assert_eq!(normalize_ineq(&[0, 0, 5]).unwrap(), RowStatus::AlwaysTrue);
        assert_eq!(normalize_ineq(&[0, 0, -1]).unwrap(), RowStatus::AlwaysFalse);
        // 2x = 1 has no integer solution; -2x + 4y - 6 = 0 is x - 2y + 3 = 0.
        assert_eq!(normalize_eq(&[2, -1]).unwrap(), RowStatus::AlwaysFalse);
        assert_eq!(
            normalize_eq(&[-2, 4, -6]).unwrap(),
            RowStatus::Row(vec![1, -2, 3])
        );
        assert_eq!(complement_ineq(&[1, -2, 3]).unwrap(), vec![-1, 2, -4]);
        assert_eq!(ceil_div(-3, 2).unwrap(), -1);
        assert_eq!(floor_div(-3, 2), -2);
    }

    #[test]
    fn opposite_inequalities_become_an_equality_and_existential_goes() {
        // { [x, y] : exists e : e = x + 1 and y >= e and y <= x + 1 }
        //   = { [x, y] : y = x + 1 }.
        let space = Space::set(vec![], Tuple::new(None, &["x", "y"]));
        let mut b = BasicSet::universe(space);
        b.add_exist();
        b.add_eq(vec![1, 0, -1, 1]);
        b.add_ineq(vec![0, 1, -1, 0]);
        b.add_ineq(vec![1, -1, 0, 1]);
        let s = simplify(&b).unwrap();
        assert_eq!(s.n_exist, 0);
        assert!(s.ineqs.is_empty());
        assert_eq!(s.eqs.len(), 1);
        // The equality is y = x + 1 up to sign.
        let r = &s.eqs[0];
        assert!(r == &vec![1, -1, 1] || r == &vec![-1, 1, -1]);
    }

    #[test]
    fn contradiction_is_found() {
        let space = Space::set(vec![], Tuple::new(None, &["x"]));
        let mut b = BasicSet::universe(space);
        b.add_ineq(vec![2, -1]); // x >= 1/2 -> x >= 1
        b.add_ineq(vec![-2, 1]); // x <= 1/2 -> x <= 0
        assert!(simplify(&b).unwrap().is_obviously_empty());
    }

    fn random_space(rng: &mut Rng) -> (Space, usize) {
        let n_param = rng.below(2);
        let n_dim = 1 + rng.below(3);
        let params: Vec<String> = (0..n_param).map(|i| format!("p{i}")).collect();
        let dims: Vec<String> = (0..n_dim).map(|i| format!("x{i}")).collect();
        (
            Space::set(params, Tuple::anonymous(dims)),
            rng.below(if n_dim + n_param <= 2 { 3 } else { 2 }),
        )
    }

    /// Property: `simplify` and `remove_redundant` keep exactly the integer
    /// points (brute force over the whole box). Cases scale with
    /// `POLYFOLD_PROPTEST_CASES`.
    #[test]
    fn simplification_keeps_integer_points() {
        let mut rng = Rng::new(0xC0FFEE);
        let shape = RandomShape {
            n_rows: 3,
            max_coeff: 4,
            max_const: 8,
            half_box: 3,
            exist_half_box: 3,
            eq_one_in: 3,
            anchored: false,
        };
        let bx = BruteBox::new(-3, 3, -3, 3);
        for case in 0..proptest_cases(1500) {
            let (space, n_exist) = random_space(&mut rng);
            let b = random_basic(&mut rng, &space, n_exist, &shape);
            let s = simplify(&b).unwrap();
            let check_lp = case % 3 == 0;
            let r = if check_lp {
                Some(remove_redundant(&b).unwrap())
            } else {
                None
            };
            for_each_point(space.n_var(), -3, 3, |p| {
                let want = basic_contains(&b, p, &bx);
                assert_eq!(
                    basic_contains(&s, p, &bx),
                    want,
                    "simplify {b} -> {s} at {p:?}"
                );
                if let Some(r) = &r {
                    assert_eq!(
                        basic_contains(r, p, &bx),
                        want,
                        "redundancy {b} -> {r} at {p:?}"
                    );
                }
                true
            });
        }
    }
}
