//! Rotating scalars: a folded array of at most four cells kept in named
//! scalars that the loops shift (seed 003, Fig. 1(d): `a1`, `a2`).
//!
//! In iteration `i` of the loops that carry the fold, scalar `A_s<k>`
//! holds cell `i + lo + k` of the original array, for the window `[lo,
//! hi]` of the constant offsets of its accesses `A[i + c]`. At the end of
//! every iteration the loop shifts the window (`A_s0 = A_s1; A_s1 =
//! A_s2;`, in increasing order: the last statements of its body, placed
//! as rotating indices' updates are by `codegen::placement`, or in its
//! header's update when the body may jump out), so a value written at
//! iteration `i` at offset `x - i` and read at iteration `j` at offset
//! `x - j` has moved exactly `j - i` places, through offsets inside the
//! window:
//!
//! ```c
//! double A_s0, A_s1; /* polyfold: A[i] -> scalars A_s0 = A[i - 1], A_s1 = A[i] in the loops of i */
//! for (i = 2; i <= N; i++) {
//!     A_s1 = E[i] + E[i - 1];
//!     E[i - 1] = A_s0;
//!     A_s0 = A_s1;
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
//! - the array's layout drops every dimension but the last and folds the
//!   last by a number modulus `m` (`A[...][x] -> A[x % m]`: dropped
//!   dimensions and a modulo one, or one linear dimension of coefficients
//!   `(0, ..., 0, 1)`), `modulus >= 1` proven (`extent_proven`); the
//!   array has no initialiser, a declarator of its own before the SCoP, and is
//!   not used outside the SCoP; the window has at most 4 cells and at
//!   most `m`;
//! - every access of an array of `d` dimensions is `A[i0]...[i(d-2)][j +
//!   c]` in a statement of exactly `d` loops, `i0`, ..., `i(d-2)`, `j`,
//!   outermost first (coefficient 1 on its own iterator in each
//!   subscript, nothing else, no constant but `c` in the last), the same
//!   outer iterators for every access; no loop around an access is marked
//!   parallel (the scalars would be shared); no deleted copy sits in the
//!   loops;
//! - the loops of `j` holding the accesses are consecutive items of one
//!   block: the SCoP's top-level items (`d = 1`), or the body of the loop
//!   of `i(d-2)` (reached from the top level through `for` loops and
//!   blocks only); every item between them is such a loop too, with the
//!   same iterator, step +1, no pragma, no loop inside, no statement
//!   marked parallel, and the same loops around; each loop's iterations
//!   are one interval `[l, u]` (from its statements' loop domains, `l`
//!   and `u` affine in the parameters and the outer iterators; the loop
//!   domain's other rows implied by the iterations of the loops around),
//!   each lower bound is the upper bound before plus one as affine forms,
//!   and a loop between the first and the last runs `u - l + 1 >= 0`
//!   iterations wherever the loops around run — or, where it may not, no
//!   access runs before it and another after it in one iteration of the
//!   loops around (integer emptiness of the pairs of instances with equal
//!   outer iterators).
//!
//! Inside loops (`d >= 2`, seed 003's Fig. 1(d) on gecos_gaussian after
//! fusion, issue 18) the window restarts on every iteration of the loops
//! around, with whatever the scalars held at the end of the one before:
//!
//! ```c
//! int tmp_s0 = 0, tmp_s1 = 0, tmp_s2 = 0; /* polyfold: tmp[i][j] -> scalars tmp_s0 = tmp[i][j - 2], ... in the loops of j */
//! for (i = 1; i <= N - 2; i++) {
//!     for (j = 0; j <= 1; j++, tmp_s0 = tmp_s1, tmp_s1 = tmp_s2)
//!         tmp_s2 = ...;
//!     for (j = 2; j <= M - 1; j++, tmp_s0 = tmp_s1, tmp_s1 = tmp_s2) {
//!         tmp_s2 = ...;
//!         out[i][j - 1] = 3 * tmp_s1 - tmp_s0 - tmp_s2;
//!     }
//! }
//! ```
//!
//! That is harmless: the outer subscripts are the outer iterators in
//! every access, so the cell `A[i0]...[x]` is only accessed in iteration
//! `(i0, ...)` of the loops around (`A[i - 1][j]` would reach back one,
//! and is refused), and within it the run of loops of `j` is the
//! top-level case — a read never sees a value of an iteration before,
//! and no value is read before the iteration writes it unless the
//! original reads a cell that was never written.
//!
//! Not done: subscripts that permute the loops or skip one, loops of `j`
//! under an `if` inside the loops around, parallel loops.

