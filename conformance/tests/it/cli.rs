//! The command line: listing, selection, exit codes, baselines both ways, output routing,
//! timeouts, and containment (process groups die with the case and with the runner).

use std::time::{Duration, Instant};

use predicates::prelude::*;
use testkit::procs;

use crate::support::{describe, gate, outcome, run_json, runner, toy};

fn toy_str() -> String {
    toy().display().to_string()
}

#[test]
fn list_prints_the_catalogue_without_running_anything() {
    let out = runner()
        .args(["--list", "--", "/nonexistent/server"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", describe(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("lifecycle/initialize/unsupported-proposal"));
    assert!(text.contains("jsonrpc/malformed/parse-error"));
    // Without --profile every case is listed with its level per profile.
    assert!(text.contains("runs/run/succeeded"));
    assert!(text.lines().any(
        |l| l.starts_with("jsonrpc/malformed/parse-error") && l.contains("SHOULD/MUST/SHOULD")
    ));
}

#[test]
fn list_of_the_plain_profile_has_no_provider_lifecycle() {
    let out = runner()
        .args(["--list", "--profile", "plain"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains("runs/"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("meta-risk/declared") && l.contains("INFO"))
    );
}

#[test]
fn case_globs_select_cases() {
    let out = runner()
        .args(["--list", "--profile", "plain", "--case", "jsonrpc/ids/*"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 7, "{text}");
    assert!(text.lines().all(|l| l.starts_with("jsonrpc/ids/")));
}

#[test]
fn usage_errors_exit_2() {
    // RUNNER-5: bad usage is exit 2.
    for args in [
        &["--profile", "nope"][..],
        &["--format", "yaml"],
        &["--format", "json", "--format", "junit"],
        &["--timeout-ms", "abc"],
        &["--out", "a.json", "--out", "b.json"],
    ] {
        gate("mcp-conformance")
            .args(args)
            .args(["--", "true"])
            .assert()
            .code(2)
            .stdout(predicate::str::is_empty())
            .stderr(predicate::str::is_empty().not());
    }
    // A selection that matches nothing is a usage error found before any server starts (the
    // server here cannot start at all, which would be reported otherwise).
    gate("mcp-conformance")
        .args(["--case", "no/such/case", "--", "/nonexistent/mcp-server"])
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("no case matches")
                .and(predicate::str::contains("would not start").not()),
        );
}

#[test]
fn acp_conformance_usage_errors_exit_2_before_any_agent_starts() {
    for (args, says) in [
        (&["--jobs", "0", "--", "true"][..], "--jobs"),
        (&["--format", "yaml", "--", "true"], "--format"),
        (&["--cancel", "nope", "--client", "--", "true"], "--cancel"),
        (&["--timeout-ms", "abc", "--", "true"], "--timeout-ms"),
        (&[], "no agent command"),
        (&["--"], "no agent command"),
        (
            &["--case", "no/such/case", "--", "/nonexistent/agent"],
            "no case matches",
        ),
    ] {
        gate("acp-conformance")
            .args(args)
            .assert()
            .code(2)
            .stdout(predicate::str::is_empty())
            .stderr(predicate::str::contains(says));
    }
}

#[test]
fn both_gates_list_their_catalogue_and_exit_0() {
    gate("mcp-conformance")
        .args(["--list", "--profile", "plain"])
        .assert()
        .success()
        .stdout(predicate::str::contains("jsonrpc/malformed/parse-error"))
        .stderr(predicate::str::is_empty());
    gate("acp-conformance")
        .arg("--list")
        .assert()
        .success()
        .stdout(predicate::str::contains("initialize/"))
        .stderr(predicate::str::is_empty());
}

#[test]
fn a_server_that_will_not_start_or_initialize_exits_2() {
    // RUNNER-5: a server that will not start or initialize is exit 2.
    let toy = toy_str();
    for server in [
        vec!["/nonexistent/mcp-server"],
        vec![toy.as_str(), "--exit-at-start"],
        vec![toy.as_str(), "--hang-initialize"],
    ] {
        let (out, report) = run_json(&["--timeout-ms", "1500"], &server);
        assert_eq!(out.status.code(), Some(2), "{server:?}: {}", describe(&out));
        assert!(report.expect("a JSON report even on a runner error")["error"].is_string());
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("would not start or initialize"),
            "{}",
            describe(&out)
        );
    }
    // A server that never reads its stdin and floods the runner with requests: the runner's
    // answers fill the pipe, and its writes, once unbounded, hung it for ever.
    let started = Instant::now();
    let (out, _) = run_json(&["--timeout-ms", "1500"], &[&toy, "--ping-flood"]);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert!(started.elapsed() < Duration::from_secs(30));
    // A server that exits at once but leaves a child holding its stdout: the verdict says the
    // server exited, not that it was slow to answer. The child is in the server's group and
    // dies with it.
    let (out, _) = run_json(&["--timeout-ms", "1500"], &[&toy, "--exit-leaving-child"]);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("the server exited (exit status: 0)"),
        "{}",
        describe(&out)
    );
}

#[test]
fn a_conformant_selection_exits_0_with_the_closing_line() {
    // RUNNER-5 (exit 0) and RUNNER-8 (the closing line, the JSON report's schema).
    let (out, report) = run_json(
        &["--case", "jsonrpc/malformed", "--case", "lifecycle/ping"],
        &[&toy_str()],
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let report = report.unwrap();
    assert_eq!(outcome(&report, "jsonrpc/malformed/parse-error"), "pass");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let last = stdout.lines().last().unwrap();
    // The four selected cases and the cross-cutting ones every shard keeps: the shape rule
    // grades output-schema's probe call; the error split finds no call of another case, the log
    // rule no log message.
    assert_eq!(last, "9 passed, 0 failed, 2 skipped");
    crate::docs::assert_matches_schema(&report);
}

#[test]
fn a_silent_drop_warns_and_fails_only_under_strict() {
    // RUNNER-3: `warn` fails only under --strict; RUNNER-2: T4's level follows the profile.
    let server = [toy_str(), "--drop-malformed".to_owned()];
    let server: Vec<&str> = server.iter().map(String::as_str).collect();
    let (out, report) = run_json(&["--case", "jsonrpc/malformed/parse-error"], &server);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(
        outcome(&report.unwrap(), "jsonrpc/malformed/parse-error"),
        "warn"
    );

    let (out, report) = run_json(
        &["--strict", "--case", "jsonrpc/malformed/parse-error"],
        &server,
    );
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert_eq!(
        outcome(&report.unwrap(), "jsonrpc/malformed/parse-error"),
        "fail"
    );

    // T4 is a MUST under the provider profile.
    let (out, report) = run_json(
        &[
            "--profile",
            "provider",
            "--no-drive-fake",
            "--case",
            "jsonrpc/malformed/parse-error",
        ],
        &server,
    );
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let report = report.unwrap();
    assert_eq!(outcome(&report, "jsonrpc/malformed/parse-error"), "fail");
    assert_eq!(
        crate::support::case(&report, "jsonrpc/malformed/parse-error")["level"],
        "MUST"
    );
}

#[test]
fn the_baseline_is_strict_both_ways() {
    // RUNNER-4, and RUNNER-3's `baselined: true` on a listed failure.
    let dir = tempfile::tempdir().unwrap();
    let baseline = dir.path().join("baseline.txt");
    std::fs::write(
        &baseline,
        "# known\njsonrpc/malformed/parse-error  # T4 drop\n",
    )
    .unwrap();
    let b = baseline.display().to_string();
    let dropping = [toy_str(), "--drop-malformed".to_owned()];
    let dropping: Vec<&str> = dropping.iter().map(String::as_str).collect();
    let args = [
        "--strict",
        "--baseline",
        b.as_str(),
        "--case",
        "jsonrpc/malformed/parse-error",
    ];

    // Listed and failing: baselined, exit 0.
    let (out, report) = run_json(&args, &dropping);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let report = report.unwrap();
    assert_eq!(
        crate::support::case(&report, "jsonrpc/malformed/parse-error")["baselined"],
        true
    );
    assert_eq!(report["summary"]["baselined"], 1);

    // Listed but passing: the baseline is stale, exit 1.
    let (out, report) = run_json(&args, &[&toy_str()]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let report = report.unwrap();
    assert_eq!(
        crate::support::case(&report, "jsonrpc/malformed/parse-error")["stale_baseline"],
        true
    );
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .last()
            .unwrap()
            .contains("1 failed")
    );

    // Unlisted failure: exit 1.
    let (out, _) = run_json(
        &["--strict", "--case", "jsonrpc/invalid/not-an-object"],
        &dropping,
    );
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));

    // A listed id that names no case (a typo, a removed case) is a usage error: exit 2 before
    // anything runs, naming it, never a failed case. One baseline serves every shard: a case
    // outside the selection is known.
    std::fs::write(
        &baseline,
        "jsonrpc/no-such-case\njsonrpc/malformed/parse-error\n",
    )
    .unwrap();
    let (out, report) = run_json(
        &["--baseline", b.as_str(), "--case", "lifecycle/ping"],
        &[&toy_str()],
    );
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let report = report.unwrap();
    assert!(
        report["error"]
            .as_str()
            .is_some_and(|e| e.contains("jsonrpc/no-such-case") && !e.contains("parse-error")),
        "{report}"
    );
    assert_eq!(report["cases"].as_array().map(Vec::len), Some(0));

    // An id listed twice is a broken baseline (usually another id mistyped): exit 2, naming
    // both lines, and nothing runs.
    std::fs::write(
        &baseline,
        "lifecycle/ping/after-initialize\nlifecycle/ping/after-initialize\n",
    )
    .unwrap();
    let (out, report) = run_json(
        &["--baseline", b.as_str(), "--case", "lifecycle/ping"],
        &[&toy_str()],
    );
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert!(report.expect("a JSON report even on a runner error")["error"].is_string());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("already listed on line 1"),
        "{}",
        describe(&out)
    );
}

