//! Rotating indices written in the body form polyfold prints (issue 49):
//!
//! ```text
//! r = e0 % b;
//! for (i = base; i <= ub; i++) {
//!     … A[r] …
//!     r = r + d < b ? r + d : r + d - b;
//! }
//! ```
//!
//! The start runs right before the loop, the update is the last statement
//! of the body. With a step of ±1 and no way out of the body but its end
//! (the front end refuses `break`, `continue` and `goto`), `r` holds
//! `(e0 + d·step·(i − base)) % b` at every iteration, as the header form
//! `for (i = base, r = (e0 + d·step·(i − base)) % b; …; i++, r = …)` does.
//! [`body_forms`] finds the statements, and [`header_start`] writes the
//! start the header form would have, so that the front end reads both
//! forms with the same checks.
//!
//! A start polyfold folded to a number (`r = 1;` for `1 % 3`) is read as
//! `(1 % b + b) % b`, `b` the modulus of its update ([`number_start`]).
//!
//! The caller checks that `r` appears nowhere else (it is then dead
//! outside the loop, whose start the statement is).

use super::syntax::{BinOp, CStmt, Expr, ExprKind};

/// The rotating indices of a loop written in the body form.
#[derive(Debug)]
pub(crate) struct BodyForm<'e> {
    /// Per index: its name and the value of its start statement.
    pub starts: Vec<(String, &'e Expr)>,
    /// Per index (same order): its update, `r = c ? t : f`, and its step `d`.
    pub updates: Vec<(&'e Expr, i64)>,
    /// The index in the block of the first start statement (the starts
    /// run up to the loop).
    pub first: usize,
    /// How many statements of the body come before the updates.
    pub keep: usize,
}

/// `r` of an expression statement `r = value;`, and the value.
fn assignment(s: &CStmt) -> Option<(&str, &Expr, &Expr)> {
    let CStmt::Expr { expr, .. } = s else {
        return None;
    };
    let ExprKind::Assign(None, lhs, rhs) = &expr.kind else {
        return None;
    };
    match &lhs.kind {
        ExprKind::Ident(n) if !lhs.from_macro => Some((n, expr, rhs)),
        _ => None,
    }
}

/// The step `d` of an update `r = c ? r + d : f` (or `r - d`), `d` a
/// number.
fn update_step(name: &str, value: &Expr) -> Option<i64> {
    let ExprKind::Cond(_, t, _) = &value.kind else {
        return None;
    };
    let ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub), r, d) = &t.kind else {
        return None;
    };
    if !matches!(&r.kind, ExprKind::Ident(n) if n == name) {
        return None;
    }
    let ExprKind::Int(d) = d.kind else {
        return None;
    };
    match op {
        BinOp::Add => Some(d),
        _ => d.checked_neg(),
    }
}

