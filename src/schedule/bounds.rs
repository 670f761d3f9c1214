//! The bounds of a loop read off a statement's loop domain, shared by
//! fusion (runs of loops of the same shape) and the footprint estimate.

use crate::ir::{AffExpr, Scop, Stmt};
use crate::poly::BasicSet;

/// The bounds `lower <= i <= upper` of the loop at depth `d` as affine
/// expressions of the parameters and the enclosing loops' iterators, from
/// the statement's loop domain: one piece, no existential, one lower and
/// one upper bound of coefficient 1 (the enclosing loops' constraints,
/// which do not name `i`, are theirs).
pub(super) fn bounds(scop: &Scop, stmt: &Stmt, d: usize) -> Option<(AffExpr, AffExpr)> {
    let domain = stmt.loop_domains.get(d)?;
    let [piece] = domain.pieces.as_slice() else {
        return None;
    };
    if piece.n_exist != 0 || !piece.eqs.is_empty() {
        return None;
    }
    bounds_of(scop, piece, d)
}

/// The bounds of [`bounds`] from one piece of a loop domain: its
/// inequalities that name the loop's iterator, each over the parameters,
/// the loops up to it and the constant only (an existential after them
/// is not named).
pub(super) fn bounds_of(scop: &Scop, piece: &BasicSet, d: usize) -> Option<(AffExpr, AffExpr)> {
    let np = scop.params.len();
    if piece.space.n_param() != np {
        return None;
    }
    let width = piece.width();
    let col = np + d;
    let (mut lower, mut upper) = (None, None);
    for row in &piece.ineqs {
        if row[col] == 0 {
            continue;
        }
        // Only the parameters, the loops up to this one and the constant.
        if row[col + 1..width - 1].iter().any(|c| *c != 0) {
            return None;
        }
        let rest = row[..col].to_vec();
        match row[col] {
            // i + r >= 0: i >= -r.
            1 => {
                let aff = AffExpr {
                    coeffs: rest.iter().map(|c| -c).collect(),
                    constant: -row[width - 1],
                };
                if lower.replace(aff).is_some() {
                    return None;
                }
            }
            // -i + r >= 0: i <= r.
            -1 => {
                let aff = AffExpr {
                    coeffs: rest,
                    constant: row[width - 1],
                };
                if upper.replace(aff).is_some() {
                    return None;
                }
            }
            _ => return None,
        }
    }
    Some((lower?, upper?))
}
