//! The version check and the run under one supervisor (C-SUP-1, C-NAT-2): a supervisor started
//! with `spawn_check_with` runs the check, reports its cleanup, and starts the run only on the
//! adapter's go (`Supervised::run`), with the run's own argv, cwd, environment and stdin and none
//! of the check's descriptors; its no-go (`Supervised::release`) ends it with nothing started.

use std::path::PathBuf;

use cmk_supervisor::{self as supervisor, ExitStatus, StdinMode, Supervised, TERM_GRACE};
use testkit::procs;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::{BOUND, adapter_exe, fd_table, first_line, sh, wait_asleep};

/// Starts `script` as a version check under a supervisor a run may follow.
async fn check(script: &str) -> Supervised {
    supervisor::spawn_check_with(adapter_exe().as_os_str(), sh(script, TERM_GRACE))
        .await
        .expect("supervised check")
}

/// Runs the check to its end: its first stdout line, its exit and its confirmed cleanup.
async fn finish_check(c: &mut Supervised) -> String {
    let line = first_line(c).await;
    assert_eq!(
        c.exited().await,
        Some(ExitStatus {
            code: Some(0),
            signal: None
        })
    );
    let report = tokio::time::timeout(BOUND, c.cleanup())
        .await
        .expect("cleanup report");
    assert!(report.confirmed, "{report:?}");
    line
}

fn parent_of(pid: u32) -> u32 {
    procs::stat(pid).expect("stat").ppid
}

#[tokio::test]
async fn the_run_follows_its_check_under_the_same_supervisor_with_its_own_spec() {
    // The check prints its parent: the supervisor.
    let mut c = check("echo $PPID").await;
    let supervisor_pid: u32 = finish_check(&mut c).await.parse().expect("pid");
    assert!(
        procs::alive(supervisor_pid),
        "the supervisor waits for the go"
    );

    let dir = tempfile::tempdir().expect("dir");
    let mut spec = sh("echo ready; exec sleep 60", TERM_GRACE);
    spec.cwd = dir.path().to_owned();
    spec.env.push(("RUN_ONLY".into(), "yes".into()));
    let mut run = c.run(spec).await.expect("the run starts");
    assert_eq!(first_line(&mut run).await, "ready");
    let pid = run.native_pid().expect("pid");
    // Same supervisor; the run leads its own group and session (SUP-1).
    assert_eq!(parent_of(pid), supervisor_pid);
    let st = procs::stat(pid).expect("stat");
    assert_eq!((st.pgrp, st.session), (pid, pid));
    // NAT-7 / NAT-8: /dev/null, descriptors 0-2 only (none of the check's, none of the pipes
    // kept for the run), the run's cwd and environment. "ready" came before `exec sleep`.
    wait_asleep(pid);
    assert_eq!(
        procs::open_fds(pid).expect("fds"),
        vec![0, 1, 2],
        "{:?}",
        fd_table(pid)
    );
    assert_eq!(
        std::fs::read_link(format!("/proc/{pid}/fd/0")).ok(),
        Some(PathBuf::from("/dev/null"))
    );
    assert_eq!(
        std::fs::read_link(format!("/proc/{pid}/cwd")).ok(),
        Some(dir.path().canonicalize().expect("canonical"))
    );
    assert!(procs::env_has(pid, "RUN_ONLY=yes"));
    // The supervisor holds no end of the run's pipes once the run runs.
    let pipes: Vec<PathBuf> = [1, 2]
        .iter()
        .filter_map(|fd| std::fs::read_link(format!("/proc/{pid}/fd/{fd}")).ok())
        .collect();
    for fd in procs::open_fds(supervisor_pid).expect("supervisor fds") {
        let target = std::fs::read_link(format!("/proc/{supervisor_pid}/fd/{fd}")).ok();
        assert!(
            target.as_ref().is_none_or(|t| !pipes.contains(t)),
            "the supervisor holds {target:?} on fd {fd}"
        );
    }

    run.terminate();
    let report = tokio::time::timeout(BOUND, run.cleanup())
        .await
        .expect("cleanup report");
    assert!(report.confirmed, "{report:?}");
    assert!(procs::wait_gone(supervisor_pid, BOUND), "supervisor exits");
}

#[tokio::test]
async fn a_piped_stdin_after_a_check_reaches_the_run() {
    let mut c = check("echo checked").await;
    assert_eq!(finish_check(&mut c).await, "checked");
    let mut spec = sh("", TERM_GRACE);
    spec.program = "/bin/cat".into();
    spec.args = Vec::new();
    spec.stdin = StdinMode::Pipe;
    let mut run = c.run(spec).await.expect("the run starts");
    let mut stdin = run.stdin.take().expect("a piped stdin");
    let mut stdout = run.stdout.take().expect("stdout");
    stdin.write_all(b"hello\n").await.expect("write");
    drop(stdin);
    let mut all = String::new();
    tokio::time::timeout(BOUND, stdout.read_to_string(&mut all))
        .await
        .expect("cat ends at EOF of its stdin")
        .expect("read");
    assert_eq!(all, "hello\n");
    assert_eq!(
        run.exited().await,
        Some(ExitStatus {
            code: Some(0),
            signal: None
        })
    );
    assert!(run.cleanup().await.confirmed);
}

#[tokio::test]
async fn the_no_go_ends_the_waiting_supervisor_with_nothing_started() {
    let mut c = check("echo $PPID").await;
    let supervisor_pid: u32 = finish_check(&mut c).await.parse().expect("pid");
    let before = procs::scan()
        .into_iter()
        .filter(|p| p.ppid == supervisor_pid)
        .count();
    assert_eq!(before, 0, "the check's group is gone before the verdict");
    c.release().await;
    // `release` reaps it: the pid is gone, not a zombie.
    assert!(!procs::alive(supervisor_pid));
}

#[tokio::test]
async fn a_run_that_cannot_start_after_the_check_is_a_spawn_failure_and_ends_the_supervisor() {
    let mut c = check("echo $PPID").await;
    let supervisor_pid: u32 = finish_check(&mut c).await.parse().expect("pid");
    let mut spec = sh("", TERM_GRACE);
    spec.program = "/nonexistent/native".into();
    let e = c.run(spec).await.expect_err("nothing to start");
    assert!(e.0.contains("cannot start /nonexistent/native"), "{}", e.0);
    assert!(procs::wait_gone(supervisor_pid, BOUND), "supervisor exits");
}
