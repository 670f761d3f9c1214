//! Live-in cells: cells that some read finds before any write of the SCoP.
//!
//! For a read event, its *exposed* iterations are the domain minus the
//! iterations that some earlier write to the same cell precedes. The set of
//! covered iterations is built with the writes' iteration vectors as
//! existentials; when they can all be eliminated exactly, the exposed
//! iterations are an exact integer set difference. Otherwise the whole read
//! is taken as exposed — a superset of the live-in cells, which only adds
//! conflicts (safe).

use crate::poly::simplex::integer_point;
use crate::poly::{BasicSet, Budget, PolyError, PolyResult, Set};

use super::cells::feasible_levels;
use super::model::{
    AccessEvent, AccessKind, ArrayModel, add_strict_order, embed_constraints, embed_row,
};

/// The live-in cells of an array, as sets over `params + A[c]` (with
/// existentials).
#[derive(Clone, Debug)]
pub(crate) struct LiveIn {
    pub pieces: Vec<BasicSet>,
    /// False when some read had to be taken as wholly exposed.
    pub exact: bool,
}

/// Iterations of `read` (a set over its domain space) that write `write`
/// precedes at schedule level `level` on the same cell.
fn covered(read: &AccessEvent, write: &AccessEvent, level: usize) -> BasicSet {
    let n_param = read.domain.space.n_param();
    // Layout: [params | read iterators | read existentials | write locals | constant].
    let mut set = read.domain.clone();
    let write_block = set.width() - 1;
    for _ in 0..write.n_local() {
        set.add_exist();
    }
    embed_constraints(&mut set, &write.domain, n_param, write_block);
    for (sw, sr) in write.subscripts.iter().zip(&read.subscripts) {
        let mut r = set.zero_row();
        embed_row(sr, n_param, n_param, 1, &mut r);
        embed_row(sw, n_param, write_block, -1, &mut r);
        set.add_eq(r);
    }
    add_strict_order(
        &mut set,
        n_param,
        (write, write_block),
        (read, n_param),
        level,
    );
    set
}

/// The cells `read` accesses on the iterations of `piece` (a subset of its
/// domain): `{ A[c] : ∃ y ∈ piece, c = subscripts(y) }`.
fn image(read: &AccessEvent, piece: &BasicSet, array: &ArrayModel) -> BasicSet {
    let n_param = array.params.len();
    let space = crate::poly::Space::set(
        array.params.clone(),
        crate::poly::Tuple::anonymous((0..array.rank).map(|p| format!("c{p}")).collect()),
    );
    let mut set = BasicSet::universe(space);
    let block = set.width() - 1;
    for _ in 0..(piece.width() - 1 - n_param) {
        set.add_exist();
    }
    embed_constraints(&mut set, piece, n_param, block);
    for (p, sub) in read.subscripts.iter().enumerate() {
        let mut r = set.zero_row();
        embed_row(sub, n_param, block, -1, &mut r);
        r[n_param + p] += 1;
        set.add_eq(r);
    }
    set
}

/// Computes the live-in cells of `array` for the parameter values of
/// `context` (a set over the parameters).
pub(crate) fn live_in_cells(
    array: &ArrayModel,
    context: &BasicSet,
    budget: &mut Budget,
) -> PolyResult<LiveIn> {
    let mut pieces = Vec::new();
    let mut exact = true;
    for read in array.events.iter().filter(|e| e.kind == AccessKind::Read) {
        let mut cover = Set::empty(read.domain.space.clone());
        for write in array.events.iter().filter(|e| e.kind == AccessKind::Write) {
            for level in feasible_levels(write, read) {
                let mut piece = covered(read, write, level);
                // The context's bounds on the parameters (not needed for
                // the difference, which is within the domain) let the
                // projection see that a linearised index is exact.
                if context.n_exist == 0 {
                    piece.add_param_constraints(context);
                }
                cover.push(piece);
            }
        }
        let mut domain = read.domain.clone();
        domain.add_param_constraints(context);
        // The context's existentials come after the read's columns, so
        // the read's subscripts line up with a piece of this width.
        let full_width = domain.width();
        let domain = Set::from_basic(domain);
        let exposed = match domain.subtract(&cover)? {
            Some(diff) => diff.pieces,
            None => {
                // Some covering writes keep existentials that cannot be
                // eliminated exactly. Their dark shadows are subsets of the
                // covered iterations, so what they leave exposed is a
                // superset of the exposed reads (safe), and often empty.
                exact = false;
                let mut inner = Set::empty(cover.space.clone());
                for piece in &cover.pieces {
                    if let Some(shadow) = dark_shadow(piece)? {
                        inner.push(shadow);
                    }
                }
                match domain.subtract(&inner)? {
                    Some(diff) => diff.pieces,
                    None => vec![read.domain.clone()],
                }
            }
        };
        for piece in exposed {
            match integer_point(&piece, budget) {
                Ok(None) => {}
                Ok(Some(_)) | Err(PolyError::Budget) => {
                    if piece.width() == full_width {
                        pieces.push(image(read, &piece, array));
                    } else {
                        // The difference simplified the piece's columns
                        // (an existential of the domain or the context,
                        // such as `N1 / 2`, eliminated): the read's
                        // subscripts no longer line up with them. The
                        // whole read is taken as exposed (a superset).
                        exact = false;
                        pieces.push(image(read, &read.domain, array));
                    }
                }
                Err(e) => return Err(e),
            }
        }
    }
    Ok(LiveIn { pieces, exact })
}

