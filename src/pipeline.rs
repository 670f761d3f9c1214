//! The contraction pipeline for one parsed file, one screen long:
//! `classify_liveness → compute_conflicts → choose_mappings → certify →
//! plan_edits`. Each array that is not provably improved keeps its layout,
//! and its decision says why.

use std::time::{Duration, Instant};

use crate::analysis::build::array_model;
use crate::analysis::cells::compute_cell_conflicts;
use crate::analysis::livein::live_in_cells;
use crate::analysis::liveness::{Classification, LivenessOverrides, classify};
use crate::analysis::model::{AccessKind, ArrayModel};
use crate::codegen::plan::plan_array_edits;
use crate::codegen::{Edit, apply_edits};
use crate::ir::{ArrayId, Liveness, Program, Scop};
use crate::mapping::certify::{Certificate, CertifyMode, certify_modular, fix_params};
use crate::mapping::lattice::{LatticeOptions, lattice_candidates};
use crate::mapping::layout::{ArrayLayout, DimLayout, axis_layout, linear_layout};
use crate::mapping::modular::{ModularMapping, ParamAffine};
use crate::mapping::successive::{
    SuccessiveResult, fit_moduli, fix_and_simplify, moduli_for_values,
};
use crate::poly::simplex::integer_point;
use crate::poly::{BasicSet, Budget};

/// Options of the contraction.
#[derive(Clone, Debug)]
pub struct ContractOptions {
    pub overrides: LivenessOverrides,
    /// Solver budget per array: the steps decide, the time is only a
    /// safety net (reported when it fires).
    pub steps_per_array: u64,
    pub time_per_array: Duration,
    /// Run the lattice strategies (seed 001 §4) besides successive modulo.
    pub lattices: bool,
    /// Work of the optimal lattice search per array, in search steps (zero:
    /// no search).
    pub optimal_steps: u64,
    /// Also fold the temporaries of each SCoP together (SMO, seed 000:
    /// `pipeline_smo`), and keep that when it needs fewer cells than
    /// folding each array alone.
    pub inter_array: bool,
    /// Wall-clock budget of the SMO path per SCoP.
    pub inter_array_time: Duration,
    /// Record the max-live count of every temporary in its decision (for
    /// reports and `bench`): a trace of the array's statements for the
    /// known values, within the trace's work budget, run once here unless
    /// a strategy already ran it.
    pub record_max_live: bool,
}

impl Default for ContractOptions {
    fn default() -> ContractOptions {
        ContractOptions {
            overrides: LivenessOverrides::default(),
            steps_per_array: 20_000_000,
            time_per_array: Duration::from_secs(60),
            lattices: true,
            optimal_steps: crate::mapping::lattice::DEFAULT_OPTIMAL_STEPS,
            inter_array: true,
            inter_array_time: crate::pipeline_smo::DEFAULT_BUDGET,
            record_max_live: false,
        }
    }
}

/// What happened to one array.
#[derive(Clone, Debug)]
pub enum ArrayOutcome {
    /// External: never considered for remapping.
    External,
    /// A temporary that keeps its layout: why (the text of the reports),
    /// and what of it the driver acts on.
    Kept { why: String, cause: KeptCause },
    /// A temporary folded together with the other temporaries of its SCoP
    /// into merged buffers (see [`MergedScop`]); `alone` is what folding it
    /// by itself needed.
    Merged { note: String, alone: i64 },
    /// A temporary with a new, certified layout.
    Remapped {
        mapping: ModularMapping,
        certificate: Certificate,
        layout: ArrayLayout,
        new_cells: Option<i64>,
    },
}

/// What the driver acts on in a kept array's reason (the text is in
/// [`ArrayOutcome::Kept`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeptCause {
    /// A parameter has no known value (the driver warns: `-D` gives one).
    MissingValue { param: String },
    /// Anything else (the report says why).
    Other,
}

/// Why [`contract_array`] keeps an array.
struct Kept {
    why: String,
    cause: KeptCause,
}

impl From<String> for Kept {
    fn from(why: String) -> Kept {
        Kept {
            why,
            cause: KeptCause::Other,
        }
    }
}

impl From<&str> for Kept {
    fn from(why: &str) -> Kept {
        Kept::from(why.to_string())
    }
}

