//! Planning the text edits of remapped arrays: a new declarator and new
//! subscripts for every access, all as byte-range replacements.

use crate::ir::{Access, Stmt};
use crate::ir::{ArrayId, Scop};
use crate::mapping::layout::{Argument, ArrayLayout, DimLayout, Triangle};
use crate::mapping::modular::ParamAffine;

use crate::util::c_text::{Prec, operand};

use super::edits::Edit;
use super::overflow;
use super::rotate::Rotations;
use super::text::{
    exact_subscripts, form_text, mask_of, operand_text, param_text, residue, triangle_cells_text,
    triangle_index_text,
};

/// `arg % b` for the text `arg` and the modulus `modulus`, or `arg & (b -
/// 1)` where [`mask_of`] gives a mask; `arg` parenthesised unless it is
/// one primary expression (`&` binds looser than `+` and `==`, and
/// `(i + 1) & 3` reads as meant).
fn residue_text(
    scop: &Scop,
    arg: &str,
    modulus: &ParamAffine,
    params: &[String],
    masks: bool,
) -> String {
    residue(
        &operand_text(scop, arg),
        &operand_text(scop, &param_text(modulus, params)),
        mask_of(modulus, masks),
    )
}

/// The text of each subscript of `access` (of `stmt`): its source text,
/// trimmed, or, for an access with no text per subscript (a linearised
/// local table's, see `frontend::linear_local`), its affine form printed
/// (see [`form_text`]).
fn subscript_or_form_texts(source: &str, scop: &Scop, stmt: &Stmt, access: &Access) -> Vec<String> {
    if access.subscript_spans.len() == access.subscripts.len() {
        return subscript_texts(source, access)
            .into_iter()
            .map(str::to_string)
            .collect();
    }
    access
        .subscripts
        .iter()
        .map(|sub| form_text(source, scop, stmt, access, &Argument::of_form(sub)))
        .collect()
}

/// The source text of each subscript of `access`, trimmed.
pub(super) fn subscript_texts<'s>(source: &'s str, access: &Access) -> Vec<&'s str> {
    access
        .subscript_spans
        .iter()
        .map(|s| source[s.clone()].trim())
        .collect()
}

/// Whether the one index `s0 * w' + s1` of linearised heap buffer
/// `array` (see [`linear_rows_text`]) under `layout` computes only values
/// its original computes, or why not. Each cell `(y, x)` of the original
/// is reached through `y * w + x`, computed in `int`, with `0 <= x < w`
/// (proven by the front end) and so `y >= 0`. Under a row that stays, is
/// dropped or is taken modulo (a residue of `y >= 0` is at most `y`) and
/// a column that stays or is dropped, the new index lies in `0 .. y * w
/// + x`: the original computed a larger value at the same cell.
fn linear_index_bounded(scop: &Scop, array: ArrayId, layout: &ArrayLayout) -> Result<(), String> {
    let refuse = |what: &str| Err(format!("the linearised buffer's new index: {what}"));
    let [row, column] = layout.dims.as_slice() else {
        return refuse("it keeps two axes (row and column)");
    };
    if !matches!(
        row,
        DimLayout::Dropped | DimLayout::Plain { .. } | DimLayout::Modulo { .. }
    ) || !matches!(
        column,
        DimLayout::Dropped | DimLayout::Plain { extent: None }
    ) {
        return refuse(
            "only a row that stays, is dropped or is taken modulo, and a column that stays or is dropped, are proven to compute values of the original",
        );
    }
    let np = scop.params.len();
    let int =
        |t: Option<&str>| t.is_some_and(|t| matches!(t.trim(), "int" | "signed int" | "signed"));
    // A macro's value is an integer constant: `int` where it fits, a
    // wider type otherwise (C11 6.4.4.1), never narrower than `int`; every
    // term of the new index is non-negative and at most the original's.
    let param_ok = |k: usize| {
        let p = &scop.params[k];
        int(p.type_text.as_deref())
            || matches!(
                p.origin,
                crate::ir::ParamOrigin::Define | crate::ir::ParamOrigin::CommandLine
            )
    };
    let decl = scop.array(array);
    let width_ok = decl.extents[1].aff.as_ref().is_some_and(|a| {
        a.coeffs
            .iter()
            .take(np)
            .enumerate()
            .all(|(k, c)| *c == 0 || param_ok(k))
    });
    let accesses_ok = scop.stmts.iter().all(|stmt| {
        stmt.accesses().filter(|a| a.array == array).all(|a| {
            a.subscripts.iter().all(|sub| {
                sub.coeffs.iter().enumerate().all(|(k, c)| {
                    *c == 0
                        || if k < np {
                            param_ok(k)
                        } else {
                            int(stmt.iterator_types.get(k - np).map(String::as_str))
                        }
                })
            })
        })
    });
    if width_ok && accesses_ok {
        Ok(())
    } else {
        refuse("its names are not all `int`")
    }
}

