//! No base URL and no key: the real CLI fails fast with "Not logged in", without hanging and
//! without any connection (checked against a stand-in that must see nothing).

use std::time::{Duration, Instant};

use testkit::claude::ClaudeCommand;
use testkit::standin::{Scenario, Standin};

use crate::support::{assert_result_keys_like, assert_shape_like, real_claude, run_with};
use testkit::argv::print_args;

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn without_key_or_base_url_the_cli_fails_fast_with_not_logged_in() {
    let Some(claude) = real_claude() else { return };
    let bystander = Standin::start(Scenario::Text).expect("stand-in");
    let args = ["--include-partial-messages", "--permission-mode", "dontAsk"];
    let started = Instant::now();
    let run = run_with(
        ClaudeCommand::not_logged_in(&claude).expect("temp HOME"),
        &print_args(&args, "say hi"),
        None,
    );

    // Generous bound: it takes about a second; the point is that it does not hang.
    assert!(started.elapsed() < Duration::from_secs(30));
    assert_eq!(run.exit_code(), Some(1));
    assert_eq!(run.finished.stderr_text(), "");
    assert_shape_like(&run.events, "run-stream");
    assert_result_keys_like(&run, "run-stream");
    assert_eq!(run.events[0]["apiKeySource"], "none");
    let result = run.result();
    assert_eq!(
        (&result["subtype"], &result["is_error"]),
        (&"success".into(), &true.into())
    );
    assert_eq!(result["result"], "Not logged in · Please run /login");
    assert_eq!(result["api_error_status"], serde_json::Value::Null);
    assert!(bystander.requests().is_empty());
}
