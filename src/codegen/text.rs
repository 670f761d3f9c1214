//! C text shared by every storage form: operands, the identifiers of a
//! subscript, subscripts printed from their affine forms, residues (one
//! printer for the per-array forms and the merged buffers), the rows,
//! conditions and conditional choices of merged buffers, and sizes as
//! products of extents.

use std::fmt::Write as _;

use crate::ir::{Access, Scop, Stmt};
use crate::mapping::layout::{Argument, Triangle};
use crate::mapping::modular::ParamAffine;
use crate::poly::BasicSet;
use crate::util::c_text::{Prec, operand};

/// A product of extents as C-like text: `2 * n * (m - 1)` (the constant
/// factors first, multiplied out).
pub(crate) fn product_text(params: &[String], factors: Vec<&ParamAffine>) -> String {
    let (constants, symbolic): (Vec<&ParamAffine>, Vec<&ParamAffine>) =
        factors.into_iter().partition(|f| f.is_constant());
    let constant: i64 = constants.iter().map(|f| f.constant).product();
    let mut terms: Vec<String> = Vec::new();
    if constant != 1 || symbolic.is_empty() {
        terms.push(constant.to_string());
    }
    for f in symbolic {
        let text = param_text(f, params);
        let atomic = text.chars().all(|c| c.is_alphanumeric() || c == '_');
        terms.push(if atomic { text } else { format!("({text})") });
    }
    terms.join(" * ")
}

/// A value affine (or quasi-affine) in the parameters as C text with the
/// parameter names, e.g. `N + 1`, `2 * N - 3` (an explicit `*`, unlike
/// isl's `2N`) or `(N + 1) / 2`. Every extent, modulus and packed index
/// of the output, and the moduli of the reports, print here.
pub fn param_text(p: &ParamAffine, params: &[String]) -> String {
    let terms: Vec<(i64, String)> = p
        .coeffs
        .iter()
        .copied()
        .zip(params.iter().cloned())
        .collect();
    let numerator = crate::util::c_text::affine_text(&terms, p.constant);
    if p.den == 1 {
        return numerator;
    }
    let atomic = p.coeffs.iter().filter(|c| **c != 0).count() + usize::from(p.constant != 0) <= 1;
    if atomic {
        format!("{numerator} / {}", p.den)
    } else {
        format!("({numerator}) / {}", p.den)
    }
}

/// The number of cells of a packed `triangle` as C text, `E * (E + 1) / 2`
/// or `E * (E - 1) / 2`, for the text `e_operand` of the extent `E` (`e`)
/// as an operand of `*`.
pub(crate) fn triangle_cells_text(
    triangle: Triangle,
    e_operand: &str,
    e: &ParamAffine,
    params: &[String],
) -> String {
    let next = if triangle.is_strict() {
        e.plus(-1)
    } else {
        e.plus(1)
    };
    let next = next.map(|p| param_text(&p, params)).unwrap_or_else(|_| {
        format!(
            "{e_operand} {} 1",
            if triangle.is_strict() { '-' } else { '+' }
        )
    });
    format!("{e_operand} * ({next}) / 2")
}

/// The packed index of a `triangle` as C text, for the texts `a` and `b`
/// of `c_p` and `c_q` (each already an operand of `*`, `-` and `+`) and
/// the extent `e`: `a * (a + 1) / 2 + b`, `a * (2 * E - 1 - a) / 2 + b`,
/// `a * (a - 1) / 2 + b` or `a * (2 * E - 3 - a) / 2 + b - 1` (the value
/// of [`Triangle::index`]). The product is even, so C's `/` is exact (both
/// factors are non-negative inside the triangle).
pub(crate) fn triangle_index_text(
    triangle: Triangle,
    a: &str,
    b: &str,
    e: &ParamAffine,
    params: &[String],
) -> String {
    let twice = |minus: i64| ParamAffine {
        coeffs: e.coeffs.iter().map(|c| 2 * c).collect(),
        constant: 2 * e.constant - minus,
        den: 1,
    };
    match triangle {
        Triangle::Lower => format!("{a} * ({a} + 1) / 2 + {b}"),
        Triangle::Upper => format!("{a} * ({} - {a}) / 2 + {b}", param_text(&twice(1), params)),
        Triangle::StrictLower => format!("{a} * ({a} - 1) / 2 + {b}"),
        Triangle::StrictUpper => format!(
            "{a} * ({} - {a}) / 2 + {b} - 1",
            param_text(&twice(3), params)
        ),
    }
}

