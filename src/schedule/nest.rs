//! Re-scheduling a whole SCoP with multi-dimensional shifts (seed 003 §4,
//! its shifting vectors `p(L)`), printed by the polyhedral scanner
//! ([`super::scan`]).
//!
//! The runs of [`super::fusion`] fuse sibling loops one level at a time
//! and print them as a prologue, a steady loop and an epilogue. That
//! cannot fuse the inner loops of seed 003's Example 2 (song_example2):
//! after the outer loops are shifted, the inner loops of the first and the
//! last outer iterations run under other guards. Here every statement of
//! the SCoP gets a schedule of its own, `t = E_S(x) + σ_S`, and the whole
//! SCoP is printed again from the statements' domains in that time space:
//!
//! - **Time space.** `n` dimensions, `n` the deepest statement's loop
//!   depth. A statement of that depth is placed by its iterators (`E_S` is
//!   the identity). A shallower one is *aligned* with a deepest statement
//!   that writes the same array through a subscript that names each of its
//!   iterators once: its write `ZA[1][k]` is the cell that `ZA[j][k]`
//!   writes at `j = 1`, so it runs where that statement's `(k, 1)` would.
//! - **Shifts**, level by level. For every pair of statements and every
//!   pair of their instances that touch one cell (one writing), the
//!   original order must be kept: `σ_Q,ℓ − σ_P,ℓ >= max (E_P,ℓ(x) −
//!   E_Q,ℓ(y))` over the pairs still tied at the outer levels, bounded by
//!   exact integer tests (symbolic in the parameters); at the last level a
//!   tie also needs `P` printed first. The shifts of a level are the
//!   solution of these difference constraints that brings the writers and
//!   readers of each array closest (a search around the smallest solution,
//!   as [`super::fusion::choose_shifts`] does for one level), then the
//!   pairs tied at this level carry over to the next.
//! - **Checked**, independently of the search: the printed SCoP is read
//!   back by the front end; each statement must be a copy of an original
//!   one ([`super::check::check_fused`]), and no two instances that touch
//!   one cell (one writing) may run in the other order than the original's
//!   ([`order_kept`], exact, on the schedules the front end read).
//!
//! - **Runs.** What is printed again is a run of consecutive top-level
//!   items of the SCoP holding only loops (step +1, iterator dead after),
//!   `if`s and assignments inside loops, with nothing but blanks between
//!   them; a statement outside any loop, a declaration, a pragma or a
//!   comment ends a run. A union domain (`else` of a conjunction) is
//!   scanned as disjoint pieces, each a copy of the statement.
//! - **Pinned guards.** When every parameter is a `#define` with a known
//!   value, each guard on the parameters alone is decided at those values
//!   and assumed (`_Static_assert` before the SCoP), so that the text has
//!   no degenerate cases; otherwise the guards stay.
//!
//! Left out: statements that cannot be aligned (a shallower statement that
//! writes no array a deepest one writes through its iterators: the
//! statements of imperfect nests), loop interchange and skewing (`E_S` is
//! always a placement, never a permutation), domains with strides
//! (existentials), OpenMP loops, and the network-flow optimum of the
//! shifts (a window of ±2 around the smallest ones, up to 7 statements).

use std::ops::Range;

use crate::ir::{AffExpr, Program, SchedEntry, Scop, Stmt, SyntaxNode};
use crate::poly::{BasicSet, Space, Tuple};

use super::check::Origin;
use super::failure::Failure;

/// The search window around the smallest shifts, and the most statements
/// searched exhaustively.
const SHIFT_WINDOW: i64 = 2;
const SEARCHED: usize = 7;

/// A SCoP re-scheduled: each statement's time map, and what is needed to
/// print it.
#[derive(Clone, Debug)]
pub(crate) struct NestPlan {
    pub scop: usize,
    /// The first statement the plan covers (the others follow it: one per
    /// entry of `times`).
    pub first: usize,
    /// Per statement, per time dimension: `E_S + σ_S` over `[params |
    /// the statement's iterators]`.
    pub times: Vec<Vec<AffExpr>>,
    /// Per statement, its shift `σ_S`.
    pub shifts: Vec<Vec<i64>>,
    /// Per time dimension, the loop's name and the type its header
    /// declares it with (`for (int i = ...)`), if any.
    pub names: Vec<(String, Option<String>)>,
    /// The text the plan replaces: from the first loop's `for` to the end
    /// of the last one.
    pub span: Range<usize>,
    /// The 1-based lines of the span's first and last characters.
    pub lines: (usize, usize),
}

impl NestPlan {
    /// E.g. "lines 43-57 re-scheduled as one nest of 2 loops `k`, `j`
    /// (statements shifted: S0, S2 by (0, 0); S1 by (-1, 0))".
    pub fn describe(&self, scop: &Scop) -> String {
        let mut groups: Vec<(Vec<i64>, Vec<String>)> = Vec::new();
        for (k, s) in self.shifts.iter().enumerate() {
            let name = scop.stmts[self.first + k].name.clone();
            match groups.iter_mut().find(|(v, _)| v == s) {
                Some((_, names)) => names.push(name),
                None => groups.push((s.clone(), vec![name])),
            }
        }
        let parts: Vec<String> = groups
            .iter()
            .map(|(v, names)| {
                let v: Vec<String> = v.iter().map(i64::to_string).collect();
                format!("{} by ({})", names.join(", "), v.join(", "))
            })
            .collect();
        format!(
            "lines {}-{} re-scheduled as one nest of {} loop{} `{}` (statements shifted: {})",
            self.lines.0,
            self.lines.1,
            self.names.len(),
            if self.names.len() == 1 { "" } else { "s" },
            self.names
                .iter()
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>()
                .join("`, `"),
            parts.join("; ")
        )
    }
}

