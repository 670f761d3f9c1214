//! Random-program differential testing and no-panic fuzzing.
//!
//! - `program`: the model of a generated kernel, its C printer and its
//!   concrete well-definedness check (bounds, read-before-write);
//! - `generate`: the seeded generator of such programs;
//! - `check`: the differential check of one program (polyfold, trace
//!   verifier, `cc` on both versions, lang-c), with panics and hangs caught;
//! - `minimise`: greedy shrinking of a failing program;
//! - `mutate`: the seeded input mutator and the no-panic check of the
//!   library entry points.
//!
//! The `polyfold-fuzz` binary runs long campaigns; `tests/differential.rs`
//! and `tests/no_panic.rs` run fixed slices in `cargo test`. This module is
//! test support: the pipeline never calls it.

pub mod check;
pub mod generate;
pub mod minimise;
pub mod mutate;
pub mod program;
