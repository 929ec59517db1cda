//! The supervisor process itself (`claude-mcp-adapter __supervise …`): starts the native process
//! as the leader of a new session and process group, pins it, and ends with the whole group dead
//! (SUP-1..3). Plain threads and blocking calls: no tokio runtime runs here.
//!
//! Descriptors on entry: 0 = its end of the control socket ([`super::protocol`]), 1 and 2 = the
//! write ends of the native stdout and stderr pipes. Its environment is the native environment,
//! already complete and scrubbed by the engine (NAT-8); its argv is
//! `--grace-ms N [--stdin-fd FD] --cwd DIR -- PROGRAM ARGS…`. With `--stdin-fd` (the engine asked
//! for [`super::StdinMode::Pipe`]) descriptor FD is the read end of the native stdin pipe: it
//! becomes the native process's fd 0 and is closed here right after the spawn.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Write};
use std::os::fd::{AsFd, FromRawFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{ExitCode, Stdio};
use std::time::Duration;

use nix::sys::signal::{SigSet, Signal};
use nix::sys::stat::{SFlag, fstat};

use super::procfs;
use super::protocol::{self, MAX_SURVIVORS_LISTED, Report};

/// Bound on one report write: a wedged adapter must not hang the supervisor.
const REPORT_WRITE_BOUND: Duration = Duration::from_secs(5);

/// Parsed supervisor argv.
#[derive(Debug, PartialEq, Eq)]
struct Args {
    grace: Duration,
    /// The inherited read end of the native stdin pipe; `None`: `/dev/null`.
    stdin_fd: Option<i32>,
    cwd: PathBuf,
    program: OsString,
    args: Vec<OsString>,
}

fn parse_args(argv: &[OsString]) -> Result<Args, String> {
    let mut grace = None;
    let mut stdin_fd = None;
    let mut cwd = None;
    let mut it = argv.iter();
    loop {
        let Some(a) = it.next() else {
            return Err("missing `-- PROGRAM`".into());
        };
        match a.to_str() {
            Some("--grace-ms") => {
                let v = it
                    .next()
                    .and_then(|v| v.to_str())
                    .ok_or("--grace-ms needs a value")?;
                let ms: u64 = v
                    .parse()
                    .map_err(|e| format!("bad --grace-ms {v:?}: {e}"))?;
                grace = Some(Duration::from_millis(ms));
            }
            Some("--stdin-fd") => {
                let v = it
                    .next()
                    .and_then(|v| v.to_str())
                    .ok_or("--stdin-fd needs a value")?;
                let fd: i32 = v
                    .parse()
                    .ok()
                    .filter(|&fd| fd > 2)
                    .ok_or_else(|| format!("bad --stdin-fd {v:?}"))?;
                stdin_fd = Some(fd);
            }
            Some("--cwd") => cwd = Some(PathBuf::from(it.next().ok_or("--cwd needs a value")?)),
            Some("--") => break,
            _ => return Err(format!("unexpected supervisor argument {a:?}")),
        }
    }
    let program = it
        .next()
        .ok_or("missing the native program after --")?
        .clone();
    Ok(Args {
        grace: grace.ok_or("missing --grace-ms")?,
        stdin_fd,
        cwd: cwd.ok_or("missing --cwd")?,
        program,
        args: it.cloned().collect(),
    })
}

/// Entry point; see the module doc for the descriptors and argv it expects.
pub fn main(argv: &[OsString]) -> ExitCode {
    let control = match take_control_socket() {
        Ok(c) => c,
        Err(e) => {
            crate::diag::now(&format!(
                "claude-mcp-adapter: {} is internal: {e}",
                super::SUBCOMMAND
            ));
            return ExitCode::from(2);
        }
    };
    let _ = control.set_write_timeout(Some(REPORT_WRITE_BOUND));
    let mut reporter = Reporter { control };
    match prepare_and_spawn(argv) {
        Ok((leader, grace)) => {
            reporter.send(&Report::Spawned { pid: leader });
            super::watch::supervise(&mut reporter, leader, grace);
            ExitCode::SUCCESS
        }
        Err(message) => {
            reporter.send(&Report::SpawnFailed {
                message: protocol::bounded_message(&message),
            });
            ExitCode::from(1)
        }
    }
}

/// Writes reports; a write error means the adapter is gone, which the lifeline's EOF tells.
pub(super) struct Reporter {
    /// The control socket: reports out, the lifeline in.
    pub(super) control: UnixStream,
}

impl Reporter {
    pub(super) fn send(&mut self, report: &Report) {
        let _ = self.control.write_all(&protocol::encode(report));
    }
}

/// Fd 0 must be the control socket; a duplicate (close-on-exec) is what we keep.
fn take_control_socket() -> Result<UnixStream, String> {
    let stdin = io::stdin();
    let st = fstat(stdin.as_fd()).map_err(|e| format!("cannot inspect fd 0: {e}"))?;
    if SFlag::from_bits_truncate(st.st_mode) & SFlag::S_IFMT != SFlag::S_IFSOCK {
        return Err("fd 0 is not the control socket".into());
    }
    let fd = stdin
        .as_fd()
        .try_clone_to_owned()
        .map_err(|e| format!("cannot take fd 0: {e}"))?;
    Ok(UnixStream::from(fd))
}

/// Sets up the supervisor and starts the native process; returns its pid and the grace.
fn prepare_and_spawn(argv: &[OsString]) -> Result<(u32, Duration), String> {
    let args = parse_args(argv)?;
    // NAT-8: nothing this process inherited beyond 0/1/2 may reach the native process. Fds we open
    // from here on are close-on-exec already (std and nix default).
    mark_inherited_fds_cloexec()?;
    // SUP-1: descendants re-parented on their parent's death come back to us, not to init, so
    // they are reaped and counted by us.
    nix::sys::prctl::set_child_subreaper(true)
        .map_err(|e| format!("cannot become child subreaper: {e}"))?;
    // The event loop reads these signals from a signalfd (`watch`); blocked from before the
    // spawn, so none is lost. The process is single-threaded: this is its whole mask. The native
    // child starts with an empty mask again (below).
    handled_signals()
        .thread_block()
        .map_err(|e| format!("cannot block signals: {e}"))?;
    let stdin = match args.stdin_fd {
        Some(fd) => Stdio::from(take_native_stdin(fd)?),
        None => Stdio::null(), // NAT-7: never the MCP stream
    };

    let mut cmd = std::process::Command::new(&args.program);
    cmd.args(&args.args)
        .current_dir(&args.cwd)
        .stdin(stdin)
        .stdout(Stdio::inherit())
        .stderr(Stdio::inherit());
    // SAFETY: runs in the forked child before exec; sigprocmask(2) and setsid(2) are
    // async-signal-safe, allocate nothing, and touch no state shared with the parent.
    // The mask: std does not reset it, and the blocked SIGTERM would survive exec (SUP-3 needs
    // the native process to see it). SUP-1: the native process leads a new session and process
    // group (and has no controlling terminal to stop on).
    unsafe {
        cmd.pre_exec(|| {
            SigSet::empty().thread_set_mask().map_err(io::Error::from)?;
            nix::unistd::setsid().map(drop).map_err(io::Error::from)
        });
    }
    let child = cmd.spawn().map_err(|e| {
        format!(
            "cannot start {} in {}: {e}",
            OsStr::new(&args.program).to_string_lossy(),
            args.cwd.display()
        )
    })?;
    let pid = child.id();
    // The std handle is never waited on: the leader is observed with WNOWAIT and reaped by hand
    // once its group is dead (SUP-1 pinning).
    drop(child);
    // Closes our copy of the native stdin's read end (StdinMode::Pipe): only the native group
    // holds it now, so the adapter's writes fail with EPIPE once the group is gone.
    drop(cmd);

    // Only the native group may hold the write ends of its stdout/stderr, so their EOF means
    // the group closed them (SUP-4's bounded drain covers an escaped holder).
    let null = File::options()
        .read(true)
        .write(true)
        .open("/dev/null")
        .map_err(|e| format!("cannot open /dev/null: {e}"))?;
    nix::unistd::dup2_stdout(null.as_fd()).map_err(|e| format!("cannot release stdout: {e}"))?;
    nix::unistd::dup2_stderr(null.as_fd()).map_err(|e| format!("cannot release stderr: {e}"))?;
    Ok((pid, args.grace))
}

/// Takes the inherited read end of the native stdin pipe (`--stdin-fd`), after checking that it
/// is an open pipe.
fn take_native_stdin(fd: i32) -> Result<OwnedFd, String> {
    // SAFETY: F_GETFD only reads the descriptor flags; it fails with EBADF for a closed `fd`.
    if unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1 {
        return Err(format!(
            "--stdin-fd {fd} is not open: {}",
            io::Error::last_os_error()
        ));
    }
    // SAFETY: `fd` is open (checked above), was passed to this process for exactly this purpose
    // by the adapter (`client::pass_native_stdin`), and nothing else in the process uses it.
    let owned = unsafe { OwnedFd::from_raw_fd(fd) };
    let st = fstat(owned.as_fd()).map_err(|e| format!("cannot inspect --stdin-fd {fd}: {e}"))?;
    if SFlag::from_bits_truncate(st.st_mode) & SFlag::S_IFMT != SFlag::S_IFIFO {
        return Err(format!("--stdin-fd {fd} is not a pipe"));
    }
    Ok(owned)
}

/// The signals the event loop reads: SIGTERM, SIGINT and SIGHUP to the supervisor (terminate
/// the run), and `SIGCHLD`, which wakes it for every exit of one of its children.
pub(super) fn handled_signals() -> SigSet {
    let mut set = SigSet::empty();
    set.add(Signal::SIGCHLD);
    set.add(Signal::SIGTERM);
    set.add(Signal::SIGINT);
    set.add(Signal::SIGHUP);
    set
}

/// Marks every descriptor above 2 close-on-exec: one `close_range(2)` call (Linux 5.11+), else a
/// `/proc/self/fd` listing (a directory read this hot path of every run does not need).
fn mark_inherited_fds_cloexec() -> Result<(), String> {
    // SAFETY: close_range with CLOSE_RANGE_CLOEXEC closes nothing; it only sets the close-on-exec
    // flag of the descriptors in the range, and the process is still single-threaded.
    let r = unsafe {
        libc::syscall(
            libc::SYS_close_range,
            3 as libc::c_uint,
            libc::c_uint::MAX,
            libc::CLOSE_RANGE_CLOEXEC,
        )
    };
    if r == 0 {
        return Ok(());
    }
    // ENOSYS (before 5.9) or EINVAL (the flag before 5.11): list them instead.
    let fds = procfs::open_fds(std::process::id())
        .map_err(|e| format!("cannot list /proc/self/fd: {e}"))?;
    for fd in fds.into_iter().filter(|&fd| fd > 2) {
        // SAFETY: fcntl(F_SETFD) only changes the close-on-exec flag of `fd`; the process is still
        // single-threaded, so no other code can close or reuse `fd` meanwhile. The directory fd
        // the listing used is already closed, which makes this call fail with EBADF, ignored.
        let _ = unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
    }
    Ok(())
}

pub(super) fn cleanup_report(mut survivors: Vec<u32>, mut notes: Vec<String>) -> Report {
    survivors.sort_unstable();
    if !survivors.is_empty() {
        notes.insert(
            0,
            format!(
                "{} process(es) of the native group still alive after SIGKILL",
                survivors.len()
            ),
        );
    }
    let confirmed = notes.is_empty();
    survivors.truncate(MAX_SURVIVORS_LISTED);
    Report::Cleanup {
        confirmed,
        survivors,
        error: (!confirmed).then(|| protocol::bounded_message(&notes.join("; "))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    #[test]
    fn parse_args_reads_grace_cwd_program_and_arguments() {
        let a = parse_args(&os(&[
            "--grace-ms",
            "1500",
            "--cwd",
            "/tmp",
            "--",
            "claude",
            "-p",
            "--",
            "-x",
        ]))
        .unwrap();
        assert_eq!(
            a,
            Args {
                grace: Duration::from_millis(1500),
                stdin_fd: None,
                cwd: "/tmp".into(),
                program: "claude".into(),
                args: os(&["-p", "--", "-x"]),
            }
        );
    }

    #[test]
    fn parse_args_reads_the_native_stdin_descriptor() {
        let a = parse_args(&os(&[
            "--grace-ms",
            "10",
            "--stdin-fd",
            "3",
            "--cwd",
            "/",
            "--",
            "cat",
        ]))
        .unwrap();
        assert_eq!(a.stdin_fd, Some(3));
        // 0-2 are the control socket and the native stdout/stderr, never the stdin pipe.
        for bad in ["0", "2", "-1", "x"] {
            assert!(
                parse_args(&os(&[
                    "--grace-ms",
                    "10",
                    "--stdin-fd",
                    bad,
                    "--cwd",
                    "/",
                    "--",
                    "cat"
                ]))
                .is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn parse_args_rejects_incomplete_argv() {
        assert!(parse_args(&os(&["--cwd", "/", "--", "x"])).is_err());
        assert!(parse_args(&os(&["--grace-ms", "1", "--", "x"])).is_err());
        assert!(parse_args(&os(&["--grace-ms", "1", "--cwd", "/", "--"])).is_err());
        assert!(parse_args(&os(&["--grace-ms", "soon", "--cwd", "/", "--", "x"])).is_err());
        assert!(parse_args(&os(&["--bogus"])).is_err());
    }

    #[test]
    fn cleanup_report_is_confirmed_only_without_survivors_or_notes() {
        assert_eq!(
            cleanup_report(vec![], vec![]),
            Report::Cleanup {
                confirmed: true,
                survivors: vec![],
                error: None
            }
        );
        let Report::Cleanup {
            confirmed,
            survivors,
            error,
        } = cleanup_report(vec![9, 3], vec![])
        else {
            panic!("not a cleanup report");
        };
        assert!(!confirmed);
        assert_eq!(survivors, vec![3, 9]);
        assert!(error.unwrap().contains("2 process(es)"));
        let Report::Cleanup { confirmed, .. } = cleanup_report(vec![], vec!["reap failed".into()])
        else {
            panic!("not a cleanup report");
        };
        assert!(!confirmed);
    }

    #[test]
    fn cleanup_report_lists_a_bounded_number_of_survivors() {
        let many: Vec<u32> = (1..=1000).collect();
        let Report::Cleanup {
            survivors, error, ..
        } = cleanup_report(many, vec![])
        else {
            panic!("not a cleanup report");
        };
        assert_eq!(survivors.len(), MAX_SURVIVORS_LISTED);
        assert!(error.unwrap().starts_with("1000 process(es)"));
    }
}
