//! What both merged-buffer solvers share: the statements of the SCoP's
//! parts, the solve for known values, the operations and value lifetimes
//! they are searched on, and the point tests on statement domains.

use std::collections::HashMap;

use crate::ir::Scop;
use crate::mapping::smo::{
    ConflictSpec, SmoOptions, SmoSolution, SmoVerdict, StmtId, certify_fixed,
    conflicts::{ForValues, global_conflicts_until},
    shared::Lifetime,
    shared_solve_isolating, smo_solve, smo_solve_isolating,
};
use crate::poly::basic::eval_row;
use crate::poly::enumerate::integer_points;
use crate::poly::{BasicSet, Budget, WorkLimit};

use super::split::SplitScop;
use crate::mapping::MergeMethod;
use crate::pipeline::options::{
    CONFLICT_WORK, SHARED_WORK, SMO_AFTER_SHARED_NODES, SMO_AFTER_SHARED_PIECES,
    SMO_MAX_OPERATIONS, SMO_NODES, SMO_SECOND_LEVEL_NODES,
};

/// Whether `point` (`[params | dims]`) lies in one of `pieces` (without existentials).
pub(super) fn contains(pieces: &[BasicSet], point: &[i64]) -> Result<bool, String> {
    for b in pieces {
        if b.n_exist != 0 {
            return Err("a source region with existential variables".into());
        }
        let mut inside = true;
        for r in &b.eqs {
            if eval_row(r, point).map_err(|e| e.to_string())? != 0 {
                inside = false;
                break;
            }
        }
        if inside {
            for r in &b.ineqs {
                if eval_row(r, point).map_err(|e| e.to_string())? < 0 {
                    inside = false;
                    break;
                }
            }
        }
        if inside {
            return Ok(true);
        }
    }
    Ok(false)
}

/// All integer points of a statement domain for the given values.
pub(super) fn domain_points(
    scop: &Scop,
    s: usize,
    values: &[i64],
    budget: &mut Budget,
) -> crate::poly::PolyResult<Vec<Vec<i64>>> {
    let mut pts = Vec::new();
    for piece in &scop.stmts[s].domain.pieces {
        pts.extend(integer_points(piece, values, budget)?);
    }
    pts.sort();
    pts.dedup();
    Ok(pts)
}

/// The alignment of statement `s`'s local space for the shared-hyperplane
/// search: local dimension `1 + d` holds iterator `d`, and aligned
/// dimension `1 + r` takes the iterator that is the written array's `r`-th
/// subscript (when that subscript is one iterator plus a constant), so
/// that the cell coordinates of all statements line up; the other
/// iterators and the padding follow in order. Dimension 0 (the statement
/// number) stays.
pub(super) fn aligned_dims(scop: &Scop, s: usize, n_dim: usize) -> Vec<usize> {
    let st = &scop.stmts[s];
    let np = scop.params.len();
    let m = st.iterators.len();
    let mut order = vec![0];
    for sub in &st.write.subscripts {
        let its = &sub.coeffs[np..np + m];
        let ones: Vec<usize> = (0..m).filter(|d| its[*d] != 0).collect();
        if let [d] = ones[..]
            && its[d] == 1
            && !order.contains(&(1 + d))
        {
            order.push(1 + d);
        }
    }
    for d in 1..n_dim {
        if !order.contains(&d) {
            order.push(d);
        }
    }
    order
}

/// The statements of the SCoP's parts that both solvers work on.
pub(super) struct Parts<'a> {
    pub(super) split: &'a SplitScop,
    /// The parts writing temporaries (indices into `split.scop`).
    pub(super) stmts: &'a [usize],
    /// The temporaries (array indices).
    pub(super) temps: &'a [usize],
    pub(super) flow: &'a crate::analysis::dataflow::Dataflow,
}

/// What the solvers chose, and what the report says about it.
pub(super) struct Solved {
    /// The global conflict set the mapping was certified on.
    pub(super) spec: ConflictSpec,
    pub(super) sol: SmoSolution,
    pub(super) method: MergeMethod,
    /// The certified size of each candidate (method, cells).
    pub(super) candidate_sizes: Vec<(MergeMethod, i64)>,
    /// The report's `chosen:` line.
    pub(super) chosen: String,
    pub(super) lower_bound: usize,
    pub(super) safety_net_fired: bool,
}

