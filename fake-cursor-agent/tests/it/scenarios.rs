//! Every built-in scenario's turn, as a client sees it, and how a scenario is selected
//! (FAKE-ACP-1, FAKE-ACP-3).

use std::time::Duration;

use serde_json::{Value, json};

use crate::{Agent, answer_with_kind, crate_dir, last, text, updates};

/// Runs `scenario`'s turn after a fresh handshake, answering with `kind`.
fn run(scenario: &str, kind: &'static str) -> Vec<Value> {
    let mut agent = Agent::start(&[]);
    let sid = agent.handshake();
    agent.turn(
        &sid,
        &format!("scenario: {scenario}\nplease"),
        answer_with_kind(kind),
    )
}

fn requests<'a>(msgs: &'a [Value], method: &str) -> Vec<&'a Value> {
    msgs.iter()
        .filter(|m| m["method"] == method && m.get("id").is_some())
        .collect()
}

fn tool_updates<'a>(msgs: &'a [Value], id: &str) -> Vec<&'a Value> {
    updates(msgs)
        .into_iter()
        .filter(|u| u["toolCallId"] == id)
        .collect()
}

#[test]
fn default_turn_streams_chunks_and_sends_update_todos_without_session_id() {
    let msgs = run("default", "reject_once");
    assert_eq!(text(&msgs), "Hello! I'm the fake Cursor agent. Done.");
    let todos = requests(&msgs, "cursor/update_todos");
    assert_eq!(todos.len(), 1);
    assert!(todos[0]["params"].get("sessionId").is_none());
    assert_eq!(last(&msgs)["result"], json!({"stopReason": "end_turn"}));
}

#[test]
fn env_selects_the_process_scenario_and_the_prompt_line_overrides_it() {
    let mut agent = Agent::start(&[("FAKE_CURSOR_SCENARIO", "refusal")]);
    let sid = agent.handshake();
    let msgs = agent.turn(&sid, "hello", answer_with_kind("reject_once"));
    assert_eq!(last(&msgs)["result"]["stopReason"], "refusal");
    let msgs = agent.turn(
        &sid,
        "scenario: max-tokens",
        answer_with_kind("reject_once"),
    );
    assert_eq!(last(&msgs)["result"]["stopReason"], "max_tokens");
}

#[test]
fn unknown_scenario_is_the_fakes_own_error() {
    let mut agent = Agent::start(&[]);
    let sid = agent.handshake();
    agent.prompt(&sid, "scenario: no-such-thing");
    assert_eq!(
        agent.exit_within(crate::SOON).expect("exits").code(),
        Some(2)
    );
    assert!(
        agent
            .stderr_at_exit()
            .contains("unknown scenario \"no-such-thing\"")
    );
    let out = crate::command(&["acp"])
        .env("FAKE_CURSOR_SCENARIO", "nope")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn tools_turn_has_the_spike_shapes() {
    let msgs = run("tools", "reject_once");
    assert!(requests(&msgs, "session/request_permission").is_empty());
    let read = tool_updates(&msgs, "read_0");
    assert_eq!(read[0]["kind"], "read");
    assert!(read[1]["rawOutput"]["content"].is_string());
    let grep = tool_updates(&msgs, "grep_0");
    assert_eq!(
        (grep[0]["kind"].clone(), grep[0]["rawInput"].clone()),
        (json!("search"), json!({}))
    );
    assert_eq!(grep[1]["rawInput"]["pattern"], "TODO");
    assert_eq!(
        grep[2]["rawOutput"],
        json!({"totalMatches": 2, "truncated": false})
    );
    let shell = tool_updates(&msgs, "shell_0");
    assert_eq!(shell[0]["kind"], "execute");
    assert_eq!(
        shell[1]["rawOutput"],
        json!({"exitCode": 0, "stdout": "hello\n", "stderr": ""})
    );
    let edit = tool_updates(&msgs, "edit_0");
    assert_eq!(edit[0]["rawInput"], json!({}));
    assert_eq!(edit[1]["rawInput"]["path"], "/workspace/notes.txt");
    let diff = &edit[2]["content"][0];
    assert_eq!(diff["type"], "diff");
    assert_eq!(diff["oldText"], "-- /dev/null");
    assert!(
        diff["newText"]
            .as_str()
            .expect("text")
            .starts_with("++ b/notes.txt\n")
    );
    assert_eq!(tool_updates(&msgs, "edit_1").len(), 3);
    let todo = tool_updates(&msgs, "todo_0");
    assert_eq!(todo[0]["kind"], "other");
    assert_eq!(todo[0]["rawInput"]["_toolName"], "updateTodos");
    let kinds: Vec<_> = updates(&msgs)
        .iter()
        .map(|u| u["sessionUpdate"].clone())
        .collect();
    for k in [
        "available_commands_update",
        "agent_thought_chunk",
        "session_info_update",
    ] {
        assert!(kinds.contains(&json!(k)), "{k}");
    }
    assert_eq!(last(&msgs)["result"]["stopReason"], "end_turn");
}

#[test]
fn permission_shell_offers_three_options_and_reports_a_rejected_call_completed_without_output() {
    let msgs = run("permission-shell", "reject_once");
    let perm = requests(&msgs, "session/request_permission");
    assert_eq!(perm.len(), 1);
    assert_eq!(
        perm[0]["params"]["options"],
        json!([
            {"optionId": "allow-once", "name": "Allow once", "kind": "allow_once"},
            {"optionId": "allow-always", "name": "Allow always", "kind": "allow_always"},
            {"optionId": "reject-once", "name": "Reject", "kind": "reject_once"}
        ])
    );
    assert_eq!(perm[0]["params"]["toolCall"]["kind"], "execute");
    let done = tool_updates(&msgs, "shell_0")
        .pop()
        .expect("update")
        .clone();
    assert_eq!(
        done,
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "shell_0", "status": "completed"})
    );

    let msgs = run("permission-shell", "allow_once");
    let done = tool_updates(&msgs, "shell_0")
        .pop()
        .expect("update")
        .clone();
    assert_eq!(done["rawOutput"]["exitCode"], 0);
}

