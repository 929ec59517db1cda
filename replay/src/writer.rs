//! Writing recording rows as lines pass: each line of a direction becomes one `{"dir","ms",…}`
//! row, flushed at once (a recording can be followed while it is made).
//!
//! Lines are split by `mcp-wire`'s bounded decoder, so a peer cannot make the recorder hold more
//! than the bound (by default the stdio frame bound, 4 MiB, T6). A line over the bound still
//! passes through unchanged (the proxy forwards bytes, not lines); only its row is cut: it is
//! recorded as `{"oversized": {"len", "head"}}`, its length and its first [`HEAD_BYTES`] bytes as
//! text. A line that is not JSON is `{"raw": "…"}` (invalid UTF-8 becomes U+FFFD); blank lines
//! are not recorded.

use std::fs::File;
use std::io::Write as _;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use mcp_wire::{DecodeEvent, FrameDecoder};
use serde_json::{Value, json};

/// The default line bound: the stdio frame bound of the reference adapter (T6).
pub const DEFAULT_MAX_LINE_BYTES: usize = 4 * 1024 * 1024;

/// How much of an oversized line its row keeps.
pub const HEAD_BYTES: usize = 256;

/// The recording file, shared by the directions.
#[derive(Debug, Clone)]
pub struct RowWriter {
    inner: Arc<Mutex<Inner>>,
    start: Instant,
}

#[derive(Debug)]
struct Inner {
    file: File,
    failed: Option<String>,
}

impl RowWriter {
    /// Writes rows to `file`, `ms` counted from now.
    #[must_use]
    pub fn new(file: File) -> Self {
        Self {
            inner: Arc::new(Mutex::new(Inner { file, failed: None })),
            start: Instant::now(),
        }
    }

    /// Milliseconds since the recording started.
    #[must_use]
    pub fn ms(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// Writes one row (a JSON object) as a line. After a write error nothing more is written;
    /// the error is kept for [`RowWriter::failure`].
    pub fn row(&self, row: &Value) {
        let mut line = row.to_string().into_bytes();
        line.push(b'\n');
        let Ok(mut inner) = self.inner.lock() else {
            return;
        };
        if inner.failed.is_some() {
            return;
        }
        if let Err(e) = inner.file.write_all(&line) {
            inner.failed = Some(e.to_string());
        }
    }

    /// Why recording stopped, if it did.
    #[must_use]
    pub fn failure(&self) -> Option<String> {
        self.inner.lock().ok().and_then(|i| i.failed.clone())
    }

    /// A line splitter recording the lines of direction `dir`.
    #[must_use]
    pub fn direction(&self, dir: &'static str, max_line_bytes: usize) -> Direction {
        Direction {
            writer: self.clone(),
            dir,
            decoder: FrameDecoder::new(max_line_bytes),
            head: Vec::new(),
        }
    }
}

/// One direction's line splitter.
#[derive(Debug)]
pub struct Direction {
    writer: RowWriter,
    dir: &'static str,
    decoder: FrameDecoder,
    head: Vec<u8>,
}

impl Direction {
    /// Feeds bytes as they pass; records every line they complete.
    pub fn feed(&mut self, data: &[u8]) {
        let (writer, dir, head) = (&self.writer, self.dir, &mut self.head);
        self.decoder.decode(data, &mut |event| match event {
            DecodeEvent::Line(line) => {
                if let Some(row) = line_row(dir, writer.ms(), line) {
                    writer.row(&row);
                }
            }
            DecodeEvent::OversizedStart => head.clear(),
            DecodeEvent::OversizedChunk(chunk) => {
                let room = HEAD_BYTES.saturating_sub(head.len());
                head.extend_from_slice(&chunk[..room.min(chunk.len())]);
            }
            DecodeEvent::OversizedEnd { len } => {
                let text = String::from_utf8_lossy(head).into_owned();
                writer.row(&json!({"dir": dir, "ms": writer.ms(),
                    "oversized": {"len": len, "head": text}}));
                head.clear();
            }
        });
    }

    /// The stream ended: a last line without a newline is recorded too.
    pub fn finish(&mut self) {
        self.feed(b"\n");
    }
}

/// The row of one complete line, `None` for a blank line.
#[must_use]
pub fn line_row(dir: &str, ms: u64, line: &[u8]) -> Option<Value> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    Some(match serde_json::from_slice::<Value>(line) {
        Ok(msg) => json!({"dir": dir, "ms": ms, "msg": msg}),
        Err(_) => json!({"dir": dir, "ms": ms, "raw": String::from_utf8_lossy(line)}),
    })
}
