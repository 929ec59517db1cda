//! One-defect servers for each defect class the gate must catch (the toy server's flags): every
//! defect gets one verdict under its own rule, checked on every exchange of every case, graded
//! at the level its specification gives it, and said in words a person can act on; the runner
//! never calls a tool that might act on a foreign server unless asked to.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::support::{case, describe, outcome, run_json, runner, toy};

fn toy_with(flags: &[&str]) -> Vec<String> {
    std::iter::once(toy().display().to_string())
        .chain(flags.iter().map(|f| (*f).to_owned()))
        .collect()
}

/// Runs the whole plain suite (`--strict`, so a warning counts) against the toy with `flags`.
fn plain_suite(extra: &[&str], flags: &[&str]) -> (std::process::Output, Value) {
    let server = toy_with(flags);
    let server: Vec<&str> = server.iter().map(String::as_str).collect();
    let mut args = vec!["--strict", "--timeout-ms", "3000"];
    args.extend_from_slice(extra);
    let (out, report) = run_json(&args, &server);
    let report = report.unwrap_or_else(|| panic!("no report: {}", describe(&out)));
    crate::docs::assert_matches_schema(&report);
    (out, report)
}

/// Ids of the cases with one of `outcomes`.
fn ids_with(report: &Value, outcomes: &[&str]) -> BTreeSet<String> {
    report["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .filter(|c| outcomes.iter().any(|o| c["outcome"] == *o))
        .map(|c| c["id"].as_str().expect("id").to_owned())
        .collect()
}

/// The failing cases of the conformant toy under plain --strict (its only deviations are the
/// contract's TOOL-2 closed schemas and request-before-initialize, both info): the baseline
/// each one-defect run is compared with.
fn baseline_failures() -> BTreeSet<String> {
    BTreeSet::new()
}

fn set(ids: &[&str]) -> BTreeSet<String> {
    ids.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn the_conformant_toy_passes_the_plain_suite_under_strict() {
    let (out, report) = plain_suite(&[], &[]);
    assert_eq!(
        ids_with(&report, &["fail", "warn", "error"]),
        baseline_failures(),
        "{}",
        describe(&out)
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
}

#[test]
fn a_log_line_on_each_tools_call_fails_t1_once_and_nothing_else() {
    let (out, report) = plain_suite(&[], &["--log-on-call"]);
    assert_eq!(
        ids_with(&report, &["fail", "warn", "error"]),
        set(&["lifecycle/stdout/protocol-only"]),
        "{}",
        describe(&out)
    );
    let actual = case(&report, "lifecycle/stdout/protocol-only")["actual"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        actual.contains("toy-server: INFO handling tools/call") && actual.contains("first seen in"),
        "{actual}"
    );
}

#[test]
fn a_text_line_over_the_keep_limit_fails_t1() {
    let (out, report) = plain_suite(
        &["--case", "tools", "--case", "lifecycle/stdout"],
        &["--oversized-log-on-call"],
    );
    assert_eq!(
        ids_with(&report, &["fail", "warn", "error"]),
        set(&["lifecycle/stdout/protocol-only"]),
        "{}",
        describe(&out)
    );
    let actual = case(&report, "lifecycle/stdout/protocol-only")["actual"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        actual.contains("over the runner's 16 MiB keep limit"),
        "{actual}"
    );
}

#[test]
fn an_answer_under_another_id_fails_the_id_rule_once_and_blocks_what_waited_for_it() {
    let (out, report) = plain_suite(
        &["--case", "lifecycle/ping", "--case", "jsonrpc/response-ids"],
        &["--wrong-id-method", "ping"],
    );
    assert_eq!(
        ids_with(&report, &["fail", "warn", "error"]),
        set(&["jsonrpc/response-ids"]),
        "{}",
        describe(&out)
    );
    let blocked = case(&report, "lifecycle/ping/after-initialize");
    assert_eq!(blocked["outcome"], "skip");
    assert_eq!(blocked["blocked_by"], "jsonrpc/response-ids");
    assert_eq!(outcome(&report, "lifecycle/ping/before-initialize"), "pass");
    // The mislabelled answer does not end the wait (an answer under an id never sent may come
    // while another request is slow): the case waits out its timeout and is then blocked, as
    // above; acp_mutants pins that such an answer leaves a slow request's verdict alone.
    // A shard of one id case keeps the cross-cutting probes, and the id rule grades their
    // exchanges (GATE-LOAD-2): unknown-notification's ping after its notification is answered
    // under another id too, so the shard says what the whole gate says, the id rule failing
    // (a MUST of JSON-RPC 2.0 §5) and the id case blocked by it.
    let (out, report) = plain_suite(
        &["--case", "jsonrpc/ids/i64-max"],
        &["--wrong-id-method", "ping"],
    );
    assert_eq!(
        ids_with(&report, &["fail", "warn", "error"]),
        set(&["jsonrpc/response-ids"]),
        "{}",
        describe(&out)
    );
    let rule = case(&report, "jsonrpc/response-ids");
    assert_eq!(rule["level"], "MUST");
    assert!(
        rule["actual"]
            .as_str()
            .is_some_and(|a| a.contains("(first seen in jsonrpc/unknown-notification)")),
        "{rule}"
    );
    let c = case(&report, "jsonrpc/ids/i64-max");
    assert_eq!(
        c["blocked_by"],
        "jsonrpc/response-ids",
        "{}",
        describe(&out)
    );
}

#[test]
fn kit_only_rules_are_info_under_plain() {
    let out = runner()
        .args(["--list", "--profile", "plain"])
        .output()
        .expect("run");
    let text = String::from_utf8(out.stdout).expect("utf-8");
    for id in [
        "jsonrpc/oversized/answered",
        "jsonrpc/oversized/memory-bounded",
        "jsonrpc/malformed/invalid-utf8",
        "liveness/after-malformed",
        "liveness/after-oversized",
        "liveness/in-flight-kept",
    ] {
        let line = text
            .lines()
            .find(|l| l.starts_with(id))
            .unwrap_or_else(|| panic!("{id} not listed:\n{text}"));
        assert!(line.contains("INFO"), "{line}");
    }
    // A silent drop of an invalid UTF-8 line: reported, never a warning under plain.
    let (out, report) = plain_suite(
        &["--case", "jsonrpc/malformed/invalid-utf8"],
        &["--drop-malformed"],
    );
    assert_eq!(outcome(&report, "jsonrpc/malformed/invalid-utf8"), "info");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
}

#[test]
fn structured_content_against_its_declared_output_schema_fails_that_rule_once_and_nothing_else() {
    // MCP server/tools (output schema): "servers MUST provide structured results that conform
    // to this schema". The toy's echo answers {text: 15} where its outputSchema says string;
    // the conformant toy passes the same case, so the probe really looked.
    let (out, clean) = plain_suite(&[], &[]);
    assert_eq!(out.status.code(), Some(0), "{clean}");
    assert_eq!(outcome(&clean, "tools/result/output-schema"), "pass");
    let (out, report) = plain_suite(&[], &["--output-schema-mismatch"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        ids_with(&report, &["fail"]),
        set(&["tools/result/output-schema"])
    );
    let c = crate::support::case(&report, "tools/result/output-schema");
    let actual = c["actual"].as_str().unwrap_or_default();
    assert!(
        actual.contains("\"/text\"") && actual.contains("not of type"),
        "{actual}"
    );
}

#[test]
fn a_server_killed_by_its_own_panic_on_sigterm_is_reported() {
    let (out, report) = plain_suite(
        &["--case", "lifecycle/shutdown/sigterm"],
        &["--panic-on-sigterm"],
    );
    let c = case(&report, "lifecycle/shutdown/sigterm");
    assert_eq!(c["outcome"], "fail", "{}", describe(&out));
    assert!(
        c["actual"]
            .as_str()
            .unwrap()
            .contains("exited with status 101"),
        "{c}"
    );
}

/// One defect, one verdict: the batch's answer to its notification (-32601 under id null) is
/// T3's finding (`jsonrpc/unknown-notification`, which sees it in the batch), not the batch
/// case's, whose pings were both answered as a batch.
#[test]
fn a_batch_answering_its_notification_fails_the_notification_rule_not_the_batch() {
    let (out, report) = plain_suite(
        &["--case", "jsonrpc/batch/2025-03-26"],
        &["--batch-answers-notification"],
    );
    let batch = case(&report, "jsonrpc/batch/2025-03-26");
    assert_eq!(batch["outcome"], "pass", "{}", describe(&out));
    let c = case(&report, "jsonrpc/unknown-notification");
    assert_eq!(c["outcome"], "fail", "{}", describe(&out));
    let actual = c["actual"].as_str().unwrap();
    assert!(
        actual.contains("an answer to a notification")
            && actual.contains("first seen in jsonrpc/batch/2025-03-26"),
        "{actual}"
    );
}

#[test]
fn a_tool_that_might_act_is_never_called_unless_allowed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("scheduled");
    let file_arg = file.display().to_string();
    let flags = ["--acting-tool", file_arg.as_str(), "--no-echo"];
    let id = "tools/call/wrong-typed-arguments";
    for profile in ["plain", "gateway"] {
        let (out, report) = plain_suite(&["--profile", profile], &flags);
        let c = case(&report, id);
        assert_eq!(c["outcome"], "skip", "{profile}: {}", describe(&out));
        let reason = c["reason"].as_str().unwrap();
        assert!(
            reason.contains("readOnlyHint") && reason.contains("--allow-tool-calls"),
            "{reason}"
        );
        assert!(!file.exists(), "{profile}: the runner called schedule_task");
    }
    // Opting in calls it (and this server acts before it validates).
    let (_, report) = plain_suite(&["--case", id, "--allow-tool-calls"], &flags);
    assert_ne!(outcome(&report, id), "skip");
    assert!(file.exists(), "--allow-tool-calls did not call the tool");
    // With a read-only tool listed, that one is called instead.
    std::fs::remove_file(&file).expect("remove");
    let (_, report) = plain_suite(&["--case", id], &["--acting-tool", &file_arg]);
    assert_eq!(outcome(&report, id), "pass");
    assert!(!file.exists());
}

#[test]
fn a_closed_connection_names_the_exit_status() {
    let (out, report) = plain_suite(
        &["--case", "lifecycle/ping/after-initialize"],
        &["--exit-on-method", "ping"],
    );
    let c = case(&report, "lifecycle/ping/after-initialize");
    assert_eq!(c["outcome"], "fail", "{}", describe(&out));
    assert!(
        c["actual"]
            .as_str()
            .unwrap()
            .contains("exited with status 3"),
        "{c}"
    );
}

#[test]
fn a_deadline_reports_the_real_elapsed_time() {
    let (out, report) = plain_suite(
        &["--case", "lifecycle/ping/after-initialize"],
        &["--hang-method", "ping"],
    );
    let c = case(&report, "lifecycle/ping/after-initialize");
    assert_eq!(c["outcome"], "fail", "{}", describe(&out));
    let actual = c["actual"].as_str().unwrap();
    let ms: u64 = actual
        .split("nothing within ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{actual}"));
    assert!(ms >= 1000, "{actual}");
}

#[test]
fn a_server_slow_to_initialize_in_a_case_is_a_runner_error_after_one_retry() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path().display().to_string();
    let (out, report) = plain_suite(
        &["--case", "lifecycle/ping/after-initialize"],
        &["--hang-initialize-unless-first", &d],
    );
    let c = case(&report, "lifecycle/ping/after-initialize");
    assert_eq!(c["outcome"], "error", "{}", describe(&out));
    assert_eq!(c["timed_out"], true);
    assert!(c["reason"].as_str().unwrap().contains("twice"), "{c}");
    let notes = c["transcript"].to_string();
    assert!(
        notes.contains("attempt 1 of 2") && notes.contains("attempt 2 of 2"),
        "{notes}"
    );
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
}

// A fresh server silent on an initialize no revision's handshake sends (here: without
// protocolVersion) that answers a ping sent after it read the request and dropped it: the
// case's verdict at its level (info under plain, a kit-only rule), never the runner's error
// blaming the machine (GATE-LOAD-3), and one server is enough to tell.
#[test]
fn a_dropped_initialize_is_graded_not_a_runner_error() {
    let (out, report) = plain_suite(
        &["--case", "lifecycle/initialize/missing-proposal"],
        &["--drop-missing-proposal"],
    );
    let c = case(&report, "lifecycle/initialize/missing-proposal");
    assert_eq!(c["outcome"], "info", "{}", describe(&out));
    assert_eq!(c["timed_out"], false, "{c}");
    let actual = c["actual"].as_str().unwrap_or_default();
    assert!(
        actual.contains("a ping sent after it was answered") && actual.contains("dropped it"),
        "{actual}"
    );
    let notes = c["transcript"].to_string();
    assert!(!notes.contains("attempt 2 of 2"), "{notes}");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
}

// A server whose later instances never initialize (only discovery's did): every case that
// starts one is the runner's error, each naming the likely cause, and stderr says it once
// rather than blaming an overloaded machine case by case.
#[test]
fn a_server_that_initializes_only_as_its_first_instance_is_said_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path().display().to_string();
    let server = toy_with(&["--hang-initialize-unless-first", &d]);
    let server: Vec<&str> = server.iter().map(String::as_str).collect();
    let (out, report) = run_json(
        &[
            "--timeout-ms",
            "1000",
            "--case",
            "lifecycle/ping/after-initialize",
            "--case",
            "jsonrpc/unknown-method",
            "--case",
            "jsonrpc/ids/zero",
        ],
        &server,
    );
    let report = report.unwrap_or_else(|| panic!("no report: {}", describe(&out)));
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    // The shard's cases, and the cross-cutting ones that start a server of their own.
    let errors = ids_with(&report, &["error"]);
    for id in [
        "lifecycle/ping/after-initialize",
        "jsonrpc/unknown-method",
        "jsonrpc/ids/zero",
        "jsonrpc/unknown-notification",
    ] {
        assert!(errors.contains(id), "{id}: {errors:?}");
    }
    for id in &errors {
        let reason = case(&report, id)["reason"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        assert!(
            reason.contains("works only as its first instance"),
            "{id}: {reason}"
        );
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr
            .matches(&format!(
                "no server a case started answered initialize ({} case(s) gave up",
                errors.len()
            ))
            .count(),
        1,
        "{stderr}"
    );
    assert!(!stderr.contains("probably overloaded"), "{stderr}");
}

#[test]
fn an_oversized_initialize_answer_says_so() {
    let server = toy_with(&["--huge-initialize"]);
    let server: Vec<&str> = server.iter().map(String::as_str).collect();
    // Generous: a debug build of the toy takes a while to write 17 MiB of JSON.
    let (out, _) = run_json(&["--timeout-ms", "8000"], &server);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("more than the runner keeps"),
        "{}",
        describe(&out)
    );
}

#[test]
fn a_dangling_double_dash_is_a_usage_error() {
    crate::support::gate("mcp-conformance")
        .arg("--")
        .assert()
        .code(2)
        .stderr(predicates::str::contains("no server command"));
}

#[test]
fn a_runner_error_still_writes_the_json_report() {
    let out = runner()
        .args(["--format", "json", "--", "/nonexistent/mcp-server"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let report: Value = serde_json::from_slice(&out.stdout).expect("a JSON report on stdout");
    assert_eq!(report["exit_code"], 2);
    assert!(
        report["error"]
            .as_str()
            .is_some_and(|e| e.contains("would not start")),
        "{report}"
    );
    crate::docs::assert_matches_schema(&report);
}

#[test]
fn a_notification_flood_keeps_the_exchange_in_the_transcript() {
    let (_, report) = plain_suite(&["--case", "lifecycle/ping/after-initialize"], &["--flood"]);
    let t = case(&report, "lifecycle/ping/after-initialize")["transcript"].to_string();
    assert!(t.contains("notifications from the server not kept"), "{t}");
    assert!(t.contains("case timed out") || t.contains("c2s"), "{t}");
}
