//! A real ACP client nobody here wrote: the TypeScript SDK's example client
//! (`@agentclientprotocol/sdk` 0.12.0, `dist/examples/client.js`, run unmodified: testkit checks
//! its SHA-256). It takes no agent command: it starts `npx tsx <its folder>/agent.ts`, so it runs
//! with testkit's `npx` shim first on `PATH`, which execs the scripted agent that
//! `ACP_CONFORMANCE_AGENT` names (client mode sets it) for exactly that command. It prompts
//! "Hello, agent!" once; each permission request asks for an option number on stdin (given
//! `1\n1\n`: the first option). It has no way to cancel a turn, so the cancel cases are `skip`.

use std::time::Duration;

use mcp_conformance::acp::client::run_client_mode;
use testkit::prereq::{acp_ts_example_client, env_argv};
use testkit::require_prereq;

use super::{all_pass_except, assert_pinned, config};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
async fn the_ts_sdk_example_client_leaves_its_second_permission_request_unanswered() {
    let client = require_prereq!(acp_ts_example_client());
    let argv = env_argv(&client);
    let words: Vec<&str> = argv.iter().map(String::as_str).collect();
    let mut cfg = config(&words);
    cfg.client_stdin = Some(b"1\n1\n".to_vec());
    // Each case has its own client, folder and agent, and the client keeps no state.
    cfg.jobs = 4;
    // The option-id scenario waits for an answer that never comes (below): its case ends at the
    // case timeout, shorter than the default 30 s to keep the test's wall time; every other
    // case ends in about a second.
    cfg.case_timeout = Duration::from_secs(15);
    let results = run_client_mode(&cfg).await;
    let no_driver = "no way to tell this client to cancel a turn was given";
    assert_pinned(
        &results,
        &all_pass_except(&[
            // The option-id scenario asks two permissions in a row. The client answers the
            // first with the number read from stdin (`opt-7f3a-once`, offered) and never
            // answers the second (id 1): each `requestPermission` opens a new `readline`
            // interface on stdin and never closes it, and the first one already read every
            // piped line, so the second prompt waits for input that never comes (typed at a
            // terminal, a line would reach it). JSON-RPC 2.0 §4 / ACP: every agent request is
            // answered (ACP-GATE-2), graded on every case's run by the rule that says so, with
            // the run that showed it; the case judging the answers it did give is blocked by it.
            (
                "client/answers-agent-requests",
                "fail",
                "session/request_permission (id 1): no answer",
            ),
            (
                "client/permission-echoes-offered-option",
                "skip",
                "blocked by client/answers-agent-requests",
            ),
            ("client/cancel-sends-session-cancel", "skip", no_driver),
            (
                "client/cancel-answers-pending-permission",
                "skip",
                no_driver,
            ),
        ]),
    );
}
