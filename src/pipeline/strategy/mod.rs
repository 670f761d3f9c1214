//! The strategies of one temporary array, and the chooser.
//!
//! [`ArrayFacts`] is computed once per array (the lifetimes stage: model,
//! live-in, the trace when one is needed; and on demand the conflicts
//! stage: the difference set, fixed for the known values). Each strategy
//! then *proposes* storage ([`Proposal`]: a mapping, the method, and the
//! kind of proof it expects); the certifier ([`super::certify`]) checks it;
//! the [`Chooser`] keeps the smallest certified one that pays for the
//! work it adds to the accesses ([`cost`]: a `%` must save a quarter of
//! the cells; `--min-memory` turns this off). A strategy never makes a
//! certified storage itself.
//!
//! Adding a strategy: a file here with
//! `pub(super) fn propose(facts: &mut ArrayFacts, chooser: &Chooser,
//! budget: &mut Budget) -> Result<Proposals, Kept>`, listed in [`PER_ARRAY`]
//! in the order it should run (cheap and exact first). If its proof is of
//! a new kind, one [`Proof`] variant and one `certify_*` function; if its
//! storage is of a new kind, one [`super::certify::Storage`] variant and
//! its code generation in `super::emit`. The SCoP-level strategy (merged
//! buffers, `inter_array`) runs after the per-array ones, on their result;
//! so does, with `--pow2-moduli`, the rounding of the chosen storage's
//! moduli up to powers of two for masks (`masks.rs`).

use std::time::Duration;

use crate::analysis::build::array_model;
use crate::analysis::cells::compute_cell_conflicts;
use crate::analysis::livein::{LiveIn, live_in_cells};
use crate::analysis::model::{AccessKind, ArrayModel};
use crate::ir::{ArrayId, Scop};
use crate::mapping::Method;
use crate::mapping::certify::{Certificate, fix_params};
use crate::mapping::layout::{ArrayLayout, DimLayout};
use crate::mapping::modular::{ModularMapping, ParamAffine};
use crate::mapping::successive::{fix_and_simplify, moduli_for_values};
use crate::poly::simplex::integer_point;
use crate::poly::{BasicSet, Budget};
use crate::verify::{Storage as TraceStorage, TraceReport};

use super::certify::{ArrayClaim, Certified, Scope, certify_array, certify_by_trace};
use super::options::{ContractOptions, PROBE_BASE, PROBE_STEP, TRACE_STEPS};
use super::record::{KeptReason as Kept, StrategySize};

pub mod cost;
mod fits;
pub mod inter_array;
mod lattice;
mod lifted;
pub(super) mod masks;
mod packed;
pub(crate) use lifted::probe_points;
mod reindexed;
mod successive;
mod trace_one;

