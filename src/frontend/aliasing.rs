//! Which pointer and array parameters may share memory (the rules of real
//! C: two parameters are distinct only under `restrict`, or when every
//! call in the file passes distinct objects).
//!
//! A `static` function is called only from this file, unless its name
//! escapes (used as a value, named by a macro). When every occurrence of
//! its name in the text is its definition, a declaration of it, or the
//! callee of a call the front end sees, its call sites are all known;
//! each argument then names an object when it is a declared array (a
//! local, a `static` or a global, not a pointer), possibly as `&A[0]…[0]`
//! or through a cast, or a local pointer that only ever holds memory
//! fresh from `malloc`, `calloc` or `aligned_alloc` (never moved, never
//! under `&`), or a pointer that one macro statement of the caller
//! declares and allocates (PolyBench's `POLYBENCH_2D_ARRAY_DECL`, passed
//! as `POLYBENCH_ARRAY(t)`; see [`super::buffers::macro_allocated`]).
//! Two parameters are distinct when every call passes
//! two different objects; a parameter and a global are distinct when
//! every call passes an object other than the global.
//!
//! What it does not do: it does not follow other pointers (a pointer that
//! is moved or copied, a caller's own parameter are unknown objects), and it
//! does not model partial overlap (arrays that may overlap are treated
//! as one memory by [`crate::ir::order`]).

use std::collections::{HashMap, HashSet};

use super::macros::Macros;

use super::scope::Scopes;
use super::syntax::{Expr, ExprKind, SyntaxFile};
use crate::ir::Storage;

/// The macros in force in each function (by index).
type MacrosOf<'a, 'm> = &'a dyn Fn(usize) -> &'m Macros;

/// What an argument of a call names.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Object {
    /// A declared array (its variable's index in [`Scopes::vars`]).
    Array(usize),
    /// A pointer of the calling function that a macro declares and
    /// allocates, and nothing changes (see
    /// [`super::buffers::macro_allocated`]): its name.
    Fresh(String),
    /// Anything else: a pointer, an expression, heap memory.
    Unknown,
}

/// The call sites of the file's `static` functions.
#[derive(Clone, Debug, Default)]
pub(crate) struct FileAliasing {
    /// Per `static` function whose calls are all known: per call, what
    /// each argument names.
    calls: HashMap<String, Vec<Vec<Object>>>,
}

