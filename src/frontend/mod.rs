//! The C front end: parsing (tree-sitter-c), the macro table, SCoP
//! detection, affine conversion, lowering to the IR, and diagnostics for
//! everything left out.
//!
//! Invariants: this is the only module that names `tree_sitter` (in
//! `syntax`); it knows nothing about lifetimes or mappings. Rejected code is
//! a warning diagnostic and simply stays out of every SCoP; only unparseable
//! input is an error.
//!
//! Flow: [`syntax::parse_file`] (a file that does not parse is parsed
//! again with the [`masks`] of the macro uses and `_Pragma`s tree-sitter
//! cannot read) → [`preproc::evaluate`] (active branches, headers read
//! through `-I`, `-D`/`-U`, and the history of every macro) → the macros
//! in force in each function ([`macros::Macros::for_function`]) →
//! `expand_macro_declarators` (declarators written as function-like macro
//! calls) → [`scope::Scopes::build`] → per function: pragma regions or
//! maximal runs (`detect_function`) → [`analyze::Analyzer`] per top-level
//! statement → [`lower::lower_run`] per run → `ir::verify` (debug builds).

// Rejections travel as `Result<_, Diagnostic>`; they are rare and cold, so
// the size of the error variant does not matter.
#![allow(clippy::result_large_err)]

pub mod affine;
pub mod aliasing;
pub mod alloc;
pub(crate) mod analyze;
pub mod buffers;
pub mod effects;
pub(crate) mod fresh;
pub mod heap;
pub(crate) mod labels;
pub(crate) mod linear_local;
pub mod lower;
pub mod macros;
pub mod masks;
pub mod parallel;
pub mod preproc;
pub(crate) mod rotating;
pub mod scope;
pub(crate) mod substitute;
pub mod syntax;

use std::collections::BTreeSet;
use std::ops::Range;

use analyze::{Analyzed, Analyzer, DiagSink, contains_loop};
use lower::{LowerContext, lower_run};
use macros::Macros;
use scope::Scopes;
use syntax::{CStmt, Function, SyntaxFile};

use crate::diag::{Code, Diagnostic};
use crate::ir::{Placement, Program, Scop, ScopId, ScopKind};

/// Options of the extraction.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// `-D NAME=VALUE` pairs with integer values, in command-line order
    /// (later ones win); applied before `macros`.
    pub defines: Vec<(String, i64)>,
    /// `-D NAME`, `-D NAME=TOKENS` and `-U NAME`, in command-line order.
    pub macros: Vec<preproc::CommandMacro>,
    /// `-I` directories, in order.
    pub include_dirs: Vec<std::path::PathBuf>,
}

/// Extracts the SCoPs of one C file.
///
/// Never fails: unparseable input gives a `Program` with one error
/// diagnostic and no SCoP; everything rejected gives warnings.
pub fn extract(path: &str, source: &str, options: &Options) -> Program {
    let mut program = Program {
        path: path.to_string(),
        source: source.to_string(),
        scops: Vec::new(),
        macros: Default::default(),
        diagnostics: Vec::new(),
        functions: Vec::new(),
    };
    let command_line = preproc::command_line_macros(&options.defines, &options.macros);
    let includes = preproc::IncludePaths {
        file_dir: std::path::Path::new(path)
            .parent()
            .map(std::path::Path::to_path_buf)
            .unwrap_or_default(),
        dirs: options.include_dirs.clone(),
    };
    let scan = masks::scan(source);
    let Some(file) = parse(source, &scan, &command_line, &includes) else {
        program.diagnostics.push(Diagnostic::new(
            Code::SyntaxError,
            "the C parser failed on this file",
            0..0,
            "",
        ));
        return program;
    };
    if let Some(err) = &file.first_error {
        let (message, label) = match &err.missing {
            Some(tok) => (
                format!("syntax error: missing `{tok}`"),
                format!("expected `{tok}` here"),
            ),
            None => (
                "syntax error".to_string(),
                format!(
                    "unexpected `{}`",
                    source.get(err.span.clone()).unwrap_or("").trim()
                ),
            ),
        };
        program.diagnostics.push(
            Diagnostic::new(Code::SyntaxError, message, err.span.clone(), label)
                .with_note("polyfold only transforms files that parse; nothing was written"),
        );
        return program;
    }
    if let Some(span) = &file.too_deep {
        let start = span.start;
        program.diagnostics.push(
            Diagnostic::new(
                Code::TooDeep,
                "the file is nested too deeply to analyse",
                start..(start + 1).min(source.len()),
                "nesting beyond this point is not lowered",
            )
            .with_note("no SCoP is extracted from this file"),
        );
        return program;
    }
    // Only the active branches of `#if`/`#ifdef`: their `#define`s, their
    // functions and their globals.
    let mut file = file;
    let evaluated = preproc::evaluate(&file.pp, &file.defines, &command_line, &includes);
    let mut pp_diags = Vec::new();
    for (span, why) in &evaluated.missing_headers {
        pp_diags.push(
            Diagnostic::new(
Code::HeaderNotRead,
                "header not read",
                span.clone(),
                why.clone(),
            )
            .with_note("the macros it defines are unknown names, and the macros defined before it lose their values (it may redefine them): code that uses them stays out of SCoPs (pass -I DIR)"),
        );
    }
    for (span, why) in &evaluated.undecided {
        let names: Vec<String> = evaluated
            .unknown
            .iter()
            .filter(|(_, at)| at == span)
            .map(|(n, _)| format!("`{n}`"))
            .collect();
        let mut d = Diagnostic::new(
            Code::UndecidedCondition,
            "preprocessor condition polyfold cannot evaluate",
            span.clone(),
            why.clone(),
        )
        .with_note("the functions and globals under it are not analysed");
        if !names.is_empty() {
            d = d.with_note(format!(
                "{} defined or undefined under it: no known value, code that depends on it stays out of SCoPs",
                names.join(", ")
            ));
        }
        pp_diags.push(d);
    }
    pp_diags.extend(command_line_checks(source, &command_line, &evaluated));
    keep_active(&mut file.functions, &evaluated.functions);
    keep_active(&mut file.globals, &evaluated.globals);
    file.defines = evaluated.defines.clone();
    // Every definition that is in force somewhere, for the program's
    // table; each function is analysed with the macros in force where it
    // is (see `FunctionMacros`).
    let macros = Macros::build(&evaluated.all_active_defines(), &command_line);
    let views = FunctionMacros::build(&file, &evaluated, &command_line, source, &scan);
    pp_diags.extend(expand_macro_declarators(&mut file, &views, source));
    // Heap buffers are marked, then the SCoPs found; a linearised buffer
    // whose row subscript is not proven within its row keeps its layout,
    // and the file is read again without it.
    let unmarked = file;
    let mut refusals = heap::Refusals::new();
    let (file, sink, scops) = loop {
        let mut file = unmarked.clone();
        heap::mark(&mut file, source, &refusals);
        let tables = linear_local::mark(&mut file, source, &refusals);
        let (sink, scops) = detect_all(
            source,
            &file,
            (&macros, &views),
            (&evaluated, &command_line),
        );
        let failed: Vec<_> = linear_unproven(source, &scops)
            .into_iter()
            .chain(sink.linear_refused.clone())
            .chain(
                tables
                    .into_iter()
                    .filter(|k| !sink.linear_needed.contains(k))
                    .map(|k| (k, linear_local::NOT_NEEDED.to_string())),
            )
            .filter(|(k, _)| !refusals.contains_key(k))
            .collect();
        if failed.is_empty() {
            break (file, sink, scops);
        }
        refusals.extend(failed);
    };
    let mut diagnostics = sink.diags;
    diagnostics.extend(pp_diags);
    if !file.has_loops {
        diagnostics.push(Diagnostic::new(
            Code::NoLoops,
            "no loops in this file",
            0..0,
            "",
        ));
    } else if scops.is_empty() {
        diagnostics.push(
            Diagnostic::new(Code::NoScop, "no static control part found", 0..0, "")
                .with_note("see the warnings above for what was rejected"),
        );
    }
    diagnostics.sort_by(|a, b| {
        (a.span.start, a.span.end, a.code).cmp(&(b.span.start, b.span.end, b.code))
    });
    // Whole-file notes go last.
    diagnostics.sort_by_key(|d| d.code == Code::NoLoops || d.code == Code::NoScop);
    program.scops = scops;
    program.functions = file.functions.iter().map(|f| f.name.clone()).collect();
    program.macros = macros.table;
    program.diagnostics = diagnostics;
    program
}

