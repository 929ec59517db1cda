//! The wire recorder behind `--record FILE`: every MCP message (`c2s`, `s2c`), every native
//! stdout line of a print-mode provider (`n2a`) and every line a protocol provider's client
//! exchanges with its agent (`c2a` adapter to agent, `a2c` agent to adapter, ACP) as one JSON row
//! `{"dir","ms","msg"}` (or `"raw"` for a line that is not
//! JSON), `ms` being monotonic milliseconds since the recording started. Callers add rows of
//! their own with [`Recorder::extra`]: the native exit (`{"exit": {"code", "signal"}}`, which
//! closes one native run), an oversized native line (`{"oversized": {"len", "type"}}`) or client
//! line (`{"oversized": {"len"}}`). See `recordings/README.md` for the format and how the golden
//! recordings are replayed.
//!
//! Replay paces on the order of rows, so a row should be written before its effect can be seen:
//! an answer before the client can react to it, a native line before the run it belongs to can
//! settle. Rows are written and flushed one at a time under a lock, so `ms` never decreases.
//!
//! The file holds prompts and native output in clear, so it is opened as a private file: mode
//! `0600` whatever the umask, never through a symbolic link (`O_NOFOLLOW`), and an existing file
//! is refused unless the caller asks to overwrite it; even then a link (symbolic, or a second
//! hard link to another name) or a non-regular file is refused before anything is truncated.

use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::{Map, Value};

/// Direction of a recorded row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// Client to server (MCP request or notification received).
    C2s,
    /// Server to client (MCP response or notification sent).
    S2c,
    /// Native stdout to adapter.
    N2a,
    /// Adapter (as ACP client) to agent stdin.
    C2a,
    /// Agent stdout to adapter (as ACP client).
    A2c,
}

impl Dir {
    /// The row's `dir` string.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Dir::C2s => "c2s",
            Dir::S2c => "s2c",
            Dir::N2a => "n2a",
            Dir::C2a => "c2a",
            Dir::A2c => "a2c",
        }
    }
}

/// The mode of a recording file: it holds prompts and output.
pub const RECORD_MODE: u32 = 0o600;

/// Why a recording file could not be opened.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RecordError {
    /// The path exists and overwriting was not asked for.
    #[error("the file exists")]
    Exists,
    /// The path is a symbolic link (never followed, even when overwriting).
    #[error("the path is a symbolic link")]
    Symlink,
    /// The path is not a regular file with one name (a hard link, a device, a FIFO…).
    #[error("the path is not a regular file with a single link")]
    NotPlain,
    /// Any other I/O failure.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// A shared, cheaply cloned recorder. Write failures are reported once on stderr and then
/// ignored: recording must never disturb the session it records.
#[derive(Clone)]
pub struct Recorder {
    inner: Arc<Mutex<Inner>>,
}

struct Inner {
    out: std::io::BufWriter<std::fs::File>,
    start: Instant,
    failed: bool,
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Recorder")
    }
}

impl Recorder {
    /// Creates `path` as a new private file (mode [`RECORD_MODE`]). An existing path is
    /// [`RecordError::Exists`] unless `overwrite`; a symbolic link is always refused (the
    /// final component is opened `O_NOFOLLOW`), and with `overwrite` an existing file is
    /// truncated only once it is known to be a regular file with a single link.
    pub fn create(path: &Path, overwrite: bool) -> Result<Self, RecordError> {
        let file = open_private(path, overwrite)?;
        Ok(Self {
            inner: Arc::new(Mutex::new(Inner {
                out: std::io::BufWriter::new(file),
                start: Instant::now(),
                failed: false,
            })),
        })
    }

    /// Records one line as it crossed the wire: parsed JSON when it is JSON (key order kept),
    /// else the raw text (lossy UTF-8).
    pub fn line(&self, dir: Dir, bytes: &[u8]) {
        match serde_json::from_slice::<Value>(bytes) {
            Ok(v) => self.row(dir, "msg", v),
            Err(_) => self.row(
                dir,
                "raw",
                String::from_utf8_lossy(bytes).into_owned().into(),
            ),
        }
    }

    /// Records an already parsed message.
    pub fn message(&self, dir: Dir, msg: &Value) {
        self.row(dir, "msg", msg.clone());
    }

    /// Records an arbitrary row with extra fields (e.g. the native exit: `{"exit": {...}}`).
    pub fn extra(&self, dir: Dir, key: &str, value: Value) {
        self.row(dir, key, value);
    }

    fn row(&self, dir: Dir, key: &str, value: Value) {
        let Ok(mut inner) = self.inner.lock() else {
            return;
        };
        if inner.failed {
            return;
        }
        let mut row = Map::new();
        row.insert("dir".into(), dir.as_str().into());
        let ms = u64::try_from(inner.start.elapsed().as_millis()).unwrap_or(u64::MAX);
        row.insert("ms".into(), ms.into());
        row.insert(key.into(), value);
        let mut bytes = Value::Object(row).to_string().into_bytes();
        bytes.push(b'\n');
        let res = inner.out.write_all(&bytes).and_then(|()| inner.out.flush());
        if let Err(e) = res {
            inner.failed = true;
            crate::diag::emit(format!("claude-mcp-adapter: recording stopped: {e}"));
        }
    }
}

/// Opens `path` for writing as described at [`Recorder::create`].
fn open_private(path: &Path, overwrite: bool) -> Result<std::fs::File, RecordError> {
    let mut opts = OpenOptions::new();
    opts.write(true)
        .mode(RECORD_MODE)
        .custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits());
    if overwrite {
        // No O_TRUNC: the file is truncated below, once it is known to be ours to truncate.
        opts.create(true);
    } else {
        // O_EXCL: fails on any existing name, a dangling symbolic link included.
        opts.create_new(true);
    }
    let file = match opts.open(path) {
        Ok(f) => f,
        Err(e) => {
            let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
            return Err(if is_link {
                RecordError::Symlink
            } else if e.kind() == std::io::ErrorKind::AlreadyExists {
                RecordError::Exists
            } else {
                RecordError::Io(e)
            });
        }
    };
    let meta = file.metadata()?;
    if !meta.file_type().is_file() || meta.nlink() != 1 {
        return Err(RecordError::NotPlain);
    }
    // The mode given at creation is cut by the umask, and an overwritten file keeps its own.
    file.set_permissions(std::fs::Permissions::from_mode(RECORD_MODE))?;
    if overwrite {
        file.set_len(0)?;
    }
    Ok(file)
}
