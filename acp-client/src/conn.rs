//! The connection pump (ACP-1): reads the agent's stdout through a bounded [`FrameDecoder`],
//! forwards every line to `events`, routes each by shape, answers every agent request at once,
//! and hands back the answer to the one request of ours being awaited.
//!
//! Everything is done on one task: a line is forwarded, then handled (its answer written to the
//! agent, its record to `events`) before the next is read, so `events` sees records right after
//! the line that caused them and a slow `events` reader slows the agent's reading.

use std::collections::VecDeque;

use mcp_wire::codec::{DecodeEvent, FrameDecoder};
use mcp_wire::message::{self, ErrorObject};
use mcp_wire::scan::PathScan;
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::watch;
use tokio::time::Instant;

use crate::config::TurnConfig;
use crate::events::EventSink;
use crate::inbound::{self, Inbound};
use crate::policy::{AgentRequestPolicy, Answer};
use crate::report::{TurnReport, truncate};
use crate::request_permission::{self, FIELD_MAX};
use crate::session_update::{self, ToolKinds};

/// Size of one read from the agent's stdout.
const READ_CHUNK: usize = 64 * 1024;

/// A decoded piece of agent output, owned (queued between reads).
enum Item {
    Line(Vec<u8>),
    Chunk(Vec<u8>),
    /// The end of an oversized line, with its length.
    OversizedEnd(u64),
}

/// What waiting for one of our requests came to.
pub(crate) enum Waited {
    /// The agent answered (a result or an error).
    Answer(Result<Value, ErrorObject>),
    /// The deadline passed first.
    Timeout,
    /// The agent's stdout ended or its stdin failed.
    Closed(String),
    /// Cancel was requested (only when the wait watches cancel).
    Cancelled,
}

/// Whose an update is (ACP-10).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Whose {
    /// The run's session, before the prompt's answer.
    Turn,
    /// Another (or no) `sessionId`.
    Foreign,
    /// Read after the prompt's answer.
    Late,
}

pub(crate) struct Conn<'a, R, W, E> {
    reader: R,
    writer: W,
    pub(crate) events: EventSink<E>,
    decoder: FrameDecoder,
    buf: Vec<u8>,
    queue: VecDeque<Item>,
    /// The bounded scan of the oversized line being forwarded (BND-1): is it message text?
    over: Option<PathScan>,
    eof: Option<String>,
    cfg: &'a TurnConfig,
    policy: &'a dyn AgentRequestPolicy,
    cancel: watch::Receiver<bool>,
    /// The cancel sender is still alive (a dropped sender never cancels).
    cancel_live: bool,
    /// `session/cancel` was sent: permission requests are answered `cancelled` from here on.
    pub(crate) cancelled: bool,
    /// `session/prompt` was sent: agent text counts from here on.
    pub(crate) prompting: bool,
    /// `session/prompt` was answered: any later update is late (ACP-10).
    pub(crate) settled: bool,
    /// The run's session, once known: updates of any other session are foreign (ACP-10).
    pub(crate) session_id: Option<String>,
    next_id: i64,
    /// The id of the last request sent (the one a cancel keeps waiting for).
    last_id: Value,
    tools: ToolKinds,
    pub(crate) report: TurnReport,
}

