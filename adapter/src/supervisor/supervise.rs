//! The supervisor process itself (`claude-mcp-adapter __supervise …`): starts the native process
//! as the leader of a new session and process group, pins it, and ends with the whole group dead
//! (SUP-1..3). Plain threads and blocking calls: no tokio runtime runs here.
//!
//! Descriptors on entry: 0 = its end of the control socket ([`super::protocol`]), 1 and 2 = the
//! write ends of the native stdout and stderr pipes; nothing else (anything else inherited is
//! made close-on-exec). Its environment is the native environment, already complete and scrubbed
//! by the engine (NAT-8); its argv is `--grace-ms N [--stdin-pipe] [--then-run] --cwd DIR --
//! PROGRAM ARGS…`. With either flag, the first thing on the control socket is the adapter's
//! descriptor frame ([`super::fds`]), received close-on-exec before anything starts; EOF, a wait
//! past [`SPAWN_REPORT_BOUND`] or a frame with another count starts nothing. With `--stdin-pipe`
//! (the engine asked for [`super::StdinMode::Pipe`]) its first descriptor is the read end of the
//! native stdin pipe: it becomes the native process's fd 0 and is closed here right after the
//! spawn.
//!
//! With `--then-run` the native process is the run's version check (NAT-2, C-NAT-2), and the
//! same supervisor then starts the run: after the check's `cleanup` report it waits on the
//! control socket for the adapter's go ([`Command::Run`] and the run's [`super::order`]) or no-go
//! (EOF), and starts the run with the frame's next three descriptors: the write ends of the run's
//! stdout and stderr pipes and the read end of its stdin pipe (used with
//! [`super::StdinMode::Pipe`], else closed). The check never sees them: they stay close-on-exec.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{ExitCode, Stdio};
use std::time::Duration;

use nix::sys::signal::{SigSet, Signal};
use nix::sys::stat::{SFlag, fstat};

use super::protocol::{self, Command, LineBuffer, MAX_SURVIVORS_LISTED, Report};
use super::{SPAWN_REPORT_BOUND, SpawnSpec, StdinMode, fds, order, procfs};

/// Bound on one report write: a wedged adapter must not hang the supervisor.
const REPORT_WRITE_BOUND: Duration = Duration::from_secs(5);

/// Bound on reading a run's order once its `run` line arrived (the adapter writes both at once).
const ORDER_READ_BOUND: Duration = Duration::from_secs(30);

/// Parsed supervisor argv.
#[derive(Debug, PartialEq, Eq)]
struct Args {
    grace: Duration,
    /// `--stdin-pipe`: the descriptor frame starts with the read end of the native stdin pipe;
    /// else the native stdin is `/dev/null`.
    stdin_pipe: bool,
    /// `--then-run`: the descriptor frame ends with the run's stdout, stderr and stdin ends (the
    /// native process is the version check, the run follows on the adapter's go).
    then_run: bool,
    cwd: PathBuf,
    program: OsString,
    args: Vec<OsString>,
}

