//! Preprocessor conditionals: which `#define`s, functions and globals are in
//! the active branch of every `#if`/`#ifdef`/`#ifndef`/`#elif`/`#else`,
//! given the `-D` values.
//!
//! Conditions are evaluated with C's rules: `defined X`, `defined(X)`,
//! integer arithmetic, comparisons and logic; an identifier that is not a
//! macro is 0. A condition polyfold cannot know (`__has_include`, a
//! function-like macro, a name reserved for the implementation that the file
//! does not define, such as `_OPENMP` or `__GNUC__`, an unsupported token)
//! makes its branch and the following ones *unknown*: their `#define`s and
//! `#undef`s leave the names they touch without a known value, and their
//! functions and globals are not analysed. This module does not expand
//! macros in code and does not know about SCoPs.

use std::collections::HashMap;
use std::ops::Range;

use super::syntax::{Define, PpCond, PpItem};

/// Whether a branch is compiled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Active,
    Unknown,
}

/// The state of one macro name while walking the file.
#[derive(Clone, Debug)]
enum State {
    /// An object-like macro with this body text.
    Object(String),
    /// A function-like macro.
    Function,
    /// Defined or undefined in a branch whose condition is unknown.
    Unknown,
}

/// What the walk found.
#[derive(Clone, Debug, Default)]
pub struct Evaluated {
    /// The `#define`s of active branches, in text order (a later `#undef`
    /// removes them).
    pub defines: Vec<Define>,
    /// Indices (into `SyntaxFile::functions`) of the functions in active
    /// branches.
    pub functions: Vec<usize>,
    /// Indices (into `SyntaxFile::globals`) of the globals in active branches.
    pub globals: Vec<usize>,
    /// Macro names whose value depends on a condition that could not be
    /// evaluated, with the span of the condition.
    pub unknown: Vec<(String, Range<usize>)>,
    /// Conditions that could not be evaluated, with the reason.
    pub undecided: Vec<(Range<usize>, String)>,
}

/// Walks the preprocessor structure of a file with the `-D` values.
pub fn evaluate(
    items: &[PpItem],
    all_defines: &[Define],
    command_line: &[(String, i64)],
) -> Evaluated {
    let mut w = Walker {
        state: HashMap::new(),
        out: Evaluated::default(),
        all_defines,
        cause: 0..0,
    };
    for (name, value) in command_line {
        w.state
            .insert(name.clone(), State::Object(value.to_string()));
    }
    w.walk(items, Mode::Active);
    let mut seen = std::collections::HashSet::new();
    w.out.unknown.retain(|(n, _)| seen.insert(n.clone()));
    w.out
}

struct Walker<'a> {
    state: HashMap<String, State>,
    out: Evaluated,
    all_defines: &'a [Define],
    /// The span of the innermost unknown condition (for the warnings).
    cause: Range<usize>,
}

