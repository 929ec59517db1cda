//! The dispatcher: one table of methods, the initialize gate (T3), JSON-RPC classification and
//! error answers (T3a, T4), batches (T5) and oversized frames (T6).
//!
//! Handlers run in frame order on the server loop, so a pipelined `claude.run.start` followed by
//! `claude.run.list` sees its run. Only the waiting part of `claude.run` is deferred: it is
//! returned as a future and answered when it completes (or never, if cancelled, T7).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use mcp_wire::{ErrorObject, Inbound, Incoming, Message, error_response, response};
use serde_json::{Map, Value};
use tokio::task::JoinSet;

use super::cancelled::{self, InflightCalls};
use super::catalogue::Catalogue;
use super::transport::Outbox;
use super::{errors, initialize, ping, resources, tools_call, tools_list};
use crate::engine::Engine;
use crate::record::{Dir, Recorder};

/// What a request is answered with.
pub type Answer = Result<Value, ErrorObject>;

/// A deferred answer; `None` means "send nothing" (a cancelled request, T7).
pub type Deferred = Pin<Box<dyn Future<Output = Option<Answer>> + Send>>;

/// A handler's outcome.
pub enum Handled {
    /// Answered at once.
    Now(Answer),
    /// Answered when the future completes.
    Later(Deferred),
}

impl From<Answer> for Handled {
    fn from(a: Answer) -> Self {
        Handled::Now(a)
    }
}

type RequestHandler = fn(&mut Server, &Value, Option<Value>) -> Handled;
type NotificationHandler = fn(&mut Server, Option<Value>);

/// T3: the requests this server serves. Anything else is `-32601`.
const REQUESTS: &[(&str, RequestHandler)] = &[
    ("initialize", initialize::handle),
    ("ping", ping::handle),
    ("tools/list", tools_list::handle),
    ("tools/call", tools_call::handle),
    ("resources/list", resources::list),
    ("resources/read", resources::read),
];

/// T3: the notifications this server acts on. Others are ignored.
const NOTIFICATIONS: &[(&str, NotificationHandler)] = &[
    ("notifications/initialized", |_, _| {}),
    ("notifications/cancelled", cancelled::handle),
];

/// Requests served before `initialize` (T3).
const BEFORE_INITIALIZE: &[&str] = &["initialize", "ping"];

/// The connection's state, shared by the handlers.
pub struct Server {
    /// The run engine.
    pub engine: Engine,
    /// The tools, with their compiled validators.
    pub catalogue: Arc<Catalogue>,
    /// The way to stdout.
    pub out: Outbox,
    /// The negotiated protocol version, once `initialize` was answered.
    pub version: Option<&'static str>,
    /// In-flight `claude.run` calls (T7).
    pub inflight: InflightCalls,
    /// The inbound frame bound (T6).
    pub max_frame_bytes: usize,
    /// `--record`.
    pub recorder: Option<Recorder>,
    /// Deferred answers still running.
    pub tasks: JoinSet<()>,
}

/// The `params` of a method as an object: absent is empty; an array (by-position params, which
/// no MCP method uses) or anything else is `-32602`.
pub fn params_object(params: Option<Value>) -> Result<Map<String, Value>, ErrorObject> {
    match params {
        None => Ok(Map::new()),
        Some(Value::Object(m)) => Ok(m),
        Some(_) => Err(ErrorObject::invalid_params("params must be an object")),
    }
}

/// The `cursor` of a paginated list: this server lists everything on one page and never issues
/// a cursor, so any cursor is unknown (`-32602`).
pub fn no_cursor(params: Option<Value>) -> Result<(), ErrorObject> {
    let params = params_object(params)?;
    match params.get("cursor") {
        None | Some(Value::Null) => Ok(()),
        Some(_) => Err(errors::unknown_cursor()),
    }
}

/// A slot of a batch answer, in request order.
enum Slot {
    Ready(Value),
    Waiting(Value, Deferred),
}

impl Server {
    /// Handles one inbound line.
    pub async fn on_line(&mut self, line: &[u8]) {
        // Blank lines (also `\r\n` alone, or whitespace) are not frames.
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        if let Some(r) = &self.recorder {
            r.line(Dir::C2s, line);
        }
        match mcp_wire::parse_inbound(line) {
            Err(e) => self.send_error(None, &e.error()).await,
            Ok(Inbound::Single(incoming)) => self.on_single(incoming).await,
            Ok(Inbound::Batch(items)) => self.on_batch(items).await,
        }
    }

