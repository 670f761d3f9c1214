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
//!
//! Headers: an active `#include "NAME"` is looked up in the directory of
//! the file that includes it, then in each `-I` directory in order; an
//! `#include <NAME>` only in the `-I` directories (a header found nowhere
//! there is a system header, and is not read). A header's `#define`s,
//! `#undef`s and conditionals are walked in place, as `cc` does; its
//! functions and globals are not the user's file and are never analysed.
//! Every `#define` read from a header carries the span of the `#include`
//! line of the user's file that brought it in: no span ever points into a
//! header, and no edit can land there.

use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::path::{Path, PathBuf};

use super::syntax::parse_file;

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

/// A `-D` or `-U` of the command line, in the order given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommandMacro {
    /// `-D NAME` (body `1`) or `-D NAME=TOKENS` (the body may be empty).
    Define { name: String, body: String },
    /// `-U NAME`: cancels the `-D NAME`s before it.
    Undef(String),
}

/// The object-like macros the command line defines, in order: `-D` values
/// given as integers first (the library's older interface), then the
/// `-D`/`-U` sequence, a later `-D` of a name replacing an earlier one and
/// a `-U` removing it, as `cc` does.
pub(crate) fn command_line_macros(
    integers: &[(String, i64)],
    macros: &[CommandMacro],
) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let define = |out: &mut Vec<(String, String)>, name: &str, body: String| {
        out.retain(|(n, _)| n != name);
        out.push((name.to_string(), body));
    };
    for (name, value) in integers {
        define(&mut out, name, value.to_string());
    }
    for m in macros {
        match m {
            CommandMacro::Define { name, body } => define(&mut out, name, body.clone()),
            CommandMacro::Undef(name) => out.retain(|(n, _)| n != name),
        }
    }
    out
}

/// Where `#include`s are looked up.
#[derive(Clone, Debug, Default)]
pub struct IncludePaths {
    /// The directory of the user's file (`#include "..."` starts there).
    pub file_dir: PathBuf,
    /// The `-I` directories, in order.
    pub dirs: Vec<PathBuf>,
}

impl IncludePaths {
    /// The path and text of a header, or `None` when it is not found.
    /// `from` is the directory of the including file.
    fn find(&self, name: &str, angled: bool, from: &Path) -> Option<PathBuf> {
        let local = (!angled).then(|| from.join(name));
        local
            .into_iter()
            .chain(self.dirs.iter().map(|d| d.join(name)))
            .find(|p| p.is_file())
    }
}

/// Headers nested deeper than this are not read (an include cycle without
/// a guard, or a runaway chain).
const MAX_INCLUDE_DEPTH: usize = 64;

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
    /// `#include "..."` lines whose header could not be read (not found,
    /// not UTF-8, nested too deeply, computed), with the reason. Macros it
    /// would define stay unknown names.
    pub missing_headers: Vec<(Range<usize>, String)>,
    /// The headers read, in order (for `--emit`-style listings and tests).
    pub headers: Vec<PathBuf>,
    /// Every change of a macro by the file and its headers, in the order
    /// `cc` reads them, with where it happens (see [`MacroEvent`]): what
    /// a name means at a given point of the file.
    pub history: Vec<MacroEvent>,
}

/// One change of a macro name while the file is read.
#[derive(Clone, Debug)]
pub struct MacroEvent {
    /// Where the change happens in the user's file: its directive line,
    /// or the `#include` line that brought in the header it is in.
    pub at: usize,
    pub name: String,
    pub change: MacroChange,
}

/// What a [`MacroEvent`] does to its name.
#[derive(Clone, Debug)]
pub enum MacroChange {
    /// An active `#define` (its span is the user's line, see
    /// [`Evaluated::defines`]).
    Define(Define),
    /// An active `#undef`.
    Undef,
    /// A `#define` or `#undef` under a condition polyfold cannot
    /// evaluate, or a header that cannot be read: the name has no known
    /// meaning from here on.
    Unknown,
}

/// What a macro name means at one point of the file.
#[derive(Clone, Copy, Debug)]
pub(crate) enum MacroState<'e> {
    /// Not defined there (by the file; the command line may define it).
    Undefined,
    /// Defined by this `#define`.
    Defined(&'e Define),
    /// Defined or undefined under a condition polyfold cannot evaluate.
    Unknown,
}

