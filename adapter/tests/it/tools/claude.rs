//! LOOP, TOOLCALL and JSONOUT through `claude.run` with fake-claude.

use serde_json::{Value, json};
use testkit::procs::group_members;

use super::schema;
use crate::runs::{Harness, args, code, split};

/// The native group of the last run invocation (SUP-1: the leader's pid).
fn last_pgid(h: &Harness) -> u32 {
    let runs = h.runs();
    let pgid = runs.last().expect("a run")["pgid"].as_u64().expect("pgid");
    u32::try_from(pgid).expect("a pgid fits u32")
}

#[test]
fn the_same_failing_command_trips_the_guard_at_limit_plus_one_and_the_group_is_gone() {
    // LOOP-1, LOOP-3: the third identical failure (limit 2) cancels the run; the fake would
    // otherwise sleep 6 s and succeed.
    let mut h = Harness::new();
    let (r, is_error) = split(&h.run(args("loop-failing-command", json!({}))));
    assert!(is_error, "{r}");
    assert_eq!(r["state"], "failed", "{r}");
    assert_eq!(code(&r), "loop_detected", "{r}");
    let e = &r["error"];
    assert_eq!(e["count"], 3);
    assert_eq!(e["limit"], 2);
    assert_eq!(
        e["fingerprint"],
        json!({"kind": "strict", "tool": "bash", "arguments": {"command": "cat missing.txt"},
            "outcome": "missing_path"})
    );
    assert_eq!(
        e["call_ids"],
        json!(["toolu_loop_0", "toolu_loop_1", "toolu_loop_2"])
    );
    assert!(
        e["message"].as_str().is_some_and(|m| m.contains("3 times")),
        "{e}"
    );
    assert_eq!(r["cleanup_confirmed"], true);
    assert_eq!(r["final"], Value::Null, "stopped before its final");
    assert_eq!(r["loop_guard"]["tripped"]["count"], 3);
    assert!(
        group_members(last_pgid(&h)).is_empty(),
        "SUP-3: the group is gone"
    );
}

#[test]
fn a_higher_loop_limit_trips_later_and_an_off_guard_never_trips() {
    // LOOP-4.
    let mut h = Harness::new();
    let (r, _) = split(&h.run(args("loop-failing-command", json!({"loop_limit": 4}))));
    assert_eq!(code(&r), "loop_detected", "{r}");
    assert_eq!(r["error"]["count"], 5);
    let (r, is_error) = split(&h.run(args("loop-failing-command", json!({"loop_guard": "off"}))));
    assert!(!is_error, "{r}");
    assert_eq!(r["state"], "succeeded");
    assert_eq!(r["loop_guard"]["enabled"], false);
    assert_eq!(r["loop_guard"]["highest"]["count"], 5);
    assert_eq!(r["loop_guard"]["tripped"], Value::Null);
    let calls = r["tool_calls"]["calls"].as_array().expect("calls");
    assert_eq!(calls.len(), 5);
    assert!(
        calls
            .iter()
            .all(|c| c["outcome"] == "missing_path" && c["tool"] == "bash")
    );
}

#[test]
fn the_same_missing_path_read_again_is_a_loop() {
    // LOOP-2 ("the same missing path read again is").
    let mut h = Harness::new();
    let (r, _) = split(&h.run(args("loop-missing-path", json!({}))));
    assert_eq!(code(&r), "loop_detected", "{r}");
    assert_eq!(r["error"]["fingerprint"]["tool"], "read");
    assert_eq!(r["error"]["fingerprint"]["outcome"], "missing_path");
    let path = r["error"]["fingerprint"]["arguments"]["path"]
        .as_str()
        .expect("canonical path (Read's file_path)");
    assert!(path.ends_with("/missing.txt"), "{path}");
}

#[test]
fn many_distinct_reads_are_not_a_loop_and_are_listed() {
    // LOOP-2, TOOLCALL-1/2/4.
    let mut h = Harness::new();
    let (r, is_error) = split(&h.run(args("many-reads", json!({}))));
    assert!(!is_error, "{r}");
    assert_eq!(r["state"], "succeeded");
    let calls = r["tool_calls"]["calls"].as_array().expect("calls");
    assert_eq!(calls.len(), 40);
    assert_eq!(r["tool_calls"]["left_out"], 0);
    assert_eq!(calls[7]["tool"], "read");
    assert_eq!(calls[7]["native_name"], "Read");
    assert_eq!(calls[7]["outcome"], "ok");
    assert!(
        calls[7]["arguments"]["path"]
            .as_str()
            .is_some_and(|p| p.ends_with("/src/f7.rs"))
    );
    assert_eq!(
        r["permission_denials"],
        json!({"denials": [], "left_out": 0})
    );
}

