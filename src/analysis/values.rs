//! Value lifetimes and the cell conflicts they give (seeds 000 and 002:
//! SMO, GeCoS), the main path of the lifetime analysis.
//!
//! A value lives from its write to the last read that sees it (the
//! exact last-writer dataflow of [`super::dataflow`]); a write nobody
//! reads dies at once. Two cells `c` and `c'` conflict when a value of
//! one is live while the other is written: some write `w` of `c`, a later
//! write `w'` of `c'` (`w ≺ w'`), and a read `r` whose source is `w`
//! after it (`w' ≺ r`), or the same with `c` and `c'` swapped. Every
//! overlap of two lifetimes is of that form (the one that starts later
//! starts inside the other), and a dead write still clobbers the cell it
//! writes: `w'` ranges over every write, read or not. Inside one
//! operation the reads come before the write, so a value read for the
//! last time by the operation that writes the other cell does not
//! conflict with it (an accumulation folds to one cell).
//!
//! Unlike cell lifetimes ([`super::cells`]), this sees that a scratch
//! array an enclosing loop rewrites in every iteration holds its values
//! for one iteration only.
//!
//! Like [`super::cells::compute_cell_conflicts`] for a temporary, it
//! leaves live-in values out (the pipeline refuses an array with a cell
//! live-in for the values it proves for) and it has no live-out values
//! (temporaries have none). Parallel loops add the same pieces as for
//! cell lifetimes: two cells touched in distinct iterations of one
//! instance of a parallel loop conflict.
//!
//! What this module does NOT do: approximate. When a read's last writer
//! is not exact (a lexmax that is not, a source that is not affine), it
//! answers why, and the caller falls back to cell lifetimes, a superset.

use crate::ir::{AffExpr, ArrayId, SchedEntry, Scop, Stmt};
use crate::poly::project::eliminate_exists_where_exact;
use crate::poly::simplex::integer_point;
use crate::poly::{BasicSet, Budget, PolyError, PolyResult};

use super::cells::{
    CellConflicts, ConflictPiece, Precedence, conflict_space, parallel_pieces, swap_cells,
};
use super::dataflow::{SourcePiece, may_first_differ, read_dataflow, source_pieces};
use super::model::ArrayModel;

/// Which lifetimes the conflicts of an array come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lifetimes {
    /// Value lifetimes: exact.
    Values,
    /// Cell lifetimes (a superset), because value lifetimes could not be
    /// made exact: why.
    Cells(String),
}

/// The conflicts of `array` of `scop` (its model `model`): from value
/// lifetimes where the dataflow of its reads is exact, else from cell
/// lifetimes, with which one it is.
pub fn array_conflicts(
    scop: &Scop,
    array: ArrayId,
    model: &ArrayModel,
    budget: &mut Budget,
) -> PolyResult<(CellConflicts, Lifetimes)> {
    let (mut conflicts, lifetimes) = match value_conflicts(scop, array, model, budget)? {
        Ok(conflicts) => (conflicts, Lifetimes::Values),
        Err(why) => {
            let conflicts = super::cells::compute_cell_conflicts(model, &[], budget)?;
            (conflicts, Lifetimes::Cells(why))
        }
    };
    for piece in &mut conflicts.pieces {
        within_extents(scop, array, &mut piece.set);
    }
    Ok((conflicts, lifetimes))
}

/// The dimensions of `array` whose subscripts C keeps within the declared
/// extent (see [`within_extents`]), with the extent over the parameters.
fn bounded_extents(scop: &Scop, array: ArrayId) -> Vec<(usize, &AffExpr)> {
    let a = scop.array(array);
    if a.facts.extent_written.is_some() {
        return Vec::new();
    }
    let np = scop.params.len();
    let first = usize::from(a.facts.storage == crate::ir::Storage::FunctionParam);
    a.extents
        .iter()
        .enumerate()
        .skip(first)
        .filter_map(|(p, e)| e.aff.as_ref().map(|aff| (p, aff)))
        .filter(|(_, aff)| aff.coeffs.len() <= np)
        .collect()
}

