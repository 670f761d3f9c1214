//! Code generation by scanning a union of polyhedra (the algorithm of
//! Quilleré, Rajopadhye and Wilde, as refined in CLooG).
//!
//! Input: statements whose instances are the integer points of one
//! polyhedron each in a *time space* `[params | t_0 .. t_{n-1}]`, and a
//! context on the parameters. Output: a tree of loops, fixed values,
//! guards and statements ([`Node`]) that executes every instance of every
//! statement exactly once, in lexicographic order of the time vectors and,
//! at equal time vectors, by the statements' ranks (then their indices).
//!
//! Algorithm ([`scan`]), recursive over the levels `d = 0 .. n`, with a
//! context `C` (the parameters' context and the pieces of the enclosing
//! levels) and the statements still active, each intersected with `C`:
//! 1. each domain is projected onto `[params | t_0 .. t_d]`
//!    (Fourier–Motzkin; the rational shadow is enough, because deeper
//!    levels enforce the rest, and at the last level nothing is
//!    projected);
//! 2. **separation**: the union of the projections is split into disjoint
//!    convex pieces, each labelled with the statements whose projection
//!    contains it (intersections and differences, the differences with the
//!    integer negation `-row - 1 >= 0`); integer-empty pieces are dropped
//!    (exact test);
//! 3. **ordering**: piece `A` must come before piece `B` when a point of
//!    `A` and a point of `B` with the same parameters and outer levels
//!    have `a_d < b_d` (exact integer emptiness test). A pair that must go
//!    both ways, or a cycle, is an error. Unrelated pieces keep a
//!    deterministic order (smallest rank of their statements, then
//!    creation order);
//! 4. each piece becomes guards (its constraints without `t_d` that `C`
//!    does not prove), then a `Fixed` value (an equality with a unit
//!    coefficient on `t_d`, or one lower and one upper bound that are
//!    equal wherever the loop would start) or a `Loop` whose bounds are
//!    the piece's constraints on `t_d` minus those implied by the others
//!    within `C` (exact tests); the statements, intersected with the
//!    piece, are scanned at `d + 1` in the context `C ∩ piece`;
//! 5. at `d == n` the statements of the piece are emitted by rank.
//!
//! Guarantees: the tree executes exactly the instances, each once, in the
//! order above (the test module checks this against brute-force
//! enumeration); guards proved by the context are left out, adjacent
//! guards with the same conditions are merged. Whatever cannot be
//! guaranteed is an error (`Err`), never a wrong tree: existentials,
//! unbounded loops, pieces that cannot be ordered, and the usual overflow
//! and budget errors of the polyhedral core.
//!
//! Printing ([`print`]): C text. A bound with a divisor (`ceil(e / k)`,
//! `floor(e / k)`) is printed with C's truncating `/` only when [`scan`]
//! proved `e >= 0` where the bound is evaluated ([`Bound::nonneg`]);
//! otherwise [`print`] returns `None`.
//!
//! Left out: loop strides other than 1 (no modulo guards or lattices),
//! merging of adjacent pieces with the same statements, hoisting of
//! guards common to several pieces, `min`/`max` simplification by
//! case splits, and a cost model for the choice among redundant bounds.

use crate::codegen::overflow::{Frame, IntType, OverflowRisk};
#[cfg(test)]
use crate::poly::basic::eval_row;
use crate::poly::constraints::{
    RowStatus, complement_ineq, normalize_ineq, remove_redundant, simplify,
};
#[cfg(test)]
use crate::poly::constraints::{ceil_div, floor_div};
use crate::poly::error::{PolyError, PolyResult, mul, neg, sub};
use crate::poly::project::eliminate_columns;
use crate::poly::{BasicSet, Space, Tuple};
use crate::util::c_text::{Prec, affine_text, operand};

/// One statement to scan.
#[derive(Clone, Debug)]
pub(crate) struct ScanStmt {
    /// Its instances in the time space `[params | t_0 .. t_{n-1}]` (no
    /// existentials: [`scan`] returns an error when there are some).
    pub domain: BasicSet,
    /// Its rank among the statements at the same time point (textual
    /// order); equal ranks are ordered by index.
    pub rank: usize,
}

/// A loop bound: `t_level >= ceil(expr / div)` for a lower bound,
/// `t_level <= floor(expr / div)` for an upper one, and `t_level = expr`
/// for a fixed value (`div == 1`).
///
/// `expr` is a row over `[params | t_0 .. t_{n-1} | const]` (the width of
/// the domains' rows) that uses the columns of outer levels only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Bound {
    pub expr: Vec<i64>,
    /// Positive divisor.
    pub div: i64,
    /// Whether `expr >= 0` is proved wherever the bound is evaluated, so
    /// that C's truncating division rounds as needed (always `true` when
    /// `div == 1`).
    pub nonneg: bool,
}

/// A node of the generated code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    /// `for (t_level = max(lowers); t_level <= each upper; t_level++) body`.
    Loop {
        level: usize,
        lowers: Vec<Bound>,
        uppers: Vec<Bound>,
        body: Vec<Node>,
    },
    /// `t_level` has one value: no loop, the value is substituted.
    Fixed {
        level: usize,
        value: Bound,
        body: Vec<Node>,
    },
    /// `if (every cond >= 0) body`; the conditions are rows over
    /// `[params | t_0 .. t_{n-1} | const]` using outer levels only.
    If {
        conds: Vec<Vec<i64>>,
        body: Vec<Node>,
    },
    /// One instance of statement `index` at the current time point.
    Stmt { index: usize },
}

/// Largest number of statement instances [`interpret`] executes before it
/// gives up with [`PolyError::Budget`].
#[cfg(test)]
const MAX_INTERPRET_STEPS: usize = 10_000_000;

/// The code that scans `stmts` in the order of the module docs, for
/// parameters in `context` (a set over the parameters only, no
/// existentials). `n_time` is the number of time dimensions.
pub(crate) fn scan(stmts: &[ScanStmt], context: &BasicSet, n_time: usize) -> PolyResult<Vec<Node>> {
    let n_param = context.space.n_param();
    if context.n_exist > 0 || context.space.n_dim() != 0 {
        return Err(PolyError::SpaceMismatch(
            "scan: the context must be a set of parameters without existentials".into(),
        ));
    }
    let names: Vec<String> = (0..n_time).map(|d| format!("t{d}")).collect();
    let space = Space::set(context.space.params.clone(), Tuple::anonymous(names));
    let scanner = Scanner {
        n_param,
        n_time,
        space: space.clone(),
    };
    let mut top = BasicSet::universe(space.clone());
    top.add_param_constraints(context);
    let top = simplify(&top)?;
    let mut active = Vec::new();
    for (index, stmt) in stmts.iter().enumerate() {
        let d = &stmt.domain;
        if d.n_exist > 0 {
            return Err(PolyError::Solver(
                "scan: statement domains with existentials are not supported".into(),
            ));
        }
        if d.space.n_param() != n_param || d.space.n_dim() != n_time {
            return Err(PolyError::SpaceMismatch(format!(
                "scan: statement {index} is not over {n_param} parameters and {n_time} time dimensions"
            )));
        }
        let domain = BasicSet {
            space: space.clone(),
            n_exist: 0,
            eqs: d.eqs.clone(),
            ineqs: d.ineqs.clone(),
        };
        let domain = simplify(&domain.intersect(&top)?)?;
        if !domain.is_empty()? {
            active.push(Active {
                index,
                rank: stmt.rank,
                domain,
            });
        }
    }
    scanner.level(0, &top, &active)
}