/// The merged storage for the parameter values `values`: the conflict set
/// for those values, the shared hyperplanes, SMO's ILPs and the baseline,
/// each certified for the values; the smallest wins.
pub(super) fn solve_for_values(
    parts: &Parts<'_>,
    values: &[i64],
    budget: std::time::Duration,
    started: std::time::Instant,
    stage: &dyn Fn(&str),
) -> Result<Solved, String> {
    let debug = log::log_enabled!(target: "smo", log::Level::Debug);
    let (split, stmts, temps, flow) = (parts.split, parts.stmts, parts.temps, parts.flow);
    let vs = &split.scop;
    let conflicts_start = std::time::Instant::now();
    // The global conflict set is built for the known parameter values only
    // (every mapping is certified for them, and pinned to them by a
    // `_Static_assert`): its pieces fix the parameters, and it skips the
    // statement pairs none of whose values overlap in the lifetimes.
    let (writes, raw_lifetimes) = writes_and_lifetimes(vs, temps, values, SMO_MAX_OPERATIONS)?;
    let needed = overlapping_pairs(&writes, &raw_lifetimes, stmts);
    stage("lifetimes");
    let for_values = ForValues {
        values,
        needed: &needed,
    };
    // Work decides; half the wall-clock budget is the safety net.
    let conflict_limit = WorkLimit::new(CONFLICT_WORK, Some(started + budget / 2));
    let spec = global_conflicts_until(
        vs,
        flow,
        stmts,
        Some(&conflict_limit),
        Some(for_values),
    )
    .map_err(|e| match e {
        crate::poly::PolyError::Budget
            if conflict_limit.net_fired() =>
        {
            format!(
                "the global conflict set hit its wall-clock safety net ({:.1} s, half of --inter-array-budget); this result may differ between runs",
                (budget / 2).as_secs_f64()
            )
        }
        crate::poly::PolyError::Budget => format!(
            "the global conflict set needs more than {CONFLICT_WORK} conflict pieces"
        ),
        e => e.to_string(),
    })?
    .ok_or("dataflow not exact")?;
    // SMO and the baseline; the smaller certified result wins (ties: SMO).
    stage("conflict set");
    if debug {
        log::debug!(target: "smo",
            "smo path: {} statements, {} conflict polyhedra ({:.3} s, {} work units)",
            stmts.len(),
            spec.conflicts.len(),
            conflicts_start.elapsed().as_secs_f64(),
            conflict_limit.used()
        );
        for c in &spec.conflicts {
            log::debug!(target: "smo", "  {} {} {}", c.source.0, c.target.0, c.relation);
        }
    }
    // The split-off parts (values whose cells nobody rewrites) in arrays of
    // their own, SMO on the rest; then SMO on everything, with a short
    // time limit when the first succeeded (it can only win by sharing a
    // buffer between a split-off value and the rest).
    let isolated: Vec<crate::mapping::smo::StmtId> = stmts
        .iter()
        .enumerate()
        .filter(|(_, v)| split.alone[**v])
        .map(|(j, _)| crate::mapping::smo::StmtId(j))
        .collect();
    let mut results = Vec::new();
    // Nodes decide; the budget's end is the ILPs' safety net.
    let mut opts = SmoOptions {
        level_safety_net: budget,
        limit: std::rc::Rc::new(WorkLimit::new(SMO_NODES, Some(started + budget))),
        ..SmoOptions::default()
    };
    // No storage needs fewer cells than the values live at once.
    // (The parts' operations are the original ones, split.)
    let lower_bound = max_live_of(&raw_lifetimes);
    // The lifetimes of the parts' values in the coordinates of the
    // conflict set (statement number, iteration, padding).
    let lifetimes = lifetimes_in(&spec, stmts, raw_lifetimes);
    let align: Vec<Vec<usize>> = stmts
        .iter()
        .map(|s| aligned_dims(vs, *s, spec.n_dim))
        .collect();
    stage("lower bound");
    let mut optimal = false;
    let meets_bound = |r: &Result<SmoSolution, String>| {
        r.as_ref().is_ok_and(|sol| {
            sol.size(values)
                .is_ok_and(|n| usize::try_from(n).is_ok_and(|n| n <= lower_bound))
        })
    };
    let mut safety_net_fired = conflict_limit.net_fired();
    let mut variants = Vec::new();
    if !isolated.is_empty() {
        variants.push((MergeMethod::SharedHyperplanesApart, &isolated[..]));
    }
    variants.push((MergeMethod::SharedHyperplanes, &[][..]));
    for (method, apart) in variants {
        if optimal {
            break;
        }
        let t = std::time::Instant::now();
        // The work decides; the wall clock (a quarter of the budget) is a
        // safety net, reported when it fires.
        let limit = WorkLimit::new(SHARED_WORK, Some((started + budget).min(t + budget / 4)));
        let r = shared_solve_isolating(&spec, apart, &align, values, &lifetimes, &limit)
            .map_err(|e| e.to_string())?;
        safety_net_fired |= limit.net_fired();
        if debug {
            log::debug!(target: "smo",
                "smo {method}: {:?} ({:.3} s, {} work units)",
                r.as_ref().map(|s| s.size(values)),
                t.elapsed().as_secs_f64(),
                limit.used()
            );
        }
        optimal = meets_bound(&r);
        results.push((method, r));
    }
    let mut run_ilp = !optimal;
    if results.iter().any(|(_, r)| r.is_ok()) {
        // The ILP only gets a short look when the shared hyperplanes gave
        // a mapping, and none on a large conflict set: there it does not
        // finish (a level of jacobi-2d's 235 pieces runs for minutes).
        if spec.conflicts.len() > SMO_AFTER_SHARED_PIECES {
            run_ilp = false;
        }
        opts.limit = std::rc::Rc::new(WorkLimit::new(
            SMO_AFTER_SHARED_NODES,
            Some(started + budget),
        ));
    }
    if run_ilp && !isolated.is_empty() {
        let r = smo_solve_isolating(&spec, &isolated, &opts).map_err(|e| e.to_string())?;
        if r.is_ok() {
            opts.level_nodes = SMO_SECOND_LEVEL_NODES;
        }
        run_ilp = !meets_bound(&r);
        results.push((MergeMethod::SmoApart, r));
    }
    if run_ilp {
        let smo = smo_solve(&spec, &opts).map_err(|e| e.to_string())?;
        results.push((MergeMethod::Smo, smo));
    }
    safety_net_fired |= opts.limit.net_fired();
    if debug {
        log::debug!(target: "smo", "smo ILPs: {} nodes", opts.limit.used());
    }
    stage("shared and ILP");
    let base = crate::mapping::smo::baseline::baseline(&spec, values).map_err(|e| e.to_string())?;
    stage("baseline");
    results.push((MergeMethod::Baseline, base));
    let mut candidates: Vec<(MergeMethod, SmoSolution, i64)> = Vec::new();
    let mut rejected = Vec::new();
    for (method, result) in results {
        match result {
            Ok(sol) => {
                let verdict = certify_fixed(&spec, &sol, values);
                if verdict == SmoVerdict::Valid {
                    let size = sol.size(values).map_err(|e| e.to_string())?;
                    candidates.push((method, sol, size));
                } else {
                    rejected.push(format!("{method}: not certified ({verdict:?})"));
                }
            }
            Err(why) => rejected.push(format!("{method}: {why}")),
        }
    }
    stage("certification");
    let sizes: Vec<String> = candidates
        .iter()
        .map(|(m, _, s)| format!("{m} {s}"))
        .collect();
    let found = Found {
        candidates,
        sizes,
        rejected,
    };
    found.pick(
        spec,
        "no certified mapping",
        "",
        "certified sizes",
        (lower_bound, safety_net_fired),
    )
}

