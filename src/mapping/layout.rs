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
    Modulo {
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
    match certificate {
        Certificate::ForValues(values) => fix_params(&mut q, values),
        Certificate::ForAllParameters => q.add_param_constraints(context),
    }
    match integer_point(&q, budget) {
        Ok(p) => Ok(p.is_none()),
        Err(PolyError::Budget) => Ok(false),
        Err(e) => Err(e),
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
            match wraps.iter_mut().find(|(k, _)| *k == key) {
                Some((_, w)) => *w |= this_wraps,
                None => wraps.push((key, this_wraps)),
            }
        }
        if !non_negative {
            return Err(LayoutFailure(format!(
                "cannot prove that subscript {p} is never negative, so `%` would be wrong"
            )));
        }
        if below_modulus {
            // No wrap: keep the extent when it is already no larger.
            let keep = match (&extents[p], certificate) {
                (Some(ext), Certificate::ForValues(values)) => {
                    matches!((ext.eval(values), b.eval(values)), (Ok(e), Ok(m)) if e <= m)
                }
                (Some(ext), Certificate::ForAllParameters) => ext == b,
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
            });
        }
    }
    Ok(ArrayLayout { dims })
}
