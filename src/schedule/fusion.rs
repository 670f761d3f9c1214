//! Runs of fusable loops and their shifts (see the module doc of
//! [`crate::schedule`]).

use std::ops::Range;

use crate::ir::{AffExpr, Program, Scop, Stmt, SyntaxNode};
use crate::poly::{BasicSet, Set};

/// The largest dependence distance (in iterations of the outer loops) a
/// shift may absorb: a pair of loops farther apart than this is not fused.
const MAX_DISTANCE: i64 = 16;

/// One loop of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FusedLoop {
    /// Its index in [`Scop::items`].
    pub item: usize,
    pub iterator: String,
    /// Iteration `t` runs at fused iteration `t + shift`.
    pub shift: i64,
    /// The 1-based line of its header in the input.
    pub line: usize,
    /// The statements of the SCoP inside it, in order.
    pub stmts: Vec<usize>,
    /// Its bounds, over the SCoP's parameters (before the shift).
    pub lower: AffExpr,
    pub upper: AffExpr,
    /// Its body: the statement after the header.
    pub body: Range<usize>,
    /// Whether the body is a `{ ... }` block.
    pub body_is_block: bool,
    /// Whether the body is one statement that may follow an `if (...)`
    /// (not a declaration): the statement, or a block's only item.
    pub single: bool,
    /// Whether the body is a block that declares something: it keeps its
    /// braces (two bodies may declare the same name).
    pub scoped: bool,
    /// The type of the header's declaration (`for (int i = ...)`).
    pub declares: Option<String>,
}

/// Consecutive loops of a SCoP fused into one (with a prologue and an
/// epilogue), each shifted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FusedRun {
    pub scop: usize,
    pub loops: Vec<FusedLoop>,
    /// From the first loop's `for` to the end of the last loop.
    pub span: Range<usize>,
}

impl FusedRun {
    /// E.g. "loops `i` at lines 16 and 18 fused, the second shifted by 1".
    pub fn describe(&self) -> String {
        let lines: Vec<String> = self.loops.iter().map(|l| l.line.to_string()).collect();
        let mut names: Vec<String> = self
            .loops
            .iter()
            .map(|l| format!("`{}`", l.iterator))
            .collect();
        names.dedup();
        let shifts: Vec<String> = self
            .loops
            .iter()
            .filter(|l| l.shift != 0)
            .map(|l| format!("line {} by {}", l.line, l.shift))
            .collect();
        let shifted = if shifts.is_empty() {
            "none shifted".to_string()
        } else {
            format!("shifted: {}", shifts.join(", "))
        };
        format!(
            "loops {} at lines {} fused ({shifted})",
            names.join(", "),
            lines.join(", ")
        )
    }
}

/// The runs of `program.scops[si]` that may be fused, with their shifts.
pub fn plan_fusion(program: &Program, si: usize) -> Vec<FusedRun> {
    let scop = &program.scops[si];
    let source = &program.source;
    let mut runs = Vec::new();
    let mut current: Vec<FusedLoop> = Vec::new();
    for item in 0..scop.items.len() {
        let candidate = fusable_loop(program, scop, item);
        let joined = match (&candidate, current.last()) {
            (Some(next), Some(last)) => {
                let between = source.get(scop.items[last.item].node.span().end..span_start(scop, item));
                between.is_some_and(|t| t.trim().is_empty())
                    && last.item + 1 == item
                    && same_shape(&current[0], next)
                    && compatible_names(program, scop, &current, next)
            }
            _ => false,
        };
        let shift = if joined {
            candidate
                .as_ref()
                .and_then(|next| shift_after(scop, &current, next))
        } else {
            None
        };
        match (candidate, shift) {
            (Some(mut next), Some(shift)) => {
                next.shift = shift;
                current.push(next);
            }
            (candidate, _) => {
                close_run(si, scop, &mut current, &mut runs);
                if let Some(c) = candidate {
                    current.push(c);
                }
            }
        }
    }
    close_run(si, scop, &mut current, &mut runs);
    runs
}

