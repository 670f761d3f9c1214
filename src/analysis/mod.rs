//! Lifetime analysis: which cells (or values) of a temporary array can be
//! live at the same time, as exact polyhedral conflict sets and difference
//! sets.
//!
//! Invariant: `analysis` reads the IR and produces sets; it chooses no
//! mapping and edits no text. Every set it produces is exact or a superset
//! of the truth (over-approximating a conflict is safe, missing one is a
//! miscompile), and it says which.

pub mod build;
pub mod cells;
pub mod dataflow;
pub(crate) mod livein;
pub mod liveness;
pub mod model;
pub mod values;

pub use cells::{CellConflicts, ConflictPiece};
pub use model::{AccessEvent, AccessKind, ArrayModel};
