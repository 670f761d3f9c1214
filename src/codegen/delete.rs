//! Deleting statements by syntax nodes, and the layout of deleted and
//! inserted lines.
//!
//! A statement is deleted with the control structure that only exists
//! for it: the brace-less `for`/`if`/`else` headers around it, the blocks
//! and loops it leaves empty, and the `#pragma` lines that apply to them.
//! What cannot be removed (the `then` branch of an `if` that has an
//! `else`, the body of a brace-less loop that is not part of the SCoP) is
//! replaced by `;`. Everything works on the front end's syntax nodes
//! ([`crate::ir::ScopItem`]); comments are trivia: a comment inside a
//! deleted node goes with it, one outside stays.
//!
//! A loop whose iterator may be read after it stays, with `;` as its body,
//! so that the iterator keeps its final value.
//!
//! What this does NOT do: decide what to delete (the caller proves that a
//! statement is dead), or delete declarations (kept, even when a block
//! holds nothing else).

use std::ops::Range;

use super::Edit;
use crate::ir::{Placement, ScopItem, StmtId, SyntaxNode};

/// What deleting some statements leaves of a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Left {
    /// It holds no deleted statement: it stays as it is.
    Untouched,
    /// Every statement it holds is deleted and nothing else is kept: the
    /// whole node goes.
    Nothing,
    /// Some of it goes, some stays.
    Part,
}

fn left(node: &SyntaxNode, deleted: &dyn Fn(StmtId) -> bool) -> Left {
    match node {
        SyntaxNode::Stmt { id, .. } => {
            if deleted(*id) {
                Left::Nothing
            } else {
                Left::Untouched
            }
        }
        SyntaxNode::For {
            body,
            keeps_iterator,
            ..
        } => match left(body, deleted) {
            // The loop stays for its iterator's final value.
            Left::Nothing if *keeps_iterator => Left::Part,
            other => other,
        },
        SyntaxNode::If { then, els, .. } => {
            let parts = std::iter::once(then.as_ref()).chain(els.as_deref());
            combine(parts.map(|n| left(n, deleted)).collect())
        }
        SyntaxNode::Block { items, .. } => {
            let mut out = Vec::new();
            for (k, item) in items.iter().enumerate() {
                match item {
                    // A pragma goes with the item it applies to; one that
                    // applies to nothing stays.
                    SyntaxNode::Pragma { .. } => {
                        if items.get(k + 1).is_none() {
                            out.push(Left::Untouched);
                        }
                    }
                    SyntaxNode::Empty { .. } => {}
                    other => out.push(left(other, deleted)),
                }
            }
            combine(out)
        }
        SyntaxNode::Empty { .. } | SyntaxNode::Pragma { .. } | SyntaxNode::Kept { .. } => {
            Left::Untouched
        }
    }
}

/// The state of a node from the states of its children (`;` and pragmas
/// left out): nothing is left only when something was deleted and nothing
/// else stays.
fn combine(children: Vec<Left>) -> Left {
    let any_deleted = children.iter().any(|l| *l != Left::Untouched);
    let all_gone = children.iter().all(|l| *l == Left::Nothing);
    match (any_deleted, all_gone) {
        (false, _) => Left::Untouched,
        (true, true) => Left::Nothing,
        (true, false) => Left::Part,
    }
}

/// The edits that delete the statements for which `deleted` holds, with
/// their brace-less headers, emptied blocks and loops, and the pragmas of
/// what goes. Deleted lines go whole (see [`deletion`]).
pub fn statement_deletions(
    source: &str,
    items: &[ScopItem],
    deleted: &dyn Fn(StmtId) -> bool,
) -> Vec<Edit> {
    let mut edits = Vec::new();
    for item in items {
        match left(&item.node, deleted) {
            Left::Untouched => {}
            Left::Nothing => match item.placement {
                Placement::InBlock => {
                    for p in &item.pragmas {
                        edits.push(deletion(source, p.clone()));
                    }
                    edits.push(deletion(source, item.node.span()));
                }
                Placement::Sole => edits.push(Edit::replace(item.node.span(), ";")),
            },
            Left::Part => inside(source, &item.node, deleted, &mut edits),
        }
    }
    edits
}

