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

use crate::poly::error::{PolyResult, mul};
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

/// Points of DS grouped by their first non-zero coordinate `k` (only those
/// with `x_k > 0`): `by_level[k]` holds `(x_k, x_{k+1..})`.
struct Levels {
    by_level: Vec<Vec<(i64, Vec<i64>)>>,
}

impl Levels {
    fn new(points: &DifferencePoints) -> Levels {
        let n = points.rank;
        let mut by_level: Vec<Vec<(i64, Vec<i64>)>> = vec![Vec::new(); n];
        for x in &points.points {
            if let Some(k) = x.iter().position(|v| *v != 0)
                && x[k] > 0
            {
                by_level[k].push((x[k], x[k + 1..].to_vec()));
            }
        }
        Levels { by_level }
    }
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
}

impl Search<'_> {
    /// Whether `y` (coordinates `k+1..n` of a vector) lies in the lattice
    /// spanned by `v_{k+1}..v_{n−1}` (lower triangular: reduce in order).
    fn in_sublattice(&self, k: usize, y: &mut [i64]) -> PolyResult<bool> {
        for r in k + 1..self.n {
            let v = y[r - k - 1];
            let h = self.diag[r];
            if v % h != 0 {
                return Ok(false);
            }
            let q = v / h;
            if q != 0 {
                for s in r..self.n {
                    y[s - k - 1] = y[s - k - 1]
                        .checked_sub(q.checked_mul(self.cols[r][s]).ok_or(PolyError::Overflow)?)
                        .ok_or(PolyError::Overflow)?;
                }
            }
        }
        Ok(true)
    }

    /// Whether the level-k choice admits no point of DS (see module docs).
    fn level_ok(&mut self, k: usize) -> PolyResult<bool> {
        let h = self.diag[k];
        let levels = self.levels;
        let mut y: Vec<i64> = vec![0; self.n - k - 1];
        for (xk, rest) in &levels.by_level[k] {
            if xk % h != 0 {
                continue;
            }
            self.budget.tick()?;
            let t = xk / h;
            for (s, slot) in y.iter_mut().enumerate() {
                let off = self.cols[k][k + 1 + s];
                *slot = rest[s]
                    .checked_sub(t.checked_mul(off).ok_or(PolyError::Overflow)?)
                    .ok_or(PolyError::Overflow)?;
            }
            if self.in_sublattice(k, &mut y)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Enumerates levels `k, k−1, …, 0` with `remaining` the product of the
    /// diagonal entries still to choose. Returns `true` to stop.
    fn level(&mut self, k: usize, remaining: i64) -> PolyResult<bool> {
        let divisors: Vec<i64> = if k == 0 {
            vec![remaining]
        } else {
            (1..=remaining).filter(|d| remaining % d == 0).collect()
        };
        for h in divisors {
            self.diag[k] = h;
            let mut col = vec![0i64; self.n];
            col[k] = h;
            // Offsets v_k[r] ∈ [0, h_r) for r > k, odometer order.
            loop {
                self.cols[k] = col.clone();
                if self.level_ok(k)? {
                    if k == 0 {
                        let basis: Vec<Vec<i64>> = self.cols.clone();
                        let m = mapping_from_basis(&basis)?;
                        let better = self
                            .best
                            .as_ref()
                            .is_none_or(|(b, _)| m.complexity() < b.complexity());
                        if better {
                            self.best = Some((m, basis));
                        }
                        self.found += 1;
                        if self.found >= self.max_found {
                            return Ok(true);
                        }
                    } else if self.level(k - 1, remaining / h)? {
                        return Ok(true);
                    }
                }
                // Next offset (odometer over r = k+1..n, v_k[r] ∈ [0, h_r)).
                let mut advanced = false;
                let mut r = self.n;
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

/// The clique bound: the largest `Π l_r` over boxes `Π [0, l_r)` whose
/// difference box `Π [−(l_r − 1), l_r − 1]` lies in DS ∪ {0}.
pub fn box_bound(points: &DifferencePoints, budget: &mut Budget) -> PolyResult<i64> {
    let n = points.rank;
    let mut extent = vec![0i64; n];
    for x in &points.points {
        for (r, v) in x.iter().enumerate() {
            extent[r] = extent[r].max(v.abs());
        }
    }
    let mut best = 1i64;
    let mut l = vec![1i64; n];
    box_rec(points, &extent, &mut l, 0, &mut best, budget)?;
    Ok(best)
}

fn box_inside(points: &DifferencePoints, l: &[i64], budget: &mut Budget) -> PolyResult<bool> {
    let n = l.len();
    let mut d: Vec<i64> = l.iter().map(|v| -(v - 1)).collect();
    loop {
        budget.tick()?;
        if d.iter().any(|v| *v != 0) && !points.contains(&d) {
            return Ok(false);
        }
        let mut r = n;
        loop {
            if r == 0 {
                return Ok(true);
            }
            r -= 1;
            if d[r] < l[r] - 1 {
                d[r] += 1;
                break;
            }
            d[r] = -(l[r] - 1);
        }
    }
}

fn box_rec(
    points: &DifferencePoints,
    extent: &[i64],
    l: &mut Vec<i64>,
    r: usize,
    best: &mut i64,
    budget: &mut Budget,
) -> PolyResult<()> {
    let n = l.len();
    if r == n {
        let size = l.iter().try_fold(1i64, |acc, v| mul(acc, *v))?;
        *best = (*best).max(size);
        return Ok(());
    }
    // Largest l_r first would be greedy; try every l_r that fits.
    let mut v = 1i64;
    loop {
        l[r] = v;
        if !box_inside(
            points,
            &l[..=r]
                .iter()
                .copied()
                .chain(std::iter::repeat_n(1, n - r - 1))
                .collect::<Vec<_>>(),
            budget,
        )? {
            break;
        }
        box_rec(points, extent, l, r + 1, best, budget)?;
        if v > extent[r] {
            break;
        }
        v += 1;
    }
    l[r] = 1;
    Ok(())
}

/// Searches determinants `lower..upper` (upper exclusive: a lattice of
/// determinant `upper` is already known). Stops at the budget; then
/// `proven` is false.
pub fn optimal_lattice(
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
    let levels = Levels::new(points);
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
        };
        match search.level(n - 1, d) {
            Ok(_) => {}
            Err(PolyError::Budget) => {
                if let Some((m, b)) = search.best.take() {
                    result.mapping = Some(m);
                    result.basis = Some(b);
                    result.size = Some(d);
                    result.proven = true;
                }
                return Ok(result);
            }
            Err(e) => return Err(e),
        }
        if let Some((m, b)) = search.best.take() {
            result.mapping = Some(m);
            result.basis = Some(b);
            result.size = Some(d);
            result.proven = true;
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
pub struct BlockResult {
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
pub fn block_search(
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
