//! THE containment property (SUP-2): SIGKILL of the process holding the lifeline, in the middle
//! of a run whose native process ignores SIGTERM and has a grandchild, leaves no process of the
//! run's group alive.
//!
//! Proven three ways: through the built adapter over MCP stdio (`claude.run.start`, then SIGKILL
//! of the adapter process, or of its whole process group as a host would do), and through a
//! helper process running exactly the engine's call, `supervisor::spawn_with` (this test binary
//! re-run with only [`containment_helper_process`] selected). `cli run` has its own variant in
//! `cli_projection.rs`.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use std::path::Path;
use std::time::Instant;

use nix::sys::signal::Signal;
use serde_json::{Value, json};
use testkit::procs::{self, alive, kill_pid, wait_group_gone, wait_group_size};

use super::{BOUND, sh, spawn};
use crate::support::Adapter;

/// Set in the helper's environment; without it the helper entry does nothing.
const HELPER_ENV: &str = "CLAUDE_MCP_ADAPTER_TEST_CONTAINMENT_HELPER";

/// The native script: ignores SIGTERM, starts a grandchild (which inherits that), and keeps going.
const SCRIPT: &str = "trap '' TERM; sleep 300 & while :; do sleep 1; done";

/// A grace far beyond the test's bound: only the lifeline's SIGKILL can end the group in time.
const GRACE: Duration = Duration::from_secs(120);

/// How long the helper keeps the run going if nobody kills it (a stray helper must end).
const HELPER_LIFETIME: Duration = Duration::from_secs(120);

#[test]
#[ignore = "entry point of the helper process that \
            sigkill_of_the_process_holding_the_lifeline_kills_the_whole_group starts and kills"]
fn containment_helper_process() {
    if std::env::var_os(HELPER_ENV).is_none() {
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let s = spawn(sh(SCRIPT, GRACE)).await;
        println!("native-pgid {}", s.native_pid().expect("pid"));
        tokio::time::sleep(HELPER_LIFETIME).await;
        drop(s);
    });
}

#[test]
fn sigkill_of_the_process_holding_the_lifeline_kills_the_whole_group() {
    let mut helper = Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "supervision::containment::containment_helper_process",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env(HELPER_ENV, "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the helper");
    let stdout = helper.stdout.take().expect("helper stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            // The harness prints "test … ... " without a newline before the helper's own line.
            if let Some((_, pgid)) = line.split_once("native-pgid ") {
                let _ = tx.send(pgid.trim().parse::<u32>().ok());
                return;
            }
        }
        let _ = tx.send(None);
    });
    let pgid = match rx.recv_timeout(BOUND) {
        Ok(Some(pgid)) => pgid,
        other => {
            let _ = helper.kill();
            let _ = helper.wait();
            panic!("the helper did not report its run: {other:?}");
        }
    };

    // Not vacuous: the leader and its grandchild are both up before the kill.
    let before = wait_group_size(pgid, 2, BOUND);
    assert!(
        before.len() >= 2,
        "group {pgid} before the kill: {before:?}"
    );

    helper.kill().expect("SIGKILL the helper");
    let _ = helper.wait();

    let left = wait_group_gone(pgid, BOUND);
    for pid in &left {
        kill_pid(*pid);
    }
    assert!(
        left.is_empty(),
        "processes of group {pgid} survived the lifeline holder's SIGKILL: {left:?}"
    );
    assert!(procs::group_members(pgid).is_empty());
}

/// The pgid of the first native run (`-p` in argv) in a fake-claude invocation log.
fn run_pgid(log: &Path) -> Option<u32> {
    std::fs::read_to_string(log)
        .ok()?
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|r| {
            r["argv"]
                .as_array()
                .is_some_and(|a| a.iter().any(|x| x == "-p"))
        })
        .and_then(|r| r["pgid"].as_u64())
        .and_then(|p| u32::try_from(p).ok())
}

