//! Exit events of any process, the runner's children or not: a pidfd (`pidfd_open(2)`, Linux
//! 5.3 and later) becomes readable when its process ends, so the runner waits on that event
//! instead of asking the kernel every few milliseconds whether a pid still exists.
//!
//! An ended process that its parent has not reaped yet (a zombie) counts as gone: it runs no
//! code and holds no files, pipes or locks.

use std::io;
use std::os::fd::{FromRawFd as _, OwnedFd};
use std::time::Duration;

use tokio::io::Interest;
use tokio::io::unix::AsyncFd;

/// How often a process is looked at when no pidfd can be had for it (a kernel without
/// `pidfd_open`, or no descriptor left): the fallback, never the usual path.
const POLL_TICK: Duration = Duration::from_millis(10);

/// One process whose end is awaited.
#[derive(Debug)]
enum Watch {
    /// Readable once the process has ended.
    Event(AsyncFd<OwnedFd>),
    /// No pidfd: the process is looked at every [`POLL_TICK`] (bounded by the caller's
    /// deadline; see [`Exits::all_gone`]).
    Poll(i32),
}

/// The processes whose ends are awaited together.
#[derive(Debug, Default)]
pub struct Exits {
    pending: Vec<Watch>,
}

impl Exits {
    /// Starts watching process `pid`. A pid that no longer exists is gone already and is not
    /// kept.
    pub fn watch(&mut self, pid: i32) {
        if pid <= 0 {
            return;
        }
        match pidfd_open(pid) {
            // SAFETY: an `OwnedFd` keeps its descriptor open, and `as_raw_fd` returns that same
            // descriptor, until it is dropped with the `AsyncFd` that owns it.
            Ok(fd) => match unsafe { AsyncFd::register_with_interest(fd, Interest::READABLE) } {
                Ok(fd) => self.pending.push(Watch::Event(fd)),
                Err(_) => self.pending.push(Watch::Poll(pid)),
            },
            Err(e) if e.raw_os_error() == Some(libc::ESRCH) => {}
            Err(_) => self.pending.push(Watch::Poll(pid)),
        }
    }

    /// Completes when every watched process has ended. Cancel-safe: the ends seen before a
    /// cancellation are kept, so calling it again (say, in a `select!` loop) waits only for the
    /// rest. The caller bounds it with its own deadline.
    pub async fn all_gone(&mut self) {
        while let Some(w) = self.pending.last() {
            match w {
                // An error means the runtime is shutting down: nothing is left to wait for.
                Watch::Event(fd) => drop(fd.readable().await),
                Watch::Poll(pid) => {
                    while running(*pid) {
                        tokio::time::sleep(POLL_TICK).await;
                    }
                }
            }
            self.pending.pop();
        }
    }
}

/// Whether process `pid` exists and has not ended (a zombie has ended).
#[must_use]
pub fn running(pid: i32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    let state = stat
        .rsplit_once(") ")
        .and_then(|(_, rest)| rest.chars().next());
    !matches!(state, Some('Z' | 'X') | None)
}

/// A pidfd of process `pid` (`pidfd_open(2)`, no flags).
fn pidfd_open(pid: i32) -> io::Result<OwnedFd> {
    // SAFETY: pidfd_open(2) takes a pid and a flags word by value and returns a new descriptor
    // or -1; it touches no memory of this process.
    let r = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0u32) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    let fd = i32::try_from(r).map_err(|_| io::Error::other("descriptor out of range"))?;
    // SAFETY: `fd` was just returned by the kernel for this call: it is open and nothing else
    // owns it.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_end_of_a_process_that_is_not_our_child_is_an_event() {
        // A shell that starts `sleep` in the background and prints its pid: the sleep is the
        // shell's child, not ours, and is killed by its pid.
        let mut sh = tokio::process::Command::new("sh")
            .args(["-c", "sleep 60 & echo $!; wait"])
            .stdout(std::process::Stdio::piped())
            .process_group(0)
            .kill_on_drop(true)
            .spawn()
            .expect("sh");
        let pgid = sh.id().and_then(|p| i32::try_from(p).ok()).expect("pid");
        let mut out = String::new();
        let mut stdout = sh.stdout.take().expect("stdout");
        let mut buf = [0u8; 64];
        while !out.contains('\n') {
            let n = tokio::io::AsyncReadExt::read(&mut stdout, &mut buf)
                .await
                .expect("read");
            assert!(n > 0, "the shell printed no pid");
            out.push_str(&String::from_utf8_lossy(&buf[..n]));
        }
        let pid: i32 = out.trim().parse().expect("a pid");
        let mut exits = Exits::default();
        exits.watch(pid);
        assert!(running(pid));
        let mut waiting = Box::pin(async move {
            exits.all_gone().await;
            exits
        });
        assert!(
            futures_poll_once(&mut waiting).await.is_none(),
            "a running process is not gone"
        );
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(pgid),
            nix::sys::signal::Signal::SIGKILL,
        );
        let exits = tokio::time::timeout(Duration::from_secs(20), waiting)
            .await
            .expect("the end of the process is seen");
        assert!(exits.pending.is_empty());
        let _ = sh.wait().await;
    }

    #[tokio::test]
    async fn a_pid_that_does_not_exist_is_gone_at_once() {
        let mut exits = Exits::default();
        // Above the kernel's largest pid (4194304).
        exits.watch(i32::MAX);
        exits.watch(0);
        assert!(exits.pending.is_empty());
        exits.all_gone().await;
    }

    /// Polls `f` once: its output if it is ready now.
    async fn futures_poll_once<F: std::future::Future + Unpin>(f: &mut F) -> Option<F::Output> {
        std::future::poll_fn(|cx| {
            std::task::Poll::Ready(match std::pin::Pin::new(&mut *f).poll(cx) {
                std::task::Poll::Ready(v) => Some(v),
                std::task::Poll::Pending => None,
            })
        })
        .await
    }
}
