//! The macro table: `#define`s of the file plus `-D` values.
//!
//! Object-like macros whose body is an integer constant expression (possibly
//! using other macros) become parameters with a known value; the value never
//! replaces the name in a set. Other object-like macros and function-like
//! macros keep their parsed bodies so that the affine conversion can expand
//! them. This module does not resolve variables and does not decide what is
//! affine.
//!
//! Declarations written with a function-like macro (PolyBench's
//! `DATA_TYPE POLYBENCH_2D(A, NI, NJ, ni, nj)`) are expanded here at the
//! token level, as `cc` does ([`Macros::expand_declarator`]): every token
//! of the expansion remembers the byte range of the user's file it was
//! copied from (an argument), or that it has none (a macro body, which may
//! live in a header). A node of the expanded declarator gets its own span
//! only when all its tokens are the user's, in order; any other node takes
//! the span of the whole macro call and is marked `from_macro`, and the
//! declarator itself is marked `from_macro`, so that nothing is ever
//! rewritten inside a macro body.

use std::collections::HashMap;
use std::ops::Range;

use super::syntax::{
    BODY_PREFIX, BinOp, Declarator, Define, Expr, ExprKind, UnOp, parse_declarator_text,
    parse_expression_text, parse_expression_text_with,
};
use crate::ir::{FunctionMacro, MacroTable, ObjectMacro, ParamOrigin};

/// The macro table plus parsed bodies.
#[derive(Clone, Debug, Default)]
pub(crate) struct Macros {
    pub table: MacroTable,
    /// Parsed body of each object-like macro (`None` if it is not an
    /// expression).
    object_bodies: HashMap<String, Option<Expr>>,
    /// Parameters and parsed body of each function-like macro.
    function_bodies: HashMap<String, (Vec<String>, Option<Expr>)>,
    /// The value of every object-like macro (final definitions).
    values: HashMap<String, Option<i64>>,
    /// Names that the function this table is for `#define`s or `#undef`s
    /// in its body: they have no one meaning there, and are left out.
    redefined_here: Vec<String>,
}

/// The longest chain of macros whose value is computed (`A` uses `B` uses
/// `C` ...); longer chains (and cycles) have no value.
const MAX_EVAL_DEPTH: usize = 64;

impl Macros {
    /// Builds the table from the file's `#define`s and the command line's
    /// `-D NAME=BODY` pairs (which override a `#define` of the same name).
    pub fn build(defines: &[Define], command_line: &[(String, String)]) -> Macros {
        let mut m = Macros::default();
        for d in defines {
            match &d.params {
                None => {
                    m.object_bodies
                        .insert(d.name.clone(), parse_expression_text(&d.body));
                    m.table.objects.push(ObjectMacro {
                        name: d.name.clone(),
                        body: d.body.clone(),
                        value: None,
                        origin: ParamOrigin::Define,
                        span: Some(d.span.clone()),
                    });
                }
                Some(params) => {
                    m.function_bodies.insert(
                        d.name.clone(),
                        (params.clone(), parse_expression_text_with(&d.body, params)),
                    );
                    m.table.functions.push(FunctionMacro {
                        name: d.name.clone(),
                        params: params.clone(),
                        body: d.body.clone(),
                        span: d.span.clone(),
                    });
                }
            }
        }
        for (name, body) in command_line {
            let parsed = parse_expression_text(body).map(|mut e| {
                mark_from_macro(&mut e);
                e
            });
            m.object_bodies.insert(name.clone(), parsed);
            m.table.objects.push(ObjectMacro {
                name: name.clone(),
                body: body.trim().to_string(),
                value: None,
                origin: ParamOrigin::CommandLine,
                span: None,
            });
        }
        // Values: evaluate every object-like macro with the final bodies,
        // each once (memoised, so that chains of macros stay linear).
        let mut memo: HashMap<String, Option<i64>> = HashMap::new();
        let mut visiting: Vec<String> = Vec::new();
        let names: Vec<String> = m.table.objects.iter().map(|o| o.name.clone()).collect();
        for name in &names {
            m.value_of(name, &mut memo, &mut visiting);
        }
        for o in m.table.objects.iter_mut() {
            o.value = memo.get(&o.name).copied().flatten();
        }
        m.values = memo;
        m
    }

