//! `--resume` of an unknown session: no request at all, one `error_during_execution` result, and
//! the exact stderr line (`errors.md`). Shape captured in `testkit/captures/resume-unknown.jsonl`.

use testkit::standin::{Scenario, Standin};

use crate::support::{keys, real_claude, run_against, shape};
use testkit::argv::print_args;

const UNKNOWN: &str = "99999999-2222-4333-8444-555555555555";

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn resume_of_an_unknown_session_fails_during_execution_without_any_request() {
    let Some(claude) = real_claude() else { return };
    let standin = Standin::start(Scenario::Text).expect("stand-in");
    let args = ["--permission-mode", "dontAsk", "--resume", UNKNOWN];
    let run = run_against(&claude, &standin, &print_args(&args, "say hi"));

    assert_eq!(run.exit_code(), Some(1));
    assert_eq!(
        run.finished.stderr_text(),
        format!("No conversation found with session ID: {UNKNOWN}\n")
    );
    // No init event: the result is the only line.
    assert_eq!(shape(&run.events), ["result/error_during_execution"]);
    let result = run.result();
    assert_eq!(result["is_error"], true);
    assert_eq!(result["num_turns"], 0);
    assert_eq!(result["session_id"], UNKNOWN);
    let expected_errors =
        serde_json::json!([format!("No conversation found with session ID: {UNKNOWN}")]);
    assert_eq!(result["errors"], expected_errors);
    assert!(result.get("result").is_none());
    let capture = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/captures/resume-unknown.jsonl"
    ))
    .expect("capture");
    let captured = testkit::claude::parse_stream(capture.as_bytes());
    assert_eq!(keys(result), keys(&captured[0]));
    assert!(
        standin.messages_requests().is_empty(),
        "{:#?}",
        standin.requests()
    );
}
