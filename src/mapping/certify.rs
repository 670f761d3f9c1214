//! Certification: an exact proof that a modular mapping never sends two
//! conflicting cells to one location.
//!
//! A mapping σ(c) = M·c mod b is valid for a difference set DS iff no
//! non-zero `d ∈ DS` has `M·d ≡ 0 (mod b)`. For fixed parameter values this
//! is decided exactly: the congruences become equalities `M_q·d = b_q·k_q`
//! with existential `k_q`, and `d ≠ 0` is split by its first non-zero
//! coordinate and sign; every piece must be integer-empty.
//!
//! For symbolic moduli `b_q(N)` the congruence is not linear; the check
//! proves the emptiness of a superset instead: a colliding `d` either has
//! `M·d = 0` (and `d ≠ 0`) or a first row `q` with `M_q·d ≠ 0`, and then
//! `M_q·d = ±k·b_q(N)` for some `k ≥ 1`: each `k` up to a small bound is a
//! linear equality (ruled out one by one, so that a lattice whose conflict
//! distances pass the modulus without hitting a multiple is proven), and
//! the rest is `|M_q·d| ≥ (bound + 1)·b_q(N)`. Emptiness of those pieces for
//! every parameter value of the context is a proof for all parameter
//! values. A failed proof is not a collision: the caller falls back
//! (numeric moduli, or no mapping).

use crate::poly::enumerate::fix_params;
use crate::poly::simplex::integer_point;
use crate::poly::{BasicSet, Budget, PolyError};

use super::modular::{MappedDim, ModularMapping, ParamAffine};

/// The multiples `k·b(N)` of a symbolic modulus that the symbolic proof
/// rules out one by one (each an equality, linear for a fixed `k`); past
/// them it needs `|M_q·d| < (SYMBOLIC_MULTIPLES + 1)·b(N)`.
const SYMBOLIC_MULTIPLES: i64 = 2;

/// For which parameter values a proof is wanted.
#[derive(Clone, Copy, Debug)]
pub enum CertifyMode<'a> {
    /// These parameter values (one per parameter, in order).
    Fixed(&'a [i64]),
    /// Every parameter value satisfying `context` (a set over the parameters).
    Symbolic { context: &'a BasicSet },
}

/// What was proven.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Certificate {
    /// Valid for exactly these parameter values.
    ForValues(Vec<i64>),
    /// Valid for every parameter value of the context.
    ForAllParameters,
    /// Valid for every parameter value of the context with each parameter
    /// at least `from[q]` (see [`region`]).
    FromValues(Vec<i64>),
}

/// `context ∧ p_q >= from[q]` for every parameter `q`.
pub fn region(context: &BasicSet, from: &[i64]) -> BasicSet {
    let mut q = context.clone();
    for (k, v) in from.iter().enumerate() {
        let mut row = q.zero_row();
        row[k] = 1;
        let last = row.len() - 1;
        row[last] = -v;
        q.add_ineq(row);
    }
    q
}

impl Certificate {
    /// The set of parameter values it covers, when it is not a list of
    /// values: the context, or a region of it.
    pub(crate) fn parameter_set(&self, context: &BasicSet) -> Option<BasicSet> {
        match self {
            Certificate::ForValues(_) => None,
            Certificate::ForAllParameters => Some(context.clone()),
            Certificate::FromValues(from) => Some(region(context, from)),
        }
    }
}

/// Why a mapping could not be certified.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CertifyFailure {
    /// Two conflicting cells at distance `difference` share a location.
    Collision { difference: Vec<i64> },
    /// The symbolic proof did not go through (this is not a collision).
    NotProven(String),
    /// The solver ran out of budget or overflowed.
    Undecided(PolyError),
}

impl std::fmt::Display for CertifyFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CertifyFailure::Collision { difference } => {
                write!(
                    f,
                    "conflicting cells at distance {difference:?} would share a location"
                )
            }
            CertifyFailure::NotProven(why) => {
                write!(f, "not proven for all parameter values: {why}")
            }
            CertifyFailure::Undecided(e) => write!(f, "certification undecided: {e}"),
        }
    }
}

/// Adds to `set` (parameters first) an existential variable equal to the
/// modulus `b` (see [`ParamAffine::floor_rows`]) and returns its column.
pub(crate) fn add_modulus_var(set: &mut BasicSet, b: &ParamAffine) -> usize {
    let col = set.add_exist();
    for row in b.floor_rows(set.width(), col) {
        set.add_ineq(row);
    }
    col
}

/// `Σ_p M_qp·d_p` as a row of `piece`.
fn image_row(piece: &BasicSet, coeffs: &[i64]) -> Vec<i64> {
    let n_param = piece.space.n_param();
    let mut row = piece.zero_row();
    for (p, c) in coeffs.iter().enumerate() {
        row[n_param + p] = *c;
    }
    row
}

