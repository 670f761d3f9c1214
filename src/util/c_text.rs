//! C text of affine expressions, shared by the mapping printers and code
//! generation: `2 * N - M - 3`, with an explicit `*` (isl writes `2N`),
//! positive terms as given, constants folded at the end.

/// `Σ coeff·term + constant` as C text. `term` strings are inserted as they
/// are (callers parenthesise compound terms).
pub(crate) fn affine_text(terms: &[(i64, String)], constant: i64) -> String {
    let mut out = String::new();
    for (c, term) in terms {
        if *c == 0 {
            continue;
        }
        let mag = c.unsigned_abs();
        let body = if mag == 1 {
            term.clone()
        } else {
            format!("{mag} * {term}")
        };
        if out.is_empty() {
            out = if *c < 0 { format!("-{body}") } else { body };
        } else {
            out.push_str(if *c < 0 { " - " } else { " + " });
            out.push_str(&body);
        }
    }
    if out.is_empty() {
        return constant.to_string();
    }
    if constant > 0 {
        out.push_str(&format!(" + {constant}"));
    } else if constant < 0 {
        out.push_str(&format!(" - {}", constant.unsigned_abs()));
    }
    out
}

/// The precedence levels of C's expression grammar, loosest first: an
/// expression whose loosest top-level operator is at level `p` can be the
/// operand of an operator that needs level `q` without parentheses iff
/// `p >= q`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Prec {
    Comma,
    Assignment,
    Conditional,
    LogicalOr,
    LogicalAnd,
    BitOr,
    BitXor,
    BitAnd,
    Equality,
    Relational,
    Shift,
    Additive,
    Multiplicative,
    /// Prefix operators and casts (`-x`, `!x`, `(int) x`).
    Unary,
    /// A primary expression or a postfix one (`x`, `42`, `(e)`, `a[i]`).
    Postfix,
}

/// The precedence level of the C expression `text`: its loosest operator
/// outside brackets. The scan is conservative: whatever it cannot classify
/// (an identifier for which `is_compound` holds, i.e. a macro whose body is
/// not one operand; a call, which may be a function-like macro; a character
/// it does not know) counts as the loosest level, so that the callers add
/// parentheses rather than leave them out.
pub(crate) fn precedence(text: &str, is_compound: &dyn Fn(&str) -> bool) -> Prec {
    precedence_with(text, &|n| is_compound(n).then_some(Prec::Comma))
}

