//! The 0-symmetric polytope K that the lattice strategies work on, and the
//! exact integer points of a difference set for fixed parameter values.
//!
//! K is built from the pieces of DS (seed 001 §3, end): parameters are fixed
//! to their values, existentials (cells and iteration vectors) are
//! eliminated by Fourier–Motzkin (an inexact elimination gives a superset,
//! which is safe: a lattice admissible for a superset of DS is admissible
//! for DS), every piece is added together with its mirror image, and the
//! simple hull of that union is K. K is therefore 0-symmetric and contains
//! every integer point of DS.
//!
//! [`DifferencePoints`] is the finite set DS ∖ {0} itself, exactly: the
//! points of each projected piece, re-checked against the original piece
//! (with its existentials) when the projection was not exact. The optimal
//! search decides admissibility against it.
//!
//! What this module does NOT do: parametric polytopes (parameters are always
//! fixed here), or exact convex hulls (the simple hull keeps only the
//! constraint directions of the pieces).

use std::collections::HashSet;

use crate::poly::hull::simple_hull_with_budget;
use crate::poly::project::project_out_exists;
use crate::poly::simplex::{IntResult, integer_max, integer_min, integer_point};
use crate::poly::{BasicSet, Budget, PolyError, PolyResult, Set, Space, Tuple};

/// A 0-symmetric polytope over `Z^dim`, as a [`BasicSet`] without parameters
/// or existentials (rows `a·x + c >= 0` with `c >= 0`, equalities `a·x = 0`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Polytope {
    pub set: BasicSet,
}

/// The space `{ [d0, .., d(n-1)] }` without parameters.
pub(crate) fn difference_space(rank: usize) -> Space {
    Space::set(
        Vec::new(),
        Tuple::anonymous((0..rank).map(|p| format!("d{p}")).collect()),
    )
}

/// `piece` with its parameters replaced by `values`, over
/// [`difference_space`] (existentials kept).
pub(crate) fn fix_parameters(
    piece: &BasicSet,
    rank: usize,
    values: &[i64],
) -> PolyResult<BasicSet> {
    let n_param = piece.space.n_param();
    if values.len() != n_param || piece.space.n_dim() != rank {
        return Err(PolyError::SpaceMismatch(format!(
            "a difference-set piece over {} parameters and {} dimensions, \
             given {} values and rank {rank}",
            n_param,
            piece.space.n_dim(),
            values.len()
        )));
    }
    let convert = |row: &Vec<i64>| -> PolyResult<Vec<i64>> {
        let mut constant = *row.last().expect("rows have a constant column");
        for (q, v) in values.iter().enumerate() {
            constant = crate::poly::error::add(constant, crate::poly::error::mul(row[q], *v)?)?;
        }
        let mut out = row[n_param..row.len() - 1].to_vec();
        out.push(constant);
        Ok(out)
    };
    Ok(BasicSet {
        space: difference_space(rank),
        n_exist: piece.n_exist,
        eqs: piece.eqs.iter().map(convert).collect::<PolyResult<_>>()?,
        ineqs: piece.ineqs.iter().map(convert).collect::<PolyResult<_>>()?,
    })
}

/// `b` mirrored through the origin on its `rank` set dimensions.
fn mirror(b: &BasicSet, rank: usize) -> BasicSet {
    let flip = |row: &Vec<i64>| -> Vec<i64> {
        row.iter()
            .enumerate()
            .map(|(c, v)| if c < rank { v.saturating_neg() } else { *v })
            .collect()
    };
    BasicSet {
        space: b.space.clone(),
        n_exist: b.n_exist,
        eqs: b.eqs.iter().map(flip).collect(),
        ineqs: b.ineqs.iter().map(flip).collect(),
    }
}