    /// The table of the macros in force in a function: `defines` with
    /// the command line's, less the names `redefined_here` (the function
    /// `#define`s or `#undef`s them in its body).
    pub(crate) fn for_function(
        defines: &[Define],
        command_line: &[(String, String)],
        redefined_here: &[String],
    ) -> Macros {
        let defines: Vec<Define> = defines
            .iter()
            .filter(|d| !redefined_here.contains(&d.name))
            .cloned()
            .collect();
        let command: Vec<(String, String)> = command_line
            .iter()
            .filter(|(n, _)| !redefined_here.contains(n))
            .cloned()
            .collect();
        let mut m = Macros::build(&defines, &command);
        m.redefined_here = redefined_here.to_vec();
        m
    }

    /// Whether the function this table is for `#define`s or `#undef`s
    /// `name` in its body.
    pub(crate) fn is_redefined_here(&self, name: &str) -> bool {
        self.redefined_here.iter().any(|n| n == name)
    }

    /// Whether `name` is an object-like macro whose body is an integer
    /// constant expression (a parameter).
    pub(crate) fn is_integer_constant(&self, name: &str) -> bool {
        self.table.object(name).is_some_and(|o| o.value.is_some())
    }

    pub fn object(&self, name: &str) -> Option<&ObjectMacro> {
        self.table.object(name)
    }

    /// The parsed body of an object-like macro.
    pub(crate) fn object_body(&self, name: &str) -> Option<&Expr> {
        self.object_bodies.get(name).and_then(Option::as_ref)
    }

    /// Expands a call of a function-like macro: the body with every
    /// parameter replaced by the argument. Body nodes take the span of the
    /// call and are marked `from_macro`; arguments keep their own spans.
    pub(crate) fn expand_call(&self, name: &str, call: &Expr, args: &[Expr]) -> Option<Expr> {
        let (params, body) = self.function_bodies.get(name)?;
        let body = body.as_ref()?;
        if params.len() != args.len() {
            return None;
        }
        Some(substitute(body, params, args, &call.span))
    }

    /// Expands an object-like macro that is not an integer constant.
    pub(crate) fn expand_object(&self, name: &str, at: &Expr) -> Option<Expr> {
        let body = self.object_body(name)?;
        Some(substitute(body, &[], &[], &at.span))
    }

    /// Evaluates an integer constant expression (macros allowed), e.g. the
    /// initialiser of a `const int` global.
    pub(crate) fn eval_expr(&self, e: &Expr) -> Option<i64> {
        eval_with(e, &mut |n| self.values.get(n).copied().flatten())
    }

    /// Whether an operator of `name`'s parsed `body` has as an operand a
    /// macro whose expansion it regroups (its level looser than the slot,
    /// see [`Expr::operand_slots`], and not in parentheses in the body).
    fn regroups_a_macro(&self, name: &str, body: &Expr) -> bool {
        let Some(text) = self.table.object(name).map(|o| o.body.as_str()) else {
            return true;
        };
        // Spans of a parsed body are in the text `parse_expression_text`
        // wraps it in.
        let base = BODY_PREFIX.len();
        let bodies = |n: &str| {
            self.table
                .objects
                .iter()
                .filter(|o| o.name == n)
                .map(|o| o.body.clone())
                .collect()
        };
        let mut bad = false;
        body.walk(&mut |e: &Expr| {
            for (child, min) in e.operand_slots() {
                let ExprKind::Ident(n) = &child.kind else {
                    continue;
                };
                let Some(level) = crate::util::c_text::macro_level(n, &bodies) else {
                    continue;
                };
                let around = child
                    .span
                    .start
                    .checked_sub(base)
                    .zip(child.span.end.checked_sub(base))
                    .and_then(|(a, b)| Some((text.get(..a)?, text.get(b..)?)));
                let parenthesised = around.is_some_and(|(before, after)| {
                    before.trim_end().ends_with('(') && after.trim_start().starts_with(')')
                });
                if level < min && !parenthesised {
                    bad = true;
                }
            }
        });
        bad
    }

    fn value_of(
        &self,
        name: &str,
        memo: &mut HashMap<String, Option<i64>>,
        visiting: &mut Vec<String>,
    ) -> Option<i64> {
        if let Some(v) = memo.get(name) {
            return *v;
        }
        if visiting.len() >= MAX_EVAL_DEPTH || visiting.iter().any(|v| v == name) {
            return None;
        }
        let body = self.object_body(name)?;
        // The value of the pasted tokens: a macro in the body that this
        // body's operators regroup (`#define SQ SB/BS` with `#define BS
        // NB*RS` is `SB/NB*RS`, not `SB/(NB*RS)`) has none.
        if self.regroups_a_macro(name, body) {
            memo.insert(name.to_string(), None);
            return None;
        }
        visiting.push(name.to_string());
        let v = eval_with(body, &mut |n| self.value_of(n, memo, visiting));
        visiting.pop();
        memo.insert(name.to_string(), v);
        v
    }
}

