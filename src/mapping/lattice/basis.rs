//! Integer lattices and the modular mappings whose kernels they are
//! (seed 001 §2, Step 4): a lattice given by a basis becomes `σ(x) = M·x mod
//! b` through the Smith normal form, and mappings are simplified so that
//! they stay readable (entries reduced modulo their modulus, trivial rows
//! dropped).
//!
//! What this module does NOT do: search for lattices (see `heuristics` and
//! `optimal`), or certify anything.

use crate::poly::error::{PolyResult, add, mul, neg, sub};
use crate::poly::matrix::{IntMatrix, snf};
use crate::poly::{PolyError, rational::Rat};

/// `σ(x) = rows·x mod moduli`, one modulus per row, all moduli >= 2 except
/// for the empty mapping (size 1).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NumericMapping {
    pub rows: Vec<Vec<i64>>,
    pub moduli: Vec<i64>,
}

impl NumericMapping {
    /// Number of locations: the product of the moduli.
    pub fn size(&self) -> PolyResult<i64> {
        self.moduli.iter().try_fold(1i64, |acc, b| mul(acc, *b))
    }

    /// Whether `x` is in the kernel (maps to the same location as 0).
    pub fn kills(&self, x: &[i64]) -> PolyResult<bool> {
        for (row, b) in self.rows.iter().zip(&self.moduli) {
            let mut acc = 0i64;
            for (a, v) in row.iter().zip(x) {
                acc = add(acc, mul(*a, *v)?)?;
            }
            if acc.rem_euclid(*b) != 0 {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Drops rows with modulus 1 and reduces every entry into
    /// `(-b/2, b/2]` modulo its row's modulus `b` (same mapping values mod
    /// b, same kernel).
    pub fn simplify(&mut self) {
        let mut rows = Vec::new();
        let mut moduli = Vec::new();
        for (row, b) in self.rows.iter().zip(&self.moduli) {
            if *b <= 1 {
                continue;
            }
            let reduced: Vec<i64> = row
                .iter()
                .map(|a| {
                    let r = a.rem_euclid(*b);
                    if r > *b / 2 { r - *b } else { r }
                })
                .collect();
            if reduced.iter().all(|a| *a == 0) {
                // The row is identically 0 mod b: it adds nothing but size.
                // Keep it honest: such a row never arises from a basis.
                rows.push(reduced);
                moduli.push(*b);
                continue;
            }
            rows.push(reduced);
            moduli.push(*b);
        }
        self.rows = rows;
        self.moduli = moduli;
    }

    /// A complexity score for ties: number of non-zero coefficients, then
    /// the sum of their absolute values, then the number of rows.
    pub(crate) fn complexity(&self) -> (usize, i64, usize) {
        let nz = self.rows.iter().flatten().filter(|a| **a != 0).count();
        let sum = self
            .rows
            .iter()
            .flatten()
            .map(|a| a.saturating_abs())
            .fold(0i64, i64::saturating_add);
        (nz, sum, self.rows.len())
    }
}

/// The mapping whose kernel is the lattice spanned by the columns of
/// `basis` (`n` linearly independent vectors of length `n`). With
/// `basis = U·S·V` (Smith form, `U`, `V` unimodular), the lattice is
/// `U·S·Z^n`, so `x` is in it iff `(U^-1·x)_i ≡ 0 mod s_i`.
pub(crate) fn mapping_from_basis(basis: &[Vec<i64>]) -> PolyResult<NumericMapping> {
    let n = basis.len();
    let b = IntMatrix::from_cols(basis, n)?;
    // snf gives S = P·B·Q, so B = P^-1·S·Q^-1 and U^-1 = P.
    let (s, p, _q) = snf(&b)?;
    let mut rows = Vec::new();
    let mut moduli = Vec::new();
    for i in 0..n {
        let d = s.get(i, i);
        if d == 0 {
            return Err(PolyError::Solver("lattice basis is not full-rank".into()));
        }
        if d > 1 {
            rows.push(p.row(i).to_vec());
            moduli.push(d);
        }
    }
    let mut m = NumericMapping { rows, moduli };
    m.simplify();
    Ok(m)
}

/// The mapping `x ↦ (u_i mod ρ_i)_i` with `u = A^-1·x` for a unimodular
/// basis `A` (columns `a_i`): its kernel is spanned by the `ρ_i·a_i`.
pub(crate) fn mapping_from_scaled_basis(a: &IntMatrix, rho: &[i64]) -> PolyResult<NumericMapping> {
    let inv = a
        .unimodular_inverse()?
        .ok_or_else(|| PolyError::Solver("internal: basis is not unimodular".into()))?;
    let mut m = NumericMapping {
        rows: (0..rho.len()).map(|i| inv.row(i).to_vec()).collect(),
        moduli: rho.to_vec(),
    };
    m.simplify();
    Ok(m)
}

/// One-dimensional version of `(r_i·x mod ρ_i)_i` (seed 001 §4.2, "with a
/// slight basis change"): `Σ_i w_i·(r_i·x) mod Π ρ` with `w_i = Π_{j<i} ρ_j`
/// when `first_nonzero` (valid when the rows were built so that the first
/// non-zero `r_k·x` of a conflict distance has `|r_k·x| < ρ_k`: Heuristic 3)
/// and `w_i = Π_{j>i} ρ_j` otherwise (valid when the last non-zero
/// coordinate decides: Heuristic 2). The rows are reduced modulo the product.
pub(crate) fn linearise(
    rows: &[Vec<i64>],
    rho: &[i64],
    first_nonzero: bool,
) -> PolyResult<NumericMapping> {
    let n = rows.first().map_or(0, Vec::len);
    let total = rho.iter().try_fold(1i64, |acc, b| mul(acc, *b))?;
    let mut combined = vec![0i64; n];
    let k = rows.len();
    for (i, row) in rows.iter().enumerate() {
        let mut w = 1i64;
        let range: Vec<usize> = if first_nonzero {
            (0..i).collect()
        } else {
            (i + 1..k).collect()
        };
        for j in range {
            w = mul(w, rho[j])?;
        }
        for (c, a) in row.iter().enumerate() {
            combined[c] = add(combined[c], mul(w, *a)?)?;
        }
    }
    let mut m = NumericMapping {
        rows: vec![combined],
        moduli: vec![total],
    };
    m.simplify();
    Ok(m)
}

/// The smallest ρ with `ρ·λ > 1` for a positive rational λ: `floor(1/λ) + 1`.
pub(crate) fn scale_above(lambda: Rat) -> PolyResult<i64> {
    if lambda.signum() <= 0 {
        return Err(PolyError::Solver(
            "a successive minimum is not positive".into(),
        ));
    }
    let inv = Rat::one().checked_div(lambda)?;
    add(inv.floor()?, 1)
}

/// Size-reduces column `i` of `a` by integer multiples of the columns
/// `j < i`, minimising the sum of absolute values each time (seed 001
/// §4.1.3: "(0, 1) = (−98, 1) + 98·(1, 0)"). Every prefix span and the
/// determinant are preserved.
pub(crate) fn size_reduce(a: &mut [Vec<i64>]) -> PolyResult<()> {
    for i in 1..a.len() {
        for j in (0..i).rev() {
            let k = best_multiple(&a[i], &a[j])?;
            if k != 0 {
                for r in 0..a[i].len() {
                    a[i][r] = sub(a[i][r], mul(k, a[j][r])?)?;
                }
            }
        }
    }
    Ok(())
}

/// The integer `k` minimising `||x − k·y||_1` (the minimum of a convex
/// piecewise-linear function lies at a breakpoint `x_r / y_r`, rounded).
fn best_multiple(x: &[i64], y: &[i64]) -> PolyResult<i64> {
    let cost = |k: i64| -> PolyResult<i64> {
        let mut s = 0i64;
        for (a, b) in x.iter().zip(y) {
            s = add(
                s,
                sub(*a, mul(k, *b)?)?
                    .checked_abs()
                    .ok_or(PolyError::Overflow)?,
            )?;
        }
        Ok(s)
    };
    let mut best = (cost(0)?, 0i64);
    for (a, b) in x.iter().zip(y) {
        if *b == 0 {
            continue;
        }
        let q = a.div_euclid(*b);
        for k in [q, add(q, 1)?] {
            let c = cost(k)?;
            if c < best.0 || (c == best.0 && k.unsigned_abs() < best.1.unsigned_abs()) {
                best = (c, k);
            }
        }
    }
    Ok(best.1)
}

/// Completes the independent vectors `x` (columns) into a unimodular matrix
/// whose first `k` columns span the same rational spaces, prefix by prefix
/// (the Hermite trick of seed 001 §4.1.1: `X = Q·H`, the columns of `Q`).
pub(crate) fn hermite_completion(x: &[Vec<i64>], n: usize) -> PolyResult<IntMatrix> {
    if x.is_empty() {
        return Ok(IntMatrix::identity(n));
    }
    // Row-style HNF of X^T: X^T = U^-1·H... use hnf_col on X (n x k):
    // H = X·W with W unimodular k x k is column echelon; we need the
    // left transform, so work with X^T (k x n): H' = X^T·V, V unimodular
    // n x n, H' lower-triangular-ish [L | 0]. Then X = (V^-1)^T·H'^T and
    // Q = (V^-1)^T has X = Q·(H'^T), H'^T upper part triangular.
    let xt = IntMatrix::from_rows(x, n)?;
    let (_h, v) = crate::poly::matrix::hnf_col(&xt)?;
    let vinv = v
        .unimodular_inverse()?
        .ok_or_else(|| PolyError::Solver("internal: Hermite transform is not unimodular".into()))?;
    Ok(vinv.transpose())
}

/// `-x` (checked).
pub fn negate(x: &[i64]) -> PolyResult<Vec<i64>> {
    x.iter().map(|v| neg(*v)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force: the kernel of `m` in a box equals the lattice spanned
    /// by `basis` in that box (membership by solving `basis·z = x` exactly).
    fn check_kernel(basis: &[Vec<i64>], m: &NumericMapping, half: i64) {
        let n = basis.len();
        let b = IntMatrix::from_cols(basis, n).unwrap();
        let inv = b.inverse().unwrap().unwrap();
        let mut x = vec![-half; n];
        loop {
            let z: Vec<Rat> = inv
                .iter()
                .map(|row| {
                    row.iter().zip(&x).fold(Rat::zero(), |acc, (a, v)| {
                        acc.checked_add(a.checked_mul(Rat::from_int(*v)).unwrap())
                            .unwrap()
                    })
                })
                .collect();
            let member = z.iter().all(Rat::is_integer);
            assert_eq!(
                m.kills(&x).unwrap(),
                member,
                "{x:?} basis {basis:?} map {m:?}"
            );
            let mut p = n;
            loop {
                if p == 0 {
                    return;
                }
                p -= 1;
                if x[p] < half {
                    x[p] += 1;
                    break;
                }
                x[p] = -half;
            }
        }
    }

    #[test]
    fn mapping_of_a_lattice_has_that_lattice_as_kernel() {
        let cases: Vec<Vec<Vec<i64>>> = vec![
            vec![vec![100, 0], vec![0, 2]],
            vec![vec![61, 0], vec![14, 1]],
            vec![vec![100, 0], vec![-1, 2]],
            vec![vec![2, 1, 0], vec![0, 3, 1], vec![1, 0, 4]],
        ];
        for basis in cases {
            let m = mapping_from_basis(&basis).unwrap();
            let det = IntMatrix::from_cols(&basis, basis.len())
                .unwrap()
                .determinant()
                .unwrap()
                .abs();
            assert_eq!(m.size().unwrap(), det, "{basis:?}");
            check_kernel(&basis, &m, 7);
        }
    }

    #[test]
    fn linearised_heuristic_2_mapping_for_durbin_is_2i_plus_j_mod_2n() {
        // Seed 001 §4.2: basis (1,0), (0,1), rho = (N, 2) -> 2i + j mod 2N.
        let m = linearise(&[vec![1, 0], vec![0, 1]], &[100, 2], false).unwrap();
        assert_eq!(m.moduli, vec![200]);
        assert_eq!(m.rows, vec![vec![2, 1]]);
        // Opposite order: rho = (2, N) on (j, i) -> N·j + i mod 2N.
        let m = linearise(&[vec![0, 1], vec![1, 0]], &[2, 100], false).unwrap();
        assert_eq!(m.rows, vec![vec![1, 100]]);
    }

    #[test]
    fn size_reduction_turns_minus_98_1_into_0_1() {
        let mut a = vec![vec![1, 0], vec![-98, 1]];
        size_reduce(&mut a).unwrap();
        assert_eq!(a, vec![vec![1, 0], vec![0, 1]]);
    }

    #[test]
    fn hermite_completion_keeps_the_prefix_spans() {
        let x = vec![vec![2, 1, 0], vec![0, 1, 1]];
        let q = hermite_completion(&x, 3).unwrap();
        assert!(q.is_unimodular().unwrap());
        // Column 0 of Q spans x0's line; columns 0..2 span x0, x1's plane.
        let c0 = q.col(0);
        assert_eq!(c0[0] * x[0][1] - c0[1] * x[0][0], 0);
        assert_eq!(c0[1] * x[0][2] - c0[2] * x[0][1], 0);
        let c1 = q.col(1);
        // det [x0, x1, c] = 0 for c in span.
        let det3 = |a: &[i64], b: &[i64], c: &[i64]| {
            a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
                + a[2] * (b[0] * c[1] - b[1] * c[0])
        };
        assert_eq!(det3(&x[0], &x[1], &c1), 0);
        assert_ne!(det3(&x[0], &x[1], &q.col(2)), 0);
    }
}
