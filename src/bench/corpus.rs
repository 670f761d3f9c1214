//! What the corpus benchmarks share: the corpus programs of a folder and
//! the median of measured times.

use std::path::{Path, PathBuf};
use std::time::Duration;

/// The median of `v` (zero when empty).
pub(crate) fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

/// The corpus programs of `dir`, sorted.
pub fn corpus_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    files.sort();
    Ok(files)
}