/// Starts a `grandchild-ignore-sigterm` run over MCP, kills the adapter with `kill`, and checks
/// that nothing of the run's group is left.
fn adapter_killed_mid_run_leaves_nothing(kill: impl FnOnce(&crate::support::Session)) {
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("invocations.jsonl");
    let child_pidfile = dir.path().join("child.pid");
    let mut s = Adapter::new()
        .fake_claude()
        .env("FAKE_CLAUDE_LOG", &log)
        .env("FAKE_CLAUDE_CHILD_PIDFILE", &child_pidfile)
        .env("FAKE_CLAUDE_MAX_LIFETIME_S", "120")
        .spawn();
    s.init();
    let started = s.call_tool(
        "claude.run.start",
        json!({"prompt": "fake-claude:scenario=grandchild-ignore-sigterm\nhello"}),
        None,
    );
    assert_eq!(started["isError"], false, "{started}");

    let start = Instant::now();
    let pgid = loop {
        if let Some(p) = run_pgid(&log) {
            break p;
        }
        assert!(
            start.elapsed() < BOUND,
            "the run never started: {}",
            s.stderr_text()
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    // Not vacuous: the leader and its in-group child are both up before the kill.
    let before = wait_group_size(pgid, 2, BOUND);
    let child: Option<u32> = std::fs::read_to_string(&child_pidfile)
        .ok()
        .and_then(|t| t.trim().parse().ok());

    kill(&s);
    assert!(s.wait_exit(BOUND).is_some(), "the adapter did not die");

    let left = wait_group_gone(pgid, BOUND);
    for pid in &left {
        kill_pid(*pid);
    }
    assert!(
        before.len() >= 2,
        "group {pgid} before the kill: {before:?}"
    );
    assert!(
        left.is_empty(),
        "group {pgid} survived the adapter's SIGKILL: {left:?}"
    );
    if let Some(c) = child {
        assert!(!alive(c), "the in-group child {c} survived");
    }
}

#[test]
fn sigkill_of_the_adapter_mid_run_leaves_no_process_of_the_run_group() {
    adapter_killed_mid_run_leaves_nothing(|s| s.signal(Signal::SIGKILL));
}

#[test]
fn sigkill_of_the_adapter_process_group_mid_run_leaves_no_process_of_the_run_group() {
    // A host killing its server's whole group: the supervisors have groups of their own, so they
    // outlive the kill long enough to SIGKILL the native groups.
    adapter_killed_mid_run_leaves_nothing(|s| {
        let pgid = nix::unistd::Pid::from_raw(i32::try_from(s.pid()).expect("pid"));
        nix::sys::signal::killpg(pgid, Signal::SIGKILL).expect("killpg the adapter");
    });
}

/// The pid of the first `--version` invocation in a fake-claude invocation log.
fn version_check_pid(log: &Path) -> Option<u32> {
    std::fs::read_to_string(log)
        .ok()?
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|r| r["argv"] == json!(["--version"]))
        .and_then(|r| r["pid"].as_u64())
        .and_then(|p| u32::try_from(p).ok())
}

#[test]
fn sigkill_of_the_adapter_during_the_version_check_leaves_no_check_behind() {
    // NAT-2 + SUP-2: the version check is a native process of the run (state `pending`); it dies
    // with the adapter like the run itself would, even when it never answers.
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("invocations.jsonl");
    let mut s = Adapter::new()
        .fake_claude()
        .env("FAKE_CLAUDE_LOG", &log)
        .env("FAKE_CLAUDE_VERSION", "__hang")
        .env("FAKE_CLAUDE_MAX_LIFETIME_S", "120")
        .spawn();
    s.init();
    let started = s.call_tool("claude.run.start", json!({"prompt": "hello"}), None);
    assert_eq!(started["isError"], false, "{started}");
    let start = Instant::now();
    let pid = loop {
        if let Some(p) = version_check_pid(&log) {
            break p;
        }
        assert!(
            start.elapsed() < BOUND,
            "the version check never started: {}",
            s.stderr_text()
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(alive(pid), "the version check {pid} is not running");
    s.signal(Signal::SIGKILL);
    assert!(s.wait_exit(BOUND).is_some(), "the adapter did not die");
    let deadline = Instant::now() + BOUND;
    while alive(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let survived = alive(pid);
    if survived {
        kill_pid(pid);
    }
    assert!(
        !survived,
        "the version check {pid} survived the adapter's SIGKILL"
    );
}
