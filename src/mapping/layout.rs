//! From a certified axis mapping to the layout that code generation
//! emits: which dimensions are dropped, which keep their extent without a
//! modulo, which get `% b` — each decision backed by an exact proof over
//! every access's iteration domain.
//!
//! C's `%` truncates toward zero, so `e % b` is emitted only when `e >= 0`
//! is proven on every iteration that evaluates it. A modulo is dropped when
//! `0 <= e < b` is proven for every access (it cannot wrap). The proofs use
//! the same parameter values as the mapping's certificate: all values of the
//! context, or the known values only.

use crate::analysis::model::ArrayModel;
use crate::poly::simplex::integer_point;
use crate::poly::{BasicSet, Budget, PolyError};

use super::certify::{Certificate, fix_params};
use super::modular::{ModularMapping, ParamAffine};

/// What one dimension of the array becomes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DimLayout {
    /// The modulus is 1: the dimension disappears.
    Dropped,
    /// The subscript stays as it is; the extent may shrink to `extent`
    /// (`None`: keep the declared extent).
    Plain { extent: Option<ParamAffine> },
    /// The subscript becomes `e % modulus`; the extent becomes `modulus`.
    /// The accesses listed in `exempt` (statement, position) are proven
    /// never to wrap (`0 <= e < modulus`) and keep their plain subscript.
    /// `extent_proven`: `modulus >= 1` is proven for every parameter value
    /// of the certificate, not only where the array is accessed; otherwise
    /// the declaration needs the guarded extent `max(modulus, 1)` (a loop
    /// that does not run, e.g. `w = 2` for `1 <= i <= w - 2`, would make a
    /// VLA of size `w - 2 <= 0`).
    Modulo {
        modulus: ParamAffine,
        exempt: Vec<(usize, usize)>,
        extent_proven: bool,
    },
    /// One dimension of a general (non-axis) mapping: the subscript becomes
    /// `(Σ coeffs[p]·e_p + offset) % modulus`, where `offset` is a multiple
    /// of the modulus that makes the argument non-negative on every access;
    /// the accesses in `exempt` are proven never to wrap and drop the `%`.
    /// For a mapping proven for every parameter value, the modulus is
    /// affine in the parameters, proven at least 1 on the whole context,
    /// and the offset a constant multiple of it.
    Linear {
        coeffs: Vec<i64>,
        offset: ParamAffine,
        modulus: ParamAffine,
        exempt: Vec<(usize, usize)>,
    },
}

/// The layout of one remapped array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArrayLayout {
    pub dims: Vec<DimLayout>,
}

impl ArrayLayout {
    /// Whether the array becomes a scalar.
    pub fn is_scalar(&self) -> bool {
        self.dims.iter().all(|d| *d == DimLayout::Dropped)
    }

    /// Whether this is the layout of a general mapping (see [`linear_layout`]).
    pub fn is_linear(&self) -> bool {
        self.dims
            .iter()
            .any(|d| matches!(d, DimLayout::Linear { .. }))
    }
}

/// Why no layout could be proven.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutFailure(pub String);

/// Whether `{ x ∈ piece (∧ context) : row(x) >= 0 }` is empty, for the
/// parameter values of `certificate`.
fn proves_empty(
    piece: &BasicSet,
    row: Vec<i64>,
    certificate: &Certificate,
    context: &BasicSet,
    budget: &mut Budget,
) -> Result<bool, PolyError> {
    let mut q = piece.clone();
    q.add_ineq(row);
    if let Certificate::ForValues(values) = certificate {
        fix_params(&mut q, values);
    } else if let Some(set) = certificate.parameter_set(context) {
        q.add_param_constraints(&set);
    }
    match integer_point(&q, budget) {
        Ok(p) => Ok(p.is_none()),
        Err(PolyError::Budget) => Ok(false),
        Err(e) => Err(e),
    }
}

