//! Successive modulo (Lefebvre–Feautrier; seed 002 §3, seed 000 §2.1):
//! `b_p = 1 + max { d_p : d ∈ DS, d_0 = … = d_{p-1} = 0 }`, one axis at a
//! time, giving the mapping `c ↦ (c_0 mod b_0, …, c_{n-1} mod b_{n-1})`.
//!
//! The maxima are computed exactly for the known parameter values. A
//! symbolic modulus is *guessed* by fitting an affine function of the
//! parameters through exact maxima at neighbouring parameter values; the
//! guess is worth nothing until `certify` proves it for the whole context.
//! What this module does not do: it does not certify, and it does not derive
//! moduli for parameters without a known value.

use crate::poly::simplex::{IntResult, integer_max};
use crate::poly::{BasicSet, Budget, PolyError, PolyResult};

use super::modular::{ModularMapping, ParamAffine};
use crate::poly::enumerate::fix_params;
use crate::poly::project::eliminate_exists_where_exact;

/// The moduli found, numeric and (when the fit worked) symbolic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuccessiveResult {
    /// Moduli for the known parameter values.
    pub numeric: Vec<i64>,
    /// Affine moduli fitted through neighbouring parameter values, when every
    /// parameter has a value; still to be certified.
    pub symbolic: Option<Vec<ParamAffine>>,
}

impl SuccessiveResult {
    pub(crate) fn numeric_mapping(&self, array: &str, params: &[String]) -> ModularMapping {
        let moduli = self
            .numeric
            .iter()
            .map(|b| ParamAffine::constant(params.len(), *b))
            .collect();
        ModularMapping::axis(array, params, moduli)
    }

    pub(crate) fn symbolic_mapping(
        &self,
        array: &str,
        params: &[String],
    ) -> Option<ModularMapping> {
        self.symbolic
            .as_ref()
            .map(|m| ModularMapping::axis(array, params, m.clone()))
    }
}

/// The pieces of `ds` with the parameters fixed to `values`, simplified by
/// exact elimination of existentials, without obviously empty pieces and
/// duplicates. The integer points are exactly those of `ds` at `values`.
pub(crate) fn fix_and_simplify(ds: &[BasicSet], values: &[i64]) -> PolyResult<Vec<BasicSet>> {
    let mut out: Vec<BasicSet> = Vec::with_capacity(ds.len());
    for piece in ds {
        let mut q = piece.clone();
        fix_params(&mut q, values);
        let q = eliminate_exists_where_exact(&q)?;
        if !q.is_obviously_empty() && !out.contains(&q) {
            out.push(q);
        }
    }
    Ok(out)
}

/// Exact moduli for fixed parameter values.
pub fn moduli_for_values(
    ds: &[BasicSet],
    rank: usize,
    values: &[i64],
    budget: &mut Budget,
) -> PolyResult<Vec<i64>> {
    let fixed = fix_and_simplify(ds, values)?;
    successive_moduli(&fixed, rank, &[], None, budget)?
        .ok_or_else(|| PolyError::Solver("successive modulo ended without a cap".into()))
}

/// Successive modulo on a difference set already fixed at its parameter
/// values ([`fix_and_simplify`]) whose first `prefix.len()` moduli are
/// known (the same rows as a basis already measured): the remaining ones,
/// or `None` as soon as the product of the moduli reaches `cap` (a basis
/// that cannot beat `cap` cells is not measured to the end).
pub(crate) fn moduli_after_prefix(
    fixed: &[BasicSet],
    rank: usize,
    prefix: &[i64],
    cap: i64,
    budget: &mut Budget,
) -> PolyResult<Option<Vec<i64>>> {
    successive_moduli(fixed, rank, prefix, Some(cap), budget)
}

/// The moduli of successive modulo from row `prefix.len()` on (the first
/// ones given), each 1 + the maximum of its row where the earlier rows are
/// 0; with a `cap`, `None` once their product reaches it.
fn successive_moduli(
    fixed: &[BasicSet],
    rank: usize,
    prefix: &[i64],
    cap: Option<i64>,
    budget: &mut Budget,
) -> PolyResult<Option<Vec<i64>>> {
    let mut moduli = prefix.to_vec();
    let mut product: i64 = 1;
    let reached = |product: &mut i64, b: i64| -> PolyResult<bool> {
        let Some(cap) = cap else { return Ok(false) };
        *product = product.checked_mul(b).ok_or(PolyError::Overflow)?;
        Ok(*product >= cap)
    };
    for b in prefix {
        if reached(&mut product, *b)? {
            return Ok(None);
        }
    }
    let mut alive: Vec<BasicSet> = fixed.to_vec();
    for p in prefix.len()..rank {
        let mut best: i64 = 0;
        let mut next_alive = Vec::with_capacity(alive.len());
        for piece in &alive {
            let n_param = piece.space.n_param();
            let mut q = piece.clone();
            for j in 0..p {
                let mut row = q.zero_row();
                row[n_param + j] = 1;
                q.add_eq(row);
            }
            let mut objective = q.zero_row();
            objective[n_param + p] = 1;
            match integer_max(&q, &objective, budget)? {
                // Empty with d_0..d_{p-1} = 0: also empty for every later axis.
                IntResult::Infeasible => continue,
                IntResult::Unbounded => {
                    return Err(PolyError::Solver("the difference set is unbounded".into()));
                }
                IntResult::Optimal { value, .. } => best = best.max(value),
            }
            next_alive.push(piece.clone());
        }
        alive = next_alive;
        let b = best.checked_add(1).ok_or(PolyError::Overflow)?;
        if reached(&mut product, b)? {
            return Ok(None);
        }
        moduli.push(b);
    }
    Ok(Some(moduli))
}

/// Successive modulo for the known parameter `values`, with an affine fit
/// of each modulus in the parameters.
pub fn successive_modulo(
    ds: &[BasicSet],
    rank: usize,
    values: &[i64],
    budget: &mut Budget,
) -> PolyResult<SuccessiveResult> {
    let numeric = moduli_for_values(ds, rank, values, budget)?;
    fit_moduli(ds, rank, values, numeric, budget)
}

/// The affine fit of moduli already computed for `values` (see
/// [`successive_modulo`]).
pub(crate) fn fit_moduli(
    ds: &[BasicSet],
    rank: usize,
    values: &[i64],
    numeric: Vec<i64>,
    budget: &mut Budget,
) -> PolyResult<SuccessiveResult> {
    let n_param = values.len();
    let mut slopes = vec![vec![0i64; n_param]; rank];
    for q in 0..n_param {
        let mut shifted = values.to_vec();
        shifted[q] = shifted[q].checked_add(1).ok_or(PolyError::Overflow)?;
        let at_shifted = moduli_for_values(ds, rank, &shifted, budget)?;
        for p in 0..rank {
            slopes[p][q] = at_shifted[p] - numeric[p];
        }
    }
    let symbolic = (0..rank)
        .map(|p| {
            let mut constant = numeric[p];
            for q in 0..n_param {
                constant = constant
                    .checked_sub(
                        slopes[p][q]
                            .checked_mul(values[q])
                            .ok_or(PolyError::Overflow)?,
                    )
                    .ok_or(PolyError::Overflow)?;
            }
            Ok(ParamAffine {
                coeffs: slopes[p].clone(),
                constant,
                den: 1,
            })
        })
        .collect::<PolyResult<Vec<_>>>()?;
    Ok(SuccessiveResult {
        numeric,
        symbolic: Some(symbolic),
    })
}
