//! Schedule variants, chosen by the storage they need: the original
//! schedule's contraction, then the variants that `crate::schedule`
//! proposes and checks (fusion rounds, whole runs re-scheduled,
//! temporaries split by reference groups), each contracted by
//! `super::contract_program`. A variant is kept when its temporaries
//! need at least a quarter fewer cells (fewer, with `--min-memory`) at
//! the known parameter values, or at two sample sizes.

use crate::ir::{Program, Scop};
use crate::schedule::{Fusion, ReadBack};

use super::error::Error;
use super::options::ContractOptions;
use super::record::{ArrayOutcome, FileContraction};

/// The passes on one schedule (`super::contract_program`).
pub(super) type Contract<'a> =
    &'a dyn Fn(&Program, &ContractOptions) -> Result<FileContraction, Error>;

/// The contraction of `program` on its best schedule: the original, or
/// the fusion stage (see [`crate::schedule::fusion_stages`]) whose SCoPs
/// need fewer cells; with the [`Fusion`] when one is used (whose
/// program the contraction's records index).
pub(super) fn best_schedule(
    program: &Program,
    options: &ContractOptions,
    (read_back, contract_program): (ReadBack, Contract),
) -> Result<(FileContraction, Option<Fusion>), Error> {
    let mut base = contract_program(program, options)?;
    if !options.fusion {
        return Ok((base, None));
    }
    // The runs not fused, and why.
    let mut kept: Vec<(usize, String)> = Vec::new();
    let mut allowed: Vec<usize> = (0..program.scops.len())
        .filter(|&si| {
            base.decisions
                .iter()
                .any(|d| d.scop == si && !matches!(d.outcome, ArrayOutcome::External))
        })
        .collect();
    if !options.min_memory {
        for &si in &allowed {
            for why in walks_apart(program, si) {
                if !kept.contains(&(si, why.clone())) {
                    kept.push((si, why));
                }
            }
        }
    }
    while !allowed.is_empty() {
        let (mut stages, rescheduled) = crate::schedule::fusion_stages(
            program,
            &mut allowed,
            (options.min_memory, options.pin_sizes),
            read_back,
            &mut kept,
        );
        // The whole SCoPs re-scheduled, last: like a later round, it must
        // save a quarter over the best of the rounds.
        if let Some(stage) = rescheduled {
            if options.reschedule_always {
                let mut contraction = contract_program(&stage.program, options)?;
                contraction.schedule_kept = kept;
                return Ok((contraction, Some(stage)));
            }
            stages.push(stage);
        }
        if stages.is_empty() {
            break;
        }
        // Only the best stage is contracted fully.
        let Some(stage) = best_stage(stages, options, contract_program, &mut kept)? else {
            break;
        };
        // Merged buffers are not searched on a fused program: the
        // conflicts of its interleaved statements make that search take
        // tens of seconds where folding each array alone takes a few.
        let full = ContractOptions {
            inter_array: false,
            ..options.clone()
        };
        let mut contraction = contract_program(&stage.program, &full)?;
        let mut worse: Vec<usize> = stage
            .orders
            .iter()
            .map(|(si, _)| *si)
            .filter(|si| {
                smaller(
                    program,
                    &base,
                    &stage.program,
                    &contraction,
                    (*si, options.min_memory),
                )
                .is_none()
            })
            .collect();
        if !options.min_memory {
            let refused =
                modulo_inside_loops(&stage, &contraction)
                    .into_iter()
                    .chain(modulo_varying_inside(
                        program,
                        &stage,
                        (&contraction, &base),
                    ));
            for (si, why) in refused {
                if !worse.contains(&si) {
                    worse.push(si);
                    kept.push((si, why));
                }
            }
        }
        if worse.is_empty() {
            contraction.schedule_kept = kept;
            return Ok((contraction, Some(stage)));
        }
        // Without the SCoPs that fusion does not shrink.
        allowed.retain(|s| !worse.contains(s));
    }
    base.schedule_kept = kept;
    Ok((base, None))
}

