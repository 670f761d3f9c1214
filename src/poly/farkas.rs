//! Farkas' lemma: linear conditions for "an affine form is non-negative on
//! a polyhedron", and least parametric upper bounds.
//!
//! [`farkas_nonnegative`] implements the affine form of Farkas' lemma as used
//! by SMO (seed 000 §2.3.1 and §4): for a non-empty polyhedron
//! `P = { x : A x + b >= 0, E x + e = 0 }`, an affine form `f` is
//! non-negative on `P` iff `f(x) ≡ λ0 + Σ λk (a_k·x + b_k) + Σ μ_e (E_e·x +
//! e_e)` with `λ >= 0` and `μ` free. When the coefficients of `f` are affine in
//! unknowns (the hyperplane coefficients, the bound's `u` and `w`), equating
//! coefficients gives linear constraints over the unknowns and the
//! multipliers, returned as a [`FarkasSystem`] ready for an LP or ILP.
//!
//! [`least_upper_bound`] uses it to find the lexicographically smallest
//! integer `(u, w)` with `f(p, x) <= u·p + w` on `P` (the bounding
//! constraints (1) and (3) of seed 000), and checks the bound exactly over
//! the integers before returning it.
//!
//! What this module does NOT do: the lemma is about the rational relaxation,
//! so a bound valid only at integer points (tighter than the rational one)
//! is not found; for an empty `P` the system may be infeasible although any
//! bound holds vacuously. The SMO objective and decision variables live with
//! the SMO mapping code, not here.

use super::basic::BasicSet;
use super::error::{PolyError, PolyResult, neg, sub};
use super::simplex::{LpResult, is_integer_empty, lp_min, rational_is_empty};
use super::space::{Space, Tuple};

/// Linear constraints over named variables: each row is over
/// `[variables | constant]`, an equality meaning `row = 0` and an inequality
/// `row >= 0`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FarkasSystem {
    /// Names of the variables: the caller's unknowns first, then `lambda0`,
    /// one `lambda{k}` per inequality and one `mu{k}` per equality of the
    /// polyhedron.
    pub var_names: Vec<String>,
    /// How many of the variables are the caller's unknowns.
    pub n_unknowns: usize,
    pub eqs: Vec<Vec<i64>>,
    pub ineqs: Vec<Vec<i64>>,
}

impl FarkasSystem {
    /// The system as a polyhedron over an anonymous tuple of its variables.
    pub(crate) fn to_basic_set(&self) -> BasicSet {
        BasicSet {
            space: Space::set(Vec::new(), Tuple::anonymous(self.var_names.clone())),
            n_exist: 0,
            eqs: self.eqs.clone(),
            ineqs: self.ineqs.clone(),
        }
    }
}

/// Builds the Farkas system for "`f >= 0` on every point of `domain`".
///
/// `form` gives `f`: one row per column of `domain` (its `width()` rows:
/// parameters, dimensions, existentials, then the constant), each row over
/// `[unknowns | constant]`, so that the coefficient of column `j` in `f` is
/// `form[j] · (unknowns, 1)`. Existential columns normally get zero rows.
///
/// Sound: every solution gives an `f` that is non-negative on `domain`.
/// Complete when `domain` is rationally non-empty.
pub(crate) fn farkas_nonnegative(
    domain: &BasicSet,
    form: &[Vec<i64>],
    unknown_names: &[String],
) -> PolyResult<FarkasSystem> {
    let w = domain.width();
    let nu = unknown_names.len();
    if form.len() != w || form.iter().any(|r| r.len() != nu + 1) {
        return Err(PolyError::SpaceMismatch(format!(
            "Farkas form needs {w} rows of {} entries",
            nu + 1
        )));
    }
    let n_ineq = domain.ineqs.len();
    let n_eq = domain.eqs.len();
    let mut var_names: Vec<String> = unknown_names.to_vec();
    var_names.push("lambda0".into());
    var_names.extend((1..=n_ineq).map(|k| format!("lambda{k}")));
    var_names.extend((1..=n_eq).map(|k| format!("mu{k}")));
    let n_vars = var_names.len();
    let lambda0 = nu;
    let lambda = |k: usize| nu + 1 + k;
    let mu = |k: usize| nu + 1 + n_ineq + k;
    let mut eqs = Vec::with_capacity(w);
    for (j, form_row) in form.iter().enumerate() {
        // form_j(u) - Σ λk A_kj - Σ μe E_ej (- λ0 for the constant) = 0.
        let mut row = vec![0i64; n_vars + 1];
        row[..nu].copy_from_slice(&form_row[..nu]);
        row[n_vars] = form_row[nu];
        for (k, a) in domain.ineqs.iter().enumerate() {
            row[lambda(k)] = neg(a[j])?;
        }
        for (k, e) in domain.eqs.iter().enumerate() {
            row[mu(k)] = neg(e[j])?;
        }
        if j == w - 1 {
            row[lambda0] = -1;
        }
        eqs.push(row);
    }
    let mut ineqs = Vec::with_capacity(n_ineq + 1);
    for v in std::iter::once(lambda0).chain((0..n_ineq).map(lambda)) {
        let mut row = vec![0i64; n_vars + 1];
        row[v] = 1;
        ineqs.push(row);
    }
    Ok(FarkasSystem {
        var_names,
        n_unknowns: nu,
        eqs,
        ineqs,
    })
}

