//! `authenticate`: always fails like the real one with an API key or no login: -32602 "Failed to
//! open browser for login" with a login URL in `data` (spike, item 3). A correct client never
//! sends it (ACP-2); the log shows whether one did.

use serde_json::Value;

use super::Agent;

/// Answers `authenticate` request `id`.
pub fn handle(agent: &mut Agent, id: &Value) {
    let err = agent.profile.authenticate_error();
    agent.reply_error(id, err);
}
