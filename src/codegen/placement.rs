//! Where a loop's rotating indices start and advance in the text: on a
//! line before the loop and at the end of its body, as a person writes
//! them, or in the loop's header where the text does not allow that.
//!
//! ```c
//! y_r0 = (k - 1) % (2 * N - 3);
//! for (i = 0; i <= k - 1; i++) {
//!     sum = sum + r[k - i - 1] * y[y_r0];
//!     y_r0 = y_r0 + 2 < 2 * N - 3 ? y_r0 + 2 : y_r0 + 2 - (2 * N - 3);
//! }
//! ```
//!
//! Why the program computes the same:
//! - the start, printed with the iterator replaced by its first value
//!   (by the caller), is evaluated where the header would evaluate it: right
//!   before the loop, with the same sizes and outer iterators;
//! - the update at the end of the body runs after every iteration that
//!   reaches the end of the body, and the header's update after every
//!   iteration that reaches the header's increment: the same iterations
//!   when the body holds no `continue`, `break` or `goto` (checked on its
//!   tokens; otherwise the update stays in the header). The update reads
//!   only the variable, so running it before the iterator's increment
//!   rather than after changes nothing; after the last iteration it runs
//!   once more in both forms, and never when the loop runs no iteration.
//! - a brace-less body (or the brace-less body of a loop around, when the
//!   start goes on a line before the loop) gets braces.

use std::collections::HashMap;
use std::ops::Range;

use crate::ir::{ForHeader, Placement, Scop, StmtId, SyntaxNode};
use crate::util::c_text::{TokenKind, indent_of_line, tokens};

use super::edits::Edit;

/// A `for` loop of a SCoP, as the placement of its indices needs it.
#[derive(Clone, Debug)]
pub(crate) struct LoopSite {
    pub span: Range<usize>,
    /// `None` for a header of another form than [`ForHeader`]'s.
    pub header: Option<ForHeader>,
    /// The loop is an item of a `{ }` block after no `#pragma`: a line can
    /// go before it.
    in_block: bool,
    /// The loop around whose brace-less body this loop is.
    sole_body_of: Option<usize>,
    body: Range<usize>,
    /// With a `{ }` body: the span of its last item (`None`: empty block).
    block_end: Option<Option<Range<usize>>>,
    /// The statements inside the loop.
    stmts: Vec<StmtId>,
}

/// The `for` loops of `scop` (in the order of the text) and, per
/// statement, the loops around it (indices, outermost first).
pub(crate) fn loop_sites(scop: &Scop) -> (Vec<LoopSite>, HashMap<StmtId, Vec<usize>>) {
    struct Walk {
        sites: Vec<LoopSite>,
        around: HashMap<StmtId, Vec<usize>>,
        stack: Vec<usize>,
    }
    fn walk(node: &SyntaxNode, (in_block, parent): (bool, Option<usize>), w: &mut Walk) {
        match node {
            SyntaxNode::Stmt { id, .. } => {
                w.around.insert(*id, w.stack.clone());
                for k in &w.stack {
                    w.sites[*k].stmts.push(*id);
                }
            }
            SyntaxNode::For {
                span, header, body, ..
            } => {
                let block_end = match body.as_ref() {
                    SyntaxNode::Block { items, .. } => Some(items.last().map(SyntaxNode::span)),
                    _ => None,
                };
                w.sites.push(LoopSite {
                    span: span.clone(),
                    header: header.clone(),
                    in_block,
                    sole_body_of: parent,
                    body: body.span(),
                    block_end,
                    stmts: Vec::new(),
                });
                let k = w.sites.len() - 1;
                w.stack.push(k);
                walk(body, (false, Some(k)), w);
                w.stack.pop();
            }
            SyntaxNode::If { then, els, .. } => {
                walk(then, (false, None), w);
                if let Some(e) = els {
                    walk(e, (false, None), w);
                }
            }
            SyntaxNode::Block { items, .. } => {
                let mut after_pragma = false;
                for item in items {
                    walk(item, (!after_pragma, None), w);
                    after_pragma = matches!(item, SyntaxNode::Pragma { .. });
                }
            }
            // No line goes between a label and its loop.
            SyntaxNode::Labeled { body, .. } => walk(body, (false, None), w),
            SyntaxNode::Empty { .. } | SyntaxNode::Pragma { .. } | SyntaxNode::Kept { .. } => {}
        }
    }
    let mut w = Walk {
        sites: Vec::new(),
        around: HashMap::new(),
        stack: Vec::new(),
    };
    for item in &scop.items {
        let in_block = item.placement == Placement::InBlock && item.pragmas.is_empty();
        walk(&item.node, (in_block, None), &mut w);
    }
    (w.sites, w.around)
}

