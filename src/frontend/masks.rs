//! Text that `cc` compiles but tree-sitter cannot parse, and what the
//! parser reads there instead ([`Masks`]): each such range gets a text of
//! the same length, so that every byte offset of the file stays valid and
//! every edit still lands on the user's text.
//!
//! - Uses of qualifier and attribute macros (`#define RESTRICT
//!   __restrict`, `#define UNUSED __attribute__((unused))`, an empty
//!   `#define INLINE`, `#define ALIGN(n) __attribute__((aligned(n)))`):
//!   the parser reads the qualifiers they expand to when these fit in the
//!   use (`RESTRICT` reads as `restrict`), else blanks; attributes and
//!   qualifiers that only allow more (`restrict`, `const`, `inline`) may
//!   be dropped, never `static`, `extern`, `volatile`, `_Atomic` or a
//!   thread-local class (a use that cannot keep them is not masked). The
//!   `__restrict` keyword reads as `restrict` too (tree-sitter does not
//!   know it between brackets).
//! - `_Pragma("...")` operators, and uses of macros that expand only to
//!   them (`#define OMP_FOR _Pragma("omp parallel for")`): blanks, and a
//!   pragma at the span of the operator or the use, so that a loop after
//!   it is marked parallel like one after `#pragma` (see `parallel`).
//! - Loop headers written through a macro (`#define FOR(i, a, b) for (i =
//!   (a); i < (b); i++)`, used as `FOR(i, 0, N) body`): the parser reads
//!   `for(;;)`, and the header is the expansion's, its nodes mapped back
//!   to the arguments' spans where they are the user's tokens (see
//!   [`super::syntax::MacroLoopHeader`]).
//!
//! A use is masked only with the definition in force at its position (or,
//! when that is unknown, with every definition of the file agreeing).
//! Masks are made only for a file that does not parse as it is, so that
//! the reading of a file that parses never changes. This module does not
//! parse C itself (that is `syntax`'s job); it reads tokens.

use std::collections::HashMap;
use std::ops::Range;

use super::macros::{Macros, PpToken, Spelled, remap_spans, token_end};
use super::preproc::{Evaluated, MacroState};
use super::syntax::{Define, ForInit, MacroLoopHeader, Masks, Pragma};

/// The code tokens of a file (outside comments and preprocessor
/// directives, each with its range) and the ranges of its directive lines
/// (line splices included).
pub struct Scan {
    pub tokens: Vec<PpToken>,
    pub directives: Vec<Range<usize>>,
}

/// Splits `source` into the tokens of its code and its directive lines.
pub(crate) fn scan(source: &str) -> Scan {
    let b = source.as_bytes();
    let mut tokens = Vec::new();
    let mut directives = Vec::new();
    let mut at_line_start = true;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\n' => {
                at_line_start = true;
                i += 1;
            }
            b' ' | b'\t' | b'\r' | 0x0b | 0x0c => i += 1,
            b'\\' if splice_len(b, i) > 0 => i += splice_len(b, i),
            b'/' if b.get(i + 1) == Some(&b'*') => i = block_comment_end(source, i),
            b'/' if b.get(i + 1) == Some(&b'/') => i = line_end(b, i),
            b'#' if at_line_start => {
                let end = directive_end(source, i);
                directives.push(i..end);
                i = end;
            }
            _ => {
                at_line_start = false;
                let end = token_end(source, i);
                tokens.push(PpToken {
                    text: source[i..end].to_string(),
                    origin: Some(i..end),
                });
                i = end;
            }
        }
    }
    Scan { tokens, directives }
}

/// The length of a line splice (`\` and a line break) at byte `i`, or 0.
fn splice_len(b: &[u8], i: usize) -> usize {
    match (b.get(i), b.get(i + 1), b.get(i + 2)) {
        (Some(b'\\'), Some(b'\n'), _) => 2,
        (Some(b'\\'), Some(b'\r'), Some(b'\n')) => 3,
        _ => 0,
    }
}

/// The end of the block comment that starts at byte `i`.
fn block_comment_end(source: &str, i: usize) -> usize {
    source[i + 2..]
        .find("*/")
        .map_or(source.len(), |k| i + 2 + k + 2)
}

