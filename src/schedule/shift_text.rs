//! The iterator of a shifted loop body, written back into its text: each
//! use of the old iterator `k` becomes `(i - s)` (the fused loop runs
//! `i = k + s`), except where a simpler text says the same:
//!
//! - a comparison with a constant or `NAME ± c`, `NAME` a parameter or an
//!   outer iterator (a signed integer): `k == 0` → `i == 1`, `k == N - 1`
//!   → `i == N`, `k <= 3` → `i <= 4`; only where the new constant keeps
//!   the values representable (`NAME ± c'` with `c'` between 0 and `c`,
//!   or `NAME` a parameter whose known value keeps `NAME ± c'` an `int`:
//!   `k == N` with a shift of one stays `i - 1 == N` for a symbolic `N`,
//!   since `N + 1` may pass INT_MAX where `k` and `N` do not);
//! - the first term of a sum with a constant: `k + 1` → `i`, `k - 1` →
//!   `i - 2`;
//! - an operand of nothing tighter than `+`: `x = k;` → `x = i - 1;`.
//!
//! Each rewrite looks only at the tokens next to `k` and at operators of
//! lower precedence around them (the previous token and the one ending the
//! pattern bind looser than the operator rewritten), and only where the
//! new text computes in integers what `(i - s)` computed in integers (the
//! front end admits signed integer iterators only; `x + k` keeps its
//! parentheses, since `x + i - 1` would round twice for a floating `x`).

use std::ops::Range;

use crate::util::c_text::{TokenKind as Kind, tokens};

const RELATIONS: [&str; 6] = ["==", "!=", "<", "<=", ">", ">="];

/// Tokens after which an operand of a comparison starts (operators of
/// lower precedence than the comparisons, and brackets).
const BEFORE_COMPARISON: [&str; 9] = ["(", "&&", "||", "?", ":", ",", ";", "{", "}"];

/// Tokens that end a comparison's right side.
const AFTER_COMPARISON: [&str; 7] = [")", "&&", "||", "?", ":", ",", ";"];

/// The edits (byte ranges of `text`, replacements) that write every use of
/// `old` (an identifier token for which `keep` is false) as the iterator
/// `name` shifted by `shift`: the old iterator is `name - shift`.
pub(crate) fn shift_edits(
    text: &str,
    (old, name, shift): (&str, &str, i64),
    integers: &[(String, Option<i64>)],
    keep: &dyn Fn(usize) -> bool,
) -> Vec<(Range<usize>, String)> {
    let toks = tokens(text);
    let word = |t: usize| -> &str { toks.get(t).map_or("", |(r, _)| &text[r.clone()]) };
    let is_punct = |t: usize, set: &[&str]| {
        toks.get(t)
            .is_some_and(|(_, k)| *k == Kind::Punct && set.contains(&word(t)))
    };
    let int = |t: usize| match toks.get(t) {
        Some((_, Kind::Int(v))) => Some(*v),
        _ => None,
    };
    let plain = match shift.checked_neg() {
        Some(back) => plus(name, back),
        None => format!("{name} + {}", shift.unsigned_abs()),
    };
    let paren = if shift == 0 {
        name.to_string()
    } else {
        format!("({plain})")
    };
    let mut out = Vec::new();
    let mut t = 0;
    while t < toks.len() {
        let (range, kind) = &toks[t];
        if *kind != Kind::Ident || &text[range.clone()] != old || keep(range.start) {
            t += 1;
            continue;
        }
        // The token before, and whether the use starts an operand that
        // nothing binds tighter than a comparison.
        let first = t == 0 || is_punct(t - 1, &BEFORE_COMPARISON);
        // `k REL rhs` with `rhs` one of `c`, `NAME`, `NAME ± c`.
        if first && is_punct(t + 1, &RELATIONS) {
            let (name_tok, constant, end) = match (toks.get(t + 2), int(t + 2)) {
                (_, Some(c)) => (None, Some(c), t + 3),
                (Some((_, Kind::Ident)), _)
                    if word(t + 2) != old && integers.iter().any(|(n, _)| n == word(t + 2)) =>
                {
                    match (word(t + 3), int(t + 4)) {
                        ("+", Some(c)) => (Some(t + 2), Some(c), t + 5),
                        ("-", Some(c)) => (Some(t + 2), c.checked_neg(), t + 5),
                        _ => (Some(t + 2), Some(0), t + 3),
                    }
                }
                _ => (None, None, t),
            };
            // The new constant must keep every value representable: a
            // number fits `int`; `NAME + c'` lies between `NAME` and the
            // original's `NAME + c` (`c'` between 0 and `c`), both values
            // the original computes (`k == N` -> `i == N + 1` could pass
            // INT_MAX: it stays `i - 1 == N`).
            let safe = |old: i64, new: i64| match name_tok {
                None => i32::try_from(new).is_ok(),
                Some(n) => {
                    let known = integers
                        .iter()
                        .find(|(m, _)| m == word(n))
                        .and_then(|(_, v)| *v);
                    new == 0
                        || (old.signum() == new.signum() && new.abs() <= old.abs())
                        || known.is_some_and(|v| {
                            v.checked_add(new).is_some_and(|x| i32::try_from(x).is_ok())
                        })
                }
            };
            if let Some(c) = constant.and_then(|c| c.checked_add(shift).filter(|n| safe(c, *n)))
                && end > t
                && (end == toks.len() || is_punct(end, &AFTER_COMPARISON))
            {
                let rhs = match name_tok {
                    None => c.to_string(),
                    Some(n) => plus(word(n), c),
                };
                let span = range.start..toks[end - 1].0.end;
                out.push((span, format!("{name} {} {rhs}", word(t + 1))));
                t = end;
                continue;
            }
        }
        // A term of a sum: nothing before it binds tighter than `+`.
        let sum_start = first
            || is_punct(t - 1, &RELATIONS)
            || is_punct(t - 1, &["[", "="])
            || word(t - 1) == "return";
        // Tokens after an additive operand that bind looser than `+`.
        let ends_sum = |u: usize| {
            u == toks.len()
                || is_punct(u, &AFTER_COMPARISON)
                || is_punct(u, &RELATIONS)
                || is_punct(u, &["]", "+", "-", "}"])
        };
        if sum_start
            && is_punct(t + 1, &["+", "-"])
            && let Some(c) = int(t + 2)
            && ends_sum(t + 3)
        {
            let signed = if word(t + 1) == "+" {
                Some(c)
            } else {
                c.checked_neg()
            };
            if let Some(k) = signed.and_then(|c| c.checked_sub(shift)) {
                out.push((range.start..toks[t + 2].0.end, plus(name, k)));
                t += 3;
                continue;
            }
        }
        if sum_start && ends_sum(t + 1) {
            out.push((range.clone(), plain.clone()));
        } else {
            out.push((range.clone(), paren.clone()));
        }
        t += 1;
    }
    out
}

