//! The kit's own Cursor provider is the first client checked: the adapter's one-shot
//! `claude-mcp-adapter cli run --provider cursor --cursor {agent} …` (it asks the scripted agent
//! `--version` first, as it asks `cursor-agent`). Its only way to cancel a turn from outside is
//! its own `--timeout-s`, so that drives the cancel cases.

use mcp_conformance::acp::client::{CancelDriver, run_client_mode};

use super::{all_pass_except, assert_pinned, config, sibling};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_kit_cursor_provider_passes_client_mode_and_its_timeout_kills_without_session_cancel() {
    let adapter = sibling("claude-mcp-adapter").display().to_string();
    let mut cfg = config(&[
        &adapter,
        "cli",
        "run",
        "--provider",
        "cursor",
        "--cursor",
        "{agent}",
        "--permission-mode",
        "dontAsk",
        "--timeout-s",
        "3",
        "--",
        "Say hello",
    ]);
    cfg.cancel = CancelDriver::ClientTimeout;
    let results = run_client_mode(&cfg).await;
    assert_pinned(
        &results,
        &all_pass_except(&[
            // The engine's run deadline (BND-4) ends the group without the provider's graceful
            // interrupt: a timed-out turn gets no session/cancel (a SHOULD: warn).
            (
                "client/cancel-sends-session-cancel",
                "warn",
                "no session/cancel; the client ",
            ),
            // Never pending: dontAsk answers every permission request at once (reject_once).
            (
                "client/cancel-answers-pending-permission",
                "skip",
                "the client sent no session/cancel",
            ),
        ]),
    );
    let cancel = results
        .iter()
        .find(|r| r.id == "client/cancel-sends-session-cancel")
        .expect("case");
    let actual = cancel.actual.as_deref().unwrap_or("");
    assert!(
        actual.contains("ended (exit 1)") && actual.contains("timeout_s (3 s)"),
        "the adapter ended its timed-out run (exit 1, its timeout error): {actual}"
    );
    assert!(
        results.iter().all(|r| !r.counts_as_failed()),
        "the kit's provider must pass the gate"
    );
}
