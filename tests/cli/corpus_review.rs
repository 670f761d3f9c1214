//! Issue 49: `docs/corpus-review.md` holds, for every corpus kernel
//! (`corpus/NAME.c`, sorted by name), a section `## NAME` with a review
//! written by a person and then the diff that `polyfold --diff
//! corpus/NAME.c` prints (run from the crate's directory) in a fenced
//! `diff` block, or, for a kernel polyfold leaves unchanged, the line
//! [`UNCHANGED`] instead of the block.
//!
//! The test fails when a block is not what polyfold prints now, when a
//! kernel has no section or a section has no review, or when a section
//! names no kernel. `POLYFOLD_BLESS=1 cargo test --release --test cli
//! corpus_review` rewrites the blocks (and adds a section, without a review,
//! for a new kernel) and keeps every review as it is: the diff then shows
//! in git next to the review, which the reviewer updates by hand.

use crate::common;
use crate::corpus_sizes::kernels;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The line that stands for the diff of a kernel polyfold leaves unchanged.
const UNCHANGED: &str = "polyfold leaves this kernel unchanged: `--diff` prints nothing.";

/// The line that opens a diff block, and the one that closes it.
const OPEN: &str = "```diff";
const CLOSE: &str = "```";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn doc_path() -> PathBuf {
    root().join("docs").join("corpus-review.md")
}

/// What `polyfold --diff corpus/NAME.c` prints, run from the crate's
/// directory; the exit code must say whether it printed anything (1 for a
/// diff, 0 for none).
fn polyfold_diff(name: &str) -> String {
    let path = format!("corpus/{name}.c");
    let out = Command::new(env!("CARGO_BIN_EXE_polyfold"))
        .current_dir(root())
        .args(["--diff", path.as_str()])
        .output()
        .expect("the binary runs");
    let diff = String::from_utf8(out.stdout).expect("utf-8");
    let expected_code = if diff.is_empty() { 0 } else { 1 };
    assert_eq!(
        out.status.code(),
        Some(expected_code),
        "polyfold --diff {path}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        diff.is_empty() || diff.ends_with('\n'),
        "polyfold --diff {path}: no final newline"
    );
    assert!(
        !diff.lines().any(|l| l.starts_with(CLOSE)),
        "polyfold --diff {path}: a line would close the fenced block"
    );
    diff
}

/// What a section shows after its review.
#[derive(Debug, Clone, PartialEq)]
enum Shown {
    /// A fenced `diff` block with this text (each line ends with `\n`).
    Diff(String),
    /// The [`UNCHANGED`] line.
    Unchanged,
    /// Neither (a section added by blessing, or written by hand without).
    Missing,
}

impl Shown {
    fn of(diff: &str) -> Self {
        if diff.is_empty() {
            Shown::Unchanged
        } else {
            Shown::Diff(diff.to_string())
        }
    }

    fn describe(&self) -> String {
        match self {
            Shown::Diff(text) => text.clone(),
            Shown::Unchanged => format!("{UNCHANGED}\n"),
            Shown::Missing => String::new(),
        }
    }
}

/// One `## NAME` section: its review (the lines before what it shows, kept
/// verbatim), what it shows, and the lines after that.
#[derive(Debug)]
struct Section {
    name: String,
    review: Vec<String>,
    shown: Shown,
    after: Vec<String>,
}

impl Section {
    /// Whether the review says anything (a line that is not blank).
    fn has_review(&self) -> bool {
        self.review
            .iter()
            .chain(&self.after)
            .any(|l| !l.trim().is_empty())
    }
}

/// The document: the text before the first section, then the sections.
#[derive(Debug)]
struct Doc {
    preamble: Vec<String>,
    sections: Vec<Section>,
}

fn parse(text: &str) -> Result<Doc, String> {
    let mut preamble = Vec::new();
    let mut sections: Vec<Section> = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((n, line)) = lines.next() {
        if let Some(name) = line.strip_prefix("## ") {
            sections.push(Section {
                name: name.trim().to_string(),
                review: Vec::new(),
                shown: Shown::Missing,
                after: Vec::new(),
            });
            continue;
        }
        let Some(section) = sections.last_mut() else {
            preamble.push(line.to_string());
            continue;
        };
        let found = line == OPEN || line == UNCHANGED;
        if found && section.shown != Shown::Missing {
            return Err(format!(
                "line {}: section {} shows a second diff",
                n + 1,
                section.name
            ));
        }
        if line == OPEN {
            let mut block = String::new();
            loop {
                match lines.next() {
                    Some((_, CLOSE)) => break,
                    Some((_, l)) => {
                        block.push_str(l);
                        block.push('\n');
                    }
                    None => return Err(format!("line {}: the diff block is not closed", n + 1)),
                }
            }
            section.shown = Shown::Diff(block);
        } else if line == UNCHANGED {
            section.shown = Shown::Unchanged;
        } else if section.shown == Shown::Missing {
            section.review.push(line.to_string());
        } else {
            section.after.push(line.to_string());
        }
    }
    Ok(Doc { preamble, sections })
}

