//! Guards of the architecture that `docs/architecture.md` describes. They
//! read the repository's own files:
//! - every path and every `module::item` the document names exists;
//! - no files of one source directory import each other in a cycle (a
//!   sub-directory counts as one node, `#[cfg(test)] mod` blocks are not
//!   counted: tests may reach anywhere);
//! - no function is longer than 200 lines.
//!
//! The scanner is lexical (comments, strings and characters blanked, then
//! `use` trees and `a::b` paths read); it needs no parser and errs on the
//! side of seeing an import where a name merely looks like a path.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The longest a function may be, in lines from `fn` to its closing brace.
const MAX_FUNCTION_LINES: usize = 200;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The Rust files under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// `text` with comments, string and character literals replaced by spaces;
/// newlines are kept, so line numbers stay right.
fn blank(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let keep = |out: &mut String, ch: char| out.push(if ch == '\n' { '\n' } else { ' ' });
    while i < c.len() {
        let at = |k: usize| c.get(k).copied().unwrap_or('\0');
        if c[i] == '/' && at(i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
                out.push(' ');
            }
        } else if c[i] == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if c[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    keep(&mut out, c[i]);
                    i += 1;
                }
            }
        } else if c[i] == 'r'
            && (at(i + 1) == '"' || at(i + 1) == '#')
            && (i == 0 || !(c[i - 1].is_alphanumeric() || c[i - 1] == '_'))
            && {
                let mut k = i + 1;
                while at(k) == '#' {
                    k += 1;
                }
                at(k) == '"'
            }
        {
            let mut hashes = 0;
            i += 1;
            while c[i] == '#' {
                hashes += 1;
                i += 1;
            }
            i += 1;
            out.push_str(&" ".repeat(hashes + 2));
            while i < c.len() {
                if c[i] == '"' && (1..=hashes).all(|h| at(i + h) == '#') {
                    out.push_str(&" ".repeat(hashes + 1));
                    i += hashes + 1;
                    break;
                }
                keep(&mut out, c[i]);
                i += 1;
            }
        } else if c[i] == '"' {
            out.push(' ');
            i += 1;
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < c.len() {
                    keep(&mut out, c[i]);
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c[i] == '\'' && (at(i + 2) == '\'' || (at(i + 1) == '\\' && at(i + 1) != '\0')) {
            // A character literal (a lifetime `'a` has no closing quote).
            out.push(' ');
            i += 1;
            if c[i] == '\\' {
                while i < c.len() && c[i] != '\'' {
                    out.push(' ');
                    i += 1;
                    if c[i - 1] == '\\' && i < c.len() {
                        out.push(' ');
                        i += 1;
                    }
                }
            } else {
                out.push(' ');
                i += 1;
            }
            out.push(' ');
            i += 1;
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// The part of a blanked file before its first `#[cfg(test)] mod`.
fn without_tests(blanked: &str) -> &str {
    let mut from = 0;
    while let Some(k) = blanked[from..].find("#[cfg(test)]") {
        let at = from + k;
        let rest = blanked[at + "#[cfg(test)]".len()..].trim_start();
        let rest = rest.strip_prefix("pub").map_or(rest, |r| {
            let r = r.trim_start();
            match r.strip_prefix('(') {
                Some(r) => r.split_once(')').map_or(r, |(_, r)| r),
                None => r,
            }
        });
        if rest.trim_start().starts_with("mod ") {
            return &blanked[..at];
        }
        from = at + 1;
    }
    blanked
}

/// The module paths of the files of one crate root (`src` of a package):
/// `src/a/mod.rs` and `src/a.rs` are `["a"]`, `src/lib.rs` is `[]`.
/// `main.rs` and `bin/` are other crates and are left out.
fn modules(root: &Path) -> BTreeMap<Vec<String>, PathBuf> {
    let mut out = BTreeMap::new();
    for p in rust_files(root) {
        let rel = p.strip_prefix(root).unwrap().with_extension("");
        let mut path: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if path == ["main"] || path.first().is_some_and(|f| f == "bin") {
            continue;
        }
        if path.last().is_some_and(|l| l == "mod" || l == "lib") {
            path.pop();
        }
        out.insert(path, p);
    }
    out
}

/// The paths of a `use` tree, e.g. `a::{b, c::{d as e}}` gives `a::b`, `a::c::d`.
fn use_paths(tree: &str) -> Vec<Vec<String>> {
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let prefix: Vec<String> = split_path(&tree[..open]);
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let mut parts = Vec::new();
        let (mut depth, mut start) = (0, 0);
        for (k, ch) in inner.char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    parts.push(&inner[start..k]);
                    start = k + 1;
                }
                _ => {}
            }
        }
        parts.push(&inner[start..]);
        let mut out = Vec::new();
        for part in parts.into_iter().filter(|p| !p.trim().is_empty()) {
            for rest in use_paths(part) {
                out.push(prefix.iter().cloned().chain(rest).collect());
            }
        }
        return out;
    }
    let tree = tree.split(" as ").next().unwrap_or(tree);
    vec![split_path(tree)]
}

