//! TOOLCALL-3/4 and LOOP-1..4 on the tracker alone.

use crate::to_json;
use serde_json::{Map, Value, json};

use super::*;

fn args(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => panic!("object"),
    }
}

fn call(t: &mut ToolTracker, id: &str, tool: &str, a: Value, outcome: ToolOutcome) {
    t.apply(ToolEvent::Call {
        call_id: id.into(),
        tool: Some(tool.into()),
        native_name: Some(tool.to_uppercase()),
        arguments: args(a),
    });
    t.apply(ToolEvent::Outcome {
        call_id: id.into(),
        outcome,
        no_output: false,
    });
}

#[test]
fn the_same_failing_call_trips_at_exactly_limit_plus_one() {
    // LOOP-1: seen more than the strict limit.
    for limit in [2, 3, 5] {
        let mut t = ToolTracker::new(GuardConfig {
            enabled: true,
            limit,
        });
        for i in 0..limit {
            call(
                &mut t,
                &format!("c{i}"),
                "bash",
                json!({"command": "false"}),
                ToolOutcome::ToolError,
            );
            assert!(t.take_new_trip().is_none(), "limit {limit}, call {i}");
        }
        call(
            &mut t,
            "last",
            "bash",
            json!({"command": "false"}),
            ToolOutcome::ToolError,
        );
        let trip = t.take_new_trip().expect("tripped");
        assert_eq!(trip.count, limit + 1);
        assert_eq!(trip.kind, "strict");
        assert_eq!(trip.call_ids.len(), limit as usize + 1);
        assert_eq!(trip.call_ids.last().map(String::as_str), Some("last"));
        assert_eq!(
            to_json(&trip.fingerprint()),
            json!({"kind": "strict", "tool": "bash", "arguments": {"command": "false"}, "outcome": "tool_error"})
        );
        assert!(t.take_new_trip().is_none(), "the trip is reported once");
        assert_eq!(to_json(&t.guard_summary())["tripped"]["count"], limit + 1);
    }
}

#[test]
fn argument_order_does_not_change_the_fingerprint_but_the_outcome_does() {
    let mut t = ToolTracker::new(GuardConfig::default());
    call(
        &mut t,
        "1",
        "grep",
        json!({"pattern": "x", "path": "/a"}),
        ToolOutcome::Ok,
    );
    call(
        &mut t,
        "2",
        "grep",
        json!({"path": "/a", "pattern": "x"}),
        ToolOutcome::ToolError,
    );
    call(
        &mut t,
        "3",
        "grep",
        json!({"path": "/a", "pattern": "x"}),
        ToolOutcome::Ok,
    );
    assert!(t.take_new_trip().is_none());
    call(
        &mut t,
        "4",
        "grep",
        json!({"path": "/a", "pattern": "x"}),
        ToolOutcome::Ok,
    );
    assert_eq!(
        t.take_new_trip().expect("tripped").call_ids,
        ["1", "3", "4"]
    );
}

#[test]
fn many_distinct_reads_never_trip_but_many_missing_paths_do() {
    // LOOP-2; C-LOOP-1: the coarse count is of outcomes other than `ok`, limit `loop_limit × 8`.
    let mut t = ToolTracker::new(GuardConfig::default());
    for i in 0..500 {
        call(
            &mut t,
            &format!("r{i}"),
            "read",
            json!({"path": format!("/src/f{i}.rs")}),
            ToolOutcome::Ok,
        );
    }
    assert!(t.take_new_trip().is_none());
    let coarse = 2 * COARSE_FACTOR;
    assert_eq!(coarse, 16, "C-LOOP-1: loop_limit × 8, 16 by default");
    for i in 0..coarse {
        call(
            &mut t,
            &format!("m{i}"),
            "read",
            json!({"path": format!("/nope/{i}")}),
            ToolOutcome::MissingPath,
        );
    }
    assert!(t.take_new_trip().is_none());
    call(
        &mut t,
        "m-last",
        "read",
        json!({"path": "/nope/x"}),
        ToolOutcome::MissingPath,
    );
    let trip = t.take_new_trip().expect("coarse trip");
    assert_eq!(trip.kind, "coarse");
    assert_eq!(trip.count, coarse + 1);
    assert_eq!(to_json(&trip.fingerprint())["arguments"], Value::Null);
    // Bounded summary: 256 kept, the rest counted.
    let calls = to_json(&t.calls_summary());
    assert_eq!(
        calls["calls"].as_array().map(Vec::len),
        Some(TOOL_CALLS_MAX)
    );
    assert_eq!(
        calls["left_out"],
        500 + u64::from(coarse) + 1 - TOOL_CALLS_MAX as u64
    );
}

