//! Affine analysis of one statement (a loop nest, an `if`, an assignment):
//! it either yields a tree of loops and statements with affine constraints
//! and accesses, or rejects the statement with diagnostics.
//!
//! This module does not decide where SCoPs start and end (see `detect`),
//! and does not build IR sets (see `lower`).

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::ops::Range;

mod data_if;
mod linear_split;

use super::affine::{
    Constraint, Dnf, Lin, MAX_DISJUNCTS, Place, Resolver, Sym, Val, is_signed_integer_type_text,
    not_affine, strip_eq, to_dnf, to_lin, to_val,
};
use super::labels::{GotoTargets, labelled};
use super::macros::Macros;
use super::rotating::BodyForm;
use super::scope::{Role, Scopes};
use super::substitute::{Binding, Bound};
use super::syntax::Pragma;
use super::syntax::{BinOp, CStmt, Expr, ExprKind, ForInit};
use crate::diag::{Code, Diagnostic, Severity};
use crate::ir::{AccessKind, ForHeader, ParallelMark, ParamOrigin, Placement, StmtId, SyntaxNode};

/// An access found by the analysis, before array ids exist.
#[derive(Clone, Debug)]
pub(crate) struct RawAccess {
    /// The variable (index into `Scopes::vars`).
    pub var: usize,
    pub name: String,
    pub kind: AccessKind,
    pub subs: Vec<Lin>,
    pub span: Range<usize>,
    pub sub_spans: Vec<Range<usize>>,
    pub name_span: Range<usize>,
    /// Parameters whose known value the subscripts folded (`tangent[N * j]`
    /// is `tangent[6j]` for `N = 6`): the model depends on those values
    /// only when the array is written in the SCoP (the subscripts of an
    /// array it only reads decide no dataflow).
    pub value_uses: BTreeSet<String>,
}

/// A node of an analysed tree.
#[derive(Clone, Debug)]
pub enum Node {
    Loop(LoopNode),
    Stmt(StmtNode),
}

#[derive(Clone, Debug)]
pub(crate) struct LoopNode {
    pub iter: String,
    /// The iterator's declared type (`int`, `long`).
    pub iter_type: String,
    /// Constraints over the enclosing iterators, this one (`Iter(depth)`),
    /// its stride existential (`Exist(depth)`) and parameters.
    pub cons: Vec<Constraint>,
    pub strided: bool,
    /// +1 for an increasing loop, -1 for a decreasing one.
    pub sign: i64,
    pub body: Vec<Node>,
    /// The pragma that marks the loop parallel, if any (see `parallel`).
    pub parallel: Option<ParallelMark>,
    /// Forms (over the enclosing iterators, this one and parameters) that
    /// must be non-negative wherever the header runs: the arguments of
    /// rotating indices started by a truncating `e % b`.
    pub starts_non_negative: Vec<Lin>,
    /// A rotating index steps by the modulus or more: lowering must prove
    /// that the loop runs no iteration (for the known values).
    pub never_runs: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct StmtNode {
    pub write: RawAccess,
    pub reads: Vec<RawAccess>,
    /// The calls of its expression (macro expansions included).
    pub calls: Vec<RawCall>,
    /// The `if` conditions around the statement (inside the analysed tree).
    pub conds: Vec<Dnf>,
    /// The conditions that read data around it, outermost first (see
    /// `analyze::data_if`).
    pub data_conds: Vec<Range<usize>>,
    pub span: Range<usize>,
    /// The scalars its subscripts name whose affine value was substituted
    /// (see `frontend::substitute`), with that value.
    pub values: Vec<(String, Lin)>,
}

/// The reads and calls of data conditions that the next assignment takes
/// (see `analyze::data_if`).
#[derive(Clone, Debug, Default)]
pub(crate) struct Pending {
    reads: Vec<RawAccess>,
    calls: Vec<RawCall>,
}

/// A call in a statement: the function's name (`None` through a
/// pointer) and the call's span (a macro's call for an expansion).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RawCall {
    pub name: Option<String>,
    pub span: Range<usize>,
}

/// The result of analysing one top-level statement.
#[derive(Clone, Debug)]
pub(crate) struct Analyzed {
    pub nodes: Vec<Node>,
    pub span: Range<usize>,
    /// Names written by the statement.
    pub writes: BTreeSet<String>,
    /// Parameters used in affine positions, with their origin and value.
    pub params: BTreeMap<String, (ParamOrigin, Option<i64>)>,
    pub has_loop: bool,
    /// Iterators of the loops of the statement.
    pub iterators: BTreeSet<String>,
    /// Scalars read on right-hand sides.
    pub scalar_reads: BTreeSet<String>,
    /// Parameters whose known value an affine form uses (a product, `/`
    /// or `%` folded to a number): the SCoP is exact for that value only.
    pub value_uses: BTreeSet<String>,
    /// Scalars (by variable) whose uses in subscripts, bounds or
    /// conditions were read as the affine value assigned to them earlier
    /// in the block (see `frontend::substitute`).
    pub substituted: BTreeSet<usize>,
    /// The statement as a syntax node; its statements carry a placeholder
    /// id ([`UNNUMBERED`]) until lowering numbers them.
    pub node: SyntaxNode,
    /// Where the statement sits in its parent.
    pub placement: Placement,
    /// The `#pragma` lines right before it that apply to it.
    pub pragmas: Vec<Range<usize>>,
}

/// The id of a statement of a [`SyntaxNode`] before lowering numbers it.
pub(crate) const UNNUMBERED: StmtId = StmtId(u32::MAX);

/// Whether `stmt` is a `#pragma` line that applies to the statement after
/// it (`#pragma omp ...`, `#pragma GCC ivdep`, ...), or a conditional or a
/// `_Pragma` that holds one (see [`CStmt::Preproc`]). polyfold's own
/// pragmas (`scop`, `endscop`, `polyfold ...`) apply to nothing.
pub(crate) fn is_statement_pragma(stmt: &CStmt) -> bool {
    matches!(
        stmt,
        CStmt::Preproc {
            applies_to_next: true,
            ..
        }
    )
}

/// The syntax node of a statement accepted by the analysis (statements get
/// the placeholder id [`UNNUMBERED`]).
pub(crate) fn syntax_node(stmt: &CStmt, source: &str, scopes: &Scopes) -> SyntaxNode {
    match stmt {
        CStmt::Expr { span, .. } => SyntaxNode::Stmt {
            id: UNNUMBERED,
            span: span.clone(),
        },
        CStmt::For {
            init,
            update,
            body,
            span,
            header_span,
            ..
        } => {
            // The loop's iterator may be read after it (then the loop
            // stays, for the iterator's final value).
            let keeps_iterator = match init {
                ForInit::Expr(Expr {
                    kind: ExprKind::Assign(None, lhs, _),
                    ..
                }) => match &lhs.kind {
                    ExprKind::Ident(n) => scopes
                        .lookup(n, lhs.span.start)
                        .is_none_or(|var| !scopes.iterator_dead_after(var, span)),
                    _ => true,
                },
                // `for (int i = ...)`: the iterator dies with the loop.
                ForInit::Decl(_) => false,
                ForInit::None | ForInit::Expr(_) => true,
            };
            SyntaxNode::For {
                span: span.clone(),
                header: for_header(init, update.as_ref(), header_span, source),
                body: Box::new(syntax_node(body, source, scopes)),
                keeps_iterator,
            }
        }
        CStmt::If {
            then,
            els,
            else_start,
            span,
            ..
        } => SyntaxNode::If {
            span: span.clone(),
            then: Box::new(syntax_node(then, source, scopes)),
            els: els
                .as_ref()
                .map(|e| Box::new(syntax_node(e, source, scopes))),
            else_start: *else_start,
        },
        CStmt::Compound { items, span } => SyntaxNode::Block {
            span: span.clone(),
            items: items
                .iter()
                .map(|i| syntax_node(i, source, scopes))
                .collect(),
        },
        CStmt::Empty { span } => SyntaxNode::Empty { span: span.clone() },
        CStmt::Other { span, .. } if let Some((label, inner)) = labelled(stmt) => {
            SyntaxNode::Labeled {
                span: span.clone(),
                label: label.to_string(),
                body: Box::new(syntax_node(inner, source, scopes)),
            }
        }
        CStmt::Preproc { span, .. } if is_statement_pragma(stmt) => {
            SyntaxNode::Pragma { span: span.clone() }
        }
        other => SyntaxNode::Kept { span: other.span() },
    }
}

/// The parts of a `for` header that code generation may extend (see
/// [`ForHeader`]): the initialisation assigns or declares (one declarator)
/// the iterator, and the update steps it by one, each written in the
/// header's own text (not from a macro's expansion).
fn for_header(
    init: &ForInit,
    update: Option<&Expr>,
    header: &Range<usize>,
    source: &str,
) -> Option<ForHeader> {
    let text = |r: &Range<usize>| source.get(r.clone());
    let inside = |r: &Range<usize>| header.start < r.start && r.end < header.end;
    // The `for` keyword itself (not a loop macro such as `for_each(...)`,
    // whose header is the macro's text: it is never rewritten).
    let keyword = text(header)?.strip_prefix("for")?;
    if keyword.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    let (iterator, init_end, declares) = match init {
        ForInit::Expr(Expr {
            kind: ExprKind::Assign(None, lhs, _),
            span,
            from_macro: false,
        }) => match &lhs.kind {
            ExprKind::Ident(n) if inside(span) => (n.clone(), span.end, None),
            _ => return None,
        },
        ForInit::Decl(decl) => {
            let [dc] = decl.declarators.as_slice() else {
                return None;
            };
            let init = dc.init.as_ref()?;
            if !inside(&init.span)
                || init.from_macro
                || dc.from_macro
                || !decl.qualifiers.is_empty()
            {
                return None;
            }
            (dc.name.clone(), init.span.end, Some(decl.type_text.clone()))
        }
        _ => return None,
    };
    let update = update?;
    if !inside(&update.span) || update.from_macro {
        return None;
    }
    let compact: String = text(&update.span)?
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let it = iterator.as_str();
    let step = if [
        format!("{it}++"),
        format!("++{it}"),
        format!("{it}+=1"),
        format!("{it}={it}+1"),
    ]
    .contains(&compact)
    {
        1
    } else if [
        format!("{it}--"),
        format!("--{it}"),
        format!("{it}-=1"),
        format!("{it}={it}-1"),
    ]
    .contains(&compact)
    {
        -1
    } else {
        return None;
    };
    Some(ForHeader {
        iterator,
        step,
        init_end,
        declares,
        update_end: update.span.end,
    })
}

/// Names a statement may write: assignment and update targets, variables
/// whose address is taken, declared variables.
pub(crate) fn written_names(stmt: &CStmt) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    stmt.walk_exprs(&mut |e: &Expr| match &e.kind {
        ExprKind::Assign(_, lhs, _) | ExprKind::Update(_, lhs) | ExprKind::AddrOf(lhs) => {
            if let Some(n) = root_name(lhs) {
                out.insert(n.to_string());
            }
        }
        _ => {}
    });
    collect_decl_names(stmt, &mut out);
    out
}

