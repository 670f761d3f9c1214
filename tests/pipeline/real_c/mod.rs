//! What C does not promise (issue 45): every transformation that moves
//! statement instances must hold for the C people write, not only for the
//! papers' kernels. One module per class of assumption; each compiles the
//! original and polyfold's output, runs both under the sanitizers at the
//! values that would expose the class (extreme parameters, aliasing
//! arguments, stateful calls, OpenMP builds) and compares what they print.
//! The kernels are in `tests/real_c/cases/`, one folder per module.

mod aliasing;
mod calls;
mod declarations;
mod macros;
mod openmp;
mod overflow;
mod syntax;
mod types;
