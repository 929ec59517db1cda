//! The plain text scenario end to end: the real CLI reports success with the scripted text, and
//! the stand-in saw what `messages-api.md` documents.

use testkit::claude::DUMMY_API_KEY;
use testkit::standin::{RequestKind, Scenario, Standin, StreamOutcome};

use crate::support::{
    assert_result_keys_like, assert_shape_like, last_user_text, real_claude, run_against, shape,
};
use testkit::argv::print_args;

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn text_scenario_gives_a_success_result_with_the_scripted_text() {
    let Some(claude) = real_claude() else { return };
    let standin = Standin::builder()
        .text("Scripted hello from the stand-in.")
        .start()
        .expect("stand-in");
    let run = run_against(
        &claude,
        &standin,
        &print_args(&["--permission-mode", "dontAsk"], "say hi"),
    );

    assert_eq!(
        run.exit_code(),
        Some(0),
        "stderr: {}",
        run.finished.stderr_text()
    );
    let result = run.result();
    assert_eq!(result["subtype"], "success");
    assert_eq!(result["is_error"], false);
    assert_eq!(result["result"], "Scripted hello from the stand-in.");
    assert_eq!(result["num_turns"], 1);
    assert_eq!(result["stop_reason"], "end_turn");
    assert_eq!(run.events[0]["type"], "system");
    assert_eq!(run.events[0]["subtype"], "init");
    assert_eq!(run.events[0]["apiKeySource"], "ANTHROPIC_API_KEY");
    assert_eq!(
        shape(&run.events),
        ["system/init", "assistant", "result/success"]
    );
    assert_result_keys_like(&run, "mock-input-stream-2turns");

    let requests = standin.requests();
    assert_eq!(
        requests.len(),
        1,
        "one request, no side traffic: {requests:#?}"
    );
    let request = &requests[0];
    assert_eq!(
        (request.kind, request.method.as_str()),
        (RequestKind::Messages, "POST")
    );
    assert_eq!(request.query.as_deref(), Some("beta=true"));
    assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(request.header("x-api-key"), Some(DUMMY_API_KEY));
    assert_eq!(
        request.header("user-agent"),
        Some("claude-cli/2.1.328 (external, sdk-cli)")
    );
    assert!(request.is_streaming() && request.is_main_loop());
    let body = request.body.as_ref().expect("JSON body");
    assert_eq!(body["model"], "claude-opus-5-5");
    assert_eq!(body["max_tokens"], 128000);
    assert_eq!(last_user_text(body).lines().last(), Some("say hi"));
    assert_eq!(request.outcome, StreamOutcome::Completed { events_sent: 8 });
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn partial_messages_follow_the_reference_event_order() {
    let Some(claude) = real_claude() else { return };
    let standin = Standin::start(Scenario::Text).expect("stand-in");
    let args = ["--include-partial-messages", "--permission-mode", "dontAsk"];
    let run = run_against(&claude, &standin, &print_args(&args, "say hi"));

    assert_eq!(run.exit_code(), Some(0));
    // The stand-in's `ping` is not surfaced: the shape is exactly the reference one.
    assert_shape_like(&run.events, "mock-stream");
    assert_result_keys_like(&run, "mock-stream");
    let deltas: String = run
        .of("stream_event", None)
        .iter()
        .filter_map(|e| e["event"]["delta"]["text"].as_str())
        .collect();
    assert_eq!(deltas, "Hi there!");
    assert_eq!(standin.messages_requests().len(), 1);
}

#[tokio::test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
async fn tokio_command_runs_the_real_cli_too() {
    let Some(claude) = real_claude() else { return };
    let standin = Standin::start(Scenario::Text).expect("stand-in");
    let cmd = testkit::claude::ClaudeCommand::for_standin(&claude, &standin.base_url())
        .expect("temp HOME");
    let mut command = cmd.tokio_command();
    command
        .args(print_args(&[], "say hi"))
        .stdin(std::process::Stdio::null());
    let output = tokio::time::timeout(crate::support::RUN_LIMIT, command.output())
        .await
        .expect("claude finished in time")
        .expect("spawn claude");
    assert_eq!(output.status.code(), Some(0));
    let events = testkit::claude::parse_stream(&output.stdout);
    let result = testkit::claude::final_result(&events).expect("result");
    assert_eq!(
        (&result["subtype"], &result["result"]),
        (&"success".into(), &"Hi there!".into())
    );
    assert_eq!(standin.messages_requests().len(), 1);
}
