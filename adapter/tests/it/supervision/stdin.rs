//! The native process's stdin (NAT-7, NAT-8): `/dev/null` by default, or with
//! [`StdinMode::Pipe`] a pipe whose only write end is the engine's `Supervised::stdin`, so dropping
//! it is EOF for the native process, and whose only read end is the native process's fd 0, so a
//! write after the group is gone fails instead of blocking.

use std::path::PathBuf;

use cmk_supervisor::{ExitStatus, StdinMode, TERM_GRACE};
use testkit::procs;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::{BOUND, fd_table, first_line, sh, spawn, wait_asleep};

/// `program args…` with a piped stdin, in `/`, with the test environment of [`sh`].
fn piped(program: &str, args: &[&str]) -> cmk_supervisor::SpawnSpec {
    let mut spec = sh("", TERM_GRACE);
    spec.program = program.into();
    spec.args = args.iter().map(Into::into).collect();
    spec.stdin = StdinMode::Pipe;
    spec
}

/// Where `/proc/<pid>/fd/<fd>` points, `None` when it cannot be read (gone, not ours).
fn fd_target(pid: u32, fd: i32) -> Option<PathBuf> {
    std::fs::read_link(format!("/proc/{pid}/fd/{fd}")).ok()
}

/// The descriptors of `pid` that point at `target` (an empty list when `/proc` does not let us
/// look, which is the case only for processes of other users: never one of ours).
fn fds_pointing_at(pid: u32, target: &std::path::Path) -> Vec<i32> {
    procs::open_fds(pid)
        .unwrap_or_default()
        .into_iter()
        .filter(|&fd| fd_target(pid, fd).as_deref() == Some(target))
        .collect()
}

#[tokio::test]
async fn a_piped_stdin_reaches_the_native_process_and_dropping_it_is_eof() {
    let mut s = spawn(piped("/bin/cat", &[])).await;
    let mut stdin = s.stdin.take().expect("a piped stdin");
    let mut stdout = s.stdout.take().expect("stdout");
    stdin.write_all(b"hello\n").await.expect("write");
    // cat echoes while stdin stays open: the pipe is live, not read only at EOF.
    let mut first = [0u8; 6];
    tokio::time::timeout(BOUND, stdout.read_exact(&mut first))
        .await
        .expect("the echo arrives while stdin is open")
        .expect("read");
    assert_eq!(&first, b"hello\n");
    stdin.write_all(b"world\n").await.expect("write");
    drop(stdin);
    // Only our end existed: cat sees EOF, echoes the rest and exits 0 on its own.
    let mut rest = String::new();
    tokio::time::timeout(BOUND, stdout.read_to_string(&mut rest))
        .await
        .expect("stdout ends once cat saw EOF on its stdin")
        .expect("read");
    assert_eq!(rest, "world\n");
    assert_eq!(
        s.exited().await,
        Some(ExitStatus {
            code: Some(0),
            signal: None
        })
    );
    let c = s.cleanup().await;
    assert!(c.confirmed, "{c:?}");
}

#[tokio::test]
async fn a_piped_stdin_is_the_only_extra_descriptor_and_nobody_else_holds_the_pipe() {
    // NAT-8 with a pipe for stdin: still exactly 0, 1, 2 in the native process; the read end is
    // there only, the write end in this process only (the supervisor holds neither, and no other
    // process inherited either).
    let mut s = spawn(piped("/usr/bin/sleep", &["60"])).await;
    let pid = s.native_pid().expect("pid");
    assert!(s.stdin.is_some());
    wait_asleep(pid);
    assert_eq!(
        procs::open_fds(pid).expect("/proc/<pid>/fd"),
        vec![0, 1, 2],
        "NAT-8: no descriptor beyond stdio: {:?}",
        fd_table(pid)
    );
    let pipe = fd_target(pid, 0).expect("fd 0 link");
    assert!(pipe.to_string_lossy().starts_with("pipe:"), "{pipe:?}");
    // Both ends of a pipe show the same `pipe:[inode]`.
    assert_eq!(
        fds_pointing_at(std::process::id(), &pipe).len(),
        1,
        "this process holds the write end once"
    );
    let supervisor = procs::scan()
        .into_iter()
        .find(|p| p.pid == pid)
        .expect("native in /proc")
        .ppid;
    assert_eq!(fds_pointing_at(supervisor, &pipe), Vec::<i32>::new());
    // A fork of this test process that has not exec'd yet (another test starting a supervisor)
    // holds copies of everything for an instant; its exec closes them (close-on-exec), so it does
    // not count as a holder.
    let me = std::process::id();
    let my_exe = std::fs::read_link("/proc/self/exe").expect("own exe");
    let holders: Vec<u32> = procs::scan()
        .into_iter()
        .filter(|p| p.pid != pid && p.pid != me)
        .filter(|p| {
            !(p.ppid == me
                && std::fs::read_link(format!("/proc/{}/exe", p.pid)).ok() == Some(my_exe.clone()))
        })
        .map(|p| p.pid)
        .filter(|&p| !fds_pointing_at(p, &pipe).is_empty())
        .collect();
    assert_eq!(
        holders,
        Vec::<u32>::new(),
        "no other process holds the pipe"
    );

    s.terminate();
    assert_eq!(s.exited().await.and_then(|e| e.signal), Some(15));
    assert!(s.cleanup().await.confirmed);
}

#[tokio::test]
async fn a_write_to_a_piped_stdin_nobody_reads_fails_instead_of_blocking() {
    // The native process closes its stdin and stays alive, as does its supervisor: nobody else
    // holds the read end, so the write gets EPIPE (the test harness ignores SIGPIPE, as the
    // adapter does) instead of blocking once the pipe buffer is full.
    let mut s = spawn(piped(
        "/bin/sh",
        &["-c", "exec 0<&-; echo closed; exec sleep 60"],
    ))
    .await;
    let mut stdin = s.stdin.take().expect("a piped stdin");
    assert_eq!(first_line(&mut s).await, "closed");
    let written = tokio::time::timeout(BOUND, async {
        // More than a pipe buffer: a read end held anywhere would make this block, not fail.
        let chunk = vec![b'x'; 1 << 20];
        stdin.write_all(&chunk).await
    })
    .await;
    s.terminate();
    assert!(s.cleanup().await.confirmed);
    let err = written
        .expect("the write does not block")
        .expect_err("nobody reads the pipe");
    assert_eq!(err.kind(), std::io::ErrorKind::BrokenPipe, "{err}");
}

#[tokio::test]
async fn the_default_stdin_is_dev_null_with_no_adapter_end() {
    // NAT-7: without a pipe the native stdin is /dev/null and the engine gets no writer.
    let mut s = spawn(sh("exec sleep 60", TERM_GRACE)).await;
    assert!(s.stdin.is_none());
    let pid = s.native_pid().expect("pid");
    assert_eq!(
        fd_target(pid, 0).as_deref(),
        Some(std::path::Path::new("/dev/null"))
    );
    s.terminate();
    assert!(s.cleanup().await.confirmed);
}
