//! ACP-6 and C-ACP-2 over stdio: the `session/prompt` answer decides the outcome. `end_turn` is
//! success with `final = {stopReason, sessionId, text}`; other stop reasons and error answers are
//! protocol native errors (kept); an agent that ends before answering is `missing_final`; a
//! missing answer at the deadline is `timeout`. The exit status is not part of success: the
//! client kills the agent after every turn (ACP-7).

use std::time::Duration;

use serde_json::{Value, json};

use super::{Cursor, args, assert_group_gone, code};

#[test]
fn end_turn_succeeds_with_the_final_and_the_killed_agents_status_does_not_matter() {
    // ACP-6, ACP-7, RUN-11.
    let mut h = Cursor::new("default");
    let (r, is_error) = h.run(json!({"prompt": "hello"}));
    assert!(!is_error, "{r}");
    assert_eq!(r["state"], "succeeded", "{r}");
    assert_eq!(r["error"], Value::Null);
    assert_eq!(r["native_error"], Value::Null);
    assert_eq!(r["cleanup_confirmed"], true);
    let f = &r["final"];
    assert_eq!(
        f.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>()),
        Some(vec!["stopReason".into(), "sessionId".into(), "text".into()]),
        "RUN-11: exactly {{stopReason, sessionId, text}}: {f}"
    );
    assert_eq!(f["stopReason"], "end_turn");
    let session = f["sessionId"].as_str().expect("sessionId");
    assert_eq!(
        h.log.sent_method("session/prompt")[0]["params"]["sessionId"],
        session
    );
    assert_eq!(r["native_session_id"], session);
    assert!(!f["text"].as_str().expect("text").is_empty());
    // The fake never exits on EOF after a turn: the group was killed, and still it succeeded.
    assert!(
        r["signal"].is_u64(),
        "ACP-6: the agent was killed (signal set) and the run succeeded anyway: {r}"
    );
    assert_eq!(r["exit_code"], Value::Null);
    assert_group_gone(h.agent_pgid());
}

#[test]
fn the_final_text_is_the_concatenated_message_chunks() {
    // ACP-6.
    let mut h = Cursor::new("default");
    let (r, _) = h.run(args("unknown-update", json!({})));
    assert_eq!(r["final"]["text"], "Spawning a helper. Helper done.");
}

/// A failed run whose protocol native error keeps the stop reason, also kept in the
/// final.
fn stop_reason_fails(scenario: &str, reason: &str) {
    let mut h = Cursor::new("default");
    let (r, is_error) = h.run(args(scenario, json!({})));
    assert!(is_error, "{r}");
    assert_eq!(r["state"], "failed", "{r}");
    assert_eq!(code(&r), "native_error", "{r}");
    assert_eq!(r["native_error"]["source"], "protocol", "{r}");
    let msg = r["native_error"]["message"].as_str().expect("message");
    assert!(msg.contains(reason), "the stop reason is kept: {msg}");
    assert_eq!(
        r["final"]["stopReason"], reason,
        "the final as received: {r}"
    );
    assert_eq!(r["cleanup_confirmed"], true);
    assert_group_gone(h.agent_pgid());
}

#[test]
fn refusal_fails_with_a_native_error_keeping_the_stop_reason() {
    // ACP-6, C-ACP-2.
    stop_reason_fails("refusal", "refusal");
}

#[test]
fn max_tokens_fails_with_a_native_error_keeping_the_stop_reason() {
    // ACP-6, C-ACP-2.
    stop_reason_fails("max-tokens", "max_tokens");
}

#[test]
fn an_error_answer_to_session_prompt_is_a_native_error_keeping_the_error() {
    // ACP-6, C-ACP-2: -32603 with data.
    let mut h = Cursor::new("default");
    let (r, is_error) = h.run(args("prompt-error", json!({})));
    assert!(is_error, "{r}");
    assert_eq!(r["state"], "failed", "{r}");
    assert_eq!(code(&r), "native_error", "{r}");
    assert_eq!(r["native_error"]["source"], "protocol");
    let msg = r["native_error"]["message"].as_str().expect("message");
    for kept in ["-32603", "Internal error", "model provider unavailable"] {
        assert!(msg.contains(kept), "{kept} kept in: {msg}");
    }
    assert_eq!(r["final"], Value::Null);
    assert_group_gone(h.agent_pgid());
}

#[test]
fn a_crash_mid_turn_is_missing_final_with_the_stderr_line_as_native_error() {
    // ACP-6, C-ACP-2, RUN-11: the agent exits 1 before answering, after a stderr line.
    let mut h = Cursor::new("default");
    let (r, is_error) = h.run(args("crash-midturn", json!({})));
    assert!(is_error, "{r}");
    assert_eq!(r["state"], "failed", "{r}");
    assert_eq!(code(&r), "missing_final", "{r}");
    assert_eq!(r["final"], Value::Null);
    assert_eq!(r["native_error"]["source"], "stderr", "{r}");
    assert_eq!(r["native_error"]["message"], "fatal: agent crashed", "{r}");
    assert!(
        r["stderr_tail"]
            .as_str()
            .is_some_and(|s| s.contains("fatal: agent crashed")),
        "{r}"
    );
    assert_eq!(r["cleanup_confirmed"], true);
    assert_group_gone(h.agent_pgid());
}

#[test]
fn an_agent_killed_by_a_signal_mid_turn_is_missing_final() {
    // ACP-6, C-ACP-2.
    let mut h = Cursor::new("default");
    let (r, is_error) = h.run(args("die-by-signal", json!({})));
    assert!(is_error, "{r}");
    assert_eq!(code(&r), "missing_final", "{r}");
    assert_eq!(r["final"], Value::Null);
    assert_group_gone(h.agent_pgid());
}

#[test]
fn an_agent_that_exits_by_itself_after_end_turn_still_succeeds() {
    // ACP-6: the exit status (here 0, by the agent itself) is not part of success.
    let mut h = Cursor::new("default");
    let (r, is_error) = h.run(args("exit-after-turn", json!({})));
    assert!(!is_error, "{r}");
    assert_eq!(r["state"], "succeeded", "{r}");
    assert_group_gone(h.agent_pgid());
}

#[test]
fn a_prompt_never_answered_is_a_timeout_and_the_group_is_gone() {
    // ACP-6, RUN-7, SUP-3.
    let mut h = Cursor::new("default");
    let (r, is_error) = h.run_within(
        args("hang-midturn", json!({"timeout_s": 2})),
        Duration::from_secs(40),
    );
    assert!(is_error, "{r}");
    assert_eq!(r["state"], "timed_out", "{r}");
    assert_eq!(code(&r), "timeout", "{r}");
    assert_eq!(r["cleanup_confirmed"], true);
    assert_group_gone(h.agent_pgid());
}
