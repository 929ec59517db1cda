//! ACP-7 and C-ACP-3 over stdio: `cursor.run.cancel` mid-turn sends `session/cancel`, waits a
//! bounded grace for the `cancelled` answer and ends the agent's process group; an agent that
//! ignores the cancel is ended anyway; a cancel during the handshake ends it too. After every
//! turn the group is killed, since Cursor never exits on stdin EOF after a turn.

use std::time::{Duration, Instant};

use serde_json::json;
use testkit::procs::{group_members, wait_group_gone};

use super::{Cursor, args, assert_group_gone, code};

/// Starts `scenario`'s turn and waits until the agent has written at least `n` events.
fn started(h: &mut Cursor, scenario: &str, n: u64) -> String {
    let run_id = h.start(args(scenario, json!({})));
    h.until(&run_id, "the turn's first events", |r| {
        r["events_total"].as_u64() >= Some(n)
    });
    run_id
}

#[test]
fn cancel_mid_turn_sends_session_cancel_and_ends_the_group() {
    // ACP-7, C-ACP-1, C-ACP-3, RUN-6, SUP-3.
    let mut h = Cursor::new("default");
    // initialize and session/new answers, then a few chunks.
    let run_id = started(&mut h, "cancel-midturn", 5);
    let pgid = h.agent_pgid();
    assert!(
        !group_members(pgid).is_empty(),
        "the agent is running mid-turn"
    );
    let t0 = Instant::now();
    let (c, is_error) = h.tool("cursor.run.cancel", json!({"run_id": run_id}));
    assert!(!is_error, "{c}");
    let r = h.settled(&run_id);
    assert!(
        t0.elapsed() < Duration::from_secs(15),
        "a cancel settles within its bounded grace: {:?}",
        t0.elapsed()
    );
    assert_eq!(r["state"], "cancelled", "{r}");
    assert_eq!(code(&r), "cancelled", "{r}");
    assert_eq!(r["cleanup_confirmed"], true, "{r}");
    assert_group_gone(pgid);
    let cancels = h.log.sent_method("session/cancel");
    assert_eq!(cancels.len(), 1, "session/cancel sent once");
    assert!(cancels[0].get("id").is_none(), "a notification");
    assert_eq!(
        cancels[0]["params"]["sessionId"],
        h.log.sent_method("session/prompt")[0]["params"]["sessionId"]
    );
    let records = h.client_records(&run_id);
    assert!(
        records.contains(&json!({"acp_client": "cancel", "sent": true})),
        "{records:?}"
    );
    // The agent answered the prompt `cancelled` (every agent line is an event).
    let (events, _) = h.events(&run_id);
    assert!(
        events
            .iter()
            .any(|e| e["result"]["stopReason"] == "cancelled"),
        "the agent's cancelled answer is kept"
    );
    // Fewer than the 200 chunks an uncancelled turn writes.
    assert!(r["events_total"].as_u64() < Some(150), "{r}");
}

#[test]
fn an_agent_that_ignores_the_cancel_is_ended_after_the_grace() {
    // ACP-7, C-ACP-3: no cancelled answer within 2 s → the group is ended.
    let mut h = Cursor::new("default");
    let run_id = started(&mut h, "hang-midturn", 3);
    let pgid = h.agent_pgid();
    let t0 = Instant::now();
    h.tool("cursor.run.cancel", json!({"run_id": run_id}));
    let r = h.settled(&run_id);
    assert!(t0.elapsed() < Duration::from_secs(20), "{:?}", t0.elapsed());
    assert_eq!(r["state"], "cancelled", "{r}");
    assert_eq!(r["cleanup_confirmed"], true, "{r}");
    assert_group_gone(pgid);
    assert_eq!(h.log.sent_method("session/cancel").len(), 1);
}

