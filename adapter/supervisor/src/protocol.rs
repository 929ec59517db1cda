//! The control channel between the adapter and a supervisor: message formats and the bounded
//! line framing both sides use (SUP-2, SUP-3).
//!
//! The channel is one `AF_UNIX` stream socket pair, passed to the supervisor as its stdin:
//! - adapter → supervisor is the **lifeline**. Its EOF (the adapter closed its end, exited, or was
//!   SIGKILLed: the kernel closes the socket either way) means "kill the group now" (SUP-2).
//!   The adapter may also write [`Command`] lines on it.
//! - supervisor → adapter is the **report channel**: [`Report`] lines, at most a handful per run.
//!   EOF there without a [`Report::Cleanup`] is `cleanup_unconfirmed` (SUP-3).
//!
//! Every message is one compact JSON object on one line, at most [`MAX_LINE_BYTES`] long
//! (newline included). A longer line is a protocol violation, never buffered whole. The one
//! exception comes first: the adapter's first byte on the socket is the descriptor frame that
//! carries the job's descriptors (`supervisor/fds.rs`); the job's [`Command::Start`] line follows.

use serde::{Deserialize, Serialize};

/// Longest line either side accepts, newline included.
pub(crate) const MAX_LINE_BYTES: usize = 8 * 1024;

/// Most survivor pids listed in one cleanup report (the count goes into its error text).
pub(crate) const MAX_SURVIVORS_LISTED: usize = 64;

/// Longest message text carried in a report (longer text is cut at a char boundary).
pub(crate) const MAX_MESSAGE_BYTES: usize = 2 * 1024;

/// A line from the supervisor to the adapter, in the order a run produces them:
/// `spawned` (or `spawn_failed`), then `exited`, then `cleanup`; then the supervisor exits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "report", rename_all = "snake_case")]
pub(crate) enum Report {
    /// The native process runs as leader of process group `pid` (SUP-1).
    Spawned {
        /// Its pid, which is also its process group id.
        pid: u32,
    },
    /// The native process could not be started (`spawn_failed`); nothing else follows.
    SpawnFailed {
        /// Why, lowercase, with context.
        message: String,
    },
    /// The group leader ended. It is not reaped yet, so its pid and pgid cannot be reused while
    /// the rest of the group is being killed.
    Exited {
        /// Exit code, when it exited.
        code: Option<i32>,
        /// Signal number, when a signal killed it.
        signal: Option<i32>,
    },
    /// The final word: every process of the group is gone (`confirmed`) or some survived SIGKILL.
    Cleanup {
        /// `true` only when no live process of the group was left and the leader was reaped.
        confirmed: bool,
        /// Pids still alive in the group (at most [`MAX_SURVIVORS_LISTED`]).
        survivors: Vec<u32>,
        /// Cleanup detail when not confirmed.
        error: Option<String>,
    },
}

/// A line from the adapter to the supervisor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "snake_case")]
pub(crate) enum Command {
    /// SUP-3: SIGTERM to the group, the grace, SIGKILL, reap. Repeats are ignored.
    Terminate,
    /// The job, right after the descriptor frame: start the native process. `bytes` bytes of its
    /// order follow the line (`supervisor::order`, at most `order::MAX_ORDER_BYTES`); with
    /// `then_run` it is a version check and the frame also carries the run's three ends.
    Start {
        /// Length of the encoded order that follows.
        bytes: u64,
        /// The native process is a version check the run may follow (C-SUP-1).
        then_run: bool,
    },
    /// Only to a supervisor whose job had `then_run`, after its version check's `cleanup`
    /// report: start the run. `bytes` bytes of the run's order follow the line
    /// (`supervisor::order`, at most `order::MAX_ORDER_BYTES`). The adapter's no-go is the
    /// lifeline's EOF instead.
    Run {
        /// Length of the encoded order that follows.
        bytes: u64,
    },
}

/// Serialises one message as a line (newline included).
#[must_use]
pub(crate) fn encode<T: Serialize>(msg: &T) -> Vec<u8> {
    // Serialising these plain enums cannot fail; an empty object keeps the framing intact anyway.
    let mut line = serde_json::to_vec(msg).unwrap_or_else(|_| b"{}".to_vec());
    line.push(b'\n');
    line
}

/// Cuts `text` to at most [`MAX_MESSAGE_BYTES`] at a char boundary, so a report stays one
/// bounded line.
#[must_use]
pub(crate) fn bounded_message(text: &str) -> String {
    if text.len() <= MAX_MESSAGE_BYTES {
        return text.to_owned();
    }
    let mut end = MAX_MESSAGE_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// Why a channel stopped yielding lines.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum LineError {
    /// A line longer than [`MAX_LINE_BYTES`] arrived.
    #[error("a control line exceeded {MAX_LINE_BYTES} bytes")]
    TooLong,
}