#[test]
fn plan_mode_blocks_the_edit_only_in_plan_mode() {
    let mut agent = Agent::start(&[]);
    let sid = agent.handshake();
    let id = agent.request(
        "session/set_mode",
        json!({"sessionId": sid, "modeId": "plan"}),
    );
    agent.until_answer(&id);
    let msgs = agent.turn(&sid, "scenario: plan-mode", answer_with_kind("reject_once"));
    assert!(text(&msgs).starts_with("Working in mode plan."));
    let edit = tool_updates(&msgs, "edit_0");
    assert_eq!(edit.len(), 2);
    assert!(edit[1].get("content").is_none());
    assert_eq!(requests(&msgs, "session/request_permission").len(), 1);

    let msgs = run("plan-mode", "reject_once");
    assert_eq!(
        tool_updates(&msgs, "edit_0")[2]["content"][0]["type"],
        "diff"
    );
    assert_eq!(requests(&msgs, "session/request_permission").len(), 1);
}

#[test]
fn fetch_permission_asks_for_web_fetch_0_of_kind_fetch() {
    let msgs = run("fetch-permission", "reject_once");
    let perm = requests(&msgs, "session/request_permission");
    assert_eq!(perm[0]["params"]["toolCall"]["toolCallId"], "web_fetch_0");
    assert_eq!(perm[0]["params"]["toolCall"]["kind"], "fetch");
    let done = tool_updates(&msgs, "web_fetch_0").pop().expect("u").clone();
    assert_eq!(done["status"], "completed");
    assert!(done.get("rawOutput").is_none());
}

#[test]
fn denied_read_is_completed_with_no_output() {
    let msgs = run("denied-read", "reject_once");
    let read = tool_updates(&msgs, "read_0");
    assert_eq!(read[1]["status"], "completed");
    assert!(read[1].get("rawOutput").is_none() && read[1].get("content").is_none());
    assert!(text(&msgs).contains("Permission denied"));
}

#[test]
fn cursor_extensions_send_five_requests_with_ids_and_no_session_id() {
    let msgs = run("cursor-extensions", "reject_once");
    for m in [
        "cursor/update_todos",
        "cursor/task",
        "cursor/generate_image",
        "cursor/ask_question",
        "cursor/create_plan",
    ] {
        let reqs = requests(&msgs, m);
        assert_eq!(reqs.len(), 1, "{m}");
        assert!(reqs[0]["params"].get("sessionId").is_none(), "{m}");
    }
    assert!(text(&msgs).contains("No answer to my question"));
    assert!(text(&msgs).contains("Plan not accepted"));
}

