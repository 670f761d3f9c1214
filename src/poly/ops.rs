//! Operations on sets and relations (unions of polyhedra).
//!
//! What this module does: parameter alignment by name, intersection, union,
//! cartesian product (two sets give a relation), application of a relation to
//! a set, composition of relations, reverse, domain and range, fixing a
//! dimension or a parameter, the lexicographic order relations, emptiness,
//! exact integer set difference and subset tests.
//!
//! Every operation is exact on integer points. Where a dimension disappears
//! (apply, compose, domain, range) it is kept as an existential unless its
//! elimination is exact (see `project.rs`), so the results never gain or lose
//! points. Difference needs the subtrahend without existentials: when some
//! remain after exact elimination, [`Set::subtract`] returns `None` instead of
//! an approximation.
//!
//! What it does NOT do: no coalescing of pieces (unions may carry redundant
//! pieces), no canonical form. Emptiness goes through the solver's
//! `is_integer_empty` and can answer [`PolyError::Budget`] (undecided).

use super::basic::BasicSet;
use super::constraints::{complement_ineq, simplify};
use super::error::{PolyError, PolyResult, neg};
use super::project::{DimType, eliminate_exists_where_exact, project_out_keep_exists};
use super::set::Set;
use super::space::{Space, Tuple};

/// Copies `row` into a row of `width` columns, sending source column `i` to
/// column `map[i]` (the constant must be mapped too).
fn embed(row: &[i64], map: &[usize], width: usize) -> Vec<i64> {
    debug_assert_eq!(row.len(), map.len());
    let mut out = vec![0i64; width];
    for (a, &c) in row.iter().zip(map) {
        out[c] = *a;
    }
    out
}

/// Adds the rows of `src` to `dst`, with columns mapped by `map`.
fn embed_rows_into(dst: &mut BasicSet, src: &BasicSet, map: &[usize]) {
    let w = dst.width();
    for r in &src.eqs {
        dst.eqs.push(embed(r, map, w));
    }
    for r in &src.ineqs {
        dst.ineqs.push(embed(r, map, w));
    }
}

/// Empty polyhedron (universe constraints) over `space` with `n_exist`
/// existentials.
fn blank(space: Space, n_exist: usize) -> BasicSet {
    BasicSet {
        space,
        n_exist,
        eqs: Vec::new(),
        ineqs: Vec::new(),
    }
}

fn mismatch(what: &str, a: &Space, b: &Space) -> PolyError {
    PolyError::SpaceMismatch(format!("{what}: {a:?} vs {b:?}"))
}

/// Whether two spaces have the same tuples (names and arities; dimension
/// names may differ) and the same parameters.
fn same_shape(a: &Space, b: &Space) -> bool {
    a.params == b.params
        && a.domain.name == b.domain.name
        && a.domain.len() == b.domain.len()
        && match (&a.range, &b.range) {
            (None, None) => true,
            (Some(x), Some(y)) => x.name == y.name && x.len() == y.len(),
            _ => false,
        }
}

/// The union of two parameter lists: `a`'s in order, then the new ones of
/// `b`.
pub(crate) fn union_params(a: &[String], b: &[String]) -> Vec<String> {
    let mut out = a.to_vec();
    for p in b {
        if !out.contains(p) {
            out.push(p.clone());
        }
    }
    out
}

impl BasicSet {
    /// The same polyhedron over a space whose parameters are `params`, which
    /// must contain every parameter of this space (reordering is allowed).
    pub(crate) fn with_params(&self, params: &[String]) -> PolyResult<BasicSet> {
        let old = &self.space;
        let mut map = Vec::with_capacity(self.width());
        for p in &old.params {
            let Some(i) = params.iter().position(|q| q == p) else {
                return Err(PolyError::SpaceMismatch(format!(
                    "parameter {p} missing from {params:?}"
                )));
            };
            map.push(i);
        }
        let shift = params.len();
        for c in old.n_param()..self.width() {
            map.push(c - old.n_param() + shift);
        }
        let mut space = old.clone();
        space.params = params.to_vec();
        let mut out = blank(space, self.n_exist);
        embed_rows_into(&mut out, self, &map);
        Ok(out)
    }