/// Restricts every event of `model` (the accesses of `array`) to the
/// instances whose subscripts lie within the declared extents, as
/// [`within_extents`] does for the cells of a conflict: the proofs of a
/// layout then know that a subscript stays below its extent (`p[i][j]`,
/// `j < n - 1`, inside `p[N][N]` whatever `n` is).
pub fn assume_in_bounds(scop: &Scop, array: ArrayId, model: &mut ArrayModel) {
    let np = scop.params.len();
    for (p, aff) in bounded_extents(scop, array) {
        let Some(k) = aff.constant.checked_sub(1) else {
            continue;
        };
        for event in &mut model.events {
            let Some(sub) = event.subscripts.get(p) else {
                continue;
            };
            let mut high: Vec<i64> = sub.iter().map(|v| -v).collect();
            for (h, c) in high.iter_mut().zip(&aff.coeffs[..np.min(aff.coeffs.len())]) {
                *h += c;
            }
            let last = high.len() - 1;
            high[last] += k;
            let low = sub.clone();
            event.domain.add_ineq(low);
            event.domain.add_ineq(high);
        }
    }
}

/// Adds to a set over the conflict space that both cells lie within the
/// array's declared extents, where C makes an access outside them
/// undefined: every extent of an array the function declares (a local, a
/// heap buffer sized by its allocation), every extent but the first of a
/// parameter (C reads the first as a pointer), none whose variable
/// changes after the declaration. The whole model already assumes it: it
/// tells cells apart by their subscripts, dimension by dimension. It
/// matters where the sizes are unknown: a row of `p[N][N]` indexed up to
/// a parameter `n` stays inside `N`, so `N` may be its modulus.
fn within_extents(scop: &Scop, array: ArrayId, set: &mut BasicSet) {
    let np = scop.params.len();
    let rank = scop.array(array).extents.len();
    for (p, aff) in bounded_extents(scop, array) {
        for cell in [np + p, np + rank + p] {
            let mut low = set.zero_row();
            low[cell] = 1;
            set.add_ineq(low);
            // extent - 1 - c >= 0
            let mut high = set.zero_row();
            high[..aff.coeffs.len()].copy_from_slice(&aff.coeffs);
            high[cell] = -1;
            let last = high.len() - 1;
            let Some(k) = aff.constant.checked_sub(1) else {
                return;
            };
            high[last] = k;
            set.add_ineq(high);
        }
    }
}

/// A reading statement and the exact source pieces of one of its reads.
type ReadSources = (usize, Vec<SourcePiece>);

/// The reads of `array` in `scop` with their exact source pieces, or why
/// some source is not exact.
fn exact_sources(scop: &Scop, array: ArrayId) -> PolyResult<Result<Vec<ReadSources>, String>> {
    let name = &scop.array(array).name;
    let mut out = Vec::new();
    for (ti, t) in scop.stmts.iter().enumerate() {
        for (ri, read) in t.reads.iter().enumerate() {
            if read.array != array {
                continue;
            }
            let flow = read_dataflow(scop, ti, ri, array)?;
            let Some(pieces) = source_pieces(scop, &flow)? else {
                return Ok(Err(format!(
                    "the last write of `{name}` that {} reads is not exact",
                    t.name
                )));
            };
            for p in &pieces {
                if p.iters.len() != scop.stmts[p.writer].iterators.len() {
                    return Ok(Err(format!(
                        "the source of a read of `{name}` in {} is not affine",
                        t.name
                    )));
                }
            }
            out.push((ti, pieces));
        }
    }
    Ok(Ok(out))
}

/// The conflicts of `array` from value lifetimes; `Err(why)` when some
/// read's last writer is not exact.
pub fn value_conflicts(
    scop: &Scop,
    array: ArrayId,
    model: &ArrayModel,
    budget: &mut Budget,
) -> PolyResult<Result<CellConflicts, String>> {
    let reads = match exact_sources(scop, array)? {
        Ok(r) => r,
        Err(why) => return Ok(Err(why)),
    };
    let writers: Vec<usize> = (0..scop.stmts.len())
        .filter(|s| scop.stmts[*s].write.array == array)
        .collect();
    let mut forward: Vec<(Precedence, BasicSet)> = Vec::new();
    for (ti, pieces) in &reads {
        for sp in pieces {
            for wp in &sp.region.pieces {
                for &s2 in &writers {
                    for dp2 in &scop.stmts[s2].domain.pieces {
                        let overlap = Overlap {
                            read: (*ti, wp),
                            source: sp,
                            overwrite: (s2, dp2),
                        };
                        overlap.pieces(scop, model, budget, &mut forward)?;
                    }
                }
            }
        }
    }
    let mut pieces: Vec<ConflictPiece> = Vec::new();
    for (p, set) in forward {
        let mirror = swap_cells(&set)?;
        for s in [set, mirror] {
            if !pieces.iter().any(|q| q.set == s) {
                pieces.push(ConflictPiece {
                    forward: p,
                    backward: p,
                    set: s,
                });
            }
        }
    }
    parallel_pieces(model, budget, &mut pieces)?;
    Ok(Ok(CellConflicts {
        array: model.name.clone(),
        rank: model.rank,
        params: model.params.clone(),
        pieces,
    }))
}

