//! Writing a file atomically: a temporary file in the same directory, synced,
//! then renamed over the target, so that a reader never sees a half-written
//! file and a failure leaves the original untouched.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

/// Replaces the contents of `path` with `contents` atomically, keeping the
/// original file's permissions.
pub fn write_atomically(path: &Path, contents: &[u8]) -> io::Result<()> {
    let metadata = fs::metadata(path)?;
    if metadata.permissions().readonly() {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "file is read-only",
        ));
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::env::current_dir()?,
    };
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp_path = dir.join(format!(".{file_name}.polyfold-{}.tmp", std::process::id()));
    let result = (|| {
        let mut tmp = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp_path)?;
        tmp.write_all(contents)?;
        tmp.set_permissions(metadata.permissions())?;
        tmp.sync_all()?;
        drop(tmp);
        fs::rename(&tmp_path, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp_path);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_contents_and_leaves_no_temporary() {
        let dir = std::env::temp_dir().join(format!("polyfold-atomic-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let file = dir.join("k.c");
        fs::write(&file, "old").unwrap();
        write_atomically(&file, b"new").unwrap();
        assert_eq!(fs::read_to_string(&file).unwrap(), "new");
        let leftovers: Vec<_> = fs::read_dir(&dir).unwrap().filter_map(|e| e.ok()).collect();
        assert_eq!(leftovers.len(), 1, "only the target remains");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn missing_file_is_an_error_and_creates_nothing() {
        let file = std::env::temp_dir().join(format!("polyfold-missing-{}.c", std::process::id()));
        assert!(write_atomically(&file, b"x").is_err());
        assert!(!file.exists());
    }
}
