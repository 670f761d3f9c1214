//! The note at the declaration of a remapped array: the mapping as the
//! code computes it, e.g. `y[i][k] -> y[(2 * i + k) % (2 * N - 1)]`.
//!
//! The left side names a cell the way the code does: by the subscripts of
//! one access of the array, its loops' iterators where an access has
//! plain iterators as subscripts (`blurx[ty][tx][x][y]`), each iterator of
//! an access `t2[i - 1]` shifted by a constant otherwise (`t2[i]`), else
//! the subscripts of the access that uses the most iterators, as written
//! (`g_acc1[x][y][k + 2 - T]`, `u[3 * i + 2]`), `c0`, `c1`, … where no
//! access's subscripts are exact forms. The right side is the layout's
//! form of each dimension over those subscripts, simplified where they
//! are an access's (`B[i + j][j] -> B[i][j]`):
//! - a `%` only where some access computes one (a dimension whose every
//!   access is proven in `0..modulus` with its plain form reads without
//!   it, as the code does: `tx`, not `tx % NT`);
//! - the argument of a `%` is the one the layout proves non-negative on
//!   every access (its offset added: `(y + 3 * B - 2 * x - 2) % (3 * B -
//!   2)`, not `(y - 2 * x) % (3 * B - 2)`, which C's `%` makes negative
//!   for `y < 2 * x`), so that the note reads as C computing the cell.
//!
//! It does not show what the code adds for speed (rotating indices,
//! masks, the conditional subtraction of `--fast-modulo`): `i % 2` where
//! the code may print `i & 1`. The report's `mapping:` line
//! ([`super::mapping_text`]) prints the certified mapping itself, over
//! `c0`, `c1`, ….

use crate::ir::{Access, AffExpr, ArrayId, Scop, Stmt};
use crate::mapping::layout::{Argument, ArrayLayout, DimLayout};
use crate::mapping::modular::ParamAffine;
use crate::util::c_text::{Prec, affine_text, operand};

use super::plan::{
    linear_rows_text, linear_text, packed_text, same_form, subscript_texts, with_moduli,
};
use super::text::{exact_subscripts, form_text, operand_text, param_text};

/// One access whose subscripts name the note's cells.
struct Site<'a> {
    stmt: &'a Stmt,
    access: &'a Access,
    /// Each cell coordinate of the note as an affine form over the
    /// statement's columns `[params | iterators]`: the access's
    /// subscripts, or their iterators without the constants.
    forms: Vec<AffExpr>,
}

/// The cells a note names: the text of each subscript on its left side,
/// and the access they are the values of (none for `c0`, `c1`, …).
struct Cells<'a> {
    names: Vec<String>,
    site: Option<Site<'a>>,
}

/// `text` on one line, its runs of white space one space each.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The accesses of `array` with rank `rank`, in statement order.
fn accesses_of(scop: &Scop, array: ArrayId, rank: usize) -> impl Iterator<Item = (&Stmt, &Access)> {
    scop.stmts.iter().flat_map(move |stmt| {
        stmt.accesses()
            .filter(move |a| {
                a.array == array && a.subscript_spans.len() == rank && a.subscripts.len() == rank
            })
            .map(move |a| (stmt, a))
    })
}

/// The first access of `array` whose subscripts are distinct iterators,
/// as written (`y[i][k]`).
fn plain_cells<'a>(source: &str, scop: &'a Scop, array: ArrayId, rank: usize) -> Option<Cells<'a>> {
    accesses_of(scop, array, rank).find_map(|(stmt, access)| {
        let subs = subscript_texts(source, access);
        let distinct = subs.iter().enumerate().all(|(k, s)| !subs[..k].contains(s));
        (distinct && subs.iter().all(|s| stmt.iterators.iter().any(|i| i == s))).then(|| Cells {
            names: subs.iter().map(|s| s.to_string()).collect(),
            site: Some(Site {
                stmt,
                access,
                forms: access.subscripts.clone(),
            }),
        })
    })
}

