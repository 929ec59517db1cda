//! The cursor provider against a real ACP agent nobody here wrote: `@zed-industries/claude-agent-acp`
//! 0.23.1 (Claude Code behind the Claude Agent SDK), pinned by testkit, running real model turns
//! against the local Messages API stand-in. The real `cursor-agent` cannot be installed here (it
//! is on no package registry), so the agent runs behind a version shim: a script that answers
//! `--version` with the pinned line (NAT-2) and otherwise runs the real agent, ignoring the
//! `acp` word. Everything after the version check is the real agent on the wire. The adapter's
//! own `--record` file proves what the client sent (ACP-2, ACP-4).
//!
//! Two vendors' agents, Zed's codex-acp 0.16.0 and Google's Gemini CLI 0.61.0, stand behind the
//! same shim without credentials: the handshake stops at their auth-required `session/new`.

use std::path::Path;

use serde_json::{Value, json};

use super::{Cursor, script_agent};

/// The shim: the pinned version for NAT-2, the real agent for everything else.
fn shim(log: &crate::support::FakeCursorLog, entry: &Path) -> std::path::PathBuf {
    let node = std::env::var("CMK_NODE").unwrap_or_else(|_| "node".into());
    script_agent(
        log,
        "claude-agent-acp-shim",
        // NAT-8: the adapter holds ANTHROPIC_API_KEY back from every agent behind
        // `--provider cursor`, so this agent's own configuration (the shim) supplies it.
        &format!(
            "ANTHROPIC_API_KEY=sk-ant-cmk-standin-dummy exec {node} {}",
            entry.display()
        ),
    )
}

/// The c2a rows of a `--record` file.
fn sent_to_agent(record: &Path) -> Vec<Value> {
    std::fs::read_to_string(record)
        .expect("the recording")
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("a JSON row"))
        .filter(|r| r["dir"] == "c2a")
        .map(|r| r["msg"].clone())
        .collect()
}

