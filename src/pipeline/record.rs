//! The record of a contraction: what was decided for every array and
//! every SCoP, and why. Reports, `bench`, `verify` and the JSON output read
//! it; nothing they print is computed again.

use std::time::Duration;

use crate::analysis::liveness::Classification;
use crate::codegen::Edit;
use crate::ir::ArrayId;
use crate::mapping::{MergeMethod, Method};

use super::certify::Certified;

/// What happened to one array.
#[derive(Clone, Debug)]
pub enum ArrayOutcome {
    /// External: never considered for remapping.
    External,
    /// A temporary that keeps its layout, and why.
    Kept { why: KeptReason },
    /// A temporary folded together with the other temporaries of its SCoP
    /// into merged buffers (see [`MergedScop`]); `alone` is what folding it
    /// by itself needed.
    Merged { note: String, alone: i64 },
    /// A temporary with a new, certified layout.
    Remapped {
        certified: Certified,
        new_cells: Option<i64>,
    },
}

/// Why a temporary keeps its layout. The reports print it (`Display`);
/// the driver and the tests match on it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeptReason {
    /// Concurrency beyond parallel loops (`nowait`, tasks, sections), as
    /// the front end describes it.
    UnmodelledConcurrency(String),
    /// The SCoP runs in every iteration of a parallel loop and the array
    /// is declared outside it (the pragma, described).
    SharedByParallelLoop(String),
    DeclarationNotFound,
    /// A variable of an extent is written after the declaration (its name).
    ExtentWritten(String),
    /// The initialiser has a side effect (what).
    InitializerEffect(String),
    NeverWritten,
    /// A parameter has no known value (the driver warns: `-D` gives one).
    MissingValue {
        param: String,
    },
    /// Some cells are read before the SCoP writes them.
    LiveIn,
    /// A solver gave up (budget or overflow).
    AnalysisGaveUp(crate::poly::PolyError),
    /// The model folded the known value of these parameters (`` `N` ``
    /// list) into a number, and they are not `#define`s to pin.
    ValueNotPinnable(String),
    /// No proof for every value, and the values cannot be pinned.
    NotProvenForEveryValue,
    /// Only storage certified for the known sizes (or from some size on)
    /// was found, and `--pin-sizes` was not given.
    PinNotAsked,
    /// The certifier refused the best proposal (its words).
    NotCertified(super::certify::Refused),
    /// Successive modulo needs the whole declared array.
    SuccessiveNeedsAll {
        cells: i64,
    },
    /// The trace for the known values has as many values live at one
    /// moment as the declaration has cells: no storage can be smaller (the
    /// other strategies are not run).
    AllLiveAtOnce {
        cells: i64,
    },
    /// The best certified storage is no smaller than the declaration.
    NoSmaller {
        cells: i64,
    },
    /// Without parameter values: the best storage proven for every value
    /// is not smaller than the declaration for every value.
    NoSmallerForEveryValue,
    /// The smallest certified storage puts a `%` on some access and saves
    /// less than the cost rule asks (`strategy::cost`: a quarter of the
    /// cells, or a lower degree in the parameters); `--min-memory` takes
    /// it. The sizes are those for the known values, or for the probe
    /// values (`at_probe`).
    NotWorthAModulo {
        original: i64,
        new: i64,
        at_probe: bool,
        /// Saves enough at these sizes, but not as the sizes grow (a
        /// mapping for every value is judged at every size).
        as_sizes_grow: bool,
    },
    /// A value the new layout's text would compute (a subscript, an
    /// extent) is not proven representable where the original computes
    /// none like it (see [`crate::codegen::overflow`]): what it is.
    Overflow(String),
    /// The lattice strategies gave up, after `before`.
    LatticeGaveUp {
        before: Box<KeptReason>,
        error: crate::poly::PolyError,
    },
}

/// Why a mapping for every value that saves enough at the sizes at hand
/// is still refused (see [`KeptReason::NotWorthAModulo`]).
const GROWS: &str = ", but its size grows as fast as the declaration's and it saves less than a quarter at larger sizes (the choice is the same at every size; --min-memory takes it)";

/// The tail of [`KeptReason::NotWorthAModulo`] otherwise.
const LESS: &str = ", less than a quarter (--min-memory takes it)";

