//! A loop polyfold printed that runs exactly one iteration becomes
//! straight-line code (issue 49: a fused run's one-iteration prologue or
//! epilogue, `for (i = 1; i <= 1; i++, A_s0 = A_s1) BODY`).
//!
//! `for (V = E; V <= E; V++, U1, …) BODY`, with `E` the same text twice
//! and free of side effects, runs `V = E`, `BODY` once (the condition
//! holds at `V = E`), then `V++, U1, …`, and stops (`E + 1 <= E` is
//! false). So it is
//!
//! ```text
//! V = E;
//! BODY
//! U1;
//! V++;
//! ```
//!
//! with the same operations in the same order. `V++` is left out when `V`
//! is dead there: the next statement of the block is a `for` whose
//! initialisation assigns `V` first without reading it, or nothing follows
//! in the function and `V` is a parameter or a local of it (not
//! `static`). A body that is a block loses its braces, one level of
//! indentation less, unless it declares something.
//!
//! Not rewritten (the loop stays): a loop of the original file (its
//! header is in the original text), a header that declares `V`, a body
//! with `break` or `continue` (they would leave the loop), a pragma
//! before the loop (`omp for` applies to a loop), `E` with a call, an
//! assignment or `++`/`--`, and text laid out other than a statement per
//! line.
//!
//! Runs on the final output, which the front end's parser reads.

use crate::frontend::alloc::walk_stmts;
use crate::frontend::syntax::{self, BinOp, CStmt, Expr, ExprKind, ForInit};

use super::{Edit, apply_edits};

/// `output` with each one-iteration loop polyfold added (not a loop of
/// `original`) written as straight-line code.
pub fn one_iteration_loops(original: &str, output: &str) -> String {
    let Some(file) = syntax::parse_file(output) else {
        return output.to_string();
    };
    let mut edits = Vec::new();
    for f in &file.functions {
        let locals = locals(f);
        let mut visit = |items: &[CStmt], last_in_function: bool| {
            for (k, s) in items.iter().enumerate() {
                let before = k.checked_sub(1).map(|j| &items[j]);
                let after = items[k + 1..]
                    .iter()
                    .find(|s| !matches!(s, CStmt::Preproc { .. }));
                if matches!(
                    before,
                    Some(CStmt::Preproc {
                        applies_to_next: true,
                        ..
                    })
                ) {
                    continue;
                }
                // Whether the variable is dead after the loop: the next
                // loop assigns it first, or the function ends there and it
                // is a local.
                let dead = |var: &str| match after {
                    Some(next) => assigned_by_init(next) == Some(var),
                    None => last_in_function && locals.iter().any(|l| l == var),
                };
                if let Some(e) = straight(original, output, s, &dead) {
                    edits.push(e);
                }
            }
        };
        // Every block, and whether it is the function's body.
        walk_stmts(&f.body, &mut |s| {
            if let CStmt::Compound { items, .. } = s {
                visit(items, std::ptr::eq(s, &f.body));
            }
        });
    }
    if edits.is_empty() {
        return output.to_string();
    }
    apply_edits(output, &edits).unwrap_or_else(|_| output.to_string())
}

/// The names of the locals declared at the top of `f`'s body, neither
/// `static` nor `volatile` (a store to which is a side effect), and its
/// parameters.
fn locals(f: &syntax::Function) -> Vec<String> {
    let mut names: Vec<String> = f
        .params
        .iter()
        .flat_map(|d| d.declarators.iter().map(|dc| dc.name.clone()))
        .collect();
    if let CStmt::Compound { items, .. } = &f.body {
        for s in items {
            if let CStmt::Decl { decl, .. } = s
                && !decl.has_qualifier("static")
                && !decl.has_qualifier("volatile")
            {
                names.extend(decl.declarators.iter().map(|dc| dc.name.clone()));
            }
        }
    }
    names
}

/// The variable a `for` statement's initialisation assigns first (`V =
/// e`, `e` not reading `V`): its value before the loop is dead.
fn assigned_by_init(s: &CStmt) -> Option<&str> {
    let CStmt::For {
        init: ForInit::Expr(e),
        ..
    } = s
    else {
        return None;
    };
    let mut first = e;
    while let ExprKind::Comma(a, _) = &first.kind {
        first = a;
    }
    let ExprKind::Assign(None, lhs, rhs) = &first.kind else {
        return None;
    };
    let var = ident(lhs)?;
    let mut reads = false;
    rhs.walk(&mut |x| reads |= matches!(&x.kind, ExprKind::Ident(n) if n == var) || x.from_macro);
    (!reads).then_some(var)
}