/// The first access whose subscripts are each one iterator (with
/// coefficient 1) plus a constant, distinct iterators: each dimension is
/// named after its iterator (`t2[i - 1]`, `t2[i + 1]` -> `t2[i]`).
fn shifted_cells<'a>(scop: &'a Scop, array: ArrayId, rank: usize) -> Option<Cells<'a>> {
    let n_param = scop.params.len();
    accesses_of(scop, array, rank).find_map(|(stmt, access)| {
        let mut names: Vec<String> = Vec::new();
        let mut forms: Vec<AffExpr> = Vec::new();
        for sub in &access.subscripts {
            let (params, iters) = sub.coeffs.split_at(n_param.min(sub.coeffs.len()));
            let mut used = iters.iter().enumerate().filter(|(_, c)| **c != 0);
            let (k, c) = used.next()?;
            let name = stmt.iterators.get(k)?;
            if *c != 1
                || used.next().is_some()
                || params.iter().any(|c| *c != 0)
                || k >= stmt.loop_depth()
                || names.contains(name)
            {
                return None;
            }
            names.push(name.clone());
            forms.push(AffExpr {
                coeffs: sub.coeffs.clone(),
                constant: 0,
            });
        }
        Some(Cells {
            names,
            site: Some(Site {
                stmt,
                access,
                forms,
            }),
        })
    })
}

/// The access whose subscripts are exact forms and use the most distinct
/// loop iterators (a write first between equals, then the first), its
/// subscripts as written (`g_acc1[x][y][k + 2 - T]`).
fn written_cells<'a>(
    source: &str,
    scop: &'a Scop,
    array: ArrayId,
    rank: usize,
) -> Option<Cells<'a>> {
    let n_param = scop.params.len();
    let mut best: Option<((usize, bool), &Stmt, &Access)> = None;
    for (stmt, access) in accesses_of(scop, array, rank) {
        if !exact_subscripts(source, scop, stmt, access) {
            continue;
        }
        let used = (0..stmt.loop_depth())
            .filter(|k| {
                access
                    .subscripts
                    .iter()
                    .any(|s| s.coeffs.get(n_param + k).is_some_and(|c| *c != 0))
            })
            .count();
        let key = (used, std::ptr::eq(access, &stmt.write));
        if best.as_ref().is_none_or(|(b, _, _)| key > *b) {
            best = Some((key, stmt, access));
        }
    }
    let (_, stmt, access) = best?;
    Some(Cells {
        names: subscript_texts(source, access)
            .iter()
            .map(|s| one_line(s))
            .collect(),
        site: Some(Site {
            stmt,
            access,
            forms: access.subscripts.clone(),
        }),
    })
}

/// The cells the note of `array` names (see the module's documentation).
fn note_cells<'a>(source: &str, scop: &'a Scop, array: ArrayId, rank: usize) -> Cells<'a> {
    plain_cells(source, scop, array, rank)
        .or_else(|| shifted_cells(scop, array, rank))
        .or_else(|| written_cells(source, scop, array, rank))
        .unwrap_or_else(|| Cells {
            names: (0..rank).map(|p| format!("c{p}")).collect(),
            site: None,
        })
}

/// `Σ coeffs[p]·forms[p] - shift` over the forms' columns `[params |
/// iterators]`; `None` on overflow or a shift with a denominator.
fn numerator(coeffs: &[i64], forms: &[AffExpr], shift: &ParamAffine) -> Option<AffExpr> {
    if shift.den != 1 {
        return None;
    }
    let width = forms
        .iter()
        .map(|f| f.coeffs.len())
        .chain(std::iter::once(shift.coeffs.len()))
        .max()
        .unwrap_or(0);
    let mut out = AffExpr {
        coeffs: vec![0; width],
        constant: 0,
    };
    for (c, form) in coeffs.iter().zip(forms) {
        for (k, v) in form.coeffs.iter().enumerate() {
            out.coeffs[k] = out.coeffs[k].checked_add(c.checked_mul(*v)?)?;
        }
        out.constant = out.constant.checked_add(c.checked_mul(form.constant)?)?;
    }
    for (k, v) in shift.coeffs.iter().enumerate() {
        out.coeffs[k] = out.coeffs[k].checked_sub(*v)?;
    }
    out.constant = out.constant.checked_sub(shift.constant)?;
    Some(out)
}

