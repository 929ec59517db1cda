//! The adapter's side of a supervisor: starting it, the lifeline it holds, and reading its reports
//! (SUP-1..3). Everything here runs on the adapter's tokio runtime.

use std::ffi::OsStr;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use nix::fcntl::OFlag;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::UnixStream;
use tokio::net::unix::pipe::{Receiver, Sender};
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::watch;

use crate::protocol::{self, Command, LineBuffer, Report};
use crate::{
    CleanupReport, ExitStatus, KILL_CONFIRM_BOUND, REPORT_SLACK, SPAWN_REPORT_BOUND, SpawnError,
    SpawnSpec, StdinMode, fds, spare,
};

/// Bound on reaping the supervisor process after its last report.
const SUPERVISOR_EXIT_BOUND: Duration = Duration::from_secs(5);

/// The adapter's end of the lifeline, shared with [`SupervisorHandle`]s. Closing it (or the
/// adapter's death) makes the supervisor SIGKILL the group at once (SUP-2).
#[derive(Debug)]
struct Lifeline {
    write: Mutex<Option<OwnedWriteHalf>>,
    terminate: watch::Sender<bool>,
}

impl Lifeline {
    fn terminate(&self) {
        // Idempotent: only the first request writes a command (SUP-3).
        if self.terminate.send_replace(true) {
            return;
        }
        let guard = self.write.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(w) = guard.as_ref() {
            // A few bytes on a socket nothing else writes to: the buffer cannot be full, so a
            // non-blocking write completes. Failure means the supervisor is gone already, which
            // the report channel's EOF will tell.
            let _ = w.try_write(&protocol::encode(&Command::Terminate));
        }
    }

    fn close(&self) {
        // Dropping the write half shuts the socket's write direction down: EOF for the supervisor.
        drop(
            self.write
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take(),
        );
    }
}

/// A cloneable handle to ask for termination while someone else awaits
/// [`Supervised::exited`] or [`Supervised::cleanup`]. It does not keep the lifeline open: once the
/// [`Supervised`] is dropped, the group is killed and [`SupervisorHandle::terminate`] does nothing.
#[derive(Debug, Clone)]
pub struct SupervisorHandle {
    lifeline: Arc<Lifeline>,
    pid: u32,
}

impl SupervisorHandle {
    /// Same as [`Supervised::terminate`].
    pub fn terminate(&self) {
        self.lifeline.terminate();
    }

    /// The native group leader's pid (= its process group id).
    #[must_use]
    pub fn native_pid(&self) -> u32 {
        self.pid
    }
}

/// The report channel with what it said so far.
#[derive(Debug)]
struct Reports {
    read: OwnedReadHalf,
    lines: LineBuffer,
    exited: Option<ExitStatus>,
    cleanup: Option<CleanupReport>,
    /// Why the channel stopped yielding reports (EOF, error, corrupt line).
    ended: Option<String>,
}

