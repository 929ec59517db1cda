//! Process-group control of every server the runner starts: a global registry of live groups so
//! Ctrl-C of the runner kills them all, and the shutdown order of the conventions (close stdin,
//! bounded wait, SIGTERM to the group, short wait, SIGKILL, reap).

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

/// How long a server may take to exit on its own after its stdin closed.
pub const EXIT_GRACE: Duration = Duration::from_millis(500);
/// How long after SIGTERM before SIGKILL.
pub const TERM_GRACE: Duration = Duration::from_millis(500);

fn live() -> &'static Mutex<HashSet<i32>> {
    static LIVE: OnceLock<Mutex<HashSet<i32>>> = OnceLock::new();
    LIVE.get_or_init(Mutex::default)
}

/// Records a process group the runner owns.
pub fn register(pgid: i32) {
    live()
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(pgid);
}

/// Forgets a process group after it was killed and reaped.
pub fn unregister(pgid: i32) {
    live()
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .remove(&pgid);
}

/// Sends `signal` to the group `pgid` (errors such as "no such group" are expected and ignored).
pub fn signal_group(pgid: i32, signal: Signal) {
    if pgid > 1 {
        let _ = killpg(Pid::from_raw(pgid), signal);
    }
}

/// SIGKILLs every live group: the Ctrl-C path, where nobody is left to wait for grace periods.
pub fn kill_all() {
    let groups: Vec<i32> = live()
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .drain()
        .collect();
    for pgid in groups {
        signal_group(pgid, Signal::SIGKILL);
    }
}

/// Number of live groups (for tests and the final sanity check).
#[must_use]
pub fn live_count() -> usize {
    live().lock().unwrap_or_else(PoisonError::into_inner).len()
}

/// Resident memory of every process in group `pgid`, in KiB, from `/proc/*/stat` and
/// `/proc/*/status` (T6: a server may be a wrapper script around the real process).
#[must_use]
pub fn group_rss_kib(pgid: i32) -> Option<u64> {
    let dir = std::fs::read_dir("/proc").ok()?;
    let mut total = 0u64;
    let mut seen = false;
    for entry in dir.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        if stat_pgrp(&stat) != Some(pgid) {
            continue;
        }
        if let Some(kib) = status_rss_kib(pid) {
            total += kib;
            seen = true;
        }
    }
    seen.then_some(total)
}

/// The process-group field of a `/proc/PID/stat` line (the command may hold spaces and parens,
/// so fields are counted after the last `)`).
fn stat_pgrp(stat: &str) -> Option<i32> {
    let rest = &stat[stat.rfind(')')? + 1..];
    // After ")": state, ppid, pgrp.
    rest.split_whitespace().nth(2)?.parse().ok()
}

fn status_rss_kib(pid: i32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pgrp_is_read_after_a_command_with_parens() {
        let stat = "123 (a) b (c)) S 1 77 77 0 -1";
        assert_eq!(stat_pgrp(stat), Some(77));
    }

    #[test]
    fn own_group_has_memory() {
        let pgid = nix::unistd::getpgrp().as_raw();
        assert!(group_rss_kib(pgid).is_some_and(|k| k > 0));
    }
}
