//! What the analyses of buffers share (`buffers`: caller-owned
//! parameters; `heap`: heap buffers of a function): which statements free
//! a pointer, what an occurrence of a name does, how an allocation's size
//! reads.

use super::syntax::{BinOp, CStmt, Decl, Declarator, Expr, ExprKind};

/// The line of byte `at` of `source`, from 1.
pub(crate) fn line_of(source: &str, at: usize) -> usize {
    source[..at.min(source.len())].matches('\n').count() + 1
}

/// What an occurrence of a buffer's name does that keeps its layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Use {
    Realloc,
    PassedTo(String),
    FunctionPointer,
    Stored,
    Assigned,
    Moved,
    AddressTaken,
    ReadOrWritten,
    /// A row of a heap buffer used as a pointer.
    Row,
    /// None of these (the name, for the sentence).
    Other(String),
}

impl std::fmt::Display for Use {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Use::Realloc => f.write_str("`realloc`ed"),
            Use::PassedTo(n) => write!(f, "passed to `{n}`"),
            Use::FunctionPointer => f.write_str("passed through a function pointer"),
            Use::Stored => f.write_str("stored (its address escapes)"),
            Use::Assigned => f.write_str("assigned"),
            Use::Moved => f.write_str("moved by pointer arithmetic that is not a subscript"),
            Use::AddressTaken => f.write_str("under `&`"),
            Use::ReadOrWritten => f.write_str("read or written outside the call"),
            Use::Row => f.write_str("read as a row"),
            Use::Other(name) => write!(
                f,
                "used other than allocated, passed to the callee or freed (`{name}`)"
            ),
        }
    }
}

/// Of the uses that keep a buffer's layout (each with its sentence), the
/// sentence of the one that says most: a `realloc`, else the first.
pub(crate) fn most_telling(mut escapes: Vec<(Use, String)>) -> Option<String> {
    if escapes.is_empty() {
        return None;
    }
    let k = escapes
        .iter()
        .position(|(u, _)| *u == Use::Realloc)
        .unwrap_or(0);
    Some(escapes.swap_remove(k).1)
}

/// What the occurrence of `name` at `at` in `body` does, for the
/// reason of a buffer that keeps its layout: what the expression
/// right around the name (through casts) does with it.
pub(crate) fn what_use(
    body: &CStmt,
    (name, at): (&str, usize),
    is_macro: &dyn Fn(&str) -> bool,
) -> Use {
    // Through casts, `*`, and the one argument of a function-like macro
    // (`POLYBENCH_ARRAY(x)`).
    let is_it = |c: &Expr| {
        let mut c = c;
        loop {
            match &c.kind {
                ExprKind::Cast(_, x) | ExprKind::Deref(x) => c = x,
                ExprKind::Call(f, args)
                    if args.len() == 1 && matches!(&f.kind, ExprKind::Ident(m) if is_macro(m)) =>
                {
                    c = &args[0]
                }
                _ => break,
            }
        }
        matches!(&c.kind, ExprKind::Ident(n) if n == name) && c.span.start == at
    };
    let mut found: Option<Use> = None;
    body.walk_exprs(&mut |e: &Expr| {
        if found.is_some() || !(e.span.start <= at && at < e.span.end) {
            return;
        }
        found = match &e.kind {
            ExprKind::Call(f, _) if matches!(&f.kind, ExprKind::Ident(m) if is_macro(m)) => None,
            ExprKind::Call(f, args) if args.iter().any(is_it) => Some(match &f.kind {
                ExprKind::Ident(n) if n == "realloc" => Use::Realloc,
                ExprKind::Ident(n) => Use::PassedTo(n.clone()),
                _ => Use::FunctionPointer,
            }),
            ExprKind::Assign(_, _, rhs) if is_it(rhs) => Some(Use::Stored),
            ExprKind::Assign(_, lhs, _) if is_it(lhs) => Some(Use::Assigned),
            ExprKind::Binary(_, a, b) if is_it(a) || is_it(b) => Some(Use::Moved),
            ExprKind::Update(_, a) if is_it(a) => Some(Use::Moved),
            ExprKind::AddrOf(_) => Some(Use::AddressTaken),
            ExprKind::Subscript(a, _) | ExprKind::Deref(a) if is_it(a) => Some(Use::ReadOrWritten),
            _ => None,
        };
    });
    found.unwrap_or_else(|| Use::Other(name.to_string()))
}

/// Calls `f` on `s` and every statement inside it, parents first.
pub(crate) fn walk_stmts<'a>(s: &'a CStmt, f: &mut dyn FnMut(&'a CStmt)) {
    f(s);
    match s {
        CStmt::For { body, .. } => walk_stmts(body, f),
        CStmt::If { then, els, .. } => {
            walk_stmts(then, f);
            if let Some(e) = els {
                walk_stmts(e, f);
            }
        }
        CStmt::Compound { items, .. } => items.iter().for_each(|i| walk_stmts(i, f)),
        CStmt::Other { children, .. } => children.iter().for_each(|i| walk_stmts(i, f)),
        CStmt::Expr { .. } | CStmt::Empty { .. } | CStmt::Preproc { .. } | CStmt::Decl { .. } => {}
    }
}

/// Whether `e` is `free(name)` (through casts).
pub(crate) fn is_free_of(e: &Expr, name: &str) -> bool {
    let ExprKind::Call(f, args) = &e.kind else {
        return false;
    };
    if !matches!(&f.kind, ExprKind::Ident(n) if n == "free") {
        return false;
    }
    let [a] = args.as_slice() else { return false };
    let mut cur = a;
    while let ExprKind::Cast(_, x) = &cur.kind {
        cur = x;
    }
    matches!(&cur.kind, ExprKind::Ident(n) if n == name)
}

