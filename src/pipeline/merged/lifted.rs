//! Merged storage for every parameter value: the shared-hyperplane search
//! (seed 000's storage hyperplanes, shared by the statements of one
//! buffer) runs at small probe sizes, where its cost is small whatever
//! the program's own sizes, and a mapping found at each of them with the
//! same hyperplanes and moduli that move affinely with the parameters is
//! lifted to every value (as the per-array lattices are, see
//! `strategy::lifted`): hyperplanes and offsets independent of the sizes,
//! moduli affine in the parameters. The lifted mapping is then proven on
//! the symbolic global conflict set ([`certify_symbolic`]), which holds
//! for every value of the context. SMO's ILPs, parametric by design, are
//! not run on the symbolic conflict set: under their node budget they
//! rarely finish there, and then only at the wall-clock safety net.
//!
//! Probe points: a base point of the context with the `q`-th parameter
//! at 8 + 4q or above, one step along each parameter, and a check point
//! two steps along all of them (`probe::probe_points`).
//!
//! What this does NOT do: the baseline (its rectangular hulls are
//! computed for known values), mappings whose hyperplanes change with
//! the sizes, or moduli that are not affine in the parameters.

use std::time::{Duration, Instant};

use crate::mapping::MergeMethod;
use crate::mapping::modular::ParamAffine;
use crate::mapping::smo::conflicts::{ForValues, global_conflicts_until};
use crate::mapping::smo::{
    ConflictSpec, SmoSolution, StmtId, certify_symbolic, shared_solve_isolating,
};
use crate::poly::{Budget, WorkLimit};

use super::super::options::{CONFLICT_WORK, SHARED_WORK, SMO_MAX_OPERATIONS};
use super::solve::{
    Found, Parts, Solved, aligned_dims, lifetimes_in, max_live_of, overlapping_pairs,
    writes_and_lifetimes,
};

/// The smallest probe size of the first parameter (the `q`-th is 4q
/// more). Smaller than the per-array lifting's: the shared-hyperplane
/// search and the lifetimes it needs grow with the number of operations,
/// which is the product of the sizes; the lifted mapping is proven for
/// every value whatever the probe.
const MERGED_PROBE_BASE: i64 = 8;

/// Budget of the probe-point queries (finding a point of the context).
const PROBE_STEPS: u64 = 100_000;

/// The probe points of `scop` (the first is the base).
pub(super) fn probes(scop: &crate::ir::Scop) -> Result<Vec<Vec<i64>>, String> {
    let n_param = scop.params.len();
    if n_param == 0 {
        return Err("no parameter: the known sizes are the only ones".into());
    }
    crate::pipeline::probe::probe_points(
        &scop.context,
        n_param,
        MERGED_PROBE_BASE,
        &mut Budget::steps(PROBE_STEPS),
    )
    .ok_or_else(|| "no probe sizes in the context".into())
}

