//! The contraction pipeline, one SCoP at a time:
//!
//! ```text
//! classify (once) → lifetimes and conflicts (strategy::ArrayFacts)
//!   → each strategy proposes storage (strategy/*.rs)
//!   → one certifier (certify.rs: the only maker of `Certified`)
//!   → choose (the smallest certified, per array; with `--pow2-moduli`
//!     its number moduli rounded up for masks and certified again:
//!     strategy/masks.rs; then merged buffers for the SCoP when they
//!     need fewer cells: strategy/inter_array.rs)
//!   → code generation (`emit`, from `Certified` only)
//!   → one record (record.rs), which reports, `bench`, `verify` and the
//!     JSON output read.
//! ```
//!
//! Each array that is not provably improved keeps its layout, and its
//! decision says why. Options and every limit are in `options.rs`; pins
//! (`_Static_assert`s of the known values) in `pins.rs`; the inter-array
//! (SMO) path with its own code generation in `merged/`.
//!
//! Adding a strategy: read `strategy/mod.rs`.

use std::time::Instant;

use crate::analysis::liveness::{LivenessOverrides, classify};
use crate::codegen::plan::plan_array_edits;
use crate::codegen::rotate::Rotations;
use crate::codegen::{Edit, apply_edits};
use crate::ir::{Array, Liveness, Program, Scop};
use crate::mapping::Method;
use crate::mapping::modular::ParamAffine;
use crate::poly::Budget;

pub mod certify;
pub mod contraction;
pub mod merged;
pub mod options;
mod pins;
pub mod probe;
pub(crate) use pins::params_are_macros;
pub mod record;
pub mod strategy;

pub use certify::{Certified, Storage};
pub use options::ContractOptions;
pub use record::{
    ArrayDecision, ArrayOutcome, FileContraction, InnerLoopModulo, InnerModulo, KeptReason,
    MaskRefusal, MaskRounding, MergedScop, Optimality, SizeFormula, StrategySize,
};
pub use strategy::param_values;

use options::RECORD_TRACE_STEPS;
use strategy::ArrayFacts;

/// Runs the whole contraction on `program`.
pub fn contract_program(
    program: &Program,
    options: &ContractOptions,
) -> Result<FileContraction, String> {
    let mut overrides = options.overrides.clone();
    overrides
        .temp
        .extend(crate::analysis::liveness::pragma_temps(&program.source));
    let mut record = FileContraction {
        decisions: Vec::new(),
        merged: Vec::new(),
        not_merged: Vec::new(),
        schedule_kept: Vec::new(),
        edits: Vec::new(),
        removed_copies: Vec::new(),
        rotating: Vec::new(),
        scalars: Vec::new(),
        output: String::new(),
    };
    // Names of rotating indices: none that the file uses, none twice in
    // a function.
    let identifiers = crate::codegen::rotate::source_identifiers(&program.source);
    let mut taken: std::collections::HashMap<String, std::collections::BTreeSet<String>> =
        std::collections::HashMap::new();
    for si in 0..program.scops.len() {
        let function = &program.scops[si].function;
        let in_function = overrides.in_function(function);
        let taken = taken
            .entry(function.clone())
            .or_insert_with(|| identifiers.clone());
        contract_scop(program, si, options, (&in_function, taken), &mut record)?;
    }
    let notes = pins::declaration_notes(program, &record, &options.renamed);
    record.edits.extend(notes);
    record.output = apply_edits(&program.source, &record.edits).map_err(|e| e.to_string())?;
    Ok(record)
}

