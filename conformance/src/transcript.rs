//! The per-case wire transcript: every line sent and received, with bounded size, so a failure
//! can be shown with what actually crossed the wire (h2spec / autobahn style wire logs).

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use serde::{Deserialize, Serialize};

/// At most this many bytes of one line are kept in a transcript.
pub const MAX_LINE_BYTES: usize = 2048;
/// At most this many entries are kept per case; later ones are counted, not stored.
pub const MAX_ENTRIES: usize = 200;
/// At most this many server notifications are kept per case (within [`MAX_ENTRIES`]); later
/// ones are counted only, so a server that floods notifications does not push the requests and
/// responses that decide the verdict out of the transcript.
pub const MAX_NOTIFICATIONS: usize = 20;

/// One transcript row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// `c2s` (runner to server), `s2c` (server to runner), `stderr` (server diagnostics) or
    /// `note` (what the runner did, e.g. "closed stdin").
    pub dir: String,
    /// Milliseconds since the case started.
    pub ms: u64,
    /// The line (compact JSON or raw text), cut at [`MAX_LINE_BYTES`] with a marker.
    pub line: String,
}

#[derive(Debug, Default)]
struct Inner {
    entries: Vec<Entry>,
    dropped: u64,
    notifications: usize,
    notifications_dropped: u64,
}

/// A shared, bounded transcript recorder (the scheduler keeps a handle so the transcript
/// survives a case that timed out).
#[derive(Debug, Clone)]
pub struct Transcript {
    start: Instant,
    inner: Arc<Mutex<Inner>>,
}

impl Default for Transcript {
    fn default() -> Self {
        Self::new()
    }
}

impl Transcript {
    /// An empty transcript whose clock starts now.
    #[must_use]
    pub fn new() -> Self {
        Self {
            start: Instant::now(),
            inner: Arc::default(),
        }
    }

    /// Records one row; `line` bytes beyond the bound are cut (without splitting a character).
    pub fn record(&self, dir: &str, line: &[u8]) {
        let ms = u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX);
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        if inner.entries.len() >= MAX_ENTRIES {
            inner.dropped += 1;
            return;
        }
        inner.entries.push(Entry {
            dir: dir.to_owned(),
            ms,
            line: clip(line),
        });
    }

    /// Records a notification from the server, under [`MAX_NOTIFICATIONS`].
    pub fn record_notification(&self, line: &[u8]) {
        {
            let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
            if inner.notifications >= MAX_NOTIFICATIONS {
                inner.notifications_dropped += 1;
                return;
            }
            inner.notifications += 1;
        }
        self.record("s2c", line);
    }

    /// Records a note of the runner's own.
    pub fn note(&self, text: &str) {
        self.record("note", text.as_bytes());
    }

    /// The rows so far (plus a final note when rows were dropped).
    #[must_use]
    pub fn entries(&self) -> Vec<Entry> {
        let inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let mut out = inner.entries.clone();
        if inner.notifications_dropped > 0 {
            out.push(Entry {
                dir: "note".into(),
                ms: out.last().map_or(0, |e| e.ms),
                line: format!(
                    "… {} more notifications from the server not kept",
                    inner.notifications_dropped
                ),
            });
        }
        if inner.dropped > 0 {
            out.push(Entry {
                dir: "note".into(),
                ms: out.last().map_or(0, |e| e.ms),
                line: format!("… {} more rows not kept", inner.dropped),
            });
        }
        out
    }
}

/// Cuts a line for display: valid UTF-8 up to the bound, then a marker with the full length.
#[must_use]
pub fn clip(line: &[u8]) -> String {
    clip_to(line, MAX_LINE_BYTES)
}

/// Like [`clip`] with a bound of `max` bytes.
#[must_use]
pub fn clip_to(line: &[u8], max: usize) -> String {
    if line.len() <= max {
        return String::from_utf8_lossy(line).into_owned();
    }
    // A lossy conversion may end in a replacement char for a split sequence: fine for display.
    let text = String::from_utf8_lossy(&line[..max]);
    format!("{text}… ({} bytes in all)", line.len())
}
