//! The trace interpreter: value ids through the original and the mapped
//! memory, and the max-live lower bound.

use std::hash::Hasher;

use crate::util::hash::FastMap;

use crate::poly::error::PolyResult;
use crate::poly::{BasicSet, Budget, PolyError};

use super::storage::{AccessLocation, Level, Location, MergedStorage, Slot, Storage, TraceBuffer};
use crate::poly::enumerate::for_each_integer_point;

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
    /// A pure copy (`W = R;`, one read) that the transformed program no
    /// longer executes: in the original it writes the value it reads; in
    /// the transformed program nothing happens (later reads must find the
    /// value where the copy would have put it).
    pub removed: bool,
}

impl TraceStatement {
    /// Every access with its array: the reads in order, then the write.
    pub(crate) fn slots(&self) -> impl Iterator<Item = (Slot, usize)> + '_ {
        self.reads
            .iter()
            .enumerate()
            .map(|(k, r)| (Slot::Read(k), r.array))
            .chain([(Slot::Write, self.write.array)])
    }
}

/// An array of the trace and where the transformed program keeps it.
#[derive(Clone, Debug)]
pub struct TraceArray {
    pub name: String,
    pub storage: Storage,
}

#[derive(Clone, Debug)]
pub struct TraceProgram {
    pub arrays: Vec<TraceArray>,
    pub statements: Vec<TraceStatement>,
    /// The merged buffers of the transformed program (see
    /// [`Storage::Merged`]).
    pub buffers: Vec<TraceBuffer>,
}

/// What went wrong at a [`Mismatch`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MismatchKind {
    /// The read sees another value than in the original program.
    WrongValue,
    /// The access's location lies outside its merged buffer.
    OutOfBounds,
}

/// The first access of the transformed program that goes wrong: a read
/// that sees a different value, or an access outside its buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub kind: MismatchKind,
    pub statement: String,
    /// Which read of the statement (`None`: its write).
    pub read: Option<usize>,
    pub iteration: Vec<i64>,
    pub array: String,
    pub cell: Vec<i64>,
    /// The merged buffer of `location` (`None`: the array's own storage).
    pub buffer: Option<String>,
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
    /// How many reads and writes ran on merged buffers, each at the
    /// location its access's [`Location`] gives.
    pub merged_accesses: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Value {
    /// The value of a cell before the SCoP: identified by array and cell
    /// (the cell index is kept in `initial_cells`).
    Initial(usize),
    /// Written by operation number `op`.
    Written(usize),
}

/// Where the trace keeps the value code of every cell (or location) of one
/// array: a dense table over a box that contains every point the accesses
/// can reach when that box is small enough, a hash map otherwise and for any
/// point outside the box. Codes: 0 nothing, `k > 0` the value written by
/// operation `k - 1`, `k < 0` the initial value number `-k - 1`.
struct Store {
    lo: [i64; 4],
    extent: [i64; 4],
    dense: Vec<i64>,
    sparse: FastMap<CellKey, i64>,
}

/// A point of at most four coordinates (unused ones are `i64::MIN`), hashed
/// coordinate by coordinate.
#[derive(Clone, Copy, PartialEq, Eq)]
struct CellKey([i64; 4]);

impl std::hash::Hash for CellKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        for x in self.0 {
            state.write_i64(x);
        }
    }
}

impl Store {
    /// A store for points in `bounds` (per coordinate, inclusive), dense
    /// when the box has at most `limit` points.
    /// `limit` is decreased by the size of the table.
    fn new(bounds: &[(i64, i64)], limit: &mut i128) -> Store {
        let mut lo = [0i64; 4];
        let mut extent = [1i64; 4];
        let mut volume: i128 = 1;
        for (d, (l, h)) in bounds.iter().enumerate() {
            let e = (*h as i128 - *l as i128 + 1).max(0);
            volume = volume.saturating_mul(e);
            lo[d] = *l;
            extent[d] = i64::try_from(e).unwrap_or(i64::MAX);
        }
        let dense = if !bounds.is_empty() && volume > 0 && volume <= *limit {
            *limit -= volume;
            vec![0i64; volume as usize]
        } else {
            Vec::new()
        };
        Store {
            lo,
            extent,
            dense,
            sparse: FastMap::default(),
        }
    }

    fn index(&self, p: &[i64]) -> Option<usize> {
        if self.dense.is_empty() {
            return None;
        }
        let mut i: usize = 0;
        for (d, x) in p.iter().enumerate() {
            let off = x.checked_sub(self.lo[d])?;
            if off < 0 || off >= self.extent[d] {
                return None;
            }
            i = i * self.extent[d] as usize + off as usize;
        }
        Some(i)
    }

    fn key(p: &[i64]) -> CellKey {
        let mut k = [i64::MIN; 4];
        for (slot, x) in k.iter_mut().zip(p) {
            *slot = *x;
        }
        CellKey(k)
    }

    fn get(&self, p: &[i64]) -> i64 {
        match self.index(p) {
            Some(i) => self.dense[i],
            None => self.sparse.get(&Store::key(p)).copied().unwrap_or(0),
        }
    }

    fn set(&mut self, p: &[i64], code: i64) {
        match self.index(p) {
            Some(i) => self.dense[i] = code,
            None => {
                self.sparse.insert(Store::key(p), code);
            }
        }
    }
}

/// A row over `[params | iterators | constant]` with the parameters folded
/// into the constant and only the non-zero iterator terms kept: the trace
/// evaluates millions of them.
struct CompiledRow {
    constant: i64,
    terms: Vec<(usize, i64)>,
}

impl CompiledRow {
    fn new(row: &[i64], params: &[i64]) -> PolyResult<CompiledRow> {
        use crate::poly::error::{add, mul};
        let n_param = params.len();
        let mut constant = row[row.len() - 1];
        for (a, v) in row.iter().zip(params) {
            constant = add(constant, mul(*a, *v)?)?;
        }
        let terms = row[n_param..row.len() - 1]
            .iter()
            .enumerate()
            .filter(|(_, a)| **a != 0)
            .map(|(k, a)| (k, *a))
            .collect();
        Ok(CompiledRow { constant, terms })
    }

    #[inline]
    fn eval(&self, it: &[i64]) -> PolyResult<i64> {
        use crate::poly::error::{add, mul};
        let mut acc = self.constant;
        for (k, a) in &self.terms {
            acc = add(acc, mul(*a, it[*k])?)?;
        }
        Ok(acc)
    }
}

fn compile(rows: &[Vec<i64>], params: &[i64]) -> PolyResult<Vec<CompiledRow>> {
    rows.iter().map(|r| CompiledRow::new(r, params)).collect()
}

