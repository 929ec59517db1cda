//! The `events` stream: every byte the agent writes on stdout, forwarded line by line, with the
//! client's own records (`{"acp_client": ...}`) interleaved at line boundaries.
//!
//! Writes are awaited, so a slow reader of `events` slows the reading of the agent (backpressure)
//! and nothing piles up here. A record that falls while an oversized agent line is being
//! forwarded (a cancel) waits for that line's end, so records never split a line.

use serde_json::Value;
use tokio::io::{AsyncWrite, AsyncWriteExt};

pub(crate) struct EventSink<E> {
    out: E,
    /// An oversized line has been started and not ended.
    mid_line: bool,
    /// Records held back while `mid_line` (only the cancel record can fall there).
    deferred: Vec<Vec<u8>>,
    /// The first write error; once set nothing more is written.
    pub(crate) error: Option<String>,
}

impl<E: AsyncWrite + Unpin + Send> EventSink<E> {
    pub(crate) fn new(out: E) -> Self {
        Self {
            out,
            mid_line: false,
            deferred: Vec::new(),
            error: None,
        }
    }

    /// Forwards one complete agent line (a newline is added back).
    pub(crate) async fn line(&mut self, line: &[u8]) {
        self.write(line).await;
        self.write(b"\n").await;
    }

    /// Forwards a piece of an oversized line.
    pub(crate) async fn chunk(&mut self, piece: &[u8]) {
        self.mid_line = true;
        self.write(piece).await;
    }

    /// Ends an oversized line, then writes any record held back meanwhile.
    pub(crate) async fn end_oversized(&mut self) {
        if self.mid_line {
            self.write(b"\n").await;
            self.mid_line = false;
        }
        for record in std::mem::take(&mut self.deferred) {
            self.write(&record).await;
        }
    }

    /// Writes one client record as its own line.
    pub(crate) async fn record(&mut self, record: &Value) {
        self.record_text(&record.to_string()).await;
    }

    /// A record already serialised (one compact JSON object, no newline).
    pub(crate) async fn record_text(&mut self, record: &str) {
        let mut bytes = record.as_bytes().to_vec();
        bytes.push(b'\n');
        if self.mid_line {
            self.deferred.push(bytes);
        } else {
            self.write(&bytes).await;
        }
    }

    /// Flushes what was written (before the client waits on the agent again).
    pub(crate) async fn flush(&mut self) {
        if self.error.is_none()
            && let Err(e) = self.out.flush().await
        {
            self.error = Some(format!("flushing events failed: {e}"));
        }
    }

    async fn write(&mut self, bytes: &[u8]) {
        if self.error.is_none()
            && let Err(e) = self.out.write_all(bytes).await
        {
            self.error = Some(format!("writing events failed: {e}"));
        }
    }
}
