//! Exact linear and integer optimisation over one polyhedron.
//!
//! What this module does:
//! - exact rational linear programming over a [`BasicSet`] ([`lp_max`],
//!   [`lp_min`], [`rational_is_empty`]) with a primal simplex on a
//!   fraction-free `i128` tableau (one common denominator per row), two
//!   phases, and Bland's rule against cycling;
//! - exact integer feasibility and optimisation ([`integer_point`],
//!   [`is_integer_empty`], [`integer_max`], [`integer_min`],
//!   [`integer_max_fixed`]).
//!
//! Every column except the constant is a free variable (parameters and
//! existentials included); "empty for every parameter value" is emptiness of
//! the set with the parameters as variables.
//!
//! The integer solver is exact and cannot loop forever, even on unbounded
//! polyhedra:
//! 1. equalities are eliminated by unimodular column operations (an equality
//!    whose gcd does not divide its constant proves emptiness);
//! 2. inequalities are tightened (divide by the gcd, round the constant down);
//! 3. the implicit equalities of the recession cone `{y : A·y >= 0}` are found
//!    with a few LPs and a unimodular change of coordinates `y = V·(u, w)`
//!    puts the bounded directions first: the projection of the polyhedron on
//!    `u` is bounded, and for every fixed `u` the slice in `w` has a
//!    full-dimensional recession cone, so a rational point of a slice can be
//!    rounded to an integer point by moving far enough along an interior ray;
//! 4. branch and bound branches on `u` only, so it terminates; a direction
//!    that two opposite rows confine to at most 3 integer values is split
//!    into one equality per value instead (eliminated exactly, which removes
//!    a dimension); every node and every pivot consumes one step of the
//!    [`Budget`]. Optimisation with an objective that grows along the
//!    recession cone first finds a point, then bounds the objective from
//!    below by its value.
//!
//! Every integer point returned is re-checked against every constraint of
//! the input with checked arithmetic before it is returned.
//!
//! What it does NOT do: arbitrary-precision arithmetic (values beyond `i128`
//! in the tableau, or beyond `i64` in an integer answer, give
//! [`PolyError::Overflow`]), warm starts between branch-and-bound nodes,
//! lattice basis reduction (so branch and bound can need many nodes on
//! thin sets with huge coordinates; it then stops with
//! [`PolyError::Budget`]), or parametric optimisation (fix parameters with
//! [`integer_max_fixed`]).

use std::cmp::Ordering;

use super::basic::BasicSet;
use super::budget::Budget;
use super::error::{PolyError, PolyResult};
use super::rational::{Rat, cmp_fractions, gcd_u128};

/// The outcome of a rational linear program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LpResult {
    /// No rational point satisfies the constraints.
    Infeasible,
    /// The objective is unbounded in the requested direction.
    Unbounded,
    /// The optimum `value` is attained at `point` (one entry per non-constant
    /// column, existentials included).
    Optimal { value: Rat, point: Vec<Rat> },
}

/// The outcome of an integer linear program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum IntResult {
    /// No integer point satisfies the constraints.
    Infeasible,
    /// Integer points exist and the objective is unbounded over them.
    Unbounded,
    /// The optimum `value` is attained at the integer `point` (one entry per
    /// non-constant column, existentials included).
    Optimal { value: i64, point: Vec<i64> },
}

/// Number of random cases for a property test: `default` times the factor in
/// the environment variable `POLYFOLD_PROPTEST_CASES` (default factor 1).
#[cfg(test)]
pub(crate) fn proptest_cases(default: usize) -> usize {
    let factor = std::env::var("POLYFOLD_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(1);
    default.saturating_mul(factor.max(1))
}

// ---------------------------------------------------------------------------
// Checked i128 helpers.

#[inline]
fn m128(a: i128, b: i128) -> PolyResult<i128> {
    a.checked_mul(b).ok_or(PolyError::Overflow)
}

#[inline]
fn a128(a: i128, b: i128) -> PolyResult<i128> {
    a.checked_add(b).ok_or(PolyError::Overflow)
}

#[inline]
fn n128(a: i128) -> PolyResult<i128> {
    a.checked_neg().ok_or(PolyError::Overflow)
}

fn to_i64(v: i128) -> PolyResult<i64> {
    i64::try_from(v).map_err(|_| PolyError::Overflow)
}

// ---------------------------------------------------------------------------
// The tableau.

/// Sign restriction of a tableau variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// An original variable: no sign restriction.
    Free,
    /// The slack of an inequality (or the phase-one variable): `>= 0`.
    NonNeg,
    /// The slack of an equality: `= 0`.
    Zero,
}

/// One row of the tableau: `den · basic = Σ coef[l]·nonbasic[l] + coef[last]`.
#[derive(Clone, Debug)]
struct Row {
    coef: Vec<i128>,
    den: i128,
    var: usize,
}

impl Row {
    /// Divides the row by the gcd of its entries and its denominator.
    fn normalize(&mut self) -> PolyResult<()> {
        let mut g = self.den.unsigned_abs();
        for c in &self.coef {
            if g == 1 {
                return Ok(());
            }
            if *c != 0 {
                g = gcd_u128(g, c.unsigned_abs());
            }
        }
        if g > 1 {
            let g = i128::try_from(g).map_err(|_| PolyError::Overflow)?;
            for c in &mut self.coef {
                *c /= g;
            }
            self.den /= g;
        }
        Ok(())
    }

    fn constant(&self) -> i128 {
        *self.coef.last().expect("a tableau row has a constant")
    }
}

/// A dictionary-form simplex tableau over `n` original free variables.
///
/// Column `n` is reserved for the phase-one variable; the last entry of every
/// row is the constant.
struct Tableau {
    n: usize,
    kinds: Vec<Kind>,
    col_var: Vec<usize>,
    col_dead: Vec<bool>,
    rows: Vec<Row>,
    obj: Row,
    aux: Option<Row>,
}

/// Outcome of the tableau solve, before conversion to the public types.
enum Outcome {
    Infeasible,
    Unbounded,
    Optimal,
}

