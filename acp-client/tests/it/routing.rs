//! ACP-1: routing by shape, odd ids, malformed and oversized lines, error data of any type;
//! ACP-3: updates counted, text concatenated; ACP-10: only the turn's own updates make its text.

use acp_client::TurnOutcome;
use serde_json::{Value, json};

use crate::support::{config, event_lines, records, start};

#[tokio::test]
async fn agent_requests_reusing_our_ids_are_answered_and_never_taken_as_responses() {
    let mut h = start(config("hi"));
    let init = h.agent.expect("initialize").await;
    assert_eq!(init["id"], 1);
    // Agent requests with our pending id (1), its string twin, and null: all are requests.
    for id in [json!(1), json!("1"), json!(null)] {
        let answer = h
            .agent
            .ask(
                id.clone(),
                "fs/read_text_file",
                json!({"path": "/etc/passwd"}),
            )
            .await;
        assert_eq!(answer["error"]["code"], -32601, "{answer}");
    }
    // A response whose id is the string "1" is not the answer to our integer 1.
    h.agent
        .send(json!({"jsonrpc": "2.0", "id": "1", "result": {"protocolVersion": 1}}))
        .await;
    h.agent
        .reply(
            &init,
            json!({"protocolVersion": 1, "agentCapabilities": {}}),
        )
        .await;
    let new = h.agent.expect("session/new").await;
    assert_eq!(new["id"], 2);
    h.agent.reply(&new, json!({"sessionId": "sess-1"})).await;
    let prompt = h.agent.expect("session/prompt").await;
    h.agent.say("done").await;
    h.agent
        .reply(&prompt, json!({"stopReason": "end_turn"}))
        .await;

    let (report, _, events) = h.report().await;
    assert!(
        matches!(&report.outcome, TurnOutcome::Completed { stop_reason, .. } if stop_reason == "end_turn"),
        "{:?}",
        report.outcome
    );
    assert_eq!(report.unmatched_responses, 1);
    assert_eq!(report.agent_requests, 3);
    assert_eq!(report.text, "done");
    let ids: Vec<Value> = records(&events)
        .into_iter()
        .filter(|r| r["acp_client"] == "agent_request")
        .map(|r| r["id"].clone())
        .collect();
    assert_eq!(ids, vec![json!(1), json!("1"), json!(null)]);
}

#[tokio::test]
async fn malformed_and_oversized_lines_are_counted_forwarded_and_survived() {
    let mut cfg = config("hi");
    cfg.max_line = 256;
    let mut h = start(cfg);
    let init = h.agent.expect("initialize").await;
    // An oversized line that would answer initialize if it were parsed: it must not be.
    let padding = "x".repeat(1000);
    let oversized = json!({"jsonrpc": "2.0", "id": init["id"], "result": {"protocolVersion": 1, "pad": padding}}).to_string();
    let garbage = [
        "not json at all".to_owned(),
        "[1,2,3]".to_owned(),
        "42".to_owned(),
        r#"{"jsonrpc":"2.0"}"#.to_owned(),
        r#"{"jsonrpc":"2.0","method":7}"#.to_owned(),
        oversized.clone(),
    ];
    for line in &garbage {
        h.agent.send_raw(format!("{line}\n").as_bytes()).await;
    }
    h.agent
        .reply(
            &init,
            json!({"protocolVersion": 1, "agentCapabilities": {}}),
        )
        .await;
    let new = h.agent.expect("session/new").await;
    h.agent.reply(&new, json!({"sessionId": "sess-1"})).await;
    let prompt = h.agent.expect("session/prompt").await;
    h.agent
        .reply(&prompt, json!({"stopReason": "end_turn"}))
        .await;

    let (report, _, events) = h.report().await;
    assert!(matches!(report.outcome, TurnOutcome::Completed { .. }));
    assert_eq!(report.malformed_lines, garbage.len() as u64);
    // BND-1 / events: every agent byte forwarded verbatim, the oversized line whole.
    let text = String::from_utf8(events).expect("utf-8");
    let mut lines = text.lines();
    for line in &garbage {
        assert_eq!(lines.next(), Some(line.as_str()));
    }
}

#[tokio::test]
async fn an_error_answer_keeps_data_of_any_json_type() {
    for data in [
        json!("session/set_model"),
        json!(7),
        json!([1, "a"]),
        json!(null),
        json!({"k": true}),
    ] {
        let mut h = start(config("hi"));
        let prompt = h.agent.handshake_to_prompt().await;
        h.agent
            .reply_error(
                &prompt,
                json!({"code": -32603, "message": "boom", "data": data}),
            )
            .await;
        let (report, _, _) = h.report().await;
        let TurnOutcome::PromptError { error } = report.outcome else {
            panic!("{:?}", report.outcome)
        };
        assert_eq!(error.code, -32603);
        assert_eq!(error.message, "boom");
        assert_eq!(error.data, Some(data));
    }
}

