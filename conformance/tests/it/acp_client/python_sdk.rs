//! A real ACP client nobody here wrote: the Python SDK's example client
//! (`agent-client-protocol==0.12.1`, `examples/client.py`), which takes the agent's command line
//! as its arguments and reads prompts from stdin (one line, then EOF: one turn, then it
//! terminates the agent). It has no way to cancel a turn, so the cancel cases are `skip`.

use mcp_conformance::acp::client::run_client_mode;
use testkit::prereq::acp_python_example_client_paths;
use testkit::require_prereq;

use super::{all_pass_except, assert_pinned, config};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
async fn the_python_sdk_example_client_passes_what_it_can_be_checked_on() {
    let (python, script) = require_prereq!(acp_python_example_client_paths());
    let (python, script) = (python.display().to_string(), script.display().to_string());
    let mut cfg = config(&[&python, &script, "{agent}"]);
    cfg.client_stdin = Some(b"Hello, agent!\n".to_vec());
    let results = run_client_mode(&cfg).await;
    let no_driver = "no way to tell this client to cancel a turn was given";
    assert_pinned(
        &results,
        &all_pass_except(&[
            // It answers every permission request -32601: the client's Baseline Method refused
            // (ACP docs protocol/overview#client; SHOULD).
            (
                "client/supports-request-permission",
                "warn",
                "session/request_permission (id 0): error -32601",
            ),
            // It answers every permission request -32601, so it never selects an option.
            (
                "client/permission-echoes-offered-option",
                "skip",
                "the client selected no option, so no optionId to check (its answers: \
                 session/request_permission (id 0): error -32601; session/request_permission \
                 (id 1): error -32601)",
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
