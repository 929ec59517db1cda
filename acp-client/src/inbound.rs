//! Lenient routing of agent lines by shape (ACP-1).
//!
//! `mcp_wire::message::classify` is MCP-strict (it refuses `id: null` on requests and demands
//! `jsonrpc: "2.0"`); real ACP agents are looser, so this module routes on shape alone: a string
//! `method` with an `id` key (any JSON value, `null` included) is a request to us, a `method`
//! without `id` a notification, a `result` or `error` a response to one of ours. `error.data` of
//! any JSON type is kept; an `error` that is not a well-formed object is still an error response,
//! its odd parts kept in `data`.

use mcp_wire::message::{ErrorObject, code};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// One agent line, routed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Inbound {
    /// An agent → client request: answer it, echoing `id` exactly.
    Request {
        id: Value,
        /// The id's text as sent, when `id` would not serialise back to it (a number beyond
        /// 64 bits or written with a fraction or exponent, ACP-12).
        raw_id: Option<String>,
        method: String,
        params: Value,
    },
    /// A notification.
    Notification { method: String, params: Value },
    /// A response (success or error) to the request with `id`.
    Response {
        id: Value,
        answer: Result<Value, ErrorObject>,
    },
    /// Not one JSON-RPC message: counted, never fatal.
    Malformed,
}

/// Routes one complete line.
pub(crate) fn route(line: &[u8]) -> Inbound {
    match serde_json::from_slice::<Value>(line) {
        Ok(Value::Object(obj)) => match route_object(obj) {
            Inbound::Request {
                id: id @ Value::Number(_),
                method,
                params,
                ..
            } => Inbound::Request {
                raw_id: raw_id(line, &id),
                id,
                method,
                params,
            },
            other => other,
        },
        _ => Inbound::Malformed,
    }
}

/// The top-level `id` of a line, as its JSON text.
#[derive(serde::Deserialize)]
struct IdText<'a> {
    #[serde(borrow)]
    id: &'a RawValue,
}

/// ACP-12: the text of a numeric `id` when the parsed number would serialise differently
/// (`2^70` parsed as a float); `None` when it round-trips.
fn raw_id(line: &[u8], id: &Value) -> Option<String> {
    let text = serde_json::from_slice::<IdText<'_>>(line).ok()?.id.get();
    // Compared as text: `Value == str` would compare a JSON string's contents instead.
    let reserialised = id.to_string();
    (text != reserialised.as_str()).then(|| text.to_owned())
}

/// ACP-12: `frame` (a serialised JSON object whose top-level `id` is `id`, placed before any
/// nested object) with that id's text replaced by `raw`, the id as the agent wrote it. A JSON
/// string never holds `"` unescaped, so the first `{"id":` or `,"id":` is a key of the object
/// itself; a frame without it is returned as it is.
pub(crate) fn splice_id(frame: String, id: &Value, raw: &str) -> String {
    let lossy = format!("\"id\":{id}");
    let at = frame
        .match_indices(&lossy)
        .find(|(i, _)| *i > 0 && matches!(frame.as_bytes().get(i - 1), Some(b'{' | b',')));
    match at {
        Some((i, _)) => format!("{}\"id\":{raw}{}", &frame[..i], &frame[i + lossy.len()..]),
        None => frame,
    }
}

fn route_object(mut obj: Map<String, Value>) -> Inbound {
    if let Some(method) = obj.get("method") {
        let Some(method) = method.as_str().map(str::to_owned) else {
            return Inbound::Malformed;
        };
        let params = obj.remove("params").unwrap_or(Value::Null);
        return match obj.remove("id") {
            Some(id) => Inbound::Request {
                id,
                raw_id: None,
                method,
                params,
            },
            None => Inbound::Notification { method, params },
        };
    }
    let Some(id) = obj.remove("id") else {
        return Inbound::Malformed;
    };
    if let Some(error) = obj.remove("error") {
        return Inbound::Response {
            id,
            answer: Err(lenient_error(error)),
        };
    }
    match obj.remove("result") {
        Some(result) => Inbound::Response {
            id,
            answer: Ok(result),
        },
        None => Inbound::Malformed,
    }
}

/// An error object as sent, as far as it can be read: a missing or non-integer `code` becomes
/// `-32603` and the whole odd value is kept as `data`.
fn lenient_error(error: Value) -> ErrorObject {
    let code = error.get("code").and_then(Value::as_i64);
    let message = error.get("message").and_then(Value::as_str);
    match (code, message) {
        (Some(code), Some(message)) => ErrorObject {
            code,
            message: message.to_owned(),
            data: error.get("data").cloned(),
        },
        _ => ErrorObject::new(
            code.unwrap_or(code::INTERNAL_ERROR),
            message.unwrap_or("malformed error object"),
        )
        .with_data(error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn requests_with_null_string_and_integer_ids_are_requests() {
        for id in [json!(null), json!("x"), json!(0), json!(-7)] {
            let line = json!({"jsonrpc":"2.0","id":id,"method":"m"}).to_string();
            assert_eq!(
                route(line.as_bytes()),
                Inbound::Request {
                    id,
                    raw_id: None,
                    method: "m".into(),
                    params: Value::Null
                }
            );
        }
    }

    #[test]
    fn a_numeric_id_that_would_not_round_trip_keeps_its_text() {
        // ACP-12: 2^70 parses as a float; its digits are kept for the answer.
        for (text, raw) in [
            ("1180591620717411303424", Some("1180591620717411303424")),
            ("-9223372036854775809", Some("-9223372036854775809")),
            ("1e3", Some("1e3")),
            ("18446744073709551615", None),
            ("-7", None),
        ] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{text},"method":"m"}}"#);
            let Inbound::Request { id, raw_id, .. } = route(line.as_bytes()) else {
                panic!("{line}")
            };
            assert_eq!(raw_id.as_deref(), raw, "{line}");
            let frame = json!({"jsonrpc": "2.0", "id": id, "result": {"id": id}}).to_string();
            let echoed = match &raw_id {
                Some(raw) => splice_id(frame, &id, raw),
                None => frame,
            };
            assert!(
                echoed.starts_with(&format!(r#"{{"jsonrpc":"2.0","id":{text},"result""#)),
                "{echoed}"
            );
        }
    }

    #[test]
    fn error_data_of_any_type_is_kept() {
        for data in [
            json!("s"),
            json!(1),
            json!([1]),
            json!(null),
            json!({"a":1}),
        ] {
            let line =
                json!({"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"m","data":data}});
            let Inbound::Response { answer: Err(e), .. } = route(line.to_string().as_bytes())
            else {
                panic!()
            };
            assert_eq!(e.data, Some(data));
        }
    }

    #[test]
    fn odd_error_objects_are_still_errors() {
        let line = br#"{"jsonrpc":"2.0","id":1,"error":"boom"}"#;
        let Inbound::Response { answer: Err(e), .. } = route(line) else {
            panic!()
        };
        assert_eq!(e.code, code::INTERNAL_ERROR);
        assert_eq!(e.data, Some(json!("boom")));
    }

    #[test]
    fn shapeless_lines_are_malformed() {
        for line in [
            &b"nope"[..],
            b"[]",
            b"3",
            br#"{"id":1}"#,
            br#"{"method":5}"#,
        ] {
            assert_eq!(
                route(line),
                Inbound::Malformed,
                "{}",
                String::from_utf8_lossy(line)
            );
        }
    }
}
