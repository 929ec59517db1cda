//! ACP-4 over stdio: each `permission_mode` answers `session/request_permission` as the contract
//! says, proved from what the fake logged (the reply echoes the offered `optionId`), and every
//! decision is an `acp_client` record in `cursor.run.events` (C-ACP-1). `allow_always` is never
//! selected (also checked on every log when the harness drops). ACP-5: Cursor's `ask_question`
//! as a permission request is answered with its skip option. ACP-1: agent request ids of any
//! type are echoed exactly. ACP-11: `plan` only where the agent can apply it.

use serde_json::{Value, json};

use super::{Cursor, answers, args, code, prompt, scenario_file, updates};

/// The three options Cursor offers for a tool call.
fn three_options() -> Value {
    json!([
        {"optionId": "allow-once", "name": "Allow once", "kind": "allow_once"},
        {"optionId": "allow-always", "name": "Allow always", "kind": "allow_always"},
        {"optionId": "reject-once", "name": "Reject", "kind": "reject_once"}
    ])
}

/// A permission request step for `tool_call` with `options`, branching on nothing.
fn ask(tool_call: Value, options: Value) -> Value {
    json!({"request": {"method": "session/request_permission",
        "params": {"sessionId": "{{session_id}}", "toolCall": tool_call, "options": options},
        "on": {"*": []}}})
}

/// The selected optionId of each permission answer the client sent, in order (`None` for a
/// `cancelled` outcome).
fn selections(h: &Cursor) -> Vec<Option<String>> {
    answers(&h.log)
        .iter()
        .filter(|a| a["result"]["outcome"].is_object())
        .map(|a| {
            let o = &a["result"]["outcome"];
            match o["outcome"].as_str() {
                Some("selected") => Some(o["optionId"].as_str().expect("optionId").to_owned()),
                Some("cancelled") => None,
                other => panic!("unknown outcome {other:?} in {a}"),
            }
        })
        .collect()
}

/// The `acp_client: permission` records of a run.
fn decisions(h: &mut Cursor, run_id: &str) -> Vec<Value> {
    h.client_records(run_id)
        .into_iter()
        .filter(|r| r["acp_client"] == "permission")
        .collect()
}

#[test]
fn dont_ask_is_the_default_and_rejects_with_the_offered_reject_once_id() {
    // ACP-4, C-ACP-1.
    let mut h = Cursor::new("default");
    let (r, is_error) = h.run(args("permission-shell", json!({})));
    assert!(!is_error, "{r}");
    assert_eq!(r["state"], "succeeded", "{r}");
    assert_eq!(selections(&h), [Some("reject-once".to_owned())]);
    assert!(
        h.log.sent_method("session/set_mode").is_empty(),
        "dontAsk sets no mode"
    );
    let run_id = r["run_id"].as_str().expect("run_id").to_owned();
    let d = decisions(&mut h, &run_id);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0]["mode"], "dontAsk");
    assert_eq!(d[0]["tool_call_id"], "shell_0");
    assert_eq!(d[0]["tool_kind"], "execute");
    assert_eq!(d[0]["selected"], "reject-once");
    assert_eq!(d[0]["selected_kind"], "reject_once");
    assert_eq!(d[0]["outcome"], "selected");
    assert_eq!(d[0]["offered"].as_array().map(Vec::len), Some(3));
    // C-ACP-1: the record follows the request line it answers.
    let (events, _) = h.events(&run_id);
    let at = events
        .iter()
        .position(|e| e["method"] == "session/request_permission")
        .expect("the request is an event");
    assert_eq!(events[at + 1]["acp_client"], "permission", "{events:?}");
    assert_eq!(events[at + 1]["id"], events[at]["id"]);
    // The rejected shell call is reported completed with no output, and the run goes on.
    let (events, _) = h.events(&run_id);
    let shell_done = updates(&events)
        .into_iter()
        .find(|u| {
            u["params"]["update"]["toolCallId"] == "shell_0"
                && u["params"]["update"]["sessionUpdate"] == "tool_call_update"
        })
        .expect("the shell call's update");
    assert!(shell_done["params"]["update"].get("rawOutput").is_none());
    assert_eq!(r["final"]["text"], "Finished.");
}

