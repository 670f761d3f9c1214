//! Lines polyfold changed are kept within [`MAX_COLUMNS`] columns.
//!
//! A subscript that gains a `% (3 * B - 2)` can push a statement of the
//! original past the width a reviewer reads. [`wrap_changed_lines`] breaks
//! such a line, and only such a line: one that is not a line of the
//! original file. A break replaces a space between two tokens by a line
//! break and an indentation, which C reads as the same whitespace, so the
//! program is unchanged. No break is made inside a string or character
//! literal, a comment, or a preprocessor line (nor a line a backslash
//! continues), where a line break is not whitespace.
//!
//! Where to break, in order:
//! - after an operator, a comma or a semicolon, never elsewhere;
//! - at the shallowest nesting (a bracket `[` counts as much as ten
//!   parentheses: a subscript is broken last), after the loosest operator
//!   there (C's precedence);
//! - as late as the line still fits.
//!
//! The continuation lines up with the parenthesis the break is inside, as
//! the corpus's hand-wrapped statements do, or is indented by four spaces
//! more than the line when the break is at the top level.

use std::collections::HashSet;

use crate::util::c_text::{TokenKind, tokens};

/// The widest line polyfold adds (issue 49).
pub const MAX_COLUMNS: usize = 120;

/// `output` with every line that is not a line of `original`, and is wider
/// than [`MAX_COLUMNS`], broken into lines that fit where it can be.
pub fn wrap_changed_lines(original: &str, output: &str) -> String {
    let before: HashSet<&str> = original.lines().collect();
    let mut out = String::with_capacity(output.len());
    let mut in_comment = false;
    let mut continued = false;
    let mut realign: Option<usize> = None;
    for piece in output.split_inclusive('\n') {
        let body = piece.strip_suffix('\n').unwrap_or(piece);
        let (line, eol) = match body.strip_suffix('\r') {
            Some(l) => (l, &piece[l.len()..]),
            None => (body, &piece[body.len()..]),
        };
        let starts_in_comment = in_comment;
        let preprocessor = continued || line.trim_start().starts_with('#');
        in_comment = ends_in_comment(line, in_comment);
        continued = line.ends_with('\\');
        // A line of the original aligned after a parenthesis that a
        // break moved follows it.
        if let Some(to) = realign.take()
            && !starts_in_comment
            && !preprocessor
            && before.contains(line)
        {
            let text = line.trim_start_matches(' ');
            // Still inside the parenthesis at its end: the next line too.
            let (_, open) = breaks(&format!("({text}"));
            if open.first().is_some_and(|(at, _)| *at == 0) {
                realign = Some(to);
            }
            out.push_str(&" ".repeat(to + 1));
            out.push_str(text);
            out.push_str(eol);
            continue;
        }
        if starts_in_comment || preprocessor || width(line) <= MAX_COLUMNS || before.contains(line)
        {
            out.push_str(piece);
            continue;
        }
        let newline = if eol.is_empty() { "\n" } else { eol };
        let (segments, moved) = wrap_line(line);
        realign = moved;
        for (k, segment) in segments.iter().enumerate() {
            out.push_str(segment);
            out.push_str(if k + 1 < segments.len() { newline } else { eol });
        }
    }
    out
}

fn width(s: &str) -> usize {
    s.chars().count()
}

/// Whether a block comment is open at the end of `line` (open at its
/// start when `in_comment`).
fn ends_in_comment(line: &str, mut in_comment: bool) -> bool {
    let b = line.as_bytes();
    let mut i = 0;
    let mut quote: Option<u8> = None;
    while i < b.len() {
        if in_comment {
            if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                in_comment = false;
                i += 2;
                continue;
            }
        } else if let Some(q) = quote {
            if b[i] == b'\\' {
                i += 2;
                continue;
            }
            if b[i] == q {
                quote = None;
            }
        } else {
            match b[i] {
                b'"' | b'\'' => quote = Some(b[i]),
                b'/' if b.get(i + 1) == Some(&b'*') => {
                    in_comment = true;
                    i += 2;
                    continue;
                }
                b'/' if b.get(i + 1) == Some(&b'/') => return false,
                _ => {}
            }
        }
        i += 1;
    }
    in_comment
}

/// A place a line may break: the space at byte `at`, the open brackets
/// around it (byte offsets) and how deep it is.
struct Break {
    at: usize,
    open: Vec<(usize, u8)>,
    /// How deep, and how tightly the operator before it binds (C's
    /// precedence, loosest first).
    cost: (usize, usize),
}