/// The fixed dimensions of one scan.
struct Scanner {
    n_param: usize,
    n_time: usize,
    space: Space,
}

/// A statement at some level: its domain intersected with the context.
#[derive(Clone, Debug)]
struct Active {
    index: usize,
    rank: usize,
    domain: BasicSet,
}

/// A piece of the separation: a convex set over `[params | t_0 .. t_d]`
/// (full-width rows) and the positions, in the active list, of the
/// statements whose projection contains it.
#[derive(Clone, Debug)]
struct Piece {
    set: BasicSet,
    stmts: Vec<usize>,
}

/// The guards and the loop (or fixed value) of one piece.
struct PieceShape {
    guards: Vec<Vec<i64>>,
    kind: LevelKind,
}

/// How one level of a piece is scanned.
enum LevelKind {
    Fixed(Bound),
    Loop {
        lowers: Vec<Bound>,
        uppers: Vec<Bound>,
    },
}

impl Scanner {
    /// Column of time dimension `d`.
    fn col(&self, d: usize) -> usize {
        self.n_param + d
    }

    /// A polyhedron over the time space with the given inequalities.
    fn with_ineqs(&self, ineqs: Vec<Vec<i64>>) -> BasicSet {
        BasicSet {
            space: self.space.clone(),
            n_exist: 0,
            eqs: Vec::new(),
            ineqs,
        }
    }

    /// The code of level `d` for the statements `active` in `context`.
    fn level(&self, d: usize, context: &BasicSet, active: &[Active]) -> PolyResult<Vec<Node>> {
        if d == self.n_time {
            let mut order: Vec<&Active> = active.iter().collect();
            order.sort_by_key(|a| (a.rank, a.index));
            return Ok(order
                .into_iter()
                .map(|a| Node::Stmt { index: a.index })
                .collect());
        }
        let mut projections = Vec::with_capacity(active.len());
        for a in active {
            projections.push(self.project(&a.domain, d)?);
        }
        let pieces = separate(&projections)?;
        let order = self.order(&pieces, d, active)?;
        let mut nodes = Vec::new();
        for p in order {
            nodes.extend(self.emit_piece(d, context, &pieces[p], active)?);
        }
        Ok(merge_guards(nodes))
    }

    /// The rational shadow of `b` on `[params | t_0 .. t_d]`, as a
    /// polyhedron over the whole time space (zero columns for the rest).
    fn project(&self, b: &BasicSet, d: usize) -> PolyResult<BasicSet> {
        let first = self.col(d + 1);
        let n_drop = self.n_time - d - 1;
        if n_drop == 0 {
            return Ok(b.clone());
        }
        let cols: Vec<usize> = (first..first + n_drop).collect();
        let dims: Vec<String> = (0..=d).map(|i| format!("t{i}")).collect();
        let small = Space::set(self.space.params.clone(), Tuple::anonymous(dims));
        let proj = eliminate_columns(b, &cols, small, 0)?.set;
        let widen = |rows: Vec<Vec<i64>>| -> Vec<Vec<i64>> {
            rows.into_iter()
                .map(|mut r| {
                    for _ in 0..n_drop {
                        r.insert(first, 0);
                    }
                    r
                })
                .collect()
        };
        Ok(BasicSet {
            space: self.space.clone(),
            n_exist: 0,
            eqs: widen(proj.eqs),
            ineqs: widen(proj.ineqs),
        })
    }

    /// The order in which the pieces of level `d` are emitted (positions in
    /// `pieces`), or an error when none is correct.
    fn order(&self, pieces: &[Piece], d: usize, active: &[Active]) -> PolyResult<Vec<usize>> {
        let n = pieces.len();
        let mut before = vec![vec![false; n]; n];
        for i in 0..n {
            for j in 0..n {
                if i != j {
                    before[i][j] = self.may_precede(&pieces[i].set, &pieces[j].set, d)?;
                }
            }
        }
        if (0..n).any(|i| (i + 1..n).any(|j| before[i][j] && before[j][i])) {
            return Err(unorderable());
        }
        let key = |p: usize| {
            let rank = pieces[p]
                .stmts
                .iter()
                .map(|&s| active[s].rank)
                .min()
                .unwrap_or(usize::MAX);
            (rank, p)
        };
        let mut done = vec![false; n];
        let mut order = Vec::with_capacity(n);
        while order.len() < n {
            let ready = (0..n)
                .filter(|&p| !done[p] && (0..n).all(|q| done[q] || !before[q][p]))
                .min_by_key(|&p| key(p));
            let Some(p) = ready else {
                return Err(unorderable());
            };
            done[p] = true;
            order.push(p);
        }
        Ok(order)
    }

    /// Whether some point of `a` and some point of `b` agree on the
    /// parameters and `t_0 .. t_{d-1}` and have `a_d < b_d`.
    fn may_precede(&self, a: &BasicSet, b: &BasicSet, d: usize) -> PolyResult<bool> {
        // Columns [params | t_0 .. t_{d-1} | a_d | b_d | const].
        let shared = self.col(d);
        let names: Vec<String> = (0..d)
            .map(|i| format!("t{i}"))
            .chain(["a".to_string(), "b".to_string()])
            .collect();
        let space = Space::set(self.space.params.clone(), Tuple::anonymous(names));
        let w = shared + 3;
        let embed = |row: &[i64], at: usize| -> Vec<i64> {
            let mut r = vec![0; w];
            r[..shared].copy_from_slice(&row[..shared]);
            r[at] = row[shared];
            r[w - 1] = row[row.len() - 1];
            r
        };
        let mut both = BasicSet::universe(space);
        for (set, at) in [(a, shared), (b, shared + 1)] {
            for r in &set.eqs {
                both.add_eq(embed(r, at));
            }
            for r in &set.ineqs {
                both.add_ineq(embed(r, at));
            }
        }
        let mut lt = vec![0; w];
        lt[shared] = -1;
        lt[shared + 1] = 1;
        lt[w - 1] = -1;
        both.add_ineq(lt);
        Ok(!both.is_empty()?)
    }

