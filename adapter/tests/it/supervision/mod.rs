//! Supervision tests (SUP-1..4, NAT-7, NAT-8): the supervisor driven through its library API from
//! this test process, containment when the process holding the lifeline is SIGKILLed, and the
//! `cli run` (CLI-1) and `cli-tree check` (NAT-1) entry points of the built binary.
//!
//! The native processes here are small `sh` scripts: they are exact about process-tree shapes
//! (a grandchild, a TERM-ignoring leader, a descendant that leaves the group).

mod api;
mod cli_projection;
mod containment;
mod drift;
mod handover;
mod refresh;
mod stdin;
mod version_check;

use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;

use cmk_supervisor::{self as supervisor, SpawnSpec, StdinMode, Supervised};
use tokio::io::AsyncReadExt;

/// Generous bound for anything a test waits on (shared, slow machine): only to avoid hangs.
pub const BOUND: Duration = Duration::from_secs(20);

/// The built adapter binary, which is also the supervisor executable.
pub fn adapter_exe() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_claude-mcp-adapter"))
}

/// A spec running `sh -c script` in `/` with a minimal, known environment.
pub fn sh(script: &str, grace: Duration) -> SpawnSpec {
    SpawnSpec {
        program: "/bin/sh".into(),
        args: vec!["-c".into(), script.into()],
        cwd: "/".into(),
        env: vec![
            ("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into()),
            ("SUPERVISION_TEST".into(), "1".into()),
        ],
        grace,
        stdin: StdinMode::Null,
    }
}

/// Spawns `spec` under the built adapter's supervisor.
pub async fn spawn(spec: SpawnSpec) -> Supervised {
    supervisor::spawn_with(adapter_exe().as_os_str(), spec)
        .await
        .expect("supervised spawn")
}

/// Waits (bounded) until `pid`, a native `/usr/bin/sleep`, is asleep: past its exec and its own
/// start-up, so that its descriptors and environment are the ones it keeps (NAT-7, NAT-8 checks).
///
/// The supervisor's `spawned` report (like a script's line printed before `exec sleep`) comes
/// once exec succeeded, not once the new program is running: for a few microseconds after exec
/// the dynamic loader holds descriptors of its own (fd 3: `/etc/ld.so.cache`, then `libc.so.6`,
/// opened close-on-exec and closed at once), and before the kernel finished the exec
/// `/proc/<pid>/environ` reads empty. On a loaded machine a test looking at once sometimes saw
/// either (one CI run found "fd 3" in the native `sleep`). Asleep (`S`, with its own executable)
/// `sleep` is in its nanosleep, past both. Nothing signals that moment, hence the poll; it cannot
/// hide a leak: a descriptor the native inherited stays open for as long as `sleep` runs.
pub fn wait_asleep(pid: u32) {
    let deadline = std::time::Instant::now() + BOUND;
    loop {
        let asleep = testkit::procs::stat(pid).is_some_and(|st| st.state == 'S')
            && testkit::procs::exe(pid).is_some_and(|exe| exe.ends_with("sleep"));
        if asleep {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "native {pid} not asleep in `sleep` within {BOUND:?}: {:?}",
            testkit::procs::stat(pid)
        );
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// The descriptors of `pid` with what they point at, for assertion messages.
pub fn fd_table(pid: u32) -> Vec<(i32, Option<std::path::PathBuf>)> {
    testkit::procs::open_fds(pid)
        .unwrap_or_default()
        .into_iter()
        .map(|fd| (fd, std::fs::read_link(format!("/proc/{pid}/fd/{fd}")).ok()))
        .collect()
}

/// Reads one line from the native stdout (bounded), e.g. a pid the script printed.
pub async fn first_line(s: &mut Supervised) -> String {
    let out = s.stdout.as_mut().expect("stdout");
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    tokio::time::timeout(BOUND, async {
        while out.read(&mut byte).await.expect("read stdout") == 1 && byte[0] != b'\n' {
            line.push(byte[0]);
        }
    })
    .await
    .expect("a line on the native stdout");
    String::from_utf8(line).expect("utf-8")
}

/// The strings of a NUL-separated `/proc` file (environ, cmdline).
pub fn nul_separated(bytes: &[u8]) -> Vec<OsString> {
    use std::os::unix::ffi::OsStrExt;
    bytes
        .split(|&b| b == 0)
        .filter(|s| !s.is_empty())
        .map(|s| std::ffi::OsStr::from_bytes(s).to_owned())
        .collect()
}
