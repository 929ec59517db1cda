//! Process-group control of every server the runner starts: a global registry of live groups so
//! Ctrl-C of the runner kills them all, mirrored to a lifeline watchdog so that even `SIGKILL` of
//! the runner does ([`contain`]), and the shutdown order of the conventions (close stdin,
//! bounded wait, SIGTERM to the group, short wait, SIGKILL, reap).

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

use crate::core::exits::{self, Exits};

/// How long a server may take to exit on its own after its stdin closed.
pub const EXIT_GRACE: Duration = Duration::from_millis(500);
/// How long after SIGTERM before SIGKILL.
pub const TERM_GRACE: Duration = Duration::from_millis(500);

fn live() -> &'static Mutex<HashSet<i32>> {
    static LIVE: OnceLock<Mutex<HashSet<i32>>> = OnceLock::new();
    LIVE.get_or_init(Mutex::default)
}

/// Starts the lifeline watchdog ([`cmk_lifeline`]) that kills every registered group if the
/// runner dies without doing so itself (`SIGKILL`). Call before the runtime (or any thread)
/// starts.
///
/// # Errors
/// The watchdog could not be forked: the runner refuses to run uncontained.
pub fn contain() -> Result<(), String> {
    cmk_lifeline::start().map_err(|e| e.to_string())
}

/// Records a process group the runner owns (and tells the lifeline watchdog).
pub fn register(pgid: i32) {
    live()
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(pgid);
    cmk_lifeline::register(pgid);
}

/// Forgets a process group after it was killed and reaped.
pub fn unregister(pgid: i32) {
    live()
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .remove(&pgid);
    cmk_lifeline::unregister(pgid);
}

/// Sends `signal` to the group `pgid` (errors such as "no such group" are expected and ignored).
pub fn signal_group(pgid: i32, signal: Signal) {
    if pgid > 1 {
        let _ = killpg(Pid::from_raw(pgid), signal);
    }
}

/// How long [`wait_group_gone`] waits for the last processes of a killed group.
pub const GONE_GRACE: Duration = Duration::from_secs(2);

/// Waits (at most [`GONE_GRACE`]) until no process of group `pgid` runs any more, after its
/// SIGKILL: a server's helpers (a lock-file holder, a grandchild) must be gone before the next
/// server of the same command starts, so no case sees another case's (or discovery's) server
/// alive. Most members are not the runner's children, so their ends are awaited through
/// pidfds ([`crate::core::exits`]); the members are read from `/proc` again once those have ended,
/// which catches a process forked while the SIGKILL landed. An ended process its parent has
/// not reaped yet counts as gone.
pub async fn wait_group_gone(pgid: i32) {
    if pgid <= 1 {
        return;
    }
    let until = tokio::time::Instant::now() + GONE_GRACE;
    // No member at all (zombies included): the usual case right after the kill and the reap.
    while killpg(Pid::from_raw(pgid), None).is_ok() {
        let members = group_running(pgid);
        if members.is_empty() {
            return;
        }
        let mut exits = Exits::default();
        for pid in members {
            exits.watch(pid);
        }
        if tokio::time::timeout_at(until, exits.all_gone())
            .await
            .is_err()
        {
            return;
        }
    }
}

/// The processes of group `pgid` that have not ended, from `/proc/*/stat`.
fn group_running(pgid: i32) -> Vec<i32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .is_ok_and(|stat| stat_pgrp(&stat) == Some(pgid))
        })
        .filter(|pid| exits::running(*pid))
        .collect()
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
        cmk_lifeline::unregister(pgid);
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

/// Live processes of executable `exe` (zombies excluded) whose command line holds `marker`,
/// except session leaders.
///
/// The run cases put a unique marker in each prompt, which reaches the native process's argv
/// (NAT-7: the prompt after `--`) and every child it forks without exec, so what outlives a
/// run can be seen from `/proc` instead of trusting the provider's `cleanup_confirmed`. Only
/// processes of the native executable count: a provider's own helper (a supervisor that keeps
/// the prompt in its argv and lives until release) is none of the run's. A session leader is
/// left out: a descendant that deliberately left with `setsid` may survive
/// (SUP-4: owned group cleanup, not a sandbox), and leaving such leaders out can only miss a
/// survivor, never blame a provider for one the contract allows.
#[must_use]
pub fn live_with_marker(marker: &[u8], exe: &std::path::Path) -> Vec<i32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for entry in dir.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<i32>().ok())
        else {
            continue;
        };
        if marker.is_empty() {
            continue;
        }
        // The marker is in a claude run's argv (its prompt) and in every run's environment
        // (an ACP agent reads its prompt from stdin).
        let holds = |file: &str| {
            std::fs::read(format!("/proc/{pid}/{file}"))
                .is_ok_and(|b| b.windows(marker.len()).any(|w| w == marker))
        };
        if !holds("cmdline") && !holds("environ") {
            continue;
        }
        if std::fs::read_link(format!("/proc/{pid}/exe"))
            .ok()
            .as_deref()
            != Some(exe)
        {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let zombie = fields.first().is_none_or(|s| *s == "Z" || *s == "X");
        let session = fields.get(3).and_then(|s| s.parse::<i32>().ok());
        if !zombie && session != Some(pid) {
            found.push(pid);
        }
    }
    found
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
    fn a_marked_process_is_found_until_it_dies() {
        let marker = format!("mcp-conformance-marker-{}", std::process::id());
        // `read` keeps the shell itself waiting (no child of its own to leak when it is killed).
        let mut child = std::process::Command::new("sh")
            .args(["-c", "read line", &marker])
            .stdin(std::process::Stdio::piped())
            .spawn()
            .expect("sh");
        let pid = i32::try_from(child.id()).expect("pid");
        // The shell's executable as /proc shows it (sh may be a link to dash or bash), read
        // once the exec happened (the command line holds the marker).
        let mut exe = None;
        for _ in 0..200 {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            if cmdline
                .windows(marker.len())
                .any(|w| w == marker.as_bytes())
            {
                exe = testkit::procs::exe(child.id());
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let exe = exe.expect("exe");
        assert!(live_with_marker(marker.as_bytes(), &exe).contains(&pid));
        assert!(
            !live_with_marker(marker.as_bytes(), std::path::Path::new("/nonexistent"))
                .contains(&pid),
            "another executable is not counted"
        );
        let _ = child.kill();
        let _ = child.wait();
        assert!(!live_with_marker(marker.as_bytes(), &exe).contains(&pid));
    }

    #[test]
    fn own_group_has_memory() {
        let pgid = nix::unistd::getpgrp().as_raw();
        assert!(group_rss_kib(pgid).is_some_and(|k| k > 0));
    }
}
