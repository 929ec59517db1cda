//! How agent → client requests other than `session/request_permission` are answered (ACP-5).
//! Every request gets an answer, so a pending request never stalls a turn.

use mcp_wire::message::ErrorObject;
use serde_json::{Value, json};

/// The answer to one agent request.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// A success response with this result.
    Result(Value),
    /// An error response.
    Error(ErrorObject),
}

impl Answer {
    /// `-32601` for `method`.
    #[must_use]
    pub fn method_not_found(method: &str) -> Self {
        Answer::Error(ErrorObject::method_not_found(method))
    }
}

/// Decides the answer to each agent request except `session/request_permission` (which follows
/// the turn's [`PermissionMode`](crate::PermissionMode)).
pub trait AgentRequestPolicy: Send + Sync {
    /// The answer to `method` with `params` (`Value::Null` when the request had none).
    fn answer(&self, method: &str, params: &Value) -> Answer;
}

/// For any ACP agent: every request is `-32601`. The client advertises neither `fs/*` nor
/// `terminal/*`, so an agent that asks anyway learns the method is not there.
#[derive(Debug, Clone, Copy, Default)]
pub struct GenericPolicy;

impl AgentRequestPolicy for GenericPolicy {
    fn answer(&self, method: &str, _params: &Value) -> Answer {
        Answer::method_not_found(method)
    }
}

/// Cursor's vendor methods (ACP-5): `cursor/update_todos`, `cursor/task` and
/// `cursor/generate_image` (sent as requests with an id and no `sessionId`, errors ignored by the
/// agent) get `{}`; `cursor/ask_question` and `cursor/create_plan` get `-32601` (a headless client
/// cannot ask a person); `fs/*`, `terminal/*` and everything else get `-32601`.
#[derive(Debug, Clone, Copy, Default)]
pub struct CursorPolicy;

/// The Cursor requests answered with an empty result.
pub const CURSOR_ACKNOWLEDGED: [&str; 3] = [
    "cursor/update_todos",
    "cursor/task",
    "cursor/generate_image",
];

impl AgentRequestPolicy for CursorPolicy {
    fn answer(&self, method: &str, _params: &Value) -> Answer {
        if CURSOR_ACKNOWLEDGED.contains(&method) {
            Answer::Result(json!({}))
        } else {
            Answer::method_not_found(method)
        }
    }
}