fn span_start(scop: &Scop, item: usize) -> usize {
    scop.items[item].node.span().start
}

fn close_run(si: usize, scop: &Scop, current: &mut Vec<FusedLoop>, runs: &mut Vec<FusedRun>) {
    let loops = std::mem::take(current);
    if loops.len() < 2 {
        return;
    }
    let start = span_start(scop, loops[0].item);
    let end = scop.items[loops[loops.len() - 1].item].node.span().end;
    runs.push(FusedRun {
        scop: si,
        loops,
        span: start..end,
    });
}

/// Item `item` as a loop that may join a run: a `for` with a step of +1
/// whose iterator dies with it, no pragma, every statement inside it in
/// its loop, bounds that are one affine expression each.
fn fusable_loop(program: &Program, scop: &Scop, item: usize) -> Option<FusedLoop> {
    let it = &scop.items[item];
    if !it.pragmas.is_empty() {
        return None;
    }
    let SyntaxNode::For {
        span,
        header: Some(header),
        body,
        keeps_iterator: false,
    } = &it.node
    else {
        return None;
    };
    if header.step != 1 {
        return None;
    }
    let stmts: Vec<usize> = scop
        .stmts
        .iter()
        .enumerate()
        .filter(|(_, s)| span.start <= s.span.start && s.span.end <= span.end)
        .map(|(k, _)| k)
        .collect();
    let first = scop.stmts.get(*stmts.first()?)?;
    for &k in &stmts {
        let s = &scop.stmts[k];
        if s.loop_depth() == 0
            || s.iterators[0] != header.iterator
            || s.iterators[1..].contains(&header.iterator)
            || s.parallel.iter().any(Option::is_some)
        {
            return None;
        }
    }
    let (lower, upper) = bounds(scop, first)?;
    // The loop domains of every statement agree on the outer loop.
    for &k in &stmts[1..] {
        if bounds(scop, &scop.stmts[k])? != (lower.clone(), upper.clone()) {
            return None;
        }
    }
    let line = program.source[..span.start].matches('\n').count() + 1;
    Some(FusedLoop {
        item,
        iterator: header.iterator.clone(),
        shift: 0,
        line,
        stmts,
        lower,
        upper,
        body: body.span(),
        body_is_block: matches!(**body, SyntaxNode::Block { .. }),
        single: match &**body {
            SyntaxNode::Block { items, .. } => {
                matches!(items.as_slice(), [x] if !matches!(x, SyntaxNode::Kept { .. } | SyntaxNode::Pragma { .. }))
            }
            _ => true,
        },
        scoped: match &**body {
            SyntaxNode::Block { items, .. } => items
                .iter()
                .any(|x| matches!(x, SyntaxNode::Kept { .. } | SyntaxNode::Pragma { .. })),
            _ => false,
        },
        declares: header.declares.clone(),
    })
}

/// The outer loop's bounds `lower <= i <= upper` as affine expressions of
/// the parameters, from the statement's first loop domain: one piece,
/// no existential, one lower and one upper bound of coefficient 1, and no
/// other constraint.
fn bounds(scop: &Scop, stmt: &Stmt) -> Option<(AffExpr, AffExpr)> {
    let domain = stmt.loop_domains.first()?;
    let [piece] = domain.pieces.as_slice() else {
        return None;
    };
    if piece.n_exist != 0 || !piece.eqs.is_empty() {
        return None;
    }
    let np = scop.params.len();
    if piece.space.n_param() != np {
        return None;
    }
    let width = piece.width();
    let col = np;
    let (mut lower, mut upper) = (None, None);
    for row in &piece.ineqs {
        // Only the parameters, the outer iterator and the constant.
        if row[np + 1..width - 1].iter().any(|c| *c != 0) {
            return None;
        }
        let params = row[..np].to_vec();
        match row[col] {
            // i + p >= 0: i >= -p.
            1 => {
                let aff = AffExpr {
                    coeffs: params.iter().map(|c| -c).collect(),
                    constant: -row[width - 1],
                };
                if lower.replace(aff).is_some() {
                    return None;
                }
            }
            // -i + p >= 0: i <= p.
            -1 => {
                let aff = AffExpr {
                    coeffs: params,
                    constant: row[width - 1],
                };
                if upper.replace(aff).is_some() {
                    return None;
                }
            }
            _ => return None,
        }
    }
    Some((lower?, upper?))
}

