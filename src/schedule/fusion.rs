//! Runs of fusable loops and their shifts (see the module doc of
//! [`crate::schedule`]).

use std::ops::Range;

use crate::ir::{AffExpr, Ordering, Program, Scop, Stmt, SyntaxNode};
use crate::poly::{BasicSet, Set};
use crate::util::c_text::indent_of_line;

use super::bounds::{bounds, bounds_of};

/// The largest dependence distance (in iterations of the outer loops) a
/// shift may absorb: a pair of loops farther apart than this is not fused.
const MAX_DISTANCE: i64 = 16;

/// One loop of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FusedLoop {
    /// Its index among its siblings (the items of the SCoP or of the
    /// block around it).
    pub item: usize,
    pub iterator: String,
    /// Its body runs with its iterator at the fused loop's variable minus
    /// `shift` (for a loop of step +1, iteration `t` runs at fused
    /// iteration `t + shift`).
    pub shift: i64,
    /// How many iterations of the run's order (see [`FusedLoop::stride`])
    /// later than the first loop's same iteration count it runs: its
    /// iteration number `τ` (0 for the first value of its iterator) runs
    /// at the fused loop's `τ + lag`.
    pub lag: i64,
    /// +1 for an increasing loop, -1 for a decreasing one.
    pub direction: i64,
    /// The constant distance between two consecutive values of its
    /// iterator (1 for `i++` or `i--`, 2 for `i += 2`).
    pub stride: i64,
    /// The constant of its first value (its lower bound when it
    /// increases, its upper bound when it decreases); only its difference
    /// with the first loop's counts (the bounds differ by constants).
    pub start_constant: i64,
    /// Where its text starts: its first hint pragma, else its labels or
    /// its `for`.
    pub lead: usize,
    /// Its hint pragmas (see [`hint_pragma`]), as written, in order.
    pub hints: Vec<Range<usize>>,
    /// The comments before it (after the loop or item before it) and in
    /// its header, which the fused text prints before the fused loop.
    pub comments: Vec<Range<usize>>,
    /// The 1-based line of its header in the input.
    pub line: usize,
    /// The statements of the SCoP inside it, in order.
    pub stmts: Vec<usize>,
    /// Its bounds, over the SCoP's parameters and the enclosing loops'
    /// iterators (before the shift).
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
    /// The arrays its statements write, and read.
    pub writes: Vec<crate::ir::ArrayId>,
    pub reads: Vec<crate::ir::ArrayId>,
    /// Where its `for` starts (after its labels).
    pub start: usize,
    /// Its labels (`produce: for ...`), outermost first.
    pub labels: Vec<LoopLabel>,
    /// Whether a labelled statement sits in its body.
    pub labels_inside: bool,
}

/// A label of a loop of a run, with its layout in the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopLabel {
    pub name: String,
    /// Where the label starts.
    pub start: usize,
    /// Whether its statement starts on a later line.
    pub own_line: bool,
}

/// Consecutive loops of a SCoP fused into one (with a prologue and an
/// epilogue), each shifted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FusedRun {
    pub scop: usize,
    /// How many loops enclose the run's loops.
    pub depth: usize,
    /// +1 when the run's loops increase, -1 when they decrease.
    pub direction: i64,
    /// The stride of the run's loops (see [`FusedLoop::stride`]).
    pub stride: i64,
    /// 0 for a run of the input; `r` for a run of the program that `r`
    /// rounds of fusion made (its loops' lines are that program's).
    pub round: usize,
    /// Items between the loops that touch nothing the loops before them
    /// touch: printed first, as they are (each with the comments before
    /// it).
    pub hoisted: Vec<Range<usize>>,
    /// The iterators of the enclosing loops, outermost first.
    pub outer: Vec<String>,
    pub loops: Vec<FusedLoop>,
    /// From the first loop's hint pragma (else its labels or its `for`)
    /// to the end of the last loop.
    pub span: Range<usize>,
}

impl FusedRun {
    /// E.g. "loops `i` at lines 16, 18 fused (shifted: line 18 by 1)"; a
    /// run of a later round names its loops by their rank ("the 2nd").
    pub fn describe(&self) -> String {
        if self.round > 0 {
            let shifts: Vec<String> = self
                .loops
                .iter()
                .enumerate()
                .filter(|(_, l)| l.lag != 0)
                .map(|(k, l)| format!("loop {} by {}", k + 1, l.lag))
                .collect();
            let shifted = if shifts.is_empty() {
                "none shifted".to_string()
            } else {
                format!("shifted: {}", shifts.join(", "))
            };
            let shifted = format!("{}{shifted}", self.order_words());
            return format!(
                "then the {} loops `{}` inside loop `{}` fused ({shifted})",
                self.loops.len(),
                self.loops[0].iterator,
                self.outer.last().map_or("?", String::as_str)
            );
        }
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
            .filter(|l| l.lag != 0)
            .map(|l| format!("line {} by {}", l.line, l.lag))
            .collect();
        let shifted = if shifts.is_empty() {
            "none shifted".to_string()
        } else {
            format!("shifted: {}", shifts.join(", "))
        };
        let shifted = format!("{}{shifted}", self.order_words());
        format!(
            "loops {} at lines {} fused ({shifted})",
            names.join(", "),
            lines.join(", ")
        )
    }
}

impl FusedRun {
    /// "decreasing, ", "stride 2, ", "decreasing, stride 2, " or nothing
    /// (increasing by 1): the shifts of such a run count iterations of
    /// its own order.
    fn order_words(&self) -> String {
        let mut out = String::new();
        if self.direction < 0 {
            out.push_str("decreasing, ");
        }
        if self.stride != 1 {
            out.push_str(&format!("stride {}, ", self.stride));
        }
        out
    }
}

/// The runs of `program.scops[si]` that may be fused, with their shifts,
/// at every depth, none inside another.
pub fn plan_fusion(program: &Program, si: usize, column_walks: bool) -> Vec<FusedRun> {
    let planning = Planning {
        column_walks,
        c_orders: true,
    };
    plan_fusion_with(program, si, planning)
}

/// How runs are planned.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Planning {
    /// Whether loops whose innermost statements walk an array across its
    /// rows may join a run (`--min-memory`).
    pub column_walks: bool,
    /// Whether the orders of real C hold (calls, arrays that may
    /// overlap; see [`crate::ir::order`]). Only the report's question
    /// "what would fuse without them" turns them off.
    pub c_orders: bool,
}

