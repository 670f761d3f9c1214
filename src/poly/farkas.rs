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
pub struct FarkasSystem {
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
    pub fn to_basic_set(&self) -> BasicSet {
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
pub fn farkas_nonnegative(
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
    for j in 0..n_var {
        row[j] = form[j];
    }
    for k in 0..np {
        row[k] = sub(row[k], bound.u[k])?;
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