/// Proves that `mapping` is valid for the difference set `ds` (pieces over
/// `{ [d] }` with the parameters of the mapping).
pub fn certify_modular(
    ds: &[BasicSet],
    mapping: &ModularMapping,
    mode: CertifyMode<'_>,
    budget: &mut Budget,
) -> Result<Certificate, CertifyFailure> {
    // A row that removes a stride collides like its undivided row over the
    // stride lattice (see `MappedDim::divisor`); that every access stays on
    // the lattice is the layout's proof.
    let undivided;
    let mapping = if mapping.dims.iter().any(MappedDim::is_divided) {
        let dims = mapping
            .dims
            .iter()
            .map(MappedDim::undivided)
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| {
                CertifyFailure::NotProven("a stride with a quasi-affine modulus".into())
            })?;
        undivided = ModularMapping {
            dims,
            ..mapping.clone()
        };
        &undivided
    } else {
        mapping
    };
    // The numeric moduli, for fixed values (checked at the first piece).
    let moduli: Option<Result<Vec<i64>, PolyError>> = match mode {
        CertifyMode::Fixed(values) => Some(
            mapping
                .dims
                .iter()
                .map(|d| d.modulus.eval(values))
                .collect(),
        ),
        CertifyMode::Symbolic { .. } => None,
    };
    for piece in ds {
        let moduli = moduli
            .clone()
            .transpose()
            .map_err(CertifyFailure::Undecided)?;
        let base = match mode {
            CertifyMode::Fixed(values) => {
                if moduli.as_ref().is_some_and(|m| m.iter().any(|b| *b < 1)) {
                    return Err(CertifyFailure::NotProven("a modulus is below 1".into()));
                }
                let base = fixed_piece(piece, values).map_err(CertifyFailure::Undecided)?;
                if base.is_obviously_empty() {
                    continue;
                }
                base
            }
            CertifyMode::Symbolic { context } => {
                let mut base = piece.clone();
                base.add_param_constraints(context);
                base
            }
        };
        let check = |base: &BasicSet, budget: &mut Budget| match &moduli {
            Some(moduli) => check_fixed(base, mapping, moduli, budget),
            None => check_symbolic(base, mapping, budget),
        };
        // The same integer points with fewer rows and columns: every check
        // gives the same verdict on it. A failure is checked again on the
        // piece as it was, so that the collision reported is the one found
        // there.
        if let Some(reduced) = reduced(&base)
            && (reduced.is_obviously_empty() || check(&reduced, budget).is_ok())
        {
            continue;
        }
        check(&base, budget)?;
    }
    Ok(match mode {
        CertifyMode::Fixed(values) => Certificate::ForValues(values.to_vec()),
        CertifyMode::Symbolic { .. } => Certificate::ForAllParameters,
    })
}

/// How many reduced pieces [`reduced`] keeps per thread before it starts
/// again (a few arrays' difference sets).
const REDUCED_CACHE: usize = 1024;

thread_local! {
    /// [`fixed_piece`]'s answers.
    static FIXED: std::cell::RefCell<FixedPieces> = Default::default();
    /// [`reduced`]'s answers: the difference sets of an array are certified
    /// again for every mapping a strategy proposes.
    static REDUCED: std::cell::RefCell<crate::util::hash::FastMap<BasicSet, Option<BasicSet>>> =
        Default::default();
}

/// A piece of a difference set with the parameter values it was fixed at,
/// and what [`fixed_piece`] made of it.
type FixedPieces = crate::util::hash::FastMap<(BasicSet, Vec<i64>), Result<BasicSet, PolyError>>;

/// `piece` with the parameters fixed to `values` and its existentials
/// eliminated where that is exact, remembered per thread (every mapping
/// certified for the known values starts from it).
fn fixed_piece(piece: &BasicSet, values: &[i64]) -> Result<BasicSet, PolyError> {
    let key = (piece.clone(), values.to_vec());
    if let Some(known) = FIXED.with(|m| m.borrow().get(&key).cloned()) {
        return known;
    }
    let mut base = piece.clone();
    fix_params(&mut base, values);
    let out = crate::poly::project::eliminate_exists_where_exact(&base);
    FIXED.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() >= REDUCED_CACHE {
            m.clear();
        }
        m.insert(key, out.clone());
    });
    out
}

/// `base` without the rows the others imply and with the existentials its
/// equalities define substituted out
/// ([`crate::poly::constraints::remove_redundant`]: the same integer
/// points), remembered per thread; `None` when that fails (overflow).
fn reduced(base: &BasicSet) -> Option<BasicSet> {
    if let Some(known) = REDUCED.with(|m| m.borrow().get(base).cloned()) {
        return known;
    }
    let out = crate::poly::constraints::remove_redundant(base).ok();
    REDUCED.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() >= REDUCED_CACHE {
            m.clear();
        }
        m.insert(base.clone(), out.clone());
    });
    out
}