/// The plans for `program.scops[si]`: one per maximal run of consecutive
/// top-level items that qualify (loops, `if`s and assignments only, every
/// statement in a loop), when some shift vector keeps every dependence
/// and the schedule changes.
pub(crate) fn plan_nests(program: &Program, si: usize) -> Vec<NestPlan> {
    let scop = &program.scops[si];
    let written = |a: &crate::ir::Array| scop.stmts.iter().any(|s| s.write.array == a.id);
    if scop.domains_value_used || scop.arrays.iter().any(|a| a.value_used && written(a)) {
        return Vec::new();
    }
    // Per item: whether it qualifies, and its statements.
    let mut runs: Vec<Vec<usize>> = Vec::new();
    let mut current: Vec<usize> = Vec::new();
    for (k, item) in scop.items.iter().enumerate() {
        let mut ids = Vec::new();
        stmt_ids(&item.node, &mut ids);
        let ok = item.pragmas.is_empty()
            && plain_tree(&item.node, &mut Vec::new())
            && !ids.is_empty()
            && ids
                .iter()
                .all(|&i| scop.stmts.get(i).is_some_and(plain_stmt));
        if ok {
            current.push(k);
        } else if !current.is_empty() {
            runs.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        runs.push(current);
    }
    runs.iter()
        .filter(|r| r.len() >= 2)
        .filter_map(|r| plan_run(program, si, r))
        .collect()
}

/// Whether a statement can be placed: in loops of step +1, not parallel,
/// no quotient, a domain without existentials, no condition that reads
/// data around it.
fn plain_stmt(s: &Stmt) -> bool {
    // Printed one by one, a statement would lose the `if` of data around it.
    s.data_conds.is_empty()
        && s.quotients.is_empty()
        && !s.iterators.is_empty()
        && s.parallel.iter().all(Option::is_none)
        && s.domain.pieces.iter().all(|p| p.n_exist == 0)
        && !s.domain.pieces.is_empty()
        && s.schedule.iter().all(|e| match e {
            SchedEntry::Iter { sign, .. } => *sign == 1,
            SchedEntry::Const(_) => true,
        })
}

/// The statements of a syntax node, in order.
fn stmt_ids(node: &SyntaxNode, out: &mut Vec<usize>) {
    match node {
        SyntaxNode::Stmt { id, .. } => out.push(id.0 as usize),
        SyntaxNode::For { body, .. } => stmt_ids(body, out),
        SyntaxNode::If { then, els, .. } => {
            stmt_ids(then, out);
            if let Some(e) = els {
                stmt_ids(e, out);
            }
        }
        SyntaxNode::Block { items, .. } => items.iter().for_each(|i| stmt_ids(i, out)),
        SyntaxNode::Labeled { body, .. } => stmt_ids(body, out),
        SyntaxNode::Empty { .. } | SyntaxNode::Pragma { .. } | SyntaxNode::Kept { .. } => {}
    }
}

/// The SCoP restricted to the statements `range` (renumbered from 0), for
/// the analyses of one run.
fn sub_scop(scop: &Scop, range: Range<usize>) -> Scop {
    let mut sub = scop.clone();
    sub.stmts = scop.stmts[range].to_vec();
    sub
}

/// The plan of one run of items (see [`plan_nests`]).
fn plan_run(program: &Program, si: usize, items: &[usize]) -> Option<NestPlan> {
    let scop = &program.scops[si];
    let mut ids = Vec::new();
    for &k in items {
        stmt_ids(&scop.items[k].node, &mut ids);
    }
    let first = *ids.first()?;
    let last = *ids.last()?;
    if ids.iter().enumerate().any(|(k, &i)| i != first + k) {
        return None;
    }
    let sub = sub_scop(scop, first..last + 1);
    let n = sub.stmts.iter().map(|s| s.iterators.len()).max()?;
    if n == 0 || sub.stmts.len() < 2 {
        return None;
    }
    let mut headers: Vec<(String, Option<String>)> = Vec::new();
    for &k in items {
        if !plain_tree(&scop.items[k].node, &mut headers) {
            return None;
        }
    }
    let span = scop.items[items[0]].node.span().start..scop.items[*items.last()?].node.span().end;
    let text = program.source.get(span.clone())?;
    // Nothing but blanks between the items (the text between is replaced).
    for pair in items.windows(2) {
        let gap = scop.items[pair[0]].node.span().end..scop.items[pair[1]].node.span().start;
        if !program.source.get(gap)?.trim().is_empty() {
            return None;
        }
    }
    if text.contains("/*") || text.contains("//") || text.contains('#') {
        return None;
    }
    // The loops' names: those of a deepest statement.
    let deepest = sub.stmts.iter().find(|s| s.iterators.len() == n)?;
    let mut names = Vec::with_capacity(n);
    for it in &deepest.iterators {
        if names
            .iter()
            .any(|(m, _): &(String, Option<String>)| m == it)
        {
            return None;
        }
        // Declared by the new loops only when every loop of that name
        // declares it (with one type); else a declaration outside the
        // loops is in scope.
        let mut types = headers.iter().filter(|(h, _)| h == it).map(|(_, d)| d);
        let first = types.next()?.clone();
        let declares = match first {
            Some(ty) => {
                let mut all = true;
                for d in types {
                    match d {
                        Some(t) if *t == ty => {}
                        Some(_) => return None,
                        None => all = false,
                    }
                }
                all.then_some(ty)
            }
            None => None,
        };
        names.push((it.clone(), declares));
    }
    let embedded: Vec<Vec<AffExpr>> = sub
        .stmts
        .iter()
        .map(|s| embedding(&sub, s, n))
        .collect::<Option<_>>()?;
    let deps = dependences(&sub)?;
    let shifts = search_shifts(&sub, &embedded, &deps, n)?;
    let times = embedded
        .iter()
        .zip(&shifts)
        .map(|(e, s)| {
            e.iter()
                .zip(s)
                .map(|(a, v)| {
                    Some(AffExpr {
                        coeffs: a.coeffs.clone(),
                        constant: a.constant.checked_add(*v)?,
                    })
                })
                .collect::<Option<Vec<_>>>()
        })
        .collect::<Option<Vec<_>>>()?;
    let line = |at: usize| program.source[..at].matches('\n').count() + 1;
    let lines = (line(span.start), line(span.end.saturating_sub(1)));
    Some(NestPlan {
        scop: si,
        lines,
        first,
        times,
        shifts,
        names,
        span,
    })
}

/// Whether `node` holds only loops (step +1, iterator dead after), `if`s,
/// blocks and statements; collects the loops' iterators and declared
/// types.
fn plain_tree(node: &SyntaxNode, headers: &mut Vec<(String, Option<String>)>) -> bool {
    match node {
        SyntaxNode::Stmt { .. } | SyntaxNode::Empty { .. } => true,
        SyntaxNode::For {
            header,
            body,
            keeps_iterator,
            ..
        } => {
            let Some(h) = header else { return false };
            if h.step != 1 || *keeps_iterator {
                return false;
            }
            headers.push((h.iterator.clone(), h.declares.clone()));
            plain_tree(body, headers)
        }
        SyntaxNode::If { then, els, .. } => {
            plain_tree(then, headers) && els.as_ref().is_none_or(|e| plain_tree(e, headers))
        }
        SyntaxNode::Block { items, .. } => items.iter().all(|i| plain_tree(i, headers)),
        // Planned like its statement; `nest_text` refuses to print it
        // (the new nest has no place for the label).
        SyntaxNode::Labeled { body, .. } => plain_tree(body, headers),
        SyntaxNode::Pragma { .. } | SyntaxNode::Kept { .. } => false,
    }
}

/// `E_S`: per time dimension, an affine expression over `[params | the
/// statement's iterators]` that is one iterator (coefficient 1, iterators
/// in order) plus a function of the parameters, or a function of the
/// parameters alone.
fn embedding(scop: &Scop, s: &Stmt, n: usize) -> Option<Vec<AffExpr>> {
    let np = scop.params.len();
    let ns = s.iterators.len();
    let unit = |k: usize| {
        let mut coeffs = vec![0i64; np + ns];
        coeffs[np + k] = 1;
        AffExpr {
            coeffs,
            constant: 0,
        }
    };
    if ns == n {
        return Some((0..n).map(unit).collect());
    }
    // A deepest statement writing the same array, each of its iterators
    // named by one subscript with coefficient ±1.
    for a in scop.stmts.iter().filter(|a| a.iterators.len() == n) {
        if a.write.array != s.write.array || a.write.subscripts.len() != s.write.subscripts.len() {
            continue;
        }
        let Some(e) = align(np, a, s) else { continue };
        // A placement: each iterator of `s` in one time dimension, in
        // order, with coefficient 1.
        let mut last = None;
        let mut ok = true;
        for k in 0..ns {
            let dims: Vec<usize> = (0..n).filter(|&d| e[d].coeffs[np + k] != 0).collect();
            let good = dims.len() == 1
                && e[dims[0]].coeffs[np + k] == 1
                && e[dims[0]].coeffs[np..].iter().filter(|c| **c != 0).count() == 1
                && last.is_none_or(|l| l < dims[0]);
            if !good {
                ok = false;
                break;
            }
            last = Some(dims[0]);
        }
        if ok {
            return Some(e);
        }
    }
    None
}

/// The iterators of `a` (a deepest statement) at which its write is the
/// cell `s` writes, as affine expressions over `[params | s's
/// iterators]`.
fn align(np: usize, a: &Stmt, s: &Stmt) -> Option<Vec<AffExpr>> {
    let n = a.iterators.len();
    let ns = s.iterators.len();
    let mut out: Vec<Option<AffExpr>> = vec![None; n];
    for (fa, fs) in a.write.subscripts.iter().zip(&s.write.subscripts) {
        let its: Vec<usize> = (0..n).filter(|&k| fa.coeffs[np + k] != 0).collect();
        match its.as_slice() {
            [] => {}
            [k] => {
                let c = fa.coeffs[np + *k];
                if c.abs() != 1 || out[*k].is_some() {
                    return None;
                }
                // c·a_k + fa_params + fa_c = fs  =>  a_k = c·(fs − fa_params − fa_c).
                let mut coeffs = vec![0i64; np + ns];
                for (p, coeff) in coeffs.iter_mut().enumerate().take(np) {
                    *coeff = c.checked_mul(fs.coeffs[p].checked_sub(fa.coeffs[p])?)?;
                }
                for k2 in 0..ns {
                    coeffs[np + k2] = c.checked_mul(fs.coeffs[np + k2])?;
                }
                let constant = c.checked_mul(fs.constant.checked_sub(fa.constant)?)?;
                out[*k] = Some(AffExpr { coeffs, constant });
            }
            _ => return None,
        }
    }
    out.into_iter().collect()
}

/// The pairs of instances of statements `P` then `Q` (`P != Q`) that touch
/// one cell, one of them writing, with `P`'s first in the original order:
/// per `(P, Q)`, pieces over `[params | x_P | x_Q]`.
type Deps = Vec<(usize, usize, Vec<BasicSet>)>;

fn dependences(scop: &Scop) -> Option<Deps> {
    let mut out = Vec::new();
    for p in 0..scop.stmts.len() {
        for q in 0..scop.stmts.len() {
            if p == q {
                continue;
            }
            let pieces = conflicts_in_order(scop, (scop, p), (scop, q), true)?;
            if !pieces.is_empty() {
                out.push((p, q, pieces));
            }
        }
    }
    Some(out)
}

/// The pieces over `[params | x_a | x_b]` (parameters of `base`) where
/// statement `a` of `sa` and `b` of `sb` touch one cell, one writing, and
/// `a`'s instance runs first by the schedules of their SCoPs. With
/// `nonempty`, pieces without an integer point are dropped.
fn conflicts_in_order(
    base: &Scop,
    (sa, a): (&Scop, usize),
    (sb, b): (&Scop, usize),
    nonempty: bool,
) -> Option<Vec<BasicSet>> {
    let np = base.params.len();
    let params = base.param_names();
    let (x, y) = (&sa.stmts[a], &sb.stmts[b]);
    let (na, nb) = (x.iterators.len(), y.iterators.len());
    let da = x.domain.with_params(&params).ok()?;
    let db = y.domain.with_params(&params).ok()?;
    // Existentials (strided loops) are kept for the check only
    // ([`order_kept`]); the planner does not place such statements.
    if (nonempty && da.pieces.iter().chain(&db.pieces).any(|p| p.n_exist > 0))
        || base.context.n_exist > 0
    {
        return None;
    }
    let space = Space::relation(
        params.clone(),
        Tuple::new(None, &vec!["x"; na]),
        Tuple::new(None, &vec!["y"; nb]),
    );
    let w = np + na + nb + 1;
    let mut bases: Vec<BasicSet> = Vec::new();
    for pa in &da.pieces {
        for pb in &db.pieces {
            let mut base_set = BasicSet::universe(space.clone());
            // The pieces' existentials, `pa`'s then `pb`'s, before the
            // constant.
            for _ in 0..pa.n_exist + pb.n_exist {
                base_set.add_exist();
            }
            let wide = base_set.width();
            for (piece, off, n, e0) in [(pa, np, na, w - 1), (pb, np + na, nb, w - 1 + pa.n_exist)]
            {
                for (rows, eq) in [(&piece.eqs, true), (&piece.ineqs, false)] {
                    for row in rows {
                        let mut r = vec![0i64; wide];
                        r[..np].copy_from_slice(&row[..np]);
                        r[off..off + n].copy_from_slice(&row[np..np + n]);
                        r[e0..e0 + piece.n_exist]
                            .copy_from_slice(&row[np + n..np + n + piece.n_exist]);
                        r[wide - 1] = row[np + n + piece.n_exist];
                        if eq {
                            base_set.add_eq(r);
                        } else {
                            base_set.add_ineq(r);
                        }
                    }
                }
            }
            base_set.add_param_constraints(&base.context);
            bases.push(base_set);
        }
    }
    // Affine rows over the pair's columns.
    let over = |e: &AffExpr, scop: &Scop, off: usize, n: usize| -> Option<Vec<i64>> {
        let mut r = vec![0i64; w];
        for (k, p) in scop.params.iter().enumerate() {
            let at = base.params.iter().position(|q| q.name == p.name)?;
            r[at] = e.coeffs[k];
        }
        r[off..off + n].copy_from_slice(&e.coeffs[scop.params.len()..scop.params.len() + n]);
        r[w - 1] = e.constant;
        Some(r)
    };
    let order = lex_before(
        &schedule_rows(&x.schedule, np, w),
        &schedule_rows(&y.schedule, np + na, w),
    );
    let mut out = Vec::new();
    for o in crate::ir::orderings((sa, x), (sb, y)) {
        let (us, vs) = super::fusion::ordered_subscripts(&o);
        if us.len() != vs.len() {
            continue;
        }
        let mut rows = Vec::new();
        for (f, g) in us.iter().zip(vs) {
            let f = over(f, sa, np, na)?;
            let g = over(g, sb, np + na, nb)?;
            let row: Vec<i64> = f
                .iter()
                .zip(&g)
                .map(|(p, q)| p.checked_sub(*q))
                .collect::<Option<_>>()?;
            rows.push(row);
        }
        for base_set in &bases {
            let mut same = base_set.clone();
            for row in &rows {
                same.add_eq(widened(row, same.width()));
            }
            for (eqs, strict) in &order {
                let mut piece = same.clone();
                for e in eqs {
                    piece.add_eq(widened(e, piece.width()));
                }
                piece.add_ineq(widened(strict, piece.width()));
                if !nonempty || !piece.is_empty().ok()? {
                    out.push(piece);
                }
            }
        }
    }
    Some(out)
}

/// `row` (over a pair's columns and the constant) with zeros for the
/// existentials of a set of width `width`, before the constant.
fn widened(row: &[i64], width: usize) -> Vec<i64> {
    let mut out = vec![0i64; width.max(row.len())];
    let n = row.len() - 1;
    out[..n].copy_from_slice(&row[..n]);
    let w = out.len();
    out[w - 1] = row[n];
    out
}

/// A 2d+1 schedule's entries as rows over a pair's columns (the
/// statement's iterators from column `off`).
fn schedule_rows(schedule: &[SchedEntry], off: usize, w: usize) -> Vec<Vec<i64>> {
    schedule
        .iter()
        .map(|e| {
            let mut r = vec![0i64; w];
            match e {
                SchedEntry::Const(c) => r[w - 1] = *c,
                SchedEntry::Iter { index, sign } => r[off + index] = *sign,
            }
            r
        })
        .collect()
}

/// `a ≺ b` lexicographically, as pieces `(equalities, strict row >= 0)`:
/// equal up to a position, `b` greater there. Positions where both are
/// the same constant are skipped; one where the constants differ ends the
/// list (with a piece when `a`'s is smaller).
fn lex_before(a: &[Vec<i64>], b: &[Vec<i64>]) -> Vec<(Vec<Vec<i64>>, Vec<i64>)> {
    let mut out = Vec::new();
    let mut eqs: Vec<Vec<i64>> = Vec::new();
    for (ra, rb) in a.iter().zip(b) {
        let w = ra.len();
        let diff: Vec<i64> = rb.iter().zip(ra).map(|(x, y)| x - y).collect();
        let constant = diff[..w - 1].iter().all(|c| *c == 0);
        if constant {
            match diff[w - 1].cmp(&0) {
                std::cmp::Ordering::Equal => continue,
                std::cmp::Ordering::Greater => {
                    let mut always = vec![0i64; w];
                    always[w - 1] = 0;
                    out.push((eqs.clone(), always));
                    return out;
                }
                std::cmp::Ordering::Less => return out,
            }
        }
        let mut strict = diff.clone();
        strict[w - 1] -= 1;
        out.push((eqs.clone(), strict));
        eqs.push(diff);
    }
    out
}

/// The shifts of every statement, level by level (see the module doc).
fn search_shifts(
    scop: &Scop,
    embedded: &[Vec<AffExpr>],
    deps: &Deps,
    n: usize,
) -> Option<Vec<Vec<i64>>> {
    let np = scop.params.len();
    let count = scop.stmts.len();
    // The pairs still tied at the outer levels.
    let mut tied: Vec<(usize, usize, Vec<BasicSet>)> = deps.clone();
    let mut shifts = vec![vec![0i64; n]; count];
    let flows = flow_pairs(scop);
    for level in 0..n {
        let last = level + 1 == n;
        let mut cons: Vec<(usize, usize, i64)> = Vec::new();
        // Per pair and piece, the row E_P,ℓ(x) − E_Q,ℓ(y) over its columns.
        let mut rows: Vec<Vec<Vec<i64>>> = Vec::new();
        for (p, q, pieces) in &tied {
            let (na, nb) = (
                scop.stmts[*p].iterators.len(),
                scop.stmts[*q].iterators.len(),
            );
            let w = np + na + nb + 1;
            let ep = &embedded[*p][level];
            let eq = &embedded[*q][level];
            let mut row = vec![0i64; w];
            for (r, (a, b)) in row
                .iter_mut()
                .zip(ep.coeffs.iter().zip(&eq.coeffs))
                .take(np)
            {
                *r = a.checked_sub(*b)?;
            }
            row[np..np + na].copy_from_slice(&ep.coeffs[np..np + na]);
            for k in 0..nb {
                row[np + na + k] = eq.coeffs[np + k].checked_neg()?;
            }
            row[w - 1] = ep.constant.checked_sub(eq.constant)?;
            let mut per = Vec::new();
            for piece in pieces {
                let m = max_of(piece, &row)?;
                let need = if last && p > q { m.checked_add(1)? } else { m };
                cons.push((*p, *q, need));
                per.push(row.clone());
            }
            rows.push(per);
        }
        let s = solve_level(count, &cons, &flows)?;
        for (k, v) in s.iter().enumerate() {
            shifts[k][level] = *v;
        }
        if last {
            break;
        }
        // The pieces tied at this level: E_P(x) + σ_P = E_Q(y) + σ_Q.
        let mut next = Vec::new();
        for ((p, q, pieces), per) in tied.iter().zip(&rows) {
            let mut kept = Vec::new();
            for (piece, row) in pieces.iter().zip(per) {
                let mut t = piece.clone();
                let mut r = row.clone();
                let w = r.len();
                r[w - 1] = r[w - 1].checked_add(s[*p])?.checked_sub(s[*q])?;
                t.add_eq(r);
                if !t.is_empty().ok()? {
                    kept.push(t);
                }
            }
            if !kept.is_empty() {
                next.push((*p, *q, kept));
            }
        }
        tied = next;
    }
    Some(shifts)
}

/// The greatest value of `row` over the integer points of `piece`, when it
/// is at most `fusion::MAX_DISTANCE` (16) in absolute value (else `None`); a piece
/// without points gives -16.
fn max_of(piece: &BasicSet, row: &[i64]) -> Option<i64> {
    let exceeds = |d: i64| -> Option<bool> {
        let mut p = piece.clone();
        let mut r = row.to_vec();
        let w = r.len();
        r[w - 1] = r[w - 1].checked_sub(d.checked_add(1)?)?;
        p.add_ineq(r);
        Some(!p.is_empty().ok()?)
    };
    super::fusion::least_bound(&exceeds)
}

/// The pairs `(writer, reader)` of statements where the writer writes an
/// array the reader reads.
fn flow_pairs(scop: &Scop) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (w, a) in scop.stmts.iter().enumerate() {
        for (r, b) in scop.stmts.iter().enumerate() {
            if w != r && b.reads.iter().any(|x| x.array == a.write.array) {
                out.push((w, r));
            }
        }
    }
    out
}

