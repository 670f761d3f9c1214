//! Exact certification of SMO mappings against the global conflict set.
//!
//! A solution is valid iff, for every conflict polyhedron `K` between
//! statements `j` and `k` stored in the same array, the collision set
//! `{ (x, y) ∈ K : σ_j(x) = σ_k(y) }` has no integer point, where
//! `σ_j(x) = [(Γ_j^l·x + δ_j^l) mod E_l]_l`. Statements in different arrays
//! never collide.
//!
//! - For fixed parameter values the congruences become equalities with one
//!   existential per level (`f_l = E_l·q_l`) and each collision set is
//!   decided exactly by `poly::simplex::integer_point`.
//! - For all parameter values a superset is proven empty: a collision needs,
//!   at every level, `f_l = 0` or `|f_l| >= E_l` (or `E_l <= 0`); every
//!   combination is a polyhedron with the parameters free. A failed
//!   symbolic proof is not a collision.
//!
//! What this module does NOT do: decide anything with floating point, or
//! trust the ILP that produced the mapping.

use crate::poly::enumerate::fix_params;
use crate::poly::simplex::integer_point;
use crate::poly::{BasicSet, Budget, PolyError};

use super::input::{ConflictSpec, StmtId};
use super::solve::{SmoSolution, difference_row, with_array_spaces};

/// The verdict of a certification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SmoVerdict {
    /// No collision for these parameter values.
    Valid,
    /// Two conflicting cells share a location: the point is
    /// `(params, x, y)` of conflict polyhedron `conflict`.
    Collision { conflict: usize, point: Vec<i64> },
    /// The solver could not decide (budget, overflow).
    Undecided(String),
}

/// Checks `sol` for the parameter values `values` (one per parameter).
pub fn certify_fixed(spec: &ConflictSpec, sol: &SmoSolution, values: &[i64]) -> SmoVerdict {
    match certify_fixed_inner(spec, sol, values) {
        Ok(v) => v,
        Err(e) => SmoVerdict::Undecided(e.to_string()),
    }
}

fn certify_fixed_inner(
    spec: &ConflictSpec,
    sol: &SmoSolution,
    values: &[i64],
) -> Result<SmoVerdict, PolyError> {
    let np = spec.params.len();
    if values.len() != np {
        return Err(PolyError::SpaceMismatch(format!(
            "{np} parameter values needed"
        )));
    }
    for (ci, k) in spec.conflicts.iter().enumerate() {
        let Some(shared) = shared_array(sol, k.source, k.target) else {
            return Ok(SmoVerdict::Undecided(format!(
                "statement of conflict {ci} has no mapping"
            )));
        };
        let Some((aj, sj, sk)) = shared else {
            continue;
        };
        let array = &sol.arrays[aj];
        for piece in &k.relation.pieces {
            let mut q: BasicSet = with_array_spaces(spec, piece);
            fix_params(&mut q, values);
            for (level, modulus) in array.levels.iter().zip(&array.moduli) {
                let e = modulus.eval(values)?;
                if e < 1 {
                    return Ok(SmoVerdict::Undecided(format!(
                        "modulus {e} is not positive"
                    )));
                }
                let col = q.add_exist();
                let mut row = difference_row(&q, np, spec.n_dim, &level[sj], &level[sk]);
                row[col] = -e;
                q.add_eq(row);
            }
            if let Some(point) = integer_point(&q, &mut Budget::default_query())? {
                let n = np + 2 * spec.n_dim;
                return Ok(SmoVerdict::Collision {
                    conflict: ci,
                    point: point[..n].to_vec(),
                });
            }
        }
    }
    Ok(SmoVerdict::Valid)
}

/// For a conflict from `source` to `target`: `None` when a statement has
/// no mapping; `Some(None)` when they are in different arrays (they never
/// share a cell); otherwise their array and their positions in it.
fn shared_array(
    sol: &SmoSolution,
    source: StmtId,
    target: StmtId,
) -> Option<Option<(usize, usize, usize)>> {
    let (aj, ak) = (sol.array_of(source)?, sol.array_of(target)?);
    if aj != ak {
        return Some(None);
    }
    let statements = &sol.arrays.get(aj)?.statements;
    let sj = statements.iter().position(|s| *s == source)?;
    let sk = statements.iter().position(|s| *s == target)?;
    Some(Some((aj, sj, sk)))
}

