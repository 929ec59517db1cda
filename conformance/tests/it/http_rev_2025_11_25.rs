//! The Streamable HTTP rules of MCP 2025-11-25 against the HTTP toy server on loopback: the
//! priming event (HTTP-10, a SHOULD), the 403 for a foreign `Origin` (HTTP-8), a response on a
//! stream the server closed and the client resumed (HTTP-2) and the standalone GET stream
//! (HTTP-6), each `--defect` breaking one of them giving exactly its verdicts; a server that
//! polls as 2025-11-25 allows passes; a server of 2025-06-18 alone, or a run choosing that
//! revision, skips 2025-11-25's cases with the reason; every transport case reports the revision
//! it was graded on.

use std::time::{Duration, Instant};

use crate::http::{
    assert_non_pass, exit_code, grade_cases, grade_cases_with, toy_http, toy_http_with,
};

const PRIMING: &str = "transport/http/sse/priming/2025-11-25";
const ORIGIN_403: &str = "transport/http/origin/foreign@2025-11-25";
const ANSWER_POLLED: &str = "transport/http/post/answer@2025-11-25";

/// One defect of a 2025-11-25 rule or of the GET stream, and every non-pass verdict it gives.
const DEFECTS: &[(&str, &[(&str, &str)])] = &[
    // HTTP-10 is a SHOULD: a warning, and the gate passes.
    ("no-priming", &[(PRIMING, "warn")]),
    ("priming-no-id", &[(PRIMING, "warn")]),
    // HTTP-8: 2025-06-18 names no status (a 400 refuses: pass); 2025-11-25 says 403.
    ("origin-400", &[(ORIGIN_403, "fail")]),
    // HTTP-2: the stream closed after its priming event, but the resuming GET gets 405.
    ("poll-lost", &[(ANSWER_POLLED, "fail")]),
    // HTTP-6: text/event-stream or 405, nothing else.
    ("get-404", &[("transport/http/get/stream", "fail")]),
    ("get-json", &[("transport/http/get/stream", "fail")]),
];

#[test]
fn each_defect_of_a_2025_11_25_rule_gives_exactly_its_verdicts() {
    for (defect, expected) in DEFECTS {
        let toy = toy_http(Some(defect));
        let (code, outcomes, json) = grade_cases(&toy.url, &["transport/**"]);
        assert_non_pass(&outcomes, expected, defect);
        assert_eq!(code, Some(exit_code(expected)), "--defect {defect}");
        for (id, _) in *expected {
            let case = crate::support::case(&json, id);
            assert_eq!(case["level"], level_of(id), "{case}");
        }
    }
}

fn level_of(id: &str) -> &'static str {
    if id == PRIMING { "SHOULD" } else { "MUST" }
}

#[test]
fn the_priming_finding_names_the_first_event_and_the_revision() {
    let toy = toy_http(Some("priming-no-id"));
    let (_, _, json) = grade_cases(&toy.url, &[PRIMING]);
    let case = crate::support::case(&json, PRIMING);
    assert_eq!(case["outcome"], "warn", "{case}");
    assert_eq!(case["revision"], "2025-11-25", "{case}");
    let actual = case["actual"].as_str().unwrap_or_default();
    assert!(actual.starts_with("its first event: "), "{case}");
    assert!(actual.contains("\"id\":null"), "{case}");
}

/// A GET the server never answers is bounded by the case's deadline and fails (HTTP-6: no
/// `text/event-stream`, no 405), never a hang.
#[test]
fn a_get_never_answered_is_bounded_and_fails() {
    let toy = toy_http(Some("get-silent"));
    let started = Instant::now();
    let (code, outcomes, json) = grade_cases(&toy.url, &["transport/**"]);
    assert!(started.elapsed() < Duration::from_secs(30));
    assert_non_pass(
        &outcomes,
        &[("transport/http/get/stream", "fail")],
        "get-silent",
    );
    let case = crate::support::case(&json, "transport/http/get/stream");
    assert!(
        case["actual"]
            .as_str()
            .is_some_and(|a| a.contains("no HTTP response to GET within")),
        "{case}"
    );
    assert_eq!(code, Some(1));
}