/// [`plan_fusion`] with the planning options.
pub(crate) fn plan_fusion_with(program: &Program, si: usize, planning: Planning) -> Vec<FusedRun> {
    let scop = &program.scops[si];
    // A model that folded a known value (`A[N0 * i]` read as `A[4 * i]`)
    // holds for that value only: the dependences through a domain or an
    // array written in the SCoP would be wrong for another value (an
    // array the SCoP only reads makes no dependence; its subscripts are
    // printed from their text, see `emit::body_text`). Found by the
    // random-program campaign, seed 62001096, built with -DN0=3.
    let written = |a: &crate::ir::Array| scop.stmts.iter().any(|s| s.write.array == a.id);
    if scop.domains_value_used || scop.arrays.iter().any(|a| a.value_used && written(a)) {
        return Vec::new();
    }
    let top: Vec<Sibling> = scop
        .items
        .iter()
        .map(|i| (&i.node, &i.pragmas[..]))
        .collect();
    let mut runs = Vec::new();
    siblings(program, si, (&top, &[], planning), &mut runs);
    runs
}

/// A sibling item: its node and the `#pragma` lines before it that apply
/// to it when they are not nodes of their own (a SCoP's top-level items).
type Sibling<'a> = (&'a SyntaxNode, &'a [Range<usize>]);

/// The runs among `nodes` (siblings under the loops `outer`), then inside
/// the loops that are in none.
fn siblings(
    program: &Program,
    si: usize,
    (nodes, outer, planning): (&[Sibling], &[String], Planning),
    runs: &mut Vec<FusedRun>,
) {
    let scop = &program.scops[si];
    let source = &program.source;
    let first_new = runs.len();
    let mut current: Vec<FusedLoop> = Vec::new();
    // deltas[b][a]: the least shift of loop b after loop a (`None`: no
    // dependence), for the loops of `current`.
    let mut deltas: Vec<Vec<Option<i64>>> = Vec::new();
    // Items between the run's loops that the run moves before its loops
    // (independent of the loops before them), and the last item taken.
    let mut hoisted: Vec<usize> = Vec::new();
    let mut last_taken = 0usize;
    let candidate_at = |item: usize| fusable_loop(program, scop, nodes, item, outer);
    // Where item `item` starts with its hint pragmas, when it is a loop
    // that may join a run.
    let lead_of = |item: usize| {
        candidate_at(item).map_or((item, nodes[item].0.span().start), |c| (c.0, c.1.lead))
    };
    // Whether only comments sit between item `a` and the loop `b` (its
    // hint pragmas included).
    let next_to = |a: usize, b: usize| {
        let (lead, byte) = lead_of(b);
        a + 1 == lead
            && source
                .get(nodes[a].0.span().end..byte)
                .is_some_and(only_comments)
    };
    // The loop whose hint pragmas start at `item`, or `item`.
    let loop_at = |item: usize| {
        if matches!(nodes[item].0, SyntaxNode::Pragma { .. }) {
            hinted_loop_after(program, scop, nodes, item, outer).unwrap_or(item)
        } else {
            item
        }
    };
    let mut item = 0;
    loop {
        // A lone loop moved nothing: the loops it would have moved may
        // head runs of their own, scanned again without it.
        let lone_moved =
            || current.len() == 1 && hoisted.iter().any(|&h| candidate_at(h).is_some());
        if item >= nodes.len() {
            if !lone_moved() {
                break;
            }
            item = hoisted[0];
            current.clear();
            deltas.clear();
            hoisted.clear();
            continue;
        }
        // Hint pragmas (nodes of their own) before a loop that may join a
        // run go with that loop.
        if matches!(nodes[item].0, SyntaxNode::Pragma { .. })
            && hinted_loop_after(program, scop, nodes, item, outer).is_some()
        {
            item += 1;
            continue;
        }
        let candidate = candidate_at(item);
        let candidate = candidate.map(|c| c.1);
        let adjacent = !current.is_empty() && next_to(last_taken, item);
        let joined = match (&candidate, current.last()) {
            (Some(next), Some(_)) => {
                adjacent
                    && same_shape(&current[0], next)
                    && same_hints(source, &current[0], next)
                    && (planning.column_walks || walks_outside_inner(scop, &current, next, outer))
                    && compatible_names(program, scop, &current, next, outer.len())
            }
            _ => false,
        };
        let row = if joined {
            candidate
                .as_ref()
                .and_then(|next| distances(scop, &current, next, (outer.len(), planning.c_orders)))
        } else {
            None
        };
        match (candidate, row) {
            (Some(mut next), Some(row)) => {
                let gap = nodes[last_taken].0.span().end..next.lead;
                let mut before = comments_in(source, gap);
                before.append(&mut next.comments);
                next.comments = before;
                current.push(next);
                deltas.push(row);
                last_taken = item;
            }
            (candidate, _) => {
                // An item that does not touch what the run's loops touch
                // may move before them, so that the loops after it join
                // (3mm: `F`'s nest before `E`'s, whose rows then fuse with
                // `G`'s); but a loop that may head a run of its own with
                // the loop after it does not move before a lone loop (a
                // chain after a loop of another shape is fused with its
                // own kind).
                let heads_a_run = candidate.as_ref().is_some_and(|c| {
                    let next = if item + 1 < nodes.len() {
                        loop_at(item + 1)
                    } else {
                        item + 1
                    };
                    current.len() == 1
                        && next < nodes.len()
                        && next_to(item, next)
                        && candidate_at(next).is_some_and(|n| same_shape(c, &n.1))
                });
                if adjacent
                    && !heads_a_run
                    && nodes[item].1.is_empty()
                    && independent(
                        scop,
                        nodes[item].0,
                        &current,
                        (outer.len(), planning.c_orders),
                    )
                {
                    hoisted.push(item);
                    last_taken = item;
                    item += 1;
                    continue;
                }
                if lone_moved() {
                    // (Scanned again from its first moved item, above.)
                    item = nodes.len();
                    continue;
                }
                close_run(
                    (program, si),
                    nodes,
                    outer,
                    (&mut current, &deltas, &hoisted),
                    runs,
                );
                deltas.clear();
                hoisted.clear();
                if let Some(c) = candidate {
                    current.push(c);
                    deltas.push(Vec::new());
                    last_taken = item;
                }
            }
        }
        item += 1;
    }
    close_run(
        (program, si),
        nodes,
        outer,
        (&mut current, &deltas, &hoisted),
        runs,
    );
    // Inside the loops that no run takes.
    for (node, _) in nodes {
        let span = node.span();
        if runs[first_new..]
            .iter()
            .any(|r| r.span.start <= span.start && span.end <= r.span.end)
        {
            continue;
        }
        if let SyntaxNode::For {
            header: Some(h),
            body,
            ..
        } = node.unlabelled()
        {
            let mut inner = outer.to_vec();
            inner.push(h.iterator.clone());
            descend(program, si, (body, &inner, planning), runs);
        }
    }
}

