//! Analysis stage: lattices, SMO on conflict specifications, the
//! contraction targets of the papers, power-of-two moduli, mappings lifted
//! to every size and the cost rule that refuses folds not worth their `%`.
//!
//! One test binary per stage (see `tests/README.md`); each former test
//! crate is a module here.

#[path = "../common/mod.rs"]
mod common;

mod contraction_targets;
mod cost_rule;
mod lattice;
mod lifted_from_a_size;
mod pow2_moduli;
mod smo_reference;