/// The runs of SCoP `si` that only `--min-memory` plans, because an
/// inner loop walks an array across its rows (measured slower fused:
/// song_example2's column loops 2.4 times, 2mm's rows 1.1 to 1.5 times
/// at its large sizes), as the report says them: the schedule change not
/// tried by default, and why.
fn walks_apart(program: &Program, si: usize) -> Vec<String> {
    let default = crate::schedule::plan_fusion(program, si, false);
    crate::schedule::plan_fusion(program, si, true)
        .into_iter()
        .filter(|run| {
            !default.iter().any(|d| {
                run.loops
                    .iter()
                    .all(|l| d.loops.iter().any(|m| m.line == l.line))
            })
        })
        .map(|run| {
            let lines: Vec<String> = run.loops.iter().map(|l| l.line.to_string()).collect();
            format!(
                "loops at lines {} not fused: an inner loop walks an array across its rows, \
                 measured slower fused (--min-memory takes it)",
                lines.join(", ")
            )
        })
        .collect()
}

/// The SCoPs of `stage` where a run fused inside an enclosing loop
/// leaves a folded array with a `%` in an innermost loop, and why they
/// are refused. Inside a time loop the arrays are small and read again
/// on every step: the `%` costs more than the cache saves (pingpong1d,
/// `P` folded to 2 cells in the fused copy-back loop: 1.22 times slower
/// at gcc -O3 -march=native, `polyfold bench --speed`, median of 7;
/// pingpong_local 1.20; pingpong2d 1.00). Fused at the top level, the
/// same fold pays (song_example1 0.63, filter_chain 0.54).
fn modulo_inside_loops(stage: &Fusion, contraction: &FileContraction) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (si, _) in &stage.orders {
        let Some(run) = stage.runs.iter().find(|r| r.scop == *si && r.depth > 0) else {
            continue;
        };
        let folded: Vec<&str> = contraction
            .decisions
            .iter()
            .filter(|d| d.scop == *si && d.inner_modulo.is_some())
            .map(|d| d.name.as_str())
            .collect();
        if let Some(name) = folded.first() {
            out.push((
                *si,
                format!(
                    "{} inside the loop of `{}`: `{name}` would keep a `%` in the fused loop, \
                     measured up to 1.22 times slower inside a time loop (--min-memory takes it)",
                    run.describe(),
                    run.outer.first().map_or("?", |s| s.as_str()),
                ),
            ));
        }
    }
    out
}

/// The SCoPs of `stage` re-scheduled whole whose contraction leaves a `%`
/// that varies with the iterator of an innermost loop where the original
/// schedule's (`base`) leaves none, and why they are refused. Such a `%` (a skewed
/// fold of a re-scheduled nest, `a[(2 * j - i) % (2 * N)]`) stops the
/// vectorisation of that loop: the interior-only Jacobi smoother
/// (tests/cost_rule/jacobi_interior.c), whose unfused stencils vectorise,
/// re-scheduled as one skewed nest ran 3.0 (-O2) and 4.7 (-O3
/// -march=native) times slower at N = 64, in the cache (3.5 and 4.1 at
/// N = 128), and 1.8 and 1.9 times at N = 1024 (`polyfold bench --speed
/// --opt O2,O3 --size cache,memory`, medians of 7 pairs). A
/// `%` the same on every iteration of the loop, computed once outside
/// it, does not count; nor does a SCoP whose original inner loops walk
/// some array across its rows (they vectorise badly already): there the
/// re-scheduled song_example2, `ZA[j % 2]` and `ZB[(k + JN - j) % JN]` in
/// its inner loop, ran 0.85 and 0.45 (-O2, cache and memory-bound sizes)
/// and 1.22 and 0.96 (-O3 -march=native) of the original's time, for 2
/// and 24 cells instead of 572 each.
fn modulo_varying_inside(
    program: &Program,
    stage: &Fusion,
    (contraction, base): (&FileContraction, &FileContraction),
) -> Vec<(usize, String)> {
    let varying = |record: &FileContraction, si: usize| {
        record
            .decisions
            .iter()
            .filter(|d| d.scop == si)
            .find_map(|d| {
                let inner = d.inner_modulo.as_ref()?;
                let l = inner.loops.iter().find(|l| l.varying > 0)?;
                Some((d.name.clone(), l.iterator.clone()))
            })
    };
    let mut out = Vec::new();
    for (si, _) in &stage.orders {
        // Runs fused inside a loop are judged by `modulo_inside_loops`;
        // runs fused at the top level keep their `%` (their fused loop is
        // the innermost one, and there fusion ran faster at the
        // memory-bound sizes, see `carried_inside_loops`).
        if !stage.rescheduled.iter().any(|(s, _)| s == si)
            || varying(base, *si).is_some()
            || !super::strategy::cost::innermost_contiguous(&program.scops[*si])
        {
            continue;
        }
        if let Some((name, iterator)) = varying(contraction, *si) {
            let what = stage.describe(*si).join("; ");
            out.push((
                *si,
                format!(
                    "{what}: `{name}` would keep a `%` varying with `{iterator}` in an innermost loop, \
                     which stops its vectorisation: measured up to 4.7 times slower \
                     (--min-memory takes it)"
                ),
            ));
        }
    }
    out
}

