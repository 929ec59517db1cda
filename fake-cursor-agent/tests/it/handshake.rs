//! The handshake (ACP-2, FAKE-ACP-2): initialize, session/new, authenticate, the auth rule, slow and hung
//! steps, session/load, set_mode / set_config_option / set_model, unknown methods.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::{Agent, initialize_params};

#[test]
fn initialize_advertises_cursor_login_and_no_load_session_by_default() {
    let mut agent = Agent::start(&[]);
    let id = agent.request("initialize", initialize_params());
    let r = agent.until_answer(&id).pop().expect("answer");
    assert_eq!(r["result"]["protocolVersion"], 1);
    assert_eq!(r["result"]["authMethods"][0]["id"], "cursor_login");
    assert_eq!(r["result"]["agentCapabilities"]["loadSession"], false);
}

#[test]
fn session_new_returns_a_session_with_cursor_modes_and_legacy_models() {
    let mut agent = Agent::start(&[]);
    agent.handshake();
    let id = agent.request("session/new", json!({"cwd": "/w", "mcpServers": []}));
    let r = agent.until_answer(&id).pop().expect("answer");
    let result = &r["result"];
    assert_eq!(result["sessionId"].as_str().map(str::len), Some(36));
    assert_eq!(result["modes"]["currentModeId"], "agent");
    let modes: Vec<_> = result["modes"]["availableModes"]
        .as_array()
        .expect("modes")
        .iter()
        .map(|m| m["id"].as_str().expect("id").to_owned())
        .collect();
    assert_eq!(modes, ["agent", "plan", "ask"]);
    assert_eq!(result["models"]["currentModelId"], "auto");
}

#[test]
fn authenticate_fails_with_invalid_params_and_a_login_url() {
    let mut agent = Agent::start(&[]);
    let id = agent.request("initialize", initialize_params());
    agent.until_answer(&id);
    let id = agent.request("authenticate", json!({"methodId": "cursor_login"}));
    let r = agent.until_answer(&id).pop().expect("answer");
    assert_eq!(r["error"]["code"], -32602);
    assert_eq!(r["error"]["message"], "Failed to open browser for login");
    assert!(
        r["error"]["data"]["loginUrl"]
            .as_str()
            .expect("url")
            .starts_with("https://")
    );
}

#[test]
fn auth_required_fails_session_new_without_a_key_and_works_with_one() {
    let mut agent = Agent::start(&[("FAKE_CURSOR_SCENARIO", "auth-required")]);
    let id = agent.request("initialize", initialize_params());
    assert!(
        agent
            .until_answer(&id)
            .pop()
            .expect("answer")
            .get("result")
            .is_some()
    );
    let id = agent.request("session/new", json!({"cwd": "/w", "mcpServers": []}));
    let r = agent.until_answer(&id).pop().expect("answer");
    assert_eq!(
        r["error"],
        json!({"code": -32000, "message": "Authentication required"})
    );

    let mut agent = Agent::start(&[
        ("FAKE_CURSOR_SCENARIO", "auth-required"),
        ("CURSOR_API_KEY", "k"),
    ]);
    let sid = agent.handshake();
    let msgs = agent.turn(&sid, "hi", crate::answer_with_kind("reject_once"));
    assert_eq!(crate::last(&msgs)["result"]["stopReason"], "end_turn");
}

#[test]
fn slow_handshake_delays_initialize_and_session_new() {
    let mut agent = Agent::start(&[("FAKE_CURSOR_SCENARIO", "slow-handshake")]);
    let t = Instant::now();
    let id = agent.request("initialize", initialize_params());
    agent.until_answer(&id);
    assert!(t.elapsed() >= Duration::from_millis(450));
    let t = Instant::now();
    let id = agent.request("session/new", json!({"cwd": "/w", "mcpServers": []}));
    agent.until_answer(&id);
    assert!(t.elapsed() >= Duration::from_millis(2900));
}

#[test]
fn hang_initialize_never_answers() {
    let mut agent = Agent::start(&[("FAKE_CURSOR_SCENARIO", "hang-initialize")]);
    agent.request("initialize", initialize_params());
    assert!(agent.line_within(Duration::from_secs(2)).is_none());
    // Stuck for good: EOF does not end it either.
    agent.close_stdin();
    assert!(agent.exit_within(Duration::from_secs(2)).is_none());
}

#[test]
fn hang_session_new_answers_initialize_only() {
    let mut agent = Agent::start(&[("FAKE_CURSOR_SCENARIO", "hang-session-new")]);
    let id = agent.request("initialize", initialize_params());
    agent.until_answer(&id);
    agent.request("session/new", json!({"cwd": "/w", "mcpServers": []}));
    assert!(agent.line_within(Duration::from_secs(2)).is_none());
}

