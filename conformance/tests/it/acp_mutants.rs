//! One-defect mutant agents: scenarios of fake-cursor-agent (`mutant-*.json`), each differing
//! from `conformance-clean` by one deliberate defect. Each must fail (or, for a SHOULD, warn)
//! exactly its own case; every other case keeps the clean scenario's verdict or gets better (a
//! case that was not applicable may now apply and pass). ACP-GATE-3. In the fast tier a plain
//! mutant runs its own case alone (`shard`); the full tier runs it against the whole gate
//! (`whole`); the cascades (`check_blocking`) and the cross-cutting id rule run whole in both.

use std::collections::BTreeMap;
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

use crate::acp_agents::{fake_cursor_agent, non_pass, run_acp};

type Verdicts = (Option<i32>, BTreeMap<String, String>, Value);

/// The whole gate against `scenario`. `--jobs 8`: a case against the fake costs almost no CPU
/// but waits out the fake's measured ~0.5 s idle exit after EOF (Cursor's), so the gate is
/// bound by waiting, not by the machine's two cores.
fn verdicts(scenario: &str) -> Verdicts {
    verdicts_within(scenario, "20000")
}

/// [`verdicts`] with another `--timeout-ms` (an agent that never answers holds each case that
/// long).
fn verdicts_within(scenario: &str, timeout_ms: &str) -> Verdicts {
    verdicts_of(scenario, timeout_ms, &[])
}

/// [`verdicts_within`] with `more` arguments for the gate (a `--case` shard).
fn verdicts_of(scenario: &str, timeout_ms: &str, more: &[&str]) -> Verdicts {
    let mut agent = Command::new(fake_cursor_agent());
    agent.arg("acp").env("FAKE_CURSOR_SCENARIO", scenario);
    let mut args = vec!["--jobs", "8", "--timeout-ms", timeout_ms];
    args.extend_from_slice(more);
    let (out, report) = run_acp(&args, &agent);
    let all: BTreeMap<String, String> = report["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| {
            (
                c["id"].as_str().expect("id").to_owned(),
                c["outcome"].as_str().expect("outcome").to_owned(),
            )
        })
        .collect();
    (out.status.code(), all, report)
}

/// `conformance-clean`'s verdicts, run once for every test of this file. The reference has no
/// defect of its own beyond the fake's code-level choices (warnings).
fn clean() -> &'static BTreeMap<String, String> {
    static CLEAN: OnceLock<Verdicts> = OnceLock::new();
    let (_, clean, report) = CLEAN.get_or_init(|| verdicts("conformance-clean"));
    assert!(
        !non_pass(report)
            .values()
            .any(|o| o == "fail" || o == "error"),
        "conformance-clean fails: {:?}",
        non_pass(report)
    );
    clean
}

fn rank(outcome: &str) -> u8 {
    match outcome {
        "pass" => 0,
        "skip" | "info" => 1,
        "warn" => 2,
        _ => 3,
    }
}

/// Runs `scenario` and asserts it fails (or warns) `own` with `outcome`, and that no other case
/// is worse than under `conformance-clean`.
/// Runs `scenario` and asserts `own` has `outcome` and no other case is worse than under
/// `conformance-clean`. `whole`: the whole gate, so a case failing beside it shows; otherwise
/// the mutant's own case (and the cross-cutting ones the gate keeps in any shard). A
/// cross-cutting own rule needs every case's exchanges, so it always runs whole.
fn check_mutant(scenario: &str, own: &str, outcome: &str, whole: bool) {
    let clean = clean();
    let whole = whole || cross_cutting(own);
    let (code, got, report) = if whole {
        verdicts(scenario)
    } else {
        verdicts_of(scenario, "20000", &["--case", own])
    };
    assert_eq!(
        got.get(own).map(String::as_str),
        Some(outcome),
        "{scenario}: {own}: {}",
        crate::support::case(&report, own)
    );
    if !whole {
        let ran: Vec<&String> = got
            .keys()
            .filter(|id| id.as_str() != own && !cross_cutting(id))
            .collect();
        assert!(
            ran.is_empty(),
            "{scenario}: the shard ran {ran:?} besides {own}"
        );
    }
    let worse: Vec<String> = got
        .iter()
        .filter(|(id, o)| id.as_str() != own && rank(o) > rank(&clean[id.as_str()]))
        .map(|(id, o)| format!("{id}: {} -> {o}", clean[id.as_str()]))
        .collect();
    assert!(worse.is_empty(), "{scenario} also worsens {worse:?}");
    let rule = crate::support::case(&report, own);
    assert!(rule["requirement"].is_string() && rule["actual"].is_string());
    assert_eq!(
        code,
        Some(if outcome == "fail" { 1 } else { 0 }),
        "{scenario}"
    );
}

