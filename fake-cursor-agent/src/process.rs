//! Process-level ends: exiting with a status, dying by a signal, hanging. Every hang is bounded
//! by a safety lifetime (env `FAKE_CURSOR_MAX_LIFETIME_S`, default 600 s) so a leaked fake never
//! outlives a test run for long; tests kill the process group far sooner, so the cap never
//! decides one.

use std::io::Write as _;
use std::time::{Duration, Instant};

use nix::sys::signal::{self, SigHandler, Signal};
use nix::unistd::Pid;

/// Env variable: seconds any hang lasts at most.
pub const ENV_MAX_LIFETIME: &str = "FAKE_CURSOR_MAX_LIFETIME_S";
const DEFAULT_MAX_LIFETIME: Duration = Duration::from_secs(600);
/// Exit status when the safety lifetime ends a hang.
pub const LIFETIME_EXIT: i32 = 99;

fn max_lifetime() -> Duration {
    std::env::var(ENV_MAX_LIFETIME)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(DEFAULT_MAX_LIFETIME, Duration::from_secs)
}

/// Never returns: sleeps until the safety lifetime, then exits 99. The reader thread keeps
/// reading (and logging) stdin meanwhile, until its queue is full.
pub fn hang() -> ! {
    let until = Instant::now() + max_lifetime();
    while let Some(left) = until.checked_duration_since(Instant::now()) {
        std::thread::sleep(left.min(Duration::from_secs(1)));
    }
    exit(LIFETIME_EXIT)
}

/// Flushes stdout and exits with `code`.
pub fn exit(code: i32) -> ! {
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    std::process::exit(code)
}

/// Dies by `sig`: default disposition, no core file, raised at the whole process.
pub fn die_by(sig: Signal) -> ! {
    let _ = std::io::stdout().flush();
    let _ = nix::sys::resource::setrlimit(nix::sys::resource::Resource::RLIMIT_CORE, 0, 0);
    // SAFETY: restoring SIG_DFL installs no handler, so no code runs in signal context.
    let _ = unsafe { signal::signal(sig, SigHandler::SigDfl) };
    // SIGTERM may be blocked (see `input::guard_sigterm`): this thread takes it.
    let mut set = signal::SigSet::empty();
    set.add(sig);
    let _ = signal::pthread_sigmask(signal::SigmaskHow::SIG_UNBLOCK, Some(&set), None);
    let _ = signal::kill(Pid::this(), sig);
    std::thread::sleep(Duration::from_millis(200));
    let _ = signal::kill(Pid::this(), Signal::SIGKILL);
    exit(LIFETIME_EXIT)
}

/// A signal by name (`"SIGKILL"`, `"KILL"`) or number.
pub fn signal_from(v: &serde_json::Value) -> Option<Signal> {
    if let Some(n) = v.as_i64() {
        return Signal::try_from(i32::try_from(n).ok()?).ok();
    }
    let name = v.as_str()?.trim().to_ascii_uppercase();
    let name = if name.starts_with("SIG") {
        name
    } else {
        format!("SIG{name}")
    };
    name.parse::<Signal>().ok()
}