    /// Intersection of two polyhedra over spaces of the same shape (the
    /// result uses this space's names; existentials are concatenated).
    pub(crate) fn intersect(&self, other: &BasicSet) -> PolyResult<BasicSet> {
        if !same_shape(&self.space, &other.space) {
            return Err(mismatch("intersect", &self.space, &other.space));
        }
        let n_var = self.space.n_var();
        let mut out = blank(self.space.clone(), self.n_exist + other.n_exist);
        let w = out.width();
        let map_a: Vec<usize> = (0..n_var + self.n_exist).chain([w - 1]).collect();
        let map_b: Vec<usize> = (0..n_var)
            .chain((0..other.n_exist).map(|e| n_var + self.n_exist + e))
            .chain([w - 1])
            .collect();
        embed_rows_into(&mut out, self, &map_a);
        embed_rows_into(&mut out, other, &map_b);
        Ok(out)
    }

    /// Whether `point` (values of the parameters, domain and range) belongs
    /// to this polyhedron; with existentials, decided exactly by the integer
    /// solver (`Err(Budget)` means undecided).
    pub fn contains_point_exact(&self, point: &[i64]) -> PolyResult<bool> {
        if let Some(inside) = self.contains_point(point)? {
            return Ok(inside);
        }
        let mut fixed = self.clone();
        let w = fixed.width();
        for (c, v) in point.iter().enumerate() {
            let mut row = vec![0i64; w];
            row[c] = 1;
            row[w - 1] = neg(*v)?;
            fixed.eqs.push(row);
        }
        Ok(!fixed.is_empty()?)
    }

    /// Integer emptiness (through the solver). `Err(Budget)` means undecided.
    pub fn is_empty(&self) -> PolyResult<bool> {
        if self.is_obviously_empty() {
            return Ok(true);
        }
        super::simplex::is_integer_empty(self)
    }
}

impl Set {
    /// The same set over a space whose parameters are `params` (a superset
    /// of this set's parameters, in any order).
    pub(crate) fn with_params(&self, params: &[String]) -> PolyResult<Set> {
        let mut space = self.space.clone();
        for p in &self.space.params {
            if !params.contains(p) {
                return Err(PolyError::SpaceMismatch(format!(
                    "parameter {p} missing from {params:?}"
                )));
            }
        }
        space.params = params.to_vec();
        let mut pieces = Vec::with_capacity(self.pieces.len());
        for b in &self.pieces {
            pieces.push(b.with_params(params)?);
        }
        Ok(Set { space, pieces })
    }