impl Evaluated {
    /// The number of events of [`Evaluated::history`] that happen before
    /// byte `at` of the file: two points with the same count see the same
    /// macros.
    pub(crate) fn events_before(&self, at: usize) -> usize {
        self.history.partition_point(|e| e.at < at)
    }

    /// The `#define`s in force after the first `events` events of the
    /// history, in the order they were read, and the names made unknown.
    pub(crate) fn in_force(&self, events: usize) -> (Vec<Define>, Vec<String>) {
        let mut state: HashMap<&str, (usize, MacroState)> = HashMap::new();
        for (k, e) in self.history.iter().take(events).enumerate() {
            let st = match &e.change {
                MacroChange::Define(d) => MacroState::Defined(d),
                MacroChange::Undef => MacroState::Undefined,
                MacroChange::Unknown => MacroState::Unknown,
            };
            state.insert(e.name.as_str(), (k, st));
        }
        let mut defined: Vec<(usize, &Define)> = Vec::new();
        let mut unknown: Vec<String> = Vec::new();
        for (name, (k, st)) in state {
            match st {
                MacroState::Defined(d) => defined.push((k, d)),
                MacroState::Unknown => unknown.push(name.to_string()),
                MacroState::Undefined => {}
            }
        }
        defined.sort_by_key(|(k, _)| *k);
        unknown.sort();
        (
            defined.into_iter().map(|(_, d)| d.clone()).collect(),
            unknown,
        )
    }

    /// Per macro name: the indices of its events in
    /// [`Evaluated::history`], ascending (for [`Evaluated::in_force_of`]).
    pub(crate) fn events_by_name(&self) -> HashMap<&str, Vec<usize>> {
        let mut out: HashMap<&str, Vec<usize>> = HashMap::new();
        for (k, e) in self.history.iter().enumerate() {
            out.entry(e.name.as_str()).or_default().push(k);
        }
        out
    }

    /// What [`Evaluated::in_force`] gives after `events` events,
    /// restricted to the names `seeds` and every name the bodies of their
    /// definitions use, transitively: the `#define`s of those names in
    /// force, each with its event, in the order of the events. `by_name`
    /// is [`Evaluated::events_by_name`]. `None` when one of those bodies
    /// pastes tokens (`##`): the names it makes are not in any text.
    pub(crate) fn in_force_of<'e>(
        &'e self,
        events: usize,
        by_name: &HashMap<&str, Vec<usize>>,
        seeds: impl IntoIterator<Item = String>,
    ) -> Option<Vec<(usize, &'e Define)>> {
        let mut todo: Vec<String> = seeds.into_iter().collect();
        let mut seen: HashSet<String> = HashSet::new();
        let mut out: Vec<(usize, &Define)> = Vec::new();
        while let Some(name) = todo.pop() {
            if seen.contains(&name) {
                continue;
            }
            let last = by_name.get(name.as_str()).and_then(|ks| {
                let before = ks.partition_point(|&k| k < events);
                before.checked_sub(1).map(|i| ks[i])
            });
            seen.insert(name);
            let Some(k) = last else { continue };
            if let MacroChange::Define(d) = &self.history[k].change {
                if d.body.contains("##") {
                    return None;
                }
                out.push((k, d));
                for (_, word) in crate::util::c_text::identifier_tokens(&d.body, true) {
                    if !seen.contains(&word) {
                        todo.push(word);
                    }
                }
            }
        }
        out.sort_by_key(|(k, _)| *k);
        Some(out)
    }

    /// What `name` means at byte `at` of the file (the command line
    /// aside).
    pub(crate) fn state_at(&self, name: &str, at: usize) -> MacroState<'_> {
        let events = self.events_before(at);
        match self.history[..events].iter().rev().find(|e| e.name == name) {
            None => MacroState::Undefined,
            Some(e) => match &e.change {
                MacroChange::Define(d) => MacroState::Defined(d),
                MacroChange::Undef => MacroState::Undefined,
                MacroChange::Unknown => MacroState::Unknown,
            },
        }
    }

    /// Every `#define` that is active at some point of the file, in the
    /// order read (later `#undef`s do not remove them).
    pub(crate) fn all_active_defines(&self) -> Vec<Define> {
        self.history
            .iter()
            .filter_map(|e| match &e.change {
                MacroChange::Define(d) => Some(d.clone()),
                _ => None,
            })
            .collect()
    }
}

