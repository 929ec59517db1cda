//! ACP: the reference adapter's recording of a real agent turn (the TypeScript SDK's example
//! agent, `recordings/acp/real-ts-example-agent.jsonl`) replays clean against that agent with
//! `--side adapter-acp`: the client's lines are the adapter's, the agent's session id is mapped
//! (the built-in `acp-session-id` rule), and its permission request is answered under the
//! agent's id.

use std::path::Path;

use serde_json::Value;

use crate::support::{run, show};

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn the_real_ts_example_agent_turn_replays_clean() {
    let cmd = testkit::require_prereq!(testkit::prereq::acp_ts_example_agent());
    let agent: Vec<String> = testkit::prereq::argv(&cmd)
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let golden =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../recordings/acp/real-ts-example-agent.jsonl");
    let o = run(
        &golden,
        &["--side", "adapter-acp", "--format", "json"],
        &agent,
    );
    assert_eq!(o.status.code(), Some(0), "{}", show(&o));
    let report: Value = serde_json::from_slice(&o.stdout).expect("json");
    assert!(
        report["rules_fired"]["acp-session-id"].as_u64() > Some(0),
        "{report}"
    );
}

/// Whether the recording so far holds the agent's answer to `session/prompt`.
fn prompt_answered(path: &Path) -> bool {
    let Ok(rec) = mcp_replay::recording::Recording::load(path) else {
        return false;
    };
    let prompts: Vec<&Value> = rec
        .dir("c2s")
        .filter_map(|r| r.msg())
        .filter(|m| m["method"] == "session/prompt")
        .filter_map(|m| m.get("id"))
        .collect();
    rec.dir("s2c")
        .filter_map(|r| r.msg())
        .any(|m| m.get("method").is_none() && m.get("id").is_some_and(|id| prompts.contains(&id)))
}

/// Records a real ACP session through the proxy: the ACP Python SDK's example client (a real
/// client) prompting the TypeScript SDK's example agent (a real agent), both pinned by testkit.
/// The client refuses the agent's permission request (`-32601`, it implements none), so the
/// agent ends the turn with an error: a real, deterministic exchange either way.
fn record_ts_agent_session(out: &Path, agent: &[String]) -> bool {
    let Some(mut client) = testkit::prereq::require(testkit::prereq::acp_python_example_client())
    else {
        return false;
    };
    let mut child = client
        .arg(crate::support::bin())
        .args(["record", "--out"])
        .arg(out)
        .arg("--")
        .args(agent)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("start the example client");
    {
        use std::io::Write as _;
        let mut stdin = child.stdin.take().expect("stdin");
        writeln!(stdin, "Hello").expect("prompt");
        // The client sends its prompt and waits for the turn; EOF ends it after the turn.
        let wait_turn = std::time::Instant::now();
        let rec_done =
            |p: &Path| std::fs::read_to_string(p).is_ok_and(|t| t.contains("\"stopReason\""));
        while !rec_done(out) && wait_turn.elapsed() < crate::support::BOUND {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
    let o = child.wait_with_output().expect("client");
    assert!(
        prompt_answered(out),
        "the turn ended: {}",
        String::from_utf8_lossy(&o.stdout)
    );
    true
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn a_fresh_proxy_recording_of_a_real_acp_turn_replays_clean_and_a_changed_chunk_is_named() {
    let cmd = testkit::require_prereq!(testkit::prereq::acp_ts_example_agent());
    let agent: Vec<String> = testkit::prereq::argv(&cmd)
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let dir = tempfile::tempdir().expect("tempdir");
    let golden = dir.path().join("acp.jsonl");
    if !record_ts_agent_session(&golden, &agent) {
        return;
    }
    let o = run(&golden, &["--format", "json"], &agent);
    assert_eq!(o.status.code(), Some(0), "{}", show(&o));

    let mut variant = vec![
        crate::support::example("mutate").display().to_string(),
        "help you with that".to_owned(),
        "help you with this".to_owned(),
        "--".to_owned(),
    ];
    variant.extend(agent);
    let o = run(&golden, &["--format", "json"], &variant);
    assert_eq!(o.status.code(), Some(1), "{}", show(&o));
    let report: Value = serde_json::from_slice(&o.stdout).expect("json");
    let positions: Vec<&str> = report["differences"]
        .as_array()
        .expect("differences")
        .iter()
        .filter_map(|d| d["position"].as_str())
        .collect();
    assert_eq!(
        positions,
        ["s2c notifications (notifications/progress by kind only)"],
        "{report}"
    );
    assert!(
        report["differences"][0]["diff"]
            .as_str()
            .expect("diff")
            .contains("help you with this")
    );
}

/// The issue's own case: the adapter's recording of a real agent turn of
/// `@zed-industries/claude-agent-acp` (Claude Code behind the Claude Agent SDK), its model turns
/// against the Messages API stand-in (`tool` scenario), replays clean against that agent: the
/// session id, the stand-in's ids and Claude Code's permission request are mapped.
#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn the_real_claude_agent_acp_turn_replays_clean_against_the_standin() {
    let _ = testkit::require_prereq!(testkit::prereq::acp_claude_agent_entry());
    let standin = testkit::standin::Standin::start(testkit::standin::Scenario::Tool)
        .expect("start the stand-in");
    let home = tempfile::tempdir().expect("home");
    let cmd =
        testkit::prereq::acp_claude_agent(&standin.base_url(), home.path()).expect("installed");
    let golden =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../recordings/acp/real-claude-agent-acp.jsonl");
    let mut replay = std::process::Command::new(crate::support::bin());
    replay
        .arg("run")
        .arg(&golden)
        .args([
            "--side",
            "adapter-acp",
            "--wait-ms",
            "60000",
            "--format",
            "json",
            "--",
        ])
        .args(testkit::prereq::argv(&cmd));
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => replay.env(k, v),
            None => replay.env_remove(k),
        };
    }
    let o = replay.output().expect("run mcp-replay");
    assert_eq!(o.status.code(), Some(0), "{}", show(&o));
    let report: Value = serde_json::from_slice(&o.stdout).expect("json");
    assert!(
        report["rules_fired"]["stand-in-id"].as_u64() > Some(0),
        "{report}"
    );
    assert!(
        !standin.messages_requests().is_empty(),
        "the agent's model turns reached the stand-in"
    );
}