    /// Whether `point` belongs to the union (exact, see
    /// [`BasicSet::contains_point_exact`]).
    pub fn contains_point_exact(&self, point: &[i64]) -> PolyResult<bool> {
        for b in &self.pieces {
            if b.contains_point_exact(point)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Whether the union has no integer point. `Err(Budget)` means undecided.
    pub fn is_empty(&self) -> PolyResult<bool> {
        for b in &self.pieces {
            if !b.is_empty()? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Intersection; parameters are aligned by name first.
    pub(crate) fn intersect(&self, other: &Set) -> PolyResult<Set> {
        let (a, b) = align_params(self, other)?;
        if !same_shape(&a.space, &b.space) {
            return Err(mismatch("intersect", &a.space, &b.space));
        }
        let mut out = Set::empty(a.space.clone());
        for p in &a.pieces {
            for q in &b.pieces {
                let r = simplify(&p.intersect(q)?)?;
                if !r.is_obviously_empty() {
                    out.pieces.push(r);
                }
            }
        }
        Ok(out)
    }

    /// Union (pieces are concatenated); parameters are aligned by name.
    pub fn union(&self, other: &Set) -> PolyResult<Set> {
        let (a, b) = align_params(self, other)?;
        if !same_shape(&a.space, &b.space) {
            return Err(mismatch("union", &a.space, &b.space));
        }
        let mut out = a.clone();
        for q in &b.pieces {
            let mut q = q.clone();
            q.space = out.space.clone();
            out.pieces.push(q);
        }
        Ok(out)
    }

    /// Cartesian product of two sets as the relation `self -> other`.
    pub fn product(&self, other: &Set) -> PolyResult<Set> {
        if self.space.is_relation() || other.space.is_relation() {
            return Err(mismatch("product of relations", &self.space, &other.space));
        }
        let (a, b) = align_params(self, other)?;
        let np = a.space.n_param();
        let na = a.space.n_in();
        let nb = b.space.n_in();
        let space = Space::relation(
            a.space.params.clone(),
            a.space.domain.clone(),
            b.space.domain.clone(),
        );
        let n_var = np + na + nb;
        let mut out = Set::empty(space.clone());
        for p in &a.pieces {
            for q in &b.pieces {
                let mut r = blank(space.clone(), p.n_exist + q.n_exist);
                let w = r.width();
                let map_p: Vec<usize> = (0..np + na)
                    .chain((0..p.n_exist).map(|e| n_var + e))
                    .chain([w - 1])
                    .collect();
                let map_q: Vec<usize> = (0..np)
                    .chain((0..nb).map(|d| np + na + d))
                    .chain((0..q.n_exist).map(|e| n_var + p.n_exist + e))
                    .chain([w - 1])
                    .collect();
                embed_rows_into(&mut r, p, &map_p);
                embed_rows_into(&mut r, q, &map_q);
                let r = simplify(&r)?;
                if !r.is_obviously_empty() {
                    out.pieces.push(r);
                }
            }
        }
        Ok(out)
    }

    /// The relation with domain and range swapped.
    pub fn reverse(&self) -> PolyResult<Set> {
        let Some(range) = &self.space.range else {
            return Err(PolyError::SpaceMismatch(
                "reverse of a set (not a relation)".into(),
            ));
        };
        let np = self.space.n_param();
        let ni = self.space.n_in();
        let no = self.space.n_out();
        let space = Space::relation(
            self.space.params.clone(),
            range.clone(),
            self.space.domain.clone(),
        );
        let mut out = Set::empty(space.clone());
        for p in &self.pieces {
            let mut r = blank(space.clone(), p.n_exist);
            let w = r.width();
            let map: Vec<usize> = (0..np)
                .chain((0..ni).map(|d| np + no + d))
                .chain((0..no).map(|d| np + d))
                .chain((0..p.n_exist).map(|e| np + ni + no + e))
                .chain([w - 1])
                .collect();
            embed_rows_into(&mut r, p, &map);
            out.pieces.push(r);
        }
        Ok(out)
    }

    /// The domain of a relation, as a set (exact: eliminated range dimensions
    /// stay existential unless their elimination is exact).
    pub fn domain(&self) -> PolyResult<Set> {
        if !self.space.is_relation() {
            return Err(PolyError::SpaceMismatch("domain of a set".into()));
        }
        let space = Space::set(self.space.params.clone(), self.space.domain.clone());
        let mut out = Set::empty(space.clone());
        for p in &self.pieces {
            let mut k = project_out_keep_exists(p, DimType::Out, 0, self.space.n_out())?;
            k.space = space.clone();
            let k = eliminate_exists_where_exact(&k)?;
            if !k.is_obviously_empty() {
                out.pieces.push(k);
            }
        }
        Ok(out)
    }

    /// The range of a relation, as a set (exact, see [`Set::domain`]).
    pub fn range(&self) -> PolyResult<Set> {
        self.reverse()?.domain()
    }

    /// The image of this set under `rel`: `{ y : exists x in self, (x, y) in
    /// rel }`. Exact (the `x` stay existential unless exactly eliminable).
    pub fn apply(&self, rel: &Set) -> PolyResult<Set> {
        let (a, r) = align_params(self, rel)?;
        let Some(range) = &r.space.range else {
            return Err(PolyError::SpaceMismatch("apply: not a relation".into()));
        };
        if a.space.is_relation()
            || a.space.domain.len() != r.space.domain.len()
            || a.space.domain.name != r.space.domain.name
        {
            return Err(mismatch("apply", &a.space, &r.space));
        }
        let np = a.space.n_param();
        let nx = a.space.n_in();
        let ny = r.space.n_out();
        let space = Space::set(a.space.params.clone(), range.clone());
        let mut out = Set::empty(space.clone());
        for p in &a.pieces {
            for q in &r.pieces {
                // Columns: [params | y | x | p exists | q exists | c].
                let n_exist = nx + p.n_exist + q.n_exist;
                let mut b = blank(space.clone(), n_exist);
                let w = b.width();
                let xcol = np + ny;
                let map_p: Vec<usize> = (0..np)
                    .chain((0..nx).map(|d| xcol + d))
                    .chain((0..p.n_exist).map(|e| xcol + nx + e))
                    .chain([w - 1])
                    .collect();
                let map_q: Vec<usize> = (0..np)
                    .chain((0..nx).map(|d| xcol + d))
                    .chain((0..ny).map(|d| np + d))
                    .chain((0..q.n_exist).map(|e| xcol + nx + p.n_exist + e))
                    .chain([w - 1])
                    .collect();
                embed_rows_into(&mut b, p, &map_p);
                embed_rows_into(&mut b, q, &map_q);
                let b = eliminate_exists_where_exact(&b)?;
                if !b.is_obviously_empty() {
                    out.pieces.push(b);
                }
            }
        }
        Ok(out)
    }

    /// Composition `other ∘ self`: `{ x -> z : exists y, (x, y) in self and
    /// (y, z) in other }` (isl's `apply_range`). Exact.
    pub fn apply_range(&self, other: &Set) -> PolyResult<Set> {
        let (a, b) = align_params(self, other)?;
        let (Some(ya), Some(zb)) = (&a.space.range, &b.space.range) else {
            return Err(PolyError::SpaceMismatch(
                "apply_range needs two relations".into(),
            ));
        };
        if ya.len() != b.space.n_in() || ya.name != b.space.domain.name {
            return Err(mismatch("apply_range", &a.space, &b.space));
        }
        let np = a.space.n_param();
        let nx = a.space.n_in();
        let ny = ya.len();
        let nz = zb.len();
        let space = Space::relation(a.space.params.clone(), a.space.domain.clone(), zb.clone());
        let mut out = Set::empty(space.clone());
        for p in &a.pieces {
            for q in &b.pieces {
                // Columns: [params | x | z | y | p exists | q exists | c].
                let mut r = blank(space.clone(), ny + p.n_exist + q.n_exist);
                let w = r.width();
                let ycol = np + nx + nz;
                let map_p: Vec<usize> = (0..np + nx)
                    .chain((0..ny).map(|d| ycol + d))
                    .chain((0..p.n_exist).map(|e| ycol + ny + e))
                    .chain([w - 1])
                    .collect();
                let map_q: Vec<usize> = (0..np)
                    .chain((0..ny).map(|d| ycol + d))
                    .chain((0..nz).map(|d| np + nx + d))
                    .chain((0..q.n_exist).map(|e| ycol + ny + p.n_exist + e))
                    .chain([w - 1])
                    .collect();
                embed_rows_into(&mut r, p, &map_p);
                embed_rows_into(&mut r, q, &map_q);
                let r = eliminate_exists_where_exact(&r)?;
                if !r.is_obviously_empty() {
                    out.pieces.push(r);
                }
            }
        }
        Ok(out)
    }

    /// Composition in function order: `self ∘ inner` (apply `inner` first).
    pub fn compose(&self, inner: &Set) -> PolyResult<Set> {
        inner.apply_range(self)
    }

    /// Adds `dimension = value` to every piece.
    pub(crate) fn fix_dim(&self, ty: DimType, index: usize, value: i64) -> PolyResult<Set> {
        if index >= self.space.count_of(ty) {
            return Err(PolyError::SpaceMismatch(format!(
                "fix_dim: no dimension {index} of kind {ty:?}"
            )));
        }
        let col = self.space.col_of(ty, index);
        let mut out = self.clone();
        for p in &mut out.pieces {
            let mut row = p.zero_row();
            row[col] = 1;
            let last = row.len() - 1;
            row[last] = neg(value)?;
            p.eqs.push(row);
        }
        Ok(out)
    }

    /// Adds `param = value` for the parameter called `name` (an error when the
    /// set has no such parameter).
    pub(crate) fn fix_param(&self, name: &str, value: i64) -> PolyResult<Set> {
        let Some(i) = self.space.param_index(name) else {
            return Err(PolyError::SpaceMismatch(format!("no parameter {name}")));
        };
        self.fix_dim(DimType::Param, i, value)
    }

    /// Integer set difference `self \ other`, as a union of pieces that are
    /// disjoint within each piece of `self`. Returns `None` when a piece of
    /// `other` keeps existentials after exact elimination (the complement
    /// of such a piece is not a union of polyhedra without new existentials).
    pub(crate) fn subtract(&self, other: &Set) -> PolyResult<Option<Set>> {
        let (a, b) = align_params(self, other)?;
        if !same_shape(&a.space, &b.space) {
            return Err(mismatch("subtract", &a.space, &b.space));
        }
        let mut current: Vec<BasicSet> = Vec::new();
        for p in &a.pieces {
            let p = simplify(p)?;
            if !p.is_obviously_empty() {
                current.push(p);
            }
        }
        for q in &b.pieces {
            let q = eliminate_exists_where_exact(q)?;
            if q.is_obviously_empty() {
                continue;
            }
            if q.n_exist > 0 {
                return Ok(None);
            }
            let rows = q.inequality_rows()?;
            let mut next = Vec::new();
            for p in &current {
                subtract_rows(p, &rows, &mut next)?;
            }
            current = next;
        }
        let mut out = Set::empty(a.space.clone());
        out.pieces = current;
        Ok(Some(out))
    }

    /// Whether every integer point of `self` is in `other`; `None` when the
    /// difference cannot be computed exactly (see [`Set::subtract`]).
    pub(crate) fn is_subset(&self, other: &Set) -> PolyResult<Option<bool>> {
        match self.subtract(other)? {
            None => Ok(None),
            Some(d) => Ok(Some(d.is_empty()?)),
        }
    }
}

/// Appends `p \ {rows >= 0}` to `out` as disjoint pieces
/// `p ∧ r1 ∧ … ∧ r(k-1) ∧ ¬rk`. `rows` have no existential columns.
fn subtract_rows(p: &BasicSet, rows: &[Vec<i64>], out: &mut Vec<BasicSet>) -> PolyResult<()> {
    let n_var = p.space.n_var();
    // `row` (over the variables and the constant) lifted to the width of
    // `b`, whose existential columns get zeros. The width is read each time:
    // simplification may remove existentials.
    let lift = |r: &Vec<i64>, b: &BasicSet| -> Vec<i64> {
        let w = b.width();
        let mut v = vec![0i64; w];
        v[..n_var].copy_from_slice(&r[..n_var]);
        v[w - 1] = r[n_var];
        v
    };
    let mut cur = p.clone();
    for r in rows {
        let lifted = lift(r, &cur);
        let mut piece = cur.clone();
        piece.ineqs.push(complement_ineq(&lifted)?);
        let piece = simplify(&piece)?;
        if !piece.is_obviously_empty() && !super::simplex::rational_is_empty(&piece)? {
            out.push(piece);
        }
        cur.ineqs.push(lifted);
        cur = simplify(&cur)?;
        if cur.is_obviously_empty() {
            break;
        }
    }
    Ok(())
}

/// Aligns the parameters of two sets by name: both results have the union
/// of the two parameter lists (the first set's order, then the new ones).
pub(crate) fn align_params(a: &Set, b: &Set) -> PolyResult<(Set, Set)> {
    if a.space.params == b.space.params {
        return Ok((a.clone(), b.clone()));
    }
    let params = union_params(&a.space.params, &b.space.params);
    Ok((a.with_params(&params)?, b.with_params(&params)?))
}

/// Builds one piece of a lexicographic order relation between tuples `a`
/// (domain) and `b` (range): the first `k` dimensions equal, and then
/// `b_k - a_k + offset >= 0` when `last` is `Some(offset)`.
fn lex_piece(space: &Space, k: usize, last: Option<i64>) -> PolyResult<BasicSet> {
    let mut p = BasicSet::universe(space.clone());
    for j in 0..k {
        let mut row = p.zero_row();
        row[space.in_col(j)] = 1;
        row[space.out_col(j)] = -1;
        p.eqs.push(row);
    }
    if let Some(offset) = last {
        let mut row = p.zero_row();
        row[space.in_col(k)] = -1;
        row[space.out_col(k)] = 1;
        let c = row.len() - 1;
        row[c] = offset;
        p.ineqs.push(row);
    }
    Ok(p)
}

/// The relation `{ a -> b : a ≺ b }` (strict lexicographic order), as a union
/// of `n` disjoint polyhedra, where `n` is the shorter tuple's length: the
/// order compares the common prefix only.
pub fn lex_lt(a: Tuple, b: Tuple, params: Vec<String>) -> PolyResult<Set> {
    let n = a.len().min(b.len());
    let space = Space::relation(params, a, b);
    let mut out = Set::empty(space.clone());
    for k in 0..n {
        out.pieces.push(lex_piece(&space, k, Some(-1))?);
    }
    Ok(out)
}

/// The relation `{ a -> b : a ≼ b }`: [`lex_lt`] plus the piece where the
/// common prefix is equal.
pub fn lex_le(a: Tuple, b: Tuple, params: Vec<String>) -> PolyResult<Set> {
    let n = a.len().min(b.len());
    let mut out = lex_lt(a, b, params)?;
    let eq = lex_piece(&out.space, n, None)?;
    out.pieces.push(eq);
    Ok(out)
}

/// The relation `{ a -> b : a ≻ b }`.
pub fn lex_gt(a: Tuple, b: Tuple, params: Vec<String>) -> PolyResult<Set> {
    lex_lt(b, a, params)?.reverse()
}

/// The relation `{ a -> b : a ≽ b }`.
pub fn lex_ge(a: Tuple, b: Tuple, params: Vec<String>) -> PolyResult<Set> {
    lex_le(b, a, params)?.reverse()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::brute::{
        BruteBox, RandomShape, for_each_point, proptest_cases, random_basic, set_contains,
    };
    use crate::util::rng::Rng;

    fn count(s: &Set, bx: &BruteBox) -> usize {
        let mut n = 0;
        for_each_point(s.space.n_var(), bx.lo, bx.hi, |p| {
            if set_contains(s, p, bx) {
                n += 1;
            }
            true
        });
        n
    }

    #[test]
    fn lexicographic_orders_count_pairs_by_hand() {
        // 9 points in [0, 2]^2: 9 * 8 / 2 = 36 strictly ordered pairs.
        let a = Tuple::new(Some("A"), &["a0", "a1"]);
        let b = Tuple::new(Some("B"), &["b0", "b1"]);
        let bx = BruteBox::new(0, 2, 0, 0);
        let lt = lex_lt(a.clone(), b.clone(), vec![]).unwrap();
        assert_eq!(lt.pieces.len(), 2);
        assert_eq!(count(&lt, &bx), 36);
        assert_eq!(
            count(&lex_le(a.clone(), b.clone(), vec![]).unwrap(), &bx),
            45
        );
        assert_eq!(
            count(&lex_gt(a.clone(), b.clone(), vec![]).unwrap(), &bx),
            36
        );
        assert_eq!(
            count(&lex_ge(a.clone(), b.clone(), vec![]).unwrap(), &bx),
            45
        );
        // (0, 2) < (1, 0) but not (1, 0) < (0, 2).
        assert!(set_contains(&lt, &[0, 2, 1, 0], &bx));
        assert!(!set_contains(&lt, &[1, 0, 0, 2], &bx));
    }

    #[test]
    fn parameters_are_aligned_by_name() {
        let tuple = Tuple::new(None, &["i"]);
        let mut a = BasicSet::universe(Space::set(vec!["N".into()], tuple.clone()));
        a.add_ineq(vec![1, -1, 0]); // i <= N
        let mut b = BasicSet::universe(Space::set(vec!["M".into(), "N".into()], tuple));
        b.add_ineq(vec![-1, 0, 1, 0]); // i >= M
        let c = Set::from_basic(a).intersect(&Set::from_basic(b)).unwrap();
        assert_eq!(c.space.params, vec!["N", "M"]);
        // Columns [N, M, i]: M <= i <= N.
        let bx = BruteBox::new(-2, 2, 0, 0);
        assert!(set_contains(&c, &[2, -1, 0], &bx));
        assert!(!set_contains(&c, &[0, 1, 2], &bx));
        let fixed = c.fix_param("M", 1).unwrap();
        assert!(!set_contains(&fixed, &[2, -1, 0], &bx));
        assert!(set_contains(&fixed, &[2, 1, 2], &bx));
    }

    fn shape(half: i64, n_rows: usize, anchored: bool) -> RandomShape {
        RandomShape {
            n_rows,
            max_coeff: 4,
            max_const: 8,
            half_box: half,
            exist_half_box: half,
            eq_one_in: 6,
            anchored,
        }
    }

    fn random_set(rng: &mut Rng, space: &Space, half: i64, exists: bool) -> Set {
        let mut s = Set::empty(space.clone());
        for _ in 0..1 + rng.below(2) {
            let n_exist = if exists && rng.chance(1, 4) { 1 } else { 0 };
            let n_rows = 1 + rng.below(3);
            let anchored = rng.chance(1, 2);
            s.pieces.push(random_basic(
                rng,
                space,
                n_exist,
                &shape(half, n_rows, anchored),
            ));
        }
        s
    }

    /// Property: intersection, union, difference, subset and emptiness agree
    /// with brute force on random boxed unions (up to 3 dimensions plus one
    /// parameter). Cases scale with `POLYFOLD_PROPTEST_CASES`.
    #[test]
    fn boolean_operations_match_brute_force() {
        let mut rng = Rng::new(0x0B5_0001);
        let mut n_subset = 0;
        for _ in 0..proptest_cases(800) {
            let n_param = rng.below(2);
            let n_dim = 1 + rng.below(3);
            let half = if n_param + n_dim <= 2 { 4 } else { 2 };
            let params: Vec<String> = (0..n_param).map(|i| format!("p{i}")).collect();
            let dims: Vec<String> = (0..n_dim).map(|i| format!("x{i}")).collect();
            let space = Space::set(params, Tuple::anonymous(dims));
            let a = random_set(&mut rng, &space, half, true);
            let b = random_set(&mut rng, &space, half, false);
            let bx = BruteBox::new(-half, half, -half, half);
            let inter = a.intersect(&b).unwrap();
            let uni = a.union(&b).unwrap();
            let diff = a.subtract(&b).unwrap().expect("b has no existentials");
            let mut any_a = false;
            let mut a_in_b = true;
            for_each_point(space.n_var(), -half, half, |p| {
                let in_a = set_contains(&a, p, &bx);
                let in_b = set_contains(&b, p, &bx);
                any_a |= in_a;
                a_in_b &= !in_a || in_b;
                assert_eq!(
                    set_contains(&inter, p, &bx),
                    in_a && in_b,
                    "{a} ∩ {b} at {p:?}"
                );
                assert_eq!(
                    set_contains(&uni, p, &bx),
                    in_a || in_b,
                    "{a} ∪ {b} at {p:?}"
                );
                assert_eq!(
                    set_contains(&diff, p, &bx),
                    in_a && !in_b,
                    "{a} \\ {b} at {p:?}"
                );
                true
            });
            assert_eq!(a.is_empty().unwrap(), !any_a, "{a}");
            // Subset needs the subtrahend without existentials: test b ⊆ a
            // only when a has none, and a ⊆ b always.
            assert_eq!(a.is_subset(&b).unwrap(), Some(a_in_b), "{a} ⊆ {b}");
            if a_in_b {
                n_subset += 1;
            }
        }
        assert!(n_subset > 0);
    }

    /// Property: apply, reverse, domain, range, product and composition
    /// agree with brute force on random boxed relations. Cases scale with
    /// `POLYFOLD_PROPTEST_CASES`.
    #[test]
    fn relation_operations_match_brute_force() {
        let mut rng = Rng::new(0x0B5_0002);
        for _ in 0..proptest_cases(500) {
            let n_param = rng.below(2);
            let nx = 1 + rng.below(2);
            let ny = 1 + rng.below(2);
            let half = 2;
            let params: Vec<String> = (0..n_param).map(|i| format!("p{i}")).collect();
            let tx = Tuple::anonymous((0..nx).map(|i| format!("x{i}")).collect());
            let ty = Tuple::anonymous((0..ny).map(|i| format!("y{i}")).collect());
            let sx = Space::set(params.clone(), tx.clone());
            let rxy = Space::relation(params.clone(), tx.clone(), ty.clone());
            let ryx = Space::relation(params.clone(), ty.clone(), tx.clone());
            let s = random_set(&mut rng, &sx, half, true);
            let r = random_set(&mut rng, &rxy, half, true);
            let r2 = random_set(&mut rng, &ryx, half, false);
            let bx = BruteBox::new(-half, half, -half, half);
            let image = s.apply(&r).unwrap();
            let rev = r.reverse().unwrap();
            let dom = r.domain().unwrap();
            let ran = r.range().unwrap();
            let comp = r.apply_range(&r2).unwrap(); // x -> x'
            let prod = s.product(&dom).unwrap(); // x -> x'
            let np = n_param;
            // Check image, range: over [params | y].
            for_each_point(np + ny, -half, half, |py| {
                let (p, y) = py.split_at(np);
                let mut in_image = false;
                let mut in_range = false;
                for_each_point(nx, -half, half, |x| {
                    let px: Vec<i64> = p.iter().chain(x).copied().collect();
                    let pxy: Vec<i64> = px.iter().chain(y).copied().collect();
                    if set_contains(&r, &pxy, &bx) {
                        in_range = true;
                        if set_contains(&s, &px, &bx) {
                            in_image = true;
                        }
                    }
                    true
                });
                assert_eq!(set_contains(&image, py, &bx), in_image, "apply {s} {r}");
                assert_eq!(set_contains(&ran, py, &bx), in_range, "range {r}");
                true
            });
            // Reverse, domain, product and composition over [params | x | ?].
            for_each_point(np + nx + ny, -half, half, |pxy| {
                let (p, rest) = pxy.split_at(np);
                let (x, y) = rest.split_at(nx);
                let pyx: Vec<i64> = p.iter().chain(y).chain(x).copied().collect();
                assert_eq!(
                    set_contains(&rev, &pyx, &bx),
                    set_contains(&r, pxy, &bx),
                    "reverse {r}"
                );
                true
            });
            for_each_point(np + 2 * nx, -half, half, |pxz| {
                let (p, rest) = pxz.split_at(np);
                let (x, z) = rest.split_at(nx);
                let px: Vec<i64> = p.iter().chain(x).copied().collect();
                let pz: Vec<i64> = p.iter().chain(z).copied().collect();
                let mut in_dom_x = false;
                let mut in_dom_z = false;
                let mut in_comp = false;
                for_each_point(ny, -half, half, |y| {
                    let pxy: Vec<i64> = px.iter().chain(y).copied().collect();
                    let pzy: Vec<i64> = pz.iter().chain(y).copied().collect();
                    let pyz: Vec<i64> = p.iter().chain(y).chain(z).copied().collect();
                    let xy = set_contains(&r, &pxy, &bx);
                    in_dom_x |= xy;
                    in_dom_z |= set_contains(&r, &pzy, &bx);
                    in_comp |= xy && set_contains(&r2, &pyz, &bx);
                    true
                });
                assert_eq!(set_contains(&dom, &px, &bx), in_dom_x, "domain {r}");
                assert_eq!(
                    set_contains(&prod, pxz, &bx),
                    set_contains(&s, &px, &bx) && in_dom_z,
                    "product"
                );
                assert_eq!(set_contains(&comp, pxz, &bx), in_comp, "compose {r} {r2}");
                true
            });
        }
    }
}

#[cfg(test)]
mod overflow_tests {
    use super::*;
    use crate::poly::brute::proptest_cases;
    use crate::util::rng::Rng;

    fn ok_or_overflow<T>(r: PolyResult<T>, what: &str) {
        match r {
            Ok(_) | Err(PolyError::Overflow) | Err(PolyError::Budget) => {}
            Err(e) => panic!("{what}: unexpected error {e:?}"),
        }
    }

    /// Robustness: systems with huge coefficients go through every
    /// operation of this branch and give a result or an overflow error,
    /// never a panic (run in a debug build, this also catches silent
    /// wrapping). Cases scale with `POLYFOLD_PROPTEST_CASES`.
    #[test]
    fn huge_coefficients_give_results_or_overflow() {
        let mut rng = Rng::new(0xB16_0001);
        let big = [
            i64::MAX,
            i64::MIN,
            i64::MAX / 3,
            -(1 << 40),
            1 << 62,
            1 << 31,
            -(1 << 20),
            3,
            7,
            -1,
            0,
        ];
        for _ in 0..proptest_cases(150) {
            let space = Space::relation(
                vec!["N".into()],
                Tuple::new(None, &["i"]),
                Tuple::new(None, &["j"]),
            );
            let mut b = BasicSet::universe(space.clone());
            for _ in 0..3 {
                let row: Vec<i64> = (0..4).map(|_| *rng.pick(&big)).collect();
                if rng.chance(1, 4) {
                    b.add_eq(row);
                } else {
                    b.add_ineq(row);
                }
            }
            let s = Set::from_basic(b.clone());
            ok_or_overflow(simplify(&b), "simplify");
            ok_or_overflow(crate::poly::constraints::remove_redundant(&b), "redundant");
            ok_or_overflow(
                crate::poly::project::project_out(&b, DimType::Out, 0, 1),
                "project",
            );
            ok_or_overflow(s.subtract(&s), "subtract");
            ok_or_overflow(s.domain(), "domain");
            ok_or_overflow(crate::poly::lexopt::lexmax(&b), "lexmax");
            ok_or_overflow(crate::poly::hull::simple_hull(&s), "hull");
            let mut flat = b.clone();
            flat.space = Space::set(vec!["N".into()], Tuple::new(None, &["i", "j"]));
            let form: Vec<i64> = (0..4).map(|_| *rng.pick(&big)).collect();
            ok_or_overflow(
                crate::poly::farkas::least_upper_bound(&flat, &form),
                "farkas",
            );
            ok_or_overflow(crate::poly::isl_parse::parse_set(&s.to_string()), "parse");
        }
    }
}
