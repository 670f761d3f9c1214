//! Golden files (snapshots): compare a text with the committed expectation,
//! or rewrite the expectation ("bless") after a deliberate change.
//!
//! This is the one mechanism behind every golden file of the project: the
//! grammar cases, the corpus dumps and per-stage snapshots of the tests
//! (through `tests/common/snapshot.rs`, blessed with `POLYFOLD_BLESS=1`)
//! and the golden outputs of `polyfold bench` (blessed with `--bless`). A
//! mismatch is reported as a unified diff from the expectation to the
//! actual text; a missing expectation says how to create it. It does not
//! normalise anything: the texts must be equal byte for byte.

use std::path::Path;

/// At most this many lines of a diff go into a message (a snapshot of a
/// large conflict set can change in thousands of lines).
const MAX_DIFF_LINES: usize = 200;

/// Compares `actual` with the file at `expected`, or, when `bless` is set,
/// writes `actual` there (creating the folder if needed) and succeeds.
///
/// The error is a message for a human: the path, what to run to bless
/// (`how_to_bless`, e.g. `POLYFOLD_BLESS=1 cargo test --release --test
/// grammar`) and, on a mismatch, a unified diff from the expected text to
/// the actual one.
pub fn check_snapshot(
    expected: &Path,
    actual: &str,
    bless: bool,
    how_to_bless: &str,
) -> Result<(), String> {
    let shown = expected.display();
    if bless {
        if let Ok(old) = std::fs::read_to_string(expected)
            && old == actual
        {
            return Ok(());
        }
        if let Some(dir) = expected.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        return std::fs::write(expected, actual).map_err(|e| format!("cannot write {shown}: {e}"));
    }
    let old = match std::fs::read(expected) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!(
                "{shown}: no expected file; create it with `{how_to_bless}` and review it"
            ));
        }
        Err(e) => return Err(format!("{shown}: cannot read: {e}")),
    };
    if old == actual {
        return Ok(());
    }
    Err(format!(
        "{shown}: differs from the actual output (bless with `{how_to_bless}` after reviewing the diff):\n{}",
        snapshot_diff(&shown.to_string(), &old, actual)
    ))
}

/// The unified diff from `expected` to `actual`, cut after
/// [`MAX_DIFF_LINES`] lines.
pub fn snapshot_diff(name: &str, expected: &str, actual: &str) -> String {
    let diff = similar::TextDiff::from_lines(expected, actual)
        .unified_diff()
        .context_radius(3)
        .header(&format!("expected {name}"), "actual")
        .to_string();
    let total = diff.lines().count();
    if total <= MAX_DIFF_LINES {
        return diff;
    }
    let mut cut: String = diff
        .lines()
        .take(MAX_DIFF_LINES)
        .flat_map(|l| [l, "\n"])
        .collect();
    cut.push_str(&format!(
        "... ({} more lines of diff)\n",
        total - MAX_DIFF_LINES
    ));
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("polyfold-snapshot-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn equal_text_passes_and_a_change_shows_a_diff() {
        let dir = scratch("diff");
        let path = dir.join("sub/case.txt");
        // Missing and not blessing: a failure that says how to bless.
        let missing = check_snapshot(&path, "a\nb\n", false, "BLESS=1").unwrap_err();
        assert!(missing.contains("no expected file") && missing.contains("BLESS=1"));
        // Blessing creates the folder and the file.
        check_snapshot(&path, "a\nb\nc\n", true, "BLESS=1").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "a\nb\nc\n");
        check_snapshot(&path, "a\nb\nc\n", false, "BLESS=1").unwrap();
        let differs = check_snapshot(&path, "a\nB\nc\n", false, "BLESS=1").unwrap_err();
        assert!(differs.contains("-b\n+B\n"), "{differs}");
        assert!(
            differs.contains(" a\n") && differs.contains(" c\n"),
            "{differs}"
        );
        // The file is untouched by a failed comparison.
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "a\nb\nc\n");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn long_diffs_are_cut() {
        let expected: String = (0..1000).map(|i| format!("{i}\n")).collect();
        let actual: String = (0..1000).map(|i| format!("x{i}\n")).collect();
        let diff = snapshot_diff("big", &expected, &actual);
        assert_eq!(diff.lines().count(), MAX_DIFF_LINES + 1);
        assert!(diff.ends_with("... (1803 more lines of diff)\n"), "{diff}");
    }
}
