//! NAT-2's version check through the library API: it runs under its own supervisor (SUP-1,
//! C-NAT-2), so its answer is judged exactly as before, and nothing it starts outlives it.
//! (These tests were unit tests of `engine::claude`; the supervisor executable they need is the
//! built adapter binary, which only integration tests can name.)

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cmk_engine::provider::{Checked, PreflightError, Provider};
use cmk_engine::{ErrorCode, ToolError};
use cmk_native::cli_tree::CliTree;
use cmk_provider_claude::ClaudeProvider;
use testkit::procs::{alive, kill_pid};

use super::{BOUND, adapter_exe};

fn provider(program: &Path) -> ClaudeProvider {
    let tree = Arc::new(CliTree::embedded().expect("tree"));
    ClaudeProvider::new(program.to_owned(), tree).with_supervisor_exe(adapter_exe())
}

fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).expect("write");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    p
}

fn far() -> tokio::time::Instant {
    tokio::time::Instant::now() + Duration::from_secs(60)
}

fn refused(r: Result<Checked, PreflightError>) -> ToolError {
    match r {
        Err(PreflightError::Refused(e)) => e,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[tokio::test]
async fn the_pinned_version_passes_and_another_is_version_mismatch() {
    let dir = tempfile::tempdir().expect("dir");
    let good = script(dir.path(), "good", "echo '2.1.328 (Claude Code)'");
    let p = provider(&good);
    assert_eq!(p.preflight(far()).await, Ok(Checked::new(good)));

    let bad = script(dir.path(), "bad", "echo '2.1.329 (Claude Code)'");
    let e = refused(provider(&bad).preflight(far()).await);
    assert_eq!(e.code, ErrorCode::VersionMismatch);
    assert_eq!(e.extra["expected"], "2.1.328 (Claude Code)");
    assert_eq!(e.extra["actual"], "2.1.329 (Claude Code)");

    let failing = script(
        dir.path(),
        "failing",
        "echo '2.1.328 (Claude Code)'; echo oops >&2; exit 3",
    );
    let e = refused(provider(&failing).preflight(far()).await);
    assert_eq!(e.code, ErrorCode::VersionMismatch);
    assert!(e.message.contains("oops"), "{}", e.message);
}

#[tokio::test]
async fn the_version_check_gets_no_stdin() {
    let dir = tempfile::tempdir().expect("dir");
    let log = dir.path().join("log");
    let body = format!(
        "readlink /proc/self/fd/0 > {log}; echo '2.1.328 (Claude Code)'",
        log = log.display()
    );
    let s = script(dir.path(), "probe", &body);
    assert!(provider(&s).preflight(far()).await.is_ok());
    let text = std::fs::read_to_string(&log).expect("log");
    assert_eq!(text.trim(), "/dev/null");
}

#[tokio::test]
async fn a_hanging_version_check_is_bounded_by_the_deadline() {
    let dir = tempfile::tempdir().expect("dir");
    let s = script(dir.path(), "hang", "sleep 30");
    let deadline = tokio::time::Instant::now() + Duration::from_millis(300);
    let r = provider(&s).preflight(deadline).await;
    assert_eq!(r, Err(PreflightError::DeadlinePassed));
}

#[tokio::test]
async fn a_process_the_version_check_leaves_in_its_group_is_ended() {
    // C-SUP-1 for the check: a `--version` that answers and leaves a member of its group behind
    // (which also holds stdout, so the check cannot end before it without the supervisor).
    let dir = tempfile::tempdir().expect("dir");
    let pidfile = dir.path().join("left.pid");
    let body = format!(
        "sleep 300 > /dev/null 2>&1 & echo $! > {pid}; echo '2.1.328 (Claude Code)'",
        pid = pidfile.display()
    );
    let s = script(dir.path(), "leaves-one", &body);
    assert!(provider(&s).preflight(far()).await.is_ok());
    let left: u32 = std::fs::read_to_string(&pidfile)
        .expect("pidfile")
        .trim()
        .parse()
        .expect("pid");
    let deadline = Instant::now() + BOUND;
    while alive(left) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let survived = alive(left);
    if survived {
        kill_pid(left);
    }
    assert!(
        !survived,
        "{left}, left behind by the version check, survived it"
    );
}

#[tokio::test]
async fn a_version_check_whose_supervisor_dies_is_not_confirmed_clean() {
    // RUN-10 for the check: its supervisor (its parent) is killed, so nobody can confirm that
    // its group is gone. The verdict stays available; the engine makes the run `uncertain`.
    let dir = tempfile::tempdir().expect("dir");
    let s = script(
        dir.path(),
        "orphaned",
        // After a pause, so the supervisor has reported the spawn (a supervisor dying before
        // that is a spawn failure, not this case).
        "sleep 1; kill -9 $PPID; echo '2.1.328 (Claude Code)'",
    );
    match provider(&s).preflight(far()).await {
        Err(PreflightError::Uncleaned { verdict, cleanup }) => {
            assert!(!cleanup.confirmed);
            assert!(cleanup.error.is_some(), "{cleanup:?}");
            // Its exit could not be observed either, so it did not pass.
            let e = refused(*verdict);
            assert_eq!(e.code, ErrorCode::VersionMismatch);
        }
        other => panic!("expected an unconfirmed cleanup, got {other:?}"),
    }
}

#[tokio::test]
async fn a_run_starts_under_the_supervisor_of_its_version_check() {
    // C-SUP-1: NAT-2's check still runs before the run, and the run follows under the same
    // supervisor (one supervisor start per run).
    let dir = tempfile::tempdir().expect("dir");
    let body = format!(
        "if [ \"$1\" = --version ]; then echo $PPID > {d}/check.ppid; echo '2.1.328 (Claude Code)'; \
         else echo $PPID > {d}/run.ppid; test -f {d}/check.ppid; fi",
        d = dir.path().display()
    );
    let s = script(dir.path(), "both", &body);
    let p = provider(&s);
    let checked = p.preflight(far()).await.expect("the pinned version");
    let spec = cmk_engine::provider::RunSpec {
        prompt: "hi".into(),
        cwd: dir.path().to_owned(),
        timeout: Duration::from_secs(30),
        options: serde_json::Map::new(),
        guard: cmk_engine::tools::GuardConfig::default(),
        json_schema: None,
    };
    let Ok(mut run) = p.spawn(&checked, &spec).await else {
        panic!("the run did not start");
    };
    let status = tokio::time::timeout(BOUND, run.exited())
        .await
        .expect("the run ends");
    // Exit 0: the check had run (and written its file) before the run started.
    assert_eq!(status.and_then(|s| s.code), Some(0));
    assert!(run.cleanup().await.confirmed);
    let read = |name: &str| {
        std::fs::read_to_string(dir.path().join(name))
            .expect("ppid file")
            .trim()
            .to_owned()
    };
    assert_eq!(read("check.ppid"), read("run.ppid"));
}
