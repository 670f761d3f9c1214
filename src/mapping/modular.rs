//! Modular mappings σ(c) = (M·c) mod b, component-wise, with moduli that may
//! depend affinely on the parameters.

use crate::poly::error::{PolyResult, add, mul};

/// `⌊(Σ coeffs[q]·param_q + constant) / den⌋`: affine in the parameters
/// when `den` is 1 (every declared extent, every modulus but the lifted
/// ones), quasi-affine otherwise (reg_detect's `(N + 1) / 2`).
///
/// With `den > 1` the coefficients and the constant are not the value's:
/// code that builds linear constraints from them must treat the modulus as
/// a variable `b` with `den·b <= Σ coeffs·N + constant <= den·b + den - 1`
/// (see [`ParamAffine::floor_rows`]) or refuse it. C's `/` truncates, so
/// the text is the floor only where the numerator is non-negative: such a
/// modulus is emitted only where it is proven at least 1.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ParamAffine {
    pub coeffs: Vec<i64>,
    pub constant: i64,
    /// At least 1; coprime with the gcd of `coeffs` and `constant` (see
    /// [`ParamAffine::quasi`]).
    pub den: i64,
}

impl ParamAffine {
    /// An affine expression of the IR over the parameters (a declared
    /// extent).
    pub(crate) fn from_aff(aff: &crate::ir::AffExpr) -> ParamAffine {
        ParamAffine {
            coeffs: aff.coeffs.clone(),
            constant: aff.constant,
            den: 1,
        }
    }

    /// The declared extents of `array`, affine where they are.
    pub(crate) fn extents_of(array: &crate::ir::Array) -> Vec<Option<ParamAffine>> {
        array
            .extents
            .iter()
            .map(|e| e.aff.as_ref().map(ParamAffine::from_aff))
            .collect()
    }

    pub fn constant(n_param: usize, value: i64) -> ParamAffine {
        ParamAffine {
            coeffs: vec![0; n_param],
            constant: value,
            den: 1,
        }
    }

    /// `⌊(Σ coeffs[q]·param_q + constant) / den⌋` in its reduced form: the
    /// common factor of the numerator and `den` divided out, so that an
    /// affine value has `den` 1 and a constant one is folded.
    pub fn quasi(coeffs: Vec<i64>, constant: i64, den: i64) -> ParamAffine {
        assert!(den >= 1, "a quasi-affine denominator is positive");
        if coeffs.iter().all(|c| *c == 0) {
            return ParamAffine {
                coeffs,
                constant: constant.div_euclid(den),
                den: 1,
            };
        }
        let g = coeffs
            .iter()
            .fold(constant.unsigned_abs(), |g, c| gcd_u64(g, c.unsigned_abs()));
        let g = gcd_u64(g, den.unsigned_abs()) as i64;
        ParamAffine {
            coeffs: coeffs.iter().map(|c| c / g).collect(),
            constant: constant / g,
            den: den / g,
        }
    }

    pub fn is_constant(&self) -> bool {
        self.den == 1 && self.coeffs.iter().all(|c| *c == 0)
    }

    /// Whether the value is the affine numerator itself (`den` is 1).
    pub(crate) fn is_affine(&self) -> bool {
        self.den == 1
    }

    /// This plus `k` (the numerator grows by `k·den`).
    pub fn plus(&self, k: i64) -> PolyResult<ParamAffine> {
        Ok(ParamAffine {
            coeffs: self.coeffs.clone(),
            constant: add(self.constant, mul(k, self.den)?)?,
            den: self.den,
        })
    }

    /// The value for concrete parameter values.
    pub fn eval(&self, params: &[i64]) -> PolyResult<i64> {
        let mut acc = self.constant;
        for (c, v) in self.coeffs.iter().zip(params) {
            acc = add(acc, mul(*c, *v)?)?;
        }
        Ok(acc.div_euclid(self.den))
    }

    /// The two rows that define a variable `b` as this value, over a set
    /// whose parameters are its first columns, `b` at column `b_col` and
    /// the constant last (`width` columns in all): `numerator - den·b >= 0`
    /// and `den·b + den - 1 - numerator >= 0`. For `den` 1 they make `b`
    /// equal to the numerator.
    pub(crate) fn floor_rows(&self, width: usize, b_col: usize) -> [Vec<i64>; 2] {
        let last = width - 1;
        let mut lower = vec![0i64; width];
        for (q, c) in self.coeffs.iter().enumerate() {
            lower[q] = *c;
        }
        lower[last] = self.constant;
        lower[b_col] = -self.den;
        let mut upper: Vec<i64> = lower.iter().map(|v| -v).collect();
        upper[last] += self.den - 1;
        [lower, upper]
    }
}

