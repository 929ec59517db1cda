//! The supervisor's event loop (SUP-1..3): one thread, one `poll(2)` on the lifeline and a
//! `signalfd` for `SIGCHLD` and SIGTERM/SIGINT/SIGHUP. Nothing here
//! runs on a timer except the termination deadlines themselves (the grace, then
//! [`KILL_CONFIRM_BOUND`]) and the one fallback described at [`Others::OutsideOnly`].
//!
//! How cleanup is confirmed from events: every exit of one of the supervisor's children wakes it
//! (`SIGCHLD`). It then looks at its own children only (the kernel's list of them,
//! `/proc/self/task/<pid>/children`: one small read, not a scan of the system), observes the
//! leader without reaping it (`waitid(WNOWAIT)`, the pin) and reaps every other dead one by pid.
//! As a subreaper it is the parent of every orphaned descendant of the run, and every live
//! descendant has a chain of live ancestors up to one of its children. So once the leader has
//! exited:
//! - no child but the pinned leader proves that no process of the group is alive: the group is
//!   known empty when its last member has been reaped;
//! - a live child in the group (`getpgid`) proves it is not empty yet, and its exit (or that of
//!   the last one) wakes the loop again;
//! - only live children *outside* the group (descendants that left it, SUP-4) leave the question
//!   open, since a group member could sit below one of them, and its exit would reach its parent,
//!   not us: then, and only then, `/proc` is scanned for members of the group.
//!
//! Kernels without `/proc/<pid>/task/<tid>/children` (`CONFIG_PROC_CHILDREN`) get the children
//! from a `/proc` scan instead; the logic is the same.

use std::io::Read;
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::sys::signal::{Signal, killpg};
use nix::sys::signalfd::{SfdFlags, SignalFd};
use nix::sys::wait::{Id, WaitPidFlag, WaitStatus, waitid};
use nix::unistd::Pid;

use crate::protocol::{Command, LineBuffer, Report};
use crate::report::{Reporter, cleanup_report, handled_signals};
use cmk_procfs as procfs;

use crate::{ExitStatus, KILL_CONFIRM_BOUND, POLL_INTERVAL};

/// The run's state as the loop sees it.
#[derive(Debug, Default)]
struct Progress {
    /// The leader ended (reported), or cannot be observed.
    leader_gone: bool,
    /// The leader ended and is ours to reap.
    leader_unreaped: bool,
    /// SIGTERM went out; SIGKILL follows at this instant.
    kill_at: Option<Instant>,
    /// SIGKILL went out at this instant.
    killed_at: Option<Instant>,
    /// Cleanup detail gathered on the way.
    notes: Vec<String>,
}

/// What the supervisor's children other than the leader say about the group, after reaping the
/// dead ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Others {
    /// No child left but the leader: no live descendant at all, hence no live member of the
    /// group.
    None,
    /// A live child is in the group: not empty, and its exit will wake the loop.
    InGroup,
    /// Live children, none in the group (descendants that left it, SUP-4). A member could sit
    /// below one of them, and its exit would reach its parent, not us: the `/proc` fallback
    /// decides, and while it finds members the loop re-checks every [`POLL_INTERVAL`].
    OutsideOnly,
}