fn ident(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Ident(n) if !e.from_macro => Some(n),
        _ => None,
    }
}

/// Whether evaluating `e` once or twice is the same (no call, no
/// assignment, no `++`/`--`).
fn pure(e: &Expr) -> bool {
    let mut ok = true;
    e.walk(&mut |x| {
        if matches!(
            x.kind,
            ExprKind::Call(..) | ExprKind::Assign(..) | ExprKind::Update(..) | ExprKind::Other(..)
        ) || x.from_macro
        {
            ok = false;
        }
    });
    ok
}

/// The edit that writes `s` as straight-line code, when it is a
/// one-iteration loop polyfold added (see the module doc).
fn straight(original: &str, output: &str, s: &CStmt, dead: &dyn Fn(&str) -> bool) -> Option<Edit> {
    let CStmt::For {
        init: ForInit::Expr(init),
        cond: Some(cond),
        update: Some(update),
        body,
        span,
        header_span,
    } = s
    else {
        return None;
    };
    let header = &output[header_span.clone()];
    if original.contains(header) {
        return None;
    }
    let ExprKind::Assign(None, v, from) = &init.kind else {
        return None;
    };
    let var = ident(v)?;
    let ExprKind::Binary(BinOp::Le, cv, to) = &cond.kind else {
        return None;
    };
    let same = |a: &Expr, b: &Expr| {
        let words = |e: &Expr| -> String { output[e.span.clone()].split_whitespace().collect() };
        words(a) == words(b)
    };
    if ident(cv) != Some(var) || !same(from, to) || !pure(from) {
        return None;
    }
    // `V++, U1, U2`, however the comma tree leans.
    fn flatten<'e>(e: &'e Expr, parts: &mut Vec<&'e Expr>) {
        match &e.kind {
            ExprKind::Comma(a, b) => {
                flatten(a, parts);
                flatten(b, parts);
            }
            _ => parts.push(e),
        }
    }
    let mut parts = Vec::new();
    flatten(update, &mut parts);
    let step = parts.first()?;
    if !matches!(&step.kind, ExprKind::Update(true, x) if ident(x) == Some(var)) {
        return None;
    }
    if exits(body) {
        return None;
    }
    // Laid out a statement per line: the `for` starts its line.
    let line_start = output[..span.start].rfind('\n').map_or(0, |k| k + 1);
    let indent = &output[line_start..span.start];
    if !indent.chars().all(|c| c == ' ' || c == '\t') {
        return None;
    }
    // Dead after the loop: the body reads `E` where it read `V`, and `V`
    // is not assigned at all. Otherwise `V = E;` first and `V++;` last.
    let substituted = if dead(var) {
        substitute(output, body, var, from)
    } else {
        None
    };
    let assign = substituted.is_none();
    let deleted = dead_copies(output, body, dead);
    let mut edits = substituted.unwrap_or_default();
    edits.retain(|e| {
        !deleted
            .iter()
            .any(|d| d.range.start <= e.range.start && e.range.end <= d.range.end)
    });
    edits.extend(deleted);
    let body_text = body_lines(output, body, indent, &edits)?;
    let mut text = if assign {
        format!("{indent}{var} = {};\n", &output[from.span.clone()])
    } else {
        String::new()
    };
    for line in body_text {
        if line.is_empty() {
            text.push('\n');
        } else {
            text.push_str(&format!("{indent}{line}\n"));
        }
    }
    let updates = &parts[1..];
    // The updates from the last one that is not a dead copy.
    let live = updates
        .iter()
        .rposition(|u| !dead_copy(u, dead))
        .map_or(0, |k| k + 1);
    for u in &updates[..live] {
        text.push_str(&format!("{indent}{};\n", &output[u.span.clone()]));
    }
    if assign && !dead(var) {
        text.push_str(&format!("{indent}{}++;\n", var));
    }
    let text = text.strip_suffix('\n').unwrap_or(&text);
    // The first line goes where the `for` stood (after its indentation).
    let text = text.strip_prefix(indent).unwrap_or(text).to_string();
    Some(Edit::replace(span.clone(), text))
}

