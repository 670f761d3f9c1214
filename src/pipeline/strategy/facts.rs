//! What every per-array strategy reads and writes: the facts of one array
//! (its model, values, extents, conflicts, trace), the proposals a
//! strategy makes, and the chooser's state (the best certified storage so
//! far and every size tried).

use std::time::Duration;

use crate::analysis::build::array_model;
use crate::analysis::livein::{LiveIn, live_in_cells};
use crate::analysis::model::{AccessKind, ArrayModel};
use crate::analysis::values::array_conflicts;
use crate::ir::{ArrayId, Scop};
use crate::mapping::Method;
use crate::mapping::certify::Certificate;
use crate::mapping::layout::{ArrayLayout, DimLayout};
use crate::mapping::modular::{ModularMapping, ParamAffine};
use crate::mapping::successive::{fix_and_simplify, moduli_for_values};
use crate::poly::enumerate::fix_params;
use crate::poly::simplex::integer_point;
use crate::poly::{BasicSet, Budget};
use crate::verify::{Storage as TraceStorage, TraceReport};

use crate::pipeline::certify::{
    ArrayClaim, Certified, Refused, Scope, certify_array, certify_by_trace,
};
use crate::pipeline::options::{ContractOptions, TRACE_STEPS};
use crate::pipeline::record::{KeptReason as Kept, StrategySize};

use crate::pipeline::record::{EveryValue, PinOffer};

use super::cost::layout_cells;
use super::{cost, fits};

/// A candidate storage for one array, not yet certified.
pub(crate) struct Proposal {
    pub method: Method,
    pub mapping: ModularMapping,
    pub proof: Proof,
    /// The size the strategy expects (`None`: unknown): a proposal that
    /// cannot beat the current choice is not certified.
    pub cells: Option<i64>,
    /// The strategy's time, for the reports.
    pub time: Duration,
}

impl Proposal {
    /// Whether its proof can only be for the known values.
    pub(super) fn is_pinned(&self) -> bool {
        matches!(
            self.proof,
            Proof::Trace
                | Proof::DifferenceSet(Scope::KnownValues)
                | Proof::Packed(_, Scope::KnownValues)
        )
    }
}

/// Which proof a proposal asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Proof {
    /// On the difference set, for every parameter value or the known ones.
    DifferenceSet(Scope),
    /// The trace of the array's statements with this storage
    /// ([`ArrayFacts::trace`] ran with it).
    Trace,
    /// Every access inside a triangle of two dimensions declared with the
    /// same extent, packed (see [`crate::pipeline::certify::certify_packed`]).
    Packed((usize, usize, crate::mapping::layout::Triangle), Scope),
}

/// What a strategy proposes, and what it found on the way.
#[derive(Default)]
pub(crate) struct Proposals {
    /// In order of preference: the first certified one that beats the
    /// current choice is taken.
    pub list: Vec<Proposal>,
    /// Sizes the strategy certified by itself (e.g. every lattice
    /// heuristic), for the reports; the chosen one is certified again.
    /// When empty, the chooser lists the size of the proposal it takes.
    pub sizes: Vec<StrategySize>,
    /// Why the strategy found nothing (kept when nothing else is found).
    pub failure: Option<Kept>,
}

