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
//!
//! With `--then-run OUT,ERR,IN` the native process is the run's version check (NAT-2, C-NAT-2),
//! and the same supervisor then starts the run: after the check's `cleanup` report it waits on
//! the control socket for the adapter's go ([`Command::Run`] and the run's [`super::order`]) or
//! no-go (EOF), and starts the run with descriptors OUT and ERR (the write ends of the run's
//! stdout and stderr pipes) and IN (the read end of its stdin pipe, used with
//! [`super::StdinMode::Pipe`], else closed). The check never sees them: they are close-on-exec
//! here like everything else inherited.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, FromRawFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{ExitCode, Stdio};
use std::time::Duration;

use nix::sys::signal::{SigSet, Signal};
use nix::sys::stat::{SFlag, fstat};

use super::protocol::{self, Command, LineBuffer, MAX_SURVIVORS_LISTED, Report};
use super::{SpawnSpec, StdinMode, order, procfs};

/// Bound on one report write: a wedged adapter must not hang the supervisor.
const REPORT_WRITE_BOUND: Duration = Duration::from_secs(5);

/// Bound on reading a run's order once its `run` line arrived (the adapter writes both at once).
const ORDER_READ_BOUND: Duration = Duration::from_secs(30);

/// Parsed supervisor argv.
#[derive(Debug, PartialEq, Eq)]
struct Args {
    grace: Duration,
    /// The inherited read end of the native stdin pipe; `None`: `/dev/null`.
    stdin_fd: Option<i32>,
    /// `--then-run`: the run's stdout, stderr and stdin descriptors (the native process is the
    /// version check, the run follows on the adapter's go).
    then_run: Option<[i32; 3]>,
    cwd: PathBuf,
    program: OsString,
    args: Vec<OsString>,
}

