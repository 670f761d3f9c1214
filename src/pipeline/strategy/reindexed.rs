//! Successive modulo in the basis of a write access (a unimodular
//! reindexing, seed 004's change of basis before folding).
//!
//! A temporary written at `B[i + j][j]` has cells along a skewed
//! footprint: its axes are the wrong basis for successive modulo, which
//! keeps `N + M - 1` rows, and the lattice strategies fold it with a `%`
//! on every access (`B[(i + j) % N][j]`). When a write access's subscripts
//! are a unimodular function `F` of the iterators they use, `U = F⁻¹`
//! maps each cell back to the iteration that writes it; successive modulo
//! on the difference set in the coordinates `e = U·c` (substituting
//! `d = F·e`) gives one modulus per row of `U`, and the mapping
//! `c -> (U·c) mod b` is proposed like any other (certified on the
//! difference set, for every parameter value or the known ones). Where
//! every value is live at once, `U·c` ranges over exactly its moduli, the
//! layout proves that no access wraps, and the subscripts become the
//! iterators (`B[i][j]`, no `%`).
//!
//! On a tie with a layout that wraps (successive modulo's `T[i][(i + j) %
//! m]` for a write `T[i][i + j]`), the chooser takes the plain one.
//!
//! Strides (seed 004's compaction, per row): along each row `U_r` of a
//! basis (the axes, or a write's), the gcd `g` of every coefficient of
//! `U_r·c` over every access, and of the differences of their constants,
//! puts every accessed cell on `U_r·c ≡ r (mod g)`. That row is divided
//! by `g` before folding (`e_r = g·e'_r`, successive modulo on the
//! difference set in `e'`), and the mapping's row keeps the divisor
//! (`MappedDim::divisor`): `t[2 * i][1]`, read back in reverse, becomes
//! `t[n]` accessed as `t[i]` for every `n` (the constant column is a row
//! of modulus 1, left out). The certificate is the undivided row's
//! (modulus `g·b`, the same collisions on the lattice), and the layout
//! proves every access on the lattice before it divides.
//!
//! Not done here: strides of a lattice that is not a product of per-row
//! strides in a basis tried (`t[i + j]` with `i + j` even: a Hermite
//! normal form of the accessed lattice), strides that come from a loop's
//! step (`for (i = 0; i < n; i += 2) t[i]`: the stride is in the domain,
//! an existential, not in the subscript's coefficients), writes whose
//! matrix is not unimodular (`T[2 * i + 2 * j][j]` keeps the axes' basis,
//! divided by 2), several writes with different bases (each is tried
//! alone), and bases that no access has (seed 004's search for the
//! tightest parallelotope).
//!
//! Shifts: each basis is tried twice, with the constant residues of its
//! strides and with the parameter and constant part of the first write
//! along each row subtracted (`MappedDim::shift`): `T[i - j + m - 1][j]`
//! in the basis `(c0 + c1, c1)` is `(i + m - 1, j)`, shifted by `m - 1`
//! it is `(i, j)` and no access wraps (`T[i][j]`). The certificate does
//! not depend on the shift (it moves a row's locations by one amount).
//! The chooser looks past a taken proposal that wraps for a later one of
//! the same cells without `%`.
//!
//! A modulus
//! not proven at least 1 wherever the program is valid (`B[n + m][m]`
//! with nothing declaring `n` alone) gets the guarded extent
//! `n > 1 ? n : 1` (`mapping::layout`).

use std::time::Instant;

use crate::mapping::Method;
use crate::mapping::modular::{MappedDim, ModularMapping, ParamAffine};
use crate::mapping::successive::{
    fit_moduli, fix_and_simplify, moduli_after_prefix, moduli_for_values,
};
use crate::pipeline::certify::Scope;
use crate::pipeline::record::KeptReason as Kept;
use crate::poly::{BasicSet, Budget, PolyError, PolyResult};

use super::facts::{ArrayFacts, Chooser, Proof, Proposal, Proposals, solver};