/// Whether ACP case `id` is cross-cutting: it grades every other case's exchanges.
fn cross_cutting(id: &str) -> bool {
    mcp_conformance::acp::cases::all()
        .iter()
        .any(|c| c.id == id && c.needs.crosscut())
}

/// Two tests per mutant: `shard` (fast tier) runs its own case, `whole` (full tier) the whole
/// gate, so `.ci/run`'s full tier, which runs only what the fast tier leaves out, still holds
/// every mutant to the whole gate.
macro_rules! mutant {
    ($test:ident, $scenario:literal, $own:literal, $outcome:literal) => {
        mod $test {
            #[test]
            fn shard() {
                super::check_mutant($scenario, $own, $outcome, false);
            }

            #[test]
            #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
            fn whole() {
                super::check_mutant($scenario, $own, $outcome, true);
            }
        }
    };
}

mutant!(
    a_bad_stop_reason_fails_only_stop_reason,
    "mutant-bad-stop-reason",
    "prompt/stop-reason",
    "fail"
);
mutant!(
    an_update_without_content_fails_only_update_shape,
    "mutant-update-missing-content",
    "prompt/update-shape",
    "fail"
);
mutant!(
    a_tool_call_without_id_fails_only_tool_call_shape,
    "mutant-tool-call-missing-id",
    "prompt/tool-call-shape",
    "fail"
);
mutant!(
    garbage_on_stdout_fails_only_protocol_only,
    "mutant-stdout-garbage",
    "stdout/protocol-only",
    "fail"
);
mutant!(
    fs_requests_unadvertised_fail_only_unadvertised_fs_terminal,
    "mutant-fs-unadvertised",
    "capabilities/unadvertised-fs-terminal",
    "fail"
);
mutant!(
    a_permission_option_without_kind_fails_only_request_shape,
    "mutant-permission-no-kind",
    "permission/request-shape",
    "fail"
);
mutant!(
    meta_outside_underscore_names_warns_only_meta_only,
    "mutant-meta-outside",
    "extensions/meta-only",
    "warn"
);
mutant!(
    a_slow_cancel_fails_only_mid_turn_cancel,
    "mutant-slow-cancel",
    "cancel/mid-turn",
    "fail"
);
// Defects on `terminal-use` (the fixture below): both stay clean elsewhere.
mutant!(
    terminal_requests_unadvertised_fail_only_unadvertised_fs_terminal,
    "mutant-terminal-unadvertised",
    "capabilities/unadvertised-fs-terminal",
    "fail"
);
mutant!(
    an_unreleased_terminal_fails_only_terminal_requests,
    "mutant-terminal-unreleased",
    "capabilities/terminal-requests",
    "fail"
);

