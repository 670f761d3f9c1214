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
//!   white space between them), each with a step of +1, bounds that are
//!   one affine expression of the parameters each, no pragma, and an
//!   iterator whose value after the loop is not read. Their bodies may
//!   hold anything the SCoP holds (inner loops, `if`s, several
//!   statements).
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
//!   each instance once (`check.rs`, exact set operations). What fails the
//!   check is not used.
//! - **Used** when the contraction of the fused program needs fewer cells
//!   than that of the original (`crate::pipeline::contract_with_fusion`).
//!
//! Left out (seed 003 goes further): the network-flow optimum of the
//! shifts when several consumers pull them different ways (the smallest
//! legal shifts are used), fusion below the outermost loop level (loop
//! interchange, multi-dimensional shifting vectors: gecos_gaussian,
//! song_example2), loops with different strides, bounds that are a `min`
//! or a `max`, and runs broken by a statement between the loops.

pub mod check;
pub mod emit;
pub mod fusion;
pub mod trace;

pub use fusion::{FusedLoop, FusedRun, plan_fusion};

use crate::ir::{Program, Scop};
use crate::mapping::layout::DimLayout;
use crate::mapping::modular::ParamAffine;
use crate::pipeline::{ArrayOutcome, ContractOptions, FileContraction, contract_program};

/// What fusion did to a file: the runs fused and the program the output
/// was made from (the fused source as the front end read it).
#[derive(Clone, Debug)]
pub struct Fusion {
    pub runs: Vec<FusedRun>,
    pub program: Program,
    /// Per fused SCoP: the original statement and the shift of each of
    /// its statements (see [`check::check_fused`]).
    pub orders: Vec<(usize, Vec<(usize, i64)>)>,
}

impl Fusion {
    /// The checks of [`trace::same_values`] on every fused SCoP at the
    /// original's parameter values `values(si)`: per SCoP, the reads
    /// checked or the first difference.
    pub fn trace_check(
        &self,
        original: &Program,
        values: &dyn Fn(usize) -> Option<Vec<i64>>,
        budget: &mut crate::poly::Budget,
    ) -> Vec<(usize, Result<usize, String>)> {
        self.orders
            .iter()
            .filter_map(|(si, order)| {
                let v = values(*si)?;
                Some((
                    *si,
                    trace::same_values(
                        &original.scops[*si],
                        &self.program.scops[*si],
                        order,
                        &v,
                        budget,
                    ),
                ))
            })
            .collect()
    }
}

/// The contraction of `program`, with the runs of loops fused where that
/// makes the SCoP's temporaries need fewer cells: `read_back` runs the
/// front end on a fused source (with the options `program` was read
/// with). Returns the contraction and, when some run was fused, the runs
/// and the fused program (whose SCoPs the contraction's records index).
pub fn contract_with_fusion(
    program: &Program,
    options: &ContractOptions,
    read_back: &dyn Fn(&str) -> Program,
) -> Result<(FileContraction, Option<Fusion>), String> {
    let base = contract_program(program, options)?;
    if !options.fusion {
        return Ok((base, None));
    }
    let mut runs: Vec<FusedRun> = (0..program.scops.len())
        .filter(|&si| {
            base.decisions
                .iter()
                .any(|d| d.scop == si && !matches!(d.outcome, ArrayOutcome::External))
        })
        .flat_map(|si| plan_fusion(program, si))
        .collect();
    while !runs.is_empty() {
        let Some((edits, orders)) = emit::fusion_edits(program, &runs) else {
            break;
        };
        let Ok(text) = crate::codegen::apply_edits(&program.source, &edits) else {
            break;
        };
        let fused = read_back(&text);
        if fused.has_errors() || fused.scops.len() != program.scops.len() {
            break;
        }
        // The SCoPs whose fused statements are not the original ones.
        let mut rejected: Vec<usize> = Vec::new();
        let mut scops: Vec<usize> = runs.iter().map(|r| r.scop).collect();
        scops.dedup();
        let mut checked = Vec::new();
        for &si in &scops {
            let order = statement_order(&program.scops[si], &runs, &orders, si);
            if crate::schedule::check::check_fused(&program.scops[si], &fused.scops[si], &order)
                .is_err()
            {
                rejected.push(si);
            }
            checked.push((si, order));
        }
        if rejected.is_empty() {
            let contraction = contract_program(&fused, options)?;
            for &si in &scops {
                if !smaller(program, &base, &fused, &contraction, si) {
                    rejected.push(si);
                }
            }
            if rejected.is_empty() {
                return Ok((
                    contraction,
                    Some(Fusion {
                        runs,
                        program: fused,
                        orders: checked,
                    }),
                ));
            }
        }
        runs.retain(|r| !rejected.contains(&r.scop));
    }
    Ok((base, None))
}

