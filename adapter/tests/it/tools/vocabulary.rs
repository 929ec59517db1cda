//! TOOLCALL-1..3: the alias table (`adapter/src/providers/tool_vocabulary.json`) checked against
//! the real recorded shapes: claude 2.1.328's streams (`fixtures/claude-streams/`, copied from
//! `shared/reference/claude-2.1.328/streams/`), the real ACP agents' transcripts
//! (`fake-cursor-agent/tests/fixtures/transcripts/`, copied from `shared/reference/acp/`) and
//! Cursor's `rawInput` shapes as the spike documented them
//! (`shared/seeds/cursor-acp-spike-recordings.txt`, item 2).

use std::path::{Path, PathBuf};

use cmk_engine::provider::Dialect;
use cmk_engine::to_json;
use cmk_engine::tools::{GuardConfig, ToolTracker};
use cmk_provider_claude::stream::StreamJson;
use cmk_provider_cursor::dialect::Acp;
use serde_json::{Value, json};

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// Every line through the dialect's cheap filter and extraction, into a tracker.
fn track(dialect: &dyn Dialect, lines: impl IntoIterator<Item = String>) -> ToolTracker {
    let mut t = ToolTracker::new(GuardConfig::default());
    for line in lines {
        let v: Value = serde_json::from_str(&line).expect("a recorded line is JSON");
        let events = dialect.tool_events(&v);
        if !events.is_empty() {
            assert!(
                dialect.classify(line.as_bytes()).may_carry_tool_events,
                "the filter must not skip a line with tool events: {line}"
            );
        }
        for ev in events {
            t.apply(ev);
        }
    }
    t
}

fn claude_stream(name: &str) -> ToolTracker {
    let text = std::fs::read_to_string(fixture(&format!(
        "tests/it/tools/fixtures/claude-streams/{name}.jsonl"
    )))
    .expect("fixture");
    track(&StreamJson, text.lines().map(str::to_owned))
}

#[test]
fn claudes_recorded_bash_calls_normalise_with_their_outcomes() {
    // mock-tool-dontask: `echo hi` allowed; its `description` is not part of what it does
    // (C-LOOP-4).
    let t = claude_stream("mock-tool-dontask");
    let calls = to_json(&t.calls_summary());
    assert_eq!(calls["calls"].as_array().map(Vec::len), Some(1), "{calls}");
    let c = &calls["calls"][0];
    assert_eq!(c["tool"], "bash");
    assert_eq!(c["native_name"], "Bash");
    assert_eq!(c["arguments"], json!({"command": "echo hi"}));
    assert_eq!(c["outcome"], "ok");

    // mock-tool-deny-partial: the partial `content_block_start` (empty input) is not a call;
    // the system/permission_denied and the final's permission_denials are one denial.
    let t = claude_stream("mock-tool-deny-partial");
    let calls = to_json(&t.calls_summary());
    assert_eq!(calls["calls"].as_array().map(Vec::len), Some(1), "{calls}");
    assert_eq!(calls["calls"][0]["outcome"], "permission_denied");
    assert_eq!(
        calls["calls"][0]["arguments"],
        json!({"command": "touch created-by-tool.txt"})
    );
    let denials = to_json(&t.denials_summary());
    assert_eq!(
        denials["denials"].as_array().map(Vec::len),
        Some(1),
        "{denials}"
    );
    assert_eq!(denials["denials"][0]["tool"], "bash");

    // mock-max-turns: denied without partial messages; the final's denial names the same call.
    let t = claude_stream("mock-max-turns");
    assert_eq!(
        to_json(&t.calls_summary())["calls"][0]["outcome"],
        "permission_denied"
    );
    assert_eq!(
        to_json(&t.denials_summary())["denials"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );
}

/// The agent lines (`a2c`) of a recorded ACP transcript.
fn transcript(name: &str) -> Vec<String> {
    let text = std::fs::read_to_string(fixture(&format!(
        "../fake-cursor-agent/tests/fixtures/transcripts/{name}.jsonl"
    )))
    .expect("transcript");
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r["dir"] == "a2c")
        .map(|r| r["msg"].to_string())
        .collect()
}

