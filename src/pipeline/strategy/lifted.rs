//! Lattices lifted to every size. The lattice strategies of seed 001 §4
//! are searches for fixed parameter values; their mappings often have the
//! same basis at every size and moduli affine in the parameters (durbin's
//! `y`: `(2i + k) mod (2N - 3)` for every N ≥ 2). Here they run at small
//! probe values — a base point, one step along each parameter, and a check
//! point two steps along all of them — and when one basis is found at each
//! point with moduli that move affinely (the check point confirming the
//! fit), the mapping with those affine moduli is proposed for every
//! parameter value ([`Scope::EveryValue`]), to be certified on the symbolic
//! difference set like any other. When the fit holds only from some size
//! on (durbin's 2N − 3 from N = 4) and the known values are `#define`s, it
//! is also proposed for every value from a small lower end on
//! ([`Scope::AtLeast`]: pinned as `_Static_assert(N >= 4, …)`), before the
//! moduli with a few more cells that hold for every value. The searches
//! run on the small difference
//! sets of the probe values, whatever the program's own sizes: their cost
//! does not grow with them, and neither does the mapping's formula.
//!
//! An array with live-in cells for some values only (a cell read and never
//! written when N = 1) gets the fit from the smallest of those lower ends
//! above which it has none, pinned the same way; it has no proof for
//! every value.
//!
//! Not lifted: a basis that changes with the sizes, moduli that are not
//! affine (`floor(N / 2)`), and arrays whose proof needs the known values
//! (live-in cells at every size, values folded into the model).

use std::time::Instant;

use crate::mapping::Method;
use crate::mapping::lattice::{Candidate, LatticeOptions, lattice_candidates};
use crate::mapping::modular::{ModularMapping, ParamAffine};
use crate::mapping::successive::{fix_and_simplify, moduli_for_values};
use crate::pipeline::certify::Scope;
use crate::pipeline::options::{
    FIXED_SEARCH_CELLS, LIFT_LATTICE_STEPS, LIFT_OPTIMAL_STEPS, LIFT_TRACE_STEPS, PIN_FROM,
    PROBE_BASE,
};
use crate::pipeline::record::KeptReason as Kept;
use crate::poly::{BasicSet, Budget};
use crate::verify::Storage as TraceStorage;

use super::facts::{ArrayFacts, Chooser, Proof, Proposal, Proposals};

/// How many lifted mappings are proposed at most (in order of size at the
/// base point, then simplicity).
const MAX_LIFTED: usize = 2;

/// The most cells added to each lifted modulus to make it hold for every
/// value (see [`propose`]).
const MAX_SLACK: i64 = 3;