#[tokio::test]
async fn updates_are_counted_unknown_variants_tolerated_and_text_concatenated() {
    let mut h = start(config("hi"));
    let prompt = h.agent.handshake_to_prompt().await;
    h.agent.say("Hello").await;
    h.agent
        .update(json!({"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "hmm"}}))
        .await;
    h.agent
        .update(json!({"sessionUpdate": "subagent_spawned", "whatever": [1]}))
        .await;
    h.agent
        .update(json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "image", "data": "AA=="}}))
        .await;
    h.agent.update(json!({"no_variant": true})).await;
    h.agent.say(", world").await;
    h.agent
        .send(json!({"jsonrpc": "2.0", "method": "_vendor/notice", "params": {}}))
        .await;
    h.agent
        .reply(
            &prompt,
            json!({"stopReason": "max_tokens", "_meta": {"x": 1}}),
        )
        .await;
    let (report, _, _) = h.report().await;
    let TurnOutcome::Completed {
        stop_reason,
        response,
    } = &report.outcome
    else {
        panic!("{:?}", report.outcome)
    };
    assert_eq!(stop_reason, "max_tokens");
    assert_eq!(response["_meta"]["x"], 1);
    assert_eq!(report.text, "Hello, world");
    assert!(!report.text_truncated);
    assert_eq!(report.updates, 6);
    assert_eq!(report.unknown_updates, 2);
    assert_eq!(report.other_notifications, 1);
    assert_eq!(report.session_id.as_deref(), Some("sess-1"));
}

#[tokio::test]
async fn the_text_is_bounded_and_cut_on_a_character_boundary() {
    let mut cfg = config("hi");
    cfg.text_max = 9;
    let mut h = start(cfg);
    let prompt = h.agent.handshake_to_prompt().await;
    h.agent.say("héllo ").await; // 7 bytes
    h.agent.say("wörld").await; // 2 bytes left: "wö" needs 3, "ö" cannot be split
    h.agent.say("more").await;
    h.agent
        .reply(&prompt, json!({"stopReason": "end_turn"}))
        .await;
    let (report, _, _) = h.report().await;
    assert!(report.text.len() <= 9);
    assert_eq!(report.text, "héllo w");
    assert!(report.text_truncated);
}

#[tokio::test]
async fn an_agent_that_closes_its_stdout_ends_the_turn() {
    let mut h = start(config("hi"));
    let prompt = h.agent.handshake_to_prompt().await;
    let _ = prompt;
    let crate::support::Harness {
        agent,
        turn,
        events,
        ..
    } = h;
    drop(agent);
    let report = tokio::time::timeout(crate::support::PATIENCE, turn)
        .await
        .expect("in time")
        .expect("no panic");
    let _ = events.await;
    assert!(
        matches!(
            &report.outcome,
            TurnOutcome::AgentClosed {
                step: "session/prompt",
                ..
            }
        ),
        "{:?}",
        report.outcome
    );
}

#[tokio::test]
async fn an_oversized_message_chunk_leaves_the_text_cut_and_says_so_whatever_its_key_order() {
    // BND-1, BND-3, ACP-6: a chunk never held is missing from the text; the report says the text
    // is cut (and why) so no caller can pass it as whole. Other oversized updates cut nothing.
    let big = "x".repeat(1000);
    for (update, cut) in [
        (
            json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": big}}),
            true,
        ),
        (
            json!({"content": {"text": big, "type": "text"}, "sessionUpdate": "agent_message_chunk"}),
            true,
        ),
        (
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "r", "content": [{"type": "content", "content": {"type": "text", "text": big}}]}),
            false,
        ),
        (
            json!({"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": big}}),
            false,
        ),
    ] {
        let mut cfg = config("hi");
        cfg.max_line = 256;
        let mut h = start(cfg);
        let prompt = h.agent.handshake_to_prompt().await;
        h.agent.say("start ").await;
        h.agent.update(update.clone()).await;
        h.agent.say(" end").await;
        h.agent
            .reply(&prompt, json!({"stopReason": "end_turn"}))
            .await;
        let (report, _, _) = h.report().await;
        assert!(matches!(report.outcome, TurnOutcome::Completed { .. }));
        assert_eq!(report.malformed_lines, 1, "{update}");
        assert_eq!(report.text_truncated, cut, "{update}");
        assert_eq!(report.oversized_text_chunks, u64::from(cut), "{update}");
        // The text stays a prefix of what the agent said.
        assert_eq!(report.text, if cut { "start " } else { "start  end" });
    }
}

