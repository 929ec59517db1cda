//! Processes as tests see them from the outside: the `/proc` reading of `cmk_procfs` (one parser
//! for the workspace; its crate docs say why the judge may share it with the supervisor) plus
//! what only tests need: liveness (a zombie is dead), bounded waits for a group or a process to
//! be gone, resident memory from `/proc/<pid>/status`, and killing a group (now, or when a guard
//! drops) so that nothing a test starts outlives it.

use std::io;
use std::os::fd::{AsFd, FromRawFd, OwnedFd};
use std::time::{Duration, Instant};

use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;

/// How often [`wait_group_size`] looks again (a fork of a process that is not ours has no event
/// we can wait on), and the fallback of the exit waits when no pidfd can be had.
const POLL: Duration = Duration::from_millis(20);

pub use cmk_procfs::{ProcStat, open_fds, parse_stat, scan, stat};

/// `true` when `pid` exists and is not a zombie.
#[must_use]
pub fn alive(pid: u32) -> bool {
    stat(pid).is_some_and(|s| !s.is_zombie())
}

/// The live (non-zombie) members of process group `pgid`.
#[must_use]
pub fn group_members(pgid: u32) -> Vec<u32> {
    scan()
        .into_iter()
        .filter(|p| p.pgrp == pgid && !p.is_zombie())
        .map(|p| p.pid)
        .collect()
}

/// Every member of process group `pgid`, zombies included (a zombie still holds its group id).
#[must_use]
pub fn group_members_with_zombies(pgid: u32) -> Vec<u32> {
    scan()
        .into_iter()
        .filter(|p| p.pgrp == pgid)
        .map(|p| p.pid)
        .collect()
}

/// Waits until `pgid` has no live member or `bound` passed; returns who is left (empty: gone).
/// The members' ends are awaited on pidfds (`pidfd_open(2)`); the group is read again once they
/// have ended, which catches a member forked meanwhile.
#[must_use]
pub fn wait_group_gone(pgid: u32, bound: Duration) -> Vec<u32> {
    let deadline = Instant::now() + bound;
    loop {
        let left = group_members(pgid);
        if left.is_empty() || Instant::now() >= deadline {
            return left;
        }
        wait_ended(&left, deadline);
    }
}

/// Looks until `pgid` has at least `n` live members (a script has set itself up) or `bound`
/// passed; returns the members seen last.
#[must_use]
pub fn wait_group_size(pgid: u32, n: usize, bound: Duration) -> Vec<u32> {
    let deadline = Instant::now() + bound;
    loop {
        let live = group_members(pgid);
        if live.len() >= n || Instant::now() >= deadline {
            return live;
        }
        std::thread::sleep(POLL);
    }
}

/// Waits until `pid` is no longer alive (a zombie is dead) or `bound` passed; `true` when it is
/// gone.
#[must_use]
pub fn wait_gone(pid: u32, bound: Duration) -> bool {
    wait_ended(&[pid], Instant::now() + bound);
    !alive(pid)
}

/// Waits until every process of `pids` has ended (exited or was killed; a zombie has ended) or
/// `deadline` passed, on pidfds (`pidfd_open(2)`): one becomes readable when its process ends,
/// whoever its parent is. A pid with no process any more has ended. Where no pidfd can be had
/// (no descriptor left, an old kernel) it sleeps one [`POLL`] tick instead, and the callers look
/// again.
fn wait_ended(pids: &[u32], deadline: Instant) {
    let mut fds = Vec::with_capacity(pids.len());
    for &pid in pids {
        match pidfd_open(pid) {
            Ok(fd) => fds.push(fd),
            Err(e) if e.raw_os_error() == Some(libc::ESRCH) => {}
            Err(_) => {
                std::thread::sleep(POLL.min(deadline.saturating_duration_since(Instant::now())));
                return;
            }
        }
    }
    while !fds.is_empty() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return;
        }
        // Rounded up, so a wait never ends a little before the deadline and spins.
        let ms = u32::try_from(left.as_millis() + 1).unwrap_or(u32::MAX);
        let timeout = PollTimeout::try_from(ms).unwrap_or(PollTimeout::MAX);
        let mut polled: Vec<PollFd<'_>> = fds
            .iter()
            .map(|fd| PollFd::new(fd.as_fd(), PollFlags::POLLIN))
            .collect();
        match poll(&mut polled, timeout) {
            Ok(_) => {}
            Err(nix::errno::Errno::EINTR) => continue,
            Err(_) => return,
        }
        // Readable (or an error on the descriptor): that process has ended.
        let running: Vec<bool> = polled
            .iter()
            .map(|p| p.revents().is_none_or(|r| r.is_empty()))
            .collect();
        drop(polled);
        fds = fds
            .into_iter()
            .zip(running)
            .filter_map(|(fd, running)| running.then_some(fd))
            .collect();
    }
}

/// A pidfd of process `pid` (`pidfd_open(2)`, no flags; close-on-exec, as every pidfd).
fn pidfd_open(pid: u32) -> io::Result<OwnedFd> {
    let pid = libc::pid_t::try_from(pid).map_err(|_| io::Error::from_raw_os_error(libc::ESRCH))?;
    // SAFETY: pidfd_open(2) takes a pid and a flags word by value and returns a new descriptor
    // or -1; it touches no memory of this process.
    let r = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0u32) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    let fd = i32::try_from(r).map_err(|_| io::Error::from_raw_os_error(libc::EBADF))?;
    // SAFETY: the descriptor was just returned by the kernel and nothing else owns it.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Whether process `pid`'s environment (as it was started, `/proc/<pid>/environ`) holds the