    /// The nodes of one piece at level `d` (none when it runs nothing).
    fn emit_piece(
        &self,
        d: usize,
        context: &BasicSet,
        piece: &Piece,
        active: &[Active],
    ) -> PolyResult<Vec<Node>> {
        let Some(shape) = self.shape(d, context, &piece.set)? else {
            return Ok(Vec::new());
        };
        let inner_context = remove_redundant(&context.intersect(&piece.set)?)?;
        let mut inner = Vec::new();
        for &s in &piece.stmts {
            let a = &active[s];
            let domain = simplify(&a.domain.intersect(&piece.set)?)?;
            if !domain.is_empty()? {
                inner.push(Active {
                    index: a.index,
                    rank: a.rank,
                    domain,
                });
            }
        }
        if inner.is_empty() {
            return Ok(Vec::new());
        }
        let body = self.level(d + 1, &inner_context, &inner)?;
        if body.is_empty() {
            return Ok(Vec::new());
        }
        let node = match shape.kind {
            LevelKind::Fixed(value) => Node::Fixed {
                level: d,
                value,
                body,
            },
            LevelKind::Loop { lowers, uppers } => Node::Loop {
                level: d,
                lowers,
                uppers,
                body,
            },
        };
        Ok(vec![if shape.guards.is_empty() {
            node
        } else {
            Node::If {
                conds: shape.guards,
                body: vec![node],
            }
        }])
    }

    /// The guards and bounds of `piece` at level `d` within `context`;
    /// `None` when the piece has no integer point.
    fn shape(
        &self,
        d: usize,
        context: &BasicSet,
        piece: &BasicSet,
    ) -> PolyResult<Option<PieceShape>> {
        let col = self.col(d);
        let set = simplify(piece)?;
        if set.is_obviously_empty() {
            return Ok(None);
        }
        let fixed = set.eqs.iter().position(|r| r[col].abs() == 1);
        let mut rows = Vec::new();
        let mut value = None;
        if let Some(e) = fixed {
            // t_d = value: substitute it in every other row.
            let eq = &set.eqs[e];
            let mut v = if eq[col] == 1 {
                negated(eq)?
            } else {
                eq.clone()
            };
            v[col] = 0;
            for (i, r) in set.eqs.iter().enumerate() {
                if i != e {
                    let r = substitute(r, col, &v)?;
                    rows.push(negated(&r)?);
                    rows.push(r);
                }
            }
            for r in &set.ineqs {
                rows.push(substitute(r, col, &v)?);
            }
            value = Some(v);
        } else {
            for r in &set.eqs {
                rows.push(negated(r)?);
                rows.push(r.clone());
            }
            rows.extend(set.ineqs.iter().cloned());
        }
        let Some(rows) = normalized(rows)? else {
            return Ok(None);
        };
        let rows = self.prune(context, rows)?;
        let (guards, bounds): (Vec<_>, Vec<_>) = rows.into_iter().partition(|r| r[col] == 0);
        let guarded = context.intersect(&self.with_ineqs(guards.clone()))?;
        if let Some(v) = value {
            return Ok(Some(PieceShape {
                guards,
                kind: LevelKind::Fixed(Bound {
                    expr: v,
                    div: 1,
                    nonneg: true,
                }),
            }));
        }
        let mut lowers = Vec::new();
        let mut uppers = Vec::new();
        for r in &bounds {
            let a = r[col];
            // a t + e >= 0: t >= ceil(-e / a) when a > 0, t <= floor(e / -a).
            let mut expr = if a > 0 { negated(r)? } else { r.clone() };
            expr[col] = 0;
            let div = a.abs();
            let nonneg = div == 1 || self.proves(&guarded, &expr)?;
            let b = Bound { expr, div, nonneg };
            if a > 0 {
                lowers.push(b)
            } else {
                uppers.push(b)
            }
        }
        if lowers.is_empty() || uppers.is_empty() {
            return Err(PolyError::Solver(
                "scan: a loop has no lower or no upper bound".into(),
            ));
        }
        if let ([l], [u]) = (&lowers[..], &uppers[..])
            && l.div == 1
            && u.div == 1
            && self.proves_equal(&guarded, &l.expr, &u.expr)?
        {
            return Ok(Some(PieceShape {
                guards,
                kind: LevelKind::Fixed(l.clone()),
            }));
        }
        Ok(Some(PieceShape {
            guards,
            kind: LevelKind::Loop { lowers, uppers },
        }))
    }

    /// `rows` without those implied, within `context`, by the others
    /// (exact integer tests, in order).
    fn prune(&self, context: &BasicSet, rows: Vec<Vec<i64>>) -> PolyResult<Vec<Vec<i64>>> {
        let mut kept = rows;
        let mut i = 0;
        while i < kept.len() {
            let row = kept.remove(i);
            let mut others = context.intersect(&self.with_ineqs(kept.clone()))?;
            others.add_ineq(complement_ineq(&row)?);
            if !others.is_empty()? {
                kept.insert(i, row);
                i += 1;
            }
        }
        Ok(kept)
    }

    /// Whether `expr >= 0` at every integer point of `context`.
    fn proves(&self, context: &BasicSet, expr: &[i64]) -> PolyResult<bool> {
        let mut b = context.clone();
        b.add_ineq(complement_ineq(expr)?);
        b.is_empty()
    }

    /// Whether `x == y` at every integer point of `context`.
    fn proves_equal(&self, context: &BasicSet, x: &[i64], y: &[i64]) -> PolyResult<bool> {
        let diff = difference_row(x, y)?;
        Ok(self.proves(context, &diff)? && self.proves(context, &negated(&diff)?)?)
    }
}

/// The error of pieces that no sequence orders correctly.
fn unorderable() -> PolyError {
    PolyError::Solver("scan: the pieces of a level cannot be ordered".into())
}

/// `-row`.
fn negated(row: &[i64]) -> PolyResult<Vec<i64>> {
    row.iter().map(|a| neg(*a)).collect()
}

/// `x - y`, entry by entry.
fn difference_row(x: &[i64], y: &[i64]) -> PolyResult<Vec<i64>> {
    x.iter().zip(y).map(|(a, b)| sub(*a, *b)).collect()
}

/// `row` with column `col` replaced by the affine `value` (whose own entry
/// at `col` is zero).
fn substitute(row: &[i64], col: usize, value: &[i64]) -> PolyResult<Vec<i64>> {
    let c = row[col];
    let mut out = row.to_vec();
    if c != 0 {
        for (o, v) in out.iter_mut().zip(value) {
            *o = crate::poly::error::add(*o, mul(c, *v)?)?;
        }
        out[col] = 0;
    }
    Ok(out)
}

/// The rows normalised, without trivial rows and duplicates, in their
/// first order; `None` when one is false.
fn normalized(rows: Vec<Vec<i64>>) -> PolyResult<Option<Vec<Vec<i64>>>> {
    let mut out: Vec<Vec<i64>> = Vec::new();
    for r in rows {
        match normalize_ineq(&r)? {
            RowStatus::AlwaysTrue => {}
            RowStatus::AlwaysFalse => return Ok(None),
            RowStatus::Row(r) => {
                if !out.contains(&r) {
                    out.push(r);
                }
            }
        }
    }
    Ok(Some(out))
}

/// Every constraint of `b` as inequalities (an equality gives two).
fn as_ineqs(b: &BasicSet) -> PolyResult<Vec<Vec<i64>>> {
    b.inequality_rows()
}