/// Whether `text` holds nothing but blanks and comments (no line splice).
fn only_comments(text: &str) -> bool {
    crate::util::c_text::tokens(text).is_empty() && !text.contains("\\\n")
}

/// The comments in `source[range]` (outside string and character
/// literals), in order.
fn comments_in(source: &str, range: Range<usize>) -> Vec<Range<usize>> {
    let Some(text) = source.get(range.clone()) else {
        return Vec::new();
    };
    crate::util::c_text::comments(text)
        .into_iter()
        .map(|r| range.start + r.start..range.start + r.end)
        .collect()
}

/// Whether the `#pragma` line `text` is a pure hint about how to compile
/// the loop after it, which says nothing about what the loop computes or
/// which of its iterations may overlap: `GCC unroll N`, `unroll`,
/// `unroll N`, `unroll(N)`, `nounroll`, `GCC novector`, `clang loop
/// unroll(...)`, `clang loop unroll_count(N)`. Anything else (`omp`,
/// `GCC ivdep`, `simd`, `clang loop vectorize(assume_safety)`, a pragma
/// polyfold does not know) is not: it may promise that iterations are
/// independent, or mean something to another tool.
pub(crate) fn hint_pragma(text: &str) -> bool {
    use crate::util::c_text::{TokenKind, tokens};
    let text = text.trim();
    if text.contains('\n') {
        return false;
    }
    let toks = tokens(text);
    let words: Vec<&str> = toks.iter().map(|(r, _)| &text[r.clone()]).collect();
    let int = |k: usize| matches!(toks.get(k), Some((_, TokenKind::Int(_))));
    let Some(rest) = words.strip_prefix(&["#", "pragma"]) else {
        return false;
    };
    match rest {
        ["GCC", "unroll", _] => int(4),
        ["unroll"] | ["nounroll"] | ["GCC", "novector"] => true,
        ["unroll", _] => int(3),
        ["unroll", "(", _, ")"] => int(4),
        ["clang", "loop", "unroll", "(", w, ")"] => matches!(*w, "enable" | "disable" | "full"),
        ["clang", "loop", "unroll_count", "(", _, ")"] => int(6),
        _ => false,
    }
}

/// The loop after the `#pragma` node `nodes[item]` (and the pragma nodes
/// after it) when each of them is a hint ([`hint_pragma`]) and the loop
/// may join a run: its index.
fn hinted_loop_after(
    program: &Program,
    scop: &Scop,
    nodes: &[Sibling],
    item: usize,
    outer: &[String],
) -> Option<usize> {
    let mut k = item;
    while matches!(nodes.get(k)?.0, SyntaxNode::Pragma { .. }) {
        k += 1;
    }
    let (lead, _) = fusable_loop(program, scop, nodes, k, outer)?;
    (lead <= item).then_some(k)
}

/// The runs inside the body of a loop (under the loops `outer`): in a
/// block, a loop, or the branch of an `if` without `else` (the condition
/// is in the statements' domains).
fn descend(
    program: &Program,
    si: usize,
    (body, outer, planning): (&SyntaxNode, &[String], Planning),
    runs: &mut Vec<FusedRun>,
) {
    match body {
        SyntaxNode::Block { items, .. } => {
            let list: Vec<Sibling> = items.iter().map(|n| (n, &[][..])).collect();
            siblings(program, si, (&list, outer, planning), runs);
        }
        SyntaxNode::For { .. } | SyntaxNode::Labeled { .. } => {
            siblings(program, si, (&[(body, &[][..])], outer, planning), runs)
        }
        SyntaxNode::If {
            then, els: None, ..
        } => descend(program, si, (then, outer, planning), runs),
        _ => {}
    }
}

/// Whether the run `current` with `next` may be fused although a loop
/// walks an array across its rows (see [`walks_columns`]): no loop walks,
/// or every loop that walks holds no loop and another one does, or a
/// walking loop holds a loop and one step of the fused loop touches
/// little memory at the known sizes. The
/// walking statements then run once per step of the fused loop, outside
/// its inner loops, as they ran once per step of their own (a boundary
/// column `M[b][0]` written before the fill of row `b`); no inner loop
/// changes. A walking loop that holds a loop, fused, shares its steps
/// with other rows (gauss, 2mm: measured slower, see `walks_columns`).
fn walks_outside_inner(
    scop: &Scop,
    current: &[FusedLoop],
    next: &FusedLoop,
    outer: &[String],
) -> bool {
    let run = || current.iter().chain(std::iter::once(next));
    let nests = |l: &FusedLoop| {
        l.stmts
            .iter()
            .any(|&k| scop.stmts[k].loop_depth() > outer.len() + 1)
    };
    let walking: Vec<&FusedLoop> = run().filter(|l| walks_columns(scop, l)).collect();
    if walking.is_empty() || (!walking.iter().any(|l| nests(l)) && run().any(nests)) {
        return true;
    }
    // Or a walking loop holds a loop, and one step of the fused loop stays
    // in the cache at the known sizes (see `footprint::STEP_BYTES` for the
    // measurement). Loops that hold none walk one cell per step whatever
    // the sizes: the rule above judges them (song_example2).
    let stmts: Vec<usize> = run().flat_map(|l| l.stmts.iter().copied()).collect();
    walking.iter().any(|l| nests(l))
        && super::footprint::step_bytes(scop, &stmts, outer.len())
            .is_some_and(|b| b <= super::footprint::STEP_BYTES)
}