/// Runs `scenario` (each case bounded by `timeout_ms`) and asserts its non-pass verdicts are
/// exactly: `own` failing with an `actual` containing `says`, every case of `blocked` a `skip`
/// blocked by `own`, and every other case as under `conformance-clean` (its skips keep their
/// own reasons, no `blocked_by`) but `now_pass`, which this scenario gives their subject; the
/// exit status is 1. One defect, one verdict: a case whose precondition the defect removed is
/// not failed on a subject it never saw.
fn check_blocking(
    scenario: &str,
    timeout_ms: &str,
    (own, says): (&str, &str),
    blocked: &[&str],
    now_pass: &[&str],
) {
    let clean = clean();
    let (code, _, report) = verdicts_within(scenario, timeout_ms);
    let mut want: BTreeMap<String, String> = clean
        .iter()
        .filter(|(id, o)| o.as_str() != "pass" && !blocked.contains(&id.as_str()))
        .filter(|(id, _)| !now_pass.contains(&id.as_str()))
        .map(|(id, o)| (id.clone(), o.clone()))
        .collect();
    want.insert(own.to_owned(), "fail".to_owned());
    for id in blocked {
        want.insert((*id).to_owned(), "skip".to_owned());
    }
    assert_eq!(
        non_pass(&report),
        want,
        "{scenario}: {}",
        serde_json::to_string_pretty(&report["cases"]).unwrap_or_default()
    );
    for c in report["cases"].as_array().expect("cases") {
        let id = c["id"].as_str().expect("id");
        let by = if blocked.contains(&id) {
            Value::from(own)
        } else {
            Value::Null
        };
        assert_eq!(c["blocked_by"], by, "{scenario}: {id}: {c}");
    }
    let rule = crate::support::case(&report, own);
    let actual = rule["actual"].as_str().unwrap_or_default();
    assert!(actual.contains(says), "{scenario}: {own}: {actual}");
    assert_eq!(code, Some(1), "{scenario}");
    crate::docs::assert_matches_schema(&report);
}

/// What an agent that never ends a turn removes: every case that needs an answered prompt.
const NEED_AN_ANSWER: &[&str] = &[
    "session/several-prompts",
    "prompt/update-shape",
    "prompt/tool-call-shape",
    "cancel/mid-turn",
    "cancel/pending-permission",
    "permission/request-shape",
    "permission/selected-accepted",
    "permission/cancelled-accepted",
    "extensions/method-names",
    "extensions/meta-only",
    "exit/eof-after-turn",
    "content/resource-link",
    "content/image/advertised",
    "content/audio/unadvertised",
    "content/resource/unadvertised",
    "capabilities/unadvertised-fs-terminal",
    "capabilities/fs-requests",
    "capabilities/terminal-requests",
];

/// What a prompt answer without a `stopReason` removes: the cases whose subject is a turn
/// that ends with one (content accepted, a second prompt).
const NEED_A_STOP_REASON: &[&str] = &[
    "session/several-prompts",
    "content/resource-link",
    "content/image/advertised",
    "content/audio/unadvertised",
    "content/resource/unadvertised",
];

// ACP prompt-turn: session/prompt is never answered. The shape cases saw well-formed messages
// (or none) and are blocked, not failed on "an answer to session/prompt". Full tier: the same
// rule's cascade after well-formed requests (below) is the fast tier's, and each of these whole
// gates waits out a 5 s prompt deadline per turn case.
#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn a_prompt_never_answered_fails_only_stop_reason_and_blocks_every_turn_case() {
    check_blocking(
        "mutant-prompt-unanswered",
        "5000",
        ("prompt/stop-reason", "no answer within"),
        NEED_AN_ANSWER,
        &[],
    );
}

// The same, after a well-formed tool call, permission request and fs read: their shape cases
// have what they grade but no ended turn, and are blocked too. A cancel sent while the
// permission request is pending does end this turn (the fake answers it cancelled), so
// cancel/pending-permission has its subject and passes.
#[test]
fn a_prompt_never_answered_after_well_formed_requests_blocks_their_shape_cases() {
    let blocked: Vec<&str> = NEED_AN_ANSWER
        .iter()
        .copied()
        .filter(|id| *id != "cancel/pending-permission")
        .collect();
    check_blocking(
        "mutant-prompt-unanswered-after-tools",
        "5000",
        ("prompt/stop-reason", "no answer within"),
        &blocked,
        &["cancel/pending-permission"],
    );
}

