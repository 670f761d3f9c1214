//! The layout of the lines polyfold adds at declarations: the mapping
//! comment, the pinning `_Static_assert` and the rotating indices'
//! declaration, each kept within [`MAX_LINE`] columns where its words
//! allow (a comment that does not fit after its declaration goes on
//! lines of its own before it; long lists wrap).

use super::edits::{Edit, apply_edits};

/// The widest line polyfold adds.
pub const MAX_LINE: usize = 120;

/// `words` (separated by one space) filled greedily into lines of at most
/// [`MAX_LINE`] columns: the first line starts with `first`, the others
/// with `next`; `last` ends the last line. A word longer than a line
/// stays whole.
fn fill(first: &str, next: &str, words: &[&str], last: &str) -> Vec<String> {
    let mut lines: Vec<String> = vec![first.to_string()];
    let mut fresh = true;
    for (k, word) in words.iter().enumerate() {
        let tail = if k + 1 == words.len() { last } else { "" };
        let line = lines.last_mut().expect("one line");
        let sep = if fresh { "" } else { " " };
        if !fresh && width(line) + sep.len() + width(word) + width(tail) > MAX_LINE {
            lines.push(format!("{next}{word}"));
        } else {
            line.push_str(sep);
            line.push_str(word);
        }
        fresh = false;
    }
    if let Some(line) = lines.last_mut() {
        line.push_str(last);
    }
    lines
}

/// Columns of `text` (characters; a tab counts as one).
fn width(text: &str) -> usize {
    text.chars().count()
}

/// `/* polyfold: <body> */` on lines of their own, each starting with
/// `indent` (continuation lines three columns further).
pub(crate) fn comment_lines(indent: &str, body: &str) -> Vec<String> {
    // Whole items of a list (`a -> b, c -> d`) where a line holds them,
    // else their words.
    let room = MAX_LINE.saturating_sub(width(indent) + "/* polyfold: ".len() + " */".len());
    let items: Vec<&str> = body.split_inclusive(", ").map(str::trim_end).collect();
    let mut words: Vec<&str> = Vec::new();
    for item in items {
        if width(item) <= room {
            words.push(item);
        } else {
            words.extend(item.split(' ').filter(|w| !w.is_empty()));
        }
    }
    fill(
        &format!("{indent}/* polyfold: "),
        &format!("{indent}   "),
        &words,
        " */",
    )
}

/// `_Static_assert(<condition>, "<message>");` after `indent`: one line
/// when it fits, else the condition filled at its spaces and the message
/// (one string literal, never split) on a line of its own.
pub(crate) fn static_assert_lines(indent: &str, condition: &str, message: &str) -> Vec<String> {
    let one = format!("{indent}_Static_assert({condition}, \"{message}\");");
    if width(&one) <= MAX_LINE {
        return vec![one];
    }
    let words: Vec<&str> = condition.split(' ').filter(|w| !w.is_empty()).collect();
    let mut lines = fill(
        &format!("{indent}_Static_assert("),
        &format!("{indent}               "),
        &words,
        ",",
    );
    lines.push(format!("{indent}               \"{message}\");"));
    lines
}

/// The parts of the note at one declaration.
pub(crate) struct Note<'a> {
    /// The mappings' comment body (`y[i][k] -> y[...]`, ...).
    pub mappings: &'a str,
    /// The pin: condition and message of a `_Static_assert`.
    pub assert: Option<(&'a str, &'a str)>,
    /// The rotating indices declared after the declaration.
    pub rotating: &'a [String],
}

/// The insertions of `note` for a declaration whose line starts at
/// `line_start` and whose notes go at `at` (the end of its line, or of
/// the declaration), indented by `indent`; `edits` are the edits made so
/// far (the declaration's line as it will read, and the points where an
/// insertion would collide).
pub(crate) fn declaration_note(
    source: &str,
    edits: &[Edit],
    (line_start, at): (usize, usize),
    indent: &str,
    note: &Note,
) -> Vec<Edit> {
    let comment = format!(" /* polyfold: {} */", note.mappings);
    // The declaration's line with the edits inside it applied.
    let inside: Vec<Edit> = edits
        .iter()
        .filter(|e| line_start <= e.range.start && e.range.end <= at)
        .map(|e| {
            Edit::replace(
                e.range.start - line_start..e.range.end - line_start,
                e.replacement.clone(),
            )
        })
        .collect();
    let line = apply_edits(&source[line_start..at], &inside).unwrap_or_default();
    let last_line = line.rsplit('\n').next().unwrap_or_default();
    let collides = |p: usize| {
        edits.iter().any(|e| {
            (e.range.start < p && p < e.range.end) || (e.range.start == p && e.range.end == p)
        })
    };
    let mut out = Vec::new();
    let mut after = String::new();
    if width(last_line) + width(&comment) <= MAX_LINE {
        after.push_str(&comment);
    } else {
        let lines = comment_lines(indent, note.mappings);
        if !collides(line_start) && line_start < at {
            let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
            out.push(Edit::insert(line_start, text));
        } else {
            for l in lines {
                after.push_str(&format!("\n{l}"));
            }
        }
    }
    if let Some((condition, message)) = note.assert {
        for l in static_assert_lines(indent, condition, message) {
            after.push_str(&format!("\n{l}"));
        }
    }
    if !note.rotating.is_empty() {
        let decl = format!("{indent}int {};", note.rotating.join(", "));
        let said = " /* polyfold: rotating indices, advanced by their loops */";
        if width(&decl) + width(said) <= MAX_LINE {
            after.push_str(&format!("\n{decl}{said}"));
        } else {
            for l in comment_lines(indent, "rotating indices, advanced by their loops") {
                after.push_str(&format!("\n{l}"));
            }
            let names: Vec<String> = note
                .rotating
                .iter()
                .enumerate()
                .map(|(k, n)| {
                    if k + 1 < note.rotating.len() {
                        format!("{n},")
                    } else {
                        n.clone()
                    }
                })
                .collect();
            let words: Vec<&str> = names.iter().map(String::as_str).collect();
            for l in fill(
                &format!("{indent}int "),
                &format!("{indent}    "),
                &words,
                ";",
            ) {
                after.push_str(&format!("\n{l}"));
            }
        }
    }
    out.push(Edit::insert(at, after));
    out
}

