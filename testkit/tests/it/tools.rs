//! The `Bash` tool scenarios: a writing command is denied under `--permission-mode dontAsk`, a
//! read-only one is allowed, and the stand-in tells the legs apart by the `tool_result` the second
//! request carries (`messages-api.md`).

use testkit::standin::{DEFAULT_WRITE_COMMAND, Scenario, Standin};

use crate::support::{assert_result_keys_like, assert_shape_like, real_claude, run_against};
use testkit::argv::print_args;

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn writing_bash_call_is_denied_under_dont_ask_and_the_run_still_succeeds() {
    let Some(claude) = real_claude() else { return };
    let standin = Standin::start(Scenario::Tool).expect("stand-in");
    let args = ["--include-partial-messages", "--permission-mode", "dontAsk"];
    let run = run_against(&claude, &standin, &print_args(&args, "create a file"));

    assert_eq!(
        run.exit_code(),
        Some(0),
        "stderr: {}",
        run.finished.stderr_text()
    );
    assert_shape_like(&run.events, "mock-tool-deny-partial");
    assert_result_keys_like(&run, "mock-tool-deny-partial");
    let result = run.result();
    assert_eq!(
        (&result["subtype"], &result["is_error"]),
        (&"success".into(), &false.into())
    );
    assert_eq!(result["result"], "Hi there!");
    assert_eq!(result["num_turns"], 2);
    let denials = result["permission_denials"]
        .as_array()
        .expect("permission_denials");
    assert_eq!(denials.len(), 1);
    assert_eq!(denials[0]["tool_name"], "Bash");
    assert_eq!(denials[0]["tool_input"]["command"], DEFAULT_WRITE_COMMAND);
    let denied = run.of("system", Some("permission_denied"));
    assert_eq!(denied.len(), 1);
    assert_eq!(denied[0]["decision_reason_type"], "mode");
    assert!(
        !run.cmd.workdir().join("created-by-tool.txt").exists(),
        "the denied command ran"
    );

    let requests = standin.messages_requests();
    assert_eq!(requests.len(), 2, "{requests:#?}");
    assert!(!requests[0].carries_tool_result());
    assert!(requests[1].carries_tool_result());
    let body = requests[1].body.as_ref().expect("body");
    let last = body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .expect("messages");
    assert_eq!(last["content"][0]["type"], "tool_result");
    assert_eq!(last["content"][0]["is_error"], true);
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn read_only_bash_call_is_allowed_under_dont_ask() {
    let Some(claude) = real_claude() else { return };
    let standin = Standin::start(Scenario::ToolEcho).expect("stand-in");
    let run = run_against(
        &claude,
        &standin,
        &print_args(&["--permission-mode", "dontAsk"], "run echo hi"),
    );

    assert_eq!(run.exit_code(), Some(0));
    assert_shape_like(&run.events, "mock-tool-dontask");
    assert_result_keys_like(&run, "mock-tool-dontask");
    let result = run.result();
    assert_eq!(result["permission_denials"], serde_json::json!([]));
    let users = run.of("user", None);
    assert_eq!(users[0]["message"]["content"][0]["content"], "hi");
    assert_eq!(
        users[0]["tool_result_meta"][0]["permission_decision"]["decision"],
        "accept"
    );

    let requests = standin.messages_requests();
    assert_eq!(requests.len(), 2);
    let body = requests[1].body.as_ref().expect("body");
    let last = body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .expect("messages");
    assert_eq!(last["content"][0]["content"], "hi");
    assert_eq!(last["content"][0]["is_error"], false);
}