#[test]
fn plan_sends_set_mode_plan_before_the_prompt_and_then_rejects() {
    // ACP-4: `plan` goes through session/set_mode (Cursor ignores `--mode plan`), then rejects
    // like dontAsk.
    let mut h = Cursor::new("default");
    let (r, is_error) = h.run(args("plan-mode", json!({"permission_mode": "plan"})));
    assert!(!is_error, "{r}");
    assert_eq!(r["state"], "succeeded", "{r}");
    let sent = h.log.sent();
    let pos = |m: &str| sent.iter().position(|x| x["method"] == m);
    let set_mode = pos("session/set_mode").expect("session/set_mode sent");
    assert!(pos("session/new").expect("session/new") < set_mode);
    assert!(set_mode < pos("session/prompt").expect("session/prompt"));
    let sm = &sent[set_mode];
    assert_eq!(sm["params"]["modeId"], "plan");
    assert_eq!(sm["params"]["sessionId"], r["final"]["sessionId"]);
    assert_eq!(
        h.the_agent()["argv"]
            .as_array()
            .map(|a| a.contains(&json!("--mode"))),
        Some(false),
        "plan is never a flag"
    );
    // The agent was in plan mode for the turn.
    let text = r["final"]["text"].as_str().expect("text");
    assert!(text.starts_with("Working in mode plan."), "{text}");
    assert_eq!(selections(&h), [Some("reject-once".to_owned())]);
    let run_id = r["run_id"].as_str().expect("run_id").to_owned();
    let d = decisions(&mut h, &run_id);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0]["mode"], "plan");
    assert_eq!(d[0]["selected"], "reject-once");
}

#[test]
fn accept_edits_allows_edits_once_and_rejects_shell() {
    // ACP-4: allow_once only for tool calls of kind edit (given in the request, or by the
    // earlier tool_call update with the same id), reject_once for the rest, never allow_always.
    let mut h = Cursor::new("default");
    let scenario = json!({
        "kind": "injection",
        "description": "an edit and a shell call asking permission",
        "source": "adapter integration test",
        "steps": [
            {"update": {"sessionUpdate": "tool_call", "toolCallId": "edit_0",
                        "title": "Edit notes.txt", "kind": "edit", "status": "pending"}},
            ask(json!({"toolCallId": "edit_0", "title": "Edit notes.txt", "kind": "edit"}),
                three_options()),
            {"update": {"sessionUpdate": "tool_call", "toolCallId": "edit_1",
                        "title": "Edit more.txt", "kind": "edit", "status": "pending"}},
            ask(json!({"toolCallId": "edit_1", "title": "Edit more.txt"}), three_options()),
            {"update": {"sessionUpdate": "tool_call", "toolCallId": "shell_0",
                        "title": "`rm -rf x`", "kind": "execute", "status": "pending"}},
            ask(json!({"toolCallId": "shell_0", "title": "`rm -rf x`", "kind": "execute"}),
                three_options()),
            {"update": {"sessionUpdate": "agent_message_chunk",
                        "content": {"type": "text", "text": "done"}}}
        ]
    });
    let file = scenario_file(&h.log, "edit-and-shell", &scenario);
    let (r, is_error) = h.run(json!({
        "prompt": format!("scenario: {file}\nedit"),
        "permission_mode": "acceptEdits"
    }));
    assert!(!is_error, "{r}");
    assert_eq!(r["state"], "succeeded", "{r}");
    assert_eq!(
        selections(&h),
        [
            Some("allow-once".to_owned()),
            Some("allow-once".to_owned()),
            Some("reject-once".to_owned())
        ]
    );
    let run_id = r["run_id"].as_str().expect("run_id").to_owned();
    let d = decisions(&mut h, &run_id);
    let summary: Vec<(&str, &str, &str)> = d
        .iter()
        .map(|x| {
            (
                x["tool_call_id"].as_str().unwrap_or(""),
                x["tool_kind"].as_str().unwrap_or(""),
                x["selected_kind"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("edit_0", "edit", "allow_once"),
            ("edit_1", "edit", "allow_once"),
            ("shell_0", "execute", "reject_once")
        ]
    );
    assert!(d.iter().all(|x| x["mode"] == "acceptEdits"));
}

#[test]
fn accept_edits_rejects_the_permission_shell_scenario_too() {
    // ACP-4: a shell call is never allowed in acceptEdits.
    let mut h = Cursor::new("default");
    let (r, _) = h.run(args(
        "permission-shell",
        json!({"permission_mode": "acceptEdits"}),
    ));
    assert_eq!(r["state"], "succeeded", "{r}");
    assert_eq!(selections(&h), [Some("reject-once".to_owned())]);
}

#[test]
fn without_an_option_of_the_needed_kind_the_answer_is_cancelled_never_an_always() {
    // ACP-4: only allow_always/reject_always offered → {outcome: cancelled}.
    let mut h = Cursor::new("default");
    let scenario = json!({
        "kind": "injection",
        "description": "only persistent options offered",
        "source": "adapter integration test",
        "steps": [
            ask(json!({"toolCallId": "shell_0", "kind": "execute"}), json!([
                {"optionId": "allow-always", "name": "Always", "kind": "allow_always"},
                {"optionId": "reject-always", "name": "Never", "kind": "reject_always"}
            ])),
            ask(json!({"toolCallId": "edit_0", "kind": "edit"}), json!([
                {"optionId": "allow-always", "name": "Always", "kind": "allow_always"},
                {"optionId": "reject-once", "name": "Reject", "kind": "reject_once"}
            ]))
        ]
    });
    let file = scenario_file(&h.log, "always-only", &scenario);
    for mode in ["dontAsk", "plan", "acceptEdits"] {
        let (r, _) = h.run(json!({
            "prompt": format!("scenario: {file}\nx"),
            "permission_mode": mode
        }));
        assert_eq!(r["state"], "succeeded", "{mode}: {r}");
    }
    // dontAsk, plan: cancelled then reject-once; acceptEdits: cancelled (no allow_once for the
    // edit) twice.
    assert_eq!(
        selections(&h),
        [
            None,
            Some("reject-once".to_owned()),
            None,
            Some("reject-once".to_owned()),
            None,
            None
        ]
    );
}

#[test]
fn an_ask_question_permission_is_answered_with_its_skip_option_in_every_mode() {
    // ACP-5 (ask_question as session/request_permission), ACP-4.
    let mut h = Cursor::new("default");
    for mode in ["dontAsk", "plan", "acceptEdits"] {
        let (r, is_error) = h.run(args(
            "ask-question-permission",
            json!({"permission_mode": mode}),
        ));
        assert!(!is_error, "{mode}: {r}");
        assert_eq!(
            r["final"]["text"], "Question skipped; choosing myself.",
            "{r}"
        );
        let run_id = r["run_id"].as_str().expect("run_id").to_owned();
        let d = decisions(&mut h, &run_id);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0]["selected"], "__ask_question_skip__", "{mode}: {d:?}");
    }
    assert_eq!(
        selections(&h),
        vec![Some("__ask_question_skip__".to_owned()); 3]
    );
}

