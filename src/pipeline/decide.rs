//! The per-array and per-SCoP decisions: classify, lifetimes and
//! conflicts ([`super::strategy::ArrayFacts`]), each strategy's proposal,
//! the certifier, the choice; then the SCoP-level strategy (merged
//! buffers). Nothing here prints C.

use std::time::Instant;

use crate::analysis::liveness::{LivenessOverrides, classify};
use crate::ir::{Array, Liveness, Program, Scop};
use crate::mapping::Method;
use crate::mapping::modular::ParamAffine;
use crate::poly::Budget;

use super::certify::Storage;
use super::options::{ContractOptions, RECORD_TRACE_STEPS};
use super::record::{ArrayDecision, ArrayOutcome, KeptReason, MergedScop, NotMerged, SizeFormula};
use super::strategy::{self, ArrayFacts, param_values};

/// The decision for one array: classified, then (for a temporary) the
/// per-array strategies.
pub(super) fn decide_array(
    program: &Program,
    si: usize,
    array: &Array,
    options: &ContractOptions,
    overrides: &LivenessOverrides,
) -> ArrayDecision {
    let scop = &program.scops[si];
    let start = Instant::now();
    let classification = classify(array, overrides);
    let values = param_values(scop).ok();
    let extents: Vec<Option<i64>> = array
        .extents
        .iter()
        .map(|e| values.as_ref().and_then(|v| eval_extent(&e.aff, v)))
        .collect();
    let mut decision = ArrayDecision {
        scop: si,
        array: array.id,
        name: array.name.clone(),
        original_cells: extents
            .iter()
            .try_fold(1i64, |acc, e| acc.checked_mul((*e)?)),
        outcome: ArrayOutcome::External,
        method: Method::Unchanged,
        strategies: Vec::new(),
        time: Default::default(),
        max_live: None,
        safety_net_fired: false,
        parallel_loops: Vec::new(),
        classification,
        formula: None,
        inner_modulo: None,
        rotating: Vec::new(),
        scalars: None,
        masks: None,
        pinned_over: None,
        pin_offer: None,
        lifetimes: None,
        indeterminate_live_in: false,
    };
    if decision.classification.liveness == Liveness::External {
        decision.time = start.elapsed();
        return decision;
    }
    decision.parallel_loops = scop.parallel_loops(Some(array.id));
    let kept = |why: KeptReason| ArrayOutcome::Kept { why };
    // `nowait`, tasks, sections: concurrency beyond parallel loops.
    if let Some(why) = crate::frontend::parallel::unmodelled_concurrency(&program.source, scop) {
        decision.outcome = kept(KeptReason::UnmodelledConcurrency(why));
    } else if let Some((iterator, mark)) = &array.facts.shared_by_parallel_loop {
        // Every iteration of that loop runs the SCoP, at the same time, on
        // this one array: its layout stays.
        decision.outcome = kept(KeptReason::SharedByParallelLoop(
            mark.describe(&program.source, iterator),
        ));
    } else {
        crate::util::progress::stage(
            &format!("SCoP {si} ({})", scop.function),
            Some(&array.name),
            "lifetimes and conflicts",
        );
        let mut budget = Budget::new(options.steps_per_array, Some(options.time_per_array));
        let pinnable = program.params_are_macros(scop);
        let mut facts_known = true;
        let (result, traced) =
            match ArrayFacts::build(options, scop, array.id, pinnable, &mut budget) {
                Ok(mut facts) => {
                    facts_known = facts.values_known;
                    let (mut result, sizes) = strategy::choose(&mut facts, &mut budget);
                    if options.pow2_moduli
                        && let Ok(choice) = &mut result
                    {
                        decision.masks = strategy::masks::round_up(&facts, choice, &mut budget);
                    }
                    decision.strategies = sizes;
                    decision.lifetimes = facts.lifetimes();
                    decision.indeterminate_live_in = facts.indeterminate_live_in;
                    decision.pin_offer = facts.pin_offer.take();
                    (result, facts.max_live)
                }
                Err(kept) => (Err(kept), None),
            };
        if !facts_known {
            // Sizes at probe values mean nothing to a reader.
            decision.strategies.clear();
        }
        decision.outcome = match result {
            Ok(mut choice) => {
                decision.method = choice.method;
                decision.pinned_over = choice.every_value.take();
                if options.rotate {
                    choice.certified.prove_rotations(scop, &mut budget);
                }
                ArrayOutcome::Remapped {
                    certified: choice.certified,
                    new_cells: choice.cells,
                }
            }
            Err(why) => ArrayOutcome::Kept { why },
        };
        decision.max_live = traced.flatten();
        if options.record_max_live && traced.is_none() {
            decision.max_live = values.as_ref().and_then(|values| {
                strategy::trace_array(
                    scop,
                    array.id,
                    &crate::verify::Storage::Original,
                    values,
                    (RECORD_TRACE_STEPS, options.time_per_array),
                    &mut budget,
                )
                .ok()
                .map(|t| t.max_live[array.id.0 as usize])
            });
        }
        decision.safety_net_fired = budget.safety_net_fired();
    }
    if decision.original_cells.is_none() {
        decision.formula = size_formula(scop, array, &decision.outcome);
    }
    decision.time = start.elapsed();
    decision
}