/// `malloc(...)`, `calloc(...)` or `aligned_alloc(...)` (through casts):
/// the allocator and its
/// arguments.
pub(crate) fn allocation(e: &Expr) -> Option<(&str, &[Expr])> {
    let mut cur = e;
    while let ExprKind::Cast(_, x) = &cur.kind {
        cur = x;
    }
    let ExprKind::Call(f, args) = &cur.kind else {
        return None;
    };
    match &f.kind {
        ExprKind::Ident(n)
            if !f.from_macro && matches!(n.as_str(), "malloc" | "calloc" | "aligned_alloc") =>
        {
            Some((n.as_str(), args.as_slice()))
        }
        _ => None,
    }
}

/// The factors of a product (`a * b * c`).
fn factors<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match &e.kind {
        ExprKind::Binary(BinOp::Mul, a, b) => {
            factors(a, out);
            factors(b, out);
        }
        _ => out.push(e),
    }
}

/// The first extent of the allocation: the one factor of the size beside
/// the size of what the pointer points to, when it has no side effect.
pub(crate) fn first_extent(
    source: &str,
    (allocator, args): (&str, &[Expr]),
    decl: &Decl,
    dc: &Declarator,
) -> Option<Expr> {
    match size_factors(source, (allocator, args), decl, dc)?.as_slice() {
        [first] => Some(first.clone()),
        _ => None,
    }
}

/// The first extent `n` of `e` when it is `sizeof(T[n][m]...)` with `T`
/// the element type of `dc` (of `decl`) and `[m]...` the extents of the
/// rows it points to, as written.
fn array_size<'e>(source: &str, e: &'e Expr, decl: &Decl, dc: &Declarator) -> Option<&'e Expr> {
    let ExprKind::Other(kind, subs) = &e.kind else {
        return None;
    };
    let (first, rest) = subs.split_first()?;
    if kind != "sizeof_expression" || rest.len() != dc.dims.len() {
        return None;
    }
    let normal = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    let text = source
        .get(e.span.clone())?
        .trim()
        .strip_prefix("sizeof")?
        .trim();
    let inner = text.strip_prefix('(')?.strip_suffix(')')?;
    let (ty, _) = inner.split_once('[')?;
    let rows_match = rest.iter().zip(&dc.dims).all(|(x, (_, t))| {
        source
            .get(x.span.clone())
            .is_some_and(|s| normal(s) == normal(t))
    });
    (normal(ty) == normal(&decl.type_text) && rows_match).then_some(first)
}

/// The spans of the row extents written in the `sizeof(T[n][m]...)`
/// of allocation `init` whose first extent is `first` (`m`...: a new
/// row extent replaces them with the row type's), or none.
pub(crate) fn sizeof_row_spans(init: &Expr, first: &Expr) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    init.walk(&mut |e: &Expr| {
        if let ExprKind::Other(kind, subs) = &e.kind
            && kind == "sizeof_expression"
            && subs.first().is_some_and(|f| f.span == first.span)
        {
            out = subs[1..].iter().map(|x| x.span.clone()).collect();
        }
    });
    out
}

/// The factors of the allocation's size beside the one size of what the
/// pointer points to (`malloc(sizeof(double) * h * w)`: `h` and `w`),
/// when none has a side effect.
pub(crate) fn size_factors(
    source: &str,
    (allocator, args): (&str, &[Expr]),
    decl: &Decl,
    dc: &Declarator,
) -> Option<Vec<Expr>> {
    let mut all = Vec::new();
    match (allocator, args) {
        ("malloc", [size]) | ("aligned_alloc", [_, size]) => factors(size, &mut all),
        ("calloc", [n, size]) => {
            factors(n, &mut all);
            factors(size, &mut all);
        }
        _ => return None,
    }
    let normal = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    let is_element_size = |e: &Expr| -> bool {
        let ExprKind::Other(kind, _) = &e.kind else {
            return false;
        };
        let Some(t) = source.get(e.span.clone()) else {
            return false;
        };
        let Some(inner) = t.trim().strip_prefix("sizeof") else {
            return false;
        };
        let mut inner = inner.trim();
        while let Some(x) = inner.strip_prefix('(').and_then(|x| x.strip_suffix(')')) {
            inner = x.trim();
        }
        let pointee = normal(inner) == normal(&format!("*{}", dc.name))
            || normal(inner) == normal(&format!("* {}", dc.name));
        // `sizeof(T)` is the element's size only for a pointer to
        // elements (not to rows).
        let element = dc.dims.is_empty() && normal(inner) == normal(&decl.type_text);
        kind == "sizeof_expression" && (pointee || element)
    };
    // `sizeof(T[n][m])` of the element type and the rows' extents: the
    // size of `n` elements of the pointer.
    let mut sizes = Vec::new();
    let mut others = Vec::new();
    for e in all {
        if let Some(n) = array_size(source, e, decl, dc) {
            sizes.push(e);
            others.push(n);
        } else if is_element_size(e) {
            sizes.push(e);
        } else {
            others.push(e);
        }
    }
    if sizes.len() != 1 || others.is_empty() {
        return None;
    }
    let mut effect = false;
    for first in &others {
        first.walk(&mut |x: &Expr| {
            effect |= matches!(
                x.kind,
                ExprKind::Call(..)
                    | ExprKind::Assign(..)
                    | ExprKind::Update(..)
                    | ExprKind::Comma(..)
            );
        });
    }
    (!effect).then(|| others.into_iter().cloned().collect())
}