fn gcd_u64(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd_u64(b, a % b) }
}

/// One dimension of a mapped array: `(Σ coeffs[p]·c_p) mod modulus`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MappedDim {
    pub coeffs: Vec<i64>,
    pub modulus: ParamAffine,
    /// A shift and a stride removed before folding (seed 004's
    /// compaction): the location is `((coeffs·c - shift(N)) / divisor) mod
    /// modulus`, `shift` affine in the parameters. Every accessed cell has
    /// `coeffs·c ≡ shift(N) (mod divisor)` (proven on the accesses by the
    /// layout, checked by the trace), so the division is exact, and two
    /// such cells share a location exactly when `coeffs·(c - c') ≡ 0 (mod
    /// divisor·modulus)`: the certificate is the one of that undivided,
    /// unshifted row ([`MappedDim::undivided`]). The shift moves the
    /// locations of a row by the same amount (a bijection of the residues)
    /// and lets the accesses of a skewed write read as its iterators
    /// (`T[i - j + m - 1][j]` -> `T[i][j]`, no wrap). 1 and 0 for a plain
    /// modular row.
    pub divisor: i64,
    pub shift: ParamAffine,
}

impl MappedDim {
    /// The plain row `(coeffs·c) mod modulus`.
    pub fn new(coeffs: Vec<i64>, modulus: ParamAffine) -> MappedDim {
        let n_param = modulus.coeffs.len();
        MappedDim {
            coeffs,
            modulus,
            divisor: 1,
            shift: ParamAffine::constant(n_param, 0),
        }
    }

    pub(crate) fn is_divided(&self) -> bool {
        self.divisor != 1
    }

    pub(crate) fn is_shifted(&self) -> bool {
        self.shift.constant != 0 || self.shift.coeffs.iter().any(|c| *c != 0)
    }

    /// The row with the same collisions over the cells of the stride
    /// lattice: `(coeffs·c) mod (divisor·modulus)`, no shift. `None` when
    /// the modulus is quasi-affine (`divisor·⌊a/d⌋` is not a floor of an
    /// affine form) or on overflow.
    pub(crate) fn undivided(&self) -> Option<MappedDim> {
        if !self.is_divided() {
            return Some(MappedDim::new(self.coeffs.clone(), self.modulus.clone()));
        }
        if !self.modulus.is_affine() || self.divisor < 1 {
            return None;
        }
        let g = self.divisor;
        let coeffs = self
            .modulus
            .coeffs
            .iter()
            .map(|c| c.checked_mul(g))
            .collect::<Option<Vec<i64>>>()?;
        Some(MappedDim::new(
            self.coeffs.clone(),
            ParamAffine {
                coeffs,
                constant: self.modulus.constant.checked_mul(g)?,
                den: 1,
            },
        ))
    }

    /// The location's coordinate of `value = coeffs·c` before the modulo,
    /// for the parameter values `params`: `(value - shift) / divisor`,
    /// `None` when `value` is off the stride lattice (or on overflow).
    pub fn divide(&self, value: i64, params: &[i64]) -> Option<i64> {
        let shifted = value.checked_sub(self.shift.eval(params).ok()?)?;
        (shifted.rem_euclid(self.divisor) == 0).then(|| shifted.div_euclid(self.divisor))
    }
}

/// A modular mapping of one array (seed 001 §2: σ(c) = M·c mod b).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ModularMapping {
    pub array: String,
    pub params: Vec<String>,
    pub dims: Vec<MappedDim>,
}

impl ModularMapping {
    /// The successive-modulo shape: `c_p mod b_p` for every axis `p`.
    pub fn axis(array: &str, params: &[String], moduli: Vec<ParamAffine>) -> ModularMapping {
        let rank = moduli.len();
        let dims = moduli
            .into_iter()
            .enumerate()
            .map(|(p, modulus)| {
                let mut coeffs = vec![0; rank];
                coeffs[p] = 1;
                MappedDim::new(coeffs, modulus)
            })
            .collect();
        ModularMapping {
            array: array.to_string(),
            params: params.to_vec(),
            dims,
        }
    }

