//! Dense integer matrices and exact integer linear algebra.
//!
//! What this module does: a row-major [`IntMatrix`] of `i64` with checked
//! arithmetic, `gcd`/`lcm`, fraction-free (Bareiss) determinant, rank,
//! rational inverse, a lattice basis of the integer kernel, Hermite normal
//! forms (column style [`hnf_col`] and row style [`hnf_row`]) with their
//! unimodular transforms, the Smith normal form [`snf`], and the completion
//! of a primitive set of integer vectors to a unimodular basis
//! ([`complete_to_unimodular`], seed 001 §4.1.1).
//!
//! Every operation is exact: an intermediate value that does not fit its
//! integer type gives [`PolyError::Overflow`], never a wrong answer or a
//! panic. What it does NOT do: arbitrary precision, sparse storage, or
//! lattice basis reduction.

use std::fmt;

use super::error::{PolyError, PolyResult};
use super::rational::{Rat, gcd_u128};

/// Greatest common divisor of `|a|` and `|b|` (non-negative; `gcd(0, 0) =
/// 0`). Overflow only when the result is `2^63` (both arguments in
/// `{0, i64::MIN}`).
pub fn gcd(a: i64, b: i64) -> PolyResult<i64> {
    i64::try_from(gcd_u64(a, b)).map_err(|_| PolyError::Overflow)
}

/// Greatest common divisor of `|a|` and `|b|` as an unsigned number; never
/// fails.
pub(crate) fn gcd_u64(a: i64, b: i64) -> u64 {
    gcd_u128(a.unsigned_abs() as u128, b.unsigned_abs() as u128) as u64
}

/// Least common multiple of `|a|` and `|b|` (non-negative; zero when either
/// is zero), checked.
pub(crate) fn lcm(a: i64, b: i64) -> PolyResult<i64> {
    if a == 0 || b == 0 {
        return Ok(0);
    }
    let g = gcd_u64(a, b);
    let l = (a.unsigned_abs() / g)
        .checked_mul(b.unsigned_abs())
        .ok_or(PolyError::Overflow)?;
    i64::try_from(l).map_err(|_| PolyError::Overflow)
}

#[inline]
fn ck_mul(a: i64, b: i64) -> PolyResult<i64> {
    a.checked_mul(b).ok_or(PolyError::Overflow)
}

#[inline]
fn ck_add(a: i64, b: i64) -> PolyResult<i64> {
    a.checked_add(b).ok_or(PolyError::Overflow)
}

#[inline]
fn ck_sub(a: i64, b: i64) -> PolyResult<i64> {
    a.checked_sub(b).ok_or(PolyError::Overflow)
}

#[inline]
fn ck_neg(a: i64) -> PolyResult<i64> {
    a.checked_neg().ok_or(PolyError::Overflow)
}

/// A dense `rows x cols` matrix of `i64`, stored row by row.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IntMatrix {
    rows: usize,
    cols: usize,
    data: Vec<i64>,
}

impl IntMatrix {
    /// The zero matrix.
    pub(crate) fn zeros(rows: usize, cols: usize) -> IntMatrix {
        IntMatrix {
            rows,
            cols,
            data: vec![0; rows * cols],
        }
    }

    /// The `n x n` identity.
    pub fn identity(n: usize) -> IntMatrix {
        let mut m = IntMatrix::zeros(n, n);
        for i in 0..n {
            m.data[i * n + i] = 1;
        }
        m
    }

    /// A matrix from its rows; all rows must have `cols` entries.
    pub fn from_rows(rows: &[Vec<i64>], cols: usize) -> PolyResult<IntMatrix> {
        if rows.iter().any(|r| r.len() != cols) {
            return Err(PolyError::SpaceMismatch(
                "matrix rows of different lengths".into(),
            ));
        }
        Ok(IntMatrix {
            rows: rows.len(),
            cols,
            data: rows.iter().flatten().copied().collect(),
        })
    }

    /// A matrix from its columns; all columns must have `rows` entries.
    pub(crate) fn from_cols(cols: &[Vec<i64>], rows: usize) -> PolyResult<IntMatrix> {
        Ok(IntMatrix::from_rows(cols, rows)?.transpose())
    }

    pub fn n_rows(&self) -> usize {
        self.rows
    }

    pub fn n_cols(&self) -> usize {
        self.cols
    }

    pub(crate) fn is_square(&self) -> bool {
        self.rows == self.cols
    }

    /// Entry `(r, c)`; panics when out of range (an internal invariant).
    pub fn get(&self, r: usize, c: usize) -> i64 {
        assert!(r < self.rows && c < self.cols, "matrix index out of range");
        self.data[r * self.cols + c]
    }