/// The edits inside `node`, of which a part stays.
fn inside(
    source: &str,
    node: &SyntaxNode,
    deleted: &dyn Fn(StmtId) -> bool,
    edits: &mut Vec<Edit>,
) {
    match node {
        SyntaxNode::For { body, .. } => match left(body, deleted) {
            Left::Nothing => edits.push(Edit::replace(body.span(), ";")),
            _ => inside(source, body, deleted, edits),
        },
        SyntaxNode::If {
            then,
            els,
            else_start,
            ..
        } => {
            match left(then, deleted) {
                Left::Untouched => {}
                // The `else` stays, so the `then` branch becomes `;`.
                Left::Nothing => edits.push(Edit::replace(then.span(), ";")),
                Left::Part => inside(source, then, deleted, edits),
            }
            if let Some(e) = els {
                match (left(e, deleted), else_start) {
                    (Left::Untouched, _) => {}
                    (Left::Nothing, Some(start)) => {
                        edits.push(deletion(source, *start..e.span().end));
                    }
                    (Left::Nothing, None) => edits.push(Edit::replace(e.span(), ";")),
                    (Left::Part, _) => inside(source, e, deleted, edits),
                }
            }
        }
        SyntaxNode::Block { items, .. } => {
            for (k, item) in items.iter().enumerate() {
                if matches!(item, SyntaxNode::Pragma { .. }) {
                    continue;
                }
                match left(item, deleted) {
                    Left::Untouched => {}
                    Left::Nothing => {
                        // The pragmas right before it apply to it.
                        let mut first = k;
                        while first > 0 && matches!(items[first - 1], SyntaxNode::Pragma { .. }) {
                            first -= 1;
                        }
                        for p in &items[first..k] {
                            edits.push(deletion(source, p.span()));
                        }
                        edits.push(deletion(source, item.span()));
                    }
                    Left::Part => inside(source, item, deleted, edits),
                }
            }
        }
        SyntaxNode::Stmt { .. }
        | SyntaxNode::Empty { .. }
        | SyntaxNode::Pragma { .. }
        | SyntaxNode::Kept { .. } => {}
    }
}

/// Whether `text` holds only spaces and tabs.
fn blank(text: &str) -> bool {
    text.chars().all(|c| c == ' ' || c == '\t' || c == '\r')
}

/// The deletion of `range`, laid out: when the range is all that is on
/// its lines (but blanks), the lines go whole, line breaks included; when
/// only blanks follow it on its last line, the blanks before it go too (no
/// trailing spaces); when only blanks precede it and a comment follows,
/// the blanks between it and the comment go (the comment stays, indented
/// like the code was).
pub fn deletion(source: &str, range: Range<usize>) -> Edit {
    Edit::delete(deletion_range(source, range))
}

