//! The supervisor through its library API (the engine's view): group leadership, descriptors and
//! environment of the native process, the termination sequence and cleanup reports (SUP-1..4,
//! NAT-7, NAT-8).

use std::time::{Duration, Instant};

use cmk_supervisor::{self as supervisor, ExitStatus, TERM_GRACE};
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
fn the_supervise_subcommand_refuses_to_run_without_its_control_socket_or_with_arguments() {
    crate::support::adapter_cli()
        .arg("__supervise")
        .assert()
        .code(2)
        .stdout(predicates::str::is_empty())
        .stderr(predicates::str::contains("control socket"));
    // Its job comes over the socket only: an argv is refused before anything is read.
    let (theirs, _ours) = std::os::unix::net::UnixStream::pair().expect("socket pair");
    let mut cmd = std::process::Command::new(adapter_exe());
    cmd.args(["__supervise", "--", "true"])
        .stdin(std::process::Stdio::from(std::os::fd::OwnedFd::from(
            theirs,
        )));
    // The std command's own output, so the socket stays its stdin (assert_cmd's Command sets
    // stdin itself).
    assert_cmd::assert::OutputAssertExt::assert(cmd.output().expect("run"))
        .code(2)
        .stderr(predicates::str::contains("unexpected arguments"));
}

#[test]
fn a_supervisor_whose_adapter_lets_go_before_its_job_is_whole_starts_nothing() {
    // C-SUP-1: a supervisor (a spare, started ahead of its run) gets its job over the control
    // socket: the descriptor frame, then the start line and the order. Without them (the adapter
    // retired it, or died right after starting it) nothing may run: EOF before the frame is a
    // quiet end, EOF between the frame and the order a spawn failure. The whole job does run the
    // program.
    let dir = tempfile::tempdir().expect("temp dir");
    let marker = dir.path().join("started");
    let (code, reports) = supervise_touch(&marker, Sent::Nothing);
    assert_eq!(code, Some(0), "{reports}");
    assert!(reports.is_empty(), "{reports}");
    assert!(!marker.exists(), "the native program ran without its job");

    let (code, reports) = supervise_touch(&marker, Sent::FrameOnly);
    assert_eq!(code, Some(1), "{reports}");
    assert!(reports.contains(r#""report":"spawn_failed""#), "{reports}");
    assert!(!marker.exists(), "the native program ran without its order");

    let (code, reports) = supervise_touch(&marker, Sent::Job);
    assert_eq!(code, Some(0), "{reports}");
    assert!(reports.contains(r#""report":"spawned""#), "{reports}");
    assert!(marker.exists(), "the native program did not run: {reports}");
}

/// How much of its job [`supervise_touch`] gives the supervisor.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sent {
    Nothing,
    FrameOnly,
    Job,
}

/// Runs `__supervise` by hand for `touch MARKER` with a stdin pipe. The adapter's end of the
/// control socket sends `sent` of the job, then reads the reports until the supervisor exits.
/// The supervisor's exit code and the reports read.
fn supervise_touch(marker: &std::path::Path, sent: Sent) -> (Option<i32>, String) {
    use std::io::{Read, Write};
    use std::os::fd::{AsRawFd, OwnedFd};

    let (theirs, mut ours) = std::os::unix::net::UnixStream::pair().expect("socket pair");
    let pipe = || nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).expect("pipe");
    let ((stdin_r, _stdin_w), (_out_r, out_w), (_err_r, err_w)) = (pipe(), pipe(), pipe());
    let mut child = std::process::Command::new(adapter_exe())
        .arg("__supervise")
        .env_clear()
        .stdin(std::process::Stdio::from(OwnedFd::from(theirs)))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start the supervisor");
    if sent != Sent::Nothing {
        nix::sys::socket::sendmsg::<()>(
            ours.as_raw_fd(),
            &[std::io::IoSlice::new(b"F")],
            &[nix::sys::socket::ControlMessage::ScmRights(&[
                out_w.as_raw_fd(),
                err_w.as_raw_fd(),
                stdin_r.as_raw_fd(),
            ])],
            nix::sys::socket::MsgFlags::empty(),
            None,
        )
        .expect("send the descriptor frame");
    }
    drop((stdin_r, out_w, err_w));
    if sent == Sent::Job {
        let order = order(marker);
        ours.write_all(
            format!(
                "{{\"command\":\"start\",\"bytes\":{},\"then_run\":false}}\n",
                order.len()
            )
            .as_bytes(),
        )
        .expect("send the start line");
        ours.write_all(&order).expect("send the order");
    } else {
        ours.shutdown(std::net::Shutdown::Write).expect("EOF");
    }
    let mut reports = String::new();
    ours.set_read_timeout(Some(BOUND)).expect("bound the reads");
    ours.read_to_string(&mut reports)
        .expect("reports until exit");
    drop(ours);
    let status = child.wait().expect("the supervisor exits");
    (status.code(), reports)
}

/// The order for `/bin/sh -c 'touch "$1"' sh MARKER` with a stdin pipe, a 10 ms grace and an
/// empty environment, in the supervisor's order encoding (`supervisor/order.rs`).
fn order(marker: &std::path::Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    let mut out = vec![1u8];
    out.extend_from_slice(&10u64.to_le_bytes());
    let put = |out: &mut Vec<u8>, b: &[u8]| {
        out.extend_from_slice(&u32::try_from(b.len()).expect("short").to_le_bytes());
        out.extend_from_slice(b);
    };
    put(&mut out, b"/bin/sh");
    put(&mut out, b"/");
    let args: [&[u8]; 4] = [b"-c", b"touch \"$1\"", b"sh", marker.as_os_str().as_bytes()];
    out.extend_from_slice(&4u32.to_le_bytes());
    for a in args {
        put(&mut out, a);
    }
    out.extend_from_slice(&0u32.to_le_bytes());
    out
}

/// The supervisor of a native process: its parent, read from /proc.
fn supervisor_of(native: u32) -> u32 {
    procs::scan()
        .into_iter()
        .find(|p| p.pid == native)
        .expect("native in /proc")
        .ppid
}