#[test]
fn blocking_extension_requests_hold_the_turn_until_answered() {
    let mut agent = Agent::start(&[]);
    let sid = agent.handshake();
    let id = agent.prompt(&sid, "scenario: cursor-extensions");
    let mut ask = None;
    for _ in 0..4 {
        let m = agent.next_msg();
        if m["method"] == "cursor/ask_question" {
            ask = Some(m);
        }
    }
    let ask = ask.expect("ask_question request");
    assert!(agent.line_within(Duration::from_millis(500)).is_none());
    agent.send(&json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"answers": []}}));
    let next = agent.next_msg();
    assert_eq!(
        next["params"]["update"]["content"]["text"],
        "Thanks for the answer."
    );
    let plan = agent.next_msg();
    assert_eq!(plan["method"], "cursor/create_plan");
    agent.send(&json!({"jsonrpc": "2.0", "id": plan["id"], "result": {"accepted": true}}));
    let msgs = agent.until_answer(&id);
    assert!(text(&msgs).contains("Plan accepted."));
}

#[test]
fn ask_question_permission_has_one_allow_once_per_answer_and_a_skip() {
    let msgs = run("ask-question-permission", "reject_once");
    let perm = requests(&msgs, "session/request_permission");
    let options = perm[0]["params"]["options"].as_array().expect("options");
    let skip = options.last().expect("skip");
    assert_eq!(skip["optionId"], "__ask_question_skip__");
    assert_eq!(skip["kind"], "reject_once");
    assert!(
        options[..options.len() - 1]
            .iter()
            .all(|o| o["kind"] == "allow_once")
    );
    assert_eq!(text(&msgs), "Question skipped; choosing myself.");
}

#[test]
fn toolcallid_newline_keeps_the_newline() {
    let msgs = run("toolcallid-newline", "reject_once");
    assert_eq!(tool_updates(&msgs, "call_7xQ2\nfc_1a2b").len(), 2);
}

#[test]
fn unknown_update_variants_are_emitted_between_chunks() {
    let msgs = run("unknown-update", "reject_once");
    let kinds: Vec<_> = updates(&msgs)
        .iter()
        .map(|u| u["sessionUpdate"].clone())
        .collect();
    assert!(kinds.contains(&json!("subagent_spawned")));
    assert!(kinds.contains(&json!("subagent_state_update")));
    assert_eq!(last(&msgs)["result"]["stopReason"], "end_turn");
}

#[test]
fn stop_reasons_and_a_prompt_error() {
    assert_eq!(
        last(&run("refusal", "reject_once"))["result"]["stopReason"],
        "refusal"
    );
    assert_eq!(
        last(&run("max-tokens", "reject_once"))["result"]["stopReason"],
        "max_tokens"
    );
    let err = last(&run("prompt-error", "reject_once")).clone();
    assert_eq!(err["error"]["code"], -32603);
    assert!(err.get("result").is_none());
}

#[test]
fn garbage_lines_are_interleaved_with_valid_messages() {
    let mut agent = Agent::start(&[]);
    let sid = agent.handshake();
    let id = agent.prompt(&sid, "scenario: garbage-lines");
    let mut raw = Vec::new();
    loop {
        let line = agent.line_within(crate::SOON).expect("line");
        let parsed = serde_json::from_slice::<Value>(&line).ok();
        let done = parsed.as_ref().is_some_and(|m| m["id"] == id);
        raw.push((line, parsed));
        if done {
            break;
        }
    }
    let bad = raw.iter().filter(|(_, p)| p.is_none()).count();
    assert_eq!(bad, 4, "not json, cut short, invalid UTF-8, blank");
    let big = raw
        .iter()
        .find(|(l, _)| l.len() > 1024 * 1024)
        .expect("oversized line");
    assert_eq!(big.0.len(), 2_097_152);
    assert!(big.1.is_some(), "the oversized line is valid JSON");
}

/// The raw stdout lines of `scenario`'s turn (each with its JSON, when it is JSON), up to and
/// including the prompt's answer.
fn raw_turn(scenario: &str) -> Vec<(Vec<u8>, Value)> {
    let mut agent = Agent::start(&[]);
    let sid = agent.handshake();
    let id = agent.prompt(&sid, &format!("scenario: {scenario}"));
    let mut raw = Vec::new();
    loop {
        let line = agent.line_within(crate::SOON).expect("line");
        let msg: Value = serde_json::from_slice(&line).expect("every line is JSON");
        let done = msg["id"] == id;
        raw.push((line, msg));
        if done {
            return raw;
        }
    }
}

