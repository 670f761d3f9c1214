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

use super::certify::Certificate;
use super::modular::{MappedDim, ModularMapping, ParamAffine};
use crate::poly::enumerate::fix_params;

/// What one dimension of the array becomes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DimLayout {
    /// The modulus is 1, or the partner of a packed dimension: the
    /// dimension disappears.
    Dropped,
    /// A triangle of this dimension and `partner` (a later one) packed
    /// row by row into one dimension of `extent·(extent + 1)/2` cells (see
    /// [`packed_layout`]).
    Packed {
        partner: usize,
        triangle: Triangle,
        extent: ParamAffine,
    },
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
        /// The simplest proven argument of each access (see [`Argument`]).
        arguments: Vec<Argument>,
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
        /// A removed shift and stride: the argument is `(Σ coeffs[p]·e_p -
        /// shift) / divisor + offset`, the division exact on every access
        /// (proven by the layout: see [`MappedDim::divisor`]). 1 and 0
        /// otherwise.
        divisor: i64,
        shift: ParamAffine,
        offset: ParamAffine,
        /// With a quasi-affine modulus (`(N + 1) / 2`), the offset is this
        /// many moduli (`offset` is then zero): `k·⌊a/d⌋` is not affine.
        offset_moduli: i64,
        modulus: ParamAffine,
        exempt: Vec<(usize, usize)>,
        /// `modulus >= 1` is proven for every parameter value of the
        /// certificate; otherwise only where the array is accessed, and the
        /// declaration needs the guarded extent `max(modulus, 1)` (as for
        /// [`DimLayout::Modulo`]).
        extent_proven: bool,
        /// The simplest proven argument of each access (see [`Argument`]).
        arguments: Vec<Argument>,
    },
}

impl DimLayout {
    /// The modulus and the per-access arguments of a dimension that
    /// computes residues (modulo or linear).
    pub fn residues(&self) -> Option<(&ParamAffine, &[Argument])> {
        match self {
            DimLayout::Modulo {
                modulus, arguments, ..
            }
            | DimLayout::Linear {
                modulus, arguments, ..
            } => Some((modulus, arguments)),
            _ => None,
        }
    }

    /// [`DimLayout::residues`], the arguments mutable.
    fn residues_mut(&mut self) -> Option<(&ParamAffine, &mut Vec<Argument>)> {
        match self {
            DimLayout::Modulo {
                modulus, arguments, ..
            }
            | DimLayout::Linear {
                modulus, arguments, ..
            } => Some((modulus, arguments)),
            _ => None,
        }
    }
}

/// Which triangle a packed pair of dimensions `(p, q)`, `p < q`, holds.
/// The strict triangles leave the diagonal out (`E·(E - 1)/2` cells).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Triangle {
    /// `0 <= c_q <= c_p <= E - 1`: row `c_p` holds `c_p + 1` cells, at
    /// `c_p·(c_p + 1)/2 + c_q`.
    Lower,
    /// `0 <= c_p <= c_q <= E - 1`: row `c_p` holds `E - c_p` cells, at
    /// `c_p·(2E - c_p - 1)/2 + c_q`.
    Upper,
    /// `0 <= c_q < c_p <= E - 1`: row `c_p` holds `c_p` cells, at
    /// `c_p·(c_p - 1)/2 + c_q`.
    StrictLower,
    /// `0 <= c_p < c_q <= E - 1`: row `c_p` holds `E - 1 - c_p` cells,
    /// at `c_p·(2E - 1 - c_p)/2 + (c_q - c_p - 1)`, that is
    /// `c_p·(2E - 3 - c_p)/2 + c_q - 1`.
    StrictUpper,
}

impl Triangle {
    /// Every kind, the strict ones (smaller) first.
    pub const ALL: [Triangle; 4] = [
        Triangle::StrictLower,
        Triangle::StrictUpper,
        Triangle::Lower,
        Triangle::Upper,
    ];

    /// Whether the diagonal is left out.
    pub(crate) fn is_strict(self) -> bool {
        matches!(self, Triangle::StrictLower | Triangle::StrictUpper)
    }

    /// The rows `(low, high)` of the pair: `c_low <= c_high` inside
    /// (`c_low < c_high` for a strict triangle).
    pub(crate) fn low_high(self, p: usize, q: usize) -> (usize, usize) {
        match self {
            Triangle::Lower | Triangle::StrictLower => (q, p),
            Triangle::Upper | Triangle::StrictUpper => (p, q),
        }
    }

    /// Whether cell `(a, b)` = `(c_p, c_q)` is inside for the extent `e`.
    pub fn contains(self, a: i64, b: i64, e: i64) -> bool {
        let (low, high) = match self {
            Triangle::Lower | Triangle::StrictLower => (b, a),
            Triangle::Upper | Triangle::StrictUpper => (a, b),
        };
        let gap = i64::from(self.is_strict());
        0 <= low && low + gap <= high && high < e
    }

    /// The number of cells for the extent `e` (0 when `e` leaves none).
    pub fn cells(self, e: i64) -> i128 {
        let e = i128::from(e.max(0));
        if self.is_strict() {
            e * (e - 1).max(0) / 2
        } else {
            e * (e + 1) / 2
        }
    }