#[test]
fn the_same_missing_path_read_again_trips_strictly() {
    let mut t = ToolTracker::new(GuardConfig::default());
    for i in 0..3 {
        call(
            &mut t,
            &format!("{i}"),
            "read",
            json!({"path": "/x"}),
            ToolOutcome::MissingPath,
        );
    }
    assert_eq!(t.take_new_trip().expect("trip").kind, "strict");
}

#[test]
fn a_disabled_guard_counts_but_never_trips() {
    // C-LOOP-2: with `loop_guard: "off"` calls are still normalised and counted, nothing trips.
    let mut t = ToolTracker::new(GuardConfig {
        enabled: false,
        limit: 2,
    });
    for i in 0..10 {
        call(
            &mut t,
            &format!("{i}"),
            "bash",
            json!({"command": "x"}),
            ToolOutcome::ToolError,
        );
    }
    assert!(t.take_new_trip().is_none());
    let g = to_json(&t.guard_summary());
    assert_eq!(g["enabled"], false);
    assert_eq!(g["highest"]["count"], 10);
    assert_eq!(g["tripped"], Value::Null);
}

#[test]
fn a_denial_marks_its_call_and_is_listed_once_with_the_calls_fields() {
    // TOOLCALL-3/4: one shape whatever the provider said.
    let mut t = ToolTracker::new(GuardConfig::default());
    t.apply(ToolEvent::Call {
        call_id: "t1".into(),
        tool: Some("bash".into()),
        native_name: Some("Bash".into()),
        arguments: args(json!({"command": "touch x"})),
    });
    for _ in 0..2 {
        t.apply(ToolEvent::Denied {
            call_id: Some("t1".into()),
            tool: None,
            native_name: None,
            arguments: None,
        });
    }
    t.apply(ToolEvent::Outcome {
        call_id: "t1".into(),
        outcome: ToolOutcome::ToolError,
        no_output: false,
    });
    assert_eq!(
        to_json(&t.denials_summary()),
        json!({"denials": [{"call_id": "t1", "tool": "bash", "native_name": "Bash",
            "arguments": {"command": "touch x"}}], "left_out": 0})
    );
    assert_eq!(
        to_json(&t.calls_summary())["calls"][0]["outcome"],
        "permission_denied"
    );
}

#[test]
fn calls_without_a_result_are_never_fingerprinted() {
    // C-LOOP-2: the guard is judged when a call's outcome is read.
    let mut t = ToolTracker::new(GuardConfig::default());
    for i in 0..10 {
        t.apply(ToolEvent::Call {
            call_id: format!("{i}"),
            tool: Some("bash".into()),
            native_name: Some("Bash".into()),
            arguments: args(json!({"command": "false"})),
        });
    }
    assert!(t.take_new_trip().is_none());
    assert_eq!(to_json(&t.guard_summary())["highest"], Value::Null);
}

#[test]
fn an_unknown_tool_is_other_and_a_call_without_result_is_unknown() {
    let mut t = ToolTracker::new(GuardConfig::default());
    t.apply(ToolEvent::Call {
        call_id: "x".into(),
        tool: Some("teleport".into()),
        native_name: Some("Teleport".into()),
        arguments: Map::new(),
    });
    let c = &to_json(&t.calls_summary())["calls"][0];
    assert_eq!(c["tool"], "other");
    assert_eq!(c["native_name"], "Teleport");
    assert_eq!(c["outcome"], "unknown");
}

