//! The trace check of a fused SCoP for known parameter values: both
//! programs run on value ids (a value is the statement instance that
//! wrote it, in original terms), and every read of the fused program must
//! see the value it sees in the original, every instance must run once,
//! and every cell must end with the same value.
//!
//! The orders that hold whatever the cells (see [`crate::ir::order`]: calls
//! that touch memory, arrays that may overlap) are checked with
//! observations: each instance that takes part in such an order observes
//! the sum of the fingerprints of the instances before it that it must
//! follow, and the fused program's observations must be the original's.
//! Two instances that swapped give the later one another sum.

use std::collections::{BTreeSet, HashMap};

use super::check::Origin;
use super::failure::Failure;
use crate::ir::{SchedEntry, Scop};
use crate::poly::Budget;
use crate::poly::enumerate::integer_points;

/// An instance in original terms: statement and iteration.
type Instance = (usize, Vec<i64>);
/// A cell: array name and subscripts.
type Cell = (String, Vec<i64>);

/// What a run of a SCoP did, in original terms.
struct Run {
    /// Per read (instance, read index): the instance that wrote the value
    /// read (`None`: the value the cell had before the SCoP).
    reads: HashMap<(Instance, usize), Option<Instance>>,
    /// The last writer of every cell written.
    last: HashMap<Cell, Instance>,
    /// Per instance and order ([`Channel`]): the sum of the fingerprints
    /// of the instances before it that it must follow.
    observed: HashMap<(Instance, Channel), u64>,
    /// How many instances ran.
    instances: usize,
}

/// Runs `scop` at `values` (its own parameter order); `origin[k]` gives
/// statement `k`'s original statement and iteration, at the original
/// SCoP's parameter values `original_values`.
fn run(
    scop: &Scop,
    values: &[i64],
    (origin, original_values): (&[Origin], &[i64]),
    budget: &mut Budget,
) -> Result<Run, Failure> {
    let mut events: Vec<(Vec<i64>, usize, Vec<i64>)> = Vec::new();
    for (k, stmt) in scop.stmts.iter().enumerate() {
        let mut points = BTreeSet::new();
        for piece in &stmt.domain.pieces {
            for p in integer_points(piece, values, budget)? {
                points.insert(p);
            }
        }
        for p in points {
            let key: Vec<i64> = stmt
                .schedule
                .iter()
                .map(|e| match e {
                    SchedEntry::Const(c) => *c,
                    SchedEntry::Iter { index, sign } => sign * p[*index],
                })
                .collect();
            events.push((key, k, p));
        }
    }
    events.sort();
    let mut out = Run {
        reads: HashMap::new(),
        last: HashMap::new(),
        observed: HashMap::new(),
        instances: events.len(),
    };
    let mut orders = Orders::default();
    let eval = |sub: &crate::ir::AffExpr, p: &[i64]| -> i64 {
        let mut acc = sub.constant;
        for (c, v) in sub.coeffs.iter().zip(values.iter().chain(p)) {
            acc += c * v;
        }
        acc
    };
    let mut seen = std::collections::HashSet::new();
    for (_, k, p) in events {
        let stmt = &scop.stmts[k];
        let o = &origin[k];
        let iteration = o
            .iteration(original_values, &p)
            .ok_or_else(|| Failure::IterationOverflows(stmt.name.clone()))?;
        let instance: Instance = (o.stmt, iteration);
        if !seen.insert(instance.clone()) {
            return Err(Failure::RunsTwice {
                stmt: stmt.name.clone(),
                iteration: instance.1,
            });
        }
        let cell = |a: &crate::ir::Access| -> Cell {
            (
                scop.array(a.array).name.clone(),
                a.subscripts.iter().map(|s| eval(s, &p)).collect(),
            )
        };
        for (r, read) in stmt.reads.iter().enumerate() {
            let writer = out.last.get(&cell(read)).cloned();
            if out.reads.insert((instance.clone(), r), writer).is_some() {
                return Err(Failure::RunsTwice {
                    stmt: stmt.name.clone(),
                    iteration: instance.1,
                });
            }
        }
        orders.observe(scop, stmt, &instance, &mut out.observed);
        out.last.insert(cell(&stmt.write), instance);
    }
    Ok(out)
}

/// An order that holds whatever the cells: the calls' (with memory a call
/// can reach) or that of two arrays that may overlap (by their names,
/// sorted).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Channel {
    Calls,
    Alias(String, String),
}

/// The running sums of the [`Channel`]s: per channel and kind of event,
/// the sum of the fingerprints of the instances so far.
#[derive(Default)]
struct Orders {
    sums: HashMap<(Channel, Event), u64>,
}

/// What an instance does in a channel.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Event {
    /// A call that may write memory.
    CallWrites,
    /// A call that may read memory.
    CallReads,
    /// A write, or a read, of memory a call can reach.
    Write,
    Read,
    /// A write, or a read, of the array of this name (aliasing).
    WriteOf(String),
    ReadOf(String),
}

