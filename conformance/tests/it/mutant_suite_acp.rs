//! The ACP mutant suite (ACP-GATE-3): `examples/mutant_agent/`, a small ACP agent written for this suite
//! (not fake-cursor-agent, whose scenarios the gate grew up with), run clean and with one
//! defect each (`--defect NAME`). The whole agent gate runs against each; the test pins the
//! exact set of verdicts that are not a pass (case id → outcome, and `blocked_by` for a skip the
//! defect caused). Expected verdicts follow the specification's words (ACP's schema and docs in
//! `../shared/reference/acp/`: MUST → fail, SHOULD → warn, what binds the client only → info);
//! where the gate disagrees today the test is ignored with the gap named (`gate gap: …`).
//!
//! Tiers: the clean twin (`--strict`) and a few representative mutants run in the fast tier,
//! the whole matrix in the full tier; at most [`crate::mutants::Slot`]'s bound of whole gates
//! run at once.

use std::collections::BTreeMap;
use std::process::Command;

use serde_json::Value;

use crate::acp_agents::run_acp;
use crate::mutants::Slot;
use crate::support::example;
use crate::verdicts::{NEED_A_SESSION, Want, blocked, fail, info, warn};

/// The clean agent's verdicts that are not a pass: what it does not advertise (loadSession,
/// audio) or advertises (so the `unadvertised` cases do not apply), and no terminal use.
const CLEAN: &[Want] = &[
    ("session/load/advertised", "skip", None),
    ("content/image/unadvertised", "skip", None),
    ("content/audio/advertised", "skip", None),
    ("content/resource/unadvertised", "skip", None),
    ("capabilities/terminal-requests", "skip", None),
];

/// What a prompt never answered removes: every case that needs an ended turn.
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
    "content/resource/advertised",
    "capabilities/unadvertised-fs-terminal",
    "capabilities/fs-requests",
    "capabilities/terminal-requests",
];

/// What a prompt answer without a stopReason removes: the cases whose subject is a turn that
/// ends with one.
const NEED_A_STOP_REASON: &[&str] = &[
    "session/several-prompts",
    "cancel/mid-turn",
    "cancel/pending-permission",
    "permission/selected-accepted",
    "permission/cancelled-accepted",
    "content/resource-link",
    "content/image/advertised",
    "content/resource/advertised",
];

/// The whole agent gate against the mutant agent with `--defect defect` (`none`: the clean
/// twin, run `--strict`), each case bounded by `timeout_ms`.
fn run(defect: &str, timeout_ms: &str) -> (std::process::Output, Value) {
    let _slot = Slot::take();
    let mut agent = Command::new(example("mutant_agent"));
    agent.args(["--defect", defect]);
    let mut args = vec!["--jobs", "8", "--timeout-ms", timeout_ms];
    if defect == "none" {
        args.push("--strict");
    }
    let (out, report) = run_acp(&args, &agent);
    crate::docs::assert_matches_schema(&report);
    (out, report)
}

type Verdicts = BTreeMap<String, (String, Option<String>)>;

fn non_pass(report: &Value) -> Verdicts {
    report["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .filter(|c| c["outcome"] != "pass")
        .map(|c| {
            (
                c["id"].as_str().expect("id").to_owned(),
                (
                    c["outcome"].as_str().expect("outcome").to_owned(),
                    c["blocked_by"].as_str().map(str::to_owned),
                ),
            )
        })
        .collect()
}

/// Asserts that `defect` gets exactly the clean twin's non-pass verdicts overlaid with `want`,
/// and exit 1 exactly when something fails.
fn check_within(defect: &str, timeout_ms: &str, want: &[Want]) {
    let (out, report) = run(defect, timeout_ms);
    let mut expected = Verdicts::new();
    for (id, outcome, by) in CLEAN.iter().chain(want) {
        expected.insert(
            (*id).to_owned(),
            ((*outcome).to_owned(), by.map(str::to_owned)),
        );
    }
    let got = non_pass(&report);
    assert_eq!(
        got,
        expected,
        "{defect}: the non-pass verdicts differ\n{}",
        crate::support::describe(&out)
    );
    let fails = expected.values().any(|(o, _)| o == "fail");
    assert_eq!(
        out.status.code(),
        Some(i32::from(fails)),
        "{defect}: {}",
        crate::support::describe(&out)
    );
}

fn check(defect: &str, want: &[Want]) {
    check_within(defect, "20000", want);
}

/// `own` fails and every case of `needs` is blocked by it.
fn check_blocking(defect: &str, timeout_ms: &str, own: &'static str, needs: &[&'static str]) {
    let mut want = vec![fail(own)];
    want.extend(needs.iter().map(|id| blocked(id, own)));
    check_within(defect, timeout_ms, &want);
}