/// The argument `(Σ coeffs[p]·forms[p] - shift) / divisor + offset` of a
/// linear dimension as one affine form over the forms' columns; `None`
/// where the division does not divide every coefficient, on overflow, or
/// with a denominator.
fn composed(
    coeffs: &[i64],
    forms: &[AffExpr],
    (shift, divisor): (&ParamAffine, i64),
    offset: &ParamAffine,
) -> Option<AffExpr> {
    let mut out = numerator(coeffs, forms, shift)?;
    if divisor < 1
        || offset.den != 1
        || out.constant % divisor != 0
        || out.coeffs.iter().any(|c| c % divisor != 0)
    {
        return None;
    }
    out.constant /= divisor;
    out.coeffs.iter_mut().for_each(|c| *c /= divisor);
    if out.coeffs.len() < offset.coeffs.len() {
        out.coeffs.resize(offset.coeffs.len(), 0);
    }
    for (k, v) in offset.coeffs.iter().enumerate() {
        out.coeffs[k] = out.coeffs[k].checked_add(*v)?;
    }
    out.constant = out.constant.checked_add(offset.constant)?;
    Some(out)
}

/// `form` printed in `site`'s terms (see [`form_text`]).
fn site_form_text(source: &str, scop: &Scop, site: &Site, form: &AffExpr) -> String {
    form_text(
        source,
        scop,
        site.stmt,
        site.access,
        &Argument::of_form(form),
    )
}

/// Whether dimension `p` of `layout` (of `array`) computes a residue on
/// some access: whether some access of the array has, there, a subscript
/// that is not the dimension's plain form (the subscript itself for a `%`
/// dimension, the combination with the layout's offset for a linear one)
/// with its value proven in `0..modulus` (an exempt access, or an argument
/// that does not wrap and is that form, or a literal below a number
/// modulus). Where none does, every cell the code touches is its plain
/// form and the note leaves out the `%`.
fn dim_wraps(source: &str, scop: &Scop, array: ArrayId, p: usize, dim: &DimLayout) -> bool {
    scop.stmts.iter().enumerate().any(|(si, stmt)| {
        stmt.accesses()
            .enumerate()
            .filter(|(_, access)| access.array == array)
            .any(|(position, access)| {
                let key = (si, position);
                let exact = exact_subscripts(source, scop, stmt, access);
                let argument = |arguments: &[Argument]| {
                    arguments.iter().find(|a| exact && a.access == key).cloned()
                };
                match dim {
                    DimLayout::Modulo {
                        modulus,
                        exempt,
                        arguments,
                        ..
                    } => {
                        let Some(sub) = access.subscripts.get(p) else {
                            return true;
                        };
                        if let Some(a) = argument(arguments) {
                            return a.wraps
                                || a.moduli != 0
                                || !same_form(&a.coeffs, a.constant, sub);
                        }
                        if exempt.contains(&key) {
                            return false;
                        }
                        let literal = sub.coeffs.iter().all(|c| *c == 0);
                        !(literal
                            && modulus.is_constant()
                            && (0..modulus.constant).contains(&sub.constant))
                    }
                    DimLayout::Linear {
                        coeffs,
                        divisor,
                        shift,
                        offset,
                        offset_moduli,
                        exempt,
                        arguments,
                        ..
                    } => {
                        if let Some(a) = argument(arguments) {
                            let plain =
                                composed(coeffs, &access.subscripts, (shift, *divisor), offset);
                            return a.wraps
                                || a.moduli != *offset_moduli
                                || !plain.is_some_and(|g| same_form(&a.coeffs, a.constant, &g));
                        }
                        !exempt.contains(&key)
                    }
                    _ => false,
                }
            })
    })
}

