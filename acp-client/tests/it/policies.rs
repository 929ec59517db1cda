//! ACP-5: every agent request gets an answer through the policy, recorded in events.

use acp_client::{CursorPolicy, GenericPolicy, TurnOutcome};
use serde_json::{Value, json};

use crate::support::{config, records, start_with};

const CURSOR_EMPTY: [&str; 3] = [
    "cursor/update_todos",
    "cursor/task",
    "cursor/generate_image",
];
const NOT_FOUND: [&str; 7] = [
    "cursor/ask_question",
    "cursor/create_plan",
    "fs/read_text_file",
    "fs/write_text_file",
    "terminal/create",
    "session/elicitation",
    "_vendor/anything",
];

#[tokio::test]
async fn cursor_policy_acknowledges_todos_tasks_and_images_and_refuses_the_rest() {
    let mut h = start_with(config("hi"), Box::new(CursorPolicy));
    let prompt = h.agent.handshake_to_prompt().await;
    for (i, method) in CURSOR_EMPTY.iter().enumerate() {
        // Cursor sends these with an id and no sessionId.
        let answer = h
            .agent
            .ask(json!(100 + i), method, json!({"todos": []}))
            .await;
        assert_eq!(answer["result"], json!({}), "{method}: {answer}");
    }
    for method in NOT_FOUND {
        let answer = h.agent.ask(json!(method), method, json!({})).await;
        assert_eq!(answer["error"]["code"], -32601, "{method}: {answer}");
    }
    h.agent
        .reply(&prompt, json!({"stopReason": "end_turn"}))
        .await;
    let (report, _, events) = h.report().await;
    assert!(matches!(report.outcome, TurnOutcome::Completed { .. }));
    assert_eq!(
        report.agent_requests,
        (CURSOR_EMPTY.len() + NOT_FOUND.len()) as u64
    );
    let recs: Vec<Value> = records(&events);
    assert_eq!(
        recs[0],
        json!({"acp_client": "agent_request", "method": "cursor/update_todos", "id": 100,
               "answer": "result", "code": null})
    );
    assert_eq!(
        recs[3],
        json!({"acp_client": "agent_request", "method": "cursor/ask_question",
               "id": "cursor/ask_question", "answer": "error", "code": -32601})
    );
}

#[tokio::test]
async fn generic_policy_answers_every_request_method_not_found() {
    let mut h = start_with(config("hi"), Box::new(GenericPolicy));
    let prompt = h.agent.handshake_to_prompt().await;
    for method in CURSOR_EMPTY.iter().chain(NOT_FOUND.iter()) {
        let answer = h.agent.ask(json!(7), method, json!({})).await;
        assert_eq!(answer["error"]["code"], -32601, "{method}: {answer}");
    }
    // A request without params is answered too.
    h.agent
        .send(json!({"jsonrpc": "2.0", "id": 8, "method": "fs/read_text_file"}))
        .await;
    let answer = h.agent.recv().await;
    assert_eq!(answer["id"], 8);
    assert_eq!(answer["error"]["code"], -32601);
    h.agent
        .reply(&prompt, json!({"stopReason": "end_turn"}))
        .await;
    let (report, _, _) = h.report().await;
    assert!(matches!(report.outcome, TurnOutcome::Completed { .. }));
}
