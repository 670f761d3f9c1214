//! Writing a file atomically: a temporary file in the same directory, synced,
//! then renamed over the target, so that a reader never sees a half-written
//! file and a failure leaves the original untouched.
//!
//! A symbolic link is written through: the file it points to (after every
//! link in the chain is followed) gets the new contents and the link stays a
//! link. The new file keeps the original's permission bits and, where the
//! process is allowed to set them, its owner and group.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Replaces the contents of `path` (or of the file a symbolic link `path`
/// points to) with `contents` atomically, keeping the original file's
/// permissions and, where permitted, its owner.
pub(crate) fn write_atomically(path: &Path, contents: &[u8]) -> io::Result<()> {
    let target = resolve_links(path)?;
    let metadata = fs::metadata(&target)?;
    if !metadata.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    if metadata.permissions().readonly() {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "file is read-only",
        ));
    }
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::env::current_dir()?,
    };
    let file_name = target
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
        keep_owner(&tmp_path, &metadata);
        tmp.set_permissions(metadata.permissions())?;
        tmp.sync_all()?;
        drop(tmp);
        fs::rename(&tmp_path, &target)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp_path);
    }
    result
}

/// The file `path` names once every symbolic link is followed (relative
/// link targets are resolved against the link's own directory). The file
/// itself need not be canonical: only the links are replaced.
fn resolve_links(path: &Path) -> io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    // The same limit as the kernel's (ELOOP past 40 links).
    for _ in 0..40 {
        let meta = fs::symlink_metadata(&current)?;
        if !meta.file_type().is_symlink() {
            return Ok(current);
        }
        let link = fs::read_link(&current)?;
        current = if link.is_absolute() {
            link
        } else {
            match current.parent() {
                Some(dir) => dir.join(link),
                None => link,
            }
        };
    }
    Err(io::Error::other("too many levels of symbolic links"))
}

/// Gives `tmp` the owner and group of the original file where the process
/// may (root, or a group the user belongs to); otherwise the new file keeps
/// the process's own, as any editor's save would.
#[cfg(unix)]
fn keep_owner(tmp: &Path, original: &fs::Metadata) {
    use std::os::unix::fs::MetadataExt;
    if std::os::unix::fs::chown(tmp, Some(original.uid()), Some(original.gid())).is_err() {
        let _ = std::os::unix::fs::chown(tmp, None, Some(original.gid()));
    }
}

#[cfg(not(unix))]
fn keep_owner(_tmp: &Path, _original: &fs::Metadata) {}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("polyfold-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn replaces_contents_and_leaves_no_temporary() {
        let dir = scratch("atomic");
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

    #[cfg(unix)]
    #[test]
    fn writes_through_a_chain_of_relative_links_and_keeps_the_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch("atomic-links");
        fs::create_dir_all(dir.join("real")).unwrap();
        let real = dir.join("real/k.c");
        fs::write(&real, "old").unwrap();
        fs::set_permissions(&real, fs::Permissions::from_mode(0o640)).unwrap();
        std::os::unix::fs::symlink("real/k.c", dir.join("first.c")).unwrap();
        std::os::unix::fs::symlink("first.c", dir.join("second.c")).unwrap();
        write_atomically(&dir.join("second.c"), b"new").unwrap();
        assert_eq!(fs::read_to_string(&real).unwrap(), "new");
        for link in ["first.c", "second.c"] {
            let meta = fs::symlink_metadata(dir.join(link)).unwrap();
            assert!(meta.file_type().is_symlink(), "{link} is still a link");
        }
        let mode = fs::metadata(&real).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
        let leftovers = fs::read_dir(dir.join("real")).unwrap().count();
        assert_eq!(leftovers, 1, "no temporary left beside the target");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_dangling_or_looping_link_is_an_error() {
        let dir = scratch("atomic-dangling");
        std::os::unix::fs::symlink("nowhere.c", dir.join("dangling.c")).unwrap();
        assert!(write_atomically(&dir.join("dangling.c"), b"x").is_err());
        assert!(!dir.join("nowhere.c").exists());
        std::os::unix::fs::symlink("b.c", dir.join("a.c")).unwrap();
        std::os::unix::fs::symlink("a.c", dir.join("b.c")).unwrap();
        assert!(write_atomically(&dir.join("a.c"), b"x").is_err());
        fs::remove_dir_all(&dir).unwrap();
    }
}