#[test]
fn json_on_stdout_is_only_the_report_and_progress_goes_to_stderr() {
    // RUNNER-8.
    let out = runner()
        .args([
            "--format",
            "json",
            "--case",
            "lifecycle/ping",
            "--",
            &toy_str(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let report: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("stdout is exactly the JSON report");
    assert_eq!(report["format_version"], 1);
    assert!(String::from_utf8_lossy(&out.stderr).contains("PASS  lifecycle/ping/after-initialize"));
}

#[test]
fn junit_goes_to_a_file_next_to_a_pretty_report() {
    let dir = tempfile::tempdir().unwrap();
    let junit = dir.path().join("junit.xml");
    let out = runner()
        .args(["--case", "lifecycle/ping", "--format", "pretty", "--format"])
        .arg(format!("junit={}", junit.display()))
        .args(["--", &toy_str()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains(
        "<testcase classname=\"mcp-conformance.lifecycle\" name=\"lifecycle/ping/after-initialize\""
    ));
}

#[test]
fn a_hung_server_is_a_failed_case_not_a_hung_runner() {
    // RUNNER-6.
    let started = Instant::now();
    let (out, report) = run_json(
        &[
            "--timeout-ms",
            "1500",
            "--case",
            "lifecycle/ping/after-initialize",
        ],
        &[&toy_str(), "--hang-method", "ping"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert_eq!(
        outcome(&report.unwrap(), "lifecycle/ping/after-initialize"),
        "fail"
    );
    assert!(started.elapsed() < Duration::from_secs(30));
}

#[test]
fn a_short_timeout_still_waits_for_a_fast_server() {
    // Under --timeout-ms 250 a case still has most of its 250 ms to wait (a fixed 300 ms margin
    // once left it nothing: every case failed "nothing within 0 ms"). A loaded machine may be
    // slower than 250 ms to spawn and answer, so a failure is retried; the old bug failed
    // every attempt at once.
    let mut last = String::new();
    for _ in 0..3 {
        let (out, report) = run_json(
            &[
                "--timeout-ms",
                "250",
                "--jobs",
                "1",
                "--case",
                "lifecycle/ping/after-initialize",
            ],
            &[&toy_str()],
        );
        if out.status.code() == Some(0) {
            assert_eq!(
                outcome(&report.unwrap(), "lifecycle/ping/after-initialize"),
                "pass"
            );
            return;
        }
        last = describe(&out);
    }
    panic!("a fast server failed under --timeout-ms 250 three times: {last}");
}

/// A wrapper that records its pid and a grandchild's pid, then becomes the toy server.
fn recording_server(dir: &std::path::Path, extra: &str) -> Vec<String> {
    let pids = dir.join("pids");
    let script = format!(
        "sleep 300 & echo $! >> {p}; echo $$ >> {p}; exec {toy} {extra}",
        p = pids.display(),
        toy = toy_str()
    );
    vec!["sh".into(), "-c".into(), script]
}

fn recorded_pids(dir: &std::path::Path) -> Vec<u32> {
    std::fs::read_to_string(dir.join("pids"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

#[test]
fn every_server_process_group_is_killed_after_its_case() {
    let dir = tempfile::tempdir().unwrap();
    let server = recording_server(dir.path(), "");
    let server: Vec<&str> = server.iter().map(String::as_str).collect();
    let (out, _) = run_json(
        &["--case", "lifecycle/ping", "--case", "jsonrpc/ids/zero"],
        &server,
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let pids = recorded_pids(dir.path());
    assert!(
        pids.len() >= 6,
        "discovery + 3 cases, 2 pids each: {pids:?}"
    );
    std::thread::sleep(Duration::from_millis(200));
    let living: Vec<u32> = pids.into_iter().filter(|p| procs::alive(*p)).collect();
    assert!(living.is_empty(), "survivors: {living:?}");
}

#[test]
fn ctrl_c_of_the_runner_kills_every_server_group() {
    let status = signal_the_runner_mid_run(nix::sys::signal::Signal::SIGINT);
    assert_eq!(status.code(), Some(130));
}

#[test]
fn sigkill_of_the_runner_still_kills_every_server_group() {
    // Containment even when the runner cannot act (C-SUP-5): its lifeline watchdog kills every
    // group it registered, the backgrounded `sleep` of each wrapper script included
    // (PR_SET_PDEATHSIG would reach only a group's leader).
    use std::os::unix::process::ExitStatusExt as _;
    let status = signal_the_runner_mid_run(nix::sys::signal::Signal::SIGKILL);
    assert_eq!(status.signal(), Some(9));
}

#[test]
fn a_runner_killed_right_after_it_started_a_server_leaves_no_group() {
    // C-SUP-5: every server (and ACP agent: the same stdio client) registers its group with the
    // runner's lifeline before it execs, so a runner killed at once (the server's first act)
    // leaves nothing, however the scheduler ordered the kill and the runner's own registration.
    testkit::parent_kill::assert_parent_sigkill_leaves_no_group(
        "mcp-conformance's server",
        |probe| {
            runner()
                .args(["--case", "lifecycle/ping", "--"])
                .args(probe.argv())
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .expect("the runner starts")
        },
    );
}

/// Starts the runner on servers that record their pids (and a backgrounded grandchild's) and
/// hang on `ping`, sends `signal` once the cases' servers are up, and asserts that every recorded
/// process ends within a bound (their ends are asynchronous to the runner's, so the test waits on
/// them rather than looking once). Returns the runner's status.
fn signal_the_runner_mid_run(signal: nix::sys::signal::Signal) -> std::process::ExitStatus {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = recording_server(dir.path(), "--hang-method ping");
    let mut child = runner()
        .args([
            "--timeout-ms",
            "60000",
            "--case",
            "lifecycle/ping/after-initialize",
            "--case",
            "jsonrpc/ids",
            "--",
        ])
        .args(&server)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("runner starts");
    // Wait until the cases' servers are up: discovery's pair, the pairs of the four servers
    // that probe the other revisions, and at least one case's.
    let until = Instant::now() + Duration::from_secs(20);
    while recorded_pids(dir.path()).len() < 12 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
    }
    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).expect("pid fits"));
    nix::sys::signal::kill(pid, signal).expect("signal the runner");
    let until = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(s) = child.try_wait().expect("runner status") {
            break s;
        }
        assert!(
            Instant::now() < until,
            "the runner did not stop on {signal}"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let pids = recorded_pids(dir.path());
    assert!(pids.len() >= 12, "{pids:?}");
    let living: Vec<u32> = pids
        .into_iter()
        .filter(|p| !procs::wait_gone(*p, Duration::from_secs(10)))
        .collect();
    assert!(living.is_empty(), "survivors after {signal}: {living:?}");
    status
}

#[test]
fn a_server_pinging_the_runner_gets_the_empty_result() {
    // MCP basic/utilities/ping: the receiver of a ping MUST answer with an empty result. The toy
    // server pings the runner during initialize and writes a non-JSON line (failing T1) unless
    // the answer is `{}`; `-32601` was the runner's answer before.
    let (out, report) = run_json(
        &["--case", "lifecycle/stdout/protocol-only"],
        &[&toy_str(), "--ping-client"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(
        outcome(&report.unwrap(), "lifecycle/stdout/protocol-only"),
        "pass"
    );
}

#[test]
fn invalid_arguments_as_a_protocol_error_are_info_outside_the_provider_profile() {
    // MCP 2025-06-18 server/tools (Error Handling) lists invalid arguments among protocol
    // errors; only 2025-11-25 (SEP-1303) moves them into isError results. A plain server
    // negotiating 2025-06-18 that answers -32602 is conformant: info, never a warning (which
    // --strict would turn into a failure). A provider is bound by TOOL-3: fail.
    let server = [toy_str(), "--invalid-args-protocol-error".to_owned()];
    let server: Vec<&str> = server.iter().map(String::as_str).collect();
    let case = "tools/call/wrong-typed-arguments";
    let (out, report) = run_json(&["--strict", "--case", case], &server);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(outcome(&report.unwrap(), case), "info");
    let (out, report) = run_json(
        &["--profile", "provider", "--no-drive-fake", "--case", case],
        &server,
    );
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert_eq!(outcome(&report.unwrap(), case), "fail");
}

#[test]
fn a_wrong_id_is_shown_in_the_actual_not_only_a_timeout() {
    // T3a: an answer under another id is no answer, and the verdict says what came instead.
    let (out, report) = run_json(
        &[
            "--timeout-ms",
            "1500",
            "--case",
            "lifecycle/ping/after-initialize",
        ],
        &[&toy_str(), "--wrong-id-method", "ping"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let report = report.unwrap();
    // The shard keeps the id rule, which fails with the answer; the ping case is blocked by it
    // (one defect, one verdict), and its reason still says what came instead.
    let ids = crate::support::case(&report, "jsonrpc/response-ids");
    assert_eq!(ids["outcome"], "fail", "{report}");
    assert!(ids["actual"].as_str().unwrap().contains("wrong-"), "{ids}");
    let case = crate::support::case(&report, "lifecycle/ping/after-initialize");
    assert_eq!(case["outcome"], "skip");
    assert_eq!(case["blocked_by"], "jsonrpc/response-ids");
    let reason = case["reason"].as_str().unwrap();
    assert!(
        reason.contains("other ids") && reason.contains("wrong-"),
        "{reason}"
    );
}

#[test]
fn a_resource_read_with_no_contents_is_info_not_a_failure() {
    // MCP schema: ReadResourceResult.contents is an array with no minimum length, so an empty
    // read is legal; the MUST case once failed it.
    let (out, report) = run_json(
        &["--strict", "--case", "resources"],
        &[&toy_str(), "--empty-resource"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let report = report.unwrap();
    assert_eq!(outcome(&report, "resources/read/listed"), "info");
    assert_eq!(outcome(&report, "resources/list/shape"), "pass");
    assert_eq!(outcome(&report, "resources/read/unknown"), "pass");
}

#[test]
fn a_batch_answered_under_a_revision_without_batches_is_info_outside_the_provider_profile() {
    // T5 (reject batches outside 2025-03-26) is the contract's: MCP's 2024-11-05 and 2025-06-18
    // schemas have no batch, but all messages follow JSON-RPC 2.0, whose §6 answers a batch with
    // an array. A plain server doing so is reported (info), never warned; a provider fails T5.
    let server = [toy_str(), "--batches-always".to_owned()];
    let server: Vec<&str> = server.iter().map(String::as_str).collect();
    let (out, report) = run_json(&["--strict", "--case", "jsonrpc/batch"], &server);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let report = report.unwrap();
    for id in [
        "jsonrpc/batch/rejected-2025-06-18",
        "jsonrpc/batch/rejected-2024-11-05",
    ] {
        assert_eq!(outcome(&report, id), "info", "{id}");
    }
    assert_eq!(outcome(&report, "jsonrpc/batch/2025-03-26"), "pass");
    let (out, report) = run_json(
        &[
            "--profile",
            "provider",
            "--no-drive-fake",
            "--case",
            "jsonrpc/batch/rejected-2025-06-18",
        ],
        &server,
    );
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert_eq!(
        outcome(&report.unwrap(), "jsonrpc/batch/rejected-2025-06-18"),
        "fail"
    );
}

#[test]
fn a_closed_stdout_does_not_turn_the_verdict_into_a_panic() {
    // `mcp-conformance … | head -1`: the pretty report's progress and the report itself meet a
    // closed pipe. The exit status still says the verdict (0 here), never 101 from a panic.
    for format in ["pretty", "json"] {
        let mut child = runner()
            .args(["--format", format, "--case", "lifecycle", "--", &toy_str()])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "--format {format}: {}",
            describe(&out)
        );
        assert!(
            !String::from_utf8_lossy(&out.stderr).contains("panicked"),
            "{}",
            describe(&out)
        );
    }
}

#[test]
fn an_invalid_request_answered_with_id_null_is_info_outside_the_provider_profile() {
    // JSON-RPC 2.0 §5 lets the id be null when it cannot be detected, "e.g. Parse error/Invalid
    // Request"; only T4 asks for the request's id when one can be read. A plain server answering
    // -32600 with id null is reported, not warned; a provider fails T4.
    let server = [toy_str(), "--null-id-for-invalid".to_owned()];
    let server: Vec<&str> = server.iter().map(String::as_str).collect();
    let (out, report) = run_json(&["--strict", "--case", "jsonrpc/invalid"], &server);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let report = report.unwrap();
    for id in [
        "jsonrpc/invalid/wrong-version",
        "jsonrpc/invalid/method-not-string",
        "jsonrpc/invalid/params-not-structured",
    ] {
        assert_eq!(outcome(&report, id), "info", "{id}");
    }
    for id in ["jsonrpc/invalid/not-an-object", "jsonrpc/invalid/null-id"] {
        assert_eq!(outcome(&report, id), "pass", "{id}");
    }
    let (out, report) = run_json(
        &[
            "--profile",
            "provider",
            "--no-drive-fake",
            "--case",
            "jsonrpc/invalid/wrong-version",
        ],
        &server,
    );
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert_eq!(
        outcome(&report.unwrap(), "jsonrpc/invalid/wrong-version"),
        "fail"
    );
}

/// The largest resident set of `pid` seen while it runs, sampled from /proc (KiB).
fn peak_rss_kib(child: &mut std::process::Child) -> u64 {
    let mut peak = 0;
    while child.try_wait().expect("try_wait").is_none() {
        if let Some(rss) = procs::vm_rss_kib(child.id()) {
            peak = peak.max(rss);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    peak
}

#[test]
fn a_flooding_server_does_not_grow_the_runner() {
    // The toy answers ping with an endless stream of 1 MiB notifications. The runner once kept
    // every frame it read while waiting (hundreds of MiB within seconds); now frames in flight
    // and frames kept unread are bounded, and the flood slows the server, not the runner.
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    let mut child = runner()
        .args([
            "--timeout-ms",
            "8000",
            "--case",
            "lifecycle/ping/after-initialize",
            "--format",
        ])
        .arg(format!("json={}", report.display()))
        .args(["--", &toy_str(), "--flood"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let peak = peak_rss_kib(&mut child);
    eprintln!("runner peak RSS {peak} KiB");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(outcome(&report, "lifecycle/ping/after-initialize"), "fail");
    assert!(
        peak < 150 * 1024,
        "the runner grew to {} MiB while a server flooded it",
        peak / 1024
    );
}
