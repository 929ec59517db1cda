//! `--max-turns 1` with a tool call on every leg: the real CLI stops with `error_max_turns`.

use testkit::standin::{Scenario, Standin};

use crate::support::{assert_result_keys_like, assert_shape_like, real_claude, run_against};
use testkit::argv::print_args;

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn max_turns_one_with_a_tool_call_every_leg_ends_in_error_max_turns() {
    let Some(claude) = real_claude() else { return };
    let standin = Standin::start(Scenario::ToolLoop).expect("stand-in");
    let args = ["--permission-mode", "dontAsk", "--max-turns", "1"];
    let run = run_against(&claude, &standin, &print_args(&args, "create a file"));

    assert_eq!(run.exit_code(), Some(1));
    assert_shape_like(&run.events, "mock-max-turns");
    assert_result_keys_like(&run, "mock-max-turns");
    let result = run.result();
    assert_eq!(result["subtype"], "error_max_turns");
    assert_eq!(result["is_error"], true);
    assert_eq!(result["terminal_reason"], "max_turns");
    assert_eq!(
        result["errors"],
        serde_json::json!(["Reached maximum number of turns (1)"])
    );
    assert!(
        result.get("result").is_none(),
        "error results carry no `result`"
    );
    // The tool result is never sent back: one request only.
    let requests = standin.messages_requests();
    assert_eq!(requests.len(), 1, "{requests:#?}");
    assert!(!requests[0].carries_tool_result());
}
