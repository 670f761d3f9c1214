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
        // The label stays, with `;` for a statement that goes.
        SyntaxNode::Labeled { body, .. } => match left(body, deleted) {
            Left::Nothing => Left::Part,
            other => other,
        },
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
pub(crate) fn statement_deletions(
    source: &str,
    items: &[ScopItem],
    deleted: &dyn Fn(StmtId) -> bool,
) -> Vec<Edit> {
    let mut edits = Vec::new();
    let mut ranges = Vec::new();
    for item in items {
        match left(&item.node, deleted) {
            Left::Untouched => {}
            Left::Nothing => match item.placement {
                Placement::InBlock => {
                    ranges.extend(item.pragmas.iter().cloned());
                    ranges.push(item.node.span());
                }
                Placement::Sole => edits.push(Edit::replace(item.node.span(), ";")),
            },
            Left::Part => inside(&item.node, deleted, &mut edits, &mut ranges),
        }
    }
    edits.extend(joint_deletions(source, ranges));
    edits
}

/// The edits inside `node`, of which a part stays.
/// Replacements go to `edits`, the ranges to delete to `ranges` (laid out
/// together by [`joint_deletions`]).
fn inside(
    node: &SyntaxNode,
    deleted: &dyn Fn(StmtId) -> bool,
    edits: &mut Vec<Edit>,
    ranges: &mut Vec<Range<usize>>,
) {
    match node {
        SyntaxNode::For { body, .. } | SyntaxNode::Labeled { body, .. } => {
            match left(body, deleted) {
                Left::Nothing => edits.push(Edit::replace(body.span(), ";")),
                _ => inside(body, deleted, edits, ranges),
            }
        }
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
                Left::Part => inside(then, deleted, edits, ranges),
            }
            if let Some(e) = els {
                match (left(e, deleted), else_start) {
                    (Left::Untouched, _) => {}
                    (Left::Nothing, Some(start)) => {
                        ranges.push(*start..e.span().end);
                    }
                    (Left::Nothing, None) => edits.push(Edit::replace(e.span(), ";")),
                    (Left::Part, _) => inside(e, deleted, edits, ranges),
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
                            ranges.push(p.span());
                        }
                        ranges.push(item.span());
                    }
                    Left::Part => inside(item, deleted, edits, ranges),
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

/// `ranges` sorted and merged where they overlap or touch.
fn merged(mut ranges: Vec<Range<usize>>) -> Vec<Range<usize>> {
    ranges.retain(|r| r.start < r.end);
    ranges.sort_by_key(|r| (r.start, r.end));
    let mut out: Vec<Range<usize>> = Vec::new();
    for r in ranges {
        match out.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => out.push(r),
        }
    }
    out
}

/// Whether the bytes of `span` that no range of `ranges` (merged) covers
/// are all blanks.
fn blank_but(source: &str, span: Range<usize>, ranges: &[Range<usize>]) -> bool {
    let bytes = source.as_bytes();
    span.clone()
        .filter(|k| !ranges.iter().any(|r| r.contains(k)))
        .all(|k| matches!(bytes[k], b' ' | b'\t' | b'\r'))
}

/// Whether the line `span` (without its break) holds only blanks.
fn blank_line(source: &str, span: Range<usize>) -> bool {
    blank(&source[span])
}

/// The deletions of `ranges` (byte ranges of code, in any order, possibly
/// on one line), laid out together as [`deletion`] lays out one: a line
/// left with nothing but blanks goes whole, line break included, even
/// when several ranges empty it (`u[i] = v[i]; w[i] = 0;` both deleted),
/// and a line that keeps other code keeps its line break and
/// indentation. A deletion of whole lines between a blank line and a `}`
/// (or the end of the text), or between a blank line or a line ending
/// with `{` and a blank line, takes one of the blank lines with it, so
/// that it leaves no blank line at the edge of a block or two in a row.
pub(crate) fn joint_deletions(source: &str, ranges: Vec<Range<usize>>) -> Vec<Edit> {
    let ranges = merged(ranges);
    let line_start = |at: usize| source[..at].rfind('\n').map_or(0, |i| i + 1);
    let line_end = |at: usize| source[at..].find('\n').map_or(source.len(), |i| at + i);
    let mut laid: Vec<Range<usize>> = Vec::new();
    for r in &ranges {
        let (ls, le) = (line_start(r.start), line_end(r.end));
        let before_blank = blank_but(source, ls..r.start, &ranges);
        let after_blank = blank_but(source, r.end..le, &ranges);
        let bytes = source.as_bytes();
        if after_blank {
            if before_blank {
                let end = if le < source.len() { le + 1 } else { le };
                laid.push(ls..end);
            } else {
                // Up to the end of the line, from after the last code
                // before the range (no trailing blanks).
                let mut start = r.start;
                while start > ls
                    && (ranges.iter().any(|q| q.contains(&(start - 1)))
                        || matches!(bytes[start - 1], b' ' | b'\t'))
                {
                    start -= 1;
                }
                laid.push(start..le);
            }
            continue;
        }
        // Code or a comment follows on the line: the blanks up to it go
        // when only blanks precede the range (what follows is indented
        // like the deleted code was).
        let mut next = r.end;
        while next < le
            && (ranges.iter().any(|q| q.contains(&next)) || matches!(bytes[next], b' ' | b'\t'))
        {
            next += 1;
        }
        if before_blank {
            laid.push(r.start..next);
        } else {
            laid.push(r.clone());
        }
    }
    let mut laid = merged(laid);
    // Blank lines at the edges of what went.
    for r in laid.iter_mut() {
        let whole = r.start == line_start(r.start)
            && (r.end == source.len() || source.as_bytes()[r.end - 1] == b'\n');
        if !whole || r.start == 0 {
            continue;
        }
        let prev = line_start(r.start - 1)..r.start - 1;
        let prev_blank = blank_line(source, prev.clone());
        let prev_opens = source[prev.clone()].trim_end().ends_with('{');
        if r.end < source.len() {
            let next = r.end..line_end(r.end);
            let next_blank = blank_line(source, next.clone()) && next.end < source.len();
            let next_closes = source[next.clone()].trim_start().starts_with('}');
            if next_blank && (prev_blank || prev_opens) {
                r.end = next.end + 1;
            } else if prev_blank && next_closes {
                r.start = prev.start;
            }
        } else if prev_blank {
            r.start = prev.start;
        }
    }
    merged(laid).into_iter().map(Edit::delete).collect()
}