/// A preprocessing token: its text and, when it was copied from the
/// user's file, the byte range it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PpToken {
    pub text: String,
    pub origin: Option<Range<usize>>,
}

/// Punctuators of C, longest first.
const PUNCTUATORS: [&str; 23] = [
    "...", "<<=", ">>=", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "*=",
    "/=", "%=", "+=", "-=", "&=", "^=", "|=", "##",
];

/// Splits `text` into preprocessing tokens (comments and line splices are
/// blanks). With `base`, each token's origin is its range in the user's
/// file, `text` starting at byte `base`.
pub(crate) fn lex(text: &str, base: Option<usize>) -> Vec<PpToken> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() || c == b'\\' {
            i += 1;
            continue;
        }
        if text[i..].starts_with("//") {
            i = text[i..].find('\n').map_or(b.len(), |k| i + k);
            continue;
        }
        if text[i..].starts_with("/*") {
            i = text[i + 2..].find("*/").map_or(b.len(), |k| i + 2 + k + 2);
            continue;
        }
        let start = i;
        i = token_end(text, i);
        out.push(PpToken {
            text: text[start..i].to_string(),
            origin: base.map(|b0| b0 + start..b0 + i),
        });
    }
    out
}

/// The end of the preprocessing token that starts at byte `i` of `text`
/// (not a blank or a comment): a name, a pp-number, a character or
/// string literal, a punctuator, or any other single character.
pub(crate) fn token_end(text: &str, start: usize) -> usize {
    let b = text.as_bytes();
    let mut i = start;
    let c = b[i];
    if c.is_ascii_alphabetic() || c == b'_' {
        while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
            i += 1;
        }
    } else if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) {
        // A pp-number: digits, letters, `_`, `.`, and a sign after an
        // exponent letter.
        i += 1;
        while i < b.len() {
            let d = b[i];
            let exponent_sign =
                (d == b'+' || d == b'-') && matches!(b[i - 1], b'e' | b'E' | b'p' | b'P');
            if exponent_sign || d.is_ascii_alphanumeric() || d == b'_' || d == b'.' {
                i += 1;
            } else {
                break;
            }
        }
    } else if c == b'"' || c == b'\'' {
        i += 1;
        while i < b.len() && b[i] != c {
            if b[i] == b'\\' {
                i += 1;
            }
            i += 1;
        }
        i = (i + 1).min(b.len());
    } else if let Some(p) = PUNCTUATORS.iter().find(|p| text[i..].starts_with(**p)) {
        i += p.len();
    } else {
        i += text[i..].chars().next().map_or(1, char::len_utf8);
    }
    while !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// The deepest nesting of macro expansions followed.
const MAX_EXPANSION_DEPTH: usize = 64;

impl Macros {
    /// Expands the macros of `tokens` as `cc` does (arguments expanded
    /// before substitution except next to `#` and `##`, the result
    /// rescanned, a macro never expanded inside its own expansion), except
    /// that object-like macros with an integer value stay names: they are
    /// the SCoP's parameters. `None` when a call is malformed (unbalanced,
    /// wrong number of arguments, variadic) or the expansion is too deep.
    pub(crate) fn expand_tokens(&self, tokens: &[PpToken]) -> Option<Vec<PpToken>> {
        let mut out = Vec::new();
        let mut disabled = Vec::new();
        self.expand_into(tokens, &mut disabled, &mut out, 0)?;
        Some(out)
    }