/// Whether `e` is a copy `x = y` of one variable to another whose stored
/// value is dead (`dead(x)`; nothing reads it after the loop).
fn dead_copy(e: &Expr, dead: &dyn Fn(&str) -> bool) -> bool {
    matches!(&e.kind, ExprKind::Assign(None, x, y)
        if ident(y).is_some() && ident(x).is_some_and(dead))
}

/// The deletions of the copies `x = y;` that end a block `body` when `x`
/// is dead after the loop (the rotating scalars' last shift before the
/// function ends): from the end of the statement before each.
fn dead_copies(output: &str, body: &CStmt, dead: &dyn Fn(&str) -> bool) -> Vec<Edit> {
    let CStmt::Compound { items, .. } = body else {
        return Vec::new();
    };
    let mut edits = Vec::new();
    for k in (1..items.len()).rev() {
        let CStmt::Expr { expr, span } = &items[k] else {
            break;
        };
        // Later copies are gone: `x` is not read by them.
        if !dead_copy(expr, dead)
            || !output[items[k - 1].span().end..span.start]
                .trim()
                .is_empty()
        {
            break;
        }
        edits.push(Edit::replace(items[k - 1].span().end..span.end, ""));
    }
    edits
}

/// `E` as `base + offset`: a number (no base), a name, or a name plus or
/// minus a number (`N + 1`).
fn base_offset(e: &Expr) -> Option<(Option<&str>, i64)> {
    let number = |x: &Expr| match x.kind {
        ExprKind::Int(v) if !x.from_macro => Some(v),
        _ => None,
    };
    match &e.kind {
        ExprKind::Int(v) => Some((None, *v)),
        ExprKind::Ident(n) => Some((Some(n.as_str()), 0)),
        ExprKind::Binary(BinOp::Add, a, b) => Some((Some(ident(a)?), number(b)?)),
        ExprKind::Binary(BinOp::Sub, a, b) => Some((Some(ident(a)?), number(b)?.checked_neg()?)),
        _ => None,
    }
}

/// `base + offset` printed: `N`, `N + 2`, `N - 1`, or a number (`None`
/// for a negative number, which would need parentheses).
fn print_base_offset(base: Option<&str>, offset: i64) -> Option<String> {
    Some(match base {
        None if offset >= 0 => offset.to_string(),
        None => return None,
        Some(n) if offset == 0 => n.to_string(),
        Some(n) if offset > 0 => format!("{n} + {offset}"),
        Some(n) => format!("{n} - {}", offset.checked_neg()?),
    })
}