/// The merged storage of the parts for every parameter value, lifted
/// from the probe points `probes`.
pub(super) fn solve_every_value(
    parts: &Parts<'_>,
    probes: &[Vec<i64>],
    budget: Duration,
    started: Instant,
) -> Result<Solved, String> {
    let vs = &parts.split.scop;
    // The symbolic conflict set: what the mapping is proven on.
    let conflict_limit = WorkLimit::new(CONFLICT_WORK, Some(started + budget / 2));
    let spec = global_conflicts_until(vs, parts.flow, parts.stmts, Some(&conflict_limit), None)
        .map_err(|e| match e {
            crate::poly::PolyError::Budget if conflict_limit.net_fired() => {
                net_fired("the symbolic global conflict set", budget)
            }
            crate::poly::PolyError::Budget => format!(
                "the symbolic global conflict set needs more than {CONFLICT_WORK} conflict pieces"
            ),
            e => e.to_string(),
        })?
        .ok_or("dataflow not exact")?;
    let mut safety_net_fired = conflict_limit.net_fired();
    let debug = log::log_enabled!(target: "smo", log::Level::Debug);
    if debug {
        log::debug!(target: "smo",
            "every value: symbolic conflict set of {} polyhedra at {:.3} s",
            spec.conflicts.len(),
            started.elapsed().as_secs_f64()
        );
    }
    let isolated: Vec<StmtId> = parts
        .stmts
        .iter()
        .enumerate()
        .filter(|(_, v)| parts.split.alone[**v])
        .map(|(j, _)| StmtId(j))
        .collect();
    let align: Vec<Vec<usize>> = parts
        .stmts
        .iter()
        .map(|s| aligned_dims(vs, *s, spec.n_dim))
        .collect();
    let mut variants: Vec<(MergeMethod, &[StmtId])> = Vec::new();
    if !isolated.is_empty() {
        variants.push((MergeMethod::SharedHyperplanesApart, &isolated[..]));
    }
    variants.push((MergeMethod::SharedHyperplanes, &[][..]));
    // Per probe point, per variant: the shared hyperplanes found there.
    let mut found: Vec<Vec<Result<SmoSolution, String>>> = Vec::new();
    let mut lower_bound = 0;
    for (k, point) in probes.iter().enumerate() {
        // A variant whose hyperplanes already changed between two probes
        // cannot be lifted: once no variant is left, the other probes
        // would decide nothing (the result is the same, found sooner).
        if k > 0 && all_failed(&found, variants.len()) {
            break;
        }
        let (writes, raw) = writes_and_lifetimes(vs, parts.temps, point, SMO_MAX_OPERATIONS)?;
        if k == 0 {
            lower_bound = max_live_of(&raw);
        }
        let needed = overlapping_pairs(&writes, &raw, parts.stmts);
        let limit = WorkLimit::new(CONFLICT_WORK, Some(started + budget / 2));
        let at = global_conflicts_until(
            vs,
            parts.flow,
            parts.stmts,
            Some(&limit),
            Some(ForValues {
                values: point,
                needed: &needed,
            }),
        )
        .map_err(|e| match e {
            crate::poly::PolyError::Budget if limit.net_fired() => {
                net_fired("the global conflict set at a probe size", budget)
            }
            e => e.to_string(),
        })?
        .ok_or("dataflow not exact")?;
        let lifetimes = lifetimes_in(&at, parts.stmts, raw);
        let mut row = Vec::new();
        for (v, (_, apart)) in variants.iter().enumerate() {
            // A variant that found nothing at an earlier point is not
            // lifted.
            if let Some(Err(why)) = found.iter().map(|r| &r[v]).find(|r| r.is_err()) {
                row.push(Err(why.clone()));
                continue;
            }
            let limit = WorkLimit::new(SHARED_WORK, Some(started + budget / 2));
            let r = shared_solve_isolating(&at, apart, &align, point, &lifetimes, &limit)
                .map_err(|e| e.to_string())?;
            safety_net_fired |= limit.net_fired();
            // Other hyperplanes than at the base point: not liftable.
            let r = match (r, found.first().map(|b| &b[v])) {
                (Ok(sol), Some(Ok(base))) if !same_shape(base, &sol) => {
                    Err(SHAPE_CHANGES.to_string())
                }
                (r, _) => r,
            };
            row.push(r);
        }
        found.push(row);
        if debug {
            log::debug!(target: "smo",
                "every value: probe {point:?} searched at {:.3} s",
                started.elapsed().as_secs_f64()
            );
        }
    }
    let mut candidates: Vec<(MergeMethod, SmoSolution, i64)> = Vec::new();
    let mut rejected = Vec::new();
    for (v, (method, _)) in variants.iter().enumerate() {
        let at: Result<Vec<&SmoSolution>, String> = found
            .iter()
            .map(|row| row[v].as_ref().map_err(Clone::clone))
            .collect();
        let lifted = match at {
            Ok(at) => lift(&at, probes),
            Err(why) => Err(why),
        };
        if log::log_enabled!(target: "smo", log::Level::Debug) {
            log::debug!(target: "smo", "lifted {method}: {lifted:?}");
        }
        match lifted.and_then(|sol| prove(&spec, sol)) {
            Ok(sol) => {
                let size = sol.size(&probes[0]).map_err(|e| e.to_string())?;
                candidates.push((*method, sol, size));
            }
            Err(why) => rejected.push(format!("{method}: {why}")),
        }
    }
    let names = vs.param_texts();
    let sizes: Vec<String> = candidates
        .iter()
        .map(|(m, sol, _)| {
            let moduli: Vec<String> = sol
                .arrays
                .iter()
                .map(|a| crate::codegen::text::product_text(&names, a.moduli.iter().collect()))
                .collect();
            format!("{m} {}", moduli.join(" + "))
        })
        .collect();
    let found = Found {
        candidates,
        sizes,
        rejected,
    };
    found.pick(
        spec,
        "no mapping proven for every value",
        " for every value",
        "proven sizes",
        (lower_bound, safety_net_fired),
    )
}

