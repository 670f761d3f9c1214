//! Lattice-based modular mappings (seed 001 §4, Cl@k; after Darte,
//! Schreiber and Villard), for fixed parameter values.
//!
//! Given a difference set DS (pieces with parameters and existentials, as
//! built by `analysis::cells`) and the parameter values, this module builds
//! the 0-symmetric polytope K ⊇ DS (`polytope`), computes the successive
//! minima of K by exact integer programming (`minima`), runs Heuristics 1,
//! 1.a, 2 and 3 over several bases (`heuristics`), and searches for the
//! lattice of smallest determinant (`optimal`). Every candidate is turned
//! into a [`ModularMapping`] (`basis`) and certified with
//! [`certify_modular`] in [`CertifyMode::Fixed`] against the exact DS pieces
//! before it is returned.
//!
//! Bases tried: the identity and all its permutations (up to rank 4;
//! identity and reverse above), and the successive-minima basis (Hermite
//! completion, size-reduced) in both orders.
//!
//! Parametric moduli: only [`symbolic_heuristic_3`] (Heuristic 3 over the
//! permuted identities, moduli fitted as affine functions of the parameters
//! and proven for the whole context by the symbolic certifier); every other
//! strategy gives numbers for the given values.
//!
//! What this module does NOT do: parametric successive minima (open, seed
//! 001 §4.1.2), parametric Heuristic 2 or optimal search,
//! generalised basis reduction (Lovász–Scarf), non-zero offsets δ, or
//! choosing between strategies (the chooser does that with the sizes and
//! [`Candidate::simplicity`]).

pub mod basis;
pub mod heuristics;
pub mod minima;
pub mod optimal;
pub mod polytope;

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use crate::poly::rational::Rat;
use crate::poly::{BasicSet, Budget, PolyError, PolyResult};

use super::certify::{CertifyMode, certify_modular};
pub use super::method::LatticeMethod;
use super::modular::{MappedDim, ModularMapping, ParamAffine};
use basis::{NumericMapping, linearise, mapping_from_scaled_basis};
use heuristics::{
    H3Memo, dual_rows, heuristic_1a, heuristic_2, heuristic_3, heuristic_3_memo, minima_basis,
    minima_scales, permutations, permuted_identity,
};
use minima::{SuccessiveMinima, successive_minima};
use optimal::{OptimalResult, block_search, optimal_lattice};
use polytope::{DifferencePoints, FixedDifferenceSet, Polytope};

/// Options of the lattice strategies.
#[derive(Clone, Debug)]
pub struct LatticeOptions {
    /// Array name written into the mappings.
    pub array: String,
    /// Run the optimal search.
    pub optimal: bool,
    /// Work allowed to the optimal search, in search steps (one per
    /// lattice, line or offset examined): the same count always stops the
    /// search at the same place, whatever the machine's load.
    pub optimal_steps: u64,
    /// Wall-clock safety net of the optimal search: far beyond what its
    /// steps take; when it fires, the budget passed to [`analyse`] says so
    /// ([`Budget::safety_net_fired`]) and the result may differ between runs.
    pub safety_net: Duration,
    /// A lower bound on the size of any valid mapping (for instance the
    /// max-live count of `verify::run_trace`); 1 when unknown.
    pub lower_bound: i64,
    /// Maximum number of admissibility checks of Heuristic 1.a.
    pub max_rounds_1a: usize,
}

impl Default for LatticeOptions {
    fn default() -> LatticeOptions {
        LatticeOptions {
            array: "A".into(),
            optimal: true,
            optimal_steps: DEFAULT_OPTIMAL_STEPS,
            safety_net: Duration::from_secs(60),
            lower_bound: 1,
            max_rounds_1a: 32,
        }
    }
}

/// The default work of the optimal search per array, in search steps
/// (about a second on an idle 2-core machine of 2026; reg_detect's `diff`
/// is proven optimal within 70M).
pub const DEFAULT_OPTIMAL_STEPS: u64 = 100_000_000;

/// One certified mapping found by a lattice strategy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    pub mapping: ModularMapping,
    /// Number of locations for the given parameter values.
    pub size: i64,
    /// Which heuristic, the block strategy (rank >= 3: successive modulo
    /// outside, optimal 2-D lattice inside) or the optimal search.
    pub method: LatticeMethod,
    /// Which basis the heuristic used (e.g. `identity`, `(1, 0), (0, 1)`).
    pub detail: String,
    /// For the optimal search: whether no smaller lattice exists (proven);
    /// `None` for heuristics.
    pub optimal: Option<bool>,
    /// Time the method took, over every basis it tried (for the optimal
    /// search: the block strategy and the Hermite enumeration).
    pub time: Duration,
}