/// Whether `b >= 1` holds for every parameter value of `certificate`: the
/// known values, or every point of `context` (which holds the facts of the
/// original program — its declared extents are at least 1 — and nothing
/// derived from loop bounds, which hold only where a loop runs).
fn proves_at_least_one(
    b: &ParamAffine,
    certificate: &Certificate,
    context: &BasicSet,
    budget: &mut Budget,
) -> Result<bool, PolyError> {
    match certificate {
        Certificate::ForValues(values) => Ok(b.eval(values).is_ok_and(|v| v >= 1)),
        Certificate::ForAllParameters | Certificate::FromValues(_) => {
            if b.is_constant() {
                return Ok(b.constant >= 1);
            }
            // { p ∈ context : b(p) <= 0 } must be empty.
            let mut q = certificate
                .parameter_set(context)
                .unwrap_or_else(|| context.clone());
            let mut row = q.zero_row();
            for (k, c) in b.coeffs.iter().enumerate() {
                row[k] = -c;
            }
            let last = row.len() - 1;
            row[last] = -b.constant;
            q.add_ineq(row);
            match integer_point(&q, budget) {
                Ok(p) => Ok(p.is_none()),
                Err(PolyError::Budget) => Ok(false),
                Err(e) => Err(e),
            }
        }
    }
}

/// A row over a piece's columns for `sign·(subscript - modulus) + offset`.
fn subscript_minus(sub: &[i64], modulus: &ParamAffine, sign: i64, offset: i64) -> Vec<i64> {
    let mut row: Vec<i64> = sub.iter().map(|v| sign * v).collect();
    for (q, c) in modulus.coeffs.iter().enumerate() {
        row[q] -= sign * c;
    }
    let last = row.len() - 1;
    row[last] += -sign * modulus.constant + offset;
    row
}

/// Notes whether one more piece of the access `key` (statement,
/// position) may wrap: an access wraps when any of its pieces does.
fn record_wrap(wraps: &mut Vec<((usize, usize), bool)>, key: (usize, usize), this_wraps: bool) {
    match wraps.iter_mut().find(|(k, _)| *k == key) {
        Some((_, w)) => *w |= this_wraps,
        None => wraps.push((key, this_wraps)),
    }
}

/// Decides the layout of an axis `mapping` of `model`'s array, whose
/// declared extents are `extents` (affine in the parameters, when known).
pub fn axis_layout(
    model: &ArrayModel,
    mapping: &ModularMapping,
    extents: &[Option<ParamAffine>],
    certificate: &Certificate,
    context: &BasicSet,
    budget: &mut Budget,
) -> Result<ArrayLayout, LayoutFailure> {
    let err = |e: PolyError| LayoutFailure(format!("layout proof failed: {e}"));
    let mut dims = Vec::new();
    for (p, dim) in mapping.dims.iter().enumerate() {
        let b = &dim.modulus;
        if b.is_constant() && b.constant == 1 {
            dims.push(DimLayout::Dropped);
            continue;
        }
        // The modulus must be positive wherever the array is accessed (it
        // becomes a divisor and an extent).
        for event in &model.events {
            let mut row = vec![0i64; event.domain.width()];
            for (q, c) in b.coeffs.iter().enumerate() {
                row[q] = -c;
            }
            let last = row.len() - 1;
            row[last] = -b.constant; // -b >= 0, i.e. b <= 0
            if !proves_empty(&event.domain, row, certificate, context, budget).map_err(err)? {
                return Err(LayoutFailure(format!(
                    "cannot prove that the modulus of dimension {p} is positive"
                )));
            }
        }
        let mut non_negative = true;
        let mut below_modulus = true;
        // Per access: does it stay below the modulus on all its pieces?
        let mut wraps: Vec<((usize, usize), bool)> = Vec::new();
        for event in &model.events {
            let sub = &event.subscripts[p];
            // e <= -1 must be empty.
            let mut neg = sub.iter().map(|v| -v).collect::<Vec<_>>();
            let last = neg.len() - 1;
            neg[last] -= 1;
            if !proves_empty(&event.domain, neg, certificate, context, budget).map_err(err)? {
                non_negative = false;
            }
            // e - b >= 0 must be empty.
            let key = (event.statement, event.position);
            let this_wraps = !proves_empty(
                &event.domain,
                subscript_minus(sub, b, 1, 0),
                certificate,
                context,
                budget,
            )
            .map_err(err)?;
            below_modulus &= !this_wraps;
            record_wrap(&mut wraps, key, this_wraps);
        }
        if !non_negative {
            return Err(LayoutFailure(format!(
                "cannot prove that subscript {p} is never negative, so `%` would be wrong"
            )));
        }
        // A new extent must be at least 1 wherever the original program is
        // valid, not only where the array is accessed.
        let extent_proven = proves_at_least_one(b, certificate, context, budget).map_err(err)?;
        if below_modulus {
            // No wrap: keep the extent when it is already no larger, or
            // when the new one is not proven positive (the declared one is
            // large enough: every access is below it).
            if !extent_proven && extents[p].is_none() {
                return Err(LayoutFailure(format!(
                    "cannot prove that the new extent of dimension {p} is at least 1"
                )));
            }
            let keep = !extent_proven
                || match (&extents[p], certificate) {
                    (Some(ext), Certificate::ForValues(values)) => {
                        matches!((ext.eval(values), b.eval(values)), (Ok(e), Ok(m)) if e <= m)
                    }
                    (Some(ext), Certificate::ForAllParameters | Certificate::FromValues(_)) => {
                        ext == b
                    }
                    (None, _) => false,
                };
            dims.push(DimLayout::Plain {
                extent: if keep { None } else { Some(b.clone()) },
            });
        } else {
            let exempt = wraps.iter().filter(|(_, w)| !w).map(|(k, _)| *k).collect();
            dims.push(DimLayout::Modulo {
                modulus: b.clone(),
                exempt,
                extent_proven,
            });
        }
    }
    Ok(ArrayLayout { dims })
}