impl FileAliasing {
    /// Finds the calls of the `static` functions of `file` (`source`: its
    /// text, to count every occurrence of each name).
    /// `macros(k)` are the macros in force in function `k`, and `fresh`
    /// the pointers that macros allocate (per function index).
    pub fn build<'m>(
        file: &SyntaxFile,
        scopes: &Scopes,
        source: &str,
        (macros, fresh): (MacrosOf<'_, 'm>, &HashSet<(usize, String)>),
    ) -> FileAliasing {
        let heap = heap_pointers(file, scopes);
        let mut calls: HashMap<String, Vec<Vec<Object>>> = HashMap::new();
        let mut callee_spans: HashMap<String, usize> = HashMap::new();
        let mut note = |e: &Expr, k: Option<usize>| {
            let ExprKind::Call(callee, args) = &e.kind else {
                return;
            };
            let ExprKind::Ident(name) = &callee.kind else {
                return;
            };
            if callee.from_macro {
                return;
            }
            *callee_spans.entry(name.clone()).or_default() += 1;
            let objects = args
                .iter()
                .map(|a| match k {
                    Some(k) => fresh_object(a, macros(k), &|n| fresh.contains(&(k, n.to_string())))
                        .unwrap_or_else(|| object_of(a, scopes, &heap)),
                    None => object_of(a, scopes, &heap),
                })
                .collect();
            calls.entry(name.clone()).or_default().push(objects);
        };
        for (k, f) in file.functions.iter().enumerate() {
            f.body.walk_exprs(&mut |e| note(e, Some(k)));
        }
        for g in &file.globals {
            super::syntax::walk_decl_root_exprs(g, &mut |e| e.walk(&mut |e| note(e, None)));
        }
        // Occurrences of each name in the whole text (inactive branches,
        // macro bodies and all).
        let mut occurrences: HashMap<&str, usize> = HashMap::new();
        for (_, name) in crate::util::c_text::identifier_tokens(source, true) {
            if let Some(f) = file.functions.iter().find(|f| f.name == name) {
                *occurrences.entry(f.name.as_str()).or_default() += 1;
            }
        }
        let mut known: HashMap<String, Vec<Vec<Object>>> = HashMap::new();
        for f in file.functions.iter().filter(|f| f.is_static) {
            let declared = 1 + file
                .globals
                .iter()
                .flat_map(|g| &g.declarators)
                .filter(|d| d.is_function && d.name == f.name)
                .count();
            let called = callee_spans.get(&f.name).copied().unwrap_or(0);
            let all = occurrences.get(f.name.as_str()).copied().unwrap_or(0);
            if all == declared + called {
                known.insert(f.name.clone(), calls.remove(&f.name).unwrap_or_default());
            }
        }
        FileAliasing { calls: known }
    }

    /// Whether every call of `function` (a `static` function) is known.
    pub(crate) fn all_calls_known(&self, function: &str) -> bool {
        self.calls.contains_key(function)
    }

    /// Whether parameters `i` and `j` of `function` are distinct objects
    /// at every call (false when its calls are not all known).
    pub(crate) fn distinct_parameters(&self, function: &str, i: usize, j: usize) -> bool {
        self.calls.get(function).is_some_and(|calls| {
            calls.iter().all(|args| match (args.get(i), args.get(j)) {
                (Some(Object::Array(a)), Some(Object::Array(b))) => a != b,
                (Some(Object::Fresh(a)), Some(Object::Fresh(b))) => a != b,
                (Some(Object::Fresh(_)), Some(Object::Array(_)))
                | (Some(Object::Array(_)), Some(Object::Fresh(_))) => true,
                _ => false,
            })
        })
    }

    /// Whether parameter `i` of `function` never names the variable
    /// `global` (an index of [`Scopes::vars`]) at any call.
    pub(crate) fn parameter_not(&self, function: &str, i: usize, global: usize) -> bool {
        self.calls.get(function).is_some_and(|calls| {
            calls.iter().all(|args| match args.get(i) {
                Some(Object::Array(a)) => *a != global,
                Some(Object::Fresh(_)) => true,
                _ => false,
            })
        })
    }
}

/// Whether `e` (through casts) is a call of an allocator that returns new
/// memory.
fn is_allocation(e: &Expr) -> bool {
    let mut cur = e;
    while let ExprKind::Cast(_, a) = &cur.kind {
        cur = a;
    }
    matches!(&cur.kind, ExprKind::Call(callee, _)
        if !callee.from_macro
            && matches!(&callee.kind, ExprKind::Ident(n) if matches!(n.as_str(), "malloc" | "calloc" | "aligned_alloc")))
}

/// The local pointers (indices of [`Scopes::vars`]) that only ever hold
/// memory fresh from `malloc`, `calloc` or `aligned_alloc`: initialised or
/// assigned only from such a call, never moved (`p++`, `p += k`), never
/// under `&`. Two of them name two objects.
fn heap_pointers(file: &SyntaxFile, scopes: &Scopes) -> std::collections::HashSet<usize> {
    let mut good = std::collections::HashSet::new();
    let mut bad = std::collections::HashSet::new();
    for (i, v) in scopes.vars.iter().enumerate() {
        if v.storage != Storage::Local || !v.is_pointer() {
            continue;
        }
        match &v.dc.init {
            Some(e) if is_allocation(e) => {
                good.insert(i);
            }
            Some(_) => {
                bad.insert(i);
            }
            None => {}
        }
    }
    let var_of = |e: &Expr| match &e.kind {
        ExprKind::Ident(n) => scopes.lookup(n, e.span.start),
        _ => None,
    };
    for f in &file.functions {
        f.body.walk_exprs(&mut |e: &Expr| match &e.kind {
            ExprKind::Assign(op, lhs, rhs) => {
                if let Some(i) = var_of(lhs) {
                    if op.is_none() && is_allocation(rhs) {
                        good.insert(i);
                    } else {
                        bad.insert(i);
                    }
                }
            }
            ExprKind::Update(_, x) | ExprKind::AddrOf(x) => {
                if let Some(i) = var_of(x) {
                    bad.insert(i);
                }
            }
            ExprKind::Other(kind, subs) if kind == "assignment_expression" => {
                if let Some(i) = subs.first().and_then(var_of) {
                    bad.insert(i);
                }
            }
            _ => {}
        });
    }
    good.retain(|i| !bad.contains(i));
    good
}