impl Candidate {
    /// Tie-break key: number of non-zero coefficients, their absolute sum,
    /// the number of dimensions.
    pub(crate) fn simplicity(&self) -> (usize, i64, usize) {
        numeric_of(&self.mapping).complexity()
    }
}

fn numeric_of(m: &ModularMapping) -> NumericMapping {
    NumericMapping {
        rows: m.dims.iter().map(|d| d.coeffs.clone()).collect(),
        moduli: m.dims.iter().map(|d| d.modulus.constant).collect(),
    }
}

/// A raw (uncertified) result of one strategy.
#[derive(Clone, Debug)]
pub struct StrategyResult {
    pub method: LatticeMethod,
    pub detail: String,
    pub mapping: NumericMapping,
    pub time: Duration,
}

/// The parameter names of `ds`, checked against one value each.
fn params_for(ds: &[BasicSet], values: &[i64]) -> PolyResult<Vec<String>> {
    let params: Vec<String> = ds
        .first()
        .map(|p| p.space.params.clone())
        .unwrap_or_default();
    if params.len() != values.len() {
        return Err(PolyError::SpaceMismatch(
            "one value per parameter is needed".into(),
        ));
    }
    Ok(params)
}

/// A heuristic's mapping and its linearised form, found together.
fn push_with_linearised(
    out: &mut Vec<StrategyResult>,
    methods: [LatticeMethod; 2],
    detail: String,
    mappings: [NumericMapping; 2],
    time: Duration,
) {
    for (method, mapping) in methods.into_iter().zip(mappings) {
        out.push(StrategyResult {
            method,
            detail: detail.clone(),
            mapping,
            time,
        });
    }
}

/// Everything the lattice strategies computed for one DS.
#[derive(Clone, Debug)]
pub struct LatticeAnalysis {
    pub rank: usize,
    /// K; `None` when DS has no non-zero point (everything folds).
    pub polytope: Option<Polytope>,
    pub minima: Option<SuccessiveMinima>,
    /// Heuristic results, best first within each method.
    pub heuristics: Vec<StrategyResult>,
    pub optimal: Option<OptimalResult>,
    /// The size the optimal search started above (best heuristic).
    pub optimal_upper: Option<(i64, NumericMapping)>,
    pub optimal_time: Duration,
    /// Search steps the optimal search used (of `optimal_steps`).
    pub optimal_steps_used: u64,
    pub minima_time: Duration,
}