/// A value written by `source.writer` and read by statement `read.0` in
/// the region piece `read.1`, overwritten in between by statement
/// `overwrite.0` (one domain piece).
struct Overlap<'a> {
    read: (usize, &'a BasicSet),
    source: &'a SourcePiece,
    overwrite: (usize, &'a BasicSet),
}

impl Overlap<'_> {
    /// Adds to `out` the non-empty polyhedra `{ c -> c' }` of this
    /// overlap, one per pair of schedule levels.
    fn pieces(
        &self,
        scop: &Scop,
        model: &ArrayModel,
        budget: &mut Budget,
        out: &mut Vec<(Precedence, BasicSet)>,
    ) -> PolyResult<()> {
        let (s, s2, t) = (
            &scop.stmts[self.source.writer],
            &scop.stmts[self.overwrite.0],
            &scop.stmts[self.read.0],
        );
        let len = s
            .schedule
            .len()
            .max(s2.schedule.len())
            .max(t.schedule.len());
        for p1 in (0..len).filter(|p| may_first_differ(s, s2, *p)) {
            for p2 in (0..len).filter(|p| may_first_differ(s2, t, *p)) {
                let set = self.piece(scop, model, (p1, p2))?;
                let set = eliminate_exists_where_exact(&set)?;
                if set.is_obviously_empty() || integer_point(&set, budget)?.is_none() {
                    continue;
                }
                if out.iter().any(|(_, known)| *known == set) {
                    continue;
                }
                let why = Precedence::Value {
                    writer: self.source.writer,
                    overwriter: self.overwrite.0,
                    reader: self.read.0,
                };
                out.push((why, set));
            }
        }
        Ok(())
    }

    /// The polyhedron over `[params | c | c' | r | e_r | w' | e_w' |
    /// constant]`: `r` in the read's region piece, its source `w =
    /// iters(r)` writes `c`, `w'` in the overwriter's domain piece writes
    /// `c'`, `θ(w) ≺ θ(w')` first at `levels.0` and `θ(w') ≺ θ(r)` first
    /// at `levels.1`.
    fn piece(
        &self,
        scop: &Scop,
        model: &ArrayModel,
        (p1, p2): (usize, usize),
    ) -> PolyResult<BasicSet> {
        let np = scop.params.len();
        let rank = model.rank;
        let (t, region) = (&scop.stmts[self.read.0], self.read.1);
        let (s2, dom2) = (&scop.stmts[self.overwrite.0], self.overwrite.1);
        let s = &scop.stmts[self.source.writer];
        let nt = t.iterators.len();
        let n2 = s2.iterators.len();
        let mut set = BasicSet::universe(conflict_space(model));
        let r_col = set.width() - 1;
        for _ in 0..(nt + region.n_exist + n2 + dom2.n_exist) {
            set.add_exist();
        }
        let w2_col = r_col + nt + region.n_exist;
        let width = set.width();
        // A row over a piece's `[params | dims | exists | constant]` with
        // its dims and existentials from column `at`.
        let place = |row: &[i64], at: usize| -> Vec<i64> {
            let mut out = vec![0; width];
            out[..np].copy_from_slice(&row[..np]);
            let locals = &row[np..row.len() - 1];
            out[at..at + locals.len()].copy_from_slice(locals);
            out[width - 1] = row[row.len() - 1];
            out
        };
        for (rows, eq) in [(&region.eqs, true), (&region.ineqs, false)] {
            for row in rows {
                push(&mut set, place(row, r_col), eq);
            }
        }
        for (rows, eq) in [(&dom2.eqs, true), (&dom2.ineqs, false)] {
            for row in rows {
                push(&mut set, place(row, w2_col), eq);
            }
        }
        // The source's iterators as rows over [params | r | constant],
        // then the builder's columns.
        let iters: Vec<Vec<i64>> = self
            .source
            .iters
            .iter()
            .map(|row| place_r(row, np, nt, r_col, width))
            .collect();
        // A row over [params | iterators | constant] of a statement whose
        // iterators sit at column `at`.
        let at_iters = |expr: &AffExpr, at: usize| -> Vec<i64> {
            let mut out = vec![0; width];
            for (k, v) in expr.coeffs.iter().enumerate() {
                if k < np {
                    out[k] = *v;
                } else {
                    out[at + k - np] = *v;
                }
            }
            out[width - 1] = expr.constant;
            out
        };
        for p in 0..rank {
            // c = subscripts of the source's write at iters(r).
            let mut r = composed(&s.write.subscripts[p], &iters, np, width)?;
            r[np + p] -= 1;
            set.add_eq(r);
            // c' = subscripts of the overwriter's write at w'.
            let mut r = at_iters(&s2.write.subscripts[p], w2_col);
            r[np + rank + p] -= 1;
            set.add_eq(r);
        }
        let theta_w = schedule_of(s, |index| Some(iters[index].clone()), width)?;
        let unit = |col: usize| {
            let mut r = vec![0; width];
            r[col] = 1;
            r
        };
        let theta_w2 = schedule_of(s2, |index| Some(unit(w2_col + index)), width)?;
        let theta_r = schedule_of(t, |index| Some(unit(r_col + index)), width)?;
        strictly_before(&mut set, &theta_w, &theta_w2, p1)?;
        strictly_before(&mut set, &theta_w2, &theta_r, p2)?;
        Ok(set)
    }
}

