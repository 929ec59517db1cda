//! `claude-mcp-adapter cli-tree refresh` (NAT-1, NAT-2): after a CLI update, the installed CLI is
//! checked against everything the adapter uses from the pinned tree; when all of it holds, a
//! tree pinned to the new version is written where the adapter finds it without flags; when
//! something changed, it says what and writes nothing.

use std::path::Path;

use serde_json::json;

use super::drift::{CURSOR_HELP, FakeCli, HELP_2_1_328};
use super::{BOUND, adapter_exe};
use crate::support::Adapter;

const NEWER: &str = "2.1.329 (Claude Code)";

fn refresh(claude: &Path, config: &Path) -> std::process::Output {
    assert_cmd::Command::new(adapter_exe())
        .args(["cli-tree", "refresh", "--claude"])
        .arg(claude)
        .env("XDG_CONFIG_HOME", config)
        .timeout(BOUND)
        .output()
        .expect("run")
}

/// One `claude.run` through fake-claude reporting `NEWER`, with `config` as XDG_CONFIG_HOME.
fn run_with_newer_claude(config: &Path) -> serde_json::Value {
    let mut s = Adapter::new()
        .fake_claude()
        .env("FAKE_CLAUDE_VERSION", NEWER)
        .env("XDG_CONFIG_HOME", config)
        .spawn();
    s.init();
    let r = s.call_tool(
        "claude.run",
        json!({"prompt": "say hi", "cwd": "/tmp"}),
        None,
    );
    r["structuredContent"]["result"].clone()
}

#[test]
fn a_newer_claude_fails_naming_the_refresh_and_runs_after_it() {
    let config = tempfile::tempdir().expect("config dir");
    let r = run_with_newer_claude(config.path());
    assert_eq!(r["error"]["code"], "version_mismatch", "{r}");
    let message = r["error"]["message"].as_str().expect("message");
    assert!(
        message.contains("`claude-mcp-adapter cli-tree refresh --claude ")
            && message.contains("checks it against everything the adapter uses and pins it"),
        "{message}"
    );

    let fake = FakeCli::new(NEWER, HELP_2_1_328);
    let out = refresh(&fake.claude(), config.path());
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let written = config.path().join("claude-mcp-adapter/cli-tree.json");
    assert!(text.contains(&written.display().to_string()), "{text}");
    let tree: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&written).expect("the refreshed tree"))
            .expect("JSON");
    assert_eq!(tree["version"]["line"], NEWER);

    // No flag: the refreshed tree is found and the run succeeds.
    let r = run_with_newer_claude(config.path());
    assert_eq!(r["state"], "succeeded", "{r}");
}

#[test]
fn a_claude_without_a_flag_the_adapter_uses_is_refused_and_nothing_is_written() {
    let config = tempfile::tempdir().expect("config dir");
    let help = HELP_2_1_328.replace(
        "  --session-id <uuid>                   Use a specific session ID for the\n",
        "",
    );
    assert_ne!(help, HELP_2_1_328);
    let fake = FakeCli::new(NEWER, &help);
    let out = refresh(&fake.claude(), config.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("not refreshed, nothing written"),
        "{stderr}"
    );
    assert!(
        stderr.contains("options[session_id]: --session-id is missing from --help"),
        "{stderr}"
    );
    assert!(!config.path().join("claude-mcp-adapter").exists());
}

#[test]
fn cursor_is_refreshed_only_while_its_acp_command_holds() {
    // ACP-9: the `acp` command is part of what the adapter uses.
    let refresh_cursor = |cursor: &Path, config: &Path| {
        assert_cmd::Command::new(adapter_exe())
            .args(["cli-tree", "refresh", "--cursor"])
            .arg(cursor)
            .env("XDG_CONFIG_HOME", config)
            .timeout(BOUND)
            .output()
            .expect("run")
    };
    let config = tempfile::tempdir().expect("config dir");
    let newer = "2026.11.02-abc1234";
    let without_acp = CURSOR_HELP.replace(
        "  acp                           Start the agent in ACP server mode\n",
        "",
    );
    assert_ne!(without_acp, CURSOR_HELP);
    let fake = FakeCli::named("cursor-agent", newer, &without_acp);
    let out = refresh_cursor(&fake.cursor(), config.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("acp"), "{stderr}");
    assert!(!config.path().join("claude-mcp-adapter").exists());

    let fake = FakeCli::named("cursor-agent", newer, CURSOR_HELP);
    let out = refresh_cursor(&fake.cursor(), config.path());
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let written = config
        .path()
        .join("claude-mcp-adapter/cursor-cli-tree.json");
    let tree: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&written).expect("the refreshed tree"))
            .expect("JSON");
    assert_eq!(tree["version"]["line"], newer);
}
