//! From the IR to the analysis model: access events of one array, and the
//! affine rows (subscripts, 2d+1 schedules) the models are made of.

use crate::ir::{AccessKind as IrKind, AffExpr, ArrayId, SchedEntry, Scop, Stmt};

use super::model::{AccessEvent, AccessKind, ArrayModel};

/// A row of `width` columns over `[params | iterators | existentials |
/// constant]` from an affine expression over `[params | iterators]`.
pub(crate) fn aff_row(expr: &AffExpr, width: usize) -> Vec<i64> {
    let mut row = vec![0; width];
    row[..expr.coeffs.len()].copy_from_slice(&expr.coeffs);
    row[width - 1] = expr.constant;
    row
}

/// The 2d+1 schedule of `stmt` as rows of `width` columns.
pub(crate) fn schedule_rows(stmt: &Stmt, n_param: usize, width: usize) -> Vec<Vec<i64>> {
    entry_rows(&stmt.schedule, n_param, width)
}

/// Schedule entries as rows of `width` columns.
fn entry_rows(entries: &[SchedEntry], n_param: usize, width: usize) -> Vec<Vec<i64>> {
    entries
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

/// `piece` without its `count` dimensions from column `first` and the
/// rows that name them.
fn without_dims(
    piece: &crate::poly::BasicSet,
    first: usize,
    count: usize,
) -> crate::poly::BasicSet {
    if count == 0 {
        return piece.clone();
    }
    let cols = first..first + count;
    let keep = |r: &Vec<i64>| r[cols.clone()].iter().all(|v| *v == 0);
    let mut out = piece.clone();
    out.eqs.retain(keep);
    out.ineqs.retain(keep);
    for r in out.eqs.iter_mut().chain(out.ineqs.iter_mut()) {
        r.drain(cols.clone());
    }
    let n_param = out.space.params.len();
    out.space
        .domain
        .dims
        .drain(first - n_param..first - n_param + count);
    out
}

/// Every access of `scop` to `array`, one event per domain piece.
pub fn array_model(scop: &Scop, array: ArrayId) -> ArrayModel {
    let n_param = scop.params.len();
    let mut events = Vec::new();
    for (si, stmt) in scop.stmts.iter().enumerate() {
        // Quotient dimensions that no access to `array` uses are left out
        // of its model: each is a function of the loops, defined by the
        // only rows that name it, so the loops' domain is the same without
        // them (and the analyses do not carry the extra dimensions).
        let first_q = n_param + stmt.loop_depth();
        let quotients = first_q..n_param + stmt.iterators.len();
        let uses_quotients = std::iter::once(&stmt.write)
            .chain(stmt.reads.iter())
            .filter(|a| a.array == array)
            .any(|a| {
                a.subscripts.iter().any(|s| {
                    s.coeffs
                        .get(quotients.clone())
                        .is_some_and(|c| c.iter().any(|v| *v != 0))
                })
            });
        let drop = if uses_quotients { 0 } else { quotients.len() };
        let schedule = &stmt.schedule[..stmt.schedule.len() - 2 * drop];
        let accesses = std::iter::once(&stmt.write)
            .chain(stmt.reads.iter())
            .enumerate();
        for (position, access) in accesses {
            if access.array != array {
                continue;
            }
            for piece in &stmt.domain.pieces {
                let piece = without_dims(piece, first_q, drop);
                let width = piece.width();
                events.push(AccessEvent {
                    statement: si,
                    position,
                    kind: match access.kind {
                        IrKind::Read => AccessKind::Read,
                        IrKind::Write => AccessKind::Write,
                    },
                    domain: piece,
                    schedule: entry_rows(schedule, n_param, width),
                    subscripts: access
                        .subscripts
                        .iter()
                        .map(|s| {
                            let mut coeffs = s.coeffs.clone();
                            coeffs.drain(first_q..first_q + drop);
                            aff_row(
                                &AffExpr {
                                    coeffs,
                                    constant: s.constant,
                                },
                                width,
                            )
                        })
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