/// The access text `name[s0][s1]` of a linearised heap buffer as the
/// buffer is indexed: one subscript, `name[s0 * w + s1]` with `w` the row
/// extent under `layout` (the declared one when it stays). The row's `w`
/// and the column's range make it the same cell as the model's.
pub(super) fn linear_rows_text(
    scop: &Scop,
    (array, layout): (ArrayId, &ArrayLayout),
    text: &str,
) -> String {
    let ranges = bracket_ranges(text);
    let [r0, r1] = ranges.as_slice() else {
        return text.to_string();
    };
    let name = &text[..r0.start.saturating_sub(1)];
    let (s0, s1) = (text[r0.clone()].trim(), text[r1.clone()].trim());
    let row = resized_extents(scop, layout)
        .and_then(|e| e.get(1).cloned().flatten())
        .unwrap_or_else(|| scop.array(array).extents[1].text.clone());
    let compound = |n: &str| scop.is_compound(n);
    let times = |a: &str, b: &str| {
        format!(
            "{} * {}",
            operand(a, Prec::Unary, &compound),
            operand(b, Prec::Unary, &compound)
        )
    };
    let index = match (s0, s1, row.trim()) {
        ("0", _, _) => s1.to_string(),
        (_, "0", "1") => s0.to_string(),
        (_, "0", w) => times(s0, w),
        (_, _, "1") => format!("{} + {}", s0, operand(s1, Prec::Multiplicative, &compound)),
        (_, _, w) => format!(
            "{} + {}",
            times(s0, w),
            operand(s1, Prec::Multiplicative, &compound)
        ),
    };
    format!("{name}[{index}]")
}

/// The text of a new extent `new` at `span` of a site that sizes an
/// array: as it is between brackets, an operand of a product elsewhere
/// (`malloc(sizeof(double) * h * w)`, a macro's argument).
fn site_text(source: &str, scop: &Scop, span: &std::ops::Range<usize>, new: &str) -> String {
    let before = source[..span.start].trim_end().ends_with('[');
    let after = source[span.end..].trim_start().starts_with(']');
    if before && after {
        new.to_string()
    } else {
        operand(new, Prec::Unary, &|n| scop.is_compound(n))
    }
}

/// The edits that give `array` of `scop` the layout `layout`: its declarator
/// and every access in the SCoP (with `masks`, power-of-two number moduli
/// as masks: see [`mask_of`]). Returns `None` when the array has no
/// declarator span to edit.
pub(crate) fn plan_array_edits(
    source: &str,
    scop: &Scop,
    array: ArrayId,
    layout: &ArrayLayout,
    (rotations, masks): (&Rotations, bool),
) -> Option<Vec<Edit>> {
    let decl = scop.array(array);
    let mut edits = Vec::new();
    // The values printed, in `long long` where that is what is proven
    // (the pipeline keeps the declaration of a layout with a value proven
    // in neither: see [`unproven_value`]).
    let mut check = ValueCheck::new(source, scop);
    if let Some(sites) = decl.resize_sites() {
        // A caller-owned parameter: its declarator and every caller's
        // allocation take the new extents.
        let extents = resized_extents(scop, layout)?;
        for site in sites {
            // A linearised table down to one row: `h * w` becomes `w`
            // (not `1 * w`) where the factors are written side by side.
            if let (true, [Some(one), None], [hs, ws]) = (
                decl.facts.linear_rows,
                extents.as_slice(),
                site.dims.as_slice(),
            ) && one == "1"
                && let ([h], [w]) = (hs.as_slice(), ws.as_slice())
                && h.end <= w.start
                && source[h.end..w.start].trim() == "*"
            {
                edits.push(Edit::replace(h.start..w.end, source[w.clone()].to_string()));
                continue;
            }
            for (d, new) in extents.iter().enumerate() {
                let (Some(new), Some(spans)) = (new, site.dims.get(d)) else {
                    continue;
                };
                for span in spans {
                    edits.push(Edit::replace(
                        span.clone(),
                        site_text(source, scop, span, new),
                    ));
                }
            }
        }
    } else if decl.keeps_declarator() && decl.declarator_span.is_none() {
        // A parameter declared through a macro under `--temp`: its
        // declarator stays, and so does its text.
    } else {
        let mut declarator = decl.declarator_span.clone()?;
        // A new declarator drops the initialiser: its values are dead
        // wherever the storage is certified (no cell is live-in there, or
        // the array would keep its layout), and its shape is the old one's
        // (`int c[5] = {{7, 8, 9}, {10, 11, 12}}` does not compile cleanly).
        if let Some(init) = &decl.initializer_span {
            declarator.end = declarator.end.max(init.end);
        }
        push_declarator(scop, array, layout, (declarator, &mut check), &mut edits);
    }
    for_each_access(
        source,
        scop,
        (array, layout),
        (rotations, masks),
        |si, access, new| {
            let olds = subscript_texts(source, access);
            let text = checked_subscripts(&new.text, &olds, &mut |sub| {
                check.subscript(si, sub, &|n| rotations.is_variable(n))
            })
            .unwrap_or(new.text);
            let text = if decl.facts.linear_rows {
                linear_rows_text(scop, (array, layout), &text)
            } else {
                text
            };
            let edit = Edit::replace(access.span.clone(), text);
            // A compound assignment reads and writes through one reference.
            if !edits.contains(&edit) {
                edits.push(edit);
            }
        },
    );
    Some(edits)
}

