//! The text of a fused run: a prologue, a steady loop and an epilogue
//! over the run's iterator, each loop's body printed with its iterator
//! shifted (see the module doc of [`crate::schedule`]).
//!
//! For the shifted bounds `l_k <= i <= u_k` of the loops, with `L`, `L'`
//! the least and the greatest `l_k` and `U`, `U'` the least and the
//! greatest `u_k` (they differ by constants):
//! - the prologue runs `L <= i <= L' - 1`, each body under `i >= l_k` (when
//!   `l_k > L`) and `i <= u_k` (unless the context proves `u_k >= L' - 1`);
//! - the steady loop runs `L' <= i <= U`, every body, no guard;
//! - the epilogue runs `U + 1 <= i <= U'`, each body under `i <= u_k`
//!   (when `u_k < U'`) and `i >= L'` (unless the context proves `U + 1 >=
//!   L'`).
//!
//! Each `i` of loop `k`'s range is run once: by the prologue when `i < L'`,
//! by the steady loop when `i <= U`, by the epilogue otherwise.
//!
//! A decreasing run is planned as the increasing run of `-i` and printed
//! mirrored (`for (i = U'; i >= L; i--)`). A strided run (`i += k`) runs
//! on its first loop's lattice (every shifted start is on it); it has no
//! epilogue, since the first value of the lattice after `U` is not an
//! affine expression: its steady loop runs to `U'`, each body under `i <=
//! u_k` where `u_k < U'`.
//!
//! When every statement of the run sits in an inner loop, the run is one
//! loop `L <= i <= U'` instead, each body under `i >= l_k` (when `l_k > L`)
//! and `i <= u_k` (when `u_k < U'`): the guards are tests per outer
//! iteration, and the statements are not copied.

use std::collections::HashMap;

use crate::codegen::Edit;
use crate::codegen::overflow::{self, Frame, IntType, OverflowRisk};
use crate::ir::{AffExpr, Program, Scop};
use crate::util::c_text::{affine_text, indent_of_line};

use super::fusion::{FusedLoop, FusedRun};

/// A loop of the fused text: its header, and the loops of the run whose
/// bodies it runs, each with its guards.
type Segment = (String, Vec<(usize, Vec<String>)>);

/// Per statement of a run's text: the statement and its shift.
type RunOrder = Vec<(usize, i64)>;

/// Why a run is not fused by [`run_text`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum RunRefusal {
    /// A value of its loops' control (a bound, a guard, the value after
    /// the last iteration) is not proven representable in any of the
    /// forms tried.
    Overflow(OverflowRisk),
    /// The text could not be printed (an overflow of polyfold's own
    /// arithmetic, an edit that does not apply).
    NotPrintable,
    /// A label (`produce:`) on a loop of the run or inside its bodies
    /// would be printed more than once (a prologue or an epilogue runs
    /// the bodies again), or could not be laid out before the loop.
    Labelled(String),
}

impl RunRefusal {
    /// The words of the report.
    pub(crate) fn describe(&self) -> String {
        match self {
            RunRefusal::Overflow(risk) => risk.describe(),
            RunRefusal::NotPrintable => "its text could not be printed".to_string(),
            RunRefusal::Labelled(label) => format!(
                "the label `{label}` would not stay with one loop (a shifted run prints its bodies in more than one loop)"
            ),
        }
    }
}

/// Which part of a fused run a loop of its text is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    Prologue,
    Steady,
    Epilogue,
    /// The one loop of a run whose bodies are loops.
    Whole,
}

impl Part {
    fn name(self) -> &'static str {
        match self {
            Part::Prologue => "prologue",
            Part::Steady => "steady loop",
            Part::Epilogue => "epilogue",
            Part::Whole => "fused loop",
        }
    }
}

/// A guard of a body in fused time: `t >= e` or `t <= e`.
#[derive(Clone, Debug)]
enum Guard {
    AtLeast(AffExpr),
    AtMost(AffExpr),
}

/// A loop of the fused text before it is printed: its range in fused
/// time and its members with their guards. It is printed with its
/// variable counting `t - anchor` (see [`choose_anchor`]).
#[derive(Clone, Debug)]
struct Plan {
    part: Part,
    from: AffExpr,
    to: AffExpr,
    members: Vec<(usize, Vec<Guard>)>,
}