/// The fixed-values check of one piece `base` (the parameters fixed):
/// no non-zero `d` with `M·d ≡ 0 (mod b)` for the numeric `moduli`.
fn check_fixed(
    base: &BasicSet,
    mapping: &ModularMapping,
    moduli: &[i64],
    budget: &mut Budget,
) -> Result<(), CertifyFailure> {
    let rank = mapping.rank();
    let mut base = base.clone();
    for (dim, b) in mapping.dims.iter().zip(moduli) {
        let k = base.add_exist();
        let mut row = image_row(&base, &dim.coeffs);
        row[k] = -b;
        base.add_eq(row);
    }
    for q in nonzero_pieces(&base, rank) {
        check_empty(&q, rank, budget)?;
    }
    Ok(())
}

/// The symbolic check of one piece `base` (the context added).
fn check_symbolic(
    base: &BasicSet,
    mapping: &ModularMapping,
    budget: &mut Budget,
) -> Result<(), CertifyFailure> {
    let rank = mapping.rank();
    // d != 0 and M·d = 0.
    let mut in_kernel = base.clone();
    for dim in &mapping.dims {
        in_kernel.add_eq(image_row(&in_kernel, &dim.coeffs));
    }
    for q in nonzero_pieces(&in_kernel, rank) {
        check_empty(&q, rank, budget)?;
    }
    // First non-zero image row q: sign·M_q·d = k·b_q(N) for some
    // k >= 1; each k up to SYMBOLIC_MULTIPLES is an equality
    // (linear in d and N for a fixed k), the rest is
    // sign·M_q·d >= (SYMBOLIC_MULTIPLES + 1)·b_q(N).
    for (qi, dim) in mapping.dims.iter().enumerate() {
        for sign in [1, -1] {
            let mut q = base.clone();
            for earlier in &mapping.dims[..qi] {
                q.add_eq(image_row(&q, &earlier.coeffs));
            }
            for k in 1..=SYMBOLIC_MULTIPLES + 1 {
                let mut piece = q.clone();
                add_multiple(&mut piece, dim, sign, k);
                if refute(&piece, &mapping.dims[qi + 1..], budget)? {
                    continue;
                }
                return Err(CertifyFailure::NotProven(format!(
                    "a conflict distance reaches {k} times the modulus of dimension {qi}"
                )));
            }
        }
    }
    Ok(())
}

/// Adds to `piece` that `sign·M_q·d` is `k·b_q` (`k <= SYMBOLIC_MULTIPLES`)
/// or at least `k·b_q` (past them), for the row `dim` = (M_q, b_q); `k` 0
/// (with either sign) is `M_q·d = 0`. A quasi-affine modulus is a variable
/// defined by its two floor rows, an affine one is written out.
fn add_multiple(piece: &mut BasicSet, dim: &MappedDim, sign: i64, k: i64) {
    let b_col = (!dim.modulus.is_affine()).then(|| add_modulus_var(piece, &dim.modulus));
    let mut row = image_row(piece, &dim.coeffs);
    for v in row.iter_mut() {
        *v *= sign;
    }
    let last = row.len() - 1;
    if let Some(col) = b_col {
        row[col] -= k;
    } else {
        for (p, c) in dim.modulus.coeffs.iter().enumerate() {
            row[p] -= k * c;
        }
        row[last] -= k * dim.modulus.constant;
    }
    if k <= SYMBOLIC_MULTIPLES {
        piece.add_eq(row);
    } else {
        piece.add_ineq(row);
    }
}