/// Shifts `σ` (the first statement's 0) with `σ_q − σ_p >= d` for every
/// `(p, q, d)`, bringing the pairs of `flows` closest (least `Σ |σ_r −
/// σ_w|`, then least `Σ |σ|`): every vector within [`SHIFT_WINDOW`] of the
/// smallest solution, up to [`SEARCHED`] statements; the smallest solution
/// beyond. `None` when the constraints have no solution.
fn solve_level(
    n: usize,
    cons: &[(usize, usize, i64)],
    flows: &[(usize, usize)],
) -> Option<Vec<i64>> {
    // The smallest solution: longest paths from 0 (Bellman–Ford).
    let mut least = vec![0i64; n];
    let mut changed = true;
    let mut rounds = 0;
    while changed {
        changed = false;
        rounds += 1;
        if rounds > n + 1 {
            return None;
        }
        for &(p, q, d) in cons {
            let v = least[p].checked_add(d)?;
            if least[q] < v {
                least[q] = v;
                changed = true;
            }
        }
    }
    let base = least[0];
    for v in &mut least {
        *v -= base;
    }
    let legal = |s: &[i64]| cons.iter().all(|&(p, q, d)| s[q] - s[p] >= d);
    if !legal(&least) {
        return None;
    }
    if n > SEARCHED {
        return Some(least);
    }
    let cost = |s: &[i64]| -> (i64, i64) {
        let spread: i64 = flows.iter().map(|&(w, r)| (s[r] - s[w]).abs()).sum();
        (spread, s.iter().map(|x| x.abs()).sum())
    };
    Some(super::fusion::window_search(
        &least,
        SHIFT_WINDOW,
        &legal,
        &cost,
    ))
}

