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
    /// A temporary that keeps its layout: why (the text of the reports),
    /// and what of it the driver acts on.
    Kept { why: String, cause: KeptCause },
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

/// What the driver acts on in a kept array's reason (the text is in
/// [`ArrayOutcome::Kept`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeptCause {
    /// A parameter has no known value (the driver warns: `-D` gives one).
    MissingValue { param: String },
    /// Anything else (the report says why).
    Other,
}

/// Why a strategy or the pipeline keeps an array.
pub(super) struct Kept {
    pub why: String,
    pub cause: KeptCause,
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
    /// The search whose mapping was used.
    pub method: MergeMethod,
    /// The report of the SMO path (mappings, removed copies, trace check).
    pub report: String,
    pub time: Duration,
    /// The certified merged storage (buffers, every access's location,
    /// deleted copies, the edits): what `verify_contraction` traces.
    pub certified: Certified,
}

impl MergedScop {
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
                ArrayOutcome::Remapped { certified, .. } => certified
                    .mapping()
                    .map(|m| (d.scop, d.array.0 as usize, m.clone())),
                _ => None,
            })
            .collect();
        let merged = self
            .merged
            .iter()
            .map(|m| (m.scop, m.storage().clone()))
            .collect();
        crate::verify::ProgramStorage { arrays, merged }
    }
}