/// The decision for one array of one SCoP.
#[derive(Clone, Debug)]
pub struct ArrayDecision {
    pub scop: usize,
    pub array: ArrayId,
    pub name: String,
    pub classification: Classification,
    pub original_cells: Option<i64>,
    pub outcome: ArrayOutcome,
    pub method: &'static str,
    /// Every strategy that found a certified mapping, with its size, so
    /// that the reports show the trade-off (the smallest one is used, on
    /// ties the simplest).
    pub strategies: Vec<StrategySize>,
    pub time: Duration,
    /// The most values of the array live at once for the known parameter
    /// values (no mapping needs fewer cells), when the pipeline traced it
    /// (reports read it here; nothing traces twice).
    pub max_live: Option<usize>,
    /// Whether a wall-clock safety net stopped some of the work on this
    /// array: its result may then differ between runs (the driver warns).
    pub safety_net_fired: bool,
    /// For a temporary: the parallel loops around its accesses (iterator
    /// name and pragma). Cells touched by distinct iterations of one of
    /// them are never given one location.
    pub parallel_loops: Vec<(String, crate::ir::ParallelMark)>,
}

/// Why an array's new size is known to be the smallest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Optimality {
    /// It equals the max-live count: no mapping of the array can do better.
    MaxLiveBound,
    /// The exhaustive lattice search found no smaller lattice (the best
    /// modular mapping of this kind).
    LatticeSearch,
}

impl Optimality {
    /// The word of the bench table's `opt` column.
    pub fn short(self) -> &'static str {
        match self {
            Optimality::MaxLiveBound => "bound",
            Optimality::LatticeSearch => "search",
        }
    }

    /// The value of the JSON report's `optimal` field.
    pub fn name(self) -> &'static str {
        match self {
            Optimality::MaxLiveBound => "max-live bound",
            Optimality::LatticeSearch => "lattice search",
        }
    }

    /// The line of the text report.
    pub fn sentence(self) -> &'static str {
        match self {
            Optimality::MaxLiveBound => "optimal: meets the max-live lower bound",
            Optimality::LatticeSearch => {
                "optimal: the exhaustive lattice search found nothing smaller"
            }
        }
    }
}

/// The certified size one strategy reached for an array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StrategySize {
    pub method: &'static str,
    pub cells: i64,
    /// For the optimal lattice search: whether it proved that no smaller
    /// lattice exists (`None` for the other strategies).
    pub proven_optimal: Option<bool>,
    pub time: Duration,
}

impl ArrayDecision {
    /// Why the chosen size is the smallest, given the recorded max-live
    /// lower bound (`None`: not known to be).
    pub fn proven_optimal(&self) -> Option<Optimality> {
        let bound = self.max_live;
        let new = self.new_cells()?;
        // No remapped array needs fewer than one cell.
        let remapped = matches!(self.outcome, ArrayOutcome::Remapped { .. });
        if (new == 1 && remapped) || bound.is_some_and(|b| i64::try_from(b).is_ok_and(|b| b == new))
        {
            return Some(Optimality::MaxLiveBound);
        }
        self.strategies
            .iter()
            .any(|s| s.proven_optimal == Some(true) && s.cells == new)
            .then_some(Optimality::LatticeSearch)
    }

    /// Cells of the array folded by itself, merged or not.
    pub fn alone_cells(&self) -> Option<i64> {
        match &self.outcome {
            ArrayOutcome::Merged { alone, .. } => Some(*alone),
            _ => self.new_cells(),
        }
    }

    pub fn new_cells(&self) -> Option<i64> {
        match &self.outcome {
            ArrayOutcome::Remapped { new_cells, .. } => *new_cells,
            // Its cells are in the merged buffers of the SCoP.
            ArrayOutcome::Merged { .. } => None,
            _ => self.original_cells,
        }
    }
}

/// The result of contracting one file.
#[derive(Clone, Debug)]
pub struct FileContraction {
    pub decisions: Vec<ArrayDecision>,
    /// The SCoPs whose temporaries were merged (`--inter-array`).
    pub merged: Vec<MergedScop>,
    /// The SCoPs where `--inter-array` was tried and not used, and why.
    pub not_merged: Vec<(usize, String)>,
    pub edits: Vec<Edit>,
    /// The transformed source text.
    pub output: String,
}

/// A SCoP whose temporaries share merged buffers.
#[derive(Clone, Debug)]
pub struct MergedScop {
    pub scop: usize,
    /// Cells of the temporaries folded one by one, and merged.
    pub per_array_cells: i64,
    pub merged_cells: i64,
    /// The most values of the temporaries live at once: no storage needs
    /// fewer cells.
    pub lower_bound: usize,
    /// The candidate whose mapping was used (e.g. `shared hyperplanes`).
    pub method: &'static str,
    /// The report of the SMO path (mappings, removed copies, trace check).
    pub report: String,
    pub time: Duration,
    /// The merged storage as emitted (buffers, every access's location,
    /// deleted copies): what `verify_contraction` traces.
    pub storage: crate::verify::MergedStorage,
}