/// The pieces of DS with parameters fixed and existentials eliminated, with
/// the exactness of each elimination, and the pieces with existentials.
#[derive(Clone, Debug)]
pub struct FixedDifferenceSet {
    pub rank: usize,
    /// Pieces over [`difference_space`] with their existentials.
    pub pieces: Vec<BasicSet>,
    /// The same pieces with existentials eliminated (supersets).
    pub projected: Vec<BasicSet>,
    /// Whether each projection is exact.
    pub exact: Vec<bool>,
}

impl FixedDifferenceSet {
    /// Fixes the parameters of every piece of `ds` and projects out the
    /// existentials; pieces that are integer-empty are dropped.
    pub fn new(
        ds: &[BasicSet],
        rank: usize,
        values: &[i64],
        budget: &mut Budget,
    ) -> PolyResult<FixedDifferenceSet> {
        let mut out = FixedDifferenceSet {
            rank,
            pieces: Vec::new(),
            projected: Vec::new(),
            exact: Vec::new(),
        };
        for piece in ds {
            let fixed = fix_parameters(piece, rank, values)?;
            if fixed.is_obviously_empty() || integer_point(&fixed, budget)?.is_none() {
                continue;
            }
            let projection = project_out_exists(&fixed)?;
            out.pieces.push(fixed);
            out.projected.push(projection.set);
            out.exact.push(projection.exact);
        }
        Ok(out)
    }

    /// From a polytope given directly (no existentials): exact.
    pub fn from_polytope(k: &Polytope) -> FixedDifferenceSet {
        FixedDifferenceSet {
            rank: k.dim(),
            pieces: vec![k.set.clone()],
            projected: vec![k.set.clone()],
            exact: vec![true],
        }
    }

    /// The 0-symmetric polytope K: simple hull of the projected pieces and
    /// their mirror images. `None` when DS has no point (then every
    /// dimension folds completely).
    pub fn polytope(&self, budget: &mut Budget) -> PolyResult<Option<Polytope>> {
        if self.projected.is_empty() {
            return Ok(None);
        }
        let mut union = Set::empty(difference_space(self.rank));
        for p in &self.projected {
            union.push(p.clone());
            union.push(mirror(p, self.rank));
        }
        let hull = simple_hull_with_budget(&union, budget)?;
        let k = Polytope { set: hull };
        k.check_bounded()?;
        Ok(Some(k))
    }
}

impl Polytope {
    /// The dimension `n` of the space of K.
    pub(crate) fn dim(&self) -> usize {
        self.set.space.n_dim()
    }

    /// Fails unless K is bounded (every coordinate has a finite maximum).
    pub(crate) fn check_bounded(&self) -> PolyResult<()> {
        for p in 0..self.dim() {
            let mut objective = self.set.zero_row();
            objective[p] = 1;
            if let crate::poly::simplex::LpResult::Unbounded =
                crate::poly::simplex::lp_max(&self.set, &objective)?
            {
                return Err(PolyError::Solver(format!(
                    "the polytope is unbounded along dimension {p}"
                )));
            }
        }
        Ok(())
    }

    /// Whether the integer point `x` lies in K.
    pub fn contains(&self, x: &[i64]) -> PolyResult<bool> {
        Ok(self.set.contains_point(x)?.unwrap_or(false))
    }

    /// Rows in the form `(a, c)` meaning `a·x <= c` (equalities give two rows).
    pub(crate) fn upper_rows(&self) -> PolyResult<Vec<(Vec<i64>, i64)>> {
        let n = self.dim();
        let mut rows = Vec::new();
        for r in &self.set.ineqs {
            let a = r[..n]
                .iter()
                .map(|v| crate::poly::error::neg(*v))
                .collect::<PolyResult<Vec<_>>>()?;
            rows.push((a, r[n]));
        }
        for r in &self.set.eqs {
            let a = r[..n]
                .iter()
                .map(|v| crate::poly::error::neg(*v))
                .collect::<PolyResult<Vec<_>>>()?;
            rows.push((a, r[n]));
            rows.push((r[..n].to_vec(), crate::poly::error::neg(r[n])?));
        }
        Ok(rows)
    }
}

