//! `initialize`: the profile's result (protocol version 1, capabilities, the `cursor_login` auth
//! method) with `loadSession` as the process scenario says, after its delay; or never (hang).
//! Works without credentials, as the real agent's does. A scenario may answer any result instead
//! (`handshake.initialize.result`). The client's `clientCapabilities` are kept for the scenarios'
//! `capability` branches. With env [`ONLY_FIRST`] naming a directory, only the first process
//! to answer there does: every later one never answers `initialize` (an agent holding a lock
//! file or a port).

use std::time::Duration;

use serde_json::Value;

use super::Agent;
use crate::process;

/// Env variable naming a directory: the first process to create `first` in it answers
/// `initialize`; every other one never does.
pub const ONLY_FIRST: &str = "FAKE_CURSOR_INITIALIZE_ONLY_FIRST";

/// Whether this process must not answer `initialize` ([`ONLY_FIRST`]).
fn not_first() -> bool {
    std::env::var_os(ONLY_FIRST).is_some_and(|dir| {
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(std::path::Path::new(&dir).join("first"))
            .is_err()
    })
}

/// Answers `initialize` request `id` with `params`.
pub fn handle(agent: &mut Agent, id: &Value, params: &Value) {
    agent.client_caps = params
        .get("clientCapabilities")
        .cloned()
        .unwrap_or(Value::Null);
    let phase = agent.base.handshake.initialize.clone();
    if phase.hang || not_first() {
        process::hang();
    }
    std::thread::sleep(Duration::from_millis(phase.delay_ms));
    if let Some(result) = phase.result {
        agent.reply(id, result);
        return;
    }
    let mut result = agent.profile.initialize();
    if let Some(caps) = result
        .get_mut("agentCapabilities")
        .and_then(Value::as_object_mut)
    {
        caps.insert(
            "loadSession".into(),
            Value::Bool(agent.base.handshake.load_session),
        );
    }
    agent.reply(id, result);
}