/// Known values of every parameter of `scop`, or the name of one without.
pub fn param_values(scop: &Scop) -> Result<Vec<i64>, String> {
    scop.params
        .iter()
        .map(|p| p.value.ok_or_else(|| p.name.clone()))
        .collect()
}

fn eval_extent(aff: &Option<crate::ir::AffExpr>, values: &[i64]) -> Option<i64> {
    let aff = aff.as_ref()?;
    ParamAffine {
        coeffs: aff.coeffs.clone(),
        constant: aff.constant,
    }
    .eval(values)
    .ok()
}

/// Cells of the array after remapping with `layout`.
fn layout_cells(layout: &ArrayLayout, extents: &[Option<i64>], values: &[i64]) -> Option<i64> {
    let mut cells: i64 = 1;
    if layout.is_linear() {
        for dim in &layout.dims {
            if let DimLayout::Linear { modulus, .. } = dim {
                cells = cells.checked_mul(*modulus)?;
            }
        }
        return Some(cells);
    }
    for (dim, extent) in layout.dims.iter().zip(extents) {
        let size = match dim {
            DimLayout::Dropped => 1,
            DimLayout::Linear { modulus, .. } => *modulus,
            DimLayout::Plain { extent: None } => (*extent)?,
            DimLayout::Plain { extent: Some(b) } => b.eval(values).ok()?,
            // A guarded extent is at least 1 (see `DimLayout::Modulo`).
            DimLayout::Modulo { modulus: b, .. } => b.eval(values).ok()?.max(1),
        };
        cells = cells.checked_mul(size)?;
    }
    Some(cells)
}

/// Steps (about one per operation) the pipeline's trace of one array may
/// use: it only helps (exact live-in and max-live for the known values), so
/// a huge iteration space gives up early instead of filling the memory;
/// `polyfold verify` has its own, larger budget. The time is a safety net.
const TRACE_STEPS: u64 = 2_000_000;

/// Steps of the trace that only records an array's max-live count for the
/// reports (`ContractOptions::record_max_live`): small, so that a report
/// costs little more than the transform; past it the bound is unknown.
const RECORD_TRACE_STEPS: u64 = 250_000;

/// Solver steps the lattice strategies of one array may use (the optimal
/// search has its own, `optimal_steps`): the corpus needs at most 340 000
/// (blur_tiled's `blurx`); a difference set of many pieces whose hull would
/// take minutes stops here (tests/regressions/lattice_hull_budget.c).
const LATTICE_STEPS: u64 = 1_000_000;