/// How tightly the operator `op` binds: 0 for `,`, `;` and assignments,
/// up to 7 for `*`, `/`, `%` (a break after a looser one reads better).
fn rank(op: &str) -> usize {
    match op {
        "," | ";" => 0,
        "?" | ":" => 1,
        "||" | "&&" => 2,
        "|" | "^" | "&" => 3,
        "==" | "!=" | "<" | ">" | "<=" | ">=" => 4,
        "<<" | ">>" => 5,
        "+" | "-" => 6,
        "*" | "/" | "%" => 7,
        _ if op.ends_with('=') => 0,
        _ => 7,
    }
}

/// The places `line` may break (see the module's order), and the open
/// brackets at its end. The line's tokens (`util::c_text::tokens`) leave
/// out its literals and comments.
fn breaks(line: &str) -> (Vec<Break>, Vec<(usize, u8)>) {
    let mut found = Vec::new();
    let mut open: Vec<(usize, u8)> = Vec::new();
    // A `:` with no `?` before it ends a label (`produce: for ...`): the
    // label stays on the line of its statement.
    let mut questions = 0usize;
    for (range, kind) in tokens(line) {
        if kind != TokenKind::Punct {
            continue;
        }
        let op = &line[range.clone()];
        if op == "?" {
            questions += 1;
        }
        match op {
            "(" | "[" | "{" => open.push((range.start, op.as_bytes()[0])),
            ")" | "]" | "}" => {
                open.pop();
            }
            ":" if questions == 0 => {}
            "++" | "--" | "->" | "!" | "~" | "." => {}
            _ if line[range.end..].starts_with(' ') => {
                let depth = open
                    .iter()
                    .map(|(_, k)| if *k == b'[' { 10 } else { 1 })
                    .sum();
                found.push(Break {
                    at: range.end,
                    open: open.clone(),
                    cost: (depth, rank(op)),
                });
            }
            _ => {}
        }
    }
    (found, open)
}

