//! Shared storage hyperplanes for fixed parameter values: a fast search for
//! the mappings that the SMO ILP finds on stencil-like programs.
//!
//! The Farkas-linearised ILP of [`super::solve`] gets large on conflict sets
//! built from real SCoPs (a few hundred pieces), and the pure-Rust solver
//! does not finish it in seconds. The published SMO mappings of the
//! time-iterated stencils (seed 000 Table 1, Fig. 7(e)) have a special
//! shape: at every level all statements share the linear part `Γ` of their
//! hyperplane and differ only in their offsets `δ_j`, e.g.
//! `A[(i + 3 − 2k) mod (N + 2)][j mod N]` for the five steps of
//! jacobi-2d smoothing. "Share" is meant after an alignment of each
//! statement's local space given by the caller (the pipeline lines up the
//! written subscripts, so that `P[i]` at `(t, i)` and its initialisation at
//! `(i)` have the same cell coordinate).
//!
//! With the parameters fixed and `Γ` chosen, the conflicts between
//! statements `j` and `k` only need the integer range `[lo, hi]` of
//! `Γ·x − Γ·y` over them, and a level becomes a problem over the offsets
//! alone, difference constraints on `d = δ_j − δ_k`:
//! - bounding: `|g + d| <= E − 1` for every `g` of the range, so that the
//!   level's modulus `E` separates every pair with a non-zero difference;
//! - decision (as (4)/(7) of the paper): the pair is decided when
//!   `lo + d >= 1` or `hi + d <= −1`;
//! - [`front`] sweeps `E` upwards and decides pairs greedily while the
//!   constraints stay feasible (Bellman–Ford), giving one candidate level
//!   per trade-off point between the modulus and the decided pairs.
//!
//! The pieces keep only their conflicts with `f = 0` (the revision of
//! [`super::solve::revise`], exact) and the next level starts from those.
//! The search is a branch and bound over the levels that minimises the
//! product of the moduli. A level is ranked, and pruned, by its modulus
//! times the most values live at once that it maps to one class (they
//! conflict, so the later levels need at least that many cells: a lower
//! bound from the value lifetimes the caller gives). Passes of growing
//! width (a greedy dive first) share a cache of the nodes, and the search
//! stops when its work budget is spent (with the best mapping found), or
//! at once when the product meets the max-live bound.
//!
//! Ranges come from rational LP bounds (rounded inwards, which keeps every
//! integer point), so they can only be too wide: a level may get a larger
//! modulus than needed, never a smaller one. Nothing here is trusted: the
//! caller certifies the mapping exactly against the conflict set, as for the
//! ILP's mappings.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::time::Instant;

use crate::mapping::modular::ParamAffine;
use crate::poly::simplex::{LpResult, lp_max, lp_min};
use crate::poly::{BasicSet, PolyError, WorkLimit};

use super::input::{ConflictSpec, StmtId};
use super::solve::{
    ArrayMapping, Hyperplane, Piece, SmoSolution, difference_row, initial_pieces, is_fixed,
    nonempty, revise,
};

/// The coefficients of the linear parts with two non-zero entries (the
/// first positive): the window of a time-iterated stencil slides by one
/// cell per step, `i − t`. Larger skews multiply the candidates (and the
/// time of every node of the search) by seven.
const PAIR_COEFFICIENTS: [(i64, i64); 2] = [(1, 1), (1, -1)];

/// The passes of the search: per pass, how many of the ranked levels it
/// follows at depth 0, at depth 1 and deeper. Each pass starts from the
/// best product found so far (branch and bound), the first is a greedy
/// dive, the last is exhaustive; the search stops when its work budget is
/// spent with the best mapping found.
const PASSES: [[usize; 3]; 4] = [
    [1, 1, 1],
    [usize::MAX, 1, 1],
    [usize::MAX, 2, 1],
    [usize::MAX, usize::MAX, usize::MAX],
];

/// A level of a mapping: each statement's hyperplane, and the modulus.
type Level = (Vec<Hyperplane>, i64);

/// One level that can follow a node of the search.
struct NodeLevel {
    rank: i128,
    candidate: Candidate,
    remainder: Option<Rc<Vec<Piece>>>,
}

/// A level's hyperplanes and modulus before the revision.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Candidate {
    hyperplanes: Vec<Hyperplane>,
    modulus: i64,
}

