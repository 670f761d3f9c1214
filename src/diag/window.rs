//! A source file as a diagnostic shows it: each line longer than
//! [`LONG_LINE`] characters is cut to a window around the first
//! span that starts on it, with `…` for what is left out. Line numbers
//! do not change (no line break is removed), and the locations codespan
//! prints are those of the original text.

use std::ops::Range;

use codespan_reporting::files::{Error, Files, Location, line_starts};

/// Source lines longer than this many characters are cut in the human
/// rendering of a diagnostic.
pub(crate) const LONG_LINE: usize = 160;

/// Characters kept before the anchor of a cut line.
const BEFORE: usize = 60;

/// One piece of the shown text: kept text of the original, or a `…`
/// that stands for an original range (`prefix`: before a window).
struct Piece {
    shown: Range<usize>,
    original: Range<usize>,
    kept: bool,
    prefix: bool,
}

pub(crate) struct Windowed<'s> {
    name: &'s str,
    original: &'s str,
    text: String,
    pieces: Vec<Piece>,
    starts: Vec<usize>,
}

/// The byte offset `chars` characters after `from` in `s` (clamped to
/// `end`).
fn advance(s: &str, from: usize, chars: usize, end: usize) -> usize {
    s[from..end]
        .char_indices()
        .nth(chars)
        .map_or(end, |(i, _)| from + i)
}

/// The byte offset `chars` characters before `to` in `s` (not before
/// `start`).
fn back(s: &str, to: usize, chars: usize, start: usize) -> usize {
    s[start..to]
        .char_indices()
        .rev()
        .nth(chars.saturating_sub(1))
        .map_or(start, |(i, _)| start + i)
}

impl<'s> Windowed<'s> {
    /// `source` with its long lines cut around the starts of `spans`.
    pub(crate) fn new(name: &'s str, source: &'s str, spans: &[Range<usize>]) -> Windowed<'s> {
        let mut pieces: Vec<Piece> = Vec::new();
        let mut text = String::new();
        let mut push = |text: &mut String, original: Range<usize>, kept: bool, prefix: bool| {
            let start = text.len();
            if kept {
                text.push_str(&source[original.clone()]);
            } else {
                text.push('…');
            }
            pieces.push(Piece {
                shown: start..text.len(),
                original,
                kept,
                prefix,
            });
        };
        let mut kept_from = 0;
        let mut line_start = 0;
        while line_start < source.len() {
            let line_end = source[line_start..]
                .find('\n')
                .map_or(source.len(), |i| line_start + i);
            let long = line_end - line_start > LONG_LINE
                && source[line_start..line_end].chars().count() > LONG_LINE;
            if long {
                let anchor = spans
                    .iter()
                    .map(|s| s.start)
                    .filter(|&o| (line_start..=line_end).contains(&o))
                    .min()
                    .unwrap_or(line_start);
                let from = back(source, anchor, BEFORE, line_start);
                let to = advance(source, from, LONG_LINE, line_end);
                if from > line_start {
                    push(&mut text, kept_from..line_start, true, false);
                    push(&mut text, line_start..from, false, true);
                    push(&mut text, from..to, true, false);
                } else {
                    push(&mut text, kept_from..to, true, false);
                }
                if to < line_end {
                    push(&mut text, to..line_end, false, false);
                }
                kept_from = line_end;
            }
            line_start = line_end + 1;
        }
        push(&mut text, kept_from..source.len(), true, false);
        pieces.retain(|p| !(p.kept && p.original.is_empty()));
        let starts = line_starts(&text).collect();
        Windowed {
            name,
            original: source,
            text,
            pieces,
            starts,
        }
    }

    /// The shown offset of original offset `o`: inside a cut, the edge of
    /// the window next to it.
    fn shown(&self, o: usize) -> usize {
        for p in &self.pieces {
            if p.original.contains(&o) {
                return if p.kept {
                    p.shown.start + (o - p.original.start)
                } else if p.prefix {
                    p.shown.end
                } else {
                    p.shown.start
                };
            }
        }
        self.text.len()
    }

    /// The original offset of shown offset `o`.
    fn original(&self, o: usize) -> usize {
        for p in &self.pieces {
            if p.shown.contains(&o) {
                return if p.kept {
                    p.original.start + (o - p.shown.start)
                } else if p.prefix {
                    p.original.end
                } else {
                    p.original.start
                };
            }
        }
        self.original.len()
    }

    /// `span` of the original text in the shown text.
    pub(crate) fn span(&self, span: &Range<usize>) -> Range<usize> {
        let start = self.shown(span.start);
        start..self.shown(span.end).max(start)
    }

    #[cfg(test)]
    pub(crate) fn text(&self) -> &str {
        &self.text
    }
}

impl<'a> Files<'a> for Windowed<'_> {
    type FileId = ();
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, (): ()) -> Result<&'a str, Error> {
        Ok(self.name)
    }

    fn source(&'a self, (): ()) -> Result<&'a str, Error> {
        Ok(&self.text)
    }

    fn line_index(&'a self, (): (), byte_index: usize) -> Result<usize, Error> {
        Ok(self
            .starts
            .binary_search(&byte_index)
            .unwrap_or_else(|next| next - 1))
    }

    fn line_range(&'a self, (): (), line_index: usize) -> Result<Range<usize>, Error> {
        let start = *self.starts.get(line_index).ok_or(Error::LineTooLarge {
            given: line_index,
            max: self.starts.len() - 1,
        })?;
        let end = self
            .starts
            .get(line_index + 1)
            .copied()
            .unwrap_or(self.text.len());
        Ok(start..end)
    }

    /// The line and column in the original text.
    fn location(&'a self, (): (), byte_index: usize) -> Result<Location, Error> {
        let (line_number, column_number) = line_col(self.original, self.original(byte_index));
        Ok(Location {
            line_number,
            column_number,
        })
    }
}

/// The 1-based line and column (in characters) of byte `offset` of
/// `source` (clamped to the text).
pub(crate) fn line_col(source: &str, offset: usize) -> (usize, usize) {
    let at = floor_char_boundary(source, offset.min(source.len()));
    let before = &source[..at];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

pub(crate) fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_lines_are_shown_as_they_are() {
        let source = "int a;\nint b;\n";
        let spans = [Range { start: 7, end: 10 }];
        let w = Windowed::new("k.c", source, &spans);
        assert_eq!(w.text(), source);
        assert_eq!(w.span(&(7..10)), 7..10);
    }

    #[test]
    fn a_long_line_is_cut_around_the_span() {
        let long = format!("x = {};", "1 + ".repeat(10_000) + "y[i]");
        let source = format!("int f(void) {{\n{long}\n}}\n");
        let at = source.find("y[i]").unwrap();
        let spans = [Range {
            start: at,
            end: at + 4,
        }];
        let w = Windowed::new("k.c", &source, &spans);
        let line = w.text().lines().nth(1).unwrap();
        assert!(line.starts_with('…'), "{line}");
        assert!(line.chars().count() <= LONG + 2, "{}", line.chars().count());
        let span = w.span(&(at..at + 4));
        assert_eq!(&w.text()[span.clone()], "y[i]");
        // The location is the original one: line 2, column of `y`.
        let column = long.find("y[i]").unwrap() + 1;
        let loc = w.location((), span.start).unwrap();
        assert_eq!((loc.line_number, loc.column_number), (2, column));
        assert_eq!(w.text().lines().count(), 3);
    }

    const LONG: usize = super::LONG_LINE;
}
