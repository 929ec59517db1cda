//! The MCP mutant suite: `examples/mutant_server/`, a small MCP server written for this suite
//! (not the toy server or the proxy the gate grew up with), run clean and with one defect each
//! (`--defect NAME`). The whole plain gate runs against each; the test pins the exact set of
//! verdicts that are not a pass (case id → outcome, and `blocked_by` for a skip a defect
//! caused), so a verdict that appears, disappears or changes level beside the defect shows.
//! Expected verdicts follow the specification's words (MUST → fail, SHOULD → warn, the kit's
//! own rules → info in plain), not whatever the gate printed; where the gate disagrees today,
//! the test is ignored with the gap named (`gate gap: …`).
//!
//! Tiers: the clean twin (`--strict`) and a few representative mutants run in the fast tier,
//! the whole matrix in the full tier. Each run is a whole gate, at most
//! [`crate::mutants::Slot`]'s bound at once.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::mutants::Slot;
use crate::support::{describe, example, run_json};
use crate::verdicts::{Want, blocked, fail, info, pass, skip, warn};

/// The clean twin's verdicts that are not a pass: the kit's computer-mcp metadata, info in
/// plain, the instances of revisions it does not speak, and the cases nothing of a plain server
/// feeds (no request stays in flight; the
/// tools called by the output-schema probe feed only that rule).
const CLEAN: &[Want] = &[
    // The later revisions' own rules: the server speaks none of them.
    skip("tools/call/wrong-typed-arguments@2025-11-25"),
    skip("tools/names/2025-11-25"),
    skip("tools/schema/dialect/2025-11-25"),
    skip("listings/title/2025-11-25"),
    skip("listings/icons/2025-11-25"),
    skip("resources/read/unknown@2026-07-28"),
    skip("lifecycle/2026-07-28/discover"),
    skip("lifecycle/2026-07-28/envelope"),
    skip("lifecycle/2026-07-28/envelope-missing"),
    skip("lifecycle/2026-07-28/initialize-refused"),
    skip("lifecycle/2026-07-28/legacy-refuses-envelope"),
    skip("lifecycle/2026-07-28/stateless"),
    skip("tools/result/error-split"),
    skip("cancellation/in-flight/no-response"),
    info("meta-risk/declared"),
    skip("meta-risk/by-role"),
    skip("meta-risk/annotations"),
    info("meta-work/declared"),
    info("meta-work/resource-listed"),
    // The work URI is not listed, so its read is refused: the listing case's defect, not a
    // second one of the snapshot's case (RUNNER-11).
    blocked("meta-work/snapshot-shape", "meta-work/resource-listed"),
    skip("meta-work/invocation-malformed"),
    skip("meta-work/invocation-not-an-argument"),
    skip("meta-continuation/declared"),
    skip("meta-continuation/absent"),
];

/// The cases that probe the server with a ping (before, after or around what they send): a
/// ping answered under another id removes their precondition.
const PING_PROBED: &[&str] = &[
    "lifecycle/ping/before-initialize",
    "lifecycle/ping/after-initialize",
    "lifecycle/shutdown/stdin-eof",
    "lifecycle/shutdown/sigterm",
    "jsonrpc/ids/zero",
    "jsonrpc/ids/negative",
    "jsonrpc/ids/string",
    "jsonrpc/ids/empty-string",
    "jsonrpc/ids/i64-max",
    "jsonrpc/ids/i64-min",
    "jsonrpc/ids/u64-max",
    "jsonrpc/unknown-notification",
    "jsonrpc/malformed/parse-error",
    "jsonrpc/malformed/invalid-utf8",
    "jsonrpc/invalid/not-an-object",
    "jsonrpc/invalid/wrong-version",
    "jsonrpc/invalid/method-not-string",
    "jsonrpc/invalid/params-not-structured",
    "jsonrpc/invalid/null-id",
    "jsonrpc/batch/2025-03-26",
    "jsonrpc/batch/rejected-2025-06-18",
    "jsonrpc/batch/rejected-2024-11-05",
    "jsonrpc/batch/empty",
    "jsonrpc/oversized/answered",
    "jsonrpc/oversized/memory-bounded",
    "liveness/after-malformed",
    "liveness/after-oversized",
    "liveness/in-flight-kept",
    "cancellation/unknown-request",
];

