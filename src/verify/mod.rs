//! Verification by trace interpretation for concrete parameter values.
//!
//! The interpreter runs the SCoP's control flow (not its arithmetic): it
//! enumerates every operation in schedule order, gives every write a fresh
//! value id, and checks that every read of the transformed program sees
//! the same value id as the original program. Where the transformed
//! program keeps an array (`storage`) is its original layout, a per-array
//! modular mapping (every cell sent through it), or merged buffers shared
//! by several arrays, where each access carries the location the emitted
//! program computes for it and copies the emitted program deleted are not
//! run. It also measures the max-live lower bound: the largest number of
//! values simultaneously live, which no mapping for this schedule can beat.

//! Invariant: `verify` is independent of how mappings were found; it trusts
//! nothing but the enumeration of the iteration domains.

pub mod build;
pub mod storage;
pub mod trace;

pub use storage::{
    AccessLocation, Level, Location, MergedStorage, ProgramStorage, Slot, Storage, TraceBuffer,
};
pub use trace::{
    LiveProfile, Mismatch, MismatchKind, TraceAccess, TraceArray, TraceProgram, TraceReport,
    TraceStatement, run_trace, run_trace_profiled,
};
