//! The peer under test as a child process, contained as the rest of this repository does it: it
//! leads its own process group; it gets `SIGKILL` if the thread that started it dies
//! (`PR_SET_PDEATHSIG`: the tool spawns from its main thread, so that is the tool dying, even by
//! `SIGKILL`), and so does the rest of its group (the lifeline watchdog, [`cmk_lifeline`], which
//! the binary starts first thing, and with which the child registers its group before it execs:
//! C-SUP-5); when the tool is asked to end (`SIGTERM`, `SIGINT`, `SIGHUP`: see
//! [`contain_signals`]) the whole group gets `SIGKILL` first; and it is shut down explicitly: stdin
//! closed, a bounded wait, `SIGTERM` to the whole group, a short wait, `SIGKILL` to the group,
//! reaped. Escaping the group (`setsid`) escapes this: owned process-group cleanup, not a
//! sandbox.

use std::ffi::OsString;
use std::io::Read as _;
use std::os::unix::process::CommandExt as _;
use std::process::{ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nix::sys::signal::{SigSet, Signal, killpg};
use nix::sys::wait::{WaitStatus, waitpid};
use nix::unistd::Pid;

use crate::error::{Error, Result};

/// How long the peer may take to exit after its stdin closed.
pub const EXIT_GRACE: Duration = Duration::from_secs(2);
/// How long after `SIGTERM` before `SIGKILL`.
pub const TERM_GRACE: Duration = Duration::from_millis(500);
/// The bounded stderr tail kept for reports.
pub const STDERR_TAIL: usize = 8 * 1024;

/// The process group of the running peer (0: none), for the signal thread.
static GROUP: AtomicI32 = AtomicI32::new(0);

/// The signals that end the tool: blocked in every thread and taken by one thread, which kills
/// the peer's group and exits with 128 + the signal.
fn ending_signals() -> SigSet {
    let mut set = SigSet::empty();
    for s in [Signal::SIGTERM, Signal::SIGINT, Signal::SIGHUP] {
        set.add(s);
    }
    set
}

/// Call first thing in `main` (before any thread): `SIGTERM`, `SIGINT` and `SIGHUP` then kill
/// the peer's whole group before the tool exits, instead of leaving it running.
pub fn contain_signals() -> Result<()> {
    let set = ending_signals();
    set.thread_block()
        .map_err(|e| Error::Peer(std::io::Error::from(e)))?;
    std::thread::spawn(move || {
        if let Ok(sig) = set.wait() {
            let pgid = GROUP.load(Ordering::SeqCst);
            if pgid > 0 {
                let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
            }
            std::process::exit(128 + sig as i32);
        }
    });
    Ok(())
}

/// How the peer's stderr is handled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stderr {
    /// Passed to ours unchanged (the recording proxy: the host sees it as it would).
    Inherit,
    /// Kept as a bounded tail for the report.
    Tail,
}

/// How the peer ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exit {
    /// Its exit code.
    pub code: Option<i32>,
    /// The signal that ended it.
    pub signal: Option<i32>,
}

/// A running peer.
#[derive(Debug)]
pub struct Peer {
    exited: Receiver<Exit>,
    status: Option<Exit>,
    pgid: i32,
    /// Its stdin, until closed.
    pub stdin: Option<ChildStdin>,
    /// Its stdout, until taken.
    pub stdout: Option<ChildStdout>,
    tail: Arc<Mutex<Vec<u8>>>,
}

impl Peer {
    /// Starts `argv` in its own process group with piped stdin and stdout.
    pub fn spawn(argv: &[OsString], stderr: Stderr) -> Result<Self> {
        Self::spawn_env(argv, stderr, None)
    }