/// The position of the line break that ends the line of byte `i`, line
/// splices followed.
fn line_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i] != b'\n' {
        i += splice_len(b, i).max(1);
    }
    i.min(b.len())
}

/// The end of the directive that starts at byte `i` (its `#`): the line
/// break that ends it, after line splices and comments that span lines.
fn directive_end(source: &str, mut i: usize) -> usize {
    let b = source.as_bytes();
    while i < b.len() {
        match b[i] {
            b'\n' => return i,
            b'\\' if splice_len(b, i) > 0 => i += splice_len(b, i),
            b'/' if b.get(i + 1) == Some(&b'*') => i = block_comment_end(source, i),
            b'/' if b.get(i + 1) == Some(&b'/') => return line_end(b, i),
            b'"' | b'\'' => i = token_end(source, i),
            _ => i += 1,
        }
    }
    b.len()
}

/// The masks of a file that does not parse as it is: see the module doc.
/// `evaluated` says which macro is in force where, `file_defines` are all
/// the `#define`s of the file (in every branch, for a name whose meaning
/// is unknown at a use) and `command_line` the `-D` macros (in force
/// everywhere).
pub fn plan(
    scan: &Scan,
    evaluated: &Evaluated,
    file_defines: &[Define],
    command_line: &[(String, String)],
) -> Masks {
    let macros = Macros::build(&evaluated.all_active_defines(), command_line);
    let command: Vec<Define> = command_line
        .iter()
        .map(|(name, body)| Define {
            name: name.clone(),
            params: None,
            body: body.clone(),
            span: 0..0,
        })
        .collect();
    let mut planner = Planner {
        macros: &macros,
        masks: Masks::default(),
        cache: HashMap::new(),
    };
    let tokens = &scan.tokens;
    let mut k = 0;
    while k < tokens.len() {
        let t = &tokens[k];
        let Some(at) = t.origin.clone() else {
            k += 1;
            continue;
        };
        if t.text == "_Pragma" {
            k += planner.pragma_operator(tokens, k).unwrap_or(1);
            continue;
        }
        if t.text == "__restrict" {
            planner.replace(at, "restrict".to_string());
            k += 1;
            continue;
        }
        declarator_numbers(&macros, tokens, k, &mut planner.masks);
        let candidates: Vec<&Define> = match command.iter().find(|d| d.name == t.text) {
            Some(d) => vec![d],
            None => match evaluated.state_at(&t.text, at.start) {
                MacroState::Undefined => Vec::new(),
                MacroState::Defined(d) => vec![d],
                MacroState::Unknown => file_defines.iter().filter(|d| d.name == t.text).collect(),
            },
        };
        let taken = match candidates.as_slice() {
            [] => None,
            defs => planner.macro_use(tokens, k, defs, &scan.directives),
        };
        k += taken.unwrap_or(1);
    }
    planner
        .masks
        .replacements
        .sort_by_key(|(r, _)| (r.start, r.end));
    planner.masks
}

/// A use at `tokens[k]` of a declarator macro (a function-like macro
/// whose body starts `PARAM [`, as PolyBench's `POLYBENCH_1D(var, dim1,
/// ddim1)`) with a number for an argument (`POLYBENCH_1D(tmp, 1, n)`, as
/// polyfold writes a shrunk extent): tree-sitter reads such a use as a
/// function declarator, whose parameters cannot be numbers, so each
/// number argument reads as a name of its length (`_`). The declarator
/// itself is the expansion of the user's text (see
/// [`Macros::expand_declarator`]).
fn declarator_numbers(macros: &Macros, tokens: &[PpToken], k: usize, masks: &mut Masks) {
    let Some(def) = macros.table.function(&tokens[k].text) else {
        return;
    };
    let body = super::macros::lex(&def.body, None);
    let declarator = matches!(body.as_slice(), [first, open, ..]
        if open.text == "[" && def.params.contains(&first.text));
    if !declarator || tokens.get(k + 1).is_none_or(|t| t.text != "(") {
        return;
    }
    let mut depth = 0usize;
    let mut arg: Vec<&PpToken> = Vec::new();
    let mut numbers = Vec::new();
    for t in &tokens[k + 2..] {
        match t.text.as_str() {
            "(" => depth += 1,
            ")" | "," if depth == 0 => {
                if let [one] = arg.as_slice()
                    && one.text.bytes().all(|b| b.is_ascii_digit())
                    && let Some(at) = one.origin.clone()
                {
                    numbers.push(at);
                }
                if t.text == ")" {
                    break;
                }
                arg.clear();
                continue;
            }
            ")" => depth -= 1,
            _ => {}
        }
        arg.push(t);
    }
    for at in numbers {
        let name = "_".repeat(at.end - at.start);
        if !masks
            .replacements
            .iter()
            .any(|(r, _)| r.start < at.end && at.start < r.end)
        {
            masks.replacements.push((at, name));
        }
    }
}

