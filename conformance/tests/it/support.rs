//! Shared helpers: the runner binary, the toy server example, reading JSON reports, and where
//! the golden files are (compared with `testkit::golden::check`, one meaning of `BLESS`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// The runner binary under test.
pub fn runner() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mcp-conformance"))
}

/// One of the two gates (`mcp-conformance`, `acp-conformance`) for an `assert_cmd` check of its
/// command line (usage errors, exit statuses, stderr); its stdin is an empty pipe closed at once
/// (assert_cmd's own).
pub fn gate(name: &str) -> assert_cmd::Command {
    let bin = match name {
        "mcp-conformance" => env!("CARGO_BIN_EXE_mcp-conformance"),
        "acp-conformance" => env!("CARGO_BIN_EXE_acp-conformance"),
        other => panic!("no gate {other}"),
    };
    assert_cmd::Command::new(bin)
}

/// The toy server example (`cargo test` builds examples next to the binaries).
pub fn toy() -> PathBuf {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_mcp-conformance"));
    let path = bin
        .parent()
        .expect("bin dir")
        .join("examples")
        .join("toy_server");
    assert!(
        path.is_file(),
        "{} missing: cargo test builds examples",
        path.display()
    );
    path
}

/// An example of this package (`cargo test` builds examples next to the binaries).
pub fn example(name: &str) -> PathBuf {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_mcp-conformance"));
    let path = bin.parent().expect("bin dir").join("examples").join(name);
    assert!(
        path.is_file(),
        "{} missing: cargo test builds examples",
        path.display()
    );
    path
}

/// Runs the runner with `args`, a JSON report written to a temp file; returns the process
/// output and the parsed report (`None` when no report was written, e.g. exit 2).
pub fn run_json(args: &[&str], server: &[&str]) -> (Output, Option<Value>) {
    run_json_in(runner(), args, server)
}

/// [`run_json`] for a server given as a `Command` (a prerequisite's): its program and arguments
/// are the server's argv, and the environment it sets is given to the runner, whose server
/// processes inherit it.
pub fn run_json_cmd(args: &[&str], server: &Command) -> (Output, Option<Value>) {
    let mut cmd = runner();
    for (key, value) in server.get_envs() {
        match value {
            Some(value) => cmd.env(key, value),
            None => cmd.env_remove(key),
        };
    }
    let argv: Vec<String> = testkit::prereq::argv(server)
        .iter()
        .map(|s| s.to_string_lossy().into_owned())
        .collect();
    let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
    run_json_in(cmd, args, &argv)
}

fn run_json_in(mut cmd: Command, args: &[&str], server: &[&str]) -> (Output, Option<Value>) {
    let dir = tempfile::tempdir().expect("tempdir");
    let report = dir.path().join("report.json");
    cmd.args(args)
        .arg("--format")
        .arg(format!("json={}", report.display()))
        .arg("--format")
        .arg("pretty");
    if !server.is_empty() {
        cmd.arg("--").args(server);
    }
    let out = cmd.output().expect("run the runner");
    let parsed = std::fs::read_to_string(&report)
        .ok()
        .map(|t| serde_json::from_str(&t).expect("the JSON report parses"));
    (out, parsed)
}

/// The case with `id` in a JSON report.
pub fn case<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no case {id} in the report"))
}

/// Grades `server` (a command, its environment included) under the plain profile at the default
/// `--jobs` with `--timeout-ms timeout_ms`, and asserts the report's schema and every verdict
/// of `pinned` ([`assert_pinned`]); returns the run and its report for what else the caller
/// checks.
pub fn grade_pinned(
    server: &Command,
    timeout_ms: &str,
    pinned: &[(&str, &str)],
) -> (Output, Value) {
    let (out, report) = run_json_cmd(&["--timeout-ms", timeout_ms], server);
    let report = report.unwrap_or_else(|| panic!("no report: {}", describe(&out)));
    crate::docs::assert_matches_schema(&report);
    assert_pinned(&report, pinned);
    (out, report)
}

/// Grades `server` once more at `--jobs 1` (GATE-LOAD: the same report at any `--jobs`) and
/// asserts that every case's outcome, level and blocker, and the exit status, equal those of
/// `report` and `out` (a run at the default `--jobs`); timings and wording may differ.
pub fn assert_same_at_jobs_1(server: &Command, timeout_ms: &str, out: &Output, report: &Value) {
    let (other_out, other) = run_json_cmd(&["--timeout-ms", timeout_ms, "--jobs", "1"], server);
    assert_same_verdicts("1", (out, report), (&other_out, other), verdict_lines);
}

