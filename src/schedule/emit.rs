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
//! When every statement of the run sits in an inner loop, the run is one
//! loop `L <= i <= U'` instead, each body under `i >= l_k` (when `l_k > L`)
//! and `i <= u_k` (when `u_k < U'`): the guards are tests per outer
//! iteration, and the statements are not copied.

use crate::codegen::Edit;
use crate::ir::{AffExpr, Program, Scop};
use crate::util::c_text::{affine_text, indent_of_line};

use super::fusion::{FusedLoop, FusedRun};

/// A loop of the fused text: its header, and the loops of the run whose
/// bodies it runs, each with its guards.
type Segment = (String, Vec<(usize, Vec<String>)>);

/// Per statement of a run's text: the statement and its shift.
type RunOrder = Vec<(usize, i64)>;

/// The text that replaces `run.span`, and the statements it holds in
/// order, each with its shift.
pub fn run_text(program: &Program, run: &FusedRun) -> Option<(String, RunOrder)> {
    let scop = &program.scops[run.scop];
    let source = &program.source;
    let name = run.loops[0].iterator.clone();
    let indent = indent_of_line(source, run.span.start);
    let unit = indent_unit(source, run);
    let mut params = scop.param_texts();
    params.extend(run.outer.iter().cloned());
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
    let lo_min = lowers.iter().map(|a| a.constant).min()?;
    let lo_max = lowers.iter().map(|a| a.constant).max()?;
    let up_min = uppers.iter().map(|a| a.constant).min()?;
    let up_max = uppers.iter().map(|a| a.constant).max()?;
    let with = |a: &AffExpr, c: i64| AffExpr {
        coeffs: a.coeffs.clone(),
        constant: c,
    };
    let text = |a: &AffExpr| param_text(&params, a);
    let bodies: Vec<String> = run
        .loops
        .iter()
        .map(|l| body_text(program, scop, l, &name, run.depth))
        .collect::<Option<_>>()?;
    let header = |from: &AffExpr, to: &AffExpr| {
        let decl = run.loops[0]
            .declares
            .as_ref()
            .map_or(String::new(), |t| format!("{t} "));
        format!(
            "for ({decl}{name} = {}; {name} <= {}; {name}++)",
            text(from),
            text(to)
        )
    };
    let mut segments: Vec<Segment> = Vec::new();
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
            .zip(&uppers)
            .enumerate()
            .map(|(k, (lower, upper))| {
                let mut guards = Vec::new();
                if lower.constant > lo_min {
                    guards.push(format!("{name} >= {}", text(lower)));
                }
                if upper.constant < up_max {
                    guards.push(format!("{name} <= {}", text(upper)));
                }
                (k, guards)
            })
            .collect();
        segments.push((
            header(&with(&lowers[0], lo_min), &with(&uppers[0], up_max)),
            members,
        ));
    }
    // The prologue.
    if !outer && lo_max > lo_min {
        let last = with(&lowers[0], lo_max - 1);
        let mut members = Vec::new();
        for (k, (lower, upper)) in lowers.iter().zip(&uppers).enumerate() {
            if lower.constant >= lo_max {
                continue;
            }
            let mut guards = Vec::new();
            if lower.constant > lo_min {
                guards.push(format!("{name} >= {}", text(lower)));
            }
            // u_k >= L' - 1 for every value of the context?
            if !proven_nonneg(scop, run, &difference(upper, &last)?) {
                guards.push(format!("{name} <= {}", text(upper)));
            }
            members.push((k, guards));
        }
        segments.push((header(&with(&lowers[0], lo_min), &last), members));
    }
    // The steady loop.
    if !outer {
        segments.push((
            header(&with(&lowers[0], lo_max), &with(&uppers[0], up_min)),
            (0..run.loops.len()).map(|k| (k, Vec::new())).collect(),
        ));
    }
    // The epilogue.
    if !outer && up_max > up_min {
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
                guards.push(format!("{name} >= {}", text(&with(&lowers[0], lo_max))));
            }
            if upper.constant < up_max {
                guards.push(format!("{name} <= {}", text(upper)));
            }
            members.push((k, guards));
        }
        segments.push((header(&first, &with(&uppers[0], up_max)), members));
    }
    let mut out = String::new();
    let mut order = Vec::new();
    // The items moved before the loops, as they are.
    for span in &run.hoisted {
        let text = reindent(
            &format!(
                "{}{}",
                indent_of_line(source, span.start),
                &source[span.clone()]
            ),
            &indent,
        );
        out.push_str(text.trim_start());
        out.push('\n');
        out.push_str(&indent);
        order.extend(
            scop.stmts
                .iter()
                .enumerate()
                .filter(|(_, s)| span.start <= s.span.start && s.span.end <= span.end)
                .map(|(k, _)| (k, 0)),
        );
    }
    for (n, (head, members)) in segments.iter().enumerate() {
        if n > 0 {
            out.push('\n');
            out.push_str(&indent);
        }
        out.push_str(head);
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
                order.extend(l.stmts.iter().map(|s| (*s, l.shift)));
            }
            let body = &bodies[*k];
            match (guard, l.scoped, l.single) {
                (Some(cond), _, _) if end > at + 1 => {
                    lines.push(format!("{inner}if ({cond}) {{"));
                    for (k, _) in &guarded[at..end] {
                        lines.push(reindent(&bodies[*k], &format!("{inner}{unit}")));
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
                (Some(cond), false, true) => {
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
                out.push_str(&indent);
                out.push('}');
            }
        } else {
            // for (...)
            //     if (common) {
            //         ...
            //     }
            let cond = common.join(" && ");
            out.push_str(&format!("\n{indent}{unit}if ({cond})"));
            if one_statement {
                out.push('\n');
                out.push_str(&body);
            } else {
                out.push_str(" {\n");
                out.push_str(&body);
                out.push_str(&format!("\n{indent}{unit}}}"));
            }
        }
    }
    Some((out, order))
}

