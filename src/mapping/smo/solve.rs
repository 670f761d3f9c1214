//! The SMO heuristic (seed 000 §4, Algorithm 1): storage hyperplanes with
//! offsets for every statement, found level by level by successive ILPs over
//! a global conflict set, with iterative revision of the conflict set and
//! array decoalescing.
//!
//! Per level and per conflict polyhedron `K` between statements `j` and `k`
//! the conflict difference is `f(x, y) = Γ_j·x + δ_j − Γ_k·y − δ_k` (no
//! offsets when `j = k`). The ILP holds, each linearised with the affine
//! Farkas lemma (`poly::farkas::farkas_nonnegative`, multipliers kept as
//! continuous variables):
//! - the bounding constraints (3)/(6): `|f| <= u·P + w` on `K`, with the
//!   intra bound `(u_j, w_j)` of the statement for intra polyhedra and a
//!   per-polyhedron bound dominated (coefficient-wise) by the inter bounds
//!   `(u'_j, w'_j)` and `(u'_k, w'_k)` of both statements for inter ones;
//! - the decision constraints (4)/(7) with binaries `x1, x2` per polyhedron;
//! - `u' >= u`, `w' >= w` and the trade-off constraint (9) for every inter
//!   polyhedron and each of its two statements;
//! - the lexicographic objective (10), solved by successive ILPs (see
//!   "Deviations" below).
//!
//! After each level the conflict set is revised: a piece keeps only the
//! conflicts with `f = 0` or `|f| >= E`, where `E` is the level's common
//! modulus (a superset of (11)–(12), which is what makes the revision
//! sound for any moduli). Levels repeat until no conflict is left.
//!
//! Deviations from the paper (all on the side of soundness or simplicity):
//! - The objective stages sum over statements (`Σ_j u_j`, then `Σ_j w_j`)
//!   instead of ordering the statements lexicographically, and a last stage
//!   minimises `Σ|Γ| + Σ|δ|` so that the printed hyperplanes are small.
//! - All statements of one array share each level's modulus
//!   `E = max_j e_j` (coefficient-wise maximum, valid for parameters >= 0);
//!   with different moduli two statements' values could collide.
//! - The trade-off (9) is not imposed on a statement that has no intra
//!   conflict left (its intra bound is then meaningless), so that remaining
//!   inter conflicts can always be satisfied.
//! - At least one polyhedron must be fully satisfied per level (progress).
//!
//! What this module does NOT do: prove its result. Every mapping is checked
//! by [`super::certify`] before it is reported; the ILP solver's claims of
//! optimality are floating-point claims (see `poly::ilp`).

use std::cell::Cell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use crate::mapping::modular::ParamAffine;
use crate::poly::farkas::farkas_nonnegative;
use crate::poly::ilp::{Cmp, IlpModel, IlpOptions, IlpStats, IlpVar, Sense, SolveStatus};
use crate::poly::simplex::{LpResult, integer_point, lp_min};
use crate::poly::{BasicSet, Budget, PolyError, WorkLimit};

use super::input::{ConflictSpec, StmtId};

/// Options of the heuristic.
#[derive(Clone, Debug)]
pub struct SmoOptions {
    /// The constant `c` of the bounding constraints (1): bounds are at most
    /// `c·ΣP + c`.
    pub c: i64,
    /// Bound on the absolute value of each hyperplane coefficient.
    pub max_coeff: i64,
    /// Bound on the absolute value of each hyperplane offset.
    pub max_offset: i64,
    /// Branch-and-bound nodes of one level's ILPs (all stages, the
    /// per-statement ones included): the count, not the time, decides
    /// where a level's search stops.
    pub level_nodes: u64,
    /// Wall-clock safety net of one level (reported through
    /// [`WorkLimit::net_fired`] when it fires).
    pub level_safety_net: Duration,
    /// Whether to split the statements into arrays of comparable shapes
    /// (seed 000 §4.5) and solve each array again.
    pub decoalesce: bool,
    /// The budget of the whole heuristic, shared by every call given these
    /// options (and their clones).
    pub limit: Rc<WorkLimit>,
}

/// Default [`SmoOptions::level_nodes`]: the levels of the published
/// specifications and of the corpus need at most a few hundred nodes.
pub const DEFAULT_LEVEL_NODES: u64 = 20_000;

impl Default for SmoOptions {
    fn default() -> SmoOptions {
        SmoOptions {
            c: 10,
            max_coeff: 4,
            max_offset: 10,
            level_nodes: DEFAULT_LEVEL_NODES,
            level_safety_net: Duration::from_secs(20),
            decoalesce: true,
            limit: Rc::new(WorkLimit::unlimited()),
        }
    }
}

/// Counts what an ILP used against `limit`.
fn charge_ilp(limit: &WorkLimit, stats: &IlpStats) {
    limit.charge(stats.nodes);
    if stats.safety_net_fired {
        limit.fire();
    }
}

/// One storage hyperplane `Γ·x + δ` over the global array space.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Hyperplane {
    pub coeffs: Vec<i64>,
    pub offset: i64,
}