struct Search<'a> {
    stmts: &'a [StmtId],
    /// Per statement of the run, the local dimension of each aligned one.
    align: Vec<Vec<usize>>,
    n_param: usize,
    n_dim: usize,
    limit: &'a WorkLimit,
    /// The total work (of `limit`) at which this search stops.
    work_limit: u64,
    max_levels: usize,
    /// The aligned dimensions on which some statement's cells vary.
    varying: Vec<usize>,
    /// The levels of the nodes visited, by path (each pass of the search
    /// starts again from the root).
    cache: RefCell<HashMap<Vec<Level>, Vec<NodeLevel>>>,
    /// The run's values: statement index in `stmts` and coordinates.
    live: Vec<(usize, Vec<i64>)>,
    /// Births and deaths of the values of `live` in time order (a death
    /// before a birth at the same time), as (time, is birth, value).
    events: Vec<(usize, bool, usize)>,
}

/// One value of a statement of the conflict set: its coordinates in the
/// global array space (statement number first) and the operations that
/// write it and read it last.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lifetime {
    pub stmt: StmtId,
    pub coords: Vec<i64>,
    pub birth: usize,
    pub death: usize,
}

/// The integer range of `row` over `poly` (None when unbounded or empty).
fn range(poly: &BasicSet, row: &[i64]) -> Result<Option<(i64, i64)>, PolyError> {
    let (LpResult::Optimal { value: lo, .. }, LpResult::Optimal { value: hi, .. }) =
        (lp_min(poly, row)?, lp_max(poly, row)?)
    else {
        return Ok(None);
    };
    Ok(Some((lo.ceil()?, hi.floor()?)))
}

