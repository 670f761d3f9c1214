//! The opt-in SMO path from one C SCoP to transformed C (issue 7): every
//! temporary array of the SCoP is folded, together with the others, into
//! merged buffers found by [`crate::mapping::smo::smo_solve`] on the
//! SCoP's global conflict set (total expansion, exact value lifetimes).
//!
//! Steps: take the temporaries (as the pipeline classified them), the statements that
//! write temporaries and split them by footprints (`split`: values whose
//! cells nobody rewrites, such as a stencil's boundary, become statements
//! of their own), build the global conflict set, solve (SMO with the
//! split-off values in arrays of their own, SMO on everything, the
//! baseline), certify exactly for the given parameter values, keep the
//! smallest, then plan edits: one buffer declaration
//! per SMO array in place of the first temporary's declaration (the other
//! declarations deleted), each write of a statement at its own location,
//! each read at the location of its exact source write (a conditional
//! expression when the source is piecewise or the statement was split), every `%` argument made
//! non-negative by adding a multiple of the modulus computed from the exact
//! minimum over the statement's domain (for the given values), and
//! dead-copy elimination: a pure copy `A[x] = A[x]` (after remapping, on
//! every iteration, checked by enumeration for the given values) is
//! deleted by syntax nodes (`codegen::delete`): with the brace-less
//! `for`/`if`/`else` headers, blocks and loops it leaves empty (a loop
//! whose iterator is read after it stays, with `;` as its body), or
//! replaced by `;` where a statement must remain.
//! Before returning, the trace verifier runs the original and the
//! transformed program on value ids and checks that every read sees the
//! value it saw in the original; it places each access of a temporary
//! where the emitted text does (the `MergedStorage` built next to the
//! text, which the contraction also returns for `polyfold verify`), not
//! where the dataflow's source says the value is.
//!
//! What this does NOT do: change the default pipeline (`contract_program`)
//! or the CLI; handle temporaries with reads of initial values, non-local or
//! multi-declarator declarations, compound assignments to temporaries,
//! source pieces with existentials (strides); prove the result for other
//! parameter values than the ones given (the `%` offsets and the
//! certificate are for these values).

use std::collections::HashMap;

use crate::analysis::dataflow::{SourcePiece, compute_dataflow, source_pieces};
use crate::analysis::liveness::{LivenessOverrides, classify};
use crate::codegen::delete::{deletion, line_insertion, starts_line, statement_deletions};
use crate::codegen::merged as merged_text;
use crate::codegen::text::{choose, level_text};
use crate::codegen::{Edit, apply_edits};
use crate::ir::{Liveness, Program, Scop};
use crate::mapping::modular::ParamAffine;
use crate::mapping::smo::{ConflictSpec, SmoSolution, StmtId};
use crate::poly::basic::eval_row;
use crate::poly::{BasicSet, Budget};
use crate::verify::{AccessLocation, Level, Location, MergedStorage, Slot, TraceBuffer};

pub mod error;
mod iterations;
mod lifted;
mod solve;
mod split;
pub use super::contraction::{
    BufferDeclaration, EveryValue, MergedReport, SmoContraction, TraceCheck,
};
pub use error::MergeError;
use iterations::Iterations;
use solve::{Parts, Solved, contains, max_live_of, solve_for_values, writes_and_lifetimes};
pub use split::{SplitFor, SplitScop, split_by_footprints};

use super::options::{INTER_ARRAY_SAFETY_NET, SMO_MAX_OPERATIONS};

/// Where the merged buffers are declared.
#[derive(Clone, Debug, PartialEq, Eq)]
enum BufferPlace {
    /// In place of the first declaration of the merged arrays (in text
    /// order), which is in a block that encloses all the others.
    Replace,
    /// Before this byte (the start of an item of the innermost block that
    /// encloses every merged array's declaration, or of the pragmas that
    /// apply to it); every declaration of the merged arrays is deleted.
    Before(usize),
}

/// The place of the merged buffers' declaration: the innermost block that
/// encloses the declarations of all merged arrays (so every use, and every
/// value's lifetime: a value of an array declared in a loop body lives in
/// one execution of that body), at its item that holds the first of them.
/// The sizes are `#define`s, which must be defined before that place.
/// `decls` is sorted by position.
fn buffer_place(
    program: &Program,
    scop: &Scop,
    decls: &[(usize, std::ops::Range<usize>)],
) -> Result<BufferPlace, MergeError> {
    let paths: Vec<&[crate::ir::BlockStep]> = decls
        .iter()
        .map(|(t, _)| scop.arrays[*t].decl_blocks.as_slice())
        .collect();
    let first = paths.first().ok_or("no declaration")?;
    if paths.iter().any(|p| p.is_empty()) {
        // Not in a function body: the merge needs every declaration in
        // the blocks of one function.
        return Err(MergeError::OutsideFunction {
            array: scop.arrays[decls[paths.iter().position(|p| p.is_empty()).unwrap_or(0)].0]
                .name
                .clone(),
        });
    }
    let mut depth = 0;
    while paths
        .iter()
        .all(|p| p.len() > depth && p[depth].block == first[depth].block)
    {
        depth += 1;
    }
    if depth == 0 {
        return Err(MergeError::DifferentFunctions);
    }
    let place = if first.len() == depth {
        BufferPlace::Replace
    } else {
        BufferPlace::Before(first[depth - 1].item.start)
    };
    let at = match place {
        BufferPlace::Replace => decls[0].1.start,
        BufferPlace::Before(at) => at,
    };
    for p in &scop.params {
        let defined_after = program
            .macros
            .objects
            .iter()
            .filter(|o| o.name == p.name)
            .any(|o| o.span.as_ref().is_some_and(|s| s.start >= at));
        if defined_after {
            return Err(MergeError::DefinedAfterPlace {
                param: p.name.clone(),
            });
        }
    }
    Ok(place)
}

/// Whether `m` is at least 1 for every parameter value of `context`
/// (`{ p ∈ context : m(p) <= 0 }` has no integer point).
fn at_least_one(m: &ParamAffine, context: &BasicSet) -> bool {
    never_below_one(m, context.clone())
}

/// Whether `m` is at least 1 wherever `piece` (a statement domain, over
/// `[params | iterators]`) has a point for a parameter value of
/// `context`.
fn at_least_one_on(m: &ParamAffine, piece: &BasicSet, context: &BasicSet) -> bool {
    let mut q = piece.clone();
    q.add_param_constraints(context);
    never_below_one(m, q)
}

/// Whether `{ x ∈ q : m(params) <= 0 }` has no integer point.
fn never_below_one(m: &ParamAffine, mut q: BasicSet) -> bool {
    let mut row = q.zero_row();
    for (r, c) in row.iter_mut().zip(&m.coeffs) {
        *r = -c;
    }
    let last = row.len() - 1;
    row[last] = -m.constant;
    q.add_ineq(row);
    matches!(
        crate::poly::simplex::integer_point(&q, &mut Budget::default_query()),
        Ok(None)
    )
}

