//! Authenticated model execution (an evidence class): the adapter runs the real
//! claude 2.1.328 against the real Anthropic API with a real account. Opt-in only and never in
//! CI: every test here is `#[ignore]`d, and an explicitly requested run refuses to start under
//! `CI=true` or without both `CMK_MODEL_TESTS=1` and `ANTHROPIC_API_KEY` (a request without them
//! fails, saying which is missing, rather than passing with nothing checked).
//!
//! Procedure (docs/model-runs.md): with a key of an account you may spend on,
//! `CMK_MODEL_TESTS=1 ANTHROPIC_API_KEY=… cargo test -p claude-mcp-adapter --test it -- --ignored
//! model::`, then add a row (date, claude and adapter versions, model, result) to
//! docs/model-runs.md and re-bless docs/evidence.md (`BLESS=1 … -- evidence::`). The key goes
//! only to the CLI (through the adapter's passed-on environment, NAT-7) and is never printed.
//! These runs cost money and depend on the service: they are evidence, not a gate.

use std::ffi::OsString;
use std::time::Duration;

use serde_json::{Value, json};
use testkit::claude::ClaudeCommand;

use crate::support::client::{Client, structured};

/// Bound on one real run against the service.
const RUN_BOUND: Duration = Duration::from_secs(300);

/// The account to run with: panics (the run was requested explicitly) when it must not run.
fn account() -> String {
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "authenticated model execution never runs in CI"
    );
    assert!(
        std::env::var("CMK_MODEL_TESTS").as_deref() == Ok("1"),
        "authenticated model execution is opt-in: set CMK_MODEL_TESTS=1 (see docs/model-runs.md)"
    );
    match std::env::var("ANTHROPIC_API_KEY") {
        Ok(k) if !k.is_empty() => k,
        _ => panic!("authenticated model execution needs ANTHROPIC_API_KEY of a real account"),
    }
}

/// An adapter over the installed real claude with the account's key and a temporary HOME.
fn session(key: &str) -> (Client, ClaudeCommand) {
    let claude = testkit::prereq::claude().unwrap_or_else(|e| {
        panic!(
            "the real claude {} is needed: {e}",
            testkit::prereq::CLAUDE_VERSION
        )
    });
    let mut cmd = ClaudeCommand::not_logged_in(&claude)
        .expect("HOME")
        .env("ANTHROPIC_API_KEY", key);
    if let Ok(base) = std::env::var("ANTHROPIC_BASE_URL") {
        cmd = cmd.env("ANTHROPIC_BASE_URL", base);
    }
    let args: Vec<OsString> = vec!["--claude".into(), claude.into()];
    let mut client = Client::spawn(&args, &cmd.environment(), None);
    client.init();
    (client, cmd)
}

fn run(client: &mut Client, cmd: &ClaudeCommand, prompt: &str) -> Value {
    client.tool(
        "claude.run",
        json!({"prompt": prompt, "cwd": cmd.workdir(), "timeout_s": RUN_BOUND.as_secs()}),
        Some(json!({"progressToken": "model"})),
        RUN_BOUND + Duration::from_secs(30),
    )
}

#[test]
#[ignore = "authenticated model execution: opt-in, never in CI (docs/model-runs.md)"]
fn a_real_model_completes_a_run_through_the_adapter() {
    // RUN-1, OUT-1: a real model's answer settles `succeeded` with its final and cleanup.
    let key = account();
    let (mut client, cmd) = session(&key);
    let r = run(&mut client, &cmd, "Reply with exactly the word: pong");
    let s = structured(&r);
    assert_eq!(r["isError"], false, "{s:#}");
    assert_eq!(s["state"], "succeeded", "{s:#}");
    assert_eq!(s["cleanup_confirmed"], true, "{s:#}");
    let text = s["final"]["result"].as_str().unwrap_or_default();
    assert!(text.to_lowercase().contains("pong"), "{s:#}");
    let model = s["final"]["modelUsage"]
        .as_object()
        .and_then(|m| m.keys().next().cloned())
        .unwrap_or_else(|| "unknown".into());
    eprintln!("{}", record_row(&model));
}

/// The row docs/model-runs.md's record wants for this run, printed ready to paste: the UTC date,
/// the pinned claude, this adapter's version and the model the run reported. `pass` holds only
/// when every `model::` test passed; otherwise write the failing test and why instead.
fn record_row(model: &str) -> String {
    let date = std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%d"])
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map_or_else(|| "YYYY-MM-DD".into(), |d| d.trim().to_owned());
    format!(
        "docs/model-runs.md row (if every model:: test passed):\n| {date} | {} | {} | {model} | pass |",
        testkit::prereq::CLAUDE_VERSION,
        env!("CARGO_PKG_VERSION"),
    )
}

#[test]
#[ignore = "authenticated model execution: opt-in, never in CI (docs/model-runs.md)"]
fn a_real_models_shell_call_is_denied_under_dont_ask() {
    // NAT-5, TOOLCALL-4: under the default dontAsk a real model's Bash call is refused and shows
    // in permission_denials; nothing is created.
    let key = account();
    let (mut client, cmd) = session(&key);
    let marker = cmd.workdir().join("created-by-model");
    let r = run(
        &mut client,
        &cmd,
        &format!(
            "Use the Bash tool to run exactly: touch {}. Then say done.",
            marker.display()
        ),
    );
    let s = structured(&r);
    assert!(!marker.exists(), "the denied command ran: {s:#}");
    let denials = s["permission_denials"]["denials"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        denials.iter().any(|d| d["tool"] == "bash"),
        "a bash denial: {s:#}"
    );
}