impl Search<'_> {
    fn out_of_time(&self) -> bool {
        self.limit.spent(self.work_limit)
    }

    fn index(&self, s: StmtId) -> usize {
        self.stmts
            .iter()
            .position(|t| *t == s)
            .expect("statement of the run")
    }

    /// Statement `j`'s hyperplane for the aligned linear part `gamma`.
    fn hyperplane(&self, j: usize, gamma: &[i64], offset: i64) -> Hyperplane {
        let mut coeffs = vec![0; self.n_dim];
        for (a, c) in gamma.iter().enumerate() {
            coeffs[self.align[j][a]] += c;
        }
        Hyperplane { coeffs, offset }
    }

    /// The levels with the aligned linear part `gamma`: one per point of the
    /// trade-off between the modulus and the number of decided statement
    /// pairs that [`front`] finds, those that make progress.
    fn offsets(&self, pieces: &[Piece], gamma: &[i64]) -> Result<Vec<Candidate>, PolyError> {
        let n = self.stmts.len();
        let linear: Vec<Hyperplane> = (0..n).map(|j| self.hyperplane(j, gamma, 0)).collect();
        self.limit.charge(pieces.len() as u64);
        // (source index, target index, lo, hi) per piece.
        let mut ranges = Vec::with_capacity(pieces.len());
        for p in pieces {
            let (j, k) = (self.index(p.source), self.index(p.target));
            let g = difference_row(&p.poly, self.n_param, self.n_dim, &linear[j], &linear[k]);
            let Some((lo, hi)) = range(&p.poly, &g)? else {
                return Ok(Vec::new());
            };
            if lo <= hi {
                ranges.push((j, k, lo, hi));
            }
        }
        // Only the union of a statement pair's ranges matters for the
        // bounds; a pair is decided when its union is. Oriented j < k:
        // the piece (k, j) has f = −(−g + δj − δk).
        let mut pairs: Vec<Pair> = Vec::new();
        let mut e_min = 1;
        for &(j, k, lo, hi) in &ranges {
            if j == k {
                e_min = e_min.max(lo.abs().max(hi.abs()) + 1);
                continue;
            }
            let (j, k, lo, hi) = if j < k {
                (j, k, lo, hi)
            } else {
                (k, j, -hi, -lo)
            };
            match pairs.iter_mut().find(|p| p.j == j && p.k == k) {
                Some(p) => (p.lo, p.hi) = (p.lo.min(lo), p.hi.max(hi)),
                None => pairs.push(Pair { j, k, lo, hi }),
            }
        }
        let mut out = Vec::new();
        for offsets in front(n, &pairs, e_min) {
            let hyperplanes: Vec<Hyperplane> = (0..n)
                .map(|j| self.hyperplane(j, gamma, offsets[j]))
                .collect();
            let mut modulus = e_min;
            for p in &pairs {
                let d = offsets[p.j] - offsets[p.k];
                modulus = modulus.max((p.lo + d).abs().max((p.hi + d).abs()) + 1);
            }
            // Progress: some conflict is separated (a piece loses points).
            let progress = ranges
                .iter()
                .any(|&(j, k, lo, hi)| lo < hi || lo + offsets[j] - offsets[k] != 0);
            let c = Candidate {
                hyperplanes,
                modulus,
            };
            if progress && !out.contains(&c) {
                out.push(c);
            }
        }
        if log::log_enabled!(target: "smo", log::Level::Debug) {
            let moduli: Vec<i64> = out.iter().map(|c| c.modulus).collect();
            log::debug!(target: "smo",
                "  shared level {gamma:?}: {} pieces, {} pairs, moduli {moduli:?}",
                ranges.len(),
                pairs.len()
            );
        }
        Ok(out)
    }

    /// The most values live at once that `path`'s levels map to the same
    /// cells (at least 1). They conflict with each other, so the levels
    /// after `path` need at least that many cells.
    fn class_bound(&self, path: &[(Vec<Hyperplane>, i64)]) -> i64 {
        let cells = path
            .iter()
            .try_fold(1i128, |acc, (_, e)| acc.checked_mul(i128::from(*e)));
        if cells.is_none_or(|c| c > 1i128 << 100) {
            // Keys would not fit: no bound.
            return 1;
        }
        let keys: Vec<i128> = self
            .live
            .iter()
            .map(|(j, x)| {
                let mut key: i128 = 0;
                for (hs, e) in path {
                    let h = &hs[*j];
                    let v: i64 = h.coeffs.iter().zip(x).map(|(c, x)| c * x).sum::<i64>() + h.offset;
                    key = key * i128::from(*e) + i128::from(v.rem_euclid(*e));
                }
                key
            })
            .collect();
        let mut count: std::collections::HashMap<i128, i64> = std::collections::HashMap::new();
        let mut best = 1;
        for &(_, birth, v) in &self.events {
            let c = count.entry(keys[v]).or_insert(0);
            if birth {
                *c += 1;
                best = best.max(*c);
            } else {
                *c -= 1;
            }
        }
        best
    }

    /// The candidate aligned linear parts over the aligned dimensions that
    /// vary for some statement: each unit vector, then each pair of
    /// dimensions with [`PAIR_COEFFICIENTS`] (the first non-zero
    /// coefficient positive: −Γ separates the same pairs as Γ). A dimension fixed for every statement (such as
    /// the statement number) would only do what the offsets do.
    fn gammas(&self) -> Vec<Vec<i64>> {
        let mut out = Vec::new();
        let dims = &self.varying;
        for &a in dims {
            let mut g = vec![0; self.n_dim];
            g[a] = 1;
            out.push(g);
        }
        for (i, &a) in dims.iter().enumerate() {
            for &b in &dims[i + 1..] {
                for (ca, cb) in PAIR_COEFFICIENTS {
                    let mut g = vec![0; self.n_dim];
                    g[a] = ca;
                    g[b] = cb;
                    out.push(g);
                }
            }
        }
        out
    }

    /// The levels that can follow `path` on its conflicts `pieces`, ranked
    /// by their modulus times the most values that stay live together in
    /// one of their classes (which the later levels must tell apart: a
    /// lower bound of the rest), best first; the remainders are computed
    /// when first needed.
    fn node(&self, pieces: &[Piece], path: &mut Vec<Level>) -> Result<Vec<NodeLevel>, PolyError> {
        let mut cands: Vec<Candidate> = Vec::new();
        for gamma in self.gammas() {
            if self.out_of_time() {
                break;
            }
            for c in self.offsets(pieces, &gamma)? {
                if !cands.contains(&c) {
                    cands.push(c);
                }
            }
        }
        let mut levels = Vec::with_capacity(cands.len());
        for c in cands {
            path.push((c.hyperplanes.clone(), c.modulus));
            let rest = i128::from(self.class_bound(path));
            path.pop();
            levels.push(NodeLevel {
                rank: i128::from(c.modulus).saturating_mul(rest),
                candidate: c,
                remainder: None,
            });
        }
        levels.sort_by_key(|l| (l.rank, l.candidate.modulus));
        Ok(levels)
    }

    /// The conflicts left after the `i`-th level of the node at `path`.
    fn remainder(
        &self,
        pieces: &[Piece],
        path: &[Level],
        i: usize,
    ) -> Result<Rc<Vec<Piece>>, PolyError> {
        if let Some(r) = self.cache.borrow()[path][i].remainder.clone() {
            return Ok(r);
        }
        let c = self.cache.borrow()[path][i].candidate.clone();
        self.limit.charge(pieces.len() as u64);
        let r = Rc::new(revise(
            pieces,
            self.stmts,
            &c.hyperplanes,
            &ParamAffine::constant(self.n_param, c.modulus),
            self.n_param,
            self.n_dim,
        )?);
        if let Some(node) = self.cache.borrow_mut().get_mut(path) {
            node[i].remainder = Some(r.clone());
        }
        Ok(r)
    }

    /// The smallest product of moduli found for `pieces` (below `bound`),
    /// with its levels.
    fn search(
        &self,
        pieces: &[Piece],
        depth: usize,
        bound: i128,
        widths: &[usize; 3],
        path: &mut Vec<Level>,
    ) -> Result<Option<(i128, Vec<Level>)>, PolyError> {
        if pieces.is_empty() {
            return Ok(Some((1, Vec::new())));
        }
        if depth >= self.max_levels || bound <= 1 || self.out_of_time() {
            return Ok(None);
        }
        let node_started = Instant::now();
        if !self.cache.borrow().contains_key(path.as_slice()) {
            let levels = self.node(pieces, path)?;
            if log::log_enabled!(target: "smo", log::Level::Debug) {
                log::debug!(target: "smo",
                    "  shared node depth {depth}: {} pieces, {} levels, best rank {:?} ({:.3} s)",
                    pieces.len(),
                    levels.len(),
                    levels.first().map(|l| (l.rank, l.candidate.modulus)),
                    node_started.elapsed().as_secs_f64()
                );
            }
            self.cache.borrow_mut().insert(path.clone(), levels);
        }
        let branching = widths[depth.min(2)];
        let mut best: Option<(i128, Vec<Level>)> = None;
        let mut bound = bound;
        for i in 0..branching {
            let Some((rank, c)) = self
                .cache
                .borrow()
                .get(path.as_slice())
                .and_then(|l| l.get(i))
                .map(|l| (l.rank, l.candidate.clone()))
            else {
                break;
            };
            // Ranks only grow along the list.
            if rank >= bound || self.out_of_time() {
                break;
            }
            let e = i128::from(c.modulus);
            let remainder = self.remainder(pieces, path, i)?;
            // The rest must stay below bound / e.
            let rest_bound = bound / e + i128::from(bound % e != 0);
            path.push((c.hyperplanes.clone(), c.modulus));
            let found = self.search(&remainder, depth + 1, rest_bound, widths, path)?;
            path.pop();
            if let Some((p, mut rest)) = found {
                let total = e * p;
                if total < bound {
                    rest.insert(0, (c.hyperplanes, c.modulus));
                    bound = total;
                    best = Some((total, rest));
                }
            }
        }
        Ok(best)
    }
}