/// The cases graded from every exchange rather than from a session of their own: they keep
/// grading when discovery fails.
const CROSS_CUTTING_GRADED: &[&str] = &[
    "lifecycle/stdout/protocol-only",
    "jsonrpc/unknown-notification",
    "logging/message-shape",
    // output-schema's probe still calls the read-only tool discovery listed before the wrong
    // id, and the shape rule grades that call's result.
    "tools/result/shape",
];

/// The 2025-11-25 rules, graded once the server speaks that revision too
/// (`--revision-2025-11-25`, or a display defect, which implies it): all pass on the clean
/// server's 2025-11-25 connections.
const ON_2025_11_25: &[Want] = &[
    pass("tools/call/wrong-typed-arguments@2025-11-25"),
    pass("tools/names/2025-11-25"),
    pass("tools/schema/dialect/2025-11-25"),
    pass("listings/title/2025-11-25"),
    pass("listings/icons/2025-11-25"),
];

/// The whole plain gate against the mutant server with `--defect defect` (`none`: the clean
/// twin, run `--strict` so a warning would count).
fn run(defect: &str) -> (std::process::Output, Value) {
    run_with(defect, &[])
}

/// [`run`] with `extra` arguments for the server after `--defect defect`.
fn run_with(defect: &str, extra: &[&str]) -> (std::process::Output, Value) {
    let _slot = Slot::take();
    let server = example("mutant_server").display().to_string();
    let strict: &[&str] = if defect == "none" { &["--strict"] } else { &[] };
    let mut args = vec!["--timeout-ms", "3000"];
    args.extend_from_slice(strict);
    let mut server_args = vec![server.as_str(), "--defect", defect];
    server_args.extend_from_slice(extra);
    let (out, report) = run_json(&args, &server_args);
    let report = report.unwrap_or_else(|| panic!("{defect}: no report: {}", describe(&out)));
    crate::docs::assert_matches_schema(&report);
    (out, report)
}

