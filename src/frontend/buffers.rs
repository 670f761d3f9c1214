//! Caller-owned buffers (the whole file is visible): an array parameter of
//! a `static` function whose every call passes a buffer that its caller
//! allocates, passes and frees, and does nothing else with, holds values
//! that no code outside the function reads. It is a temporary of the
//! function, and its storage can shrink where it is allocated: the
//! parameter's declarator and every caller's allocation change together
//! (the texts are [`ResizeSite`]s).
//!
//! A buffer is a local array (`double t[N][M];`, a VLA) or a pointer to
//! an array type declared and allocated by a macro of the file
//! (PolyBench's `POLYBENCH_2D_ARRAY_DECL(t, double, N, M, n, m)`, which
//! declares `double (*t)[N][M]` and assigns it `polybench_alloc_data(...)`),
//! passed as `t` (an array) or `*t` (a pointer to one), possibly through
//! a macro (`POLYBENCH_ARRAY(t)`), and freed by `free` (also through a
//! macro). Every occurrence of its name in the caller must be one of
//! these; any other (read after the call, stored, passed elsewhere,
//! `realloc`ed, moved) keeps the layout, and the reason names it.
//!
//! What a macro's arguments mean is read from its expansion: each extent
//! of the declared type must be one argument (a single token) plus a
//! non-negative constant, and the bytes allocated must be the product of
//! the extents and the element's `sizeof`, as polynomials in the
//! arguments; a new extent replaces the argument. The inner extents of
//! the caller's type and the parameter's must be the same expressions
//! (the parameters of the callee read through the call's arguments), so
//! that rows keep their length on both sides.
//!
//! What it does not do: heap buffers of other forms (`malloc` into a
//! plain pointer), buffers passed through several functions, or buffers
//! of callers that are not in this file (a non-static function: `--temp`
//! asserts it).

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

use super::aliasing::FileAliasing;
use super::alloc::{Use, is_free_of, line_of, most_telling, walk_stmts, what_use};
use super::macros::{Macros, Spelled, lex};
use super::scope::Scopes;
use super::syntax::{CStmt, Decl, Declarator, Expr, ExprKind, Function, SyntaxFile};
use crate::ir::ResizeSite;

/// Per `static` function and array parameter: the sites that size the
/// parameter's storage, or why its callers' buffers are not all owned.
#[derive(Clone, Debug, Default)]
pub(crate) struct CallerBuffers {
    params: HashMap<(String, String), Result<Vec<ResizeSite>, String>>,
}

/// The functions that allocate fresh memory, and the arguments whose
/// product is the number of bytes: `malloc(size)`, `calloc(n, size)`,
/// `aligned_alloc(alignment, size)`, `posix_memalign(&t, alignment,
/// size)` (the memory goes to `t`, see [`memaligned`]), and PolyBench's
/// `polybench_alloc_data(n, size)` (declared by `polybench.h`, defined in
/// its `polybench.c`: `n * size` bytes from `posix_memalign`).
const ALLOCATORS: &[(&str, &[usize])] = &[
    ("malloc", &[0]),
    ("calloc", &[0, 1]),
    ("aligned_alloc", &[1]),
    ("polybench_alloc_data", &[0, 1]),
    ("posix_memalign", &[2]),
];

impl CallerBuffers {
    /// Reads the calls of every `static` function whose calls are all
    /// known (`aliasing`), with `macros(k)` the macros in force in
    /// function `k`.
    pub(crate) fn build<'m>(
        file: &SyntaxFile,
        scopes: &Scopes,
        macros: &dyn Fn(usize) -> &'m Macros,
        source: &str,
        aliasing: &FileAliasing,
    ) -> CallerBuffers {
        let mut params = HashMap::new();
        for (kf, f) in file.functions.iter().enumerate() {
            if !f.is_static || !aliasing.all_calls_known(&f.name) {
                continue;
            }
            for (ip, p) in f.params.iter().enumerate() {
                let Some(dc) = p.declarators.first() else {
                    continue;
                };
                // A `const` parameter is an input.
                if dc.dims.is_empty()
                    || dc.is_function
                    || p.declarators.len() != 1
                    || p.has_qualifier("const")
                {
                    continue;
                }
                let cx = Cx {
                    file,
                    scopes,
                    macros,
                    source,
                };
                let result = cx.parameter_sites((kf, f), (ip, p, dc));
                params.insert((f.name.clone(), dc.name.clone()), result);
            }
        }
        CallerBuffers { params }
    }

    /// The sites of parameter `name` of `function`, or why it is not
    /// caller-owned; `None` when the parameter was not examined (not a
    /// `static` function with known calls, or not an array).
    pub(crate) fn parameter(
        &self,
        function: &str,
        name: &str,
    ) -> Option<Result<Vec<ResizeSite>, String>> {
        self.params
            .get(&(function.to_string(), name.to_string()))
            .cloned()
    }
}