/// The text that replaces `run.span`, and the statements it holds in
/// order, each with its shift; or why the run is not fused.
pub(crate) fn run_text(
    program: &Program,
    run: &FusedRun,
) -> Result<(String, RunOrder), RunRefusal> {
    let scop = &program.scops[run.scop];
    let source = &program.source;
    let name = run.loops[0].iterator.clone();
    // The first loop's `for` line (its labels may sit on lines of their
    // own before it).
    let indent = indent_of_line(source, run.loops[0].start);
    let unit = indent_unit(source, run);
    let mut params = scop.param_texts();
    params.extend(run.outer.iter().cloned());
    let plans = plan_segments(scop, run).ok_or(RunRefusal::NotPrintable)?;
    // Each body is printed once only with one loop: a label in a body
    // would be printed twice, a loop's label would have no loop of its
    // own.
    if plans.len() > 1
        && let Some(l) = run
            .loops
            .iter()
            .find(|l| !l.labels.is_empty() || l.labels_inside)
    {
        let label = l.labels.first().map_or_else(
            || format!("inside loop `{}`", l.iterator),
            |x| x.name.clone(),
        );
        return Err(RunRefusal::Labelled(label));
    }
    let facts = overflow::scop_facts(&program.source, scop);
    let frame = run_frame((source, scop), &facts, run).ok_or(RunRefusal::NotPrintable)?;
    let text = |a: &AffExpr| param_text(&params, a);
    let mut bodies: HashMap<(usize, i64), String> = HashMap::new();
    let mut segments: Vec<(Segment, i64)> = Vec::new();
    for plan in &plans {
        let (anchor, strict) =
            choose_anchor(scop, run, &frame, plan).map_err(RunRefusal::Overflow)?;
        let shifted = |a: &AffExpr| minus(a, anchor).ok_or(RunRefusal::NotPrintable);
        let decl = run.loops[0]
            .declares
            .as_ref()
            .map_or(String::new(), |t| format!("{t} "));
        let to = shifted(&plan.to)?;
        let first = &run.loops[0];
        let (relation, step) = match (run.direction > 0, run.stride) {
            (true, 1) => ("<=", format!("{name}++")),
            (false, 1) => (">=", format!("{name}--")),
            (true, k) => ("<=", format!("{name} += {k}")),
            (false, k) => (">=", format!("{name} -= {k}")),
        };
        let unit = run.direction > 0 && run.stride == 1;
        let written = source[first.start..first.body.start].trim_end();
        // (A comment in it is printed before the run already.)
        let plain = !written.contains("/*") && !written.contains("//");
        let head = if unit
            && plain
            && anchor == 0
            && (&plan.from, &plan.to) == (&first.lower, &first.upper)
        {
            // The first loop's own range: its header as written
            // (`i < _PB_NI`, not `i <= ni - 1`).
            written.to_string()
        } else if strict {
            // (`loop_values_fit` allows it for an increasing loop of step
            // 1 only.)
            let exit = minus(&to, -1).ok_or(RunRefusal::NotPrintable)?;
            format!(
                "for ({decl}{name} = {}; {name} < {}; {step})",
                text(&shifted(&plan.from)?),
                text(&exit)
            )
        } else {
            format!(
                "for ({decl}{name} = {}; {name} {relation} {}; {step})",
                text(&shifted(&plan.from)?),
                text(&to)
            )
        };
        let mut members = Vec::new();
        for (k, guards) in &plan.members {
            let mut printed = Vec::new();
            for g in guards {
                printed.push(match g {
                    Guard::AtLeast(e) => format!("{name} >= {}", text(&shifted(e)?)),
                    Guard::AtMost(e) => format!("{name} <= {}", text(&shifted(e)?)),
                });
            }
            let l = &run.loops[*k];
            let shift = l
                .shift
                .checked_sub(anchor)
                .ok_or(RunRefusal::NotPrintable)?;
            if let std::collections::hash_map::Entry::Vacant(e) = bodies.entry((*k, shift)) {
                let body = body_text(program, scop, (l, shift), (&name, run.depth), &facts)
                    .ok_or(RunRefusal::NotPrintable)?;
                e.insert(body);
            }
            members.push((*k, printed));
        }
        segments.push(((head, members), anchor));
    }
    let mut out = Layout::new(indent_of_line(source, run.span.start));
    let mut order = Vec::new();
    // The items moved before the loops, as they are.
    for span in &run.hoisted {
        let own = indent_of_line(source, span.start);
        // At the loops' indentation already: byte for byte.
        let text = if own == indent {
            source[span.clone()].to_string()
        } else {
            reindent(&format!("{own}{}", &source[span.clone()]), &indent)
        };
        out.put(&indent, text.trim_start(), "\n")?;
        order.extend(
            scop.stmts
                .iter()
                .enumerate()
                .filter(|(_, s)| span.start <= s.span.start && s.span.end <= span.end)
                .map(|(k, _)| (k, 0)),
        );
    }
    // The comments between the loops and in their headers, in order,
    // before the fused loop.
    for c in run.loops.iter().flat_map(|l| &l.comments) {
        out.put(&indent, &source[c.clone()], "\n")?;
    }
    // The hint pragmas every loop carries (see `fusion::same_hints`),
    // before each loop of the text, as the first loop has them.
    let hints: Vec<(String, &str)> = run.loops[0]
        .hints
        .iter()
        .map(|p| {
            (
                indent_of_line(source, p.start),
                source[p.clone()].trim_end(),
            )
        })
        .collect();
    for (at, hint) in &hints {
        out.put(at, hint, "\n")?;
    }
    // The loops' labels, in order, before the one loop (see above), laid
    // out as in the input: each on a line of its own, or before the loop
    // on its line.
    for label in run.loops.iter().flat_map(|l| &l.labels) {
        let (at, after) = if label.own_line {
            (indent_of_line(source, label.start), "\n")
        } else {
            (indent.clone(), " ")
        };
        out.put(&at, &format!("{}:", label.name), after)?;
    }
    for (n, ((head, members), anchor)) in segments.iter().enumerate() {
        let mut text = String::new();
        let body_of = |k: usize| -> &str {
            let shift = run.loops[k].shift - anchor;
            bodies.get(&(k, shift)).map_or("", String::as_str)
        };
        print_members(
            run,
            (members, *anchor),
            (&indent, &unit),
            &body_of,
            (&mut text, &mut order),
        );
        if n > 0 {
            for (at, hint) in &hints {
                out.put(at, hint, "\n")?;
            }
        }
        let after = if n + 1 < segments.len() { "\n" } else { "" };
        out.put(&indent, &format!("{head}{text}"), after)?;
    }
    Ok((out.text, order))
}