/// Runs the whole contraction on `program`.
pub fn contract_program(
    program: &Program,
    options: &ContractOptions,
) -> Result<FileContraction, String> {
    let mut overrides = options.overrides.clone();
    overrides
        .temp
        .extend(crate::analysis::liveness::pragma_temps(&program.source));
    let mut decisions = Vec::new();
    let mut edits = Vec::new();
    let mut merged = Vec::new();
    let mut not_merged = Vec::new();
    for (si, scop) in program.scops.iter().enumerate() {
        let first_decision = decisions.len();
        let mut scop_edits = Vec::new();
        // `nowait`, tasks, sections: concurrency beyond parallel loops.
        let unmodelled = crate::frontend::parallel::unmodelled_concurrency(&program.source, scop);
        for array in &scop.arrays {
            let start = Instant::now();
            let classification = classify(array, &overrides);
            let values = param_values(scop).ok();
            let extents: Vec<Option<i64>> = array
                .extents
                .iter()
                .map(|e| values.as_ref().and_then(|v| eval_extent(&e.aff, v)))
                .collect();
            let original_cells = extents
                .iter()
                .try_fold(1i64, |acc, e| acc.checked_mul((*e)?));
            let mut strategies = Vec::new();
            let mut max_live = None;
            let mut safety_net_fired = false;
            let (outcome, method) = if classification.liveness == Liveness::External {
                (ArrayOutcome::External, "-")
            } else if let Some(why) = &unmodelled {
                (
                    ArrayOutcome::Kept {
                        why: why.clone(),
                        cause: KeptCause::Other,
                    },
                    "-",
                )
            } else if let Some((iterator, mark)) = &array.facts.shared_by_parallel_loop {
                // Every iteration of that loop runs the SCoP, at the same
                // time, on this one array: its layout stays.
                let why = format!(
                    "the SCoP runs in each iteration of a parallel loop and the array is declared outside that loop (shared by the iterations): {}",
                    mark.describe(&program.source, iterator)
                );
                (
                    ArrayOutcome::Kept {
                        why,
                        cause: KeptCause::Other,
                    },
                    "-",
                )
            } else {
                let mut budget = Budget::new(options.steps_per_array, Some(options.time_per_array));
                let job = ArrayJob {
                    scop,
                    macros_pinnable: params_are_macros(program, scop),
                    array: array.id,
                    extents: &extents,
                    original_cells,
                };
                // `None`: no trace ran; `Some(None)`: one gave up.
                let mut traced: Option<Option<usize>> = None;
                let found = Found {
                    strategies: &mut strategies,
                    max_live: &mut traced,
                };
                let result = match contract_array(options, job, &mut budget, found) {
                    Ok(o) => o,
                    Err(Kept { why, cause }) => (ArrayOutcome::Kept { why, cause }, "-"),
                };
                max_live = traced.flatten();
                if options.record_max_live && traced.is_none() {
                    max_live = values.as_ref().and_then(|values| {
                        let program = crate::verify::build::trace_program_of_array(scop, array.id);
                        budget
                            .with_part(RECORD_TRACE_STEPS, options.time_per_array, |part| {
                                crate::verify::run_trace(&program, values, part)
                            })
                            .ok()
                            .map(|t| t.max_live[array.id.0 as usize])
                    });
                }
                safety_net_fired = budget.safety_net_fired();
                result
            };
            if let ArrayOutcome::Remapped { layout, .. } = &outcome {
                let planned = plan_array_edits(&program.source, scop, array.id, layout)
                    .ok_or_else(|| format!("internal error: no declarator for `{}`", array.name))?;
                scop_edits.push((array.id, planned));
            }
            let parallel_loops = if classification.liveness == Liveness::External {
                Vec::new()
            } else {
                scop.parallel_loops(Some(array.id))
            };
            decisions.push(ArrayDecision {
                scop: si,
                array: array.id,
                name: array.name.clone(),
                classification,
                original_cells,
                outcome,
                method,
                strategies,
                time: start.elapsed(),
                max_live,
                safety_net_fired,
                parallel_loops,
            });
        }
        // Nothing to merge in a SCoP without temporaries.
        let temporaries = decisions[first_decision..]
            .iter()
            .filter(|d| !matches!(d.outcome, ArrayOutcome::External))
            .count();
        if options.inter_array && temporaries > 0 {
            match merge_scop(
                program,
                si,
                &overrides,
                options.inter_array_time,
                &mut decisions[first_decision..],
                &mut scop_edits,
            ) {
                Ok(m) => merged.push(m),
                Err(why) => not_merged.push((si, why)),
            }
        }
        edits.extend(scop_edits.into_iter().flat_map(|(_, e)| e));
    }
    edits.extend(static_assertions(program, &decisions));
    let output = apply_edits(&program.source, &edits).map_err(|e| e.to_string())?;
    Ok(FileContraction {
        decisions,
        merged,
        not_merged,
        edits,
        output,
    })
}

/// `--inter-array` on SCoP `si`: runs the SMO path and, when its buffers
/// need fewer cells than the temporaries folded one by one, replaces their
/// edits with its own (and a `_Static_assert` of the parameter values,
/// since the merged mapping is certified for them only) and marks their
/// decisions `Merged`. `None` (and nothing changed) otherwise; a SCoP that
/// the SMO path cannot handle keeps its per-array result.
fn merge_scop(
    program: &Program,
    si: usize,
    overrides: &LivenessOverrides,
    budget: Duration,
    decisions: &mut [ArrayDecision],
    scop_edits: &mut Vec<(ArrayId, Vec<Edit>)>,
) -> Result<MergedScop, String> {
    let scop = &program.scops[si];
    if let Some(why) = crate::frontend::parallel::unmodelled_concurrency(&program.source, scop) {
        return Err(why);
    }
    // A SCoP with a parallel loop (in it or around it) is refused by the
    // SMO path, which orders values sequentially; it keeps its per-array
    // result (those mappings keep parallel iterations apart).
    if !params_are_macros(program, scop) {
        return Err("the parameters are not all #defines of the file".into());
    }
    let values =
        param_values(scop).map_err(|name| format!("parameter `{name}` has no known value"))?;
    let start = Instant::now();
    let mut c =
        crate::pipeline_smo::contract_scop_smo_with(program, si, &values, overrides, budget)?;
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
    scop_edits.retain(|(a, _)| !c.temporaries.contains(&scop.array(*a).name));
    let condition = values_condition(scop, &values);
    if !condition.is_empty() {
        // Right after the buffers' declaration (wherever it was placed).
        let what = format!("merged storage of {}", c.temporaries.join(", "));
        c.declare_after_buffers(&program.source, &static_assert_text(&condition, &what))?;
    }
    let edits = c.edits.clone();
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
            d.method = "inter-array";
        }
    }
    scop_edits.push((ArrayId(u32::MAX), edits));
    Ok(MergedScop {
        scop: si,
        per_array_cells: per_array,
        merged_cells: c.new_cells,
        lower_bound: c.lower_bound,
        method: c.method,
        report: c.report,
        time: start.elapsed(),
        storage: c.storage,
    })
}