impl Orders {
    /// The observations of `instance` of `stmt`, then its own events.
    fn observe(
        &mut self,
        scop: &Scop,
        stmt: &crate::ir::Stmt,
        instance: &Instance,
        observed: &mut HashMap<(Instance, Channel), u64>,
    ) {
        use crate::ir::{AccessKind, Effect};
        let mut events: Vec<(Channel, Event, Vec<Event>)> = Vec::new();
        // The events each kind must follow (see `crate::ir::order`).
        let calls = |e: Event| -> (Channel, Event, Vec<Event>) {
            let after = match e {
                Event::CallWrites => {
                    vec![
                        Event::CallWrites,
                        Event::CallReads,
                        Event::Write,
                        Event::Read,
                    ]
                }
                Event::CallReads => vec![Event::CallWrites, Event::Write],
                Event::Write => vec![Event::CallWrites, Event::CallReads],
                _ => vec![Event::CallWrites],
            };
            (Channel::Calls, e, after)
        };
        match stmt.effect() {
            Effect::Writes => events.push(calls(Event::CallWrites)),
            Effect::Reads => events.push(calls(Event::CallReads)),
            Effect::None => {}
        }
        for a in stmt.accesses() {
            let array = scop.array(a.array);
            let write = a.kind == AccessKind::Write;
            if array.facts.call_visible() {
                events.push(calls(if write { Event::Write } else { Event::Read }));
            }
            for m in &scop.aliases {
                let (x, y) = (&scop.array(m.a).name, &scop.array(m.b).name);
                let other = if *x == array.name {
                    y
                } else if *y == array.name {
                    x
                } else {
                    continue;
                };
                let channel = if x < y {
                    Channel::Alias(x.clone(), y.clone())
                } else {
                    Channel::Alias(y.clone(), x.clone())
                };
                let mut after = vec![Event::WriteOf(other.clone())];
                if write {
                    after.push(Event::ReadOf(other.clone()));
                }
                let own = if write {
                    Event::WriteOf(array.name.clone())
                } else {
                    Event::ReadOf(array.name.clone())
                };
                events.push((channel, own, after));
            }
        }
        if events.is_empty() {
            return;
        }
        let print = fingerprint(instance);
        for (channel, _, after) in &events {
            let seen = after.iter().fold(0u64, |acc, e| {
                let s = self
                    .sums
                    .get(&(channel.clone(), e.clone()))
                    .copied()
                    .unwrap_or(0);
                acc.wrapping_add(s.rotate_left(event_rank(e)))
            });
            let slot = observed
                .entry((instance.clone(), channel.clone()))
                .or_insert(0);
            *slot = slot.wrapping_add(seen);
        }
        // An instance's events count once per channel and kind.
        let mut own: Vec<(Channel, Event)> = events.into_iter().map(|(c, e, _)| (c, e)).collect();
        own.sort_by_key(|(c, e)| format!("{c:?}{e:?}"));
        own.dedup();
        for key in own {
            let s = self.sums.entry(key).or_insert(0);
            *s = s.wrapping_add(print);
        }
    }
}

/// A 64-bit fingerprint of an instance (deterministic).
fn fingerprint(instance: &Instance) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = crate::util::hash::FastHasher::default();
    instance.hash(&mut h);
    h.finish() | 1
}

/// Keeps the sums of different kinds apart in one observation.
fn event_rank(e: &Event) -> u32 {
    match e {
        Event::CallWrites => 0,
        Event::CallReads => 13,
        Event::Write => 26,
        Event::Read => 39,
        Event::WriteOf(_) => 7,
        Event::ReadOf(_) => 19,
    }
}

/// Checks the fused SCoP against the original at the original's
/// parameter values `values` (`order` as for
/// [`super::check::check_fused`]; `renames` maps the fused SCoP's array
/// names that are not the original's, split arrays', back to the
/// original's). Returns the number of reads checked.
pub fn same_values(
    original: &Scop,
    (fused, renames): (&Scop, &[(String, String)]),
    order: &[Origin],
    values: &[i64],
    budget: &mut Budget,
) -> Result<usize, Failure> {
    let np = original.params.len();
    let identity: Vec<Origin> = original
        .stmts
        .iter()
        .enumerate()
        .map(|(k, s)| Origin::identity(k, s.iterators.len(), np))
        .collect();
    let fused_values: Vec<i64> = fused
        .params
        .iter()
        .map(|p| {
            original
                .params
                .iter()
                .position(|q| q.name == p.name)
                .map(|k| values[k])
                .ok_or_else(|| Failure::ParameterNotOriginal(p.name.clone()))
        })
        .collect::<Result<_, _>>()?;
    let a = run(original, values, (&identity, values), budget)?;
    let b = run(fused, &fused_values, (order, values), budget)?;
    if a.instances != b.instances {
        return Err(Failure::InstanceCount {
            fused: b.instances,
            original: a.instances,
        });
    }
    for (key, writer) in &b.reads {
        match a.reads.get(key) {
            Some(w) if w == writer => {}
            _ => {
                return Err(Failure::ReadsAnother {
                    stmt: key.0.0,
                    iteration: key.0.1.clone(),
                    read: key.1,
                });
            }
        }
    }
    // The last values, in the original's names: a split array's cells
    // are the original's (two new arrays holding one cell is not a
    // split).
    let mut last: HashMap<Cell, Instance> = HashMap::new();
    for ((name, at), writer) in b.last {
        let name = renames
            .iter()
            .find(|(new, _)| *new == name)
            .map_or(name, |(_, old)| old.clone());
        if last.insert((name, at.clone()), writer).is_some() {
            return Err(Failure::TwoArraysHold(at));
        }
    }
    if a.reads.len() != b.reads.len() || a.last != last {
        return Err(Failure::OtherValuesInMemory);
    }
    for (key, seen) in &a.observed {
        if b.observed.get(key) != Some(seen) {
            return Err(Failure::OtherOrder {
                stmt: key.0.0,
                iteration: key.0.1.clone(),
                with: match &key.1 {
                    Channel::Calls => None,
                    Channel::Alias(x, y) => Some((x.clone(), y.clone())),
                },
            });
        }
    }
    Ok(b.reads.len())
}
