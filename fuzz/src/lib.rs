//! Random-program differential testing and no-panic fuzzing.
//!
//! - `program`: the model of a generated kernel, its C printer and its
//!   concrete well-definedness check (bounds, read-before-write);
//! - `generate`: the seeded generator of such programs;
//! - `real_c`: the kernels of their own that a program may carry after its
//!   main kernel, written in the forms of real C of issue 45 (stateful
//!   calls, aliasing arguments, extreme bases, `long` iterators, OpenMP
//!   under `#ifdef`, late VLA sizes and initialisers with calls, `#undef`,
//!   qualifier and statement macros), and of issue 47 (scratch buffers
//!   owned by the caller, heap scratch of the kernel);
//! - `check`: the differential check of one program (polyfold, trace
//!   verifier, `cc` on both versions, lang-c), with panics and hangs caught;
//! - `minimise`: greedy shrinking of a failing program;
//! - `mutate`: the seeded input mutator and the no-panic check of the
//!   library entry points.
//!
//! A dev-only crate of the workspace (not published): the library never
//! calls it. Its binary `polyfold-fuzz` runs long campaigns (`cargo run
//! --release -p polyfold-fuzz -- --help`); the `campaign` test binary of
//! the root package (`tests/campaign/`: `differential`, `no_panic`,
//! `fuzz_forms`, ...) runs fixed slices in `cargo test`.

pub mod check;
pub mod generate;
pub mod minimise;
pub mod mutate;
pub mod program;
pub mod real_c;

/// The coefficients a read may carry (printed as C double literals), in
/// the main kernel (`program`, `generate`) and in the units (`real_c`).
pub const WEIGHTS: [&str; 6] = ["0.5", "0.25", "0.75", "1.0", "-0.5", "1.5"];
