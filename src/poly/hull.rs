//! Simple hull of a union of polyhedra.
//!
//! The simple hull is one polyhedron that contains every piece of a union: it
//! keeps the constraint directions that appear in the pieces and, for each
//! direction `a`, takes the loosest constant over all pieces, computed by
//! exact rational LP (`a·x + c >= 0` with `c = -floor(min over pieces of
//! a·x)`). Directions that are unbounded on some piece are dropped. Every
//! hull row is checked (by LP) to hold at every integer point of every piece
//! before the hull is returned.
//!
//! The hull is an over-approximation by design (it is not the convex hull:
//! directions that appear in no piece are not discovered). Existentials of
//! the pieces are projected out first, which can only enlarge the pieces.
//!
//! What this module does NOT do: exact convex hulls, or hulls that keep
//! existentials (lattice information such as "x is even" is lost).

use std::collections::HashSet;

use super::Budget;
use super::basic::BasicSet;
use super::constraints::simplify;
use super::error::{PolyError, PolyResult, neg};
use super::project::project_out_exists;
use super::rational::Rat;
use super::set::Set;
use super::simplex::{LpResult, lp_min_with_budget, rational_is_empty_with_budget};

/// The simple hull of `s` (see the module docs). An empty union gives
/// [`BasicSet::empty`].
#[cfg(test)]
pub fn simple_hull(s: &Set) -> PolyResult<BasicSet> {
    simple_hull_with_budget(s, &mut Budget::default())
}

/// The work of setting up one linear program over `p` (its tableau), in
/// budget steps, on top of the pivots the solver charges itself: a hull
/// over many pieces solves many small programs, and their setup is most
/// of its time.
fn lp_setup_cost(p: &BasicSet) -> u64 {
    let rows = p.eqs.len() + p.ineqs.len();
    let cols = p.space.n_var() + p.n_exist + 1;
    u64::try_from(rows.saturating_mul(cols)).unwrap_or(u64::MAX)
}

