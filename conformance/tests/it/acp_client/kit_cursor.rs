//! The kit's own Cursor provider is the first client checked (ACP-GATE-2): the adapter's one-shot
//! `claude-mcp-adapter cli run --provider cursor --cursor {agent} …` (it asks the scripted agent
//! `--version` first, as it asks `cursor-agent`). `cli run` documents SIGINT and SIGTERM as a
//! cancel of its run (RUN-6), so SIGINT drives the cancel cases; its other way to end a turn, its
//! own `--timeout-s`, is checked on its own below.

use mcp_conformance::acp::client::{CancelDriver, ClientModeConfig, run_client_mode};
use nix::sys::signal::Signal;

use mcp_conformance::acp::gate::AcpProfile;

use super::{all_pass_except_in, assert_pinned, config, sibling};

fn adapter_run(extra: &[&str]) -> ClientModeConfig {
    let adapter = sibling("claude-mcp-adapter").display().to_string();
    let mut argv = vec![
        adapter.as_str(),
        "cli",
        "run",
        "--provider",
        "cursor",
        "--cursor",
        "{agent}",
        "--permission-mode",
        "dontAsk",
    ];
    argv.extend_from_slice(extra);
    argv.extend_from_slice(&["--", "Say hello"]);
    // The kit's Cursor provider keeps the kit's Cursor policy (ACP-2, ACP-4): its profile.
    let mut cfg = config(&argv);
    cfg.profile = AcpProfile::Cursor;
    cfg
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_kit_cursor_provider_passes_client_mode() {
    let mut cfg = adapter_run(&[]);
    cfg.cancel = CancelDriver::Signal(Signal::SIGINT);
    let results = run_client_mode(&cfg).await;
    assert_pinned(
        &results,
        &all_pass_except_in(
            AcpProfile::Cursor,
            &[
                // A race of the client's own: dontAsk answers a permission request at once
                // (reject_once, ACP-4), so the SIGINT sent as the request goes out finds it either
                // already answered (skip: nothing pending) or still pending, and then the cancel
                // answers it `cancelled` (ACP-7, pass). Both are true; neither is a failure.
                (
                    "client/cancel-answers-pending-permission",
                    "pass|skip",
                    "nothing was pending at the cancel: the client answered \
                 session/request_permission (id 0) (selected \"reject-once\")",
                ),
            ],
        ),
    );
    assert!(
        results.iter().all(|r| !r.counts_as_failed()),
        "the kit's provider must pass the gate"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_kit_cursor_provider_ends_a_timed_out_turn_with_session_cancel() {
    let mut cfg = adapter_run(&["--timeout-s", "3"]);
    cfg.cancel = CancelDriver::ClientTimeout;
    cfg.cases = vec![
        "client/cancel-sends-session-cancel".into(),
        "client/cancel-answers-pending-permission".into(),
    ];
    let results = run_client_mode(&cfg).await;
    // C-ACP-4: the run's deadline (BND-4) ends the turn as a cancel does, session/cancel
    // first. Under dontAsk the permission request was answered at once, long before the
    // deadline, so nothing is pending at the cancel: that case has nothing to grade.
    assert_pinned(
        &results,
        &[
            // The shard keeps the rule on what the client owes (a probe of its own scenario).
            ("client/answers-agent-requests", "pass", ""),
            ("client/cancel-sends-session-cancel", "pass", ""),
            (
                "client/cancel-answers-pending-permission",
                "skip",
                "nothing was pending at the cancel",
            ),
            // The shard keeps the id rule on the exchanges it made.
            ("client/response-ids", "pass", ""),
        ],
    );
    let transcript: String = results[1]
        .transcript
        .iter()
        .map(|e| format!("{} {}\n", e.dir, e.line))
        .collect();
    assert!(
        transcript.contains("timeout: the native process did not end within timeout_s (3 s)"),
        "the adapter reported its timed-out run as timeout: {transcript}"
    );
}
