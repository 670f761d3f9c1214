//! Expressions of a symbolic run: integer arithmetic on known integers is
//! computed as C computes it (checked, truncating division); everything
//! else builds a term. Macros are expanded here, from the file's table.

use crate::frontend::syntax::{BinOp, Expr, ExprKind, UnOp};

use super::machine::{Machine, R};
use super::term::{TermId, Ty};

/// Functions of the C library that read and write no memory: a call is an
/// uninterpreted operator on its arguments, converted to the type of its
/// parameters, which is the type of its result.
const PURE_CALLS: &[(&str, Ty)] = &[
    ("sqrt", Ty::Float),
    ("fabs", Ty::Float),
    ("exp", Ty::Float),
    ("log", Ty::Float),
    ("pow", Ty::Float),
    ("sin", Ty::Float),
    ("cos", Ty::Float),
    ("tan", Ty::Float),
    ("tanh", Ty::Float),
    ("atan", Ty::Float),
    ("atan2", Ty::Float),
    ("floor", Ty::Float),
    ("ceil", Ty::Float),
    ("fmin", Ty::Float),
    ("fmax", Ty::Float),
    ("sqrtf", Ty::Single),
    ("fabsf", Ty::Single),
    ("expf", Ty::Single),
    ("logf", Ty::Single),
    ("powf", Ty::Single),
    ("fminf", Ty::Single),
    ("fmaxf", Ty::Single),
    ("abs", Ty::Int),
    ("labs", Ty::Int),
    ("llabs", Ty::Int),
];

/// Functions that print: what they print is compared.
const OUTPUT_CALLS: &[&str] = &["printf", "fprintf", "puts", "fputs", "putchar"];

/// An lvalue: an object and a cell.
pub(crate) struct Place {
    pub object: usize,
    pub cell: Vec<i64>,
}

impl<'a, 't> Machine<'a, 't> {
    /// The value of `e`.
    pub(crate) fn eval(&mut self, e: &Expr) -> R<TermId> {
        self.eval_with(e, false)
    }

    /// Evaluates `e` for its effects (a statement, a `for` update): `x++`
    /// is allowed here only, where prefix and postfix agree.
    pub(crate) fn eval_effect(&mut self, e: &Expr) -> R<()> {
        self.eval_with(e, true).map(|_| ())
    }

    fn eval_with(&mut self, e: &Expr, discard: bool) -> R<TermId> {
        self.step()?;
        match &e.kind {
            ExprKind::Int(v) => Ok(self.terms.int(*v)),
            ExprKind::OtherLiteral => {
                let text = self
                    .setup
                    .source
                    .get(e.span.clone())
                    .unwrap_or("")
                    .to_string();
                self.literal(&text)
            }
            ExprKind::Other(kind, _) if kind.starts_with("#lit ") => {
                let text = kind["#lit ".len()..].to_string();
                self.literal(&text)
            }
            ExprKind::Ident(name) => self.ident(name),
            ExprKind::Subscript(..) | ExprKind::Deref(_) => {
                let place = self.place(e)?;
                self.load(place.object, &place.cell)
            }
            ExprKind::Unary(op, a) => {
                let a = self.eval(a)?;
                self.unary(*op, a)
            }
            ExprKind::Binary(BinOp::And | BinOp::Or, a, b) => self.logical(e, a, b),
            ExprKind::Binary(op, a, b) => {
                let a = self.eval(a)?;
                let b = self.eval(b)?;
                self.binary(*op, a, b)
            }
            ExprKind::Cond(c, a, b) => {
                let c = self.eval(c)?;
                match self.truth(c) {
                    Some(true) => self.eval(a),
                    Some(false) => self.eval(b),
                    None => {
                        let a = self.eval(a)?;
                        let b = self.eval(b)?;
                        let ty = self.join(a, b);
                        let (a, b) = (self.convert(a, ty)?, self.convert(b, ty)?);
                        Ok(self.terms.op("?:", &[c, a, b], ty))
                    }
                }
            }
            ExprKind::Cast(ty, a) => {
                let a = self.eval(a)?;
                let Some(ty) = self.type_class(ty) else {
                    return self.unsupported(format!("a cast to the unknown type `{ty}`"));
                };
                self.convert(a, ty)
            }
            ExprKind::Assign(op, lhs, rhs) => {
                let place = self.place(lhs)?;
                let mut value = self.eval(rhs)?;
                if let Some(op) = op {
                    let old = self.load(place.object, &place.cell)?;
                    value = self.binary(*op, old, value)?;
                }
                self.store(place.object, &place.cell, value)
            }
            ExprKind::Update(inc, target) if discard => {
                let place = self.place(target)?;
                let old = self.load(place.object, &place.cell)?;
                let one = self.terms.int(1);
                let op = if *inc { BinOp::Add } else { BinOp::Sub };
                let value = self.binary(op, old, one)?;
                self.store(place.object, &place.cell, value)
            }
            ExprKind::Comma(a, b) => {
                self.eval_with(a, true)?;
                self.eval_with(b, discard)
            }
            ExprKind::Call(callee, args) => self.call(callee, args),
            ExprKind::Update(..) => {
                self.unsupported("`++` or `--` inside an expression (only as a statement)")
            }
            _ => self.unsupported(format!(
                "the expression `{}`",
                short(self.setup.source.get(e.span.clone()).unwrap_or("?"))
            )),
        }
    }

