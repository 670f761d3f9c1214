//! Successive modulo (seed 001 §3): one modulus per axis, from the
//! difference set. Proposed symbolic first (moduli affine in the
//! parameters, proven for every value of the context) and then for the
//! known values (when they can be pinned). Not run when even its numeric
//! moduli cannot beat the declaration.

use std::time::Instant;

use crate::mapping::Method;
use crate::mapping::successive::{SuccessiveResult, fit_moduli};
use crate::pipeline::certify::Scope;
use crate::pipeline::record::{KeptReason as Kept, StrategySize};
use crate::poly::Budget;

use super::facts::{ArrayFacts, Chooser, Proof, Proposal, Proposals, solver};

pub(super) fn propose(
    facts: &mut ArrayFacts<'_>,
    _chooser: &Chooser,
    budget: &mut Budget,
) -> Result<Proposals, Kept> {
    let start = Instant::now();
    let rank = facts.model.rank;
    let values = facts.values.clone();
    facts.conflicts(budget)?;
    let facts = &*facts;
    let conflicts = facts.conflicts.as_ref().expect("computed");
    let numeric = conflicts.numeric.clone();
    let estimate = numeric
        .iter()
        .zip(&facts.extents)
        .try_fold(1i64, |acc, (b, e)| {
            acc.checked_mul((*b).min(e.unwrap_or(*b)))
        });
    let gains = match (estimate, facts.original_cells) {
        (Some(new), Some(old)) => new < old,
        _ => true,
    };
    if !gains {
        // Its moduli are the declared extents: the declared layout.
        let old = facts.original_cells.unwrap_or_default();
        return Ok(Proposals {
            sizes: facts
                .original_cells
                .map(|cells| StrategySize {
                    method: Method::SuccessiveModulo,
                    cells,
                    proven_optimal: None,
                    time: start.elapsed(),
                })
                .into_iter()
                .collect(),
            failure: Some(if facts.values_known {
                Kept::SuccessiveNeedsAll { cells: old }
            } else {
                Kept::NoSmallerForEveryValue
            }),
            ..Proposals::default()
        });
    }
    let found = if facts.allow_symbolic {
        fit_moduli(&conflicts.ds, rank, &values, numeric, budget).map_err(solver)?
    } else {
        SuccessiveResult {
            numeric,
            symbolic: None,
        }
    };
    let name = &facts.scop.array(facts.array).name;
    let mut list = Vec::new();
    if let Some(m) = found
        .symbolic_mapping(name, &facts.model.params)
        .filter(|_| facts.allow_symbolic)
    {
        list.push((m, Scope::EveryValue));
    }
    // The axes whose values never live together dropped, the others kept
    // as declared: no `%` and extents that are the declaration's own text
    // (what a caller's allocation can spell), proven for every value
    // where the fitted moduli are forms of the parameters the sizes are
    // not written in (PolyBench adi's `p[i][j]` -> `p[0][j]`, `j < n - 1`
    // inside `N`).
    if facts.allow_symbolic
        && let Some(m) = dropped_axes(&found.numeric, name, facts)
        && list.iter().all(|(known, _)| *known != m)
    {
        list.push((m, Scope::EveryValue));
    }
    if facts.macros_pinnable {
        list.push((
            found.numeric_mapping(name, &facts.model.params),
            Scope::KnownValues,
        ));
    }
    Ok(Proposals {
        list: list
            .into_iter()
            .map(|(mapping, scope)| Proposal {
                method: Method::SuccessiveModulo,
                mapping,
                proof: Proof::DifferenceSet(scope),
                cells: None,
                time: start.elapsed(),
            })
            .collect(),
        ..Proposals::default()
    })
}

/// The mapping of modulus 1 on the axes whose numeric modulus is 1 and
/// the declared extent on the others; `None` when no axis drops or some
/// kept extent is not affine.
fn dropped_axes(
    numeric: &[i64],
    name: &str,
    facts: &ArrayFacts<'_>,
) -> Option<crate::mapping::ModularMapping> {
    use crate::mapping::modular::ParamAffine;
    let extents = &facts.extent_affs;
    if numeric.len() != extents.len() || !numeric.contains(&1) || numeric.iter().all(|b| *b == 1) {
        return None;
    }
    let np = facts.model.params.len();
    let moduli: Vec<ParamAffine> = numeric
        .iter()
        .zip(extents)
        .map(|(b, e)| {
            if *b == 1 {
                Some(ParamAffine::constant(np, 1))
            } else {
                e.clone()
            }
        })
        .collect::<Option<_>>()?;
    Some(crate::mapping::ModularMapping::axis(
        name,
        &facts.model.params,
        moduli,
    ))
}