/// BND-3 through ACP (C-ACP-2): the message text is over 128 KiB, in chunks whose lines each
/// stay under a 1 MiB line bound, and the turn ends `end_turn`.
#[test]
fn oversized_text_is_over_the_final_bound_in_lines_under_the_line_bound() {
    let raw = raw_turn("oversized-text");
    assert!(raw.iter().all(|(l, _)| l.len() < 1024 * 1024));
    let msgs: Vec<Value> = raw.into_iter().map(|(_, m)| m).collect();
    assert!(text(&msgs).len() > 128 * 1024, "{}", text(&msgs).len());
    assert_eq!(last(&msgs)["result"]["stopReason"], "end_turn");
}

/// BND-1 through ACP: one valid session/update line of 1 MiB + 64 KiB, a read's
/// tool_call_update carrying the file in rawOutput.content, between ordinary chunks.
#[test]
fn oversized_read_is_one_valid_update_line_over_a_mib() {
    let raw = raw_turn("oversized-read");
    let big: Vec<&(Vec<u8>, Value)> = raw.iter().filter(|(l, _)| l.len() > 1024 * 1024).collect();
    assert_eq!(big.len(), 1);
    assert_eq!(big[0].0.len(), 1_114_112);
    let update = &big[0].1["params"]["update"];
    assert_eq!(update["sessionUpdate"], "tool_call_update");
    assert_eq!(update["toolCallId"], "read_0");
    assert!(update["rawOutput"]["content"].is_string());
    let msgs: Vec<Value> = raw.into_iter().map(|(_, m)| m).collect();
    assert_eq!(text(&msgs), "Reading the log. The log is long.");
    assert_eq!(last(&msgs)["result"]["stopReason"], "end_turn");
}

/// BND-2 and RUN-5: 300 chunks, more than a 256-event buffer; T9: chunks spread over time.
#[test]
fn many_chunks_and_slow_chunks_stream_their_updates() {
    let msgs = run("many-chunks", "reject_once");
    let chunks = updates(&msgs)
        .iter()
        .filter(|u| u["sessionUpdate"] == "agent_message_chunk")
        .count();
    assert_eq!(chunks, 300);
    assert!(text(&msgs).ends_with("chunk 299 "));
    assert_eq!(last(&msgs)["result"]["stopReason"], "end_turn");

    let mut agent = Agent::start(&[]);
    let sid = agent.handshake();
    let id = agent.prompt(&sid, "scenario: slow-chunks");
    let mut arrivals = Vec::new();
    loop {
        let msg = agent.next_msg();
        if msg["id"] == id {
            assert_eq!(msg["result"]["stopReason"], "end_turn");
            break;
        }
        assert_eq!(
            msg["params"]["update"]["sessionUpdate"],
            "agent_message_chunk"
        );
        arrivals.push(std::time::Instant::now());
    }
    assert_eq!(arrivals.len(), 8);
    // Seven 300 ms pauses lie between the first chunk and the last (a lower bound only).
    assert!(arrivals[7] - arrivals[0] >= Duration::from_millis(2000));
}

/// RUN-11: stderr noise around an ordinary turn, which still ends `end_turn`.
#[test]
fn stderr_noise_writes_three_thousand_lines_around_a_normal_turn() {
    let mut agent = Agent::start(&[]);
    let sid = agent.handshake();
    let msgs = agent.turn(
        &sid,
        "scenario: stderr-noise",
        answer_with_kind("reject_once"),
    );
    assert_eq!(text(&msgs), "Hello from the fake Cursor agent.");
    assert_eq!(last(&msgs)["result"]["stopReason"], "end_turn");
    agent.kill();
    let noise = agent.stderr_at_exit();
    assert_eq!(
        noise
            .lines()
            .filter(|l| l.starts_with("fake-cursor-agent noise line "))
            .count(),
        3000
    );
}

#[test]
fn fs_and_terminal_requests_wait_for_answers_and_go_on() {
    let msgs = run("fs-terminal-requests", "reject_once");
    for m in ["fs/read_text_file", "fs/write_text_file", "terminal/create"] {
        let r = requests(&msgs, m);
        assert_eq!(r.len(), 1, "{m}");
        assert_eq!(r[0]["params"]["sessionId"], msgs[0]["params"]["sessionId"]);
    }
    assert_eq!(last(&msgs)["result"]["stopReason"], "end_turn");
}

