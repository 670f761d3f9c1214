//! Schedule changes before contraction: loop shifting and fusion (seed 003).
//!
//! A value that one loop produces and a later loop consumes lives from the
//! first loop to the second: `A[i]` of seed 003's Example 1 needs all its
//! N cells. Fusing the loops, with the consumer shifted by the dependence
//! distance, makes each value die a few iterations after its birth, and
//! the existing strategies then fold the array to those few cells.
//!
//! What is built (`fusion.rs`, `emit.rs`, `check.rs`):
//! - **Runs.** Consecutive top-level `for` loops of a SCoP (nothing but
//!   white space and comments between them), all of one direction and one
//!   constant stride (`i++`, `i--`, `i += k`, `i -= k`), bounds that are
//!   one affine expression of the parameters each, and an iterator whose
//!   value after the loop is not read. Their bodies may hold anything the
//!   SCoP holds (inner loops, `if`s, several statements). A loop may carry
//!   hint pragmas (`GCC unroll N`, `unroll`, `nounroll`, `GCC novector`,
//!   `clang loop unroll(...)`: [`fusion::hint_pragma`]), the same ones
//!   (token for token) as every loop of its run; any other pragma (`omp`,
//!   `GCC ivdep`, `simd`, unknown) keeps its loop out of runs.
//! - **Iterations.** A loop's values count as iterations of its own order
//!   (`τ = direction · (i − start) / stride`); shifts are lags in
//!   iterations, and the fused loop runs the first loop's values in its
//!   direction and stride. A run that decreases or strides is checked for
//!   its order too ([`nest::order_kept`]).
//! - **Comments** between the loops and in their headers are printed,
//!   each once and in order, before the fused loop; the hints before each
//!   loop of the fused text.
//! - **Shifts.** Loop `b` of a run runs iteration `t` at fused iteration
//!   `t + σ_b`. Every pair of instances of statements of loops `a < b` that
//!   touch the same cell, one of them writing (flow, anti and output
//!   dependences), ran `a` first; it still does when `s_0 + σ_a ≤ t_0 +
//!   σ_b` (at equal fused iterations, the bodies run in the loops' order).
//!   The largest `s_0 − t_0` of each pair of loops is bounded by exact
//!   integer emptiness tests on the dependence polyhedra, symbolic in the
//!   parameters; the shifts are the smallest that meet every bound (a
//!   longest path), which makes every consumer run as early as it may.
//!   A pair whose distance is not bounded by a small constant ends the run.
//! - **Code.** The run becomes a prologue, a steady loop and an epilogue
//!   (`emit.rs`): the steady loop runs every body without a guard; the
//!   prologue and the epilogue run a constant number of iterations, with
//!   the guards that the context does not prove.
//! - **Checked.** The fused text is read back by the front end, and each
//!   statement's instances and accesses must be the original ones shifted,
//!   each instance once (`check.rs`, exact set operations; a strided
//!   loop's instances are compared in its iteration counter, after every
//!   copy is shown to stay on the loop's lattice). What fails the check is
//!   not used.
//! - **Used** when the contraction of the fused program needs fewer cells
//!   than that of the original: the pipeline decides
//!   (`crate::pipeline::variants`). This module proposes schedules and
//!   checks them; it knows nothing of storage.
//!
//! A SCoP whose domains, or the accesses of an array it writes, folded a
//! known value (a product of a parameter and an iterator, `N / 2`) is not
//! fused: its dependences hold for that value only.
//!
//! **Whole runs re-scheduled** (`nest.rs`, `scan.rs`): where the runs
//! cannot fuse inner loops that run under other guards (seed 003's
//! Example 2, song_example2), every statement of a run of top-level items
//! gets a multi-dimensional shift, and the run is printed again by a
//! polyhedral scanner (separation, no guard in the steady loops), then
//! read back and checked exactly: the copies run the original instances
//! with the original accesses, and no two instances that touch one cell
//! run in the other order ([`nest::order_kept`]). It is one more stage,
//! taken like a later round (a quarter fewer cells than the best round).
//!
//! Left out (seed 003 goes further): the network-flow optimum of the
//! shifts (a bounded search around the smallest legal shifts is used),
//! loop interchange, reversal and skewing, runs that mix directions or
//! strides, loops of one run whose hint pragmas differ (refused, not
//! dropped), a strided run's epilogue (its steady loop runs on to the
//! last value, the bodies that end earlier under a guard), bounds that
//! are a `min` or a `max` (runs), and, for whole runs, statements that
//! cannot be placed in the deepest nests' time space (see [`nest`]).

