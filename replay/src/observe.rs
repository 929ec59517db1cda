//! Reading a peer's stdout as bounded lines on a thread of its own, each line handed over as an
//! [`Observed`] event with its arrival time: the waits of `run` and `serve` block on this channel
//! with a bound, never on the peer.

use std::io::Read;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::Instant;

use mcp_wire::{DecodeEvent, FrameDecoder};
use serde_json::{Value, json};

/// One line the peer wrote.
#[derive(Debug, Clone, PartialEq)]
pub enum Observed {
    /// A JSON value.
    Msg(Value),
    /// A line that was not JSON (lossy UTF-8).
    Raw(String),
    /// A line over the bound: its length.
    Oversized(u64),
}

impl Observed {
    /// As a message for the transcript: non-JSON lines become `{"[raw line]": …}` /
    /// `{"[oversized line]": len}` (answers to no request, so they show in that section).
    #[must_use]
    pub fn as_message(&self) -> Value {
        match self {
            Self::Msg(v) => v.clone(),
            Self::Raw(t) => json!({"[raw line]": t}),
            Self::Oversized(len) => json!({"[oversized line]": len}),
        }
    }

    /// As a recording row of direction `dir`.
    #[must_use]
    pub fn row(&self, dir: &str, ms: u64) -> Value {
        match self {
            Self::Msg(v) => json!({"dir": dir, "ms": ms, "msg": v}),
            Self::Raw(t) => json!({"dir": dir, "ms": ms, "raw": t}),
            Self::Oversized(len) => json!({"dir": dir, "ms": ms, "oversized": {"len": len}}),
        }
    }
}

/// Starts the reader; the channel closes at the peer's EOF.
pub fn spawn<R: Read + Send + 'static>(
    mut from: R,
    max_line_bytes: usize,
    start: Instant,
) -> Receiver<(u64, Observed)> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let mut decoder = FrameDecoder::new(max_line_bytes);
        let mut buf = vec![0u8; 64 * 1024];
        let ms = || u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
        loop {
            let n = match from.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            };
            decoder.decode(&buf[..n], &mut |e| emit(&tx, ms(), e));
        }
        decoder.decode(b"\n", &mut |e| emit(&tx, ms(), e));
    });
    rx
}

fn emit(tx: &Sender<(u64, Observed)>, ms: u64, event: DecodeEvent<'_>) {
    let obs = match event {
        DecodeEvent::Line(line) => {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.iter().all(u8::is_ascii_whitespace) {
                return;
            }
            match serde_json::from_slice(line) {
                Ok(v) => Observed::Msg(v),
                Err(_) => Observed::Raw(String::from_utf8_lossy(line).into_owned()),
            }
        }
        DecodeEvent::OversizedEnd { len } => Observed::Oversized(len),
        DecodeEvent::OversizedStart | DecodeEvent::OversizedChunk(_) => return,
    };
    let _ = tx.send((ms, obs));
}
