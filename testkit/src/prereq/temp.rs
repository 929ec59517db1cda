//! A temporary folder removed on drop (the library cannot use `tempfile`, a dev-dependency only):
//! used for throw-away `HOME` folders of the real CLI.

use std::path::{Path, PathBuf};

/// A fresh folder under the system temporary folder, removed (with its content) on drop.
#[derive(Debug)]
pub struct TempDir {
    path: PathBuf,
}

impl TempDir {
    /// Creates `$TMPDIR/<prefix><uuid>`.
    pub fn new(prefix: &str) -> std::io::Result<TempDir> {
        let path = std::env::temp_dir().join(format!("{prefix}{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&path)?;
        Ok(TempDir { path })
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        // Best effort: a leftover temporary folder is harmless.
        let _ = std::fs::remove_dir_all(&self.path);
    }
}