mod bounds;
pub mod check;
pub mod emit;
mod failure;
mod footprint;
pub mod fusion;
pub mod nest;
pub(crate) mod scan;
mod shift_text;
pub mod split;
pub mod trace;

pub use failure::Failure;
pub use fusion::{FusedLoop, FusedRun, plan_fusion};

use crate::ir::{Program, Scop};

/// The front end, run on a changed source (with the options the program
/// was read with).
pub(crate) type ReadBack<'a> = &'a dyn Fn(&str) -> Program;

/// How many times the runs are fused again inside the fused loops
/// (gecos_gaussian's column loops become siblings only once its row
/// loops are fused).
const MAX_ROUNDS: usize = 3;

/// What fusion did to a file: the runs fused and the program the output
/// was made from (the fused source as the front end read it).
#[derive(Clone, Debug)]
pub struct Fusion {
    /// Every run fused, round after round (see [`FusedRun::round`]).
    pub runs: Vec<FusedRun>,
    pub program: Program,
    /// Per fused SCoP: the original statement and the shift of each
    /// iterator of each of its statements (see [`check::check_fused`]).
    pub orders: Vec<(usize, Order)>,
    /// Per SCoP printed again whole by the scanner (see [`nest`]): what
    /// its schedule became.
    pub rescheduled: Vec<(usize, String)>,
    /// Per SCoP whose temporaries were split by reference groups (see
    /// [`split`]): what was split, described.
    pub split: Vec<(usize, String)>,
    /// Per split SCoP: each new array's name and the original array's
    /// (the trace check maps the new names back).
    pub renames: Vec<(usize, Vec<(String, String)>)>,
}

/// Per statement of a fused SCoP: its origin (the original statement, and
/// its iterators in terms of the copy's).
pub(crate) type Order = Vec<check::Origin>;

impl Fusion {
    /// What was done to SCoP `si`, one description per change: the runs
    /// fused, the schedule printed again, the arrays split.
    pub fn describe(&self, si: usize) -> Vec<String> {
        self.runs
            .iter()
            .filter(|r| r.scop == si)
            .map(|r| r.describe())
            .chain(
                self.rescheduled
                    .iter()
                    .chain(&self.split)
                    .filter(|(s, _)| *s == si)
                    .map(|(_, w)| w.clone()),
            )
            .collect()
    }

    /// The checks of [`trace::same_values`] on every fused SCoP at the
    /// original's parameter values `values(si)`: per SCoP, the reads
    /// checked or the first difference.
    pub fn trace_check(
        &self,
        original: &Program,
        values: &dyn Fn(usize) -> Option<Vec<i64>>,
        budget: &mut crate::poly::Budget,
    ) -> Vec<(usize, Result<usize, Failure>)> {
        self.orders
            .iter()
            .filter_map(|(si, order)| {
                let v = values(*si)?;
                let renames = self
                    .renames
                    .iter()
                    .find(|(s, _)| s == si)
                    .map_or(&[][..], |(_, r)| &r[..]);
                Some((
                    *si,
                    trace::same_values(
                        &original.scops[*si],
                        (&self.program.scops[*si], renames),
                        order,
                        &v,
                        budget,
                    ),
                ))
            })
            .collect()
    }
}

