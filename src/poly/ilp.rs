//! A small (mixed) integer linear programming front end over good_lp with
//! the pure-Rust microlp backend, used to *search* (successive minima,
//! optimal mappings, SMO multipliers).
//!
//! What it does:
//! - [`IlpModel`]: integer and continuous variables with optional bounds,
//!   linear constraints with `i64` coefficients, and one or more objectives
//!   solved lexicographically (each objective is fixed at its optimum before
//!   the next one is optimised);
//! - a budget over all stages ([`IlpOptions`]): branch-and-bound nodes,
//!   which decide where the search stops (the same model and budget give
//!   the same answer on any machine), and a wall-clock safety net whose
//!   firing is reported ([`IlpStats::safety_net_fired`]);
//! - exact re-verification: the integer values returned by the
//!   floating-point solver are rounded, checked to be integral, then fixed,
//!   and the remaining continuous problem is solved again with the exact
//!   simplex of [`super::simplex`]; the returned [`Solution`] has exact
//!   rational values and objective values. A solution that fails this check
//!   is reported as [`SolveStatus::Error`], never returned;
//! - no panics: good_lp/microlp run under `catch_unwind`, and a panic
//!   becomes [`SolveStatus::Error`].
//!
//! What it does NOT do: prove infeasibility, unboundedness or optimality —
//! [`SolveStatus::Infeasible`], [`SolveStatus::Unbounded`] and the
//! optimality claim of [`SolveStatus::Optimal`] are the floating-point
//! solver's word (an exactly verified *point* is the only certified part).
//! Callers that need a proof use the exact solver in [`super::simplex`].
//! microlp only supports integer variable bounds within the `i32` range;
//! wider bounds give [`SolveStatus::Error`].

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

use ::microlp::{Error as MicroLpError, SolveOptions, TerminationReason};
use good_lp::{Expression, ProblemVariables, SolverModel, microlp, variable};

use super::basic::BasicSet;
use super::budget::Budget;
use super::error::{PolyError, PolyResult};
use super::rational::Rat;
use super::simplex::{LpResult, lp_max_with_budget, lp_min_with_budget};
use super::space::{Space, Tuple};

/// A variable of an [`IlpModel`] (its index in creation order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct IlpVar(pub usize);

/// Whether a variable must take integer values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VarKind {
    Integer,
    Continuous,
}

/// One variable: name (for diagnostics), kind, optional bounds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct VarDef {
    pub name: String,
    pub kind: VarKind,
    pub lower: Option<i64>,
    pub upper: Option<i64>,
}

/// Comparison of a linear constraint `Σ coeff·var  cmp  rhs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cmp {
    Le,
    Ge,
    Eq,
}

/// A linear constraint `Σ coeff·var  cmp  rhs`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct IlpConstraint {
    pub terms: Vec<(IlpVar, i64)>,
    pub cmp: Cmp,
    pub rhs: i64,
}

/// Direction of an objective.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sense {
    Minimize,
    // Constructed by the unit tests only; the solver handles it.
    #[cfg_attr(not(test), allow(dead_code))]
    Maximize,
}

/// An objective `Σ coeff·var + constant` with a direction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Objective {
    pub sense: Sense,
    pub terms: Vec<(IlpVar, i64)>,
    pub constant: i64,
}

/// A (mixed) integer linear program with lexicographic objectives.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct IlpModel {
    pub vars: Vec<VarDef>,
    pub constraints: Vec<IlpConstraint>,
    /// Objectives in priority order; none means a feasibility problem.
    pub objectives: Vec<Objective>,
}

/// Solver options.
#[derive(Clone, Debug, Default)]
pub(crate) struct IlpOptions {
    /// Branch-and-bound nodes for all lexicographic stages together (each
    /// solver call also counts its root relaxation as one node). This
    /// deterministic count decides where the search stops.
    pub node_limit: Option<u64>,
    /// Wall-clock safety net for all stages together. Hitting it is
    /// reported in [`IlpStats::safety_net_fired`]: the answer may then
    /// depend on the machine's speed and load.
    pub time_limit: Option<Duration>,
}

/// What a solve used.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct IlpStats {
    /// Nodes counted against [`IlpOptions::node_limit`].
    pub nodes: u64,
    /// Whether the wall-clock safety net stopped a solver call.
    pub safety_net_fired: bool,
}

/// The node budget and safety net of one [`IlpModel::solve`].
struct Meter {
    node_limit: Option<u64>,
    deadline: Option<Instant>,
    stats: IlpStats,
}

impl Meter {
    /// Nodes left (`None`: unlimited).
    fn nodes_left(&self) -> Option<u64> {
        self.node_limit.map(|l| l.saturating_sub(self.stats.nodes))
    }

    /// Time left before the safety net (`None`: none).
    fn time_left(&self) -> Option<Duration> {
        self.deadline
            .map(|d| d.saturating_duration_since(Instant::now()))
    }

    /// Whether nothing is left (then the run stops, reporting which limit).
    fn spent(&mut self) -> bool {
        if self.nodes_left() == Some(0) {
            return true;
        }
        if self.time_left().is_some_and(|t| t.is_zero()) {
            self.stats.safety_net_fired = true;
            return true;
        }
        false
    }

    /// Runs microlp with at most `nodes` nodes (and the time left), and
    /// counts what it used.
    fn run(
        &mut self,
        model: &IlpModel,
        fixings: &[IlpConstraint],
        objective: Option<&Objective>,
        nodes: Option<u64>,
    ) -> Result<RawSolution, RawFailure> {
        let (raw, used) = run_microlp(model, fixings, objective, nodes, self.time_left());
        self.stats.nodes = self.stats.nodes.saturating_add(used);
        if matches!(raw, Err(RawFailure::Limit { safety_net: true }))
            || matches!(
                raw,
                Ok(RawSolution {
                    stopped_by_safety_net: true,
                    ..
                })
            )
        {
            self.stats.safety_net_fired = true;
        }
        raw
    }
}