/// Each case's outcome and `blocked_by`, for the cases that did not pass.
fn non_pass(report: &Value) -> BTreeMap<String, (String, Option<String>)> {
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

/// Asserts that `defect` gets exactly the clean twin's non-pass verdicts overlaid with `want`
/// (a case in `want` replaces the clean one), and the exit status that follows (1 when
/// anything fails).
fn check(defect: &str, want: &[Want]) -> Value {
    check_with(defect, &[], want)
}

/// [`check`] with `extra` arguments for the server.
fn check_with(defect: &str, extra: &[&str], want: &[Want]) -> Value {
    let (out, report) = run_with(defect, extra);
    let mut expected: BTreeMap<String, (String, Option<String>)> = BTreeMap::new();
    for (id, outcome, by) in CLEAN.iter().chain(want) {
        expected.insert(
            (*id).to_owned(),
            ((*outcome).to_owned(), by.map(str::to_owned)),
        );
    }
    expected.retain(|_, (o, _)| o != "pass");
    let got = non_pass(&report);
    assert_eq!(
        got,
        expected,
        "{defect}: the non-pass verdicts differ\n{}",
        describe(&out)
    );
    let fails = expected.values().any(|(o, _)| o == "fail");
    assert_eq!(
        out.status.code(),
        Some(i32::from(fails)),
        "{defect}: {}",
        describe(&out)
    );
    report
}

/// [`check`] for a defect that removes discovery's precondition: `own` fails and every case
/// but the cross-cutting ones that still grade is blocked by it.
fn check_blocks_all(defect: &str, own: &'static str) {
    let (out, report) = run(defect);
    let mut expected = BTreeMap::new();
    for c in report["cases"].as_array().expect("cases") {
        let id = c["id"].as_str().expect("id");
        if id == own {
            expected.insert(id.to_owned(), ("fail".to_owned(), None));
        } else if !CROSS_CUTTING_GRADED.contains(&id) {
            expected.insert(id.to_owned(), ("skip".to_owned(), Some(own.to_owned())));
        }
    }
    assert_eq!(non_pass(&report), expected, "{defect}: {}", describe(&out));
    assert_eq!(out.status.code(), Some(1), "{defect}: {}", describe(&out));
}

/// `mcp_mutant!(test_name, "defect", [wants…])`, attributes (tier, gap) first.
macro_rules! mcp_mutant {
    ($(#[$attr:meta])* $test:ident, $defect:literal, [$($want:expr),* $(,)?]) => {
        $(#[$attr])*
        #[test]
        fn $test() {
            check($defect, &[$($want),*]);
        }
    };
}

#[test]
fn the_clean_mutant_server_passes_the_plain_gate_under_strict() {
    let report = check("none", &[]);
    // Its stderr diagnostics are no finding (MCP stdio: servers may log to stderr).
    assert_eq!(report["summary"]["failed"], 0);
    assert_eq!(report["summary"]["warned"], 0);
}

// Framing and stdout (MCP transports, stdio: "The server MUST NOT write anything to its stdout
// that is not a valid MCP message").
mcp_mutant!(
    a_banner_before_anything_fails_protocol_only,
    "banner",
    [fail("lifecycle/stdout/protocol-only")]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_text_line_after_the_third_request_fails_protocol_only,
    "noise-after-third",
    [fail("lifecycle/stdout/protocol-only")]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_text_line_after_the_eighth_request_fails_protocol_only,
    "noise-after-eighth",
    [fail("lifecycle/stdout/protocol-only")]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_truncated_json_line_fails_protocol_only,
    "partial-line",
    [fail("lifecycle/stdout/protocol-only")]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    an_oversized_unterminated_line_fails_protocol_only,
    "oversized-partial",
    [fail("lifecycle/stdout/protocol-only")]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_notification_without_jsonrpc_fails_protocol_only,
    "notification-no-jsonrpc",
    [fail("lifecycle/stdout/protocol-only")]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    ping_answers_without_jsonrpc_fail_protocol_only_and_block_the_ping_cases,
    "no-jsonrpc-on-ping",
    [
        fail("lifecycle/stdout/protocol-only"),
        blocked(
            "lifecycle/ping/before-initialize",
            "lifecycle/stdout/protocol-only"
        ),
        blocked(
            "lifecycle/ping/after-initialize",
            "lifecycle/stdout/protocol-only"
        ),
    ]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_jsonrpc_1_0_answer_fails_protocol_only,
    "wrong-jsonrpc-on-read",
    [fail("lifecycle/stdout/protocol-only")]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    an_answer_with_result_and_error_fails_protocol_only,
    "result-and-error",
    [
        fail("lifecycle/stdout/protocol-only"),
        blocked("jsonrpc/unknown-method", "lifecycle/stdout/protocol-only"),
    ]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_json_log_record_on_stdout_fails_protocol_only,
    "json-log-on-call",
    [fail("lifecycle/stdout/protocol-only")]
);

// Ids (JSON-RPC 2.0 §5: the response's id MUST be the request's).
// Full tier: cascades::a_wrong_id_on_ping_fails_the_id_rule_once proves the same cascade in
// the fast tier.
#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn a_ping_answered_under_another_id_fails_the_id_rule_and_blocks_what_pings() {
    let mut want = vec![fail("jsonrpc/response-ids")];
    want.extend(
        PING_PROBED
            .iter()
            .map(|id| blocked(id, "jsonrpc/response-ids")),
    );
    check("wrong-id-on-ping", &want);
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn a_discovery_answer_under_another_id_fails_the_id_rule_and_blocks_every_case() {
    check_blocks_all("wrong-id-on-resources-list", "jsonrpc/response-ids");
}

mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    an_id_whose_type_changed_fails_the_id_rule_and_blocks_the_reads,
    "id-type-on-read",
    [
        fail("jsonrpc/response-ids"),
        blocked("resources/read/listed", "jsonrpc/response-ids"),
        blocked("resources/read/unknown", "jsonrpc/response-ids"),
        blocked("meta-work/snapshot-shape", "jsonrpc/response-ids"),
    ]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    errors_under_id_null_fail_the_id_rule_and_block_what_waited,
    "null-id-on-error",
    [
        fail("jsonrpc/response-ids"),
        blocked("lifecycle/server-discover/probe", "jsonrpc/response-ids"),
        blocked(
            "lifecycle/request-before-initialize",
            "jsonrpc/response-ids"
        ),
        blocked("jsonrpc/unknown-method", "jsonrpc/response-ids"),
        blocked("tools/list/invalid-cursor", "jsonrpc/response-ids"),
        blocked("tools/call/unknown-tool", "jsonrpc/response-ids"),
        blocked("resources/read/unknown", "jsonrpc/response-ids"),
        blocked("prompts/get/unknown", "jsonrpc/response-ids"),
        // The work resource's read is refused the same way (as under id-type-on-read).
        blocked("meta-work/snapshot-shape", "jsonrpc/response-ids"),
        // JSON-RPC 2.0 §5 allows id null for an invalid request.
        info("jsonrpc/invalid/wrong-version"),
        info("jsonrpc/invalid/method-not-string"),
        info("jsonrpc/invalid/params-not-structured"),
    ]
);

// Error objects (JSON-RPC 2.0 §5.1: code an integer, message a string). The discover probe
// is the kit's rule (info in plain) and sees the malformed error first.
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    an_error_without_code_fails_protocol_only,
    "error-no-code",
    [
        info("lifecycle/server-discover/probe"),
        fail("lifecycle/stdout/protocol-only"),
        blocked("jsonrpc/unknown-method", "lifecycle/stdout/protocol-only"),
    ]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    an_error_without_message_fails_protocol_only,
    "error-no-message",
    [
        fail("lifecycle/stdout/protocol-only"),
        blocked("jsonrpc/unknown-method", "lifecycle/stdout/protocol-only"),
    ]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    an_error_code_as_a_string_fails_protocol_only,
    "error-code-string",
    [
        info("lifecycle/server-discover/probe"),
        fail("lifecycle/stdout/protocol-only"),
        blocked("jsonrpc/unknown-method", "lifecycle/stdout/protocol-only"),
    ]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    an_error_that_is_a_string_fails_protocol_only,
    "error-not-object",
    [
        info("lifecycle/server-discover/probe"),
        fail("lifecycle/stdout/protocol-only"),
        blocked("jsonrpc/unknown-method", "lifecycle/stdout/protocol-only"),
    ]
);
// JSON-RPC 2.0 §5.1 defines -32601 without a MUST: another code warns.
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    an_unknown_method_answered_32600_warns_unknown_method,
    "unknown-method-code",
    [
        info("lifecycle/server-discover/probe"),
        warn("jsonrpc/unknown-method"),
    ]
);
// JSON-RPC 2.0 §5: "the Server MUST reply with a Response".
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    an_unknown_method_never_answered_fails_unknown_method,
    "unknown-method-silent",
    [
        info("lifecycle/server-discover/probe"),
        fail("jsonrpc/unknown-method"),
    ]
);

