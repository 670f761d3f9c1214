//! Lowering of analysed statement runs to IR SCoPs: parameter columns,
//! array ids and facts, iteration domains as unions of polyhedra, access
//! relations and 2d+1 schedules.
//!
//! This module does not reject anything: everything it receives was
//! accepted by the analysis. It does not simplify the sets it builds.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Range;

use super::affine::{
    Constraint, Div, Dnf, Lin, Place, Resolver, Sym, Val, is_signed_integer_type_text, not_affine,
    to_lin,
};
use super::analyze::is_statement_pragma;
use super::analyze::{Analyzed, LoopNode, Node, RawAccess, StmtNode};
use super::macros::Macros;
use super::scope::{Role, Scopes};
use super::syntax::{CStmt, Expr};
use crate::diag::Diagnostic;
use crate::ir::{
    Access, AccessKind, AffExpr, Array, ArrayFacts, ArrayId, BlockStep, Extent, Liveness, Param,
    ParamOrigin, SchedEntry, Scop, ScopId, ScopItem, ScopKind, Stmt, StmtId, SyntaxNode,
};
use crate::poly::{BasicSet, Set, Space, Tuple};

/// What the lowering needs to know besides the run.
pub(crate) struct LowerContext<'a> {
    /// The body of the function that contains the run.
    pub body: &'a CStmt,
    pub source: &'a str,
    pub macros: &'a Macros,
    pub scopes: &'a Scopes<'a>,
    pub function: &'a str,
    pub function_span: Range<usize>,
    pub kind: ScopKind,
    pub id: ScopId,
    /// The loops marked parallel around the SCoP (outside it).
    pub enclosing_parallel: Vec<super::parallel::EnclosingLoop>,
    /// Set when lowering fails because the start `e % b` of a rotating
    /// index is not proven in range (`e` non-negative where its loop's
    /// header runs).
    pub rotation_unproven: std::cell::Cell<bool>,
    /// What the file's functions may do to memory.
    pub effects: &'a super::effects::FileEffects,
    /// The calls of the file's `static` functions.
    pub aliasing: &'a super::aliasing::FileAliasing,
    /// The array parameters whose every caller's buffer is its own.
    pub buffers: &'a super::buffers::CallerBuffers,
    /// The function that contains the run.
    pub function_def: &'a super::syntax::Function,
}

/// The parameters of a run as the lowering finds them: their names in
/// order of first use, where each comes from and its known value, and
/// which known values were folded into the model.
struct RunParams {
    names: Vec<String>,
    info: BTreeMap<String, (ParamOrigin, Option<i64>)>,
    /// The parameters whose known values were folded into a domain or
    /// into an access or extent of an array the SCoP writes.
    value_uses: BTreeSet<String>,
    /// The arrays (by variable) with a known value folded into an access
    /// or an extent.
    array_value_used: BTreeSet<usize>,
}

impl RunParams {
    /// Notes the parameters of `l` in order of first use.
    fn note_lin(&mut self, l: &Lin) {
        for p in l.params() {
            if !self.names.iter().any(|n| n == p) {
                self.names.push(p.to_string());
            }
        }
    }
}

/// Lowers a run of analysed top-level statements to one SCoP. Returns
/// `None` when a coefficient overflows while building rows, or when the
/// start of a rotating index is not proven in range (then
/// `cx.rotation_unproven` is set).
pub(crate) fn lower_run(run: &[Analyzed], cx: &LowerContext) -> Option<Scop> {
    let nodes: Vec<&Node> = run.iter().flat_map(|a| a.nodes.iter()).collect();
    let start = run.iter().find(|a| !a.nodes.is_empty())?.span.start;
    let end = run.iter().rev().find(|a| !a.nodes.is_empty())?.span.end;
    let span = start..end;
    let (mut run_params, stmts_flat) = run_parameters(run, &nodes);
    // A value folded into the subscripts or extents of an array the SCoP
    // only reads decides no dataflow: only the arrays it writes count.
    let written: BTreeSet<usize> = stmts_flat.iter().map(|s| s.write.var).collect();
    let (array_of_var, array_vars) = number_arrays(&stmts_flat, &run_params.names);
    let extent_lins = array_extents(cx, &array_vars, &written, &mut run_params);
    let params = scop_params(cx, &mut run_params, start);
    let param_names = &run_params.names;
    let mut context = BasicSet::universe(Space::set(
        param_names.clone(),
        Tuple::anonymous(Vec::new()),
    ));
    let mut arrays = Vec::new();
    for (k, &v) in array_vars.iter().enumerate() {
        arrays.push(lower_array(
            cx,
            (k, v),
            &extent_lins[k],
            &run_params,
            &span,
            &mut context,
        )?);
    }
    let (stmts, compound_macros) =
        lower_statements(cx, &nodes, &params, &array_of_var, &arrays, param_names)?;
    mark_read_through_write(&stmts, &mut arrays);
    for (k, v) in array_vars.iter().enumerate() {
        arrays[k].facts.value_in_subscripts = run.iter().any(|a| a.substituted.contains(v));
    }
    let items = scop_items(run, &stmts);
    Some(Scop {
        id: cx.id,
        function: cx.function.to_string(),
        span,
        kind: cx.kind,
        params,
        domains_value_used: run.iter().any(|a| !a.value_uses.is_empty()),
        context,
        arrays,
        stmts,
        aliases: may_alias(cx, &array_vars),
        compound_macros,
        items,
    })
}