/// The original statement and the shift of every statement of the fused
/// SCoP `si`, in order: the runs' statements as printed, the others as
/// they were.
fn statement_order(
    scop: &Scop,
    runs: &[FusedRun],
    orders: &[Vec<(usize, i64)>],
    si: usize,
) -> Vec<(usize, i64)> {
    let mut out = Vec::new();
    let mut item = 0;
    while item < scop.items.len() {
        if let Some((r, run)) = runs
            .iter()
            .enumerate()
            .find(|(_, r)| r.scop == si && r.loops[0].item == item)
        {
            out.extend(orders[r].iter().copied());
            item = run.loops[run.loops.len() - 1].item + 1;
            continue;
        }
        let span = scop.items[item].node.span();
        out.extend(
            scop.stmts
                .iter()
                .enumerate()
                .filter(|(_, s)| span.start <= s.span.start && s.span.end <= span.end)
                .map(|(k, _)| (k, 0)),
        );
        item += 1;
    }
    out
}

/// Whether the temporaries of SCoP `si` need fewer cells fused than
/// not: compared at the parameters' known values, or (some without) at
/// two sample sizes, where no size may grow and one must fall.
fn smaller(
    program: &Program,
    base: &FileContraction,
    fused: &Program,
    contraction: &FileContraction,
    si: usize,
) -> bool {
    if base.merged.iter().any(|m| m.scop == si) || contraction.merged.iter().any(|m| m.scop == si)
    {
        return false;
    }
    let scop = &program.scops[si];
    let samples: Vec<Vec<i64>> = match scop.param_values() {
        Ok(values) => vec![values],
        Err(_) => vec![vec![64; scop.params.len()], vec![1000; scop.params.len()]],
    };
    let mut fell = false;
    for values in &samples {
        let before = scop_cells(scop, base, si, values);
        // The fused SCoP's parameters, in its own order.
        let fscop = &fused.scops[si];
        let fvalues: Option<Vec<i64>> = fscop
            .params
            .iter()
            .map(|p| {
                scop.params
                    .iter()
                    .position(|q| q.name == p.name)
                    .map(|k| values[k])
            })
            .collect();
        let after = fvalues.and_then(|v| scop_cells(fscop, contraction, si, &v));
        match (before, after) {
            (Some(b), Some(a)) if a <= b => fell |= a < b,
            _ => return false,
        }
    }
    fell
}

/// The cells of the temporaries of SCoP `si` under `record`'s decisions,
/// at parameter values `values`.
fn scop_cells(scop: &Scop, record: &FileContraction, si: usize, values: &[i64]) -> Option<i128> {
    let mut total: i128 = 0;
    for d in record.decisions.iter().filter(|d| d.scop == si) {
        let array = scop.arrays.iter().find(|a| a.id == d.array)?;
        let declared: Vec<Option<ParamAffine>> = ParamAffine::extents_of(array);
        let eval = |a: &ParamAffine| a.eval(values).ok().map(i128::from);
        let original = || -> Option<i128> {
            declared
                .iter()
                .try_fold(1i128, |acc, e| Some(acc * eval(e.as_ref()?)?.max(0)))
        };
        let cells = match &d.outcome {
            ArrayOutcome::External => continue,
            ArrayOutcome::Kept { .. } | ArrayOutcome::Merged { .. } => original()?,
            ArrayOutcome::Remapped { certified, .. } => {
                let layout = certified.layout()?;
                let mut acc: i128 = 1;
                for (k, dim) in layout.dims.iter().enumerate() {
                    let n = match dim {
                        DimLayout::Dropped => 1,
                        DimLayout::Plain { extent: None } => eval(declared.get(k)?.as_ref()?)?,
                        DimLayout::Plain { extent: Some(b) }
                        | DimLayout::Modulo { modulus: b, .. }
                        | DimLayout::Linear { modulus: b, .. } => eval(b)?.max(1),
                        DimLayout::Packed {
                            extent, triangle, ..
                        } => triangle.cells(extent.eval(values).ok()?),
                    };
                    acc = acc.checked_mul(n)?;
                }
                acc
            }
        };
        total = total.checked_add(cells)?;
    }
    Some(total)
}

/// [`contract_with_fusion`] for a program the front end read with
/// `frontend` (every SCoP kept). The contraction's records index the
/// fused program when there is a [`Fusion`], `program` otherwise.
pub fn contract_read(
    program: &Program,
    options: &ContractOptions,
    frontend: &crate::frontend::Options,
) -> Result<(FileContraction, Option<Fusion>), String> {
    let read_back = |text: &str| crate::frontend::extract(&program.path, text, frontend);
    contract_with_fusion(program, options, &read_back)
}
