//! The iterations at which the merged path's text must be right, and the
//! facts about them the code generator asks: whether a row is
//! non-negative (or zero) at every one of them, whether a region holds
//! one of them, and which multiple of a modulus makes a subscript
//! non-negative.
//!
//! Two kinds: the points of a statement for the known parameter values
//! (enumerated; the output is pinned to those values), and the statement's
//! domain for every parameter value of the context (each question is an
//! exact integer emptiness test on the domain and one more constraint, so
//! its cost does not depend on the sizes). Every answer errs on the safe
//! side when a test runs out of budget: a row not known to hold is kept
//! in its condition, a region not known to be empty is kept.

use crate::mapping::modular::ParamAffine;
use crate::poly::basic::eval_row;
use crate::poly::enumerate::integer_points;
use crate::poly::simplex::integer_point;
use crate::poly::{BasicSet, Budget};
use crate::verify::Level;

/// The most multiples of a parametric modulus tried to make a subscript
/// non-negative for every value (`(i - t + 2 * (N + 1)) % (N + 1)`).
const MAX_SHIFT: i64 = 4;

/// The iterations of one statement (or part) the emitted text is for.
pub(super) enum Iterations {
    /// The points for the known parameter values, `[iterators]` each.
    Points {
        values: Vec<i64>,
        points: Vec<Vec<i64>>,
    },
    /// Every point of these pieces, over `[params | iterators]`, with the
    /// constraints of the context: every parameter value.
    Domain(Vec<BasicSet>),
}

/// `b` with the row `row` over `[params | dims | constant]` added (as an
/// equality or an inequality), the existential columns of `b` left at 0.
fn with_row(b: &BasicSet, row: &[i64], eq: bool) -> BasicSet {
    let mut q = b.clone();
    let mut r = q.zero_row();
    let n = row.len() - 1;
    r[..n].copy_from_slice(&row[..n]);
    let last = r.len() - 1;
    r[last] = row[n];
    if eq {
        q.add_eq(r);
    } else {
        q.add_ineq(r);
    }
    q
}

/// Whether `b` has an integer point; `None` when the test ran out of
/// budget.
fn nonempty(b: &BasicSet) -> Option<bool> {
    integer_point(b, &mut Budget::default_query())
        .ok()
        .map(|p| p.is_some())
}

/// `b` intersected with the region piece `r` (no existentials, same
/// `[params | dims]` space).
fn meet(b: &BasicSet, r: &BasicSet) -> BasicSet {
    let mut q = b.clone();
    for row in &r.eqs {
        q = with_row(&q, row, true);
    }
    for row in &r.ineqs {
        q = with_row(&q, row, false);
    }
    q
}

impl Iterations {
    /// The points of `pieces` (a statement's domain) for `values`.
    pub fn points(
        pieces: &[BasicSet],
        values: &[i64],
        budget: &mut Budget,
    ) -> crate::poly::PolyResult<Iterations> {
        let mut points = Vec::new();
        for piece in pieces {
            points.extend(integer_points(piece, values, budget)?);
        }
        points.sort();
        points.dedup();
        Ok(Iterations::Points {
            values: values.to_vec(),
            points,
        })
    }

    /// Every point of `pieces` for every parameter value of `context`.
    pub fn domain(pieces: &[BasicSet], context: &BasicSet) -> Iterations {
        Iterations::Domain(
            pieces
                .iter()
                .map(|p| {
                    let mut p = p.clone();
                    p.add_param_constraints(context);
                    p
                })
                .collect(),
        )
    }

    /// Over the domain, the iterations that lie in one of `region`'s
    /// pieces (without existentials; `None` over the points, and for a
    /// region with existentials).
    pub fn within(&self, region: &[BasicSet]) -> Option<Iterations> {
        let Iterations::Domain(pieces) = self else {
            return None;
        };
        if region.iter().any(|r| r.n_exist != 0) {
            return None;
        }
        Some(Iterations::Domain(
            pieces
                .iter()
                .flat_map(|p| region.iter().map(move |r| meet(p, r)))
                .collect(),
        ))
    }

    /// Whether there is no iteration (an unknown answer is "some").
    pub fn is_empty(&self) -> bool {
        match self {
            Iterations::Points { points, .. } => points.is_empty(),
            Iterations::Domain(pieces) => pieces.iter().all(|p| nonempty(p) == Some(false)),
        }
    }