#[test]
fn huge_arguments_are_cut_in_the_summary_but_fingerprinted_whole() {
    // C-LOOP-3: argument strings are cut at 512 bytes in the summary, hashed whole first.
    let mut t = ToolTracker::new(GuardConfig::default());
    let big = "é".repeat(10_000);
    call(
        &mut t,
        "a",
        "write",
        json!({"path": "/f", "content": big}),
        ToolOutcome::Ok,
    );
    let shown = to_json(&t.calls_summary())["calls"][0]["arguments"]["content"]
        .as_str()
        .map(str::len);
    assert_eq!(ARGUMENT_TEXT_MAX, 512, "C-LOOP-3");
    assert!(shown.is_some_and(|n| n <= ARGUMENT_TEXT_MAX), "{shown:?}");
    // Same prefix, different tail: different fingerprints.
    for (i, tail) in ["1", "2", "3"].iter().enumerate() {
        let content = format!("{}{tail}", "é".repeat(10_000));
        call(
            &mut t,
            &format!("b{i}"),
            "write",
            json!({"path": "/f", "content": content}),
            ToolOutcome::Ok,
        );
    }
    assert!(t.take_new_trip().is_none());
}

#[test]
fn an_update_fills_in_the_input_and_a_silent_completion_depends_on_the_tool() {
    // TOOLCALL-1/3: ACP's edit and search calls start with empty input; a denied read completes
    // with no output, a todo update completes with none and is fine.
    let mut t = ToolTracker::new(GuardConfig::default());
    for (id, tool) in [("g", "grep"), ("d", "todo")] {
        t.apply(ToolEvent::Call {
            call_id: id.into(),
            tool: Some(tool.into()),
            native_name: Some("search".into()),
            arguments: Map::new(),
        });
        t.apply(ToolEvent::Call {
            call_id: id.into(),
            tool: None,
            native_name: None,
            arguments: args(json!({"pattern": "TODO"})),
        });
        t.apply(ToolEvent::Outcome {
            call_id: id.into(),
            outcome: ToolOutcome::PermissionDenied,
            no_output: true,
        });
    }
    let calls = to_json(&t.calls_summary());
    assert_eq!(calls["calls"][0]["tool"], "grep");
    assert_eq!(calls["calls"][0]["arguments"], json!({"pattern": "TODO"}));
    assert_eq!(calls["calls"][0]["outcome"], "permission_denied");
    assert_eq!(calls["calls"][1]["outcome"], "ok");
}

#[test]
fn waiting_calls_and_strict_fingerprints_are_bounded() {
    // C-LOOP-3: at most 1024 calls wait for an outcome, at most 4096 distinct strict
    // fingerprints are counted, whatever the native process sends.
    assert_eq!((OPEN_MAX, FINGERPRINTS_MAX), (1024, 4096));
    let mut t = ToolTracker::new(GuardConfig::default());
    for i in 0..OPEN_MAX + 100 {
        t.apply(ToolEvent::Call {
            call_id: format!("w{i}"),
            tool: Some("bash".into()),
            native_name: Some("Bash".into()),
            arguments: args(json!({"command": format!("sleep {i}")})),
        });
    }
    assert_eq!(t.open.len(), OPEN_MAX);
    let mut t = ToolTracker::new(GuardConfig::default());
    for i in 0..FINGERPRINTS_MAX + 100 {
        call(
            &mut t,
            &format!("f{i}"),
            "bash",
            json!({"command": format!("false {i}")}),
            ToolOutcome::ToolError,
        );
    }
    assert_eq!(t.strict.len(), FINGERPRINTS_MAX);
    assert!(t.take_new_trip().is_none());
}