/// The terminal fixture for acp-conformance: terminal/* only when the client advertised
/// `terminal` (a `capability` branch), and the later calls name the id the client returned (a
/// request's `bind`).
#[test]
fn terminal_use_calls_terminals_only_when_advertised_with_the_returned_id() {
    for advertised in [true, false] {
        let mut agent = Agent::start(&[("FAKE_CURSOR_SCENARIO", "terminal-use")]);
        let mut init = crate::initialize_params();
        init["clientCapabilities"]["terminal"] = json!(advertised);
        let id = agent.request("initialize", init);
        agent.until_answer(&id);
        let id = agent.request(
            "session/new",
            json!({"cwd": "/workspace", "mcpServers": []}),
        );
        let sid = agent.until_answer(&id).pop().expect("answer")["result"]["sessionId"]
            .as_str()
            .expect("sid")
            .to_owned();
        let msgs = agent.turn(&sid, "go", |req| {
            Some(if req["method"] == "terminal/create" {
                json!({"result": {"terminalId": "t-9"}})
            } else {
                json!({"result": {}})
            })
        });
        let called: Vec<(&str, &Value)> = msgs
            .iter()
            .filter(|m| {
                m["method"]
                    .as_str()
                    .is_some_and(|x| x.starts_with("terminal/"))
            })
            .map(|m| {
                (
                    m["method"].as_str().expect("method"),
                    &m["params"]["terminalId"],
                )
            })
            .collect();
        if advertised {
            assert_eq!(
                called,
                [
                    ("terminal/create", &Value::Null),
                    ("terminal/wait_for_exit", &json!("t-9")),
                    ("terminal/output", &json!("t-9")),
                    ("terminal/release", &json!("t-9")),
                ]
            );
        } else {
            assert!(called.is_empty(), "{called:?}");
        }
        assert_eq!(last(&msgs)["result"]["stopReason"], "end_turn");
    }
}

#[test]
fn string_large_integer_and_null_request_ids_are_sent_as_given() {
    let msgs = run("string-ids", "reject_once");
    let ids: Vec<_> = requests(&msgs, "session/request_permission")
        .iter()
        .map(|r| r["id"].clone())
        .collect();
    assert_eq!(
        ids,
        [
            json!("perm-7f3a"),
            json!(9_007_199_254_740_993_u64),
            Value::Null
        ]
    );
    assert_eq!(last(&msgs)["result"]["stopReason"], "end_turn");
}

/// Every scenario file: labelled in README.md with its kind, and runnable to a settled turn (an
/// answer, an exit, or a handshake that is meant to hang) by a client that rejects everything.
#[test]
fn every_scenario_is_labelled_in_the_readme_and_runs() {
    let readme = std::fs::read_to_string(crate_dir().join("README.md")).expect("README");
    let mut names = Vec::new();
    for entry in std::fs::read_dir(crate_dir().join("scenarios")).expect("dir") {
        let path = entry.expect("entry").path();
        let name = path
            .file_stem()
            .expect("stem")
            .to_string_lossy()
            .into_owned();
        let v: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json");
        let kind = v["kind"].as_str().expect("kind");
        assert!(
            readme.contains(&format!("| `{name}` | {kind} |")),
            "README.md lacks the row for {name} ({kind})"
        );
        names.push((name, v));
    }
    assert!(names.len() >= 26);
    // Each scenario waits on its own agent (most of a run is the agent's pacing), so they run
    // side by side; a failing one panics its thread and the scope re-raises it.
    std::thread::scope(|scope| {
        for (name, v) in &names {
            scope.spawn(move || runs_to_an_answer_or_an_exit(name, v));
        }
    });
}

