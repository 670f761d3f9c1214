//! Loops marked parallel by a pragma: `#pragma omp parallel for`, `omp for`,
//! `omp simd`, `omp ... distribute ...`, `acc loop`, `GCC ivdep`, `clang
//! loop vectorize(assume_safety)`, and the like.
//!
//! The iterations of such a loop are unordered (threads, SIMD lanes, or a
//! compiler told to ignore dependences): the storage analysis must not let
//! two of them share a location. The rule here is conservative: any pragma
//! directly before a `for` (blank lines, comments, other pragmas and the
//! lines of preprocessor conditionals in between allowed, so a pragma in
//! any branch of `#ifdef _OPENMP` ... `#else` ... `#endif` counts whichever
//! branch is compiled) that could mean "these iterations may overlap"
//! marks it; marking too much only keeps more storage. `_Pragma("...")`
//! operators, and macros that expand only to them, are pragmas at their
//! span (see `masks`).
//!
//! What this module does not do: it does not model `nowait`, tasks,
//! sections or redundant execution by every thread of a `#pragma omp
//! parallel` region (a loop directly after such a pragma is marked, which
//! covers its iterations only); a task pragma written as `_Pragma` or
//! through a macro is not seen by [`unmodelled_concurrency`], which reads
//! the SCoP's text (`#pragma` lines and `_Pragma("...")` operators).

use std::ops::Range;

use super::syntax::{CStmt, Expr, ExprKind, ForInit, Pragma};
use crate::ir::ParallelMark;

/// A loop marked parallel that encloses a region: its iterator name, its
/// mark and its whole span.
#[derive(Clone, Debug)]
pub(crate) struct EnclosingLoop {
    pub iterator: String,
    pub mark: ParallelMark,
    pub span: Range<usize>,
}

/// The loops marked parallel whose bodies contain `region` (outermost
/// first), in the statement tree `stmt`. A SCoP nested in one of them runs
/// once per iteration, at the same time as the other iterations.
pub(crate) fn enclosing_parallel_loops(
    source: &str,
    pragmas: &[Pragma],
    stmt: &CStmt,
    region: &Range<usize>,
) -> Vec<EnclosingLoop> {
    let mut out = Vec::new();
    walk_enclosing(source, pragmas, stmt, region, &mut out);
    out
}

fn walk_enclosing(
    source: &str,
    pragmas: &[Pragma],
    stmt: &CStmt,
    region: &Range<usize>,
    out: &mut Vec<EnclosingLoop>,
) {
    let span = stmt.span();
    if !(span.start <= region.start && region.end <= span.end) {
        return;
    }
    match stmt {
        CStmt::For {
            init,
            body,
            header_span,
            ..
        } => {
            let body_span = body.span();
            if body_span.start <= region.start
                && region.end <= body_span.end
                && let Some((mark, _)) = parallel_mark_before(source, pragmas, header_span.start)
            {
                let iterator = match init {
                    ForInit::Expr(Expr {
                        kind: ExprKind::Assign(None, lhs, _),
                        ..
                    }) => match &lhs.kind {
                        ExprKind::Ident(n) => n.clone(),
                        _ => "?".into(),
                    },
                    ForInit::Decl(d) => d
                        .declarators
                        .first()
                        .map_or_else(|| "?".into(), |d| d.name.clone()),
                    _ => "?".into(),
                };
                out.push(EnclosingLoop {
                    iterator,
                    mark,
                    span: span.clone(),
                });
            }
            walk_enclosing(source, pragmas, body, region, out);
        }
        CStmt::If { then, els, .. } => {
            walk_enclosing(source, pragmas, then, region, out);
            if let Some(e) = els {
                walk_enclosing(source, pragmas, e, region, out);
            }
        }
        CStmt::Compound { items, .. } => {
            for it in items {
                walk_enclosing(source, pragmas, it, region, out);
            }
        }
        CStmt::Other { children, .. } => {
            for c in children {
                walk_enclosing(source, pragmas, c, region, out);
            }
        }
        _ => {}
    }
}

