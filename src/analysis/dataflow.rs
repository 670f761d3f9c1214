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

pub(crate) fn signs_of(scop: &Scop, stmt: usize) -> Vec<i64> {
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
pub(crate) fn schedule_at(
    scop: &Scop,
    stmt: usize,
    iters: &[i64],
    params: &[i64],
    len: usize,
) -> Vec<i64> {
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

/// Whether an instance of `a` can precede one of `b` with their 2d+1
/// schedules first differing at position `p`, judged on the constant
/// entries only (a missing entry is 0): `false` when a constant entry
/// before `p` differs, or both entries at `p` are constants and `b`'s is
/// not larger. A cheap test that spares building (and solving) pieces
/// that are empty anyway.
pub(crate) fn may_first_differ(a: &crate::ir::Stmt, b: &crate::ir::Stmt, p: usize) -> bool {
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

pub(crate) fn max_schedule_len(scop: &Scop) -> usize {
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

pub(crate) fn read_dataflow(
    scop: &Scop,
    ti: usize,
    ri: usize,
    array: ArrayId,
) -> PolyResult<ReadDataflow> {
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
pub(crate) fn print_dataflow(scop: &Scop, flow: &Dataflow) -> Result<String, PolyError> {
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
pub(crate) type ReadInstance = (usize, usize, Vec<i64>);

/// Brute force (for tests and checks): runs the SCoP's operations in
/// schedule order for fixed parameters and records, for every read
/// operation `(stmt, read, iters)`, the last writer of the cell it reads.
pub fn brute_sources(scop: &Scop, params: &[i64]) -> PolyResult<Vec<(ReadInstance, Source)>> {
    use crate::poly::Budget;
    use crate::poly::basic::eval_row;
    use crate::poly::enumerate::integer_points;
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
pub(crate) struct SourcePiece {
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
pub(crate) fn source_pieces(scop: &Scop, r: &ReadDataflow) -> PolyResult<Option<Vec<SourcePiece>>> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend;
    use crate::poly::basic::eval_row;

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
}