    /// Sets entry `(r, c)`; panics when out of range (an internal invariant).
    pub fn set(&mut self, r: usize, c: usize, v: i64) {
        assert!(r < self.rows && c < self.cols, "matrix index out of range");
        self.data[r * self.cols + c] = v;
    }

    /// Row `r` as a slice.
    pub fn row(&self, r: usize) -> &[i64] {
        &self.data[r * self.cols..(r + 1) * self.cols]
    }

    /// Column `c` as a vector.
    pub fn col(&self, c: usize) -> Vec<i64> {
        (0..self.rows).map(|r| self.get(r, c)).collect()
    }

    /// All rows as vectors.
    pub(crate) fn to_rows(&self) -> Vec<Vec<i64>> {
        (0..self.rows).map(|r| self.row(r).to_vec()).collect()
    }

    /// All columns as vectors.
    pub(crate) fn to_cols(&self) -> Vec<Vec<i64>> {
        (0..self.cols).map(|c| self.col(c)).collect()
    }

    pub(crate) fn transpose(&self) -> IntMatrix {
        let mut t = IntMatrix::zeros(self.cols, self.rows);
        for r in 0..self.rows {
            for c in 0..self.cols {
                t.data[c * self.rows + r] = self.data[r * self.cols + c];
            }
        }
        t
    }

    fn same_shape(&self, other: &IntMatrix) -> PolyResult<()> {
        if self.rows != other.rows || self.cols != other.cols {
            return Err(PolyError::SpaceMismatch(format!(
                "matrix shapes {}x{} and {}x{} differ",
                self.rows, self.cols, other.rows, other.cols
            )));
        }
        Ok(())
    }

    pub fn checked_add(&self, other: &IntMatrix) -> PolyResult<IntMatrix> {
        self.same_shape(other)?;
        let data = self
            .data
            .iter()
            .zip(&other.data)
            .map(|(a, b)| ck_add(*a, *b))
            .collect::<PolyResult<_>>()?;
        Ok(IntMatrix { data, ..*self })
    }

    pub fn checked_sub(&self, other: &IntMatrix) -> PolyResult<IntMatrix> {
        self.same_shape(other)?;
        let data = self
            .data
            .iter()
            .zip(&other.data)
            .map(|(a, b)| ck_sub(*a, *b))
            .collect::<PolyResult<_>>()?;
        Ok(IntMatrix { data, ..*self })
    }

    /// The product `self · other`, checked (accumulated in `i128`).
    pub fn checked_mul(&self, other: &IntMatrix) -> PolyResult<IntMatrix> {
        if self.cols != other.rows {
            return Err(PolyError::SpaceMismatch(format!(
                "cannot multiply {}x{} by {}x{}",
                self.rows, self.cols, other.rows, other.cols
            )));
        }
        let mut out = IntMatrix::zeros(self.rows, other.cols);
        for r in 0..self.rows {
            for c in 0..other.cols {
                let mut acc: i128 = 0;
                for k in 0..self.cols {
                    let p = self.data[r * self.cols + k] as i128
                        * other.data[k * other.cols + c] as i128;
                    acc = acc.checked_add(p).ok_or(PolyError::Overflow)?;
                }
                out.data[r * out.cols + c] = i64::try_from(acc).map_err(|_| PolyError::Overflow)?;
            }
        }
        Ok(out)
    }

    /// The product `self · v`, checked.
    pub(crate) fn mul_vec(&self, v: &[i64]) -> PolyResult<Vec<i64>> {
        if v.len() != self.cols {
            return Err(PolyError::SpaceMismatch(
                "vector length differs from the column count".into(),
            ));
        }
        (0..self.rows)
            .map(|r| {
                let mut acc: i128 = 0;
                for (a, x) in self.row(r).iter().zip(v) {
                    acc = acc
                        .checked_add(*a as i128 * *x as i128)
                        .ok_or(PolyError::Overflow)?;
                }
                i64::try_from(acc).map_err(|_| PolyError::Overflow)
            })
            .collect()
    }

    fn require_square(&self) -> PolyResult<()> {
        if !self.is_square() {
            return Err(PolyError::SpaceMismatch(format!(
                "{}x{} matrix is not square",
                self.rows, self.cols
            )));
        }
        Ok(())
    }