/// The pipeline of one SCoP: a decision per array (classify, lifetimes
/// and conflicts, the strategies, the certifier, the choice), merged
/// buffers when they pay, the edits of every certified storage, and the
/// record.
fn contract_scop(
    program: &Program,
    si: usize,
    options: &ContractOptions,
    (overrides, taken): (&LivenessOverrides, &mut std::collections::BTreeSet<String>),
    record: &mut FileContraction,
) -> Result<(), String> {
    let scop = &program.scops[si];
    let first = record.decisions.len();
    for array in &scop.arrays {
        let decision = decide_array(program, si, array, options, overrides);
        record.decisions.push(decision);
    }
    let decisions = &mut record.decisions[first..];
    keep_unproven_values(program, scop, decisions, options.pow2_moduli);
    let merged = match merge_temporaries(program, si, options, decisions) {
        Some(Ok(m)) => Some(m),
        Some(Err(why)) => {
            record.not_merged.push((si, why));
            None
        }
        None => None,
    };
    let decisions = &mut record.decisions[first..];
    let code = per_array_code(program, si, options, decisions, taken)?;
    record_per_array(record, si, code);
    if let Some(m) = merged {
        record_merged(program, scop, options, m, record)?;
    }
    Ok(())
}

/// A layout whose text computes a value not proven representable keeps
/// the declaration (issue 45: no new undefined behaviour).
fn keep_unproven_values(
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
fn merge_temporaries(
    program: &Program,
    si: usize,
    options: &ContractOptions,
    decisions: &mut [ArrayDecision],
) -> Option<Result<MergedScop, String>> {
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
            ),
            decisions,
        ));
    }
    None
}

/// The code of the per-array storages of one SCoP.
struct PerArrayCode {
    edits: Vec<Edit>,
    rotations: Rotations,
    scalars: crate::codegen::scalars::Scalars,
}

/// The edits of every per-array storage of SCoP `si`: dead self-copies
/// deleted, rotating scalars, rotating indices and the remapped accesses;
/// records in `decisions` the `%` left in innermost loops.
fn per_array_code(
    program: &Program,
    si: usize,
    options: &ContractOptions,
    decisions: &mut [ArrayDecision],
    taken: &mut std::collections::BTreeSet<String>,
) -> Result<(PerArrayCode, Vec<usize>), String> {
    let scop = &program.scops[si];
    // Copies `A[f] = A[g];` that the new layout of `A` makes `x = x`: they
    // go, with what they leave empty (by syntax nodes), and their
    // subscripts' edits with them.
    let dead = dead_self_copies(&program.source, scop, decisions);
    // The residues that rotating indices compute (not in deleted copies).
    let layouts: Vec<(crate::ir::ArrayId, &crate::mapping::layout::ArrayLayout)> = decisions
        .iter()
        .filter_map(|d| match &d.outcome {
            ArrayOutcome::Remapped { certified, .. } => match certified.storage() {
                Storage::Modular { array, layout, .. } => Some((*array, layout)),
                Storage::Merged(_) => None,
            },
            _ => None,
        })
        .collect();
    // Arrays of at most four cells in rotating scalars (no `%` left), the
    // others' residues in rotating indices.
    let scalars = if options.rotate {
        crate::codegen::scalars::plan_scalars(&program.source, scop, (&layouts, &dead), taken)
    } else {
        crate::codegen::scalars::Scalars::default()
    };
    let layouts: Vec<_> = layouts
        .into_iter()
        .filter(|(a, _)| scalars.of_array(*a).is_none())
        .collect();
    let rotations = if options.rotate {
        crate::codegen::rotate::plan_rotations(&program.source, scop, (&layouts, &dead), taken)
    } else {
        Rotations::default()
    };
    let mut per_array = rotations.edits.clone();
    // The shifts of the scalars go after the rotating indices' updates
    // that end at the same place (one insertion per position).
    for (at, text) in &scalars.shifts {
        match per_array
            .iter_mut()
            .find(|e| e.range.start == *at && e.range.end == *at)
        {
            Some(e) => e.replacement.push_str(text),
            None => per_array.push(Edit::insert(*at, text.clone())),
        }
    }
    for d in decisions.iter() {
        if let Some(kept) = scalars.of_array(d.array) {
            per_array.extend(kept.edits.iter().cloned());
            continue;
        }
        if let ArrayOutcome::Remapped { certified, .. } = &d.outcome {
            per_array.extend(emit(
                program,
                scop,
                certified,
                (&rotations, options.pow2_moduli),
            )?);
        }
    }
    if !dead.is_empty() {
        let ids: Vec<crate::ir::StmtId> = dead.iter().map(|k| scop.stmts[*k].id).collect();
        let deletions =
            crate::codegen::delete::statement_deletions(&program.source, &scop.items, &|id| {
                ids.contains(&id)
            });
        per_array.retain(|e| {
            !deletions
                .iter()
                .any(|d| d.range.start <= e.range.start && e.range.end <= d.range.end)
        });
        per_array.extend(deletions);
    }
    // The `%` left in innermost loops, once the outcomes (merged or not)
    // and the deleted copies are known.
    for d in decisions.iter_mut() {
        if let Some(kept) = scalars.of_array(d.array) {
            d.scalars = Some((kept.names.clone(), kept.iterator.clone()));
            continue;
        }
        d.inner_modulo = inner_modulo(
            &program.source,
            scop,
            d,
            (&dead, &rotations, options.pow2_moduli),
            options.min_memory,
        );
        d.rotating = rotations.loops_of_array(&program.source, d.array);
    }
    Ok((
        PerArrayCode {
            edits: per_array,
            rotations,
            scalars,
        },
        dead,
    ))
}