/// The storage mapping of one array shared by some statements: statement
/// `statements[s]` stores the cell `x` at `[(levels[l][s]·x) mod moduli[l]]_l`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArrayMapping {
    pub statements: Vec<StmtId>,
    /// Per level, one hyperplane per statement (same order as `statements`).
    pub levels: Vec<Vec<Hyperplane>>,
    /// Per level, the modulus (extent) of the array along that level.
    pub moduli: Vec<ParamAffine>,
    /// Per level, each statement's own contraction modulus `e_j` (used by
    /// decoalescing; the array uses their maximum).
    pub stmt_moduli: Vec<Vec<ParamAffine>>,
    /// Per level, each statement's intra-statement bound plus one (what
    /// the statement would need alone; empty for baseline arrays).
    pub intra_moduli: Vec<Vec<ParamAffine>>,
}

impl ArrayMapping {
    /// The mapping of `stmts` before any level: every value in one cell.
    pub(crate) fn without_levels(stmts: &[StmtId]) -> ArrayMapping {
        ArrayMapping {
            statements: stmts.to_vec(),
            levels: Vec::new(),
            moduli: Vec::new(),
            stmt_moduli: Vec::new(),
            intra_moduli: Vec::new(),
        }
    }

    /// Number of cells for concrete parameter values.
    pub fn size(&self, values: &[i64]) -> Result<i64, PolyError> {
        let mut acc: i64 = 1;
        for m in &self.moduli {
            acc = crate::poly::error::mul(acc, m.eval(values)?)?;
        }
        Ok(acc)
    }

    /// The location of cell `x` written by `stmt` (None if `stmt` is not
    /// mapped here or a modulus is not positive).
    pub fn location(
        &self,
        stmt: StmtId,
        x: &[i64],
        values: &[i64],
    ) -> Result<Option<Vec<i64>>, PolyError> {
        use crate::poly::error::{add, mul};
        let Some(s) = self.statements.iter().position(|t| *t == stmt) else {
            return Ok(None);
        };
        let mut out = Vec::with_capacity(self.levels.len());
        for (level, modulus) in self.levels.iter().zip(&self.moduli) {
            let h = &level[s];
            let mut a = h.offset;
            for (c, v) in h.coeffs.iter().zip(x) {
                a = add(a, mul(*c, *v)?)?;
            }
            let e = modulus.eval(values)?;
            if e < 1 {
                return Ok(None);
            }
            out.push(a.rem_euclid(e));
        }
        Ok(Some(out))
    }
}

/// The result of the heuristic: one mapping per array (after decoalescing).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SmoSolution {
    pub arrays: Vec<ArrayMapping>,
    /// Number of ILP levels solved in total (over all runs).
    pub n_levels_solved: usize,
}

impl SmoSolution {
    /// Total number of cells for concrete parameter values.
    pub fn size(&self, values: &[i64]) -> Result<i64, PolyError> {
        let mut acc = 0i64;
        for a in &self.arrays {
            acc = crate::poly::error::add(acc, a.size(values)?)?;
        }
        Ok(acc)
    }

    /// The array holding `stmt`'s values.
    pub fn array_of(&self, stmt: StmtId) -> Option<usize> {
        self.arrays
            .iter()
            .position(|a| a.statements.contains(&stmt))
    }
}

/// One piece of the (revised) conflict set.
#[derive(Clone, Debug)]
pub(crate) struct Piece {
    /// Index of the original conflict polyhedron.
    pub origin: usize,
    pub source: StmtId,
    pub target: StmtId,
    pub poly: BasicSet,
}

/// The conflict polyhedra of `spec` between statements of `stmts`, each
/// piece intersected with the array spaces, integer-empty pieces dropped.
pub(crate) fn initial_pieces(
    spec: &ConflictSpec,
    stmts: &[StmtId],
) -> Result<Vec<Piece>, PolyError> {
    let mut out = Vec::new();
    for (origin, k) in spec.conflicts.iter().enumerate() {
        if !stmts.contains(&k.source) || !stmts.contains(&k.target) {
            continue;
        }
        for piece in &k.relation.pieces {
            let poly = simplify(&with_array_spaces(spec, piece))?;
            if nonempty(&poly)? {
                out.push(Piece {
                    origin,
                    source: k.source,
                    target: k.target,
                    poly,
                });
            }
        }
    }
    Ok(out)
}

/// `piece ∩ (array_space × range_space)`.
pub fn with_array_spaces(spec: &ConflictSpec, piece: &BasicSet) -> BasicSet {
    let mut poly = piece.clone();
    let np = spec.params.len();
    let n = spec.n_dim;
    for (space, shift) in [(&spec.array_space, 0usize), (&spec.range_space, n)] {
        // Existentials of the array space become new existentials.
        let first = poly.width() - 1;
        for _ in 0..space.n_exist {
            poly.add_exist();
        }
        let width = poly.width();
        for (rows, is_eq) in [(&space.eqs, true), (&space.ineqs, false)] {
            for row in rows {
                let mut r = vec![0; width];
                r[..np].copy_from_slice(&row[..np]);
                for d in 0..n {
                    r[np + shift + d] = row[np + d];
                }
                for e in 0..space.n_exist {
                    r[first + e] = row[np + n + e];
                }
                r[width - 1] = row[row.len() - 1];
                if is_eq {
                    poly.eqs.push(r);
                } else {
                    poly.ineqs.push(r);
                }
            }
        }
    }
    poly
}