/// The text of a fused run as it is laid out: each piece at its
/// indentation on a line of its own, or after the piece before it on its
/// line. The text replaces a span that starts after `lead`, the blanks
/// before it on its line.
struct Layout {
    text: String,
    /// The blanks before the end of `text` on its line, when nothing else
    /// is (`None` after a piece that the next one follows on its line).
    blanks: Option<String>,
}

impl Layout {
    fn new(lead: String) -> Layout {
        Layout {
            text: String::new(),
            blanks: Some(lead),
        }
    }

    /// Appends `piece` at indentation `indent` (or right after the piece
    /// before, on its line), then `after` (a line break, a space or
    /// nothing). A line that already holds more blanks than `indent` is
    /// not printable.
    fn put(&mut self, indent: &str, piece: &str, after: &str) -> Result<(), RunRefusal> {
        if let Some(blanks) = self.blanks.take() {
            let more = indent
                .strip_prefix(blanks.as_str())
                .ok_or(RunRefusal::NotPrintable)?;
            self.text.push_str(more);
        }
        self.text.push_str(piece);
        self.text.push_str(after);
        self.blanks = match after {
            "\n" => Some(String::new()),
            _ => None,
        };
        Ok(())
    }
}

/// The loops of a run's text in fused time (see the module doc): a
/// prologue, a steady loop and an epilogue, or one loop when every body
/// is a loop. `None` on an overflow of the constants.
fn plan_segments(scop: &Scop, run: &FusedRun) -> Option<Vec<Plan>> {
    let shifted = |a: &AffExpr, s: i64| -> Option<AffExpr> {
        Some(AffExpr {
            coeffs: a.coeffs.clone(),
            constant: a.constant.checked_add(s)?,
        })
    };
    let mut lowers = Vec::new();
    let mut uppers = Vec::new();
    for l in &run.loops {
        lowers.push(shifted(&l.lower, l.shift)?);
        uppers.push(shifted(&l.upper, l.shift)?);
    }
    if run.direction > 0 {
        return increasing_segments(scop, run, &lowers, &uppers);
    }
    // A decreasing run is an increasing one in `w = -v` (its first values
    // are the largest): planned there, then mirrored back.
    let negated = |list: &[AffExpr]| list.iter().map(negate).collect::<Option<Vec<_>>>();
    let plans = increasing_segments(scop, run, &negated(&uppers)?, &negated(&lowers)?)?;
    plans
        .into_iter()
        .map(|p| {
            let members = p
                .members
                .into_iter()
                .map(|(k, guards)| {
                    let guards = guards
                        .iter()
                        .map(|g| match g {
                            Guard::AtLeast(e) => Some(Guard::AtMost(negate(e)?)),
                            Guard::AtMost(e) => Some(Guard::AtLeast(negate(e)?)),
                        })
                        .collect::<Option<Vec<_>>>()?;
                    Some((k, guards))
                })
                .collect::<Option<Vec<_>>>()?;
            Some(Plan {
                part: p.part,
                from: negate(&p.from)?,
                to: negate(&p.to)?,
                members,
            })
        })
        .collect()
}

/// `-a`.
fn negate(a: &AffExpr) -> Option<AffExpr> {
    Some(AffExpr {
        coeffs: a
            .coeffs
            .iter()
            .map(|c| c.checked_neg())
            .collect::<Option<_>>()?,
        constant: a.constant.checked_neg()?,
    })
}

/// The plans of [`plan_segments`] for the shifted bounds `lowers[k] <= v
/// <= uppers[k]` of an increasing run. A strided run has no epilogue:
/// its steady loop runs on to the last value, each body under `v <=
/// u_k` where `u_k` is not the greatest (the first value after the
/// least `u_k` on the run's lattice is not an affine expression).
fn increasing_segments(
    scop: &Scop,
    run: &FusedRun,
    lowers: &[AffExpr],
    uppers: &[AffExpr],
) -> Option<Vec<Plan>> {
    let lo_min = lowers.iter().map(|a| a.constant).min()?;
    let lo_max = lowers.iter().map(|a| a.constant).max()?;
    let up_min = uppers.iter().map(|a| a.constant).min()?;
    let up_max = uppers.iter().map(|a| a.constant).max()?;
    let with = |a: &AffExpr, c: i64| AffExpr {
        coeffs: a.coeffs.clone(),
        constant: c,
    };
    let mut plans = Vec::new();
    // Bodies that are loops themselves: one loop with guards. A guard is
    // then a test per iteration of an outer loop, and the statements are
    // not copied into a prologue and an epilogue (a copy of every
    // statement would make the contraction's conflict sets four times
    // larger, and the text twice as long).
    let outer = run.loops.iter().all(|l| {
        l.stmts
            .iter()
            .all(|&s| scop.stmts[s].iterators.len() > run.depth + 1)
    });
    if outer {
        let members = lowers
            .iter()
            .zip(uppers)
            .enumerate()
            .map(|(k, (lower, upper))| {
                let mut guards = Vec::new();
                if lower.constant > lo_min {
                    guards.push(Guard::AtLeast(lower.clone()));
                }
                if upper.constant < up_max {
                    guards.push(Guard::AtMost(upper.clone()));
                }
                (k, guards)
            })
            .collect();
        plans.push(Plan {
            part: Part::Whole,
            from: with(&lowers[0], lo_min),
            to: with(&uppers[0], up_max),
            members,
        });
        return Some(plans);
    }
    // The prologue.
    if lo_max > lo_min {
        let last = with(&lowers[0], lo_max - 1);
        let mut members = Vec::new();
        for (k, (lower, upper)) in lowers.iter().zip(uppers).enumerate() {
            if lower.constant >= lo_max {
                continue;
            }
            let mut guards = Vec::new();
            if lower.constant > lo_min {
                guards.push(Guard::AtLeast(lower.clone()));
            }
            // u_k >= L' - 1 for every value of the context?
            if !proven_nonneg(scop, run, &difference(upper, &last)?) {
                guards.push(Guard::AtMost(upper.clone()));
            }
            members.push((k, guards));
        }
        plans.push(Plan {
            part: Part::Prologue,
            from: with(&lowers[0], lo_min),
            to: last,
            members,
        });
    }
    // The steady loop.
    if run.stride != 1 {
        let members = uppers
            .iter()
            .enumerate()
            .map(|(k, upper)| {
                let guards = if upper.constant < up_max {
                    vec![Guard::AtMost(upper.clone())]
                } else {
                    Vec::new()
                };
                (k, guards)
            })
            .collect();
        plans.push(Plan {
            part: Part::Steady,
            from: with(&lowers[0], lo_max),
            to: with(&uppers[0], up_max),
            members,
        });
        return Some(plans);
    }
    plans.push(Plan {
        part: Part::Steady,
        from: with(&lowers[0], lo_max),
        to: with(&uppers[0], up_min),
        members: (0..run.loops.len()).map(|k| (k, Vec::new())).collect(),
    });
    // The epilogue.
    if up_max > up_min {
        let first = with(&uppers[0], up_min + 1);
        let after_prologue =
            proven_nonneg(scop, run, &difference(&first, &with(&lowers[0], lo_max))?);
        let mut members = Vec::new();
        for (k, upper) in uppers.iter().enumerate() {
            if upper.constant <= up_min {
                continue;
            }
            let mut guards = Vec::new();
            if !after_prologue {
                guards.push(Guard::AtLeast(with(&lowers[0], lo_max)));
            }
            if upper.constant < up_max {
                guards.push(Guard::AtMost(upper.clone()));
            }
            members.push((k, guards));
        }
        plans.push(Plan {
            part: Part::Epilogue,
            from: first,
            to: with(&uppers[0], up_max),
            members,
        });
    }
    Some(plans)
}