/// The layout of a general mapping (rows of `mapping` combine several
/// subscripts), for the parameter values of its certificate. Each row gets
/// the smallest offset (a multiple of its modulus) that makes its argument
/// non-negative on every access: from exact integer minima for fixed
/// values; for every value of the context, the smallest multiple `k·b`
/// (`k <= MAX_OFFSET_MULTIPLE`) proven enough on every access.
pub fn linear_layout(
    model: &ArrayModel,
    mapping: &ModularMapping,
    certificate: &Certificate,
    context: &BasicSet,
    budget: &mut Budget,
) -> Result<ArrayLayout, LayoutFailure> {
    match certificate {
        Certificate::ForValues(values) => linear_layout_for_values(model, mapping, values, budget),
        Certificate::ForAllParameters | Certificate::FromValues(_) => {
            linear_layout_for_all(model, mapping, certificate, context, budget)
        }
    }
}

/// The largest offset multiple tried by a layout for every value.
const MAX_OFFSET_MULTIPLE: i64 = 4;

/// `Σ coeffs[p]·subscript_p` as a row over an event's columns.
fn combined_row(
    coeffs: &[i64],
    subscripts: &[Vec<i64>],
    width: usize,
) -> Result<Vec<i64>, PolyError> {
    let mut row = vec![0i64; width];
    for (c, sub) in coeffs.iter().zip(subscripts) {
        for (o, s) in row.iter_mut().zip(sub) {
            let term = c.checked_mul(*s).ok_or(PolyError::Overflow)?;
            *o = o.checked_add(term).ok_or(PolyError::Overflow)?;
        }
    }
    Ok(row)
}

/// `row + sign·(factor·b)` (`b` over the parameter columns and the constant).
fn plus_multiple(row: &[i64], b: &ParamAffine, factor: i64) -> Result<Vec<i64>, PolyError> {
    let mut out = row.to_vec();
    for (q, c) in b.coeffs.iter().enumerate() {
        out[q] = out[q]
            .checked_add(c.checked_mul(factor).ok_or(PolyError::Overflow)?)
            .ok_or(PolyError::Overflow)?;
    }
    let last = out.len() - 1;
    out[last] = out[last]
        .checked_add(b.constant.checked_mul(factor).ok_or(PolyError::Overflow)?)
        .ok_or(PolyError::Overflow)?;
    Ok(out)
}