    pub fn rank(&self) -> usize {
        self.dims.first().map_or(0, |d| d.coeffs.len())
    }

    /// Number of locations for concrete parameter values (product of moduli).
    pub fn size(&self, params: &[i64]) -> PolyResult<i64> {
        let mut size = 1i64;
        for d in &self.dims {
            size = mul(size, d.modulus.eval(params)?)?;
        }
        Ok(size)
    }

    /// Whether the matrix is the identity (an axis-aligned folding) and
    /// no row removes a stride.
    pub(crate) fn is_axis(&self) -> bool {
        self.dims.len() == self.rank()
            && self.dims.iter().all(|d| !d.is_divided() && !d.is_shifted())
            && self.dims.iter().enumerate().all(|(p, d)| {
                d.coeffs
                    .iter()
                    .enumerate()
                    .all(|(q, c)| *c == i64::from(p == q))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::ParamAffine;

    /// A row that removes a shift and a stride sends two cells of its
    /// lattice to one location exactly when its undivided, unshifted row
    /// does (the certificate's premise), by brute force over 2-D cells `c`
    /// with `2c0 - c1 ≡ shift (mod g)`, the shift `r + s·N` at N = 7, and
    /// refuses cells off the lattice.
    #[test]
    fn a_divided_row_collides_like_its_undivided_row_on_its_lattice() {
        use super::MappedDim;
        let params = [7i64];
        let mut pairs = 0;
        for g in 1..=4i64 {
            for r in 0..g {
                for slope in -1..=1i64 {
                    for b in 1..=5i64 {
                        let dim = MappedDim {
                            coeffs: vec![2, -1],
                            modulus: ParamAffine::constant(1, b),
                            divisor: g,
                            shift: ParamAffine {
                                coeffs: vec![slope],
                                constant: r,
                                den: 1,
                            },
                        };
                        let shift = r + slope * params[0];
                        let plain = dim.undivided().expect("affine");
                        assert_eq!(plain.modulus.eval(&params).unwrap(), g * b);
                        assert!(!plain.is_divided() && !plain.is_shifted());
                        let value = |c: (i64, i64)| 2 * c.0 - c.1;
                        let cells: Vec<(i64, i64)> = (-6..=6)
                            .flat_map(|x| (-6..=6).map(move |y| (x, y)))
                            .filter(|c| (value(*c) - shift).rem_euclid(g) == 0)
                            .collect();
                        for c in &cells {
                            assert_eq!(
                                dim.divide(value(*c), &params),
                                Some((value(*c) - shift) / g)
                            );
                            if g > 1 {
                                assert_eq!(dim.divide(value(*c) + 1, &params), None);
                            }
                        }
                        let at =
                            |c: (i64, i64)| dim.divide(value(c), &params).unwrap().rem_euclid(b);
                        for c in &cells {
                            for d in &cells {
                                let undivided =
                                    value(*c).rem_euclid(g * b) == value(*d).rem_euclid(g * b);
                                assert_eq!(at(*c) == at(*d), undivided, "{c:?} {d:?} g={g} b={b}");
                                pairs += 1;
                            }
                        }
                    }
                }
            }
        }
        assert!(pairs > 300_000, "{pairs}");
        // A quasi-affine modulus has no undivided row.
        let quasi = MappedDim {
            coeffs: vec![1],
            modulus: ParamAffine::quasi(vec![1], 1, 2),
            divisor: 2,
            shift: ParamAffine::constant(1, 0),
        };
        assert_eq!(quasi.undivided(), None);
    }

    #[test]
    fn quasi_affine_values_are_floors() {
        // (3N + 1) / 2 for N = 0..9, against integer division of the
        // non-negative numerator.
        let m = ParamAffine::quasi(vec![3], 1, 2);
        for n in 0..10i64 {
            assert_eq!(m.eval(&[n]).unwrap(), (3 * n + 1) / 2);
        }
        // Below zero the value is the floor, not C's truncation.
        assert_eq!(ParamAffine::quasi(vec![1], 0, 2).eval(&[-3]).unwrap(), -2);
        assert_eq!(m.plus(2).unwrap().eval(&[5]).unwrap(), 10);
    }
}