#[tokio::test]
async fn an_update_of_another_session_is_counted_and_never_the_turns_text() {
    // ACP-10: only the run's session's chunks make the text; another (or no) sessionId is kept
    // as an event and counted.
    let mut h = start(config("hi"));
    let prompt = h.agent.handshake_to_prompt().await;
    h.agent.say("Say hello.").await;
    for session in [json!("sess-2"), json!(null), json!(7)] {
        h.agent
            .send(
                json!({"jsonrpc": "2.0", "method": "session/update", "params": {
                "sessionId": session,
                "update": {"sessionUpdate": "agent_message_chunk",
                    "content": {"type": "text", "text": "stray"}}}}),
            )
            .await;
    }
    h.agent
        .send(
            json!({"jsonrpc": "2.0", "method": "session/update", "params": {
            "update": {"sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": "stray"}}}}),
        )
        .await;
    h.agent.say(" Done.").await;
    h.agent
        .reply(&prompt, json!({"stopReason": "end_turn"}))
        .await;
    let (report, _, events) = h.report().await;
    assert_eq!(report.text, "Say hello. Done.");
    assert_eq!(report.foreign_updates, 4);
    assert_eq!(report.late_updates, 0);
    assert_eq!(report.updates, 6);
    let kept = event_lines(&events)
        .iter()
        .filter(|l| l["params"]["update"]["content"]["text"] == "stray")
        .count();
    assert_eq!(kept, 4, "every foreign update is kept as an event");
}

#[tokio::test]
async fn updates_after_the_prompts_answer_are_counted_never_appended_even_in_the_same_read() {
    // ACP-10: the turn's text ends with the prompt's answer; later chunks in the same read (and
    // enough of them to pass the text bound) are counted, never appended, never a cut text.
    let mut cfg = config("hi");
    cfg.text_max = 64;
    cfg.max_line = 512;
    let mut h = start(cfg);
    let prompt = h.agent.handshake_to_prompt().await;
    h.agent.say("Hello.").await;
    let chunk = |text: &str| {
        json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "sess-1",
            "update": {"sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": text}}}})
        .to_string()
    };
    let mut read =
        json!({"jsonrpc": "2.0", "id": prompt["id"], "result": {"stopReason": "end_turn"}})
            .to_string();
    read.push('\n');
    for _ in 0..5 {
        read.push_str(&chunk(&"late ".repeat(20)));
        read.push('\n');
    }
    // One late chunk over the line bound: never held, and not the turn's either.
    read.push_str(&chunk(&"x".repeat(1024)));
    read.push('\n');
    h.agent.send_raw(read.as_bytes()).await;
    let (report, _, events) = h.report().await;
    assert!(
        matches!(report.outcome, TurnOutcome::Completed { .. }),
        "{:?}",
        report.outcome
    );
    assert_eq!(report.text, "Hello.");
    assert!(!report.text_truncated);
    assert_eq!(report.oversized_text_chunks, 0);
    assert_eq!(report.late_updates, 6);
    assert_eq!(report.foreign_updates, 0);
    let late = event_lines(&events)
        .iter()
        .filter(|l| l["params"]["update"]["content"]["text"] == "late ".repeat(20))
        .count();
    assert_eq!(late, 5, "late updates are kept as events");
}

#[tokio::test]
async fn agent_request_ids_of_any_size_are_echoed_byte_exact() {
    // ACP-12: 2^70 (and an id with an exponent) are answered under the very text sent, in the
    // answer and in the client's record; never re-encoded as a float.
    let mut h = start(config("hi"));
    let prompt = h.agent.handshake_to_prompt().await;
    for id in ["1180591620717411303424", "-1180591620717411303424", "1e3"] {
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"session/request_permission","params":{{"sessionId":"sess-1","toolCall":{{"toolCallId":"t","kind":"execute"}},"options":[{{"optionId":"r","name":"Reject","kind":"reject_once"}}]}}}}"#
        );
        h.agent.send_raw(format!("{line}\n").as_bytes()).await;
        let answer = h.agent.recv_line().await;
        assert!(
            answer.starts_with(&format!(r#"{{"jsonrpc":"2.0","id":{id},"result""#)),
            "{answer}"
        );
        let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"cursor/odd","params":{{}}}}"#);
        h.agent.send_raw(format!("{line}\n").as_bytes()).await;
        let answer = h.agent.recv_line().await;
        assert!(
            answer.contains(&format!(r#""id":{id},"error""#)),
            "{answer}"
        );
    }
    h.agent
        .reply(&prompt, json!({"stopReason": "end_turn"}))
        .await;
    let (report, _, events) = h.report().await;
    assert_eq!(report.agent_requests, 6);
    let text = String::from_utf8_lossy(&events);
    for id in ["1180591620717411303424", "-1180591620717411303424", "1e3"] {
        let records = text
            .lines()
            .filter(|l| l.starts_with(r#"{"acp_client""#))
            .filter(|l| l.contains(&format!(r#""id":{id},"#)))
            .count();
        assert_eq!(records, 2, "both records keep the id's text: {text}");
    }
}
