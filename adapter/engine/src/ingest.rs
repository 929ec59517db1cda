//! Native output ingestion with flat memory (BND-1..3, RUN-11, OUT-3..5).
//!
//! stdout goes through the shared bounded [`FrameDecoder`] (1 MiB per line, never holding a longer
//! one); every line, whole or oversized, is classified by the provider's [`Dialect`] (PROV-1)
//! with bounded state before anything is parsed. Ordinary events (claude's hook lines
//! before `system/init` included, OUT-5) go to the [`EventRing`]; a final event (claude's
//! `type: "result"`) is counted and, when it is the first and fits [`FINAL_MAX`], parsed and kept
//! apart as the run's `final` (OUT-4: as received). A protocol provider hands its final over out
//! of band instead (`Ingest::offer_final`, ACP-6). The first valid final and the first native
//! error are never replaced by what comes later (OUT-3). stderr keeps only its last
//! [`STDERR_TAIL`] bytes.

use std::sync::Arc;

use mcp_wire::codec::{DecodeEvent, FrameDecoder};
use serde::de::IgnoredAny;
use serde_json::Value;

use crate::native::{NativeError, bounded};
use crate::provider::{Dialect, LineClass, LineKind, LineScanner};
use crate::record::{Dir, Recorder};
use crate::ring::EventRing;
use crate::tools::{GuardConfig, ToolTracker};

/// Longest native stdout line held (BND-1).
pub const LINE_MAX: usize = 1024 * 1024;
/// Largest final result event kept (BND-3).
pub const FINAL_MAX: usize = 128 * 1024;
/// Native stderr tail kept (RUN-11).
pub const STDERR_TAIL: usize = 8 * 1024;

/// Why the single final event is not valid (OUT-2 `malformed_final`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FinalFault {
    /// Larger than [`FINAL_MAX`] (whether or not it fitted a line).
    Oversized(u64),
    /// Not a JSON object, or lacking what every native result has.
    Malformed(String),
}

/// What the stream said about result events.
#[derive(Debug, Default)]
pub struct Finals {
    /// Result events seen (valid or not).
    pub count: u32,
    /// The fault of the first result event, when it is not valid.
    pub first_fault: Option<FinalFault>,
    /// The kept final: the first valid one, else the first that parsed as an object.
    pub kept: Option<Value>,
    /// `kept` is valid.
    pub kept_valid: bool,
}

impl Finals {
    /// The one valid final, when there is exactly one result event and it is valid.
    #[must_use]
    pub fn single_valid(&self) -> Option<&Value> {
        (self.count == 1 && self.kept_valid)
            .then_some(self.kept.as_ref())
            .flatten()
    }
}

/// Counters and slots the decoder's callback writes into.
#[derive(Debug)]
pub struct Sink {
    /// The event buffer.
    pub ring: EventRing,
    /// Result events.
    pub finals: Finals,
    /// The first assistant event carrying `error`.
    pub assistant_error: Option<NativeError>,
    /// The native session id: the valid final's, else the first seen on any event.
    pub session_id: Option<String>,
    /// Native event lines seen (blank lines excluded), oversized ones included.
    pub events_total: u64,
    /// Oversized non-final events omitted (BND-1).
    pub omitted_oversized: u64,
    /// The run's tool calls and loop guard (TOOLCALL, LOOP).
    pub tools: ToolTracker,
    /// The dialect's scan of the oversized line in progress.
    over: Option<Box<dyn LineScanner>>,
    recorder: Option<Recorder>,
    dialect: Arc<dyn Dialect>,
}

/// The ingest state of one run.
#[derive(Debug)]
pub struct Ingest {
    decoder: FrameDecoder,
    /// What was learned.
    pub sink: Sink,
    stderr: Vec<u8>,
}