impl Tableau {
    /// Builds the tableau of `eqs`, `ineqs` (rows of `n + 1` entries) and an
    /// objective (`n + 1` entries, or none for a feasibility problem).
    fn new<'a>(
        n: usize,
        eqs: impl Iterator<Item = &'a [i64]>,
        ineqs: impl Iterator<Item = &'a [i64]>,
        objective: Option<&[i64]>,
    ) -> Tableau {
        let width = n + 2;
        let mut kinds = vec![Kind::Free; n];
        let mut rows = Vec::new();
        let make = |r: &[i64], var: usize| {
            let mut coef = Vec::with_capacity(width);
            coef.extend(r[..n].iter().map(|&v| v as i128));
            coef.push(0);
            coef.push(r[n] as i128);
            Row { coef, den: 1, var }
        };
        for r in eqs {
            rows.push(make(r, kinds.len()));
            kinds.push(Kind::Zero);
        }
        for r in ineqs {
            rows.push(make(r, kinds.len()));
            kinds.push(Kind::NonNeg);
        }
        let zero_obj = vec![0i64; n + 1];
        let obj = make(objective.unwrap_or(&zero_obj), usize::MAX);
        let mut col_var: Vec<usize> = (0..n).collect();
        col_var.push(usize::MAX);
        let mut col_dead = vec![false; n];
        col_dead.push(true);
        Tableau {
            n,
            kinds,
            col_var,
            col_dead,
            rows,
            obj,
            aux: None,
        }
    }

    fn kind_of_row(&self, r: usize) -> Kind {
        self.kinds[self.rows[r].var]
    }

    /// Exchanges the basic variable of row `r` with the nonbasic variable of
    /// column `c` (`rows[r].coef[c] != 0`).
    fn pivot(&mut self, r: usize, c: usize) -> PolyResult<()> {
        {
            let row = &mut self.rows[r];
            let a_c = row.coef[c];
            debug_assert!(a_c != 0);
            let den_r = row.den;
            let negative = a_c < 0;
            for (l, e) in row.coef.iter_mut().enumerate() {
                if l == c {
                    *e = if negative { n128(den_r)? } else { den_r };
                } else if !negative {
                    *e = n128(*e)?;
                }
            }
            row.den = a_c.checked_abs().ok_or(PolyError::Overflow)?;
            std::mem::swap(&mut row.var, &mut self.col_var[c]);
            row.normalize()?;
        }
        let pivot_row = std::mem::take(&mut self.rows[r].coef);
        let pivot_den = self.rows[r].den;
        let mut result = Ok(());
        for (i, row) in self.rows.iter_mut().enumerate() {
            if i != r {
                result = result.and(update_row(row, &pivot_row, pivot_den, c));
            }
        }
        result = result.and(update_row(&mut self.obj, &pivot_row, pivot_den, c));
        if let Some(aux) = &mut self.aux {
            result = result.and(update_row(aux, &pivot_row, pivot_den, c));
        }
        self.rows[r].coef = pivot_row;
        if self.kinds.get(self.col_var[c]) == Some(&Kind::Zero) {
            self.col_dead[c] = true;
        }
        result
    }

    /// Runs the whole two-phase method.
    fn solve(&mut self, budget: &mut Budget) -> PolyResult<Outcome> {
        let n = self.n;
        // Equalities: pivot an original variable into each of them.
        let mut r = 0;
        while r < self.rows.len() {
            if self.kind_of_row(r) != Kind::Zero {
                r += 1;
                continue;
            }
            let col = (0..n).find(|&c| {
                !self.col_dead[c]
                    && self.col_var[c] < n
                    && self.kinds[self.col_var[c]] == Kind::Free
                    && self.rows[r].coef[c] != 0
            });
            match col {
                Some(c) => {
                    budget.tick()?;
                    self.pivot(r, c)?;
                    r += 1;
                }
                None => {
                    if self.rows[r].constant() != 0 {
                        return Ok(Outcome::Infeasible);
                    }
                    self.rows.swap_remove(r);
                }
            }
        }
        // Remaining free variables: pivot them into inequality rows.
        let mut free_obj_nonzero = false;
        for c in 0..n {
            if self.col_dead[c] || self.kinds[self.col_var[c]] != Kind::Free {
                continue;
            }
            let row = (0..self.rows.len())
                .find(|&r| self.kind_of_row(r) == Kind::NonNeg && self.rows[r].coef[c] != 0);
            match row {
                Some(r) => {
                    budget.tick()?;
                    self.pivot(r, c)?;
                }
                None => {
                    // Unconstrained direction: matters only for the objective.
                    if self.obj.coef[c] != 0 {
                        free_obj_nonzero = true;
                    }
                    self.col_dead[c] = true;
                }
            }
        }
        // Phase one when some inequality slack is negative.
        let mut worst: Option<usize> = None;
        for r in 0..self.rows.len() {
            if self.kind_of_row(r) != Kind::NonNeg || self.rows[r].constant() >= 0 {
                continue;
            }
            worst = match worst {
                None => Some(r),
                Some(w) => {
                    let (rw, rr) = (&self.rows[w], &self.rows[r]);
                    if cmp_fractions(rr.constant(), rr.den, rw.constant(), rw.den) == Ordering::Less
                    {
                        Some(r)
                    } else {
                        Some(w)
                    }
                }
            };
        }
        if let Some(w) = worst {
            let t = n;
            let t_var = self.kinds.len();
            self.kinds.push(Kind::NonNeg);
            self.col_var[t] = t_var;
            self.col_dead[t] = false;
            for r in 0..self.rows.len() {
                if self.kind_of_row(r) == Kind::NonNeg {
                    self.rows[r].coef[t] = self.rows[r].den;
                }
            }
            let mut aux = vec![0i128; n + 2];
            aux[t] = -1;
            self.aux = Some(Row {
                coef: aux,
                den: 1,
                var: usize::MAX,
            });
            budget.tick()?;
            self.pivot(w, t)?;
            if !self.optimize(true, budget)? {
                return Err(PolyError::Solver(
                    "phase one of the simplex is unbounded".into(),
                ));
            }
            let aux = self.aux.take().expect("phase one has an objective");
            if aux.constant() < 0 {
                return Ok(Outcome::Infeasible);
            }
            if let Some(r) = self.rows.iter().position(|row| row.var == t_var) {
                let col = (0..=n).find(|&c| !self.col_dead[c] && self.rows[r].coef[c] != 0);
                match col {
                    Some(c) => {
                        budget.tick()?;
                        self.pivot(r, c)?;
                    }
                    None => {
                        self.rows.swap_remove(r);
                    }
                }
            }
            if let Some(c) = self.col_var.iter().position(|&v| v == t_var) {
                self.col_dead[c] = true;
            }
        }
        if free_obj_nonzero {
            return Ok(Outcome::Unbounded);
        }
        if self.optimize(false, budget)? {
            Ok(Outcome::Optimal)
        } else {
            Ok(Outcome::Unbounded)
        }
    }

    /// Primal simplex with Bland's rule on the objective (`aux` selects the
    /// phase-one objective). Returns false when unbounded.
    fn optimize(&mut self, aux: bool, budget: &mut Budget) -> PolyResult<bool> {
        loop {
            budget.tick()?;
            let obj = if aux {
                self.aux.as_ref().expect("phase one has an objective")
            } else {
                &self.obj
            };
            let mut enter: Option<usize> = None;
            for c in 0..=self.n {
                if self.col_dead[c] || obj.coef[c] <= 0 {
                    continue;
                }
                if enter.is_none_or(|e| self.col_var[c] < self.col_var[e]) {
                    enter = Some(c);
                }
            }
            let Some(c) = enter else {
                return Ok(true);
            };
            let mut leave: Option<usize> = None;
            for r in 0..self.rows.len() {
                let row = &self.rows[r];
                if row.coef[c] >= 0 || self.kinds[row.var] != Kind::NonNeg {
                    continue;
                }
                leave = match leave {
                    None => Some(r),
                    Some(l) => {
                        let best = &self.rows[l];
                        // ratio = constant / (-coef[c]); both rows share no
                        // denominator, but den cancels in the ratio.
                        let o = cmp_fractions(
                            row.constant(),
                            n128(row.coef[c])?,
                            best.constant(),
                            n128(best.coef[c])?,
                        );
                        if o == Ordering::Less || (o == Ordering::Equal && row.var < best.var) {
                            Some(r)
                        } else {
                            Some(l)
                        }
                    }
                };
            }
            let Some(r) = leave else {
                return Ok(false);
            };
            self.pivot(r, c)?;
        }
    }

    /// Values of the original variables at the current basic solution.
    fn point(&self) -> PolyResult<Vec<Rat>> {
        let mut point = vec![Rat::zero(); self.n];
        for row in &self.rows {
            if row.var < self.n {
                point[row.var] = Rat::new(row.constant(), row.den)?;
            }
        }
        Ok(point)
    }

    fn objective_value(&self) -> PolyResult<Rat> {
        Rat::new(self.obj.constant(), self.obj.den)
    }
}

/// Substitutes the new expression of the entering column (`pivot_row` over
/// `pivot_den`) into `row`.
fn update_row(row: &mut Row, pivot_row: &[i128], pivot_den: i128, c: usize) -> PolyResult<()> {
    let e_c = row.coef[c];
    if e_c == 0 {
        return Ok(());
    }
    for (l, (e, p)) in row.coef.iter_mut().zip(pivot_row).enumerate() {
        if l == c {
            *e = m128(e_c, *p)?;
        } else if *p == 0 {
            if *e != 0 {
                *e = m128(*e, pivot_den)?;
            }
        } else {
            *e = a128(m128(*e, pivot_den)?, m128(e_c, *p)?)?;
        }
    }
    row.den = m128(row.den, pivot_den)?;
    row.normalize()
}

/// Solves a rational LP over rows of `n + 1` entries. Without an objective
/// this is a feasibility problem and `value` is zero.
fn lp_rows<'a>(
    n: usize,
    eqs: impl Iterator<Item = &'a [i64]>,
    ineqs: impl Iterator<Item = &'a [i64]>,
    objective: Option<&[i64]>,
    budget: &mut Budget,
) -> PolyResult<LpResult> {
    let mut t = Tableau::new(n, eqs, ineqs, objective);
    match t.solve(budget)? {
        Outcome::Infeasible => Ok(LpResult::Infeasible),
        Outcome::Unbounded => Ok(LpResult::Unbounded),
        Outcome::Optimal => Ok(LpResult::Optimal {
            value: t.objective_value()?,
            point: t.point()?,
        }),
    }
}

fn check_widths(b: &BasicSet) -> PolyResult<()> {
    let w = b.width();
    if b.eqs.iter().chain(&b.ineqs).any(|r| r.len() != w) {
        return Err(PolyError::SpaceMismatch(
            "constraint row length differs from the set's width".into(),
        ));
    }
    Ok(())
}

fn check_objective(b: &BasicSet, objective: &[i64]) -> PolyResult<()> {
    check_widths(b)?;
    if objective.len() != b.width() {
        return Err(PolyError::SpaceMismatch(format!(
            "objective has {} entries, the set has {} columns",
            objective.len(),
            b.width()
        )));
    }
    Ok(())
}

fn negate_row(row: &[i64]) -> PolyResult<Vec<i64>> {
    row.iter()
        .map(|v| v.checked_neg().ok_or(PolyError::Overflow))
        .collect()
}

// ---------------------------------------------------------------------------
// Public LP API.

/// Maximum of `objective·x + objective[last]` over the rational points of `b`.
pub fn lp_max(b: &BasicSet, objective: &[i64]) -> PolyResult<LpResult> {
    lp_max_with_budget(b, objective, &mut Budget::default())
}

/// [`lp_max`] with an explicit budget.
pub(crate) fn lp_max_with_budget(
    b: &BasicSet,
    objective: &[i64],
    budget: &mut Budget,
) -> PolyResult<LpResult> {
    check_objective(b, objective)?;
    let n = b.width() - 1;
    lp_rows(
        n,
        b.eqs.iter().map(Vec::as_slice),
        b.ineqs.iter().map(Vec::as_slice),
        Some(objective),
        budget,
    )
}

/// Minimum of `objective·x + objective[last]` over the rational points of `b`.
pub(crate) fn lp_min(b: &BasicSet, objective: &[i64]) -> PolyResult<LpResult> {
    lp_min_with_budget(b, objective, &mut Budget::default())
}

