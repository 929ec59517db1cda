//! JSON-RPC batches (T5): answered as a batch under 2025-03-26 only.

use serde_json::{Value, json};

use crate::support::Session;

fn session(version: &str) -> Session {
    let mut s = Session::start();
    let r = s.initialize(Some(json!(version)));
    assert_eq!(r["result"]["protocolVersion"], version, "{r}");
    s
}

fn send_batch(s: &mut Session, batch: &str) -> Value {
    s.send_raw(format!("{batch}\n").as_bytes());
    s.recv_expect()
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
