//! Conditions that read data: `if (A[a] == B[b]) score = 1; else score =
//! -1;`.
//!
//! Which branch runs depends on values, so the model cannot say which
//! assignments happen. As pet does, both branches' accesses are kept as
//! ones that *may* happen, at every iteration that reaches the `if`:
//! - **A write that may happen** is a write that also reads the cell it
//!   writes (`x = c ? e : x`): when it does not happen the cell keeps the
//!   value it held, so that value is live until there, and whatever layout
//!   the analysis proves for the model keeps it in the cell the statement
//!   names. The assignment's domain is the `if`'s (no condition of the
//!   data narrows it), so its accesses are a superset of the real ones.
//! - **Reads that may happen** are reads: they can only make values live
//!   longer.
//! - **The condition's reads** (and calls) are taken by the first
//!   assignment of each branch. The condition is evaluated right before
//!   that assignment's place in the same iteration, with nothing between
//!   them, and that assignment (which may happen) is modelled at every
//!   iteration that reaches the `if`: so the values the condition reads
//!   are live when it reads them, and every dependence of the condition
//!   is one of that assignment. A condition whose branches hold no
//!   assignment decides nothing; its reads go to the next assignment
//!   of an enclosing condition, if any.
//! - `if (c) x = e1; else x = e2;` (one assignment per branch, the same
//!   cell, outside any other data condition) writes the cell on both
//!   paths: the first assignment does not read it (see
//!   [`written_on_both_paths`]).
//! - Inside such a condition every `if` is modelled the same way (its
//!   assignments keep the outer `if`'s domain, which the condition's
//!   reads need: see above), and the branches hold assignments and
//!   blocks only: no loop.
//!
//! The statements keep the spans of their data conditions
//! ([`crate::ir::Stmt::data_conds`]): a transformation that prints
//! statements one by one (the whole-run scanner) does not take them; the
//! fusion of loops copies bodies with their `if`s.

use super::super::affine::Resolver;
use super::super::syntax::{CStmt, Expr};
use super::{Analyzer, Node, Res, contains_loop};
use crate::diag::{Code, Diagnostic};
use crate::ir::AccessKind;

impl Analyzer<'_> {
    /// An `if` whose condition reads data (`why`: the diagnostic that the
    /// condition is not affine; `None` for an affine one inside another
    /// data condition).
    pub(super) fn data_if(
        &mut self,
        cond: &Expr,
        then: &CStmt,
        els: Option<&CStmt>,
        why: Option<Diagnostic>,
    ) -> Res<Vec<Node>> {
        if contains_loop(then) || els.is_some_and(contains_loop) {
            let d = why
                .unwrap_or_else(|| {
                    self.warn(
                        Code::NonAffineCondition,
                        format!(
                            "`if` inside a condition that reads data: `{}`",
                            self.text(&cond.span)
                        ),
                        cond.span.clone(),
                        "its branches hold a loop",
                    )
                })
                .with_note(
                    "a condition that reads data is modelled around assignments only, not around loops",
                );
            return self.reject(d);
        }
        let calls_before = std::mem::take(&mut self.calls);
        let mut reads = Vec::new();
        let read = self.collect_reads(cond, &mut reads);
        let calls = std::mem::replace(&mut self.calls, calls_before);
        read?;
        let before = self.pending.take();
        let mut mine = before.clone().unwrap_or_default();
        mine.reads.extend(reads);
        mine.calls.extend(calls);
        self.data_conds.push(cond.span.clone());
        self.pending = Some(mine.clone());
        let t = self.stmt(then);
        let mut taken = self.pending.is_none();
        let e = match els {
            Some(e) => {
                self.pending = Some(mine);
                let r = self.stmt(e);
                taken |= self.pending.is_none();
                r
            }
            None => Ok(Vec::new()),
        };
        let outermost = self.data_conds.len() == 1;
        self.data_conds.pop();
        self.pending = if taken { None } else { before };
        let mut out = t?;
        let e = e?;
        if outermost {
            written_on_both_paths(&mut out, &e);
        }
        out.extend(e);
        Ok(out)
    }

    /// The assignments of one statement (`nodes`), under the data
    /// conditions around it: each also reads the cell it writes, and the
    /// first takes the pending condition reads (see the module's doc).
    pub(super) fn guarded(&mut self, mut nodes: Vec<Node>) -> Vec<Node> {
        if self.data_conds.is_empty() {
            return nodes;
        }
        let mut pending = self.pending.take();
        for node in &mut nodes {
            let Node::Stmt(s) = node else { continue };
            let mut own = s.write.clone();
            own.kind = AccessKind::Read;
            let mut reads = Vec::new();
            if let Some(p) = pending.take() {
                reads.extend(p.reads);
                let mut calls = p.calls;
                calls.append(&mut s.calls);
                s.calls = calls;
            }
            reads.push(own);
            reads.append(&mut s.reads);
            s.reads = reads;
            s.data_conds = self.data_conds.clone();
        }
        nodes
    }
}

/// `if (c) x = e1; else x = e2;`, outside any other data condition: the
/// cell is written on both paths, so the value it held before dies at the
/// `if`. The `then` assignment (modelled first) drops the read of its own
/// cell; the `else` one keeps it, which keeps the `then` value in the
/// cell until the `else` write in the model, the cell the real program
/// leaves it in on the `then` path. The read that goes is the one
/// [`Analyzer::guarded`] added (the first with the write's span: a
/// compound assignment's own read comes after it).
fn written_on_both_paths(then: &mut [Node], els: &[Node]) {
    let ([Node::Stmt(a)], [Node::Stmt(b)]) = (then, els) else {
        return;
    };
    if a.write.var != b.write.var || a.write.subs != b.write.subs {
        return;
    }
    if let Some(k) = a
        .reads
        .iter()
        .position(|r| r.span == a.write.span && r.var == a.write.var)
    {
        a.reads.remove(k);
    }
}
