//! Process-level behaviour: hanging, ignoring signals, dying by a signal, and starting children
//! that stay in the process group or escape it with `setsid` (SUP-1..4 exercise these).
//!
//! The fake is single-threaded, which is what makes `fork` here sound. Every wait is bounded by a
//! safety lifetime (env `FAKE_CLAUDE_MAX_LIFETIME_S`, default 600 s) so a leaked fake never
//! outlives a test run for long; tests use far shorter bounds, so the cap never decides one.

use std::io::{Read as _, Write as _};
use std::time::{Duration, Instant};

use nix::sys::signal::{self, SigHandler, Signal};
use nix::unistd::{ForkResult, Pid};

use crate::scenario::ForkSpec;

/// Env variable: seconds any hang (of the fake or its children) lasts at most.
pub const ENV_MAX_LIFETIME: &str = "FAKE_CLAUDE_MAX_LIFETIME_S";
const DEFAULT_MAX_LIFETIME: Duration = Duration::from_secs(600);
/// Exit code when the safety lifetime ends a hang.
pub const LIFETIME_EXIT: i32 = 99;
/// Env variable naming the file an escaping (`setsid`) child appends its pid to.
pub const ENV_ESCAPEE_PIDFILE: &str = "FAKE_CLAUDE_ESCAPEE_PIDFILE";
/// Env variable naming the file an in-group child appends its pid to.
pub const ENV_CHILD_PIDFILE: &str = "FAKE_CLAUDE_CHILD_PIDFILE";
/// An escaped child always exits by itself: by default after 20 s, never later than 60 s.
const ESCAPEE_DEFAULT: Duration = Duration::from_secs(20);
const ESCAPEE_MAX: Duration = Duration::from_secs(60);

fn max_lifetime() -> Duration {
    std::env::var(ENV_MAX_LIFETIME)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(DEFAULT_MAX_LIFETIME, Duration::from_secs)
}

/// Sleeps for `d`, or "forever" (until the safety lifetime) when `d` is `None`, then exits.
pub fn hang(d: Option<Duration>) -> ! {
    let limit = max_lifetime();
    let d = d.map_or(limit, |d| d.min(limit));
    let until = Instant::now() + d;
    while let Some(left) = until.checked_duration_since(Instant::now()) {
        std::thread::sleep(left.min(Duration::from_secs(1)));
    }
    std::process::exit(if d == limit { LIFETIME_EXIT } else { 0 })
}

/// Sets `sig` to be ignored (inherited by children forked afterwards).
pub fn ignore(sig: Signal) {
    // SAFETY: installing SIG_IGN runs no code in signal context; the process is single-threaded.
    let _ = unsafe { signal::signal(sig, SigHandler::SigIgn) };
}

/// Dies by `sig`: default disposition, no core file, raise; SIGKILL if that did not kill us.
pub fn die_by(sig: Signal) -> ! {
    let _ = nix::sys::resource::setrlimit(nix::sys::resource::Resource::RLIMIT_CORE, 0, 0);
    // SAFETY: restoring SIG_DFL runs no code in signal context; the process is single-threaded.
    let _ = unsafe { signal::signal(sig, SigHandler::SigDfl) };
    let _ = signal::raise(sig);
    let _ = signal::kill(Pid::this(), Signal::SIGKILL);
    std::process::exit(LIFETIME_EXIT)
}

/// Starts a child per `spec` and returns once it is set up (after `setsid` and its pid file),
/// so whatever the scenario does next happens with the child already in place.
pub fn fork_child(spec: &ForkSpec) -> Result<Pid, String> {
    let _ = std::io::stdout().flush();
    let (ready_r, ready_w) = nix::unistd::pipe().map_err(|e| format!("pipe: {e}"))?;
    // SAFETY: the fake is single-threaded, so the child owns a consistent copy of the process;
    // it only makes plain syscalls and exits.
    match unsafe { nix::unistd::fork() }.map_err(|e| format!("fork: {e}"))? {
        ForkResult::Parent { child } => {
            drop(ready_w);
            let mut byte = [0u8; 1];
            let _ = std::fs::File::from(ready_r).read(&mut byte);
            Ok(child)
        }
        ForkResult::Child => {
            drop(ready_r);
            child_main(spec, std::fs::File::from(ready_w))
        }
    }
}

fn child_main(spec: &ForkSpec, mut ready: std::fs::File) -> ! {
    if spec.setsid {
        let _ = nix::unistd::setsid();
    }
    if spec.ignore_sigterm {
        ignore(Signal::SIGTERM);
    }
    if spec.close_stdio
        && let Ok(null) = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/null")
    {
        let _ = nix::unistd::dup2_stdin(&null);
        let _ = nix::unistd::dup2_stdout(&null);
        let _ = nix::unistd::dup2_stderr(&null);
    }
    let default_env = if spec.setsid {
        ENV_ESCAPEE_PIDFILE
    } else {
        ENV_CHILD_PIDFILE
    };
    let var = spec.pidfile_env.as_deref().unwrap_or(default_env);
    if let Some(path) = std::env::var_os(var).filter(|p| !p.is_empty()) {
        let line = format!("{}\n", std::process::id());
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            let _ = f.write_all(line.as_bytes());
        }
    }
    let _ = ready.write_all(b"r");
    drop(ready);
    let lifetime = spec.lifetime_ms.map(Duration::from_millis);
    let lifetime = if spec.setsid {
        // An escaped child is beyond group cleanup: it must end by itself (tests never leak it).
        Some(lifetime.unwrap_or(ESCAPEE_DEFAULT).min(ESCAPEE_MAX))
    } else {
        lifetime
    };
    hang(lifetime)
}
