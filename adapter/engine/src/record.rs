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

use std::io::Write;
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
    /// Creates (truncates) `path`.
    pub fn create(path: &Path) -> std::io::Result<Self> {
        let file = std::fs::File::create(path)?;
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