#[test]
fn agent_request_ids_of_any_type_are_echoed_exactly() {
    // ACP-1: a string id, an integer above 2^53 and null.
    let mut h = Cursor::new("default");
    let (r, _) = h.run(json!({"prompt": prompt("string-ids")}));
    assert_eq!(r["state"], "succeeded", "{r}");
    let ids: Vec<Value> = answers(&h.log).iter().map(|a| a["id"].clone()).collect();
    assert!(ids.contains(&json!("perm-7f3a")), "{ids:?}");
    // The null id is answered under null (and its request was in the log, so the drop check
    // matched the answer to its offered options).
    let null_answers = answers(&h.log)
        .iter()
        .filter(|a| a["id"].is_null() && a["result"]["outcome"].is_object())
        .count();
    assert_eq!(null_answers, 1, "{ids:?}");
    let raw_answers: Vec<String> = h
        .log
        .records()
        .iter()
        .filter(|r| r["event"] == "c2a")
        .filter_map(|r| r["raw"].as_str().map(str::to_owned))
        .filter(|raw| raw.contains("9007199254740993"))
        .collect();
    assert_eq!(raw_answers.len(), 1, "the big id echoed digit for digit");
    assert!(
        raw_answers[0].contains("\"id\":9007199254740993"),
        "{raw_answers:?}"
    );
}

#[test]
fn the_log_check_rejects_an_always_kind_whatever_its_option_id_says() {
    // ACP-4: the check every cursor test runs on drop judges an answer by the offered option's
    // kind, so an agent naming its allow_always option "opt-2" cannot hide a wrong selection, and
    // a selection the agent never offered fails too. A synthetic log proves both can fail.
    let log = crate::support::FakeCursorLog::new();
    let request = json!({"jsonrpc": "2.0", "id": 7, "method": "session/request_permission",
        "params": {"sessionId": "s", "toolCall": {"toolCallId": "t"}, "options": [
            {"optionId": "opt-1", "name": "Allow", "kind": "allow_once"},
            {"optionId": "opt-2", "name": "Allow all", "kind": "allow_always"}]}});
    let answer = |option: &str| {
        json!({"jsonrpc": "2.0", "id": 7,
            "result": {"outcome": {"outcome": "selected", "optionId": option}}})
    };
    let write = |selected: &str| {
        let rows = [
            json!({"event": "a2c", "ms": 0, "raw": format!("{request}\n")}),
            json!({"event": "c2a", "ms": 1, "raw": answer(selected).to_string()}),
        ];
        let text: String = rows.iter().map(|r| format!("{r}\n")).collect();
        std::fs::write(log.path(), text).expect("write the log");
    };
    let fails = |selected: &str| {
        write(selected);
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            log.assert_never_authenticated_nor_always();
        }))
        .is_err()
    };
    assert!(!fails("opt-1"), "an allow_once selection passes");
    assert!(
        fails("opt-2"),
        "an allow_always kind fails under a neutral id"
    );
    assert!(fails("opt-9"), "an option never offered fails");
}