impl std::fmt::Display for KeptReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeptReason::UnmodelledConcurrency(why) => f.write_str(why),
            KeptReason::SharedByParallelLoop(pragma) => write!(
                f,
                "the SCoP runs in each iteration of a parallel loop and the array is declared outside that loop (shared by the iterations): {pragma}"
            ),
            KeptReason::DeclarationNotFound => f.write_str("its declaration was not found"),
            KeptReason::ExtentWritten(v) => write!(
                f,
                "`{v}`, in its extent, is written after the declaration (the declared size uses the value before)"
            ),
            KeptReason::InitializerEffect(what) => write!(
                f,
                "its initialiser has a side effect ({what}), which a new declaration would drop"
            ),
            KeptReason::NeverWritten => f.write_str("it is never written in the SCoP"),
            KeptReason::MissingValue { param } => write!(
                f,
                "parameter `{param}` has no known value (pass -D {param}=VALUE)"
            ),
            KeptReason::LiveIn => {
                f.write_str("some cells are read before they are written (live-in)")
            }
            KeptReason::AnalysisGaveUp(e) => write!(f, "analysis gave up: {e}"),
            KeptReason::ValueNotPinnable(names) => write!(
                f,
                "the model uses the known value of {names} (a product, `/` or `%` folded to a number), which is not a #define of the file that a _Static_assert could pin"
            ),
            KeptReason::NotProvenForEveryValue => f.write_str(
                "no mapping proven for every parameter value, and the parameters are not all #defines that could pin the values",
            ),
            KeptReason::PinNotAsked => f.write_str(
                "no mapping proven for every parameter value; one for the known sizes only needs --pin-sizes",
            ),
            KeptReason::NotCertified(why) => write!(f, "{why}"),
            KeptReason::Overflow(why) => write!(
                f,
                "its new text could overflow where the original does not: {why}"
            ),
            KeptReason::SuccessiveNeedsAll { cells } => write!(
                f,
                "no smaller mapping found: successive modulo needs all {cells} cells in this schedule"
            ),
            KeptReason::AllLiveAtOnce { cells } => write!(
                f,
                "no smaller mapping in this schedule: all {cells} cells hold live values at once (max-live); another order of the loops may need fewer"
            ),
            KeptReason::NoSmaller { cells } => {
                write!(
                    f,
                    "no smaller mapping found: the best needs all {cells} cells in this schedule"
                )
            }
            KeptReason::NoSmallerForEveryValue => f.write_str(
                "no smaller mapping proven for every parameter value (pass -D NAME=VALUE to fold for known sizes)",
            ),
            KeptReason::NotWorthAModulo {
                original,
                new,
                at_probe,
                as_sizes_grow,
            } => {
                let saved = original - new;
                let (at, why) = match (*at_probe, *as_sizes_grow) {
                    (true, false) => (" at the probe sizes and its size grows as fast", LESS),
                    (false, false) => ("", LESS),
                    (true, true) => (" at the probe sizes", GROWS),
                    (false, true) => ("", GROWS),
                };
                write!(
                    f,
                    "not worth a `%` on its accesses: the best mapping saves {saved} of {original} cells{at}{why}"
                )
            }
            KeptReason::LatticeGaveUp { before, error } => {
                write!(f, "{before}; the lattice strategies gave up: {error}")
            }
        }
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
    pub method: Method,
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
    /// When some extent has no known value: the sizes as formulas in the
    /// parameters (`n * n`, and `n * 2` once remapped).
    pub formula: Option<SizeFormula>,
    /// For a remapped array: the `%` its accesses compute inside innermost
    /// loops, and why the fold is made anyway (`None`: no such `%`).
    pub inner_modulo: Option<InnerModulo>,
    /// The rotating indices that compute its residues (see
    /// [`crate::codegen::rotate`]): per loop whose header advances some,
    /// its iterator, the line of its header and how many.
    pub rotating: Vec<(String, usize, usize)>,
    /// The rotating scalars that hold its cells instead (see
    /// [`crate::codegen::scalars`]), for the offsets of its window in
    /// increasing order, and the iterator of the loops that shift them.
    pub scalars: Option<(Vec<String>, String)>,
    /// The moduli `--pow2-moduli` rounded up to powers of two, so that the
    /// accesses compute them with a mask (`None`: none was).
    pub masks: Option<MaskRounding>,
    /// For a storage pinned to the known values: the smallest storage for
    /// every value found before it, which it beat by at least an eighth of
    /// the cells (issue 17's rule 4: a fixed-size mapping is kept where it
    /// is smaller).
    pub pinned_over: Option<EveryValue>,
    /// Without `--pin-sizes`: the smallest storage certified only for the
    /// known sizes (or from some size on), when it is smaller than the
    /// chosen storage (or the declaration, for an array kept); the report
    /// says what the pin would have saved.
    pub pin_offer: Option<PinOffer>,
    /// Which lifetimes its conflicts came from, when they were computed.
    pub lifetimes: Option<crate::analysis::values::Lifetimes>,
    /// Cells read before any write at some sizes other than the known
    /// ones were left out of its lifetimes: an uninitialised local, so they
    /// read indeterminate values (see `crate::frontend::fresh`).
    pub indeterminate_live_in: bool,
}

