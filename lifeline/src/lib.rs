//! A lifeline for tools that start process groups: a watchdog process that `SIGKILL`s every
//! group the tool registered once the tool is gone, however it went (`SIGKILL` included;
//! C-SUP-5 in `docs/contract.md`).
//!
//! A tool that starts peers in process groups of their own (the gates' servers and agents,
//! `mcp-replay`'s peer) kills them itself on every exit it lives through: the end of a case,
//! Ctrl-C, `SIGTERM`. `SIGKILL` of the tool ends it with no chance to do so, and
//! `PR_SET_PDEATHSIG` reaches only a group's leader, not the wrapper script's real server or a
//! helper it forked. So [`start`] forks, before the tool starts any thread, a watchdog in a
//! session of its own (a terminal's or a CI job's signal to the tool's group does not reach it)
//! that holds the read end of a close-on-exec pipe. The tool writes `+PGID` when it starts a
//! group ([`register`]; [`spawn_registered`] does it from the child before it execs, so no
//! instant of the spawn is left uncovered) and `-PGID` once the group is killed and reaped
//! ([`unregister`]); lines
//! of at most `PIPE_BUF` bytes are written whole, so threads need no lock. When the pipe reaches
//! end of file (the tool's last copy of the write end closed: it exited or was killed) the
//! watchdog kills every group still registered and exits. It waits on the pipe alone: no
//! polling, no timer.
//!
//! ```text
//! tool ──(pipe: +pgid / -pgid lines)──▶ watchdog (own session)
//!  └── server groups (own process groups)      └── on EOF: SIGKILL each group left
//! ```

use std::collections::HashSet;
use std::fs::File;
use std::io::{Read as _, Write as _};
use std::os::fd::{AsRawFd as _, OwnedFd};
use std::sync::OnceLock;

use nix::fcntl::OFlag;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::{ForkResult, Pid};

/// The write end of the lifeline, once [`start`] ran.
static LIFELINE: OnceLock<File> = OnceLock::new();

/// Why the lifeline could not be started.
#[derive(Debug)]
pub struct StartError(nix::Error);

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot start the process-group watchdog: {}", self.0)
    }
}

impl std::error::Error for StartError {}

/// Starts the watchdog. Call it first thing in `main`, before any thread exists (a forked copy of
/// a threaded process may only call async-signal-safe functions; the watchdog allocates). A
/// second call does nothing.
///
/// # Errors
/// The pipe or the fork failed; the tool should refuse to run rather than run uncontained.
pub fn start() -> Result<(), StartError> {
    if LIFELINE.get().is_some() {
        return Ok(());
    }
    let (read, write) = nix::unistd::pipe2(OFlag::O_CLOEXEC).map_err(StartError)?;
    // SAFETY: documented precondition: no other thread exists yet, so the child is a full copy
    // of a single-threaded process and may do anything a process may.
    match unsafe { nix::unistd::fork() }.map_err(StartError)? {
        ForkResult::Child => {
            drop(write);
            watch(read)
        }
        ForkResult::Parent { .. } => {
            drop(read);
            let _ = LIFELINE.set(File::from(write));
            Ok(())
        }
    }
}

/// Records a process group the tool started, for the watchdog to kill if the tool dies.
pub fn register(pgid: i32) {
    send('+', pgid);
}

/// Registers the calling process's group from a freshly forked child, before it execs: a
/// `pre_exec` hook of a child started in a group of its own (`process_group(0)`, so its group id
/// is its pid). The parent's [`register`] comes only after the spawn returns, and a tool killed
/// in between (a preempted thread, a loaded machine) would leave a group the watchdog never
/// heard of; from the hook the group is known before the child runs anything. Returns the pid
/// (the group id). Async-signal-safe, as a hook must be: `getpid(2)` and one `write(2)` of a
/// stack buffer, no allocation, no lock.
#[must_use]
pub fn register_in_child() -> i32 {
    let pid = nix::unistd::getpid().as_raw();
    if pid > 1
        && let Some(w) = LIFELINE.get()
    {
        let mut line = [0u8; 16];
        line[0] = b'+';
        let mut digits = [0u8; 10];
        let mut n = pid.unsigned_abs();
        let mut len = 0;
        while n > 0 || len == 0 {
            digits[len] = b'0' + (n % 10) as u8;
            n /= 10;
            len += 1;
        }
        for (i, d) in digits[..len].iter().rev().enumerate() {
            line[1 + i] = *d;
        }
        line[1 + len] = b'\n';
        // SAFETY: write(2) of a valid buffer on a descriptor the process holds; it is
        // async-signal-safe. A short or failed write leaves the parent's `register`.
        let _ = unsafe { libc::write(w.as_raw_fd(), line.as_ptr().cast(), len + 2) };
    }
    pid
}

