//! Exact value-based dataflow (Feautrier's last writer) for the reads of a
//! SCoP.
//!
//! For a read of array `A` by statement `T` at iteration `i`, its source is
//! the last operation, in schedule order, that writes the same cell before
//! the read, or the array's initial value when there is none. For every
//! writer statement `S` and every schedule position `p` where `θ_S(j)`
//! first falls below `θ_T(i)` ("level" `p`), the candidates form one
//! polyhedron per pair of domain pieces; its parametric lexicographic
//! maximum (`poly::lexopt::lexmax`, over `sign_k·j_k`, the order of `S`'s
//! schedule) gives a piecewise quasi-affine candidate source. The source at
//! `i` is the latest (in schedule order) of the candidates defined at `i`;
//! [`ReadDataflow::source_at`] evaluates it exactly, and the printer lists
//! the candidates with that rule.
//!
//! `exact` is false when some lexmax was not exact; such a result must not
//! be used to shrink storage (callers fall back to cell lifetimes).
//!
//! What this module does NOT do: merge the candidates into disjoint pieces
//! (the "latest candidate wins" rule is left explicit), handle reads and
//! writes of the same operation other than "reads happen first", or
//! look through scalars that are not arrays of the SCoP.

use std::fmt::Write as _;

use crate::ir::{ArrayId, SchedEntry, Scop};
use crate::poly::lexopt::{LexOpt, lexmax};
use crate::poly::{BasicSet, PolyError, PolyResult, Space, Tuple};

use super::build::{aff_row, schedule_rows};

/// One candidate source: writer statement, level, and the lexmax pieces
/// (values are `sign_k·j_k` of the writer's iterators).
#[derive(Clone, Debug)]
pub struct Candidate {
    pub writer: usize,
    pub level: usize,
    pub opt: LexOpt,
    /// Signs of the writer's loops (to turn values back into iterators).
    pub signs: Vec<i64>,
}

/// The dataflow of one read access.
#[derive(Clone, Debug)]
pub struct ReadDataflow {
    /// The reading statement (index into `scop.stmts`).
    pub stmt: usize,
    /// Index of the read in the statement's `reads`.
    pub read: usize,
    pub array: ArrayId,
    pub candidates: Vec<Candidate>,
    pub exact: bool,
}

/// Where the value read comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// No write precedes the read: the value the array had before the SCoP.
    Initial,
    /// Written by statement `stmt` at iteration `iters`.
    Write { stmt: usize, iters: Vec<i64> },
}

/// The dataflow of every read of the SCoP (all arrays).
#[derive(Clone, Debug)]
pub struct Dataflow {
    pub reads: Vec<ReadDataflow>,
}

impl Dataflow {
    /// Whether every read's dataflow is exact.
    pub fn exact(&self) -> bool {
        self.reads.iter().all(|r| r.exact)
    }
}

fn signs_of(scop: &Scop, stmt: usize) -> Vec<i64> {
    let s = &scop.stmts[stmt];
    let mut signs = vec![1; s.iterators.len()];
    for e in &s.schedule {
        if let SchedEntry::Iter { index, sign } = *e
            && index < signs.len()
        {
            signs[index] = sign;
        }
    }
    signs
}

/// The schedule vector of `stmt` at `iters`, padded with zeros to `len`.
fn schedule_at(scop: &Scop, stmt: usize, iters: &[i64], params: &[i64], len: usize) -> Vec<i64> {
    let mut v: Vec<i64> = scop.stmts[stmt]
        .schedule
        .iter()
        .map(|e| match *e {
            SchedEntry::Const(c) => c,
            SchedEntry::Iter { index, sign } => sign * iters.get(index).copied().unwrap_or(0),
        })
        .collect();
    let _ = params;
    v.resize(len, 0);
    v
}

fn max_schedule_len(scop: &Scop) -> usize {
    scop.stmts
        .iter()
        .map(|s| s.schedule.len())
        .max()
        .unwrap_or(0)
}

/// Computes the dataflow of every read of `scop`.
pub fn compute_dataflow(scop: &Scop) -> PolyResult<Dataflow> {
    let mut reads = Vec::new();
    for (ti, t) in scop.stmts.iter().enumerate() {
        for (ri, r) in t.reads.iter().enumerate() {
            reads.push(read_dataflow(scop, ti, ri, r.array)?);
        }
    }
    Ok(Dataflow { reads })
}

fn read_dataflow(scop: &Scop, ti: usize, ri: usize, array: ArrayId) -> PolyResult<ReadDataflow> {
    let t = &scop.stmts[ti];
    let read = &t.reads[ri];
    let len = max_schedule_len(scop);
    let mut candidates = Vec::new();
    let mut exact = true;
    for (si, s) in scop.stmts.iter().enumerate() {
        if s.write.array != array {
            continue;
        }
        let signs = signs_of(scop, si);
        for tp in &t.domain.pieces {
            for sp in &s.domain.pieces {
                for level in 0..len {
                    let Some(rel) = candidate_relation(scop, ti, si, tp, sp, level, read, &signs)?
                    else {
                        continue;
                    };
                    let opt = lexmax(&rel)?;
                    exact &= opt.exact;
                    if !opt.pieces.is_empty() {
                        candidates.push(Candidate {
                            writer: si,
                            level,
                            opt,
                            signs: signs.clone(),
                        });
                    }
                }
            }
        }
    }
    Ok(ReadDataflow {
        stmt: ti,
        read: ri,
        array,
        candidates,
        exact,
    })
}