#[test]
fn a_denied_tool_is_a_call_and_a_denial_in_the_common_shape() {
    // TOOLCALL-3/4: claude's system/permission_denied and the final's permission_denials name the
    // same call once.
    let mut h = Harness::new();
    let (r, is_error) = split(&h.run(args("tool-denied", json!({}))));
    assert!(!is_error, "{r}");
    assert_eq!(
        r["permission_denials"],
        json!({"denials": [{"call_id": "toolu_mocka793d2daf8cf", "tool": "bash",
            "native_name": "Bash", "arguments": {"command": "touch created-by-tool.txt"}}],
            "left_out": 0})
    );
    assert_eq!(r["tool_calls"]["calls"][0]["outcome"], "permission_denied");
}

#[test]
fn json_schema_reaches_argv_and_a_valid_structured_output_is_delivered() {
    // JSONOUT-1/3.
    let mut h = Harness::new();
    let (r, is_error) = split(&h.run(args("structured-valid", json!({"json_schema": schema()}))));
    assert!(!is_error, "{r}");
    assert_eq!(r["structured"], json!({"name": "fake", "count": 2}));
    let argv = h.runs().last().expect("run")["argv"].clone();
    let argv: Vec<&str> = argv
        .as_array()
        .expect("argv")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let at = argv
        .iter()
        .position(|a| *a == "--json-schema")
        .expect("--json-schema in argv");
    let passed: Value = serde_json::from_str(argv[at + 1]).expect("the schema, as JSON");
    assert_eq!(passed, schema());
    assert!(at < argv.iter().position(|a| *a == "--").expect("separator"));
}

#[test]
fn invalid_or_missing_structured_output_fails_naming_the_pointer_and_keeping_the_text() {
    // JSONOUT-3.
    let mut h = Harness::new();
    let (r, _) = split(&h.run(args("structured-invalid", json!({"json_schema": schema()}))));
    assert_eq!(r["state"], "failed");
    assert_eq!(code(&r), "invalid_structured_output", "{r}");
    assert_eq!(r["error"]["reason"], "schema_invalid");
    assert!(
        ["/name", "/count"].contains(&r["error"]["pointer"].as_str().unwrap_or("")),
        "{r}"
    );
    assert_eq!(r["error"]["text"], "{\"name\":3}");
    assert_eq!(r["structured"], Value::Null);
    assert_eq!(
        r["final"]["structured_output"],
        json!({"name": 3}),
        "the final is kept"
    );

    let (r, _) = split(&h.run(args("structured-missing", json!({"json_schema": schema()}))));
    assert_eq!(code(&r), "invalid_structured_output", "{r}");
    // C-JSONOUT-1: claude's refusal of an invalid StructuredOutput call leaves a final without
    // `structured_output`: reason `missing`.
    assert_eq!(r["error"]["reason"], "missing");
    assert_eq!(r["error"]["text"], "Here is the answer: fake, 2");

    // Without json_schema nothing is asked of the final.
    let (r, is_error) = split(&h.run(args("structured-missing", json!({}))));
    assert!(!is_error, "{r}");
    assert_eq!(r["structured"], Value::Null);
}

#[test]
fn guard_and_schema_arguments_are_checked_with_their_field() {
    // LOOP-4, JSONOUT-1, TOOL-3.
    let mut h = Harness::new();
    for (bad, field) in [
        (json!({"loop_limit": 1}), "/loop_limit"),
        (json!({"loop_limit": 65}), "/loop_limit"),
        (json!({"loop_guard": "maybe"}), "/loop_guard"),
        (json!({"json_schema": "object"}), "/json_schema"),
        (json!({"json_schema": {"type": 7}}), "/json_schema"),
        (
            json!({"json_schema": {"description": "x".repeat(70_000)}}),
            "/json_schema",
        ),
    ] {
        let (r, is_error) = split(&h.run(args("success", bad.clone())));
        assert!(is_error, "{bad}");
        assert_eq!(r["error"]["code"], "invalid_arguments", "{bad}: {r}");
        assert_eq!(r["error"]["field"], field, "{bad}: {r}");
    }
}