// Lifecycle (MCP basic/lifecycle).
// MCP basic/lifecycle: the server MUST answer the proposal or another version it supports; a
// date no revision defines is neither (lifecycle/initialize/revisions grades it).
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_protocol_version_no_revision_defines_fails_the_revisions_case,
    "version-never-offered",
    [
        fail("lifecycle/initialize/revisions"),
        blocked(
            "lifecycle/initialize/version/2024-11-05",
            "lifecycle/initialize/revisions"
        ),
        blocked(
            "lifecycle/initialize/version/2025-03-26",
            "lifecycle/initialize/revisions"
        ),
        blocked(
            "lifecycle/initialize/version/2025-06-18",
            "lifecycle/initialize/revisions"
        ),
        blocked("jsonrpc/batch/2025-03-26", "lifecycle/initialize/revisions"),
        blocked(
            "jsonrpc/batch/rejected-2025-06-18",
            "lifecycle/initialize/revisions"
        ),
        blocked(
            "jsonrpc/batch/rejected-2024-11-05",
            "lifecycle/initialize/revisions"
        ),
    ]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    echoing_unsupported_proposals_fails_the_proposal_cases,
    "echo-any-version",
    [
        fail("lifecycle/initialize/unsupported-proposal"),
        fail("lifecycle/initialize/older-proposal"),
        fail("lifecycle/initialize/malformed-proposal"),
    ]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    an_initialize_result_without_capabilities_fails_result_shape,
    "no-capabilities",
    [
        fail("lifecycle/initialize/result-shape"),
        blocked("tools/list/shape", "lifecycle/initialize/result-shape"),
        blocked("tools/list/pagination", "lifecycle/initialize/result-shape"),
        blocked(
            "tools/list/invalid-cursor",
            "lifecycle/initialize/result-shape"
        ),
        blocked("tools/schema/valid", "lifecycle/initialize/result-shape"),
        blocked(
            "tools/schema/closed-objects",
            "lifecycle/initialize/result-shape"
        ),
        blocked("tools/names/sep-986", "lifecycle/initialize/result-shape"),
        blocked(
            "tools/call/unknown-tool",
            "lifecycle/initialize/result-shape"
        ),
        blocked(
            "tools/call/wrong-typed-arguments",
            "lifecycle/initialize/result-shape"
        ),
        blocked("tools/result/shape", "lifecycle/initialize/result-shape"),
        blocked(
            "tools/result/output-schema",
            "lifecycle/initialize/result-shape"
        ),
        blocked("resources/list/shape", "lifecycle/initialize/result-shape"),
        blocked("resources/read/listed", "lifecycle/initialize/result-shape"),
        blocked(
            "resources/read/unknown",
            "lifecycle/initialize/result-shape"
        ),
        blocked("prompts/list/shape", "lifecycle/initialize/result-shape"),
        blocked("prompts/get/shape", "lifecycle/initialize/result-shape"),
        blocked("prompts/get/unknown", "lifecycle/initialize/result-shape"),
        // The kit's metadata rules read the same listings.
        blocked("meta-risk/declared", "lifecycle/initialize/result-shape"),
        blocked("meta-risk/annotations", "lifecycle/initialize/result-shape"),
        blocked("meta-work/declared", "lifecycle/initialize/result-shape"),
        blocked(
            "meta-work/resource-listed",
            "lifecycle/initialize/result-shape"
        ),
        blocked(
            "meta-work/snapshot-shape",
            "lifecycle/initialize/result-shape"
        ),
    ]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    an_initialize_result_without_server_info_fails_result_shape,
    "no-server-info",
    [fail("lifecycle/initialize/result-shape")]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    server_info_without_version_fails_result_shape,
    "server-info-no-version",
    [fail("lifecycle/initialize/result-shape")]
);
// T3's refusal before initialize is the kit's rule: info in plain.
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    requests_served_before_initialize_are_info,
    "served-before-initialize",
    [info("lifecycle/request-before-initialize")]
);
// MCP basic/lifecycle (2025-06-18, initialization): "The server SHOULD NOT send requests other
// than pings and logging before receiving the initialized notification". The one fast-tier
// proof of its case.
mcp_mutant!(
    a_request_before_initialized_warns,
    "request-before-initialized",
    [warn("lifecycle/initialized/no-early-requests")]
);
// MCP basic/utilities/ping: "The receiver MUST respond promptly with an empty response"
// (before initialize, the kit's T3 at SHOULD).
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_ping_answered_with_a_non_empty_result_fails_ping,
    "ping-not-empty",
    [
        warn("lifecycle/ping/before-initialize"),
        fail("lifecycle/ping/after-initialize"),
    ]
);
// MCP transports, stdio shutdown: the client closes stdin, then SIGTERM; no MUST on the server.
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    staying_up_after_stdin_eof_warns_stdin_eof,
    "no-exit-on-eof",
    [warn("lifecycle/shutdown/stdin-eof")]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    ignoring_sigterm_warns_sigterm,
    "ignore-sigterm",
    [warn("lifecycle/shutdown/sigterm")]
);