/// The parameters of the run's bounds, conditions and subscripts in order
/// of first use, with the values folded into them, and the run's
/// statements in order.
fn run_parameters<'n>(run: &[Analyzed], nodes: &[&'n Node]) -> (RunParams, Vec<&'n StmtNode>) {
    let mut p = RunParams {
        names: Vec::new(),
        info: BTreeMap::new(),
        value_uses: BTreeSet::new(),
        array_value_used: BTreeSet::new(),
    };
    for a in run {
        for (k, v) in &a.params {
            p.info.entry(k.clone()).or_insert(*v);
        }
        // Known values folded into the domains (bounds, guards) concern
        // every array; those of an access or an extent, that array only.
        p.value_uses.extend(a.value_uses.iter().cloned());
    }
    let mut stmts_flat: Vec<&StmtNode> = Vec::new();
    let mut names = Vec::new();
    collect_params(
        nodes,
        &mut |l| {
            for q in l.params() {
                if !names.iter().any(|n: &String| n == q) {
                    names.push(q.to_string());
                }
            }
        },
        &mut stmts_flat,
    );
    p.names = names;
    let written: BTreeSet<usize> = stmts_flat.iter().map(|s| s.write.var).collect();
    for s in &stmts_flat {
        for a in std::iter::once(&s.write).chain(&s.reads) {
            if written.contains(&a.var) {
                p.value_uses.extend(a.value_uses.iter().cloned());
            }
            if !a.value_uses.is_empty() {
                p.array_value_used.insert(a.var);
            }
        }
    }
    (p, stmts_flat)
}

/// The arrays of the run (by variable) in textual order of their first
/// access, with their ids; a read of a parameter is no array access.
fn number_arrays(
    stmts_flat: &[&StmtNode],
    param_names: &[String],
) -> (HashMap<usize, ArrayId>, Vec<usize>) {
    let mut array_of_var: HashMap<usize, ArrayId> = HashMap::new();
    let mut array_vars: Vec<usize> = Vec::new();
    for s in stmts_flat {
        let mut accs: Vec<&RawAccess> = std::iter::once(&s.write).chain(s.reads.iter()).collect();
        accs.sort_by_key(|a| a.span.start);
        for a in accs {
            if is_param_read(a, param_names) {
                continue;
            }
            array_of_var.entry(a.var).or_insert_with(|| {
                array_vars.push(a.var);
                ArrayId((array_vars.len() - 1) as u32)
            });
        }
    }
    (array_of_var, array_vars)
}

/// The extents of each array (they may add parameters): each extent with
/// its text and whether it folded a known value (such an extent holds for
/// the known values only, and gives the context no fact).
fn array_extents(
    cx: &LowerContext,
    array_vars: &[usize],
    written: &BTreeSet<usize>,
    p: &mut RunParams,
) -> Vec<Vec<(Option<Lin>, String, bool)>> {
    let mut extent_lins = Vec::new();
    for &v in array_vars {
        let var = &cx.scopes.vars[v];
        let mut dims = Vec::new();
        for (size, text) in &var.dc.dims {
            let mut folded = false;
            let lin = size.as_ref().and_then(|e| {
                let mut r = ExtentResolver {
                    cx,
                    at: var.dc.name_span.start,
                    params: BTreeMap::new(),
                    value_uses: BTreeSet::new(),
                };
                let l = to_lin(e, Place::Bound, &mut r).ok()?;
                // A quotient (`n / 2`) is not an affine extent.
                if l.has_div() {
                    return None;
                }
                for (k, val) in r.params {
                    p.info.entry(k).or_insert(val);
                }
                folded = !r.value_uses.is_empty();
                if written.contains(&v) {
                    p.value_uses.extend(r.value_uses);
                }
                Some(l)
            });
            if folded {
                p.array_value_used.insert(v);
            }
            if let Some(l) = &lin {
                p.note_lin(l);
            }
            dims.push((lin, text.trim().to_string(), folded));
        }
        extent_lins.push(dims);
    }
    extent_lins
}

/// The SCoP's parameters: the names of the run, then those whose known
/// value was folded into the model though no set names them (`s[i - N /
/// 2]` alone becomes `s[i - 32]`: the SCoP depends on the value, and a
/// mapping must be pinned to it); each with its origin, value and type.
fn scop_params(cx: &LowerContext, p: &mut RunParams, start: usize) -> Vec<Param> {
    for name in &p.value_uses {
        if !p.names.contains(name) {
            p.names.push(name.clone());
        }
    }
    p.names
        .iter()
        .map(|n| {
            let (origin, value) = p
                .info
                .get(n)
                .copied()
                .unwrap_or((ParamOrigin::Variable, None));
            let type_text = match origin {
                ParamOrigin::Define | ParamOrigin::CommandLine => None,
                _ => cx
                    .scopes
                    .lookup(n, start)
                    .map(|v| cx.scopes.vars[v].decl.type_text.trim().to_string()),
            };
            Param {
                name: n.clone(),
                value,
                origin,
                value_used: p.value_uses.contains(n),
                type_text,
            }
        })
        .collect()
}

/// The IR array `k` of variable `v`: its extents, declaration spans and
/// facts. An extent in parameters that nothing changes after the
/// declaration adds `extent >= 1` to the context. `None` on an overflow.
fn lower_array(
    cx: &LowerContext,
    (k, v): (usize, usize),
    extent_lins: &[(Option<Lin>, String, bool)],
    p: &RunParams,
    span: &Range<usize>,
    context: &mut BasicSet,
) -> Option<Array> {
    let param_names = &p.names;
    let var = &cx.scopes.vars[v];
    let facts = facts(cx, v, span);
    let mut extents = Vec::new();
    for (lin, text, folded) in extent_lins {
        let aff = match lin {
            Some(l) => Some(lin_to_aff(l, &Columns::params(param_names))?),
            None => None,
        };
        // An extent whose variable changes after the declaration says
        // nothing of the values the SCoP sees.
        if let Some(l) = lin
            && !l.params().is_empty()
            && !folded
            && facts.extent_written.is_none()
        {
            let row = Columns::params(param_names).row(&l.add_constant(-1)?)?;
            if !context.ineqs.contains(&row) {
                context.add_ineq(row);
            }
        }
        extents.push(Extent {
            aff,
            text: text.clone(),
        });
    }
    Some(Array {
        id: ArrayId(k as u32),
        name: var.name().to_string(),
        elem_type: if var.is_pointer() {
            format!("{} *", var.decl.elem_type_text())
        } else {
            var.decl.elem_type_text()
        },
        extents,
        decl_span: Some(var.decl.span.clone()),
        // A declarator expanded from a macro is not the user's text: it
        // is never rewritten (the array keeps its layout).
        // Nor is a heap buffer's: its storage is sized at its allocation.
        declarator_span: (!var.dc.from_macro && var.dc.heap.is_none()).then(|| var.dc.span.clone()),
        initializer_span: var
            .dc
            .init
            .as_ref()
            .map(|e| var.dc.span.end..e.span.end.max(var.dc.span.end)),
        decl_blocks: if var.in_function && cx.function_span.contains(&var.key) {
            block_path(cx.body, &var.decl.span)
        } else {
            Vec::new()
        },
        facts,
        value_used: p.array_value_used.contains(&v),
        liveness: Liveness::Unclassified,
    })
}

