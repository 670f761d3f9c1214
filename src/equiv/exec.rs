//! Statements of a symbolic run: declarations, assignments, `for`,
//! `while`, `if` on known conditions, `return`; and the function's
//! parameters and globals as the objects whose cells are compared.

use crate::frontend::syntax::{CStmt, Decl, Declarator, Expr, ExprKind, ForInit, Function};

use super::machine::{Machine, Object, R};
use super::term::{TermId, Ty};

/// How a statement ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flow {
    Normal,
    Break,
    Continue,
    Return,
}

impl<'a, 't> Machine<'a, 't> {
    /// Runs `function`: binds its parameters, runs its body.
    pub(crate) fn run_function(&mut self, function: &Function) -> R<()> {
        self.stmt = function.span.clone();
        for decl in &function.params {
            for d in &decl.declarators {
                self.bind_param(decl, d)?;
            }
        }
        self.exec(&function.body)?;
        Ok(())
    }

    fn bind_param(&mut self, decl: &Decl, d: &Declarator) -> R<()> {
        let Some(ty) = self.type_class(&decl.type_text) else {
            if decl.type_text == "void" && !d.is_pointer {
                return Ok(());
            }
            return self.unsupported(format!(
                "the parameter `{}` of type `{}`",
                d.name, decl.type_text
            ));
        };
        if d.dims.is_empty() && !d.is_pointer {
            // A value parameter: an integer needs a value (`-D`), a
            // floating one is a symbol.
            let o = self.add_object(Object {
                name: d.name.clone(),
                dims: Vec::new(),
                ty,
                external: false,
                local: false,
                cells: Default::default(),
            });
            self.bind(&d.name, o);
            if ty == Ty::Int {
                let Some(v) = self.setup.macros.object(&d.name).and_then(|m| m.value) else {
                    return self.unsupported(format!(
                        "the integer parameter `{}` has no value: pass -D {}=VALUE",
                        d.name, d.name
                    ));
                };
                let v = self.terms.int(v);
                self.store(o, &[], v)?;
            }
            return Ok(());
        }
        let mut dims = Vec::new();
        if d.is_pointer && !d.points_to_rows {
            if !d.dims.is_empty() {
                return self
                    .unsupported(format!("the parameter `{}` (an array of pointers)", d.name));
            }
            dims.push(None);
        }
        if d.points_to_rows {
            dims.push(None);
        }
        for (size, _) in &d.dims {
            dims.push(match size {
                Some(e) => self.extent(e)?,
                None => None,
            });
        }
        let external = !self.setup.temps.contains(&d.name);
        let o = self.add_object(Object {
            name: d.name.clone(),
            dims,
            ty,
            external,
            local: false,
            cells: Default::default(),
        });
        self.bind(&d.name, o);
        Ok(())
    }