const SHAPE_CHANGES: &str = "the hyperplanes change with the sizes";

/// Why `what` stopped when the wall-clock safety net of the merging (half
/// of `budget`) fired: the result may differ between runs, and says so.
fn net_fired(what: &str, budget: Duration) -> String {
    format!(
        "{what} hit its wall-clock safety net ({:.1} s, half of --inter-array-budget); \
         this result may differ between runs",
        (budget / 2).as_secs_f64()
    )
}

/// Whether `s` has the buffers, statements and hyperplanes of `base` (its
/// moduli may differ).
fn same_shape(base: &SmoSolution, s: &SmoSolution) -> bool {
    s.arrays.len() == base.arrays.len()
        && s.arrays.iter().zip(&base.arrays).all(|(a, b)| {
            a.statements == b.statements && a.levels == b.levels && a.moduli.len() == b.moduli.len()
        })
}

/// Whether every variant failed at some probe of `found` (rows of
/// `n_variants` results).
fn all_failed(found: &[Vec<Result<SmoSolution, String>>], n_variants: usize) -> bool {
    (0..n_variants).all(|v| found.iter().any(|row| row[v].is_err()))
}

/// `sol` when [`certify_symbolic`] proves it on the symbolic `spec`.
fn prove(spec: &ConflictSpec, sol: SmoSolution) -> Result<SmoSolution, String> {
    match certify_symbolic(spec, &sol) {
        Ok(true) => Ok(sol),
        Ok(false) => Err("not proven for every value".into()),
        Err(e) => Err(format!("not proven for every value ({e})")),
    }
}

/// The solution found at every probe point (`at[k]` at `probes[k]`) with
/// moduli affine in the parameters: the same buffers, statements and
/// hyperplanes at every point, the moduli fitted through the base and the
/// steps along each parameter and confirmed at the check point (the
/// last).
fn lift(at: &[&SmoSolution], probes: &[Vec<i64>]) -> Result<SmoSolution, String> {
    let base = at.first().ok_or("no probe point")?;
    let n_param = probes[0].len();
    if at.len() != n_param + 2 || probes.len() != at.len() {
        return Err("not one solution per probe point".into());
    }
    if !at.iter().all(|s| same_shape(base, s)) {
        return Err(SHAPE_CHANGES.into());
    }
    let modulus_at = |s: &SmoSolution, a: usize, l: usize, p: &[i64]| -> Result<i64, String> {
        s.arrays[a].moduli[l].eval(p).map_err(|e| e.to_string())
    };
    let mut sol = (*base).clone();
    for a in 0..sol.arrays.len() {
        for l in 0..sol.arrays[a].moduli.len() {
            let m0 = modulus_at(base, a, l, &probes[0])?;
            let mut coeffs = Vec::with_capacity(n_param);
            let mut constant = m0;
            for q in 0..n_param {
                let c = modulus_at(at[1 + q], a, l, &probes[1 + q])? - m0;
                constant = constant
                    .checked_sub(c.checked_mul(probes[0][q]).ok_or("overflow")?)
                    .ok_or("overflow")?;
                coeffs.push(c);
            }
            let modulus = ParamAffine {
                coeffs,
                constant,
                den: 1,
            };
            let check = &probes[n_param + 1];
            if modulus.eval(check).map_err(|e| e.to_string())?
                != modulus_at(at[n_param + 1], a, l, check)?
            {
                return Err("the moduli are not affine in the parameters".into());
            }
            let array = &mut sol.arrays[a];
            array.moduli[l] = modulus.clone();
            for m in array.stmt_moduli.get_mut(l).into_iter().flatten() {
                *m = modulus.clone();
            }
            for m in array.intra_moduli.get_mut(l).into_iter().flatten() {
                *m = modulus.clone();
            }
        }
    }
    Ok(sol)
}
