//! Heap buffers of a function: a local pointer initialised with fresh
//! memory from `malloc`, `calloc` or `aligned_alloc` and used only through
//! subscripts (and `free`) is an array with the extents of its
//! allocation. Its declarator is rewritten here, before scopes are built,
//! into the array it stands for (`double (*t)[m] = malloc(n * sizeof *t)`
//! reads as `t[n][m]`; `double *u = malloc(n * sizeof *u)` as `u[n]`),
//! with [`HeapBuffer::Array`] saying which texts size it: the factor of
//! the size (`n`) for the first extent, the row type's extents for the
//! others (`sizeof *t` follows them). A new layout keeps the declarator
//! and the rank, and changes those texts (see `codegen::plan`).
//!
//! The sizes read are `malloc(E * sizeof *t)`, `calloc(E, sizeof *t)` and
//! `aligned_alloc(A, E * sizeof *t)` in any order of the factors,
//! `sizeof(*t)`, `sizeof(T[E][m]...)` with the rows' extents `[m]...`
//! and, for a pointer to elements, `sizeof(T)` of its element type; `E`
//! is any expression without side effects.
//!
//! A pointer to elements sized by two factors (`sizeof(double) * h * w`)
//! and indexed only `t[y * w + x]` (also `t[w * y + x]`, `t[x + y * w]`;
//! `w` one of the factors as written, `y` and `x` sub-expressions) is
//! linearised: it reads as `t[h][w]`, its subscripts as `t[y][x]`. That
//! is the same cell only when `0 <= x < w`: `frontend::extract` proves it
//! on every statement's domain, and reads the file again with the buffer
//! refused when it cannot.
//!
//! The pointer keeps its layout (and stays a pointer, which polyfold does
//! not model) in every other case, and the reason goes with the
//! diagnostic of its accesses: its address is stored or passed to a
//! function, it is `realloc`ed, moved by pointer arithmetic, read as a
//! row, its size is of another form, or a linearised subscript does not
//! split.
//!
//! What it does not do: pointers assigned after their declaration
//! (`posix_memalign`), buffers of another function.

use std::collections::HashMap;
use std::ops::Range;

use super::alloc::{
    Use, allocation, is_free_of, line_of, most_telling, size_factors, sizeof_row_spans, walk_stmts,
    what_use,
};
use super::syntax::{
    BinOp, CStmt, Decl, Declarator, Expr, ExprKind, ForInit, HeapBuffer, SyntaxFile,
};

/// A heap buffer found in a function: the buffer and, when modelled, the
/// extents to give its declarator (the first one; both of a linearised
/// buffer) with their texts, and a linearised buffer's row extent as
/// written (see [`split_row`]).
struct Marked {
    heap: HeapBuffer,
    extents: Vec<(Expr, String)>,
    row: Option<String>,
}

/// The heap buffers found in a function, by the start of their name.
type Found = HashMap<usize, Marked>;

/// Buffers that must keep their layout although they read as arrays, by
/// function and name, with why: a linearised buffer whose row subscript
/// is not proven within its row (see `frontend::extract`).
pub(crate) type Refusals = HashMap<(String, String), String>;