/// [`lp_min`] with an explicit budget.
pub(crate) fn lp_min_with_budget(
    b: &BasicSet,
    objective: &[i64],
    budget: &mut Budget,
) -> PolyResult<LpResult> {
    check_objective(b, objective)?;
    let neg = negate_row(objective)?;
    Ok(match lp_max_with_budget(b, &neg, budget)? {
        LpResult::Optimal { value, point } => LpResult::Optimal {
            value: value.checked_neg()?,
            point,
        },
        other => other,
    })
}

/// Whether `b` has no rational point.
pub fn rational_is_empty(b: &BasicSet) -> PolyResult<bool> {
    rational_is_empty_with_budget(b, &mut Budget::default())
}

/// [`rational_is_empty`] with an explicit budget.
pub(crate) fn rational_is_empty_with_budget(b: &BasicSet, budget: &mut Budget) -> PolyResult<bool> {
    check_widths(b)?;
    Ok(rational_point_with_budget(b, budget)?.is_none())
}

/// Some rational point of `b` (one entry per non-constant column), or `None`
/// when `b` is rationally empty.
pub(crate) fn rational_point_with_budget(
    b: &BasicSet,
    budget: &mut Budget,
) -> PolyResult<Option<Vec<Rat>>> {
    check_widths(b)?;
    let n = b.width() - 1;
    match lp_rows(
        n,
        b.eqs.iter().map(Vec::as_slice),
        b.ineqs.iter().map(Vec::as_slice),
        None,
        budget,
    )? {
        LpResult::Optimal { point, .. } => Ok(Some(point)),
        LpResult::Infeasible => Ok(None),
        LpResult::Unbounded => Err(PolyError::Solver(
            "feasibility problem reported unbounded".into(),
        )),
    }
}

// ---------------------------------------------------------------------------
// Integer solver.

/// A unimodular column operation on affine rows (the constant column is
/// never touched).
#[derive(Clone, Copy, Debug)]
enum ColOp {
    /// `column[dst] += q · column[src]`.
    AddMul { dst: usize, src: usize, q: i64 },
    /// Exchange two columns.
    Swap(usize, usize),
}

/// `-(v / pivot)` (truncating), checked.
fn neg_quotient(v: i64, pivot: i64) -> PolyResult<i64> {
    v.checked_div(pivot)
        .and_then(i64::checked_neg)
        .ok_or(PolyError::Overflow)
}

fn apply_col_op(row: &mut [i64], op: ColOp) -> PolyResult<()> {
    match op {
        ColOp::AddMul { dst, src, q } => {
            if row[src] != 0 {
                let d = row[src].checked_mul(q).ok_or(PolyError::Overflow)?;
                row[dst] = row[dst].checked_add(d).ok_or(PolyError::Overflow)?;
            }
        }
        ColOp::Swap(a, b) => row.swap(a, b),
    }
    Ok(())
}

/// Maps coordinates `y` to `z = op⁻¹·y` for the substitution `y = op·z`.
fn apply_inverse_op(z: &mut [i128], op: ColOp) -> PolyResult<()> {
    match op {
        ColOp::AddMul { dst, src, q } => {
            z[src] = a128(z[src], n128(m128(q as i128, z[dst])?)?)?;
        }
        ColOp::Swap(a, b) => z.swap(a, b),
    }
    Ok(())
}

/// An integer system in current coordinates, with the affine map back to
/// the original variables.
#[derive(Clone, Debug)]
struct IntSystem {
    n: usize,
    eqs: Vec<Vec<i64>>,
    ineqs: Vec<Vec<i64>>,
    /// `back[j]` expresses original variable `j` in the current coordinates.
    back: Vec<Vec<i64>>,
    obj: Option<Vec<i64>>,
}

impl IntSystem {
    fn new(b: &BasicSet, objective: Option<&[i64]>) -> IntSystem {
        let n = b.width() - 1;
        let back = (0..n)
            .map(|j| {
                let mut r = vec![0; n + 1];
                r[j] = 1;
                r
            })
            .collect();
        IntSystem {
            n,
            eqs: b.eqs.clone(),
            ineqs: b.ineqs.clone(),
            back,
            obj: objective.map(<[i64]>::to_vec),
        }
    }

    fn all_rows_mut(&mut self) -> impl Iterator<Item = &mut Vec<i64>> {
        self.eqs
            .iter_mut()
            .chain(self.ineqs.iter_mut())
            .chain(self.back.iter_mut())
            .chain(self.obj.iter_mut())
    }

    fn apply(&mut self, op: ColOp) -> PolyResult<()> {
        for row in self.all_rows_mut() {
            apply_col_op(row, op)?;
        }
        Ok(())
    }

    /// Fixes variable `col` to `val` and removes its column.
    fn substitute(&mut self, col: usize, val: i64) -> PolyResult<()> {
        for row in self.all_rows_mut() {
            let last = row.len() - 1;
            let d = row[col].checked_mul(val).ok_or(PolyError::Overflow)?;
            row[last] = row[last].checked_add(d).ok_or(PolyError::Overflow)?;
            row.remove(col);
        }
        self.n -= 1;
        Ok(())
    }

    /// Eliminates all equalities by unimodular column operations; false when
    /// they have no common integer solution.
    fn eliminate_equalities(&mut self, budget: &mut Budget) -> PolyResult<bool> {
        while let Some(e) = self.eqs.last() {
            budget.tick()?;
            let n = self.n;
            let mut best: Option<usize> = None;
            let mut count = 0;
            for (j, v) in e[..n].iter().enumerate() {
                if *v != 0 {
                    count += 1;
                    if best.is_none_or(|b| v.unsigned_abs() < e[b].unsigned_abs()) {
                        best = Some(j);
                    }
                }
            }
            let Some(p) = best else {
                if e[n] != 0 {
                    return Ok(false);
                }
                self.eqs.pop();
                continue;
            };
            if count == 1 {
                let (a, c) = (e[p], e[n]);
                if c.checked_rem(a).ok_or(PolyError::Overflow)? != 0 {
                    return Ok(false);
                }
                let val = c
                    .checked_div(a)
                    .and_then(i64::checked_neg)
                    .ok_or(PolyError::Overflow)?;
                self.eqs.pop();
                self.substitute(p, val)?;
                continue;
            }
            let pivot = e[p];
            let ops: Vec<ColOp> = e[..n]
                .iter()
                .enumerate()
                .filter(|&(j, v)| j != p && *v != 0)
                .map(|(j, v)| {
                    Ok(ColOp::AddMul {
                        dst: j,
                        src: p,
                        q: neg_quotient(*v, pivot)?,
                    })
                })
                .collect::<PolyResult<_>>()?;
            for op in ops {
                self.apply(op)?;
            }
        }
        Ok(true)
    }

    /// Tightens inequalities by their gcd and drops trivial ones; false when
    /// a constant inequality is violated.
    fn normalize_ineqs(&mut self) -> bool {
        let n = self.n;
        let mut ok = true;
        self.ineqs.retain_mut(|row| {
            let g = row[..n].iter().fold(0u64, |g, v| {
                gcd_u128(g as u128, v.unsigned_abs() as u128) as u64
            });
            if g == 0 {
                if row[n] < 0 {
                    ok = false;
                }
                return false;
            }
            if g > 1 {
                // g <= 2^63; it fits i64 unless every coefficient is i64::MIN or 0.
                if let Ok(g) = i64::try_from(g) {
                    for v in &mut row[..n] {
                        *v /= g;
                    }
                    row[n] = row[n].div_euclid(g);
                }
            }
            true
        });
        ok
    }

    fn eval(row: &[i64], z: &[i64]) -> PolyResult<i128> {
        let mut acc = row[row.len() - 1] as i128;
        for (a, x) in row.iter().zip(z) {
            acc = a128(acc, (*a as i128) * (*x as i128))?;
        }
        Ok(acc)
    }
}

/// The bounded/unbounded split of the current coordinates: the first `k`
/// coordinates are bounded over the polyhedron; for the rest, `ray` (integer,
/// zero on the first `k`) has `row·ray >= 1` on every inequality that involves
/// them, and `lambda` is large enough to round any rational point of a slice.
struct Decomp {
    k: usize,
    ray: Vec<i128>,
    lambda: i128,
}

fn lcm_i128(a: i128, b: i128) -> PolyResult<i128> {
    let g = gcd_u128(a.unsigned_abs(), b.unsigned_abs());
    if g == 0 {
        return Ok(0);
    }
    let g = i128::try_from(g).map_err(|_| PolyError::Overflow)?;
    m128(a / g, b)?.checked_abs().ok_or(PolyError::Overflow)
}