/// An exactly verified solution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Solution {
    /// One exact value per model variable (integral for integer variables).
    pub values: Vec<Rat>,
    /// The exact value of each objective that was optimised, in order.
    pub objective_values: Vec<Rat>,
    /// Model size: number of variables.
    pub n_vars: usize,
    /// Model size: number of constraints (without the lexicographic fixings).
    pub n_constraints: usize,
}

impl Solution {
    /// The value of `v` as an integer, when it is one.
    pub(crate) fn int_value(&self, v: IlpVar) -> Option<i64> {
        self.values.get(v.0).copied().and_then(Rat::to_i64)
    }
}

/// Outcome of [`IlpModel::solve`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum SolveStatus {
    /// Verified solution; the solver reported every stage optimal.
    Optimal(Solution),
    /// Verified solution without an optimality claim (a limit was hit).
    Feasible(Solution),
    /// The solver reported no solution (not a proof).
    Infeasible,
    /// The solver (or the exact continuous re-solve) found the objective
    /// unbounded.
    Unbounded,
    /// The node limit (or the safety net) was reached before any solution
    /// was found.
    TimeLimit,
    /// Anything else, including solver panics and failed verification.
    Error(String),
}

impl std::fmt::Display for SolveStatus {
    /// What a status says in a report (the solutions are not printed).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SolveStatus::Optimal(_) => f.write_str("optimal"),
            SolveStatus::Feasible(_) => f.write_str("feasible"),
            SolveStatus::Infeasible => f.write_str("infeasible"),
            SolveStatus::Unbounded => f.write_str("unbounded"),
            SolveStatus::TimeLimit => {
                f.write_str("no solution within the node limit (or its safety net)")
            }
            SolveStatus::Error(e) => write!(f, "error: {e}"),
        }
    }
}

impl IlpModel {
    pub fn new() -> IlpModel {
        IlpModel::default()
    }

    /// Adds an integer variable with optional bounds.
    pub(crate) fn add_integer(
        &mut self,
        name: &str,
        lower: Option<i64>,
        upper: Option<i64>,
    ) -> IlpVar {
        self.add_var(name, VarKind::Integer, lower, upper)
    }

    /// Adds a continuous variable with optional bounds.
    pub(crate) fn add_continuous(
        &mut self,
        name: &str,
        lower: Option<i64>,
        upper: Option<i64>,
    ) -> IlpVar {
        self.add_var(name, VarKind::Continuous, lower, upper)
    }

    fn add_var(
        &mut self,
        name: &str,
        kind: VarKind,
        lower: Option<i64>,
        upper: Option<i64>,
    ) -> IlpVar {
        self.vars.push(VarDef {
            name: name.to_string(),
            kind,
            lower,
            upper,
        });
        IlpVar(self.vars.len() - 1)
    }

    /// Adds `Σ coeff·var  cmp  rhs`.
    pub(crate) fn add_constraint(&mut self, terms: Vec<(IlpVar, i64)>, cmp: Cmp, rhs: i64) {
        self.constraints.push(IlpConstraint { terms, cmp, rhs });
    }

    /// Appends an objective (lower priority than those already added).
    pub(crate) fn add_objective(&mut self, sense: Sense, terms: Vec<(IlpVar, i64)>, constant: i64) {
        self.objectives.push(Objective {
            sense,
            terms,
            constant,
        });
    }

    pub(crate) fn n_vars(&self) -> usize {
        self.vars.len()
    }

    pub(crate) fn n_constraints(&self) -> usize {
        self.constraints.len()
    }

    fn check(&self) -> Result<(), String> {
        let n = self.vars.len();
        let bad = |terms: &[(IlpVar, i64)]| terms.iter().any(|(v, _)| v.0 >= n);
        if self.constraints.iter().any(|c| bad(&c.terms))
            || self.objectives.iter().any(|o| bad(&o.terms))
        {
            return Err("a constraint or objective names an unknown variable".into());
        }
        if let Some(v) = self
            .vars
            .iter()
            .find(|v| matches!((v.lower, v.upper), (Some(l), Some(u)) if l > u))
        {
            return Err(format!(
                "variable {} has lower bound above upper bound",
                v.name
            ));
        }
        let outside_i32 = |b: Option<i64>| b.is_some_and(|b| i32::try_from(b).is_err());
        if let Some(v) = self
            .vars
            .iter()
            .find(|v| v.kind == VarKind::Integer && (outside_i32(v.lower) || outside_i32(v.upper)))
        {
            return Err(format!(
                "integer variable {} has a bound outside the solver's i32 range",
                v.name
            ));
        }
        Ok(())
    }

    /// Solves the model: lexicographic objectives by successive solves, each
    /// stage's integer solution exactly re-verified (see the module docs).
    #[cfg(test)]
    pub fn solve(&self, options: &IlpOptions) -> SolveStatus {
        self.solve_counted(options).0
    }

    /// [`IlpModel::solve`], with what the solve used.
    pub(crate) fn solve_counted(&self, options: &IlpOptions) -> (SolveStatus, IlpStats) {
        let mut meter = Meter {
            node_limit: options.node_limit,
            deadline: options.time_limit.map(|t| Instant::now() + t),
            stats: IlpStats::default(),
        };
        let status = self.solve_metered(&mut meter);
        (status, meter.stats)
    }

