//! Exhaustive search for a strictly admissible lattice of smallest
//! determinant, for fixed parameter values (seed 001 §4, Cl@k's optimal
//! search, after Darte–Schreiber–Villard), made fast.
//!
//! Every integer lattice of determinant D has exactly one lower-triangular
//! Hermite basis: columns `v_k` with `v_k[r] = 0` for `r < k`, `v_k[k] =
//! h_k > 0`, `h_0·…·h_{n−1} = D`, and `v_k[r] ∈ [0, h_r)` for `r > k`. The
//! search builds the basis from the last coordinate up: `L_k = Λ ∩ {x_0 =
//! … = x_{k−1} = 0}` is spanned by `v_k..v_{n−1}`, and a choice of `(h_k,
//! v_k)` is kept only when no point of DS with `x_{<k} = 0`, `x_k = t·h_k`,
//! `t >= 1`, lies in `L_k` (the points with `t <= −1` are their mirror
//! images). So every partial basis is checked once against the few points
//! it can newly hit, and the search prunes early. Determinants are tried in
//! increasing order from a lower bound; the first admissible lattice is
//! optimal, and among the admissible lattices of that determinant the one
//! with the simplest mapping is kept.
//!
//! What makes it fast enough for reg_detect's `diff` (3-D, all of
//! 1344..1727 refuted in about half a second):
//! - the coordinates are reordered by extent, the longest last;
//! - DS is kept as lines along the last coordinate, each a few intervals,
//!   so a check costs one test per line (`Group`);
//! - the last entry `b` of a column is never enumerated: the lines forbid
//!   the preimages of intervals under `b ↦ t·b mod h_{n−1}`, which are
//!   intervals, and the allowed values are what is left
//!   (`Search::allowed_last`);
//! - when DS is symmetric in the last coordinate, only one lattice of each
//!   mirror pair is visited.
//!
//! Lower bounds: the caller's (for instance the max-live count of the trace
//! verifier, valid for every mapping), and a clique bound valid for
//! lattices: the largest box `B` (in the unit basis) with `B − B ⊆ DS ∪
//! {0}`; any two points of `B` differ by a vector of DS, so they lie in
//! distinct cosets of an admissible lattice, whose determinant is therefore
//! at least `|B|`.
//!
//! What this module does NOT do: parametric optimality, or searches in
//! dimensions where the number of Hermite bases explodes (the budget stops
//! the search and the result says optimality was not proven).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::poly::error::{PolyResult, mul};
use crate::poly::matrix::{IntMatrix, hnf_col};
use crate::poly::{Budget, PolyError};

use super::basis::{NumericMapping, mapping_from_basis};
use super::polytope::DifferencePoints;

/// The outcome of the optimal search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptimalResult {
    /// The best lattice found (columns of its Hermite basis) and its mapping.
    pub basis: Option<Vec<Vec<i64>>>,
    pub mapping: Option<NumericMapping>,
    /// Its determinant (the mapping's size).
    pub size: Option<i64>,
    /// The lower bound the search started from (max of the given bound and
    /// the clique bound).
    pub lower_bound: i64,
    /// The clique (box) bound alone.
    pub clique_bound: i64,
    /// Whether no admissible lattice of smaller determinant exists (proven).
    pub proven: bool,
}

/// The points of DS at one level `k < n − 1` that share `x_k` and the
/// middle coordinates `x_{k+1..n−1}`: the values of the last coordinate
/// `x_{n−1}` are kept as sorted disjoint intervals, so a level check costs
/// one test per group instead of one per point (DS is a union of polytopes,
/// so its lines along the last coordinate are few intervals).
struct Group {
    xk: i64,
    middle: Vec<i64>,
    last: Vec<(i64, i64)>,
}