/// Finds the implicit equalities of the recession cone of `sys.ineqs`,
/// changes coordinates so that the bounded directions come first, and
/// returns the split.
fn decompose(sys: &mut IntSystem, budget: &mut Budget) -> PolyResult<Decomp> {
    let n = sys.n;
    let m = sys.ineqs.len();
    let mut implicit = vec![true; m];
    let mut ray = vec![0i128; n];
    if n > 0 {
        let cone: Vec<Vec<i64>> = sys
            .ineqs
            .iter()
            .map(|r| {
                let mut c = r.clone();
                c[n] = 0;
                c
            })
            .collect();
        // Rows proven to be implicit equalities one by one (only used when
        // the sum of the undecided rows does not fit `i64`).
        let mut confirmed = vec![false; m];
        loop {
            // Sum of the rows not yet known to be strict somewhere on the
            // cone (divided by its gcd); when it does not fit `i64`, the
            // first undecided row alone.
            let undecided: Vec<usize> = (0..m).filter(|&i| implicit[i] && !confirmed[i]).collect();
            let Some(&first) = undecided.first() else {
                break;
            };
            let mut wide = vec![0i128; n + 1];
            for &i in &undecided {
                for (a, b) in wide.iter_mut().zip(&cone[i]) {
                    *a = a128(*a, *b as i128)?;
                }
            }
            let g = wide
                .iter()
                .fold(0u128, |g, v| gcd_u128(g, v.unsigned_abs()));
            let summed: Option<Vec<i64>> = if g == 0 {
                Some(vec![0; n + 1])
            } else {
                wide.iter()
                    .map(|v| i64::try_from(v / g as i128).ok())
                    .collect()
            };
            let single = summed.is_none();
            let s = summed.unwrap_or_else(|| cone[first].clone());
            if s[..n].iter().all(|v| *v == 0) {
                break;
            }
            let mut bound = negate_row(&s)?;
            bound[n] = 1;
            let res = lp_rows(
                n,
                std::iter::empty(),
                cone.iter()
                    .map(Vec::as_slice)
                    .chain(std::iter::once(bound.as_slice())),
                Some(&s),
                budget,
            )?;
            let LpResult::Optimal { value, point } = res else {
                return Err(PolyError::Solver("recession cone LP failed".into()));
            };
            if value.is_zero() {
                if single {
                    confirmed[first] = true;
                    continue;
                }
                break;
            }
            let mut scale = 1i128;
            for p in &point {
                scale = lcm_i128(scale, p.den())?;
            }
            let y: Vec<i128> = point
                .iter()
                .map(|p| m128(p.num(), scale / p.den()))
                .collect::<PolyResult<_>>()?;
            let mut progress = false;
            for (i, row) in cone.iter().enumerate() {
                if !implicit[i] {
                    continue;
                }
                let mut v = 0i128;
                for (a, x) in row[..n].iter().zip(&y) {
                    v = a128(v, m128(*a as i128, *x)?)?;
                }
                if v > 0 {
                    implicit[i] = false;
                    progress = true;
                }
            }
            if !progress {
                return Err(PolyError::Solver(
                    "recession cone LP made no progress".into(),
                ));
            }
            for (r, v) in ray.iter_mut().zip(&y) {
                *r = a128(*r, *v)?;
            }
        }
    }
    // Column echelon form of the implicit rows.
    let mut e: Vec<Vec<i64>> = sys
        .ineqs
        .iter()
        .zip(&implicit)
        .filter(|(_, imp)| **imp)
        .map(|(r, _)| r.clone())
        .collect();
    let mut ops = Vec::new();
    let mut pivot = 0;
    for i in 0..e.len() {
        if pivot == n {
            break;
        }
        loop {
            budget.tick()?;
            let mut best: Option<usize> = None;
            let mut count = 0;
            for j in pivot..n {
                let v = e[i][j];
                if v != 0 {
                    count += 1;
                    if best.is_none_or(|b| v.unsigned_abs() < e[i][b].unsigned_abs()) {
                        best = Some(j);
                    }
                }
            }
            let Some(p) = best else { break };
            let mut step = Vec::new();
            if count == 1 {
                if p != pivot {
                    step.push(ColOp::Swap(p, pivot));
                }
            } else {
                let pv = e[i][p];
                for (j, v) in e[i].iter().enumerate().take(n).skip(pivot) {
                    if j != p && *v != 0 {
                        step.push(ColOp::AddMul {
                            dst: j,
                            src: p,
                            q: neg_quotient(*v, pv)?,
                        });
                    }
                }
            }
            for op in &step {
                for row in &mut e {
                    apply_col_op(row, *op)?;
                }
            }
            ops.extend(step);
            if count == 1 {
                pivot += 1;
                break;
            }
        }
    }
    let k = pivot;
    if k == n {
        return Ok(Decomp {
            k,
            ray: Vec::new(),
            lambda: 0,
        });
    }
    for op in &ops {
        sys.apply(*op)?;
        apply_inverse_op(&mut ray, *op)?;
    }
    if ray[..k].iter().any(|v| *v != 0) {
        return Err(PolyError::Solver(
            "internal: cone ray has a bounded component".into(),
        ));
    }
    let mut lambda = 0i128;
    for row in &sys.ineqs {
        let mut s = 0i128;
        for v in &row[k..n] {
            s = a128(s, v.unsigned_abs() as i128)?;
        }
        lambda = lambda.max(s);
    }
    Ok(Decomp { k, ray, lambda })
}

/// What [`search`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Search {
    /// Feasibility mode: a point was found (it is in `best`).
    Found,
    /// The whole tree was explored (`best` holds the best point, if any).
    Exhausted,
    /// Optimisation mode: the objective is not constant along the recession
    /// cone, so the caller must first bound it from below.
    ObjectiveAlongRay,
}

/// The thinnest direction given by two opposite rows `d·z >= lo` and
/// `d·z <= hi` among `rows` (coefficient parts exactly opposite), as
/// `(d, lo, hi)`.
fn thinnest_pair<'a>(
    rows: impl Iterator<Item = &'a [i64]> + Clone,
    n: usize,
) -> Option<(Vec<i64>, i64, i64)> {
    let mut best: Option<(&[i64], i64, i64)> = None;
    for (i, r) in rows.clone().enumerate() {
        for s in rows.clone().skip(i + 1) {
            if r[..n]
                .iter()
                .zip(&s[..n])
                .all(|(a, b)| a.checked_neg() == Some(*b))
            {
                // r: d·z + r[n] >= 0 ; s: -d·z + s[n] >= 0.
                let (Some(lo), hi) = (r[n].checked_neg(), s[n]) else {
                    continue;
                };
                let width = (hi as i128) - (lo as i128);
                if best.is_none_or(|(_, blo, bhi)| width < (bhi as i128) - (blo as i128)) {
                    best = Some((r, lo, hi));
                }
            }
        }
    }
    best.map(|(r, lo, hi)| (r[..n].to_vec(), lo, hi))
}

/// Directions whose range has at most this many integer values are split
/// into one equality per value (which removes a dimension) instead of
/// branching on a coordinate.
const THIN_DIRECTION_VALUES: i128 = 3;

