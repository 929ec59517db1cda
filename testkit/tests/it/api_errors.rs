//! HTTP errors from the Messages API: with `CLAUDE_CODE_MAX_RETRIES=1` the real CLI tries twice,
//! reports `system/api_retry`, then a synthetic assistant message and a `success` result with
//! `is_error: true`, exit 1. The texts differ per status (found with the real 2.1.328).

use testkit::claude::ClaudeCommand;
use testkit::standin::{ApiError, Scenario, Standin};

use crate::support::{
    assert_result_keys_like, assert_shape_like, real_claude, reference, run_against, run_with,
    shape,
};
use testkit::argv::print_args;

/// Runs a one-turn prompt against a stand-in answering `error` and checks the common shape.
fn assert_api_error(
    error: ApiError,
    capture: Option<&str>,
    retry_error: &str,
    assistant_error: &str,
    text: &str,
) {
    let Some(claude) = real_claude() else { return };
    let standin = Standin::start(Scenario::HttpError(error)).expect("stand-in");
    let run = run_against(
        &claude,
        &standin,
        &print_args(&["--permission-mode", "dontAsk"], "say hi"),
    );

    assert_eq!(run.exit_code(), Some(1));
    assert_eq!(
        shape(&run.events),
        [
            "system/init",
            "system/api_retry",
            "assistant",
            "result/success"
        ]
    );
    let retry = run.of("system", Some("api_retry"))[0];
    assert_eq!(
        (&retry["attempt"], &retry["max_retries"]),
        (&1.into(), &1.into())
    );
    assert_eq!(retry["error_status"], error.status());
    assert_eq!(retry["error"], retry_error);
    let assistant = run.of("assistant", None)[0];
    assert_eq!(assistant["error"], assistant_error);
    assert_eq!(assistant["is_api_error_message"], true);
    assert_eq!(assistant["message"]["model"], "<synthetic>");
    let result = run.result();
    assert_eq!(
        (&result["subtype"], &result["is_error"]),
        (&"success".into(), &true.into())
    );
    assert_eq!(result["api_error_status"], error.status());
    assert_eq!(result["api_error_type"], error.error_type());
    assert_eq!(result["terminal_reason"], "api_error");
    assert_eq!(
        result["result"],
        text.replace("PORT", &standin.port().to_string())
    );
    assert_result_keys_like(&run, "mock-401-r1");
    if let Some(capture) = capture {
        assert_shape_like(&run.events, capture);
        assert_result_keys_like(&run, capture);
    }

    // One request and one retry, both the same main-loop request.
    let requests = standin.messages_requests();
    assert_eq!(requests.len(), 2, "{requests:#?}");
    assert!(
        requests
            .iter()
            .all(|r| r.status == error.status() && r.is_main_loop())
    );
    assert_eq!(requests[0].body, requests[1].body);
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn http_401_is_an_error_result_with_its_status_after_one_retry() {
    assert_api_error(
        ApiError::Authentication,
        // mock-401-r1 was made with --include-partial-messages: compared in the next test.
        None,
        "authentication_failed",
        "authentication_failed",
        "Failed to authenticate. API Error: 401 mock authentication_error",
    );
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn http_401_matches_the_reference_capture_shape() {
    let Some(claude) = real_claude() else { return };
    let standin = Standin::start(Scenario::HttpError(ApiError::Authentication)).expect("stand-in");
    let args = ["--include-partial-messages", "--permission-mode", "dontAsk"];
    let run = run_against(&claude, &standin, &print_args(&args, "say hi"));
    assert_shape_like(&run.events, "mock-401-r1");
    assert_eq!(
        run.result()["result"],
        reference("mock-401-r1").last().expect("result")["result"]
    );
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn http_429_is_an_error_result_with_its_status_after_one_retry() {
    assert_api_error(
        ApiError::RateLimit,
        Some("mock-429-r1"),
        "rate_limit",
        "rate_limit",
        "API Error: Request rejected (429) · mock rate_limit_error",
    );
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn http_529_is_an_error_result_with_its_status_after_one_retry() {
    assert_api_error(
        ApiError::Overloaded,
        Some("mock-529-r1"),
        "overloaded",
        "server_error",
        "API Error: 529 mock overloaded_error. This is a server-side issue, usually temporary — \
         try again in a moment. If it persists, check your inference gateway (127.0.0.1:PORT).",
    );
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn repeated_529_stops_after_three_attempts_whatever_the_retry_budget() {
    let Some(claude) = real_claude() else { return };
    let standin = Standin::start(Scenario::HttpError(ApiError::Overloaded)).expect("stand-in");
    let cmd = ClaudeCommand::for_standin(&claude, &standin.base_url())
        .expect("temp HOME")
        .env("CLAUDE_CODE_MAX_RETRIES", "4");
    let run = run_with(
        cmd,
        &print_args(&["--permission-mode", "dontAsk"], "say hi"),
        None,
    );

    assert_eq!(run.exit_code(), Some(1));
    assert_eq!(run.of("system", Some("api_retry")).len(), 2);
    assert_shape_like(&run.events, "mock-529-r4");
    assert_eq!(standin.messages_requests().len(), 3);
    let expected = format!(
        "API Error: Repeated 529 Overloaded errors. The API is at capacity — this is usually \
         temporary. Try again in a moment. If it persists, check your inference gateway \
         (127.0.0.1:{}).",
        standin.port()
    );
    assert_eq!(run.result()["result"], expected);
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn prompt_marker_overrides_the_servers_scenario() {
    let Some(claude) = real_claude() else { return };
    let standin = Standin::start(Scenario::Text).expect("stand-in");
    let run = run_against(
        &claude,
        &standin,
        &print_args(&[], "standin:scenario=error-401\nsay hi"),
    );

    assert_eq!(run.exit_code(), Some(1));
    assert_eq!(run.result()["api_error_status"], 401);
    let requests = standin.messages_requests();
    assert!(
        requests
            .iter()
            .all(|r| r.scenario.as_deref() == Some("error-401") && r.status == 401)
    );
}
