//! The one subscript of a linearised local table (see
//! `frontend::linear_local`) split into its row and column: `index = row *
//! w + column`, with `w` the table's row factor compared as written.
//!
//! The index is read as a sum: each term is `y * w` or `w * y` (`y`, an
//! affine expression, goes to the row), `w` itself (row 1), a constant
//! times a term of that kind, a scalar whose value an assignment earlier
//! in the block gives (see `frontend::substitute`: its assigned
//! expression is split in turn), or any other affine term (the column).
//! The split is exact as polynomials; that it is the cell `[y][x]` of the
//! table needs `0 <= x < w`, which `frontend::extract` proves afterwards.

use super::super::affine::{Lin, Place, Resolver, to_lin};
use super::super::heap::bare;
use super::super::syntax::{BinOp, Expr, ExprKind, UnOp};
use super::{Analyzer, RawAccess};
use crate::diag::Diagnostic;
use crate::ir::AccessKind;

/// Why a subscript does not split.
pub(super) enum SplitError {
    /// It is not a sum of the terms above (the table is refused).
    Form(String),
    /// A term is not affine (the access is rejected as any other).
    Affine(Diagnostic),
}

/// The most nested terms and scalar values a split follows.
const MAX_DEPTH: usize = 32;

impl Analyzer<'_> {
    /// The access `e` (`name[index]`, `base` its name) to linearised
    /// table `var`: its two subscripts are the row and the column of the
    /// index, and it has no text per subscript (code generation prints
    /// them from their forms). A subscript that does not split refuses
    /// the table (see [`Analyzer::linear_refused`]).
    pub(super) fn linear_table_access(
        &mut self,
        e: &Expr,
        (var, base, index): (usize, &Expr, &Expr),
        kind: AccessKind,
    ) -> Result<RawAccess, ()> {
        let v = &self.scopes.vars[var];
        let name = v.name().to_string();
        let w =
            v.dc.dims
                .get(1)
                .and_then(|(x, _)| x.as_ref())
                .map(|x| bare(self.source, x))
                .unwrap_or_default();
        let statement_uses = std::mem::take(&mut self.value_uses);
        // As written: affine without a known value, it needs no split.
        let flat = to_lin(index, Place::Subscript, self).is_ok() && self.value_uses.is_empty();
        if !flat {
            self.linear_needed.push(name.clone());
        }
        self.value_uses.clear();
        let split = self.split_linear(index, &w);
        let value_uses = std::mem::replace(&mut self.value_uses, statement_uses);
        match split {
            Ok((row, column)) => Ok(RawAccess {
                var,
                name,
                kind,
                subs: vec![row, column],
                span: e.span.clone(),
                sub_spans: Vec::new(),
                name_span: base.span.clone(),
                value_uses,
            }),
            Err(err) => {
                let why = match err {
                    SplitError::Form(why) => why,
                    SplitError::Affine(d) => d.message,
                };
                let text = self.text(&e.span);
                self.linear_refused.push((
                    name,
                    format!("`{text}` is not a row times `{w}` plus a column: {why}"),
                ));
                Err(())
            }
        }
    }

    /// `index` as `(row, column)` with `index = row * w + column` (`w`:
    /// the row factor's text, see [`bare`]).
    pub(super) fn split_linear(&mut self, index: &Expr, w: &str) -> Result<(Lin, Lin), SplitError> {
        self.split_term(index, w, 0)
    }

    fn split_term(&mut self, e: &Expr, w: &str, depth: usize) -> Result<(Lin, Lin), SplitError> {
        let overflow = || SplitError::Form("its terms overflow".to_string());
        if depth > MAX_DEPTH {
            return Err(SplitError::Form("its terms nest too deep".to_string()));
        }
        let is_w = |x: &Expr| !x.from_macro && bare(self.source, x) == w;
        if is_w(e) {
            return Ok((Lin::constant(1), Lin::constant(0)));
        }
        let column = |an: &mut Self, x: &Expr| -> Result<(Lin, Lin), SplitError> {
            let c = to_lin(x, Place::Subscript, an).map_err(SplitError::Affine)?;
            Ok((Lin::constant(0), c))
        };
        if e.from_macro {
            return column(self, e);
        }
        match &e.kind {
            ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub), a, b) => {
                let (ra, ca) = self.split_term(a, w, depth + 1)?;
                let (rb, cb) = self.split_term(b, w, depth + 1)?;
                let k = if *op == BinOp::Add { 1 } else { -1 };
                let row = ra.add_scaled(&rb, k).ok_or_else(overflow)?;
                let col = ca.add_scaled(&cb, k).ok_or_else(overflow)?;
                Ok((row, col))
            }
            ExprKind::Unary(UnOp::Plus, a) => self.split_term(a, w, depth + 1),
            ExprKind::Unary(UnOp::Neg, a) => {
                let (r, c) = self.split_term(a, w, depth + 1)?;
                Ok((
                    r.scale(-1).ok_or_else(overflow)?,
                    c.scale(-1).ok_or_else(overflow)?,
                ))
            }
            ExprKind::Binary(BinOp::Mul, a, b) => {
                if is_w(b) {
                    let y = to_lin(a, Place::Subscript, self).map_err(SplitError::Affine)?;
                    return Ok((y, Lin::constant(0)));
                }
                if is_w(a) {
                    let y = to_lin(b, Place::Subscript, self).map_err(SplitError::Affine)?;
                    return Ok((y, Lin::constant(0)));
                }
                let scaled = |an: &mut Self, k: i64, x: &Expr| {
                    let (r, c) = an.split_term(x, w, depth + 1)?;
                    Ok((
                        r.scale(k).ok_or_else(overflow)?,
                        c.scale(k).ok_or_else(overflow)?,
                    ))
                };
                if let ExprKind::Int(k) = a.kind {
                    return scaled(self, k, b);
                }
                if let ExprKind::Int(k) = b.kind {
                    return scaled(self, k, a);
                }
                column(self, e)
            }
            ExprKind::Ident(name) => match self.bound_expr(name, e) {
                Some(value) => self.split_term(&value, w, depth + 1),
                None => column(self, e),
            },
            _ => column(self, e),
        }
    }

    /// The expression assigned to `name` when it is a bound scalar at
    /// `expr` (see [`Self::bind_assignment`]): the statement reads the
    /// scalar. The value's own names are resolved again where it is
    /// split (they are the same variables: see `frontend::substitute`).
    fn bound_expr(&mut self, name: &str, expr: &Expr) -> Option<Expr> {
        let bound = self.bound_at(name, expr)?;
        let value = bound.expr?;
        self.note_substituted_read(bound.var, name, expr);
        Some(value)
    }
}
