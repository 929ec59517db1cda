//! Several user turns in one session (`--input-format stream-json`): one result per turn, and
//! each request carries the conversation so far.

use testkit::claude::ClaudeCommand;
use testkit::standin::{Scenario, Standin};

use crate::support::{
    assert_result_keys_like, assert_shape_like, last_user_text, real_claude, run_with,
};

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn two_stream_json_turns_get_two_results_from_one_session() {
    let Some(claude) = real_claude() else { return };
    let standin = Standin::start(Scenario::Turns).expect("stand-in");
    let input = concat!(
        r#"{"type":"user","message":{"role":"user","content":"first"}}"#,
        "\n",
        r#"{"type":"user","message":{"role":"user","content":"second"}}"#,
        "\n",
    );
    let args = [
        "-p",
        "--input-format",
        "stream-json",
        "--output-format",
        "stream-json",
        "--verbose",
        "--permission-mode",
        "dontAsk",
    ];
    let cmd = ClaudeCommand::for_standin(&claude, &standin.base_url()).expect("temp HOME");
    let run = run_with(cmd, &args, Some(input.as_bytes()));

    assert_eq!(
        run.exit_code(),
        Some(0),
        "stderr: {}",
        run.finished.stderr_text()
    );
    assert_shape_like(&run.events, "mock-input-stream-2turns");
    assert_result_keys_like(&run, "mock-input-stream-2turns");
    let results: Vec<_> = run
        .of("result", None)
        .iter()
        .map(|r| r["result"].clone())
        .collect();
    assert_eq!(results, ["turn 1: Hi there!", "turn 2: Hi there!"]);
    let sessions: Vec<_> = run
        .of("result", None)
        .iter()
        .map(|r| r["session_id"].clone())
        .collect();
    assert_eq!(sessions[0], sessions[1]);

    let requests = standin.messages_requests();
    assert_eq!(requests.len(), 2);
    let bodies: Vec<_> = requests
        .iter()
        .map(|r| r.body.clone().expect("body"))
        .collect();
    assert_eq!(last_user_text(&bodies[0]).lines().last(), Some("first"));
    assert_eq!(last_user_text(&bodies[1]), "second");
    let history = serde_json::to_string(&bodies[1]["messages"]).expect("json");
    assert!(
        history.contains("turn 1: Hi there!"),
        "the second request carries the first reply"
    );
}