/// The edit of the declarator `declarator` of a local array for `layout`
/// (none for a parameter, whose declarator stays).
fn push_declarator(
    scop: &Scop,
    array: ArrayId,
    layout: &ArrayLayout,
    (declarator, check): (std::ops::Range<usize>, &mut ValueCheck),
    edits: &mut Vec<Edit>,
) {
    let decl = scop.array(array);
    let declared = if layout.is_linear() {
        Some(linear_declarator_text(scop, array, layout))
    } else if !decl.keeps_declarator() {
        Some(declarator_text(scop, array, layout))
    } else {
        None
    };
    if let Some(text) = declared {
        let text = checked_subscripts(&text, &[], &mut |e| check.extent(e)).unwrap_or(text);
        edits.push(Edit::replace(declarator, text));
    }
}

/// The new extent of each dimension of an array sized at its sites
/// under `layout`, as text (`None`: the extent stays); see
/// [`crate::mapping::layout::site_extents`].
fn resized_extents(scop: &Scop, layout: &ArrayLayout) -> Option<Vec<Option<String>>> {
    let params = scop.param_texts();
    let extents = crate::mapping::layout::site_extents(layout, &scop.params)?;
    Some(
        extents
            .iter()
            .map(|e| e.as_ref().map(|b| param_text(b, &params)))
            .collect(),
    )
}

/// The check of the values a new layout prints (see
/// [`crate::codegen::overflow`]): each new subscript in its statement's
/// frame, each new extent in the parameters' frame; a text whose values
/// are not proven in its own types is printed with the chains that fail
/// in `long long` ([`overflow::text::proven_text`]) when that is proven.
struct ValueCheck<'a> {
    scop: &'a Scop,
    facts: overflow::ScopFacts,
    frames: std::collections::HashMap<usize, overflow::Frame>,
}