/// `text` (copied from the source, or printed from an affine expression
/// over [`Scop::param_texts`]) as an operand of `%`, `*`, `+` or `-`:
/// parenthesised unless it is one primary expression — a number, a
/// parenthesised expression, or a name that is not a macro whose body is
/// several tokens (`#define LAST N-1`: `LAST % 2` would be `N-1 % 2`).
pub(crate) fn operand_text(scop: &Scop, text: &str) -> String {
    operand(text, Prec::Postfix, &|name| scop.is_compound(name))
}

/// The identifiers of the C expression `text` (numbers, with their
/// suffixes and exponents, and the contents of literals left out), each
/// with its byte offset in `text`; `None` when `text` holds a character or
/// string literal.
pub(crate) fn identifiers(text: &str) -> Option<Vec<(usize, &str)>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut k = 0;
    while k < bytes.len() {
        let c = bytes[k];
        if c == b'\'' || c == b'"' {
            return None;
        }
        if c.is_ascii_digit() || c == b'.' && bytes.get(k + 1).is_some_and(u8::is_ascii_digit) {
            while k < bytes.len()
                && (bytes[k].is_ascii_alphanumeric()
                    || bytes[k] == b'.'
                    || bytes[k] == b'_'
                    || (bytes[k] == b'+' || bytes[k] == b'-')
                        && matches!(bytes[k - 1], b'e' | b'E' | b'p' | b'P'))
            {
                k += 1;
            }
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = k;
            while k < bytes.len() && (bytes[k].is_ascii_alphanumeric() || bytes[k] == b'_') {
                k += 1;
            }
            out.push((start, &text[start..k]));
            continue;
        }
        k += 1;
    }
    Some(out)
}

/// Whether the IR's access functions of `access` mean what its subscripts
/// say for every value of the parameters, so that code generation may
/// print them instead: every name in the subscripts is an iterator of
/// `stmt` or a parameter whose known value the model does not use in
/// this array's accesses (see [`crate::ir::Param::value_used`] and
/// [`crate::ir::Array::value_used`]: `s[i - N / 2]` is `s[i - 32]` in the
/// IR; blur_tiled's `blurx[ty - 1][tx][x][B - 1]` is `B - 1` although
/// `in[ty * B + y]` folds `B`). A macro, a cast or a call keeps the source
/// text.
pub(crate) fn exact_subscripts(source: &str, scop: &Scop, stmt: &Stmt, access: &Access) -> bool {
    let folds = scop.array(access.array).value_used;
    access.subscript_spans.iter().all(|span| {
        identifiers(&source[span.clone()]).is_some_and(|names| {
            names.iter().all(|(_, name)| {
                stmt.iterators.iter().any(|i| i == name)
                    || scop
                        .params
                        .iter()
                        .any(|p| p.name == *name && !(p.value_used && folds))
            })
        })
    })
}

/// The text that replaces subscript `dim` of `access` where it is
/// written: `text` itself, or an operand of the index of a linearised
/// heap buffer (`y` and `x` in `t[y * w + x]`, see
/// [`crate::ir::ArrayFacts::linear_rows`]): the row a factor, the column
/// a term of a sum.
pub(crate) fn subscript_in_place(scop: &Scop, access: &Access, dim: usize, text: String) -> String {
    if !scop.array(access.array).facts.linear_rows {
        return text;
    }
    let min = if dim == 0 {
        Prec::Unary
    } else {
        Prec::Multiplicative
    };
    operand(&text, min, &|n| scop.is_compound(n))
}

/// The name of column `col` of `stmt`'s access functions
/// (`[params | iterators]`), parameters as [`Scop::param_texts`].
fn column_name(scop: &Scop, stmt: &Stmt, params: &[String], col: usize) -> Option<String> {
    let n_param = scop.params.len();
    if col < n_param {
        params.get(col).cloned()
    } else {
        stmt.c_names().get(col - n_param).cloned()
    }
}