    /// A call of a function of the file: arrays by reference (the
    /// argument names an array of the same rank), values by value; its
    /// return value (0 for `void`).
    pub(crate) fn call_function(&mut self, f: &Function, args: &[Expr]) -> R<TermId> {
        if self.depth >= 32 {
            return self.unsupported(format!("calls of `{}` nested 32 deep", f.name));
        }
        let params: Vec<(&Decl, &Declarator)> = f
            .params
            .iter()
            .flat_map(|d| d.declarators.iter().map(move |x| (d, x)))
            .collect();
        if params.len() != args.len() {
            return self.unsupported(format!(
                "the call of `{}` with {} arguments",
                f.name,
                args.len()
            ));
        }
        // Arguments, in the caller's scope: (name, object) of an array,
        // (name, type, value) of a value.
        let mut arrays = Vec::new();
        let mut values = Vec::new();
        for ((decl, d), a) in params.iter().zip(args) {
            let rank = d.dims.len() + usize::from(d.is_pointer || d.points_to_rows);
            if rank == 0 {
                let Some(ty) = self.type_class(&decl.type_text) else {
                    return self.unsupported(format!("the parameter `{}` of `{}`", d.name, f.name));
                };
                let v = self.eval(a)?;
                values.push((d.name.clone(), ty, self.convert(v, ty)?));
                continue;
            }
            let ExprKind::Ident(n) = &a.kind else {
                return self.unsupported(format!(
                    "an argument of `{}` that is not an array's name",
                    f.name
                ));
            };
            let o = match self.lookup(n) {
                Some(o) => o,
                None => match self.global(n)? {
                    Some(o) => o,
                    None => return self.unsupported(format!("the argument `{n}` (no variable)")),
                },
            };
            if self.objects[o].dims.len() != rank {
                return self.unsupported(format!(
                    "`{n}` passed to `{}` as an array of another rank",
                    f.name
                ));
            }
            arrays.push((d.name.clone(), o));
        }
        let scopes = std::mem::replace(&mut self.scopes, vec![Default::default()]);
        let loops = std::mem::take(&mut self.loops);
        let returned = self.returned.take();
        let stmt = self.stmt.clone();
        for (name, o) in arrays {
            self.bind(&name, o);
        }
        for (name, ty, v) in values {
            let o = self.add_object(Object {
                name: name.clone(),
                dims: Vec::new(),
                ty,
                external: false,
                local: false,
                cells: Default::default(),
            });
            self.bind(&name, o);
            self.store(o, &[], v)?;
        }
        self.depth += 1;
        let flow = self.exec(&f.body);
        self.depth -= 1;
        let value = std::mem::replace(&mut self.returned, returned);
        self.scopes = scopes;
        self.loops = loops;
        self.stmt = stmt;
        flow?;
        Ok(value.unwrap_or_else(|| self.terms.int(0)))
    }

    /// A known extent.
    fn extent(&mut self, e: &Expr) -> R<Option<i64>> {
        let v = self.eval(e)?;
        match self.terms.as_int(v) {
            Some(v) if v >= 0 => Ok(Some(v)),
            _ => self.unsupported("an extent that is not a known non-negative integer"),
        }
    }

    /// The object of the global `name`, made at its first use (its cells
    /// are the values before the function: symbols, or the value of a
    /// `const` integer's initialiser).
    pub(crate) fn global(&mut self, name: &str) -> R<Option<usize>> {
        if let Some(&o) = self.globals_bound.get(name) {
            return Ok(Some(o));
        }
        let globals = self.setup.globals;
        let Some((decl, d)) = globals.iter().find_map(|g| {
            g.declarators
                .iter()
                .find(|d| d.name == name && !d.is_function)
                .map(|d| (g, d))
        }) else {
            return Ok(None);
        };
        if decl.qualifiers.iter().any(|q| q == "typedef") {
            return Ok(None);
        }
        let Some(ty) = self.type_class(&decl.type_text) else {
            return self.unsupported(format!("the global `{name}` of type `{}`", decl.type_text));
        };
        if d.is_pointer {
            return self.unsupported(format!("the global pointer `{name}`"));
        }
        let mut dims = Vec::new();
        for (size, _) in &d.dims {
            dims.push(match size {
                Some(e) => self.extent(e)?,
                None => None,
            });
        }
        let constant = decl.qualifiers.iter().any(|q| q == "const") && dims.is_empty();
        let o = self.add_object(Object {
            name: name.to_string(),
            dims,
            ty,
            external: !constant && !self.setup.temps.contains(name),
            local: false,
            cells: Default::default(),
        });
        self.globals_bound.insert(name.to_string(), o);
        if constant && let Some(init) = &d.init {
            let v = self.eval(init)?;
            if self.terms.as_int(v).is_some() || self.terms.as_float(v).is_some() {
                self.store(o, &[], v)?;
            }
        }
        Ok(Some(o))
    }

