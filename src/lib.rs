//! polyfold: a source-to-source C translator that shrinks the memory of
//! affine loop kernels by folding and merging temporary arrays.
//!
//! Pipeline (data flows one way):
//! `frontend` (C text → SCoPs in the `ir`) → `analysis` (lifetimes, conflicts)
//! → `mapping` (certified storage mappings) → `codegen` (byte-range edits).
//!
//! Invariants:
//! - only `frontend` names `tree_sitter`;
//! - `poly` knows nothing about C;
//! - `frontend` knows nothing about mappings;
//! - `codegen` returns edits, it never invents a mapping or prints an AST.

pub mod analysis;
pub mod codegen;
pub mod mapping;
pub mod poly;
pub mod util;
pub mod verify;