/// A storage certified for some parameter values only, that `--pin-sizes`
/// would allow: its mapping as the reports print it, its cells at the
/// known values, and where it is valid (`W = 256, H = 192 only`, `N >= 4`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PinOffer {
    pub mapping: String,
    pub cells: i64,
    pub valid: String,
}

/// A storage certified for every value that a pinned one beat: its mapping
/// as the reports print it, its cells at the known values, and the
/// strategy that found it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EveryValue {
    pub mapping: String,
    pub cells: i64,
    pub method: Method,
}

/// Number moduli of a remapped array rounded up to powers of two for
/// masks (`--pow2-moduli`, see `strategy::masks`): the enlarged mapping
/// was certified again, like any mapping; and those left as they were.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MaskRounding {
    /// Per rounded dimension of the layout: the modulus before and after.
    pub moduli: Vec<(i64, i64)>,
    /// The cells added, for the known parameter values (`None` when some
    /// parameter has none: the size grew by the ratio of the moduli).
    pub added_cells: Option<i64>,
    /// The moduli tried and left as they were, and why.
    pub refused: Vec<(i64, i64, MaskRefusal)>,
}

/// Why a modulus was not rounded up for a mask.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MaskRefusal {
    /// The enlarged mapping is not certified (the certifier's words).
    NotCertified(super::certify::Refused),
    /// It adds more than an eighth of the declared cells (at the probe
    /// sizes when some parameter has no value).
    Costly { added: i64, declared: i64 },
    /// The enlarged layout is not smaller than the declaration, or not
    /// proven no larger for every value.
    NotSmaller,
}

impl std::fmt::Display for MaskRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MaskRefusal::NotCertified(why) => {
                write!(f, "the enlarged mapping is not certified ({why})")
            }
            MaskRefusal::Costly { added, declared } => write!(
                f,
                "it adds {added} cell{}, more than an eighth of the {declared} declared",
                if *added == 1 { "" } else { "s" }
            ),
            MaskRefusal::NotSmaller => {
                write!(
                    f,
                    "the enlarged storage is not proven smaller than the declaration"
                )
            }
        }
    }
}

impl std::fmt::Display for MaskRounding {
    /// `` mask: modulus 9 -> 16 for `& 15` (+7 cells); modulus 3 -> 4 not
    /// taken: ... ``.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut parts: Vec<String> = Vec::new();
        if !self.moduli.is_empty() {
            let moduli: Vec<String> = self
                .moduli
                .iter()
                .map(|(from, to)| format!("{from} -> {to} for `& {}`", to - 1))
                .collect();
            let added = match self.added_cells {
                Some(n) => format!("+{n} cell{}", if n == 1 { "" } else { "s" }),
                None => {
                    let (from, to) = self.moduli.iter().fold((1i128, 1i128), |(a, b), (x, y)| {
                        (a * i128::from(*x), b * i128::from(*y))
                    });
                    format!("cells times {to}/{from}")
                }
            };
            parts.push(format!(
                "modul{} {} ({added})",
                if moduli.len() == 1 { "us" } else { "i" },
                moduli.join(", ")
            ));
        }
        for (from, to, why) in &self.refused {
            parts.push(format!("modulus {from} -> {to} not taken: {why}"));
        }
        write!(f, "mask: {}", parts.join("; "))
    }
}

/// The `%` of a remapped array's accesses inside innermost loops (loops
/// that contain no other loop), per loop, and why the fold is made
/// although it puts them there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InnerModulo {
    pub loops: Vec<InnerLoopModulo>,
    /// Why the fold pays for them (the cost rule's measure, or
    /// `--min-memory`).
    pub why: String,
}

/// The `%` inside one innermost loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InnerLoopModulo {
    pub iterator: String,
    /// The lines of the statements whose accesses compute them.
    pub lines: Vec<usize>,
    /// How many of them have an argument that changes with the loop's
    /// iterator (the others are the same on every iteration of the loop:
    /// a compiler computes them once, outside it).
    pub varying: usize,
    pub invariant: usize,
}