    fn solve_metered(&self, meter: &mut Meter) -> SolveStatus {
        if let Err(e) = self.check() {
            return SolveStatus::Error(e);
        }
        let debug = log::log_enabled!(target: "ilp", log::Level::Debug);
        let mut fixings: Vec<IlpConstraint> = Vec::new();
        let mut best: Option<Solution> = None;
        let stages: Vec<Option<&Objective>> = if self.objectives.is_empty() {
            vec![None]
        } else {
            self.objectives.iter().map(Some).collect()
        };
        let stop = |best: Option<Solution>| match best {
            Some(s) => SolveStatus::Feasible(s),
            None => SolveStatus::TimeLimit,
        };
        for (stage, objective) in stages.iter().enumerate() {
            if meter.spent() {
                return stop(best);
            }
            let stage_start = Instant::now();
            let nodes_before = meter.stats.nodes;
            // A later stage optimises with a third of the nodes left; if
            // they run out, feasibility probes improve the earlier solution
            // with the rest (see `probe_stage`).
            // Only for objectives over integer variables with integer
            // coefficients: their values are integers, so "better by 1" is
            // "better".
            let probing = stage > 0
                && best.is_some()
                && meter.node_limit.is_some()
                && objective.is_some_and(|o| {
                    o.terms
                        .iter()
                        .all(|(v, _)| self.vars[v.0].kind == VarKind::Integer)
                });
            let stage_nodes = if probing {
                meter.nodes_left().map(|n| (n / 3).max(1))
            } else {
                meter.nodes_left()
            };
            let raw = meter.run(self, &fixings, *objective, stage_nodes);
            if probing
                && matches!(raw, Err(RawFailure::Limit { safety_net: false }))
                && let (Some(obj), Some(current)) = (*objective, best.as_ref())
            {
                let probed = probe_stage(self, &fixings, obj, current, meter);
                if debug {
                    log::debug!(target: "ilp",
                        "ilp stage {stage}: {:.3} s, {} nodes, optimisation stopped, probes: {}",
                        stage_start.elapsed().as_secs_f64(),
                        meter.stats.nodes - nodes_before,
                        match &probed {
                            Ok(Some((_, v, true))) => format!("optimal {v}"),
                            Ok(Some((_, v, false))) => format!("improved to {v}, limit"),
                            Ok(None) => "no improvement, limit".into(),
                            Err(e) => e.clone(),
                        }
                    );
                }
                match probed {
                    Ok(Some((mut s, value, proven))) => {
                        s.objective_values = current.objective_values.clone();
                        s.objective_values.push(value);
                        if !proven {
                            return SolveStatus::Feasible(s);
                        }
                        match fixing_constraint(obj, value) {
                            Ok(c) => fixings.push(c),
                            Err(e) => {
                                return SolveStatus::Error(format!("cannot fix objective: {e}"));
                            }
                        }
                        best = Some(s);
                        continue;
                    }
                    Ok(None) => {}
                    Err(e) => return SolveStatus::Error(e),
                }
                // The probes ran out too: the best so far stands.
                return stop(best);
            }
            if debug {
                log::debug!(target: "ilp",
                    "ilp stage {stage}: {:.3} s, {} nodes, {}",
                    stage_start.elapsed().as_secs_f64(),
                    meter.stats.nodes - nodes_before,
                    match &raw {
                        Ok(r) if r.proven_optimal => "solved",
                        Ok(_) => "feasible, limit",
                        Err(RawFailure::Limit { safety_net: false }) => "node limit",
                        Err(RawFailure::Limit { safety_net: true }) => "safety net",
                        Err(_) => "failed",
                    }
                );
            }
            let raw = match raw {
                Ok(raw) => raw,
                Err(RawFailure::Infeasible) if stage == 0 => return SolveStatus::Infeasible,
                Err(RawFailure::Unbounded) => return SolveStatus::Unbounded,
                Err(RawFailure::Limit { .. }) => return stop(best),
                Err(RawFailure::Infeasible) => {
                    return SolveStatus::Error(format!(
                        "lexicographic stage {stage} infeasible after fixing earlier objectives \
                         (numerical trouble in the solver)"
                    ));
                }
                Err(RawFailure::Error(e)) => return SolveStatus::Error(e),
            };
            let verified = match verify_exactly(self, &fixings, *objective, &raw.values) {
                Ok(Verified::Solution(values, value)) => (values, value),
                Ok(Verified::Unbounded) => return SolveStatus::Unbounded,
                Ok(Verified::Rejected(why)) => {
                    return SolveStatus::Error(format!(
                        "solver solution rejected by exact verification: {why}"
                    ));
                }
                Err(e) => return SolveStatus::Error(format!("exact verification failed: {e}")),
            };
            let (values, value) = verified;
            let mut objective_values = best
                .as_ref()
                .map(|s| s.objective_values.clone())
                .unwrap_or_default();
            if let (Some(obj), Some(value)) = (objective, value) {
                objective_values.push(value);
                match fixing_constraint(obj, value) {
                    Ok(c) => fixings.push(c),
                    Err(e) => return SolveStatus::Error(format!("cannot fix objective: {e}")),
                }
            }
            best = Some(Solution {
                values,
                objective_values,
                n_vars: self.n_vars(),
                n_constraints: self.n_constraints(),
            });
            if !raw.proven_optimal {
                return stop(best);
            }
        }
        match best {
            Some(s) => SolveStatus::Optimal(s),
            None => SolveStatus::Error("no stage was solved".into()),
        }
    }
}