/// The SCoP's statements (domains, accesses, schedules) and the names of
/// the macros whose bodies are compound expressions. `None` when a
/// statement cannot be lowered (see [`lower_run`]).
fn lower_statements(
    cx: &LowerContext,
    nodes: &[&Node],
    params: &[Param],
    array_of_var: &HashMap<usize, ArrayId>,
    arrays: &[Array],
    param_names: &[String],
) -> Option<(Vec<Stmt>, Vec<String>)> {
    let compound_macros = crate::util::c_text::compound_macro_names(
        &cx.macros
            .table
            .objects
            .iter()
            .map(|o| (o.name.clone(), o.body.clone()))
            .collect::<Vec<_>>(),
    );
    let param_texts = crate::util::c_text::operand_names(
        param_names.iter().map(String::as_str),
        &compound_macros,
    );
    let mut stmts = Vec::new();
    let param_values: Vec<Option<i64>> = params.iter().map(|p| p.value).collect();
    let mut walker = StmtBuilder {
        cx,
        params: param_names,
        param_values: &param_values,
        param_texts: &param_texts,
        array_of_var,
        arrays,
        stmts: &mut stmts,
        failed: false,
    };
    let mut loops: Vec<&LoopNode> = Vec::new();
    let mut prefix: Vec<SchedEntry> = Vec::new();
    walker.walk(nodes, &mut loops, &mut prefix);
    if walker.failed {
        return None;
    }
    Some((stmts, compound_macros))
}

/// A chained assignment `a = b = k;` reads `b` through the reference that
/// writes it: one piece of text for two accesses, which a new layout
/// could not give two different forms. Such an array keeps its layout.
fn mark_read_through_write(stmts: &[Stmt], arrays: &mut [Array]) {
    let shared: Vec<ArrayId> = stmts
        .iter()
        .flat_map(|st| {
            st.reads
                .iter()
                .filter(|r| {
                    stmts
                        .iter()
                        .any(|o| o.id != st.id && o.span == st.span && o.write.span == r.span)
                })
                .map(|r| r.array)
        })
        .collect();
    for a in shared {
        arrays[a.0 as usize].facts.read_through_its_write = true;
    }
}

/// The run's top-level items (those with statements), their statements
/// numbered with the SCoP's ids.
fn scop_items(run: &[Analyzed], stmts: &[Stmt]) -> Vec<ScopItem> {
    let ids: HashMap<(usize, usize), StmtId> = stmts
        .iter()
        .map(|st| ((st.span.start, st.span.end), st.id))
        .collect();
    run.iter()
        .filter(|a| !a.nodes.is_empty())
        .map(|a| {
            let mut node = a.node.clone();
            number_statements(&mut node, &ids);
            ScopItem {
                node,
                placement: a.placement,
                pragmas: a.pragmas.clone(),
            }
        })
        .collect()
}

/// The pairs of arrays (by their variables, in [`ArrayId`] order) that
/// may share memory: a pointer or array parameter without `restrict` and
/// another such parameter, or a global or `static` variable, unless every
/// call of the (`static`) function passes distinct objects.
fn may_alias(cx: &LowerContext, array_vars: &[usize]) -> Vec<crate::ir::MayAlias> {
    use crate::ir::{AliasSource, MayAlias, Storage};
    let scopes = cx.scopes;
    // The parameter's position, when it is a pointer or an array that is
    // not `restrict`.
    let parameter = |v: usize| -> Option<usize> {
        let var = &scopes.vars[v];
        if var.storage != Storage::FunctionParam
            || !(var.is_array() || var.is_pointer())
            || var.dc.restrict
        {
            return None;
        }
        cx.function_def.params.iter().position(|p| {
            p.declarators
                .iter()
                .any(|d| d.name_span == var.dc.name_span)
        })
    };
    let global = |v: usize| matches!(scopes.vars[v].storage, Storage::Global | Storage::Static);
    // A buffer that every caller allocates for this parameter alone (see
    // `frontend::buffers`) shares memory with nothing else.
    let owned = |v: usize| {
        scopes.vars[v].storage == Storage::FunctionParam
            && matches!(
                cx.buffers.parameter(cx.function, scopes.vars[v].name()),
                Some(Ok(_))
            )
    };
    let mut out = Vec::new();
    for (ia, &va) in array_vars.iter().enumerate() {
        for (ib, &vb) in array_vars.iter().enumerate().skip(ia + 1) {
            if owned(va) || owned(vb) {
                continue;
            }
            let source = match (parameter(va), parameter(vb)) {
                (Some(i), Some(j)) => (!cx.aliasing.distinct_parameters(cx.function, i, j))
                    .then_some(AliasSource::Parameters),
                (Some(i), None) if global(vb) => (!cx.aliasing.parameter_not(cx.function, i, vb))
                    .then_some(AliasSource::ParameterAndGlobal),
                (None, Some(j)) if global(va) => (!cx.aliasing.parameter_not(cx.function, j, va))
                    .then_some(AliasSource::ParameterAndGlobal),
                _ => None,
            };
            if let Some(source) = source {
                out.push(MayAlias {
                    a: ArrayId(ia as u32),
                    b: ArrayId(ib as u32),
                    source,
                });
            }
        }
    }
    out
}

