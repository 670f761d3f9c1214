//! Probe points: parameter values in a SCoP's context, large and distinct
//! enough to show the general case, where the searches for storage made
//! for every value look before the result is proven for all of them.

use crate::ir::Scop;
use crate::poly::simplex::integer_point;
use crate::poly::{BasicSet, Budget};

use super::options::{PROBE_BASE, PROBE_STEP};

/// Probe values for a SCoP where some parameter has no known value: the
/// known values, and for the others a point of the context with each at
/// least [`PROBE_BASE`] and all distinct (`PROBE_BASE + PROBE_STEP·q` for
/// the `q`-th), so that the search sees the general case (loops that run,
/// no two parameters equal by chance); any point of the context when there
/// is none such. `None`: no point at all. They only guide the search: what
/// is emitted is proven for every value of the context.
pub(crate) fn probe_values(
    scop: &Scop,
    budget: &mut Budget,
) -> crate::poly::PolyResult<Option<Vec<i64>>> {
    let context = &scop.context;
    let n_param = context.space.n_param();
    let mut known = context.clone();
    for (q, param) in scop.params.iter().enumerate() {
        if let Some(v) = param.value {
            let mut row = known.zero_row();
            row[q] = 1;
            let last = row.len() - 1;
            row[last] = -v;
            known.add_eq(row);
        }
    }
    if let Some(point) = probe_point(
        &known,
        |q| scop.params[q].value.is_none(),
        PROBE_BASE,
        budget,
    )? {
        return Ok(Some(point));
    }
    Ok(integer_point(&known, budget)?.map(|point| point[..n_param].to_vec()))
}

/// The parameter values of a point of `set` with each parameter `q` for
/// which `probed(q)` at least `PROBE_BASE + PROBE_STEP·q`; `None` when
/// there is no such point.
pub(crate) fn probe_point(
    set: &BasicSet,
    probed: impl Fn(usize) -> bool,
    base: i64,
    budget: &mut Budget,
) -> crate::poly::PolyResult<Option<Vec<i64>>> {
    let n_param = set.space.n_param();
    let mut wanted = set.clone();
    for q in (0..n_param).filter(|q| probed(*q)) {
        let mut row = wanted.zero_row();
        row[q] = 1;
        let last = row.len() - 1;
        row[last] = -(base + PROBE_STEP * q as i64);
        wanted.add_ineq(row);
    }
    Ok(integer_point(&wanted, budget)?.map(|point| point[..n_param].to_vec()))
}

/// The probe points: a base point of `context` with the `q`-th parameter
/// at `PROBE_BASE + PROBE_STEP·q` or above, the base plus one along each
/// parameter, and the check point, the base plus two along every one. All
/// must be in the context.
pub(crate) fn probe_points(
    context: &BasicSet,
    n_param: usize,
    base: i64,
    budget: &mut Budget,
) -> Option<Vec<Vec<i64>>> {
    let base = probe_point(context, |_| true, base, budget).ok()??;
    let mut points = vec![base.clone()];
    for q in 0..n_param {
        let mut p = base.clone();
        p[q] += 1;
        points.push(p);
    }
    points.push(base.iter().map(|v| v + 2).collect());
    all_inside(context, points, budget)
}

/// `points` when every one is in `context`.
pub(crate) fn all_inside(
    context: &BasicSet,
    points: Vec<Vec<i64>>,
    budget: &mut Budget,
) -> Option<Vec<Vec<i64>>> {
    let inside = |p: &Vec<i64>| {
        let mut q = context.clone();
        crate::poly::enumerate::fix_params(&mut q, p);
        matches!(integer_point(&q, budget), Ok(Some(_)))
    };
    points.iter().all(inside).then_some(points)
}