fn split_path(text: &str) -> Vec<String> {
    text.split("::")
        .map(str::trim)
        .filter(|s| !s.is_empty() && *s != "*")
        .map(String::from)
        .collect()
}

/// The module file that `segments`, written in module `here`, names.
fn resolve(
    here: &[String],
    segments: &[String],
    mods: &BTreeMap<Vec<String>, PathBuf>,
) -> Option<Vec<String>> {
    let first = segments.first()?;
    let full: Vec<String> = match first.as_str() {
        "crate" => segments[1..].to_vec(),
        "self" => here.iter().chain(&segments[1..]).cloned().collect(),
        "super" => {
            let ups = segments.iter().take_while(|s| *s == "super").count();
            let base = &here[..here.len().saturating_sub(ups)];
            base.iter().chain(&segments[ups..]).cloned().collect()
        }
        _ => {
            let mut child = here.to_vec();
            child.push(first.clone());
            if !mods.contains_key(&child) {
                return None;
            }
            here.iter().chain(segments).cloned().collect()
        }
    };
    (0..=full.len())
        .rev()
        .map(|k| full[..k].to_vec())
        .find(|m| mods.contains_key(m))
}

fn is_ident(ch: char) -> bool {
    ch.is_alphanumeric() || ch == '_'
}

/// Every module file that module `here` (whose blanked text is `text`) names.
fn imports(
    here: &[String],
    text: &str,
    mods: &BTreeMap<Vec<String>, PathBuf>,
) -> BTreeSet<Vec<String>> {
    let mut out = BTreeSet::new();
    let mut add = |segments: &[String]| {
        if let Some(m) = resolve(here, segments, mods).filter(|m| m != here) {
            out.insert(m);
        }
    };
    // `use` trees first; the rest of the text is scanned for paths.
    let mut body = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(k) = find_word(rest, "use") {
        body.push_str(&rest[..k]);
        let after = &rest[k + 3..];
        let end = after.find(';').unwrap_or(after.len());
        for segments in use_paths(after[..end].trim_start_matches([':', ' '])) {
            add(&segments);
        }
        rest = &after[(end + 1).min(after.len())..];
    }
    body.push_str(rest);
    let c: Vec<char> = body.chars().collect();
    let mut i = 0;
    while i < c.len() {
        let starts = is_ident(c[i])
            && (i == 0 || !(is_ident(c[i - 1]) || c[i - 1] == ':'))
            && !c[i].is_ascii_digit();
        if !starts {
            i += 1;
            continue;
        }
        let mut segments = Vec::new();
        loop {
            let s = i;
            while i < c.len() && is_ident(c[i]) {
                i += 1;
            }
            segments.push(c[s..i].iter().collect::<String>());
            let mut k = i;
            while k < c.len() && c[k] == ' ' {
                k += 1;
            }
            if k + 2 < c.len() && c[k] == ':' && c[k + 1] == ':' {
                k += 2;
                while k < c.len() && c[k].is_whitespace() {
                    k += 1;
                }
                if k < c.len() && is_ident(c[k]) {
                    i = k;
                    continue;
                }
            }
            break;
        }
        if segments.len() > 1 {
            add(&segments);
        }
    }
    out
}