pub(super) fn propose(
    facts: &mut ArrayFacts<'_>,
    chooser: &Chooser,
    budget: &mut Budget,
) -> Result<Proposals, Kept> {
    let start = Instant::now();
    let rank = facts.model.rank;
    if rank == 0 || !(facts.allow_symbolic || facts.macros_pinnable) {
        return Ok(Proposals::default());
    }
    let mut bases = with_strides(facts, write_bases(facts));
    if bases.is_empty() && rank < 2 {
        return Ok(Proposals::default());
    }
    facts.conflicts(budget)?;
    let facts = &*facts;
    let conflicts = facts.conflicts.as_ref().expect("computed");
    // A skew's row wraps on most accesses: it must save a quarter of the
    // current choice (the cost rule's share), not a cell or two of it
    // (durbin's `y`: 199 cells with `(k - 2i) % (2N - 1)` against the
    // axes' 200).
    let cap = chooser.current() / 4 * 3 + 1;
    match skew_bases(facts, &conflicts.ds, cap, budget) {
        Ok(skews) => bases.extend(skews),
        Err(PolyError::Budget | PolyError::Overflow) => {}
        Err(e) => return Err(solver(e)),
    }
    let name = &facts.scop.array(facts.array).name;
    // The known values can be pinned from a lower end on (`_Static_assert(N
    // >= 2, …)`) where the model holds for every value.
    let pinnable = facts.values_known
        && facts.macros_pinnable
        && !facts.scop.array_depends_on_values(facts.array);
    let live_in_free = if pinnable {
        facts.live_in_free(budget)
    } else {
        Vec::new()
    };
    let mut list = Vec::new();
    for Basis {
        f,
        u,
        strides,
        skew,
    } in bases
    {
        // d = F·e with e_r = g_r·e'_r along a row of stride g_r: the
        // difference set in the compacted coordinates e'.
        let Some(fg) = f
            .iter()
            .map(|row| {
                row.iter()
                    .zip(&strides)
                    .map(|(x, (g, _))| x.checked_mul(*g))
                    .collect::<Option<Vec<i64>>>()
            })
            .collect::<Option<Matrix>>()
        else {
            continue;
        };
        let Ok(ds) = in_basis(&conflicts.ds, &fg) else {
            continue;
        };
        let identity = u
            .iter()
            .enumerate()
            .all(|(r, row)| row.iter().enumerate().all(|(k, c)| *c == i64::from(r == k)));
        let method = if strides.iter().any(|(g, _)| *g != 1) {
            Method::StrideRemoved
        } else if identity {
            Method::OffsetRemoved
        } else {
            Method::Reindexed
        };
        let fixed = fix_and_simplify(&ds, &facts.values).map_err(solver)?;
        let numeric = match moduli_for_values(&fixed, rank, &facts.values, budget) {
            Ok(m) => m,
            Err(PolyError::Budget | PolyError::Overflow) => continue,
            Err(e) => return Err(solver(e)),
        };
        let cells = numeric.iter().try_fold(1i64, |acc, b| acc.checked_mul(*b));
        // A tie is proposed too: the chooser prefers plain subscripts
        // (not for a skew, whose skewed row wraps).
        if cells.is_none_or(|c| c > chooser.current() || skew && c == chooser.current()) {
            continue;
        }
        let mapping_with = |moduli: Vec<ParamAffine>| {
            let mut dims: Vec<MappedDim> = u
                .iter()
                .zip(moduli)
                .zip(&strides)
                .map(|((row, modulus), (divisor, shift))| MappedDim {
                    coeffs: row.clone(),
                    modulus,
                    divisor: *divisor,
                    shift: shift.clone(),
                })
                .collect();
            // A row of modulus 1 sends every cell to 0: it is left out (the
            // locations are the same), unless every row is.
            let one = |d: &MappedDim| d.modulus.is_constant() && d.modulus.constant == 1;
            if !dims.iter().all(one) {
                dims.retain(|d| !one(d));
            }
            ModularMapping {
                array: name.clone(),
                params: facts.model.params.clone(),
                dims,
            }
        };
        if facts.allow_symbolic || !live_in_free.is_empty() {
            match fit_moduli(&ds, rank, &facts.values, numeric.clone(), budget) {
                Ok(found) => {
                    if let Some(moduli) = found.symbolic {
                        let mapping = mapping_with(moduli);
                        // Every value, then from a lower end on, pinned:
                        // a context without the facts that only valid
                        // accesses give (blur-tiled's `[B - 2]` needs B >=
                        // 2 once there are two rows of tiles) may hold the
                        // proof back at small values, and live-in cells
                        // for small values only rule out every value.
                        let mut scopes = Vec::new();
                        if facts.allow_symbolic {
                            scopes.push(Scope::EveryValue);
                        }
                        if pinnable {
                            scopes.extend(live_in_free.iter().map(|t| Scope::AtLeast(*t)));
                        }
                        for scope in scopes {
                            list.push((mapping.clone(), scope, cells, method));
                        }
                    }
                }
                Err(PolyError::Budget | PolyError::Overflow) => {}
                Err(e) => return Err(solver(e)),
            }
        }
        if facts.macros_pinnable {
            let n_param = facts.model.params.len();
            let moduli = numeric
                .iter()
                .map(|b| ParamAffine::constant(n_param, *b))
                .collect();
            list.push((mapping_with(moduli), Scope::KnownValues, cells, method));
        }
    }
    Ok(Proposals {
        list: list
            .into_iter()
            .map(|(mapping, scope, cells, method)| Proposal {
                method,
                mapping,
                proof: Proof::DifferenceSet(scope),
                cells,
                time: start.elapsed(),
            })
            .collect(),
        ..Proposals::default()
    })
}