/// A [`Location`] with its rows compiled for the trace's parameter values.
enum CompiledLocation {
    At {
        buffer: usize,
        /// Per dimension: the row and, for `row % m`, the modulus.
        levels: Vec<(CompiledRow, Option<i64>)>,
    },
    Choose(Vec<(Vec<CompiledPiece>, CompiledLocation)>),
}

/// A condition piece: every equality is zero and every inequality
/// non-negative.
struct CompiledPiece {
    eqs: Vec<CompiledRow>,
    ineqs: Vec<CompiledRow>,
}

fn solver(what: String) -> PolyError {
    PolyError::Solver(what)
}

impl CompiledLocation {
    /// Compiles `location` of an access of a statement with `n_iter`
    /// iterators; checks the rows' widths and the buffers' ranks.
    fn new(
        location: &Location,
        params: &[i64],
        n_iter: usize,
        buffers: &[TraceBuffer],
    ) -> PolyResult<CompiledLocation> {
        let width = params.len() + n_iter + 1;
        let row = |r: &Vec<i64>| {
            if r.len() != width {
                return Err(solver("a merged location row of the wrong width".into()));
            }
            CompiledRow::new(r, params)
        };
        match location {
            Location::At { buffer, levels } => {
                let b = buffers
                    .get(*buffer)
                    .ok_or_else(|| solver(format!("no merged buffer {buffer}")))?;
                if levels.len() != b.extents.len() {
                    return Err(solver(format!(
                        "{}: {} subscripts for {} dimensions",
                        b.name,
                        levels.len(),
                        b.extents.len()
                    )));
                }
                let levels = levels
                    .iter()
                    .map(|l| match l {
                        Level::Row(r) => Ok((row(r)?, None)),
                        Level::Rem { row: r, modulus } => match modulus.eval(params)? {
                            m if m > 0 => Ok((row(r)?, Some(m))),
                            _ => Err(solver(format!(
                                "{}: a subscript modulo a non-positive number",
                                b.name
                            ))),
                        },
                    })
                    .collect::<PolyResult<_>>()?;
                Ok(CompiledLocation::At {
                    buffer: *buffer,
                    levels,
                })
            }
            Location::Choose(branches) => {
                if branches.is_empty() {
                    return Err(solver("a choice without branches".into()));
                }
                let mut out = Vec::with_capacity(branches.len());
                for (condition, then) in branches {
                    let mut pieces = Vec::with_capacity(condition.len());
                    for b in condition {
                        if b.n_exist != 0 || b.space.n_var() + 1 != width {
                            return Err(solver(
                                "a merged location's condition with existential variables or of the wrong width"
                                    .into(),
                            ));
                        }
                        pieces.push(CompiledPiece {
                            eqs: b.eqs.iter().map(row).collect::<PolyResult<_>>()?,
                            ineqs: b.ineqs.iter().map(row).collect::<PolyResult<_>>()?,
                        });
                    }
                    out.push((
                        pieces,
                        CompiledLocation::new(then, params, n_iter, buffers)?,
                    ));
                }
                Ok(CompiledLocation::Choose(out))
            }
        }
    }

    /// The buffer and location at iteration `it`, as C computes them: the
    /// location is written into `out`.
    fn eval(&self, it: &[i64], out: &mut [i64; 4]) -> PolyResult<usize> {
        match self {
            CompiledLocation::At { buffer, levels } => {
                for (slot, (row, modulus)) in out.iter_mut().zip(levels) {
                    let v = row.eval(it)?;
                    // Rust's `%` truncates like C's.
                    *slot = modulus.map_or(v, |m| v % m);
                }
                Ok(*buffer)
            }
            CompiledLocation::Choose(branches) => {
                let Some(((_, otherwise), first)) = branches.split_last() else {
                    return Err(solver("a choice without branches".into()));
                };
                for (pieces, then) in first {
                    if holds(pieces, it)? {
                        return then.eval(it, out);
                    }
                }
                otherwise.eval(it, out)
            }
        }
    }
}

/// Whether `it` lies in one of `pieces`.
fn holds(pieces: &[CompiledPiece], it: &[i64]) -> PolyResult<bool> {
    'pieces: for p in pieces {
        for r in &p.eqs {
            if r.eval(it)? != 0 {
                continue 'pieces;
            }
        }
        for r in &p.ineqs {
            if r.eval(it)? < 0 {
                continue 'pieces;
            }
        }
        return Ok(true);
    }
    Ok(false)
}

/// The range of `row` (over `[params | iterators | constant]`) when the
/// iterators range over the box `iters` and the parameters are `params`.
fn row_range(row: &[i64], params: &[i64], iters: &[(i64, i64)]) -> (i128, i128) {
    let n_param = params.len();
    let constant = row[row.len() - 1] as i128;
    let (mut lo, mut hi) = (constant, constant);
    for (q, v) in params.iter().enumerate() {
        lo += row[q] as i128 * *v as i128;
        hi += row[q] as i128 * *v as i128;
    }
    for (k, (a, b)) in iters.iter().enumerate() {
        let c = row[n_param + k] as i128;
        let (x, y) = (c * *a as i128, c * *b as i128);
        lo += x.min(y);
        hi += x.max(y);
    }
    (lo, hi)
}

fn clamp_i64(v: i128) -> i64 {
    v.clamp(i64::MIN as i128 + 1, i64::MAX as i128) as i64
}

/// The live values over the run of a trace, in `buckets` equal spans of
/// its time (two steps per operation: its reads, then its write): per
/// span, the most values of each array and of all arrays live at once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveProfile {
    /// The number of time steps of the run.
    pub steps: u64,
    /// Per span, per array, the most live values.
    pub arrays: Vec<Vec<usize>>,
    /// Per span, the most live values of the counted arrays together.
    pub total: Vec<usize>,
    /// The most live values of the counted arrays at once over the run.
    pub max_total: usize,
}

/// Runs `program` for the parameter values `params`.
pub fn run_trace(
    program: &TraceProgram,
    params: &[i64],
    budget: &mut Budget,
) -> PolyResult<TraceReport> {
    run_trace_profiled(program, params, budget, 0, &[]).map(|(r, _)| r)
}

/// [`run_trace`], with the live values in `buckets` spans of the run
/// (none when `buckets` is 0); the profile's totals count the arrays of
/// `counted` (every array when it is shorter).
pub fn run_trace_profiled(
    program: &TraceProgram,
    params: &[i64],
    budget: &mut Budget,
    buckets: usize,
    counted: &[bool],
) -> PolyResult<(TraceReport, LiveProfile)> {
    check_ranks(program)?;
    let compiled_locations = compile_locations(program, params)?;
    let operations = enumerate_operations(program, params, budget)?;
    // ops[k] = (statement, iteration) of the k-th operation in execution order.
    let ops: Vec<(usize, &[i64])> = operations.in_order().collect();
    let memory = Memory::new(program, params, ops.len(), &operations.boxes)?;
    let (mut report, lifetimes) = replay(program, params, &ops, &compiled_locations, memory)?;
    let profile = sweep_lifetimes(
        &lifetimes,
        &mut report,
        program.arrays.len(),
        buckets,
        counted,
    )?;
    Ok((report, profile))
}