/// The SCoPs of `stage` where a run fused inside an enclosing loop, or
/// the SCoP re-scheduled whole, hands values on from one iteration of an
/// innermost loop to the next through storage: rotating scalars that the
/// loop shifts, or rotating indices that it advances; and why they are
/// refused. The original loops vectorised; these no longer do:
/// gecos_gaussian, its two `j` loops fused inside the `i` loop with
/// `tmp` in three rotating scalars, ran 1.72 (1.69-1.80) times slower at
/// -O3 -march=native in the cache (M = 80, N = 40) and 1.05 (1.02-1.07)
/// at M = 2560, N = 1280, 1.11 (1.09-1.25) at -O2 in the cache
/// (`polyfold bench --speed --opt O2,O3 --size cache,memory`, medians of
/// 11 pairs); re-scheduled whole, the same nest keeps `tmp[j % 3]` with
/// rotating indices advanced by `j`. Runs fused at the top level are
/// not refused: their fused loop is the innermost one, and fused there
/// the same forms ran faster at the memory-bound sizes (filter_chain
/// 0.62-0.69, song_example1 0.90).
fn carried_inside_loops(stage: &Fusion, contraction: &FileContraction) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    for (si, _) in &stage.orders {
        // The innermost loops' iterators that the check concerns.
        let mut iterators: Vec<&str> = stage
            .runs
            .iter()
            .filter(|r| r.scop == *si && r.depth > 0)
            .filter_map(|r| r.loops.first().map(|l| l.iterator.as_str()))
            .collect();
        if stage.rescheduled.iter().any(|(s, _)| s == si) {
            let scop = &stage.program.scops[*si];
            iterators.extend(
                scop.stmts
                    .iter()
                    .filter_map(|st| st.iterators.last())
                    .map(String::as_str),
            );
        }
        if iterators.is_empty() {
            continue;
        }
        let carried = contraction
            .decisions
            .iter()
            .filter(|d| d.scop == *si)
            .find_map(|d| {
                let by_scalars = d
                    .scalars
                    .as_ref()
                    .filter(|(_, by)| iterators.contains(&by.as_str()))
                    .map(|(_, by)| ("rotating scalars shifted", by.clone()));
                let by_indices = d
                    .rotating
                    .iter()
                    .find(|(by, _, _)| iterators.contains(&by.as_str()))
                    .map(|(by, _, _)| ("rotating indices advanced", by.clone()));
                Some((d.name.clone(), by_scalars.or(by_indices)?))
            });
        if let Some((name, (form, iterator))) = carried {
            out.push((
                *si,
                format!(
                    "{} not taken: `{name}` would be {form} by the innermost loop of `{iterator}`, \
                     which hands values on from one iteration to the next and stops its \
                     vectorisation: measured up to 1.72 (gecos_gaussian) and 4.7 (a Jacobi \
                     smoother whose stencils vectorise) times slower (--min-memory takes it)",
                    stage.describe(*si).join("; "),
                ),
            ));
        }
    }
    out
}

/// The stage whose fused SCoPs need the fewest cells by a quick
/// contraction (no lattice search, no merged buffers), the earliest on
/// ties; a later stage must save a quarter over the best before it.
fn best_stage(
    stages: Vec<Fusion>,
    options: &ContractOptions,
    contract_program: Contract,
    kept: &mut Vec<(usize, String)>,
) -> Result<Option<Fusion>, Error> {
    let quick = ContractOptions {
        lattices: false,
        inter_array: false,
        record_max_live: false,
        ..options.clone()
    };
    let mut best: Option<(Cells, Fusion)> = None;
    for stage in stages {
        let c = contract_program(&stage.program, &quick)?;
        let cells = stage
            .orders
            .iter()
            .try_fold(Vec::new(), |mut acc, (si, _)| {
                let scop = &stage.program.scops[*si];
                let values = sample_values(scop).into_iter().next()?;
                acc.extend(array_cells(scop, &c, *si, &values)?);
                Some(acc)
            });
        let Some(cells) = cells else { continue };
        if !options.min_memory {
            let refused = carried_inside_loops(&stage, &c);
            if !refused.is_empty() {
                for entry in refused {
                    if !kept.contains(&entry) {
                        kept.push(entry);
                    }
                }
                continue;
            }
        }
        // A later round must pay for its longer loops and bigger
        // bodies: a quarter fewer cells than the best so far, in the
        // arrays whose cells differ (the cost rule of a `%`;
        // song_example2's column loops, fused for 22 cells of 596,
        // ran 1.5 times slower).
        if best
            .as_ref()
            .is_none_or(|(b, _)| saves_a_quarter(b, &cells, options.min_memory))
        {
            best = Some((cells, stage));
        }
    }
    Ok(best.map(|(_, stage)| stage))
}

