//! The macro table: `#define`s of the file plus `-D` values.
//!
//! Object-like macros whose body is an integer constant expression (possibly
//! using other macros) become parameters with a known value; the value never
//! replaces the name in a set. Other object-like macros and function-like
//! macros keep their parsed bodies so that the affine conversion can expand
//! them. This module does not resolve variables and does not decide what is
//! affine.

use std::collections::HashMap;

use super::syntax::{
    BinOp, Define, Expr, ExprKind, UnOp, parse_expression_text, parse_expression_text_with,
};
use crate::ir::{FunctionMacro, MacroTable, ObjectMacro, ParamOrigin};

/// The macro table plus parsed bodies.
#[derive(Clone, Debug, Default)]
pub struct Macros {
    pub table: MacroTable,
    /// Parsed body of each object-like macro (`None` if it is not an
    /// expression).
    object_bodies: HashMap<String, Option<Expr>>,
    /// Parameters and parsed body of each function-like macro.
    function_bodies: HashMap<String, (Vec<String>, Option<Expr>)>,
    /// The value of every object-like macro (final definitions).
    values: HashMap<String, Option<i64>>,
}

/// The longest chain of macros whose value is computed (`A` uses `B` uses
/// `C` ...); longer chains (and cycles) have no value.
const MAX_EVAL_DEPTH: usize = 64;

impl Macros {
    /// Builds the table from the file's `#define`s and the command line's
    /// `-D NAME=VALUE` pairs (which override a `#define` of the same name).
    pub fn build(defines: &[Define], command_line: &[(String, i64)]) -> Macros {
        let mut m = Macros::default();
        for d in defines {
            match &d.params {
                None => {
                    m.object_bodies
                        .insert(d.name.clone(), parse_expression_text(&d.body));
                    m.table.objects.push(ObjectMacro {
                        name: d.name.clone(),
                        body: d.body.clone(),
                        value: None,
                        origin: ParamOrigin::Define,
                        span: Some(d.span.clone()),
                    });
                }
                Some(params) => {
                    m.function_bodies.insert(
                        d.name.clone(),
                        (params.clone(), parse_expression_text_with(&d.body, params)),
                    );
                    m.table.functions.push(FunctionMacro {
                        name: d.name.clone(),
                        params: params.clone(),
                        body: d.body.clone(),
                        span: d.span.clone(),
                    });
                }
            }
        }
        for (name, value) in command_line {
            m.object_bodies.insert(
                name.clone(),
                Some(Expr {
                    kind: ExprKind::Int(*value),
                    span: 0..0,
                    from_macro: true,
                }),
            );
            m.table.objects.push(ObjectMacro {
                name: name.clone(),
                body: value.to_string(),
                value: Some(*value),
                origin: ParamOrigin::CommandLine,
                span: None,
            });
        }
        // Values: evaluate every object-like macro with the final bodies,
        // each once (memoised, so that chains of macros stay linear).
        let mut memo: HashMap<String, Option<i64>> = HashMap::new();
        let mut visiting: Vec<String> = Vec::new();
        let names: Vec<String> = m.table.objects.iter().map(|o| o.name.clone()).collect();
        for name in &names {
            m.value_of(name, &mut memo, &mut visiting);
        }
        for o in m.table.objects.iter_mut() {
            o.value = memo.get(&o.name).copied().flatten();
        }
        m.values = memo;
        m
    }

    /// Whether `name` is an object-like macro whose body is an integer
    /// constant expression (a parameter).
    pub fn is_integer_constant(&self, name: &str) -> bool {
        self.table.object(name).is_some_and(|o| o.value.is_some())
    }

    pub fn object(&self, name: &str) -> Option<&ObjectMacro> {
        self.table.object(name)
    }

    /// The parsed body of an object-like macro.
    pub fn object_body(&self, name: &str) -> Option<&Expr> {
        self.object_bodies.get(name).and_then(Option::as_ref)
    }

