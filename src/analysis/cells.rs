//! Cell lifetimes and cell conflicts (after Bee, seed 001 §3, made sound).
//!
//! A cell `c` *occupies* its location from its first write to its last
//! access — read or write — and from the very start when it is live-in.
//! Cells `c`, `c'` conflict iff `B(c) ≺ E(c')` and `B(c') ≺ E(c)`. No lexmin
//! is needed: `B(c) ≺ E(c')` holds iff some write of `c` precedes some access
//! of `c'` (or `c` is live-in and `c'` is accessed at all), so the conflict
//! relation is a union of polyhedra whose iteration vectors are existential
//! variables. Nothing is projected with Fourier–Motzkin here, so every set
//! built is exact: the difference set DS = { c − c' } keeps the iteration
//! vectors and cells as existentials, and the solvers work on it directly.
//!
//! Events are ordered by the 2d+1 schedules; inside one operation the reads
//! come before the write, so a write never precedes an access of the same
//! operation. Seed 001 uses first write / last *read*; that ignores writes
//! that are never read and is unsound once DS is exact (DESIGN.md).
//!
//! What this module does not do: it does not compute which cells are
//! live-in (the caller passes them in), it does not handle live-out cells of
//! temporaries (a live-out array is external and is never remapped), and it
//! does not look at values (that is the dataflow module's job).

use crate::poly::{BasicSet, Space, Tuple};

use super::model::{
    AccessEvent, AccessKind, ArrayModel, add_strict_order, embed_constraints, embed_row,
};

/// Why a cell's occupancy starts before some access of another cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Precedence {
    /// A write (event `write`) precedes an access (event `access`), the
    /// schedules first differing at schedule level `level`.
    Ordered {
        write: usize,
        access: usize,
        level: usize,
    },
    /// The cell is live-in (piece `live_in` of the live-in set) and the other
    /// cell is accessed by event `access`.
    LiveIn { live_in: usize, access: usize },
    /// Event `first` accesses the cell and event `second` accesses the other
    /// one in two distinct iterations of the same instance of a parallel
    /// loop (its iterator at schedule level `level`, the outer iterators
    /// equal). The iterations are unordered, so each access may come before
    /// the other: the cells conflict whatever the sequential order says.
    Unordered {
        first: usize,
        second: usize,
        level: usize,
    },
    /// A value written by statement `writer` is still to be read by
    /// statement `reader` when statement `overwriter` writes the other
    /// cell (value lifetimes, [`super::values`]). Built there from the
    /// dataflow: the model alone cannot express it.
    Value {
        writer: usize,
        overwriter: usize,
        reader: usize,
    },
}

/// One polyhedron of the conflict relation, with how it arose.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConflictPiece {
    /// `c` begins before `c'` ends.
    pub forward: Precedence,
    /// `c'` begins before `c` ends.
    pub backward: Precedence,
    /// The relation `{ A[c] -> A[c'] }` with every iteration vector existential.
    pub set: BasicSet,
}

/// The conflict relation of one array and the recipes it was built from.
#[derive(Clone, Debug)]
pub struct CellConflicts {
    pub array: String,
    pub rank: usize,
    pub params: Vec<String>,
    pub pieces: Vec<ConflictPiece>,
}

/// Builds polyhedra over `[params | c | c' | existential blocks | constant]`.
struct PieceBuilder {
    set: BasicSet,
    n_param: usize,
    rank: usize,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    /// The domain tuple `c`.
    In,
    /// The range tuple `c'`.
    Out,
}

impl PieceBuilder {
    fn new(space: Space, rank: usize) -> PieceBuilder {
        let n_param = space.n_param();
        PieceBuilder {
            set: BasicSet::universe(space),
            n_param,
            rank,
        }
    }

    fn cell_col(&self, side: Side, p: usize) -> usize {
        match side {
            Side::In => self.n_param + p,
            Side::Out => self.n_param + self.rank + p,
        }
    }

    /// Adds `n` existential columns and returns the column of the first.
    fn add_block(&mut self, n: usize) -> usize {
        let first = self.set.width() - 1;
        for _ in 0..n {
            self.set.add_exist();
        }
        first
    }