/// [`simple_hull`] charging every linear program to `budget`
/// (`Err(Budget)` when it runs out).
pub(crate) fn simple_hull_with_budget(s: &Set, budget: &mut Budget) -> PolyResult<BasicSet> {
    let mut pieces: Vec<BasicSet> = Vec::new();
    for b in &s.pieces {
        let p = project_out_exists(b)?.set;
        if p.is_obviously_empty() || rational_is_empty_with_budget(&p, budget)? {
            continue;
        }
        pieces.push(p);
    }
    if pieces.is_empty() {
        return Ok(BasicSet::empty(s.space.clone()));
    }
    let n_var = s.space.n_var();
    // Candidate directions, in order of first appearance.
    let mut seen: HashSet<Vec<i64>> = HashSet::new();
    let mut directions: Vec<Vec<i64>> = Vec::new();
    for p in &pieces {
        let mut add = |dir: Vec<i64>| {
            if dir.iter().any(|a| *a != 0) && seen.insert(dir.clone()) {
                directions.push(dir);
            }
        };
        for r in &p.ineqs {
            add(r[..n_var].to_vec());
        }
        for r in &p.eqs {
            add(r[..n_var].to_vec());
            let mut m = Vec::with_capacity(n_var);
            for a in &r[..n_var] {
                m.push(neg(*a)?);
            }
            add(m);
        }
    }
    let mut hull = BasicSet::universe(s.space.clone());
    'dirs: for dir in &directions {
        let mut objective = dir.clone();
        objective.push(0);
        let mut worst: Option<Rat> = None;
        for p in &pieces {
            budget.charge(lp_setup_cost(p))?;
            match lp_min_with_budget(p, &objective, budget)? {
                LpResult::Optimal { value, .. } => {
                    if worst.is_none_or(|w| value < w) {
                        worst = Some(value);
                    }
                }
                LpResult::Unbounded => continue 'dirs,
                LpResult::Infeasible => {}
            }
        }
        if let Some(min) = worst {
            let mut row = dir.clone();
            row.push(neg(min.floor()?)?);
            hull.ineqs.push(row);
        }
    }
    let hull = simplify(&hull)?;
    // Containment check: every hull row (both directions of an equality)
    // holds at every integer point of every piece. Rows were tightened to
    // integers by `simplify`, so the rational minimum may lie in (-1, 0);
    // a row takes integer values at integer points, so `> -1` suffices.
    let mut rows: Vec<Vec<i64>> = hull.ineqs.clone();
    for row in &hull.eqs {
        rows.push(row.clone());
        let mut m = Vec::with_capacity(row.len());
        for a in row {
            m.push(neg(*a)?);
        }
        rows.push(m);
    }
    for p in &pieces {
        for row in &rows {
            budget.charge(lp_setup_cost(p))?;
            let holds = match lp_min_with_budget(p, row, budget)? {
                LpResult::Optimal { value, .. } => value > Rat::from_int(-1),
                LpResult::Unbounded => false,
                LpResult::Infeasible => true,
            };
            if !holds {
                return Err(PolyError::Solver(
                    "simple hull does not contain a piece".into(),
                ));
            }
        }
    }
    Ok(hull)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::brute::{
        BruteBox, RandomShape, basic_contains, for_each_point, proptest_cases, random_basic,
        set_contains,
    };
    use crate::poly::space::{Space, Tuple};
    use crate::util::rng::Rng;

    #[test]
    fn hull_stops_when_its_budget_runs_out() {
        // Many pieces and directions: a budget of a few steps cannot pay
        // for the linear programs, and the hull says so instead of running on
        // (the campaign found lattice polytopes whose hull took minutes).
        let space = Space::set(vec![], Tuple::new(None, &["x", "y"]));
        let mut s = Set::empty(space.clone());
        for k in 0..20i64 {
            let mut b = BasicSet::universe(space.clone());
            b.add_ineq(vec![1, k, 0]);
            b.add_ineq(vec![-1, -k, 5]);
            b.add_ineq(vec![k, 1, 0]);
            b.add_ineq(vec![-k, -1, 7]);
            s.push(b);
        }
        let mut tiny = Budget::steps(5);
        assert!(matches!(
            simple_hull_with_budget(&s, &mut tiny),
            Err(PolyError::Budget)
        ));
        // With room it succeeds and contains every piece.
        let h = simple_hull_with_budget(&s, &mut Budget::steps(10_000_000)).unwrap();
        let bx = BruteBox::new(-40, 40, 0, 0);
        for_each_point(2, -40, 40, |p| {
            if set_contains(&s, p, &bx) {
                assert!(basic_contains(&h, p, &bx), "{p:?}");
            }
            true
        });
    }

    #[test]
    fn hull_of_two_squares_by_hand() {
        // [0,1]x[0,1] and [3,4]x[0,1]: the simple hull is [0,4]x[0,1].
        let space = Space::set(vec![], Tuple::new(None, &["x", "y"]));
        let square = |x0: i64| {
            let mut b = BasicSet::universe(space.clone());
            b.add_ineq(vec![1, 0, -x0]);
            b.add_ineq(vec![-1, 0, x0 + 1]);
            b.add_ineq(vec![0, 1, 0]);
            b.add_ineq(vec![0, -1, 1]);
            b
        };
        let mut s = Set::from_basic(square(0));
        s.push(square(3));
        let h = simple_hull(&s).unwrap();
        let bx = BruteBox::new(-3, 6, 0, 0);
        for x in -3..=6 {
            for y in -3..=6 {
                assert_eq!(
                    basic_contains(&h, &[x, y], &bx),
                    (0..=4).contains(&x) && (0..=1).contains(&y),
                    "({x}, {y})"
                );
            }
        }
        assert!(
            simple_hull(&Set::empty(space))
                .unwrap()
                .is_obviously_empty()
        );
    }

    /// Property: the simple hull of a random union (pieces possibly with an
    /// existential) contains every point of the union. Cases scale with
    /// `POLYFOLD_PROPTEST_CASES`.
    #[test]
    fn hull_contains_the_union() {
        let mut rng = Rng::new(0x4B11_0001);
        for _ in 0..proptest_cases(1000) {
            let n_param = rng.below(2);
            let n_dim = 1 + rng.below(3);
            let half = if n_param + n_dim <= 2 { 5 } else { 3 };
            let params: Vec<String> = (0..n_param).map(|i| format!("p{i}")).collect();
            let dims: Vec<String> = (0..n_dim).map(|i| format!("x{i}")).collect();
            let space = Space::set(params, Tuple::anonymous(dims));
            let mut s = Set::empty(space.clone());
            for _ in 0..1 + rng.below(3) {
                let shape = RandomShape {
                    n_rows: 1 + rng.below(3),
                    max_coeff: 4,
                    max_const: 4,
                    half_box: half,
                    exist_half_box: half,
                    eq_one_in: 5,
                    anchored: rng.chance(2, 3),
                };
                let n_exist = if rng.chance(1, 4) { 1 } else { 0 };
                s.pieces
                    .push(random_basic(&mut rng, &space, n_exist, &shape));
            }
            let h = simple_hull(&s).unwrap();
            assert_eq!(h.n_exist, 0);
            let bx = BruteBox::new(-half, half, -half, half);
            for_each_point(space.n_var(), -half, half, |p| {
                if set_contains(&s, p, &bx) {
                    assert!(basic_contains(&h, p, &bx), "hull {h} misses {p:?} of {s}");
                }
                true
            });
        }
    }
}
