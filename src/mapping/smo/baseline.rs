//! The baseline SMO is compared with (seed 000 §2.1–§2.2): successive
//! modulo per statement along the canonical axes of the global array space,
//! then inter-array reuse by rectangular hulls and greedy colouring
//! (Lefebvre and Feautrier).
//!
//! Moduli are parametric (`poly::farkas::least_upper_bound` on each intra
//! conflict piece); whether two statements may share a hull is decided
//! exactly for the given parameter values (a statement joins the first
//! colour class whose hull stays collision-free with it, checked by
//! [`super::certify::certify_fixed`]).
//!
//! What this module does NOT do: search other axis orders, or decide the
//! colouring for all parameter values at once.

use crate::mapping::modular::ParamAffine;
use crate::poly::farkas::least_upper_bound;
use crate::poly::simplex::{LpResult, integer_point, lp_max};
use crate::poly::{BasicSet, Budget, PolyError};

use super::certify::{SmoVerdict, certify_fixed};
use super::input::{ConflictSpec, StmtId};
use super::solve::{
    ArrayMapping, Hyperplane, SmoSolution, is_fixed, max_affine, with_array_spaces,
};

/// Successive-modulo moduli of one statement along each axis, or an error
/// message when a bound could not be found.
pub(crate) fn successive_moduli(
    spec: &ConflictSpec,
    stmt: StmtId,
) -> Result<Result<Vec<ParamAffine>, String>, PolyError> {
    let np = spec.params.len();
    let n = spec.n_dim;
    let mut pieces = Vec::new();
    for k in &spec.conflicts {
        if k.source == stmt && k.target == stmt {
            for p in &k.relation.pieces {
                pieces.push(with_array_spaces(spec, p));
            }
        }
    }
    let mut moduli = Vec::with_capacity(n);
    for axis in 0..n {
        let mut bounds: Vec<ParamAffine> = Vec::new();
        for piece in &pieces {
            let mut q = piece.clone();
            equal_before(&mut q, np, n, axis);
            if integer_point(&q, &mut Budget::default_query())?.is_none() {
                continue;
            }
            for sign in [1i64, -1] {
                let mut form = vec![0i64; q.space.n_var() + 1];
                form[np + axis] = sign;
                form[np + n + axis] = -sign;
                match least_upper_bound(&q, &form)? {
                    Some(b) => bounds.push(ParamAffine {
                        coeffs: b.u,
                        constant: crate::poly::error::add(b.w, 1)?,
                        den: 1,
                    }),
                    // A piece whose parameters are fixed (a conflict set
                    // built for known values) is bounded by a constant.
                    None if np > 0 && params_fixed(&q, np)? => {
                        let LpResult::Optimal { value, .. } = lp_max(&q, &form)? else {
                            return Ok(Err(format!(
                                "no bound on axis {axis} for statement {}",
                                stmt.0
                            )));
                        };
                        bounds.push(ParamAffine::constant(
                            np,
                            crate::poly::error::add(value.floor()?, 1)?,
                        ));
                    }
                    None => {
                        return Ok(Err(format!(
                            "no parametric bound on axis {axis} for statement {}",
                            stmt.0
                        )));
                    }
                }
            }
        }
        // The coefficient-wise maximum bounds every piece (for parameters
        // >= 0) but may be loose; a smaller candidate (one piece's bound)
        // is used when it is proven to bound every piece exactly.
        let mut cands = bounds.clone();
        cands.sort_by(|a, b| (&a.coeffs, a.constant).cmp(&(&b.coeffs, b.constant)));
        let mut modulus = max_affine(&bounds, np);
        for cand in cands {
            if cand.coeffs > modulus.coeffs
                || (cand.coeffs == modulus.coeffs && cand.constant >= modulus.constant)
            {
                continue;
            }
            if bounds_all(&pieces, axis, np, n, &cand)? {
                modulus = cand;
                break;
            }
        }
        moduli.push(modulus);
    }
    Ok(Ok(moduli))
}

