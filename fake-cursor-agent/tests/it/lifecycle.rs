//! Process lifecycle and robustness (ACP-1, ACP-7, FAKE-ACP-2, FAKE-ACP-4): silence on malformed input, exit on EOF only
//! while idle, cancel, hangs, crashes.

use std::os::unix::process::ExitStatusExt as _;
use std::time::Duration;

use serde_json::json;

use crate::{Agent, SOON, answer_with_kind, initialize_params, last};

#[test]
fn malformed_client_input_gets_no_reply_at_all() {
    let mut agent = Agent::start(&[]);
    agent.send_raw(b"this is not json\n");
    agent.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"initia\n");
    agent.send_raw(b"[1,2,3]\n42\n{\"jsonrpc\":\"2.0\",\"id\":8}\n\xff\xfe\n\n");
    // The first thing the agent writes is the answer to the first well-formed request.
    let id = agent.request("initialize", initialize_params());
    let first = agent.next_msg();
    assert_eq!(first["id"], id, "a reply to malformed input: {first}");
    assert!(agent.line_within(Duration::from_millis(300)).is_none());
}

#[test]
fn idle_agent_exits_soon_after_eof() {
    let mut agent = Agent::start(&[]);
    agent.handshake();
    let closed = std::time::Instant::now();
    agent.close_stdin();
    let status = agent.exit_within(SOON).expect("idle agent exits after EOF");
    assert_eq!(status.code(), Some(0));
    // Not at once: the real one took about 564 ms.
    assert!(closed.elapsed() >= Duration::from_millis(400));
}

#[test]
fn agent_never_exits_on_eof_after_a_prompt_turn() {
    let mut agent = Agent::start(&[]);
    let sid = agent.handshake();
    let msgs = agent.turn(&sid, "hi", answer_with_kind("reject_once"));
    assert_eq!(last(&msgs)["result"]["stopReason"], "end_turn");
    agent.close_stdin();
    // The real one stayed 10 s in 10/10 runs; 3 s is six times the idle exit.
    assert!(agent.exit_within(Duration::from_secs(3)).is_none());
}

#[test]
fn cancel_midturn_answers_cancelled() {
    let mut agent = Agent::start(&[]);
    let sid = agent.handshake();
    let id = agent.prompt(&sid, "scenario: cancel-midturn");
    let first = agent.next_msg();
    assert_eq!(first["params"]["update"]["content"]["text"], "chunk 0 ");
    agent.notify("session/cancel", json!({"sessionId": sid}));
    let msgs = agent.until_answer(&id);
    assert_eq!(last(&msgs)["result"], json!({"stopReason": "cancelled"}));
    assert!(
        msgs.len() < 50,
        "the turn went on after the cancel: {} messages",
        msgs.len()
    );
}

#[test]
fn cancel_abandons_a_pending_permission_request() {
    let mut agent = Agent::start(&[]);
    let sid = agent.handshake();
    let id = agent.prompt(&sid, "scenario: permission-shell");
    loop {
        let msg = agent.next_msg();
        if msg["method"] == "session/request_permission" {
            break;
        }
    }
    agent.notify("session/cancel", json!({"sessionId": sid}));
    let msgs = agent.until_answer(&id);
    assert_eq!(last(&msgs)["result"]["stopReason"], "cancelled");
}

#[test]
fn hang_midturn_ignores_cancel() {
    let mut agent = Agent::start(&[]);
    let sid = agent.handshake();
    agent.prompt(&sid, "scenario: hang-midturn");
    agent.next_msg();
    agent.notify("session/cancel", json!({"sessionId": sid}));
    assert!(agent.line_within(Duration::from_secs(2)).is_none());
}

#[test]
fn crash_midturn_exits_1_without_answering() {
    let mut agent = Agent::start(&[]);
    let sid = agent.handshake();
    agent.prompt(&sid, "scenario: crash-midturn");
    let status = agent.exit_within(SOON).expect("exits");
    assert_eq!(status.code(), Some(1));
    assert!(agent.stderr_at_exit().contains("fatal: agent crashed"));
    let mut lines = Vec::new();
    while let Some(l) = agent.line_within(Duration::from_millis(200)) {
        lines.push(serde_json::from_slice::<serde_json::Value>(&l).expect("json"));
    }
    assert!(lines.iter().all(|m| m.get("result").is_none()), "{lines:?}");
}

#[test]
fn die_by_signal_dies_by_sigkill_and_exit_after_turn_exits_0() {
    let mut agent = Agent::start(&[]);
    let sid = agent.handshake();
    agent.prompt(&sid, "scenario: die-by-signal");
    assert_eq!(agent.exit_within(SOON).expect("dies").signal(), Some(9));

    let mut agent = Agent::start(&[]);
    let sid = agent.handshake();
    let msgs = agent.turn(
        &sid,
        "scenario: exit-after-turn",
        answer_with_kind("reject_once"),
    );
    assert_eq!(last(&msgs)["result"]["stopReason"], "end_turn");
    assert_eq!(agent.exit_within(SOON).expect("exits").code(), Some(0));
}

#[test]
fn a_second_prompt_during_a_turn_is_refused_and_set_mode_is_still_served() {
    let mut agent = Agent::start(&[]);
    let sid = agent.handshake();
    let first = agent.prompt(&sid, "scenario: cancel-midturn");
    agent.next_msg();
    let second = agent.prompt(&sid, "hi");
    let refused = agent.until_answer(&second);
    assert!(last(&refused).get("error").is_some());
    let mode = agent.request(
        "session/set_mode",
        json!({"sessionId": sid, "modeId": "ask"}),
    );
    assert_eq!(last(&agent.until_answer(&mode))["result"], json!({}));
    agent.notify("session/cancel", json!({"sessionId": sid}));
    let msgs = agent.until_answer(&first);
    assert_eq!(last(&msgs)["result"]["stopReason"], "cancelled");
    assert!(
        msgs.iter()
            .all(|m| m["method"] == "session/update" || m["id"] == first)
    );
}