// The agent gone mid-turn (exit 1 with a tool call pending; killed by SIGKILL): the turn never
// ends, the same precondition as a prompt never answered.
#[test]
fn an_agent_exiting_mid_turn_fails_only_stop_reason() {
    check_blocking(
        "crash-midturn",
        "5000",
        ("prompt/stop-reason", "exited with status 1"),
        NEED_AN_ANSWER,
        &[],
    );
}

#[test]
fn an_agent_killed_mid_turn_fails_only_stop_reason() {
    check_blocking(
        "die-by-signal",
        "5000",
        ("prompt/stop-reason", "SIGKILL"),
        NEED_AN_ANSWER,
        &[],
    );
}

// Schema PromptResponse: a result without stopReason, shown as missing (never as "").
#[test]
fn a_prompt_answer_without_stop_reason_fails_only_stop_reason() {
    check_blocking(
        "mutant-no-stop-reason",
        "20000",
        ("prompt/stop-reason", "a result with no stopReason"),
        NEED_A_STOP_REASON,
        &[],
    );
}

#[test]
fn a_null_stop_reason_fails_only_stop_reason() {
    check_blocking(
        "mutant-stop-reason-null",
        "20000",
        ("prompt/stop-reason", "a result with no stopReason"),
        NEED_A_STOP_REASON,
        &[],
    );
}

/// The fixture that uses terminals correctly when (and only when) they are advertised passes
/// the terminal case and is nowhere worse than `conformance-clean`.
#[test]
fn the_terminal_fixture_passes_the_terminal_case() {
    let clean = clean();
    let (code, got, report) = verdicts("terminal-use");
    assert_eq!(
        got.get("capabilities/terminal-requests")
            .map(String::as_str),
        Some("pass"),
        "{}",
        crate::support::case(&report, "capabilities/terminal-requests")
    );
    let worse: Vec<String> = got
        .iter()
        .filter(|(id, o)| rank(o) > rank(&clean[id.as_str()]))
        .map(|(id, o)| format!("{id}: {} -> {o}", clean[id.as_str()]))
        .collect();
    assert!(worse.is_empty(), "terminal-use worsens {worse:?}");
    assert_eq!(code, Some(0));
}

/// Containment: a terminal the agent never releases, running a command that backgrounds a
/// grandchild, is killed by group, so nothing of it outlives the run (that the case's end does
/// it, not only the runner's exit, is the unit test `release_and_the_cases_end_kill_what_still_runs`).
#[test]
fn a_terminal_left_running_and_its_grandchild_do_not_outlive_the_run() {
    let marker = format!("{}", 40_000 + std::process::id() % 20_000);
    let dir = tempfile::tempdir().expect("dir");
    let scenario = dir.path().join("leak.json");
    let create = serde_json::json!({"request": {"method": "terminal/create", "params": {
        "sessionId": "{{session_id}}", "command": "sh",
        "args": ["-c", format!("sleep {marker} & sleep {marker}")]}}});
    std::fs::write(
        &scenario,
        serde_json::json!({"kind": "injection", "description": "test-only", "steps": [
            {"capability": {"terminal": [create], "*": []}},
            {"answer": {"stopReason": "end_turn"}}]})
        .to_string(),
    )
    .expect("write");
    let mut agent = Command::new(fake_cursor_agent());
    agent.arg("acp").env("FAKE_CURSOR_SCENARIO", &scenario);
    let (_, report) = run_acp(&["--case", "capabilities/terminal-requests"], &agent);
    let case = crate::support::case(&report, "capabilities/terminal-requests");
    assert_eq!(case["outcome"], "fail", "{case}");
    assert!(
        case["actual"]
            .as_str()
            .unwrap_or_default()
            .contains("never released")
    );
    let needle = format!("sleep\0{marker}");
    let survivors: Vec<String> = std::fs::read_dir("/proc")
        .expect("/proc")
        .filter_map(|e| std::fs::read(e.ok()?.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).into_owned())
        .filter(|c| c.contains(&needle))
        .collect();
    assert!(survivors.is_empty(), "survived the case: {survivors:?}");
}

