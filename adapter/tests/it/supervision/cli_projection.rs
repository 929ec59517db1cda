//! `claude-mcp-adapter cli run` (CLI-1) against fake-claude scenarios: the printed native result,
//! exit statuses 0/1/2, the version assertion (NAT-2), argv from the tree in json mode (NAT-3),
//! and supervision of the projection's run, including SIGKILL of the projection itself (SUP-2).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use predicates::prelude::*;
use serde_json::Value;
use testkit::procs::{alive, kill_pid, wait_group_gone, wait_group_size};

use super::{BOUND, adapter_exe};
use crate::support::fake_claude_bin;

/// A `cli run` invocation with fake-claude as `--claude`, logging its invocations.
struct Projection {
    dir: tempfile::TempDir,
    cmd: Command,
}

impl Projection {
    fn new(scenario: &str) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut cmd = Command::new(adapter_exe());
        cmd.args(["cli", "run", "--claude"])
            .arg(fake_claude_bin())
            .env("FAKE_CLAUDE_SCENARIO", scenario)
            .env("FAKE_CLAUDE_LOG", dir.path().join("invocations.jsonl"))
            .env("FAKE_CLAUDE_CHILD_PIDFILE", dir.path().join("child.pid"))
            // A leaked fake must end by itself even if a test fails half-way.
            .env("FAKE_CLAUDE_MAX_LIFETIME_S", "120")
            .env_remove("FAKE_CLAUDE_VERSION")
            .stdin(Stdio::null());
        Self { dir, cmd }
    }

    fn args(mut self, args: &[&str]) -> Self {
        self.cmd.args(args);
        self
    }

    fn env(mut self, k: &str, v: &str) -> Self {
        self.cmd.env(k, v);
        self
    }

    /// Runs it to the end under `assert_cmd` (bounded), for checks of the exit status, stdout
    /// and stderr; the fake's invocations come back too.
    fn assert(self) -> (assert_cmd::assert::Assert, Vec<Value>) {
        let assert = assert_cmd::Command::from_std(self.cmd)
            .timeout(BOUND * 2)
            .assert();
        let log = invocations(&self.dir.path().join("invocations.jsonl"));
        (assert, log)
    }

    fn output(mut self) -> (Output, Vec<Value>) {
        let mut child = self
            .cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start cli run");
        let start = Instant::now();
        while child.try_wait().expect("try_wait").is_none() {
            if start.elapsed() > BOUND * 2 {
                let _ = child.kill();
                panic!("cli run did not finish within {:?}", BOUND * 2);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let out = child.wait_with_output().expect("output");
        let log = invocations(&self.dir.path().join("invocations.jsonl"));
        (out, log)
    }
}

fn invocations(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// The invocation log entries that were runs (not `--version` checks).
fn runs(log: &[Value]) -> Vec<&Value> {
    log.iter()
        .filter(|r| {
            r["argv"]
                .as_array()
                .is_some_and(|a| a.iter().any(|x| x == "-p"))
        })
        .collect()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// stdout is exactly one JSON object line: the native result.
fn the_result(out: &Output) -> Value {
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines.len(),
        1,
        "stdout: {stdout:?} stderr: {}",
        text(&out.stderr)
    );
    let v: Value = serde_json::from_str(lines[0]).expect("stdout is JSON");
    assert_eq!(v["type"], "result");
    v
}

#[test]
fn a_successful_run_prints_the_native_result_and_exits_0() {
    let (out, log) = Projection::new("success")
        .args(&[
            "--permission-mode",
            "dontAsk",
            "--",
            "-a prompt with a dash",
        ])
        .output();
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let r = the_result(&out);
    assert_eq!(r["subtype"], "success");
    assert_eq!(r["is_error"], false);
    assert_eq!(r["result"], "Hi there!");
    // NAT-2 then NAT-3: the version check, then exactly one json-mode run built from the tree.
    assert_eq!(log.len(), 2, "{log:#?}");
    assert_eq!(log[0]["argv"], serde_json::json!(["--version"]));
    let run = runs(&log)[0];
    assert_eq!(
        run["argv"],
        serde_json::json!([
            "-p",
            "--output-format",
            "json",
            "--permission-mode",
            "dontAsk",
            "--",
            "-a prompt with a dash"
        ])
    );
    // Supervised like an MCP run: own group, stdin /dev/null, nothing beyond stdio (NAT-7/8).
    assert_eq!(run["pgid"], run["pid"]);
    assert_eq!(run["stdin_is_devnull"], true);
    assert_eq!(
        run["fds"].as_array().map(Vec::len),
        Some(3),
        "{}",
        run["fds"]
    );
}

#[test]
fn forwarded_options_follow_the_tree_order() {
    let cwd = tempfile::tempdir().expect("cwd");
    let (out, log) = Projection::new("success")
        .args(&[
            "--permission-mode",
            "plan",
            "--model",
            "sonnet",
            "--effort",
            "high",
            "--max-budget-usd",
            "0.25",
            "--session-id",
            "11111111-2222-4333-8444-555555555555",
            "--no-session-persistence",
            "--cwd",
            cwd.path().to_str().expect("utf-8 path"),
            "--",
            "hi",
        ])
        .output();
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let run = runs(&log)[0];
    assert_eq!(
        run["argv"],
        serde_json::json!([
            "-p",
            "--output-format",
            "json",
            "--permission-mode",
            "plan",
            "--model",
            "sonnet",
            "--effort",
            "high",
            "--max-budget-usd",
            "0.25",
            "--session-id",
            "11111111-2222-4333-8444-555555555555",
            "--no-session-persistence",
            "--",
            "hi"
        ])
    );
    let want = cwd.path().canonicalize().expect("canonical");
    assert_eq!(
        run["cwd"]
            .as_str()
            .map(PathBuf::from)
            .map(|p| p.canonicalize().expect("c")),
        Some(want)
    );
}

#[test]
fn an_is_error_result_is_printed_and_exits_1() {
    for scenario in ["is-error-success", "not-logged-in"] {
        let (out, _) = Projection::new(scenario)
            .args(&["--permission-mode", "dontAsk", "--", "hi"])
            .output();
        assert_eq!(out.status.code(), Some(1), "{scenario}");
        let r = the_result(&out);
        assert_eq!(r["is_error"], true, "{scenario}");
        let err = text(&out.stderr);
        assert!(err.contains("native_error"), "{scenario}: {err}");
    }
}

#[test]
fn a_nonzero_exit_after_a_success_result_exits_1_with_the_result() {
    let (out, _) = Projection::new("nonzero-exit")
        .args(&["--permission-mode", "dontAsk", "--", "hi"])
        .output();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(the_result(&out)["subtype"], "success");
    assert!(
        text(&out.stderr).contains("nonzero_exit"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn another_version_runs_nothing_and_exits_1() {
    let (out, log) = Projection::new("success")
        .env("FAKE_CLAUDE_VERSION", "2.1.329")
        .args(&["--permission-mode", "dontAsk", "--", "hi"])
        .output();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(
        text(&out.stderr).contains("version_mismatch"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(log.len(), 1, "only the version check ran: {log:#?}");
    assert!(runs(&log).is_empty());
}

#[test]
fn usage_errors_exit_2_and_run_nothing() {
    let uuid = "11111111-2222-4333-8444-555555555555";
    let cases: &[(&[&str], &str)] = &[
        (&["--", "hi"], "--permission-mode"),
        (&["--permission-mode", "dontAsk"], "PROMPT"),
        (
            &["--permission-mode", "bypassPermissions", "--", "hi"],
            "--permission-mode",
        ),
        (
            &["--permission-mode", "auto", "--", "hi"],
            "--permission-mode",
        ),
        (
            &[
                "--permission-mode",
                "dontAsk",
                "--resume",
                uuid,
                "--continue",
                "--",
                "hi",
            ],
            "--continue",
        ),
        (
            &[
                "--permission-mode",
                "dontAsk",
                "--continue",
                "--no-session-persistence",
                "--",
                "hi",
            ],
            "--no-session-persistence",
        ),
        (
            &[
                "--permission-mode",
                "dontAsk",
                "--session-id",
                "not-a-uuid",
                "--",
                "hi",
            ],
            "--session-id",
        ),
        (
            &[
                "--permission-mode",
                "dontAsk",
                "--effort",
                "extreme",
                "--",
                "hi",
            ],
            "--effort",
        ),
        (
            &[
                "--permission-mode",
                "dontAsk",
                "--max-budget-usd",
                "0",
                "--",
                "hi",
            ],
            "--max-budget-usd",
        ),
        (
            &[
                "--permission-mode",
                "dontAsk",
                "--cwd",
                "/nonexistent-dir",
                "--",
                "hi",
            ],
            "--cwd",
        ),
        (
            &[
                "--permission-mode",
                "dontAsk",
                "--timeout-s",
                "0",
                "--",
                "hi",
            ],
            "--timeout-s",
        ),
        (&["--permission-mode", "dontAsk", "--", ""], "PROMPT"),
    ];
    for (args, names) in cases {
        let (assert, log) = Projection::new("success").args(args).assert();
        assert
            .code(2)
            .stdout(predicate::str::is_empty())
            .stderr(predicate::str::contains(*names));
        assert!(log.is_empty(), "{args:?} ran something: {log:#?}");
    }
}

#[test]
fn a_timed_out_run_is_terminated_and_its_group_is_gone() {
    // ignore-sigterm hangs after init: the deadline, SIGTERM, the grace, SIGKILL (SUP-3).
    let p = Projection::new("ignore-sigterm").args(&[
        "--permission-mode",
        "dontAsk",
        "--timeout-s",
        "1",
        "--",
        "hi",
    ]);
    let (out, log) = p.output();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "no final was produced");
    assert!(
        text(&out.stderr).contains("timeout"),
        "{}",
        text(&out.stderr)
    );
    let pgid = runs(&log)[0]["pgid"].as_u64().expect("pgid") as u32;
    assert!(wait_group_gone(pgid, BOUND).is_empty());
}

#[test]
fn sigkill_of_the_projection_mid_run_leaves_no_process_of_the_group() {
    // THE containment property through the built binary and the real run path: the run's leader
    // and its in-group child both ignore SIGTERM; nobody is left to wait for a graceful end.
    let p = Projection::new("grandchild-ignore-sigterm").args(&[
        "--permission-mode",
        "dontAsk",
        "--",
        "hi",
    ]);
    let log_path = p.dir.path().join("invocations.jsonl");
    let child_pidfile = p.dir.path().join("child.pid");
    let mut cmd = p.cmd;
    let mut projection = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start cli run");

    let start = Instant::now();
    let pgid = loop {
        if let Some(r) = runs(&invocations(&log_path)).first() {
            break r["pgid"].as_u64().expect("pgid") as u32;
        }
        if start.elapsed() > BOUND {
            let _ = projection.kill();
            let _ = projection.wait();
            panic!("the run never started");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let before = wait_group_size(pgid, 2, BOUND);
    let grandchild: Option<u32> = std::fs::read_to_string(&child_pidfile)
        .ok()
        .and_then(|s| s.trim().parse().ok());
    projection.kill().expect("SIGKILL the projection");
    let _ = projection.wait();

    let left = wait_group_gone(pgid, BOUND);
    for pid in &left {
        kill_pid(*pid);
    }
    assert!(
        before.len() >= 2,
        "leader and child before the kill: {before:?}"
    );
    assert!(left.is_empty(), "group {pgid} survived: {left:?}");
    if let Some(g) = grandchild {
        assert!(!alive(g), "the in-group child {g} survived");
    }
}

/// `cli run --provider cursor` against fake-cursor-agent (CLI-1 with the Cursor projection),
/// with the fake's log checked as in every cursor test (ACP-2, ACP-4: no `authenticate`, no
/// always option) and returned for more.
fn cursor_projection(prompt: &str, extra: &[&str]) -> (Output, crate::support::FakeCursorLog) {
    let log = crate::support::FakeCursorLog::new();
    let fake = crate::support::adapter_bin().with_file_name("fake-cursor-agent");
    assert!(
        fake.is_file(),
        "fake-cursor-agent is not built at {}: run `cargo build -p fake-cursor-agent`",
        fake.display()
    );
    let mut cmd = Command::new(adapter_exe());
    cmd.args(["cli", "run", "--provider", "cursor", "--cursor"])
        .arg(&fake)
        .args(extra)
        .args(["--", prompt])
        .env("FAKE_CURSOR_MAX_LIFETIME_S", "60")
        .env("FAKE_CURSOR_LOG", log.path())
        .stdin(Stdio::null());
    let child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start cli run");
    let out = child.wait_with_output().expect("cli run output");
    log.assert_never_authenticated_nor_always();
    (out, log)
}

#[test]
fn cursor_projection_prints_the_acp_final_and_exits_zero() {
    // CLI-1, ACP-6: the final is {stopReason, sessionId, text}, alone on stdout.
    let (out, log) = cursor_projection("hello", &["--permission-mode", "dontAsk"]);
    // ACP-9: the version was checked before the one agent ran.
    assert_eq!(log.version_checks().len(), 1);
    assert_eq!(log.agent_starts().len(), 1);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert_eq!(text.lines().count(), 1, "{text}");
    let v: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(v["stopReason"], "end_turn");
    assert!(
        v["sessionId"].as_str().is_some_and(|s| !s.is_empty()),
        "{v}"
    );
    assert!(v["text"].as_str().is_some_and(|s| !s.is_empty()), "{v}");
}

#[test]
fn cursor_projection_fails_a_refusal_with_exit_one_and_keeps_the_final() {
    // ACP-6: a stop reason other than end_turn is native_error; the final is still printed.
    let (out, _) = cursor_projection("scenario: refusal", &["--permission-mode", "dontAsk"]);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["stopReason"], "refusal");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("native_error") && err.contains("refusal"),
        "{err}"
    );
}

#[test]
fn cursor_projection_refuses_claude_only_options_as_usage_errors() {
    // ACP-8: no continue / session persistence for Cursor; effort is claude's.
    for (extra, names) in [
        (
            vec!["--permission-mode", "dontAsk", "--effort", "high"],
            "--effort",
        ),
        (
            vec!["--permission-mode", "dontAsk", "--continue"],
            "--continue",
        ),
        (
            vec!["--permission-mode", "bypassPermissions"],
            "--permission-mode",
        ),
    ] {
        let (out, log) = cursor_projection("hello", &extra);
        assert_cmd::assert::Assert::new(out)
            .code(2)
            .stdout(predicate::str::is_empty())
            .stderr(predicate::str::contains(names));
        // A usage error starts nothing, not even the version check.
        assert!(log.records().is_empty(), "{extra:?}: {:?}", log.records());
    }
}