/// The text of a linear dimension's argument over the note's cells, its
/// offset included: an affine form where the cells are an access's
/// subscripts and the division is exact on its coefficients (`i`, not
/// `(2 * i) / 2`), the quotient of one otherwise (`(c0 - 2) / 3`).
fn linear_argument_text(
    source: &str,
    scop: &Scop,
    cells: &Cells,
    dim: &DimLayout,
    params: &[String],
) -> String {
    let DimLayout::Linear {
        coeffs,
        divisor,
        shift,
        offset,
        offset_moduli,
        modulus,
        ..
    } = dim
    else {
        return String::new();
    };
    let with_offset = |text: String| with_moduli(scop, text, *offset_moduli, modulus, params);
    if let Some(site) = &cells.site {
        if let Some(form) = composed(coeffs, &site.forms, (shift, *divisor), offset) {
            return with_offset(site_form_text(source, scop, site, &form));
        }
        if let Some(num) = numerator(coeffs, &site.forms, shift) {
            let text = site_form_text(source, scop, site, &num);
            return with_offset(quotient_plus(scop, &text, *divisor, offset, params));
        }
    }
    // Over the names as texts, as the code prints an access without a
    // proven argument.
    let names: Vec<&str> = cells.names.iter().map(String::as_str).collect();
    let minus_shift = ParamAffine {
        coeffs: shift.coeffs.iter().map(|c| -c).collect(),
        constant: -shift.constant,
        den: 1,
    };
    if *divisor == 1 {
        let moved = ParamAffine {
            coeffs: (0..offset.coeffs.len().max(minus_shift.coeffs.len()))
                .map(|k| {
                    offset.coeffs.get(k).copied().unwrap_or(0)
                        + minus_shift.coeffs.get(k).copied().unwrap_or(0)
                })
                .collect(),
            constant: offset.constant + minus_shift.constant,
            den: 1,
        };
        return with_offset(linear_text(scop, coeffs, &names, &moved, params));
    }
    let text = linear_text(scop, coeffs, &names, &minus_shift, params);
    with_offset(quotient_plus(scop, &text, *divisor, offset, params))
}

/// `numerator / divisor + offset` as C text (`(c0 - 2) / 3`, `c0 / 2 + N`).
fn quotient_plus(
    scop: &Scop,
    numerator: &str,
    divisor: i64,
    offset: &ParamAffine,
    params: &[String],
) -> String {
    let compound = |n: &str| scop.is_compound(n);
    let quotient = format!(
        "{} / {divisor}",
        operand(numerator, Prec::Multiplicative, &compound)
    );
    let mut terms = vec![(1, quotient)];
    for (c, name) in offset.coeffs.iter().zip(params) {
        terms.push((*c, operand_text(scop, name)));
    }
    affine_text(&terms, offset.constant)
}

/// `arg % modulus` for the note: `arg` parenthesised only where `%` would
/// take less of it (`(c0 - 2) / 3 % 3`, `(k - i) % N`).
fn note_residue(scop: &Scop, arg: &str, modulus: &ParamAffine, params: &[String]) -> String {
    let compound = |n: &str| scop.is_compound(n);
    format!(
        "{} % {}",
        operand(arg, Prec::Multiplicative, &compound),
        operand_text(scop, &param_text(modulus, params))
    )
}

