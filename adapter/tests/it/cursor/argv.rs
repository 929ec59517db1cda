//! ACP-9 over stdio: `cursor-agent [--model M] acp` with global flags before `acp`, the
//! `--version` assertion before each run (NAT-2: `version_mismatch`, `native_not_found`), and the
//! agent's environment (`BROWSER=/bin/true`, `NO_OPEN_BROWSER=1`, the rest passed through).
//! ACP-12: a `model` that begins with `-` never reaches argv.

use std::os::unix::fs::PermissionsExt;

use serde_json::json;

use super::{Cursor, code};
use crate::support::fake_cursor_bin;

/// The agent's arguments (the fake logs them without argv[0]).
fn args_of(agent: &serde_json::Value) -> Vec<String> {
    agent["argv"]
        .as_array()
        .expect("argv")
        .iter()
        .map(|a| a.as_str().expect("str").to_owned())
        .collect()
}

#[test]
fn model_goes_before_acp_and_the_prompt_is_never_in_argv() {
    // ACP-9.
    let mut h = Cursor::new("default");
    let (r, _) = h.run(json!({"prompt": "secret prompt text", "model": "composer-2.5"}));
    assert_eq!(r["state"], "succeeded", "{r}");
    let agent = h.the_agent();
    assert_eq!(
        args_of(&agent),
        ["--model", "composer-2.5", "acp"],
        "{agent}"
    );
    assert!(!agent["argv"].to_string().contains("secret prompt"));
}

#[test]
fn without_options_the_argv_is_just_acp_after_a_version_check() {
    // ACP-9, NAT-2: `cursor-agent --version` runs before the agent.
    let mut h = Cursor::new("default");
    let (r, _) = h.run(json!({"prompt": "hello"}));
    assert_eq!(r["state"], "succeeded", "{r}");
    assert_eq!(args_of(&h.the_agent()), ["acp"]);
    let records = h.log.records();
    let version_at = records
        .iter()
        .position(|r| r["event"] == "start" && r["argv"] == json!(["--version"]))
        .expect("a --version check");
    let agent_at = records
        .iter()
        .position(|r| {
            r["event"] == "start"
                && r["argv"]
                    .as_array()
                    .is_some_and(|a| a.iter().any(|x| x == "acp"))
        })
        .expect("the agent");
    assert!(version_at < agent_at);
}

#[test]
fn the_agent_never_opens_a_login_page_and_gets_the_users_environment() {
    // ACP-9, NAT-8: BROWSER and NO_OPEN_BROWSER are forced; other variables pass through.
    let mut h = Cursor::with("default", |a| {
        a.env("BROWSER", "firefox")
            .env("NO_OPEN_BROWSER", "0")
            .env("CURSOR_IT_MARKER", "1")
    });
    let (r, _) = h.run(json!({"prompt": "hello"}));
    assert_eq!(r["state"], "succeeded", "{r}");
    let env = &h.the_agent()["env"];
    assert_eq!(env["BROWSER"], "/bin/true", "{env}");
    assert_eq!(env["NO_OPEN_BROWSER"], "1", "{env}");
    let names = env["names"].as_array().expect("names");
    assert!(names.contains(&json!("CURSOR_IT_MARKER")), "{env}");
    assert_eq!(
        names.iter().filter(|n| *n == "BROWSER").count(),
        1,
        "one BROWSER: {env}"
    );
}

#[test]
fn an_explicit_cursor_path_is_used() {
    // ACP-9: `--cursor PATH` instead of PATH lookup.
    let mut h = Cursor::with("default", |a| {
        a.arg("--cursor")
            .arg(fake_cursor_bin())
            .env("PATH", "/usr/bin:/bin")
    });
    let (r, is_error) = h.run(json!({"prompt": "hello"}));
    assert!(!is_error, "{r}");
    assert_eq!(r["state"], "succeeded", "{r}");
    assert_eq!(args_of(&h.the_agent()), ["acp"]);
}