/// Points of DS grouped by their first non-zero coordinate `k` (only those
/// with `x_k > 0`; the others are their mirror images).
struct Levels {
    /// `by_level[k]` for `k < n − 1`.
    by_level: Vec<Vec<Group>>,
    /// The positive values of `x_{n−1}` of the points whose other
    /// coordinates are 0.
    top: Vec<i64>,
}

impl Levels {
    fn new(points: &DifferencePoints) -> Levels {
        let n = points.rank;
        let mut keyed: BTreeMap<(usize, i64, Vec<i64>), Vec<i64>> = BTreeMap::new();
        let mut top = Vec::new();
        for x in &points.points {
            let Some(k) = x.iter().position(|v| *v != 0) else {
                continue;
            };
            if x[k] <= 0 {
                continue;
            }
            if k + 1 == n {
                top.push(x[k]);
            } else {
                keyed
                    .entry((k, x[k], x[k + 1..n - 1].to_vec()))
                    .or_default()
                    .push(x[n - 1]);
            }
        }
        top.sort_unstable();
        top.dedup();
        let mut by_level: Vec<Vec<Group>> = (0..n.saturating_sub(1)).map(|_| Vec::new()).collect();
        for ((k, xk, middle), mut values) in keyed {
            values.sort_unstable();
            values.dedup();
            let mut last: Vec<(i64, i64)> = Vec::new();
            for v in values {
                match last.last_mut() {
                    Some((_, hi)) if hi.checked_add(1) == Some(v) => *hi = v,
                    _ => last.push((v, v)),
                }
            }
            by_level[k].push(Group { xk, middle, last });
        }
        Levels { by_level, top }
    }
}

