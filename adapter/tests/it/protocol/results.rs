//! Tool results of real runs: TOOL-4 shape, TOOL-5 `isError` semantics, RUN-1 (wait and
//! `detach_after_s`), RUN-2 (start answers at once).

use std::time::{Duration, Instant};

use serde_json::json;

use super::calls::{scenario, session, start, wait_settled};
use super::tools::structured;

#[test]
fn claude_run_of_a_successful_run_is_not_an_error() {
    let mut s = session("2025-06-18");
    let r = s.call_tool("claude.run", json!({"prompt": scenario("success")}), None);
    assert_eq!(r["isError"], false, "{r}");
    let result = structured(&r);
    assert_eq!(result["state"], "succeeded");
    assert_eq!(result["completed"], true);
    assert_eq!(result["is_error"], false);
    assert_eq!(result["final"]["type"], "result");
}

#[test]
fn claude_run_of_a_failed_run_is_an_error_but_reading_it_is_not() {
    // TOOL-5
    let mut s = session("2025-06-18");
    let r = s.call_tool(
        "claude.run",
        json!({"prompt": scenario("nonzero-exit")}),
        None,
    );
    assert_eq!(r["isError"], true, "{r}");
    let failed = structured(&r);
    assert_eq!(failed["completed"], true, "{r}");
    assert_eq!(failed["is_error"], true);
    assert!(failed["error"]["code"].is_string(), "{r}");
    let run_id = failed["run_id"].as_str().expect("run_id");
    for (tool, args) in [
        ("claude.run.result", json!({"run_id": run_id})),
        ("claude.run.events", json!({"run_id": run_id})),
        ("claude.run.list", json!({})),
    ] {
        let r = s.call_tool(tool, args, None);
        assert_eq!(r["isError"], false, "{tool}: {r}");
        structured(&r);
    }
    let read = structured(&s.call_tool("claude.run.result", json!({"run_id": run_id}), None));
    assert_eq!(read["is_error"], true);
    assert_eq!(read["error"], failed["error"]);
}

#[test]
fn detach_after_s_returns_the_active_handle_instead_of_an_error() {
    // RUN-1
    let mut s = session("2025-06-18");
    let began = Instant::now();
    let r = s.call_tool(
        "claude.run",
        json!({"prompt": scenario("hang-before-final"), "timeout_s": 60, "detach_after_s": 1}),
        None,
    );
    assert!(began.elapsed() < Duration::from_secs(30));
    assert_eq!(r["isError"], false, "{r}");
    let handle = structured(&r);
    assert_eq!(handle["completed"], false, "{r}");
    let state = handle["state"].as_str().expect("state");
    assert!(
        ["pending", "starting", "running"].contains(&state),
        "{state}"
    );
    let run_id = handle["run_id"].as_str().expect("run_id").to_owned();
    let c = s.call_tool("claude.run.cancel", json!({"run_id": run_id}), None);
    assert_eq!(c["isError"], false, "{c}");
    assert_eq!(wait_settled(&mut s, &run_id)["state"], "cancelled");
}

#[test]
fn start_answers_at_once_with_the_handle_and_its_state() {
    // RUN-2
    let mut s = session("2025-06-18");
    let r = s.call_tool(
        "claude.run.start",
        json!({"prompt": scenario("hang-before-final"), "timeout_s": 60}),
        None,
    );
    assert_eq!(r["isError"], false, "{r}");
    let handle = structured(&r);
    let keys: Vec<&String> = handle.as_object().expect("object").keys().collect();
    assert_eq!(keys, ["run_id", "state"], "{handle}");
    let run_id = handle["run_id"].as_str().expect("run_id").to_owned();
    s.call_tool("claude.run.cancel", json!({"run_id": run_id}), None);
    wait_settled(&mut s, &run_id);
    // A second start while nothing else runs works too, and ids differ.
    let other = start(&mut s, "success", None);
    assert_ne!(other, run_id);
}

#[test]
fn engine_argument_errors_are_invalid_arguments_with_a_field() {
    // TOOL-3 for rules the schema cannot state (NAT-6, NAT-7), checked by the engine.
    let mut s = session("2025-06-18");
    let r = s.call_tool(
        "claude.run",
        json!({"prompt": "x", "cwd": "/definitely/not/a/dir"}),
        None,
    );
    assert_eq!(r["isError"], true, "{r}");
    let e = &structured(&r)["error"];
    assert_eq!(e["code"], "invalid_arguments", "{r}");
    assert_eq!(e["field"], "/cwd", "{r}");
}