/// The schedule variants of the SCoPs `allowed`: the programs of the
/// fusion rounds (each round fuses runs inside the runs the round before
/// fused, each read back and checked exactly against the one before), and
/// the SCoPs re-scheduled whole ([`nest_stage`]). A SCoP whose fused text
/// is not what was meant leaves `allowed` and the rounds start again
/// without it; `kept` gets the runs not fused, with why.
pub(crate) fn fusion_stages(
    program: &Program,
    allowed: &mut Vec<usize>,
    (min_memory, pin_sizes): (bool, bool),
    read_back: ReadBack,
    kept: &mut Vec<(usize, String)>,
) -> (Vec<Fusion>, Option<Fusion>) {
    'restart: while !allowed.is_empty() {
        // The programs of the rounds, each checked against the one before.
        let mut stages: Vec<Fusion> = Vec::new();
        let mut current = program.clone();
        let mut runs_so_far: Vec<FusedRun> = Vec::new();
        let mut composite: Vec<(usize, Order)> = Vec::new();
        for round in 0..MAX_ROUNDS {
            let mut runs: Vec<FusedRun> = allowed
                .iter()
                .flat_map(|&si| plan_fusion(&current, si, min_memory))
                .collect();
            if runs.is_empty() {
                break;
            }
            for r in &mut runs {
                r.round = round;
            }
            let Some((edits, orders, refused)) = emit::fusion_edits(&current, &mut runs) else {
                break;
            };
            for (run, refusal) in refused {
                let why = format!(
                    "{} not fused: {}",
                    emit::describe_loops(&run),
                    refusal.describe()
                );
                if !kept.contains(&(run.scop, why.clone())) {
                    kept.push((run.scop, why));
                }
            }
            if runs.is_empty() {
                break;
            }
            let Ok(text) = crate::codegen::apply_edits(&current.source, &edits) else {
                break;
            };
            let fused = read_back(&text);
            if fused.has_errors() || fused.scops.len() != current.scops.len() {
                break;
            }
            let mut scops: Vec<usize> = runs.iter().map(|r| r.scop).collect();
            scops.dedup();
            for &si in &scops {
                let order = statement_order(&current.scops[si], &runs, &orders, si);
                // A run that decreases or strides is checked for its
                // order too (its lags are counted in its own iterations).
                let reordered = runs
                    .iter()
                    .any(|r| r.scop == si && (r.direction < 0 || r.stride != 1));
                let checked = order.as_ref().map(|order| {
                    let (before, after) = (&current.scops[si], &fused.scops[si]);
                    check::check_fused(before, after, order).and_then(|()| {
                        if reordered {
                            nest::order_kept(before, after, order)
                        } else {
                            Ok(())
                        }
                    })
                });
                let Some(Ok(())) = checked else {
                    // Not what was meant: that SCoP keeps its schedule.
                    allowed.retain(|s| *s != si);
                    continue 'restart;
                };
                let order = order.unwrap_or_default();
                // Compose with the rounds before.
                let before = composite
                    .iter()
                    .find(|(s, _)| *s == si)
                    .map(|(_, o)| o.clone());
                let np = current.scops[si].params.len();
                let composed: Option<Order> = order
                    .iter()
                    .map(|o| match &before {
                        Some(b) => o.then(&b[o.stmt], np),
                        None => Some(o.clone()),
                    })
                    .collect();
                let Some(composed) = composed else {
                    allowed.retain(|s| *s != si);
                    continue 'restart;
                };
                composite.retain(|(s, _)| *s != si);
                composite.push((si, composed));
            }
            composite.sort_by_key(|(s, _)| *s);
            runs_so_far.extend(runs);
            current = fused;
            stages.push(Fusion {
                runs: runs_so_far.clone(),
                program: current.clone(),
                orders: composite.clone(),
                rescheduled: Vec::new(),
                split: Vec::new(),
                renames: Vec::new(),
            });
        }
        return (
            stages,
            nest_stage(program, (allowed, pin_sizes), read_back, kept),
        );
    }
    (Vec::new(), None)
}

impl Fusion {
    /// What splitting the temporaries of `scops` by `plans` did to
    /// `program`: `fused` (the split program's own fusion) with each split
    /// SCoP's statement order (the identity where nothing was fused), its
    /// description and its renames; `changed` is the split program read
    /// back, used when nothing was fused.
    pub(crate) fn with_splits(
        fused: Option<Fusion>,
        changed: &Program,
        program: &Program,
        (scops, plans): (&[usize], &[split::SplitPlan]),
    ) -> Fusion {
        let mut fusion = fused.unwrap_or_else(|| Fusion {
            runs: Vec::new(),
            program: changed.clone(),
            orders: Vec::new(),
            rescheduled: Vec::new(),
            split: Vec::new(),
            renames: Vec::new(),
        });
        for &si in scops {
            let np = program.scops[si].params.len();
            if !fusion.orders.iter().any(|(s, _)| *s == si) {
                let identity = program.scops[si]
                    .stmts
                    .iter()
                    .enumerate()
                    .map(|(k, s)| check::Origin::identity(k, s.iterators.len(), np))
                    .collect();
                fusion.orders.push((si, identity));
            }
            let these: Vec<&split::SplitPlan> = plans.iter().filter(|p| p.scop == si).collect();
            for p in &these {
                fusion.split.push((si, p.describe(program)));
            }
            fusion
                .renames
                .push((si, these.iter().flat_map(|p| p.renames()).collect()));
        }
        fusion.orders.sort_by_key(|(s, _)| *s);
        fusion
    }
}

