//! Whether a layout with several folded dimensions, or with quasi-affine
//! moduli, never needs many more cells than the declaration, for every
//! parameter value: the check [`super::layout_fits`] falls back on where
//! no dimension-by-dimension comparison applies (reg_detect's `sum_t[n][n]`
//! becoming `sum_t[(n + 1) / 2][(3 * n + 1) / 2]`).
//!
//! The cell counts are products of (quasi-)affine factors. Factors equal
//! on both sides cancel (`diff`'s `p`): the bound below is then on the
//! rest, so the whole may exceed the declaration by [`EXCESS`] times their
//! product (`diff`: `p` cells more at `n = 1`). What is left must depend
//! on one parameter `n` only. For each residue `r` of `n` modulo the common
//! denominator `L`, `n = L·m + r` makes every factor affine in `m` with
//! integer coefficients, so the difference of the two counts is a
//! polynomial `D(m)` with integer coefficients. It must stay at most
//! [`EXCESS`] cells on the values the context allows: a positive leading
//! coefficient fails; below it, every real root of `D` lies within the
//! Cauchy bound `1 + max |a_i| / |a_d|`, past which `D` has the sign of
//! its leading coefficient, and the values from the context's lower end
//! up to that bound are evaluated one by one (their number depends on the
//! program's constants, never on the sizes). Exact integer arithmetic
//! throughout; anything else (two parameters left, no lower end, a bound
//! past [`MAX_EVALUATIONS`], an overflow) answers "not proven".

use crate::mapping::modular::ParamAffine;
use crate::poly::simplex::{IntResult, integer_min};
use crate::poly::{BasicSet, Budget};

/// The most cells a layout may need beyond the declaration, at the small
/// sizes where a fold's rounding makes it larger (`sum_t`: 2 cells
/// against 1 at `n = 1`, 10 against 9 at `n = 3`).
pub(crate) const EXCESS: i128 = 16;

/// The most values of `m` evaluated one by one.
const MAX_EVALUATIONS: i128 = 10_000;

/// Whether `Π new ≤ Π old + EXCESS`, the factors equal on both sides left
/// out, for every parameter value of `context` (see the module doc).
pub(crate) fn within_excess(
    new: &[ParamAffine],
    old: &[ParamAffine],
    context: &BasicSet,
    budget: &mut Budget,
) -> bool {
    let mut new: Vec<&ParamAffine> = new.iter().collect();
    let mut old: Vec<&ParamAffine> = old.iter().collect();
    // Equal factors cancel (both sides at least 1 where the declaration is
    // valid, so the inequality of the rest implies that of the products
    // only when the cancelled factor is at least 1: a declared extent is).
    new.retain(|f| match old.iter().position(|g| g == f) {
        Some(k) => {
            old.remove(k);
            false
        }
        None => true,
    });
    if !old.iter().all(|f| f.is_affine()) {
        return false;
    }
    let n_param = context.space.n_param();
    let used: Vec<usize> = (0..n_param)
        .filter(|q| {
            new.iter()
                .chain(&old)
                .any(|f| f.coeffs.get(*q).is_some_and(|c| *c != 0))
        })
        .collect();
    let q = match used[..] {
        [] => {
            let value = |fs: &[&ParamAffine]| {
                fs.iter().try_fold(1i128, |acc, f| {
                    acc.checked_mul(i128::from(f.eval(&vec![0; n_param]).ok()?))
                })
            };
            return matches!((value(&new), value(&old)), (Some(a), Some(b)) if a <= b + EXCESS);
        }
        [q] => q,
        _ => return false,
    };
    // The context's lower end of parameter q (declared extents make it
    // at least 1 where one is used).
    let mut objective = context.zero_row();
    objective[q] = 1;
    let lo = match integer_min(context, &objective, budget) {
        Ok(IntResult::Optimal { value, .. }) => i128::from(value),
        _ => return false,
    };
    let l = new.iter().chain(&old).fold(1i64, |acc, f| lcm(acc, f.den));
    for r in 0..l {
        // Each factor as α·m + β with n = l·m + r.
        let in_m = |f: &ParamAffine| -> Option<(i128, i128)> {
            let a = i128::from(f.coeffs[q]);
            let d = i128::from(f.den);
            let alpha = a.checked_mul(i128::from(l))? / d;
            let beta = (a.checked_mul(i128::from(r))? + i128::from(f.constant)).div_euclid(d);
            Some((alpha, beta))
        };
        let product = |fs: &[&ParamAffine]| -> Option<Vec<i128>> {
            fs.iter()
                .try_fold(vec![1i128], |p, f| multiply(&p, in_m(f)?))
        };
        let (Some(pn), Some(po)) = (product(&new), product(&old)) else {
            return false;
        };
        let len = pn.len().max(po.len());
        let mut diff = vec![0i128; len];
        for (k, c) in pn.iter().enumerate() {
            diff[k] = *c;
        }
        for (k, c) in po.iter().enumerate() {
            let Some(v) = diff[k].checked_sub(*c) else {
                return false;
            };
            diff[k] = v;
        }
        while diff.len() > 1 && diff.last() == Some(&0) {
            diff.pop();
        }
        // The first m with l·m + r >= lo.
        let m_lo = (lo - i128::from(r) + i128::from(l) - 1).div_euclid(i128::from(l));
        if !bounded_above(&diff, m_lo) {
            return false;
        }
    }
    true
}