/// One rotating variable of a loop: its name, its start in the header
/// (`<name> = <value>` evaluated after the iterator's initialisation;
/// `None` for a rotating scalar, which the loop does not start), its
/// start before the loop (the same value without the iterator, if it could
/// be printed), its update (`<name> = ...`), and the type of its
/// declaration when the loop declares its iterator.
#[derive(Clone, Debug)]
pub(crate) struct Placed {
    pub site: usize,
    pub name: String,
    pub header_start: Option<String>,
    pub start: Option<String>,
    pub update: String,
    pub declares: Option<String>,
}

/// Whether byte `at` of `source` has only blanks before it on its line.
fn starts_line(source: &str, at: usize) -> bool {
    let line_start = source[..at].rfind('\n').map_or(0, |i| i + 1);
    source[line_start..at]
        .chars()
        .all(|c| c == ' ' || c == '\t')
}

/// Whether a statement may go right before byte `at` of `source`: the
/// text before it (blanks skipped) ends a statement or a block, opens a
/// block, or is a preprocessor line (`#pragma scop`); not after a label
/// (`L:`, `case 1:`), where a declaration is not allowed and a jump
/// to the label would skip it.
fn statement_boundary(source: &str, at: usize) -> bool {
    let before = source[..at].trim_end_matches([' ', '\t', '\n', '\r']);
    if before.ends_with([';', '{', '}']) {
        return true;
    }
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    before[line_start..].trim_start().starts_with('#') && !before.ends_with('\\')
}

/// The end of the `)` closing the header of the loop `site` (only blanks
/// between it and the body).
fn header_close(source: &str, site: &LoopSite) -> Option<usize> {
    let before = source[..site.body.start].trim_end_matches([' ', '\t', '\n', '\r']);
    before.ends_with(')').then_some(before.len())
}

/// Whether the update of loop `site` may go at the end of its body: no
/// statement inside is deleted (`removed`), its body holds no `continue`,
/// `break` or `goto`, and the body's end is known.
fn body_end_allowed(source: &str, site: &LoopSite, removed: &[StmtId]) -> bool {
    if site.stmts.iter().any(|s| removed.contains(s)) {
        return false;
    }
    let body = &source[site.body.clone()];
    let jumps = tokens(body).into_iter().any(|(r, kind)| {
        kind == TokenKind::Ident && matches!(&body[r], "continue" | "break" | "goto")
    });
    if jumps {
        return false;
    }
    match site.block_end {
        Some(ref last) => last.is_some(),
        None => header_close(source, site).is_some() && starts_line(source, site.span.start),
    }
}