/// The trace handles arrays, mappings and buffers of at most four
/// dimensions.
fn check_ranks(program: &TraceProgram) -> PolyResult<()> {
    for stmt in &program.statements {
        let ranks = stmt
            .reads
            .iter()
            .chain([&stmt.write])
            .map(|a| a.subscripts.len());
        if ranks.clone().any(|r| r > 4) {
            return Err(crate::poly::PolyError::Solver(
                "the trace handles arrays of at most four dimensions".into(),
            ));
        }
    }
    for array in &program.arrays {
        if let Storage::Modular(m) = &array.storage
            && m.dims.len() > 4
        {
            return Err(crate::poly::PolyError::Solver(
                "the trace handles mappings of at most four dimensions".into(),
            ));
        }
    }
    if program.buffers.iter().any(|b| b.extents.len() > 4) {
        return Err(solver(
            "the trace handles buffers of at most four dimensions".into(),
        ));
    }
    Ok(())
}

/// Per statement, per access (reads, then the write): the compiled
/// location of an access of a merged array (a removed copy has none: the
/// transformed program does not execute it).
fn compile_locations(
    program: &TraceProgram,
    params: &[i64],
) -> PolyResult<Vec<Vec<Option<CompiledLocation>>>> {
    let mut compiled_locations: Vec<Vec<Option<CompiledLocation>>> =
        Vec::with_capacity(program.statements.len());
    for (si, stmt) in program.statements.iter().enumerate() {
        let n_iter = stmt
            .schedule
            .first()
            .map_or(0, |r| r.len().saturating_sub(1 + params.len()));
        let slots = stmt.slots();
        let mut per_access = Vec::new();
        for (slot, array) in slots {
            let merged = match &program.arrays.get(array).map(|a| &a.storage) {
                Some(Storage::Merged(list)) => list,
                _ => {
                    per_access.push(None);
                    continue;
                }
            };
            match merged.iter().find(|l| l.statement == si && l.slot == slot) {
                Some(l) => per_access.push(Some(CompiledLocation::new(
                    &l.location,
                    params,
                    n_iter,
                    &program.buffers,
                )?)),
                None if stmt.removed => per_access.push(None),
                None => {
                    return Err(solver(format!(
                        "{}: an access of merged `{}` without a location",
                        stmt.name, program.arrays[array].name
                    )));
                }
            }
        }
        compiled_locations.push(per_access);
    }
    Ok(compiled_locations)
}

/// Every operation of a trace, in execution order: (statement, offset,
/// length) of its iteration in `iterations`; and per statement the box of
/// its iterations.
struct Operations {
    iterations: Vec<i64>,
    info: Vec<(usize, usize, usize)>,
    boxes: Vec<Option<Vec<(i64, i64)>>>,
}

impl Operations {
    /// (statement, iteration) of every operation in execution order.
    fn in_order(&self) -> impl Iterator<Item = (usize, &[i64])> {
        self.info
            .iter()
            .map(|&(si, off, len)| (si, &self.iterations[off..off + len]))
    }
}

/// Enumerates every operation of `program` for `params` and sorts them in
/// schedule order; the same operation reached through several domain
/// pieces is one.
fn enumerate_operations(
    program: &TraceProgram,
    params: &[i64],
    budget: &mut Budget,
) -> PolyResult<Operations> {
    // Every operation: its schedule vector and iteration vector, stored
    // flat (one allocation for all operations, not two per operation), and
    // per statement the box of its iterations.
    let depth = program
        .statements
        .iter()
        .map(|s| s.schedule.len())
        .max()
        .unwrap_or(0);
    let mut schedules: Vec<i64> = Vec::new();
    let mut iterations: Vec<i64> = Vec::new();
    // (statement, offset, length) of each operation's iteration.
    let mut op_info: Vec<(usize, usize, usize)> = Vec::new();
    let mut boxes: Vec<Option<Vec<(i64, i64)>>> = vec![None; program.statements.len()];
    // Per statement: compiled schedule rows.
    let compiled_schedules = program
        .statements
        .iter()
        .map(|stmt| compile(&stmt.schedule, params))
        .collect::<PolyResult<Vec<_>>>()?;
    for (si, stmt) in program.statements.iter().enumerate() {
        let schedule_rows = &compiled_schedules[si];
        let mut failed = None;
        for piece in &stmt.domain {
            let mut visit = |it: &[i64]| {
                if failed.is_some() {
                    return;
                }
                for r in schedule_rows {
                    match r.eval(it) {
                        Ok(v) => schedules.push(v),
                        Err(e) => {
                            failed = Some(e);
                            return;
                        }
                    }
                }
                schedules.resize(schedules.len() + depth - stmt.schedule.len(), 0);
                op_info.push((si, iterations.len(), it.len()));
                iterations.extend_from_slice(it);
                let b = boxes[si].get_or_insert_with(|| it.iter().map(|x| (*x, *x)).collect());
                for (slot, x) in b.iter_mut().zip(it) {
                    slot.0 = slot.0.min(*x);
                    slot.1 = slot.1.max(*x);
                }
            };
            for_each_integer_point(piece, params, budget, &mut visit)?;
            if let Some(e) = failed.take() {
                return Err(e);
            }
        }
    }
    let iteration = |k: usize| {
        let (_, off, len) = op_info[k];
        &iterations[off..off + len]
    };
    let mut order: Vec<usize> = (0..op_info.len()).collect();
    order.sort_by(|a, b| {
        schedules[a * depth..(a + 1) * depth]
            .cmp(&schedules[b * depth..(b + 1) * depth])
            .then(op_info[*a].0.cmp(&op_info[*b].0))
            .then_with(|| iteration(*a).cmp(iteration(*b)))
    });
    // The same operation reached through several domain pieces (or several
    // existential values) is one operation: equal neighbours after sorting.
    order.dedup_by(|a, b| op_info[*a].0 == op_info[*b].0 && iteration(*a) == iteration(*b));
    // The operations in execution order.
    let info = order.iter().map(|&o| op_info[o]).collect();
    Ok(Operations {
        iterations,
        info,
        boxes,
    })
}

/// The original and the transformed program's memories of a trace.
struct Memory {
    /// One store per array.
    original: Vec<Store>,
    /// The transformed program's memory: one store per array (unused for a
    /// merged array), then one per merged buffer.
    mapped: Vec<Store>,
    /// Per array with a modular mapping, its moduli at the parameters.
    moduli: Vec<Vec<i64>>,
    /// Per merged buffer, its extents at the parameters (at least 1).
    buffer_extents: Vec<Vec<i64>>,
}