/// An equivalent (over the integers) smaller description of `poly`:
/// inequalities divided by the gcd of their coefficients with the constant
/// rounded down, duplicates and (exactly, by LP) redundant inequalities
/// removed. Smaller polyhedra give smaller Farkas systems.
pub(crate) fn simplify(poly: &BasicSet) -> Result<BasicSet, PolyError> {
    let mut out = poly.clone();
    let n = out.width() - 1;
    let mut rows: Vec<Vec<i64>> = Vec::new();
    if poly
        .eqs
        .iter()
        .chain(&poly.ineqs)
        .any(|r| r.contains(&i64::MIN))
    {
        return Ok(poly.clone());
    }
    for row in &poly.ineqs {
        let g = row[..n]
            .iter()
            .fold(0i64, |g, v| gcd(g, v.checked_abs().unwrap_or(0)));
        let mut r = row.clone();
        if g > 1 {
            for v in r[..n].iter_mut() {
                *v /= g;
            }
            r[n] = r[n].div_euclid(g);
        }
        if g == 0 && r[n] >= 0 {
            continue;
        }
        if !rows.contains(&r) {
            rows.push(r);
        }
    }
    out.ineqs = rows;
    let mut i = 0;
    while i < out.ineqs.len() {
        let row = out.ineqs.remove(i);
        let implied = match lp_min(&out, &row)? {
            LpResult::Optimal { value, .. } => value.signum() >= 0,
            LpResult::Infeasible => true,
            LpResult::Unbounded => false,
        };
        if !implied {
            out.ineqs.insert(i, row);
            i += 1;
        }
    }
    Ok(out)
}

