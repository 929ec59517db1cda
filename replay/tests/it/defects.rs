//! Replays of one recording against the defect server: clean against the same server (exit 0,
//! volatile values absorbed by the built-in rules), and for each one-defect variant exactly the
//! changed message named, with a unified diff (exit 1).

use std::path::Path;
use std::time::Instant;

use serde_json::Value;

use crate::support::{defect_server, record_defect_session, run, show};

fn recorded(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("golden.jsonl");
    record_defect_session(&path);
    path
}

/// The JSON report of a replay against the defect server with `defect`.
fn replay(path: &Path, defect: Option<&str>) -> (i32, Value, String) {
    let o = run(
        path,
        &[
            "--wait-ms",
            "1500",
            "--format",
            "json",
            "--format",
            "pretty",
        ],
        &defect_server(defect),
    );
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let end = text.find("\nmcp-replay run").map_or(text.len(), |i| i + 1);
    let report: Value = serde_json::from_str(&text[..end])
        .unwrap_or_else(|e| panic!("json report ({e}): {}", show(&o)));
    (o.status.code().unwrap_or(-1), report, text)
}

fn positions(report: &Value) -> Vec<String> {
    report["differences"]
        .as_array()
        .expect("differences")
        .iter()
        .map(|d| d["position"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn a_recording_replays_clean_against_the_same_server() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = recorded(dir.path());
    let (code, report, text) = replay(&path, None);
    assert_eq!(code, 0, "{text}");
    assert_eq!(report["status"], "same");
    // The fresh UUIDs and timestamps in every answer were absorbed, and the report says so.
    assert!(
        report["rules_fired"]["uuid"].as_u64() >= Some(2),
        "{report}"
    );
    assert!(
        report["rules_fired"]["timestamp"].as_u64() >= Some(2),
        "{report}"
    );
}

#[test]
fn a_changed_field_is_one_difference_naming_the_message() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = recorded(dir.path());
    let (code, report, text) = replay(&path, Some("changed-field"));
    assert_eq!(code, 1, "{text}");
    assert_eq!(positions(&report), ["c2s #4 request id=3 tools/call"]);
    let diff = report["differences"][0]["diff"].as_str().expect("diff");
    assert!(diff.contains("-        \"text\": \"hello\"\n"), "{diff}");
    assert!(diff.contains("+        \"text\": \"HELLO\"\n"), "{diff}");
    assert!(
        text.contains("difference at c2s #4 request id=3 tools/call"),
        "{text}"
    );
}

#[test]
fn an_extra_message_is_a_difference_in_the_notifications() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = recorded(dir.path());
    let (code, report, text) = replay(&path, Some("extra-message"));
    assert_eq!(code, 1, "{text}");
    assert_eq!(
        positions(&report),
        ["s2c notifications (notifications/progress by kind only)"]
    );
    assert!(report["differences"][0]["diff"]
        .as_str()
        .expect("diff")
        .contains("+{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"surprise\"}}"));
}

#[test]
fn a_missing_answer_costs_one_bounded_wait_and_is_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = recorded(dir.path());
    let started = Instant::now();
    let (code, report, text) = replay(&path, Some("missing-answer"));
    assert_eq!(code, 1, "{text}");
    assert!(
        started.elapsed().as_secs() < 15,
        "bounded: {:?}",
        started.elapsed()
    );
    assert_eq!(positions(&report), ["c2s #4 request id=3 tools/call"]);
    assert!(
        report["differences"][0]["diff"]
            .as_str()
            .expect("diff")
            .contains("+-- no response")
    );
    assert!(
        report["notes"][0]
            .as_str()
            .expect("note")
            .contains("in vain"),
        "{report}"
    );
}

#[test]
fn reordered_notifications_are_a_difference() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = recorded(dir.path());
    let (code, report, text) = replay(&path, Some("reordered"));
    assert_eq!(code, 1, "{text}");
    assert_eq!(
        positions(&report),
        ["s2c notifications (notifications/progress by kind only)"]
    );
}

#[test]
fn an_answer_with_another_id_answers_no_request() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = recorded(dir.path());
    let (code, report, text) = replay(&path, Some("id-change"));
    assert_eq!(code, 1, "{text}");
    assert_eq!(
        positions(&report),
        [
            "c2s #4 request id=3 tools/call",
            "s2c answers to no request sent"
        ]
    );
}