/// Improves `current` for the stage objective `obj` (integer-valued) by
/// feasibility probes (no objective, the constraint `obj` better than the
/// current value by at least 1), until a probe is infeasible (the value is
/// then optimal for the stage: `true`) or the meter is spent (`false`: the
/// best solution found, not proven optimal). `None` when the current
/// solution cannot be evaluated. Each probe's solution is checked exactly
/// like any other.
fn probe_stage(
    model: &IlpModel,
    fixings: &[IlpConstraint],
    obj: &Objective,
    current: &Solution,
    meter: &mut Meter,
) -> Result<Option<(Solution, Rat, bool)>, String> {
    let as_raw = |s: &Solution| -> Vec<f64> {
        s.values
            .iter()
            .map(|r| r.num() as f64 / r.den() as f64)
            .collect()
    };
    let value_of =
        |values: &[f64], extra: &[IlpConstraint]| -> Result<Option<(Vec<Rat>, Rat)>, String> {
            let mut all = fixings.to_vec();
            all.extend_from_slice(extra);
            match verify_exactly(model, &all, Some(obj), values) {
                Ok(Verified::Solution(v, Some(val))) => Ok(Some((v, val))),
                Ok(_) => Ok(None),
                Err(e) => Err(format!("exact verification failed: {e}")),
            }
        };
    let Some((mut values, mut value)) = value_of(&as_raw(current), &[])? else {
        return Ok(None);
    };
    let done = |values: Vec<Rat>, value: Rat, proven: bool| {
        Some((
            Solution {
                values,
                objective_values: Vec::new(),
                n_vars: model.n_vars(),
                n_constraints: model.n_constraints(),
            },
            value,
            proven,
        ))
    };
    loop {
        if meter.spent() {
            return Ok(done(values, value, false));
        }
        // Strictly better: obj <= value - 1 (minimise) or >= value + 1, on
        // the integer scale of the objective's terms.
        let target = match obj.sense {
            Sense::Minimize => value.checked_sub(Rat::one()),
            Sense::Maximize => value.checked_add(Rat::one()),
        }
        .map_err(|e| e.to_string())?;
        let probe = fixing_constraint(obj, target).map_err(|e| e.to_string())?;
        let left = meter.nodes_left();
        match meter.run(
            model,
            &[fixings, std::slice::from_ref(&probe)].concat(),
            None,
            left,
        ) {
            Ok(raw) => match value_of(&raw.values, std::slice::from_ref(&probe))? {
                Some((v, val)) => {
                    values = v;
                    value = val;
                }
                None => return Ok(done(values, value, false)),
            },
            Err(RawFailure::Infeasible) => return Ok(done(values, value, true)),
            Err(_) => return Ok(done(values, value, false)),
        }
    }
}

/// The floating-point answer of one stage.
struct RawSolution {
    values: Vec<f64>,
    proven_optimal: bool,
    /// The answer is the incumbent the safety net stopped at.
    stopped_by_safety_net: bool,
}

enum RawFailure {
    Infeasible,
    Unbounded,
    /// The node limit (`safety_net: false`) or the safety net stopped the
    /// call before any solution.
    Limit {
        safety_net: bool,
    },
    Error(String),
}

fn expression(terms: &[(IlpVar, i64)], constant: i64, vars: &[good_lp::Variable]) -> Expression {
    let mut e = Expression::from_other_affine(constant as f64);
    for (v, c) in terms {
        e.add_mul(*c as f64, vars[v.0]);
    }
    e
}

/// Runs microlp on the model plus `fixings` with one objective, under
/// `catch_unwind`, with at most `node_limit` branch-and-bound nodes and
/// the `time_limit` safety net. Also returns the nodes used (the root
/// relaxation counts as one).
fn run_microlp(
    model: &IlpModel,
    fixings: &[IlpConstraint],
    objective: Option<&Objective>,
    node_limit: Option<u64>,
    time_limit: Option<Duration>,
) -> (Result<RawSolution, RawFailure>, u64) {
    let result = catch_unwind(AssertUnwindSafe(|| {
        let mut pv = ProblemVariables::new();
        let vars: Vec<good_lp::Variable> = model
            .vars
            .iter()
            .map(|d| {
                let mut def = variable();
                if d.kind == VarKind::Integer {
                    def = def.integer();
                }
                if let Some(l) = d.lower {
                    def = def.min(l as f64);
                }
                if let Some(u) = d.upper {
                    def = def.max(u as f64);
                }
                pv.add(def)
            })
            .collect();
        let unsolved = match objective {
            None => pv.minimise(Expression::from_other_affine(0.0)),
            Some(o) => {
                let e = expression(&o.terms, o.constant, &vars);
                match o.sense {
                    Sense::Minimize => pv.minimise(e),
                    Sense::Maximize => pv.maximise(e),
                }
            }
        };
        let mut problem = unsolved.using(microlp);
        for c in model.constraints.iter().chain(fixings) {
            let lhs = expression(&c.terms, 0, &vars);
            let rhs = c.rhs as f64;
            let con = match c.cmp {
                Cmp::Le => lhs.leq(rhs),
                Cmp::Ge => lhs.geq(rhs),
                Cmp::Eq => lhs.eq(rhs),
            };
            problem = problem.with(con);
        }
        // The problem good_lp built, solved with microlp's own options:
        // the node limit is deterministic, the time limit a safety net.
        // (Variables are created in model order; `check` keeps integer
        // bounds in microlp's i32 range.)
        let mut options = SolveOptions::default();
        options.node_limit = node_limit;
        options.time_limit = time_limit;
        let outcome = match problem.as_inner().solve_with(options) {
            Ok(o) => o,
            Err(e) => return (Err(failure_of(e)), 1),
        };
        let nodes = 1 + outcome.stats().nodes_solved;
        let reason = outcome.termination_reason();
        let safety_net = reason == TerminationReason::TimeLimit;
        let raw = match outcome.solution() {
            Some(sol) => Ok(RawSolution {
                values: sol.iter().map(|(_, x)| x).collect(),
                proven_optimal: reason == TerminationReason::ProvenOptimal,
                stopped_by_safety_net: safety_net,
            }),
            None => Err(RawFailure::Limit { safety_net }),
        };
        (raw, nodes)
    }));
    match result {
        Ok(answer) => answer,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            // A panic counts as the root node only.
            (Err(RawFailure::Error(format!("solver panicked: {msg}"))), 1)
        }
    }
}

/// A microlp error as a failure of one call.
fn failure_of(e: MicroLpError) -> RawFailure {
    match e {
        MicroLpError::Infeasible => RawFailure::Infeasible,
        MicroLpError::Unbounded => RawFailure::Unbounded,
        other => RawFailure::Error(other.to_string()),
    }
}

enum Verified {
    /// Exact values of all variables and the exact objective value.
    Solution(Vec<Rat>, Option<Rat>),
    /// With the integer values fixed, the continuous part is unbounded.
    Unbounded,
    /// The floating-point answer does not survive the exact check.
    Rejected(String),
}

/// Tolerance for accepting a floating-point value as an integer.
const INTEGRALITY_TOLERANCE: f64 = 1e-6;