/// Pins the leader, reacts to events, ends with the group dead, and sends the cleanup report.
pub(super) fn supervise(reporter: &mut Reporter, leader: u32, grace: Duration) {
    let Ok(raw) = i32::try_from(leader) else {
        reporter.send(&cleanup_report(
            vec![leader],
            vec!["pid out of range".into()],
        ));
        return;
    };
    let pgid = Pid::from_raw(raw);
    let mut p = Progress::default();
    // The signals are blocked since before the spawn, so none is lost before this exists.
    let signals = match SignalFd::with_flags(
        &handled_signals(),
        SfdFlags::SFD_CLOEXEC | SfdFlags::SFD_NONBLOCK,
    ) {
        Ok(s) => Some(s),
        Err(e) => {
            p.notes.push(format!("cannot watch signals: {e}"));
            signal_group(pgid, Signal::SIGKILL);
            p.killed_at = Some(Instant::now());
            None
        }
    };
    let mut lifeline_open = true;
    let mut lines = LineBuffer::default();
    let survivors = loop {
        let now = Instant::now();
        if let Some(at) = p.kill_at
            && p.killed_at.is_none()
            && now >= at
        {
            p.killed_at = Some(now);
        }
        if p.killed_at.is_some() {
            // Again at every wake-up: a member forked while a SIGKILL was in flight gets it too.
            signal_group(pgid, Signal::SIGKILL);
        }
        if !p.leader_gone {
            match leader_state(pgid) {
                Some(Ok(status)) => {
                    reporter.send(&Report::Exited {
                        code: status.code,
                        signal: status.signal,
                    });
                    p.leader_gone = true;
                    p.leader_unreaped = true;
                }
                Some(Err(e)) => {
                    p.notes
                        .push(format!("cannot observe the native process: {e}"));
                    p.leader_gone = true;
                    signal_group(pgid, Signal::SIGKILL);
                    p.killed_at.get_or_insert(now);
                }
                None => {}
            }
        }
        let others = reap_others(leader, pgid);
        let mut recheck = false;
        if p.leader_gone {
            let empty = match others {
                Others::None => true,
                Others::InGroup => false,
                Others::OutsideOnly => {
                    recheck = !procfs::live_group_members(leader).is_empty();
                    !recheck
                }
            };
            if empty {
                break Vec::new();
            }
            if p.kill_at.is_none() && p.killed_at.is_none() {
                // The leader ended on its own but left members behind: an ordinary run still ends
                // with its whole group gone.
                start_termination(pgid, grace, &mut p);
            }
        }
        if p.killed_at
            .is_some_and(|k| now.duration_since(k) >= KILL_CONFIRM_BOUND)
        {
            p.notes.push(format!(
                "processes survived SIGKILL for {KILL_CONFIRM_BOUND:?}"
            ));
            // Fallback: events say who is ours, only /proc can list the survivors.
            break procfs::live_group_members(leader);
        }

        let mut deadline = p.killed_at.map(|k| k + KILL_CONFIRM_BOUND);
        if let Some(at) = p.kill_at.filter(|_| p.killed_at.is_none()) {
            deadline = Some(deadline.map_or(at, |d| d.min(at)));
        }
        if recheck || signals.is_none() || (!lifeline_open && deadline.is_none()) {
            let at = now + POLL_INTERVAL;
            deadline = Some(deadline.map_or(at, |d| d.min(at)));
        }
        let control = lifeline_open.then(|| reporter.control.as_fd());
        let woke = wait_for_events(signals.as_ref(), control, deadline);
        if woke.terminate && p.kill_at.is_none() && p.killed_at.is_none() {
            start_termination(pgid, grace, &mut p);
        }
        if woke.control_readable {
            match read_commands(&reporter.control, &mut lines) {
                Ok(commands) => {
                    if commands.contains(&Command::Terminate)
                        && p.kill_at.is_none()
                        && p.killed_at.is_none()
                    {
                        start_termination(pgid, grace, &mut p);
                    }
                }
                Err(()) => {
                    // SUP-2: the lifeline ended; nobody is left to wait for a graceful end.
                    lifeline_open = false;
                    if p.killed_at.is_none() {
                        signal_group(pgid, Signal::SIGKILL);
                        p.killed_at = Some(Instant::now());
                    }
                }
            }
        }
    };
    finish(reporter, leader, &p, survivors);
}

/// What woke the loop.
#[derive(Debug, Default)]
struct Woke {
    /// SIGTERM, SIGINT or SIGHUP to the supervisor itself: terminate the run (SUP-3).
    terminate: bool,
    /// The lifeline has data or ended.
    control_readable: bool,
}

/// Waits until a signal arrives, the lifeline has something, or `deadline` passes. Child exits
/// (`SIGCHLD`) only wake the loop, which then looks at its children.
fn wait_for_events(
    signals: Option<&SignalFd>,
    control_fd: Option<BorrowedFd<'_>>,
    deadline: Option<Instant>,
) -> Woke {
    let mut woke = Woke::default();
    let mut fds = Vec::with_capacity(2);
    if let Some(s) = signals {
        fds.push(PollFd::new(s.as_fd(), PollFlags::POLLIN));
    }
    if let Some(fd) = control_fd {
        fds.push(PollFd::new(fd, PollFlags::POLLIN));
    }
    let timeout = deadline.map_or(PollTimeout::NONE, |d| {
        // Rounded up: waking a fraction of a millisecond early would spin.
        let us = d.saturating_duration_since(Instant::now()).as_micros();
        PollTimeout::try_from(us.div_ceil(1000)).unwrap_or(PollTimeout::MAX)
    });
    if poll(&mut fds, timeout).is_err() {
        // EINTR (a stop/continue): the caller looks at everything again.
        return woke;
    }
    let ready = |f: &PollFd<'_>| f.revents().is_some_and(|r| !r.is_empty());
    let mut it = fds.iter();
    if let Some(s) = signals
        && it.next().is_some_and(ready)
    {
        while let Ok(Some(info)) = s.read_signal() {
            let signo = i32::try_from(info.ssi_signo).unwrap_or(0);
            if [Signal::SIGTERM, Signal::SIGINT, Signal::SIGHUP]
                .iter()
                .any(|&s| s as i32 == signo)
            {
                woke.terminate = true;
            }
        }
    }
    if control_fd.is_some() && it.next().is_some_and(ready) {
        woke.control_readable = true;
    }
    woke
}