/// A layout whose text computes a value not proven representable keeps
/// the declaration (issue 45: no new undefined behaviour).
pub(super) fn keep_unproven_values(
    program: &Program,
    scop: &Scop,
    decisions: &mut [ArrayDecision],
    pow2_moduli: bool,
) {
    for d in decisions.iter_mut() {
        if let ArrayOutcome::Remapped { certified, .. } = &d.outcome
            && let Storage::Modular { array, layout, .. } = certified.storage()
            && let Some(why) = crate::codegen::plan::unproven_value(
                &program.source,
                scop,
                *array,
                layout,
                pow2_moduli,
            )
        {
            d.outcome = ArrayOutcome::Kept {
                why: KeptReason::Overflow(why),
            };
        }
    }
}

/// The SCoP-level strategy: its temporaries merged into buffers when they
/// need fewer cells than the per-array `decisions` (which become
/// `Merged`), or why not; `None` when it does not run.
pub(super) fn merge_temporaries(
    program: &Program,
    si: usize,
    options: &ContractOptions,
    decisions: &mut [ArrayDecision],
) -> Option<Result<MergedScop, NotMerged>> {
    let temporaries = decisions
        .iter()
        .any(|d| !matches!(d.outcome, ArrayOutcome::External));
    if options.inter_array && temporaries {
        crate::util::progress::stage(
            &format!("SCoP {si} ({})", program.scops[si].function),
            None,
            "inter-array merging",
        );
        return Some(strategy::inter_array::merge_scop(
            program,
            si,
            options.inter_array_time,
            (
                options.min_memory,
                options.pow2_moduli,
                options.record_max_live,
                options.pin_sizes,
            ),
            decisions,
        ));
    }
    None
}

/// The sizes of `array` as formulas in the parameters: the declaration's,
/// and the new layout's when it was remapped. `None` when an extent is not
/// affine.
fn size_formula(scop: &Scop, array: &Array, outcome: &ArrayOutcome) -> Option<SizeFormula> {
    use crate::mapping::layout::DimLayout;
    let params = scop.param_texts();
    let declared: Vec<ParamAffine> = ParamAffine::extents_of(array)
        .into_iter()
        .collect::<Option<_>>()?;
    let product = |factors: Vec<&ParamAffine>| crate::codegen::text::product_text(&params, factors);
    let new = match outcome {
        ArrayOutcome::Remapped { certified, .. } => {
            let layout = certified.layout()?;
            let mut factors = Vec::new();
            if layout.is_linear() {
                factors.extend(layout.dims.iter().filter_map(|d| match d {
                    DimLayout::Linear { modulus, .. } => Some(modulus),
                    _ => None,
                }));
            } else {
                let mut packed = None;
                for (dim, extent) in layout.dims.iter().zip(&declared) {
                    match dim {
                        DimLayout::Dropped => {}
                        DimLayout::Plain { extent: None } => factors.push(extent),
                        DimLayout::Plain { extent: Some(b) }
                        | DimLayout::Modulo { modulus: b, .. } => factors.push(b),
                        DimLayout::Linear { .. } => return None,
                        DimLayout::Packed {
                            extent: e,
                            triangle,
                            ..
                        } => packed = Some((e, *triangle)),
                    }
                }
                if let Some((e, triangle)) = packed {
                    // `E * (E + 1) / 2` (or `E * (E - 1) / 2`) first, then
                    // the other factors.
                    let text = crate::codegen::text::param_text(e, &params);
                    let atomic = text.chars().all(|c| c.is_alphanumeric() || c == '_');
                    let e_text = if atomic { text } else { format!("({text})") };
                    let mut out =
                        crate::codegen::text::triangle_cells_text(triangle, &e_text, e, &params);
                    if !factors.is_empty() {
                        out = format!("{out} * {}", product(factors));
                    }
                    return Some(SizeFormula {
                        original: product(declared.iter().collect()),
                        new: Some(out),
                    });
                }
            }
            Some(product(factors))
        }
        _ => None,
    };
    Some(SizeFormula {
        original: product(declared.iter().collect()),
        new,
    })
}

fn eval_extent(aff: &Option<crate::ir::AffExpr>, values: &[i64]) -> Option<i64> {
    ParamAffine::from_aff(aff.as_ref()?).eval(values).ok()
}