/// The pointer argument `e` names when it is one of `fresh` (a name of
/// the calling function), passed as it is or as `*t`, possibly through
/// casts and function-like macros (`POLYBENCH_ARRAY(t)`).
fn fresh_object(e: &Expr, macros: &Macros, fresh: &dyn Fn(&str) -> bool) -> Option<Object> {
    let mut cur = e.clone();
    let mut derefs = 0;
    for _ in 0..8 {
        match &cur.kind {
            ExprKind::Cast(_, x) => cur = (**x).clone(),
            ExprKind::Deref(x) if derefs == 0 => {
                derefs += 1;
                cur = (**x).clone();
            }
            ExprKind::Call(callee, args) => {
                let ExprKind::Ident(m) = &callee.kind else {
                    return None;
                };
                macros.table.function(m)?;
                cur = macros.expand_call(m, &cur, args)?;
            }
            ExprKind::Ident(n) if fresh(n) => return Some(Object::Fresh(n.clone())),
            _ => return None,
        }
    }
    None
}

/// What argument `e` names.
fn object_of(e: &Expr, scopes: &Scopes, heap: &std::collections::HashSet<usize>) -> Object {
    let mut cur = e;
    loop {
        match &cur.kind {
            ExprKind::Cast(_, a) => cur = a,
            ExprKind::AddrOf(a) => {
                // `&A[0]…[0]`.
                let mut inner = a.as_ref();
                while let ExprKind::Subscript(base, idx) = &inner.kind {
                    if idx.kind != ExprKind::Int(0) {
                        return Object::Unknown;
                    }
                    inner = base;
                }
                if std::ptr::eq(inner, a.as_ref()) {
                    return Object::Unknown;
                }
                cur = inner;
            }
            _ => break,
        }
    }
    let ExprKind::Ident(name) = &cur.kind else {
        return Object::Unknown;
    };
    if cur.from_macro {
        return Object::Unknown;
    }
    let Some(i) = scopes.lookup(name, cur.span.start) else {
        return Object::Unknown;
    };
    let v = &scopes.vars[i];
    let declared_array = v.is_array() && !v.is_pointer();
    let owned = matches!(
        v.storage,
        Storage::Local | Storage::Static | Storage::Global
    );
    if (declared_array && owned) || heap.contains(&i) {
        Object::Array(i)
    } else {
        Object::Unknown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn aliasing(source: &str) -> FileAliasing {
        let file = super::super::syntax::parse_file(source).expect("parses");
        let scopes = Scopes::build(&file);
        let macros = Macros::build(&file.defines, &[]);
        let fresh = super::super::buffers::macro_allocated(&file, &scopes, &|_| &macros, source);
        FileAliasing::build(&file, &scopes, source, (&|_| &macros, &fresh))
    }

    const KERNEL: &str = "static void k(int n, const double in[n], double out[n]) {}\n";

    #[test]
    fn distinct_arrays_at_every_call() {
        let a = aliasing(&format!(
            "{KERNEL}double g[9];\nint main(void) {{ double x[9], y[9]; k(9, x, y); k(9, &g[0], x); return 0; }}"
        ));
        assert!(a.distinct_parameters("k", 1, 2));
    }

    #[test]
    fn the_same_array_twice_is_not_distinct() {
        let a = aliasing(&format!(
            "{KERNEL}int main(void) {{ double x[9], y[9]; k(9, x, y); k(9, x, x); return 0; }}"
        ));
        assert!(!a.distinct_parameters("k", 1, 2));
    }

    #[test]
    fn pointers_escapes_and_non_static_functions_prove_nothing() {
        for main in [
            "int main(void) { double x[9]; double *p = x; k(9, p, x); return 0; }",
            "void (*fp)(int, const double *, double *) = k; int main(void) { double x[9], y[9]; k(9, x, y); return 0; }",
            "#define RUN(a, b) k(9, a, b)\nint main(void) { double x[9], y[9]; k(9, x, y); return 0; }",
        ] {
            let a = aliasing(&format!("{KERNEL}{main}"));
            assert!(!a.distinct_parameters("k", 1, 2), "{main}");
        }
        let a = aliasing(
            "void k(int n, const double in[n], double out[n]) {}\nint main(void) { double x[9], y[9]; k(9, x, y); return 0; }",
        );
        assert!(!a.distinct_parameters("k", 1, 2));
    }

    /// PolyBench's allocation macros: each buffer is a pointer that its
    /// macro declares and allocates, passed as `*t` through a macro.
    const MACROS: &str = "#include <stdlib.h>\n\
        #define DECL(v, n) double (*v)[n]; v = (double(*)[n])malloc((n) * sizeof(double));\n\
        #define ARR(x) *x\n#define FREE(x) free((void*)x);\n#define N 9\n";

    #[test]
    fn buffers_that_macros_allocate_are_distinct() {
        let a = aliasing(&format!(
            "{MACROS}{KERNEL}double g[9];\nint main(void) {{ DECL(x, N); DECL(y, N); k(9, ARR(x), ARR(y)); k(9, ARR(y), g); FREE(x); FREE(y); return 0; }}"
        ));
        assert!(a.distinct_parameters("k", 1, 2));
        // Moved, reassigned, under `&`, allocated twice, declared again,
        // the same buffer twice: nothing is proven.
        for main in [
            "int main(void) { DECL(x, N); DECL(y, N); x++; k(9, ARR(x), ARR(y)); return 0; }",
            "int main(void) { DECL(x, N); DECL(y, N); x = y; k(9, ARR(x), ARR(y)); return 0; }",
            "int main(void) { DECL(x, N); DECL(y, N); void *p = &x; k(9, ARR(x), ARR(y)); return 0; }",
            "int main(void) { DECL(x, N); DECL(y, N); k(9, ARR(x), ARR(x)); return 0; }",
            "int main(void) { DECL(x, N); { DECL(x, N); } DECL(y, N); k(9, ARR(x), ARR(y)); return 0; }",
            "int main(void) { double *x = 0; DECL(y, N); k(9, ARR(x), ARR(y)); return 0; }",
        ] {
            let a = aliasing(&format!("{MACROS}{KERNEL}{main}"));
            assert!(!a.distinct_parameters("k", 1, 2), "{main}");
        }
    }

    #[test]
    fn fresh_heap_memory_in_distinct_pointers() {
        let a = aliasing(&format!(
            "#include <stdlib.h>\n{KERNEL}int main(void) {{ double *x = malloc(72); double *y; y = (double *)calloc(9, 8); k(9, x, y); return 0; }}"
        ));
        assert!(a.distinct_parameters("k", 1, 2));
        for main in [
            "int main(void) { double *x = malloc(72); double *y = x; k(9, x, y); return 0; }",
            "int main(void) { double *x = malloc(72), *y = malloc(72); y++; k(9, x, y); return 0; }",
            "int main(void) { double *x = malloc(72), *y = malloc(72); double **q = &y; k(9, x, y); return 0; }",
            "int main(void) { double *x = malloc(72); k(9, x, x); return 0; }",
        ] {
            let a = aliasing(&format!("{KERNEL}{main}"));
            assert!(!a.distinct_parameters("k", 1, 2), "{main}");
        }
    }

    #[test]
    fn a_parameter_and_a_global() {
        let src = format!(
            "double g[9];\n{KERNEL}int main(void) {{ double x[9]; k(9, x, g); return 0; }}"
        );
        let file = super::super::syntax::parse_file(&src).expect("parses");
        let scopes = Scopes::build(&file);
        let macros = Macros::build(&file.defines, &[]);
        let a = FileAliasing::build(&file, &scopes, &src, (&|_| &macros, &HashSet::new()));
        let g = scopes.lookup("g", src.len() - 1).expect("g");
        assert!(a.parameter_not("k", 1, g));
        assert!(!a.parameter_not("k", 2, g));
    }
}
