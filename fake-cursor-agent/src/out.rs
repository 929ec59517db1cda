//! The agent's stdout: one JSON-RPC message per line, flushed at once (a client waits on each
//! line). Only the agent thread writes here. A closed pipe is not an error for a fake: later
//! writes are dropped, the scenario goes on. With a log (`FAKE_CURSOR_LOG`), every write is
//! logged as an `a2c` event just before it goes out, so the log is the whole wire.

use std::io::Write as _;

use serde_json::Value;

use crate::log::Log;

/// stdout, line by line.
#[derive(Default)]
pub struct Out {
    closed: bool,
    log: Option<Log>,
}

impl Out {
    /// stdout whose writes are also logged as `a2c` events.
    pub fn logged(log: Log) -> Self {
        Self {
            closed: false,
            log: Some(log),
        }
    }

    /// Writes `bytes` as they are and flushes; false once the reader is gone.
    pub fn write(&mut self, bytes: &[u8]) -> bool {
        if self.closed {
            return false;
        }
        if let Some(log) = &self.log {
            log.agent_line(bytes);
        }
        let mut out = std::io::stdout().lock();
        if out.write_all(bytes).and_then(|()| out.flush()).is_err() {
            self.closed = true;
        }
        !self.closed
    }

    /// Writes `v` as compact JSON (key order kept) and a newline.
    pub fn send(&mut self, v: &Value) {
        let mut line = v.to_string().into_bytes();
        line.push(b'\n');
        self.write(&line);
    }
}

/// A line on stderr (free-form, as the real agent's logging).
pub fn stderr(text: &str, newline: bool) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(text.as_bytes());
    if newline {
        let _ = err.write_all(b"\n");
    }
    let _ = err.flush();
}
