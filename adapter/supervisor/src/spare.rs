//! Spare supervisors (C-SUP-2): the supervisor of the next run, started once the current run's
//! supervisor ended and its answer was written, so a run does not wait for a supervisor's exec
//! and start-up (about a third of what `claude.run` added to running the CLI directly,
//! `bench/run-overhead.md`).
//!
//! A spare is `__supervise` with no job yet: an empty environment, cwd `/`, stdout and stderr
//! `/dev/null`, its own process group, blocked reading its control socket. It holds no descriptor
//! of any run and starts nothing until a job arrives (`supervise.rs`); the EOF of its socket
//! (the adapter retired it, exited or was SIGKILLed: SUP-2's lifeline) ends it with nothing
//! started. So a spare never outlives the adapter, and it never touches a run it was not given.
//!
//! At most one spare is kept, and only while [`keep_spares`] was called (the MCP server does;
//! the one-shot CLI projection and direct callers start each supervisor when needed, in the same
//! way: a supervisor always starts without a job). The engine retires it ([`retire`]) when its run
//! table becomes empty, so an adapter with no retained run has no child process at all.

use std::ffi::{OsStr, OsString};
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::process::Stdio;
use std::sync::{Mutex, PoisonError};

use nix::sys::wait::{Id, WaitPidFlag, waitid};
use nix::unistd::Pid;

use crate::{SUBCOMMAND, SpawnError};

/// A supervisor started ahead of its job.
#[derive(Debug)]
pub(super) struct Spare {
    /// The supervisor process (its own process group).
    pub(super) process: tokio::process::Child,
    /// The adapter's end of its control socket (blocking, close-on-exec); nothing written yet.
    pub(super) socket: UnixStream,
}

struct Pool {
    keep: bool,
    /// Set by [`retire`] (no retained run), cleared by the next job: a refill that comes after
    /// the retirement starts nothing.
    idle: bool,
    /// The kept spare, with the executable it was started from.
    spare: Option<(OsString, Spare)>,
    /// The executable of the spare to start at the next quiet point ([`refill`]).
    wanted: Option<OsString>,
}

static POOL: Mutex<Pool> = Mutex::new(Pool {
    keep: false,
    idle: true,
    spare: None,
    wanted: None,
});

fn pool() -> std::sync::MutexGuard<'static, Pool> {
    POOL.lock().unwrap_or_else(PoisonError::into_inner)
}

/// From now on, keep one spare supervisor ready for the next run (the MCP server's choice).
pub fn keep_spares() {
    pool().keep = true;
}

/// Starts a spare from `exe` (posix_spawn: no `pre_exec` hook). Must run on the tokio runtime.
pub(super) fn start(exe: &OsStr) -> Result<Spare, SpawnError> {
    let (ours, theirs) = UnixStream::pair()
        .map_err(|e| SpawnError(format!("cannot create the control socket: {e}")))?;
    let process = tokio::process::Command::new(exe)
        .arg(SUBCOMMAND)
        // Nothing of the adapter's environment: the native process gets exactly its job's
        // (NAT-8), and the supervisor itself needs none.
        .env_clear()
        // Pin no directory of the user's; the native process gets its job's cwd.
        .current_dir("/")
        .stdin(Stdio::from(OwnedFd::from(theirs)))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        // Its own group: a signal to the adapter's group (a host killing its server) must not
        // take the supervisor down before it has killed the native group (SUP-2).
        .process_group(0)
        .kill_on_drop(false)
        .spawn()
        .map_err(|e| SpawnError(format!("cannot start the supervisor {exe:?}: {e}")))?;
    // `theirs` closed with the command: the supervisor holds the only other end of the socket.
    Ok(Spare {
        process,
        socket: ours,
    })
}

/// The kept spare when it was started from `exe`. A spare from another executable is let go
/// (its socket's EOF ends it; tokio reaps it).
/// Called for every job, so it also marks the pool busy again.
pub(super) fn take(exe: &OsStr) -> Option<Spare> {
    let mut pool = pool();
    pool.idle = false;
    let kept = pool.spare.take()?;
    (kept.0 == exe).then_some(kept.1)
}

/// Notes that the next run may want a spare from `exe` (a supervisor of this executable just
/// ended); [`refill`] starts it at the next quiet point.
pub(super) fn want(exe: &OsStr) {
    let mut pool = pool();
    if pool.keep && !pool.idle && pool.spare.is_none() {
        pool.wanted = Some(exe.to_owned());
    }
}

/// Starts the spare `want` asked for, if it is still wanted (spares kept, a run retained, none
/// kept yet). Called by the MCP server's writer once it has written everything queued: started
/// with a run, or before that run's answer, the spare's exec and start-up would compete with them
/// for the cores (`bench/run-overhead.md`). Needs the tokio runtime's context. A failure is left
/// to the next run, which then starts its own supervisor.
pub fn refill() {
    let mut pool = pool();
    let Some(exe) = pool.wanted.take() else {
        return;
    };
    if pool.keep
        && !pool.idle
        && pool.spare.is_none()
        && let Ok(spare) = start(&exe)
    {
        pool.spare = Some((exe, spare));
    }
}

/// Ends the kept spare and reaps it before returning; called when the run table becomes empty
/// and on shutdown. A spare holds no run and no descriptor of one, so SIGKILL loses nothing, and
/// unlike its socket's EOF it needs no scheduling of the spare to end it: the wait below is for a
/// process already dying.
pub fn retire() {
    let kept = {
        let mut pool = pool();
        pool.idle = true;
        pool.wanted = None;
        pool.spare.take()
    };
    let Some((_, mut spare)) = kept else {
        return;
    };
    // Not reaped yet (only this function and `take` hand a spare's process on), so the pid is
    // still the spare's: the signal cannot reach another process.
    if spare.process.start_kill().is_ok()
        && let Some(pid) = spare.process.id().and_then(|p| i32::try_from(p).ok())
    {
        // Wait until it is a zombie, without reaping (WNOWAIT): tokio's handle reaps it next,
        // so its pid is never reaped behind tokio's back.
        while let Err(nix::errno::Errno::EINTR) = waitid(
            Id::Pid(Pid::from_raw(pid)),
            WaitPidFlag::WEXITED | WaitPidFlag::WNOWAIT,
        ) {}
    }
    // Reaps it (the zombie is there); were it somehow not, tokio reaps it once the handle drops.
    let _ = spare.process.try_wait();
}