/// A small integer matrix, by rows.
type Matrix = Vec<Vec<i64>>;

/// Coordinates for successive modulo: `e = U·c` (cells `c = F·e`), and per
/// row of `U` the stride of every access along it and a shift,
/// `(divisor, shift)`: each accessed cell has `U_r·c ≡ shift(N) (mod
/// divisor)`, and the mapping's row is `((U_r·c - shift) / divisor) mod b`.
struct Basis {
    f: Matrix,
    u: Matrix,
    strides: Vec<(i64, ParamAffine)>,
    /// A skew of two axes (see [`skew_bases`]), proposed only when smaller.
    skew: bool,
}

/// The write bases and the axes, each with the strides of the accesses
/// along its rows; the axes only where some row has a stride (without one
/// they are successive modulo's own coordinates). Each basis comes with
/// the constant residues of its strides and, where it differs, with the
/// shifts that make its first write's row its iterators (`T[i - j + m -
/// 1][j]` in the basis `(c0 + c1, c1)` is `(i + m - 1, j)`: shifted by
/// `m - 1`, no access wraps where the write's iterators start at 0; where
/// they do not, the unshifted variant may be the one without `%`, and the
/// chooser compares them).
fn with_strides(facts: &ArrayFacts<'_>, write: Vec<(Matrix, Matrix)>) -> Vec<Basis> {
    let rank = facts.model.rank;
    let n_param = facts.model.params.len();
    let identity: Matrix = (0..rank)
        .map(|r| (0..rank).map(|k| i64::from(r == k)).collect())
        .collect();
    let mut out: Vec<Basis> = Vec::new();
    for (f, u) in std::iter::once((identity.clone(), identity.clone())).chain(write) {
        let residues: Vec<(i64, ParamAffine)> = u
            .iter()
            .map(|row| {
                let (g, r) = row_stride(facts, row);
                (g, ParamAffine::constant(n_param, r))
            })
            .collect();
        let shifted: Vec<(i64, ParamAffine)> = u.iter().map(|row| row_shift(facts, row)).collect();
        let plain = |v: &[(i64, ParamAffine)]| {
            v.iter()
                .all(|(g, s)| *g == 1 && s.is_constant() && s.constant == 0)
        };
        // The axes without a stride are successive modulo's coordinates;
        // shifted by a first write at an offset (`s[2 * N + i]`, a
        // region of a bigger buffer), they are not: the write's rows
        // start at 0 and no access wraps.
        if u == identity && plain(&residues) && plain(&shifted) {
            continue;
        }
        let variants = if u == identity && plain(&residues) {
            vec![shifted]
        } else {
            vec![residues, shifted]
        };
        for strides in variants {
            if !out.iter().any(|b| b.u == u && b.strides == strides) {
                out.push(Basis {
                    f: f.clone(),
                    u: u.clone(),
                    strides,
                    skew: false,
                });
            }
        }
    }
    out
}

