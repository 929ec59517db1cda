//! Reports a CI can trust: the JUnit and JSON files exist on every exit (a runner error before
//! any case, an interrupt with the verdicts reached so far), and JUnit's times are wall times.

use std::io::{BufRead as _, BufReader};
use std::process::Stdio;

use serde_json::Value;

use crate::support::{describe, runner, toy};

fn read_json(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("the JSON report"))
        .expect("valid JSON")
}

#[test]
fn a_runner_error_still_writes_junit_and_json_saying_why() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (json, junit) = (dir.path().join("r.json"), dir.path().join("r.xml"));
    let out = runner()
        .arg("--format")
        .arg(format!("json={}", json.display()))
        .arg("--format")
        .arg(format!("junit={}", junit.display()))
        .args(["--", "/nonexistent/mcp-server"])
        .output()
        .expect("run the runner");
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let report = read_json(&json);
    assert_eq!(report["exit_code"], 2);
    assert!(report["error"].is_string(), "{report}");
    let xml = std::fs::read_to_string(&junit).expect("a JUnit file on exit 2");
    assert!(
        xml.contains("<testsuite name=\"runner\"")
            && xml.contains("type=\"runner-error\"")
            && xml.contains("would not start"),
        "{xml}"
    );
}

#[test]
fn an_interrupted_run_writes_its_verdicts_so_far_and_exits_130() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (json, junit) = (dir.path().join("r.json"), dir.path().join("r.xml"));
    // The ping case hangs (the server never answers ping) for a minute; the initialize cases
    // finish at once.
    let mut child = runner()
        .args(["--timeout-ms", "60000", "--jobs", "1"])
        .args([
            "--case",
            "lifecycle/initialize/version",
            "--case",
            "lifecycle/ping/after-initialize",
        ])
        .arg("--format")
        .arg(format!("json={}", json.display()))
        .arg("--format")
        .arg(format!("junit={}", junit.display()))
        .arg("--")
        .arg(toy())
        .args(["--hang-method", "ping"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the runner");
    // Progress lines go to stdout only when no report does; here they are on stderr. Wait for
    // the first verdict, then interrupt.
    let stderr = child.stderr.take().expect("stderr");
    let mut lines = BufReader::new(stderr).lines();
    let first = lines
        .by_ref()
        .map_while(Result::ok)
        .find(|l| l.starts_with('['))
        .expect("a progress line");
    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).expect("pid"));
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).expect("SIGINT");
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let status = child.wait().expect("the runner ends");
    assert_eq!(status.code(), Some(130), "{first}\n{}", rest.join("\n"));
    let report = read_json(&json);
    assert_eq!(report["exit_code"], 130, "{report}");
    assert!(
        report["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("interrupted after")),
        "{report}"
    );
    let cases = report["cases"].as_array().expect("cases");
    assert!(!cases.is_empty(), "the verdicts reached so far: {report}");
    assert!(
        cases
            .iter()
            .all(|c| c["id"] != "lifecycle/ping/after-initialize"),
        "the hanging case had no verdict: {report}"
    );
    assert!(report["duration_ms"].as_u64().is_some(), "{report}");
    let xml = std::fs::read_to_string(&junit).expect("a JUnit file on exit 130");
    assert!(
        xml.contains("<testsuite name=\"runner\"") && xml.contains("interrupted after"),
        "{xml}"
    );
    assert!(
        xml.contains("<testcase classname=\"mcp-conformance.lifecycle\""),
        "{xml}"
    );
}

#[test]
fn junit_time_is_the_runs_wall_time() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (json, junit) = (dir.path().join("r.json"), dir.path().join("r.xml"));
    let out = runner()
        .args(["--jobs", "8", "--case", "jsonrpc", "--case", "lifecycle"])
        .arg("--format")
        .arg(format!("json={}", json.display()))
        .arg("--format")
        .arg(format!("junit={}", junit.display()))
        .arg("--")
        .arg(toy())
        .output()
        .expect("run the runner");
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        describe(&out)
    );
    let report = read_json(&json);
    let wall = report["duration_ms"].as_u64().expect("the run's wall time");
    let sum: u64 = report["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .filter_map(|c| c["duration_ms"].as_u64())
        .sum();
    let xml = std::fs::read_to_string(&junit).expect("JUnit");
    let head = xml.lines().nth(1).expect("<testsuites>");
    let time: f64 = head
        .split("time=\"")
        .nth(1)
        .and_then(|t| t.split('"').next())
        .and_then(|t| t.parse().ok())
        .expect("a time attribute");
    assert_eq!(
        format!("{time:.3}"),
        format!("{}.{:03}", wall / 1000, wall % 1000),
        "{head}"
    );
    // Eight cases at once: their sum is well above the wall time, which JUnit now reports.
    assert!(sum > wall, "sum {sum} ms, wall {wall} ms");
}