/// Gives the statements of `node` their ids (by span); a statement that
/// is not one of the SCoP's becomes a node to keep.
fn number_statements(node: &mut SyntaxNode, ids: &HashMap<(usize, usize), StmtId>) {
    match node {
        SyntaxNode::Stmt { id, span } => match ids.get(&(span.start, span.end)) {
            Some(found) => *id = *found,
            None => *node = SyntaxNode::Kept { span: span.clone() },
        },
        SyntaxNode::For { body, .. } | SyntaxNode::Labeled { body, .. } => {
            number_statements(body, ids)
        }
        SyntaxNode::If { then, els, .. } => {
            number_statements(then, ids);
            if let Some(e) = els {
                number_statements(e, ids);
            }
        }
        SyntaxNode::Block { items, .. } => {
            for it in items {
                number_statements(it, ids);
            }
        }
        SyntaxNode::Empty { .. } | SyntaxNode::Pragma { .. } | SyntaxNode::Kept { .. } => {}
    }
}

/// The blocks of a function body around the declaration at `decl`,
/// outermost first, each with its item that holds the declaration (grown
/// over the `#pragma` lines right before it that apply to it).
fn block_path(body: &CStmt, decl: &Range<usize>) -> Vec<BlockStep> {
    let holds = |s: &CStmt| {
        let sp = s.span();
        sp.start <= decl.start && decl.end <= sp.end
    };
    let mut out = Vec::new();
    let mut cur = body;
    loop {
        let next: Option<&CStmt> = match cur {
            CStmt::Compound { items, span } => {
                let Some(k) = items.iter().position(&holds) else {
                    break;
                };
                let mut start = items[k].span().start;
                for before in items[..k].iter().rev() {
                    if !is_statement_pragma(before) {
                        break;
                    }
                    start = before.span().start;
                }
                out.push(BlockStep {
                    block: span.clone(),
                    item: start..items[k].span().end,
                });
                Some(&items[k])
            }
            CStmt::For { body, .. } => Some(body.as_ref()),
            CStmt::If { then, els, .. } => {
                if holds(then) {
                    Some(then.as_ref())
                } else {
                    els.as_deref()
                }
            }
            CStmt::Other { children, .. } => children.iter().find(|c| holds(c)),
            _ => None,
        };
        match next {
            Some(n) if holds(n) && !std::ptr::eq(n, cur) => cur = n,
            _ => break,
        }
    }
    out
}

fn is_param_read(a: &RawAccess, params: &[String]) -> bool {
    a.kind == AccessKind::Read && a.subs.is_empty() && params.contains(&a.name)
}

fn collect_params<'n>(nodes: &[&'n Node], f: &mut impl FnMut(&Lin), stmts: &mut Vec<&'n StmtNode>) {
    for n in nodes {
        match n {
            Node::Loop(l) => {
                for c in &l.cons {
                    f(&c.lin);
                }
                let body: Vec<&Node> = l.body.iter().collect();
                collect_params(&body, f, stmts);
            }
            Node::Stmt(s) => {
                for d in &s.conds {
                    for conj in &d.0 {
                        for c in conj {
                            f(&c.lin);
                        }
                    }
                }
                for a in std::iter::once(&s.write).chain(s.reads.iter()) {
                    for l in &a.subs {
                        f(l);
                    }
                }
                stmts.push(s);
            }
        }
    }
}

fn facts(cx: &LowerContext, v: usize, scop: &Range<usize>) -> ArrayFacts {
    let var = &cx.scopes.vars[v];
    let ndims = var.dc.dims.len();
    let uses = cx.scopes.uses.get(&v).map(Vec::as_slice).unwrap_or(&[]);
    // A heap buffer's `free` is not a use of its values.
    let heap = match &var.dc.heap {
        Some(super::syntax::HeapBuffer::Array {
            span,
            dims,
            frees,
            allocator,
            ..
        }) => Some((span, dims, frees, allocator)),
        _ => None,
    };
    let in_size = |at: &usize| var.dc.init.as_ref().is_some_and(|e| e.span.contains(at));
    let freed = |at: &usize| {
        heap.is_some_and(|(_, _, frees, _)| in_size(at) || frees.iter().any(|r| r.contains(at)))
    };
    let uses: Vec<(usize, Role)> = uses.iter().filter(|(at, _)| !freed(at)).cloned().collect();
    let uses = uses.as_slice();
    // A linearised local table is written with one subscript.
    let written_rank = match &var.dc.heap {
        Some(super::syntax::HeapBuffer::Array { declared: true, .. }) => 1,
        _ => ndims,
    };
    let address_taken = uses.iter().any(|(_, r)| match r {
        Role::AddrOf => true,
        Role::Value => ndims > 0,
        Role::Subscripted(d) => *d < written_rank,
    });
    let used_outside_scop = uses.iter().any(|(at, _)| !scop.contains(at));
    // Declared outside a parallel loop that encloses the SCoP: one array
    // for all the iterations, which run the SCoP at the same time.
    let shared_by_parallel_loop = cx
        .enclosing_parallel
        .iter()
        .find(|l| !l.span.contains(&var.dc.span.start))
        .map(|l| (l.iterator.clone(), l.mark.clone()));
    // A macro whose body names the variable may use it anywhere, in any
    // way, without a use in the text: its layout must stay.
    let named_in_macro = {
        let table = &cx.macros.table;
        let names = |body: &str, params: &[String]| {
            body.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .any(|w| w == var.name() && !params.iter().any(|p| p == w))
        };
        table.objects.iter().any(|o| names(&o.body, &[]))
            || table.functions.iter().any(|f| names(&f.body, &f.params))
    };
    let extent_written = extent_variables(cx, var.dc)
        .into_iter()
        .find(|&x| written_after(cx, x, var.decl.span.end))
        .map(|x| cx.scopes.vars[x].name().to_string());
    // A heap buffer's initialiser is its allocation, which stays.
    let initializer_effect = var
        .dc
        .init
        .as_ref()
        .filter(|_| heap.is_none())
        .and_then(|e| side_effect(cx, e, 0));
    let starts_indeterminate = var.storage == crate::ir::Storage::Local
        && var.dc.init.is_none()
        && var.dc.heap.is_none()
        && !var.decl.has_qualifier("volatile")
        && !used_outside_scop
        && !address_taken
        && !named_in_macro
        && super::fresh::runs_once_per_entry(cx.body, var.decl.span.start, scop);
    ArrayFacts {
        extent_written,
        initializer_effect,
        starts_indeterminate,
        storage: var.storage,
        address_taken: address_taken || named_in_macro,
        used_outside_scop,
        declared_in_function: var.in_function && cx.function_span.contains(&var.key),
        is_scalar: ndims == 0,
        shared_by_parallel_loop,
        read_through_its_write: false,
        value_in_subscripts: false,
        caller_owned: (var.storage == crate::ir::Storage::FunctionParam && ndims > 0)
            .then(|| cx.buffers.parameter(cx.function, var.name()))
            .flatten(),
        linear_rows: matches!(
            var.dc.heap,
            Some(super::syntax::HeapBuffer::Array { linear: true, .. })
        ),
        heap: heap.map(|(span, dims, _, allocator)| {
            vec![crate::ir::ResizeSite {
                function: cx.function.to_string(),
                span: span.clone(),
                dims: dims.clone(),
                what: if allocator.is_empty() {
                    format!("the declaration of `{}`", var.name())
                } else {
                    format!("the allocation `{allocator}`")
                },
            }]
        }),
    }
}

