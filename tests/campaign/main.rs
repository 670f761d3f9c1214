//! Campaign stage: the random-program generator and the differential check
//! of the `polyfold-fuzz` crate (`fuzz/`). The forms the generator can
//! produce, the CI slices of the differential and no-panic campaigns, and
//! the miscompiles of issue 14 that the differential check itself finds
//! (statement deletion, parallel loops).
//!
//! One test binary per stage (see `tests/README.md`); each former test
//! crate is a module here.

#[path = "../common/mod.rs"]
mod common;
mod differential;
mod fuzz_forms;
mod hang_limit;
mod miscompile_deletion;
mod miscompile_parallel;
mod no_panic;
