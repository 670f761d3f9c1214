//! The sizes of symbolic kernels in `expected/NAME.sizes`: a formula in
//! the parameters, as the reports print it (`(2 * n - 1)`, `n * m`), and
//! how a new formula compares with the expected one.
//!
//! Two formulas are compared by their values at probe points (every
//! parameter at each of the `PROBES`, and mixed values): the new one is a
//! regression when it is larger at some point, an improvement when it is
//! never larger and smaller at some point. A formula this evaluator does
//! not read (a call, `?:`) is compared by its text: any change is a
//! regression until it is blessed.

use std::cmp::Ordering;

/// The values each parameter takes at the probe points.
const PROBES: [i128; 6] = [1, 2, 7, 16, 100, 1000];

/// How a new size compares with the expected one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comparison {
    Same,
    Smaller,
    Larger,
    /// Neither is larger everywhere (or a formula could not be read and
    /// the texts differ).
    Different,
}

/// The names of a formula: its identifiers, sorted, each once.
fn names(tokens: &[String]) -> Vec<String> {
    let mut out: Vec<String> = tokens
        .iter()
        .filter(|t| t.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
        .cloned()
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The tokens of `text` (C's, [`crate::util::c_text::tokens`]): numbers,
/// identifiers, and one-character operators and parentheses; `None` for
/// any other token.
fn tokens(text: &str) -> Option<Vec<String>> {
    use crate::util::c_text::TokenKind;
    crate::util::c_text::tokens(text)
        .into_iter()
        .map(|(r, kind)| {
            let t = &text[r];
            let operator = kind == TokenKind::Punct && t.len() == 1 && "+-*/%()".contains(t);
            (matches!(kind, TokenKind::Ident | TokenKind::Int(_)) || operator)
                .then(|| t.to_string())
        })
        .collect()
}

/// The value of the formula `t` with `values` for its names: `+ - * / %`
/// with C's precedence on integers (division and remainder truncated, as
/// in C), unary minus and parentheses; `None` when it does not read or
/// divides by zero.
fn eval(t: &[String], values: &[(String, i128)]) -> Option<i128> {
    let mut pos = 0;
    let v = sum(t, &mut pos, values)?;
    (pos == t.len()).then_some(v)
}

fn sum(t: &[String], pos: &mut usize, values: &[(String, i128)]) -> Option<i128> {
    let mut acc = product(t, pos, values)?;
    while let Some(op) = t.get(*pos).filter(|o| *o == "+" || *o == "-") {
        let plus = op == "+";
        *pos += 1;
        let v = product(t, pos, values)?;
        acc = if plus {
            acc.checked_add(v)?
        } else {
            acc.checked_sub(v)?
        };
    }
    Some(acc)
}

fn product(t: &[String], pos: &mut usize, values: &[(String, i128)]) -> Option<i128> {
    let mut acc = unary(t, pos, values)?;
    while let Some(op) = t.get(*pos).filter(|o| *o == "*" || *o == "/" || *o == "%") {
        let op = op.clone();
        *pos += 1;
        let v = unary(t, pos, values)?;
        acc = match op.as_str() {
            "*" => acc.checked_mul(v)?,
            "/" => acc.checked_div(v)?,
            _ => acc.checked_rem(v)?,
        };
    }
    Some(acc)
}

fn unary(t: &[String], pos: &mut usize, values: &[(String, i128)]) -> Option<i128> {
    let token = t.get(*pos)?;
    *pos += 1;
    match token.as_str() {
        "-" => unary(t, pos, values)?.checked_neg(),
        "+" => unary(t, pos, values),
        "(" => {
            let v = sum(t, pos, values)?;
            (t.get(*pos)? == ")").then(|| {
                *pos += 1;
                v
            })
        }
        word => word
            .parse::<i128>()
            .ok()
            .or_else(|| values.iter().find(|(n, _)| n == word).map(|(_, v)| *v)),
    }
}

/// The probe points for `names`: all at each probe value, then each name
/// in turn at each value with the others at 16.
fn probe_points(names: &[String]) -> Vec<Vec<(String, i128)>> {
    let mut out = Vec::new();
    for v in PROBES {
        out.push(names.iter().map(|n| (n.clone(), v)).collect());
    }
    for (k, _) in names.iter().enumerate() {
        for v in PROBES {
            out.push(
                names
                    .iter()
                    .enumerate()
                    .map(|(j, n)| (n.clone(), if j == k { v } else { 16 }))
                    .collect(),
            );
        }
    }
    out
}

/// How the size `new` compares with the size `expected` (both formulas).
pub fn compare(new: &str, expected: &str) -> Comparison {
    let same_text = new.split_whitespace().eq(expected.split_whitespace());
    if same_text {
        return Comparison::Same;
    }
    let (Some(a), Some(b)) = (tokens(new), tokens(expected)) else {
        return Comparison::Different;
    };
    let mut all = names(&a);
    all.extend(names(&b));
    all.sort();
    all.dedup();
    let mut larger = false;
    let mut smaller = false;
    for point in probe_points(&all) {
        match (eval(&a, &point), eval(&b, &point)) {
            (Some(x), Some(y)) => match x.cmp(&y) {
                Ordering::Greater => larger = true,
                Ordering::Less => smaller = true,
                Ordering::Equal => {}
            },
            _ => return Comparison::Different,
        }
    }
    match (larger, smaller) {
        (false, false) => Comparison::Same,
        (false, true) => Comparison::Smaller,
        (true, false) => Comparison::Larger,
        (true, true) => Comparison::Different,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, values: &[(&str, i128)]) -> Option<i128> {
        let values: Vec<(String, i128)> = values.iter().map(|(n, v)| (n.to_string(), *v)).collect();
        eval(&tokens(text)?, &values)
    }

    #[test]
    fn formulas_evaluate_with_cs_precedence() {
        // By hand: 2 * 100 - 1 = 199; (7 + 1) * 7 / 2 = 28; -3 + 10 % 4 = -1.
        assert_eq!(at("(2 * n - 1)", &[("n", 100)]), Some(199));
        assert_eq!(at("(n + 1) * n / 2", &[("n", 7)]), Some(28));
        assert_eq!(at("-3 + 10 % 4", &[]), Some(-1));
        assert_eq!(at("n * m", &[("n", 3), ("m", 5)]), Some(15));
        assert_eq!(at("n / 0", &[("n", 3)]), None);
        assert_eq!(at("max(n, 2)", &[("n", 3)]), None);
        assert_eq!(at("k", &[("n", 3)]), None);
    }

    #[test]
    fn sizes_compare_at_the_probe_points() {
        assert_eq!(compare("(2 * n - 1)", "(2 * n  - 1)"), Comparison::Same);
        assert_eq!(compare("2 * n - 1", "(2 * n - 1)"), Comparison::Same);
        assert_eq!(compare("(2 * n - 1)", "(2 * n - 2)"), Comparison::Larger);
        assert_eq!(compare("n", "n * n"), Comparison::Smaller);
        // n * m against n + m: smaller at n = m = 1, larger at 16.
        assert_eq!(compare("n * m", "n + m"), Comparison::Different);
        assert_eq!(compare("max(n, 2)", "n"), Comparison::Different);
    }
}