/// Records the per-array code of SCoP `si`: its edits, rotating indices,
/// rotating scalars and deleted copies.
fn record_per_array(
    record: &mut FileContraction,
    si: usize,
    (code, dead): (PerArrayCode, Vec<usize>),
) {
    let PerArrayCode {
        edits: per_array,
        rotations,
        scalars,
    } = code;
    record.removed_copies.extend(dead.iter().map(|k| (si, *k)));
    record.edits.extend(per_array);
    for (array, names) in rotations.declarations {
        record.rotating.push((si, array, names));
    }
    for kept in scalars.arrays {
        record.scalars.push((si, kept.array, kept.comment));
    }
}

/// Records the merged buffers `m` of SCoP `scop`, with their edits.
fn record_merged(
    program: &Program,
    scop: &Scop,
    options: &ContractOptions,
    mut m: MergedScop,
    record: &mut FileContraction,
) -> Result<(), String> {
    record.edits.extend(emit(
        program,
        scop,
        &m.certified,
        (&Rotations::default(), options.pow2_moduli),
    )?);
    m.inner_modulo = merged_inner_modulo(
        &program.source,
        scop,
        &m,
        (options.min_memory, options.pow2_moduli),
    );
    record.merged.push(m);
    Ok(())
}

/// The `%` that the merged buffers' subscripts compute inside innermost
/// loops (see [`InnerModulo`]): the `row % m` levels of every access's
/// location (all branches of a conditional counted), from the description
/// the text is printed from; the deleted copies compute none, nor masks
/// (with `masks`: see [`crate::codegen::text::mask_of`]).
fn merged_inner_modulo(
    source: &str,
    scop: &Scop,
    merged: &crate::pipeline::record::MergedScop,
    (min_memory, masks): (bool, bool),
) -> Option<InnerModulo> {
    use crate::verify::{Level, Location};
    fn rem_rows<'a>(location: &'a Location, masks: bool, out: &mut Vec<&'a Vec<i64>>) {
        match location {
            Location::At { levels, .. } => {
                for level in levels {
                    if let Level::Rem { row, modulus } = level
                        && crate::codegen::text::mask_of(modulus, masks).is_none()
                    {
                        out.push(row);
                    }
                }
            }
            Location::Choose(branches) => {
                for (_, l) in branches {
                    rem_rows(l, masks, out);
                }
            }
        }
    }
    let storage = merged.storage();
    let mut loops = ModuloLoops::default();
    for access in &storage.accesses {
        if storage.removed.contains(&access.statement) {
            continue;
        }
        let mut rows = Vec::new();
        rem_rows(&access.location, masks, &mut rows);
        // The rows end with their constant.
        let args = rows.iter().map(|row| &row[..row.len() - 1]);
        loops.add(source, scop, access.statement, args);
    }
    if loops.0.is_empty() {
        return None;
    }
    let why = if min_memory {
        "--min-memory asks for the smallest storage at any price".to_string()
    } else {
        format!(
            "the merged buffers take {} cells where the arrays folded alone take {} (the cost rule accepts it)",
            merged.merged_cells, merged.per_array_cells
        )
    };
    loops.finish(why)
}

