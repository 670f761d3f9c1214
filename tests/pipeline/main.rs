//! Pipeline and code generation stage: whole programs through polyfold,
//! their outputs compiled and run against the originals. Fusion, rotating
//! scalars, symbolic sizes, splitting, readable output, function
//! parameters, the SMO path on the corpus, merged buffers verified, the
//! per-stage snapshots of the corpus, the miscompiles of issue 14 (printing
//! and values), the real C of issue 45 (`real_c`) and issue 51's labels
//! and bitwise bounds (`labels_bitwise`).
//!
//! One test binary per stage (see `tests/README.md`); each former test
//! crate is a module here.

#[path = "../common/mod.rs"]
mod common;

mod corpus_programs;
mod data_conditions;
mod function_parameters;
mod fusion;
mod fusion_forms;
mod indeterminate;
mod labels_bitwise;
mod linear_tables;
mod miscompile_printing;
mod miscompile_values;
mod readable_output;
mod real_c;
mod reviewer_output;
mod rotating_scalars;
mod scalar_offsets;
mod schedule_freedom;
mod smo_codegen;
mod split;
mod stage_snapshots;
mod symbolic_sizes;
mod value_lifetimes;
mod verify_merged;
