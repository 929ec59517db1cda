//! The supervisor process itself (`claude-mcp-adapter __supervise`): starts the native process
//! as the leader of a new session and process group, pins it, and ends with the whole group dead
//! (SUP-1..3). Plain threads and blocking calls: no tokio runtime runs here.
//!
//! It is started ahead of its job, often before the run it will serve exists (a spare, see
//! `client.rs`), with no argument beyond the subcommand, an empty environment, cwd `/`, fd 0 =
//! its end of the control socket ([`crate::protocol`]) and fds 1 and 2 = `/dev/null`; anything
//! else it inherited is made close-on-exec first. Everything about the job comes over the
//! control socket, in this order:
//!
//! 1. the descriptor frame ([`crate::fds`]): the write ends of the native stdout and stderr pipes,
//!    then with [`crate::StdinMode::Pipe`] the read end of the native stdin pipe, then with
//!    `then_run` the run's three ends (below); received close-on-exec. EOF before it (the adapter
//!    retired the spare, exited or died) ends the supervisor with nothing started;
//! 2. a [`Command::Start`] line and the job's [`crate::order`] (program, argv, cwd, the complete
//!    scrubbed native environment, grace, stdin mode; NAT-8), read with a bound. A job whose
//!    descriptors do not match it starts nothing (`spawn_failed`).
//!
//! With `then_run` the native process is the run's version check (NAT-2, C-NAT-2), and the same
//! supervisor then starts the run: after the check's `cleanup` report it waits on the control
//! socket for the adapter's go ([`Command::Run`] and the run's order) or no-go (EOF), and starts
//! the run with the frame's last three descriptors: the write ends of the run's stdout and stderr
//! pipes and the read end of its stdin pipe (used with [`crate::StdinMode::Pipe`], else closed).
//! The check never sees them: they stay close-on-exec.

use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::process::{ExitCode, Stdio};
use std::time::Duration;

use nix::sys::signal::SigSet;
use nix::sys::stat::{SFlag, fstat};

use crate::protocol::{self, Command, LineBuffer, Report};
use crate::report::{Reporter, handled_signals};
use cmk_procfs as procfs;

use crate::{SpawnSpec, StdinMode, fds, order};

/// Bound on one report write: a wedged adapter must not hang the supervisor.
const REPORT_WRITE_BOUND: Duration = Duration::from_secs(5);

/// Bound on reading an order once its line arrived (the adapter writes both at once).
const ORDER_READ_BOUND: Duration = Duration::from_secs(30);