// JSON-RPC 2.0 §5 (exactly one Response per Request, under its id): the engine books what the
// agent owes on every connection of every case. A prompt answered twice once passed (exit 0);
// each defect now fails jsonrpc/response-ids alone, with the first offending exchange, and the
// repeated answer reaches no case.
#[test]
fn a_prompt_answered_twice_fails_only_response_ids() {
    check_blocking(
        "mutant-prompt-answered-twice",
        "20000",
        ("jsonrpc/response-ids", "a second response to id "),
        &[],
        &[],
    );
}

#[test]
fn a_prompt_answered_again_with_an_error_fails_only_response_ids() {
    check_blocking(
        "mutant-prompt-answered-then-error",
        "20000",
        (
            "jsonrpc/response-ids",
            "(session/prompt), which was answered already",
        ),
        &[],
        &[],
    );
}

#[test]
fn an_answer_under_a_string_id_never_sent_fails_only_response_ids() {
    check_blocking(
        "mutant-unsolicited-answer",
        "20000",
        (
            "jsonrpc/response-ids",
            "a response with id \"acp-conformance-never-sent\", which no request of the runner carried",
        ),
        &[],
        &[],
    );
}

// The same answer while a slow prompt is pending: the prompt's wait is not cut short (it once
// gave up 2 s later), so only the id rule fails and every prompt case keeps its verdict. The
// slow turn gives cancel/mid-turn a turn to cancel (the clean one ends too soon): it passes.
#[test]
fn an_unsolicited_answer_during_a_slow_prompt_fails_only_response_ids() {
    check_blocking(
        "mutant-unsolicited-answer-slow",
        "20000",
        (
            "jsonrpc/response-ids",
            "a response with id \"acp-conformance-never-sent\", which no request of the runner carried",
        ),
        &[],
        &["cancel/mid-turn"],
    );
}

// An integer one above u64 is a valid id (stdout/protocol-only holds) and is quoted as the
// agent wrote it, not as the float serde_json reads (1.8446744073709552e+19).
#[test]
fn an_answer_under_an_integer_id_above_u64_fails_only_response_ids_as_written() {
    check_blocking(
        "mutant-unsolicited-huge-id",
        "20000",
        (
            "jsonrpc/response-ids",
            "a response with id 18446744073709551616, which no request of the runner carried",
        ),
        &[],
        &[],
    );
}

// A `--case` shard keeps the id rule on its own exchanges.
#[test]
fn a_shard_keeps_the_id_rule_on_its_own_exchanges() {
    let mut agent = Command::new(fake_cursor_agent());
    agent
        .arg("acp")
        .env("FAKE_CURSOR_SCENARIO", "mutant-prompt-answered-twice");
    let (out, report) = run_acp(&["--case", "prompt/stop-reason"], &agent);
    let got = non_pass(&report);
    assert_eq!(
        got,
        BTreeMap::from([("jsonrpc/response-ids".to_owned(), "fail".to_owned())]),
        "{report}"
    );
    assert_eq!(
        crate::support::case(&report, "prompt/stop-reason")["outcome"],
        "pass"
    );
    assert_eq!(out.status.code(), Some(1));
}

// JSON-RPC 2.0 §5 (the response id is the request's): an agent that cannot read a negative id
// answers initialize under id -7 with an id-less -32700, as codex-acp does. That error answers
// the one request the connection carries, so the case is graded on it at once (it once waited
// twice the case timeout and said "no answer").
#[test]
fn an_id_less_error_to_a_negative_id_fails_only_ids_negative_on_that_answer() {
    check_blocking(
        "mutant-unsigned-ids",
        "20000",
        (
            "jsonrpc/ids/negative",
            "an error with no id (the agent could not read id -7)",
        ),
        &[],
        &[],
    );
}