/// `a` minus `b` as disjoint pieces `a ∧ r_1 ∧ … ∧ r_{k-1} ∧ ¬r_k` over
/// the rows `r` of `b`, without the integer-empty ones.
fn difference(a: &BasicSet, b: &BasicSet) -> PolyResult<Vec<BasicSet>> {
    let mut out = Vec::new();
    let mut prefix = a.clone();
    for r in as_ineqs(b)? {
        let mut piece = prefix.clone();
        piece.add_ineq(complement_ineq(&r)?);
        let piece = simplify(&piece)?;
        if !piece.is_obviously_empty() && !piece.is_empty()? {
            out.push(piece);
        }
        prefix.add_ineq(r);
        if prefix.is_empty()? {
            break;
        }
    }
    Ok(out)
}

/// The separation of the union of `projections` into disjoint convex
/// pieces, each with the statements (positions) whose projection
/// contains it.
fn separate(projections: &[BasicSet]) -> PolyResult<Vec<Piece>> {
    let mut pieces: Vec<Piece> = Vec::new();
    for (s, p) in projections.iter().enumerate() {
        let mut next = Vec::new();
        // What of `p` no earlier piece covers.
        let mut rest = vec![p.clone()];
        for q in &pieces {
            let both = simplify(&q.set.intersect(p)?)?;
            if !both.is_obviously_empty() && !both.is_empty()? {
                let mut stmts = q.stmts.clone();
                stmts.push(s);
                next.push(Piece { set: both, stmts });
            }
            for set in difference(&q.set, p)? {
                next.push(Piece {
                    set,
                    stmts: q.stmts.clone(),
                });
            }
            let mut new_rest = Vec::new();
            for r in &rest {
                new_rest.extend(difference(r, &q.set)?);
            }
            rest = new_rest;
        }
        for set in rest {
            let set = simplify(&set)?;
            if !set.is_obviously_empty() && !set.is_empty()? {
                next.push(Piece {
                    set,
                    stmts: vec![s],
                });
            }
        }
        pieces = next;
    }
    Ok(pieces)
}

/// `nodes` with adjacent guards of the same conditions merged.
fn merge_guards(nodes: Vec<Node>) -> Vec<Node> {
    let mut out: Vec<Node> = Vec::with_capacity(nodes.len());
    for node in nodes {
        if let (
            Some(Node::If {
                conds: c0,
                body: b0,
            }),
            Node::If {
                conds: c1,
                body: b1,
            },
        ) = (out.last_mut(), &node)
            && c0 == c1
        {
            b0.extend(b1.iter().cloned());
            continue;
        }
        out.push(node);
    }
    out
}

/// Executes the tree for the parameter values `params`: the statement
/// instances in execution order, each with its time vector.
#[cfg(test)]
pub fn interpret(nodes: &[Node], params: &[i64]) -> PolyResult<Vec<(usize, Vec<i64>)>> {
    let width = row_width(nodes).unwrap_or(params.len() + 1);
    if width < params.len() + 1 {
        return Err(PolyError::SpaceMismatch(
            "interpret: rows narrower than the parameters".into(),
        ));
    }
    let mut point = params.to_vec();
    point.resize(width - 1, 0);
    let mut out = Vec::new();
    run(nodes, params.len(), &mut point, &mut out)?;
    Ok(out)
}

/// The width of the rows of the tree, when it has any.
fn row_width(nodes: &[Node]) -> Option<usize> {
    nodes.iter().find_map(|n| match n {
        Node::Loop { lowers, .. } => lowers.first().map(|b| b.expr.len()),
        Node::Fixed { value, .. } => Some(value.expr.len()),
        Node::If { conds, .. } => conds.first().map(Vec::len),
        Node::Stmt { .. } => None,
    })
}

/// Runs `nodes` at `point` (params then time values), appending the
/// executed instances to `out`.
#[cfg(test)]
fn run(
    nodes: &[Node],
    n_param: usize,
    point: &mut Vec<i64>,
    out: &mut Vec<(usize, Vec<i64>)>,
) -> PolyResult<()> {
    for node in nodes {
        match node {
            Node::Stmt { index } => {
                if out.len() >= MAX_INTERPRET_STEPS {
                    return Err(PolyError::Budget);
                }
                out.push((*index, point[n_param..].to_vec()));
            }
            Node::If { conds, body } => {
                let mut holds = true;
                for c in conds {
                    holds &= eval_row(c, point)? >= 0;
                }
                if holds {
                    run(body, n_param, point, out)?;
                }
            }
            Node::Fixed { level, value, body } => {
                point[n_param + level] = value_of(value, point, false)?;
                run(body, n_param, point, out)?;
            }
            Node::Loop {
                level,
                lowers,
                uppers,
                body,
            } => {
                let mut lo = i64::MIN;
                for b in lowers {
                    lo = lo.max(value_of(b, point, true)?);
                }
                let mut hi = i64::MAX;
                for b in uppers {
                    hi = hi.min(value_of(b, point, false)?);
                }
                if lowers.is_empty() || uppers.is_empty() {
                    return Err(PolyError::Solver("interpret: unbounded loop".into()));
                }
                let mut t = lo;
                while t <= hi {
                    point[n_param + level] = t;
                    run(body, n_param, point, out)?;
                    if out.len() >= MAX_INTERPRET_STEPS {
                        return Err(PolyError::Budget);
                    }
                    t = crate::poly::error::add(t, 1)?;
                }
            }
        }
    }
    Ok(())
}

/// The value of a bound at `point`: rounded up for a lower bound, down
/// otherwise.
#[cfg(test)]
fn value_of(b: &Bound, point: &[i64], lower: bool) -> PolyResult<i64> {
    let e = eval_row(&b.expr, point)?;
    if lower {
        ceil_div(e, b.div)
    } else {
        Ok(floor_div(e, b.div))
    }
}

/// The tree as C text, each line starting with `indent` plus one `unit`
/// per nesting level.
///
/// `names` gives the loop variable of each level, `params` the C operand
/// text of each parameter. `stmt_text(index, levels)` gives the text of
/// one statement (placed after the indentation, followed by a newline),
/// where `levels` holds the C text of each time dimension at that point:
/// its loop variable, or its fixed value as an operand (parenthesised when
/// not atomic). Fixed values are substituted in the bounds and guards
/// inside them.
///
/// Returns `None` when a bound with a divisor is not proved non-negative
/// (see [`Bound::nonneg`]), on overflow, or when `names` or `params` do
/// not match the rows.
#[cfg(test)]
pub fn print(
    nodes: &[Node],
    names: &[String],
    params: &[String],
    indent: &str,
    unit: &str,
    stmt_text: &dyn Fn(usize, &[String]) -> String,
) -> Option<String> {
    print_checked(nodes, (names, params), (indent, unit), stmt_text, None).ok()
}

/// Why [`print_checked`] printed nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PrintFailure {
    /// See [`print`]'s `None`.
    Unprintable,
    /// A value the text computes (a bound, the value after a loop's last
    /// iteration, a fixed value, a guard's side) is not proven
    /// representable in the frame.
    Overflow(OverflowRisk),
}