impl Ingest {
    /// Fresh state; `nonce` ties event cursors to the run.
    #[must_use]
    pub fn new(nonce: u32, recorder: Option<Recorder>, dialect: Arc<dyn Dialect>) -> Self {
        Self {
            decoder: FrameDecoder::new(LINE_MAX),
            sink: Sink {
                ring: EventRing::new(nonce),
                finals: Finals::default(),
                assistant_error: None,
                session_id: None,
                events_total: 0,
                omitted_oversized: 0,
                tools: ToolTracker::new(GuardConfig::default()),
                over: None,
                recorder,
                dialect,
            },
            stderr: Vec::new(),
        }
    }

    /// The same state with these loop guard settings (LOOP-4).
    #[must_use]
    pub(crate) fn with_guard(mut self, guard: GuardConfig) -> Self {
        self.sink.tools = ToolTracker::new(guard);
        self
    }

    /// Feeds native stdout bytes.
    pub fn stdout(&mut self, data: &[u8]) {
        let sink = &mut self.sink;
        self.decoder.decode(data, &mut |ev| sink.on(ev));
    }

    /// Bytes of an unfinished line held by the decoder (never more than [`LINE_MAX`]).
    #[must_use]
    pub fn buffered(&self) -> usize {
        self.decoder.buffered()
    }

    /// stdout ended: a last line without a newline still counts.
    pub fn stdout_eof(&mut self) {
        let sink = &mut self.sink;
        self.decoder.finish(&mut |ev| sink.on(ev));
    }

    /// Feeds native stderr bytes; only the tail is kept.
    pub fn stderr(&mut self, data: &[u8]) {
        if data.len() >= STDERR_TAIL {
            self.stderr.clear();
            self.stderr
                .extend_from_slice(&data[data.len() - STDERR_TAIL..]);
            return;
        }
        let excess = (self.stderr.len() + data.len()).saturating_sub(STDERR_TAIL);
        if excess > 0 {
            self.stderr.drain(..excess);
        }
        self.stderr.extend_from_slice(data);
    }

    /// The stderr tail as text (lossy UTF-8; a character cut at the front shows as U+FFFD).
    #[must_use]
    pub fn stderr_tail(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }

    /// The last non-blank stderr line, for `native_error` with source `stderr`.
    #[must_use]
    pub fn stderr_last_line(&self) -> Option<String> {
        let text = self.stderr_tail();
        text.lines()
            .rev()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .map(|l| bounded(l.to_owned()))
    }

    /// The native error the stream carried: the final's, else the first assistant error.
    #[must_use]
    pub fn stream_native_error(&self) -> Option<NativeError> {
        self.sink
            .finals
            .kept
            .as_ref()
            .filter(|_| self.sink.finals.kept_valid)
            .and_then(|v| self.sink.dialect.final_native_error(v))
            .or_else(|| self.sink.assistant_error.clone())
    }

    /// ACP-6: a final handed over out of band by a protocol provider (never read from a line,
    /// so no native line can forge one). Counted, bounded (BND-3) and validated like a stream's.
    pub(crate) fn offer_final(&mut self, v: Value, oversized: Option<u64>) {
        let len = oversized.unwrap_or_else(|| serde_json::to_vec(&v).map_or(0, |b| b.len() as u64));
        if len > FINAL_MAX as u64 {
            self.sink.final_seen(FinalFault::Oversized(len), None);
            return;
        }
        match self.sink.dialect.validate_final(&v) {
            Ok(()) => self.sink.final_seen_valid(v),
            Err(why) => {
                let kept = v.is_object().then_some(v);
                self.sink.final_seen(FinalFault::Malformed(why), kept);
            }
        }
    }

    /// A native error a protocol provider learned out of band (an error answer, a refused
    /// handshake); the first one is kept (OUT-3).
    pub(crate) fn note_native_error(&mut self, ne: NativeError) {
        if self.sink.assistant_error.is_none() {
            self.sink.assistant_error = Some(ne);
        }
    }

    /// The native session id, when the provider learned it out of band (ACP's `sessionId`).
    pub(crate) fn learn_session_id(&mut self, id: String) {
        if self.sink.session_id.is_none() {
            self.sink.session_id = Some(id);
        }
    }
}