impl Memory {
    /// The stores of `program` for `params`, sized from the iteration
    /// `boxes` of its statements (`n_ops` operations).
    fn new(
        program: &TraceProgram,
        params: &[i64],
        n_ops: usize,
        boxes: &[Option<Vec<(i64, i64)>>],
    ) -> PolyResult<Memory> {
        let n_arrays = program.arrays.len();
        // Boxes of the cells and of the locations of every array, from the
        // iteration boxes (a superset of what the accesses reach).
        let mut cell_box: Vec<Option<Vec<(i128, i128)>>> = vec![None; n_arrays];
        for (si, stmt) in program.statements.iter().enumerate() {
            let Some(iters) = &boxes[si] else { continue };
            for access in stmt.reads.iter().chain([&stmt.write]) {
                let ranges: Vec<(i128, i128)> = access
                    .subscripts
                    .iter()
                    .map(|r| row_range(r, params, iters))
                    .collect();
                match &mut cell_box[access.array] {
                    slot @ None => *slot = Some(ranges),
                    Some(b) => {
                        for (x, y) in b.iter_mut().zip(ranges) {
                            x.0 = x.0.min(y.0);
                            x.1 = x.1.max(y.1);
                        }
                    }
                }
            }
        }
        // Dense tables of at most 16 entries per operation and 2^24 entries in
        // all (tables are taken in array order while the allowance lasts): the
        // boxes come from interval arithmetic and can be loose.
        let mut limit: i128 = (16 * n_ops as i128 + 65_536).min(1 << 24);
        let to_i64 = |b: &[(i128, i128)]| -> Vec<(i64, i64)> {
            b.iter()
                .map(|(l, h)| (clamp_i64(*l), clamp_i64(*h)))
                .collect()
        };
        let mut original: Vec<Store> = Vec::with_capacity(n_arrays);
        // The transformed program's memory: one store per array (unused for a
        // merged array), then one per merged buffer.
        let mut mapped: Vec<Store> = Vec::with_capacity(n_arrays + program.buffers.len());
        let mut moduli: Vec<Vec<i64>> = Vec::with_capacity(n_arrays);
        for (a, array) in program.arrays.iter().enumerate() {
            let cells = cell_box[a].clone().unwrap_or_default();
            original.push(Store::new(&to_i64(&cells), &mut limit));
            match &array.storage {
                Storage::Original => {
                    moduli.push(Vec::new());
                    mapped.push(Store::new(&to_i64(&cells), &mut limit));
                }
                Storage::Merged(_) => {
                    moduli.push(Vec::new());
                    mapped.push(Store::new(&[], &mut limit));
                }
                Storage::Packed {
                    p,
                    q,
                    triangle,
                    extent: e,
                } => {
                    let e = e.eval(params)?;
                    let last = i64::try_from(triangle.cells(e) - 1).unwrap_or(i64::MAX);
                    let mut bounds = Vec::new();
                    for (k, b) in to_i64(&cells).into_iter().enumerate() {
                        if k == *p {
                            bounds.push((0, last.max(0)));
                        } else if k != *q {
                            bounds.push(b);
                        }
                    }
                    moduli.push(Vec::new());
                    mapped.push(Store::new(&bounds, &mut limit));
                }
                Storage::Modular(m) => {
                    let mut bounds = Vec::new();
                    let mut bs = Vec::new();
                    for d in &m.dims {
                        let b = d.modulus.eval(params)?.max(1);
                        bs.push(b);
                        let (mut lo, mut hi) = (0i128, 0i128);
                        for (c, (l, h)) in d.coeffs.iter().zip(&cells) {
                            let (x, y) = (*c as i128 * l, *c as i128 * h);
                            lo += x.min(y);
                            hi += x.max(y);
                        }
                        if cells.is_empty()
                            || d.is_divided()
                            || d.is_shifted()
                            || lo < 0
                            || hi >= b as i128
                        {
                            bounds.push((0, b - 1));
                        } else {
                            bounds.push((lo as i64, hi as i64));
                        }
                    }
                    moduli.push(bs);
                    mapped.push(Store::new(&bounds, &mut limit));
                }
            }
        }
        let mut buffer_extents: Vec<Vec<i64>> = program
            .buffers
            .iter()
            .map(|b| b.extents_at(params))
            .collect::<PolyResult<_>>()?;
        for extents in buffer_extents.iter_mut() {
            // A buffer's declared extent is at least 1 (guarded in the text
            // where the formula can be smaller, for sizes where no statement
            // runs).
            for e in extents.iter_mut() {
                *e = (*e).max(1);
            }
            let bounds: Vec<(i64, i64)> = extents.iter().map(|e| (0, e - 1)).collect();
            mapped.push(Store::new(&bounds, &mut limit));
        }
        Ok(Memory {
            original,
            mapped,
            moduli,
            buffer_extents,
        })
    }
}

/// What places an access in the transformed program's memory: the
/// program, the parameters, the moduli of the modular mappings and the
/// extents of the merged buffers.
struct Placer<'p> {
    program: &'p TraceProgram,
    params: &'p [i64],
    moduli: &'p [Vec<i64>],
    buffer_extents: &'p [Vec<i64>],
}

impl Placer<'_> {
    /// The location in the transformed program of `access` of `cell` (of
    /// rank `rank`) at iteration `it`, into `location`: returns the store,
    /// the rank of the location and whether it lies in its buffer.
    fn place(
        &self,
        access: &TraceAccess,
        merged: Option<&CompiledLocation>,
        cell: &[i64; 4],
        rank: usize,
        it: &[i64],
        location: &mut [i64; 4],
    ) -> PolyResult<(usize, usize, bool)> {
        if let Some(l) = merged {
            let b = l.eval(it, location)?;
            let extents = &self.buffer_extents[b];
            let inside = extents
                .iter()
                .zip(location.iter())
                .all(|(e, x)| 0 <= *x && x < e);
            return Ok((self.program.arrays.len() + b, extents.len(), inside));
        }
        match &self.program.arrays[access.array].storage {
            Storage::Modular(m) => {
                for (k, d) in m.dims.iter().enumerate() {
                    let mut e: i64 = 0;
                    for (c, x) in d.coeffs.iter().zip(&cell[..rank]) {
                        e = crate::poly::error::add(e, crate::poly::error::mul(*c, *x)?)?;
                    }
                    let e = d.divide(e, self.params).ok_or_else(|| {
                        solver(format!(
                            "an access of `{}` leaves the stride lattice of its mapping",
                            self.program.arrays[access.array].name
                        ))
                    })?;
                    location[k] = e.rem_euclid(self.moduli[access.array][k]);
                }
                Ok((access.array, m.dims.len(), true))
            }
            Storage::Original => {
                location[..rank].copy_from_slice(&cell[..rank]);
                Ok((access.array, rank, true))
            }
            Storage::Packed {
                p,
                q,
                triangle,
                extent,
            } => {
                let e = extent.eval(self.params)?;
                let (a, b) = (cell[*p], cell[*q]);
                if !triangle.contains(a, b, e) {
                    return Err(solver(format!(
                        "an access of `{}` leaves its packed triangle",
                        self.program.arrays[access.array].name
                    )));
                }
                let mut n = 0;
                for (k, c) in cell[..rank].iter().enumerate() {
                    if k == *q {
                        continue;
                    }
                    location[n] = if k == *p { triangle.index(a, b, e) } else { *c };
                    n += 1;
                }
                Ok((access.array, n, true))
            }
            Storage::Merged(_) => Err(solver(format!(
                "an access of merged `{}` without a location",
                self.program.arrays[access.array].name
            ))),
        }
    }
}

