//! Labels and the `goto`s that name them.
//!
//! A labelled statement (`produce: for (...) ...`, as HLS code names its
//! loops) runs like its statement when nothing jumps to its label: the
//! analysis reads it as the statement, and code generation keeps the
//! label with it. A label that a `goto` of the function names (or any
//! label, when the function holds a `goto` whose target is not a plain
//! label) may be entered from elsewhere: its statement stays out of every
//! SCoP.

use std::collections::BTreeSet;

use super::syntax::CStmt;

/// The labels of one function that a `goto` may jump to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct GotoTargets {
    /// A `goto` whose target is not a plain label (GNU C's `goto *p`):
    /// every label may be its target.
    every_label: bool,
    names: BTreeSet<String>,
}

impl GotoTargets {
    /// The targets of the `goto`s inside `body` (a function's body).
    pub(crate) fn of(body: &CStmt) -> GotoTargets {
        let mut out = GotoTargets::default();
        collect(body, &mut out);
        out
    }

    /// Whether a `goto` may jump to `label`.
    pub(crate) fn contains(&self, label: &str) -> bool {
        self.every_label || self.names.contains(label)
    }
}

fn collect(stmt: &CStmt, out: &mut GotoTargets) {
    if let CStmt::Other { kind, label, .. } = stmt
        && kind == "goto_statement"
    {
        match label {
            Some(name) => {
                out.names.insert(name.clone());
            }
            None => out.every_label = true,
        }
    }
    stmt.sub_statements()
        .into_iter()
        .for_each(|c| collect(c, out));
}

/// A labelled statement's label and statement.
pub(crate) fn labelled(stmt: &CStmt) -> Option<(&str, &CStmt)> {
    match stmt {
        CStmt::Other {
            kind,
            label: Some(label),
            children,
            ..
        } if kind == "labeled_statement" => match children.as_slice() {
            [inner] => Some((label.as_str(), inner)),
            _ => None,
        },
        _ => None,
    }
}

/// Whether `stmt` or a statement inside it carries a label that a `goto`
/// may jump to.
pub(crate) fn has_goto_target(stmt: &CStmt, targets: &GotoTargets) -> bool {
    let targeted = matches!(stmt, CStmt::Other { kind, label, .. }
        if kind == "labeled_statement" && label.as_deref().is_none_or(|l| targets.contains(l)));
    targeted
        || stmt
            .sub_statements()
            .into_iter()
            .any(|c| has_goto_target(c, targets))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::syntax::parse_file;

    fn body(source: &str) -> CStmt {
        let file = parse_file(source).expect("parses");
        file.functions[0].body.clone()
    }

    #[test]
    fn only_labels_a_goto_names_are_targets() {
        let b = body(
            "void f(int *a) {\n  int i;\nfirst:\n  for (i = 0; i < 4; i++) a[i] = 0;\n\
             second: a[0] = 1;\n  if (a[1]) goto second;\n}\n",
        );
        let t = GotoTargets::of(&b);
        assert!(t.contains("second"));
        assert!(!t.contains("first"));
        let CStmt::Compound { items, .. } = &b else {
            panic!("a block")
        };
        let (name, inner) = labelled(&items[1]).expect("a labelled statement");
        assert_eq!(name, "first");
        assert!(matches!(inner, CStmt::For { .. }));
        assert!(!has_goto_target(&items[1], &t));
        assert!(has_goto_target(&items[2], &t));
        assert!(has_goto_target(&b, &t));
        // No `goto`: no target.
        let plain = body("void g(int *a) {\nL: a[0] = 1;\n}\n");
        assert!(!has_goto_target(&plain, &GotoTargets::of(&plain)));
    }
}
