//! ACP-4: each permission mode, `allow_always`/`reject_always` never selected, the offered
//! `optionId` echoed, `cancelled` when no option fits, Cursor's ask_question skip option, every
//! decision recorded (events and report, bounded); ACP-11: plan only where the agent offers it.

use acp_client::{MAX_KEPT_DECISIONS, PermissionMode, TurnOutcome};
use serde_json::{Value, json};

use crate::support::{Agent, config, plan_modes, records, start};

/// Cursor's three options plus `reject_always`, with ids that differ from their kinds.
fn all_options() -> Value {
    json!([
        {"optionId": "allow-always", "name": "Always", "kind": "allow_always"},
        {"optionId": "allow-once", "name": "Once", "kind": "allow_once"},
        {"optionId": "never", "name": "Never", "kind": "reject_always"},
        {"optionId": "reject-once", "name": "No", "kind": "reject_once"},
    ])
}

async fn ask_permission(agent: &mut Agent, id: Value, tool_call: Value, options: Value) -> Value {
    let answer = agent
        .ask(
            id,
            "session/request_permission",
            json!({"sessionId": "sess-1", "toolCall": tool_call, "options": options}),
        )
        .await;
    answer["result"]["outcome"].clone()
}

fn selected(option_id: &str) -> Value {
    json!({"outcome": "selected", "optionId": option_id})
}

#[tokio::test]
async fn dont_ask_rejects_every_tool_once_and_echoes_the_offered_option_id() {
    let mut h = start(config("hi"));
    let prompt = h.agent.handshake_to_prompt().await;
    for (i, kind) in ["execute", "edit", "fetch"].into_iter().enumerate() {
        let outcome = ask_permission(
            &mut h.agent,
            json!(i),
            json!({"toolCallId": format!("t{i}"), "kind": kind, "title": "Run"}),
            all_options(),
        )
        .await;
        assert_eq!(outcome, selected("reject-once"));
    }
    h.agent
        .reply(&prompt, json!({"stopReason": "end_turn"}))
        .await;
    let (report, _, events) = h.report().await;
    assert_eq!(report.permission_decisions.len(), 3);
    let first = &report.permission_decisions[0];
    assert_eq!(first.tool_call_id.as_deref(), Some("t0"));
    assert_eq!(first.tool_kind.as_deref(), Some("execute"));
    assert_eq!(first.title.as_deref(), Some("Run"));
    assert_eq!(first.offered.len(), 4);
    assert_eq!(
        first.offered[1],
        ("allow-once".to_owned(), "allow_once".to_owned())
    );
    assert_eq!(first.selected.as_deref(), Some("reject-once"));
    assert_eq!(first.selected_kind.as_deref(), Some("reject_once"));
    assert_eq!(first.outcome, "selected");
    let recs: Vec<Value> = records(&events)
        .into_iter()
        .filter(|r| r["acp_client"] == "permission")
        .collect();
    assert_eq!(recs.len(), 3);
    assert_eq!(recs[0]["selected"], "reject-once");
    assert_eq!(recs[0]["mode"], "dontAsk");
    assert_eq!(recs[2]["tool_kind"], "fetch");
}

#[tokio::test]
async fn plan_sends_set_mode_before_the_prompt_then_rejects() {
    let mut cfg = config("hi");
    cfg.permission_mode = PermissionMode::Plan;
    let mut h = start(cfg);
    h.agent.initialize(json!({})).await;
    let new = h.agent.expect("session/new").await;
    h.agent
        .reply(&new, json!({"sessionId": "sess-1", "modes": plan_modes()}))
        .await;
    let set_mode = h.agent.expect("session/set_mode").await;
    assert_eq!(
        set_mode["params"],
        json!({"sessionId": "sess-1", "modeId": "plan"})
    );
    h.agent.reply(&set_mode, json!({})).await;
    h.agent
        .update(json!({"sessionUpdate": "current_mode_update", "currentModeId": "plan"}))
        .await;
    let prompt = h.agent.expect("session/prompt").await;
    let outcome = ask_permission(
        &mut h.agent,
        json!("p"),
        json!({"toolCallId": "shell", "kind": "execute"}),
        all_options(),
    )
    .await;
    assert_eq!(outcome, selected("reject-once"));
    h.agent
        .reply(&prompt, json!({"stopReason": "end_turn"}))
        .await;
    let (report, _, _) = h.report().await;
    assert!(matches!(report.outcome, TurnOutcome::Completed { .. }));
    assert_eq!(report.unknown_updates, 0);
}