    /// The determinant, by fraction-free (Bareiss) elimination. Every
    /// intermediate entry is a minor of the matrix; overflow when one does
    /// not fit `i64`.
    pub fn determinant(&self) -> PolyResult<i64> {
        self.require_square()?;
        let n = self.rows;
        if n == 0 {
            return Ok(1);
        }
        let mut m = self.data.clone();
        let mut sign = 1i64;
        let mut prev: i64 = 1;
        for k in 0..n - 1 {
            if m[k * n + k] == 0 {
                let Some(p) = (k + 1..n).find(|&r| m[r * n + k] != 0) else {
                    return Ok(0);
                };
                for c in 0..n {
                    m.swap(k * n + c, p * n + c);
                }
                sign = -sign;
            }
            let pivot = m[k * n + k] as i128;
            for i in k + 1..n {
                for j in k + 1..n {
                    let v =
                        m[i * n + j] as i128 * pivot - m[i * n + k] as i128 * m[k * n + j] as i128;
                    let v = v / prev as i128; // exact by Sylvester's identity
                    m[i * n + j] = i64::try_from(v).map_err(|_| PolyError::Overflow)?;
                }
                m[i * n + k] = 0;
            }
            prev = m[k * n + k];
        }
        ck_mul(sign, m[n * n - 1])
    }

    /// The rank, by fraction-free elimination with `i128` rows divided by
    /// their gcd.
    pub fn rank(&self) -> PolyResult<usize> {
        let mut rows: Vec<Vec<i128>> = (0..self.rows)
            .map(|r| self.row(r).iter().map(|v| *v as i128).collect())
            .collect();
        let mut rank = 0;
        for c in 0..self.cols {
            let Some(p) = (rank..rows.len()).find(|&r| rows[r][c] != 0) else {
                continue;
            };
            rows.swap(rank, p);
            let pivot_row = rows[rank].clone();
            for row in rows.iter_mut().skip(rank + 1) {
                let f = row[c];
                if f == 0 {
                    continue;
                }
                for (e, p) in row.iter_mut().zip(&pivot_row) {
                    let a = e.checked_mul(pivot_row[c]).ok_or(PolyError::Overflow)?;
                    let b = f.checked_mul(*p).ok_or(PolyError::Overflow)?;
                    *e = a.checked_sub(b).ok_or(PolyError::Overflow)?;
                }
                let g = row.iter().fold(0u128, |g, v| gcd_u128(g, v.unsigned_abs()));
                if g > 1 {
                    let g = i128::try_from(g).map_err(|_| PolyError::Overflow)?;
                    for e in row.iter_mut() {
                        *e /= g;
                    }
                }
            }
            rank += 1;
        }
        Ok(rank)
    }

    /// The inverse over the rationals (rows of [`Rat`]), or `None` when the
    /// matrix is singular.
    pub(crate) fn inverse(&self) -> PolyResult<Option<Vec<Vec<Rat>>>> {
        self.require_square()?;
        let n = self.rows;
        let mut a: Vec<Vec<Rat>> = (0..n)
            .map(|r| self.row(r).iter().map(|v| Rat::from_int(*v)).collect())
            .collect();
        let mut inv: Vec<Vec<Rat>> = (0..n)
            .map(|r| {
                (0..n)
                    .map(|c| if r == c { Rat::one() } else { Rat::zero() })
                    .collect()
            })
            .collect();
        for c in 0..n {
            let Some(p) = (c..n).find(|&r| !a[r][c].is_zero()) else {
                return Ok(None);
            };
            a.swap(c, p);
            inv.swap(c, p);
            let pv = a[c][c];
            for j in 0..n {
                a[c][j] = a[c][j].checked_div(pv)?;
                inv[c][j] = inv[c][j].checked_div(pv)?;
            }
            for r in 0..n {
                if r == c || a[r][c].is_zero() {
                    continue;
                }
                let f = a[r][c];
                for j in 0..n {
                    a[r][j] = a[r][j].checked_sub(f.checked_mul(a[c][j])?)?;
                    inv[r][j] = inv[r][j].checked_sub(f.checked_mul(inv[c][j])?)?;
                }
            }
        }
        Ok(Some(inv))
    }

    /// The inverse of a unimodular matrix as an integer matrix, or `None`
    /// when the matrix is not unimodular.
    pub(crate) fn unimodular_inverse(&self) -> PolyResult<Option<IntMatrix>> {
        self.require_square()?;
        if self.determinant()?.abs() != 1 {
            return Ok(None);
        }
        let Some(inv) = self.inverse()? else {
            return Ok(None);
        };
        let mut out = IntMatrix::zeros(self.rows, self.cols);
        for (r, row) in inv.iter().enumerate() {
            for (c, v) in row.iter().enumerate() {
                let Some(v) = v.to_i64() else {
                    return Err(PolyError::Solver(
                        "internal: inverse of a unimodular matrix is not integral".into(),
                    ));
                };
                out.set(r, c, v);
            }
        }
        Ok(Some(out))
    }

