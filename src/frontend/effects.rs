//! What each function called in the file may do to memory (the rules of
//! real C: a call is pure only when that is proven).
//!
//! A call has [`Effect::None`] when it is one of the standard functions
//! known to touch no memory (`<math.h>`, the `abs` family), when its
//! function is declared `__attribute__((const))` (or C23's
//! `[[unsequenced]]`, `[[gnu::const]]`), or when its body in this file
//! reads and writes nothing but its own automatic variables and its
//! by-value parameters, and calls only such functions (checked over the
//! whole call graph, recursion included, as a least fixed point).
//! [`Effect::Reads`] is the same with reads of globals or of memory through
//! pointers allowed (or `__attribute__((pure))`). Everything else may
//! write memory: functions without a body here, calls through pointers,
//! bodies that write a global, a `static` variable or through a pointer,
//! `asm`, `volatile` objects.
//!
//! What it does not do: it does not say which memory a call touches (any
//! memory a call can reach is assumed), and it does not look inside
//! headers' function bodies (a header's functions are unknown, unless
//! their attributes or the library list say otherwise).

use std::collections::HashMap;

use super::macros::Macros;
use super::scope::Scopes;
use super::syntax::{CStmt, Expr, ExprKind, Function, SyntaxFile};
use crate::ir::{Effect, EffectSource, Storage};

/// Standard functions that read and write no memory (their arguments are
/// values): `<math.h>` without the functions that write through a pointer
/// (`frexp`, `modf`, `remquo`) or a global (`lgamma`'s `signgam`), and the
/// integer `abs` family.
const LIBRARY_NO_MEMORY: &[&str] = &[
    "acos",
    "asin",
    "atan",
    "atan2",
    "cos",
    "sin",
    "tan",
    "acosh",
    "asinh",
    "atanh",
    "cosh",
    "sinh",
    "tanh",
    "exp",
    "exp2",
    "expm1",
    "ldexp",
    "ilogb",
    "log",
    "log10",
    "log1p",
    "log2",
    "logb",
    "scalbn",
    "scalbln",
    "cbrt",
    "fabs",
    "hypot",
    "pow",
    "sqrt",
    "erf",
    "erfc",
    "tgamma",
    "ceil",
    "floor",
    "nearbyint",
    "rint",
    "lrint",
    "llrint",
    "round",
    "lround",
    "llround",
    "trunc",
    "fmod",
    "remainder",
    "copysign",
    "nextafter",
    "nexttoward",
    "fdim",
    "fmax",
    "fmin",
    "fma",
];

/// The integer absolute values.
const LIBRARY_ABS: &[&str] = &["abs", "labs", "llabs", "imaxabs"];

/// Whether `name` is a standard function that touches no memory
/// (`sqrtf`, `sqrtl` included).
fn library_no_memory(name: &str) -> bool {
    if LIBRARY_ABS.contains(&name) || LIBRARY_NO_MEMORY.contains(&name) {
        return true;
    }
    let base = name
        .strip_suffix('f')
        .or_else(|| name.strip_suffix('l'))
        .unwrap_or("");
    !base.is_empty() && LIBRARY_NO_MEMORY.contains(&base)
}

/// The effect an attribute text promises, if any.
fn attribute_effect(text: &str) -> Option<Effect> {
    let words: Vec<&str> = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    let has = |w: &str| words.contains(&w);
    if has("const") || has("__const__") || has("unsequenced") {
        Some(Effect::None)
    } else if has("pure") || has("__pure__") || has("reproducible") {
        Some(Effect::Reads)
    } else {
        None
    }
}

/// The effect of every function the file calls, by name.
#[derive(Clone, Debug, Default)]
pub(crate) struct FileEffects {
    known: HashMap<String, (Effect, EffectSource)>,
}

