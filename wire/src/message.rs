//! JSON-RPC 2.0 messages as MCP uses them: classification of inbound frames and the exact shapes
//! of responses and errors (T3a, T4, T5).
//!
//! Ids are kept as the `serde_json::Value` they arrived as (a string or an integer), so they are
//! echoed exactly: empty strings, `0`, negative numbers and the whole i64/u64 range (T3a).
//! Errors are data built here, in one place, never strings assembled at call sites.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// The JSON-RPC version string every message carries.
pub const JSONRPC: &str = "2.0";

/// The JSON-RPC error codes this kit uses.
pub mod code {
    /// Invalid JSON was received (T4).
    pub const PARSE_ERROR: i64 = -32700;
    /// The JSON sent is not a valid request object (T4, T5, T6, and "not initialized" in T3).
    pub const INVALID_REQUEST: i64 = -32600;
    /// The method does not exist (T3).
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Invalid method parameters (T4, TOOL-3 unknown tool).
    pub const INVALID_PARAMS: i64 = -32602;
    /// Internal error.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// Implementation-defined server error (META-WORK-5 snapshot refusal).
    pub const SERVER_ERROR: i64 = -32000;
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    /// One of [`code`] or an implementation-defined code.
    pub code: i64,
    /// A short description.
    pub message: String,
    /// Optional structured detail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ErrorObject {
    /// An error with a code and message and no data.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// Attaches `data`.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// `-32700`: the line was not JSON.
    pub fn parse_error(detail: impl std::fmt::Display) -> Self {
        Self::new(code::PARSE_ERROR, format!("parse error: {detail}"))
    }

    /// `-32600`: not a valid request.
    pub fn invalid_request(detail: impl std::fmt::Display) -> Self {
        Self::new(code::INVALID_REQUEST, format!("invalid request: {detail}"))
    }

    /// `-32601`: unknown method.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(
            code::METHOD_NOT_FOUND,
            format!("method not found: {method}"),
        )
    }

    /// `-32602`: bad params.
    pub fn invalid_params(detail: impl std::fmt::Display) -> Self {
        Self::new(code::INVALID_PARAMS, format!("invalid params: {detail}"))
    }
}

/// A well-formed JSON-RPC message.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// A request: has an id and a method.
    Request {
        /// The id exactly as received (string or integer).
        id: Value,
        /// The method name.
        method: String,
        /// `params`, when present (an object or an array).
        params: Option<Value>,
    },
    /// A notification: a method without an id.
    Notification {
        /// The method name.
        method: String,
        /// `params`, when present.
        params: Option<Value>,
    },
    /// A successful response.
    Response {
        /// The id it answers.
        id: Value,
        /// The result.
        result: Value,
    },
    /// An error response. Its id may be `null` (parse errors, unreadable ids).
    ErrorResponse {
        /// The id it answers, or `Value::Null`.
        id: Value,
        /// The error.
        error: ErrorObject,
    },
}

/// A JSON value that is not a valid JSON-RPC message.
#[derive(Debug, Clone, PartialEq)]
pub struct Invalid {
    /// The id, when one could be read from the value (T4: answer with it).
    pub id: Option<Value>,
    /// Why it is invalid.
    pub reason: String,
}

impl Invalid {
    /// The `-32600` error to answer this with.
    #[must_use]
    pub fn error(&self) -> ErrorObject {
        ErrorObject::invalid_request(&self.reason)
    }

    /// The id to answer with (`null` when none could be read).
    #[must_use]
    pub fn reply_id(&self) -> Value {
        self.id.clone().unwrap_or(Value::Null)
    }
}

/// One element of an inbound frame: a message, or a value that is not one.
pub type Incoming = Result<Message, Invalid>;

/// A decoded inbound frame.
#[derive(Debug, Clone, PartialEq)]
pub enum Inbound {
    /// A single JSON value.
    Single(Incoming),
    /// A JSON array: a batch (only legal under `2025-03-26`, T5). An empty array is `Batch(vec![])`.
    Batch(Vec<Incoming>),
}

/// The frame was not JSON at all (`-32700`, T4).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct ParseError(pub String);