/// Whether every parameter takes one value on `q`.
fn params_fixed(q: &crate::poly::BasicSet, np: usize) -> Result<bool, PolyError> {
    for p in 0..np {
        if !is_fixed(q, p)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Whether `|x_axis − y_axis| < modulus(P)` on every piece restricted to
/// equal earlier axes (decided exactly, parameters free).
fn bounds_all(
    pieces: &[crate::poly::BasicSet],
    axis: usize,
    np: usize,
    n: usize,
    modulus: &ParamAffine,
) -> Result<bool, PolyError> {
    for piece in pieces {
        for sign in [1i64, -1] {
            let mut q = piece.clone();
            equal_before(&mut q, np, n, axis);
            // sign·(x − y) − modulus(P) >= 0.
            let mut row = q.zero_row();
            row[np + axis] = sign;
            row[np + n + axis] = -sign;
            for (p, c) in modulus.coeffs.iter().enumerate() {
                row[p] = -c;
            }
            let last = row.len() - 1;
            row[last] = -modulus.constant;
            q.add_ineq(row);
            if integer_point(&q, &mut Budget::default_query())?.is_some() {
                return Ok(false);
            }
        }
    }
    Ok(true)
}

fn axis_array(spec: &ConflictSpec, stmts: &[StmtId], moduli: &[Vec<ParamAffine>]) -> ArrayMapping {
    let n = spec.n_dim;
    let np = spec.params.len();
    let mut levels = Vec::new();
    let mut hull = Vec::new();
    for axis in 0..n {
        let mut coeffs = vec![0i64; n];
        coeffs[axis] = 1;
        levels.push(vec![Hyperplane { coeffs, offset: 0 }; stmts.len()]);
        let per_stmt: Vec<ParamAffine> = moduli.iter().map(|s| s[axis].clone()).collect();
        hull.push(max_affine(&per_stmt, np));
    }
    ArrayMapping {
        statements: stmts.to_vec(),
        levels,
        stmt_moduli: Vec::new(),
        intra_moduli: Vec::new(),
        moduli: hull,
    }
}

/// The baseline for parameter values `values`: per statement successive
/// modulo, then greedy colouring into rectangular hulls.
pub fn baseline(
    spec: &ConflictSpec,
    values: &[i64],
) -> Result<Result<SmoSolution, String>, PolyError> {
    let mut moduli = Vec::new();
    for j in 0..spec.n_statements {
        match successive_moduli(spec, StmtId(j))? {
            Ok(m) => moduli.push(m),
            Err(why) => return Ok(Err(why)),
        }
    }
    // Classes of statement indices.
    let mut classes: Vec<Vec<usize>> = Vec::new();
    let build = |classes: &[Vec<usize>]| -> SmoSolution {
        SmoSolution {
            arrays: classes
                .iter()
                .map(|c| {
                    let stmts: Vec<StmtId> = c.iter().map(|j| StmtId(*j)).collect();
                    let ms: Vec<Vec<ParamAffine>> = c.iter().map(|j| moduli[*j].clone()).collect();
                    axis_array(spec, &stmts, &ms)
                })
                .collect(),
            n_levels_solved: 0,
        }
    };
    for j in 0..spec.n_statements {
        let mut placed = false;
        for ci in 0..classes.len() {
            let mut trial = classes.clone();
            trial[ci].push(j);
            // Statements not placed yet get arrays of their own.
            for later in j + 1..spec.n_statements {
                trial.push(vec![later]);
            }
            if certify_fixed(spec, &build(&trial), values) == SmoVerdict::Valid {
                classes[ci].push(j);
                placed = true;
                break;
            }
        }
        if !placed {
            classes.push(vec![j]);
        }
    }
    Ok(Ok(build(&classes)))
}

/// Constrains the two points of a conflict piece (`x` at `np`, `y` at
/// `np + n`) to agree on their first `axis` coordinates.
fn equal_before(q: &mut BasicSet, np: usize, n: usize, axis: usize) {
    for d in 0..axis {
        let mut row = q.zero_row();
        row[np + d] = 1;
        row[np + n + d] = -1;
        q.add_eq(row);
    }
}