/// Tries to prove `sol` valid for every parameter value. `Ok(true)` is a
/// proof; `Ok(false)` means "not proven" (not a collision).
pub fn certify_symbolic(spec: &ConflictSpec, sol: &SmoSolution) -> Result<bool, PolyError> {
    let np = spec.params.len();
    for k in &spec.conflicts {
        let Some(shared) = shared_array(sol, k.source, k.target) else {
            return Ok(false);
        };
        let Some((aj, sj, sk)) = shared else {
            continue;
        };
        let array = &sol.arrays[aj];
        let mut frontier: Vec<BasicSet> = k
            .relation
            .pieces
            .iter()
            .map(|p| with_array_spaces(spec, p))
            .collect();
        for (level, modulus) in array.levels.iter().zip(&array.moduli) {
            let mut next = Vec::new();
            for q in &frontier {
                let f = difference_row(q, np, spec.n_dim, &level[sj], &level[sk]);
                let mut e_row = q.zero_row();
                e_row[..np].copy_from_slice(&modulus.coeffs);
                let last = e_row.len() - 1;
                e_row[last] = modulus.constant;
                let mut cands = Vec::new();
                let mut zero = q.clone();
                zero.add_eq(f.clone());
                cands.push(zero);
                for sign in [1i64, -1] {
                    let mut c = q.clone();
                    let row: Vec<i64> = f.iter().zip(&e_row).map(|(a, b)| a * sign - b).collect();
                    c.add_ineq(row);
                    cands.push(c);
                }
                let mut nonpos = q.clone();
                nonpos.add_ineq(e_row.iter().map(|v| -v).collect());
                cands.push(nonpos);
                for c in cands {
                    if integer_point(&c, &mut Budget::default_query())?.is_some() {
                        next.push(c);
                    }
                }
            }
            frontier = next;
        }
        if !frontier.is_empty() {
            return Ok(false);
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mapping::smo::input::parse_smo_input;
    use crate::mapping::smo::solve::{SmoOptions, smo_solve};

    /// The 1-d ping-pong of seed 000 Fig. 2 (statement number in x1).
    const PINGPONG: &str = "[N] -> { [t, s, i] : 0 <= t < N and 0 <= s <= 1 and 0 <= i < N }\n\
        [N] -> { [t, s, i] : 0 <= t < N and 0 <= s <= 1 and 0 <= i < N }\n\
        y0 y1 y2\n2\n4\n\
        0 0\n[N] -> { [x0, x1, x2] -> [y0, y1, y2] : x0 = y0 and x1 = 0 and y1 = 0 and x2 < y2 }\n\
        0 1\n[N] -> { [x0, x1, x2] -> [y0, y1, y2] : x0 = y0 and x1 = 0 and y1 = 1 and x2 > y2 }\n\
        1 1\n[N] -> { [x0, x1, x2] -> [y0, y1, y2] : x0 = y0 and x1 = 1 and y1 = 1 and x2 < y2 }\n\
        1 0\n[N] -> { [x0, x1, x2] -> [y0, y1, y2] : x0 = y0 - 1 and x1 = 1 and y1 = 0 and x2 >= y2 }\n";

    #[test]
    fn pingpong_solution_is_certified_and_a_smaller_modulus_is_caught() {
        let spec = parse_smo_input(PINGPONG).expect("parses");
        let sol = smo_solve(&spec, &SmoOptions::default())
            .expect("no solver error")
            .expect("a mapping");
        // Hand computation (seed 000 §1): one array of N + 1 cells.
        assert_eq!(sol.size(&[7]), Ok(8));
        assert_eq!(certify_fixed(&spec, &sol, &[7]), SmoVerdict::Valid);
        assert_eq!(certify_symbolic(&spec, &sol), Ok(true));
        // Shrinking the modulus to N must collide (only N cells hold the
        // N + 1 values live at the start of a time step).
        let mut bad = sol.clone();
        bad.arrays[0].moduli[0].constant -= 1;
        match certify_fixed(&spec, &bad, &[7]) {
            SmoVerdict::Collision { point, .. } => assert_eq!(point.len(), 7),
            other => panic!("expected a collision, got {other:?}"),
        }
        assert_eq!(certify_symbolic(&spec, &bad), Ok(false));
        // Putting both statements in one array with the successive-modulo
        // mapping (i mod N, shared) collides too (seed 000 §3.1.1).
        let mut shared = sol.clone();
        for h in shared.arrays[0].levels[0].iter_mut() {
            h.coeffs = vec![0, 0, 1];
            h.offset = 0;
        }
        shared.arrays[0].moduli[0] = crate::mapping::modular::ParamAffine {
            coeffs: vec![1],
            constant: 0,
            den: 1,
        };
        assert!(matches!(
            certify_fixed(&spec, &shared, &[7]),
            SmoVerdict::Collision { .. }
        ));
    }
}
