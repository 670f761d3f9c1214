//! The SCoP-level strategy: every temporary of the SCoP folded together
//! into merged buffers (SMO, seed 000: [`crate::pipeline::merged`]), with
//! dead-copy elimination. Proposed after the per-array strategies and
//! used when the merged buffers need fewer cells than the temporaries
//! folded one by one.
//!
//! Two kinds of merged buffers: made for every parameter value (hyperplanes
//! lifted from small probe sizes, moduli affine in the parameters, proven
//! on the symbolic conflict set; no pin, and a cost that does not grow
//! with the sizes), and made for the known values (certified by the trace
//! of the emitted program at those values, pinned by a `_Static_assert`
//! after the buffers' declaration). The second is kept only when it is
//! smaller than the first.

use std::time::{Duration, Instant};

use crate::ir::{Liveness, ParamOrigin, Program, Scop};
use crate::mapping::Method;
use crate::pipeline::certify::{Certified, certify_merged, certify_merged_for_every_value};
use crate::pipeline::contraction::SmoContraction;
use crate::pipeline::pins::{static_assert_text, values_condition};
use crate::pipeline::record::{ArrayDecision, ArrayOutcome, MergedScop, NotMerged};

use super::facts::{decision_cells_at, param_values};

/// Whether merged buffers for every parameter value can be made for
/// `scop` with `arrays` temporary arrays: it has parameters and two
/// temporary arrays at least, its model
/// holds for every value (no known value folded into it), and each
/// parameter keeps its value from the
/// start of the function on (a `#define`, a `-D`, a function parameter
/// or a `const` global; a local variable may be assigned between the
/// buffers' declaration and the SCoP).
fn every_value_possible(scop: &Scop, arrays: usize) -> Result<(), String> {
    if scop.params.is_empty() {
        return Err("no parameter".into());
    }
    if arrays < 2 {
        return Err("fewer than two temporary arrays".into());
    }
    if scop.depends_on_values() {
        return Err("the model holds for the known values only".into());
    }
    if let Some(p) = scop
        .params
        .iter()
        .find(|p| p.origin == ParamOrigin::Variable)
    {
        return Err(format!("parameter `{}` is a local variable", p.name));
    }
    Ok(())
}

/// Merges the temporaries of SCoP `si` when that needs fewer cells than
/// `decisions` (the SCoP's per-array decisions, which become `Merged`),
/// and, unless `min_memory`, enough fewer to pay for the `%` of merged
/// buffers ([`super::cost::merge_pays`]), with no access in a loop that
/// selects its home by a conditional on the iterators
/// ([`super::cost::selects_in_loops`]). With `masks` (`--pow2-moduli`),
/// the buffers' power-of-two number moduli are printed as masks. With
/// `report_bound`, the lower bound of a storage for every value is traced
/// at the known values too (for the report).
/// `Err`: why not (nothing changed).
pub(crate) fn merge_scop(
    program: &Program,
    si: usize,
    safety_net: Duration,
    (min_memory, masks, report_bound, pin_sizes): (bool, bool, bool, bool),
    decisions: &mut [ArrayDecision],
) -> Result<MergedScop, NotMerged> {
    let scop = &program.scops[si];
    if let Some(why) = crate::frontend::parallel::unmodelled_concurrency(&program.source, scop) {
        return Err(NotMerged::Concurrency(why));
    }
    let start = Instant::now();
    let (temporaries, arrays) = temporaries_to_merge(scop, decisions, min_memory)?;
    // For every value.
    let every = every_value_possible(scop, arrays).and_then(|()| {
        let c = crate::pipeline::merged::propose_every_value(
            program,
            si,
            &temporaries,
            safety_net,
            (masks, report_bound),
        )?;
        certify_merged_for_every_value(scop, c).map_err(|e| e.to_string())
    });
    let (every, every_why_not) = match every {
        Ok(c) => (Some(c), None),
        Err(why) => (None, Some(why)),
    };
    // For the known values, when they are `#define`s (to pin them).
    let values = if program.params_are_macros(scop) {
        param_values(scop).map_err(|name| format!("parameter `{name}` has no known value"))
    } else {
        Err("the parameters are not all #defines of the file".into())
    };
    // Pinned to them only with `--pin-sizes`.
    let pinnable = if pin_sizes || scop.params.is_empty() {
        values.clone()
    } else {
        Err("storage for the known sizes only needs --pin-sizes".into())
    };
    let fixed = propose_for_known_values(
        program,
        si,
        &pinnable,
        &temporaries,
        every.as_ref(),
        (safety_net, masks),
    );
    let certified: Certified = match (fixed, every) {
        (Ok(f), _) => f,
        (Err(_), Some(e)) => e,
        (Err(why), None) => {
            return Err(NotMerged::NoStorage {
                every_value: every_why_not.unwrap_or_default(),
                known_values: why,
            });
        }
    };
    let Some(c) = certified.merged() else {
        return Err(NotMerged::Internal("not a merged storage"));
    };
    if c.safety_net_fired {
        for d in decisions.iter_mut() {
            if c.temporaries.contains(&d.name) {
                d.safety_net_fired = true;
            }
        }
    }
    // The temporaries folded one by one, at the values the merged sizes
    // are for (the known ones), or at every probe point.
    let points: Vec<Vec<i64>> = match (&values, &c.every_value) {
        (Ok(v), _) => vec![v.clone()],
        (Err(_), Some(e)) => e.probes.clone(),
        (Err(_), None) => return Err(NotMerged::Internal("no values for the sizes")),
    };
    let per_array = check_saving(scop, c, decisions, &points, min_memory)?;
    mark_merged(scop, c, decisions, &points[0], per_array)?;
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
        inner_modulo: None,
    })
}