/// The byte offset of `word` standing alone in `text`.
fn find_word(text: &str, word: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(k) = text[from..].find(word) {
        let at = from + k;
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        if !before.is_some_and(is_ident) && after.is_some_and(char::is_whitespace) {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

/// Groups of nodes of one directory (its files; a sub-directory is one
/// node) that import each other in a cycle.
fn directory_cycles(root: &Path) -> Vec<(PathBuf, Vec<String>)> {
    let mods = modules(root);
    let mut edges: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for (m, p) in &mods {
        let text = std::fs::read_to_string(p).unwrap();
        let blanked = blank(&text);
        let targets = imports(m, without_tests(&blanked), &mods);
        edges.insert(p.clone(), targets.iter().map(|t| mods[t].clone()).collect());
    }
    let dirs: BTreeSet<PathBuf> = mods
        .values()
        .map(|p| p.parent().unwrap().to_path_buf())
        .collect();
    let mut out = Vec::new();
    for dir in dirs {
        // Node of a file under `dir`: its name, or its sub-directory's.
        let node = |p: &Path| -> Option<String> {
            let rel = p.strip_prefix(&dir).ok()?;
            let mut parts = rel.components();
            let first = parts.next()?.as_os_str().to_string_lossy().into_owned();
            Some(if parts.next().is_some() {
                format!("{first}/")
            } else {
                first
            })
        };
        let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (from, targets) in &edges {
            let Some(a) = node(from) else { continue };
            let entry = graph.entry(a.clone()).or_default();
            for t in targets {
                if let Some(b) = node(t).filter(|b| *b != a) {
                    entry.insert(b);
                }
            }
        }
        for group in strongly_connected(&graph) {
            out.push((dir.clone(), group));
        }
    }
    out
}

/// The strongly connected components of more than one node (Tarjan).
fn strongly_connected(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Walk<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(w: &mut Walk<'a>, v: &'a str) {
        let n = w.index.len();
        w.index.insert(v, n);
        w.low.insert(v, n);
        w.stack.push(v);
        let graph = w.graph;
        for t in graph.get(v).into_iter().flatten() {
            let t = t.as_str();
            if !w.index.contains_key(t) {
                visit(w, t);
                let l = w.low[v].min(w.low[t]);
                w.low.insert(v, l);
            } else if w.stack.contains(&t) {
                let l = w.low[v].min(w.index[t]);
                w.low.insert(v, l);
            }
        }
        if w.low[v] == w.index[v] {
            let at = w.stack.iter().rposition(|s| *s == v).unwrap();
            let mut group: Vec<String> = w.stack.drain(at..).map(String::from).collect();
            if group.len() > 1 {
                group.sort();
                w.out.push(group);
            }
        }
    }
    let mut w = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !w.index.contains_key(v.as_str()) {
            visit(&mut w, v);
        }
    }
    w.out
}

/// Functions of `text` longer than `MAX_FUNCTION_LINES`: (name, first line, lines).
fn long_functions(text: &str) -> Vec<(String, usize, usize)> {
    let blanked = blank(text);
    let b = blanked.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = find_word(&blanked[from..], "fn").map(|k| k + from) {
        from = at + 2;
        let name: String = blanked[at + 2..]
            .trim_start()
            .chars()
            .take_while(|c| is_ident(*c))
            .collect();
        let Some(open) = blanked[at..].find(['{', ';']).map(|k| k + at) else {
            break;
        };
        if b[open] == b';' || name.is_empty() {
            continue;
        }
        let mut depth = 0usize;
        let mut close = open;
        for (k, &ch) in b.iter().enumerate().skip(open) {
            match ch {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = k;
                        break;
                    }
                }
                _ => {}
            }
        }
        let line = |k: usize| blanked[..k].matches('\n').count() + 1;
        let lines = line(close) - line(at) + 1;
        if lines > MAX_FUNCTION_LINES {
            out.push((name, line(at), lines));
        }
    }
    out
}