/// The parallel mark of the `for` loop that starts at byte `for_start`, and
/// how many nested loops it covers (`collapse(k)` gives `k`; a count that
/// cannot be read gives `usize::MAX`, every nested loop).
pub(crate) fn parallel_mark_before(
    source: &str,
    pragmas: &[Pragma],
    for_start: usize,
) -> Option<(ParallelMark, usize)> {
    let mut found: Option<(ParallelMark, usize)> = None;
    for p in pragmas_before(source, pragmas, for_start) {
        let directive = normalise(&p.text);
        if let Some(count) = loops_marked(&directive) {
            let mark = ParallelMark {
                directive,
                span: p.span.clone(),
            };
            found = match found {
                // The pragma nearest the loop names it; a wider
                // collapse of another pragma still counts.
                Some((m, c)) => Some((m, c.max(count))),
                None => Some((mark, count)),
            };
        }
    }
    found
}

/// The pragmas right before the statement that starts at byte `start`,
/// nearest first: the walk back goes over blanks, comments, pragma lines
/// (and `_Pragma(...)`, recorded as pragmas), and the lines of
/// preprocessor conditionals (`#if`, `#ifdef`, `#ifndef`, `#elif`,
/// `#else`, `#endif`), so that a pragma in any branch of a conditional
/// around the statement's header counts, whichever branch is compiled.
/// It stops at anything else (code, another directive).
pub(crate) fn pragmas_before<'p>(
    source: &str,
    pragmas: &'p [Pragma],
    start: usize,
) -> Vec<&'p Pragma> {
    let mut pos = start.min(source.len());
    let mut out = Vec::new();
    // Bounded: each round moves `pos` strictly back.
    while let Some(before) = source.get(..pos).map(str::trim_end) {
        let end = before.len();
        if end == 0 {
            break;
        }
        if before.ends_with("*/") {
            match before[..end - 2].rfind("/*") {
                Some(k) => {
                    pos = k;
                    continue;
                }
                None => break,
            }
        }
        // Every pragma that ends here (a macro use may stand for several).
        let here: Vec<&Pragma> = pragmas
            .iter()
            .filter(|p| p.span.start < end && end <= p.span.end)
            .collect();
        if let Some(start) = here.iter().map(|p| p.span.start).min() {
            out.extend(here.iter().rev());
            if start >= pos {
                break;
            }
            pos = start;
            continue;
        }
        let line_start = logical_line_start(before, end);
        let line = before[line_start..].trim_start();
        if line.starts_with("//") || is_conditional_directive(line) {
            pos = line_start;
            continue;
        }
        // A `//` comment after code is not skipped: the code stops the walk.
        break;
    }
    out
}

/// The start of the logical line that ends at byte `end` of `text`: lines
/// spliced by a `\` at their end belong to the line after them.
fn logical_line_start(text: &str, end: usize) -> usize {
    let mut start = text[..end].rfind('\n').map_or(0, |k| k + 1);
    while start > 0 {
        let previous = text[..start - 1].trim_end_matches('\r');
        if !previous.ends_with('\\') {
            break;
        }
        start = previous.rfind('\n').map_or(0, |k| k + 1);
    }
    start
}

/// Whether `line` (trimmed at its start) is a line of a preprocessor
/// conditional: `#if`, `#ifdef`, `#ifndef`, `#elif`, `#elifdef`,
/// `#elifndef`, `#else` or `#endif`.
fn is_conditional_directive(line: &str) -> bool {
    let Some(rest) = line.strip_prefix('#') else {
        return false;
    };
    let word: String = rest
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    matches!(
        word.as_str(),
        "if" | "ifdef" | "ifndef" | "elif" | "elifdef" | "elifndef" | "else" | "endif"
    )
}