#[test]
fn cancel_during_a_hung_handshake_ends_the_group_without_a_prompt() {
    // ACP-7: nothing to cancel on the wire yet; the group still ends.
    let mut h = Cursor::new("hang-session-new");
    let run_id = h.start(json!({"prompt": "hello"}));
    let deadline = Instant::now() + Duration::from_secs(20);
    while h.log.sent_method("session/new").is_empty() {
        assert!(Instant::now() < deadline, "session/new never sent");
        std::thread::sleep(Duration::from_millis(20));
    }
    let pgid = h.agent_pgid();
    h.tool("cursor.run.cancel", json!({"run_id": run_id}));
    let r = h.settled(&run_id);
    assert_eq!(r["state"], "cancelled", "{r}");
    assert_eq!(r["cleanup_confirmed"], true, "{r}");
    assert_group_gone(pgid);
    assert!(h.log.sent_method("session/prompt").is_empty());
}

#[test]
fn after_every_turn_the_agents_group_is_killed_since_it_never_exits_on_eof() {
    // ACP-7: the fake, like Cursor, never exits on stdin EOF after a turn; after every turn,
    // successful or not, the adapter kills its group (the signal shows it).
    let mut h = Cursor::new("default");
    for scenario in ["default", "refusal", "prompt-error"] {
        let (r, _) = h.run(args(scenario, json!({})));
        assert_eq!(r["completed"], true, "{r}");
        assert!(r["signal"].is_u64(), "{scenario}: killed, not exited: {r}");
        assert_eq!(r["exit_code"], serde_json::Value::Null, "{r}");
        assert_eq!(r["cleanup_confirmed"], true, "{r}");
    }
    let starts = h.log.agent_starts();
    assert_eq!(starts.len(), 3);
    // ACP-9, NAT-2: the version is checked before each run, not once per adapter: the log's
    // process starts alternate, a `--version` check before every agent.
    let order: Vec<&str> = h
        .log
        .records()
        .iter()
        .filter(|r| r["event"] == "start")
        .map(|r| {
            if r["argv"] == json!(["--version"]) {
                "version"
            } else {
                "agent"
            }
        })
        .collect();
    assert_eq!(order, ["version", "agent"].repeat(3), "ACP-9: {order:?}");
    assert_eq!(h.log.version_checks().len(), 3);
    for s in &starts {
        let pgid = u32::try_from(s["pgid"].as_u64().expect("pgid")).expect("u32");
        assert_group_gone(pgid);
    }
}

#[test]
fn stdin_eof_mid_turn_ends_the_agent_and_the_adapter_exits() {
    // T8, ACP-7: EOF cancels active runs; the adapter exits after their cleanup.
    let mut h = Cursor::new("default");
    started(&mut h, "hang-midturn", 3);
    let pgid = h.agent_pgid();
    h.s.close_stdin();
    let status = h.s.wait_exit(Duration::from_secs(30));
    assert!(status.is_some(), "the adapter exits after EOF");
    assert_group_gone(pgid);
}

#[test]
fn sigkill_of_the_adapter_mid_turn_still_ends_the_agents_group() {
    // SUP-4: the supervisor's lifeline ends the agent's group when the adapter dies.
    let mut h = Cursor::new("default");
    started(&mut h, "cancel-midturn", 3);
    let pgid = h.agent_pgid();
    h.s.signal(nix::sys::signal::Signal::SIGKILL);
    // A group that a dying adapter's lifeline, not a confirmed cleanup, ends: wait (bounded).
    let left = wait_group_gone(pgid, Duration::from_secs(20));
    assert!(left.is_empty(), "the agent outlived the adapter: {left:?}");
}

