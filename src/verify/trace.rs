//! The trace interpreter: value ids through the original and the mapped
//! memory, and the max-live lower bound.

use std::collections::HashMap;

use crate::mapping::ModularMapping;
use crate::poly::basic::eval_row;
use crate::poly::error::PolyResult;
use crate::poly::{BasicSet, Budget};

use super::enumerate::integer_points;

/// One access of a statement. `subscripts` are rows over
/// `[params | iterators | constant]` of the statement.
#[derive(Clone, Debug)]
pub struct TraceAccess {
    pub array: usize,
    pub subscripts: Vec<Vec<i64>>,
}

/// One statement: its domain pieces (sets over params + iterators), its
/// 2d+1 schedule rows over `[params | iterators | constant]`, its reads (in
/// order, all before the write) and its write.
#[derive(Clone, Debug)]
pub struct TraceStatement {
    pub name: String,
    pub domain: Vec<BasicSet>,
    pub schedule: Vec<Vec<i64>>,
    pub reads: Vec<TraceAccess>,
    pub write: TraceAccess,
}

/// An array of the trace; `mapping` is its storage mapping in the
/// transformed program (`None`: original layout).
#[derive(Clone, Debug)]
pub struct TraceArray {
    pub name: String,
    pub mapping: Option<ModularMapping>,
}

#[derive(Clone, Debug)]
pub struct TraceProgram {
    pub arrays: Vec<TraceArray>,
    pub statements: Vec<TraceStatement>,
}