/// What the pipeline knows about one temporary before any strategy runs.
pub(crate) struct ArrayFacts<'a> {
    pub options: &'a ContractOptions,
    pub scop: &'a Scop,
    pub array: ArrayId,
    pub model: ArrayModel,
    /// The known parameter values or, when some parameter has none,
    /// probe values of the context ([`probe_values`]): then only a proof
    /// for every value is made, and these values only guide the search
    /// (where to fit moduli, which proposal looks smaller).
    pub values: Vec<i64>,
    /// Whether `values` are the program's values (not probes).
    pub values_known: bool,
    /// Extents for `values`, and as affine expressions.
    pub extents: Vec<Option<i64>>,
    pub extent_affs: Vec<Option<ParamAffine>>,
    pub original_cells: Option<i64>,
    /// Whether the parameters are `#define`s that a `_Static_assert` can
    /// pin (storage for the known values only is allowed then).
    pub macros_pinnable: bool,
    /// Live-in cells at other values than the known ones were left out:
    /// the array starts every run of its SCoP indeterminate (see
    /// `crate::frontend::fresh`), so they read nothing C defines.
    pub indeterminate_live_in: bool,
    /// Whether a proof for every parameter value is possible (no live-in
    /// cells, no known value folded into the model).
    pub allow_symbolic: bool,
    /// Every cell of the array on one location.
    pub one_location: ModularMapping,
    pub(super) live_in: LiveIn,
    /// The trace of the array's statements, once run, and the storage it
    /// ran with.
    pub trace: Option<(TraceReport, TraceStorage)>,
    /// `None`: no trace ran; `Some(None)`: one gave up.
    pub max_live: Option<Option<usize>>,
    pub(crate) conflicts: Option<Conflicts>,
    /// Without `--pin-sizes`, once the strategies ran: the smallest
    /// storage for some parameter values only, when smaller than the
    /// choice (see [`crate::pipeline::record::ArrayDecision::pin_offer`]).
    pub pin_offer: Option<PinOffer>,
}

/// The difference set of the array, symbolic and for the known values.
pub(crate) struct Conflicts {
    pub ds: Vec<BasicSet>,
    pub fixed_ds: Vec<BasicSet>,
    /// Successive-modulo moduli for the known values.
    pub numeric: Vec<i64>,
    /// Which lifetimes the difference set comes from.
    pub lifetimes: crate::analysis::values::Lifetimes,
}

/// Whether no piece of `pieces` (sets over the parameters and the cells)
/// holds a point for the parameter values `values` (an undecided solver
/// counts as a point).
fn none_at(pieces: &[BasicSet], values: &[i64], budget: &mut Budget) -> bool {
    pieces.iter().all(|piece| {
        let mut q = piece.clone();
        fix_params(&mut q, values);
        matches!(integer_point(&q, budget), Ok(None))
    })
}

pub(crate) fn solver(e: crate::poly::PolyError) -> Kept {
    Kept::AnalysisGaveUp(e)
}

/// Known values of every parameter of `scop`, or the name of one without.
pub fn param_values(scop: &Scop) -> Result<Vec<i64>, String> {
    scop.param_values()
}

/// Whether the cell count of `layout` is proven at most that of the
/// declaration plus [`fits::EXCESS`] (times the factors both share) for
/// every parameter value of `context` (see [`fits`]): for layouts no
/// dimension-by-dimension comparison covers.
pub(super) fn by_cells(
    layout: &ArrayLayout,
    declared: &[Option<ParamAffine>],
    context: &BasicSet,
    budget: &mut Budget,
) -> bool {
    let Some(old) = declared.iter().cloned().collect::<Option<Vec<_>>>() else {
        return false;
    };
    let mut new: Vec<ParamAffine> = Vec::new();
    for (p, dim) in layout.dims.iter().enumerate() {
        match dim {
            DimLayout::Dropped => {}
            DimLayout::Plain { extent: None } => new.push(old[p].clone()),
            // Not proven at least 1: declared `max(b, 1)`, not counted here.
            DimLayout::Modulo {
                extent_proven: false,
                ..
            }
            | DimLayout::Linear {
                extent_proven: false,
                ..
            } => return false,
            // A packed triangle is not a product of extents.
            DimLayout::Packed { .. } => return false,
            DimLayout::Plain { extent: Some(b) }
            | DimLayout::Modulo { modulus: b, .. }
            | DimLayout::Linear { modulus: b, .. } => new.push(b.clone()),
        }
    }
    fits::within_excess(&new, &old, context, budget)
}

/// Every permutation of `0..n` (n small).
pub(super) fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for perm in permutations(n - 1) {
        for at in 0..=perm.len() {
            let mut p = perm.clone();
            p.insert(at, n - 1);
            out.push(p);
        }
    }
    out
}