impl Reports {
    /// Reads until one more report arrives (recorded in `self`) or the channel ends. Cancel-safe:
    /// bytes land in `self.lines` only when a read completed.
    async fn next(&mut self) -> Option<Report> {
        let mut chunk = [0u8; 1024];
        loop {
            if self.ended.is_some() {
                return None;
            }
            match self.lines.next_line() {
                Ok(Some(line)) => match serde_json::from_slice::<Report>(&line) {
                    Ok(report) => {
                        self.record(&report);
                        return Some(report);
                    }
                    Err(e) => {
                        self.ended = Some(format!("unreadable supervisor report: {e}"));
                        return None;
                    }
                },
                Ok(None) => {}
                Err(e) => {
                    self.ended = Some(format!("supervisor report channel: {e}"));
                    return None;
                }
            }
            match self.read.read(&mut chunk).await {
                Ok(0) => {
                    self.ended = Some(if self.lines.unfinished() > 0 {
                        "supervisor ended in the middle of a report".into()
                    } else {
                        "supervisor ended without acknowledging cleanup".into()
                    });
                }
                Ok(n) => self.lines.push(&chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => self.ended = Some(format!("supervisor report channel failed: {e}")),
            }
        }
    }

    fn record(&mut self, report: &Report) {
        match report {
            Report::Exited { code, signal } => {
                self.exited.get_or_insert(ExitStatus {
                    code: *code,
                    signal: *signal,
                });
            }
            Report::Cleanup {
                confirmed,
                survivors,
                error,
            } => {
                self.cleanup.get_or_insert(CleanupReport {
                    confirmed: *confirmed,
                    survivors: survivors.clone(),
                    error: error.clone(),
                });
            }
            Report::Spawned { .. } | Report::SpawnFailed { .. } => {}
        }
    }

    fn settled(&self) -> bool {
        self.cleanup.is_some() || self.ended.is_some()
    }
}

/// A running, supervised native process.
///
/// Keep it alive until [`Supervised::cleanup`] returned: dropping it closes the lifeline, and
/// the supervisor then SIGKILLs the whole group at once (SUP-2).
#[derive(Debug)]
pub struct Supervised {
    /// The native process's stdout (read end of its pipe). Only the native group holds the write
    /// end, so EOF means the group closed it; a descendant that left the group may hold it open
    /// longer (SUP-4): drain it with a bound once [`Supervised::exited`] returned.
    pub stdout: Option<Receiver>,
    /// The native process's stderr (read end of its pipe), same rules as `stdout`.
    pub stderr: Option<Receiver>,
    /// The native process's stdin (write end of its pipe) with [`StdinMode::Pipe`]; `None` with
    /// [`StdinMode::Null`]. This is the only copy of the write end (the supervisor never holds
    /// one), so dropping it is EOF for the native process; the native group holds the only read
    /// end, so once the group is gone a write fails with `EPIPE` rather than blocking.
    pub stdin: Option<Sender>,
    pid: u32,
    grace: Duration,
    lifeline: Arc<Lifeline>,
    terminate_requested: watch::Receiver<bool>,
    reports: Reports,
    process: Option<tokio::process::Child>,
    /// The executable the supervisor was started from (a spare for the next run is started from
    /// the same).
    exe: std::ffi::OsString,
    /// A version check started with [`spawn_check_with`]: the adapter's ends of the run's pipes,
    /// until [`Supervised::run`] starts the run under the same supervisor.
    then_run: Option<RunEnds>,
}

/// The adapter's ends of the pipes of a run that follows a version check under the same
/// supervisor (created with the check, so the supervisor already holds the other ends).
#[derive(Debug)]
struct RunEnds {
    stdout: OwnedFd,
    stderr: OwnedFd,
    stdin: OwnedFd,
}

impl Supervised {
    /// The native group leader's pid (= its process group id).
    #[must_use]
    pub fn native_pid(&self) -> Option<u32> {
        Some(self.pid)
    }

    /// A cloneable handle for [`Supervised::terminate`] from other tasks.
    #[must_use]
    pub fn handle(&self) -> SupervisorHandle {
        SupervisorHandle {
            lifeline: Arc::clone(&self.lifeline),
            pid: self.pid,
        }
    }

    /// Asks for termination: SIGTERM to the group, [`SpawnSpec::grace`], SIGKILL, reap (SUP-3).
    /// Idempotent; returns at once. [`Supervised::exited`] and [`Supervised::cleanup`] report the
    /// outcome.
    pub fn terminate(&self) {
        self.lifeline.terminate();
    }

    /// Closes the lifeline now: the supervisor SIGKILLs the group at once (SUP-2), then still
    /// reports `exited` and `cleanup`. Dropping the [`Supervised`] does the same.
    pub fn kill_now(&self) {
        self.lifeline.close();
    }

    /// Waits for the group leader to end; the supervisor reports it before reaping it, so its pgid
    /// stays pinned while the rest of the group is killed. `None` when the supervisor's channel
    /// ended without an exit report (the process could not be observed; [`Supervised::cleanup`]
    /// then reports `confirmed: false`). Not bounded by itself: it lasts as long as the native
    /// process runs, so callers enforce the run's timeout and call [`Supervised::terminate`].
    /// Cancel-safe.
    pub async fn exited(&mut self) -> Option<ExitStatus> {
        while self.reports.exited.is_none() && !self.reports.settled() {
            self.reports.next().await;
        }
        self.reports.exited
    }