#[tokio::test]
async fn a_failed_set_mode_ends_the_turn_before_the_prompt() {
    let mut cfg = config("hi");
    cfg.permission_mode = PermissionMode::Plan;
    let mut h = start(cfg);
    h.agent.initialize(json!({})).await;
    let new = h.agent.expect("session/new").await;
    h.agent
        .reply(&new, json!({"sessionId": "sess-1", "modes": plan_modes()}))
        .await;
    let set_mode = h.agent.expect("session/set_mode").await;
    h.agent
        .reply_error(
            &set_mode,
            json!({"code": -32601, "message": "Method not found"}),
        )
        .await;
    let (report, mut agent, _) = h.report().await;
    // ACP-11: a refused switch names the modes offered.
    assert!(
        matches!(&report.outcome, TurnOutcome::ModeUnavailable { mode: "plan", offered, error: Some(error) }
            if error.code == -32601 && offered == &["agent", "plan"]),
        "{:?}",
        report.outcome
    );
    assert_eq!(
        agent.try_recv().await,
        None,
        "no prompt after a failed set_mode"
    );
}

#[tokio::test]
async fn accept_edits_allows_edits_once_and_rejects_everything_else() {
    let mut cfg = config("hi");
    cfg.permission_mode = PermissionMode::AcceptEdits;
    let mut h = start(cfg);
    let prompt = h.agent.handshake_to_prompt().await;
    // The kind from the request itself.
    let edit = ask_permission(
        &mut h.agent,
        json!(1),
        json!({"toolCallId": "e1", "kind": "edit"}),
        all_options(),
    )
    .await;
    assert_eq!(edit, selected("allow-once"));
    let shell = ask_permission(
        &mut h.agent,
        json!(2),
        json!({"toolCallId": "s1", "kind": "execute"}),
        all_options(),
    )
    .await;
    assert_eq!(shell, selected("reject-once"));
    // The kind from an earlier tool_call update when the request omits it (an id with a newline,
    // as Cursor sends).
    h.agent
        .update(json!({"sessionUpdate": "tool_call", "toolCallId": "e\n2", "kind": "edit", "title": "Edit"}))
        .await;
    let later = ask_permission(
        &mut h.agent,
        json!(3),
        json!({"toolCallId": "e\n2"}),
        all_options(),
    )
    .await;
    assert_eq!(later, selected("allow-once"));
    // Unknown kind: rejected.
    let unknown = ask_permission(
        &mut h.agent,
        json!(4),
        json!({"toolCallId": "z"}),
        all_options(),
    )
    .await;
    assert_eq!(unknown, selected("reject-once"));
    h.agent
        .reply(&prompt, json!({"stopReason": "end_turn"}))
        .await;
    let (report, _, _) = h.report().await;
    let kinds: Vec<Option<&str>> = report
        .permission_decisions
        .iter()
        .map(|d| d.tool_kind.as_deref())
        .collect();
    assert_eq!(
        kinds,
        vec![Some("edit"), Some("execute"), Some("edit"), None]
    );
}