/// Searches the integer points of an equality-free, normalised system.
///
/// Feasibility mode (`optimize == false`) stops at the first point. In
/// optimisation mode `best` keeps the best `(objective value, original
/// point)` and only strictly better points replace it. Nodes branch on a
/// fractional bounded coordinate, or split a thin direction into
/// equalities and recurse with one dimension less; both terminate because
/// the bounded coordinates are bounded.
fn search(
    sys: &IntSystem,
    optimize: bool,
    best: &mut Option<(i64, Vec<i64>)>,
    budget: &mut Budget,
) -> PolyResult<Search> {
    // Fast path: the relaxation is empty, or its optimum (any point in
    // feasibility mode) is already integral.
    {
        let objective = if optimize { sys.obj.as_deref() } else { None };
        let rows = sys.ineqs.iter().map(Vec::as_slice);
        match lp_rows(sys.n, std::iter::empty(), rows, objective, budget)? {
            LpResult::Infeasible => return Ok(Search::Exhausted),
            LpResult::Unbounded => {
                return Err(PolyError::Solver(
                    "internal: integer search on an unbounded relaxation".into(),
                ));
            }
            LpResult::Optimal { value, point } => {
                if optimize
                    && let Some((bv, _)) = best
                    && value.floor()? <= *bv
                {
                    return Ok(Search::Exhausted);
                }
                if point.iter().all(Rat::is_integer) {
                    let z: Vec<i64> = point.iter().map(Rat::floor).collect::<PolyResult<_>>()?;
                    let x = map_back(sys, &z)?;
                    if !optimize {
                        *best = Some((0, x));
                        return Ok(Search::Found);
                    }
                    let v = value.floor()?;
                    if best.as_ref().is_none_or(|(bv, _)| v > *bv) {
                        *best = Some((v, x));
                    }
                    return Ok(Search::Exhausted);
                }
            }
        }
    }
    let mut work = sys.clone();
    let dec = decompose(&mut work, budget)?;
    let n = work.n;
    let k = dec.k;
    let objective = if optimize { work.obj.clone() } else { None };
    if objective
        .as_ref()
        .is_some_and(|o| o[k..n].iter().any(|v| *v != 0))
    {
        return Ok(Search::ObjectiveAlongRay);
    }
    // A node is a list of extra bound rows on the bounded coordinates.
    // A node is a box `(lower, upper)` on each bounded coordinate
    // (`i64::MIN` / `i64::MAX` meaning no bound): memory per node is O(k).
    let mut stack: Vec<Vec<(i64, i64)>> = vec![vec![(i64::MIN, i64::MAX); k]];
    while let Some(node) = stack.pop() {
        budget.tick()?;
        let mut bounds: Vec<Vec<i64>> = Vec::new();
        for (j, &(lo, hi)) in node.iter().enumerate() {
            if lo != i64::MIN {
                let mut row = vec![0i64; n + 1];
                row[j] = 1;
                row[n] = lo.checked_neg().ok_or(PolyError::Overflow)?;
                bounds.push(row); // z_j >= lo
            }
            if hi != i64::MAX {
                let mut row = vec![0i64; n + 1];
                row[j] = -1;
                row[n] = hi;
                bounds.push(row); // z_j <= hi
            }
        }
        let rows = || {
            work.ineqs
                .iter()
                .map(Vec::as_slice)
                .chain(bounds.iter().map(Vec::as_slice))
        };
        let res = lp_rows(n, std::iter::empty(), rows(), objective.as_deref(), budget)?;
        let (value, point) = match res {
            LpResult::Infeasible => continue,
            LpResult::Unbounded => {
                return Err(PolyError::Solver(
                    "internal: bounded integer subproblem has an unbounded relaxation".into(),
                ));
            }
            LpResult::Optimal { value, point } => (value, point),
        };
        if optimize
            && let Some((bv, _)) = best
            && value.floor()? <= *bv
        {
            continue;
        }
        if let Some(j) = (0..k).find(|&j| !point[j].is_integer()) {
            if let Some((dir, lo, hi)) = thinnest_pair(rows(), n)
                && (hi as i128) - (lo as i128) < THIN_DIRECTION_VALUES
            {
                for v in lo..=hi {
                    budget.tick()?;
                    let mut eq = dir.clone();
                    eq.push(v.checked_neg().ok_or(PolyError::Overflow)?);
                    let mut child = IntSystem {
                        n,
                        eqs: vec![eq],
                        ineqs: rows().map(<[i64]>::to_vec).collect(),
                        back: work.back.clone(),
                        obj: work.obj.clone(),
                    };
                    if !child.eliminate_equalities(budget)? || !child.normalize_ineqs() {
                        continue;
                    }
                    match search(&child, optimize, best, budget)? {
                        Search::Found => return Ok(Search::Found),
                        Search::Exhausted => {}
                        Search::ObjectiveAlongRay => {
                            return Err(PolyError::Solver(
                                "internal: objective along a ray in a subproblem".into(),
                            ));
                        }
                    }
                }
                continue;
            }
            let f = point[j].floor()?;
            let mut lower = node.clone();
            lower[j].1 = f; // z_j <= f
            let mut upper = node;
            upper[j].0 = f.checked_add(1).ok_or(PolyError::Overflow)?; // z_j >= f + 1
            if upper[j].0 == i64::MAX {
                return Err(PolyError::Overflow);
            }
            if f == i64::MIN {
                return Err(PolyError::Overflow);
            }
            stack.push(upper);
            stack.push(lower);
            continue;
        }
        // Integral on the bounded coordinates: round the rest along the ray.
        let mut z = Vec::with_capacity(n);
        for (j, p) in point.iter().enumerate() {
            if j < k {
                z.push(p.floor()?);
            } else {
                let base = p.floor()? as i128;
                let shifted = a128(base, m128(dec.lambda, dec.ray[j])?)?;
                z.push(to_i64(shifted)?);
            }
        }
        for row in rows() {
            if IntSystem::eval(row, &z)? < 0 {
                return Err(PolyError::Solver(
                    "internal: rounded point violates a constraint".into(),
                ));
            }
        }
        let x = map_back(&work, &z)?;
        if !optimize {
            *best = Some((0, x));
            return Ok(Search::Found);
        }
        let v = match &objective {
            Some(o) => to_i64(IntSystem::eval(o, &z)?)?,
            None => 0,
        };
        if best.as_ref().is_none_or(|(bv, _)| v > *bv) {
            *best = Some((v, x));
        }
    }
    Ok(Search::Exhausted)
}

/// Maps a point in current coordinates back to the original variables.
fn map_back(sys: &IntSystem, z: &[i64]) -> PolyResult<Vec<i64>> {
    sys.back
        .iter()
        .map(|r| IntSystem::eval(r, z).and_then(to_i64))
        .collect()
}

/// Re-checks an integer point against every row of `b`.
fn verify(b: &BasicSet, x: &[i64]) -> PolyResult<()> {
    for (rows, is_eq) in [(&b.eqs, true), (&b.ineqs, false)] {
        for row in rows {
            let v = IntSystem::eval(row, x)?;
            if (is_eq && v != 0) || v < 0 {
                return Err(PolyError::Solver(
                    "internal: integer point fails re-verification".into(),
                ));
            }
        }
    }
    Ok(())
}

/// Some integer point (original coordinates) of an equality-free,
/// normalised system.
fn feasible_point(sys: &IntSystem, budget: &mut Budget) -> PolyResult<Option<Vec<i64>>> {
    let mut best = None;
    search(sys, false, &mut best, budget)?;
    Ok(best.map(|(_, x)| x))
}

/// Shared driver: feasibility (`objective == None`) or maximisation.
fn integer_solve(
    b: &BasicSet,
    objective: Option<&[i64]>,
    budget: &mut Budget,
) -> PolyResult<IntResult> {
    let mut sys = IntSystem::new(b, objective);
    if !sys.eliminate_equalities(budget)? || !sys.normalize_ineqs() {
        return Ok(IntResult::Infeasible);
    }
    let Some(original_objective) = objective else {
        let Some(x) = feasible_point(&sys, budget)? else {
            return Ok(IntResult::Infeasible);
        };
        verify(b, &x)?;
        return Ok(IntResult::Optimal { value: 0, point: x });
    };
    let n = sys.n;
    let obj = sys.obj.clone().expect("objective present");
    let relax = lp_rows(
        n,
        std::iter::empty(),
        sys.ineqs.iter().map(Vec::as_slice),
        Some(&obj),
        budget,
    )?;
    let upper = match relax {
        LpResult::Infeasible => return Ok(IntResult::Infeasible),
        LpResult::Unbounded => {
            // Integer hull and polyhedron share their recession cone.
            return Ok(match feasible_point(&sys, budget)? {
                Some(x) => {
                    verify(b, &x)?;
                    IntResult::Unbounded
                }
                None => IntResult::Infeasible,
            });
        }
        LpResult::Optimal { value, .. } => value.floor()?,
    };
    let mut best = None;
    if search(&sys, true, &mut best, budget)? == Search::ObjectiveAlongRay {
        // Find some point, then bound the objective from below too, so that
        // it becomes constant along the recession cone.
        let Some(x0) = feasible_point(&sys, budget)? else {
            return Ok(IntResult::Infeasible);
        };
        let lo = to_i64(IntSystem::eval(original_objective, &x0)?)?;
        best = Some((lo, x0));
        if lo < upper {
            let mut cut = obj.clone();
            cut[n] = cut[n].checked_sub(lo).ok_or(PolyError::Overflow)?;
            sys.ineqs.push(cut);
            if search(&sys, true, &mut best, budget)? == Search::ObjectiveAlongRay {
                return Err(PolyError::Solver(
                    "internal: bounded objective depends on an unbounded direction".into(),
                ));
            }
        }
    }
    let Some((value, x)) = best else {
        return Ok(IntResult::Infeasible);
    };
    verify(b, &x)?;
    let check = to_i64(IntSystem::eval(original_objective, &x)?)?;
    if check != value {
        return Err(PolyError::Solver(
            "internal: objective value differs on re-verification".into(),
        ));
    }
    Ok(IntResult::Optimal { value, point: x })
}

// ---------------------------------------------------------------------------
// Public integer API.

/// Maximum of `objective·x + objective[last]` over the integer points of `b`.
pub(crate) fn integer_max(
    b: &BasicSet,
    objective: &[i64],
    budget: &mut Budget,
) -> PolyResult<IntResult> {
    check_objective(b, objective)?;
    integer_solve(b, Some(objective), budget)
}

/// Minimum of `objective·x + objective[last]` over the integer points of `b`.
pub(crate) fn integer_min(
    b: &BasicSet,
    objective: &[i64],
    budget: &mut Budget,
) -> PolyResult<IntResult> {
    check_objective(b, objective)?;
    let neg = negate_row(objective)?;
    Ok(match integer_solve(b, Some(&neg), budget)? {
        IntResult::Optimal { value, point } => IntResult::Optimal {
            value: value.checked_neg().ok_or(PolyError::Overflow)?,
            point,
        },
        other => other,
    })
}

/// Some integer point of `b` (one entry per non-constant column,
/// existentials included), or `None` when it has none.
pub(crate) fn integer_point(b: &BasicSet, budget: &mut Budget) -> PolyResult<Option<Vec<i64>>> {
    check_widths(b)?;
    Ok(match integer_solve(b, None, budget)? {
        IntResult::Optimal { point, .. } => Some(point),
        _ => None,
    })
}

/// Whether `b` has no integer point, with the default budget. `Err(Budget)`
/// means undecided (treat as "maybe non-empty").
pub fn is_integer_empty(b: &BasicSet) -> PolyResult<bool> {
    Ok(integer_point(b, &mut Budget::default())?.is_none())
}

/// [`is_integer_empty`] with an explicit budget.
pub(crate) fn is_integer_empty_with_budget(b: &BasicSet, budget: &mut Budget) -> PolyResult<bool> {
    Ok(integer_point(b, budget)?.is_none())
}