/// The edits that make `body` read `from` where it reads `var`, when that
/// is the same program: `var` is not written, taken the address of or
/// declared in the body, and no variable of `from` is written there (nor
/// anything at all when the body calls a function), and `var` is read only
/// as an operand, a subscript, an argument or a value assigned. `from` is
/// a number, a name, or a name plus or minus a number (`N + 1`): `V + c`
/// and `V - c` fold into one offset (`E[V - 1]` reads `E[N]`), and `V < c`
/// (any comparison with a number) compares the name (`N + 1 >= 2` reads
/// `N >= 1`). These only leave out additions the original made, so no
/// value overflows that did not. Elsewhere `N + 1` is put in parentheses
/// unless it is a whole subscript, argument or assigned value, or the left
/// operand of `+`, `-` or a comparison.
fn substitute(output: &str, body: &CStmt, var: &str, from: &Expr) -> Option<Vec<Edit>> {
    let (base, c0) = base_offset(from)?;
    let names: Vec<&str> = base.into_iter().collect();
    // The text that replaces `var` where no folding applies.
    let plain_text =
        print_base_offset(base, c0).unwrap_or_else(|| output[from.span.clone()].to_string());
    let compound = base.is_some() && c0 != 0;
    let mut ok = true;
    let mut edits = Vec::new();
    // Writes of `var` or of a name of `from`; calls.
    let written = |lhs: &Expr| -> bool {
        let mut root = lhs;
        while let ExprKind::Subscript(b, _) | ExprKind::Field(b) | ExprKind::Deref(b) = &root.kind {
            root = b;
        }
        match &root.kind {
            ExprKind::Ident(n) => n == var || names.contains(&n.as_str()),
            _ => !names.is_empty(),
        }
    };
    let is_var = |x: &Expr| matches!(&x.kind, ExprKind::Ident(n) if n == var);
    let mut visit = |e: &Expr| {
        match &e.kind {
            ExprKind::Assign(_, lhs, _) | ExprKind::Update(_, lhs) | ExprKind::AddrOf(lhs)
                if written(lhs) =>
            {
                ok = false;
            }
            ExprKind::Call(..) if !names.is_empty() => ok = false,
            ExprKind::Other(..) => ok = false,
            _ => {}
        }
        // The operands that are `var`, in parentheses where needed.
        let at = |x: &Expr, bare: bool| -> Option<(Edit, bool)> {
            is_var(x).then(|| {
                let text = if compound && !bare {
                    format!("({plain_text})")
                } else {
                    plain_text.clone()
                };
                (Edit::replace(x.span.clone(), text), x.from_macro)
            })
        };
        let mut found: Vec<Option<(Edit, bool)>> = Vec::new();
        match &e.kind {
            ExprKind::Binary(op, a, b) => {
                // `V - N` or `N - V` would read `N - N` (or `N + 1 - N`).
                let is_base = |x: &Expr| base.is_some() && ident(x) == base;
                if *op == BinOp::Sub && ((is_var(a) && is_base(b)) || (is_base(a) && is_var(b))) {
                    ok = false;
                }
                let number = match &b.kind {
                    ExprKind::Int(c) if is_var(a) && !b.from_macro => Some(*c),
                    _ => None,
                };
                let comparison = matches!(
                    op,
                    BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
                );
                // `V + c`, `V - c`: one offset (a value the original
                // computes; a number only when not negative). `V < c`
                // with a name: the name against `c - offset`.
                let folded = match (op, number) {
                    (BinOp::Add, Some(c)) => {
                        c0.checked_add(c).and_then(|o| print_base_offset(base, o))
                    }
                    (BinOp::Sub, Some(c)) => {
                        c0.checked_sub(c).and_then(|o| print_base_offset(base, o))
                    }
                    (_, Some(c)) if comparison && compound => {
                        let o = c.checked_sub(c0).filter(|o| *o >= 0);
                        let symbol = &output[a.span.end..b.span.start];
                        o.map(|o| format!("{}{symbol}{o}", base.unwrap_or_default()))
                    }
                    // `V <= N` with a number: `N >= c` (the name first,
                    // as a bound reads).
                    (_, None) if comparison && base.is_none() && is_var(a) => {
                        let flipped = match op {
                            BinOp::Lt => ">",
                            BinOp::Le => ">=",
                            BinOp::Gt => "<",
                            BinOp::Ge => "<=",
                            BinOp::Eq => "==",
                            _ => "!=",
                        };
                        ident(b).map(|n| format!("{n} {flipped} {c0}"))
                    }
                    _ => None,
                };
                match folded {
                    // From the first operand to the last: parentheses
                    // around `e` (in its span) stay.
                    Some(text) => found.push(Some((
                        Edit::replace(a.span.start..b.span.end, text),
                        a.from_macro,
                    ))),
                    None => {
                        let left_bare = matches!(op, BinOp::Add | BinOp::Sub) || comparison;
                        found.extend([at(a, left_bare), at(b, false)]);
                    }
                }
            }
            ExprKind::Subscript(_, i) => found.push(at(i, true)),
            ExprKind::Call(_, args) => found.extend(args.iter().map(|x| at(x, true))),
            ExprKind::Assign(_, _, rhs) => found.push(at(rhs, true)),
            ExprKind::Unary(_, x) | ExprKind::Cast(_, x) => found.push(at(x, false)),
            _ => {}
        }
        for (edit, from_macro) in found.into_iter().flatten() {
            ok &= !from_macro;
            edits.push(edit);
        }
    };
    let mut plain = true;
    walk_stmts(body, &mut |s| {
        plain &= matches!(
            s,
            CStmt::If { .. }
                | CStmt::For { .. }
                | CStmt::Expr { .. }
                | CStmt::Compound { .. }
                | CStmt::Empty { .. }
        );
    });
    body.walk_exprs(&mut visit);
    ok &= plain;
    // Every use of `var` is replaced once (a use in any other place, a
    // whole condition, keeps the assignment).
    let mut uses = 0;
    body.walk_exprs(&mut |x| {
        uses += usize::from(matches!(&x.kind, ExprKind::Ident(n) if n == var))
    });
    (ok && uses == edits.len()).then_some(edits)
}