impl<'a> ValueCheck<'a> {
    fn new(source: &str, scop: &'a Scop) -> ValueCheck<'a> {
        ValueCheck {
            scop,
            facts: overflow::scop_facts(source, scop),
            frames: std::collections::HashMap::new(),
        }
    }

    fn param(&self, name: &str) -> Option<usize> {
        self.scop.params.iter().position(|p| p.name == name)
    }

    /// `text` as printed when its values are proven in `frame`, else in
    /// `long long` when those are; `Err` with why otherwise.
    fn proven(
        frame: &overflow::Frame,
        text: &str,
        names: &dyn Fn(&str) -> Option<overflow::text::Name>,
    ) -> Result<String, String> {
        overflow::text::proven_text(frame, text, names)
    }

    /// A new extent.
    fn extent(&self, text: &str) -> Result<String, String> {
        let frame = overflow::scop_frame(self.scop, &self.facts, &[]);
        let names = |n: &str| self.param(n).map(overflow::text::Name::Column);
        Self::proven(&frame, text, &names)
    }

    /// A new subscript of statement `si` (`rotating`: the names of the
    /// rotating indices, read as they are).
    fn subscript(
        &mut self,
        si: usize,
        text: &str,
        rotating: &dyn Fn(&str) -> bool,
    ) -> Result<String, String> {
        let scop = self.scop;
        let facts = &self.facts;
        let frame = self
            .frames
            .entry(si)
            .or_insert_with(|| overflow::statement_frame(scop, facts, si));
        let stmt = &scop.stmts[si];
        let np = scop.params.len();
        let names = |n: &str| {
            use overflow::text::Name;
            if let Some(k) = scop.params.iter().position(|p| p.name == n) {
                return Some(Name::Column(k));
            }
            if let Some(k) = stmt.iterators[..stmt.loop_depth()]
                .iter()
                .position(|i| i == n)
            {
                return Some(Name::Column(np + k));
            }
            if let Some(name) = substituted_scalar(scop, stmt, n) {
                return Some(name);
            }
            rotating(n).then_some(Name::Opaque)
        };
        Self::proven(frame, text, &names)
    }
}

/// A scalar that the subscripts of `stmt` name and whose value the model
/// substituted (see [`crate::ir::Stmt::scalar_values`]): that one value,
/// in the scalar's type.
fn substituted_scalar(
    scop: &Scop,
    stmt: &crate::ir::Stmt,
    name: &str,
) -> Option<overflow::text::Name> {
    let (_, value) = stmt.scalar_values.iter().find(|(n, _)| n == name)?;
    let scalar = scop
        .arrays
        .iter()
        .find(|a| a.name == name && a.facts.value_in_subscripts)?;
    let mut row = value.coeffs.clone();
    row.push(value.constant);
    Some(overflow::text::Name::Bounded {
        low: row.clone(),
        high: row,
        ty: overflow::IntType::of_text(&scalar.elem_type),
    })
}

/// `text` (a name and its subscripts, `A[i % 2][j]`) with each subscript
/// that is not among `olds` (the original's texts, whose values the
/// original computes) replaced by what `check` makes of it.
fn checked_subscripts(
    text: &str,
    olds: &[&str],
    check: &mut dyn FnMut(&str) -> Result<String, String>,
) -> Result<String, String> {
    let mut out = String::new();
    let mut last = 0;
    for range in bracket_ranges(text) {
        let sub = &text[range.clone()];
        if olds.contains(&sub.trim()) {
            continue;
        }
        out.push_str(&text[last..range.start]);
        out.push_str(&check(sub)?);
        last = range.end;
    }
    out.push_str(&text[last..]);
    Ok(out)
}

/// The first value the new layout `layout` of `array` prints that is not
/// proven representable (see [`crate::codegen::overflow`]), in its own
/// types or in `long long`, described: each new subscript in its
/// statement's frame (a subscript printed as the original's text is the
/// original's value), each new extent where the declaration is (the
/// parameters' frame). The forms checked are those without rotating
/// indices (each of those is checked where it is planned, see
/// [`super::rotate`]), with `masks` as emitted.
pub(crate) fn unproven_value(
    source: &str,
    scop: &Scop,
    array: ArrayId,
    layout: &ArrayLayout,
    masks: bool,
) -> Option<String> {
    let mut check = ValueCheck::new(source, scop);
    let decl = scop.array(array);
    if decl.facts.linear_rows
        && let Err(why) = linear_index_bounded(scop, array, layout)
    {
        return Some(why);
    }
    if layout.is_linear() || !decl.keeps_declarator() {
        let text = if layout.is_linear() {
            linear_declarator_text(scop, array, layout)
        } else {
            declarator_text(scop, array, layout)
        };
        if let Err(why) = checked_subscripts(&text, &[], &mut |e| check.extent(e)) {
            return Some(format!("the extent `{text}`: {why}"));
        }
    }
    let mut found: Option<String> = None;
    for_each_access(
        source,
        scop,
        (array, layout),
        (&Rotations::default(), masks),
        |si, access, new| {
            if found.is_some() {
                return;
            }
            let olds = subscript_texts(source, access);
            let checked = checked_subscripts(&new.text, &olds, &mut |sub| {
                check.subscript(si, sub, &|_| false)
            });
            if let Err(why) = checked {
                found = Some(format!("`{}` in {}: {why}", new.text, scop.stmts[si].name));
            }
        },
    );
    found
}

/// The byte ranges of the contents of the top-level brackets of an access
/// text (`A[i % 2][j]`: those of `i % 2` and `j`).
fn bracket_ranges(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start = 0usize;
    for (k, c) in text.char_indices() {
        match c {
            '[' => {
                if depth == 0 {
                    start = k + 1;
                }
                depth += 1;
            }
            ']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    out.push(start..k);
                }
            }
            _ => {}
        }
    }
    out
}