/// The relation `{ T[i] -> S[r] }` (with `r_k = sign_k·j_k`) of writes of
/// `S` to the cell read by `T` at `i`, whose schedule first falls below
/// `θ_T(i)` at position `level`; `None` when that level is impossible for
/// constant entries.
#[allow(clippy::too_many_arguments)]
fn candidate_relation(
    scop: &Scop,
    ti: usize,
    si: usize,
    tp: &BasicSet,
    sp: &BasicSet,
    level: usize,
    read: &crate::ir::Access,
    signs: &[i64],
) -> PolyResult<Option<BasicSet>> {
    let np = scop.params.len();
    let t = &scop.stmts[ti];
    let s = &scop.stmts[si];
    let nt = t.iterators.len();
    let ns = s.iterators.len();
    let et = tp.n_exist;
    let es = sp.n_exist;
    // Columns: [params | i | r | exist_T | exist_S | const].
    let width = np + nt + ns + et + es + 1;
    let space = Space::relation(
        scop.param_names(),
        Tuple {
            name: Some(t.name.clone()),
            dims: t.iterators.clone(),
        },
        Tuple {
            name: Some(s.name.clone()),
            dims: s.iterators.iter().map(|n| format!("{n}'")).collect(),
        },
    );
    let mut rel = BasicSet {
        space,
        n_exist: et + es,
        eqs: Vec::new(),
        ineqs: Vec::new(),
    };
    // A row over the T piece's columns [params | i | exist_T | const].
    let from_t = |row: &[i64]| -> Vec<i64> {
        let mut out = vec![0; width];
        out[..np + nt].copy_from_slice(&row[..np + nt]);
        out[np + nt + ns..np + nt + ns + et].copy_from_slice(&row[np + nt..np + nt + et]);
        out[width - 1] = row[row.len() - 1];
        out
    };
    // A row over the S piece's columns [params | j | exist_S | const], with
    // j_k = sign_k·r_k.
    let from_s = |row: &[i64]| -> Vec<i64> {
        let mut out = vec![0; width];
        out[..np].copy_from_slice(&row[..np]);
        for k in 0..ns {
            out[np + nt + k] = row[np + k] * signs[k];
        }
        out[np + nt + ns + et..np + nt + ns + et + es].copy_from_slice(&row[np + ns..np + ns + es]);
        out[width - 1] = row[row.len() - 1];
        out
    };
    for r in &tp.eqs {
        rel.eqs.push(from_t(r));
    }
    for r in &tp.ineqs {
        rel.ineqs.push(from_t(r));
    }
    for r in &sp.eqs {
        rel.eqs.push(from_s(r));
    }
    for r in &sp.ineqs {
        rel.ineqs.push(from_s(r));
    }
    // Same cell.
    let tw = tp.width();
    let sw = sp.width();
    for (a, b) in s.write.subscripts.iter().zip(&read.subscripts) {
        let ws = from_s(&aff_row(a, sw));
        let rs = from_t(&aff_row(b, tw));
        rel.eqs
            .push(ws.iter().zip(&rs).map(|(x, y)| x - y).collect());
    }
    // Schedules (padded with zeros).
    let st = schedule_rows(t, np, tw);
    let ss = schedule_rows(s, np, sw);
    let entry = |rows: &[Vec<i64>], q: usize, w: usize, conv: &dyn Fn(&[i64]) -> Vec<i64>| {
        match rows.get(q) {
            Some(r) => conv(r),
            None => {
                let _ = w;
                vec![0; width]
            }
        }
    };
    for q in 0..=level {
        let a = entry(&ss, q, sw, &from_s);
        let b = entry(&st, q, tw, &from_t);
        let diff: Vec<i64> = b.iter().zip(&a).map(|(x, y)| x - y).collect();
        if q < level {
            rel.eqs.push(diff);
        } else {
            let mut d = diff;
            d[width - 1] -= 1;
            rel.ineqs.push(d);
        }
    }
    // Quick rejection: a constant row that is violated.
    let n = width - 1;
    for r in &rel.eqs {
        if r[..n].iter().all(|v| *v == 0) && r[n] != 0 {
            return Ok(None);
        }
    }
    for r in &rel.ineqs {
        if r[..n].iter().all(|v| *v == 0) && r[n] < 0 {
            return Ok(None);
        }
    }
    Ok(Some(rel))
}

impl ReadDataflow {
    /// The source of the value read at iteration `iters` with parameter
    /// values `params`, evaluated exactly from the candidates (the latest
    /// candidate in schedule order wins).
    pub fn source_at(&self, scop: &Scop, params: &[i64], iters: &[i64]) -> PolyResult<Source> {
        let len = max_schedule_len(scop);
        let mut point = params.to_vec();
        point.extend_from_slice(iters);
        let mut best: Option<(Vec<i64>, usize, Vec<i64>)> = None;
        for c in &self.candidates {
            let Some(v) = c.opt.value_at(&point)? else {
                continue;
            };
            let j: Vec<i64> = v.iter().zip(&c.signs).map(|(x, s)| x * s).collect();
            let sched = schedule_at(scop, c.writer, &j, params, len);
            if best.as_ref().is_none_or(|b| sched > b.0) {
                best = Some((sched, c.writer, j));
            }
        }
        Ok(match best {
            None => Source::Initial,
            Some((_, stmt, iters)) => Source::Write { stmt, iters },
        })
    }
}

/// The dataflow in isl notation, one block per read: every candidate as
/// `{ T[i] -> S[j] : ... }` (the latest candidate defined at `i` wins;
/// where none is, the read sees the initial value).
pub fn print_dataflow(scop: &Scop, flow: &Dataflow) -> Result<String, PolyError> {
    let mut out = String::new();
    let params = scop.param_names();
    for r in &flow.reads {
        let t = &scop.stmts[r.stmt];
        if let Some(pieces) = source_pieces(scop, r)? {
            // Disjoint pieces: a piecewise affine function in isl notation.
            let _ = writeln!(
                out,
                "# {} read {} of {}: exact; initial value outside these pieces",
                t.name,
                r.read,
                scop.array(r.array).name
            );
            let mut names = params.clone();
            names.extend(t.iterators.iter().cloned());
            let mut texts = Vec::new();
            for p in &pieces {
                let w = &scop.stmts[p.writer];
                let vals: Vec<String> = p
                    .iters
                    .iter()
                    .map(|row| {
                        let n = row.len() - 1;
                        crate::poly::isl_print::format_affine(&row[..n], row[n], &names)
                    })
                    .collect();
                for b in &p.region.pieces {
                    let c = b.constraints_to_isl();
                    texts.push(format!(
                        "{}[{}] -> {}[{}]{}",
                        t.name,
                        t.iterators.join(", "),
                        w.name,
                        vals.join(", "),
                        if c.is_empty() {
                            String::new()
                        } else {
                            format!(" : {c}")
                        }
                    ));
                }
            }
            let _ = writeln!(out, "[{}] -> {{ {} }}", params.join(", "), texts.join("; "));
            continue;
        }
        let _ = writeln!(
            out,
            "# {} read {} of {}{}: latest candidate wins, else initial value",
            t.name,
            r.read,
            scop.array(r.array).name,
            if r.exact { "" } else { " (NOT EXACT)" }
        );
        for c in &r.candidates {
            let s = &scop.stmts[c.writer];
            let mut names = params.clone();
            names.extend(t.iterators.iter().cloned());
            for p in &c.opt.pieces {
                let vals: Vec<String> = p
                    .values
                    .iter()
                    .zip(&c.signs)
                    .map(|(q, sign)| {
                        let n = q.coeffs.len() - 1;
                        let coeffs: Vec<i64> = q.coeffs[..n].iter().map(|v| v * sign).collect();
                        let aff = crate::poly::isl_print::format_affine(
                            &coeffs,
                            q.coeffs[n] * sign,
                            &names,
                        );
                        if q.denominator == 1 {
                            aff
                        } else if *sign == 1 {
                            format!("floor(({aff})/{})", q.denominator)
                        } else {
                            format!("-floor(({})/{})", q.coeffs_text(&names), q.denominator)
                        }
                    })
                    .collect();
                let dom = p.domain.to_string();
                let _ = writeln!(
                    out,
                    "  level {}: {} -> {}[{}] on {}",
                    c.level,
                    t.name,
                    s.name,
                    vals.join(", "),
                    dom
                );
            }
        }
    }
    Ok(out)
}

trait CoeffsText {
    fn coeffs_text(&self, names: &[String]) -> String;
}

impl CoeffsText for crate::poly::lexopt::QAff {
    fn coeffs_text(&self, names: &[String]) -> String {
        let n = self.coeffs.len() - 1;
        crate::poly::isl_print::format_affine(&self.coeffs[..n], self.coeffs[n], names)
    }
}

/// A read instance: statement, read position, iteration vector.
pub type ReadInstance = (usize, usize, Vec<i64>);

