//! Linearised local tables (issue 51): a local array declared with one
//! extent that is a product of two factors,
//!
//! ```c
//! int M[(N + 1) * (N + 1)];
//! ...
//! row = b * (N + 1);
//! M[row + a] = M[row - (N + 1) + a - 1] + 1;
//! ```
//!
//! is modelled as the table it stands for, `M[N + 1][N + 1]`, each access
//! `M[y * w + x]` as `M[y][x]` with `w` the second factor (compared as
//! written). This module marks the declarator: its `dims` become the two
//! factors, and [`HeapBuffer::Array`] (`declared`, `linear`) says which
//! texts size it, so that a new layout rewrites the factors in place
//! (`int M[2 * (N + 1)]`) and keeps the one subscript (see
//! `codegen::plan::linear_rows_text`).
//!
//! The subscripts are split by the analysis ([`super::analyze`]), which
//! sees the values of scalar offsets (`row` above): a sum of terms, each
//! `y * w` (or `w * y`), `w` itself, or a term without `w`, the column.
//! That is the same cell only when `0 <= x < w` on every iteration:
//! `frontend::extract` proves it, and reads the file again with the table
//! refused (kept one-dimensional, as written) when it cannot, or when a
//! subscript does not split.
//!
//! A table whose every subscript is affine as written, without a known
//! value (`t[2 * N + i]`), keeps its one dimension: the split serves only
//! subscripts the model could not read otherwise (`t[b * (N + 1) + a]`,
//! a product of names) or read only at the known size.
//!
//! Only a declaration in a function body, without `static`, `extern`, an
//! initialiser or a macro, whose name no other declaration of the
//! function has, is marked; its factors have no side effect.

use std::ops::Range;

use super::heap::Refusals;
use super::syntax::{BinOp, CStmt, Decl, Expr, ExprKind, ForInit, HeapBuffer, SyntaxFile};

/// Why a table whose subscripts are affine as written is refused.
pub(crate) const NOT_NEEDED: &str = "its subscripts are affine as written";

/// Marks the linearised local tables of every function of `file`
/// (`source`: its text), except those of `refused`; returns them, by
/// function and name.
pub(crate) fn mark(
    file: &mut SyntaxFile,
    source: &str,
    refused: &Refusals,
) -> Vec<(String, String)> {
    let mut marked = Vec::new();
    for f in file.functions.iter_mut() {
        let mut names: std::collections::HashMap<String, usize> = Default::default();
        super::alloc::walk_stmts(&f.body, &mut |s: &CStmt| {
            if let CStmt::Decl { decl, .. } = s {
                for dc in &decl.declarators {
                    *names.entry(dc.name.clone()).or_default() += 1;
                }
            }
            if let CStmt::For {
                init: ForInit::Decl(decl),
                ..
            } = s
            {
                for dc in &decl.declarators {
                    *names.entry(dc.name.clone()).or_default() += 1;
                }
            }
        });
        let unique = |name: &str| {
            names.get(name) == Some(&1)
                && !refused.contains_key(&(f.name.clone(), name.to_string()))
                && !f
                    .params
                    .iter()
                    .any(|p| p.declarators.iter().any(|d| d.name == name))
        };
        let mut names = Vec::new();
        mark_in(&mut f.body, source, (&unique, &mut names));
        marked.extend(names.into_iter().map(|n| (f.name.clone(), n)));
    }
    marked
}

type Marking<'m> = (&'m dyn Fn(&str) -> bool, &'m mut Vec<String>);

fn mark_in(s: &mut CStmt, source: &str, (unique, names): Marking) {
    match s {
        CStmt::Decl { decl, span } => {
            let span = span.clone();
            mark_decl(decl, &span, source, (unique, names));
        }
        CStmt::For { body, .. } => mark_in(body, source, (unique, names)),
        CStmt::If { then, els, .. } => {
            mark_in(then, source, (unique, &mut *names));
            if let Some(e) = els {
                mark_in(e, source, (unique, names));
            }
        }
        CStmt::Compound { items, .. } => items
            .iter_mut()
            .for_each(|i| mark_in(i, source, (unique, &mut *names))),
        CStmt::Other { children, .. } => children
            .iter_mut()
            .for_each(|i| mark_in(i, source, (unique, &mut *names))),
        CStmt::Expr { .. } | CStmt::Empty { .. } | CStmt::Preproc { .. } => {}
    }
}

fn mark_decl(decl: &mut Decl, span: &Range<usize>, source: &str, (unique, names): Marking) {
    if decl
        .qualifiers
        .iter()
        .any(|q| matches!(q.as_str(), "static" | "extern" | "typedef" | "register"))
    {
        return;
    }
    for dc in decl.declarators.iter_mut() {
        if dc.is_pointer
            || dc.is_function
            || dc.from_macro
            || dc.points_to_rows
            || dc.heap.is_some()
            || dc.init.is_some()
            || dc.dims.len() != 1
            || !unique(&dc.name)
        {
            continue;
        }
        let Some((h, w)) = dc.dims[0].0.as_ref().and_then(factors) else {
            continue;
        };
        let (h, w) = (h.clone(), w.clone());
        let text = |e: &Expr| source.get(e.span.clone()).unwrap_or("").trim().to_string();
        dc.heap = Some(HeapBuffer::Array {
            span: span.clone(),
            dims: vec![vec![h.span.clone()], vec![w.span.clone()]],
            frees: Vec::new(),
            allocator: String::new(),
            linear: true,
            declared: true,
        });
        names.push(dc.name.clone());
        let (th, tw) = (text(&h), text(&w));
        dc.dims = vec![(Some(h), th), (Some(w), tw)];
    }
}

/// The two factors of an extent `h * w`, when neither has a side effect
/// nor comes from a macro's body.
fn factors(e: &Expr) -> Option<(&Expr, &Expr)> {
    let ExprKind::Binary(BinOp::Mul, h, w) = &e.kind else {
        return None;
    };
    let pure = |x: &Expr| {
        let mut ok = !x.from_macro;
        x.walk(&mut |y: &Expr| {
            if matches!(
                y.kind,
                ExprKind::Call(..)
                    | ExprKind::Assign(..)
                    | ExprKind::Update(..)
                    | ExprKind::Comma(..)
                    | ExprKind::Other(..)
                    | ExprKind::Deref(..)
            ) {
                ok = false;
            }
        });
        ok
    };
    (!e.from_macro && pure(h) && pure(w)).then_some((&**h, &**w))
}