/// Marks the heap buffers of every function of `file` (`source`: its
/// text): each local pointer initialised by an allocation gets its
/// [`Declarator::heap`], and those modelled as arrays their extents; the
/// subscripts of a linearised one are split (`t[y * w + x]` reads as
/// `t[y][x]`). Those of `refused` are refused with their reason.
pub(crate) fn mark(file: &mut SyntaxFile, source: &str, refused: &Refusals) {
    for f in file.functions.iter_mut() {
        let mut found: Found = HashMap::new();
        let mut names: HashMap<String, usize> = HashMap::new();
        walk_stmts(&f.body, &mut |s: &CStmt| {
            if let CStmt::Decl { decl, .. } = s {
                for dc in &decl.declarators {
                    *names.entry(dc.name.clone()).or_default() += 1;
                }
            }
        });
        let mut linear: Vec<(String, usize, String)> = Vec::new();
        walk_stmts(&f.body, &mut |s: &CStmt| {
            let CStmt::Decl { decl, span } = s else {
                return;
            };
            for dc in &decl.declarators {
                if names.get(&dc.name) != Some(&1) {
                    continue;
                }
                let Some(mut marked) = examine(source, &f.body, (decl, span, dc)) else {
                    continue;
                };
                if let Some(why) = refused.get(&(f.name.clone(), dc.name.clone())) {
                    marked = Marked {
                        heap: HeapBuffer::Refused(why.clone()),
                        extents: Vec::new(),
                        row: None,
                    };
                }
                if let Some(row) = &marked.row {
                    linear.push((dc.name.clone(), span.end, row.clone()));
                }
                found.insert(dc.name_span.start, marked);
            }
        });
        if found.is_empty() {
            continue;
        }
        apply(&mut f.body, &mut found);
        for (name, after, row) in linear {
            each_root_expr(&mut f.body, &mut |e: &mut Expr| {
                if e.span.start >= after {
                    delinearise(e, source, (&name, &row));
                }
            });
        }
    }
}

/// Gives the declarators of `found` their heap buffer, and the modelled
/// ones their extents.
fn apply(s: &mut CStmt, found: &mut Found) {
    match s {
        CStmt::Decl { decl, .. } => {
            for dc in decl.declarators.iter_mut() {
                if let Some(marked) = found.remove(&dc.name_span.start) {
                    if !marked.extents.is_empty() {
                        for (k, (e, text)) in marked.extents.into_iter().enumerate() {
                            dc.dims.insert(k, (Some(e), text));
                        }
                        dc.is_pointer = false;
                        dc.points_to_rows = false;
                    }
                    dc.heap = Some(marked.heap);
                }
            }
        }
        CStmt::For { body, .. } => apply(body, found),
        CStmt::If { then, els, .. } => {
            apply(then, found);
            if let Some(e) = els {
                apply(e, found);
            }
        }
        CStmt::Compound { items, .. } => items.iter_mut().for_each(|i| apply(i, found)),
        CStmt::Other { children, .. } => children.iter_mut().for_each(|i| apply(i, found)),
        CStmt::Expr { .. } | CStmt::Empty { .. } | CStmt::Preproc { .. } => {}
    }
}

/// Calls `f` on every expression of `s` and its sub-statements,
/// sub-expressions first.
fn each_root_expr(s: &mut CStmt, f: &mut dyn FnMut(&mut Expr)) {
    let decl = |d: &mut Decl, f: &mut dyn FnMut(&mut Expr)| {
        for dc in d.declarators.iter_mut() {
            for e in dc.dims.iter_mut().filter_map(|(e, _)| e.as_mut()) {
                each_expr(e, f);
            }
            if let Some(e) = dc.init.as_mut() {
                each_expr(e, f);
            }
        }
    };
    match s {
        CStmt::For {
            init,
            cond,
            update,
            body,
            ..
        } => {
            match init {
                ForInit::Expr(e) => each_expr(e, f),
                ForInit::Decl(d) => decl(d, f),
                ForInit::None => {}
            }
            for e in [cond, update].into_iter().flatten() {
                each_expr(e, f);
            }
            each_root_expr(body, f);
        }
        CStmt::If {
            cond, then, els, ..
        } => {
            each_expr(cond, f);
            each_root_expr(then, f);
            if let Some(e) = els {
                each_root_expr(e, f);
            }
        }
        CStmt::Compound { items, .. } => items.iter_mut().for_each(|i| each_root_expr(i, f)),
        CStmt::Expr { expr, .. } => each_expr(expr, f),
        CStmt::Decl { decl: d, .. } => decl(d, f),
        CStmt::Other {
            exprs, children, ..
        } => {
            exprs.iter_mut().for_each(|e| each_expr(e, f));
            children.iter_mut().for_each(|c| each_root_expr(c, f));
        }
        CStmt::Empty { .. } | CStmt::Preproc { .. } => {}
    }
}

