//! Heap buffers of a function: a local pointer initialised with fresh
//! memory from `malloc` or `calloc` and used only through subscripts (and
//! `free`) is an array with the extents of its allocation. Its declarator
//! is rewritten here, before scopes are built, into the array it stands
//! for (`double (*t)[m] = malloc(n * sizeof *t)` reads as `t[n][m]`; `double
//! *u = malloc(n * sizeof *u)` as `u[n]`), with [`HeapBuffer::Array`]
//! saying which texts size it: the factor of the size (`n`) for the first
//! extent, the row type's extents for the others (`sizeof *t` follows
//! them). A new layout keeps the declarator and the rank, and changes
//! those texts (see `codegen::plan`).
//!
//! The sizes read are `malloc(E * sizeof *t)` and `calloc(E, sizeof *t)`
//! in any order of the factors, `sizeof(*t)` and, for a pointer to
//! elements, `sizeof(T)` of its element type; `E` is any expression
//! without side effects. The pointer keeps its layout (and stays a
//! pointer, which polyfold does not model) in every other case, and the
//! reason goes with the diagnostic of its accesses: its address is
//! stored or passed to a function, it is `realloc`ed, moved by pointer
//! arithmetic, read as a row, or its size is of another form.
//!
//! What it does not do: pointers assigned after their declaration,
//! linearised subscripts (`t[i * m + j]`), buffers of another function.

use std::collections::HashMap;
use std::ops::Range;

use super::alloc::{
    Use, allocation, first_extent, is_free_of, line_of, most_telling, walk_stmts, what_use,
};
use super::syntax::{CStmt, Decl, Declarator, Expr, ExprKind, HeapBuffer, SyntaxFile};

/// The heap buffers found in a function, by the start of their name: the
/// buffer and, when modelled, its first extent and that extent's text.
type Found = HashMap<usize, (HeapBuffer, Option<(Expr, String)>)>;

/// Marks the heap buffers of every function of `file` (`source`: its
/// text): each local pointer initialised by an allocation gets its
/// [`Declarator::heap`], and those modelled as arrays their extents.
pub(crate) fn mark(file: &mut SyntaxFile, source: &str) {
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
        walk_stmts(&f.body, &mut |s: &CStmt| {
            let CStmt::Decl { decl, span } = s else {
                return;
            };
            for dc in &decl.declarators {
                if names.get(&dc.name) != Some(&1) {
                    continue;
                }
                if let Some((heap, first)) = examine(source, &f.body, (decl, span, dc)) {
                    let first = first.map(|e| {
                        let text = source.get(e.span.clone()).unwrap_or("").trim().to_string();
                        (e, text)
                    });
                    found.insert(dc.name_span.start, (heap, first));
                }
            }
        });
        if found.is_empty() {
            continue;
        }
        apply(&mut f.body, &mut found);
    }
}

/// Gives the declarators of `found` their heap buffer, and the modelled
/// ones their first extent.
fn apply(s: &mut CStmt, found: &mut Found) {
    match s {
        CStmt::Decl { decl, .. } => {
            for dc in decl.declarators.iter_mut() {
                if let Some((heap, first)) = found.remove(&dc.name_span.start) {
                    if let Some((e, text)) = first {
                        dc.dims.insert(0, (Some(e), text));
                        dc.is_pointer = false;
                        dc.points_to_rows = false;
                    }
                    dc.heap = Some(heap);
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

/// The heap buffer that declarator `dc` of `decl` (the declaration at
/// `span` in function body `body`) holds, with its first extent when it
/// is modelled; `None` when it is not a pointer initialised by an
/// allocation.
fn examine(
    source: &str,
    body: &CStmt,
    (decl, span, dc): (&Decl, &Range<usize>, &Declarator),
) -> Option<(HeapBuffer, Option<Expr>)> {
    if !dc.is_pointer
        || dc.is_function
        || dc.from_macro
        || !(dc.dims.is_empty() || dc.points_to_rows)
        || decl.has_qualifier("static")
    {
        return None;
    }
    let (allocator, args) = allocation(dc.init.as_ref()?)?;
    let refused = |why: String| Some((HeapBuffer::Refused(why), None));
    let Some(first) = first_extent(source, (allocator, args), decl, dc) else {
        return refused(format!(
            "its size `{}` is not `n * sizeof *{}` or `calloc(n, sizeof *{})`",
            source
                .get(dc.init.as_ref()?.span.clone())
                .unwrap_or("")
                .trim(),
            dc.name,
            dc.name
        ));
    };
    let rank = dc.dims.len() + 1;
    // Every occurrence of the name: the declaration, a subscript of full
    // rank, a `free`.
    let mut subscripts: HashMap<usize, usize> = HashMap::new();
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
        }
    });
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
    let mut dims = vec![vec![first.span.clone()]];
    dims.extend(
        dc.dims
            .iter()
            .map(|(e, _)| e.iter().map(|e| e.span.clone()).collect()),
    );
    Some((
        HeapBuffer::Array {
            span: span.clone(),
            dims,
            frees,
            allocator: allocator.to_string(),
        },
        Some(first),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The heap buffer of `name` in the first function of `source`.
    fn heap_of(source: &str, name: &str) -> Option<(HeapBuffer, Vec<String>)> {
        let mut file = super::super::syntax::parse_file(source).expect("parses");
        mark(&mut file, source);
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
        let src = "#include <stdlib.h>\nvoid f(int n) { double *u = malloc(sizeof(double) * n); for (int i = 0; i < n; i++) u[i] = i; free(u); }\n";
        let (heap, got) = heap_of(src, "u").expect("u");
        assert_eq!(got, vec!["n"]);
        assert!(matches!(heap, HeapBuffer::Array { .. }));
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
