//! The supervisor through its library API (the engine's view): group leadership, descriptors and
//! environment of the native process, the termination sequence and cleanup reports (SUP-1..4,
//! NAT-7, NAT-8).

use std::time::{Duration, Instant};

use claude_mcp_adapter::supervisor::{self, ExitStatus, TERM_GRACE};
use testkit::procs::{self, alive, kill_pid, wait_group_gone, wait_group_size};
use tokio::io::AsyncReadExt;

use super::{BOUND, adapter_exe, fd_table, first_line, nul_separated, sh, spawn, wait_asleep};

/// A grace far longer than [`BOUND`]: a test that finishes within BOUND proves the grace was not
/// waited for.
const LONG_GRACE: Duration = Duration::from_secs(120);

#[tokio::test]
async fn native_process_leads_its_own_session_and_process_group() {
    // SUP-1
    let mut s = spawn(sh("echo ready; exec sleep 60", TERM_GRACE)).await;
    let pid = s.native_pid().expect("pid");
    assert_eq!(first_line(&mut s).await, "ready");
    let me = procs::scan()
        .into_iter()
        .find(|p| p.pid == std::process::id())
        .expect("this test process in /proc");
    let native = procs::scan()
        .into_iter()
        .find(|p| p.pid == pid)
        .expect("the native process in /proc");
    assert_eq!(native.pgrp, pid, "leads its process group");
    assert_eq!(
        native.session, pid,
        "leads its session (no controlling terminal)"
    );
    assert_ne!(native.pgrp, me.pgrp);
    // Its parent is the supervisor, which is neither this process nor in its group.
    let sup = procs::scan()
        .into_iter()
        .find(|p| p.pid == native.ppid)
        .expect("the supervisor in /proc");
    assert_ne!(sup.pid, std::process::id());
    assert_ne!(sup.pgrp, me.pgrp, "the supervisor has its own group");

    s.terminate();
    assert_eq!(
        s.exited().await,
        Some(ExitStatus {
            code: None,
            signal: Some(15)
        })
    );
    let c = s.cleanup().await;
    assert!(c.confirmed, "{c:?}");
    assert!(wait_group_gone(pid, BOUND).is_empty());
}

#[tokio::test]
async fn native_process_gets_only_stdio_the_given_environment_and_cwd() {
    // NAT-8: a descriptor this process leaks without close-on-exec reaches the supervisor, never
    // the native process. The native program is `sleep` itself (a shell would add PWD).
    let leaked = nix::unistd::dup(std::io::stderr()).expect("dup without CLOEXEC");
    let cwd = tempfile::tempdir().expect("temp dir");
    let mut spec = sh("", TERM_GRACE);
    spec.program = "/usr/bin/sleep".into();
    spec.args = vec!["60".into()];
    spec.cwd = cwd.path().to_path_buf();
    let expected_env = spec.env.clone();
    let mut s = spawn(spec).await;
    drop(leaked);
    let pid = s.native_pid().expect("pid");
    // The spawned report comes after exec succeeded, so /proc shows sleep itself.
    let exe = std::fs::read_link(format!("/proc/{pid}/exe")).expect("exe");
    assert!(exe.ends_with("sleep"), "{exe:?}");
    wait_asleep(pid);

    let fds = procs::open_fds(pid).expect("/proc/<pid>/fd");
    assert_eq!(
        fds,
        vec![0, 1, 2],
        "NAT-8: no descriptor beyond stdio: {:?}",
        fd_table(pid)
    );
    let link = |fd: i32| std::fs::read_link(format!("/proc/{pid}/fd/{fd}")).expect("fd link");
    assert_eq!(link(0), std::path::Path::new("/dev/null"), "NAT-7: stdin");
    for fd in [1, 2] {
        assert!(
            link(fd).to_string_lossy().starts_with("pipe:"),
            "fd {fd} is a pipe"
        );
    }

    let environ = std::fs::read(format!("/proc/{pid}/environ")).expect("environ");
    let mut got = nul_separated(&environ);
    got.sort();
    let mut want: Vec<std::ffi::OsString> = expected_env
        .iter()
        .map(|(k, v)| {
            let mut kv = k.clone();
            kv.push("=");
            kv.push(v);
            kv
        })
        .collect();
    want.sort();
    assert_eq!(got, want, "NAT-8: the environment is exactly the spec's");
    assert_eq!(
        std::fs::read_link(format!("/proc/{pid}/cwd")).expect("cwd"),
        cwd.path().canonicalize().expect("canonical cwd")
    );
    // The supervisor blocks the signals it handles; the native process must start with none
    // blocked, or SIGTERM would never reach it.
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    let sigblk = status
        .lines()
        .find_map(|l| l.strip_prefix("SigBlk:"))
        .expect("SigBlk line");
    assert_eq!(u64::from_str_radix(sigblk.trim(), 16).expect("hex"), 0);

    s.terminate();
    assert_eq!(s.exited().await.and_then(|e| e.signal), Some(15));
    assert!(s.cleanup().await.confirmed);
}