    /// Expands the use of a macro at `tokens[start]` with `def` as the
    /// definition of its name (the one in force there), the other macros
    /// from this table: the tokens it expands to, and how many tokens the
    /// use takes (the name, and the arguments of a function-like macro).
    /// `None` for a function-like macro without arguments there, or a
    /// malformed use (see [`Macros::expand_tokens`]).
    pub(crate) fn expand_use(
        &self,
        def: &Define,
        tokens: &[PpToken],
        start: usize,
    ) -> Option<(Vec<PpToken>, usize)> {
        let body = lex(&def.body, None);
        let mut disabled = vec![def.name.clone()];
        let mut out = Vec::new();
        let Some(params) = &def.params else {
            self.expand_into(&body, &mut disabled, &mut out, 1)?;
            return Some((out, 1));
        };
        if tokens.get(start + 1).is_none_or(|t| t.text != "(")
            || params.iter().any(|p| p == "..." || p.ends_with("..."))
        {
            return None;
        }
        let (args, next) = split_arguments(tokens, start + 2)?;
        let args = if params.is_empty() && args.len() == 1 && args[0].is_empty() {
            Vec::new()
        } else {
            args
        };
        if args.len() != params.len() {
            return None;
        }
        let substituted = self.substitute_tokens(&body, params, &args, &mut Vec::new(), 1)?;
        self.expand_into(&substituted, &mut disabled, &mut out, 1)?;
        Some((out, next - start))
    }

    fn expand_into(
        &self,
        tokens: &[PpToken],
        disabled: &mut Vec<String>,
        out: &mut Vec<PpToken>,
        depth: usize,
    ) -> Option<()> {
        if depth > MAX_EXPANSION_DEPTH {
            return None;
        }
        let mut i = 0;
        while i < tokens.len() {
            let t = &tokens[i];
            let name = t.text.as_str();
            let is_ident = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
            if !is_ident || disabled.iter().any(|d| d == name) {
                out.push(t.clone());
                i += 1;
                continue;
            }
            if let Some(f) = self.table.function(name)
                && tokens.get(i + 1).is_some_and(|n| n.text == "(")
            {
                let (args, next) = split_arguments(tokens, i + 2)?;
                if f.params.iter().any(|p| p == "..." || p.ends_with("...")) {
                    return None;
                }
                let args = if f.params.is_empty() && args.len() == 1 && args[0].is_empty() {
                    Vec::new()
                } else {
                    args
                };
                if args.len() != f.params.len() {
                    return None;
                }
                let body = lex(&f.body, None);
                let substituted =
                    self.substitute_tokens(&body, &f.params, &args, disabled, depth)?;
                disabled.push(name.to_string());
                let r = self.expand_into(&substituted, disabled, out, depth + 1);
                disabled.pop();
                r?;
                i = next;
                continue;
            }
            if let Some(o) = self.table.object(name)
                && o.value.is_none()
            {
                let body = lex(&o.body, None);
                disabled.push(name.to_string());
                let r = self.expand_into(&body, disabled, out, depth + 1);
                disabled.pop();
                r?;
                i += 1;
                continue;
            }
            out.push(t.clone());
            i += 1;
        }
        Some(())
    }

    /// `text` with the calls of function-like macros in it expanded (the
    /// tokens separated by blanks); `text` itself when a call is malformed.
    /// Object-like macros stay names.
    pub(crate) fn expand_calls_text(&self, text: &str) -> String {
        let tokens = lex(text, None);
        if !tokens
            .iter()
            .any(|t| self.table.function(&t.text).is_some())
        {
            return text.to_string();
        }
        let mut out = Vec::new();
        let mut disabled: Vec<String> = self.table.objects.iter().map(|o| o.name.clone()).collect();
        match self.expand_into(&tokens, &mut disabled, &mut out, 0) {
            Some(()) => out
                .iter()
                .map(|t| t.text.as_str())
                .collect::<Vec<_>>()
                .join(" "),
            None => text.to_string(),
        }
    }