/// [`print`], and with `frame` (over `[params | t_0 .. t_{n-1}]`, the
/// type of each level's variable among its columns' types) the proof
/// that every value the text computes is representable (see
/// [`crate::codegen::overflow`]): each partial sum of a printed bound,
/// fixed value and guard; each first value of a loop's variable and the
/// value after its last iteration, in the variable's type.
pub(crate) fn print_checked(
    nodes: &[Node],
    (names, params): (&[String], &[String]),
    (indent, unit): (&str, &str),
    stmt_text: &dyn Fn(usize, &[String]) -> String,
    frame: Option<&Frame>,
) -> Result<String, PrintFailure> {
    if let Some(w) = row_width(nodes)
        && w != params.len() + names.len() + 1
    {
        return Err(PrintFailure::Unprintable);
    }
    if frame.is_some_and(|f| f.n_cols() != params.len() + names.len()) {
        return Err(PrintFailure::Unprintable);
    }
    let mut p = Printer {
        params,
        names,
        subst: vec![None; names.len()],
        level_text: names.to_vec(),
        unit,
        stmt_text,
        out: String::new(),
        frames: frame.map(|f| vec![f.clone()]),
        risk: None,
    };
    match p.nodes(nodes, indent) {
        Some(()) => Ok(p.out),
        None => Err(p
            .risk
            .map_or(PrintFailure::Unprintable, PrintFailure::Overflow)),
    }
}

/// State of [`print`].
struct Printer<'a> {
    params: &'a [String],
    names: &'a [String],
    /// The affine value of each fixed level (over params and non-fixed
    /// levels).
    subst: Vec<Option<Vec<i64>>>,
    /// C text of each level (loop variable or fixed value).
    level_text: Vec<String>,
    unit: &'a str,
    stmt_text: &'a dyn Fn(usize, &[String]) -> String,
    out: String,
    /// The frames of the levels entered, innermost last (`None`: no
    /// proofs; see [`print_checked`]).
    frames: Option<Vec<Frame>>,
    /// The first value not proven.
    risk: Option<OverflowRisk>,
}

/// Number of C statements `nodes` print as (a fixed value prints its
/// body).
fn printed_len(nodes: &[Node]) -> usize {
    nodes
        .iter()
        .map(|n| match n {
            Node::Fixed { body, .. } => printed_len(body),
            _ => 1,
        })
        .sum()
}

