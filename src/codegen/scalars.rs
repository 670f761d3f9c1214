//! Rotating scalars: a folded array of at most four cells kept in named
//! scalars that the loops' headers shift (seed 003, Fig. 1(d): `a1`, `a2`).
//!
//! In iteration `i` of the loops that carry the fold, scalar `A_s<k>`
//! holds cell `i + lo + k` of the original array, for the window `[lo,
//! hi]` of the constant offsets of its accesses `A[i + c]`. At the end of
//! every iteration the header shifts the window (`A_s0 = A_s1, A_s1 =
//! A_s2`, in increasing order), so a value written at iteration `i` at
//! offset `x - i` and read at iteration `j` at offset `x - j` has moved
//! exactly `j - i` places, through offsets inside the window:
//!
//! ```c
//! double A_s0, A_s1; /* polyfold: A[i] -> scalars A_s0 = A[i - 1], A_s1 = A[i] in the loops of i */
//! for (i = 2; i <= N; i++, A_s0 = A_s1) {
//!     A_s1 = E[i] + E[i - 1];
//!     E[i - 1] = A_s0;
//! }
//! ```
//!
//! The scalars store the array's cells without folding them (cell `x` is
//! `A_s<x - i - lo>` at iteration `i`), which is correct where the
//! certified fold `x % m` is (it merges more cells), as long as the count
//! of shifts between two accesses is the difference of their iterators.
//! What is proven before the scalars are planned (anything else keeps the
//! fold and its `%` or rotating indices):
//!
//! - the array has one dimension, folded by a number modulus `m`, no
//!   initialiser, a declarator of its own before the SCoP, and is not
//!   used outside the SCoP; the window has at most 4 cells and at most
//!   `m`;
//! - every access is `A[i + c]`: coefficient 1 on the iterator of the one
//!   loop around its statement, nothing else; no deleted copy sits in the
//!   loops;
//! - the loops holding the accesses are top-level items of the SCoP,
//!   consecutive (every item between them is such a loop too), with the
//!   same iterator, step +1, no pragma, no loop inside; each loop's
//!   iterations are one interval `[l, u]` (from its statements' loop
//!   domains), each lower bound is the upper bound before plus one as
//!   affine forms, and a loop between the first and the last runs
//!   `u - l + 1 >= 0` iterations wherever the context holds — or, where
//!   it may not, no access runs before it and another after it (integer
//!   emptiness of the pairs of instances).
//!
//! Not done: arrays of several dimensions, loops nested in others (the
//! window would have to restart with the outer loop), parallel loops.

use std::collections::BTreeSet;

use crate::ir::{ArrayId, ForHeader, Scop, SyntaxNode};
use crate::mapping::layout::{ArrayLayout, DimLayout};
use crate::poly::{BasicSet, Set};
use crate::util::c_text::affine_text;

use super::edits::Edit;

/// Cells of the largest window kept in scalars.
pub const MAX_WINDOW: i64 = 4;

/// One array kept in scalars.
#[derive(Clone, Debug)]
pub struct ScalarArray {
    pub array: ArrayId,
    /// The scalars, for the offsets `lo`, `lo + 1`, ... of the window.
    pub names: Vec<String>,
    /// The iterator of the loops whose headers shift them.
    pub iterator: String,
    /// The declaration's comment: `A[i] -> scalars A_s0 = A[i - 1], ...`.
    pub comment: String,
    /// The declarator's and the accesses' replacements.
    pub edits: Vec<Edit>,
}

/// The rotating scalars of one SCoP.
#[derive(Clone, Debug, Default)]
pub struct Scalars {
    pub arrays: Vec<ScalarArray>,
    /// Insertions at the end of loop headers' updates (`, A_s0 = A_s1`):
    /// (position, text), one per position.
    pub shifts: Vec<(usize, String)>,
}

impl Scalars {
    pub fn of_array(&self, array: ArrayId) -> Option<&ScalarArray> {
        self.arrays.iter().find(|a| a.array == array)
    }
}

/// The loop of a top-level item: its header, if it is a `for` of a known
/// form with no loop inside and no pragma.
fn simple_loop(scop: &Scop, item: usize) -> Option<&ForHeader> {
    fn has_loop(node: &SyntaxNode) -> bool {
        match node {
            SyntaxNode::For { .. } => true,
            SyntaxNode::If { then, els, .. } => {
                has_loop(then) || els.as_ref().is_some_and(|e| has_loop(e))
            }
            SyntaxNode::Block { items, .. } => items.iter().any(has_loop),
            SyntaxNode::Pragma { .. } => true,
            _ => false,
        }
    }
    let item = scop.items.get(item)?;
    if !item.pragmas.is_empty() {
        return None;
    }
    match &item.node {
        SyntaxNode::For {
            header: Some(header),
            body,
            ..
        } if header.step == 1 && !has_loop(body) => Some(header),
        _ => None,
    }
}

