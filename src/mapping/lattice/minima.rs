//! Successive minima of a 0-symmetric polytope K (seed 001 §4.1.1–4.1.2).
//!
//! `λ_i(K) = min{ λ > 0 : dim Vect(λK ∩ Z^n) >= i }`. For `K = {a_r·x <=
//! c_r}` and `L = lcm(c_r)`, the gauge `F(x) = max_r a_r·x / c_r` of an
//! integer point is a fraction `t / L`, so each minimum is a pure integer
//! program over `(y, t)`: minimise `t` subject to `L·a_r·Q·y <= c_r·t`,
//! `y_j >= 1`, where `x = Q·y` and `Q` is the Hermite completion of the
//! minimum vectors found so far (the "Hermite trick": `x` is independent of
//! them iff some `y_j`, `j >= i`, is non-zero, and by symmetry `y_j >= 1`
//! suffices). The exact solver of `poly::simplex` solves every program, so
//! each `λ_i` is an exact fraction. Among the vectors that reach `λ_i` the
//! one with the smallest sum of absolute values is taken (seed 001 §4.1.3),
//! which gives `(0, 1)` rather than `(−98, 1)` on durbin's y.
//!
//! When no integer point of K is independent of the vectors found so far
//! (every program is infeasible), the integer span of K has dimension `p <
//! n`; the remaining directions fold completely.
//!
//! What this module does NOT do: parametric minima (seed 001 explains why
//! this is open), or generalised basis reduction (Lovász–Scarf).

use crate::poly::error::{PolyResult, mul, neg};
use crate::poly::matrix::lcm;
use crate::poly::rational::Rat;
use crate::poly::simplex::{IntResult, integer_min};
use crate::poly::{BasicSet, Budget, PolyError, Space, Tuple};

use super::basis::hermite_completion;
use super::polytope::Polytope;

/// The successive minima found, with one minimum vector each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuccessiveMinima {
    /// `λ_1 <= … <= λ_p`, exact.
    pub lambdas: Vec<Rat>,
    /// A minimum vector for each `λ_i` (linearly independent).
    pub vectors: Vec<Vec<i64>>,
    /// `p`: the dimension of the span of `K ∩ Z^n` (the number of minima
    /// that are at most 1). Directions beyond it fold completely.
    pub span_dimension: usize,
}

/// The gauge `F(x) = max_r a_r·x / c_r` of `x` for K, exactly; `None` when
/// `x` is outside every dilate (an equality or a `c_r = 0` row fails).
pub(crate) fn gauge(rows: &[(Vec<i64>, i64)], x: &[i64]) -> PolyResult<Option<Rat>> {
    let mut best = Rat::zero();
    for (a, c) in rows {
        let mut ax = 0i64;
        for (ai, xi) in a.iter().zip(x) {
            ax = crate::poly::error::add(ax, mul(*ai, *xi)?)?;
        }
        if *c == 0 {
            if ax > 0 {
                return Ok(None);
            }
            continue;
        }
        let v = Rat::new(i128::from(ax), i128::from(*c))?;
        if v > best {
            best = v;
        }
    }
    Ok(Some(best))
}

