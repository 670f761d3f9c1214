//! Forward substitution of scalar offsets (issue 51): a scalar assigned
//! an affine expression of iterators and parameters inside a loop nest,
//!
//! ```c
//! for (b = 1; b <= N; b++) {
//!     row = b * (N + 1);
//!     row_up = (b - 1) * (N + 1);
//!     for (a = 1; a <= N; a++)
//!         M[row + a] = M[row_up + a] + 1;
//! }
//! ```
//!
//! is read, in the subscripts, bounds and conditions that come after the
//! assignment in the same block, as the expression it was assigned
//! (`M[(N + 1) * b + a]`). [`super::analyze::Analyzer`] keeps the
//! bindings; this module says what a binding is and which assignments
//! make one. A use is substituted only where all of this holds:
//!
//! - The assignment dominates the use within the same iteration of every
//!   loop around it: it is an item of a block (`{ ... }`), unconditional
//!   there, and the use is in a later item of that block or nested in one
//!   (a loop after it, an `if` after it). A block has no `break`,
//!   `continue`, `goto` or `return` inside a SCoP (they are rejected), so
//!   every later item runs after the assignment, in the same iteration.
//! - Nothing writes the scalar in between: an item that may write it (an
//!   assignment, `++`, a declaration of the name, `&` of it, anywhere in
//!   it, a loop included) ends the substitution before that item. Only
//!   locals whose address is never taken and that are not `volatile` are
//!   substituted, so no call and no pointer writes them.
//! - The right-hand side is affine in the iterators in scope at the
//!   assignment and the parameters (see [`super::affine::to_val`]): the
//!   iterators are not written in their loop's body, the parameters not in
//!   the SCoP (checked for every statement that uses the binding, as for
//!   any parameter), so its value at the use is the value it had at the
//!   assignment.
//! - The scalar holds the value exactly: it is a signed integer type of a
//!   rank at least that of every operand of the right-hand side (C
//!   converts a wider value on the store, see [`holds_exactly`]).
//!
//! The assignment stays a statement of the SCoP, writing the scalar. Each
//! statement whose subscripts, or whose loops' bounds and conditions, used
//! the binding also reads the scalar in the model: the text that polyfold
//! emits still names it, so every reordering keeps the assignment before
//! the uses it feeds and after those of the previous value. The scalar
//! keeps its layout (see [`crate::ir::ArrayFacts::value_in_subscripts`]).
//!
//! What it does not do: induction variables (`idx = b * W; for (...)
//! { M[idx] = ...; idx++; }`), assignments at the top level of a SCoP
//! (the parameter rule splits the SCoP there), declarations with an
//! initialiser (`int row = b * W;` is not modelled inside a SCoP), and
//! it never deletes the assignment.

use std::collections::{BTreeMap, BTreeSet};

use super::affine::Val;
use super::macros::Macros;
use super::scope::Scopes;
use super::syntax::{Expr, ExprKind};
use crate::ir::ParamOrigin;

/// What an assignment earlier in the block says of a scalar.
#[derive(Clone, Debug)]
pub(crate) struct Binding {
    pub name: String,
    /// `None`: written again since, so not substitutable from here on.
    pub value: Option<Bound>,
}

/// The affine value of a scalar, with the parameters and known values
/// that computing it used (given to every statement that uses it).
#[derive(Clone, Debug)]
pub(crate) struct Bound {
    /// The variable (index into `Scopes::vars`).
    pub var: usize,
    pub val: Val,
    pub params: BTreeMap<String, (ParamOrigin, Option<i64>)>,
    pub value_uses: BTreeSet<String>,
    /// The expression assigned, when it names no other bound scalar (its
    /// names mean the same at every use): a linearised table's subscript
    /// splits it (see `frontend::linear_local`).
    pub expr: Option<Expr>,
}

/// The integer conversion rank of C, coarsely: `int` (and the types
/// promoted to it), `long`, `long long`.
type Rank = u8;

const INT: Rank = 1;
const LONG: Rank = 2;
const LONG_LONG: Rank = 3;

/// The words of a type text that decide its integer type.
fn type_words(ty: &str) -> Vec<&str> {
    ty.split_whitespace()
        .filter(|w| !matches!(*w, "const" | "volatile" | "register" | "auto"))
        .collect()
}

/// The rank a scalar of type `ty` is sure to have, when it is a signed
/// integer type of at least `int`'s rank (`short` and `char` hold less
/// than an `int` expression). A typedef counts as the narrowest type it
/// may be (`int64_t` may be `long`).
fn destination_rank(ty: &str) -> Option<Rank> {
    let words = type_words(ty);
    let longs = words.iter().filter(|w| **w == "long").count();
    if words
        .iter()
        .all(|w| matches!(*w, "int" | "signed" | "long"))
        && !words.is_empty()
    {
        return Some(match longs {
            0 => INT,
            1 => LONG,
            _ => LONG_LONG,
        });
    }
    match words.as_slice() {
        ["int32_t" | "ptrdiff_t" | "ssize_t" | "intptr_t"] => Some(INT),
        ["int64_t" | "intmax_t"] => Some(LONG),
        _ => None,
    }
}