    /// Embeds a row over `[params | locals | constant]` (a domain, schedule
    /// or subscript row of a piece whose locals sit at column `block`) into
    /// the builder's layout, multiplied by `sign`.
    fn embed(&self, row: &[i64], block: usize, sign: i64, out: &mut [i64]) {
        embed_row(row, self.n_param, block, sign, out);
    }

    /// Adds a copy of `domain`'s constraints on a fresh block; returns the block.
    fn add_domain(&mut self, domain: &BasicSet) -> usize {
        let n_local = domain.width() - 1 - self.n_param;
        let block = self.add_block(n_local);
        embed_constraints(&mut self.set, domain, self.n_param, block);
        block
    }

    /// `cell(side) = subscripts(event at block)`.
    fn bind_cell(&mut self, side: Side, event: &AccessEvent, block: usize) {
        for (p, sub) in event.subscripts.iter().enumerate() {
            let mut r = self.set.zero_row();
            self.embed(sub, block, -1, &mut r);
            r[self.cell_col(side, p)] += 1;
            self.set.add_eq(r);
        }
    }

    /// `schedule(w at bw)` strictly before `schedule(a at ba)`, first
    /// differing at `level`.
    fn order(&mut self, w: &AccessEvent, bw: usize, a: &AccessEvent, ba: usize, level: usize) {
        add_strict_order(&mut self.set, self.n_param, (w, bw), (a, ba), level);
    }

    /// Adds `live_in`'s constraints on `cell(side)` (its existentials on a
    /// fresh block).
    fn add_live_in(&mut self, side: Side, live_in: &BasicSet) {
        let n_exist = live_in.n_exist;
        let block = self.add_block(n_exist);
        let rank = self.rank;
        for (rows, is_eq) in [(&live_in.eqs, true), (&live_in.ineqs, false)] {
            for row in rows {
                let mut r = self.set.zero_row();
                for p in 0..self.n_param {
                    r[p] += row[p];
                }
                for d in 0..rank {
                    r[self.cell_col(side, d)] += row[self.n_param + d];
                }
                for e in 0..n_exist {
                    r[block + e] += row[self.n_param + rank + e];
                }
                let last = r.len() - 1;
                r[last] += row[row.len() - 1];
                if is_eq {
                    self.set.add_eq(r);
                } else {
                    self.set.add_ineq(r);
                }
            }
        }
    }

    /// Adds "cell(begin) begins before cell(end) ends" for `precedence`.
    fn add_precedence(
        &mut self,
        model: &ArrayModel,
        live_in: &[BasicSet],
        precedence: Precedence,
        begin: Side,
        end: Side,
    ) {
        match precedence {
            Precedence::Ordered {
                write,
                access,
                level,
            } => {
                let (w, a) = (&model.events[write], &model.events[access]);
                let bw = self.add_domain(&w.domain);
                self.bind_cell(begin, w, bw);
                let ba = self.add_domain(&a.domain);
                self.bind_cell(end, a, ba);
                self.order(w, bw, a, ba, level);
            }
            Precedence::LiveIn {
                live_in: piece,
                access,
            } => {
                self.add_live_in(begin, &live_in[piece]);
                let a = &model.events[access];
                let ba = self.add_domain(&a.domain);
                self.bind_cell(end, a, ba);
            }
            Precedence::Unordered {
                first,
                second,
                level,
            } => {
                let (f, g) = (&model.events[first], &model.events[second]);
                let bf = self.add_domain(&f.domain);
                self.bind_cell(begin, f, bf);
                let bg = self.add_domain(&g.domain);
                self.bind_cell(end, g, bg);
                // Same iterations of every loop outside the parallel one,
                // a different iteration of the parallel loop (one order; the
                // caller adds the mirror image).
                self.order(f, bf, g, bg, level);
            }
            // Never asked of the builder (`super::values` builds these
            // pieces): no constraint, the superset of every conflict.
            Precedence::Value { .. } => {}
        }
    }
}

/// The parallel loops (schedule levels) that events `a` and `b` share: both
/// are inside the loop (same constant schedule entries up to it).
pub(crate) fn shared_parallel_levels(a: &AccessEvent, b: &AccessEvent) -> Vec<usize> {
    a.parallel_levels
        .iter()
        .copied()
        .filter(|level| b.parallel_levels.contains(level))
        .filter(|&level| {
            (0..level).step_by(2).all(|j| {
                match (
                    constant_value(a.schedule.get(j)),
                    constant_value(b.schedule.get(j)),
                ) {
                    (Some(x), Some(y)) => x == y,
                    _ => false,
                }
            })
        })
        .collect()
}

