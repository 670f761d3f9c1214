//! Small utilities shared by several modules and by the tests.

pub mod atomic;
pub mod bytes;
pub(crate) mod c_text;
pub mod hash;
pub mod logging;
pub mod parallel;
pub mod progress;
pub mod rng;
pub mod scratch;
pub mod snapshot;