/// [`precedence`] where a name outside brackets counts as the level
/// `name_level` gives it (`None`: one operand): the level of the text with
/// the names' expansions in place, when `name_level` gives the loosest
/// operator of each expansion.
fn precedence_with(text: &str, name_level: &dyn Fn(&str) -> Option<Prec>) -> Prec {
    let bytes = text.as_bytes();
    let mut level = Prec::Postfix;
    let mut depth: usize = 0;
    // Whether the previous top-level token ends an operand (then `-` is
    // binary, `(` is a call, and an operand after it follows a cast).
    let mut after_operand = false;
    let mut seen_any = false;
    let mut k = 0;
    let lower = |level: &mut Prec, p: Prec| {
        if p < *level {
            *level = p;
        }
    };
    while k < bytes.len() {
        let c = bytes[k];
        if c.is_ascii_whitespace() {
            k += 1;
            continue;
        }
        seen_any = true;
        if c.is_ascii_alphanumeric()
            || c == b'_'
            || c == b'.' && bytes.get(k + 1).is_some_and(u8::is_ascii_digit)
        {
            let start = k;
            let number = c.is_ascii_digit() || c == b'.';
            while k < bytes.len() {
                let d = bytes[k];
                let exponent_sign = number
                    && (d == b'+' || d == b'-')
                    && matches!(bytes[k - 1], b'e' | b'E' | b'p' | b'P');
                if d.is_ascii_alphanumeric() || d == b'_' || number && d == b'.' || exponent_sign {
                    k += 1;
                } else {
                    break;
                }
            }
            if depth == 0 {
                if after_operand {
                    // `(type) x` or `sizeof x`: a prefix form.
                    lower(&mut level, Prec::Unary);
                }
                let word = &text[start..k];
                if !number && let Some(p) = name_level(word) {
                    lower(&mut level, p);
                }
                if word == "sizeof" || word == "_Alignof" {
                    lower(&mut level, Prec::Unary);
                    after_operand = false;
                } else {
                    after_operand = true;
                }
            }
            continue;
        }
        if c == b'\'' || c == b'"' {
            // A character or string literal: skip to its closing quote.
            k += 1;
            while k < bytes.len() && bytes[k] != c {
                k += if bytes[k] == b'\\' { 2 } else { 1 };
            }
            k += 1;
            if depth == 0 {
                if after_operand {
                    lower(&mut level, Prec::Unary);
                }
                after_operand = true;
            }
            continue;
        }
        match c {
            b'(' | b'[' | b'{' => {
                if depth == 0 && c == b'(' && after_operand {
                    // A call: the callee may be a function-like macro.
                    lower(&mut level, Prec::Comma);
                }
                if depth == 0 && c == b'{' {
                    lower(&mut level, Prec::Comma);
                }
                depth += 1;
                k += 1;
                continue;
            }
            b')' | b']' | b'}' => {
                if depth == 0 {
                    // Unbalanced: not an expression we understand.
                    return Prec::Comma;
                }
                depth -= 1;
                if depth == 0 {
                    after_operand = true;
                }
                k += 1;
                continue;
            }
            _ => {}
        }
        // An operator: the longest match.
        const OPERATORS: [&str; 46] = [
            "<<=", ">>=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
            "+=", "-=", "*=", "/=", "%=", "&=", "^=", "|=", "+", "-", "*", "/", "%", "<", ">", "=",
            "!", "~", "&", "^", "|", "?", ":", ",", ".", ";", "#", "@", "$", "`", "\\", "\0",
        ];
        let rest = &text[k..];
        let Some(op) = OPERATORS.iter().find(|op| rest.starts_with(**op)) else {
            return Prec::Comma;
        };
        k += op.len();
        if depth > 0 {
            continue;
        }
        let binary = after_operand;
        let p = match *op {
            "->" | "." if binary => None,
            "++" | "--" if binary => None,
            "++" | "--" | "!" | "~" => Some(Prec::Unary),
            "+" | "-" | "*" | "&" if !binary => Some(Prec::Unary),
            "+" | "-" => Some(Prec::Additive),
            "*" | "/" | "%" => Some(Prec::Multiplicative),
            "<<" | ">>" => Some(Prec::Shift),
            "<" | ">" | "<=" | ">=" => Some(Prec::Relational),
            "==" | "!=" => Some(Prec::Equality),
            "&" => Some(Prec::BitAnd),
            "^" => Some(Prec::BitXor),
            "|" => Some(Prec::BitOr),
            "&&" => Some(Prec::LogicalAnd),
            "||" => Some(Prec::LogicalOr),
            "?" | ":" => Some(Prec::Conditional),
            "=" | "+=" | "-=" | "*=" | "/=" | "%=" | "&=" | "^=" | "|=" | "<<=" | ">>=" => {
                Some(Prec::Assignment)
            }
            _ => Some(Prec::Comma),
        };
        if let Some(p) = p {
            lower(&mut level, p);
        }
        // After a postfix `++`, `--`, `->` or `.`, an operand (or a member
        // name) still ends the expression so far.
        after_operand = binary && matches!(*op, "++" | "--");
    }
    if !seen_any || depth != 0 {
        return Prec::Comma;
    }
    level
}

impl Prec {
    /// The next tighter level (for the right operand of a left-associative
    /// operator: `a - (b - c)` needs it).
    pub(crate) fn tighter(self) -> Prec {
        use Prec::*;
        match self {
            Comma => Assignment,
            Assignment => Conditional,
            Conditional => LogicalOr,
            LogicalOr => LogicalAnd,
            LogicalAnd => BitOr,
            BitOr => BitXor,
            BitXor => BitAnd,
            BitAnd => Equality,
            Equality => Relational,
            Relational => Shift,
            Shift => Additive,
            Additive => Multiplicative,
            Multiplicative => Unary,
            Unary | Postfix => Postfix,
        }
    }
}

