//! Heuristics 1, 1.a, 2 and 3 of seed 001 §4.1 and §4.2 (after Darte,
//! Schreiber and Villard), for fixed parameter values.
//!
//! - Heuristic 1: `ρ_i` the smallest power of two with `ρ_i·λ_i > 1`, basis
//!   the Hermite completion of the minimum vectors (size-reduced, so that
//!   `(−98, 1)` becomes `(0, 1)`); correct by Rogers' argument.
//! - Heuristic 1.a: `ρ_i = ⌊1/λ_i⌋ + 1`, incremented round-robin until the
//!   lattice `(ρ_i·a_i)` is strictly admissible for K (checked exactly with
//!   `n` integer programs).
//! - Heuristic 2: `ρ_i = ⌊1/F_i(a_i)⌋ + 1` with `F_i(a_i) = min{F(y) : y ∈
//!   a_i + Vect(a_1..a_{i−1})}` by exact rational LP on K.
//! - Heuristic 3: `ρ_i = F*_i(c_i) + 1` with `F*_i(c_i) = max{ c_i·x : x ∈
//!   DS, c_j·x = 0 (j < i) }`, computed by exact integer programs on the
//!   pieces of DS themselves (not on K), so that with the identity it is
//!   exactly successive modulo and never worse.
//!
//! Heuristics 2 and 3 also give a one-dimensional "linearised" mapping of
//! the same size (seed 001 §4.2's `2i + j mod 2N`).
//!
//! What this module does NOT do: parametric moduli (every modulus is a
//! number for the given parameter values), or generalised basis reduction.

use std::collections::HashMap;

use crate::poly::error::{PolyResult, add, mul, neg};
use crate::poly::matrix::IntMatrix;
use crate::poly::rational::Rat;
use crate::poly::simplex::{IntResult, LpResult, integer_max, integer_point, lp_min_with_budget};
use crate::poly::{BasicSet, Budget, PolyError, Space, Tuple};

use super::basis::{hermite_completion, scale_above, size_reduce};
use super::minima::SuccessiveMinima;
use super::polytope::{FixedDifferenceSet, Polytope};

