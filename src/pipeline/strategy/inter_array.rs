//! The SCoP-level strategy: every temporary of the SCoP folded together
//! into merged buffers (SMO, seed 000: [`crate::pipeline::merged`]), with
//! dead-copy elimination. Proposed after the per-array strategies and
//! used when the merged buffers need fewer cells than the temporaries
//! folded one by one. Merged buffers are certified for the known values
//! only, by the trace of the emitted program, and pinned by a
//! `_Static_assert` after their declaration.

use std::time::{Duration, Instant};

use crate::ir::{Liveness, Program};
use crate::mapping::Method;
use crate::pipeline::certify::{Certified, certify_merged};
use crate::pipeline::pins::{params_are_macros, static_assert_text, values_condition};
use crate::pipeline::record::{ArrayDecision, ArrayOutcome, MergedScop};

use super::param_values;

/// Merges the temporaries of SCoP `si` when that needs fewer cells than
/// `decisions` (the SCoP's per-array decisions, which become `Merged`),
/// and, unless `min_memory`, enough fewer to pay for the conditionals and
/// `%` of merged buffers ([`super::cost::merge_pays`]).
/// `Err`: why not (nothing changed).
pub fn merge_scop(
    program: &Program,
    si: usize,
    safety_net: Duration,
    min_memory: bool,
    decisions: &mut [ArrayDecision],
) -> Result<MergedScop, String> {
    let scop = &program.scops[si];
    if let Some(why) = crate::frontend::parallel::unmodelled_concurrency(&program.source, scop) {
        return Err(why);
    }
    if !params_are_macros(program, scop) {
        return Err("the parameters are not all #defines of the file".into());
    }
    let values =
        param_values(scop).map_err(|name| format!("parameter `{name}` has no known value"))?;
    let start = Instant::now();
    // The temporaries as the pipeline classified them (with the user's
    // `--temp` and `--live-out`).
    let temporaries: Vec<usize> = decisions
        .iter()
        .filter(|d| d.classification.liveness == Liveness::Temporary)
        .map(|d| d.array.0 as usize)
        .collect();
    let mut c = crate::pipeline::merged::propose(program, si, &values, &temporaries, safety_net)?;
    if c.safety_net_fired {
        for d in decisions.iter_mut() {
            if c.temporaries.contains(&d.name) {
                d.safety_net_fired = true;
            }
        }
    }
    let mut per_array: i64 = 0;
    for name in &c.temporaries {
        let cells = decisions
            .iter()
            .find(|d| d.name == *name)
            .and_then(ArrayDecision::new_cells)
            .ok_or_else(|| format!("`{name}` has no known size"))?;
        per_array = per_array.checked_add(cells).ok_or("overflow")?;
    }
    if c.new_cells >= per_array {
        return Err(format!(
            "{} cells, not fewer than the {per_array} of the arrays folded alone ({})",
            c.new_cells, c.chosen
        ));
    }
    if !min_memory && !super::cost::merge_pays(per_array, c.new_cells) {
        return Err(format!(
            "{} cells save less than a quarter of the {per_array} of the arrays folded alone: not worth the conditionals and `%` of merged buffers (--min-memory takes it)",
            c.new_cells
        ));
    }
    let condition = values_condition(scop, &values);
    if !condition.is_empty() {
        // Right after the buffers' declaration (wherever it was placed).
        let what = format!("merged storage of {}", c.temporaries.join(", "));
        c.declare_after_buffers(&program.source, &static_assert_text(&condition, &what))?;
    }
    let certified: Certified = certify_merged(scop, &values, c)?;
    let Some(c) = certified.merged() else {
        return Err("internal error: not a merged storage".into());
    };
    let buffers: Vec<String> = c.buffers.iter().map(|b| b.2.clone()).collect();
    for d in decisions.iter_mut() {
        if c.temporaries.contains(&d.name) {
            let alone = d
                .new_cells()
                .ok_or_else(|| format!("`{}` has no known size", d.name))?;
            d.outcome = ArrayOutcome::Merged {
                alone,
                note: format!(
                    "merged with {} into {} ({}; {} cells instead of {per_array})",
                    c.temporaries.join(", "),
                    buffers.join(" "),
                    c.method,
                    c.new_cells
                ),
            };
            d.method = Method::InterArray;
        }
    }
    let (merged_cells, lower_bound, method, report) =
        (c.new_cells, c.lower_bound, c.method, c.report.clone());
    Ok(MergedScop {
        scop: si,
        per_array_cells: per_array,
        merged_cells,
        lower_bound,
        method,
        report,
        time: start.elapsed(),
        certified,
    })
}