/// The note at the declaration of `array` with `layout`, e.g.
/// `y[i][k] -> y[(2 * i + k) % (2 * N - 1)]` (see the module's
/// documentation); `*/` never appears in it.
pub(crate) fn mapping_comment(
    source: &str,
    scop: &Scop,
    array: ArrayId,
    layout: &ArrayLayout,
) -> String {
    let decl = scop.array(array);
    let rank = decl.extents.len();
    let params = scop.param_texts();
    let cells = note_cells(source, scop, array, rank);
    let names = &cells.names;
    let mut left = decl.name.clone();
    for n in names {
        left.push_str(&format!("[{n}]"));
    }
    let mut right = decl.name.clone();
    for (p, dim) in layout.dims.iter().enumerate() {
        match dim {
            DimLayout::Dropped if decl.keeps_declarator() => right.push_str("[0]"),
            DimLayout::Dropped => {}
            DimLayout::Plain { .. } => {
                right.push_str(&format!("[{}]", names.get(p).map_or("0", String::as_str)))
            }
            DimLayout::Modulo { modulus, .. } => {
                let name = names.get(p).cloned().unwrap_or_default();
                if dim_wraps(source, scop, array, p, dim) {
                    right.push_str(&format!(
                        "[{}]",
                        note_residue(scop, &name, modulus, &params)
                    ));
                } else {
                    right.push_str(&format!("[{name}]"));
                }
            }
            DimLayout::Packed {
                partner,
                triangle,
                extent,
            } => {
                let other = names.get(*partner).cloned().unwrap_or_default();
                let name = names.get(p).cloned().unwrap_or_default();
                right.push_str(&format!(
                    "[{}]",
                    packed_text(scop, *triangle, &name, &other, extent, &params)
                ));
            }
            DimLayout::Linear { modulus, .. } => {
                if modulus.is_constant() && modulus.constant == 1 {
                    continue;
                }
                let arg = linear_argument_text(source, scop, &cells, dim, &params);
                if !dim_wraps(source, scop, array, p, dim) {
                    right.push_str(&format!("[{arg}]"));
                } else {
                    right.push_str(&format!("[{}]", note_residue(scop, &arg, modulus, &params)));
                }
            }
        }
    }
    if decl.facts.linear_rows {
        // As the buffer is indexed: `t[y * w + x] -> t[(y % 2) * w + x]`.
        let same = ArrayLayout {
            dims: vec![DimLayout::Plain { extent: None }; 2],
        };
        left = linear_rows_text(scop, (array, &same), &left);
        right = linear_rows_text(scop, (array, layout), &right);
    }
    format!("{left} -> {right}").replace("*/", "* /")
}

#[cfg(test)]
mod tests {
    use crate::driver::{RunOptions, run_source};

    /// The mapping notes of polyfold's output for `source` (default
    /// flags), each `a -> b` as printed between `/* polyfold: ` and ` */`
    /// on a declaration's line or the line before it.
    fn notes(name: &str, source: &str) -> Vec<String> {
        notes_with(name, source, &RunOptions::default())
    }

    /// [`notes`] with `options`.
    fn notes_with(name: &str, source: &str, options: &RunOptions) -> Vec<String> {
        let out = run_source(name, source, options);
        assert_eq!(out.code, 0, "{name}: {}", out.stdout);
        out.stdout
            .lines()
            .filter_map(|l| l.split_once("/* polyfold: ").map(|(_, n)| n))
            .filter_map(|n| n.strip_suffix(" */"))
            .filter(|n| n.contains(" -> "))
            .map(str::to_string)
            .collect()
    }

    fn assert_note(notes: &[String], expected: &str) {
        assert!(
            notes.iter().any(|n| n == expected),
            "no note `{expected}` among {notes:?}"
        );
    }

    /// blur_tiled: blurx[ty][tx][x][y] (0 <= x, y < B, 0 <= tx < NT) goes
    /// to the plane ty % 2, the column tx (below NT on every access: no
    /// `%`) and (y - 2x) mod (3B - 2). y - 2x >= -2(B - 1) = 2 - 2B, so one
    /// period 3B - 2 added makes it at least B > 0: the argument
    /// y - 2x + 3B - 2, which C's `%` keeps non-negative.
    #[test]
    fn a_negative_argument_reads_with_its_period_added() {
        let notes = notes("blur_tiled.c", include_str!("../../corpus/blur_tiled.c"));
        assert_note(
            &notes,
            "blurx[ty][tx][x][y] -> blurx[ty % 2][tx][(y + 3 * B - 2 * x - 2) % (3 * B - 2)]",
        );
    }