/// `(contraction, fusion)` of [`best_schedule`], or better: the
/// temporaries split by reference groups ([`crate::schedule::split`]) and
/// the split program on its best schedule, when that needs fewer cells.
pub(super) fn split_temporaries(
    program: &Program,
    (base, base_fusion): (FileContraction, Option<Fusion>),
    options: &ContractOptions,
    (read_back, contract_program): (ReadBack, Contract),
) -> Result<(FileContraction, Option<Fusion>), Error> {
    use crate::schedule::split;
    let base_program = base_fusion.as_ref().map_or(program, |f| &f.program);
    // The temporaries, per SCoP (what the contraction did not find
    // external).
    let temporaries = |si: usize| -> Vec<String> {
        base.decisions
            .iter()
            .filter(|d| d.scop == si && !matches!(d.outcome, ArrayOutcome::External))
            .map(|d| d.name.clone())
            .collect()
    };
    let taken = std::cell::OnceCell::new();
    let all: Vec<split::SplitPlan> = (0..program.scops.len())
        .flat_map(|si| {
            let temporaries = temporaries(si);
            if temporaries.is_empty() {
                return Vec::new();
            }
            let taken = taken.get_or_init(|| split::source_names(program));
            split::plan_splits_named(program, si, &temporaries, taken)
        })
        .collect();
    let mut scops: Vec<usize> = all.iter().map(|p| p.scop).collect();
    scops.dedup();
    while let Some((changed, plans)) = split::split_program(program, &all, &mut scops, read_back) {
        let split_options = ContractOptions {
            renamed: plans.iter().flat_map(|p| p.renames()).collect(),
            ..options.clone()
        };
        let (contraction, fusion) =
            best_schedule(&changed, &split_options, (read_back, contract_program))?;
        let out_program = fusion.as_ref().map_or(&changed, |f| &f.program);
        // Any saving pays: the split changes names, not the code.
        let worse: Vec<usize> = scops
            .iter()
            .copied()
            .filter(|&si| {
                smaller(base_program, &base, out_program, &contraction, (si, true)).is_none()
            })
            .collect();
        if !worse.is_empty() {
            scops.retain(|si| !worse.contains(si));
            continue;
        }
        let fusion = Fusion::with_splits(fusion, &changed, program, (&scops, &plans));
        return Ok((contraction, Some(fusion)));
    }
    Ok((base, base_fusion))
}

/// The parameter values the sizes are compared at: the known ones, or
/// (some without) two sample sizes.
fn sample_values(scop: &Scop) -> Vec<Vec<i64>> {
    match scop.param_values() {
        Ok(values) => vec![values],
        Err(_) => vec![vec![64; scop.params.len()], vec![1000; scop.params.len()]],
    }
}
/// The cells of some temporaries, each with its SCoP and name (a SCoP's
/// merged buffers as one entry, named `#merged`).
type Cells = Vec<((usize, String), i128)>;

/// Whether the temporaries of SCoP `si` need at least a quarter fewer
/// cells fused than not (with `min_memory`, fewer), counting only the
/// arrays whose cells differ (see [`saves_a_quarter`]): compared at the
/// parameters' known values, or (some without) at two sample sizes,
/// each. Returns the fused cells at the first sample.
fn smaller(
    program: &Program,
    base: &FileContraction,
    fused: &Program,
    contraction: &FileContraction,
    (si, min_memory): (usize, bool),
) -> Option<i128> {
    let scop = &program.scops[si];
    let samples = sample_values(scop);
    let mut first = None;
    for values in &samples {
        let before = array_cells(scop, base, si, values);
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
        let after = fvalues.and_then(|v| array_cells(fscop, contraction, si, &v));
        match (before, after) {
            (Some(b), Some(a)) if saves_a_quarter(&b, &a, min_memory) => {
                first.get_or_insert(a.iter().map(|(_, c)| c).sum());
            }
            _ => return None,
        }
    }
    first
}

