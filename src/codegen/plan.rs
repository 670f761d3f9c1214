//! Planning the text edits of remapped arrays: a new declarator and new
//! subscripts for every access, all as byte-range replacements.

use crate::ir::{ArrayId, Scop};
use crate::mapping::layout::{ArrayLayout, DimLayout};

use super::edits::Edit;

/// Whether `text` needs parentheses before a `%` is applied to it.
fn needs_parens(text: &str) -> bool {
    !text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn modulus_text(text: String) -> String {
    if needs_parens(&text) {
        format!("({text})")
    } else {
        text
    }
}

/// The edits that give `array` of `scop` the layout `layout`: its declarator
/// and every access in the SCoP. Returns `None` when the array has no
/// declarator span to edit.
pub fn plan_array_edits(
    source: &str,
    scop: &Scop,
    array: ArrayId,
    layout: &ArrayLayout,
) -> Option<Vec<Edit>> {
    let decl = scop.array(array);
    let params = scop.param_names();
    let declarator = decl.declarator_span.clone()?;
    let mut edits = Vec::new();
    let mut text = decl.name.clone();
    for (dim, extent) in layout.dims.iter().zip(&decl.extents) {
        match dim {
            DimLayout::Dropped => {}
            DimLayout::Plain { extent: None } => text.push_str(&format!("[{}]", extent.text)),
            DimLayout::Plain { extent: Some(b) } | DimLayout::Modulo { modulus: b, .. } => {
                text.push_str(&format!("[{}]", b.to_text(&params)))
            }
        }
    }
    edits.push(Edit::replace(declarator, text));
    for (si, stmt) in scop.stmts.iter().enumerate() {
        for (position, access) in stmt.accesses().enumerate() {
            if access.array != array {
                continue;
            }
            let mut text = source[access.name_span.clone()].to_string();
            for (dim, span) in layout.dims.iter().zip(&access.subscript_spans) {
                let sub = source[span.clone()].trim();
                match dim {
                    DimLayout::Dropped => {}
                    DimLayout::Plain { .. } => text.push_str(&format!("[{sub}]")),
                    DimLayout::Modulo { exempt, .. } if exempt.contains(&(si, position)) => {
                        text.push_str(&format!("[{sub}]"))
                    }
                    DimLayout::Modulo { modulus, .. } => {
                        // A literal subscript folds: `0 % 2` is `0`.
                        let literal = sub.parse::<i64>().ok().filter(|v| *v >= 0);
                        if let (Some(v), true) =
                            (literal, modulus.is_constant() && modulus.constant > 0)
                        {
                            text.push_str(&format!("[{}]", v % modulus.constant));
                            continue;
                        }
                        let sub = if needs_parens(sub) {
                            format!("({sub})")
                        } else {
                            sub.to_string()
                        };
                        text.push_str(&format!(
                            "[{sub} % {}]",
                            modulus_text(modulus.to_text(&params))
                        ));
                    }
                }
            }
            let edit = Edit::replace(access.span.clone(), text);
            // A compound assignment reads and writes through one reference.
            if !edits.contains(&edit) {
                edits.push(edit);
            }
        }
    }
    Some(edits)
}
