//! polyfold: a source-to-source C translator that shrinks the memory of
//! affine loop kernels by folding and merging temporary arrays.
//!
//! `docs/architecture.md` is the map: what each module owns, the order of
//! the passes, and the files to touch for common changes
//! (`architecture.rs` guards it).
//!
//! Pipeline (data flows one way):
//! `frontend` (C text → SCoPs in the `ir`) → `analysis` (lifetimes, conflicts)
//! → `mapping` (certified storage mappings) → `codegen` (byte-range edits).
//! `pipeline` runs them per SCoP: strategies propose storage (each array
//! alone, then merged buffers for the SCoP's temporaries when that is
//! smaller), one certifier (`pipeline::certify`, the only maker of a
//! `Certified`) checks it, code generation takes certified storage only,
//! and one record, `pipeline::FileContraction`, is what `report`, `bench`
//! and `verify` read. A new strategy is one file in `pipeline::strategy`. `driver` runs the stages for one file; `cli` declares the
//! command line; `diag` holds diagnostics and renders them with
//! codespan-reporting; `util::logging` is the one switch for developer
//! diagnostics (`--log`).
//!
//! Dependencies run one way: `poly` < `ir` < `analysis` < `mapping` <
//! {`verify`, `codegen`} < `pipeline` (`verify::build` turns a SCoP into
//! the trace program it interprets).
//!
//! Invariants:
//! - only `frontend` names `tree_sitter` (in `frontend::syntax`);
//! - `ir` is plain data that prints deterministically;
//! - `poly` knows nothing about C;
//! - `frontend` knows nothing about mappings;
//! - `codegen` returns edits, it never invents a mapping or prints an AST.

pub mod analysis;
pub mod bench;
pub mod cli;
pub mod codegen;
pub mod diag;
pub mod driver;
pub mod frontend;
pub mod ir;
pub mod mapping;
pub mod pipeline;
pub mod plot;
pub mod poly;
pub mod report;
pub mod schedule;
pub mod util;
pub mod verify;

#[cfg(test)]
mod architecture;