/// Whether every dimension of `layout` is proven no larger than the
/// declared extent for every parameter value of `context` (the declared
/// extent itself at least 1), or is a constant: the storage never needs
/// more cells than the declaration, except by a constant factor where the
/// declared extents are smaller than those constants (`y[n][2]` for
/// `y[n][n]` at `n = 1`).
pub(crate) fn layout_fits(
    layout: &ArrayLayout,
    declared: &[Option<ParamAffine>],
    context: &BasicSet,
    budget: &mut Budget,
) -> bool {
    // `{ p ∈ context : Σ row·p + constant >= 0 }` is empty.
    let mut never = |coeffs: Vec<i64>, constant: i64| {
        let mut q = context.clone();
        let mut row = q.zero_row();
        row[..coeffs.len()].copy_from_slice(&coeffs);
        let last = row.len() - 1;
        row[last] = constant;
        q.add_ineq(row);
        matches!(integer_point(&q, budget), Ok(None))
    };
    let quasi = layout.dims.iter().any(|d| match d {
        DimLayout::Plain { extent: Some(b) }
        | DimLayout::Modulo { modulus: b, .. }
        | DimLayout::Linear { modulus: b, .. } => !b.is_affine(),
        DimLayout::Dropped | DimLayout::Plain { extent: None } | DimLayout::Packed { .. } => false,
    });
    if quasi {
        return by_cells(layout, declared, context, budget);
    }
    if layout.is_linear() {
        // One row over k dimensions: b <= e_1 + … + e_k - (k - 1) implies
        // b <= e_1·…·e_k when every e_p >= 1 (by induction on k, from
        // a·b - (a + b - 1) = (a - 1)(b - 1) >= 0).
        let [DimLayout::Linear { modulus: b, .. }] = &layout.dims[..] else {
            // As many rows as dimensions (a change of basis, seed 004's
            // reindexing): each modulus at most a distinct declared
            // extent (every extent at least 1) bounds the product.
            if let Some(moduli) = layout
                .dims
                .iter()
                .map(|d| match d {
                    DimLayout::Linear { modulus, .. } => Some(modulus.clone()),
                    _ => None,
                })
                .collect::<Option<Vec<_>>>()
                && let Some(extents) = declared.iter().cloned().collect::<Option<Vec<_>>>()
                && moduli.len() == extents.len()
                && moduli.len() <= 4
                && extents
                    .iter()
                    .all(|e| never(e.coeffs.iter().map(|c| -c).collect(), -e.constant))
            {
                let mut fits_under = |b: &ParamAffine, e: &ParamAffine| {
                    let diff: Vec<i64> =
                        b.coeffs.iter().zip(&e.coeffs).map(|(b, e)| b - e).collect();
                    never(diff, b.constant - e.constant - 1)
                };
                let n = moduli.len();
                let under: Vec<Vec<bool>> = moduli
                    .iter()
                    .map(|b| extents.iter().map(|e| fits_under(b, e)).collect())
                    .collect();
                if permutations(n)
                    .iter()
                    .any(|perm| (0..n).all(|r| under[r][perm[r]]))
                {
                    return true;
                }
            }
            return by_cells(layout, declared, context, budget);
        };
        let Some(extents) = declared.iter().cloned().collect::<Option<Vec<_>>>() else {
            return false;
        };
        let mut sum = ParamAffine::constant(b.coeffs.len(), 1 - extents.len() as i64);
        for e in &extents {
            if !never(e.coeffs.iter().map(|c| -c).collect(), -e.constant) {
                return false;
            }
            for (s, c) in sum.coeffs.iter_mut().zip(&e.coeffs) {
                *s += c;
            }
            sum.constant += e.constant;
        }
        let diff: Vec<i64> = b
            .coeffs
            .iter()
            .zip(&sum.coeffs)
            .map(|(b, e)| b - e)
            .collect();
        return never(diff, b.constant - sum.constant - 1);
    }
    layout.dims.iter().zip(declared).all(|(dim, extent)| {
        let new = match dim {
            DimLayout::Dropped | DimLayout::Plain { extent: None } => return true,
            DimLayout::Plain { extent: Some(b) } | DimLayout::Modulo { modulus: b, .. } => b,
            DimLayout::Linear { .. } => return false,
            // Proposed only for a square pair of declared extents E (proven
            // at least 1): E·(E + 1)/2 <= E·E, the partner is `Dropped`.
            DimLayout::Packed {
                partner, extent: e, ..
            } => {
                return declared
                    .get(*partner)
                    .is_some_and(|d| d.as_ref() == Some(e))
                    && extent.as_ref() == Some(e);
            }
        };
        if new.is_constant() {
            return true;
        }
        let Some(e) = extent else { return false };
        let negated: Vec<i64> = e.coeffs.iter().map(|c| -c).collect();
        // e >= 1 (so that max(b, 1) <= e follows from b <= e) and b <= e.
        let diff: Vec<i64> = new
            .coeffs
            .iter()
            .zip(&e.coeffs)
            .map(|(b, e)| b - e)
            .collect();
        never(negated, -e.constant) && never(diff, new.constant - e.constant - 1)
    })
}

