//! Lenient routing of agent lines by shape (ACP-1).
//!
//! `mcp_wire::message::classify` is MCP-strict (it refuses `id: null` on requests and demands
//! `jsonrpc: "2.0"`); real ACP agents are looser, so this module routes on shape alone: a string
//! `method` with an `id` key (any JSON value, `null` included) is a request to us, a `method`
//! without `id` a notification, a `result` or `error` a response to one of ours. `error.data` of
//! any JSON type is kept; an `error` that is not a well-formed object is still an error response,
//! its odd parts kept in `data`.

use mcp_wire::message::{ErrorObject, code};
use serde_json::{Map, Value};

/// One agent line, routed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Inbound {
    /// An agent → client request: answer it, echoing `id` exactly.
    Request {
        id: Value,
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
        Ok(Value::Object(obj)) => route_object(obj),
        _ => Inbound::Malformed,
    }
}

fn route_object(mut obj: Map<String, Value>) -> Inbound {
    if let Some(method) = obj.get("method") {
        let Some(method) = method.as_str().map(str::to_owned) else {
            return Inbound::Malformed;
        };
        let params = obj.remove("params").unwrap_or(Value::Null);
        return match obj.remove("id") {
            Some(id) => Inbound::Request { id, method, params },
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
                    method: "m".into(),
                    params: Value::Null
                }
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
