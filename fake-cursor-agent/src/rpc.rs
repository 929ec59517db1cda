//! Every JSON-RPC message the agent writes is built here: responses, errors (codes and texts as
//! Cursor's TypeScript ACP stack produces them), requests and notifications.

use serde_json::{Value, json};

/// `{"jsonrpc":"2.0","id":…,"result":…}`.
pub fn result(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// `{"jsonrpc":"2.0","id":…,"error":…}`; `error` is a whole error object.
pub fn error(id: &Value, error: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": error})
}

/// An agent → client request.
pub fn request(id: &Value, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// An agent → client notification.
pub fn notification(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": method, "params": params})
}

/// `session/update` for `session_id`.
pub fn session_update(session_id: &str, update: Value) -> Value {
    notification(
        "session/update",
        json!({"sessionId": session_id, "update": update}),
    )
}

/// -32601 for a method the agent does not implement, in the TypeScript SDK's shape (recorded in
/// `ts-sdk-0.12.0-example-agent-allow.jsonl`).
pub fn method_not_found(method: &str) -> Value {
    json!({
        "code": -32601,
        "message": format!("\"Method not found\": {method}"),
        "data": {"method": method},
    })
}

/// -32602 for params the agent cannot use (unknown session, unknown mode).
pub fn invalid_params(detail: &str) -> Value {
    json!({"code": -32602, "message": "Invalid params", "data": detail})
}

/// The fake's own refusal of a second `session/prompt` while one is running (not recorded from
/// the real agent; a client that serialises turns never sees it).
pub fn prompt_busy() -> Value {
    json!({"code": -32603, "message": "Internal error", "data": "a prompt turn is already running in this session"})
}