/// Each piece of each statement's instances in the time space `[params |
/// t_0..t_{n-1}]`, with its statement (`scop` is the run's sub-SCoP):
/// `{ t : t = E_S(x) + σ_S, x ∈ D_S }`. The pieces of a union domain are
/// made disjoint first.
pub(crate) fn time_domains(scop: &Scop, plan: &NestPlan) -> Option<Vec<(usize, BasicSet)>> {
    let np = scop.params.len();
    let n = plan.names.len();
    let names: Vec<&str> = plan.names.iter().map(|(s, _)| s.as_str()).collect();
    let space = Space::set(scop.param_names(), Tuple::new(None, &names));
    let mut out = Vec::new();
    for (k, (s, times)) in scop.stmts.iter().zip(&plan.times).enumerate() {
        let origin = origin_of(np, s.iterators.len(), times, n)?;
        for piece in disjoint_pieces(&s.domain)? {
            out.push((k, placed(&space, &piece, &origin, times)?));
        }
    }
    Some(out)
}

/// The pieces of `set`, each without the points of those before it.
fn disjoint_pieces(set: &crate::poly::Set) -> Option<Vec<BasicSet>> {
    let mut out: Vec<BasicSet> = Vec::new();
    for (k, piece) in set.pieces.iter().enumerate() {
        let mut rest = crate::poly::Set::from_basic(piece.clone());
        if k > 0 {
            let mut before = crate::poly::Set::empty(set.space.clone());
            for p in &set.pieces[..k] {
                before.push(p.clone());
            }
            rest = rest.subtract(&before).ok()??;
        }
        for p in rest.pieces {
            if p.n_exist > 0 {
                return None;
            }
            if !p.is_empty().ok()? {
                out.push(p);
            }
        }
    }
    Some(out)
}