/// Whether two loops' bounds differ by constants only (the prologue and
/// the epilogue then run a constant number of iterations).
fn same_shape(a: &FusedLoop, b: &FusedLoop) -> bool {
    a.lower.coeffs == b.lower.coeffs && a.upper.coeffs == b.upper.coeffs
}

/// Whether `next`'s body may be printed inside a loop over the run's
/// iterator: it does not use the run's iterator name for anything else,
/// and no macro reads either iterator behind the text's back.
fn compatible_names(program: &Program, scop: &Scop, run: &[FusedLoop], next: &FusedLoop) -> bool {
    let name = &run[0].iterator;
    let body = &program.source[next.body.clone()];
    if next.iterator != *name && tokens(body).iter().any(|(_, t)| t == name) {
        return false;
    }
    let mentions = |text: &str| {
        tokens(text)
            .iter()
            .any(|(_, t)| t == name || *t == next.iterator)
    };
    if program.macros.objects.iter().any(|m| mentions(&m.body))
        || program.macros.functions.iter().any(|m| mentions(&m.body))
    {
        return false;
    }
    // No statement of the run is nested under a loop of the same name.
    run.iter()
        .chain([next])
        .flat_map(|l| l.stmts.iter())
        .all(|&k| !scop.stmts[k].iterators[1..].contains(name))
}

/// The identifiers of C text, with their offsets, outside comments and
/// literals (a member name after `.` or `->` is not one).
pub fn tokens(text: &str) -> Vec<(usize, String)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut k = 0;
    let mut member = false;
    while k < bytes.len() {
        let c = bytes[k];
        if c == b'/' && bytes.get(k + 1) == Some(&b'/') {
            while k < bytes.len() && bytes[k] != b'\n' {
                k += 1;
            }
        } else if c == b'/' && bytes.get(k + 1) == Some(&b'*') {
            k += 2;
            while k < bytes.len() && !(bytes[k] == b'*' && bytes.get(k + 1) == Some(&b'/')) {
                k += 1;
            }
            k += 2;
        } else if c == b'"' || c == b'\'' {
            k += 1;
            while k < bytes.len() && bytes[k] != c && bytes[k] != b'\n' {
                k += if bytes[k] == b'\\' { 2 } else { 1 };
            }
            k += 1;
            member = false;
        } else if c.is_ascii_digit() {
            while k < bytes.len()
                && (bytes[k].is_ascii_alphanumeric() || bytes[k] == b'_' || bytes[k] == b'.')
            {
                k += 1;
            }
            member = false;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let start = k;
            while k < bytes.len() && (bytes[k].is_ascii_alphanumeric() || bytes[k] == b'_') {
                k += 1;
            }
            if !member {
                out.push((start, text[start..k].to_string()));
            }
            member = false;
        } else {
            if c == b'.' || (c == b'>' && k > 0 && bytes[k - 1] == b'-') {
                member = true;
            } else if !c.is_ascii_whitespace() {
                member = false;
            }
            k += 1;
        }
    }
    out
}