/// Brute force (for tests and checks): runs the SCoP's operations in
/// schedule order for fixed parameters and records, for every read
/// operation `(stmt, read, iters)`, the last writer of the cell it reads.
pub fn brute_sources(scop: &Scop, params: &[i64]) -> PolyResult<Vec<(ReadInstance, Source)>> {
    use crate::poly::Budget;
    use crate::poly::basic::eval_row;
    use crate::verify::enumerate::integer_points;
    use std::collections::HashMap;
    let np = scop.params.len();
    let len = max_schedule_len(scop);
    let mut ops: Vec<(Vec<i64>, usize, Vec<i64>)> = Vec::new();
    let mut budget = Budget::default_query();
    for (si, s) in scop.stmts.iter().enumerate() {
        let mut pts = Vec::new();
        for piece in &s.domain.pieces {
            pts.extend(integer_points(piece, params, &mut budget)?);
        }
        pts.sort();
        pts.dedup();
        for it in pts {
            let sched = schedule_at(scop, si, &it, params, len);
            ops.push((sched, si, it));
        }
    }
    ops.sort();
    let mut last: HashMap<(u32, Vec<i64>), (usize, Vec<i64>)> = HashMap::new();
    let mut out = Vec::new();
    for (_, si, it) in ops {
        let s = &scop.stmts[si];
        let mut full = params.to_vec();
        full.extend_from_slice(&it);
        let width = np + it.len() + 1;
        let cell = |a: &crate::ir::Access| -> PolyResult<Vec<i64>> {
            a.subscripts
                .iter()
                .map(|e| eval_row(&aff_row(e, width), &full))
                .collect()
        };
        for (ri, r) in s.reads.iter().enumerate() {
            let c = cell(r)?;
            let src = match last.get(&(r.array.0, c)) {
                None => Source::Initial,
                Some((ws, wi)) => Source::Write {
                    stmt: *ws,
                    iters: wi.clone(),
                },
            };
            out.push(((si, ri, it.clone()), src));
        }
        let c = cell(&s.write)?;
        last.insert((s.write.array.0, c), (si, it.clone()));
    }
    Ok(out)
}

// ---------------------------------------------------------------------------
// Value lifetimes and the global conflict set (seed 000 §3.2–3.4).

/// One candidate piece with the region where it is the source (disjoint
/// from the regions of the other pieces of the same read).
#[derive(Clone, Debug)]
pub struct SourcePiece {
    pub writer: usize,
    /// Where this piece is the source: a union over `[params | reader
    /// iterators]`.
    pub region: crate::poly::Set,
    /// The writer's iterators as affine rows over `[params | reader
    /// iterators | constant]`.
    pub iters: Vec<Vec<i64>>,
}

/// The exact source pieces of one read: disjoint regions, each with an
/// affine source. `None` when that cannot be done exactly (a non-affine
/// value, a difference that is not exact, or an inexact lexmax).
pub fn source_pieces(scop: &Scop, r: &ReadDataflow) -> PolyResult<Option<Vec<SourcePiece>>> {
    if !r.exact {
        return Ok(None);
    }
    let np = scop.params.len();
    let t = &scop.stmts[r.stmt];
    let nt = t.iterators.len();
    // Flatten candidates into pieces: (level, writer, domain, iterator rows,
    // schedule rows over [params | k | const]).
    struct Flat {
        level: usize,
        writer: usize,
        domain: BasicSet,
        iters: Vec<Vec<i64>>,
        sched: Vec<Vec<i64>>,
    }
    let len = max_schedule_len(scop);
    let mut flats: Vec<Flat> = Vec::new();
    for c in &r.candidates {
        let s = &scop.stmts[c.writer];
        for p in &c.opt.pieces {
            if p.values.iter().any(|q| q.denominator != 1) {
                return Ok(None);
            }
            let iters: Vec<Vec<i64>> = p
                .values
                .iter()
                .zip(&c.signs)
                .map(|(q, sign)| q.coeffs.iter().map(|v| v * sign).collect())
                .collect();
            let mut sched = Vec::with_capacity(len);
            for q in 0..len {
                let mut row = vec![0i64; np + nt + 1];
                match s.schedule.get(q) {
                    Some(SchedEntry::Const(v)) => row[np + nt] = *v,
                    Some(SchedEntry::Iter { index, sign }) => {
                        for (a, b) in row.iter_mut().zip(&iters[*index]) {
                            *a = b * sign;
                        }
                    }
                    None => {}
                }
                sched.push(row);
            }
            flats.push(Flat {
                level: c.level,
                writer: c.writer,
                domain: p.domain.clone(),
                iters,
                sched,
            });
        }
    }
    let mut out = Vec::new();
    for (ci, c) in flats.iter().enumerate() {
        let mut region = crate::poly::Set::from_basic(c.domain.clone());
        for (di, d) in flats.iter().enumerate() {
            if di == ci {
                continue;
            }
            let beats: crate::poly::Set = if d.level > c.level {
                crate::poly::Set::from_basic(d.domain.clone())
            } else if d.level == c.level {
                // d's schedule lexicographically after c's (or equal, with
                // d first in the list) on the common domain.
                let both = d.domain.intersect(&c.domain)?;
                let mut set = crate::poly::Set::empty(both.space.clone());
                let w = both.width();
                let lift = |row: &[i64]| -> Vec<i64> {
                    let mut out = vec![0; w];
                    out[..np + nt].copy_from_slice(&row[..np + nt]);
                    out[w - 1] = row[np + nt];
                    out
                };
                for q in 0..=len {
                    let mut b = both.clone();
                    for e in 0..q.min(len) {
                        let diff: Vec<i64> = lift(&d.sched[e])
                            .iter()
                            .zip(lift(&c.sched[e]))
                            .map(|(x, y)| x - y)
                            .collect();
                        b.eqs.push(diff);
                    }
                    if q < len {
                        let mut diff: Vec<i64> = lift(&d.sched[q])
                            .iter()
                            .zip(lift(&c.sched[q]))
                            .map(|(x, y)| x - y)
                            .collect();
                        diff[w - 1] -= 1;
                        b.ineqs.push(diff);
                    } else if di > ci {
                        // Equal schedules: the earlier piece keeps it.
                        continue;
                    }
                    set.push(b);
                }
                set
            } else {
                continue;
            };
            region = match region.subtract(&beats)? {
                Some(r) => r,
                None => return Ok(None),
            };
        }
        out.push(SourcePiece {
            writer: c.writer,
            region,
            iters: c.iters.clone(),
        });
    }
    Ok(Some(out))
}

/// The global conflict set of the values written by `stmts` (total
/// expansion: statement `stmts[j]` writes cell `[j, i, 0...]` of the global
/// array space), from exact value lifetimes: the values of `S(i)` and
/// `S'(i')`, with `S'(i')` written after `S(i)`, conflict when some read of
/// `S(i)`'s value happens strictly after the operation `S'(i')`. Values
/// never read are dead (no conflict). Reads of values written by
/// statements outside `stmts` are ignored, so `stmts` must hold every
/// writer of the arrays concerned.
///
/// Returns `None` when the dataflow is not exact. What this does NOT do:
/// live-out values (temporaries have none) and live-in values (reads of
/// initial values have no writer statement and need storage of their own).
pub fn global_conflicts(
    scop: &Scop,
    flow: &Dataflow,
    stmts: &[usize],
) -> PolyResult<Option<crate::mapping::smo::ConflictSpec>> {
    global_conflicts_until(scop, flow, stmts, None, None)
}

