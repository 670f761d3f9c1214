//! Whether a local array holds only indeterminate values whenever its
//! SCoP starts: C gives an automatic object without an initialiser an
//! indeterminate value each time its block is entered (C11 6.2.4p6,
//! 6.7.9p10). A cell such an array's SCoP reads before writing it (a
//! live-in cell, e.g. dynprog's `c[0][N - 1]` when N = 1) then reads no
//! value the program defined, so no storage has to keep it; its other
//! cells are folded as if it had none. The array must be read and written
//! by this SCoP alone, and the SCoP must run at most once per entry into
//! the array's block: no loop, `switch` or label between the declaration's
//! block and the SCoP, and no label in the function a `goto` could jump
//! back to (a label no `goto` names cannot be jumped to, see
//! [`super::labels`]).

use std::ops::Range;

use super::labels::{GotoTargets, has_goto_target};
use super::syntax::CStmt;

/// Whether the SCoP spanning `region` runs at most once per entry into
/// the block that declares the local whose declaration starts at
/// `decl_start`, in the function body `body` (see the module's note).
pub(crate) fn runs_once_per_entry(body: &CStmt, decl_start: usize, region: &Range<usize>) -> bool {
    !has_goto_target(body, &GotoTargets::of(body)) && from_declaring_block(body, decl_start, region)
}

fn contains(outer: &Range<usize>, inner: &Range<usize>) -> bool {
    outer.start <= inner.start && inner.end <= outer.end
}

/// Finds the block whose items hold the declaration (on the way to
/// `region`: any statement may enclose that block, since every entry into
/// it starts a new lifetime), then checks the way from it to `region`.
fn from_declaring_block(stmt: &CStmt, decl_start: usize, region: &Range<usize>) -> bool {
    if !contains(&stmt.span(), region) {
        return false;
    }
    match stmt {
        CStmt::Compound { items, .. } => {
            let declares = items.iter().any(|it| {
                matches!(it, CStmt::Decl { span, .. } if span.contains(&decl_start))
                    && it.span().end <= region.start
            });
            if declares {
                return items
                    .iter()
                    .filter(|it| overlaps(&it.span(), region))
                    .all(|it| straight_to(it, region));
            }
            items
                .iter()
                .any(|it| from_declaring_block(it, decl_start, region))
        }
        CStmt::For { body, .. } => from_declaring_block(body, decl_start, region),
        CStmt::If { then, els, .. } => {
            from_declaring_block(then, decl_start, region)
                || els
                    .as_deref()
                    .is_some_and(|e| from_declaring_block(e, decl_start, region))
        }
        CStmt::Other { children, .. } => children
            .iter()
            .any(|c| from_declaring_block(c, decl_start, region)),
        _ => false,
    }
}

fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start < b.end && b.start < a.end
}

/// Whether `stmt`, which overlaps `region`, is part of the SCoP or leads
/// to it through blocks and `if`s only.
fn straight_to(stmt: &CStmt, region: &Range<usize>) -> bool {
    if contains(region, &stmt.span()) {
        return true;
    }
    match stmt {
        CStmt::Compound { items, .. } => items
            .iter()
            .filter(|it| overlaps(&it.span(), region))
            .all(|it| straight_to(it, region)),
        CStmt::If { then, els, .. } => [Some(then.as_ref()), els.as_deref()]
            .into_iter()
            .flatten()
            .filter(|b| overlaps(&b.span(), region))
            .all(|b| straight_to(b, region)),
        _ => false,
    }
}