/// The edits that start and advance the indices `placed` (in the order of
/// the text) of the loops `sites`; `removed`: the deleted statements.
pub(crate) fn placement_edits(
    source: &str,
    sites: &[LoopSite],
    placed: &[Placed],
    removed: &[StmtId],
) -> Vec<Edit> {
    // (position, order among the insertions at one position, text).
    let mut at: Vec<(usize, usize, String)> = Vec::new();
    let mut braced: Vec<usize> = Vec::new();
    let mut by_site: Vec<(usize, Vec<&Placed>)> = Vec::new();
    for p in placed {
        match by_site.iter_mut().find(|(s, _)| *s == p.site) {
            Some((_, list)) => list.push(p),
            None => by_site.push((p.site, vec![p])),
        }
    }
    for (k, list) in &by_site {
        let site = &sites[*k];
        let Some(header) = &site.header else {
            continue;
        };
        let indent = indent_of_line(source, site.span.start);
        // The starts: before the loop, or in the header.
        let parent_ok = |p: usize| {
            header_close(source, &sites[p]).is_some()
                && body_end_allowed(source, &sites[p], removed)
                && starts_line(source, sites[p].span.start)
        };
        let starts: Vec<&&Placed> = list.iter().filter(|p| p.header_start.is_some()).collect();
        let before = starts.iter().all(|p| p.start.is_some())
            && starts_line(source, site.span.start)
            && if site.in_block {
                statement_boundary(source, site.span.start)
            } else {
                site.sole_body_of.is_some_and(parent_ok)
            };
        if starts.is_empty() {
            // Nothing to start (rotating scalars only).
        } else if before {
            if !site.in_block
                && let Some(p) = site.sole_body_of
                && !braced.contains(&p)
            {
                braced.push(p);
            }
            let lines: String = starts
                .iter()
                .map(|p| {
                    let decl = p
                        .declares
                        .as_ref()
                        .map_or(String::new(), |t| format!("{t} "));
                    let start = p.start.as_deref().unwrap_or_default();
                    format!("{decl}{} = {start};\n{indent}", p.name)
                })
                .collect();
            at.push((site.span.start, 0, lines));
        } else {
            let text: String = starts
                .iter()
                .filter_map(|p| p.header_start.as_ref())
                .map(|h| format!(", {h}"))
                .collect();
            at.push((header.init_end, 0, text));
        }
        // The updates: at the end of the body, or in the header.
        if body_end_allowed(source, site, removed) {
            let lines: Vec<String> = list.iter().map(|p| format!("{};", p.update)).collect();
            match &site.block_end {
                Some(Some(last)) => {
                    let (inner, end) = (indent_of_line(source, last.start), last.end);
                    let text: String = lines.iter().map(|l| format!("\n{inner}{l}")).collect();
                    at.push((end, site.span.len(), text));
                }
                _ => {
                    if !braced.contains(k) {
                        braced.push(*k);
                    }
                    at.push((site.body.end, site.span.len(), lines.join("\n")));
                }
            }
        } else {
            let text: String = list.iter().map(|p| format!(", {}", p.update)).collect();
            at.push((header.update_end, 0, text));
        }
    }
    // Braces around the brace-less bodies that get a line.
    for k in braced {
        let site = &sites[k];
        let Some(close) = header_close(source, site) else {
            continue;
        };
        at.push((close, 0, " {".to_string()));
        let indent = indent_of_line(source, site.span.start);
        let inner = if starts_line(source, site.body.start) {
            indent_of_line(source, site.body.start)
        } else {
            format!("{indent}    ")
        };
        // The body's own update (if any) is on the same position: indent
        // its lines, then close.
        let end = site.body.end;
        if let Some(e) = at
            .iter_mut()
            .find(|(p, order, _)| *p == end && *order == site.span.len())
        {
            e.2 = e.2.lines().map(|l| format!("\n{inner}{l}")).collect();
            e.2.push_str(&format!("\n{indent}}}"));
        } else {
            at.push((end, site.span.len(), format!("\n{indent}}}")));
        }
    }
    // One insertion per position: the inner loop's end first (the
    // shorter span).
    at.sort_by_key(|a| (a.0, a.1));
    let mut edits: Vec<Edit> = Vec::new();
    for (pos, _, text) in at {
        match edits.last_mut() {
            Some(e) if e.range.start == pos => e.replacement.push_str(&text),
            _ => edits.push(Edit::insert(pos, text)),
        }
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A loop `for (i = 0; i < n; i++) <body>` at the start of `text`.
    fn site_of(text: &str, body: &str) -> LoopSite {
        let start = text.find("for").expect("loop");
        let body_start = text.find(body).expect("body");
        LoopSite {
            span: start..body_start + body.len(),
            header: None,
            in_block: true,
            sole_body_of: None,
            body: body_start..body_start + body.len(),
            block_end: None,
            stmts: Vec::new(),
        }
    }

    /// A body that may `continue`, `break` or `goto` keeps the update in
    /// the header (the end of the body is not reached on every iteration);
    /// a `continue` of a loop inside counts too (checked on tokens, not
    /// proven to belong to an inner loop), one in a comment does not.
    #[test]
    fn jumps_keep_the_update_in_the_header() {
        for (body, allowed) in [
            ("a[i] = 1;", true),
            ("a[i] = 1; /* continue */", true),
            ("{ if (a[i]) continue; a[i] = 1; }", false),
            ("{ if (a[i]) break; }", false),
            ("{ goto out; }", false),
            ("for (j = 0; j < 2; j++) { continue; }", false),
        ] {
            let text = format!("  for (i = 0; i < n; i++)\n    {body}\n");
            let site = site_of(&text, body);
            assert_eq!(body_end_allowed(&text, &site, &[]), allowed, "{body}");
        }
    }

    /// Starts go before a loop only after a statement, a block's brace or
    /// a preprocessor line, never after a label.
    #[test]
    fn no_start_after_a_label() {
        let text = "{\n  x = 1;\n  for (;;) ;\n}\n";
        assert!(statement_boundary(text, text.find("for").unwrap()));
        let text = "{\n  for (;;) ;\n}\n";
        assert!(statement_boundary(text, text.find("for").unwrap()));
        let text = "#pragma scop\n  for (;;) ;\n";
        assert!(statement_boundary(text, text.find("for").unwrap()));
        let text = "{\n  again:\n  for (;;) ;\n}\n";
        assert!(!statement_boundary(text, text.find("for").unwrap()));
        let text = "  case 1:\n  for (;;) ;\n";
        assert!(!statement_boundary(text, text.find("for").unwrap()));
    }
}