/// Spawns `cmd` as the leader of a process group of its own, that group registered with the
/// watchdog from the forked child before it execs (C-SUP-5): a tool killed at any instant, the
/// spawn itself included, leaves no group the watchdog never heard of. (While the child has not
/// exec'd yet it holds a copy of the lifeline's write end, so the watchdog's end of file comes
/// only after the child's registration.) Every place a tool starts a peer goes through here.
///
/// `std_of` gives the [`std::process::Command`] inside `cmd` (the identity for a std command,
/// `tokio::process::Command::as_std_mut` for tokio's) and `spawn` spawns `cmd`, so one helper
/// serves both. It sets `process_group(0)` itself (the registered id is the child's pid) and adds
/// a `pre_exec` hook after the caller's. When the exec fails (the spawn's error) the registration
/// the child made is withdrawn: the pid is free again, and a later group that reuses it must not
/// be killed by the watchdog. The caller still calls [`register`] once the spawn returned (a
/// repeated `+PGID` changes nothing) and [`unregister`] once the group is killed and reaped.
///
/// # Errors
/// The withdrawal pipe could not be made, or the spawn's own error.
pub fn spawn_registered<C, T>(
    cmd: &mut C,
    std_of: impl FnOnce(&mut C) -> &mut std::process::Command,
    spawn: impl FnOnce(&mut C) -> std::io::Result<T>,
) -> std::io::Result<T> {
    use std::os::unix::process::CommandExt as _;
    // The child writes its pid here from the hook. Both ends are non-blocking: the parent reads
    // only after a failed spawn, when std has already reaped the child (whatever it wrote is in
    // the pipe, or it wrote nothing: it failed before the hook); and a command spawned again
    // with a full pipe must not block its child before the exec.
    let (read, write) =
        nix::unistd::pipe2(OFlag::O_CLOEXEC | OFlag::O_NONBLOCK).map_err(std::io::Error::from)?;
    let command = std_of(cmd);
    command.process_group(0);
    let hook = move || {
        let pid = register_in_child().to_ne_bytes();
        // SAFETY: write(2) of a valid stack buffer on a descriptor this closure owns (open until
        // the exec closes the child's copy); async-signal-safe.
        let _ = unsafe { libc::write(write.as_raw_fd(), pid.as_ptr().cast(), pid.len()) };
        Ok(())
    };
    // SAFETY: the hook runs in the forked child before exec and makes only async-signal-safe
    // calls (getpid, write): no allocation, no lock.
    unsafe {
        command.pre_exec(hook);
    }
    let spawned = spawn(cmd);
    if spawned.is_err() {
        let mut pid = [0u8; 4];
        if File::from(read).read_exact(&mut pid).is_ok() {
            unregister(i32::from_ne_bytes(pid));
        }
    }
    spawned
}

/// Forgets a group the tool killed and reaped itself (so a later group that reuses the id is not
/// killed by mistake).
pub fn unregister(pgid: i32) {
    send('-', pgid);
}

fn send(op: char, pgid: i32) {
    if pgid <= 1 {
        return;
    }
    if let Some(mut w) = LIFELINE.get() {
        // One short write: atomic on a pipe. A watchdog that is gone (EPIPE; SIGPIPE is ignored
        // in Rust programs) leaves nothing to tell.
        let _ = w.write_all(format!("{op}{pgid}\n").as_bytes());
    }
}

/// The watchdog's whole life: detach, read the lifeline to its end, kill what is left, exit.
fn watch(read: OwnedFd) -> ! {
    let _ = nix::unistd::setsid();
    detach_descriptors(read.as_raw_fd());
    let _ = nix::unistd::chdir("/");
    let mut groups: HashSet<i32> = HashSet::new();
    let mut pipe = File::from(read);
    let mut pending: Vec<u8> = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match pipe.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                pending.extend_from_slice(&buf[..n]);
                apply_lines(&mut pending, &mut groups);
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    for pgid in groups {
        let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
    }
    // SAFETY: `_exit` ends the process at once; nothing of the tool's (its atexit handlers, its
    // buffers) belongs to this copy.
    unsafe { libc::_exit(0) }
}

