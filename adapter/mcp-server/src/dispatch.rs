//! The dispatcher: one table of methods, the initialize gate (T3), JSON-RPC classification and
//! error answers (T3a, T4), batches (T5) and oversized frames (T6).
//!
//! Handlers run in frame order on the server loop, so a pipelined `claude.run.start` followed by
//! `claude.run.list` sees its run. Only the waiting part of `claude.run` is deferred: it is
//! returned as a future and answered when it completes (or never, if cancelled, T7).

use mcp_wire::{ErrorObject, Message, ParseError, Parsed, error_response, response};
use serde_json::Value;

use crate::server::{Answer, Deferred, Handled, Server};
use crate::{cancelled, errors, initialize, ping, resources, tools_call, tools_list};
use cmk_engine::record::Dir;

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
    ("resources/templates/list", resources::templates_list),
];

/// T3: the notifications this server acts on. Others are ignored.
const NOTIFICATIONS: &[(&str, NotificationHandler)] = &[
    ("notifications/initialized", |_, _| {}),
    ("notifications/cancelled", cancelled::handle),
];

/// Requests served before `initialize` (T3).
const BEFORE_INITIALIZE: &[&str] = &["initialize", "ping"];

/// C-T5: most elements of one batch. A larger batch is one `-32600` with `id: null` and none
/// of it runs, as for an oversized frame (T6): two million one-byte elements fit in a 4 MiB frame,
/// and building and answering each would take gigabytes. At this bound a batch costs tens of
/// megabytes at most (its values, and one small error entry per element past the answer bound).
pub(crate) const MAX_BATCH_ELEMENTS: usize = 65_536;

/// C-T5: bytes of answers one batch collects. Once reached, the batch's later requests are not
/// executed and are answered `-32603` (see [`errors::batch_answer_full`]): a batch of `tools/list`
/// calls would otherwise multiply a 4 MiB frame into a gigabyte of answers.
pub(crate) const BATCH_ANSWER_BYTES: usize = 4 * 1024 * 1024;

/// A slot of a batch answer, in request order: answers are kept encoded, so a batch holds its
/// answers' bytes rather than their (several times larger) parsed form.
enum Slot {
    Ready(Vec<u8>),
    Waiting(Value, Deferred),
}

/// One compact JSON message without its newline.
fn encoded(v: &Value) -> Vec<u8> {
    let mut bytes = mcp_wire::encode(v);
    bytes.pop();
    bytes
}