/// The mapping of `stmts` (one array) with shared hyperplanes.
fn shared_mapping(
    spec: &ConflictSpec,
    stmts: &[StmtId],
    align: &[Vec<usize>],
    values: &[i64],
    lifetimes: &[Lifetime],
    limit: &WorkLimit,
    work_limit: u64,
) -> Result<Result<ArrayMapping, String>, PolyError> {
    let n_param = spec.params.len();
    let mut pieces = Vec::new();
    for mut p in initial_pieces(spec, stmts)? {
        for (q, v) in values.iter().enumerate() {
            let mut row = p.poly.zero_row();
            row[q] = 1;
            let last = row.len() - 1;
            row[last] = -v;
            p.poly.add_eq(row);
        }
        if nonempty(&p.poly)? {
            pieces.push(p);
        }
    }
    let mut search = Search {
        stmts,
        align: stmts.iter().map(|s| align[s.0].clone()).collect(),
        n_param,
        n_dim: spec.n_dim,
        limit,
        work_limit,
        // Each level should take one dimension of the conflicts away.
        max_levels: spec.n_dim + 1,
        live: Vec::new(),
        events: Vec::new(),
        varying: Vec::new(),
        cache: RefCell::new(HashMap::new()),
    };
    // Local dimensions that vary for a statement in some piece.
    let mut varies = vec![vec![false; spec.n_dim]; stmts.len()];
    for p in &pieces {
        for (side, stmt) in [(0, p.source), (spec.n_dim, p.target)] {
            let j = search.index(stmt);
            for (d, v) in varies[j].iter_mut().enumerate() {
                if !*v && !is_fixed(&p.poly, n_param + side + d)? {
                    *v = true;
                }
            }
        }
    }
    search.varying = (0..spec.n_dim)
        .filter(|a| (0..stmts.len()).any(|j| varies[j][search.align[j][*a]]))
        .collect();
    for l in lifetimes {
        if let Some(j) = stmts.iter().position(|s| *s == l.stmt) {
            let v = search.live.len();
            search.live.push((j, l.coords.clone()));
            search.events.push((l.birth, true, v));
            search.events.push((l.death, false, v));
        }
    }
    search.events.sort();
    let mut found: Option<(i128, Vec<Level>)> = None;
    for widths in &PASSES {
        if search.out_of_time() {
            break;
        }
        let bound = found.as_ref().map_or(i128::MAX, |f| f.0);
        if bound <= i128::from(search.class_bound(&[])) {
            // As few cells as values live at once: optimal.
            break;
        }
        if let Some(f) = search.search(&pieces, 0, bound, widths, &mut Vec::new())? {
            found = Some(f);
        }
    }
    let Some((_, levels)) = found else {
        return Ok(Err(if search.out_of_time() {
            "the work budget of the shared-hyperplane search is spent".into()
        } else {
            "no shared hyperplanes separate the conflicts".into()
        }));
    };
    if log::log_enabled!(target: "smo", log::Level::Debug) {
        log::debug!(target: "smo", "shared mapping of {stmts:?}: {levels:?}");
    }
    let mut mapping = ArrayMapping::without_levels(stmts);
    for (hyperplanes, modulus) in levels {
        let e = ParamAffine::constant(n_param, modulus);
        mapping.stmt_moduli.push(vec![e.clone(); stmts.len()]);
        mapping.intra_moduli.push(vec![e.clone(); stmts.len()]);
        mapping.levels.push(hyperplanes);
        mapping.moduli.push(e);
    }
    Ok(Ok(mapping))
}