#[tokio::test]
async fn without_an_option_of_the_needed_kind_the_answer_is_cancelled_never_an_always_option() {
    for mode in [
        PermissionMode::DontAsk,
        PermissionMode::Plan,
        PermissionMode::AcceptEdits,
    ] {
        let mut cfg = config("hi");
        cfg.permission_mode = mode;
        let mut h = start(cfg);
        h.agent.initialize(json!({})).await;
        let new = h.agent.expect("session/new").await;
        h.agent
            .reply(&new, json!({"sessionId": "sess-1", "modes": plan_modes()}))
            .await;
        if mode == PermissionMode::Plan {
            let set_mode = h.agent.expect("session/set_mode").await;
            h.agent.reply(&set_mode, json!({})).await;
        }
        let prompt = h.agent.expect("session/prompt").await;
        let only_always = json!([
            {"optionId": "a", "name": "Always", "kind": "allow_always"},
            {"optionId": "r", "name": "Never", "kind": "reject_always"},
        ]);
        for kind in ["edit", "execute"] {
            let outcome = ask_permission(
                &mut h.agent,
                json!(kind),
                json!({"toolCallId": kind, "kind": kind}),
                only_always.clone(),
            )
            .await;
            assert_eq!(outcome, json!({"outcome": "cancelled"}), "{mode:?} {kind}");
        }
        // No options at all, and options that are not a list.
        for options in [json!([]), json!("nope")] {
            let outcome =
                ask_permission(&mut h.agent, json!("x"), json!({"kind": "edit"}), options).await;
            assert_eq!(outcome, json!({"outcome": "cancelled"}));
        }
        h.agent
            .reply(&prompt, json!({"stopReason": "end_turn"}))
            .await;
        let (report, _, _) = h.report().await;
        assert!(
            report
                .permission_decisions
                .iter()
                .all(|d| d.outcome == "cancelled" && d.selected.is_none() && !d.reason.is_empty())
        );
    }
}

#[tokio::test]
async fn cursor_ask_question_as_a_permission_request_is_answered_with_its_skip_option() {
    let mut cfg = config("hi");
    cfg.permission_mode = PermissionMode::AcceptEdits;
    let mut h = start(cfg);
    let prompt = h.agent.handshake_to_prompt().await;
    let outcome = ask_permission(
        &mut h.agent,
        json!(9),
        json!({"toolCallId": "ask_question_1", "kind": "other", "title": "Which color?"}),
        json!([
            {"optionId": "red", "name": "Red", "kind": "allow_once"},
            {"optionId": "blue", "name": "Blue", "kind": "allow_once"},
            {"optionId": acp_client::ASK_QUESTION_SKIP, "name": "Skip", "kind": "reject_once"},
        ]),
    )
    .await;
    assert_eq!(outcome, selected("__ask_question_skip__"));
    h.agent
        .reply(&prompt, json!({"stopReason": "end_turn"}))
        .await;
    let (report, _, _) = h.report().await;
    assert_eq!(
        report.permission_decisions[0].selected_kind.as_deref(),
        Some("reject_once")
    );
}

#[tokio::test]
async fn a_skip_option_of_another_kind_is_never_selected_as_the_skip() {
    // ACP-12: `__ask_question_skip__` is the skip only as a `reject_once` option; under any other
    // kind it is an ordinary option, chosen (or not) by kind like any other.
    for (mode, skip_kind, expected) in [
        (PermissionMode::DontAsk, "allow_once", "no"),
        (PermissionMode::DontAsk, "allow_always", "no"),
        (PermissionMode::Plan, "reject_always", "no"),
        (PermissionMode::AcceptEdits, "allow_once", "no"),
    ] {
        let mut cfg = config("hi");
        cfg.permission_mode = mode;
        let mut h = start(cfg);
        if mode == PermissionMode::Plan {
            h.agent.initialize(json!({})).await;
            let new = h.agent.expect("session/new").await;
            h.agent
                .reply(&new, json!({"sessionId": "sess-1", "modes": plan_modes()}))
                .await;
            let set_mode = h.agent.expect("session/set_mode").await;
            h.agent.reply(&set_mode, json!({})).await;
        }
        let prompt = if mode == PermissionMode::Plan {
            h.agent.expect("session/prompt").await
        } else {
            h.agent.handshake_to_prompt().await
        };
        let outcome = ask_permission(
            &mut h.agent,
            json!(9),
            json!({"toolCallId": "ask_question_1", "kind": "other", "title": "Which color?"}),
            json!([
                {"optionId": acp_client::ASK_QUESTION_SKIP, "name": "Skip", "kind": skip_kind},
                {"optionId": "no", "name": "No", "kind": "reject_once"},
            ]),
        )
        .await;
        assert_eq!(outcome, selected(expected), "{mode:?} {skip_kind}");
        h.agent
            .reply(&prompt, json!({"stopReason": "end_turn"}))
            .await;
        let (report, _, _) = h.report().await;
        assert_eq!(
            report.permission_decisions[0].selected_kind.as_deref(),
            Some("reject_once")
        );
    }
}