impl ParseError {
    /// The `-32700` error to answer this with (its id is always `null`).
    #[must_use]
    pub fn error(&self) -> ErrorObject {
        ErrorObject::parse_error(&self.0)
    }
}

/// Decodes one frame: invalid UTF-8 or invalid JSON is a [`ParseError`]; anything else is
/// classified element by element.
pub fn parse_inbound(frame: &[u8]) -> Result<Inbound, ParseError> {
    let text = std::str::from_utf8(frame).map_err(|e| ParseError(format!("invalid UTF-8: {e}")))?;
    let value: Value =
        serde_json::from_str(text).map_err(|e| ParseError(format!("invalid JSON: {e}")))?;
    Ok(match value {
        Value::Array(items) => Inbound::Batch(items.into_iter().map(classify).collect()),
        other => Inbound::Single(classify(other)),
    })
}

/// A legal id is a string or an integer (MCP forbids `null` and fractions).
fn legal_id(id: &Value) -> bool {
    match id {
        Value::String(_) => true,
        Value::Number(n) => n.is_i64() || n.is_u64(),
        _ => false,
    }
}

/// Classifies one JSON value as a message or an invalid one.
pub fn classify(value: Value) -> Incoming {
    let Value::Object(mut obj) = value else {
        return Err(Invalid {
            id: None,
            reason: "a message must be a JSON object".into(),
        });
    };
    let id = obj.remove("id");
    let readable_id = id.as_ref().filter(|v| legal_id(v)).cloned();
    let invalid = |reason: &str| Invalid {
        id: readable_id.clone(),
        reason: reason.to_owned(),
    };

    if obj.get("jsonrpc").and_then(Value::as_str) != Some(JSONRPC) {
        return Err(invalid("\"jsonrpc\" must be \"2.0\""));
    }
    // An error response may carry `id: null` (parse errors); everything else needs a legal id.
    let null_id_error = obj.contains_key("error") && matches!(id, Some(Value::Null));
    if let Some(id) = &id
        && !legal_id(id)
        && !null_id_error
    {
        return Err(invalid("\"id\" must be a string or an integer"));
    }

    if obj.contains_key("method") {
        let Some(Value::String(method)) = obj.remove("method") else {
            return Err(invalid("\"method\" must be a string"));
        };
        let params = obj.remove("params");
        if let Some(p) = &params
            && !(p.is_object() || p.is_array())
        {
            return Err(invalid("\"params\" must be an object or an array"));
        }
        if obj.contains_key("result") || obj.contains_key("error") {
            return Err(invalid("a request cannot carry \"result\" or \"error\""));
        }
        return Ok(match id {
            Some(id) => Message::Request { id, method, params },
            None => Message::Notification { method, params },
        });
    }

    match (obj.remove("result"), obj.remove("error")) {
        (Some(result), None) => match id {
            Some(id) => Ok(Message::Response { id, result }),
            None => Err(invalid("a response needs an \"id\"")),
        },
        (None, Some(error)) => match serde_json::from_value::<ErrorObject>(error) {
            Ok(error) => Ok(Message::ErrorResponse {
                id: id.unwrap_or(Value::Null),
                error,
            }),
            Err(e) => Err(invalid(&format!("malformed \"error\": {e}"))),
        },
        (Some(_), Some(_)) => Err(invalid(
            "a response cannot carry both \"result\" and \"error\"",
        )),
        (None, None) => Err(invalid("neither a request nor a response: no \"method\"")),
    }
}

/// A success response.
#[must_use]
pub fn response(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": JSONRPC, "id": id, "result": result})
}

/// An error response; `id` is `None` (serialised as `null`) when none could be read.
#[must_use]
pub fn error_response(id: Option<&Value>, error: &ErrorObject) -> Value {
    json!({"jsonrpc": JSONRPC, "id": id.unwrap_or(&Value::Null), "error": error})
}

/// A request.
#[must_use]
pub fn request(id: &Value, method: &str, params: Option<Value>) -> Value {
    let mut m = Map::new();
    m.insert("jsonrpc".into(), JSONRPC.into());
    m.insert("id".into(), id.clone());
    m.insert("method".into(), method.into());
    if let Some(p) = params {
        m.insert("params".into(), p);
    }
    Value::Object(m)
}

