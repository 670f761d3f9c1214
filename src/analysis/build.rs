//! From the IR to the analysis model: access events of one array, and the
//! affine rows (subscripts, 2d+1 schedules) the models are made of.

use crate::ir::{AccessKind as IrKind, AffExpr, ArrayId, SchedEntry, Scop, Stmt};

use super::model::{AccessEvent, AccessKind, ArrayModel};

/// A row of `width` columns over `[params | iterators | existentials |
/// constant]` from an affine expression over `[params | iterators]`.
pub fn aff_row(expr: &AffExpr, width: usize) -> Vec<i64> {
    let mut row = vec![0; width];
    row[..expr.coeffs.len()].copy_from_slice(&expr.coeffs);
    row[width - 1] = expr.constant;
    row
}

/// The 2d+1 schedule of `stmt` as rows of `width` columns.
pub fn schedule_rows(stmt: &Stmt, n_param: usize, width: usize) -> Vec<Vec<i64>> {
    stmt.schedule
        .iter()
        .map(|entry| {
            let mut row = vec![0; width];
            match *entry {
                SchedEntry::Const(c) => row[width - 1] = c,
                SchedEntry::Iter { index, sign } => row[n_param + index] = sign,
            }
            row
        })
        .collect()
}

/// Every access of `scop` to `array`, one event per domain piece.
pub fn array_model(scop: &Scop, array: ArrayId) -> ArrayModel {
    let n_param = scop.params.len();
    let mut events = Vec::new();
    for (si, stmt) in scop.stmts.iter().enumerate() {
        let accesses = std::iter::once(&stmt.write)
            .chain(stmt.reads.iter())
            .enumerate();
        for (position, access) in accesses {
            if access.array != array {
                continue;
            }
            for piece in &stmt.domain.pieces {
                let width = piece.width();
                events.push(AccessEvent {
                    statement: si,
                    position,
                    kind: match access.kind {
                        IrKind::Read => AccessKind::Read,
                        IrKind::Write => AccessKind::Write,
                    },
                    domain: piece.clone(),
                    schedule: schedule_rows(stmt, n_param, width),
                    subscripts: access
                        .subscripts
                        .iter()
                        .map(|s| aff_row(s, width))
                        .collect(),
                    parallel_levels: stmt
                        .parallel
                        .iter()
                        .enumerate()
                        .filter(|(_, m)| m.is_some())
                        .map(|(k, _)| 2 * k + 1)
                        .collect(),
                });
            }
        }
    }
    let a = scop.array(array);
    ArrayModel {
        name: a.name.clone(),
        params: scop.param_names(),
        rank: a.extents.len(),
        events,
    }
}