/// Whether only blanks precede byte `at` on its line.
pub(crate) fn starts_line(source: &str, at: usize) -> bool {
    let line_start = source[..at].rfind('\n').map_or(0, |i| i + 1);
    blank(&source[line_start..at])
}

/// An insertion of `text` as a line of its own before the line holding
/// `at`, indented like it, when only blanks precede `at` on its line;
/// otherwise `text` and a space right at `at`.
pub(crate) fn line_insertion(source: &str, at: usize, text: &str) -> Edit {
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

    /// A label stays where its statement goes (with `;` as its
    /// statement), and goes nowhere else.
    #[test]
    fn a_label_stays_with_an_empty_statement() {
        let out = delete_copies(
            "copy:\n  for (i = 0; i < N; i++)\n    u[i] = v[i];\n  for (i = 0; i < N; i++)\n    out[i] = u[i];\n",
        );
        assert_eq!(
            out,
            "copy:\n  ;\n  for (i = 0; i < N; i++)\n    out[i] = u[i];\n"
        );
        let out = delete_copies(
            "  for (i = 0; i < N; i++) {\n    c: u[i] = v[i];\n    keep: out[i] = u[i];\n  }\n",
        );
        assert_eq!(
            out,
            "  for (i = 0; i < N; i++) {\n    c: ;\n    keep: out[i] = u[i];\n  }\n"
        );
    }

    #[test]
    fn two_deleted_statements_on_one_line_leave_no_line_of_blanks() {
        let body = "  for (t = 0; t < N; t++) {\n    for (i = 1; i <= N; i++) {\n      u[i] = v[i]; out[t] = u[i];\n      u[i] = v[i]; u[i] = v[i];\n    }\n  }\n";
        let out = delete_copies(body);
        assert_eq!(
            out,
            "  for (t = 0; t < N; t++) {\n    for (i = 1; i <= N; i++) {\n      out[t] = u[i];\n    }\n  }\n"
        );
        assert!(!out.lines().any(|l| l.trim().is_empty()), "{out}");
    }

    #[test]
    fn a_deleted_loop_takes_a_blank_line_at_the_edge_of_its_block() {
        // Between a blank line and `}`: the blank line goes too.
        let out = delete_copies(
            "  for (t = 0; t < N; t++) {\n    out[t] = u[t];\n\n    for (i = 0; i < N; i++)\n      u[i] = v[i];\n  }\n",
        );
        assert_eq!(
            out,
            "  for (t = 0; t < N; t++) {\n    out[t] = u[t];\n  }\n"
        );
        // Between `{` and a blank line: the blank line goes too.
        let out = delete_copies(
            "  for (t = 0; t < N; t++) {\n    for (i = 0; i < N; i++)\n      u[i] = v[i];\n\n    out[t] = u[t];\n  }\n",
        );
        assert_eq!(
            out,
            "  for (t = 0; t < N; t++) {\n    out[t] = u[t];\n  }\n"
        );
        // Between two blank lines: one stays.
        let out = delete_copies(
            "  out[0] = u[0];\n\n  for (i = 0; i < N; i++)\n    u[i] = v[i];\n\n  out[1] = u[1];\n",
        );
        assert_eq!(out, "  out[0] = u[0];\n\n  out[1] = u[1];\n");
        // A line that keeps other code keeps its indentation and break.
        let out =
            delete_copies("  for (i = 0; i < N; i++) {\n    out[i] = u[i]; u[i] = v[i];\n  }\n");
        assert_eq!(
            out,
            "  for (i = 0; i < N; i++) {\n    out[i] = u[i];\n  }\n"
        );
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