impl<'a> ArrayFacts<'a> {
    /// The lifetimes stage: the model, its live-in cells and, when the
    /// symbolic live-in is not exact, the trace that decides it for the
    /// known values (with every cell on one location, so that it also
    /// tells whether one location is enough).
    pub fn build(
        options: &'a ContractOptions,
        scop: &'a Scop,
        array: ArrayId,
        macros_pinnable: bool,
        budget: &mut Budget,
    ) -> Result<ArrayFacts<'a>, Kept> {
        let decl = scop.array(array);
        let mut model = array_model(scop, array);
        crate::analysis::values::assume_in_bounds(scop, array, &mut model);
        // A parameter keeps its declarator (see `Array::keeps_declarator`):
        // its text is never edited, even when a macro spells it.
        if decl.declarator_span.is_none() && !decl.keeps_declarator() {
            return Err(Kept::DeclarationNotFound);
        }
        if let Some(v) = &decl.facts.extent_written {
            return Err(Kept::ExtentWritten(v.clone()));
        }
        if let Some(what) = &decl.facts.initializer_effect {
            return Err(Kept::InitializerEffect(what.clone()));
        }
        if !model.events.iter().any(|e| e.kind == AccessKind::Write) {
            return Err(Kept::NeverWritten);
        }
        let (values, values_known) = match param_values(scop) {
            Ok(v) => (v, true),
            Err(param) => (
                crate::pipeline::probe::probe_values(scop, budget)
                    .map_err(solver)?
                    .ok_or(Kept::MissingValue { param })?,
                false,
            ),
        };
        let extent_affs = ParamAffine::extents_of(decl);
        let extents: Vec<Option<i64>> = extent_affs
            .iter()
            .map(|e| e.as_ref().and_then(|e| e.eval(&values).ok()))
            .collect();
        let one_location = ModularMapping::axis(
            &decl.name,
            &model.params,
            vec![ParamAffine::constant(model.params.len(), 1); model.rank],
        );
        // A model that folded a known value into a coefficient holds for
        // the known values only: its live-in is computed there, where a
        // linearised subscript (`(2 * n + 1) * k + l`, 129k + l) is seen
        // to be exact.
        let mut context = scop.context.clone();
        let depends_on_values = scop.array_depends_on_values(array);
        if values_known && depends_on_values {
            fix_params(&mut context, &values);
        }
        let mut live_in = live_in_cells(&model, &context, budget).map_err(solver)?;
        let mut indeterminate_live_in = false;
        // A local that starts every run of the SCoP indeterminate: its
        // live-in cells for other values than the known ones (dynprog's
        // `c[0][N - 1]` when N = 1) read nothing the program defined, and
        // no storage needs to keep them. At the known values they still
        // keep the array's layout (the trace would see them).
        if decl.facts.starts_indeterminate
            && values_known
            && !depends_on_values
            && live_in.exact
            && !live_in.pieces.is_empty()
            && none_at(&live_in.pieces, &values, budget)
        {
            // (Only pieces with a point are worth a line of the report.)
            indeterminate_live_in = live_in
                .pieces
                .iter()
                .any(|p| matches!(integer_point(p, budget), Ok(Some(_))));
            live_in.pieces.clear();
        }
        // Live-in cells for some parameter values of the context: the
        // mapping can only be certified for the known values, where there
        // are none. A model that folded a known value into a coefficient
        // (`N / 2` became 32) is exact for the known values only.
        let allow_symbolic = live_in.pieces.is_empty() && !depends_on_values;
        if !values_known && !allow_symbolic {
            // Only a proof for every value could be made, and there are
            // live-in cells for some values (or the symbolic live-in is not
            // exact): the known values would decide.
            let param = param_values(scop).err().unwrap_or_default();
            return Err(Kept::MissingValue { param });
        }
        let original_cells = extents
            .iter()
            .try_fold(1i64, |acc, e| acc.checked_mul((*e)?));
        let mut facts = ArrayFacts {
            options,
            scop,
            array,
            model,
            values,
            values_known,
            extents,
            extent_affs,
            original_cells,
            macros_pinnable: macros_pinnable && values_known,
            allow_symbolic,
            one_location,
            live_in,
            trace: None,
            max_live: None,
            conflicts: None,
            pin_offer: None,
            indeterminate_live_in,
        };
        if !facts.live_in.exact && !facts.live_in.pieces.is_empty() {
            // The symbolic answer is a superset; the trace decides exactly.
            let storage = TraceStorage::Modular(facts.one_location.clone());
            let report = facts.run_trace(storage, budget).map_err(solver)?;
            if report.initial_reads[array.0 as usize] > 0 {
                return Err(Kept::LiveIn);
            }
        }
        Ok(facts)
    }

    /// Runs the trace of the array's statements with `storage` for the
    /// array, within [`TRACE_STEPS`], and records it and its max-live
    /// count (`Some(None)` when it gives up).
    pub fn run_trace(
        &mut self,
        storage: TraceStorage,
        budget: &mut Budget,
    ) -> crate::poly::PolyResult<&TraceReport> {
        self.max_live = Some(None);
        let report = trace_array(
            self.scop,
            self.array,
            &storage,
            &self.values,
            (TRACE_STEPS, self.options.time_per_array),
            budget,
        )?;
        self.max_live = Some(Some(report.max_live[self.array.0 as usize]));
        Ok(&self.trace.insert((report, storage)).0)
    }

    /// The lower ends of [`crate::pipeline::options::PIN_FROM`] (see
    /// [`Scope::AtLeast`]) above which no cell is live-in (checked on the
    /// live-in sets, a superset when inexact: empty there means none).
    pub(crate) fn live_in_free(&self, budget: &mut Budget) -> Vec<i64> {
        crate::pipeline::options::PIN_FROM
            .iter()
            .copied()
            .filter(|t| {
                let within = crate::mapping::certify::region(
                    &self.scop.context,
                    &crate::pipeline::certify::at_least(&self.values, *t),
                );
                self.live_in.pieces.iter().all(|piece| {
                    let mut q = piece.clone();
                    q.add_param_constraints(&within);
                    matches!(crate::poly::simplex::integer_point(&q, budget), Ok(None))
                })
            })
            .collect()
    }

    /// Which lifetimes the conflicts came from, when they were computed.
    pub(crate) fn lifetimes(&self) -> Option<crate::analysis::values::Lifetimes> {
        self.conflicts.as_ref().map(|c| c.lifetimes.clone())
    }

    /// The max-live count of the trace, when one ran and finished.
    pub(crate) fn traced_max_live(&self) -> Option<usize> {
        self.max_live.flatten()
    }

    /// The conflicts stage, run once when a strategy needs it: no live-in
    /// cell for the known values (exactly), then the difference set.
    pub fn conflicts(&mut self, budget: &mut Budget) -> Result<&Conflicts, Kept> {
        self.compute_conflicts(budget)?;
        Ok(self.conflicts.as_ref().expect("just computed"))
    }

    pub(super) fn compute_conflicts(&mut self, budget: &mut Budget) -> Result<(), Kept> {
        if self.conflicts.is_none() {
            if self.live_in.exact && !none_at(&self.live_in.pieces, &self.values, budget) {
                return Err(Kept::LiveIn);
            }
            let (conflicts, lifetimes) =
                array_conflicts(self.scop, self.array, &self.model, budget).map_err(solver)?;
            let ds = conflicts.difference_set();
            let fixed_ds = fix_and_simplify(&ds, &self.values).map_err(solver)?;
            let numeric = moduli_for_values(&fixed_ds, self.model.rank, &self.values, budget)
                .map_err(solver)?;
            self.conflicts = Some(Conflicts {
                ds,
                fixed_ds,
                numeric,
                lifetimes,
            });
        }
        Ok(())
    }

    pub(super) fn claim(&self) -> ArrayClaim<'_> {
        let (ds, fixed_ds) = match &self.conflicts {
            Some(c) => (&c.ds[..], &c.fixed_ds[..]),
            None => (&[][..], &[][..]),
        };
        ArrayClaim {
            scop: self.scop,
            array: self.array,
            model: &self.model,
            extents: &self.extent_affs,
            values: &self.values,
            ds,
            fixed_ds,
            fast_modulo: self.options.fast_modulo,
        }
    }

    /// Hands `proposal` to the certifier.
    pub(super) fn certify(
        &self,
        proposal: &Proposal,
        budget: &mut Budget,
    ) -> Result<Certified, Refused> {
        let mapping = proposal.mapping.clone();
        match proposal.proof {
            Proof::DifferenceSet(scope) => {
                if self.conflicts.is_none() {
                    return Err(Refused::NoDifferenceSet);
                }
                certify_array(&self.claim(), mapping, scope, budget)
            }
            Proof::Trace => {
                let Some((report, storage)) = &self.trace else {
                    return Err(Refused::NoTrace);
                };
                certify_by_trace(&self.claim(), mapping, report, storage, budget)
            }
            Proof::Packed(pair, scope) => {
                crate::pipeline::certify::certify_packed(&self.claim(), pair, scope, budget)
            }
        }
    }

    /// Cells of the array laid out with `layout`, for the known values.
    pub(crate) fn cells_of(&self, layout: &ArrayLayout) -> Option<i64> {
        layout_cells(layout, &self.extents, &self.values)
    }
}

