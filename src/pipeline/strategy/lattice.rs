//! The lattice strategies of seed 001 §4 (heuristics 1–3, their
//! linearised forms, the block and the optimal search), for the known
//! values when they can be pinned, on arrays of rank ≥ 2 and of at most
//! [`FIXED_SEARCH_CELLS`] cells (their cost grows with the difference set;
//! `lifted.rs` runs them at small sizes for every size) whose current
//! choice is above the max-live bound (no mapping can beat that bound, so
//! then nothing runs; nor when a mapping at the bound, pinned to the known
//! values, would not save enough over a current choice for every value). They get a part of the array's budget (the optimal
//! search its own steps), so that a hard difference set cannot starve the
//! rest of the run. Every size they find is listed in the reports; the
//! smallest that beats the current choice is proposed, in order of size
//! and simplicity.

use crate::mapping::Method;
use crate::mapping::lattice::{LatticeOptions, lattice_candidates};
use crate::pipeline::certify::Scope;
use crate::pipeline::options::{FIXED_SEARCH_CELLS, LATTICE_STEPS};
use crate::pipeline::record::{KeptReason as Kept, StrategySize};
use crate::poly::Budget;
use crate::verify::Storage as TraceStorage;

use super::facts::{ArrayFacts, Chooser, Proof, Proposal, Proposals};

pub(super) fn propose(
    facts: &mut ArrayFacts<'_>,
    chooser: &Chooser,
    budget: &mut Budget,
) -> Result<Proposals, Kept> {
    let current = chooser.current();
    let options = facts.options;
    if !options.lattices || !facts.macros_pinnable || facts.model.rank < 2 || current <= 1 {
        return Ok(Proposals::default());
    }
    if facts
        .original_cells
        .is_none_or(|cells| cells > FIXED_SEARCH_CELLS)
    {
        // Its cost grows with the sizes; the mappings proven for every
        // value stand.
        return Ok(Proposals::default());
    }
    if facts.trace.is_none() {
        // Its max-live count bounds every mapping (a trace that gives up
        // leaves the bound at 1).
        let _ = facts.run_trace(TraceStorage::Original, budget);
    }
    let lower_bound = facts.traced_max_live().map_or(1, |m| m as i64).max(1);
    if !chooser.pinned_could_win(lower_bound, options.min_memory) {
        // Not even a mapping at the bound would be chosen over the current
        // one (pinned to the known values, it must save an eighth of a
        // storage for every value).
        return Ok(Proposals::default());
    }
    let lattice_options = LatticeOptions {
        array: facts.scop.array(facts.array).name.clone(),
        optimal: options.optimal_steps > 0,
        optimal_steps: options.optimal_steps,
        safety_net: options.time_per_array,
        lower_bound,
        ..LatticeOptions::default()
    };
    let rank = facts.model.rank;
    let values = facts.values.clone();
    facts.conflicts(budget)?;
    let facts = &*facts;
    let conflicts = facts.conflicts.as_ref().expect("computed");
    let mut candidates = match budget.with_part(LATTICE_STEPS, options.time_per_array, |part| {
        lattice_candidates(&conflicts.fixed_ds, rank, &values, &lattice_options, part)
    }) {
        Ok(c) => c,
        Err(e) => {
            return Ok(Proposals {
                failure: Some(Kept::LatticeGaveUp {
                    before: Box::new(chooser.failure.clone()),
                    error: e,
                }),
                ..Proposals::default()
            });
        }
    };
    candidates.sort_by_key(|c| (c.size, c.simplicity()));
    let sizes = candidates
        .iter()
        .map(|c| StrategySize {
            method: Method::Lattice(c.method),
            cells: c.size,
            proven_optimal: c.optimal,
            time: c.time,
        })
        .collect();
    let list = candidates
        .into_iter()
        .take_while(|c| c.size < current)
        .map(|c| Proposal {
            method: Method::Lattice(c.method),
            mapping: c.mapping,
            proof: Proof::DifferenceSet(Scope::KnownValues),
            cells: Some(c.size),
            time: c.time,
        })
        .collect();
    Ok(Proposals {
        list,
        sizes,
        failure: None,
    })
}
