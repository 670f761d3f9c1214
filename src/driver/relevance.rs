//! Which warnings and notes are worth showing by default (issue 50,
//! "quiet by default"): those about code polyfold could transform.
//!
//! A *candidate loop nest* is an outermost loop of a function that writes
//! an element of a candidate array: an array (or pointer) declared in
//! that function that polyfold has not folded already (its declaration
//! carries no `/* polyfold: ... */` comment on its line or the line
//! before), or an array parameter that is not `const` (a caller may lend
//! a temporary) of a function polyfold has not transformed already (no
//! `/* polyfold:` comment in it). A warning or a
//! note inside a function is shown by default only when it is inside a
//! candidate loop nest, inside a SCoP with a temporary, or outside every
//! loop of a function that has a candidate loop nest. Everything else —
//! test-harness loops that print or sum, code that polyfold's own output
//! left in rotating scalars — is background, shown with `-v`.
//! Diagnostics outside every function (whole-file notes, preprocessor
//! lines, `-D` names) and errors are always shown.

use std::collections::BTreeSet;
use std::ops::Range;

use crate::analysis::liveness::{LivenessOverrides, classify};
use crate::diag::{Diagnostic, Severity};
use crate::frontend::syntax::{CStmt, Decl, ExprKind, ForInit, parse_file};
use crate::ir::{Liveness, Program};

/// The parts of a file that decide whether a diagnostic is shown.
pub(crate) struct Relevance {
    /// Per function: its span, the spans of its candidate loop nests, and
    /// the spans of its other outermost loops.
    functions: Vec<FunctionLoops>,
    /// The spans of the SCoPs that have a temporary.
    scops: Vec<Range<usize>>,
    /// Whether the file could not be read here (everything is shown).
    unknown: bool,
}

struct FunctionLoops {
    span: Range<usize>,
    candidates: Vec<Range<usize>>,
    others: Vec<Range<usize>>,
}

fn inside(span: &Range<usize>, outer: &Range<usize>) -> bool {
    outer.start <= span.start && span.start < outer.end.max(outer.start + 1)
}

/// Whether the declaration at `span` of `source` is polyfold's output: a
/// `/* polyfold:` comment on its first line or on the line before.
pub(crate) fn folded_by_polyfold(source: &str, span: &Range<usize>) -> bool {
    let start = span.start.min(source.len());
    let line_start = source[..start].rfind('\n').map_or(0, |i| i + 1);
    let previous = source[..line_start.saturating_sub(1)]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let line_end = source[start..]
        .find('\n')
        .map_or(source.len(), |i| start + i);
    source
        .get(previous..line_end)
        .is_some_and(|text| text.contains("/* polyfold:"))
}

impl Relevance {
    /// Reads `source` (already extracted as `program`) with the
    /// `--temp`/`--live-out` overrides.
    pub(crate) fn of(source: &str, program: &Program, overrides: &LivenessOverrides) -> Relevance {
        let scops = program
            .scops
            .iter()
            .filter(|scop| {
                let overrides = overrides.in_function(&scop.function);
                scop.arrays.iter().any(|a| {
                    classify(a, &overrides).liveness == Liveness::Temporary
                        && !a
                            .decl_span
                            .as_ref()
                            .is_some_and(|span| folded_by_polyfold(source, span))
                })
            })
            .map(|scop| scop.span.clone())
            .collect();
        let Some(file) = parse_file(source).filter(|f| f.first_error.is_none()) else {
            return Relevance {
                functions: Vec::new(),
                scops,
                unknown: true,
            };
        };
        let functions = file
            .functions
            .iter()
            .map(|f| {
                let mut arrays = BTreeSet::new();
                local_arrays(&f.body, source, &mut arrays);
                // The array parameters a caller may lend as temporaries,
                // unless polyfold's output already folded this function.
                let output = source
                    .get(f.span.clone())
                    .is_some_and(|t| t.contains("/* polyfold:"));
                if !output {
                    for decl in f.params.iter().filter(|d| !d.has_qualifier("const")) {
                        for d in &decl.declarators {
                            if !d.dims.is_empty() || d.is_pointer {
                                arrays.insert(d.name.clone());
                            }
                        }
                    }
                }
                let mut loops = Vec::new();
                outer_loops(&f.body, &mut loops);
                let (mut candidates, mut others) = (Vec::new(), Vec::new());
                for l in loops {
                    if writes_any(l, &arrays) {
                        candidates.push(l.span());
                    } else {
                        others.push(l.span());
                    }
                }
                FunctionLoops {
                    span: f.span.clone(),
                    candidates,
                    others,
                }
            })
            .collect();
        Relevance {
            functions,
            scops,
            unknown: false,
        }
    }

    /// Whether `d` is shown by default (without `-v`).
    pub(crate) fn shown(&self, d: &Diagnostic) -> bool {
        // A whole-file note (PF002, PF003) has no place in a function.
        let whole_file = d.span.is_empty() && d.label.is_empty();
        if self.unknown
            || whole_file
            || d.severity() == Severity::Error
            || self.scops.iter().any(|s| inside(&d.span, s))
        {
            return true;
        }
        let Some(f) = self.functions.iter().find(|f| inside(&d.span, &f.span)) else {
            return true;
        };
        if f.candidates.iter().any(|l| inside(&d.span, l)) {
            return true;
        }
        !f.candidates.is_empty() && !f.others.iter().any(|l| inside(&d.span, l))
    }
}