fn push(set: &mut BasicSet, row: Vec<i64>, eq: bool) {
    if eq {
        set.add_eq(row);
    } else {
        set.add_ineq(row);
    }
}

/// A row over `[params | r (nt) | constant]` placed with `r` at column
/// `r_col` of a row of `width`.
fn place_r(row: &[i64], np: usize, nt: usize, r_col: usize, width: usize) -> Vec<i64> {
    let mut out = vec![0; width];
    out[..np].copy_from_slice(&row[..np]);
    out[r_col..r_col + nt].copy_from_slice(&row[np..np + nt]);
    out[width - 1] = row[np + nt];
    out
}

/// `expr` (over `[params | iterators]`) at iterators given as rows of
/// `width`, with checked arithmetic.
fn composed(expr: &AffExpr, iters: &[Vec<i64>], np: usize, width: usize) -> PolyResult<Vec<i64>> {
    let mut out = vec![0i64; width];
    out[width - 1] = expr.constant;
    for (k, v) in expr.coeffs.iter().enumerate() {
        if *v == 0 {
            continue;
        }
        if k < np {
            out[k] = out[k].checked_add(*v).ok_or(PolyError::Overflow)?;
            continue;
        }
        let row = iters.get(k - np).ok_or(PolyError::Overflow)?;
        for (o, x) in out.iter_mut().zip(row) {
            let term = x.checked_mul(*v).ok_or(PolyError::Overflow)?;
            *o = o.checked_add(term).ok_or(PolyError::Overflow)?;
        }
    }
    Ok(out)
}

/// The 2d+1 schedule of `stmt` as rows of `width`, its iterator `k` the
/// row `iter(k)`.
fn schedule_of(
    stmt: &Stmt,
    iter: impl Fn(usize) -> Option<Vec<i64>>,
    width: usize,
) -> PolyResult<Vec<Vec<i64>>> {
    let mut rows = Vec::with_capacity(stmt.schedule.len());
    for entry in &stmt.schedule {
        let row = match *entry {
            SchedEntry::Const(c) => {
                let mut r = vec![0; width];
                r[width - 1] = c;
                r
            }
            SchedEntry::Iter { index, sign } => {
                let r = iter(index).ok_or(PolyError::Overflow)?;
                r.iter()
                    .map(|v| v.checked_mul(sign).ok_or(PolyError::Overflow))
                    .collect::<PolyResult<_>>()?
            }
        };
        rows.push(row);
    }
    Ok(rows)
}