/// `Σ row[p]·subscript_p` of every access, as rows over its event's
/// columns (`None` on overflow).
fn combined_rows(facts: &ArrayFacts<'_>, row: &[i64]) -> Option<Vec<Vec<i64>>> {
    facts
        .model
        .events
        .iter()
        .map(|ev| {
            let mut combined = vec![0i64; ev.domain.width()];
            for (c, sub) in row.iter().zip(&ev.subscripts) {
                for (acc, v) in combined.iter_mut().zip(sub) {
                    *acc = c.checked_mul(*v).and_then(|t| acc.checked_add(t))?;
                }
            }
            Some(combined)
        })
        .collect()
}

/// The stride of the accesses along `Σ row[p]·c_p`: the gcd `g` of every
/// non-constant coefficient of that combination of the subscripts, over
/// every access (iterators, parameters and existentials alike), and of the
/// differences of their constants, with the common residue of the
/// constants modulo `g`. `(1, 0)` when `g` is 1, when the combination is
/// the same constant everywhere (successive modulo makes it one cell), or
/// on overflow. Every coefficient a multiple of `g` is what the layout
/// checks again before it divides (`mapping::layout`).
fn row_stride(facts: &ArrayFacts<'_>, row: &[i64]) -> (i64, i64) {
    let Some(rows) = combined_rows(facts, row) else {
        return (1, 0);
    };
    let mut g: u64 = 0;
    let mut first: Option<i64> = None;
    for combined in &rows {
        let width = combined.len();
        let constant = combined[width - 1];
        for v in &combined[..width - 1] {
            g = gcd(g, v.unsigned_abs());
        }
        match first {
            None => first = Some(constant),
            Some(k) => match constant.checked_sub(k) {
                Some(d) => g = gcd(g, d.unsigned_abs()),
                None => return (1, 0),
            },
        }
    }
    match (i64::try_from(g), first) {
        (Ok(g), Some(k)) if g >= 2 => (g, k.rem_euclid(g)),
        _ => (1, 0),
    }
}

