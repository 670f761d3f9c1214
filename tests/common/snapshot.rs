//! The snapshot helper of every golden-file test: compare a text with its
//! committed expectation, print a unified diff when they differ, and
//! rewrite the expectation with `POLYFOLD_BLESS=1` (then review the diff by
//! hand). The comparison itself is `polyfold::util::snapshot`, the same
//! that `polyfold bench --bless` uses for its golden outputs.

use std::path::Path;

/// Whether `POLYFOLD_BLESS=1` asks to rewrite the expectations.
pub fn bless_requested() -> bool {
    std::env::var_os("POLYFOLD_BLESS").is_some_and(|v| v == "1")
}

/// What to run to bless the expectations of this test crate.
fn how_to_bless() -> String {
    format!(
        "POLYFOLD_BLESS=1 cargo test --release --test {}",
        env!("CARGO_CRATE_NAME")
    )
}

/// `Err` with a unified diff (or a missing-file message) when `actual` is
/// not the text of `expected`; with `POLYFOLD_BLESS=1`, writes it instead.
/// For tests that collect every failure before asserting.
pub fn check_snapshot(expected: &Path, actual: &str) -> Result<(), String> {
    polyfold::util::snapshot::check_snapshot(expected, actual, bless_requested(), &how_to_bless())
}

/// Panics with a unified diff when `actual` is not the text of `expected`;
/// with `POLYFOLD_BLESS=1`, writes it instead.
#[track_caller]
pub fn assert_snapshot(expected: &Path, actual: &str) {
    if let Err(message) = check_snapshot(expected, actual) {
        panic!("{message}");
    }
}
