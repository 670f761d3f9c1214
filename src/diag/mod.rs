//! Diagnostics: plain data produced by the front end, and their rendering
//! with codespan-reporting.
//!
//! A [`Diagnostic`] is a [`Code`] (`PF010`, which fixes its severity), a
//! message, a primary span, secondary labels and notes, and the facts a
//! later stage needs (e.g. the [`Place`] of a rejected expression), so
//! that no decision reads the message. Rendering never uses colour, so
//! that tests can compare the rendered text. The codes and their
//! explanations are in [`code`]. This module does not decide what is
//! rejected; the front end does.

use std::ops::Range;

pub mod code;
pub mod sarif;
mod window;

use window::floor_char_boundary;
pub(crate) use window::line_col;

pub use code::{Code, Explanation, Severity, reference_markdown, severity_word};

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label as CsLabel};
use codespan_reporting::term;

/// Where an expression occurs that a diagnostic is about (a subscript, a
/// loop bound, a condition): the front end's rejections of expressions
/// carry it, and the verifier asks whether a PF016 is in a subscript.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    Subscript,
    Bound,
    Condition,
}

impl Place {
    /// The code of a non-affine expression here (PF010, PF011, PF012).
    pub(crate) fn non_affine_code(self) -> Code {
        match self {
            Place::Subscript => Code::NonAffineSubscript,
            Place::Bound => Code::NonAffineBound,
            Place::Condition => Code::NonAffineCondition,
        }
    }

    /// The noun of the place in a message (`subscript`, `loop bound`,
    /// `condition`).
    pub(crate) fn noun(self) -> &'static str {
        match self {
            Place::Subscript => "subscript",
            Place::Bound => "loop bound",
            Place::Condition => "condition",
        }
    }
}

/// A secondary label: another span with a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    pub span: Range<usize>,
    pub message: String,
}

/// One message about the source, attached to a span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// A stable code, e.g. `PF010`; `docs/diagnostics.md` explains every
    /// code, and the code fixes the severity.
    pub code: Code,
    /// The headline, e.g. `non-affine subscript a[b[i]]`.
    pub message: String,
    /// The primary span (may be empty for a whole-file note).
    pub span: Range<usize>,
    /// The text under the primary span.
    pub label: String,
    pub labels: Vec<Label>,
    pub notes: Vec<String>,
    /// Where the expression the diagnostic is about occurs, when it is
    /// one (set by the front end's rejections of expressions).
    pub place: Option<Place>,
}

impl Diagnostic {
    pub fn new(
        code: Code,
        message: impl Into<String>,
        span: Range<usize>,
        label: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            code,
            message: message.into(),
            span,
            label: label.into(),
            labels: Vec::new(),
            notes: Vec::new(),
            place: None,
        }
    }

    /// The severity, which the code fixes.
    pub fn severity(&self) -> Severity {
        self.code.severity()
    }

    /// Records where the expression the diagnostic is about occurs.
    pub(crate) fn at_place(mut self, place: Place) -> Diagnostic {
        self.place = Some(place);
        self
    }

    pub(crate) fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    pub(crate) fn with_label(
        mut self,
        span: Range<usize>,
        message: impl Into<String>,
    ) -> Diagnostic {
        self.labels.push(Label {
            span,
            message: message.into(),
        });
        self
    }
}