impl Sink {
    fn on(&mut self, ev: DecodeEvent<'_>) {
        match ev {
            DecodeEvent::Line(line) => self.line(line),
            DecodeEvent::OversizedStart => self.over = Some(self.dialect.line_scanner()),
            DecodeEvent::OversizedChunk(c) => {
                if let Some(s) = self.over.as_mut() {
                    s.feed(c);
                }
            }
            DecodeEvent::OversizedEnd { len } => {
                let class = self.over.take().map(|s| s.finish()).unwrap_or_default();
                if let Some(r) = &self.recorder {
                    r.extra(
                        Dir::N2a,
                        "oversized",
                        serde_json::json!({"len": len, "type": class.tag}),
                    );
                }
                self.events_total += 1;
                self.learn_session(&class);
                // A scanner reports a cut final only for a line that was cut short.
                if matches!(class.kind, LineKind::Final | LineKind::MaybeCutFinal) {
                    // BND-3: recognised by the streaming scan, never held.
                    self.final_seen(FinalFault::Oversized(len), None);
                } else {
                    self.omitted_oversized += 1;
                }
                self.ring.push_omitted();
            }
        }
    }

    fn line(&mut self, line: &[u8]) {
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        if let Some(r) = &self.recorder {
            r.line(Dir::N2a, line);
        }
        self.events_total += 1;
        let class = self.dialect.classify(line);
        self.learn_session(&class);
        if class.kind == LineKind::MaybeCutFinal
            && serde_json::from_slice::<IgnoredAny>(line).is_err()
        {
            self.final_seen(
                FinalFault::Malformed(
                    "a result event was cut short (not JSON, its type never came)".into(),
                ),
                None,
            );
            if !self.ring.push(line) {
                self.omitted_oversized += 1;
            }
            return;
        }
        if class.kind == LineKind::Final {
            if line.len() > FINAL_MAX {
                self.final_seen(FinalFault::Oversized(line.len() as u64), None);
                self.ring.push_omitted();
                return;
            }
            match serde_json::from_slice::<Value>(line) {
                Ok(v) => {
                    if class.may_carry_tool_events {
                        self.tool_events(&v);
                    }
                    match self.dialect.validate_final(&v) {
                        Ok(()) => self.final_seen_valid(v),
                        Err(why) => {
                            let kept = v.is_object().then_some(v);
                            self.final_seen(FinalFault::Malformed(why), kept);
                        }
                    }
                }
                Err(e) => self.final_seen(
                    FinalFault::Malformed(format!("the result event is not JSON: {e}")),
                    None,
                ),
            }
        } else {
            let wants_error = class.may_carry_error && self.assistant_error.is_none();
            let wants_tools = class.may_carry_tool_events;
            if (wants_error || wants_tools)
                && let Ok(v) = serde_json::from_slice::<Value>(line)
            {
                if wants_error {
                    self.assistant_error = self.dialect.event_native_error(&v);
                }
                if wants_tools {
                    self.tool_events(&v);
                }
            }
        }
        if !self.ring.push(line) {
            self.omitted_oversized += 1;
        }
    }

    /// TOOLCALL-1: the line's tool events into the tracker.
    fn tool_events(&mut self, v: &Value) {
        for ev in self.dialect.tool_events(v) {
            self.tools.apply(ev);
        }
    }

    fn learn_session(&mut self, class: &LineClass) {
        if self.session_id.is_none()
            && let Some(s) = &class.session_id
        {
            self.session_id = Some(s.clone());
        }
    }

    fn final_seen(&mut self, fault: FinalFault, kept: Option<Value>) {
        self.finals.count += 1;
        if self.finals.count == 1 {
            self.finals.first_fault = Some(fault);
        }
        if self.finals.kept.is_none() {
            self.finals.kept = kept;
        }
    }

    fn final_seen_valid(&mut self, v: Value) {
        self.finals.count += 1;
        if !self.finals.kept_valid {
            // OUT-3: the first valid final is kept whatever follows.
            if let Some(s) = self.dialect.final_session_id(&v) {
                self.session_id = Some(s);
            }
            self.finals.kept = Some(v);
            self.finals.kept_valid = true;
        }
    }
}