fn parse_args(argv: &[OsString]) -> Result<Args, String> {
    let mut grace = None;
    let mut stdin_pipe = false;
    let mut then_run = false;
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
            Some("--stdin-pipe") => stdin_pipe = true,
            Some("--then-run") => then_run = true,
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
        stdin_pipe,
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
    match prepare_and_spawn(argv, &reporter.control) {
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

/// Sets up the supervisor, takes the descriptor frame from `control` and starts the native
/// process.
fn prepare_and_spawn(argv: &[OsString], control: &UnixStream) -> Result<Started, String> {
    let args = parse_args(argv)?;
    // NAT-8: nothing this process inherited beyond 0/1/2 may reach the native process. Fds we open
    // or receive from here on are close-on-exec already (std and nix default, MSG_CMSG_CLOEXEC).
    mark_inherited_fds_cloexec()?;
    let (stdin, then_run) = take_frame(&args, control)?;
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

/// The descriptor frame the argv announced (none: nothing read): the native stdin (`/dev/null`
/// without `--stdin-pipe`, NAT-7: never the MCP stream) and, with `--then-run`, the run's ends.
/// `Err` before anything was started (SPAWN_REPORT_BOUND bounds the wait).
fn take_frame(args: &Args, control: &UnixStream) -> Result<(Stdio, Option<RunFds>), String> {
    let expected = usize::from(args.stdin_pipe) + if args.then_run { 3 } else { 0 };
    let mut passed = if expected > 0 {
        fds::receive(control, expected, SPAWN_REPORT_BOUND)?
    } else {
        Vec::new()
    }
    .into_iter();
    let mut next_pipe = |what: &str| {
        passed
            .next()
            .ok_or_else(|| format!("missing the {what} descriptor"))
            .and_then(|fd| check_pipe(fd, what))
    };
    let stdin = if args.stdin_pipe {
        Stdio::from(next_pipe("native stdin")?)
    } else {
        Stdio::null()
    };
    let then_run = if args.then_run {
        Some(RunFds {
            stdout: next_pipe("run's stdout")?,
            stderr: next_pipe("run's stderr")?,
            stdin: next_pipe("run's stdin")?,
        })
    } else {
        None
    };
    Ok((stdin, then_run))
}

/// `fd` when it is a pipe (a passed descriptor of the frame, named `what` in errors).
fn check_pipe(fd: OwnedFd, what: &str) -> Result<OwnedFd, String> {
    let st = fstat(fd.as_fd()).map_err(|e| format!("cannot inspect the {what} descriptor: {e}"))?;
    if SFlag::from_bits_truncate(st.st_mode) & SFlag::S_IFMT != SFlag::S_IFIFO {
        return Err(format!("the {what} descriptor is not a pipe"));
    }
    Ok(fd)
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
                stdin_pipe: false,
                then_run: false,
                cwd: "/tmp".into(),
                program: "claude".into(),
                args: os(&["-p", "--", "-x"]),
            }
        );
    }

    #[test]
    fn parse_args_reads_which_descriptors_the_frame_brings() {
        let argv = |flags: &[&str]| {
            let mut v = vec!["--grace-ms", "10"];
            v.extend_from_slice(flags);
            v.extend_from_slice(&["--cwd", "/", "--", "claude", "--version"]);
            parse_args(&os(&v)).unwrap()
        };
        let a = argv(&["--stdin-pipe"]);
        assert!(a.stdin_pipe && !a.then_run);
        let a = argv(&["--then-run"]);
        assert!(!a.stdin_pipe && a.then_run);
        let a = argv(&["--stdin-pipe", "--then-run"]);
        assert!(a.stdin_pipe && a.then_run);
        assert_eq!(a.args, os(&["--version"]));
        // The flags take no value: the descriptors come in the frame, not as numbers.
        let numbered = [
            "--grace-ms",
            "1",
            "--then-run",
            "7,8,9",
            "--cwd",
            "/",
            "--",
            "c",
        ];
        assert!(parse_args(&os(&numbered)).is_err());
    }

    #[test]
    fn the_frame_gives_the_native_stdin_then_the_run_ends() {
        let args = Args {
            stdin_pipe: true,
            then_run: true,
            ..parse_args(&os(&["--grace-ms", "1", "--cwd", "/", "--", "c"])).unwrap()
        };
        let pipes: Vec<_> = (0..4)
            .map(|_| nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).unwrap())
            .collect();
        let (sup, adapter) = UnixStream::pair().unwrap();
        let sent: Vec<_> = pipes.iter().map(|(r, _)| r.as_fd()).collect();
        fds::send(adapter.as_fd(), &sent).unwrap();
        let (_stdin, run) = take_frame(&args, &sup).unwrap();
        let run = run.expect("the run's ends");
        // Each received end is the read end of the pipe sent in its place.
        for ((_, w), got) in pipes[1..]
            .iter()
            .zip([&run.stdout, &run.stderr, &run.stdin])
        {
            nix::unistd::write(w, b"x").unwrap();
            let mut b = [0u8; 1];
            assert_eq!(nix::unistd::read(got, &mut b).unwrap(), 1);
        }
    }

    #[test]
    fn a_frame_that_never_comes_or_is_wrong_is_an_error_before_anything_starts() {
        let args = parse_args(&os(&[
            "--grace-ms",
            "1",
            "--stdin-pipe",
            "--cwd",
            "/",
            "--",
            "c",
        ]))
        .unwrap();
        // EOF: the adapter died before passing the descriptors.
        let (sup, adapter) = UnixStream::pair().unwrap();
        drop(adapter);
        let err = take_frame(&args, &sup).err().expect("no frame");
        assert!(err.contains("closed the control socket"), "{err}");
        // One descriptor expected, two sent.
        let (sup, adapter) = UnixStream::pair().unwrap();
        let (r, _w) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).unwrap();
        fds::send(adapter.as_fd(), &[r.as_fd(), r.as_fd()]).unwrap();
        let err = take_frame(&args, &sup).err().expect("a wrong count");
        assert!(err.contains("expected 1 descriptor(s)"), "{err}");
        // The right count, but not a pipe.
        let (sup, adapter) = UnixStream::pair().unwrap();
        fds::send(adapter.as_fd(), &[adapter.as_fd()]).unwrap();
        let err = take_frame(&args, &sup).err().expect("not a pipe");
        assert!(err.contains("not a pipe"), "{err}");
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