/// For storage made for every value: turns each level of each buffer
/// whose subscripts cannot be made non-negative by a few multiples of its
/// modulus (`(i - t) % (n + 1)` with `t` unbounded) around, when the
/// opposite hyperplanes can (`(t - i + n + 1) % (n + 1)`). The same cells
/// conflict or not either way (`x ≡ y` exactly when `-x ≡ -y`); the
/// subscripts are those of the values' writers over their domains (a read
/// reads a value written there).
fn orient_levels(vs: &Scop, stmts: &[usize], sol: &mut SmoSolution) {
    let np = vs.params.len();
    let fits = |array: &crate::mapping::smo::ArrayMapping, l: usize| -> bool {
        array.statements.iter().enumerate().all(|(s, j)| {
            let st = &vs.stmts[stmts[j.0]];
            let nt = st.iterators.len();
            let h = &array.levels[l][s];
            let mut row = vec![0i64; np + nt + 1];
            for q in 0..nt {
                row[np + q] = h.coeffs.get(1 + q).copied().unwrap_or(0);
            }
            let c0 = h.coeffs.first().copied().unwrap_or(0);
            row[np + nt] = match c0
                .checked_mul(j.0 as i64)
                .and_then(|v| v.checked_add(h.offset))
            {
                Some(v) => v,
                None => return false,
            };
            Iterations::domain(&st.domain.pieces, &vs.context)
                .level(&row, &array.moduli[l])
                .is_ok()
        })
    };
    for array in sol.arrays.iter_mut() {
        for l in 0..array.levels.len() {
            if fits(array, l) {
                continue;
            }
            let mut turned = array.clone();
            for h in turned.levels[l].iter_mut() {
                for c in h.coeffs.iter_mut() {
                    *c = -*c;
                }
                h.offset = -h.offset;
            }
            if fits(&turned, l) {
                *array = turned;
            }
        }
    }
}

/// One written value's home: buffer index and location in it.
type Home = (usize, Vec<i64>);

/// Everything about the SCoP needed after solving.
struct Ctx<'a> {
    /// The SCoP of the statement parts.
    scop: &'a Scop,
    values: &'a [i64],
    sol: &'a SmoSolution,
    /// Scop statement index → position in the SMO statement list.
    smo_index: HashMap<usize, usize>,
    /// Per (stmt, read index) of a temporary: its source pieces.
    pieces: HashMap<(usize, usize), Vec<SourcePiece>>,
}