/// The edits that fuse every run of `runs` in `program`'s source, and per
/// run the statements its text holds (with their shifts).
pub fn fusion_edits(program: &Program, runs: &[FusedRun]) -> Option<(Vec<Edit>, Vec<RunOrder>)> {
    let mut edits = Vec::new();
    let mut orders = Vec::new();
    for run in runs {
        let (text, order) = run_text(program, run)?;
        edits.push(Edit::replace(run.span.clone(), text));
        orders.push(order);
    }
    Some((edits, orders))
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
    let outer = indent_of_line(source, run.span.start);
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
/// statement), its iterator replaced by the run's `name` shifted, the
/// subscripts of the accesses that use it reprinted.
fn body_text(
    program: &Program,
    scop: &Scop,
    l: &FusedLoop,
    name: &str,
    run_depth: usize,
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
    if l.shift != 0 || renamed {
        let params = scop.param_texts();
        let np = scop.params.len();
        let mut covered: Vec<std::ops::Range<usize>> = Vec::new();
        for &k in &l.stmts {
            let stmt = &scop.stmts[k];
            for access in stmt.accesses() {
                // Not from a model that folded a known value: the text
                // holds for every value (`in[N0 * (i + 3)]`).
                if stmt.quotients.is_empty()
                    && !scop.array(access.array).value_used
                    && crate::codegen::plan::exact_subscripts(source, scop, stmt, access)
                {
                    for (sub, span) in access.subscripts.iter().zip(&access.subscript_spans) {
                        let d = np + run_depth;
                        if sub.coeffs[d] == 0
                            || covered
                                .iter()
                                .any(|c| c.start <= span.start && span.end <= c.end)
                        {
                            continue;
                        }
                        let mut terms: Vec<(i64, String)> = Vec::new();
                        for (c, p) in sub.coeffs[..np].iter().zip(&params) {
                            terms.push((*c, p.clone()));
                        }
                        for (k, (c, it)) in sub.coeffs[np..].iter().zip(&stmt.iterators).enumerate()
                        {
                            let it = if k == run_depth { name } else { it.as_str() };
                            terms.push((*c, it.to_string()));
                        }
                        // f(i - shift).
                        let constant = sub
                            .constant
                            .checked_sub(sub.coeffs[d].checked_mul(l.shift)?)?;
                        edits.push(Edit::replace(span.clone(), affine_text(&terms, constant)));
                        covered.push(span.clone());
                    }
                }
            }
        }
        // Names of signed integers a comparison may take the shift into:
        // the parameters that print as themselves, the outer iterators.
        let mut integers: Vec<String> = scop
            .params
            .iter()
            .zip(&params)
            .filter(|(p, t)| p.name == **t)
            .map(|(p, _)| p.name.clone())
            .collect();
        if let Some(&k) = l.stmts.first() {
            integers.extend(scop.stmts[k].iterators.iter().take(run_depth).cloned());
        }
        let keep = |at: usize| {
            covered
                .iter()
                .any(|c| c.start <= start + at && start + at < c.end)
        };
        for (range, text) in super::shift_text::shift_edits(
            &source[start..end],
            (&l.iterator, name, l.shift),
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

/// `text`'s lines moved so that the least indented one starts at `to`.
fn reindent(text: &str, to: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let least = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start_matches([' ', '\t']).len())
        .min()
        .unwrap_or(0);
    lines
        .iter()
        .map(|l| {
            if l.trim().is_empty() {
                String::new()
            } else {
                format!(
                    "{to}{}",
                    &l[least.min(l.len() - l.trim_start_matches([' ', '\t']).len())..]
                )
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}
