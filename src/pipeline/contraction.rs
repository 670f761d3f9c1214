//! The result of a merged-buffers contraction of one SCoP: what the
//! merging strategy ([`super::merged`]) proposes and the certifier
//! ([`super::certify`]) checks, below both.

use crate::codegen::{Edit, apply_edits};
use crate::mapping::MergeMethod;
use crate::mapping::smo::{ConflictSpec, SmoSolution};
use crate::verify::MergedStorage;

/// The result of the SMO contraction of one SCoP.
#[derive(Clone, Debug)]
pub struct SmoContraction {
    /// The names of the temporaries folded into the buffers.
    pub temporaries: Vec<String>,
    /// Cells of the temporaries before (for the given values).
    pub original_cells: i64,
    /// Cells of all buffers after (for the given values).
    pub new_cells: i64,
    /// Per buffer: its name, its number of cells and its declaration.
    pub buffers: Vec<(String, i64, String)>,
    /// Text of every deleted statement or loop.
    pub removed: Vec<String>,
    /// The edits on the original source.
    pub edits: Vec<Edit>,
    /// Which of `edits` declares the buffers, and how.
    pub declaration: BufferDeclaration,
    /// The transformed program.
    pub output: String,
    /// What the report says (mappings, sizes, removals, trace), as data
    /// (rendered by `report`).
    pub report: MergedReport,
    /// Number of read operations the certifier's trace check compared
    /// (zero until [`super::certify::certify_merged`] ran it).
    pub reads_checked: usize,
    /// Which candidate's mapping was used (`shared hyperplanes`, `SMO`,
    /// `baseline`, ...).
    pub method: MergeMethod,
    /// The certified size of each candidate (method, cells).
    pub candidate_sizes: Vec<(MergeMethod, i64)>,
    /// The chosen candidate, every certified size and why the others
    /// failed, in words (the report's `chosen:` line).
    pub chosen: String,
    /// The most values of the temporaries live at once (a lower bound for
    /// every storage mapping).
    pub lower_bound: Option<usize>,
    /// Whether a wall-clock safety net stopped a search of this SCoP (the
    /// result may then differ between runs; the driver warns).
    pub safety_net_fired: bool,
    /// The storage as emitted, for the trace verifier: the buffers, the
    /// location every access of a temporary computes (the same values its
    /// text is printed from), and the deleted copies.
    pub storage: MergedStorage,
    /// For storage made for every parameter value: what it is proven on,
    /// and its sizes as formulas (`None`: made for the known values).
    pub every_value: Option<Box<EveryValue>>,
}

/// The report of merged storage as data; `report` renders it (the
/// `report` of a merged SCoP, text and JSON).
#[derive(Clone, Debug)]
pub struct MergedReport {
    /// The SCoP.
    pub scop: usize,
    /// The temporaries folded and their cells.
    pub temporaries: Vec<String>,
    pub original_cells: i64,
    /// The number of buffers and their cells.
    pub buffers: usize,
    pub new_cells: i64,
    /// For storage made for every value: the parameter values (name,
    /// value) the numbers are at (`None`: made for the known values).
    pub at: Option<Vec<(String, i64)>>,
    /// The most values of the temporaries live at once.
    pub lower_bound: Option<usize>,
    /// The chosen candidate, every certified size and why the others
    /// failed, in words.
    pub chosen: String,
    /// Where each statement (or part of one) puts its temporary's values:
    /// `S0.1: polyfold_buf0[(x0) mod (2)]`.
    pub locations: Vec<String>,
    /// Every deleted statement or loop, as in the source.
    pub removed: Vec<String>,
    /// The certifier's trace check (`None` until it ran).
    pub trace: Option<TraceCheck>,
}

/// The certifier's trace check of merged storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceCheck {
    /// For the known values: the reads compared.
    Values { reads: usize },
    /// Proven for every value, and traced at `sizes` sizes.
    EveryValue { sizes: usize, reads: usize },
}

/// Merged storage made for every parameter value of the context.
#[derive(Clone, Debug)]
pub struct EveryValue {
    /// The symbolic global conflict set of the parts, and the mapping to
    /// prove on it ([`crate::mapping::smo::certify_symbolic`]).
    pub spec: ConflictSpec,
    pub sol: SmoSolution,
    /// The probe points the mapping was lifted from (the first gives the
    /// numbers of the report).
    pub probes: Vec<Vec<i64>>,
    /// The temporaries' cells and the buffers' cells as C expressions in
    /// the parameters (`2 * (N + 2)`, `N + 1 + 1 + 1`).
    pub original_formula: String,
    pub new_formula: String,
    /// Whether the buffers hold exactly the most values live at once at
    /// the first probe point (no storage is smaller there).
    pub optimal_at_probe: bool,
}

impl SmoContraction {
    /// Adds `text` (a declaration, e.g. a `_Static_assert`) on a line of
    /// its own right after the buffers' declaration, and updates
    /// `output`.
    pub(crate) fn declare_after_buffers(&mut self, source: &str, text: &str) -> Result<(), String> {
        let d = &self.declaration;
        let edit = &mut self.edits[d.edit];
        if d.own_line {
            // The replacement ends with the line break of its own line.
            edit.replacement.push_str(&format!("{}{text}\n", d.indent));
        } else {
            edit.replacement.push_str(&format!("\n{}{text}", d.indent));
        }
        self.output = apply_edits(source, &self.edits).map_err(|e| e.to_string())?;
        Ok(())
    }
}

/// The edit that declares the merged buffers.
#[derive(Clone, Debug)]
pub struct BufferDeclaration {
    /// Its index in [`SmoContraction::edits`].
    pub edit: usize,
    /// Whether it is a line of its own (an insertion ending with a line
    /// break) rather than the replacement of a declaration.
    pub own_line: bool,
    /// The indentation of its line.
    pub indent: String,
}