// Notifications (JSON-RPC 2.0 §4.1: "The Server MUST NOT reply to a Notification").
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    answering_initialized_fails_unknown_notification,
    "answer-initialized",
    [fail("jsonrpc/unknown-notification")]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    answering_cancelled_fails_unknown_notification,
    "answer-cancelled",
    [fail("jsonrpc/unknown-notification")]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    answering_unknown_notifications_fails_unknown_notification,
    "answer-unknown-notifications",
    [fail("jsonrpc/unknown-notification")]
);
// The unknown-notification case probes with a notification of its own (outside a batch), so its
// exchanges are all that these defects show: the stdout rule must grade them too (GATE-LOAD-2's
// probe phase), whatever the load, in a full run and in a shard.
mcp_mutant!(
    a_junk_line_after_an_unknown_notification_fails_protocol_only,
    "junk-after-unknown-notification",
    [fail("lifecycle/stdout/protocol-only")]
);

/// A `--case jsonrpc/unknown-notification` shard: its probe's exchanges are all there is, and
/// the stdout rule the shard keeps grades them (RUNNER-11).
#[test]
fn a_shard_of_the_unknown_notification_case_keeps_the_stdout_rule_on_its_probe() {
    let _slot = Slot::take();
    let server = example("mutant_server").display().to_string();
    let (out, report) = run_json(
        &[
            "--timeout-ms",
            "3000",
            "--case",
            "jsonrpc/unknown-notification",
        ],
        &[&server, "--defect", "junk-after-unknown-notification"],
    );
    let report = report.unwrap_or_else(|| panic!("no report: {}", describe(&out)));
    let failed: Vec<&str> = report["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .filter(|c| c["outcome"] == "fail")
        .filter_map(|c| c["id"].as_str())
        .collect();
    assert_eq!(
        failed,
        ["lifecycle/stdout/protocol-only"],
        "{}",
        describe(&out)
    );
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
}

mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_json_junk_line_after_an_unknown_notification_fails_protocol_only,
    "json-junk-after-unknown-notification",
    [fail("lifecycle/stdout/protocol-only")]
);