/// `a - d`.
fn minus(a: &AffExpr, d: i64) -> Option<AffExpr> {
    Some(AffExpr {
        coeffs: a.coeffs.clone(),
        constant: a.constant.checked_sub(d)?,
    })
}

/// The frame of a run's loop control (see [`overflow`]): the points of
/// the loops around the run, over `[params | the first statement's
/// iterators]`, the run's variable at column `params + depth`. It knows
/// the SCoP's facts, the enclosing iterators and their exit values, and
/// the run's loops' bounds (their lower bounds; where a loop runs, its
/// last value and the value after it).
fn run_frame(
    (source, scop): (&str, &Scop),
    facts: &overflow::ScopFacts,
    run: &FusedRun,
) -> Option<Frame> {
    let np = scop.params.len();
    let d = run.depth;
    let stmt = &scop.stmts[*run.loops[0].stmts.first()?];
    let n = stmt.iterators.len();
    let types = overflow::iterator_types(stmt);
    let mut frame = overflow::loops_frame(scop, facts, stmt, d)?;
    let row_of = |a: &AffExpr| -> Option<Vec<i64>> {
        if a.coeffs.len() != np + d {
            return None;
        }
        let mut r = vec![0i64; np + n + 1];
        r[..np + d].copy_from_slice(&a.coeffs);
        r[np + n] = a.constant;
        Some(r)
    };
    let ty = types.get(d)?.clone();
    for l in &run.loops {
        let lower = row_of(&l.lower)?;
        let upper = row_of(&l.upper)?;
        // The first value, the last one and the one after it (a strided
        // loop's last value is not its bound: only its first is known).
        let (first, last) = if l.direction > 0 {
            (lower.clone(), upper.clone())
        } else {
            (upper.clone(), lower.clone())
        };
        frame.know(first, ty.clone());
        if l.stride != 1 {
            continue;
        }
        // The bound the header's condition compares with, always.
        if let Some(offset) =
            header_of(&scop.items, &l.body).and_then(|h| overflow::written_bound(source, h))
        {
            let mut w = last.clone();
            w[np + n] = w[np + n].checked_add(offset)?;
            frame.know(w, ty.clone());
        }
        let mut exit = last.clone();
        exit[np + n] = exit[np + n].checked_add(l.direction)?;
        let condition: Vec<i64> = upper
            .iter()
            .zip(&lower)
            .map(|(u, v)| u.checked_sub(*v))
            .collect::<Option<_>>()?;
        let c = overflow::Conditional {
            condition,
            known: vec![
                overflow::Known {
                    row: last,
                    ty: ty.clone(),
                },
                overflow::Known {
                    row: exit,
                    ty: ty.clone(),
                },
            ],
        };
        if !frame.conditional.contains(&c) {
            frame.conditional.push(c);
        }
    }
    Some(frame)
}

/// The header of the `for` loop among `items` (at any depth) whose body
/// is `body`.
fn header_of<'a>(
    items: &'a [crate::ir::ScopItem],
    body: &std::ops::Range<usize>,
) -> Option<&'a crate::ir::ForHeader> {
    fn walk<'a>(
        node: &'a crate::ir::SyntaxNode,
        body: &std::ops::Range<usize>,
    ) -> Option<&'a crate::ir::ForHeader> {
        use crate::ir::SyntaxNode;
        match node {
            SyntaxNode::For {
                header, body: b, ..
            } => {
                if b.span() == *body {
                    header.as_ref()
                } else {
                    walk(b, body)
                }
            }
            SyntaxNode::If { then, els, .. } => {
                walk(then, body).or_else(|| els.as_ref().and_then(|e| walk(e, body)))
            }
            SyntaxNode::Block { items, .. } => items.iter().find_map(|i| walk(i, body)),
            SyntaxNode::Labeled { body: b, .. } => walk(b, body),
            SyntaxNode::Stmt { .. }
            | SyntaxNode::Empty { .. }
            | SyntaxNode::Pragma { .. }
            | SyntaxNode::Kept { .. } => None,
        }
    }
    items.iter().find_map(|i| walk(&i.node, body))
}

