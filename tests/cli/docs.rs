//! The user documentation: `docs/cli.md` is what the clap declaration
//! generates, the README stays a short guide, and every link of the
//! README, `CHANGELOG.md` and `docs/*.md` leads somewhere.

use std::collections::BTreeSet;
use std::path::PathBuf;

use crate::common::snapshot::assert_snapshot;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `docs/cli.md` is the generated reference (`POLYFOLD_BLESS=1` rewrites
/// it after a change of `src/cli.rs`).
#[test]
fn cli_md_is_generated_from_the_clap_declaration() {
    assert_snapshot(
        &repo().join("docs/cli.md"),
        &polyfold::cli_doc::reference_markdown(),
    );
}

/// Issue 50: the README is a user guide of at most 300 lines.
#[test]
fn readme_is_at_most_300_lines() {
    let text = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let lines = text.lines().count();
    assert!(lines <= 300, "README.md has {lines} lines (at most 300)");
    assert!(lines > 50, "README.md has only {lines} lines");
}

/// The README's two commands are what `.ci/run` runs (the test command)
/// and a run on a corpus kernel.
#[test]
fn readme_test_command_is_what_ci_runs() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let ci = std::fs::read_to_string(repo().join(".ci/run")).unwrap();
    let section = readme
        .split("## Two commands")
        .nth(1)
        .expect("README.md has a `## Two commands` section");
    let block = section.split("```").nth(1).expect("a code block");
    let commands: Vec<&str> = block
        .lines()
        .skip(1)
        .map(|l| l.split('#').next().unwrap().trim())
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(commands.len(), 2, "{commands:?}");
    assert!(commands[0].contains("corpus/"), "{commands:?}");
    assert_eq!(commands[1], "cargo test --release");
    let ci_commands: Vec<&str> = ci
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("cargo "))
        .collect();
    assert_eq!(ci_commands, ["cargo fmt --check", "cargo test --release"]);
}

/// The documents whose links are checked.
fn documents() -> Vec<PathBuf> {
    let mut files = vec![repo().join("README.md"), repo().join("CHANGELOG.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(repo().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

/// The targets of the Markdown links `[text](target)` of `text` (inline
/// links only; images included), outside fenced code blocks.
fn link_targets(text: &str) -> Vec<String> {
    let mut targets = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            targets.push(after[..end].trim().to_string());
            rest = &after[end..];
        }
    }
    targets
}

/// Every `docs/NAME.md` written anywhere in `text` (code spans and prose
/// included).
fn docs_paths(text: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("docs/") {
        let before_ok = at == 0 || !rest.as_bytes()[at - 1].is_ascii_alphanumeric();
        let tail = &rest[at..];
        let len = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || "/_-.".contains(c)))
            .unwrap_or(tail.len());
        let path = tail[..len].trim_end_matches('.');
        if before_ok && path.ends_with(".md") {
            paths.push(path.to_string());
        }
        rest = &rest[at + 5..];
    }
    paths
}

/// GitHub's anchors of the headings of a Markdown text.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut set = BTreeSet::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let heading = line.trim_start_matches('#').trim();
        let anchor: String = heading
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                c if c.is_alphanumeric() || c == '-' || c == '_' => {
                    Some(c.to_lowercase().next().unwrap())
                }
                _ => None,
            })
            .collect();
        set.insert(anchor);
    }
    set
}

/// Every relative link of the README, the changelog and `docs/` names a
/// file that exists (and a heading of it, for `#anchor`), and every
/// `docs/NAME.md` they mention exists.
#[test]
fn every_link_of_the_docs_resolves() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        let name = doc.strip_prefix(repo()).unwrap().display().to_string();
        for target in link_targets(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (file, fragment) = match target.split_once('#') {
                Some((f, a)) => (f, Some(a)),
                None => (target.as_str(), None),
            };
            let path = if file.is_empty() {
                doc.clone()
            } else {
                doc.parent().unwrap().join(file)
            };
            if !path.exists() {
                broken.push(format!("{name}: ({target}): no such file"));
                continue;
            }
            if let Some(fragment) = fragment {
                let target_text = std::fs::read_to_string(&path).unwrap_or_default();
                if !anchors(&target_text).contains(fragment) {
                    broken.push(format!("{name}: ({target}): no heading #{fragment}"));
                }
            }
        }
        for path in docs_paths(&text) {
            checked += 1;
            let full = repo().join(&path);
            if !full.exists() {
                broken.push(format!("{name}: `{path}`: no such file"));
            }
        }
    }
    assert!(checked > 20, "only {checked} links checked");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// The link readers of this file, on text whose links are known.
