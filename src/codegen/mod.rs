//! Code generation: turns certified storage mappings into byte-range edits
//! of the original source text.
//!
//! Invariant: `codegen` consumes mappings, it never invents them, and it
//! returns edits, it never prints an AST. Statements are deleted by the
//! front end's syntax nodes ([`delete`]), never by scanning the text.

pub mod delete;
pub mod edits;
pub mod plan;

pub use edits::{Edit, EditError, apply_edits};