fn vector_text(v: &[i64]) -> String {
    format!(
        "({})",
        v.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

fn basis_text(cols: &[Vec<i64>]) -> String {
    cols.iter()
        .map(|c| vector_text(c))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `Ok(None)` for the failures after which a strategy is skipped (budget,
/// overflow, solver limits such as an unbounded polytope or a bounding box
/// too large to enumerate); other errors are bugs of the caller.
fn soft<T>(r: PolyResult<T>) -> PolyResult<Option<T>> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(PolyError::Budget | PolyError::Overflow | PolyError::Solver(_)) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Runs every strategy on a DS whose parameters are fixed. A strategy that
/// runs out of budget, overflows or hits a solver limit is skipped; the
/// others still run.
pub fn analyse(
    ds: &FixedDifferenceSet,
    opts: &LatticeOptions,
    budget: &mut Budget,
) -> PolyResult<LatticeAnalysis> {
    let n = ds.rank;
    let mut analysis = LatticeAnalysis {
        rank: n,
        polytope: None,
        minima: None,
        heuristics: Vec::new(),
        optimal: None,
        optimal_upper: None,
        optimal_time: Duration::ZERO,
        optimal_steps_used: 0,
        minima_time: Duration::ZERO,
    };
    if n == 0 {
        // A scalar: one location.
        analysis.heuristics.push(StrategyResult {
            method: LatticeMethod::Heuristic3,
            detail: "rank 0".into(),
            mapping: NumericMapping {
                rows: Vec::new(),
                moduli: Vec::new(),
            },
            time: Duration::ZERO,
        });
        return Ok(analysis);
    }
    let k = match soft(ds.polytope(budget))? {
        Some(Some(k)) => Some(k),
        Some(None) => {
            // DS ⊆ {0}: one location suffices.
            analysis.heuristics.push(StrategyResult {
                method: LatticeMethod::Heuristic3,
                detail: "DS = {0}".into(),
                mapping: NumericMapping {
                    rows: Vec::new(),
                    moduli: Vec::new(),
                },
                time: Duration::ZERO,
            });
            return Ok(analysis);
        }
        None => None,
    };
    let start = Instant::now();
    let minima = match &k {
        Some(k) => soft(successive_minima(k, budget))?,
        None => None,
    };
    analysis.minima_time = start.elapsed();
    let sm_basis = match &minima {
        Some(m) => soft(minima_basis(m, n))?,
        None => None,
    };
    analysis.polytope = k.clone();
    analysis.minima = minima.clone();

    heuristics_1(
        &mut analysis,
        k.as_ref(),
        minima.as_ref(),
        sm_basis.as_ref(),
        opts,
        budget,
    )?;
    let bases = bases_for_2_and_3(n, &sm_basis);
    heuristics_2_and_3(&mut analysis, ds, k.as_ref(), &bases, budget)?;
    if opts.optimal {
        optimal_search(&mut analysis, ds, opts, budget)?;
    }
    Ok(analysis)
}

/// Heuristic 1 (powers of two) and 1.a on the successive-minima basis,
/// when the minima are known.
fn heuristics_1(
    analysis: &mut LatticeAnalysis,
    k: Option<&Polytope>,
    minima: Option<&SuccessiveMinima>,
    sm_basis: Option<&Vec<Vec<i64>>>,
    opts: &LatticeOptions,
    budget: &mut Budget,
) -> PolyResult<()> {
    let n = analysis.rank;
    if let (Some(k), Some(minima), Some(sm_basis)) = (k, minima, sm_basis) {
        let t = Instant::now();
        let a = crate::poly::matrix::IntMatrix::from_cols(sm_basis, n)?;
        let h1 = soft(
            minima_scales(minima, n, true).and_then(|rho| mapping_from_scaled_basis(&a, &rho)),
        )?;
        if let Some(mapping) = h1 {
            analysis.heuristics.push(StrategyResult {
                method: LatticeMethod::Heuristic1,
                detail: format!("basis {}", basis_text(sm_basis)),
                mapping,
                time: t.elapsed(),
            });
        }
        let t = Instant::now();
        let h1a = soft(
            heuristic_1a(k, minima, sm_basis, opts.max_rounds_1a, budget).and_then(|rho| {
                rho.map(|rho| mapping_from_scaled_basis(&a, &rho))
                    .transpose()
            }),
        )?;
        if let Some(Some(mapping)) = h1a {
            analysis.heuristics.push(StrategyResult {
                method: LatticeMethod::Heuristic1a,
                detail: format!("basis {}", basis_text(sm_basis)),
                mapping,
                time: t.elapsed(),
            });
        }
    }
    Ok(())
}

/// The bases Heuristics 2 and 3 run on: every permuted identity, and the
/// successive-minima basis forwards and reversed when it is known.
fn bases_for_2_and_3(n: usize, sm_basis: &Option<Vec<Vec<i64>>>) -> Vec<(String, Vec<Vec<i64>>)> {
    let mut bases: Vec<(String, Vec<Vec<i64>>)> = Vec::new();
    for perm in permutations(n) {
        let name = if perm.iter().enumerate().all(|(i, p)| i == *p) {
            "identity".to_string()
        } else {
            format!(
                "permuted identity {}",
                basis_text(&permuted_identity(&perm))
            )
        };
        bases.push((name, permuted_identity(&perm)));
    }
    if let Some(sm_basis) = sm_basis {
        bases.push(("successive minima".into(), sm_basis.clone()));
        let mut reversed = sm_basis.clone();
        reversed.reverse();
        bases.push(("successive minima, reversed".into(), reversed));
    }
    bases
}

/// Heuristic 2 (on the polytope `k`, when known) and Heuristic 3 on each
/// of `bases`, each with its linearised form.
fn heuristics_2_and_3(
    analysis: &mut LatticeAnalysis,
    ds: &FixedDifferenceSet,
    k: Option<&Polytope>,
    bases: &[(String, Vec<Vec<i64>>)],
    budget: &mut Budget,
) -> PolyResult<()> {
    let n = analysis.rank;
    let mut h3_memo = H3Memo::new();
    for (name, basis) in bases {
        if let Some(k) = k {
            let t = Instant::now();
            let h2 = soft((|| {
                let rho = heuristic_2(k, basis, budget)?;
                let am = crate::poly::matrix::IntMatrix::from_cols(basis, n)?;
                let multi = mapping_from_scaled_basis(&am, &rho)?;
                let rows = dual_rows(basis)?;
                Ok((multi, linearise(&rows, &rho, false)?))
            })())?;
            let elapsed = t.elapsed();
            if let Some((multi, linear)) = h2 {
                let detail = format!("{name}: {}", basis_text(basis));
                push_with_linearised(
                    &mut analysis.heuristics,
                    [
                        LatticeMethod::Heuristic2,
                        LatticeMethod::Heuristic2Linearised,
                    ],
                    detail,
                    [multi, linear],
                    elapsed,
                );
            }
        }
        // Heuristic 3 with the rows of the dual basis, in reverse order
        // (the dual view of the same basis).
        let t = Instant::now();
        let h3 = soft((|| {
            let mut c = dual_rows(basis)?;
            c.reverse();
            let rho3 = heuristic_3_memo(ds, &c, &mut h3_memo, budget)?;
            let mut m3 = NumericMapping {
                rows: c.clone(),
                moduli: rho3.clone(),
            };
            m3.simplify();
            let linear = linearise(&c, &rho3, true)?;
            Ok((c, m3, linear))
        })())?;
        let elapsed = t.elapsed();
        if let Some((c, m3, linear)) = h3 {
            let detail = format!("{name}: rows {}", basis_text(&c));
            push_with_linearised(
                &mut analysis.heuristics,
                [
                    LatticeMethod::Heuristic3,
                    LatticeMethod::Heuristic3Linearised,
                ],
                detail,
                [m3, linear],
                elapsed,
            );
        }
    }
    Ok(())
}

/// The exhaustive search for the optimal lattice (and the block search),
/// under its own step budget, bounded by the best heuristic so far.
fn optimal_search(
    analysis: &mut LatticeAnalysis,
    ds: &FixedDifferenceSet,
    opts: &LatticeOptions,
    budget: &mut Budget,
) -> PolyResult<()> {
    let t = Instant::now();
    let mut best: Option<(i64, NumericMapping)> = None;
    for h in &analysis.heuristics {
        let s = h.mapping.size()?;
        if best
            .as_ref()
            .is_none_or(|(b, m)| s < *b || (s == *b && h.mapping.complexity() < m.complexity()))
        {
            best = Some((s, h.mapping.clone()));
        }
    }
    let mut search_budget = Budget::new(opts.optimal_steps, Some(opts.safety_net));
    let upper = best.as_ref().map_or(i64::MAX, |b| b.0);
    if opts.lower_bound >= upper {
        // The lower bound proves the best heuristic optimal at once.
        analysis.optimal = Some(OptimalResult {
            basis: None,
            mapping: None,
            size: None,
            lower_bound: opts.lower_bound,
            clique_bound: 1,
            proven: true,
        });
    } else {
        if let Some(points) = soft(DifferencePoints::new(ds, &mut search_budget))? {
            let tb = Instant::now();
            match block_search(&points, &mut search_budget) {
                Ok(Some(b)) => {
                    let s = b.mapping.size()?;
                    let detail = format!(
                        "successive modulo on {:?}, optimal 2-D lattice on {:?}",
                        b.outer, b.inner
                    );
                    analysis.heuristics.push(StrategyResult {
                        method: LatticeMethod::BlockOptimal,
                        detail,
                        mapping: b.mapping.clone(),
                        time: tb.elapsed(),
                    });
                    if s < best.as_ref().map_or(i64::MAX, |b| b.0) {
                        best = Some((s, b.mapping));
                    }
                }
                Ok(None) | Err(PolyError::Budget | PolyError::Overflow) => {}
                Err(e) => return Err(e),
            }
            let upper = best.as_ref().map_or(i64::MAX, |b| b.0);
            analysis.optimal = soft(optimal_lattice(
                &points,
                opts.lower_bound,
                upper,
                &mut search_budget,
            ))?;
        }
    }
    analysis.optimal_upper = best;
    analysis.optimal_time = t.elapsed();
    analysis.optimal_steps_used = opts.optimal_steps - search_budget.steps_left();
    budget.absorb(&search_budget);
    Ok(())
}

/// `m` as a [`ModularMapping`] with constant moduli.
pub(crate) fn to_modular(
    m: &NumericMapping,
    array: &str,
    params: &[String],
    rank: usize,
) -> ModularMapping {
    ModularMapping {
        array: array.to_string(),
        params: params.to_vec(),
        dims: if m.rows.is_empty() {
            // One location: a single dimension `0 mod 1`.
            vec![MappedDim::new(
                vec![0; rank],
                ParamAffine::constant(params.len(), 1),
            )]
        } else {
            m.rows
                .iter()
                .zip(&m.moduli)
                .map(|(r, b)| MappedDim::new(r.clone(), ParamAffine::constant(params.len(), *b)))
                .collect()
        },
    }
}

/// Lattice-based candidates for one array: the best certified mapping of
/// each method (smallest size, then simplest), every one certified with
/// [`certify_modular`] in [`CertifyMode::Fixed`] against `ds` for `values`.
/// Mappings that fail certification are dropped (they cannot occur for a
/// correct implementation; a test checks that none is dropped).
pub fn lattice_candidates(
    ds: &[BasicSet],
    rank: usize,
    values: &[i64],
    opts: &LatticeOptions,
    budget: &mut Budget,
) -> PolyResult<Vec<Candidate>> {
    let fixed = FixedDifferenceSet::new(ds, rank, values, budget)?;
    let analysis = analyse(&fixed, opts, budget)?;
    let params = params_for(ds, values)?;
    candidates_from(&analysis, ds, rank, values, &params, opts, budget)
}

fn candidates_from(
    analysis: &LatticeAnalysis,
    ds: &[BasicSet],
    rank: usize,
    values: &[i64],
    params: &[String],
    opts: &LatticeOptions,
    budget: &mut Budget,
) -> PolyResult<Vec<Candidate>> {
    let mut out: Vec<Candidate> = Vec::new();
    let mut times: Vec<(LatticeMethod, Duration)> = Vec::new();
    let mut verdicts: Vec<(NumericMapping, bool)> = Vec::new();
    let mut consider = |method: LatticeMethod,
                        detail: &str,
                        m: &NumericMapping,
                        optimal: Option<bool>,
                        time: Duration,
                        budget: &mut Budget|
     -> PolyResult<()> {
        match times.iter_mut().find(|(name, _)| *name == method) {
            Some((_, t)) => *t += time,
            None => times.push((method, time)),
        }
        let size = m.size()?;
        let mapping = to_modular(m, &opts.array, params, rank);
        let simplicity = m.complexity();
        if let Some(existing) = out.iter().find(|c| c.method == method)
            && (existing.size, existing.simplicity()) <= (size, simplicity)
        {
            return Ok(());
        }
        // Several methods often find the same mapping: certify it once.
        let certified = match verdicts.iter().find(|(known, _)| known == m) {
            Some((_, v)) => *v,
            None => {
                let v = certify_modular(ds, &mapping, CertifyMode::Fixed(values), budget).is_ok();
                verdicts.push((m.clone(), v));
                v
            }
        };
        if !certified {
            return Ok(());
        }
        out.retain(|c| c.method != method);
        out.push(Candidate {
            mapping,
            size,
            method,
            detail: detail.to_string(),
            optimal,
            time: Duration::ZERO,
        });
        Ok(())
    };
    for h in &analysis.heuristics {
        // Heuristics 1 and 1.a are built on the successive minima.
        let time = if h.method.uses_minima() {
            h.time + analysis.minima_time
        } else {
            h.time
        };
        consider(h.method, &h.detail, &h.mapping, None, time, budget)?;
    }
    if let Some(r) = &analysis.optimal {
        if let Some(m) = &r.mapping {
            consider(
                LatticeMethod::OptimalSearch,
                "Hermite enumeration",
                m,
                Some(r.proven),
                analysis.optimal_time,
                budget,
            )?;
        } else if let Some((_, m)) = &analysis.optimal_upper {
            // No smaller lattice below the best heuristic.
            consider(
                LatticeMethod::OptimalSearch,
                "best heuristic, no smaller lattice",
                m,
                Some(r.proven),
                analysis.optimal_time,
                budget,
            )?;
        }
    }
    for c in &mut out {
        if let Some((_, t)) = times.iter().find(|(name, _)| *name == c.method) {
            c.time = *t;
        }
    }
    Ok(out)
}

/// The stand-alone Cl@k role: `isl_text` is a 0-symmetric polytope or a DS
/// in isl notation (one space; parameters get `values`); the report lists
/// K, the successive minima, each heuristic's best lattice and mapping with
/// its size, and the optimal search's result.
pub fn lattice_report(
    isl_text: &str,
    values: &[(String, i64)],
    opts: &LatticeOptions,
) -> Result<String, String> {
    let set = crate::poly::isl_parse::parse_set(isl_text).map_err(|e| e.to_string())?;
    let params = set.space.params.clone();
    let mut vals = Vec::with_capacity(params.len());
    for p in &params {
        let v = values
            .iter()
            .find(|(n, _)| n == p)
            .map(|(_, v)| *v)
            .ok_or_else(|| format!("parameter `{p}` needs a value (-D {p}=VALUE)"))?;
        vals.push(v);
    }
    if set.space.is_relation() {
        return Err("expected a set of differences, not a relation".into());
    }
    let rank = set.space.n_dim();
    let mut budget = Budget::new(u64::MAX, Some(Duration::from_secs(60)));
    let e = |e: PolyError| e.to_string();
    let fixed = FixedDifferenceSet::new(&set.pieces, rank, &vals, &mut budget).map_err(e)?;
    let analysis = analyse(&fixed, opts, &mut budget).map_err(e)?;
    let candidates = candidates_from(
        &analysis,
        &set.pieces,
        rank,
        &vals,
        &params,
        opts,
        &mut budget,
    )
    .map_err(e)?;
    let mut out = String::new();
    let _ = writeln!(out, "dimension: {rank}");
    if let Some(k) = &analysis.polytope {
        let _ = writeln!(out, "K: {}", k.set);
    }
    if let Some(m) = &analysis.minima {
        write_minima(&mut out, m, rank);
    } else {
        let _ = writeln!(out, "DS = {{0}}: every dimension folds completely");
    }
    let _ = writeln!(out, "mappings (certified for the given values):");
    for c in &candidates {
        let opt = match c.optimal {
            Some(true) => " [optimal, proven]",
            Some(false) => " [optimality not proven]",
            None => "",
        };
        let _ = writeln!(
            out,
            "  {:<26} size {:>8}  {}   ({}){opt}",
            c.method, c.size, c.mapping, c.detail
        );
    }
    if let Some(r) = &analysis.optimal {
        let _ = writeln!(
            out,
            "optimal search: lower bound {} (clique bound {}), {} after {} steps ({:.3} s)",
            r.lower_bound,
            r.clique_bound,
            if r.proven {
                "optimality proven"
            } else {
                "budget exhausted, not proven"
            },
            analysis.optimal_steps_used,
            analysis.optimal_time.as_secs_f64()
        );
        if let Some(b) = &r.basis {
            let _ = writeln!(out, "optimal lattice (Hermite basis): {}", basis_text(b));
        }
    }
    Ok(out)
}

fn write_minima(out: &mut String, m: &SuccessiveMinima, rank: usize) {
    let _ = writeln!(
        out,
        "integer span dimension of K: {} (of {rank})",
        m.span_dimension
    );
    for (i, (l, v)) in m.lambdas.iter().zip(&m.vectors).enumerate() {
        let note = if *l > Rat::one() {
            "   (> 1: no point of K in that direction, folds completely)"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "lambda_{} = {}   vector {}{note}",
            i + 1,
            l,
            vector_text(v)
        );
    }
    for i in m.lambdas.len()..rank {
        let _ = writeln!(
            out,
            "lambda_{}: no integer point of any dilate of K (flat K), folds completely",
            i + 1
        );
    }
}

#[cfg(test)]
mod tests;

/// Heuristic 3 with moduli affine in the parameters (seed 001 §4.2: "easily
/// parameterized"), for the unit-row orders (permuted identities), plus the
/// linearised form when it stays affine. Each modulus is fitted through the
/// exact values at `values` and at `values` with one parameter raised by
/// one (as `successive::successive_modulo` does); the guess is returned only
/// when [`certify_modular`] proves it in [`CertifyMode::Symbolic`] for every
/// parameter value of `context`. The smallest proven mapping at `values` is
/// returned (on ties, the first found: permutations in lexicographic order,
/// the multi-dimensional form before the linearised one).
pub fn symbolic_heuristic_3(
    ds: &[BasicSet],
    rank: usize,
    values: &[i64],
    context: &BasicSet,
    array: &str,
    budget: &mut Budget,
) -> PolyResult<Option<Candidate>> {
    let params = params_for(ds, values)?;
    let at = |vals: &[i64], rows: &[Vec<i64>], budget: &mut Budget| -> PolyResult<Vec<i64>> {
        let fixed = FixedDifferenceSet::new(ds, rank, vals, budget)?;
        heuristic_3(&fixed, rows, budget)
    };
    let start = Instant::now();
    let mut best: Option<Candidate> = None;
    for perm in permutations(rank) {
        let rows = permuted_identity(&perm);
        let base = at(values, &rows, budget)?;
        let mut moduli: Vec<ParamAffine> = base
            .iter()
            .map(|b| ParamAffine::constant(params.len(), *b))
            .collect();
        for q in 0..params.len() {
            let mut shifted = values.to_vec();
            shifted[q] = crate::poly::error::add(shifted[q], 1)?;
            let up = at(&shifted, &rows, budget)?;
            for (p, m) in moduli.iter_mut().enumerate() {
                let slope = crate::poly::error::sub(up[p], base[p])?;
                m.coeffs[q] = slope;
                m.constant = crate::poly::error::sub(
                    m.constant,
                    crate::poly::error::mul(slope, values[q])?,
                )?;
            }
        }
        let multi = ModularMapping {
            array: array.to_string(),
            params: params.clone(),
            dims: rows
                .iter()
                .zip(&moduli)
                .map(|(r, b)| MappedDim::new(r.clone(), b.clone()))
                .collect(),
        };
        let mut tries = vec![(LatticeMethod::Heuristic3Symbolic, multi)];
        // Linearised: weights Π_{j<i} ρ_j must be numbers, the product affine.
        let symbolic: Vec<usize> = (0..rank).filter(|p| !moduli[*p].is_constant()).collect();
        if symbolic.len() <= 1 && symbolic.first().is_none_or(|p| *p + 1 == rank) {
            let mut coeffs = vec![0i64; rank];
            let mut w = 1i64;
            for (r, b) in rows.iter().zip(&moduli) {
                for (c, a) in r.iter().enumerate() {
                    coeffs[c] =
                        crate::poly::error::add(coeffs[c], crate::poly::error::mul(w, *a)?)?;
                }
                if b.is_constant() {
                    w = crate::poly::error::mul(w, b.constant)?;
                }
            }
            // Product: w (constant part) times the last modulus.
            let last = &moduli[rank - 1];
            let prefix = w
                .checked_div(if last.is_constant() {
                    last.constant.max(1)
                } else {
                    1
                })
                .unwrap_or(w);
            let product = ParamAffine {
                coeffs: last
                    .coeffs
                    .iter()
                    .map(|c| crate::poly::error::mul(prefix, *c))
                    .collect::<PolyResult<_>>()?,
                constant: crate::poly::error::mul(prefix, last.constant)?,
                den: 1,
            };
            tries.push((
                LatticeMethod::Heuristic3SymbolicLinearised,
                ModularMapping {
                    array: array.to_string(),
                    params: params.clone(),
                    dims: vec![MappedDim::new(coeffs, product)],
                },
            ));
        }
        for (method, mut mapping) in tries {
            // Drop dimensions whose modulus is the constant 1.
            mapping
                .dims
                .retain(|d| !(d.modulus.is_constant() && d.modulus.constant == 1));
            if mapping.dims.is_empty() {
                mapping.dims.push(MappedDim::new(
                    vec![0; rank],
                    ParamAffine::constant(params.len(), 1),
                ));
            }
            let size = mapping.size(values)?;
            if best.as_ref().is_some_and(|b| b.size <= size) {
                continue;
            }
            if certify_modular(ds, &mapping, CertifyMode::Symbolic { context }, budget).is_ok() {
                best = Some(Candidate {
                    mapping,
                    size,
                    method,
                    detail: format!("rows {}", basis_text(&rows)),
                    optimal: None,
                    time: start.elapsed(),
                });
            }
        }
    }
    Ok(best)
}