#[test]
fn link_readers_find_what_is_written() {
    let text = "See [a](docs/a.md#x-y) and ![p](p.svg).\n```\n[no](fenced.md)\n```\n`docs/b.md`, notdocs/c.md, docs/d.md.\n";
    assert_eq!(link_targets(text), ["docs/a.md#x-y", "p.svg"]);
    assert_eq!(docs_paths(text), ["docs/a.md", "docs/b.md", "docs/d.md"]);
    let headings = "# The JSON report\n## `--emit scop`\n```\n# not a heading\n```\n";
    let set = anchors(headings);
    assert_eq!(
        set.into_iter().collect::<Vec<_>>(),
        ["--emit-scop", "the-json-report"]
    );
}

/// The keys a JSON object is built with in `text`: `"key":` inside a
/// `json!` literal and `x["key"] =` assignments.
fn json_keys(text: &str) -> BTreeSet<String> {
    let mut keys = BTreeSet::new();
    let bytes = text.as_bytes();
    let is_key = |c: u8| c.is_ascii_lowercase() || c == b'_';
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'"' {
            let start = i + 1;
            let mut end = start;
            while end < bytes.len() && is_key(bytes[end]) {
                end += 1;
            }
            let close = end < bytes.len() && bytes[end] == b'"' && end > start;
            let rest = &text[(end + 1).min(text.len())..];
            let literal_key = close && rest.starts_with(':');
            let assigned = close && i > 0 && bytes[i - 1] == b'[' && rest.starts_with("] =");
            if literal_key || assigned {
                keys.insert(text[start..end].to_string());
            }
            i = end.max(i + 1);
        } else {
            i += 1;
        }
    }
    keys
}

/// `docs/report-json.md` names every key that the code of `--report json`
/// writes (`report::json_report`, the driver's per-file and document
/// fields, `diag::to_json`), and every key of a real report.
#[test]
fn report_json_md_names_every_field() {
    let doc = std::fs::read_to_string(repo().join("docs/report-json.md")).unwrap();
    let mut keys = BTreeSet::new();
    for file in ["src/report.rs", "src/driver.rs", "src/diag/mod.rs"] {
        keys.extend(json_keys(
            &std::fs::read_to_string(repo().join(file)).unwrap(),
        ));
    }
    // A real report: fusion, rotating scalars and indices, a pin offer,
    // strategies with their times.
    let stdout = crate::common::polyfold_stdout(&[
        "--report",
        "json",
        "corpus/filter_chain.c",
        "corpus/durbin.c",
    ]);
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    fn walk(v: &serde_json::Value, keys: &mut BTreeSet<String>) {
        match v {
            serde_json::Value::Object(map) => {
                for (k, v) in map {
                    keys.insert(k.clone());
                    walk(v, keys);
                }
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| walk(v, keys)),
            _ => {}
        }
    }
    let mut real = BTreeSet::new();
    walk(&report, &mut real);
    assert!(
        real.contains("rotating_scalars") && real.contains("pin_offer"),
        "{real:?}"
    );
    keys.extend(real);
    assert!(keys.len() > 60, "{keys:?}");
    let named = code_words(&doc);
    let missing: Vec<&String> = keys.iter().filter(|k| !named.contains(*k)).collect();
    assert!(
        missing.is_empty(),
        "docs/report-json.md does not name {missing:?}"
    );
}

/// The words (`[a-z_]+`) inside the code spans and fenced blocks of a
/// Markdown text.
fn code_words(text: &str) -> BTreeSet<String> {
    let mut code = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            code.push_str(line);
            code.push('\n');
        } else {
            for (n, part) in line.split('`').enumerate() {
                if n % 2 == 1 {
                    code.push_str(part);
                    code.push('\n');
                }
            }
        }
    }
    code.split(|c: char| !(c.is_ascii_lowercase() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn code_words_reads_code_only() {
    let text = "prose word `{loops: [x]}` more\n```\n\"schema\": 1\n```\n";
    let words: Vec<String> = code_words(text).into_iter().collect();
    assert_eq!(words, ["loops", "schema", "x"]);
}

#[test]
fn json_keys_reads_literals_and_assignments() {
    let text =
        r#"json!({ "scop": 1, "why": w }); entry["ms"] = x; "not a key" "mapping: {}" m["k"];"#;
    assert_eq!(
        json_keys(text).into_iter().collect::<Vec<_>>(),
        ["ms", "scop", "why"]
    );
}