/// One piece of a statement's domain placed in the time space.
fn placed(space: &Space, piece: &BasicSet, origin: &Origin, times: &[AffExpr]) -> Option<BasicSet> {
    let np = space.n_param();
    let n = times.len();
    {
        let mut b = BasicSet::universe(space.clone());
        let w = np + n + 1;
        // x_k = t_{d(k)} − rest(params): substitute in every row.
        let subst = |row: &[i64]| -> Option<Vec<i64>> {
            let mut r = vec![0i64; w];
            r[..np].copy_from_slice(&row[..np]);
            r[w - 1] = row[row.len() - 1];
            for (k, a) in origin.iters.iter().enumerate() {
                let c = row[np + k];
                if c == 0 {
                    continue;
                }
                for (i, v) in a.coeffs.iter().enumerate() {
                    r[i] = r[i].checked_add(c.checked_mul(*v)?)?;
                }
                r[w - 1] = r[w - 1].checked_add(c.checked_mul(a.constant)?)?;
            }
            Some(r)
        };
        for row in &piece.eqs {
            b.add_eq(subst(row)?);
        }
        for row in &piece.ineqs {
            b.add_ineq(subst(row)?);
        }
        // The time dimensions no iterator is placed in: fixed values.
        for (d, t) in times.iter().enumerate() {
            if t.coeffs[np..].iter().all(|c| *c == 0) {
                let mut r = vec![0i64; w];
                r[..np].copy_from_slice(&t.coeffs[..np]);
                r[np + d] = -1;
                r[w - 1] = t.constant;
                b.add_eq(r);
            }
        }
        Some(b)
    }
}

/// The statement's iterators in terms of the time dimensions: `x_k =
/// t_{d(k)} − rest_k(params)`, over `[params | t_0..t_{n-1}]`.
fn origin_of(np: usize, ns: usize, times: &[AffExpr], n: usize) -> Option<Origin> {
    let mut iters = Vec::with_capacity(ns);
    for k in 0..ns {
        let d = times.iter().position(|t| t.coeffs[np + k] != 0)?;
        let t = &times[d];
        let mut coeffs = vec![0i64; np + n];
        for (i, c) in t.coeffs[..np].iter().enumerate() {
            coeffs[i] = c.checked_neg()?;
        }
        coeffs[np + d] = 1;
        iters.push(AffExpr {
            coeffs,
            constant: t.constant.checked_neg()?,
        });
    }
    Some(Origin { stmt: 0, iters })
}

/// Checks the order of a re-emitted SCoP: no two instances that touch one
/// cell (one of them writing) run in the other order than in `original`.
/// `order[k]` is the origin of `fused.stmts[k]` (see
/// [`super::check::check_fused`], which must hold too). Exact, symbolic in
/// the parameters; what cannot be decided fails.
pub fn order_kept(original: &Scop, fused: &Scop, order: &[Origin]) -> Result<(), Failure> {
    let np = original.params.len();
    if order.len() != fused.stmts.len() {
        return Err(Failure::OriginsMismatch);
    }
    for (o, f) in order.iter().zip(&fused.stmts) {
        let s = original.stmts.get(o.stmt).ok_or(Failure::NoSuchStatement)?;
        let n = f.iterators.len();
        if o.iters.len() != s.iterators.len() || o.iters.iter().any(|a| a.coeffs.len() != np + n) {
            return Err(Failure::OriginShape(s.name.clone()));
        }
    }
    for a in 0..fused.stmts.len() {
        for b in 0..fused.stmts.len() {
            // Pairs where the copy `b` runs first in the new program...
            let Some(pieces) = conflicts_in_order(original, (fused, b), (fused, a), false) else {
                return Err(Failure::NotCompared);
            };
            if pieces.is_empty() {
                continue;
            }
            // ...and `a`'s instance ran first in the original.
            let (oa, ob) = (&order[a], &order[b]);
            let (sa, sb) = (&original.stmts[oa.stmt], &original.stmts[ob.stmt]);
            let (nb, na) = (
                fused.stmts[b].iterators.len(),
                fused.stmts[a].iterators.len(),
            );
            let w = np + nb + na + 1;
            // The original schedule entries over the pair's columns [y_b | y_a].
            let entries = |s: &Stmt, o: &Origin, off: usize, n: usize| -> Vec<Vec<i64>> {
                s.schedule
                    .iter()
                    .map(|e| {
                        let mut r = vec![0i64; w];
                        match e {
                            SchedEntry::Const(c) => r[w - 1] = *c,
                            SchedEntry::Iter { index, sign } => {
                                let x = &o.iters[*index];
                                for (i, c) in x.coeffs[..np].iter().enumerate() {
                                    r[i] = sign * c;
                                }
                                for (i, c) in x.coeffs[np..np + n].iter().enumerate() {
                                    r[off + i] = sign * c;
                                }
                                r[w - 1] = sign * x.constant;
                            }
                        }
                        r
                    })
                    .collect()
            };
            let before = lex_before(&entries(sa, oa, np + nb, na), &entries(sb, ob, np, nb));
            for piece in &pieces {
                for (eqs, strict) in &before {
                    let mut p = piece.clone();
                    for e in eqs {
                        p.add_eq(widened(e, p.width()));
                    }
                    p.add_ineq(widened(strict, p.width()));
                    match p.is_empty() {
                        Ok(true) => {}
                        Ok(false) => {
                            return Err(Failure::RunsBefore {
                                later: sb.name.clone(),
                                earlier: sa.name.clone(),
                            });
                        }
                        Err(e) => return Err(e.into()),
                    }
                }
            }
        }
    }
    Ok(())
}

/// The origin of each copy: its statement's iterators in terms of the
/// copy's, given the time dimensions the copy's loops scan.
pub(crate) fn copy_origin(
    scop: &Scop,
    plan: &NestPlan,
    stmt: usize,
    dims: &[Dim],
) -> Option<Origin> {
    let np = scop.params.len();
    let n = plan.names.len();
    let s = &scop.stmts[stmt];
    let base = origin_of(np, s.iterators.len(), &plan.times[stmt], n)?;
    // Each time dimension over [params | the copy's loops].
    let loops: Vec<usize> = (0..n).filter(|d| matches!(dims[*d], Dim::Loop)).collect();
    let nl = loops.len();
    let mut value: Vec<AffExpr> = Vec::with_capacity(n);
    for d in 0..n {
        let mut coeffs = vec![0i64; np + nl];
        let mut constant = 0i64;
        match &dims[d] {
            Dim::Loop => {
                let at = loops.iter().position(|l| *l == d)?;
                coeffs[np + at] = 1;
            }
            Dim::Fixed(row) => {
                // row over [params | t_0..t_{d-1} | const].
                coeffs[..np].copy_from_slice(&row[..np]);
                for (e, c) in row[np..np + d].iter().enumerate() {
                    if *c == 0 {
                        continue;
                    }
                    let v: &AffExpr = &value[e];
                    for (o, x) in coeffs.iter_mut().zip(&v.coeffs) {
                        *o = o.checked_add(c.checked_mul(*x)?)?;
                    }
                    constant = constant.checked_add(c.checked_mul(v.constant)?)?;
                }
                constant = constant.checked_add(*row.last()?)?;
            }
        }
        value.push(AffExpr { coeffs, constant });
    }
    let iters = base
        .iters
        .iter()
        .map(|x| {
            let mut coeffs = vec![0i64; np + nl];
            coeffs[..np].copy_from_slice(&x.coeffs[..np]);
            let mut constant = x.constant;
            for (d, c) in x.coeffs[np..].iter().enumerate() {
                if *c == 0 {
                    continue;
                }
                for (o, v) in coeffs.iter_mut().zip(&value[d].coeffs) {
                    *o = o.checked_add(c.checked_mul(*v)?)?;
                }
                constant = constant.checked_add(c.checked_mul(value[d].constant)?)?;
            }
            Some(AffExpr { coeffs, constant })
        })
        .collect::<Option<Vec<_>>>()?;
    Some(Origin { stmt, iters })
}

