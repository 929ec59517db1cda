//! JSON-RPC batches (T5): answered as a batch under 2025-03-26 only.

use serde_json::{Value, json};
use testkit::procs::vm_hwm_kib;

use crate::support::Session;

fn session(version: &str) -> Session {
    let mut s = Session::start();
    let r = s.initialize(Some(json!(version)));
    assert_eq!(r["result"]["protocolVersion"], version, "{r}");
    s
}

/// Sends `batch` as written and returns the next message; the answers to its `tools/call`
/// elements get the suite's outputSchema check (TOOL-6) like any other tool result.
fn send_batch(s: &mut Session, batch: &str) -> Value {
    send_batch_line(s, batch);
    s.recv_expect()
}

/// Writes `batch` as one line, registering its `tools/call` elements for the outputSchema check.
fn send_batch_line(s: &mut Session, batch: &str) {
    if let Ok(parsed) = serde_json::from_str::<Value>(batch) {
        s.expect_answers_to(&parsed);
    }
    s.send_raw(format!("{batch}\n").as_bytes());
}

const PINGS: &str =
    r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":"two","method":"ping"}]"#;

#[test]
fn a_batch_under_2025_03_26_is_answered_as_a_batch_in_order() {
    let mut s = session("2025-03-26");
    let v = send_batch(&mut s, PINGS);
    let arr = v
        .as_array()
        .unwrap_or_else(|| panic!("not a batch answer: {v}"));
    assert_eq!(arr.len(), 2, "{v}");
    assert_eq!(arr[0]["id"], 1);
    assert_eq!(arr[1]["id"], "two");
    assert_eq!(arr[0]["result"], json!({}));
}

#[test]
fn notifications_in_a_batch_get_no_entry() {
    let mut s = session("2025-03-26");
    let v = send_batch(
        &mut s,
        r#"[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":3,"method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/whatever"}]"#,
    );
    let arr = v.as_array().expect("batch answer");
    assert_eq!(arr.len(), 1, "{v}");
    assert_eq!(arr[0]["id"], 3);
    assert_eq!(arr[0]["result"]["tools"].as_array().map(Vec::len), Some(7));
}

#[test]
fn a_batch_of_notifications_only_gets_no_answer() {
    let mut s = session("2025-03-26");
    s.send_raw(b"[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}]\n");
    let id = s.request("ping", None);
    let next = s.recv_expect();
    assert_eq!(next["id"], id, "{next}");
}

#[test]
fn an_empty_batch_is_one_invalid_request() {
    let mut s = session("2025-03-26");
    let v = send_batch(&mut s, "[]");
    assert_eq!(v["error"]["code"], -32600, "{v}");
    assert_eq!(v["id"], Value::Null);
}

#[test]
fn invalid_elements_get_their_own_error_entries() {
    let mut s = session("2025-03-26");
    let v = send_batch(
        &mut s,
        r#"[1,{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"1.0","id":"x","method":"ping"},{"jsonrpc":"2.0","id":4,"method":"nope"}]"#,
    );
    let arr = v.as_array().expect("batch answer");
    assert_eq!(arr.len(), 4, "{v}");
    assert_eq!(arr[0]["error"]["code"], -32600);
    assert_eq!(arr[0]["id"], Value::Null);
    assert_eq!(arr[1]["result"], json!({}));
    assert_eq!(arr[2]["error"]["code"], -32600);
    assert_eq!(arr[2]["id"], "x");
    assert_eq!(arr[3]["error"]["code"], -32601);
}

#[test]
fn initialize_inside_a_batch_is_invalid() {
    let mut s = session("2025-03-26");
    let v = send_batch(
        &mut s,
        r#"[{"jsonrpc":"2.0","id":9,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}]"#,
    );
    let arr = v.as_array().expect("batch answer");
    assert_eq!(arr[0]["id"], 9);
    assert_eq!(arr[0]["error"]["code"], -32600, "{v}");
}

#[test]
fn tool_calls_in_a_batch_are_answered_with_tool_results() {
    let mut s = session("2025-03-26");
    let v = send_batch(
        &mut s,
        r#"[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"claude.run.result","arguments":{"run_id":"nope"}}},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"claude.run.list","arguments":{}}}]"#,
    );
    let arr = v.as_array().expect("batch answer");
    assert_eq!(arr.len(), 2, "{v}");
    assert_eq!(arr[0]["result"]["isError"], true, "{v}");
    assert_eq!(
        arr[0]["result"]["structuredContent"]["result"]["error"]["code"],
        "unknown_run"
    );
    assert_eq!(arr[1]["result"]["isError"], false, "{v}");
}

#[test]
fn batches_under_other_versions_are_one_invalid_request() {
    for version in ["2024-11-05", "2025-06-18"] {
        let mut s = session(version);
        let v = send_batch(&mut s, PINGS);
        assert_eq!(v["error"]["code"], -32600, "{version}: {v}");
        assert_eq!(v["id"], Value::Null, "{version}: {v}");
        // Nothing else was answered, and the session goes on.
        let id = s.request("ping", None);
        assert_eq!(s.recv_expect()["id"], id, "{version}");
    }
}