/// Whether the polynomial `p` (coefficients from degree 0) stays at most
/// [`EXCESS`] for every integer `m >= m_lo`.
fn bounded_above(p: &[i128], m_lo: i128) -> bool {
    let d = p.len() - 1;
    if d == 0 {
        return p[0] <= EXCESS;
    }
    let lead = p[d];
    if lead > 0 {
        return false;
    }
    // Past the Cauchy bound p(m) < 0.
    let Some(biggest) = p[..d]
        .iter()
        .map(|c| c.checked_abs())
        .collect::<Option<Vec<_>>>()
    else {
        return false;
    };
    let bound = 1 + biggest.iter().max().copied().unwrap_or(0) / lead.abs() + 1;
    if bound - m_lo > MAX_EVALUATIONS {
        return false;
    }
    (m_lo..=bound).all(|m| eval(p, m).is_some_and(|v| v <= EXCESS))
}

/// `p(m)` by Horner's rule, `None` on overflow.
fn eval(p: &[i128], m: i128) -> Option<i128> {
    p.iter()
        .rev()
        .try_fold(0i128, |acc, c| acc.checked_mul(m)?.checked_add(*c))
}

/// `p·(α·m + β)`.
fn multiply(p: &[i128], (alpha, beta): (i128, i128)) -> Option<Vec<i128>> {
    let mut out = vec![0i128; p.len() + 1];
    for (k, c) in p.iter().enumerate() {
        out[k] = out[k].checked_add(c.checked_mul(beta)?)?;
        out[k + 1] = out[k + 1].checked_add(c.checked_mul(alpha)?)?;
    }
    Some(out)
}

fn lcm(a: i64, b: i64) -> i64 {
    let (mut x, mut y) = (a, b);
    while y != 0 {
        (x, y) = (y, x % y);
    }
    a / x * b
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::Space;
    use crate::poly::space::Tuple;

    fn context_n_at_least_1() -> BasicSet {
        let mut c = BasicSet::universe(Space::set(vec!["n".into()], Tuple::new(None, &[])));
        c.add_ineq(vec![1, -1]);
        c
    }

    fn q(coeffs: &[i64], constant: i64, den: i64) -> ParamAffine {
        ParamAffine::quasi(coeffs.to_vec(), constant, den)
    }

    /// Brute force: the largest excess over n = 1..=400.
    fn largest_excess(new: &[ParamAffine], old: &[ParamAffine]) -> i128 {
        (1..=400i64)
            .map(|n| {
                let p = |fs: &[ParamAffine]| {
                    fs.iter()
                        .map(|f| i128::from(f.eval(&[n]).unwrap()))
                        .product::<i128>()
                };
                p(new) - p(old)
            })
            .max()
            .unwrap()
    }

    #[test]
    fn reg_detect_triangle_fits_within_the_excess() {
        // [(n + 1) / 2][(3n + 1) / 2] against [n][n]: 2 against 1 at
        // n = 1, 10 against 9 at n = 3, smaller from n = 2 and n = 4 on.
        let new = [q(&[1], 1, 2), q(&[3], 1, 2)];
        let old = [q(&[1], 0, 1), q(&[1], 0, 1)];
        assert_eq!(largest_excess(&new, &old), 1);
        let mut budget = Budget::new(1_000_000, None);
        assert!(within_excess(
            &new,
            &old,
            &context_n_at_least_1(),
            &mut budget
        ));
    }

    /// Refused, and the brute force agrees that it must be.
    fn assert_refused(new: &[ParamAffine], old: &[ParamAffine]) {
        assert!(largest_excess(new, old) > EXCESS);
        let mut budget = Budget::new(1_000_000, None);
        assert!(!within_excess(
            new,
            old,
            &context_n_at_least_1(),
            &mut budget
        ));
    }

    #[test]
    fn a_layout_that_grows_faster_is_refused() {
        // [(3n + 1) / 2][n] against [n][n]: larger for every n >= 2.
        assert_refused(
            &[q(&[3], 1, 2), q(&[1], 0, 1)],
            &[q(&[1], 0, 1), q(&[1], 0, 1)],
        );
    }

    #[test]
    fn an_excess_at_small_sizes_above_the_limit_is_refused() {
        // [n + 5][n + 5] against [n][2n]: 36 - 2 = 34 cells more at
        // n = 1, smaller from n = 12 on.
        assert_refused(
            &[q(&[1], 5, 1), q(&[1], 5, 1)],
            &[q(&[1], 0, 1), q(&[2], 0, 1)],
        );
    }
}