/// The SCoPs of every function of `file` (its heap buffers marked), with
/// the diagnostics of their extraction.
fn detect_all(
    source: &str,
    file: &SyntaxFile,
    (macros, views): (&Macros, &FunctionMacros),
    (evaluated, command_line): (&preproc::Evaluated, &[(String, String)]),
) -> (DiagSink, Vec<Scop>) {
    let scopes = Scopes::build(file);
    let effects = effects::FileEffects::build(file, &scopes, macros);
    let fresh = buffers::macro_allocated(file, &scopes, &|k| views.of_function(k), source);
    let aliasing =
        aliasing::FileAliasing::build(file, &scopes, source, (&|k| views.of_function(k), &fresh));
    let buffers =
        buffers::CallerBuffers::build(file, &scopes, &|k| views.of_function(k), source, &aliasing);
    let mut ex = Extractor {
        source,
        file,
        macros,
        positions: MacroPositions {
            evaluated,
            command_line,
            body_names: &views.body_names,
        },
        current: 0,
        goto_targets: labels::GotoTargets::default(),
        scopes: &scopes,
        effects: &effects,
        aliasing: &aliasing,
        buffers: &buffers,
        sink: DiagSink::default(),
        scops: Vec::new(),
    };
    for (k, f) in file.functions.iter().enumerate() {
        ex.macros = views.of_function(k);
        ex.current = k;
        ex.goto_targets = labels::GotoTargets::of(&f.body);
        ex.detect_function(f);
    }
    (ex.sink, ex.scops)
}

/// The linearised heap buffers of `scops` (see `frontend::heap`) with an
/// access whose column is not proven within the row (`0 <= x < w` in
/// `t[y * w + x]` for every iteration), by function and name, with why:
/// only then is `t[y][x]` the same cell as `t[y * w + x]`.
fn linear_unproven(source: &str, scops: &[Scop]) -> heap::Refusals {
    let mut out = heap::Refusals::new();
    for scop in scops {
        for array in scop.arrays.iter().filter(|a| a.facts.linear_rows) {
            let Some(function) = array
                .facts
                .heap
                .as_ref()
                .and_then(|sites| sites.first())
                .map(|s| s.function.clone())
            else {
                continue;
            };
            let row = &array.extents[1];
            let unproven = scop.stmts.iter().find_map(|stmt| {
                stmt.accesses()
                    .filter(|a| a.array == array.id)
                    .find(|a| !within_row(scop, stmt, a, row))
                    .map(|a| (stmt, a))
            });
            if let Some((stmt, access)) = unproven {
                let text = source.get(access.span.clone()).unwrap_or("").trim();
                out.insert(
                    (function, array.name.clone()),
                    format!(
                        "the column of `{text}` in {} is not proven within its row (`0 .. {} - 1`)",
                        stmt.name, row.text
                    ),
                );
            }
        }
    }
    out
}

