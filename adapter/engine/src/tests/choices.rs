//! The engine's implementation choices that no other engine test reaches (the `C-*` ids of
//! `docs/contract.md`): where a start failure ranks, where `native_error` comes from, when a
//! structured output is judged, what an unbound or anonymous run carries, where a page
//! without a cursor starts, how long settling drains stdout and what a late cancel changes.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::dialect::Lines;
use super::sim::*;
use crate::driver::STDOUT_DRAIN;
use crate::ingest::Ingest;
use crate::native::Cleanup;
use crate::outcome::{Facts, classify};
use crate::to_json;
use crate::tools::{GuardConfig, ToolEvent, ToolOutcome, ToolTracker};
use crate::{ErrorCode, ToolError};
use cmk_supervisor::ExitStatus;

const FINAL: &str = r#"{"type":"result","subtype":"success","is_error":false,"session_id":"s","result":"{\"a\":1}"}"#;

fn fed(lines: &[&str]) -> Ingest {
    let mut ing = Ingest::new(1, None, Arc::new(Lines));
    for l in lines {
        ing.stdout(l.as_bytes());
        ing.stdout(b"\n");
    }
    ing.stdout_eof();
    ing
}

/// The primary error code of a run with these facts, every other cause of OUT-2 present too.
fn ranked(start_error: Option<ErrorCode>, cancelled: bool, timed_out: bool) -> &'static str {
    // Two finals (duplicate_final), a nonzero exit, a protocol failure: all ranked below a start
    // failure.
    let ing = fed(&[FINAL, FINAL]);
    let cleanup = Cleanup::nothing_started();
    classify(&Facts {
        cancelled,
        timed_out,
        timeout_s: 1,
        start_error: start_error.map(|c| ToolError::new(c, "before anything ran")),
        finals: &ing.sink.finals,
        stream_native_error: None,
        stderr_last_line: None,
        exit: Some(ExitStatus {
            code: Some(1),
            signal: None,
        }),
        cleanup: &cleanup,
        dialect: &Lines,
        protocol_error: Some(ToolError::new(ErrorCode::NativeError, "protocol")),
        loop_trip: None,
        json_schema: None,
    })
    .error
    .map_or("<none>", |e| e.code.as_str())
}

#[test]
fn start_failures_rank_right_after_cancelled_and_timeout() {
    // C-OUT-2: native_not_found, version_mismatch and spawn_failed come right after cancelled
    // and timeout, before everything else OUT-2 ranks.
    for (code, name) in [
        (ErrorCode::NativeNotFound, "native_not_found"),
        (ErrorCode::VersionMismatch, "version_mismatch"),
        (ErrorCode::SpawnFailed, "spawn_failed"),
    ] {
        assert_eq!(ranked(Some(code), false, false), name);
        assert_eq!(ranked(Some(code), false, true), "timeout", "{name}");
        assert_eq!(ranked(Some(code), true, true), "cancelled", "{name}");
    }
    assert_eq!(
        ranked(None, false, false),
        "native_error",
        "the protocol failure"
    );
}

#[test]
fn a_structured_output_is_judged_only_for_a_run_that_otherwise_succeeds() {
    // C-JSONOUT-1: a nonzero exit decides the run; the schema is not even looked at.
    let schema = json!({"type": "object", "required": ["b"]});
    let ing = fed(&[FINAL]);
    let cleanup = Cleanup::nothing_started();
    let facts = |code| Facts {
        cancelled: false,
        timed_out: false,
        timeout_s: 1,
        start_error: None,
        finals: &ing.sink.finals,
        stream_native_error: None,
        stderr_last_line: None,
        exit: Some(ExitStatus {
            code: Some(code),
            signal: None,
        }),
        cleanup: &cleanup,
        dialect: &Lines,
        protocol_error: None,
        loop_trip: None,
        json_schema: Some(&schema),
    };
    let failed = classify(&facts(1));
    assert_eq!(failed.error.map(|e| e.code), Some(ErrorCode::NonzeroExit));
    assert_eq!(failed.structured, None);
    let judged = classify(&facts(0));
    assert_eq!(
        judged.error.map(|e| e.code),
        Some(ErrorCode::InvalidStructuredOutput),
        "the same final with exit 0 is judged against the schema"
    );
}