/// The level of the expansion of the object-like macro `name` when it is
/// not one operand (`Some(Prec::Additive)` for `#define N M+2`), `None`
/// when it is one (or is not a macro). `bodies(name)` lists the bodies of
/// every definition of `name` (the loosest counts). A macro used in a body
/// outside brackets brings its own expansion's level: the level is that
/// of the whole expansion as the preprocessor pastes it (`#define SR
/// BS/SB` with `#define BS NB*RS` is `NB*RS/SB`, multiplicative). Whether
/// the body's own operators regroup the inner expansion (`SB/BS`) is
/// checked where the body is read (`frontend::affine`).
pub(crate) fn macro_level(name: &str, bodies: &dyn Fn(&str) -> Vec<String>) -> Option<Prec> {
    fn level(
        name: &str,
        bodies: &dyn Fn(&str) -> Vec<String>,
        visiting: &mut Vec<String>,
    ) -> Option<Prec> {
        // A name met again inside its own expansion is not expanded again
        // by the preprocessor: it stays one token.
        if visiting.iter().any(|v| v == name) {
            return None;
        }
        if visiting.len() > 32 {
            return Some(Prec::Comma);
        }
        visiting.push(name.to_string());
        let mut loosest: Option<Prec> = None;
        for body in bodies(name) {
            let p = precedence_with(&body, &|n| level(n, bodies, &mut visiting.clone()));
            if p < Prec::Postfix {
                loosest = Some(loosest.map_or(p, |l| l.min(p)));
            }
        }
        visiting.pop();
        loosest
    }
    level(name, bodies, &mut Vec::new())
}

/// `text` as an operand that needs level `min`: parenthesised when its own
/// level (see [`precedence`]) is looser.
pub fn operand(text: &str, min: Prec, is_compound: &dyn Fn(&str) -> bool) -> String {
    if precedence(text, is_compound) >= min {
        text.to_string()
    } else {
        format!("({text})")
    }
}

/// Whether the body of an object-like macro is one operand (a number, a
/// name that is itself one operand, or a fully parenthesised expression),
/// so that the macro's name can be printed bare anywhere.
pub(crate) fn is_atomic_body(body: &str, is_compound: &dyn Fn(&str) -> bool) -> bool {
    precedence(body, is_compound) == Prec::Postfix
}

/// `names` as C operands: a name in `compound` (sorted, see
/// [`compound_macro_names`]) is parenthesised (`(N)` for `#define N M+2`).
pub(crate) fn operand_names<'a>(
    names: impl IntoIterator<Item = &'a str>,
    compound: &[String],
) -> Vec<String> {
    names
        .into_iter()
        .map(|n| {
            if compound.binary_search_by(|c| c.as_str().cmp(n)).is_ok() {
                format!("({n})")
            } else {
                n.to_string()
            }
        })
        .collect()
}