fn parse_args(argv: &[OsString]) -> Result<Args, String> {
    let mut grace = None;
    let mut stdin_fd = None;
    let mut then_run = None;
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
            Some("--then-run") => {
                let v = it
                    .next()
                    .and_then(|v| v.to_str())
                    .ok_or("--then-run needs a value")?;
                let fds: Vec<i32> = v
                    .split(',')
                    .map(|f| f.parse().ok().filter(|&fd| fd > 2))
                    .collect::<Option<_>>()
                    .ok_or_else(|| format!("bad --then-run {v:?}"))?;
                then_run =
                    Some(<[i32; 3]>::try_from(fds).map_err(|_| format!("bad --then-run {v:?}"))?);
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
        then_run,
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
        Ok(started) => {
            reporter.send(&Report::Spawned {
                pid: started.leader,
            });
            super::watch::supervise(&mut reporter, started.leader, started.grace);
            match started.then_run {
                Some(fds) => run_after_check(&mut reporter, fds),
                None => ExitCode::SUCCESS,
            }
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

/// The first native process started, and what follows it.
struct Started {
    leader: u32,
    grace: Duration,
    /// `--then-run`: the run's descriptors, kept for the run after the check.
    then_run: Option<RunFds>,
}

/// The run's ends of its stdio pipes (`--then-run`), held until the run starts.
struct RunFds {
    stdout: OwnedFd,
    stderr: OwnedFd,
    stdin: OwnedFd,
}

/// Sets up the supervisor and starts the native process.
fn prepare_and_spawn(argv: &[OsString]) -> Result<Started, String> {
    let args = parse_args(argv)?;
    // NAT-8: nothing this process inherited beyond 0/1/2 may reach the native process. Fds we open
    // from here on are close-on-exec already (std and nix default).
    mark_inherited_fds_cloexec()?;
    let then_run = match args.then_run {
        Some([out, err, inp]) => Some(RunFds {
            stdout: take_pipe(out, "--then-run")?,
            stderr: take_pipe(err, "--then-run")?,
            stdin: take_pipe(inp, "--then-run")?,
        }),
        None => None,
    };
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
        Some(fd) => Stdio::from(take_pipe(fd, "--stdin-fd")?),
        None => Stdio::null(), // NAT-7: never the MCP stream
    };
    let leader = start_leader(
        &args.program,
        &args.args,
        &args.cwd,
        None,
        [stdin, Stdio::inherit(), Stdio::inherit()],
    )?;

    // Only the native group may hold the write ends of its stdout/stderr, so their EOF means
    // the group closed them (SUP-4's bounded drain covers an escaped holder).
    let null = File::options()
        .read(true)
        .write(true)
        .open("/dev/null")
        .map_err(|e| format!("cannot open /dev/null: {e}"))?;
    nix::unistd::dup2_stdout(null.as_fd()).map_err(|e| format!("cannot release stdout: {e}"))?;
    nix::unistd::dup2_stderr(null.as_fd()).map_err(|e| format!("cannot release stderr: {e}"))?;
    Ok(Started {
        leader,
        grace: args.grace,
        then_run,
    })
}

/// After the version check's cleanup report (`--then-run`): waits for the adapter's go or no-go
/// and starts the run, supervised exactly like a first native process (SUP-1..3). The wait has no
/// timer: the adapter's answer, or the lifeline's EOF when it dies or lets go, ends it.
fn run_after_check(reporter: &mut Reporter, fds: RunFds) -> ExitCode {
    let order = match await_order(&reporter.control) {
        Ok(Some(order)) => order,
        // No-go: nothing more runs; the check's group is gone already.
        Ok(None) => return ExitCode::SUCCESS,
        Err(message) => {
            reporter.send(&Report::SpawnFailed {
                message: protocol::bounded_message(&message),
            });
            return ExitCode::from(1);
        }
    };
    let stdin = match order.stdin {
        StdinMode::Pipe => Stdio::from(fds.stdin),
        StdinMode::Null => Stdio::null(), // NAT-7; the unused pipe end closes here
    };
    let started = start_leader(
        order.program.as_os_str(),
        &order.args,
        &order.cwd,
        Some(&order.env),
        [stdin, Stdio::from(fds.stdout), Stdio::from(fds.stderr)],
    );
    match started {
        Ok(leader) => {
            reporter.send(&Report::Spawned { pid: leader });
            super::watch::supervise(reporter, leader, order.grace);
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

/// Reads the control socket until the adapter's `run` line and the order after it (`Some`), or
/// its EOF (`None`: no-go). Other commands are ignored (nothing runs to terminate).
fn await_order(mut control: &UnixStream) -> Result<Option<SpawnSpec>, String> {
    let mut lines = LineBuffer::default();
    let mut chunk = [0u8; 4096];
    let bytes = 'wait: loop {
        loop {
            match lines.next_line() {
                Ok(Some(line)) => {
                    if let Ok(Command::Run { bytes }) = serde_json::from_slice(&line) {
                        break 'wait bytes;
                    }
                }
                Ok(None) => break,
                Err(e) => return Err(format!("control channel: {e}")),
            }
        }
        match control.read(&mut chunk) {
            Ok(0) => return Ok(None),
            Ok(n) => lines.push(&chunk[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            // A broken lifeline is the adapter's end, like EOF.
            Err(_) => return Ok(None),
        }
    };
    let len = usize::try_from(bytes)
        .ok()
        .filter(|&n| n <= order::MAX_ORDER_BYTES)
        .ok_or_else(|| format!("a run order of {bytes} bytes exceeds the bound"))?;
    let mut buf = lines.take_rest();
    if buf.len() > len {
        return Err("unexpected bytes after the run order".into());
    }
    let have = buf.len();
    buf.resize(len, 0);
    let _ = control.set_read_timeout(Some(ORDER_READ_BOUND));
    control
        .read_exact(&mut buf[have..])
        .map_err(|e| format!("cannot read the run order: {e}"))?;
    order::decode(&buf).map(Some)
}

/// Starts `program` as the leader of a new session and process group (SUP-1) with `stdio`
/// (stdin, stdout, stderr) and, when given, exactly `env` (else this process's, which is the
/// native environment). Returns its pid; it is never waited on through std: the leader is
/// observed with WNOWAIT and reaped by hand once its group is dead (SUP-1 pinning).
fn start_leader(
    program: &OsStr,
    args: &[OsString],
    cwd: &std::path::Path,
    env: Option<&[(OsString, OsString)]>,
    stdio: [Stdio; 3],
) -> Result<u32, String> {
    let [stdin, stdout, stderr] = stdio;
    let mut cmd = std::process::Command::new(program);
    cmd.args(args)
        .current_dir(cwd)
        .stdin(stdin)
        .stdout(stdout)
        .stderr(stderr);
    if let Some(env) = env {
        cmd.env_clear().envs(env.iter().map(|(k, v)| (k, v)));
    }
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
            program.to_string_lossy(),
            cwd.display()
        )
    })?;
    let pid = child.id();
    drop(child);
    // Closes our copies of the ends the native process got (a stdin pipe's read end, the run's
    // stdout/stderr write ends): only the native group holds them now, so the adapter's writes
    // fail with EPIPE and its reads see EOF once the group is gone.
    drop(cmd);
    Ok(pid)
}

/// Takes an inherited pipe end (`--stdin-fd`, `--then-run`), after checking that it is an open
/// pipe.
fn take_pipe(fd: i32, flag: &str) -> Result<OwnedFd, String> {
    // SAFETY: F_GETFD only reads the descriptor flags; it fails with EBADF for a closed `fd`.
    if unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1 {
        return Err(format!(
            "{flag} {fd} is not open: {}",
            io::Error::last_os_error()
        ));
    }
    // SAFETY: `fd` is open (checked above), was passed to this process for exactly this purpose
    // by the adapter (`client::pass_fds`), and nothing else in the process uses it (each flag's
    // descriptors are taken once).
    let owned = unsafe { OwnedFd::from_raw_fd(fd) };
    let st = fstat(owned.as_fd()).map_err(|e| format!("cannot inspect {flag} {fd}: {e}"))?;
    if SFlag::from_bits_truncate(st.st_mode) & SFlag::S_IFMT != SFlag::S_IFIFO {
        return Err(format!("{flag} {fd} is not a pipe"));
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
                then_run: None,
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
    fn parse_args_reads_the_run_descriptors_after_a_check() {
        let a = parse_args(&os(&[
            "--grace-ms",
            "10",
            "--then-run",
            "7,8,9",
            "--cwd",
            "/",
            "--",
            "claude",
            "--version",
        ]))
        .unwrap();
        assert_eq!(a.then_run, Some([7, 8, 9]));
        for bad in ["7,8", "7,8,9,10", "1,8,9", "7,x,9", ""] {
            let argv = os(&[
                "--grace-ms",
                "1",
                "--then-run",
                bad,
                "--cwd",
                "/",
                "--",
                "c",
            ]);
            assert!(parse_args(&argv).is_err(), "{bad}");
        }
    }

    #[test]
    fn await_order_takes_the_run_line_and_its_order_or_eof_as_the_no_go() {
        let spec = SpawnSpec::new("/bin/true", vec!["x".into()], "/", vec![]);
        let order = order::encode(&spec).unwrap();
        let (theirs, mut ours) = UnixStream::pair().unwrap();
        // An ignored command first, then the go; the order arrives in the same writes.
        ours.write_all(&protocol::encode(&Command::Terminate))
            .unwrap();
        ours.write_all(&protocol::encode(&Command::Run {
            bytes: u64::try_from(order.len()).unwrap(),
        }))
        .unwrap();
        ours.write_all(&order).unwrap();
        let got = await_order(&theirs).unwrap().expect("a go");
        assert_eq!(got.program, spec.program);
        assert_eq!(got.args, spec.args);

        drop(ours);
        assert!(await_order(&theirs).unwrap().is_none(), "EOF is the no-go");

        let (theirs, mut ours) = UnixStream::pair().unwrap();
        let over = u64::try_from(order::MAX_ORDER_BYTES).unwrap() + 1;
        ours.write_all(&protocol::encode(&Command::Run { bytes: over }))
            .unwrap();
        assert!(await_order(&theirs).is_err(), "an order over the bound");
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