/// Whether `body` holds a `break` or a `continue` (conservatively, at any
/// depth).
fn exits(body: &CStmt) -> bool {
    let mut found = false;
    walk_stmts(body, &mut |s| {
        found |= matches!(s, CStmt::Other { kind, .. }
            if kind == "break_statement" || kind == "continue_statement");
    });
    found
}

/// The lines of `body` as they go after the loop is removed, relative to
/// `indent` (the loop's): a block's items without the braces, one level
/// out (the block kept when it declares something); a statement as is,
/// one level out.
fn body_lines(output: &str, body: &CStmt, indent: &str, edits: &[Edit]) -> Option<Vec<String>> {
    let (range, keep_braces) = match body {
        CStmt::Compound { items, span } => {
            if items.iter().any(|i| matches!(i, CStmt::Decl { .. })) {
                (span.clone(), true)
            } else {
                let first = items.first()?.span().start;
                let last = items.last()?.span().end;
                // Comments between the braces and the items go too.
                let open = span.start + 1;
                let close = span.end - 1;
                if !output[open..first].trim().is_empty() || !output[last..close].trim().is_empty()
                {
                    return None;
                }
                (first..last, false)
            }
        }
        CStmt::Empty { .. } => return None,
        other => (other.span(), false),
    };
    // The edits, inside the range, moved to its start.
    let inside: Vec<Edit> = edits
        .iter()
        .map(|e| {
            let (a, b) = (
                e.range.start.checked_sub(range.start)?,
                e.range.end.checked_sub(range.start)?,
            );
            (e.range.end <= range.end).then(|| Edit::replace(a..b, e.replacement.clone()))
        })
        .collect::<Option<_>>()?;
    let text = apply_edits(&output[range.clone()], &inside).ok()?;
    let text = text.as_str();
    let mut lines: Vec<String> = Vec::new();
    if keep_braces {
        // The block as it is (`{` on the loop's line), its lines where
        // they were.
        for (k, l) in text.split('\n').enumerate() {
            lines.push(match k {
                0 => l.to_string(),
                _ if l.trim().is_empty() => String::new(),
                _ => l.strip_prefix(indent)?.to_string(),
            });
        }
        return Some(lines);
    }
    // The body's first line starts at column `lead`, deeper than the
    // loop; each line moves out by the difference.
    let line_start = output[..range.start].rfind('\n').map_or(0, |k| k + 1);
    let lead = &output[line_start..range.start];
    if !lead.chars().all(|c| c == ' ') || lead.len() <= indent.len() {
        return None;
    }
    let lead = " ".repeat(lead.len());
    for (k, l) in text.split('\n').enumerate() {
        lines.push(match k {
            0 => l.to_string(),
            _ if l.trim().is_empty() => String::new(),
            _ => l.strip_prefix(&lead)?.to_string(),
        });
    }
    Some(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ORIGINAL: &str = "void f(double *E, int N)\n{\n    int i;\n    for (i = 1; i <= N; i++)\n        E[i] = 0;\n}\n";

    /// `output`'s function body around `loops`.
    fn function(loops: &str) -> String {
        format!("void f(double *E, int N)\n{{\n    int i;\n    double a, b;\n{loops}}}\n")
    }

    #[test]
    fn a_prologue_and_an_epilogue_of_one_iteration_become_straight_code() {
        let output = function(
            "    for (i = 1; i <= 1; i++, a = b)\n        if (i <= N)\n            b = E[i];\n    for (i = 2; i <= N; i++, a = b) {\n        b = E[i];\n        E[i - 1] = a;\n    }\n    for (i = N + 1; i <= N + 1; i++, a = b) {\n        if (i >= 2)\n            E[i - 1] = a;\n    }\n",
        );
        // By hand: the body once with i = 1, then the update `a = b`; i is
        // dead after each (the next loop assigns it; the function ends
        // after the last): the first body reads 1 where it read i (`1 <= N`
        // written `N >= 1`, the name first), the
        // second N + 1: `N + 1 >= 2` is `N >= 1`, `E[N + 1 - 1]` is `E[N]`.
        // The last `a = b` goes: `a` is a local, and the function ends.
        let expected = function(
            "    if (N >= 1)\n        b = E[1];\n    a = b;\n    for (i = 2; i <= N; i++, a = b) {\n        b = E[i];\n        E[i - 1] = a;\n    }\n    if (N >= 1)\n        E[N] = a;\n",
        );
        assert_eq!(one_iteration_loops(ORIGINAL, &output), expected);
    }

    #[test]
    fn the_step_stays_where_the_variable_is_read_after() {
        let output = function(
            "    for (i = 0; i <= 0; i++)\n        E[i] = 1;\n    E[i] = 2;\n    for (i = i + 1; i <= 0 + 1; i++)\n        E[i] = 3;\n    for (i = 5; i <= 5; i++)\n        E[i] = 4;\n",
        );
        let expected = function(
            "    i = 0;\n    E[i] = 1;\n    i++;\n    E[i] = 2;\n    for (i = i + 1; i <= 0 + 1; i++)\n        E[i] = 3;\n    E[5] = 4;\n",
        );
        assert_eq!(one_iteration_loops(ORIGINAL, &output), expected);
    }

    #[test]
    fn loops_that_stay() {
        for loops in [
            // The original's own loop.
            "    for (i = 1; i <= N; i++)\n        E[i] = 0;\n",
            // Two bounds.
            "    for (i = 1; i <= 2; i++)\n        E[i] = 0;\n",
            // A break, a pragma, a declared iterator, a call in the bound.
            "    for (i = 1; i <= 1; i++) {\n        if (E[i] > 0)\n            break;\n        E[i] = 0;\n    }\n",
            "#pragma omp parallel for\n    for (i = 1; i <= 1; i++)\n        E[i] = 0;\n",
            "    for (int k = 1; k <= 1; k++)\n        E[k] = 0;\n",
            "    for (i = g(); i <= g(); i++)\n        E[i] = 0;\n",
            // The body of a loop without braces.
            "    for (a = 0; a < 3; a++)\n        for (i = 1; i <= 1; i++)\n            E[i] = a;\n",
        ] {
            let output = function(loops);
            assert_eq!(one_iteration_loops(ORIGINAL, &output), output, "{loops}");
        }
    }

    #[test]
    fn a_number_or_a_name_replaces_the_iterator_and_other_bounds_are_assigned() {
        // By hand: i = 3 gives E[2 * 3], E[3 * 2], E[N - 3], i - 1 = 2,
        // i + 4 = 7 (numbers the original computes), `3 < N` (`N > 3`).
        let output = function(
            "    for (i = 3; i <= 3; i++)\n        E[2 * i] = E[i * 2] - E[N - i] + E[i - 1] + E[i + 4] + E[i - 3] + (i < N);\n",
        );
        let expected =
            function("    E[2 * 3] = E[3 * 2] - E[N - 3] + E[2] + E[7] + E[0] + (N > 3);\n");
        assert_eq!(one_iteration_loops(ORIGINAL, &output), expected);
        // A name: `N - i` would read `N - N`; the assignment stays.
        let output = function("    for (i = N; i <= N; i++)\n        E[N - i] = E[i];\n");
        let expected = function("    i = N;\n    E[N - i] = E[i];\n");
        assert_eq!(one_iteration_loops(ORIGINAL, &output), expected);
        // A name plus a number: offsets fold, comparisons with a number
        // compare the name, other operands get parentheses. By hand, with
        // i = N + 1: i - 1 = N, i + 3 = N + 4, i - 3 = N - 2, `i < 5` is
        // `N < 4`, `2 <= i` stays a comparison of `(N + 1)`.
        let output = function(
            "    for (i = N + 1; i <= N + 1; i++)\n        E[i - 1] = E[i + 3] + E[i - 3] + E[i] + E[2 * i] + E[N * 2 - i] + (i < 5) + (2 <= i) + -i;\n",
        );
        let expected = function(
            "    E[N] = E[N + 4] + E[N - 2] + E[N + 1] + E[2 * (N + 1)] + E[N * 2 - (N + 1)] + (N < 4) + (2 <= (N + 1)) + -(N + 1);\n",
        );
        assert_eq!(one_iteration_loops(ORIGINAL, &output), expected);
        let output = function(
            "    for (i = N - 1; i <= N - 1; i++)\n        E[i + 1] = E[i - 1] + (i >= 0) + E[2 * (i + 2)];\n",
        );
        let expected = function("    E[N] = E[N - 2] + (N >= 1) + E[2 * (N + 1)];\n");
        assert_eq!(one_iteration_loops(ORIGINAL, &output), expected);
        // `N - i` would read `N - (N + 1)`; another bound is assigned.
        for bound in ["N + 1", "2 * N", "N + N"] {
            let output = function(&format!(
                "    for (i = {bound}; i <= {bound}; i++)\n        E[i - 1] = E[N - i];\n"
            ));
            let expected = function(&format!("    i = {bound};\n    E[i - 1] = E[N - i];\n"));
            assert_eq!(one_iteration_loops(ORIGINAL, &output), expected, "{bound}");
        }
        // A body that writes the name keeps the assignment.
        let output = function("    for (i = N; i <= N; i++)\n        N = E[i];\n");
        let expected = function("    i = N;\n    N = E[i];\n");
        assert_eq!(one_iteration_loops(ORIGINAL, &output), expected);
    }

    /// The copies that end the last loop of a function go where their
    /// targets are dead locals: in the body or in the header's update,
    /// from the last one up to the first that is not such a copy. A
    /// parameter (`E`, the caller's data), a copy before another loop
    /// that does not assign it, and a `volatile` local stay.
    #[test]
    fn dead_copies_at_the_end_of_the_function_go() {
        let output = function(
            "    for (i = 5; i <= 5; i++) {\n        E[i] = a;\n        a = b;\n        b = a;\n    }\n",
        );
        assert_eq!(
            one_iteration_loops(ORIGINAL, &output),
            function("    E[5] = a;\n")
        );
        // In the header: the same.
        let output = function("    for (i = 5; i <= 5; i++, a = b, b = a)\n        E[i] = a;\n");
        assert_eq!(
            one_iteration_loops(ORIGINAL, &output),
            function("    E[5] = a;\n")
        );
        // A write of the caller's data stays, and the copies before it;
        // the copies after it go (`N` is a parameter passed by value).
        let output = function(
            "    for (i = 5; i <= 5; i++) {\n        E[i] = a;\n        a = b;\n        E[0] = b;\n        a = b;\n        N = i;\n    }\n",
        );
        assert_eq!(
            one_iteration_loops(ORIGINAL, &output),
            function("    E[5] = a;\n    a = b;\n    E[0] = b;\n")
        );
        // Another loop follows, which reads `a`.
        let output = function(
            "    for (i = 5; i <= 5; i++) {\n        E[i] = b;\n        a = b;\n    }\n    for (i = 6; i <= N; i++)\n        E[i] = a;\n",
        );
        let expected = function(
            "    E[5] = b;\n    a = b;\n    for (i = 6; i <= N; i++)\n        E[i] = a;\n",
        );
        assert_eq!(one_iteration_loops(ORIGINAL, &output), expected);
        // A volatile local.
        let volatile = "void f(double *E, int N)\n{\n    int i;\n    volatile double a;\n    double b;\n    for (i = 5; i <= 5; i++) {\n        E[i] = b;\n        a = b;\n    }\n}\n";
        assert_eq!(
            one_iteration_loops(ORIGINAL, volatile),
            volatile.replace(
                "    for (i = 5; i <= 5; i++) {\n        E[i] = b;\n        a = b;\n    }\n",
                "    E[5] = b;\n    a = b;\n"
            )
        );
    }

    #[test]
    fn a_block_that_declares_keeps_its_braces() {
        let output = function(
            "    for (i = 3; i <= 3; i++) {\n        double t = E[i];\n        E[i] = t;\n    }\n    return;\n",
        );
        let expected = function(
            "    i = 3;\n    {\n        double t = E[i];\n        E[i] = t;\n    }\n    i++;\n    return;\n",
        );
        assert_eq!(one_iteration_loops(ORIGINAL, &output), expected);
    }
}