/// The pointers that a function declares and allocates with one macro
/// statement (PolyBench's `POLYBENCH_2D_ARRAY_DECL(t, ...)`, read as
/// [`Cx::macro_statement`] reads it: fresh memory from an allocator), that
/// the function declares nowhere else and whose value nothing in it
/// changes (never assigned, moved, `realloc`ed or under `&`): per function
/// index, the names. Each names its own object, for
/// [`super::aliasing::FileAliasing`].
pub(crate) fn macro_allocated<'m>(
    file: &SyntaxFile,
    scopes: &Scopes,
    macros: &dyn Fn(usize) -> &'m Macros,
    source: &str,
) -> std::collections::HashSet<(usize, String)> {
    let cx = Cx {
        file,
        scopes,
        macros,
        source,
    };
    let mut fresh = std::collections::HashSet::new();
    for (k, f) in file.functions.iter().enumerate() {
        let is_macro = |m: &str| macros(k).table.function(m).is_some();
        // Per name: the spans of the statements that allocate it.
        let mut allocations: BTreeMap<String, Vec<Range<usize>>> = BTreeMap::new();
        let mut declared: Vec<String> = Vec::new();
        let mut frees: Vec<Range<usize>> = Vec::new();
        walk_stmts(&f.body, &mut |s: &CStmt| match s {
            CStmt::Decl { decl, .. } => {
                declared.extend(decl.declarators.iter().map(|d| d.name.clone()))
            }
            CStmt::Expr { expr, span } => {
                let ExprKind::Call(m, args) = &expr.kind else {
                    return;
                };
                let ExprKind::Ident(m) = &m.kind else {
                    return;
                };
                if !is_macro(m) {
                    return;
                }
                for a in args {
                    let ExprKind::Ident(name) = &a.kind else {
                        continue;
                    };
                    match cx.macro_statement(k, name, expr.span.clone()) {
                        Some(MacroStatement::Allocates(_)) => allocations
                            .entry(name.clone())
                            .or_default()
                            .push(span.clone()),
                        Some(MacroStatement::Frees) => frees.push(span.clone()),
                        None => {}
                    }
                }
            }
            _ => {}
        });
        let body = f.body.span();
        let text = &source[body.clone()];
        for (name, spans) in allocations {
            if spans.len() != 1 || declared.contains(&name) {
                continue;
            }
            let unchanged = crate::util::c_text::identifier_tokens(text, true)
                .into_iter()
                .filter(|(_, n)| *n == name)
                .map(|(at, _)| body.start + at)
                .filter(|at| !spans.iter().chain(&frees).any(|r| r.contains(at)))
                .all(|at| {
                    matches!(
                        what_use(&f.body, (&name, at), &is_macro),
                        Use::PassedTo(_) | Use::ReadOrWritten | Use::Row | Use::Stored
                    )
                });
            if unchanged {
                fresh.insert((k, name));
            }
        }
    }
    fresh
}

/// What the analysis reads.
struct Cx<'a, 'm> {
    file: &'a SyntaxFile,
    scopes: &'a Scopes<'a>,
    macros: &'a dyn Fn(usize) -> &'m Macros,
    source: &'a str,
}

/// A caller's buffer: its allocation site, the statements that allocate
/// and free it, and the extents of its declared type (in the expanded
/// text, with how to read their names).
struct Buffer {
    site: ResizeSite,
    /// Where the name may occur: the allocation, the frees.
    spans: Vec<Range<usize>>,
    /// The extents of the declared array type, as polynomials.
    extents: Vec<Option<Poly>>,
    /// Passed as `*t` (a pointer to the whole array), not `t`.
    deref: bool,
}

