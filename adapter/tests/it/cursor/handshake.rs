//! ACP-2 over stdio: what the handshake sends, its 10 s bound per step (a hang fails the run with
//! a protocol `native_error` and leaves nothing running, C-ACP-2), a slow but bounded handshake,
//! and an agent that is not logged in (never `authenticate`, never a retry). ACP-12: an
//! `initialize` answer that is not an `InitializeResponse` ends the run.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{Cursor, args, assert_group_gone, code};

/// A hung handshake step: the run fails in about the 10 s bound, with a protocol native error
/// naming the step, and the agent's group is gone.
fn hung_step_fails_within_its_bound(scenario: &str, step: &str) {
    let mut h = Cursor::new(scenario);
    let t0 = Instant::now();
    let (r, is_error) = h.run_within(json!({"prompt": "hello"}), Duration::from_secs(60));
    let took = t0.elapsed();
    assert!(is_error, "{r}");
    assert!(
        took >= Duration::from_secs(9),
        "ACP-2: the 10 s bound fired early, after {took:?}: {r}"
    );
    assert!(
        took < Duration::from_secs(25),
        "ACP-2: a hung {step} must fail in about 10 s, took {took:?}: {r}"
    );
    assert_eq!(r["state"], "failed", "{r}");
    assert_eq!(code(&r), "native_error", "{r}");
    assert_eq!(r["native_error"]["source"], "protocol", "C-ACP-2: {r}");
    let msg = r["native_error"]["message"].as_str().expect("message");
    assert!(
        msg.contains(step) && msg.contains("10"),
        "a clear error naming {step} and the bound: {msg}"
    );
    assert_eq!(r["final"], Value::Null);
    assert_eq!(r["cleanup_confirmed"], true, "{r}");
    assert_group_gone(h.agent_pgid());
    // Nothing after the hung step went out.
    assert_eq!(h.log.sent_method(step).len(), 1, "no retry of {step}");
    assert!(h.log.sent_method("session/prompt").is_empty());
}

#[test]
fn a_hung_initialize_fails_the_run_in_about_ten_seconds_and_leaves_nothing_running() {
    // ACP-2, C-ACP-2, SUP-3.
    hung_step_fails_within_its_bound("hang-initialize", "initialize");
}

#[test]
fn a_hung_session_new_fails_the_run_in_about_ten_seconds_and_leaves_nothing_running() {
    // ACP-2, C-ACP-2, SUP-3.
    hung_step_fails_within_its_bound("hang-session-new", "session/new");
}

#[test]
fn a_slow_handshake_within_the_bound_still_succeeds() {
    // ACP-2: session/new after ~3 s (the spike's worst) is within the 10 s bound.
    let mut h = Cursor::new("slow-handshake");
    let (r, is_error) = h.run(json!({"prompt": "hello"}));
    assert!(!is_error, "{r}");
    assert_eq!(r["state"], "succeeded", "{r}");
    assert_eq!(r["final"]["stopReason"], "end_turn");
}

