//! The trace interpreter: value ids through the original and the mapped
//! memory, and the max-live lower bound.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A fast, non-cryptographic hasher for the trace's cell keys (the trace
/// hashes hundreds of thousands of small integer keys; SipHash dominated).
#[derive(Default)]
struct CellHasher(u64);

impl Hasher for CellHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Integer slices arrive here as bytes: take them eight at a time.
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(c);
            self.write_u64(u64::from_le_bytes(word));
        }
        for b in chunks.remainder() {
            self.write_u64(u64::from(*b));
        }
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_i64(&mut self, v: i64) {
        self.write_u64(v as u64);
    }

    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
}

type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<CellHasher>>;

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
    // Every operation: its schedule vector and iteration vector, stored
    // flat (one allocation for all operations, not two per operation).
    let mut schedules: Vec<i64> = Vec::new();
    let mut iterations: Vec<i64> = Vec::new();
    let mut op_info: Vec<(usize, usize, usize)> = Vec::new(); // (statement, offset, length) of the iteration
    let depth = program
        .statements
        .iter()
        .map(|s| s.schedule.len())
        .max()
        .unwrap_or(0);
    let mut full: Vec<i64> = Vec::new();
    for (si, stmt) in program.statements.iter().enumerate() {
        let mut points: Vec<Vec<i64>> = Vec::new();
        for piece in &stmt.domain {
            points.extend(integer_points(piece, params, budget)?);
        }
        if stmt.domain.len() > 1 {
            points.sort();
            points.dedup();
        }
        for it in points {
            full.clear();
            full.extend_from_slice(params);
            full.extend_from_slice(&it);
            for r in &stmt.schedule {
                schedules.push(eval_row(r, &full)?);
            }
            schedules.resize(schedules.len() + depth - stmt.schedule.len(), 0);
            op_info.push((si, iterations.len(), it.len()));
            iterations.extend_from_slice(&it);
        }
    }
    let mut order: Vec<usize> = (0..op_info.len()).collect();
    order.sort_by(|a, b| {
        schedules[a * depth..(a + 1) * depth]
            .cmp(&schedules[b * depth..(b + 1) * depth])
            .then(op_info[*a].0.cmp(&op_info[*b].0))
            .then_with(|| {
                let (_, oa, la) = op_info[*a];
                let (_, ob, lb) = op_info[*b];
                iterations[oa..oa + la].cmp(&iterations[ob..ob + lb])
            })
    });
    drop(schedules);
    // ops[k] = (statement, iteration) of the k-th operation in execution order.
    let ops: Vec<(usize, &[i64])> = order
        .iter()
        .map(|&o| {
            let (si, off, len) = op_info[o];
            (si, &iterations[off..off + len])
        })
        .collect();
    drop(order);

    let n_arrays = program.arrays.len();
    // Cells and locations as fixed-size keys (arrays have at most 4
    // dimensions; unused entries are i64::MIN), so that the hot loop does
    // not allocate.
    #[derive(Clone, Copy, PartialEq, Eq)]
    struct Key(usize, [i64; 4]);
    impl std::hash::Hash for Key {
        fn hash<H: Hasher>(&self, state: &mut H) {
            state.write_usize(self.0);
            for x in self.1 {
                state.write_i64(x);
            }
        }
    }
    fn key(array: usize, v: &[i64]) -> Key {
        let mut k = [i64::MIN; 4];
        for (slot, x) in k.iter_mut().zip(v) {
            *slot = *x;
        }
        Key(array, k)
    }
    let mut original: FastMap<Key, Value> = FastMap::default();
    let mut mapped: FastMap<Key, Value> = FastMap::default();
    let mut initial_ids: FastMap<Key, usize> = FastMap::default();
    // Per written value (by operation): (array, birth, death); per initial
    // value (by id): (array, death).
    let mut written: Vec<Option<(usize, usize, usize)>> = vec![None; ops.len()];
    let mut initial: Vec<(usize, usize)> = Vec::new();
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
                program.statements[ops[op].0].name.clone(),
                ops[op].1.to_vec(),
            )),
        }
    };
    let mut cell: Vec<i64> = Vec::new();
    let mut location: Vec<i64> = Vec::new();
    let eval_into = |rows: &[Vec<i64>], full: &[i64], out: &mut Vec<i64>| -> PolyResult<()> {
        out.clear();
        for r in rows {
            out.push(eval_row(r, full)?);
        }
        Ok(())
    };
    let map_into = |array: usize, cell: &[i64], out: &mut Vec<i64>| -> PolyResult<()> {
        match &program.arrays[array].mapping {
            None => {
                out.clear();
                out.extend_from_slice(cell);
            }
            Some(_) => *out = apply_mapping(&program.arrays[array].mapping, cell, params)?,
        }
        Ok(())
    };
    for (op_index, (si, it)) in ops.iter().enumerate() {
        let stmt = &program.statements[*si];
        full.clear();
        full.extend_from_slice(params);
        full.extend_from_slice(it);
        let read_time = 2 * op_index + 1;
        for access in &stmt.reads {
            eval_into(&access.subscripts, &full, &mut cell)?;
            map_into(access.array, &cell, &mut location)?;
            let cell_key = key(access.array, &cell);
            let expected = match original.get(&cell_key) {
                Some(v) => *v,
                None => {
                    let next = initial_ids.len();
                    let id = *initial_ids.entry(cell_key).or_insert(next);
                    if id == initial.len() {
                        initial.push((access.array, read_time));
                    }
                    Value::Initial(id)
                }
            };
            let found = mapped.get(&key(access.array, &location)).copied();
            report.reads_checked += 1;
            let ok = match (expected, found) {
                (Value::Initial(_), None) => true,
                (e, Some(f)) => e == f,
                (Value::Written(_), None) => false,
            };
            if !ok && report.first_mismatch.is_none() {
                report.first_mismatch = Some(Mismatch {
                    statement: stmt.name.clone(),
                    iteration: it.to_vec(),
                    array: program.arrays[access.array].name.clone(),
                    cell: cell.clone(),
                    location: location.clone(),
                    expected_writer: describe(expected),
                    found_writer: found.and_then(describe),
                });
            }
            match expected {
                Value::Initial(id) => {
                    report.initial_reads[access.array] += 1;
                    initial[id].1 = initial[id].1.max(read_time);
                }
                Value::Written(op) => {
                    if let Some(l) = written[op].as_mut() {
                        l.2 = l.2.max(read_time);
                    }
                }
            }
        }
        let w = &stmt.write;
        eval_into(&w.subscripts, &full, &mut cell)?;
        map_into(w.array, &cell, &mut location)?;
        let value = Value::Written(op_index);
        original.insert(key(w.array, &cell), value);
        mapped.insert(key(w.array, &location), value);
        let birth = 2 * op_index + 2;
        written[op_index] = Some((w.array, birth, birth));
    }
    let lifetimes: Vec<(usize, usize, usize)> = written
        .into_iter()
        .flatten()
        .chain(initial.into_iter().map(|(array, death)| (array, 0, death)))
        .collect();
    // Sweep the lifetimes: +1 at birth, -1 after death.
    let mut events: Vec<(usize, i64, usize)> = Vec::with_capacity(2 * lifetimes.len());
    for (array, birth, death) in &lifetimes {
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
