//! Human and JSON reports of a contraction: one row per array with its
//! class, sizes, mapping, method, lower bound, time and the reason for
//! whatever was decided. With [`Timings::Omitted`] (`--no-timings`) no
//! time is printed, so a report depends only on the input and the flags
//! and can be compared as a snapshot.

use std::fmt::Write;

use serde_json::{Value, json};

use crate::ir::Program;
use crate::mapping::smo::{
    ConflictSpec, SmoOptions, SmoSolution, SmoVerdict, baseline, certify_fixed, certify_symbolic,
    parse_smo_input, smo_solve,
};
use crate::pipeline::merged::{MergedReport, TraceCheck};
use crate::pipeline::{ArrayDecision, ArrayOutcome, FileContraction, Optimality};

/// Whether a report prints the analysis times (the only part of a report
/// that depends on the machine and its load).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Timings {
    /// Times in milliseconds (the default).
    #[default]
    Shown,
    /// No time at all (`--no-timings`): the report is deterministic.
    Omitted,
}

impl Timings {
    /// `time` in milliseconds with one decimal, or `None` when omitted.
    fn ms(self, time: std::time::Duration) -> Option<String> {
        match self {
            Timings::Shown => Some(format!("{:.1} ms", time.as_secs_f64() * 1e3)),
            Timings::Omitted => None,
        }
    }

    /// ` (T ms)` after a line, or nothing when omitted.
    fn suffix(self, time: std::time::Duration) -> String {
        self.ms(time).map_or(String::new(), |t| format!(" ({t})"))
    }
}

pub(crate) fn mapping_text(d: &ArrayDecision) -> String {
    match &d.outcome {
        ArrayOutcome::Remapped { certified, .. } => {
            certified.mapping_text().unwrap_or_else(|| "-".into())
        }
        _ => "-".into(),
    }
}

/// The report's line for an array whose live-in cells at other sizes were
/// left out (`ArrayDecision::indeterminate_live_in`).
const INDETERMINATE_LIVE_IN: &str = "live-in: a cell read before any write at other sizes only holds \
     an indeterminate value there (an uninitialised local): no storage keeps it";

/// For a storage pinned to the known values, the storage for every value
/// it was chosen over and what the pin buys:
/// `for every value: blurx[…] (176 cells, unimodular reindexing); the
/// pinned one saves 104 of them`.
fn pinned_over_text(d: &ArrayDecision) -> Option<String> {
    let e = d.pinned_over.as_ref()?;
    let saved = d.new_cells().map_or(String::new(), |new| {
        format!("; the pinned one saves {} of them", e.cells - new)
    });
    Some(format!(
        "for every value: {} ({} cells, {}){saved}",
        e.mapping, e.cells, e.method
    ))
}

fn note(d: &ArrayDecision) -> String {
    match &d.outcome {
        ArrayOutcome::External => format!("external: {}", d.classification.reason),
        ArrayOutcome::Kept { why, .. } => format!("kept: {why}"),
        ArrayOutcome::Merged { note, .. } => note.clone(),
        ArrayOutcome::Remapped { certified, .. } => match certified.certificate() {
            crate::mapping::Certificate::ForAllParameters => {
                "certified for every parameter value".into()
            }
            crate::mapping::Certificate::ForValues(v) => {
                format!("certified for the known parameter values {v:?} only")
            }
            crate::mapping::Certificate::FromValues(from) => {
                format!("certified for every parameter value from {from:?} on")
            }
        },
    }
}

