//! T7: `notifications/cancelled` naming an in-flight `claude.run` cancels its run and gets no
//! response; unknown and finished requests are ignored.

use std::time::Duration;

use serde_json::{Value, json};

use super::calls::{result, scenario, session, the_active_run, wait_running, wait_settled};
use super::tools::structured;

/// Long enough for a stray response to show up on this machine, short enough to keep tests
/// quick: the run is already settled when this wait starts.
const QUIET: Duration = Duration::from_secs(3);

#[test]
fn cancelling_an_in_flight_run_call_cancels_the_run_and_sends_no_response() {
    let mut s = session("2025-06-18");
    let call_id = json!("run-to-cancel");
    s.request_with_id(
        &call_id,
        "tools/call",
        Some(json!({"name": "claude.run",
                    "arguments": {"prompt": scenario("hang-before-final"), "timeout_s": 60}})),
    );
    let run_id = the_active_run(&mut s);
    wait_running(&mut s, &run_id);
    s.notify(
        "notifications/cancelled",
        Some(json!({"requestId": call_id, "reason": "user"})),
    );
    // RUN-6 semantics: the run settles cancelled and stays readable.
    let r = wait_settled(&mut s, &run_id);
    assert_eq!(r["state"], "cancelled", "{r}");
    assert_eq!(r["error"]["code"], "cancelled", "{r}");
    let list = structured(&s.call_tool("claude.run.list", json!({}), None));
    let entry = list["runs"]
        .as_array()
        .expect("runs")
        .iter()
        .find(|e| e["run_id"] == run_id.as_str())
        .cloned()
        .expect("still listed");
    assert_eq!(entry["state"], "cancelled");
    // MCP: receivers SHOULD NOT answer a cancelled request.
    assert!(
        s.response_within(&call_id, QUIET).is_none(),
        "the cancelled call was answered"
    );
    assert!(s.call("ping", None).get("result").is_some());
}

#[test]
fn cancellations_of_unknown_or_finished_requests_are_ignored() {
    let mut s = session("2025-06-18");
    s.notify("notifications/cancelled", Some(json!({"requestId": 4242})));
    s.notify(
        "notifications/cancelled",
        Some(json!({"requestId": "nope"})),
    );
    s.notify("notifications/cancelled", Some(json!({})));
    let id = s.request(
        "tools/call",
        Some(json!({"name": "claude.run", "arguments": {"prompt": scenario("success")}})),
    );
    let resp = s.response(&id);
    let run = structured(&resp["result"]);
    assert_eq!(run["state"], "succeeded", "{resp}");
    let run_id = run["run_id"].as_str().expect("run_id").to_owned();
    // The finished call's id no longer names anything: the settled run is untouched.
    s.notify("notifications/cancelled", Some(json!({"requestId": id})));
    // A ping answered first means the notification was handled and nothing else was sent.
    let ping = s.request("ping", None);
    let next = s.recv_expect();
    assert_eq!(next["id"], ping, "{next}");
    assert_eq!(result(&mut s, &run_id)["state"], "succeeded");
}

#[test]
fn a_request_id_only_matches_exactly() {
    // The string "7" is not the integer 7 (T3a): cancelling one leaves the other.
    let mut s = session("2025-06-18");
    let call_id = json!(7);
    s.request_with_id(
        &call_id,
        "tools/call",
        Some(json!({"name": "claude.run",
                    "arguments": {"prompt": scenario("hang-before-final"), "timeout_s": 60}})),
    );
    let run_id = the_active_run(&mut s);
    wait_running(&mut s, &run_id);
    s.notify("notifications/cancelled", Some(json!({"requestId": "7"})));
    let ping = s.request("ping", None);
    assert_eq!(s.response(&ping)["result"], json!({}));
    assert_eq!(result(&mut s, &run_id)["state"], "running");
    s.notify("notifications/cancelled", Some(json!({"requestId": 7})));
    assert_eq!(wait_settled(&mut s, &run_id)["state"], "cancelled");
    assert!(s.response_within(&call_id, QUIET).is_none());
}

#[test]
fn a_cancelled_call_in_a_batch_gets_no_entry() {
    // T5 + T7 under 2025-03-26.
    let mut s = session("2025-03-26");
    let batch = json!([
        {"jsonrpc": "2.0", "id": "long", "method": "tools/call",
         "params": {"name": "claude.run",
                    "arguments": {"prompt": scenario("hang-before-final"), "timeout_s": 60}}},
        {"jsonrpc": "2.0", "id": "quick", "method": "ping"}
    ]);
    s.send(&batch);
    let run_id = the_active_run(&mut s);
    wait_running(&mut s, &run_id);
    s.notify(
        "notifications/cancelled",
        Some(json!({"requestId": "long"})),
    );
    // The batch answer arrives once its waiting element ended, without the cancelled entry.
    let answer = s.recv_expect();
    let ids: Vec<&Value> = answer
        .as_array()
        .expect("array")
        .iter()
        .map(|e| &e["id"])
        .collect();
    assert_eq!(ids, vec![&json!("quick")], "{answer}");
    assert_eq!(wait_settled(&mut s, &run_id)["state"], "cancelled");
}

#[test]
fn a_run_call_whose_id_is_reused_while_in_flight_is_still_answered() {
    // T4: nothing already accepted is lost. A host that reuses the id of a `claude.run` still in
    // flight breaks JSON-RPC, yet the first call must still get its answer; cancellations then
    // reach the newer call only (T7).
    let mut s = session("2025-06-18");
    let call_id = json!("reused");
    let call = json!({"name": "claude.run",
                      "arguments": {"prompt": scenario("slow-stream"), "timeout_s": 60}});
    s.request_with_id(&call_id, "tools/call", Some(call.clone()));
    let first = the_active_run(&mut s);
    wait_running(&mut s, &first);
    s.request_with_id(&call_id, "tools/call", Some(call));
    let mut states = Vec::new();
    for _ in 0..2 {
        let resp = s.response(&call_id);
        states.push(structured(&resp["result"])["state"].clone());
    }
    assert_eq!(states, vec![json!("succeeded"), json!("succeeded")]);
}

#[test]
fn a_cancel_right_behind_any_other_request_is_too_late_to_stop_its_answer() {
    // C-T7: only in-flight `claude.run` calls can be cancelled; every other request is answered
    // before the next frame is read, so a cancel sent in the same write still finds it answered.
    let mut s = session("2025-06-18");
    for (id, method, params) in [
        ("list", "tools/list", json!({})),
        (
            "start",
            "tools/call",
            json!({"name": "claude.run.start", "arguments": {"prompt": scenario("success")}}),
        ),
        (
            "runs",
            "tools/call",
            json!({"name": "claude.run.list", "arguments": {}}),
        ),
    ] {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                            "params": {"requestId": id}});
        s.send_raw(format!("{request}\n{cancel}\n").as_bytes());
        let r = s.response(&json!(id));
        assert!(r.get("result").is_some(), "{id}: {r}");
    }
    let ping = s.request("ping", None);
    assert_eq!(s.response(&ping)["result"], json!({}));
}