/// What the expansion of one macro use is, when the parser needs a mask
/// for it.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Expansion {
    /// Qualifiers, attributes and pragmas only (maybe nothing).
    Soft(Vec<Soft>),
    /// Exactly one `for (...)` header.
    Loop,
}

/// One part of a qualifier-like expansion.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Soft {
    /// A qualifier or storage class that changes what the declaration
    /// means: kept, or the use is not masked (`static`, `volatile`, ...).
    Keep(String),
    /// One that only allows more (`restrict`, `const`, `inline`, ...):
    /// dropping it reads the declaration more cautiously.
    Drop(&'static str),
    /// `__attribute__((...))`, `__declspec(...)`, `__extension__`:
    /// dropped.
    Attribute,
    /// `_Pragma("text")`: dropped, recorded as a pragma.
    Pragma(String),
}

struct Planner<'a> {
    macros: &'a Macros,
    masks: Masks,
    /// The expansion of each object-like definition (by its span and
    /// name): most uses are of a few macros.
    cache: HashMap<(Range<usize>, String), Option<Expansion>>,
}

impl Planner<'_> {
    fn replace(&mut self, range: Range<usize>, text: String) {
        self.masks.replacements.push((range, text));
    }

    /// `_Pragma ( "text" )` at `tokens[k]`: blanks and a pragma. The
    /// number of tokens it takes.
    fn pragma_operator(&mut self, tokens: &[PpToken], k: usize) -> Option<usize> {
        let [_, open, string, close] = tokens.get(k..k + 4)? else {
            return None;
        };
        let text = destringize(&string.text)?;
        if open.text != "(" || close.text != ")" {
            return None;
        }
        let span = tokens[k].origin.as_ref()?.start..close.origin.as_ref()?.end;
        self.masks.pragmas.push(Pragma {
            text,
            span: span.clone(),
        });
        self.replace(span, String::new());
        Some(4)
    }

    /// The use of a macro at `tokens[k]`, whose definition in force is one
    /// of `defs`: masked if the parser needs it. The number of tokens it
    /// takes, if masked.
    fn macro_use(
        &mut self,
        tokens: &[PpToken],
        k: usize,
        defs: &[&Define],
        directives: &[Range<usize>],
    ) -> Option<usize> {
        let mut expansions = Vec::new();
        for def in defs {
            let key = (def.span.clone(), def.name.clone());
            let cached = def
                .params
                .is_none()
                .then(|| self.cache.get(&key).cloned())
                .flatten();
            let (expansion, taken, expanded) = match cached {
                Some(e) => (e?, 1, Vec::new()),
                None => {
                    let (expanded, taken) = self.macros.expand_use(def, tokens, k)?;
                    let e = classify(&expanded);
                    if def.params.is_none() {
                        self.cache.insert(key, e.clone());
                    }
                    (e?, taken, expanded)
                }
            };
            expansions.push((expansion, taken, expanded));
        }
        let (first, taken, _) = expansions.first()?;
        let taken = *taken;
        if expansions.iter().any(|(e, t, _)| {
            *t != taken || std::mem::discriminant(e) != std::mem::discriminant(first)
        }) {
            return None;
        }
        let span = tokens[k].origin.as_ref()?.start..tokens[k + taken - 1].origin.as_ref()?.end;
        if directives
            .iter()
            .any(|d| d.start < span.end && span.start < d.end)
        {
            return None;
        }
        match first {
            Expansion::Loop => {
                let [(_, _, expanded)] = expansions.as_slice() else {
                    return None;
                };
                let expanded = if expanded.is_empty() {
                    self.macros.expand_use(defs[0], tokens, k)?.0
                } else {
                    expanded.clone()
                };
                let header = loop_header(&expanded, &span)?;
                const READ_AS: &str = "for(;;)";
                if span.len() < READ_AS.len() {
                    return None;
                }
                self.masks.loops.push(header);
                self.replace(span, READ_AS.to_string());
            }
            Expansion::Soft(_) => {
                let softs: Vec<&Vec<Soft>> = expansions
                    .iter()
                    .filter_map(|(e, _, _)| match e {
                        Expansion::Soft(s) => Some(s),
                        Expansion::Loop => None,
                    })
                    .collect();
                let text = replacement(&softs, span.len())?;
                for s in &softs {
                    for part in s.iter() {
                        if let Soft::Pragma(text) = part
                            && !self
                                .masks
                                .pragmas
                                .iter()
                                .any(|p| p.span == span && p.text == *text)
                        {
                            self.masks.pragmas.push(Pragma {
                                text: text.clone(),
                                span: span.clone(),
                            });
                        }
                    }
                }
                self.replace(span, text);
            }
        }
        Some(taken)
    }
}