/// Walks the preprocessor structure of a file with the `-D` values.
pub fn evaluate(
    items: &[PpItem],
    all_defines: &[Define],
    command_line: &[(String, String)],
    includes: &IncludePaths,
) -> Evaluated {
    let mut w = Walker {
        state: HashMap::new(),
        out: Evaluated::default(),
        cause: 0..0,
        includes,
        once: HashSet::new(),
        stack: Vec::new(),
    };
    for (name, body) in command_line {
        w.state.insert(name.clone(), State::Object(body.clone()));
    }
    let dir = includes.file_dir.clone();
    w.walk(items, all_defines, Mode::Active, None, &dir);
    let mut seen = std::collections::HashSet::new();
    w.out.unknown.retain(|(n, _)| seen.insert(n.clone()));
    w.out
}

struct Walker<'a> {
    state: HashMap<String, State>,
    out: Evaluated,
    /// The span of the innermost unknown condition (for the warnings).
    cause: Range<usize>,
    includes: &'a IncludePaths,
    /// Headers with `#pragma once` already read.
    once: HashSet<PathBuf>,
    /// The headers being read, outermost first (for cycles and depth).
    stack: Vec<PathBuf>,
}

/// Where the items being walked come from: `None` for the user's file, or
/// the span of the user's `#include` line that (maybe indirectly) brought
/// them in and the header's name.
type Origin<'o> = Option<(&'o Range<usize>, &'o str)>;