/// Whether the column subscript of `access` (of `stmt`) lies within
/// `0 .. row - 1` at every iteration of the statement's domain (exact:
/// each piece of the domain with the column out of range is empty).
fn within_row(
    scop: &Scop,
    stmt: &crate::ir::Stmt,
    access: &crate::ir::Access,
    row: &crate::ir::Extent,
) -> bool {
    let (Some(column), Some(row)) = (access.subscripts.get(1), row.aff.as_ref()) else {
        return false;
    };
    let np = scop.params.len();
    stmt.domain.pieces.iter().all(|piece| {
        let vars = column.coeffs.len();
        let out_of_range = |below: bool| -> Option<bool> {
            let mut set = piece.clone();
            // What the program says of the parameters (extents at least
            // 1) holds on every iteration.
            if set.space.n_param() == scop.context.space.n_param() {
                set.add_param_constraints(&scop.context);
            }
            let mut r = set.zero_row();
            for (k, c) in column.coeffs.iter().enumerate() {
                r[k] = if below { -c } else { *c };
            }
            if !below {
                for (k, c) in row.coeffs.iter().enumerate().take(np) {
                    r[k] = r[k].checked_sub(*c)?;
                }
            }
            let last = r.len() - 1;
            r[last] = if below {
                column.constant.checked_neg()?.checked_sub(1)?
            } else {
                column.constant.checked_sub(row.constant)?
            };
            if vars > set.space.n_var() {
                return None;
            }
            set.add_ineq(r);
            set.is_empty().ok()
        };
        out_of_range(true) == Some(true) && out_of_range(false) == Some(true)
    })
}

/// Parses the file; when it does not parse as it is, parses it again with
/// the masks of the text that `cc` compiles but tree-sitter cannot read
/// (qualifier and attribute macros, `_Pragma`, loop macros: see
/// [`masks`]). `None` only when tree-sitter itself fails.
fn parse(
    source: &str,
    scan: &masks::Scan,
    command_line: &[(String, String)],
    includes: &preproc::IncludePaths,
) -> Option<SyntaxFile> {
    let file = syntax::parse_file(source)?;
    if file.first_error.is_none() {
        return Some(file);
    }
    let evaluated = preproc::evaluate(&file.pp, &file.defines, command_line, includes);
    let masks = masks::plan(scan, &evaluated, &file.defines, command_line);
    if masks.is_empty() {
        return Some(file);
    }
    syntax::parse_file_masked(source, &masks).or(Some(file))
}

/// The macros in force in each function of the file: the `#define`s read
/// before it (with the command line's), less the names that a `#define`
/// or `#undef` inside its body changes (their meaning depends on the
/// statement: none is known). A use of a macro takes the definition in
/// force at its point of the file, as `cc` reads it.
struct FunctionMacros {
    views: Vec<Macros>,
    /// Per function: its view, and the names its body defines or undefines.
    functions: Vec<usize>,
    body_names: Vec<Vec<String>>,
    /// Per global declaration: its view.
    globals: Vec<usize>,
}

impl FunctionMacros {
    /// The view of each function and global declaration. A view holds
    /// the macros in force at its start that its own text can expand:
    /// the names of its text, of the file's global declarations (whose
    /// extents it may read) and of the command line's bodies, and the
    /// names their bodies use, transitively
    /// ([`preproc::Evaluated::in_force_of`]); all the macros in force
    /// where a body pastes tokens. A name no such text holds never
    /// expands there, and a view of every macro in force per function
    /// made files of many functions and `#define`s quadratic in time and
    /// memory (issue 53).
    fn build(
        file: &SyntaxFile,
        evaluated: &preproc::Evaluated,
        command_line: &[(String, String)],
        source: &str,
        scan: &masks::Scan,
    ) -> FunctionMacros {
        let names_of = |span: &Range<usize>| -> Vec<String> {
            source
                .get(span.clone())
                .map(|text| {
                    crate::util::c_text::identifier_tokens(text, true)
                        .into_iter()
                        .map(|(_, n)| n)
                        .collect()
                })
                .unwrap_or_default()
        };
        let mut shared: BTreeSet<String> = file
            .globals
            .iter()
            .flat_map(|g| names_of(&g.span))
            .collect();
        for (name, body) in command_line {
            shared.insert(name.clone());
            shared.extend(
                crate::util::c_text::identifier_tokens(body, true)
                    .into_iter()
                    .map(|(_, n)| n),
            );
        }
        let by_name = evaluated.events_by_name();
        // Points that see the same definitions (and body names) share a
        // view.
        let mut keys: std::collections::HashMap<(Vec<usize>, Vec<String>), usize> =
            std::collections::HashMap::new();
        let mut views = Vec::new();
        let mut view = |at: usize, span: &Range<usize>, unknown: Vec<String>| {
            let events = evaluated.events_before(at);
            let seeds = names_of(span).into_iter().chain(shared.iter().cloned());
            let defines: Vec<syntax::Define> = match evaluated.in_force_of(events, &by_name, seeds)
            {
                Some(found) => {
                    let ks: Vec<usize> = found.iter().map(|(k, _)| *k).collect();
                    let key = (ks, unknown);
                    if let Some(k) = keys.get(&key) {
                        return *k;
                    }
                    let defines: Vec<syntax::Define> =
                        found.into_iter().map(|(_, d)| d.clone()).collect();
                    views.push(Macros::for_function(&defines, command_line, &key.1));
                    keys.insert(key, views.len() - 1);
                    return views.len() - 1;
                }
                None => evaluated.in_force(events).0,
            };
            // A pasting body: every macro in force, keyed by the count of
            // events (`usize::MAX` marks the key as such).
            let key = (vec![usize::MAX, events], unknown);
            if let Some(k) = keys.get(&key) {
                return *k;
            }
            views.push(Macros::for_function(&defines, command_line, &key.1));
            keys.insert(key, views.len() - 1);
            views.len() - 1
        };
        let body_names: Vec<Vec<String>> = file
            .functions
            .iter()
            .map(|f| names_changed_in(source, &scan.directives, &f.span))
            .collect();
        let functions = file
            .functions
            .iter()
            .zip(&body_names)
            .map(|(f, names)| view(f.span.start, &f.span, names.clone()))
            .collect();
        let globals = file
            .globals
            .iter()
            .map(|g| view(g.span.start, &g.span, Vec::new()))
            .collect();
        FunctionMacros {
            views,
            functions,
            body_names,
            globals,
        }
    }