/// `acp_mutant!(test_name, "defect", [wants…])`, attributes (tier, gap) first.
macro_rules! acp_mutant {
    ($(#[$attr:meta])* $test:ident, $defect:literal, [$($want:expr),* $(,)?]) => {
        $(#[$attr])*
        #[test]
        fn $test() {
            check($defect, &[$($want),*]);
        }
    };
}

#[test]
fn the_clean_mutant_agent_passes_the_agent_gate_under_strict() {
    check("none", &[]);
}

// initialize (schema InitializeResponse; docs initialization).
acp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_protocol_version_as_a_string_fails_the_version_cases,
    "version-string",
    [
        fail("initialize/protocol-version"),
        fail("initialize/version-newer"),
    ]
);
acp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_newer_proposal_echoed_fails_version_newer,
    "version-echo",
    [fail("initialize/version-newer")]
);
acp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_capability_that_is_no_boolean_fails_agent_capabilities,
    "capability-not-boolean",
    [fail("initialize/agent-capabilities")]
);
acp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    an_auth_method_without_id_fails_auth_methods,
    "auth-method-no-id",
    [fail("initialize/auth-methods")]
);

// Sessions (schema NewSessionRequest / NewSessionResponse; docs session-setup, session-modes).
#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn a_session_without_id_fails_session_new_and_blocks_every_session_case() {
    check_blocking(
        "session-no-id",
        "20000",
        "session/new/absolute-cwd",
        NEED_A_SESSION,
    );
}
acp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    one_session_id_for_every_session_fails_unique_ids,
    "same-session-id",
    [fail("session/new/unique-ids")]
);
acp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_relative_cwd_accepted_warns_relative_cwd,
    "relative-cwd-accepted",
    [warn("session/new/relative-cwd")]
);
acp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_session_without_mcp_servers_accepted_warns_missing_mcp_servers,
    "missing-mcp-servers-accepted",
    [warn("session/new/missing-mcp-servers")]
);
acp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    an_advertised_mode_refused_fails_set_mode,
    "set-mode-fails",
    [fail("session/set-mode")]
);
acp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    an_unadvertised_mode_accepted_warns_set_mode_unknown,
    "set-mode-unknown-accepted",
    [warn("session/set-mode-unknown")]
);
acp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    an_unadvertised_load_accepted_warns_load_unadvertised,
    "load-unadvertised-accepted",
    [warn("session/load/unadvertised")]
);

// The prompt turn (schema PromptResponse, SessionNotification, ToolCall; docs prompt-turn).
#[test]
fn a_prompt_answer_without_stop_reason_fails_stop_reason_and_blocks_the_turn_cases() {
    check_blocking(
        "no-stop-reason",
        "20000",
        "prompt/stop-reason",
        NEED_A_STOP_REASON,
    );
}
acp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    an_unknown_stop_reason_fails_stop_reason_and_blocks_the_cancel_cases,
    "unknown-stop-reason",
    [
        fail("prompt/stop-reason"),
        blocked("cancel/mid-turn", "prompt/stop-reason"),
        blocked("cancel/pending-permission", "prompt/stop-reason"),
    ]
);
// JSON-RPC 2.0 §5: one response per request; the id rule (`jsonrpc/response-ids`) books
// every answer of every exchange and fails on the second.
acp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_prompt_answered_twice_fails_the_id_rule,
    "prompt-answered-twice",
    [fail("jsonrpc/response-ids")]
);
#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn a_prompt_never_answered_fails_stop_reason_and_blocks_every_turn_case() {
    check_blocking(
        "prompt-never-answered",
        "5000",
        "prompt/stop-reason",
        NEED_AN_ANSWER,
    );
}
acp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    updates_without_session_id_fail_update_shape,
    "update-no-session-id",
    [fail("prompt/update-shape")]
);
acp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_chunk_without_content_fails_update_shape,
    "chunk-no-content",
    [fail("prompt/update-shape")]
);
acp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_tool_call_kind_outside_the_enum_fails_tool_call_shape,
    "tool-call-bad-kind",
    [fail("prompt/tool-call-shape")]
);
acp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_tool_call_without_title_fails_tool_call_shape,
    "tool-call-no-title",
    [fail("prompt/tool-call-shape")]
);
acp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_tool_call_status_outside_the_enum_fails_tool_call_shape,
    "tool-update-bad-status",
    [fail("prompt/tool-call-shape")]
);
// docs prompt-turn#cancellation: the agent MUST answer cancelled, with or without a pending
// permission request (the same rule on two inputs).
acp_mutant!(
    a_cancel_ignored_fails_both_cancel_cases,
    "cancel-ignored",
    [fail("cancel/mid-turn"), fail("cancel/pending-permission")]
);

