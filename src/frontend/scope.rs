//! Name resolution: which declaration a use of a name refers to, and how
//! every variable is used in the file (for the array facts).
//!
//! Resolution follows C block scoping: the innermost declaration whose block
//! contains the use and that is declared before it, then the function's
//! parameters, then file-scope declarations. This module does not decide
//! what is affine.

use std::collections::HashMap;
use std::ops::Range;

use super::syntax::{CStmt, Decl, Declarator, Expr, ExprKind, ForInit, Function, SyntaxFile};
use crate::ir::Storage;

/// A declared variable. `key` (the byte offset of its name in the
/// declaration) identifies it uniquely in the file.
#[derive(Clone, Debug)]
pub(crate) struct Var<'a> {
    pub key: usize,
    pub decl: &'a Decl,
    pub dc: &'a Declarator,
    pub storage: Storage,
    /// Where the name is visible.
    pub scope: Range<usize>,
    /// Declared inside a function (a local or a parameter).
    pub in_function: bool,
}

impl Var<'_> {
    pub fn name(&self) -> &str {
        &self.dc.name
    }

    pub(crate) fn is_array(&self) -> bool {
        !self.dc.dims.is_empty()
    }

    pub(crate) fn is_pointer(&self) -> bool {
        self.dc.is_pointer
    }

    pub(crate) fn is_const(&self) -> bool {
        self.decl.has_qualifier("const")
    }
}

/// How one use of a variable looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// The base of a subscript chain with this many subscripts.
    Subscripted(usize),
    /// Under `&` (possibly through subscripts).
    AddrOf,
    /// Any other use as a value (an array used this way decays to a pointer).
    Value,
}

/// All variables of a file and all their uses.
#[derive(Debug, Default)]
pub(crate) struct Scopes<'a> {
    pub vars: Vec<Var<'a>>,
    by_name: HashMap<&'a str, Vec<usize>>,
    /// Uses of each variable (by index in `vars`): offset and role.
    pub uses: HashMap<usize, Vec<(usize, Role)>>,
    /// Function spans, to find the function around a position.
    functions: Vec<Range<usize>>,
    /// Per variable, the `for` loops whose initialisation assigns it
    /// (`for (i = ...; ...)`), by span.
    pub iterator_loops: HashMap<usize, Vec<Range<usize>>>,
}