/// The SCoPs of `allowed` that [`nest::plan_nests`] re-schedules, printed
/// again by the scanner and read back: those whose copies run the
/// original instances with the original accesses
/// ([`check::check_fused`]) and keep every dependence
/// ([`nest::order_kept`]), under the conditions the text assumes: only
/// with `pin_sizes` when it assumes any (the output would hold from some
/// size on, pinned by a `_Static_assert`). `None` when no SCoP qualifies.
fn nest_stage(
    program: &Program,
    (allowed, pin_sizes): (&[usize], bool),
    read_back: ReadBack,
    kept: &mut Vec<(usize, String)>,
) -> Option<Fusion> {
    // Per SCoP: its plans, each with its text.
    let mut texts: Vec<(usize, Vec<(nest::NestPlan, nest::NestText)>)> = allowed
        .iter()
        .filter_map(|&si| {
            let plans: Vec<_> = nest::plan_nests(program, si)
                .into_iter()
                .filter_map(|plan| match nest::nest_text(program, &plan, true) {
                    // The text specialised to the known sizes assumes them:
                    // without `--pin-sizes`, the one that keeps its guards
                    // on the sizes, valid for every value.
                    Ok(text) if !text.assumed.is_empty() && !pin_sizes => {
                        match nest::nest_text(program, &plan, false) {
                            Ok(general) if general.assumed.is_empty() => {
                                return Some((plan, general));
                            }
                            _ => {}
                        }
                        let (a, b) = plan.lines;
                        let condition =
                            nest::assumed_condition(&program.scops[si], &text.assumed);
                        let why = format!(
                            "lines {a}-{b} not re-scheduled: the new schedule holds only where {condition} (--pin-sizes takes it, pinned by a `_Static_assert`)"
                        );
                        if !kept.contains(&(si, why.clone())) {
                            kept.push((si, why));
                        }
                        None
                    }
                    Ok(text) => Some((plan, text)),
                    Err(why) => {
                        if let Some(why) = why.describe() {
                            let (a, b) = plan.lines;
                            let why = format!("lines {a}-{b} not re-scheduled: {why}");
                            if !kept.contains(&(si, why.clone())) {
                                kept.push((si, why));
                            }
                        }
                        None
                    }
                })
                .collect();
            (!plans.is_empty()).then_some((si, plans))
        })
        .collect();
    while !texts.is_empty() {
        let mut edits = Vec::new();
        for (si, plans) in &texts {
            let mut assumed: Vec<Vec<i64>> = Vec::new();
            for (plan, text) in plans {
                edits.push(crate::codegen::Edit::replace(
                    plan.span.clone(),
                    text.text.clone(),
                ));
                for row in &text.assumed {
                    if !assumed.contains(row) {
                        assumed.push(row.clone());
                    }
                }
            }
            assume_edit(program, &program.scops[*si], &assumed, &mut edits);
        }
        let text = crate::codegen::apply_edits(&program.source, &edits).ok()?;
        let fused = read_back(&text);
        if fused.has_errors() || fused.scops.len() != program.scops.len() {
            return None;
        }
        let mut bad = Vec::new();
        let mut orders: Vec<(usize, Order)> = Vec::new();
        for (si, plans) in &texts {
            let scop = &program.scops[*si];
            let np = scop.params.len();
            let mut original = scop.clone();
            let mut order: Order = Vec::new();
            let mut k = 0;
            while k < scop.stmts.len() {
                match plans.iter().find(|(p, _)| p.first == k) {
                    Some((p, t)) => {
                        order.extend(t.origins.iter().cloned());
                        for row in &t.assumed {
                            let mut r = original.context.zero_row();
                            let w = r.len();
                            r[..np].copy_from_slice(&row[..np]);
                            r[w - 1] = row[np];
                            original.context.add_ineq(r);
                        }
                        k += p.times.len();
                    }
                    None => {
                        order.push(check::Origin::identity(
                            k,
                            scop.stmts[k].iterators.len(),
                            np,
                        ));
                        k += 1;
                    }
                }
            }
            let fscop = &fused.scops[*si];
            let ok = check::check_fused(&original, fscop, &order)
                .and_then(|()| nest::order_kept(&original, fscop, &order))
                .is_ok();
            if ok {
                orders.push((*si, order));
            } else {
                bad.push(*si);
            }
        }
        if bad.is_empty() {
            orders.sort_by_key(|(si, _)| *si);
            let rescheduled = texts
                .iter()
                .flat_map(|(si, plans)| {
                    plans
                        .iter()
                        .map(|(plan, _)| (*si, plan.describe(&program.scops[*si])))
                })
                .collect();
            return Some(Fusion {
                runs: Vec::new(),
                program: fused,
                orders,
                rescheduled,
                split: Vec::new(),
                renames: Vec::new(),
            });
        }
        texts.retain(|(si, _)| !bad.contains(si));
    }
    None
}