/// Every strategy's size and time, e.g. `successive modulo 2304 (3.1 ms),
/// optimal search 1728 (proven optimal, 430.2 ms)`; without times,
/// `successive modulo 2304, optimal search 1728 (proven optimal)`.
fn strategies_text(d: &ArrayDecision, timings: Timings) -> String {
    d.strategies
        .iter()
        .map(|s| {
            let proof = match s.proven_optimal {
                Some(true) => Some("proven optimal".to_string()),
                Some(false) => Some("optimality not proven".to_string()),
                None => None,
            };
            let notes: Vec<String> = proof.into_iter().chain(timings.ms(s.time)).collect();
            if notes.is_empty() {
                format!("{} {}", s.method, s.cells)
            } else {
                format!("{} {} ({})", s.method, s.cells, notes.join(", "))
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The method as the reports name the transformation: with the strides
/// a removed stride divided out (`stride 2 removed`, `strides 2, 3
/// removed`), else the method's name.
pub(crate) fn method_text(d: &ArrayDecision) -> String {
    if d.method == crate::mapping::Method::StrideRemoved
        && let ArrayOutcome::Remapped { certified, .. } = &d.outcome
        && let Some(m) = certified.mapping()
    {
        let strides: Vec<String> = m
            .dims
            .iter()
            .filter(|dim| dim.is_divided())
            .map(|dim| dim.divisor.to_string())
            .collect();
        if !strides.is_empty() {
            return format!(
                "stride{} {} removed",
                if strides.len() == 1 { "" } else { "s" },
                strides.join(", ")
            );
        }
    }
    d.method.to_string()
}

fn opt(v: Option<i64>) -> String {
    v.map_or("?".into(), |x| x.to_string())
}

impl std::fmt::Display for MergedReport {
    /// The report of merged storage, one line each: the sizes, the lower
    /// bound, the chosen candidate, every part's mapping, the removed
    /// copies and the trace check.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = self.at.as_ref().map_or(String::new(), |values| {
            let values: Vec<String> = values.iter().map(|(n, v)| format!("{n} = {v}")).collect();
            format!(" (at {})", values.join(", "))
        });
        writeln!(
            f,
            "SMO on SCoP {}: temporaries {} ({} cells) -> {} buffer(s), {} cells{at}",
            self.scop,
            self.temporaries.join(", "),
            self.original_cells,
            self.buffers,
            self.new_cells
        )?;
        if let Some(lower_bound) = self.lower_bound {
            writeln!(
                f,
                "  lower bound: {lower_bound} values of the temporaries live at once{}",
                if self.new_cells as u64 <= lower_bound as u64 {
                    " (the merged buffers are optimal)"
                } else {
                    ""
                }
            )?;
        }
        writeln!(f, "  chosen: {}", self.chosen)?;
        for location in &self.locations {
            writeln!(f, "  {location}")?;
        }
        for r in &self.removed {
            writeln!(
                f,
                "  removed: {}",
                r.split_whitespace().collect::<Vec<_>>().join(" ")
            )?;
        }
        match self.trace {
            None => Ok(()),
            Some(TraceCheck::Values { reads }) => {
                writeln!(f, "  trace check: {reads} reads see their original values")
            }
            Some(TraceCheck::EveryValue { sizes, reads }) => writeln!(
                f,
                "  proven for every value; trace check at {sizes} sizes: {reads} reads see their original values"
            ),
        }
    }
}

/// A text that sizes an array's storage (a parameter's declarator, a
/// caller's allocation, an allocation's size) and what a remapping
/// changed there.
struct ResizedSite {
    function: String,
    line: usize,
    what: String,
    /// `old -> new` per changed text.
    changes: Vec<String>,
}

/// The sites of a remapped array sized where it is allocated (see
/// [`crate::ir::Array::resize_sites`]), each with its changes.
fn resized_sites(program: &Program, d: &ArrayDecision) -> Vec<ResizedSite> {
    let ArrayOutcome::Remapped { certified, .. } = &d.outcome else {
        return Vec::new();
    };
    let scop = &program.scops[d.scop];
    let (Some(sites), Some(layout)) = (scop.array(d.array).resize_sites(), certified.layout())
    else {
        return Vec::new();
    };
    let Some(extents) = crate::mapping::layout::site_extents(layout, &scop.params) else {
        return Vec::new();
    };
    let params = scop.param_texts();
    sites
        .iter()
        .map(|site| {
            let mut changes = Vec::new();
            for (dim, new) in site.dims.iter().zip(&extents) {
                let Some(new) = new else { continue };
                let new = crate::codegen::text::param_text(new, &params);
                for span in dim {
                    let old = program.source.get(span.clone()).unwrap_or("").trim();
                    changes.push(format!("`{old}` -> `{new}`"));
                }
            }
            ResizedSite {
                function: site.function.clone(),
                line: crate::diag::line_col(&program.source, site.span.start).0,
                what: site.what.clone(),
                changes,
            }
        })
        .collect()
}

/// The SCoPs whose arrays the reports list: those with a temporary (a
/// decision other than external) and those the user marked with
/// `#pragma scop`. The arrays of the other SCoPs (a test harness's loops
/// in `main`, code with nothing to fold) are left out; a caller's array
/// folded where it is allocated belongs to the SCoP that uses it, and is
/// listed there.
pub(crate) fn listed_scops(
    program: &Program,
    c: &FileContraction,
) -> std::collections::BTreeSet<usize> {
    c.decisions
        .iter()
        .filter(|d| {
            !matches!(d.outcome, ArrayOutcome::External)
                || program.scops[d.scop].kind == crate::ir::ScopKind::Pragma
        })
        .map(|d| d.scop)
        .collect()
}

/// The decisions the reports list (see [`listed_scops`]), in order.
pub(crate) fn listed_decisions<'c>(
    program: &Program,
    c: &'c FileContraction,
) -> impl Iterator<Item = &'c ArrayDecision> {
    let listed = listed_scops(program, c);
    c.decisions.iter().filter(move |d| listed.contains(&d.scop))
}