    fn of_function(&self, k: usize) -> &Macros {
        &self.views[self.functions[k]]
    }

    fn of_global(&self, k: usize) -> &Macros {
        &self.views[self.globals[k]]
    }
}

/// The names that the `#define`s and `#undef`s among `directives` inside
/// `span` change, sorted.
fn names_changed_in(source: &str, directives: &[Range<usize>], span: &Range<usize>) -> Vec<String> {
    let first = directives.partition_point(|d| d.start < span.start);
    let mut names: Vec<String> = directives[first..]
        .iter()
        .take_while(|d| d.start < span.end)
        .filter(|d| d.end <= span.end)
        .filter_map(|d| {
            let text = source.get(d.clone())?.strip_prefix('#')?.trim_start();
            let rest = text
                .strip_prefix("define")
                .or_else(|| text.strip_prefix("undef"))?;
            if !rest.starts_with(|c: char| c.is_whitespace()) {
                return None;
            }
            let name: String = rest
                .trim_start()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            (!name.is_empty()).then_some(name)
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

/// What a macro name means at one point of the file, comparable.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Meaning {
    Undefined,
    Defined {
        params: Option<Vec<String>>,
        body: String,
    },
    Unknown,
}

/// Where each macro definition is in force, for the check that a SCoP's
/// arrays declared outside its function see the same macros as the
/// function (their extents and the pins printed at their declarations
/// read the macros in force there).
struct MacroPositions<'e> {
    evaluated: &'e preproc::Evaluated,
    command_line: &'e [(String, String)],
    /// Per function: the names its body defines or undefines.
    body_names: &'e [Vec<String>],
}

impl MacroPositions<'_> {
    /// What `name` means at byte `at` (the command line's `-D` first).
    fn meaning(&self, name: &str, at: usize) -> Meaning {
        if let Some((_, body)) = self.command_line.iter().find(|(n, _)| n == name) {
            return Meaning::Defined {
                params: None,
                body: body.trim().to_string(),
            };
        }
        match self.evaluated.state_at(name, at) {
            preproc::MacroState::Undefined => Meaning::Undefined,
            preproc::MacroState::Defined(d) => Meaning::Defined {
                params: d.params.clone(),
                body: d.body.trim().to_string(),
            },
            preproc::MacroState::Unknown => Meaning::Unknown,
        }
    }

    /// A macro among `names` (and the macros their bodies use, at either
    /// point) that does not mean the same in function `function` (which
    /// starts at `start`) and at byte `at`.
    fn first_difference(
        &self,
        names: Vec<String>,
        function: usize,
        start: usize,
        at: usize,
    ) -> Option<String> {
        let mut todo = names;
        let mut seen = BTreeSet::new();
        while let Some(name) = todo.pop() {
            if !seen.insert(name.clone()) {
                continue;
            }
            let here = self.meaning(&name, start);
            let there = self.meaning(&name, at);
            let changed_in_body = self.body_names[function].contains(&name);
            if here == Meaning::Unknown
                || here != there
                || (changed_in_body && there != Meaning::Undefined)
            {
                return Some(name);
            }
            if let Meaning::Defined { body, .. } = here {
                for (_, word) in crate::util::c_text::identifier_tokens(&body, false) {
                    todo.push(word);
                }
            }
        }
        None
    }
}

/// Warnings about the `-D`s of the command line: a name that neither the
/// file nor a header it reads ever mentions (PF037, a typo?), and a name
/// the file itself `#define`s in an active branch to another body
/// (PF038): `cc -D N=10` compiles with the file's `#define N 100` after
/// it, while polyfold analyses N = 10 as asked, so storage pinned to
/// N = 10 would fail its `_Static_assert`.
fn command_line_checks(
    source: &str,
    command_line: &[(String, String)],
    evaluated: &preproc::Evaluated,
) -> Vec<Diagnostic> {
    // The headers' texts, read only for a name the file itself does not
    // mention (the preprocessor keeps their paths, not their texts).
    let headers: std::cell::OnceCell<Vec<String>> = std::cell::OnceCell::new();
    let header_texts = || {
        headers.get_or_init(|| {
            evaluated
                .headers
                .iter()
                .filter_map(|h| std::fs::read_to_string(h).ok())
                .collect()
        })
    };
    let mentions = |text: &str, name: &str| {
        text.match_indices(name).any(|(at, _)| {
            let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
            let before = text[..at].chars().next_back().is_none_or(|c| !ident(c));
            let after = text[at + name.len()..]
                .chars()
                .next()
                .is_none_or(|c| !ident(c));
            before && after
        })
    };
    let mut out = Vec::new();
    for (name, body) in command_line {
        if !mentions(source, name) && !header_texts().iter().any(|h| mentions(h, name)) {
            out.push(
                Diagnostic::new(
Code::UnusedDefine,
                    format!("`-D {name}` is never used: the file and the headers it reads do not mention `{name}`"),
                    0..0,
                    "",
                )
                .with_note("a misspelt name? the -D changes nothing"),
            );
            continue;
        }
        // The file's own active `#define` of the name (a header's carries
        // the span of its #include line: also in the user's file).
        if let Some(d) = evaluated
            .defines
            .iter()
            .find(|d| d.name == *name && d.params.is_none() && d.body.trim() != body.trim())
        {
            out.push(
                Diagnostic::new(
Code::RedefinedDefine,
                    format!("`-D {name}={body}` contradicts the file's `#define {name} {}`", d.body.trim()),
                    d.span.clone(),
                    format!("a compiler given `-D {name}={body}` uses this value after this line"),
                )
                .with_note(format!(
                    "polyfold analyses {name} = {body} as asked; storage certified for that value only is pinned by a `_Static_assert` that fails with this #define: change it, or guard it with `#ifndef {name}`"
                )),
            );
        }
    }
    out
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Pragma,
    Inferred,
}