impl<'m> Cx<'_, 'm> {
    fn parameter_sites(
        &self,
        (kf, f): (usize, &Function),
        (ip, p, dc): (usize, &Decl, &Declarator),
    ) -> Result<Vec<ResizeSite>, String> {
        let callee_site = self.parameter_site(kf, f, p, dc)?;
        let callee_extents: Vec<Option<Poly>> = self.declarator_extents(dc);
        let mut sites = vec![callee_site];
        let mut buffers: Vec<(usize, String)> = Vec::new();
        let mut calls_seen = 0;
        for (kc, caller) in self.file.functions.iter().enumerate() {
            let mut calls: Vec<&Expr> = Vec::new();
            caller.body.walk_exprs(&mut |e: &Expr| {
                if let ExprKind::Call(callee, _) = &e.kind
                    && matches!(&callee.kind, ExprKind::Ident(n) if *n == f.name)
                    && !callee.from_macro
                {
                    calls.push(e);
                }
            });
            for call in calls {
                calls_seen += 1;
                let ExprKind::Call(_, args) = &call.kind else {
                    unreachable!("collected calls")
                };
                let line = line_of(self.source, call.span.start);
                let arg = args
                    .get(ip)
                    .ok_or_else(|| format!("the call at line {line} has no argument for it"))?;
                let (name, deref) = self.buffer_named(kc, arg).ok_or_else(|| {
                    format!("the call at line {line} passes an expression that is not a buffer its caller allocates")
                })?;
                // The buffer is passed once per call.
                let others = args.iter().enumerate().filter(|(k, a)| {
                    *k != ip
                        && crate::util::c_text::identifier_tokens(
                            &self.source[a.span.clone()],
                            true,
                        )
                        .iter()
                        .any(|(_, n)| *n == name)
                });
                if others.count() > 0 {
                    return Err(format!(
                        "the call at line {line} passes `{name}` as another argument too"
                    ));
                }
                if !buffers.contains(&(kc, name.clone())) {
                    buffers.push((kc, name.clone()));
                    let b = self.caller_buffer((kc, caller), &name, deref, (&f.name, ip))?;
                    // Rows keep their length: the inner extents are the
                    // same expressions on both sides.
                    let call_args = |n: &str| -> Option<Poly> {
                        let k = f
                            .params
                            .iter()
                            .position(|q| q.declarators.first().is_some_and(|d| d.name == n))?;
                        let a = args.get(k)?;
                        Poly::of(a, &|e| symbol_of(e, None)).ok()
                    };
                    if b.extents.len() != callee_extents.len() {
                        return Err(format!(
                            "`{name}` of {} has {} dimensions, the parameter {}",
                            caller.name,
                            b.extents.len(),
                            callee_extents.len()
                        ));
                    }
                    for (d, callee_extent) in callee_extents.iter().enumerate().skip(1) {
                        let same = match (&b.extents[d], callee_extent) {
                            (Some(a), Some(c)) => *a == c.substitute(&call_args),
                            _ => false,
                        };
                        // Names of the caller that are not macros may
                        // change between the allocation and the call.
                        let macros_only = b.extents[d].as_ref().is_some_and(|e| {
                            e.symbols()
                                .iter()
                                .all(|n| (self.macros)(kc).object(n).is_some())
                        });
                        if !same || !macros_only {
                            return Err(format!(
                                "extent {} of `{name}` in {} is not provably the parameter's",
                                d + 1,
                                caller.name
                            ));
                        }
                    }
                    sites.push(b.site);
                }
            }
        }
        if calls_seen == 0 {
            return Err("the function is never called".into());
        }
        Ok(sites)
    }

    /// The parameter's own site: the extents of its declarator, or the
    /// arguments of its declarator macro.
    fn parameter_site(
        &self,
        kf: usize,
        f: &Function,
        p: &Decl,
        dc: &Declarator,
    ) -> Result<ResizeSite, String> {
        let dims = if dc.from_macro {
            let m = self.macro_declarator(kf, dc.span.clone()).ok_or_else(|| {
                "its declarator macro's arguments do not spell its extents one by one".to_string()
            })?;
            m.dims
        } else {
            dc.dims
                .iter()
                .map(|(e, _)| e.iter().map(|e| e.span.clone()).collect())
                .collect()
        };
        Ok(ResizeSite {
            function: f.name.clone(),
            span: p.span.clone(),
            dims,
            what: if dc.from_macro {
                "the parameter's declarator macro".into()
            } else {
                "the parameter's declarator".into()
            },
        })
    }

    /// The extents of a declarator as polynomials (`None` for one that
    /// is missing or not a polynomial).
    fn declarator_extents(&self, dc: &Declarator) -> Vec<Option<Poly>> {
        dc.dims
            .iter()
            .map(|(e, _)| {
                e.as_ref()
                    .and_then(|e| Poly::of(e, &|x| symbol_of(x, None)).ok())
            })
            .collect()
    }

    /// The variable that argument `arg` of a call in function `k` passes,
    /// and whether it is passed dereferenced (`*t`): `t`, `*t`, or a
    /// macro call that expands to one of them.
    fn buffer_named(&self, k: usize, arg: &Expr) -> Option<(String, bool)> {
        let mut cur = arg.clone();
        for _ in 0..8 {
            match &cur.kind {
                ExprKind::Ident(n) => return Some((n.clone(), false)),
                ExprKind::Deref(x) => {
                    if let ExprKind::Ident(n) = &x.kind {
                        return Some((n.clone(), true));
                    }
                    return None;
                }
                ExprKind::Call(callee, args) => {
                    let ExprKind::Ident(m) = &callee.kind else {
                        return None;
                    };
                    let macros = (self.macros)(k);
                    macros.table.function(m)?;
                    cur = macros.expand_call(m, &cur, args)?;
                }
                _ => return None,
            }
        }
        None
    }

    /// The buffer `name` of `caller` passed to `callee`'s parameter
    /// `ip`: its allocation, and every occurrence of its name checked.
    fn caller_buffer(
        &self,
        (kc, caller): (usize, &Function),
        name: &str,
        deref: bool,
        (callee, ip): (&str, usize),
    ) -> Result<Buffer, String> {
        let mut found: Vec<Buffer> = Vec::new();
        let mut frees: Vec<Range<usize>> = Vec::new();
        let mut unreadable = None;
        let mut initialised = false;
        let mut unreadable_size = None;
        walk_stmts(&caller.body, &mut |s: &CStmt| match s {
            CStmt::Decl { decl, span } => {
                for dc in &decl.declarators {
                    if dc.name == name
                        && let Some(b) = self.heap_buffer(caller, (decl, span, dc))
                    {
                        match b {
                            Ok(b) => found.push(b),
                            Err(why) => unreadable_size = Some(why),
                        }
                        continue;
                    }
                    if dc.name == name && dc.init.is_some() {
                        initialised = true;
                    }
                    if dc.name == name
                        && !dc.from_macro
                        && !dc.dims.is_empty()
                        && !dc.is_pointer
                        && dc.init.is_none()
                    {
                        found.push(Buffer {
                            site: ResizeSite {
                                function: caller.name.clone(),
                                span: span.clone(),
                                dims: dc
                                    .dims
                                    .iter()
                                    .map(|(e, _)| e.iter().map(|e| e.span.clone()).collect())
                                    .collect(),
                                what: "the local array".into(),
                            },
                            spans: vec![span.clone()],
                            extents: self.declarator_extents(dc),
                            deref: false,
                        });
                    }
                }
            }
            CStmt::Expr { expr, span } => {
                if is_free_of(expr, name) {
                    frees.push(span.clone());
                } else if let ExprKind::Call(m, _) = &expr.kind
                    && let ExprKind::Ident(m) = &m.kind
                    && (self.macros)(kc).table.function(m).is_some()
                {
                    match self.macro_statement(kc, name, expr.span.clone()) {
                        Some(MacroStatement::Allocates(mut b)) => {
                            b.site.function = caller.name.clone();
                            found.push(Buffer {
                                spans: vec![span.clone()],
                                ..b
                            })
                        }
                        Some(MacroStatement::Frees) => frees.push(span.clone()),
                        None => {
                            if self.source[expr.span.clone()].contains(name) {
                                unreadable = Some(m.clone());
                            }
                        }
                    }
                }
            }
            _ => {}
        });
        let line = |at: usize| line_of(self.source, at);
        if let (true, Some(why)) = (found.is_empty(), unreadable_size) {
            return Err(format!("`{name}` of {}: {why}", caller.name));
        }
        if initialised {
            return Err(format!(
                "`{name}` of {} is initialised where it is declared",
                caller.name
            ));
        }
        if found.len() != 1 {
            return Err(match (found.len(), unreadable) {
                (0, Some(m)) => format!(
                    "the macro `{m}` of {} uses `{name}` in a way polyfold cannot read",
                    caller.name
                ),
                (0, None) => format!(
                    "`{name}` of {} is not a local array or a buffer allocated there",
                    caller.name
                ),
                _ => format!("{} declares `{name}` more than once", caller.name),
            });
        }
        let b = found.pop().expect("one");
        // A local array or a pointer to its rows is passed as it is; a
        // pointer to the whole array as `*t`.
        if b.deref != deref {
            return Err(format!(
                "`{name}` of {} is passed as a pointer, not as the array it allocates",
                caller.name
            ));
        }
        // Every occurrence of the name in the caller: the allocation, a
        // call of the callee passing it there, a `free`.
        let mut passes: Vec<Range<usize>> = Vec::new();
        caller.body.walk_exprs(&mut |e: &Expr| {
            if let ExprKind::Call(f, args) = &e.kind
                && matches!(&f.kind, ExprKind::Ident(n) if n == callee)
                && let Some(a) = args.get(ip)
            {
                passes.push(a.span.clone());
            }
        });
        let body = caller.body.span();
        let mut escapes: Vec<(Use, String)> = Vec::new();
        for (at, n) in crate::util::c_text::identifier_tokens(&self.source[body.clone()], true) {
            let at = body.start + at;
            if n != name {
                continue;
            }
            let inside = |r: &Range<usize>| r.start <= at && at < r.end;
            if b.spans.iter().any(inside) || passes.iter().any(inside) || frees.iter().any(inside) {
                continue;
            }
            let how = what_use(&caller.body, (name, at), &|m| {
                (self.macros)(kc).table.function(m).is_some()
            });
            let why = format!("`{name}` is {how} at line {} of {}", line(at), caller.name);
            escapes.push((how, why));
        }
        if let Some(why) = most_telling(escapes) {
            return Err(why);
        }
        if let Some(v) = self.scopes.lookup(name, body.start)
            && self.scopes.vars[v].storage != crate::ir::Storage::Local
        {
            return Err(format!(
                "`{name}` is also a variable outside {}",
                caller.name
            ));
        }
        Ok(b)
    }

    /// The buffer that declarator `dc` (of `decl`, the declaration at
    /// `span` in `caller`) allocates from the heap: a pointer to rows or
    /// to elements initialised by `malloc` or `calloc` (see
    /// `super::heap`), or why its size cannot be read; `None` for any
    /// other declarator.
    fn heap_buffer(
        &self,
        caller: &Function,
        (decl, span, dc): (&Decl, &Range<usize>, &Declarator),
    ) -> Option<Result<Buffer, String>> {
        if !dc.is_pointer || !(dc.dims.is_empty() || dc.points_to_rows) || dc.from_macro {
            return None;
        }
        let (allocator, args) = super::alloc::allocation(dc.init.as_ref()?)?;
        let Some(first) = super::alloc::first_extent(self.source, (allocator, args), decl, dc)
        else {
            return Some(Err(format!(
                "its size is not `n * sizeof *{}` or `calloc(n, sizeof *{})`",
                dc.name, dc.name
            )));
        };
        let mut dims = vec![vec![first.span.clone()]];
        dims.extend(
            dc.dims
                .iter()
                .map(|(e, _)| e.iter().map(|e| e.span.clone()).collect()),
        );
        // `sizeof(double[n][m])` spells the rows' extents too.
        if let Some(init) = dc.init.as_ref() {
            for (d, span) in super::alloc::sizeof_row_spans(init, &first)
                .into_iter()
                .enumerate()
            {
                if let Some(spans) = dims.get_mut(d + 1) {
                    spans.push(span);
                }
            }
        }
        let mut extents = vec![Poly::of(&first, &|x| symbol_of(x, None)).ok()];
        extents.extend(self.declarator_extents(dc));
        Some(Ok(Buffer {
            site: ResizeSite {
                function: caller.name.clone(),
                span: span.clone(),
                dims,
                what: format!("the allocation `{allocator}`"),
            },
            spans: vec![span.clone()],
            extents,
            deref: false,
        }))
    }

    /// The dimensions of the macro declarator `source[call]` (a
    /// parameter's `POLYBENCH_2D(t, N, M, n, m)`): per extent, the one
    /// argument that spells it.
    fn macro_declarator(&self, k: usize, call: Range<usize>) -> Option<ResizeSite> {
        let macros = (self.macros)(k);
        let tokens = lex(self.source.get(call.clone())?, Some(call.start));
        let args = argument_spans(&tokens)?;
        let expanded = macros.expand_tokens(&tokens)?;
        let spelled = Spelled::new(&expanded, "int ".len());
        let dc = super::syntax::parse_declarator_text(&spelled.text)?;
        let extents = dims_of(&dc, &spelled, &args, macros)?;
        Some(ResizeSite {
            function: String::new(),
            span: call,
            dims: extents.into_iter().map(|(d, _, _)| d).collect(),
            what: String::new(),
        })
    }

    /// A statement `M(...);` of function `k` that is a macro call: what
    /// it does to `name`, when it is an allocation or a free of it.
    fn macro_statement(&self, k: usize, name: &str, call: Range<usize>) -> Option<MacroStatement> {
        let macros = (self.macros)(k);
        let tokens = lex(self.source.get(call.clone())?, Some(call.start));
        let args = argument_spans(&tokens)?;
        let expanded = macros.expand_tokens(&tokens)?;
        const PREFIX: &str = "void f(void) { ";
        let spelled = Spelled::new(&expanded, PREFIX.len());
        let text = format!("{PREFIX}{} ; }}", spelled.text);
        let parsed = super::syntax::parse_file(&text)?;
        if parsed.first_error.is_some() {
            return None;
        }
        let body = &parsed.functions.first()?.body;
        let CStmt::Compound { items, .. } = body else {
            return None;
        };
        let items: Vec<&CStmt> = items
            .iter()
            .filter(|s| !matches!(s, CStmt::Empty { .. }))
            .collect();
        match items.as_slice() {
            [CStmt::Expr { expr, .. }] if is_free_of(expr, name) => Some(MacroStatement::Frees),
            [CStmt::Decl { decl, .. }, CStmt::Expr { expr, .. }] => {
                let [dc] = decl.declarators.as_slice() else {
                    return None;
                };
                if dc.name != name || !dc.is_pointer || dc.dims.is_empty() || dc.init.is_some() {
                    return None;
                }
                let dims = dims_of(dc, &spelled, &args, macros)?;
                // `name = (cast) allocator(...)` or `posix_memalign(&name,
                // alignment, size)`: the bytes are the product of the
                // extents and the element's size.
                let allocating = match &expr.kind {
                    // (`posix_memalign` returns a status, not the memory.)
                    ExprKind::Assign(None, lhs, rhs)
                        if matches!(&lhs.kind, ExprKind::Ident(n) if n == name)
                            && !returns_status(rhs) =>
                    {
                        rhs.as_ref()
                    }
                    _ if memaligned(expr).is_some_and(|(t, _)| t == name) => expr,
                    _ => return None,
                };
                let bytes = allocated_bytes(allocating, &spelled, &args, &text, &decl.type_text)?;
                let mut product = Poly::constant(1);
                for (_, e, _) in &dims {
                    product = product.mul(e);
                }
                product = product.mul(&Poly::symbol("sizeof"));
                if bytes != product {
                    return None;
                }
                let extents = dims.iter().map(|(_, _, e)| e.clone()).collect();
                let macro_name = self.source[call.clone()]
                    .split('(')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_string();
                Some(MacroStatement::Allocates(Buffer {
                    deref: true,
                    site: ResizeSite {
                        function: String::new(),
                        span: call,
                        dims: dims.into_iter().map(|(d, _, _)| d).collect(),
                        what: format!("the allocation macro `{macro_name}`"),
                    },
                    spans: Vec::new(),
                    extents,
                }))
            }
            _ => None,
        }
    }
}

