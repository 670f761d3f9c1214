//! Modular mappings σ(c) = (M·c) mod b, component-wise, with moduli that may
//! depend affinely on the parameters.

use std::fmt;

use crate::poly::error::{PolyResult, add, mul};
use crate::poly::isl_print::format_affine;

/// `Σ coeffs[q]·param_q + constant`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ParamAffine {
    pub coeffs: Vec<i64>,
    pub constant: i64,
}

impl ParamAffine {
    /// An affine expression of the IR over the parameters (a declared
    /// extent).
    pub fn from_aff(aff: &crate::ir::AffExpr) -> ParamAffine {
        ParamAffine {
            coeffs: aff.coeffs.clone(),
            constant: aff.constant,
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
        }
    }

    pub fn is_constant(&self) -> bool {
        self.coeffs.iter().all(|c| *c == 0)
    }

    /// The value for concrete parameter values.
    pub fn eval(&self, params: &[i64]) -> PolyResult<i64> {
        let mut acc = self.constant;
        for (c, v) in self.coeffs.iter().zip(params) {
            acc = add(acc, mul(*c, *v)?)?;
        }
        Ok(acc)
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
        crate::util::c_text::affine_text(&terms, self.constant)
    }
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
                || d.modulus.coeffs.iter().filter(|c| **c != 0).count()
                    + usize::from(d.modulus.constant != 0)
                    <= 1
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
        };
        assert_eq!(m.to_text(&names), "2 * N0 - M - 3");
        assert_eq!(
            ParamAffine {
                coeffs: vec![0, 0],
                constant: 7
            }
            .to_text(&names),
            "7"
        );
        assert_eq!(
            ParamAffine {
                coeffs: vec![-3, 0],
                constant: 0
            }
            .to_text(&names),
            "-3 * N0"
        );
    }
}
