//! Code generation of a SCoP's chosen storage, from certified storage
//! only: dead self-copies deleted, rotating scalars and indices, the
//! remapped accesses and declarations (printed by `crate::codegen`), and
//! the `%` left in innermost loops; then the record of what was emitted.

use crate::codegen::Edit;
use crate::codegen::plan::plan_array_edits;
use crate::codegen::rotate::Rotations;
use crate::ir::{Program, Scop};

use super::certify::{Certified, Storage};
use super::error::Error;
use super::options::ContractOptions;
use super::record::{
    ArrayDecision, ArrayOutcome, FileContraction, InnerLoopModulo, InnerModulo, MergedScop,
};
use super::strategy;

/// The code of the per-array storages of one SCoP.
pub(super) struct PerArrayCode {
    edits: Vec<Edit>,
    rotations: Rotations,
    scalars: crate::codegen::scalars::Scalars,
}

/// Where the rotating indices start and advance and the rotating scalars
/// shift (placed together: one loop's body may get both, and braces once),
/// `dead`: the deleted copies.
fn variable_placements(
    source: &str,
    scop: &Scop,
    rotations: &Rotations,
    scalars: &crate::codegen::scalars::Scalars,
    dead: &[usize],
) -> Vec<Edit> {
    use crate::codegen::placement::{Placed, loop_sites, placement_edits};
    let (sites, _) = loop_sites(scop);
    let mut placed = rotations.placed.clone();
    let mut in_header: Vec<Edit> = Vec::new();
    for (at, list) in &scalars.shifts {
        let site = sites
            .iter()
            .position(|s| s.header.as_ref().is_some_and(|h| h.update_end == *at));
        match site {
            Some(site) => placed.extend(list.iter().map(|update| Placed {
                site,
                name: String::new(),
                header_start: None,
                start: None,
                update: update.clone(),
                declares: None,
            })),
            // Not a loop of the SCoP's tree (never met): the header.
            None => in_header.push(Edit::insert(
                *at,
                list.iter().map(|u| format!(", {u}")).collect::<String>(),
            )),
        }
    }
    let removed: Vec<crate::ir::StmtId> = dead
        .iter()
        .filter_map(|k| scop.stmts.get(*k).map(|s| s.id))
        .collect();
    let mut edits = placement_edits(source, &sites, &placed, &removed);
    edits.extend(in_header);
    edits
}