/// What a macro statement does to a buffer.
enum MacroStatement {
    /// Declares it as a pointer to an array and allocates it.
    Allocates(Buffer),
    /// Frees it.
    Frees,
}

/// The user's byte range of each argument of the macro call `tokens`
/// (`M(a, b)`), `None` when an argument is empty or not the user's text.
fn argument_spans(tokens: &[super::macros::PpToken]) -> Option<Vec<Range<usize>>> {
    if tokens.get(1)?.text != "(" {
        return None;
    }
    let mut args: Vec<Range<usize>> = Vec::new();
    let mut current: Option<Range<usize>> = None;
    let mut depth = 0usize;
    for t in &tokens[2..] {
        match t.text.as_str() {
            ")" if depth == 0 => {
                args.push(current.take()?);
                return Some(args);
            }
            "," if depth == 0 => args.push(current.take()?),
            s => {
                if s == "(" {
                    depth += 1;
                } else if s == ")" {
                    depth -= 1;
                }
                let o = t.origin.clone()?;
                current = Some(match current {
                    Some(c) => c.start..o.end,
                    None => o,
                });
            }
        }
    }
    None
}

/// The symbol of a leaf of an extent: `#k` for a token of argument `k`
/// of a macro call (with `args`), its name for any other identifier.
fn symbol_of(e: &Expr, args: Option<(&Spelled, &[Range<usize>])>) -> Option<String> {
    if let Some((spelled, args)) = args
        && let Some(o) = spelled.origin(&e.span)
    {
        let k = args
            .iter()
            .position(|a| a.start <= o.start && o.end <= a.end)?;
        // The whole argument, one token.
        return (args[k] == o).then(|| format!("#{k}"));
    }
    match &e.kind {
        ExprKind::Ident(n) => Some(n.clone()),
        _ => None,
    }
}