/// The parameter values a conflict set is built for, and which statement
/// pairs `(j, k)` (indices into the statement list) can hold a conflict
/// for them (`needed[j][k]`; e.g. from the values' lifetimes).
#[derive(Clone, Copy, Debug)]
pub struct ForValues<'a> {
    pub values: &'a [i64],
    pub needed: &'a [Vec<bool>],
}

/// The work a global conflict set may take: `work` units (one per conflict
/// piece built and tested) decide, so the same SCoP always gets the same
/// answer; `safety_net` is a wall-clock limit whose firing is remembered in
/// `net_fired` (the caller reports it: the answer may differ between runs).
/// The statement pairs are built in parallel, but the answer does not
/// depend on their order: the set fails exactly when the total work of all
/// pairs exceeds `work`.
#[derive(Debug)]
pub struct ConflictLimit {
    pub work: u64,
    pub safety_net: Option<std::time::Instant>,
    pub used: std::sync::atomic::AtomicU64,
    pub net_fired: std::sync::atomic::AtomicBool,
}

impl ConflictLimit {
    pub fn new(work: u64, safety_net: Option<std::time::Instant>) -> ConflictLimit {
        ConflictLimit {
            work,
            safety_net,
            used: std::sync::atomic::AtomicU64::new(0),
            net_fired: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// One unit of work; `Err(PolyError::Budget)` when the work is spent or
    /// the safety net fired.
    fn charge(&self) -> PolyResult<()> {
        use std::sync::atomic::Ordering;
        if self.used.fetch_add(1, Ordering::Relaxed) >= self.work {
            return Err(PolyError::Budget);
        }
        if before_deadline(self.safety_net).is_err() {
            self.net_fired.store(true, Ordering::Relaxed);
            return Err(PolyError::Budget);
        }
        Ok(())
    }
}

/// [`global_conflicts`] that gives up with [`PolyError::Budget`] once the
/// work of `limit` is spent (see [`ConflictLimit`]). With `for_values`, the
/// set is exact for those parameter values only: every piece fixes the parameters to them (which
/// makes the emptiness tests cheaper), and the pairs not `needed` are
/// skipped.
pub fn global_conflicts_until(
    scop: &Scop,
    flow: &Dataflow,
    stmts: &[usize],
    limit: Option<&ConflictLimit>,
    for_values: Option<ForValues<'_>>,
) -> PolyResult<Option<crate::mapping::smo::ConflictSpec>> {
    let deadline = limit.and_then(|l| l.safety_net);
    let needed = for_values.map(|f| f.needed);
    let fixed = for_values.map(|f| f.values);
    use crate::mapping::smo::{ConflictPolyhedron, ConflictSpec, StmtId};
    let check_time = || limit.map_or(Ok(()), ConflictLimit::charge);
    let dmax = stmts
        .iter()
        .map(|s| scop.stmts[*s].iterators.len())
        .max()
        .unwrap_or(0);
    let n = 1 + dmax;
    let len = max_schedule_len(scop);
    let params = scop.param_names();
    let xs: Vec<String> = (0..n).map(|d| format!("x{d}")).collect();
    let ys: Vec<String> = (0..n).map(|d| format!("y{d}")).collect();
    let rel_space = Space::relation(
        params.clone(),
        Tuple::anonymous(xs.clone()),
        Tuple::anonymous(ys.clone()),
    );
    // Source pieces of every read.
    let mut reads = Vec::new();
    for r in &flow.reads {
        match source_pieces(scop, r)? {
            Some(p) => reads.push((r.stmt, p)),
            None => return Ok(None),
        }
    }
    // The statement pairs are independent: they are shared out between
    // threads (each takes the next pair), and the pieces are put back in
    // pair order.
    let pair = |ja: usize, jb: usize| -> PolyResult<Vec<ConflictPolyhedron>> {
        let (sa, sb) = (stmts[ja], stmts[jb]);
        let s = &scop.stmts[sa];
        let s2 = &scop.stmts[sb];
        let mut rel = crate::poly::Set::empty(rel_space.clone());
        for (ti, pieces) in &reads {
            let t = &scop.stmts[*ti];
            let nt = t.iterators.len();
            for sp in pieces.iter().filter(|p| p.writer == sa) {
                for wp in &sp.region.pieces {
                    for dpa in &s.domain.pieces {
                        for dpb in &s2.domain.pieces {
                            for p1 in 0..len {
                                if !may_first_differ(s, s2, p1) {
                                    continue;
                                }
                                for p2 in 0..len {
                                    if !may_first_differ(s2, t, p2) {
                                        continue;
                                    }
                                    let b = conflict_piece(
                                        scop,
                                        &rel_space,
                                        n,
                                        (ja, sa),
                                        (jb, sb),
                                        dpa,
                                        dpb,
                                        (*ti, nt),
                                        wp,
                                        &sp.iters,
                                        p1,
                                        p2,
                                        fixed,
                                    )?;
                                    check_time()?;
                                    if let Some(b) = b
                                        && crate::poly::simplex::integer_point(
                                            &b,
                                            &mut crate::poly::Budget::default_query(),
                                        )?
                                        .is_some()
                                    {
                                        rel.push(crate::mapping::smo::solve::simplify_public(&b)?);
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        check_time()?;
        let mut out = Vec::new();
        let kept = without_redundant_pieces(rel.pieces, deadline).inspect_err(|e| {
            // A budget error past the deadline is the safety net firing.
            if let Some(l) = limit
                && *e == PolyError::Budget
                && before_deadline(deadline).is_err()
            {
                l.net_fired
                    .store(true, std::sync::atomic::Ordering::Relaxed);
            }
        })?;
        for piece in kept {
            out.push(ConflictPolyhedron {
                source: StmtId(ja),
                target: StmtId(jb),
                relation: crate::poly::Set::from_basic(piece),
                line: 0,
            });
        }
        Ok(out)
    };
    let n_pairs = stmts.len() * stmts.len();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 4)
        .min(n_pairs.max(1));
    let mut done: Vec<(usize, PolyResult<Vec<ConflictPolyhedron>>)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        if i >= n_pairs {
                            break;
                        }
                        let t = std::time::Instant::now();
                        let (ja, jb) = (i / stmts.len(), i % stmts.len());
                        let r = if needed.is_some_and(|n| !n[ja][jb]) {
                            Ok(Vec::new())
                        } else {
                            pair(ja, jb)
                        };
                        if std::env::var_os("POLYFOLD_CONFLICT_DEBUG").is_some() {
                            eprintln!(
                                "conflict pair {} {}: {:.3} s",
                                i / stmts.len(),
                                i % stmts.len(),
                                t.elapsed().as_secs_f64()
                            );
                        }
                        let failed = r.is_err();
                        mine.push((i, r));
                        if failed {
                            // Stop the others at their next pair.
                            next.store(n_pairs, std::sync::atomic::Ordering::Relaxed);
                            break;
                        }
                    }
                    mine
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    done.sort_by_key(|(i, _)| *i);
    let complete = done.len() == n_pairs;
    let mut conflicts = Vec::new();
    for (_, r) in done {
        conflicts.extend(r?);
    }
    if !complete {
        // Only an error stops a worker early, and it was returned above.
        return Err(PolyError::Solver(
            "a statement pair of the conflict set is missing".into(),
        ));
    }
    let set_space = Space::set(params.clone(), Tuple::anonymous(xs));
    Ok(Some(ConflictSpec {
        params,
        n_dim: n,
        array_space: BasicSet::universe(set_space.clone()),
        range_space: BasicSet::universe(set_space),
        output_names: ys,
        n_statements: stmts.len(),
        conflicts,
    }))
}

/// `Err(PolyError::Budget)` once `deadline` has passed.
fn before_deadline(deadline: Option<std::time::Instant>) -> PolyResult<()> {
    match deadline {
        Some(d) if std::time::Instant::now() >= d => Err(PolyError::Budget),
        _ => Ok(()),
    }
}

/// The pieces of a union with their existentials eliminated where that is
/// exact, without the pieces contained in another one, and with pairs
/// whose union is convex merged (each conflict
/// polyhedron costs SMO Farkas multipliers and two binaries per level; one
/// read per neighbour of a stencil gives the same conflicts several
/// times). The union is unchanged: a piece is dropped only when an exact
/// set difference proves it inside a piece that is kept.
/// Whether every rational point of `a` is in `b` (so every integer point
/// too): each constraint of `b` holds at `a`'s LP optimum (both without
/// existentials, over the same columns). An empty `a` is within anything.
fn rationally_within(a: &BasicSet, b: &BasicSet) -> PolyResult<bool> {
    use crate::poly::simplex::{LpResult, lp_min};
    if a.width() != b.width() || a.n_exist > 0 || b.n_exist > 0 {
        return Ok(false);
    }
    let at_least_zero = |r: LpResult| match r {
        LpResult::Optimal { value, .. } => value.signum() >= 0,
        LpResult::Infeasible => true,
        LpResult::Unbounded => false,
    };
    for row in &b.ineqs {
        if !at_least_zero(lp_min(a, row)?) {
            return Ok(false);
        }
    }
    for row in &b.eqs {
        let Some(neg) = row
            .iter()
            .map(|v| v.checked_neg())
            .collect::<Option<Vec<i64>>>()
        else {
            return Ok(false);
        };
        if !at_least_zero(lp_min(a, row)?) || !at_least_zero(lp_min(a, &neg)?) {
            return Ok(false);
        }
    }
    Ok(true)
}

fn without_redundant_pieces(
    pieces: Vec<BasicSet>,
    deadline: Option<std::time::Instant>,
) -> PolyResult<Vec<BasicSet>> {
    let check_time = || before_deadline(deadline);
    let mut cleaned = Vec::with_capacity(pieces.len());
    for p in pieces {
        let q = crate::poly::project::eliminate_exists_where_exact(&p)?;
        if !q.is_obviously_empty() {
            cleaned.push(q);
        }
    }
    let mut keep = vec![true; cleaned.len()];
    for i in 0..cleaned.len() {
        for j in 0..cleaned.len() {
            if i == j || !keep[j] || cleaned[i].n_exist > 0 || cleaned[j].n_exist > 0 {
                continue;
            }
            check_time()?;
            let (a, b) = (&cleaned[i], &cleaned[j]);
            // Among equal pieces the first is kept.
            if rationally_within(a, b)? && (j < i || !rationally_within(b, a)?) {
                keep[i] = false;
                break;
            }
        }
    }
    let mut pieces: Vec<BasicSet> = cleaned
        .into_iter()
        .zip(keep)
        .filter(|(_, k)| *k)
        .map(|(p, _)| p)
        .collect();
    // Pairs whose union is convex become one piece (only pairs that differ
    // in a few constraints are tried: the exact check costs LPs).
    let mut i = 0;
    while i < pieces.len() {
        let mut j = i + 1;
        let mut merged = false;
        while j < pieces.len() {
            check_time()?;
            if few_differences(&pieces[i], &pieces[j])
                && let Some(m) = convex_union(&pieces[i], &pieces[j])?
            {
                pieces[i] = m;
                pieces.remove(j);
                merged = true;
                continue;
            }
            j += 1;
        }
        if !merged {
            i += 1;
        }
    }
    Ok(pieces)
}

/// Whether `a` and `b` differ in at most four constraints (counted on both
/// sides, rows as written after simplification).
fn few_differences(a: &BasicSet, b: &BasicSet) -> bool {
    let only_in = |x: &BasicSet, y: &BasicSet| {
        x.eqs.iter().filter(|r| !y.eqs.contains(r)).count()
            + x.ineqs.iter().filter(|r| !y.ineqs.contains(r)).count()
    };
    only_in(a, b) + only_in(b, a) <= 4
}

/// `a ∪ b` as one polyhedron when it is one (on integer points): the
/// constraints of each that hold on all of the other describe a polyhedron
/// containing both; it is the union when the exact set difference with
/// `a ∪ b` is empty. `None` otherwise, and for pieces with existentials.
fn convex_union(a: &BasicSet, b: &BasicSet) -> PolyResult<Option<BasicSet>> {
    if a.n_exist > 0 || b.n_exist > 0 || a.space != b.space {
        return Ok(None);
    }
    // Whether `row >= 0` holds on every integer point of `p`.
    let holds_on = |row: &[i64], p: &BasicSet| -> PolyResult<bool> {
        let mut q = p.clone();
        let mut neg: Vec<i64> = row
            .iter()
            .map(|x| x.checked_neg().ok_or(PolyError::Overflow))
            .collect::<PolyResult<_>>()?;
        let last = neg.len() - 1;
        neg[last] = neg[last].checked_sub(1).ok_or(PolyError::Overflow)?;
        q.add_ineq(neg);
        Ok(
            crate::poly::simplex::integer_point(&q, &mut crate::poly::Budget::default_query())?
                .is_none(),
        )
    };
    let mut hull = BasicSet::universe(a.space.clone());
    for row in a.inequality_rows()? {
        if holds_on(&row, b)? {
            hull.add_ineq(row);
        }
    }
    for row in b.inequality_rows()? {
        if holds_on(&row, a)? {
            hull.add_ineq(row);
        }
    }
    let union = crate::poly::Set {
        space: a.space.clone(),
        pieces: vec![a.clone(), b.clone()],
    };
    match crate::poly::Set::from_basic(hull.clone()).subtract(&union)? {
        Some(rest) if rest.is_empty()? => Ok(Some(crate::poly::constraints::simplify(&hull)?)),
        _ => Ok(None),
    }
}

/// Whether an instance of `a` can precede one of `b` with their 2d+1
/// schedules first differing at position `p`, judged on the constant
/// entries only (a missing entry is 0, as in `conflict_piece`): `false`
/// when a constant entry before `p` differs, or both entries at `p` are
/// constants and `b`'s is not larger. A cheap test that spares building
/// (and solving) pieces that are empty anyway.
fn may_first_differ(a: &crate::ir::Stmt, b: &crate::ir::Stmt, p: usize) -> bool {
    let constant = |s: &crate::ir::Stmt, q: usize| match s.schedule.get(q) {
        Some(SchedEntry::Const(v)) => Some(*v),
        Some(SchedEntry::Iter { .. }) => None,
        None => Some(0),
    };
    for q in 0..p {
        if let (Some(x), Some(y)) = (constant(a, q), constant(b, q))
            && x != y
        {
            return false;
        }
    }
    !matches!((constant(a, p), constant(b, p)), (Some(x), Some(y)) if y <= x)
}

/// One conflict polyhedron: `x = [ja, i, 0..]` written by `sa`, `y = [jb,
/// i', 0..]` written by `sb`, `θ(x) ≺ θ(y)` first at position `p1`, a read
/// at `k` in `wp` with source `i = iters(k)`, and `θ_T(k) ≻ θ(y)` first at
/// position `p2`.
#[allow(clippy::too_many_arguments)]
fn conflict_piece(
    scop: &Scop,
    rel_space: &Space,
    n: usize,
    (ja, sa): (usize, usize),
    (jb, sb): (usize, usize),
    dpa: &BasicSet,
    dpb: &BasicSet,
    (ti, nt): (usize, usize),
    wp: &BasicSet,
    iters: &[Vec<i64>],
    p1: usize,
    p2: usize,
    fixed: Option<&[i64]>,
) -> PolyResult<Option<BasicSet>> {
    let np = scop.params.len();
    let s = &scop.stmts[sa];
    let s2 = &scop.stmts[sb];
    let t = &scop.stmts[ti];
    let na = s.iterators.len();
    let nb = s2.iterators.len();
    let (ea, eb, ew) = (dpa.n_exist, dpb.n_exist, wp.n_exist);
    // Columns: [params | x (n) | y (n) | k (nt) | ea | eb | ew | const].
    let kc = np + 2 * n;
    let width = kc + nt + ea + eb + ew + 1;
    let mut b = BasicSet {
        space: rel_space.clone(),
        n_exist: nt + ea + eb + ew,
        eqs: Vec::new(),
        ineqs: Vec::new(),
    };
    let unit = |col: usize, c: i64| {
        let mut r = vec![0; width];
        r[col] = 1;
        r[width - 1] = -c;
        r
    };
    // Statement dimension and padding.
    b.eqs.push(unit(np, ja as i64));
    b.eqs.push(unit(np + n, jb as i64));
    for d in 1 + na..n {
        b.eqs.push(unit(np + d, 0));
    }
    for d in 1 + nb..n {
        b.eqs.push(unit(np + n + d, 0));
    }
    // Map a row over [params | dims(m) | exist(e) | const] of a piece.
    let map = |row: &[i64], dim_col: usize, m: usize, ex_col: usize, e: usize| -> Vec<i64> {
        let mut out = vec![0; width];
        out[..np].copy_from_slice(&row[..np]);
        out[dim_col..dim_col + m].copy_from_slice(&row[np..np + m]);
        out[ex_col..ex_col + e].copy_from_slice(&row[np + m..np + m + e]);
        out[width - 1] = row[row.len() - 1];
        out
    };
    let xa = np + 1;
    let yb = np + n + 1;
    let (ca, cb, cw) = (kc + nt, kc + nt + ea, kc + nt + ea + eb);
    for r in &dpa.eqs {
        b.eqs.push(map(r, xa, na, ca, ea));
    }
    for r in &dpa.ineqs {
        b.ineqs.push(map(r, xa, na, ca, ea));
    }
    for r in &dpb.eqs {
        b.eqs.push(map(r, yb, nb, cb, eb));
    }
    for r in &dpb.ineqs {
        b.ineqs.push(map(r, yb, nb, cb, eb));
    }
    for r in &wp.eqs {
        b.eqs.push(map(r, kc, nt, cw, ew));
    }
    for r in &wp.ineqs {
        b.ineqs.push(map(r, kc, nt, cw, ew));
    }
    // Source: x_{1+q} = iters[q](k).
    for (q, row) in iters.iter().enumerate() {
        let mut r = map(row, kc, nt, cw, 0);
        r[xa + q] -= 1;
        b.eqs.push(r);
    }
    // Schedules as rows of this width.
    let sched = |stmt: &crate::ir::Stmt, dim_col: usize, q: usize| -> Vec<i64> {
        let mut r = vec![0; width];
        match stmt.schedule.get(q) {
            Some(SchedEntry::Const(v)) => r[width - 1] = *v,
            Some(SchedEntry::Iter { index, sign }) => r[dim_col + index] = *sign,
            None => {}
        }
        r
    };
    let sub =
        |a: Vec<i64>, c: Vec<i64>| -> Vec<i64> { a.iter().zip(&c).map(|(x, y)| x - y).collect() };
    // θ_sa(x) ≺ θ_sb(y) first at p1.
    for q in 0..=p1 {
        let d = sub(sched(s2, yb, q), sched(s, xa, q));
        if q < p1 {
            b.eqs.push(d);
        } else {
            let mut d = d;
            d[width - 1] -= 1;
            b.ineqs.push(d);
        }
    }
    // θ_T(k) ≻ θ_sb(y) first at p2.
    for q in 0..=p2 {
        let d = sub(sched(t, kc, q), sched(s2, yb, q));
        if q < p2 {
            b.eqs.push(d);
        } else {
            let mut d = d;
            d[width - 1] -= 1;
            b.ineqs.push(d);
        }
    }
    let last = width - 1;
    for r in b.eqs.iter().chain(&b.ineqs) {
        if r[..last].iter().all(|v| *v == 0) {
            let bad = if b.eqs.contains(r) {
                r[last] != 0
            } else {
                r[last] < 0
            };
            if bad {
                return Ok(None);
            }
        }
    }
    // The parameter values the set is for.
    for (q, v) in fixed.unwrap_or_default().iter().enumerate() {
        let mut r = vec![0; width];
        r[q] = 1;
        r[width - 1] = -v;
        b.eqs.push(r);
    }
    // What is known of the parameters.
    let ctx = &scop.context;
    if ctx.n_exist == 0 {
        for (rows, is_eq) in [(&ctx.eqs, true), (&ctx.ineqs, false)] {
            for row in rows {
                let mut r = vec![0; width];
                r[..np].copy_from_slice(&row[..np]);
                r[width - 1] = row[row.len() - 1];
                if is_eq {
                    b.eqs.push(r);
                } else {
                    b.ineqs.push(r);
                }
            }
        }
    }
    // Simplified (one LP per inequality) by the caller, once it is known
    // to be non-empty: most pieces are empty.
    Ok(Some(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend;
    use crate::poly::basic::eval_row;

    /// The only piece of an isl set text.
    fn parse_piece(t: &str) -> BasicSet {
        crate::poly::isl_parse::parse_set(t).unwrap().pieces[0].clone()
    }

    /// The integer points of a 2-d piece in the square `[lo, hi)²`.
    fn points_in(p: &BasicSet, lo: i64, hi: i64) -> Vec<(i64, i64)> {
        let mut v = Vec::new();
        for x in lo..hi {
            for y in lo..hi {
                if crate::poly::brute::satisfies(p, &[x, y]) {
                    v.push((x, y));
                }
            }
        }
        v
    }

    #[test]
    fn redundant_conflict_pieces_are_dropped_or_merged_and_the_union_is_kept() {
        let parse = parse_piece;
        let a = parse("{ [x, y] : 0 <= x <= 10 and y = x }");
        // Inside a (after eliminating e: x = e + 1, 3 <= e <= 5).
        let b = parse("{ [x, y] : exists (e : x = e + 1 and 3 <= e <= 5 and y = x) }");
        // Equal to a: the first of the two is kept.
        let c = parse("{ [x, y] : y = x and x >= 0 and 10 - x >= 0 }");
        // Partly outside a; a ∪ d is convex, so they become one piece.
        let d = parse("{ [x, y] : 8 <= x <= 12 and y = x }");
        // Even x only: its existential stays, so it is never compared.
        let e = parse("{ [x, y] : exists (k : x = 2k and 0 <= x <= 4 and y = x) }");
        let kept = without_redundant_pieces(vec![a, b, c, d, e], None).unwrap();
        assert_eq!(kept.len(), 2, "{kept:?}");
        assert_eq!(kept.iter().filter(|p| p.n_exist > 0).count(), 1);
        // Same union, point by point: x = y in 0..=12 (the piece with an
        // existential lies inside a, so the others must cover everything).
        for x in -2..15i64 {
            for y in -2..15i64 {
                let inside = kept
                    .iter()
                    .filter(|p| p.n_exist == 0)
                    .any(|p| crate::poly::brute::satisfies(p, &[x, y]));
                assert_eq!(inside, x == y && (0..=12).contains(&x), "({x}, {y})");
            }
        }
    }

    /// `rationally_within(a, b)` against point enumeration on random
    /// triangles and boxes: when it says yes, every integer point of `a`
    /// is in `b` (the direction dropping a piece relies on), and for boxes
    /// (whose vertices are integral) it says yes exactly then.
    #[test]
    fn rational_containment_implies_integer_containment() {
        let parse = parse_piece;
        let points = |p: &BasicSet| points_in(p, -8, 9);
        let mut seed: u64 = 3;
        let mut next = |lo: i64, hi: i64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            lo + ((seed >> 33) % (hi - lo + 1) as u64) as i64
        };
        let (mut yes, mut no) = (0, 0);
        // A box [x0, x0 + w] x [y0, y0 + h], or the triangle x >= x0,
        // y >= y0, c1·x + c2·y <= c1·x0 + c2·y0 + r.
        let shape = |boxed: bool, v: [i64; 6]| {
            let [x0, y0, w, h, c1, c2] = v;
            if boxed {
                parse(&format!(
                    "{{ [x, y] : {x0} <= x <= {} and {y0} <= y <= {} }}",
                    x0 + w,
                    y0 + h
                ))
            } else {
                parse(&format!(
                    "{{ [x, y] : x >= {x0} and y >= {y0} and {c1}x + {c2}y <= {} }}",
                    c1 * x0 + c2 * y0 + w + h
                ))
            }
        };
        // Corner, width, height and the triangle's slopes.
        let random_shape = |next: &mut dyn FnMut(i64, i64) -> i64| {
            [
                next(-6, 3),
                next(-6, 3),
                next(0, 4),
                next(0, 4),
                next(1, 3),
                next(1, 3),
            ]
        };
        for round in 0..300 {
            let boxed = round % 2 == 0;
            let va = random_shape(&mut next);
            // b: a moved or grown a little (often containing a), or anything.
            let vb = if round % 3 == 2 {
                random_shape(&mut next)
            } else {
                let (dx, dy) = (next(-1, 1), next(-1, 1));
                [
                    va[0] + dx,
                    va[1] + dy,
                    (va[2] - dx + next(-1, 2)).max(0),
                    (va[3] - dy + next(-1, 2)).max(0),
                    va[4],
                    va[5],
                ]
            };
            let (a, b) = (shape(boxed, va), shape(boxed, vb));
            let within = rationally_within(&a, &b).unwrap();
            let pa = points(&a);
            let pb = points(&b);
            let subset = pa.iter().all(|p| pb.contains(p));
            if within {
                assert!(subset, "{a:?} {b:?}");
                yes += 1;
            } else {
                no += 1;
            }
            if boxed {
                assert_eq!(within, subset, "{a:?} {b:?}");
            }
        }
        assert!(yes > 10 && no > 10, "{yes} {no}");
    }

    #[test]
    fn convex_unions_are_merged_and_others_are_not() {
        let parse = parse_piece;
        let points = |p: &BasicSet| points_in(p, -3, 12);
        // Adjacent boxes: one box.
        let a = parse("{ [x, y] : 0 <= x <= 3 and 0 <= y <= 2 }");
        let b = parse("{ [x, y] : 4 <= x <= 7 and 0 <= y <= 2 }");
        let m = convex_union(&a, &b).unwrap().expect("a convex union");
        let mut expected = points(&a);
        expected.extend(points(&b));
        expected.sort();
        assert_eq!(points(&m), expected);
        // pingpong1d's two pieces: y <= x <= 9 and y + 1 <= x <= 10 (with
        // 1 <= y): their hull also holds (10, 10), which neither does.
        let c = parse("{ [x, y] : y >= 1 and x >= y and x <= 9 }");
        let d = parse("{ [x, y] : y >= 1 and x >= y + 1 and x <= 10 }");
        assert!(convex_union(&c, &d).unwrap().is_none());
        // Boxes with a gap.
        let e = parse("{ [x, y] : 6 <= x <= 7 and 0 <= y <= 2 }");
        assert!(convex_union(&a, &e).unwrap().is_none());
    }

    /// Compares the dataflow of every read with the brute-force last
    /// writer, for the given parameter values; returns the number of read
    /// operations checked.
    fn check_program(name: &str, source: &str, value: i64) -> usize {
        let program = frontend::extract(name, source, &frontend::Options::default());
        assert!(!program.has_errors(), "{name} parses");
        let mut checked = 0;
        let mut from_writes = 0;
        for scop in &program.scops {
            let flow = compute_dataflow(scop).expect("dataflow");
            assert!(flow.exact(), "{name}: dataflow exact");
            let params: Vec<i64> = scop.params.iter().map(|_| value).collect();
            let truth = brute_sources(scop, &params).expect("brute force");
            for ((si, ri, iters), src) in truth {
                let r = flow
                    .reads
                    .iter()
                    .find(|r| r.stmt == si && r.read == ri)
                    .expect("read");
                let got = r.source_at(scop, &params, &iters).expect("eval");
                assert_eq!(
                    got, src,
                    "{name}: {} read {ri} at {iters:?}",
                    scop.stmts[si].name
                );
                // The disjoint pieces (what the printer shows) agree: at
                // most one contains the point, and it gives the source.
                let pieces = source_pieces(scop, r).expect("pieces").expect("exact");
                let mut point = params.clone();
                point.extend_from_slice(&iters);
                let bx = crate::poly::brute::BruteBox::new(0, 0, -64, 64);
                let hits: Vec<Source> = pieces
                    .iter()
                    .filter(|p| {
                        p.region
                            .pieces
                            .iter()
                            .any(|b| crate::poly::brute::basic_contains(b, &point, &bx))
                    })
                    .map(|p| Source::Write {
                        stmt: p.writer,
                        iters: p
                            .iters
                            .iter()
                            .map(|row| eval_row(row, &point).expect("eval"))
                            .collect(),
                    })
                    .collect();
                match &src {
                    Source::Initial => assert!(hits.is_empty(), "{name}: {hits:?}"),
                    w => assert_eq!(hits, vec![w.clone()], "{name}: pieces at {iters:?}"),
                }
                checked += 1;
                if matches!(got, Source::Write { .. }) {
                    from_writes += 1;
                }
            }
            let text = print_dataflow(scop, &flow).expect("print");
            assert_eq!(text.contains("read"), !flow.reads.is_empty());
            if std::env::var_os("POLYFOLD_PRINT_DATAFLOW").is_some() {
                println!("{name}:\n{text}");
            }
        }
        assert!(
            from_writes > 0 && from_writes < checked,
            "{name}: both kinds of source"
        );
        checked
    }

    fn corpus(file: &str) -> String {
        let path = format!("{}/corpus/{file}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&path).expect("corpus file")
    }

    #[test]
    fn corpus_kernels_match_brute_force() {
        for (file, value) in [
            ("pingpong1d.c", 5),
            ("jacobi2d_smoothing.c", 5),
            ("durbin.c", 6),
        ] {
            let n = check_program(file, &corpus(file), value);
            assert!(n > 20, "{file}: only {n} reads checked");
        }
    }

    #[test]
    fn hand_made_kernels_match_brute_force() {
        let cases = [
            // Overwrites in the same loop, a decreasing loop, a read of a
            // cell written two statements ago, and an initial value.
            "void f(int N, double *out) {\n double A[100], B[100];\n int i, j;\n\
             #pragma scop\n for (i = 0; i < N; i++) A[i] = i;\n\
             for (i = N - 1; i >= 1; i--) A[i] = A[i - 1] + A[i];\n\
             for (i = 0; i < N; i++) for (j = 0; j <= i; j++) B[j] = A[i] + B[j];\n\
             for (i = 0; i < N; i++) out[i] = B[i] + A[2 * i];\n\
             #pragma endscop\n}\n",
            "void g(int N, double *out) {\n double s[10]; int t, i;\n\
             #pragma scop\n for (t = 0; t < N; t++) for (i = 0; i < 3; i++) s[i] = s[2 - i] + t;\n\
             for (i = 0; i < 3; i++) out[i] = s[i];\n #pragma endscop\n}\n",
        ];
        for (k, src) in cases.iter().enumerate() {
            let n = check_program(&format!("case{k}.c"), src, 5);
            assert!(n > 10, "case {k}: only {n} reads checked");
        }
    }

    /// Brute-force value lifetimes for fixed parameters: every value
    /// (writer statement, iterators) with its write position and last read
    /// position in the sorted operation list.
    fn brute_lifetimes(
        scop: &Scop,
        params: &[i64],
    ) -> std::collections::HashMap<(usize, Vec<i64>), (usize, Option<usize>)> {
        use crate::poly::Budget;
        use crate::poly::basic::eval_row;
        use crate::verify::enumerate::integer_points;
        let np = scop.params.len();
        let len = max_schedule_len(scop);
        let mut ops = Vec::new();
        for (si, s) in scop.stmts.iter().enumerate() {
            for piece in &s.domain.pieces {
                for it in integer_points(piece, params, &mut Budget::default_query()).expect("pts")
                {
                    ops.push((schedule_at(scop, si, &it, params, len), si, it));
                }
            }
        }
        ops.sort();
        ops.dedup();
        let mut last: std::collections::HashMap<(u32, Vec<i64>), (usize, Vec<i64>)> =
            Default::default();
        let mut life: std::collections::HashMap<(usize, Vec<i64>), (usize, Option<usize>)> =
            Default::default();
        for (pos, (_, si, it)) in ops.iter().enumerate() {
            let s = &scop.stmts[*si];
            let mut full = params.to_vec();
            full.extend_from_slice(it);
            let width = np + it.len() + 1;
            let cell = |a: &crate::ir::Access| -> Vec<i64> {
                a.subscripts
                    .iter()
                    .map(|e| eval_row(&aff_row(e, width), &full).expect("eval"))
                    .collect()
            };
            for r in &s.reads {
                if let Some(v) = last.get(&(r.array.0, cell(r)))
                    && let Some(l) = life.get_mut(v)
                {
                    l.1 = Some(pos);
                }
            }
            let v = (*si, it.clone());
            last.insert((s.write.array.0, cell(&s.write)), v.clone());
            life.insert(v, (pos, None));
        }
        life
    }

    #[test]
    fn pingpong_conflicts_are_exact_value_lifetimes_and_smo_folds_them() {
        use crate::mapping::smo::{SmoOptions, SmoVerdict, certify_fixed, smo_solve};
        use crate::poly::brute::{BruteBox, basic_contains};
        let program = frontend::extract(
            "pingpong1d.c",
            &corpus("pingpong1d.c"),
            &frontend::Options::default(),
        );
        let scop = &program.scops[0];
        let flow = compute_dataflow(scop).expect("dataflow");
        // The statements writing P and Q.
        let temps: Vec<usize> = scop
            .stmts
            .iter()
            .enumerate()
            .filter(|(_, s)| {
                let name = &scop.array(s.write.array).name;
                name == "P" || name == "Q"
            })
            .map(|(i, _)| i)
            .collect();
        assert_eq!(temps.len(), 3);
        let spec = global_conflicts(scop, &flow, &temps)
            .expect("no error")
            .expect("exact");
        // Same structure as the published heat1d specification: intra
        // conflicts of the compute and copy statements and inter conflicts
        // both ways between them.
        let has = |a: usize, b: usize| {
            spec.conflicts
                .iter()
                .any(|k| k.source.0 == a && k.target.0 == b)
        };
        assert!(has(1, 1) && has(2, 2) && has(1, 2) && has(2, 1));
        // Exactness against brute-force lifetimes, for N = 4, T = 3.
        let names = scop.param_names();
        let params: Vec<i64> = names.iter().map(|n| if n == "N" { 4 } else { 3 }).collect();
        let life = brute_lifetimes(scop, &params);
        type Life = (usize, Option<usize>);
        let values: Vec<(&(usize, Vec<i64>), &Life)> =
            life.iter().filter(|(v, _)| temps.contains(&v.0)).collect();
        let bx = BruteBox::new(0, 0, -1, 6);
        let cell = |v: &(usize, Vec<i64>)| -> Vec<i64> {
            let j = temps.iter().position(|t| *t == v.0).expect("temp") as i64;
            let mut c = vec![j];
            c.extend_from_slice(&v.1);
            c.resize(spec.n_dim, 0);
            c
        };
        let mut n_conflicts = 0;
        for (a, la) in &values {
            for (b, lb) in &values {
                // b written after a, and a read after b's write.
                let truth = la.0 < lb.0 && la.1.is_some_and(|r| r > lb.0);
                let mut point = params.clone();
                point.extend(cell(a));
                point.extend(cell(b));
                let ja = temps.iter().position(|t| *t == a.0).expect("temp");
                let jb = temps.iter().position(|t| *t == b.0).expect("temp");
                let in_spec = spec.conflicts.iter().any(|k| {
                    k.source.0 == ja
                        && k.target.0 == jb
                        && k.relation
                            .pieces
                            .iter()
                            .any(|p| basic_contains(p, &point, &bx))
                });
                assert_eq!(in_spec, truth, "values {a:?} and {b:?}");
                n_conflicts += truth as usize;
            }
        }
        assert!(n_conflicts > 20);
        // The SMO engine runs on it and its mapping is certified.
        let sol = smo_solve(&spec, &SmoOptions::default())
            .expect("no error")
            .expect("a mapping");
        assert_eq!(certify_fixed(&spec, &sol, &params), SmoVerdict::Valid);
        let size = sol.size(&params).expect("size");
        println!(
            "pingpong1d SMO size at N = 4, T = 3: {size}; {:?}",
            sol.arrays
        );
        // Lower bound: at the start of a step N + 2 values of Q are live.
        assert!(size >= 6);
    }
}