/// The text report of one file.
pub(crate) fn text_report(
    path: &str,
    program: &Program,
    c: &FileContraction,
    timings: Timings,
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{path}:");
    if listed_scops(program, c).is_empty() {
        let _ = writeln!(out, "  no temporary array in any SCoP");
    }
    for d in listed_decisions(program, c) {
        let scop = &program.scops[d.scop];
        let _ = writeln!(
            out,
            "  {}.{}: {}, lower bound {}, {}{}\n    mapping: {}\n    {}",
            scop.function,
            d.name,
            if let ArrayOutcome::Merged { alone, .. } = d.outcome {
                format!(
                    "{} cells -> merged buffers ({alone} cells folded alone)",
                    opt(d.original_cells)
                )
            } else {
                match &d.formula {
                    Some(f) => format!(
                        "{} -> {} cells",
                        f.original,
                        f.new.as_deref().unwrap_or(&f.original)
                    ),
                    None => format!("{} -> {} cells", opt(d.original_cells), opt(d.new_cells())),
                }
            },
            d.max_live.map_or("?".into(), |b| b.to_string()),
            method_text(d),
            timings.suffix(d.time),
            mapping_text(d),
            note(d),
        );
        if !d.parallel_loops.is_empty() {
            let loops: Vec<String> = d
                .parallel_loops
                .iter()
                .map(|(it, m)| m.describe(&program.source, it))
                .collect();
            let _ = writeln!(
                out,
                "    parallel: iterations never share a location (dimension kept): {}",
                loops.join("; ")
            );
        }
        if let Some(inner) = &d.inner_modulo {
            let _ = writeln!(out, "    {inner}");
        }
        for site in resized_sites(program, d) {
            let _ = writeln!(
                out,
                "    resized: {} line {}, {}: {}",
                site.function,
                site.line,
                site.what,
                site.changes.join(", ")
            );
        }
        if !d.rotating.is_empty() {
            let loops: Vec<String> = d
                .rotating
                .iter()
                .map(|(i, line, n)| format!("loop `{i}` at line {line} ({n})"))
                .collect();
            let _ = writeln!(out, "    rotating indices: {}", loops.join("; "));
        }
        if let Some((names, iterator)) = &d.scalars {
            let _ = writeln!(
                out,
                "    rotating scalars: {}, shifted by the loops of `{iterator}`",
                names.join(", ")
            );
        }
        if let Some(masks) = &d.masks {
            let _ = writeln!(out, "    {masks}");
        }
        if let Some(line) = pinned_over_text(d) {
            let _ = writeln!(out, "    {line}");
        }
        if let Some(o) = &d.pin_offer {
            let _ = writeln!(
                out,
                "    pinned: --pin-sizes would give {} cells ({}), valid {}",
                o.cells, o.mapping, o.valid
            );
        }
        if let Some(crate::analysis::values::Lifetimes::Cells(why)) = &d.lifetimes {
            let _ = writeln!(out, "    lifetimes: of cells, a superset: {why}");
        }
        if d.indeterminate_live_in {
            let _ = writeln!(out, "    {INDETERMINATE_LIVE_IN}");
        }
        if !d.strategies.is_empty() {
            let _ = writeln!(out, "    strategies: {}", strategies_text(d, timings));
        }
        if let Some(why) = d.proven_optimal() {
            let _ = writeln!(out, "    {}", why.sentence());
        }
    }
    for m in &c.merged {
        let scop = &program.scops[m.scop];
        let every = m.storage_for_every_value();
        let _ = writeln!(
            out,
            "  SCoP {} in {}: inter-array: {} cells instead of {} folding each array alone{}{}",
            m.scop,
            scop.function,
            m.merged_cells,
            m.per_array_cells,
            every.map_or(String::new(), |e| format!(
                " ({} for every value, declared {})",
                e.new_formula, e.original_formula
            )),
            timings.suffix(m.time)
        );
        for line in m.report.to_string().lines() {
            let _ = writeln!(out, "    {line}");
        }
        if let Some(inner) = &m.inner_modulo {
            let _ = writeln!(out, "    {inner}");
        }
    }
    for (si, why) in &c.not_merged {
        let _ = writeln!(out, "  SCoP {si}: inter-array not used: {why}");
    }
    for (si, why) in &c.schedule_kept {
        let _ = writeln!(out, "  SCoP {si}: {why}");
    }
    out
}