/// One dimension of a declarator spelled from a macro call: the argument
/// that spells it, its extent in the arguments (`#k`) and in names.
type MacroDim = (Vec<Range<usize>>, Poly, Option<Poly>);

/// Per dimension of a declarator spelled from a macro call: the argument
/// that spells its extent, and the extent as a polynomial (`#k + c`,
/// `c >= 0` for the macro values in force). `None` when an extent is not
/// of that form or an argument spells two of them.
fn dims_of(
    dc: &Declarator,
    spelled: &Spelled,
    args: &[Range<usize>],
    macros: &Macros,
) -> Option<Vec<MacroDim>> {
    let mut out: Vec<MacroDim> = Vec::new();
    for (e, _) in &dc.dims {
        let e = e.as_ref()?;
        let p = Poly::of(e, &|x| symbol_of(x, Some((spelled, args)))).ok()?;
        let syms: Vec<String> = p
            .symbols()
            .into_iter()
            .filter(|s| s.starts_with('#'))
            .collect();
        let [s] = syms.as_slice() else { return None };
        let k: usize = s[1..].parse().ok()?;
        // `#k + rest`, `rest` free of arguments and non-negative.
        let rest = p.sub(&Poly::symbol(s));
        if rest.symbols().iter().any(|x| x.starts_with('#')) {
            return None;
        }
        let value = rest.eval(&|n| {
            macros.eval_expr(&Expr {
                kind: ExprKind::Ident(n.to_string()),
                span: 0..0,
                from_macro: false,
            })
        })?;
        if value < 0 || out.iter().any(|(d, _, _)| d.contains(&args[k])) {
            return None;
        }
        let named = Poly::of(e, &|x| symbol_of(x, None)).ok();
        out.push((vec![args[k].clone()], p, named));
    }
    Some(out)
}