#[test]
fn the_junit_report_fails_exactly_the_changed_message() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = recorded(dir.path());
    let junit = dir.path().join("junit.xml");
    let o = run(
        &path,
        &["--format", &format!("junit={}", junit.display())],
        &defect_server(Some("changed-field")),
    );
    assert_eq!(o.status.code(), Some(1), "{}", show(&o));
    let xml = std::fs::read_to_string(&junit).expect("junit");
    assert_eq!(xml.matches("<failure").count(), 1, "{xml}");
    assert!(
        xml.contains("name=\"c2s #4 request id=3 tools/call\" time=\"0.000\">\n      <failure"),
        "{xml}"
    );
    assert!(xml.contains("errors=\"0\""), "{xml}");
}

#[test]
fn a_server_that_cannot_start_is_exit_2_and_a_junit_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = recorded(dir.path());
    let o = run(
        &path,
        &["--format", "junit"],
        &["/nonexistent/server".to_owned()],
    );
    assert_eq!(o.status.code(), Some(2), "{}", show(&o));
    let xml = String::from_utf8_lossy(&o.stdout);
    assert!(
        xml.contains("<error message=\"cannot start /nonexistent/server"),
        "{xml}"
    );
}

#[test]
fn user_rules_absorb_a_change_and_are_reported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = recorded(dir.path());
    let rules = dir.path().join("rules.json");
    std::fs::write(
        &rules,
        r#"{"rules": [{"id": "echo-text", "pointer": "/result/content/0/text", "replace": "[TEXT]"}]}"#,
    )
    .expect("rules");
    let o = run(
        &path,
        &["--rules", &rules.display().to_string(), "--format", "json"],
        &defect_server(Some("changed-field")),
    );
    assert_eq!(o.status.code(), Some(0), "{}", show(&o));
    let report: Value = serde_json::from_slice(&o.stdout).expect("json");
    assert!(
        report["rules_fired"]["echo-text"].as_u64() >= Some(2),
        "{report}"
    );
}

#[test]
fn timing_recorded_keeps_the_recorded_gaps_and_causal_does_not() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = recorded(dir.path());
    // The same recording with its last client message 1.5 s after the first.
    let text = std::fs::read_to_string(&path).expect("read");
    let mut rows: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("row"))
        .collect();
    let last = rows
        .iter()
        .rposition(|r| r["dir"] == "c2s")
        .expect("a client row");
    for r in &mut rows[last..] {
        r["ms"] = Value::from(1500);
    }
    let slow = dir.path().join("slow.jsonl");
    let text: String = rows.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(&slow, text).expect("write");

    let started = Instant::now();
    let o = run(&slow, &[], &defect_server(None));
    assert_eq!(o.status.code(), Some(0), "{}", show(&o));
    assert!(
        started.elapsed().as_millis() < 1500,
        "causal: {:?}",
        started.elapsed()
    );
    let started = Instant::now();
    let o = run(&slow, &["--timing", "recorded"], &defect_server(None));
    assert_eq!(o.status.code(), Some(0), "{}", show(&o));
    assert!(
        started.elapsed().as_millis() >= 1400,
        "recorded: {:?}",
        started.elapsed()
    );
}

#[test]
fn a_server_that_never_reads_cannot_block_the_replay() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("big.jsonl");
    // A client message far over a pipe's buffer, to a server that never reads its stdin.
    let big = "x".repeat(4 << 20);
    let rows = [
        serde_json::json!({"dir": "c2s", "ms": 0, "msg": {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": big}}}}),
        serde_json::json!({"dir": "s2c", "ms": 0, "msg": {"jsonrpc": "2.0", "id": 1, "result": {}}}),
        serde_json::json!({"dir": "c2s", "ms": 0, "msg": {"jsonrpc": "2.0", "id": 2, "method": "ping"}}),
    ];
    let text: String = rows.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(&path, text).expect("write");
    let started = Instant::now();
    let o = run(
        &path,
        &["--wait-ms", "500"],
        &["sleep".to_owned(), "60".to_owned()],
    );
    assert_eq!(o.status.code(), Some(1), "{}", show(&o));
    assert!(
        started.elapsed().as_secs() < 15,
        "bounded: {:?}",
        started.elapsed()
    );
}
