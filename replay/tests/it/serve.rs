//! Serving a recording to a host: the host's own ids are answered, the session completes (exit
//! 0); an unexpected or out-of-order request gets a JSON-RPC error at once and is a reported
//! difference (stderr and the report file, exit 1); a silent host ends the session within the
//! idle bound.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{LineClient, bin, record_defect_session, standard_session};

fn serve_cmd(recording: &Path, report: &Path, idle_ms: u64) -> Command {
    let mut cmd = Command::new(bin());
    cmd.arg("serve")
        .arg(recording)
        .arg("--idle-ms")
        .arg(idle_ms.to_string())
        .arg("--report")
        .arg(report)
        .stderr(std::process::Stdio::piped());
    cmd
}

fn report(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("report")).expect("json")
}

#[test]
fn serving_answers_the_hosts_requests_under_the_hosts_ids() {
    let dir = tempfile::tempdir().expect("tempdir");
    let golden = dir.path().join("golden.jsonl");
    record_defect_session(&golden);
    let rep = dir.path().join("report.json");
    let mut c = LineClient::spawn(&mut serve_cmd(&golden, &rep, 5000));
    // Other ids than the recording's (which used 1..): strings.
    let init = json!({"protocolVersion": "2025-06-18", "capabilities": {},
                      "clientInfo": {"name": "replay-tests", "version": "0"}});
    c.send(&json!({"jsonrpc": "2.0", "id": "i-1", "method": "initialize", "params": init}));
    let r = c.response(&json!("i-1"));
    assert_eq!(r["result"]["serverInfo"]["name"], "defect-server", "{r}");
    c.notify("notifications/initialized");
    c.send(&json!({"jsonrpc": "2.0", "id": "i-2", "method": "tools/list", "params": {}}));
    assert!(c.response(&json!("i-2"))["result"]["tools"].is_array());
    let call = json!({"name": "echo", "arguments": {"text": "hello"}});
    c.send(&json!({"jsonrpc": "2.0", "id": 77, "method": "tools/call", "params": call}));
    assert_eq!(
        c.response(&json!(77))["result"]["content"][0]["text"],
        "hello"
    );
    let call = json!({"name": "add", "arguments": {"a": 2, "b": 3}});
    c.send(&json!({"jsonrpc": "2.0", "id": 78, "method": "tools/call", "params": call}));
    assert_eq!(c.response(&json!(78))["result"]["content"][0]["text"], "5");
    c.send(&json!({"jsonrpc": "2.0", "id": 79, "method": "resources/list", "params": {}}));
    c.response(&json!(79));
    let logs = c
        .received
        .iter()
        .filter(|m| m["method"] == "notifications/message")
        .count();
    assert_eq!(logs, 2, "the recorded notifications came along");
    let status = c.close();
    assert_eq!(status.code(), Some(0), "{}", report(&rep));
    assert_eq!(report(&rep)["status"], "same");
}

#[test]
fn an_out_of_order_request_is_an_error_at_once_and_a_reported_difference() {
    let dir = tempfile::tempdir().expect("tempdir");
    let golden = dir.path().join("golden.jsonl");
    record_defect_session(&golden);
    let rep = dir.path().join("report.json");
    let mut cmd = serve_cmd(&golden, &rep, 5000);
    let mut c = LineClient::spawn(&mut cmd);
    let started = Instant::now();
    let r = c.request("tools/list", json!({}));
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "answered at once"
    );
    assert_eq!(
        r["error"]["code"],
        mcp_replay::server::NOT_IN_RECORDING,
        "{r}"
    );
    let message = r["error"]["message"].as_str().expect("message");
    assert!(
        message
            .contains("out of order: the recording expects c2s #1 request id=1 initialize first"),
        "{r}"
    );
    // The rest of the session goes on as recorded (ids 2.. now).
    standard_session(&mut c);
    assert_eq!(c.close().code(), Some(1));
    let rep = report(&rep);
    assert_eq!(rep["status"], "different");
    let positions: Vec<&str> = rep["differences"]
        .as_array()
        .expect("differences")
        .iter()
        .filter_map(|d| d["position"].as_str())
        .collect();
    assert_eq!(positions, ["host message #1: request tools/list id=1"]);
}

#[test]
fn a_request_the_recording_does_not_have_is_named_as_such() {
    let dir = tempfile::tempdir().expect("tempdir");
    let golden = dir.path().join("golden.jsonl");
    record_defect_session(&golden);
    let rep = dir.path().join("report.json");
    let mut c = LineClient::spawn(&mut serve_cmd(&golden, &rep, 5000));
    standard_session(&mut c);
    let r = c.request("prompts/list", json!({}));
    assert!(
        r["error"]["message"]
            .as_str()
            .expect("message")
            .contains("is not in the recording")
    );
    assert_eq!(c.close().code(), Some(1));
}

#[test]
fn a_silent_host_ends_the_session_within_the_idle_bound() {
    let dir = tempfile::tempdir().expect("tempdir");
    let golden = dir.path().join("golden.jsonl");
    record_defect_session(&golden);
    let rep = dir.path().join("report.json");
    let mut c = LineClient::spawn(&mut serve_cmd(&golden, &rep, 300));
    let started = Instant::now();
    c.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "replay-tests", "version": "0"}}),
    );
    // Then nothing: the server ends on its own (stdin still open).
    let status = c.close_after_exit();
    assert_eq!(status.code(), Some(1));
    assert!(started.elapsed() < Duration::from_secs(10));
    let rep = report(&rep);
    let first = rep["differences"][0]["diff"].as_str().expect("diff");
    assert!(first.contains("the host sent nothing for 300 ms"), "{rep}");
}

#[test]
fn a_host_that_never_reads_its_answers_cannot_block_serving() {
    use std::io::Write as _;
    let dir = tempfile::tempdir().expect("tempdir");
    let golden = dir.path().join("golden.jsonl");
    record_defect_session(&golden);
    let rep = dir.path().join("report.json");
    let mut child = serve_cmd(&golden, &rep, 500)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("serve");
    let mut stdin = child.stdin.take().expect("stdin");
    // Far more refused requests than a pipe holds answers to; the host reads none of them.
    for id in 0..3000 {
        writeln!(
            stdin,
            r#"{{"jsonrpc":"2.0","id":{id},"method":"nope/{id}"}}"#
        )
        .expect("write");
    }
    let started = Instant::now();
    let status = child.wait().expect("wait");
    drop(stdin);
    assert_eq!(status.code(), Some(1));
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}