/// Whether `piece` (a superset of the colliding differences in one case)
/// is proven empty, refined by the rows `later` when it is not: a
/// colliding `d` also has `M_r·d ≡ 0 (mod b_r)` for each of them, that is
/// `M_r·d = k·b_r` with `|k| <= SYMBOLIC_MULTIPLES` (one equality each) or
/// `|M_r·d| >= (SYMBOLIC_MULTIPLES + 1)·b_r`: every integer `k` falls in
/// one of these pieces (when `b_r <= 0` the last two hold trivially), so
/// their union still contains every collision. This proves lattices whose
/// rows only together keep conflicts apart (reg_detect's
/// `(c0 % b0, (c1 - 2c0) % b1)`: a distance `b0` along `c0` is a conflict,
/// kept apart by the second row).
fn refute(
    piece: &BasicSet,
    later: &[MappedDim],
    budget: &mut Budget,
) -> Result<bool, CertifyFailure> {
    match integer_point(piece, budget) {
        Ok(None) => return Ok(true),
        Ok(Some(_)) => {}
        Err(e) => return Err(CertifyFailure::Undecided(e)),
    }
    let Some((dim, rest)) = later.split_first() else {
        return Ok(false);
    };
    let mut cases: Vec<(i64, i64)> = vec![(1, 0)];
    for k in 1..=SYMBOLIC_MULTIPLES + 1 {
        cases.push((1, k));
        cases.push((-1, k));
    }
    for (sign, k) in cases {
        let mut q = piece.clone();
        add_multiple(&mut q, dim, sign, k);
        if !refute(&q, rest, budget)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// `base ∧ d ≠ 0` as 2·rank pieces: the first non-zero coordinate of `d`
/// (the first `rank` set dimensions) and its sign.
fn nonzero_pieces(base: &BasicSet, rank: usize) -> Vec<BasicSet> {
    let n_param = base.space.n_param();
    let mut out = Vec::with_capacity(2 * rank);
    for p0 in 0..rank {
        for sign in [1, -1] {
            let mut q = base.clone();
            for j in 0..p0 {
                let mut row = q.zero_row();
                row[n_param + j] = 1;
                q.add_eq(row);
            }
            let mut row = q.zero_row();
            row[n_param + p0] = sign;
            let last = row.len() - 1;
            row[last] = -1;
            q.add_ineq(row);
            out.push(q);
        }
    }
    out
}

/// Fails with the colliding difference when `q` has an integer point.
fn check_empty(q: &BasicSet, rank: usize, budget: &mut Budget) -> Result<(), CertifyFailure> {
    match integer_point(q, budget) {
        Ok(None) => Ok(()),
        Ok(Some(point)) => {
            let n_param = q.space.n_param();
            Err(CertifyFailure::Collision {
                difference: point[n_param..n_param + rank].to_vec(),
            })
        }
        Err(e) => Err(CertifyFailure::Undecided(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mapping::modular::{MappedDim, ModularMapping, ParamAffine};
    use crate::poly::isl_parse::parse_set;

    /// The difference set of an upper triangle whose cells are all live
    /// at once (reg_detect's `sum_t`): every difference of two cells of
    /// `{ (j, i) : 0 <= j <= i <= N - 1 }`.
    fn triangle_ds() -> Vec<BasicSet> {
        parse_set(
            "[N] -> { [d0, d1] : exists (j, i, j2, i2 : d0 = j - j2 and d1 = i - i2 \
             and 0 <= j <= i <= N - 1 and 0 <= j2 <= i2 <= N - 1) }",
        )
        .unwrap()
        .pieces
    }

    /// `(c0 % b0, (c1 - 2c0) % b1)` with quasi-affine moduli.
    fn lattice(b0: ParamAffine, b1: ParamAffine) -> ModularMapping {
        ModularMapping {
            array: "T".into(),
            params: vec!["N".into()],
            dims: vec![
                MappedDim::new(vec![1, 0], b0),
                MappedDim::new(vec![-2, 1], b1),
            ],
        }
    }

    /// Brute force: two distinct cells of the triangle of side `n` that
    /// `m` sends to one location.
    fn collides(m: &ModularMapping, n: i64) -> bool {
        let loc = |j: i64, i: i64| -> Vec<i64> {
            m.dims
                .iter()
                .map(|d| {
                    let b = d.modulus.eval(&[n]).unwrap();
                    (d.coeffs[0] * j + d.coeffs[1] * i).rem_euclid(b)
                })
                .collect()
        };
        let cells: Vec<(i64, i64)> = (0..n).flat_map(|j| (j..n).map(move |i| (j, i))).collect();
        let mut seen = std::collections::HashSet::new();
        cells.iter().any(|(j, i)| !seen.insert(loc(*j, *i)))
    }

    #[test]
    fn quasi_affine_lattice_is_proven_for_every_size_and_its_floor_twin_is_not() {
        let context = parse_set("[N] -> { [] : N >= 1 }").unwrap().pieces[0].clone();
        let ds = triangle_ds();
        let ceil = lattice(
            ParamAffine::quasi(vec![1], 1, 2),
            ParamAffine::quasi(vec![3], 1, 2),
        );
        let floor = lattice(
            ParamAffine::quasi(vec![1], 0, 2),
            ParamAffine::quasi(vec![3], 0, 2),
        );
        // Brute force first: the rounded-up moduli never collide, the
        // rounded-down ones do at odd sizes (and N / 2 is 0 at N = 1).
        for n in 2..=14 {
            assert!(!collides(&ceil, n), "ceil at {n}");
            assert_eq!(collides(&floor, n), n % 2 == 1, "floor at {n}");
        }
        let mut budget = Budget::new(50_000_000, None);
        let mode = CertifyMode::Symbolic { context: &context };
        assert_eq!(
            certify_modular(&ds, &ceil, mode, &mut budget),
            Ok(Certificate::ForAllParameters)
        );
        assert!(certify_modular(&ds, &floor, mode, &mut budget).is_err());
    }
}
