//! The work resource once runs exist: binding to the acquiring invocation (META-WORK-4), the
//! refusal while unbound runs are retained (META-WORK-5), revisions (META-WORK-3, META-WORK-7).

use serde_json::{Value, json};

use super::calls::{session, start, wait_settled};
use super::resources::read_snapshot;
use super::tools::structured;

const INVOCATION: &str = "io.github.computer-mcp/work-invocation";
const HOST_A: &str = "0b5f2f3e-8a4d-4c0e-9b1a-2f6d7c8e9a01";
const HOST_B: &str = "7d1e2c3b-4a5f-4e6d-8c7b-9a0b1c2d3e4f";

fn entry_of(snapshot: &Value, run_id: &str) -> Value {
    snapshot["work"]
        .as_array()
        .expect("work")
        .iter()
        .find(|e| e["run_id"] == run_id)
        .cloned()
        .unwrap_or_else(|| panic!("{run_id} not in {snapshot}"))
}

#[test]
fn a_bound_run_appears_in_the_snapshot_with_its_invocation() {
    let mut s = session("2025-06-18");
    let before = read_snapshot(&mut s);
    let run_id = start(&mut s, "success", Some(json!({ INVOCATION: HOST_A })));
    let during = read_snapshot(&mut s);
    assert!(
        during["revision"].as_u64() > before["revision"].as_u64(),
        "{during}"
    );
    let e = entry_of(&during, &run_id);
    assert_eq!(e["kind"], "claude.run");
    assert_eq!(e["acquired_by"], HOST_A);
    assert!(e["state"].is_string());
    wait_settled(&mut s, &run_id);
    // Reads and cancels carrying another invocation do not rebind (META-WORK-4).
    let other = Some(json!({ INVOCATION: HOST_B }));
    let r = s.call_tool(
        "claude.run.result",
        json!({"run_id": run_id}),
        other.clone(),
    );
    assert_eq!(r["isError"], false, "{r}");
    s.call_tool("claude.run.cancel", json!({"run_id": run_id}), other);
    let after = read_snapshot(&mut s);
    let e = entry_of(&after, &run_id);
    assert_eq!(e["acquired_by"], HOST_A, "rebound: {after}");
    assert_eq!(e["state"], "succeeded");
    assert!(after["revision"].as_u64() >= during["revision"].as_u64());
    assert_eq!(after["instance"], before["instance"]);
    let list = structured(&s.call_tool("claude.run.list", json!({}), None));
    assert_eq!(list["runs"][0]["acquired_by"], HOST_A, "{list}");
    // Only release removes the entry (META-WORK-6).
    let r = s.call_tool("claude.run.release", json!({"run_id": run_id}), None);
    assert_eq!(r["isError"], false, "{r}");
    let released = read_snapshot(&mut s);
    assert_eq!(released["work"], json!([]), "{released}");
    assert!(released["revision"].as_u64() > after["revision"].as_u64());
}

#[test]
fn an_unbound_run_makes_the_snapshot_a_32000_error_until_it_is_released() {
    // META-WORK-5, META-WORK-7; C-RES: the refusal is -32000 with `unbound_runs` and
    // `last_revision`.
    let mut s = session("2025-06-18");
    let served = read_snapshot(&mut s)["revision"]
        .as_u64()
        .expect("revision");
    let run_id = start(&mut s, "success", None);
    let r = s.call(
        "resources/read",
        Some(json!({"uri": "computer-mcp://runtime/work/v1"})),
    );
    assert_eq!(r["error"]["code"], -32000, "{r}");
    assert_eq!(r["error"]["data"]["unbound_runs"], 1, "{r}");
    // C-META-WORK-5: the refusal names the run and what fixes it.
    assert_eq!(
        r["error"]["data"]["unbound"][0]["run_id"],
        run_id.as_str(),
        "{r}"
    );
    assert_eq!(
        r["error"]["data"]["unbound"][0]["kind"], "claude.run",
        "{r}"
    );
    let message = r["error"]["message"].as_str().expect("message");
    for part in [
        run_id.as_str(),
        "claude.run.release",
        "io.github.computer-mcp/work-invocation",
    ] {
        assert!(message.contains(part), "{part}: {message}");
    }
    let last = r["error"]["data"]["last_revision"]
        .as_u64()
        .expect("last_revision");
    assert!(last >= served, "{r}");
    // Every tool still works without an invocation.
    wait_settled(&mut s, &run_id);
    let r = s.call_tool("claude.run.release", json!({"run_id": run_id}), None);
    assert_eq!(r["isError"], false, "{r}");
    // A failed read changed nothing: the next snapshot is no older than what was served.
    let snap = read_snapshot(&mut s);
    assert!(
        snap["revision"].as_u64().expect("revision") >= last,
        "{snap}"
    );
    assert_eq!(snap["work"], json!([]));
}