/// Per `for` statement of `items` (its index) written in the body form:
/// the starts before it and the updates at the end of its body, every
/// start with an update and every update with a start.
pub(crate) fn body_forms<'e>(items: &[&'e CStmt]) -> Vec<(usize, BodyForm<'e>)> {
    let mut out = Vec::new();
    for (k, s) in items.iter().enumerate() {
        let CStmt::For { body, .. } = *s else {
            continue;
        };
        let CStmt::Compound { items: inner, .. } = body.as_ref() else {
            continue;
        };
        // The updates: the last statements of the body.
        let mut updates: Vec<(&str, &'e Expr, i64)> = Vec::new();
        for u in inner.iter().rev() {
            let Some((name, expr, value)) = assignment(u) else {
                break;
            };
            let Some(d) = update_step(name, value) else {
                break;
            };
            if updates.iter().any(|(n, ..)| *n == name) {
                break;
            }
            updates.push((name, expr, d));
        }
        if updates.is_empty() || updates.len() == inner.len() {
            continue;
        }
        updates.reverse();
        // The starts: the statements right before the loop, one per update.
        let mut starts: Vec<(String, &'e Expr)> = Vec::new();
        for b in items[..k].iter().copied().rev() {
            let Some((name, _, value)) = assignment(b) else {
                break;
            };
            if !updates.iter().any(|(n, ..)| *n == name) || starts.iter().any(|(n, _)| n == name) {
                break;
            }
            starts.push((name.to_string(), value));
        }
        if starts.len() != updates.len() {
            continue;
        }
        starts.reverse();
        let ordered: Vec<(&'e Expr, i64)> = starts
            .iter()
            .filter_map(|(n, _)| updates.iter().find(|(u, ..)| u == n))
            .map(|(_, e, d)| (*e, *d))
            .collect();
        out.push((
            k,
            BodyForm {
                first: k - starts.len(),
                keep: inner.len() - updates.len(),
                starts,
                updates: ordered,
            },
        ));
    }
    out
}

/// The start of the header form: `start` (`e0 % b`, or `(e0 % b + b) %
/// b`) with `e0` replaced by `e0 + c * (i - base)`.
pub(crate) fn header_start(start: &Expr, c: i64, (iter, base): (&str, &Expr)) -> Option<Expr> {
    let node = |kind: ExprKind| Expr {
        kind,
        span: start.span.clone(),
        from_macro: false,
    };
    let shifted = |e: &Expr| -> Expr {
        let i = node(ExprKind::Ident(iter.to_string()));
        let span = node(ExprKind::Binary(
            BinOp::Sub,
            Box::new(i),
            Box::new(base.clone()),
        ));
        let add = node(ExprKind::Binary(
            BinOp::Mul,
            Box::new(node(ExprKind::Int(c))),
            Box::new(span),
        ));
        node(ExprKind::Binary(
            BinOp::Add,
            Box::new(e.clone()),
            Box::new(add),
        ))
    };
    let ExprKind::Binary(BinOp::Mod, inner, b) = &start.kind else {
        return None;
    };
    // `(e0 % b + b) % b`.
    if let ExprKind::Binary(BinOp::Add, m, b2) = &inner.kind
        && let ExprKind::Binary(BinOp::Mod, e, b1) = &m.kind
        && super::affine::strip_eq(b1, b)
        && super::affine::strip_eq(b2, b)
    {
        let residue = node(ExprKind::Binary(
            BinOp::Mod,
            Box::new(shifted(e)),
            b1.clone(),
        ));
        let sum = node(ExprKind::Binary(BinOp::Add, Box::new(residue), b2.clone()));
        return Some(node(ExprKind::Binary(BinOp::Mod, Box::new(sum), b.clone())));
    }
    Some(node(ExprKind::Binary(
        BinOp::Mod,
        Box::new(shifted(inner)),
        b.clone(),
    )))
}

/// The modulus `b` of an update of step `d`, as an expression: `b` of
/// `r = r + d < b ? …` (`d > 0`), `b` of `r = … ? r + d : r + d + b`
/// (`d < 0`), or `n + 1` of `r = r >= 1 ? r - 1 : n` (`d = -1`). The
/// caller's checks of the update prove that it is the modulus.
pub(crate) fn update_modulus(update: &Expr, d: i64) -> Option<Expr> {
    let ExprKind::Assign(None, _, value) = &update.kind else {
        return None;
    };
    let ExprKind::Cond(c, _, f) = &value.kind else {
        return None;
    };
    if d > 0 {
        let ExprKind::Binary(BinOp::Lt, _, b) = &c.kind else {
            return None;
        };
        return Some(b.as_ref().clone());
    }
    match &f.kind {
        ExprKind::Binary(BinOp::Add, _, b) => Some(b.as_ref().clone()),
        ExprKind::Int(n) if d == -1 => Some(Expr {
            kind: ExprKind::Int(n.checked_add(1)?),
            span: f.span.clone(),
            from_macro: f.from_macro,
        }),
        _ => None,
    }
}

/// A start that is a number `c` (polyfold prints `r = 1;` for `1 % 3`)
/// as the residue `(c % b + b) % b`, `b` the modulus of its update: the
/// same value when `0 <= c < b`, which the caller checks.
pub(crate) fn number_start(start: &Expr, b: Expr) -> Expr {
    let node = |kind: ExprKind| Expr {
        kind,
        span: start.span.clone(),
        from_macro: false,
    };
    let residue = node(ExprKind::Binary(
        BinOp::Mod,
        Box::new(start.clone()),
        Box::new(b.clone()),
    ));
    let sum = node(ExprKind::Binary(
        BinOp::Add,
        Box::new(residue),
        Box::new(b.clone()),
    ));
    node(ExprKind::Binary(BinOp::Mod, Box::new(sum), Box::new(b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(body: &str) -> Vec<CStmt> {
        let text = format!("void f(int N, double *y) {{ int i, k, r, s; {body} }}");
        let file = super::super::syntax::parse_file(&text).expect("parses");
        match &file.functions[0].body {
            CStmt::Compound { items, .. } => items.clone(),
            _ => panic!("a block"),
        }
    }

    #[test]
    fn starts_before_the_loop_and_updates_at_the_end_of_its_body() {
        let items = items(
            "k = 1; r = (k - 1) % 7; s = 3 % 7; for (i = 0; i <= 5; i++) { y[r] = y[s]; r = r + 2 < 7 ? r + 2 : r + 2 - 7; s = s >= 2 ? s - 2 : s - 2 + 7; }",
        );
        let refs: Vec<&CStmt> = items.iter().collect();
        let forms = body_forms(&refs);
        assert_eq!(forms.len(), 1);
        let (k, form) = &forms[0];
        assert_eq!((*k, form.first, form.keep), (4, 2, 1));
        let names: Vec<&str> = form.starts.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["r", "s"]);
        let steps: Vec<i64> = form.updates.iter().map(|(_, d)| *d).collect();
        assert_eq!(steps, [2, -2]);
    }

    #[test]
    fn a_start_without_its_update_or_an_update_alone_is_no_body_form() {
        for body in [
            // No start.
            "for (i = 0; i <= 5; i++) { y[r] = 1; r = r + 2 < 7 ? r + 2 : r + 2 - 7; }",
            // A statement between the start and the loop.
            "r = 0; k = 2; for (i = 0; i <= 5; i++) { y[r] = 1; r = r + 2 < 7 ? r + 2 : r + 2 - 7; }",
            // The update is not last.
            "r = 0; for (i = 0; i <= 5; i++) { r = r + 2 < 7 ? r + 2 : r + 2 - 7; y[r] = 1; }",
            // Nothing but the update.
            "r = 0; for (i = 0; i <= 5; i++) { r = r + 2 < 7 ? r + 2 : r + 2 - 7; }",
        ] {
            let items = items(body);
            let refs: Vec<&CStmt> = items.iter().collect();
            assert!(body_forms(&refs).is_empty(), "{body}");
        }
    }
}
