//! ACP-2 and ACP-8: the handshake's exact messages, `authenticate` never sent, each step bounded,
//! auth required, resume through `session/load` only when advertised.

use std::time::Duration;

use acp_client::{ClientInfo, PermissionMode, TurnConfig, TurnOutcome};
use serde_json::json;

use crate::support::{config, cwd, plan_modes, start};

/// Short enough for a test, long enough never to fire on a healthy agent here.
const SHORT_STEP: Duration = Duration::from_millis(300);

#[tokio::test]
async fn the_handshake_sends_exactly_initialize_then_session_new_and_never_authenticate() {
    let mut cfg = config("Hello");
    cfg.client_info = ClientInfo {
        name: "cmk".into(),
        version: "9.9.9".into(),
    };
    let mut h = start(cfg);
    // The agent advertises auth methods: the client still never sends authenticate.
    let init = h.agent.initialize(json!({"loadSession": true})).await;
    assert_eq!(
        init["params"],
        json!({"protocolVersion": 1,
               "clientCapabilities": {"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false},
               "clientInfo": {"name": "cmk", "version": "9.9.9"}})
    );
    let new = h.agent.expect("session/new").await;
    assert_eq!(
        new["params"],
        json!({"cwd": cwd().to_str(), "mcpServers": []})
    );
    h.agent
        .reply(
            &new,
            json!({"sessionId": "sess-1", "modes": {"currentModeId": "agent"}}),
        )
        .await;
    let prompt = h.agent.expect("session/prompt").await;
    assert_eq!(
        prompt["params"],
        json!({"sessionId": "sess-1", "prompt": [{"type": "text", "text": "Hello"}]})
    );
    h.agent
        .reply(&prompt, json!({"stopReason": "end_turn"}))
        .await;
    let (report, mut agent, _) = h.report().await;
    assert_eq!(
        report.agent_capabilities,
        Some(json!({"loadSession": true}))
    );
    assert_eq!(
        agent.try_recv().await,
        None,
        "nothing after the prompt's answer"
    );
}

#[tokio::test]
async fn each_handshake_step_is_bounded() {
    for stuck in ["initialize", "session/new", "session/set_mode"] {
        let mut cfg = config("hi");
        cfg.step_timeout = SHORT_STEP;
        cfg.permission_mode = PermissionMode::Plan;
        let mut h = start(cfg);
        let init = h.agent.expect("initialize").await;
        if stuck != "initialize" {
            h.agent
                .reply(
                    &init,
                    json!({"protocolVersion": 1, "agentCapabilities": {}}),
                )
                .await;
            let new = h.agent.expect("session/new").await;
            if stuck != "session/new" {
                h.agent
                    .reply(&new, json!({"sessionId": "s", "modes": plan_modes()}))
                    .await;
                h.agent.expect("session/set_mode").await;
            }
        }
        // The agent hangs (stays open, answers nothing).
        let (report, mut agent, _) = h.report().await;
        match report.outcome {
            TurnOutcome::HandshakeTimeout { step, after } => {
                assert_eq!(step, stuck);
                assert_eq!(after, SHORT_STEP);
            }
            other => panic!("{stuck}: {other:?}"),
        }
        assert_eq!(agent.try_recv().await, None, "nothing more after a timeout");
    }
}

#[tokio::test]
async fn session_load_is_also_bounded() {
    let mut cfg = config("hi");
    cfg.step_timeout = SHORT_STEP;
    cfg.resume_session_id = Some("old".into());
    let mut h = start(cfg);
    h.agent.initialize(json!({"loadSession": true})).await;
    h.agent.expect("session/load").await;
    let (report, _, _) = h.report().await;
    assert!(matches!(
        report.outcome,
        TurnOutcome::HandshakeTimeout {
            step: "session/load",
            ..
        }
    ));
}

#[tokio::test]
async fn auth_required_at_session_new_ends_the_turn_without_authenticating_or_retrying() {
    for error in [
        json!({"code": -32000, "message": "Authentication required"}),
        json!({"code": -32603, "message": "Auth required: run login", "data": 5}),
    ] {
        let mut h = start(config("hi"));
        h.agent.initialize(json!({})).await;
        let new = h.agent.expect("session/new").await;
        h.agent.reply_error(&new, error.clone()).await;
        let (report, mut agent, _) = h.report().await;
        let TurnOutcome::AuthRequired { step, error: got } = &report.outcome else {
            panic!("{:?}", report.outcome)
        };
        assert_eq!(*step, "session/new");
        assert_eq!(got.code, error["code"].as_i64().unwrap_or_default());
        assert_eq!(agent.try_recv().await, None, "no authenticate, no retry");
    }
}

#[tokio::test]
async fn other_session_new_errors_are_handshake_errors() {
    let mut h = start(config("hi"));
    h.agent.initialize(json!({})).await;
    let new = h.agent.expect("session/new").await;
    h.agent
        .reply_error(
            &new,
            json!({"code": -32602, "message": "Invalid params", "data": {"phase": "x"}}),
        )
        .await;
    let (report, _, _) = h.report().await;
    assert!(matches!(
        &report.outcome,
        TurnOutcome::HandshakeError { step: "session/new", error } if error.code == -32602
    ));
}

#[tokio::test]
async fn resume_without_load_session_sends_nothing_after_initialize() {
    for capabilities in [json!({"loadSession": false}), json!({}), json!(null)] {
        let mut cfg = config("hi");
        cfg.resume_session_id = Some("old-session".into());
        let mut h = start(cfg);
        h.agent.initialize(capabilities).await;
        let (report, mut agent, _) = h.report().await;
        assert_eq!(report.outcome, TurnOutcome::ResumeUnsupported);
        assert_eq!(agent.try_recv().await, None);
    }
}

#[tokio::test]
async fn resume_with_load_session_loads_and_replayed_history_is_not_this_turns_text() {
    let mut cfg = config("again");
    cfg.resume_session_id = Some("old-session".into());
    let mut h = start(cfg);
    h.agent.initialize(json!({"loadSession": true})).await;
    let load = h.agent.expect("session/load").await;
    assert_eq!(
        load["params"],
        json!({"sessionId": "old-session", "cwd": cwd().to_str(), "mcpServers": []})
    );
    // session/load replays the conversation as updates before answering.
    let chunk = |text: &str| json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}});
    h.agent
        .update_of("old-session", json!({"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": "first"}}))
        .await;
    h.agent.update_of("old-session", chunk("old answer")).await;
    h.agent.reply(&load, json!(null)).await;
    let prompt = h.agent.expect("session/prompt").await;
    assert_eq!(prompt["params"]["sessionId"], "old-session");
    // ACP-10: the resumed session's id is the run's; the text is its own.
    h.agent.update_of("old-session", chunk("new answer")).await;
    h.agent
        .reply(&prompt, json!({"stopReason": "end_turn"}))
        .await;
    let (report, _, _) = h.report().await;
    assert_eq!(report.session_id.as_deref(), Some("old-session"));
    assert_eq!(report.text, "new answer");
    assert_eq!(report.updates, 3);
}