/// Exact integer bounding box of `b` on its first `rank` columns; `None`
/// when `b` has no integer point.
pub(crate) fn bounding_box(
    b: &BasicSet,
    rank: usize,
    budget: &mut Budget,
) -> PolyResult<Option<Vec<(i64, i64)>>> {
    let mut bounds = Vec::with_capacity(rank);
    for p in 0..rank {
        let mut objective = b.zero_row();
        objective[p] = 1;
        let lo = match integer_min(b, &objective, budget)? {
            IntResult::Infeasible => return Ok(None),
            IntResult::Unbounded => {
                return Err(PolyError::Solver("the difference set is unbounded".into()));
            }
            IntResult::Optimal { value, .. } => value,
        };
        let hi = match integer_max(b, &objective, budget)? {
            IntResult::Infeasible => return Ok(None),
            IntResult::Unbounded => {
                return Err(PolyError::Solver("the difference set is unbounded".into()));
            }
            IntResult::Optimal { value, .. } => value,
        };
        bounds.push((lo, hi));
    }
    Ok(Some(bounds))
}

/// Cells of the largest box whose points [`Seen`] records in a bit set.
const DENSE_SEEN_CELLS: u64 = 1 << 26;

/// The points found so far while enumerating DS: a bit set over a box
/// that holds every point that may be recorded, or a hash set.
enum Seen {
    Dense {
        lo: Vec<i64>,
        sides: Vec<u64>,
        bits: Vec<u64>,
    },
    Sparse(HashSet<Vec<i64>>),
}

impl Seen {
    /// For the points of the boxes `boxes` (`None`: an empty piece) and
    /// their mirror images.
    fn around(boxes: &[Option<Vec<(i64, i64)>>], rank: usize) -> Seen {
        let mut lo = vec![0i64; rank];
        let mut hi = vec![0i64; rank];
        for b in boxes.iter().flatten() {
            for (p, (l, h)) in b.iter().enumerate().take(rank) {
                let (Some(nl), Some(nh)) = (l.checked_neg(), h.checked_neg()) else {
                    return Seen::Sparse(HashSet::new());
                };
                lo[p] = lo[p].min(*l).min(nh);
                hi[p] = hi[p].max(*h).max(nl);
            }
        }
        let mut sides = Vec::with_capacity(rank);
        let mut volume: u64 = 1;
        for (l, h) in lo.iter().zip(&hi) {
            let side = u64::try_from(i128::from(*h) - i128::from(*l) + 1).unwrap_or(u64::MAX);
            volume = volume.saturating_mul(side);
            sides.push(side);
        }
        if volume > DENSE_SEEN_CELLS {
            return Seen::Sparse(HashSet::new());
        }
        let words = usize::try_from(volume.div_ceil(64)).unwrap_or(0);
        Seen::Dense {
            lo,
            sides,
            bits: vec![0; words],
        }
    }

    /// The row-major index of `x` in the box (lexicographic order of the
    /// points is the order of their indices).
    fn index(lo: &[i64], sides: &[u64], x: &[i64]) -> Option<u64> {
        let mut at: u64 = 0;
        for ((v, l), side) in x.iter().zip(lo).zip(sides) {
            let off = u64::try_from(i128::from(*v) - i128::from(*l)).ok()?;
            if off >= *side {
                return None;
            }
            at = at * side + off;
        }
        Some(at)
    }

    fn contains(&self, x: &[i64]) -> bool {
        match self {
            Seen::Dense { lo, sides, bits } => Self::index(lo, sides, x)
                .is_some_and(|k| bits[(k / 64) as usize] >> (k % 64) & 1 == 1),
            Seen::Sparse(set) => set.contains(x),
        }
    }