/// The edits of every per-array storage of SCoP `si`: dead self-copies
/// deleted, rotating scalars, rotating indices and the remapped accesses;
/// records in `decisions` the `%` left in innermost loops.
pub(super) fn per_array_code(
    program: &Program,
    si: usize,
    options: &ContractOptions,
    decisions: &mut [ArrayDecision],
    taken: &mut std::collections::BTreeSet<String>,
) -> Result<(PerArrayCode, Vec<usize>), Error> {
    let scop = &program.scops[si];
    // Copies `A[f] = A[g];` that the new layout of `A` makes `x = x`: they
    // go, with what they leave empty (by syntax nodes), and their
    // subscripts' edits with them.
    let dead = dead_self_copies(&program.source, scop, decisions);
    // The residues that rotating indices compute (not in deleted copies).
    let layouts: Vec<(crate::ir::ArrayId, &crate::mapping::layout::ArrayLayout)> = decisions
        .iter()
        .filter_map(|d| match &d.outcome {
            ArrayOutcome::Remapped { certified, .. } => match certified.storage() {
                Storage::Modular { array, layout, .. } => Some((*array, layout)),
                Storage::Merged(_) => None,
            },
            _ => None,
        })
        .collect();
    // Arrays of at most four cells in rotating scalars (no `%` left), the
    // others' residues in rotating indices.
    let scalars = if options.rotate {
        crate::codegen::scalars::plan_scalars(&program.source, scop, (&layouts, &dead), taken)
    } else {
        crate::codegen::scalars::Scalars::default()
    };
    let layouts: Vec<_> = layouts
        .into_iter()
        .filter(|(a, _)| scalars.of_array(*a).is_none())
        .collect();
    let rotations = if options.rotate {
        crate::codegen::rotate::plan_rotations(&program.source, scop, (&layouts, &dead), taken)
    } else {
        Rotations::default()
    };
    let mut per_array = variable_placements(&program.source, scop, &rotations, &scalars, &dead);
    for d in decisions.iter() {
        if let Some(kept) = scalars.of_array(d.array) {
            per_array.extend(kept.edits.iter().cloned());
            continue;
        }
        if let ArrayOutcome::Remapped { certified, .. } = &d.outcome {
            per_array.extend(emit(
                program,
                scop,
                certified,
                (&rotations, options.pow2_moduli),
            )?);
        }
    }
    if !dead.is_empty() {
        let ids: Vec<crate::ir::StmtId> = dead.iter().map(|k| scop.stmts[*k].id).collect();
        let deletions =
            crate::codegen::delete::statement_deletions(&program.source, &scop.items, &|id| {
                ids.contains(&id)
            });
        per_array.retain(|e| {
            !deletions
                .iter()
                .any(|d| d.range.start <= e.range.start && e.range.end <= d.range.end)
        });
        per_array.extend(deletions);
    }
    // The `%` left in innermost loops, once the outcomes (merged or not)
    // and the deleted copies are known.
    for d in decisions.iter_mut() {
        if let Some(kept) = scalars.of_array(d.array) {
            d.scalars = Some((kept.names.clone(), kept.iterator.clone()));
            continue;
        }
        d.inner_modulo = inner_modulo(
            &program.source,
            scop,
            d,
            (&dead, &rotations, options.pow2_moduli),
            options.min_memory,
        );
        d.rotating = rotations.loops_of_array(&program.source, d.array);
    }
    Ok((
        PerArrayCode {
            edits: per_array,
            rotations,
            scalars,
        },
        dead,
    ))
}

/// Records the per-array code of SCoP `si`: its edits, rotating indices,
/// rotating scalars and deleted copies.
pub(super) fn record_per_array(
    record: &mut FileContraction,
    si: usize,
    (code, dead): (PerArrayCode, Vec<usize>),
) {
    let PerArrayCode {
        edits: per_array,
        rotations,
        scalars,
    } = code;
    record.removed_copies.extend(dead.iter().map(|k| (si, *k)));
    record.edits.extend(per_array);
    for (array, names) in rotations.declarations {
        record.rotating.push((si, array, names));
    }
    for kept in scalars.arrays {
        record.scalars.push((si, kept.array, kept.comment));
    }
}

/// Records the merged buffers `m` of SCoP `scop`, with their edits.
pub(super) fn record_merged(
    program: &Program,
    scop: &Scop,
    options: &ContractOptions,
    mut m: MergedScop,
    record: &mut FileContraction,
) -> Result<(), Error> {
    record.edits.extend(emit(
        program,
        scop,
        &m.certified,
        (&Rotations::default(), options.pow2_moduli),
    )?);
    m.inner_modulo = merged_inner_modulo(
        &program.source,
        scop,
        &m,
        (options.min_memory, options.pow2_moduli),
    );
    record.merged.push(m);
    Ok(())
}

