//! Golden tests of the three report writers on a fixed synthetic report that has every outcome:
//! pass, fail with a transcript, warn, info, skip, error, baselined, stale baseline, and an
//! unknown baseline id, a coverage below its `--min-coverage`, and cases of several revisions
//! (one of them not supported). Regenerate with `BLESS=1 cargo test -p mcp-conformance golden`.
//! RUNNER-8: the three writers; RUNNER-3: every outcome; RUNNER-7: a failure's expected, actual
//! and transcript.

use mcp_conformance::core::model::{Gap, Level, Outcome};
use mcp_conformance::core::report::{
    self, BaselineReport, CaseResult, Report, RunnerInfo, ServerReport,
};
use mcp_conformance::core::transcript::Entry;
use mcp_conformance::core::verdict;
use mcp_conformance::mcp::profile::Profile;
use serde_json::json;
use testkit::golden::check as golden;

use crate::support::golden_dir;

fn case(id: &str, req: &str, level: Level, outcome: Outcome) -> CaseResult {
    CaseResult {
        id: id.into(),
        section: id.split('/').next().unwrap_or(id).into(),
        // The revision an instance `ID@DATE` names, else the one the base connection negotiated.
        revision: Some(
            id.rsplit_once('@')
                .map_or("2025-06-18", |(_, date)| date)
                .into(),
        ),
        requirement: req.into(),
        level,
        outcome,
        baselined: false,
        stale_baseline: false,
        description: format!("What {id} checks"),
        expected: None,
        actual: None,
        reason: None,
        blocked_by: None,
        ungraded: None,
        duration_ms: 12,
        started_at: None,
        timed_out: false,
        transcript: Vec::new(),
    }
}

fn entry(dir: &str, ms: u64, line: &str) -> Entry {
    Entry {
        dir: dir.into(),
        ms,
        line: line.into(),
    }
}