/// An upper bound `u·params + w`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamBound {
    pub u: Vec<i64>,
    pub w: i64,
}

impl ParamBound {
    /// The bound's value for given parameter values.
    pub fn eval(&self, params: &[i64]) -> PolyResult<i64> {
        let row: Vec<i64> = self.u.iter().copied().chain([self.w]).collect();
        super::basic::eval_row(&row, params)
    }
}

/// The lexicographically smallest integer `(u_1, ..., u_np, w)` such that
/// `f(x) <= u·params + w` holds on `domain` by Farkas' lemma, where `form`
/// gives `f` over the columns of `domain` without existentials
/// (`space.n_var()` coefficients, then the constant).
///
/// Returns `None` when no such bound exists or the lexicographic minimum is
/// unbounded (for example when a parameter is bounded on both sides, so that
/// its coefficient can decrease forever). The returned bound is re-checked
/// exactly: `{ x in domain : f(x) > u·params + w }` has no integer point.
pub fn least_upper_bound(domain: &BasicSet, form: &[i64]) -> PolyResult<Option<ParamBound>> {
    let n_var = domain.space.n_var();
    if form.len() != n_var + 1 {
        return Err(PolyError::SpaceMismatch(format!(
            "bound form needs {} entries",
            n_var + 1
        )));
    }
    let np = domain.space.n_param();
    let nu = np + 1;
    let w = domain.width();
    // Rows of g = u·p + w - f over [u | w | const].
    let mut rows = Vec::with_capacity(w);
    for j in 0..w {
        let mut r = vec![0i64; nu + 1];
        if j < n_var {
            r[nu] = neg(form[j])?;
            if j < np {
                r[j] = 1;
            }
        } else if j == w - 1 {
            r[np] = 1;
            r[nu] = neg(form[n_var])?;
        }
        rows.push(r);
    }
    let mut names: Vec<String> = domain
        .space
        .params
        .iter()
        .map(|p| format!("u_{p}"))
        .collect();
    names.push("w".into());
    let sys = farkas_nonnegative(domain, &rows, &names)?;
    let mut b = sys.to_basic_set();
    let width = b.width();
    let mut fixed = Vec::with_capacity(nu);
    for k in 0..nu {
        let mut objective = vec![0i64; width];
        objective[k] = 1;
        let value = match lp_min(&b, &objective)? {
            LpResult::Optimal { value, .. } => value,
            LpResult::Unbounded | LpResult::Infeasible => return Ok(None),
        };
        let candidate = value.ceil()?;
        let mut eq = vec![0i64; width];
        eq[k] = 1;
        eq[width - 1] = neg(candidate)?;
        b.eqs.push(eq);
        if rational_is_empty(&b)? {
            // The feasible values of this unknown end below the next integer.
            return Ok(None);
        }
        fixed.push(candidate);
    }
    let bound = ParamBound {
        u: fixed[..np].to_vec(),
        w: fixed[np],
    };
    // Exact check: f - u·p - w - 1 >= 0 has no integer point in the domain.
    let mut violation = domain.clone();
    let mut row = vec![0i64; w];
    row[..n_var].copy_from_slice(&form[..n_var]);
    for (r, u) in row.iter_mut().zip(&bound.u) {
        *r = sub(*r, *u)?;
    }
    row[w - 1] = sub(sub(form[n_var], bound.w)?, 1)?;
    violation.ineqs.push(row);
    if !is_integer_empty(&violation)? {
        return Err(PolyError::Solver(
            "Farkas bound failed its exact integer check".into(),
        ));
    }
    Ok(Some(bound))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::brute::{BruteBox, basic_contains, for_each_point, proptest_cases};
    use crate::util::rng::Rng;

    /// Brute-force maximum of `form` over the points of `domain` with the
    /// parameters fixed to `params` and the dimensions in `[lo, hi]`.
    fn brute_max(domain: &BasicSet, form: &[i64], params: &[i64], lo: i64, hi: i64) -> Option<i64> {
        let np = params.len();
        let n_dim = domain.space.n_var() - np;
        let bx = BruteBox::new(lo, hi, lo, hi);
        let mut best = None;
        for_each_point(n_dim, lo, hi, |x| {
            let p: Vec<i64> = params.iter().chain(x).copied().collect();
            if basic_contains(domain, &p, &bx) {
                let v = crate::poly::basic::eval_row(form, &p).unwrap();
                if best.is_none_or(|b| v > b) {
                    best = Some(v);
                }
            }
            true
        });
        best
    }

    /// The 1-d stencil's conflict polyhedra of seed 000 Fig. 2(c)/(d),
    /// over `[N | t, i, t', i']` with `1 <= t, t' <= N`, `1 <= i, i' <= N`.
    fn stencil_conflicts(intra: bool) -> BasicSet {
        let space = Space::set(vec!["N".into()], Tuple::new(None, &["t", "i", "t2", "i2"]));
        let mut b = BasicSet::universe(space);
        for c in 1..=4 {
            let mut lo = vec![0i64; 6];
            lo[c] = 1;
            lo[5] = -1;
            b.add_ineq(lo);
            let mut hi = vec![0i64; 6];
            hi[0] = 1;
            hi[c] = -1;
            b.add_ineq(hi);
        }
        if intra {
            // CS_0: t = t' and i < i'.
            b.add_eq(vec![0, 1, 0, -1, 0, 0]);
            b.add_ineq(vec![0, 0, -1, 0, 1, -1]);
        } else {
            // CS_{1,0}: t + 1 = t' and i >= i'.
            b.add_eq(vec![0, 1, 0, -1, 0, 1]);
            b.add_ineq(vec![0, 0, 1, 0, -1, 0]);
        }
        b
    }

    #[test]
    fn seed_000_stencil_bounds_are_valid_and_tight() {
        // (form over [N, t, i, t', i', 1], expected u, expected w)
        let cases: Vec<(bool, Vec<i64>, i64, i64)> = vec![
            // Γ = (0, 1) on CS_0: i' - i <= N - 1 and i - i' <= -1.
            (true, vec![0, 0, -1, 0, 1, 0], 1, -1),
            (true, vec![0, 0, 1, 0, -1, 0], 0, -1),
            // Γ = (1, 0) on CS_0: t - t' = 0.
            (true, vec![0, 1, 0, -1, 0, 0], 0, 0),
            // Γ = (-1, 1) (the mapping i - t of seed 000 §3) on CS_{1,0}:
            // (i - t) - (i' - t') = i - i' + 1 <= N, and its negation <= -1.
            (false, vec![0, -1, 1, 1, -1, 0], 1, 0),
            (false, vec![0, 1, -1, -1, 1, 0], 0, -1),
        ];
        for (intra, form, u, w) in cases {
            let dom = stencil_conflicts(intra);
            let bound = least_upper_bound(&dom, &form)
                .unwrap()
                .expect("a bound exists");
            assert_eq!(bound, ParamBound { u: vec![u], w }, "form {form:?}");
            for n in 2..=6 {
                let max = brute_max(&dom, &form, &[n], -1, 7).expect("non-empty for N >= 2");
                assert_eq!(max, bound.eval(&[n]).unwrap(), "tight at N = {n}, {form:?}");
            }
        }
    }

    #[test]
    fn doubly_bounded_parameter_has_no_least_bound() {
        // { [N] -> [x] : 0 <= x <= N <= 5 }: x <= u N + w holds for every u
        // with w large enough, so the lexicographic minimum is unbounded.
        let space = Space::set(vec!["N".into()], Tuple::new(None, &["x"]));
        let mut b = BasicSet::universe(space);
        b.add_ineq(vec![0, 1, 0]);
        b.add_ineq(vec![1, -1, 0]);
        b.add_ineq(vec![-1, 0, 5]);
        assert_eq!(least_upper_bound(&b, &[0, 1, 0]).unwrap(), None);
        // Without parameters the bound is the rational maximum.
        let space = Space::set(vec![], Tuple::new(None, &["x", "y"]));
        let mut b = BasicSet::universe(space);
        b.add_ineq(vec![1, 0, 0]);
        b.add_ineq(vec![0, 1, 0]);
        b.add_ineq(vec![-2, -3, 12]); // 2x + 3y <= 12
        // max of x + y over the rational triangle is 6 (at (6, 0)).
        let bound = least_upper_bound(&b, &[1, 1, 0]).unwrap().unwrap();
        assert_eq!(bound, ParamBound { u: vec![], w: 6 });
    }

    #[test]
    fn farkas_system_certifies_non_negativity() {
        // f(x) = a·x + c >= 0 on [0, 4] with unknowns (a, c): the system must
        // accept (1, 0) and (-1, 4) and reject (1, -1).
        let space = Space::set(vec![], Tuple::new(None, &["x"]));
        let mut b = BasicSet::universe(space);
        b.add_ineq(vec![1, 0]);
        b.add_ineq(vec![-1, 4]);
        let form = vec![vec![1, 0, 0], vec![0, 1, 0]];
        let sys = farkas_nonnegative(&b, &form, &["a".into(), "c".into()]).unwrap();
        assert_eq!(
            sys.var_names,
            vec!["a", "c", "lambda0", "lambda1", "lambda2"]
        );
        let accepts = |a: i64, c: i64| {
            let mut s = sys.to_basic_set();
            let w = s.width();
            let mut r = vec![0i64; w];
            r[0] = 1;
            r[w - 1] = -a;
            s.eqs.push(r);
            let mut r = vec![0i64; w];
            r[1] = 1;
            r[w - 1] = -c;
            s.eqs.push(r);
            !rational_is_empty(&s).unwrap()
        };
        assert!(accepts(1, 0));
        assert!(accepts(-1, 4));
        assert!(accepts(0, 0));
        assert!(!accepts(1, -1));
        assert!(!accepts(-1, 3));
    }

    /// Property: on random polyhedra with one parameter `p >= 0` and the
    /// dimensions in `[-2, p + 2]`, the least bound of a random form is valid
    /// for every `p` in `0..=6` (brute force). Cases scale with
    /// `POLYFOLD_PROPTEST_CASES`.
    #[test]
    fn random_bounds_are_valid() {
        let mut rng = Rng::new(0xFA4_0001);
        let cases = proptest_cases(2000);
        let mut n_found = 0;
        for _ in 0..cases {
            let n_dim = 1 + rng.below(2);
            let dims: Vec<String> = (0..n_dim).map(|i| format!("x{i}")).collect();
            let space = Space::set(vec!["p".into()], Tuple::anonymous(dims));
            let mut b = BasicSet::universe(space);
            let w = b.width();
            let mut row = vec![0i64; w];
            row[0] = 1;
            b.add_ineq(row);
            for d in 1..=n_dim {
                let mut lo = vec![0i64; w];
                lo[d] = 1;
                lo[w - 1] = 2;
                b.add_ineq(lo);
                let mut hi = vec![0i64; w];
                hi[0] = 1;
                hi[d] = -1;
                hi[w - 1] = 2;
                b.add_ineq(hi);
            }
            for _ in 0..rng.below(3) {
                let mut r: Vec<i64> = (0..w - 1).map(|_| rng.range(-2, 2)).collect();
                r.push(rng.range(0, 6));
                b.add_ineq(r);
            }
            let form: Vec<i64> = (0..w).map(|_| rng.range(-3, 3)).collect();
            let Some(bound) = least_upper_bound(&b, &form).unwrap() else {
                continue;
            };
            n_found += 1;
            for p in 0..=6 {
                if let Some(max) = brute_max(&b, &form, &[p], -2, 8) {
                    assert!(
                        max <= bound.eval(&[p]).unwrap(),
                        "{b}, {form:?}: {bound:?} at p = {p}"
                    );
                }
            }
        }
        assert!(n_found > cases / 2, "{n_found} bounds found");
    }
}