/// Whether `after` needs at least a quarter fewer cells than `before`
/// (with `min_memory`, fewer), over the arrays whose cells differ: an
/// array that both count alike (by SCoP and name, one for one) is left
/// out, so that a big temporary that fusion does not touch does not
/// hide what fusing a chain beside it saves. Nothing differing saves
/// nothing.
fn saves_a_quarter(before: &Cells, after: &Cells, min_memory: bool) -> bool {
    let mut rest: Vec<&((usize, String), i128)> = after.iter().collect();
    let mut b: i128 = 0;
    for entry in before {
        match rest.iter().position(|e| *e == entry) {
            Some(k) => {
                rest.swap_remove(k);
            }
            None => b += entry.1,
        }
    }
    let a: i128 = rest.iter().map(|(_, c)| c).sum();
    a < b && (min_memory || a * 4 <= b * 3)
}

/// The cells of the temporaries of SCoP `si` under `record`'s decisions,
/// at parameter values `values`, per array.
fn array_cells(scop: &Scop, record: &FileContraction, si: usize, values: &[i64]) -> Option<Cells> {
    let mut out: Cells = Vec::new();
    for d in record.decisions.iter().filter(|d| d.scop == si) {
        // A merged array's cells are the buffers' (counted below).
        if matches!(
            d.outcome,
            ArrayOutcome::External | ArrayOutcome::Merged { .. }
        ) {
            continue;
        }
        let cells = super::strategy::decision_cells_at(scop, d, values)?;
        out.push(((si, d.name.clone()), i128::from(cells)));
    }
    // Merged buffers: their cells at the known values, or at any values
    // when they are made for every value (their moduli are affine in the
    // parameters).
    for m in record.merged.iter().filter(|m| m.scop == si) {
        let cells = if scop.param_values().ok().as_deref() == Some(values) {
            m.merged_cells
        } else {
            m.storage_for_every_value()?.sol.size(values).ok()?
        };
        out.push(((si, "#merged".to_string()), i128::from(cells)));
    }
    Some(out)
}
#[cfg(test)]
mod tests {
    use super::*;

    fn cells(v: &[(&str, i128)]) -> Cells {
        v.iter().map(|(n, c)| ((0, n.to_string()), *c)).collect()
    }

    #[test]
    fn a_big_array_left_alike_does_not_hide_a_chain_s_saving() {
        // A chain's two intermediates, 2 * 1002 cells, fold to 3 + 3 once
        // fused; a temporary of a million cells beside them is kept
        // alike: 1 002 004 -> 1 000 006 is not a quarter of the whole,
        // but 6 is far below three quarters of 2004.
        let before = cells(&[("big", 1_000_000), ("t1", 1002), ("t2", 1002)]);
        let after = cells(&[("t1", 3), ("big", 1_000_000), ("t2", 3)]);
        assert!(saves_a_quarter(&before, &after, false));
        // Nothing differs: nothing saved.
        assert!(!saves_a_quarter(&before, &before, false));
        assert!(!saves_a_quarter(&before, &before, true));
        // 22 of 596 (song_example2's column loops): not a quarter, but
        // fewer (--min-memory).
        let before = cells(&[("ZA", 296), ("ZB", 300)]);
        let after = cells(&[("ZA", 274), ("ZB", 300)]);
        assert!(!saves_a_quarter(&before, &after, false));
        assert!(saves_a_quarter(&before, &after, true));
        // Exactly a quarter of the differing arrays: 300 -> 225.
        let after = cells(&[("ZA", 296), ("ZB", 225)]);
        assert!(saves_a_quarter(
            &cells(&[("ZA", 296), ("ZB", 300)]),
            &after,
            false
        ));
        // One array shrinks, another grows: the sum of both counts.
        let before = cells(&[("a", 100), ("b", 100)]);
        // (three quarters of 200: 150).
        let after = cells(&[("a", 10), ("b", 140)]);
        assert!(saves_a_quarter(&before, &after, false)); // 150
        let after = cells(&[("a", 10), ("b", 141)]);
        assert!(!saves_a_quarter(&before, &after, false)); // 151
    }
}