#[tokio::test]
async fn stdout_and_stderr_reach_the_engine_and_end_with_the_group() {
    let mut s = spawn(sh("echo out; echo err >&2; exit 3", TERM_GRACE)).await;
    let mut out = s.stdout.take().expect("stdout");
    let mut err = s.stderr.take().expect("stderr");
    let (mut o, mut e) = (String::new(), String::new());
    tokio::time::timeout(BOUND, async {
        out.read_to_string(&mut o).await.expect("read stdout");
        err.read_to_string(&mut e).await.expect("read stderr");
    })
    .await
    .expect("stdout and stderr reach EOF once the group is gone");
    assert_eq!((o.as_str(), e.as_str()), ("out\n", "err\n"));
    assert_eq!(
        s.exited().await,
        Some(ExitStatus {
            code: Some(3),
            signal: None
        })
    );
    let c = s.cleanup().await;
    assert!(
        c.confirmed && c.survivors.is_empty() && c.error.is_none(),
        "{c:?}"
    );
}

#[tokio::test]
async fn terminate_sigkills_a_sigterm_ignoring_group_after_the_grace() {
    // SUP-3: SIGTERM, grace, SIGKILL, reap; the grandchild inherits the ignored SIGTERM.
    let grace = Duration::from_secs(1);
    let mut s = spawn(sh(
        "trap '' TERM; sleep 60 & echo $!; while :; do sleep 1; done",
        grace,
    ))
    .await;
    let pid = s.native_pid().expect("pid");
    let grandchild: u32 = first_line(&mut s).await.parse().expect("grandchild pid");
    assert!(wait_group_size(pid, 2, BOUND).len() >= 2);

    let asked = Instant::now();
    s.terminate();
    s.terminate(); // idempotent
    let handle = s.handle();
    handle.terminate();
    assert_eq!(
        s.exited().await,
        Some(ExitStatus {
            code: None,
            signal: Some(9)
        }),
        "only SIGKILL ends it"
    );
    assert!(
        asked.elapsed() >= grace,
        "SIGKILL came before the grace ran out"
    );
    let c = s.cleanup().await;
    assert!(c.confirmed, "{c:?}");
    assert!(!alive(grandchild), "the grandchild died with its group");
    assert!(procs::group_members(pid).is_empty());
}

#[tokio::test]
async fn a_grandchild_left_in_the_group_dies_when_the_leader_exits() {
    // "Every process we start dies with its run": the leader exits 0 and leaves a grandchild
    // in its group, holding stdout open.
    let mut s = spawn(sh("sleep 60 & echo $!; exit 0", TERM_GRACE)).await;
    let pid = s.native_pid().expect("pid");
    let grandchild: u32 = first_line(&mut s).await.parse().expect("grandchild pid");
    assert_eq!(
        s.exited().await,
        Some(ExitStatus {
            code: Some(0),
            signal: None
        })
    );
    let c = s.cleanup().await;
    assert!(c.confirmed, "{c:?}");
    assert!(!alive(grandchild));
    assert!(procs::group_members(pid).is_empty());
    // With the group gone nobody holds the write end any more: EOF.
    let mut rest = Vec::new();
    tokio::time::timeout(
        BOUND,
        s.stdout.as_mut().expect("stdout").read_to_end(&mut rest),
    )
    .await
    .expect("stdout EOF after cleanup")
    .expect("read");
}