/// The anchor of a loop of the fused text: its variable counts `t -
/// anchor` (the bodies are shifted by `shift - anchor`). The current
/// form (anchor 0) first; then the members' own shifts (the epilogue's
/// from the largest, the others' from the smallest): with the anchor of a
/// loop of the run, the variable takes that loop's own values, which the
/// original computes. The first anchor whose values are proven (see
/// [`loop_values_fit`]), or the first value not proven with anchor 0;
/// with whether the header compares with the value after the last
/// iteration (`i < n`, see [`loop_values_fit`]).
fn choose_anchor(
    scop: &Scop,
    run: &FusedRun,
    frame: &Frame,
    plan: &Plan,
) -> Result<(i64, bool), OverflowRisk> {
    let mut candidates = vec![0i64];
    let mut own: Vec<i64> = plan
        .members
        .iter()
        .map(|(k, _)| run.loops[*k].shift)
        .collect();
    own.sort_unstable();
    own.dedup();
    if plan.part == Part::Epilogue {
        own.reverse();
    }
    for s in own {
        if !candidates.contains(&s) {
            candidates.push(s);
        }
    }
    let mut first_risk = None;
    for anchor in candidates {
        match loop_values_fit(scop, run, frame, plan, anchor) {
            Ok(strict) => return Ok((anchor, strict)),
            Err(risk) => {
                first_risk.get_or_insert(risk);
            }
        }
    }
    Err(first_risk.unwrap_or(OverflowRisk {
        what: format!("the {}'s bounds", plan.part.name()),
        ty: IntType::Int,
    }))
}

/// Whether the values of the loop `plan` printed with `anchor` are
/// proven representable: the printed bounds and each of their partial
/// sums; the first value and, where the loop runs, the value after its
/// last iteration, in the iterator's type; the guards' bounds where the
/// loop runs. `Ok(true)` when the header must compare with the value
/// after the last iteration (`i < n`): the last value itself (`n - 1`) is
/// not proven when the loop does not run (`n` may be the least `int`),
/// where the original, `i < n` too, never computed it.
fn loop_values_fit(
    scop: &Scop,
    run: &FusedRun,
    frame: &Frame,
    plan: &Plan,
    anchor: i64,
) -> Result<bool, OverflowRisk> {
    let np = scop.params.len();
    let d = run.depth;
    let n = frame.n_cols() - np;
    let ty = frame.types.get(np + d).cloned().unwrap_or(IntType::Int);
    let name = &run.loops[0].iterator;
    let part = plan.part.name();
    let risk = |what: String| OverflowRisk {
        what,
        ty: ty.clone(),
    };
    let row_of = |a: &AffExpr| -> Option<Vec<i64>> {
        let a = minus(a, anchor)?;
        if a.coeffs.len() != np + d {
            return None;
        }
        let mut r = vec![0i64; np + n + 1];
        r[..np + d].copy_from_slice(&a.coeffs);
        r[np + n] = a.constant;
        Some(r)
    };
    // The printed sum of a row: parameters, then the outer iterators, in
    // column order (as [`param_text`] prints them).
    let printed_fits = |f: &Frame, row: &[i64]| {
        let terms: Vec<(i64, usize)> = row[..np + d]
            .iter()
            .enumerate()
            .filter(|(_, c)| **c != 0)
            .map(|(k, c)| (*c, k))
            .collect();
        f.sum_fits(&terms, row[np + n])
    };
    let (Some(from), Some(to)) = (row_of(&plan.from), row_of(&plan.to)) else {
        return Err(risk(format!("the {part}'s bounds")));
    };
    if !printed_fits(frame, &from) || !frame.stores(&from, &ty) {
        return Err(risk(format!("the first value of `{name}` in the {part}")));
    }
    let mut after = to.clone();
    after[np + n] = after[np + n].saturating_add(1);
    // (Only an increasing loop of step 1 prints `i < n`.)
    let strict = !printed_fits(frame, &to);
    if strict && (run.direction < 0 || run.stride != 1 || !printed_fits(frame, &after)) {
        return Err(risk(format!("the upper bound of `{name}` in the {part}")));
    }
    // Where the loop runs: from <= t <= to (to <= t <= from when it
    // decreases), and the value after the last iteration (at most a
    // stride past `to`).
    let mut running = frame.clone();
    let (least, most) = if run.direction > 0 {
        (&from, &to)
    } else {
        (&to, &from)
    };
    let mut lo = vec![0i64; np + n + 1];
    let mut hi = vec![0i64; np + n + 1];
    for c in 0..=np + n {
        lo[c] = -least[c];
        hi[c] = most[c];
    }
    lo[np + d] += 1;
    hi[np + d] -= 1;
    running.restrict(&lo);
    running.restrict(&hi);
    let mut exit = to.clone();
    exit[np + n] = exit[np + n].saturating_add(run.direction.saturating_mul(run.stride));
    if !running.stores(&exit, &ty) {
        return Err(risk(format!(
            "the value of `{name}` after the {part}'s last iteration"
        )));
    }
    for (_, guards) in &plan.members {
        for g in guards {
            let (Guard::AtLeast(e) | Guard::AtMost(e)) = g;
            let Some(row) = row_of(e) else {
                return Err(risk(format!("a guard of the {part}")));
            };
            if !printed_fits(&running, &row) {
                return Err(risk(format!("a guard of the {part}")));
            }
        }
    }
    Ok(strict)
}