/// The variables (indices of [`Scopes::vars`]) that the extents of a
/// declarator name, through object-like macros too.
fn extent_variables(cx: &LowerContext, dc: &super::syntax::Declarator) -> Vec<usize> {
    fn walk(cx: &LowerContext, e: &Expr, at: usize, depth: usize, out: &mut Vec<usize>) {
        e.walk(&mut |x: &Expr| {
            let super::syntax::ExprKind::Ident(n) = &x.kind else {
                return;
            };
            if let Some(v) = cx.scopes.lookup(n, at) {
                out.push(v);
            } else if depth < 16
                && !cx.macros.is_integer_constant(n)
                && let Some(body) = cx.macros.expand_object(n, x)
            {
                walk(cx, &body, at, depth + 1, out);
            }
        });
    }
    let mut out = Vec::new();
    for (size, _) in &dc.dims {
        if let Some(e) = size {
            walk(cx, e, dc.name_span.start, 0, &mut out);
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Whether variable `var` may be written in the function after byte
/// `from`: assigned, incremented, or its address taken.
fn written_after(cx: &LowerContext, var: usize, from: usize) -> bool {
    use super::syntax::ExprKind;
    let is_var = |e: &Expr| matches!(&e.kind, ExprKind::Ident(n) if cx.scopes.lookup(n, e.span.start) == Some(var));
    let mut found = false;
    cx.body.walk_exprs(&mut |e: &Expr| {
        if e.span.start < from || found {
            return;
        }
        found = match &e.kind {
            ExprKind::Assign(_, lhs, _) | ExprKind::Update(_, lhs) | ExprKind::AddrOf(lhs) => {
                is_var(lhs)
            }
            ExprKind::Other(kind, subs) if kind == "assignment_expression" => {
                subs.first().is_some_and(is_var)
            }
            _ => false,
        };
    });
    found
}

/// What in an initialiser has a side effect: a call that may touch memory
/// (through macros too), an assignment or an increment.
fn side_effect(cx: &LowerContext, e: &Expr, depth: usize) -> Option<String> {
    use super::syntax::ExprKind;
    let mut found: Option<String> = None;
    e.walk(&mut |x: &Expr| {
        if found.is_some() {
            return;
        }
        found = match &x.kind {
            ExprKind::Assign(..) | ExprKind::Update(..) => Some("an assignment".to_string()),
            ExprKind::Other(kind, _) if kind == "assignment_expression" => {
                Some("an assignment".to_string())
            }
            ExprKind::Call(callee, args) => match &callee.kind {
                ExprKind::Ident(n) => match cx.macros.expand_call(n, x, args) {
                    Some(body) if depth < 16 => side_effect(cx, &body, depth + 1),
                    Some(_) => Some(format!("`{n}`")),
                    None => (cx.effects.of(n).0 != crate::ir::Effect::None)
                        .then(|| format!("a call of `{n}()`")),
                },
                _ => Some("a call through a pointer".to_string()),
            },
            ExprKind::Ident(n) if cx.scopes.lookup(n, x.span.start).is_none() => {
                match cx.macros.expand_object(n, x) {
                    Some(body) if depth < 16 && !cx.macros.is_integer_constant(n) => {
                        side_effect(cx, &body, depth + 1)
                    }
                    _ => None,
                }
            }
            _ => None,
        };
    });
    found
}

/// Resolves names in array extents: parameters only.
struct ExtentResolver<'c, 'a> {
    cx: &'c LowerContext<'a>,
    at: usize,
    params: BTreeMap<String, (ParamOrigin, Option<i64>)>,
    value_uses: BTreeSet<String>,
}

impl Resolver for ExtentResolver<'_, '_> {
    fn macro_level(&self, name: &str) -> Option<crate::util::c_text::Prec> {
        super::analyze::macro_level_in(self.cx.macros, name)
    }

    fn parenthesised(&self, span: &Range<usize>) -> bool {
        super::analyze::parenthesised_in(self.cx.source, span)
    }

    fn resolve(&mut self, name: &str, expr: &Expr, place: Place) -> Result<Val, Diagnostic> {
        if let Some(m) = self.cx.macros.object(name) {
            if let Some(v) = m.value {
                self.params.insert(name.to_string(), (m.origin, Some(v)));
                return Ok(Val::Aff(Lin::sym(Sym::Param(name.to_string()))));
            }
            return Err(not_affine(self, place, &expr.span, "macro"));
        }
        let var = self
            .cx
            .scopes
            .lookup(name, self.at)
            .map(|i| &self.cx.scopes.vars[i]);
        match var {
            Some(v)
                if !v.is_array()
                    && !v.is_pointer()
                    && is_signed_integer_type_text(&v.decl.type_text)
                    && (v.in_function || v.is_const()) =>
            {
                let origin = match v.storage {
                    crate::ir::Storage::FunctionParam => ParamOrigin::FunctionParam,
                    crate::ir::Storage::Local => ParamOrigin::Variable,
                    _ if v.is_const() => ParamOrigin::ConstGlobal,
                    _ => ParamOrigin::Variable,
                };
                let value = if origin == ParamOrigin::ConstGlobal {
                    v.dc.init.as_ref().and_then(|i| self.cx.macros.eval_expr(i))
                } else {
                    None
                };
                self.params.insert(name.to_string(), (origin, value));
                Ok(Val::Aff(Lin::sym(Sym::Param(name.to_string()))))
            }
            _ => Err(not_affine(self, place, &expr.span, "not a parameter")),
        }
    }

    fn expand_call(&mut self, name: &str, call: &Expr, args: &[Expr]) -> Option<Expr> {
        self.cx.macros.expand_call(name, call, args)
    }

    fn text(&self, span: &Range<usize>) -> String {
        self.cx.source.get(span.clone()).unwrap_or("").to_string()
    }

    fn param_value(&self, name: &str) -> Option<i64> {
        self.params.get(name).and_then(|(_, v)| *v)
    }

    fn note_value_use(&mut self, name: &str) {
        self.value_uses.insert(name.to_string());
    }
}

/// The columns of a statement's rows, in order: the parameters, the loop
/// iterators (`n_loops`), the quotient dimensions of the subscripts
/// (`quots`), the stride existentials of the loops at depths `exists`,
/// then one existential per quotient of the conditions (`divs`).
#[derive(Clone, Copy)]
struct Columns<'c> {
    params: &'c [String],
    n_loops: usize,
    quots: &'c [Div],
    exists: &'c [usize],
    divs: &'c [Div],
}

impl<'c> Columns<'c> {
    /// Parameters only (extents, the context).
    fn params(params: &'c [String]) -> Columns<'c> {
        Columns {
            params,
            n_loops: 0,
            quots: &[],
            exists: &[],
            divs: &[],
        }
    }

    fn width(&self) -> usize {
        self.params.len() + self.n_loops + self.quots.len() + self.exists.len() + self.divs.len()
    }

    /// The row `[columns | constant]` of a linear form; `None` on overflow
    /// or for a symbol with no column.
    fn row(&self, l: &Lin) -> Option<Vec<i64>> {
        let np = self.params.len();
        let nq = self.quots.len();
        let mut row = vec![0i64; self.width() + 1];
        for (s, c) in &l.terms {
            let col = match s {
                Sym::Param(p) => self.params.iter().position(|q| q == p)?,
                Sym::Iter(k) if *k < self.n_loops => np + k,
                Sym::Exist(k) => {
                    np + self.n_loops + nq + self.exists.iter().position(|d| d == k)?
                }
                // A quotient of the conditions is their own existential
                // (even when a subscript has the same one): the rows that
                // name a quotient dimension are only its definition.
                Sym::Div(d) => match self.divs.iter().position(|x| x == &**d) {
                    Some(e) => np + self.n_loops + nq + self.exists.len() + e,
                    None => np + self.n_loops + self.quots.iter().position(|x| x == &**d)?,
                },
                Sym::Iter(_) => return None,
            };
            row[col] = row[col].checked_add(*c)?;
        }
        *row.last_mut()? = l.constant;
        Some(row)
    }
}

/// `b` with the definition of each quotient `num / den` of `defs`, whose
/// value is column `col` of the rows, with C's truncation:
/// `0 <= num - den·q <= den - 1` where `num >= 0` and
/// `0 <= den·q - num <= den - 1` where `num < 0`, and a floor quotient
/// (see [`Div::floor`]) `0 <= num - den·q <= den - 1` whatever the sign.
/// One piece per sign combination (of the truncating quotients); pieces
/// with no integer point are dropped (when the solver
/// cannot tell, the piece stays: an extra empty piece changes nothing).
/// `None` on overflow or when there would be more than `MAX_DISJUNCTS`
/// pieces.
fn define_quotients(b: BasicSet, defs: &[(&Div, usize)], cols: &Columns) -> Option<Vec<BasicSet>> {
    let mut pieces = vec![b];
    for (d, col) in defs {
        let num = cols.row(&d.num)?;
        // num - den·q
        let mut rest = num.clone();
        rest[*col] = rest[*col].checked_sub(d.den)?;
        let neg = |r: &[i64]| {
            r.iter()
                .map(|v| v.checked_neg())
                .collect::<Option<Vec<i64>>>()
        };
        let plus = |r: &[i64], c: i64| -> Option<Vec<i64>> {
            let mut r = r.to_vec();
            let last = r.len() - 1;
            r[last] = r[last].checked_add(c)?;
            Some(r)
        };
        // num >= 0: rest >= 0 and den - 1 - rest >= 0.
        let positive = [num.clone(), rest.clone(), plus(&neg(&rest)?, d.den - 1)?];
        // num <= -1: -rest >= 0 and rest + den - 1 >= 0.
        let negative = [plus(&neg(&num)?, -1)?, neg(&rest)?, plus(&rest, d.den - 1)?];
        // Rounded down: rest >= 0 and den - 1 - rest >= 0 for every sign.
        let floor = [rest.clone(), plus(&neg(&rest)?, d.den - 1)?];
        let cases: Vec<&[Vec<i64>]> = if d.floor {
            vec![&floor]
        } else {
            vec![&positive, &negative]
        };
        let mut next = Vec::with_capacity(2 * pieces.len());
        for p in &pieces {
            for rows in cases.iter().copied() {
                let mut q = p.clone();
                for r in rows {
                    if !q.ineqs.contains(r) {
                        q.add_ineq(r.clone());
                    }
                }
                let mut budget = crate::poly::Budget::steps(100_000);
                if !matches!(
                    crate::poly::simplex::integer_point(&q, &mut budget),
                    Ok(None)
                ) {
                    next.push(q);
                }
            }
        }
        if next.len() > super::affine::MAX_DISJUNCTS {
            return None;
        }
        pieces = next;
    }
    Some(pieces)
}

fn lin_to_aff(l: &Lin, cols: &Columns) -> Option<AffExpr> {
    let row = cols.row(l)?;
    let (coeffs, c) = row.split_at(row.len() - 1);
    Some(AffExpr {
        coeffs: coeffs.to_vec(),
        constant: c[0],
    })
}

/// The C text of quotient `d`: `(num / den)`, with the loops' names, the
/// parameters' texts and the earlier quotients' texts for the symbols; a
/// floor quotient is `((num - (num & (den - 1))) / den)` (an exact
/// division in two's complement).
fn quotient_text(
    d: &Div,
    params: &[String],
    param_texts: &[String],
    loops: &[String],
    quots: &[Div],
    texts: &[String],
) -> Option<String> {
    let mut terms = Vec::new();
    for (s, c) in &d.num.terms {
        let name = match s {
            Sym::Param(p) => param_texts.get(params.iter().position(|q| q == p)?)?,
            Sym::Iter(k) => loops.get(*k)?,
            Sym::Div(inner) => texts.get(quots.iter().position(|x| x == &**inner)?)?,
            Sym::Exist(_) => return None,
        };
        terms.push((*c, name.clone()));
    }
    let num = crate::util::c_text::affine_text(&terms, d.num.constant);
    let single = d.num.constant == 0 && terms.len() == 1 && terms[0].0 == 1;
    if d.floor {
        let operand = if single { num } else { format!("({num})") };
        return Some(format!(
            "(({operand} - ({operand} & {})) / {})",
            d.den - 1,
            d.den
        ));
    }
    Some(if single {
        format!("({num} / {})", d.den)
    } else {
        format!("(({num}) / {})", d.den)
    })
}

struct StmtBuilder<'b, 'a> {
    cx: &'b LowerContext<'a>,
    params: &'b [String],
    /// The known values of `params` (fixed where the rotating indices'
    /// starts are proven non-negative).
    param_values: &'b [Option<i64>],
    /// The parameters as C operands (see [`Scop::param_texts`]).
    param_texts: &'b [String],
    array_of_var: &'b HashMap<usize, ArrayId>,
    arrays: &'b [Array],
    stmts: &'b mut Vec<Stmt>,
    failed: bool,
}

impl<'b> StmtBuilder<'b, '_> {
    fn walk<'n>(
        &mut self,
        nodes: &[&'n Node],
        loops: &mut Vec<&'n LoopNode>,
        prefix: &mut Vec<SchedEntry>,
    ) {
        for (pos, node) in nodes.iter().enumerate() {
            prefix.push(SchedEntry::Const(pos as i64));
            match node {
                Node::Loop(l) => {
                    prefix.push(SchedEntry::Iter {
                        index: loops.len(),
                        sign: l.sign,
                    });
                    loops.push(l);
                    let body: Vec<&Node> = l.body.iter().collect();
                    self.walk(&body, loops, prefix);
                    loops.pop();
                    prefix.pop();
                }
                Node::Stmt(s) => match self.stmt(s, loops, prefix) {
                    Some(st) => self.stmts.push(st),
                    None => self.failed = true,
                },
            }
            prefix.pop();
        }
    }

    fn stmt(&self, s: &StmtNode, loops: &[&LoopNode], prefix: &[SchedEntry]) -> Option<Stmt> {
        let id = StmtId(self.stmts.len() as u32);
        let name = format!("S{}", id.0);
        let loop_iters: Vec<String> = loops.iter().map(|l| l.iter.clone()).collect();
        let n_loops = loop_iters.len();
        let exists: Vec<usize> = loops
            .iter()
            .enumerate()
            .filter(|(_, l)| l.strided)
            .map(|(d, _)| d)
            .collect();
        let accesses: Vec<&RawAccess> = std::iter::once(&s.write)
            .chain(s.reads.iter().filter(|r| !is_param_read(r, self.params)))
            .collect();
        // The quotients of the subscripts (`A[i % 2]`, `B[i / 2]`) are
        // dimensions of the statement, after its loops: a subscript is an
        // affine function of them.
        let mut quots: Vec<Div> = Vec::new();
        for a in &accesses {
            for l in &a.subs {
                l.collect_divs(&mut quots);
            }
        }
        let mut quotients: Vec<String> = Vec::new();
        for d in &quots {
            let text = quotient_text(
                d,
                self.params,
                self.param_texts,
                &loop_iters,
                &quots,
                &quotients,
            )?;
            quotients.push(text);
        }
        let mut iters = loop_iters.clone();
        iters.extend(fresh_names("q", quots.len(), self.params, &loop_iters));
        let tuple = Tuple {
            name: Some(name.clone()),
            dims: iters.clone(),
        };
        let space = Space::set(self.params.to_vec(), tuple.clone());
        let mut base: Vec<Constraint> = Vec::new();
        let mut loop_domains = Vec::new();
        for l in loops {
            base.extend(l.cons.iter().cloned());
            loop_domains.push(self.domain_of(&Dnf(vec![base.clone()]), &space, &quots, &exists)?);
            // A rotating index that steps by its modulus or more holds no
            // residue: only a loop that runs no iteration may have one.
            if l.never_runs && !self.proves_empty(loop_domains.last()?) {
                self.cx.rotation_unproven.set(true);
                return None;
            }
            // A rotating index started by `e % b` holds the residue only
            // if `e >= 0` wherever the loop runs.
            for arg in &l.starts_non_negative {
                let negative = Constraint::ge0(Lin::constant(-1).sub(arg)?);
                let mut conj = base.clone();
                conj.push(negative);
                let set = self.domain_of(&Dnf(vec![conj]), &space, &quots, &exists)?;
                if !self.proves_empty(&set) {
                    self.cx.rotation_unproven.set(true);
                    return None;
                }
            }
        }
        let mut dnf = Dnf(vec![base]);
        for c in &s.conds {
            dnf = dnf.and(c)?;
        }
        let domain = self.domain_of(&dnf, &space, &quots, &exists)?;
        let cols = Columns {
            params: self.params,
            n_loops,
            quots: &quots,
            exists: &[],
            divs: &[],
        };
        let write = self.access(&s.write, &tuple, &cols)?;
        let mut reads = Vec::new();
        for r in &s.reads {
            if is_param_read(r, self.params) {
                continue;
            }
            reads.push(self.access(r, &tuple, &cols)?);
        }
        let body_text = self.cx.source.get(s.span.clone())?.to_string();
        // A quotient dimension comes after the loops in the schedule: it
        // is a function of them, so it orders nothing.
        let mut schedule = prefix.to_vec();
        let mut parallel: Vec<Option<crate::ir::ParallelMark>> =
            loops.iter().map(|l| l.parallel.clone()).collect();
        for k in 0..quots.len() {
            schedule.push(SchedEntry::Iter {
                index: n_loops + k,
                sign: 1,
            });
            schedule.push(SchedEntry::Const(0));
            parallel.push(None);
        }
        Some(Stmt {
            id,
            name,
            iterators: iters,
            quotients,
            domain,
            loop_domains,
            schedule,
            write,
            reads,
            span: s.span.clone(),
            body_text,
            parallel,
            calls: s
                .calls
                .iter()
                .map(|c| {
                    let (name, (effect, source)) = match &c.name {
                        Some(n) => (n.clone(), self.cx.effects.of(n)),
                        None => (
                            "(*pointer)".to_string(),
                            (crate::ir::Effect::Writes, crate::ir::EffectSource::Pointer),
                        ),
                    };
                    crate::ir::Call {
                        name,
                        span: c.span.clone(),
                        effect,
                        source,
                    }
                })
                .collect(),
            iterator_types: loops.iter().map(|l| l.iter_type.clone()).collect(),
            data_conds: s.data_conds.clone(),
            // A value with a quotient would need a dimension of its own:
            // its name stays unknown to the checks of new texts.
            scalar_values: s
                .values
                .iter()
                .filter(|(_, l)| !l.has_div())
                .filter_map(|(n, l)| Some((n.clone(), lin_to_aff(l, &cols)?)))
                .collect(),
        })
    }

    /// Whether `set` has no integer point for the known values of the
    /// parameters (symbolic where none is known), within a small budget.
    fn proves_empty(&self, set: &Set) -> bool {
        let mut budget = crate::poly::Budget::new(200_000, None);
        set.pieces.iter().all(|piece| {
            let mut q = piece.clone();
            for (k, v) in self.param_values.iter().enumerate() {
                if let Some(v) = v {
                    let mut row = q.zero_row();
                    row[k] = 1;
                    let last = row.len() - 1;
                    row[last] = -v;
                    q.add_eq(row);
                }
            }
            matches!(
                crate::poly::simplex::integer_point(&q, &mut budget),
                Ok(None)
            )
        })
    }

    /// The set of the conjunctions `dnf` over the statement's `space`
    /// (loops, then the quotients `quots`; `exists` the strided loops).
    fn domain_of(&self, dnf: &Dnf, space: &Space, quots: &[Div], exists: &[usize]) -> Option<Set> {
        let n_loops = space.domain.dims.len() - quots.len();
        let mut domain = Set::empty(space.clone());
        for conj in &dnf.0 {
            let mut divs: Vec<Div> = Vec::new();
            for c in conj {
                c.lin.collect_divs(&mut divs);
            }
            let cols = Columns {
                params: self.params,
                n_loops,
                quots,
                exists,
                divs: &divs,
            };
            let mut b = BasicSet::universe(space.clone());
            for _ in 0..exists.len() + divs.len() {
                b.add_exist();
            }
            for c in conj {
                let row = cols.row(&c.lin)?;
                if c.is_eq {
                    if !b.eqs.contains(&row) {
                        b.add_eq(row);
                    }
                } else if !b.ineqs.contains(&row) {
                    b.add_ineq(row);
                }
            }
            let np = self.params.len();
            let mut defs: Vec<(&Div, usize)> = Vec::new();
            for (k, d) in quots.iter().enumerate() {
                defs.push((d, np + n_loops + k));
            }
            let first_div = np + n_loops + quots.len() + exists.len();
            for (k, d) in divs.iter().enumerate() {
                defs.push((d, first_div + k));
            }
            for b in define_quotients(b, &defs, &cols)? {
                if !domain.pieces.contains(&b) {
                    domain.push(b);
                }
            }
        }
        Some(domain)
    }

    fn access(&self, a: &RawAccess, tuple: &Tuple, cols: &Columns) -> Option<Access> {
        let array = *self.array_of_var.get(&a.var)?;
        let arr = &self.arrays[array.0 as usize];
        let mut subscripts = Vec::new();
        for l in &a.subs {
            subscripts.push(lin_to_aff(l, cols)?);
        }
        let out_names = fresh_names("o", a.subs.len(), self.params, &tuple.dims);
        let space = Space::relation(
            self.params.to_vec(),
            tuple.clone(),
            Tuple {
                name: Some(arr.name.clone()),
                dims: out_names,
            },
        );
        let mut b = BasicSet::universe(space);
        let np = self.params.len();
        let nd = tuple.dims.len();
        for (k, s) in subscripts.iter().enumerate() {
            // o_k - s = 0
            let mut row = vec![0i64; np + nd + a.subs.len() + 1];
            for (c, v) in s.coeffs.iter().enumerate() {
                row[c] = v.checked_neg()?;
            }
            row[np + nd + k] = 1;
            *row.last_mut()? = s.constant.checked_neg()?;
            b.add_eq(row);
        }
        Some(Access {
            array,
            kind: a.kind,
            subscripts,
            relation: Set::from_basic(b),
            span: a.span.clone(),
            subscript_spans: a.sub_spans.clone(),
            name_span: a.name_span.clone(),
        })
    }
}

/// `n` names `base0, base1, ...` that clash with no parameter or iterator
/// (a `_` is appended until they do not).
pub(crate) fn fresh_names(
    base: &str,
    n: usize,
    params: &[String],
    iters: &[String],
) -> Vec<String> {
    let mut b = base.to_string();
    loop {
        let names: Vec<String> = (0..n).map(|k| format!("{b}{k}")).collect();
        let clash = names
            .iter()
            .any(|x| params.contains(x) || iters.contains(x));
        if !clash {
            return names;
        }
        b.push('_');
    }
}