// Tools (MCP server/tools).
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_tool_without_input_schema_fails_list_shape,
    "no-input-schema",
    [fail("tools/list/shape")]
);
// The kit's closed-object rule (TOOL-2, info in plain) also wants type object.
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    an_input_schema_of_type_string_fails_list_shape,
    "input-schema-string",
    [
        fail("tools/list/shape"),
        info("tools/schema/closed-objects")
    ]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    an_invalid_output_schema_fails_schema_valid,
    "invalid-output-schema",
    [fail("tools/schema/valid")]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    is_error_as_a_string_fails_result_shape_and_blocks_what_reads_results,
    "is-error-string",
    [
        fail("tools/result/shape"),
        blocked("tools/result/output-schema", "tools/result/shape"),
        blocked("tools/call/wrong-typed-arguments", "tools/result/shape"),
    ]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    structured_content_breaking_the_output_schema_fails_output_schema,
    "structured-mismatch",
    [fail("tools/result/output-schema")]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_content_block_of_an_unknown_type_fails_result_shape,
    "content-bad-type",
    [fail("tools/result/shape")]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_text_block_without_text_fails_result_shape,
    "content-no-text",
    [fail("tools/result/shape")]
);
// SEP-986: tool names SHOULD use A-Z a-z 0-9 _ - .
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_tool_name_with_a_space_warns_sep_986,
    "bad-tool-name",
    [warn("tools/names/sep-986")]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    an_unknown_tool_as_an_is_error_result_warns_unknown_tool,
    "unknown-tool-is-error",
    [warn("tools/call/unknown-tool")]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    an_unknown_tool_answered_32601_warns_unknown_tool,
    "unknown-tool-code",
    [warn("tools/call/unknown-tool")]
);
// MCP 2025-06-18 allows -32602 for invalid arguments (info); the shape rule then grades the
// result of output-schema's probe, the one other call.
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    wrong_typed_arguments_answered_32602_are_info,
    "wrong-args-protocol-error",
    [info("tools/call/wrong-typed-arguments")]
);