    /// Whether the matrix is square with determinant ±1.
    pub fn is_unimodular(&self) -> PolyResult<bool> {
        Ok(self.is_square() && self.determinant()?.abs() == 1)
    }

    /// A basis of the lattice `{x ∈ Z^cols : self·x = 0}`, one vector per
    /// entry (empty when the kernel is `{0}`).
    pub fn kernel_basis(&self) -> PolyResult<Vec<Vec<i64>>> {
        let (h, u) = hnf_col(self)?;
        let rank = (0..h.cols)
            .filter(|&c| (0..h.rows).any(|r| h.get(r, c) != 0))
            .count();
        Ok((rank..self.cols).map(|c| u.col(c)).collect())
    }

    // Column and row operations (checked), used by the normal forms.

    fn swap_cols(&mut self, a: usize, b: usize) {
        if a != b {
            for r in 0..self.rows {
                self.data.swap(r * self.cols + a, r * self.cols + b);
            }
        }
    }

    fn swap_rows(&mut self, a: usize, b: usize) {
        if a != b {
            for c in 0..self.cols {
                self.data.swap(a * self.cols + c, b * self.cols + c);
            }
        }
    }

    /// `col[dst] += q · col[src]`.
    fn add_col(&mut self, dst: usize, src: usize, q: i64) -> PolyResult<()> {
        if q == 0 {
            return Ok(());
        }
        for r in 0..self.rows {
            let s = self.data[r * self.cols + src];
            if s != 0 {
                let d = &mut self.data[r * self.cols + dst];
                *d = ck_add(*d, ck_mul(q, s)?)?;
            }
        }
        Ok(())
    }

    /// `row[dst] += q · row[src]`.
    fn add_row(&mut self, dst: usize, src: usize, q: i64) -> PolyResult<()> {
        if q == 0 {
            return Ok(());
        }
        for c in 0..self.cols {
            let s = self.data[src * self.cols + c];
            if s != 0 {
                let d = &mut self.data[dst * self.cols + c];
                *d = ck_add(*d, ck_mul(q, s)?)?;
            }
        }
        Ok(())
    }

    fn neg_col(&mut self, c: usize) -> PolyResult<()> {
        for r in 0..self.rows {
            let v = &mut self.data[r * self.cols + c];
            *v = ck_neg(*v)?;
        }
        Ok(())
    }

    fn neg_row(&mut self, r: usize) -> PolyResult<()> {
        for c in 0..self.cols {
            let v = &mut self.data[r * self.cols + c];
            *v = ck_neg(*v)?;
        }
        Ok(())
    }
}

impl fmt::Display for IntMatrix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[")?;
        for r in 0..self.rows {
            if r > 0 {
                write!(f, "; ")?;
            }
            let row: Vec<String> = self.row(r).iter().map(i64::to_string).collect();
            write!(f, "{}", row.join(" "))?;
        }
        write!(f, "]")
    }
}

/// Truncated quotient, checked (`i64::MIN / -1` overflows).
fn ck_div(a: i64, b: i64) -> PolyResult<i64> {
    a.checked_div(b).ok_or(PolyError::Overflow)
}

/// Column-style Hermite normal form: `(H, U)` with `H = A·U`, `U`
/// unimodular, and `H` in column echelon form: the first `r` columns
/// (`r` = rank) are non-zero, column `j` has its first non-zero entry (the
/// pivot, positive) in row `p_j` with `p_0 < p_1 < ...`, every entry left of
/// a pivot in the pivot's row lies in `[0, pivot)`, and the remaining
/// columns are zero.
pub fn hnf_col(a: &IntMatrix) -> PolyResult<(IntMatrix, IntMatrix)> {
    let mut h = a.clone();
    let n = a.cols;
    let mut u = IntMatrix::identity(n);
    let mut pivot = 0;
    for r in 0..a.rows {
        if pivot == n {
            break;
        }
        loop {
            let mut best: Option<usize> = None;
            let mut count = 0;
            for j in pivot..n {
                let v = h.get(r, j);
                if v != 0 {
                    count += 1;
                    if best.is_none_or(|b| v.unsigned_abs() < h.get(r, b).unsigned_abs()) {
                        best = Some(j);
                    }
                }
            }
            let Some(b) = best else { break };
            if count > 1 {
                let bv = h.get(r, b);
                for j in pivot..n {
                    let v = h.get(r, j);
                    if j != b && v != 0 {
                        let q = ck_neg(ck_div(v, bv)?)?;
                        h.add_col(j, b, q)?;
                        u.add_col(j, b, q)?;
                    }
                }
                continue;
            }
            h.swap_cols(b, pivot);
            u.swap_cols(b, pivot);
            if h.get(r, pivot) < 0 {
                h.neg_col(pivot)?;
                u.neg_col(pivot)?;
            }
            let p = h.get(r, pivot);
            for j in 0..pivot {
                let q = ck_neg(h.get(r, j).div_euclid(p))?;
                h.add_col(j, pivot, q)?;
                u.add_col(j, pivot, q)?;
            }
            pivot += 1;
            break;
        }
    }
    Ok((h, u))
}