    /// Expands a call of a function-like macro: the body with every
    /// parameter replaced by the argument. Body nodes take the span of the
    /// call and are marked `from_macro`; arguments keep their own spans.
    pub fn expand_call(&self, name: &str, call: &Expr, args: &[Expr]) -> Option<Expr> {
        let (params, body) = self.function_bodies.get(name)?;
        let body = body.as_ref()?;
        if params.len() != args.len() {
            return None;
        }
        Some(substitute(body, params, args, &call.span))
    }

    /// Expands an object-like macro that is not an integer constant.
    pub fn expand_object(&self, name: &str, at: &Expr) -> Option<Expr> {
        let body = self.object_body(name)?;
        Some(substitute(body, &[], &[], &at.span))
    }

    /// Evaluates an integer constant expression (macros allowed), e.g. the
    /// initialiser of a `const int` global.
    pub fn eval_expr(&self, e: &Expr) -> Option<i64> {
        eval_with(e, &mut |n| self.values.get(n).copied().flatten())
    }

    fn value_of(
        &self,
        name: &str,
        memo: &mut HashMap<String, Option<i64>>,
        visiting: &mut Vec<String>,
    ) -> Option<i64> {
        if let Some(v) = memo.get(name) {
            return *v;
        }
        if visiting.len() >= MAX_EVAL_DEPTH || visiting.iter().any(|v| v == name) {
            return None;
        }
        let body = self.object_body(name)?;
        visiting.push(name.to_string());
        let v = eval_with(body, &mut |n| self.value_of(n, memo, visiting));
        visiting.pop();
        memo.insert(name.to_string(), v);
        v
    }
}

/// Evaluates an integer constant expression with C semantics (checked;
/// division truncates toward zero; division by zero has no value), asking
/// `names` for the value of identifiers.
fn eval_with(e: &Expr, names: &mut dyn FnMut(&str) -> Option<i64>) -> Option<i64> {
    match &e.kind {
        ExprKind::Int(v) => Some(*v),
        ExprKind::Ident(n) => names(n),
        ExprKind::Unary(UnOp::Neg, a) => eval_with(a, names)?.checked_neg(),
        ExprKind::Unary(UnOp::Plus, a) => eval_with(a, names),
        ExprKind::Cast(ty, a) if super::affine::is_signed_integer_type_text(ty) => {
            eval_with(a, names)
        }
        ExprKind::Binary(op, a, b) => {
            let x = eval_with(a, names)?;
            let y = eval_with(b, names)?;
            match op {
                BinOp::Add => x.checked_add(y),
                BinOp::Sub => x.checked_sub(y),
                BinOp::Mul => x.checked_mul(y),
                BinOp::Div => x.checked_div(y),
                BinOp::Mod => x.checked_rem(y),
                BinOp::Shl if (0..63).contains(&y) => x.checked_mul(1i64 << y),
                _ => None,
            }
        }
        _ => None,
    }
}

