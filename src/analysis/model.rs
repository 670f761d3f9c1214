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
    /// The schedule levels (`2k + 1` for the loop of iterator `k`) of the
    /// enclosing loops that are marked parallel: their iterations are
    /// unordered.
    pub parallel_levels: Vec<usize>,
}

impl AccessEvent {
    /// Number of iterator columns plus existentials of the domain.
    pub(crate) fn n_local(&self) -> usize {
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

/// Adds `sign·row` to `out`, where `row` is over `[params | locals |
/// constant]` of an event domain and the locals land at column `block` of
/// `out` (parameters and constant keep their places).
pub(crate) fn embed_row(row: &[i64], n_param: usize, block: usize, sign: i64, out: &mut [i64]) {
    let n_local = row.len() - 1 - n_param;
    for p in 0..n_param {
        out[p] += sign * row[p];
    }
    for l in 0..n_local {
        out[block + l] += sign * row[n_param + l];
    }
    let last = out.len() - 1;
    out[last] += sign * row[row.len() - 1];
}

/// Adds every constraint of `src` (an event domain) to `set`, its locals at
/// column `block`.
pub(crate) fn embed_constraints(set: &mut BasicSet, src: &BasicSet, n_param: usize, block: usize) {
    for (rows, is_eq) in [(&src.eqs, true), (&src.ineqs, false)] {
        for row in rows {
            let mut r = set.zero_row();
            embed_row(row, n_param, block, 1, &mut r);
            if is_eq {
                set.add_eq(r);
            } else {
                set.add_ineq(r);
            }
        }
    }
}

/// Adds "the schedule of `before` (locals at `b_before`) is strictly earlier
/// than that of `after` (locals at `b_after`), first differing at `level`".
pub(crate) fn add_strict_order(
    set: &mut BasicSet,
    n_param: usize,
    (before, b_before): (&AccessEvent, usize),
    (after, b_after): (&AccessEvent, usize),
    level: usize,
) {
    for j in 0..=level {
        let mut r = set.zero_row();
        if let Some(row) = after.schedule.get(j) {
            embed_row(row, n_param, b_after, 1, &mut r);
        }
        if let Some(row) = before.schedule.get(j) {
            embed_row(row, n_param, b_before, -1, &mut r);
        }
        if j < level {
            set.add_eq(r);
        } else {
            let last = r.len() - 1;
            r[last] -= 1;
            set.add_ineq(r);
        }
    }
}
