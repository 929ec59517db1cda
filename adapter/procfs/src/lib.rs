//! Processes as `/proc` shows them, read in one place for the whole workspace: the supervisor
//! proves a group is gone with it (SUP-3), and the tests judge containment with it from the
//! outside (`testkit::procs` adds bounded waits and kills on top).
//!
//! One parser serves both on purpose. The judge and the judged sharing it is safe because this
//! crate holds no policy: it reports what the kernel says (a line of `/proc/<pid>/stat`, the
//! entries of `/proc/<pid>/fd`), its parsing is pinned by its own tests below, and the tests
//! that judge containment also see the processes by other means (pidfd exit waits, signals that
//! must fail with `ESRCH`). What is contained, and when, is decided in the supervisor, never here.
//!
//! A zombie is dead: it runs nothing and holds nothing but a pid, so it never counts as a live
//! member.

use std::fs;

/// One process as `/proc/<pid>/stat` describes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcStat {
    /// Its pid.
    pub pid: u32,
    /// Its state letter (`R`, `S`, `D`, `Z`, `T`, …).
    pub state: char,
    /// Its parent's pid.
    pub ppid: u32,
    /// Its process group id.
    pub pgrp: u32,
    /// Its session id.
    pub session: u32,
}

impl ProcStat {
    /// `true` for a process that is dead but not yet reaped (`Z`, or `X` while being reaped).
    #[must_use]
    pub fn is_zombie(&self) -> bool {
        matches!(self.state, 'Z' | 'X')
    }
}

/// Parses the text of `/proc/<pid>/stat`. The command name sits in parentheses and may itself
/// hold spaces and parentheses, so fields are counted from the last `)`.
#[must_use]
pub fn parse_stat(text: &str) -> Option<ProcStat> {
    let open = text.find(" (")?;
    let pid = text[..open].trim().parse().ok()?;
    let close = text.rfind(')')?;
    let mut rest = text.get(close + 1..)?.split_ascii_whitespace();
    let state = rest.next()?.chars().next()?;
    let ppid = rest.next()?.parse().ok()?;
    let pgrp = rest.next()?.parse().ok()?;
    let session = rest.next()?.parse().ok()?;
    Some(ProcStat {
        pid,
        state,
        ppid,
        pgrp,
        session,
    })
}

/// `pid` as `/proc` shows it now; `None` once it is gone (reaped).
#[must_use]
pub fn stat(pid: u32) -> Option<ProcStat> {
    parse_stat(&fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// Every process visible in `/proc` now. Processes that vanish during the scan are skipped.
#[must_use]
pub fn scan() -> Vec<ProcStat> {
    let Ok(dir) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
        })
        .filter_map(|e| fs::read_to_string(e.path().join("stat")).ok())
        .filter_map(|t| parse_stat(&t))
        .collect()
}

/// The live (non-zombie) members of process group `pgid`.
#[must_use]
pub fn live_group_members(pgid: u32) -> Vec<u32> {
    scan()
        .into_iter()
        .filter(|p| p.pgrp == pgid && !p.is_zombie())
        .map(|p| p.pid)
        .collect()
}

/// The descriptors a process holds open, sorted, from `/proc/<pid>/fd` (NAT-8 checks).
///
/// # Errors
/// When `/proc/<pid>/fd` cannot be read (the process is gone, or not ours).
pub fn open_fds(pid: u32) -> std::io::Result<Vec<i32>> {
    let mut fds: Vec<i32> = fs::read_dir(format!("/proc/{pid}/fd"))?
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse().ok()))
        .collect();
    fds.sort_unstable();
    Ok(fds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_stat_reads_fields_after_a_command_name_with_parentheses_and_spaces() {
        let e = parse_stat("4242 (we ird) (name)) S 17 4242 4242 0 -1 4194560 0 0")
            .expect("a stat line");
        assert_eq!(
            e,
            ProcStat {
                pid: 4242,
                state: 'S',
                ppid: 17,
                pgrp: 4242,
                session: 4242,
            }
        );
        assert!(!e.is_zombie());
        assert!(
            parse_stat("4243 (z) Z 1 5 5 0")
                .expect("a zombie's line")
                .is_zombie()
        );
    }

    #[test]
    fn parse_stat_rejects_garbage() {
        assert_eq!(parse_stat(""), None);
        assert_eq!(parse_stat("12 (x)"), None);
        assert_eq!(parse_stat("x (y) S 1 2 3"), None);
    }

    #[test]
    fn scan_sees_this_process_in_its_own_group() {
        let me = std::process::id();
        let entry = scan()
            .into_iter()
            .find(|p| p.pid == me)
            .expect("this process");
        assert_eq!(
            i64::from(entry.pgrp),
            i64::from(nix::unistd::getpgrp().as_raw())
        );
        assert!(live_group_members(entry.pgrp).contains(&me));
        // The state letter moves (R, S) between two reads; the identity does not.
        let again = stat(me).expect("this process by pid");
        assert_eq!(
            (again.pid, again.ppid, again.pgrp, again.session),
            (entry.pid, entry.ppid, entry.pgrp, entry.session)
        );
    }

    #[test]
    fn open_fds_lists_the_standard_descriptors_of_this_process() {
        let fds = open_fds(std::process::id()).expect("own fds");
        assert!(fds.contains(&1) && fds.contains(&2), "{fds:?}");
    }
}