/// The names among `definitions` (`(name, body)` of object-like macros, in
/// any order, several per name allowed) that are not one operand: a name is
/// compound when any of its definitions is, or uses a compound name. Sorted.
pub(crate) fn compound_macro_names(definitions: &[(String, String)]) -> Vec<String> {
    let mut compound: Vec<String> = Vec::new();
    // Iterate to a fixed point: each round may mark the users of the names
    // marked in the previous one; at most one round per definition.
    for _ in 0..=definitions.len() {
        let mut changed = false;
        for (name, body) in definitions {
            if compound.contains(name) {
                continue;
            }
            let is = |n: &str| n == name || compound.iter().any(|c| c == n);
            if !is_atomic_body(body, &is) {
                compound.push(name.clone());
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    compound.sort();
    compound
}

/// The identifiers of C text, with their offsets, outside comments and
/// literals; a member name after `.` or `->` only with `members`.
pub(crate) fn identifier_tokens(text: &str, members: bool) -> Vec<(usize, String)> {
    let toks = tokens(text);
    let mut out = Vec::new();
    for (k, (range, kind)) in toks.iter().enumerate() {
        if *kind != TokenKind::Ident {
            continue;
        }
        let member = k > 0
            && toks[k - 1].1 == TokenKind::Punct
            && matches!(&text[toks[k - 1].0.clone()], "." | "->");
        if members || !member {
            out.push((range.start, text[range.clone()].to_string()));
        }
    }
    out
}

/// The kind of a token of C text ([`tokens`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum TokenKind {
    Ident,
    /// A decimal integer literal without suffix.
    Int(i64),
    /// Any other number.
    Number,
    Punct,
    /// A string or character literal.
    Literal,
    /// A comment (only from [`comments`]).
    Comment,
}

/// The tokens of `text`, with their byte ranges (comments and white space
/// skipped).
pub fn tokens(text: &str) -> Vec<(std::ops::Range<usize>, TokenKind)> {
    lex(text, false)
}

/// The comments of `text` (outside string and character literals), with
/// their byte ranges, in order.
pub(crate) fn comments(text: &str) -> Vec<std::ops::Range<usize>> {
    lex(text, true)
        .into_iter()
        .filter(|(_, k)| *k == TokenKind::Comment)
        .map(|(r, _)| r)
        .collect()
}

/// [`tokens`], with the comments too when `comments` is set.
fn lex(text: &str, comments: bool) -> Vec<(std::ops::Range<usize>, TokenKind)> {
    const PUNCTS: [&str; 24] = [
        "<<=", ">>=", "...", "==", "!=", "<=", ">=", "&&", "||", "++", "--", "->", "<<", ">>",
        "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "##", "::",
    ];
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut k = 0;
    while k < bytes.len() {
        let c = bytes[k];
        let start = k;
        if c.is_ascii_whitespace() {
            k += 1;
        } else if c == b'/' && bytes.get(k + 1) == Some(&b'/') {
            while k < bytes.len() && bytes[k] != b'\n' {
                k += 1;
            }
            if comments {
                out.push((start..k, TokenKind::Comment));
            }
        } else if c == b'/' && bytes.get(k + 1) == Some(&b'*') {
            k += 2;
            while k < bytes.len() && !(bytes[k] == b'*' && bytes.get(k + 1) == Some(&b'/')) {
                k += 1;
            }
            k = (k + 2).min(bytes.len());
            if comments {
                out.push((start..k, TokenKind::Comment));
            }
        } else if c == b'"' || c == b'\'' {
            k += 1;
            while k < bytes.len() && bytes[k] != c && bytes[k] != b'\n' {
                k += if bytes[k] == b'\\' { 2 } else { 1 };
            }
            k = (k + 1).min(bytes.len());
            out.push((start..k, TokenKind::Literal));
        } else if c.is_ascii_digit() {
            while k < bytes.len()
                && (bytes[k].is_ascii_alphanumeric() || bytes[k] == b'_' || bytes[k] == b'.')
            {
                k += 1;
            }
            let word = &text[start..k];
            let kind = if word.bytes().all(|b| b.is_ascii_digit())
                && (word == "0" || !word.starts_with('0'))
            {
                word.parse().map_or(TokenKind::Number, TokenKind::Int)
            } else {
                TokenKind::Number
            };
            out.push((start..k, kind));
        } else if c.is_ascii_alphabetic() || c == b'_' {
            while k < bytes.len() && (bytes[k].is_ascii_alphanumeric() || bytes[k] == b'_') {
                k += 1;
            }
            out.push((start..k, TokenKind::Ident));
        } else {
            let len = PUNCTS
                .iter()
                .find(|p| text[k..].starts_with(*p))
                .map_or(1, |p| p.len());
            // One character may be several bytes outside ASCII.
            let len = if c.is_ascii() {
                len
            } else {
                text[k..].chars().next().map_or(1, char::len_utf8)
            };
            k += len;
            out.push((start..k, TokenKind::Punct));
        }
    }
    out
}

/// The blanks at the start of the line holding byte `at`.
pub(crate) fn indent_of_line(source: &str, at: usize) -> String {
    let line_start = source[..at].rfind('\n').map_or(0, |i| i + 1);
    source[line_start..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
}

#[cfg(test)]
mod tests {
    use super::affine_text;

    #[test]
    fn prints_c() {
        let t = |c: i64, s: &str| (c, s.to_string());
        assert_eq!(affine_text(&[t(2, "N0"), t(-1, "M")], -3), "2 * N0 - M - 3");
        assert_eq!(affine_text(&[t(0, "N")], 7), "7");
        assert_eq!(affine_text(&[t(-1, "(k - 1)")], 4), "-(k - 1) + 4");
    }

    use super::{Prec, compound_macro_names, operand, precedence};

    fn none(_: &str) -> bool {
        false
    }

    #[test]
    fn precedence_levels() {
        let p = |t: &str| precedence(t, &none);
        assert_eq!(p("i"), Prec::Postfix);
        assert_eq!(p("42"), Prec::Postfix);
        assert_eq!(p("(i - 1)"), Prec::Postfix);
        assert_eq!(p("a[i + 1]"), Prec::Postfix);
        assert_eq!(p("-i"), Prec::Unary);
        assert_eq!(p("(int) i"), Prec::Unary);
        assert_eq!(p("i - 1"), Prec::Additive);
        assert_eq!(p("-i + 1"), Prec::Additive);
        assert_eq!(p("2 * i"), Prec::Multiplicative);
        assert_eq!(p("i % 2"), Prec::Multiplicative);
        assert_eq!(p("1e+5"), Prec::Postfix);
        assert_eq!(p("i < n ? i : n"), Prec::Conditional);
        assert_eq!(p("i++"), Prec::Postfix);
        // Calls may be function-like macros; unbalanced or empty text is
        // not understood: both count as the loosest level.
        assert_eq!(p("MIN(i, j)"), Prec::Comma);
        assert_eq!(p("i)"), Prec::Comma);
        assert_eq!(p(""), Prec::Comma);
    }

    #[test]
    fn a_self_referential_macro_is_one_token() {
        use super::macro_level;
        let bodies = |n: &str| match n {
            "A" => vec!["B".to_string()],
            "B" => vec!["A".to_string()],
            "X" => vec!["X + 1".to_string()],
            _ => Vec::new(),
        };
        assert_eq!(macro_level("A", &bodies), None);
        assert_eq!(macro_level("X", &bodies), Some(Prec::Additive));
    }

    /// The level of an expansion with macros in it is that of the pasted
    /// tokens (derived by hand: `NB*RS/SB` has `*` and `/` outside
    /// brackets, `(NB*RS)+1` has `+`, `NB*RS<<1`... has `<<`).
    #[test]
    fn a_macro_in_a_body_brings_its_own_level() {
        use super::macro_level;
        let bodies = |n: &str| {
            let b = match n {
                "NB" => "4",
                "RS" => "16",
                "BS" => "NB*RS",
                "SB" => "16",
                "SR" => "BS/SB",
                "SQ" => "SB/BS",
                "PB" => "(BS)+1",
                "SH" => "BS<<1",
                "SUM" => "NB+RS",
                "TWICE" => "SUM*2",
                _ => return Vec::new(),
            };
            vec![b.to_string()]
        };
        assert_eq!(macro_level("NB", &bodies), None);
        assert_eq!(macro_level("SR", &bodies), Some(Prec::Multiplicative));
        assert_eq!(macro_level("SQ", &bodies), Some(Prec::Multiplicative));
        assert_eq!(macro_level("PB", &bodies), Some(Prec::Additive));
        assert_eq!(macro_level("SH", &bodies), Some(Prec::Shift));
        // `NB+RS*2`: the `+` of SUM is outside brackets in the expansion.
        assert_eq!(macro_level("TWICE", &bodies), Some(Prec::Additive));
    }

    #[test]
    fn compound_macros_are_parenthesised() {
        let last = |n: &str| n == "LAST";
        assert_eq!(operand("LAST", Prec::Postfix, &last), "(LAST)");
        assert_eq!(operand("LAST", Prec::Postfix, &none), "LAST");
        assert_eq!(operand("i - 1", Prec::Postfix, &none), "(i - 1)");
        assert_eq!(operand("i - 1", Prec::Additive, &none), "i - 1");
        assert_eq!(operand("i", Prec::Postfix, &none), "i");
    }

    #[test]
    fn compound_names() {
        let d = |n: &str, b: &str| (n.to_string(), b.to_string());
        let defs = [
            d("N", "M+2"),
            d("M", "3"),
            d("A", "N"),
            d("B", "(N)"),
            d("C", "16"),
            d("LAST", "C-1"),
            d("K", "5"),
            d("K", "-5"),
        ];
        assert_eq!(compound_macro_names(&defs), vec!["A", "K", "LAST", "N"]);
    }
}
