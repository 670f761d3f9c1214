//! From the IR to the trace program that `verify` interprets: the whole
//! SCoP, or the statements that touch one array.

use crate::analysis::build::{aff_row, schedule_rows};
use crate::ir::Scop;

use super::trace::{TraceAccess, TraceArray, TraceProgram, TraceStatement};

/// The trace program of the statements of `scop` that access `array` (read
/// or write): its values, lifetimes and max-live count are those of the
/// whole SCoP, since other statements neither write nor read them and the
/// execution order of the kept ones is unchanged.
pub(crate) fn trace_program_of_array(scop: &Scop, array: crate::ir::ArrayId) -> TraceProgram {
    let mut program = trace_program(scop);
    let a = array.0 as usize;
    program
        .statements
        .retain(|s| s.write.array == a || s.reads.iter().any(|r| r.array == a));
    program
}

/// The whole SCoP as a trace program (every array in its original layout;
/// the caller sets the storage).
pub fn trace_program(scop: &Scop) -> TraceProgram {
    let n_param = scop.params.len();
    let statements = scop
        .stmts
        .iter()
        .map(|stmt| {
            let n_iter = stmt.iterators.len();
            let width = n_param + n_iter + 1;
            let access = |a: &crate::ir::Access| TraceAccess {
                array: a.array.0 as usize,
                subscripts: a.subscripts.iter().map(|s| aff_row(s, width)).collect(),
            };
            TraceStatement {
                name: stmt.name.clone(),
                domain: stmt.domain.pieces.clone(),
                schedule: schedule_rows(stmt, n_param, width),
                reads: stmt.reads.iter().map(access).collect(),
                write: access(&stmt.write),
                removed: false,
            }
        })
        .collect();
    let arrays = scop
        .arrays
        .iter()
        .map(|a| TraceArray {
            name: a.name.clone(),
            storage: super::storage::Storage::Original,
        })
        .collect();
    TraceProgram {
        arrays,
        statements,
        buffers: Vec::new(),
    }
}

/// Traces every SCoP of `program` whose parameters all have known values,
/// with the arrays in `storage` (per-array mappings; merged buffers with
/// every access at the location the emitted program computes, the deleted
/// copies not run). One report per traced SCoP.
pub fn verify_program(
    program: &crate::ir::Program,
    storage: &super::storage::ProgramStorage,
    budget: &mut crate::poly::Budget,
) -> Result<Vec<(usize, super::trace::TraceReport)>, String> {
    let mut reports = Vec::new();
    for (si, scop) in program.scops.iter().enumerate() {
        let Ok(values) = scop.param_values() else {
            continue;
        };
        let mut trace = trace_program(scop);
        for (s, a, array_storage) in &storage.arrays {
            if *s == si {
                let array = trace
                    .arrays
                    .get_mut(*a)
                    .ok_or_else(|| format!("SCoP {si} has no array {a}"))?;
                array.storage = array_storage.clone();
            }
        }
        for &(s, st) in &storage.removed {
            if s == si {
                let stmt = trace
                    .statements
                    .get_mut(st)
                    .ok_or_else(|| format!("SCoP {si} has no statement {st}"))?;
                if stmt.reads.len() != 1 || stmt.reads[0].array != stmt.write.array {
                    return Err(format!(
                        "{}: a removed statement that is not a copy",
                        stmt.name
                    ));
                }
                stmt.removed = true;
            }
        }
        for (s, merged) in &storage.merged {
            if *s == si {
                trace
                    .merge(merged)
                    .map_err(|e| format!("merged storage of SCoP {si}: {e}"))?;
            }
        }
        let report = super::trace::run_trace(&trace, &values, budget)
            .map_err(|e| format!("trace of SCoP {si} failed: {e}"))?;
        reports.push((si, report));
    }
    Ok(reports)
}