    /// T6: a line over the bound was dropped.
    pub async fn on_oversized(&mut self, len: u64) {
        if let Some(r) = &self.recorder {
            r.extra(Dir::C2s, "oversized", serde_json::json!({"len": len}));
        }
        let err = errors::oversized_frame(len, self.max_frame_bytes);
        self.send_error(None, &err).await;
    }

    async fn send_error(&self, id: Option<&Value>, err: &ErrorObject) {
        self.out.send(error_response(id, err)).await;
    }

    async fn on_single(&mut self, incoming: Incoming) {
        match incoming {
            Err(invalid) => self.send_error(invalid.id.as_ref(), &invalid.error()).await,
            Ok(Message::Request { id, method, params }) => {
                match self.request(&id, &method, params, false) {
                    Handled::Now(a) => self.out.send(reply(&id, a)).await,
                    Handled::Later(fut) => {
                        let out = self.out.clone();
                        self.tasks.spawn(async move {
                            if let Some(a) = fut.await {
                                out.send(reply(&id, a)).await;
                            }
                        });
                    }
                }
            }
            Ok(Message::Notification { method, params }) => self.notification(&method, params),
            Ok(Message::Response { .. } | Message::ErrorResponse { .. }) => {
                // This server sends no requests, so no response can be expected: drop it.
                eprintln!("claude-mcp-adapter: ignoring a response to no request");
            }
        }
    }

    /// T5: a batch is answered as a batch under 2025-03-26 only.
    async fn on_batch(&mut self, items: Vec<Incoming>) {
        if self.version != Some(initialize::BATCH_VERSION) {
            let err = errors::batch_not_supported(self.version);
            return self.send_error(None, &err).await;
        }
        if items.is_empty() {
            return self.send_error(None, &errors::empty_batch()).await;
        }
        let mut slots = Vec::with_capacity(items.len());
        for item in items {
            match item {
                Err(invalid) => slots.push(Slot::Ready(error_response(
                    invalid.id.as_ref(),
                    &invalid.error(),
                ))),
                Ok(Message::Request { id, method, params }) => {
                    match self.request(&id, &method, params, true) {
                        Handled::Now(a) => slots.push(Slot::Ready(reply(&id, a))),
                        Handled::Later(fut) => slots.push(Slot::Waiting(id, fut)),
                    }
                }
                // Notifications (and stray responses) get no entry.
                Ok(Message::Notification { method, params }) => self.notification(&method, params),
                Ok(Message::Response { .. } | Message::ErrorResponse { .. }) => {}
            }
        }
        if slots.is_empty() {
            // JSON-RPC 2.0: an all-notification batch gets no answer at all.
            return;
        }
        if slots.iter().all(|s| matches!(s, Slot::Ready(_))) {
            let answers = slots
                .into_iter()
                .filter_map(|s| match s {
                    Slot::Ready(v) => Some(v),
                    Slot::Waiting(..) => None,
                })
                .collect();
            return self.out.send(Value::Array(answers)).await;
        }
        let out = self.out.clone();
        self.tasks.spawn(async move {
            let mut answers = Vec::with_capacity(slots.len());
            for slot in slots {
                match slot {
                    Slot::Ready(v) => answers.push(v),
                    Slot::Waiting(id, fut) => {
                        // A cancelled element gets no entry (T7).
                        if let Some(a) = fut.await {
                            answers.push(reply(&id, a));
                        }
                    }
                }
            }
            if !answers.is_empty() {
                out.send(Value::Array(answers)).await;
            }
        });
    }

    fn request(
        &mut self,
        id: &Value,
        method: &str,
        params: Option<Value>,
        in_batch: bool,
    ) -> Handled {
        let Some((_, handler)) = REQUESTS.iter().find(|(m, _)| *m == method) else {
            // Also before initialize: hosts probe `server/discover` first and fall back on
            // -32601 (reference/hosts/).
            return Handled::Now(Err(ErrorObject::method_not_found(method)));
        };
        if self.version.is_none() && !BEFORE_INITIALIZE.contains(&method) {
            return Handled::Now(Err(errors::not_initialized()));
        }
        if in_batch && method == "initialize" {
            return Handled::Now(Err(errors::initialize_in_batch()));
        }
        handler(self, id, params)
    }

    fn notification(&mut self, method: &str, params: Option<Value>) {
        if let Some((_, handler)) = NOTIFICATIONS.iter().find(|(m, _)| *m == method) {
            handler(self, params);
        }
    }
}

fn reply(id: &Value, answer: Answer) -> Value {
    match answer {
        Ok(result) => response(id, result),
        Err(err) => error_response(Some(id), &err),
    }
}