    /// The term of a literal's text (parentheses around it allowed).
    fn literal(&mut self, text: &str) -> R<TermId> {
        let t = text
            .trim()
            .trim_start_matches('(')
            .trim_end_matches(')')
            .trim();
        if t.starts_with('\'') || t.starts_with('"') {
            return Ok(self.terms.lit(t, Ty::Int));
        }
        let lower = t.to_ascii_lowercase();
        let float_like = lower.contains('.') || (lower.contains('e') && !lower.starts_with("0x"));
        if float_like && !lower.ends_with('l') && !lower.starts_with("0x") {
            if let Some(body) = t.strip_suffix(['f', 'F'])
                && let Ok(v) = body.parse::<f32>()
            {
                return Ok(self.terms.single(v));
            }
            if let Ok(v) = t.parse::<f64>() {
                return Ok(self.terms.float(v));
            }
        }
        if float_like {
            return self.unsupported(format!("the literal `{t}` (long double or hexadecimal)"));
        }
        let ty = Ty::Int;
        Ok(self.terms.lit(t, ty))
    }

    fn ident(&mut self, name: &str) -> R<TermId> {
        if let Some(o) = self.lookup(name) {
            return self.load_scalar(o, name);
        }
        if self.setup.macros.object(name).is_some() {
            return self.object_macro(name);
        }
        if let Some(o) = self.global(name)? {
            return self.load_scalar(o, name);
        }
        self.unsupported(format!(
            "the name `{name}` (no variable or macro of that name)"
        ))
    }

    fn load_scalar(&mut self, o: usize, name: &str) -> R<TermId> {
        if !self.objects[o].dims.is_empty() {
            return self.unsupported(format!("the array `{name}` used as a value"));
        }
        self.load(o, &[])
    }

    /// The value of an object-like macro: its integer value, or its body
    /// evaluated.
    fn object_macro(&mut self, name: &str) -> R<TermId> {
        let Some(m) = self.setup.macros.object(name) else {
            return self.unsupported(format!("the macro `{name}`"));
        };
        if let Some(v) = m.value {
            return Ok(self.terms.int(v));
        }
        let body = m.body.clone();
        let Some((_, e)) = self.macro_body(name, &body, &[]) else {
            return self.unsupported(format!(
                "the macro `{name}` (its body is not an expression)"
            ));
        };
        self.expand(name, &e)
    }

    fn expand(&mut self, name: &str, e: &Expr) -> R<TermId> {
        if self.expanding.iter().any(|n| n == name) || self.expanding.len() > 32 {
            return self.unsupported(format!("the recursive macro `{name}`"));
        }
        self.expanding.push(name.to_string());
        let v = self.eval(e);
        self.expanding.pop();
        v
    }

    /// The body of a macro parsed as an expression, its literals resolved
    /// (cached per name).
    fn macro_body(
        &mut self,
        name: &str,
        body: &str,
        params: &[String],
    ) -> Option<(Vec<String>, Expr)> {
        if let Some(cached) = self.macro_cache.get(name) {
            return cached.clone();
        }
        let wrapper = format!("int __polyfold_macro_body = (\n{body}\n);\n");
        let parsed = crate::frontend::syntax::parse_expression_text_with(body, params)
            .map(|e| (params.to_vec(), resolve_literals(&e, &wrapper)));
        self.macro_cache.insert(name.to_string(), parsed.clone());
        parsed
    }