/// Every pair of events that may touch two cells in distinct iterations of
/// one instance of a parallel loop, at least one of them a write (two reads
/// of cells written before the loop already conflict: both are live when
/// it starts).
pub(crate) fn unordered_pairs(model: &ArrayModel) -> Vec<Precedence> {
    let mut out = Vec::new();
    for (fi, f) in model.events.iter().enumerate() {
        for (gi, g) in model.events.iter().enumerate() {
            if f.kind != AccessKind::Write && g.kind != AccessKind::Write {
                continue;
            }
            for level in shared_parallel_levels(f, g) {
                out.push(Precedence::Unordered {
                    first: fi,
                    second: gi,
                    level,
                });
            }
        }
    }
    out
}

/// Whether the schedule rows at `level` of two events are both constant.
fn constant_value(row: Option<&Vec<i64>>) -> Option<i64> {
    match row {
        None => Some(0),
        Some(r) => {
            if r[..r.len() - 1].iter().all(|c| *c == 0) {
                Some(r[r.len() - 1])
            } else {
                None
            }
        }
    }
}

/// The levels at which `w`'s schedule can first fall strictly before `a`'s,
/// dropping the levels that constant schedule entries rule out.
pub(crate) fn feasible_levels(w: &AccessEvent, a: &AccessEvent) -> Vec<usize> {
    let depth = w.schedule.len().max(a.schedule.len());
    let mut levels = Vec::new();
    for level in 0..depth {
        let prefix_possible = (0..level).all(|j| {
            match (
                constant_value(w.schedule.get(j)),
                constant_value(a.schedule.get(j)),
            ) {
                (Some(x), Some(y)) => x == y,
                _ => true,
            }
        });
        if !prefix_possible {
            break;
        }
        let step_possible = match (
            constant_value(w.schedule.get(level)),
            constant_value(a.schedule.get(level)),
        ) {
            (Some(x), Some(y)) => x < y,
            _ => true,
        };
        if step_possible {
            levels.push(level);
        }
    }
    levels
}

/// Every way in which one cell's occupancy can begin before another's ends.
pub(crate) fn precedences(model: &ArrayModel, n_live_in: usize) -> Vec<Precedence> {
    let mut out = Vec::new();
    for (wi, w) in model.events.iter().enumerate() {
        if w.kind != AccessKind::Write {
            continue;
        }
        for (ai, a) in model.events.iter().enumerate() {
            for level in feasible_levels(w, a) {
                out.push(Precedence::Ordered {
                    write: wi,
                    access: ai,
                    level,
                });
            }
        }
    }
    for li in 0..n_live_in {
        for ai in 0..model.events.len() {
            out.push(Precedence::LiveIn {
                live_in: li,
                access: ai,
            });
        }
    }
    out
}

/// The relation space `{ A[c] -> A[c'] }` of `model`'s array.
pub(crate) fn conflict_space(model: &ArrayModel) -> Space {
    let dims_in: Vec<String> = (0..model.rank).map(|p| format!("c{p}")).collect();
    let dims_out: Vec<String> = (0..model.rank).map(|p| format!("c{p}'")).collect();
    Space::relation(
        model.params.clone(),
        Tuple {
            name: Some(model.name.clone()),
            dims: dims_in,
        },
        Tuple {
            name: Some(model.name.clone()),
            dims: dims_out,
        },
    )
}

/// The polyhedron "c begins before c' ends" for one precedence, over the
/// conflict space.
pub(crate) fn precedence_set(model: &ArrayModel, live_in: &[BasicSet], p: Precedence) -> BasicSet {
    let mut b = PieceBuilder::new(conflict_space(model), model.rank);
    b.add_precedence(model, live_in, p, Side::In, Side::Out);
    b.set
}