/// Computes the successive minima of `k` with their vectors.
pub(crate) fn successive_minima(k: &Polytope, budget: &mut Budget) -> PolyResult<SuccessiveMinima> {
    let n = k.dim();
    let rows = k.upper_rows()?;
    if rows.iter().any(|(_, c)| *c < 0) {
        return Err(PolyError::Solver(
            "the polytope does not contain the origin".into(),
        ));
    }
    let mut l = 1i64;
    for (_, c) in &rows {
        if *c > 0 {
            l = lcm(l, *c)?;
        }
    }
    let mut lambdas = Vec::new();
    let mut vectors: Vec<Vec<i64>> = Vec::new();
    for i in 0..n {
        let q = hermite_completion(&vectors, n)?;
        // Columns: y_0..y_{n-1}, t, constant.
        let space = Space::set(
            Vec::new(),
            Tuple::anonymous((0..=n).map(|j| format!("v{j}")).collect()),
        );
        let mut base = BasicSet::universe(space);
        for (a, c) in &rows {
            // c·t − L·(a·Q)·y >= 0.
            let mut row = vec![0i64; n + 2];
            for (j, slot) in row.iter_mut().enumerate().take(n) {
                let mut aq = 0i64;
                for (r, ar) in a.iter().enumerate() {
                    aq = crate::poly::error::add(aq, mul(*ar, q.get(r, j))?)?;
                }
                *slot = neg(mul(l, aq)?)?;
            }
            row[n] = *c;
            base.add_ineq(row);
        }
        // t >= 0.
        let mut row = vec![0i64; n + 2];
        row[n] = 1;
        base.add_ineq(row);
        let mut best: Option<(i64, Vec<i64>)> = None;
        for j in i..n {
            let mut piece = base.clone();
            let mut row = vec![0i64; n + 2];
            row[j] = 1;
            row[n + 1] = -1;
            piece.add_ineq(row);
            let mut objective = vec![0i64; n + 2];
            objective[n] = 1;
            match integer_min(&piece, &objective, budget)? {
                IntResult::Infeasible => {}
                IntResult::Unbounded => {
                    return Err(PolyError::Solver(
                        "internal: the gauge is unbounded below".into(),
                    ));
                }
                IntResult::Optimal { value, point } => {
                    if best.as_ref().is_none_or(|(t, _)| value < *t) {
                        best = Some((value, point[..n].to_vec()));
                    }
                }
            }
        }
        let Some((t, y)) = best else { break };
        // Among the vectors with gauge t/L and independent of the previous
        // ones, take one with the smallest sum of absolute values.
        let x = simplest_vector(&base, &q, n, t, i, budget)?
            .unwrap_or_else(|| q.mul_vec(&y).unwrap_or(y));
        let lambda = gauge(&rows, &x)?
            .ok_or_else(|| PolyError::Solver("internal: a minimum vector is outside K".into()))?;
        if lambda != Rat::new(i128::from(t), i128::from(l))? {
            return Err(PolyError::Solver(
                "internal: successive minimum differs on re-check".into(),
            ));
        }
        lambdas.push(lambda);
        vectors.push(x);
    }
    Ok(SuccessiveMinima {
        span_dimension: lambdas.iter().filter(|l| **l <= Rat::one()).count(),
        lambdas,
        vectors,
    })
}

/// Minimises `Σ |x_r|` over `x = Q·y` with gauge `<= t/L`, some `y_j >= 1`
/// (`j >= i`). Returns `x`.
fn simplest_vector(
    base: &BasicSet,
    q: &crate::poly::matrix::IntMatrix,
    n: usize,
    t: i64,
    i: usize,
    budget: &mut Budget,
) -> PolyResult<Option<Vec<i64>>> {
    let mut best: Option<(i64, Vec<i64>)> = None;
    for j in i..n {
        // Columns: y (n), t (1), s (n), constant.
        let space = Space::set(
            Vec::new(),
            Tuple::anonymous((0..2 * n + 1).map(|c| format!("v{c}")).collect()),
        );
        let mut piece = BasicSet::universe(space);
        let widen = |row: &Vec<i64>| -> Vec<i64> {
            let mut out = row[..=n].to_vec();
            out.extend(std::iter::repeat_n(0, n));
            out.push(row[n + 1]);
            out
        };
        for row in &base.ineqs {
            piece.add_ineq(widen(row));
        }
        let mut fix_t = vec![0i64; 2 * n + 2];
        fix_t[n] = 1;
        fix_t[2 * n + 1] = neg(t)?;
        piece.add_eq(fix_t);
        let mut row = vec![0i64; 2 * n + 2];
        row[j] = 1;
        row[2 * n + 1] = -1;
        piece.add_ineq(row);
        // s_r >= ±(Q·y)_r.
        for r in 0..n {
            for sign in [1i64, -1] {
                let mut row = vec![0i64; 2 * n + 2];
                for (c, slot) in row.iter_mut().enumerate().take(n) {
                    *slot = neg(mul(sign, q.get(r, c))?)?;
                }
                row[n + 1 + r] = 1;
                piece.add_ineq(row);
            }
        }
        let mut objective = vec![0i64; 2 * n + 2];
        for r in 0..n {
            objective[n + 1 + r] = 1;
        }
        if let IntResult::Optimal { value, point } = integer_min(&piece, &objective, budget)?
            && best.as_ref().is_none_or(|(v, _)| value < *v)
        {
            let x = q.mul_vec(&point[..n])?;
            best = Some((value, x));
        }
    }
    Ok(best.map(|b| b.1))
}
