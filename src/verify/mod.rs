//! Verification by trace interpretation for concrete parameter values.
//!
//! The interpreter runs the SCoP's control flow (not its arithmetic): it
//! enumerates every operation in schedule order, gives every write a fresh
//! value id, and checks that every read of the transformed program (each
//! array access sent through its storage mapping) sees the same value id as
//! the original program. It also measures the max-live lower bound: the
//! largest number of values simultaneously live, which no mapping for this
//! schedule can beat.
//!
//! Invariant: `verify` is independent of how mappings were found; it trusts
//! nothing but the enumeration of the iteration domains.

pub mod enumerate;
pub mod trace;

pub use trace::{
    Mismatch, TraceAccess, TraceArray, TraceProgram, TraceReport, TraceStatement, run_trace,
};