    /// The body of a function-like macro with its parameters replaced.
    fn substitute_tokens(
        &self,
        body: &[PpToken],
        params: &[String],
        args: &[Vec<PpToken>],
        disabled: &mut Vec<String>,
        depth: usize,
    ) -> Option<Vec<PpToken>> {
        let param = |t: &PpToken| params.iter().position(|p| *p == t.text);
        let mut out: Vec<PpToken> = Vec::new();
        let mut k = 0;
        while k < body.len() {
            let t = &body[k];
            // `# param`: the argument's spelling as a string literal.
            if t.text == "#"
                && let Some(p) = body.get(k + 1).and_then(param)
            {
                let spelled: Vec<&str> = args[p].iter().map(|a| a.text.as_str()).collect();
                let escaped = spelled.join(" ").replace('\\', "\\\\").replace('"', "\\\"");
                out.push(PpToken {
                    text: format!("\"{escaped}\""),
                    origin: None,
                });
                k += 2;
                continue;
            }
            // `left ## right`: the last token of the left and the first of
            // the right are glued into one (arguments not expanded).
            if t.text == "##" {
                let right: Vec<PpToken> = match body.get(k + 1) {
                    Some(r) => match param(r) {
                        Some(p) => args[p].clone(),
                        None => vec![r.clone()],
                    },
                    None => Vec::new(),
                };
                let mut right = right.into_iter();
                match (out.pop(), right.next()) {
                    (Some(l), Some(r)) => {
                        let glued = format!("{}{}", l.text, r.text);
                        let mut toks = lex(&glued, None);
                        if toks.len() != 1 {
                            return None;
                        }
                        out.append(&mut toks);
                    }
                    (Some(l), None) => out.push(l),
                    (None, Some(r)) => out.push(PpToken {
                        text: r.text,
                        origin: None,
                    }),
                    (None, None) => {}
                }
                out.extend(right);
                k += 2;
                continue;
            }
            match param(t) {
                Some(p) => {
                    let pasted_next = body.get(k + 1).is_some_and(|n| n.text == "##");
                    if pasted_next {
                        out.extend(args[p].iter().cloned());
                    } else {
                        let mut expanded = Vec::new();
                        self.expand_into(&args[p], disabled, &mut expanded, depth + 1)?;
                        out.extend(expanded);
                    }
                }
                None => out.push(PpToken {
                    text: t.text.clone(),
                    origin: None,
                }),
            }
            k += 1;
        }
        Some(out)
    }

    /// Expands the declarator `source[span]`, a call of a function-like
    /// macro (`POLYBENCH_2D(A, NI, NJ, ni, nj)`), into the declarator it
    /// stands for. The name must be a token of the user's file; nodes made
    /// only of the user's tokens keep their spans, the others take `span`
    /// and are marked `from_macro`, and so is the declarator.
    pub(crate) fn expand_declarator(&self, source: &str, span: Range<usize>) -> Option<Declarator> {
        let tokens = lex(source.get(span.clone())?, Some(span.start));
        let expanded = self.expand_tokens(&tokens)?;
        // The text `int ` + tokens separated by blanks.
        let spelled = Spelled::new(&expanded, "int ".len());
        let mut dc = parse_declarator_text(&spelled.text)?;
        let map = |r: &Range<usize>| spelled.origin(r);
        dc.name_span = map(&dc.name_span)?;
        for (size, text) in dc.dims.iter_mut() {
            if let Some(e) = size {
                remap_spans(e, &map, &span);
            }
            *text = text.trim().to_string();
        }
        dc.span = span;
        dc.from_macro = true;
        Some(dc)
    }
}

/// The tokens of an expansion spelled as C text (separated by blanks,
/// after a prefix of `offset` bytes that the text is parsed behind), and
/// where each token sits in it.
pub(crate) struct Spelled<'t> {
    pub text: String,
    tokens: &'t [PpToken],
    at: Vec<usize>,
}