#[test]
fn another_version_is_version_mismatch_and_no_agent_starts() {
    // ACP-9, NAT-2.
    let dir = tempfile::tempdir().expect("dir");
    let script = dir.path().join("cursor-agent");
    std::fs::write(&script, "#!/bin/sh\necho 2025.01.01-0000000\n").expect("script");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let mut h = Cursor::with("default", |a| a.arg("--cursor").arg(&script));
    let (r, is_error) = h.run(json!({"prompt": "hello"}));
    assert!(is_error, "{r}");
    assert_eq!(code(&r), "version_mismatch", "{r}");
    let msg = r["error"]["message"].as_str().expect("message");
    assert!(msg.contains("2025.01.01-0000000"), "{msg}");
    assert!(msg.contains("2026.10.01-e373342"), "{msg}");
    assert!(h.log.records().is_empty(), "the fake never ran");
}

#[test]
fn a_missing_binary_is_native_not_found() {
    // NAT-2.
    let mut h = Cursor::with("default", |a| {
        a.arg("--cursor").arg("/nonexistent/dir/cursor-agent")
    });
    let (r, is_error) = h.run(json!({"prompt": "hello"}));
    assert!(is_error, "{r}");
    assert_eq!(code(&r), "native_not_found", "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("name its executable with --cursor PATH")),
        "the message names the fix: {r}"
    );
    // And by PATH lookup, with no cursor-agent on PATH.
    let mut h = Cursor::with("default", |a| a.env("PATH", "/usr/bin:/bin"));
    let (r, is_error) = h.run(json!({"prompt": "hello"}));
    assert!(is_error, "{r}");
    assert_eq!(code(&r), "native_not_found", "{r}");
}

#[test]
fn the_agent_never_gets_anthropics_keys_and_env_deny_holds_back_more() {
    // NAT-8: Anthropic's key, auth token and Claude Code's OAuth token are claude's; CURSOR_API_KEY
    // is the agent's own; `--env-deny` holds back more (the version check included).
    let mut h = Cursor::with("default", |a| {
        a.env("ANTHROPIC_API_KEY", "claude-secret")
            .env("ANTHROPIC_AUTH_TOKEN", "claude-secret")
            .env("CLAUDE_CODE_OAUTH_TOKEN", "claude-secret")
            .env("CURSOR_API_KEY", "kept")
            .env("MY_TOKEN_A", "held")
            .args(["--env-deny", "MY_TOKEN_*"])
    });
    let (r, _) = h.run(json!({"prompt": "hello"}));
    assert_eq!(r["state"], "succeeded", "{r}");
    let starts = h.log.agent_starts();
    let checks = h.log.version_checks();
    assert_eq!((starts.len(), checks.len()), (1, 1));
    for rec in starts.iter().chain(&checks) {
        let env = &rec["env"];
        let names = env["names"].as_array().expect("names");
        for gone in [
            "ANTHROPIC_API_KEY",
            "ANTHROPIC_AUTH_TOKEN",
            "CLAUDE_CODE_OAUTH_TOKEN",
            "MY_TOKEN_A",
        ] {
            assert!(
                !names.contains(&json!(gone)),
                "{gone} reached the agent: {env}"
            );
        }
        assert_eq!(env["CURSOR_API_KEY"], "set", "{env}");
    }
}

#[test]
fn a_model_that_begins_with_a_dash_is_refused_before_any_agent_starts() {
    // ACP-12, TOOL-2: never a flag in the value's place (`--model --api-key`).
    let mut h = Cursor::new("default");
    for model in ["--dangerously-skip-permissions", "--api-key", "-f"] {
        let (r, is_error) = h.run(json!({"prompt": "hello", "model": model}));
        assert!(is_error, "{model}: {r}");
        assert_eq!(code(&r), "invalid_arguments", "{model}: {r}");
        assert_eq!(r["error"]["field"], "/model", "{model}: {r}");
    }
    assert_eq!(
        h.log.agent_starts(),
        Vec::<serde_json::Value>::new(),
        "no agent ran"
    );
}