#[tokio::test]
async fn decisions_kept_in_the_report_are_bounded_and_the_rest_counted() {
    let mut h = start(config("hi"));
    let prompt = h.agent.handshake_to_prompt().await;
    let total = MAX_KEPT_DECISIONS + 10;
    for i in 0..total {
        let outcome = ask_permission(
            &mut h.agent,
            json!(i),
            json!({"toolCallId": format!("t{i}"), "kind": "execute"}),
            all_options(),
        )
        .await;
        assert_eq!(outcome, selected("reject-once"));
    }
    h.agent
        .reply(&prompt, json!({"stopReason": "end_turn"}))
        .await;
    let (report, _, events) = h.report().await;
    assert_eq!(report.permission_decisions.len(), MAX_KEPT_DECISIONS);
    assert_eq!(report.permission_decisions_dropped, 10);
    // Every decision still has its event record.
    let n = records(&events)
        .iter()
        .filter(|r| r["acp_client"] == "permission")
        .count();
    assert_eq!(n, total);
}

#[tokio::test]
async fn plan_with_an_agent_that_advertises_no_plan_mode_fails_before_the_prompt() {
    // ACP-11: never more power than asked: no set_mode, no prompt, the offered modes named.
    for (modes, offered) in [
        (None, vec![]),
        (
            Some(json!({"currentModeId": "default", "availableModes": []})),
            vec![],
        ),
        (
            Some(json!({"currentModeId": "agent", "availableModes": [
                {"id": "agent", "name": "Agent"}, {"id": "ask", "name": "Ask"}, {"name": "no id"}
            ]})),
            vec!["agent", "ask"],
        ),
        (Some(json!({"availableModes": "plan"})), vec![]),
    ] {
        let mut cfg = config("hi");
        cfg.permission_mode = PermissionMode::Plan;
        let mut h = start(cfg);
        h.agent.initialize(json!({})).await;
        let new = h.agent.expect("session/new").await;
        let mut result = json!({"sessionId": "sess-1"});
        if let Some(modes) = &modes {
            result["modes"] = modes.clone();
        }
        h.agent.reply(&new, result).await;
        let (report, mut agent, _) = h.report().await;
        assert_eq!(
            report.outcome,
            TurnOutcome::ModeUnavailable {
                mode: "plan",
                offered: offered.iter().map(|m| (*m).to_owned()).collect(),
                error: None
            },
            "{modes:?}"
        );
        assert_eq!(
            agent.try_recv().await,
            None,
            "nothing sent after session/new"
        );
    }
}

#[tokio::test]
async fn modes_that_need_no_agent_mode_work_with_agents_that_advertise_none() {
    // ACP-11: dontAsk and acceptEdits send no set_mode and need no modes.
    for mode in [PermissionMode::DontAsk, PermissionMode::AcceptEdits] {
        let mut cfg = config("hi");
        cfg.permission_mode = mode;
        let mut h = start(cfg);
        let prompt = h.agent.handshake_to_prompt().await;
        h.agent.say("ok").await;
        h.agent
            .reply(&prompt, json!({"stopReason": "end_turn"}))
            .await;
        let (report, _, _) = h.report().await;
        assert!(
            matches!(report.outcome, TurnOutcome::Completed { .. }),
            "{mode:?}"
        );
        assert_eq!(report.text, "ok");
    }
}