    /// Waits for the cleanup report (SUP-3): `confirmed: true` once no process of the group is
    /// left and the leader was reaped; `survivors` when some outlived SIGKILL (cleanup_failed);
    /// `confirmed: false` with an `error` and no survivors when the channel ended (or stayed
    /// silent) without an acknowledgement (cleanup_unconfirmed).
    ///
    /// It first waits, unbounded, for the leader's exit or a terminate request; from then on it is
    /// bounded by the grace plus `KILL_CONFIRM_BOUND` plus `REPORT_SLACK`. Cancel-safe;
    /// repeated calls return the same report.
    pub async fn cleanup(&mut self) -> CleanupReport {
        while self.reports.exited.is_none()
            && !self.reports.settled()
            && !*self.terminate_requested.borrow()
        {
            tokio::select! {
                _ = self.reports.next() => {}
                changed = self.terminate_requested.changed() => {
                    if changed.is_err() {
                        break;
                    }
                }
            }
        }
        let bound = self.grace + KILL_CONFIRM_BOUND + REPORT_SLACK;
        let reports = &mut self.reports;
        let waited = tokio::time::timeout(bound, async {
            while !reports.settled() {
                reports.next().await;
            }
        })
        .await;
        let report = match (&self.reports.cleanup, &self.reports.ended) {
            (Some(c), _) => c.clone(),
            (None, Some(why)) => unconfirmed(why.clone()),
            (None, None) => {
                debug_assert!(waited.is_err());
                // A silent supervisor: close the lifeline so it kills the group if it still can.
                self.lifeline.close();
                let why =
                    format!("no cleanup acknowledgement from the supervisor within {bound:?}");
                self.reports.ended = Some(why.clone());
                unconfirmed(why)
            }
        };
        self.reports.cleanup.get_or_insert_with(|| report.clone());
        if self.then_run.is_none() {
            self.reap_supervisor().await;
        }
        report
    }

    /// The adapter's go after a version check started with `spawn_check_with` (C-SUP-1): the
    /// same supervisor starts `spec` (its `program`, argv, cwd, environment, grace and stdin)
    /// with the run's pipes, and this returns the run's [`Supervised`], as `spawn_with` would.
    /// Only after [`Supervised::cleanup`] confirmed the check's group gone; otherwise, or when
    /// the supervisor cannot start the run, `Err` (`spawn_failed`) and nothing is left running.
    pub async fn run(mut self, spec: SpawnSpec) -> Result<Supervised, SpawnError> {
        let confirmed = self.reports.cleanup.as_ref().is_some_and(|c| c.confirmed);
        let Some(ends) = self.then_run.take().filter(|_| confirmed) else {
            self.release().await;
            return Err(SpawnError(
                "the supervisor has no confirmed version check to continue from".into(),
            ));
        };
        match self.start_run(ends, &spec).await {
            Ok(()) => Ok(self),
            Err(e) => {
                self.release().await;
                Err(e)
            }
        }
    }

    async fn start_run(&mut self, ends: RunEnds, spec: &SpawnSpec) -> Result<(), SpawnError> {
        let frame = order_frame(spec, |bytes| Command::Run { bytes })?;
        // Nobody else holds this supervisor's lifeline yet (no handle was given out for the
        // check's successor), so the write half is taken for the async write and put back.
        let write = self
            .lifeline
            .write
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        let Some(mut write) = write else {
            return Err(SpawnError("the supervisor's lifeline is closed".into()));
        };
        let sent = tokio::time::timeout(SPAWN_REPORT_BOUND, write.write_all(&frame)).await;
        // A fresh lifeline for the run: the check's terminate request (if any) is not the run's.
        let (terminate_tx, terminate_rx) = watch::channel(false);
        self.lifeline = Arc::new(Lifeline {
            write: Mutex::new(Some(write)),
            terminate: terminate_tx,
        });
        self.terminate_requested = terminate_rx;
        match sent {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(spawn_err("cannot send the run to the supervisor", e)),
            Err(_) => {
                return Err(SpawnError(format!(
                    "the supervisor did not take the run within {SPAWN_REPORT_BOUND:?}"
                )));
            }
        }
        self.reports.exited = None;
        self.reports.cleanup = None;
        self.pid = first_report(&mut self.reports, &self.lifeline).await?;
        self.grace = spec.grace;
        let stdin = match spec.stdin {
            StdinMode::Pipe => Some(ends.stdin),
            // The supervisor gave the run /dev/null and closed the pipe's read end.
            StdinMode::Null => None,
        };
        let (stdout, stderr, stdin) = register_pipes(ends.stdout, ends.stderr, stdin)
            .inspect_err(|_| self.lifeline.close())?;
        self.stdout = Some(stdout);
        self.stderr = Some(stderr);
        self.stdin = stdin;
        Ok(())
    }

    /// The adapter's no-go (or the end of a supervisor it is done with): closes the lifeline
    /// (SIGKILL to a group still running, SUP-2; a supervisor waiting for a run exits) and reaps
    /// the supervisor, bounded.
    pub async fn release(mut self) {
        self.lifeline.close();
        self.reap_supervisor().await;
    }