/// The certified candidates of a solve (method, mapping, cells), each
/// one's size as the report prints it, and why the others failed.
pub(super) struct Found {
    pub(super) candidates: Vec<(MergeMethod, SmoSolution, i64)>,
    pub(super) sizes: Vec<String>,
    pub(super) rejected: Vec<String>,
}

impl Found {
    /// The smallest candidate (the first on ties) with the report's
    /// `chosen:` line (`{method}{qualifier} ({sizes_label}: …)`); `none`
    /// heads the error when there is no candidate.
    pub(super) fn pick(
        mut self,
        spec: ConflictSpec,
        none: &str,
        qualifier: &str,
        sizes_label: &str,
        (lower_bound, safety_net_fired): (usize, bool),
    ) -> Result<Solved, String> {
        let best = self
            .candidates
            .iter()
            .enumerate()
            .min_by_key(|(i, c)| (c.2, *i))
            .map(|(i, _)| i)
            .ok_or_else(|| format!("{none}: {}", self.rejected.join("; ")))?;
        let candidate_sizes: Vec<(MergeMethod, i64)> =
            self.candidates.iter().map(|c| (c.0, c.2)).collect();
        let (method, sol, _) = self.candidates.swap_remove(best);
        let chosen = format!(
            "{method}{qualifier} ({sizes_label}: {}){}",
            self.sizes.join(", "),
            if self.rejected.is_empty() {
                String::new()
            } else {
                format!("; {}", self.rejected.join("; "))
            }
        );
        Ok(Solved {
            spec,
            sol,
            method,
            candidate_sizes,
            chosen,
            lower_bound,
            safety_net_fired,
        })
    }
}