/// A notification.
#[must_use]
pub fn notification(method: &str, params: Option<Value>) -> Value {
    let mut m = Map::new();
    m.insert("jsonrpc".into(), JSONRPC.into());
    m.insert("method".into(), method.into());
    if let Some(p) = params {
        m.insert("params".into(), p);
    }
    Value::Object(m)
}

/// One newline-terminated frame: compact JSON (which never contains a raw newline) plus `\n`.
#[must_use]
pub fn encode(value: &Value) -> Vec<u8> {
    let mut out = value.to_string().into_bytes();
    out.push(b'\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn single(text: &str) -> Incoming {
        match parse_inbound(text.as_bytes()) {
            Ok(Inbound::Single(m)) => m,
            other => panic!("not single: {other:?}"),
        }
    }

    #[test]
    fn ids_of_every_legal_shape_are_kept_exactly() {
        // T3a, C-T3a: every string, every integer in the i64/u64 range.
        for id in [
            "\"\"",
            "\"x\"",
            "0",
            "-1",
            "9223372036854775807",
            "-9223372036854775808",
            "18446744073709551615",
        ] {
            let m = single(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#));
            let Ok(Message::Request { id: got, .. }) = m else {
                panic!("{m:?}")
            };
            assert_eq!(got.to_string(), id);
            assert_eq!(response(&got, json!({}))["id"].to_string(), id);
        }
    }

    #[test]
    fn illegal_ids_are_invalid_without_an_echo() {
        // C-T3a: `-0`, an exponent form and integers beyond u64 (or below i64) are not kept
        // exactly by the parser, so they are unreadable ids too.
        for id in [
            "null",
            "1.5",
            "true",
            "{}",
            "[]",
            "-0",
            "1e2",
            "18446744073709551616",
            "-9223372036854775809",
        ] {
            let m = single(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#));
            let Err(inv) = m else { panic!("{m:?}") };
            assert_eq!(inv.reply_id(), Value::Null);
        }
    }

    #[test]
    fn invalid_requests_keep_a_readable_id() {
        // T4: with the request's id when one can be read.
        let m = single(r#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#);
        assert_eq!(m.unwrap_err().reply_id(), json!(7));
        let m = single(r#"{"jsonrpc":"2.0","id":"a","method":5}"#);
        assert_eq!(m.unwrap_err().reply_id(), json!("a"));
        let m = single(r#"{"jsonrpc":"2.0","id":"a","method":"x","params":3}"#);
        assert_eq!(m.unwrap_err().error().code, code::INVALID_REQUEST);
    }

    #[test]
    fn non_json_and_bad_utf8_are_parse_errors() {
        assert!(parse_inbound(b"{not json").is_err());
        assert!(parse_inbound(b"\xff\xfe").is_err());
        assert!(parse_inbound(b"").is_err());
        assert_eq!(
            parse_inbound(b"{").unwrap_err().error().code,
            code::PARSE_ERROR
        );
    }

    #[test]
    fn scalars_and_batches_are_classified() {
        assert!(single("42").is_err());
        assert!(matches!(parse_inbound(b"[]"), Ok(Inbound::Batch(v)) if v.is_empty()));
        let Ok(Inbound::Batch(items)) =
            parse_inbound(br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},3]"#)
        else {
            panic!()
        };
        assert!(items[0].is_ok());
        assert!(items[1].is_err());
    }

    #[test]
    fn notifications_responses_and_errors() {
        assert!(matches!(
            single(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Ok(Message::Notification { .. })
        ));
        assert!(matches!(
            single(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
            Ok(Message::Response { .. })
        ));
        let e = single(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#);
        assert!(matches!(
            e,
            Ok(Message::ErrorResponse {
                id: Value::Null,
                ..
            })
        ));
    }

    #[test]
    fn encode_is_one_line() {
        let v = json!({"a": "x\ny"});
        let bytes = encode(&v);
        assert_eq!(bytes.iter().filter(|&&b| b == b'\n').count(), 1);
        assert_eq!(bytes.last(), Some(&b'\n'));
    }
}