/// Prints the members of one loop of the fused text after its header
/// (already in `out`): their bodies (`body_of`) under their guards, and
/// appends each statement with its shift relative to the loop's
/// variable to `order`.
fn print_members<'a>(
    run: &FusedRun,
    (members, anchor): (&[(usize, Vec<String>)], i64),
    (indent, unit): (&str, &str),
    body_of: &dyn Fn(usize) -> &'a str,
    (out, order): (&mut String, &mut RunOrder),
) {
    // Guards every member has: one `if` around them all.
    let common: Vec<String> = members
        .first()
        .map(|(_, g)| {
            g.iter()
                .filter(|x| members.iter().all(|(_, h)| h.contains(x)))
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    let inner = if common.is_empty() {
        format!("{indent}{unit}")
    } else {
        format!("{indent}{unit}{unit}")
    };
    let mut lines = Vec::new();
    let mut one_statement = members.len() == 1;
    let guarded: Vec<(usize, Option<String>)> = members
        .iter()
        .map(|(k, guards)| {
            let own: Vec<&str> = guards
                .iter()
                .filter(|g| !common.contains(g))
                .map(|g| g.as_str())
                .collect();
            (*k, (!own.is_empty()).then(|| own.join(" && ")))
        })
        .collect();
    let mut at = 0;
    while at < guarded.len() {
        let (k, guard) = &guarded[at];
        let l = &run.loops[*k];
        // Bodies after this one under the same guard share its `if`
        // (a body that declares names keeps its own block).
        let mut end = at + 1;
        while guard.is_some()
            && !l.scoped
            && end < guarded.len()
            && guarded[end].1 == *guard
            && !run.loops[guarded[end].0].scoped
        {
            end += 1;
        }
        for (k, _) in &guarded[at..end] {
            let l = &run.loops[*k];
            order.extend(l.stmts.iter().map(|s| (*s, l.shift - anchor)));
        }
        let body = body_of(*k);
        match (guard, l.scoped, l.single) {
            (Some(cond), _, _) if end > at + 1 => {
                lines.push(format!("{inner}if ({cond}) {{"));
                for (k, _) in &guarded[at..end] {
                    lines.push(reindent(body_of(*k), &format!("{inner}{unit}")));
                }
                lines.push(format!("{inner}}}"));
            }
            (None, false, single) => {
                one_statement &= single;
                lines.push(reindent(body, &inner));
            }
            (None, true, _) => {
                lines.push(format!("{inner}{{"));
                lines.push(reindent(body, &format!("{inner}{unit}")));
                lines.push(format!("{inner}}}"));
            }
            (Some(cond), false, true) if !has_else(body) => {
                lines.push(format!("{inner}if ({cond})"));
                lines.push(reindent(body, &format!("{inner}{unit}")));
            }
            (Some(cond), _, _) => {
                lines.push(format!("{inner}if ({cond}) {{"));
                lines.push(reindent(body, &format!("{inner}{unit}")));
                lines.push(format!("{inner}}}"));
            }
        }
        at = end;
    }
    let body = lines.join("\n");
    if common.is_empty() {
        if one_statement {
            out.push('\n');
            out.push_str(&body);
        } else {
            out.push_str(" {\n");
            out.push_str(&body);
            out.push('\n');
            out.push_str(indent);
            out.push('}');
        }
    } else {
        // for (...)
        //     if (common) {
        //         ...
        //     }
        let cond = common.join(" && ");
        out.push_str(&format!("\n{indent}{unit}if ({cond})"));
        if one_statement && !has_else(&body) {
            out.push('\n');
            out.push_str(&body);
        } else {
            out.push_str(" {\n");
            out.push_str(&body);
            out.push_str(&format!("\n{indent}{unit}}}"));
        }
    }
}

/// Whether `body` holds an `else`: under a guard of polyfold's it gets
/// braces, which `-Wdangling-else` asks for (the `else` binds to the
/// body's own `if` either way).
fn has_else(body: &str) -> bool {
    crate::util::c_text::identifier_tokens(body, false)
        .iter()
        .any(|(_, word)| word == "else")
}

/// E.g. "loops at lines 16, 18" (a run of a later round: "the 2 loops
/// `j` inside loop `i`"), for the report of a run not fused.
pub(crate) fn describe_loops(run: &FusedRun) -> String {
    if run.round > 0 {
        return format!(
            "the {} loops `{}` inside loop `{}`",
            run.loops.len(),
            run.loops[0].iterator,
            run.outer.last().map_or("?", String::as_str)
        );
    }
    let lines: Vec<String> = run.loops.iter().map(|l| l.line.to_string()).collect();
    format!("loops at lines {}", lines.join(", "))
}

/// A run that [`fusion_edits`] did not fuse, and why.
pub(crate) type Refused = (FusedRun, RunRefusal);

/// The edits that fuse the runs of `runs` in `program`'s source, and per
/// run the statements its text holds (with their shifts). A run whose
/// values are not proven representable ([`RunRefusal::Overflow`]) is
/// removed from `runs` and returned with the reason; `None` when some
/// run cannot be printed at all.
pub(crate) fn fusion_edits(
    program: &Program,
    runs: &mut Vec<FusedRun>,
) -> Option<(Vec<Edit>, Vec<RunOrder>, Vec<Refused>)> {
    let mut edits = Vec::new();
    let mut orders = Vec::new();
    let mut kept = Vec::new();
    let mut refused = Vec::new();
    for run in runs.drain(..) {
        match run_text(program, &run) {
            Ok((text, order)) => {
                edits.push(Edit::replace(run.span.clone(), text));
                orders.push(order);
                kept.push(run);
            }
            Err(why @ (RunRefusal::Overflow(_) | RunRefusal::Labelled(_))) => {
                refused.push((run, why))
            }
            Err(RunRefusal::NotPrintable) => return None,
        }
    }
    *runs = kept;
    Some((edits, orders, refused))
}

fn param_text(params: &[String], a: &AffExpr) -> String {
    let terms: Vec<(i64, String)> = a
        .coeffs
        .iter()
        .copied()
        .zip(params.iter().cloned())
        .collect();
    affine_text(&terms, a.constant)
}

fn difference(a: &AffExpr, b: &AffExpr) -> Option<AffExpr> {
    Some(AffExpr {
        coeffs: a
            .coeffs
            .iter()
            .zip(&b.coeffs)
            .map(|(x, y)| x.checked_sub(*y))
            .collect::<Option<_>>()?,
        constant: a.constant.checked_sub(b.constant)?,
    })
}

/// Whether `a >= 0` (over the parameters and the enclosing loops'
/// iterators) for every parameter value of the SCoP's context and every
/// iteration of the loops around the run.
fn proven_nonneg(scop: &Scop, run: &FusedRun, a: &AffExpr) -> bool {
    if a.coeffs.iter().all(|c| *c == 0) {
        return a.constant >= 0;
    }
    let np = scop.params.len();
    if a.coeffs.len() != np + run.depth {
        return false;
    }
    // Some point with a < 0, i.e. -a - 1 >= 0?
    let pieces: Vec<crate::poly::BasicSet> = if run.depth == 0 {
        vec![scop.context.clone()]
    } else {
        let Some(stmt) = run.loops[0].stmts.first().map(|k| &scop.stmts[*k]) else {
            return false;
        };
        let Some(outer) = stmt.loop_domains.get(run.depth - 1) else {
            return false;
        };
        outer
            .pieces
            .iter()
            .map(|p| {
                let mut p = p.clone();
                p.add_param_constraints(&scop.context);
                p
            })
            .collect()
    };
    pieces.into_iter().all(|mut c| {
        let mut row = c.zero_row();
        for (k, v) in a.coeffs.iter().enumerate() {
            row[k] = -v;
        }
        let w = row.len();
        row[w - 1] = -a.constant - 1;
        c.add_ineq(row);
        c.is_empty().unwrap_or(false)
    })
}

/// One level of indentation: what the first loop's body adds to its
/// header's, or four spaces.
fn indent_unit(source: &str, run: &FusedRun) -> String {
    let l = &run.loops[0];
    let outer = indent_of_line(source, l.start);
    let body_start = if l.body_is_block {
        // The first line inside the block.
        source[l.body.clone()]
            .find('\n')
            .map(|p| l.body.start + p + 1)
            .and_then(|p| {
                let line = &source[p..l.body.end];
                let skip = line.len() - line.trim_start_matches([' ', '\t']).len();
                (skip < line.len()).then_some(p + skip)
            })
    } else {
        Some(l.body.start)
    };
    let inner = body_start
        .map(|p| indent_of_line(source, p))
        .unwrap_or_default();
    if inner.len() > outer.len()
        && inner.starts_with(&outer)
        && source[..body_start.unwrap_or(0)].ends_with(&inner)
    {
        inner[outer.len()..].to_string()
    } else {
        "    ".to_string()
    }
}

/// The body of loop `l` as lines (the inside of a block, or the one
/// statement), its iterator replaced by the run's `name` shifted by
/// `shift` (the old iterator is `name - shift`). A subscript that uses
/// the iterator is printed again from its affine form (`E[i - 1]`) where
/// each partial result of that form is proven representable in the
/// statement's frame (see [`overflow`]): the parameters first, as
/// before, else the iterators first; otherwise its text keeps every
/// original partial result, the iterator written `(i - 1)`.
fn body_text(
    program: &Program,
    scop: &Scop,
    (l, shift): (&FusedLoop, i64),
    (name, run_depth): (&str, usize),
    facts: &overflow::ScopFacts,
) -> Option<String> {
    let source = &program.source;
    let (start, end) = if l.body_is_block {
        let b = &l.body;
        (b.start + 1, b.end - 1)
    } else {
        (l.body.start, l.body.end)
    };
    let mut edits: Vec<Edit> = Vec::new();
    let renamed = l.iterator != name;
    if shift != 0 || renamed {
        let params = scop.param_texts();
        let np = scop.params.len();
        let mut covered: Vec<std::ops::Range<usize>> = Vec::new();
        for &k in &l.stmts {
            let stmt = &scop.stmts[k];
            // The statement's frame over the copy's iterators (the run's
            // one is the old one plus `shift`).
            let frame = copy_frame(scop, facts, k, run_depth, shift);
            for access in stmt.accesses() {
                // Not from a model that folded a known value: the text
                // holds for every value (`in[N0 * (i + 3)]`).
                if stmt.quotients.is_empty()
                    && !scop.array(access.array).value_used
                    && crate::codegen::text::exact_subscripts(source, scop, stmt, access)
                {
                    for (dim, (sub, span)) in access
                        .subscripts
                        .iter()
                        .zip(&access.subscript_spans)
                        .enumerate()
                    {
                        let d = np + run_depth;
                        if sub.coeffs[d] == 0
                            || covered
                                .iter()
                                .any(|c| c.start <= span.start && span.end <= c.end)
                        {
                            continue;
                        }
                        // f(i - shift).
                        let constant = sub
                            .constant
                            .checked_sub(sub.coeffs[d].checked_mul(shift)?)?;
                        let mut terms: Vec<(i64, usize)> = sub
                            .coeffs
                            .iter()
                            .enumerate()
                            .filter(|(_, c)| **c != 0)
                            .map(|(k, c)| (*c, k))
                            .collect();
                        let proven = |terms: &[(i64, usize)]| {
                            frame.as_ref().is_some_and(|f| f.sum_fits(terms, constant))
                        };
                        if !proven(&terms) {
                            // The iterators first, positive terms first.
                            terms.sort_by_key(|(c, k)| (*k < np, *c < 0));
                            if !proven(&terms) {
                                continue;
                            }
                        }
                        let texts: Vec<(i64, String)> = terms
                            .iter()
                            .map(|(c, k)| {
                                let text = if *k < np {
                                    params[*k].clone()
                                } else if *k == d {
                                    name.to_string()
                                } else {
                                    stmt.iterators[*k - np].clone()
                                };
                                (*c, text)
                            })
                            .collect();
                        let text = crate::codegen::text::subscript_in_place(
                            scop,
                            access,
                            dim,
                            affine_text(&texts, constant),
                        );
                        edits.push(Edit::replace(span.clone(), text));
                        covered.push(span.clone());
                    }
                }
            }
        }
        // Names of signed integers a comparison may take the shift into:
        // the parameters that print as themselves, the outer iterators.
        let mut integers: Vec<(String, Option<i64>)> = scop
            .params
            .iter()
            .zip(&params)
            .filter(|(p, t)| p.name == **t)
            .map(|(p, _)| (p.name.clone(), p.value))
            .collect();
        if let Some(&k) = l.stmts.first() {
            integers.extend(
                scop.stmts[k]
                    .iterators
                    .iter()
                    .take(run_depth)
                    .map(|i| (i.clone(), None)),
            );
        }
        let keep = |at: usize| {
            covered
                .iter()
                .any(|c| c.start <= start + at && start + at < c.end)
        };
        for (range, text) in super::shift_text::shift_edits(
            &source[start..end],
            (&l.iterator, name, shift),
            &integers,
            &keep,
        ) {
            edits.push(Edit::replace(start + range.start..start + range.end, text));
        }
    }
    // Edits relative to the body's text.
    let shifted: Vec<Edit> = edits
        .into_iter()
        .map(|e| Edit::replace(e.range.start - start..e.range.end - start, e.replacement))
        .collect();
    let text = crate::codegen::apply_edits(&source[start..end], &shifted).ok()?;
    // A statement that starts its line keeps that line's indentation.
    let lead = indent_of_line(source, l.body.start);
    let text = if !l.body_is_block && source[..l.body.start].ends_with(&lead) {
        format!("{lead}{text}")
    } else {
        text
    };
    let lines: Vec<&str> = text.lines().skip_while(|l| l.trim().is_empty()).collect();
    Some(lines.join("\n").trim_end().to_string())
}

/// The frame of statement `si` (see [`overflow::statement_frame`]) over
/// its copy's iterators: the one at `depth` is the original's plus
/// `shift`. `None` when the map overflows.
fn copy_frame(
    scop: &Scop,
    facts: &overflow::ScopFacts,
    si: usize,
    depth: usize,
    shift: i64,
) -> Option<Frame> {
    let stmt = &scop.stmts[si];
    let np = scop.params.len();
    let n = stmt.iterators.len();
    let frame = overflow::statement_frame(scop, facts, si);
    let map: Vec<AffExpr> = (0..n)
        .map(|k| {
            let mut coeffs = vec![0i64; np + n];
            coeffs[np + k] = 1;
            let constant = if k == depth { shift.checked_neg()? } else { 0 };
            Some(AffExpr { coeffs, constant })
        })
        .collect::<Option<_>>()?;
    Some(frame.pulled_back(np, &map, &overflow::iterator_types(stmt)))
}

/// `text`'s lines moved so that the least indented one starts at `to`.
fn reindent(text: &str, to: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let lead = |l: &str| l.len() - l.trim_start_matches([' ', '\t']).len();
    let blank = |l: &&&str| !l.trim().is_empty();
    // Tabs beside spaces in the leading blanks (`\tx = 0;` under `    {`):
    // the lines keep their columns (tab stops of 8), the part beyond the
    // least in spaces; otherwise the characters beyond the least stay.
    let has = |c: char| lines.iter().filter(blank).any(|l| l[..lead(l)].contains(c));
    let mixed = has('\t') && has(' ');
    let width = |l: &str| {
        l[..lead(l)]
            .chars()
            .fold(0usize, |w, c| if c == '\t' { w / 8 * 8 + 8 } else { w + 1 })
    };
    let measure = |l: &str| if mixed { width(l) } else { lead(l) };
    let least = lines
        .iter()
        .filter(blank)
        .map(|l| measure(l))
        .min()
        .unwrap_or(0);
    lines
        .iter()
        .map(|l| {
            if l.trim().is_empty() {
                String::new()
            } else if mixed {
                let extra = " ".repeat(width(l).saturating_sub(least));
                format!("{to}{extra}{}", &l[lead(l)..])
            } else {
                format!("{to}{}", &l[least.min(lead(l))..])
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}