/// Reads what the lifeline has (poll said it will not block) and returns the commands in it;
/// `Err` when it ended: EOF, a read error or a corrupt line.
fn read_commands(mut reader: &UnixStream, lines: &mut LineBuffer) -> Result<Vec<Command>, ()> {
    let mut chunk = [0u8; 512];
    match reader.read(&mut chunk) {
        Ok(0) => return Err(()),
        Ok(n) => lines.push(&chunk[..n]),
        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
        Err(_) => return Err(()),
    }
    let mut commands = Vec::new();
    loop {
        match lines.next_line() {
            // Unknown commands are ignored: an older supervisor under a newer adapter.
            Ok(Some(line)) => commands.extend(serde_json::from_slice::<Command>(&line).ok()),
            Ok(None) => return Ok(commands),
            Err(_) => return Err(()),
        }
    }
}

/// The leader's exit, observed without reaping it (WNOWAIT keeps its pid and pgid pinned);
/// `None` while it runs.
fn leader_state(leader: Pid) -> Option<Result<ExitStatus, Errno>> {
    let flags = WaitPidFlag::WEXITED | WaitPidFlag::WNOHANG | WaitPidFlag::WNOWAIT;
    loop {
        return match waitid(Id::Pid(leader), flags) {
            Ok(WaitStatus::Exited(_, code)) => Some(Ok(ExitStatus {
                code: Some(code),
                signal: None,
            })),
            Ok(WaitStatus::Signaled(_, sig, _)) => Some(Ok(ExitStatus {
                code: None,
                signal: Some(sig as i32),
            })),
            Ok(_) => None,
            Err(Errno::EINTR) => continue,
            Err(e) => Some(Err(e)),
        };
    }
}

/// Reaps every dead child except the leader (pinned) and says what the live ones tell about the
/// group.
fn reap_others(leader: u32, pgid: Pid) -> Others {
    let mut others = Others::None;
    for child in children().into_iter().filter(|&c| c != leader) {
        let Ok(raw) = i32::try_from(child) else {
            continue;
        };
        let pid = Pid::from_raw(raw);
        match waitid(Id::Pid(pid), WaitPidFlag::WEXITED | WaitPidFlag::WNOHANG) {
            // Alive (or stopped): it stays our child until it dies, which wakes us.
            Ok(WaitStatus::StillAlive) | Err(Errno::EINTR) => {}
            Ok(_) | Err(_) => continue, // reaped, or not ours any more
        }
        if nix::unistd::getpgid(Some(pid)).is_ok_and(|g| g == pgid) {
            return Others::InGroup;
        }
        others = Others::OutsideOnly;
    }
    others
}

/// The supervisor's children, zombies included: the kernel's list for its (only) thread, or a
/// `/proc` scan where the kernel does not offer that list.
fn children() -> Vec<u32> {
    let me = std::process::id();
    match std::fs::read_to_string(format!("/proc/{me}/task/{me}/children")) {
        Ok(text) => text
            .split_ascii_whitespace()
            .filter_map(|p| p.parse().ok())
            .collect(),
        Err(_) => procfs::scan()
            .into_iter()
            .filter(|p| p.ppid == me)
            .map(|p| p.pid)
            .collect(),
    }
}

/// SUP-3: SIGTERM (and SIGCONT, so stopped members can act on it), then SIGKILL after `grace`.
fn start_termination(pgid: Pid, grace: Duration, p: &mut Progress) {
    signal_group(pgid, Signal::SIGTERM);
    signal_group(pgid, Signal::SIGCONT);
    p.kill_at = Some(Instant::now() + grace);
}

/// Signals the group. Safe while the leader is pinned: its pid, hence the pgid, cannot be reused.
/// ESRCH (nothing left) is the goal, not an error.
fn signal_group(pgid: Pid, sig: Signal) {
    let _ = killpg(pgid, sig);
}

/// Reaps the leader and whatever else is ours and dead, and sends the cleanup report.
fn finish(reporter: &mut Reporter, leader: u32, p: &Progress, survivors: Vec<u32>) {
    let mut notes = p.notes.clone();
    if p.leader_unreaped
        && let Ok(raw) = i32::try_from(leader)
        && let Err(e) = waitid(Id::Pid(Pid::from_raw(raw)), WaitPidFlag::WEXITED)
    {
        notes.push(format!("cannot reap the native process {leader}: {e}"));
    }
    // Whatever else is ours and dead (SUP-1); WNOHANG, so a live escaped child never blocks us.
    while let Ok(status) = waitid(Id::All, WaitPidFlag::WEXITED | WaitPidFlag::WNOHANG) {
        if status == WaitStatus::StillAlive {
            break;
        }
    }
    reporter.send(&cleanup_report(survivors, notes));
}