impl<'t> Spelled<'t> {
    pub fn new(tokens: &'t [PpToken], offset: usize) -> Spelled<'t> {
        let mut text = String::new();
        let mut at = Vec::with_capacity(tokens.len());
        for t in tokens {
            if !text.is_empty() {
                text.push(' ');
            }
            at.push(offset + text.len());
            text.push_str(&t.text);
        }
        Spelled { text, tokens, at }
    }

    /// The range of the user's file that the range `r` of the parsed text
    /// (prefix included) was copied from: `None` unless every token in it
    /// is the user's, in order.
    pub fn origin(&self, r: &Range<usize>) -> Option<Range<usize>> {
        let origins: Vec<&Range<usize>> = (0..self.tokens.len())
            .filter(|&k| self.at[k] >= r.start && self.at[k] + self.tokens[k].text.len() <= r.end)
            .map(|k| self.tokens[k].origin.as_ref())
            .collect::<Option<_>>()?;
        let (first, last) = (origins.first()?, origins.last()?);
        let in_order = origins.windows(2).all(|w| w[0].end <= w[1].start);
        in_order.then_some(first.start..last.end)
    }
}

/// The arguments of a macro call whose `(` is right before `tokens[start]`,
/// split at top-level commas, and the index after the closing `)`.
fn split_arguments(tokens: &[PpToken], start: usize) -> Option<(Vec<Vec<PpToken>>, usize)> {
    let mut args = vec![Vec::new()];
    let mut depth = 0usize;
    let mut k = start;
    while k < tokens.len() {
        let t = &tokens[k];
        match t.text.as_str() {
            ")" if depth == 0 => return Some((args, k + 1)),
            "," if depth == 0 => args.push(Vec::new()),
            _ => {
                match t.text.as_str() {
                    "(" => depth += 1,
                    ")" => depth -= 1,
                    _ => {}
                }
                args.last_mut()?.push(t.clone());
            }
        }
        k += 1;
    }
    None
}

/// Gives every node of `e` the user's span `map` finds for it, or `call`
/// and the `from_macro` mark.
pub(crate) fn remap_spans(
    e: &mut Expr,
    map: &dyn Fn(&Range<usize>) -> Option<Range<usize>>,
    call: &Range<usize>,
) {
    match map(&e.span) {
        Some(r) => {
            e.span = r;
            e.from_macro = false;
        }
        None => {
            e.span = call.clone();
            e.from_macro = true;
        }
    }
    for c in children_mut(e) {
        remap_spans(c, map, call);
    }
}

/// Marks every node of `e` as coming from a macro.
fn mark_from_macro(e: &mut Expr) {
    e.from_macro = true;
    for c in children_mut(e) {
        mark_from_macro(c);
    }
}

/// The direct sub-expressions of `e`.
fn children_mut(e: &mut Expr) -> Vec<&mut Expr> {
    match &mut e.kind {
        ExprKind::Ident(_) | ExprKind::Int(_) | ExprKind::OtherLiteral => Vec::new(),
        ExprKind::Unary(_, a)
        | ExprKind::Cast(_, a)
        | ExprKind::Update(_, a)
        | ExprKind::AddrOf(a)
        | ExprKind::Deref(a)
        | ExprKind::Field(a) => vec![a.as_mut()],
        ExprKind::Binary(_, a, b)
        | ExprKind::Subscript(a, b)
        | ExprKind::Assign(_, a, b)
        | ExprKind::Comma(a, b) => vec![a.as_mut(), b.as_mut()],
        ExprKind::Cond(a, b, c) => vec![a.as_mut(), b.as_mut(), c.as_mut()],
        ExprKind::Call(callee, args) => {
            let mut v = vec![callee.as_mut()];
            v.extend(args.iter_mut());
            v
        }
        ExprKind::Other(_, subs) => subs.iter_mut().collect(),
    }
}

/// Evaluates an integer constant expression with C semantics (checked;
/// division truncates toward zero; division by zero has no value), asking
/// `names` for the value of identifiers.
fn eval_with(e: &Expr, names: &mut dyn FnMut(&str) -> Option<i64>) -> Option<i64> {
    match &e.kind {
        ExprKind::Int(v) => Some(*v),
        ExprKind::Ident(n) => names(n),
        ExprKind::Unary(UnOp::Neg, a) => eval_with(a, names)?.checked_neg(),
        ExprKind::Unary(UnOp::Plus, a) => eval_with(a, names),
        ExprKind::Cast(ty, a) if super::affine::is_signed_integer_type_text(ty) => {
            eval_with(a, names)
        }
        ExprKind::Binary(op, a, b) => {
            let x = eval_with(a, names)?;
            let y = eval_with(b, names)?;
            match op {
                BinOp::Add => x.checked_add(y),
                BinOp::Sub => x.checked_sub(y),
                BinOp::Mul => x.checked_mul(y),
                BinOp::Div => x.checked_div(y),
                BinOp::Mod => x.checked_rem(y),
                BinOp::Shl if (0..63).contains(&y) => x.checked_mul(1i64 << y),
                _ => None,
            }
        }
        _ => None,
    }
}

fn substitute(
    body: &Expr,
    params: &[String],
    args: &[Expr],
    span: &std::ops::Range<usize>,
) -> Expr {
    if let ExprKind::Ident(n) = &body.kind
        && let Some(k) = params.iter().position(|p| p == n)
    {
        return args[k].clone();
    }
    let sub = |e: &Expr| Box::new(substitute(e, params, args, span));
    let kind = match &body.kind {
        ExprKind::Ident(_) | ExprKind::Int(_) | ExprKind::OtherLiteral => body.kind.clone(),
        ExprKind::Unary(op, a) => ExprKind::Unary(*op, sub(a)),
        ExprKind::Binary(op, a, b) => ExprKind::Binary(*op, sub(a), sub(b)),
        ExprKind::Cond(a, b, c) => ExprKind::Cond(sub(a), sub(b), sub(c)),
        ExprKind::Subscript(a, b) => ExprKind::Subscript(sub(a), sub(b)),
        ExprKind::Call(a, xs) => ExprKind::Call(
            sub(a),
            xs.iter()
                .map(|x| substitute(x, params, args, span))
                .collect(),
        ),
        ExprKind::Cast(t, a) => ExprKind::Cast(t.clone(), sub(a)),
        ExprKind::Assign(op, a, b) => ExprKind::Assign(*op, sub(a), sub(b)),
        ExprKind::Update(inc, a) => ExprKind::Update(*inc, sub(a)),
        ExprKind::AddrOf(a) => ExprKind::AddrOf(sub(a)),
        ExprKind::Deref(a) => ExprKind::Deref(sub(a)),
        ExprKind::Field(a) => ExprKind::Field(sub(a)),
        ExprKind::Comma(a, b) => ExprKind::Comma(sub(a), sub(b)),
        ExprKind::Other(k, xs) => ExprKind::Other(
            k.clone(),
            xs.iter()
                .map(|x| substitute(x, params, args, span))
                .collect(),
        ),
    };
    Expr {
        kind,
        span: span.clone(),
        from_macro: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def(name: &str, params: Option<&[&str]>, body: &str) -> Define {
        Define {
            name: name.into(),
            params: params.map(|p| p.iter().map(|s| s.to_string()).collect()),
            body: body.into(),
            span: 0..0,
        }
    }

    #[test]
    fn values_use_other_macros_and_overrides() {
        let defs = vec![
            def("N", None, "100"),
            def("M", None, "(N + 1) * 2"),
            def("T", None, "double"),
        ];
        let m = Macros::build(&defs, &[]);
        assert_eq!(m.object("M").and_then(|o| o.value), Some(202));
        assert_eq!(m.object("T").and_then(|o| o.value), None);
        let m = Macros::build(&defs, &[("N".into(), "10".into())]);
        assert_eq!(m.object("N").and_then(|o| o.value), Some(10));
        assert_eq!(
            m.object("N").map(|o| o.origin),
            Some(ParamOrigin::CommandLine)
        );
        assert_eq!(m.object("M").and_then(|o| o.value), Some(22));
    }

    /// The value is that of the pasted tokens (cc -E by hand): `SR` is
    /// `4*16/16` = 4; `SQ` is `16/4*16` = 64, which its tree would read as
    /// `16/(4*16)` = 0: it has no value; `SP` is `16/(4*16)` = 0.
    #[test]
    fn a_macro_that_its_body_regroups_gives_no_value() {
        let defs = vec![
            def("NB", None, "4"),
            def("RS", None, "16"),
            def("BS", None, "NB*RS"),
            def("SB", None, "16"),
            def("SR", None, "BS/SB"),
            def("SQ", None, "SB/BS"),
            def("SP", None, "SB/(BS)"),
        ];
        let m = Macros::build(&defs, &[]);
        let value = |n: &str| m.object(n).and_then(|o| o.value);
        assert_eq!(value("BS"), Some(64));
        assert_eq!(value("SR"), Some(4));
        assert_eq!(value("SQ"), None);
        assert_eq!(value("SP"), Some(0));
    }

    #[test]
    fn long_macro_chains_are_evaluated_once() {
        // A_k = (A_{k+1} + A_{k+1}): naive evaluation would take 2^40 steps.
        let mut defs: Vec<Define> = (0..40)
            .map(|k| {
                def(
                    &format!("A{k}"),
                    None,
                    &format!("(A{} + A{})", k + 1, k + 1),
                )
            })
            .collect();
        defs.push(def("A40", None, "1"));
        let m = Macros::build(&defs, &[]);
        assert_eq!(m.object("A39").and_then(|o| o.value), Some(2));
        // The chain from A0 is 41 long: within the limit, and 2^40 fits.
        assert_eq!(m.object("A0").and_then(|o| o.value), Some(1i64 << 40));
    }

    #[test]
    fn self_reference_has_no_value() {
        let defs = vec![def("A", None, "B"), def("B", None, "A + 1")];
        let m = Macros::build(&defs, &[]);
        assert_eq!(m.object("A").and_then(|o| o.value), None);
    }

    #[test]
    fn expands_function_like_macro() {
        let defs = vec![def("MIN", Some(&["a", "b"]), "((a) < (b) ? (a) : (b))")];
        let m = Macros::build(&defs, &[]);
        let arg = |n: &str, at: usize| Expr {
            kind: ExprKind::Ident(n.into()),
            span: at..at + 1,
            from_macro: false,
        };
        let call = Expr {
            kind: ExprKind::Other("call".into(), vec![]),
            span: 5..20,
            from_macro: false,
        };
        let e = m
            .expand_call("MIN", &call, &[arg("x", 9), arg("y", 12)])
            .expect("expands");
        assert!(matches!(e.kind, ExprKind::Cond(..)));
        assert_eq!(e.span, 5..20);
        assert!(m.expand_call("MIN", &call, &[arg("x", 9)]).is_none());
    }

    fn fdef(name: &str, params: &[&str], body: &str) -> Define {
        def(name, Some(params), body)
    }

    fn expand(m: &Macros, text: &str) -> Option<String> {
        let toks = m.expand_tokens(&lex(text, Some(0)))?;
        Some(
            toks.iter()
                .map(|t| t.text.as_str())
                .collect::<Vec<_>>()
                .join(" "),
        )
    }

    #[test]
    fn token_expansion_follows_cc() {
        let defs = vec![
            def("N", None, "100"),
            def("EMPTY", None, ""),
            def("T", None, "double"),
            fdef("SEL", &["x", "y"], "x"),
            fdef("ARR", &["v", "d"], "v[EMPTY SEL(d, 0) + 1]"),
            fdef("CAT", &["a", "b"], "a ## b"),
            fdef("STR", &["a"], "#a"),
            fdef("SELF", &["x"], "SELF(x) + 1"),
            fdef("PAIR", &["a"], "a"),
        ];
        let m = Macros::build(&defs, &[]);
        // Integer-valued macros stay names (they are parameters); empty
        // bodies vanish; nested calls expand.
        assert_eq!(expand(&m, "ARR(A, N)").as_deref(), Some("A [ N + 1 ]"));
        assert_eq!(expand(&m, "T x").as_deref(), Some("double x"));
        assert_eq!(expand(&m, "CAT(x, 1)").as_deref(), Some("x1"));
        assert_eq!(expand(&m, "STR(a + b)").as_deref(), Some("\"a + b\""));
        // A macro is not expanded inside its own expansion.
        assert_eq!(expand(&m, "SELF(2)").as_deref(), Some("SELF ( 2 ) + 1"));
        // Commas inside parentheses do not split arguments.
        assert_eq!(expand(&m, "PAIR((a, b))").as_deref(), Some("( a , b )"));
        // Wrong argument counts and unbalanced calls do not expand.
        assert_eq!(expand(&m, "SEL(1)"), None);
        assert_eq!(expand(&m, "SEL(1, 2"), None);
    }

    #[test]
    fn expanded_declarators_keep_the_users_spans() {
        let defs = vec![
            def("PAD", None, "0"),
            fdef("ARR_2D", &["v", "d1", "d2"], "v[d1 + PAD][d2]"),
        ];
        let m = Macros::build(&defs, &[]);
        let src = "double ARR_2D(Img, rows, cols);";
        let call = 7..src.len() - 1;
        let dc = m.expand_declarator(src, call.clone()).expect("expands");
        assert_eq!(dc.name, "Img");
        assert_eq!(&src[dc.name_span.clone()], "Img");
        assert!(dc.from_macro);
        assert_eq!(dc.span, call);
        assert_eq!(dc.dims.len(), 2);
        // `rows + PAD` mixes the user's token with the macro's: the call's
        // span, marked; `cols` is the user's own.
        let (Some(d0), _) = &dc.dims[0] else {
            panic!("a size")
        };
        assert!(d0.from_macro);
        assert_eq!(d0.span, call);
        let (Some(d1), text) = &dc.dims[1] else {
            panic!("a size")
        };
        assert!(!d1.from_macro);
        assert_eq!(&src[d1.span.clone()], "cols");
        assert_eq!(text, "cols");
        // A name that comes from the macro's body is refused.
        let defs = vec![fdef("HIDDEN", &["d"], "secret[d]")];
        let m = Macros::build(&defs, &[]);
        let src = "double HIDDEN(4);";
        assert!(m.expand_declarator(src, 7..16).is_none());
    }
}