/// Names assigned by the initialisation of some `for` loop of a statement.
pub(crate) fn loop_iterator_names(stmt: &CStmt) -> BTreeSet<String> {
    fn walk(s: &CStmt, out: &mut BTreeSet<String>) {
        match s {
            CStmt::For { init, body, .. } => {
                match init {
                    ForInit::Expr(Expr {
                        kind: ExprKind::Assign(None, lhs, _),
                        ..
                    }) => {
                        if let Some(n) = root_name(lhs) {
                            out.insert(n.to_string());
                        }
                    }
                    ForInit::Decl(d) => out.extend(d.declarators.iter().map(|d| d.name.clone())),
                    _ => {}
                }
                walk(body, out);
            }
            CStmt::If { then, els, .. } => {
                walk(then, out);
                if let Some(e) = els {
                    walk(e, out);
                }
            }
            CStmt::Compound { items, .. } => items.iter().for_each(|i| walk(i, out)),
            CStmt::Other { children, .. } => children.iter().for_each(|i| walk(i, out)),
            _ => {}
        }
    }
    let mut out = BTreeSet::new();
    walk(stmt, &mut out);
    out
}

fn collect_decl_names(stmt: &CStmt, out: &mut BTreeSet<String>) {
    match stmt {
        CStmt::Decl { decl, .. } => out.extend(decl.declarators.iter().map(|d| d.name.clone())),
        CStmt::For { init, body, .. } => {
            if let ForInit::Decl(d) = init {
                out.extend(d.declarators.iter().map(|d| d.name.clone()));
            }
            collect_decl_names(body, out);
        }
        CStmt::If { then, els, .. } => {
            collect_decl_names(then, out);
            if let Some(e) = els {
                collect_decl_names(e, out);
            }
        }
        CStmt::Compound { items, .. } => items.iter().for_each(|i| collect_decl_names(i, out)),
        CStmt::Other { children, .. } => children.iter().for_each(|i| collect_decl_names(i, out)),
        _ => {}
    }
}

fn root_name(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Ident(n) => Some(n),
        ExprKind::Subscript(b, _)
        | ExprKind::Field(b)
        | ExprKind::Deref(b)
        | ExprKind::AddrOf(b)
        | ExprKind::Cast(_, b) => root_name(b),
        ExprKind::Binary(BinOp::Add | BinOp::Sub, a, b) => root_name(a).or_else(|| root_name(b)),
        _ => None,
    }
}

/// Whether a statement contains a loop.
pub fn contains_loop(stmt: &CStmt) -> bool {
    match stmt {
        CStmt::For { .. } => true,
        CStmt::If { then, els, .. } => {
            contains_loop(then) || els.as_deref().is_some_and(contains_loop)
        }
        CStmt::Compound { items, .. } => items.iter().any(contains_loop),
        CStmt::Other { kind, children, .. } => {
            matches!(kind.as_str(), "while_statement" | "do_statement")
                || children.iter().any(contains_loop)
        }
        _ => false,
    }
}

/// Analyses statements against one source file.
pub(crate) struct Analyzer<'a> {
    pub source: &'a str,
    pub macros: &'a Macros,
    pub scopes: &'a Scopes<'a>,
    /// Names written by the statement being analysed.
    written: BTreeSet<String>,
    /// Enclosing loop iterators of the analysed tree, outermost first.
    loops: Vec<String>,
    conds: Vec<Dnf>,
    params: BTreeMap<String, (ParamOrigin, Option<i64>)>,
    value_uses: BTreeSet<String>,
    pub diags: Vec<Diagnostic>,
    has_loop: bool,
    /// Iterators of all loops of the statement being analysed.
    iterators: BTreeSet<String>,
    scalar_reads: BTreeSet<String>,
    /// How many macro expansions are in progress (bounded, so that
    /// self-referential macros cannot recurse forever).
    macro_depth: usize,
    /// The `#pragma` lines of the file (to find loops marked parallel).
    pragmas: &'a [Pragma],
    /// A `collapse(k)` of an enclosing loop still marking nested loops:
    /// the mark and how many more loops it covers.
    collapse: Option<(ParallelMark, usize)>,
    /// The rotating indices of the enclosing loops' headers, with the
    /// residue each holds (see [`Analyzer::rotating_indices`]).
    aliases: Vec<(String, Val)>,
    /// The calls met since the statement being analysed began.
    calls: Vec<RawCall>,
    /// The enclosing `if`s whose conditions read data (see [`data_if`]).
    data_conds: Vec<Range<usize>>,
    /// The reads and calls of such conditions that the next statement
    /// takes (see [`data_if`]).
    pending: Option<Pending>,
    /// The labels of the function a `goto` may jump to (`None`: not
    /// known, every label may be one).
    goto_targets: Option<GotoTargets>,
    /// The scalars with an affine value from an assignment earlier in an
    /// enclosing block, innermost last (see `frontend::substitute`).
    bindings: Vec<Binding>,
    /// Reads of bound scalars whose value a subscript, bound or condition
    /// used since the last statement or loop header took them, with the
    /// affine values used.
    substituted_reads: Vec<RawAccess>,
    substituted_values: Vec<(String, Lin)>,
    /// The reads of bound scalars by the headers and conditions around
    /// the statement being analysed: each statement inside reads them.
    control_reads: Vec<RawAccess>,
    /// The variables of [`Analyzed::substituted`].
    substituted: BTreeSet<usize>,
    /// Linearised local tables with a subscript that does not split into
    /// a row and a column, by name, with why (see
    /// `frontend::linear_local`): the file is read again without them.
    pub(crate) linear_refused: Vec<(String, String)>,
    /// Linearised local tables with an access whose one subscript is not
    /// affine as written, or only with a known value: those the split
    /// serves (the others are refused, see `frontend::linear_local`).
    pub(crate) linear_needed: Vec<String>,
}

/// The iterator of a `for` loop, as its header declares it.
struct LoopIterator<'e> {
    name: String,
    /// Its declared type (`int`, `long`).
    type_text: String,
    /// Its initial value.
    init: &'e Expr,
    /// Rotating indices assigned after it (`i = 0, r = e % b`).
    rotating_inits: Vec<(&'e Expr, &'e Expr)>,
    /// Rotating indices declared after it (`int i = 0, r = e % b`).
    declared_rotating: Vec<&'e super::syntax::Declarator>,
}

/// A rotating index of a loop's header.
struct Rotating {
    name: String,
    /// What it holds at every iteration: `e % b` (or `(e % b + b) % b`).
    value: Val,
    /// `e` for the form `e % b`: it must be non-negative where the loop
    /// runs.
    truncating_start: Option<Lin>,
    /// The step is not below the modulus: the loop must run no iteration.
    never_runs: bool,
    delta: i64,
    modulus: i64,
}

/// The operands of a chain of commas, left to right (`a, b, c`).
fn comma_parts(e: &Expr) -> Vec<&Expr> {
    match &e.kind {
        ExprKind::Comma(a, b) => {
            let mut out = comma_parts(a);
            out.extend(comma_parts(b));
            out
        }
        _ => vec![e],
    }
}

/// The most nested macro expansions the analysis follows.
const MAX_MACRO_DEPTH: usize = 16;

type Res<T> = Result<T, ()>;