/// `base + c` as C text: `base`, `base + 3`, `base - 2`.
fn plus(base: &str, c: i64) -> String {
    match c {
        0 => base.to_string(),
        c if c > 0 => format!("{base} + {c}"),
        c => format!("{base} - {}", c.unsigned_abs()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shifted(text: &str, shift: i64) -> String {
        let integers = [("N".to_string(), None), ("M".to_string(), Some(10))];
        let mut edits = shift_edits(text, ("k", "i", shift), &integers, &|_| false);
        edits.sort_by_key(|(r, _)| std::cmp::Reverse(r.start));
        let mut out = text.to_string();
        for (r, s) in edits {
            out.replace_range(r, &s);
        }
        out
    }

    /// Each rewrite against the plain substitution `(i - s)`, evaluated by
    /// hand: `(i - 1) == 0` is `i == 1`, `(i - 1) == N - 1` is `i == N`.
    #[test]
    fn comparisons_take_the_shift_into_their_constant() {
        assert_eq!(
            shifted("if (k == 0 || k == N - 1 || j == 0)", 1),
            "if (i == 1 || i == N || j == 0)"
        );
        assert_eq!(
            shifted("if (k <= N + 2 && k > 3)", -2),
            "if (i <= N && i > 1)"
        );
        // `Q` is no parameter: its type is unknown.
        assert_eq!(shifted("x = (k == Q);", 5), "x = (i - 5 == Q);");
        // `N + 1` (or `N - 3`) is a value the original never computes: it
        // could pass INT_MAX (INT_MIN).
        assert_eq!(shifted("if (k == N)", 1), "if (i - 1 == N)");
        assert_eq!(shifted("if (k <= N - 1)", -2), "if (i + 2 <= N - 1)");
        assert_eq!(shifted("if (k < N + 3)", 2), "if (i - 2 < N + 3)");
        // `M` has the known value 10: `M + 1` is an `int`.
        assert_eq!(shifted("if (k == M)", 1), "if (i == M + 1)");
        assert_eq!(shifted("(k != 0)", 3), "(i != 3)");
    }

    #[test]
    fn sums_with_a_constant_absorb_the_shift() {
        assert_eq!(
            shifted("for (j = k + 1; j < N; j++)", -3),
            "for (j = i + 4; j < N; j++)"
        );
        assert_eq!(shifted("A[k - 1][j] = B[k + 1];", 1), "A[i - 2][j] = B[i];");
        assert_eq!(shifted("x = k;", 2), "x = i - 2;");
        assert_eq!(shifted("return k;", -1), "return i + 1;");
    }

    /// Where a tighter operator is next to the iterator, it keeps its
    /// parentheses: `2 * (i - 1)`, `(i - 1) * 3`, `N - (i - 1)`,
    /// `-(i - 1)`, `!(i - 1)`, `x + (i - 1)`; a sum whose constant is a
    /// factor (`k + 1 * 2`) or that a comparison binds (`a < k == 0`) is
    /// written `i - 1 ...`, which C reads as `(i - 1) ...`.
    #[test]
    fn tighter_operators_keep_the_parentheses() {
        assert_eq!(shifted("x = 2 * k;", 1), "x = 2 * (i - 1);");
        assert_eq!(shifted("x = k * 3;", 1), "x = (i - 1) * 3;");
        assert_eq!(shifted("x = N - k;", 1), "x = N - (i - 1);");
        assert_eq!(shifted("x = -k;", 1), "x = -(i - 1);");
        assert_eq!(shifted("if (!k == 0)", 1), "if (!(i - 1) == 0)");
        assert_eq!(shifted("x = y + k;", 1), "x = y + (i - 1);");
        assert_eq!(shifted("x = y + k + 1;", 1), "x = y + (i - 1) + 1;");
        assert_eq!(shifted("x = k + 1 * 2;", 1), "x = i - 1 + 1 * 2;");
        assert_eq!(shifted("x = k - y;", 1), "x = i - 1 - y;");
        assert_eq!(shifted("x = a < k == 0;", 1), "x = a < i - 1 == 0;");
        assert_eq!(
            shifted("f(k, 2)[0] = (double) k;", 1),
            "f(i - 1, 2)[0] = (double) (i - 1);"
        );
    }

    #[test]
    fn comments_strings_and_other_names_are_left_alone() {
        assert_eq!(
            shifted("x = kk + k2; /* k == 0 */ s = \"k\";", 1),
            "x = kk + k2; /* k == 0 */ s = \"k\";"
        );
        assert_eq!(shifted("x = k;", 0), "x = i;");
    }
}
