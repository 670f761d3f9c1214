//! The polyhedral intermediate representation of static control parts.
//!
//! This module is plain data: parameters and their context, arrays with the
//! facts the liveness classifier needs, statements with iteration domains,
//! access relations and 2d+1 schedules, and the source spans of everything
//! that code generation may later edit. Everything prints deterministically
//! (see [`dump`]).
//!
//! What it does NOT do: it does not parse C (that is `frontend`, the only
//! module that names `tree_sitter`), it does not decide liveness (the
//! [`Liveness`] field is a placeholder filled by a later analysis), and it
//! does not simplify sets (domains are stored as the front end built them).
pub mod dump;
pub mod order;
pub mod scop;
pub mod verify;

pub use dump::{emit_program, emit_scop};
pub use order::{OrderCause, Ordering, always_ordered, orderings};
pub use scop::*;
pub use verify::verify;