/// Bounded newline framing over whatever bytes arrive: feed chunks, take complete lines.
/// Holds at most [`MAX_LINE_BYTES`] of an unfinished line.
#[derive(Debug, Default)]
pub(crate) struct LineBuffer {
    pending: Vec<u8>,
}

impl LineBuffer {
    /// Appends a chunk read from the channel.
    pub(crate) fn push(&mut self, chunk: &[u8]) {
        self.pending.extend_from_slice(chunk);
    }

    /// The next complete line without its newline, `Ok(None)` when none is complete yet, or
    /// [`LineError::TooLong`] once the unfinished line passed the bound.
    pub(crate) fn next_line(&mut self) -> Result<Option<Vec<u8>>, LineError> {
        if let Some(pos) = self.pending.iter().position(|&b| b == b'\n') {
            if pos + 1 > MAX_LINE_BYTES {
                return Err(LineError::TooLong);
            }
            let mut line: Vec<u8> = self.pending.drain(..=pos).collect();
            line.pop();
            return Ok(Some(line));
        }
        if self.pending.len() >= MAX_LINE_BYTES {
            return Err(LineError::TooLong);
        }
        Ok(None)
    }

    /// Takes the bytes after the last complete line taken (the start of a payload that follows
    /// a line, [`Command::Run`]).
    pub(crate) fn take_rest(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.pending)
    }

    /// Bytes of an unfinished line (non-zero at EOF means the peer stopped mid-line).
    #[must_use]
    pub(crate) fn unfinished(&self) -> usize {
        self.pending.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_use_the_documented_line_format() {
        assert_eq!(
            encode(&Report::Spawned { pid: 42 }),
            b"{\"report\":\"spawned\",\"pid\":42}\n"
        );
        assert_eq!(
            encode(&Report::Exited {
                code: None,
                signal: Some(9)
            }),
            b"{\"report\":\"exited\",\"code\":null,\"signal\":9}\n"
        );
        assert_eq!(
            encode(&Report::Cleanup {
                confirmed: false,
                survivors: vec![7, 8],
                error: Some("2 survived".into())
            }),
            b"{\"report\":\"cleanup\",\"confirmed\":false,\"survivors\":[7,8],\"error\":\"2 survived\"}\n"
        );
        assert_eq!(
            encode(&Command::Terminate),
            b"{\"command\":\"terminate\"}\n"
        );
        assert_eq!(
            encode(&Command::Run { bytes: 12 }),
            b"{\"command\":\"run\",\"bytes\":12}\n"
        );
        assert_eq!(
            encode(&Command::Start {
                bytes: 40,
                then_run: true
            }),
            b"{\"command\":\"start\",\"bytes\":40,\"then_run\":true}\n"
        );
    }

    #[test]
    fn reports_round_trip() {
        for r in [
            Report::Spawned { pid: 1 },
            Report::SpawnFailed {
                message: "no such file".into(),
            },
            Report::Exited {
                code: Some(3),
                signal: None,
            },
            Report::Cleanup {
                confirmed: true,
                survivors: vec![],
                error: None,
            },
        ] {
            let line = encode(&r);
            let back: Report = serde_json::from_slice(&line[..line.len() - 1]).unwrap();
            assert_eq!(back, r);
        }
    }

    #[test]
    fn line_buffer_yields_complete_lines_across_chunks() {
        let mut b = LineBuffer::default();
        b.push(b"{\"a\":1}\n{\"b\"");
        assert_eq!(b.next_line().unwrap().unwrap(), b"{\"a\":1}");
        assert_eq!(b.next_line().unwrap(), None);
        b.push(b":2}\n");
        assert_eq!(b.next_line().unwrap().unwrap(), b"{\"b\":2}");
        assert_eq!(b.unfinished(), 0);
    }

    #[test]
    fn line_buffer_refuses_an_overlong_line_without_a_newline() {
        let mut b = LineBuffer::default();
        b.push(&vec![b'x'; MAX_LINE_BYTES]);
        assert_eq!(b.next_line(), Err(LineError::TooLong));
    }

    #[test]
    fn line_buffer_refuses_an_overlong_complete_line() {
        let mut b = LineBuffer::default();
        let mut chunk = vec![b'x'; MAX_LINE_BYTES];
        chunk.push(b'\n');
        b.push(&chunk);
        assert_eq!(b.next_line(), Err(LineError::TooLong));
    }

    #[test]
    fn bounded_message_cuts_at_a_char_boundary() {
        let long = "é".repeat(MAX_MESSAGE_BYTES);
        let cut = bounded_message(&long);
        assert!(cut.len() <= MAX_MESSAGE_BYTES + '…'.len_utf8());
        assert!(cut.ends_with('…'));
        assert_eq!(bounded_message("short"), "short");
    }
}
