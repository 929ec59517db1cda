//! `FAKE_CURSOR_REPLAY` (FAKE-ACP-5): a real agent's transcript replayed to a client that uses its own ids
//! and session id; mismatches end the replay with exit 3.
//!
//! The transcripts in `tests/fixtures/transcripts/` are copies of
//! `shared/reference/acp/transcripts/` (real ACP agents recorded on the wire; see the crate
//! README).

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Value, json};

use crate::{Agent, SOON, crate_dir};

fn transcript(name: &str) -> PathBuf {
    crate_dir().join("tests/fixtures/transcripts").join(name)
}

fn rows(path: &PathBuf) -> Vec<Value> {
    std::fs::read_to_string(path)
        .expect("transcript")
        .lines()
        .map(|l| serde_json::from_str(l).expect("row"))
        .collect()
}

/// The client's id for a recorded client request id.
fn client_id(recorded: &Value) -> Value {
    json!(format!("client-{recorded}"))
}

#[test]
fn replays_the_ts_sdk_permission_turn_with_the_clients_ids_and_session_id() {
    let path = transcript("ts-sdk-0.12.0-example-agent-allow.jsonl");
    let mut agent = Agent::start(&[("FAKE_CURSOR_REPLAY", &path.to_string_lossy())]);
    let mut recorded_sid = None;
    let mut stderr_rows = Vec::new();
    for row in rows(&path) {
        let msg = &row["msg"];
        match row["dir"].as_str() {
            Some("c2a") => {
                let mut out = msg.clone();
                let is_request = msg.get("method").is_some() && msg.get("id").is_some();
                if is_request {
                    out["id"] = client_id(&msg["id"]);
                }
                if let Some(sid) = out.pointer_mut("/params/sessionId") {
                    *sid = json!("client-session");
                }
                agent.send(&out);
            }
            Some("a2c") => {
                let got = agent.next_msg();
                let mut want = msg.clone();
                if msg.get("method").is_none() {
                    want["id"] = client_id(&msg["id"]);
                }
                if let Some(sid) = msg.pointer("/result/sessionId") {
                    recorded_sid = Some(sid.clone());
                }
                if recorded_sid.is_some()
                    && want.pointer("/params/sessionId") == recorded_sid.as_ref()
                {
                    want["params"]["sessionId"] = json!("client-session");
                }
                assert_eq!(got, want);
            }
            Some("a2c-stderr") => stderr_rows.push(msg.as_str().expect("text").to_owned()),
            _ => {}
        }
    }
    agent.close_stdin();
    assert_eq!(agent.exit_within(SOON).expect("exits").code(), Some(0));
    let err = agent.stderr_at_exit();
    for line in stderr_rows {
        assert!(err.contains(&line), "stderr row {line:?} missing");
    }
}

#[test]
fn a_client_message_of_the_wrong_shape_is_a_mismatch_with_exit_3() {
    let path = transcript("python-sdk-0.12.1-echo_agent.jsonl");
    let mut agent = Agent::start(&[("FAKE_CURSOR_REPLAY", &path.to_string_lossy())]);
    agent.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/w", "mcpServers": []}}));
    assert_eq!(agent.exit_within(SOON).expect("exits").code(), Some(3));
    let err = agent.stderr_at_exit();
    assert!(err.contains("replay mismatch at row 1"), "{err}");
    assert!(agent.line_within(Duration::from_millis(100)).is_none());
}