    async fn reap_supervisor(&mut self) {
        // Once it reported cleanup it exits at once; past the bound tokio reaps it when it does.
        // The handle is let go only after the wait ended: `cleanup` is cancel-safe, and a call
        // cancelled here (the engine selects on it beside the stream reads) must leave the reap
        // to the next call rather than drop the handle of a supervisor still exiting (the soak
        // saw such supervisors outlive their settled runs, bench/soak.md).
        if let Some(p) = self.process.as_mut() {
            let _ = tokio::time::timeout(SUPERVISOR_EXIT_BOUND, p.wait()).await;
            self.process = None;
            // The next run's supervisor is wanted now that this one's work is over; it starts at
            // the next quiet point (`spare::refill`).
            spare::want(&self.exe);
        }
    }
}

impl Drop for Supervised {
    fn drop(&mut self) {
        self.lifeline.close();
    }
}

fn unconfirmed(why: String) -> CleanupReport {
    CleanupReport {
        confirmed: false,
        survivors: Vec::new(),
        error: Some(why),
    }
}

fn spawn_err(what: &str, e: impl std::fmt::Display) -> SpawnError {
    SpawnError(format!("{what}: {e}"))
}

/// A command line announcing an order, and the order (`supervisor::order`) after it.
fn order_frame(spec: &SpawnSpec, command: impl Fn(u64) -> Command) -> Result<Vec<u8>, SpawnError> {
    let order = crate::order::encode(spec).map_err(SpawnError)?;
    let mut frame = protocol::encode(&command(u64::try_from(order.len()).unwrap_or(u64::MAX)));
    frame.extend_from_slice(&order);
    Ok(frame)
}

/// Starts `spec` under a supervisor from `supervisor_exe` and waits (bounded) for its first
/// report.
pub(super) async fn spawn_with(
    supervisor_exe: &OsStr,
    spec: SpawnSpec,
) -> Result<Supervised, SpawnError> {
    spawn_inner(supervisor_exe, spec, false).await
}

/// [`spawn_with`] for a version check that a run may follow under the same supervisor
/// (`then_run`): the run's pipes are created now, their supervisor ends passed along in the
/// descriptor frame (close-on-exec there, so the check never sees them); [`Supervised::run`] is
/// the go, [`Supervised::release`] (or a drop) the no-go.
pub(super) async fn spawn_check_with(
    supervisor_exe: &OsStr,
    spec: SpawnSpec,
) -> Result<Supervised, SpawnError> {
    spawn_inner(supervisor_exe, spec, true).await
}

async fn spawn_inner(
    supervisor_exe: &OsStr,
    spec: SpawnSpec,
    then_run: bool,
) -> Result<Supervised, SpawnError> {
    // Every descriptor is created close-on-exec and stays so here, so a supervisor started
    // concurrently for another run never inherits this run's ends (NAT-8, and the lifeline's EOF
    // depends on it). The supervisor gets all of them through the descriptor frame (`fds`).
    let pipe =
        || nix::unistd::pipe2(OFlag::O_CLOEXEC).map_err(|e| spawn_err("cannot create a pipe", e));
    let (out_r, out_w) = pipe()?;
    let (err_r, err_w) = pipe()?;
    // StdinMode::Pipe: the read end goes to the supervisor (and from there to the native process
    // as fd 0); the write end stays here only.
    let stdin_pipe = match spec.stdin {
        StdinMode::Null => None,
        StdinMode::Pipe => Some(pipe()?),
    };
    // `then_run`: the run's pipes, (adapter end, supervisor end) each.
    let run_pipes = if then_run {
        let (out_r, out_w) = pipe()?;
        let (err_r, err_w) = pipe()?;
        let (in_r, in_w) = pipe()?;
        Some([(out_r, out_w), (err_r, err_w), (in_w, in_r)])
    } else {
        None
    };
    // The descriptor frame: the native stdout and stderr write ends, the native stdin's read end,
    // then the run's supervisor ends, in the order the supervisor takes them.
    let passed: Vec<BorrowedFd<'_>> = [out_w.as_fd(), err_w.as_fd()]
        .into_iter()
        .chain(stdin_pipe.iter().map(|(r, _)| r.as_fd()))
        .chain(run_pipes.iter().flatten().map(|(_, theirs)| theirs.as_fd()))
        .collect();
    let job = order_frame(&spec, |bytes| Command::Start { bytes, then_run })?;
    // A spare kept from an earlier run, else one started now. A spare that died in the meantime
    // (its socket refuses the frame) is let go and one fresh supervisor tried instead.
    let mut supervisor = match spare::take(supervisor_exe) {
        Some(kept) => kept,
        None => spare::start(supervisor_exe)?,
    };
    if fds::send(supervisor.socket.as_fd(), &passed).is_err() {
        drop(supervisor);
        supervisor = spare::start(supervisor_exe)?;
        fds::send(supervisor.socket.as_fd(), &passed)
            .map_err(|e| spawn_err("cannot pass the descriptors to the supervisor", e))?;
    }
    drop(passed);
    // Our copies of what was passed close now: only the supervisor (and from there the native
    // group) holds the native stdout/stderr write ends, the native stdin's read end and the run's
    // supervisor ends.
    drop((out_w, err_w));
    let stdin_w = stdin_pipe.map(|(r, w)| {
        drop(r);
        w
    });
    let then_run = run_pipes.map(|[(out, _), (err, _), (inp, _)]| RunEnds {
        stdout: out,
        stderr: err,
        stdin: inp,
    });

    let spare::Spare {
        process,
        socket: ours,
    } = supervisor;
    ours.set_nonblocking(true)
        .map_err(|e| spawn_err("cannot configure the control socket", e))?;
    let stream = UnixStream::from_std(ours)
        .map_err(|e| spawn_err("cannot register the control socket", e))?;
    let (read, mut write) = stream.into_split();
    // The job's order: a few KiB (argv and the scrubbed environment), taken at once by a
    // supervisor blocked in its read; bounded all the same.
    match tokio::time::timeout(SPAWN_REPORT_BOUND, write.write_all(&job)).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(spawn_err("cannot send the job to the supervisor", e)),
        Err(_) => {
            return Err(SpawnError(format!(
                "the supervisor did not take its job within {SPAWN_REPORT_BOUND:?}"
            )));
        }
    }
    let (terminate_tx, terminate_rx) = watch::channel(false);
    let lifeline = Arc::new(Lifeline {
        write: Mutex::new(Some(write)),
        terminate: terminate_tx,
    });
    let mut reports = Reports {
        read,
        lines: LineBuffer::default(),
        exited: None,
        cleanup: None,
        ended: None,
    };