impl Walker<'_> {
    fn walk(&mut self, items: &[PpItem], mode: Mode) {
        for item in items {
            match item {
                PpItem::Define(k) => {
                    let d = &self.all_defines[*k];
                    match mode {
                        Mode::Active => {
                            let st = match &d.params {
                                None => State::Object(d.body.clone()),
                                Some(_) => State::Function,
                            };
                            self.state.insert(d.name.clone(), st);
                            self.out.defines.push(d.clone());
                        }
                        Mode::Unknown => self.make_unknown(&d.name),
                    }
                }
                PpItem::Undef(name) => match mode {
                    Mode::Active => {
                        self.state.remove(name);
                        self.out.defines.retain(|d| d.name != *name);
                    }
                    Mode::Unknown => self.make_unknown(name),
                },
                PpItem::Function(k) => {
                    if mode == Mode::Active {
                        self.out.functions.push(*k);
                    }
                }
                PpItem::Global(k) => {
                    if mode == Mode::Active {
                        self.out.globals.push(*k);
                    }
                }
                PpItem::Cond { branches } => {
                    if mode != Mode::Active {
                        for (_, _, body) in branches {
                            self.walk(body, mode);
                        }
                        continue;
                    }
                    let saved = self.cause.clone();
                    let mut decided = false;
                    let mut unknown = false;
                    for (cond, span, body) in branches {
                        if unknown {
                            self.walk(body, Mode::Unknown);
                            continue;
                        }
                        if decided {
                            continue;
                        }
                        match self.condition(cond) {
                            Ok(true) => {
                                decided = true;
                                self.walk(body, Mode::Active);
                            }
                            Ok(false) => {}
                            Err(why) => {
                                self.out.undecided.push((span.clone(), why));
                                self.cause = span.clone();
                                unknown = true;
                                self.walk(body, Mode::Unknown);
                            }
                        }
                    }
                    self.cause = saved;
                }
            }
        }
    }

    fn make_unknown(&mut self, name: &str) {
        self.state.insert(name.to_string(), State::Unknown);
        self.out.defines.retain(|d| d.name != name);
        self.out
            .unknown
            .push((name.to_string(), self.cause.clone()));
    }

    fn condition(&self, cond: &PpCond) -> Result<bool, String> {
        match cond {
            PpCond::Else => Ok(true),
            PpCond::Defined(name) => self.is_defined(name),
            PpCond::NotDefined(name) => self.is_defined(name).map(|d| !d),
            PpCond::Expr(text) => {
                let tokens = tokenize(text)?;
                let mut p = Parser {
                    tokens: &tokens,
                    pos: 0,
                    walker: self,
                    depth: 0,
                };
                let v = p.ternary()?;
                if p.pos != tokens.len() {
                    return Err(format!("unsupported condition `{}`", text.trim()));
                }
                Ok(v != 0)
            }
        }
    }

    fn is_defined(&self, name: &str) -> Result<bool, String> {
        match self.state.get(name) {
            Some(State::Unknown) => Err(format!(
                "`{name}` is defined or undefined under a condition polyfold cannot evaluate"
            )),
            Some(_) => Ok(true),
            None if is_reserved(name) => Err(format!("`{name}` may be predefined by the compiler")),
            None => Ok(false),
        }
    }

    /// The value of an identifier in a condition.
    fn ident_value(&self, name: &str, depth: usize) -> Result<i64, String> {
        if depth > 32 {
            return Err("macro expansion too deep".into());
        }
        match self.state.get(name) {
            Some(State::Object(body)) => {
                let tokens = tokenize(body)?;
                if tokens.is_empty() {
                    return Err(format!("`{name}` has an empty body"));
                }
                let mut p = Parser {
                    tokens: &tokens,
                    pos: 0,
                    walker: self,
                    depth: depth + 1,
                };
                let v = p.ternary()?;
                if p.pos != tokens.len() {
                    return Err(format!("the body of `{name}` is not an integer expression"));
                }
                Ok(v)
            }
            Some(State::Function) => Err(format!("`{name}` is a function-like macro")),
            Some(State::Unknown) => Err(format!(
                "`{name}` is defined under a condition polyfold cannot evaluate"
            )),
            None if name.starts_with("__has_") => Err(format!("`{name}` is not supported")),
            None if is_reserved(name) && name != "__cplusplus" => {
                Err(format!("`{name}` may be predefined by the compiler"))
            }
            // C: an identifier that is not a macro is 0.
            None => Ok(0),
        }
    }
}

/// Names reserved for the implementation (`__X`, `_X`), which the compiler
/// may predefine (`__GNUC__`, `_OPENMP`). `__cplusplus` is never defined by
/// a C compiler.
fn is_reserved(name: &str) -> bool {
    name != "__cplusplus"
        && (name.starts_with("__")
            || (name.starts_with('_') && name[1..].starts_with(|c: char| c.is_ascii_uppercase())))
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Num(i64),
    Ident(String),
    Op(&'static str),
}

const OPS: [&str; 24] = [
    "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "(", ")", "+", "-", "*", "/", "%", "<", ">",
    "!", "~", "&", "|", "^", "?", ":",
];

fn tokenize(text: &str) -> Result<Vec<Tok>, String> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() || c == b'\\' {
            i += 1;
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            break;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            match text[i + 2..].find("*/") {
                Some(k) => i += k + 4,
                None => break,
            }
            continue;
        }
        if c.is_ascii_digit() {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let word = &text[start..i];
            let digits = word.trim_end_matches(['l', 'L']);
            if digits.ends_with(['u', 'U'])
                || word.contains(['.', 'e', 'E']) && !word.starts_with("0x")
            {
                return Err(format!("unsupported number `{word}`"));
            }
            let v = if let Some(h) = digits.strip_prefix("0x").or(digits.strip_prefix("0X")) {
                i64::from_str_radix(h, 16).ok()
            } else if digits.len() > 1 && digits.starts_with('0') {
                i64::from_str_radix(&digits[1..], 8).ok()
            } else {
                digits.parse().ok()
            };
            out.push(Tok::Num(
                v.ok_or_else(|| format!("unsupported number `{word}`"))?,
            ));
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Tok::Ident(text[start..i].to_string()));
            continue;
        }
        match OPS.iter().find(|op| text[i..].starts_with(**op)) {
            Some(op) => {
                out.push(Tok::Op(op));
                i += op.len();
            }
            None => {
                let ch = text[i..].chars().next().unwrap_or('?');
                return Err(format!("unsupported token `{ch}` in a condition"));
            }
        }
    }
    Ok(out)
}

