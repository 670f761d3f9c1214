//! The global conflict set of SMO (seed 000 §3) for a SCoP: the values
//! written by a set of statements, in one global array space, conflict
//! when their exact lifetimes (from `analysis::dataflow`) overlap.
//!
//! What this module does NOT do: live-out values (temporaries have none),
//! live-in values (reads of initial values need storage of their own) or
//! any choice of storage (that is `solve`, `shared` and `baseline`).

use crate::analysis::dataflow::{Dataflow, max_schedule_len, may_first_differ, source_pieces};
use crate::ir::{SchedEntry, Scop};
use crate::poly::{BasicSet, PolyError, PolyResult, Space, Tuple, WorkLimit};

use super::input::{ConflictPolyhedron, ConflictSpec, StmtId};

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
) -> PolyResult<Option<ConflictSpec>> {
    global_conflicts_until(scop, flow, stmts, None, None)
}

/// The parameter values a conflict set is built for, and which statement
/// pairs `(j, k)` (indices into the statement list) can hold a conflict
/// for them (`needed[j][k]`; e.g. from the values' lifetimes).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ForValues<'a> {
    pub values: &'a [i64],
    pub needed: &'a [Vec<bool>],
}

/// [`global_conflicts`] that gives up with [`PolyError::Budget`] once the
/// work of `limit` is spent (one unit per conflict piece built and tested). With `for_values`, the
/// set is exact for those parameter values only: every piece fixes the parameters to them (which
/// makes the emptiness tests cheaper), and the pairs not `needed` are
/// skipped.
pub(crate) fn global_conflicts_until(
    scop: &Scop,
    flow: &Dataflow,
    stmts: &[usize],
    limit: Option<&WorkLimit>,
    for_values: Option<ForValues<'_>>,
) -> PolyResult<Option<ConflictSpec>> {
    let deadline = limit.and_then(|l| l.safety_net);
    let needed = for_values.map(|f| f.needed);
    let fixed = for_values.map(|f| f.values);
    let check_time = || limit.map_or(Ok(()), WorkLimit::tick);
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
                                        rel.push(super::solve::simplify_public(&b)?);
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
                l.fire();
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
                        if log::log_enabled!(target: "conflicts", log::Level::Debug) {
                            log::debug!(target: "conflicts",
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
    use crate::analysis::build::aff_row;
    use crate::analysis::dataflow::{compute_dataflow, schedule_at};
    use crate::frontend;

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

    fn corpus(file: &str) -> String {
        let path = format!("{}/corpus/{file}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&path).expect("corpus file")
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

    /// Brute-force value lifetimes for fixed parameters: every value
    /// (writer statement, iterators) with its write position and last read
    /// position in the sorted operation list.
    fn brute_lifetimes(
        scop: &Scop,
        params: &[i64],
    ) -> std::collections::HashMap<(usize, Vec<i64>), (usize, Option<usize>)> {
        use crate::poly::Budget;
        use crate::poly::basic::eval_row;
        use crate::poly::enumerate::integer_points;
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