/// `posix_memalign(&t, alignment, size)` (through casts of its first
/// argument, `(void **)&t`): the name `t` and the size argument.
pub(crate) fn memaligned(e: &Expr) -> Option<(&str, &Expr)> {
    let ExprKind::Call(f, args) = &e.kind else {
        return None;
    };
    if !matches!(&f.kind, ExprKind::Ident(n) if n == "posix_memalign") {
        return None;
    }
    let [to, _, size] = args.as_slice() else {
        return None;
    };
    let mut cur = to;
    while let ExprKind::Cast(_, x) = &cur.kind {
        cur = x;
    }
    let ExprKind::AddrOf(x) = &cur.kind else {
        return None;
    };
    let ExprKind::Ident(n) = &x.kind else {
        return None;
    };
    Some((n.as_str(), size))
}

/// Whether `e` is (through casts) a call of `posix_memalign`.
fn returns_status(e: &Expr) -> bool {
    let mut cur = e;
    while let ExprKind::Cast(_, x) = &cur.kind {
        cur = x;
    }
    matches!(&cur.kind, ExprKind::Call(f, _) if matches!(&f.kind, ExprKind::Ident(n) if n == "posix_memalign"))
}

/// The bytes an allocation `(cast) allocator(...)` asks for, as a
/// polynomial in the arguments of the macro call (`sizeof(T)` of the
/// element type `elem` is the symbol `sizeof`); `None` for any other
/// expression.
fn allocated_bytes(
    e: &Expr,
    spelled: &Spelled,
    args: &[Range<usize>],
    text: &str,
    elem: &str,
) -> Option<Poly> {
    let mut cur = e;
    while let ExprKind::Cast(_, x) = &cur.kind {
        cur = x;
    }
    let ExprKind::Call(f, call_args) = &cur.kind else {
        return None;
    };
    let ExprKind::Ident(fname) = &f.kind else {
        return None;
    };
    let (_, factors) = ALLOCATORS.iter().find(|(n, _)| n == fname)?;
    let elem = elem.split_whitespace().collect::<Vec<_>>().join(" ");
    let leaf = |x: &Expr| -> Option<String> {
        if let ExprKind::Other(kind, subs) = &x.kind
            && kind == "sizeof_expression"
        {
            // `sizeof(T)` of the element type only.
            let t = text.get(x.span.clone())?;
            let inner = t.trim().strip_prefix("sizeof")?.trim();
            let inner = inner.strip_prefix('(')?.strip_suffix(')')?;
            let inner = inner.split_whitespace().collect::<Vec<_>>().join(" ");
            return (subs.is_empty() && inner == elem).then(|| "sizeof".to_string());
        }
        symbol_of(x, Some((spelled, args)))
    };
    let mut bytes = Poly::constant(1);
    for &k in *factors {
        bytes = bytes.mul(&Poly::of(call_args.get(k)?, &leaf).ok()?);
    }
    Some(bytes)
}

/// A polynomial with integer coefficients in named symbols: monomial (the
/// sorted names, repeated for powers) to coefficient; no zero
/// coefficient is stored, so equal polynomials are equal maps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Poly(BTreeMap<Vec<String>, i128>);

impl Poly {
    fn constant(c: i128) -> Poly {
        let mut m = BTreeMap::new();
        if c != 0 {
            m.insert(Vec::new(), c);
        }
        Poly(m)
    }

    fn symbol(s: &str) -> Poly {
        Poly(BTreeMap::from([(vec![s.to_string()], 1)]))
    }

    /// The polynomial of `e`: integer literals, `+`, `-`, `*`, unary
    /// minus, parentheses and casts; every other leaf is the symbol
    /// `leaf` names (`Err` when it names none, or on an overflow).
    fn of(e: &Expr, leaf: &dyn Fn(&Expr) -> Option<String>) -> Result<Poly, ()> {
        use super::syntax::{BinOp, UnOp};
        if let Some(s) = leaf(e)
            && !matches!(e.kind, ExprKind::Int(_))
        {
            return Ok(Poly::symbol(&s));
        }
        match &e.kind {
            ExprKind::Int(v) => Ok(match leaf(e) {
                Some(s) => Poly::symbol(&s),
                None => Poly::constant(i128::from(*v)),
            }),
            ExprKind::Cast(_, x) => Poly::of(x, leaf),
            ExprKind::Unary(UnOp::Neg, x) => Ok(Poly::constant(0).sub(&Poly::of(x, leaf)?)),
            ExprKind::Unary(UnOp::Plus, x) => Poly::of(x, leaf),
            ExprKind::Binary(op, a, b) => {
                let (a, b) = (Poly::of(a, leaf)?, Poly::of(b, leaf)?);
                match op {
                    BinOp::Add => Ok(a.add(&b)),
                    BinOp::Sub => Ok(a.sub(&b)),
                    BinOp::Mul => Ok(a.mul(&b)),
                    _ => Err(()),
                }
            }
            _ => Err(()),
        }
    }

    fn add(&self, o: &Poly) -> Poly {
        let mut m = self.0.clone();
        for (k, v) in &o.0 {
            let e = m.entry(k.clone()).or_insert(0);
            *e = e.saturating_add(*v);
            if *e == 0 {
                m.remove(k);
            }
        }
        Poly(m)
    }

    fn sub(&self, o: &Poly) -> Poly {
        let neg = Poly(o.0.iter().map(|(k, v)| (k.clone(), -v)).collect());
        self.add(&neg)
    }

    fn mul(&self, o: &Poly) -> Poly {
        let mut out = Poly::constant(0);
        for (ka, va) in &self.0 {
            for (kb, vb) in &o.0 {
                let mut k = ka.clone();
                k.extend(kb.iter().cloned());
                k.sort();
                out = out.add(&Poly(BTreeMap::from([(k, va.saturating_mul(*vb))])));
            }
        }
        out
    }

    fn symbols(&self) -> Vec<String> {
        let mut s: Vec<String> = self.0.keys().flatten().cloned().collect();
        s.sort();
        s.dedup();
        s
    }

