//! Brute-force enumeration of small sets, the independent oracle of the
//! property tests.
//!
//! Everything here is deliberately naive: points of a box are enumerated one
//! by one and each constraint row is evaluated in `i128`. Membership of a
//! polyhedron with existentials tries every value of the existentials in a
//! (wider) box, so it is only correct when the witnesses lie in that box —
//! tests choose boxes for which that holds. This module is not used by the
//! library itself.

use super::basic::BasicSet;
use super::set::Set;

/// The box `[lo, hi]^n` of variable values and the box `[exist_lo,
/// exist_hi]` tried for every existential.
#[derive(Clone, Copy, Debug)]
pub struct BruteBox {
    pub lo: i64,
    pub hi: i64,
    pub exist_lo: i64,
    pub exist_hi: i64,
}

impl BruteBox {
    pub fn new(lo: i64, hi: i64, exist_lo: i64, exist_hi: i64) -> BruteBox {
        BruteBox {
            lo,
            hi,
            exist_lo,
            exist_hi,
        }
    }
}

/// Value of `row` at the full point `values` (all columns but the constant).
pub(crate) fn eval_full(row: &[i64], values: &[i64]) -> i128 {
    let n = row.len() - 1;
    let mut acc = row[n] as i128;
    for i in 0..n {
        acc += row[i] as i128 * values[i] as i128;
    }
    acc
}

/// Whether every row holds at the full point `values`.
pub fn satisfies(b: &BasicSet, values: &[i64]) -> bool {
    b.eqs.iter().all(|r| eval_full(r, values) == 0)
        && b.ineqs.iter().all(|r| eval_full(r, values) >= 0)
}

/// Calls `f` on every point of `[lo, hi]^n`, in lexicographic order; stops
/// early when `f` returns `false`. Returns whether it ran to the end.
pub fn for_each_point(n: usize, lo: i64, hi: i64, mut f: impl FnMut(&[i64]) -> bool) -> bool {
    if lo > hi {
        return true;
    }
    let mut p = vec![lo; n];
    loop {
        if !f(&p) {
            return false;
        }
        let mut i = n;
        loop {
            if i == 0 {
                return true;
            }
            i -= 1;
            if p[i] < hi {
                p[i] += 1;
                for q in p.iter_mut().skip(i + 1) {
                    *q = lo;
                }
                break;
            }
        }
    }
}

/// Whether `point` (params, domain and range values) belongs to `b`,
/// trying the existentials in the box of `bx`.
pub fn basic_contains(b: &BasicSet, point: &[i64], bx: &BruteBox) -> bool {
    let n_var = b.space.n_var();
    debug_assert_eq!(point.len(), n_var);
    let mut full = point.to_vec();
    full.resize(n_var + b.n_exist, 0);
    if b.n_exist == 0 {
        return satisfies(b, &full);
    }
    let mut found = false;
    for_each_point(b.n_exist, bx.exist_lo, bx.exist_hi, |e| {
        full[n_var..].copy_from_slice(e);
        if satisfies(b, &full) {
            found = true;
            return false;
        }
        true
    });
    found
}

/// Whether `point` belongs to the union `s`.
pub fn set_contains(s: &Set, point: &[i64], bx: &BruteBox) -> bool {
    s.pieces.iter().any(|b| basic_contains(b, point, bx))
}

/// All points of the box (over params, domain and range) that belong to `s`.
pub fn set_points(s: &Set, bx: &BruteBox) -> Vec<Vec<i64>> {
    let mut out = Vec::new();
    for_each_point(s.space.n_var(), bx.lo, bx.hi, |p| {
        if set_contains(s, p, bx) {
            out.push(p.to_vec());
        }
        true
    });
    out
}