/// Why the statements of `scop` may run concurrently in ways that the
/// parallel loop marks do not describe, if they may: a marked loop with
/// `nowait` or `async` (the statements after it need not wait for it), or
/// a pragma inside the SCoP that starts tasks or sections. The caller
/// keeps the layout of every temporary of such a SCoP.
pub(crate) fn unmodelled_concurrency(source: &str, scop: &crate::ir::Scop) -> Option<String> {
    const ASYNC: [&str; 2] = ["nowait", "async"];
    const TASKS: [&str; 7] = [
        "task",
        "sections",
        "section",
        "nowait",
        "async",
        "depend",
        "taskgroup",
    ];
    for (iterator, mark) in scop.parallel_loops(None) {
        if words(&mark.directive)
            .iter()
            .any(|w| ASYNC.contains(&w.as_str()))
        {
            return Some(format!(
                "{}, with no barrier after it: the code after the loop may run at the same time, which is not modelled",
                mark.describe(source, &iterator)
            ));
        }
    }
    let text = source.get(scop.span.clone())?;
    let mut at = scop.span.start;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        // `#pragma X`, or `_Pragma("X")` on the line.
        let directive = match t.strip_prefix('#') {
            Some(rest) => rest.trim_start().strip_prefix("pragma").map(str::to_string),
            None => t
                .find("_Pragma")
                .and_then(|k| t[k + "_Pragma".len()..].trim_start().strip_prefix('('))
                .and_then(|r| r.trim_start().strip_prefix('"'))
                .and_then(|r| r.split('"').next())
                .map(str::to_string),
        };
        if let Some(rest) = directive.as_deref() {
            let w = words(rest);
            let vendor = w.first().map(String::as_str);
            if matches!(vendor, Some("omp" | "acc"))
                && w.iter().any(|x| TASKS.contains(&x.as_str()))
            {
                let line_no = source[..at].matches('\n').count() + 1;
                return Some(format!(
                    "`#pragma {}` at line {line_no} runs code asynchronously, which is not modelled",
                    normalise(rest)
                ));
            }
        }
        at += line.len();
    }
    None
}