pub(super) fn propose(
    facts: &mut ArrayFacts<'_>,
    chooser: &Chooser,
    budget: &mut Budget,
) -> Result<Proposals, Kept> {
    let options = facts.options;
    let n_param = facts.model.params.len();
    // With live-in cells for some values (dynprog's `c[0][N - 1]`, read
    // and never written when N = 1), no proof for every value exists; one
    // from a size on does, where there are none: pinned to the known
    // values' range (`_Static_assert(N >= 2)`).
    let from_sizes_only = !facts.allow_symbolic
        && facts.macros_pinnable
        && !facts.scop.array_depends_on_values(facts.array)
        && !facts.live_in.pieces.is_empty();
    if !options.lattices
        || !(facts.allow_symbolic || from_sizes_only)
        || facts.model.rank < 2
        || n_param == 0
        || chooser.current() <= 1
    {
        return Ok(Proposals::default());
    }
    let start = Instant::now();
    // The lower ends above which no cell is live-in (checked on the
    // live-in sets, a superset when inexact: empty there means none).
    let live_in_free: Vec<i64> = if from_sizes_only {
        facts.live_in_free(budget)
    } else {
        Vec::new()
    };
    if from_sizes_only && live_in_free.is_empty() {
        return Ok(Proposals::default());
    }
    facts.conflicts(budget)?;
    let Some(points) =
        crate::pipeline::probe::probe_points(&facts.scop.context, n_param, PROBE_BASE, budget)
    else {
        return Ok(Proposals::default());
    };
    // The searches are the fixed-size ones: at the probe sizes too, only
    // on arrays of at most FIXED_SEARCH_CELLS cells.
    let probe_cells = facts.extent_affs.iter().try_fold(1i64, |acc, e| {
        acc.checked_mul(e.as_ref()?.eval(&points[0]).ok()?.max(1))
    });
    if probe_cells.is_none_or(|c| c > FIXED_SEARCH_CELLS) {
        return Ok(Proposals::default());
    }
    // Nothing to gain when successive modulo meets the max-live count at
    // the base point (both cheap there: the probe sizes are small).
    let ds = &facts.conflicts.as_ref().expect("computed").ds;
    let rank = facts.model.rank;
    let successive = moduli_for_values(ds, rank, &points[0], budget)
        .ok()
        .and_then(|m| m.iter().try_fold(1i64, |acc, b| acc.checked_mul(*b)));
    let live = super::facts::trace_array(
        facts.scop,
        facts.array,
        &TraceStorage::Original,
        &points[0],
        (LIFT_TRACE_STEPS, options.time_per_array),
        budget,
    )
    .ok()
    .map(|t| t.max_live[facts.array.0 as usize] as i64);
    if let (Some(s), Some(l)) = (successive, live)
        && s <= l
    {
        return Ok(Proposals::default());
    }
    let lattice_options = LatticeOptions {
        array: facts.scop.array(facts.array).name.clone(),
        optimal: options.optimal_steps > 0,
        optimal_steps: options.optimal_steps.min(LIFT_OPTIMAL_STEPS),
        safety_net: options.time_per_array,
        lower_bound: 1,
        ..LatticeOptions::default()
    };
    // The candidates at each point, best first.
    let search = |points: &[Vec<i64>], budget: &mut Budget| -> Option<Vec<Vec<Candidate>>> {
        let mut found: Vec<Vec<Candidate>> = Vec::with_capacity(points.len());
        for point in points {
            let searched = fix_and_simplify(ds, point).and_then(|fixed| {
                budget.with_part(LIFT_LATTICE_STEPS, options.time_per_array, |part| {
                    lattice_candidates(&fixed, rank, point, &lattice_options, part)
                })
            });
            let mut candidates = searched.ok()?;
            candidates.sort_by_key(|c| (c.size, c.simplicity()));
            found.push(candidates);
        }
        Some(found)
    };
    let Some(found) = search(&points, budget) else {
        return Ok(Proposals::default());
    };
    let (base, others) = found.split_first().expect("at least one point");
    // The affine fits; when the best candidate at the base point has none,
    // the quasi-affine ones first: moduli fitted through steps of 2
    // (`(N + 1) / 2`), each with the constants that round the other residue
    // classes of the parameters differently, certification deciding which
    // hold.
    let lifted: Vec<Option<ModularMapping>> =
        base.iter().map(|c| lift(c, others, &points, 1)).collect();
    let best_has_no_fit = lifted.first().is_some_and(Option::is_none);
    let mut fits: Vec<ModularMapping> = lifted.into_iter().flatten().collect();
    if best_has_no_fit
        && let Some(points2) = probe_steps(&facts.scop.context, &points[0], 2, budget)
        && let Some(found2) = search(&points2[1..], budget)
    {
        let quasi: Vec<ModularMapping> = base
            .iter()
            .filter_map(|c| lift(c, &found2, &points2, 2))
            .filter(|m| m.dims.iter().any(|d| !d.modulus.is_affine()))
            .flat_map(|m| rounded(&m, 2))
            .collect();
        fits.splice(0..0, quasi);
    }
    let mut list: Vec<Proposal> = Vec::new();
    // One fit per basis (the first, from the best candidate), except the
    // quasi-affine fits of one basis, which differ in their rounding; at
    // most MAX_LIFTED bases.
    let mut seen: Vec<ModularMapping> = Vec::new();
    let mut bases = 0;
    for mapping in fits {
        let affine = mapping.dims.iter().all(|d| d.modulus.is_affine());
        if seen
            .iter()
            .any(|m| *m == mapping || (affine && same_basis(m, &mapping)))
        {
            continue;
        }
        if !seen.iter().any(|m| same_basis(m, &mapping)) {
            if bases == MAX_LIFTED {
                break;
            }
            bases += 1;
        }
        seen.push(mapping.clone());
        // The fit holds from the probe values on; a few cells more per
        // modulus often make it hold for the small values too (durbin's
        // `y` needs 2 cells at N = 2, where 2N - 3 is 1).
        // When the known values can be pinned, the fit itself from some
        // size on (`_Static_assert(N >= 4)`) comes before the larger moduli.
        let mut scopes: Vec<(i64, Scope)> = Vec::new();
        if from_sizes_only {
            scopes.extend(live_in_free.iter().map(|t| (0, Scope::AtLeast(*t))));
        } else if !affine {
            // The roundings of a quasi-affine fit are proposals of their
            // own, in order; a pin or more cells would come before the
            // next rounding, which may hold for every value as it is.
            scopes.push((0, Scope::EveryValue));
        } else {
            scopes.push((0, Scope::EveryValue));
            if facts.values_known && facts.macros_pinnable {
                scopes.extend(PIN_FROM.iter().map(|t| (0, Scope::AtLeast(*t))));
            }
            scopes.extend((1..=MAX_SLACK).map(|slack| (slack, Scope::EveryValue)));
        }
        'scope: for (slack, scope) in scopes {
            let mut m = mapping.clone();
            for dim in &mut m.dims {
                let Ok(b) = dim.modulus.plus(slack) else {
                    continue 'scope;
                };
                dim.modulus = b;
            }
            list.push(Proposal {
                method: Method::LiftedLattice,
                mapping: m,
                proof: Proof::DifferenceSet(scope),
                cells: None,
                time: start.elapsed(),
            });
        }
    }
    Ok(Proposals {
        list,
        ..Proposals::default()
    })
}