/// Turns a conflict polyhedron over `{ A[c] -> A[c'] }` into its difference
/// polyhedron `{ [d] : d = c - c' }`, with `c` and `c'` existential.
pub(crate) fn difference_piece(conflict: &BasicSet, rank: usize) -> BasicSet {
    let n_param = conflict.space.n_param();
    let dims: Vec<String> = (0..rank).map(|p| format!("d{p}")).collect();
    let space = Space::set(conflict.space.params.clone(), Tuple::anonymous(dims));
    // New layout: [params | d | c | c' | old existentials | constant].
    let n_old_exist = conflict.n_exist;
    let mut ds = BasicSet::universe(space);
    for _ in 0..(2 * rank + n_old_exist) {
        ds.add_exist();
    }
    let remap = |row: &[i64], width: usize| -> Vec<i64> {
        let mut r = vec![0; width];
        r[..n_param].copy_from_slice(&row[..n_param]);
        // Old columns after the parameters: c, c', existentials, constant.
        let old_rest = &row[n_param..];
        r[n_param + rank..n_param + rank + old_rest.len()].copy_from_slice(old_rest);
        r
    };
    let width = ds.width();
    for row in &conflict.eqs {
        ds.add_eq(remap(row, width));
    }
    for row in &conflict.ineqs {
        ds.add_ineq(remap(row, width));
    }
    for p in 0..rank {
        let mut r = vec![0; width];
        r[n_param + p] = 1; // d
        r[n_param + rank + p] = -1; // c
        r[n_param + 2 * rank + p] = 1; // c'
        ds.add_eq(r);
    }
    ds
}

/// Swaps the two cells of a relation over the conflict space.
pub(crate) fn swap_cells(set: &BasicSet) -> crate::poly::PolyResult<BasicSet> {
    let reversed = crate::poly::Set::from_basic(set.clone()).reverse()?;
    let mut piece = reversed
        .pieces
        .into_iter()
        .next()
        .expect("one piece in, one piece out");
    piece.space = set.space.clone();
    Ok(piece)
}

/// Every conflict polyhedron of `model` (live-in cells given by the pieces
/// of `live_in`, sets over the array's cells).
///
/// Each precedence polyhedron is tested for emptiness and simplified (only
/// exact eliminations of existentials) before the pairs are formed; a
/// conflict pair and its mirror image have mirrored polyhedra, so only one
/// of the two is built and tested and the other is its reverse. `budget`
/// bounds the whole computation: when it runs out the result is
/// `Err(Budget)` and the caller keeps the array's layout.
pub fn compute_cell_conflicts(
    model: &ArrayModel,
    live_in: &[BasicSet],
    budget: &mut crate::poly::Budget,
) -> crate::poly::PolyResult<CellConflicts> {
    use crate::poly::project::eliminate_exists_where_exact;
    use crate::poly::simplex::integer_point;
    // An exhausted budget ends the analysis (the caller leaves the array
    // alone): keeping every undecided piece would build all the quadratic
    // pairs with no budget left to prune them.
    let non_empty = |set: &BasicSet, budget: &mut crate::poly::Budget| {
        integer_point(set, budget).map(|p| p.is_some())
    };
    let mut live_precedences: Vec<(Precedence, BasicSet)> = Vec::new();
    for p in precedences(model, live_in.len()) {
        let set = eliminate_exists_where_exact(&precedence_set(model, live_in, p))?;
        if set.is_obviously_empty() || !non_empty(&set, budget)? {
            continue;
        }
        if live_precedences.iter().any(|(_, known)| *known == set) {
            continue;
        }
        live_precedences.push((p, set));
    }
    let mirrored: Vec<BasicSet> = live_precedences
        .iter()
        .map(|(_, s)| swap_cells(s))
        .collect::<Result<_, _>>()?;
    let mut pieces = Vec::new();
    for (a, (forward, forward_set)) in live_precedences.iter().enumerate() {
        for (b, (backward, _)) in live_precedences.iter().enumerate().skip(a) {
            let set = eliminate_exists_where_exact(&forward_set.intersect(&mirrored[b])?)?;
            if set.is_obviously_empty() || !non_empty(&set, budget)? {
                continue;
            }
            if a != b {
                let mirror = swap_cells(&set)?;
                pieces.push(ConflictPiece {
                    forward: *backward,
                    backward: *forward,
                    set: mirror,
                });
            }
            pieces.push(ConflictPiece {
                forward: *forward,
                backward: *backward,
                set,
            });
        }
    }
    parallel_pieces(model, budget, &mut pieces)?;
    Ok(CellConflicts {
        array: model.name.clone(),
        rank: model.rank,
        params: model.params.clone(),
        pieces,
    })
}

