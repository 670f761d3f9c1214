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
//!
//! # The library API
//!
//! The `polyfold` binary is the product; the library exists for it, the
//! integration tests and the campaign crate. What a program may rely on is
//! the few items re-exported here:
//! - [`run_file`] / [`run_source`] with [`RunOptions`] → an [`Outcome`]
//!   (the output text, the messages, the exit code), and [`verify_file`];
//! - [`extract`] (C text → a [`Program`] of SCoPs, never failing: what it
//!   rejects is a [`Diagnostic`] with a [`Code`]);
//! - [`contract_file`] with [`ContractOptions`] → a [`FileContraction`]
//!   (every decision, the edits and the output), or an [`Error`].
//!
//! The modules below are public for the tests only (hidden from the
//! documentation); inside them, what no code outside the library names is
//! `pub(crate)`.

pub use diag::{Code, Diagnostic};
pub use driver::{Outcome, RunOptions, run_file, run_source, verify_file};
pub use frontend::extract;
pub use ir::scop::Program;
pub use pipeline::{ContractOptions, Error, FileContraction, contract_file};

#[doc(hidden)]
pub mod analysis;
#[doc(hidden)]
pub mod bench;
#[doc(hidden)]
pub mod cli;
#[doc(hidden)]
pub mod cli_doc;
#[doc(hidden)]
pub mod codegen;
#[doc(hidden)]
pub mod diag;
#[doc(hidden)]
pub mod driver;
#[doc(hidden)]
pub mod equiv;
#[doc(hidden)]
pub mod frontend;
#[doc(hidden)]
pub mod ir;
#[doc(hidden)]
pub mod mapping;
#[doc(hidden)]
pub mod pipeline;
#[doc(hidden)]
pub mod plot;
#[doc(hidden)]
pub mod poly;
#[doc(hidden)]
pub mod report;
#[doc(hidden)]
pub mod schedule;
#[doc(hidden)]
pub mod util;
#[doc(hidden)]
pub mod verify;

#[cfg(test)]
mod architecture;