/// The lifetimes of the parts' values in the coordinates of the conflict
/// set `spec` (statement number among `stmts`, iteration, padding).
pub(super) fn lifetimes_in(
    spec: &ConflictSpec,
    stmts: &[usize],
    raw: Vec<ValueLife>,
) -> Vec<Lifetime> {
    raw.into_iter()
        .filter_map(|v| {
            let j = stmts.iter().position(|s| *s == v.stmt)?;
            let mut coords = vec![j as i64];
            coords.extend(v.iteration);
            coords.resize(spec.n_dim.max(coords.len()), 0);
            Some(Lifetime {
                stmt: StmtId(j),
                coords,
                birth: v.birth,
                death: v.death,
            })
        })
        .collect()
}

/// One operation of a SCoP run: schedule (padded), statement, iterators.
pub(super) type Operation = (Vec<i64>, usize, Vec<i64>);

/// The trace program of `scop` and all its operations for the given
/// values, in execution order.
pub(super) fn operations(
    scop: &Scop,
    values: &[i64],
    max_operations: u64,
) -> Result<(crate::verify::trace::TraceProgram, Vec<Operation>), String> {
    let tp = crate::verify::build::trace_program(scop);
    let mut ops: Vec<Operation> = Vec::new();
    // One step per point visited, for all statements together.
    let mut budget = Budget::steps(max_operations);
    for (si, st) in tp.statements.iter().enumerate() {
        let points = domain_points(scop, si, values, &mut budget).map_err(|e| match e {
            crate::poly::PolyError::Budget => format!(
                "the SCoP runs more than {max_operations} operations for the known parameter values (the merging enumerates them)"
            ),
            e => e.to_string(),
        })?;
        for it in points {
            let mut full = values.to_vec();
            full.extend_from_slice(&it);
            let sched = st
                .schedule
                .iter()
                .map(|r| eval_row(r, &full))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| e.to_string())?;
            ops.push((sched, si, it));
        }
    }
    let depth = ops.iter().map(|o| o.0.len()).max().unwrap_or(0);
    for op in ops.iter_mut() {
        op.0.resize(depth, 0);
    }
    ops.sort();
    Ok((tp, ops))
}

/// One value of a temporary that is read, for the known parameter values:
/// the operations (indices in schedule order) that write it and read it
/// last, and the statement instance that writes it.
pub(super) struct ValueLife {
    pub(super) birth: usize,
    pub(super) death: usize,
    pub(super) stmt: usize,
    pub(super) iteration: Vec<i64>,
}