/// Shared hyperplanes for the parameter values `values`: the statements of
/// `isolated` each in an array of their own, the others in one array.
pub fn shared_solve_isolating(
    spec: &ConflictSpec,
    isolated: &[StmtId],
    align: &[Vec<usize>],
    values: &[i64],
    lifetimes: &[Lifetime],
    limit: &WorkLimit,
) -> Result<Result<SmoSolution, String>, PolyError> {
    if values.len() != spec.params.len() {
        return Ok(Err("one value per parameter is needed".into()));
    }
    let good = |a: &Vec<usize>| {
        let mut seen = vec![false; spec.n_dim];
        a.len() == spec.n_dim
            && a.first() == Some(&0)
            && a.iter()
                .all(|d| *d < spec.n_dim && !std::mem::replace(&mut seen[*d], true))
    };
    if align.len() != spec.n_statements || !align.iter().all(good) {
        return Ok(Err(
            "the alignment is not one permutation per statement".into()
        ));
    }
    let rest: Vec<StmtId> = (0..spec.n_statements)
        .map(StmtId)
        .filter(|s| !isolated.contains(s))
        .collect();
    // The statements apart first (small problems), the others last with
    // all the time left.
    let mut groups: Vec<Vec<StmtId>> = isolated.iter().map(|s| vec![*s]).collect();
    if !rest.is_empty() {
        groups.push(rest.clone());
    }
    let mut arrays = Vec::new();
    let mut levels = 0;
    let n_groups = groups.len();
    for (gi, g) in groups.into_iter().enumerate() {
        // Each group gets an equal share of the work left (and leaves what
        // it does not use to the next).
        let left = limit.left();
        let share = left / u64::try_from(n_groups - gi).unwrap_or(u64::MAX);
        let work_limit = limit.used().saturating_add(share);
        match shared_mapping(spec, &g, align, values, lifetimes, limit, work_limit)? {
            Ok(m) => {
                levels += m.levels.len();
                arrays.push(m);
            }
            Err(why) => return Ok(Err(why)),
        }
    }
    // The shared array first, as the ILP path orders them.
    if !rest.is_empty() {
        arrays.rotate_right(1);
    }
    Ok(Ok(SmoSolution {
        arrays,
        n_levels_solved: levels,
    }))
}