#[tokio::test]
async fn a_descendant_that_left_the_group_is_not_waited_for() {
    // SUP-4: a setsid'd descendant survives and may hold stdout open; cleanup neither waits for it
    // nor counts it. The leader exits only once the descendant has left the group (it writes its
    // pid file after setsid), whatever the machine's load.
    let dir = tempfile::tempdir().expect("temp dir");
    let flag = dir.path().join("escaped");
    let script = format!(
        "setsid sh -c 'echo $$ > {f}.tmp && mv {f}.tmp {f}; echo $$; exec sleep 60' & \
         i=0; while [ ! -s {f} ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done; exit 0",
        f = flag.display()
    );
    let mut s = spawn(sh(&script, TERM_GRACE)).await;
    let pid = s.native_pid().expect("pid");
    let escaped: u32 = first_line(&mut s).await.parse().expect("escaped pid");
    let result = tokio::time::timeout(BOUND, async {
        let exited = s.exited().await;
        (exited, s.cleanup().await)
    })
    .await;
    let still_there = alive(escaped);
    kill_pid(escaped);
    let (exited, c) = result.expect("cleanup does not wait for the escaped process");
    assert_eq!(exited.and_then(|e| e.code), Some(0));
    assert!(c.confirmed, "{c:?}");
    assert!(procs::group_members(pid).is_empty());
    assert!(
        still_there,
        "the escaped process is outside the group (SUP-4)"
    );
}

#[tokio::test]
async fn sigterm_to_the_supervisor_terminates_the_run_and_the_supervisor_exits() {
    // The supervisor treats SIGTERM/SIGINT/SIGHUP aimed at itself as a terminate request.
    let mut s = spawn(sh("echo ready; exec sleep 60", TERM_GRACE)).await;
    let pid = s.native_pid().expect("pid");
    assert_eq!(first_line(&mut s).await, "ready");
    let sup = supervisor_of(pid);
    let raw = i32::try_from(sup).expect("pid");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(raw),
        nix::sys::signal::Signal::SIGTERM,
    )
    .expect("signal the supervisor");
    assert_eq!(s.exited().await.and_then(|e| e.signal), Some(15));
    let c = s.cleanup().await;
    assert!(c.confirmed, "{c:?}");
    // It exits after its last report and the adapter side reaps it: nothing of the run is left.
    assert!(
        !procs::scan().iter().any(|p| p.pid == sup),
        "supervisor {sup} still there"
    );
}

#[tokio::test]
async fn closing_the_lifeline_sigkills_the_group_at_once() {
    // SUP-2: no grace at all, even though the group ignores SIGTERM and the grace is long.
    let mut s = spawn(sh(
        "trap '' TERM; sleep 60 & echo $!; while :; do sleep 1; done",
        LONG_GRACE,
    ))
    .await;
    let pid = s.native_pid().expect("pid");
    let grandchild: u32 = first_line(&mut s).await.parse().expect("grandchild pid");
    s.kill_now();
    assert_eq!(wait_group_gone(pid, BOUND), Vec::<u32>::new());
    assert!(!alive(grandchild));
    // The report channel still works after the lifeline closed.
    assert_eq!(s.exited().await.and_then(|e| e.signal), Some(9));
    let c = s.cleanup().await;
    assert!(c.confirmed, "{c:?}");
}

#[tokio::test]
async fn dropping_the_supervised_handle_sigkills_the_group() {
    let mut s = spawn(sh(
        "trap '' TERM; echo ready; while :; do sleep 1; done",
        LONG_GRACE,
    ))
    .await;
    let pid = s.native_pid().expect("pid");
    assert_eq!(first_line(&mut s).await, "ready");
    drop(s);
    assert_eq!(wait_group_gone(pid, BOUND), Vec::<u32>::new());
}

#[tokio::test]
async fn a_dead_supervisor_leaves_cleanup_unconfirmed() {
    // SUP-3: EOF of the report channel without an acknowledgement is cleanup_unconfirmed.
    let mut s = spawn(sh("echo ready; exec sleep 60", TERM_GRACE)).await;
    let pid = s.native_pid().expect("pid");
    assert_eq!(first_line(&mut s).await, "ready");
    let sup = supervisor_of(pid);
    kill_pid(sup);
    let c = tokio::time::timeout(BOUND, s.cleanup())
        .await
        .expect("cleanup returns once the channel ends");
    // The native process outlived its supervisor; this test cleans it up itself.
    kill_pid(pid);
    assert!(!c.confirmed);
    assert!(c.survivors.is_empty());
    assert!(
        c.error
            .as_deref()
            .is_some_and(|e| e.contains("without acknowledging cleanup")),
        "{c:?}"
    );
    assert_eq!(s.exited().await, None, "no exit was ever reported");
}

