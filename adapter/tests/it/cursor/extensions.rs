//! ACP-5 over stdio: every agent request other than a permission gets an answer, so a pending
//! request never stalls a turn: `cursor/update_todos`, `cursor/task`, `cursor/generate_image` get
//! `{}`; `cursor/ask_question`, `cursor/create_plan`, `fs/*` and `terminal/*` get `-32601`. Each
//! answer is proved from the fake's log and recorded as an `acp_client` event (C-ACP-1).

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::{Cursor, answers, args};

/// The `acp_client: agent_request` records of a run, as `method -> (answer, code)`.
fn answered(h: &mut Cursor, run_id: &str) -> BTreeMap<String, (String, Value)> {
    h.client_records(run_id)
        .into_iter()
        .filter(|r| r["acp_client"] == "agent_request")
        .map(|r| {
            (
                r["method"].as_str().expect("method").to_owned(),
                (
                    r["answer"].as_str().expect("answer").to_owned(),
                    r["code"].clone(),
                ),
            )
        })
        .collect()
}

/// What the client sent back for each agent request of the run's events, by method: the
/// agent's requests are in the events (every agent line is), the answers in the fake's log.
fn wire_answers(h: &mut Cursor, run_id: &str) -> BTreeMap<String, Value> {
    let (events, _) = h.events(run_id);
    let sent = answers(&h.log);
    events
        .iter()
        .filter(|e| e["method"].is_string() && e.get("id").is_some())
        .map(|req| {
            let answer = sent
                .iter()
                .find(|a| a["id"] == req["id"])
                .unwrap_or_else(|| panic!("ACP-5: no answer to {req}"))
                .clone();
            (req["method"].as_str().expect("method").to_owned(), answer)
        })
        .collect()
}

#[test]
fn every_cursor_extension_request_is_answered_and_the_turn_completes() {
    // ACP-5.
    let mut h = Cursor::new("default");
    let (r, is_error) = h.run(args("cursor-extensions", json!({})));
    assert!(!is_error, "{r}");
    assert_eq!(r["state"], "succeeded", "{r}");
    let text = r["final"]["text"].as_str().expect("text");
    assert!(
        text.contains("No answer to my question; going on.")
            && text.contains("Plan not accepted; going on.")
            && text.ends_with("Finished."),
        "{text}"
    );
    let run_id = r["run_id"].as_str().expect("run_id").to_owned();
    let wire = wire_answers(&mut h, &run_id);
    for m in [
        "cursor/update_todos",
        "cursor/task",
        "cursor/generate_image",
    ] {
        assert_eq!(wire[m]["result"], json!({}), "{m}: {}", wire[m]);
        assert!(wire[m].get("error").is_none());
    }
    for m in ["cursor/ask_question", "cursor/create_plan"] {
        assert_eq!(wire[m]["error"]["code"], -32601, "{m}: {}", wire[m]);
        assert!(wire[m].get("result").is_none());
    }
    assert_eq!(wire.len(), 5, "{wire:?}");
    let rec = answered(&mut h, &run_id);
    for m in [
        "cursor/update_todos",
        "cursor/task",
        "cursor/generate_image",
    ] {
        assert_eq!(rec[m], ("result".to_owned(), Value::Null), "{m}");
    }
    for m in ["cursor/ask_question", "cursor/create_plan"] {
        assert_eq!(rec[m], ("error".to_owned(), json!(-32601)), "{m}");
    }
}

#[test]
fn fs_and_terminal_requests_are_method_not_found_and_the_turn_completes() {
    // ACP-5: neither fs nor terminal is advertised.
    let mut h = Cursor::new("default");
    let (r, is_error) = h.run(args("fs-terminal-requests", json!({})));
    assert!(!is_error, "{r}");
    assert_eq!(r["state"], "succeeded", "{r}");
    assert_eq!(r["final"]["text"], "Finished.");
    let run_id = r["run_id"].as_str().expect("run_id").to_owned();
    let wire = wire_answers(&mut h, &run_id);
    let methods: Vec<&String> = wire.keys().collect();
    assert_eq!(
        methods,
        ["fs/read_text_file", "fs/write_text_file", "terminal/create"]
    );
    for (m, a) in &wire {
        assert_eq!(a["error"]["code"], -32601, "{m}: {a}");
    }
    let rec = answered(&mut h, &run_id);
    assert_eq!(rec.len(), 3, "{rec:?}");
    assert!(
        rec.values()
            .all(|(a, c)| a == "error" && *c == json!(-32601))
    );
}

#[test]
fn the_default_turns_update_todos_is_acknowledged() {
    // ACP-5 in the plain successful turn.
    let mut h = Cursor::new("default");
    let (r, _) = h.run(json!({"prompt": "hello"}));
    assert_eq!(r["state"], "succeeded", "{r}");
    let run_id = r["run_id"].as_str().expect("run_id").to_owned();
    // The default turn does not wait for this answer (Cursor ignores answers to update_todos)
    // and the group is killed right after the turn, so the fake may die before it reads and logs
    // the answer: the client's own record is the evidence here; the wire is checked in the
    // scenario below, where later blocking requests make the fake read every answer.
    let records = answered(&mut h, &run_id);
    assert_eq!(
        records["cursor/update_todos"],
        ("result".to_owned(), Value::Null),
        "{records:?}"
    );
}

#[test]
fn agent_request_ids_that_collide_with_the_clients_own_are_still_requests() {
    // ACP-1: the client's session/prompt has id 3 (initialize 1, session/new 2); an agent request
    // with id 3 is answered as a request and does not settle the prompt.
    let mut h = Cursor::new("default");
    let scenario = json!({
        "kind": "injection",
        "description": "agent requests reusing the client's ids",
        "source": "adapter integration test",
        "steps": [
            {"request": {"method": "cursor/task", "id": 3, "params": {"description": "x"},
                         "on": {"*": []}}},
            {"request": {"method": "cursor/ask_question", "id": 1, "params": {"title": "q"},
                         "on": {"*": []}}},
            {"update": {"sessionUpdate": "agent_message_chunk",
                        "content": {"type": "text", "text": "after"}}}
        ]
    });
    let file = super::scenario_file(&h.log, "colliding-ids", &scenario);
    let (r, is_error) = h.run(json!({"prompt": format!("scenario: {file}\nx")}));
    assert!(!is_error, "{r}");
    assert_eq!(r["state"], "succeeded", "{r}");
    assert_eq!(
        r["final"]["text"], "after",
        "the prompt settled at its real answer"
    );
    assert_eq!(
        h.log.sent_method("session/prompt")[0]["id"],
        3,
        "the collision is real"
    );
    let sent = answers(&h.log);
    assert!(
        sent.contains(&json!({"jsonrpc": "2.0", "id": 3, "result": {}})),
        "{sent:?}"
    );
    assert!(
        sent.iter()
            .any(|a| a["id"] == 1 && a["error"]["code"] == -32601),
        "{sent:?}"
    );
}