    /// The packed index of the cells `(a, b)` of a constant row `a` and a
    /// column `b` affine in the parameters, as an affine form: `a·(a +
    /// 1)/2 + b`, `a·E - a·(a + 1)/2 + b`, `a·(a - 1)/2 + b` or `a·E -
    /// a·(a + 3)/2 - 1 + b` (`None` on overflow or a negative row).
    pub(crate) fn constant_row_index(
        self,
        a: i64,
        b: &ParamAffine,
        e: &ParamAffine,
    ) -> Option<ParamAffine> {
        if a < 0 || e.den != 1 || b.den != 1 || b.coeffs.len() != e.coeffs.len() {
            return None;
        }
        let (times_e, constant) = match self {
            Triangle::Lower => (0, a.checked_mul(a + 1)? / 2),
            Triangle::StrictLower => (0, a.checked_mul(a - 1)? / 2),
            Triangle::Upper => (
                a,
                (e.constant.checked_mul(a)?).checked_sub(a.checked_mul(a + 1)? / 2)?,
            ),
            Triangle::StrictUpper => (
                a,
                (e.constant.checked_mul(a)?)
                    .checked_sub(a.checked_mul(a + 3)? / 2)?
                    .checked_sub(1)?,
            ),
        };
        let coeffs = b
            .coeffs
            .iter()
            .zip(&e.coeffs)
            .map(|(x, y)| y.checked_mul(times_e)?.checked_add(*x))
            .collect::<Option<Vec<i64>>>()?;
        Some(ParamAffine {
            coeffs,
            constant: constant.checked_add(b.constant)?,
            den: 1,
        })
    }

    /// The packed index of cell `(a, b)` = `(c_p, c_q)` for the extent `e`.
    pub fn index(self, a: i64, b: i64, e: i64) -> i64 {
        match self {
            Triangle::Lower => a * (a + 1) / 2 + b,
            Triangle::Upper => a * (2 * e - a - 1) / 2 + b,
            Triangle::StrictLower => a * (a - 1) / 2 + b,
            Triangle::StrictUpper => a * (2 * e - 3 - a) / 2 + b - 1,
        }
    }
}

/// The argument of `%` of one access in one dimension, as code generation
/// may print it instead of the combination of the source subscripts: an
/// affine form over the columns of the access's statement,
/// `[params | iterators]` (the IR's access functions), plus `constant`.
///
/// It has the same value modulo the dimension's modulus as the argument
/// the layout proved (the subscript, or the combination plus the offset):
/// it differs by multiples of the modulus only (a coefficient changed by a
/// multiple of a constant modulus, a multiple of the modulus added). It is
/// proven non-negative on every iteration of the access (C's `%`
/// truncates), and when `wraps` is false proven below the modulus, so that
/// it needs no `%`. An access without an entry keeps the layout's form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Argument {
    /// (statement, position) of the access.
    pub access: (usize, usize),
    pub coeffs: Vec<i64>,
    pub constant: i64,
    /// Moduli added to the form (`i - 2 * j + (3 * N + 1) / 2`): only with
    /// a quasi-affine modulus, whose multiples are not affine forms; 0
    /// otherwise (multiples of an affine modulus are in the form).
    pub moduli: i64,
    /// Whether `% modulus` is needed.
    pub wraps: bool,
    /// With `wraps`: the argument is proven below twice the modulus, so
    /// that `arg < b ? arg : arg - b` computes the same residue (no
    /// division; see `codegen::plan`). Proven with `--fast-modulo` only
    /// ([`ArrayLayout::prove_single_wraps`]).
    pub wraps_once: bool,
    /// With `wraps`: the residue may be kept in a variable that a loop's
    /// header starts and advances ([`ArrayLayout::prove_rotations`]).
    pub rotation: Option<Rotation>,
}

impl Argument {
    /// An affine form as an argument of no access, without `%`: what
    /// printing it needs (see `codegen::text::form_text`).
    pub fn of_form(form: &crate::ir::AffExpr) -> Argument {
        Argument {
            access: (0, 0),
            coeffs: form.coeffs.clone(),
            constant: form.constant,
            moduli: 0,
            wraps: false,
            wraps_once: false,
            rotation: None,
        }
    }
}

/// How a rotating index computes the residue of an [`Argument`] without a
/// division per access (issue "strength reduction of `%`"): the header of
/// the loop of iterator `depth` (of the access's statement) starts a
/// variable at the residue of the argument and, on every iteration, adds
/// `delta` and subtracts (or adds) the modulus once when it leaves
/// `0..modulus`. The argument depends on no iterator of a loop inside that
/// one, so the variable is the residue at every access; `|delta|` is
/// proven below the modulus, so one correction keeps it in range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rotation {
    /// The loop: an index into the statement's iterators.
    pub depth: usize,
    /// What the argument gains from one iteration of the loop to the next
    /// (its coefficient times the loop's direction).
    pub delta: i64,
    /// Whether the argument is proven non-negative wherever the loop's
    /// header runs (`arg % b` starts the variable; `(arg % b + b) % b`
    /// otherwise, C's `%` truncating).
    pub starts_non_negative: bool,
}

/// The layout of one remapped array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArrayLayout {
    pub dims: Vec<DimLayout>,
}

