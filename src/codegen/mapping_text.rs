//! The text of a storage mapping as the reports show it: a modular
//! mapping (`y[c0][c1] -> y[c0 % N][c1 % 2]`), a packed triangle
//! (`sum_t[c0][c1] -> sum_t[c0 * (2 * N - 1 - c0) / 2 + c1]`) and an SMO
//! mapping and size. Their moduli and indices are the C expressions of
//! [`crate::codegen::text`]; `mapping` computes, this module prints.

use std::fmt;

use crate::codegen::text::{param_text, triangle_index_text};
use crate::mapping::layout::{ArrayLayout, DimLayout};
use crate::mapping::modular::{ModularMapping, ParamAffine};
use crate::mapping::smo::{ArrayMapping, ConflictSpec};
use crate::poly::isl_print::format_affine;

impl fmt::Display for ModularMapping {
    /// `y[c0][c1] -> y[c0 % N][c1 % 2]`; a dimension folded to one cell
    /// prints `[0]` (`sum[c0] -> sum[0]`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = (0..self.rank()).map(|p| format!("c{p}")).collect();
        write!(f, "{}", self.array)?;
        for n in &names {
            write!(f, "[{n}]")?;
        }
        write!(f, " -> {}", self.array)?;
        for d in &self.dims {
            // The row minus its shift, over the cells then the parameters.
            let coeffs: Vec<i64> = d
                .coeffs
                .iter()
                .copied()
                .chain(d.shift.coeffs.iter().map(|c| -c))
                .collect();
            let all_names: Vec<String> = names.iter().chain(&self.params).cloned().collect();
            let e = format_affine(&coeffs, -d.shift.constant, &all_names);
            let terms =
                coeffs.iter().filter(|c| **c != 0).count() + usize::from(d.shift.constant != 0);
            let e = if terms > 1 { format!("({e})") } else { e };
            let e = if d.is_divided() {
                format!("({e} / {})", d.divisor)
            } else {
                e
            };
            // `x % 1` is 0: the dimension keeps one cell.
            if d.modulus.is_constant() && d.modulus.constant == 1 {
                write!(f, "[0]")?;
                continue;
            }
            let m = param_text(&d.modulus, &self.params);
            // `c0 % 2 * N` would read as `(c0 % 2) * N`: only a number or
            // a lone parameter goes without parentheses.
            let m = if d.modulus.is_constant()
                || (d.modulus.is_affine()
                    && d.modulus.constant == 0
                    && d.modulus.coeffs.iter().filter(|c| **c != 0).count() == 1
                    && d.modulus.coeffs.iter().all(|c| *c == 0 || *c == 1))
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

/// With a packed triangle in `layout`, the storage of `array` as text over the cell
/// coordinates, e.g.
/// `sum_t[c0][c1] -> sum_t[c0 * (2 * N - 1 - c0) / 2 + c1]` (the
/// mapping the certificate carries is the identity: the packing
/// renames cells); `None` without one.
pub(crate) fn packed_mapping_text(
    layout: &ArrayLayout,
    array: &str,
    params: &[String],
) -> Option<String> {
    let names: Vec<String> = (0..layout.dims.len()).map(|p| format!("c{p}")).collect();
    let mut right = array.to_string();
    let mut packed = false;
    for (p, dim) in layout.dims.iter().enumerate() {
        match dim {
            DimLayout::Packed {
                partner,
                triangle,
                extent,
            } => {
                packed = true;
                let (a, b) = (&names[p], names.get(*partner)?);
                let index = triangle_index_text(*triangle, a, b, extent, params);
                right.push_str(&format!("[{index}]"));
            }
            DimLayout::Dropped => {}
            _ => right.push_str(&format!("[{}]", names[p])),
        }
    }
    let left: String = std::iter::once(array.to_string())
        .chain(names.iter().map(|n| format!("[{n}]")))
        .collect();
    packed.then(|| format!("{left} -> {right}"))
}

/// Text of one statement's mapping in `array`, e.g. `A0[(-x0 + x2) mod (N0 + 1)]`.
pub(crate) fn mapping_text(
    spec: &ConflictSpec,
    array: &ArrayMapping,
    name: &str,
    s: usize,
) -> String {
    let dims: Vec<String> = (0..spec.n_dim).map(|d| format!("x{d}")).collect();
    let parts: Vec<String> = array
        .levels
        .iter()
        .zip(&array.moduli)
        .map(|(level, m)| {
            let h = &level[s];
            format!(
                "({}) mod ({})",
                format_affine(&h.coeffs, h.offset, &dims),
                param_text(m, &spec.params)
            )
        })
        .collect();
    if parts.is_empty() {
        // No level: every value of the statement goes to one cell.
        return format!("{name}[0]");
    }
    format!("{name}[{}]", parts.join(", "))
}

/// The size of an array as a product of its moduli, e.g. `(N0 + 1)*(N0)`.
pub(crate) fn size_text(params: &[String], moduli: &[ParamAffine]) -> String {
    if moduli.is_empty() {
        return "1".into();
    }
    moduli
        .iter()
        .map(|m| format!("({})", param_text(m, params)))
        .collect::<Vec<_>>()
        .join("*")
}

#[cfg(test)]
mod tests {
    use crate::mapping::modular::{MappedDim, ModularMapping, ParamAffine};

    /// The mapping's text reads as C would: `c0 % (2 * N)`, not
    /// `c0 % 2 * N`; a removed stride divides before the modulo.
    #[test]
    fn mappings_print_with_their_precedence() {
        let n = |k: i64| ParamAffine {
            coeffs: vec![k],
            constant: 0,
            den: 1,
        };
        let m = ModularMapping {
            array: "T".into(),
            params: vec!["N".into()],
            dims: vec![
                MappedDim::new(vec![1, 0], n(2)),
                MappedDim {
                    coeffs: vec![0, 1],
                    modulus: n(1),
                    divisor: 2,
                    shift: ParamAffine::constant(1, 1),
                },
                MappedDim {
                    coeffs: vec![1, 1],
                    modulus: ParamAffine::constant(1, 3),
                    divisor: 3,
                    shift: ParamAffine::constant(1, 0),
                },
                MappedDim {
                    coeffs: vec![1, 1],
                    modulus: n(1),
                    divisor: 1,
                    shift: ParamAffine {
                        coeffs: vec![1],
                        constant: -1,
                        den: 1,
                    },
                },
            ],
        };
        assert_eq!(
            m.to_string(),
            "T[c0][c1] -> T[c0 % (2 * N)][((c1 - 1) / 2) % N][((c0 + c1) / 3) % 3][(c0 + c1 - N + 1) % N]"
        );
        // Every integer is 0 modulo 1: the one-cell dimension reads `[0]`.
        let one = ModularMapping {
            array: "sum".into(),
            params: vec!["N".into()],
            dims: vec![
                MappedDim::new(vec![1, 0], ParamAffine::constant(1, 1)),
                MappedDim::new(vec![0, 1], ParamAffine::constant(1, 3)),
            ],
        };
        assert_eq!(one.to_string(), "sum[c0][c1] -> sum[0][c1 % 3]");
    }
}