/// The argument `a` of `access` (in `stmt`) printed from its affine form
/// (without its added moduli): the terms in the order their names first
/// appear in the subscripts (dimension by dimension, then left to right),
/// positive terms first, the constant last (first when every term is
/// negative: `9 - j`).
pub(crate) fn form_text(
    source: &str,
    scop: &Scop,
    stmt: &Stmt,
    access: &Access,
    a: &Argument,
) -> String {
    let params = scop.param_texts();
    let mut terms: Vec<((usize, usize, usize), i64, String)> = Vec::new();
    for (col, c) in a.coeffs.iter().enumerate() {
        if *c == 0 {
            continue;
        }
        let Some(name) = column_name(scop, stmt, &params, col) else {
            continue;
        };
        let raw = if col < scop.params.len() {
            scop.params[col].name.as_str()
        } else {
            name.as_str()
        };
        // Where the name first appears: dimension, then offset.
        let mut first = (usize::MAX, usize::MAX, col);
        for (d, (sub, span)) in access
            .subscripts
            .iter()
            .zip(&access.subscript_spans)
            .enumerate()
        {
            if sub.coeffs.get(col).copied().unwrap_or(0) == 0 {
                continue;
            }
            let at = identifiers(&source[span.clone()])
                .and_then(|ids| ids.iter().find(|(_, n)| *n == raw).map(|(o, _)| *o))
                .unwrap_or(usize::MAX);
            first = (d, at, col);
            break;
        }
        terms.push((first, *c, operand_text(scop, &name)));
    }
    terms.sort_by_key(|(first, _, _)| *first);
    // Positive terms first (stable): `i - 2 * j`, not `-2 * j + i`.
    terms.sort_by_key(|(_, c, _)| *c < 0);
    let terms: Vec<(i64, String)> = terms.into_iter().map(|(_, c, n)| (c, n)).collect();
    if a.constant > 0 && terms.iter().all(|(c, _)| *c < 0) {
        let mut text = a.constant.to_string();
        for (c, name) in &terms {
            let mag = c.unsigned_abs();
            if mag == 1 {
                text.push_str(&format!(" - {name}"));
            } else {
                text.push_str(&format!(" - {mag} * {name}"));
            }
        }
        text
    } else {
        crate::util::c_text::affine_text(&terms, a.constant)
    }
}

/// The mask `m - 1` that computes residues modulo `modulus` when masks
/// are asked for (`--pow2-moduli`) and `modulus` is a power of two `m >=
/// 2` known as a number: `e & (m - 1)` is `e % m` for `e >= 0` (and the
/// mathematical residue of any `e` in two's complement).
pub(crate) fn mask_of(modulus: &ParamAffine, masks: bool) -> Option<i64> {
    let m = modulus.constant;
    (masks && modulus.is_constant() && m >= 2 && m & (m - 1) == 0).then_some(m - 1)
}

/// The residue of the operand `arg` (a primary expression, or
/// parenthesised) modulo the operand `modulus`: `arg % modulus`, or
/// `arg & mask` where [`mask_of`] gives a mask. Every storage form prints
/// its residues here.
pub fn residue(arg: &str, modulus: &str, mask: Option<i64>) -> String {
    match mask {
        Some(mask) => format!("{arg} & {mask}"),
        None => format!("{arg} % {modulus}"),
    }
}

/// C text of a row over `[params | iters | const]` (`2 * t - i + 3`;
/// positive terms first).
pub(crate) fn row_text(row: &[i64], names: &[String]) -> String {
    let n = row.len() - 1;
    let mut terms: Vec<(i64, String)> = row[..n]
        .iter()
        .zip(names)
        .filter(|(c, _)| **c != 0)
        .map(|(c, name)| (*c, name.clone()))
        .collect();
    terms.sort_by_key(|(c, _)| *c < 0);
    crate::util::c_text::affine_text(&terms, row[n])
}