/// Rounds the integer variables, fixes them, and solves the continuous part
/// exactly (optimising `objective` over it).
fn verify_exactly(
    model: &IlpModel,
    fixings: &[IlpConstraint],
    objective: Option<&Objective>,
    raw: &[f64],
) -> PolyResult<Verified> {
    let n = model.vars.len();
    // Integer values, and the position of each continuous variable.
    let mut int_val: Vec<Option<i64>> = vec![None; n];
    let mut cont_index: Vec<Option<usize>> = vec![None; n];
    let mut n_cont = 0;
    for (j, d) in model.vars.iter().enumerate() {
        match d.kind {
            VarKind::Integer => {
                let x = raw[j];
                let r = x.round();
                if !x.is_finite() || (x - r).abs() > INTEGRALITY_TOLERANCE || r.abs() > 9.0e15 {
                    return Ok(Verified::Rejected(format!(
                        "variable {} = {x} is not an integer",
                        d.name
                    )));
                }
                let r = r as i64;
                if d.lower.is_some_and(|l| r < l) || d.upper.is_some_and(|u| r > u) {
                    return Ok(Verified::Rejected(format!(
                        "variable {} = {r} is out of its bounds",
                        d.name
                    )));
                }
                int_val[j] = Some(r);
            }
            VarKind::Continuous => {
                cont_index[j] = Some(n_cont);
                n_cont += 1;
            }
        }
    }
    // Rows over the continuous variables: [cont coeffs | constant].
    let affine = |terms: &[(IlpVar, i64)], constant: i64| -> PolyResult<Vec<i64>> {
        let mut row = vec![0i64; n_cont + 1];
        let mut c = constant as i128;
        for (v, a) in terms {
            match (int_val[v.0], cont_index[v.0]) {
                (Some(x), _) => {
                    c = c
                        .checked_add(*a as i128 * x as i128)
                        .ok_or(PolyError::Overflow)?;
                }
                (None, Some(k)) => {
                    row[k] = row[k].checked_add(*a).ok_or(PolyError::Overflow)?;
                }
                (None, None) => unreachable!("every variable is integer or continuous"),
            }
        }
        row[n_cont] = i64::try_from(c).map_err(|_| PolyError::Overflow)?;
        Ok(row)
    };
    let names: Vec<String> = (0..n_cont).map(|k| format!("c{k}")).collect();
    let mut b = BasicSet::universe(Space::set(Vec::new(), Tuple::anonymous(names)));
    for c in model.constraints.iter().chain(fixings) {
        let row = affine(&c.terms, 0)?;
        let rhs = c.rhs;
        // row = Σ a·x (constant part included); constraint row cmp rhs.
        let mut diff = row.clone();
        diff[n_cont] = diff[n_cont].checked_sub(rhs).ok_or(PolyError::Overflow)?;
        match c.cmp {
            Cmp::Eq => b.add_eq(diff),
            Cmp::Ge => b.add_ineq(diff),
            Cmp::Le => b.add_ineq(
                diff.iter()
                    .map(|v| v.checked_neg().ok_or(PolyError::Overflow))
                    .collect::<PolyResult<_>>()?,
            ),
        }
    }
    for (j, d) in model.vars.iter().enumerate() {
        if let Some(k) = cont_index[j] {
            if let Some(l) = d.lower {
                let mut row = vec![0i64; n_cont + 1];
                row[k] = 1;
                row[n_cont] = l.checked_neg().ok_or(PolyError::Overflow)?;
                b.add_ineq(row);
            }
            if let Some(u) = d.upper {
                let mut row = vec![0i64; n_cont + 1];
                row[k] = -1;
                row[n_cont] = u;
                b.add_ineq(row);
            }
        }
    }
    let obj_row = match objective {
        Some(o) => affine(&o.terms, o.constant)?,
        None => vec![0i64; n_cont + 1],
    };
    let mut budget = Budget::default();
    let res = match objective.map(|o| o.sense) {
        Some(Sense::Minimize) => lp_min_with_budget(&b, &obj_row, &mut budget)?,
        _ => lp_max_with_budget(&b, &obj_row, &mut budget)?,
    };
    let (value, point) = match res {
        LpResult::Infeasible => {
            return Ok(Verified::Rejected(
                "constraints fail with the integer values fixed".into(),
            ));
        }
        LpResult::Unbounded => return Ok(Verified::Unbounded),
        LpResult::Optimal { value, point } => (value, point),
    };
    let values: Vec<Rat> = (0..n)
        .map(|j| match (int_val[j], cont_index[j]) {
            (Some(x), _) => Rat::from_int(x),
            (None, Some(k)) => point[k],
            (None, None) => unreachable!("every variable is integer or continuous"),
        })
        .collect();
    // Independent final check of every constraint with the exact values.
    for c in model.constraints.iter().chain(fixings) {
        let mut acc = Rat::zero();
        for (v, a) in &c.terms {
            acc = acc.checked_add(Rat::from_int(*a).checked_mul(values[v.0])?)?;
        }
        let rhs = Rat::from_int(c.rhs);
        let ok = match c.cmp {
            Cmp::Le => acc <= rhs,
            Cmp::Ge => acc >= rhs,
            Cmp::Eq => acc == rhs,
        };
        if !ok {
            return Ok(Verified::Rejected("a constraint fails exactly".into()));
        }
    }
    Ok(Verified::Solution(values, objective.map(|_| value)))
}

