//! The input of the lifetime analysis: every access to one array as an
//! [`AccessEvent`] — an iteration domain, a schedule and a subscript, all as
//! plain integer rows. Building it from the IR is the job of the driver;
//! this module knows nothing about C.

use crate::poly::BasicSet;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccessKind {
    Read,
    Write,
}

/// One access of one statement to the array, over one convex piece of the
/// statement's domain (a statement whose domain is a union yields one event
/// per piece).
///
/// `domain` is a set over `params + iterators` (its existentials, e.g. for
/// strided loops, are allowed). `schedule` and `subscripts` are rows of
/// `domain.width()` entries over the same columns (constant last): the 2d+1
/// schedule of the statement and the array subscripts of the access.
/// Inside one operation reads happen before the write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessEvent {
    pub statement: usize,
    /// Which access of the statement this is: 0 for the write, `k + 1` for
    /// its `k`-th read.
    pub position: usize,
    pub kind: AccessKind,
    pub domain: BasicSet,
    pub schedule: Vec<Vec<i64>>,
    pub subscripts: Vec<Vec<i64>>,
}

impl AccessEvent {
    /// Number of iterator columns plus existentials of the domain.
    pub fn n_local(&self) -> usize {
        self.domain.width() - 1 - self.domain.space.n_param()
    }
}

/// Everything the analysis needs to know about one array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArrayModel {
    pub name: String,
    /// Parameter names, shared by every event's domain (same order).
    pub params: Vec<String>,
    pub rank: usize,
    pub events: Vec<AccessEvent>,
}