impl<'a> Scopes<'a> {
    pub fn build(file: &'a SyntaxFile) -> Scopes<'a> {
        let mut s = Scopes::default();
        for g in &file.globals {
            let storage = if g.has_qualifier("static") {
                Storage::Static
            } else {
                Storage::Global
            };
            for dc in &g.declarators {
                if dc.is_function {
                    continue;
                }
                s.push(Var {
                    key: dc.name_span.start,
                    decl: g,
                    dc,
                    storage,
                    scope: 0..usize::MAX,
                    in_function: false,
                });
            }
        }
        for f in &file.functions {
            s.functions.push(f.span.clone());
            let body_span = f.body.span();
            for p in &f.params {
                for dc in &p.declarators {
                    s.push(Var {
                        key: dc.name_span.start,
                        decl: p,
                        dc,
                        storage: Storage::FunctionParam,
                        // The parameter list is in scope too (VLA extents).
                        scope: f.span.start..body_span.end,
                        in_function: true,
                    });
                }
            }
            s.collect_locals(&f.body, &f.body.span());
        }
        for f in &file.functions {
            s.collect_uses(f);
        }
        // Initialisers at file scope (`double *p = A;`) use globals too.
        let mut found: Vec<(&'a str, usize, Role)> = Vec::new();
        for g in &file.globals {
            super::syntax::walk_decl_root_exprs(g, &mut |e| scan_roots(e, &mut found));
        }
        for (name, at, role) in found {
            if let Some(i) = s.lookup(name, at) {
                s.uses.entry(i).or_default().push((at, role));
            }
        }
        s
    }

    fn push(&mut self, v: Var<'a>) {
        let idx = self.vars.len();
        self.by_name
            .entry(v.dc.name.as_str())
            .or_default()
            .push(idx);
        self.vars.push(v);
    }

    fn collect_locals(&mut self, stmt: &'a CStmt, block: &Range<usize>) {
        match stmt {
            CStmt::Compound { items, span } => {
                for it in items {
                    self.collect_locals(it, span);
                }
            }
            CStmt::Decl { decl, .. } => self.push_decl(decl, block),
            CStmt::For {
                init, body, span, ..
            } => {
                if let ForInit::Decl(d) = init {
                    self.push_decl(d, span);
                }
                self.collect_locals(body, span);
            }
            CStmt::If { then, els, .. } => {
                self.collect_locals(then, block);
                if let Some(e) = els {
                    self.collect_locals(e, block);
                }
            }
            CStmt::Other { children, span, .. } => {
                for c in children {
                    self.collect_locals(c, span);
                }
            }
            CStmt::Expr { .. } | CStmt::Empty { .. } | CStmt::Preproc { .. } => {}
        }
    }

    fn push_decl(&mut self, decl: &'a Decl, block: &Range<usize>) {
        let storage = if decl.has_qualifier("static") {
            Storage::Static
        } else if decl.has_qualifier("extern") {
            Storage::Global
        } else {
            Storage::Local
        };
        for dc in &decl.declarators {
            if dc.is_function {
                continue;
            }
            self.push(Var {
                key: dc.name_span.start,
                decl,
                dc,
                storage,
                scope: block.clone(),
                in_function: true,
            });
        }
    }

    /// The variable that `name` refers to at byte offset `at`.
    pub(crate) fn lookup(&self, name: &str, at: usize) -> Option<usize> {
        let cands = self.by_name.get(name)?;
        let mut best: Option<(usize, usize)> = None; // (scope length, index)
        for &i in cands {
            let v = &self.vars[i];
            let visible = v.scope.contains(&at)
                && (v.storage == Storage::FunctionParam || v.dc.name_span.start <= at);
            if !visible {
                continue;
            }
            let len = v.scope.end - v.scope.start;
            if best.is_none_or(|(l, _)| len < l) {
                best = Some((len, i));
            }
        }
        best.map(|(_, i)| i)
    }

    fn collect_uses(&mut self, f: &'a Function) {
        let mut found: Vec<(&'a str, usize, Role)> = Vec::new();
        for p in &f.params {
            super::syntax::walk_decl_root_exprs(p, &mut |e| scan_roots(e, &mut found));
        }
        f.body.walk_root_exprs(&mut |e| scan_roots(e, &mut found));
        for (name, at, role) in found {
            if let Some(i) = self.lookup(name, at) {
                self.uses.entry(i).or_default().push((at, role));
            }
        }
        let mut loops = Vec::new();
        collect_iterator_loops(&f.body, &mut loops);
        for (name, at, span) in loops {
            if let Some(i) = self.lookup(name, at) {
                self.iterator_loops.entry(i).or_default().push(span);
            }
        }
    }

    /// Whether the value that variable `var` has after the `for` loop at
    /// `span` (which assigns it in its initialisation) is never read: every
    /// use of `var` outside the loop is inside another loop that assigns
    /// it first and does not enclose this one.
    pub(crate) fn iterator_dead_after(&self, var: usize, span: &Range<usize>) -> bool {
        let loops = self.iterator_loops.get(&var).map_or(&[][..], Vec::as_slice);
        let inside = |r: &Range<usize>, at: usize| r.start <= at && at < r.end;
        self.uses.get(&var).is_none_or(|uses| {
            uses.iter().all(|(at, _)| {
                inside(span, *at)
                    || loops
                        .iter()
                        .any(|l| inside(l, *at) && !(l.start <= span.start && span.end <= l.end))
            })
        })
    }
}

/// The `for` loops of `stmt` whose initialisation assigns a variable:
/// (name, offset of the name, loop span).
fn collect_iterator_loops<'a>(stmt: &'a CStmt, out: &mut Vec<(&'a str, usize, Range<usize>)>) {
    match stmt {
        CStmt::For {
            init, body, span, ..
        } => {
            if let ForInit::Expr(Expr {
                kind: ExprKind::Assign(None, lhs, _),
                ..
            }) = init
                && let ExprKind::Ident(n) = &lhs.kind
            {
                out.push((n.as_str(), lhs.span.start, span.clone()));
            }
            collect_iterator_loops(body, out);
        }
        CStmt::If { then, els, .. } => {
            collect_iterator_loops(then, out);
            if let Some(e) = els {
                collect_iterator_loops(e, out);
            }
        }
        CStmt::Compound { items, .. } => {
            for it in items {
                collect_iterator_loops(it, out);
            }
        }
        CStmt::Other { children, .. } => {
            for c in children {
                collect_iterator_loops(c, out);
            }
        }
        CStmt::Expr { .. } | CStmt::Empty { .. } | CStmt::Decl { .. } | CStmt::Preproc { .. } => {}
    }
}

fn scan_roots<'a>(e: &'a Expr, out: &mut Vec<(&'a str, usize, Role)>) {
    scan(e, Role::Value, out);
}

fn scan<'a>(e: &'a Expr, role: Role, out: &mut Vec<(&'a str, usize, Role)>) {
    match &e.kind {
        ExprKind::Ident(n) => out.push((n.as_str(), e.span.start, role)),
        ExprKind::Subscript(..) => {
            let mut depth = 0;
            let mut cur = e;
            while let ExprKind::Subscript(base, idx) = &cur.kind {
                depth += 1;
                scan(idx, Role::Value, out);
                cur = base;
            }
            let r = if role == Role::AddrOf {
                Role::AddrOf
            } else {
                Role::Subscripted(depth)
            };
            scan(cur, r, out);
        }
        ExprKind::AddrOf(a) => scan(a, Role::AddrOf, out),
        ExprKind::Call(callee, args) => {
            if !matches!(callee.kind, ExprKind::Ident(_)) {
                scan(callee, Role::Value, out);
            }
            for a in args {
                scan(a, Role::Value, out);
            }
        }
        ExprKind::Int(_) | ExprKind::OtherLiteral => {}
        ExprKind::Unary(_, a)
        | ExprKind::Cast(_, a)
        | ExprKind::Update(_, a)
        | ExprKind::Deref(a)
        | ExprKind::Field(a) => scan(a, Role::Value, out),
        ExprKind::Binary(_, a, b) | ExprKind::Assign(_, a, b) | ExprKind::Comma(a, b) => {
            scan(a, Role::Value, out);
            scan(b, Role::Value, out);
        }
        ExprKind::Cond(a, b, c) => {
            scan(a, Role::Value, out);
            scan(b, Role::Value, out);
            scan(c, Role::Value, out);
        }
        ExprKind::Other(_, subs) => {
            for s in subs {
                scan(s, Role::Value, out);
            }
        }
    }
}