fn render(doc: &Doc) -> String {
    let mut out = String::new();
    for line in &doc.preamble {
        out.push_str(line);
        out.push('\n');
    }
    for section in &doc.sections {
        out.push_str(&format!("## {}\n", section.name));
        let mut review: &[String] = &section.review;
        while let Some((last, rest)) = review.split_last() {
            if !last.trim().is_empty() {
                break;
            }
            review = rest;
        }
        for line in review {
            out.push_str(line);
            out.push('\n');
        }
        if section.shown != Shown::Missing {
            out.push('\n');
        }
        match &section.shown {
            Shown::Diff(text) => {
                out.push_str(OPEN);
                out.push('\n');
                out.push_str(text);
                out.push_str(CLOSE);
                out.push('\n');
            }
            Shown::Unchanged => {
                out.push_str(UNCHANGED);
                out.push('\n');
            }
            Shown::Missing => {}
        }
        let after: Vec<&String> = section.after.iter().collect();
        let trailing = after
            .iter()
            .rev()
            .take_while(|l| l.trim().is_empty())
            .count();
        for line in &after[..after.len() - trailing] {
            out.push_str(line);
            out.push('\n');
        }
        out.push('\n');
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

#[test]
fn the_render_of_a_parsed_review_keeps_its_text() {
    let text = format!(
        "# Title\n\nIntro.\n\n## a\n\nReview of a,\non two lines.\n\n{OPEN}\n-x\n+y\n{CLOSE}\n\n\
         ## b\n\nReview of b.\n\n{UNCHANGED}\n\n## c\n\nNot reviewed yet.\n\n## d\n\nLast.\n"
    );
    let doc = parse(&text).expect("parses");
    assert_eq!(doc.sections.len(), 4);
    assert_eq!(doc.sections[0].shown, Shown::Diff("-x\n+y\n".to_string()));
    assert_eq!(doc.sections[1].shown, Shown::Unchanged);
    assert_eq!(doc.sections[2].shown, Shown::Missing);
    assert!(doc.sections.iter().all(Section::has_review));
    assert_eq!(render(&doc), text);
    let unclosed = format!("## a\n\nReview.\n\n{OPEN}\n-x\n");
    assert!(parse(&unclosed).is_err());
    let twice = format!("## a\n\nReview.\n\n{UNCHANGED}\n\n{UNCHANGED}\n");
    assert!(parse(&twice).is_err());
}

#[test]
fn the_corpus_review_shows_what_polyfold_prints() {
    let path = doc_path();
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let mut doc = parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let names = kernels();
    let bless = common::snapshot::bless_requested();
    let mut problems = Vec::new();

    for name in &names {
        let actual = Shown::of(&polyfold_diff(name));
        let index = match doc.sections.iter().position(|s| &s.name == name) {
            Some(index) => index,
            None if bless => {
                let at = doc
                    .sections
                    .iter()
                    .position(|s| s.name.as_str() > name.as_str())
                    .unwrap_or(doc.sections.len());
                doc.sections.insert(
                    at,
                    Section {
                        name: name.clone(),
                        review: Vec::new(),
                        shown: Shown::Missing,
                        after: Vec::new(),
                    },
                );
                at
            }
            None => {
                problems.push(format!("no section `## {name}`"));
                continue;
            }
        };
        let section = &mut doc.sections[index];
        if section.shown != actual {
            if bless {
                section.shown = actual;
            } else {
                problems.push(format!(
                    "{name}: the doc's diff is not what `polyfold --diff corpus/{name}.c` prints now:\n{}",
                    polyfold::util::snapshot::snapshot_diff(
                        name,
                        &section.shown.describe(),
                        &actual.describe()
                    )
                ));
            }
        }
        if !section.has_review() {
            problems.push(format!("{name}: the section has no review"));
        }
    }
    for section in &doc.sections {
        if !names.contains(&section.name) {
            problems.push(format!(
                "section `## {}` names no corpus kernel (remove it)",
                section.name
            ));
        }
    }
    let order: Vec<&str> = doc.sections.iter().map(|s| s.name.as_str()).collect();
    let mut sorted = order.clone();
    sorted.sort_unstable();
    if order != sorted {
        problems.push(format!("the sections are not sorted by name: {order:?}"));
    }
    if bless {
        let rendered = render(&doc);
        if rendered != text {
            std::fs::write(&path, rendered).expect("write the corpus review");
        }
    }
    assert!(
        problems.is_empty(),
        "{}:\n{}\n(after a deliberate change of an output: `POLYFOLD_BLESS=1 cargo test --release \
         --test cli corpus_review`, then read the new diff and update its review)",
        path.display(),
        problems.join("\n")
    );
}