struct Parser<'t, 'w, 'a> {
    tokens: &'t [Tok],
    pos: usize,
    walker: &'w Walker<'a>,
    depth: usize,
}

type R = Result<i64, String>;

fn overflow() -> String {
    "arithmetic overflow in a condition".into()
}

impl Parser<'_, '_, '_> {
    fn peek_op(&self) -> Option<&'static str> {
        match self.tokens.get(self.pos) {
            Some(Tok::Op(o)) => Some(o),
            _ => None,
        }
    }

    fn eat(&mut self, op: &str) -> bool {
        if self.peek_op() == Some(op) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn ternary(&mut self) -> R {
        let c = self.binary(0)?;
        if self.eat("?") {
            let a = self.ternary()?;
            if !self.eat(":") {
                return Err("`?` without `:` in a condition".into());
            }
            let b = self.ternary()?;
            return Ok(if c != 0 { a } else { b });
        }
        Ok(c)
    }

    fn binary(&mut self, min_prec: u8) -> R {
        let mut lhs = self.unary()?;
        while let Some(op) = self.peek_op() {
            let prec = match op {
                "*" | "/" | "%" => 10,
                "+" | "-" => 9,
                "<<" | ">>" => 8,
                "<" | ">" | "<=" | ">=" => 7,
                "==" | "!=" => 6,
                "&" => 5,
                "^" => 4,
                "|" => 3,
                "&&" => 2,
                "||" => 1,
                _ => break,
            };
            if prec <= min_prec {
                break;
            }
            self.pos += 1;
            let rhs = self.binary(prec)?;
            lhs = match op {
                "*" => lhs.checked_mul(rhs).ok_or_else(overflow)?,
                "/" => lhs
                    .checked_div(rhs)
                    .ok_or("division by zero in a condition")?,
                "%" => lhs
                    .checked_rem(rhs)
                    .ok_or("division by zero in a condition")?,
                "+" => lhs.checked_add(rhs).ok_or_else(overflow)?,
                "-" => lhs.checked_sub(rhs).ok_or_else(overflow)?,
                "<<" if (0..63).contains(&rhs) => {
                    lhs.checked_mul(1i64 << rhs).ok_or_else(overflow)?
                }
                ">>" if (0..63).contains(&rhs) => lhs >> rhs,
                "<<" | ">>" => return Err("shift out of range in a condition".into()),
                "<" => (lhs < rhs) as i64,
                ">" => (lhs > rhs) as i64,
                "<=" => (lhs <= rhs) as i64,
                ">=" => (lhs >= rhs) as i64,
                "==" => (lhs == rhs) as i64,
                "!=" => (lhs != rhs) as i64,
                "&" => lhs & rhs,
                "^" => lhs ^ rhs,
                "|" => lhs | rhs,
                "&&" => (lhs != 0 && rhs != 0) as i64,
                "||" => (lhs != 0 || rhs != 0) as i64,
                _ => unreachable!("operators are listed above"),
            };
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> R {
        if self.depth > 64 {
            return Err("condition nested too deeply".into());
        }
        let tok = self.tokens.get(self.pos).cloned();
        self.pos += 1;
        match tok {
            Some(Tok::Num(v)) => Ok(v),
            Some(Tok::Op("(")) => {
                self.depth += 1;
                let v = self.ternary()?;
                self.depth -= 1;
                if !self.eat(")") {
                    return Err("unbalanced parentheses in a condition".into());
                }
                Ok(v)
            }
            Some(Tok::Op("-")) => self.unary()?.checked_neg().ok_or_else(overflow),
            Some(Tok::Op("+")) => self.unary(),
            Some(Tok::Op("!")) => Ok((self.unary()? == 0) as i64),
            Some(Tok::Op("~")) => Ok(!self.unary()?),
            Some(Tok::Ident(name)) if name == "defined" => {
                let paren = self.eat("(");
                let Some(Tok::Ident(x)) = self.tokens.get(self.pos).cloned() else {
                    return Err("`defined` without a name".into());
                };
                self.pos += 1;
                if paren && !self.eat(")") {
                    return Err("unbalanced parentheses after `defined`".into());
                }
                Ok(self.walker.is_defined(&x)? as i64)
            }
            Some(Tok::Ident(name)) => {
                if self.peek_op() == Some("(") {
                    return Err(format!("`{name}(...)` in a condition is not supported"));
                }
                self.walker.ident_value(&name, self.depth)
            }
            _ => Err("unsupported condition".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def(name: &str, body: &str) -> Define {
        Define {
            name: name.into(),
            params: None,
            body: body.into(),
            span: 0..0,
        }
    }

    fn cond(c: PpCond, body: Vec<PpItem>) -> (PpCond, Range<usize>, Vec<PpItem>) {
        (c, 0..0, body)
    }

    fn value_of(ev: &Evaluated, name: &str) -> Option<String> {
        ev.defines
            .iter()
            .rev()
            .find(|d| d.name == name)
            .map(|d| d.body.clone())
    }

    /// `#ifdef SMALL / #define N 10 / #else / #define N 100 / #endif`.
    fn small_large() -> (Vec<Define>, Vec<PpItem>) {
        let defs = vec![def("N", "10"), def("N", "100")];
        let items = vec![PpItem::Cond {
            branches: vec![
                cond(PpCond::Defined("SMALL".into()), vec![PpItem::Define(0)]),
                cond(PpCond::Else, vec![PpItem::Define(1)]),
            ],
        }];
        (defs, items)
    }

    #[test]
    fn ifdef_picks_the_active_branch() {
        let (defs, items) = small_large();
        let ev = evaluate(&items, &defs, &[]);
        assert_eq!(value_of(&ev, "N").as_deref(), Some("100"));
        let ev = evaluate(&items, &defs, &[("SMALL".into(), 1)]);
        assert_eq!(value_of(&ev, "N").as_deref(), Some("10"));
        assert!(ev.unknown.is_empty());
    }

    #[test]
    fn if_expressions_follow_c() {
        let defs = vec![
            def("M", "(N * 2 + 1)"),
            def("A", "1"),
            def("A", "2"),
            def("A", "3"),
        ];
        let expr = |s: &str| PpCond::Expr(s.into());
        let items = vec![
            PpItem::Define(0),
            PpItem::Cond {
                branches: vec![
                    cond(expr("M > 20 && defined(N)"), vec![PpItem::Define(1)]),
                    cond(
                        expr("defined N || UNDEFINED_NAME + 3 == 3"),
                        vec![PpItem::Define(2)],
                    ),
                    cond(PpCond::Else, vec![PpItem::Define(3)]),
                ],
            },
        ];
        // N = 10: M = 21 > 20.
        let ev = evaluate(&items, &defs, &[("N".into(), 10)]);
        assert_eq!(value_of(&ev, "A").as_deref(), Some("1"));
        // N = 5: M = 11; `defined N` holds.
        let ev = evaluate(&items, &defs, &[("N".into(), 5)]);
        assert_eq!(value_of(&ev, "A").as_deref(), Some("2"));
        // No N: M = (0 * 2 + 1); an unknown name is 0, so the second holds.
        let ev = evaluate(&items, &defs, &[]);
        assert_eq!(value_of(&ev, "A").as_deref(), Some("2"));
    }

    #[test]
    fn unknown_conditions_make_their_macros_unknown() {
        let defs = vec![def("N", "64"), def("N", "32"), def("K", "3")];
        let items = vec![
            PpItem::Define(0),
            PpItem::Cond {
                branches: vec![
                    cond(
                        PpCond::Expr("__has_include(<x.h>)".into()),
                        vec![PpItem::Define(1)],
                    ),
                    cond(PpCond::Else, vec![PpItem::Define(2)]),
                ],
            },
        ];
        let ev = evaluate(&items, &defs, &[]);
        assert_eq!(value_of(&ev, "N"), None);
        assert_eq!(value_of(&ev, "K"), None);
        let names: Vec<&str> = ev.unknown.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["N", "K"]);
        // `_OPENMP` may be predefined.
        let items = vec![PpItem::Cond {
            branches: vec![cond(
                PpCond::Defined("_OPENMP".into()),
                vec![PpItem::Define(2)],
            )],
        }];
        let ev = evaluate(&items, &defs, &[]);
        assert_eq!(ev.unknown.len(), 1);
    }

    #[test]
    fn arithmetic_matches_c() {
        let ev = Walker {
            state: HashMap::new(),
            out: Evaluated::default(),
            all_defines: &[],
            cause: 0..0,
        };
        let check = |text: &str, want: bool| {
            assert_eq!(ev.condition(&PpCond::Expr(text.into())), Ok(want), "{text}");
        };
        check("1 + 2 * 3 == 7", true);
        check("(1 + 2) * 3 == 7", false);
        check("-7 / 2 == -3 && -7 % 2 == -1", true);
        check("1 << 4 == 16 && 0x10 == 16 && 010 == 8", true);
        check("1 ? 0 : 1", false);
        check("!0 && ~0 == -1", true);
        check("3 > 2 > 1", false);
        assert!(ev.condition(&PpCond::Expr("1 / 0".into())).is_err());
        assert!(ev.condition(&PpCond::Expr("1u".into())).is_err());
    }
}
