//! Scratch directories for the programs the benchmarks (and the test
//! campaign) compile and run.

use std::path::PathBuf;

/// A fresh scratch directory under the system temporary directory.
pub fn scratch_dir(tag: &str) -> std::io::Result<PathBuf> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let path = std::env::temp_dir().join(format!("polyfold-{tag}-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&path)?;
    Ok(path)
}