    pub(crate) fn exec(&mut self, s: &CStmt) -> R<Flow> {
        self.step()?;
        match s {
            CStmt::Compound { items, .. } => {
                self.scopes.push(Default::default());
                let mut flow = Flow::Normal;
                for item in items {
                    flow = self.exec(item)?;
                    if flow != Flow::Normal {
                        break;
                    }
                }
                self.scopes.pop();
                Ok(flow)
            }
            CStmt::Expr { expr, span } => {
                self.stmt = span.clone();
                self.eval_effect(expr)?;
                Ok(Flow::Normal)
            }
            CStmt::Decl { decl, span } => {
                self.stmt = span.clone();
                self.declare(decl)?;
                Ok(Flow::Normal)
            }
            CStmt::Empty { .. } | CStmt::Preproc { .. } => Ok(Flow::Normal),
            CStmt::If {
                cond,
                then,
                els,
                span,
                ..
            } => {
                self.stmt = span.start..cond.span.end + 1;
                match self.condition(cond, "an `if` whose condition depends on values")? {
                    true => self.exec(then),
                    false => match els {
                        Some(e) => self.exec(e),
                        None => Ok(Flow::Normal),
                    },
                }
            }
            CStmt::For {
                init,
                cond,
                update,
                body,
                header_span,
                ..
            } => self.exec_for(init, cond.as_ref(), update.as_ref(), body, header_span),
            CStmt::Other {
                kind,
                exprs,
                children,
                span,
                ..
            } => {
                self.stmt = span.clone();
                self.exec_other(kind, exprs, children)
            }
        }
    }

    fn exec_other(&mut self, kind: &str, exprs: &[Expr], children: &[CStmt]) -> R<Flow> {
        match (kind, exprs, children) {
            ("return_statement", [], []) => Ok(Flow::Return),
            ("return_statement", [e], []) => {
                let v = self.eval(e)?;
                self.returned = Some(v);
                Ok(Flow::Return)
            }
            // No `goto` is run (see below), so a label is only a name.
            ("labeled_statement", _, [body]) => self.exec(body),
            ("break_statement", [], []) => Ok(Flow::Break),
            ("continue_statement", [], []) => Ok(Flow::Continue),
            ("while_statement", [cond], [body]) => {
                let span = self.stmt.clone();
                loop {
                    self.stmt = span.clone();
                    if !self.condition(cond, "a `while` whose condition depends on values")? {
                        return Ok(Flow::Normal);
                    }
                    match self.exec(body)? {
                        Flow::Break => return Ok(Flow::Normal),
                        Flow::Return => return Ok(Flow::Return),
                        _ => {}
                    }
                }
            }
            _ => self.unsupported(format!(
                "a statement of kind `{}`",
                kind.trim_end_matches("_statement")
            )),
        }
    }

    fn exec_for(
        &mut self,
        init: &ForInit,
        cond: Option<&Expr>,
        update: Option<&Expr>,
        body: &CStmt,
        header: &std::ops::Range<usize>,
    ) -> R<Flow> {
        self.scopes.push(Default::default());
        self.stmt = header.clone();
        let counters = match init {
            ForInit::None => Vec::new(),
            ForInit::Expr(e) => {
                self.eval_effect(e)?;
                assigned_names(e)
            }
            ForInit::Decl(d) => {
                self.declare(d)?;
                d.declarators.iter().map(|d| d.name.clone()).collect()
            }
        };
        let depth = self.loops.len();
        self.loops.extend(counters);
        let mut flow = Flow::Normal;
        loop {
            self.stmt = header.clone();
            if let Some(c) = cond
                && !self.condition(c, "a loop whose condition depends on values")?
            {
                break;
            }
            match self.exec(body)? {
                Flow::Break => break,
                Flow::Return => {
                    flow = Flow::Return;
                    break;
                }
                Flow::Normal | Flow::Continue => {}
            }
            self.stmt = header.clone();
            if let Some(u) = update {
                self.eval_effect(u)?;
            }
        }
        self.loops.truncate(depth);
        self.scopes.pop();
        Ok(flow)
    }