    /// As [`Self::spawn`]; with `env`, the peer's environment is exactly those variables (ours
    /// cleared), otherwise it inherits ours.
    pub fn spawn_env(
        argv: &[OsString],
        stderr: Stderr,
        env: Option<&[(OsString, OsString)]>,
    ) -> Result<Self> {
        let Some((program, args)) = argv.split_first() else {
            return Err(Error::Spawn {
                program: String::new(),
                source: std::io::Error::other("no command given"),
            });
        };
        let mut cmd = Command::new(program);
        cmd.args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(match stderr {
                Stderr::Inherit => Stdio::inherit(),
                Stderr::Tail => Stdio::piped(),
            })
            .process_group(0);
        if let Some(vars) = env {
            cmd.env_clear().envs(vars.iter().map(|(k, v)| (k, v)));
        }
        // SAFETY: prctl and sigprocmask are async-signal-safe; nothing else runs between fork
        // and exec. The mask is inherited across exec: the peer must not keep ours blocked.
        unsafe {
            cmd.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                let mut empty: libc::sigset_t = std::mem::zeroed();
                libc::sigemptyset(&raw mut empty);
                if libc::sigprocmask(libc::SIG_SETMASK, &raw const empty, std::ptr::null_mut()) != 0
                {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        // C-SUP-5: the group is registered with the lifeline from the child, before it execs
        // (after the hook above), so a tool killed right after the spawn still takes it down.
        let mut child =
            cmk_lifeline::spawn_registered(&mut cmd, |c| c, Command::spawn).map_err(|source| {
                Error::Spawn {
                    program: program.to_string_lossy().into_owned(),
                    source,
                }
            })?;
        let pgid = i32::try_from(child.id()).unwrap_or_default();
        GROUP.store(pgid, Ordering::SeqCst);
        cmk_lifeline::register(pgid);
        let tail = Arc::new(Mutex::new(Vec::new()));
        if let Some(mut err) = child.stderr.take() {
            let tail = tail.clone();
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                while let Ok(n) = err.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    if let Ok(mut t) = tail.lock() {
                        t.extend_from_slice(&buf[..n]);
                        let over = t.len().saturating_sub(STDERR_TAIL);
                        t.drain(..over);
                    }
                }
            });
        }
        // A reaper thread: its message is the exit event every wait below blocks on.
        let (tx, exited) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            loop {
                let exit = match waitpid(Pid::from_raw(pgid), None) {
                    Ok(WaitStatus::Exited(_, code)) => Exit {
                        code: Some(code),
                        signal: None,
                    },
                    Ok(WaitStatus::Signaled(_, sig, _)) => Exit {
                        code: None,
                        signal: Some(sig as i32),
                    },
                    Ok(_) | Err(nix::errno::Errno::EINTR) => continue,
                    Err(_) => Exit {
                        code: None,
                        signal: None,
                    },
                };
                let _ = tx.send(exit);
                return;
            }
        });
        Ok(Self {
            stdin: child.stdin.take(),
            stdout: child.stdout.take(),
            exited,
            status: None,
            pgid,
            tail,
        })
    }

    /// The process group (= the peer's pid).
    #[must_use]
    pub fn pgid(&self) -> i32 {
        self.pgid
    }

    /// The stderr tail so far (empty with [`Stderr::Inherit`]).
    #[must_use]
    pub fn stderr_tail(&self) -> String {
        self.tail
            .lock()
            .map(|t| String::from_utf8_lossy(&t).into_owned())
            .unwrap_or_default()
    }

    /// How it ended, if it has.
    pub fn try_exited(&mut self) -> Option<Exit> {
        self.wait_for(Duration::ZERO)
    }

    /// Shuts it down: stdin closed, [`EXIT_GRACE`] to exit, `SIGTERM` to the group,
    /// [`TERM_GRACE`], `SIGKILL` to the group, reaped. Returns how it ended.
    pub fn shutdown(&mut self) -> Option<Exit> {
        self.shutdown_within(EXIT_GRACE)
    }

    /// As [`Self::shutdown`], the peer given `grace` (not [`EXIT_GRACE`]) to exit on its own.
    pub fn shutdown_within(&mut self, grace: Duration) -> Option<Exit> {
        drop(self.stdin.take());
        let status = self.wait_for(grace).or_else(|| {
            let _ = killpg(Pid::from_raw(self.pgid), Signal::SIGTERM);
            self.wait_for(TERM_GRACE)
        });
        // The group may outlive its leader (a grandchild): SIGKILL it either way.
        let _ = killpg(Pid::from_raw(self.pgid), Signal::SIGKILL);
        cmk_lifeline::unregister(self.pgid);
        status.or_else(|| self.wait_for(TERM_GRACE))
    }

    /// Waits at most `bound` for the reaper's exit event.
    pub fn wait_for(&mut self, bound: Duration) -> Option<Exit> {
        if self.status.is_none() {
            match self.exited.recv_timeout(bound) {
                Ok(e) => self.status = Some(e),
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => {}
            }
        }
        self.status
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        // A backstop only: every path calls shutdown first.
        let _ = killpg(Pid::from_raw(self.pgid), Signal::SIGKILL);
        cmk_lifeline::unregister(self.pgid);
    }
}

/// An exit status as a shell would report it (128 + signal for a signal).
#[must_use]
pub fn exit_code(status: Option<Exit>) -> i32 {
    match status {
        Some(Exit {
            code: Some(code), ..
        }) => code,
        Some(Exit {
            signal: Some(n), ..
        }) => 128 + n,
        _ => 1,
    }
}