/// Coverage: with no tool marked read-only the gate calls none, so the MUST rules on results
/// go ungraded, each saying why (`no-safe-tool`), and the run is not a failure.
#[test]
fn tools_without_read_only_hint_are_never_called_and_the_coverage_says_so() {
    let report = check(
        "no-read-only-hint",
        &[
            skip("tools/call/wrong-typed-arguments"),
            skip("tools/result/shape"),
            skip("tools/result/output-schema"),
        ],
    );
    for id in [
        "tools/call/wrong-typed-arguments",
        "tools/result/shape",
        "tools/result/output-schema",
    ] {
        assert_eq!(
            crate::support::case(&report, id)["ungraded"],
            "no-safe-tool",
            "{id}"
        );
    }
}

// Resources (MCP server/resources).
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_listed_resource_that_cannot_be_read_fails_read_listed,
    "unreadable-resource",
    [
        fail("resources/read/listed"),
        // The work resource is not listed: its case stays blocked by that, as on the clean twin.
        blocked("meta-work/snapshot-shape", "meta-work/resource-listed"),
    ]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    read_contents_without_uri_fail_read_listed,
    "contents-no-uri",
    [
        fail("resources/read/listed"),
        blocked("meta-work/snapshot-shape", "meta-work/resource-listed"),
    ]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    read_contents_without_text_or_blob_fail_read_listed,
    "contents-no-text",
    [
        fail("resources/read/listed"),
        blocked("meta-work/snapshot-shape", "meta-work/resource-listed"),
    ]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_resource_without_name_fails_list_shape,
    "resource-no-name",
    [fail("resources/list/shape")]
);
// MCP server/resources, error handling: "Resource not found: -32002" (servers SHOULD).
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_missing_resource_answered_32600_warns_read_unknown,
    "missing-resource-wrong-code",
    [warn("resources/read/unknown")]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_missing_resource_answered_with_empty_contents_warns_read_unknown,
    "missing-resource-empty",
    [warn("resources/read/unknown")]
);

// Pagination (MCP utilities/pagination).
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_cursor_loop_fails_pagination_only,
    "cursor-loop",
    [fail("tools/list/pagination")]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    an_unknown_cursor_accepted_warns_invalid_cursor,
    "cursor-accepted",
    [warn("tools/list/invalid-cursor")]
);

// Batches and malformed input (MCP 2025-03-26: MUST support receiving batches; the kit's T4).
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_dropped_batch_under_2025_03_26_fails_the_batch_case,
    "batch-dropped",
    [fail("jsonrpc/batch/2025-03-26")]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    batch_answers_written_one_per_line_fail_the_batch_case,
    "batch-unwrapped",
    [fail("jsonrpc/batch/2025-03-26")]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    an_unanswered_empty_batch_warns_batch_empty,
    "empty-batch-silent",
    [warn("jsonrpc/batch/empty")]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_silently_dropped_bad_line_warns_parse_error,
    "parse-error-silent",
    [
        warn("jsonrpc/malformed/parse-error"),
        info("jsonrpc/malformed/invalid-utf8"),
    ]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_scalar_answered_32700_warns_not_an_object,
    "scalar-parse-error",
    [warn("jsonrpc/invalid/not-an-object")]
);
// Dying on a bad line (after answering what came before it): its parse-error answer never
// comes (SHOULD), and the kit's liveness rule (T4, info in plain) sees the server gone.
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    exiting_on_a_bad_line_warns_parse_error_and_the_liveness_rules_note_it,
    "die-on-bad-line",
    [
        warn("jsonrpc/malformed/parse-error"),
        info("jsonrpc/malformed/invalid-utf8"),
        info("liveness/after-malformed"),
    ]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_jsonrpc_1_0_request_served_warns_wrong_version,
    "wrong-version-accepted",
    [warn("jsonrpc/invalid/wrong-version")]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_null_id_request_served_warns_null_id,
    "null-id-accepted",
    [warn("jsonrpc/invalid/null-id")]
);