/// Number of random cases for a property test: `default` times the factor
/// in the environment variable `POLYFOLD_PROPTEST_CASES` (1 when unset).
pub fn proptest_cases(default: usize) -> usize {
    let factor = std::env::var("POLYFOLD_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(1);
    default.saturating_mul(factor.max(1))
}

/// Parameters of [`random_basic`].
#[derive(Clone, Copy, Debug)]
pub struct RandomShape {
    /// Number of random rows (inequalities or equalities).
    pub n_rows: usize,
    /// Coefficients are drawn from `-max_coeff..=max_coeff`.
    pub max_coeff: i64,
    /// Constants are drawn from `-max_const..=max_const`.
    pub max_const: i64,
    /// Every variable column gets `-half_box <= x <= half_box`.
    pub half_box: i64,
    /// Every existential gets `-exist_half_box <= e <= exist_half_box`.
    pub exist_half_box: i64,
    /// One row in `eq_one_in` is an equality.
    pub eq_one_in: u64,
    /// When true, every random row holds at one random point of the box
    /// (the constant is chosen so), which keeps the polyhedron non-empty;
    /// the slack of inequalities is drawn from `0..=max_const`.
    pub anchored: bool,
}

/// A random polyhedron over `space` with `n_exist` existentials, boxed as
/// described by `shape` (so that brute force over the box is complete).
pub fn random_basic(
    rng: &mut crate::util::rng::Rng,
    space: &crate::poly::space::Space,
    n_exist: usize,
    shape: &RandomShape,
) -> BasicSet {
    let mut b = BasicSet::universe(space.clone());
    for _ in 0..n_exist {
        b.add_exist();
    }
    let w = b.width();
    let n_var = space.n_var();
    for c in 0..w - 1 {
        let half = if c < n_var {
            shape.half_box
        } else {
            shape.exist_half_box
        };
        let mut lo = vec![0i64; w];
        lo[c] = 1;
        lo[w - 1] = half;
        b.ineqs.push(lo);
        let mut hi = vec![0i64; w];
        hi[c] = -1;
        hi[w - 1] = half;
        b.ineqs.push(hi);
    }
    let anchor: Vec<i64> = (0..w - 1)
        .map(|c| {
            let half = if c < n_var {
                shape.half_box
            } else {
                shape.exist_half_box
            };
            rng.range(-half, half)
        })
        .collect();
    for _ in 0..shape.n_rows {
        let mut row = vec![0i64; w];
        for x in row.iter_mut().take(w - 1) {
            if rng.chance(2, 3) {
                *x = rng.range(-shape.max_coeff, shape.max_coeff);
            }
        }
        let is_eq = shape.eq_one_in > 0 && rng.chance(1, shape.eq_one_in);
        if shape.anchored {
            let at: i64 = row.iter().zip(&anchor).map(|(a, z)| a * z).sum();
            let slack = if is_eq {
                0
            } else {
                rng.range(0, shape.max_const)
            };
            row[w - 1] = slack - at;
        } else {
            row[w - 1] = rng.range(-shape.max_const, shape.max_const);
        }
        if is_eq {
            b.eqs.push(row);
        } else {
            b.ineqs.push(row);
        }
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::space::{Space, Tuple};

    #[test]
    fn enumerates_a_triangle_by_hand_count() {
        // { [i, j] : 0 <= j <= i <= 3 } has 1 + 2 + 3 + 4 = 10 points.
        let mut b = BasicSet::universe(Space::set(vec![], Tuple::new(None, &["i", "j"])));
        b.add_ineq(vec![0, 1, 0]);
        b.add_ineq(vec![1, -1, 0]);
        b.add_ineq(vec![-1, 0, 3]);
        let pts = set_points(&Set::from_basic(b), &BruteBox::new(-5, 5, 0, 0));
        assert_eq!(pts.len(), 10);
        assert!(pts.contains(&vec![3, 0]) && !pts.contains(&vec![0, 1]));
    }

    #[test]
    fn existential_membership_even_numbers() {
        // { [x] : exists e : x = 2e } restricted to [-3, 3]: -2, 0, 2.
        let mut b = BasicSet::universe(Space::set(vec![], Tuple::new(None, &["x"])));
        b.add_exist();
        b.add_eq(vec![1, -2, 0]);
        let pts = set_points(&Set::from_basic(b), &BruteBox::new(-3, 3, -5, 5));
        assert_eq!(pts, vec![vec![-2], vec![0], vec![2]]);
    }
}
