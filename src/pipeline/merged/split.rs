//! Index-set splitting of the statements that write temporaries, before
//! SMO: a statement whose written cells are only partly rewritten by the
//! other writers of its array is split into the part whose cells some other
//! statement also writes and the pieces whose cells nobody else writes.
//!
//! Why: SMO gives each statement one storage hyperplane. In a ping-pong
//! stencil the initialisation `Q[i] = in[i]` (0 <= i <= N+1) writes the
//! boundary values Q[0] and Q[N+1], which are read at every time step and
//! never rewritten, in the same statement as the interior values, which die
//! after the first step. No single hyperplane gives the two kinds of value
//! a home each: the interior belongs to the sliding window of the time loop
//! (`(i − t) mod (N + 1)`), the boundary values need cells of their own.
//! Split, every part gets its own hyperplane (seed 000 §4 works on the
//! statements it is given; splitting only gives it finer statements).
//!
//! The parts of a statement are disjoint and cover its domain exactly (set
//! difference on integer points), so the split SCoP executes the same
//! operations in the same order: the parts keep the statement's schedule,
//! accesses and name. A statement is left whole when a footprint needs an
//! existential that exact elimination cannot remove, or when a part would be
//! empty for the given parameter values.
//!
//! What this does NOT do: split by anything but footprints (for instance by
//! the readers of the values), or split statements that do not write
//! temporaries.

use crate::ir::{Scop, StmtId};
use crate::poly::project::eliminate_exists_where_exact;
use crate::poly::{BasicSet, PolyResult, Set};

/// A SCoP whose statements are parts of the statements of another.
pub struct SplitScop {
    /// The SCoP of the parts (statement `v` is a part of `origin[v]`).
    pub scop: Scop,
    /// For each part, the index of its statement in the original SCoP.
    pub origin: Vec<usize>,
    /// For each original statement, its parts (in order).
    pub parts: Vec<Vec<usize>>,
    /// For each part, whether no other statement writes its cells (a piece
    /// split off, or a whole statement; the first part of a split statement
    /// is the rest, which is not alone).
    pub alone: Vec<bool>,
}

/// `{ i ∈ piece_a : ∃ i' ∈ piece_b, f_a(i) = f_b(i') }` over statement a's
/// space, with the existentials eliminated where exact.
fn footprint_meet(
    scop: &Scop,
    a: usize,
    piece_a: &BasicSet,
    b: usize,
    piece_b: &BasicSet,
) -> PolyResult<BasicSet> {
    let np = scop.params.len();
    let sa = &scop.stmts[a];
    let sb = &scop.stmts[b];
    let na = sa.iterators.len();
    let nb = sb.iterators.len();
    let (ea, eb) = (piece_a.n_exist, piece_b.n_exist);
    // Columns: [params | i (na) | ea | i' (nb) | eb | const].
    let width = np + na + ea + nb + eb + 1;
    let mut out = BasicSet {
        space: piece_a.space.clone(),
        n_exist: ea + nb + eb,
        eqs: Vec::new(),
        ineqs: Vec::new(),
    };
    // piece_a's rows keep their columns (its existentials come first).
    let map_a = |row: &[i64]| -> Vec<i64> {
        let mut r = vec![0; width];
        r[..np + na + ea].copy_from_slice(&row[..np + na + ea]);
        r[width - 1] = row[row.len() - 1];
        r
    };
    let map_b = |row: &[i64]| -> Vec<i64> {
        let mut r = vec![0; width];
        r[..np].copy_from_slice(&row[..np]);
        r[np + na + ea..np + na + ea + nb + eb].copy_from_slice(&row[np..np + nb + eb]);
        r[width - 1] = row[row.len() - 1];
        r
    };
    for r in &piece_a.eqs {
        out.eqs.push(map_a(r));
    }
    for r in &piece_a.ineqs {
        out.ineqs.push(map_a(r));
    }
    for r in &piece_b.eqs {
        out.eqs.push(map_b(r));
    }
    for r in &piece_b.ineqs {
        out.ineqs.push(map_b(r));
    }
    for (fa, fb) in sa.write.subscripts.iter().zip(&sb.write.subscripts) {
        let mut r = vec![0i64; width];
        for (c, v) in fa.coeffs.iter().enumerate() {
            r[c] = *v;
        }
        for (c, v) in fb.coeffs.iter().enumerate() {
            let col = if c < np { c } else { np + na + ea + (c - np) };
            r[col] = r[col]
                .checked_sub(*v)
                .ok_or(crate::poly::PolyError::Overflow)?;
        }
        r[width - 1] = fa
            .constant
            .checked_sub(fb.constant)
            .ok_or(crate::poly::PolyError::Overflow)?;
        out.eqs.push(r);
    }
    eliminate_exists_where_exact(&out)
}