/// `{"jsonrpc":"2.0","id":…,"result":…}` from a result already serialised, without a newline:
/// byte for byte what encoding [`response`] gives (same keys, same order, compact).
fn encoded_response(id: &Value, result_json: &str) -> Vec<u8> {
    let id = id.to_string();
    let mut out = Vec::with_capacity(result_json.len() + id.len() + 40);
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    out.extend_from_slice(id.as_bytes());
    out.extend_from_slice(br#","result":"#);
    out.extend_from_slice(result_json.as_bytes());
    out.push(b'}');
    out
}

/// The batch answer `[a,b,…]` from encoded parts, with its newline.
fn batch_line(parts: &[Vec<u8>]) -> Vec<u8> {
    let len = parts.iter().map(|p| p.len() + 1).sum::<usize>() + 2;
    let mut line = Vec::with_capacity(len);
    line.push(b'[');
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            line.push(b',');
        }
        line.extend_from_slice(p);
    }
    line.extend_from_slice(b"]\n");
    line
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
        // T4, C-T6a: -32700 for what is not JSON, -32600 for a frame whose tree would cost more
        // than its bound allows; an array is only counted here (T5, C-T5).
        match mcp_wire::parse_frame(line, self.max_frame_bytes) {
            Err(e) => self.send_error(None, &e.error()).await,
            Ok(Parsed::Single(value)) => self.on_single(mcp_wire::message::classify(value)).await,
            Ok(Parsed::Batch { len }) => self.on_batch(line, len).await,
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

    async fn on_single(&mut self, incoming: mcp_wire::Incoming) {
        match incoming {
            Err(invalid) => self.send_error(invalid.id.as_ref(), &invalid.error()).await,
            Ok(Message::Request { id, method, params }) => {
                match self.request(&id, &method, params, false) {
                    Handled::Now(a) => self.out.send(reply(&id, a)).await,
                    Handled::Encoded(result) => {
                        let mut line = encoded_response(&id, &result);
                        line.push(b'\n');
                        self.out.send_line(line).await;
                    }
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
                cmk_engine::diag::emit("claude-mcp-adapter: ignoring a response to no request");
            }
        }
    }

    /// T5: a batch is answered as a batch under 2025-03-26 only, within the bounds of C-T5.
    async fn on_batch(&mut self, line: &[u8], len: usize) {
        if self.version != Some(initialize::BATCH_VERSION) {
            let err = errors::batch_not_supported(self.version);
            return self.send_error(None, &err).await;
        }
        if len == 0 {
            return self.send_error(None, &errors::empty_batch()).await;
        }
        if len > MAX_BATCH_ELEMENTS {
            let err = errors::batch_too_large(len, MAX_BATCH_ELEMENTS);
            return self.send_error(None, &err).await;
        }
        let mut slots = Vec::with_capacity(len);
        // Bytes of the answers collected so far (C-T5).
        let mut answered = 0usize;
        let ready = |slots: &mut Vec<Slot>, answered: &mut usize, answer: &Value| {
            let bytes = encoded(answer);
            *answered = answered.saturating_add(bytes.len());
            slots.push(Slot::Ready(bytes));
        };
        // `parse_frame` validated the array, so this fails only if memory does.
        let built = {
            // C-T6a: one element's tree at a time, dropped before the next is built.
            let mut each = |item: Value| match mcp_wire::message::classify(item) {
                Err(invalid) => {
                    let answer = error_response(invalid.id.as_ref(), &invalid.error());
                    ready(&mut slots, &mut answered, &answer);
                }
                Ok(Message::Request { id, .. }) if answered >= BATCH_ANSWER_BYTES => {
                    // C-T5: not executed, so the answer tells no lie about an effect.
                    let err = errors::batch_answer_full(BATCH_ANSWER_BYTES);
                    ready(&mut slots, &mut answered, &error_response(Some(&id), &err));
                }
                Ok(Message::Request { id, method, params }) => {
                    match self.request(&id, &method, params, true) {
                        Handled::Now(a) => ready(&mut slots, &mut answered, &reply(&id, a)),
                        Handled::Encoded(result) => {
                            let bytes = encoded_response(&id, &result);
                            answered = answered.saturating_add(bytes.len());
                            slots.push(Slot::Ready(bytes));
                        }
                        Handled::Later(fut) => slots.push(Slot::Waiting(id, fut)),
                    }
                }
                // Notifications (and stray responses) get no entry.
                Ok(Message::Notification { method, params }) => self.notification(&method, params),
                Ok(Message::Response { .. } | Message::ErrorResponse { .. }) => {}
            };
            mcp_wire::cost::for_each_element(line, &mut each)
        };
        if let Err(e) = built {
            let err = ParseError(format!("invalid JSON: {e}")).error();
            return self.send_error(None, &err).await;
        }
        if slots.is_empty() {
            // JSON-RPC 2.0: an all-notification batch gets no answer at all.
            return;
        }
        if slots.iter().all(|s| matches!(s, Slot::Ready(_))) {
            let parts: Vec<Vec<u8>> = slots
                .into_iter()
                .filter_map(|s| match s {
                    Slot::Ready(b) => Some(b),
                    Slot::Waiting(..) => None,
                })
                .collect();
            return self.out.send_line(batch_line(&parts)).await;
        }
        let out = self.out.clone();
        self.tasks.spawn(async move {
            let mut parts = Vec::with_capacity(slots.len());
            for slot in slots {
                match slot {
                    Slot::Ready(b) => parts.push(b),
                    Slot::Waiting(id, fut) => {
                        // A cancelled element gets no entry (T7).
                        if let Some(a) = fut.await {
                            parts.push(encoded(&reply(&id, a)));
                        }
                    }
                }
            }
            if !parts.is_empty() {
                out.send_line(batch_line(&parts)).await;
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn an_encoded_response_is_the_bytes_of_the_response_value() {
        let result = json!({"tools": [{"name": "a", "d": "x\"y\n"}]});
        for id in [
            json!(0),
            json!(-7),
            json!(""),
            json!("a\"b"),
            json!(u64::MAX),
        ] {
            let want = encoded(&response(&id, result.clone()));
            assert_eq!(encoded_response(&id, &result.to_string()), want, "{id}");
        }
    }
}