#[test]
fn a_permission_request_after_the_cancel_is_answered_cancelled() {
    // ACP-7: once session/cancel went out, permission requests get {outcome: cancelled}, even in
    // acceptEdits for an edit (which would otherwise be allowed once).
    let log = crate::support::FakeCursorLog::new();
    let wire = log.dir().join("wire.jsonl");
    let wire_s = wire.to_str().expect("utf-8");
    let body = format!(
        r#"W='{wire_s}'
read -r l; echo "$l" >> "$W"
echo '{{"jsonrpc":"2.0","id":1,"result":{{"protocolVersion":1,"agentCapabilities":{{}}}}}}'
read -r l; echo "$l" >> "$W"
echo '{{"jsonrpc":"2.0","id":2,"result":{{"sessionId":"s1"}}}}'
read -r l; echo "$l" >> "$W"
echo '{{"jsonrpc":"2.0","method":"session/update","params":{{"sessionId":"s1","update":{{"sessionUpdate":"agent_message_chunk","content":{{"type":"text","text":"hi"}}}}}}}}'
read -r l; echo "$l" >> "$W"
echo '{{"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{{"sessionId":"s1","toolCall":{{"toolCallId":"e","kind":"edit"}},"options":[{{"optionId":"allow-once","kind":"allow_once"}},{{"optionId":"reject-once","kind":"reject_once"}}]}}}}'
read -r l; echo "$l" >> "$W"
echo '{{"jsonrpc":"2.0","id":3,"result":{{"stopReason":"cancelled"}}}}'
sleep 60"#
    );
    let script = super::script_agent(&log, "agent.sh", &body);
    let mut h = Cursor::with("default", |a| a.arg("--cursor").arg(&script));
    let run_id = h.start(json!({"prompt": "hello", "permission_mode": "acceptEdits"}));
    h.until(&run_id, "the chunk", |r| {
        r["events_total"].as_u64() >= Some(3)
    });
    h.tool("cursor.run.cancel", json!({"run_id": run_id}));
    let r = h.settled(&run_id);
    assert_eq!(r["state"], "cancelled", "{r}");
    assert_eq!(r["cleanup_confirmed"], true, "{r}");
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&wire)
        .expect("wire")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    assert_eq!(lines.len(), 5, "{lines:?}");
    assert_eq!(lines[3]["method"], "session/cancel");
    assert_eq!(
        lines[4],
        json!({"jsonrpc": "2.0", "id": 7, "result": {"outcome": {"outcome": "cancelled"}}})
    );
    let records = h.client_records(&run_id);
    let decision = records
        .iter()
        .find(|x| x["acp_client"] == "permission")
        .expect("the decision is recorded");
    assert_eq!(decision["outcome"], "cancelled", "{decision}");
    drop(log);
}

#[test]
fn notifications_cancelled_for_an_inflight_cursor_run_cancels_its_turn() {
    // T7, ACP-7: the blocking call gets no answer; the run is cancelled through session/cancel.
    let mut h = Cursor::new("default");
    let id = h.s.request(
        "tools/call",
        Some(json!({"name": "cursor.run", "arguments": args("cancel-midturn", json!({}))})),
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    let run_id = loop {
        let (list, _) = h.tool("cursor.run.list", json!({}));
        let first = list["runs"][0].clone();
        if first["run_id"].is_string() {
            break first["run_id"].as_str().expect("id").to_owned();
        }
        assert!(Instant::now() < deadline, "no run listed: {list}");
        std::thread::sleep(Duration::from_millis(20));
    };
    h.until(&run_id, "the turn's first events", |r| {
        r["events_total"].as_u64() >= Some(5)
    });
    let pgid = h.agent_pgid();
    h.s.notify(
        "notifications/cancelled",
        Some(json!({"requestId": id, "reason": "test"})),
    );
    let r = h.settled(&run_id);
    assert_eq!(r["state"], "cancelled", "{r}");
    assert_eq!(r["cleanup_confirmed"], true, "{r}");
    assert_group_gone(pgid);
    assert_eq!(h.log.sent_method("session/cancel").len(), 1);
    assert!(
        h.s.response_within(&id, Duration::from_millis(500))
            .is_none(),
        "T7: a cancelled request is not answered"
    );
}