/// The JSON report of one file; with [`Timings::Omitted`] the keys
/// `analysis_ms` and `ms` are left out.
pub fn json_report(path: &str, program: &Program, c: &FileContraction, timings: Timings) -> Value {
    let shown = timings == Timings::Shown;
    let arrays: Vec<Value> = listed_decisions(program, c)
        .map(|d| {
            let scop = &program.scops[d.scop];
            let decl = scop.array(d.array);
            let location = decl.declarator_span.as_ref().map_or(Value::Null, |span| {
                let (line, column) = crate::diag::line_col(&program.source, span.start);
                json!({ "line": line, "column": column })
            });
            let resized: Vec<Value> = resized_sites(program, d)
                .iter()
                .map(|s| {
                    json!({
                        "function": s.function,
                        "line": s.line,
                        "site": s.what,
                        "changes": s.changes,
                    })
                })
                .collect();
            let mut entry = json!({
                "scop": d.scop,
                "function": scop.function,
                "declaration": location,
                "array": d.name,
                "class": match d.outcome { ArrayOutcome::External => "external", _ => "temporary" },
                "reason": d.classification.reason,
                "original_cells": d.original_cells,
                "new_cells": d.new_cells(),
                "mapping": match &d.outcome { ArrayOutcome::Remapped { certified, .. } => certified.mapping_text().map_or(Value::Null, Value::from), _ => Value::Null },
                "method": d.method.to_string(),
                "transformation": method_text(d),
                "lower_bound": d.max_live,
                "note": note(d),
                "strategies": d.strategies.iter().map(|s| {
                    let mut strategy = json!({
                        "method": s.method.to_string(),
                        "cells": s.cells,
                        "proven_optimal": s.proven_optimal,
                    });
                    if shown {
                        strategy["ms"] = json!(s.time.as_secs_f64() * 1e3);
                    }
                    strategy
                }).collect::<Vec<_>>(),
                "optimal": d.proven_optimal().map(Optimality::name),
            });
            if shown {
                entry["analysis_ms"] = json!(d.time.as_secs_f64() * 1e3);
            }
            // Sizes without known values, as C expressions.
            if let Some(f) = &d.formula {
                entry["original_formula"] = json!(f.original);
                entry["new_formula"] = json!(f.new.as_deref().unwrap_or(&f.original));
            }
            if !resized.is_empty() {
                entry["resized"] = Value::from(resized);
            }
            if let Some(crate::analysis::values::Lifetimes::Cells(why)) = &d.lifetimes {
                entry["cell_lifetimes"] = json!(why);
            }
            if let Some(inner) = &d.inner_modulo {
                entry["inner_loop_modulo"] = inner_modulo_json(inner);
            }
            if !d.rotating.is_empty() {
                entry["rotating_indices"] = d
                    .rotating
                    .iter()
                    .map(|(i, line, n)| json!({"loop": i, "line": line, "indices": n}))
                    .collect::<Vec<Value>>()
                    .into();
            }
            if d.indeterminate_live_in {
                entry["indeterminate_live_in"] = json!(INDETERMINATE_LIVE_IN);
            }
            if let Some(o) = &d.pin_offer {
                entry["pin_offer"] = json!({
                    "mapping": o.mapping,
                    "cells": o.cells,
                    "valid": o.valid,
                });
            }
            if let Some(e) = &d.pinned_over {
                entry["pinned_over"] = json!({
                    "mapping": e.mapping,
                    "cells": e.cells,
                    "method": e.method.to_string(),
                    "text": pinned_over_text(d),
                });
            }
            if let Some((names, iterator)) = &d.scalars {
                entry["rotating_scalars"] = json!({"scalars": names, "loop": iterator});
            }
            // `--pow2-moduli`: the moduli rounded up for masks.
            if let Some(masks) = &d.masks {
                entry["masks"] = json!({
                    "moduli": masks.moduli.iter().map(|(from, to)| {
                        json!({ "from": from, "to": to, "mask": to - 1 })
                    }).collect::<Vec<_>>(),
                    "added_cells": masks.added_cells,
                    "refused": masks.refused.iter().map(|(from, to, why)| {
                        json!({ "from": from, "to": to, "why": why.to_string() })
                    }).collect::<Vec<_>>(),
                    "text": masks.to_string(),
                });
            }
            // Only when there are some, so that reports of sequential code
            // keep their shape.
            if !d.parallel_loops.is_empty() {
                entry["parallel_loops"] = d
                    .parallel_loops
                    .iter()
                    .map(|(it, m)| {
                        json!({
                            "iterator": it,
                            "pragma": m.directive,
                            "line": m.line(&program.source),
                        })
                    })
                    .collect::<Vec<_>>()
                    .into();
            }
            entry
        })
        .collect();
    let merged: Vec<Value> = c
        .merged
        .iter()
        .map(|m| {
            let mut entry = json!({
                "scop": m.scop,
                "per_array_cells": m.per_array_cells,
                "merged_cells": m.merged_cells,
                "lower_bound": m.lower_bound,
                "method": m.method.to_string(),
                "report": m.report.to_string(),
            });
            if let Some(inner) = &m.inner_modulo {
                entry["inner_loop_modulo"] = inner_modulo_json(inner);
            }
            if let Some(e) = m.storage_for_every_value() {
                entry["every_value"] = json!(true);
                entry["new_formula"] = json!(e.new_formula);
                entry["original_formula"] = json!(e.original_formula);
            } else {
                entry["every_value"] = json!(false);
            }
            if shown {
                entry["analysis_ms"] = json!(m.time.as_secs_f64() * 1e3);
            }
            entry
        })
        .collect();
    let not_merged: Vec<Value> = c
        .not_merged
        .iter()
        .map(|(si, why)| json!({ "scop": si, "why": why.to_string() }))
        .collect();
    // The temporaries' cells before and after (`null` when a size is not
    // known: symbolic parameters without values).
    let mut original = Some(0i64);
    let mut new = Some(0i64);
    for d in &c.decisions {
        if matches!(d.outcome, ArrayOutcome::External) {
            continue;
        }
        original = original
            .zip(d.original_cells)
            .and_then(|(a, b)| a.checked_add(b));
        if !matches!(d.outcome, ArrayOutcome::Merged { .. }) {
            new = new.zip(d.new_cells()).and_then(|(a, b)| a.checked_add(b));
        }
    }
    for m in &c.merged {
        new = new.and_then(|a| a.checked_add(m.merged_cells));
    }
    // Merged sizes without known values are at probe sizes: no total.
    if original.is_none() {
        new = None;
    }
    let mut record = json!({
        "file": path,
        "arrays": arrays,
        "merged": merged,
        "not_merged": not_merged,
        "totals": { "original_cells": original, "new_cells": new },
    });
    if !c.schedule_kept.is_empty() {
        record["schedule_kept"] = c
            .schedule_kept
            .iter()
            .map(|(si, why)| json!({ "scop": si, "why": why }))
            .collect::<Vec<Value>>()
            .into();
    }
    record
}