#[test]
fn the_real_acp_transcripts_tool_calls_normalise() {
    let t = track(&Acp, transcript("testy-rust-sdk"));
    let calls = to_json(&t.calls_summary());
    let got: Vec<(&str, &str)> = calls["calls"]
        .as_array()
        .expect("calls")
        .iter()
        .map(|c| {
            (
                c["tool"].as_str().unwrap_or(""),
                c["outcome"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert!(got.contains(&("read", "ok")), "{calls}");
    assert!(got.contains(&("edit", "ok")), "{calls}");
    assert_eq!(
        calls["calls"][0]["arguments"],
        json!({"path": "/workspace"})
    );

    let t = track(&Acp, transcript("ts-sdk-0.12.0-example-agent-allow"));
    let calls = to_json(&t.calls_summary());
    let tools: Vec<&str> = calls["calls"]
        .as_array()
        .expect("calls")
        .iter()
        .filter_map(|c| c["tool"].as_str())
        .collect();
    assert_eq!(tools, ["read", "edit"], "{calls}");
    assert!(
        calls["calls"]
            .as_array()
            .expect("calls")
            .iter()
            .all(|c| c["outcome"] == "ok")
    );
}

/// One `session/update` line.
fn update(u: Value) -> String {
    json!({"jsonrpc": "2.0", "method": "session/update",
        "params": {"sessionId": "s", "update": u}})
    .to_string()
}

#[test]
fn cursors_documented_raw_input_shapes_normalise() {
    // Spike item 2: kinds read/search/execute/edit/other; rawInput {path}, {command},
    // {pattern, path}; edit and search start empty and are filled by an update; results read →
    // rawOutput.content, shell → rawOutput.{exitCode,stdout,stderr}, grep →
    // rawOutput.{totalMatches,truncated}; todos as kind other with rawInput._toolName
    // updateTodos; denied tools completed with no output; fetch asks as kind fetch
    // (web_fetch_0). C-LOOP-4: `_toolName` is left out of the arguments; a silent `completed` is
    // permission_denied for a read and ok for a todo; a nonzero exitCode is classed by stderr.
    let lines = vec![
        update(
            json!({"sessionUpdate": "tool_call", "toolCallId": "read_0", "kind": "read",
            "title": "Read a", "status": "pending", "rawInput": {"path": "/w/a"}}),
        ),
        update(
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "read_0",
            "status": "completed", "rawOutput": {"content": "x"}}),
        ),
        update(
            json!({"sessionUpdate": "tool_call", "toolCallId": "grep_0", "kind": "search",
            "title": "grep", "status": "pending", "rawInput": {}}),
        ),
        update(
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "grep_0",
            "status": "in_progress", "rawInput": {"pattern": "TODO", "path": "/w"}}),
        ),
        update(
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "grep_0",
            "status": "completed", "rawOutput": {"totalMatches": 2, "truncated": false}}),
        ),
        update(
            json!({"sessionUpdate": "tool_call", "toolCallId": "shell_0", "kind": "execute",
            "title": "`false`", "status": "pending", "rawInput": {"command": "false"}}),
        ),
        update(
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "shell_0",
            "status": "completed", "rawOutput": {"exitCode": 1, "stdout": "", "stderr": ""}}),
        ),
        update(
            json!({"sessionUpdate": "tool_call", "toolCallId": "todo_0", "kind": "other",
            "title": "Update todos", "status": "pending",
            "rawInput": {"_toolName": "updateTodos", "todos": [], "merge": false}}),
        ),
        update(
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "todo_0",
            "status": "completed"}),
        ),
        update(
            json!({"sessionUpdate": "tool_call", "toolCallId": "read_1", "kind": "read",
            "title": "Read secret", "status": "pending", "rawInput": {"path": "/w/secret"}}),
        ),
        update(
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "read_1",
            "status": "completed"}),
        ),
        update(
            json!({"sessionUpdate": "tool_call", "toolCallId": "web_fetch_0", "kind": "fetch",
            "title": "Fetch", "status": "pending", "rawInput": {"url": "https://x"}}),
        ),
        json!({"acp_client": "permission", "id": 0, "mode": "dontAsk",
            "tool_call_id": "web_fetch_0", "tool_kind": "fetch", "title": "Fetch",
            "offered": [], "selected": "reject-once", "selected_kind": "reject_once",
            "outcome": "selected", "reason": "dontAsk rejects"})
        .to_string(),
        update(
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "web_fetch_0",
            "status": "completed"}),
        ),
    ];
    let t = track(&Acp, lines);
    let calls = to_json(&t.calls_summary());
    let got: Vec<Value> = calls["calls"]
        .as_array()
        .expect("calls")
        .iter()
        .map(|c| json!([c["tool"], c["native_name"], c["arguments"], c["outcome"]]))
        .collect();
    assert_eq!(
        got,
        vec![
            json!(["read", "read", {"path": "/w/a"}, "ok"]),
            json!(["grep", "search", {"pattern": "TODO", "path": "/w"}, "ok"]),
            json!(["bash", "execute", {"command": "false"}, "tool_error"]),
            json!(["todo", "updateTodos", {"todos": [], "merge": false}, "ok"]),
            json!(["read", "read", {"path": "/w/secret"}, "permission_denied"]),
            json!(["fetch", "fetch", {"url": "https://x"}, "permission_denied"]),
        ]
    );
    assert_eq!(
        to_json(&t.denials_summary())["denials"],
        json!([{"call_id": "web_fetch_0", "tool": "fetch", "native_name": "fetch",
            "arguments": {"url": "https://x"}}])
    );
}

#[test]
fn claudes_recorded_json_schema_runs_carry_structured_output_or_a_refused_call() {
    // Recorded from the real 2.1.328 against the stand-in (`.cmd` beside each): with
    // `--json-schema` the model's StructuredOutput call becomes the final's structured_output;
    // a call claude refuses ("Output does not match required schema") is a validation failure
    // and the final has none.
    use cmk_engine::jsonout::Candidate;
    let final_of = |name: &str| -> Value {
        let text = std::fs::read_to_string(fixture(&format!(
            "tests/it/tools/fixtures/claude-streams/{name}.jsonl"
        )))
        .expect("fixture");
        text.lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|v| v["type"] == "result")
            .expect("a result")
    };
    let t = claude_stream("live-json-schema");
    let c = &to_json(&t.calls_summary())["calls"][0];
    assert_eq!(c["native_name"], "StructuredOutput");
    assert_eq!(
        c["tool"], "other",
        "an unknown tool keeps its native name under other"
    );
    assert_eq!(c["outcome"], "ok");
    assert_eq!(
        StreamJson.structured_candidate(&final_of("live-json-schema")),
        Candidate::Value(json!({"name": "standin", "count": 2}))
    );
    let t = claude_stream("live-json-schema-refused");
    assert_eq!(
        to_json(&t.calls_summary())["calls"][0]["outcome"],
        "validation_failed"
    );
    assert_eq!(
        StreamJson.structured_candidate(&final_of("live-json-schema-refused")),
        Candidate::Missing
    );
}