// Prompts (MCP server/prompts: a Prompt has a string name; GetPromptResult.messages is an
// array of PromptMessage). A listing whose only prompt has no name leaves nothing to get.
mcp_mutant!(
    a_prompt_without_name_fails_prompts_list_shape,
    "prompt-no-name",
    [
        fail("prompts/list/shape"),
        blocked("prompts/get/shape", "prompts/list/shape"),
    ]
);
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    prompts_get_messages_as_an_object_fails_prompts_get_shape,
    "prompt-get-wrong-shape",
    [fail("prompts/get/shape")]
);
// MCP server/prompts, Error Handling: "Servers SHOULD return standard JSON-RPC errors for common
// failure cases: Invalid prompt name: -32602 (Invalid params)". Another code is a SHOULD
// deviation; the Python SDK (mcp 2.3.0) answers code 0.
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    an_unknown_prompt_answered_code_0_warns_get_unknown,
    "prompt-unknown-code-0",
    [warn("prompts/get/unknown")]
);
// Logging (MCP server/utilities/logging: the level is one of RFC 5424's eight), graded on
// every exchange.
mcp_mutant!(
    #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
    a_log_notification_with_an_unknown_level_fails_logging_shape,
    "log-bad-level",
    [fail("logging/message-shape")]
);

// Display metadata on 2025-11-25 connections (MCP 2025-11-25 schema.ts: Tool, Resource and
// Prompt each "extends BaseMetadata, Icons"; BaseMetadata "title?: string"; Icon "src: string",
// "A standard URI pointing to an icon resource"). The server speaks 2025-11-25 here, so that
// revision's other rules are graded too, and pass.
#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn the_clean_mutant_server_speaking_2025_11_25_passes_its_rules_under_strict() {
    let report = check_with("none", &["--revision-2025-11-25"], ON_2025_11_25);
    assert_eq!(report["summary"]["warned"], 0);
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn a_null_title_on_a_listed_resource_fails_the_title_rule() {
    let want = [ON_2025_11_25, &[fail("listings/title/2025-11-25")]].concat();
    let report = check("title-null", &want);
    let c = crate::support::case(&report, "listings/title/2025-11-25");
    assert_eq!(c["revision"], "2025-11-25", "{c}");
    assert!(
        c["actual"]
            .as_str()
            .is_some_and(|a| a.contains("resource \"readme\": title null")),
        "{c}"
    );
}

// The fast tier's one run of the display rules: both new cases graded on a 2025-11-25
// connection, the icon's finding named, the title rule and that revision's other rules passing.
#[test]
fn a_relative_icon_src_fails_the_icons_rule() {
    let want = [ON_2025_11_25, &[fail("listings/icons/2025-11-25")]].concat();
    let report = check("icon-relative-src", &want);
    let c = crate::support::case(&report, "listings/icons/2025-11-25");
    assert_eq!(c["revision"], "2025-11-25", "{c}");
    assert!(
        c["actual"]
            .as_str()
            .is_some_and(|a| a.contains("tool \"echo\": icons[0] src \"icons/echo.png\"")),
        "{c}"
    );
}

/// Every defect the server knows has its test here (a defect added without one is unchecked).
#[test]
fn every_defect_of_the_mutant_server_is_in_this_suite() {
    let source = include_str!("mutant_suite_mcp.rs");
    let defects = include_str!("../../examples/mutant_server/defects.rs");
    let names: Vec<&str> = defects
        .lines()
        .filter_map(|l| l.trim().strip_prefix("(\""))
        .filter_map(|l| l.split('"').next())
        .filter(|n| *n != "none")
        .collect();
    assert!(names.len() >= 40, "{} defects", names.len());
    let missing: Vec<&&str> = names
        .iter()
        .filter(|n| !source.contains(&format!("\"{n}\"")))
        .collect();
    assert!(missing.is_empty(), "defects without a test: {missing:?}");
}
