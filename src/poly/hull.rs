//! Simple hull of a union of polyhedra.
//!
//! The simple hull is one polyhedron that contains every piece of a union: it
//! keeps the constraint directions that appear in the pieces and, for each
//! direction `a`, takes the loosest constant over all pieces, computed by
//! exact rational LP (`a·x + c >= 0` with `c = -floor(min over pieces of
//! a·x)`). Directions that are unbounded on some piece are dropped. Every
//! hull row is checked to hold on every piece before the hull is returned.
//!
//! The hull is an over-approximation by design (it is not the convex hull:
//! directions that appear in no piece are not discovered). Existentials of
//! the pieces are projected out first, which can only enlarge the pieces.
//!
//! What this module does NOT do: exact convex hulls, or hulls that keep
//! existentials (lattice information such as "x is even" is lost).

use std::collections::HashSet;

use super::basic::BasicSet;
use super::constraints::simplify;
use super::error::{PolyError, PolyResult, neg};
use super::project::project_out_exists;
use super::rational::Rat;
use super::set::Set;
use super::simplex::{LpResult, lp_min, rational_is_empty};

/// The simple hull of `s` (see the module docs). An empty union gives
/// [`BasicSet::empty`].
pub fn simple_hull(s: &Set) -> PolyResult<BasicSet> {
    let mut pieces: Vec<BasicSet> = Vec::new();
    for b in &s.pieces {
        let p = project_out_exists(b)?.set;
        if p.is_obviously_empty() || rational_is_empty(&p)? {
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
            match lp_min(p, &objective)? {
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
    // holds on every piece.
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
            let holds = match lp_min(p, row)? {
                LpResult::Optimal { value, .. } => value >= Rat::from_int(0),
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
