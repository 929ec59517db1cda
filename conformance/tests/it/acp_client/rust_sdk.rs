//! A real ACP client nobody here wrote: the Rust SDK's example client
//! (`agent-client-protocol` 5.2.0, `examples/yolo_one_shot_client.rs`, built from crates.io
//! unmodified), as `yolo_one_shot_client --command {agent} PROMPT`: one prompt, each permission
//! request answered with its `allow_once` option, then it exits. It has no way to cancel a turn
//! (Ctrl-C kills it), so the cancel cases are `skip`.

use mcp_conformance::acp::client::run_client_mode;
use testkit::prereq::{acp_rust_example_client, env_argv};
use testkit::require_prereq;

use super::{all_pass_except, assert_pinned, config};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
async fn the_rust_sdk_example_client_passes_what_it_can_be_checked_on() {
    let client = require_prereq!(acp_rust_example_client());
    let mut argv = env_argv(&client);
    argv.extend(["--command", "{agent}", "Hello, agent"].map(str::to_owned));
    let words: Vec<&str> = argv.iter().map(String::as_str).collect();
    let mut cfg = config(&words);
    // Each case has its own client, folder and agent, and the client keeps no state.
    cfg.jobs = 4;
    let results = run_client_mode(&cfg).await;
    let no_driver = "no way to tell this client to cancel a turn was given";
    assert_pinned(
        &results,
        &all_pass_except(&[
            ("client/cancel-sends-session-cancel", "skip", no_driver),
            (
                "client/cancel-answers-pending-permission",
                "skip",
                no_driver,
            ),
        ]),
    );
}