/// `[coefficients of the parameters | constant]` of a bound.
type Bound = Vec<i64>;

/// The interval `[lower, upper]` of a loop's iterations, from a loop
/// domain over `[params | i]`: one piece without existentials, one lower
/// and one upper bound of coefficient 1 on `i`, and rows on the
/// parameters alone that the context implies.
fn interval(domain: &Set, names: &[String], context: &BasicSet) -> Option<(Bound, Bound)> {
    let [piece] = &domain.pieces[..] else {
        return None;
    };
    let piece = piece.with_params(names).ok()?;
    let np = names.len();
    if piece.n_exist != 0 || piece.space.n_var() != np + 1 {
        return None;
    }
    let strip = |row: &[i64]| -> Bound {
        let mut b: Bound = row[..np].to_vec();
        b.push(row[np + 1]);
        b
    };
    let negate = |b: &Bound| -> Option<Bound> { b.iter().map(|v| v.checked_neg()).collect() };
    let (mut lower, mut upper): (Option<Bound>, Option<Bound>) = (None, None);
    let set_once = |slot: &mut Option<Bound>, b: Bound| -> bool {
        match slot {
            Some(old) => *old == b,
            None => {
                *slot = Some(b);
                true
            }
        }
    };
    let mut param_rows: Vec<Vec<i64>> = Vec::new();
    for (row, is_eq) in piece
        .eqs
        .iter()
        .map(|r| (r, true))
        .chain(piece.ineqs.iter().map(|r| (r, false)))
    {
        match row[np] {
            0 if is_eq => return None,
            0 => param_rows.push(row.clone()),
            // `i + rest >= 0`: `i >= -rest`.
            1 => {
                let b = negate(&strip(row))?;
                if !set_once(&mut lower, b.clone()) || (is_eq && !set_once(&mut upper, b)) {
                    return None;
                }
            }
            // `-i + rest >= 0`: `i <= rest`.
            -1 => {
                let b = strip(row);
                if !set_once(&mut upper, b.clone()) || (is_eq && !set_once(&mut lower, b)) {
                    return None;
                }
            }
            _ => return None,
        }
    }
    // Each row on the parameters alone holds on the whole context.
    for row in param_rows {
        let mut outside = param_set(context, names)?;
        let mut negated: Vec<i64> = row[..np]
            .iter()
            .map(|v| v.checked_neg())
            .collect::<Option<_>>()?;
        negated.push(row[np + 1].checked_neg()?.checked_sub(1)?);
        add_param_row(&mut outside, &negated);
        if !outside.is_empty().ok()? {
            return None;
        }
    }
    Some((lower?, upper?))
}

/// The context over the parameters `names`.
fn param_set(context: &BasicSet, names: &[String]) -> Option<BasicSet> {
    let c = context.with_params(names).ok()?;
    (c.space.n_var() == names.len()).then_some(c)
}

/// Adds `row >= 0` (`[params | constant]`) to `set`, whose first columns
/// are the parameters.
fn add_param_row(set: &mut BasicSet, row: &[i64]) {
    let np = row.len() - 1;
    let mut full = set.zero_row();
    full[..np].copy_from_slice(&row[..np]);
    let w = full.len();
    full[w - 1] = row[np];
    set.add_ineq(full);
}

/// One access of the array: (statement index, access span, offset `c`).
struct Site {
    stmt: usize,
    span: std::ops::Range<usize>,
    offset: i64,
}

/// The rotating scalars of the arrays `arrays` of `scop` (each with its
/// certified layout) whose conditions are proven (see the module's
/// documentation); `removed` are the deleted copies. Names are
/// `<array>_s<k>`, skipping the names in `taken`, to which they are added.
pub fn plan_scalars(
    source: &str,
    scop: &Scop,
    (arrays, removed): (&[(ArrayId, &ArrayLayout)], &[usize]),
    taken: &mut BTreeSet<String>,
) -> Scalars {
    let mut out = Scalars::default();
    for (array, layout) in arrays {
        if let Some((plan, shifts)) = plan_array(source, scop, (*array, layout), removed, taken) {
            for (at, text) in shifts {
                match out.shifts.iter_mut().find(|(p, _)| *p == at) {
                    Some((_, t)) => t.push_str(&text),
                    None => out.shifts.push((at, text)),
                }
            }
            out.arrays.push(plan);
        }
    }
    out
}