#[test]
fn a_batch_before_initialize_is_one_invalid_request() {
    let mut s = Session::start();
    let v = send_batch(&mut s, PINGS);
    assert_eq!(v["error"]["code"], -32600, "{v}");
    assert_eq!(v["id"], Value::Null);
}

/// A 4 MiB batch line of `count` copies of `element` (the default frame bound is 4 MiB).
fn huge_batch(element: &str, count: usize) -> String {
    let mut line = String::with_capacity(count * (element.len() + 1) + 2);
    line.push('[');
    for i in 0..count {
        if i > 0 {
            line.push(',');
        }
        line.push_str(element);
    }
    line.push(']');
    line
}

/// Most the adapter's peak RSS may grow while it answers one 4 MiB frame: a few copies of the
/// frame, never the per-element answers of two million elements (which took 2.4 GB).
const FRAME_PEAK_SLACK_KIB: u64 = 96 * 1024;

#[test]
fn a_batch_of_two_million_elements_is_one_invalid_request_with_bounded_memory() {
    // T5, T6: a batch holds at most 65536 elements (C-T5); a larger one is one -32600 with
    // `id: null`, nothing in it runs, and answering it costs about the frame, not an answer per
    // element. Also under a version without batches, where only one error is due anyway.
    for version in ["2025-03-26", "2025-06-18"] {
        let mut s = session(version);
        assert!(s.call("tools/list", None).get("result").is_some());
        let base = vm_hwm_kib(s.pid()).expect("VmHWM");
        let line = huge_batch("1", 2 * 1024 * 1024 - 2);
        assert!(line.len() < 4 * 1024 * 1024);
        s.send_raw(format!("{line}\n").as_bytes());
        let v = s.recv_expect();
        assert_eq!(
            v["error"]["code"],
            -32600,
            "{version}: not one error: {:.200}",
            v.to_string()
        );
        assert_eq!(v["id"], Value::Null, "{version}");
        let peak = vm_hwm_kib(s.pid()).expect("VmHWM");
        assert!(
            peak.saturating_sub(base) < FRAME_PEAK_SLACK_KIB,
            "{version}: peak RSS grew from {base} to {peak} KiB answering one 4 MiB frame"
        );
        let id = s.request("ping", None);
        assert_eq!(s.recv_expect()["id"], id, "{version}: the session goes on");
    }
}

#[test]
fn a_batch_of_65536_elements_is_answered_and_65537_is_refused_whole() {
    // C-T5: the element bound is inclusive (ten thousand pings are simply answered); over it
    // nothing runs: the run the batch starts first is never started.
    let mut s = session("2025-03-26");
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let v = send_batch(&mut s, &huge_batch(ping, 65_536));
    assert_eq!(v.as_array().map(Vec::len), Some(65_536));
    assert!(
        v.as_array()
            .is_some_and(|a| a.iter().all(|e| e["result"] == json!({})))
    );
    let start = r#"{"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"name":"claude.run.start","arguments":{"prompt":"hi"}}}"#;
    let mut line = huge_batch(ping, 65_536);
    line.insert_str(1, &format!("{start},"));
    let v = send_batch(&mut s, &line);
    assert_eq!(v["error"]["code"], -32600, "{:.200}", v.to_string());
    assert_eq!(v["id"], Value::Null);
    let runs = s.call_tool("claude.run.list", json!({}), None);
    assert_eq!(runs["structuredContent"]["result"]["runs"], json!([]));
}

#[test]
fn a_batch_answer_is_bounded_and_elements_past_the_bound_are_not_executed() {
    // T5 with bounded memory (C-T5): a batch's answers stop at 4 MiB; every later request is
    // answered -32603 "not executed" with its id, and truly did not run (no run was started).
    let mut s = crate::support::Adapter::new().fake_claude().spawn();
    let r = s.initialize(Some(json!("2025-03-26")));
    assert_eq!(r["result"]["protocolVersion"], "2025-03-26");
    let list = r#"{"jsonrpc":"2.0","id":"l","method":"tools/list"}"#;
    let start = r#"{"jsonrpc":"2.0","id":"late-start","method":"tools/call","params":{"name":"claude.run.start","arguments":{"prompt":"fake-claude:scenario=success"}}}"#;
    let mut line = huge_batch(list, 1000);
    line.pop();
    line.push_str(&format!(",{start}]"));
    send_batch_line(&mut s, &line);
    let raw = s
        .recv_line(crate::support::TIMEOUT)
        .expect("the batch answer");
    assert!(
        raw.len() < 5 * 1024 * 1024,
        "the answer is {} bytes, over its bound",
        raw.len()
    );
    let v: Value = serde_json::from_slice(&raw).expect("JSON");
    s.check_answer(&v);
    let arr = v.as_array().expect("batch answer");
    assert_eq!(arr.len(), 1001, "every request has its entry");
    assert!(arr[0]["result"]["tools"].is_array(), "the first ones ran");
    let last = &arr[1000];
    assert_eq!(last["id"], "late-start", "{last}");
    assert_eq!(last["error"]["code"], -32603, "{last}");
    let runs = s.call_tool("claude.run.list", json!({}), None);
    assert_eq!(
        runs["structuredContent"]["result"]["runs"],
        json!([]),
        "a request answered as not executed started a run"
    );
}