/// The new text of one access, and the argument of every `%` it prints
/// (its coefficients over the statement's columns `[params | iterators]`,
/// without the constant; a mask is not a `%`).
pub(crate) struct AccessText {
    pub text: String,
    pub modulo_args: Vec<Vec<i64>>,
}

/// Where remapped storage computes a `%`: per access of `array` that
/// prints one (statement index, the arguments as in [`AccessText`]), with
/// the residues of `rotations` and, with `masks`, masks (see [`mask_of`]).
pub(crate) fn modulo_uses(
    source: &str,
    scop: &Scop,
    array: ArrayId,
    layout: &ArrayLayout,
    residues: (&Rotations, bool),
) -> Vec<(usize, Vec<Vec<i64>>)> {
    let mut out = Vec::new();
    for_each_access(source, scop, (array, layout), residues, |si, _, new| {
        if !new.modulo_args.is_empty() {
            out.push((si, new.modulo_args));
        }
    });
    out
}

/// One access in its statement: (statement index, statement), (position
/// among the statement's accesses, access).
type Site<'a> = ((usize, &'a Stmt), (usize, &'a Access));

/// Calls `f` with the statement index, the access and its new text, for
/// every access of `array` with the layout `layout` (its residues in the
/// variables of `rotations` where it has some, and masks with `masks`).
fn for_each_access(
    source: &str,
    scop: &Scop,
    (array, layout): (ArrayId, &ArrayLayout),
    (rotations, masks): (&Rotations, bool),
    mut f: impl FnMut(usize, &Access, AccessText),
) {
    let params = scop.param_texts();
    for (si, stmt) in scop.stmts.iter().enumerate() {
        for (position, access) in stmt.accesses().enumerate() {
            if access.array != array {
                continue;
            }
            let site = ((si, stmt), (position, access));
            let rotated = |dim: usize| rotations.name(array, si, position, dim).map(str::to_string);
            let new = if layout.is_linear() {
                linear_access(source, scop, site, layout, &params, (&rotated, masks))
            } else {
                axis_access(source, scop, site, layout, &params, (&rotated, masks))
            };
            f(si, access, new);
        }
    }
}

/// The access `position` of statement `si` with an axis layout.
fn axis_access(
    source: &str,
    scop: &Scop,
    ((si, stmt), (position, access)): Site<'_>,
    layout: &ArrayLayout,
    params: &[String],
    (rotated, masks): (&dyn Fn(usize) -> Option<String>, bool),
) -> AccessText {
    let keep = scop.array(access.array).keeps_declarator();
    let mut text = source[access.name_span.clone()].to_string();
    let mut modulo_args = Vec::new();
    let exact = exact_subscripts(source, scop, stmt, access);
    let owned = subscript_or_form_texts(source, scop, stmt, access);
    let subs: Vec<&str> = owned.iter().map(String::as_str).collect();
    for (index, ((dim, sub), sub_aff)) in layout
        .dims
        .iter()
        .zip(&subs)
        .zip(&access.subscripts)
        .enumerate()
    {
        let sub = *sub;
        if let Some(name) = rotated(index) {
            text.push_str(&format!("[{name}]"));
            continue;
        }
        match dim {
            DimLayout::Dropped if keep => text.push_str("[0]"),
            DimLayout::Dropped | DimLayout::Linear { .. } => {}
            DimLayout::Packed {
                partner,
                triangle,
                extent,
            } => {
                // A constant row and a partner without iterators: the
                // index is affine in the parameters (`c[0][N - 1]` ->
                // `c[N - 2]`).
                let n_param = scop.params.len();
                let affine = access
                    .subscripts
                    .get(*partner)
                    .filter(|_| exact && sub_aff.coeffs.iter().all(|c| *c == 0))
                    .filter(|b| {
                        b.coeffs[n_param.min(b.coeffs.len())..]
                            .iter()
                            .all(|c| *c == 0)
                    })
                    .and_then(|b| {
                        let b = ParamAffine {
                            coeffs: b.coeffs[..n_param.min(b.coeffs.len())].to_vec(),
                            constant: b.constant,
                            den: 1,
                        };
                        triangle.constant_row_index(sub_aff.constant, &b, extent)
                    });
                if let Some(index) = affine {
                    text.push_str(&format!("[{}]", param_text(&index, params)));
                    continue;
                }
                let other = subs.get(*partner).copied().unwrap_or("0");
                text.push_str(&format!(
                    "[{}]",
                    packed_text(scop, *triangle, sub, other, extent, params)
                ));
            }
            DimLayout::Plain { .. } => text.push_str(&format!("[{sub}]")),
            DimLayout::Modulo {
                modulus, arguments, ..
            } if exact && arguments.iter().any(|a| a.access == (si, position)) => {
                let a = arguments
                    .iter()
                    .find(|a| a.access == (si, position))
                    .expect("checked by the guard");
                if a.wraps && !by_subtraction(scop, a, modulus) && mask_of(modulus, masks).is_none()
                {
                    modulo_args.push(a.coeffs.clone());
                }
                text.push_str(&format!(
                    "[{}]",
                    argument_text(source, scop, stmt, access, a, (modulus, masks))
                ));
            }
            DimLayout::Modulo { exempt, .. } if exempt.contains(&(si, position)) => {
                text.push_str(&format!("[{sub}]"))
            }
            DimLayout::Modulo { modulus, .. } => {
                // A literal subscript folds: `0 % 2` is `0`.
                let literal = sub.parse::<i64>().ok().filter(|v| *v >= 0);
                if let (Some(v), true) = (literal, modulus.is_constant() && modulus.constant > 0) {
                    text.push_str(&format!("[{}]", v % modulus.constant));
                    continue;
                }
                if mask_of(modulus, masks).is_none() {
                    modulo_args.push(sub_aff.coeffs.clone());
                }
                text.push_str(&format!(
                    "[{}]",
                    residue_text(scop, sub, modulus, params, masks)
                ));
            }
        }
    }
    AccessText { text, modulo_args }
}

/// The declarator of `array` of `scop` with the (axis) layout `layout`.
fn declarator_text(scop: &Scop, array: ArrayId, layout: &ArrayLayout) -> String {
    let decl = scop.array(array);
    let params = scop.param_texts();
    let mut text = decl.name.clone();
    for (dim, extent) in layout.dims.iter().zip(&decl.extents) {
        match dim {
            DimLayout::Linear { .. } => unreachable!("checked by is_linear"),
            DimLayout::Dropped => {}
            DimLayout::Packed {
                extent: e,
                triangle,
                ..
            } => {
                // E * (E + 1) / 2 cells (E * (E - 1) / 2 without the diagonal).
                let e_text = operand(&param_text(e, &params), Prec::Multiplicative, &|n| {
                    scop.is_compound(n)
                });
                text.push_str(&format!(
                    "[{}]",
                    triangle_cells_text(*triangle, &e_text, e, &params)
                ));
            }
            DimLayout::Plain { extent: None } => text.push_str(&format!("[{}]", extent.text)),
            DimLayout::Plain { extent: Some(b) }
            | DimLayout::Modulo {
                modulus: b,
                extent_proven: true,
                ..
            } => text.push_str(&format!("[{}]", param_text(b, &params))),
            DimLayout::Modulo {
                modulus: b,
                extent_proven: false,
                ..
            } => text.push_str(&guarded_extent(scop, b, &params)),
        }
    }
    text
}

/// The declarator extent `[max(b, 1)]` of a new extent `b` not proven at
/// least 1 where the program is valid: `[b > 1 ? b : 1]`.
fn guarded_extent(scop: &Scop, b: &ParamAffine, params: &[String]) -> String {
    let b = operand(&param_text(b, params), Prec::Shift, &|n| {
        scop.is_compound(n)
    });
    format!("[{b} > 1 ? {b} : 1]")
}

/// `Σ coeffs[p]·(sub_p) + offset` as C text: literal subscripts fold into
/// the constant, positive terms come first (`k - i`, not `-i + k`), the
/// offset's parameter terms last (`i - j + 2 * N`).
pub(super) fn linear_text(
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

/// `arg` plus `k` moduli `b` (a quasi-affine modulus, whose multiples are
/// not affine forms): `arg + (a) / d` or `arg + k * ((a) / d)`.
pub(super) fn with_moduli(
    scop: &Scop,
    arg: String,
    k: i64,
    b: &ParamAffine,
    params: &[String],
) -> String {
    if k == 0 {
        return arg;
    }
    let b = param_text(b, params);
    if k == 1
        && let Some(rest) = arg.strip_prefix('-')
    {
        // Every term negative (positive ones come first): `b - j`.
        return format!("{b} - {rest}");
    }
    let term = if k.abs() == 1 {
        b
    } else {
        operand_text(scop, &b)
    };
    crate::util::c_text::affine_text(&[(1, arg), (k, term)], 0)
}

/// The declarator of `array` with a general (linear) layout: one new
/// dimension per mapping row, each subscript a combination of the
/// original ones.
fn linear_declarator_text(scop: &Scop, array: ArrayId, layout: &ArrayLayout) -> String {
    let params = scop.param_texts();
    let mut text = scop.array(array).name.clone();
    for dim in &layout.dims {
        if let DimLayout::Linear {
            modulus,
            extent_proven,
            ..
        } = dim
        {
            if *extent_proven {
                text.push_str(&format!("[{}]", param_text(modulus, &params)));
            } else {
                text.push_str(&guarded_extent(scop, modulus, &params));
            }
        }
    }
    text
}

/// The access `position` of statement `si` with a linear layout.
fn linear_access(
    source: &str,
    scop: &Scop,
    ((si, stmt), (position, access)): Site<'_>,
    layout: &ArrayLayout,
    params: &[String],
    (rotated, masks): (&dyn Fn(usize) -> Option<String>, bool),
) -> AccessText {
    let owned = subscript_or_form_texts(source, scop, stmt, access);
    let subs: Vec<&str> = owned.iter().map(String::as_str).collect();
    let mut text = source[access.name_span.clone()].to_string();
    let mut modulo_args = Vec::new();
    let exact = exact_subscripts(source, scop, stmt, access);
    for (index, dim) in layout.dims.iter().enumerate() {
        if let Some(name) = rotated(index) {
            text.push_str(&format!("[{name}]"));
            continue;
        }
        let DimLayout::Linear {
            coeffs,
            divisor,
            shift,
            offset,
            offset_moduli,
            modulus,
            exempt,
            arguments,
            ..
        } = dim
        else {
            continue;
        };
        if let Some(a) = arguments
            .iter()
            .find(|a| exact && a.access == (si, position))
        {
            if a.wraps && !by_subtraction(scop, a, modulus) && mask_of(modulus, masks).is_none() {
                modulo_args.push(a.coeffs.clone());
            }
            text.push_str(&format!(
                "[{}]",
                argument_text(source, scop, stmt, access, a, (modulus, masks))
            ));
            continue;
        }
        let minus_shift = ParamAffine {
            coeffs: shift.coeffs.iter().map(|c| -c).collect(),
            constant: -shift.constant,
            den: 1,
        };
        let arg = if *divisor == 1 {
            // `Σ coeffs·sub - shift + offset`.
            let moved = ParamAffine {
                coeffs: offset
                    .coeffs
                    .iter()
                    .zip(&minus_shift.coeffs)
                    .map(|(a, b)| a + b)
                    .collect(),
                constant: offset.constant + minus_shift.constant,
                den: 1,
            };
            linear_text(scop, coeffs, &subs, &moved, params)
        } else {
            // A removed stride: `(Σ coeffs·sub - shift) / divisor + offset`
            // (the layout proved the division exact on every access).
            let numerator = linear_text(scop, coeffs, &subs, &minus_shift, params);
            let mut terms = vec![(1, format!("({numerator}) / {divisor}"))];
            for (c, name) in offset.coeffs.iter().zip(params) {
                terms.push((*c, operand_text(scop, name)));
            }
            crate::util::c_text::affine_text(&terms, offset.constant)
        };
        let arg = with_moduli(scop, arg, *offset_moduli, modulus, params);
        if exempt.contains(&(si, position)) {
            text.push_str(&format!("[{arg}]"));
        } else {
            let width = access
                .subscripts
                .iter()
                .map(|s| s.coeffs.len())
                .max()
                .unwrap_or(0);
            let mut combined = vec![0i64; width];
            for (c, sub) in coeffs.iter().zip(&access.subscripts) {
                for (k, v) in sub.coeffs.iter().enumerate() {
                    combined[k] = combined[k].saturating_add(c.saturating_mul(*v));
                }
            }
            for v in combined.iter_mut() {
                *v /= *divisor;
            }
            if mask_of(modulus, masks).is_none() {
                modulo_args.push(combined);
            }
            text.push_str(&format!(
                "[{}]",
                residue_text(scop, &arg, modulus, params, masks)
            ));
        }
    }
    AccessText { text, modulo_args }
}

/// The packed index of the cell `(a, b)` of a triangle of extent `e` (see
/// [`triangle_index_text`]), with `a` and `b` the texts of the two
/// subscripts, parenthesised where their precedence needs it.
pub(super) fn packed_text(
    scop: &Scop,
    triangle: Triangle,
    a: &str,
    b: &str,
    e: &ParamAffine,
    params: &[String],
) -> String {
    let is_compound = |n: &str| scop.is_compound(n);
    let a = operand(a, Prec::Multiplicative, &is_compound);
    let b = operand(b, Prec::Multiplicative, &is_compound);
    triangle_index_text(triangle, &a, &b, e, params)
}

/// Whether `coeffs`/`constant` is the access function `sub` (over the same
/// columns, missing ones zero).
pub(super) fn same_form(coeffs: &[i64], constant: i64, sub: &crate::ir::AffExpr) -> bool {
    let width = coeffs.len().max(sub.coeffs.len());
    constant == sub.constant
        && (0..width)
            .all(|k| coeffs.get(k).copied().unwrap_or(0) == sub.coeffs.get(k).copied().unwrap_or(0))
}

/// The argument `a` of `access` (in `stmt`) as the content of a subscript:
/// `arg % modulus` (a mask with `masks`: see [`mask_of`]), or `arg` when
/// it needs no `%`. An argument that is one
/// of the access's own subscripts is that subscript's source text; any
/// other is printed from its affine form: the terms in the order their
/// names first appear in the subscripts (dimension by dimension, then
/// left to right), positive terms first, the constant last (first when
/// every term is negative: `9 - j`).
fn argument_text(
    source: &str,
    scop: &Scop,
    stmt: &Stmt,
    access: &Access,
    a: &Argument,
    (modulus, masks): (&ParamAffine, bool),
) -> String {
    let params = scop.param_texts();
    let own = access
        .subscripts
        .iter()
        .zip(&access.subscript_spans)
        .find(|(sub, _)| a.moduli == 0 && same_form(&a.coeffs, a.constant, sub))
        .map(|(_, span)| source[span.clone()].trim().to_string());
    let arg = match own {
        Some(text) => text,
        None => form_text(source, scop, stmt, access, a),
    };
    let arg = with_moduli(scop, arg, a.moduli, modulus, &params);
    if !a.wraps {
        return arg;
    }
    if !by_subtraction(scop, a, modulus) {
        return residue_text(scop, &arg, modulus, &params, masks);
    }
    // 0 <= arg < 2b: one conditional subtraction, no division. arg - b as
    // one form: b's terms taken from an affine form (`2 * i + k - 2 * n`),
    // one quasi-affine modulus fewer otherwise.
    let minus = if modulus.is_affine() {
        let mut coeffs = a.coeffs.clone();
        for (c, m) in coeffs.iter_mut().zip(&modulus.coeffs) {
            *c -= m;
        }
        Argument {
            coeffs,
            constant: a.constant - modulus.constant,
            wraps: false,
            wraps_once: false,
            ..a.clone()
        }
    } else {
        Argument {
            moduli: a.moduli - 1,
            wraps: false,
            wraps_once: false,
            ..a.clone()
        }
    };
    let reduced = argument_text(source, scop, stmt, access, &minus, (modulus, masks));
    let compound = |n: &str| scop.is_compound(n);
    if a.moduli >= 1 {
        // With one modulus added to the form, `arg < b` is `arg - b < 0`
        // (`i - 2 * j < 0 ? i - 2 * j + b : i - 2 * j`).
        let compared = operand(&reduced, Prec::Shift, &compound);
        format!("{compared} < 0 ? {arg} : {reduced}")
    } else {
        let compared = operand(&arg, Prec::Shift, &compound);
        let bound = operand(&param_text(modulus, &params), Prec::Shift, &compound);
        format!("{compared} < {bound} ? {arg} : {reduced}")
    }
}

/// Whether the residue of argument `a` modulo `modulus` is printed as
/// `arg < b ? arg : arg - b` instead of `arg % b`: where the argument is
/// proven below `2b` (it wraps at most once) and the modulus is known only
/// at run time (a function parameter or a variable: a division, where a
/// compile-time modulus costs the compiler a multiplication).
fn by_subtraction(scop: &Scop, a: &Argument, modulus: &ParamAffine) -> bool {
    use crate::ir::ParamOrigin;
    a.wraps_once
        && modulus.coeffs.iter().zip(&scop.params).any(|(c, p)| {
            *c != 0
                && matches!(
                    p.origin,
                    ParamOrigin::FunctionParam | ParamOrigin::Variable | ParamOrigin::ConstGlobal
                )
        })
}