/// The statements of `scop` that are pure copies `A[f] = A[g];` of an
/// array folded alone whose mapping sends `f` and `g` to the same cell for
/// every iteration (the mapped subscripts are the same affine function):
/// the copy changes nothing in the new layout.
fn dead_self_copies(source: &str, scop: &Scop, decisions: &[ArrayDecision]) -> Vec<usize> {
    let mut out = Vec::new();
    for (k, stmt) in scop.stmts.iter().enumerate() {
        let [read] = &stmt.reads[..] else { continue };
        if read.array != stmt.write.array {
            continue;
        }
        let Some(mapping) = decisions
            .iter()
            .find(|d| d.array == read.array)
            .and_then(|d| match &d.outcome {
                ArrayOutcome::Remapped { certified, .. } => certified.mapping(),
                _ => None,
            })
        else {
            continue;
        };
        let w = &stmt.write.span;
        let r = &read.span;
        let between = source.get(w.end..r.start).map(str::trim);
        let after = source.get(r.end..stmt.span.end).map(str::trim);
        if w.start != stmt.span.start || between != Some("=") || after != Some(";") {
            continue;
        }
        let image = |subs: &[crate::ir::AffExpr]| -> Option<Vec<(Vec<i64>, i64)>> {
            mapping
                .dims
                .iter()
                // A dimension of modulus 1 sends everything to 0.
                .filter(|dim| {
                    !(dim.modulus.constant == 1 && dim.modulus.coeffs.iter().all(|c| *c == 0))
                })
                .map(|dim| {
                    let width = subs.first().map_or(0, |s| s.coeffs.len());
                    let mut coeffs = vec![0i64; width];
                    let mut constant = 0i64;
                    for (c, sub) in dim.coeffs.iter().zip(subs) {
                        for (acc, v) in coeffs.iter_mut().zip(&sub.coeffs) {
                            *acc = acc.checked_add(c.checked_mul(*v)?)?;
                        }
                        constant = constant.checked_add(c.checked_mul(sub.constant)?)?;
                    }
                    Some((coeffs, constant))
                })
                .collect()
        };
        if mapping
            .dims
            .iter()
            .all(|d| d.coeffs.len() == read.subscripts.len())
            && let (Some(a), Some(b)) = (image(&stmt.write.subscripts), image(&read.subscripts))
            && a == b
        {
            out.push(k);
        }
    }
    out
}

/// Code generation, from certified storage only (with masks for
/// power-of-two number moduli under `--pow2-moduli`).
fn emit(
    program: &Program,
    scop: &Scop,
    certified: &Certified,
    (rotations, masks): (&Rotations, bool),
) -> Result<Vec<Edit>, String> {
    match certified.storage() {
        Storage::Modular { array, layout, .. } => {
            plan_array_edits(&program.source, scop, *array, layout, (rotations, masks)).ok_or_else(
                || {
                    format!(
                        "internal error: no declarator for `{}`",
                        scop.array(*array).name
                    )
                },
            )
        }
        Storage::Merged(m) => Ok(m.edits.clone()),
    }
}