/// The `%` that the merged buffers' subscripts compute inside innermost
/// loops (see [`InnerModulo`]): the `row % m` levels of every access's
/// location (all branches of a conditional counted), from the description
/// the text is printed from; the deleted copies compute none, nor masks
/// (with `masks`: see [`crate::codegen::text::mask_of`]).
fn merged_inner_modulo(
    source: &str,
    scop: &Scop,
    merged: &crate::pipeline::record::MergedScop,
    (min_memory, masks): (bool, bool),
) -> Option<InnerModulo> {
    use crate::verify::{Level, Location};
    fn rem_rows<'a>(location: &'a Location, masks: bool, out: &mut Vec<&'a Vec<i64>>) {
        match location {
            Location::At { levels, .. } => {
                for level in levels {
                    if let Level::Rem { row, modulus } = level
                        && crate::codegen::text::mask_of(modulus, masks).is_none()
                    {
                        out.push(row);
                    }
                }
            }
            Location::Choose(branches) => {
                for (_, l) in branches {
                    rem_rows(l, masks, out);
                }
            }
        }
    }
    let storage = merged.storage();
    let mut loops = ModuloLoops::default();
    for access in &storage.accesses {
        if storage.removed.contains(&access.statement) {
            continue;
        }
        let mut rows = Vec::new();
        rem_rows(&access.location, masks, &mut rows);
        // The rows end with their constant.
        let args = rows.iter().map(|row| &row[..row.len() - 1]);
        loops.add(source, scop, access.statement, args);
    }
    if loops.0.is_empty() {
        return None;
    }
    let why = if min_memory {
        "--min-memory asks for the smallest storage at any price".to_string()
    } else {
        format!(
            "the merged buffers take {} cells where the arrays folded alone take {} (the cost rule accepts it)",
            merged.merged_cells, merged.per_array_cells
        )
    };
    loops.finish(why)
}

/// The statements of `scop` that are pure copies `A[f] = A[g];` of an
/// array folded alone whose mapping sends `f` and `g` to the same cell for
/// every iteration (the mapped subscripts are the same affine function):
/// the copy changes nothing in the new layout.
fn dead_self_copies(source: &str, scop: &Scop, decisions: &[ArrayDecision]) -> Vec<usize> {
    let mut out = Vec::new();
    for (k, stmt) in scop.stmts.iter().enumerate() {
        let [read] = &stmt.reads[..] else { continue };
        if read.array != stmt.write.array {
            continue;
        }
        let Some(mapping) = decisions
            .iter()
            .find(|d| d.array == read.array)
            .and_then(|d| match &d.outcome {
                ArrayOutcome::Remapped { certified, .. } => certified.mapping(),
                _ => None,
            })
        else {
            continue;
        };
        let w = &stmt.write.span;
        let r = &read.span;
        let between = source.get(w.end..r.start).map(str::trim);
        let after = source.get(r.end..stmt.span.end).map(str::trim);
        if w.start != stmt.span.start || between != Some("=") || after != Some(";") {
            continue;
        }
        let image = |subs: &[crate::ir::AffExpr]| -> Option<Vec<(Vec<i64>, i64)>> {
            mapping
                .dims
                .iter()
                // A dimension of modulus 1 sends everything to 0.
                .filter(|dim| {
                    !(dim.modulus.constant == 1 && dim.modulus.coeffs.iter().all(|c| *c == 0))
                })
                .map(|dim| {
                    let width = subs.first().map_or(0, |s| s.coeffs.len());
                    let mut coeffs = vec![0i64; width];
                    let mut constant = 0i64;
                    for (c, sub) in dim.coeffs.iter().zip(subs) {
                        for (acc, v) in coeffs.iter_mut().zip(&sub.coeffs) {
                            *acc = acc.checked_add(c.checked_mul(*v)?)?;
                        }
                        constant = constant.checked_add(c.checked_mul(sub.constant)?)?;
                    }
                    Some((coeffs, constant))
                })
                .collect()
        };
        if mapping
            .dims
            .iter()
            .all(|d| d.coeffs.len() == read.subscripts.len())
            && let (Some(a), Some(b)) = (image(&stmt.write.subscripts), image(&read.subscripts))
            && a == b
        {
            out.push(k);
        }
    }
    out
}

/// Code generation, from certified storage only (with masks for
/// power-of-two number moduli under `--pow2-moduli`).
fn emit(
    program: &Program,
    scop: &Scop,
    certified: &Certified,
    (rotations, masks): (&Rotations, bool),
) -> Result<Vec<Edit>, Error> {
    match certified.storage() {
        Storage::Modular { array, layout, .. } => {
            plan_array_edits(&program.source, scop, *array, layout, (rotations, masks))
                .ok_or_else(|| Error::NoDeclarator(scop.array(*array).name.clone()))
        }
        Storage::Merged(m) => Ok(m.edits.clone()),
    }
}

