//! The `cli run` projection (CLI-1) against the real claude 2.1.328: the single native JSON
//! result on stdout, exit 0 on success, exit 1 on a failed run with the native result still
//! printed.

use std::os::unix::process::CommandExt;
use std::process::Command;
use std::time::Duration;

use serde_json::Value;
use testkit::claude::ClaudeCommand;
use testkit::standin::{Scenario, Standin};

use crate::support::adapter_bin;

struct Output {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// `claude-mcp-adapter cli run` with the CLI's environment only (cleared otherwise), in a
/// process group of its own that is killed once it ended (or after 180 s).
fn cli_run(cmd: &ClaudeCommand, claude: &std::path::Path, prompt: &str) -> Output {
    let mut run = Command::new(adapter_bin());
    run.args([
        "cli",
        "run",
        "--permission-mode",
        "dontAsk",
        "--timeout-s",
        "120",
    ])
    .arg("--claude")
    .arg(claude)
    .arg("--cwd")
    .arg(cmd.workdir())
    .arg("--")
    .arg(prompt)
    .env_clear()
    .envs(cmd.environment())
    .process_group(0);
    let out =
        testkit::claude::run_bounded(&mut run, Duration::from_secs(180)).expect("spawn cli run");
    assert!(!out.timed_out, "cli run did not end within 180 s");
    Output {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: out.stderr_text(),
    }
}

/// CLI-1: success prints exactly one JSON value, the native `--output-format json` result, and
/// exits 0.
#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn cli_run_against_real_claude_prints_the_native_result_and_exits_0() {
    let claude = testkit::require_prereq!(testkit::prereq::claude());
    let standin = Standin::start(Scenario::Text).expect("stand-in");
    let cmd = ClaudeCommand::for_standin(&claude, &standin.base_url()).expect("HOME");
    let out = cli_run(&cmd, &claude, "say hi");
    assert_eq!(out.code, Some(0), "stderr: {}", out.stderr);
    let v: Value = serde_json::from_str(out.stdout.trim())
        .unwrap_or_else(|e| panic!("stdout is one JSON value ({e}): {:?}", out.stdout));
    assert_eq!(v["type"], "result", "{v}");
    assert_eq!(v["subtype"], "success", "{v}");
    assert_eq!(v["is_error"], false, "{v}");
    assert_eq!(v["result"], testkit::standin::DEFAULT_TEXT, "{v}");
    assert_eq!(
        out.stdout.trim().lines().count(),
        1,
        "a single line: {:?}",
        out.stdout
    );
    assert!(
        !standin.messages_requests().is_empty(),
        "the CLI asked the stand-in"
    );
}

/// CLI-1: a failed run (no account) exits 1 and still prints the native result.
#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn cli_run_against_real_claude_without_account_exits_1_with_the_native_result() {
    let claude = testkit::require_prereq!(testkit::prereq::claude());
    let cmd = ClaudeCommand::not_logged_in(&claude).expect("HOME");
    let out = cli_run(&cmd, &claude, "say hi");
    assert_eq!(
        out.code,
        Some(1),
        "stdout: {} stderr: {}",
        out.stdout,
        out.stderr
    );
    let v: Value = serde_json::from_str(out.stdout.trim())
        .unwrap_or_else(|e| panic!("stdout is the native result ({e}): {:?}", out.stdout));
    assert_eq!(v["type"], "result", "{v}");
    assert_eq!(v["is_error"], true, "{v}");
    assert!(
        v["result"]
            .as_str()
            .is_some_and(|r| r.contains("Not logged in")),
        "{v}"
    );
    assert!(!out.stderr.trim().is_empty(), "the error goes to stderr");
}