/// Whether a statement of loop `l` in an innermost loop walks an array
/// across its rows: that loop's iterator in a subscript other than the
/// last. Fusing such loops multiplies the cache lines one step of the
/// fused loop holds, and the reuse between steps is lost (song_example2's
/// column loops, fused, ran 2.4 times slower at JN = 3072, KN = 2560,
/// with 24 cells where 572 were).
fn walks_columns(scop: &Scop, l: &FusedLoop) -> bool {
    let np = scop.params.len();
    l.stmts.iter().any(|&k| {
        let s = &scop.stmts[k];
        let Some(inner) = s.loop_depth().checked_sub(1) else {
            return false;
        };
        // Only what the innermost loops run counts.
        if !scop.in_innermost_loop(k) {
            return false;
        }
        s.accesses().any(|a| {
            let n = a.subscripts.len();
            n > 1
                && a.subscripts[..n - 1]
                    .iter()
                    .any(|sub| sub.coeffs.get(np + inner).is_some_and(|c| *c != 0))
        })
    })
}

/// The loops of a run being built, the least shifts between them
/// (`deltas[b][a]`) and the items it moves before its loops.
type Pending<'a> = (&'a mut Vec<FusedLoop>, &'a [Vec<Option<i64>>], &'a [usize]);

fn close_run(
    (program, si): (&Program, usize),
    nodes: &[Sibling],
    outer: &[String],
    (current, deltas, hoisted): Pending<'_>,
    runs: &mut Vec<FusedRun>,
) {
    let mut loops = std::mem::take(current);
    if loops.len() < 2 {
        return;
    }
    // Only the items between the loops move, each with the comments
    // before it.
    let last = loops[loops.len() - 1].item;
    let moved: Vec<std::ops::Range<usize>> = hoisted
        .iter()
        .filter(|&&h| h < last)
        .map(|&h| {
            let span = nodes[h].0.span();
            let before = h
                .checked_sub(1)
                .map_or(span.start, |p| nodes[p].0.span().end);
            let start = comments_in(&program.source, before..span.start)
                .first()
                .map_or(span.start, |c| c.start);
            start..span.end
        })
        .collect();
    let flows = flow_pairs(&loops);
    let (direction, stride) = (loops[0].direction, loops[0].stride);
    let first_start = loops[0].start_constant;
    for (l, lag) in loops.iter_mut().zip(choose_shifts(deltas, &flows)) {
        // The fused variable runs the first loop's values: loop `l`'s
        // value `x` (iteration `(x - start_l) / (direction * stride)`)
        // runs where the first loop's iteration `τ + lag` does.
        let offset = l.start_constant - first_start;
        let Some(shift) = direction
            .checked_mul(stride)
            .and_then(|k| k.checked_mul(lag))
            .and_then(|x| x.checked_sub(offset))
        else {
            return;
        };
        l.lag = lag;
        l.shift = shift;
    }
    let start = loops[0].lead;
    let end = nodes[loops[loops.len() - 1].item].0.span().end;
    runs.push(FusedRun {
        scop: si,
        depth: outer.len(),
        direction,
        stride,
        round: 0,
        hoisted: moved,
        outer: outer.to_vec(),
        loops,
        span: start..end,
    });
}

/// Item `item` as a loop that may join a run, with the index of its
/// first leading pragma node (else `item`): a `for` with a constant step
/// (+1, -1, or `+= k`, `-= k`) whose iterator dies with it, no pragma but
/// hints ([`hint_pragma`]), every statement inside it in its loop,
/// bounds that are one affine expression each.
fn fusable_loop(
    program: &Program,
    scop: &Scop,
    nodes: &[Sibling],
    item: usize,
    outer: &[String],
) -> Option<(usize, FusedLoop)> {
    let source = &program.source;
    let d = outer.len();
    let node = nodes.get(item)?.0;
    let (lead_item, hints, mut comments) = leading_pragmas(source, nodes, item)?;
    let mut labels = Vec::new();
    let mut labelled = node;
    while let SyntaxNode::Labeled { span, label, body } = labelled {
        labels.push(LoopLabel {
            name: label.clone(),
            start: span.start,
            own_line: source
                .get(span.start..body.span().start)
                .is_some_and(|t| t.contains('\n')),
        });
        labelled = body;
    }
    let SyntaxNode::For {
        span,
        header,
        body,
        keeps_iterator: false,
    } = labelled
    else {
        return None;
    };
    let (iterator, declares, direction, stride) = match header {
        Some(h) => (h.iterator.clone(), h.declares.clone(), h.step, 1),
        None => strided_header(source, span.start..body.span().start)?,
    };
    // A pragma indented deeper than its loop would not fit the layout of
    // the fused text.
    let indent = indent_of_line(source, span.start);
    if hints
        .iter()
        .any(|p| !indent.starts_with(&indent_of_line(source, p.start)))
    {
        return None;
    }
    comments.extend(comments_in(source, node.span().start..body.span().start));
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
        let sign = s.schedule.iter().find_map(|e| match e {
            crate::ir::SchedEntry::Iter { index, sign } if *index == d => Some(*sign),
            _ => None,
        });
        if s.loop_depth() <= d
            || s.iterators[..d] != *outer
            || s.iterators[d] != iterator
            || s.iterators[d + 1..].contains(&iterator)
            || s.parallel.iter().any(Option::is_some)
            || sign != Some(direction)
        {
            return None;
        }
    }
    let (lower, upper) = loop_bounds(scop, first, d, (direction, stride))?;
    // The loop domains of every statement agree on the loop.
    for &k in &stmts[1..] {
        if loop_bounds(scop, &scop.stmts[k], d, (direction, stride))?
            != (lower.clone(), upper.clone())
        {
            return None;
        }
    }
    let start_constant = match (stride, direction) {
        (1, _) => 0,
        (_, 1) => lower.constant,
        _ => upper.constant,
    };
    let line = source[..span.start].matches('\n').count() + 1;
    let writes = stmts.iter().map(|&k| scop.stmts[k].write.array).collect();
    let reads = stmts
        .iter()
        .flat_map(|&k| scop.stmts[k].reads.iter().map(|r| r.array))
        .collect();
    let lead = hints.first().map_or(node.span().start, |p| p.start);
    let fused = FusedLoop {
        item,
        iterator,
        shift: 0,
        lag: 0,
        direction,
        stride,
        start_constant,
        lead,
        hints,
        comments,
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
        declares,
        writes,
        reads,
        start: span.start,
        labels,
        labels_inside: body.has_label(),
    };
    Some((lead_item, fused))
}