// Permission requests (schema RequestPermissionRequest / RequestPermissionOutcome).
acp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_permission_option_without_kind_fails_request_shape,
    "permission-no-kind",
    [fail("permission/request-shape")]
);
// A turn failing when its permission request is answered cancelled breaks the rules that answer
// one cancelled: the cancelled outcome accepted, and cancelled after session/cancel, on both its
// inputs (a third into this turn its permission request is pending, and the runner answers it
// cancelled after the cancel, as ACP's client must).
acp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_cancelled_permission_ending_the_turn_in_an_error_fails_the_cancelled_cases,
    "permission-cancelled-error",
    [
        fail("cancel/mid-turn"),
        fail("cancel/pending-permission"),
        fail("permission/cancelled-accepted"),
    ]
);
// ACP-GATE-1. No defect: a turn that, after session/cancel, waits for the client's cancelled answer to its
// pending permission request before it answers cancelled. ACP's client MUST send that answer
// (docs prompt-turn#cancellation), so both cancel cases pass; a runner that held the request
// unanswered failed cancel/mid-turn "no answer within 5 s".
#[test]
fn a_turn_that_waits_for_the_cancelled_permission_answer_passes_both_cancel_cases() {
    let _slot = Slot::take();
    let mut agent = Command::new(example("mutant_agent"));
    agent.args(["--defect", "cancel-awaits-permission"]);
    let (out, report) = run_acp(
        &[
            "--case",
            "cancel/mid-turn",
            "--case",
            "cancel/pending-permission",
        ],
        &agent,
    );
    for id in ["cancel/mid-turn", "cancel/pending-permission"] {
        let c = crate::support::case(&report, id);
        assert_eq!(c["outcome"], "pass", "{id}: {c}");
    }
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        crate::support::describe(&out)
    );
}
acp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_turn_that_waits_for_the_cancelled_permission_answer_passes_the_whole_gate,
    "cancel-awaits-permission",
    []
);

// Client capabilities (schema ClientCapabilities, ReadTextFileRequest).
acp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    fs_requests_without_fs_advertised_fail_unadvertised_fs_terminal,
    "fs-unadvertised",
    [fail("capabilities/unadvertised-fs-terminal")]
);
acp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_relative_fs_path_fails_fs_requests,
    "fs-relative-path",
    [fail("capabilities/fs-requests")]
);

// Content (docs content: text and resource links MUST be supported; the rest as advertised).
acp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_resource_link_refused_fails_resource_link,
    "resource-link-refused",
    [fail("content/resource-link")]
);
acp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    an_advertised_image_refused_fails_image_advertised,
    "image-refused",
    [fail("content/image/advertised")]
);
// The schema binds the client to PromptCapabilities, not the agent: info.
acp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    unadvertised_audio_accepted_is_info,
    "audio-unadvertised-accepted",
    [info("content/audio/unadvertised")]
);

// stdio and JSON-RPC (docs transports#stdio; JSON-RPC 2.0).
acp_mutant!(
    text_on_stdout_fails_protocol_only,
    "stdout-noise",
    [fail("stdout/protocol-only")]
);
acp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    staying_up_after_eof_warns_both_exit_cases,
    "no-exit-on-eof",
    [warn("exit/eof-idle"), warn("exit/eof-after-turn")]
);
// JSON-RPC 2.0 §5.1 defines -32601 with no MUST (only no answer breaks §5's MUST).
acp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    an_unknown_method_answered_32600_warns_unknown_method,
    "unknown-method-code",
    [
        warn("jsonrpc/unknown-method"),
        warn("jsonrpc/unknown-ext-method"),
    ]
);
acp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    an_unknown_extension_method_answered_32603_warns_unknown_ext_method,
    "ext-method-code",
    [warn("jsonrpc/unknown-ext-method")]
);
acp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    an_answered_notification_fails_unknown_notification,
    "answer-notification",
    [fail("jsonrpc/unknown-notification")]
);
acp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_silently_dropped_bad_line_warns_parse_error,
    "parse-error-silent",
    [warn("jsonrpc/malformed/parse-error")]
);
acp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    exiting_on_a_bad_line_fails_alive_and_warns_parse_error,
    "die-on-bad-line",
    [
        warn("jsonrpc/malformed/parse-error"),
        fail("jsonrpc/malformed/alive"),
    ]
);
acp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    string_ids_answered_retyped_fail_ids_string,
    "string-id-retyped",
    [
        fail("jsonrpc/ids/string"),
        blocked("jsonrpc/unknown-notification", "jsonrpc/ids/string"),
        blocked("jsonrpc/malformed/alive", "jsonrpc/ids/string"),
    ]
);
acp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_big_id_answered_as_a_float_fails_ids_max_safe,
    "big-id-as-float",
    [fail("jsonrpc/ids/max-safe")]
);

// Extensibility (docs extensibility: extension methods start with _, custom data in _meta).
acp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_vendor_method_without_underscore_warns_method_names,
    "vendor-method",
    [warn("extensions/method-names")]
);
acp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_custom_top_level_key_warns_meta_only,
    "meta-outside",
    [warn("extensions/meta-only")]
);

/// Every defect the agent knows has its test here (a defect added without one is unchecked).
#[test]
fn every_defect_of_the_mutant_agent_is_in_this_suite() {
    let source = include_str!("mutant_suite_acp.rs");
    let defects = include_str!("../../examples/mutant_agent/defects.rs");
    let names: Vec<&str> = defects
        .lines()
        .filter_map(|l| l.trim().strip_prefix("(\""))
        .filter_map(|l| l.split('"').next())
        .filter(|n| *n != "none")
        .collect();
    assert!(names.len() >= 25, "{} defects", names.len());
    let missing: Vec<&&str> = names
        .iter()
        .filter(|n| !source.contains(&format!("\"{n}\"")))
        .collect();
    assert!(missing.is_empty(), "defects without a test: {missing:?}");
}
