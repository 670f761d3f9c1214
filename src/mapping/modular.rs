//! Modular mappings σ(c) = (M·c) mod b, component-wise, with moduli that may
//! depend affinely on the parameters.

use std::fmt;

use crate::poly::error::{PolyResult, add, mul};
use crate::poly::isl_print::format_affine;

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
    pub fn from_aff(aff: &crate::ir::AffExpr) -> ParamAffine {
        ParamAffine {
            coeffs: aff.coeffs.clone(),
            constant: aff.constant,
            den: 1,
        }
    }

    /// The declared extents of `array`, affine where they are.
    pub fn extents_of(array: &crate::ir::Array) -> Vec<Option<ParamAffine>> {
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
    pub fn is_affine(&self) -> bool {
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
    pub fn floor_rows(&self, width: usize, b_col: usize) -> [Vec<i64>; 2] {
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

    /// C text with the parameter names, e.g. `N + 1` or `2 * N - 3`
    /// (an explicit `*`, unlike isl's `2N`).
    pub fn to_text(&self, params: &[String]) -> String {
        let terms: Vec<(i64, String)> = self
            .coeffs
            .iter()
            .copied()
            .zip(params.iter().cloned())
            .collect();
        let numerator = crate::util::c_text::affine_text(&terms, self.constant);
        if self.den == 1 {
            return numerator;
        }
        let atomic =
            self.coeffs.iter().filter(|c| **c != 0).count() + usize::from(self.constant != 0) <= 1;
        if atomic {
            format!("{numerator} / {}", self.den)
        } else {
            format!("({numerator}) / {}", self.den)
        }
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
                MappedDim { coeffs, modulus }
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

    /// Whether the matrix is the identity (an axis-aligned folding).
    pub fn is_axis(&self) -> bool {
        self.dims.len() == self.rank()
            && self.dims.iter().enumerate().all(|(p, d)| {
                d.coeffs
                    .iter()
                    .enumerate()
                    .all(|(q, c)| *c == i64::from(p == q))
            })
    }
}

impl fmt::Display for ModularMapping {
    /// `y[c0][c1] -> y[c0 % N][c1 % 2]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = (0..self.rank()).map(|p| format!("c{p}")).collect();
        write!(f, "{}", self.array)?;
        for n in &names {
            write!(f, "[{n}]")?;
        }
        write!(f, " -> {}", self.array)?;
        for d in &self.dims {
            let e = format_affine(&d.coeffs, 0, &names);
            let m = d.modulus.to_text(&self.params);
            let e = if d.coeffs.iter().filter(|c| **c != 0).count() > 1 {
                format!("({e})")
            } else {
                e
            };
            let m = if d.modulus.is_constant()
                || (d.modulus.is_affine()
                    && d.modulus.coeffs.iter().filter(|c| **c != 0).count()
                        + usize::from(d.modulus.constant != 0)
                        <= 1)
            {
                m
            } else {
                format!("({m})")
            };
            write!(f, "[{e} % {m}]")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::ParamAffine;

    #[test]
    fn moduli_print_as_c() {
        let names = vec!["N0".to_string(), "M".to_string()];
        let m = ParamAffine {
            coeffs: vec![2, -1],
            constant: -3,
            den: 1,
        };
        assert_eq!(m.to_text(&names), "2 * N0 - M - 3");
        assert_eq!(
            ParamAffine {
                coeffs: vec![0, 0],
                constant: 7,
                den: 1,
            }
            .to_text(&names),
            "7"
        );
        assert_eq!(
            ParamAffine {
                coeffs: vec![-3, 0],
                constant: 0,
                den: 1,
            }
            .to_text(&names),
            "-3 * N0"
        );
        assert_eq!(
            ParamAffine::quasi(vec![1, 0], 1, 2).to_text(&names),
            "(N0 + 1) / 2"
        );
        assert_eq!(
            ParamAffine::quasi(vec![3, 0], 0, 2).to_text(&names),
            "3 * N0 / 2"
        );
        // Reduced: (2N + 4) / 2 is N + 2; a constant folds.
        assert_eq!(
            ParamAffine::quasi(vec![2, 0], 4, 2).to_text(&names),
            "N0 + 2"
        );
        assert_eq!(ParamAffine::quasi(vec![0, 0], 7, 2).to_text(&names), "3");
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