/// The decision for one array: classified, then (for a temporary) the
/// per-array strategies.
fn decide_array(
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
        let pinnable = pins::params_are_macros(program, scop);
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

/// The `%` that the remapped storage of `decision` computes inside
/// innermost loops (see [`InnerModulo`]), with the reason the fold is
/// made; the statements `removed` (deleted copies) compute none, nor do
/// the residues of `rotations`, nor masks (with `masks`).
fn inner_modulo(
    source: &str,
    scop: &Scop,
    decision: &ArrayDecision,
    (removed, rotations, masks): (&[usize], &Rotations, bool),
    min_memory: bool,
) -> Option<InnerModulo> {
    let ArrayOutcome::Remapped {
        certified,
        new_cells,
    } = &decision.outcome
    else {
        return None;
    };
    let layout = certified.layout()?;
    let mut loops = ModuloLoops::default();
    for (si, args) in
        crate::codegen::plan::modulo_uses(source, scop, decision.array, layout, (rotations, masks))
    {
        if !removed.contains(&si) {
            loops.add(source, scop, si, args.iter().map(Vec::as_slice));
        }
    }
    if loops.0.is_empty() {
        return None;
    }
    let why = if min_memory {
        "--min-memory asks for the smallest storage at any price".to_string()
    } else {
        match (decision.original_cells, new_cells, &decision.formula) {
            (Some(old), Some(new), _) if old > 0 => format!(
                "it saves {} of {old} cells ({} %; the cost rule asks at least {} %)",
                old - new,
                (old - new) * 100 / old,
                100 * strategy::cost::MIN_SAVED_NUM / strategy::cost::MIN_SAVED_DEN
            ),
            (_, _, Some(f)) => format!(
                "it takes {} cells to {} (the cost rule: a lower degree in the parameters, or at least a quarter saved at the probe sizes)",
                f.original,
                f.new.as_deref().unwrap_or(&f.original)
            ),
            _ => "the cost rule accepts its size".to_string(),
        }
    };
    loops.finish(why)
}

/// The `%` of some accesses counted per innermost loop (by the loop's
/// schedule prefix), for [`InnerModulo`].
#[derive(Default)]
struct ModuloLoops(Vec<(Vec<crate::ir::SchedEntry>, InnerLoopModulo)>);

impl ModuloLoops {
    /// Counts the `%` of statement `si` whose arguments have the
    /// coefficients `args` (over `[params | iterators]`), when `si` is in
    /// an innermost loop.
    fn add<'a>(
        &mut self,
        source: &str,
        scop: &Scop,
        si: usize,
        args: impl IntoIterator<Item = &'a [i64]>,
    ) {
        let args: Vec<&[i64]> = args.into_iter().collect();
        if args.is_empty() || !scop.in_innermost_loop(si) {
            return;
        }
        let stmt = &scop.stmts[si];
        let depth = stmt.loop_depth();
        let key = stmt.schedule[..2 * depth].to_vec();
        let line = crate::diag::line_col(source, stmt.span.start).0;
        let entry = match self.0.iter().position(|(k, _)| *k == key) {
            Some(k) => &mut self.0[k].1,
            None => {
                self.0.push((
                    key,
                    InnerLoopModulo {
                        iterator: stmt.iterators[depth - 1].clone(),
                        lines: Vec::new(),
                        varying: 0,
                        invariant: 0,
                    },
                ));
                &mut self.0.last_mut().expect("just pushed").1
            }
        };
        if !entry.lines.contains(&line) {
            entry.lines.push(line);
        }
        let n_param = scop.params.len();
        for arg in args {
            // The innermost loop's column, or a quotient of the loops.
            if arg.iter().skip(n_param + depth - 1).any(|c| *c != 0) {
                entry.varying += 1;
            } else {
                entry.invariant += 1;
            }
        }
    }

    fn finish(self, why: String) -> Option<InnerModulo> {
        (!self.0.is_empty()).then(|| InnerModulo {
            loops: self.0.into_iter().map(|(_, l)| l).collect(),
            why,
        })
    }
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

/// Runs the trace verifier on every SCoP of `program` with the storage
/// `contraction` emitted ([`FileContraction::emitted`]), for the known
/// parameter values (each SCoP whose parameters all have values). Returns
/// one report per verified SCoP.
pub fn verify_contraction(
    program: &Program,
    contraction: &FileContraction,
    budget: &mut Budget,
) -> Result<Vec<(usize, crate::verify::TraceReport)>, String> {
    crate::verify::build::verify_program(program, &contraction.emitted(), budget)
}
