//! The library's typed errors: what went wrong and with which file or command.

use std::path::PathBuf;

/// Everything the library can fail with.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file could not be read, created or written.
    #[error("cannot {what} {path}: {source}")]
    Io {
        /// What was being done (`read`, `create`, …).
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The recording file exists and `--overwrite` was not given.
    #[error("{0} exists: pass --overwrite to replace it")]
    Exists(PathBuf),
    /// The recording path is a symbolic link: never written through.
    #[error("{0} is a symbolic link: refusing to write through it")]
    Symlink(PathBuf),
    /// A recording line is not a valid row.
    #[error("{path} line {line}: {reason}")]
    BadRow {
        /// The recording.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// A rules file is not valid.
    #[error("rules {path}: {reason}")]
    BadRules {
        /// The rules file (`<built-in>` for the embedded set).
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The peer could not be started.
    #[error("cannot start {program}: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// Writing to or reading from the peer failed.
    #[error("peer i/o: {0}")]
    Peer(std::io::Error),
}

impl Error {
    /// An [`Error::Io`] for `path`.
    pub(crate) fn io(what: &'static str, path: &std::path::Path, source: std::io::Error) -> Self {
        Self::Io {
            what,
            path: path.to_path_buf(),
            source,
        }
    }
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