/// The text of `polyfold verify`: per SCoP, the number of operations and
/// reads checked, the first wrong read (if any), and the max-live lower
/// bound per array and in total.
pub fn verification_report(
    path: &str,
    program: &Program,
    c: &FileContraction,
    storage: &crate::verify::ProgramStorage,
    reports: &[(usize, crate::verify::TraceReport)],
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{path}:");
    if reports.is_empty() {
        let _ = writeln!(
            out,
            "  nothing to verify: no SCoP with known parameter values"
        );
    }
    for (si, r) in reports {
        let scop = &program.scops[*si];
        let values: Vec<String> = scop
            .params
            .iter()
            .map(|p| {
                format!(
                    "{} = {}",
                    p.name,
                    p.value.map_or("?".into(), |v| v.to_string())
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "  SCoP {si} in {} ({}): {} operations, {} reads checked",
            scop.function,
            values.join(", "),
            r.operations,
            r.reads_checked
        );
        if let Some((_, m)) = storage.merged.iter().find(|(s, _)| s == si) {
            let names: Vec<&str> = m
                .arrays
                .iter()
                .filter_map(|a| scop.arrays.get(*a).map(|a| a.name.as_str()))
                .collect();
            let buffers: Vec<String> = m
                .buffers
                .iter()
                .map(|b| {
                    // The extents at the values of this trace (as a
                    // formula when a value is missing).
                    let dims: String = match scop.param_values() {
                        Ok(v) => b
                            .extents_at(&v)
                            .map(|e| e.iter().map(|e| format!("[{e}]")).collect())
                            .unwrap_or_default(),
                        Err(_) => {
                            let names = scop.param_texts();
                            b.extents
                                .iter()
                                .map(|e| {
                                    format!("[{}]", crate::codegen::text::param_text(e, &names))
                                })
                                .collect()
                        }
                    };
                    format!("{}{dims}", b.name)
                })
                .collect();
            let _ = writeln!(
                out,
                "    merged buffers checked: {} in {}, {} accesses at the locations the output computes{}",
                names.join(", "),
                buffers.join(" "),
                r.merged_accesses,
                match m.removed.len() {
                    0 => String::new(),
                    1 => ", the deleted copy not run".into(),
                    n => format!(", the {n} deleted copies not run"),
                }
            );
        }
        match &r.first_mismatch {
            None => {
                let _ = writeln!(
                    out,
                    "    every read sees the value it sees in the original program"
                );
            }
            Some(m) => {
                // What a place holds: a value written in the SCoP, or
                // what was there before (in a merged buffer: nothing).
                let value = |w: &Option<(String, Vec<i64>)>, merged: bool| match w {
                    Some((s, it)) => format!("the value of {s}{it:?}"),
                    None if merged => "a cell nothing was written to".to_string(),
                    None => "the initial value".to_string(),
                };
                let location = match &m.buffer {
                    Some(b) => format!("{b}{:?}", m.location),
                    None => format!("location {:?}", m.location),
                };
                let access = match m.read {
                    Some(k) => format!("read {k} of {}{:?}", m.array, m.cell),
                    None => format!("the write of {}{:?}", m.array, m.cell),
                };
                let _ = match m.kind {
                    crate::verify::MismatchKind::WrongValue => writeln!(
                        out,
                        "    WRONG: {}{:?} {access} ({location}) would see {} instead of {}",
                        m.statement,
                        m.iteration,
                        value(&m.found_writer, m.buffer.is_some()),
                        value(&m.expected_writer, false)
                    ),
                    crate::verify::MismatchKind::OutOfBounds => writeln!(
                        out,
                        "    WRONG: {}{:?} {access} is at {location}, outside the buffer",
                        m.statement, m.iteration
                    ),
                };
            }
        }
        for (ai, array) in scop.arrays.iter().enumerate() {
            let decision = c
                .decisions
                .iter()
                .find(|d| d.scop == *si && d.array.0 as usize == ai);
            let used = match decision {
                Some(d) if matches!(d.outcome, ArrayOutcome::Merged { .. }) => "merged".into(),
                _ => decision
                    .and_then(|d| d.new_cells())
                    .map_or("?".into(), |v| v.to_string()),
            };
            let _ = writeln!(
                out,
                "    {:<12} max live {:>8}   cells used {:>8}",
                array.name,
                r.max_live.get(ai).copied().unwrap_or(0),
                used
            );
        }
        let _ = writeln!(out, "    {:<12} max live {:>8}", "(all)", r.max_live_total);
    }
    out
}

/// The JSON of the `%` in innermost loops (of an array or of merged
/// buffers).
fn inner_modulo_json(inner: &crate::pipeline::InnerModulo) -> Value {
    json!({
        "loops": inner.loops.iter().map(|l| json!({
            "iterator": l.iterator,
            "lines": l.lines,
            "varying": l.varying,
            "invariant": l.invariant,
        })).collect::<Vec<_>>(),
        "why": inner.why,
    })
}

fn smo_describe(
    out: &mut String,
    spec: &ConflictSpec,
    sol: &SmoSolution,
    values: &[i64],
    prefix: &str,
) -> Result<i64, String> {
    for (ai, array) in sol.arrays.iter().enumerate() {
        let name = format!("{prefix}{ai}");
        let stmts: Vec<String> = array
            .statements
            .iter()
            .map(|s| format!("S{}", s.0))
            .collect();
        let size = array.size(values).map_err(|e| e.to_string())?;
        let _ = writeln!(
            out,
            "  array {name} (statements {}): size {} = {size}",
            stmts.join(", "),
            crate::codegen::mapping_text::size_text(&spec.params, &array.moduli)
        );
        for (s, stmt) in array.statements.iter().enumerate() {
            let _ = writeln!(
                out,
                "    S{}: {}",
                stmt.0,
                crate::codegen::mapping_text::mapping_text(spec, array, &name, s)
            );
        }
    }
    sol.size(values).map_err(|e| e.to_string())
}

/// Parses a `.smo.input` text, runs SMO and the baseline for the given
/// parameter values, certifies both exactly and prints mappings, sizes,
/// verdicts and times. Parameters not given are an error.
pub fn smo_report(
    input_text: &str,
    values: &[(String, i64)],
    opts: &SmoOptions,
) -> Result<String, String> {
    let spec = parse_smo_input(input_text).map_err(|e| e.to_string())?;
    let mut vals = Vec::new();
    for p in &spec.params {
        match values.iter().find(|(n, _)| n == p) {
            Some((_, v)) => vals.push(*v),
            None => return Err(format!("no value given for parameter {p}")),
        }
    }
    let binding: Vec<String> = spec
        .params
        .iter()
        .zip(&vals)
        .map(|(p, v)| format!("{p} = {v}"))
        .collect();
    let binding = binding.join(", ");
    let mut out = String::new();
    let _ = writeln!(
        out,
        "SMO: {} statements, {} conflict polyhedra, {}-dimensional global array space; {}",
        spec.n_statements,
        spec.conflicts.len(),
        spec.n_dim,
        binding
    );
    let start = std::time::Instant::now();
    let smo = smo_solve(&spec, opts).map_err(|e| e.to_string())?;
    let smo_time = start.elapsed();
    let mut smo_size = None;
    match &smo {
        Ok(sol) => {
            let verdict = certify_fixed(&spec, sol, &vals);
            let symbolic = certify_symbolic(&spec, sol);
            if verdict == SmoVerdict::Valid {
                let _ = writeln!(
                    out,
                    "SMO mapping ({} ILP levels, {:.3} s), certified for {binding}{}:",
                    sol.n_levels_solved,
                    smo_time.as_secs_f64(),
                    match symbolic {
                        Ok(true) => " and proven for all parameter values",
                        Ok(false) => " (not proven for all parameter values)",
                        Err(_) => " (symbolic proof undecided)",
                    }
                );
                let size = smo_describe(&mut out, &spec, sol, &vals, "A")?;
                let _ = writeln!(out, "  total size: {size}");
                smo_size = Some(size);
            } else {
                let _ = writeln!(
                    out,
                    "SMO result REJECTED (certification failed: {verdict:?}); not a valid mapping:"
                );
                let _ = smo_describe(&mut out, &spec, sol, &vals, "rejected");
            }
        }
        Err(why) => {
            let _ = writeln!(out, "SMO found no mapping: {why}");
        }
    }
    let start = std::time::Instant::now();
    let base = baseline::baseline(&spec, &vals).map_err(|e| e.to_string())?;
    let base_time = start.elapsed();
    match &base {
        Ok(sol) => {
            let verdict = certify_fixed(&spec, sol, &vals);
            if verdict == SmoVerdict::Valid {
                let _ = writeln!(
                    out,
                    "baseline (successive modulo + rectangular hull, {:.3} s), certified for {binding}:",
                    base_time.as_secs_f64()
                );
                let size = smo_describe(&mut out, &spec, sol, &vals, "B")?;
                let _ = writeln!(out, "  total size: {size}");
                if let Some(s) = smo_size {
                    let _ = writeln!(out, "SMO {s} vs baseline {size}");
                }
            } else {
                let _ = writeln!(out, "baseline REJECTED (certification failed: {verdict:?})");
            }
        }
        Err(why) => {
            let _ = writeln!(out, "baseline failed: {why}");
        }
    }
    Ok(out)
}