    fn call(&mut self, callee: &Expr, args: &[Expr]) -> R<TermId> {
        let ExprKind::Ident(name) = &callee.kind else {
            return self.unsupported("a call through an expression");
        };
        if self.lookup(name).is_none()
            && let Some(m) = self.setup.macros.function(name)
        {
            let (params, body) = (m.params.clone(), m.body.clone());
            if params.len() != args.len() {
                return self
                    .unsupported(format!("the macro `{name}` with {} arguments", args.len()));
            }
            let Some((params, e)) = self.macro_body(name, &body, &params) else {
                return self.unsupported(format!(
                    "the macro `{name}` (its body is not an expression)"
                ));
            };
            let source = self.setup.source;
            let args: Vec<Expr> = args.iter().map(|a| resolve_literals(a, source)).collect();
            let e = substitute(&e, &params, &args);
            return self.expand(name, &e);
        }
        if matches!(name.as_str(), "_Static_assert" | "static_assert")
            && self.lookup(name).is_none()
        {
            return self.static_assert(args);
        }
        if OUTPUT_CALLS.contains(&name.as_str()) && self.lookup(name).is_none() {
            return self.output(name, args);
        }
        let functions = self.setup.functions;
        if self.lookup(name).is_none()
            && let Some(f) = functions.iter().rev().find(|f| f.name == *name)
        {
            return self.call_function(f, args);
        }
        let Some(&(_, ty)) = PURE_CALLS.iter().find(|(n, _)| n == name) else {
            return self.unsupported(format!(
                "the call `{name}()` (equiv runs the functions of the file, `printf` and its kin, and the functions of the C library that touch no memory)"
            ));
        };
        let mut values = Vec::with_capacity(args.len());
        for a in args {
            let v = self.eval(a)?;
            values.push(self.convert(v, ty)?);
        }
        Ok(self.terms.op(name, &values, ty))
    }

    /// The object and cell `e` designates.
    pub(crate) fn place(&mut self, e: &Expr) -> R<Place> {
        if let ExprKind::Deref(p) = &e.kind {
            return self.address(p);
        }
        let mut indices = Vec::new();
        let mut base = e;
        while let ExprKind::Subscript(b, i) = &base.kind {
            let v = self.eval(i)?;
            let Some(v) = self.terms.as_int(v) else {
                return self.unsupported(format!(
                    "a subscript that depends on values (`{}`)",
                    self.terms.render(v, 60)
                ));
            };
            indices.push(v);
            base = b;
        }
        indices.reverse();
        let ExprKind::Ident(name) = &base.kind else {
            return self.unsupported("an access through a pointer expression");
        };
        let object = match self.lookup(name) {
            Some(o) => o,
            None => match self.global(name)? {
                Some(o) => o,
                None => return self.unsupported(format!("the name `{name}` (no variable)")),
            },
        };
        Ok(Place {
            object,
            cell: indices,
        })
    }

    /// The cell a pointer expression points to: `&x`, or a choice of
    /// such with a known condition (what merged buffers print:
    /// `*((c) ? &b[..] : &b[..])`).
    fn address(&mut self, e: &Expr) -> R<Place> {
        match &e.kind {
            ExprKind::AddrOf(x) => self.place(x),
            ExprKind::Cond(c, a, b) => {
                let c = self.eval(c)?;
                match self.truth(c) {
                    Some(true) => self.address(a),
                    Some(false) => self.address(b),
                    None => self.unsupported("a pointer chosen by values"),
                }
            }
            _ => self.unsupported("an access through a pointer expression"),
        }
    }

    /// A call that prints: its term (the function, then its arguments)
    /// is appended to the run's output, which is compared like a
    /// live-out value. A stream (`stdout`) is its name.
    fn output(&mut self, name: &str, args: &[Expr]) -> R<TermId> {
        let mut values = Vec::with_capacity(args.len());
        for a in args {
            let v = match &a.kind {
                ExprKind::Ident(n)
                    if self.lookup(n).is_none() && matches!(n.as_str(), "stdout" | "stderr") =>
                {
                    self.terms.lit(n, Ty::Int)
                }
                _ => self.eval(a)?,
            };
            values.push(v);
        }
        let t = self.terms.op(name, &values, Ty::Int);
        self.outputs.push(t);
        Ok(self.terms.int(0))
    }