    /// A condition that must be known.
    fn condition(&mut self, cond: &Expr, what: &str) -> R<bool> {
        let v = self.eval(cond)?;
        match self.truth(v) {
            Some(t) => Ok(t),
            None => self.unsupported(format!("{what} (`{}`)", self.terms.render(v, 60))),
        }
    }

    fn declare(&mut self, decl: &Decl) -> R<()> {
        if decl.qualifiers.iter().any(|q| q == "typedef") {
            return Ok(());
        }
        if decl.qualifiers.iter().any(|q| q == "extern") {
            // The name is the global's: found as one at its first use.
            return Ok(());
        }
        // A `static` local outlives the call: compared like a global, its
        // value before the call a symbol (the initialiser gives it for the
        // first call only).
        let is_static = decl.qualifiers.iter().any(|q| q == "static");
        for d in &decl.declarators {
            if d.is_function {
                continue;
            }
            let Some(ty) = self.type_class(&decl.type_text) else {
                return self.unsupported(format!(
                    "the variable `{}` of type `{}`",
                    d.name, decl.type_text
                ));
            };
            if d.is_pointer || d.points_to_rows {
                return self.unsupported(format!("the local pointer `{}`", d.name));
            }
            let mut dims = Vec::new();
            for (size, _) in &d.dims {
                match size {
                    Some(e) => dims.push(self.extent(e)?),
                    None => {
                        return self
                            .unsupported(format!("the array `{}` without an extent", d.name));
                    }
                }
            }
            let o = self.add_object(Object {
                name: d.name.clone(),
                dims,
                ty,
                external: is_static && !self.setup.temps.contains(&d.name),
                local: !is_static,
                cells: Default::default(),
            });
            if let Some(init) = d.init.as_ref().filter(|_| !is_static) {
                self.initialise(o, init)?;
            }
            self.bind(&d.name, o);
        }
        Ok(())
    }

    /// A scalar's initialiser, or an array's `{a, b, ...}` (the cells
    /// after the list are zero, as in C).
    fn initialise(&mut self, o: usize, init: &Expr) -> R<()> {
        if self.objects[o].dims.is_empty() {
            let v = self.eval(init)?;
            self.store(o, &[], v)?;
            return Ok(());
        }
        let ExprKind::Other(kind, items) = &init.kind else {
            return self.unsupported("an array initialiser that is not a list");
        };
        if kind != "initializer_list" {
            return self.unsupported("an array initialiser that is not a list");
        }
        let dims: Vec<i64> = self.objects[o]
            .dims
            .iter()
            .map(|d| d.unwrap_or(0))
            .collect();
        let total: i64 = dims.iter().product();
        if total > 1 << 24 {
            return self.unsupported("an initialised array of more than 2^24 cells");
        }
        let mut values = Vec::new();
        for item in items {
            values.push(self.eval(item)?);
        }
        if values.len() as i64 > total {
            return self.unsupported("an initialiser longer than its array");
        }
        let zero = self.terms.int(0);
        for flat in 0..total {
            let mut cell = vec![0i64; dims.len()];
            let mut rest = flat;
            for (k, d) in dims.iter().enumerate().rev() {
                cell[k] = rest % d;
                rest /= d;
            }
            let v = values.get(flat as usize).copied().unwrap_or(zero);
            self.store(o, &cell, v)?;
        }
        Ok(())
    }
}

/// The names a `for` initialiser assigns (`i = 0, j = 1`).
fn assigned_names(e: &Expr) -> Vec<String> {
    match &e.kind {
        ExprKind::Assign(_, lhs, _) => match &lhs.kind {
            ExprKind::Ident(n) => vec![n.clone()],
            _ => Vec::new(),
        },
        ExprKind::Comma(a, b) => {
            let mut v = assigned_names(a);
            v.extend(assigned_names(b));
            v
        }
        _ => Vec::new(),
    }
}