    /// skewed_temp: B is written at B[i + j][j], 0 <= i < N, 0 <= j < M;
    /// the cell (i + j, j) goes to ((i + j) - j, j) = (i, j), both below
    /// their extents: no `%`, and the note names the access.
    #[test]
    fn a_skew_undone_reads_without_a_modulo() {
        let notes = notes("skewed_temp.c", include_str!("../../corpus/skewed_temp.c"));
        assert_note(&notes, "B[i + j][j] -> B[i][j]");
    }

    /// strided_temp: t[2 * i][1], 0 <= i < N, goes to (2i) / 2 = i < N (no
    /// `%`); u[3 * i + 2] goes to ((3i + 2) - 2) / 3 = i modulo 3, i
    /// reaching N - 1 >= 3: one `%`, without doubled parentheses.
    #[test]
    fn a_removed_stride_reads_as_the_iterator() {
        let notes = notes(
            "strided_temp.c",
            include_str!("../../corpus/strided_temp.c"),
        );
        assert_note(&notes, "t[2 * i][1] -> t[i]");
        assert_note(&notes, "u[3 * i + 2] -> u[i % 3]");
    }

    /// split_temp: the second live range of scratch is written at
    /// scratch[2 * N + i], 0 <= i < N - 1, and read at
    /// scratch[2 * N + i - 1], 1 <= i < N: (2N + i) - 2N = i, in
    /// 0..N - 1 on every access, so no `%` (which would divide by zero at
    /// N = 1); the first range keeps its plain iterator.
    #[test]
    fn a_split_range_reads_with_the_source_names() {
        let notes = notes("split_temp.c", include_str!("../../corpus/split_temp.c"));
        assert_note(&notes, "scratch[i] -> scratch_0[i]");
        assert_note(&notes, "scratch[2 * N + i] -> scratch_1[i]");
    }

    /// gauss: no access of tot, g_acc1, g_acc2 has plain iterators as
    /// subscripts; the note names the write with the most iterators, as
    /// written (`tot[k + 2 - T]`, `g_acc1[x][y][k + 2 - T]`), and each
    /// becomes one scalar. The two passes are fused, the second one `y`
    /// late, so its write is printed `g_acc2[x][y - 1][k + 2 - T]`.
    #[test]
    fn subscripts_that_are_not_iterators_are_named_as_written() {
        let notes = notes("gauss.c", include_str!("../../corpus/gauss.c"));
        assert_note(&notes, "tot[k + 2 - T] -> tot");
        assert_note(&notes, "g_acc1[x][y][k + 2 - T] -> g_acc1");
        assert_note(&notes, "g_acc2[x][y - 1][k + 2 - T] -> g_acc2");
    }

    /// Without fusion: s[i][j] (0 <= j < 3) is written and read in the
    /// same iteration of i, so 3 cells, s[j], and j < 3 on every access
    /// needs no `%`. t[i][j] is read at t[i - 1][j] one iteration of i
    /// later: two rows, t[i % 2][j], and j < M on every access keeps its
    /// subscript without a `%`.
    #[test]
    fn only_a_dimension_that_wraps_shows_a_modulo() {
        let source = "#define N 10\n#define M 7\n\
            void k(const double in[N][M], double out[N][M])\n{\n    int i, j;\n    \
            double s[N][M];\n    double t[N][M];\n#pragma scop\n    \
            for (j = 0; j < M; j++)\n        t[0][j] = in[0][j];\n    \
            for (i = 1; i < N; i++) {\n        \
            for (j = 0; j < 3; j++)\n            s[i][j] = in[i][j] * 2.0;\n        \
            for (j = 0; j < M; j++)\n            t[i][j] = in[i][j] + 1.0;\n        \
            for (j = 0; j < 3; j++)\n            out[i][j] = s[i][j] + t[i - 1][j];\n        \
            for (j = 3; j < M; j++)\n            out[i][j] = t[i][j] - t[i - 1][j];\n    \
            }\n#pragma endscop\n}\n";
        let options = RunOptions {
            no_fusion: true,
            ..RunOptions::default()
        };
        let notes = notes_with("window.c", source, &options);
        assert_note(&notes, "s[i][j] -> s[j]");
        assert_note(&notes, "t[i][j] -> t[i % 2][j]");
    }
}
