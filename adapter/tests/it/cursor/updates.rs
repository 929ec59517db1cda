//! ACP-3 over stdio: every `session/update` is one native event kept as received; unknown
//! variants (Cursor's `subagent_*`, a made-up future one) are kept and never fail a run; a
//! `toolCallId` holding a newline breaks nothing. ACP-10: only the turn's own chunks make the
//! final text.

use serde_json::json;

use super::{Cursor, args, updates};

#[test]
fn unknown_update_variants_are_kept_as_events_and_the_run_succeeds() {
    // ACP-3, C-ACP-1.
    let mut h = Cursor::new("default");
    let (r, is_error) = h.run(args("unknown-update", json!({})));
    assert!(!is_error, "{r}");
    assert_eq!(r["state"], "succeeded", "{r}");
    assert_eq!(r["final"]["text"], "Spawning a helper. Helper done.");
    let run_id = r["run_id"].as_str().expect("run_id").to_owned();
    let (events, _) = h.events(&run_id);
    let variants: Vec<&str> = updates(&events)
        .iter()
        .filter_map(|u| u["params"]["update"]["sessionUpdate"].as_str())
        .collect();
    assert_eq!(
        variants,
        [
            "agent_message_chunk",
            "subagent_spawned",
            "subagent_state_update",
            "future_variant_from_2027",
            "agent_message_chunk"
        ]
    );
    let future = updates(&events)
        .into_iter()
        .find(|u| u["params"]["update"]["sessionUpdate"] == "future_variant_from_2027")
        .expect("kept");
    assert_eq!(
        future["params"]["update"],
        json!({"sessionUpdate": "future_variant_from_2027", "payload": {"x": 1}}),
        "kept as received"
    );
    assert_eq!(future["params"]["sessionId"], r["final"]["sessionId"]);
}

#[test]
fn a_tool_call_id_with_a_newline_breaks_nothing() {
    // ACP-1, ACP-3: the id is JSON-escaped on the wire; the event keeps it exactly.
    let mut h = Cursor::new("default");
    let (r, is_error) = h.run(args("toolcallid-newline", json!({})));
    assert!(!is_error, "{r}");
    assert_eq!(r["state"], "succeeded", "{r}");
    assert_eq!(r["final"]["text"], "Listed.");
    let run_id = r["run_id"].as_str().expect("run_id").to_owned();
    let (events, _) = h.events(&run_id);
    let with_id: Vec<_> = updates(&events)
        .into_iter()
        .filter(|u| u["params"]["update"]["toolCallId"] == "call_7xQ2\nfc_1a2b")
        .collect();
    assert_eq!(with_id.len(), 2, "{events:?}");
    assert_eq!(r["events_total"].as_u64(), Some(events.len() as u64));
}

#[test]
fn the_tools_turn_keeps_every_update_in_order() {
    // ACP-3: the spike's tool turn, every update one event, none invented or lost.
    let mut h = Cursor::new("default");
    let (r, _) = h.run(args("tools", json!({})));
    assert_eq!(r["state"], "succeeded", "{r}");
    let run_id = r["run_id"].as_str().expect("run_id").to_owned();
    let (events, _) = h.events(&run_id);
    let ups = updates(&events);
    assert!(ups.len() > 10, "{}", ups.len());
    assert!(
        ups.iter()
            .any(|u| u["params"]["update"]["sessionUpdate"] == "session_info_update")
    );
    // Every event is a line the agent wrote (an update, a request, a response) or a client
    // record; nothing else.
    for e in &events {
        assert!(
            e.get("acp_client").is_some()
                || e.get("method").is_some()
                || e.get("result").is_some()
                || e.get("error").is_some(),
            "{e}"
        );
    }
}

#[test]
fn a_chunk_of_another_session_is_an_event_never_the_final_text() {
    // ACP-10, C-ACP-1: kept as events, counted in the final, never appended.
    let mut h = Cursor::new("default");
    let (r, is_error) = h.run(args("foreign-session-chunk", json!({})));
    assert!(!is_error, "{r}");
    assert_eq!(r["state"], "succeeded", "{r}");
    assert_eq!(r["final"]["text"], "Say hello. Done.", "{r}");
    assert_eq!(r["final"]["foreignUpdates"], 2, "{r}");
    let run_id = r["run_id"].as_str().expect("run_id").to_owned();
    let (events, _) = h.events(&run_id);
    let stray = events
        .iter()
        .filter(|e| e["params"]["update"]["content"]["text"] == "stray")
        .count();
    assert_eq!(
        stray, 2,
        "both foreign updates are kept as events: {events:?}"
    );
}

#[test]
fn chunks_after_the_prompts_answer_are_never_the_final_text_nor_oversized() {
    // ACP-10, BND-3: 160 KiB streamed right after `end_turn` neither join the text nor make the
    // run `oversized_final`; those read before the group's end are counted.
    let mut h = Cursor::new("default");
    let (r, is_error) = h.run(args("late-chunks", json!({})));
    assert!(!is_error, "{r}");
    assert_eq!(r["state"], "succeeded", "{r}");
    assert_eq!(r["final"]["text"], "Hello.", "{r}");
    assert!(
        r["final"]["lateUpdates"].as_u64().unwrap_or(0) <= 40,
        "at most the 40 late chunks are counted: {r}"
    );
}