/// The leading pragmas of an item: the index of the first pragma node
/// (else the item's), the pragmas, and the comments between them and the
/// item.
type Leading = (usize, Vec<Range<usize>>, Vec<Range<usize>>);

/// The `#pragma` lines that apply to `nodes[item]` (the item's own, or
/// the pragma nodes right before it), when each is a hint
/// ([`hint_pragma`]) and only blanks and comments sit between them and
/// the item: the index of the first pragma node (else `item`), the
/// pragmas and the comments between them. `None` when some pragma is not
/// a hint.
fn leading_pragmas(source: &str, nodes: &[Sibling], item: usize) -> Option<Leading> {
    let (node, own) = nodes.get(item)?;
    let mut first = item;
    while first > 0 && matches!(nodes[first - 1].0, SyntaxNode::Pragma { .. }) {
        first -= 1;
    }
    let mut pragmas: Vec<Range<usize>> = nodes[first..item].iter().map(|n| n.0.span()).collect();
    pragmas.extend(own.iter().cloned());
    pragmas.sort_by_key(|p| p.start);
    let mut comments = Vec::new();
    for (k, p) in pragmas.iter().enumerate() {
        if !hint_pragma(source.get(p.clone())?) {
            return None;
        }
        let next = pragmas.get(k + 1).map_or(node.span().start, |q| q.start);
        let gap = p.end..next;
        if !only_comments(source.get(gap.clone())?) {
            return None;
        }
        comments.extend(comments_in(source, gap));
    }
    Some((first, pragmas, comments))
}

/// The iterator, the declared type, the direction and the stride of a
/// `for` whose step is a constant other than ±1, from its header's text
/// (`source[range]`, from `for` to the body): `for ([TYPE] i = ...; ...;
/// i += k)`, `i -= k`, `i = i + k` or `i = i - k` with `k >= 2` written as
/// a number. (The front end has read the loop's domain; this only says
/// how to write its header again.)
fn strided_header(source: &str, range: Range<usize>) -> Option<(String, Option<String>, i64, i64)> {
    use crate::util::c_text::{TokenKind, tokens};
    let text = source.get(range)?;
    let toks = tokens(text);
    let word = |k: usize| toks.get(k).map_or("", |(r, _)| &text[r.clone()]);
    if word(0) != "for" || word(1) != "(" || word(toks.len().checked_sub(1)?) != ")" {
        return None;
    }
    // The two `;` at the header's own level.
    let mut depth = 0i64;
    let mut semis = Vec::new();
    for k in 1..toks.len() {
        match word(k) {
            "(" | "[" => depth += 1,
            ")" | "]" => depth -= 1,
            ";" if depth == 1 => semis.push(k),
            _ => {}
        }
    }
    let [a, b] = semis.as_slice() else {
        return None;
    };
    // The initialisation: `i = ...` or `TYPE... i = ...`.
    let eq = (2..*a).find(|&k| word(k) == "=")?;
    let names: Vec<&str> = (2..eq).map(word).collect();
    if names.is_empty() || (2..eq).any(|k| toks[k].1 != TokenKind::Ident) {
        return None;
    }
    let iterator = names[names.len() - 1].to_string();
    let declares = (names.len() > 1).then(|| names[..names.len() - 1].join(" "));
    let update: Vec<&str> = (b + 1..toks.len() - 1).map(word).collect();
    let step = |k: usize| match toks.get(k) {
        Some((_, TokenKind::Int(v))) if *v >= 2 => Some(*v),
        _ => None,
    };
    let it = iterator.as_str();
    let (direction, stride) = match update.as_slice() {
        [i, "+=", _] if *i == it => (1, step(b + 3)?),
        [i, "-=", _] if *i == it => (-1, step(b + 3)?),
        [i, "=", j, "+", _] if *i == it && *j == it => (1, step(b + 5)?),
        [i, "=", j, "-", _] if *i == it && *j == it => (-1, step(b + 5)?),
        _ => return None,
    };
    Some((iterator, declares, direction, stride))
}

/// The bounds `lower <= i <= upper` of the loop at depth `d` (of
/// direction and stride `order`), see [`bounds`]; a strided loop's
/// domain holds `i = start + stride * e` besides, `start` its lower bound
/// when it increases, its upper bound when it decreases (up to a
/// multiple of the stride).
fn loop_bounds(
    scop: &Scop,
    stmt: &Stmt,
    d: usize,
    (direction, stride): (i64, i64),
) -> Option<(AffExpr, AffExpr)> {
    if stride == 1 {
        return bounds(scop, stmt, d);
    }
    let lattice = super::check::lattice(stmt, d, scop.params.len())?;
    if lattice.stride != stride {
        return None;
    }
    let anchor = lattice.anchor;
    let [piece] = stmt.loop_domains.get(d)?.pieces.as_slice() else {
        return None;
    };
    // The inequalities do not name the existential (see `bounds_of`).
    let (lower, upper) = bounds_of(scop, piece, d)?;
    let start = if direction > 0 { &lower } else { &upper };
    let on_lattice = start.coeffs == anchor.coeffs
        && (start.constant.checked_sub(anchor.constant)?).rem_euclid(stride) == 0;
    on_lattice.then_some((lower, upper))
}

/// Whether two loops' bounds differ by constants only (the prologue and
/// the epilogue then run a constant number of iterations).
/// They run in the same direction with the same stride, too.
fn same_shape(a: &FusedLoop, b: &FusedLoop) -> bool {
    a.lower.coeffs == b.lower.coeffs
        && a.upper.coeffs == b.upper.coeffs
        && a.direction == b.direction
        && a.stride == b.stride
}

