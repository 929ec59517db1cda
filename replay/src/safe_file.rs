//! Creating recording files safely: a recording holds prompts and output, so it is created
//! `0600`, never opened through a symbolic link (`O_NOFOLLOW`), never replaces an existing file
//! unless asked (`--overwrite`), and is only truncated after it was opened as a regular file, so a
//! link swapped in never gets truncated. Blessed goldens are written atomically: a temporary file
//! in the same folder, then `rename`.

use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The mode of every file this crate writes.
pub const MODE: u32 = 0o600;

/// Creates `path` for writing a recording: a new file (`O_CREAT | O_EXCL`), or with `overwrite`
/// an existing regular file, emptied after it was opened without following links.
pub fn create(path: &Path, overwrite: bool) -> Result<File> {
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(Error::Symlink(path.to_path_buf()));
    }
    let fresh = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(MODE)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path);
    match fresh {
        Ok(f) => Ok(f),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && !overwrite => {
            Err(Error::Exists(path.to_path_buf()))
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => reopen(path),
        Err(e) => Err(open_error(path, e)),
    }
}

/// Opens an existing file without following a link, checks it is a regular file, empties it and
/// makes it `0600`.
fn reopen(path: &Path) -> Result<File> {
    let f = OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| open_error(path, e))?;
    let meta = f.metadata().map_err(|e| Error::io("inspect", path, e))?;
    if !meta.file_type().is_file() {
        return Err(Error::io(
            "overwrite",
            path,
            std::io::Error::other("not a regular file"),
        ));
    }
    f.set_len(0).map_err(|e| Error::io("truncate", path, e))?;
    f.set_permissions(std::fs::Permissions::from_mode(MODE))
        .map_err(|e| Error::io("chmod", path, e))?;
    Ok(f)
}

/// `ELOOP` from `O_NOFOLLOW` means a link was swapped in after the first check.
fn open_error(path: &Path, e: std::io::Error) -> Error {
    if e.raw_os_error() == Some(libc::ELOOP) {
        Error::Symlink(path.to_path_buf())
    } else {
        Error::io("create", path, e)
    }
}

/// Replaces `path` with `text` atomically: written to a new `0600` file beside it, synced, then
/// renamed over it (a link at `path` is replaced, never written through).
pub fn write_atomically(path: &Path, text: &str) -> Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "recording".into());
    let mut attempt = 0u32;
    let (tmp, mut f) = loop {
        let tmp = dir.join(format!(".{name}.{}.{attempt}.tmp", std::process::id()));
        match create(&tmp, false) {
            Ok(f) => break (tmp, f),
            Err(Error::Exists(_)) if attempt < 100 => attempt += 1,
            Err(e) => return Err(e),
        }
    };
    let written = f
        .write_all(text.as_bytes())
        .and_then(|()| f.sync_all())
        .map_err(|e| Error::io("write", &tmp, e));
    drop(f);
    if let Err(e) = written
        .and_then(|()| std::fs::rename(&tmp, path).map_err(|e| Error::io("rename onto", path, e)))
    {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;
    use std::os::unix::fs::PermissionsExt as _;

    use super::*;

    fn mode(p: &Path) -> u32 {
        std::fs::metadata(p).expect("meta").permissions().mode() & 0o777
    }

    #[test]
    fn a_new_recording_is_0600() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("r.jsonl");
        let mut f = create(&p, false).expect("create");
        f.write_all(b"x\n").expect("write");
        assert_eq!(mode(&p), 0o600);
    }

    #[test]
    fn an_existing_file_is_refused_unless_overwrite_then_emptied_and_0600() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("r.jsonl");
        std::fs::write(&p, "old\n").expect("write");
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        assert!(matches!(create(&p, false), Err(Error::Exists(_))));
        assert_eq!(std::fs::read_to_string(&p).expect("read"), "old\n");
        drop(create(&p, true).expect("overwrite"));
        assert_eq!(std::fs::read_to_string(&p).expect("read"), "");
        assert_eq!(mode(&p), 0o600);
    }

    #[test]
    fn a_symlink_is_refused_and_its_target_never_truncated() {
        let dir = tempfile::tempdir().expect("tempdir");
        let target = dir.path().join("target");
        std::fs::write(&target, "keep\n").expect("write");
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).expect("symlink");
        for overwrite in [false, true] {
            assert!(matches!(create(&link, overwrite), Err(Error::Symlink(_))));
        }
        // A dangling link too (O_EXCL would create its target otherwise).
        let dangling = dir.path().join("dangling");
        std::os::unix::fs::symlink(dir.path().join("nowhere"), &dangling).expect("symlink");
        assert!(matches!(create(&dangling, true), Err(Error::Symlink(_))));
        assert!(!dir.path().join("nowhere").exists());
        assert_eq!(std::fs::read_to_string(&target).expect("read"), "keep\n");
    }

    #[test]
    fn an_atomic_write_replaces_a_link_not_its_target() {
        let dir = tempfile::tempdir().expect("tempdir");
        let target = dir.path().join("target");
        std::fs::write(&target, "keep\n").expect("write");
        let link = dir.path().join("golden.jsonl");
        std::os::unix::fs::symlink(&target, &link).expect("symlink");
        write_atomically(&link, "new\n").expect("write");
        assert_eq!(std::fs::read_to_string(&target).expect("read"), "keep\n");
        assert_eq!(std::fs::read_to_string(&link).expect("read"), "new\n");
        assert!(
            !std::fs::symlink_metadata(&link)
                .expect("meta")
                .file_type()
                .is_symlink()
        );
        assert_eq!(mode(&link), 0o600);
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .expect("dir")
            .filter_map(Result::ok)
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names.len(), 2, "no temporary file left: {names:?}");
    }
}