    /// The value with every symbol's value from `value` (`None` when one
    /// has none).
    fn eval(&self, value: &dyn Fn(&str) -> Option<i64>) -> Option<i128> {
        let mut total: i128 = 0;
        for (k, c) in &self.0 {
            let mut t = *c;
            for s in k {
                t = t.checked_mul(i128::from(value(s)?))?;
            }
            total = total.checked_add(t)?;
        }
        Some(total)
    }

    /// The polynomial with each symbol that `with` names replaced.
    fn substitute(&self, with: &dyn Fn(&str) -> Option<Poly>) -> Poly {
        let mut out = Poly::constant(0);
        for (k, c) in &self.0 {
            let mut t = Poly::constant(*c);
            for s in k {
                t = t.mul(&with(s).unwrap_or_else(|| Poly::symbol(s)));
            }
            out = out.add(&t);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sites (or the reason) of parameter `name` of `k` in `source`,
    /// with the file's own macros.
    fn owned(source: &str, name: &str) -> Option<Result<Vec<ResizeSite>, String>> {
        let file = super::super::syntax::parse_file(source).expect("parses");
        let scopes = Scopes::build(&file);
        let macros = Macros::build(&file.defines, &[]);
        let fresh = macro_allocated(&file, &scopes, &|_| &macros, source);
        let aliasing = FileAliasing::build(&file, &scopes, source, (&|_| &macros, &fresh));
        let buffers = CallerBuffers::build(&file, &scopes, &|_| &macros, source, &aliasing);
        buffers.parameter("k", name)
    }

    /// The texts of the spans of each dimension of `site`.
    fn dims<'s>(source: &'s str, site: &ResizeSite) -> Vec<Vec<&'s str>> {
        site.dims
            .iter()
            .map(|d| d.iter().map(|r| &source[r.clone()]).collect())
            .collect()
    }

    const KERNEL: &str = "#define N 10\n#define M 20\nstatic void k(int n, double t[N][M], double out[N]) {\n  for (int i = 0; i < n; i++) { for (int j = 0; j < M; j++) t[i][j] = i + j; out[i] = t[i][3]; }\n}\n";

    #[test]
    fn a_local_array_passed_and_nothing_else() {
        let src = format!(
            "{KERNEL}int main(void) {{ double out[N]; double buf[N][M]; k(N, buf, out); return (int)out[1]; }}\n"
        );
        let sites = owned(&src, "t").expect("examined").expect("owned");
        assert_eq!(sites.len(), 2);
        assert_eq!(dims(&src, &sites[0]), vec![vec!["N"], vec!["M"]]);
        assert_eq!(sites[1].function, "main");
        assert_eq!(dims(&src, &sites[1]), vec![vec!["N"], vec!["M"]]);
        // `out` is read after the call.
        let why = owned(&src, "out")
            .expect("examined")
            .expect_err("not owned");
        assert!(why.contains("line 6"), "{why}");
    }

    #[test]
    fn heap_memory_of_the_caller_passed_and_freed() {
        for (alloc, first) in [
            ("double (*buf)[M] = malloc(N * sizeof *buf);", "N"),
            ("double (*buf)[M] = calloc(N + 1, sizeof(*buf));", "N + 1"),
        ] {
            let src = format!(
                "#include <stdlib.h>\n{KERNEL}int main(void) {{ double out[N]; {alloc} k(N, buf, out); k(N - 1, buf, out); free(buf); return (int)out[1]; }}\n"
            );
            let sites = owned(&src, "t").expect("examined").expect(alloc);
            assert_eq!(
                dims(&src, &sites[1]),
                vec![vec![first], vec!["M"]],
                "{alloc}"
            );
            assert!(sites[1].what.contains("alloc"), "{alloc}");
        }
    }

    #[test]
    fn polybench_style_macros_declare_allocate_pass_and_free() {
        let src = String::from(
            "#include <stdlib.h>\n#define PAD 0\n#define ARRAY_2D(v, d1, d2, dd1, dd2) v[d1 + PAD][d2 + PAD]\n\
             #define DECL_2D(v, type, d1, d2, dd1, dd2) type (*v)[d1 + PAD][d2 + PAD]; v = (type(*)[d1 + PAD][d2 + PAD])malloc((d1 + PAD) * (d2 + PAD) * sizeof(type));\n\
             #define ARR(x) *x\n#define FREE(x) free((void*)x);\n#define N 10\n#define M 20\n\
             static void k(int n, double ARRAY_2D(t, N, M, n, m)) {\n  for (int i = 0; i < n; i++) for (int j = 0; j < M; j++) t[i][j] = i + j;\n}\n\
             int main(void) {\n  DECL_2D(buf, double, N, M, n, m);\n  k(N, ARR(buf));\n  FREE(buf);\n  return 0;\n}\n",
        );
        let program = crate::frontend::extract("t.c", &src, &Default::default());
        let scop = program
            .scops
            .iter()
            .find(|s| s.function == "k")
            .expect("the kernel's SCoP");
        let t = scop.arrays.iter().find(|a| a.name == "t").expect("t");
        let sites = t
            .facts
            .caller_owned
            .clone()
            .expect("examined")
            .expect("owned");
        assert_eq!(sites.len(), 2);
        // The callee's macro: its arguments `N` and `M` (not `n`, `m`,
        // which the expansion does not use).
        let callee = dims(&src, &sites[0]);
        assert_eq!(callee, vec![vec!["N"], vec!["M"]]);
        let caller = dims(&src, &sites[1]);
        assert_eq!(caller, vec![vec!["N"], vec!["M"]]);
        assert!(src[sites[1].span.clone()].starts_with("DECL_2D(buf"));
        assert!(sites[1].what.contains("DECL_2D"));
        assert_eq!(sites[1].function, "main");
    }