use std::collections::BTreeSet;

use crate::ir::{ArrayId, ForHeader, Scop, Stmt, SyntaxNode};
use crate::mapping::layout::{ArrayLayout, DimLayout};
use crate::poly::{BasicSet, Set};
use crate::util::c_text::affine_text;

use super::edits::Edit;

/// Cells of the largest window kept in scalars.
pub(crate) const MAX_WINDOW: i64 = 4;

/// One array kept in scalars.
#[derive(Clone, Debug)]
pub(crate) struct ScalarArray {
    pub array: ArrayId,
    /// The scalars, for the offsets `lo`, `lo + 1`, ... of the window.
    pub names: Vec<String>,
    /// The iterator of the loops that shift them.
    pub iterator: String,
    /// The declaration's comment: `A[i] -> scalars A_s0 = A[i - 1], ...`.
    pub comment: String,
    /// The declarator's and the accesses' replacements.
    pub edits: Vec<Edit>,
}

/// Per loop, by the end of its header's update: its shifts, in order.
type Shifts = Vec<(usize, Vec<String>)>;

/// The rotating scalars of one SCoP.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scalars {
    pub arrays: Vec<ScalarArray>,
    /// The shifts of every loop (`A_s0 = A_s1`, in order), by the end of
    /// its header's update: one entry per loop.
    pub shifts: Shifts,
}

impl Scalars {
    pub(crate) fn of_array(&self, array: ArrayId) -> Option<&ScalarArray> {
        self.arrays.iter().find(|a| a.array == array)
    }
}

/// Whether a node holds a loop or a `#pragma` line.
fn has_loop(node: &SyntaxNode) -> bool {
    match node {
        SyntaxNode::For { .. } => true,
        SyntaxNode::If { then, els, .. } => {
            has_loop(then) || els.as_ref().is_some_and(|e| has_loop(e))
        }
        SyntaxNode::Block { items, .. } => items.iter().any(has_loop),
        SyntaxNode::Labeled { body, .. } => has_loop(body),
        SyntaxNode::Pragma { .. } => true,
        SyntaxNode::Stmt { .. } | SyntaxNode::Empty { .. } | SyntaxNode::Kept { .. } => false,
    }
}

/// The items around the innermost loop of a statement: the SCoP's
/// top-level items (`outer` is `None`), or the items of the body of the
/// loop `outer` (its span) around it, reached through `for` loops and
/// blocks only.
struct Place<'a> {
    outer: Option<std::ops::Range<usize>>,
    /// How many loops are around the items.
    depth: usize,
    items: Vec<&'a SyntaxNode>,
    /// Whether a `#pragma` applies to each item.
    pragma: Vec<bool>,
    /// The item that holds the statement.
    index: usize,
}

/// Where the innermost loop around the statement at `span` sits.
fn locate<'a>(scop: &'a Scop, span: &std::ops::Range<usize>) -> Option<Place<'a>> {
    let holds = |n: &SyntaxNode| {
        let s = n.span();
        s.start <= span.start && span.end <= s.end
    };
    let mut items: Vec<&SyntaxNode> = scop.items.iter().map(|it| &it.node).collect();
    let mut pragma: Vec<bool> = scop.items.iter().map(|it| !it.pragmas.is_empty()).collect();
    let mut outer = None;
    let mut depth = 0;
    loop {
        let index = items.iter().position(|n| holds(n))?;
        let SyntaxNode::For {
            body, span: here, ..
        } = items[index]
        else {
            return None;
        };
        if !has_loop(body) {
            return Some(Place {
                outer,
                depth,
                items,
                pragma,
                index,
            });
        }
        // The loop holds others: its body's items, one iteration of it.
        outer = Some(here.clone());
        depth += 1;
        match &**body {
            SyntaxNode::Block { items: inner, .. } => {
                items = inner.iter().collect();
                pragma = (0..items.len())
                    .map(|k| k > 0 && matches!(items[k - 1], SyntaxNode::Pragma { .. }))
                    .collect();
            }
            other => {
                items = vec![other];
                pragma = vec![false];
            }
        }
    }
}

