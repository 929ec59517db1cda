//! LOOP, TOOLCALL and JSONOUT through `cursor.run` with fake-cursor-agent.

use serde_json::{Value, json};

use super::schema;
use crate::cursor::{Cursor, args, assert_group_gone, code};

#[test]
fn the_same_failing_shell_command_trips_the_guard_and_ends_the_agents_group() {
    // LOOP-1, LOOP-3: through the cancel path (session/cancel, then the group's end).
    let mut h = Cursor::new("default");
    let (r, is_error) = h.run(args("loop-failing-shell", json!({})));
    assert!(is_error, "{r}");
    assert_eq!(r["state"], "failed", "{r}");
    assert_eq!(code(&r), "loop_detected", "{r}");
    assert_eq!(r["error"]["count"], 3);
    assert_eq!(
        r["error"]["fingerprint"],
        json!({"kind": "strict", "tool": "bash", "arguments": {"command": "cat missing.txt"},
            "outcome": "missing_path"})
    );
    assert_eq!(
        r["error"]["call_ids"],
        json!(["shell_0", "shell_1", "shell_2"])
    );
    assert_eq!(r["cleanup_confirmed"], true);
    assert_group_gone(h.agent_pgid());
    assert_eq!(
        h.log.sent_method("session/cancel").len(),
        1,
        "the normal cancel path: session/cancel was sent"
    );
}

#[test]
fn a_loop_limit_of_three_trips_at_the_fourth_missing_read() {
    // LOOP-1/2/4: exactly limit + 1.
    let mut h = Cursor::new("default");
    let (r, _) = h.run(args("loop-missing-read", json!({"loop_limit": 3})));
    assert_eq!(code(&r), "loop_detected", "{r}");
    assert_eq!(r["error"]["count"], 4);
    assert_eq!(r["error"]["limit"], 3);
    assert_eq!(r["error"]["fingerprint"]["tool"], "read");
    assert_eq!(r["error"]["fingerprint"]["outcome"], "missing_path");
    assert_group_gone(h.agent_pgid());
}

#[test]
fn many_distinct_reads_are_not_a_loop_and_the_spikes_tool_turn_is_normalised() {
    // LOOP-2, TOOLCALL-1/2/3.
    let mut h = Cursor::new("default");
    let (r, is_error) = h.run(args("many-reads", json!({})));
    assert!(!is_error, "{r}");
    let calls = r["tool_calls"]["calls"].as_array().expect("calls");
    assert_eq!(calls.len(), 40);
    assert!(
        calls
            .iter()
            .all(|c| c["tool"] == "read" && c["outcome"] == "ok")
    );

    let (r, is_error) = h.run(args("tools", json!({})));
    assert!(!is_error, "{r}");
    let got: Vec<(Value, Value, Value)> = r["tool_calls"]["calls"]
        .as_array()
        .expect("calls")
        .iter()
        .map(|c| {
            (
                c["tool"].clone(),
                c["native_name"].clone(),
                c["outcome"].clone(),
            )
        })
        .collect();
    let want: Vec<(Value, Value, Value)> = [
        ("read", "read"),
        ("grep", "search"),
        ("bash", "execute"),
        ("edit", "edit"),
        ("edit", "edit"),
        ("todo", "updateTodos"),
    ]
    .iter()
    .map(|(t, n)| (json!(t), json!(n), json!("ok")))
    .collect();
    assert_eq!(got, want, "{r}");
    // The search call's input arrives in a later update.
    assert_eq!(r["tool_calls"]["calls"][1]["arguments"]["pattern"], "TODO");
}

#[test]
fn a_denied_read_reported_completed_without_output_is_permission_denied() {
    // TOOLCALL-3 (cursor_deny_read_fetch) and a rejected shell permission (TOOLCALL-4), which
    // ACP-4 records in the result's permission_denials.
    let mut h = Cursor::new("default");
    let (r, _) = h.run(args("denied-read", json!({})));
    assert_eq!(
        r["tool_calls"]["calls"][0]["outcome"], "permission_denied",
        "{r}"
    );
    assert_eq!(r["tool_calls"]["calls"][1]["outcome"], "ok");

    let (r, _) = h.run(args("permission-shell", json!({})));
    let denials = r["permission_denials"]["denials"]
        .as_array()
        .expect("denials");
    assert_eq!(denials.len(), 1, "{r}");
    assert_eq!(denials[0]["tool"], "bash");
    assert!(denials[0]["call_id"].is_string());
}

#[test]
fn a_bare_or_fenced_object_is_delivered_as_structured() {
    // JSONOUT-2/3; the instruction went with the prompt.
    let mut h = Cursor::new("default");
    for scenario in ["structured-bare", "structured-fenced"] {
        let (r, is_error) = h.run(args(scenario, json!({"json_schema": schema()})));
        assert!(!is_error, "{scenario}: {r}");
        assert_eq!(
            r["structured"],
            json!({"name": "fake", "count": 2}),
            "{scenario}"
        );
    }
    let prompts = h.log.sent_method("session/prompt");
    let text = prompts[0]["params"]["prompt"][0]["text"]
        .as_str()
        .expect("prompt text");
    assert!(text.contains("exactly one JSON object"), "{text}");
    // C-JSONOUT-1: the instruction comes after the prompt, separated by a blank line, and names
    // the schema.
    let (prompt, instruction) = text
        .split_once("\n\nAnswer with exactly one JSON object")
        .expect("the instruction follows the prompt after a blank line");
    assert!(!prompt.trim().is_empty(), "{text}");
    assert!(
        instruction.contains("\"required\":[\"name\",\"count\"]"),
        "{text}"
    );
}

#[test]
fn prose_two_objects_truncation_and_schema_errors_fail_with_the_text_kept() {
    // JSONOUT-2/3.
    let mut h = Cursor::new("default");
    for (scenario, reason) in [
        ("structured-prose", "unparsable"),
        ("structured-doubled", "unparsable"),
        ("structured-truncated", "unparsable"),
        ("structured-invalid", "schema_invalid"),
    ] {
        let (r, is_error) = h.run(args(scenario, json!({"json_schema": schema()})));
        assert!(is_error, "{scenario}: {r}");
        assert_eq!(code(&r), "invalid_structured_output", "{scenario}: {r}");
        assert_eq!(r["error"]["reason"], reason, "{scenario}: {r}");
        assert_eq!(
            r["error"]["text"], r["final"]["text"],
            "{scenario}: the text is kept"
        );
        assert_eq!(r["structured"], Value::Null);
    }
    let (r, _) = h.run(args("structured-invalid", json!({"json_schema": schema()})));
    assert!(
        ["/name", "/count"].contains(&r["error"]["pointer"].as_str().unwrap_or("")),
        "the first schema error, by pointer: {r}"
    );
}