/// Blanks and line continuations made single spaces.
fn normalise(text: &str) -> String {
    text.replace("\\\r\n", " ")
        .replace("\\\n", " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The lowercase words of a directive (letters, digits, `_`).
fn words(directive: &str) -> Vec<String> {
    directive
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect()
}

/// `Some(k)` when `directive` marks the loop after it (and `k - 1` nested
/// loops) parallel, `None` when it does not.
pub(crate) fn loops_marked(directive: &str) -> Option<usize> {
    let w = words(directive);
    let first = w.first()?.as_str();
    let has = |x: &str| w.iter().any(|y| y == x);
    let parallel = match first {
        "scop" | "endscop" | "polyfold" => false,
        "omp" | "acc" => [
            "for",
            "loop",
            "simd",
            "distribute",
            "taskloop",
            "parallel",
            "kernels",
            "teams",
            "workshare",
        ]
        .iter()
        .any(|x| has(x)),
        "clang" => has("assume_safety"),
        "gcc" => has("ivdep"),
        _ => [
            "ivdep",
            "simd",
            "independent",
            "concurrent",
            "dependence",
            "parallel",
            "assume_safety",
        ]
        .iter()
        .any(|x| has(x)),
    };
    if !parallel {
        return None;
    }
    let mut count = 1usize;
    if let Some(arg) = clause_argument(directive, "collapse") {
        count = count.max(arg.trim().parse::<usize>().unwrap_or(usize::MAX));
    }
    if first == "acc"
        && let Some(arg) = clause_argument(directive, "tile")
    {
        count = count.max(arg.split(',').count());
    }
    Some(count.max(1))
}

/// The text between the parentheses of `clause(...)` in `directive`.
fn clause_argument<'d>(directive: &'d str, clause: &str) -> Option<&'d str> {
    let lower = directive.to_ascii_lowercase();
    let mut from = 0;
    while let Some(k) = lower[from..].find(clause) {
        let at = from + k;
        let word_start = at == 0 || {
            let c = lower.as_bytes()[at - 1];
            !(c.is_ascii_alphanumeric() || c == b'_')
        };
        let rest = lower[at + clause.len()..].trim_start();
        if word_start && rest.starts_with('(') {
            let open = directive.len() - rest.len();
            let close = directive[open..].find(')')? + open;
            return Some(&directive[open + 1..close]);
        }
        from = at + clause.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_directives() {
        assert_eq!(loops_marked("omp parallel for"), Some(1));
        assert_eq!(
            loops_marked("omp parallel for private(j) schedule(static)"),
            Some(1)
        );
        assert_eq!(loops_marked("omp for collapse(2)"), Some(2));
        assert_eq!(
            loops_marked("omp parallel for collapse (3) private(k)"),
            Some(3)
        );
        assert_eq!(loops_marked("omp for collapse(K)"), Some(usize::MAX));
        assert_eq!(loops_marked("omp simd"), Some(1));
        assert_eq!(loops_marked("omp parallel for simd"), Some(1));
        assert_eq!(
            loops_marked("omp target teams distribute parallel for"),
            Some(1)
        );
        assert_eq!(loops_marked("GCC ivdep"), Some(1));
        assert_eq!(loops_marked("ivdep"), Some(1));
        assert_eq!(loops_marked("clang loop vectorize(assume_safety)"), Some(1));
        assert_eq!(loops_marked("acc parallel loop"), Some(1));
        assert_eq!(loops_marked("acc loop tile(8, 8)"), Some(2));
        assert_eq!(
            loops_marked("HLS dependence variable=row inter false"),
            Some(1)
        );
        assert_eq!(loops_marked("scop"), None);
        assert_eq!(loops_marked("endscop"), None);
        assert_eq!(loops_marked("GCC unroll 4"), None);
        assert_eq!(loops_marked("clang loop unroll(enable)"), None);
        assert_eq!(loops_marked("polyfold temp(a)"), None);
        assert_eq!(loops_marked("once"), None);
        assert_eq!(loops_marked(""), None);
    }

    fn pragmas_of(src: &str) -> Vec<Pragma> {
        let mut out = Vec::new();
        let mut at = 0;
        for line in src.split_inclusive('\n') {
            let t = line.trim_end_matches(['\n', '\r']);
            if let Some(rest) = t.trim_start().strip_prefix("#pragma") {
                let start = at + (t.len() - t.trim_start().len());
                out.push(Pragma {
                    text: rest.trim().to_string(),
                    span: start..at + t.len(),
                });
            }
            at += line.len();
        }
        out
    }

    #[test]
    fn finds_the_pragma_before_a_loop() {
        let src = "int x;\n#pragma omp parallel for private(j)\n  // rows\n  /* all */\n  for (i = 0; i < N; i++) x++;\n";
        let ps = pragmas_of(src);
        let at = src.find("for (").unwrap();
        let (m, k) = parallel_mark_before(src, &ps, at).unwrap();
        assert_eq!(m.directive, "omp parallel for private(j)");
        assert_eq!(k, 1);
        assert_eq!(m.span.start, src.find("#pragma").unwrap());
        // Stacked pragmas: the `scop` one is skipped, the collapse is kept.
        let src = "#pragma omp for collapse(2)\n#pragma scop\nfor (i = 0; i < N; i++) ;\n";
        let ps = pragmas_of(src);
        let at = src.find("for (").unwrap();
        assert_eq!(parallel_mark_before(src, &ps, at).unwrap().1, 2);
        // A statement in between: not marked.
        let src = "#pragma omp parallel for\nx = 1;\nfor (i = 0; i < N; i++) ;\n";
        let ps = pragmas_of(src);
        let at = src.find("for (").unwrap();
        assert!(parallel_mark_before(src, &ps, at).is_none());
        let src = "for (i = 0; i < N; i++) ;\n";
        assert!(parallel_mark_before(src, &[], 0).is_none());
    }

    #[test]
    fn pragmas_in_any_branch_of_a_conditional_count() {
        let src = "x = 1;\n#if defined(_OPENMP) && \\\n    USE_OMP\n#pragma omp parallel for collapse(2)\n#elif defined(__GNUC__)\n  #pragma GCC ivdep\n#else\n/* none */\n#endif\nfor (i = 0; i < N; i++) ;\n";
        let ps = pragmas_of(src);
        let at = src.find("for (").unwrap();
        let found: Vec<&str> = pragmas_before(src, &ps, at)
            .iter()
            .map(|p| p.text.as_str())
            .collect();
        assert_eq!(found, ["GCC ivdep", "omp parallel for collapse(2)"]);
        let (mark, count) = parallel_mark_before(src, &ps, at).unwrap();
        assert_eq!(mark.directive, "GCC ivdep");
        assert_eq!(count, 2);
        // Code inside the conditional stops the walk.
        let src =
            "#ifdef _OPENMP\n#pragma omp parallel for\nx = 1;\n#endif\nfor (i = 0; i < N; i++) ;\n";
        let ps = pragmas_of(src);
        assert!(parallel_mark_before(src, &ps, src.find("for (").unwrap()).is_none());
        // Two pragmas at one span (a macro that expands to both).
        let src = "P for (i = 0; i < N; i++) ;\n";
        let ps = vec![
            Pragma {
                text: "GCC unroll 4".into(),
                span: 0..1,
            },
            Pragma {
                text: "omp simd".into(),
                span: 0..1,
            },
        ];
        assert_eq!(
            parallel_mark_before(src, &ps, 2).map(|(m, _)| m.directive),
            Some("omp simd".to_string())
        );
    }
}