/// Whether the lattice spanned by the columns of `basis` meets K only in 0:
/// for each `i`, no integer `z` with `z_0 = … = z_{i−1} = 0`, `z_i >= 1` and
/// `basis·z ∈ K` (symmetry of K covers `z_i <= −1`).
pub(crate) fn admissible_for_polytope(
    k: &Polytope,
    basis: &[Vec<i64>],
    budget: &mut Budget,
) -> PolyResult<bool> {
    let n = k.dim();
    let rows = k.upper_rows()?;
    let space = Space::set(
        Vec::new(),
        Tuple::anonymous((0..n).map(|j| format!("z{j}")).collect()),
    );
    let mut base = BasicSet::universe(space);
    for (a, c) in &rows {
        let mut row = vec![0i64; n + 1];
        for (j, col) in basis.iter().enumerate() {
            let mut ab = 0i64;
            for (ar, br) in a.iter().zip(col) {
                ab = add(ab, mul(*ar, *br)?)?;
            }
            row[j] = neg(ab)?;
        }
        row[n] = *c;
        base.add_ineq(row);
    }
    for i in 0..n {
        let mut q = base.clone();
        for j in 0..i {
            let mut row = vec![0i64; n + 1];
            row[j] = 1;
            q.add_eq(row);
        }
        let mut row = vec![0i64; n + 1];
        row[i] = 1;
        row[n] = -1;
        q.add_ineq(row);
        if integer_point(&q, budget)?.is_some() {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The basis of Heuristic 1: Hermite completion of the minimum vectors,
/// size-reduced (columns).
pub(crate) fn minima_basis(minima: &SuccessiveMinima, n: usize) -> PolyResult<Vec<Vec<i64>>> {
    let q = hermite_completion(&minima.vectors, n)?;
    let mut cols = q.to_cols();
    size_reduce(&mut cols)?;
    Ok(cols)
}

/// `ρ_i` of Heuristic 1 (`power_of_two`) or the start of Heuristic 1.a;
/// 1 for the directions outside the integer span.
pub(crate) fn minima_scales(
    minima: &SuccessiveMinima,
    n: usize,
    power_of_two: bool,
) -> PolyResult<Vec<i64>> {
    let mut rho = vec![1i64; n];
    for (i, lambda) in minima.lambdas.iter().enumerate() {
        let r = scale_above(*lambda)?;
        rho[i] = if power_of_two && r > 1 {
            // Smallest power of two strictly above 1/λ, i.e. >= r.
            let mut p = 1i64;
            while p < r {
                p = mul(p, 2)?;
            }
            p
        } else {
            r
        };
    }
    Ok(rho)
}

fn scaled(basis: &[Vec<i64>], rho: &[i64]) -> PolyResult<Vec<Vec<i64>>> {
    basis
        .iter()
        .zip(rho)
        .map(|(col, r)| col.iter().map(|v| mul(*v, *r)).collect())
        .collect()
}

/// Heuristic 1.a: round-robin increments of the `ρ_i` (only along the
/// integer span) until the lattice is strictly admissible for K, at most
/// `max_rounds` checks. `None` when no admissible lattice was reached.
pub(crate) fn heuristic_1a(
    k: &Polytope,
    minima: &SuccessiveMinima,
    basis: &[Vec<i64>],
    max_rounds: usize,
    budget: &mut Budget,
) -> PolyResult<Option<Vec<i64>>> {
    let n = k.dim();
    let mut rho = minima_scales(minima, n, false)?;
    let p = minima.span_dimension;
    for next in 0..max_rounds {
        if admissible_for_polytope(k, &scaled(basis, &rho)?, budget)? {
            return Ok(Some(rho));
        }
        if p == 0 {
            return Ok(None);
        }
        rho[next % p] = add(rho[next % p], 1)?;
    }
    Ok(None)
}

/// `F_i(a_i)` of Heuristic 2 for every column of the basis `a`, exactly;
/// `None` where the affine space `a_i + Vect(a_<i)` misses every dilate
/// of K (K is flat there).
pub(crate) fn gauge_scales(
    k: &Polytope,
    a: &[Vec<i64>],
    budget: &mut Budget,
) -> PolyResult<Vec<Option<Rat>>> {
    let n = k.dim();
    let rows = k.upper_rows()?;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        // Columns: μ_0..μ_{i−1}, λ, constant.
        let space = Space::set(
            Vec::new(),
            Tuple::anonymous((0..=i).map(|j| format!("m{j}")).collect()),
        );
        let mut lp = BasicSet::universe(space);
        for (r, c) in &rows {
            // λ·c − r·(a_i + Σ μ_j a_j) >= 0.
            let mut row = vec![0i64; i + 2];
            for (j, slot) in row.iter_mut().enumerate().take(i) {
                let mut ra = 0i64;
                for (rr, aj) in r.iter().zip(&a[j]) {
                    ra = add(ra, mul(*rr, *aj)?)?;
                }
                *slot = neg(ra)?;
            }
            row[i] = *c;
            let mut rai = 0i64;
            for (rr, ai) in r.iter().zip(&a[i]) {
                rai = add(rai, mul(*rr, *ai)?)?;
            }
            row[i + 1] = neg(rai)?;
            lp.add_ineq(row);
        }
        let mut objective = vec![0i64; i + 2];
        objective[i] = 1;
        out.push(match lp_min_with_budget(&lp, &objective, budget)? {
            LpResult::Optimal { value, .. } => {
                if value.signum() <= 0 {
                    return Err(PolyError::Solver(
                        "internal: a gauge value is not positive".into(),
                    ));
                }
                Some(value)
            }
            LpResult::Infeasible => None,
            LpResult::Unbounded => {
                return Err(PolyError::Solver(
                    "internal: a gauge value is unbounded below".into(),
                ));
            }
        });
    }
    Ok(out)
}

/// `ρ_i = ⌊1/F_i(a_i)⌋ + 1` (1 where `F_i` is infinite).
pub(crate) fn heuristic_2(
    k: &Polytope,
    a: &[Vec<i64>],
    budget: &mut Budget,
) -> PolyResult<Vec<i64>> {
    gauge_scales(k, a, budget)?
        .into_iter()
        .map(|f| match f {
            Some(f) => scale_above(f),
            None => Ok(1),
        })
        .collect()
}

/// `ρ_i = 1 + max{ |c_i·x| : x ∈ DS, c_j·x = 0 (j < i) }` over the exact
/// pieces of DS (1 when no point remains).
pub(crate) fn heuristic_3(
    ds: &FixedDifferenceSet,
    c: &[Vec<i64>],
    budget: &mut Budget,
) -> PolyResult<Vec<i64>> {
    heuristic_3_memo(ds, c, &mut H3Memo::new(), budget)
}

/// The maxima [`heuristic_3`] computed for one DS, keyed by the earlier
/// rows (sorted: only the set matters) and the row maximised.
pub(crate) type H3Memo = HashMap<(Vec<Vec<i64>>, Vec<i64>), i64>;

/// [`heuristic_3`] reusing the maxima of earlier calls on the same DS (the
/// permuted identity bases share most of them).
pub(crate) fn heuristic_3_memo(
    ds: &FixedDifferenceSet,
    c: &[Vec<i64>],
    memo: &mut H3Memo,
    budget: &mut Budget,
) -> PolyResult<Vec<i64>> {
    let mut rho = Vec::with_capacity(c.len());
    for i in 0..c.len() {
        let mut earlier = c[..i].to_vec();
        earlier.sort();
        let key = (earlier, c[i].clone());
        if let Some(best) = memo.get(&key) {
            rho.push(add(*best, 1)?);
            continue;
        }
        let mut best = 0i64;
        for piece in &ds.pieces {
            let mut q = piece.clone();
            for earlier in &c[..i] {
                let mut row = q.zero_row();
                row[..earlier.len()].copy_from_slice(earlier);
                q.add_eq(row);
            }
            for sign in [1i64, -1] {
                let mut objective = q.zero_row();
                for (p, v) in c[i].iter().enumerate() {
                    objective[p] = mul(sign, *v)?;
                }
                match integer_max(&q, &objective, budget)? {
                    IntResult::Infeasible => {}
                    IntResult::Unbounded => {
                        return Err(PolyError::Solver("the difference set is unbounded".into()));
                    }
                    IntResult::Optimal { value, .. } => best = best.max(value),
                }
            }
        }
        memo.insert(key, best);
        rho.push(add(best, 1)?);
    }
    Ok(rho)
}

/// All permutations of `0..n` (Heap's algorithm order is not needed; this
/// is lexicographic), for `n <= 4`; identity and reverse otherwise.
pub(crate) fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n > 4 {
        let id: Vec<usize> = (0..n).collect();
        let mut rev = id.clone();
        rev.reverse();
        return vec![id, rev];
    }
    let mut out = Vec::new();
    let mut cur: Vec<usize> = Vec::new();
    fn rec(n: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if cur.len() == n {
            out.push(cur.clone());
            return;
        }
        for v in 0..n {
            if !cur.contains(&v) {
                cur.push(v);
                rec(n, cur, out);
                cur.pop();
            }
        }
    }
    rec(n, &mut cur, &mut out);
    out
}

/// The unit vectors in the order `perm`.
pub(crate) fn permuted_identity(perm: &[usize]) -> Vec<Vec<i64>> {
    let n = perm.len();
    perm.iter()
        .map(|&p| {
            let mut v = vec![0i64; n];
            v[p] = 1;
            v
        })
        .collect()
}

/// Rows of the inverse of a unimodular basis (columns `a`).
pub(crate) fn dual_rows(a: &[Vec<i64>]) -> PolyResult<Vec<Vec<i64>>> {
    let n = a.len();
    let m = IntMatrix::from_cols(a, n)?;
    let inv = m
        .unimodular_inverse()?
        .ok_or_else(|| PolyError::Solver("internal: basis is not unimodular".into()))?;
    Ok(inv.to_rows())
}