/// The writes of the temporaries (statement, op) and the value lifetimes.
pub(super) type WritesAndLives = (Vec<(usize, usize)>, Vec<ValueLife>);

/// Every write of a temporary (operation, statement), read or not, and the
/// lifetime of every value of the temporaries that is read (sorted by
/// birth).
pub(super) fn writes_and_lifetimes(
    scop: &Scop,
    temps: &[usize],
    values: &[i64],
    max_operations: u64,
) -> Result<WritesAndLives, String> {
    let (tp, ops) = operations(scop, values, max_operations)?;
    // Current writer of each cell of a temporary, and the last read of
    // each written value (by the op that wrote it).
    let mut writer: HashMap<(usize, Vec<i64>), usize> = HashMap::new();
    let mut last_read: HashMap<usize, usize> = HashMap::new();
    let mut writes = Vec::new();
    for (op, (_, si, it)) in ops.iter().enumerate() {
        let st = &tp.statements[*si];
        let mut full = values.to_vec();
        full.extend_from_slice(it);
        let cell = |subs: &[Vec<i64>]| -> Result<Vec<i64>, String> {
            subs.iter()
                .map(|r| eval_row(r, &full))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| e.to_string())
        };
        for acc in &st.reads {
            if temps.contains(&acc.array)
                && let Some(w) = writer.get(&(acc.array, cell(&acc.subscripts)?))
            {
                last_read.insert(*w, op);
            }
        }
        if temps.contains(&st.write.array) {
            writer.insert((st.write.array, cell(&st.write.subscripts)?), op);
            writes.push((op, *si));
        }
    }
    let mut out: Vec<ValueLife> = last_read
        .into_iter()
        .filter(|(w, r)| r > w)
        .map(|(w, r)| ValueLife {
            birth: w,
            death: r,
            stmt: ops[w].1,
            iteration: ops[w].2.clone(),
        })
        .collect();
    out.sort_by_key(|v| (v.birth, v.death));
    Ok((writes, out))
}

/// `out[j][k]`: whether some value of statement `stmts[j]` is live when
/// `stmts[k]` writes (any write, read later or not: it takes a cell), that
/// is, written before the write and read last at or after it (from
/// `writes_and_lifetimes`). This over-approximates the pairs with conflicts
/// (the conflict set wants the last read strictly after).
pub(super) fn overlapping_pairs(
    writes: &[(usize, usize)],
    lifetimes: &[ValueLife],
    stmts: &[usize],
) -> Vec<Vec<bool>> {
    let n = stmts.len();
    let index = |si: usize| stmts.iter().position(|s| *s == si);
    let mut births: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (w, si) in writes {
        if let Some(j) = index(*si) {
            births[j].push(*w);
        }
    }
    for b in births.iter_mut() {
        b.sort_unstable();
    }
    let mut out = vec![vec![false; n]; n];
    for v in lifetimes {
        let Some(j) = index(v.stmt) else {
            continue;
        };
        let (w, r) = (&v.birth, &v.death);
        for k in 0..n {
            if out[j][k] {
                continue;
            }
            // The first birth of k after w.
            let first = births[k].partition_point(|b| b <= w);
            if births[k].get(first).is_some_and(|b| b <= r) {
                out[j][k] = true;
            }
        }
    }
    out
}

/// The largest number of values live at once: a value written by
/// operation `w` and last read by operation `r > w` needs a cell during
/// `[w, r)` (a read and a write of one operation may share a cell); a value
/// never read needs none. Every storage mapping, merged or not, needs at
/// least this many cells.
pub(super) fn max_live_of(lifetimes: &[ValueLife]) -> usize {
    // Sweep: +1 at a write, -1 at its last read.
    let mut events: Vec<(usize, i64)> = Vec::new();
    for v in lifetimes {
        events.push((v.birth, 1));
        events.push((v.death, -1));
    }
    events.sort();
    let (mut live, mut max) = (0i64, 0i64);
    for (_, d) in events {
        live += d;
        max = max.max(live);
    }
    usize::try_from(max).unwrap_or(0)
}