impl std::fmt::Display for InnerModulo {
    /// `` `%` in innermost loops: loop `k` at lines 40, 41 (3 varying with
    /// `k`, 2 invariant in `k`); made because ... ``.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let loops: Vec<String> = self
            .loops
            .iter()
            .map(|l| {
                let lines: Vec<String> = l.lines.iter().map(|n| n.to_string()).collect();
                let mut kinds = Vec::new();
                if l.varying > 0 {
                    kinds.push(format!("{} varying with `{}`", l.varying, l.iterator));
                }
                if l.invariant > 0 {
                    kinds.push(format!("{} invariant in `{}`", l.invariant, l.iterator));
                }
                format!(
                    "loop `{}` at line{} {} ({})",
                    l.iterator,
                    if lines.len() == 1 { "" } else { "s" },
                    lines.join(", "),
                    kinds.join(", ")
                )
            })
            .collect();
        write!(
            f,
            "`%` in innermost loops: {}; made because {}",
            loops.join("; "),
            self.why
        )
    }
}

/// Sizes of an array as C expressions in the parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SizeFormula {
    pub original: String,
    /// The remapped size (`None`: not remapped).
    pub new: Option<String>,
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
    pub(crate) fn sentence(self) -> &'static str {
        match self {
            Optimality::MaxLiveBound => "optimal in this schedule: meets its max-live lower bound",
            Optimality::LatticeSearch => {
                "optimal among the lattices of this schedule: the exhaustive search found nothing smaller"
            }
        }
    }
}

/// The certified size one strategy reached for an array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StrategySize {
    pub method: Method,
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
    pub not_merged: Vec<(usize, NotMerged)>,
    /// The loops whose schedule was kept although fusing or re-scheduling
    /// them was planned, and why (a value their new text would compute is
    /// not proven representable: see [`crate::codegen::overflow`]).
    pub schedule_kept: Vec<(usize, String)>,
    pub edits: Vec<Edit>,
    /// `(SCoP, statement index)` of the copies `A[f] = A[g];` deleted
    /// because `A`'s new layout puts both at the same cell on every
    /// iteration (the copy would not change anything).
    pub removed_copies: Vec<(usize, usize)>,
    /// `(SCoP, array, variables)`: the rotating indices (see
    /// [`crate::codegen::rotate`]) declared after the array's declaration.
    pub rotating: Vec<(usize, crate::ir::ArrayId, Vec<String>)>,
    /// `(SCoP, array, comment)`: the arrays kept in rotating scalars (see
    /// [`crate::codegen::scalars`]), with their declaration's comment.
    pub scalars: Vec<(usize, crate::ir::ArrayId, String)>,
    /// The transformed source text.
    pub output: String,
}

/// Why the temporaries of a SCoP were not merged into buffers (the
/// report's "inter-array not used: …").
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotMerged {
    /// Concurrency beyond parallel loops, as the front end describes it.
    Concurrency(String),
    /// The SCoP has no temporary array.
    NoTemporaryArray,
    /// One temporary array, which only `--min-memory` merges alone.
    OneTemporaryArray,
    /// No merged storage was made: why not for every parameter value, and
    /// why not for the known values.
    NoStorage {
        every_value: String,
        known_values: String,
    },
    /// The merged storage needs no fewer cells than the arrays folded
    /// alone (`at`: the probe sizes, when compared there; `chosen`: the
    /// search's description of its choice).
    NotFewer {
        merged: i64,
        per_array: i64,
        at: Option<Vec<i64>>,
        chosen: String,
    },
    /// The merged storage saves less than a quarter.
    NotAQuarter {
        merged: i64,
        per_array: i64,
        at: Option<Vec<i64>>,
    },
    /// These temporaries would be accessed through a conditional on the
    /// loop iterators.
    SelectsInLoops(Vec<String>),
    /// A temporary has no per-array decision.
    NoDecision(String),
    /// A temporary's size at the compared values is not known.
    NoKnownSize(String),
    /// A size could not be computed (an overflow, or a size formula that
    /// does not evaluate).
    Size(String),
    /// A state the strategy never makes (a bug of polyfold).
    Internal(&'static str),
}

impl std::fmt::Display for NotMerged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at_text = |at: &Option<Vec<i64>>| match at {
            Some(point) => format!(" at the probe sizes {point:?}"),
            None => String::new(),
        };
        match self {
            NotMerged::Concurrency(why) => f.write_str(why),
            NotMerged::NoTemporaryArray => f.write_str("no temporary array"),
            NotMerged::OneTemporaryArray => {
                f.write_str("one temporary array (--min-memory merges it alone too)")
            }
            NotMerged::NoStorage {
                every_value,
                known_values,
            } => write!(
                f,
                "for every value: {every_value}; for the known values: {known_values}"
            ),
            NotMerged::NotFewer {
                merged,
                per_array,
                at,
                chosen,
            } => write!(
                f,
                "{merged} cells, not fewer than the {per_array} of the arrays folded alone{} ({chosen})",
                at_text(at)
            ),
            NotMerged::NotAQuarter {
                merged,
                per_array,
                at,
            } => write!(
                f,
                "{merged} cells save less than a quarter of the {per_array} of the arrays folded alone{}: not worth the conditionals and `%` of merged buffers (--min-memory takes it)",
                at_text(at)
            ),
            NotMerged::SelectsInLoops(names) => write!(
                f,
                "{} access merged storage through a conditional on the loop iterators: a branch on every access in a loop, measured up to 6 times slower (--min-memory takes it)",
                names.join(", ")
            ),
            NotMerged::NoDecision(name) => write!(f, "`{name}` has no decision"),
            NotMerged::NoKnownSize(name) => write!(f, "`{name}` has no known size"),
            NotMerged::Size(why) => f.write_str(why),
            NotMerged::Internal(what) => write!(f, "internal error: {what}"),
        }
    }
}