/// What a time dimension is at a statement of the scanned tree: a loop,
/// or a value over `[params | t_0..t_{d-1} | const]` (division by 1).
#[derive(Clone, Debug)]
pub(crate) enum Dim {
    Loop,
    Fixed(Vec<i64>),
}

/// The text of statement `stmt` at a copy with `origin` whose loops are
/// named `loop_names`: its accesses' subscripts printed from the model,
/// every other use of an iterator replaced by its value.
///
/// With `frame` (the statement's frame over the copy's iterators, see
/// [`crate::codegen::overflow`]), a subscript is printed from the model
/// only where each of its partial sums is proven representable (the
/// parameters first, else the iterators first); otherwise it keeps its
/// text with the iterators replaced, which computes the original's
/// partial results. A replaced iterator's value must be proven: `Err`
/// with the value that is not (`Err(None)`: not printable).
pub(crate) fn statement_text(
    program: &Program,
    scop: &Scop,
    (stmt, origin): (usize, &Origin),
    (loop_names, all_names): (&[String], &[String]),
    frame: Option<&crate::codegen::overflow::Frame>,
) -> Result<String, Option<crate::codegen::overflow::OverflowRisk>> {
    let s = &scop.stmts[stmt];
    let source = &program.source;
    let text = source.get(s.span.clone()).ok_or(None)?;
    let np = scop.params.len();
    let params = scop.param_texts();
    let is_compound = |n: &str| scop.is_compound(n);
    let name_of = |col: usize| -> String {
        if col < np {
            params[col].clone()
        } else {
            loop_names.get(col - np).cloned().unwrap_or_default()
        }
    };
    // The terms of `a` in print order: the parameters first (as before),
    // else the iterators first, positive terms first; `None` when no
    // order is proven.
    let ordered = |a: &AffExpr| -> Option<Vec<(i64, usize)>> {
        let mut terms: Vec<(i64, usize)> = a
            .coeffs
            .iter()
            .enumerate()
            .filter(|(_, c)| **c != 0)
            .map(|(k, c)| (*c, k))
            .collect();
        let Some(f) = frame else {
            return Some(terms);
        };
        if f.sum_fits(&terms, a.constant) {
            return Some(terms);
        }
        terms.sort_by_key(|(c, k)| (*k < np, *c < 0));
        f.sum_fits(&terms, a.constant).then_some(terms)
    };
    let print = |terms: &[(i64, usize)], constant: i64| -> String {
        let texts: Vec<(i64, String)> = terms.iter().map(|(c, k)| (*c, name_of(*k))).collect();
        crate::util::c_text::affine_text(&texts, constant)
    };
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    for access in s.accesses() {
        if !crate::codegen::text::exact_subscripts(source, scop, s, access) {
            continue;
        }
        for (dim, (sub, span)) in access
            .subscripts
            .iter()
            .zip(&access.subscript_spans)
            .enumerate()
        {
            if sub.coeffs[np..].iter().all(|c| *c == 0) {
                continue;
            }
            let composed = super::check::composed(sub, origin, np).ok_or(None)?;
            let Some(terms) = ordered(&composed) else {
                // Its text, with the iterators replaced below.
                continue;
            };
            edits.push((
                span.start - s.span.start..span.end - s.span.start,
                crate::codegen::text::subscript_in_place(
                    scop,
                    access,
                    dim,
                    print(&terms, composed.constant),
                ),
            ));
        }
    }
    // Other uses of the iterators.
    for (at, name) in crate::util::c_text::identifier_tokens(text, false) {
        let Some(k) = s.iterators.iter().position(|i| *i == name) else {
            if all_names.contains(&name) {
                // Another variable of a new loop's name: it would be
                // captured.
                return Err(None);
            }
            continue;
        };
        if edits.iter().any(|(r, _)| r.start <= at && at < r.end) {
            continue;
        }
        let value = origin.iters.get(k).ok_or(None)?;
        let Some(terms) = ordered(value) else {
            let ty = frame
                .and_then(|f| {
                    let mut row: Vec<i64> = value.coeffs.clone();
                    row.push(value.constant);
                    f.types_of(&row).into_iter().max()
                })
                .unwrap_or(crate::codegen::overflow::IntType::Int);
            return Err(Some(crate::codegen::overflow::OverflowRisk {
                what: format!("the value of `{name}` in a copy of {}", s.name),
                ty,
            }));
        };
        let v = print(&terms, value.constant);
        let v = crate::util::c_text::operand(&v, crate::util::c_text::Prec::Postfix, &is_compound);
        edits.push((at..at + name.len(), v));
    }
    let edits: Vec<crate::codegen::Edit> = edits
        .into_iter()
        .map(|(r, t)| crate::codegen::Edit::replace(r, t))
        .collect();
    crate::codegen::apply_edits(text, &edits).map_err(|_| None)
}

/// Why [`nest_text`] printed no text for a plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum NestRefusal {
    /// A value the text would compute is not proven representable.
    Overflow(crate::codegen::overflow::OverflowRisk),
    /// A statement would run with an iterator of another type than its
    /// own (the new loop's variable has the type of the level).
    IteratorTypes,
    /// The nest would be printed anew, and these labels (`produce:`)
    /// would have no loop of their own to stay with.
    Labelled(Vec<String>),
    /// The scanner or the printer gave nothing.
    NotPrintable,
}

impl NestRefusal {
    /// The words of the report, when there are some to say.
    pub fn describe(&self) -> Option<String> {
        match self {
            NestRefusal::Overflow(risk) => Some(risk.describe()),
            NestRefusal::IteratorTypes => Some(
                "statements whose iterators have different types would share a loop".to_string(),
            ),
            NestRefusal::Labelled(labels) => Some(format!(
                "the new nest would have no loop of its own for the label{} `{}`",
                if labels.len() == 1 { "" } else { "s" },
                labels.join("`, `")
            )),
            NestRefusal::NotPrintable => None,
        }
    }
}

/// The labels of the SCoP's statements inside `span`, in order.
fn labels_in(scop: &Scop, span: &Range<usize>) -> Vec<String> {
    fn walk(node: &SyntaxNode, out: &mut Vec<String>) {
        match node {
            SyntaxNode::Labeled { label, body, .. } => {
                out.push(label.clone());
                walk(body, out);
            }
            SyntaxNode::For { body, .. } => walk(body, out),
            SyntaxNode::If { then, els, .. } => {
                walk(then, out);
                if let Some(e) = els {
                    walk(e, out);
                }
            }
            SyntaxNode::Block { items, .. } => items.iter().for_each(|i| walk(i, out)),
            SyntaxNode::Stmt { .. }
            | SyntaxNode::Empty { .. }
            | SyntaxNode::Pragma { .. }
            | SyntaxNode::Kept { .. } => {}
        }
    }
    let mut out = Vec::new();
    for item in &scop.items {
        let at = item.node.span();
        if span.start <= at.start && at.end <= span.end {
            walk(&item.node, &mut out);
        }
    }
    out
}