/// The rank an operand of type `ty` may have at most (after the integer
/// promotions), when it is a signed integer type; a typedef counts as the
/// widest type it may be.
fn operand_rank(ty: &str) -> Option<Rank> {
    let words = type_words(ty);
    if words.is_empty() {
        return None;
    }
    let longs = words.iter().filter(|w| **w == "long").count();
    if words
        .iter()
        .all(|w| matches!(*w, "int" | "signed" | "long" | "short" | "char"))
    {
        // Plain `char` may be unsigned, but it is promoted to `int`.
        return Some(match longs {
            0 => INT,
            1 => LONG,
            _ => LONG_LONG,
        });
    }
    match words.as_slice() {
        ["int8_t" | "int16_t" | "int32_t"] => Some(LONG),
        ["int64_t" | "intmax_t" | "ptrdiff_t" | "ssize_t" | "intptr_t"] => Some(LONG_LONG),
        _ => None,
    }
}

/// Whether a macro's body has an integer literal with a `l`/`L` suffix
/// (a `long` operand that the expanded tree no longer shows).
fn has_long_literal(body: &str) -> bool {
    body.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|t| t.starts_with(|c: char| c.is_ascii_digit()) && t.ends_with(['l', 'L']))
}

/// The most nested macro expansions followed.
const MAX_DEPTH: usize = 16;

/// Whether a scalar of type `ty` holds the value of `rhs` exactly: `rhs`
/// has only signed integer operands (variables, literals, casts, macros)
/// of a rank that `ty` is sure to reach, so C's store converts nothing
/// (`source`: the file's text, for literals' suffixes).
pub(crate) fn holds_exactly(
    ty: &str,
    rhs: &Expr,
    (source, scopes, macros): (&str, &Scopes, &Macros),
) -> bool {
    let Some(dest) = destination_rank(ty) else {
        return false;
    };
    rhs_rank(rhs, (source, scopes, macros), 0).is_some_and(|r| r <= dest)
}

/// The highest rank an operand of `e` may have; `None` for an operand
/// that is not a signed integer (or not known).
fn rhs_rank(e: &Expr, cx: (&str, &Scopes, &Macros), depth: usize) -> Option<Rank> {
    let (source, scopes, macros) = cx;
    if depth > MAX_DEPTH {
        return None;
    }
    let both = |a: &Expr, b: &Expr| Some(rhs_rank(a, cx, depth)?.max(rhs_rank(b, cx, depth)?));
    match &e.kind {
        ExprKind::Int(v) => {
            let text = if e.from_macro {
                ""
            } else {
                source.get(e.span.clone()).unwrap_or("")
            };
            let lower = text.to_ascii_lowercase();
            Some(if *v > i64::from(i32::MAX) || lower.ends_with("ll") {
                LONG_LONG
            } else if lower.ends_with('l') {
                LONG
            } else {
                INT
            })
        }
        ExprKind::Ident(name) => {
            if let Some(m) = macros.object(name) {
                if has_long_literal(&m.body) {
                    return Some(LONG_LONG);
                }
                let x = macros.expand_object(name, e)?;
                return rhs_rank(&x, cx, depth + 1);
            }
            let var = scopes.lookup(name, e.span.start)?;
            let v = &scopes.vars[var];
            if v.is_array() || v.is_pointer() {
                return None;
            }
            operand_rank(&v.decl.type_text)
        }
        ExprKind::Cast(ty, inner) => {
            rhs_rank(inner, cx, depth)?;
            operand_rank(ty)
        }
        ExprKind::Unary(_, a) => rhs_rank(a, cx, depth),
        ExprKind::Binary(_, a, b) => both(a, b),
        ExprKind::Cond(c, a, b) => {
            rhs_rank(c, cx, depth)?;
            both(a, b)
        }
        ExprKind::Call(callee, args) => {
            let ExprKind::Ident(name) = &callee.kind else {
                return None;
            };
            let m = macros.table.function(name)?;
            if has_long_literal(&m.body) {
                return Some(LONG_LONG);
            }
            let x = macros.expand_call(name, e, args)?;
            rhs_rank(&x, cx, depth + 1)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn destinations_are_signed_and_at_least_int() {
        assert_eq!(destination_rank("int"), Some(INT));
        assert_eq!(destination_rank("signed"), Some(INT));
        assert_eq!(destination_rank("long int"), Some(LONG));
        assert_eq!(destination_rank("long long"), Some(LONG_LONG));
        assert_eq!(destination_rank("int64_t"), Some(LONG));
        assert_eq!(destination_rank("short"), None);
        assert_eq!(destination_rank("char"), None);
        assert_eq!(destination_rank("unsigned"), None);
        assert_eq!(destination_rank("unsigned int"), None);
        assert_eq!(destination_rank("size_t"), None);
        assert_eq!(destination_rank("double"), None);
    }

    #[test]
    fn operands_count_as_wide_as_they_may_be() {
        assert_eq!(operand_rank("short"), Some(INT));
        assert_eq!(operand_rank("char"), Some(INT));
        assert_eq!(operand_rank("int"), Some(INT));
        assert_eq!(operand_rank("long"), Some(LONG));
        // `int32_t` is `long` where `int` has 16 bits.
        assert_eq!(operand_rank("int32_t"), Some(LONG));
        assert_eq!(operand_rank("ptrdiff_t"), Some(LONG_LONG));
        assert_eq!(operand_rank("unsigned"), None);
        assert_eq!(operand_rank("uint8_t"), None);
        assert_eq!(operand_rank("float"), None);
    }

    #[test]
    fn long_literals_are_found_in_macro_bodies() {
        assert!(has_long_literal("100L"));
        assert!(has_long_literal("(N + 1l)"));
        assert!(has_long_literal("0x10L"));
        assert!(has_long_literal("5LL * 2"));
        assert!(!has_long_literal("(N + 1)"));
        assert!(!has_long_literal("COL"));
        assert!(!has_long_literal("x1 + LEN"));
    }
}
