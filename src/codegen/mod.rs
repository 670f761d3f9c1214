//! Code generation: turns certified storage mappings into byte-range edits
//! of the original source text.
//!
//! Invariant: `codegen` consumes mappings, it never invents them, and it
//! returns edits, it never prints an AST.
//!
//! Every operand it prints goes through `util::c_text::operand` (C
//! precedence levels, `Prec`): source text copied into `e % b` is
//! parenthesised unless it is one primary expression, and a macro whose
//! body is several tokens (`Scop::compound_macros`, e.g. `#define LAST N-1`)
//! counts as several tokens. Parameters print as `Scop::param_texts`.
//! Statements are deleted by the
//! front end's syntax nodes ([`delete`]), never by scanning the text.

pub(crate) mod delete;
pub mod edits;
pub(crate) mod mapping_note;
pub(crate) mod mapping_text;
pub mod merged;
pub(crate) mod notes;
pub mod overflow;
pub(crate) mod placement;
pub mod plan;
pub mod rotate;
pub mod scalars;
pub mod straight;
pub mod text;
pub mod wrap;

pub use edits::{Edit, EditError, apply_edits};
