//! The stand-in's request log: one [`RecordedRequest`] per HTTP request received, for assertions
//! on what the real CLI sent (method, path, query, selected headers, JSON body) and on how the
//! answer went (status, whether a stream completed or the client went away).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use super::scenario::{last_user_has_tool_result, offers_tool};

/// Request headers kept in the log (lower-case names); others are dropped so the log stays
/// small and free of noise.
pub const RECORDED_HEADERS: [&str; 10] = [
    "anthropic-version",
    "anthropic-beta",
    "x-api-key",
    "authorization",
    "user-agent",
    "content-type",
    "x-app",
    "x-claude-code-session-id",
    "x-stainless-retry-count",
    "accept",
];

/// What a request was, by method and path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum RequestKind {
    /// `POST /v1/messages` (any query, e.g. `?beta=true`).
    Messages,
    /// `POST /v1/messages/count_tokens`.
    CountTokens,
    /// `HEAD`/`GET /api/hello`: the CLI's connection pre-warm (answered 200, ignored by it).
    Preconnect,
    /// Anything else (answered 404).
    Other,
}

/// How the answer of a request went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "state")]
#[non_exhaustive]
pub enum StreamOutcome {
    /// A plain (non-streamed) body was sent.
    NotStreamed,
    /// The event stream is being sent; `events_sent` so far.
    InProgress {
        /// Events handed to the connection so far.
        events_sent: usize,
    },
    /// Every event up to `message_stop` was handed to the connection.
    Completed {
        /// Number of events sent.
        events_sent: usize,
    },
    /// The client closed the connection before the stream ended (e.g. it was killed).
    ClientGone {
        /// Events handed to the connection before it went away.
        events_sent: usize,
    },
}

/// One request received by the stand-in.
#[derive(Debug, Clone, Serialize)]
pub struct RecordedRequest {
    /// Arrival order, from 0.
    pub seq: usize,
    /// HTTP method (`POST`, `HEAD`, …).
    pub method: String,
    /// Path without the query (`/v1/messages`).
    pub path: String,
    /// Raw query string if any (`beta=true`).
    pub query: Option<String>,
    /// The headers of [`RECORDED_HEADERS`] that were present, by lower-case name.
    pub headers: BTreeMap<String, String>,
    /// The body parsed as JSON; `None` when empty, not JSON, or past the first 1000 records.
    pub body: Option<Value>,
    /// Body length in bytes.
    pub body_len: usize,
    /// What the request was.
    pub kind: RequestKind,
    /// Scenario applied (messages requests only), e.g. `tool`.
    pub scenario: Option<String>,
    /// HTTP status answered.
    pub status: u16,
    /// How the answer went.
    pub outcome: StreamOutcome,
}

impl RecordedRequest {
    /// A recorded header value by lower-case name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }

    /// Whether this is a messages request of the CLI's main loop: it offers the `Bash` tool.
    /// Side requests (if any) offer other tools or none.
    pub fn is_main_loop(&self) -> bool {
        self.kind == RequestKind::Messages
            && self.body.as_ref().is_some_and(|b| offers_tool(b, "Bash"))
    }

    /// Whether the last user message carries a `tool_result` (a second leg of a tool turn).
    pub fn carries_tool_result(&self) -> bool {
        self.body.as_ref().is_some_and(last_user_has_tool_result)
    }

    /// The `stream` flag of a messages body.
    pub fn is_streaming(&self) -> bool {
        self.body
            .as_ref()
            .and_then(|b| b.get("stream"))
            .and_then(Value::as_bool)
            == Some(true)
    }
}