impl Walker<'_> {
    fn walk(
        &mut self,
        items: &[PpItem],
        defines: &[Define],
        mode: Mode,
        origin: Origin,
        dir: &Path,
    ) {
        for item in items {
            match item {
                PpItem::Define(k) => {
                    let d = &defines[*k];
                    let at = origin.map_or(d.span.start, |(s, _)| s.start);
                    match mode {
                        Mode::Active => {
                            let st = match &d.params {
                                None => State::Object(d.body.clone()),
                                Some(_) => State::Function,
                            };
                            self.state.insert(d.name.clone(), st);
                            let mut d = d.clone();
                            if let Some((span, _)) = origin {
                                d.span = span.clone();
                            }
                            self.out.history.push(MacroEvent {
                                at,
                                name: d.name.clone(),
                                change: MacroChange::Define(d.clone()),
                            });
                            self.out.defines.push(d);
                        }
                        Mode::Unknown => self.make_unknown(&d.name, at),
                    }
                }
                PpItem::Undef { name, span } => {
                    let at = origin.map_or(span.start, |(s, _)| s.start);
                    match mode {
                        Mode::Active => {
                            self.state.remove(name);
                            self.out.defines.retain(|d| d.name != *name);
                            self.out.history.push(MacroEvent {
                                at,
                                name: name.clone(),
                                change: MacroChange::Undef,
                            });
                        }
                        Mode::Unknown => self.make_unknown(name, at),
                    }
                }
                PpItem::Function(k) => {
                    if mode == Mode::Active && origin.is_none() {
                        self.out.functions.push(*k);
                    }
                }
                PpItem::Global(k) => {
                    if mode == Mode::Active && origin.is_none() {
                        self.out.globals.push(*k);
                    }
                }
                PpItem::Include { name, angled, span } => {
                    // Under an unknown condition, the header's `#define`s
                    // and `#undef`s make the names they touch unknown.
                    let at = origin.map_or(span, |(s, _)| s);
                    self.include(name, *angled, at, origin.map(|(_, h)| h), dir, mode);
                }
                PpItem::Cond { branches } => {
                    if mode != Mode::Active {
                        for (_, _, body) in branches {
                            self.walk(body, defines, mode, origin, dir);
                        }
                        continue;
                    }
                    let saved = self.cause.clone();
                    let mut decided = false;
                    let mut unknown = false;
                    for (cond, span, body) in branches {
                        if unknown {
                            self.walk(body, defines, Mode::Unknown, origin, dir);
                            continue;
                        }
                        if decided {
                            continue;
                        }
                        let verdict = match (cond, self.condition(cond)) {
                            // The include-guard idiom `#ifndef G` then
                            // `#define G`: a reserved guard name (`_GEMM_H`)
                            // is the header's own, never the compiler's.
                            (PpCond::NotDefined(g), Err(_))
                                if matches!(body.first(), Some(PpItem::Define(k)) if defines[*k].name == *g)
                                    && !self.state.contains_key(g) =>
                            {
                                Ok(true)
                            }
                            (_, v) => v,
                        };
                        match verdict {
                            Ok(true) => {
                                decided = true;
                                self.walk(body, defines, Mode::Active, origin, dir);
                            }
                            Ok(false) => {}
                            Err(why) => {
                                let (at, why) = match origin {
                                    Some((at, header)) => {
                                        (at.clone(), format!("in `{header}`: {why}"))
                                    }
                                    None => (span.clone(), why),
                                };
                                self.out.undecided.push((at.clone(), why));
                                self.cause = at;
                                unknown = true;
                                self.walk(body, defines, Mode::Unknown, origin, dir);
                            }
                        }
                    }
                    self.cause = saved;
                }
            }
        }
    }

    /// Reads the header `name` and walks its items in place. `at` is the
    /// user's `#include` line; `within` the header that includes this one
    /// (for the messages); `dir` the directory of the including file.
    fn include(
        &mut self,
        name: &str,
        angled: bool,
        at: &Range<usize>,
        within: Option<&str>,
        dir: &Path,
        mode: Mode,
    ) {
        let shown = if angled {
            format!("<{name}>")
        } else {
            format!("\"{name}\"")
        };
        let inside = within.map_or(String::new(), |h| format!(" (included by `{h}`)"));
        let problem = |w: &mut Self, why: String| w.unreadable(at, why);
        if name.is_empty() {
            problem(
                self,
                format!("a computed `#include`{inside} is not followed"),
            );
            return;
        }
        let Some(path) = self.includes.find(name, angled, dir) else {
            if !angled {
                problem(
                    self,
                    format!(
                        "`{shown}`{inside} is not found next to the file or in any -I directory"
                    ),
                );
            }
            // `<...>` found in no -I directory: a system header, not read.
            return;
        };
        let key = path.canonicalize().unwrap_or_else(|_| path.clone());
        if self.once.contains(&key) {
            return;
        }
        if self.stack.len() >= MAX_INCLUDE_DEPTH {
            problem(
                self,
                format!("`{shown}`{inside}: headers nested more than {MAX_INCLUDE_DEPTH} deep"),
            );
            return;
        }
        let text = match std::fs::read(&path).map(crate::util::bytes::decode) {
            Ok(Ok(t)) => t,
            Ok(Err(e)) => {
                problem(self, format!("`{}`{inside}: {e}", path.display()));
                return;
            }
            Err(e) => {
                problem(
                    self,
                    format!("cannot read `{}`{inside}: {e}", path.display()),
                );
                return;
            }
        };
        let Some(header) = parse_file(&text) else {
            problem(self, format!("the C parser failed on `{}`", path.display()));
            return;
        };
        if header.pragmas.iter().any(|p| p.text == "once") {
            self.once.insert(key.clone());
        }
        self.out.headers.push(path.clone());
        self.stack.push(key);
        let header_dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let label = path.display().to_string();
        self.walk(
            &header.pp,
            &header.defines,
            mode,
            Some((at, &label)),
            &header_dir,
        );
        self.stack.pop();
    }

    /// A header that cannot be read: said, and since it may redefine or
    /// undefine any macro defined so far, none of them keeps a known value.
    fn unreadable(&mut self, at: &Range<usize>, why: String) {
        self.out.missing_headers.push((at.clone(), why));
        let saved = std::mem::replace(&mut self.cause, at.clone());
        let mut names: Vec<String> = self
            .state
            .iter()
            .filter(|(_, st)| !matches!(st, State::Unknown))
            .map(|(n, _)| n.clone())
            .collect();
        names.sort();
        for n in names {
            self.make_unknown(&n, at.start);
        }
        self.cause = saved;
    }

    /// `name` has no known meaning from byte `at` of the file on.
    fn make_unknown(&mut self, name: &str, at: usize) {
        self.state.insert(name.to_string(), State::Unknown);
        self.out.history.push(MacroEvent {
            at,
            name: name.to_string(),
            change: MacroChange::Unknown,
        });
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

/// The tokens of an `#if` condition (C's preprocessing tokens, from
/// [`super::macros::lex`], read as numbers, names and operators).
fn tokenize(text: &str) -> Result<Vec<Tok>, String> {
    let mut out = Vec::new();
    for token in super::macros::lex(text, None) {
        let word = token.text.as_str();
        if word.starts_with(|c: char| c.is_ascii_digit()) {
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
        } else if word.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
            out.push(Tok::Ident(word.to_string()));
        } else {
            match OPS.iter().find(|op| **op == word) {
                Some(op) => out.push(Tok::Op(op)),
                None => return Err(format!("unsupported token `{word}` in a condition")),
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
        let ev = evaluate(&items, &defs, &[], &IncludePaths::default());
        assert_eq!(value_of(&ev, "N").as_deref(), Some("100"));
        let ev = evaluate(
            &items,
            &defs,
            &[("SMALL".into(), "1".into())],
            &IncludePaths::default(),
        );
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
        let ev = evaluate(
            &items,
            &defs,
            &[("N".into(), "10".into())],
            &IncludePaths::default(),
        );
        assert_eq!(value_of(&ev, "A").as_deref(), Some("1"));
        // N = 5: M = 11; `defined N` holds.
        let ev = evaluate(
            &items,
            &defs,
            &[("N".into(), "5".into())],
            &IncludePaths::default(),
        );
        assert_eq!(value_of(&ev, "A").as_deref(), Some("2"));
        // No N: M = (0 * 2 + 1); an unknown name is 0, so the second holds.
        let ev = evaluate(&items, &defs, &[], &IncludePaths::default());
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
        let ev = evaluate(&items, &defs, &[], &IncludePaths::default());
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
        let ev = evaluate(&items, &defs, &[], &IncludePaths::default());
        assert_eq!(ev.unknown.len(), 1);
    }

    #[test]
    fn history_says_what_a_name_means_where() {
        // `#define N 10` at 0, `#undef N` at 20, `#define N 4` at 30, an
        // unknown `#define M` at 40.
        let mut defs = vec![def("N", "10"), def("N", "4"), def("M", "1")];
        defs[0].span = 0..10;
        defs[1].span = 30..40;
        defs[2].span = 45..50;
        let items = vec![
            PpItem::Define(0),
            PpItem::Undef {
                name: "N".into(),
                span: 20..28,
            },
            PpItem::Define(1),
            PpItem::Cond {
                branches: vec![(
                    PpCond::Defined("__GNUC__".into()),
                    40..44,
                    vec![PpItem::Define(2)],
                )],
            },
        ];
        let ev = evaluate(&items, &defs, &[], &IncludePaths::default());
        let body = |at: usize| match ev.state_at("N", at) {
            MacroState::Defined(d) => Some(d.body.clone()),
            MacroState::Undefined => None,
            MacroState::Unknown => Some("?".into()),
        };
        assert_eq!(body(0), None);
        assert_eq!(body(15).as_deref(), Some("10"));
        assert_eq!(body(25), None);
        assert_eq!(body(35).as_deref(), Some("4"));
        assert!(matches!(ev.state_at("M", 60), MacroState::Unknown));
        assert!(matches!(ev.state_at("M", 40), MacroState::Undefined));
        let (defines, unknown) = ev.in_force(ev.events_before(60));
        assert_eq!(defines.len(), 1);
        assert_eq!(defines[0].body, "4");
        assert_eq!(unknown, ["M"]);
        let all: Vec<String> = ev
            .all_active_defines()
            .into_iter()
            .map(|d| d.body)
            .collect();
        assert_eq!(all, ["10", "4"]);
    }

    #[test]
    fn arithmetic_matches_c() {
        let ev = Walker {
            state: HashMap::new(),
            out: Evaluated::default(),
            cause: 0..0,
            includes: &IncludePaths::default(),
            once: HashSet::new(),
            stack: Vec::new(),
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
