//! Everything the client sends validates against the ACP v1 stable schema
//! (`reference/schema-v1-stable.json`, from `@agentclientprotocol/sdk` 2.4.0, a copy of
//! `shared/reference/acp/schema-v1-stable.json`).

use acp_client::PermissionMode;
use serde_json::{Value, json};

use crate::support::{Agent, config, start};

const SCHEMA: &str = include_str!("reference/schema-v1-stable.json");

/// Validates `instance` against `$defs/<def>` of the schema.
fn assert_valid(def: &str, instance: &Value) {
    let root: Value = serde_json::from_str(SCHEMA).expect("schema is JSON");
    let schema = json!({
        "$schema": root["$schema"],
        "$defs": root["$defs"],
        "$ref": format!("#/$defs/{def}"),
    });
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{def} {instance}: {errors:?}");
}

async fn permission_answer(agent: &mut Agent, options: Value) -> Value {
    let answer = agent
        .ask(
            json!(0),
            "session/request_permission",
            json!({"sessionId": "sess-1", "toolCall": {"toolCallId": "t", "kind": "execute"},
                   "options": options}),
        )
        .await;
    answer["result"].clone()
}

#[tokio::test]
async fn every_message_the_client_sends_validates_against_the_acp_schema() {
    let mut cfg = config("Hello");
    cfg.permission_mode = PermissionMode::Plan;
    cfg.cancel_grace = crate::support::PATIENCE;
    let mut h = start(cfg);
    let init = h.agent.initialize(json!({})).await;
    assert_valid("InitializeRequest", &init["params"]);
    let new = h.agent.expect("session/new").await;
    assert_valid("NewSessionRequest", &new["params"]);
    h.agent
        .reply(
            &new,
            json!({"sessionId": "sess-1", "modes": crate::support::plan_modes()}),
        )
        .await;
    let set_mode = h.agent.expect("session/set_mode").await;
    assert_valid("SetSessionModeRequest", &set_mode["params"]);
    h.agent.reply(&set_mode, json!({})).await;
    let prompt = h.agent.expect("session/prompt").await;
    assert_valid("PromptRequest", &prompt["params"]);
    let selected = permission_answer(
        &mut h.agent,
        json!([{"optionId": "r", "name": "No", "kind": "reject_once"}]),
    )
    .await;
    assert_eq!(selected["outcome"]["outcome"], "selected");
    assert_valid("RequestPermissionResponse", &selected);
    let cancelled = permission_answer(&mut h.agent, json!([])).await;
    assert_eq!(cancelled["outcome"]["outcome"], "cancelled");
    assert_valid("RequestPermissionResponse", &cancelled);
    h.cancel.send_replace(true);
    let cancel = h.agent.expect("session/cancel").await;
    assert!(
        cancel.get("id").is_none(),
        "session/cancel is a notification"
    );
    assert_valid("CancelNotification", &cancel["params"]);
    h.agent
        .reply(&prompt, json!({"stopReason": "cancelled"}))
        .await;
    let _ = h.report().await;

    let mut cfg = config("Hello");
    cfg.resume_session_id = Some("old".into());
    let mut h = start(cfg);
    h.agent.initialize(json!({"loadSession": true})).await;
    let load = h.agent.expect("session/load").await;
    assert_valid("LoadSessionRequest", &load["params"]);
}

#[test]
fn the_schema_check_rejects_a_wrong_shape() {
    // Guards the check itself: the guide's `content` instead of `prompt` is invalid.
    let root: Value = serde_json::from_str(SCHEMA).expect("schema is JSON");
    let schema = json!({"$schema": root["$schema"], "$defs": root["$defs"], "$ref": "#/$defs/PromptRequest"});
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    assert!(
        !validator.is_valid(&json!({"sessionId": "s", "content": [{"type": "text", "text": "x"}]}))
    );
    assert!(
        validator.is_valid(&json!({"sessionId": "s", "prompt": [{"type": "text", "text": "x"}]}))
    );
}