/// Whether two loops carry the same hint pragmas (token for token): the
/// fused loop carries them. Loops whose hints differ are not fused:
/// the fused loop would drop a hint one loop was given, or give another
/// loop a hint it was not given.
fn same_hints(source: &str, a: &FusedLoop, b: &FusedLoop) -> bool {
    let words = |l: &FusedLoop| -> Vec<Vec<String>> {
        l.hints
            .iter()
            .map(|p| {
                let text = source.get(p.clone()).unwrap_or("");
                crate::util::c_text::tokens(text)
                    .into_iter()
                    .map(|(r, _)| text[r].to_string())
                    .collect()
            })
            .collect()
    };
    words(a) == words(b)
}

/// Whether `next`'s body may be printed inside a loop over the run's
/// iterator: it does not use the run's iterator name for anything else,
/// and no macro reads either iterator behind the text's back.
fn compatible_names(
    program: &Program,
    scop: &Scop,
    run: &[FusedLoop],
    next: &FusedLoop,
    d: usize,
) -> bool {
    let name = &run[0].iterator;
    // The fused loop's variable has the first loop's type: a body whose
    // arithmetic ran in another type (`long j` beside `int i`) would now
    // run in that one (`j * 1000000` overflows in `int`).
    let type_at = |l: &FusedLoop| {
        let s = &scop.stmts[*l.stmts.first()?];
        Some(crate::codegen::overflow::IntType::of_text(
            s.iterator_types.get(d)?,
        ))
    };
    if type_at(&run[0]).is_none() || type_at(&run[0]) != type_at(next) {
        return false;
    }
    let body = &program.source[next.body.clone()];
    if next.iterator != *name
        && crate::util::c_text::identifier_tokens(body, false)
            .iter()
            .any(|(_, t)| t == name)
    {
        return false;
    }
    let mentions = |text: &str| {
        crate::util::c_text::identifier_tokens(text, false)
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
        .all(|&k| !scop.stmts[k].iterators[d + 1..].contains(name))
}

/// Whether no statement inside `node` touches a cell that a statement of
/// `run`'s loops touches in the same iteration of the enclosing loops,
/// one of them writing (exact emptiness; undecided is not independent).
/// Only SCoP statements are judged: `node` must hold some, and nothing
/// else (no declaration).
fn independent(
    scop: &Scop,
    node: &SyntaxNode,
    run: &[FusedLoop],
    (d, c_orders): (usize, bool),
) -> bool {
    if matches!(
        node,
        SyntaxNode::Kept { .. } | SyntaxNode::Pragma { .. } | SyntaxNode::Empty { .. }
    ) || contains_kept(node)
    {
        return false;
    }
    let span = node.span();
    let inside: Vec<&Stmt> = scop
        .stmts
        .iter()
        .filter(|s| span.start <= s.span.start && s.span.end <= span.end)
        .collect();
    if inside.is_empty() || inside.iter().any(|s| s.iterators.len() < d) {
        return false;
    }
    for x in inside {
        for l in run {
            for &t in &l.stmts {
                let y = &scop.stmts[t];
                for o in orderings((scop, x), (scop, y), c_orders) {
                    let (f, g) = ordered_subscripts(&o);
                    let Some(pairs) = conflict_pairs(scop, x, y, f, g, d) else {
                        return false;
                    };
                    if !pairs.is_empty().unwrap_or(false) {
                        return false;
                    }
                }
            }
        }
    }
    true
}

/// Whether a declaration or another kept piece of text sits inside.
fn contains_kept(node: &SyntaxNode) -> bool {
    match node {
        SyntaxNode::Kept { .. } | SyntaxNode::Pragma { .. } => true,
        SyntaxNode::Stmt { .. } | SyntaxNode::Empty { .. } => false,
        SyntaxNode::For { body, .. } | SyntaxNode::Labeled { body, .. } => contains_kept(body),
        SyntaxNode::If { then, els, .. } => {
            contains_kept(then) || els.as_ref().is_some_and(|e| contains_kept(e))
        }
        SyntaxNode::Block { items, .. } => items.iter().any(contains_kept),
    }
}

/// Per loop `a` of `run`: the least `σ_next − σ_a` that keeps every
/// dependence from `a` to `next` (`None`: no dependence). `None` when some
/// distance is not bounded by [`MAX_DISTANCE`] or cannot be decided.
fn distances(
    scop: &Scop,
    run: &[FusedLoop],
    next: &FusedLoop,
    (d, c_orders): (usize, bool),
) -> Option<Vec<Option<i64>>> {
    let (direction, stride) = (next.direction, next.stride);
    let mut out = Vec::with_capacity(run.len());
    for earlier in run {
        let mut need: Option<i64> = None;
        for &s in &earlier.stmts {
            for &t in &next.stmts {
                let (a, b) = (&scop.stmts[s], &scop.stmts[t]);
                if let Some(dist) = max_distance(scop, a, b, (d, c_orders), direction)? {
                    let dist = iterations(
                        dist,
                        earlier.start_constant - next.start_constant,
                        (direction, stride),
                    )?;
                    need = Some(need.map_or(dist, |x| x.max(dist)));
                }
            }
        }
        out.push(need);
    }
    Some(out)
}

/// The least lag in iterations (of the run's order `(direction,
/// stride)`) that keeps every pair of instances `x` (of a loop starting
/// at constant `c_a`) and `y` (of a later loop starting at `c_b`, with
/// `offset = c_a - c_b`) in order, where `distance` is the largest
/// `direction * (x - y)`: the iteration numbers are `τ_a = direction *
/// (x - start_a) / stride` and `τ_b` alike, and `τ_a - τ_b =
/// (direction * (x - y) - direction * offset) / stride`, rounded up.
fn iterations(distance: i64, offset: i64, (direction, stride): (i64, i64)) -> Option<i64> {
    let numerator = distance.checked_sub(direction.checked_mul(offset)?)?;
    Some(numerator.div_euclid(stride) + i64::from(numerator.rem_euclid(stride) != 0))
}

/// How far the shifts may stray from the smallest ones in the search of
/// [`choose_shifts`], and for how many loops it searches.
const SHIFT_WINDOW: i64 = 3;
const SEARCHED_LOOPS: usize = 6;

/// The shifts of a run (the first loop's is 0) that keep every dependence
/// (`σ_b − σ_a >= deltas[b][a]`) and make the producers and consumers of
/// values closest: the least `Σ (σ_b − σ_a)` over the pairs of `flows`
/// (loop `a` writes an array loop `b` reads), then the least `Σ |σ|`. Up
/// to [`SEARCHED_LOOPS`] loops, every vector within [`SHIFT_WINDOW`] of
/// the smallest legal shifts is tried (seed 003 solves this as a network
/// flow; at these sizes the search is exact and cheap); beyond, the
/// smallest legal shifts.
pub fn choose_shifts(deltas: &[Vec<Option<i64>>], flows: &[(usize, usize)]) -> Vec<i64> {
    let n = deltas.len();
    // The smallest legal shifts: a longest path in loop order.
    let mut least = vec![0i64; n];
    for b in 1..n {
        least[b] = (0..b)
            .filter_map(|a| deltas[b].get(a).copied().flatten().map(|d| least[a] + d))
            .max()
            .unwrap_or(0);
    }
    if !(2..=SEARCHED_LOOPS).contains(&n) {
        return least;
    }
    let legal =
        |s: &[i64]| (1..n).all(|b| (0..b).all(|a| deltas[b][a].is_none_or(|d| s[b] - s[a] >= d)));
    let cost = |s: &[i64]| -> (i64, i64) {
        let spread: i64 = flows.iter().map(|&(a, b)| s[b] - s[a]).sum();
        (spread, s.iter().map(|x| x.abs()).sum())
    };
    window_search(&least, SHIFT_WINDOW, &legal, &cost)
}

/// The vector within `window` of `least` in every entry but the first
/// (kept) that is `legal` and of the least `cost` (the first in odometer
/// order on ties; `least` itself when nothing beats it).
pub(super) fn window_search(
    least: &[i64],
    window: i64,
    legal: &dyn Fn(&[i64]) -> bool,
    cost: &dyn Fn(&[i64]) -> (i64, i64),
) -> Vec<i64> {
    let n = least.len();
    let mut best = (cost(least), least.to_vec());
    let mut s = least.to_vec();
    // Odometer over entries 1..n, each in least ± window.
    for (k, v) in s.iter_mut().enumerate().skip(1) {
        *v = least[k] - window;
    }
    loop {
        if legal(&s) {
            let c = cost(&s);
            if c < best.0 {
                best = (c, s.clone());
            }
        }
        let mut k = 1;
        loop {
            if k >= n {
                return best.1;
            }
            if s[k] < least[k] + window {
                s[k] += 1;
                break;
            }
            s[k] = least[k] - window;
            k += 1;
        }
    }
}

/// The pairs `(a, b)`, `a < b`, of loops of a run where `a` writes an
/// array that `b` reads.
fn flow_pairs(loops: &[FusedLoop]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for b in 0..loops.len() {
        for a in 0..b {
            if loops[a].writes.iter().any(|x| loops[b].reads.contains(x)) {
                out.push((a, b));
            }
        }
    }
    out
}

/// For statements `a` (earlier) and `b` (later) in sibling loops at depth
/// `d` that run in `direction`: the largest `direction * (s_d − t_d)`
/// (how many values of the iterator `a`'s instance runs later in the
/// loops' order) over every pair of their instances in the
/// same iteration of the enclosing loops that touch one cell, one of them
/// writing (instances in different iterations of the enclosing loops keep
/// their order whatever the siblings do). `Some(None)`: no such pair;
/// `None`: above [`MAX_DISTANCE`] or undecided.
fn max_distance(
    scop: &Scop,
    a: &Stmt,
    b: &Stmt,
    (d, c_orders): (usize, bool),
    direction: i64,
) -> Option<Option<i64>> {
    let mut best: Option<i64> = None;
    for o in orderings((scop, a), (scop, b), c_orders) {
        let (f, g) = ordered_subscripts(&o);
        let pairs = conflict_pairs(scop, a, b, f, g, d)?;
        if pairs.is_empty().ok()? {
            continue;
        }
        let dist = bound_distance(&pairs, d, direction)?;
        best = Some(best.map_or(dist, |v| v.max(dist)));
    }
    Some(best)
}

/// The orders of two statements' instances ([`crate::ir::orderings`]),
/// without those of real C unless `c_orders`.
fn orderings<'a>(
    a: (&'a Scop, &'a Stmt),
    b: (&'a Scop, &'a Stmt),
    c_orders: bool,
) -> Vec<Ordering<'a>> {
    let mut all = crate::ir::orderings(a, b);
    if !c_orders {
        all.retain(|o| matches!(o, Ordering::Cells(..)));
    }
    all
}