/// Row-style Hermite normal form: `(H, U)` with `H = U·A`, `U` unimodular
/// and `H` in row echelon form (the transpose of [`hnf_col`] of the
/// transpose): positive pivots, entries above a pivot in `[0, pivot)`, zero
/// rows last.
pub fn hnf_row(a: &IntMatrix) -> PolyResult<(IntMatrix, IntMatrix)> {
    let (h, u) = hnf_col(&a.transpose())?;
    Ok((h.transpose(), u.transpose()))
}

/// Smith normal form: `(S, U, V)` with `S = U·A·V`, `U` and `V` unimodular,
/// `S` diagonal with non-negative entries, each dividing the next, zeros
/// last.
pub(crate) fn snf(a: &IntMatrix) -> PolyResult<(IntMatrix, IntMatrix, IntMatrix)> {
    let (m, n) = (a.rows, a.cols);
    let mut s = a.clone();
    let mut u = IntMatrix::identity(m);
    let mut v = IntMatrix::identity(n);
    for t in 0..m.min(n) {
        loop {
            // Smallest non-zero entry of the trailing block goes to (t, t).
            let mut best: Option<(usize, usize)> = None;
            for r in t..m {
                for c in t..n {
                    let x = s.get(r, c);
                    if x != 0
                        && best
                            .is_none_or(|(br, bc)| x.unsigned_abs() < s.get(br, bc).unsigned_abs())
                    {
                        best = Some((r, c));
                    }
                }
            }
            let Some((br, bc)) = best else {
                return Ok((s, u, v));
            };
            s.swap_rows(t, br);
            u.swap_rows(t, br);
            s.swap_cols(t, bc);
            v.swap_cols(t, bc);
            let p = s.get(t, t);
            let mut clean = true;
            for r in t + 1..m {
                let x = s.get(r, t);
                if x != 0 {
                    let q = ck_neg(ck_div(x, p)?)?;
                    s.add_row(r, t, q)?;
                    u.add_row(r, t, q)?;
                    clean &= s.get(r, t) == 0;
                }
            }
            for c in t + 1..n {
                let x = s.get(t, c);
                if x != 0 {
                    let q = ck_neg(ck_div(x, p)?)?;
                    s.add_col(c, t, q)?;
                    v.add_col(c, t, q)?;
                    clean &= s.get(t, c) == 0;
                }
            }
            if !clean {
                continue;
            }
            // Divisibility: fold a row with a non-multiple into row t.
            // (`i64::MIN % -1` is 0 mathematically; `checked_rem` reports it as None.)
            let bad = (t + 1..m)
                .find(|&r| (t + 1..n).any(|c| s.get(r, c).checked_rem(p).unwrap_or(0) != 0));
            if let Some(r) = bad {
                s.add_row(t, r, 1)?;
                u.add_row(t, r, 1)?;
                continue;
            }
            if p < 0 {
                s.neg_row(t)?;
                u.neg_row(t)?;
            }
            break;
        }
    }
    Ok((s, u, v))
}