    /// `_Static_assert(c, "...")` in a function: `c` must hold for the
    /// sizes (C would not compile the file otherwise).
    fn static_assert(&mut self, args: &[Expr]) -> R<TermId> {
        let Some(c) = args.first() else {
            return self.unsupported("`_Static_assert` without a condition");
        };
        let v = self.eval(c)?;
        match self.truth(v) {
            Some(true) => Ok(self.terms.int(1)),
            Some(false) => self.unsupported(
                "a `_Static_assert` that fails at these sizes (C does not compile it)",
            ),
            None => self.unsupported("a `_Static_assert` on values"),
        }
    }

    fn unary(&mut self, op: UnOp, a: TermId) -> R<TermId> {
        if let Some(v) = self.terms.as_int(a) {
            let r = match op {
                UnOp::Neg => v.checked_neg(),
                UnOp::Plus => Some(v),
                UnOp::Not => Some(i64::from(v == 0)),
                UnOp::BitNot => Some(!v),
            };
            return match r {
                Some(r) => Ok(self.terms.int(r)),
                None => self.unsupported("an integer overflow"),
            };
        }
        if let Some(v) = self.terms.as_float(a) {
            match op {
                UnOp::Neg => return Ok(self.terms.float(-v)),
                UnOp::Plus => return Ok(a),
                _ => {}
            }
        }
        let (name, ty) = match op {
            UnOp::Neg => ("neg", self.terms.ty(a)),
            UnOp::Plus => return Ok(a),
            UnOp::Not => ("!", Ty::Int),
            UnOp::BitNot => ("~", Ty::Int),
        };
        Ok(self.terms.op(name, &[a], ty))
    }

    /// `a && b`, `a || b`: short-circuit on a known left operand.
    fn logical(&mut self, e: &Expr, a: &Expr, b: &Expr) -> R<TermId> {
        let and = matches!(e.kind, ExprKind::Binary(BinOp::And, ..));
        let l = self.eval(a)?;
        match self.truth(l) {
            Some(t) if t != and => Ok(self.terms.int(i64::from(t))),
            Some(_) => {
                let r = self.eval(b)?;
                match self.truth(r) {
                    Some(t) => Ok(self.terms.int(i64::from(t))),
                    None => Ok(self.terms.op("!!", &[r], Ty::Int)),
                }
            }
            None => {
                let r = self.eval(b)?;
                Ok(self
                    .terms
                    .op(if and { "&&" } else { "||" }, &[l, r], Ty::Int))
            }
        }
    }

    /// Whether a known value is true (`None`: a symbolic value).
    pub(crate) fn truth(&self, v: TermId) -> Option<bool> {
        if let Some(i) = self.terms.as_int(v) {
            return Some(i != 0);
        }
        None
    }

    /// The type of `a op b` after the usual arithmetic conversions.
    fn join(&self, a: TermId, b: TermId) -> Ty {
        match (self.terms.ty(a), self.terms.ty(b)) {
            (Ty::Float, _) | (_, Ty::Float) => Ty::Float,
            (Ty::Single, _) | (_, Ty::Single) => Ty::Single,
            _ => Ty::Int,
        }
    }

    pub(crate) fn binary(&mut self, op: BinOp, a: TermId, b: TermId) -> R<TermId> {
        if let (Some(x), Some(y)) = (self.terms.as_int(a), self.terms.as_int(b)) {
            return match int_binary(op, x, y) {
                Some(v) => Ok(self.terms.int(v)),
                None => self.unsupported(format!(
                    "integer arithmetic with no C value ({x} {} {y}: overflow, division by zero or a bad shift)",
                    op_text(op)
                )),
            };
        }
        let ty = self.join(a, b);
        let comparison = matches!(
            op,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
        );
        let (a, b) = if matches!(op, BinOp::Shl | BinOp::Shr) {
            (a, b)
        } else {
            (self.convert(a, ty)?, self.convert(b, ty)?)
        };
        let rty = if comparison { Ty::Int } else { ty };
        Ok(self.terms.op(op_text(op), &[a, b], rty))
    }