/// Applies every complete `+N` / `-N` line of `pending` to `groups` and keeps the unfinished
/// rest (a line is never longer than a few bytes; anything else is dropped, bounded).
fn apply_lines(pending: &mut Vec<u8>, groups: &mut HashSet<i32>) {
    while let Some(end) = pending.iter().position(|b| *b == b'\n') {
        let line: Vec<u8> = pending.drain(..=end).collect();
        let Some((op, num)) = line[..line.len() - 1].split_first() else {
            continue;
        };
        let Some(pgid) = std::str::from_utf8(num)
            .ok()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        match op {
            b'+' => {
                groups.insert(pgid);
            }
            b'-' => {
                groups.remove(&pgid);
            }
            _ => {}
        }
    }
    if pending.len() > 64 {
        pending.clear();
    }
}

/// Points stdin, stdout and stderr at `/dev/null` and closes every other descriptor but `keep`,
/// so the watchdog holds none of the tool's pipes open (a reader of the tool's output sees its
/// end when the tool ends).
fn detach_descriptors(keep: i32) {
    if let Ok(null) = File::options().read(true).write(true).open("/dev/null") {
        for fd in 0..=2 {
            // SAFETY: dup2 onto the standard descriptors of this process; `null` stays open until
            // the end of this block and the standard descriptors are replaced, not freed.
            unsafe {
                libc::dup2(null.as_raw_fd(), fd);
            }
        }
    }
    let open: Vec<i32> = std::fs::read_dir("/proc/self/fd")
        .map(|dir| {
            dir.flatten()
                .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
                .collect()
        })
        .unwrap_or_default();
    for fd in open {
        if fd > 2 && fd != keep {
            // SAFETY: closing a descriptor this copy inherited and will never use; the directory
            // listing's own descriptor is already closed (the listing was collected first).
            unsafe {
                libc::close(fd);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_add_and_remove_groups_and_keep_a_partial_line() {
        let mut groups = HashSet::new();
        let mut pending = b"+12\n+13\n-12\n+1".to_vec();
        apply_lines(&mut pending, &mut groups);
        assert_eq!(groups, HashSet::from([13]));
        assert_eq!(pending, b"+1");
        pending.extend_from_slice(b"4\nnoise\n");
        apply_lines(&mut pending, &mut groups);
        assert_eq!(groups, HashSet::from([13, 14]));
        assert!(pending.is_empty());
    }

    #[test]
    fn a_registered_spawn_leads_its_own_group() {
        let mut cmd = std::process::Command::new("sh");
        cmd.args(["-c", "read line || exit 0"])
            .stdin(std::process::Stdio::piped());
        let mut child =
            spawn_registered(&mut cmd, |c| c, std::process::Command::spawn).expect("spawn sh");
        let pid = Pid::from_raw(i32::try_from(child.id()).expect("pid"));
        assert_eq!(nix::unistd::getpgid(Some(pid)), Ok(pid));
        drop(child.stdin.take());
        assert!(child.wait().expect("wait").success());
    }

    #[test]
    fn a_failed_spawn_is_the_spawns_error_and_does_not_block() {
        // The exec fails (after the hook ran) and the directory change fails (before it): either
        // way the error comes back, and the withdrawal's read does not wait for the child.
        let mut missing = std::process::Command::new("/nonexistent/program");
        let e = spawn_registered(&mut missing, |c| c, std::process::Command::spawn)
            .expect_err("no such program");
        assert_eq!(e.kind(), std::io::ErrorKind::NotFound);
        let mut no_dir = std::process::Command::new("true");
        no_dir.current_dir("/nonexistent/dir");
        assert!(spawn_registered(&mut no_dir, |c| c, std::process::Command::spawn).is_err());
    }

    #[test]
    fn garbage_without_a_newline_stays_bounded() {
        let mut groups = HashSet::new();
        let mut pending = vec![b'x'; 100];
        apply_lines(&mut pending, &mut groups);
        assert!(pending.is_empty());
        assert!(groups.is_empty());
    }
}