/// Whether some value of `intervals`, shifted by `c`, is a multiple of `p`.
fn hits_multiple(intervals: &[(i64, i64)], c: i64, p: i64) -> PolyResult<bool> {
    for (lo, hi) in intervals {
        let a = lo.checked_add(c).ok_or(PolyError::Overflow)?;
        let b = hi.checked_add(c).ok_or(PolyError::Overflow)?;
        // The largest multiple of p that is <= b.
        if b.div_euclid(p).checked_mul(p).ok_or(PolyError::Overflow)? >= a {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Removes `[lo, hi]` from the sorted disjoint closed intervals `set`
/// (`scratch` is reused storage).
fn subtract(set: &mut Vec<(i64, i64)>, lo: i64, hi: i64, scratch: &mut Vec<(i64, i64)>) {
    scratch.clear();
    for &(a, b) in set.iter() {
        if b < lo || a > hi {
            scratch.push((a, b));
            continue;
        }
        if a < lo {
            scratch.push((a, lo - 1));
        }
        if b > hi {
            scratch.push((hi + 1, b));
        }
    }
    std::mem::swap(set, scratch);
}

/// Search state: the Hermite columns chosen so far for levels `k..n`.
struct Search<'a> {
    n: usize,
    levels: &'a Levels,
    /// `cols[k]` is `v_k` (full length n) once level k is chosen.
    cols: Vec<Vec<i64>>,
    diag: Vec<i64>,
    /// Best admissible lattices at the current determinant.
    best: Option<(NumericMapping, Vec<Vec<i64>>)>,
    /// How many admissible lattices to look at for simplicity.
    max_found: usize,
    found: usize,
    budget: &'a mut Budget,
    /// Reused storage of [`Search::allowed_last`].
    scratch: Scratch<'a>,
    /// The search runs on coordinates reordered by extent: coordinate `r`
    /// of the search is coordinate `perm[r]` of the caller (`None`: same).
    perm: Option<&'a [usize]>,
    /// The allowed last offsets of each level, reused.
    offsets: Vec<Vec<i64>>,
}

/// Reused storage of [`Search::allowed_last`] (it runs millions of times).
#[derive(Default)]
struct Scratch<'a> {
    y: Vec<i64>,
    allowed: Vec<(i64, i64)>,
    cut: Vec<(i64, i64)>,
    /// (t, c0, group) of the groups tested offset by offset.
    per_offset: Vec<(i64, i64, &'a Group)>,
}

/// Groups whose forbidden offsets are listed as intervals only while
/// `t` (the multiple of `h_k` they sit at) stays below this; beyond it the
/// `2t` intervals cost more than testing each candidate offset.
const MAX_INTERVAL_MULTIPLE: i64 = 64;

impl<'a> Search<'a> {
    /// For a group at level k whose `x_k` is a multiple `t·h_k`: the shift
    /// `c0` of its last coordinate once `t·v_k` (with `v_k[n−1] = 0`) is
    /// subtracted and the middle coordinates are reduced by
    /// `v_{k+1}..v_{n−2}` (lower triangular: in order), or `None` when a
    /// middle coordinate cannot be reduced (the group never meets `L_k`).
    /// With the last offset `b = v_k[n−1]`, a value `y` of the group is then
    /// in `L_k` iff `y + c0 − t·b ≡ 0 (mod h_{n−1})`.
    fn shift(&self, k: usize, g: &Group, t: i64, y: &mut [i64]) -> PolyResult<Option<i64>> {
        let n = self.n;
        for (s, slot) in y.iter_mut().enumerate() {
            let off = self.cols[k][k + 1 + s];
            *slot = g.middle[s]
                .checked_sub(t.checked_mul(off).ok_or(PolyError::Overflow)?)
                .ok_or(PolyError::Overflow)?;
        }
        let mut c = 0i64;
        for r in k + 1..n - 1 {
            let v = y[r - k - 1];
            let hr = self.diag[r];
            if v % hr != 0 {
                return Ok(None);
            }
            let q = v / hr;
            if q != 0 {
                for s in r..n - 1 {
                    y[s - k - 1] = y[s - k - 1]
                        .checked_sub(q.checked_mul(self.cols[r][s]).ok_or(PolyError::Overflow)?)
                        .ok_or(PolyError::Overflow)?;
                }
                c = c
                    .checked_sub(
                        q.checked_mul(self.cols[r][n - 1])
                            .ok_or(PolyError::Overflow)?,
                    )
                    .ok_or(PolyError::Overflow)?;
            }
        }
        Ok(Some(c))
    }

    /// The offsets `b ∈ [0, h_{n−1})` of the last coordinate of `v_k` (the
    /// other entries of `cols[k]` fixed, its last one 0) for which no point
    /// of DS with `x_{<k} = 0`, `x_k = t·h_k`, `t >= 1` lies in `L_k`; the
    /// points with `t < 0` are the mirror images. A group at multiple `t`
    /// forbids `{b : t·b mod p ∈ (I + c0) mod p}` for each interval `I` of
    /// its last coordinate, and for `0 <= s <= e < p` the preimage of
    /// `[s, e]` under `b ↦ t·b mod p` is the union over `j ∈ [0, t)` of
    /// `[⌈(s + jp)/t⌉, ⌊(e + jp)/t⌋]`. Groups at a larger multiple than
    /// [`MAX_INTERVAL_MULTIPLE`] are tested offset by offset instead.
    fn allowed_last(&mut self, k: usize, offsets: &mut Vec<i64>) -> PolyResult<()> {
        offsets.clear();
        let mut scratch = std::mem::take(&mut self.scratch);
        let r = self.allowed_into(k, &mut scratch, offsets);
        self.scratch = scratch;
        r
    }

    /// [`Search::allowed_last`] with its storage taken out of `self`.
    fn allowed_into(
        &mut self,
        k: usize,
        scratch: &mut Scratch<'a>,
        offsets: &mut Vec<i64>,
    ) -> PolyResult<()> {
        let p = self.diag[self.n - 1];
        if !self.allowed_intervals(k, scratch)? {
            return Ok(());
        }
        for &(from, to) in &scratch.allowed {
            // One step per offset kept or group tested: the work of this loop
            // and of the caller's loop over the offsets.
            let width = u64::try_from(to - from + 1).unwrap_or(0);
            let groups = u64::try_from(scratch.per_offset.len().max(1)).unwrap_or(1);
            self.budget.charge(1 + width.saturating_mul(groups))?;
            'offsets: for b in from..=to {
                for (t, c0, g) in &scratch.per_offset {
                    let c = t
                        .checked_mul(b)
                        .and_then(|tb| c0.checked_sub(tb))
                        .ok_or(PolyError::Overflow)?;
                    if hits_multiple(&g.last, c, p)? {
                        continue 'offsets;
                    }
                }
                offsets.push(b);
            }
        }
        Ok(())
    }

    /// The interval part of [`Search::allowed_last`]: leaves the allowed
    /// offsets in `scratch.allowed` and the groups to test offset by offset
    /// in `scratch.per_offset`; `false` when nothing is allowed.
    fn allowed_intervals(&mut self, k: usize, scratch: &mut Scratch<'a>) -> PolyResult<bool> {
        let n = self.n;
        let h = self.diag[k];
        let p = self.diag[n - 1];
        let levels = self.levels;
        let Scratch {
            y,
            allowed,
            cut,
            per_offset,
        } = scratch;
        y.clear();
        y.resize(n - k - 2, 0);
        // The allowed offsets as sorted disjoint closed intervals; the groups
        // come by increasing `x_k`, so the small multiples, which forbid the
        // most, come first and the set usually empties early.
        allowed.clear();
        allowed.push((0, p - 1));
        per_offset.clear();
        for g in &levels.by_level[k] {
            if g.xk % h != 0 {
                continue;
            }
            let t = g.xk / h;
            // One step per interval and multiple subtracted: the work below.
            let lines = u64::try_from(g.last.len()).unwrap_or(0);
            let multiple = u64::try_from(t.clamp(1, MAX_INTERVAL_MULTIPLE)).unwrap_or(1);
            self.budget.charge(1 + lines.saturating_mul(multiple))?;
            let Some(c0) = self.shift(k, g, t, y)? else {
                continue;
            };
            if t > MAX_INTERVAL_MULTIPLE {
                per_offset.push((t, c0, g));
                continue;
            }
            for (lo, hi) in &g.last {
                let width = hi.checked_sub(*lo).ok_or(PolyError::Overflow)?;
                if width >= p - 1 {
                    // Every residue, so every offset, is hit.
                    return Ok(false);
                }
                let s = lo.checked_add(c0).ok_or(PolyError::Overflow)?.rem_euclid(p);
                let e = s.checked_add(width).ok_or(PolyError::Overflow)?;
                let pieces = if e < p {
                    [(s, e), (1, 0)]
                } else {
                    [(s, p - 1), (0, e - p)]
                };
                for (s, e) in pieces {
                    if s > e {
                        continue;
                    }
                    for j in 0..t {
                        let jp = j.checked_mul(p).ok_or(PolyError::Overflow)?;
                        let lo_b = s
                            .checked_add(jp)
                            .and_then(|v| v.checked_add(t - 1))
                            .ok_or(PolyError::Overflow)?
                            .div_euclid(t);
                        let hi_b = e.checked_add(jp).ok_or(PolyError::Overflow)?.div_euclid(t);
                        if lo_b <= hi_b {
                            subtract(allowed, lo_b, hi_b, cut);
                        }
                    }
                }
                if allowed.is_empty() {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// Whether the diagonal entry `h_{n−1}` alone admits no point of DS on
    /// the last axis.
    fn top_ok(&self) -> bool {
        let h = self.diag[self.n - 1];
        self.levels.top.iter().all(|x| x % h != 0)
    }

    /// A level-k column is complete: recurse to level `k − 1`, or record the
    /// lattice at level 0. Returns `true` to stop.
    fn complete(&mut self, k: usize, remaining: i64, tied: bool) -> PolyResult<bool> {
        if k > 0 {
            return self.level(k - 1, remaining, tied);
        }
        let basis = match self.perm {
            None => self.cols.clone(),
            Some(perm) => {
                // Back to the caller's coordinates, in Hermite form again.
                let mut cols = vec![vec![0i64; self.n]; self.n];
                for (orig, col) in cols.iter_mut().zip(&self.cols) {
                    for (r, v) in col.iter().enumerate() {
                        orig[perm[r]] = *v;
                    }
                }
                let (h, _) = hnf_col(&IntMatrix::from_cols(&cols, self.n)?)?;
                (0..self.n).map(|c| h.col(c)).collect()
            }
        };
        let m = mapping_from_basis(&basis)?;
        let better = self
            .best
            .as_ref()
            .is_none_or(|(b, _)| m.complexity() < b.complexity());
        if better {
            self.best = Some((m, basis));
        }
        self.found += 1;
        Ok(self.found >= self.max_found)
    }

    /// Completes level k with each allowed last offset (see [`Search::level`]
    /// for `tied`). Returns `true` to stop.
    fn each_offset(
        &mut self,
        k: usize,
        remaining: i64,
        tied: bool,
        offsets: &[i64],
    ) -> PolyResult<bool> {
        let n = self.n;
        let p = self.diag[n - 1];
        for &b in offsets {
            let mirror = (p - b) % p;
            if tied && b > mirror {
                continue;
            }
            self.cols[k][n - 1] = b;
            if self.complete(k, remaining, tied && b == mirror)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Enumerates levels `k, k−1, …, 0` with `remaining` the product of the
    /// diagonal entries still to choose. Returns `true` to stop.
    ///
    /// When DS is symmetric in its last coordinate, the mirror image of a
    /// lattice (its last row negated) is admissible with it, has the same
    /// determinant and a mapping as simple; its Hermite basis has the last
    /// offsets `(−v_k[n−1]) mod h_{n−1}` and the same other entries. Only one
    /// of each pair is searched: while `tied` (every last offset so far is
    /// its own mirror image), the last offset `b` must satisfy
    /// `b <= (−b) mod p`.
    fn level(&mut self, k: usize, remaining: i64, tied: bool) -> PolyResult<bool> {
        let n = self.n;
        let divisors: Vec<i64> = if k == 0 {
            vec![remaining]
        } else {
            divisors_of(remaining, self.budget)?
        };
        for h in divisors {
            self.budget.tick()?;
            self.diag[k] = h;
            let mut col = vec![0i64; n];
            col[k] = h;
            if k + 1 == n {
                self.cols[k] = col;
                if self.top_ok() && self.complete(k, remaining / h, tied)? {
                    return Ok(true);
                }
                continue;
            }
            // Offsets v_k[r] ∈ [0, h_r) for k < r < n − 1, odometer order;
            // the last offset from the allowed list.
            loop {
                self.cols[k].copy_from_slice(&col);
                let mut offsets = std::mem::take(&mut self.offsets[k]);
                let stop = self
                    .allowed_last(k, &mut offsets)
                    .and_then(|()| self.each_offset(k, remaining / h, tied, &offsets));
                self.offsets[k] = offsets;
                if stop? {
                    return Ok(true);
                }
                let mut advanced = false;
                let mut r = n - 1;
                while r > k + 1 {
                    r -= 1;
                    if col[r] + 1 < self.diag[r] {
                        col[r] += 1;
                        advanced = true;
                        break;
                    }
                    col[r] = 0;
                }
                if !advanced {
                    break;
                }
            }
        }
        Ok(false)
    }
}

/// The divisors of `n >= 1` in increasing order, by trial division up to
/// its square root (one budget step per trial).
fn divisors_of(n: i64, budget: &mut Budget) -> PolyResult<Vec<i64>> {
    let mut small = Vec::new();
    let mut large = Vec::new();
    let mut d = 1i64;
    while d.checked_mul(d).is_some_and(|dd| dd <= n) {
        budget.tick()?;
        if n % d == 0 {
            small.push(d);
            if d != n / d {
                large.push(n / d);
            }
        }
        d += 1;
    }
    small.extend(large.into_iter().rev());
    Ok(small)
}

/// The clique bound: the largest `Π l_r` over boxes `Π [0, l_r)` whose
/// difference box `Π [−(l_r − 1), l_r − 1]` lies in DS ∪ {0}.
///
/// The last side is not searched: for each prefix `(x_0, …, x_{n−2})`,
/// `radius` is the largest `R` such that DS ∪ {0} holds every point of
/// that prefix with `|x_{n−1}| <= R` (−1 when it holds none), so the box of
/// the first sides `l_0..l_{n−2}` allows `l_{n−1} = 1 + min radius` over the
/// prefixes of its difference box. Boxes only shrink the minimum as they
/// grow, so each side grows until the box no longer fits.
pub(crate) fn box_bound(points: &DifferencePoints, budget: &mut Budget) -> PolyResult<i64> {
    let n = points.rank;
    if n == 0 {
        return Ok(1);
    }
    let extent = points.extents();
    let mut lines: HashMap<Vec<i64>, BTreeSet<i64>> = HashMap::new();
    for x in &points.points {
        lines
            .entry(x[..n - 1].to_vec())
            .or_default()
            .insert(x[n - 1]);
    }
    let zero = vec![0i64; n - 1];
    // The origin's line holds 0 even when DS has no other point on it.
    lines.entry(zero.clone()).or_default();
    let radius: HashMap<Vec<i64>, i64> = lines
        .into_iter()
        .map(|(prefix, values)| {
            let origin = prefix == zero;
            let holds = |v: i64| (origin && v == 0) || values.contains(&v);
            let mut r = -1i64;
            while holds(r + 1) && holds(-(r + 1)) {
                r += 1;
            }
            (prefix, r)
        })
        .collect();
    let mut boxes = BoxSearch {
        radius: &radius,
        extent: &extent,
        best: 1,
        budget,
    };
    let mut l = vec![1i64; n - 1];
    boxes.side(&mut l, 0)?;
    Ok(boxes.best)
}

/// The enumeration of [`box_bound`] over the first `n − 1` sides.
struct BoxSearch<'a> {
    radius: &'a HashMap<Vec<i64>, i64>,
    extent: &'a [i64],
    best: i64,
    budget: &'a mut Budget,
}

impl BoxSearch<'_> {
    /// The smallest radius over the prefixes of the difference box of `l`
    /// (−1 when a prefix has no point at all).
    fn min_radius(&mut self, l: &[i64]) -> PolyResult<i64> {
        let m = l.len();
        let mut d: Vec<i64> = l.iter().map(|v| -(v - 1)).collect();
        let mut min = i64::MAX;
        loop {
            self.budget.tick()?;
            let r = self.radius.get(&d).copied().unwrap_or(-1);
            min = min.min(r);
            if min < 0 {
                return Ok(min);
            }
            let mut k = m;
            loop {
                if k == 0 {
                    return Ok(min);
                }
                k -= 1;
                if d[k] < l[k] - 1 {
                    d[k] += 1;
                    break;
                }
                d[k] = -(l[k] - 1);
            }
        }
    }

    /// Tries every fitting side `l_r` (the later sides still 1).
    fn side(&mut self, l: &mut Vec<i64>, r: usize) -> PolyResult<()> {
        if r == l.len() {
            let last = 1 + self.min_radius(l)?;
            let size = l.iter().try_fold(last, |acc, v| mul(acc, *v))?;
            self.best = self.best.max(size);
            return Ok(());
        }
        let mut v = 1i64;
        loop {
            l[r] = v;
            if self.min_radius(l)? < 0 {
                break;
            }
            self.side(l, r + 1)?;
            if v > self.extent[r] {
                break;
            }
            v += 1;
        }
        l[r] = 1;
        Ok(())
    }
}

/// Searches determinants `lower..upper` (upper exclusive: a lattice of
/// determinant `upper` is already known). Stops at the budget; then
/// `proven` is false.
pub(crate) fn optimal_lattice(
    points: &DifferencePoints,
    lower: i64,
    upper: i64,
    budget: &mut Budget,
) -> PolyResult<OptimalResult> {
    let n = points.rank;
    let clique_bound = match box_bound(points, budget) {
        Ok(b) => b,
        Err(PolyError::Budget) => 1,
        Err(e) => return Err(e),
    };
    let lower_bound = lower.max(clique_bound).max(1);
    // The longest coordinate goes last: its lines are the intervals of the
    // level checks and its offsets the interval sets of `allowed_last`.
    let extent = points.extents();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|r| extent[*r]);
    let reordered;
    let (points, perm) = if order.iter().enumerate().all(|(i, r)| i == *r) {
        (points, None)
    } else {
        let permute = |x: &Vec<i64>| order.iter().map(|r| x[*r]).collect::<Vec<i64>>();
        reordered = DifferencePoints {
            rank: n,
            points: points.points.iter().map(permute).collect(),
            lookup: points.points.iter().map(permute).collect(),
        };
        (&reordered, Some(order.as_slice()))
    };
    let levels = Levels::new(points);
    // DS holds no 0, so a mirror image is never 0 either.
    let mirror_symmetric = points.points.iter().all(|x| {
        let mut m = x.clone();
        if let Some(last) = m.last_mut() {
            *last = -*last;
        }
        points.contains(&m)
    });
    let mut result = OptimalResult {
        basis: None,
        mapping: None,
        size: None,
        lower_bound,
        clique_bound,
        proven: false,
    };
    if n == 0 {
        result.proven = true;
        return Ok(result);
    }
    let mut d = lower_bound;
    while d < upper {
        let mut search = Search {
            n,
            levels: &levels,
            cols: vec![vec![0i64; n]; n],
            diag: vec![0i64; n],
            best: None,
            max_found: 64,
            found: 0,
            budget,
            scratch: Scratch::default(),
            perm,
            offsets: vec![Vec::new(); n],
        };
        // Out of budget: what was found at this determinant (if anything)
        // is the answer.
        let out_of_budget = match search.level(n - 1, d, mirror_symmetric) {
            Ok(_) => false,
            Err(PolyError::Budget) => true,
            Err(e) => return Err(e),
        };
        if let Some((m, b)) = search.best.take() {
            result.mapping = Some(m);
            result.basis = Some(b);
            result.size = Some(d);
            result.proven = true;
            return Ok(result);
        }
        if out_of_budget {
            return Ok(result);
        }
        d += 1;
    }
    // Nothing below `upper`: the known lattice of determinant `upper` is
    // optimal.
    result.proven = true;
    Ok(result)
}

/// The result of [`block_search`]: a mapping and the coordinate order used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BlockResult {
    pub mapping: NumericMapping,
    /// Coordinates folded one by one (successive modulo), in order.
    pub outer: Vec<usize>,
    /// The two coordinates folded together by an optimal 2-D lattice.
    pub inner: [usize; 2],
}

/// Successive modulo on all coordinates but two, then the smallest
/// admissible 2-D lattice on the slice of DS where those coordinates are 0.
///
/// Valid by the successive-modulo argument: for a non-zero `d` in the
/// kernel, either its first non-zero outer coordinate `p` (after the earlier
/// outer ones are 0) has `0 < |d_p| < b_p` and `d_p ≡ 0 mod b_p` (absurd), or
/// every outer coordinate is 0 and the inner lattice meets that slice of DS
/// only in 0. Tried for every choice of the inner pair and every order of
/// the outer coordinates (rank >= 3 only; for rank 2 it is the full search).
pub(crate) fn block_search(
    points: &DifferencePoints,
    budget: &mut Budget,
) -> PolyResult<Option<BlockResult>> {
    let n = points.rank;
    if n < 3 {
        return Ok(None);
    }
    let mut best: Option<(i64, BlockResult)> = None;
    for perm in super::heuristics::permutations(n) {
        let outer: Vec<usize> = perm[..n - 2].to_vec();
        let inner = [perm[n - 2], perm[n - 1]];
        if inner[0] > inner[1] {
            // The inner lattice search covers both orders of the pair.
            continue;
        }
        // Successive moduli of the outer coordinates.
        let mut rows = Vec::new();
        let mut moduli = Vec::new();
        let mut size = 1i64;
        for (idx, &p) in outer.iter().enumerate() {
            let earlier = &outer[..idx];
            let mut max = 0i64;
            for x in &points.points {
                if earlier.iter().all(|&q| x[q] == 0) {
                    max = max.max(x[p].abs());
                }
            }
            let b = max + 1;
            let mut row = vec![0i64; n];
            row[p] = 1;
            rows.push(row);
            moduli.push(b);
            size = mul(size, b)?;
        }
        // The slice where every outer coordinate is 0, on the inner pair.
        let mut lookup = std::collections::HashSet::new();
        for x in &points.points {
            if outer.iter().all(|&q| x[q] == 0) {
                lookup.insert(vec![x[inner[0]], x[inner[1]]]);
            }
        }
        let mut slice_points: Vec<Vec<i64>> = lookup.iter().cloned().collect();
        slice_points.sort();
        let slice = DifferencePoints {
            rank: 2,
            points: slice_points,
            lookup,
        };
        let bound_left = match &best {
            Some((b, _)) => b / size + 1,
            None => i64::MAX,
        };
        // Upper bound for the inner search: successive modulo on the pair.
        let mut e0 = 0i64;
        let mut e1 = 0i64;
        for x in &slice.points {
            e0 = e0.max(x[0].abs());
            if x[0] == 0 {
                e1 = e1.max(x[1].abs());
            }
        }
        let inner_succ = mul(e0 + 1, e1 + 1)?;
        let upper = inner_succ.min(bound_left);
        let r = optimal_lattice(&slice, 1, upper, budget)?;
        let inner_mapping = match r.mapping {
            Some(m) => m,
            None if upper == inner_succ => NumericMapping {
                rows: vec![vec![1, 0], vec![0, 1]],
                moduli: vec![e0 + 1, e1 + 1],
            },
            None => continue,
        };
        let inner_size = inner_mapping.size()?;
        let total = mul(size, inner_size)?;
        if best.as_ref().is_some_and(|(b, _)| *b <= total) {
            continue;
        }
        for (r2, b2) in inner_mapping.rows.iter().zip(&inner_mapping.moduli) {
            let mut row = vec![0i64; n];
            row[inner[0]] = r2[0];
            row[inner[1]] = r2[1];
            rows.push(row);
            moduli.push(*b2);
        }
        let mut mapping = NumericMapping { rows, moduli };
        mapping.simplify();
        best = Some((
            total,
            BlockResult {
                mapping,
                outer,
                inner,
            },
        ));
    }
    Ok(best.map(|b| b.1))
}

#[cfg(test)]
mod divisor_tests {
    use super::*;

    #[test]
    fn divisors_match_trial_division_of_every_number() {
        for n in 1..=400i64 {
            let mut budget = Budget::steps(1_000);
            let got = divisors_of(n, &mut budget).unwrap();
            let want: Vec<i64> = (1..=n).filter(|d| n % d == 0).collect();
            assert_eq!(got, want, "divisors of {n}");
        }
        // The work is the square root, not the number.
        let mut budget = Budget::steps(1_001);
        assert_eq!(divisors_of(1_000_000, &mut budget).unwrap().len(), 49);
    }
}