#[tokio::test]
async fn a_native_program_that_cannot_start_is_a_spawn_error() {
    let mut spec = sh("true", TERM_GRACE);
    spec.program = "/nonexistent/claude".into();
    let err = supervisor::spawn_with(adapter_exe().as_os_str(), spec)
        .await
        .expect_err("spawn_failed");
    assert!(err.0.contains("/nonexistent/claude"), "{err}");
}

#[tokio::test]
async fn a_missing_cwd_is_a_spawn_error() {
    let mut spec = sh("true", TERM_GRACE);
    spec.cwd = "/nonexistent-dir".into();
    let err = supervisor::spawn_with(adapter_exe().as_os_str(), spec)
        .await
        .expect_err("spawn_failed");
    assert!(err.0.contains("/nonexistent-dir"), "{err}");
}

#[test]
fn the_supervise_subcommand_refuses_to_run_without_its_control_socket() {
    let out = std::process::Command::new(adapter_exe())
        .args([
            "__supervise",
            "--grace-ms",
            "10",
            "--cwd",
            "/",
            "--",
            "true",
        ])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("control socket"));
}

#[test]
fn a_supervisor_whose_adapter_is_gone_before_the_descriptor_frame_starts_nothing() {
    // C-SUP-1: the descriptors beyond stdio arrive over the control socket, the adapter's first
    // bytes there; without them (the adapter died right after starting the supervisor) nothing
    // may run. The same supervisor argv with the frame does run the program.
    let dir = tempfile::tempdir().expect("temp dir");
    let marker = dir.path().join("started");
    let (code, reports) = supervise_touch(&marker, false);
    assert_eq!(code, Some(1), "{reports}");
    assert!(
        !marker.exists(),
        "the native program ran without its descriptors"
    );

    let (code, reports) = supervise_touch(&marker, true);
    assert_eq!(code, Some(0), "{reports}");
    assert!(reports.contains(r#""report":"spawned""#), "{reports}");
    assert!(marker.exists(), "the native program did not run: {reports}");
}

/// Runs `__supervise --stdin-pipe` for `touch MARKER` by hand. The adapter's end of the control
/// socket either closes at once or sends the descriptor frame (a pipe's read end: the native
/// stdin) and reads the reports until the supervisor exits. The supervisor's exit code and the
/// reports read.
fn supervise_touch(marker: &std::path::Path, send_frame: bool) -> (Option<i32>, String) {
    use std::io::Read;
    use std::os::fd::{AsRawFd, OwnedFd};

    let (theirs, mut ours) = std::os::unix::net::UnixStream::pair().expect("socket pair");
    let (stdin_r, _stdin_w) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).expect("pipe");
    let mut child = std::process::Command::new(adapter_exe())
        .args([
            "__supervise",
            "--grace-ms",
            "10",
            "--stdin-pipe",
            "--cwd",
            "/",
        ])
        .args(["--", "/bin/sh", "-c", "touch \"$1\"", "sh"])
        .arg(marker)
        .stdin(std::process::Stdio::from(OwnedFd::from(theirs)))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start the supervisor");
    let mut reports = String::new();
    if send_frame {
        nix::sys::socket::sendmsg::<()>(
            ours.as_raw_fd(),
            &[std::io::IoSlice::new(b"F")],
            &[nix::sys::socket::ControlMessage::ScmRights(&[
                stdin_r.as_raw_fd()
            ])],
            nix::sys::socket::MsgFlags::empty(),
            None,
        )
        .expect("send the descriptor frame");
        drop(stdin_r);
        ours.set_read_timeout(Some(BOUND)).expect("bound the reads");
        ours.read_to_string(&mut reports)
            .expect("reports until exit");
    }
    drop(ours);
    let status = child.wait().expect("the supervisor exits");
    (status.code(), reports)
}

/// The supervisor of a native process: its parent, read from /proc.
fn supervisor_of(native: u32) -> u32 {
    procs::scan()
        .into_iter()
        .find(|p| p.pid == native)
        .expect("native in /proc")
        .ppid
}