impl<'a> Analyzer<'a> {
    pub fn new(source: &'a str, macros: &'a Macros, scopes: &'a Scopes<'a>) -> Analyzer<'a> {
        Analyzer {
            source,
            macros,
            scopes,
            written: BTreeSet::new(),
            loops: Vec::new(),
            conds: Vec::new(),
            params: BTreeMap::new(),
            value_uses: BTreeSet::new(),
            diags: Vec::new(),
            has_loop: false,
            iterators: BTreeSet::new(),
            scalar_reads: BTreeSet::new(),
            macro_depth: 0,
            pragmas: &[],
            collapse: None,
            aliases: Vec::new(),
            calls: Vec::new(),
            data_conds: Vec::new(),
            pending: None,
            goto_targets: None,
            bindings: Vec::new(),
            substituted_reads: Vec::new(),
            substituted_values: Vec::new(),
            control_reads: Vec::new(),
            substituted: BTreeSet::new(),
            linear_refused: Vec::new(),
            linear_needed: Vec::new(),
        }
    }

    /// The labels of the function that a `goto` may jump to: the other
    /// labelled statements are read as their statements.
    pub(crate) fn with_goto_targets(mut self, targets: &GotoTargets) -> Analyzer<'a> {
        self.goto_targets = Some(targets.clone());
        self
    }

    /// The pragmas of the file, so that loops marked parallel are known.
    pub(crate) fn with_pragmas(mut self, pragmas: &'a [Pragma]) -> Analyzer<'a> {
        self.pragmas = pragmas;
        self
    }

    /// Analyses one top-level statement. On failure the diagnostics are in
    /// `self.diags`.
    /// `form`: the rotating indices of a loop in the body form, its starts
    /// from byte `start` on (the statement's span begins there).
    pub(crate) fn analyze_top(
        &mut self,
        stmt: &CStmt,
        form: Option<(&BodyForm, usize)>,
    ) -> Option<Analyzed> {
        self.written = written_names(stmt);
        self.data_conds.clear();
        self.pending = None;
        self.iterators = loop_iterator_names(stmt);
        self.scalar_reads.clear();
        self.loops.clear();
        self.conds.clear();
        self.params.clear();
        self.value_uses.clear();
        self.diags.clear();
        self.has_loop = false;
        self.collapse = None;
        self.bindings.clear();
        self.clear_substituted();
        self.control_reads.clear();
        self.substituted.clear();
        let nodes = self.stmt_with(stmt, form.map(|(f, _)| f)).ok()?;
        let span = match form {
            Some((_, start)) => start..stmt.span().end,
            None => stmt.span(),
        };
        Some(Analyzed {
            nodes,
            span,
            writes: self.written.clone(),
            params: std::mem::take(&mut self.params),
            has_loop: self.has_loop,
            iterators: self.iterators.clone(),
            scalar_reads: std::mem::take(&mut self.scalar_reads),
            value_uses: std::mem::take(&mut self.value_uses),
            substituted: std::mem::take(&mut self.substituted),
            node: syntax_node(stmt, self.source, self.scopes),
            // The caller knows the parent.
            placement: Placement::Sole,
            pragmas: Vec::new(),
        })
    }

    /// Refuses a statement whose domain, under the current conditions,
    /// would have more than [`MAX_DISJUNCTS`] pieces.
    fn check_disjuncts(&mut self, span: &std::ops::Range<usize>) -> Res<()> {
        let mut n: usize = 1;
        for c in &self.conds {
            n = n.saturating_mul(c.0.len().max(1));
        }
        if n > MAX_DISJUNCTS {
            let d = self.warn(
                Code::TooManyDisjuncts,
                "the conditions around this statement are too complex",
                span.clone(),
                format!("its domain would have more than {MAX_DISJUNCTS} pieces"),
            );
            self.reject(d)?;
        }
        Ok(())
    }

    fn reject(&mut self, d: Diagnostic) -> Res<Vec<Node>> {
        self.diags.push(d);
        Err(())
    }

    fn warn(
        &self,
        code: Code,
        message: impl Into<String>,
        span: Range<usize>,
        label: impl Into<String>,
    ) -> Diagnostic {
        debug_assert_eq!(code.severity(), Severity::Warning, "{code}");
        Diagnostic::new(code, message, span, label)
    }

    /// [`Self::stmt`]; a `for` loop is read with the rotating indices of
    /// its body form `form`, if any.
    fn stmt_with(&mut self, stmt: &CStmt, form: Option<&BodyForm>) -> Res<Vec<Node>> {
        match stmt {
            CStmt::For {
                init,
                cond,
                update,
                body,
                header_span,
                ..
            } => {
                let header = (init, cond.as_ref(), update.as_ref(), header_span);
                self.for_loop(header, body, form)
            }
            _ => self.stmt(stmt),
        }
    }

    fn stmt(&mut self, stmt: &CStmt) -> Res<Vec<Node>> {
        match stmt {
            CStmt::Empty { .. } | CStmt::Preproc { .. } => Ok(Vec::new()),
            CStmt::Decl { decl, span } => {
                if decl.declarators.iter().all(|d| d.init.is_none()) {
                    Ok(Vec::new())
                } else {
                    let d = self
                        .warn(
                            Code::InitialisedDeclaration,
                            "declaration with an initialiser inside a SCoP",
                            span.clone(),
                            "declarations are not modelled",
                        )
                        .with_note(
                            "declare the variable before the loop nest and assign it inside",
                        );
                    self.reject(d)
                }
            }
            CStmt::Compound { items, .. } => {
                // Loops with rotating indices in the body form: their
                // starts are read with the loop.
                let forms = self.body_forms(&items.iter().collect::<Vec<_>>());
                let mut out = Vec::new();
                let mut failed = false;
                // The bindings made in this block hold until its end.
                let bindings = self.bindings.len();
                for (k, it) in items.iter().enumerate() {
                    self.end_bindings_written_by(it);
                    if forms.iter().any(|(j, f)| (f.first..*j).contains(&k)) {
                        continue;
                    }
                    let form = forms.iter().find(|(j, _)| *j == k).map(|(_, f)| f);
                    match self.stmt_with(it, form) {
                        Ok(n) => {
                            out.extend(n);
                            self.bind_assignment(it);
                        }
                        Err(()) => failed = true,
                    }
                }
                self.bindings.truncate(bindings);
                if failed { Err(()) } else { Ok(out) }
            }
            CStmt::Expr { expr, span } => self.expr_stmt(expr, span),
            CStmt::If {
                cond, then, els, ..
            } => {
                self.clear_substituted();
                let dnf = match to_dnf(cond, Place::Condition, self) {
                    // Inside a condition that reads data, every `if` is
                    // modelled like one.
                    Ok(_) if !self.data_conds.is_empty() => {
                        return self.data_if(cond, then, els.as_deref(), None);
                    }
                    Ok(d) => d,
                    // A condition that reads data: an array element, or a
                    // scalar the SCoP writes (`if (max == left)`).
                    Err(d)
                        if matches!(d.code, Code::NonAffineCondition | Code::ParameterWritten) =>
                    {
                        return self.data_if(cond, then, els.as_deref(), Some(d));
                    }
                    Err(d) => return self.reject(d),
                };
                let Some(neg) = dnf.not() else {
                    let d = self.warn(
                        Code::TooManyDisjuncts,
                        format!("condition `{}` is too complex", self.text(&cond.span)),
                        cond.span.clone(),
                        format!("its negation has more than {MAX_DISJUNCTS} disjuncts"),
                    );
                    return self.reject(d);
                };
                // The statements of both branches read the scalars that
                // the condition's substituted values came from.
                let controls = self.control_reads.len();
                self.control_reads.append(&mut self.substituted_reads);
                self.substituted_values.clear();
                self.conds.push(dnf);
                let t = self.stmt(then);
                self.conds.pop();
                let r = match els {
                    Some(e) if t.is_ok() => {
                        self.conds.push(neg);
                        let r = self.stmt(e);
                        self.conds.pop();
                        Some(r)
                    }
                    _ => None,
                };
                self.control_reads.truncate(controls);
                let mut out = t?;
                if let Some(r) = r {
                    out.extend(r?);
                }
                Ok(out)
            }
            CStmt::For { .. } => self.stmt_with(stmt, None),
            CStmt::Other { .. } if let Some((label, inner)) = labelled(stmt) => {
                if self.goto_targets.as_ref().is_none_or(|t| t.contains(label)) {
                    let span = stmt.span();
                    let end = self.keyword_end(&span);
                    let d = self
                        .warn(
                            Code::UnsupportedStatement,
                            format!("label `{label}` is the target of a `goto`"),
                            span.start..end,
                            "a `goto` of this function may jump here",
                        )
                        .with_note("the labelled statement and everything around it in the same loop nest stay out of the SCoP; a label that no `goto` names is read through");
                    return self.reject(d);
                }
                self.stmt(inner)
            }
            CStmt::Other { kind, span, .. } => {
                let what = kind.trim_end_matches("_statement").replace('_', " ");
                let end = self.keyword_end(span);
                let d = self
                    .warn(
                        Code::UnsupportedStatement,
                        format!("unsupported statement: {what}"),
                        span.start..end,
                        "not a `for` loop, an `if` or an assignment",
                    )
                    .with_note("the statement and everything around it in the same loop nest stay out of the SCoP");
                self.reject(d)
            }
        }
    }

    /// The end of the first word of a span (to underline a keyword only).
    fn keyword_end(&self, span: &Range<usize>) -> usize {
        let text = &self.source[span.clone()];
        let n = text
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(text.len())
            .max(1)
            .min(text.len());
        span.start + n
    }

    /// A diagnostic for a loop whose header polyfold does not model
    /// (PF013), with the accepted form in a note.
    fn bad_loop_form(&self, span: Range<usize>, label: &str) -> Diagnostic {
        self.warn(
            Code::UnsupportedLoop,
            "unsupported loop form",
            span,
            label.to_string(),
        )
        .with_note("polyfold accepts `for (i = lb; i < ub; i++)` with `<`, `<=`, `>`, `>=` bounds and constant steps")
    }

    /// A `for` loop: its iterator, step, lower and upper bounds, rotating
    /// indices and parallel mark, then its body with the iterator in
    /// scope. A header polyfold does not model rejects the loop.
    fn for_loop(
        &mut self,
        (init, cond, update, header): (&ForInit, Option<&Expr>, Option<&Expr>, &Range<usize>),
        body: &CStmt,
        form: Option<&BodyForm>,
    ) -> Res<Vec<Node>> {
        self.has_loop = true;
        self.clear_substituted();
        let iterator = match self.loop_iterator(init, header) {
            Ok(it) => it,
            Err(d) => return self.reject(d),
        };
        let (step, rotating_updates) = match self.loop_step(update, header, &iterator.name) {
            Ok(s) => s,
            Err(d) => return self.reject(d),
        };
        // The body form: the body without the updates, which are read
        // with the starts as the header form's.
        let trimmed;
        let body = match (form, body) {
            (Some(f), CStmt::Compound { items, span }) => {
                if !rotating_updates.is_empty()
                    || !iterator.rotating_inits.is_empty()
                    || !iterator.declared_rotating.is_empty()
                    || step.abs() != 1
                {
                    let d = self.bad_loop_form(
                        header.clone(),
                        "rotating indices are started in the header or before the loop, not both, and step by a loop of step 1",
                    );
                    return self.reject(d);
                }
                trimmed = CStmt::Compound {
                    items: items[..f.keep].to_vec(),
                    span: span.clone(),
                };
                &trimmed
            }
            _ => body,
        };
        let body_writes = match self.iterator_not_written(body, &iterator.name) {
            Ok(w) => w,
            Err(d) => return self.reject(d),
        };
        let depth = self.loops.len();
        let (mut cons, strided) = match self.loop_start(iterator.init, step, depth) {
            Ok(c) => c,
            Err(d) => return self.reject(d),
        };
        // The condition, with the iterator in scope.
        let Some(cond) = cond else {
            let d = self.bad_loop_form(header.clone(), "the loop has no condition");
            return self.reject(d);
        };
        self.loops.push(iterator.name.clone());
        let rotating = match form {
            Some(f) => self.body_form_indices(f, (&iterator, step), (&body_writes, header)),
            None => self.loop_rotating_indices(
                &iterator,
                &rotating_updates,
                step,
                (&body_writes, header),
            ),
        };
        let rotating = rotating.and_then(|rotating| {
            self.loop_end(cond, step.signum(), depth, &mut cons)
                .map(|()| rotating)
        });
        let rotating = match rotating {
            Ok(r) => r,
            Err(d) => {
                self.loops.pop();
                return self.reject(d);
            }
        };
        let (parallel, outer) = self.take_parallel_mark(header);
        let aliases = self.aliases.len();
        let mut starts_non_negative = Vec::new();
        let mut never_runs = false;
        for r in rotating {
            if let Some(arg) = r.truncating_start {
                starts_non_negative.push(arg);
            }
            never_runs |= r.never_runs;
            self.aliases.push((r.name, r.value));
        }
        // The statements of the body read the scalars that the header's
        // substituted values came from.
        let controls = self.control_reads.len();
        self.control_reads.append(&mut self.substituted_reads);
        self.substituted_values.clear();
        let body_nodes = self.stmt(body);
        self.control_reads.truncate(controls);
        self.aliases.truncate(aliases);
        self.collapse = outer;
        self.loops.pop();
        let body_nodes = body_nodes?;
        Ok(vec![Node::Loop(LoopNode {
            iter: iterator.name,
            iter_type: iterator.type_text.trim().to_string(),
            cons,
            strided,
            sign: step.signum(),
            body: body_nodes,
            parallel,
            starts_non_negative,
            never_runs,
        })])
    }

    /// The loop's iterator from its initialisation (`i = lb`, `int i =
    /// lb`, with rotating indices after it): a local signed integer
    /// variable, not an enclosing loop's, whose address is never taken.
    fn loop_iterator<'e>(
        &self,
        init: &'e ForInit,
        header: &Range<usize>,
    ) -> Result<LoopIterator<'e>, Diagnostic> {
        // Rotating indices started with the iterator (`i = 0, r = e % b`,
        // `int i = 0, r = e % b`): checked with the update.
        let mut rotating_inits: Vec<(&Expr, &Expr)> = Vec::new();
        let head: Option<&Expr> = match init {
            ForInit::Expr(e) => {
                let parts = comma_parts(e);
                for part in &parts[1..] {
                    match &part.kind {
                        ExprKind::Assign(None, lhs, rhs) => rotating_inits.push((lhs, rhs)),
                        _ => {
                            return Err(self.bad_loop_form(
                                part.span.clone(),
                                "the loop's initialisation assigns only its iterator and rotating indices",
                            ));
                        }
                    }
                }
                Some(parts[0])
            }
            _ => None,
        };
        let declared_rotating: Vec<&super::syntax::Declarator> = match init {
            ForInit::Decl(decl) => decl.declarators.iter().skip(1).collect(),
            _ => Vec::new(),
        };
        // The iterator and its initial value.
        let (name, var, init_expr) = match (init, head) {
            (
                _,
                Some(Expr {
                    kind: ExprKind::Assign(None, lhs, rhs),
                    ..
                }),
            ) => match &lhs.kind {
                ExprKind::Ident(n) => (
                    n.clone(),
                    self.scopes.lookup(n, lhs.span.start),
                    rhs.as_ref(),
                ),
                _ => {
                    return Err(
                        self.bad_loop_form(lhs.span.clone(), "the loop must assign a variable")
                    );
                }
            },
            (ForInit::Decl(decl), _) if !decl.declarators.is_empty() => {
                let dc = &decl.declarators[0];
                match &dc.init {
                    Some(v) if dc.dims.is_empty() && !dc.is_pointer => (
                        dc.name.clone(),
                        self.scopes.lookup(&dc.name, dc.name_span.start),
                        v,
                    ),
                    _ => {
                        return Err(self.bad_loop_form(
                            decl.span.clone(),
                            "the loop must initialise its iterator",
                        ));
                    }
                }
            }
            _ => {
                return Err(
                    self.bad_loop_form(header.clone(), "the loop does not initialise an iterator")
                );
            }
        };
        let Some(var_index) = var.filter(|&i| {
            let v = &self.scopes.vars[i];
            v.in_function && !v.is_array() && !v.is_pointer()
        }) else {
            return Err(self.bad_loop_form(
                init_expr.span.clone(),
                "the iterator must be a local integer variable",
            ));
        };
        let var = &self.scopes.vars[var_index];
        if !is_signed_integer_type_text(&var.decl.type_text) {
            return Err(self
                .warn(
                    Code::UnsupportedLoop,
                    format!("iterator `{name}` has type `{}`", var.decl.type_text),
                    var.dc.name_span.clone(),
                    "the iterator must have a signed integer type",
                )
                .with_note("unsigned arithmetic wraps around, which polyfold does not model"));
        }
        if self.loops.contains(&name) {
            return Err(self.bad_loop_form(
                init_expr.span.clone(),
                "this iterator is already used by an enclosing loop",
            ));
        }
        if self.var_address_taken(var_index) {
            return Err(self.warn(
                Code::AddressTaken,
                format!("address of iterator `{name}` taken"),
                var.dc.name_span.clone(),
                "its value may change behind the loop's back",
            ));
        }
        Ok(LoopIterator {
            type_text: var.decl.type_text.clone(),
            name,
            init: init_expr,
            rotating_inits,
            declared_rotating,
        })
    }

    /// The loop's step, a non-zero integer constant added to or
    /// subtracted from the iterator (`i++`, `i -= 2`, `i = i + 3`), and
    /// the rotating indices' updates after it.
    fn loop_step<'e>(
        &self,
        update: Option<&'e Expr>,
        header: &Range<usize>,
        iter_name: &str,
    ) -> Result<(i64, Vec<&'e Expr>), Diagnostic> {
        let Some(update) = update else {
            return Err(self.bad_loop_form(header.clone(), "the loop has no increment"));
        };
        let update_parts = comma_parts(update);
        let (update, rotating_updates) = (update_parts[0], &update_parts[1..]);
        let is_iter = |e: &Expr| matches!(&e.kind, ExprKind::Ident(n) if n == iter_name);
        let step: Option<i64> = match &update.kind {
            ExprKind::Update(inc, a) if is_iter(a) => Some(if *inc { 1 } else { -1 }),
            ExprKind::Assign(Some(op @ (BinOp::Add | BinOp::Sub)), a, k) if is_iter(a) => {
                self.constant_of(k).and_then(|k| {
                    if *op == BinOp::Sub {
                        k.checked_neg()
                    } else {
                        Some(k)
                    }
                })
            }
            ExprKind::Assign(None, a, rhs) if is_iter(a) => match &rhs.kind {
                ExprKind::Binary(BinOp::Add, x, k) if is_iter(x) => self.constant_of(k),
                ExprKind::Binary(BinOp::Add, k, x) if is_iter(x) => self.constant_of(k),
                ExprKind::Binary(BinOp::Sub, x, k) if is_iter(x) => {
                    self.constant_of(k).and_then(i64::checked_neg)
                }
                _ => None,
            },
            _ => None,
        };
        match step {
            Some(s) if s != 0 => Ok((s, rotating_updates.to_vec())),
            _ => Err(self.bad_loop_form(
                update.span.clone(),
                "the step must add or subtract an integer constant to the iterator",
            )),
        }
    }

    /// The names the body writes, when the iterator is not one of them
    /// (PF014 at the first write of it otherwise).
    fn iterator_not_written(
        &self,
        body: &CStmt,
        iter_name: &str,
    ) -> Result<BTreeSet<String>, Diagnostic> {
        let body_writes = written_names(body);
        if !body_writes.contains(iter_name) {
            return Ok(body_writes);
        }
        let mut at: Option<Range<usize>> = None;
        body.walk_exprs(&mut |e: &Expr| match &e.kind {
            ExprKind::Assign(_, lhs, _) | ExprKind::Update(_, lhs) | ExprKind::AddrOf(lhs)
                if root_name(lhs) == Some(iter_name) && at.is_none() =>
            {
                at = Some(e.span.clone());
            }
            _ => {}
        });
        Err(self.warn(
            Code::IteratorAssigned,
            format!("loop iterator `{iter_name}` is written in the loop body"),
            at.unwrap_or_else(|| body.span()),
            "the iterator is assigned here",
        ))
    }

    /// The constraints of the loop's start (the lower bound of an
    /// increasing loop, the upper bound of a decreasing one), resolved
    /// outside the loop, and of its stride when the step is not ±1
    /// (`i - start - step * e = 0`); whether the loop is strided.
    fn loop_start(
        &mut self,
        init_expr: &Expr,
        step: i64,
        depth: usize,
    ) -> Result<(Vec<Constraint>, bool), Diagnostic> {
        let init_val = to_val(init_expr, Place::Bound, self)?;
        let it = Lin::sym(Sym::Iter(depth));
        let mut cons = Vec::new();
        let sign = step.signum();
        let init_lins = match (&init_val, sign > 0) {
            (Val::Aff(l), _) => vec![l.clone()],
            (Val::Max(ls), true) | (Val::Min(ls), false) => ls.clone(),
            _ => {
                return Err(self.bad_loop_form(
                    init_expr.span.clone(),
                    if sign > 0 {
                        "an increasing loop cannot start at a minimum"
                    } else {
                        "a decreasing loop cannot start at a maximum"
                    },
                ));
            }
        };
        for l in &init_lins {
            // sign > 0: i - l >= 0 ; sign < 0: l - i >= 0
            let c = if sign > 0 { it.sub(l) } else { l.sub(&it) };
            match c {
                Some(c) => cons.push(Constraint::ge0(c)),
                None => return Err(self.overflow_diag(init_expr)),
            }
        }
        let strided = step.abs() > 1;
        if strided {
            let [anchor] = init_lins.as_slice() else {
                return Err(self.bad_loop_form(
                    init_expr.span.clone(),
                    "a loop with a step other than 1 must start at a single affine value",
                ));
            };
            // i - anchor - step * e = 0
            let c = it
                .sub(anchor)
                .and_then(|c| c.add_scaled(&Lin::sym(Sym::Exist(depth)), -step));
            match c {
                Some(c) => cons.push(Constraint::eq0(c)),
                None => return Err(self.overflow_diag(init_expr)),
            }
        }
        Ok((cons, strided))
    }

    /// The rotating indices of the header (see [`Self::rotating_indices`]),
    /// with the iterator in scope: their starts, from the initialisation
    /// or the declaration, and their updates.
    fn loop_rotating_indices(
        &mut self,
        iterator: &LoopIterator<'_>,
        rotating_updates: &[&Expr],
        step: i64,
        (body_writes, header): (&BTreeSet<String>, &Range<usize>),
    ) -> Result<Vec<Rotating>, Diagnostic> {
        let mut rotating_starts: Vec<(String, Expr)> = Vec::new();
        for (lhs, rhs) in &iterator.rotating_inits {
            match &lhs.kind {
                ExprKind::Ident(n) => rotating_starts.push((n.clone(), (*rhs).clone())),
                _ => rotating_starts.push((String::new(), (*rhs).clone())),
            }
        }
        for dc in &iterator.declared_rotating {
            match (&dc.init, dc.dims.is_empty() && !dc.is_pointer) {
                (Some(v), true) => rotating_starts.push((dc.name.clone(), v.clone())),
                _ => rotating_starts.push((
                    String::new(),
                    Expr {
                        kind: ExprKind::OtherLiteral,
                        span: dc.span.clone(),
                        from_macro: false,
                    },
                )),
            }
        }
        if rotating_starts.is_empty() && rotating_updates.is_empty() {
            return Ok(Vec::new());
        }
        self.rotating_indices(
            &rotating_starts,
            rotating_updates,
            (&iterator.name, step),
            (body_writes, header),
        )
    }

    /// The rotating indices of a loop in the body form (see
    /// [`super::rotating`]), read as the header form would be: each start
    /// `e0 % b` as `(e0 + d * step * (i - base)) % b`.
    fn body_form_indices(
        &mut self,
        form: &BodyForm,
        (iterator, step): (&LoopIterator<'_>, i64),
        (body_writes, header): (&BTreeSet<String>, &Range<usize>),
    ) -> Result<Vec<Rotating>, Diagnostic> {
        let mut starts = Vec::new();
        for ((name, start), (update, d)) in form.starts.iter().zip(&form.updates) {
            // A number `c` is the residue `c % b` when `0 <= c < b`.
            let number = match start.kind {
                ExprKind::Int(c) => {
                    let b = super::rotating::update_modulus(update, *d);
                    let m = b.as_ref().and_then(|b| {
                        let v = to_val(b, Place::Subscript, self).ok()?;
                        super::affine::constant_divisor(&v, self)
                    });
                    match (b, m) {
                        (Some(b), Some(m)) if (0..m).contains(&c) => {
                            Some(super::rotating::number_start(start, b))
                        }
                        _ => {
                            return Err(self.bad_loop_form(
                                start.span.clone(),
                                "a rotating index that starts at a number starts inside `0..b`, `b` the modulus of its update",
                            ));
                        }
                    }
                }
                _ => None,
            };
            let start = number.as_ref().unwrap_or(start);
            let c = d.checked_mul(step);
            let shifted = c.and_then(|c| {
                super::rotating::header_start(start, c, (&iterator.name, iterator.init))
            });
            let Some(shifted) = shifted else {
                return Err(self.bad_loop_form(
                    start.span.clone(),
                    "a rotating index starts at a residue `e % b`",
                ));
            };
            starts.push((name.clone(), shifted));
        }
        let updates: Vec<&Expr> = form.updates.iter().map(|(u, _)| *u).collect();
        self.rotating_indices(
            &starts,
            &updates,
            (&iterator.name, step),
            (body_writes, header),
        )
    }

    /// The loops among `stmts` (one block's statements, in order) whose
    /// rotating indices are in the body form (see [`super::rotating`]) and
    /// used nowhere else.
    pub(crate) fn body_forms<'e>(&self, stmts: &[&'e CStmt]) -> Vec<(usize, BodyForm<'e>)> {
        super::rotating::body_forms(stmts)
            .into_iter()
            .filter(|(k, f)| {
                self.only_in_body_form(stmts[f.first].span().start..stmts[*k].span().end, f)
            })
            .collect()
    }

    /// Whether the rotating indices of the body form `form` appear nowhere
    /// but in `region`, their starts and their loop (so that the starts
    /// are dead outside it and can be read with it).
    fn only_in_body_form(&self, region: Range<usize>, form: &BodyForm) -> bool {
        form.starts.iter().all(|(name, start)| {
            let Some(v) = self.scopes.lookup(name, start.span.start) else {
                return false;
            };
            let v = &self.scopes.vars[v];
            let scope = v.scope.clone();
            let Some(text) = self.source.get(scope.clone()) else {
                return false;
            };
            crate::util::c_text::identifier_tokens(text, true)
                .into_iter()
                .filter(|(_, n)| n == name)
                .map(|(at, _)| scope.start + at)
                .all(|at| region.contains(&at) || v.dc.name_span.contains(&at))
        })
    }

    /// Adds to `cons` the constraints of the loop's condition, with the
    /// iterator in scope: a conjunction of bounds, at least one of which
    /// bounds the iterator in the step's direction (`sign`).
    fn loop_end(
        &mut self,
        cond: &Expr,
        sign: i64,
        depth: usize,
        cons: &mut Vec<Constraint>,
    ) -> Result<(), Diagnostic> {
        let dnf = to_dnf(cond, Place::Bound, self)?;
        let Some(conj) = dnf.as_conjunction() else {
            return Err(self.bad_loop_form(
                cond.span.clone(),
                "the loop condition must be a conjunction of `<`, `<=`, `>`, `>=` bounds (no `||`, no `!=`)",
            ));
        };
        let iter_sym = Sym::Iter(depth);
        let mut bounded = false;
        for c in conj {
            let k = c.lin.coeff(&iter_sym);
            if k == 0 {
                cons.push(c.clone());
                continue;
            }
            if c.is_eq || k.signum() == sign {
                return Err(self.bad_loop_form(
                    cond.span.clone(),
                    if sign > 0 {
                        "an increasing loop needs an upper bound (`<` or `<=`) on its iterator"
                    } else {
                        "a decreasing loop needs a lower bound (`>` or `>=`) on its iterator"
                    },
                ));
            }
            bounded = true;
            cons.push(c.clone());
        }
        if !bounded {
            return Err(self.bad_loop_form(
                cond.span.clone(),
                "the condition does not bound the iterator",
            ));
        }
        Ok(())
    }

    /// The loop's parallel mark: by a pragma right before it, or by the
    /// `collapse(k)` of an enclosing loop. Sets the collapse its body
    /// inherits and returns the enclosing one, to restore after the body.
    fn take_parallel_mark(
        &mut self,
        header: &Range<usize>,
    ) -> (Option<ParallelMark>, Option<(ParallelMark, usize)>) {
        let own = super::parallel::parallel_mark_before(self.source, self.pragmas, header.start);
        let outer = self.collapse.take();
        let (parallel, inner) = match (own, &outer) {
            (Some((mark, k)), _) => (Some(mark.clone()), Some((mark, k - 1))),
            (None, Some((mark, k))) if *k > 0 => (Some(mark.clone()), Some((mark.clone(), k - 1))),
            (None, _) => (None, None),
        };
        self.collapse = inner.filter(|(_, k)| *k > 0);
        (parallel, outer)
    }

    /// The rotating indices of a loop's header (see
    /// `crate::codegen::rotate`): each variable `r` started by `r = e % b`
    /// (or `r = (e % b + b) % b`) and advanced by one of the updates
    /// polyfold prints, `r = r + d < b ? r + d : r + d - b` (`d > 0`) or
    /// `r = r >= -d ? r + d : r + d + b` (`d < 0`), in any form with the
    /// same values, where `d` is the step of `e` per iteration, `b` a
    /// number (or parameters with known values) and `0 < |d| < b`. Such a
    /// variable holds the residue of `e` at every iteration, so inside the
    /// body it reads as `e % b` (`(e % b + b) % b`). `e` must be
    /// non-negative wherever the header runs for the first form (a
    /// condition that lowering proves on the loops' domain, or the SCoP
    /// is not modelled). A variable written in the body, read after the
    /// loop, or updated in another form is not one.
    fn rotating_indices(
        &mut self,
        starts: &[(String, Expr)],
        updates: &[&Expr],
        (iter, step): (&str, i64),
        (body_writes, header): (&BTreeSet<String>, &Range<usize>),
    ) -> Result<Vec<Rotating>, Diagnostic> {
        let bad = |me: &Self, span: Range<usize>, label: &str| {
            me.warn(Code::UnsupportedLoop, "unsupported loop form", span, label.to_string())
                .with_note("polyfold reads `for (i = lb, r = e % b; ...; i++, r = r + d < b ? r + d : r + d - b)` (rotating indices)")
        };
        if starts.len() != updates.len() {
            return Err(bad(
                self,
                header.clone(),
                "every variable the header starts must be advanced by its update, and only those",
            ));
        }
        let depth = self.loops.len() - 1;
        let mut out: Vec<Rotating> = Vec::new();
        for (name, start) in starts {
            let var = self.scopes.lookup(name, start.span.start);
            let int_local = var.is_some_and(|v| {
                let v = &self.scopes.vars[v];
                v.in_function
                    && !v.is_array()
                    && !v.is_pointer()
                    && is_signed_integer_type_text(&v.decl.type_text)
            });
            if name.is_empty()
                || name == iter
                || self.loops.contains(name)
                || !int_local
                || body_writes.contains(name)
                || out.iter().any(|r| r.name == *name)
            {
                return Err(bad(
                    self,
                    start.span.clone(),
                    "a rotating index is a local integer variable, written only by the loop's header",
                ));
            }
            // `e % b`, or `(e % b + b) % b`.
            let (residue, floor) = match &start.kind {
                ExprKind::Binary(BinOp::Mod, inner, b) => match &inner.kind {
                    ExprKind::Binary(BinOp::Add, m, b2) if matches!(&m.kind, ExprKind::Binary(BinOp::Mod, _, b1) if strip_eq(b1, b) && strip_eq(b2, b)) => {
                        (m.as_ref(), true)
                    }
                    _ => (start, false),
                },
                _ => {
                    return Err(bad(
                        self,
                        start.span.clone(),
                        "a rotating index starts at a residue `e % b`",
                    ));
                }
            };
            let ExprKind::Binary(BinOp::Mod, e, b) = &residue.kind else {
                return Err(bad(
                    self,
                    start.span.clone(),
                    "a rotating index starts at a residue `e % b`",
                ));
            };
            let arg = to_lin(e, Place::Subscript, self)?;
            let modulus = to_val(b, Place::Subscript, self)
                .ok()
                .and_then(|v| super::affine::constant_divisor(&v, self))
                .filter(|m| *m >= 1);
            let Some(m) = modulus else {
                return Err(bad(
                    self,
                    b.span.clone(),
                    "the modulus of a rotating index must be a positive number (or parameters with known values)",
                ));
            };
            let delta = arg.coeff(&Sym::Iter(depth)).checked_mul(step);
            let Some(delta) = delta.filter(|d| *d != 0) else {
                return Err(bad(
                    self,
                    e.span.clone(),
                    "the residue of a rotating index must change at each iteration",
                ));
            };
            let value = to_val(start, Place::Subscript, self)?;
            out.push(Rotating {
                name: name.clone(),
                value,
                truncating_start: (!floor).then_some(arg),
                // A step of the modulus or more leaves `0..b`: only a loop
                // that runs no iteration may have one (polyfold prints
                // `% (2 * n - 1)` with a step of 2, for n = 1 too).
                never_runs: delta.unsigned_abs() >= m.unsigned_abs(),
                delta,
                modulus: m,
            });
        }
        // Each update: `r = c ? t : f` with the values of the step.
        let mut seen: Vec<String> = Vec::new();
        for update in updates {
            let wrong = |me: &Self| {
                bad(
                    me,
                    update.span.clone(),
                    "a rotating index advances by `r = r + d < b ? r + d : r + d - b` (or `r = r >= -d ? r + d : r + d + b`)",
                )
            };
            let ExprKind::Assign(None, lhs, rhs) = &update.kind else {
                return Err(wrong(self));
            };
            let (ExprKind::Ident(name), ExprKind::Cond(c, t, f)) = (&lhs.kind, &rhs.kind) else {
                return Err(wrong(self));
            };
            let Some(r) = out.iter().find(|r| r.name == *name) else {
                return Err(wrong(self));
            };
            if seen.contains(name) {
                return Err(wrong(self));
            }
            seen.push(name.clone());
            let (delta, m) = (r.delta, r.modulus);
            // The variable as a symbol of its own for these checks.
            self.loops.push(name.clone());
            let r_sym = Lin::sym(Sym::Iter(self.loops.len() - 1));
            let checked = (|| -> Option<bool> {
                // The value of `x` minus `r`, a number.
                let minus_r = |me: &mut Self, x: &Expr| -> Option<i64> {
                    let l = to_lin(x, Place::Subscript, me).ok()?;
                    let rest = l.sub(&r_sym)?;
                    if rest.coeff(&Sym::Iter(me.loops.len() - 1)) != 0 {
                        return None;
                    }
                    super::affine::known_value(&Val::Aff(rest), me)
                };
                let number = |me: &mut Self, x: &Expr| -> Option<i64> {
                    let l = to_lin(x, Place::Subscript, me).ok()?;
                    super::affine::known_value(&Val::Aff(l), me)
                };
                // t = r + d on the iterations that do not wrap.
                if minus_r(self, t)? != delta {
                    return Some(false);
                }
                // c holds exactly where r + d stays in 0..m.
                let ExprKind::Binary(op, x, y) = &c.kind else {
                    return Some(false);
                };
                let lx = to_lin(x, Place::Subscript, self).ok()?;
                let ly = to_lin(y, Place::Subscript, self).ok()?;
                let diff = lx.sub(&ly)?.sub(&r_sym)?;
                if diff.coeff(&Sym::Iter(self.loops.len() - 1)) != 0 {
                    return Some(false);
                }
                let k = super::affine::known_value(&Val::Aff(diff), self)?;
                // x - y = r + k.
                let right = match op {
                    BinOp::Lt => delta > 0 && k == delta - m,
                    BinOp::Le => delta > 0 && k == delta - m + 1,
                    BinOp::Ge => delta < 0 && k == delta,
                    BinOp::Gt => delta < 0 && k == delta + 1,
                    _ => false,
                };
                if !right {
                    return Some(false);
                }
                // f = r + d -+ m where it wraps (one value of r when |d| = 1).
                let wrapped = if delta > 0 { delta - m } else { delta + m };
                Some(match minus_r(self, f) {
                    Some(v) => v == wrapped,
                    None => {
                        let at = if delta > 0 { m - 1 } else { 0 };
                        delta.abs() == 1 && number(self, f)? == at + wrapped
                    }
                })
            })();
            self.loops.pop();
            if checked != Some(true) {
                return Err(wrong(self));
            }
        }
        Ok(out)
    }

    /// `a = b = k;` (any depth, compound operators allowed): one statement
    /// per target, right to left, all with the span of the C statement:
    /// `b = k`, then `a = b` (reading the value `b` now holds, which is the
    /// value of `b = k` in C). The reads of every target but the last
    /// share the span of a write: `lower` keeps those variables' layout.
    fn chained_assignment(&mut self, expr: &Expr, span: &Range<usize>) -> Res<Vec<Node>> {
        let mut targets: Vec<(Option<BinOp>, &Expr)> = Vec::new();
        let mut value = expr;
        while let ExprKind::Assign(op, lhs, rhs) = &value.kind {
            targets.push((*op, lhs));
            value = rhs;
        }
        let mut nodes = Vec::new();
        let mut previous: Option<RawAccess> = None;
        self.calls.clear();
        self.clear_substituted();
        for (op, lhs) in targets.into_iter().rev() {
            let write = self.lhs_access(lhs)?;
            let mut reads = Vec::new();
            if op.is_some() {
                let mut r = write.clone();
                r.kind = AccessKind::Read;
                reads.push(r);
            }
            match previous.take() {
                None => self.collect_reads(value, &mut reads)?,
                Some(mut p) => {
                    p.kind = AccessKind::Read;
                    reads.push(p);
                }
            }
            previous = Some(write.clone());
            self.add_substituted_reads(&mut reads, span);
            nodes.push(Node::Stmt(StmtNode {
                write,
                reads,
                calls: std::mem::take(&mut self.calls),
                conds: self.conds.clone(),
                data_conds: Vec::new(),
                span: span.clone(),
                values: std::mem::take(&mut self.substituted_values),
            }));
        }
        self.check_disjuncts(span)?;
        Ok(self.guarded(nodes))
    }

    fn overflow_diag(&self, e: &Expr) -> Diagnostic {
        self.warn(
            Code::Overflow,
            format!("coefficient overflow in `{}`", self.text(&e.span)),
            e.span.clone(),
            "this value does not fit a 64-bit integer",
        )
    }

    /// The value of a loop step: an integer literal, possibly negated, or an
    /// object-like macro with a known value (a step must be a number, so the
    /// macro's value is used here; `-D` changes it).
    fn constant_of(&self, e: &Expr) -> Option<i64> {
        match &e.kind {
            ExprKind::Int(v) => Some(*v),
            ExprKind::Ident(n) => self.macros.object(n).and_then(|m| m.value),
            ExprKind::Unary(super::syntax::UnOp::Neg, a) => self.constant_of(a)?.checked_neg(),
            _ => None,
        }
    }

    fn var_address_taken(&self, var: usize) -> bool {
        self.scopes
            .uses
            .get(&var)
            .is_some_and(|us| us.iter().any(|(_, r)| *r == Role::AddrOf))
    }

    /// Ends the substitution of every bound scalar that `item` may write
    /// (see `frontend::substitute`): from `item` on, to the end of the
    /// block, its uses read it as a value written inside the SCoP again.
    fn end_bindings_written_by(&mut self, item: &CStmt) {
        let written = written_names(item);
        let ended: Vec<String> = written
            .into_iter()
            .filter(|n| self.bindings.iter().any(|b| b.name == *n))
            .collect();
        for name in ended {
            self.bindings.push(Binding { name, value: None });
        }
    }

    /// After the item `item` of a block was analysed: when it is `x = e;`
    /// with `x` a local integer scalar that nothing else can write and
    /// `e` affine in the iterators and parameters, later items of the
    /// block read `x` in subscripts, bounds and conditions as `e` (see
    /// `frontend::substitute`).
    fn bind_assignment(&mut self, item: &CStmt) {
        let CStmt::Expr { expr, .. } = item else {
            return;
        };
        let ExprKind::Assign(None, lhs, rhs) = &expr.kind else {
            return;
        };
        let ExprKind::Ident(name) = &lhs.kind else {
            return;
        };
        if lhs.from_macro || self.loops.contains(name) {
            return;
        }
        let Some(var) = self.scopes.lookup(name, lhs.span.start) else {
            return;
        };
        let v = &self.scopes.vars[var];
        if v.storage != crate::ir::Storage::Local
            || v.is_array()
            || v.is_pointer()
            || v.decl.has_qualifier("volatile")
            || self.var_address_taken(var)
            || !super::substitute::holds_exactly(
                &v.decl.type_text,
                rhs,
                (self.source, self.scopes, self.macros),
            )
        {
            return;
        }
        // The value, without leaving its parameters, known values or
        // reads behind: they go to the statements that use it.
        let params = self.params.clone();
        let value_uses = std::mem::take(&mut self.value_uses);
        let reads = std::mem::take(&mut self.substituted_reads);
        let values = std::mem::take(&mut self.substituted_values);
        let substituted = self.substituted.clone();
        let mut names_bound = false;
        rhs.walk(&mut |x: &Expr| {
            if let ExprKind::Ident(n) = &x.kind {
                names_bound |= self.bindings.iter().any(|b| b.name == *n);
            }
        });
        let val = to_val(rhs, Place::Subscript, self);
        let bound_params = std::mem::replace(&mut self.params, params)
            .into_iter()
            .filter(|(k, _)| !self.params.contains_key(k))
            .collect();
        let bound_uses = std::mem::replace(&mut self.value_uses, value_uses);
        self.substituted_reads = reads;
        self.substituted_values = values;
        self.substituted = substituted;
        if let Ok(val) = val {
            self.bindings.push(Binding {
                name: name.clone(),
                value: Some(Bound {
                    var,
                    val,
                    params: bound_params,
                    value_uses: bound_uses,
                    expr: (!names_bound).then(|| (**rhs).clone()),
                }),
            });
        }
    }

    /// The binding of `name` that holds at `expr` (see
    /// [`Self::bind_assignment`]), if any.
    fn bound_at(&self, name: &str, expr: &Expr) -> Option<Bound> {
        let bound = self
            .bindings
            .iter()
            .rev()
            .find(|b| b.name == name)?
            .value
            .clone()?;
        let here = self.scopes.lookup(name, expr.span.start) == Some(bound.var);
        (!expr.from_macro && here).then_some(bound)
    }

    fn clear_substituted(&mut self) {
        self.substituted_reads.clear();
        self.substituted_values.clear();
    }

    /// Gives the statement at `span` (its `reads`) the reads of bound
    /// scalars whose value its subscripts used, and those of the headers
    /// and conditions around it (one per scalar). A read of a header or a
    /// condition has no text in the statement: its span is empty, at the
    /// statement's start.
    fn add_substituted_reads(&mut self, reads: &mut Vec<RawAccess>, span: &Range<usize>) {
        let mut own = std::mem::take(&mut self.substituted_reads);
        for r in &self.control_reads {
            if !own.iter().any(|o| o.var == r.var) {
                let at = span.start..span.start;
                own.push(RawAccess {
                    span: at.clone(),
                    name_span: at,
                    ..r.clone()
                });
            }
        }
        reads.append(&mut own);
    }

    /// The value of `name` at `expr` when it is a bound scalar (see
    /// [`Self::bind_assignment`]): its parameters and known values are
    /// noted as used, and the statement reads the scalar.
    fn substituted_value(&mut self, name: &str, expr: &Expr) -> Option<Val> {
        let bound = self.bound_at(name, expr)?;
        for (k, p) in bound.params {
            self.params.entry(k).or_insert(p);
        }
        self.value_uses.extend(bound.value_uses);
        if self.note_substituted_read(bound.var, name, expr)
            && let Val::Aff(l) = &bound.val
        {
            self.substituted_values.push((name.to_string(), l.clone()));
        }
        Some(bound.val)
    }

    /// The statement reads bound scalar `var` (`name`, at `expr`) whose
    /// value it used: one read per statement or header is enough. Whether
    /// this is its first.
    fn note_substituted_read(&mut self, var: usize, name: &str, expr: &Expr) -> bool {
        self.substituted.insert(var);
        if self.substituted_reads.iter().any(|r| r.var == var) {
            return false;
        }
        self.substituted_reads.push(RawAccess {
            var,
            name: name.to_string(),
            kind: AccessKind::Read,
            subs: Vec::new(),
            span: expr.span.clone(),
            sub_spans: Vec::new(),
            name_span: expr.span.clone(),
            value_uses: BTreeSet::new(),
        });
        true
    }

    fn expr_stmt(&mut self, expr: &Expr, span: &Range<usize>) -> Res<Vec<Node>> {
        if let ExprKind::Assign(_, _, rhs) = &expr.kind
            && matches!(rhs.kind, ExprKind::Assign(..))
        {
            return self.chained_assignment(expr, span);
        }
        let mut reads = Vec::new();
        self.calls.clear();
        self.clear_substituted();
        let write = match &expr.kind {
            ExprKind::Assign(op, lhs, rhs) => {
                let w = self.lhs_access(lhs)?;
                if op.is_some() {
                    let mut r = w.clone();
                    r.kind = AccessKind::Read;
                    reads.push(r);
                }
                self.collect_reads(rhs, &mut reads)?;
                w
            }
            ExprKind::Update(_, target) => {
                let w = self.lhs_access(target)?;
                let mut r = w.clone();
                r.kind = AccessKind::Read;
                reads.push(r);
                w
            }
            ExprKind::Comma(..) => {
                let d = self
                    .warn(
                        Code::TwoWrites,
                        "statement writes two locations",
                        expr.span.clone(),
                        "a comma expression with several assignments",
                    )
                    .with_note("split it into one statement per assignment");
                return self.reject(d);
            }
            ExprKind::Call(..) => {
                let d = self
                    .warn(
                        Code::NotAnAssignment,
                        format!("unsupported statement: call `{}`", self.text(&expr.span)),
                        expr.span.clone(),
                        "a call statement may write memory",
                    )
                    .with_note("calls are allowed inside right-hand sides of assignments only");
                return self.reject(d);
            }
            _ => {
                let d = self.warn(
                    Code::NotAnAssignment,
                    "expression statement without an assignment",
                    expr.span.clone(),
                    "not an assignment",
                );
                return self.reject(d);
            }
        };
        self.check_disjuncts(span)?;
        self.add_substituted_reads(&mut reads, span);
        let node = Node::Stmt(StmtNode {
            write,
            reads,
            calls: std::mem::take(&mut self.calls),
            conds: self.conds.clone(),
            data_conds: Vec::new(),
            span: span.clone(),
            values: std::mem::take(&mut self.substituted_values),
        });
        Ok(self.guarded(vec![node]))
    }

    fn lhs_access(&mut self, e: &Expr) -> Res<RawAccess> {
        match &e.kind {
            ExprKind::Ident(name) => {
                if self.loops.contains(name) {
                    let d = self.warn(
                        Code::IteratorAssigned,
                        format!("loop iterator `{name}` is written in the loop body"),
                        e.span.clone(),
                        "assignment to the iterator",
                    );
                    self.diags.push(d);
                    return Err(());
                }
                self.scalar_access(name, e, AccessKind::Write)
            }
            ExprKind::Subscript(..) => self.array_access(e, AccessKind::Write),
            _ => {
                self.unsupported_access(e);
                Err(())
            }
        }
    }

    fn unsupported_access(&mut self, e: &Expr) {
        let d = match &e.kind {
            ExprKind::Deref(_) => self.warn(
                Code::PointerAccess,
                format!("access through a pointer `{}`", self.text(&e.span)),
                e.span.clone(),
                "pointers may alias",
            ),
            ExprKind::Field(_) => self.warn(
                Code::StructMember,
                format!("struct member access `{}`", self.text(&e.span)),
                e.span.clone(),
                "struct members are not modelled",
            ),
            _ => self.warn(
                Code::NotAnAssignment,
                format!("unsupported assignment target `{}`", self.text(&e.span)),
                e.span.clone(),
                "not a variable or an array element",
            ),
        };
        self.diags.push(d);
    }

    fn scalar_access(&mut self, name: &str, e: &Expr, kind: AccessKind) -> Res<RawAccess> {
        if e.from_macro {
            let d = self.warn(
                Code::AccessInMacro,
                format!("variable `{name}` accessed inside a macro expansion"),
                e.span.clone(),
                "this macro's body names a variable",
            );
            self.diags.push(d);
            return Err(());
        }
        let Some(var) = self.scopes.lookup(name, e.span.start) else {
            let d = self.warn(
                Code::NotAnAssignment,
                format!("unknown variable `{name}`"),
                e.span.clone(),
                "no declaration of this name is visible here",
            );
            self.diags.push(d);
            return Err(());
        };
        let v = &self.scopes.vars[var];
        if v.is_array() {
            let d = self.warn(
                Code::AddressTaken,
                format!("array `{name}` used as a pointer value"),
                e.span.clone(),
                "the array's address escapes here",
            );
            self.diags.push(d);
            return Err(());
        }
        Ok(RawAccess {
            var,
            name: name.to_string(),
            kind,
            subs: Vec::new(),
            span: e.span.clone(),
            sub_spans: Vec::new(),
            name_span: e.span.clone(),
            value_uses: BTreeSet::new(),
        })
    }

    fn array_access(&mut self, e: &Expr, kind: AccessKind) -> Res<RawAccess> {
        let mut idx: Vec<&Expr> = Vec::new();
        let mut cur = e;
        while let ExprKind::Subscript(base, i) = &cur.kind {
            idx.push(i);
            cur = base;
        }
        idx.reverse();
        let ExprKind::Ident(name) = &cur.kind else {
            self.unsupported_access(cur);
            return Err(());
        };
        if e.from_macro || cur.from_macro {
            let d = self.warn(
                Code::AccessInMacro,
                format!("array `{name}` accessed inside a macro expansion"),
                e.span.clone(),
                "this macro's body accesses an array",
            );
            self.diags.push(d);
            return Err(());
        }
        let Some(var) = self.scopes.lookup(name, cur.span.start) else {
            let d = self.warn(
                Code::NotAnAssignment,
                format!("unknown array `{name}`"),
                cur.span.clone(),
                "no declaration of this name is visible here",
            );
            self.diags.push(d);
            return Err(());
        };
        let v = &self.scopes.vars[var];
        if !v.is_array() || matches!(v.dc.heap, Some(super::syntax::HeapBuffer::Refused(_))) {
            let d = self.warn(
                Code::PointerAccess,
                format!("subscripted pointer `{name}`"),
                cur.span.clone(),
                "pointers may alias; only declared arrays are modelled",
            );
            // A heap buffer of the function says why it is not one.
            let d = match &v.dc.heap {
                Some(super::syntax::HeapBuffer::Refused(why)) => d.with_note(format!(
                    "`{name}` holds memory from an allocation, but {why}: its layout stays"
                )),
                _ => d.with_note("declare the parameter as an array, e.g. `double A[N][N]`"),
            };
            self.diags.push(d);
            return Err(());
        }
        if let Some(super::syntax::HeapBuffer::Array { declared: true, .. }) = &v.dc.heap
            && idx.len() == 1
        {
            return self.linear_table_access(e, (var, cur, idx[0]), kind);
        }
        if v.dc.dims.len() > 4 {
            let d = self.warn(
                Code::TooManyDimensions,
                format!("array `{name}` has {} dimensions", v.dc.dims.len()),
                cur.span.clone(),
                "at most 4 dimensions are supported",
            );
            self.diags.push(d);
            return Err(());
        }
        if v.dc.dims.len() != idx.len() {
            let d = self.warn(
                Code::PartialAccess,
                format!(
                    "partial access `{}` to a {}-dimensional array",
                    self.text(&e.span),
                    v.dc.dims.len()
                ),
                e.span.clone(),
                format!(
                    "{} subscript{} given",
                    idx.len(),
                    if idx.len() == 1 { "" } else { "s" }
                ),
            );
            self.diags.push(d);
            return Err(());
        }
        let mut subs = Vec::new();
        let mut sub_spans = Vec::new();
        // The subscripts' value uses belong to the access (see
        // `RawAccess::value_uses`), not to the statement.
        let statement_uses = std::mem::take(&mut self.value_uses);
        for i in idx {
            match to_lin(i, Place::Subscript, self) {
                Ok(l) => subs.push(l),
                Err(d) => {
                    self.value_uses.extend(statement_uses);
                    let mut d = d.with_label(e.span.clone(), "in this access");
                    if d.code == Code::NonAffineSubscript {
                        d.message = format!("{} in `{}`", d.message, self.text(&e.span));
                    }
                    self.diags.push(d);
                    return Err(());
                }
            }
            sub_spans.push(strip_parens_span(self.source, i.span.clone()));
        }
        let value_uses = std::mem::replace(&mut self.value_uses, statement_uses);
        Ok(RawAccess {
            var,
            name: name.clone(),
            kind,
            subs,
            span: e.span.clone(),
            sub_spans,
            name_span: cur.span.clone(),
            value_uses,
        })
    }

    /// A variable visible at `at` that the body of object-like macro
    /// `name` names (through other object-like macros too), if any. Too
    /// deep a chain counts as naming one.
    fn variable_in_object_macro(&self, name: &str, at: usize, depth: usize) -> Option<String> {
        if depth > MAX_MACRO_DEPTH {
            return Some(name.to_string());
        }
        let Some(body) = self.macros.object_body(name) else {
            // A body that is not an expression may name anything.
            return Some(name.to_string());
        };
        let mut found = None;
        body.walk(&mut |x: &Expr| {
            if found.is_some() {
                return;
            }
            if let ExprKind::Ident(n) = &x.kind {
                if self.macros.object(n).is_some() {
                    if n != name {
                        found = self.variable_in_object_macro(n, at, depth + 1);
                    }
                } else if self.scopes.lookup(n, at).is_some() {
                    found = Some(n.clone());
                }
            }
        });
        found
    }

    /// Records the calls that an object-like macro used at `e` expands
    /// to (through nested macros; too deep a chain is a call of an
    /// unknown function).
    fn calls_in_macro(&mut self, e: &Expr, depth: usize) {
        let ExprKind::Ident(name) = &e.kind else {
            return;
        };
        if self.macros.is_integer_constant(name) {
            return;
        }
        let Some(body) = self.macros.expand_object(name, e) else {
            return;
        };
        let mut found: Vec<RawCall> = Vec::new();
        let mut nested: Vec<Expr> = Vec::new();
        body.walk(&mut |x: &Expr| match &x.kind {
            ExprKind::Call(callee, args) => match &callee.kind {
                ExprKind::Ident(n) => match self.macros.expand_call(n, x, args) {
                    Some(expanded) => nested.push(expanded),
                    None => found.push(RawCall {
                        name: super::effects::called_function(self.macros, n),
                        span: e.span.clone(),
                    }),
                },
                _ => found.push(RawCall {
                    name: None,
                    span: e.span.clone(),
                }),
            },
            ExprKind::Ident(n) if n != name && self.macros.object(n).is_some() => {
                nested.push(x.clone())
            }
            _ => {}
        });
        self.calls.extend(found);
        for x in nested {
            if depth >= MAX_MACRO_DEPTH {
                self.calls.push(RawCall {
                    name: None,
                    span: e.span.clone(),
                });
                return;
            }
            match &x.kind {
                ExprKind::Ident(_) => self.calls_in_macro(&x, depth + 1),
                _ => x.walk(&mut |y: &Expr| {
                    if let ExprKind::Call(callee, _) = &y.kind {
                        self.calls.push(RawCall {
                            name: match &callee.kind {
                                ExprKind::Ident(n) => Some(n.clone()),
                                _ => None,
                            },
                            span: e.span.clone(),
                        });
                    }
                }),
            }
        }
    }

    fn collect_reads(&mut self, e: &Expr, reads: &mut Vec<RawAccess>) -> Res<()> {
        match &e.kind {
            ExprKind::Ident(name) => {
                if self.loops.contains(name) {
                    return Ok(());
                }
                if self.iterators.contains(name) {
                    let d = self
                        .warn(
                            Code::IteratorReadAfterLoop,
                            format!("value of loop iterator `{name}` read outside its loop"),
                            e.span.clone(),
                            "the iterator of another loop of this nest",
                        )
                        .with_note("the final value of a loop iterator is not modelled");
                    self.diags.push(d);
                    return Err(());
                }
                if self.macros.object(name).is_some() {
                    // A call in the body (`#define NOISE noise()`) is a
                    // call of this statement.
                    self.calls_in_macro(e, 0);
                    // A macro: its body is read here, and a variable it
                    // names is an access the model would not see.
                    if let Some(var) = self.variable_in_object_macro(name, e.span.start, 0) {
                        // A macro whose value is an affine expression of
                        // parameters and iterators (`#define _PB_N n`)
                        // reads no memory the model must see: its
                        // variables become parameters (checked against
                        // the writes of the run like any other).
                        if to_val(e, Place::Subscript, self).is_ok() {
                            return Ok(());
                        }
                        let d = self.warn(
                            Code::AccessInMacro,
                            format!("variable `{var}` accessed inside a macro expansion"),
                            e.span.clone(),
                            format!("the body of `{name}` names a variable"),
                        );
                        self.diags.push(d);
                        return Err(());
                    }
                    return Ok(());
                }
                if self.scopes.lookup(name, e.span.start).is_none() {
                    return Ok(()); // an enum constant or a function
                }
                let a = self.scalar_access(name, e, AccessKind::Read)?;
                self.scalar_reads.insert(name.clone());
                reads.push(a);
                Ok(())
            }
            ExprKind::Subscript(..) => {
                let a = self.array_access(e, AccessKind::Read)?;
                reads.push(a);
                Ok(())
            }
            ExprKind::Call(callee, args) => {
                if let ExprKind::Ident(name) = &callee.kind {
                    if let Some(x) = self.macros.expand_call(name, e, args) {
                        if self.macro_depth >= MAX_MACRO_DEPTH {
                            let d = self.warn(
                                Code::AccessInMacro,
                                format!("macro expansion of `{name}` too deep"),
                                e.span.clone(),
                                "this macro expands into itself",
                            );
                            self.diags.push(d);
                            return Err(());
                        }
                        self.macro_depth += 1;
                        let r = self.collect_reads(&x, reads);
                        self.macro_depth -= 1;
                        return r;
                    }
                    self.calls.push(RawCall {
                        name: super::effects::called_function(self.macros, name),
                        span: e.span.clone(),
                    });
                } else {
                    self.collect_reads(callee, reads)?;
                    self.calls.push(RawCall {
                        name: None,
                        span: e.span.clone(),
                    });
                }
                for a in args {
                    self.collect_reads(a, reads)?;
                }
                Ok(())
            }
            ExprKind::AddrOf(_) => {
                let d = self.warn(
                    Code::AddressTaken,
                    format!(
                        "address of `{}` taken",
                        self.text(&e.span).trim_start_matches('&')
                    ),
                    e.span.clone(),
                    "a pointer to this data escapes",
                );
                self.diags.push(d);
                Err(())
            }
            ExprKind::Deref(_) | ExprKind::Field(_) => {
                self.unsupported_access(e);
                Err(())
            }
            ExprKind::Assign(..) | ExprKind::Update(..) => {
                let d = self
                    .warn(
                        Code::TwoWrites,
                        "statement writes two locations",
                        e.span.clone(),
                        "a second write inside the expression",
                    )
                    .with_note("split it into one statement per write");
                self.diags.push(d);
                Err(())
            }
            ExprKind::Int(_) | ExprKind::OtherLiteral => Ok(()),
            ExprKind::Unary(_, a) | ExprKind::Cast(_, a) => self.collect_reads(a, reads),
            ExprKind::Binary(_, a, b) | ExprKind::Comma(a, b) => {
                self.collect_reads(a, reads)?;
                self.collect_reads(b, reads)
            }
            ExprKind::Cond(a, b, c) => {
                self.collect_reads(a, reads)?;
                self.collect_reads(b, reads)?;
                self.collect_reads(c, reads)
            }
            ExprKind::Other(kind, subs) => {
                if kind == "sizeof_expression" {
                    return Ok(());
                }
                for s in subs {
                    self.collect_reads(s, reads)?;
                }
                Ok(())
            }
        }
    }
}

