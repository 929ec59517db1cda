//! The server's framing and JSON-RPC 2.0 envelope, written here rather than taken from the
//! kit's `mcp-wire` so that the gate is checked against a second reading of the spec: a bounded
//! line splitter, the classification of one parsed line, and the answers' envelopes.

use serde_json::{Value, json};

/// One line of stdin.
pub enum Line {
    /// A line within the bound, without its newline.
    Whole(Vec<u8>),
    /// A line longer than the bound, discarded as it streamed.
    Oversized,
}

/// Splits stdin into lines, never holding more than `max` bytes of one.
pub struct LineSplitter {
    max: usize,
    partial: Vec<u8>,
    discarding: bool,
}

impl LineSplitter {
    pub fn new(max: usize) -> Self {
        Self {
            max,
            partial: Vec::new(),
            discarding: false,
        }
    }

    /// The lines completed by `chunk`.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<Line> {
        let mut lines = Vec::new();
        let mut rest = chunk;
        while let Some(pos) = rest.iter().position(|b| *b == b'\n') {
            let (head, tail) = rest.split_at(pos);
            if self.discarding || self.partial.len() + head.len() > self.max {
                lines.push(Line::Oversized);
            } else {
                self.partial.extend_from_slice(head);
                let mut line = std::mem::take(&mut self.partial);
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                lines.push(Line::Whole(line));
            }
            self.partial.clear();
            self.discarding = false;
            rest = &tail[1..];
        }
        if !self.discarding {
            if self.partial.len() + rest.len() > self.max {
                self.partial.clear();
                self.discarding = true;
            } else {
                self.partial.extend_from_slice(rest);
            }
        }
        lines
    }
}

/// One line the server writes.
pub enum Out {
    /// A JSON value, encoded on one line.
    Json(Value),
    /// Raw bytes (a defect's), a newline added.
    Raw(Vec<u8>),
}

/// `value` on one line with its newline.
pub fn encode(value: &Value) -> Vec<u8> {
    let mut bytes = serde_json::to_vec(value).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

/// What one parsed line of stdin is.
pub enum Incoming {
    /// A request: its id (a string or a number), method and params.
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    /// A notification (its params are not needed: nothing in flight can be cancelled).
    Notification { method: String },
    /// A response from the client (to nothing the server sent: it sends no requests).
    Response,
    /// Not a valid request: the error to answer under `id` (null when it cannot be read).
    Invalid { id: Value, message: &'static str },
}

/// Classifies one JSON object (JSON-RPC 2.0 §4, MCP basic: ids are strings or integers, never
/// null).
pub fn classify(obj: &serde_json::Map<String, Value>) -> Incoming {
    let readable_id = match obj.get("id") {
        Some(id @ (Value::String(_) | Value::Number(_))) => Some(id.clone()),
        _ => None,
    };
    let reply_id = readable_id.clone().unwrap_or(Value::Null);
    if obj.get("jsonrpc") != Some(&json!("2.0")) {
        return Incoming::Invalid {
            id: reply_id,
            message: "jsonrpc must be \"2.0\"",
        };
    }
    if !obj.contains_key("method") {
        if obj.contains_key("result") || obj.contains_key("error") {
            return Incoming::Response;
        }
        return Incoming::Invalid {
            id: reply_id,
            message: "no method",
        };
    }
    let Some(method) = obj.get("method").and_then(Value::as_str) else {
        return Incoming::Invalid {
            id: reply_id,
            message: "method must be a string",
        };
    };
    let params = obj.get("params").cloned().unwrap_or(Value::Null);
    if !matches!(params, Value::Null | Value::Object(_) | Value::Array(_))
        || (obj.contains_key("params") && params.is_null())
    {
        return Incoming::Invalid {
            id: reply_id,
            message: "params must be an object or an array",
        };
    }
    match (obj.get("id"), readable_id) {
        (None, _) => Incoming::Notification {
            method: method.to_owned(),
        },
        (Some(_), Some(id)) => Incoming::Request {
            id,
            method: method.to_owned(),
            params,
        },
        (Some(_), None) => Incoming::Invalid {
            id: Value::Null,
            message: "id must be a string or an integer",
        },
    }
}

/// A success response.
pub fn result(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// An error response.
pub fn error(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// JSON-RPC 2.0 §5.1's codes.
pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL_ERROR: i64 = -32603;
/// MCP server/resources: resource not found.
pub const RESOURCE_NOT_FOUND: i64 = -32002;
