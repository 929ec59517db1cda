//! `session/set_mode`: switches among the advertised modes (the profile's `agent`, `plan`, `ask`,
//! or the scenario's); emits `current_mode_update` and answers `{}` (spike, item 1: plan mode
//! only through this method). A scenario may make it ignore or refuse every mode instead.
//! The update goes out before the answer, the order a TypeScript ACP agent produces when it
//! awaits its notification before returning (recorded for claude-code-acp).

use serde_json::{Value, json};

use super::{Agent, session_new};
use crate::rpc;
use crate::scenario::SetMode;

/// Answers `session/set_mode` request `id`.
pub fn handle(agent: &mut Agent, id: &Value, params: &Value) {
    let Some(i) = agent.session_index(params) else {
        agent.reply_error(id, rpc::invalid_params("unknown sessionId"));
        return;
    };
    let mode = params
        .get("modeId")
        .and_then(Value::as_str)
        .unwrap_or_default();
    match agent.base.handshake.set_mode {
        SetMode::Advertised => {}
        SetMode::Ignore => return agent.reply(id, json!({})),
        SetMode::Refuse => {
            let error =
                json!({"code": -32603, "message": format!("cannot switch to mode {mode:?}")});
            return agent.reply_error(id, error);
        }
    }
    let known = session_new::advertised(agent)
        .pointer("/modes/availableModes")
        .and_then(Value::as_array)
        .is_some_and(|ms| ms.iter().any(|m| m["id"] == mode));
    if !known {
        agent.reply_error(id, rpc::invalid_params(&format!("unknown mode {mode:?}")));
        return;
    }
    agent.sessions[i].mode = mode.to_owned();
    let sid = agent.sessions[i].id.clone();
    let update = json!({"sessionUpdate": "current_mode_update", "currentModeId": mode});
    agent.out.send(&rpc::session_update(&sid, update));
    agent.reply(id, json!({}));
}