    fn insert(&mut self, x: &[i64]) {
        match self {
            Seen::Dense { lo, sides, bits } => {
                if let Some(k) = Self::index(lo, sides, x) {
                    bits[(k / 64) as usize] |= 1 << (k % 64);
                    return;
                }
                // Every recorded point is in the box by construction; were
                // one not, the hash set keeps the record exact.
                let taken = std::mem::replace(self, Seen::Sparse(HashSet::new()));
                let mut set: HashSet<Vec<i64>> = taken.sorted_points().into_iter().collect();
                set.insert(x.to_vec());
                *self = Seen::Sparse(set);
            }
            Seen::Sparse(set) => {
                set.insert(x.to_vec());
            }
        }
    }

    /// The points, in lexicographic order.
    fn sorted_points(self) -> Vec<Vec<i64>> {
        match self {
            Seen::Dense { lo, sides, bits } => {
                let mut out = Vec::new();
                for (w, word) in bits.iter().enumerate() {
                    let mut rest = *word;
                    while rest != 0 {
                        let b = u64::from(rest.trailing_zeros());
                        rest &= rest - 1;
                        let mut k = w as u64 * 64 + b;
                        let mut x = vec![0i64; lo.len()];
                        for p in (0..lo.len()).rev() {
                            x[p] = lo[p] + (k % sides[p]) as i64;
                            k /= sides[p];
                        }
                        out.push(x);
                    }
                }
                out
            }
            Seen::Sparse(set) => {
                let mut points: Vec<Vec<i64>> = set.into_iter().collect();
                points.sort();
                points
            }
        }
    }
}

/// Hard cap on the number of box points scanned when enumerating DS.
pub(crate) const MAX_BOX_POINTS: u64 = 20_000_000;

/// Calls `visit` on every integer point of the box (lexicographic order).
fn for_each_in_box(
    bounds: &[(i64, i64)],
    mut visit: impl FnMut(&[i64]) -> PolyResult<()>,
) -> PolyResult<()> {
    let mut volume: u64 = 1;
    for (lo, hi) in bounds {
        let side = u64::try_from(i128::from(*hi) - i128::from(*lo) + 1).unwrap_or(0);
        volume = volume.saturating_mul(side);
    }
    if volume > MAX_BOX_POINTS {
        return Err(PolyError::Solver(format!(
            "the difference set's bounding box has {volume} points (limit {MAX_BOX_POINTS})"
        )));
    }
    if volume == 0 {
        return Ok(());
    }
    let mut x: Vec<i64> = bounds.iter().map(|b| b.0).collect();
    loop {
        visit(&x)?;
        let mut p = bounds.len();
        loop {
            if p == 0 {
                return Ok(());
            }
            p -= 1;
            if x[p] < bounds[p].1 {
                x[p] += 1;
                break;
            }
            x[p] = bounds[p].0;
        }
    }
}

/// The non-zero integer points of DS for fixed parameters, exactly, as a
/// sorted list and a hash set.
#[derive(Clone, Debug)]
pub(crate) struct DifferencePoints {
    pub rank: usize,
    pub points: Vec<Vec<i64>>,
    pub lookup: HashSet<Vec<i64>>,
}