struct Extractor<'a> {
    source: &'a str,
    file: &'a SyntaxFile,
    /// The macros in force in the current function.
    macros: &'a Macros,
    positions: MacroPositions<'a>,
    /// The index of the current function.
    current: usize,
    /// The labels of the current function that a `goto` may jump to.
    goto_targets: labels::GotoTargets,
    scopes: &'a Scopes<'a>,
    effects: &'a effects::FileEffects,
    aliasing: &'a aliasing::FileAliasing,
    buffers: &'a buffers::CallerBuffers,
    sink: DiagSink,
    scops: Vec<Scop>,
}

impl<'a> Extractor<'a> {
    fn detect_function(&mut self, f: &'a Function) {
        let pragmas: Vec<_> = self
            .file
            .pragmas_in(f.span.clone())
            .into_iter()
            .filter(|p| p.text == "scop" || p.text == "endscop")
            .collect();
        if pragmas.is_empty() {
            let items: Vec<Item> = match &f.body {
                CStmt::Compound { .. } => child_lists(&f.body).into_iter().flatten().collect(),
                other => vec![Item::sole(other)],
            };
            self.process_list(&items, Mode::Inferred, f);
            return;
        }
        let mut open: Option<Range<usize>> = None;
        for p in pragmas {
            match (p.text.as_str(), &open) {
                ("scop", None) => open = Some(p.span.clone()),
                ("scop", Some(_)) => self.sink.push(Diagnostic::new(
                    Code::UnpairedPragmas,
                    "nested `#pragma scop`",
                    p.span.clone(),
                    "a region is already open",
                )),
                ("endscop", Some(start)) => {
                    let region = start.end..p.span.start;
                    open = None;
                    let mut items = Vec::new();
                    region_items(&f.body, &region, &mut items);
                    self.process_list(&items, Mode::Pragma, f);
                }
                _ => self.sink.push(Diagnostic::new(
                    Code::UnpairedPragmas,
                    "`#pragma endscop` without `#pragma scop`",
                    p.span.clone(),
                    "no region is open",
                )),
            }
        }
        if let Some(start) = open {
            self.sink.push(
                Diagnostic::new(
                    Code::UnpairedPragmas,
                    "`#pragma scop` without `#pragma endscop`",
                    start,
                    "this region is never closed",
                )
                .with_note("the region is ignored"),
            );
        }
    }