#[tokio::test]
async fn an_initialize_answer_that_is_not_an_initialize_response_ends_the_turn() {
    // ACP-12: a strict client: nothing more is sent after an answer it cannot read.
    for result in [
        json!("garbage"),
        json!({}),
        json!(null),
        json!([1]),
        json!({"agentCapabilities": {}}),
        json!({"protocolVersion": "1"}),
        json!({"protocolVersion": 1.5}),
        json!({"protocolVersion": 1, "agentCapabilities": "all"}),
        json!({"protocolVersion": 1, "authMethods": {}}),
    ] {
        let mut h = start(config("hi"));
        let init = h.agent.expect("initialize").await;
        h.agent.reply(&init, result.clone()).await;
        let (report, mut agent, _) = h.report().await;
        assert!(
            matches!(
                report.outcome,
                TurnOutcome::InvalidResponse {
                    step: "initialize",
                    ..
                }
            ),
            "{result}: {:?}",
            report.outcome
        );
        assert_eq!(agent.try_recv().await, None, "{result}");
    }
}

#[tokio::test]
async fn initialize_errors_and_odd_results_end_the_turn() {
    let mut h = start(config("hi"));
    let init = h.agent.expect("initialize").await;
    h.agent
        .reply_error(&init, json!({"code": -32602, "message": "bad version"}))
        .await;
    let (report, _, _) = h.report().await;
    assert!(matches!(
        report.outcome,
        TurnOutcome::HandshakeError {
            step: "initialize",
            ..
        }
    ));

    let mut h = start(config("hi"));
    let init = h.agent.expect("initialize").await;
    h.agent.reply(&init, json!({"protocolVersion": 2})).await;
    let (report, _, _) = h.report().await;
    assert!(matches!(
        report.outcome,
        TurnOutcome::InvalidResponse {
            step: "initialize",
            ..
        }
    ));

    let mut h = start(config("hi"));
    h.agent.initialize(json!({})).await;
    let new = h.agent.expect("session/new").await;
    h.agent.reply(&new, json!({"sessionId": 42})).await;
    let (report, _, _) = h.report().await;
    assert!(matches!(
        report.outcome,
        TurnOutcome::InvalidResponse {
            step: "session/new",
            ..
        }
    ));
}

#[tokio::test]
async fn a_relative_cwd_is_refused_before_anything_is_sent() {
    let cfg = TurnConfig::new("relative/dir", "hi");
    let h = start(cfg);
    let (report, mut agent, _) = h.report().await;
    assert!(matches!(report.outcome, TurnOutcome::InvalidConfig { .. }));
    assert_eq!(agent.try_recv().await, None);
}

#[tokio::test]
async fn the_agent_closing_during_the_handshake_is_reported_with_its_step() {
    let mut h = start(config("hi"));
    h.agent.initialize(json!({})).await;
    h.agent.expect("session/new").await;
    let crate::support::Harness {
        agent,
        turn,
        events,
        ..
    } = h;
    drop(agent);
    let report = tokio::time::timeout(crate::support::PATIENCE, turn)
        .await
        .expect("in time")
        .expect("no panic");
    let _ = events.await;
    assert!(
        matches!(
            report.outcome,
            TurnOutcome::AgentClosed {
                step: "session/new",
                ..
            }
        ),
        "{:?}",
        report.outcome
    );
}