fn real_run(
    scenario: testkit::standin::Scenario,
    bash: &str,
    prompt: &str,
) -> Option<(Value, Vec<Value>, tempfile::TempDir)> {
    let entry = testkit::prereq::require(testkit::prereq::acp_claude_agent_entry())?;
    let standin = testkit::standin::Standin::builder()
        .scenario(scenario)
        .text("Hello from the stand-in")
        .bash_command(bash)
        .start()
        .expect("stand-in");
    let dir = tempfile::tempdir().expect("dir");
    let home = dir.path().join("home");
    let work = dir.path().join("work");
    std::fs::create_dir_all(&home).expect("home");
    std::fs::create_dir_all(&work).expect("work");
    let record = dir.path().join("record.jsonl");
    let log = crate::support::FakeCursorLog::new();
    let agent = shim(&log, &entry);
    let mut h = Cursor::with("default", |a| {
        a.args(["--cursor"])
            .args([agent.as_os_str()])
            .args(["--record"])
            .args([record.as_os_str()])
            // Claude Code starts in session/new: about 4 s unloaded, far more on a loaded
            // 2-core machine. This test is about the turn, not ACP-2's default bound.
            .args(["--acp-step-timeout-s", "90"])
            .env("ANTHROPIC_BASE_URL", standin.base_url())
            .env("HOME", &home)
            .env("IS_SANDBOX", "1")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_AUTOUPDATER", "1")
    });
    let (r, _) = h.run_within(
        json!({"prompt": prompt, "cwd": work.to_str(), "timeout_s": 300}),
        std::time::Duration::from_secs(320),
    );
    drop(h);
    let sent = sent_to_agent(&record);
    Some((r, sent, dir))
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn a_real_acp_agent_completes_a_cursor_run() {
    // PROV-2, ACP-2, ACP-3, ACP-6, ACP-7 with a real agent and a real model turn.
    let Some((r, sent, _dir)) = real_run(testkit::standin::Scenario::Text, "true", "Say hi") else {
        return;
    };
    assert_eq!(r["state"], "succeeded", "{r}");
    assert_eq!(r["final"]["stopReason"], "end_turn", "{r}");
    assert_eq!(r["final"]["text"], "Hello from the stand-in", "{r}");
    assert_eq!(r["final"]["sessionId"], r["native_session_id"], "{r}");
    assert_eq!(r["cleanup_confirmed"], true, "{r}");
    let methods: Vec<&str> = sent.iter().filter_map(|m| m["method"].as_str()).collect();
    assert_eq!(
        methods,
        ["initialize", "session/new", "session/prompt"],
        "{sent:?}"
    );
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn a_real_acp_agents_bash_request_is_rejected_once_and_the_command_never_runs() {
    // ACP-4: the real agent asks before Bash; dontAsk selects reject_once, never allow_always.
    let marker_dir = tempfile::tempdir().expect("marker dir");
    let marker = marker_dir.path().join("ran");
    let Some((r, sent, _dir)) = real_run(
        testkit::standin::Scenario::Tool,
        &format!("touch {}", marker.display()),
        "Create the marker",
    ) else {
        return;
    };
    assert_eq!(r["state"], "succeeded", "{r}");
    let answers: Vec<&Value> = sent
        .iter()
        .filter(|m| m["result"]["outcome"].is_object())
        .collect();
    assert!(!answers.is_empty(), "the agent asked permission: {sent:?}");
    for a in &answers {
        let id = a["result"]["outcome"]["optionId"]
            .as_str()
            .unwrap_or_default();
        assert!(!id.contains("always"), "ACP-4: {a}");
        assert_eq!(a["result"]["outcome"]["outcome"], "selected", "{a}");
    }
    assert!(sent.iter().all(|m| m["method"] != "authenticate"), "ACP-2");
    assert!(!marker.exists(), "the rejected command ran");
}

/// A shim that runs `cmd` (its environment, program and arguments), ignoring the `acp` word.
fn command_shim(
    log: &crate::support::FakeCursorLog,
    name: &str,
    cmd: &std::process::Command,
) -> std::path::PathBuf {
    let quote = |s: &std::ffi::OsStr| format!("'{}'", s.to_string_lossy().replace('\'', r"'\''"));
    let mut body = String::new();
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => body.push_str(&format!("export {}={}\n", k.to_string_lossy(), quote(v))),
            None => body.push_str(&format!("unset {}\n", k.to_string_lossy())),
        }
    }
    body.push_str(&format!("exec {}", quote(cmd.get_program())));
    for a in cmd.get_args() {
        body.push_str(&format!(" {}", quote(a)));
    }
    script_agent(log, name, &body)
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn vendor_acp_agents_without_an_account_get_a_login_hint_in_their_own_name() {
    // ACP-2: the handshake against real agents that need an account: initialize, session/new
    // answered -32000, never authenticate, a hint naming the agent (its agentInfo title).
    type Make = fn(&Path) -> Result<std::process::Command, testkit::prereq::PrereqError>;
    let agents: [(&str, Make, &str); 2] = [
        ("codex-acp", testkit::prereq::acp_codex, "Codex"),
        ("gemini-cli", testkit::prereq::acp_gemini_cli, "Gemini CLI"),
    ];
    for (name, make, title) in agents {
        let dir = tempfile::tempdir().expect("dir");
        let Some(cmd) = testkit::prereq::require(make(dir.path())) else {
            return;
        };
        let record = dir.path().join("record.jsonl");
        let log = crate::support::FakeCursorLog::new();
        let agent = command_shim(&log, name, &cmd);
        let mut h = Cursor::with("default", |a| {
            a.args(["--cursor"])
                .args([agent.as_os_str()])
                .args(["--record"])
                .args([record.as_os_str()])
                // Gemini CLI loads a 100 MB bundle: ~2 s unloaded, more on a loaded machine.
                .args(["--acp-step-timeout-s", "60"])
        });
        let (r, is_error) = h.run(json!({"prompt": "hello", "cwd": dir.path().to_str()}));
        drop(h);
        assert!(is_error, "{name}: {r}");
        assert_eq!(r["state"], "failed", "{name}: {r}");
        assert_eq!(r["native_error"]["source"], "protocol", "{name}: {r}");
        let msg = r["error"]["message"].as_str().unwrap_or_default();
        assert!(msg.contains("not logged in"), "{name}: {msg}");
        assert!(
            msg.contains(&format!("log in to {title:?} as that agent documents")),
            "{name}: {msg}"
        );
        assert!(!msg.contains("cursor-agent"), "{name}: {msg}");
        assert_eq!(r["cleanup_confirmed"], true, "{name}: {r}");
        let sent = sent_to_agent(&record);
        let methods: Vec<&str> = sent.iter().filter_map(|m| m["method"].as_str()).collect();
        assert_eq!(methods, ["initialize", "session/new"], "{name}: {sent:?}");
    }
}