/// The first read that sees a different value in the transformed program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub statement: String,
    pub iteration: Vec<i64>,
    pub array: String,
    pub cell: Vec<i64>,
    pub location: Vec<i64>,
    /// The operation that wrote the value the original reads (`None`: the
    /// value was there before the SCoP).
    pub expected_writer: Option<(String, Vec<i64>)>,
    pub found_writer: Option<(String, Vec<i64>)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceReport {
    pub operations: usize,
    pub reads_checked: usize,
    pub first_mismatch: Option<Mismatch>,
    /// Per array, the largest number of its values live at once.
    pub max_live: Vec<usize>,
    /// The largest number of values of all arrays live at once.
    pub max_live_total: usize,
    /// Per array, how many reads found a value from before the SCoP (of a
    /// cell that the SCoP had not written yet).
    pub initial_reads: Vec<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Value {
    /// The value of a cell before the SCoP: identified by array and cell
    /// (the cell index is kept in `initial_cells`).
    Initial(usize),
    /// Written by operation number `op`.
    Written(usize),
}

fn apply_mapping(
    mapping: &Option<ModularMapping>,
    cell: &[i64],
    params: &[i64],
) -> PolyResult<Vec<i64>> {
    match mapping {
        None => Ok(cell.to_vec()),
        Some(m) => m
            .dims
            .iter()
            .map(|d| {
                let mut e: i64 = 0;
                for (c, x) in d.coeffs.iter().zip(cell) {
                    e = crate::poly::error::add(e, crate::poly::error::mul(*c, *x)?)?;
                }
                let b = d.modulus.eval(params)?;
                Ok(e.rem_euclid(b.max(1)))
            })
            .collect(),
    }
}

/// Runs `program` for the parameter values `params`.
pub fn run_trace(
    program: &TraceProgram,
    params: &[i64],
    budget: &mut Budget,
) -> PolyResult<TraceReport> {
    // Every operation, with its schedule vector.
    let mut ops: Vec<(Vec<i64>, usize, Vec<i64>)> = Vec::new();
    for (si, stmt) in program.statements.iter().enumerate() {
        let mut points: Vec<Vec<i64>> = Vec::new();
        for piece in &stmt.domain {
            points.extend(integer_points(piece, params, budget)?);
        }
        points.sort();
        points.dedup();
        for it in points {
            let mut full = params.to_vec();
            full.extend_from_slice(&it);
            let sched = stmt
                .schedule
                .iter()
                .map(|r| eval_row(r, &full))
                .collect::<PolyResult<Vec<_>>>()?;
            ops.push((sched, si, it));
        }
    }
    let depth = ops.iter().map(|o| o.0.len()).max().unwrap_or(0);
    for op in ops.iter_mut() {
        op.0.resize(depth, 0);
    }
    ops.sort();

    let n_arrays = program.arrays.len();
    let mut original: HashMap<(usize, Vec<i64>), Value> = HashMap::new();
    let mut mapped: HashMap<(usize, Vec<i64>), Value> = HashMap::new();
    let mut initial_ids: HashMap<(usize, Vec<i64>), usize> = HashMap::new();
    // Per value: (array, birth time, death time).
    let mut lifetimes: HashMap<Value, (usize, usize, usize)> = HashMap::new();
    let mut report = TraceReport {
        operations: ops.len(),
        reads_checked: 0,
        first_mismatch: None,
        max_live: vec![0; n_arrays],
        max_live_total: 0,
        initial_reads: vec![0; n_arrays],
    };
    let describe = |v: Value| -> Option<(String, Vec<i64>)> {
        match v {
            Value::Initial(_) => None,
            Value::Written(op) => Some((
                program.statements[ops[op].1].name.clone(),
                ops[op].2.clone(),
            )),
        }
    };
    for (op_index, (_, si, it)) in ops.iter().enumerate() {
        let stmt = &program.statements[*si];
        let mut full = params.to_vec();
        full.extend_from_slice(it);
        let read_time = 2 * op_index + 1;
        for access in &stmt.reads {
            let cell = access
                .subscripts
                .iter()
                .map(|r| eval_row(r, &full))
                .collect::<PolyResult<Vec<_>>>()?;
            let location = apply_mapping(&program.arrays[access.array].mapping, &cell, params)?;
            let key = (access.array, cell.clone());
            let expected = match original.get(&key) {
                Some(v) => *v,
                None => {
                    let next = initial_ids.len();
                    let id = *initial_ids.entry(key.clone()).or_insert(next);
                    Value::Initial(id)
                }
            };
            if matches!(expected, Value::Initial(_)) {
                report.initial_reads[access.array] += 1;
            }
            let found = mapped.get(&(access.array, location.clone())).copied();
            report.reads_checked += 1;
            let ok = match (expected, found) {
                (Value::Initial(_), None) => true,
                (e, Some(f)) => e == f,
                (Value::Written(_), None) => false,
            };
            if !ok && report.first_mismatch.is_none() {
                report.first_mismatch = Some(Mismatch {
                    statement: stmt.name.clone(),
                    iteration: it.clone(),
                    array: program.arrays[access.array].name.clone(),
                    cell,
                    location,
                    expected_writer: describe(expected),
                    found_writer: found.and_then(describe),
                });
            }
            let entry = lifetimes
                .entry(expected)
                .or_insert((access.array, 0, read_time));
            entry.2 = entry.2.max(read_time);
        }
        let w = &stmt.write;
        let cell = w
            .subscripts
            .iter()
            .map(|r| eval_row(r, &full))
            .collect::<PolyResult<Vec<_>>>()?;
        let location = apply_mapping(&program.arrays[w.array].mapping, &cell, params)?;
        let value = Value::Written(op_index);
        original.insert((w.array, cell), value);
        mapped.insert((w.array, location), value);
        let birth = 2 * op_index + 2;
        lifetimes.insert(value, (w.array, birth, birth));
    }
    // Sweep the lifetimes: +1 at birth, -1 after death.
    let mut events: Vec<(usize, i64, usize)> = Vec::with_capacity(2 * lifetimes.len());
    for (array, birth, death) in lifetimes.values() {
        events.push((*birth, 1, *array));
        events.push((*death + 1, -1, *array));
    }
    // Ends before starts at the same time.
    events.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    let mut live = vec![0i64; n_arrays];
    let mut total = 0i64;
    for (_, delta, array) in events {
        live[array] += delta;
        total += delta;
        report.max_live[array] = report.max_live[array].max(live[array].max(0) as usize);
        report.max_live_total = report.max_live_total.max(total.max(0) as usize);
    }
    Ok(report)
}