/// Whether `set` has an integer point for the parameter values `values`,
/// or with `None`, for some parameter value of the SCoP's context.
fn nonempty_at(set: &Set, scop: &Scop, values: Option<&[i64]>) -> PolyResult<bool> {
    let mut fixed = set.clone();
    match values {
        Some(values) => {
            for (p, v) in scop.param_names().iter().zip(values) {
                fixed = fixed.fix_param(p, *v)?;
            }
        }
        None => {
            for piece in fixed.pieces.iter_mut() {
                piece.add_param_constraints(&scop.context);
            }
        }
    }
    Ok(!fixed.is_empty()?)
}

/// For which parameter values a statement is split.
#[derive(Clone, Copy, Debug)]
pub enum SplitFor<'a> {
    /// These values: the parts empty for them are left out.
    Values(&'a [i64]),
    /// Every value of the context, for a search at the `probe` values:
    /// the pieces split off that are empty at the probe values stay in
    /// the rest of the statement (the search would not see them as parts
    /// of their own), those empty for every value are left out.
    EveryValue { probe: &'a [i64] },
}

/// Splits every statement of `writers` (indices of statements writing
/// temporaries) by the footprints of the other writers of its array (see
/// [`SplitFor`] for the parts left out or kept together).
pub fn split_by_footprints(
    scop: &Scop,
    writers: &[usize],
    values: SplitFor<'_>,
) -> PolyResult<SplitScop> {
    let mut domains: Vec<Vec<(Set, bool)>> = Vec::new();
    for (s, stmt) in scop.stmts.iter().enumerate() {
        domains.push(match split_one(scop, writers, s, values)? {
            Some(parts) => parts,
            None => vec![(stmt.domain.clone(), false)],
        });
    }
    let mut out = scop.clone();
    out.stmts.clear();
    let mut origin = Vec::new();
    let mut parts = Vec::new();
    let mut alone = Vec::new();
    for (s, ds) in domains.into_iter().enumerate() {
        let mut mine = Vec::new();
        for (d, is_alone) in ds {
            alone.push(is_alone);
            let mut stmt = scop.stmts[s].clone();
            stmt.id = StmtId(
                u32::try_from(out.stmts.len()).map_err(|_| crate::poly::PolyError::Overflow)?,
            );
            // A part is a statement of its own: named by its position, as
            // `ir::verify` wants (the reports name it after its origin).
            stmt.name = format!("S{}", out.stmts.len());
            stmt.domain = d;
            rename_domain(&mut stmt.domain, &stmt.name);
            for a in std::iter::once(&mut stmt.write).chain(stmt.reads.iter_mut()) {
                rename_domain(&mut a.relation, &stmt.name);
            }
            mine.push(out.stmts.len());
            origin.push(s);
            out.stmts.push(stmt);
        }
        parts.push(mine);
    }
    Ok(SplitScop {
        scop: out,
        origin,
        parts,
        alone,
    })
}

/// The parts of statement `s` with, for each, whether no other statement
/// writes its cells; `None` to keep it whole (and not alone). A statement
/// none of whose cells another writer of its array writes is one part,
/// alone.
fn split_one(
    scop: &Scop,
    writers: &[usize],
    s: usize,
    values: SplitFor<'_>,
) -> PolyResult<Option<Vec<(Set, bool)>>> {
    if !writers.contains(&s) {
        return Ok(None);
    }
    let stmt = &scop.stmts[s];
    let others: Vec<usize> = writers
        .iter()
        .copied()
        .filter(|o| *o != s && scop.stmts[*o].write.array == stmt.write.array)
        .collect();
    if others.is_empty() {
        return Ok(None);
    }
    // The part of the domain whose cells some other writer also writes.
    let mut shared = Set::empty(stmt.domain.space.clone());
    for pa in &stmt.domain.pieces {
        for &o in &others {
            for pb in &scop.stmts[o].domain.pieces {
                let m = footprint_meet(scop, s, pa, o, pb)?;
                if m.n_exist > 0 {
                    return Ok(None);
                }
                shared.push(m);
            }
        }
    }
    let Some(alone) = stmt.domain.subtract(&shared)? else {
        return Ok(None);
    };
    let Some(rest) = stmt.domain.subtract(&alone)? else {
        return Ok(None);
    };
    // The parts are told apart by conditions in the generated code:
    // no existentials (strides) in them.
    if rest
        .pieces
        .iter()
        .chain(&alone.pieces)
        .any(|p| p.n_exist > 0)
    {
        return Ok(None);
    }
    let (known, probe) = match values {
        SplitFor::Values(v) => (Some(v), None),
        SplitFor::EveryValue { probe } => (None, Some(probe)),
    };
    let mut rest = rest;
    let mut apart = Vec::new();
    for piece in alone.pieces {
        let p = Set::from_basic(piece);
        if !nonempty_at(&p, scop, known)? {
            continue;
        }
        if let Some(probe) = probe
            && !nonempty_at(&p, scop, Some(probe))?
        {
            rest.pieces.extend(p.pieces);
        } else {
            apart.push(p);
        }
    }
    if !nonempty_at(&rest, scop, known)? {
        // Nothing of it is rewritten by another statement.
        return Ok(Some(vec![(stmt.domain.clone(), true)]));
    }
    let mut parts = vec![(rest, false)];
    parts.extend(apart.into_iter().map(|p| (p, true)));
    if parts.len() < 2 {
        return Ok(None);
    }
    Ok(Some(parts))
}

/// Names the domain tuple of `set` (and of its pieces) `name`.
fn rename_domain(set: &mut Set, name: &str) {
    if set.space.domain.name.is_some() {
        set.space.domain.name = Some(name.to_string());
    }
    for piece in &mut set.pieces {
        if piece.space.domain.name.is_some() {
            piece.space.domain.name = Some(name.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{SplitFor, split_by_footprints};

    /// The first SCoP of `text`, its parameter values, and its split for
    /// the writers `writers`.
    fn split_text(text: &str, writers: &[usize]) -> (crate::ir::Scop, Vec<i64>, super::SplitScop) {
        let program = crate::frontend::extract("t.c", text, &crate::frontend::Options::default());
        assert!(!program.has_errors());
        let scop = program.scops[0].clone();
        let values = crate::pipeline::param_values(&scop).unwrap();
        let s = split_by_footprints(&scop, writers, SplitFor::Values(&values)).unwrap();
        (scop, values, s)
    }

    /// Points of part `v`'s domain for the given values (first iterator only).
    fn points(s: &super::SplitScop, v: usize, values: &[i64]) -> Vec<Vec<i64>> {
        let mut b = crate::poly::Budget::default_query();
        let mut out = Vec::new();
        for p in &s.scop.stmts[v].domain.pieces {
            out.extend(crate::poly::enumerate::integer_points(p, values, &mut b).unwrap());
        }
        out.sort();
        out
    }

    /// The split SCoP keeps the IR's invariants (`ir::verify`): each part a
    /// statement of its own, `S{k}` by position, with its domain and
    /// access relations named after it. The corpus kernels that split:
    /// the ping-pong stencils (their initialisation writes the boundary).
    #[test]
    fn split_scops_pass_ir_verify() {
        for text in [
            include_str!("../../../corpus/pingpong1d.c"),
            include_str!("../../../corpus/pingpong2d.c"),
        ] {
            let program =
                crate::frontend::extract("t.c", text, &crate::frontend::Options::default());
            let scop = &program.scops[0];
            let values = crate::pipeline::param_values(scop).unwrap();
            let overrides = crate::analysis::liveness::LivenessOverrides::default();
            let writers: Vec<usize> = (0..scop.stmts.len())
                .filter(|s| {
                    let a = scop.array(scop.stmts[*s].write.array);
                    crate::analysis::liveness::classify(a, &overrides).liveness
                        == crate::ir::Liveness::Temporary
                })
                .collect();
            let s = split_by_footprints(scop, &writers, SplitFor::Values(&values)).unwrap();
            assert!(
                s.scop.stmts.len() > scop.stmts.len(),
                "nothing was split:\n{text}"
            );
            crate::ir::verify(&s.scop, text).unwrap();
            for (v, stmt) in s.scop.stmts.iter().enumerate() {
                assert_eq!(stmt.name, format!("S{v}"));
                assert_eq!(stmt.body_text, scop.stmts[s.origin[v]].body_text);
            }
        }
    }

    #[test]
    fn a_stencil_initialisation_is_split_at_its_boundary() {
        let text = "#define N 5\n#define T 3\nvoid f(const double in[N + 2], double out[N + 2])\n{\n    int t, i;\n    double Q[N + 2];\n    double P[N + 2];\n#pragma scop\n    for (i = 0; i <= N + 1; i++)\n        Q[i] = in[i];\n    for (t = 1; t <= T; t++) {\n        for (i = 1; i <= N; i++)\n            P[i] = Q[i - 1] + Q[i + 1];\n        for (i = 1; i <= N; i++)\n            Q[i] = P[i];\n    }\n    for (i = 0; i <= N + 1; i++)\n        out[i] = Q[i];\n#pragma endscop\n}\n";
        // S0 writes Q, S1 writes P, S2 writes Q.
        let (_, values, s) = split_text(text, &[0, 1, 2]);
        // S0 (0 <= i <= N+1) has its cells 1..N rewritten by S2: three parts,
        // the rewritten interior first, then i = 0 and i = N+1 (in some order).
        assert_eq!(s.parts[0].len(), 3);
        assert_eq!(s.parts[1].len(), 1);
        assert_eq!(s.parts[2].len(), 1);
        let interior: Vec<Vec<i64>> = (1..=5).map(|i| vec![i]).collect();
        assert_eq!(points(&s, s.parts[0][0], &values), interior);
        let mut ends: Vec<Vec<Vec<i64>>> = s.parts[0][1..]
            .iter()
            .map(|v| points(&s, *v, &values))
            .collect();
        ends.sort();
        assert_eq!(ends, vec![vec![vec![0]], vec![vec![6]]]);
        assert_eq!(s.alone, vec![false, true, true, false, false, false]);
        assert_eq!(s.origin, vec![0, 0, 0, 1, 2, 3]);
        // The statement reading Q into out is not a writer: untouched.
        assert_eq!(s.parts[3].len(), 1);
    }

    #[test]
    fn a_statement_whose_cells_nobody_else_writes_is_alone_and_whole() {
        let text = "#define N 5\nvoid f(const double in[N + 1], double out[N])\n{\n    int i;\n    double Q[N + 1];\n#pragma scop\n    Q[0] = in[0];\n    for (i = 1; i <= N; i++)\n        Q[i] = in[i] + 1.0;\n    for (i = 1; i <= N; i++)\n        out[i - 1] = Q[i] + Q[0];\n#pragma endscop\n}\n";
        let (_, _, s) = split_text(text, &[0, 1]);
        assert!(s.parts.iter().all(|p| p.len() == 1));
        // Q[0] and Q[1..N] are written by one statement each: both alone.
        assert_eq!(s.alone, vec![true, true, false]);
    }

    #[test]
    fn a_statement_whose_cells_are_all_rewritten_is_left_whole() {
        let text = "#define N 5\nvoid f(const double in[N], double out[N])\n{\n    int i;\n    double A[N];\n#pragma scop\n    for (i = 0; i < N; i++)\n        A[i] = in[i];\n    for (i = 0; i < N; i++)\n        A[i] = A[i] + 1.0;\n    for (i = 0; i < N; i++)\n        out[i] = A[i];\n#pragma endscop\n}\n";
        let (scop, _, s) = split_text(text, &[0, 1]);
        assert!(s.parts.iter().all(|p| p.len() == 1));
        assert_eq!(s.scop.stmts.len(), scop.stmts.len());
    }
}
