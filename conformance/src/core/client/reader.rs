//! The reader tasks of one server: stdout through `mcp-wire`'s bounded decoder into frames
//! (recorded in the transcript, T1 problems kept, the watch told), queued under a byte budget
//! so a flooding server meets backpressure instead of growth; stderr into the transcript,
//! bounded.

use std::sync::Arc;

use mcp_wire::{DecodeEvent, FrameDecoder};
use serde_json::Value;
use tokio::io::AsyncReadExt;
use tokio::sync::mpsc;

use super::message::{Frame, message_problem};
use crate::core::transcript::Transcript;
use crate::core::watch::{Seen, Watcher};

pub use crate::core::bounds::MAX_SERVER_LINE;
/// Stderr lines of a server kept in a transcript; later ones are counted only.
pub(super) const MAX_STDERR_LINES: usize = 40;
/// Bytes of frames queued between the reader task and the case before the reader waits (the
/// server's stdout pipe then fills and slows it): the runner's memory stays flat whatever a
/// server writes.
pub(super) const QUEUE_BYTES: usize = 32 * 1024 * 1024;
/// stdout lines that are not valid JSON-RPC messages kept per server (T1); later ones are counted.
const MAX_STDOUT_PROBLEMS: usize = 20;

/// stdout lines of one server that were not valid JSON-RPC messages (T1), bounded.
#[derive(Debug, Default)]
pub(super) struct StdoutProblems {
    pub(super) kept: Vec<String>,
    pub(super) more: usize,
}

impl StdoutProblems {
    pub(super) fn push(&mut self, problem: String) {
        if self.kept.len() < MAX_STDOUT_PROBLEMS {
            self.kept.push(problem);
        } else {
            self.more += 1;
        }
    }
}

/// A frame on its way from the reader task to the case, holding its share of [`QUEUE_BYTES`].
#[derive(Debug)]
pub(super) struct Incoming {
    pub(super) frame: Frame,
    pub(super) size: usize,
    pub(super) _budget: tokio::sync::OwnedSemaphorePermit,
}

/// Where the reader puts what it reads: the transcript, the T1 problems, the watch.
pub(super) struct Sink {
    pub(super) transcript: Transcript,
    pub(super) problems: Arc<std::sync::Mutex<StdoutProblems>>,
    pub(super) observer: Option<Watcher>,
    /// Lines read so far (the order of findings within a connection).
    pub(super) line: u64,
    pub(super) oversized: OversizedProbe,
}

impl Sink {
    /// Records a stdout line that is no JSON-RPC message (T1): for the watch of the cross-cutting
    /// rules, with the current line number, and for the client's own problem list.
    fn not_protocol(&self, evidence: String) {
        if let Some(o) = &self.observer {
            o.not_protocol(self.line, evidence.clone());
        }
        self.problems
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(evidence);
    }
}

/// What the runner can tell of a line longer than it keeps: its first bytes and its last
/// non-blank byte. A line that does not start with `{` or `[` and end with `}` or `]` is no JSON
/// at all (T1), whatever its length; one that does cannot be verified and is not held against it.
#[derive(Debug, Default)]
pub(super) struct OversizedProbe {
    head: Vec<u8>,
    last: Option<u8>,
}

impl OversizedProbe {
    const HEAD: usize = 80;

    fn chunk(&mut self, bytes: &[u8]) {
        let room = Self::HEAD.saturating_sub(self.head.len());
        self.head.extend_from_slice(&bytes[..room.min(bytes.len())]);
        if let Some(b) = bytes.iter().rev().find(|b| !b.is_ascii_whitespace()) {
            self.last = Some(*b);
        }
    }

    /// Why the line is no JSON-RPC message, when that can be told.
    fn problem(&mut self, len: u64) -> Option<String> {
        let head = std::mem::take(&mut self.head);
        let last = self.last.take();
        let first = head.iter().find(|b| !b.is_ascii_whitespace()).copied();
        let framed = matches!(
            (first, last),
            (Some(b'{'), Some(b'}')) | (Some(b'['), Some(b']'))
        );
        (!framed).then(|| {
            format!(
                "not JSON (a line of {len} bytes, over the runner's {} MiB keep limit, \
                 starting {})",
                MAX_SERVER_LINE / (1024 * 1024),
                crate::core::transcript::clip_to(&head, 60)
            )
        })
    }
}

/// Reads stdout with the shared bounded decoder; each line becomes a [`Frame`]. `None` on the
/// channel means EOF.
pub(super) async fn read_stdout(
    mut stdout: tokio::process::ChildStdout,
    tx: mpsc::Sender<Option<Incoming>>,
    mut sink: Sink,
    budget: Arc<tokio::sync::Semaphore>,
) {
    let mut decoder = FrameDecoder::new(MAX_SERVER_LINE);
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match stdout.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let mut frames = Vec::new();
        decoder.decode(&buf[..n], &mut |ev| {
            push_event(ev, &mut frames, &mut sink);
        });
        for (frame, size) in frames {
            if send_frame(&tx, &budget, frame, size).await.is_err() {
                return;
            }
        }
    }
    let mut frames = Vec::new();
    decoder.finish(&mut |ev| push_event(ev, &mut frames, &mut sink));
    for (frame, size) in frames {
        if send_frame(&tx, &budget, frame, size).await.is_err() {
            return;
        }
    }
    sink.transcript
        .note(&format!("{} closed stdout", sink.transcript.peer().noun()));
    let _ = tx.send(None).await;
}