/// The `%` that the remapped storage of `decision` computes inside
/// innermost loops (see [`InnerModulo`]), with the reason the fold is
/// made; the statements `removed` (deleted copies) compute none, nor do
/// the residues of `rotations`, nor masks (with `masks`).
fn inner_modulo(
    source: &str,
    scop: &Scop,
    decision: &ArrayDecision,
    (removed, rotations, masks): (&[usize], &Rotations, bool),
    min_memory: bool,
) -> Option<InnerModulo> {
    let ArrayOutcome::Remapped {
        certified,
        new_cells,
    } = &decision.outcome
    else {
        return None;
    };
    let layout = certified.layout()?;
    let mut loops = ModuloLoops::default();
    for (si, args) in
        crate::codegen::plan::modulo_uses(source, scop, decision.array, layout, (rotations, masks))
    {
        if !removed.contains(&si) {
            loops.add(source, scop, si, args.iter().map(Vec::as_slice));
        }
    }
    if loops.0.is_empty() {
        return None;
    }
    let why = if min_memory {
        "--min-memory asks for the smallest storage at any price".to_string()
    } else {
        match (decision.original_cells, new_cells, &decision.formula) {
            (Some(old), Some(new), _) if old > 0 => format!(
                "it saves {} of {old} cells ({} %; the cost rule asks at least {} %)",
                old - new,
                (old - new) * 100 / old,
                100 * strategy::cost::MIN_SAVED_NUM / strategy::cost::MIN_SAVED_DEN
            ),
            (_, _, Some(f)) => format!(
                "it takes {} cells to {} (the cost rule: a lower degree in the parameters, or at least a quarter saved at the probe sizes)",
                f.original,
                f.new.as_deref().unwrap_or(&f.original)
            ),
            _ => "the cost rule accepts its size".to_string(),
        }
    };
    loops.finish(why)
}

/// The `%` of some accesses counted per innermost loop (by the loop's
/// schedule prefix), for [`InnerModulo`].
#[derive(Default)]
struct ModuloLoops(Vec<(Vec<crate::ir::SchedEntry>, InnerLoopModulo)>);

impl ModuloLoops {
    /// Counts the `%` of statement `si` whose arguments have the
    /// coefficients `args` (over `[params | iterators]`), when `si` is in
    /// an innermost loop.
    fn add<'a>(
        &mut self,
        source: &str,
        scop: &Scop,
        si: usize,
        args: impl IntoIterator<Item = &'a [i64]>,
    ) {
        let args: Vec<&[i64]> = args.into_iter().collect();
        if args.is_empty() || !scop.in_innermost_loop(si) {
            return;
        }
        let stmt = &scop.stmts[si];
        let depth = stmt.loop_depth();
        let key = stmt.schedule[..2 * depth].to_vec();
        let line = crate::diag::line_col(source, stmt.span.start).0;
        let entry = match self.0.iter().position(|(k, _)| *k == key) {
            Some(k) => &mut self.0[k].1,
            None => {
                self.0.push((
                    key,
                    InnerLoopModulo {
                        iterator: stmt.iterators[depth - 1].clone(),
                        lines: Vec::new(),
                        varying: 0,
                        invariant: 0,
                    },
                ));
                &mut self.0.last_mut().expect("just pushed").1
            }
        };
        if !entry.lines.contains(&line) {
            entry.lines.push(line);
        }
        let n_param = scop.params.len();
        for arg in args {
            // The innermost loop's column, or a quotient of the loops.
            if arg.iter().skip(n_param + depth - 1).any(|c| *c != 0) {
                entry.varying += 1;
            } else {
                entry.invariant += 1;
            }
        }
    }

    fn finish(self, why: String) -> Option<InnerModulo> {
        (!self.0.is_empty()).then(|| InnerModulo {
            loops: self.0.into_iter().map(|(_, l)| l).collect(),
            why,
        })
    }
}