/// The synthetic report every writer renders.
pub fn synthetic() -> Report<Profile> {
    let mut fail = case(
        "jsonrpc/malformed/parse-error",
        "T4",
        Level::Must,
        Outcome::Fail,
    );
    fail.expected = Some("an error response with code -32700 and id null".into());
    fail.actual = Some("no answer: the line was dropped silently <&>".into());
    fail.transcript = vec![
        entry("note", 0, "started server, pid 4242"),
        entry(
            "c2s",
            1,
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize"}"#,
        ),
        entry("s2c", 5, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
        entry(
            "c2s",
            6,
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"",
        ),
        entry("stderr", 7, "warning: bad line \u{1}"),
    ];
    let mut warn = case("jsonrpc/ids/u64-max", "T3a", Level::Should, Outcome::Warn);
    warn.expected = Some("a ping result with id 18446744073709551615".into());
    warn.actual = Some("no answer to the request (dropped)".into());
    let mut info = case(
        "meta-risk/declared",
        "META-RISK-1",
        Level::Info,
        Outcome::Info,
    );
    info.expected = Some("a risk on every tool".into());
    info.actual = Some("echo: no risk".into());
    let mut skip = case(
        "resources/read/listed",
        "MCP server/resources",
        Level::Must,
        Outcome::Skip,
    );
    skip.reason = Some("the server declares no resources capability".into());
    skip.ungraded = Some(Gap::NotApplicable);
    // A revision the server does not support: its instance says so.
    let mut unsupported = case(
        "resources/read/unknown@2026-07-28",
        "MCP server/resources",
        Level::Should,
        Outcome::Skip,
    );
    unsupported.reason = Some("revision not supported".into());
    unsupported.ungraded = Some(Gap::NotApplicable);
    let mut error = case(
        "lifecycle/ping/after-initialize",
        "MCP basic/utilities/ping",
        Level::Must,
        Outcome::Error,
    );
    error.reason = Some("cannot start /bin/server: No such file or directory (os error 2)".into());
    error.ungraded = Some(Gap::RunnerError);
    let mut baselined = case("jsonrpc/batch/2025-03-26", "T5", Level::Must, Outcome::Fail);
    baselined.revision = Some("2025-03-26".into());
    baselined.baselined = true;
    baselined.expected = Some("one array answering batch-a and batch-b".into());
    baselined.actual = Some("no answer: the batch was dropped silently".into());
    let mut stale = case(
        "tools/list/shape",
        "MCP server/tools",
        Level::Must,
        Outcome::Pass,
    );
    stale.stale_baseline = true;
    let mut timed_out = case("runs/cancel/cancelled", "RUN-6", Level::Must, Outcome::Fail);
    timed_out.timed_out = true;
    timed_out.duration_ms = 30_000;
    timed_out.expected = Some("a verdict within the case timeout of 30000 ms".into());
    timed_out.actual = Some("timed out: the server did not answer in time (hung?)".into());
    let cases = vec![
        case(
            "lifecycle/initialize/result-shape",
            "MCP basic/lifecycle",
            Level::Must,
            Outcome::Pass,
        ),
        error,
        warn,
        fail,
        baselined,
        stale,
        skip,
        unsupported,
        info,
        timed_out,
    ];
    let unknown = vec!["jsonrpc/no-such-case".to_owned()];
    let summary = verdict::summarize(&cases, unknown.len());
    // 6 of the 7 MUST and SHOULD cases that apply graded (85.7 %): below a --min-coverage of 90.
    let coverage = verdict::coverage_of(&cases, Some(90.0));
    Report {
        format_version: report::FORMAT_VERSION,
        runner: RunnerInfo {
            name: "mcp-conformance".into(),
            version: "0.0.0-golden".into(),
        },
        server: ServerReport {
            command: vec!["toy-server".into(), "--flag".into()],
            builtin: false,
            server_info: Some(json!({"name": "toy-server", "version": "1.0.0"})),
            protocol_version: Some("2025-06-18".into()),
        },
        profile: Profile::Provider,
        strict: true,
        drive_fake: false,
        baseline: BaselineReport {
            file: Some("baseline.txt".into()),
            listed: 3,
            unknown,
        },
        cases,
        exit_code: verdict::exit_code_with(&summary, &coverage),
        coverage: Some(coverage),
        // Wall time of the run: the cases ran side by side, so less than their sum.
        deadlines: None,
        duration_ms: Some(3_100),
        summary,
        error: None,
    }
}

#[test]
fn pretty_report_matches_its_golden_file() {
    let text = report::pretty::render(&synthetic());
    golden(&golden_dir().join("report.pretty.txt"), &text);
    let last: Vec<&str> = text.lines().rev().take(2).collect();
    assert_eq!(last[0], "1 passed, 5 failed, 2 skipped");
    assert_eq!(
        last[1],
        "1 warned, 1 info, 1 baselined, 2 stale baseline, 1 errors"
    );
}

#[test]
fn json_report_matches_its_golden_file_and_schema() {
    let text = report::json::render(&synthetic());
    golden(&golden_dir().join("report.json"), &text);
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    crate::docs::assert_matches_schema(&value);
}

#[test]
fn junit_report_matches_its_golden_file() {
    let text = report::junit::render(&synthetic());
    golden(&golden_dir().join("report.junit.xml"), &text);
    // Suite names carry the revision the cases were graded on.
    assert!(text.contains("<testsuite name=\"jsonrpc 2025-03-26\""));
    assert!(text.contains("<testsuite name=\"resources 2026-07-28\""));
    // A case failure is <failure>, a runner error <error>, never the other way round.
    assert!(
        text.contains("name=\"jsonrpc/malformed/parse-error\" time=\"0.012\">\n      <failure")
    );
    assert!(
        text.contains("name=\"lifecycle/ping/after-initialize\" time=\"0.012\">\n      <error")
    );
}

#[test]
fn the_pretty_report_shows_no_control_character_a_server_sent() {
    // Expected / actual texts, reasons and serverInfo come from the server: an escape sequence
    // there must not reach the terminal (it could clear the screen or hide a failure).
    let mut r = synthetic();
    r.server.server_info = Some(json!({"name": "evil\u{1b}[2J", "version": "1\u{7}"}));
    for c in &mut r.cases {
        if let Some(a) = &mut c.actual {
            a.push_str(" \u{1b}[2K\r");
        }
        if let Some(reason) = &mut c.reason {
            reason.push('\u{1b}');
        }
    }
    let text = report::pretty::render(&r);
    let bad: Vec<char> = text
        .chars()
        .filter(|c| c.is_control() && *c != '\n')
        .collect();
    assert!(bad.is_empty(), "control characters in the report: {bad:?}");
    assert!(text.contains("evil\u{FFFD}[2J"));
}
