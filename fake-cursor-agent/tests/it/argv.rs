//! argv and `--version` (ACP-9, FAKE-ACP-2): the pinned version line, global flags before `acp`, refusals.

use std::process::Stdio;

use serde_json::Value;

use crate::{Agent, command, crate_dir};

fn pinned() -> String {
    let tree = std::fs::read_to_string(crate_dir().join("../cursor-cli-tree.json")).expect("tree");
    let v: Value = serde_json::from_str(&tree).expect("json");
    v["version"]["line"].as_str().expect("line").to_owned()
}

#[test]
fn version_prints_the_pinned_line_of_cursor_cli_tree() {
    assert_eq!(pinned(), "2026.10.01-e373342");
    for flag in ["--version", "-v"] {
        assert_cmd::Command::from_std(command(&[flag]))
            .assert()
            .success()
            .stdout(format!("{}\n", pinned()));
    }
}

#[test]
fn unknown_options_are_refused_with_exit_1() {
    for args in [
        &["--bogus", "acp"][..],
        &["acp", "--cwd", "/tmp"],
        &["acp", "--verbose"],
    ] {
        let mut cmd = command(args);
        cmd.stdin(Stdio::null());
        assert_cmd::Command::from_std(cmd)
            .assert()
            .code(1)
            .stdout(predicates::str::is_empty())
            .stderr(predicates::str::starts_with("error: unknown option '"));
    }
}

#[test]
fn mode_and_allowed_tools_before_acp_are_accepted_and_ignored() {
    let mut agent = Agent::start_args(
        &[
            "--trust",
            "--mode",
            "plan",
            "--allowed-tools",
            "read_tool_call",
            "--model",
            "composer-2.5",
            "acp",
        ],
        &[],
    );
    let id = agent.request("initialize", crate::initialize_params());
    agent.until_answer(&id);
    let id = agent.request(
        "session/new",
        serde_json::json!({"cwd": "/w", "mcpServers": []}),
    );
    let answer = agent.until_answer(&id).pop().expect("answer");
    // --mode plan is ignored (spike item 1): the session starts in agent mode.
    assert_eq!(answer["result"]["modes"]["currentModeId"], "agent");
    // --model is honoured, composer-2.5 resolved as the real one resolves it.
    assert_eq!(
        answer["result"]["models"]["currentModelId"],
        "composer-2.5[fast=true]"
    );
}

#[test]
fn a_command_line_without_acp_is_the_fakes_own_error() {
    let out = command(&["--model", "m"])
        .stdin(Stdio::null())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
}