impl Ctx<'_> {
    /// Per level, the affine row over `[params | iters | const]` (of a
    /// statement whose iterators give the writer's iterators through
    /// `iters`) of writer `w`'s hyperplane, before the modulo.
    fn level_rows(
        &self,
        w: usize,
        iters: &[Vec<i64>],
        width: usize,
    ) -> Result<Vec<Vec<i64>>, MergeError> {
        let (j, a) = self.smo_array(w)?;
        let array = &self.sol.arrays[a];
        let s = array
            .statements
            .iter()
            .position(|t| *t == StmtId(j))
            .ok_or("statement not in its array")?;
        let mut out = Vec::new();
        for level in &array.levels {
            let h = &level[s];
            let mut row = vec![0i64; width];
            let c0 = h.coeffs.first().copied().unwrap_or(0);
            row[width - 1] = h
                .offset
                .checked_add(c0.checked_mul(j as i64).ok_or("overflow")?)
                .ok_or("overflow")?;
            for (q, it) in iters.iter().enumerate() {
                let c = h.coeffs.get(1 + q).copied().unwrap_or(0);
                for (x, y) in row.iter_mut().zip(it) {
                    *x = x
                        .checked_add(c.checked_mul(*y).ok_or("overflow")?)
                        .ok_or("overflow")?;
                }
            }
            out.push(row);
        }
        Ok(out)
    }

    /// Scop statement `w`'s position in the SMO statement list, and its
    /// SMO array.
    fn smo_array(&self, w: usize) -> Result<(usize, usize), MergeError> {
        let j = *self
            .smo_index
            .get(&w)
            .ok_or("writer not in the SMO statement list")?;
        let a = self
            .sol
            .array_of(StmtId(j))
            .ok_or("statement without array")?;
        Ok((j, a))
    }

    /// Whether the value read by the copy `v` (its read 0) is, on every
    /// iteration and for every parameter value, already at the home its
    /// write would put it: for each source piece, the same buffer and, per
    /// level, rows that differ by a multiple of the modulus (the same
    /// affine function of the parameters and iterators; `ident` gives the
    /// copy's own iterators). Sources whose region holds none of
    /// `iterations` (the copy's) are left out.
    fn same_home_everywhere(
        &self,
        v: usize,
        ident: &[Vec<i64>],
        width: usize,
        iterations: &Iterations,
    ) -> Result<bool, MergeError> {
        let Some(pieces) = self.pieces.get(&(v, 0)) else {
            return Ok(false);
        };
        if pieces.is_empty() {
            return Ok(false);
        }
        let (_, a) = self.smo_array(v)?;
        let own = self.level_rows(v, ident, width)?;
        let np = self.scop.params.len();
        for p in pieces {
            // A source no iteration reads from.
            if iterations.emitted_region(&p.region.pieces)?.is_empty() {
                continue;
            }
            if self.smo_array(p.writer)?.1 != a {
                return Ok(false);
            }
            let rows = self.level_rows(p.writer, &p.iters, width)?;
            for ((r, o), m) in rows.iter().zip(&own).zip(&self.sol.arrays[a].moduli) {
                let diff: Vec<i64> = r.iter().zip(o).map(|(x, y)| x - y).collect();
                if diff.iter().all(|d| *d == 0) {
                    continue;
                }
                // diff = c·m: no iterator column, and the parameter and
                // constant columns a multiple of the modulus.
                let mut m_row = vec![0; width];
                m_row[..np].copy_from_slice(&m.coeffs);
                m_row[width - 1] = m.constant;
                let Some(k) = m_row.iter().position(|x| *x != 0) else {
                    return Ok(false);
                };
                if diff[k] % m_row[k] != 0 {
                    return Ok(false);
                }
                let c = diff[k] / m_row[k];
                if diff.iter().zip(&m_row).any(|(d, x)| *d != c * x) {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// The home of the value written by scop statement `w` at `it`.
    fn home(&self, w: usize, it: &[i64]) -> Result<Home, MergeError> {
        let (j, a) = self.smo_array(w)?;
        let mut x = vec![j as i64];
        x.extend_from_slice(it);
        x.resize(x.len().max(1 + it.len()), 0);
        let n_dim = self.sol.arrays[a]
            .levels
            .first()
            .map(|l| l[0].coeffs.len())
            .unwrap_or(0);
        x.resize(n_dim.max(x.len()), 0);
        let loc = self.sol.arrays[a]
            .location(StmtId(j), &x, self.values)
            .map_err(|e| e.to_string())?
            .ok_or("no location")?;
        Ok((a, loc))
    }

    /// The source (writer, writer iterators) of read `r` of statement `s` at `it`.
    fn source(
        &self,
        s: usize,
        r: usize,
        it: &[i64],
    ) -> Result<Option<(usize, Vec<i64>)>, MergeError> {
        let Some(pieces) = self.pieces.get(&(s, r)) else {
            return Ok(None);
        };
        let mut point = self.values.to_vec();
        point.extend_from_slice(it);
        for p in pieces {
            if contains(&p.region.pieces, &point)? {
                let iters = p
                    .iters
                    .iter()
                    .map(|row| eval_row(row, &point))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| e.to_string())?;
                return Ok(Some((p.writer, iters)));
            }
        }
        Err(MergeError::NoSource {
            stmt: self.scop.stmts[s].name.clone(),
            read: r,
            at: it.to_vec(),
        })
    }
}

/// `S0` for a statement left whole, `S0.k` for part k of a split one.
fn part_name(split: &SplitScop, v: usize) -> String {
    let s = split.origin[v];
    // Statement `s` of the original SCoP is `S{s}` (`ir::verify`).
    let name = format!("S{s}");
    let parts = &split.parts[s];
    if parts.len() == 1 {
        name
    } else {
        let k = parts.iter().position(|p| *p == v).unwrap_or(0);
        format!("{name}.{k}")
    }
}

/// The condition that a point of `[params | iters]` lies in one of `pieces`
/// (without existentials), as C text, for use at `iterations` only: a
/// constraint that holds at every one of them is left out, and so is a
/// piece that holds none of them.
fn domain_condition(
    pieces: &[BasicSet],
    names: &[String],
    iterations: &Iterations,
) -> Result<String, MergeError> {
    let kept = iterations.emitted_region(pieces)?;
    Ok(merged_text::region_condition(&kept, names))
}

/// Folds the temporaries of SCoP `scop_index` of `program` with SMO, for
/// the parameter values `values` (in the order of the SCoP's parameters),
/// and certifies the result (the trace check of the storage as emitted).
pub fn contract_scop_smo(
    program: &Program,
    scop_index: usize,
    values: &[i64],
) -> Result<super::certify::Certified, String> {
    let scop = program.scops.get(scop_index).ok_or("no such SCoP")?;
    let overrides = LivenessOverrides::default();
    let temps: Vec<usize> = scop
        .arrays
        .iter()
        .enumerate()
        .filter(|(_, a)| classify(a, &overrides).liveness == Liveness::Temporary)
        .map(|(i, _)| i)
        .collect();
    let proposal = propose(
        program,
        scop_index,
        values,
        &temps,
        (INTER_ARRAY_SAFETY_NET, false),
    )?;
    super::certify::certify_merged(&program.scops[scop_index], values, proposal)
        .map_err(|e| e.to_string())
}

/// The merged storage of the temporaries `temporaries` (array indices, as
/// the pipeline classified them) of SCoP `scop_index`, and the edits that
/// emit it, with a wall-clock safety net for the conflict set and the
/// solves (see [`INTER_ARRAY_SAFETY_NET`]), and with `masks` the
/// power-of-two number moduli printed as masks. Not certified: only
/// [`super::certify::certify_merged`] makes it usable.
pub(crate) fn propose(
    program: &Program,
    scop_index: usize,
    values: &[i64],
    temporaries: &[usize],
    (budget, masks): (std::time::Duration, bool),
) -> Result<SmoContraction, String> {
    propose_in(
        program,
        scop_index,
        Mode::Values(values),
        temporaries,
        (budget, masks, true),
    )
    .map_err(String::from)
}

/// The merged storage of the temporaries `temporaries` of SCoP
/// `scop_index` for every parameter value of the SCoP's context, and the
/// edits that emit it: the parts split for every value, the shared
/// hyperplanes lifted from small probe sizes with moduli affine in the
/// parameters (`lifted`), and code whose offsets and conditions are
/// proven on the statements' domains (`iterations`); with `masks`, its
/// power-of-two number moduli printed as masks. Its numbers (cells,
/// lower bound) are those of the probe point; with `report_bound`, the
/// lower bound is traced at the known values too (a number for the
/// report, whose cost grows with the sizes up to its cap). Not certified: only
/// [`super::certify::certify_merged_for_every_value`] makes it usable.
pub(crate) fn propose_every_value(
    program: &Program,
    scop_index: usize,
    temporaries: &[usize],
    budget: std::time::Duration,
    (masks, report_bound): (bool, bool),
) -> Result<SmoContraction, String> {
    propose_in(
        program,
        scop_index,
        Mode::EveryValue,
        temporaries,
        (budget, masks, report_bound),
    )
    .map_err(String::from)
}

/// For which parameter values the merged storage is made.
#[derive(Clone, Copy)]
enum Mode<'a> {
    /// The known values (the caller pins them with a `_Static_assert`).
    Values(&'a [i64]),
    /// Every value of the SCoP's context.
    EveryValue,
}

fn propose_in(
    program: &Program,
    scop_index: usize,
    mode: Mode<'_>,
    temporaries: &[usize],
    (budget, masks, report_bound): (std::time::Duration, bool, bool),
) -> Result<SmoContraction, MergeError> {
    let started = std::time::Instant::now();
    let debug = log::log_enabled!(target: "smo", log::Level::Debug);
    let stage = |what: &str| {
        if debug {
            log::debug!(target: "smo",
                "smo stage: {what} done at {:.3} s",
                started.elapsed().as_secs_f64()
            );
        }
    };
    let scop = program.scops.get(scop_index).ok_or("no such SCoP")?;
    let source = &program.source;
    check_modelled(scop, source, mode)?;
    // Scalars have no cells to merge.
    let temps: Vec<usize> = temporaries
        .iter()
        .copied()
        .filter(|t| scop.arrays.get(*t).is_some_and(|a| !a.extents.is_empty()))
        .collect();
    if temps.is_empty() {
        return Err(MergeError::NoTemporaryArray);
    }
    let is_temp = |a: crate::ir::ArrayId| temps.contains(&(a.0 as usize));
    let writers: Vec<usize> = (0..scop.stmts.len())
        .filter(|s| is_temp(scop.stmts[*s].write.array))
        .collect();
    // SMO works on the parts of the statements (see `split`); `vs` is the
    // SCoP of the parts, and everything below indexes its statements.
    let (probes, split) = split_parts(scop, source, &writers, mode)?;
    let vs = &split.scop;
    let stmts: Vec<usize> = (0..vs.stmts.len())
        .filter(|s| is_temp(vs.stmts[*s].write.array))
        .collect();
    stage("split");
    let flow = compute_dataflow(vs).map_err(|e| e.to_string())?;
    stage("dataflow");
    let pieces = exact_sources(&split, &flow, &stmts, &temps)?;
    let parts = Parts {
        split: &split,
        stmts: &stmts,
        temps: &temps,
        flow: &flow,
    };
    let solved = match mode {
        Mode::Values(values) => solve_for_values(&parts, values, budget, started, &stage)?,
        Mode::EveryValue => lifted::solve_every_value(&parts, &probes, budget, started)?,
    };
    stage("solve");
    let Solved {
        spec,
        sol,
        method,
        candidate_sizes,
        chosen,
        lower_bound,
        safety_net_fired,
    } = solved;
    // The numbers of the report are for the known values, or when a
    // parameter has none, for the first probe point (where the lower
    // bound was traced; it is not traced at the known sizes, whose cost
    // grows with them).
    let optimal_at_probe = sol
        .size(&probes[0])
        .is_ok_and(|n| usize::try_from(n).is_ok_and(|n| n <= lower_bound));
    let (base, lower_bound) = report_point(
        scop,
        (vs, &temps),
        mode,
        &probes[0],
        (lower_bound, report_bound),
    );
    let values = &base[..];
    let mut sol = sol;
    if let Mode::EveryValue = mode {
        orient_levels(vs, &stmts, &mut sol);
    }
    let smo_index: HashMap<usize, usize> = stmts.iter().enumerate().map(|(j, s)| (*s, j)).collect();
    let ctx = Ctx {
        scop: vs,
        values,
        sol: &sol,
        smo_index,
        pieces,
    };
    // Parameter names as C operands (`(N)` for `#define N M+2`): every
    // row, modulus and extent printed below uses them.
    let params = scop.param_texts();

    // Declarations.
    let (decls, elem, original_cells) = temporary_declarations(source, scop, &temps, values)?;
    let Buffers {
        buffers,
        names: buffer_names,
        trace: trace_buffers,
        declaration: decl_text,
    } = declare_buffers(
        program,
        scop_index,
        (&split, &stmts),
        &sol,
        mode,
        values,
        &elem,
    )?;
    let new_cells = sol.size(values).map_err(|e| e.to_string())?;
    let (mut edits, declaration) = declaration_edits(program, scop, &decls, &decl_text)?;

    // Accesses, and the dead copies. Each original statement is edited
    // once; when it was split, every access chooses its part's text with a
    // conditional on the parts' domains (the last part is the `else`).
    let mut deleted_stmts = Vec::new();
    let mut accesses = Vec::new();
    let emitter = Emitter {
        source,
        scop,
        split: &split,
        ctx: &ctx,
        mode,
        masks,
        params: &params,
        buffer_names: &buffer_names,
        temps: &temps,
        overflow_facts: Some(crate::codegen::overflow::scop_facts(source, scop)),
    };
    for si in 0..scop.stmts.len() {
        match emitter.statement(si)? {
            StatementText::Dead => deleted_stmts.push(si),
            StatementText::Edited(stmt_edits, stmt_locations) => {
                edits.extend(stmt_edits);
                accesses.extend(stmt_locations);
            }
        }
    }
    let removed = delete_dead_copies(source, scop, &deleted_stmts, &mut edits);
    let output = apply_edits(source, &edits).map_err(|e| format!("{e:?}"))?;

    // The trace check: the verifier's trace of the program as emitted
    // (every access of a temporary at the location its text computes, the
    // deleted copies not run), not of the dataflow's sources.
    stage("code generation");
    let storage = MergedStorage {
        arrays: temps.clone(),
        buffers: trace_buffers,
        accesses,
        removed: deleted_stmts.clone(),
    };

    let names: Vec<String> = temps.iter().map(|t| scop.arrays[*t].name.clone()).collect();
    let report = merged_report(
        scop,
        scop_index,
        (mode, values),
        (&split, &stmts),
        (&spec, &sol, &buffer_names),
        (original_cells, new_cells, lower_bound),
        (&names, &chosen, &removed),
    );
    let every_value = match mode {
        Mode::Values(_) => None,
        Mode::EveryValue => {
            let (original_formula, new_formula) = size_formulas(scop, &temps, &sol)?;
            Some(Box::new(EveryValue {
                spec,
                sol,
                probes,
                original_formula,
                new_formula,
                optimal_at_probe,
            }))
        }
    };
    Ok(SmoContraction {
        temporaries: names,
        original_cells,
        new_cells,
        buffers,
        removed,
        edits,
        declaration,
        output,
        report,
        reads_checked: 0,
        method,
        candidate_sizes,
        chosen,
        lower_bound,
        safety_net_fired,
        storage,
        every_value,
    })
}

/// The probe points (for every value: the points the search runs at, see
/// `lifted`; the known values otherwise) and the SCoP of the parts of the
/// statements `writers` (see `split`).
fn split_parts(
    scop: &Scop,
    source: &str,
    writers: &[usize],
    mode: Mode<'_>,
) -> Result<(Vec<Vec<i64>>, SplitScop), MergeError> {
    // For every value: the probe points the search runs at (see `lifted`).
    let probes = match mode {
        Mode::Values(values) => vec![values.to_vec()],
        Mode::EveryValue => lifted::probes(scop)?,
    };
    let split_for = match mode {
        Mode::Values(values) => SplitFor::Values(values),
        Mode::EveryValue => SplitFor::EveryValue { probe: &probes[0] },
    };
    let split = split_by_footprints(scop, writers, split_for).map_err(|e| e.to_string())?;
    // An IR-to-IR transform: its output keeps the IR's invariants.
    if cfg!(debug_assertions)
        && let Err(e) = crate::ir::verify(&split.scop, source)
    {
        return Err(MergeError::Step(format!(
            "internal error: the split SCoP fails ir::verify: {e}"
        )));
    }
    Ok((probes, split))
}

/// The parameter values the numbers of the report are for: the known
/// values, or when a parameter has none, the first probe point `probe`
/// (where the `lower_bound` was traced; it is not traced at the known
/// sizes, whose cost grows with them), with the lower bound there (traced
/// at the known values with `report_bound` only).
fn report_point(
    scop: &Scop,
    (vs, temps): (&Scop, &[usize]),
    mode: Mode<'_>,
    probe: &[i64],
    (lower_bound, report_bound): (usize, bool),
) -> (Vec<i64>, Option<usize>) {
    match (mode, scop.param_values()) {
        (Mode::Values(values), _) => (values.to_vec(), Some(lower_bound)),
        (Mode::EveryValue, Ok(values)) => {
            // Traced at the known values only for a report, and only while
            // their operations are few (the same cap as the merging for
            // known values).
            let bound = report_bound
                .then(|| writes_and_lifetimes(vs, temps, &values, SMO_MAX_OPERATIONS).ok())
                .flatten()
                .map(|(_, lives)| max_live_of(&lives));
            (values, bound)
        }
        (Mode::EveryValue, Err(_)) => (probe.to_vec(), Some(lower_bound)),
    }
}

/// The edits that declare the buffers `decl_text` (in place of the first
/// of the temporaries' declarations `decls`, or before them) and delete
/// the other declarations; and which of them declares the buffers.
fn declaration_edits(
    program: &Program,
    scop: &Scop,
    decls: &[(usize, std::ops::Range<usize>)],
    decl_text: &str,
) -> Result<(Vec<Edit>, BufferDeclaration), MergeError> {
    let source = &program.source;
    let place = buffer_place(program, scop, decls)?;
    let mut edits = Vec::new();
    let declaration = match &place {
        BufferPlace::Replace => {
            edits.push(Edit::replace(decls[0].1.clone(), decl_text.to_string()));
            BufferDeclaration {
                edit: 0,
                own_line: false,
                indent: crate::util::c_text::indent_of_line(source, decls[0].1.start),
            }
        }
        BufferPlace::Before(at) => {
            edits.push(line_insertion(source, *at, decl_text));
            BufferDeclaration {
                edit: 0,
                own_line: starts_line(source, *at),
                indent: crate::util::c_text::indent_of_line(source, *at),
            }
        }
    };
    for (k, (_, span)) in decls.iter().enumerate() {
        if k > 0 || matches!(place, BufferPlace::Before(_)) {
            edits.push(deletion(source, span.clone()));
        }
    }
    Ok((edits, declaration))
}

/// Deletes the dead copies `deleted_stmts` with the brace-less headers,
/// loops and blocks they leave empty (by syntax nodes), adding the edits
/// to `edits`; returns the text of every deleted statement or loop.
fn delete_dead_copies(
    source: &str,
    scop: &Scop,
    deleted_stmts: &[usize],
    edits: &mut Vec<Edit>,
) -> Vec<String> {
    let mut removed = Vec::new();
    let dead: Vec<crate::ir::StmtId> = deleted_stmts.iter().map(|si| scop.stmts[*si].id).collect();
    for edit in statement_deletions(source, &scop.items, &|id| dead.contains(&id)) {
        let text = if edit.replacement.is_empty() {
            source[edit.range.clone()].trim().to_string()
        } else {
            format!(
                "{} (now `{}`)",
                source[edit.range.clone()].trim(),
                edit.replacement
            )
        };
        removed.push(text);
        edits.push(edit);
    }
    removed
}

/// The temporaries' cells and the buffers' cells of `sol` as C expressions
/// in the parameters (`2 * (N + 2)`, `N + 1 + 1 + 1`).
fn size_formulas(
    scop: &Scop,
    temps: &[usize],
    sol: &SmoSolution,
) -> Result<(String, String), MergeError> {
    let params = scop.param_texts();
    let mut original = Vec::new();
    for &t in temps {
        let extents: Vec<ParamAffine> = ParamAffine::extents_of(&scop.arrays[t])
            .into_iter()
            .collect::<Option<_>>()
            .ok_or("an extent that is not affine")?;
        original.push(extents);
    }
    let new: Vec<&[ParamAffine]> = sol.arrays.iter().map(|a| a.moduli.as_slice()).collect();
    let original: Vec<&[ParamAffine]> = original.iter().map(Vec::as_slice).collect();
    Ok((
        merged_text::sizes_text(&params, &original),
        merged_text::sizes_text(&params, &new),
    ))
}

/// SMO orders values by the sequential schedule: the iterations of a
/// parallel loop (in the SCoP or around it) are not modelled; and the
/// known values give one value per parameter.
fn check_modelled(scop: &Scop, source: &str, mode: Mode<'_>) -> Result<(), MergeError> {
    let shared = scop
        .arrays
        .iter()
        .find_map(|a| a.facts.shared_by_parallel_loop.clone());
    if let Some((iterator, mark)) = scop.parallel_loops(None).into_iter().next().or(shared) {
        return Err(MergeError::Parallel {
            place: mark.describe(source, &iterator),
        });
    }
    if let Mode::Values(values) = mode
        && values.len() != scop.params.len()
    {
        return Err(MergeError::ValuesPerParameter);
    }
    Ok(())
}

/// The exact source pieces of every read of a temporary in the parts of
/// `split`, which must all be writes of `stmts`.
fn exact_sources(
    split: &SplitScop,
    flow: &crate::analysis::dataflow::Dataflow,
    stmts: &[usize],
    temps: &[usize],
) -> Result<HashMap<(usize, usize), Vec<SourcePiece>>, MergeError> {
    let mut pieces = HashMap::new();
    for r in &flow.reads {
        if !temps.contains(&(r.array.0 as usize)) {
            continue;
        }
        let p = source_pieces(&split.scop, r)
            .map_err(|e| e.to_string())?
            .ok_or_else(|| {
                format!(
                    "{} read {}: no exact source",
                    part_name(split, r.stmt),
                    r.read
                )
            })?;
        if p.iter().any(|p| !stmts.contains(&p.writer)) {
            return Err(MergeError::SourceOutside);
        }
        pieces.insert((r.stmt, r.read), p);
    }
    Ok(pieces)
}

/// The declarations of the temporaries `temps` (each a plain declaration
/// of its own, one element type), sorted by position, the element type,
/// and their cells for `values`.
#[allow(clippy::type_complexity)]
fn temporary_declarations(
    source: &str,
    scop: &Scop,
    temps: &[usize],
    values: &[i64],
) -> Result<(Vec<(usize, std::ops::Range<usize>)>, String, i64), MergeError> {
    let mut decls: Vec<(usize, std::ops::Range<usize>)> = Vec::new();
    let elem = scop.arrays[temps[0]].elem_type.trim().to_string();
    let mut original_cells: i64 = 0;
    for &t in temps {
        let a = &scop.arrays[t];
        let span = a
            .decl_span
            .clone()
            .ok_or_else(|| MergeError::DeclarationNotFound {
                array: a.name.clone(),
            })?;
        let dspan = a
            .declarator_span
            .clone()
            .ok_or_else(|| MergeError::DeclaratorNotFound {
                array: a.name.clone(),
            })?;
        if let Some(v) = &a.facts.extent_written {
            return Err(MergeError::ExtentWritten {
                array: a.name.clone(),
                variable: v.clone(),
            });
        }
        let text: String = source[span.clone()].split_whitespace().collect();
        let expect: String = format!("{} {};", a.elem_type, &source[dspan])
            .split_whitespace()
            .collect();
        if text != expect || a.elem_type.trim() != elem {
            return Err(MergeError::NotPlainDeclaration {
                array: a.name.clone(),
                declaration: source[span].to_string(),
            });
        }
        let mut cells: i64 = 1;
        for e in &a.extents {
            let aff = e.aff.as_ref().ok_or("extent not affine")?;
            let mut v = aff.constant;
            for (c, x) in aff.coeffs.iter().zip(values) {
                v = v
                    .checked_add(c.checked_mul(*x).ok_or("overflow")?)
                    .ok_or("overflow")?;
            }
            cells = cells.checked_mul(v).ok_or("overflow")?;
        }
        original_cells = original_cells.checked_add(cells).ok_or("overflow")?;
        decls.push((t, span));
    }
    decls.sort_by_key(|(_, s)| s.start);
    Ok((decls, elem, original_cells))
}

/// The merged buffers of a solution, as declared.
struct Buffers {
    /// Per buffer: its name, its number of cells and its declaration.
    buffers: Vec<(String, i64, String)>,
    names: Vec<String>,
    /// The buffers for the trace verifier.
    trace: Vec<TraceBuffer>,
    /// Every declaration, on one line.
    declaration: String,
}

/// Declares one buffer per array of `sol` (elements of type `elem`), named
/// uniquely in the file, each extent at least 1 for the values it is made
/// for (guarded where the context allows less) and proven representable.
fn declare_buffers(
    program: &Program,
    scop_index: usize,
    (split, stmts): (&SplitScop, &[usize]),
    sol: &SmoSolution,
    mode: Mode<'_>,
    values: &[i64],
    elem: &str,
) -> Result<Buffers, MergeError> {
    let scop = &program.scops[scop_index];
    let source = &program.source;
    let vs = &split.scop;
    let params = scop.param_texts();
    let mut buffers = Vec::new();
    let mut buffer_names = Vec::new();
    let mut trace_buffers = Vec::new();
    let mut declarations = Vec::new();
    for (ai, array) in sol.arrays.iter().enumerate() {
        // Unique in the file: the buffers of another SCoP (of the same
        // function, perhaps) are named after it.
        let mut name = match scop_index {
            0 => format!("polyfold_buf{ai}"),
            s => format!("polyfold_buf{s}_{ai}"),
        };
        while source.contains(&name) {
            name.push('_');
        }
        let mut extents = Vec::new();
        let mut extent_texts = Vec::new();
        for m in &array.moduli {
            // An extent of the merged buffer must be at least 1 for the
            // values it is certified (and pinned) for: the known ones, or
            // every value of the context.
            // Where the context allows a modulus below 1, no value of the
            // buffer may be written there (every access of the buffer would
            // divide by it: a read of a value comes after its write, for
            // the same parameter values), and the declared extent is
            // guarded: `[n + 1 > 1 ? n + 1 : 1]`.
            let (positive, guarded) = match mode {
                Mode::Values(_) => (m.eval(values).is_ok_and(|v| v >= 1), false),
                Mode::EveryValue if at_least_one(m, &scop.context) => (true, false),
                Mode::EveryValue => (
                    array
                        .statements
                        .iter()
                        .flat_map(|j| &vs.stmts[stmts[j.0]].domain.pieces)
                        .all(|piece| at_least_one_on(m, piece, &scop.context)),
                    true,
                ),
            };
            if !positive {
                return Err(MergeError::ExtentBelowOne { buffer: name });
            }
            extents.push(m.clone());
            let mut m_text = crate::codegen::text::param_text(m, &params);
            // The extent's value is representable (issue 45).
            let frame = crate::codegen::overflow::scop_frame(
                scop,
                &crate::codegen::overflow::scop_facts(source, scop),
                &[],
            );
            let param_of = |n: &str| {
                scop.params
                    .iter()
                    .position(|p| p.name == n)
                    .map(crate::codegen::overflow::text::Name::Column)
            };
            match crate::codegen::overflow::text::proven_text(&frame, &m_text, &param_of) {
                Ok(text) => m_text = text,
                Err(why) => {
                    return Err(MergeError::ExtentUnproven {
                        buffer: name,
                        extent: m_text,
                        why: why.to_string(),
                    });
                }
            }
            extent_texts.push((m_text, guarded));
        }
        if array.moduli.is_empty() {
            // One cell; an array all the same (see
            // `codegen::merged::buffer_declaration`).
            extents.push(ParamAffine::constant(params.len(), 1));
        }
        trace_buffers.push(TraceBuffer {
            name: name.clone(),
            extents,
        });
        let text = merged_text::buffer_declaration(elem, &name, &extent_texts);
        let size = array.size(values).map_err(|e| e.to_string())?;
        declarations.push(text.clone());
        buffers.push((name.clone(), size, text));
        buffer_names.push(name);
    }
    Ok(Buffers {
        buffers,
        names: buffer_names,
        trace: trace_buffers,
        declaration: merged_text::declarations_line(&declarations),
    })
}

/// The report of a merged storage as data: sizes, the lower bound, the
/// chosen candidate, every part's mapping and the removed copies (the
/// trace check is the certifier's).
fn merged_report(
    scop: &Scop,
    scop_index: usize,
    (mode, values): (Mode<'_>, &[i64]),
    (split, stmts): (&SplitScop, &[usize]),
    (spec, sol, buffer_names): (&ConflictSpec, &SmoSolution, &[String]),
    (original_cells, new_cells, lower_bound): (i64, i64, Option<usize>),
    (names, chosen, removed): (&[String], &str, &[String]),
) -> MergedReport {
    let mut locations = Vec::new();
    for (ai, array) in sol.arrays.iter().enumerate() {
        for (s, st) in array.statements.iter().enumerate() {
            locations.push(format!(
                "{}: {}",
                part_name(split, stmts[st.0]),
                crate::codegen::mapping_text::mapping_text(spec, array, &buffer_names[ai], s)
            ));
        }
    }
    MergedReport {
        scop: scop_index,
        temporaries: names.to_vec(),
        original_cells,
        buffers: buffer_names.len(),
        new_cells,
        at: match mode {
            Mode::Values(_) => None,
            Mode::EveryValue => Some(
                scop.param_names()
                    .into_iter()
                    .zip(values.iter().copied())
                    .collect(),
            ),
        },
        lower_bound,
        chosen: chosen.to_string(),
        locations,
        removed: removed.to_vec(),
        trace: None,
    }
}

/// What the new text of every statement is printed from: the SCoP and its
/// parts, the solution with the buffers' names, and how residues print.
struct Emitter<'a> {
    source: &'a str,
    scop: &'a Scop,
    split: &'a SplitScop,
    ctx: &'a Ctx<'a>,
    mode: Mode<'a>,
    masks: bool,
    /// Parameter names as C operands (`(N)` for `#define N M+2`).
    params: &'a [String],
    buffer_names: &'a [String],
    temps: &'a [usize],
    overflow_facts: Option<crate::codegen::overflow::ScopFacts>,
}

/// One original statement as its new text sees it: its parts that
/// execute (all of them when none does: the text is then never run, but
/// must still compile), their iterations and the conditions selecting
/// them.
struct StmtParts {
    si: usize,
    /// Parameter and iterator names as C operands.
    names: Vec<String>,
    /// Columns of a row over `[params | iters | const]`.
    width: usize,
    parts: Vec<usize>,
    part_points: Vec<Iterations>,
    /// The statement's own iterations.
    all_points: Iterations,
    /// Per part, the condition selecting it.
    conds: Vec<String>,
    /// The rows of the iterators.
    ident: Vec<Vec<i64>>,
}

/// The new text of one statement.
enum StatementText {
    /// A dead copy: deleted.
    Dead,
    /// Its edits, and the location of every access of a temporary as
    /// emitted.
    Edited(Vec<Edit>, Vec<AccessLocation>),
}

impl Emitter<'_> {
    fn is_temp(&self, a: crate::ir::ArrayId) -> bool {
        self.temps.contains(&(a.0 as usize))
    }

    /// The iterations of statement (part) `v` of `scop` the text is for:
    /// its points for the known values, or its domain for every value.
    fn iterations_of(&self, scop: &Scop, v: usize) -> Result<Iterations, MergeError> {
        let pieces = &scop.stmts[v].domain.pieces;
        match self.mode {
            Mode::Values(values) => {
                Iterations::points(pieces, values, &mut Budget::steps(SMO_MAX_OPERATIONS))
                    .map_err(|e| MergeError::Step(e.to_string()))
            }
            Mode::EveryValue => Ok(Iterations::domain(pieces, &scop.context)),
        }
    }

    /// Statement `si`'s parts, their iterations and conditions.
    fn stmt_parts(&self, si: usize) -> Result<StmtParts, MergeError> {
        let stmt = &self.scop.stmts[si];
        let nt = stmt.iterators.len();
        let width = self.params.len() + nt + 1;
        let mut names = self.params.to_vec();
        names.extend(stmt.c_names());
        // The parts that execute (all of them when none does: the text is
        // then never run, but must still compile).
        let mut executed: Vec<(usize, Iterations)> = Vec::new();
        for &v in &self.split.parts[si] {
            executed.push((v, self.iterations_of(&self.split.scop, v)?));
        }
        if executed.iter().any(|(_, its)| !its.is_empty()) {
            executed.retain(|(_, its)| !its.is_empty());
        }
        let (parts, part_points): (Vec<usize>, Vec<Iterations>) = executed.into_iter().unzip();
        let ident: Vec<Vec<i64>> = (0..nt)
            .map(|q| {
                let mut r = vec![0; width];
                r[self.params.len() + q] = 1;
                r
            })
            .collect();
        // Per part: its points and the condition selecting it.
        let all_points = self.iterations_of(self.scop, si)?;
        let mut conds = Vec::new();
        for &v in &parts {
            conds.push(if parts.len() == 1 {
                merged_text::ALWAYS.to_string()
            } else {
                domain_condition(&self.split.scop.stmts[v].domain.pieces, &names, &all_points)?
            });
        }
        Ok(StmtParts {
            si,
            names,
            width,
            parts,
            part_points,
            all_points,
            conds,
            ident,
        })
    }

    /// The home of writer `w`'s value at `iters`, for a use on `points`:
    /// the buffer and one subscript per dimension (`0` for a buffer of one
    /// cell), and their texts.
    fn access(
        &self,
        sp: &StmtParts,
        w: usize,
        iters: &[Vec<i64>],
        points: &Iterations,
    ) -> Result<((usize, Vec<String>), Location), MergeError> {
        let rows = self.ctx.level_rows(w, iters, sp.width)?;
        let j = self.ctx.smo_index[&w];
        let a = self.ctx.sol.array_of(StmtId(j)).ok_or("no array")?;
        let mut levels = Vec::new();
        let mut texts = Vec::new();
        for (row, m) in rows.iter().zip(&self.ctx.sol.arrays[a].moduli) {
            let level = points.level(row, m)?;
            let mask = crate::codegen::text::mask_of(m, self.masks);
            let (level_row, residue) = match &level {
                Level::Row(row) => (row, false),
                Level::Rem { row, .. } => (row, true),
            };
            texts.push(level_text(
                level_row,
                residue,
                &sp.names,
                (&crate::codegen::text::param_text(m, self.params), mask),
            ));
            levels.push(level);
        }
        if levels.is_empty() {
            levels.push(Level::Row(vec![0; sp.width]));
            texts.push(merged_text::ONE_CELL.into());
        }
        Ok(((a, texts), Location::At { buffer: a, levels }))
    }

    /// The text of a home: the buffer's name and its subscripts.
    fn text_of(&self, home: &(usize, Vec<String>)) -> String {
        merged_text::home_text(self.buffer_names, home)
    }

    /// The location choosing among the parts' (`Location::Choose` on the
    /// parts' domains, as `choose(&conds, …)` prints it).
    fn by_part(&self, sp: &StmtParts, mut per_part: Vec<Location>) -> Result<Location, MergeError> {
        if per_part.len() == 1 {
            return Ok(per_part.swap_remove(0));
        }
        let mut branches = Vec::new();
        for (&v, l) in sp.parts.iter().zip(per_part) {
            let region = sp
                .all_points
                .emitted_region(&self.split.scop.stmts[v].domain.pieces)?;
            branches.push((region, l));
        }
        Ok(Location::Choose(branches))
    }

    /// The new text of statement `si`'s write (of a temporary) and its
    /// location.
    fn write_text(&self, sp: &StmtParts) -> Result<(Edit, AccessLocation), MergeError> {
        let stmt = &self.scop.stmts[sp.si];
        let (per_part, locations): (Vec<(usize, Vec<String>)>, Vec<Location>) = sp
            .parts
            .iter()
            .zip(&sp.part_points)
            .map(|(&v, pts)| self.access(sp, v, &sp.ident, pts))
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .unzip();
        let location = AccessLocation {
            statement: sp.si,
            slot: Slot::Write,
            location: self.by_part(sp, locations)?,
        };
        let text = merged_text::write_target(self.buffer_names, &per_part, &sp.conds);
        Ok((Edit::replace(stmt.write.span.clone(), text), location))
    }

    /// The new text of read `ri` (of a temporary) of statement `si` and
    /// its location: a conditional on the source pieces where it has
    /// several, and on the parts where they differ.
    fn read_text(&self, sp: &StmtParts, ri: usize) -> Result<(Edit, AccessLocation), MergeError> {
        let stmt = &self.scop.stmts[sp.si];
        let read = &stmt.reads[ri];
        if read.span == stmt.write.span {
            return Err(MergeError::CompoundAssignment {
                stmt: stmt.name.clone(),
            });
        }
        let mut per_part = Vec::new();
        let mut part_locations = Vec::new();
        for (&v, pts) in sp.parts.iter().zip(&sp.part_points) {
            let ps = &self.ctx.pieces[&(v, ri)];
            if ps.is_empty() {
                return Err(MergeError::NoWriter {
                    stmt: stmt.name.clone(),
                    read: ri,
                });
            }
            let (texts, locations): (Vec<String>, Vec<Location>) = ps
                .iter()
                .map(|p| {
                    // Over the domain, the iterations where this source
                    // applies (for every value, a subscript need only
                    // be non-negative there).
                    let within = pts.within(&p.region.pieces);
                    self.access(sp, p.writer, &p.iters, within.as_ref().unwrap_or(pts))
                        .map(|(t, l)| (self.text_of(&t), l))
                })
                .collect::<Result<Vec<_>, _>>()?
                .into_iter()
                .unzip();
            let (text, location) = if texts.iter().all(|t| *t == texts[0]) {
                (texts[0].clone(), locations[0].clone())
            } else {
                let cs: Vec<String> = ps
                    .iter()
                    .map(|p| domain_condition(&p.region.pieces, &sp.names, pts))
                    .collect::<Result<_, _>>()?;
                let mut branches = Vec::new();
                for (p, l) in ps.iter().zip(locations) {
                    branches.push((pts.emitted_region(&p.region.pieces)?, l));
                }
                (choose(&cs, &texts), Location::Choose(branches))
            };
            per_part.push(text);
            part_locations.push(location);
        }
        let (text, location) = if per_part.iter().all(|t| *t == per_part[0]) {
            (per_part[0].clone(), part_locations.swap_remove(0))
        } else {
            (
                choose(&sp.conds, &per_part),
                self.by_part(sp, part_locations)?,
            )
        };
        Ok((
            Edit::replace(read.span.clone(), text),
            AccessLocation {
                statement: sp.si,
                slot: Slot::Read(ri),
                location,
            },
        ))
    }

    /// Whether the statement is a dead copy: `W = R;` with both at the
    /// same home on every iteration of every part.
    fn is_dead_copy(&self, sp: &StmtParts) -> Result<bool, MergeError> {
        let stmt = &self.scop.stmts[sp.si];
        // Dead copy: `W = R;` with both at the same home on every iteration
        // of every part.
        if self.is_temp(stmt.write.array)
            && stmt.reads.len() == 1
            && self.is_temp(stmt.reads[0].array)
        {
            let w = &stmt.write.span;
            let r = &stmt.reads[0].span;
            let between = self
                .source
                .get(w.end..r.start)
                .map(|t| t.trim())
                .unwrap_or("");
            let after = self
                .source
                .get(r.end..stmt.span.end)
                .map(|t| t.trim())
                .unwrap_or("");
            let pure = w.start == stmt.span.start && between == "=" && after == ";";
            if pure {
                let mut same = true;
                'parts: for (&v, pts) in sp.parts.iter().zip(&sp.part_points) {
                    match pts {
                        Iterations::Points { points, .. } => {
                            for it in points {
                                let home = self.ctx.home(v, it)?;
                                let (sw, siters) = self
                                    .ctx
                                    .source(v, 0, it)?
                                    .ok_or("read without self.source")?;
                                if self.ctx.home(sw, &siters)? != home {
                                    same = false;
                                    break 'parts;
                                }
                            }
                        }
                        Iterations::Domain(_) => {
                            if !self.ctx.same_home_everywhere(v, &sp.ident, sp.width, pts)? {
                                same = false;
                                break 'parts;
                            }
                        }
                    }
                }
                return Ok(same);
            }
        }
        Ok(false)
    }

    /// No new undefined behaviour (issue 45): every value the new accesses
    /// of statement `si` compute is proven representable in the statement's
    /// frame (the chains that need it in `long long`).
    fn prove_no_overflow(&self, si: usize, stmt_edits: &mut [Edit]) -> Result<(), MergeError> {
        let stmt = &self.scop.stmts[si];
        // No new undefined behaviour (issue 45): every value the new
        // accesses compute is proven representable in the statement's
        // frame.
        if let Some(facts) = &self.overflow_facts {
            let frame = crate::codegen::overflow::statement_frame(self.scop, facts, si);
            let np = self.params.len();
            let loops = stmt.loop_depth();
            let name_of = |n: &str| {
                use crate::codegen::overflow::text::Name;
                if let Some(k) = self.scop.params.iter().position(|p| p.name == n) {
                    return Some(Name::Column(k));
                }
                if let Some(k) = stmt.iterators[..loops].iter().position(|i| i == n) {
                    return Some(Name::Column(np + k));
                }
                (self.buffer_names.iter().any(|b| b == n)
                    || self.scop.arrays.iter().any(|a| a.name == n))
                .then_some(Name::Opaque)
            };
            for e in stmt_edits.iter_mut() {
                // The chains that need it in `long long`.
                match crate::codegen::overflow::text::proven_text(&frame, &e.replacement, &name_of)
                {
                    Ok(text) => e.replacement = text,
                    Err(why) => {
                        return Err(MergeError::Overflow {
                            stmt: stmt.name.clone(),
                            text: e.replacement.clone(),
                            why: why.to_string(),
                        });
                    }
                }
            }
        }
        Ok(())
    }

    /// The new text of statement `si`: its accesses of temporaries at their
    /// homes, or nothing when it is a dead copy.
    fn statement(&self, si: usize) -> Result<StatementText, MergeError> {
        let stmt = &self.scop.stmts[si];
        let sp = self.stmt_parts(si)?;
        let mut stmt_edits = Vec::new();
        let mut stmt_locations = Vec::new();
        if self.is_temp(stmt.write.array) {
            let (edit, location) = self.write_text(&sp)?;
            stmt_locations.push(location);
            stmt_edits.push(edit);
        }
        for (ri, read) in stmt.reads.iter().enumerate() {
            if !self.is_temp(read.array) {
                continue;
            }
            let (edit, location) = self.read_text(&sp, ri)?;
            stmt_locations.push(location);
            stmt_edits.push(edit);
        }
        if self.is_dead_copy(&sp)? {
            return Ok(StatementText::Dead);
        }
        self.prove_no_overflow(si, &mut stmt_edits)?;
        Ok(StatementText::Edited(stmt_edits, stmt_locations))
    }
}