/// Whether every parameter of `scop` is an object-like `#define` of the
/// file, so that a `_Static_assert` can pin its value.
fn params_are_macros(program: &Program, scop: &Scop) -> bool {
    scop.params.iter().all(|p| {
        program
            .macros
            .objects
            .iter()
            .any(|o| o.name == p.name && o.span.is_some())
    })
}

/// The parameters whose known value the model of `scop` uses, as
/// `` `N`, `M` ``.
fn value_used_names(scop: &Scop) -> String {
    scop.params
        .iter()
        .filter(|p| p.value_used)
        .map(|p| format!("`{}`", p.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `P1 == v1 && P2 == v2 ...` for the parameters of `scop` (a macro whose
/// body is not one operand is parenthesised: `(LAST) == 15`, since
/// `N-1 == 15` is `N - (1 == 15)`, true for every `N`).
fn values_condition(scop: &Scop, values: &[i64]) -> String {
    scop.param_texts()
        .iter()
        .zip(values)
        .map(|(p, v)| format!("{p} == {v}"))
        .collect::<Vec<_>>()
        .join(" && ")
}

/// A `_Static_assert(condition, "polyfold: the {what} is certified for
/// these parameter values only")` on its own line after byte `end` (the end
/// of a declaration), indented like that line.
fn static_assert_after(program: &Program, end: usize, condition: &str, what: &str) -> Edit {
    let line_start = program.source[..end].rfind('\n').map_or(0, |i| i + 1);
    let indent: String = program.source[line_start..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    Edit::insert(
        end,
        format!("\n{indent}{}", static_assert_text(condition, what)),
    )
}

/// `_Static_assert(condition, "polyfold: the {what} is certified for these
/// parameter values only");`
fn static_assert_text(condition: &str, what: &str) -> String {
    format!(
        "_Static_assert({condition}, \"polyfold: the {what} is certified for these parameter values only\");"
    )
}

/// A mapping certified only for the known parameter values must not
/// silently survive a change of those values: after the declaration of each
/// such array, a `_Static_assert` pins the values (C11), so that a rebuild
/// with other values fails to compile instead of computing garbage.
fn static_assertions(program: &Program, decisions: &[ArrayDecision]) -> Vec<Edit> {
    let mut by_decl: Vec<(usize, Vec<String>, String)> = Vec::new();
    for d in decisions {
        let ArrayOutcome::Remapped {
            certificate: Certificate::ForValues(values),
            ..
        } = &d.outcome
        else {
            continue;
        };
        let scop = &program.scops[d.scop];
        let Some(decl) = scop.array(d.array).decl_span.clone() else {
            continue;
        };
        let condition = values_condition(scop, values);
        match by_decl.iter_mut().find(|(end, _, _)| *end == decl.end) {
            Some((_, names, _)) => names.push(d.name.clone()),
            None => by_decl.push((decl.end, vec![d.name.clone()], condition)),
        }
    }
    by_decl
        .into_iter()
        .map(|(end, names, condition)| {
            static_assert_after(
                program,
                end,
                &condition,
                &format!("storage of {}", names.join(", ")),
            )
        })
        .collect()
}

/// One temporary array to contract, in its SCoP.
struct ArrayJob<'a> {
    scop: &'a Scop,
    /// Whether the parameters are `#define`s that a `_Static_assert` can
    /// pin (mappings for the known values only are allowed then).
    macros_pinnable: bool,
    array: ArrayId,
    /// Extents for the known parameter values.
    extents: &'a [Option<i64>],
    original_cells: Option<i64>,
}

/// What [`contract_array`] learns on the way, whatever it decides.
struct Found<'a> {
    /// Every strategy that found a certified size.
    strategies: &'a mut Vec<StrategySize>,
    /// When a trace ran: its max-live count (`None` when it gave up).
    max_live: &'a mut Option<Option<usize>>,
}

/// Finds, certifies and lays out a mapping for one temporary array.
fn contract_array(
    options: &ContractOptions,
    job: ArrayJob<'_>,
    budget: &mut Budget,
    found: Found<'_>,
) -> Result<(ArrayOutcome, &'static str), Kept> {
    let Found {
        strategies,
        max_live,
    } = found;
    let ArrayJob {
        scop,
        macros_pinnable,
        array,
        extents,
        original_cells,
    } = job;
    let decl = scop.array(array);
    let model: ArrayModel = array_model(scop, array);
    if decl.declarator_span.is_none() {
        return Err("its declaration was not found".into());
    }
    if !model.events.iter().any(|e| e.kind == AccessKind::Write) {
        return Err("it is never written in the SCoP".into());
    }
    let values = param_values(scop).map_err(|name| Kept {
        why: format!("parameter `{name}` has no known value (pass -D {name}=VALUE)"),
        cause: KeptCause::MissingValue { param: name },
    })?;
    let solver = |e: crate::poly::PolyError| format!("analysis gave up: {e}");
    // The trace of the statements that access this array, run at most once
    // and only when an exact answer for the known values is needed.
    let mut trace: Option<crate::verify::TraceReport> = None;
    let extent_affs: Vec<Option<ParamAffine>> = decl
        .extents
        .iter()
        .map(|e| {
            e.aff.as_ref().map(|a| ParamAffine {
                coeffs: a.coeffs.clone(),
                constant: a.constant,
            })
        })
        .collect();
    let one_location = ModularMapping::axis(
        &decl.name,
        &model.params,
        vec![ParamAffine::constant(model.params.len(), 1); model.rank],
    );
    let live_in = live_in_cells(&model, &scop.context, budget).map_err(solver)?;
    // Live-in cells for some parameter values of the context: the mapping
    // can only be certified for the known values, where there are none.
    // A model that folded a known value into a coefficient or a constant
    // (`N / 2` became 32) is exact for the known values only: nothing proven
    // from it holds for other values, so no symbolic certificate either.
    let allow_symbolic = live_in.pieces.is_empty() && !scop.depends_on_values();
    if !live_in.exact && !live_in.pieces.is_empty() {
        // The symbolic answer is a superset; the trace decides exactly for
        // the known values. It runs with every cell of the array on one
        // location: its live-in count and max-live bound do not depend on
        // the mapping, and it checks whether one location is enough (below).
        if trace.is_none() {
            let mut program = crate::verify::build::trace_program_of_array(scop, array);
            program.arrays[array.0 as usize].storage =
                crate::verify::Storage::Modular(one_location.clone());
            let run = budget.with_part(TRACE_STEPS, options.time_per_array, |part| {
                crate::verify::run_trace(&program, &values, part)
            });
            *max_live = Some(None);
            trace = Some(run.map_err(solver)?);
        }
        let report = trace.as_ref().expect("just computed");
        *max_live = Some(Some(report.max_live[array.0 as usize]));
        if report.initial_reads[array.0 as usize] > 0 {
            return Err("some cells are read before they are written (live-in)".into());
        }
        // At most one value live at a time, and the run with one location
        // saw every read find the value the original program reads: for the
        // known values the exhaustive trace is the certificate (exact
        // enumeration of every operation, the correctness criterion
        // itself), and the conflict analysis is not needed.
        // The trace runs the sequential order: it says nothing of the
        // interleavings of a parallel loop, so it certifies nothing there.
        let in_parallel_loop = model.events.iter().any(|e| !e.parallel_levels.is_empty());
        if macros_pinnable
            && !in_parallel_loop
            && report.max_live[array.0 as usize] <= 1
            && report.first_mismatch.is_none()
            && original_cells.is_none_or(|n| n > 1)
        {
            let certificate = Certificate::ForValues(values.clone());
            if let Ok(layout) = axis_layout(
                &model,
                &one_location,
                &extent_affs,
                &certificate,
                &scop.context,
                budget,
            ) {
                let new_cells = layout_cells(&layout, extents, &values);
                strategies.extend(new_cells.map(|cells| StrategySize {
                    method: "max-live 1 (trace)",
                    cells,
                    proven_optimal: None,
                    time: Duration::ZERO,
                }));
                return Ok((
                    ArrayOutcome::Remapped {
                        mapping: one_location,
                        certificate,
                        layout,
                        new_cells,
                    },
                    "max-live 1 (trace)",
                ));
            }
        }
    }
    for piece in live_in.pieces.iter().filter(|_| live_in.exact) {
        let mut q = piece.clone();
        fix_params(&mut q, &values);
        if !matches!(integer_point(&q, budget), Ok(None)) {
            return Err("some cells are read before they are written (live-in)".into());
        }
    }
    let conflicts = compute_cell_conflicts(&model, &[], budget).map_err(solver)?;
    let ds: Vec<BasicSet> = conflicts.difference_set();
    let mut best: Option<Choice> = None;
    let mut last_failure = if scop.depends_on_values() && !macros_pinnable {
        format!(
            "the model uses the known value of {} (a product, `/` or `%` folded to a number), which is not a #define of the file that a _Static_assert could pin",
            value_used_names(scop)
        )
    } else {
        String::from(
            "no mapping proven for every parameter value, and the parameters are not all #defines that could pin the values",
        )
    };
    // DS at the known values, with the existentials that can be eliminated
    // exactly gone: computed once for the numeric moduli, the certification
    // for the known values and the lattices (same integer points as `ds` at
    // `values`).
    let fixed_ds = fix_and_simplify(&ds, &values).map_err(solver)?;
    let numeric = moduli_for_values(&fixed_ds, model.rank, &values, budget).map_err(solver)?;
    // Successive modulo, unless even its numeric moduli cannot beat the
    // declaration.
    let estimate = numeric.iter().zip(extents).try_fold(1i64, |acc, (b, e)| {
        acc.checked_mul((*b).min(e.unwrap_or(*b)))
    });
    let successive_gains = match (estimate, original_cells) {
        (Some(new), Some(old)) => new < old,
        _ => true,
    };
    let successive_start = Instant::now();
    if successive_gains {
        let found = if allow_symbolic {
            fit_moduli(&ds, model.rank, &values, numeric.clone(), budget).map_err(solver)?
        } else {
            SuccessiveResult {
                numeric: numeric.clone(),
                symbolic: None,
            }
        };
        // Symbolic first: valid for every parameter value of the context.
        let mut attempts: Vec<(ModularMapping, CertifyMode<'_>)> = Vec::new();
        if let Some(m) = found
            .symbolic_mapping(&decl.name, &model.params)
            .filter(|_| allow_symbolic)
        {
            attempts.push((
                m,
                CertifyMode::Symbolic {
                    context: &scop.context,
                },
            ));
        }
        if macros_pinnable {
            attempts.push((
                found.numeric_mapping(&decl.name, &model.params),
                CertifyMode::Fixed(&values),
            ));
        }
        for (mapping, mode) in attempts {
            let pieces = match mode {
                CertifyMode::Fixed(_) => &fixed_ds,
                CertifyMode::Symbolic { .. } => &ds,
            };
            let certificate = match certify_modular(pieces, &mapping, mode, budget) {
                Ok(c) => c,
                Err(f) => {
                    last_failure = f.to_string();
                    continue;
                }
            };
            match axis_layout(
                &model,
                &mapping,
                &extent_affs,
                &certificate,
                &scop.context,
                budget,
            ) {
                Ok(layout) => {
                    let new_cells = layout_cells(&layout, extents, &values);
                    strategies.extend(new_cells.map(|cells| StrategySize {
                        method: "successive modulo",
                        cells,
                        proven_optimal: None,
                        time: successive_start.elapsed(),
                    }));
                    best = Some(Choice {
                        mapping,
                        certificate,
                        layout,
                        new_cells,
                        method: "successive modulo",
                    });
                    break;
                }
                Err(f) => last_failure = f.0,
            }
        }
    } else {
        // Its moduli are the declared extents: the declared layout.
        strategies.extend(original_cells.map(|cells| StrategySize {
            method: "successive modulo",
            cells,
            proven_optimal: None,
            time: successive_start.elapsed(),
        }));
        last_failure = format!(
            "no smaller mapping: successive modulo needs all {} cells",
            original_cells.unwrap_or_default()
        );
    }
    // Lattices (seed 001 §4) for the known values, when they can be pinned.
    let current = best
        .as_ref()
        .and_then(|b| b.new_cells)
        .or(original_cells)
        .unwrap_or(i64::MAX);
    if options.lattices && macros_pinnable && model.rank >= 2 && current > 1 {
        if trace.is_none() {
            let program = crate::verify::build::trace_program_of_array(scop, array);
            trace = budget
                .with_part(TRACE_STEPS, options.time_per_array, |part| {
                    crate::verify::run_trace(&program, &values, part)
                })
                .ok();
        }
        *max_live = Some(trace.as_ref().map(|t| t.max_live[array.0 as usize]));
        let lower_bound = trace
            .as_ref()
            .map_or(1, |t| t.max_live[array.0 as usize] as i64)
            .max(1);
        let lattice_options = LatticeOptions {
            array: decl.name.clone(),
            optimal: options.optimal_steps > 0,
            optimal_steps: options.optimal_steps,
            safety_net: options.time_per_array,
            lower_bound,
            ..LatticeOptions::default()
        };
        // The lattice strategies only improve on a certified layout: they
        // get a part of the array's budget (the optimal search its own
        // steps), so that a hard difference set cannot starve the rest of
        // the run. When the current size already meets the max-live bound,
        // no mapping can do better and the strategies are not run.
        let mut candidates = if lower_bound >= current {
            Vec::new()
        } else {
            match budget.with_part(LATTICE_STEPS, options.time_per_array, |part| {
                lattice_candidates(&fixed_ds, model.rank, &values, &lattice_options, part)
            }) {
                Ok(c) => c,
                Err(e) => {
                    last_failure = format!("{last_failure}; the lattice strategies gave up: {e}");
                    Vec::new()
                }
            }
        };
        candidates.sort_by_key(|c| (c.size, c.simplicity()));
        strategies.extend(candidates.iter().map(|c| StrategySize {
            method: c.method,
            cells: c.size,
            proven_optimal: c.optimal,
            time: c.time,
        }));
        for candidate in candidates {
            if candidate.size >= current {
                break;
            }
            let certificate = Certificate::ForValues(values.clone());
            let layout = if candidate.mapping.is_axis() {
                axis_layout(
                    &model,
                    &candidate.mapping,
                    &extent_affs,
                    &certificate,
                    &scop.context,
                    budget,
                )
            } else {
                linear_layout(&model, &candidate.mapping, &values, budget)
            };
            if let Ok(layout) = layout {
                let new_cells = layout_cells(&layout, extents, &values);
                if new_cells.is_some_and(|n| n < current) {
                    best = Some(Choice {
                        mapping: candidate.mapping,
                        certificate,
                        layout,
                        new_cells,
                        method: candidate.method,
                    });
                    break;
                }
            }
        }
    }
    match best {
        Some(choice) => {
            if let (Some(new), Some(old)) = (choice.new_cells, original_cells)
                && new >= old
            {
                return Err(format!("no smaller mapping: the best needs all {old} cells").into());
            }
            Ok((
                ArrayOutcome::Remapped {
                    mapping: choice.mapping,
                    certificate: choice.certificate,
                    layout: choice.layout,
                    new_cells: choice.new_cells,
                },
                choice.method,
            ))
        }
        None => Err(last_failure.into()),
    }
}

/// A certified mapping with its layout, size and method.
struct Choice {
    mapping: ModularMapping,
    certificate: Certificate,
    layout: ArrayLayout,
    new_cells: Option<i64>,
    method: &'static str,
}

/// Runs the trace verifier on every SCoP of `program` with the storage of
/// `contraction` (per-array mappings, and merged buffers with every
/// access at the location the emitted program computes), for the known
/// parameter values (each SCoP whose parameters all have values). Returns
/// one report per verified SCoP.
pub fn verify_contraction(
    program: &Program,
    contraction: &FileContraction,
    budget: &mut Budget,
) -> Result<Vec<(usize, crate::verify::TraceReport)>, String> {
    let mut reports = Vec::new();
    for (si, scop) in program.scops.iter().enumerate() {
        let Ok(values) = param_values(scop) else {
            continue;
        };
        let mut trace = crate::verify::build::trace_program(scop);
        for d in contraction.decisions.iter().filter(|d| d.scop == si) {
            if let ArrayOutcome::Remapped { mapping, .. } = &d.outcome {
                trace.arrays[d.array.0 as usize].storage =
                    crate::verify::Storage::Modular(mapping.clone());
            }
        }
        // Merged buffers: every access at the location the emitted program
        // computes, the deleted copies not run.
        for m in contraction.merged.iter().filter(|m| m.scop == si) {
            trace
                .merge(&m.storage)
                .map_err(|e| format!("merged storage of SCoP {si}: {e}"))?;
        }
        let report = crate::verify::run_trace(&trace, &values, budget)
            .map_err(|e| format!("trace of SCoP {si} failed: {e}"))?;
        reports.push((si, report));
    }
    Ok(reports)
}
