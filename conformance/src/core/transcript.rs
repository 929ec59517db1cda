//! The per-case wire transcript: every line sent and received, with bounded size, so a failure
//! can be shown with what actually crossed the wire (h2spec / autobahn style wire logs).
//!
//! A transcript knows its [`Peer`]: the raw-stdio client talks to an MCP server or an ACP agent,
//! and its directions and notes are written in that peer's words from the start.

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

/// What the runner's raw-stdio client talks to: the words its transcript, notes and errors use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Peer {
    /// An MCP server: directions `c2s`, `s2c`, `stderr`.
    #[default]
    Server,
    /// An ACP agent, in the recordings' words (`recordings/README.md`,
    /// `shared/reference/acp/transcripts/`): `c2a` (client to agent: the runner), `a2c`,
    /// `a2c-stderr`.
    Agent,
}

impl Peer {
    /// The peer's noun in the runner's texts ("the server closed the connection").
    #[must_use]
    pub fn noun(self) -> &'static str {
        match self {
            Self::Server => "server",
            Self::Agent => "agent",
        }
    }

    /// The direction of a line the runner sent to the peer.
    #[must_use]
    pub fn sent(self) -> &'static str {
        match self {
            Self::Server => "c2s",
            Self::Agent => "c2a",
        }
    }

    /// The direction of a line the peer sent on stdout.
    #[must_use]
    pub fn received(self) -> &'static str {
        match self {
            Self::Server => "s2c",
            Self::Agent => "a2c",
        }
    }

    /// The direction of a line the peer wrote on stderr.
    #[must_use]
    pub fn stderr(self) -> &'static str {
        match self {
            Self::Server => "stderr",
            Self::Agent => "a2c-stderr",
        }
    }
}

/// One transcript row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// `c2s` (runner to server), `s2c` (server to runner), `stderr` (server diagnostics), their
    /// [`Peer::Agent`] counterparts, or `note` (what the runner did, e.g. "closed stdin").
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
    peer: Peer,
    inner: Arc<Mutex<Inner>>,
}

impl Default for Transcript {
    fn default() -> Self {
        Self::new()
    }
}

impl Transcript {
    /// An empty transcript of a [`Peer::Server`] whose clock starts now.
    #[must_use]
    pub fn new() -> Self {
        Self::with_peer(Peer::Server)
    }

    /// An empty transcript of `peer` whose clock starts now.
    #[must_use]
    pub fn with_peer(peer: Peer) -> Self {
        Self {
            start: Instant::now(),
            peer,
            inner: Arc::default(),
        }
    }

    /// Whom the lines are exchanged with.
    #[must_use]
    pub fn peer(&self) -> Peer {
        self.peer
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

    /// Records a notification from the peer, under [`MAX_NOTIFICATIONS`].
    pub fn record_notification(&self, line: &[u8]) {
        {
            let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
            if inner.notifications >= MAX_NOTIFICATIONS {
                inner.notifications_dropped += 1;
                return;
            }
            inner.notifications += 1;
        }
        self.record(self.peer.received(), line);
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
                    "… {} more notifications from the {} not kept",
                    inner.notifications_dropped,
                    self.peer.noun()
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
