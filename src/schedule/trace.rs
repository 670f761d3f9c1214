//! The trace check of a fused SCoP for known parameter values: both
//! programs run on value ids (a value is the statement instance that
//! wrote it, in original terms), and every read of the fused program must
//! see the value it sees in the original, every instance must run once,
//! and every cell must end with the same value.

use std::collections::{BTreeSet, HashMap};

use super::check::Origin;
use crate::ir::{SchedEntry, Scop};
use crate::poly::Budget;
use crate::verify::enumerate::integer_points;

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
) -> Result<Run, String> {
    let mut events: Vec<(Vec<i64>, usize, Vec<i64>)> = Vec::new();
    for (k, stmt) in scop.stmts.iter().enumerate() {
        let mut points = BTreeSet::new();
        for piece in &stmt.domain.pieces {
            for p in integer_points(piece, values, budget).map_err(|e| e.to_string())? {
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
        instances: events.len(),
    };
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
            .ok_or_else(|| format!("{}: an iteration overflows", stmt.name))?;
        let instance: Instance = (o.stmt, iteration);
        if !seen.insert(instance.clone()) {
            return Err(format!(
                "{} runs iteration {:?} twice",
                stmt.name, instance.1
            ));
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
                return Err(format!(
                    "{} runs iteration {:?} twice",
                    stmt.name, instance.1
                ));
            }
        }
        out.last.insert(cell(&stmt.write), instance);
    }
    Ok(out)
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
) -> Result<usize, String> {
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
                .ok_or_else(|| format!("parameter `{}` is not the original's", p.name))
        })
        .collect::<Result<_, _>>()?;
    let a = run(original, values, (&identity, values), budget)?;
    let b = run(fused, &fused_values, (order, values), budget)?;
    if a.instances != b.instances {
        return Err(format!(
            "the fused program runs {} instances where the original runs {}",
            b.instances, a.instances
        ));
    }
    for (key, writer) in &b.reads {
        match a.reads.get(key) {
            Some(w) if w == writer => {}
            _ => {
                return Err(format!(
                    "S{} at {:?} reads another value with its read {}",
                    key.0.0, key.0.1, key.1
                ));
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
            return Err(format!("two arrays of the fused program hold cell {at:?}"));
        }
    }
    if a.reads.len() != b.reads.len() || a.last != last {
        return Err("the fused program leaves other values in memory".to_string());
    }
    Ok(b.reads.len())
}