/// A server of 2025-06-18 alone: 2025-11-25's cases are skipped, saying why; the others pass.
#[test]
fn a_server_without_2025_11_25_skips_its_cases_with_the_reason() {
    let toy = toy_http_with(&["--only-2025-06-18"], None);
    let (code, outcomes, json) = grade_cases(&toy.url, &["transport/**"]);
    assert_non_pass(
        &outcomes,
        &[
            (ANSWER_POLLED, "skip"),
            (ORIGIN_403, "skip"),
            (PRIMING, "skip"),
        ],
        "--only-2025-06-18",
    );
    for id in [ANSWER_POLLED, ORIGIN_403, PRIMING] {
        let case = crate::support::case(&json, id);
        let reason = case["reason"].as_str().unwrap_or_default();
        assert!(
            reason.starts_with("revision not supported: initialize proposing 2025-11-25"),
            "{case}"
        );
        assert_eq!(case["revision"], "2025-11-25", "{case}");
    }
    assert_eq!(code, Some(0));
}

/// `--revision 2025-06-18`: 2025-11-25's cases are not graded, even on a server of it.
#[test]
fn a_run_of_2025_06_18_only_skips_2025_11_25s_cases() {
    let toy = toy_http(Some("no-priming"));
    let (code, outcomes, json) =
        grade_cases_with(&toy.url, &["transport/**"], &["--revision", "2025-06-18"]);
    assert_non_pass(
        &outcomes,
        &[
            (ANSWER_POLLED, "skip"),
            (ORIGIN_403, "skip"),
            (PRIMING, "skip"),
        ],
        "--revision 2025-06-18",
    );
    let case = crate::support::case(&json, PRIMING);
    assert!(
        case["reason"]
            .as_str()
            .is_some_and(|r| r.starts_with("revision not supported: 2025-11-25 is not among")),
        "{case}"
    );
    assert_eq!(code, Some(0));
}

/// Every transport case says the revision it was graded on: 2025-11-25's cases that one, the
/// others the default their handshakes propose.
#[test]
fn every_transport_case_reports_its_revision() {
    let toy = toy_http(None);
    let (code, outcomes, json) = grade_cases(&toy.url, &["transport/**"]);
    assert_eq!(outcomes.len(), 12, "{outcomes:?}");
    for (id, _) in &outcomes {
        let want = if id.contains("2025-11-25") {
            "2025-11-25"
        } else {
            "2025-06-18"
        };
        assert_eq!(crate::support::case(&json, id)["revision"], want, "{id}");
    }
    assert_eq!(code, Some(0));
}

/// A server that polls (2025-11-25: it closes the POST's connection after a priming event with
/// `retry`, and answers on the stream the client resumes by GET with `Last-Event-ID`) passes
/// every transport case: the runner waits the `retry`, resumes, and finds the response.
#[test]
fn a_server_that_polls_as_2025_11_25_allows_passes() {
    let toy = toy_http_with(&["--poll"], None);
    let (code, outcomes, json) = grade_cases(&toy.url, &["transport/**"]);
    assert_non_pass(&outcomes, &[], "--poll");
    let case = crate::support::case(&json, ANSWER_POLLED);
    let resumed = case["transcript"].as_array().is_some_and(|t| {
        t.iter().any(|e| {
            e["line"]
                .as_str()
                .is_some_and(|l| l.starts_with("HTTP GET") && l.contains("last-event-id: "))
        })
    });
    assert!(resumed, "{case}");
    assert_eq!(code, Some(0));
}

/// A server stream on GET that never ends passes HTTP-6 at once: the runner reads the head only
/// and closes the connection, never waiting for events.
#[test]
fn an_endless_get_stream_passes_without_waiting_for_events() {
    let toy = toy_http_with(&["--get-stream"], None);
    let (code, outcomes, json) = grade_cases(&toy.url, &["transport/http/get/stream"]);
    assert_non_pass(&outcomes, &[], "--get-stream");
    let case = crate::support::case(&json, "transport/http/get/stream");
    // Well inside the case timeout of 3 s that an event wait would run into.
    assert!(
        case["duration_ms"].as_u64().is_some_and(|ms| ms < 2000),
        "{case}"
    );
    let head = case["transcript"].as_array().is_some_and(|t| {
        t.iter().any(|e| {
            e["line"]
                .as_str()
                .is_some_and(|l| l.starts_with("HTTP 200 [content-type: text/event-stream"))
        })
    });
    assert!(head, "{case}");
    assert_eq!(code, Some(0));
}