/// `cursor.run` in `plan` against process scenario `scenario`: it must fail before the prompt.
fn plan_fails_before_the_prompt(scenario: &str) -> (Value, Cursor) {
    let mut h = Cursor::new(scenario);
    let (r, is_error) = h.run(json!({"prompt": "hello", "permission_mode": "plan"}));
    assert!(is_error, "{r}");
    assert_eq!(r["state"], "failed", "{r}");
    assert_eq!(r["final"], Value::Null, "{r}");
    assert!(
        h.log.sent_method("session/prompt").is_empty(),
        "no prompt is sent in a mode the agent cannot apply"
    );
    (r, h)
}

#[test]
fn plan_with_an_agent_that_advertises_no_modes_is_unsupported_before_the_prompt() {
    // ACP-11: never more power than asked; no set_mode either.
    let (r, h) = plan_fails_before_the_prompt("no-modes");
    assert_eq!(code(&r), "unsupported", "{r}");
    assert_eq!(r["error"]["field"], "/permission_mode", "{r}");
    assert_eq!(r["error"]["offered_modes"], json!([]), "{r}");
    let message = r["error"]["message"].as_str().expect("message");
    assert!(message.contains("advertises no modes"), "{message}");
    assert!(h.log.sent_method("session/set_mode").is_empty());
}

#[test]
fn plan_with_an_agent_without_a_plan_mode_names_the_modes_it_offers() {
    // ACP-11.
    let (r, h) = plan_fails_before_the_prompt("modes-without-plan");
    assert_eq!(code(&r), "unsupported", "{r}");
    assert_eq!(r["error"]["offered_modes"], json!(["agent", "ask"]), "{r}");
    let message = r["error"]["message"].as_str().expect("message");
    assert!(message.contains("agent, ask"), "{message}");
    assert!(h.log.sent_method("session/set_mode").is_empty());
}

#[test]
fn plan_refused_by_set_mode_is_a_native_error_before_the_prompt() {
    // ACP-11, C-ACP-2.
    let (r, h) = plan_fails_before_the_prompt("set-mode-refused");
    assert_eq!(code(&r), "native_error", "{r}");
    assert_eq!(r["native_error"]["source"], "protocol", "{r}");
    assert_eq!(
        r["error"]["offered_modes"],
        json!(["agent", "plan", "ask"]),
        "{r}"
    );
    let message = r["error"]["message"].as_str().expect("message");
    assert!(message.contains("session/set_mode failed"), "{message}");
    assert_eq!(h.log.sent_method("session/set_mode").len(), 1);
}

#[test]
fn the_default_mode_works_with_an_agent_that_advertises_no_modes() {
    // ACP-11: dontAsk needs no agent mode.
    let mut h = Cursor::new("no-modes");
    let (r, is_error) = h.run(json!({"prompt": "hello"}));
    assert!(!is_error, "{r}");
    assert_eq!(r["final"]["text"], "Working in mode agent.", "{r}");
}

#[test]
fn a_skip_option_id_on_an_allowing_option_is_never_selected() {
    // ACP-12: `__ask_question_skip__` is the skip only as a `reject_once` option; here it is
    // `allow_once`, so every mode rejects with the real reject option.
    let mut h = Cursor::new("default");
    for mode in ["dontAsk", "acceptEdits"] {
        let (r, is_error) = h.run(args(
            "skip-option-allow-kind",
            json!({"permission_mode": mode}),
        ));
        assert!(!is_error, "{mode}: {r}");
        assert_eq!(r["final"]["text"], "Not run.", "{mode}: {r}");
    }
    assert_eq!(selections(&h), vec![Some("reject-once".to_owned()); 2]);
}

#[test]
fn agent_request_ids_beyond_64_bits_are_echoed_digit_for_digit() {
    // ACP-12: 2^70 and -2^70 are answered under the very text sent, never as floats.
    let mut h = Cursor::new("default");
    let (r, is_error) = h.run(json!({"prompt": prompt("huge-ids")}));
    assert!(!is_error, "{r}");
    assert_eq!(r["state"], "succeeded", "{r}");
    let raw: Vec<String> = h
        .log
        .records()
        .iter()
        .filter(|r| r["event"] == "c2a")
        .filter_map(|r| r["raw"].as_str().map(str::to_owned))
        .collect();
    for id in ["1180591620717411303424", "-1180591620717411303424"] {
        let echoed = raw
            .iter()
            .filter(|l| l.starts_with(&format!(r#"{{"jsonrpc":"2.0","id":{id},"result""#)))
            .count();
        assert_eq!(echoed, 1, "{id} answered once, digit for digit: {raw:?}");
    }
    assert!(
        !raw.iter().any(|l| l.contains("e+21") || l.contains("e21")),
        "{raw:?}"
    );
    let run_id = r["run_id"].as_str().expect("run_id").to_owned();
    let d = decisions(&mut h, &run_id);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0]["selected"], "reject-once");
}