/// The new extent of each dimension of an array whose storage is sized
/// by texts outside its SCoP's reach (a caller's allocation, an
/// allocation's size: see [`crate::ir::Array::resize_sites`]) under
/// `layout`: `None` where the extent stays, `1` for a dropped dimension,
/// the bound or modulus of a shrunk or modulo one. `None` when a new
/// extent is not an affine form of numbers and macros without a folded
/// value (the only names that mean the same there), or the layout is not
/// one of dropped, plain and modulo dimensions.
pub(crate) fn site_extents(
    layout: &ArrayLayout,
    params: &[crate::ir::Param],
) -> Option<Vec<Option<ParamAffine>>> {
    use crate::ir::ParamOrigin;
    let fixed = |b: &ParamAffine| {
        let macros_only = b.coeffs.iter().enumerate().all(|(k, c)| {
            *c == 0
                || params.get(k).is_some_and(|p| {
                    matches!(p.origin, ParamOrigin::Define | ParamOrigin::CommandLine)
                        && !p.value_used
                })
        });
        (b.is_affine() && macros_only).then(|| b.clone())
    };
    layout
        .dims
        .iter()
        .map(|d| match d {
            DimLayout::Dropped => Some(Some(ParamAffine::constant(params.len(), 1))),
            DimLayout::Plain { extent: None } => Some(None),
            DimLayout::Plain { extent: Some(b) }
            | DimLayout::Modulo {
                modulus: b,
                extent_proven: true,
                ..
            } => fixed(b).map(Some),
            _ => None,
        })
        .collect()
}

/// A triangle packed row by row (seed 004's triangle folding, as packed
/// storage): dimension `p` of `dims` is [`DimLayout::Packed`] and
/// dimension `q` [`DimLayout::Dropped`]; every other dimension keeps its
/// subscript and extent. Every access is proven inside the triangle, so
/// the packed index is a bijection from the accessed cells onto
/// `0..E·(E + 1)/2` (`0..E·(E - 1)/2` for a strict triangle, whose
/// extent must be proven at least 2): the layout renames cells and folds
/// none.
pub(crate) fn packed_layout(
    model: &ArrayModel,
    (p, q, triangle): (usize, usize, Triangle),
    extent: &ParamAffine,
    certificate: &Certificate,
    context: &BasicSet,
    budget: &mut Budget,
) -> Result<ArrayLayout, LayoutFailure> {
    let err = |e: PolyError| LayoutFailure(format!("layout proof failed: {e}"));
    if p >= q || q >= model.rank || !extent.is_affine() {
        return Err(LayoutFailure(
            "not a pair of dimensions with an affine extent".into(),
        ));
    }
    // E >= 1 (E >= 2 for a strict triangle): a declarator of at least
    // one cell for every parameter value of the certificate.
    let least = extent.plus(-i64::from(triangle.is_strict())).map_err(err)?;
    if !proves_at_least_one(&least, certificate, context, budget).map_err(err)? {
        return Err(LayoutFailure(format!(
            "the triangle's extent is not proven at least {}",
            1 + i64::from(triangle.is_strict())
        )));
    }
    let (low, high) = triangle.low_high(p, q);
    let gap = i64::from(triangle.is_strict());
    for event in &model.events {
        let width = event.domain.width();
        // c_low >= 0, c_high - c_low - gap >= 0, E - 1 - c_high >= 0:
        // each negation empty on the access.
        let sub = |k: usize| event.subscripts[k].clone();
        let mut rows: Vec<Vec<i64>> = Vec::new();
        rows.push(sub(low));
        let mut inner: Vec<i64> = sub(high)
            .iter()
            .zip(&sub(low))
            .map(|(a, b)| a - b)
            .collect();
        inner[width - 1] -= gap;
        rows.push(inner);
        let mut top: Vec<i64> = sub(high).iter().map(|v| -v).collect();
        for (k, c) in extent.coeffs.iter().enumerate() {
            top[k] += c;
        }
        top[width - 1] += extent.constant - 1;
        rows.push(top);
        for row in rows {
            // row <= -1, i.e. -row - 1 >= 0, must be empty.
            let mut neg: Vec<i64> = row.iter().map(|v| -v).collect();
            neg[width - 1] -= 1;
            if !proves_empty(&event.domain, neg, certificate, context, budget).map_err(err)? {
                return Err(LayoutFailure(format!(
                    "an access is not proven inside the triangle of dimensions {p} and {q}"
                )));
            }
        }
    }
    let dims = (0..model.rank)
        .map(|k| {
            if k == p {
                DimLayout::Packed {
                    partner: q,
                    triangle,
                    extent: extent.clone(),
                }
            } else if k == q {
                DimLayout::Dropped
            } else {
                DimLayout::Plain { extent: None }
            }
        })
        .collect();
    Ok(ArrayLayout { dims })
}

impl ArrayLayout {
    /// Whether the array becomes a scalar.
    pub fn is_scalar(&self) -> bool {
        self.dims.iter().all(|d| *d == DimLayout::Dropped)
    }

    /// Whether this is the layout of a general mapping (see [`linear_layout`]).
    pub(crate) fn is_linear(&self) -> bool {
        self.dims
            .iter()
            .any(|d| matches!(d, DimLayout::Linear { .. }))
    }