fn linear_layout_for_all(
    model: &ArrayModel,
    mapping: &ModularMapping,
    certificate: &Certificate,
    context: &BasicSet,
    budget: &mut Budget,
) -> Result<ArrayLayout, LayoutFailure> {
    let err = |e: PolyError| LayoutFailure(format!("layout proof failed: {e}"));
    let mut dims = Vec::new();
    for (p, dim) in mapping.dims.iter().enumerate() {
        let b = &dim.modulus;
        if !proves_at_least_one(b, certificate, context, budget).map_err(err)? {
            return Err(LayoutFailure(format!(
                "cannot prove that the modulus of dimension {p} is at least 1 for every parameter value"
            )));
        }
        let args: Vec<((usize, usize), &BasicSet, Vec<i64>)> = model
            .events
            .iter()
            .map(|e| {
                combined_row(&dim.coeffs, &e.subscripts, e.domain.width())
                    .map(|row| ((e.statement, e.position), &e.domain, row))
            })
            .collect::<Result<_, _>>()
            .map_err(err)?;
        // The smallest k with arg + k·b >= 0 on every access: -(arg + k·b) - 1 >= 0 is empty.
        let mut multiple = None;
        for k in 0..=MAX_OFFSET_MULTIPLE {
            let mut all = true;
            for (_, domain, row) in &args {
                let mut neg: Vec<i64> = plus_multiple(row, b, k)
                    .map_err(err)?
                    .iter()
                    .map(|v| -v)
                    .collect();
                let last = neg.len() - 1;
                neg[last] -= 1;
                if !proves_empty(domain, neg, certificate, context, budget).map_err(err)? {
                    all = false;
                    break;
                }
            }
            if all {
                multiple = Some(k);
                break;
            }
        }
        let Some(k) = multiple else {
            return Err(LayoutFailure(format!(
                "cannot prove that the argument of dimension {p} is never negative with an offset of at most {MAX_OFFSET_MULTIPLE} moduli"
            )));
        };
        let offset = ParamAffine {
            coeffs: b.coeffs.iter().map(|c| c * k).collect(),
            constant: b.constant * k,
        };
        // Exempt: arg + offset - b >= 0 is empty on every piece of the access.
        let mut wraps: Vec<((usize, usize), bool)> = Vec::new();
        for (key, domain, row) in &args {
            let over = plus_multiple(row, b, k - 1).map_err(err)?;
            let this_wraps =
                !proves_empty(domain, over, certificate, context, budget).map_err(err)?;
            record_wrap(&mut wraps, *key, this_wraps);
        }
        dims.push(DimLayout::Linear {
            coeffs: dim.coeffs.clone(),
            offset,
            modulus: b.clone(),
            exempt: wraps.iter().filter(|(_, w)| !w).map(|(k, _)| *k).collect(),
        });
    }
    Ok(ArrayLayout { dims })
}

/// [`linear_layout`] for fixed parameter `values`.
fn linear_layout_for_values(
    model: &ArrayModel,
    mapping: &ModularMapping,
    values: &[i64],
    budget: &mut Budget,
) -> Result<ArrayLayout, LayoutFailure> {
    use crate::poly::simplex::{IntResult, integer_max, integer_min};
    let err = |e: PolyError| LayoutFailure(format!("layout proof failed: {e}"));
    let n_param = values.len();
    let mut dims = Vec::new();
    for dim in &mapping.dims {
        let b = dim.modulus.eval(values).map_err(err)?;
        if b < 1 {
            return Err(LayoutFailure("a modulus is below 1".into()));
        }
        // Per access: the range of Σ coeffs·subscripts over its domain.
        let mut ranges: Vec<((usize, usize), i64, i64)> = Vec::new();
        for event in &model.events {
            let mut q = event.domain.clone();
            fix_params(&mut q, values);
            let objective = combined_row(&dim.coeffs, &event.subscripts, q.width()).map_err(err)?;
            let lo = match integer_min(&q, &objective, budget).map_err(err)? {
                IntResult::Optimal { value, .. } => value,
                IntResult::Infeasible => continue,
                IntResult::Unbounded => return Err(LayoutFailure("an unbounded subscript".into())),
            };
            let hi = match integer_max(&q, &objective, budget).map_err(err)? {
                IntResult::Optimal { value, .. } => value,
                IntResult::Infeasible => continue,
                IntResult::Unbounded => return Err(LayoutFailure("an unbounded subscript".into())),
            };
            let key = (event.statement, event.position);
            match ranges.iter_mut().find(|(k, _, _)| *k == key) {
                Some((_, l, h)) => {
                    *l = (*l).min(lo);
                    *h = (*h).max(hi);
                }
                None => ranges.push((key, lo, hi)),
            }
        }
        let min = ranges.iter().map(|(_, l, _)| *l).min().unwrap_or(0);
        let offset = if min >= 0 {
            0
        } else {
            (-min)
                .checked_add(b - 1)
                .map(|v| v / b * b)
                .ok_or(LayoutFailure("an offset overflows".into()))?
        };
        let exempt = ranges
            .iter()
            .filter(|(_, l, h)| l + offset >= 0 && h + offset < b)
            .map(|(k, _, _)| *k)
            .collect();
        dims.push(DimLayout::Linear {
            coeffs: dim.coeffs.clone(),
            offset: ParamAffine::constant(n_param, offset),
            modulus: ParamAffine::constant(n_param, b),
            exempt,
        });
    }
    Ok(ArrayLayout { dims })
}