    /// The loops of `items` whose rotating indices are in the body form
    /// (see [`rotating`]), their starts in the same block as the loop and
    /// the indices used nowhere else.
    fn body_forms(&self, items: &[Item<'a>]) -> Vec<(usize, rotating::BodyForm<'a>)> {
        let stmts: Vec<&CStmt> = items.iter().map(|e| e.stmt).collect();
        let block = |e: &Item| match e.parent {
            Parent::Block { block, .. } => Some(block),
            Parent::Sole => None,
        };
        Analyzer::new(self.source, self.macros, self.scopes)
            .body_forms(&stmts)
            .into_iter()
            .filter(|(k, form)| {
                let here = block(&items[*k]);
                here.is_some() && items[form.first..*k].iter().all(|e| block(e) == here)
            })
            .collect()
    }

    fn process_list(&mut self, items: &[Item<'a>], mode: Mode, f: &'a Function) {
        let mut run: Vec<Analyzed> = Vec::new();
        let mut run_writes: BTreeSet<String> = BTreeSet::new();
        let mut run_params: BTreeSet<String> = BTreeSet::new();
        let mut run_iterators: BTreeSet<String> = BTreeSet::new();
        let mut run_scalar_reads: BTreeSet<String> = BTreeSet::new();
        // The `#pragma` lines (that apply to the next statement) seen
        // right before the current item, with their place.
        let mut pending_pragmas: Vec<(Range<usize>, Parent)> = Vec::new();
        // Loops with rotating indices in the body form (their starts, in
        // the same block, are read with the loop).
        let forms = self.body_forms(items);
        for (k, entry) in items.iter().enumerate() {
            let item = entry.stmt;
            if forms.iter().any(|(j, f)| (f.first..*j).contains(&k)) {
                continue;
            }
            let form = forms
                .iter()
                .find(|(j, _)| *j == k)
                .map(|(_, f)| (f, items[f.first].stmt.span().start));
            if analyze::is_statement_pragma(item) {
                pending_pragmas.push((item.span(), entry.parent));
                continue;
            }
            let mut pragmas = attached_pragmas(&pending_pragmas, entry.parent);
            pending_pragmas.clear();
            if let Parent::Block { .. } = entry.parent {
                pragmas = self.with_conditional_pragmas(item.span().start, pragmas);
            }
            let mut an = Analyzer::new(self.source, self.macros, self.scopes)
                .with_pragmas(&self.file.pragmas)
                .with_goto_targets(&self.goto_targets);
            let analyzed = an.analyze_top(item, form);
            for (name, why) in an.linear_refused.drain(..) {
                self.sink.linear_refused.insert((f.name.clone(), name), why);
            }
            for name in an.linear_needed.drain(..) {
                self.sink.linear_needed.insert((f.name.clone(), name));
            }
            match analyzed {
                Some(mut a) => {
                    if a.nodes.is_empty() {
                        continue;
                    }
                    a.placement = match entry.parent {
                        Parent::Block { .. } => Placement::InBlock,
                        Parent::Sole => Placement::Sole,
                    };
                    a.pragmas = pragmas;
                    let clash_w: Vec<&String> = a.writes.intersection(&run_params).collect();
                    let clash_p: Vec<&String> = a
                        .params
                        .keys()
                        .filter(|p| run_writes.contains(*p))
                        .collect();
                    let mut clash_i: Vec<&String> =
                        a.scalar_reads.intersection(&run_iterators).collect();
                    clash_i.extend(a.iterators.intersection(&run_scalar_reads));
                    if let Some(name) = clash_i.first() {
                        if mode == Mode::Pragma {
                            self.sink.push(
                                Diagnostic::new(
Code::IteratorReadAfterLoop,
                                    format!("loop iterator `{name}` is also read as a value in this SCoP region"),
                                    keyword_span(self.source, &a.span),
                                    "the region is split before this statement",
                                )
                                .with_note("the final value of a loop iterator is not modelled"),
                            );
                        }
                        self.flush(&mut run, mode, f);
                        run_writes.clear();
                        run_params.clear();
                        run_iterators.clear();
                        run_scalar_reads.clear();
                    } else if !clash_w.is_empty() || !clash_p.is_empty() {
                        if mode == Mode::Pragma {
                            let name = clash_w
                                .first()
                                .or(clash_p.first())
                                .map_or("", |s| s.as_str());
                            self.sink.push(
                                Diagnostic::new(
Code::ParameterWritten,
                                    format!("`{name}` is both written and used as a parameter in this SCoP region"),
                                    keyword_span(self.source, &a.span),
                                    "the region is split before this statement",
                                )
                                .with_note("a parameter must keep its value during the whole SCoP"),
                            );
                        }
                        self.flush(&mut run, mode, f);
                        run_writes.clear();
                        run_params.clear();
                        run_iterators.clear();
                        run_scalar_reads.clear();
                    }
                    run_writes.extend(a.writes.iter().cloned());
                    run_params.extend(a.params.keys().cloned());
                    run_iterators.extend(a.iterators.iter().cloned());
                    run_scalar_reads.extend(a.scalar_reads.iter().cloned());
                    run.push(a);
                }
                None => {
                    if mode == Mode::Pragma || contains_loop(item) {
                        for d in an.diags.drain(..) {
                            self.sink.push(d);
                        }
                    }
                    self.flush(&mut run, mode, f);
                    run_writes.clear();
                    run_params.clear();
                    run_iterators.clear();
                    run_scalar_reads.clear();
                    if let CStmt::Other { kind, span, .. } = item
                        && kind.starts_with("preproc_")
                    {
                        // `#if`/`#ifdef` inside a function: which branch is
                        // compiled may change with the build; none is
                        // analysed (the names used there are uses outside
                        // every SCoP, so the arrays keep their layout).
                        if contains_loop(item) {
                            self.sink.push(
                                Diagnostic::new(
Code::LoopsUnderConditional,
                                    "loops under a preprocessor conditional inside a function are not analysed",
                                    keyword_span(self.source, span),
                                    "no SCoP is searched inside this block",
                                )
                                .with_note("move the conditional outside the function, or select the code with a parameter"),
                            );
                        }
                        continue;
                    }
                    // A statement a `goto` may jump to stays out of every
                    // SCoP, with what it holds (the analysis said why).
                    if labels::labelled(item)
                        .is_some_and(|(label, _)| self.goto_targets.contains(label))
                    {
                        continue;
                    }
                    for child in child_lists(item) {
                        self.process_list(&child, mode, f);
                    }
                }
            }
        }
        self.flush(&mut run, mode, f);
    }

    /// `attached` (the spans of the pragma items right before the
    /// statement at `start`) with the pragma lines that apply to the
    /// statement from inside a conditional that also holds other
    /// directives (`#ifdef _OPENMP` / `#include <omp.h>` / `#pragma omp
    /// parallel for` / `#endif`): these go with the statement if it is
    /// deleted, and keep it from moving, as its own pragma lines do.
    fn with_conditional_pragmas(
        &self,
        start: usize,
        mut attached: Vec<Range<usize>>,
    ) -> Vec<Range<usize>> {
        for p in parallel::pragmas_before(self.source, &self.file.pragmas, start) {
            let covered = attached
                .iter()
                .any(|a| a.start <= p.span.start && p.span.end <= a.end);
            if !covered && syntax::pragma_applies_to_next(&p.text) {
                attached.push(p.span.clone());
            }
        }
        attached.sort_by_key(|r| (r.start, r.end));
        attached
    }

    /// A warning when an array of `scop` declared outside its function `f`
    /// sees other macros there than `f` does (a macro of its declaration
    /// or a parameter of the SCoP `#undef`ined or redefined in between):
    /// its extents and the pins printed at its declaration would read
    /// other values than the function's, so the SCoP is left out.
    fn macros_differ_outside(&self, scop: &Scop, f: &Function) -> Option<Diagnostic> {
        for array in &scop.arrays {
            let Some(decl) = array.decl_span.as_ref() else {
                continue;
            };
            if f.span.start <= decl.start && decl.end <= f.span.end {
                continue;
            }
            let mut names: Vec<String> = scop.params.iter().map(|p| p.name.clone()).collect();
            let text = self.source.get(decl.clone()).unwrap_or("");
            names.extend(
                crate::util::c_text::identifier_tokens(text, false)
                    .into_iter()
                    .map(|(_, w)| w),
            );
            let Some(name) =
                self.positions
                    .first_difference(names, self.current, f.span.start, decl.start)
            else {
                continue;
            };
            return Some(
                Diagnostic::new(
Code::MacroMeaningChanged,
                    format!(
                        "macro `{name}` means something else at the declaration of `{}` than in function `{}`",
                        array.name, f.name
                    ),
                    keyword_span(self.source, &scop.span),
                    "this code stays out of the SCoPs",
                )
                .with_note(format!(
                    "`{name}` is #undef'd or redefined between them (or unknown at one of them): the extents of `{}` and a pin at its declaration would read another value",
                    array.name
                )),
            );
        }
        None
    }

    fn flush(&mut self, run: &mut Vec<Analyzed>, mode: Mode, f: &'a Function) {
        let taken = std::mem::take(run);
        if !taken.iter().any(|a| a.has_loop) {
            // Statements of a `#pragma scop` region are never dropped
            // silently: a part without loops (cut off by a rejected
            // statement, or a region without loops) is said to be left out.
            if mode == Mode::Pragma
                && let Some(first) = taken.first()
            {
                let n: usize = taken.iter().map(|a| a.nodes.len()).sum();
                self.sink.push(
                    Diagnostic::new(
Code::RegionWithoutLoop,
                        format!(
                            "{n} statement{} of the `#pragma scop` region left out of every SCoP",
                            if n == 1 { "" } else { "s" }
                        ),
                        first.span.clone(),
                        "no loop in this part of the region",
                    )
                    .with_note("a SCoP needs a loop; the statements around this part were rejected or split it off (see the warnings above)"),
                );
            }
            return;
        }
        let cx = LowerContext {
            body: &f.body,
            source: self.source,
            macros: self.macros,
            scopes: self.scopes,
            function: &f.name,
            function_span: f.span.clone(),
            kind: if mode == Mode::Pragma {
                ScopKind::Pragma
            } else {
                ScopKind::Inferred
            },
            id: ScopId(self.scops.len() as u32),
            enclosing_parallel: taken
                .first()
                .zip(taken.last())
                .map(|(a, b)| {
                    parallel::enclosing_parallel_loops(
                        self.source,
                        &self.file.pragmas,
                        &f.body,
                        &(a.span.start..b.span.end),
                    )
                })
                .unwrap_or_default(),
            rotation_unproven: std::cell::Cell::new(false),
            effects: self.effects,
            aliasing: self.aliasing,
            buffers: self.buffers,
            function_def: f,
        };
        match lower_run(&taken, &cx) {
            Some(scop) => {
                if scop.stmts.is_empty() {
                    return;
                }
                if let Some(d) = self.macros_differ_outside(&scop, f) {
                    self.sink.push(d);
                    return;
                }
                if cfg!(debug_assertions)
                    && let Err(e) = crate::ir::verify(&scop, self.source)
                {
                    panic!("internal error: IR invariant broken after lowering: {e}");
                }
                self.scops.push(scop);
            }
            None if cx.rotation_unproven.get() => {
                let span = taken.first().map_or(0..0, |a| a.span.clone());
                self.sink.push(
                    Diagnostic::new(
Code::UnsupportedLoop,
                        "unsupported loop form: a rotating index is not proven to hold its residue",
                        keyword_span(self.source, &span),
                        "this code stays out of the SCoPs",
                    )
                    .with_note("a rotating index `r = e % b` holds the residue of `e` only if `e >= 0` where its loop runs (else start it with `(e % b + b) % b`) and its step is below `b` (or its loop runs no iteration)"),
                );
            }
            None => {
                let span = taken.first().map_or(0..0, |a| a.span.clone());
                self.sink.push(Diagnostic::new(
                    Code::Overflow,
                    "coefficient overflow while building the polyhedral model",
                    keyword_span(self.source, &span),
                    "this code stays out of the SCoPs",
                ));
            }
        }
    }
}

/// Replaces every declarator written as a call of a function-like macro
/// (`double POLYBENCH_2D(A, N, N, n, n)`, `double ARR_1D(A, N)`) by the
/// declarator it expands to, in parameters, globals and local
/// declarations. A call that does not expand to one declarator whose name
/// the user wrote stays as it was (a function declarator: no array).
fn expand_macro_declarators(
    file: &mut SyntaxFile,
    views: &FunctionMacros,
    source: &str,
) -> Vec<Diagnostic> {
    if views.views.iter().all(|m| m.table.functions.is_empty()) {
        return Vec::new();
    }
    let notes = std::cell::RefCell::new(Vec::new());
    // `local`: a declaration inside a function body, whose array could be
    // a temporary; it keeps its layout, and a note says why.
    let fix = |decl: &mut syntax::Decl, local: bool, macros: &Macros| {
        for dc in decl.declarators.iter_mut() {
            if dc.is_function
                && macros.table.function(&dc.name).is_some()
                && let Some(mut new) = macros.expand_declarator(source, dc.span.clone())
            {
                if local && !new.dims.is_empty() {
                    notes.borrow_mut().push(
                        Diagnostic::new(
Code::MacroDeclarator,
                            format!(
                                "array `{}` is declared through the macro `{}`",
                                new.name, dc.name
                            ),
                            dc.span.clone(),
                            "its declarator is the macro's text, not the file's",
                        )
                        .with_note("polyfold never rewrites text inside a macro: this array keeps its layout"),
                    );
                }
                new.init = dc.init.take();
                *dc = new;
            }
        }
    };
    fn in_stmt(s: &mut CStmt, fix: &dyn Fn(&mut syntax::Decl, bool)) {
        match s {
            CStmt::Decl { decl, .. } => fix(decl, true),
            CStmt::For { init, body, .. } => {
                if let syntax::ForInit::Decl(d) = init {
                    fix(d, true);
                }
                in_stmt(body, fix);
            }
            CStmt::If { then, els, .. } => {
                in_stmt(then, fix);
                if let Some(e) = els {
                    in_stmt(e, fix);
                }
            }
            CStmt::Compound { items, .. } => items.iter_mut().for_each(|i| in_stmt(i, fix)),
            CStmt::Other { children, .. } => children.iter_mut().for_each(|i| in_stmt(i, fix)),
            CStmt::Expr { .. } | CStmt::Empty { .. } | CStmt::Preproc { .. } => {}
        }
    }
    for (k, g) in file.globals.iter_mut().enumerate() {
        fix(g, false, views.of_global(k));
    }
    for (k, f) in file.functions.iter_mut().enumerate() {
        let macros = views.of_function(k);
        for p in f.params.iter_mut() {
            fix(p, false, macros);
        }
        in_stmt(&mut f.body, &|d, local| fix(d, local, macros));
    }
    notes.into_inner()
}

/// Keeps the elements of `all` whose index is in `active` (sorted).
fn keep_active<T>(all: &mut Vec<T>, active: &[usize]) {
    let taken = std::mem::take(all);
    *all = taken
        .into_iter()
        .enumerate()
        .filter(|(k, _)| active.binary_search(k).is_ok())
        .map(|(_, x)| x)
        .collect();
}

/// The first word of a span (to underline a keyword rather than a block).
fn keyword_span(source: &str, span: &Range<usize>) -> Range<usize> {
    let text = source.get(span.clone()).unwrap_or("");
    let n = text
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(text.len())
        .max(1)
        .min(text.len());
    span.start..span.start + n
}

/// Where a statement of a list sits in its parent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Parent {
    /// Item `index` of the block starting at byte `block`.
    Block { block: usize, index: usize },
    /// The only statement of its parent (a brace-less body or branch).
    Sole,
}

/// A statement to analyse and where it sits.
#[derive(Clone, Copy)]
struct Item<'a> {
    stmt: &'a CStmt,
    parent: Parent,
}