/// The text that replaces `plan.span` (the SCoP's loops printed again by
/// the scanner), and the origin of each statement it prints, in order.
/// Every value the text computes is proven representable (see
/// [`crate::codegen::overflow`]), and each statement keeps its
/// iterators' types.
///
/// With `specialise`, guards on the parameters alone are decided at the
/// known values and assumed (see [`scan_specialised`]); without, they stay
/// in the text, which then holds for every value.
pub(crate) fn nest_text(
    program: &Program,
    plan: &NestPlan,
    specialise: bool,
) -> Result<NestText, NestRefusal> {
    use super::scan::{Node, ScanStmt, print_checked};
    use crate::codegen::overflow::{self, IntType};
    let full = &program.scops[plan.scop];
    let labels = labels_in(full, &plan.span);
    if !labels.is_empty() {
        return Err(NestRefusal::Labelled(labels));
    }
    let sub = sub_scop(full, plan.first..plan.first + plan.times.len());
    let scop = &sub;
    let n = plan.names.len();
    let pieces = time_domains(scop, plan).ok_or(NestRefusal::NotPrintable)?;
    let stmts: Vec<ScanStmt> = pieces
        .iter()
        .map(|(rank, domain)| ScanStmt {
            domain: domain.clone(),
            rank: *rank,
        })
        .collect();
    let (nodes, assumed) = scan_specialised(program, scop, &stmts, (n, specialise))
        .ok_or(NestRefusal::NotPrintable)?;
    // Per printed statement (in the tree's order): its statement and what
    // each level is there.
    fn leaves(nodes: &[Node], dims: &mut Vec<Option<Dim>>, out: &mut Vec<(usize, Vec<Dim>)>) {
        for node in nodes {
            match node {
                Node::Loop { level, body, .. } => {
                    let before = dims[*level].replace(Dim::Loop);
                    leaves(body, dims, out);
                    dims[*level] = before;
                }
                Node::Fixed { level, value, body } => {
                    let before = dims[*level].replace(Dim::Fixed(value.expr.clone()));
                    leaves(body, dims, out);
                    dims[*level] = before;
                }
                Node::If { body, .. } => leaves(body, dims, out),
                Node::Stmt { index } => {
                    if let Some(d) = dims.iter().cloned().collect::<Option<Vec<Dim>>>() {
                        out.push((*index, d));
                    } else {
                        // A level neither looped nor fixed: marked unusable.
                        out.push((usize::MAX, Vec::new()));
                    }
                }
            }
        }
    }
    let mut found = Vec::new();
    leaves(&nodes, &mut vec![None; n], &mut found);
    // The type of each level's variable: that of the deepest statements'
    // iterators there (all the same, or the plan is refused).
    let mut level_types: Vec<Option<IntType>> = vec![None; n];
    for s in scop.stmts.iter().filter(|s| s.loop_depth() == n) {
        for (d, t) in overflow::iterator_types(s).into_iter().take(n).enumerate() {
            match &level_types[d] {
                None => level_types[d] = Some(t),
                Some(u) if *u == t => {}
                Some(_) => return Err(NestRefusal::IteratorTypes),
            }
        }
    }
    let level_types: Vec<IntType> = level_types
        .into_iter()
        .map(|t| t.unwrap_or(IntType::Int))
        .collect();
    let facts = overflow::scop_facts(&program.source, scop);
    let np = scop.params.len();
    let mut origins = Vec::with_capacity(found.len());
    let mut texts = Vec::with_capacity(found.len());
    let width = np + n + 1;
    let all_names: Vec<String> = plan.names.iter().map(|(m, _)| m.clone()).collect();
    for (index, dims) in &found {
        let stmt = &pieces.get(*index).ok_or(NestRefusal::NotPrintable)?.0;
        if dims
            .iter()
            .any(|d| matches!(d, Dim::Fixed(r) if r.len() != width))
        {
            return Err(NestRefusal::NotPrintable);
        }
        let mut origin = copy_origin(scop, plan, *stmt, dims).ok_or(NestRefusal::NotPrintable)?;
        let loops: Vec<usize> = (0..n).filter(|d| matches!(dims[*d], Dim::Loop)).collect();
        let loop_names: Vec<String> = loops.iter().map(|d| plan.names[*d].0.clone()).collect();
        let copy_types: Vec<IntType> = loops.iter().map(|d| level_types[*d].clone()).collect();
        // An iterator that is a loop's variable (plus a constant) keeps
        // its type.
        let own = overflow::iterator_types(&scop.stmts[*stmt]);
        for (k, it) in origin.iters.iter().enumerate().take(own.len()) {
            let vars: Vec<usize> = (np..it.coeffs.len())
                .filter(|c| it.coeffs[*c] != 0)
                .collect();
            if let [c] = vars.as_slice()
                && copy_types.get(c - np).is_some_and(|t| *t != own[k])
            {
                return Err(NestRefusal::IteratorTypes);
            }
        }
        let frame = overflow::statement_frame(scop, &facts, *stmt).pulled_back(
            np,
            &origin.iters,
            &copy_types,
        );
        let text = statement_text(
            program,
            scop,
            (*stmt, &origin),
            (&loop_names, &all_names),
            Some(&frame),
        )
        .map_err(|e| e.map_or(NestRefusal::NotPrintable, NestRefusal::Overflow))?;
        texts.push(text);
        origin.stmt += plan.first;
        origins.push(origin);
    }
    let source = &program.source;
    let indent = crate::util::c_text::indent_of_line(source, plan.span.start);
    let unit = indent_unit(source, scop, &indent);
    let names: Vec<String> = plan.names.iter().map(|(s, _)| s.clone()).collect();
    let next = std::cell::Cell::new(0usize);
    // Where the loops run: the parameters' facts (the conditions the
    // text assumes included), each level a variable of its type.
    let mut frame = overflow::scop_frame(scop, &facts, &level_types);
    for row in &assumed {
        let mut r = vec![0i64; width];
        r[..np].copy_from_slice(&row[..np]);
        r[width - 1] = row[np];
        frame.restrict(&r);
    }
    let text = print_checked(
        &nodes,
        (&names, &scop.param_texts()),
        (&indent, &unit),
        &|_, _| {
            let k = next.get();
            next.set(k + 1);
            texts.get(k).cloned().unwrap_or_default()
        },
        Some(&frame),
    )
    .map_err(|e| match e {
        super::scan::PrintFailure::Overflow(risk) => NestRefusal::Overflow(risk),
        super::scan::PrintFailure::Unprintable => NestRefusal::NotPrintable,
    })?;
    if next.get() != texts.len() {
        return Err(NestRefusal::NotPrintable);
    }
    // The span starts after the first line's indentation and ends at the
    // last item's end.
    let text = text
        .strip_prefix(indent.as_str())
        .unwrap_or(&text)
        .trim_end();
    // A loop that declares its iterator (`for (int i = ...)`).
    let mut text = text.to_string();
    for (name, declares) in &plan.names {
        if let Some(ty) = declares {
            text = text.replace(&format!("for ({name} = "), &format!("for ({ty} {name} = "));
        }
    }
    Ok(NestText {
        text,
        origins,
        assumed,
    })
}

/// The printed SCoP of a [`NestPlan`].
#[derive(Clone, Debug)]
pub(crate) struct NestText {
    /// What replaces the plan's span.
    pub text: String,
    /// The origin of each statement printed, in order.
    pub origins: Vec<Origin>,
    /// Conditions on the parameters (rows over `[params | const]`, `>= 0`)
    /// the text assumes (see [`scan_specialised`]); empty when it holds for
    /// every parameter value.
    pub assumed: Vec<Vec<i64>>,
}