/// The scalars of one array and its header insertions, when proven.
fn plan_array(
    source: &str,
    scop: &Scop,
    (array, layout): (ArrayId, &ArrayLayout),
    removed: &[usize],
    taken: &mut BTreeSet<String>,
) -> Option<(ScalarArray, Vec<(usize, String)>)> {
    let decl = scop.array(array);
    // One dimension, folded by a number modulus.
    let [
        DimLayout::Modulo {
            modulus: m,
            extent_proven: true,
            ..
        },
    ] = &layout.dims[..]
    else {
        return None;
    };
    if decl.extents.len() != 1 || !m.is_constant() || m.constant < 1 {
        return None;
    }
    if decl.initializer_span.is_some()
        || decl.keeps_declarator()
        || decl.facts.used_outside_scop
        || decl.facts.address_taken
    {
        return None;
    }
    // Declared before the SCoP: one set of scalars for all its loops (a
    // declaration inside a loop would start afresh on every iteration).
    if decl.decl_span.as_ref()?.end > scop.span.start {
        return None;
    }
    let declarator = decl.declarator_span.clone()?;
    let after_name = source.get(declarator.clone())?.strip_prefix(&decl.name)?;
    if !after_name.trim_start().starts_with('[') {
        return None;
    }
    // Every access: `A[i + c]` in a statement with one loop around it.
    let n_param = scop.params.len();
    let mut sites: Vec<Site> = Vec::new();
    let mut items: Vec<usize> = Vec::new();
    for (si, stmt) in scop.stmts.iter().enumerate() {
        for access in stmt.accesses() {
            if access.array != array {
                continue;
            }
            if removed.contains(&si)
                || !stmt.quotients.is_empty()
                || stmt.loop_depth() != 1
                || stmt.parallel_mark(0).is_some()
            {
                return None;
            }
            let [sub] = &access.subscripts[..] else {
                return None;
            };
            if sub.coeffs.len() != n_param + 1
                || sub.coeffs[..n_param].iter().any(|c| *c != 0)
                || sub.coeffs[n_param] != 1
            {
                return None;
            }
            let item = scop.items.iter().position(|it| {
                let s = it.node.span();
                s.start <= stmt.span.start && stmt.span.end <= s.end
            })?;
            items.push(item);
            sites.push(Site {
                stmt: si,
                span: access.span.clone(),
                offset: sub.constant,
            });
        }
    }
    let (first, last) = (*items.iter().min()?, *items.iter().max()?);
    let lo = sites.iter().map(|s| s.offset).min()?;
    let hi = sites.iter().map(|s| s.offset).max()?;
    let window = hi.checked_sub(lo)?.checked_add(1)?;
    if window > MAX_WINDOW || window > m.constant {
        return None;
    }
    // The loops: consecutive items, one iterator, step +1, one interval
    // each, every lower bound one past the upper bound before.
    let names = scop.param_names();
    let context = &scop.context;
    let mut headers: Vec<&ForHeader> = Vec::new();
    let mut bounds: Vec<(Bound, Bound)> = Vec::new();
    for item in first..=last {
        let header = simple_loop(scop, item)?;
        if headers
            .first()
            .is_some_and(|h| h.iterator != header.iterator)
        {
            return None;
        }
        let span = scop.items[item].node.span();
        let inside: Vec<usize> = (0..scop.stmts.len())
            .filter(|k| {
                let s = &scop.stmts[*k].span;
                span.start <= s.start && s.end <= span.end
            })
            .collect();
        if inside.is_empty() || inside.iter().any(|k| removed.contains(k)) {
            return None;
        }
        let mut interval_of_loop = None;
        for k in inside {
            let stmt = &scop.stmts[k];
            if stmt.loop_depth() != 1 || stmt.iterators[0] != header.iterator {
                return None;
            }
            let found = interval(stmt.loop_domains.first()?, &names, context)?;
            if interval_of_loop.as_ref().is_some_and(|b| *b != found) {
                return None;
            }
            interval_of_loop = Some(found);
        }
        headers.push(header);
        bounds.push(interval_of_loop?);
    }
    for pair in bounds.windows(2) {
        let mut next = pair[0].1.clone();
        *next.last_mut()? = next.last()?.checked_add(1)?;
        if pair[1].0 != next {
            return None;
        }
    }
    // A loop between the first and the last that may run a negative
    // number of iterations (`u <= l - 2`) breaks the count of shifts: no
    // access may run before it and another after it there.
    let item_of = |si: usize| items[sites.iter().position(|s| s.stmt == si).unwrap_or(0)];
    let n_loops = bounds.len();
    for (middle, (l, u)) in bounds
        .iter()
        .enumerate()
        .take(n_loops.saturating_sub(1))
        .skip(1)
    {
        // `l - 2 - u >= 0`.
        let broken: Bound = l
            .iter()
            .zip(u)
            .map(|(a, b)| a.checked_sub(*b))
            .collect::<Option<Vec<i64>>>()?;
        let mut broken = broken;
        *broken.last_mut()? = broken.last()?.checked_sub(2)?;
        let mut anywhere = param_set(context, &names)?;
        add_param_row(&mut anywhere, &broken);
        if anywhere.is_empty().ok()? {
            continue;
        }
        let at = first + middle;
        let before: BTreeSet<usize> = sites
            .iter()
            .filter(|s| item_of(s.stmt) < at)
            .map(|s| s.stmt)
            .collect();
        let after: BTreeSet<usize> = sites
            .iter()
            .filter(|s| item_of(s.stmt) > at)
            .map(|s| s.stmt)
            .collect();
        for s in &before {
            for t in &after {
                let d_s = scop.stmts[*s].domain.with_params(&names).ok()?;
                let d_t = scop.stmts[*t].domain.with_params(&names).ok()?;
                let pairs = d_s.product(&d_t).ok()?;
                for piece in &pairs.pieces {
                    let mut piece = piece.with_params(&names).ok()?;
                    piece.add_param_constraints(&param_set(context, &names)?);
                    add_param_row(&mut piece, &broken);
                    if !piece.is_empty().ok()? {
                        return None;
                    }
                }
            }
        }
    }
    // Names, declarator, accesses, shifts.
    let base = &decl.name;
    let scalar_names: Vec<String> = (0..window)
        .map(|k| {
            (0..)
                .map(|n| {
                    if n == 0 {
                        format!("{base}_s{k}")
                    } else {
                        format!("{base}_s{k}_{n}")
                    }
                })
                .find(|name| taken.insert(name.clone()))
                .expect("some name is free")
        })
        .collect();
    let name_at = |offset: i64| -> &str {
        let k = usize::try_from(offset - lo).expect("inside the window");
        &scalar_names[k]
    };
    // Each scalar starts at zero: the first shifts copy scalars that no
    // write has reached yet (a loop whose guards skip its first
    // iterations), and reading an uninitialised variable whose address
    // is never taken is undefined in C (C11 6.3.2.1p2), where the array's
    // cells were merely never read. `{0}` for element types that are not
    // plainly arithmetic (a struct behind a typedef).
    let arithmetic = decl.elem_type.split_whitespace().all(|w| {
        matches!(
            w,
            "double"
                | "float"
                | "int"
                | "long"
                | "short"
                | "char"
                | "unsigned"
                | "signed"
                | "_Bool"
                | "volatile"
                | "register"
        )
    });
    let zero = if arithmetic { "0" } else { "{0}" };
    let declared: Vec<String> = scalar_names
        .iter()
        .map(|n| format!("{n} = {zero}"))
        .collect();
    let mut edits = vec![Edit::replace(declarator, declared.join(", "))];
    for site in &sites {
        let edit = Edit::replace(site.span.clone(), name_at(site.offset));
        // A compound assignment reads and writes through one reference.
        if !edits.contains(&edit) {
            edits.push(edit);
        }
    }
    let iterator = &headers[0].iterator;
    let cells: Vec<String> = (lo..=hi)
        .map(|c| {
            format!(
                "{} = {base}[{}]",
                name_at(c),
                affine_text(&[(1, iterator.clone())], c)
            )
        })
        .collect();
    let comment = format!(
        "{base}[{iterator}] -> scalars {} in the loops of {iterator}",
        cells.join(", ")
    );
    let mut shifts = Vec::new();
    if window > 1 {
        let shift: String = scalar_names
            .windows(2)
            .map(|p| format!(", {} = {}", p[0], p[1]))
            .collect();
        for header in &headers {
            shifts.push((header.update_end, shift.clone()));
        }
    }
    Some((
        ScalarArray {
            array,
            names: scalar_names,
            iterator: iterator.clone(),
            comment,
            edits,
        },
        shifts,
    ))
}