impl<'a> Item<'a> {
    fn sole(stmt: &'a CStmt) -> Item<'a> {
        Item {
            stmt,
            parent: Parent::Sole,
        }
    }
}

/// The spans of the pragmas of `pending` that are the items of the same
/// block right before an item at `parent`.
fn attached_pragmas(pending: &[(Range<usize>, Parent)], parent: Parent) -> Vec<Range<usize>> {
    let Parent::Block { block, index } = parent else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut want = index;
    for (span, p) in pending.iter().rev() {
        match p {
            Parent::Block { block: b, index: i } if *b == block && i + 1 == want => {
                out.push(span.clone());
                want = *i;
            }
            _ => break,
        }
    }
    out.reverse();
    out
}

/// The statement lists inside a statement, for recursion into rejected
/// statements.
fn child_lists(stmt: &CStmt) -> Vec<Vec<Item<'_>>> {
    fn as_list(s: &CStmt) -> Vec<Item<'_>> {
        match s {
            CStmt::Compound { .. } => child_lists(s).into_iter().flatten().collect(),
            other => vec![Item::sole(other)],
        }
    }
    match stmt {
        CStmt::Compound { items, span } => vec![block_items(items, span)],
        CStmt::For { body, .. } => vec![as_list(body)],
        CStmt::If { then, els, .. } => {
            let mut v = vec![as_list(then)];
            if let Some(e) = els {
                v.push(as_list(e));
            }
            v
        }
        CStmt::Other { children, .. } => children.iter().map(as_list).collect(),
        _ => Vec::new(),
    }
}