/// Calls `f` on `e` and every sub-expression, children first.
fn each_expr(e: &mut Expr, f: &mut dyn FnMut(&mut Expr)) {
    e.children_mut(|c| each_expr(c, f));
    f(e);
}

/// `name[a * row + b]` becomes `name[a][b]` (the inner subscript spans
/// the whole reference, as the outer one does).
fn delinearise(e: &mut Expr, source: &str, (name, row): (&str, &str)) {
    let ExprKind::Subscript(base, index) = &e.kind else {
        return;
    };
    if !matches!(&base.kind, ExprKind::Ident(n) if n == name) || base.from_macro {
        return;
    }
    let Some((a, b)) = split_row(source, index, row) else {
        return;
    };
    let inner = Expr {
        kind: ExprKind::Subscript(base.clone(), Box::new(a.clone())),
        span: e.span.clone(),
        from_macro: false,
    };
    e.kind = ExprKind::Subscript(Box::new(inner), Box::new(b.clone()));
}

/// The text of `e` without blanks and outer parentheses (how a row
/// factor is compared).
pub(crate) fn bare(source: &str, e: &Expr) -> String {
    let mut t: String = source
        .get(e.span.clone())
        .unwrap_or("")
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    while t.starts_with('(') && t.ends_with(')') && balanced(&t[1..t.len() - 1]) {
        t = t[1..t.len() - 1].to_string();
    }
    t
}

/// Whether the parentheses of `t` balance.
fn balanced(t: &str) -> bool {
    let mut depth = 0i64;
    for c in t.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        if depth < 0 {
            return false;
        }
    }
    depth == 0
}

/// The row and column of a linearised subscript `a * row + b` (also
/// `row * a + b`, `b + a * row`, `b + row * a`), `row` compared as
/// written (blanks and outer parentheses aside): `a` and `b` are
/// sub-expressions of `e`, so their spans are texts of the source.
fn split_row<'e>(source: &str, e: &'e Expr, row: &str) -> Option<(&'e Expr, &'e Expr)> {
    let ExprKind::Binary(BinOp::Add, l, r) = &e.kind else {
        return None;
    };
    if e.from_macro {
        return None;
    }
    let times = |m: &'e Expr| -> Option<&'e Expr> {
        let ExprKind::Binary(BinOp::Mul, a, b) = &m.kind else {
            return None;
        };
        if bare(source, b) == row {
            Some(a)
        } else if bare(source, a) == row {
            Some(b)
        } else {
            None
        }
    };
    if let Some(a) = times(l) {
        return Some((a, r));
    }
    times(r).map(|a| (a, &**l))
}