/// The range `[lo, hi]` of `Γ·x − Γ·y` over the conflicts between the
/// statements `j < k` (all their pieces, both orientations).
#[derive(Clone, Copy, Debug)]
struct Pair {
    j: usize,
    k: usize,
    lo: i64,
    hi: i64,
}

/// A solution of the difference constraints `δ_v − δ_u <= w` for each
/// `(u, v, w)` (Bellman–Ford from a virtual source), or None when a
/// negative cycle makes them infeasible.
fn potentials(n: usize, cons: &[(usize, usize, i64)]) -> Option<Vec<i64>> {
    let mut dist = vec![0i64; n];
    for round in 0..=n {
        let mut changed = false;
        for &(u, v, w) in cons {
            let via = dist[u].checked_add(w)?;
            if via < dist[v] {
                dist[v] = via;
                changed = true;
            }
        }
        if !changed {
            let base = dist.first().copied().unwrap_or(0);
            return Some(dist.iter().map(|d| d - base).collect());
        }
        if round == n {
            return None;
        }
    }
    None
}

/// Offsets trading the level's modulus against the number of decided
/// pairs: for each modulus `E` from `e_min` on, every pair's difference
/// `d = δj − δk` must keep `|g + d| <= E − 1` over its range, and pairs are
/// decided greedily (narrowest range first, `g + d >= 1` tried before
/// `g + d <= −1`) while the difference constraints stay feasible; pairs
/// left undecided get `d = 0` where possible (a statement's parts, such as
/// a stencil's boundary and interior, then share their cells' layout).
/// Returns one offset vector per modulus at which the number of decided
/// pairs grows, the first (fewest decided) included.
fn front(n: usize, pairs: &[Pair], e_min: i64) -> Vec<Vec<i64>> {
    let mut order: Vec<usize> = (0..pairs.len()).collect();
    order.sort_by_key(|i| pairs[*i].hi - pairs[*i].lo);
    let widest = pairs.iter().map(|p| p.hi - p.lo).max().unwrap_or(0);
    // Past this modulus every pair can be decided alone, one after the
    // other in a chain of offsets.
    let e_max = e_min
        .max(widest / 2 + 2)
        .saturating_add((widest + 2).saturating_mul(pairs.len() as i64 + 1));
    let mut out = Vec::new();
    let mut best_decided: Option<usize> = None;
    let mut e = e_min;
    let mut steps = 0;
    while e <= e_max && steps < 4096 {
        steps += 1;
        let mut cons: Vec<(usize, usize, i64)> = Vec::new();
        for p in pairs {
            // −(E−1) − lo <= δj − δk <= (E−1) − hi.
            cons.push((p.k, p.j, (e - 1) - p.hi));
            cons.push((p.j, p.k, (e - 1) + p.lo));
        }
        if potentials(n, &cons).is_none() {
            e += 1;
            continue;
        }
        let mut decided = 0;
        let mut undecided = Vec::new();
        for &i in &order {
            let p = pairs[i];
            // d >= 1 − lo, i.e. δk − δj <= lo − 1; or d <= −1 − hi.
            let plus = (p.j, p.k, p.lo - 1);
            let minus = (p.k, p.j, -1 - p.hi);
            let mut done = false;
            for c in [plus, minus] {
                cons.push(c);
                if potentials(n, &cons).is_some() {
                    done = true;
                    break;
                }
                cons.pop();
            }
            if done {
                decided += 1;
            } else {
                undecided.push(p);
            }
        }
        for p in undecided {
            cons.push((p.j, p.k, 0));
            cons.push((p.k, p.j, 0));
            if potentials(n, &cons).is_none() {
                cons.pop();
                cons.pop();
            }
        }
        if best_decided.is_none_or(|b| decided > b) {
            best_decided = Some(decided);
            if let Some(d) = potentials(n, &cons) {
                out.push(d);
            }
            if decided == pairs.len() {
                break;
            }
        }
        e += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator for the random cases.
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self, lo: i64, hi: i64) -> i64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            lo + ((self.0 >> 33) % (hi - lo + 1) as u64) as i64
        }
    }

    /// Calls `f` on every vector of `n` values in `[lo, hi]` with the
    /// first one 0 (offsets are relative), until it returns false.
    fn each_vector(n: usize, lo: i64, hi: i64, mut f: impl FnMut(&[i64]) -> bool) {
        let mut v = vec![lo; n];
        v[0] = 0;
        loop {
            if !f(&v) {
                return;
            }
            let mut d = 1;
            while d < n && v[d] == hi {
                v[d] = lo;
                d += 1;
            }
            if d == n {
                return;
            }
            v[d] += 1;
        }
    }

    fn holds(cons: &[(usize, usize, i64)], v: &[i64]) -> bool {
        cons.iter().all(|&(u, w, c)| v[w] - v[u] <= c)
    }

    /// Bellman–Ford agrees with enumeration on random difference systems
    /// (a feasible system of 3 or 4 variables with weights in [−3, 3] has
    /// a solution within [−9, 9] relative to the first), and its
    /// solutions satisfy the constraints.
    #[test]
    fn potentials_agree_with_enumeration() {
        let mut rng = Lcg(11);
        let (mut feasible, mut infeasible) = (0, 0);
        for _ in 0..400 {
            let n = rng.next(3, 4) as usize;
            let m = rng.next(2, 7) as usize;
            let cons: Vec<(usize, usize, i64)> = (0..m)
                .map(|_| {
                    let u = rng.next(0, n as i64 - 1) as usize;
                    let w = rng.next(0, n as i64 - 1) as usize;
                    (u, w, rng.next(-3, 3))
                })
                .collect();
            let mut brute = false;
            each_vector(n, -9, 9, |v| {
                brute = holds(&cons, v);
                !brute
            });
            match potentials(n, &cons) {
                Some(v) => {
                    assert!(holds(&cons, &v), "{cons:?}: {v:?}");
                    assert!(brute, "{cons:?}");
                    feasible += 1;
                }
                None => {
                    assert!(!brute, "{cons:?}");
                    infeasible += 1;
                }
            }
        }
        assert!(feasible > 50 && infeasible > 50, "{feasible} {infeasible}");
    }

    /// The modulus a vector of offsets needs for `pairs` (as the search
    /// computes it from the ranges).
    fn modulus(pairs: &[Pair], e_min: i64, v: &[i64]) -> i64 {
        let mut e = e_min;
        for p in pairs {
            let d = v[p.j] - v[p.k];
            e = e.max((p.lo + d).abs().max((p.hi + d).abs()) + 1);
        }
        e
    }

    fn decided(pairs: &[Pair], v: &[i64]) -> usize {
        pairs
            .iter()
            .filter(|p| {
                let d = v[p.j] - v[p.k];
                p.lo + d >= 1 || p.hi + d <= -1
            })
            .count()
    }

    /// The trade-off front on random pair sets: its first point needs the
    /// smallest modulus of all offsets (enumerated), the decided pairs
    /// (recounted from the offsets) grow strictly along it, and its last
    /// point decides every pair (with all pairs `j < k` decided with
    /// `d >= 1 − lo` the constraints form no cycle, so some modulus
    /// allows it).
    #[test]
    fn the_front_starts_at_the_smallest_modulus() {
        let mut rng = Lcg(5);
        for _ in 0..150 {
            let n = rng.next(2, 4) as usize;
            let mut pairs = Vec::new();
            for j in 0..n {
                for k in j + 1..n {
                    if rng.next(0, 2) > 0 {
                        let lo = rng.next(-4, 3);
                        pairs.push(Pair {
                            j,
                            k,
                            lo,
                            hi: lo + rng.next(0, 4),
                        });
                    }
                }
            }
            let e_min = rng.next(1, 4);
            let front = front(n, &pairs, e_min);
            assert!(!front.is_empty(), "{pairs:?}");
            let mut best = i64::MAX;
            each_vector(n, -12, 12, |v| {
                best = best.min(modulus(&pairs, e_min, v));
                true
            });
            assert_eq!(modulus(&pairs, e_min, &front[0]), best, "{pairs:?}");
            for w in front.windows(2) {
                assert!(decided(&pairs, &w[1]) > decided(&pairs, &w[0]), "{pairs:?}");
                assert!(modulus(&pairs, e_min, &w[1]) >= modulus(&pairs, e_min, &w[0]));
            }
            let last = front.last().expect("non-empty");
            assert_eq!(decided(&pairs, last), pairs.len(), "{pairs:?}");
        }
    }
}
