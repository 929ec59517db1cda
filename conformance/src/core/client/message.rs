//! What a client reads and what can go wrong: [`Frame`]s from the server's stdout, the
//! JSON-RPC shape a valid line must have (T1), and [`ClientError`].

use serde_json::{Value, json};

use crate::core::model::Check;
use crate::core::transcript::Peer;

/// Trouble talking to a server.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The server could not be started.
    #[error("cannot start {program}: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// Why.
        source: std::io::Error,
    },
    /// Nothing arrived before the case's deadline.
    #[error(
        "no answer to {waiting_for} within {ms} ms{}{note}",
        meanwhile(unmatched)
    )]
    Timeout {
        /// What the case was waiting for.
        waiting_for: String,
        /// How long it really waited.
        ms: u64,
        /// Responses that arrived meanwhile with another id (a server echoing ids wrongly),
        /// compact and clipped, at most a few.
        unmatched: Vec<String>,
        /// Whether one of them carries an id no request of the runner had (JSON-RPC 2.0 §5):
        /// the answer probably came under a wrong id.
        foreign_id: bool,
        /// What else explains the silence (a line over the keep limit), or empty.
        note: String,
        /// Everything else that arrived during the wait (notifications, requests, batches,
        /// lines that are no JSON), each with when it came, compact and clipped, at most a few:
        /// a deadline's message quotes what did arrive, never "nothing" when something did.
        arrived: Vec<String>,
        /// When the first line of any kind arrived during the wait (ms after it began), or
        /// `None` when nothing did: a peer that answered under another id was up by then.
        first_ms: Option<u64>,
    },
    /// The server closed stdout (or stdin) while the case still needed it.
    #[error(
        "the {} closed the connection while waiting for {waiting_for}{}{note}",
        peer.noun(),
        meanwhile(unmatched)
    )]
    Closed {
        /// Whom the connection was with (the words of the text).
        peer: Peer,
        /// What the case was waiting for.
        waiting_for: String,
        /// As for [`ClientError::Timeout`].
        unmatched: Vec<String>,
        /// How the server ended (its exit status or signal), or what else explains it.
        note: String,
    },
    /// An I/O error of the runner's own.
    #[error("i/o error: {0}")]
    Io(std::io::Error),
    /// Streamable HTTP answered the request without its response (HTTP-2; HTTP-4 for a
    /// request before the session).
    #[error("no JSON-RPC response to {waiting_for}: {}", refusal.said)]
    Refused {
        /// What the case was waiting for.
        waiting_for: String,
        /// The transport's answer.
        refusal: Box<Refusal>,
    },
    /// What only a stdio connection has (stdin, a line, the server's process), asked of a
    /// Streamable HTTP one.
    #[error("{NOT_OVER_HTTP}: {0}")]
    NotApplicable(String),
}

/// The skip of what a Streamable HTTP connection does not have.
pub const NOT_OVER_HTTP: &str = "not applicable over Streamable HTTP";

/// How many unmatched responses a timeout or close reports.
pub(super) const MAX_UNMATCHED: usize = 3;

/// The text added to an error for the responses that answered something else.
#[must_use]
pub fn meanwhile(unmatched: &[String]) -> String {
    if unmatched.is_empty() {
        String::new()
    } else {
        format!(
            " (meanwhile, responses with other ids: {})",
            unmatched.join(" | ")
        )
    }
}

/// The text added to a deadline's error for what else arrived during the wait.
#[must_use]
pub fn also_arrived(arrived: &[String]) -> String {
    if arrived.is_empty() {
        String::new()
    } else {
        format!(
            " (meanwhile, nothing answering it: {})",
            arrived.join(" | ")
        )
    }
}

/// One frame read from the server's stdout.
#[derive(Debug, Clone, PartialEq)]
pub enum Frame {
    /// A line that parsed as JSON (any JSON value: an object, a batch array, …).
    Json(Value),
    /// A line that was not JSON (a T1 violation: stdout must carry only protocol messages).
    NotJson(String),
    /// A line longer than [`MAX_SERVER_LINE`](super::MAX_SERVER_LINE), with its length.
    Oversized(u64),
    /// Streamable HTTP: the answer to the POST of a request carried no response to it
    /// (HTTP-2): an HTTP error status, a 202, a stream that ended without it.
    Refused(Refusal),
}

/// A request the Streamable HTTP transport answered without its JSON-RPC response.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// The request's id.
    pub id: Value,
    /// The HTTP status.
    pub status: u16,
    /// The answer in a finding's words (status, content type, body).
    pub said: String,
    /// Whether the request went out before the server issued a session (no `Mcp-Session-Id`)
    /// and was not `initialize`: a 400 then is HTTP-4's refusal of a request without a session
    /// (and another 4xx the same refusal with a status HTTP-4 does not ask for).
    pub sessionless: bool,
}

impl Frame {
    /// The JSON value, when this frame is one.
    #[must_use]
    pub fn json(&self) -> Option<&Value> {
        match self {
            Frame::Json(v) => Some(v),
            _ => None,
        }
    }
}