/// [`simplify`] for other modules (exact, integer-equivalent).
pub(crate) fn simplify_public(poly: &BasicSet) -> Result<BasicSet, PolyError> {
    simplify(poly)
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// Whether dimension `col` takes one value on the rational points of `poly`.
pub(crate) fn is_fixed(poly: &BasicSet, col: usize) -> Result<bool, PolyError> {
    let mut obj = poly.zero_row();
    obj[col] = 1;
    let lo = lp_min(poly, &obj)?;
    let hi = crate::poly::simplex::lp_max(poly, &obj)?;
    Ok(match (lo, hi) {
        (LpResult::Optimal { value: a, .. }, LpResult::Optimal { value: b, .. }) => a == b,
        _ => false,
    })
}

pub(crate) fn nonempty(poly: &BasicSet) -> Result<bool, PolyError> {
    Ok(integer_point(poly, &mut Budget::default_query())?.is_some())
}

/// An affine expression over ILP variables.
#[derive(Clone, Debug, Default)]
struct Lin {
    terms: Vec<(IlpVar, i64)>,
    constant: i64,
}

impl Lin {
    fn constant(c: i64) -> Lin {
        Lin {
            terms: Vec::new(),
            constant: c,
        }
    }
    fn var(v: IlpVar, c: i64) -> Lin {
        Lin {
            terms: vec![(v, c)],
            constant: 0,
        }
    }
    fn add(mut self, other: &Lin, factor: i64) -> Lin {
        for (v, c) in &other.terms {
            self.terms.push((*v, c * factor));
        }
        self.constant += other.constant * factor;
        self
    }
}

/// Per-statement unknowns of one level.
struct StmtVars {
    gamma: Vec<IlpVar>,
    delta: IlpVar,
    u: Vec<IlpVar>,
    w: IlpVar,
    up: Vec<IlpVar>,
    wp: IlpVar,
}

/// Adds the Farkas linearisation of "`form >= 0` on `poly`" to `model`;
/// `form` has one entry per column of `poly` (constant last).
fn add_farkas(model: &mut IlpModel, poly: &BasicSet, form: &[Lin]) -> Result<(), PolyError> {
    // Unknowns: the distinct variables of the form.
    let mut unknowns: Vec<IlpVar> = Vec::new();
    for l in form {
        for (v, _) in &l.terms {
            if !unknowns.contains(v) {
                unknowns.push(*v);
            }
        }
    }
    let nu = unknowns.len();
    let rows: Vec<Vec<i64>> = form
        .iter()
        .map(|l| {
            let mut r = vec![0i64; nu + 1];
            for (v, c) in &l.terms {
                let i = unknowns.iter().position(|u| u == v).expect("collected");
                r[i] += c;
            }
            r[nu] = l.constant;
            r
        })
        .collect();
    let names: Vec<String> = (0..nu).map(|i| format!("u{i}")).collect();
    // Equalities as pairs of inequalities: all multipliers are then
    // non-negative (free multipliers upset the MILP solver).
    let mut split = poly.clone();
    for e in std::mem::take(&mut split.eqs) {
        split.ineqs.push(e.iter().map(|v| -v).collect());
        split.ineqs.push(e);
    }
    let poly = &split;
    let sys = farkas_nonnegative(poly, &rows, &names)?;
    let n_vars = sys.var_names.len();
    let n_ineq = poly.ineqs.len();
    let mut map: Vec<IlpVar> = unknowns.clone();
    for k in nu..n_vars {
        // lambda0 and one lambda per inequality are >= 0; mu are free.
        let is_lambda = k < nu + 1 + n_ineq;
        let v = if is_lambda {
            model.add_continuous(&sys.var_names[k], Some(0), None)
        } else {
            model.add_continuous(&sys.var_names[k], None, None)
        };
        map.push(v);
    }
    for row in &sys.eqs {
        let terms: Vec<(IlpVar, i64)> = row[..n_vars]
            .iter()
            .enumerate()
            .filter(|(_, c)| **c != 0)
            .map(|(i, c)| (map[i], *c))
            .collect();
        model.add_constraint(terms, Cmp::Eq, -row[n_vars]);
    }
    Ok(())
}

/// The result of one level.
struct LevelResult {
    hyperplanes: Vec<Hyperplane>,
    stmt_moduli: Vec<ParamAffine>,
    intra_moduli: Vec<ParamAffine>,
    satisfied: usize,
}

/// The ILP of one level before objectives are added.
struct Built {
    m: IlpModel,
    sv: Vec<StmtVars>,
    /// Decision variables of intra polyhedra, per statement of the run.
    x_intra: Vec<Vec<IlpVar>>,
    x_inter: Vec<IlpVar>,
    inter_of_stmt: Vec<Vec<IlpVar>>,
}

fn build_level(
    pieces: &[&Piece],
    stmts: &[StmtId],
    n_dim: usize,
    n_param: usize,
    opts: &SmoOptions,
) -> Result<Built, PolyError> {
    let c = opts.c;
    let mut m = IlpModel::new();
    let idx = |s: StmtId| {
        stmts
            .iter()
            .position(|t| *t == s)
            .expect("statement of the run")
    };
    // Dimensions on which a statement's cells take one value in every
    // piece (such as a statement number) need no coefficient: the offset
    // does the same job.
    let mut fixed = vec![vec![true; n_dim]; stmts.len()];
    for p in pieces {
        for (side, stmt) in [(0usize, p.source), (n_dim, p.target)] {
            let j = idx(stmt);
            for (d, f) in fixed[j].iter_mut().enumerate() {
                if *f && !is_fixed(&p.poly, n_param + side + d)? {
                    *f = false;
                }
            }
        }
    }
    let sv: Vec<StmtVars> = stmts
        .iter()
        .enumerate()
        .map(|(si, s)| {
            let j = s.0;
            StmtVars {
                gamma: (0..n_dim)
                    .map(|d| {
                        let b = if fixed[si][d] { 0 } else { opts.max_coeff };
                        m.add_integer(&format!("g{j}_{d}"), Some(-b), Some(b))
                    })
                    .collect(),
                delta: m.add_integer(
                    &format!("delta{j}"),
                    Some(-opts.max_offset),
                    Some(opts.max_offset),
                ),
                u: (0..n_param)
                    .map(|p| m.add_integer(&format!("u{j}_{p}"), Some(0), Some(c)))
                    .collect(),
                w: m.add_integer(&format!("w{j}"), Some(-c), Some(c)),
                up: (0..n_param)
                    .map(|p| m.add_integer(&format!("up{j}_{p}"), Some(0), Some(c)))
                    .collect(),
                wp: m.add_integer(&format!("wp{j}"), Some(-c), Some(c)),
            }
        })
        .collect();
    // u' >= u, w' >= w, and bounds are non-negative for parameters >= 1.
    for s in &sv {
        for (a, b) in s.up.iter().zip(&s.u) {
            m.add_constraint(vec![(*a, 1), (*b, -1)], Cmp::Ge, 0);
        }
        m.add_constraint(vec![(s.wp, 1), (s.w, -1)], Cmp::Ge, 0);
        let mut t: Vec<(IlpVar, i64)> = s.u.iter().map(|v| (*v, 1)).collect();
        t.push((s.w, 1));
        m.add_constraint(t, Cmp::Ge, 0);
    }
    let has_intra: Vec<bool> = stmts
        .iter()
        .map(|s| pieces.iter().any(|p| p.source == *s && p.target == *s))
        .collect();
    let mut x_intra: Vec<Vec<IlpVar>> = vec![Vec::new(); stmts.len()];
    let mut x_inter: Vec<IlpVar> = Vec::new();
    let mut inter_of_stmt: Vec<Vec<IlpVar>> = vec![Vec::new(); stmts.len()];
    for (pi, p) in pieces.iter().enumerate() {
        let j = idx(p.source);
        let k = idx(p.target);
        let intra = j == k;
        // The bounds `c·ΣP + c` of (1) assume parameters >= 0: the Farkas
        // systems are built on the piece with `P >= 0` added (results are
        // claimed, and certified, for such parameter values only).
        let mut with_nonneg = p.poly.clone();
        for q in 0..n_param {
            let mut row = with_nonneg.zero_row();
            row[q] = 1;
            // Only when the piece does not imply it already (a redundant
            // row only makes the ILP bigger).
            let implied = matches!(
                lp_min(&p.poly, &row)?,
                LpResult::Optimal { ref value, .. } if value.signum() >= 0
            );
            if !implied {
                with_nonneg.ineqs.push(row);
            }
        }
        let poly = &with_nonneg;
        let w = poly.width();
        let np = n_param;
        // f over the columns of poly.
        let mut f: Vec<Lin> = vec![Lin::default(); w];
        for d in 0..n_dim {
            f[np + d] = Lin::var(sv[j].gamma[d], 1);
            f[np + n_dim + d] = Lin::var(sv[k].gamma[d], -1);
        }
        if !intra {
            f[w - 1] = Lin::var(sv[j].delta, 1).add(&Lin::var(sv[k].delta, -1), 1);
        }
        // Bound B = u·P + w.
        let (bu, bw): (Vec<IlpVar>, IlpVar) = if intra {
            (sv[j].u.clone(), sv[j].w)
        } else {
            let bu: Vec<IlpVar> = (0..n_param)
                .map(|q| m.add_integer(&format!("bu{pi}_{q}"), Some(0), Some(c)))
                .collect();
            let bw = m.add_integer(&format!("bw{pi}"), Some(-c), Some(c));
            for s in [j, k] {
                for (a, b) in sv[s].up.iter().zip(&bu) {
                    m.add_constraint(vec![(*a, 1), (*b, -1)], Cmp::Ge, 0);
                }
                m.add_constraint(vec![(sv[s].wp, 1), (bw, -1)], Cmp::Ge, 0);
            }
            (bu, bw)
        };
        let mut bound: Vec<Lin> = vec![Lin::default(); w];
        for q in 0..n_param {
            bound[q] = Lin::var(bu[q], 1);
        }
        bound[w - 1] = Lin::var(bw, 1);
        let combine = |a: &[Lin], fa: i64, b: &[Lin], fb: i64| -> Vec<Lin> {
            a.iter()
                .zip(b)
                .map(|(x, y)| Lin::default().add(x, fa).add(y, fb))
                .collect()
        };
        add_farkas(&mut m, poly, &combine(&bound, 1, &f, -1))?;
        add_farkas(&mut m, poly, &combine(&bound, 1, &f, 1))?;
        // Decision constraints.
        let x1 = m.add_integer(&format!("x1_{pi}"), Some(0), Some(1));
        let x2 = m.add_integer(&format!("x2_{pi}"), Some(0), Some(1));
        m.add_constraint(vec![(x1, 1), (x2, 1)], Cmp::Le, 1);
        for (x, sign) in [(x1, 1i64), (x2, -1i64)] {
            // sign·f − 1 + (1 − x)(c·ΣP + c + 1) >= 0.
            let mut big: Vec<Lin> = vec![Lin::default(); w];
            for slot in big.iter_mut().take(n_param) {
                *slot = Lin::constant(c).add(&Lin::var(x, -c), 1);
            }
            big[w - 1] = Lin::constant(c).add(&Lin::var(x, -(c + 1)), 1);
            add_farkas(&mut m, poly, &combine(&big, 1, &f, sign))?;
        }
        if intra {
            x_intra[j].push(x1);
            x_intra[j].push(x2);
        } else {
            x_inter.push(x1);
            x_inter.push(x2);
            inter_of_stmt[j].push(x1);
            inter_of_stmt[j].push(x2);
            inter_of_stmt[k].push(x1);
            inter_of_stmt[k].push(x2);
            // Trade-off (9) for both statements.
            for s in [j, k] {
                if !has_intra[s] || n_param == 0 {
                    continue;
                }
                let mut t: Vec<(IlpVar, i64)> = Vec::new();
                for (a, b) in sv[s].up.iter().zip(&sv[s].u) {
                    t.push((*a, 1));
                    t.push((*b, -1));
                }
                let rho = n_param as i64;
                // Σ(u' − u) + cρ·x1 + cρ·x2 <= cρ.
                let mut t2 = t.clone();
                t2.push((x1, c * rho));
                t2.push((x2, c * rho));
                m.add_constraint(t2, Cmp::Le, c * rho);
            }
        }
    }
    Ok(Built {
        m,
        sv,
        x_intra,
        x_inter,
        inter_of_stmt,
    })
}

fn solve_status_solution(status: SolveStatus) -> Result<crate::poly::ilp::Solution, String> {
    match status {
        SolveStatus::Optimal(s) | SolveStatus::Feasible(s) => Ok(s),
        other => Err(format!("the level ILP gave no solution: {other}")),
    }
}

/// One level: the intra-statement stages of (10) are independent per
/// statement and solved first, statement by statement (small ILPs); their
/// optimal values are then fixed in the full model, which optimises the
/// inter-statement stages and the tie-break.
fn solve_level(
    pieces: &[Piece],
    stmts: &[StmtId],
    n_dim: usize,
    n_param: usize,
    opts: &SmoOptions,
) -> Result<Result<LevelResult, String>, PolyError> {
    let debug = log::log_enabled!(target: "smo", log::Level::Debug);
    let started = Instant::now();
    // The level's nodes (or what the heuristic has left, when fewer) are
    // shared by its ILPs; the safety net is the level's, or the
    // heuristic's when earlier.
    let level_nodes = opts.level_nodes.min(opts.limit.left());
    let level_used = Cell::new(0u64);
    let level_end = started + opts.level_safety_net;
    let end = opts
        .limit
        .safety_net
        .map_or(level_end, |d| d.min(level_end));
    let ilp_opts = || -> Option<IlpOptions> {
        let nodes = level_nodes.saturating_sub(level_used.get());
        let left = end.saturating_duration_since(Instant::now());
        if left.is_zero() {
            opts.limit.fire();
            return None;
        }
        (nodes > 0).then_some(IlpOptions {
            node_limit: Some(nodes),
            time_limit: Some(left),
        })
    };
    let solve = |m: &IlpModel, o: &IlpOptions| -> SolveStatus {
        let (status, stats) = m.solve_counted(o);
        level_used.set(level_used.get().saturating_add(stats.nodes));
        charge_ilp(&opts.limit, &stats);
        status
    };
    const SPENT: &str = "the budget of the heuristic is spent";
    // Per-statement intra stages.
    let mut intra_fix: Vec<Option<(i64, i64, i64)>> = vec![None; stmts.len()];
    for (si, s) in stmts.iter().enumerate() {
        let mine: Vec<&Piece> = pieces
            .iter()
            .filter(|p| p.source == *s && p.target == *s)
            .collect();
        if mine.is_empty() {
            continue;
        }
        let mut b = build_level(&mine, &[*s], n_dim, n_param, opts)?;
        let xs: Vec<(IlpVar, i64)> = b.x_intra[0].iter().map(|v| (*v, -1)).collect();
        let us: Vec<(IlpVar, i64)> = b.sv[0].u.iter().map(|v| (*v, 1)).collect();
        b.m.add_objective(Sense::Minimize, xs, 0);
        b.m.add_objective(Sense::Minimize, us, 0);
        b.m.add_objective(Sense::Minimize, vec![(b.sv[0].w, 1)], 0);
        let Some(o) = ilp_opts() else {
            return Ok(Err(SPENT.into()));
        };
        let sol = match solve_status_solution(solve(&b.m, &o)) {
            Ok(s) => s,
            Err(e) => return Ok(Err(format!("statement S{}: {e}", s.0))),
        };
        let val = |v: IlpVar| {
            sol.int_value(v)
                .ok_or_else(|| PolyError::Solver("non-integral ILP value".into()))
        };
        let mut sat = 0;
        for v in &b.x_intra[0] {
            sat += val(*v)?;
        }
        let mut su = 0;
        for v in &b.sv[0].u {
            su += val(*v)?;
        }
        intra_fix[si] = Some((sat, su, val(b.sv[0].w)?));
    }
    let all: Vec<&Piece> = pieces.iter().collect();
    let Built {
        mut m,
        sv,
        x_intra,
        x_inter,
        inter_of_stmt,
    } = build_level(&all, stmts, n_dim, n_param, opts)?;
    let mut intra_total = 0;
    for (si, fix) in intra_fix.iter().enumerate() {
        // A statement without intra conflicts needs no intra bound (0).
        let (sat, su, w) = fix.unwrap_or((0, 0, 0));
        intra_total += sat;
        if !x_intra[si].is_empty() {
            m.add_constraint(x_intra[si].iter().map(|v| (*v, 1)).collect(), Cmp::Eq, sat);
        }
        if !sv[si].u.is_empty() {
            m.add_constraint(sv[si].u.iter().map(|v| (*v, 1)).collect(), Cmp::Eq, su);
        }
        m.add_constraint(vec![(sv[si].w, 1)], Cmp::Eq, w);
    }
    let x_intra_all: Vec<IlpVar> = x_intra.iter().flatten().copied().collect();
    if x_intra_all.is_empty() && x_inter.is_empty() {
        return Ok(Err("no conflict polyhedron left".into()));
    }
    if intra_total == 0 {
        // Progress: some polyhedron must be satisfied.
        let all_x: Vec<(IlpVar, i64)> = x_intra_all
            .iter()
            .chain(&x_inter)
            .map(|v| (*v, 1))
            .collect();
        m.add_constraint(all_x, Cmp::Ge, 1);
    }
    // Tie-breaking absolute values.
    let mut abs_terms = Vec::new();
    for s in &sv {
        for v in s.gamma.iter().chain([&s.delta]) {
            let a = m.add_integer("abs", Some(0), None);
            m.add_constraint(vec![(a, 1), (*v, -1)], Cmp::Ge, 0);
            m.add_constraint(vec![(a, 1), (*v, 1)], Cmp::Ge, 0);
            abs_terms.push((a, 1));
        }
    }
    let neg = |v: &[IlpVar]| v.iter().map(|x| (*x, -1)).collect::<Vec<_>>();
    m.add_objective(Sense::Minimize, neg(&x_inter), 0);
    m.add_objective(
        Sense::Minimize,
        sv.iter()
            .flat_map(|s| s.up.iter().map(|v| (*v, 1)))
            .collect(),
        0,
    );
    m.add_objective(Sense::Minimize, sv.iter().map(|s| (s.wp, 1)).collect(), 0);
    m.add_objective(Sense::Minimize, abs_terms, 0);
    let Some(o) = ilp_opts() else {
        return Ok(Err(SPENT.into()));
    };
    let status = solve(&m, &o);
    if debug {
        log::debug!(target: "smo",
            "smo level: {} pieces, {} vars, {} constraints, {:.3} s, {} nodes",
            pieces.len(),
            m.n_vars(),
            m.n_constraints(),
            started.elapsed().as_secs_f64(),
            level_used.get()
        );
    }
    let x_intra = x_intra_all;
    let sol = match status {
        SolveStatus::Optimal(s) | SolveStatus::Feasible(s) => s,
        other => return Ok(Err(format!("the level ILP gave no solution: {other}"))),
    };
    let val = |v: IlpVar| -> Result<i64, PolyError> {
        sol.int_value(v)
            .ok_or_else(|| PolyError::Solver("non-integral ILP value".into()))
    };
    let mut hyperplanes = Vec::new();
    let mut stmt_moduli = Vec::new();
    let mut intra_moduli = Vec::new();
    let mut satisfied = 0;
    for v in x_intra.iter().chain(&x_inter) {
        satisfied += val(*v)? as usize;
    }
    for (s, vars) in sv.iter().enumerate() {
        let coeffs = vars
            .gamma
            .iter()
            .map(|v| val(*v))
            .collect::<Result<Vec<_>, _>>()?;
        hyperplanes.push(Hyperplane {
            coeffs,
            offset: val(vars.delta)?,
        });
        let mut any_inter = false;
        for x in &inter_of_stmt[s] {
            if val(*x)? == 1 {
                any_inter = true;
            }
        }
        intra_moduli.push(ParamAffine {
            coeffs: vars.u.iter().map(|v| val(*v)).collect::<Result<_, _>>()?,
            constant: crate::poly::error::add(val(vars.w)?, 1)?,
            den: 1,
        });
        let (us, w) = if any_inter {
            (&vars.up, vars.wp)
        } else {
            (&vars.u, vars.w)
        };
        stmt_moduli.push(ParamAffine {
            coeffs: us.iter().map(|v| val(*v)).collect::<Result<_, _>>()?,
            constant: crate::poly::error::add(val(w)?, 1)?,
            den: 1,
        });
    }
    Ok(Ok(LevelResult {
        hyperplanes,
        stmt_moduli,
        intra_moduli,
        satisfied,
    }))
}

/// The difference row `Γ_j·x + δ_j − Γ_k·y − δ_k` over the columns of `poly`.
pub(crate) fn difference_row(
    poly: &BasicSet,
    n_param: usize,
    n_dim: usize,
    hj: &Hyperplane,
    hk: &Hyperplane,
) -> Vec<i64> {
    let mut row = poly.zero_row();
    for d in 0..n_dim {
        row[n_param + d] += hj.coeffs[d];
        row[n_param + n_dim + d] -= hk.coeffs[d];
    }
    let last = row.len() - 1;
    row[last] = hj.offset - hk.offset;
    row
}

/// Revision after a level (seed 000 (11)–(13), see the module docs): each
/// piece keeps only the conflicts with `f = 0` or `|f| >= modulus`, where
/// `f` is the level's difference of the two statements' hyperplanes.
pub(crate) fn revise(
    pieces: &[Piece],
    stmts: &[StmtId],
    hyperplanes: &[Hyperplane],
    modulus: &ParamAffine,
    n_param: usize,
    n_dim: usize,
) -> Result<Vec<Piece>, PolyError> {
    let mut next = Vec::new();
    for p in pieces {
        let j = stmts.iter().position(|t| *t == p.source).expect("in run");
        let k = stmts.iter().position(|t| *t == p.target).expect("in run");
        let f = difference_row(&p.poly, n_param, n_dim, &hyperplanes[j], &hyperplanes[k]);
        let mut zero = p.poly.clone();
        zero.add_eq(f.clone());
        let mut cands = vec![zero];
        for sign in [1i64, -1] {
            let mut q = p.poly.clone();
            let mut row: Vec<i64> = f.iter().map(|v| v * sign).collect();
            for (qi, c) in modulus.coeffs.iter().enumerate() {
                row[qi] -= c;
            }
            let last = row.len() - 1;
            row[last] -= modulus.constant;
            q.add_ineq(row);
            cands.push(q);
        }
        for q in cands {
            let q = simplify(&q)?;
            if nonempty(&q)? {
                next.push(Piece {
                    origin: p.origin,
                    source: p.source,
                    target: p.target,
                    poly: q,
                });
            }
        }
    }
    Ok(next)
}

/// Coefficient-wise maximum (an upper bound of each for parameters >= 0).
pub(crate) fn max_affine(all: &[ParamAffine], n_param: usize) -> ParamAffine {
    let Some(first) = all.first() else {
        return ParamAffine::constant(n_param, 1);
    };
    let mut out = first.clone();
    for a in &all[1..] {
        for (o, c) in out.coeffs.iter_mut().zip(&a.coeffs) {
            *o = (*o).max(*c);
        }
        out.constant = out.constant.max(a.constant);
    }
    out
}

/// Runs Algorithm 1 on the conflicts between statements of `stmts`.
pub(crate) fn find_mappings(
    spec: &ConflictSpec,
    stmts: &[StmtId],
    opts: &SmoOptions,
    levels_solved: &mut usize,
) -> Result<Result<ArrayMapping, String>, PolyError> {
    let n_param = spec.params.len();
    let n_dim = spec.n_dim;
    let mut pieces = initial_pieces(spec, stmts)?;
    let mut mapping = ArrayMapping::without_levels(stmts);
    let max_levels = 2 * n_dim + 2;
    while !pieces.is_empty() {
        if mapping.levels.len() >= max_levels {
            return Ok(Err(format!(
                "{} conflict pieces still unsatisfied after {max_levels} levels",
                pieces.len()
            )));
        }
        let level = match solve_level(&pieces, stmts, n_dim, n_param, opts)? {
            Ok(l) => l,
            Err(why) => return Ok(Err(why)),
        };
        *levels_solved += 1;
        debug_assert!(level.satisfied >= 1);
        let modulus = max_affine(&level.stmt_moduli, n_param);
        let next = revise(&pieces, stmts, &level.hyperplanes, &modulus, n_param, n_dim)?;
        mapping.levels.push(level.hyperplanes);
        mapping.moduli.push(modulus);
        mapping.stmt_moduli.push(level.stmt_moduli);
        mapping.intra_moduli.push(level.intra_moduli);
        pieces = next;
    }
    Ok(Ok(mapping))
}

/// Seed 000 §4.5: statements whose per-level parametric weights are
/// comparable (one dominates the other coefficient-wise) may share an
/// array; the classes are the connected components. The weights are taken
/// from each statement's intra-statement bounds (what it needs alone): the
/// inter-statement bounds grow with the other statements' hyperplanes and
/// would hide the mismatch §4.5 is about.
pub(crate) fn decoalesce_classes(mapping: &ArrayMapping) -> Vec<Vec<StmtId>> {
    let n = mapping.statements.len();
    let delta = |s: usize| -> Vec<i64> {
        mapping
            .intra_moduli
            .iter()
            .map(|level| level[s].coeffs.iter().sum())
            .collect()
    };
    let deltas: Vec<Vec<i64>> = (0..n).map(delta).collect();
    let ge = |a: &[i64], b: &[i64]| a.iter().zip(b).all(|(x, y)| x >= y);
    let mut comp: Vec<usize> = (0..n).collect();
    fn find(comp: &mut [usize], i: usize) -> usize {
        let mut r = i;
        while comp[r] != r {
            r = comp[r];
        }
        comp[i] = r;
        r
    }
    for a in 0..n {
        for b in a + 1..n {
            if ge(&deltas[a], &deltas[b]) || ge(&deltas[b], &deltas[a]) {
                let ra = find(&mut comp, a);
                let rb = find(&mut comp, b);
                comp[ra] = rb;
            }
        }
    }
    let mut classes: Vec<(usize, Vec<StmtId>)> = Vec::new();
    for i in 0..n {
        let r = find(&mut comp, i);
        match classes.iter_mut().find(|(root, _)| *root == r) {
            Some((_, v)) => v.push(mapping.statements[i]),
            None => classes.push((r, vec![mapping.statements[i]])),
        }
    }
    classes.into_iter().map(|(_, v)| v).collect()
}

/// The whole heuristic: Algorithm 1 on all statements, then decoalescing
/// and Algorithm 1 again on each class when there is more than one.
pub fn smo_solve(
    spec: &ConflictSpec,
    opts: &SmoOptions,
) -> Result<Result<SmoSolution, String>, PolyError> {
    smo_solve_isolating(spec, &[], opts)
}

/// [`smo_solve`] with the statements of `isolated` taken out first: each
/// gets an array of its own (Algorithm 1 on it alone), and the heuristic
/// runs on the others. For values that no hyperplane can place next to a
/// sliding window, such as the boundary values of a stencil, which stay
/// live for the whole time loop (see `pipeline::merged::split`).
pub fn smo_solve_isolating(
    spec: &ConflictSpec,
    isolated: &[StmtId],
    opts: &SmoOptions,
) -> Result<Result<SmoSolution, String>, PolyError> {
    let rest: Vec<StmtId> = (0..spec.n_statements)
        .map(StmtId)
        .filter(|s| !isolated.contains(s))
        .collect();
    let mut levels = 0;
    let mut arrays = Vec::new();
    if !rest.is_empty() {
        match solve_group(spec, &rest, opts, &mut levels)? {
            Ok(a) => arrays.extend(a),
            Err(why) => return Ok(Err(why)),
        }
    }
    for s in isolated {
        match find_mappings(spec, &[*s], opts, &mut levels)? {
            Ok(m) => arrays.push(m),
            Err(why) => return Ok(Err(why)),
        }
    }
    Ok(Ok(SmoSolution {
        arrays,
        n_levels_solved: levels,
    }))
}

/// Algorithm 1 on `stmts`, then decoalescing and Algorithm 1 again on each
/// class when there is more than one.
fn solve_group(
    spec: &ConflictSpec,
    stmts: &[StmtId],
    opts: &SmoOptions,
    levels: &mut usize,
) -> Result<Result<Vec<ArrayMapping>, String>, PolyError> {
    let first = match find_mappings(spec, stmts, opts, levels)? {
        Ok(m) => m,
        Err(why) => return Ok(Err(why)),
    };
    if !opts.decoalesce {
        return Ok(Ok(vec![first]));
    }
    let classes = decoalesce_classes(&first);
    if log::log_enabled!(target: "smo", log::Level::Debug) {
        log::debug!(target: "smo",
            "smo decoalescing: intra moduli {:?}, classes {classes:?}",
            first.intra_moduli
        );
    }
    if classes.len() <= 1 {
        return Ok(Ok(vec![first]));
    }
    let mut arrays = Vec::new();
    for class in classes {
        match find_mappings(spec, &class, opts, levels)? {
            Ok(m) => arrays.push(m),
            Err(why) => return Ok(Err(why)),
        }
    }
    Ok(Ok(arrays))
}