/// A per-array strategy.
type Strategy = fn(&mut ArrayFacts<'_>, &Chooser, &mut Budget) -> Result<Proposals, Kept>;

/// The per-array strategies, in the order they run. Packing (no search)
/// comes before the lattice searches, whose cost grows with the
/// difference set: a packed triangle at the max-live bound leaves them
/// nothing to find (reg_detect's `sum_t`, `mean` and `diff`).
const PER_ARRAY: [(&str, Strategy); 6] = [
    ("one-cell trace", trace_one::propose),
    ("successive modulo", successive::propose),
    ("unimodular reindexing", reindexed::propose),
    ("packed triangle", packed::propose),
    ("lattice lifted to every size", lifted::propose),
    ("lattice strategies", lattice::propose),
];

/// A candidate storage for one array, not yet certified.
pub(super) struct Proposal {
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
    fn is_pinned(&self) -> bool {
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
pub(super) enum Proof {
    /// On the difference set, for every parameter value or the known ones.
    DifferenceSet(Scope),
    /// The trace of the array's statements with this storage
    /// ([`ArrayFacts::trace`] ran with it).
    Trace,
    /// Every access inside a triangle of two dimensions declared with the
    /// same extent, packed (see [`super::certify::certify_packed`]).
    Packed((usize, usize, crate::mapping::layout::Triangle), Scope),
}

/// What a strategy proposes, and what it found on the way.
#[derive(Default)]
pub(super) struct Proposals {
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
pub(super) struct ArrayFacts<'a> {
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
    /// Whether a proof for every parameter value is possible (no live-in
    /// cells, no known value folded into the model).
    pub allow_symbolic: bool,
    /// Every cell of the array on one location.
    pub one_location: ModularMapping,
    live_in: LiveIn,
    /// The trace of the array's statements, once run, and the storage it
    /// ran with.
    pub trace: Option<(TraceReport, TraceStorage)>,
    /// `None`: no trace ran; `Some(None)`: one gave up.
    pub max_live: Option<Option<usize>>,
    pub(super) conflicts: Option<Conflicts>,
}

/// The difference set of the array, symbolic and for the known values.
pub(super) struct Conflicts {
    pub ds: Vec<BasicSet>,
    pub fixed_ds: Vec<BasicSet>,
    /// Successive-modulo moduli for the known values.
    pub numeric: Vec<i64>,
}

pub(super) fn solver(e: crate::poly::PolyError) -> Kept {
    Kept::AnalysisGaveUp(e)
}

/// Known values of every parameter of `scop`, or the name of one without.
pub fn param_values(scop: &Scop) -> Result<Vec<i64>, String> {
    scop.param_values()
}

/// Probe values for a SCoP where some parameter has no known value: the
/// known values, and for the others a point of the context with each at
/// least [`PROBE_BASE`] and all distinct (`PROBE_BASE + PROBE_STEP·q` for
/// the `q`-th), so that the search sees the general case (loops that run,
/// no two parameters equal by chance); any point of the context when there
/// is none such. `None`: no point at all. They only guide the search: what
/// is emitted is proven for every value of the context.
pub(super) fn probe_values(
    scop: &Scop,
    budget: &mut Budget,
) -> crate::poly::PolyResult<Option<Vec<i64>>> {
    let context = &scop.context;
    let n_param = context.space.n_param();
    let mut known = context.clone();
    for (q, param) in scop.params.iter().enumerate() {
        if let Some(v) = param.value {
            let mut row = known.zero_row();
            row[q] = 1;
            let last = row.len() - 1;
            row[last] = -v;
            known.add_eq(row);
        }
    }
    if let Some(point) = probe_point(
        &known,
        |q| scop.params[q].value.is_none(),
        PROBE_BASE,
        budget,
    )? {
        return Ok(Some(point));
    }
    Ok(integer_point(&known, budget)?.map(|point| point[..n_param].to_vec()))
}

/// The parameter values of a point of `set` with each parameter `q` for
/// which `probed(q)` at least `PROBE_BASE + PROBE_STEP·q`; `None` when
/// there is no such point.
pub(super) fn probe_point(
    set: &BasicSet,
    probed: impl Fn(usize) -> bool,
    base: i64,
    budget: &mut Budget,
) -> crate::poly::PolyResult<Option<Vec<i64>>> {
    let n_param = set.space.n_param();
    let mut wanted = set.clone();
    for q in (0..n_param).filter(|q| probed(*q)) {
        let mut row = wanted.zero_row();
        row[q] = 1;
        let last = row.len() - 1;
        row[last] = -(base + PROBE_STEP * q as i64);
        wanted.add_ineq(row);
    }
    Ok(integer_point(&wanted, budget)?.map(|point| point[..n_param].to_vec()))
}

/// Whether the cell count of `layout` is proven at most that of the
/// declaration plus [`fits::EXCESS`] (times the factors both share) for
/// every parameter value of `context` (see [`fits`]): for layouts no
/// dimension-by-dimension comparison covers.
fn by_cells(
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
fn permutations(n: usize) -> Vec<Vec<usize>> {
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
fn layout_fits(
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
        let model = array_model(scop, array);
        if decl.declarator_span.is_none() {
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
                probe_values(scop, budget)
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
        let live_in = live_in_cells(&model, &context, budget).map_err(solver)?;
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
    pub fn live_in_free(&self, budget: &mut Budget) -> Vec<i64> {
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

    /// The max-live count of the trace, when one ran and finished.
    pub fn traced_max_live(&self) -> Option<usize> {
        self.max_live.flatten()
    }

    /// The conflicts stage, run once when a strategy needs it: no live-in
    /// cell for the known values (exactly), then the difference set.
    pub fn conflicts(&mut self, budget: &mut Budget) -> Result<&Conflicts, Kept> {
        self.compute_conflicts(budget)?;
        Ok(self.conflicts.as_ref().expect("just computed"))
    }

    fn compute_conflicts(&mut self, budget: &mut Budget) -> Result<(), Kept> {
        if self.conflicts.is_none() {
            if self.live_in.exact {
                for piece in &self.live_in.pieces {
                    let mut q = piece.clone();
                    fix_params(&mut q, &self.values);
                    if !matches!(integer_point(&q, budget), Ok(None)) {
                        return Err(Kept::LiveIn);
                    }
                }
            }
            let conflicts = compute_cell_conflicts(&self.model, &[], budget).map_err(solver)?;
            let ds = conflicts.difference_set();
            let fixed_ds = fix_and_simplify(&ds, &self.values).map_err(solver)?;
            let numeric = moduli_for_values(&fixed_ds, self.model.rank, &self.values, budget)
                .map_err(solver)?;
            self.conflicts = Some(Conflicts {
                ds,
                fixed_ds,
                numeric,
            });
        }
        Ok(())
    }

    fn claim(&self) -> ArrayClaim<'_> {
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
    fn certify(&self, proposal: &Proposal, budget: &mut Budget) -> Result<Certified, String> {
        let mapping = proposal.mapping.clone();
        match proposal.proof {
            Proof::DifferenceSet(scope) => {
                if self.conflicts.is_none() {
                    return Err("no difference set was computed".into());
                }
                certify_array(&self.claim(), mapping, scope, budget)
            }
            Proof::Trace => {
                let Some((report, storage)) = &self.trace else {
                    return Err("no trace ran".into());
                };
                certify_by_trace(&self.claim(), mapping, report, storage, budget)
            }
            Proof::Packed(pair, scope) => {
                super::certify::certify_packed(&self.claim(), pair, scope, budget)
            }
        }
    }

    /// Cells of the array laid out with `layout`, for the known values.
    pub fn cells_of(&self, layout: &ArrayLayout) -> Option<i64> {
        layout_cells(layout, &self.extents, &self.values)
    }
}

/// The trace of the statements of `scop` that access `array`, with
/// `storage` for it, for `values`, within a part (`steps`, wall-clock
/// safety net) of `budget`.
pub(super) fn trace_array(
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

/// Cells of an array after remapping with `layout`.
fn layout_cells(layout: &ArrayLayout, extents: &[Option<i64>], values: &[i64]) -> Option<i64> {
    i64::try_from(layout_cells_wide(layout, extents, values)?).ok()
}

/// [`layout_cells`] in 128 bits (`None` only when an extent is unknown or
/// that overflows too).
pub(super) fn layout_cells_wide(
    layout: &ArrayLayout,
    extents: &[Option<i64>],
    values: &[i64],
) -> Option<i128> {
    let mut cells: i128 = 1;
    if layout.is_linear() {
        for dim in &layout.dims {
            if let DimLayout::Linear { modulus, .. } = dim {
                // A guarded extent is at least 1.
                cells = cells.checked_mul(i128::from(modulus.eval(values).ok()?.max(1)))?;
            }
        }
        return Some(cells);
    }
    for (dim, extent) in layout.dims.iter().zip(extents) {
        let size = match dim {
            DimLayout::Dropped => 1,
            DimLayout::Linear { modulus, .. } => modulus.eval(values).ok()?,
            DimLayout::Plain { extent: None } => (*extent)?,
            DimLayout::Plain { extent: Some(b) } => b.eval(values).ok()?,
            // A guarded extent is at least 1 (see `DimLayout::Modulo`).
            DimLayout::Modulo { modulus: b, .. } => b.eval(values).ok()?.max(1),
            DimLayout::Packed {
                extent: e,
                triangle,
                ..
            } => i64::try_from(triangle.cells(e.eval(values).ok()?)).ok()?,
        };
        cells = cells.checked_mul(i128::from(size))?;
    }
    Some(cells)
}

/// A chosen storage: certified, its size for the known values, and the
/// strategy that proposed it.
use super::record::EveryValue;

pub(super) struct Choice {
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
    fn is_pinned(&self) -> bool {
        matches!(self.certified.certificate(), Certificate::ForValues(_))
    }
}

/// The choice among certified proposals: the smallest, the first on ties.
pub(super) struct Chooser {
    original_cells: Option<i64>,
    best: Option<Choice>,
    /// Every certified size, for the reports.
    pub sizes: Vec<StrategySize>,
    /// Why nothing (better) was found, from the last failure.
    pub failure: Kept,
    /// The smallest certified storage the cost rule refused ([`cost`]).
    refused: Option<cost::Refusal>,
    /// The smallest storage for every value the cost rule refused as the
    /// sizes grow: a mapping for the known values only must be smaller
    /// to be made (else the choice would change with the sizes).
    grown: Option<cost::Refusal>,
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
    pub fn pinned_could_win(&self, cells: i64, min_memory: bool) -> bool {
        match &self.best {
            Some(b) if !min_memory && !b.is_pinned() => {
                b.cells.is_none_or(|c| pays_for_pin(cells, c))
            }
            _ => cells < self.current(),
        }
    }

    /// Whether no strategy can do better: one cell.
    fn done(&self) -> bool {
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
const FIXED_SIZE_GAIN: (i64, i64) = (1, 8);

/// Whether a storage of `pinned` cells, certified for the known values
/// only, saves enough over one of `every` cells certified for every value
/// to be chosen instead.
fn pays_for_pin(pinned: i64, every: i64) -> bool {
    let (num, den) = FIXED_SIZE_GAIN;
    // pinned <= every * (1 - num / den), in integers.
    i128::from(pinned) * i128::from(den) <= i128::from(every) * i128::from(den - num)
}

/// Max-live values need max-live cells in any storage: when nothing is
/// chosen yet and the trace (run for known values by the first strategy
/// or the lattice searches) finds as many as the declaration has, no
/// strategy can do better.
fn all_live_at_once(facts: &ArrayFacts<'_>, chooser: &Chooser) -> Option<Kept> {
    let (live, cells) = (facts.traced_max_live()?, facts.original_cells?);
    (chooser.best.is_none() && facts.values_known && i64::try_from(live).is_ok_and(|l| l >= cells))
        .then_some(Kept::AllLiveAtOnce { cells })
}

/// Runs the per-array strategies on `facts` and returns the chosen
/// certified storage with its size and method, every certified size, and
/// why the array keeps its layout when nothing smaller is proven.
pub(super) fn choose(
    facts: &mut ArrayFacts<'_>,
    budget: &mut Budget,
) -> (Result<Choice, Kept>, Vec<StrategySize>) {
    let scop = facts.scop;
    let failure = if scop.array_depends_on_values(facts.array) && !facts.macros_pinnable {
        Kept::ValueNotPinnable(super::pins::value_used_names(scop))
    } else {
        Kept::NotProvenForEveryValue
    };
    let mut chooser = Chooser {
        original_cells: facts.original_cells,
        best: None,
        sizes: Vec::new(),
        failure,
        refused: None,
        grown: None,
    };
    let accesses = cost::access_keys(&facts.model);
    for (name, strategy) in PER_ARRAY {
        if chooser.done() {
            break;
        }
        if let Some(kept) = all_live_at_once(facts, &chooser) {
            return (Err(kept), chooser.sizes);
        }
        crate::util::progress::step(name);
        let proposals = match strategy(facts, &chooser, budget) {
            Ok(p) => p,
            Err(kept) => return (Err(kept), chooser.sizes),
        };
        // A strategy that lists its own sizes (every lattice heuristic) is
        // not listed again for its chosen proposal.
        let lists_own_sizes = !proposals.sizes.is_empty();
        chooser.sizes.extend(proposals.sizes);
        if let Some(f) = proposals.failure {
            chooser.failure = f;
        }
        for p in proposals.list {
            let current = chooser.current();
            // On a tie, a layout without `%` replaces one with (the same
            // cells, plain subscripts: a change of basis such as
            // `T[i][i + j]` -> `T[i][j]` instead of `T[i][(i + j) % N]`).
            let best_wraps = chooser.best.as_ref().is_some_and(|b| {
                b.certified
                    .layout()
                    .is_some_and(|l| cost::adds_modulo(l, &accesses))
            });
            let beats = |c: i64| c < current || (c == current && best_wraps);
            // A storage for every value may still replace a smaller one
            // pinned to the known values (see `FIXED_SIZE_GAIN`).
            let pin_rule = !facts.options.min_memory;
            let best_pinned = pin_rule && chooser.best.as_ref().is_some_and(|b| b.is_pinned());
            if chooser.best.is_some()
                && p.cells
                    .is_some_and(|c| !beats(c) && (!best_pinned || pays_for_pin(current, c)))
            {
                continue;
            }
            // Nor is a pinned one that could not pay for its pin.
            if pin_rule
                && chooser.best.as_ref().is_some_and(|b| !b.is_pinned())
                && p.is_pinned()
                && p.cells.is_some_and(|c| !pays_for_pin(c, current))
            {
                continue;
            }
            let certified = match facts.certify(&p, budget) {
                Ok(c) => c,
                Err(why) => {
                    // A packed triangle is a guess at a shape (every pair
                    // of square dimensions, each triangle): that the
                    // accesses leave it says nothing of why the array
                    // keeps its layout.
                    if !matches!(p.proof, Proof::Packed(..)) {
                        chooser.failure = Kept::NotCertified(why);
                    }
                    continue;
                }
            };
            let cells = certified.layout().and_then(|l| facts.cells_of(l));
            let plain = certified
                .layout()
                .is_some_and(|l| !cost::adds_modulo(l, &accesses));
            let for_values = matches!(certified.certificate(), Certificate::ForValues(_));
            if let (Some(best), Some(c)) = (&chooser.best, cells)
                && pin_rule
                && for_values != best.is_pinned()
            {
                // One pinned to the known values, one for every value: the
                // pinned one must save `FIXED_SIZE_GAIN` of the other.
                let (pinned, every) = if for_values {
                    (c, current)
                } else {
                    (current, c)
                };
                if pays_for_pin(pinned, every) != for_values {
                    continue;
                }
            } else if chooser.best.is_some()
                && cells.is_none_or(|c| c > current || (c == current && !(best_wraps && plain)))
            {
                continue;
            }
            // Not smaller than the declaration: not worth a report line
            // (successive modulo still lists its size, as the baseline).
            if p.method == Method::LiftedLattice
                && cells.is_some_and(|c| facts.original_cells.is_some_and(|o| c >= o))
            {
                continue;
            }
            if !lists_own_sizes
                && let Some(cells) = cells
                && !chooser
                    .sizes
                    .iter()
                    .any(|s| s.method == p.method && s.cells == cells)
            {
                chooser.sizes.push(StrategySize {
                    method: p.method,
                    cells,
                    proven_optimal: None,
                    time: p.time,
                });
            }
            // The cost rule: a `%` on the accesses must pay for itself.
            if !facts.options.min_memory
                && for_values
                && let Some(grown) = &chooser.grown
                && cells.is_some_and(|c| c >= grown.new)
            {
                continue;
            }
            if !facts.options.min_memory
                && let Some(refusal) = certified.layout().and_then(|l| {
                    cost::refusal(
                        l,
                        &accesses,
                        &facts.extent_affs,
                        (facts.original_cells, cells),
                        (&facts.values, facts.values_known),
                        !for_values,
                    )
                })
            {
                if refusal.as_sizes_grow
                    && chooser.grown.as_ref().is_none_or(|r| refusal.new < r.new)
                {
                    chooser.grown = Some(refusal.clone());
                }
                if chooser.refused.as_ref().is_none_or(|r| refusal.new < r.new) {
                    chooser.refused = Some(refusal);
                }
                continue;
            }
            // The first proposal taken ends the strategy's list (its best
            // first), unless its layout wraps: a later one of the same
            // cells may read without `%` (a shifted change of basis).
            let wraps = certified
                .layout()
                .is_some_and(|l| cost::adds_modulo(l, &accesses));
            // A pinned storage keeps the one for every value it beat.
            let every_value = if for_values {
                chooser.best.take().and_then(|b| {
                    if b.is_pinned() {
                        b.every_value
                    } else {
                        Some(EveryValue {
                            mapping: b.certified.mapping_text()?,
                            cells: b.cells?,
                            method: b.method,
                        })
                    }
                })
            } else {
                None
            };
            chooser.best = Some(Choice {
                certified,
                cells,
                method: p.method,
                every_value,
            });
            if !wraps {
                break;
            }
        }
    }
    // The trace may have run in the last strategy (the lattice searches
    // run it for their bound): the same verdict as before each strategy.
    if let Some(kept) = all_live_at_once(facts, &chooser) {
        return (Err(kept), chooser.sizes);
    }
    let result = match chooser.best {
        Some(best) if !facts.values_known => {
            // Probe values: the sizes compared above are only a guide; the
            // choice must never be larger than the declaration, for any
            // value, and its size is a formula (no number to record).
            let fits = best
                .certified
                .layout()
                .is_some_and(|l| layout_fits(l, &facts.extent_affs, &facts.scop.context, budget));
            let smaller = best
                .cells
                .is_some_and(|new| facts.original_cells.is_none_or(|old| new < old));
            if fits && smaller {
                Ok(Choice {
                    cells: None,
                    ..best
                })
            } else {
                Err(Kept::NoSmallerForEveryValue)
            }
        }
        Some(Choice {
            cells: Some(new), ..
        }) if facts.original_cells.is_some_and(|old| new >= old) => Err(Kept::NoSmaller {
            cells: facts.original_cells.unwrap_or_default(),
        }),
        Some(best) => Ok(best),
        None => Err(match chooser.refused {
            Some(r) => Kept::NotWorthAModulo {
                original: r.original,
                new: r.new,
                at_probe: r.at_probe,
                as_sizes_grow: r.as_sizes_grow,
            },
            None => chooser.failure,
        }),
    };
    (result, chooser.sizes)
}