/// `line` broken into segments (each without its line break) that fit
/// where the places to break allow; and, when a break moved the
/// parenthesis still open at its end, its new column.
fn wrap_line(line: &str) -> (Vec<String>, Option<usize>) {
    let (places, open_at_end) = breaks(line);
    let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
    let base = width(&line[..indent]);
    // Segments: (first byte, columns of indentation printed before it).
    let mut segments: Vec<(usize, usize)> = vec![(0, 0)];
    let column = |segments: &[(usize, usize)], at: usize| -> usize {
        let (start, pad) = segments
            .iter()
            .rev()
            .find(|(s, _)| *s <= at)
            .copied()
            .unwrap_or((0, 0));
        pad + width(&line[start..at])
    };
    loop {
        let (start, pad) = *segments.last().expect("one segment");
        if pad + width(&line[start..]) <= MAX_COLUMNS {
            break;
        }
        // A place is taken only when its continuation starts left of
        // where its text stood.
        let resume = |p: &Break| {
            let next = p.at + line[p.at..].len() - line[p.at..].trim_start().len();
            let pad = match p.open.last() {
                Some((at, b'(')) => column(&segments, *at) + 1,
                _ => base + 4,
            };
            (next < line.len() && pad < column(&segments, next)).then_some((next, pad))
        };
        let later: Vec<&Break> = places
            .iter()
            .filter(|p| p.at > start && resume(p).is_some())
            .collect();
        let fits = |p: &&Break| pad + width(line[start..p.at].trim_end()) <= MAX_COLUMNS;
        let fitting: Vec<&Break> = later.iter().copied().filter(fits).collect();
        let chosen = if let Some(low) = fitting.iter().map(|p| p.cost).min() {
            fitting.iter().rev().find(|p| p.cost == low).copied()
        } else {
            let low = later.iter().map(|p| p.cost).min();
            later.iter().find(|p| Some(p.cost) == low).copied()
        };
        let Some((next, new_pad)) = chosen.and_then(resume) else {
            break;
        };
        segments.push((next, new_pad));
    }
    let moved = match open_at_end.last() {
        Some((at, b'(')) if *at >= segments.get(1).map_or(usize::MAX, |s| s.0) => {
            Some(column(&segments, *at))
        }
        _ => None,
    };
    let mut out = Vec::with_capacity(segments.len());
    for (k, (start, pad)) in segments.iter().enumerate() {
        let end = segments.get(k + 1).map_or(line.len(), |(s, _)| *s);
        let text = &line[*start..end];
        let text = if k + 1 < segments.len() {
            text.trim_end()
        } else {
            text
        };
        out.push(format!("{}{text}", " ".repeat(*pad)));
    }
    (out, moved)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tokens of `s` (whitespace dropped), to compare texts as C reads
    /// them.
    fn tokens(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn a_long_changed_line_breaks_after_operators_and_reads_the_same() {
        let original = "        y = (a[i][j] + a[i][j + 1]) / 3.0;\n";
        let long = format!(
            "        y = ({}) / 3.0;\n",
            (0..6)
                .map(|k| format!("blurx[t % 2][(x + 3 * B - {k}) % (3 * B - 2)]"))
                .collect::<Vec<_>>()
                .join(" + ")
        );
        let wrapped = wrap_changed_lines(original, &long);
        assert!(wrapped.lines().count() > 1, "{wrapped}");
        for l in wrapped.lines() {
            assert!(width(l) <= MAX_COLUMNS, "{l}");
            // Broken after a `+` (never inside a subscript).
            assert!(l.ends_with(" +") || l.ends_with(';'), "{l}");
        }
        // Continuations line up after the parenthesis: column 13.
        for l in wrapped.lines().skip(1) {
            assert!(l.starts_with(&format!("{}blurx", " ".repeat(13))), "{l}");
        }
        assert_eq!(tokens(&wrapped), tokens(&long));
    }

    /// A label's `:` is not a place to break: the label stays on its
    /// loop's line; the `:` of a `?:` still is.
    #[test]
    fn a_label_stays_on_the_line_of_its_loop() {
        let original = "        acc: for (i = 0; i <= k - 1; i++)\n";
        let update = "y_r0 = y_r0 + 2 < 2 * N - 1 ? y_r0 + 2 : y_r0 + 2 - (2 * N - 1)";
        let long = format!(
            "        acc: for (i = 0, y_r0 = (2 * i + k - 1) % (2 * N - 1); i <= k - 1; i++, {update})\n"
        );
        let wrapped = wrap_changed_lines(original, &long);
        assert!(wrapped.lines().count() > 1, "{wrapped}");
        assert!(
            wrapped.starts_with("        acc: for (i = 0, "),
            "{wrapped}"
        );
        assert_eq!(tokens(&wrapped), tokens(&long));
        let (places, _) = breaks("    x = c ? a : b; L: y = 1;");
        let after: Vec<&str> = places
            .iter()
            .map(|p| &"    x = c ? a : b; L: y = 1;"[..p.at])
            .collect();
        assert!(after.iter().any(|t| t.ends_with("a :")), "{after:?}");
    }

    #[test]
    fn lines_of_the_original_comments_literals_and_directives_stay() {
        let long = format!("    x = a + {};", "b + ".repeat(40));
        let string = format!("    puts(\"{}\");", "a + b, ".repeat(30));
        let directive = format!("#define LONG {}", "a + ".repeat(40));
        let comment = format!("/*\n {}\n*/", "a + ".repeat(40));
        // Unchanged: a line of the original.
        assert_eq!(wrap_changed_lines(&long, &long), long);
        // Nothing to break outside the literal.
        assert_eq!(wrap_changed_lines("", &string), string);
        assert_eq!(wrap_changed_lines("", &directive), directive);
        assert_eq!(wrap_changed_lines("", &comment), comment);
        // The changed line is broken, the same tokens.
        let wrapped = wrap_changed_lines("", &long);
        assert!(wrapped.lines().all(|l| width(l) <= MAX_COLUMNS));
        assert_eq!(tokens(&wrapped), tokens(&long));
        // Top level: four spaces more than the line.
        assert!(wrapped.lines().nth(1).unwrap().starts_with("        b"));
    }

    #[test]
    fn the_next_line_aligned_after_a_moved_parenthesis_follows_it() {
        let original = "    t[x][y] = (in[y] + in[y + 1] +\n               in[y + 2]) / 3.0;\n";
        let subscript = "(y + 3 * B - 2 * x - 2) % (3 * B - 2)";
        let output = format!(
            "    t[{subscript}][{subscript}] = (in[y] + in[y + 1] + in[y + 3] + in[y + 4] +\n               in[y + 2]) / 3.0;\n"
        );
        let wrapped = wrap_changed_lines(original, &output);
        let lines: Vec<&str> = wrapped.lines().collect();
        assert_eq!(
            lines,
            [
                &format!("    t[{subscript}][{subscript}] ="),
                "        (in[y] + in[y + 1] + in[y + 3] + in[y + 4] +",
                "         in[y + 2]) / 3.0;",
            ],
            "{wrapped}"
        );
    }

    #[test]
    fn a_line_with_nowhere_to_break_is_kept() {
        let long = format!("    {};", "x".repeat(130));
        assert_eq!(wrap_changed_lines("", &long), long);
    }
}