/// Per case its outcome, level and blocker: what must not change with `--jobs` or load.
pub fn verdict_lines(report: &Value) -> Vec<String> {
    report["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| {
            format!(
                "{} {} {} blocked_by={}",
                c["id"].as_str().unwrap_or("?"),
                c["outcome"],
                c["level"],
                c["blocked_by"]
            )
        })
        .collect()
}

/// Asserts that a run at `--jobs {jobs}` (`other`, its report if it wrote one) graded as the
/// run at the default `--jobs` did, case by case as `lines` projects a report, with the same
/// exit status; lists every case that differs.
pub fn assert_same_verdicts(
    jobs: &str,
    (out, report): (&Output, &Value),
    (other_out, other): (&Output, Option<Value>),
    lines: impl Fn(&Value) -> Vec<String>,
) {
    let other = other.unwrap_or_else(|| panic!("no report: {}", describe(other_out)));
    let (default, now) = (lines(report), lines(&other));
    let diff: Vec<String> = default
        .iter()
        .zip(&now)
        .filter(|(a, b)| a != b)
        .map(|(a, b)| format!("default --jobs: {a}\n--jobs {jobs}: {b}"))
        .collect();
    assert_eq!(default.len(), now.len(), "case count at --jobs {jobs}");
    assert!(diff.is_empty(), "verdicts differ:\n{}", diff.join("\n"));
    assert_eq!(
        out.status.code(),
        other_out.status.code(),
        "exit status at --jobs {jobs}"
    );
}

/// Asserts that `report` grades exactly the cases of `pinned`, in its order, each with its pinned
/// outcome; every difference is listed with the case's expected, actual and reason.
pub fn assert_pinned(report: &Value, pinned: &[(&str, &str)]) {
    assert_pinned_or(report, pinned, |_, _| false);
}

/// [`assert_pinned`], where `tolerated(id, outcome)` also accepts an outcome (a race of the
/// server's own, pinned both ways).
pub fn assert_pinned_or(
    report: &Value,
    pinned: &[(&str, &str)],
    tolerated: impl Fn(&str, &Value) -> bool,
) {
    let ids: Vec<&str> = report["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .filter_map(|c| c["id"].as_str())
        .collect();
    let want: Vec<&str> = pinned.iter().map(|(id, _)| *id).collect();
    assert_eq!(
        ids, want,
        "the catalogue changed: pin the new case's verdict here"
    );
    let wrong: Vec<String> = pinned
        .iter()
        .filter(|(id, want)| {
            let outcome = &case(report, id)["outcome"];
            *outcome != **want && !tolerated(id, outcome)
        })
        .map(|(id, want)| {
            let c = case(report, id);
            format!(
                "{id}: {} instead of {want} (expected {:?}, actual {:?}, reason {:?})",
                c["outcome"], c["expected"], c["actual"], c["reason"]
            )
        })
        .collect();
    assert!(wrong.is_empty(), "grading changed:\n{}", wrong.join("\n"));
}

/// Asserts that `outcomes` (case, outcome: what `http::grade` returns) are `pinned`, case for
/// case and in order.
pub fn assert_outcomes_pinned(outcomes: &[(String, String)], pinned: &[(&str, &str)]) {
    let got: Vec<(&str, &str)> = outcomes
        .iter()
        .map(|(id, o)| (id.as_str(), o.as_str()))
        .collect();
    let ids: Vec<&str> = got.iter().map(|(id, _)| *id).collect();
    let want: Vec<&str> = pinned.iter().map(|(id, _)| *id).collect();
    assert_eq!(
        ids, want,
        "the catalogue changed: pin the new case's verdict here"
    );
    let wrong: Vec<String> = got
        .iter()
        .zip(pinned)
        .filter(|(g, want)| *g != *want)
        .map(|(g, want)| format!("{}: {} instead of {}", want.0, g.1, want.1))
        .collect();
    assert!(wrong.is_empty(), "grading changed:\n{}", wrong.join("\n"));
}

/// The outcome of case `id`.
pub fn outcome<'a>(report: &'a Value, id: &str) -> &'a str {
    case(report, id)["outcome"].as_str().expect("outcome")
}

/// Text of a finished runner for assertion messages.
pub fn describe(out: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The directory of golden files.
pub fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/golden")
}
