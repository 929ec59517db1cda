//! Real ACP agents through `run_turn`: the TypeScript SDK's example agent
//! (`@agentclientprotocol/sdk` 0.12.0, `dist/examples/agent.js`) and the Python SDK's echo agent
//! (`agent-client-protocol` 0.12.1, `examples/echo_agent.py`), pinned by `testkit::prereq`.
//! Each runs in its own process group, killed at the end of the test, also on panic. With
//! `CI=true` a missing agent fails the test.

use std::process::Stdio;
use std::time::Duration;

use acp_client::{GenericPolicy, PermissionMode, TurnConfig, TurnOutcome, TurnReport, run_turn};
use tokio::io::AsyncReadExt;
use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio::sync::watch;

/// Whole-turn bound: the example agent takes about 5 s (1 s between steps).
const TURN_LIMIT: Duration = Duration::from_secs(240);

/// The agent's process group, killed on drop (panic included).
struct Group {
    child: Child,
    pid: u32,
}

impl Group {
    fn spawn(cmd: std::process::Command) -> (Group, ChildStdout, ChildStdin) {
        let mut cmd = tokio::process::Command::from(cmd);
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
            .kill_on_drop(true);
        let mut child = cmd.spawn().expect("the agent starts");
        let pid = child.id().expect("a running child has a pid");
        let stdout = child.stdout.take().expect("piped stdout");
        let stdin = child.stdin.take().expect("piped stdin");
        (Group { child, pid }, stdout, stdin)
    }

    /// Kills the group and reaps the agent.
    async fn end(mut self) {
        testkit::procs::kill_group(self.pid);
        let _ = tokio::time::timeout(Duration::from_secs(10), self.child.wait()).await;
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        testkit::procs::kill_group(self.pid);
    }
}

/// Runs one turn against `cmd`; `cancel_on` cancels once that text shows up in events.
async fn turn(
    cmd: std::process::Command,
    cfg: TurnConfig,
    cancel_on: Option<&'static str>,
) -> (TurnReport, String) {
    let (group, stdout, stdin) = Group::spawn(cmd);
    let (events_in, mut events_out) = tokio::io::duplex(64 * 1024);
    let (cancel_tx, cancel_rx) = watch::channel(false);
    let reader = tokio::spawn(async move {
        let mut all = Vec::new();
        let mut buf = [0u8; 8192];
        loop {
            match events_out.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => all.extend_from_slice(&buf[..n]),
            }
            if let Some(needle) = cancel_on
                && String::from_utf8_lossy(&all).contains(needle)
            {
                cancel_tx.send_replace(true);
            }
        }
        String::from_utf8_lossy(&all).into_owned()
    });
    let report = tokio::time::timeout(
        TURN_LIMIT,
        run_turn(stdout, stdin, events_in, &cfg, &GenericPolicy, cancel_rx),
    )
    .await
    .expect("the turn ended in time");
    let events = reader.await.expect("events reader");
    group.end().await;
    (report, events)
}

fn config(prompt: &str, mode: PermissionMode) -> TurnConfig {
    let dir = std::env::temp_dir();
    let mut cfg = TurnConfig::new(dir, prompt);
    cfg.permission_mode = mode;
    cfg.cancel_grace = Duration::from_secs(20);
    cfg
}

fn stop_reason(report: &TurnReport) -> &str {
    match &report.outcome {
        TurnOutcome::Completed { stop_reason, .. } => stop_reason,
        other => panic!("not completed: {other:?}"),
    }
}