    /// Sets `wraps_once` on every wrapping argument proven below twice its
    /// modulus on every piece of its access (`--fast-modulo` only: one
    /// more proof per piece), for the parameter values of `certificate`.
    pub(crate) fn prove_single_wraps(
        &mut self,
        model: &ArrayModel,
        certificate: &Certificate,
        context: &BasicSet,
        budget: &mut Budget,
    ) -> Result<(), PolyError> {
        for dim in &mut self.dims {
            let Some((modulus, arguments)) = dim.residues_mut() else {
                continue;
            };
            for a in arguments.iter_mut().filter(|a| a.wraps) {
                // arg - 2b >= 0 must be empty on every piece (arg = row + m·b).
                let mut once = true;
                for e in model
                    .events
                    .iter()
                    .filter(|e| (e.statement, e.position) == a.access)
                {
                    let row = form_row(&e.domain, &a.coeffs, a.constant);
                    let factor = a.moduli - 2;
                    if !proves_empty_plus(
                        &e.domain,
                        &row,
                        modulus,
                        factor,
                        certificate,
                        context,
                        budget,
                    )? {
                        once = false;
                        break;
                    }
                }
                a.wraps_once = once;
            }
        }
        Ok(())
    }
}

impl ArrayLayout {
    /// Sets `rotation` on every wrapping argument whose residue a rotating
    /// index may compute (see [`Rotation`]): the argument is affine in the
    /// loops of its statement (no quotient, no added moduli), the
    /// innermost loop it depends on is not parallel (its iterations would
    /// share the variable), its step times the argument's coefficient is
    /// proven below the modulus in magnitude wherever that loop's header
    /// runs, for the parameter values of `certificate`. An argument left
    /// unproven keeps its `%`.
    pub(crate) fn prove_rotations(
        &mut self,
        scop: &crate::ir::Scop,
        certificate: &Certificate,
        context: &BasicSet,
        budget: &mut Budget,
    ) -> Result<(), PolyError> {
        let n_param = scop.params.len();
        for dim in &mut self.dims {
            let Some((modulus, arguments)) = dim.residues_mut() else {
                continue;
            };
            if !modulus.is_affine() {
                continue;
            }
            for a in arguments.iter_mut().filter(|a| a.wraps && a.moduli == 0) {
                let Some(stmt) = scop.stmts.get(a.access.0) else {
                    continue;
                };
                let depth = stmt.loop_depth();
                let iter_coeff = |k: usize| a.coeffs.get(n_param + k).copied().unwrap_or(0);
                if (depth..stmt.iterators.len()).any(|k| iter_coeff(k) != 0) {
                    continue;
                }
                let Some(d) = (0..depth).rev().find(|k| iter_coeff(*k) != 0) else {
                    continue;
                };
                if stmt.parallel_mark(d).is_some() {
                    continue;
                }
                let sign = stmt.schedule.iter().find_map(|e| match e {
                    crate::ir::SchedEntry::Iter { index, sign } if *index == d => Some(*sign),
                    _ => None,
                });
                let Some(delta) = sign.and_then(|s| iter_coeff(d).checked_mul(s)) else {
                    continue;
                };
                let Some(loops) = stmt.loop_domains.get(d) else {
                    continue;
                };
                // The header computes `e % b` even where the loop runs no
                // iteration: b >= 1 for every value, no division by zero.
                if !proves_at_least_one(modulus, certificate, context, budget)? {
                    continue;
                }
                // |delta| < b wherever the loop runs: |delta| - b >= 0
                // nowhere (durbin's `2 * n - 1` is 1 at n = 1, where its
                // loops do not run).
                let mut below = true;
                for piece in &loops.pieces {
                    let row = form_row(piece, &[], delta.abs());
                    if !proves_empty_plus(piece, &row, modulus, -1, certificate, context, budget)? {
                        below = false;
                        break;
                    }
                }
                if !below {
                    continue;
                }
                // arg < 0 (-arg - 1 >= 0) nowhere the header runs.
                let negated: Vec<i64> = a.coeffs.iter().map(|c| -c).collect();
                let mut starts_non_negative = true;
                for piece in &loops.pieces {
                    let row = form_row(piece, &negated, -a.constant - 1);
                    if !proves_empty(piece, row, certificate, context, budget)? {
                        starts_non_negative = false;
                        break;
                    }
                }
                a.rotation = Some(Rotation {
                    depth: d,
                    delta,
                    starts_non_negative,
                });
            }
        }
        Ok(())
    }
}

/// The affine form `coeffs` (over `[params | iterators]`) plus `constant`
/// as a row over the columns of `domain`.
fn form_row(domain: &BasicSet, coeffs: &[i64], constant: i64) -> Vec<i64> {
    let mut row = vec![0i64; domain.width()];
    row[..coeffs.len()].copy_from_slice(coeffs);
    let last = row.len() - 1;
    row[last] = constant;
    row
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
            // { p ∈ context : b(p) <= 0 } must be empty; for b = ⌊a/d⌋,
            // b <= 0 is a <= d - 1.
            let mut q = certificate
                .parameter_set(context)
                .unwrap_or_else(|| context.clone());
            let mut row = q.zero_row();
            for (k, c) in b.coeffs.iter().enumerate() {
                row[k] = -c;
            }
            let last = row.len() - 1;
            row[last] = -b.constant + b.den - 1;
            q.add_ineq(row);
            match integer_point(&q, budget) {
                Ok(p) => Ok(p.is_none()),
                Err(PolyError::Budget) => Ok(false),
                Err(e) => Err(e),
            }
        }
    }
}