/// Why `msg`, one line a server wrote on stdout, is not a valid JSON-RPC 2.0 message as MCP
/// requires (2025-06-18 basic/transports: "The server MUST NOT write anything to its stdout
/// that is not a valid MCP message"; basic: responses set exactly one of `result` and `error`,
/// errors carry an integer code and a message, request ids are strings or integers). `None`
/// when it is one. A batch (an array of such messages) is accepted: 2025-03-26 allows it.
#[must_use]
pub fn message_problem(msg: &Value) -> Option<String> {
    if let Value::Array(items) = msg {
        if items.is_empty() {
            return Some("an empty array".into());
        }
        return items.iter().find_map(|m| {
            if m.is_array() {
                Some("an array nested in an array".into())
            } else {
                message_problem(m)
            }
        });
    }
    let Some(obj) = msg.as_object() else {
        return Some("not a JSON object".into());
    };
    if obj.get("jsonrpc") != Some(&json!("2.0")) {
        return Some("no \"jsonrpc\": \"2.0\"".into());
    }
    // An integer beyond 64 bits is still an integer (MCP: a string or integer id); serde_json
    // holds it as a float, so a float without a fractional part counts.
    let id_ok = |id: &Value| {
        id.is_string()
            || id.is_i64()
            || id.is_u64()
            || id
                .as_f64()
                .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
    };
    if let Some(method) = obj.get("method") {
        if !method.is_string() {
            return Some("a method that is not a string".into());
        }
        if obj.contains_key("result") || obj.contains_key("error") {
            return Some("a request or notification with result or error".into());
        }
        if obj.get("id").is_some_and(|id| !id_ok(id)) {
            return Some("a request id that is neither a string nor an integer".into());
        }
        if obj
            .get("params")
            .is_some_and(|p| !p.is_object() && !p.is_array())
        {
            return Some("params that are not structured".into());
        }
        return None;
    }
    let Some(id) = obj.get("id") else {
        return Some("neither a method nor an id".into());
    };
    match (obj.get("result"), obj.get("error")) {
        (Some(_), Some(_)) => Some("a response with both result and error".into()),
        (None, None) => Some("a response with neither result nor error".into()),
        (Some(result), None) => {
            if !id_ok(id) {
                Some("a result whose id is neither a string nor an integer".into())
            } else if !result.is_object() {
                Some("a result that is not an object".into())
            } else {
                None
            }
        }
        (None, Some(error)) => {
            if !id_ok(id) && !id.is_null() {
                Some("an error whose id is neither a string, an integer nor null".into())
            } else if !error.get("code").is_some_and(|c| c.is_i64()) {
                Some("an error without an integer code".into())
            } else if !error.get("message").is_some_and(Value::is_string) {
                Some("an error without a string message".into())
            } else {
                None
            }
        }
    }
}

/// Is `msg` a response (result or error, no method) to the request with `id`?
#[must_use]
pub fn is_response_to(msg: &Value, id: &Value) -> bool {
    msg.get("method").is_none()
        && (msg.get("result").is_some() || msg.get("error").is_some())
        && msg.get("id") == Some(id)
}

/// The error code of an error response.
#[must_use]
pub fn error_code(msg: &Value) -> Option<i64> {
    msg.get("error")?.get("code")?.as_i64()
}

impl From<ClientError> for Check {
    /// Protocol-level trouble while talking to the server is the server's failure, except when
    /// the runner could not start it at all, or when the answer came under another id (graded
    /// once, by `jsonrpc/response-ids`).
    fn from(e: ClientError) -> Self {
        match e {
            ClientError::Spawn { .. } | ClientError::Io(_) => Check::Error(e.to_string()),
            ClientError::NotApplicable(_) => Check::skip(e.to_string()),
            ClientError::Refused {
                ref waiting_for,
                ref refusal,
            } if refusal.sessionless && (400..500).contains(&refusal.status) => {
                // HTTP-4 asks for 400; another client error (rmcp 3.1.0 answers 422) is the same
                // refusal of a request without a session, and its status is graded once, by
                // transport/http/session/required, not again by each case sent before it.
                let how = if refusal.status == 400 {
                    "with 400 Bad Request as HTTP-4 says"
                } else {
                    "with a client error other than HTTP-4's 400 Bad Request (graded by \
                     transport/http/session/required)"
                };
                Check::skip(format!(
                    "{NOT_OVER_HTTP}: the server requires a session and refused {waiting_for}, \
                     sent before initialize, {how} ({})",
                    refusal.said
                ))
            }
            ClientError::Refused {
                ref waiting_for,
                ref refusal,
            } => Check::fail(
                format!(
                    "an answer to {waiting_for} (HTTP-2: the request's response in a JSON body \
                     or an SSE stream)"
                ),
                refusal.said.clone(),
            ),
            ClientError::Timeout {
                ref waiting_for,
                ms,
                ref unmatched,
                foreign_id,
                ref note,
                ref arrived,
                ..
            } => {
                let what = if unmatched.is_empty() && arrived.is_empty() {
                    "nothing"
                } else {
                    "no answer"
                };
                let fail = Check::fail(
                    format!("an answer to {waiting_for}"),
                    format!(
                        "{what} within {ms} ms{}{}{note}",
                        meanwhile(unmatched),
                        also_arrived(arrived)
                    ),
                );
                if foreign_id {
                    Check::blocked(crate::core::watch::ID_RULE_CASE, fail)
                } else {
                    fail
                }
            }
            ClientError::Closed {
                peer,
                ref waiting_for,
                ref unmatched,
                ref note,
            } => Check::fail(
                format!("the {} to stay up ({waiting_for})", peer.noun()),
                format!(
                    "the {} closed the connection{note}{}",
                    peer.noun(),
                    meanwhile(unmatched)
                ),
            ),
        }
    }
}