/// The crate roots whose files the guards read.
fn source_roots() -> Vec<PathBuf> {
    let repo = repo();
    ["src", "fuzz/src"]
        .iter()
        .map(|r| repo.join(r))
        .filter(|p| p.is_dir())
        .collect()
}

#[test]
fn no_import_cycle_between_files_of_a_directory() {
    let mut found = Vec::new();
    for root in source_roots() {
        for (dir, group) in directory_cycles(&root) {
            let dir = dir.strip_prefix(repo()).unwrap().display().to_string();
            found.push(format!("{dir}: {}", group.join(" ")));
        }
    }
    assert!(
        found.is_empty(),
        "files that import each other in a cycle:\n{}",
        found.join("\n")
    );
}

#[test]
fn no_function_over_200_lines() {
    let repo = repo();
    let mut found = Vec::new();
    for dir in ["src", "fuzz", "tests", "benches"] {
        for p in rust_files(&repo.join(dir)) {
            let text = std::fs::read_to_string(&p).unwrap();
            for (name, line, lines) in long_functions(&text) {
                let rel = p.strip_prefix(&repo).unwrap().display();
                found.push(format!("{rel}:{line}: `{name}` has {lines} lines"));
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The backticked spans of a Markdown text (code blocks left out).
fn code_spans(markdown: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fenced = false;
    for (n, line) in markdown.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut parts = line.split('`');
        parts.next();
        while let (Some(span), Some(_)) = (parts.next(), parts.next()) {
            out.push((n + 1, span.to_string()));
        }
    }
    out
}

/// Does `span` name a repository path (`src/…`, `tests/…`, `Cargo.toml`)?
fn names_path(span: &str) -> bool {
    const TOP: [&str; 11] = [
        "src/",
        "tests/",
        "docs/",
        "corpus/",
        "grammar-tests/",
        "benches/",
        "fuzz/",
        ".ci/",
        "scripts/",
        "examples/",
        "Cargo.toml",
    ];
    !span.contains(' ') && (TOP.iter().any(|t| span.starts_with(t)) || span == "README.md")
}

/// Is `item` declared in the file of module `m`? (`fn`, a type, a
/// constant, a macro or a module of that name.)
fn declares(file: &Path, item: &str) -> bool {
    let text = blank(&std::fs::read_to_string(file).unwrap());
    // A re-export (`pub use a::b::{Item}`) counts as a declaration.
    let mut rest = text.as_str();
    while let Some(k) = rest.find("pub use ") {
        let after = &rest[k + "pub use ".len()..];
        let end = after.find(';').unwrap_or(after.len());
        let tree = &after[..end];
        let aliases = tree.split(" as ").skip(1).map(|a| {
            a.trim()
                .chars()
                .take_while(|c| is_ident(*c))
                .collect::<String>()
        });
        if use_paths(tree)
            .iter()
            .any(|p| p.last().is_some_and(|l| l == item))
            || aliases.into_iter().any(|a| a == item)
        {
            return true;
        }
        rest = &after[end..];
    }
    [
        "fn",
        "struct",
        "enum",
        "trait",
        "type",
        "const",
        "static",
        "mod",
        "macro_rules!",
    ]
    .iter()
    .any(|kw| {
        let mut from = 0;
        while let Some(k) = text[from..].find(kw) {
            let at = from + k;
            from = at + kw.len();
            let before_ok = !text[..at].chars().next_back().is_some_and(is_ident);
            let rest = text[at + kw.len()..].trim_start();
            let name: String = rest.chars().take_while(|c| is_ident(*c)).collect();
            if before_ok && name == item {
                return true;
            }
        }
        false
    })
}

#[test]
fn every_path_and_item_in_the_architecture_document_exists() {
    let repo = repo();
    let doc = repo.join("docs/architecture.md");
    let text = std::fs::read_to_string(&doc).expect("docs/architecture.md exists");
    let mods = modules(&repo.join("src"));
    let mut missing = Vec::new();
    let mut checked = 0;
    for (line, span) in code_spans(&text) {
        if names_path(&span) {
            checked += 1;
            let path = span.trim_end_matches('/');
            if !repo.join(path).exists() {
                missing.push(format!(
                    "docs/architecture.md:{line}: `{span}` does not exist"
                ));
            }
            continue;
        }
        // `module::item` spans, written from the crate root (`pipeline::run`).
        let segments: Vec<String> = span.split("::").map(String::from).collect();
        let plain = segments.len() > 1
            && segments
                .iter()
                .all(|s| !s.is_empty() && s.chars().all(is_ident));
        if !plain || !mods.contains_key(&segments[..1]) {
            continue;
        }
        checked += 1;
        let found = if mods.contains_key(&segments) {
            true
        } else {
            let (item, module) = segments.split_last().unwrap();
            mods.get(module).is_some_and(|file| declares(file, item))
        };
        if !found {
            missing.push(format!(
                "docs/architecture.md:{line}: `{span}` names nothing"
            ));
        }
    }
    assert!(checked >= 20, "only {checked} paths and items checked");
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

mod checks_of_the_checks {
    use super::*;

    #[test]
    fn blanking_keeps_lines_and_hides_strings_and_comments() {
        let text = "let a = \"x::y { \"; // crate::z\nlet c = '{'; /* { */ 'a: loop {}\n";
        let b = blank(text);
        assert_eq!(b.lines().count(), text.lines().count());
        assert!(!b.contains("x::y") && !b.contains("crate::z"));
        assert_eq!(b.matches('{').count(), 1);
        assert!(b.contains("'a: loop"));
    }

    #[test]
    fn a_long_function_is_found_and_a_short_one_is_not() {
        let body = "    x += 1;\n".repeat(MAX_FUNCTION_LINES - 2);
        let ok = format!("fn fits() {{\n{body}}}\n");
        assert!(long_functions(&ok).is_empty());
        let long = format!("fn too_long() {{\n{body}    x += 1;\n}}\n");
        let found = long_functions(&long);
        assert_eq!(
            found,
            vec![("too_long".to_string(), 1, MAX_FUNCTION_LINES + 1)]
        );
    }

    #[test]
    fn use_trees_expand() {
        let got = use_paths("crate::a::{b, c::{d as e, f}, *}");
        let want: Vec<Vec<String>> = [vec!["crate", "a", "b"], vec!["crate", "a", "c", "d"]]
            .into_iter()
            .chain([vec!["crate", "a", "c", "f"], vec!["crate", "a"]])
            .map(|v| v.into_iter().map(String::from).collect())
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn a_cycle_in_a_temporary_tree_is_found() {
        let dir = std::env::temp_dir().join(format!("polyfold-arch-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("a/b")).unwrap();
        let write = |p: &str, t: &str| std::fs::write(dir.join(p), t).unwrap();
        write("lib.rs", "mod a;\n");
        write("a/mod.rs", "mod b;\nmod c;\npub use b::B;\n");
        write("a/b/mod.rs", "use super::c::C;\npub struct B;\n");
        write("a/c.rs", "pub struct C;\nfn f() { let _ = super::b::B; }\n");
        let found = directory_cycles(&dir);
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].1, vec!["b/".to_string(), "c.rs".to_string()]);
    }

    #[test]
    fn a_named_item_must_be_declared_or_re_exported() {
        let poly = repo().join("src/poly/mod.rs");
        assert!(declares(&poly, "Budget"), "re-exported by `pub use`");
        assert!(declares(&repo().join("src/poly/budget.rs"), "Budget"));
        assert!(!declares(&poly, "NoSuchItem"));
        assert!(names_path("src/poly/mod.rs") && names_path("Cargo.toml"));
        assert!(!names_path("poly::Budget") && !names_path("src/ a"));
    }
}
