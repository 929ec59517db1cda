//! THE containment property (SUP-2): SIGKILL of the process holding the lifeline, in the middle
//! of a run whose native process ignores SIGTERM and has a grandchild, leaves no process of the
//! run's group alive.
//!
//! The process killed here is a helper running exactly the engine's call, `supervisor::spawn_with`:
//! this test binary re-run with only [`containment_helper_process`] selected. The end-to-end
//! variant through the adapter's MCP surface lives with the run tests once runs are wired.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use claude_mcp_adapter::supervisor::procfs;

use super::{BOUND, kill_pid, sh, spawn, wait_group_gone, wait_group_size};

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
    let before = wait_group_size(pgid, 2);
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
    assert!(procfs::live_group_members(pgid).is_empty());
}