#[test]
fn session_load_works_only_when_load_session_is_advertised() {
    let mut agent = Agent::start(&[]);
    agent.handshake();
    let params = json!({"sessionId": "s-old", "cwd": "/w", "mcpServers": []});
    let id = agent.request("session/load", params.clone());
    let r = agent.until_answer(&id).pop().expect("answer");
    assert_eq!(r["error"]["code"], -32601);

    let mut agent = Agent::start(&[("FAKE_CURSOR_SCENARIO", "load-session")]);
    let id = agent.request("initialize", initialize_params());
    let r = agent.until_answer(&id).pop().expect("answer");
    assert_eq!(r["result"]["agentCapabilities"]["loadSession"], true);
    let id = agent.request("session/load", params);
    let r = agent.until_answer(&id).pop().expect("answer");
    assert_eq!(r["result"]["modes"]["currentModeId"], "agent");
    let msgs = agent.turn("s-old", "hi", crate::answer_with_kind("reject_once"));
    assert_eq!(crate::last(&msgs)["result"]["stopReason"], "end_turn");
}

#[test]
fn set_mode_emits_current_mode_update_and_answers_empty() {
    let mut agent = Agent::start(&[]);
    let sid = agent.handshake();
    let id = agent.request(
        "session/set_mode",
        json!({"sessionId": sid, "modeId": "plan"}),
    );
    let msgs = agent.until_answer(&id);
    assert_eq!(msgs.len(), 2);
    assert_eq!(
        msgs[0]["params"],
        json!({"sessionId": sid, "update": {"sessionUpdate": "current_mode_update", "currentModeId": "plan"}})
    );
    assert_eq!(msgs[1]["result"], json!({}));
}

#[test]
fn scenarios_change_the_advertised_modes_and_how_set_mode_answers() {
    // (scenario, advertised mode ids (None: no `modes`), the set_mode answer for plan)
    for (scenario, modes, set_mode) in [
        ("no-modes", None, json!({"result": {}})),
        (
            "modes-without-plan",
            Some(json!(["agent", "ask"])),
            json!({"result": {}}),
        ),
        (
            "set-mode-refused",
            Some(json!(["agent", "plan", "ask"])),
            json!({"error": {"code": -32603, "message": "cannot switch to mode \"plan\""}}),
        ),
    ] {
        let mut agent = Agent::start(&[("FAKE_CURSOR_SCENARIO", scenario)]);
        let id = agent.request("initialize", json!({"protocolVersion": 1}));
        agent.until_answer(&id);
        let id = agent.request(
            "session/new",
            json!({"cwd": "/workspace", "mcpServers": []}),
        );
        let answer = agent.until_answer(&id).pop().expect("answer");
        let sid = answer["result"]["sessionId"]
            .as_str()
            .expect("sid")
            .to_owned();
        let ids = answer["result"].get("modes").map(|m| {
            m["availableModes"]
                .as_array()
                .expect("availableModes")
                .iter()
                .map(|m| m["id"].clone())
                .collect::<Vec<_>>()
        });
        assert_eq!(ids.map(Value::from), modes, "{scenario}");
        let id = agent.request(
            "session/set_mode",
            json!({"sessionId": sid, "modeId": "plan"}),
        );
        let msgs = agent.until_answer(&id);
        assert_eq!(msgs.len(), 1, "no current_mode_update: {msgs:?}");
        let mut got = msgs[0].clone();
        if let Some(o) = got.as_object_mut() {
            o.remove("jsonrpc");
            o.remove("id");
        }
        assert_eq!(got, set_mode, "{scenario}");
    }
}

#[test]
fn model_selection_is_accepted_both_ways_and_unknown_methods_are_not_found() {
    let mut agent = Agent::start(&[]);
    let sid = agent.handshake();
    let id = agent.request(
        "session/set_config_option",
        json!({"sessionId": sid, "configId": "model", "value": "gpt-x"}),
    );
    assert!(
        agent
            .until_answer(&id)
            .pop()
            .expect("a")
            .get("result")
            .is_some()
    );
    let id = agent.request(
        "session/set_model",
        json!({"sessionId": sid, "modelId": "gpt-y"}),
    );
    assert_eq!(
        agent.until_answer(&id).pop().expect("a")["result"],
        json!({})
    );
    let id = agent.request("_probe/unknown_ext", json!({}));
    let r = agent.until_answer(&id).pop().expect("a");
    assert_eq!(r["error"]["code"], -32601);
    assert_eq!(r["error"]["data"]["method"], "_probe/unknown_ext");
}