/// The heap buffer that declarator `dc` of `decl` (the declaration at
/// `span` in function body `body`) holds, with the extents to give it
/// when it is modelled; `None` when it is not a pointer initialised by
/// an allocation.
fn examine(
    source: &str,
    body: &CStmt,
    (decl, span, dc): (&Decl, &Range<usize>, &Declarator),
) -> Option<Marked> {
    if !dc.is_pointer
        || dc.is_function
        || dc.from_macro
        || !(dc.dims.is_empty() || dc.points_to_rows)
        || decl.has_qualifier("static")
    {
        return None;
    }
    let (allocator, args) = allocation(dc.init.as_ref()?)?;
    let refused = |why: String| {
        Some(Marked {
            heap: HeapBuffer::Refused(why),
            extents: Vec::new(),
            row: None,
        })
    };
    let factors = size_factors(source, (allocator, args), decl, dc).unwrap_or_default();
    let linear = factors.len() == 2 && dc.dims.is_empty();
    if factors.len() != 1 && !linear {
        return refused(format!(
            "its size `{}` is not `n * sizeof *{}`, `calloc(n, sizeof *{})` or `h * w * sizeof *{}` indexed `[y * w + x]`",
            source
                .get(dc.init.as_ref()?.span.clone())
                .unwrap_or("")
                .trim(),
            dc.name,
            dc.name,
            dc.name
        ));
    }
    let rank = dc.dims.len() + 1;
    // Every occurrence of the name: the declaration, a subscript of full
    // rank, a `free`.
    let mut subscripts: HashMap<usize, usize> = HashMap::new();
    let mut indices: Vec<&Expr> = Vec::new();
    body.walk_exprs(&mut |e: &Expr| {
        let mut depth = 0;
        let mut cur = e;
        while let ExprKind::Subscript(base, _) = &cur.kind {
            depth += 1;
            cur = base;
        }
        if depth > 0
            && let ExprKind::Ident(n) = &cur.kind
            && *n == dc.name
        {
            let d = subscripts.entry(cur.span.start).or_default();
            *d = (*d).max(depth);
            if let (1, ExprKind::Subscript(_, index)) = (depth, &e.kind) {
                indices.push(index);
            }
        }
    });
    // A linearised buffer: the factor of its size that every subscript
    // multiplies (the last one first).
    let mut extents = factors.clone();
    let mut row = None;
    if linear {
        let fits = |f: &Expr| {
            let text = bare(source, f);
            indices
                .iter()
                .all(|i| split_row(source, i, &text).is_some())
                .then_some(text)
        };
        if let Some(text) = fits(&factors[1]) {
            row = Some(text);
        } else if let Some(text) = fits(&factors[0]) {
            row = Some(text);
            extents.swap(0, 1);
        } else {
            let odd = indices
                .iter()
                .find(|i| {
                    split_row(source, i, &bare(source, &factors[1])).is_none()
                        && split_row(source, i, &bare(source, &factors[0])).is_none()
                })
                .map_or(String::new(), |i| {
                    format!(
                        "`{}` at line {}",
                        source.get(i.span.clone()).unwrap_or("").trim(),
                        line_of(source, i.span.start)
                    )
                });
            return refused(format!(
                "its subscript {odd} is not `y * w + x` with `w` a factor of its size"
            ));
        }
    }
    let mut frees = Vec::new();
    walk_stmts(body, &mut |s: &CStmt| {
        if let CStmt::Expr { expr, span } = s
            && is_free_of(expr, &dc.name)
        {
            frees.push(span.clone());
        }
    });
    let text = source.get(body.span())?;
    let mut escapes: Vec<(Use, String)> = Vec::new();
    for (at, n) in crate::util::c_text::identifier_tokens(text, true) {
        let at = body.span().start + at;
        if n != dc.name || at == dc.name_span.start {
            continue;
        }
        // `sizeof *t` in its own size.
        let in_size = dc
            .init
            .as_ref()
            .is_some_and(|e| e.span.start <= at && at < e.span.end);
        let in_free = in_size || frees.iter().any(|r| r.start <= at && at < r.end);
        let full = subscripts.get(&at) == Some(&rank);
        if in_free || full {
            continue;
        }
        let how = if subscripts.contains_key(&at) {
            Use::Row
        } else {
            what_use(body, (&dc.name, at), &|_| false)
        };
        let why = format!("it is {how} at line {}", line_of(source, at));
        escapes.push((how, why));
    }
    if let Some(why) = most_telling(escapes) {
        return refused(why);
    }
    let mut dims: Vec<Vec<Range<usize>>> = extents.iter().map(|e| vec![e.span.clone()]).collect();
    dims.extend(
        dc.dims
            .iter()
            .map(|(e, _)| e.iter().map(|e| e.span.clone()).collect()),
    );
    // `sizeof(double[n][m])` spells the rows' extents too.
    if let (Some(init), [first, ..]) = (dc.init.as_ref(), extents.as_slice()) {
        for (d, span) in sizeof_row_spans(init, first).into_iter().enumerate() {
            if let Some(spans) = dims.get_mut(d + 1) {
                spans.push(span);
            }
        }
    }
    let extents = extents
        .into_iter()
        .map(|e| {
            let text = source.get(e.span.clone()).unwrap_or("").trim().to_string();
            (e, text)
        })
        .collect();
    Some(Marked {
        heap: HeapBuffer::Array {
            span: span.clone(),
            dims,
            frees,
            allocator: allocator.to_string(),
            linear: row.is_some(),
            declared: false,
        },
        extents,
        row,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The heap buffer of `name` in the first function of `source`.
    fn heap_of(source: &str, name: &str) -> Option<(HeapBuffer, Vec<String>)> {
        let mut file = super::super::syntax::parse_file(source).expect("parses");
        mark(&mut file, source, &Refusals::new());
        let mut out = None;
        walk_stmts(&file.functions[0].body, &mut |s: &CStmt| {
            if let CStmt::Decl { decl, .. } = s {
                for dc in &decl.declarators {
                    if dc.name == name {
                        let dims = dc
                            .dims
                            .iter()
                            .map(|(e, _)| {
                                e.as_ref()
                                    .map_or(String::new(), |e| source[e.span.clone()].to_string())
                            })
                            .collect();
                        out = dc.heap.clone().map(|h| (h, dims));
                    }
                }
            }
        });
        out
    }

    const USE: &str = "for (int i = 0; i < n; i++) for (int j = 0; j < m; j++) t[i][j] = i * j;";

    #[test]
    fn pointers_to_rows_and_to_elements_become_arrays() {
        for (decl, dims) in [
            ("double (*t)[m] = malloc(n * sizeof *t);", vec!["n", "m"]),
            (
                "double (*t)[m] = (double (*)[m])malloc(sizeof(*t) * (n + 1));",
                vec!["(n + 1)", "m"],
            ),
            ("double (*t)[m] = calloc(n, sizeof *t);", vec!["n", "m"]),
            // `sizeof(T[n][m])`: `n` rows of the pointer's row type.
            (
                "double (*t)[m] = malloc(sizeof(double[n][m]));",
                vec!["n", "m"],
            ),
            (
                "double (*t)[m] = malloc(sizeof(double [n + 1][ m ]));",
                vec!["n + 1", "m"],
            ),
        ] {
            let src =
                format!("#include <stdlib.h>\nvoid f(int n, int m) {{ {decl} {USE} free(t); }}\n");
            let (heap, got) = heap_of(&src, "t").expect(decl);
            assert_eq!(got, dims, "{decl}");
            let HeapBuffer::Array {
                dims: sites, frees, ..
            } = heap
            else {
                panic!("{decl}: refused: {heap:?}");
            };
            assert_eq!(sites.len(), 2);
            assert_eq!(frees.len(), 1);
        }
        for alloc in [
            "malloc(sizeof(double) * n)",
            "aligned_alloc(64, n * sizeof *u)",
        ] {
            let src = format!(
                "#include <stdlib.h>\nvoid f(int n) {{ double *u = {alloc}; for (int i = 0; i < n; i++) u[i] = i; free(u); }}\n"
            );
            let (heap, got) = heap_of(&src, "u").expect("u");
            assert_eq!(got, vec!["n"], "{alloc}");
            assert!(matches!(heap, HeapBuffer::Array { .. }), "{alloc}");
        }
    }

    /// The texts of the subscripts of every access to `name` in the first
    /// function, outermost first.
    fn subscripts_of(source: &str, name: &str) -> Vec<Vec<String>> {
        let mut file = super::super::syntax::parse_file(source).expect("parses");
        mark(&mut file, source, &Refusals::new());
        let mut out = Vec::new();
        file.functions[0].body.walk_exprs(&mut |e: &Expr| {
            let mut subs = Vec::new();
            let mut cur = e;
            while let ExprKind::Subscript(base, index) = &cur.kind {
                subs.insert(0, source[index.span.clone()].to_string());
                cur = base;
            }
            if matches!(&cur.kind, ExprKind::Ident(n) if n == name) && !subs.is_empty() {
                out.push(subs);
            }
        });
        out.retain(|s| s.len() == 2);
        out
    }

    #[test]
    fn a_linearised_buffer_reads_as_rows_of_the_factor_its_subscripts_multiply() {
        for (decl, index, dims, split) in [
            (
                "float *t = malloc(sizeof(float) * h * w);",
                "y * w + x",
                ["h", "w"],
                ["y", "x"],
            ),
            (
                "float *t = calloc(h * w, sizeof *t);",
                "x + w * y",
                ["h", "w"],
                ["y", "x"],
            ),
            // The row is the factor the subscripts multiply, wherever it
            // sits in the size.
            (
                "float *t = malloc(w * h * sizeof(float));",
                "y * w + x",
                ["h", "w"],
                ["y", "x"],
            ),
            (
                "float *t = malloc(sizeof(float) * h * w);",
                "x * h + y",
                ["w", "h"],
                ["x", "y"],
            ),
            (
                "float *t = malloc(sizeof(float) * (h + 2) * (w + 1));",
                "(y + 1) * (w + 1) + x",
                ["(h + 2)", "(w + 1)"],
                ["(y + 1)", "x"],
            ),
        ] {
            let src = format!(
                "#include <stdlib.h>\nvoid f(int h, int w) {{ {decl} for (int y = 0; y < h; y++) for (int x = 0; x < w; x++) t[{index}] = x; free(t); }}\n"
            );
            let (heap, got) = heap_of(&src, "t").expect(decl);
            assert_eq!(got, dims, "{decl}");
            assert!(
                matches!(heap, HeapBuffer::Array { linear: true, .. }),
                "{decl}: {heap:?}"
            );
            assert_eq!(subscripts_of(&src, "t"), vec![split.to_vec()], "{decl}");
        }
    }

    #[test]
    fn a_linearised_buffer_with_another_subscript_keeps_the_pointer() {
        for (uses, says) in [
            ("t[y * w + x] = x; t[x] = y;", "its subscript `x`"),
            ("t[y * n + x] = x;", "its subscript `y * n + x`"),
            ("t[y * w - x] = x;", "its subscript `y * w - x`"),
        ] {
            let src = format!(
                "#include <stdlib.h>\nvoid f(int h, int w, int n) {{ float *t = malloc(sizeof(float) * h * w); for (int y = 0; y < h; y++) for (int x = 0; x < w; x++) {{ {uses} }} free(t); }}\n"
            );
            let (heap, _) = heap_of(&src, "t").expect(uses);
            let HeapBuffer::Refused(why) = heap else {
                panic!("{uses}: modelled");
            };
            assert!(why.contains(says), "{uses}: {why}");
        }
    }

    #[test]
    fn escapes_and_unread_sizes_keep_the_pointer_and_say_why() {
        for (body, says) in [
            (
                "double (*t)[m] = malloc(n * sizeof *t); keep = t; USE free(t);",
                "stored",
            ),
            (
                "double (*t)[m] = malloc(n * sizeof *t); USE g(t); free(t);",
                "passed to `g`",
            ),
            (
                "double (*t)[m] = malloc(n * sizeof *t); USE t = realloc(t, 2 * n * sizeof *t); free(t);",
                "`realloc`ed",
            ),
            (
                "double (*t)[m] = malloc(n * sizeof *t); USE double *p = t[1]; free(t);",
                "read as a row",
            ),
            (
                "double (*t)[m] = malloc(n * sizeof *t); t++; USE free(t);",
                "pointer arithmetic",
            ),
            ("double (*t)[m] = malloc(size()); USE free(t);", "its size"),
            (
                "double (*t)[m] = malloc(n * m * sizeof(double)); USE free(t);",
                "its size",
            ),
            // Rows of another extent than the pointer's row type.
            (
                "double (*t)[m] = malloc(sizeof(double[n][n])); USE free(t);",
                "its size",
            ),
            (
                "double (*t)[m] = malloc(sizeof(float[n][m])); USE free(t);",
                "its size",
            ),
        ] {
            let src = format!(
                "#include <stdlib.h>\nvoid *keep;\nvoid g(void *);\nunsigned long size(void);\nvoid f(int n, int m) {{ {} }}\n",
                body.replace("USE", USE)
            );
            let (heap, _) = heap_of(&src, "t").expect(body);
            let HeapBuffer::Refused(why) = heap else {
                panic!("{body}: modelled");
            };
            assert!(why.contains(says), "{body}: {why}");
        }
    }
}