/// A span without the outer parentheses that the syntax tree included.
fn strip_parens_span(source: &str, span: Range<usize>) -> Range<usize> {
    let _ = source;
    span
}

/// [`super::affine::Resolver::macro_level`] over the file's macro table.
pub(super) fn macro_level_in(macros: &Macros, name: &str) -> Option<crate::util::c_text::Prec> {
    macros.object(name)?;
    // Bodies with the function-like macro calls in them expanded: the
    // level of `POLYBENCH_LOOP_BOUND(NI, ni)` is that of `ni`.
    crate::util::c_text::macro_level(name, &|n| {
        macros
            .table
            .objects
            .iter()
            .filter(|o| o.name == n)
            .map(|o| macros.expand_calls_text(&o.body))
            .collect()
    })
}

/// Whether `span` of `source` is directly enclosed in parentheses.
pub(super) fn parenthesised_in(source: &str, span: &std::ops::Range<usize>) -> bool {
    let before = source
        .get(..span.start)
        .and_then(|t| t.trim_end().chars().next_back());
    let after = source
        .get(span.end..)
        .and_then(|t| t.trim_start().chars().next());
    before == Some('(') && after == Some(')')
}

impl Resolver for Analyzer<'_> {
    fn macro_level(&self, name: &str) -> Option<crate::util::c_text::Prec> {
        macro_level_in(self.macros, name)
    }

    fn parenthesised(&self, span: &Range<usize>) -> bool {
        parenthesised_in(self.source, span)
    }

    fn resolve(&mut self, name: &str, expr: &Expr, place: Place) -> Result<Val, Diagnostic> {
        if let Some(d) = self.loops.iter().rposition(|l| l == name) {
            return Ok(Val::Aff(Lin::sym(Sym::Iter(d))));
        }
        if let Some((_, v)) = self.aliases.iter().rev().find(|(n, _)| n == name) {
            return Ok(v.clone());
        }
        if let Some(v) = self.substituted_value(name, expr) {
            return Ok(v);
        }
        if self.written.contains(name) {
            let (msg, label) = match place {
                Place::Bound => (
                    format!(
                        "loop bound depends on `{name}`, which is written inside the loop nest"
                    ),
                    "written inside the loop nest".to_string(),
                ),
                _ => (
                    format!(
                        "{} depends on `{name}`, which is written inside the SCoP",
                        place.noun()
                    ),
                    "written inside the SCoP".to_string(),
                ),
            };
            return Err(Diagnostic::new(
                Code::ParameterWritten,
                msg,
                expr.span.clone(),
                label,
            ));
        }
        if let Some(m) = self.macros.object(name) {
            if let Some(v) = m.value {
                self.params
                    .entry(name.to_string())
                    .or_insert((m.origin, Some(v)));
                return Ok(Val::Aff(Lin::sym(Sym::Param(name.to_string()))));
            }
            if self.macro_depth >= MAX_MACRO_DEPTH {
                return Err(not_affine(
                    self,
                    place,
                    &expr.span,
                    "macro expansion too deep",
                ));
            }
            if let Some(x) = self.macros.expand_object(name, expr) {
                self.macro_depth += 1;
                let r = to_val(&x, place, self);
                self.macro_depth -= 1;
                return r;
            }
            return Err(not_affine(
                self,
                place,
                &expr.span,
                "this macro is not an integer expression",
            ));
        }
        let Some(var) = self.scopes.lookup(name, expr.span.start) else {
            let why = if self.macros.is_redefined_here(name) {
                "a macro that this function #defines or #undefs: no one definition holds in all of it"
            } else {
                "not a declared variable or a macro"
            };
            return Err(not_affine(self, place, &expr.span, why));
        };
        let v = &self.scopes.vars[var];
        let int_scalar =
            !v.is_array() && !v.is_pointer() && is_signed_integer_type_text(&v.decl.type_text);
        if !int_scalar {
            let why = if v.is_array() || v.is_pointer() {
                "an array or pointer is not an integer parameter"
            } else if super::affine::is_integer_type_text(&v.decl.type_text) {
                "unsigned parameters are not modelled (their arithmetic wraps around)"
            } else {
                "not an integer variable"
            };
            return Err(not_affine(self, place, &expr.span, why));
        }
        let origin = match v.storage {
            crate::ir::Storage::FunctionParam => ParamOrigin::FunctionParam,
            crate::ir::Storage::Local => ParamOrigin::Variable,
            crate::ir::Storage::Static | crate::ir::Storage::Global => {
                if v.is_const() {
                    ParamOrigin::ConstGlobal
                } else if v.in_function {
                    ParamOrigin::Variable
                } else {
                    return Err(not_affine(
                        self,
                        place,
                        &expr.span,
                        "a non-const global may be changed by any call",
                    ));
                }
            }
        };
        if self.var_address_taken(var) {
            return Err(not_affine(
                self,
                place,
                &expr.span,
                "the address of this variable is taken, so it may change",
            ));
        }
        let value = if origin == ParamOrigin::ConstGlobal {
            v.dc.init.as_ref().and_then(|i| self.macros.eval_expr(i))
        } else {
            None
        };
        self.params
            .entry(name.to_string())
            .or_insert((origin, value));
        Ok(Val::Aff(Lin::sym(Sym::Param(name.to_string()))))
    }

    fn expand_call(&mut self, name: &str, call: &Expr, args: &[Expr]) -> Option<Expr> {
        if self.macro_depth >= MAX_MACRO_DEPTH {
            return None;
        }
        self.macros.expand_call(name, call, args)
    }

    fn param_value(&self, name: &str) -> Option<i64> {
        self.params.get(name).and_then(|(_, v)| *v)
    }

    fn note_value_use(&mut self, name: &str) {
        self.value_uses.insert(name.to_string());
    }

    fn text(&self, span: &Range<usize>) -> String {
        let s = self.source.get(span.clone()).unwrap_or("");
        s.split_whitespace().collect::<Vec<_>>().join(" ")
    }
}

/// Names used for the seen-set of diagnostics.
pub(crate) type DiagKey = (Code, usize, usize);

/// Remembers which diagnostics were already emitted.
#[derive(Default)]
pub(crate) struct DiagSink {
    seen: HashSet<DiagKey>,
    pub diags: Vec<Diagnostic>,
    /// Linearised local tables refused by the analysis, by function and
    /// name (see [`Analyzer::linear_refused`]).
    pub linear_refused: super::heap::Refusals,
    /// Those with an access that needs the split (see
    /// [`Analyzer::linear_needed`]).
    pub linear_needed: std::collections::BTreeSet<(String, String)>,
}

impl DiagSink {
    pub fn push(&mut self, d: Diagnostic) {
        if self.seen.insert((d.code, d.span.start, d.span.end)) {
            self.diags.push(d);
        }
    }
}
