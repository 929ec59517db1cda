//! OUT-1..5 over stdio: one primary error code per failure mode, the final as received, and the
//! `claude.run` isError rule (TOOL-5).

use serde_json::{Value, json};

use super::{Harness, args, code, split};

fn run(scenario: &str) -> (Value, bool) {
    let mut h = Harness::new();
    let r = h.run(args(scenario, json!({})));
    split(&r)
}

#[test]
fn a_successful_run_succeeds_with_the_final_as_received() {
    // OUT-1, RUN-4, RUN-11, OUT-4.
    let (r, is_error) = run("success");
    assert!(!is_error);
    assert_eq!(r["state"], "succeeded");
    assert_eq!(r["completed"], true);
    assert_eq!(r["is_error"], false);
    assert_eq!(r["error"], Value::Null);
    assert_eq!(r["cleanup_confirmed"], true);
    assert_eq!(r["exit_code"], 0);
    assert_eq!(r["final"]["type"], "result");
    assert_eq!(r["final"]["result"], "Hi there!");
    assert_eq!(r["native_session_id"], r["final"]["session_id"]);
    // Key order as the real CLI writes it: `duration_api_ms` first, `type` near the end.
    let keys: Vec<&String> = r["final"].as_object().expect("object").keys().collect();
    assert_eq!(keys[0], "duration_api_ms");
    let type_at = keys.iter().position(|k| *k == "type").expect("type");
    assert!(type_at > keys.len() / 2, "{keys:?}");
    let got: Vec<&str> = r
        .as_object()
        .expect("obj")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(got, cmk_contract::RESULT_FIELDS, "RUN-4's shape");
}

#[test]
fn success_then_a_nonzero_exit_is_nonzero_exit() {
    let (r, is_error) = run("nonzero-exit");
    assert!(is_error, "TOOL-5: claude.run of a failed run is isError");
    assert_eq!(code(&r), "nonzero_exit");
    assert_eq!(r["exit_code"], 3);
    assert_eq!(
        r["final"]["subtype"], "success",
        "OUT-3: the valid final stays visible"
    );
}

#[test]
fn no_result_event_is_missing_final() {
    let (r, _) = run("missing-final");
    assert_eq!(code(&r), "missing_final");
    assert_eq!(r["final"], Value::Null);
}

#[test]
fn two_result_events_are_duplicate_final_and_the_first_is_kept() {
    let (r, _) = run("duplicate-final");
    assert_eq!(code(&r), "duplicate_final");
    assert_eq!(r["state"], "failed");
    assert_eq!(r["final"]["result_index"], 0, "the first final is kept");
}

#[test]
fn a_result_line_that_is_not_json_is_malformed_final() {
    // C-OUT-1: cut short before its `type`, it carries `is_error`: malformed_final, not missing.
    let (r, _) = run("malformed-final");
    assert_eq!(code(&r), "malformed_final");
}

#[test]
fn a_final_without_session_id_is_malformed_final() {
    let (r, _) = run("final-without-session-id");
    assert_eq!(code(&r), "malformed_final");
}

#[test]
fn a_success_final_without_result_is_malformed_final() {
    let (r, _) = run("final-without-result");
    assert_eq!(code(&r), "malformed_final");
}

#[test]
fn success_with_is_error_true_is_a_native_error() {
    // The real API-error shape: subtype success, is_error true, exit 1.
    let (r, is_error) = run("is-error-success");
    assert!(is_error);
    assert_eq!(code(&r), "native_error");
    assert_eq!(r["native_error"]["source"], "result");
    assert_eq!(r["native_error"]["message"], r["final"]["result"]);
    assert_eq!(r["exit_code"], 1);
}

#[test]
fn not_logged_in_is_a_native_error() {
    let (r, _) = run("not-logged-in");
    assert_eq!(code(&r), "native_error");
    assert!(
        r["native_error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("Not logged in"))
    );
    // The final's `success` subtype is not the failure: the message shows only the cause.
    assert_eq!(
        r["error"]["message"], "the native run failed: Not logged in · Please run /login",
        "{r}"
    );
}

#[test]
fn an_error_subtype_without_result_is_a_native_error_not_malformed() {
    let (r, _) = run("error-subtype");
    assert_eq!(code(&r), "native_error");
    assert_eq!(r["final"]["subtype"], "error_max_turns");
    assert_eq!(
        r["native_error"]["message"],
        "Reached maximum number of turns (1)"
    );
}

#[test]
fn a_denied_tool_does_not_fail_the_run() {
    let (r, is_error) = run("tool-denied");
    assert!(!is_error);
    assert_eq!(r["state"], "succeeded");
    assert!(
        r["final"]["permission_denials"]
            .as_array()
            .is_some_and(|a| !a.is_empty())
    );
}

#[test]
fn hook_lines_before_init_are_ordinary_events() {
    // OUT-5.
    let mut h = Harness::new();
    let (r, _) = split(&h.run(args("hooks-before-init", json!({}))));
    assert_eq!(r["state"], "succeeded");
    let run_id = r["run_id"].as_str().expect("id").to_owned();
    let (page, _) = h.tool("claude.run.events", json!({"run_id": run_id, "limit": 3}));
    assert_eq!(page["events"][0]["type"], "system");
    assert_eq!(page["events"][0]["subtype"], "hook_started");
}

#[test]
fn stderr_noise_keeps_only_the_tail_and_does_not_fail_the_run() {
    // RUN-11.
    let (r, _) = run("stderr-noise");
    assert_eq!(r["state"], "succeeded");
    let tail = r["stderr_tail"].as_str().expect("tail");
    assert!(!tail.is_empty() && tail.len() <= 8 * 1024, "{}", tail.len());
    assert_eq!(r["native_error"], Value::Null);
}

#[test]
fn a_process_killed_mid_stream_is_missing_final_with_its_signal() {
    let (r, _) = run("die-by-signal");
    assert_eq!(code(&r), "missing_final");
    assert_eq!(r["signal"], 9);
    assert_eq!(r["exit_code"], Value::Null);
    assert_eq!(r["cleanup_confirmed"], true);
}

#[test]
fn an_unknown_resume_is_a_native_error_from_the_result() {
    let mut h = Harness::new();
    let r = h.run(args(
        "unknown-resume",
        json!({"resume_session_id": "99999999-2222-4333-8444-555555555555"}),
    ));
    let (r, _) = split(&r);
    assert_eq!(code(&r), "native_error");
    assert_eq!(r["final"]["subtype"], "error_during_execution");
}