/// The names of the arrays and pointers declared in `stmt` (loop
/// initialisers included) that polyfold has not folded already.
fn local_arrays(stmt: &CStmt, source: &str, out: &mut BTreeSet<String>) {
    let mut add = |decl: &Decl| {
        for d in &decl.declarators {
            if (!d.dims.is_empty() || d.is_pointer)
                && !d.is_function
                && !folded_by_polyfold(source, &decl.span)
            {
                out.insert(d.name.clone());
            }
        }
    };
    match stmt {
        CStmt::Decl { decl, .. } => add(decl),
        CStmt::For { init, body, .. } => {
            if let ForInit::Decl(d) = init {
                add(d);
            }
            local_arrays(body, source, out);
        }
        CStmt::If { then, els, .. } => {
            local_arrays(then, source, out);
            if let Some(e) = els {
                local_arrays(e, source, out);
            }
        }
        CStmt::Compound { items, .. } => {
            for s in items {
                local_arrays(s, source, out);
            }
        }
        CStmt::Other { children, .. } => {
            for s in children {
                local_arrays(s, source, out);
            }
        }
        CStmt::Expr { .. } | CStmt::Empty { .. } | CStmt::Preproc { .. } => {}
    }
}

/// The loops (`for`, `while`, `do`) of `stmt` that are in no other loop.
fn outer_loops<'a>(stmt: &'a CStmt, out: &mut Vec<&'a CStmt>) {
    match stmt {
        CStmt::For { .. } => out.push(stmt),
        CStmt::Other { kind, .. } if kind == "while_statement" || kind == "do_statement" => {
            out.push(stmt);
        }
        CStmt::If { then, els, .. } => {
            outer_loops(then, out);
            if let Some(e) = els {
                outer_loops(e, out);
            }
        }
        CStmt::Compound { items, .. } => items.iter().for_each(|s| outer_loops(s, out)),
        CStmt::Other { children, .. } => children.iter().for_each(|s| outer_loops(s, out)),
        CStmt::Expr { .. } | CStmt::Empty { .. } | CStmt::Decl { .. } | CStmt::Preproc { .. } => {}
    }
}

/// Whether `stmt` assigns or increments an element of one of `arrays`.
fn writes_any(stmt: &CStmt, arrays: &BTreeSet<String>) -> bool {
    let mut found = false;
    stmt.walk_exprs(&mut |e| {
        let target = match &e.kind {
            ExprKind::Assign(_, lhs, _) | ExprKind::Update(_, lhs) => lhs,
            _ => return,
        };
        let mut base = target.as_ref();
        let mut indexed = false;
        loop {
            match &base.kind {
                ExprKind::Subscript(b, _) => {
                    indexed = true;
                    base = b;
                }
                ExprKind::Deref(b) => {
                    indexed = true;
                    base = b;
                }
                ExprKind::Binary(_, b, _) if indexed => {
                    base = b;
                }
                _ => break,
            }
        }
        if let ExprKind::Ident(name) = &base.kind
            && indexed
            && arrays.contains(name)
        {
            found = true;
        }
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Code;

    fn relevance(source: &str) -> Relevance {
        let program = crate::frontend::extract("t.c", source, &Default::default());
        Relevance::of(source, &program, &LivenessOverrides::default())
    }

    fn at(source: &str, text: &str) -> Diagnostic {
        let start = source.find(text).expect("text in source");
        Diagnostic::new(Code::NotAnAssignment, "m", start..start + text.len(), "")
    }

    #[test]
    fn harness_loops_without_array_writes_are_background() {
        let source = "#include <stdio.h>\nint main(void) {\n  int a[10], i;\n  long s = 0;\n  for (i = 0; i < 10; i++) a[i] = i;\n  for (i = 0; i < 10; i++) { s += a[i]; printf(\"%d\", a[i]); }\n  return 0;\n}\n";
        let r = relevance(source);
        assert!(!r.shown(&at(source, "printf(\"%d\", a[i]);")));
        // The loop that writes `a` is a candidate.
        assert!(r.shown(&at(source, "a[i] = i;")));
        // Outside every function: shown.
        assert!(r.shown(&at(source, "#include <stdio.h>")));
    }

    #[test]
    fn arrays_folded_by_polyfold_are_no_candidates() {
        let source = "void f(double *out) {\n  int i;\n  /* polyfold: t[i] -> t[i % 2] */\n  double t[2];\n  for (i = 0; i < 9; i++) { t[i % 2] = i; out[i] = t[i % 2]; }\n}\n";
        let r = relevance(source);
        assert!(!r.shown(&at(source, "out[i] = t[i % 2];")));
        let fresh = source.replace("/* polyfold: t[i] -> t[i % 2] */", "");
        let r = relevance(&fresh);
        assert!(r.shown(&at(&fresh, "out[i] = t[i % 2];")));
    }

    #[test]
    fn whole_file_notes_are_always_shown() {
        // PF002's empty span at offset 0 is also the start of `add`.
        let source = "int add(int a, int b)\n{\n  return a + b;\n}\n";
        let r = relevance(source);
        let note = Diagnostic::new(Code::NoLoops, "no loops in this file", 0..0, "");
        assert!(r.shown(&note));
    }

    #[test]
    fn errors_are_always_shown() {
        let source = "int main(void) { int i; for (i = 0; i < 3; i++) ; return 0; }\n";
        let r = relevance(source);
        let e = Diagnostic::new(Code::SyntaxError, "m", 20..21, "");
        assert!(r.shown(&e));
    }
}
