//! Exact polyhedral arithmetic over the integers.
//!
//! Invariant: this module knows nothing about C. It deals in named spaces,
//! integer constraint systems, unions of polyhedra and relations between them.
//! Every answer that can affect the correctness of a mapping is computed with
//! exact (checked) integer or rational arithmetic; overflow is reported as
//! [`PolyError::Overflow`], never turned into a wrong answer.
//!
//! Column layout of every constraint row (see [`BasicSet`]):
//! `[params | domain dims | range dims | existentials | constant]`, and a row
//! `a` stands for `a·x + c >= 0` (inequality) or `a·x + c = 0` (equality).

pub mod basic;
pub mod brute;
pub mod budget;
pub mod constraints;
pub mod enumerate;
pub mod error;
pub mod farkas;
pub(crate) mod hull;
pub(crate) mod ilp;
pub mod isl_parse;
pub(crate) mod isl_print;
pub mod lexopt;
pub mod matrix;
pub mod ops;
pub mod project;
pub mod rational;
pub mod set;
pub mod simplex;
pub mod space;

pub use basic::BasicSet;
pub use budget::{Budget, WorkLimit};
pub use error::{PolyError, PolyResult};
pub use set::Set;
pub use space::{Space, Tuple};