/// The temporaries of `scop` as the pipeline classified them (with the
/// user's `--temp` and `--live-out`), and how many of them are arrays;
/// `Err` when there is nothing for this strategy to merge.
fn temporaries_to_merge(
    scop: &Scop,
    decisions: &[ArrayDecision],
    min_memory: bool,
) -> Result<(Vec<usize>, usize), NotMerged> {
    let temporaries: Vec<usize> = decisions
        .iter()
        .filter(|d| d.classification.liveness == Liveness::Temporary)
        .map(|d| d.array.0 as usize)
        .collect();
    // One array alone is the per-array strategies' to fold: merged
    // buffers of one array are a (piecewise) modular mapping of it, rarely
    // smaller than what successive modulo and the lattice searches find,
    // and never by the quarter the cost rule asks, in the corpus
    // (gecos_gaussian's `tmp`: 720 of 800 cells). The merging for the
    // known values enumerates the SCoP's operations: only `--min-memory`
    // pays that for one array.
    let arrays = temporaries
        .iter()
        .filter(|t| scop.arrays.get(**t).is_some_and(|a| !a.extents.is_empty()))
        .count();
    match arrays {
        0 => return Err(NotMerged::NoTemporaryArray),
        1 if !min_memory => return Err(NotMerged::OneTemporaryArray),
        _ => {}
    }
    Ok((temporaries, arrays))
}

/// Merged storage for the known `values`, pinned by a `_Static_assert`
/// after the buffers' declaration and certified; made only to beat the
/// storage for every value `every`, and not searched when that is already
/// optimal at the probe sizes (it meets the values live at once there).
fn propose_for_known_values(
    program: &Program,
    si: usize,
    values: &Result<Vec<i64>, String>,
    temporaries: &[usize],
    every: Option<&Certified>,
    (safety_net, masks): (Duration, bool),
) -> Result<Certified, String> {
    let scop = &program.scops[si];
    let optimal = every.is_some_and(|e| {
        e.merged()
            .and_then(|m| m.every_value.as_ref())
            .is_some_and(|v| v.optimal_at_probe)
    });
    match values {
        Ok(_) if optimal => Err("the storage for every value is optimal at the probe sizes".into()),
        Ok(values) => {
            let mut c = crate::pipeline::merged::propose(
                program,
                si,
                values,
                temporaries,
                (safety_net, masks),
            );
            // Made only to beat the storage for every value.
            if let (Ok(f), Some(e)) = (&c, every)
                && e.merged().is_some_and(|e| e.new_cells <= f.new_cells)
            {
                c = Err(format!(
                    "{} cells for the known values, not fewer than for every value",
                    f.new_cells
                ));
            }
            c.and_then(|mut c| {
                let condition = values_condition(scop, values);
                if !condition.is_empty() {
                    // Right after the buffers' declaration (wherever it was placed).
                    let what = format!("merged storage of {}", c.temporaries.join(", "));
                    c.declare_after_buffers(
                        &program.source,
                        &static_assert_text(&condition, &what, false),
                    )?;
                }
                certify_merged(scop, values, c).map_err(|e| e.to_string())
            })
        }
        Err(why) => Err(why.clone()),
    }
}