/// The trace of the statements of `scop` that access `array`, with
/// `storage` for it, for `values`, within a part (`steps`, wall-clock
/// safety net) of `budget`.
pub(crate) fn trace_array(
    scop: &Scop,
    array: ArrayId,
    storage: &TraceStorage,
    values: &[i64],
    (steps, safety_net): (u64, Duration),
    budget: &mut Budget,
) -> crate::poly::PolyResult<TraceReport> {
    let mut program = crate::verify::build::trace_program_of_array(scop, array);
    program.arrays[array.0 as usize].storage = storage.clone();
    budget.with_part(steps, safety_net, |part| {
        crate::verify::run_trace(&program, values, part)
    })
}

/// Cells of the array of decision `d` for the parameter values `values`:
/// as remapped, or as declared.
pub(crate) fn decision_cells_at(
    scop: &Scop,
    d: &crate::pipeline::record::ArrayDecision,
    values: &[i64],
) -> Option<i64> {
    let extents: Vec<Option<i64>> = ParamAffine::extents_of(scop.array(d.array))
        .iter()
        .map(|e| e.as_ref().and_then(|e| e.eval(values).ok()))
        .collect();
    match &d.outcome {
        crate::pipeline::record::ArrayOutcome::Remapped { certified, .. } => {
            layout_cells(certified.layout()?, &extents, values)
        }
        _ => extents
            .iter()
            .try_fold(1i64, |acc, e| acc.checked_mul((*e)?)),
    }
}