/// A SCoP whose temporaries share merged buffers.
#[derive(Clone, Debug)]
pub struct MergedScop {
    pub scop: usize,
    /// Cells of the temporaries folded one by one, and merged.
    pub per_array_cells: i64,
    pub merged_cells: i64,
    /// The most values of the temporaries live at once: no storage needs
    /// fewer cells (`None`: not traced at these sizes).
    pub lower_bound: Option<usize>,
    /// The search whose mapping was used.
    pub method: MergeMethod,
    /// The report of the SMO path (mappings, removed copies, trace check),
    /// as data (`report` renders it).
    pub report: super::contraction::MergedReport,
    pub time: Duration,
    /// The certified merged storage (buffers, every access's location,
    /// deleted copies, the edits): what `verify_contraction` traces.
    pub certified: Certified,
    /// The `%` the buffers' subscripts compute inside innermost loops, and
    /// why the merging is made anyway (`None`: no such `%`).
    pub inner_modulo: Option<InnerModulo>,
}

impl MergedScop {
    /// What the storage is proven on and its sizes as formulas, when it
    /// is made for every parameter value.
    pub(crate) fn storage_for_every_value(&self) -> Option<&super::contraction::EveryValue> {
        self.certified.merged()?.every_value.as_deref()
    }

    /// The merged storage as emitted (buffers, every access's location,
    /// deleted copies). A `MergedScop` is only made from a merged
    /// certified storage (`strategy::inter_array`).
    pub fn storage(&self) -> &crate::verify::MergedStorage {
        &self
            .certified
            .merged()
            .expect("a MergedScop holds merged storage")
            .storage
    }
}

impl FileContraction {
    /// The storage the output uses, as a plain description for the trace
    /// verifier.
    pub fn emitted(&self) -> crate::verify::ProgramStorage {
        let arrays = self
            .decisions
            .iter()
            .filter_map(|d| match &d.outcome {
                ArrayOutcome::Remapped { certified, .. } => {
                    let a = d.array.0 as usize;
                    // A packed triangle is traced as the code indexes it.
                    let packed = certified.layout().and_then(|l| {
                        l.dims.iter().enumerate().find_map(|(p, dim)| match dim {
                            crate::mapping::layout::DimLayout::Packed {
                                partner,
                                triangle,
                                extent,
                            } => Some(crate::verify::Storage::Packed {
                                p,
                                q: *partner,
                                triangle: *triangle,
                                extent: extent.clone(),
                            }),
                            _ => None,
                        })
                    });
                    match packed {
                        Some(storage) => Some((d.scop, a, storage)),
                        None => certified
                            .mapping()
                            .map(|m| (d.scop, a, crate::verify::Storage::Modular(m.clone()))),
                    }
                }
                _ => None,
            })
            .collect();
        let merged = self
            .merged
            .iter()
            .map(|m| (m.scop, m.storage().clone()))
            .collect();
        crate::verify::ProgramStorage {
            arrays,
            merged,
            removed: self.removed_copies.clone(),
        }
    }
}