/// entry `KEY=value` exactly; `false` when it cannot be read.
#[must_use]
pub fn env_has(pid: u32, entry: &str) -> bool {
    std::fs::read(format!("/proc/{pid}/environ"))
        .is_ok_and(|env| env.split(|b| *b == 0).any(|v| v == entry.as_bytes()))
}

/// The executable of process `pid` (`/proc/<pid>/exe`); `None` when it cannot be read.
#[must_use]
pub fn exe(pid: u32) -> Option<std::path::PathBuf> {
    std::fs::read_link(format!("/proc/{pid}/exe")).ok()
}

/// A `kB` field of `/proc/<pid>/status` (`VmRSS`, `VmHWM`, …) in KiB.
#[must_use]
pub fn status_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
}

/// The resident set size of a process in KiB (`VmRSS`).
#[must_use]
pub fn vm_rss_kib(pid: u32) -> Option<u64> {
    status_kib(pid, "VmRSS")
}

/// The peak resident set size of a process in KiB (`VmHWM`): catches short spikes that
/// sampling `VmRSS` would miss.
#[must_use]
pub fn vm_hwm_kib(pid: u32) -> Option<u64> {
    status_kib(pid, "VmHWM")
}

/// `pid` as nix's type; `None` for a value no process can have.
fn nix_pid(pid: u32) -> Option<Pid> {
    i32::try_from(pid)
        .ok()
        .filter(|p| *p > 0)
        .map(Pid::from_raw)
}

/// SIGKILL to process group `pgid` (no error if it is already gone).
pub fn kill_group(pgid: u32) {
    if let Some(pgid) = nix_pid(pgid) {
        let _ = killpg(pgid, Signal::SIGKILL);
    }
}

/// SIGKILL to process `pid` (no error if it is already gone).
pub fn kill_pid(pid: u32) {
    if let Some(pid) = nix_pid(pid) {
        let _ = kill(pid, Signal::SIGKILL);
    }
}

/// Kills what it holds when it drops (the test ended, passed or not): SIGKILL to each process
/// group, then to each single process (escapees that left their group).
#[derive(Debug, Default)]
pub struct KillOnDrop {
    groups: Vec<u32>,
    pids: Vec<u32>,
}

impl KillOnDrop {
    /// Holds nothing yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Also kill process group `pgid` on drop.
    pub fn group(&mut self, pgid: u32) -> &mut Self {
        self.groups.push(pgid);
        self
    }

    /// Also kill process `pid` on drop.
    pub fn pid(&mut self, pid: u32) -> &mut Self {
        self.pids.push(pid);
        self
    }
}

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        for &g in &self.groups {
            kill_group(g);
        }
        for &p in &self.pids {
            kill_pid(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_alive_in_its_own_group_with_a_resident_size() {
        let me = std::process::id();
        let pgrp = u32::try_from(nix::unistd::getpgrp().as_raw()).unwrap_or(0);
        assert_eq!(stat(me).map(|s| s.pgrp), Some(pgrp));
        assert!(alive(me));
        assert!(group_members(pgrp).contains(&me));
        assert!(vm_rss_kib(me).is_some_and(|k| k > 0));
        // The peak is read after the current size: it can only have grown since.
        let rss = vm_rss_kib(me);
        assert!(vm_hwm_kib(me) >= rss);
        assert!(env_has(
            me,
            &format!("PATH={}", std::env::var("PATH").unwrap_or_default())
        ));
        assert_eq!(exe(me), std::env::current_exe().ok());
        let fds = open_fds(me).unwrap_or_default();
        assert!(fds.contains(&1) && fds.contains(&2), "{fds:?}");
    }

    /// A `sleep 60` leading a process group of its own, and its pid (= the group id).
    fn sleeper_in_own_group() -> (std::process::Child, u32) {
        use std::os::unix::process::CommandExt as _;
        let child = std::process::Command::new("sleep")
            .arg("60")
            .process_group(0)
            .spawn()
            .expect("spawn sleep");
        let pid = child.id();
        (child, pid)
    }

    #[test]
    fn a_wait_that_reaches_its_bound_names_who_is_left() {
        let (mut child, pid) = sleeper_in_own_group();
        let mut guard = KillOnDrop::new();
        guard.group(pid);
        // Nothing ends it: the bounded waits come back with it, not with "gone".
        assert!(!wait_gone(pid, Duration::from_millis(100)));
        assert_eq!(wait_group_gone(pid, Duration::from_millis(100)), vec![pid]);
        drop(guard);
        assert!(wait_group_gone(pid, Duration::from_secs(20)).is_empty());
        let _ = child.wait();
    }

    #[test]
    fn a_killed_group_is_gone_and_its_zombie_does_not_count_as_alive() {
        let (mut child, pid) = sleeper_in_own_group();
        assert!(alive(pid));
        {
            let mut guard = KillOnDrop::new();
            guard.group(pid);
        }
        // Not reaped yet: a zombie, not alive, not a live member, still in the group.
        assert!(wait_gone(pid, Duration::from_secs(20)), "{pid} survived");
        assert!(wait_group_gone(pid, Duration::from_secs(20)).is_empty());
        assert_eq!(group_members_with_zombies(pid), vec![pid]);
        let _ = child.wait();
        assert_eq!(stat(pid), None);
    }
}
