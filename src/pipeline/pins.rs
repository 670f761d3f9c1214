//! Notes at the declarations of remapped arrays: a comment that states
//! the mapping, and pins. A storage certified for the known parameter
//! values only must not silently survive a change of those values: after
//! its declaration, a `_Static_assert` (C11) checks the values, so that a
//! rebuild with other values fails to compile instead of computing
//! garbage. Only parameters that are `#define`s of the file can be pinned.
//! Both go after the comments that follow the declaration on its line.

use crate::codegen::Edit;
use crate::codegen::mapping_note::mapping_comment;
use crate::ir::{Program, Scop};
use crate::mapping::Certificate;

use super::certify::Storage;

use super::record::{ArrayOutcome, FileContraction};

/// The parameters whose known value the model of `scop` uses, as
/// `` `N`, `M` ``.
pub(super) fn value_used_names(scop: &Scop) -> String {
    scop.params
        .iter()
        .filter(|p| p.value_used)
        .map(|p| format!("`{}`", p.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `P1 == v1 && P2 == v2 ...` for the parameters of `scop` (a macro whose
/// body is not one operand is parenthesised: `(LAST) == 15`, since
/// `N-1 == 15` is `N - (1 == 15)`, true for every `N`).
pub(super) fn values_condition(scop: &Scop, values: &[i64]) -> String {
    scop.param_texts()
        .iter()
        .zip(values)
        .map(|(p, v)| format!("{p} == {v}"))
        .collect::<Vec<_>>()
        .join(" && ")
}

/// `P1 >= v1 && P2 >= v2 ...` (see [`values_condition`]) for a storage
/// certified from these values on.
fn from_condition(scop: &Scop, from: &[i64]) -> String {
    scop.param_texts()
        .iter()
        .zip(from)
        .map(|(p, v)| format!("{p} >= {v}"))
        .collect::<Vec<_>>()
        .join(" && ")
}

/// `_Static_assert(condition, "polyfold: the {what} is certified for these
/// parameter values only");` — or `... certified only where this condition
/// holds` when the condition includes a range (`N >= 4`, `range`).
pub(super) fn static_assert_text(condition: &str, what: &str, range: bool) -> String {
    let (condition, message) = static_assert_parts(condition, what, range);
    format!("_Static_assert({condition}, \"{message}\");")
}

/// The condition and the message of [`static_assert_text`].
fn static_assert_parts(condition: &str, what: &str, range: bool) -> (String, String) {
    let scope = if range {
        "only where this condition holds"
    } else {
        "for these parameter values only"
    };
    (
        condition.to_string(),
        format!("polyfold: the {what} is certified {scope}"),
    )
}

/// The end of the line on which a declaration ends at byte `at` (before
/// its line break), when the rest of that line holds only blanks and
/// comments (a block comment may end on a later line: then the end of
/// that line, if only blanks and comments follow it there). `None` when
/// code follows, a comment is not closed, or a `\` splices lines (text
/// inserted before the line break would undo the splice).
fn end_of_declaration_line(source: &str, at: usize) -> Option<usize> {
    let bytes = source.as_bytes();
    let mut k = at;
    loop {
        match bytes.get(k) {
            None => return Some(k),
            Some(b' ' | b'\t' | b'\r') => {
                if bytes[k] == b'\r' && bytes.get(k + 1) == Some(&b'\n') {
                    return Some(k);
                }
                k += 1;
            }
            Some(b'\n') => return Some(k),
            Some(b'/') if bytes.get(k + 1) == Some(&b'*') => {
                let close = source[k + 2..].find("*/")?;
                k = k + 2 + close + 2;
            }
            Some(b'/') if bytes.get(k + 1) == Some(&b'/') => {
                let end = source[k..].find('\n').map_or(source.len(), |e| k + e);
                let line = source[k..end].trim_end_matches('\r');
                if line.ends_with('\\') {
                    return None;
                }
                return Some(k + line.len());
            }
            Some(_) => return None,
        }
    }
}

/// Whether an insertion at byte `at` would overlap one of `edits` (an
/// insertion at the same point, or a range that holds `at` inside it).
fn collides(edits: &[Edit], at: usize) -> bool {
    edits.iter().any(|e| {
        (e.range.start < at && at < e.range.end) || (e.range.start == at && e.range.end == at)
    })
}

/// The notes at the declarations of the remapped arrays, one insertion
/// per declaration: a comment that states each array's mapping
/// (`/* polyfold: y[i][k] -> y[(2 * i + k) % (2 * N - 3)] */`, one comment
/// naming every remapped array of a multi-declarator line), and, for a
/// storage certified for the known parameter values only, a
/// `_Static_assert` on the next line that pins the values (C11), so that a
/// rebuild with other values fails to compile instead of computing
/// garbage. Both go at the end of the declaration's line, after the
/// comments that follow it there (they stay with their declaration); at
/// the declaration's end when code follows it on its line, or when another
/// of the edits made so far (`record.edits`) is at that point.
pub(super) fn declaration_notes(
    program: &Program,
    record: &FileContraction,
    renamed: &[(String, String)],
) -> Vec<Edit> {
    let edits = &record.edits;
    struct Note {
        end: usize,
        /// (declarator start, mapping) of each remapped array.
        mappings: Vec<(usize, String)>,
        pinned: Vec<String>,
        condition: String,
        /// Whether some pin is a range (`N >= 4`), not a list of values.
        range: bool,
        /// The rotating indices of the arrays declared there.
        rotating: Vec<String>,
    }
    let mut notes: Vec<Note> = Vec::new();
    for d in &record.decisions {
        let ArrayOutcome::Remapped { certified, .. } = &d.outcome else {
            continue;
        };
        let Storage::Modular { array, layout, .. } = certified.storage() else {
            continue;
        };
        let scop = &program.scops[d.scop];
        let decl = scop.array(*array);
        let Some(span) = decl.decl_span.clone() else {
            continue;
        };
        let condition = match certified.certificate() {
            Certificate::ForValues(values) => Some(values_condition(scop, values)),
            Certificate::FromValues(from) => Some(from_condition(scop, from)),
            Certificate::ForAllParameters => None,
        };
        let mapping = (
            decl.declarator_span
                .as_ref()
                .map_or(span.start, |s| s.start),
            // An array kept in rotating scalars says so instead.
            record
                .scalars
                .iter()
                .find(|(s, a, _)| *s == d.scop && a == array)
                .map_or_else(
                    || mapping_comment(&program.source, scop, *array, layout),
                    |(_, _, comment)| comment.clone(),
                ),
        );
        // An array split from another: the left side is the original's.
        let mapping = match renamed.iter().find(|(new, _)| *new == decl.name) {
            Some((new, old)) if mapping.1.starts_with(&format!("{new}[")) => {
                (mapping.0, format!("{old}{}", &mapping.1[new.len()..]))
            }
            _ => mapping,
        };
        let note = match notes.iter_mut().find(|n| n.end == span.end) {
            Some(n) => n,
            None => {
                notes.push(Note {
                    end: span.end,
                    mappings: Vec::new(),
                    pinned: Vec::new(),
                    condition: String::new(),
                    range: false,
                    rotating: Vec::new(),
                });
                notes.last_mut().expect("just pushed")
            }
        };
        note.mappings.push(mapping);
        for (_, _, names) in record
            .rotating
            .iter()
            .filter(|(s, a, _)| *s == d.scop && a == array)
        {
            note.rotating.extend(names.iter().cloned());
        }
        if let Some(condition) = condition.filter(|c| !c.is_empty()) {
            note.pinned.push(d.name.clone());
            note.range |= matches!(certified.certificate(), Certificate::FromValues(_));
            let c = &mut note.condition;
            if c.is_empty() {
                *c = condition;
            } else if *c != condition && !c.split(" && ").any(|part| part == condition) {
                *c = format!("{c} && {condition}");
            }
        }
    }
    let source = &program.source;
    let edits_of_notes = notes
        .into_iter()
        .flat_map(|mut note| {
            note.mappings.sort();
            let mappings: Vec<String> = note.mappings.into_iter().map(|(_, m)| m).collect();
            let line_start = source[..note.end].rfind('\n').map_or(0, |i| i + 1);
            let indent: String = source[line_start..]
                .chars()
                .take_while(|c| *c == ' ' || *c == '\t')
                .collect();
            let assert = (!note.condition.is_empty()).then(|| {
                let what = format!("storage of {}", note.pinned.join(", "));
                static_assert_parts(&note.condition, &what, note.range)
            });
            let at = end_of_declaration_line(source, note.end)
                .filter(|at| !collides(edits, *at))
                .unwrap_or(note.end);
            let body = mappings.join(", ");
            let parts = crate::codegen::notes::Note {
                mappings: &body,
                assert: assert.as_ref().map(|(c, m)| (c.as_str(), m.as_str())),
                rotating: &note.rotating,
            };
            crate::codegen::notes::declaration_note(
                source,
                edits,
                (line_start, at),
                &indent,
                &parts,
            )
        })
        .collect();
    crate::codegen::notes::merge_insertions(edits_of_notes)
}

#[cfg(test)]
mod tests {
    use super::end_of_declaration_line;

    /// Where the notes of a declaration that ends after `decl` in `text` go.
    fn at(text: &str, decl: &str) -> Option<usize> {
        let end = text.find(decl).expect("declaration") + decl.len();
        end_of_declaration_line(text, end)
    }

    #[test]
    fn notes_go_after_the_comments_on_the_declarations_line() {
        let text = "  double t[2]; /* temporary */\n  int x;\n";
        assert_eq!(at(text, "double t[2];"), text.find("\n"));
        let text = "  double t[2]; // temporary\r\n";
        assert_eq!(at(text, "double t[2];"), text.find("\r\n"));
        // A block comment that ends on a later line: the end of that line.
        let text = "  double t[2]; /* one\n     two */\n  int x;\n";
        assert_eq!(
            at(text, "double t[2];"),
            Some(text.find("two */").unwrap() + 6)
        );
        // At the end of the text.
        assert_eq!(at("double t[2];", "double t[2];"), Some(12));
    }

    #[test]
    fn code_a_splice_or_an_open_comment_keep_the_notes_at_the_declaration() {
        assert_eq!(at("  double t[2]; int x;\n", "double t[2];"), None);
        assert_eq!(
            at("  double t[2]; /* two */ int x;\n", "double t[2];"),
            None
        );
        assert_eq!(
            at("  double t[2]; // a \\\n  int x;\n", "double t[2];"),
            None
        );
        assert_eq!(at("  double t[2]; /* open\n", "double t[2];"), None);
    }
}