/// The loop of an item: its header, if it is a `for` of a known form
/// with no loop inside and no pragma.
fn simple_loop<'a>(place: &Place<'a>, item: usize) -> Option<&'a ForHeader> {
    if *place.pragma.get(item)? {
        return None;
    }
    match place.items.get(item)? {
        SyntaxNode::For {
            header: Some(header),
            body,
            ..
        } if header.step == 1 && !has_loop(body) => Some(header),
        _ => None,
    }
}

/// `[coefficients of the parameters and the outer iterators | constant]`
/// of a bound.
type Bound = Vec<i64>;

/// The iterations of the loops around the innermost one of a statement of
/// `depth` loops, over `[params | iterators]` (the innermost iterator
/// free), with the context: the context alone for one loop.
fn outer_domain(stmt: &Stmt, names: &[String], context: &BasicSet) -> Option<BasicSet> {
    let depth = stmt.loop_depth();
    let innermost = stmt.loop_domains.get(depth.checked_sub(1)?)?;
    let mut outer = if depth == 1 {
        BasicSet::universe(innermost.with_params(names).ok()?.space)
    } else {
        let [piece] = &stmt.loop_domains.get(depth - 2)?.pieces[..] else {
            return None;
        };
        piece.with_params(names).ok()?
    };
    if outer.n_exist != 0 || outer.space.n_var() != names.len() + depth {
        return None;
    }
    outer.add_param_constraints(&param_set(context, names)?);
    Some(outer)
}