#[test]
fn the_handshake_sends_initialize_then_session_new_with_the_documented_params() {
    // ACP-2, ACP-3: initialize {protocolVersion 1, no fs, no terminal, clientInfo}, then
    // session/new {cwd absolute, mcpServers []}, then session/prompt with one text block.
    let mut h = Cursor::new("default");
    let cwd = tempfile::tempdir().expect("cwd");
    let cwd_s = cwd.path().to_str().expect("utf-8").to_owned();
    let (r, _) = h.run(json!({"prompt": "hello there", "cwd": cwd_s}));
    assert_eq!(r["state"], "succeeded", "{r}");
    let sent = h.log.sent();
    let methods: Vec<&str> = sent.iter().filter_map(|m| m["method"].as_str()).collect();
    assert_eq!(
        &methods[..3],
        ["initialize", "session/new", "session/prompt"],
        "{methods:?}"
    );
    let init = &h.log.sent_method("initialize")[0];
    assert_eq!(init["jsonrpc"], "2.0");
    assert_eq!(init["params"]["protocolVersion"], 1);
    assert_eq!(
        init["params"]["clientCapabilities"],
        json!({"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false})
    );
    assert_eq!(init["params"]["clientInfo"]["name"], "claude-mcp-adapter");
    let new = &h.log.sent_method("session/new")[0];
    assert_eq!(new["params"], json!({"cwd": cwd_s, "mcpServers": []}));
    let prompt = &h.log.sent_method("session/prompt")[0];
    assert_eq!(
        prompt["params"]["prompt"],
        json!([{"type": "text", "text": "hello there"}])
    );
    assert_eq!(prompt["params"]["sessionId"], r["final"]["sessionId"]);
    assert_eq!(
        h.the_agent()["cwd"],
        cwd_s.as_str(),
        "the agent runs in the cwd"
    );
}

#[test]
fn an_agent_that_is_not_logged_in_fails_clearly_without_authenticate_or_a_retry() {
    // ACP-2, C-ACP-2: session/new answers -32000; the run fails saying so; nothing is retried
    // and `authenticate` is never sent (the log is checked when `h` drops, too).
    let mut h = Cursor::with("auth-required", |a| a.env_remove("CURSOR_API_KEY"));
    let (r, is_error) = h.run(args("default", json!({})));
    assert!(is_error, "{r}");
    assert_eq!(r["state"], "failed", "{r}");
    assert_eq!(code(&r), "native_error", "{r}");
    assert_eq!(r["native_error"]["source"], "protocol");
    let msg = r["native_error"]["message"].as_str().expect("message");
    assert!(msg.contains("not logged in"), "{msg}");
    assert!(msg.contains("-32000"), "the agent's error is kept: {msg}");
    // Cursor's agent (its `cursor_login` auth method): Cursor's own login is the fix.
    assert!(
        msg.contains("log in with `cursor-agent login` or set CURSOR_API_KEY"),
        "{msg}"
    );
    assert_eq!(h.the_agent()["env"]["CURSOR_API_KEY"], "unset");
    assert_eq!(h.log.sent_method("initialize").len(), 1);
    assert_eq!(h.log.sent_method("session/new").len(), 1, "no retry");
    assert!(h.log.sent_method("authenticate").is_empty());
    assert!(h.log.sent_method("session/prompt").is_empty());
    assert_eq!(r["cleanup_confirmed"], true);
    assert_group_gone(h.agent_pgid());
}

#[test]
fn the_users_cursor_api_key_passes_through_to_the_agent_and_never_into_argv() {
    // ACP-9: the environment passes through (so a key logs the agent in); argv never holds it.
    let mut h = Cursor::with("auth-required", |a| {
        a.env("CURSOR_API_KEY", "key-from-the-users-environment")
    });
    let (r, is_error) = h.run(args("default", json!({})));
    assert!(!is_error, "{r}");
    assert_eq!(r["state"], "succeeded", "{r}");
    let agent = h.the_agent();
    assert_eq!(agent["env"]["CURSOR_API_KEY"], "set");
    assert!(!agent["argv"].to_string().contains("key-from"), "{agent}");
}

#[test]
fn a_run_deadline_shorter_than_the_step_bound_wins_during_a_hung_handshake() {
    // RUN-7, ACP-2: timeout_s 2 ends a hung initialize as `timeout`, not after 10 s.
    let mut h = Cursor::new("hang-initialize");
    let t0 = Instant::now();
    let (r, is_error) = h.run(json!({"prompt": "hello", "timeout_s": 2}));
    assert!(is_error, "{r}");
    assert_eq!(r["state"], "timed_out", "{r}");
    assert_eq!(code(&r), "timeout", "{r}");
    assert!(
        t0.elapsed() < Duration::from_secs(9),
        "the 2 s deadline, not the 10 s step bound: {:?}",
        t0.elapsed()
    );
    assert_eq!(r["cleanup_confirmed"], true);
    assert_group_gone(h.agent_pgid());
}

/// An adapter whose agent is the `sh` script `body` (see [`super::script_agent`]).
fn scripted(body: &str) -> Cursor {
    let log = crate::support::FakeCursorLog::new();
    let script = super::script_agent(&log, "agent.sh", body);
    let mut h = Cursor::with("default", |a| a.arg("--cursor").arg(&script));
    // Keep the script's directory alive with the harness.
    h.log = log;
    h
}

#[test]
fn an_agent_that_dies_at_start_is_missing_final_with_its_stderr() {
    // C-ACP-2: it ends before answering initialize.
    let mut h = scripted("echo 'cursor-agent: cannot start: config unreadable' >&2; exit 3");
    let (r, is_error) = h.run(json!({"prompt": "hello"}));
    assert!(is_error, "{r}");
    assert_eq!(code(&r), "missing_final", "{r}");
    assert_eq!(r["native_error"]["source"], "stderr", "{r}");
    assert!(
        r["native_error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("config unreadable")),
        "{r}"
    );
    assert_eq!(r["cleanup_confirmed"], true);
}

#[test]
fn an_agent_that_closes_after_initialize_is_missing_final() {
    // C-ACP-2: it ends before answering session/new.
    let mut h = scripted(
        r#"read -r l
echo '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{}}}'
exit 0"#,
    );
    let (r, is_error) = h.run(json!({"prompt": "hello"}));
    assert!(is_error, "{r}");
    assert_eq!(code(&r), "missing_final", "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("session/new")),
        "names the step: {r}"
    );
}

#[test]
fn another_protocol_version_is_a_protocol_native_error() {
    // ACP-2, C-ACP-2: this client speaks protocol 1 only.
    let mut h = scripted(
        r#"read -r l
echo '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":2,"agentCapabilities":{}}}'
sleep 60"#,
    );
    let (r, is_error) = h.run(json!({"prompt": "hello"}));
    assert!(is_error, "{r}");
    assert_eq!(code(&r), "native_error", "{r}");
    assert_eq!(r["native_error"]["source"], "protocol", "{r}");
    assert!(
        r["native_error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("protocolVersion")),
        "{r}"
    );
    assert_eq!(r["cleanup_confirmed"], true);
}

#[test]
fn an_agent_that_is_not_cursors_gets_a_login_hint_in_its_own_name() {
    // The agent behind `--cursor` said who it is in `initialize` (agentInfo): the hint names it
    // and never sends the user to `cursor-agent login`.
    let dir = tempfile::tempdir().expect("temp dir");
    let rec = dir.path().join("codex-auth.jsonl");
    let rows = [
        json!({"dir": "c2a", "ms": 0, "msg": {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": 1, "clientCapabilities": {}, "clientInfo": {}}}}),
        json!({"dir": "a2c", "ms": 0, "msg": {"jsonrpc": "2.0", "id": 1, "result": {
            "protocolVersion": 1, "agentCapabilities": {"loadSession": false},
            "authMethods": [{"id": "openai-api-key", "name": "Use OPENAI_API_KEY"}],
            "agentInfo": {"name": "codex-acp", "title": "Codex", "version": "0.16.0"}}}}),
        json!({"dir": "c2a", "ms": 0, "msg": {"jsonrpc": "2.0", "id": 2, "method": "session/new",
            "params": {"cwd": "/tmp", "mcpServers": []}}}),
        json!({"dir": "a2c", "ms": 0, "msg": {"jsonrpc": "2.0", "id": 2,
            "error": {"code": -32000, "message": "Authentication required"}}}),
    ];
    let text: String = rows.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(&rec, text).expect("recording");
    let mut h = Cursor::with("default", |a| a.env("FAKE_CURSOR_REPLAY", &rec));
    let (r, is_error) = h.run(json!({"prompt": "hello", "cwd": "/tmp"}));
    assert!(is_error, "{r}");
    assert_eq!(code(&r), "native_error", "{r}");
    let msg = r["error"]["message"].as_str().expect("message");
    assert!(msg.contains("not logged in"), "{msg}");
    assert!(
        msg.contains("log in to \"Codex\" as that agent documents"),
        "{msg}"
    );
    assert!(!msg.contains("cursor-agent"), "{msg}");
}

#[test]
fn an_initialize_answer_that_is_not_an_initialize_response_is_a_protocol_native_error() {
    // ACP-12, C-ACP-2: a strict client: nothing but initialize is sent, no run succeeds on it.
    for (scenario, says) in [
        ("initialize-garbage", "a string"),
        ("initialize-empty", "protocolVersion"),
        ("initialize-no-version", "protocolVersion"),
    ] {
        let mut h = Cursor::new(scenario);
        let (r, is_error) = h.run(json!({"prompt": "hello"}));
        assert!(is_error, "{scenario}: {r}");
        assert_eq!(code(&r), "native_error", "{scenario}: {r}");
        assert_eq!(r["native_error"]["source"], "protocol", "{r}");
        let message = r["native_error"]["message"].as_str().expect("message");
        assert!(
            message.contains("initialize") && message.contains(says),
            "{scenario}: {message}"
        );
        let sent: Vec<Value> = h.log.sent().iter().map(|m| m["method"].clone()).collect();
        assert_eq!(sent, [json!("initialize")], "{scenario}");
        assert_eq!(r["cleanup_confirmed"], true);
    }
}