/// Whether `a` and `b` have the same rows (moduli aside).
fn same_basis(a: &ModularMapping, b: &ModularMapping) -> bool {
    a.dims.len() == b.dims.len()
        && a.dims
            .iter()
            .zip(&b.dims)
            .all(|(x, y)| x.coeffs == y.coeffs)
}

/// The probe points for a fit through steps of `step`: `base`, `base`
/// plus `step` along each parameter, and the check point, `base` plus
/// `2·step` along every one.
fn probe_steps(
    context: &BasicSet,
    base: &[i64],
    step: i64,
    budget: &mut Budget,
) -> Option<Vec<Vec<i64>>> {
    let mut points = vec![base.to_vec()];
    for q in 0..base.len() {
        let mut p = base.to_vec();
        p[q] += step;
        points.push(p);
    }
    points.push(base.iter().map(|v| v + 2 * step).collect());
    crate::pipeline::probe::all_inside(context, points, budget)
}

/// The mappings with the moduli of `mapping`, fitted through steps of
/// `step` (exact on the residue class of the base point), with each
/// constant `0..step` added to the numerators of the quasi-affine ones:
/// they agree on that class and round the others differently.
fn rounded(mapping: &ModularMapping, step: i64) -> Vec<ModularMapping> {
    let mut out = vec![mapping.clone()];
    for d in 0..mapping.dims.len() {
        if mapping.dims[d].modulus.is_affine() {
            continue;
        }
        out = out
            .into_iter()
            .flat_map(|m| {
                (0..step).map(move |r| {
                    let mut m = m.clone();
                    let b = &m.dims[d].modulus;
                    m.dims[d].modulus = ParamAffine::quasi(b.coeffs.clone(), b.constant + r, b.den);
                    m
                })
            })
            .collect();
    }
    out.dedup();
    out
}

/// The mapping of `candidate` (at the base point) with moduli
/// `(a·N + c) / step` (rounded down), fitted through candidates of the
/// same basis at the steps of `step` along each parameter and confirmed at
/// the check point (the last of `others`); `c` makes the numerator a
/// multiple of `step` at the base point (see [`rounded`] for the other
/// residue classes). For `step` 1 the moduli are affine.
fn lift(
    candidate: &Candidate,
    others: &[Vec<Candidate>],
    points: &[Vec<i64>],
    step: i64,
) -> Option<ModularMapping> {
    let base_map = &candidate.mapping;
    let base_point = &points[0];
    let moduli_at = |m: &ModularMapping, point: &[i64]| -> Option<Vec<i64>> {
        m.dims.iter().map(|d| d.modulus.eval(point).ok()).collect()
    };
    let mut at: Vec<Vec<i64>> = Vec::with_capacity(others.len());
    for (list, point) in others.iter().zip(&points[1..]) {
        let m = list.iter().find(|c| same_basis(&c.mapping, base_map))?;
        at.push(moduli_at(&m.mapping, point)?);
    }
    let base_moduli = moduli_at(base_map, base_point)?;
    let n_param = base_point.len();
    let mut mapping = base_map.clone();
    for (d, dim) in mapping.dims.iter_mut().enumerate() {
        let coeffs: Vec<i64> = (0..n_param).map(|q| at[q][d] - base_moduli[d]).collect();
        let mut constant = base_moduli[d].checked_mul(step)?;
        for (c, v) in coeffs.iter().zip(base_point) {
            constant = constant.checked_sub(c.checked_mul(*v)?)?;
        }
        let modulus = ParamAffine::quasi(coeffs, constant, step);
        // The check point confirms the fit.
        if modulus.eval(&points[n_param + 1]).ok()? != at[n_param][d] {
            return None;
        }
        dim.modulus = modulus;
    }
    Some(mapping)
}