/// The interval `[lower, upper]` of the innermost loop's iterations, from
/// its loop domain over `[params | outer iterators | i]`: one piece
/// without existentials, one lower and one upper bound of coefficient 1
/// on `i`, and rows without `i` that `outer` (the iterations of the loops
/// around, see [`outer_domain`]) implies.
fn interval(
    domain: &Set,
    names: &[String],
    depth: usize,
    outer: &BasicSet,
) -> Option<(Bound, Bound)> {
    let [piece] = &domain.pieces[..] else {
        return None;
    };
    let piece = piece.with_params(names).ok()?;
    let np = names.len();
    let col = np + depth - 1;
    if depth == 0 || piece.n_exist != 0 || piece.space.n_var() != col + 1 {
        return None;
    }
    let strip = |row: &[i64]| -> Bound {
        let mut b: Bound = row[..col].to_vec();
        b.push(row[col + 1]);
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
    let mut outer_rows: Vec<Bound> = Vec::new();
    for (row, is_eq) in piece
        .eqs
        .iter()
        .map(|r| (r, true))
        .chain(piece.ineqs.iter().map(|r| (r, false)))
    {
        match row[col] {
            0 if is_eq => return None,
            0 => outer_rows.push(strip(row)),
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
    // Each row without `i` holds wherever the loops around run.
    for row in outer_rows {
        let mut outside = outer.clone();
        let mut negated: Vec<i64> = row.iter().map(|v| v.checked_neg()).collect::<Option<_>>()?;
        *negated.last_mut()? = negated.last()?.checked_sub(1)?;
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

/// Adds `row >= 0` (`[params | ... | constant]`) to `set`, whose first
/// columns are those of `row` but its constant.
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
pub(crate) fn plan_scalars(
    source: &str,
    scop: &Scop,
    (arrays, removed): (&[(ArrayId, &ArrayLayout)], &[usize]),
    taken: &mut BTreeSet<String>,
) -> Scalars {
    let mut out = Scalars::default();
    for (array, layout) in arrays {
        if let Some((plan, shifts)) = plan_array(source, scop, (*array, layout), removed, taken) {
            for (at, list) in shifts {
                match out.shifts.iter_mut().find(|(p, _)| *p == at) {
                    Some((_, t)) => t.extend(list),
                    None => out.shifts.push((at, list)),
                }
            }
            out.arrays.push(plan);
        }
    }
    out
}

/// The scalars of one array and their shifts per loop, when proven.
fn plan_array(
    source: &str,
    scop: &Scop,
    (array, layout): (ArrayId, &ArrayLayout),
    removed: &[usize],
    taken: &mut BTreeSet<String>,
) -> Option<(ScalarArray, Shifts)> {
    let (modulus, declarator) = scalarisable(source, scop, array, layout)?;
    let n_dims = scop.array(array).extents.len();
    let (mut sites, items, place, outer_iterators) = access_sites(scop, array, removed, n_dims)?;
    let (first, last) = (*items.iter().min()?, *items.iter().max()?);
    let (headers, bounds, outers) =
        loop_run(scop, &place, first..=last, outer_iterators, removed, n_dims)?;
    let deltas = time_deltas(&bounds)?;
    // Each access's offset in time: `A[i + c]` in loop `k` is cell
    // `t + c - deltas[k]`.
    for (site, item) in sites.iter_mut().zip(&items) {
        site.offset = site.offset.checked_sub(deltas[item - first])?;
    }
    let lo = sites.iter().map(|s| s.offset).min()?;
    let hi = sites.iter().map(|s| s.offset).max()?;
    let window = hi.checked_sub(lo)?.checked_add(1)?;
    if window > MAX_WINDOW || window > modulus {
        return None;
    }
    let run = Run {
        sites: &sites,
        items: &items,
        first,
        bounds: &bounds,
        outers: &outers,
        n_dims,
    };
    if loop_may_run_backwards(scop, &run)? {
        return None;
    }
    scalars_text(
        scop,
        (array, declarator),
        (&sites, &headers, outer_iterators),
        (lo, hi, window),
        taken,
    )
}

/// The run of accesses `plan_array` checks for loops that may run a
/// negative number of iterations.
struct Run<'r> {
    sites: &'r [Site],
    items: &'r [usize],
    first: usize,
    bounds: &'r [(Bound, Bound)],
    outers: &'r [BasicSet],
    n_dims: usize,
}

/// Whether `array` may become scalars as a storage: every dimension but
/// the last dropped and the last folded by a number modulus, a plain
/// declaration before the SCoP (no initialiser, not used outside it, its
/// address not taken). Returns the modulus and the declarator's span.
fn scalarisable(
    source: &str,
    scop: &Scop,
    array: ArrayId,
    layout: &ArrayLayout,
) -> Option<(i64, std::ops::Range<usize>)> {
    let decl = scop.array(array);
    // Every dimension but the last dropped, the last folded by a number
    // modulus: `A[...][x] -> A[x % m]`, as dimensions of their own or as
    // one linear dimension of coefficients `(0, ..., 0, 1)`.
    let n_dims = decl.extents.len();
    let m = match &layout.dims[..] {
        [
            dropped @ ..,
            DimLayout::Modulo {
                modulus,
                extent_proven: true,
                ..
            },
        ] if dropped.len() + 1 == n_dims
            && dropped.iter().all(|d| matches!(d, DimLayout::Dropped)) =>
        {
            modulus
        }
        [
            DimLayout::Linear {
                coeffs,
                divisor: 1,
                shift,
                offset,
                offset_moduli: 0,
                modulus,
                extent_proven: true,
                ..
            },
        ] if coeffs.len() == n_dims
            && coeffs
                .split_last()
                .is_some_and(|(last, others)| *last == 1 && others.iter().all(|c| *c == 0))
            && shift.is_constant()
            && shift.constant == 0
            && offset.is_constant() =>
        {
            modulus
        }
        _ => return None,
    };
    if n_dims == 0 || !m.is_constant() || m.constant < 1 {
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
    Some((m.constant, declarator))
}

/// Every access of `array`: `A[i0]...[i(d-2)][i(d-1) + c]` in a statement
/// of `d` loops (`d` the number of dimensions), with `i0`, ... its
/// iterators, outermost first; no loop around it marked parallel. Returns
/// the accesses, the item of each in its block, the block and the outer
/// iterators.
#[allow(clippy::type_complexity)]
fn access_sites<'s>(
    scop: &'s Scop,
    array: ArrayId,
    removed: &[usize],
    n_dims: usize,
) -> Option<(Vec<Site>, Vec<usize>, Place<'s>, &'s [String])> {
    let n_param = scop.params.len();
    let mut sites: Vec<Site> = Vec::new();
    let mut items: Vec<usize> = Vec::new();
    let mut place: Option<Place> = None;
    let mut outer_iterators: Option<&[String]> = None;
    for (si, stmt) in scop.stmts.iter().enumerate() {
        for access in stmt.accesses() {
            if access.array != array {
                continue;
            }
            if removed.contains(&si)
                || !stmt.quotients.is_empty()
                || stmt.loop_depth() != n_dims
                || stmt.parallel.iter().any(Option::is_some)
                || access.subscripts.len() != n_dims
            {
                return None;
            }
            for (k, sub) in access.subscripts.iter().enumerate() {
                let last = k + 1 == n_dims;
                if sub.coeffs.len() != n_param + n_dims
                    || sub.coeffs[..n_param].iter().any(|c| *c != 0)
                    || (0..n_dims).any(|q| sub.coeffs[n_param + q] != i64::from(q == k))
                    || (!last && sub.constant != 0)
                {
                    return None;
                }
            }
            let offset = access.subscripts.last()?.constant;
            if outer_iterators.is_some_and(|o| o != &stmt.iterators[..n_dims - 1]) {
                return None;
            }
            outer_iterators = Some(&stmt.iterators[..n_dims - 1]);
            let here = locate(scop, &stmt.span)?;
            if here.depth + 1 != n_dims || place.as_ref().is_some_and(|p| p.outer != here.outer) {
                return None;
            }
            items.push(here.index);
            place.get_or_insert(here);
            sites.push(Site {
                stmt: si,
                span: access.span.clone(),
                offset,
            });
        }
    }
    let place = place?;
    let outer_iterators = outer_iterators?;
    Some((sites, items, place, outer_iterators))
}

/// The loops of items `items` of `place`: consecutive items of one block
/// (the SCoP's, or the body of the loop around them), one iterator, step
/// +1, one interval each. Returns their headers, their bounds and the
/// iterations of the loops around, per loop of the run.
#[allow(clippy::type_complexity)]
fn loop_run<'s>(
    scop: &'s Scop,
    place: &Place<'s>,
    items: std::ops::RangeInclusive<usize>,
    outer_iterators: &[String],
    removed: &[usize],
    n_dims: usize,
) -> Option<(Vec<&'s ForHeader>, Vec<(Bound, Bound)>, Vec<BasicSet>)> {
    let names = scop.param_names();
    let context = &scop.context;
    let mut headers: Vec<&ForHeader> = Vec::new();
    let mut bounds: Vec<(Bound, Bound)> = Vec::new();
    // The iterations of the loops around, per loop of the run.
    let mut outers: Vec<BasicSet> = Vec::new();
    for item in items {
        let header = simple_loop(place, item)?;
        if headers
            .first()
            .is_some_and(|h| h.iterator != header.iterator)
        {
            return None;
        }
        let span = place.items[item].span();
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
        let mut outer_of_loop = None;
        for k in inside {
            let stmt = &scop.stmts[k];
            if stmt.loop_depth() != n_dims
                || !stmt.quotients.is_empty()
                || stmt.iterators[n_dims - 1] != header.iterator
                || stmt.iterators[..n_dims - 1] != *outer_iterators
                || stmt.parallel.iter().any(Option::is_some)
            {
                return None;
            }
            let outer = outer_domain(stmt, &names, context)?;
            let found = interval(stmt.loop_domains.last()?, &names, n_dims, &outer)?;
            if interval_of_loop.as_ref().is_some_and(|b| *b != found) {
                return None;
            }
            interval_of_loop = Some(found);
            outer_of_loop.get_or_insert(outer);
        }
        headers.push(header);
        bounds.push(interval_of_loop?);
        outers.push(outer_of_loop?);
    }
    Some((headers, bounds, outers))
}

/// How far each loop of the run lags behind time: the lower bound of each
/// loop one past the upper bound before.
fn time_deltas(bounds: &[(Bound, Bound)]) -> Option<Vec<i64>> {
    // Time runs on from loop to loop: loop `k`'s variable is the time
    // minus `deltas[k]`, the lower bound of each loop one past the upper
    // bound before in time (a loop of a fused run may count its own
    // values, one less than the run's time: `for (i = N; i <= N; i++)`
    // after `for (i = 2; i <= N; i++)`, see `schedule::emit`).
    let mut deltas: Vec<i64> = vec![0];
    for pair in bounds.windows(2) {
        let mut next = pair[0].1.clone();
        *next.last_mut()? = next.last()?.checked_add(1)?;
        let gap: Vec<i64> = next
            .iter()
            .zip(&pair[1].0)
            .map(|(a, b)| a.checked_sub(*b))
            .collect::<Option<_>>()?;
        let (constant, coeffs) = gap.split_last()?;
        if coeffs.iter().any(|c| *c != 0) {
            return None;
        }
        deltas.push(deltas.last()?.checked_add(*constant)?);
    }
    Some(deltas)
}

/// Whether a loop between the first and the last of the run may run a
/// negative number of iterations (`u <= l - 2`) with an access before it
/// and another after it in one iteration of the loops around: that breaks
/// the count of shifts.
fn loop_may_run_backwards(scop: &Scop, run: &Run<'_>) -> Option<bool> {
    let Run {
        sites,
        items,
        first,
        bounds,
        outers,
        n_dims,
    } = *run;
    let names = scop.param_names();
    let context = &scop.context;
    // A loop between the first and the last that may run a negative
    // number of iterations (`u <= l - 2`) breaks the count of shifts: no
    // access may run before it and another after it there, in one
    // iteration of the loops around.
    let item_of = |si: usize| items[sites.iter().position(|s| s.stmt == si).unwrap_or(0)];
    let n_loops = bounds.len();
    for (middle, (l, u)) in bounds
        .iter()
        .enumerate()
        .take(n_loops.saturating_sub(1))
        .skip(1)
    {
        // `l - 2 - u >= 0`, over `[params | outer iterators | constant]`.
        let broken: Bound = l
            .iter()
            .zip(u)
            .map(|(a, b)| a.checked_sub(*b))
            .collect::<Option<Vec<i64>>>()?;
        let mut broken = broken;
        *broken.last_mut()? = broken.last()?.checked_sub(2)?;
        let mut anywhere = outers[middle].clone();
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
        let np = names.len();
        for s in &before {
            for t in &after {
                let d_s = scop.stmts[*s].domain.with_params(&names).ok()?;
                let d_t = scop.stmts[*t].domain.with_params(&names).ok()?;
                let pairs = d_s.product(&d_t).ok()?;
                for piece in &pairs.pieces {
                    let mut piece = piece.with_params(&names).ok()?;
                    if piece.space.n_var() != np + 2 * n_dims {
                        return None;
                    }
                    piece.add_param_constraints(&param_set(context, &names)?);
                    // One iteration of the loops around: the outer
                    // iterators of both instances are equal.
                    for k in 0..n_dims - 1 {
                        let mut eq = piece.zero_row();
                        eq[np + k] = 1;
                        eq[np + n_dims + k] = -1;
                        piece.add_eq(eq);
                    }
                    add_param_row(&mut piece, &broken);
                    if !piece.is_empty().ok()? {
                        return Some(true);
                    }
                }
            }
        }
    }
    Some(false)
}

/// The scalars of the window `lo..=hi` (`window` of them): their names,
/// their declarator (each starting at zero), every access renamed, the
/// mapping comment and the shifts at the end of every loop's update.
fn scalars_text(
    scop: &Scop,
    (array, declarator): (ArrayId, std::ops::Range<usize>),
    (sites, headers, outer_iterators): (&[Site], &[&ForHeader], &[String]),
    (lo, hi, window): (i64, i64, i64),
    taken: &mut BTreeSet<String>,
) -> Option<(ScalarArray, Shifts)> {
    let decl = scop.array(array);
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
    for site in sites {
        let edit = Edit::replace(site.span.clone(), name_at(site.offset));
        // A compound assignment reads and writes through one reference.
        if !edits.contains(&edit) {
            edits.push(edit);
        }
    }
    let iterator = &headers[0].iterator;
    let prefix: String = outer_iterators.iter().map(|o| format!("[{o}]")).collect();
    let cells: Vec<String> = (lo..=hi)
        .map(|c| {
            format!(
                "{} = {base}{prefix}[{}]",
                name_at(c),
                affine_text(&[(1, iterator.clone())], c)
            )
        })
        .collect();
    let comment = format!(
        "{base}{prefix}[{iterator}] -> scalars {} in the loops of {iterator}",
        cells.join(", ")
    );
    let mut shifts = Vec::new();
    if window > 1 {
        let shift: Vec<String> = scalar_names
            .windows(2)
            .map(|p| format!("{} = {}", p[0], p[1]))
            .collect();
        for header in headers {
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