fn substitute(
    body: &Expr,
    params: &[String],
    args: &[Expr],
    span: &std::ops::Range<usize>,
) -> Expr {
    if let ExprKind::Ident(n) = &body.kind
        && let Some(k) = params.iter().position(|p| p == n)
    {
        return args[k].clone();
    }
    let sub = |e: &Expr| Box::new(substitute(e, params, args, span));
    let kind = match &body.kind {
        ExprKind::Ident(_) | ExprKind::Int(_) | ExprKind::OtherLiteral => body.kind.clone(),
        ExprKind::Unary(op, a) => ExprKind::Unary(*op, sub(a)),
        ExprKind::Binary(op, a, b) => ExprKind::Binary(*op, sub(a), sub(b)),
        ExprKind::Cond(a, b, c) => ExprKind::Cond(sub(a), sub(b), sub(c)),
        ExprKind::Subscript(a, b) => ExprKind::Subscript(sub(a), sub(b)),
        ExprKind::Call(a, xs) => ExprKind::Call(
            sub(a),
            xs.iter()
                .map(|x| substitute(x, params, args, span))
                .collect(),
        ),
        ExprKind::Cast(t, a) => ExprKind::Cast(t.clone(), sub(a)),
        ExprKind::Assign(op, a, b) => ExprKind::Assign(*op, sub(a), sub(b)),
        ExprKind::Update(inc, a) => ExprKind::Update(*inc, sub(a)),
        ExprKind::AddrOf(a) => ExprKind::AddrOf(sub(a)),
        ExprKind::Deref(a) => ExprKind::Deref(sub(a)),
        ExprKind::Field(a) => ExprKind::Field(sub(a)),
        ExprKind::Comma(a, b) => ExprKind::Comma(sub(a), sub(b)),
        ExprKind::Other(k, xs) => ExprKind::Other(
            k.clone(),
            xs.iter()
                .map(|x| substitute(x, params, args, span))
                .collect(),
        ),
    };
    Expr {
        kind,
        span: span.clone(),
        from_macro: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def(name: &str, params: Option<&[&str]>, body: &str) -> Define {
        Define {
            name: name.into(),
            params: params.map(|p| p.iter().map(|s| s.to_string()).collect()),
            body: body.into(),
            span: 0..0,
        }
    }

    #[test]
    fn values_use_other_macros_and_overrides() {
        let defs = vec![
            def("N", None, "100"),
            def("M", None, "(N + 1) * 2"),
            def("T", None, "double"),
        ];
        let m = Macros::build(&defs, &[]);
        assert_eq!(m.object("M").and_then(|o| o.value), Some(202));
        assert_eq!(m.object("T").and_then(|o| o.value), None);
        let m = Macros::build(&defs, &[("N".into(), 10)]);
        assert_eq!(m.object("N").and_then(|o| o.value), Some(10));
        assert_eq!(
            m.object("N").map(|o| o.origin),
            Some(ParamOrigin::CommandLine)
        );
        assert_eq!(m.object("M").and_then(|o| o.value), Some(22));
    }

    #[test]
    fn long_macro_chains_are_evaluated_once() {
        // A_k = (A_{k+1} + A_{k+1}): naive evaluation would take 2^40 steps.
        let mut defs: Vec<Define> = (0..40)
            .map(|k| {
                def(
                    &format!("A{k}"),
                    None,
                    &format!("(A{} + A{})", k + 1, k + 1),
                )
            })
            .collect();
        defs.push(def("A40", None, "1"));
        let m = Macros::build(&defs, &[]);
        assert_eq!(m.object("A39").and_then(|o| o.value), Some(2));
        // The chain from A0 is 41 long: within the limit, and 2^40 fits.
        assert_eq!(m.object("A0").and_then(|o| o.value), Some(1i64 << 40));
    }

    #[test]
    fn self_reference_has_no_value() {
        let defs = vec![def("A", None, "B"), def("B", None, "A + 1")];
        let m = Macros::build(&defs, &[]);
        assert_eq!(m.object("A").and_then(|o| o.value), None);
    }

    #[test]
    fn expands_function_like_macro() {
        let defs = vec![def("MIN", Some(&["a", "b"]), "((a) < (b) ? (a) : (b))")];
        let m = Macros::build(&defs, &[]);
        let arg = |n: &str, at: usize| Expr {
            kind: ExprKind::Ident(n.into()),
            span: at..at + 1,
            from_macro: false,
        };
        let call = Expr {
            kind: ExprKind::Other("call".into(), vec![]),
            span: 5..20,
            from_macro: false,
        };
        let e = m
            .expand_call("MIN", &call, &[arg("x", 9), arg("y", 12)])
            .expect("expands");
        assert!(matches!(e.kind, ExprKind::Cond(..)));
        assert_eq!(e.span, 5..20);
        assert!(m.expand_call("MIN", &call, &[arg("x", 9)]).is_none());
    }
}
