//! From the IR to the trace program that `verify` interprets: the whole
//! SCoP, or the statements that touch one array.

use crate::analysis::build::{aff_row, schedule_rows};
use crate::ir::Scop;

use super::trace::{TraceAccess, TraceArray, TraceProgram, TraceStatement};

/// The trace program of the statements of `scop` that access `array` (read
/// or write): its values, lifetimes and max-live count are those of the
/// whole SCoP, since other statements neither write nor read them and the
/// execution order of the kept ones is unchanged.
pub fn trace_program_of_array(scop: &Scop, array: crate::ir::ArrayId) -> TraceProgram {
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
            storage: crate::verify::Storage::Original,
        })
        .collect();
    TraceProgram {
        arrays,
        statements,
        buffers: Vec::new(),
    }
}