#[tokio::test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
async fn ts_example_agent_edit_is_allowed_once_under_accept_edits() {
    let cmd = testkit::require_prereq!(testkit::prereq::acp_ts_example_agent());
    let (report, events) = turn(cmd, config("Hello", PermissionMode::AcceptEdits), None).await;
    assert_eq!(stop_reason(&report), "end_turn");
    let decision = &report.permission_decisions[0];
    assert_eq!(report.permission_decisions.len(), 1);
    assert_eq!(decision.tool_call_id.as_deref(), Some("call_2"));
    assert_eq!(decision.tool_kind.as_deref(), Some("edit"));
    assert_eq!(decision.selected.as_deref(), Some("allow"));
    assert_eq!(decision.selected_kind.as_deref(), Some("allow_once"));
    assert!(
        report.text.ends_with(
            " Perfect! I've successfully updated the configuration. The changes have been applied."
        ),
        "{}",
        report.text
    );
    assert!(report.text.starts_with("I'll help you with that."));
    assert_eq!(report.malformed_lines, 0);
    assert_eq!(report.unknown_updates, 0);
    assert!(events.contains(r#""acp_client":"permission""#));
    assert!(events.contains(r#""sessionUpdate":"tool_call_update""#));
}

#[tokio::test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
async fn ts_example_agent_advertises_no_modes_so_plan_fails_before_the_prompt() {
    // ACP-11: the example agent answers session/new with a sessionId only; plan would silently
    // do nothing there, so the turn ends before the prompt, naming no modes.
    let cmd = testkit::require_prereq!(testkit::prereq::acp_ts_example_agent());
    let (report, _) = turn(cmd, config("Hello", PermissionMode::Plan), None).await;
    assert_eq!(
        report.outcome,
        TurnOutcome::ModeUnavailable {
            mode: "plan",
            offered: vec![],
            error: None
        }
    );
    assert!(report.permission_decisions.is_empty());
    assert_eq!(report.text, "");
}

#[tokio::test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
async fn ts_example_agent_answers_a_cancel_with_stop_reason_cancelled() {
    let cmd = testkit::require_prereq!(testkit::prereq::acp_ts_example_agent());
    let (report, events) = turn(
        cmd,
        config("Hello", PermissionMode::DontAsk),
        Some(r#""sessionUpdate":"tool_call""#),
    )
    .await;
    assert_eq!(stop_reason(&report), "cancelled");
    assert!(events.contains(r#"{"acp_client":"cancel","sent":true}"#));
    assert!(
        report.permission_decisions.is_empty(),
        "cancelled before the edit"
    );
}

#[tokio::test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
async fn ts_example_agent_refuses_a_resume_it_does_not_advertise() {
    let cmd = testkit::require_prereq!(testkit::prereq::acp_ts_example_agent());
    let mut cfg = config("Hello", PermissionMode::DontAsk);
    cfg.resume_session_id = Some("0123".into());
    let (report, _) = turn(cmd, cfg, None).await;
    assert_eq!(report.outcome, TurnOutcome::ResumeUnsupported);
}

#[tokio::test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
async fn python_echo_agent_echoes_the_prompt_and_ends_the_turn() {
    let cmd = testkit::require_prereq!(testkit::prereq::acp_python_echo_agent());
    let (report, events) = turn(cmd, config("Hello echo", PermissionMode::DontAsk), None).await;
    assert_eq!(stop_reason(&report), "end_turn");
    assert_eq!(report.text, "Hello echo");
    assert_eq!(report.updates, 1);
    assert!(report.session_id.is_some());
    assert!(
        events.contains(r#""_meta":{"source":"echo_agent"}"#),
        "{events}"
    );
}

/// Handshake step bound for claude-agent-acp, whose `session/new` starts Claude Code.
const CLAUDE_AGENT_STEP: Duration = Duration::from_secs(90);

/// `@zed-industries/claude-agent-acp` 0.23.1 (Claude Code behind the Claude Agent SDK) pointed at
/// the local Messages API stand-in: a real agent running real model turns with no account.
fn claude_agent(
    standin: &testkit::standin::Standin,
    home: &std::path::Path,
) -> Option<std::process::Command> {
    testkit::prereq::require(testkit::prereq::acp_claude_agent(&standin.base_url(), home))
}

#[tokio::test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
async fn claude_agent_acp_completes_a_real_turn_against_the_standin() {
    // ACP-3, ACP-6 with a real agent and a real model turn (the stand-in is the model).
    let standin = testkit::standin::Standin::builder()
        .text("Hello from the stand-in")
        .start()
        .expect("stand-in");
    let home = tempfile::tempdir().expect("home");
    let Some(cmd) = claude_agent(&standin, home.path()) else {
        return;
    };
    let work = tempfile::tempdir().expect("work");
    let mut cfg = config("Say hi", PermissionMode::DontAsk);
    cfg.cwd = work.path().to_owned();
    // Claude Code starts in session/new (about 4 s unloaded; far more on a loaded 2-core
    // machine): this test is about the turn, not ACP-2's bound.
    cfg.step_timeout = CLAUDE_AGENT_STEP;
    let (report, events) = turn(cmd, cfg, None).await;
    assert_eq!(stop_reason(&report), "end_turn", "{report:?}");
    assert_eq!(report.text, "Hello from the stand-in");
    assert!(report.session_id.is_some());
    assert!(
        events.contains(r#""sessionUpdate":"usage_update""#),
        "{events}"
    );
    assert!(
        standin.messages_requests().iter().any(|r| r.is_main_loop()),
        "the agent's turn reached the stand-in"
    );
}

#[tokio::test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
async fn claude_agent_acp_asks_before_bash_and_a_dont_ask_rejection_keeps_it_from_running() {
    // ACP-4 with a real agent: the model asks for Bash, the agent asks permission with
    // allow_always / allow_once / reject_once, the client selects reject_once, and the command
    // never runs.
    let work = tempfile::tempdir().expect("work");
    let marker = work.path().join("ran");
    let standin = testkit::standin::Standin::builder()
        .scenario(testkit::standin::Scenario::Tool)
        .bash_command(format!("touch {}", marker.display()))
        .start()
        .expect("stand-in");
    let home = tempfile::tempdir().expect("home");
    let Some(cmd) = claude_agent(&standin, home.path()) else {
        return;
    };
    let mut cfg = config("Create the marker", PermissionMode::DontAsk);
    cfg.cwd = work.path().to_owned();
    cfg.step_timeout = CLAUDE_AGENT_STEP;
    let (report, events) = turn(cmd, cfg, None).await;
    assert_eq!(stop_reason(&report), "end_turn", "{report:?}");
    assert!(!report.permission_decisions.is_empty(), "{events}");
    for d in &report.permission_decisions {
        assert_eq!(d.selected_kind.as_deref(), Some("reject_once"), "{d:?}");
        assert!(
            d.offered.iter().any(|(_, kind)| kind == "allow_always"),
            "the agent offered allow_always, which is never taken: {d:?}"
        );
    }
    assert!(!marker.exists(), "the rejected command ran");
}