/// The `_Static_assert` of the conditions `assumed` the re-scheduled
/// text of `scop` assumes, before the SCoP (before its `#pragma scop`
/// line, else right before its first statement).
fn assume_edit(
    program: &Program,
    scop: &Scop,
    assumed: &[Vec<i64>],
    edits: &mut Vec<crate::codegen::Edit>,
) {
    if assumed.is_empty() {
        return;
    }
    let condition = nest::assumed_condition(scop, assumed);
    let source = &program.source;
    let indent = crate::util::c_text::indent_of_line(source, scop.span.start);
    // Within the line width (the first line without its indent).
    let line = crate::codegen::notes::static_assert_lines(
        &indent,
        &condition,
        "polyfold: the schedule of this SCoP is certified only where this condition holds",
    )
    .join("\n");
    let line = line
        .strip_prefix(indent.as_str())
        .unwrap_or(&line)
        .to_string();
    // Before the pragmas of the first statement (`#pragma omp parallel
    // for` applies to the loop right after it).
    let start = scop
        .items
        .first()
        .and_then(|i| i.pragmas.first())
        .map_or(scop.span.start, |p| {
            source[..p.start].rfind('\n').map_or(0, |n| n + 1)
        });
    let before = &source[..start];
    let pragma = before.rfind("#pragma scop").filter(|&at| {
        source[at..start]
            .split_once('\n')
            .is_some_and(|(_, rest)| rest.trim().is_empty())
    });
    match pragma {
        Some(at) => {
            let line_start = before[..at].rfind('\n').map_or(0, |p| p + 1);
            edits.push(crate::codegen::Edit::replace(
                line_start..line_start,
                format!("{indent}{line}\n"),
            ));
        }
        None if start < scop.span.start => edits.push(crate::codegen::Edit::replace(
            start..start,
            format!("{indent}{line}\n"),
        )),
        None => edits.push(crate::codegen::Edit::replace(
            start..start,
            format!("{line}\n{indent}"),
        )),
    }
}
/// The original statement and the shift of every statement of the fused
/// SCoP `si`, in order: the runs' statements as printed, the others as
/// they were.
fn statement_order(
    scop: &Scop,
    runs: &[FusedRun],
    orders: &[Vec<(usize, i64)>],
    si: usize,
) -> Option<Order> {
    let np = scop.params.len();
    let zero = |k: usize| vec![0i64; scop.stmts[k].iterators.len()];
    let origin = |k: usize, shift: &[i64]| check::Origin::shifted(k, shift, np);
    let mut out = Vec::new();
    let mut k = 0;
    while k < scop.stmts.len() {
        let span = &scop.stmts[k].span;
        if let Some((r, run)) = runs
            .iter()
            .enumerate()
            .find(|(_, r)| r.scop == si && r.span.start <= span.start && span.end <= r.span.end)
        {
            for (s, shift) in &orders[r] {
                let mut v = zero(*s);
                if *shift != 0 {
                    v[run.depth] = *shift;
                }
                out.push(origin(*s, &v)?);
            }
            while k < scop.stmts.len() && scop.stmts[k].span.start < run.span.end {
                k += 1;
            }
            continue;
        }
        out.push(origin(k, &zero(k))?);
        k += 1;
    }
    Some(out)
}