/// Adds to `pieces` the conflicts of parallel loops: two cells touched in
/// distinct iterations of one instance conflict in some interleaving,
/// whatever their sequential lifetimes; the mapping must keep them apart
/// (so the storage keeps the dimension the parallel loop carries).
pub(crate) fn parallel_pieces(
    model: &ArrayModel,
    budget: &mut crate::poly::Budget,
    pieces: &mut Vec<ConflictPiece>,
) -> crate::poly::PolyResult<()> {
    use crate::poly::project::eliminate_exists_where_exact;
    use crate::poly::simplex::integer_point;
    for p in unordered_pairs(model) {
        let set = eliminate_exists_where_exact(&precedence_set(model, &[], p))?;
        if set.is_obviously_empty() || integer_point(&set, budget)?.is_none() {
            continue;
        }
        let mirror = swap_cells(&set)?;
        for s in [set, mirror] {
            if !pieces.iter().any(|q: &ConflictPiece| q.set == s) {
                pieces.push(ConflictPiece {
                    forward: p,
                    backward: p,
                    set: s,
                });
            }
        }
    }
    Ok(())
}

impl CellConflicts {
    /// The difference set DS = { c - c' } as polyhedra with existentials.
    pub fn difference_set(&self) -> Vec<BasicSet> {
        self.pieces
            .iter()
            .map(|p| difference_piece(&p.set, self.rank))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use super::*;
    use crate::mapping::successive::moduli_for_values;
    use crate::poly::Budget;
    use crate::poly::basic::eval_row;
    use crate::poly::enumerate::integer_points;
    use crate::poly::simplex::integer_point;

    /// An event over params `[N]`: rows are `[N | iterators | constant]`.
    fn ev(
        statement: usize,
        kind: AccessKind,
        iters: &[&str],
        ineqs: &[&[i64]],
        schedule: &[&[i64]],
        subscripts: &[&[i64]],
    ) -> AccessEvent {
        let space = Space::set(
            vec!["N".into()],
            Tuple::new(Some(&format!("S{statement}")), iters),
        );
        let mut domain = BasicSet::universe(space);
        for r in ineqs {
            domain.add_ineq(r.to_vec());
        }
        AccessEvent {
            statement,
            position: 0,
            kind,
            domain,
            schedule: schedule.iter().map(|r| r.to_vec()).collect(),
            subscripts: subscripts.iter().map(|r| r.to_vec()).collect(),
            parallel_levels: Vec::new(),
        }
    }

    /// Durbin's array y (seed 001 Figure 2), statement by statement.
    fn durbin_y() -> ArrayModel {
        use AccessKind::{Read, Write};
        // Domain of the (k, i) statements: 1 <= k <= N-1, 0 <= i <= k-1.
        let ki: &[&[i64]] = &[
            &[0, 1, 0, -1],
            &[1, -1, 0, -1],
            &[0, 0, 1, 0],
            &[0, 1, -1, -1],
        ];
        let k_row: &[i64] = &[0, 1, 0, 0];
        let i_row: &[i64] = &[0, 0, 1, 0];
        let c = |v: i64| -> Vec<i64> { vec![0, 0, 0, v] };
        let (c0, c2, c3, c4) = (c(0), c(2), c(3), c(4));
        let s2: &[&[i64]] = &[&c3, k_row, &c2, i_row, &c0];
        let s3: &[&[i64]] = &[&c3, k_row, &c4, i_row, &c0];
        let events = vec![
            // S1: y[0][0] = r[0], schedule (0).
            ev(1, Write, &[], &[], &[&[0, 0]], &[&[0, 0], &[0, 0]]),
            // S2 reads y[i][k-1].
            ev(2, Read, &["k", "i"], ki, s2, &[i_row, &[0, 1, 0, -1]]),
            // S3 reads y[i][k-1] and y[k-i-1][k-1], writes y[i][k].
            ev(3, Read, &["k", "i"], ki, s3, &[i_row, &[0, 1, 0, -1]]),
            ev(
                3,
                Read,
                &["k", "i"],
                ki,
                s3,
                &[&[0, 1, -1, -1], &[0, 1, 0, -1]],
            ),
            ev(3, Write, &["k", "i"], ki, s3, &[i_row, k_row]),
            // S4: y[k][k] = alpha[k], schedule (3, k, 5).
            ev(
                4,
                Write,
                &["k"],
                &[&[0, 1, -1], &[1, -1, -1]],
                &[&[0, 0, 3], &[0, 1, 0], &[0, 0, 5]],
                &[&[0, 1, 0], &[0, 1, 0]],
            ),
            // S5: out[i] = y[i][N-1], schedule (4, i, 0).
            ev(
                5,
                Read,
                &["i"],
                &[&[0, 1, 0], &[1, -1, -1]],
                &[&[0, 0, 4], &[0, 1, 0], &[0, 0, 0]],
                &[&[0, 1, 0], &[1, 0, -1]],
            ),
        ];
        ArrayModel {
            name: "y".into(),
            params: vec!["N".into()],
            rank: 2,
            events,
        }
    }

    /// The difference set by simulation: first write / last access per cell
    /// from the enumerated trace, then every pair of overlapping cells.
    fn brute_force_ds(model: &ArrayModel, n: i64) -> BTreeSet<Vec<i64>> {
        let mut budget = Budget::default();
        // Per cell: (first write time, last access time); times are
        // (padded schedule, phase) with reads at phase 0 and writes at 1.
        let mut begin: BTreeMap<Vec<i64>, Vec<i64>> = BTreeMap::new();
        let mut end: BTreeMap<Vec<i64>, Vec<i64>> = BTreeMap::new();
        for e in &model.events {
            for it in integer_points(&e.domain, &[n], &mut budget).unwrap() {
                let mut full = vec![n];
                full.extend(&it);
                let mut time: Vec<i64> = e
                    .schedule
                    .iter()
                    .map(|r| eval_row(r, &full).unwrap())
                    .collect();
                time.resize(8, 0);
                time.push(i64::from(e.kind == AccessKind::Write));
                let cell: Vec<i64> = e
                    .subscripts
                    .iter()
                    .map(|r| eval_row(r, &full).unwrap())
                    .collect();
                if e.kind == AccessKind::Write {
                    let b = begin.entry(cell.clone()).or_insert(time.clone());
                    if time < *b {
                        *b = time.clone();
                    }
                }
                let t = end.entry(cell).or_insert(time.clone());
                if time > *t {
                    *t = time;
                }
            }
        }
        let mut ds = BTreeSet::new();
        for (c, bc) in &begin {
            for (c2, bc2) in &begin {
                if bc < &end[c2] && bc2 < &end[c] {
                    ds.insert(c.iter().zip(c2).map(|(a, b)| a - b).collect());
                }
            }
        }
        ds
    }

    fn polyhedral_ds_contains(ds: &[BasicSet], n: i64, d: &[i64]) -> bool {
        let mut budget = Budget::default();
        ds.iter().any(|piece| {
            let mut q = piece.clone();
            crate::poly::enumerate::fix_params(&mut q, &[n]);
            for (p, v) in d.iter().enumerate() {
                let mut row = q.zero_row();
                row[1 + p] = 1;
                let last = row.len() - 1;
                row[last] = -v;
                q.add_eq(row);
            }
            integer_point(&q, &mut budget).unwrap().is_some()
        })
    }

    #[test]
    fn durbin_y_difference_set_matches_simulation() {
        let model = durbin_y();
        let mut budget = Budget::default();
        let conflicts = compute_cell_conflicts(&model, &[], &mut budget).unwrap();
        let ds = conflicts.difference_set();
        for n in [4, 6] {
            let truth = brute_force_ds(&model, n);
            for d0 in -n..=n {
                for d1 in -n..=n {
                    let d = vec![d0, d1];
                    assert_eq!(
                        polyhedral_ds_contains(&ds, n, &d),
                        truth.contains(&d),
                        "N = {n}, d = {d:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn durbin_y_successive_moduli_are_n_and_2() {
        // Seed 001 Figure 3: (i, j) -> (i mod 100, j mod 2) for N = 100.
        let model = durbin_y();
        let mut budget = Budget::default();
        let ds = compute_cell_conflicts(&model, &[], &mut budget)
            .unwrap()
            .difference_set();
        assert_eq!(
            moduli_for_values(&ds, 2, &[100], &mut budget).unwrap(),
            vec![100, 2]
        );
        assert_eq!(
            moduli_for_values(&ds, 2, &[7], &mut budget).unwrap(),
            vec![7, 2]
        );
    }

    #[test]
    fn durbin_y_symbolic_mapping_is_certified_for_every_n() {
        use crate::mapping::{Certificate, CertifyMode, certify_modular, successive_modulo};
        let model = durbin_y();
        let mut budget = Budget::default();
        let ds = compute_cell_conflicts(&model, &[], &mut budget)
            .unwrap()
            .difference_set();
        let found = successive_modulo(&ds, 2, &[100], &mut budget).unwrap();
        let mapping = found.symbolic_mapping("y", &model.params).unwrap();
        assert_eq!(mapping.to_string(), "y[c0][c1] -> y[c0 % N][c1 % 2]");
        let context = BasicSet::universe(Space::set(vec!["N".into()], Tuple::anonymous(vec![])));
        let cert = certify_modular(
            &ds,
            &mapping,
            CertifyMode::Symbolic { context: &context },
            &mut budget,
        );
        assert_eq!(cert, Ok(Certificate::ForAllParameters));
        // Folding the second axis onto one cell is wrong, and the exact check
        // for N = 100 finds the collision.
        let mut wrong = found.numeric_mapping("y", &model.params);
        wrong.dims[1].modulus.constant = 1;
        let cert = certify_modular(&ds, &wrong, CertifyMode::Fixed(&[100]), &mut budget);
        assert!(
            matches!(
                cert,
                Err(crate::mapping::certify::CertifyFailure::Collision { .. })
            ),
            "{cert:?}"
        );
    }

    #[test]
    fn accumulation_chain_folds_to_one_cell() {
        // s[0] = ...; for k in 1..N-1: s[k] = s[k-1] + ...; out = s[N-1].
        use AccessKind::{Read, Write};
        let k_dom: &[&[i64]] = &[&[0, 1, -1], &[1, -1, -1]];
        let sched: &[&[i64]] = &[&[0, 0, 1], &[0, 1, 0], &[0, 0, 0]];
        let model = ArrayModel {
            name: "s".into(),
            params: vec!["N".into()],
            rank: 1,
            events: vec![
                ev(0, Write, &[], &[], &[&[0, 0]], &[&[0, 0]]),
                ev(1, Read, &["k"], k_dom, sched, &[&[0, 1, -1]]),
                ev(1, Write, &["k"], k_dom, sched, &[&[0, 1, 0]]),
                ev(2, Read, &[], &[], &[&[0, 2]], &[&[1, -1]]),
            ],
        };
        let mut budget = Budget::default();
        let ds = compute_cell_conflicts(&model, &[], &mut budget)
            .unwrap()
            .difference_set();
        for n in [2, 5, 9] {
            assert_eq!(brute_force_ds(&model, n), BTreeSet::from([vec![0]]));
            for d in -n..=n {
                assert_eq!(
                    polyhedral_ds_contains(&ds, n, &[d]),
                    d == 0,
                    "N = {n}, d = {d}"
                );
            }
        }
        assert_eq!(
            moduli_for_values(&ds, 1, &[50], &mut budget).unwrap(),
            vec![1]
        );
    }
}

#[cfg(test)]
mod budget_tests {
    use super::*;
    use crate::poly::{Budget, PolyError};

    /// Found by polyfold-fuzz: with an exhausted budget the analysis used to
    /// keep every undecided piece and build all pairs. It must stop instead.
    #[test]
    fn an_exhausted_budget_stops_the_conflict_analysis() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/jacobi2d_smoothing.c");
        let source = std::fs::read_to_string(path).expect("corpus file");
        let program = crate::frontend::extract(path, &source, &crate::frontend::Options::default());
        let scop = &program.scops[0];
        let array = scop.arrays.iter().find(|a| a.name == "A0").expect("A0");
        let model = crate::analysis::build::array_model(scop, array.id);
        let mut budget = Budget::steps(50);
        let start = std::time::Instant::now();
        let result = compute_cell_conflicts(&model, &[], &mut budget);
        assert!(
            matches!(result, Err(PolyError::Budget)),
            "{:?}",
            result.map(|c| c.pieces.len())
        );
        assert!(start.elapsed().as_secs() < 20, "stopped promptly");
    }
}