/// The scanned tree, and the parameter conditions it assumes: when every
/// parameter is a `#define` of the file with a known value, each guard on
/// the parameters alone is decided at those values and added to the
/// context (the condition or its integer negation), and the SCoP scanned
/// again, until no such guard is left (a few rounds at most). The caller
/// pins the conditions with a `_Static_assert`. Otherwise the guards stay,
/// and nothing is assumed.
fn scan_specialised(
    program: &Program,
    scop: &Scop,
    stmts: &[super::scan::ScanStmt],
    (n, specialise): (usize, bool),
) -> Option<(Vec<super::scan::Node>, Vec<Vec<i64>>)> {
    use super::scan::{Node, scan};
    let np = scop.params.len();
    let values = scop.param_values().ok();
    let pin = specialise && values.is_some() && program.params_are_macros(scop);
    let mut context = scop.context.clone();
    let mut assumed: Vec<Vec<i64>> = Vec::new();
    fn param_guards(nodes: &[Node], np: usize, out: &mut Vec<Vec<i64>>) {
        for node in nodes {
            match node {
                Node::Loop { body, .. } | Node::Fixed { body, .. } => param_guards(body, np, out),
                Node::If { conds, body } => {
                    for c in conds {
                        let w = c.len();
                        if c[np..w - 1].iter().all(|v| *v == 0) && !out.contains(c) {
                            out.push(c.clone());
                        }
                    }
                    param_guards(body, np, out);
                }
                Node::Stmt { .. } => {}
            }
        }
    }
    for _ in 0..4 {
        let nodes = scan(stmts, &context, n).ok()?;
        let mut guards = Vec::new();
        param_guards(&nodes, np, &mut guards);
        let (true, Some(values)) = (pin, values.as_ref()) else {
            return Some((nodes, assumed));
        };
        if guards.is_empty() {
            let assumed = without_implied(&scop.context, &assumed)?;
            return Some((nodes, assumed));
        }
        for g in guards {
            let w = g.len();
            let mut v = g[w - 1];
            for (c, x) in g[..np].iter().zip(values) {
                v = v.checked_add(c.checked_mul(*x)?)?;
            }
            let row: Vec<i64> = if v >= 0 {
                g.iter()
                    .take(np)
                    .chain(std::iter::once(&g[w - 1]))
                    .copied()
                    .collect()
            } else {
                // -g - 1 >= 0
                let mut r: Vec<i64> = g[..np].iter().map(|c| -c).collect();
                r.push(-g[w - 1] - 1);
                r
            };
            if !assumed.contains(&row) {
                context.add_ineq(row.clone());
                assumed.push(row);
            }
        }
    }
    None
}

/// `assumed` without the conditions the others and `context` imply.
fn without_implied(context: &BasicSet, assumed: &[Vec<i64>]) -> Option<Vec<Vec<i64>>> {
    let mut kept: Vec<Vec<i64>> = assumed.to_vec();
    let mut k = 0;
    while k < kept.len() {
        let mut c = context.clone();
        for (j, row) in kept.iter().enumerate() {
            if j != k {
                c.add_ineq(row.clone());
            }
        }
        c.add_ineq(crate::poly::constraints::complement_ineq(&kept[k]).ok()?);
        if c.is_empty().ok()? {
            kept.remove(k);
        } else {
            k += 1;
        }
    }
    Some(kept)
}

/// `P >= v && ...` for the conditions of [`NestText::assumed`].
pub(crate) fn assumed_condition(scop: &Scop, assumed: &[Vec<i64>]) -> String {
    let params = scop.param_texts();
    let np = params.len();
    assumed
        .iter()
        .map(|row| {
            let c = row[np];
            let terms: Vec<(i64, String)> = row[..np]
                .iter()
                .zip(&params)
                .map(|(k, p)| (*k, p.clone()))
                .collect();
            let nonzero: Vec<&(i64, String)> = terms.iter().filter(|(k, _)| *k != 0).collect();
            match nonzero.as_slice() {
                [(-1, p)] => format!("{p} <= {c}"),
                _ => format!(
                    "{} >= {}",
                    crate::util::c_text::affine_text(&terms, 0),
                    c.checked_neg().unwrap_or(i64::MAX)
                ),
            }
        })
        .collect::<Vec<_>>()
        .join(" && ")
}

/// One level of indentation as the SCoP's text uses it: the first loop
/// body's line indentation beyond the loop's (four spaces when there is
/// none to see).
fn indent_unit(source: &str, scop: &Scop, outer: &str) -> String {
    for item in &scop.items {
        if let SyntaxNode::For { body, .. } = &item.node {
            let inner = crate::util::c_text::indent_of_line(source, first_line_start(body));
            if inner.len() > outer.len() && inner.starts_with(outer) {
                return inner[outer.len()..].to_string();
            }
        }
    }
    "    ".to_string()
}

/// Where the first statement of `node` starts (inside a block's braces).
fn first_line_start(node: &SyntaxNode) -> usize {
    match node {
        SyntaxNode::Block { items, span } => items.first().map_or(span.start, first_line_start),
        other => other.span().start,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::{Options, extract};

    fn song_example2() -> Program {
        let source = include_str!("../../corpus/song_example2.c");
        extract("song_example2.c", source, &Options::default())
    }

    /// Seed 003 §5 shifts Example 2's nests by p(L1) = (1, 0), p(L2) =
    /// (0, 0), p(L3) = p(L4) = (1, 0) (our statements S2..S5); the edge
    /// loops S0 (`ZA[1][k]`) and S1 (`ZB[j][KN + 1]`) are placed with the
    /// nests that write the same arrays: S0 at `(k, 1)` with L1, S1 at
    /// `(KN + 1, j)` with L2. The shifts are those up to a translation.
    #[test]
    fn song_example2_gets_the_paper_s_shifting_vectors() {
        let program = song_example2();
        let plan = plan_nests(&program, 0).pop().expect("a plan");
        let rel: Vec<Vec<i64>> = plan
            .shifts
            .iter()
            .map(|s| s.iter().zip(&plan.shifts[3]).map(|(a, b)| a - b).collect())
            .collect();
        assert_eq!(
            rel,
            vec![
                vec![1, 0],
                vec![0, 0],
                vec![1, 0],
                vec![0, 0],
                vec![1, 0],
                vec![1, 0]
            ]
        );
        let scop = &program.scops[0];
        let np = scop.params.len();
        // S0 runs at (k + σ, 1 + σ'), S1 at (KN + 1 + σ, j + σ').
        assert_eq!(plan.times[0][1].coeffs[np..], [0]);
        assert_eq!(plan.times[0][0].coeffs[np..], [1]);
        assert_eq!(plan.times[1][0].coeffs[np..], [0]);
    }

    /// The printed nest: the prologue row of L2 alone, the steady rows with
    /// the four statements in one inner loop, the last row with the edge
    /// of ZB; no guard anywhere (the file's values decide the guards on
    /// the parameters, pinned as `JN >= 2 && KN >= 2`).
    #[test]
    fn song_example2_prints_three_inner_loops_without_guards() {
        let program = song_example2();
        let plan = plan_nests(&program, 0).pop().expect("a plan");
        let t = nest_text(&program, &plan, true).expect("a text");
        assert!(!t.text.contains("if ("), "{}", t.text);
        assert_eq!(
            t.text.matches("for (j = 2; j <= JN; j++)").count(),
            3,
            "{}",
            t.text
        );
        assert_eq!(t.text.matches("for (k = ").count(), 1, "{}", t.text);
        assert_eq!(
            assumed_condition(&program.scops[0], &t.assumed),
            "JN >= 2 && KN >= 2"
        );
        // Every statement of the steady loop, in the original order.
        let steady = &t.text[t.text.find("for (k = ").expect("steady")..];
        let at = |s: &str| steady.find(s).expect(s);
        assert!(at("ZA[1][k] = ") < at("ZA[j][k] = "));
        assert!(at("ZA[j][k] = ") < at("ZB[j][k + 1] = "));
        assert!(at("ZB[j][k + 1] = ") < at("ZP[j][k] = "));
        assert!(at("ZP[j][k] = ") < at("ZQ[j][k] = "));
    }
}