    /// The class of a type's text (`double`, `const int`, a macro that
    /// names a type).
    pub(crate) fn type_class(&self, text: &str) -> Option<Ty> {
        let mut ty = None;
        for word in text.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
            match word {
                "" | "const" | "volatile" | "restrict" | "__restrict" | "__restrict__"
                | "static" | "register" | "auto" | "extern" => {}
                "double" if text.split_whitespace().any(|w| w == "long") => return None,
                "double" => return Some(Ty::Float),
                "float" => return Some(Ty::Single),
                "int" | "long" | "short" | "char" | "signed" | "unsigned" | "size_t"
                | "ptrdiff_t" | "_Bool" | "bool" | "intptr_t" | "uintptr_t" => ty = Some(Ty::Int),
                w if (w.starts_with("int") || w.starts_with("uint")) && w.ends_with("_t") => {
                    ty = Some(Ty::Int);
                }
                w => {
                    let body = self.setup.macros.object(w)?.body.clone();
                    if body.trim() == w {
                        return None;
                    }
                    return self.type_class(&body);
                }
            }
        }
        ty
    }
}

fn int_binary(op: BinOp, x: i64, y: i64) -> Option<i64> {
    Some(match op {
        BinOp::Add => x.checked_add(y)?,
        BinOp::Sub => x.checked_sub(y)?,
        BinOp::Mul => x.checked_mul(y)?,
        // Rust's `/` and `%` truncate like C's.
        BinOp::Div => x.checked_div(y)?,
        BinOp::Mod => x.checked_rem(y)?,
        BinOp::Lt => i64::from(x < y),
        BinOp::Le => i64::from(x <= y),
        BinOp::Gt => i64::from(x > y),
        BinOp::Ge => i64::from(x >= y),
        BinOp::Eq => i64::from(x == y),
        BinOp::Ne => i64::from(x != y),
        BinOp::And => i64::from(x != 0 && y != 0),
        BinOp::Or => i64::from(x != 0 || y != 0),
        BinOp::BitAnd => x & y,
        BinOp::BitOr => x | y,
        BinOp::BitXor => x ^ y,
        BinOp::Shl if (0..63).contains(&y) && x >= 0 => {
            x.checked_shl(y as u32).filter(|r| r >> y == x)?
        }
        BinOp::Shr if (0..63).contains(&y) => x >> y,
        BinOp::Shl | BinOp::Shr => return None,
    })
}

pub(crate) fn op_text(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::Mod => "%",
        BinOp::Lt => "<",
        BinOp::Le => "<=",
        BinOp::Gt => ">",
        BinOp::Ge => ">=",
        BinOp::Eq => "==",
        BinOp::Ne => "!=",
        BinOp::And => "&&",
        BinOp::Or => "||",
        BinOp::BitAnd => "&",
        BinOp::BitOr => "|",
        BinOp::BitXor => "^",
        BinOp::Shl => "<<",
        BinOp::Shr => ">>",
    }
}

/// The first line of a text, at most 60 characters.
pub(crate) fn short(text: &str) -> String {
    let line = text.lines().next().unwrap_or("").trim();
    if line.chars().count() > 60 {
        format!("{}…", line.chars().take(60).collect::<String>())
    } else {
        line.to_string()
    }
}

/// `e` with every literal replaced by its text (read from `text`, which
/// its spans index), so that it can be moved into another expression.
fn resolve_literals(e: &Expr, text: &str) -> Expr {
    let mut out = e.clone();
    resolve_in(&mut out, text);
    out
}

fn resolve_in(e: &mut Expr, text: &str) {
    if matches!(e.kind, ExprKind::OtherLiteral) {
        let t = text.get(e.span.clone()).unwrap_or("?").to_string();
        e.kind = ExprKind::Other(format!("#lit {t}"), Vec::new());
        return;
    }
    e.children_mut(|c| resolve_in(c, text));
}

/// `body` with each parameter name replaced by its argument.
fn substitute(body: &Expr, params: &[String], args: &[Expr]) -> Expr {
    let mut out = body.clone();
    subst_in(&mut out, params, args);
    out
}

fn subst_in(e: &mut Expr, params: &[String], args: &[Expr]) {
    if let ExprKind::Ident(n) = &e.kind
        && let Some(k) = params.iter().position(|p| p == n)
    {
        *e = args[k].clone();
        return;
    }
    e.children_mut(|c| subst_in(c, params, args));
}