/// Completes linearly independent integer vectors (all of the same length
/// `n`) to a unimodular `n x n` matrix whose first columns are exactly the
/// given vectors, in order. `None` when the vectors are linearly dependent,
/// too many, or not primitive as a set (their lattice is not the
/// intersection of `Z^n` with their rational span, so no completion exists).
pub fn complete_to_unimodular(vectors: &[Vec<i64>]) -> PolyResult<Option<IntMatrix>> {
    let k = vectors.len();
    let Some(n) = vectors.first().map(Vec::len) else {
        return Ok(None);
    };
    if k > n {
        return Ok(None);
    }
    // X^T · W = [L | 0] with L lower triangular k x k.
    let xt = IntMatrix::from_rows(vectors, n)?;
    let (h, w) = hnf_col(&xt)?;
    for i in 0..k {
        // L must be unimodular: k pivots, all equal to 1, on the diagonal.
        if h.get(i, i) != 1 {
            return Ok(None);
        }
    }
    // X = (W^{-1})^T · [L^T; 0], so Q = (W^{-1})^T has X = Q[:, ..k]·L^T and
    // [X | Q[:, k..]] = Q · diag(L^T, I) is unimodular.
    let Some(winv) = w.unimodular_inverse()? else {
        return Err(PolyError::Solver(
            "internal: Hermite transform is not unimodular".into(),
        ));
    };
    let q = winv.transpose();
    let mut out = IntMatrix::zeros(n, n);
    for (c, x) in vectors.iter().enumerate() {
        for (r, val) in x.iter().enumerate() {
            out.set(r, c, *val);
        }
    }
    for c in k..n {
        for r in 0..n {
            out.set(r, c, q.get(r, c));
        }
    }
    if out.determinant()?.abs() != 1 {
        return Err(PolyError::Solver(
            "internal: completed basis is not unimodular".into(),
        ));
    }
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::simplex::proptest_cases;
    use crate::util::rng::Rng;

    fn mat(rows: &[&[i64]]) -> IntMatrix {
        let cols = rows.first().map_or(0, |r| r.len());
        let rows: Vec<Vec<i64>> = rows.iter().map(|r| r.to_vec()).collect();
        IntMatrix::from_rows(&rows, cols).expect("rectangular")
    }

    fn random(rng: &mut Rng, rows: usize, cols: usize, lim: i64) -> IntMatrix {
        let mut m = IntMatrix::zeros(rows, cols);
        for r in 0..rows {
            for c in 0..cols {
                m.set(r, c, rng.range(-lim, lim));
            }
        }
        m
    }

    /// Determinant by cofactor expansion along the first row (independent
    /// of Bareiss), in `i128`.
    fn cofactor_det(m: &IntMatrix) -> i128 {
        let n = m.n_rows();
        if n == 0 {
            return 1;
        }
        let mut total = 0i128;
        for c in 0..n {
            let minor_rows: Vec<Vec<i64>> = (1..n)
                .map(|r| (0..n).filter(|&j| j != c).map(|j| m.get(r, j)).collect())
                .collect();
            let minor = IntMatrix::from_rows(&minor_rows, n - 1).expect("square");
            let sign = if c % 2 == 0 { 1 } else { -1 };
            total += sign * m.get(0, c) as i128 * cofactor_det(&minor);
        }
        total
    }

    fn is_unimodular(m: &IntMatrix) -> bool {
        m.is_square() && cofactor_det(m).abs() == 1
    }

    /// Checks the column-style HNF shape described on [`hnf_col`].
    fn check_hnf_col_shape(h: &IntMatrix) -> usize {
        let mut last_pivot_row: Option<usize> = None;
        let mut rank = 0;
        for c in 0..h.n_cols() {
            let first = (0..h.n_rows()).find(|&r| h.get(r, c) != 0);
            match first {
                None => {
                    // Zero columns come last.
                    for c2 in c..h.n_cols() {
                        assert!((0..h.n_rows()).all(|r| h.get(r, c2) == 0), "{h}");
                    }
                    return rank;
                }
                Some(p) => {
                    assert!(last_pivot_row.is_none_or(|l| p > l), "{h}");
                    let pv = h.get(p, c);
                    assert!(pv > 0, "{h}");
                    for j in 0..c {
                        let x = h.get(p, j);
                        assert!(0 <= x && x < pv, "{h}");
                    }
                    last_pivot_row = Some(p);
                    rank += 1;
                }
            }
        }
        rank
    }

    #[test]
    fn gcd_lcm_by_hand() {
        assert_eq!(gcd(12, -18), Ok(6));
        assert_eq!(gcd(0, 0), Ok(0));
        assert_eq!(gcd(0, -7), Ok(7));
        assert_eq!(gcd(i64::MIN, 0), Err(PolyError::Overflow));
        assert_eq!(gcd(i64::MIN, 6), Ok(2));
        assert_eq!(lcm(4, -6), Ok(12));
        assert_eq!(lcm(0, 5), Ok(0));
        assert_eq!(lcm(i64::MAX, 2), Err(PolyError::Overflow));
    }

    #[test]
    fn normal_forms_by_hand() {
        let a = mat(&[&[2, 4, 4], &[-6, 6, 12], &[10, -4, -16]]);
        assert_eq!(a.determinant(), Ok(cofactor_det(&a) as i64));
        let (s, u, v) = snf(&a).expect("small");
        // Known Smith form of this matrix: diag(2, 6, 12).
        assert_eq!(s, mat(&[&[2, 0, 0], &[0, 6, 0], &[0, 0, 12]]));
        assert_eq!(u.checked_mul(&a).and_then(|x| x.checked_mul(&v)), Ok(s));
        // The row (2, 4): column HNF is (2, 0), kernel spanned by (-2, 1).
        let r = mat(&[&[2, 4]]);
        let (h, u) = hnf_col(&r).expect("small");
        assert_eq!(h, mat(&[&[2, 0]]));
        assert_eq!(r.checked_mul(&u), Ok(h));
        let k = r.kernel_basis().expect("small");
        assert_eq!(k.len(), 1);
        assert!(k[0] == vec![-2, 1] || k[0] == vec![2, -1]);
        // Inverse of [[2, 1], [1, 1]] is [[1, -1], [-1, 2]].
        let m = mat(&[&[2, 1], &[1, 1]]);
        let inv = m.inverse().expect("small").expect("regular");
        let want = [[1, -1], [-1, 2]];
        for r in 0..2 {
            for c in 0..2 {
                assert_eq!(inv[r][c], Rat::from_int(want[r][c]));
            }
        }
        assert_eq!(mat(&[&[1, 2], &[2, 4]]).inverse(), Ok(None));
        assert_eq!(mat(&[&[1, 2], &[2, 4]]).rank(), Ok(1));
        // Completion: (1, 0) of seed 001 §4.1.1 completes; (2, 0) does not.
        let q = complete_to_unimodular(&[vec![1, 0]])
            .expect("small")
            .expect("primitive");
        assert_eq!(q.col(0), vec![1, 0]);
        assert!(is_unimodular(&q));
        assert_eq!(complete_to_unimodular(&[vec![2, 0]]), Ok(None));
        assert_eq!(complete_to_unimodular(&[vec![1, 2], vec![2, 4]]), Ok(None));
        let q = complete_to_unimodular(&[vec![-98, 1], vec![1, 0]])
            .expect("small")
            .expect("basis");
        assert_eq!(q, mat(&[&[-98, 1], &[1, 0]]));
    }

    #[test]
    fn huge_entries_overflow_instead_of_lying() {
        let m = i64::MAX;
        let a = mat(&[&[m, m - 1, 3], &[m - 2, 5, m - 7], &[7, m - 3, m]]);
        assert_eq!(a.determinant(), Err(PolyError::Overflow));
        assert_eq!(a.checked_mul(&a), Err(PolyError::Overflow));
        let b = mat(&[&[m, m - 1], &[m - 3, m - 5]]);
        assert!(matches!(snf(&b), Err(PolyError::Overflow) | Ok(_)));
        if let Ok((s, u, v)) = snf(&b) {
            // When it does not overflow, the identity must hold exactly.
            assert_eq!(u.checked_mul(&b).and_then(|x| x.checked_mul(&v)), Ok(s));
        }
        assert_eq!(
            mat(&[&[i64::MIN, 0], &[0, 1]]).checked_sub(&mat(&[&[1, 0], &[0, 0]])),
            Err(PolyError::Overflow)
        );
    }

    /// Random matrices (5 000 cases by default, times
    /// `POLYFOLD_PROPTEST_CASES`): Bareiss determinant against cofactor
    /// expansion, HNF and SNF identities and shapes, kernel vectors,
    /// inverses, rank.
    #[test]
    fn random_matrix_identities() {
        let cases = proptest_cases(5000);
        let mut rng = Rng::new(0x4A7);
        for case in 0..cases {
            let rows = rng.range(1, 4) as usize;
            let cols = rng.range(1, 5) as usize;
            let mut a = random(&mut rng, rows, cols, 4);
            if rng.chance(1, 4) && rows > 1 {
                // Force a dependent row now and then.
                for c in 0..cols {
                    let v = a.get(0, c) * 2 - a.get(1.min(rows - 1), c);
                    a.set(rows - 1, c, v);
                }
            }
            let ctx = format!("case {case}: {a}");
            // HNF column style.
            let (h, u) = hnf_col(&a).expect(&ctx);
            assert!(is_unimodular(&u), "{ctx}");
            assert_eq!(a.checked_mul(&u).as_ref(), Ok(&h), "{ctx}");
            let rank = check_hnf_col_shape(&h);
            assert_eq!(a.rank(), Ok(rank), "{ctx}");
            // HNF row style.
            let (hr, ur) = hnf_row(&a).expect(&ctx);
            assert!(is_unimodular(&ur), "{ctx}");
            assert_eq!(ur.checked_mul(&a).as_ref(), Ok(&hr), "{ctx}");
            assert_eq!(check_hnf_col_shape(&hr.transpose()), rank, "{ctx}");
            // Kernel.
            let k = a.kernel_basis().expect(&ctx);
            assert_eq!(k.len(), cols - rank, "{ctx}");
            for v in &k {
                assert!(a.mul_vec(v).expect(&ctx).iter().all(|x| *x == 0), "{ctx}");
            }
            if !k.is_empty() {
                let km = IntMatrix::from_cols(&k, cols).expect(&ctx);
                assert_eq!(km.rank(), Ok(k.len()), "{ctx}");
            }
            // SNF.
            let (s, su, sv) = snf(&a).expect(&ctx);
            assert!(is_unimodular(&su) && is_unimodular(&sv), "{ctx}");
            assert_eq!(
                su.checked_mul(&a).and_then(|x| x.checked_mul(&sv)).as_ref(),
                Ok(&s),
                "{ctx}"
            );
            let mut prev: Option<i64> = None;
            for r in 0..rows {
                for c in 0..cols {
                    if r != c {
                        assert_eq!(s.get(r, c), 0, "{ctx}");
                    }
                }
                if r < cols {
                    let d = s.get(r, r);
                    assert!(d >= 0, "{ctx}");
                    if let Some(p) = prev {
                        assert!(if p == 0 { d == 0 } else { d % p == 0 }, "{ctx}");
                    }
                    prev = Some(d);
                }
            }
            assert_eq!(
                (0..rows.min(cols)).filter(|&i| s.get(i, i) != 0).count(),
                rank,
                "{ctx}"
            );
            // Square: determinant and inverse.
            let n = rng.range(1, 4) as usize;
            let sq = random(&mut rng, n, n, 4);
            let d = cofactor_det(&sq);
            assert_eq!(sq.determinant(), Ok(d as i64), "{sq}");
            match sq.inverse().expect("small") {
                None => assert_eq!(d, 0, "{sq}"),
                Some(inv) => {
                    assert_ne!(d, 0, "{sq}");
                    for r in 0..n {
                        for c in 0..n {
                            let mut acc = Rat::zero();
                            for (k, inv_row) in inv.iter().enumerate() {
                                let t = Rat::from_int(sq.get(r, k))
                                    .checked_mul(inv_row[c])
                                    .expect("small");
                                acc = acc.checked_add(t).expect("small");
                            }
                            let want = if r == c { Rat::one() } else { Rat::zero() };
                            assert_eq!(acc, want, "{sq}");
                        }
                    }
                }
            }
        }
    }

    /// Random unimodular completions (3 000 cases by default, times
    /// `POLYFOLD_PROPTEST_CASES`): the first `k` columns of a random
    /// unimodular matrix always complete; random vectors complete exactly
    /// when the gcd of their `k x k` minors is 1 (checked for `k = 1` and
    /// `k = n`).
    #[test]
    fn random_unimodular_completion() {
        let cases = proptest_cases(3000);
        let mut rng = Rng::new(0xC0B1);
        for case in 0..cases {
            let n = rng.range(1, 4) as usize;
            // A random unimodular matrix from random elementary operations.
            let mut w = IntMatrix::identity(n);
            for _ in 0..6 {
                let (a, b) = (rng.below(n), rng.below(n));
                if a != b {
                    w.add_col(a, b, rng.range(-2, 2)).expect("small");
                }
                if rng.chance(1, 3) {
                    w.swap_cols(a, b);
                }
            }
            let k = rng.range(1, n as i64) as usize;
            let vectors: Vec<Vec<i64>> = (0..k).map(|c| w.col(c)).collect();
            let ctx = format!("case {case}: {vectors:?}");
            let q = complete_to_unimodular(&vectors).expect(&ctx).expect(&ctx);
            assert!(is_unimodular(&q), "{ctx}");
            for (c, v) in vectors.iter().enumerate() {
                assert_eq!(&q.col(c), v, "{ctx}");
            }
            // Random single vector: completes iff its entries have gcd 1.
            let v: Vec<i64> = (0..n).map(|_| rng.range(-6, 6)).collect();
            let g = v.iter().fold(0, |g, x| gcd(g, *x).expect("small"));
            let got = complete_to_unimodular(std::slice::from_ref(&v)).expect("small");
            assert_eq!(got.is_some(), g == 1, "{v:?}");
            if let Some(q) = got {
                assert!(is_unimodular(&q) && q.col(0) == v, "{v:?}");
            }
            // n random vectors: complete iff they already form a unimodular matrix.
            let vs: Vec<Vec<i64>> = (0..n)
                .map(|_| (0..n).map(|_| rng.range(-2, 2)).collect())
                .collect();
            let m = IntMatrix::from_cols(&vs, n).expect("square");
            let got = complete_to_unimodular(&vs).expect("small");
            assert_eq!(got.is_some(), cofactor_det(&m).abs() == 1, "{vs:?}");
        }
    }
}
