//! Front-end stage: C text to SCoPs. The grammar cases of
//! `grammar-tests/`, the preprocessor as a user meets it, the front end's
//! robustness on mutated inputs, the SCoP dump of every corpus kernel and
//! the iteration domains of bounds with `/` and `%`.
//!
//! One test binary per stage (see `tests/README.md`); each former test
//! crate is a module here.

#[path = "../common/mod.rs"]
mod common;

mod corpus_scop;
mod frontend_robustness;
mod grammar;
mod preprocessor;
mod quasi_affine;