/// Maximum over the integer points of `b` with the columns in `fixed` set to
/// the given values (for instance parameters). The returned point includes
/// the fixed columns.
#[cfg(test)]
pub(crate) fn integer_max_fixed(
    b: &BasicSet,
    fixed: &[(usize, i64)],
    objective: &[i64],
    budget: &mut Budget,
) -> PolyResult<IntResult> {
    check_objective(b, objective)?;
    let mut c = b.clone();
    let w = c.width();
    for &(col, val) in fixed {
        if col + 1 >= w {
            return Err(PolyError::SpaceMismatch(format!(
                "fixed column {col} is not a variable column"
            )));
        }
        let mut row = vec![0i64; w];
        row[col] = 1;
        row[w - 1] = val.checked_neg().ok_or(PolyError::Overflow)?;
        c.eqs.push(row);
    }
    integer_solve(&c, Some(objective), budget)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::space::{Space, Tuple};
    use crate::util::rng::Rng;

    fn set(n: usize, eqs: &[&[i64]], ineqs: &[&[i64]]) -> BasicSet {
        let dims: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
        let mut b = BasicSet::universe(Space::set(Vec::new(), Tuple::anonymous(dims)));
        for e in eqs {
            b.add_eq(e.to_vec());
        }
        for i in ineqs {
            b.add_ineq(i.to_vec());
        }
        b
    }

    fn rat(n: i128, d: i128) -> Rat {
        Rat::new(n, d).expect("valid")
    }

    fn budget() -> Budget {
        Budget::default()
    }

    #[test]
    fn lp_on_a_box_by_hand() {
        // 0 <= x <= 2, 0 <= y <= 3.
        let b = set(2, &[], &[&[1, 0, 0], &[-1, 0, 2], &[0, 1, 0], &[0, -1, 3]]);
        assert_eq!(
            lp_max(&b, &[1, 1, 0]),
            Ok(LpResult::Optimal {
                value: Rat::from_int(5),
                point: vec![Rat::from_int(2), Rat::from_int(3)]
            })
        );
        assert_eq!(
            lp_min(&b, &[1, 1, 7]),
            Ok(LpResult::Optimal {
                value: Rat::from_int(7),
                point: vec![Rat::zero(), Rat::zero()]
            })
        );
        assert_eq!(rational_is_empty(&b), Ok(false));
    }

    #[test]
    fn lp_fractional_infeasible_and_unbounded_by_hand() {
        // 2x = 3: x = 3/2.
        let b = set(1, &[&[2, -3]], &[]);
        assert_eq!(
            lp_max(&b, &[1, 0]),
            Ok(LpResult::Optimal {
                value: rat(3, 2),
                point: vec![rat(3, 2)]
            })
        );
        assert_eq!(is_integer_empty(&b), Ok(true));
        assert_eq!(rational_is_empty(&b), Ok(false));
        // x >= 1 and x <= 0.
        let e = set(1, &[], &[&[1, -1], &[-1, 0]]);
        assert_eq!(rational_is_empty(&e), Ok(true));
        assert_eq!(lp_max(&e, &[1, 0]), Ok(LpResult::Infeasible));
        // x >= 0: max x unbounded, min x = 0; y free and unconstrained.
        let u = set(2, &[], &[&[1, 0, 0]]);
        assert_eq!(lp_max(&u, &[1, 0, 0]), Ok(LpResult::Unbounded));
        assert_eq!(lp_max(&u, &[0, 1, 0]), Ok(LpResult::Unbounded));
        assert!(matches!(
            lp_min(&u, &[1, 0, 0]),
            Ok(LpResult::Optimal { value, .. }) if value.is_zero()
        ));
        // x + y <= 1, x - y <= 0, 3x - y >= -1 ... max x = 1/2 at (1/2, 1/2).
        let t = set(2, &[], &[&[-1, -1, 1], &[-1, 1, 0], &[3, -1, 1]]);
        assert_eq!(
            lp_max(&t, &[1, 0, 0]),
            Ok(LpResult::Optimal {
                value: rat(1, 2),
                point: vec![rat(1, 2), rat(1, 2)]
            })
        );
    }

    #[test]
    fn integer_solver_by_hand() {
        // 2 <= 3x <= 4 has no integer x (rationally x in [2/3, 4/3] contains 1).
        let b = set(1, &[], &[&[3, -2], &[-3, 4]]);
        assert_eq!(integer_point(&b, &mut budget()), Ok(Some(vec![1])));
        // 4 <= 3x <= 5 has no integer point but rational ones.
        let b = set(1, &[], &[&[3, -4], &[-3, 5]]);
        assert_eq!(rational_is_empty(&b), Ok(false));
        assert_eq!(is_integer_empty(&b), Ok(true));
        // Unbounded strip 1 <= 2x - 2y <= 1: no integer point.
        let s = set(2, &[], &[&[2, -2, -1], &[-2, 2, 1]]);
        assert_eq!(is_integer_empty(&s), Ok(true));
        // Unbounded strip 1 <= 3x - 5y <= 2 has integer points (x=2,y=1).
        let s = set(2, &[], &[&[3, -5, -1], &[-3, 5, 2]]);
        let p = integer_point(&s, &mut budget())
            .expect("decided")
            .expect("point");
        let v = 3 * p[0] - 5 * p[1];
        assert!((1..=2).contains(&v));
        assert_eq!(
            integer_max(&s, &[1, 0, 0], &mut budget()),
            Ok(IntResult::Unbounded)
        );
        // x >= y >= 0 : max -x-y = 0 at origin, min x unbounded below? no: x >= 0.
        let c = set(2, &[], &[&[1, -1, 0], &[0, 1, 0]]);
        assert_eq!(
            integer_max(&c, &[-1, -1, 0], &mut budget()),
            Ok(IntResult::Optimal {
                value: 0,
                point: vec![0, 0]
            })
        );
        assert_eq!(
            integer_min(&c, &[1, 0, 0], &mut budget()),
            Ok(IntResult::Optimal {
                value: 0,
                point: vec![0, 0]
            })
        );
        // 2x + 3y = 7 with x, y >= 0: points (2, 1) only; max x = 2.
        let e = set(2, &[&[2, 3, -7]], &[&[1, 0, 0], &[0, 1, 0]]);
        assert_eq!(
            integer_max(&e, &[1, 0, 0], &mut budget()),
            Ok(IntResult::Optimal {
                value: 2,
                point: vec![2, 1]
            })
        );
        // Triangle 0 <= y, 2y <= x, x <= 3 - y... max y over integers: y=1 at x=2.
        let t = set(2, &[], &[&[0, 1, 0], &[1, -2, 0], &[-1, -1, 3]]);
        assert!(matches!(
            lp_max(&t, &[0, 1, 0]),
            Ok(LpResult::Optimal { value, .. }) if value == Rat::from_int(1)
        ));
        assert!(matches!(
            integer_max(&t, &[0, 1, 0], &mut budget()),
            Ok(IntResult::Optimal { value: 1, .. })
        ));
        // Fixed parameter: {[N, i] : 0 <= i < N}, max i with N = 100 is 99.
        let p = set(2, &[], &[&[0, 1, 0], &[1, -1, -1]]);
        assert!(matches!(
            integer_max_fixed(&p, &[(0, 100)], &[0, 1, 0], &mut budget()),
            Ok(IntResult::Optimal { value: 99, point }) if point == vec![100, 99]
        ));
        // Bad widths are reported, not panicked on.
        assert!(matches!(
            lp_max(&p, &[1, 0]),
            Err(PolyError::SpaceMismatch(_))
        ));
    }

    #[test]
    fn huge_coefficients_overflow_instead_of_lying() {
        let m = i64::MAX;
        // Dense rows of huge, pairwise different coefficients: the tableau
        // entries grow like products of several of them, beyond i128.
        let rows: Vec<Vec<i64>> = (0..5)
            .map(|i| {
                (0..5)
                    .map(|j| m - 3 - (7 * i + 11 * j + i * j) as i64)
                    .chain(std::iter::once(if i % 2 == 0 { -m + 5 } else { m - 9 }))
                    .collect()
            })
            .collect();
        let refs: Vec<&[i64]> = rows.iter().map(Vec::as_slice).collect();
        let b = set(5, &[], &refs);
        assert_eq!(lp_max(&b, &[1, 2, 3, 4, 5, 0]), Err(PolyError::Overflow));
        assert_eq!(
            integer_point(&b, &mut budget()).map(|_| ()),
            Err(PolyError::Overflow)
        );
        // Equality elimination with huge coefficients overflows too.
        let e = set(
            3,
            &[&[m, m - 1, 0, 0], &[0, m - 2, m - 4, 1]],
            &[&[m - 6, m - 8, m - 10, 3]],
        );
        assert_eq!(is_integer_empty(&e), Err(PolyError::Overflow));
        // A huge but harmless coefficient gives the right answer.
        let h = set(1, &[], &[&[-m, m - 1], &[1, 0]]);
        assert_eq!(
            lp_max(&h, &[1, 0]),
            Ok(LpResult::Optimal {
                value: rat((m - 1) as i128, m as i128),
                point: vec![rat((m - 1) as i128, m as i128)]
            })
        );
        assert_eq!(
            integer_max(&h, &[1, 0], &mut budget()),
            Ok(IntResult::Optimal {
                value: 0,
                point: vec![0]
            })
        );
    }

    #[test]
    fn zero_dimensional_sets_and_budget_exhaustion() {
        let yes = set(0, &[], &[&[3]]);
        let no = set(0, &[&[0]], &[&[-1]]);
        assert_eq!(rational_is_empty(&yes), Ok(false));
        assert_eq!(rational_is_empty(&no), Ok(true));
        assert_eq!(integer_point(&yes, &mut budget()), Ok(Some(vec![])));
        assert_eq!(integer_point(&no, &mut budget()), Ok(None));
        assert_eq!(
            lp_max(&yes, &[5]),
            Ok(LpResult::Optimal {
                value: Rat::from_int(5),
                point: vec![]
            })
        );
        assert_eq!(
            integer_min(&yes, &[-2], &mut budget()),
            Ok(IntResult::Optimal {
                value: -2,
                point: vec![]
            })
        );
        // A budget of a few steps cannot decide a set that needs branching:
        // the answer is Err(Budget), never a guess.
        let thin = set(
            2,
            &[],
            &[&[3, -5, -1], &[-3, 5, 2], &[1, 0, 0], &[-1, 0, 40]],
        );
        assert_eq!(
            integer_point(&thin, &mut Budget::steps(3)),
            Err(PolyError::Budget)
        );
        assert!(
            integer_point(&thin, &mut budget())
                .expect("decided")
                .is_some()
        );
    }

    /// Whether an integer point satisfies every row, evaluated in `i128`
    /// (rows of `i64` times points of `i64`, at most 6 terms: no overflow).
    fn satisfies_wide(b: &BasicSet, x: &[i64]) -> bool {
        let eval = |row: &[i64]| -> i128 {
            row.iter()
                .zip(x)
                .map(|(a, v)| *a as i128 * *v as i128)
                .sum::<i128>()
                + row[row.len() - 1] as i128
        };
        b.eqs.iter().all(|r| eval(r) == 0) && b.ineqs.iter().all(|r| eval(r) >= 0)
    }

    /// Random unbounded systems with small, large and extreme coefficients
    /// (1 500 cases by default, times `POLYFOLD_PROPTEST_CASES`): no panic,
    /// only `Overflow` or `Budget` errors, every returned point satisfies
    /// every constraint, and the answers agree with each other (a point
    /// exists iff the maximum is not `Infeasible`; the LP optimum bounds the
    /// integer optimum).
    #[test]
    fn random_wild_systems_never_lie() {
        let cases = proptest_cases(1500);
        let mut rng = Rng::new(0xF022);
        let coefficient = |rng: &mut Rng| -> i64 {
            match rng.below(24) {
                0 => *rng.pick(&[i64::MAX, i64::MIN, i64::MAX - 1, i64::MIN + 1]),
                1 => rng.range(-(1 << 40), 1 << 40),
                2 | 3 => rng.range(-100_000, 100_000),
                4..=11 => 0,
                _ => rng.range(-5, 5),
            }
        };
        let mut decided = 0;
        let (mut n_budget, mut n_overflow) = (0, 0);
        for case in 0..cases {
            let n = rng.range(1, 5) as usize;
            let dims: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
            let mut b = BasicSet::universe(Space::set(Vec::new(), Tuple::anonymous(dims)));
            for _ in 0..rng.range(0, 2) {
                let r: Vec<i64> = (0..=n).map(|_| coefficient(&mut rng)).collect();
                b.add_eq(r);
            }
            for _ in 0..rng.range(1, 6) {
                let r: Vec<i64> = (0..=n).map(|_| coefficient(&mut rng)).collect();
                b.add_ineq(r);
            }
            let obj: Vec<i64> = (0..=n).map(|_| rng.range(-3, 3)).collect();
            let ctx = format!("case {case}: {b:?}");
            let allowed = |e: &PolyError| matches!(e, PolyError::Overflow | PolyError::Budget);
            let point = integer_point(&b, &mut Budget::steps(3_000));
            let max = integer_max(&b, &obj, &mut Budget::steps(3_000));
            let lp = lp_max(&b, &obj);
            if let Err(e) = &point {
                assert!(allowed(e), "{ctx}: {e:?}");
            }
            if let Err(e) = &max {
                assert!(allowed(e), "{ctx}: {e:?}");
            }
            if let Err(e) = &lp {
                assert!(allowed(e), "{ctx}: {e:?}");
            }
            if let Ok(Some(p)) = &point {
                assert!(satisfies_wide(&b, p), "{ctx}");
            }
            if let Ok(IntResult::Optimal { value, point: p }) = &max {
                assert!(satisfies_wide(&b, p), "{ctx}");
                let v: i128 = obj
                    .iter()
                    .zip(p)
                    .map(|(a, x)| *a as i128 * *x as i128)
                    .sum::<i128>()
                    + obj[n] as i128;
                assert_eq!(v, *value as i128, "{ctx}");
                if let Ok(lp) = &lp {
                    match lp {
                        LpResult::Optimal { value: lv, .. } => {
                            assert!(*lv >= Rat::from_int(*value), "{ctx}")
                        }
                        other => panic!("{ctx}: LP {other:?} but integer optimum"),
                    }
                }
            }
            for r in [point.as_ref().err(), max.as_ref().err()]
                .into_iter()
                .flatten()
            {
                match r {
                    PolyError::Budget => n_budget += 1,
                    _ => n_overflow += 1,
                }
            }
            if let (Ok(p), Ok(m)) = (&point, &max) {
                decided += 1;
                assert_eq!(p.is_none(), *m == IntResult::Infeasible, "{ctx}: {m:?}");
            }
            if let (Ok(LpResult::Infeasible), Ok(p)) = (&lp, &point) {
                assert!(p.is_none(), "{ctx}");
            }
        }
        // Counts are printed for `--nocapture` runs.
        eprintln!("decided {decided}, budget {n_budget}, overflow {n_overflow}");
        assert!(decided > cases / 2, "{decided}");
    }

    /// A random system over `n` variables, each boxed in `[-8, 8]`, with
    /// coefficients in `[-4, 4]`.
    fn random_boxed(rng: &mut Rng, n: usize) -> BasicSet {
        let dims: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
        let mut b = BasicSet::universe(Space::set(Vec::new(), Tuple::anonymous(dims)));
        for j in 0..n {
            let mut lo = vec![0; n + 1];
            lo[j] = 1;
            lo[n] = 8;
            b.add_ineq(lo);
            let mut hi = vec![0; n + 1];
            hi[j] = -1;
            hi[n] = 8;
            b.add_ineq(hi);
        }
        let n_ineq = rng.range(0, 4) as usize;
        for _ in 0..n_ineq {
            let mut r: Vec<i64> = (0..n).map(|_| rng.range(-4, 4)).collect();
            r.push(rng.range(-12, 12));
            b.add_ineq(r);
        }
        if rng.chance(1, 3) {
            // A thin strip lo <= a·x <= lo + w with w in [0, 2].
            let a: Vec<i64> = (0..n).map(|_| rng.range(-4, 4)).collect();
            let lo = rng.range(-6, 6);
            let w = rng.range(0, 2);
            let mut r1 = a.clone();
            r1.push(-lo);
            let mut r2: Vec<i64> = a.iter().map(|v| -v).collect();
            r2.push(lo + w);
            b.add_ineq(r1);
            b.add_ineq(r2);
        }
        let n_eq = if rng.chance(1, 3) { rng.range(1, 2) } else { 0 };
        for _ in 0..n_eq {
            let mut r: Vec<i64> = (0..n).map(|_| rng.range(-4, 4)).collect();
            r.push(rng.range(-8, 8));
            b.add_eq(r);
        }
        b
    }

    /// The maximum and minimum of `obj` over the integer points of a system
    /// whose variables are all boxed in `[-8, 8]` (`None` when there is no
    /// point), by enumeration: every prefix of the box is scanned, and the
    /// last coordinate's feasible values are worked out row by row.
    fn brute_range(b: &BasicSet, obj: &[i64]) -> Option<(i64, i64)> {
        let n = b.width() - 1;
        let mut best: Option<(i64, i64)> = None;
        let mut x = vec![-8i64; n];
        if n == 0 {
            return (b.contains_point(&[]).expect("small") == Some(true)).then(|| (obj[0], obj[0]));
        }
        loop {
            // Feasible values of x[n-1] given x[..n-1].
            let (mut lo, mut hi) = (-8i64, 8i64);
            x[n - 1] = 0;
            for (row, is_eq) in b
                .eqs
                .iter()
                .map(|r| (r, true))
                .chain(b.ineqs.iter().map(|r| (r, false)))
            {
                let rest = eval(row, &x);
                let a = row[n - 1];
                if a == 0 {
                    if (is_eq && rest != 0) || rest < 0 {
                        lo = 1;
                        hi = 0;
                    }
                } else if is_eq {
                    if rest % a != 0 {
                        lo = 1;
                        hi = 0;
                    } else {
                        let v = -rest / a;
                        lo = lo.max(v);
                        hi = hi.min(v);
                    }
                } else if a > 0 {
                    // a·v + rest >= 0  <=>  v >= ceil(-rest / a)
                    lo = lo.max(-(rest.div_euclid(a)));
                } else {
                    // v <= floor(rest / -a)
                    hi = hi.min(rest.div_euclid(-a));
                }
            }
            if lo <= hi {
                for v in [lo, hi] {
                    x[n - 1] = v;
                    assert!(contains(b, &x), "interval scan is exact");
                    let o = eval(obj, &x);
                    best = Some(match best {
                        None => (o, o),
                        Some((mx, mn)) => (mx.max(o), mn.min(o)),
                    });
                }
            }
            let mut j = 0;
            loop {
                if j + 1 >= n {
                    return best;
                }
                if x[j] < 8 {
                    x[j] += 1;
                    break;
                }
                x[j] = -8;
                j += 1;
            }
        }
    }

    /// All integer points of a system boxed in `[-8, 8]` with at most
    /// three variables, by enumeration of the box.
    fn brute_points_small(b: &BasicSet) -> Vec<Vec<i64>> {
        let n = b.width() - 1;
        let mut out = Vec::new();
        let total = 17usize.pow(n as u32);
        for mut code in 0..total {
            let mut x = Vec::with_capacity(n);
            for _ in 0..n {
                x.push((code % 17) as i64 - 8);
                code /= 17;
            }
            if contains(b, &x) {
                out.push(x);
            }
        }
        out
    }

    fn contains(b: &BasicSet, x: &[i64]) -> bool {
        b.contains_point(x).expect("small") == Some(true)
    }

    fn satisfies_rational(b: &BasicSet, p: &[Rat]) -> bool {
        let eval = |row: &[i64]| -> Rat {
            let mut acc = Rat::from_int(*row.last().expect("row"));
            for (a, x) in row.iter().zip(p) {
                acc = acc
                    .checked_add(Rat::from_int(*a).checked_mul(*x).expect("small"))
                    .expect("small");
            }
            acc
        };
        b.eqs.iter().all(|r| eval(r).is_zero()) && b.ineqs.iter().all(|r| eval(r).signum() >= 0)
    }

    fn eval(row: &[i64], x: &[i64]) -> i64 {
        row.iter().zip(x).map(|(a, v)| a * v).sum::<i64>() + row[row.len() - 1]
    }

    /// Random boxed systems (1 to 4 dimensions plus an optional parameter
    /// column, 3 000 cases by default, times `POLYFOLD_PROPTEST_CASES`):
    /// rational and integer emptiness, integer points, and integer and LP
    /// optima against enumeration of the box.
    #[test]
    fn random_boxed_systems_match_brute_force() {
        let cases = proptest_cases(3000);
        let mut rng = Rng::new(0xB0C5);
        let mut nonempty = 0;
        for case in 0..cases {
            let n = rng.range(1, 4) as usize + usize::from(rng.chance(1, 3));
            let b = random_boxed(&mut rng, n);
            let mut obj: Vec<i64> = (0..n).map(|_| rng.range(-4, 4)).collect();
            obj.push(rng.range(-5, 5));
            let range = brute_range(&b, &obj);
            let ctx = format!("case {case}: {b:?} obj {obj:?}");
            // Rational emptiness.
            match rational_point_with_budget(&b, &mut budget()).expect(&ctx) {
                Some(p) => assert!(satisfies_rational(&b, &p), "{ctx}"),
                None => assert!(range.is_none(), "{ctx}"),
            }
            // Integer emptiness and point.
            let ip = integer_point(&b, &mut budget()).expect(&ctx);
            assert_eq!(ip.is_none(), range.is_none(), "{ctx}");
            if let Some(p) = &ip {
                assert!(contains(&b, p), "{ctx}");
            }
            // Integer optimum.
            let best = range.map(|r| r.0);
            let worst = range.map(|r| r.1);
            match integer_max(&b, &obj, &mut budget()).expect(&ctx) {
                IntResult::Optimal { value, point } => {
                    assert_eq!(Some(value), best, "{ctx}");
                    assert_eq!(eval(&obj, &point), value, "{ctx}");
                    assert!(contains(&b, &point), "{ctx}");
                }
                IntResult::Infeasible => assert!(best.is_none(), "{ctx}"),
                IntResult::Unbounded => panic!("bounded set reported unbounded: {ctx}"),
            }
            match integer_min(&b, &obj, &mut budget()).expect(&ctx) {
                IntResult::Optimal { value, .. } => assert_eq!(Some(value), worst, "{ctx}"),
                IntResult::Infeasible => assert!(worst.is_none(), "{ctx}"),
                IntResult::Unbounded => panic!("bounded set reported unbounded: {ctx}"),
            }
            // LP optimum bounds the integer optimum.
            match lp_max(&b, &obj).expect(&ctx) {
                LpResult::Optimal { value, point } => {
                    assert!(satisfies_rational(&b, &point), "{ctx}");
                    if let Some(best) = best {
                        assert!(value >= Rat::from_int(best), "{ctx}");
                    }
                }
                LpResult::Infeasible => assert!(best.is_none(), "{ctx}"),
                LpResult::Unbounded => panic!("bounded set reported unbounded: {ctx}"),
            }
            if let LpResult::Optimal { value, .. } = lp_min(&b, &obj).expect(&ctx)
                && let Some(worst) = worst
            {
                assert!(value <= Rat::from_int(worst), "{ctx}");
            }
            if range.is_some() {
                nonempty += 1;
            }
        }
        // The generator must exercise both answers.
        assert!(
            nonempty > cases / 5 && nonempty < cases * 4 / 5,
            "{nonempty}"
        );
    }

    /// Unbounded systems (2 000 cases by default, times
    /// `POLYFOLD_PROPTEST_CASES`): a random boxed system over `x` plus a
    /// variable `t` bounded only below by `k_i·t >= a_i·x + c_i`. Integer
    /// points exist iff the boxed part has one; `max t` is unbounded and
    /// `min t` is the brute-force minimum of `max_i ceil((a_i·x + c_i)/k_i)`.
    #[test]
    fn random_unbounded_systems_match_brute_force() {
        let cases = proptest_cases(2000);
        let mut rng = Rng::new(0x0B0B);
        for case in 0..cases {
            let n = rng.range(1, 3) as usize;
            let boxed = random_boxed(&mut rng, n);
            let pts = brute_points_small(&boxed);
            let mut b = boxed.clone();
            b.add_exist();
            // b has columns [x | t | const]; `add_exist` keeps the rows.
            let mut links = Vec::new();
            for _ in 0..rng.range(1, 2) {
                let k = rng.range(1, 3);
                let a: Vec<i64> = (0..n).map(|_| rng.range(-4, 4)).collect();
                let c = rng.range(-6, 6);
                let mut row: Vec<i64> = a.iter().map(|v| -v).collect();
                row.push(k);
                row.push(-c);
                b.add_ineq(row);
                links.push((k, a, c));
            }
            let ctx = format!("case {case}: {b:?}");
            let ceil_div = |p: i64, q: i64| -> i64 { -((-p).div_euclid(q)) };
            let tmin = pts
                .iter()
                .map(|x| {
                    links
                        .iter()
                        .map(|(k, a, c)| ceil_div(eval(&[a.as_slice(), &[*c]].concat(), x), *k))
                        .max()
                        .expect("at least one link")
                })
                .min();
            let mut obj_t = vec![0i64; n + 2];
            obj_t[n] = 1;
            let ip = integer_point(&b, &mut budget()).expect(&ctx);
            assert_eq!(ip.is_some(), tmin.is_some(), "{ctx}");
            if let Some(p) = ip {
                assert!(contains(&boxed, &p[..n]), "{ctx}");
                for (k, a, c) in &links {
                    assert!(
                        k * p[n] >= eval(&[a.as_slice(), &[*c]].concat(), &p[..n]),
                        "{ctx}"
                    );
                }
            }
            let max = integer_max(&b, &obj_t, &mut budget()).expect(&ctx);
            let min = integer_min(&b, &obj_t, &mut budget()).expect(&ctx);
            match tmin {
                None => {
                    assert_eq!(max, IntResult::Infeasible, "{ctx}");
                    assert_eq!(min, IntResult::Infeasible, "{ctx}");
                }
                Some(tmin) => {
                    assert_eq!(max, IntResult::Unbounded, "{ctx}");
                    assert!(
                        matches!(min, IntResult::Optimal { value, .. } if value == tmin),
                        "{ctx}: {min:?} vs {tmin}"
                    );
                }
            }
        }
    }

    /// Unbounded strips `lo <= a·x + b·y + c·z <= hi` with only `z` boxed
    /// (1 000 cases by default, times `POLYFOLD_PROPTEST_CASES`): an integer
    /// point exists iff some `z` in the box and `v` in `[lo, hi]` have
    /// `gcd(a, b) | v - c·z`.
    #[test]
    fn random_strips_match_number_theory() {
        let cases = proptest_cases(1000);
        let mut rng = Rng::new(0x57819);
        for case in 0..cases {
            let (a, bb, c) = (rng.range(-6, 6), rng.range(-6, 6), rng.range(-4, 4));
            let lo = rng.range(-10, 10);
            let hi = lo + rng.range(0, 3);
            let zb = rng.range(0, 2);
            let b = set(
                3,
                &[],
                &[
                    &[a, bb, c, -lo],
                    &[-a, -bb, -c, hi],
                    &[0, 0, 1, zb],
                    &[0, 0, -1, zb],
                ],
            );
            let g = gcd_u128(a.unsigned_abs() as u128, bb.unsigned_abs() as u128) as i64;
            let expect = (-zb..=zb).any(|z| {
                (lo..=hi).any(|v| {
                    let r = v - c * z;
                    if g == 0 { r == 0 } else { r % g == 0 }
                })
            });
            let ctx = format!("case {case}: {b:?}");
            let p = integer_point(&b, &mut budget()).expect(&ctx);
            assert_eq!(p.is_some(), expect, "{ctx}");
            if let Some(p) = p {
                let v = a * p[0] + bb * p[1] + c * p[2];
                assert!(lo <= v && v <= hi && p[2].abs() <= zb, "{ctx}");
            }
        }
    }
}