/// The statements of the block `{ items }` at `span`, with their places.
fn block_items<'s>(items: &'s [CStmt], span: &Range<usize>) -> Vec<Item<'s>> {
    items
        .iter()
        .enumerate()
        .map(|(index, stmt)| Item {
            stmt,
            parent: Parent::Block {
                block: span.start,
                index,
            },
        })
        .collect()
}

/// The maximal statements inside `region` (a byte range between pragmas).
fn region_items<'s>(stmt: &'s CStmt, region: &Range<usize>, out: &mut Vec<Item<'s>>) {
    let inside = |s: &CStmt| {
        let sp = s.span();
        sp.start >= region.start && sp.end <= region.end
    };
    let overlaps = |s: &CStmt| {
        let sp = s.span();
        sp.start < region.end && sp.end > region.start
    };
    let children: Vec<Item> = match stmt {
        CStmt::Compound { items, span } => block_items(items, span),
        CStmt::For { body, .. } => vec![Item::sole(body)],
        CStmt::If { then, els, .. } => {
            let mut v = vec![Item::sole(then)];
            if let Some(e) = els {
                v.push(Item::sole(e));
            }
            v
        }
        CStmt::Other { children, .. } => children.iter().map(Item::sole).collect(),
        _ => Vec::new(),
    };
    for c in children {
        if inside(c.stmt) {
            out.push(c);
        } else if overlaps(c.stmt) {
            region_items(c.stmt, region, out);
        }
    }
}

impl SyntaxFile {
    /// The pragmas inside a byte range, in order.
    pub(crate) fn pragmas_in(&self, range: Range<usize>) -> Vec<&syntax::Pragma> {
        self.pragmas
            .iter()
            .filter(|p| p.span.start >= range.start && p.span.end <= range.end)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Place;

    /// A PF016 records where the division is as data (the verifier asks
    /// for subscripts), whatever the names in its text.
    #[test]
    fn a_quasi_affine_rejection_records_its_place() {
        let source = "void f(int n, int subscript, double A[100], double B[100]) {\n\
                      for (int i = 0; i < 100; i++) A[i % n] = 1.0;\n\
                      for (int i = 0; i < 100 / subscript; i++) B[i] = 2.0;\n\
                      }\n";
        let program = extract("k.c", source, &Options::default());
        let places: Vec<Option<Place>> = program
            .diagnostics
            .iter()
            .filter(|d| d.code == Code::QuasiAffine)
            .map(|d| d.place)
            .collect();
        assert_eq!(
            places,
            vec![Some(Place::Subscript), Some(Place::Bound)],
            "{:?}",
            program.diagnostics
        );
    }
}