/// `edits` with the insertions at one point merged into one, in their
/// order in `edits` (the notes of several declarations of one line all go
/// before that line).
pub(crate) fn merge_insertions(edits: Vec<Edit>) -> Vec<Edit> {
    let mut out: Vec<Edit> = Vec::new();
    for e in edits {
        let same = out
            .iter_mut()
            .find(|o| o.range.is_empty() && e.range.is_empty() && o.range.start == e.range.start);
        match same {
            Some(o) => o.replacement.push_str(&e.replacement),
            None => out.push(e),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line within the limit, and the words in their order (the
    /// text read back with single spaces is the text).
    #[test]
    fn long_comments_and_asserts_wrap_within_the_limit() {
        let body: Vec<String> = (0..40).map(|k| format!("t_s{k} = t[i - {k}],")).collect();
        let body = body.join(" ");
        let lines = comment_lines("    ", &body);
        assert!(lines.len() > 1);
        assert!(
            lines.iter().all(|l| l.chars().count() <= MAX_LINE),
            "{lines:?}"
        );
        let joined: Vec<&str> = lines.iter().flat_map(|l| l.split_whitespace()).collect();
        assert_eq!(joined.join(" "), format!("/* polyfold: {body} */"));
        let condition = "m == 4 && M == 32 && n == 4 && N == 32";
        let message =
            "polyfold: the storage of ODelta is certified for these parameter values only";
        let lines = static_assert_lines("    ", condition, message);
        assert_eq!(
            lines,
            vec![
                "    _Static_assert(m == 4 && M == 32 && n == 4 && N == 32,".to_string(),
                format!("                   \"{message}\");"),
            ]
        );
        assert_eq!(
            static_assert_lines("", "N >= 4", "short"),
            vec!["_Static_assert(N >= 4, \"short\");".to_string()]
        );
    }

    /// A note that fits stays after its declaration; one that does not
    /// goes before it, on its own lines.
    #[test]
    fn notes_that_do_not_fit_go_before_the_declaration() {
        let source = "  double t[3];\n";
        let short = Note {
            mappings: "t[i] -> t[i % 3]",
            assert: None,
            rotating: &[],
        };
        let edits = declaration_note(source, &[], (0, 14), "  ", &short);
        let out = apply_edits(source, &edits).unwrap();
        assert_eq!(out, "  double t[3]; /* polyfold: t[i] -> t[i % 3] */\n");
        let long_body = "t[i] -> scalars ".to_string() + &"t_s0 = t[i - 2], ".repeat(7);
        let long = Note {
            mappings: long_body.trim_end(),
            assert: None,
            rotating: &[],
        };
        let edits = declaration_note(source, &[], (0, 14), "  ", &long);
        let out = apply_edits(source, &edits).unwrap();
        assert!(out.ends_with("\n  double t[3];\n"), "{out}");
        assert!(out.starts_with("  /* polyfold: t[i] -> scalars"), "{out}");
        assert!(out.lines().all(|l| l.chars().count() <= MAX_LINE), "{out}");
    }

    /// Two declarations of one line whose notes both go before it (the
    /// regression of fuzz seed 70020: two insertions at one point).
    #[test]
    fn notes_of_one_line_merge() {
        let source = "void k(double a[9], double b[9]) {}\n";
        let long = "x".repeat(130);
        let note = Note {
            mappings: &long,
            assert: None,
            rotating: &[],
        };
        let mut edits = declaration_note(source, &[], (0, 18), "", &note);
        edits.extend(declaration_note(source, &[], (0, 31), "", &note));
        assert!(apply_edits(source, &edits).is_err());
        let out = apply_edits(source, &merge_insertions(edits)).unwrap();
        assert_eq!(out.matches("/* polyfold: ").count(), 2, "{out}");
        assert!(
            out.ends_with("\nvoid k(double a[9], double b[9]) {}\n"),
            "{out}"
        );
    }
}