/// Checks that the merged storage `c` needs fewer cells than the
/// temporaries folded one by one at every one of `points` (unless
/// `min_memory`, a quarter fewer, and no access selecting its home by a
/// conditional in a loop); returns the per-array cells at the first point.
fn check_saving(
    scop: &Scop,
    c: &SmoContraction,
    decisions: &[ArrayDecision],
    points: &[Vec<i64>],
    min_memory: bool,
) -> Result<i64, NotMerged> {
    let mut per_array_at_first = 0;
    for (k, point) in points.iter().enumerate() {
        let mut per_array: i64 = 0;
        for name in &c.temporaries {
            let d = decisions
                .iter()
                .find(|d| d.name == *name)
                .ok_or_else(|| NotMerged::NoDecision(name.clone()))?;
            let cells = decision_cells_at(scop, d, point)
                .ok_or_else(|| NotMerged::NoKnownSize(name.clone()))?;
            per_array = per_array
                .checked_add(cells)
                .ok_or(NotMerged::Size("overflow".into()))?;
        }
        let merged = match &c.every_value {
            Some(e) => e
                .sol
                .size(point)
                .map_err(|e| NotMerged::Size(e.to_string()))?,
            None => c.new_cells,
        };
        let at = (points.len() > 1).then(|| point.clone());
        if merged >= per_array {
            return Err(NotMerged::NotFewer {
                merged,
                per_array,
                at,
                chosen: c.chosen.clone(),
            });
        }
        if !min_memory && !super::cost::merge_pays(per_array, merged) {
            return Err(NotMerged::NotAQuarter {
                merged,
                per_array,
                at,
            });
        }
        if k == 0 {
            per_array_at_first = per_array;
        }
    }
    if !min_memory {
        let selecting = super::cost::selects_in_loops(scop, &c.storage);
        if !selecting.is_empty() {
            return Err(NotMerged::SelectsInLoops(selecting));
        }
    }
    Ok(per_array_at_first)
}

/// Records in the merged temporaries' `decisions` that they live in the
/// buffers of `c` (`per_array`: their cells folded one by one at `point`).
fn mark_merged(
    scop: &Scop,
    c: &SmoContraction,
    decisions: &mut [ArrayDecision],
    point: &[i64],
    per_array: i64,
) -> Result<(), NotMerged> {
    let buffers: Vec<String> = c.buffers.iter().map(|b| b.2.clone()).collect();
    let size_text = match &c.every_value {
        Some(e) => format!("{} cells instead of {}", e.new_formula, e.original_formula),
        None => format!("{} cells instead of {per_array}", c.new_cells),
    };
    for d in decisions.iter_mut() {
        if c.temporaries.contains(&d.name) {
            let alone = decision_cells_at(scop, d, point)
                .ok_or_else(|| NotMerged::NoKnownSize(d.name.clone()))?;
            d.outcome = ArrayOutcome::Merged {
                alone,
                note: format!(
                    "merged with {} into {} ({}; {size_text})",
                    c.temporaries.join(", "),
                    buffers.join(" "),
                    c.method,
                ),
            };
            d.method = Method::InterArray;
            // Its per-array storage, with any modulus rounded for a
            // mask, is not emitted.
            d.masks = None;
        }
    }
    Ok(())
}