/// Whether `{ x ∈ piece : row(x) + factor·b >= 0 }` is empty (see
/// [`proves_empty`]), `row` over the piece's columns. An affine `b` is
/// written into the row; a quasi-affine one is an existential variable
/// defined by its floor rows.
#[allow(clippy::too_many_arguments)]
fn proves_empty_plus(
    piece: &BasicSet,
    row: &[i64],
    b: &ParamAffine,
    factor: i64,
    certificate: &Certificate,
    context: &BasicSet,
    budget: &mut Budget,
) -> Result<bool, PolyError> {
    if b.is_affine() {
        let row = plus_multiple(row, b, factor)?;
        return proves_empty(piece, row, certificate, context, budget);
    }
    let mut q = piece.clone();
    let col = super::certify::add_modulus_var(&mut q, b);
    let mut row = row.to_vec();
    row.insert(col, factor);
    proves_empty(&q, row, certificate, context, budget)
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
pub(crate) fn axis_layout(
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
            // -b >= 0, i.e. b <= 0.
            let row = vec![0i64; event.domain.width()];
            if !proves_empty_plus(&event.domain, &row, b, -1, certificate, context, budget)
                .map_err(err)?
            {
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
            let this_wraps =
                !proves_empty_plus(&event.domain, sub, b, -1, certificate, context, budget)
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
            let exempt: Vec<(usize, usize)> =
                wraps.iter().filter(|(_, w)| !w).map(|(k, _)| *k).collect();
            let base: Vec<Vec<i64>> = model
                .events
                .iter()
                .map(|e| e.subscripts[p].clone())
                .collect();
            let arguments =
                simplest_arguments(model, &base, (b, 0), &exempt, certificate, context, budget)
                    .map_err(err)?;
            dims.push(DimLayout::Modulo {
                modulus: b.clone(),
                exempt,
                extent_proven,
                arguments,
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
pub(crate) fn linear_layout(
    model: &ArrayModel,
    mapping: &ModularMapping,
    certificate: &Certificate,
    context: &BasicSet,
    budget: &mut Budget,
) -> Result<ArrayLayout, LayoutFailure> {
    match certificate {
        Certificate::ForValues(values) => {
            linear_layout_for_values(model, mapping, values, context, budget)
        }
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

/// The argument of `dim` on an access, before any offset, as a row over
/// its event's columns: `Σ coeffs[p]·subscript_p` minus the row's shift,
/// for a row that removes a stride divided by the divisor. The division
/// is exact on every iteration when every coefficient of the row
/// (iterators, parameters, existentials, constant) is a multiple of the
/// divisor, which is what this checks; otherwise the access may leave the
/// stride lattice and the layout is refused.
fn dim_row(
    dim: &MappedDim,
    subscripts: &[Vec<i64>],
    width: usize,
) -> Result<Vec<i64>, LayoutFailure> {
    let err = |e: PolyError| LayoutFailure(format!("layout proof failed: {e}"));
    let mut row = combined_row(&dim.coeffs, subscripts, width).map_err(err)?;
    if dim.is_shifted() {
        // The event's columns start with the parameters.
        let last = row.len() - 1;
        for (q, c) in dim.shift.coeffs.iter().enumerate() {
            row[q] = row[q]
                .checked_sub(*c)
                .ok_or(PolyError::Overflow)
                .map_err(err)?;
        }
        row[last] = row[last]
            .checked_sub(dim.shift.constant)
            .ok_or(PolyError::Overflow)
            .map_err(err)?;
    }
    if dim.is_divided() {
        if dim.divisor < 1 || row.iter().any(|v| v % dim.divisor != 0) {
            return Err(LayoutFailure(format!(
                "an access is not proven on the stride lattice of a multiple of {}",
                dim.divisor
            )));
        }
        for v in row.iter_mut() {
            *v /= dim.divisor;
        }
    }
    Ok(row)
}

/// `row + sign·(factor·b)` (`b` over the parameter columns and the constant).
fn plus_multiple(row: &[i64], b: &ParamAffine, factor: i64) -> Result<Vec<i64>, PolyError> {
    debug_assert!(b.is_affine(), "a quasi-affine modulus is a variable");
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
        // The modulus is a divisor wherever the array is accessed, and an
        // extent: at least 1 where the program is valid, or guarded.
        let extent_proven = proves_at_least_one(b, certificate, context, budget).map_err(err)?;
        if !extent_proven {
            for event in &model.events {
                // -b >= 0, i.e. b <= 0, must be empty on every access.
                let row = vec![0i64; event.domain.width()];
                if !proves_empty_plus(&event.domain, &row, b, -1, certificate, context, budget)
                    .map_err(err)?
                {
                    return Err(LayoutFailure(format!(
                        "cannot prove that the modulus of dimension {p} is positive where the array is accessed"
                    )));
                }
            }
        }
        let args: Vec<((usize, usize), &BasicSet, Vec<i64>)> = model
            .events
            .iter()
            .map(|e| {
                dim_row(dim, &e.subscripts, e.domain.width())
                    .map(|row| ((e.statement, e.position), &e.domain, row))
            })
            .collect::<Result<_, _>>()?;
        // The smallest k with arg + k·b >= 0 on every access: -(arg + k·b) - 1 >= 0 is empty.
        let mut multiple = None;
        for k in 0..=MAX_OFFSET_MULTIPLE {
            let mut all = true;
            for (_, domain, row) in &args {
                let mut neg: Vec<i64> = row.iter().map(|v| -v).collect();
                let last = neg.len() - 1;
                neg[last] -= 1;
                if !proves_empty_plus(domain, &neg, b, -k, certificate, context, budget)
                    .map_err(err)?
                {
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
        let (offset, offset_moduli) = if b.is_affine() {
            let offset = ParamAffine {
                coeffs: b.coeffs.iter().map(|c| c * k).collect(),
                constant: b.constant * k,
                den: 1,
            };
            (offset, 0)
        } else {
            (ParamAffine::constant(b.coeffs.len(), 0), k)
        };
        // Exempt: arg + offset - b >= 0 is empty on every piece of the access.
        let mut wraps: Vec<((usize, usize), bool)> = Vec::new();
        for (key, domain, row) in &args {
            let this_wraps =
                !proves_empty_plus(domain, row, b, k - 1, certificate, context, budget)
                    .map_err(err)?;
            record_wrap(&mut wraps, *key, this_wraps);
        }
        let exempt: Vec<(usize, usize)> =
            wraps.iter().filter(|(_, w)| !w).map(|(k, _)| *k).collect();
        // With an affine modulus the offset is in the proven forms; a
        // quasi-affine one is counted apart (`k` moduli).
        let (base, moduli): (Vec<Vec<i64>>, i64) = if b.is_affine() {
            let base = args
                .iter()
                .map(|(_, _, row)| plus_multiple(row, b, k))
                .collect::<Result<_, _>>()
                .map_err(err)?;
            (base, 0)
        } else {
            (args.iter().map(|(_, _, row)| row.clone()).collect(), k)
        };
        let arguments = simplest_arguments(
            model,
            &base,
            (b, moduli),
            &exempt,
            certificate,
            context,
            budget,
        )
        .map_err(err)?;
        dims.push(DimLayout::Linear {
            coeffs: dim.coeffs.clone(),
            divisor: dim.divisor,
            shift: dim.shift.clone(),
            offset,
            offset_moduli,
            modulus: b.clone(),
            exempt,
            extent_proven,
            arguments,
        });
    }
    Ok(ArrayLayout { dims })
}

/// [`linear_layout`] for fixed parameter `values`.
fn linear_layout_for_values(
    model: &ArrayModel,
    mapping: &ModularMapping,
    values: &[i64],
    context: &BasicSet,
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
            let objective = dim_row(dim, &event.subscripts, q.width())?;
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
        let exempt: Vec<(usize, usize)> = ranges
            .iter()
            .filter(|(_, l, h)| l + offset >= 0 && h + offset < b)
            .map(|(k, _, _)| *k)
            .collect();
        let modulus = ParamAffine::constant(n_param, b);
        let base: Vec<Vec<i64>> = model
            .events
            .iter()
            .map(|e| {
                let mut row = dim_row(dim, &e.subscripts, e.domain.width())?;
                let last = row.len() - 1;
                row[last] = row[last]
                    .checked_add(offset)
                    .ok_or(LayoutFailure("an offset overflows".into()))?;
                Ok(row)
            })
            .collect::<Result<_, LayoutFailure>>()?;
        let certificate = Certificate::ForValues(values.to_vec());
        let arguments = simplest_arguments(
            model,
            &base,
            (&modulus, 0),
            &exempt,
            &certificate,
            context,
            budget,
        )
        .map_err(err)?;
        dims.push(DimLayout::Linear {
            coeffs: dim.coeffs.clone(),
            divisor: dim.divisor,
            shift: dim.shift.clone(),
            offset: ParamAffine::constant(n_param, offset),
            offset_moduli: 0,
            modulus,
            exempt,
            extent_proven: true,
            arguments,
        });
    }
    Ok(ArrayLayout { dims })
}

/// The most candidate arguments of one access tried by [`simplest_arguments`]
/// (each costs one or two emptiness proofs per piece of the access).
const MAX_ARGUMENT_PROOFS: usize = 40;

/// The most coefficient vectors [`simplest_arguments`] forms for one access
/// (beyond it, each coefficient keeps its value or takes its residue
/// nearest to 0).
const MAX_COEFFICIENT_CHOICES: usize = 81;

/// How simple an argument reads: smaller coefficients first (so that the
/// accesses of one statement keep resembling each other: `i - 2 * j + 9`
/// and `i - 2 * j + 8`, not `7 * j + i` and `i - 2 * j + 8`), then fewer
/// terms (the constant counts as one), then a smaller constant (no offset
/// when none is needed); between equals, the argument as it is
/// (`(k - 1) % 2` stays, not `(k + 1) % 2`), then a positive constant; the
/// rest makes the order total.
fn simplicity(
    coeffs: &[i64],
    constant: i64,
    base: (&[i64], i64),
) -> (u64, usize, u64, bool, bool, Vec<i64>) {
    let terms = coeffs.iter().filter(|c| **c != 0).count() + usize::from(constant != 0);
    let size = coeffs
        .iter()
        .fold(0u64, |acc, c| acc.saturating_add(c.unsigned_abs()));
    (
        size,
        terms,
        constant.unsigned_abs(),
        (coeffs, constant) != base,
        constant < 0,
        coeffs.to_vec(),
    )
}

/// The candidate arguments equal to `(coeffs, constant)` modulo `b`: for a
/// constant modulus, every coefficient and the constant may change by a
/// multiple of it (each coefficient to its residue or the residue minus
/// the modulus, the constant by up to [`MAX_OFFSET_MULTIPLE`] moduli on
/// either side of its residue); for a modulus with parameters, multiples
/// `k·b` with `|k| <= MAX_OFFSET_MULTIPLE` are added. Simplest first (see [`simplicity`]).
fn candidate_arguments(coeffs: &[i64], constant: i64, b: &ParamAffine) -> Vec<(Vec<i64>, i64)> {
    debug_assert!(
        b.is_affine(),
        "quasi-affine moduli count their multiples apart"
    );
    let mut out: Vec<(Vec<i64>, i64)> = Vec::new();
    if b.is_constant() && b.constant >= 2 {
        let m = b.constant;
        let options = |c: i64, all: bool| -> Vec<i64> {
            let r = c.rem_euclid(m);
            let mut o = vec![c];
            if all {
                o.push(r);
                if r != 0 {
                    o.push(r - m);
                }
            } else {
                o.push(if r > m / 2 { r - m } else { r });
            }
            o.sort_unstable();
            o.dedup();
            o
        };
        let mut choices: Vec<Vec<i64>> = coeffs.iter().map(|c| options(*c, true)).collect();
        let count = choices
            .iter()
            .try_fold(1usize, |acc, o| acc.checked_mul(o.len()));
        if count.is_none_or(|n| n > MAX_COEFFICIENT_CHOICES) {
            choices = coeffs.iter().map(|c| options(*c, false)).collect();
        }
        let r0 = constant.rem_euclid(m);
        let mut constants = vec![constant];
        for k in -MAX_OFFSET_MULTIPLE..=MAX_OFFSET_MULTIPLE {
            if let Some(v) = k.checked_mul(m).and_then(|v| v.checked_add(r0)) {
                constants.push(v);
            }
        }
        constants.sort_unstable();
        constants.dedup();
        let mut vectors: Vec<Vec<i64>> = vec![Vec::new()];
        for o in &choices {
            vectors = vectors
                .into_iter()
                .flat_map(|v| {
                    o.iter().map(move |c| {
                        let mut w = v.clone();
                        w.push(*c);
                        w
                    })
                })
                .collect();
            if vectors.len() > MAX_COEFFICIENT_CHOICES * 3 {
                // Unreachable with the limit above; a guard all the same.
                break;
            }
        }
        for v in vectors {
            if v.len() != coeffs.len() {
                continue;
            }
            for c in &constants {
                out.push((v.clone(), *c));
            }
        }
    } else {
        for k in -MAX_OFFSET_MULTIPLE..=MAX_OFFSET_MULTIPLE {
            let mut v = coeffs.to_vec();
            let mut ok = true;
            for (q, c) in b.coeffs.iter().enumerate() {
                match k.checked_mul(*c).and_then(|t| v[q].checked_add(t)) {
                    Some(x) => v[q] = x,
                    None => ok = false,
                }
            }
            let c = k
                .checked_mul(b.constant)
                .and_then(|t| constant.checked_add(t));
            if let (true, Some(c)) = (ok, c) {
                out.push((v, c));
            }
        }
    }
    out.sort_by_key(|(v, c)| simplicity(v, *c, (coeffs, constant)));
    out.dedup();
    out
}

/// The simplest argument of each access of a `%` dimension with modulus
/// `b`, whose proven argument on each event of `model` is `base[e]` (a row
/// over that event's columns): the first candidate of
/// [`candidate_arguments`] proven non-negative on every piece of the
/// access (and, for an access in `exempt`, below the modulus too, so that
/// it keeps needing no `%`), by the proofs of this module for the
/// parameter values of `certificate`. The access's own argument is a
/// candidate with its proofs already done, so one is always found; an
/// access whose argument is not the same affine form over
/// `[params | iterators]` on all its pieces (or uses an existential) gets
/// no entry.
fn simplest_arguments(
    model: &ArrayModel,
    base: &[Vec<i64>],
    (b, moduli): (&ParamAffine, i64),
    exempt: &[(usize, usize)],
    certificate: &Certificate,
    context: &BasicSet,
    budget: &mut Budget,
) -> Result<Vec<Argument>, PolyError> {
    let n_param = model.params.len();
    let mut keys: Vec<(usize, usize)> = Vec::new();
    for e in &model.events {
        let key = (e.statement, e.position);
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    let mut out = Vec::new();
    for key in keys {
        let events: Vec<usize> = (0..model.events.len())
            .filter(|k| (model.events[*k].statement, model.events[*k].position) == key)
            .collect();
        // The argument over [params | iterators] and the constant, the same
        // on every piece.
        let mut form: Option<(Vec<i64>, i64)> = None;
        let mut consistent = true;
        for &k in &events {
            let row = &base[k];
            let cols = n_param + model.events[k].domain.space.n_dim();
            let last = row.len() - 1;
            if row[cols..last].iter().any(|c| *c != 0) {
                consistent = false;
                break;
            }
            let this = (row[..cols].to_vec(), row[last]);
            match &form {
                None => form = Some(this),
                Some(f) if *f == this => {}
                Some(_) => consistent = false,
            }
        }
        let (Some((coeffs, constant)), true) = (form, consistent) else {
            continue;
        };
        let in_range_needed = exempt.contains(&key);
        let mut chosen: Option<Argument> = None;
        // With a quasi-affine modulus, fewer moduli added first (none:
        // the plain combination); the access's own form has `moduli`.
        let candidates: Vec<(Vec<i64>, i64, i64)> = if b.is_affine() {
            candidate_arguments(&coeffs, constant, b)
                .into_iter()
                .map(|(v, c)| (v, c, 0))
                .collect()
        } else {
            (0..=moduli.max(0))
                .map(|m| (coeffs.clone(), constant, m))
                .collect()
        };
        // Every candidate before the access's own costs proofs.
        for (tried, (v, c, m)) in candidates.into_iter().enumerate() {
            if v == coeffs && c == constant && m == moduli {
                chosen = Some(Argument {
                    access: key,
                    coeffs: v,
                    constant: c,
                    moduli: m,
                    wraps: !in_range_needed,
                    wraps_once: false,
                    rotation: None,
                });
                break;
            }
            if tried == MAX_ARGUMENT_PROOFS {
                break;
            }
            let mut non_negative = true;
            let mut below = true;
            for &k in &events {
                let domain = &model.events[k].domain;
                let row = form_row(domain, &v, c);
                let last = row.len() - 1;
                // arg <= -1 must be empty (arg = row + m·b).
                let mut neg: Vec<i64> = row.iter().map(|x| -x).collect();
                neg[last] -= 1;
                if !proves_empty_plus(domain, &neg, b, -m, certificate, context, budget)? {
                    non_negative = false;
                    break;
                }
                // arg - b >= 0 must be empty for no `%`.
                if below
                    && !proves_empty_plus(domain, &row, b, m - 1, certificate, context, budget)?
                {
                    below = false;
                    if in_range_needed {
                        break;
                    }
                }
            }
            if non_negative && (below || !in_range_needed) {
                chosen = Some(Argument {
                    access: key,
                    coeffs: v,
                    constant: c,
                    moduli: m,
                    wraps: !below,
                    wraps_once: false,
                    rotation: None,
                });
                break;
            }
        }
        let chosen = chosen.unwrap_or(Argument {
            access: key,
            coeffs,
            constant,
            moduli,
            wraps: !in_range_needed,
            wraps_once: false,
            rotation: None,
        });
        out.push(chosen);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::Triangle;
    use crate::mapping::modular::ParamAffine;

    /// The packed index is a bijection from each triangle onto `0..E·(E +
    /// 1)/2` (`0..E·(E - 1)/2` without the diagonal), by brute force for E
    /// = 1..=12 with the triangles written out here; `contains`, `cells`
    /// and the index of a constant row as an affine form in `E` agree.
    #[test]
    fn packed_indices_number_each_triangle_from_zero_without_a_gap() {
        for e in 1..=12i64 {
            for triangle in Triangle::ALL {
                let inside = |a: i64, b: i64| match triangle {
                    Triangle::Lower => b <= a,
                    Triangle::Upper => a <= b,
                    Triangle::StrictLower => b < a,
                    Triangle::StrictUpper => a < b,
                };
                let count = (0..e)
                    .flat_map(|a| (0..e).map(move |b| (a, b)))
                    .filter(|(a, b)| inside(*a, *b))
                    .count() as i64;
                let expected = if triangle.is_strict() {
                    e * (e - 1) / 2
                } else {
                    e * (e + 1) / 2
                };
                assert_eq!(count, expected, "{triangle:?} {e}");
                assert_eq!(triangle.cells(e), i128::from(count), "{triangle:?} {e}");
                let mut seen = vec![false; count as usize];
                for a in 0..e {
                    for b in 0..e {
                        assert_eq!(triangle.contains(a, b, e), inside(a, b));
                        if !inside(a, b) {
                            continue;
                        }
                        let k = triangle.index(a, b, e);
                        assert!((0..count).contains(&k), "{triangle:?} {e} {a} {b}");
                        assert!(!seen[k as usize], "{triangle:?} {e}: {a} {b} twice");
                        seen[k as usize] = true;
                        // E = N + 1 and b = N - e + 1 + b as forms in N.
                        let n = e - 1;
                        let ext = ParamAffine {
                            coeffs: vec![1],
                            constant: 1,
                            den: 1,
                        };
                        let col = ParamAffine {
                            coeffs: vec![1],
                            constant: b - n,
                            den: 1,
                        };
                        let form = triangle.constant_row_index(a, &col, &ext).unwrap();
                        assert_eq!(form.eval(&[n]).unwrap(), k, "{triangle:?} {e} {a} {b}");
                    }
                }
                assert!(seen.iter().all(|s| *s), "{triangle:?} {e}: a gap");
            }
        }
    }
}