/// The subscripts that must be equal for a pair of instances to be
/// ordered by `o`: those of the two accesses for shared cells, none for
/// an order that holds always (a call, arrays that may overlap).
pub(super) fn ordered_subscripts<'o>(o: &'o Ordering<'o>) -> (&'o [AffExpr], &'o [AffExpr]) {
    match o {
        Ordering::Cells(x, y) => (&x.subscripts, &y.subscripts),
        Ordering::Always(_) => (&[], &[]),
    }
}

/// `{ [s] -> [t] : s ∈ D_a, t ∈ D_b, f(s) = g(t), s_k = t_k for k < d }`
/// within the context.
pub(super) fn conflict_pairs(
    scop: &Scop,
    a: &Stmt,
    b: &Stmt,
    f: &[AffExpr],
    g: &[AffExpr],
    d: usize,
) -> Option<Set> {
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
            for (r, (x, y)) in row[..np].iter_mut().zip(fs.coeffs.iter().zip(&gs.coeffs)) {
                *r = x.checked_sub(*y)?;
            }
            row[np..np + na].copy_from_slice(&fs.coeffs[np..np + na]);
            for (r, y) in row[np + na..np + na + nb].iter_mut().zip(&gs.coeffs[np..]) {
                *r = y.checked_neg()?;
            }
            row[w - 1] = fs.constant.checked_sub(gs.constant)?;
            p.add_eq(row);
        }
        for k in 0..d {
            let mut row = vec![0i64; w];
            row[np + k] = 1;
            row[np + na + k] = -1;
            p.add_eq(row);
        }
        p.add_param_constraints(&scop.context);
        out.push(p);
    }
    Some(out)
}

