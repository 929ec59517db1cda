//! ACP-7: cancel sends `session/cancel`, answers later permission requests `cancelled`, and waits
//! a bounded grace for the prompt's answer; a cancel during the handshake returns at once.

use std::time::Duration;

use acp_client::{GenericPolicy, TurnOutcome, run_turn};
use serde_json::json;
use tokio::io::AsyncReadExt;
use tokio::sync::watch;

use crate::support::{config, records, start};

#[tokio::test]
async fn cancel_sends_session_cancel_and_the_cancelled_answer_completes_the_turn() {
    let mut cfg = config("hi");
    cfg.cancel_grace = Duration::from_secs(20);
    let mut h = start(cfg);
    let prompt = h.agent.handshake_to_prompt().await;
    h.agent.say("working").await;
    h.cancel.send_replace(true);
    let cancel = h.agent.recv().await;
    assert_eq!(
        cancel,
        json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "sess-1"}})
    );
    // A permission request that races the cancel is answered cancelled, whatever is offered.
    let answer = h
        .agent
        .ask(
            json!(5),
            "session/request_permission",
            json!({"sessionId": "sess-1", "toolCall": {"toolCallId": "t", "kind": "execute"},
                   "options": [{"optionId": "r", "name": "No", "kind": "reject_once"}]}),
        )
        .await;
    assert_eq!(
        answer["result"],
        json!({"outcome": {"outcome": "cancelled"}})
    );
    h.agent
        .reply(&prompt, json!({"stopReason": "cancelled"}))
        .await;
    let (report, _, events) = h.report().await;
    assert!(
        matches!(&report.outcome, TurnOutcome::Completed { stop_reason, .. } if stop_reason == "cancelled"),
        "{:?}",
        report.outcome
    );
    assert_eq!(report.text, "working");
    assert_eq!(report.permission_decisions[0].outcome, "cancelled");
    let recs = records(&events);
    assert_eq!(recs[0], json!({"acp_client": "cancel", "sent": true}));
    assert_eq!(recs[1]["acp_client"], "permission");
    assert_eq!(recs[1]["outcome"], "cancelled");
}

#[tokio::test]
async fn an_unanswered_cancel_gives_up_after_the_grace() {
    let mut cfg = config("hi");
    cfg.cancel_grace = Duration::from_millis(200);
    let mut h = start(cfg);
    h.agent.handshake_to_prompt().await;
    h.cancel.send_replace(true);
    h.agent.expect("session/cancel").await;
    // The agent keeps talking but never answers the prompt.
    h.agent.say("still going").await;
    let (report, _, _) = h.report().await;
    assert_eq!(report.outcome, TurnOutcome::CancelledUnanswered);
}

#[tokio::test]
async fn a_prompt_error_after_cancel_is_reported_as_such() {
    let mut cfg = config("hi");
    cfg.cancel_grace = Duration::from_secs(20);
    let mut h = start(cfg);
    let prompt = h.agent.handshake_to_prompt().await;
    h.cancel.send_replace(true);
    h.agent.expect("session/cancel").await;
    h.agent
        .reply_error(
            &prompt,
            json!({"code": -32800, "message": "Request cancelled"}),
        )
        .await;
    let (report, _, _) = h.report().await;
    assert!(matches!(
        &report.outcome,
        TurnOutcome::PromptError { error } if error.code == -32800
    ));
}

#[tokio::test]
async fn a_cancel_during_the_handshake_returns_at_once() {
    let mut h = start(config("hi"));
    h.agent.expect("initialize").await;
    h.cancel.send_replace(true);
    let (report, mut agent, _) = h.report().await;
    assert_eq!(
        report.outcome,
        TurnOutcome::CancelledDuringHandshake { step: "initialize" }
    );
    assert_eq!(
        agent.try_recv().await,
        None,
        "no session/cancel without a session"
    );
}

#[tokio::test]
async fn a_cancel_requested_before_the_turn_sends_nothing() {
    let (client_end, mut agent_end) = tokio::io::duplex(1024);
    let (read, write) = tokio::io::split(client_end);
    let (_cancel, cancelled) = watch::channel(true);
    let report = run_turn(
        read,
        write,
        tokio::io::sink(),
        &config("hi"),
        &GenericPolicy,
        cancelled,
    )
    .await;
    assert_eq!(
        report.outcome,
        TurnOutcome::CancelledDuringHandshake { step: "initialize" }
    );
    let mut sent = Vec::new();
    agent_end.read_to_end(&mut sent).await.expect("read");
    assert!(sent.is_empty(), "{}", String::from_utf8_lossy(&sent));
}

#[tokio::test]
async fn a_dropped_cancel_sender_never_cancels() {
    let mut h = start(config("hi"));
    let prompt = h.agent.handshake_to_prompt().await;
    let crate::support::Harness {
        mut agent,
        cancel,
        turn,
        events,
    } = h;
    drop(cancel);
    agent.say("ok").await;
    agent
        .reply(&prompt, json!({"stopReason": "end_turn"}))
        .await;
    let report = turn.await.expect("no panic");
    let _ = events.await;
    assert!(matches!(report.outcome, TurnOutcome::Completed { .. }));
}