    /// Whether `row` (over `[params | iterators | constant]`) is
    /// non-negative, or with `eq` zero, at every iteration (`false` when
    /// not proven).
    pub fn always(&self, row: &[i64], eq: bool) -> Result<bool, String> {
        match self {
            Iterations::Points { values, points } => {
                for it in points {
                    let mut p = values.clone();
                    p.extend_from_slice(it);
                    let v = eval_row(row, &p).map_err(|e| e.to_string())?;
                    if (eq && v != 0) || (!eq && v < 0) {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            Iterations::Domain(pieces) => {
                // row <= -1, and for an equality also row >= 1, has no point.
                let below: Vec<i64> = row
                    .iter()
                    .enumerate()
                    .map(|(k, c)| if k + 1 == row.len() { -c - 1 } else { -c })
                    .collect();
                let mut tests = vec![below];
                if eq {
                    let mut above = row.to_vec();
                    let last = above.len() - 1;
                    above[last] -= 1;
                    tests.push(above);
                }
                for p in pieces {
                    for t in &tests {
                        if nonempty(&with_row(p, t, false)) != Some(false) {
                            return Ok(false);
                        }
                    }
                }
                Ok(true)
            }
        }
    }

    /// Whether some iteration lies in the region piece `region` (without
    /// existentials; an unknown answer is "yes").
    pub fn meets(&self, region: &BasicSet) -> Result<bool, String> {
        if region.n_exist != 0 {
            return Err("a region with existential variables".into());
        }
        match self {
            Iterations::Points { values, points } => Ok(points.iter().any(|it| {
                let mut p = values.clone();
                p.extend_from_slice(it);
                super::solve::contains(std::slice::from_ref(region), &p).unwrap_or(true)
            })),
            Iterations::Domain(pieces) => Ok(pieces
                .iter()
                .any(|p| nonempty(&meet(p, region)) != Some(false))),
        }
    }

    /// The subscript of one level for the iterations: `(row + K) % m` with
    /// `K` a multiple of the modulus `m` making the argument non-negative;
    /// the bare row when it already lies in `[0, m)`; `0` when the modulus
    /// is 1 or there is no iteration. Over the points, `K` is a number for
    /// the known values; over the domain, a multiple of `m` (affine in the
    /// parameters) proven to suffice for every value.
    pub fn level(&self, row: &[i64], modulus: &ParamAffine) -> Result<Level, String> {
        let zero = Level::Row(vec![0; row.len()]);
        match self {
            Iterations::Points { values, points } => {
                let m = modulus.eval(values).map_err(|e| e.to_string())?;
                if points.is_empty() || m == 1 {
                    return Ok(zero);
                }
                let mut lo = i64::MAX;
                let mut hi = i64::MIN;
                for it in points {
                    let mut p = values.clone();
                    p.extend_from_slice(it);
                    let v = eval_row(row, &p).map_err(|e| e.to_string())?;
                    lo = lo.min(v);
                    hi = hi.max(v);
                }
                if lo >= 0 && hi < m {
                    return Ok(Level::Row(row.to_vec()));
                }
                let mut shifted = row.to_vec();
                if lo < 0 {
                    let k = (-lo + m - 1) / m;
                    let add = k.checked_mul(m).ok_or("overflow")?;
                    let last = shifted.len() - 1;
                    shifted[last] = shifted[last].checked_add(add).ok_or("overflow")?;
                }
                Ok(Level::Rem {
                    row: shifted,
                    modulus: modulus.clone(),
                })
            }
            Iterations::Domain(_) => {
                if modulus.coeffs.iter().all(|c| *c == 0) && modulus.constant == 1 {
                    return Ok(zero);
                }
                if self.is_empty() {
                    return Ok(zero);
                }
                // m - 1 - row >= 0 everywhere: the row lies below the modulus.
                let negated: Vec<i64> = row.iter().map(|c| -c).collect();
                let mut below_m = plus_multiple(&negated, 1, modulus)?;
                let last = below_m.len() - 1;
                below_m[last] = below_m[last].checked_sub(1).ok_or("overflow")?;
                if self.always(row, false)? && self.always(&below_m, false)? {
                    return Ok(Level::Row(row.to_vec()));
                }
                for k in 0..=MAX_SHIFT {
                    let shifted = plus_multiple(row, k, modulus)?;
                    if self.always(&shifted, false)? {
                        return Ok(Level::Rem {
                            row: shifted,
                            modulus: modulus.clone(),
                        });
                    }
                }
                Err(format!(
                    "no multiple of the modulus up to {MAX_SHIFT} makes a subscript non-negative for every value"
                ))
            }
        }
    }

    /// The pieces of a condition ("the point lies in one of `pieces`") to
    /// print for these iterations: those that hold at one of them at
    /// least, each without the constraints that hold at all of them, and
    /// one piece of their shared constraints where that describes their
    /// union at the iterations.
    pub(crate) fn emitted_region(&self, pieces: &[BasicSet]) -> Result<Vec<BasicSet>, String> {
        let mut out = Vec::new();
        for b in pieces {
            if !self.meets(b)? {
                continue;
            }
            let mut kept = b.clone();
            kept.eqs.clear();
            kept.ineqs.clear();
            for r in &b.eqs {
                if !self.always(r, true)? {
                    kept.eqs.push(r.clone());
                }
            }
            for r in &b.ineqs {
                if !self.always(r, false)? {
                    kept.ineqs.push(r.clone());
                }
            }
            out.push(kept);
        }
        self.coalesced(out)
    }
}

/// The most constraint choices [`Iterations::covered_by`] tries (one
/// negated constraint per piece).
const MAX_COVER_CHOICES: usize = 256;

impl Iterations {
    /// Whether every iteration in `candidate` lies in one of `pieces`
    /// (all without existentials; `false` when not proven).
    fn covered_by(&self, candidate: &BasicSet, pieces: &[BasicSet]) -> Result<bool, String> {
        match self {
            Iterations::Points { values, points } => {
                for it in points {
                    let mut p = values.clone();
                    p.extend_from_slice(it);
                    if super::solve::contains(std::slice::from_ref(candidate), &p)?
                        && !super::solve::contains(pieces, &p)?
                    {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            Iterations::Domain(domain) => {
                // candidate ∧ ¬piece_1 ∧ … ∧ ¬piece_k has no point: each
                // ¬piece is one of its constraints broken (an equality
                // broken either way).
                let negations: Vec<Vec<Vec<i64>>> = pieces
                    .iter()
                    .map(|b| {
                        let mut out = Vec::new();
                        for r in &b.ineqs {
                            out.push(negated(r));
                        }
                        for r in &b.eqs {
                            out.push(negated(r));
                            let mut up = r.clone();
                            let last = up.len() - 1;
                            up[last] -= 1;
                            out.push(up);
                        }
                        out
                    })
                    .collect();
                let choices = negations
                    .iter()
                    .try_fold(1usize, |acc, n| acc.checked_mul(n.len()));
                if choices.is_none_or(|c| c == 0 || c > MAX_COVER_CHOICES) {
                    return Ok(false);
                }
                let mut pick = vec![0usize; negations.len()];
                loop {
                    for d in domain {
                        let mut q = meet(d, candidate);
                        for (n, k) in negations.iter().zip(&pick) {
                            q = with_row(&q, &n[*k], false);
                        }
                        if nonempty(&q) != Some(false) {
                            return Ok(false);
                        }
                    }
                    // The next choice.
                    let mut i = 0;
                    loop {
                        if i == pick.len() {
                            return Ok(true);
                        }
                        pick[i] += 1;
                        if pick[i] < negations[i].len() {
                            break;
                        }
                        pick[i] = 0;
                        i += 1;
                    }
                }
            }
        }
    }

    /// `pieces` (the kept pieces of a condition, each holding at some
    /// iteration) as one piece when the constraints they all share
    /// describe their union at the iterations: `(i == 1 && t == 1) ||
    /// (i == 1 && t >= 2)` is `i == 1` where `t >= 1`.
    fn coalesced(&self, pieces: Vec<BasicSet>) -> Result<Vec<BasicSet>, String> {
        if pieces.len() < 2 {
            return Ok(pieces);
        }
        let mut common = pieces[0].clone();
        common
            .eqs
            .retain(|r| pieces[1..].iter().all(|b| b.eqs.contains(r)));
        common
            .ineqs
            .retain(|r| pieces[1..].iter().all(|b| b.ineqs.contains(r)));
        if self.covered_by(&common, &pieces)? {
            Ok(vec![common])
        } else {
            Ok(pieces)
        }
    }
}

/// `row + k·m` (the modulus `m` over the parameters, `row` over
/// `[params | iterators | constant]`).
fn plus_multiple(row: &[i64], k: i64, m: &ParamAffine) -> Result<Vec<i64>, String> {
    let mut out = row.to_vec();
    for (x, c) in out.iter_mut().zip(&m.coeffs) {
        *x = k
            .checked_mul(*c)
            .and_then(|v| x.checked_add(v))
            .ok_or("overflow")?;
    }
    let last = out.len() - 1;
    out[last] = k
        .checked_mul(m.constant)
        .and_then(|v| out[last].checked_add(v))
        .ok_or("overflow")?;
    Ok(out)
}

/// `row <= -1`, the negation of `row >= 0`.
fn negated(row: &[i64]) -> Vec<i64> {
    let mut r: Vec<i64> = row.iter().map(|c| -c).collect();
    let last = r.len() - 1;
    r[last] -= 1;
    r
}