/// A chosen storage: certified, its size for the known values, and the
/// strategy that proposed it.
pub(crate) struct Choice {
    pub certified: Certified,
    pub cells: Option<i64>,
    pub method: Method,
    /// For a storage pinned to the known values: the smallest storage for
    /// every value it was chosen over (see `FIXED_SIZE_GAIN`), for the
    /// reports and the scaling benchmark.
    pub every_value: Option<EveryValue>,
}

impl Choice {
    /// Whether the storage is certified for the known values only (and
    /// pinned to them in the output).
    pub(super) fn is_pinned(&self) -> bool {
        matches!(self.certified.certificate(), Certificate::ForValues(_))
    }
}

/// The choice among certified proposals: the smallest, the first on ties.
pub(crate) struct Chooser {
    pub(super) original_cells: Option<i64>,
    pub(super) best: Option<Choice>,
    /// Every certified size, for the reports.
    pub sizes: Vec<StrategySize>,
    /// Why nothing (better) was found, from the last failure.
    pub failure: Kept,
    /// The smallest certified storage the cost rule refused ([`cost`]).
    pub(super) refused: Option<cost::Refusal>,
    /// The smallest storage for every value the cost rule refused as the
    /// sizes grow: a mapping for the known values only must be smaller
    /// to be made (else the choice would change with the sizes).
    pub(super) grown: Option<cost::Refusal>,
    /// Without `--pin-sizes`: the smallest storage that would have been
    /// taken but is certified for some parameter values only.
    pub(super) pin_offer: Option<PinOffer>,
}

