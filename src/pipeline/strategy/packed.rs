//! Packed triangles (seed 004's triangle folding, as packed storage).
//!
//! A temporary whose accesses all stay inside a triangle of two of its
//! dimensions, `0 <= c_q <= c_p < E` (lower) or `0 <= c_p <= c_q < E`
//! (upper), both declared `E`: when every value of the triangle is live
//! at once, no modular mapping can do better than the difference set of
//! the triangle allows (`T - T`, a hexagon of area `3E²`, so at least
//! `3E²/4` cells for a lattice: reg_detect's `sum_t` at 27 of 36 for
//! `E = 6`), while the triangle has `E·(E + 1)/2` cells (21). Packing it row by row,
//! `c_p·(c_p + 1)/2 + c_q` (lower) or `c_p·(2E - c_p - 1)/2 + c_q`
//! (upper), is a bijection from the triangle onto `0..E·(E + 1)/2`: it
//! folds no two cells, so it is valid whatever the lifetimes, and the
//! only proof it needs is that every access is inside the triangle, for
//! every parameter value (`mapping::layout::packed_layout`).
//!
//! Seed 004 partitions the enclosing triangle and folds one part onto the
//! other by a central symmetry, which gives the same count with affine
//! pieces and a condition per access; the row-packed index has no
//! condition and one multiplication, invariant in the inner loop when the
//! row is the outer iterator. Proposed only when strictly smaller than
//! the current choice (the other dimensions keep their extents), for
//! arrays whose declarator may change, and with the sizes symbolic
//! (`E·(E + 1)/2` is not affine: a `%` with it is never needed).
//!
//! The index is computed in the subscripts' type: with `int` iterators,
//! `c_p·(2E - 1 - c_p)` stays below `E²`, the number of cells of the
//! original declaration, so it overflows only for an array of `2^31`
//! cells or more.
//!
//! Not done here: triangles that do not start at 0 or end at `E - 1`
//! (a shifted or strict triangle, `c_q < c_p`), triangles of two
//! dimensions declared with different extents, and packing combined with
//! folding along time.

use std::time::Instant;

use crate::mapping::Method;
use crate::mapping::layout::Triangle;
use crate::mapping::modular::{ModularMapping, ParamAffine};
use crate::pipeline::record::KeptReason as Kept;
use crate::poly::Budget;

use super::{ArrayFacts, Chooser, Proof, Proposal, Proposals};

pub(super) fn propose(
    facts: &mut ArrayFacts<'_>,
    chooser: &Chooser,
    _budget: &mut Budget,
) -> Result<Proposals, Kept> {
    let start = Instant::now();
    let rank = facts.model.rank;
    let array = facts.scop.array(facts.array);
    if rank < 2 || !facts.options.packing || !facts.allow_symbolic || array.keeps_declarator() {
        return Ok(Proposals::default());
    }
    let Some(extents) = facts
        .extent_affs
        .iter()
        .cloned()
        .collect::<Option<Vec<ParamAffine>>>()
    else {
        return Ok(Proposals::default());
    };
    let Some(values) = extents
        .iter()
        .map(|e| e.eval(&facts.values).ok())
        .collect::<Option<Vec<i64>>>()
    else {
        return Ok(Proposals::default());
    };
    let mut list = Vec::new();
    for p in 0..rank {
        for q in p + 1..rank {
            let e = &extents[p];
            if extents[q] != *e || !e.is_affine() || e.is_constant() && e.constant < 1 {
                continue;
            }
            let side = values[p];
            let triangle = i128::from(side) * i128::from(side + 1) / 2;
            let rest = values
                .iter()
                .enumerate()
                .filter(|(k, _)| *k != p && *k != q)
                .try_fold(triangle, |acc, (_, v)| acc.checked_mul(i128::from(*v)));
            let Some(cells) = rest.and_then(|c| i64::try_from(c).ok()) else {
                continue;
            };
            if cells >= chooser.current() {
                continue;
            }
            for kind in [Triangle::Lower, Triangle::Upper] {
                list.push(Proposal {
                    method: Method::TrianglePacked,
                    mapping: ModularMapping::axis(
                        &array.name,
                        &facts.model.params,
                        extents.clone(),
                    ),
                    proof: Proof::Packed((p, q, kind)),
                    cells: Some(cells),
                    time: start.elapsed(),
                });
            }
        }
    }
    Ok(Proposals {
        list,
        ..Proposals::default()
    })
}
