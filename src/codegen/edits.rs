//! Byte-range edits on the original text: the product of code generation.
//!
//! Code generation never prints an AST. It produces a list of [`Edit`]s
//! (insertions, deletions, replacements of byte ranges of the original
//! source) which [`apply_edits`] applies in one sorted pass. Everything not
//! covered by an edit stays byte-for-byte as it was. Overlapping edits are a
//! bug in the caller and are reported as an error, never silently merged.

use std::fmt;
use std::ops::Range;

/// Replace `range` of the original text by `replacement`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub range: Range<usize>,
    pub replacement: String,
}

impl Edit {
    pub fn replace(range: Range<usize>, replacement: impl Into<String>) -> Edit {
        Edit {
            range,
            replacement: replacement.into(),
        }
    }

    pub fn insert(at: usize, text: impl Into<String>) -> Edit {
        Edit {
            range: at..at,
            replacement: text.into(),
        }
    }

    pub(crate) fn delete(range: Range<usize>) -> Edit {
        Edit {
            range,
            replacement: String::new(),
        }
    }
}

/// Why a set of edits could not be applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EditError {
    /// Two edits touch the same bytes (or two insertions at one point).
    Overlap {
        first: Range<usize>,
        second: Range<usize>,
    },
    /// An edit reaches past the end of the text or splits a UTF-8 character.
    OutOfBounds(Range<usize>),
}

impl fmt::Display for EditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EditError::Overlap { first, second } => {
                write!(
                    f,
                    "internal error: overlapping edits {first:?} and {second:?}"
                )
            }
            EditError::OutOfBounds(r) => write!(f, "internal error: edit {r:?} outside the text"),
        }
    }
}

impl std::error::Error for EditError {}

/// Applies `edits` to `text` in one pass after sorting them by position.
pub fn apply_edits(text: &str, edits: &[Edit]) -> Result<String, EditError> {
    let mut sorted: Vec<&Edit> = edits.iter().collect();
    sorted.sort_by_key(|e| (e.range.start, e.range.end));
    for edit in &sorted {
        let r = &edit.range;
        if r.start > r.end
            || r.end > text.len()
            || !text.is_char_boundary(r.start)
            || !text.is_char_boundary(r.end)
        {
            return Err(EditError::OutOfBounds(r.clone()));
        }
    }
    for pair in sorted.windows(2) {
        let (a, b) = (&pair[0].range, &pair[1].range);
        // Two insertions at the same point would have an unspecified
        // order; an insertion at the start of a deletion or replacement
        // goes before it (sorted by end).
        if b.start < a.end || (a.is_empty() && b.is_empty() && a.start == b.start) {
            return Err(EditError::Overlap {
                first: a.clone(),
                second: b.clone(),
            });
        }
    }
    let mut out = String::with_capacity(text.len());
    let mut cursor = 0;
    for edit in sorted {
        out.push_str(&text[cursor..edit.range.start]);
        out.push_str(&edit.replacement);
        cursor = edit.range.end;
    }
    out.push_str(&text[cursor..]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn applies_sorted_and_keeps_the_rest() {
        let text = "double y[N][N]; y[k][i] = 1;";
        let edits = vec![Edit::replace(21..22, "i % 2"), Edit::replace(12..13, "2")];
        assert_eq!(
            apply_edits(text, &edits).unwrap(),
            "double y[N][2]; y[k][i % 2] = 1;"
        );
    }

    #[test]
    fn rejects_overlaps_and_out_of_bounds() {
        let text = "abcdef";
        let e = apply_edits(text, &[Edit::replace(1..3, "x"), Edit::replace(2..4, "y")]);
        assert!(matches!(e, Err(EditError::Overlap { .. })));
        let e = apply_edits(text, &[Edit::insert(2, "x"), Edit::insert(2, "y")]);
        assert!(matches!(e, Err(EditError::Overlap { .. })));
        assert!(matches!(
            apply_edits(text, &[Edit::delete(4..9)]),
            Err(EditError::OutOfBounds(_))
        ));
        assert_eq!(
            apply_edits(text, &[Edit::delete(0..2), Edit::insert(6, "!")]).unwrap(),
            "cdef!"
        );
        assert_eq!(
            apply_edits(text, &[Edit::delete(2..4), Edit::insert(2, "!")]).unwrap(),
            "ab!ef"
        );
    }
}