/// The text of a string literal token without its quotes and escapes
/// (`"omp parallel for"` gives `omp parallel for`), as `_Pragma` reads it.
fn destringize(token: &str) -> Option<String> {
    let inner = token
        .trim_start_matches(['L', 'u', 'U', '8'])
        .strip_prefix('"')?
        .strip_suffix('"')?;
    Some(inner.replace("\\\"", "\"").replace("\\\\", "\\"))
}

/// What the expansion `tokens` is: qualifiers and the like, one loop
/// header, or neither (`None`: the parser reads it as it is).
fn classify(tokens: &[PpToken]) -> Option<Expansion> {
    if tokens.first().is_some_and(|t| t.text == "for")
        && tokens.get(1).is_some_and(|t| t.text == "(")
    {
        let close = matching_paren(tokens, 1)?;
        return (close + 1 == tokens.len()).then_some(Expansion::Loop);
    }
    let mut out = Vec::new();
    let mut k = 0;
    while k < tokens.len() {
        let t = tokens[k].text.as_str();
        let with_parens = |k: usize| {
            (tokens.get(k + 1).is_some_and(|n| n.text == "("))
                .then(|| matching_paren(tokens, k + 1))
                .flatten()
        };
        match t {
            "_Pragma" => {
                let close = with_parens(k)?;
                let [string] = &tokens[k + 2..close] else {
                    return None;
                };
                out.push(Soft::Pragma(destringize(&string.text)?));
                k = close + 1;
                continue;
            }
            "__attribute__" | "__attribute" | "__declspec" | "_Alignas" | "alignas" => {
                k = with_parens(k)? + 1;
                out.push(Soft::Attribute);
                continue;
            }
            "__extension__" => out.push(Soft::Attribute),
            "restrict" | "__restrict" | "__restrict__" => out.push(Soft::Drop("restrict")),
            "const" | "__const" | "__const__" => out.push(Soft::Drop("const")),
            "inline" | "__inline" | "__inline__" => out.push(Soft::Drop("inline")),
            "register" => out.push(Soft::Drop("register")),
            "_Noreturn" => out.push(Soft::Drop("_Noreturn")),
            "volatile" | "__volatile" | "__volatile__" => out.push(Soft::Keep("volatile".into())),
            "static" | "extern" | "_Atomic" | "_Thread_local" | "__thread" | "thread_local" => {
                out.push(Soft::Keep(t.to_string()))
            }
            _ => return None,
        }
        k += 1;
    }
    Some(Expansion::Soft(out))
}

