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
//! row is the outer iterator. Proposed when not larger than the current
//! choice (on a tie the chooser takes the layout without `%`; the other
//! dimensions keep their extents), for arrays whose declarator may
//! change, with the sizes symbolic (`E·(E + 1)/2` is not affine: a `%`
//! with it is never needed). Strict triangles (no diagonal, `E·(E -
//! 1)/2`) come first; their extent must be proven at least 2, from a
//! lower end on (`_Static_assert(N >= 2)`) where the context does not
//! say so. The proof is for every value, from a lower end on, or for the
//! known values when the array's model folded one.
//!
//! The index is computed in the subscripts' type: with `int` iterators,
//! `c_p·(2E - 1 - c_p)` stays below `E²`, the number of cells of the
//! original declaration, so it overflows only for an array of `2^31`
//! cells or more.
//!
//! Not done here: triangles that do not start at 0 or end at `E - 1`
//! (a shifted triangle), triangles of two
//! dimensions declared with different extents, and packing combined with
//! folding along time.

use std::time::Instant;

use crate::mapping::Method;
use crate::mapping::layout::Triangle;
use crate::mapping::modular::{ModularMapping, ParamAffine};
use crate::pipeline::certify::Scope;
use crate::pipeline::record::KeptReason as Kept;
use crate::poly::Budget;

use super::facts::{ArrayFacts, Chooser, Proof, Proposal, Proposals};

pub(super) fn propose(
    facts: &mut ArrayFacts<'_>,
    chooser: &Chooser,
    budget: &mut Budget,
) -> Result<Proposals, Kept> {
    let start = Instant::now();
    let rank = facts.model.rank;
    let array = facts.scop.array(facts.array);
    if rank < 2 || !facts.options.packing || array.keeps_declarator() {
        return Ok(Proposals::default());
    }
    // The proofs' parameter values. The packing renames cells, so the
    // lifetimes do not matter where no cell is live-in; where some are
    // for some values (dynprog's `c[0][N - 1]`, read and never written
    // when N = 1), the proof is for the values without (from a lower end
    // on, pinned; checked for the known values first, as for any
    // mapping): the declaration's initialiser, which the new declarator
    // drops, may be what such a read sees. A model that folded a known
    // value into a coefficient is exact for the known values only.
    let pinnable = facts.macros_pinnable;
    let scopes: Vec<Scope> = if facts.scop.array_depends_on_values(facts.array) {
        if !pinnable {
            return Ok(Proposals::default());
        }
        vec![Scope::KnownValues]
    } else if !facts.allow_symbolic {
        if !pinnable {
            return Ok(Proposals::default());
        }
        facts.conflicts(budget)?;
        facts
            .live_in_free(budget)
            .into_iter()
            .map(Scope::AtLeast)
            .collect()
    } else {
        // A strict triangle needs its extent at least 2 where the
        // program is valid, which the context may not say (`N >= 1`):
        // from 2 on it holds, pinned as `_Static_assert(N >= 2, …)`.
        let mut s = vec![Scope::EveryValue];
        if pinnable {
            s.push(Scope::AtLeast(2));
        }
        s
    };
    let facts = &*facts;
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
            for kind in Triangle::ALL {
                let rest = values
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| *k != p && *k != q)
                    .try_fold(kind.cells(values[p]), |acc, (_, v)| {
                        acc.checked_mul(i128::from(*v))
                    });
                let Some(cells) = rest.and_then(|c| i64::try_from(c).ok()) else {
                    continue;
                };
                // A tie too: the chooser takes the layout without `%`.
                if cells < 1 || cells > chooser.current() {
                    continue;
                }
                for scope in &scopes {
                    // With every value proposed, the region from 2 on only
                    // for the strict triangle's extent.
                    if scopes.contains(&Scope::EveryValue)
                        && matches!(scope, Scope::AtLeast(_))
                        && !kind.is_strict()
                    {
                        continue;
                    }
                    list.push(Proposal {
                        method: Method::TrianglePacked,
                        mapping: ModularMapping::axis(
                            &array.name,
                            &facts.model.params,
                            extents.clone(),
                        ),
                        proof: Proof::Packed((p, q, kind), *scope),
                        cells: Some(cells),
                        time: start.elapsed(),
                    });
                }
            }
        }
    }
    // Smallest first (the strict triangles), in the order found on ties.
    list.sort_by_key(|p| p.cells);
    Ok(Proposals {
        list,
        ..Proposals::default()
    })
}