/// Renders diagnostics as codespan text (no colour), in the given order.
///
/// Spans outside the source are clamped to it, so rendering cannot fail on
/// a bad span. A source line longer than [`window::LONG_LINE`] characters is shown
/// as a window around the diagnostic's column, cut with `…` (the header
/// still gives the line and column of the file); messages, labels and
/// notes longer than [`LONG_TEXT`] characters are cut in the middle.
pub(crate) fn render(path: &str, source: &str, diagnostics: &[Diagnostic]) -> String {
    let config = term::Config::default();
    let mut out = String::new();
    for d in diagnostics {
        let d = &shortened(d);
        let clamp = |r: &Range<usize>| {
            let start = floor_char_boundary(source, r.start.min(source.len()));
            let end = floor_char_boundary(source, r.end.min(source.len()).max(start));
            start..end
        };
        let mut spans: Vec<Range<usize>> = Vec::new();
        // A whole-file note (empty span, no label) is rendered without a
        // source snippet.
        if !(d.label.is_empty() && d.span.is_empty()) {
            spans.push(clamp(&d.span));
        }
        spans.extend(d.labels.iter().map(|l| clamp(&l.span)));
        let file = window::Windowed::new(path, source, &spans);
        let mut labels = Vec::new();
        let mut at = 0;
        if !(d.label.is_empty() && d.span.is_empty()) {
            labels.push(CsLabel::primary((), file.span(&spans[0])).with_message(d.label.clone()));
            at = 1;
        }
        for (l, span) in d.labels.iter().zip(&spans[at..]) {
            labels.push(CsLabel::secondary((), file.span(span)).with_message(l.message.clone()));
        }
        let cs = match d.severity() {
            Severity::Error => CsDiagnostic::error(),
            Severity::Warning => CsDiagnostic::warning(),
            Severity::Note => CsDiagnostic::note(),
        }
        .with_code(d.code.as_str())
        .with_message(d.message.clone())
        .with_labels(labels)
        .with_notes(d.notes.clone());
        match term::emit_into_string(&config, &file, &cs) {
            Ok(text) => out.push_str(&text),
            Err(e) => {
                out.push_str(&format!(
                    "{}[{}]: {} (could not render: {e})\n",
                    severity_word(d.severity()),
                    d.code,
                    d.message
                ));
            }
        }
    }
    out
}

/// Messages, labels and notes longer than this many characters are cut.
pub(crate) const LONG_TEXT: usize = 240;

/// `text` cut in the middle with ` … ` when it has more than
/// [`LONG_TEXT`] characters (a diagnostic that quotes a statement of a
/// 167 KB line quotes its start and its end).
pub(crate) fn shorten(text: &str) -> String {
    let n = text.chars().count();
    if n <= LONG_TEXT {
        return text.to_string();
    }
    let head: String = text.chars().take(LONG_TEXT * 2 / 3).collect();
    let tail: String = text.chars().skip(n - LONG_TEXT / 4).collect();
    format!("{head} … {tail}")
}

/// `d` with its message, labels and notes [`shorten`]ed.
fn shortened(d: &Diagnostic) -> Diagnostic {
    let mut d = d.clone();
    d.message = shorten(&d.message);
    d.label = shorten(&d.label);
    for l in &mut d.labels {
        l.message = shorten(&l.message);
    }
    for n in &mut d.notes {
        *n = shorten(n);
    }
    d
}

/// One line per diagnostic: `path:line:col: severity: message [CODE]`
/// (the form of compilers, for editors and CI problem matchers); a
/// whole-file note has no position (`path: note: ...`).
pub(crate) fn render_short(path: &str, source: &str, diagnostics: &[Diagnostic]) -> String {
    let mut out = String::new();
    for d in diagnostics {
        let d = &shortened(d);
        let at = if d.span.is_empty() && d.label.is_empty() {
            String::new()
        } else {
            let (line, col) = line_col(source, d.span.start);
            format!(":{line}:{col}")
        };
        out.push_str(&format!(
            "{path}{at}: {}: {} [{}]\n",
            severity_word(d.severity()),
            d.message,
            d.code
        ));
    }
    out
}

/// A diagnostic as a JSON object: file, code, severity, message, the
/// primary span (byte range, and 1-based line and column of its start and
/// end; no position for a whole-file note), its label, secondary labels
/// and notes.
pub(crate) fn to_json(path: &str, source: &str, d: &Diagnostic) -> serde_json::Value {
    let d = &shortened(d);
    let span = |r: &Range<usize>| {
        let (line, column) = line_col(source, r.start);
        let (end_line, end_column) = line_col(source, r.end);
        serde_json::json!({
            "start": r.start, "end": r.end,
            "line": line, "column": column,
            "end_line": end_line, "end_column": end_column,
        })
    };
    let whole_file = d.span.is_empty() && d.label.is_empty();
    serde_json::json!({
        "file": path,
        "code": d.code.as_str(),
        "severity": severity_word(d.severity()),
        "message": d.message,
        "span": if whole_file { serde_json::Value::Null } else { span(&d.span) },
        "label": d.label,
        "labels": d.labels.iter().map(|l| serde_json::json!({
            "span": span(&l.span),
            "message": l.message,
        })).collect::<Vec<_>>(),
        "notes": d.notes,
    })
}

/// One JSON object per line per diagnostic ([`to_json`]).
pub(crate) fn render_json(path: &str, source: &str, diagnostics: &[Diagnostic]) -> String {
    let mut out = String::new();
    for d in diagnostics {
        out.push_str(&to_json(path, source, d).to_string());
        out.push('\n');
    }
    out
}