impl FileEffects {
    /// Classifies the functions of `file` (its active definitions and
    /// declarations).
    pub fn build(file: &SyntaxFile, scopes: &Scopes, macros: &Macros) -> FileEffects {
        let mut attributes: HashMap<String, Effect> = HashMap::new();
        for g in &file.globals {
            let promised = g
                .attributes
                .iter()
                .filter_map(|a| attribute_effect(a))
                .min();
            for dc in g.declarators.iter().filter(|d| d.is_function) {
                if let Some(e) = promised {
                    attributes.insert(dc.name.clone(), e);
                }
            }
        }
        for f in &file.functions {
            if let Some(e) = f
                .attributes
                .iter()
                .filter_map(|a| attribute_effect(a))
                .min()
            {
                attributes.insert(f.name.clone(), e);
            }
        }
        // Per function with a body: what its own statements do, and whom
        // it calls.
        let bodies: Vec<(&Function, Summary)> = file
            .functions
            .iter()
            .map(|f| (f, summarise(f, scopes, macros)))
            .collect();
        let mut known: HashMap<String, (Effect, EffectSource)> = HashMap::new();
        for (name, e) in &attributes {
            known.insert(name.clone(), (*e, EffectSource::Attribute));
        }
        for (f, s) in &bodies {
            if !attributes.contains_key(&f.name) {
                known.insert(f.name.clone(), (s.own.0, s.own.1.clone()));
            }
        }
        // The least fixed point over the call graph: effects only grow.
        loop {
            let mut changed = false;
            for (f, s) in &bodies {
                if attributes.contains_key(&f.name) {
                    continue;
                }
                let mut best = known[&f.name].clone();
                for callee in &s.callees {
                    let e = if let Some((e, _)) = known.get(callee) {
                        *e
                    } else if library_no_memory(callee) {
                        Effect::None
                    } else {
                        Effect::Writes
                    };
                    if e > best.0 {
                        best = (e, EffectSource::BodyTouches(format!("{callee}()")));
                    }
                }
                if best.0 > known[&f.name].0 {
                    known.insert(f.name.clone(), best);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        FileEffects { known }
    }

    /// The effect of a call of `name` and why.
    pub fn of(&self, name: &str) -> (Effect, EffectSource) {
        if let Some(k) = self.known.get(name) {
            return k.clone();
        }
        if library_no_memory(name) {
            return (Effect::None, EffectSource::Library);
        }
        (Effect::Writes, EffectSource::Unknown)
    }
}

/// What a body does by itself: its strongest effect (with the first thing
/// that causes it) and the functions it calls by name.
struct Summary {
    own: (Effect, EffectSource),
    callees: Vec<String>,
}

impl Summary {
    fn note(&mut self, e: Effect, source: EffectSource) {
        if e > self.own.0 {
            self.own = (e, source);
        }
    }
}

/// The longest chain of object-like macros expanded inside a body.
const MAX_MACRO_DEPTH: usize = 16;

fn summarise(f: &Function, scopes: &Scopes, macros: &Macros) -> Summary {
    let mut s = Summary {
        own: (Effect::None, EffectSource::Body),
        callees: Vec::new(),
    };
    let mut w = Walker {
        scopes,
        macros,
        summary: &mut s,
    };
    w.stmt(&f.body);
    s
}

struct Walker<'a, 'b> {
    scopes: &'a Scopes<'a>,
    macros: &'a Macros,
    summary: &'b mut Summary,
}

/// Where a name used in a body points.
enum Place {
    /// An automatic variable or a by-value parameter of the function.
    Own,
    /// Memory a call may share: a global, a `static`, through a pointer.
    Shared,
}

impl Walker<'_, '_> {
    fn stmt(&mut self, s: &CStmt) {
        s.walk_root_exprs(&mut |e| self.expr(e, 0));
        if has_asm(s) {
            self.shared(Effect::Writes, "asm");
        }
    }

    /// The memory that variable `name` at `at` names (`deref`: reached
    /// through subscripts, `*` or a field).
    fn place(&self, name: &str, at: usize, deref: bool) -> Option<Place> {
        let v = &self.scopes.vars[self.scopes.lookup(name, at)?];
        if v.decl.has_qualifier("volatile") {
            return Some(Place::Shared);
        }
        let own = match v.storage {
            Storage::Local => !(deref && v.is_pointer()),
            // An array parameter is a pointer to the caller's memory.
            Storage::FunctionParam => !(deref && (v.is_pointer() || v.is_array())),
            Storage::Static | Storage::Global => false,
        };
        Some(if own { Place::Own } else { Place::Shared })
    }

    fn shared(&mut self, e: Effect, what: &str) {
        self.summary
            .note(e, EffectSource::BodyTouches(what.to_string()));
    }

    /// An expression evaluated for its value (`depth`: object-like macros
    /// expanded so far).
    fn expr(&mut self, e: &Expr, depth: usize) {
        match &e.kind {
            ExprKind::Ident(n) => self.read_name(e, n, depth),
            ExprKind::Subscript(..) | ExprKind::Deref(_) | ExprKind::Field(_) => {
                self.access(e, Effect::Reads, depth)
            }
            ExprKind::Assign(_, l, r) => {
                self.access(l, Effect::Writes, depth);
                self.expr(r, depth);
            }
            ExprKind::Update(_, t) => self.access(t, Effect::Writes, depth),
            ExprKind::Other(kind, subs) if kind == "assignment_expression" => {
                if let Some(l) = subs.first() {
                    self.access(l, Effect::Writes, depth);
                }
                for r in subs.iter().skip(1) {
                    self.expr(r, depth);
                }
            }
            ExprKind::Call(callee, args) => {
                self.call(e, callee, args, depth);
            }
            ExprKind::AddrOf(a) => self.address(a, depth),
            ExprKind::Int(_) | ExprKind::OtherLiteral => {}
            ExprKind::Unary(_, a) | ExprKind::Cast(_, a) => self.expr(a, depth),
            ExprKind::Binary(_, a, b) | ExprKind::Comma(a, b) => {
                self.expr(a, depth);
                self.expr(b, depth);
            }
            ExprKind::Cond(a, b, c) => {
                self.expr(a, depth);
                self.expr(b, depth);
                self.expr(c, depth);
            }
            ExprKind::Other(kind, subs) => {
                if kind == "sizeof_expression" || kind == "alignof_expression" {
                    return;
                }
                if kind.contains("asm") {
                    self.shared(Effect::Writes, "asm");
                }
                for s in subs {
                    self.expr(s, depth);
                }
            }
        }
    }

    /// A name read as a value: a global or `static` that is not `const`
    /// is shared memory; an object-like macro is expanded.
    fn read_name(&mut self, e: &Expr, n: &str, depth: usize) {
        let Some(i) = self.scopes.lookup(n, e.span.start) else {
            self.macro_name(e, n, depth);
            return;
        };
        let v = &self.scopes.vars[i];
        if v.decl.has_qualifier("volatile") {
            self.shared(Effect::Writes, n);
        } else if matches!(v.storage, Storage::Static | Storage::Global)
            && !v.decl.has_qualifier("const")
        {
            self.shared(Effect::Reads, n);
        }
    }

    /// An object-like macro used in a body: its expansion counts.
    fn macro_name(&mut self, e: &Expr, n: &str, depth: usize) {
        if self.macros.object(n).is_none() || self.macros.is_integer_constant(n) {
            return; // a function name, an enum constant, a number
        }
        match self.macros.expand_object(n, e) {
            Some(x) if depth < MAX_MACRO_DEPTH => self.expr(&x, depth + 1),
            _ => self.shared(Effect::Writes, n),
        }
    }

    /// An lvalue read (`effect` Reads) or written (Writes): its root
    /// variable decides whose memory it is.
    fn access(&mut self, e: &Expr, effect: Effect, depth: usize) {
        let mut cur = e;
        let mut deref = false;
        loop {
            match &cur.kind {
                ExprKind::Subscript(base, idx) => {
                    self.expr(idx, depth);
                    deref = true;
                    cur = base;
                }
                ExprKind::Deref(a) => {
                    deref = true;
                    cur = a;
                }
                ExprKind::Field(a) => {
                    // `p->x` goes through a pointer; `s.x` of a local
                    // struct stays own (see `place`: only pointers and
                    // array parameters are dereferenced).
                    deref = true;
                    cur = a;
                }
                _ => break,
            }
        }
        match &cur.kind {
            ExprKind::Ident(n) => match self.place(n, cur.span.start, deref) {
                Some(Place::Own) => {}
                Some(Place::Shared) => {
                    // A `const` global array is never written by anyone.
                    let constant = self.scopes.lookup(n, cur.span.start).is_some_and(|i| {
                        let v = &self.scopes.vars[i];
                        v.decl.has_qualifier("const")
                            && !v.decl.has_qualifier("volatile")
                            && !v.is_pointer()
                            && matches!(v.storage, Storage::Static | Storage::Global)
                    });
                    if effect == Effect::Writes || !constant {
                        self.shared(effect, n);
                    }
                }
                None => {
                    if effect == Effect::Writes {
                        self.shared(Effect::Writes, n);
                    } else {
                        self.macro_name(cur, n, depth);
                    }
                }
            },
            _ => {
                // Through a computed pointer (`f()[i]`, `(p + 1)[0]`).
                self.expr(cur, depth);
                self.shared(effect, "a pointer");
            }
        }
    }

    /// `&x`: the address escapes to whatever receives it; what is done
    /// through it is judged where it is used (a callee's body, a pointer
    /// written through).
    fn address(&mut self, a: &Expr, depth: usize) {
        let mut cur = a;
        loop {
            match &cur.kind {
                ExprKind::Subscript(base, idx) => {
                    self.expr(idx, depth);
                    cur = base;
                }
                ExprKind::Field(x) | ExprKind::Deref(x) => cur = x,
                _ => break,
            }
        }
        if !matches!(cur.kind, ExprKind::Ident(_)) {
            self.expr(cur, depth);
        }
    }

    fn call(&mut self, call: &Expr, callee: &Expr, args: &[Expr], depth: usize) {
        for a in args {
            self.expr(a, depth);
        }
        let ExprKind::Ident(name) = &callee.kind else {
            self.expr(callee, depth);
            self.summary.note(Effect::Writes, EffectSource::Pointer);
            return;
        };
        if let Some(x) = self.macros.expand_call(name, call, args) {
            if depth < MAX_MACRO_DEPTH {
                self.expr(&x, depth + 1);
            } else {
                self.shared(Effect::Writes, name);
            }
            return;
        }
        if self.scopes.lookup(name, callee.span.start).is_some() {
            // A variable: a function pointer.
            self.summary.note(Effect::Writes, EffectSource::Pointer);
            return;
        }
        match called_function(self.macros, name) {
            Some(f) => {
                if !self.summary.callees.contains(&f) {
                    self.summary.callees.push(f);
                }
            }
            None => self.shared(Effect::Writes, name),
        }
    }
}

/// The function a call of `name` calls: `name` itself, or where an
/// object-like macro renames it (`#define sqrt my_sqrt`); `None` when a
/// macro hides something else.
pub(crate) fn called_function(macros: &Macros, name: &str) -> Option<String> {
    let mut current = name.to_string();
    for _ in 0..MAX_MACRO_DEPTH {
        let Some(m) = macros.object(&current) else {
            return Some(current);
        };
        let body = m.body.trim();
        let is_name = !body.is_empty()
            && !body.starts_with(|c: char| c.is_ascii_digit())
            && body.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !is_name || body == current {
            return None;
        }
        current = body.to_string();
    }
    None
}

/// Whether a statement holds an `asm` statement, at any depth.
fn has_asm(s: &CStmt) -> bool {
    match s {
        CStmt::Other { kind, children, .. } => kind.contains("asm") || children.iter().any(has_asm),
        CStmt::For { body, .. } => has_asm(body),
        CStmt::If { then, els, .. } => has_asm(then) || els.as_deref().is_some_and(has_asm),
        CStmt::Compound { items, .. } => items.iter().any(has_asm),
        CStmt::Expr { .. } | CStmt::Empty { .. } | CStmt::Decl { .. } | CStmt::Preproc { .. } => {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn effects(source: &str) -> FileEffects {
        let file = super::super::syntax::parse_file(source).expect("parses");
        let scopes = Scopes::build(&file);
        let macros = Macros::build(&file.defines, &[]);
        FileEffects::build(&file, &scopes, &macros)
    }

    #[test]
    fn library_functions_and_suffixes() {
        let e = effects("");
        assert_eq!(e.of("sqrt").0, Effect::None);
        assert_eq!(e.of("sqrtf").0, Effect::None);
        assert_eq!(e.of("fabsl").0, Effect::None);
        assert_eq!(e.of("abs").0, Effect::None);
        assert_eq!(e.of("frexp").0, Effect::Writes);
        assert_eq!(e.of("rand").0, Effect::Writes);
        assert_eq!(e.of("printf").0, Effect::Writes);
        assert_eq!(e.of("l").0, Effect::Writes);
    }

    #[test]
    fn bodies_are_classified_through_the_call_graph() {
        let e = effects(
            "static unsigned state = 1u;
             static double total;
             static const double coef[3] = {1, 2, 3};
             static double noise(void) { state = state * 5u + 1u; return state; }
             static double get_total(void) { return total; }
             static double sq(double x) { double t = x * x; return t; }
             static double via(double x) { return sq(x) + coef[1]; }
             static double bad(double x) { return via(x) + noise(); }
             static double rd(const double *p, int n) { double s = 0; for (int i = 0; i < n; i++) s += p[i]; return s; }
             static void wr(double *p) { p[0] = 1.0; }
             static void loc(void) { double t[4]; t[0] = 1; t[1] = t[0]; }
             static int even(int n) { return n == 0 ? 1 : odd(n - 1); }
             static int odd(int n) { return n == 0 ? 0 : even(n - 1); }
             static int stat(void) { static int k; return k++; }
             static double attr(double) __attribute__((const));
             double ext(double);",
        );
        assert_eq!(e.of("noise").0, Effect::Writes);
        assert_eq!(e.of("get_total").0, Effect::Reads);
        assert_eq!(e.of("sq").0, Effect::None);
        assert_eq!(e.of("via").0, Effect::None);
        assert_eq!(e.of("bad").0, Effect::Writes);
        assert_eq!(e.of("rd").0, Effect::Reads);
        assert_eq!(e.of("wr").0, Effect::Writes);
        assert_eq!(e.of("loc").0, Effect::None);
        assert_eq!(e.of("even").0, Effect::None);
        assert_eq!(e.of("odd").0, Effect::None);
        assert_eq!(e.of("stat").0, Effect::Writes);
        assert_eq!(e.of("attr").0, Effect::None);
        assert_eq!(e.of("ext").0, Effect::Writes);
    }

    #[test]
    fn macros_and_pointers_count() {
        let e = effects(
            "static int counter;
             #define BUMP (counter++)
             #define TWICE(x) ((x) + (x))
             static int m(void) { return BUMP; }
             static int t(int x) { return TWICE(x); }
             static int fp(int (*g)(int)) { return g(1); }
             static int arrow(struct S *s) { return s->v; }
             #define root my_root
             double my_root(double);
             static double renamed(double x) { return root(x); }
             static double sq(double x) { return x * x; }
             #define square sq
             static double renamed_pure(double x) { return square(x); }
             static void spin(void) { __asm__ volatile(\"nop\"); }",
        );
        assert_eq!(e.of("renamed").0, Effect::Writes);
        assert_eq!(e.of("renamed_pure").0, Effect::None);
        assert_eq!(e.of("spin").0, Effect::Writes);
        assert_eq!(e.of("m").0, Effect::Writes);
        assert_eq!(e.of("t").0, Effect::None);
        assert_eq!(e.of("fp").0, Effect::Writes);
        assert_eq!(e.of("arrow").0, Effect::Reads);
    }
}