/// Queues one frame once its size fits the queue's byte budget (waiting for the case to take
/// earlier ones: backpressure on the server instead of growth in the runner).
pub(super) async fn send_frame(
    tx: &mpsc::Sender<Option<Incoming>>,
    budget: &Arc<tokio::sync::Semaphore>,
    frame: Frame,
    size: usize,
) -> Result<(), ()> {
    let share = u32::try_from(size.clamp(1, QUEUE_BYTES)).unwrap_or(u32::MAX);
    let permit = budget
        .clone()
        .acquire_many_owned(share)
        .await
        .map_err(|_| ())?;
    tx.send(Some(Incoming {
        frame,
        size,
        _budget: permit,
    }))
    .await
    .map_err(|_| ())
}

/// One line (stdio) or one message (an HTTP body or SSE event's data): recorded, graded
/// against T1 and shown to the cross-cutting rules; a frame for the case unless the id rule
/// owns it.
pub(super) fn push_line(line: &[u8], frames: &mut Vec<(Frame, usize)>, sink: &mut Sink) {
    if line.iter().all(u8::is_ascii_whitespace) {
        // A blank line carries no message, but no content either: shown in the
        // transcript, not held against T1 (clients skip it; calling it a violation
        // would be a false failure on a formatting nicety).
        sink.transcript
            .record(sink.transcript.peer().received(), line);
        return;
    }
    sink.line += 1;
    let problem = match serde_json::from_slice::<Value>(line) {
        Ok(v) => {
            let p = message_problem(&v);
            // The other rules look at it too (a response without "jsonrpc" still has
            // an id to echo): each defect is graded under its own rule.
            let seen = sink
                .observer
                .as_ref()
                .map_or(Seen::Fresh, |o| o.message(sink.line, &v, line));
            if is_notification(&v) {
                sink.transcript.record_notification(line);
            } else {
                sink.transcript
                    .record(sink.transcript.peer().received(), line);
            }
            // Graded once, by the id rule; no wait of the case is for it.
            match seen {
                Seen::Repeat => sink.transcript.note(
                    "a second response to a request answered already (the id rule \
                     grades it; the case does not read it)",
                ),
                Seen::Stray => sink.transcript.note(
                    "a response under an id no request carried, while none was \
                     pending (the id rule grades it; the case does not read it)",
                ),
                Seen::Idless => sink.transcript.note(
                    "an error under id null answering no line whose id could not be read (the \
                     id or the notification rule grades it; the case does not read it)",
                ),
                Seen::Fresh => frames.push((Frame::Json(v), line.len())),
            }
            p
        }
        Err(_) => {
            sink.transcript
                .record(sink.transcript.peer().received(), line);
            let text = String::from_utf8_lossy(line).into_owned();
            frames.push((Frame::NotJson(text), line.len()));
            Some("not JSON".into())
        }
    };
    if let Some(p) = problem {
        sink.not_protocol(format!(
            "{p}: {}",
            crate::core::transcript::clip_to(line, 200)
        ));
    }
}

fn push_event(ev: DecodeEvent<'_>, frames: &mut Vec<(Frame, usize)>, sink: &mut Sink) {
    match ev {
        DecodeEvent::Line(line) => {
            push_line(line, frames, sink);
        }
        DecodeEvent::OversizedEnd { len } => {
            sink.line += 1;
            sink.transcript.note(&format!(
                "{} sent a line of {len} bytes (not kept)",
                sink.transcript.peer().noun()
            ));
            if let Some(p) = sink.oversized.problem(len) {
                sink.not_protocol(p);
            }
            frames.push((Frame::Oversized(len), 1));
        }
        DecodeEvent::OversizedChunk(bytes) => sink.oversized.chunk(bytes),
        DecodeEvent::OversizedStart => {}
    }
}

/// A notification (a method, no id): recorded under the transcript's own bound so a flood of
/// them does not push the exchanges that matter out of it.
fn is_notification(v: &Value) -> bool {
    v.get("method").is_some() && v.get("id").is_none()
}

/// Keeps the first stderr lines of a server in the transcript; drains the rest so the server
/// never blocks on a full pipe.
pub(super) async fn read_stderr(mut stderr: tokio::process::ChildStderr, transcript: Transcript) {
    let mut decoder = FrameDecoder::new(4096);
    let mut buf = vec![0u8; 16 * 1024];
    let mut lines = 0usize;
    loop {
        let n = match stderr.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        decoder.decode(&buf[..n], &mut |ev| {
            if let DecodeEvent::Line(l) = ev {
                lines += 1;
                if lines <= MAX_STDERR_LINES {
                    transcript.record(transcript.peer().stderr(), l);
                }
            }
        });
    }
    if lines > MAX_STDERR_LINES {
        transcript.note(&format!(
            "{} more stderr lines not kept",
            lines - MAX_STDERR_LINES
        ));
    }
}