/// A subset of the integer projection of `piece` onto its set dimensions
/// (the Omega test's dark shadow), with every existential eliminated; `None`
/// when an existential sits in an equality with a non-unit coefficient (the
/// caller then drops the piece, which only shrinks a subset further).
pub(crate) fn dark_shadow(piece: &BasicSet) -> PolyResult<Option<BasicSet>> {
    use crate::poly::constraints::simplify;
    use crate::poly::project::eliminate_exists_where_exact;
    let mut cur = eliminate_exists_where_exact(piece)?;
    while cur.n_exist > 0 {
        let col = cur.exist_col(cur.n_exist - 1);
        if cur.eqs.iter().any(|r| r[col] != 0) {
            return Ok(None);
        }
        let (mut lower, mut upper, mut rest) = (Vec::new(), Vec::new(), Vec::new());
        for row in cur.ineqs.drain(..) {
            match row[col].signum() {
                1 => lower.push(row),
                -1 => upper.push(row),
                _ => rest.push(row),
            }
        }
        for l in &lower {
            for u in &upper {
                let (a, b) = (l[col] as i128, -(u[col] as i128));
                let mut row = Vec::with_capacity(l.len());
                for (x, y) in l.iter().zip(u) {
                    let v = a * (*y as i128) + b * (*x as i128);
                    row.push(i64::try_from(v).map_err(|_| PolyError::Overflow)?);
                }
                let last = row.len() - 1;
                let slack = i64::try_from((a - 1) * (b - 1)).map_err(|_| PolyError::Overflow)?;
                row[last] = row[last].checked_sub(slack).ok_or(PolyError::Overflow)?;
                rest.push(row);
            }
        }
        for row in rest.iter_mut().chain(cur.eqs.iter_mut()) {
            row.remove(col);
        }
        cur.ineqs = rest;
        cur.n_exist -= 1;
        cur = simplify(&cur)?;
    }
    Ok(Some(cur))
}

#[cfg(test)]
mod tests {
    use super::dark_shadow;
    use crate::poly::brute::{
        BruteBox, RandomShape, basic_contains, for_each_point, proptest_cases, random_basic,
    };
    use crate::poly::{Space, Tuple};
    use crate::util::rng::Rng;

    /// Every point of the dark shadow has an integer witness for the
    /// eliminated existentials (the shadow is a subset of the projection),
    /// checked by brute force on random systems with non-unit coefficients.
    /// `POLYFOLD_PROPTEST_CASES=k` runs k times more cases.
    #[test]
    fn dark_shadow_is_inside_the_integer_projection() {
        let mut rng = Rng::new(0xDA5C);
        let shape = RandomShape {
            n_rows: 4,
            max_coeff: 3,
            max_const: 6,
            half_box: 5,
            exist_half_box: 5,
            eq_one_in: 1_000_000,
            anchored: true,
        };
        let bx = BruteBox::new(-5, 5, -5, 5);
        let (mut shadows, mut points) = (0, 0);
        for _ in 0..proptest_cases(400) {
            let n_dim = rng.range(1, 2) as usize;
            let dims: Vec<String> = (0..n_dim).map(|d| format!("x{d}")).collect();
            let space = Space::set(vec![], Tuple::anonymous(dims));
            let n_exist = rng.range(1, 2) as usize;
            let piece = random_basic(&mut rng, &space, n_exist, &shape);
            let Some(shadow) = dark_shadow(&piece).expect("small coefficients do not overflow")
            else {
                continue;
            };
            assert_eq!(shadow.n_exist, 0);
            shadows += 1;
            for_each_point(n_dim, -5, 5, |p| {
                if basic_contains(&shadow, p, &bx) {
                    points += 1;
                    assert!(
                        basic_contains(&piece, p, &bx),
                        "{p:?} in the shadow of {piece} but not in its projection"
                    );
                }
                true
            });
        }
        assert!(
            shadows > 100 && points > 100,
            "the test exercised the shadow ({shadows} shadows, {points} points)"
        );
    }
}