impl Chooser {
    /// The size to beat: the current choice's, or the declaration's.
    pub fn current(&self) -> i64 {
        self.best
            .as_ref()
            .and_then(|b| b.cells)
            .or(self.original_cells)
            .unwrap_or(i64::MAX)
    }

    /// Whether a pinned storage (one certified for the known values
    /// only) of `cells` cells could be chosen over the current choice:
    /// against one for every value it must pay for its pin
    /// ([`FIXED_SIZE_GAIN`]).
    pub(crate) fn pinned_could_win(&self, cells: i64, min_memory: bool) -> bool {
        match &self.best {
            Some(b) if !min_memory && !b.is_pinned() => {
                b.cells.is_none_or(|c| pays_for_pin(cells, c))
            }
            _ => cells < self.current(),
        }
    }

    /// Whether no strategy can do better: one cell.
    pub(super) fn done(&self) -> bool {
        self.best.as_ref().is_some_and(|b| b.cells == Some(1))
    }
}

/// How much smaller a storage certified for the known values only must be
/// than one certified for every value to be chosen over it (unless
/// `--min-memory` asks for the smallest at any price), as a fraction
/// `numerator / denominator` of the latter's cells: a pinned layout (a
/// `_Static_assert` that fails at any other size, lattice moduli that read
/// like noise, `% 191` where `% 3` would do) must buy a real saving. On
/// jacobi2d_smoothing at N = 64 the optimal lattice gives 191 cells where
/// `[i % 3][j]` gives 192, for every N.
pub(super) const FIXED_SIZE_GAIN: (i64, i64) = (1, 8);

/// Whether a storage of `pinned` cells, certified for the known values
/// only, saves enough over one of `every` cells certified for every value
/// to be chosen instead.
pub(super) fn pays_for_pin(pinned: i64, every: i64) -> bool {
    let (num, den) = FIXED_SIZE_GAIN;
    // pinned <= every * (1 - num / den), in integers.
    i128::from(pinned) * i128::from(den) <= i128::from(every) * i128::from(den - num)
}