#[tokio::test]
async fn native_error_is_the_finals_else_the_first_assistant_errors_else_stderrs() {
    // C-OUT-3, in that order of preference.
    let assistant = |e: &str| format!(r#"{{"type":"assistant","error":"{e}"}}"#);
    let error_final = r#"{"type":"result","subtype":"success","is_error":true,"session_id":"s","result":"from the final"}"#;
    let scripts = [
        (
            "final",
            vec![assistant("first"), error_final.to_owned()],
            ("from the final", "result"),
        ),
        (
            "assistant",
            vec![assistant("first"), assistant("second")],
            ("first", "assistant"),
        ),
        ("stderr", vec![INIT.to_owned()], ("Error: boom", "stderr")),
    ];
    let (e, _) = engine(
        scripts
            .iter()
            .map(|(name, lines, _)| {
                let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
                let mut s = Script::lines(&refs);
                s.steps.push(Step::Err(b"Error: boom\n".to_vec()));
                s.exit_code = 1;
                (*name, s)
            })
            .collect(),
    );
    for (name, _, (message, source)) in scripts {
        let id = e.start(req(name), None).expect("start");
        let r = settle(&e, &id).await;
        assert_eq!(
            r["native_error"],
            json!({"message": message, "source": source}),
            "{name}: {r}"
        );
    }
    // A clean exit without a native error blames nothing, stderr or not.
    let mut quiet = Script::lines(&[INIT, OK_FINAL]);
    quiet.steps.push(Step::Err(b"Error: noise\n".to_vec()));
    let (e, _) = engine(vec![("quiet", quiet)]);
    let id = e.start(req("quiet"), None).expect("start");
    assert_eq!(settle(&e, &id).await["native_error"], Value::Null);
}

#[tokio::test]
async fn unknown_session_ids_and_unbound_runs_are_null_not_absent() {
    // C-RUN-4: `native_session_id` and `acquired_by` are `null` in list entries and results.
    let (e, _) = engine(vec![("anonymous", Script::lines(&[]))]);
    let id = e.start(req("anonymous"), None).expect("start");
    let r = settle(&e, &id).await;
    assert_eq!(code(&r), "missing_final", "{r}");
    assert_eq!(r.get("native_session_id"), Some(&Value::Null), "{r}");
    let list = to_json(&e.list());
    let entry = &list["runs"][0];
    assert_eq!(entry["run_id"], id.as_str(), "{list}");
    assert_eq!(entry.get("native_session_id"), Some(&Value::Null), "{list}");
    assert_eq!(entry.get("acquired_by"), Some(&Value::Null), "{list}");
}

#[tokio::test]
async fn a_page_without_a_cursor_starts_at_the_oldest_retained_event() {
    // C-RUN-3: after an overflow, a page without a cursor starts at the oldest event still held
    // and `missed_events` says how many were dropped before it.
    let lines: Vec<String> = (0..300)
        .map(|i| format!(r#"{{"type":"stream_event","i":{i}}}"#))
        .collect();
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let (e, _) = engine(vec![("many", Script::lines(&refs))]);
    let id = e.start(req("many"), None).expect("start");
    let r = settle(&e, &id).await;
    let dropped = r["events_dropped"].as_u64().expect("events_dropped");
    assert_eq!(dropped, 300 - 256, "{r}");
    let p = to_json(&e.events(&id, None, 1).expect("page"));
    assert_eq!(p["missed_events"], dropped, "{p}");
    assert_eq!(
        p["events"][0]["i"], dropped,
        "the oldest retained event: {p}"
    );
}

#[tokio::test(start_paused = true)]
async fn settling_drains_stdout_for_at_most_one_second_after_the_leader_is_reaped() {
    // C-SUP-4: a descendant that left the group holds stdout; it is not waited for.
    let mut s = Script::lines(&[INIT, OK_FINAL]);
    s.hold_stdout = true;
    let (e, _) = engine(vec![("escaped", s)]);
    let started = tokio::time::Instant::now();
    let id = e.start(req("escaped"), None).expect("start");
    let r = settle(&e, &id).await;
    assert_eq!(r["state"], "succeeded", "{r}");
    let took = started.elapsed();
    assert!(
        took >= STDOUT_DRAIN && took < STDOUT_DRAIN + Duration::from_millis(500),
        "settled after {took:?}"
    );
    assert_eq!(STDOUT_DRAIN, Duration::from_secs(1));
}

#[test]
fn a_loop_trip_fails_even_a_finished_run_but_a_cancel_that_came_first_wins() {
    // C-LOOP-2: a trip read after the exit (the drain) still fails the run with
    // `loop_detected`; a cancel that came first wins.
    let mut t = ToolTracker::new(GuardConfig::default());
    for i in 0..3 {
        let call_id = format!("{i}");
        t.apply(ToolEvent::Call {
            call_id: call_id.clone(),
            tool: Some("bash".into()),
            native_name: Some("Bash".into()),
            arguments: [("command".to_owned(), json!("false"))]
                .into_iter()
                .collect(),
        });
        t.apply(ToolEvent::Outcome {
            call_id,
            outcome: ToolOutcome::ToolError,
            no_output: false,
        });
    }
    let trip = t
        .take_new_trip()
        .expect("the third identical failure trips");
    let ing = fed(&[FINAL]);
    let cleanup = Cleanup::nothing_started();
    let facts = |cancelled| Facts {
        cancelled,
        timed_out: false,
        timeout_s: 1,
        start_error: None,
        finals: &ing.sink.finals,
        stream_native_error: None,
        stderr_last_line: None,
        exit: Some(ExitStatus {
            code: Some(0),
            signal: None,
        }),
        cleanup: &cleanup,
        dialect: &Lines,
        protocol_error: None,
        loop_trip: Some(&trip),
        json_schema: None,
    };
    let code = |o: crate::outcome::Outcome| o.error.map(|e| e.code);
    assert_eq!(code(classify(&facts(false))), Some(ErrorCode::LoopDetected));
    assert_eq!(code(classify(&facts(true))), Some(ErrorCode::Cancelled));
}

#[tokio::test(start_paused = true)]
async fn a_cancel_after_the_native_process_exited_changes_no_outcome() {
    // C-RUN-2: the leader exited with its final (an escaped descendant keeps stdout open, so the
    // run is still settling); a cancel now is answered but decides nothing.
    let mut s = Script::lines(&[INIT, OK_FINAL]);
    s.hold_stdout = true;
    let (e, _) = engine(vec![("exited", s)]);
    let id = e.start(req("exited"), None).expect("start");
    let mut state = e.table.get(&id).expect("run").0.state.subscribe();
    let seen = *state
        .wait_for(|s| *s == crate::RunState::Settling || s.is_settled())
        .await
        .expect("state");
    assert_eq!(
        seen,
        crate::RunState::Settling,
        "the drain holds the run settling"
    );
    let c = to_json(&e.cancel(&id).expect("cancel"));
    assert_eq!(c["state"], "settling", "{c}");
    let r = settle(&e, &id).await;
    assert_eq!(r["state"], "succeeded", "{r}");
    assert_eq!(r["error"], Value::Null, "{r}");
}