fn deletion_range(source: &str, range: Range<usize>) -> Range<usize> {
    let line_start = source[..range.start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = source[range.end..]
        .find('\n')
        .map_or(source.len(), |i| range.end + i);
    let before = &source[line_start..range.start];
    let after = &source[range.end..line_end];
    let before_blank = blank(before);
    if blank(after) {
        if before_blank {
            // Whole lines, with the line break.
            let end = if line_end < source.len() {
                line_end + 1
            } else {
                line_end
            };
            return line_start..end;
        }
        let trimmed = before.trim_end_matches([' ', '\t']);
        return line_start + trimmed.len()..line_end;
    }
    let rest = after.trim_start_matches([' ', '\t']);
    if before_blank && (rest.starts_with("//") || rest.starts_with("/*")) {
        return range.start..line_end - rest.len();
    }
    range
}

/// Whether only blanks precede byte `at` on its line.
pub fn starts_line(source: &str, at: usize) -> bool {
    let line_start = source[..at].rfind('\n').map_or(0, |i| i + 1);
    blank(&source[line_start..at])
}

/// An insertion of `text` as a line of its own before the line holding
/// `at`, indented like it, when only blanks precede `at` on its line;
/// otherwise `text` and a space right at `at`.
pub fn line_insertion(source: &str, at: usize, text: &str) -> Edit {
    let line_start = source[..at].rfind('\n').map_or(0, |i| i + 1);
    let indent = &source[line_start..at];
    if starts_line(source, at) {
        Edit::insert(line_start, format!("{indent}{text}\n"))
    } else {
        Edit::insert(at, format!("{text} "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::apply_edits;
    use crate::frontend::{Options, extract};

    /// The SCoP of `body` (in `void f(...)`) with the statements whose
    /// text contains `copy` deleted.
    fn delete_copies(body: &str) -> String {
        let source = format!(
            "#define N 8\nvoid f(double out[N + 2]) {{\n  double u[N + 2]; double v[N + 2];\n  int t, i;\n{body}}}\n"
        );
        let program = extract("t.c", &source, &Options::default());
        assert!(!program.has_errors(), "{:?}", program.diagnostics);
        let scop = &program.scops[0];
        let dead: Vec<StmtId> = scop
            .stmts
            .iter()
            .filter(|s| s.body_text.contains("u[i] = v[i]"))
            .map(|s| s.id)
            .collect();
        assert!(!dead.is_empty(), "no copy in {body}");
        let edits = statement_deletions(&source, &scop.items, &|id| dead.contains(&id));
        let out = apply_edits(&source, &edits).expect("disjoint edits");
        let start = out.find("int t, i;\n").expect("prefix") + "int t, i;\n".len();
        out[start..out.len() - 2].to_string()
    }

    #[test]
    fn a_brace_less_header_goes_with_its_statement() {
        let out = delete_copies(
            "  for (t = 0; t < N; t++) {\n    for (i = 0; i <= N + 1; i++) if (i >= 1 && i <= N) u[i] = v[i];\n    out[t] = u[N / 2];\n  }\n",
        );
        assert_eq!(
            out,
            "  for (t = 0; t < N; t++) {\n    out[t] = u[N / 2];\n  }\n"
        );
    }

    #[test]
    fn a_comment_after_the_header_is_trivia() {
        let out = delete_copies(
            "  for (t = 0; t < N; t++) {\n    for (i = 1; i <= N; i++) // copy back\n      u[i] = v[i];\n    out[t] = u[N / 2];\n  }\n",
        );
        assert_eq!(
            out,
            "  for (t = 0; t < N; t++) {\n    out[t] = u[N / 2];\n  }\n"
        );
    }

    #[test]
    fn a_then_branch_with_an_else_becomes_empty() {
        let out = delete_copies(
            "  for (i = 0; i <= N + 1; i++)\n    if (i >= 1) u[i] = v[i];\n    else u[i] = 0.0;\n  out[0] = u[1];\n",
        );
        assert_eq!(
            out,
            "  for (i = 0; i <= N + 1; i++)\n    if (i >= 1) ;\n    else u[i] = 0.0;\n  out[0] = u[1];\n"
        );
        let out = delete_copies(
            "  for (i = 0; i <= N + 1; i++)\n    if (i < 1) u[i] = 0.0;\n    else u[i] = v[i];\n  out[0] = u[1];\n",
        );
        assert_eq!(
            out,
            "  for (i = 0; i <= N + 1; i++)\n    if (i < 1) u[i] = 0.0;\n  out[0] = u[1];\n"
        );
    }

    #[test]
    fn blocks_left_empty_go_and_siblings_stay() {
        let out = delete_copies(
            "  for (t = 0; t < N; t++) {\n    for (i = 0; i < N; i++) {\n      u[i] = v[i];\n    }\n    out[t] = u[t];\n  }\n",
        );
        assert_eq!(
            out,
            "  for (t = 0; t < N; t++) {\n    out[t] = u[t];\n  }\n"
        );
        let out = delete_copies(
            "  for (i = 0; i < N; i++) {\n    u[i] = v[i];\n    out[i] = u[i];\n  }\n",
        );
        assert_eq!(
            out,
            "  for (i = 0; i < N; i++) {\n    out[i] = u[i];\n  }\n"
        );
    }

    #[test]
    fn a_loop_whose_iterator_is_read_after_it_stays_empty() {
        let out = delete_copies("  for (i = 0; i < N; i++)\n    u[i] = v[i];\n  out[1] = i;\n");
        assert_eq!(out, "  for (i = 0; i < N; i++)\n    ;\n  out[1] = i;\n");
        // A later loop that assigns it first does not read it.
        let out = delete_copies(
            "  for (i = 0; i < N; i++)\n    u[i] = v[i];\n  for (i = 0; i < N; i++)\n    out[i] = u[i];\n",
        );
        assert_eq!(out, "  for (i = 0; i < N; i++)\n    out[i] = u[i];\n");
    }

    #[test]
    fn a_pragma_goes_with_its_loop() {
        let out = delete_copies(
            "  for (t = 0; t < N; t++) {\n    #pragma GCC ivdep\n    for (i = 0; i < N; i++)\n      u[i] = v[i];\n    out[t] = u[t];\n  }\n",
        );
        assert_eq!(
            out,
            "  for (t = 0; t < N; t++) {\n    out[t] = u[t];\n  }\n"
        );
    }

    #[test]
    fn layout_of_deletions_and_insertions() {
        let text = "{\n    double A[N];\n    double B[N]; int k;\n    x = 1; // one\n}\n";
        let del = |needle: &str| {
            let start = text.find(needle).expect("needle");
            let e = deletion(text, start..start + needle.len());
            text[e.range].to_string()
        };
        assert_eq!(del("double A[N];"), "    double A[N];\n");
        assert_eq!(del("double B[N];"), "double B[N];");
        assert_eq!(del(" int k;"), " int k;");
        assert_eq!(del("int k;"), " int k;");
        assert_eq!(del("x = 1;"), "x = 1; ");
        let at = text.find("double B").expect("B");
        let e = line_insertion(text, at, "double C[2];");
        assert_eq!(
            apply_edits(text, &[e]).expect("one edit"),
            "{\n    double A[N];\n    double C[2];\n    double B[N]; int k;\n    x = 1; // one\n}\n"
        );
        let at = text.find("int k").expect("k");
        let e = line_insertion(text, at, "double C[2];");
        assert!(
            apply_edits(text, &[e])
                .expect("one edit")
                .contains("double C[2]; int k;")
        );
    }
}
