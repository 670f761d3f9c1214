//! One location for an array whose values never overlap: when the
//! symbolic live-in was not exact, the lifetimes stage traced the array's
//! statements with every cell on one location; if that run saw at most one
//! value live at a time and every read find its original value, one
//! location is proposed, to be certified by that very trace
//! ([`super::Proof::Trace`]). Only for pinnable known values, and never for
//! an array that has one cell already.

use std::time::Duration;

use crate::mapping::Method;
use crate::poly::Budget;
use crate::verify::Storage as TraceStorage;

use super::facts::{ArrayFacts, Chooser, Proof, Proposal, Proposals};
use crate::pipeline::record::KeptReason as Kept;

pub(super) fn propose(
    facts: &mut ArrayFacts<'_>,
    _chooser: &Chooser,
    _budget: &mut Budget,
) -> Result<Proposals, Kept> {
    let a = facts.array.0 as usize;
    let Some((report, TraceStorage::Modular(traced))) = &facts.trace else {
        return Ok(Proposals::default());
    };
    if !facts.macros_pinnable
        || *traced != facts.one_location
        || report.max_live[a] > 1
        || report.first_mismatch.is_some()
        || facts.original_cells.is_some_and(|n| n <= 1)
        || facts
            .model
            .events
            .iter()
            .any(|e| !e.parallel_levels.is_empty())
    {
        return Ok(Proposals::default());
    }
    Ok(Proposals {
        list: vec![Proposal {
            method: Method::TraceMaxLiveOne,
            mapping: facts.one_location.clone(),
            proof: Proof::Trace,
            cells: Some(1),
            time: Duration::ZERO,
        }],
        ..Proposals::default()
    })
}