impl Printer<'_> {
    fn nodes(&mut self, nodes: &[Node], indent: &str) -> Option<()> {
        for n in nodes {
            self.node(n, indent)?;
        }
        Some(())
    }

    /// A loop or `if` body: braces when it is several statements.
    fn body(&mut self, head: String, body: &[Node], indent: &str) -> Option<()> {
        let inner = format!("{indent}{}", self.unit);
        if printed_len(body) > 1 {
            self.out.push_str(&format!("{indent}{head} {{\n"));
            self.nodes(body, &inner)?;
            self.out.push_str(&format!("{indent}}}\n"));
        } else {
            self.out.push_str(&format!("{indent}{head}\n"));
            self.nodes(body, &inner)?;
        }
        Some(())
    }

    fn node(&mut self, node: &Node, indent: &str) -> Option<()> {
        match node {
            Node::Stmt { index } => {
                let text = (self.stmt_text)(*index, &self.level_text);
                self.out.push_str(&format!("{indent}{text}\n"));
            }
            Node::If { conds, body } => {
                let head = format!("if ({})", self.conds_text(conds)?);
                self.enter(conds, &[]);
                let done = self.body(head, body, indent);
                self.leave();
                done?;
            }
            Node::Fixed { level, value, body } => {
                if value.div != 1 || *level >= self.names.len() {
                    return None;
                }
                let v = self.substituted(&value.expr)?;
                self.sum_proven(&v, &format!("the value of `{}`", self.names[*level]))?;
                let (terms, c) = self.terms(&v);
                let text = operand(&affine_text(&terms, c), Prec::Postfix, &|_| false);
                let saved = (self.subst[*level].take(), self.level_text[*level].clone());
                self.subst[*level] = Some(v);
                self.level_text[*level] = text;
                let mut eq = value.expr.clone();
                let col = self.params.len() + level;
                eq[col] = eq[col].checked_sub(1)?;
                self.enter(&[], &[eq]);
                let done = self.nodes(body, indent);
                self.leave();
                self.subst[*level] = saved.0;
                self.level_text[*level] = saved.1;
                done?;
            }
            Node::Loop {
                level,
                lowers,
                uppers,
                body,
            } => {
                let name = self.names.get(*level)?.clone();
                let mut lower: Option<String> = None;
                for b in lowers {
                    let t = self.bound_text(b, true, *level)?;
                    lower = Some(match lower {
                        None => t,
                        Some(acc) => {
                            let a = operand(&acc, Prec::Relational, &|_| false);
                            let b = operand(&t, Prec::Shift, &|_| false);
                            format!("({a} > {b} ? {a} : {b})")
                        }
                    });
                }
                let mut tests = Vec::new();
                for b in uppers {
                    let t = self.bound_text(b, false, *level)?;
                    tests.push(format!(
                        "{name} <= {}",
                        operand(&t, Prec::Shift, &|_| false)
                    ));
                }
                let head = format!(
                    "for ({name} = {}; {}; {name}++)",
                    lower?,
                    tests.join(" && ")
                );
                // The iterations: div * t >= lower, div * t <= upper.
                let col = self.params.len() + level;
                let mut rows = Vec::new();
                for b in lowers {
                    let mut r = negated(&b.expr).ok()?;
                    r[col] = r[col].checked_add(b.div)?;
                    rows.push(r);
                }
                for b in uppers {
                    let mut r = b.expr.clone();
                    r[col] = r[col].checked_sub(b.div)?;
                    rows.push(r);
                }
                self.enter(&rows, &[]);
                // The value after the last iteration.
                let mut next = vec![0i64; self.params.len() + self.names.len() + 1];
                next[col] = 1;
                let last = next.len() - 1;
                next[last] = 1;
                let stored = self.stored_proven(
                    &next,
                    *level,
                    &format!("the value of `{name}` after its loop's last iteration"),
                );
                let done = stored.and_then(|()| self.body(head, body, indent));
                self.leave();
                done?;
            }
        }
        Some(())
    }

    /// Enters a level: the frame on top, restricted by `ineqs >= 0` and
    /// `eqs == 0` (rows over `[params | levels | const]`).
    fn enter(&mut self, ineqs: &[Vec<i64>], eqs: &[Vec<i64>]) {
        if let Some(frames) = self.frames.as_mut()
            && let Some(top) = frames.last()
        {
            let mut f = top.clone();
            for r in ineqs {
                f.restrict(r);
            }
            for r in eqs {
                f.restrict(r);
                let minus: Vec<i64> = r.iter().map(|v| v.saturating_neg()).collect();
                f.restrict(&minus);
            }
            frames.push(f);
        }
    }

    fn leave(&mut self) {
        if let Some(frames) = self.frames.as_mut() {
            frames.pop();
        }
    }

    /// Whether each partial sum of `row` (substituted) as [`Printer::terms`]
    /// prints it is proven in the current frame (always without frames);
    /// records `what` as the risk otherwise.
    fn sum_proven(&mut self, row: &[i64], what: &str) -> Option<()> {
        let Some(frame) = self.frames.as_ref().and_then(|f| f.last()) else {
            return Some(());
        };
        let n = row.len() - 1;
        let terms: Vec<(i64, usize)> = (0..n)
            .filter(|&c| row[c] != 0)
            .map(|c| (row[c], c))
            .collect();
        if frame.sum_fits(&terms, row[n]) {
            return Some(());
        }
        let ty = frame
            .types_of(row)
            .into_iter()
            .max()
            .unwrap_or(IntType::Int);
        self.fail(what, ty)
    }

    /// Whether `row`, stored in the variable of `level`, fits its type.
    fn stored_proven(&mut self, row: &[i64], level: usize, what: &str) -> Option<()> {
        let Some(frame) = self.frames.as_ref().and_then(|f| f.last()) else {
            return Some(());
        };
        let ty = frame
            .types
            .get(self.params.len() + level)
            .cloned()
            .unwrap_or(IntType::Int);
        if frame.stores(row, &ty) {
            return Some(());
        }
        self.fail(what, ty)
    }

    fn fail(&mut self, what: &str, ty: IntType) -> Option<()> {
        self.risk.get_or_insert(OverflowRisk {
            what: what.to_string(),
            ty,
        });
        None
    }

    /// `row` with the fixed levels substituted.
    fn substituted(&self, row: &[i64]) -> Option<Vec<i64>> {
        let n_param = self.params.len();
        let mut out = row.to_vec();
        for (l, v) in self.subst.iter().enumerate() {
            if let Some(v) = v {
                out = substitute(&out, n_param + l, v).ok()?;
            }
        }
        Some(out)
    }

    /// The terms and constant of `row` (already substituted).
    fn terms(&self, row: &[i64]) -> (Vec<(i64, String)>, i64) {
        let n_param = self.params.len();
        let mut terms = Vec::new();
        for (i, &a) in row[..row.len() - 1].iter().enumerate() {
            if a != 0 {
                let name = if i < n_param {
                    self.params[i].clone()
                } else {
                    self.names[i - n_param].clone()
                };
                terms.push((a, name));
            }
        }
        (terms, row[row.len() - 1])
    }

    /// C text of a bound of the loop of `level` (its values proven, see
    /// [`print_checked`]).
    fn bound_text(&mut self, b: &Bound, lower: bool, level: usize) -> Option<String> {
        let mut e = self.substituted(&b.expr)?;
        let name = self.names.get(level)?.clone();
        let what = format!(
            "the {} bound of `{name}`",
            if lower { "lower" } else { "upper" }
        );
        if b.div == 1 {
            self.sum_proven(&e, &what)?;
            if lower {
                self.stored_proven(&e, level, &format!("the first value of `{name}`"))?;
            }
            let (terms, c) = self.terms(&e);
            return Some(affine_text(&terms, c));
        }
        if !b.nonneg || b.div < 1 {
            return None;
        }
        if lower {
            // ceil(e / k) = (e + k - 1) / k for e >= 0.
            let last = e.len() - 1;
            e[last] = e[last].checked_add(b.div - 1)?;
        }
        // The quotient of a non-negative numerator lies between 0 and it.
        self.sum_proven(&e, &what)?;
        self.stored_proven(&e, level, &what)?;
        let (terms, c) = self.terms(&e);
        let num = operand(&affine_text(&terms, c), Prec::Multiplicative, &|_| false);
        Some(format!("{num} / {}", b.div))
    }

    /// `c1 && c2 && ...`, with opposite rows printed as one equality.
    fn conds_text(&mut self, conds: &[Vec<i64>]) -> Option<String> {
        let rows: Vec<Vec<i64>> = conds
            .iter()
            .map(|c| self.substituted(c))
            .collect::<Option<_>>()?;
        let mut used = vec![false; rows.len()];
        let mut parts = Vec::new();
        for i in 0..rows.len() {
            if used[i] {
                continue;
            }
            used[i] = true;
            let minus: Vec<i64> = negated(&rows[i]).ok()?;
            let twin = (i + 1..rows.len()).find(|&j| !used[j] && rows[j] == minus);
            if let Some(j) = twin {
                used[j] = true;
            }
            parts.push(self.relation_text(&rows[i], twin.is_some())?);
        }
        Some(parts.join(" && "))
    }

    /// `row >= 0` (or `row == 0`) as `lhs op rhs`, with the innermost
    /// level (else the first parameter) alone on the left (both sides'
    /// values proven, see [`print_checked`]).
    fn relation_text(&mut self, row: &[i64], is_eq: bool) -> Option<String> {
        let n = row.len() - 1;
        let Some(pivot) = (0..n)
            .rev()
            .find(|&i| i >= self.params.len() && row[i] != 0)
            .or_else(|| (0..n).find(|&i| row[i] != 0))
        else {
            return Some(format!("{} >= 0", row[n]));
        };
        let a = row[pivot];
        let pivot_name = if pivot < self.params.len() {
            self.params[pivot].clone()
        } else {
            self.names[pivot - self.params.len()].clone()
        };
        let lhs = affine_text(&[(a.checked_abs()?, pivot_name)], 0);
        let mut lhs_row = vec![0i64; n + 1];
        lhs_row[pivot] = a.checked_abs()?;
        let mut others = row.to_vec();
        others[pivot] = 0;
        let (rest, c) = self.terms(&others);
        let (op, rest, c, rhs_row) = if a > 0 {
            let rest = rest
                .into_iter()
                .map(|(x, t)| x.checked_neg().map(|x| (x, t)))
                .collect::<Option<Vec<_>>>()?;
            let rhs_row = negated(&others).ok()?;
            (
                if is_eq { "==" } else { ">=" },
                rest,
                c.checked_neg()?,
                rhs_row,
            )
        } else {
            (if is_eq { "==" } else { "<=" }, rest, c, others)
        };
        self.sum_proven(&lhs_row, "a guard")?;
        self.sum_proven(&rhs_row, "a guard")?;
        Some(format!("{lhs} {op} {}", affine_text(&rest, c)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::rng::Rng;

    /// The time space with the given parameters and `n_time` dimensions.
    fn time_space(params: &[&str], n_time: usize) -> Space {
        Space::set(
            params.iter().map(|p| p.to_string()).collect(),
            Tuple::anonymous((0..n_time).map(|d| format!("t{d}")).collect()),
        )
    }

    /// A polyhedron over `time_space(params, n_time)`.
    fn poly(params: &[&str], n_time: usize, eqs: &[&[i64]], ineqs: &[&[i64]]) -> BasicSet {
        BasicSet {
            space: time_space(params, n_time),
            n_exist: 0,
            eqs: eqs.iter().map(|r| r.to_vec()).collect(),
            ineqs: ineqs.iter().map(|r| r.to_vec()).collect(),
        }
    }

    /// The instances of `stmts` for the parameter values `params`, by
    /// enumeration of the box `[lo, hi]^n_time`, in lexicographic order of
    /// the time vectors, then by rank and index.
    fn brute(
        stmts: &[ScanStmt],
        params: &[i64],
        n_time: usize,
        lo: i64,
        hi: i64,
    ) -> Vec<(usize, Vec<i64>)> {
        let mut by_rank: Vec<usize> = (0..stmts.len()).collect();
        by_rank.sort_by_key(|&s| (stmts[s].rank, s));
        let mut out = Vec::new();
        let mut t = vec![lo; n_time];
        loop {
            let point: Vec<i64> = params.iter().chain(&t).copied().collect();
            for &s in &by_rank {
                if stmts[s].domain.contains_point(&point).unwrap() == Some(true) {
                    out.push((s, t.clone()));
                }
            }
            // Next point of the box, last dimension fastest.
            let mut d = n_time;
            loop {
                if d == 0 {
                    return out;
                }
                d -= 1;
                if t[d] < hi {
                    t[d] += 1;
                    break;
                }
                t[d] = lo;
            }
        }
    }

    /// `S<index>(levels);`.
    fn call(index: usize, levels: &[String]) -> String {
        format!("S{index}({});", levels.join(", "))
    }

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|d| format!("t{d}")).collect()
    }

    /// Every bound of the tree can be printed (no unproved division).
    fn printable(nodes: &[Node]) -> bool {
        nodes.iter().all(|n| match n {
            Node::Loop {
                lowers,
                uppers,
                body,
                ..
            } => lowers.iter().chain(uppers).all(|b| b.nonneg) && printable(body),
            Node::Fixed { value, body, .. } => value.div == 1 && printable(body),
            Node::If { body, .. } => printable(body),
            Node::Stmt { .. } => true,
        })
    }

    /// A random row over `[N | t_0 .. t_{n-1} | const]`: coefficients
    /// mostly in -1..1, sometimes 2.
    fn random_row(rng: &mut Rng, n_time: usize, unit: &mut bool) -> Vec<i64> {
        let mut row = Vec::with_capacity(n_time + 2);
        for _ in 0..=n_time {
            let a = if rng.chance(1, 10) {
                *unit = false;
                *rng.pick(&[-2, 2])
            } else {
                rng.range(-1, 1)
            };
            row.push(a);
        }
        row.push(rng.range(-3, 3));
        row
    }

    /// A random statement: a box per dimension (an upper bound sometimes
    /// `N + c`), plus up to two random rows, sometimes an equality.
    fn random_stmt(rng: &mut Rng, n_time: usize, n_stmt: usize, unit: &mut bool) -> ScanStmt {
        let w = n_time + 2;
        let mut domain = BasicSet::universe(time_space(&["N"], n_time));
        for d in 0..n_time {
            let mut lower = vec![0; w];
            lower[1 + d] = 1;
            lower[w - 1] = -rng.range(-3, 0);
            domain.add_ineq(lower);
            let mut upper = vec![0; w];
            upper[1 + d] = -1;
            if rng.chance(1, 3) {
                upper[0] = 1;
                upper[w - 1] = rng.range(-2, 1);
            } else {
                upper[w - 1] = rng.range(0, 3);
            }
            domain.add_ineq(upper);
        }
        for _ in 0..rng.range(0, 2) {
            let row = random_row(rng, n_time, unit);
            if rng.chance(1, 6) {
                domain.add_eq(row);
            } else {
                domain.add_ineq(row);
            }
        }
        ScanStmt {
            domain,
            rank: rng.below(n_stmt),
        }
    }

    /// Property: on random problems (1 to 4 statements, 1 to 3 time
    /// dimensions, a parameter `0 <= N <= 4`), the tree runs exactly the
    /// brute-force instance list for every `N`; most problems succeed, and
    /// trees whose bounds are all printable print.
    #[test]
    fn random_problems_match_brute_force() {
        let mut rng = Rng::new(0x5CA7);
        let context = poly(&["N"], 0, &[], &[&[1, 0], &[-1, 4]]);
        let cases = 400;
        let mut ok = 0;
        let mut printed = 0;
        let mut unit_cases = 0;
        let mut unit_printed = 0;
        for case in 0..cases {
            let n_time = rng.range(1, 3) as usize;
            let n_stmt = rng.range(1, 4) as usize;
            let mut unit = true;
            let stmts: Vec<ScanStmt> = (0..n_stmt)
                .map(|_| random_stmt(&mut rng, n_time, n_stmt, &mut unit))
                .collect();
            let Ok(tree) = scan(&stmts, &context, n_time) else {
                continue;
            };
            ok += 1;
            for n in 0..=4 {
                let got = interpret(&tree, &[n]).unwrap();
                let want = brute(&stmts, &[n], n_time, -4, 6);
                assert_eq!(got, want, "case {case}, N = {n}: {stmts:?}\n{tree:?}");
            }
            let text = print(&tree, &names(n_time), &["N".to_string()], "", "  ", &call);
            if printable(&tree) {
                assert!(text.is_some(), "case {case}: {tree:?}");
            }
            printed += usize::from(text.is_some());
            if unit {
                unit_cases += 1;
                unit_printed += usize::from(text.is_some());
            }
        }
        eprintln!(
            "scan: {ok}/{cases} problems scanned, {printed} printed, \
             {unit_printed}/{unit_cases} unit-coefficient ones printed"
        );
        assert!(
            ok * 10 >= cases * 8,
            "only {ok} of {cases} problems scanned"
        );
        assert!(unit_printed * 10 >= unit_cases * 9);
    }

    /// Two shifted statements: a prologue with `S0` alone, a steady loop
    /// with both and no guard, an epilogue with `S1` alone.
    #[test]
    fn shifted_pair_prints_prologue_steady_epilogue() {
        let p = &["N"];
        let stmts = [
            ScanStmt {
                domain: poly(p, 1, &[], &[&[0, 1, 0], &[1, -1, -1]]),
                rank: 0,
            },
            ScanStmt {
                domain: poly(p, 1, &[], &[&[0, 1, -1], &[1, -1, 0]]),
                rank: 1,
            },
        ];
        let context = poly(p, 0, &[], &[&[1, -2]]);
        let tree = scan(&stmts, &context, 1).unwrap();
        let text = print(&tree, &names(1), &["N".to_string()], "", "  ", &call).unwrap();
        let want = "\
S0(0);
for (t0 = 1; t0 <= N - 1; t0++) {
  S0(t0);
  S1(t0);
}
S1(N);
";
        assert_eq!(text, want);
        for n in 2..6 {
            assert_eq!(
                interpret(&tree, &[n]).unwrap(),
                brute(&stmts, &[n], 1, -2, 8)
            );
        }
    }

    /// The shape of song_example after a shift: four statements over two
    /// time dimensions; the steady state has no guard.
    #[test]
    fn song_example_shape() {
        let p = &["N", "M"];
        // Columns [N, M, t0, t1, const].
        let t0_from_3_to_n1: [&[i64]; 2] = [&[0, 0, 1, 0, -3], &[1, 0, -1, 0, 1]];
        let t1_from_2_to_m: [&[i64]; 2] = [&[0, 0, 0, 1, -2], &[0, 1, 0, -1, 0]];
        let s0 = poly(p, 2, &[&[0, 0, 0, 1, -1]], &t0_from_3_to_n1);
        let s1 = poly(
            p,
            2,
            &[],
            &[
                t0_from_3_to_n1[0],
                t0_from_3_to_n1[1],
                t1_from_2_to_m[0],
                t1_from_2_to_m[1],
            ],
        );
        let s2 = poly(
            p,
            2,
            &[],
            &[
                &[0, 0, 1, 0, -2],
                &[1, 0, -1, 0, 0],
                t1_from_2_to_m[0],
                t1_from_2_to_m[1],
            ],
        );
        let s3 = poly(p, 2, &[&[1, 0, -1, 0, 1]], &t1_from_2_to_m);
        let stmts: Vec<ScanStmt> = [s0, s1, s2, s3]
            .into_iter()
            .enumerate()
            .map(|(rank, domain)| ScanStmt { domain, rank })
            .collect();
        let context = poly(p, 0, &[], &[&[1, 0, -3], &[0, 1, -3]]);
        let tree = scan(&stmts, &context, 2).unwrap();
        for (n, m) in [(3, 3), (4, 5), (6, 3), (5, 7)] {
            let want = brute(&stmts, &[n, m], 2, 0, 9);
            assert!(!want.is_empty());
            assert_eq!(interpret(&tree, &[n, m]).unwrap(), want, "N = {n}, M = {m}");
        }
        let params = ["N".to_string(), "M".to_string()];
        let text = print(&tree, &names(2), &params, "", "  ", &call).unwrap();
        let head = "for (t0 = 3; t0 <= N; t0++) {\n";
        let start = text.find(head).expect("a steady loop over t0") + head.len();
        let end = start + text[start..].find("\n}\n").expect("its end");
        let steady = &text[start..end];
        assert!(steady.contains("S1(t0, t1);\n    S2(t0, t1);"), "{text}");
        assert!(!steady.contains("if"), "{text}");
        let want = "\
for (t1 = 2; t1 <= M; t1++)
  S2(2, t1);
for (t0 = 3; t0 <= N; t0++) {
  S0(t0, 1);
  for (t1 = 2; t1 <= M; t1++) {
    S1(t0, t1);
    S2(t0, t1);
  }
}
S0((N + 1), 1);
for (t1 = 2; t1 <= M; t1++) {
  S1((N + 1), t1);
  S3((N + 1), t1);
}
";
        assert_eq!(text, want);
    }

    /// Guards the context does not prove are kept, printed readably, and
    /// run as guards.
    #[test]
    fn guards_print_and_run() {
        let p = &["N"];
        // S0: t0 == 0 and N >= 1 (only for N >= 1); S1: 0 <= t0 <= 2.
        let stmts = [
            ScanStmt {
                domain: poly(p, 1, &[&[0, 1, 0]], &[&[1, 0, -1]]),
                rank: 1,
            },
            ScanStmt {
                domain: poly(p, 1, &[], &[&[0, 1, 0], &[0, -1, 2]]),
                rank: 0,
            },
        ];
        let context = poly(p, 0, &[], &[&[1, 0]]);
        let tree = scan(&stmts, &context, 1).unwrap();
        for n in 0..4 {
            assert_eq!(
                interpret(&tree, &[n]).unwrap(),
                brute(&stmts, &[n], 1, -3, 5)
            );
        }
        let text = print(&tree, &names(1), &["N".to_string()], "  ", "  ", &call).unwrap();
        // The separation splits on the parameter: S0's projection holds
        // `N >= 1`, so `t0 == 0` with both statements is a piece of its own.
        let want = [
            "  if (N >= 1) {",
            "    S1(0);",
            "    S0(0);",
            "  }",
            "  if (N <= 0)",
            "    for (t0 = 0; t0 <= 2; t0++)",
            "      S1(t0);",
            "  if (N >= 1)",
            "    for (t0 = 1; t0 <= 2; t0++)",
            "      S1(t0);",
            "",
        ]
        .join("\n");
        assert_eq!(text, want);
    }

    /// Two pieces that cross (one below the other for `t0 = 0`, above for
    /// `t0 = 3`) cannot be ordered: an error, not a wrong order.
    #[test]
    fn crossing_pieces_are_an_error() {
        let p = &["N"];
        let scanner = Scanner {
            n_param: 1,
            n_time: 2,
            space: time_space(p, 2),
        };
        let box_t0: [&[i64]; 2] = [&[0, 1, 0, 0], &[0, -1, 0, 3]];
        let pieces = [
            Piece {
                set: poly(p, 2, &[&[0, 2, -1, 0]], &box_t0),
                stmts: vec![0],
            },
            Piece {
                set: poly(p, 2, &[&[0, -2, -1, 3]], &box_t0),
                stmts: vec![1],
            },
        ];
        let active: Vec<Active> = (0..2)
            .map(|index| Active {
                index,
                rank: index,
                domain: pieces[index].set.clone(),
            })
            .collect();
        assert!(scanner.order(&pieces, 1, &active).is_err());
        // Apart, on t0 <= 0, they are ordered.
        let mut apart = pieces.clone();
        for piece in &mut apart {
            piece.set.add_ineq(vec![0, -1, 0, 0]);
        }
        assert_eq!(scanner.order(&apart, 1, &active).unwrap(), vec![0, 1]);
    }

    /// Two lower bounds print as a `max`; a bound with a divisor prints
    /// with `/` only when its numerator is proved non-negative.
    #[test]
    fn max_and_division_bounds() {
        let p = &["N"];
        let context = poly(p, 0, &[], &[&[1, 0]]);
        let params = ["N".to_string()];
        let one = |ineqs: &[&[i64]]| {
            vec![ScanStmt {
                domain: poly(p, 1, &[], ineqs),
                rank: 0,
            }]
        };
        let check = |stmts: &[ScanStmt]| {
            let tree = scan(stmts, &context, 1).unwrap();
            for n in 0..7 {
                assert_eq!(
                    interpret(&tree, &[n]).unwrap(),
                    brute(stmts, &[n], 1, -5, 10)
                );
            }
            print(&tree, &names(1), &params, "", "  ", &call)
        };
        // max(0, N - 3) <= t0 <= N.
        let text = check(&one(&[&[0, 1, 0], &[-1, 1, 3], &[1, -1, 0]])).unwrap();
        assert!(
            text == "for (t0 = (0 > N - 3 ? 0 : N - 3); t0 <= N; t0++)\n  S0(t0);\n"
                || text == "for (t0 = (N - 3 > 0 ? N - 3 : 0); t0 <= N; t0++)\n  S0(t0);\n",
            "{text}"
        );
        // ceil(N / 2) <= t0 <= N, with N >= 0.
        let text = check(&one(&[&[-1, 2, 0], &[1, -1, 0]])).unwrap();
        assert_eq!(text, "for (t0 = (N + 1) / 2; t0 <= N; t0++)\n  S0(t0);\n");
        // ceil((N - 5) / 2) <= t0 <= N: N - 5 may be negative.
        assert_eq!(check(&one(&[&[-1, 2, 5], &[1, -1, 0]])), None);
    }

    /// Existentials are refused.
    #[test]
    fn existentials_are_an_error() {
        let mut domain = poly(&["N"], 1, &[], &[&[0, 1, 0]]);
        domain.add_exist();
        let context = poly(&["N"], 0, &[], &[]);
        assert!(scan(&[ScanStmt { domain, rank: 0 }], &context, 1).is_err());
    }
}