/// The smallest shift of `next` after the loops of `run` (already
/// shifted) that keeps every dependence from them to it: `None` when some
/// distance is not bounded by [`MAX_DISTANCE`] or cannot be decided.
fn shift_after(scop: &Scop, run: &[FusedLoop], next: &FusedLoop) -> Option<i64> {
    let mut shift: Option<i64> = None;
    for earlier in run {
        for &s in &earlier.stmts {
            for &t in &next.stmts {
                if let Some(d) = max_distance(scop, &scop.stmts[s], &scop.stmts[t])? {
                    let need = earlier.shift.checked_add(d)?;
                    shift = Some(shift.map_or(need, |x| x.max(need)));
                }
            }
        }
    }
    // Independent loops: fused as they are.
    Some(shift.unwrap_or(0))
}

/// For statements `a` (earlier) and `b` (later): the largest `s_0 − t_0`
/// over every pair of their instances that touch one cell, one of them
/// writing. `Some(None)`: no such pair; `None`: above [`MAX_DISTANCE`] or
/// undecided.
fn max_distance(scop: &Scop, a: &Stmt, b: &Stmt) -> Option<Option<i64>> {
    let mut best: Option<i64> = None;
    for x in a.accesses() {
        for y in b.accesses() {
            if x.array != y.array
                || (x.kind == crate::ir::AccessKind::Read && y.kind == crate::ir::AccessKind::Read)
            {
                continue;
            }
            let pairs = conflict_pairs(scop, a, b, &x.subscripts, &y.subscripts)?;
            if pairs.is_empty().ok()? {
                continue;
            }
            let d = bound_distance(&pairs)?;
            best = Some(best.map_or(d, |v| v.max(d)));
        }
    }
    Some(best)
}

/// `{ [s] -> [t] : s ∈ D_a, t ∈ D_b, f(s) = g(t) }` within the context.
fn conflict_pairs(scop: &Scop, a: &Stmt, b: &Stmt, f: &[AffExpr], g: &[AffExpr]) -> Option<Set> {
    if f.len() != g.len() {
        return None;
    }
    let np = scop.params.len();
    let na = a.iterators.len();
    let nb = b.iterators.len();
    let product = a.domain.product(&b.domain).ok()?;
    if product.space.n_param() != np {
        return None;
    }
    let mut out = Set::empty(product.space.clone());
    for piece in &product.pieces {
        let mut p = piece.clone();
        let w = p.width();
        for (fs, gs) in f.iter().zip(g) {
            let mut row = vec![0i64; w];
            for c in 0..np {
                row[c] = fs.coeffs[c].checked_sub(gs.coeffs[c])?;
            }
            for d in 0..na {
                row[np + d] = fs.coeffs[np + d];
            }
            for d in 0..nb {
                row[np + na + d] = gs.coeffs[np + d].checked_neg()?;
            }
            row[w - 1] = fs.constant.checked_sub(gs.constant)?;
            p.add_eq(row);
        }
        p.add_param_constraints(&scop.context);
        out.push(p);
    }
    Some(out)
}

/// The smallest `d` in `[-MAX_DISTANCE, MAX_DISTANCE]` with `s_0 − t_0 <=
/// d` on every pair (the pairs' relation has `s` then `t` after the
/// parameters).
fn bound_distance(pairs: &Set) -> Option<i64> {
    let np = pairs.space.n_param();
    let t0 = np + pairs.space.n_in();
    // Whether some pair has s_0 - t_0 >= d + 1.
    let exceeds = |d: i64| -> Option<bool> {
        for piece in &pairs.pieces {
            let mut p: BasicSet = piece.clone();
            let mut row = p.zero_row();
            row[np] = 1;
            row[t0] = -1;
            let w = row.len();
            row[w - 1] = -(d + 1);
            p.add_ineq(row);
            if !p.is_empty().ok()? {
                return Some(true);
            }
        }
        Some(false)
    };
    if exceeds(MAX_DISTANCE)? {
        return None;
    }
    let (mut lo, mut hi) = (-MAX_DISTANCE - 1, MAX_DISTANCE);
    // Invariant: exceeds(hi) is false; exceeds(lo) is true or lo is below
    // the range.
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if exceeds(mid)? {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(hi)
}
