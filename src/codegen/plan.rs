//! Planning the text edits of remapped arrays: a new declarator and new
//! subscripts for every access, all as byte-range replacements.

use crate::ir::{ArrayId, Scop};
use crate::mapping::layout::{ArrayLayout, DimLayout};
use crate::mapping::modular::ParamAffine;

use crate::util::c_text::{Prec, operand};

use super::edits::Edit;

/// `text` (copied from the source, or printed from an affine expression
/// over [`Scop::param_texts`]) as an operand of `%`, `*`, `+` or `-`:
/// parenthesised unless it is one primary expression — a number, a
/// parenthesised expression, or a name that is not a macro whose body is
/// several tokens (`#define LAST N-1`: `LAST % 2` would be `N-1 % 2`).
fn operand_text(scop: &Scop, text: &str) -> String {
    operand(text, Prec::Postfix, &|name| scop.is_compound(name))
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
    let params = scop.param_texts();
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
            DimLayout::Plain { extent: Some(b) }
            | DimLayout::Modulo {
                modulus: b,
                extent_proven: true,
                ..
            } => text.push_str(&format!("[{}]", b.to_text(&params))),
            DimLayout::Modulo {
                modulus: b,
                extent_proven: false,
                ..
            } => {
                // Not proven >= 1 where the program is valid: `max(b, 1)`.
                let b = operand(&b.to_text(&params), Prec::Shift, &|n| scop.is_compound(n));
                text.push_str(&format!("[{b} > 1 ? {b} : 1]"))
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
                        text.push_str(&format!(
                            "[{} % {}]",
                            operand_text(scop, sub),
                            operand_text(scop, &modulus.to_text(&params))
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
/// the constant, positive terms come first (`k - i`, not `-i + k`), the
/// offset's parameter terms last (`i - j + 2 * N`).
fn linear_text(
    scop: &Scop,
    coeffs: &[i64],
    subs: &[&str],
    offset: &ParamAffine,
    params: &[String],
) -> String {
    let mut constant = Some(offset.constant);
    let mut terms: Vec<(i64, String)> = Vec::new();
    for (c, sub) in coeffs.iter().zip(subs) {
        if *c == 0 {
            continue;
        }
        match sub.parse::<i64>() {
            Ok(v) => constant = constant.and_then(|k| k.checked_add(c.checked_mul(v)?)),
            Err(_) => terms.push((*c, operand_text(scop, sub))),
        }
    }
    let constant = match constant {
        Some(k) => k,
        None => {
            // Folding would overflow: keep every term as written.
            terms = coeffs
                .iter()
                .zip(subs)
                .filter(|(c, _)| **c != 0)
                .map(|(c, s)| (*c, operand_text(scop, s)))
                .collect();
            offset.constant
        }
    };
    terms.sort_by_key(|(c, _)| *c < 0);
    for (c, name) in offset.coeffs.iter().zip(params) {
        if *c != 0 {
            terms.push((*c, operand_text(scop, name)));
        }
    }
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
    let params = scop.param_texts();
    for dim in &layout.dims {
        if let DimLayout::Linear { modulus, .. } = dim {
            text.push_str(&format!("[{}]", modulus.to_text(&params)));
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
                    let arg = linear_text(scop, coeffs, &subs, offset, &params);
                    if exempt.contains(&(si, position)) {
                        text.push_str(&format!("[{arg}]"));
                    } else {
                        text.push_str(&format!(
                            "[{} % {}]",
                            operand_text(scop, &arg),
                            operand_text(scop, &modulus.to_text(&params))
                        ));
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