/// The C text of one subscript of a merged buffer: the row over
/// `[params | iters | const]` (`names` its columns' names, as C operands),
/// or its residue modulo the modulus `modulus_text` (`(row) & mask` with a
/// mask: see [`mask_of`]) when `is_residue`.
pub(crate) fn level_text(
    row: &[i64],
    is_residue: bool,
    names: &[String],
    (modulus_text, mask): (&str, Option<i64>),
) -> String {
    if !is_residue {
        return row_text(row, names);
    }
    // The names in `modulus_text` are already C operands (see
    // `Scop::param_texts`).
    let modulus = operand(modulus_text, Prec::Postfix, &|_| false);
    residue(&format!("({})", row_text(row, names)), &modulus, mask)
}

/// Text of a constraint conjunction of one region piece.
pub(crate) fn region_text(b: &BasicSet, names: &[String]) -> String {
    let mut parts = Vec::new();
    for r in &b.eqs {
        parts.push(format!("{} == 0", row_text(r, names)));
    }
    for r in &b.ineqs {
        parts.push(format!("{} >= 0", row_text(r, names)));
    }
    if parts.is_empty() {
        "1".into()
    } else {
        parts.join(" && ")
    }
}

/// `(c0) ? t0 : (c1) ? t1 : … : t_last`: the first text whose condition
/// holds (the last is the `else`; a branch whose condition is `0` is left
/// out, one whose condition is `1` ends the chain).
pub fn choose(conds: &[String], texts: &[String]) -> String {
    let mut branches: Vec<(&str, &str)> = Vec::new();
    for (i, t) in texts.iter().enumerate() {
        let c = conds.get(i).map(String::as_str).unwrap_or("1");
        let last = i + 1 == texts.len();
        if c == "0" && !last {
            continue;
        }
        if c == "1" || last {
            branches.push(("1", t));
            break;
        }
        branches.push((c, t));
    }
    if branches.iter().all(|b| b.1 == branches[0].1) {
        return branches[0].1.to_string();
    }
    let mut out = String::new();
    for (c, t) in &branches[..branches.len() - 1] {
        let _ = write!(out, "({c}) ? {t} : ");
    }
    let _ = write!(out, "{}", branches[branches.len() - 1].1);
    format!("({out})")
}

/// `name[s0][s1]...`: an array or buffer with its subscripts.
pub fn subscripted(name: &str, subscripts: &[String]) -> String {
    let mut text = name.to_string();
    for s in subscripts {
        let _ = write!(text, "[{s}]");
    }
    text
}

/// One dimension of a declarator of extent `extent`; with `guarded`, at
/// least 1 (`[n + 1 > 1 ? n + 1 : 1]`) where the context allows less.
pub fn extent_text(extent: &str, guarded: bool) -> String {
    if guarded {
        format!("[{extent} > 1 ? {extent} : 1]")
    } else {
        format!("[{extent}]")
    }
}

#[cfg(test)]
mod tests {
    use super::param_text;
    use crate::mapping::modular::ParamAffine;

    /// Moduli read as C: an explicit `*`, a quasi-affine value reduced and
    /// divided with its numerator parenthesised.
    #[test]
    fn moduli_print_as_c() {
        let names = vec!["N0".to_string(), "M".to_string()];
        let m = ParamAffine {
            coeffs: vec![2, -1],
            constant: -3,
            den: 1,
        };
        assert_eq!(param_text(&m, &names), "2 * N0 - M - 3");
        assert_eq!(
            param_text(
                &ParamAffine {
                    coeffs: vec![0, 0],
                    constant: 7,
                    den: 1,
                },
                &names
            ),
            "7"
        );
        assert_eq!(
            param_text(
                &ParamAffine {
                    coeffs: vec![-3, 0],
                    constant: 0,
                    den: 1,
                },
                &names
            ),
            "-3 * N0"
        );
        assert_eq!(
            param_text(&ParamAffine::quasi(vec![1, 0], 1, 2), &names),
            "(N0 + 1) / 2"
        );
        assert_eq!(
            param_text(&ParamAffine::quasi(vec![3, 0], 0, 2), &names),
            "3 * N0 / 2"
        );
        // Reduced: (2N + 4) / 2 is N + 2; a constant folds.
        assert_eq!(
            param_text(&ParamAffine::quasi(vec![2, 0], 4, 2), &names),
            "N0 + 2"
        );
        assert_eq!(
            param_text(&ParamAffine::quasi(vec![0, 0], 7, 2), &names),
            "3"
        );
    }
}