/// The index of the `)` that closes the `(` at `tokens[open]`.
fn matching_paren(tokens: &[PpToken], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, t) in tokens.iter().enumerate().skip(open) {
        match t.text.as_str() {
            "(" => depth += 1,
            ")" => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// What the parser reads in place of a use of `len` bytes whose
/// definitions may expand to any of `softs`: the qualifiers every one
/// keeps (which must be the same), and those they all share that only
/// allow more, as long as they fit; `None` when the ones to keep do not.
fn replacement(softs: &[&Vec<Soft>], len: usize) -> Option<String> {
    let keeps = |s: &Vec<Soft>| -> Vec<String> {
        s.iter()
            .filter_map(|p| match p {
                Soft::Keep(k) => Some(k.clone()),
                _ => None,
            })
            .collect()
    };
    let first = softs.first()?;
    let kept = keeps(first);
    if softs.iter().any(|s| keeps(s) != kept) {
        return None;
    }
    let mut droppable: Vec<&'static str> = Vec::new();
    for part in first.iter() {
        if let Soft::Drop(d) = part
            && softs.iter().all(|s| s.contains(part))
            && !droppable.contains(d)
        {
            droppable.push(d);
        }
    }
    loop {
        let words: Vec<&str> = kept
            .iter()
            .map(String::as_str)
            .chain(droppable.iter().copied())
            .collect();
        let text = words.join(" ");
        if text.len() <= len {
            return Some(text);
        }
        droppable.pop()?;
    }
}

/// The loop header that the use at `span` expands to (`expanded`, a `for
/// (...)` header), its nodes mapped back to the user's spans.
fn loop_header(expanded: &[PpToken], span: &Range<usize>) -> Option<MacroLoopHeader> {
    let spelled = Spelled::new(expanded, super::syntax::FOR_HEADER_PREFIX.len());
    let (mut init, mut cond, mut update) = super::syntax::parse_for_header_text(&spelled.text)?;
    let map = |r: &Range<usize>| spelled.origin(r);
    match &mut init {
        ForInit::None => {}
        ForInit::Expr(e) => remap_spans(e, &map, span),
        ForInit::Decl(decl) => {
            decl.span = span.clone();
            for dc in decl.declarators.iter_mut() {
                dc.name_span = map(&dc.name_span).unwrap_or_else(|| span.clone());
                dc.span = span.clone();
                dc.from_macro = true;
                for (size, _) in dc.dims.iter_mut() {
                    if let Some(e) = size {
                        remap_spans(e, &map, span);
                    }
                }
                if let Some(e) = &mut dc.init {
                    remap_spans(e, &map, span);
                }
            }
        }
    }
    for e in cond.iter_mut().chain(update.iter_mut()) {
        remap_spans(e, &map, span);
    }
    Some(MacroLoopHeader {
        span: span.clone(),
        init,
        cond,
        update,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scan_skips_comments_and_directives() {
        let src = "#define A(x) \\\n  x + 1\nint /* # */ a; // b\n  # pragma omp for\nfor(;;);\n";
        let s = scan(src);
        let words: Vec<&str> = s.tokens.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(words, ["int", "a", ";", "for", "(", ";", ";", ")", ";"]);
        assert_eq!(s.directives.len(), 2);
        assert_eq!(&src[s.directives[0].clone()], "#define A(x) \\\n  x + 1");
        assert_eq!(&src[s.directives[1].clone()], "# pragma omp for");
    }

    fn toks(text: &str) -> Vec<PpToken> {
        super::super::macros::lex(text, None)
    }

    #[test]
    fn classifies_expansions() {
        assert_eq!(
            classify(&toks("__restrict")),
            Some(Expansion::Soft(vec![Soft::Drop("restrict")]))
        );
        assert_eq!(
            classify(&toks("static __inline__ __attribute__((always_inline))")),
            Some(Expansion::Soft(vec![
                Soft::Keep("static".into()),
                Soft::Drop("inline"),
                Soft::Attribute
            ]))
        );
        assert_eq!(
            classify(&toks("_Pragma(\"omp parallel for\")")),
            Some(Expansion::Soft(vec![Soft::Pragma(
                "omp parallel for".into()
            )]))
        );
        assert_eq!(classify(&toks("")), Some(Expansion::Soft(vec![])));
        assert_eq!(
            classify(&toks("for (i = (a); i < (b); i++)")),
            Some(Expansion::Loop)
        );
        assert_eq!(classify(&toks("for (i = 0; i < n; i++) if (ok)")), None);
        assert_eq!(classify(&toks("double")), None);
        assert_eq!(classify(&toks("100")), None);
    }

    /// The masks of `source` (no `-D`, no headers).
    fn masks_of(source: &str) -> Masks {
        let file = super::super::syntax::parse_file(source).expect("parser");
        let evaluated =
            super::super::preproc::evaluate(&file.pp, &file.defines, &[], &Default::default());
        plan(&scan(source), &evaluated, &file.defines, &[])
    }

    #[test]
    fn plans_masks_for_qualifiers_pragmas_and_loops() {
        let src = "#define RESTRICT __restrict\n#define R __restrict\n#define FOR(i, n) for (i = 0; i < (n); i++)\n#define OMP _Pragma(\"omp for\")\nvoid f(int n, double *RESTRICT p, double *R q) {\n  int i;\n  OMP\n  FOR(i, n) p[i] = 0;\n  _Pragma(\"GCC ivdep\") for (i = 0; i < n; i++) q[i] = 1;\n}\n";
        let m = masks_of(src);
        let at = |needle: &str| {
            let k = src.rfind(needle).expect("needle");
            k..k + needle.len()
        };
        assert_eq!(
            m.replacements,
            vec![
                (
                    at("RESTRICT p").start..at("RESTRICT p").start + 8,
                    "restrict".to_string()
                ),
                (at("R q").start..at("R q").start + 1, String::new()),
                (at("OMP"), String::new()),
                (at("FOR(i, n)"), "for(;;)".to_string()),
                (at("_Pragma(\"GCC ivdep\")"), String::new()),
            ]
        );
        let pragmas: Vec<(&str, Range<usize>)> = m
            .pragmas
            .iter()
            .map(|p| (p.text.as_str(), p.span.clone()))
            .collect();
        assert_eq!(
            pragmas,
            [
                ("omp for", at("OMP")),
                ("GCC ivdep", at("_Pragma(\"GCC ivdep\")"))
            ]
        );
        // The loop header: the iterator and the bound are the user's
        // tokens (the arguments), the rest is the macro's.
        let [header] = m.loops.as_slice() else {
            panic!("one loop header: {:?}", m.loops)
        };
        assert_eq!(header.span, at("FOR(i, n)"));
        let Some(cond) = &header.cond else {
            panic!("a condition")
        };
        assert!(cond.from_macro);
        let super::super::syntax::ExprKind::Binary(_, lhs, rhs) = &cond.kind else {
            panic!("i < (n): {cond:?}")
        };
        assert_eq!(&src[lhs.span.clone()], "i");
        assert!(!lhs.from_macro);
        assert_eq!(&src[rhs.span.clone()], "n");
        // A file that parses gets no mask; a use before the definition is
        // not a macro use.
        let file = super::super::syntax::parse_file_masked(src, &m).expect("parser");
        assert!(file.first_error.is_none());
        assert!(masks_of("#define R __restrict\nint x;\n").is_empty());
        assert!(masks_of("void f(double *R p);\n#define R __restrict\n").is_empty());
    }

    #[test]
    fn replacements_fit_and_keep_what_matters() {
        let restrict = vec![Soft::Drop("restrict")];
        let nothing = vec![];
        assert_eq!(replacement(&[&restrict], 8).as_deref(), Some("restrict"));
        assert_eq!(replacement(&[&restrict], 5).as_deref(), Some(""));
        // Two definitions: only what both have.
        assert_eq!(replacement(&[&restrict, &nothing], 8).as_deref(), Some(""));
        let st = vec![Soft::Keep("static".into()), Soft::Drop("inline")];
        assert_eq!(replacement(&[&st], 6).as_deref(), Some("static"));
        assert_eq!(replacement(&[&st], 13).as_deref(), Some("static inline"));
        assert_eq!(replacement(&[&st], 5), None);
        let other = vec![Soft::Drop("inline")];
        assert_eq!(replacement(&[&st, &other], 20), None);
    }
}