/// The adapter's own recording rows (`--record`, the ACP golden recordings): a raw line and an
/// oversized one are written back as lines, stderr as it is, and an exit row with a code ends
/// the replay with that code.
#[test]
fn adapter_recording_rows_replay_raw_and_oversized_lines_and_the_exit_code() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("run.jsonl");
    let rows = [
        json!({"dir": "a2c-stderr", "msg": "boom", "newline": false}),
        json!({"dir": "c2a", "msg": {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}}),
        json!({"dir": "a2c", "raw": "not json"}),
        json!({"dir": "a2c", "oversized": {"len": 70000}}),
        json!({"dir": "a2c", "msg": {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": 1}}}),
        json!({"dir": "n2a", "exit": {"code": 1, "signal": null}}),
    ];
    let text: String = rows.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(&path, text).expect("write");
    let mut agent = Agent::start(&[("FAKE_CURSOR_REPLAY", &path.to_string_lossy())]);
    agent.send(&json!({"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {"protocolVersion": 1}}));
    assert_eq!(agent.line_within(SOON).expect("raw line"), b"not json");
    let long = agent.line_within(SOON).expect("oversized line");
    assert_eq!(long.len(), 70000);
    assert!(long.iter().all(|b| *b == b'x'));
    assert_eq!(
        agent.next_msg(),
        json!({"jsonrpc": "2.0", "id": 7, "result": {"protocolVersion": 1}})
    );
    assert_eq!(agent.exit_within(SOON).expect("exits").code(), Some(1));
    assert_eq!(agent.stderr_at_exit(), "boom");
}

/// An exit row with a code means the agent ended on its own: the adapter's end-of-turn SIGTERM
/// (ACP-7), which races that exit in real life, is ignored so every replay ends as recorded.
#[test]
fn an_exit_row_with_a_code_holds_a_sigterm_and_ends_with_that_code() {
    use std::os::unix::process::ExitStatusExt as _;
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("run.jsonl");
    let rows = [
        json!({"dir": "a2c", "msg": {"jsonrpc": "2.0", "method": "session/update", "params": {}}}),
        json!({"dir": "c2a", "msg": {"jsonrpc": "2.0", "id": 0, "method": "session/prompt",
            "params": {"sessionId": "s", "prompt": []}}}),
        json!({"dir": "a2c", "msg": {"jsonrpc": "2.0", "id": 0,
            "result": {"stopReason": "end_turn"}}}),
        json!({"dir": "n2a", "exit": {"code": 0, "signal": null}}),
    ];
    let text: String = rows.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(&path, text).expect("write");
    let mut agent = Agent::start(&[("FAKE_CURSOR_REPLAY", &path.to_string_lossy())]);
    // Its first line shows the replay running, its signal mask set.
    assert_eq!(agent.next_msg()["method"], "session/update");
    agent.signal(nix::sys::signal::Signal::SIGTERM);
    assert!(
        agent.exit_within(Duration::from_millis(500)).is_none(),
        "a SIGTERM before the recorded exit does not end the replay"
    );
    agent.send(
        &json!({"jsonrpc": "2.0", "id": 7, "method": "session/prompt",
        "params": {"sessionId": "s", "prompt": []}}),
    );
    assert_eq!(agent.next_msg()["id"], 7);
    let status = agent.exit_within(SOON).expect("exits after the last row");
    assert_eq!(
        (status.code(), status.signal()),
        (Some(0), None),
        "{}",
        agent.stderr_text()
    );
}

/// An exit row with a signal means the process was killed: the replay waits (EOF does not end
/// it) until it is.
#[test]
fn an_exit_row_with_a_signal_waits_to_be_killed_even_after_eof() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("run.jsonl");
    let rows = [
        json!({"dir": "a2c", "msg": {"jsonrpc": "2.0", "method": "session/update", "params": {}}}),
        json!({"dir": "n2a", "exit": {"code": null, "signal": 15}}),
    ];
    let text: String = rows.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(&path, text).expect("write");
    let mut agent = Agent::start(&[("FAKE_CURSOR_REPLAY", &path.to_string_lossy())]);
    assert_eq!(agent.next_msg()["method"], "session/update");
    agent.close_stdin();
    assert!(
        agent.exit_within(Duration::from_millis(1500)).is_none(),
        "the replay must not end by itself"
    );
    agent.kill();
    assert!(agent.exit_within(SOON).is_some());
}