impl<'a, R, W, E> Conn<'a, R, W, E>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send,
    E: AsyncWrite + Unpin + Send,
{
    pub(crate) fn new(
        reader: R,
        writer: W,
        events: E,
        cfg: &'a TurnConfig,
        policy: &'a dyn AgentRequestPolicy,
        cancel: watch::Receiver<bool>,
    ) -> Self {
        Self {
            reader,
            writer,
            events: EventSink::new(events),
            decoder: FrameDecoder::new(cfg.max_line),
            buf: vec![0; READ_CHUNK],
            queue: VecDeque::new(),
            over: None,
            eof: None,
            cfg,
            policy,
            cancel,
            cancel_live: true,
            cancelled: false,
            prompting: false,
            settled: false,
            session_id: None,
            next_id: 1,
            last_id: Value::Null,
            tools: ToolKinds::default(),
            report: TurnReport::new(),
        }
    }

    /// Whether cancel has been requested.
    pub(crate) fn cancel_requested(&mut self) -> bool {
        *self.cancel.borrow_and_update()
    }

    /// Sends a request and waits for its answer. The write, and the wait, end at `deadline`
    /// when one is given; with `watch_cancel` a cancel request ends the wait.
    pub(crate) async fn call(
        &mut self,
        method: &str,
        params: Value,
        deadline: Option<Instant>,
        watch_cancel: bool,
    ) -> Waited {
        let id = json!(self.next_id);
        self.next_id += 1;
        self.last_id = id.clone();
        let frame = message::request(&id, method, Some(params));
        let sent = match deadline {
            Some(at) => match tokio::time::timeout_at(at, self.send(&frame)).await {
                Ok(sent) => sent,
                Err(_) => return Waited::Timeout,
            },
            None => self.send(&frame).await,
        };
        if let Err(detail) = sent {
            return Waited::Closed(detail);
        }
        self.wait_for(&id, deadline, watch_cancel).await
    }

    /// Writes one message to the agent's stdin.
    pub(crate) async fn send(&mut self, frame: &Value) -> Result<(), String> {
        self.send_bytes(message::encode(frame)).await
    }

    /// Writes one message, already serialised (compact JSON, no newline), to the agent's stdin.
    async fn send_text(&mut self, text: String) -> Result<(), String> {
        let mut bytes = text.into_bytes();
        bytes.push(b'\n');
        self.send_bytes(bytes).await
    }

    async fn send_bytes(&mut self, bytes: Vec<u8>) -> Result<(), String> {
        if let Some(tap) = &self.cfg.tap {
            tap.sent(bytes.strip_suffix(b"\n").unwrap_or(&bytes));
        }
        self.writer
            .write_all(&bytes)
            .await
            .map_err(|e| format!("writing the agent's stdin failed: {e}"))?;
        self.writer
            .flush()
            .await
            .map_err(|e| format!("flushing the agent's stdin failed: {e}"))
    }

    /// Pumps agent output until the response to `id` arrives.
    pub(crate) async fn wait_for(
        &mut self,
        id: &Value,
        deadline: Option<Instant>,
        watch_cancel: bool,
    ) -> Waited {
        loop {
            while let Some(item) = self.queue.pop_front() {
                if let Some(answer) = self.handle(item, Some(id)).await {
                    self.events.flush().await;
                    return Waited::Answer(answer);
                }
            }
            self.events.flush().await;
            if let Some(detail) = &self.eof {
                return Waited::Closed(detail.clone());
            }
            if watch_cancel && self.cancel_requested() {
                return Waited::Cancelled;
            }
            let deadline_passed = async {
                match deadline {
                    Some(at) => tokio::time::sleep_until(at).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                biased;
                changed = self.cancel.changed(), if watch_cancel && self.cancel_live => {
                    if changed.is_err() {
                        self.cancel_live = false;
                    }
                }
                () = deadline_passed => return Waited::Timeout,
                read = self.reader.read(&mut self.buf) => self.ingest(read),
            }
        }
    }

    /// Keeps waiting, until `deadline`, for the answer to the last request sent (after a cancel).
    pub(crate) async fn wait_pending(&mut self, deadline: Instant) -> Waited {
        let id = self.last_id.clone();
        self.wait_for(&id, Some(deadline), false).await
    }

    /// Handles whatever was already read but not yet handled (after the turn settled).
    pub(crate) async fn drain(&mut self) {
        while let Some(item) = self.queue.pop_front() {
            self.handle(item, None).await;
        }
        self.events.flush().await;
    }

    fn ingest(&mut self, read: std::io::Result<usize>) {
        let Self { decoder, queue, .. } = self;
        let mut sink = |event: DecodeEvent<'_>| match event {
            DecodeEvent::Line(line) => queue.push_back(Item::Line(line.to_vec())),
            DecodeEvent::OversizedStart => {}
            DecodeEvent::OversizedChunk(piece) => queue.push_back(Item::Chunk(piece.to_vec())),
            DecodeEvent::OversizedEnd { len } => queue.push_back(Item::OversizedEnd(len)),
        };
        match read {
            Ok(0) => {
                decoder.finish(&mut sink);
                self.eof = Some("the agent's stdout closed".to_owned());
            }
            Ok(n) => decoder.decode(&self.buf[..n], &mut sink),
            Err(e) => {
                decoder.finish(&mut sink);
                self.eof = Some(format!("reading the agent's stdout failed: {e}"));
            }
        }
    }

    /// Forwards and handles one item; returns the answer when it is the response to `awaited`.
    async fn handle(
        &mut self,
        item: Item,
        awaited: Option<&Value>,
    ) -> Option<Result<Value, ErrorObject>> {
        let line = match item {
            Item::Chunk(piece) => {
                self.over
                    .get_or_insert_with(|| PathScan::new(session_update::KIND_PATHS))
                    .feed(&piece);
                self.events.chunk(&piece).await;
                return None;
            }
            Item::OversizedEnd(len) => {
                // BND-1: an oversized line was forwarded but is never parsed; a bounded scan of
                // its keys tells whether it was message text, which the answer then lacks
                // (ACP-6, BND-3: never a cut answer passed as whole).
                if let Some(tap) = &self.cfg.tap {
                    tap.received_oversized(len);
                }
                let scanned = self.over.take().map(PathScan::finish);
                if let Some(s) = scanned.filter(session_update::is_text_chunk) {
                    // ACP-10: a late or foreign chunk was never the turn's text.
                    match self.whose(session_update::scanned_session(&s)) {
                        Whose::Late => self.report.late_updates += 1,
                        Whose::Foreign => self.report.foreign_updates += 1,
                        Whose::Turn if self.prompting => self.report.lose_text_chunk(),
                        Whose::Turn => {}
                    }
                }
                self.report.malformed_lines += 1;
                self.events.end_oversized().await;
                return None;
            }
            Item::Line(line) => line,
        };
        if let Some(tap) = &self.cfg.tap
            && !line.iter().all(u8::is_ascii_whitespace)
        {
            tap.received(&line);
        }
        self.events.line(&line).await;
        if line.iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        match inbound::route(&line) {
            Inbound::Malformed => self.report.malformed_lines += 1,
            Inbound::Request {
                id,
                raw_id,
                method,
                params,
            } => {
                self.answer_request(&id, raw_id.as_deref(), &method, &params)
                    .await;
            }
            Inbound::Notification { method, params } => {
                let session = params.get("sessionId").and_then(Value::as_str);
                let whose = self.whose(session);
                if method == "session/update" && whose != Whose::Turn {
                    // ACP-10: forwarded above as an event, counted, never applied.
                    self.report.updates += 1;
                    match whose {
                        Whose::Late => self.report.late_updates += 1,
                        _ => self.report.foreign_updates += 1,
                    }
                } else if method == "session/update" {
                    session_update::apply(
                        &params,
                        &mut self.report,
                        &mut self.tools,
                        self.prompting,
                        self.cfg.text_max,
                    );
                } else {
                    self.report.other_notifications += 1;
                }
            }
            Inbound::Response { id, answer } => {
                // ACP-1: only a response (by shape) with our id answers our request; an agent
                // request that reuses our id number is routed above as a request.
                if awaited == Some(&id) {
                    return Some(answer);
                }
                self.report.unmatched_responses += 1;
            }
        }
        None
    }

    /// ACP-10: whether an update naming `session` belongs to the turn. Before the session is
    /// known (the handshake) every update is taken as the turn's (none carries text then).
    fn whose(&self, session: Option<&str>) -> Whose {
        if self.settled {
            return Whose::Late;
        }
        match &self.session_id {
            Some(ours) if session != Some(ours.as_str()) => Whose::Foreign,
            _ => Whose::Turn,
        }
    }

    /// ACP-4/ACP-5: every agent request is answered at once, under its id as sent (ACP-12).
    async fn answer_request(
        &mut self,
        id: &Value,
        raw_id: Option<&str>,
        method: &str,
        params: &Value,
    ) {
        self.report.agent_requests += 1;
        if method == "session/request_permission" {
            let (decision, result) = request_permission::decide(
                params,
                self.cfg.permission_mode,
                self.cancelled,
                &self.tools,
            );
            // A failed write surfaces at the next read (EOF) or write; the decision stands.
            let _ = self
                .send_echoing(&message::response(id, result), id, raw_id)
                .await;
            let record = decision.record(id, self.cfg.permission_mode.as_str());
            self.record_echoing(&record, id, raw_id).await;
            self.report.keep_decision(decision);
            return;
        }
        let answer = self.policy.answer(method, params);
        let (frame, kind, code) = match &answer {
            Answer::Result(result) => (message::response(id, result.clone()), "result", None),
            Answer::Error(error) => (
                message::error_response(Some(id), error),
                "error",
                Some(error.code),
            ),
        };
        let _ = self.send_echoing(&frame, id, raw_id).await;
        let record = json!({
            "acp_client": "agent_request",
            "method": truncate(method, FIELD_MAX),
            "id": id,
            "answer": kind,
            "code": code,
        });
        self.record_echoing(&record, id, raw_id).await;
    }

    /// Sends `frame`, an answer under `id`, with the id's text as the agent sent it (ACP-12).
    async fn send_echoing(
        &mut self,
        frame: &Value,
        id: &Value,
        raw_id: Option<&str>,
    ) -> Result<(), String> {
        match raw_id {
            None => self.send(frame).await,
            Some(raw) => {
                let text = inbound::splice_id(frame.to_string(), id, raw);
                self.send_text(text).await
            }
        }
    }

    /// Records `record` (whose `id` is `id`) with the id's text as the agent sent it (ACP-12).
    async fn record_echoing(&mut self, record: &Value, id: &Value, raw_id: Option<&str>) {
        match raw_id {
            None => self.events.record(record).await,
            Some(raw) => {
                let text = inbound::splice_id(record.to_string(), id, raw);
                self.events.record_text(&text).await;
            }
        }
    }
}