    let pid = first_report(&mut reports, &lifeline).await?;
    let (stdout, stderr, stdin) =
        register_pipes(out_r, err_r, stdin_w).inspect_err(|_| lifeline.close())?;
    Ok(Supervised {
        stdout: Some(stdout),
        stderr: Some(stderr),
        stdin,
        pid,
        grace: spec.grace,
        lifeline,
        terminate_requested: terminate_rx,
        reports,
        process: Some(process),
        exe: supervisor_exe.to_owned(),
        then_run,
    })
}

/// Waits (bounded) for the supervisor's `spawned` (the pid) or `spawn_failed`.
async fn first_report(reports: &mut Reports, lifeline: &Lifeline) -> Result<u32, SpawnError> {
    let first = tokio::time::timeout(SPAWN_REPORT_BOUND, reports.next()).await;
    match first {
        Ok(Some(Report::Spawned { pid })) => Ok(pid),
        Ok(Some(Report::SpawnFailed { message })) => Err(SpawnError(message)),
        Ok(Some(other)) => {
            lifeline.close();
            Err(SpawnError(format!(
                "supervisor reported {other:?} before the spawn"
            )))
        }
        Ok(None) => Err(SpawnError(format!(
            "supervisor ended before starting the native process ({})",
            reports.ended.as_deref().unwrap_or("no report")
        ))),
        Err(_) => {
            lifeline.close();
            Err(SpawnError(format!(
                "supervisor did not report the native spawn within {SPAWN_REPORT_BOUND:?}"
            )))
        }
    }
}

/// The native stdio pipes on the runtime. On `Err` the caller closes the lifeline: the group is
/// killed at once (SUP-2); the supervisor still reports and exits.
fn register_pipes(
    out_r: OwnedFd,
    err_r: OwnedFd,
    stdin_w: Option<OwnedFd>,
) -> Result<(Receiver, Receiver, Option<Sender>), SpawnError> {
    Receiver::from_owned_fd(out_r)
        .and_then(|o| Receiver::from_owned_fd(err_r).map(|e| (o, e)))
        .and_then(|(o, e)| {
            let i = stdin_w.map(Sender::from_owned_fd).transpose()?;
            Ok((o, e, i))
        })
        .map_err(|e| spawn_err("cannot register the native stdio pipes", e))
}
