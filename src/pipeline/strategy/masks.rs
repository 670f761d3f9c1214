//! Power-of-two moduli for masks (`--pow2-moduli`; issue 18, the last
//! strength reduction of `%`): trading a little memory for speed.
//!
//! After the chooser has picked an array's storage, each number modulus
//! that a `%` computes in an innermost loop (an access that may wrap, in
//! a statement of a loop that contains no other loop) is rounded up to the
//! next power of two, so that code generation prints the residue as a
//! mask, `(e) & (m - 1)`, instead of a division. A larger modulus is not
//! valid by itself (a lattice's moduli interact: distances {1, 3} never
//! collide modulo 2 or 4, but do modulo 3), so the enlarged mapping is
//! proven again on the array's difference set, for the same parameter
//! values as the chosen one, and laid out anew: one more certified
//! storage. It is kept only when the cells it adds are at most an eighth
//! of the declared cells ([`MASK_EXCESS_DEN`]; at the probe sizes when
//! some parameter has no value, with the layout proven no larger than the
//! declaration for every value, as the chooser asks) and it stays smaller
//! than the declaration; otherwise the chosen storage stays.
//!
//! Moduli are tried one dimension at a time, the smallest growth first,
//! each on top of those already kept. What this does not do: round a
//! modulus with parameters (`2 * N - 3`: its value changes with the
//! sizes), round moduli of merged buffers or packed triangles, or weigh a
//! mask against a rotating index (both cost about one instruction; the
//! flag asks for masks).

use crate::mapping::layout::DimLayout;
use crate::mapping::modular::ParamAffine;
use crate::pipeline::options::MASK_EXCESS_DEN;
use crate::pipeline::record::{MaskRefusal, MaskRounding};
use crate::poly::Budget;

use super::facts::{ArrayFacts, Choice, layout_fits};

/// Rounds the number moduli of `choice` that a `%` computes in innermost
/// loops up to powers of two where that is certified and costs little
/// (see the module's doc); `choice` becomes the enlarged storage. Returns
/// what was rounded and what was left as it was (`None`: no modulus to
/// try, `choice` unchanged).
pub(crate) fn round_up(
    facts: &ArrayFacts<'_>,
    choice: &mut Choice,
    budget: &mut Budget,
) -> Option<MaskRounding> {
    // The fixed and symbolic difference sets the chosen storage was
    // proven on (a storage certified otherwise, by a trace or as a packed
    // triangle, is left alone).
    facts.conflicts.as_ref()?;
    let layout = choice.certified.layout()?;
    let mut mapping = choice.certified.mapping()?.clone();
    if mapping.dims.len() != layout.dims.len()
        || layout
            .dims
            .iter()
            .any(|d| matches!(d, DimLayout::Packed { .. }))
    {
        return None;
    }
    let declared = facts.original_cells?;
    let base = facts.cells_of(layout)?;
    let mut candidates: Vec<(usize, i64, i64)> = Vec::new();
    for (k, dim) in layout.dims.iter().enumerate() {
        let Some(m) = number_modulus(dim) else {
            continue;
        };
        if m < 2 || m & (m - 1) == 0 || !wraps_in_innermost_loop(facts, dim) {
            continue;
        }
        if let Some(to) = u64::try_from(m)
            .ok()
            .and_then(u64::checked_next_power_of_two)
            .and_then(|to| i64::try_from(to).ok())
        {
            candidates.push((k, m, to));
        }
    }
    // The smallest growth `to / m` first (cross-multiplied; stable).
    candidates.sort_by(|(_, m1, t1), (_, m2, t2)| {
        (i128::from(*t1) * i128::from(*m2)).cmp(&(i128::from(*t2) * i128::from(*m1)))
    });
    let n_param = facts.model.params.len();
    let mut rounded: Vec<(usize, i64, i64)> = Vec::new();
    let mut refused: Vec<(i64, i64, MaskRefusal)> = Vec::new();
    let mut enlarged = None;
    for (k, m, to) in candidates {
        let mut trial = mapping.clone();
        trial.dims[k].modulus = ParamAffine::constant(n_param, to);
        let certified = match crate::pipeline::certify::certify_array_for(
            &facts.claim(),
            trial.clone(),
            choice.certified.certificate(),
            budget,
        ) {
            Ok(certified) => certified,
            Err(why) => {
                refused.push((m, to, MaskRefusal::NotCertified(why)));
                continue;
            }
        };
        let Some(cells) = certified.layout().and_then(|l| facts.cells_of(l)) else {
            refused.push((m, to, MaskRefusal::NotSmaller));
            continue;
        };
        let added = cells.saturating_sub(base);
        if i128::from(added) * i128::from(MASK_EXCESS_DEN) > i128::from(declared) {
            refused.push((m, to, MaskRefusal::Costly { added, declared }));
            continue;
        }
        let fits = facts.values_known
            || certified
                .layout()
                .is_some_and(|l| layout_fits(l, &facts.extent_affs, &facts.scop.context, budget));
        if cells >= declared || !fits {
            refused.push((m, to, MaskRefusal::NotSmaller));
            continue;
        }
        mapping = trial;
        rounded.push((k, m, to));
        enlarged = Some((certified, cells));
    }
    if rounded.is_empty() && refused.is_empty() {
        return None;
    }
    rounded.sort_unstable();
    let mut added_cells = None;
    if let Some((certified, cells)) = enlarged {
        choice.certified = certified;
        if choice.cells.is_some() {
            choice.cells = Some(cells);
        }
        added_cells = facts.values_known.then_some(cells - base);
    }
    Some(MaskRounding {
        moduli: rounded.iter().map(|(_, m, to)| (*m, *to)).collect(),
        added_cells,
        refused,
    })
}

/// The modulus of a dimension that computes residues, when it is a number.
fn number_modulus(dim: &DimLayout) -> Option<i64> {
    let (modulus, _) = dim.residues()?;
    modulus.is_constant().then_some(modulus.constant)
}

/// Whether some access of the array in an innermost loop computes the
/// `%` of `dim`: it is not proven below the modulus (not exempt), and its
/// simplest argument, when it has one, wraps.
fn wraps_in_innermost_loop(facts: &ArrayFacts<'_>, dim: &DimLayout) -> bool {
    let (exempt, arguments) = match dim {
        DimLayout::Modulo {
            exempt, arguments, ..
        }
        | DimLayout::Linear {
            exempt, arguments, ..
        } => (exempt, arguments),
        _ => return false,
    };
    facts.model.events.iter().any(|e| {
        let key = (e.statement, e.position);
        facts.scop.in_innermost_loop(e.statement)
            && !exempt.contains(&key)
            && arguments
                .iter()
                .find(|a| a.access == key)
                .is_none_or(|a| a.wraps)
    })
}