/// Entry point; see the module doc for the descriptors and messages it expects. `argv` (after
/// the subcommand) must be empty: the job comes over the control socket.
pub(crate) fn main(argv: &[OsString]) -> ExitCode {
    let control = match take_control_socket() {
        Ok(c) if argv.is_empty() => c,
        Ok(_) => return internal_only(&format!("unexpected arguments {argv:?}")),
        Err(e) => return internal_only(&e),
    };
    let _ = control.set_write_timeout(Some(REPORT_WRITE_BOUND));
    let mut reporter = Reporter { control };
    match prepare_and_spawn(&reporter.control) {
        // Retired before a job came: nothing was started.
        Ok(None) => ExitCode::SUCCESS,
        Ok(Some(started)) => {
            reporter.send(&Report::Spawned {
                pid: started.leader,
            });
            crate::watch::supervise(&mut reporter, started.leader, started.grace);
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

fn internal_only(why: &str) -> ExitCode {
    // Written at once and never panicking: stderr may be closed.
    let mut err = io::stderr().lock();
    let _ = writeln!(
        err,
        "claude-mcp-adapter: {} is internal: {why}",
        crate::SUBCOMMAND
    )
    .and_then(|()| err.flush());
    ExitCode::from(2)
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
    /// `then_run`: the run's descriptors, kept for the run after the check.
    then_run: Option<RunFds>,
}

/// The run's ends of its stdio pipes (`then_run`), held until the run starts.
struct RunFds {
    stdout: OwnedFd,
    stderr: OwnedFd,
    stdin: OwnedFd,
}

/// The job as it arrived: the order and the descriptors the frame brought for it.
struct Job {
    spec: SpawnSpec,
    stdio: [Stdio; 3],
    then_run: Option<RunFds>,
}

/// Sets up the supervisor, waits for its job on `control` and starts the native process;
/// `Ok(None)` when the adapter let go before sending a job.
fn prepare_and_spawn(control: &UnixStream) -> Result<Option<Started>, String> {
    // NAT-8: nothing this process inherited beyond 0/1/2 may reach the native process. Fds we open
    // or receive from here on are close-on-exec already (std and nix default, MSG_CMSG_CLOEXEC).
    mark_inherited_fds_cloexec()?;
    let Some(job) = take_job(control)? else {
        return Ok(None);
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
    // Only the native group holds the write ends of its stdout/stderr from here on (this
    // process's copies close with the spawn), so their EOF means the group closed them (SUP-4's
    // bounded drain covers an escaped holder).
    let leader = start_leader(&job.spec, job.stdio)?;
    Ok(Some(Started {
        leader,
        grace: job.spec.grace,
        then_run: job.then_run,
    }))
}

/// After the version check's cleanup report (`then_run`): waits for the adapter's go or no-go
/// and starts the run, supervised exactly like a first native process (SUP-1..3). The wait has no
/// timer: the adapter's answer, or the lifeline's EOF when it dies or lets go, ends it.
fn run_after_check(reporter: &mut Reporter, fds: RunFds) -> ExitCode {
    let order = match await_order(&reporter.control, Expect::Run) {
        Ok(Some((order, _))) => order,
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
        &order,
        [stdin, Stdio::from(fds.stdout), Stdio::from(fds.stderr)],
    );
    match started {
        Ok(leader) => {
            reporter.send(&Report::Spawned { pid: leader });
            crate::watch::supervise(reporter, leader, order.grace);
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

/// Which command carries the order [`await_order`] waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// The job, right after the descriptor frame: [`Command::Start`].
    Start,
    /// The run after a version check: [`Command::Run`].
    Run,
}

/// Reads the control socket until the expected command's line and the order after it (`Some`,
/// with `then_run` for a start), or its EOF (`None`: the adapter let go). Other commands are
/// ignored (nothing runs to terminate).
fn await_order(
    mut control: &UnixStream,
    expect: Expect,
) -> Result<Option<(SpawnSpec, bool)>, String> {
    let mut lines = LineBuffer::default();
    let mut chunk = [0u8; 4096];
    let (bytes, then_run) = 'wait: loop {
        loop {
            match lines.next_line() {
                Ok(Some(line)) => match (expect, serde_json::from_slice(&line)) {
                    (Expect::Run, Ok(Command::Run { bytes })) => break 'wait (bytes, false),
                    (Expect::Start, Ok(Command::Start { bytes, then_run })) => {
                        break 'wait (bytes, then_run);
                    }
                    _ => {}
                },
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
        .ok_or_else(|| format!("an order of {bytes} bytes exceeds the bound"))?;
    let mut buf = lines.take_rest();
    if buf.len() > len {
        return Err("unexpected bytes after the order".into());
    }
    let have = buf.len();
    buf.resize(len, 0);
    let _ = control.set_read_timeout(Some(ORDER_READ_BOUND));
    let read = control
        .read_exact(&mut buf[have..])
        .map_err(|e| format!("cannot read the order: {e}"));
    let _ = control.set_read_timeout(None);
    read?;
    order::decode(&buf).map(|spec| Some((spec, then_run)))
}

/// Starts `spec.program` with its argv, cwd and exactly its environment (the scrubbed native
/// one, NAT-8) as the leader of a new session and process group (SUP-1), with `stdio` (stdin,
/// stdout, stderr). Returns its pid; it is never waited on through std: the leader is observed
/// with WNOWAIT and reaped by hand once its group is dead (SUP-1 pinning).
fn start_leader(spec: &SpawnSpec, stdio: [Stdio; 3]) -> Result<u32, String> {
    let [stdin, stdout, stderr] = stdio;
    let mut cmd = std::process::Command::new(&spec.program);
    cmd.args(&spec.args)
        .current_dir(&spec.cwd)
        .env_clear()
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .stdin(stdin)
        .stdout(stdout)
        .stderr(stderr);
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
            spec.program.display(),
            spec.cwd.display()
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

/// Waits (without a timer: a spare waits for as long as the adapter keeps it) for the job: the
/// descriptor frame, then the [`Command::Start`] line and its order. `Ok(None)` on EOF before the
/// frame (retired: nothing to start); `Err` for a job that does not fit its descriptors.
fn take_job(control: &UnixStream) -> Result<Option<Job>, String> {
    let Some(fds) = fds::receive(control, None)? else {
        return Ok(None);
    };
    let Some((spec, then_run)) = await_order(control, Expect::Start)? else {
        return Err("the adapter closed the control socket before sending the job".into());
    };
    let pipe = spec.stdin == StdinMode::Pipe;
    let expected = 2 + usize::from(pipe) + if then_run { 3 } else { 0 };
    if fds.len() != expected {
        return Err(format!(
            "expected {expected} descriptor(s) from the adapter, got {}",
            fds.len()
        ));
    }
    let mut passed = fds.into_iter();
    let mut next_pipe = |what: &str| {
        passed
            .next()
            .ok_or_else(|| format!("missing the {what} descriptor"))
            .and_then(|fd| check_pipe(fd, what))
    };
    let stdout = Stdio::from(next_pipe("native stdout")?);
    let stderr = Stdio::from(next_pipe("native stderr")?);
    let stdin = if pipe {
        Stdio::from(next_pipe("native stdin")?)
    } else {
        Stdio::null() // NAT-7
    };
    let then_run = if then_run {
        Some(RunFds {
            stdout: next_pipe("run's stdout")?,
            stderr: next_pipe("run's stderr")?,
            stdin: next_pipe("run's stdin")?,
        })
    } else {
        None
    };
    Ok(Some(Job {
        spec,
        stdio: [stdin, stdout, stderr],
        then_run,
    }))
}

fn check_pipe(fd: OwnedFd, what: &str) -> Result<OwnedFd, String> {
    let st = fstat(fd.as_fd()).map_err(|e| format!("cannot inspect the {what} descriptor: {e}"))?;
    if SFlag::from_bits_truncate(st.st_mode) & SFlag::S_IFMT != SFlag::S_IFIFO {
        return Err(format!("the {what} descriptor is not a pipe"));
    }
    Ok(fd)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn pipe() -> (OwnedFd, OwnedFd) {
        nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).unwrap()
    }

    /// Sends a job as the adapter does: the frame with `fds`, then the start line and the order.
    fn send_job(
        adapter: &mut UnixStream,
        fds: &[std::os::fd::BorrowedFd<'_>],
        spec: &SpawnSpec,
        then_run: bool,
    ) {
        crate::fds::send(adapter.as_fd(), fds).unwrap();
        let order = order::encode(spec).unwrap();
        adapter
            .write_all(&protocol::encode(&Command::Start {
                bytes: u64::try_from(order.len()).unwrap(),
                then_run,
            }))
            .unwrap();
        adapter.write_all(&order).unwrap();
    }

    fn spec(stdin: StdinMode) -> SpawnSpec {
        SpawnSpec {
            stdin,
            ..SpawnSpec::new(
                "/bin/true",
                vec!["x".into()],
                "/",
                vec![("K".into(), "v".into())],
            )
        }
    }

    #[test]
    fn a_job_brings_its_order_and_the_native_stdio_then_the_run_ends() {
        let pipes: Vec<_> = (0..6).map(|_| pipe()).collect();
        let (sup, mut adapter) = UnixStream::pair().unwrap();
        // stdout, stderr (write ends), stdin (read end), then the run's stdout, stderr, stdin.
        let sent: Vec<_> = pipes
            .iter()
            .enumerate()
            .map(|(i, (r, w))| {
                if matches!(i, 2 | 5) {
                    r.as_fd()
                } else {
                    w.as_fd()
                }
            })
            .collect();
        send_job(&mut adapter, &sent, &spec(StdinMode::Pipe), true);
        let job = take_job(&sup).unwrap().expect("a job");
        assert_eq!(job.spec.program, std::path::PathBuf::from("/bin/true"));
        assert_eq!(job.spec.env, vec![("K".into(), "v".into())]);
        let run = job.then_run.expect("the run's ends");
        // Each received run end is the end sent in its place: a byte written into the pipe
        // comes out of the other end.
        for ((r, w), got, is_read) in [
            (&pipes[3], &run.stdout, false),
            (&pipes[4], &run.stderr, false),
            (&pipes[5], &run.stdin, true),
        ] {
            let mut b = [0u8; 1];
            if is_read {
                nix::unistd::write(w, b"x").unwrap();
                assert_eq!(nix::unistd::read(got, &mut b).unwrap(), 1);
            } else {
                nix::unistd::write(got, b"x").unwrap();
                assert_eq!(nix::unistd::read(r, &mut b).unwrap(), 1);
            }
        }
    }

    #[test]
    fn a_job_whose_descriptors_do_not_fit_its_order_starts_nothing() {
        // EOF before the frame: retired, no job, no error.
        let (sup, adapter) = UnixStream::pair().unwrap();
        drop(adapter);
        assert!(take_job(&sup).unwrap().is_none());
        // The frame, then EOF before the order.
        let (sup, adapter) = UnixStream::pair().unwrap();
        let (r, w) = pipe();
        crate::fds::send(adapter.as_fd(), &[w.as_fd(), w.as_fd()]).unwrap();
        drop(adapter);
        let err = take_job(&sup).err().expect("no order");
        assert!(err.contains("before sending the job"), "{err}");
        // A stdin pipe ordered, two descriptors sent.
        let (sup, mut adapter) = UnixStream::pair().unwrap();
        send_job(
            &mut adapter,
            &[w.as_fd(), w.as_fd()],
            &spec(StdinMode::Pipe),
            false,
        );
        let err = take_job(&sup).err().expect("a wrong count");
        assert!(err.contains("expected 3 descriptor(s)"), "{err}");
        // The right count, but not pipes.
        let (sup, mut adapter) = UnixStream::pair().unwrap();
        let other = adapter.try_clone().unwrap();
        send_job(
            &mut adapter,
            &[other.as_fd(), w.as_fd()],
            &spec(StdinMode::Null),
            false,
        );
        let err = take_job(&sup).err().expect("not a pipe");
        assert!(err.contains("not a pipe"), "{err}");
        drop(r);
    }

    #[test]
    fn await_order_takes_its_line_and_order_or_eof_as_the_no_go() {
        let spec = SpawnSpec::new("/bin/true", vec!["x".into()], "/", vec![]);
        let order = order::encode(&spec).unwrap();
        let bytes = u64::try_from(order.len()).unwrap();
        let (theirs, mut ours) = UnixStream::pair().unwrap();
        // Ignored commands first (a start is no run), then the go; the order arrives at once.
        ours.write_all(&protocol::encode(&Command::Terminate))
            .unwrap();
        ours.write_all(&protocol::encode(&Command::Start {
            bytes,
            then_run: false,
        }))
        .unwrap();
        ours.write_all(&protocol::encode(&Command::Run { bytes }))
            .unwrap();
        ours.write_all(&order).unwrap();
        let (got, then_run) = await_order(&theirs, Expect::Run).unwrap().expect("a go");
        assert_eq!(got.program, spec.program);
        assert_eq!(got.args, spec.args);
        assert!(!then_run);
        assert_eq!(theirs.read_timeout().unwrap(), None, "unbounded again");

        drop(ours);
        assert!(
            await_order(&theirs, Expect::Run).unwrap().is_none(),
            "EOF is the no-go"
        );

        let (theirs, mut ours) = UnixStream::pair().unwrap();
        ours.write_all(&protocol::encode(&Command::Start {
            bytes,
            then_run: true,
        }))
        .unwrap();
        ours.write_all(&order).unwrap();
        let (_, then_run) = await_order(&theirs, Expect::Start).unwrap().expect("a job");
        assert!(then_run);

        let (theirs, mut ours) = UnixStream::pair().unwrap();
        let over = u64::try_from(order::MAX_ORDER_BYTES).unwrap() + 1;
        ours.write_all(&protocol::encode(&Command::Run { bytes: over }))
            .unwrap();
        assert!(
            await_order(&theirs, Expect::Run).is_err(),
            "an order over the bound"
        );
    }
}