/// Drives scenario `name` (its file `v`) through one prompt turn, answering permission requests
/// `reject_once`: it must answer the prompt or exit (not with the usage status 2).
fn runs_to_an_answer_or_an_exit(name: &str, v: &Value) {
    let hangs = ["initialize", "session_new"]
        .iter()
        .any(|p| v["handshake"][p]["hang"] == true);
    // A turn that stops for good (hang-midturn, the acp-conformance mutants whose prompt is
    // never answered) neither answers nor exits: covered by their own tests.
    let turn_hangs = v["steps"]
        .as_array()
        .is_some_and(|steps| steps.iter().any(|s| s["hang"] == true));
    if hangs || turn_hangs {
        return;
    }
    let mut agent = Agent::start(&[("FAKE_CURSOR_SCENARIO", name), ("CURSOR_API_KEY", "k")]);
    let sid = agent.handshake();
    let id = agent.prompt(&sid, "go");
    let mut settled = false;
    while let Some(line) = agent.line_within(crate::SOON) {
        let Ok(m) = serde_json::from_slice::<Value>(&line) else {
            continue;
        };
        if m.get("method").is_some() && m.get("id").is_some() {
            if let Some(body) = answer_with_kind("reject_once")(&m) {
                let mut reply = json!({"jsonrpc": "2.0", "id": m["id"]});
                reply
                    .as_object_mut()
                    .expect("obj")
                    .extend(body.as_object().expect("b").clone());
                agent.send(&reply);
            }
        } else if m["id"] == id {
            settled = true;
            break;
        }
        if name == "cancel-midturn" {
            agent.notify("session/cancel", json!({"sessionId": sid}));
        }
    }
    let exited = if settled {
        None
    } else {
        agent.exit_within(crate::SOON)
    };
    assert!(
        settled || exited.is_some_and(|s| s.code() != Some(2)),
        "{name}: neither answered nor exited; stderr {}",
        agent.stderr_text()
    );
}

/// A scenario file given by path (not built in), using the steps no built-in scenario needs:
/// `notify`, `{{i}}` inside `repeat`, `mode`, `stderr` with placeholders, `answer` followed by
/// more steps.
#[test]
fn a_scenario_file_by_path_runs_every_remaining_step_kind() {
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("custom.json");
    let scenario = json!({
        "kind": "injection",
        "description": "test-only",
        "steps": [
            {"notify": {"method": "_fake/ping", "params": {"n": "{{model}}"}}},
            {"repeat": 2, "steps": [{"update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "r{{i}} "}}}]},
            {"mode": {"ask": [{"update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "asking"}}}],
                      "*": [{"update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "other"}}}]}},
            {"stderr": "session {{session_id}} prompt {{prompt}}"},
            {"answer": {"stopReason": "end_turn"}},
            {"update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "after the answer"}}}
        ]
    });
    std::fs::write(&path, scenario.to_string()).expect("write");
    let mut agent = Agent::start_args(
        &["--model", "m7", "acp"],
        &[("FAKE_CURSOR_SCENARIO", &path.to_string_lossy())],
    );
    let sid = agent.handshake();
    let id = agent.request(
        "session/set_mode",
        json!({"sessionId": sid, "modeId": "ask"}),
    );
    agent.until_answer(&id);
    let msgs = agent.turn(&sid, "go", answer_with_kind("reject_once"));
    assert_eq!(
        msgs[0],
        json!({"jsonrpc": "2.0", "method": "_fake/ping", "params": {"n": "m7"}})
    );
    assert_eq!(text(&msgs), "r0 r1 asking");
    let after = agent.next_msg();
    assert_eq!(
        after["params"]["update"]["content"]["text"],
        "after the answer"
    );
    agent.kill();
    assert!(
        agent
            .stderr_at_exit()
            .contains(&format!("session {sid} prompt go"))
    );
}

/// `await_answers` counts the answers served before its step too: an answer that came while
/// an earlier step ran (here a pause, which serves the client meanwhile) is not waited for
/// again. The fake once hung there, so a turn whose client answered fast never ended.
#[test]
fn await_answers_counts_an_answer_served_before_its_step() {
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("early.json");
    let scenario = json!({
        "kind": "injection",
        "description": "test-only",
        "steps": [
            {"raw": r#"{"jsonrpc":"2.0","id":"t1","method":"cursor/task","params":{"description":"x"}}"#},
            {"sleep_ms": 300},
            {"await_answers": 1},
            {"update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "done"}}}
        ]
    });
    std::fs::write(&path, scenario.to_string()).expect("write");
    let mut agent = Agent::start(&[("FAKE_CURSOR_SCENARIO", &path.to_string_lossy())]);
    let sid = agent.handshake();
    let msgs = agent.turn(&sid, "go", |_| Some(json!({"result": {}})));
    assert_eq!(text(&msgs), "done");
    agent.kill();
}

#[test]
fn a_malformed_scenario_file_is_refused_at_start() {
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("bad.json");
    std::fs::write(&path, r#"{"kind": "injection", "steps": [{"emitt": {}}]}"#).expect("write");
    let out = crate::command(&["acp"])
        .env("FAKE_CURSOR_SCENARIO", &path)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown step"));
}