    #[test]
    fn a_macro_that_allocates_with_posix_memalign_is_read() {
        // The macro of PolyBench's own allocator: `&v` receives the
        // memory, the third argument is `d1 * d2 * sizeof(type)`.
        let kernel = "static void k(int n, double t[N][M]) {\n  for (int i = 0; i < n; i++) for (int j = 0; j < M; j++) t[i][j] = i + j;\n}\n";
        for (alloc, good) in [
            (
                "posix_memalign((void **)&v, 64, (d1) * (d2) * sizeof(type))",
                true,
            ),
            ("posix_memalign(&v, 32, sizeof(type) * (d2) * (d1))", true),
            (
                "posix_memalign((void **)&v, 64, (d1) * sizeof(type))",
                false,
            ),
            (
                "v = (type(*)[d1][d2])posix_memalign((void **)&w, 64, (d1) * (d2) * sizeof(type))",
                false,
            ),
        ] {
            let src = format!(
                "#include <stdlib.h>\n#define DECL_2D(v, type, d1, d2) type (*v)[d1][d2]; {alloc};\n\
                 #define N 10\n#define M 20\nvoid *w;\n{kernel}\
                 int main(void) {{\n  DECL_2D(buf, double, N, M);\n  k(N, *buf);\n  free(buf);\n  return 0;\n}}\n"
            );
            let got = owned(&src, "t").expect("examined");
            if good {
                let sites = got.expect(alloc);
                assert_eq!(dims(&src, &sites[1]), vec![vec!["N"], vec!["M"]], "{alloc}");
                assert!(sites[1].what.contains("DECL_2D"), "{alloc}");
            } else {
                let why = got.expect_err(alloc);
                assert!(why.contains("DECL_2D"), "{alloc}: {why}");
            }
        }
    }

    #[test]
    fn a_macro_that_allocates_less_than_its_type_is_not_read() {
        // The bytes are `d1 * sizeof(type)`, not `d1 * d2 * sizeof(type)`.
        let src = "#include <stdlib.h>\n#define DECL_2D(v, type, d1, d2) type (*v)[d1][d2]; v = (type(*)[d1][d2])malloc((d1) * sizeof(type));\n\
             #define N 10\n#define M 20\n\
             static void k(int n, double t[N][M]) {\n  for (int i = 0; i < n; i++) for (int j = 0; j < M; j++) t[i][j] = i + j;\n}\n\
             int main(void) {\n  DECL_2D(buf, double, N, M);\n  k(N, *buf);\n  free(buf);\n  return 0;\n}\n";
        let why = owned(src, "t").expect("examined").expect_err("not owned");
        assert!(why.contains("DECL_2D"), "{why}");
    }

    #[test]
    fn escapes_keep_the_layout_and_say_why() {
        for (main, says) in [
            (
                "double buf[N][M], out[N]; k(N, buf, out); return (int)buf[1][2];",
                "read or written",
            ),
            (
                "double buf[N][M], out[N]; keep = &buf[0][0]; k(N, buf, out); return 0;",
                "under `&`",
            ),
            (
                "double buf[N][M], out[N]; g(buf); k(N, buf, out); return 0;",
                "passed to `g`",
            ),
            (
                "double buf[N][M], out[N]; k(N, buf, buf[0]); return 0;",
                "another argument",
            ),
            (
                "double (*buf)[M] = malloc(sizeof(double[N][N])); double out[N]; k(N, buf, out); free(buf); return 0;",
                "its size",
            ),
            (
                "double (*buf)[M] = malloc(N * sizeof *buf); double out[N]; k(N, buf, out); buf[0][1] = 2; free(buf); return 0;",
                "read or written",
            ),
            (
                "double (*buf)[M] = malloc(N * sizeof *buf); double out[N]; k(N, buf, out); buf = realloc(buf, 9); free(buf); return 0;",
                "realloc",
            ),
        ] {
            let src = format!(
                "#include <stdlib.h>\ndouble *keep;\nvoid g(double (*p)[20]);\n{KERNEL}int main(void) {{ {main} }}\n"
            );
            let why = owned(&src, "t").expect("examined").expect_err(main);
            assert!(why.contains(says), "{main}: {why}");
        }
    }

    #[test]
    fn a_non_static_function_or_a_pointer_parameter_is_not_examined() {
        let src = format!(
            "{}int main(void) {{ double out[N]; double buf[N][M]; k(N, buf, out); return 0; }}\n",
            KERNEL.replace("static void", "void")
        );
        assert!(owned(&src, "t").is_none());
        let src = "static void k(int n, double *t) { for (int i = 0; i < n; i++) t[i] = i; }\nint main(void) { double b[4]; k(4, b); return 0; }\n";
        assert!(owned(src, "t").is_none());
    }

    #[test]
    fn inner_extents_must_be_the_parameters() {
        let src = format!(
            "{KERNEL}int main(void) {{ double out[N]; double buf[N][M + 1]; k(N, buf, out); return 0; }}\n"
        );
        let why = owned(&src, "t")
            .expect("examined")
            .expect_err("rows differ");
        assert!(why.contains("extent 2"), "{why}");
    }

    #[test]
    fn polynomials_are_equal_when_they_expand_alike() {
        let e = |t: &str| super::super::syntax::parse_expression_text(t).expect("parses");
        let p = |t: &str| Poly::of(&e(t), &|x| symbol_of(x, None)).expect("polynomial");
        assert_eq!(p("(a + 1) * (a - 1)"), p("a * a - 1"));
        assert_eq!(p("2 * (n + m) - m"), p("n + n + m"));
        assert_ne!(p("n * m"), p("n + m"));
        assert!(Poly::of(&e("n / 2"), &|x| symbol_of(x, None)).is_err());
        assert_eq!(p("n * 3 - 1").eval(&|_| Some(4)), Some(11));
    }
}
