//! ACP agent mode's containment of what the runner itself starts for an agent: a terminal
//! (`terminal/create`) dies with the runner even when the runner is `SIGKILL`ed right after it
//! started it (C-SUP-5).

use std::process::{Command, Stdio};

use serde_json::json;

use crate::acp_agents::fake_cursor_agent;

/// A fake Cursor scenario whose turn, when `terminal` is advertised, asks for one terminal
/// running `argv`.
fn terminal_scenario(argv: &[String]) -> serde_json::Value {
    let (command, args) = argv.split_first().expect("a command");
    json!({
        "kind": "injection",
        "description": "acp-conformance test: terminal/create of the C-SUP-5 probe, then end_turn",
        "source": "injection",
        "steps": [
            {"capability": {"terminal": [
                {"request": {
                    "method": "terminal/create",
                    "params": {
                        "sessionId": "{{session_id}}",
                        "command": command,
                        "args": args,
                        "cwd": "{{cwd}}"
                    },
                    "on": {"*": []}
                }}
            ], "*": []}},
            {"answer": {"stopReason": "end_turn"}}
        ]
    })
}

#[test]
fn a_runner_killed_right_after_it_started_a_terminal_leaves_no_group() {
    // C-SUP-5: the terminal's command registers its group with the runner's lifeline before it
    // execs, so a runner killed at once (the command's first act) leaves nothing.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut round = 0;
    testkit::parent_kill::assert_parent_sigkill_leaves_no_group(
        "acp-conformance's terminal",
        |probe| {
            round += 1;
            let scenario = dir.path().join(format!("terminal-{round}.json"));
            std::fs::write(&scenario, terminal_scenario(&probe.argv()).to_string())
                .expect("write the scenario");
            Command::new(env!("CARGO_BIN_EXE_acp-conformance"))
                .args(["--case", "capabilities/terminal-requests", "--"])
                .arg(fake_cursor_agent())
                .arg("acp")
                .env("FAKE_CURSOR_SCENARIO", &scenario)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("the runner starts")
        },
    );
}
