//! Model selection: `session/set_config_option {configId: "model", value}` (the schema's way) and
//! the removed `session/set_model {modelId}` that Cursor still accepts (spike, item 1). Both are
//! accepted for a known session; the model becomes the session's `{{model}}`.

use serde_json::{Value, json};

use super::Agent;
use crate::rpc;

/// Answers `session/set_config_option` request `id`.
pub fn config_option(agent: &mut Agent, id: &Value, params: &Value) {
    let Some(i) = agent.session_index(params) else {
        agent.reply_error(id, rpc::invalid_params("unknown sessionId"));
        return;
    };
    if params.get("configId").and_then(Value::as_str) == Some("model")
        && let Some(v) = params.get("value").and_then(Value::as_str)
    {
        agent.sessions[i].model = v.to_owned();
    }
    agent.reply(id, json!({"configOptions": []}));
}

/// Answers `session/set_model` (and its unstable aliases) request `id`.
pub fn model(agent: &mut Agent, id: &Value, params: &Value) {
    let Some(i) = agent.session_index(params) else {
        agent.reply_error(id, rpc::invalid_params("unknown sessionId"));
        return;
    };
    if let Some(v) = params.get("modelId").and_then(Value::as_str) {
        agent.sessions[i].model = v.to_owned();
    }
    agent.reply(id, json!({}));
}
