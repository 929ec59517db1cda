//! `session/prompt`: picks the turn's scenario (the prompt's first line `scenario: NAME`, else the
//! process scenario) and plays it (`turn.rs`). An unknown scenario name is the fake's own failure:
//! a note on stderr and exit 2.

use serde_json::Value;

use super::Agent;
use super::turn::Turn;
use crate::{process, rpc, scenario};

/// Exit status for the fake's own failures (never one the real agent uses).
const FAKE_ERROR: i32 = 2;

/// Runs the prompt turn requested by `msg`.
pub fn handle(agent: &mut Agent, msg: &Value) {
    let id = msg.get("id").cloned().unwrap_or(Value::Null);
    let params = msg.get("params").cloned().unwrap_or(Value::Null);
    let Some(session) = agent.session_index(&params) else {
        agent.reply_error(&id, rpc::invalid_params("unknown sessionId"));
        return;
    };
    let text = prompt_text(&params);
    let scenario = match scenario::from_prompt(&text) {
        Some(name) => match scenario::load(name, "the prompt's first line") {
            Ok(s) => s,
            Err(e) => {
                crate::out::stderr(&format!("fake-cursor-agent: {e}"), true);
                process::exit(FAKE_ERROR);
            }
        },
        None => agent.base.clone(),
    };
    Turn::new(agent, id, session, &text, &scenario).play(&scenario.steps);
}

/// The text blocks of `params.prompt`, joined by newlines.
fn prompt_text(params: &Value) -> String {
    params
        .get("prompt")
        .and_then(Value::as_array)
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}