/// The shift and stride of the accesses along `Σ row[p]·c_p` relative to
/// the array's first write: the shift is that write's parameter and
/// constant part of the combination, and the stride the gcd of every
/// iterator and existential coefficient over every access and of the
/// differences of their parameter and constant parts from the shift
/// (every access is then `shift + g·(…)`). `(1, 0)` on overflow or
/// without a write.
fn row_shift(facts: &ArrayFacts<'_>, row: &[i64]) -> (i64, ParamAffine) {
    let n_param = facts.model.params.len();
    let none = (1, ParamAffine::constant(n_param, 0));
    let Some(rows) = combined_rows(facts, row) else {
        return none;
    };
    let Some(w) = facts
        .model
        .events
        .iter()
        .position(|e| e.kind == crate::analysis::model::AccessKind::Write)
    else {
        return none;
    };
    let part = |r: &[i64]| -> Vec<i64> {
        let mut p = r[..n_param].to_vec();
        p.push(r[r.len() - 1]);
        p
    };
    let reference = part(&rows[w]);
    let mut g: u64 = 0;
    for combined in &rows {
        let width = combined.len();
        for v in &combined[n_param..width - 1] {
            g = gcd(g, v.unsigned_abs());
        }
        for (a, b) in part(combined).iter().zip(&reference) {
            let Some(d) = a.checked_sub(*b) else {
                return none;
            };
            g = gcd(g, d.unsigned_abs());
        }
    }
    let shift = ParamAffine {
        coeffs: reference[..n_param].to_vec(),
        constant: reference[n_param],
        den: 1,
    };
    match i64::try_from(g) {
        Ok(g) if g >= 2 => (g, shift),
        _ => (1, shift),
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// The bases of the array's write accesses: `(F, U = F⁻¹)` for each write
/// whose subscripts are a unimodular function `F` of the iterators they
/// use (as many as the array's rank), other than a signed permutation
/// (the axes, which successive modulo already uses). Distinct, in the
/// order of the writes.
fn write_bases(facts: &ArrayFacts<'_>) -> Vec<(Matrix, Matrix)> {
    let rank = facts.model.rank;
    let n_param = facts.model.params.len();
    let mut out: Vec<(Matrix, Matrix)> = Vec::new();
    for ev in &facts.model.events {
        if ev.kind != crate::analysis::model::AccessKind::Write || ev.subscripts.len() != rank {
            continue;
        }
        let n_iter = ev.domain.space.n_in();
        let used: Vec<usize> = (0..n_iter)
            .filter(|&k| ev.subscripts.iter().any(|s| s[n_param + k] != 0))
            .collect();
        // Existentials in a subscript (a strided loop's) or fewer iterators
        // than dimensions: no square basis.
        let width = ev.domain.width();
        let exists_used = ev
            .subscripts
            .iter()
            .any(|s| s[n_param + n_iter..width - 1].iter().any(|c| *c != 0));
        if used.len() != rank || exists_used {
            continue;
        }
        let f: Vec<Vec<i64>> = ev
            .subscripts
            .iter()
            .map(|s| used.iter().map(|&k| s[n_param + k]).collect())
            .collect();
        if is_signed_permutation(&f) {
            continue;
        }
        let Some(u) = unimodular_inverse(&f) else {
            continue;
        };
        if !out.iter().any(|(g, _)| *g == f) {
            out.push((f, u));
        }
    }
    out
}

/// The slopes tried for a skew of two axes (see [`skew_bases`]).
const SKEW_SLOPES: [i64; 4] = [-1, 1, -2, 2];

/// The most skewed bases measured for one array, and proposed.
const MAX_SKEWS: usize = 36;
const MAX_SKEWS_PROPOSED: usize = 2;

/// Skews of two adjacent axes `p < q = p + 1`, both folded by successive
/// modulo in the axes (modulus above 1 for the known or probe values): the
/// row `c_q + s·c_p` takes the place of `c_p`, before `c_p` itself, for each slope
/// `s` of [`SKEW_SLOPES`] (seed 001 §4.2 tries "different basis as input"
/// for Heuristics 2 and 3, which stay parametric in a constant basis).
/// Successive modulo along `c_q + s·c_p` first takes its whole range in
/// the difference set, and `c_p` then only what remains where that row is
/// 0: where the values live along a slanted front (a tiled stencil whose
/// column keeps its last two values: `(y - 2x) mod (3B - 2)` per tile,
/// seed 000 Table 1's blur-tiled), that is often nothing, and the pair
/// folds onto one modulus of about the front's length instead of the
/// product of both. The basis `U` is unimodular: `e_p = c_q + s·c_p`,
/// `e_q = c_p`, so `c_p = e_q`, `c_q = e_p - s·e_q` (`F = U⁻¹`).
///
/// Each skew is measured for the known (or probe) values on the
/// difference set fixed there once, from row `p` on (the rows before are
/// the axes'), and dropped as soon as its moduli reach `cap` cells; the
/// [`MAX_SKEWS_PROPOSED`] smallest are returned, smallest first.
fn skew_bases(
    facts: &ArrayFacts<'_>,
    ds: &[BasicSet],
    cap: i64,
    budget: &mut Budget,
) -> PolyResult<Vec<Basis>> {
    let rank = facts.model.rank;
    if rank < 2 {
        return Ok(Vec::new());
    }
    let n_param = facts.model.params.len();
    let fixed = fix_and_simplify(ds, &facts.values)?;
    let axes = moduli_for_values(&fixed, rank, &facts.values, budget)?;
    let unit = || (1i64, ParamAffine::constant(n_param, 0));
    // Adjacent axes, the innermost first (where the values of a loop
    // nest's inner loops live along a front).
    let pairs: Vec<(usize, usize)> = (0..rank.saturating_sub(1))
        .rev()
        .map(|p| (p, p + 1))
        .filter(|(p, q)| axes[*p] > 1 && axes[*q] > 1)
        .collect();
    let mut found: Vec<(i64, Basis)> = Vec::new();
    let mut measured = 0;
    for (p, q) in pairs {
        for s in SKEW_SLOPES {
            if measured >= MAX_SKEWS {
                break;
            }
            measured += 1;
            let mut u: Matrix = (0..rank)
                .map(|r| (0..rank).map(|k| i64::from(r == k)).collect())
                .collect();
            let mut f = u.clone();
            u[p] = vec![0; rank];
            u[p][q] = 1;
            u[p][p] = s;
            u[q] = vec![0; rank];
            u[q][p] = 1;
            f[p] = vec![0; rank];
            f[p][q] = 1;
            f[q] = vec![0; rank];
            f[q][p] = 1;
            f[q][q] = -s;
            // The best so far bounds the next ones.
            let bound = found
                .get(MAX_SKEWS_PROPOSED - 1)
                .map_or(cap, |(c, _)| (*c).min(cap));
            let Ok(skewed) = in_basis(&fixed, &f) else {
                continue;
            };
            let Some(moduli) = moduli_after_prefix(&skewed, rank, &axes[..p], bound, budget)?
            else {
                continue;
            };
            let cells = moduli.iter().product::<i64>();
            found.push((
                cells,
                Basis {
                    f,
                    u,
                    strides: (0..rank).map(|_| unit()).collect(),
                    skew: true,
                },
            ));
            found.sort_by_key(|(c, _)| *c);
            found.truncate(MAX_SKEWS_PROPOSED);
        }
    }
    Ok(found.into_iter().map(|(_, b)| b).collect())
}

fn is_signed_permutation(f: &[Vec<i64>]) -> bool {
    let n = f.len();
    (0..n)
        .all(|r| f[r].iter().filter(|c| **c != 0).count() == 1 && f[r].iter().all(|c| c.abs() <= 1))
        && (0..n).all(|k| f.iter().filter(|row| row[k] != 0).count() == 1)
}

/// The integer inverse of a square matrix of determinant ±1: its
/// adjugate times the determinant (cofactors by Laplace expansion, in
/// `i128`; ranks are small). `None` when the determinant is not ±1 or on
/// overflow; the result is checked exactly (`F·F⁻¹ = I`).
pub(super) fn unimodular_inverse(f: &[Vec<i64>]) -> Option<Vec<Vec<i64>>> {
    let n = f.len();
    if n == 0 || n > 8 || f.iter().any(|r| r.len() != n) {
        return None;
    }
    let m: Vec<Vec<i128>> = f
        .iter()
        .map(|r| r.iter().map(|x| *x as i128).collect())
        .collect();
    let det = determinant(&m)?;
    if det.abs() != 1 {
        return None;
    }
    let mut adj = vec![vec![0i64; n]; n];
    for r in 0..n {
        for (c, adj_row) in adj.iter_mut().enumerate() {
            let sign = if (r + c) % 2 == 0 { 1 } else { -1 };
            let cofactor = determinant(&minor(m.as_slice(), r, c))?.checked_mul(sign)?;
            // adj[c][r] = cofactor[r][c]; F⁻¹ = adj / det = adj · det.
            adj_row[r] = i64::try_from(cofactor.checked_mul(det)?).ok()?;
        }
    }
    let inv = adj;
    for (r, m_row) in m.iter().enumerate() {
        for c in 0..n {
            let s: i128 = m_row
                .iter()
                .zip(&inv)
                .map(|(x, inv_row)| x * inv_row[c] as i128)
                .sum();
            if s != i128::from(r == c) {
                return None;
            }
        }
    }
    Some(inv)
}

/// `m` without row `r` and column `c`.
fn minor(m: &[Vec<i128>], r: usize, c: usize) -> Vec<Vec<i128>> {
    m.iter()
        .enumerate()
        .filter(|(i, _)| *i != r)
        .map(|(_, row)| {
            row.iter()
                .enumerate()
                .filter(|(j, _)| *j != c)
                .map(|(_, x)| *x)
                .collect()
        })
        .collect()
}

/// The determinant by Laplace expansion along the first row (`None` on
/// overflow); 1 for the empty matrix.
fn determinant(m: &[Vec<i128>]) -> Option<i128> {
    let n = m.len();
    if n == 0 {
        return Some(1);
    }
    let mut det: i128 = 0;
    for c in 0..n {
        if m[0][c] == 0 {
            continue;
        }
        let term = m[0][c].checked_mul(determinant(&minor(m, 0, c))?)?;
        det = if c % 2 == 0 {
            det.checked_add(term)?
        } else {
            det.checked_sub(term)?
        };
    }
    Some(det)
}

/// The difference set in the coordinates `e = U·d`: every row's
/// coefficients over `d` become coefficients over `e` through `d = F·e`.
fn in_basis(ds: &[BasicSet], f: &[Vec<i64>]) -> PolyResult<Vec<BasicSet>> {
    let rank = f.len();
    ds.iter()
        .map(|piece| {
            let n_param = piece.space.n_param();
            let mut out = piece.clone();
            for row in out.eqs.iter_mut().chain(out.ineqs.iter_mut()) {
                let old: Vec<i64> = row[n_param..n_param + rank].to_vec();
                for k in 0..rank {
                    let mut v: i64 = 0;
                    for (p, o) in old.iter().enumerate() {
                        let term = o.checked_mul(f[p][k]).ok_or(PolyError::Overflow)?;
                        v = v.checked_add(term).ok_or(PolyError::Overflow)?;
                    }
                    row[n_param + k] = v;
                }
            }
            Ok(out)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::unimodular_inverse;

    /// The inverse is checked against `F·F⁻¹ = I` by brute force over
    /// every 2×2 and some 3×3 matrices with entries in -2..=2: it exists
    /// exactly when the determinant is ±1.
    #[test]
    fn inverses_exist_exactly_for_determinant_one() {
        let det2 = |m: &[Vec<i64>]| m[0][0] * m[1][1] - m[0][1] * m[1][0];
        let mut found = 0;
        for a in -2..=2 {
            for b in -2..=2 {
                for c in -2..=2 {
                    for d in -2..=2 {
                        let m = vec![vec![a, b], vec![c, d]];
                        let inv = unimodular_inverse(&m);
                        assert_eq!(inv.is_some(), det2(&m).abs() == 1, "{m:?}");
                        if let Some(inv) = inv {
                            found += 1;
                            for r in 0..2 {
                                for k in 0..2 {
                                    let s: i64 = (0..2).map(|t| m[r][t] * inv[t][k]).sum();
                                    assert_eq!(s, i64::from(r == k), "{m:?} {inv:?}");
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(found > 50, "{found}");
        // A 3×3 skew and a singular one.
        let skew = vec![vec![1, 1, 0], vec![0, 1, 1], vec![0, 0, 1]];
        assert_eq!(
            unimodular_inverse(&skew),
            Some(vec![vec![1, -1, 1], vec![0, 1, -1], vec![0, 0, 1]])
        );
        let singular = vec![vec![1, 1, 0], vec![0, 1, 1], vec![1, 2, 1]];
        assert_eq!(unimodular_inverse(&singular), None);
        let det2_matrix = vec![vec![2, 0, 0], vec![0, 1, 0], vec![0, 0, 1]];
        assert_eq!(unimodular_inverse(&det2_matrix), None);
    }
}
