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
    if layout.is_linear() {
        return Some(plan_linear(source, scop, array, layout, declarator));
    }
    let mut edits = Vec::new();
    let mut text = decl.name.clone();
    for (dim, extent) in layout.dims.iter().zip(&decl.extents) {
        match dim {
            DimLayout::Linear { .. } => unreachable!("checked by is_linear"),
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
                    DimLayout::Dropped | DimLayout::Linear { .. } => {}
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

/// `Σ coeffs[p]·(sub_p) + offset` as C text: literal subscripts fold into
/// the constant, positive terms come first (`k - i`, not `-i + k`).
fn linear_text(coeffs: &[i64], subs: &[&str], offset: i64) -> String {
    let mut constant = Some(offset);
    let mut terms: Vec<(i64, &str)> = Vec::new();
    for (c, sub) in coeffs.iter().zip(subs) {
        if *c == 0 {
            continue;
        }
        match sub.parse::<i64>() {
            Ok(v) => constant = constant.and_then(|k| k.checked_add(c.checked_mul(v)?)),
            Err(_) => terms.push((*c, sub)),
        }
    }
    let Some(constant) = constant else {
        // Folding would overflow: keep every term as written.
        terms = coeffs
            .iter()
            .zip(subs)
            .filter(|(c, _)| **c != 0)
            .map(|(c, s)| (*c, *s))
            .collect();
        return render_terms(&terms, offset);
    };
    terms.sort_by_key(|(c, _)| *c < 0);
    render_terms(&terms, constant)
}

fn render_terms(terms: &[(i64, &str)], constant: i64) -> String {
    let terms: Vec<(i64, String)> = terms
        .iter()
        .map(|(c, sub)| {
            (
                *c,
                if needs_parens(sub) {
                    format!("({sub})")
                } else {
                    sub.to_string()
                },
            )
        })
        .collect();
    crate::util::c_text::affine_text(&terms, constant)
}

/// The edits of a general (linear) layout: one new dimension per mapping
/// row, each subscript a combination of the original ones.
fn plan_linear(
    source: &str,
    scop: &Scop,
    array: ArrayId,
    layout: &ArrayLayout,
    declarator: std::ops::Range<usize>,
) -> Vec<Edit> {
    let decl = scop.array(array);
    let mut edits = Vec::new();
    let mut text = decl.name.clone();
    for dim in &layout.dims {
        if let DimLayout::Linear { modulus, .. } = dim {
            text.push_str(&format!("[{modulus}]"));
        }
    }
    edits.push(Edit::replace(declarator, text));
    for (si, stmt) in scop.stmts.iter().enumerate() {
        for (position, access) in stmt.accesses().enumerate() {
            if access.array != array {
                continue;
            }
            let subs: Vec<&str> = access
                .subscript_spans
                .iter()
                .map(|s| source[s.clone()].trim())
                .collect();
            let mut text = source[access.name_span.clone()].to_string();
            for dim in &layout.dims {
                if let DimLayout::Linear {
                    coeffs,
                    offset,
                    modulus,
                    exempt,
                } = dim
                {
                    let arg = linear_text(coeffs, &subs, *offset);
                    if exempt.contains(&(si, position)) {
                        text.push_str(&format!("[{arg}]"));
                    } else {
                        let arg = if needs_parens(&arg) {
                            format!("({arg})")
                        } else {
                            arg
                        };
                        text.push_str(&format!("[{arg} % {modulus}]"));
                    }
                }
            }
            let edit = Edit::replace(access.span.clone(), text);
            if !edits.contains(&edit) {
                edits.push(edit);
            }
        }
    }
    edits
}