/// The constraint that keeps objective `o` at least as good as `value`.
fn fixing_constraint(o: &Objective, value: Rat) -> PolyResult<IlpConstraint> {
    // Σ a·x + c  (<= or >=)  p/q   <=>   Σ (q·a)·x  (<= or >=)  p - q·c.
    let q = i64::try_from(value.den()).map_err(|_| PolyError::Overflow)?;
    let p = i64::try_from(value.num()).map_err(|_| PolyError::Overflow)?;
    let terms = o
        .terms
        .iter()
        .map(|(v, a)| Ok((*v, a.checked_mul(q).ok_or(PolyError::Overflow)?)))
        .collect::<PolyResult<_>>()?;
    let rhs = p
        .checked_sub(q.checked_mul(o.constant).ok_or(PolyError::Overflow)?)
        .ok_or(PolyError::Overflow)?;
    Ok(IlpConstraint {
        terms,
        cmp: match o.sense {
            Sense::Minimize => Cmp::Le,
            Sense::Maximize => Cmp::Ge,
        },
        rhs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::matrix::complete_to_unimodular;
    use crate::poly::simplex::proptest_cases;
    use crate::util::rng::Rng;

    /// A 0/1 knapsack that branch and bound cannot close at the root:
    /// maximise Σ v·x subject to Σ w·x <= 40 (weights and values odd, so
    /// the relaxation is fractional), and its optimum by brute force over
    /// the 2^10 choices.
    fn knapsack() -> (IlpModel, i64) {
        let w = [11, 13, 7, 9, 17, 5, 15, 3, 19, 21];
        let v = [15, 19, 9, 13, 23, 7, 21, 3, 27, 29];
        let mut m = IlpModel::new();
        let x: Vec<IlpVar> = (0..w.len())
            .map(|i| m.add_integer(&format!("x{i}"), Some(0), Some(1)))
            .collect();
        m.add_constraint(x.iter().zip(w).map(|(x, w)| (*x, w)).collect(), Cmp::Le, 40);
        m.add_objective(
            Sense::Maximize,
            x.iter().zip(v).map(|(x, v)| (*x, v)).collect(),
            0,
        );
        let mut best = 0;
        for mask in 0u32..1 << w.len() {
            let pick = |a: &[i64]| -> i64 {
                (0..w.len())
                    .filter(|i| mask >> i & 1 == 1)
                    .map(|i| a[i])
                    .sum()
            };
            if pick(&w) <= 40 {
                best = best.max(pick(&v));
            }
        }
        (m, best)
    }

    /// The node limit decides where the search stops: the same model and
    /// limit give the same answer and count every time, and the limit is
    /// kept (one root node per solver call on top of the branch nodes).
    #[test]
    fn node_limit_stops_the_search_deterministically() {
        let (m, best) = knapsack();
        let (full, full_stats) = m.solve_counted(&IlpOptions::default());
        match &full {
            SolveStatus::Optimal(s) => assert_eq!(s.objective_values, vec![Rat::from_int(best)]),
            other => panic!("knapsack: {other:?}"),
        }
        assert!(full_stats.nodes > 3, "the model needs branching");
        assert!(!full_stats.safety_net_fired);
        let limited = IlpOptions {
            node_limit: Some(2),
            time_limit: None,
        };
        let first = m.solve_counted(&limited);
        for _ in 0..5 {
            assert_eq!(m.solve_counted(&limited), first);
        }
        assert!(first.1.nodes <= 3, "{:?}", first.1);
        assert!(!first.1.safety_net_fired);
        match &first.0 {
            SolveStatus::Feasible(s) => {
                assert!(s.objective_values[0] <= Rat::from_int(best));
            }
            SolveStatus::TimeLimit => {}
            other => panic!("knapsack with 2 nodes: {other:?}"),
        }
    }

    /// A wall-clock safety net that fires is reported, not silent.
    #[test]
    fn safety_net_firing_is_reported() {
        let (m, _) = knapsack();
        let (status, stats) = m.solve_counted(&IlpOptions {
            node_limit: None,
            time_limit: Some(Duration::ZERO),
        });
        assert!(stats.safety_net_fired, "{status:?} {stats:?}");
        assert!(
            matches!(status, SolveStatus::TimeLimit | SolveStatus::Feasible(_)),
            "{status:?}"
        );
    }

    #[test]
    fn probes_improve_a_stage_to_its_proven_optimum() {
        // min 2x + 3y + z over integers 0..=5 with x + y >= 3, 2x - z <= 4:
        // brute force below. Start from the poor solution (2, 5, 5).
        let mut m = IlpModel::new();
        let x = m.add_integer("x", Some(0), Some(5));
        let y = m.add_integer("y", Some(0), Some(5));
        let z = m.add_integer("z", Some(0), Some(5));
        m.add_constraint(vec![(x, 1), (y, 1)], Cmp::Ge, 3);
        m.add_constraint(vec![(x, 2), (z, -1)], Cmp::Le, 4);
        let obj = Objective {
            sense: Sense::Minimize,
            terms: vec![(x, 2), (y, 3), (z, 1)],
            constant: 0,
        };
        let mut brute = i64::MAX;
        for a in 0..=5 {
            for b in 0..=5 {
                for c in 0..=5 {
                    if a + b >= 3 && 2 * a - c <= 4 {
                        brute = brute.min(2 * a + 3 * b + c);
                    }
                }
            }
        }
        let current = Solution {
            values: vec![Rat::from_int(2), Rat::from_int(5), Rat::from_int(5)],
            objective_values: Vec::new(),
            n_vars: 3,
            n_constraints: 2,
        };
        let mut meter = Meter {
            node_limit: Some(10_000),
            deadline: None,
            stats: IlpStats::default(),
        };
        let (sol, value, proven) = probe_stage(&m, &[], &obj, &current, &mut meter)
            .unwrap()
            .expect("the current solution is feasible");
        assert!(proven);
        assert_eq!(value, Rat::from_int(brute));
        let v: Vec<i64> = sol.values.iter().map(|r| r.to_i64().unwrap()).collect();
        assert_eq!(2 * v[0] + 3 * v[1] + v[2], brute);
        assert!(v[0] + v[1] >= 3 && 2 * v[0] - v[2] <= 4);
    }

    /// K of seed 001 §4.1.1 for N = 100 as rows `a·x <= c`:
    /// `-(N-1) <= i1 + 2 i2 <= N-1`, `-(N-1) <= i1 - i2 <= N-1`,
    /// `-1 <= i2 <= 1`.
    fn durbin_k() -> Vec<([i64; 2], i64)> {
        vec![
            ([1, 2], 99),
            ([-1, -2], 99),
            ([1, -1], 99),
            ([-1, 1], 99),
            ([0, 1], 1),
            ([0, -1], 1),
        ]
    }

    /// Gauge of K at `x`: the smallest `λ >= 0` with `A·x <= λ·c`, exactly.
    fn gauge(x: [i64; 2]) -> Rat {
        durbin_k()
            .iter()
            .map(|(a, c)| Rat::new((a[0] * x[0] + a[1] * x[1]) as i128, *c as i128).expect("c > 0"))
            .fold(Rat::zero(), |m, v| m.max(v))
    }

    /// The MILP of seed 001 §4.1.1 in coordinates `x = Q·y`: minimise λ
    /// subject to `A·Q·y <= λ·c` and `y_j >= 1`, then (second objective)
    /// the sum of `|x_i|`, which makes the minimum vector simplest.
    fn successive_min_milp(q: &[[i64; 2]; 2], j: usize) -> (Rat, [i64; 2]) {
        let mut m = IlpModel::new();
        let y = [
            m.add_integer("y1", Some(-1000), Some(1000)),
            m.add_integer("y2", Some(-1000), Some(1000)),
        ];
        let lambda = m.add_continuous("lambda", Some(0), None);
        // x_i = Σ_k q[i][k]·y_k, and |x_i| <= t_i.
        let t = [
            m.add_integer("t1", Some(0), None),
            m.add_integer("t2", Some(0), None),
        ];
        for i in 0..2 {
            m.add_constraint(
                vec![(y[0], q[i][0]), (y[1], q[i][1]), (t[i], -1)],
                Cmp::Le,
                0,
            );
            m.add_constraint(
                vec![(y[0], -q[i][0]), (y[1], -q[i][1]), (t[i], -1)],
                Cmp::Le,
                0,
            );
        }
        for (a, c) in durbin_k() {
            // a·Q·y - c·λ <= 0
            let aq0 = a[0] * q[0][0] + a[1] * q[1][0];
            let aq1 = a[0] * q[0][1] + a[1] * q[1][1];
            m.add_constraint(vec![(y[0], aq0), (y[1], aq1), (lambda, -c)], Cmp::Le, 0);
        }
        m.add_constraint(vec![(y[j], 1)], Cmp::Ge, 1);
        m.add_objective(Sense::Minimize, vec![(lambda, 1)], 0);
        m.add_objective(Sense::Minimize, vec![(t[0], 1), (t[1], 1)], 0);
        let sol = match m.solve(&IlpOptions {
            node_limit: Some(100_000),
            time_limit: None,
        }) {
            SolveStatus::Optimal(s) => s,
            other => panic!("successive minimum MILP: {other:?}"),
        };
        assert_eq!(sol.n_vars, 5);
        assert_eq!(sol.n_constraints, 11);
        let yv = [
            sol.int_value(y[0]).expect("integer"),
            sol.int_value(y[1]).expect("integer"),
        ];
        let x = [
            q[0][0] * yv[0] + q[0][1] * yv[1],
            q[1][0] * yv[0] + q[1][1] * yv[1],
        ];
        (sol.objective_values[0], x)
    }

    /// Seed 001 §4.1.2 with N = 100: λ1 = 1/99 at x = (1, 0) and λ2 = 1 at
    /// (0, 1). The λ are recomputed exactly from the vectors (gauge), and
    /// checked against brute-force minima of the gauge over a box.
    #[test]
    fn durbin_successive_minima() {
        let id = [[1, 0], [0, 1]];
        // λ1: minimum over j of the MILP with x_j >= 1 (K is 0-symmetric).
        let (l1a, x1a) = successive_min_milp(&id, 0);
        let (l1b, x1b) = successive_min_milp(&id, 1);
        let (lambda1, x1) = if l1a <= l1b { (l1a, x1a) } else { (l1b, x1b) };
        assert_eq!(lambda1, Rat::new(1, 99).expect("valid"));
        assert_eq!(x1, [1, 0]);
        assert_eq!(gauge(x1), lambda1);
        // λ2: complete x1 to a unimodular Q and ask for y_2 >= 1.
        let q = complete_to_unimodular(&[x1.to_vec()])
            .expect("small")
            .expect("primitive");
        let q = [[q.get(0, 0), q.get(0, 1)], [q.get(1, 0), q.get(1, 1)]];
        let (lambda2, x2) = successive_min_milp(&q, 1);
        assert_eq!(lambda2, Rat::one());
        assert_eq!(gauge(x2), lambda2);
        assert_eq!(x2, [0, 1], "simplest second minimum vector");
        // Brute force over a box that contains every point of 2K.
        let mut min_all = None::<Rat>;
        let mut min_indep = None::<Rat>;
        for a in -300i64..=300 {
            for b in -2i64..=2 {
                if (a, b) == (0, 0) {
                    continue;
                }
                let g = gauge([a, b]);
                min_all = Some(min_all.map_or(g, |m| m.min(g)));
                if b != 0 {
                    // independent of (1, 0)
                    min_indep = Some(min_indep.map_or(g, |m| m.min(g)));
                }
            }
        }
        assert_eq!(min_all, Some(lambda1));
        assert_eq!(min_indep, Some(lambda2));
    }

    #[test]
    fn knapsack_matches_brute_force_and_lexicographic_order() {
        let mut m = IlpModel::new();
        let v: Vec<IlpVar> = (0..3)
            .map(|i| m.add_integer(&format!("v{i}"), Some(0), Some(5)))
            .collect();
        let rows = [([2, 3, 1], 5), ([4, 1, 2], 11), ([3, 4, 2], 8)];
        for (a, c) in rows {
            m.add_constraint((0..3).map(|i| (v[i], a[i])).collect(), Cmp::Le, c);
        }
        let w = [5, 4, 3];
        m.add_objective(Sense::Maximize, (0..3).map(|i| (v[i], w[i])).collect(), 0);
        // Tie-break: smallest v0.
        m.add_objective(Sense::Minimize, vec![(v[0], 1)], 0);
        let mut best = (i64::MIN, i64::MAX);
        for a in 0..=5i64 {
            for b in 0..=5i64 {
                for c in 0..=5i64 {
                    let x = [a, b, c];
                    if rows
                        .iter()
                        .all(|(r, cap)| (0..3).map(|i| r[i] * x[i]).sum::<i64>() <= *cap)
                    {
                        let val: i64 = (0..3).map(|i| w[i] * x[i]).sum();
                        if val > best.0 || (val == best.0 && a < best.1) {
                            best = (val, a);
                        }
                    }
                }
            }
        }
        match m.solve(&IlpOptions::default()) {
            SolveStatus::Optimal(s) => {
                assert_eq!(s.objective_values[0], Rat::from_int(best.0));
                assert_eq!(s.objective_values[1], Rat::from_int(best.1));
                assert_eq!(s.int_value(v[0]), Some(best.1));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn infeasible_unbounded_and_bad_models() {
        let mut m = IlpModel::new();
        let x = m.add_integer("x", Some(0), Some(10));
        m.add_constraint(vec![(x, 2)], Cmp::Eq, 1);
        assert_eq!(m.solve(&IlpOptions::default()), SolveStatus::Infeasible);

        let mut m = IlpModel::new();
        let x = m.add_continuous("x", Some(0), None);
        m.add_objective(Sense::Maximize, vec![(x, 1)], 0);
        assert_eq!(m.solve(&IlpOptions::default()), SolveStatus::Unbounded);

        let mut m = IlpModel::new();
        m.add_integer("x", Some(3), Some(2));
        assert!(matches!(
            m.solve(&IlpOptions::default()),
            SolveStatus::Error(_)
        ));

        let mut m = IlpModel::new();
        m.add_constraint(vec![(IlpVar(7), 1)], Cmp::Le, 0);
        assert!(matches!(
            m.solve(&IlpOptions::default()),
            SolveStatus::Error(_)
        ));

        // Integer bounds beyond what microlp supports are an error, not a panic.
        let mut m = IlpModel::new();
        let x = m.add_integer("x", Some(0), Some(i64::MAX));
        m.add_objective(Sense::Minimize, vec![(x, 1)], 0);
        assert!(matches!(
            m.solve(&IlpOptions::default()),
            SolveStatus::Error(_)
        ));

        // Feasibility only: a point is returned and verified.
        let mut m = IlpModel::new();
        let x = m.add_integer("x", Some(-5), Some(5));
        let y = m.add_integer("y", Some(-5), Some(5));
        m.add_constraint(vec![(x, 3), (y, 5)], Cmp::Eq, 1);
        match m.solve(&IlpOptions::default()) {
            SolveStatus::Optimal(s) => {
                let (a, b) = (s.int_value(x).expect("int"), s.int_value(y).expect("int"));
                assert_eq!(3 * a + 5 * b, 1);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn exact_verification_rejects_bad_floating_point_answers() {
        let mut m = IlpModel::new();
        let x = m.add_integer("x", Some(0), Some(10));
        let y = m.add_continuous("y", Some(0), Some(10));
        m.add_constraint(vec![(x, 1), (y, 1)], Cmp::Le, 4);
        m.add_objective(Sense::Maximize, vec![(x, 3), (y, 2)], 0);
        let obj = m.objectives[0].clone();
        // Not integral.
        assert!(matches!(
            verify_exactly(&m, &[], Some(&obj), &[2.5, 0.0]),
            Ok(Verified::Rejected(_))
        ));
        // Integral but infeasible once fixed.
        assert!(matches!(
            verify_exactly(&m, &[], Some(&obj), &[5.0, 0.0]),
            Ok(Verified::Rejected(_))
        ));
        // Slightly off integer: accepted, continuous part re-solved exactly.
        match verify_exactly(&m, &[], Some(&obj), &[3.0000000001, 0.9999]) {
            Ok(Verified::Solution(values, Some(v))) => {
                assert_eq!(values, vec![Rat::from_int(3), Rat::from_int(1)]);
                assert_eq!(v, Rat::from_int(11));
            }
            _ => panic!("expected an exact solution"),
        }
    }

    /// Random pure-integer models (150 cases by default, times
    /// `POLYFOLD_PROPTEST_CASES`): the verified optimum equals brute force
    /// over the box `[-3, 3]^n`.
    #[test]
    fn random_models_match_brute_force() {
        let cases = proptest_cases(150);
        let mut rng = Rng::new(0x11F);
        for case in 0..cases {
            let n = rng.range(1, 3) as usize;
            let mut m = IlpModel::new();
            let v: Vec<IlpVar> = (0..n)
                .map(|i| m.add_integer(&format!("x{i}"), Some(-3), Some(3)))
                .collect();
            let mut rows = Vec::new();
            for _ in 0..rng.range(1, 3) {
                let a: Vec<i64> = (0..n).map(|_| rng.range(-4, 4)).collect();
                let c = rng.range(-4, 6);
                m.add_constraint((0..n).map(|i| (v[i], a[i])).collect(), Cmp::Le, c);
                rows.push((a, c));
            }
            let w: Vec<i64> = (0..n).map(|_| rng.range(-4, 4)).collect();
            m.add_objective(Sense::Maximize, (0..n).map(|i| (v[i], w[i])).collect(), 0);
            let mut best: Option<i64> = None;
            let total = 7usize.pow(n as u32);
            for mut code in 0..total {
                let x: Vec<i64> = (0..n)
                    .map(|_| {
                        let d = (code % 7) as i64 - 3;
                        code /= 7;
                        d
                    })
                    .collect();
                if rows
                    .iter()
                    .all(|(a, c)| (0..n).map(|i| a[i] * x[i]).sum::<i64>() <= *c)
                {
                    let val: i64 = (0..n).map(|i| w[i] * x[i]).sum();
                    best = Some(best.map_or(val, |b| b.max(val)));
                }
            }
            let got = m.solve(&IlpOptions::default());
            match (best, &got) {
                (None, SolveStatus::Infeasible) => {}
                (Some(b), SolveStatus::Optimal(s)) => {
                    assert_eq!(
                        s.objective_values[0],
                        Rat::from_int(b),
                        "case {case}: {m:?}"
                    );
                }
                _ => panic!("case {case}: {m:?}: brute force {best:?}, solver {got:?}"),
            }
        }
    }
}