/// Adds `before ≺ after`, first differing at `level` (missing entries 0).
fn strictly_before(
    set: &mut BasicSet,
    before: &[Vec<i64>],
    after: &[Vec<i64>],
    level: usize,
) -> PolyResult<()> {
    let width = set.width();
    let zero = vec![0; width];
    for j in 0..=level {
        let a = after.get(j).unwrap_or(&zero);
        let b = before.get(j).unwrap_or(&zero);
        let mut r: Vec<i64> = a
            .iter()
            .zip(b)
            .map(|(x, y)| x.checked_sub(*y).ok_or(PolyError::Overflow))
            .collect::<PolyResult<_>>()?;
        if j < level {
            set.add_eq(r);
        } else {
            r[width - 1] = r[width - 1].checked_sub(1).ok_or(PolyError::Overflow)?;
            set.add_ineq(r);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use super::*;
    use crate::analysis::build::{aff_row, array_model};
    use crate::poly::basic::eval_row;
    use crate::poly::enumerate::integer_points;

    type Cell = Vec<i64>;

    /// Brute force, independent of the dataflow: runs the operations of
    /// `scop` in schedule order (the reads of an operation at time `2k`,
    /// its write at `2k + 1`), gives every write a value and every value
    /// the time of its last read, and returns the pairs of distinct cells
    /// of `array` whose values' lifetimes overlap (one written while the
    /// other is still to be read).
    fn brute_conflicts(scop: &Scop, array: ArrayId, params: &[i64]) -> BTreeSet<(Cell, Cell)> {
        let np = params.len();
        let mut budget = Budget::default_query();
        let mut ops: Vec<(Vec<i64>, usize, Vec<i64>)> = Vec::new();
        for (si, s) in scop.stmts.iter().enumerate() {
            let mut pts = BTreeSet::new();
            for piece in &s.domain.pieces {
                pts.extend(integer_points(piece, params, &mut budget).expect("points"));
            }
            for it in pts {
                let theta = crate::analysis::dataflow::schedule_at(scop, si, &it, params, 16);
                ops.push((theta, si, it));
            }
        }
        ops.sort();
        // Per value: its cell, write time and last read time.
        let mut values: Vec<(Cell, i64, Option<i64>)> = Vec::new();
        let mut current: BTreeMap<Cell, usize> = BTreeMap::new();
        for (k, (_, si, it)) in ops.iter().enumerate() {
            let s = &scop.stmts[*si];
            let mut point = params.to_vec();
            point.extend_from_slice(it);
            let width = np + it.len() + 1;
            let cell = |a: &crate::ir::Access| -> Cell {
                a.subscripts
                    .iter()
                    .map(|e| eval_row(&aff_row(e, width), &point).expect("eval"))
                    .collect()
            };
            let k = k as i64;
            for r in s.reads.iter().filter(|r| r.array == array) {
                if let Some(v) = current.get(&cell(r)) {
                    values[*v].2 = Some(2 * k);
                }
            }
            if s.write.array == array {
                let c = cell(&s.write);
                current.insert(c.clone(), values.len());
                values.push((c, 2 * k + 1, None));
            }
        }
        let mut out = BTreeSet::new();
        for (c, w, _) in &values {
            for (c2, w2, e2) in &values {
                // The value at c2 is still to be read when c is written.
                if c != c2 && w2 < w && e2.is_some_and(|e| *w < e) {
                    out.insert((c.clone(), c2.clone()));
                    out.insert((c2.clone(), c.clone()));
                }
            }
        }
        out
    }

    /// The conflicts of every array of `source`'s SCoP that some statement
    /// writes, from value lifetimes, against the brute force; returns the
    /// number of conflicting pairs per array.
    fn check(source: &str) -> Vec<(String, usize)> {
        let program =
            crate::frontend::extract("values.c", source, &crate::frontend::Options::default());
        assert!(!program.has_errors());
        let scop = &program.scops[0];
        let params = scop.param_values().expect("known sizes");
        let mut counts = Vec::new();
        for array in &scop.arrays {
            if !scop.stmts.iter().any(|s| s.write.array == array.id) {
                continue;
            }
            let model = array_model(scop, array.id);
            let mut budget = Budget::default_query();
            let conflicts = value_conflicts(scop, array.id, &model, &mut budget)
                .expect("no solver error")
                .expect("exact dataflow");
            let mut got = BTreeSet::new();
            for piece in &conflicts.pieces {
                for p in integer_points(&piece.set, &params, &mut budget).expect("points") {
                    let (c, c2) = p.split_at(model.rank);
                    if c != c2 {
                        got.insert((c.to_vec(), c2.to_vec()));
                    }
                }
            }
            let truth = brute_conflicts(scop, array.id, &params);
            assert_eq!(got, truth, "`{}`", array.name);
            counts.push((array.name.clone(), truth.len()));
        }
        counts
    }

    fn count(counts: &[(String, usize)], name: &str) -> usize {
        counts.iter().find(|(n, _)| n == name).expect("array").1
    }

    #[test]
    fn a_scratch_rewritten_every_time_step_holds_one_value_at_a_time() {
        let counts = check(
            "#define N 6\n#define T 3\ndouble a[N], b[N];\nvoid k(void) {\n  double tmp[N];\n  \
             for (int t = 0; t < T; t++)\n    for (int i = 0; i < N; i++) {\n      \
             tmp[i] = a[i] + t;\n      b[i] = tmp[i] * 2.0;\n    }\n}\n",
        );
        assert_eq!(count(&counts, "tmp"), 0);
    }

    #[test]
    fn a_producer_loop_then_a_consumer_loop_keeps_every_cell_live() {
        let counts = check(
            "#define N 5\n#define T 3\ndouble a[N], acc[N];\nvoid k(void) {\n  double tmp[N];\n  \
             for (int t = 0; t < T; t++) {\n    for (int i = 0; i < N; i++)\n      \
             tmp[i] = a[i] + t;\n    for (int i = 0; i < N; i++)\n      acc[i] += tmp[i];\n  }\n}\n",
        );
        // Every ordered pair of distinct cells: 5 * 4.
        assert_eq!(count(&counts, "tmp"), 20);
    }

    #[test]
    fn values_carried_across_time_steps_and_dead_writes_conflict_as_run() {
        // `tmp` carries each row to the next step; `dead` is written twice
        // per step and its first value is never read; `acc` accumulates.
        let counts = check(
            "#define N 4\n#define T 3\ndouble a[N], out[N];\nvoid k(void) {\n  \
             double tmp[N], dead[N], acc[N];\n  for (int i = 0; i < N; i++)\n    tmp[i] = a[i];\n  \
             for (int t = 0; t < T; t++) {\n    for (int i = 0; i < N; i++) {\n      \
             dead[i] = tmp[i];\n      dead[i] = tmp[i] * 2.0;\n      out[i] = dead[i];\n    }\n    \
             for (int i = 1; i < N; i++)\n      tmp[i] = tmp[i - 1] + out[i];\n  }\n  \
             acc[0] = 0.0;\n  for (int i = 1; i < N; i++)\n    acc[i] = acc[i - 1] + out[i];\n  \
             for (int i = 0; i < N; i++)\n    out[i] = acc[N - 1] + tmp[i];\n}\n",
        );
        assert!(count(&counts, "tmp") > 0);
        assert_eq!(count(&counts, "dead"), 0);
    }

    #[test]
    fn a_copy_back_stencil_under_a_time_loop() {
        let counts = check(
            "#define N 7\n#define T 3\ndouble a[N];\nvoid k(void) {\n  double b[N];\n  \
             for (int t = 0; t < T; t++) {\n    for (int i = 1; i < N - 1; i++)\n      \
             b[i] = a[i - 1] + a[i] + a[i + 1];\n    for (int i = 1; i < N - 1; i++)\n      \
             a[i] = b[i];\n  }\n}\n",
        );
        // Every value of `b` lives from the first loop to the copy.
        assert_eq!(count(&counts, "b"), 5 * 4);
    }

    #[test]
    fn the_plot_case_agrees_with_the_brute_force() {
        // tests/plot/small.c's kernel: `t[i][j]` is last read at
        // `(i + 1, j - 1)`, `u[i]` in its own iteration.
        let counts = check(
            "#define N 6\nvoid kernel(const double in[N][N], double out[N]) {\n  \
             double t[N][N], u[N];\n  int i, j;\n  for (j = 0; j < N; j++)\n    \
             t[0][j] = in[0][j];\n  for (i = 1; i < N; i++) {\n    t[i][0] = in[i][0];\n    \
             for (j = 1; j < N - 1; j++)\n      \
             t[i][j] = 0.5 * (t[i - 1][j + 1] + t[i][j - 1]) + in[i][j];\n    \
             t[i][N - 1] = t[i - 1][N - 1];\n  }\n  for (i = 0; i < N; i++) {\n    \
             u[i] = t[N - 1][i] * 2.0;\n    out[i] = u[i] + 1.0;\n  }\n}\n",
        );
        assert!(count(&counts, "t") > 0);
        assert_eq!(count(&counts, "u"), 0);
    }
}