/// `(array, birth, death)` of a value of a trace.
type ValueLifetime = (usize, usize, usize);

/// Runs the operations `ops` in order on the original and the transformed
/// program's `memory`: checks every read of the transformed program
/// against the value the original reads, and returns the report with the
/// lifetime `(array, birth, death)` of every value.
fn replay(
    program: &TraceProgram,
    params: &[i64],
    ops: &[(usize, &[i64])],
    compiled_locations: &[Vec<Option<CompiledLocation>>],
    memory: Memory,
) -> PolyResult<(TraceReport, Vec<ValueLifetime>)> {
    let Memory {
        mut original,
        mut mapped,
        moduli,
        buffer_extents,
    } = memory;
    let n_arrays = program.arrays.len();
    // Per statement, per access (reads, then the write): compiled
    // subscript rows.
    let compiled_accesses: Vec<Vec<Vec<CompiledRow>>> = program
        .statements
        .iter()
        .map(|stmt| {
            stmt.reads
                .iter()
                .chain([&stmt.write])
                .map(|a| compile(&a.subscripts, params))
                .collect::<PolyResult<_>>()
        })
        .collect::<PolyResult<_>>()?;
    let placer = Placer {
        program,
        params,
        moduli: &moduli,
        buffer_extents: &buffer_extents,
    };
    // Per written value (by operation): (array, birth, death); per initial
    // value (by id): (array, death).
    let mut written: Vec<Option<(usize, usize, usize)>> = vec![None; ops.len()];
    // Per operation, the value its write puts in memory: its own, or for a
    // removed copy the value it copies (values and lifetimes stay those of
    // the original program; the checks compare contents).
    let mut content: Vec<Value> = Vec::with_capacity(ops.len());
    let mut initial: Vec<(usize, usize)> = Vec::new();
    let mut report = TraceReport {
        operations: ops.len(),
        reads_checked: 0,
        first_mismatch: None,
        max_live: vec![0; n_arrays],
        max_live_total: 0,
        initial_reads: vec![0; n_arrays],
        merged_accesses: 0,
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
    let decode = |code: i64| -> Option<Value> {
        match code {
            0 => None,
            k if k > 0 => Some(Value::Written((k - 1) as usize)),
            k => Some(Value::Initial((-k - 1) as usize)),
        }
    };
    let mut cell = [0i64; 4];
    let mut location = [0i64; 4];
    // Evaluates the compiled subscripts `rows` at iteration `it` into
    // `cell`; returns the rank.
    let cell_of = |rows: &[CompiledRow], it: &[i64], cell: &mut [i64; 4]| -> PolyResult<usize> {
        for (slot, r) in cell.iter_mut().zip(rows) {
            *slot = r.eval(it)?;
        }
        Ok(rows.len())
    };
    for (op_index, (si, it)) in ops.iter().enumerate() {
        let stmt = &program.statements[*si];
        let rows = &compiled_accesses[*si];
        let locations = &compiled_locations[*si];
        let read_time = 2 * op_index + 1;
        // The value the first read sees (what a removed copy copies).
        let mut copied = None;
        for (ri, access) in stmt.reads.iter().enumerate() {
            let rank = cell_of(&rows[ri], it, &mut cell)?;
            let a = access.array;
            let expected = match decode(original[a].get(&cell[..rank])) {
                Some(v) => v,
                None => {
                    let id = initial.len();
                    initial.push((a, read_time));
                    original[a].set(&cell[..rank], -(id as i64) - 1);
                    Value::Initial(id)
                }
            };
            // What the cell holds: for a removed copy's value, what it copied.
            let want = match expected {
                Value::Written(op) => content[op],
                v => v,
            };
            if ri == 0 {
                copied = Some(want);
            }
            match expected {
                Value::Initial(id) => {
                    report.initial_reads[a] += 1;
                    initial[id].1 = initial[id].1.max(read_time);
                }
                Value::Written(op) => {
                    if let Some(l) = written[op].as_mut() {
                        l.2 = l.2.max(read_time);
                    }
                }
            }
            if stmt.removed {
                // Not executed by the transformed program.
                continue;
            }
            let (store, lrank, inside) = placer.place(
                access,
                locations[ri].as_ref(),
                &cell,
                rank,
                it,
                &mut location,
            )?;
            report.reads_checked += 1;
            report.merged_accesses += usize::from(store >= n_arrays);
            let found = match decode(mapped[store].get(&location[..lrank])) {
                Some(Value::Written(op)) if inside => Some(op),
                _ => None,
            };
            let ok = inside
                && match (want, found) {
                    // A merged buffer does not hold the array's initial
                    // values.
                    (Value::Initial(_), None) => store < n_arrays,
                    (Value::Written(w), Some(f)) => w == f,
                    _ => false,
                };
            if !ok && report.first_mismatch.is_none() {
                report.first_mismatch = Some(Mismatch {
                    kind: if inside {
                        MismatchKind::WrongValue
                    } else {
                        MismatchKind::OutOfBounds
                    },
                    statement: stmt.name.clone(),
                    read: Some(ri),
                    iteration: it.to_vec(),
                    array: program.arrays[a].name.clone(),
                    cell: cell[..rank].to_vec(),
                    buffer: (store >= n_arrays)
                        .then(|| program.buffers[store - n_arrays].name.clone()),
                    location: location[..lrank].to_vec(),
                    expected_writer: describe(want),
                    found_writer: found.and_then(|op| describe(Value::Written(op))),
                });
            }
        }
        let w = &stmt.write;
        let wi = stmt.reads.len();
        let rank = cell_of(&rows[wi], it, &mut cell)?;
        let code = op_index as i64 + 1;
        original[w.array].set(&cell[..rank], code);
        match copied {
            Some(v) if stmt.removed => content.push(v),
            _ => {
                content.push(Value::Written(op_index));
                let (store, lrank, inside) =
                    placer.place(w, locations[wi].as_ref(), &cell, rank, it, &mut location)?;
                report.merged_accesses += usize::from(store >= n_arrays);
                if inside {
                    mapped[store].set(&location[..lrank], code);
                } else if report.first_mismatch.is_none() {
                    report.first_mismatch = Some(Mismatch {
                        kind: MismatchKind::OutOfBounds,
                        statement: stmt.name.clone(),
                        read: None,
                        iteration: it.to_vec(),
                        array: program.arrays[w.array].name.clone(),
                        cell: cell[..rank].to_vec(),
                        buffer: Some(program.buffers[store - n_arrays].name.clone()),
                        location: location[..lrank].to_vec(),
                        expected_writer: None,
                        found_writer: None,
                    });
                }
            }
        }
        let birth = 2 * op_index + 2;
        written[op_index] = Some((w.array, birth, birth));
    }
    let lifetimes: Vec<(usize, usize, usize)> = written
        .into_iter()
        .flatten()
        .chain(initial.into_iter().map(|(array, death)| (array, 0, death)))
        .collect();
    Ok((report, lifetimes))
}

/// Sweeps the `lifetimes` of the values of `n_arrays` arrays: the most
/// values live at once (into `report`), and the live profile over
/// `buckets` spans of the run (the totals count the arrays of `counted`).
fn sweep_lifetimes(
    lifetimes: &[ValueLifetime],
    report: &mut TraceReport,
    n_arrays: usize,
    buckets: usize,
    counted: &[bool],
) -> PolyResult<LiveProfile> {
    // Sweep the lifetimes: +1 at birth, -1 after death, ends before starts
    // at the same time. Events are packed into one integer each,
    // (time, start flag, array), so that sorting is a plain integer sort.
    if n_arrays >= 1 << 23 {
        return Err(crate::poly::PolyError::Solver(
            "too many arrays for the trace".into(),
        ));
    }
    let mut events: Vec<u64> = Vec::with_capacity(2 * lifetimes.len());
    for (array, birth, death) in lifetimes {
        events.push(((*birth as u64) << 24) | (1 << 23) | *array as u64);
        events.push((((*death + 1) as u64) << 24) | *array as u64);
    }
    events.sort_unstable();
    let steps = 2 * report.operations as u64 + 3;
    let mut profile = LiveProfile {
        steps,
        arrays: vec![vec![0; n_arrays]; buckets],
        total: vec![0; buckets],
        max_total: 0,
    };
    let counts = |a: usize| counted.len() <= a || counted[a];
    // Span `b` starts at time `ceil(b·steps / buckets)`; its maxima are the
    // counts at its start or at a birth inside it (counts only rise at a
    // birth).
    let span_start =
        |b: usize| (u128::from(steps) * b as u128).div_ceil(buckets.max(1) as u128) as u64;
    let span_of = |time: u64| {
        (((u128::from(time) * buckets as u128) / u128::from(steps)) as usize).min(buckets - 1)
    };
    let mut next_span = 0;
    let mut live = vec![0i64; n_arrays];
    let mut total = 0i64;
    let mut counted_total = 0i64;
    let mut record_starts = |before: u64, live: &[i64], profile: &mut LiveProfile| {
        while next_span < buckets && span_start(next_span) < before {
            let mut all = 0;
            for (a, l) in live.iter().enumerate() {
                let here = (*l).max(0) as usize;
                profile.arrays[next_span][a] = profile.arrays[next_span][a].max(here);
                if counts(a) {
                    all += here;
                }
            }
            profile.total[next_span] = profile.total[next_span].max(all);
            next_span += 1;
        }
    };
    for e in events {
        let array = (e & ((1 << 23) - 1)) as usize;
        let delta = if e & (1 << 23) != 0 { 1 } else { -1 };
        let time = e >> 24;
        if buckets > 0 {
            record_starts(time, &live, &mut profile);
        }
        live[array] += delta;
        total += delta;
        if counts(array) {
            counted_total += delta;
        }
        let (now, all) = (live[array].max(0) as usize, total.max(0) as usize);
        report.max_live[array] = report.max_live[array].max(now);
        report.max_live_total = report.max_live_total.max(all);
        if buckets > 0 && delta > 0 {
            let b = span_of(time);
            let counted_now = counted_total.max(0) as usize;
            profile.arrays[b][array] = profile.arrays[b][array].max(now);
            profile.total[b] = profile.total[b].max(counted_now);
            profile.max_total = profile.max_total.max(counted_now);
        }
    }
    if buckets > 0 {
        record_starts(u64::MAX, &live, &mut profile);
    }
    Ok(profile)
}

/// Merged buffers in a trace.
impl TraceProgram {
    /// Puts the arrays of `storage` into its buffers: their storage
    /// becomes [`Storage::Merged`] with their accesses' locations, the
    /// buffers are added, and the deleted copies are marked. Checks that
    /// every access of a merged array in a statement still executed has
    /// exactly one location and that every deleted statement is a copy
    /// (one read).
    pub fn merge(&mut self, storage: &MergedStorage) -> Result<(), String> {
        let first_buffer = self.buffers.len();
        self.buffers.extend(storage.buffers.iter().cloned());
        for &a in &storage.arrays {
            let array = self
                .arrays
                .get_mut(a)
                .ok_or_else(|| format!("merged array {a} is not in the trace"))?;
            array.storage = Storage::Merged(Vec::new());
        }
        for access in &storage.accesses {
            let stmt = self
                .statements
                .get(access.statement)
                .ok_or_else(|| format!("statement {} is not in the trace", access.statement))?;
            let array = match access.slot {
                Slot::Write => stmt.write.array,
                Slot::Read(k) => {
                    stmt.reads
                        .get(k)
                        .ok_or_else(|| format!("{} has no read {k}", stmt.name))?
                        .array
                }
            };
            let name = stmt.name.clone();
            let mut location = access.location.clone();
            shift_buffers(&mut location, first_buffer);
            match &mut self.arrays[array].storage {
                Storage::Merged(list) => {
                    if list
                        .iter()
                        .any(|l| l.statement == access.statement && l.slot == access.slot)
                    {
                        return Err(format!("{name}: two locations for one access"));
                    }
                    list.push(AccessLocation {
                        location,
                        ..access.clone()
                    });
                }
                _ => {
                    return Err(format!(
                        "{name}: a location for an access of `{}`, which is not merged",
                        self.arrays[array].name
                    ));
                }
            }
        }
        for &s in &storage.removed {
            let stmt = self
                .statements
                .get_mut(s)
                .ok_or_else(|| format!("removed statement {s} is not in the trace"))?;
            if stmt.reads.len() != 1 {
                return Err(format!(
                    "{}: a removed statement that is not a copy",
                    stmt.name
                ));
            }
            stmt.removed = true;
        }
        for (si, stmt) in self.statements.iter().enumerate() {
            if stmt.removed {
                // Not executed by the transformed program.
                continue;
            }
            let slots = stmt.slots();
            for (slot, array) in slots {
                if let Storage::Merged(list) = &self.arrays[array].storage
                    && !list.iter().any(|l| l.statement == si && l.slot == slot)
                {
                    return Err(format!(
                        "{}: an access of merged `{}` without a location",
                        stmt.name, self.arrays[array].name
                    ));
                }
            }
        }
        Ok(())
    }
}

fn shift_buffers(location: &mut Location, by: usize) {
    match location {
        Location::At { buffer, .. } => *buffer += by,
        Location::Choose(branches) => {
            for (_, l) in branches {
                shift_buffers(l, by);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mapping::ModularMapping;
    use crate::mapping::modular::{MappedDim, ParamAffine};
    use crate::poly::{Space, Tuple};

    /// A statement over params `[N]` and one iterator `i`, `lo <= i <= N + hi`,
    /// scheduled at `(phase, i, 0)`.
    fn stmt(
        name: &str,
        lo: i64,
        hi: i64,
        phase: i64,
        reads: Vec<TraceAccess>,
        write: TraceAccess,
    ) -> TraceStatement {
        let space = Space::set(vec!["N".into()], Tuple::new(Some(name), &["i"]));
        let mut d = BasicSet::universe(space);
        d.add_ineq(vec![0, 1, -lo]);
        d.add_ineq(vec![1, -1, hi]);
        TraceStatement {
            name: name.into(),
            domain: vec![d],
            schedule: vec![vec![0, 0, phase], vec![0, 1, 0], vec![0, 0, 0]],
            reads,
            write,
            removed: false,
        }
    }

    /// `array[scale * i + offset]` over `[N | i | 1]`.
    fn at(array: usize, scale: i64, offset: i64) -> TraceAccess {
        TraceAccess {
            array,
            subscripts: vec![vec![0, scale, offset]],
        }
    }

    fn modulo(array: &str, b: i64) -> Option<ModularMapping> {
        Some(ModularMapping {
            array: array.into(),
            params: vec!["N".into()],
            dims: vec![MappedDim::new(vec![1], ParamAffine::constant(1, b))],
        })
    }

    /// S0: A[s*i] = ..., 0 <= i <= N-1; then S1: B[i] = A[s*(i-1)] + C[i],
    /// 1 <= i <= N-1. Every A value but the last is live until S1 reads it.
    fn two_phases(scale: i64, a_mapping: Option<ModularMapping>) -> TraceProgram {
        TraceProgram {
            arrays: vec![
                TraceArray {
                    name: "A".into(),
                    storage: a_mapping.into(),
                },
                TraceArray {
                    name: "B".into(),
                    storage: Storage::Original,
                },
                TraceArray {
                    name: "C".into(),
                    storage: Storage::Original,
                },
            ],
            statements: vec![
                stmt("S0", 0, -1, 0, vec![], at(0, scale, 0)),
                stmt(
                    "S1",
                    1,
                    -1,
                    1,
                    vec![at(0, scale, -scale), at(2, 1, 0)],
                    at(1, 1, 0),
                ),
            ],
            buffers: Vec::new(),
        }
    }

    fn run(p: &TraceProgram) -> TraceReport {
        run_trace(p, &[10], &mut Budget::default()).unwrap()
    }

    #[test]
    fn counts_live_values_and_initial_reads_by_hand() {
        let r = run(&two_phases(1, None));
        assert_eq!(r.operations, 10 + 9);
        assert_eq!(r.reads_checked, 2 * 9);
        assert!(r.first_mismatch.is_none());
        // When S0 writes A[9], A[0..8] still wait for S1: 10 values of A.
        assert_eq!(r.max_live[0], 10);
        // B is written and never read: one value at a time.
        assert_eq!(r.max_live[1], 1);
        // C is only read, each cell once, before anything is written: all
        // nine initial values are live from the start.
        assert_eq!(r.initial_reads, vec![0, 0, 9]);
        assert_eq!(r.max_live[2], 9);
        // At S0's write of A[9]: 10 values of A and 9 initial values of C.
        assert_eq!(r.max_live_total, 19);
    }

    #[test]
    fn finds_the_first_read_of_a_clobbered_value() {
        // A folded onto 9 locations: A[9] overwrites A[0] before S1 reads it.
        let r = run(&two_phases(1, modulo("A", 9)));
        let m = r.first_mismatch.expect("A[0] is clobbered by A[9]");
        assert_eq!(m.statement, "S1");
        assert_eq!(m.iteration, vec![1]);
        assert_eq!(m.array, "A");
        assert_eq!(m.cell, vec![0]);
        assert_eq!(m.location, vec![0]);
        assert_eq!(m.expected_writer, Some(("S0".into(), vec![0])));
        assert_eq!(m.found_writer, Some(("S0".into(), vec![9])));
        // Ten locations are enough.
        assert!(
            run(&two_phases(1, modulo("A", 10)))
                .first_mismatch
                .is_none()
        );
    }

    #[test]
    fn sparse_and_dense_stores_agree() {
        // A[1000003 * i]: the box of the cells is far too large for a dense
        // table, so the hash map is used; every figure must be the same as
        // with A[i] (dense).
        for mapping in [None, Some(9), Some(10)] {
            let dense = run(&two_phases(1, mapping.and_then(|b| modulo("A", b))));
            let sparse_mapping = mapping.map(|b| ModularMapping {
                dims: vec![
                    // 1000003 is prime to 9 and to 10: cells i and i' share a
                    // location exactly when they do under A[i].
                    MappedDim::new(vec![1], ParamAffine::constant(1, b)),
                ],
                ..modulo("A", b).unwrap()
            });
            let sparse = run(&two_phases(1_000_003, sparse_mapping));
            assert_eq!(dense.max_live, sparse.max_live);
            assert_eq!(dense.initial_reads, sparse.initial_reads);
            assert_eq!(
                dense.first_mismatch.is_some(),
                sparse.first_mismatch.is_some(),
                "{mapping:?}"
            );
        }
    }

    #[test]
    fn an_operation_in_two_overlapping_pieces_runs_once() {
        let mut p = two_phases(1, None);
        let extra = p.statements[0].domain[0].clone();
        p.statements[0].domain.push(extra);
        let r = run(&p);
        assert_eq!(r.operations, 19);
        assert_eq!(r.max_live[0], 10);
    }

    #[test]
    fn a_huge_domain_ends_with_the_budget_not_the_memory() {
        // 0 <= i <= N - 1 with N = 10^12: one budget step per point, so a
        // small budget stops the enumeration at once (the no-panic campaign
        // found a mutated kernel whose traces filled gigabytes first).
        let p = two_phases(1, None);
        let mut budget = Budget::steps(10_000);
        assert!(matches!(
            run_trace(&p, &[1_000_000_000_000], &mut budget),
            Err(crate::poly::PolyError::Budget)
        ));
    }
}

#[cfg(test)]
mod merged_tests {
    use super::*;
    use crate::mapping::modular::ParamAffine;
    use crate::poly::{Space, Tuple};
    use crate::verify::storage::{AccessLocation, MergedStorage};

    fn stmt(
        name: &str,
        lo: i64,
        phase: i64,
        reads: Vec<TraceAccess>,
        write: usize,
    ) -> TraceStatement {
        let space = Space::set(vec!["N".into()], Tuple::new(Some(name), &["i"]));
        let mut d = BasicSet::universe(space);
        d.add_ineq(vec![0, 1, -lo]);
        d.add_ineq(vec![1, -1, -1]);
        TraceStatement {
            name: name.into(),
            domain: vec![d],
            schedule: vec![vec![0, 0, phase], vec![0, 1, 0], vec![0, 0, 0]],
            reads,
            write: TraceAccess {
                array: write,
                subscripts: vec![vec![0, 1, 0]],
            },
            removed: false,
        }
    }

    fn read(array: usize, offset: i64) -> TraceAccess {
        TraceAccess {
            array,
            subscripts: vec![vec![0, 1, offset]],
        }
    }

    /// `i + offset` over `[N | i | 1]`.
    fn row(offset: i64) -> Level {
        Level::Row(vec![0, 1, offset])
    }

    /// S0: A[i] = f(i), 0 <= i < N; S1: B[i] = A[i] (a copy), 0 <= i < N;
    /// S2: C[i] = B[i - 1], 1 <= i < N. A and B share the buffer `buf`
    /// of N = 10 cells, A[i] and B[i] at `buf[i]`, so the copy is removed
    /// and S2 reads `buf[location]`.
    fn program(location: Location) -> TraceProgram {
        let mut p = TraceProgram {
            arrays: ["A", "B", "C"]
                .iter()
                .map(|n| TraceArray {
                    name: (*n).into(),
                    storage: Storage::Original,
                })
                .collect(),
            statements: vec![
                stmt("S0", 0, 0, vec![], 0),
                stmt("S1", 0, 1, vec![read(0, 0)], 1),
                stmt("S2", 1, 2, vec![read(1, -1)], 2),
            ],
            buffers: Vec::new(),
        };
        let storage = MergedStorage {
            arrays: vec![0, 1],
            buffers: vec![TraceBuffer {
                name: "buf".into(),
                extents: vec![ParamAffine::constant(1, 10)],
            }],
            accesses: vec![
                AccessLocation {
                    statement: 0,
                    slot: Slot::Write,
                    location: Location::At {
                        buffer: 0,
                        levels: vec![row(0)],
                    },
                },
                AccessLocation {
                    statement: 2,
                    slot: Slot::Read(0),
                    location,
                },
            ],
            removed: vec![1],
        };
        p.merge(&storage).unwrap();
        p
    }

    fn at(level: Level) -> Location {
        Location::At {
            buffer: 0,
            levels: vec![level],
        }
    }

    fn run(p: &TraceProgram) -> TraceReport {
        run_trace(p, &[10], &mut Budget::default()).unwrap()
    }

    #[test]
    fn a_removed_copy_passes_its_value_through() {
        let r = run(&program(at(row(-1))));
        assert!(r.first_mismatch.is_none(), "{:?}", r.first_mismatch);
        // S2's nine reads; the removed copy's reads are not executed.
        assert_eq!(r.reads_checked, 9);
        // S0's ten writes and S2's nine reads.
        assert_eq!(r.merged_accesses, 19);
        // Lifetimes are the original program's (the copy's values are
        // values of B): all ten values of A wait for S1, and B[0..8] wait
        // for S2 when S1 writes B[9] (live at its write, never read).
        assert_eq!(r.max_live[0], 10);
        assert_eq!(r.max_live[1], 10);
        assert_eq!(r.initial_reads, vec![0, 0, 0]);
    }

    #[test]
    fn a_wrong_merged_location_is_a_wrong_read() {
        // buf[i] holds A[i] = S0[i]; S2 at i = 1 wants B[0] = S0[0].
        let m = run(&program(at(row(0)))).first_mismatch.unwrap();
        assert_eq!(m.kind, MismatchKind::WrongValue);
        assert_eq!((m.statement.as_str(), m.read), ("S2", Some(0)));
        assert_eq!((m.iteration, m.cell), (vec![1], vec![0]));
        assert_eq!(m.buffer.as_deref(), Some("buf"));
        assert_eq!(m.location, vec![1]);
        assert_eq!(m.expected_writer, Some(("S0".into(), vec![0])));
        assert_eq!(m.found_writer, Some(("S0".into(), vec![1])));
    }

    #[test]
    fn a_negative_remainder_is_outside_the_buffer() {
        // C's (i - 2) % 10 is -1 at i = 1; (i + 9) % 10 is i - 1.
        let rem = |offset| Level::Rem {
            row: vec![0, 1, offset],
            modulus: ParamAffine::constant(1, 10),
        };
        assert!(run(&program(at(rem(9)))).first_mismatch.is_none());
        let m = run(&program(at(rem(-2)))).first_mismatch.unwrap();
        assert_eq!(m.kind, MismatchKind::OutOfBounds);
        assert_eq!((m.iteration, m.location), (vec![1], vec![-1]));
    }

    #[test]
    fn a_choice_takes_the_first_branch_that_holds_else_the_last() {
        let space = Space::set(vec!["N".into()], Tuple::new(Some("S2"), &["i"]));
        // i >= 5.
        let mut high = BasicSet::universe(space);
        high.add_ineq(vec![0, 1, -5]);
        let choice = |otherwise| {
            Location::Choose(vec![
                (vec![high.clone()], at(row(-1))),
                (Vec::new(), at(otherwise)),
            ])
        };
        assert!(run(&program(choice(row(-1)))).first_mismatch.is_none());
        // The `else` is wrong: seen at i = 1, not at i >= 5.
        let m = run(&program(choice(row(0)))).first_mismatch.unwrap();
        assert_eq!(m.iteration, vec![1]);
        // With the condition never holding, the else is taken everywhere.
        let never = Location::Choose(vec![(Vec::new(), at(row(0))), (Vec::new(), at(row(-1)))]);
        assert!(run(&program(never)).first_mismatch.is_none());
    }

    #[test]
    fn an_access_of_a_merged_array_needs_a_location() {
        let mut p = program(at(row(-1)));
        p.statements[1].removed = false;
        assert!(run_trace(&p, &[10], &mut Budget::default()).is_err());
    }
}