/// The smallest `d` in `[-MAX_DISTANCE, MAX_DISTANCE]` with `direction *
/// (s_depth − t_depth) <= d` on every pair (the pairs' relation has `s` then `t` after
/// the parameters).
fn bound_distance(pairs: &Set, depth: usize, direction: i64) -> Option<i64> {
    let np = pairs.space.n_param();
    let t0 = np + pairs.space.n_in() + depth;
    let s0 = np + depth;
    // Whether some pair has direction * (s_0 - t_0) >= d + 1.
    let exceeds = |d: i64| -> Option<bool> {
        for piece in &pairs.pieces {
            let mut p: BasicSet = piece.clone();
            let mut row = p.zero_row();
            row[s0] = direction;
            row[t0] = -direction;
            let w = row.len();
            row[w - 1] = -(d + 1);
            p.add_ineq(row);
            if !p.is_empty().ok()? {
                return Some(true);
            }
        }
        Some(false)
    };
    least_bound(&exceeds)
}

/// The smallest `d` in `[-MAX_DISTANCE, MAX_DISTANCE]` for which
/// `exceeds(d)` is false (`exceeds` is monotone: true below some value,
/// false from it on); `-MAX_DISTANCE` when it is false everywhere, `None`
/// when it is true at `MAX_DISTANCE` or undecided.
pub(super) fn least_bound(exceeds: &dyn Fn(i64) -> Option<bool>) -> Option<i64> {
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

/// Loops that would be fused but for an order of real C (a call, arrays
/// that may overlap): what the report says was refused and why.
#[derive(Clone, Debug)]
pub(crate) struct KeptApart {
    pub scop: usize,
    /// The 1-based lines of the loops' headers.
    pub lines: Vec<usize>,
    pub cause: crate::ir::OrderCause,
}

impl KeptApart {
    /// E.g. "loops at lines 8, 10 not fused: `noise()` may write memory
    /// (its body touches `state`)".
    pub fn describe(&self) -> String {
        let lines: Vec<String> = self.lines.iter().map(usize::to_string).collect();
        format!(
            "loops at lines {} not fused: {}",
            lines.join(", "),
            self.cause.describe()
        )
    }
}

/// The runs of `program.scops[si]` planned without the orders of real C
/// that no run planned with them fuses whole, each with the first order
/// that holds between two of its loops.
pub(crate) fn kept_apart(program: &Program, si: usize, column_walks: bool) -> Vec<KeptApart> {
    let scop = &program.scops[si];
    let planning = Planning {
        column_walks,
        c_orders: true,
    };
    let strict = plan_fusion_with(program, si, planning);
    let relaxed = plan_fusion_with(
        program,
        si,
        Planning {
            c_orders: false,
            ..planning
        },
    );
    let mut out = Vec::new();
    for run in relaxed {
        let lines: Vec<usize> = run.loops.iter().map(|l| l.line).collect();
        let fused_whole = strict
            .iter()
            .any(|r| lines.iter().all(|x| r.loops.iter().any(|l| l.line == *x)));
        if fused_whole {
            continue;
        }
        let cause = run.loops.iter().enumerate().find_map(|(k, later)| {
            run.loops[..k].iter().find_map(|earlier| {
                earlier.stmts.iter().find_map(|&a| {
                    later.stmts.iter().find_map(|&b| {
                        crate::ir::always_ordered((scop, &scop.stmts[a]), (scop, &scop.stmts[b]))
                    })
                })
            })
        });
        if let Some(cause) = cause {
            out.push(KeptApart {
                scop: si,
                lines,
                cause,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{comments_in, hint_pragma, iterations, strided_header};

    /// Which pragmas are hints, by the rule of [`hint_pragma`]'s doc.
    #[test]
    fn hint_pragmas_are_the_unroll_and_novector_ones() {
        for hint in [
            "#pragma GCC unroll 4",
            "#  pragma GCC unroll 16",
            "#pragma unroll",
            "#pragma unroll 8",
            "#pragma unroll(2)",
            "#pragma nounroll",
            "#pragma GCC novector",
            "#pragma clang loop unroll(full)",
            "#pragma clang loop unroll_count(4)",
        ] {
            assert!(hint_pragma(hint), "{hint}");
        }
        for other in [
            "#pragma GCC ivdep",
            "#pragma omp parallel for",
            "#pragma omp simd",
            "#pragma simd",
            "#pragma GCC unroll N",
            "#pragma clang loop vectorize(assume_safety)",
            "#pragma HLS pipeline",
            "#pragma unroll 4 \\\n extra",
            "_Pragma(\"GCC unroll 4\")",
        ] {
            assert!(!hint_pragma(other), "{other}");
        }
    }

    /// Headers of strided loops, read by hand.
    #[test]
    fn strided_headers() {
        let read = |t: &str| strided_header(t, 0..t.len());
        assert_eq!(
            read("for (int i = 1; i < N - 1; i += 2)"),
            Some(("i".to_string(), Some("int".to_string()), 1, 2))
        );
        assert_eq!(
            read("for (k = N - 1; k >= 0; k = k - 3) "),
            Some(("k".to_string(), None, -1, 3))
        );
        assert_eq!(read("for (i = 0; i < N; i++)"), None);
        assert_eq!(read("for (i = 0; i < N; i += S)"), None);
        assert_eq!(read("for (i = 0; i < N; i += 1)"), None);
        assert_eq!(read("FOR(i, 0, N)"), None);
    }

    /// Lags by hand: stride 2, the later loop starting one value after
    /// the earlier (offset -1), a largest `x - y` of 1 (it reads `d[i +
    /// 1]`): `(1 + 1) / 2 = 1`; of 0 with offset -1: `1 / 2` rounded up.
    #[test]
    fn lags_in_iterations() {
        assert_eq!(iterations(1, -1, (1, 2)), Some(1));
        assert_eq!(iterations(0, -1, (1, 2)), Some(1));
        assert_eq!(iterations(-1, -1, (1, 2)), Some(0));
        assert_eq!(iterations(3, 0, (1, 1)), Some(3));
        assert_eq!(iterations(-2, 0, (-1, 1)), Some(-2));
        assert_eq!(iterations(-3, 0, (1, 2)), Some(-1));
    }

    #[test]
    fn comments_outside_literals() {
        let text = "a /* x */ \"/* no */\" // y\n b";
        let found: Vec<&str> = comments_in(text, 0..text.len())
            .into_iter()
            .map(|r| &text[r])
            .collect();
        assert_eq!(found, ["/* x */", "// y"]);
    }
}