impl DifferencePoints {
    /// Enumerates the points of every projected piece; a point of an inexact
    /// projection is kept only when the original piece has an integer point
    /// over it. Mirror images are added (DS is 0-symmetric by construction,
    /// this only makes the set closed under negation when pieces are listed
    /// one way), and 0 is removed.
    pub fn new(ds: &FixedDifferenceSet, budget: &mut Budget) -> PolyResult<DifferencePoints> {
        let rank = ds.rank;
        // The pieces' boxes first: the points found are then recorded in a
        // bit set over the box around them all and their mirror images
        // (a hash set where that box is too large), which the pieces'
        // overlapping boxes query once per point each.
        let mut boxes = Vec::with_capacity(ds.pieces.len());
        for projected in &ds.projected {
            boxes.push(bounding_box(projected, rank, budget)?);
        }
        let mut seen = Seen::around(&boxes, rank);
        for (((piece, projected), exact), bounds) in ds
            .pieces
            .iter()
            .zip(&ds.projected)
            .zip(&ds.exact)
            .zip(&boxes)
        {
            let Some(bounds) = bounds else {
                continue;
            };
            for_each_in_box(bounds, |x| {
                if x.iter().all(|v| *v == 0) || seen.contains(x) {
                    return Ok(());
                }
                if projected.contains_point(x)? != Some(true) {
                    return Ok(());
                }
                let keep = if *exact {
                    true
                } else {
                    let mut q = piece.clone();
                    for (p, v) in x.iter().enumerate() {
                        let mut row = q.zero_row();
                        row[p] = 1;
                        let last = row.len() - 1;
                        row[last] = crate::poly::error::neg(*v)?;
                        q.add_eq(row);
                    }
                    integer_point(&q, budget)?.is_some()
                };
                if keep {
                    let m: Vec<i64> = x
                        .iter()
                        .map(|v| crate::poly::error::neg(*v))
                        .collect::<PolyResult<_>>()?;
                    seen.insert(x);
                    seen.insert(&m);
                }
                Ok(())
            })?;
        }
        let points = seen.sorted_points();
        let lookup: HashSet<Vec<i64>> = points.iter().cloned().collect();
        Ok(DifferencePoints {
            rank,
            points,
            lookup,
        })
    }

    /// The integer points of a polytope (excluding 0).
    #[cfg(test)]
    pub fn of_polytope(k: &Polytope, budget: &mut Budget) -> PolyResult<DifferencePoints> {
        DifferencePoints::new(&FixedDifferenceSet::from_polytope(k), budget)
    }

    pub fn contains(&self, x: &[i64]) -> bool {
        self.lookup.contains(x)
    }

    /// The largest `|x_r|` over the points, per coordinate.
    pub fn extents(&self) -> Vec<i64> {
        let mut extent = vec![0i64; self.rank];
        for x in &self.points {
            for (e, v) in extent.iter_mut().zip(x) {
                *e = (*e).max(v.abs());
            }
        }
        extent
    }
}

#[cfg(test)]
mod tests {
    use super::Seen;

    /// The bit set and the hash set record the same points and list them
    /// in the same (lexicographic) order; a point outside the bit set's
    /// box moves the record to a hash set, losing nothing.
    #[test]
    fn seen_points_are_the_same_dense_or_sparse() {
        let boxes = vec![
            Some(vec![(-2, 3), (0, 4)]),
            None,
            Some(vec![(1, 1), (-5, 0)]),
        ];
        let mut dense = Seen::around(&boxes, 2);
        assert!(matches!(dense, Seen::Dense { .. }));
        let huge = vec![Some(vec![(-(1 << 20), 1 << 20), (-(1 << 20), 1 << 20)])];
        let mut sparse = Seen::around(&huge, 2);
        assert!(matches!(sparse, Seen::Sparse(_)));
        let points = [[3, 4], [-3, -4], [1, -5], [-1, 5], [0, 1], [0, -1], [3, 4]];
        for p in &points {
            dense.insert(p);
            sparse.insert(p);
        }
        for p in &points {
            assert!(dense.contains(p) && sparse.contains(p));
        }
        assert!(!dense.contains(&[2, 2]) && !sparse.contains(&[2, 2]));
        assert!(!dense.contains(&[40, 0]));
        let mut expect: Vec<Vec<i64>> = points.iter().map(|p| p.to_vec()).collect();
        expect.sort();
        expect.dedup();
        assert_eq!(dense.sorted_points(), expect);
        assert_eq!(sparse.sorted_points(), expect);
        // Outside the box: kept, in order.
        let mut grown = Seen::around(&boxes, 2);
        grown.insert(&[1, 1]);
        grown.insert(&[40, -40]);
        assert!(matches!(grown, Seen::Sparse(_)));
        assert!(grown.contains(&[40, -40]) && grown.contains(&[1, 1]));
        assert_eq!(grown.sorted_points(), vec![vec![1, 1], vec![40, -40]]);
    }
}
