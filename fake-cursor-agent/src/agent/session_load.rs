//! `session/load`: answered only when the process scenario advertises `loadSession` (ACP-8);
//! otherwise "Method not found", as an agent without the capability answers. A loaded session
//! takes the client's `sessionId` and cwd and starts in mode `agent`; no history is replayed
//! (the fake keeps none).

use std::time::Duration;

use serde_json::Value;

use super::{Agent, session_new};
use crate::{process, rpc};

/// Answers `session/load` request `id`.
pub fn handle(agent: &mut Agent, id: &Value, params: &Value) {
    if !agent.base.handshake.load_session {
        agent.reply_error(id, rpc::method_not_found("session/load"));
        return;
    }
    let phase = agent.base.handshake.session_new.clone();
    if phase.hang {
        process::hang();
    }
    std::thread::sleep(Duration::from_millis(phase.delay_ms));
    if !session_new::has_credentials(agent) {
        let err = agent.profile.auth_required_error();
        agent.reply_error(id, err);
        return;
    }
    let Some(sid) = params.get("sessionId").and_then(Value::as_str) else {
        agent.reply_error(id, rpc::invalid_params("sessionId must be a string"));
        return;
    };
    let session = session_new::open(agent, sid.to_owned(), params);
    let result = session_new::session_fields(agent, &session);
    agent.reply(id, result);
}
