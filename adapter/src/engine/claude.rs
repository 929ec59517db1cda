//! The claude provider: version assertion (NAT-2), argv from the cli tree only (NAT-1, NAT-3..7),
//! a scrubbed environment (NAT-8) and a supervised spawn (SUP-1).

use std::ffi::{OsStr, OsString};
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::io::AsyncReadExt;

use super::provider::{BoxFuture, Checked, NativeProcess, PreflightError, Provider, RunSpec};
use super::{ErrorCode, ToolError};
use crate::cli_tree::{CliTree, Mode};
use crate::supervisor::{self, SpawnSpec};

/// Upper bound of one `claude --version` call (a 370 MB binary starting cold on a slow disk).
pub const VERSION_TIMEOUT: Duration = Duration::from_secs(15);
/// Most bytes of `--version` output read (the line is ~25 bytes).
const VERSION_OUTPUT_MAX: u64 = 4096;

/// Environment variables the native process never sees (NAT-8): the adapter's reserved
/// `COMPUTER_MCP_*` namespace and `CLAUDECODE`, under which claude refuses to start nested.
#[must_use]
pub fn is_scrubbed(key: &OsStr) -> bool {
    let k = key.as_encoded_bytes();
    k == b"CLAUDECODE" || k.starts_with(b"COMPUTER_MCP_")
}

/// The adapter's environment without the scrubbed variables (NAT-7: the user's own
/// credentials and settings stay).
#[must_use]
pub fn scrubbed_env() -> Vec<(OsString, OsString)> {
    scrub(std::env::vars_os())
}

/// Drops the scrubbed variables from `vars`.
pub fn scrub(vars: impl IntoIterator<Item = (OsString, OsString)>) -> Vec<(OsString, OsString)> {
    vars.into_iter().filter(|(k, _)| !is_scrubbed(k)).collect()
}

/// NAT-8 for the version check, which is not started through the supervisor: descriptors the
/// adapter itself inherited without close-on-exec (from its parent) must not reach the native
/// process. Runs between fork and exec, so it only makes system calls.
fn cloexec_from_3() {
    const CLOSE_RANGE_CLOEXEC: libc::c_uint = 1 << 2;
    // SAFETY: close_range(2) with CLOSE_RANGE_CLOEXEC only sets flags on descriptors.
    let r = unsafe { libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, CLOSE_RANGE_CLOEXEC) };
    if r == 0 {
        return;
    }
    // Kernels before 5.11: set the flag one by one up to the descriptor limit (bounded).
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes into the struct we own.
    let max = if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } == 0 {
        lim.rlim_cur.min(1 << 16) as libc::c_int
    } else {
        1024
    };
    for fd in 3..max {
        // SAFETY: F_SETFD on a descriptor number; EBADF for closed ones is ignored.
        unsafe {
            libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
        }
    }
}

/// Runs `claude -p --output-format stream-json …` (or the JSON mode for the CLI projection).
#[derive(Debug, Clone)]
pub struct ClaudeProvider {
    claude: PathBuf,
    tree: Arc<CliTree>,
    mode: Mode,
    supervisor_exe: Option<OsString>,
}

impl ClaudeProvider {
    /// `claude` is a path, or a bare name looked up on PATH at each run.
    #[must_use]
    pub fn new(claude: PathBuf, tree: Arc<CliTree>) -> Self {
        Self {
            claude,
            tree,
            mode: Mode::Stream,
            supervisor_exe: None,
        }
    }

    /// Runs in the given mode (`Mode::Json` for the CLI projection, CLI-1).
    #[must_use]
    pub fn with_mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// Uses `exe` as the supervisor instead of the current executable (benches and tests whose
    /// own binary is not the adapter).
    #[must_use]
    pub fn with_supervisor_exe(mut self, exe: impl Into<OsString>) -> Self {
        self.supervisor_exe = Some(exe.into());
        self
    }

    /// The native argv for a request (without the program).
    pub fn argv(&self, spec: &RunSpec) -> Result<Vec<OsString>, ToolError> {
        self.tree
            .argv(self.mode, &spec.options, &spec.prompt)
            .map_err(|e| ToolError::invalid_argument(e.pointer(), e.message))
    }

    /// Finds the program: a path is taken as is (made absolute), a bare name is looked up on PATH.
    fn resolve(&self) -> Result<PathBuf, ToolError> {
        let not_found = |os_error: String| {
            ToolError::new(
                ErrorCode::NativeNotFound,
                format!("cannot run {}: {os_error}", self.claude.display()),
            )
            .with("path", self.claude.display().to_string().into())
            .with("os_error", os_error.into())
        };
        if self.claude.components().count() > 1 || self.claude.is_absolute() {
            let p = if self.claude.is_absolute() {
                self.claude.clone()
            } else {
                std::env::current_dir()
                    .map_err(|e| not_found(e.to_string()))?
                    .join(&self.claude)
            };
            return match std::fs::metadata(&p) {
                Ok(m) if m.is_file() && m.permissions().mode() & 0o111 != 0 => Ok(p),
                Ok(_) => Err(not_found("not an executable file".into())),
                Err(e) => Err(not_found(e.to_string())),
            };
        }
        let path = std::env::var_os("PATH").unwrap_or_default();
        for dir in std::env::split_paths(&path) {
            if dir.as_os_str().is_empty() {
                continue;
            }
            let p = dir.join(&self.claude);
            if let Ok(m) = std::fs::metadata(&p)
                && m.is_file()
                && m.permissions().mode() & 0o111 != 0
            {
                return Ok(p);
            }
        }
        Err(not_found("not found on PATH".into()))
    }

    async fn check_version(
        &self,
        deadline: tokio::time::Instant,
    ) -> Result<Checked, PreflightError> {
        let program = self.resolve().map_err(PreflightError::Refused)?;
        let expected = self.tree.version.line.clone();
        let mut cmd = tokio::process::Command::new(&program);
        cmd.args(&self.tree.version.argv)
            .env_clear()
            .envs(scrubbed_env())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        // SAFETY: the hook only makes raw fcntl/close_range system calls, which are
        // async-signal-safe, allocate nothing and touch no memory of the parent.
        unsafe {
            cmd.pre_exec(|| {
                cloexec_from_3();
                Ok(())
            });
        }
        let mut child = cmd.spawn().map_err(|e| {
            PreflightError::Refused(
                ToolError::new(
                    ErrorCode::NativeNotFound,
                    format!("cannot run {}: {e}", program.display()),
                )
                .with("path", program.display().to_string().into())
                .with("os_error", e.to_string().into()),
            )
        })?;
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        let work = async {
            let mut out = Vec::new();
            let mut err = Vec::new();
            let read_out = async {
                if let Some(s) = stdout {
                    let _ = s.take(VERSION_OUTPUT_MAX).read_to_end(&mut out).await;
                }
            };
            let read_err = async {
                if let Some(s) = stderr {
                    let _ = s.take(VERSION_OUTPUT_MAX).read_to_end(&mut err).await;
                }
            };
            tokio::join!(read_out, read_err);
            let status = child.wait().await;
            (out, err, status)
        };
        let limit = deadline.min(tokio::time::Instant::now() + VERSION_TIMEOUT);
        let outcome = tokio::time::timeout_at(limit, work).await;
        let (out, err, status) = match outcome {
            Ok(r) => r,
            Err(_) => {
                // Bounded: kill the check's group and reap it before reporting (containment).
                if let Some(pid) = child.id()
                    && let Ok(pid) = i32::try_from(pid)
                {
                    let _ = nix::sys::signal::killpg(
                        nix::unistd::Pid::from_raw(pid),
                        nix::sys::signal::Signal::SIGKILL,
                    );
                }
                let _ = child.kill().await;
                if deadline <= tokio::time::Instant::now() {
                    return Err(PreflightError::DeadlinePassed);
                }
                return Err(PreflightError::Refused(
                    ToolError::new(
                        ErrorCode::VersionMismatch,
                        format!(
                            "{} {} did not answer within {} s",
                            program.display(),
                            self.tree.version.argv.join(" "),
                            VERSION_TIMEOUT.as_secs()
                        ),
                    )
                    .with("expected", expected.into())
                    .with("actual", Value::Null),
                ));
            }
        };
        let text = String::from_utf8_lossy(&out);
        let actual = text.lines().next().unwrap_or("").trim().to_owned();
        let status_ok = status.as_ref().is_ok_and(std::process::ExitStatus::success);
        if actual == expected && status_ok {
            return Ok(Checked { program });
        }
        let mut message = format!(
            "{} reports version {actual:?}, this adapter is pinned to {expected:?}",
            program.display()
        );
        if !status_ok {
            let detail = match &status {
                Ok(s) => s.to_string(),
                Err(e) => e.to_string(),
            };
            let stderr_line = String::from_utf8_lossy(&err)
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .map(|l| format!(": {l}"))
                .unwrap_or_default();
            message.push_str(&format!(" (the version check {detail}{stderr_line})"));
        }
        Err(PreflightError::Refused(
            ToolError::new(ErrorCode::VersionMismatch, message)
                .with("expected", expected.into())
                .with("actual", actual.into())
                .with("path", program.display().to_string().into()),
        ))
    }
}

impl Provider for ClaudeProvider {
    fn check(&self, spec: &RunSpec) -> Result<(), ToolError> {
        self.argv(spec).map(|_| ())
    }

    fn preflight(
        &self,
        deadline: tokio::time::Instant,
    ) -> BoxFuture<'_, Result<Checked, PreflightError>> {
        Box::pin(self.check_version(deadline))
    }

    fn spawn<'a>(
        &'a self,
        checked: &'a Checked,
        spec: &'a RunSpec,
    ) -> BoxFuture<'a, Result<Box<dyn NativeProcess>, ToolError>> {
        Box::pin(async move {
            let args = self.argv(spec)?;
            let sspec = SpawnSpec {
                program: checked.program.clone(),
                args,
                cwd: spec.cwd.clone(),
                env: scrubbed_env(),
                grace: supervisor::TERM_GRACE,
            };
            let spawned = match &self.supervisor_exe {
                Some(exe) => supervisor::spawn_with(exe, sspec).await,
                None => supervisor::spawn(sspec).await,
            };
            match spawned {
                Ok(s) => Ok(Box::new(s) as Box<dyn NativeProcess>),
                Err(e) => Err(ToolError::new(
                    ErrorCode::SpawnFailed,
                    format!("cannot start {}: {e}", checked.program.display()),
                )),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use std::path::Path;

    fn tree() -> Arc<CliTree> {
        Arc::new(CliTree::embedded().expect("tree"))
    }

    fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).expect("write");
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        p
    }

    fn far() -> tokio::time::Instant {
        tokio::time::Instant::now() + Duration::from_secs(60)
    }

    fn refused(r: Result<Checked, PreflightError>) -> ToolError {
        match r {
            Err(PreflightError::Refused(e)) => e,
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn scrubbing_drops_reserved_variables_only() {
        // NAT-8.
        assert!(is_scrubbed(OsStr::new("CLAUDECODE")));
        assert!(is_scrubbed(OsStr::new("COMPUTER_MCP_ANYTHING")));
        assert!(!is_scrubbed(OsStr::new("CLAUDECODE_X")));
        assert!(!is_scrubbed(OsStr::new("ANTHROPIC_API_KEY")));
        assert!(!is_scrubbed(OsStr::new("PATH")));
        let kept = scrub([
            ("CLAUDECODE".into(), "1".into()),
            ("COMPUTER_MCP_X".into(), "y".into()),
            ("HOME".into(), "/h".into()),
        ]);
        assert_eq!(kept, vec![(OsString::from("HOME"), OsString::from("/h"))]);
    }

    #[tokio::test]
    async fn a_missing_binary_is_native_not_found_with_path_and_os_error() {
        let p = ClaudeProvider::new("/nonexistent/claude".into(), tree());
        let e = refused(p.preflight(far()).await);
        assert_eq!(e.code, ErrorCode::NativeNotFound);
        assert_eq!(e.extra["path"], "/nonexistent/claude");
        assert!(e.extra["os_error"].as_str().is_some_and(|s| !s.is_empty()));
        let p = ClaudeProvider::new("no-such-claude-binary-here".into(), tree());
        let e = refused(p.preflight(far()).await);
        assert_eq!(e.code, ErrorCode::NativeNotFound);
        assert_eq!(e.extra["os_error"], "not found on PATH");
    }

    #[tokio::test]
    async fn the_pinned_version_passes_and_another_is_version_mismatch() {
        let dir = tempfile::tempdir().expect("dir");
        let good = script(dir.path(), "good", "echo '2.1.328 (Claude Code)'");
        let p = ClaudeProvider::new(good.clone(), tree());
        assert_eq!(p.preflight(far()).await, Ok(Checked { program: good }));

        let bad = script(dir.path(), "bad", "echo '2.1.329 (Claude Code)'");
        let e = refused(ClaudeProvider::new(bad, tree()).preflight(far()).await);
        assert_eq!(e.code, ErrorCode::VersionMismatch);
        assert_eq!(e.extra["expected"], "2.1.328 (Claude Code)");
        assert_eq!(e.extra["actual"], "2.1.329 (Claude Code)");

        let failing = script(
            dir.path(),
            "failing",
            "echo '2.1.328 (Claude Code)'; echo oops >&2; exit 3",
        );
        let e = refused(ClaudeProvider::new(failing, tree()).preflight(far()).await);
        assert_eq!(e.code, ErrorCode::VersionMismatch);
        assert!(e.message.contains("oops"), "{}", e.message);
    }

    #[tokio::test]
    async fn the_version_check_gets_no_stdin() {
        let dir = tempfile::tempdir().expect("dir");
        let log = dir.path().join("log");
        let body = format!(
            "readlink /proc/self/fd/0 > {log}; echo '2.1.328 (Claude Code)'",
            log = log.display()
        );
        let s = script(dir.path(), "probe", &body);
        assert!(
            ClaudeProvider::new(s, tree())
                .preflight(far())
                .await
                .is_ok()
        );
        let text = std::fs::read_to_string(&log).expect("log");
        assert_eq!(text.trim(), "/dev/null");
    }

    #[tokio::test]
    async fn a_hanging_version_check_is_bounded_by_the_deadline() {
        let dir = tempfile::tempdir().expect("dir");
        let s = script(dir.path(), "hang", "sleep 30");
        let deadline = tokio::time::Instant::now() + Duration::from_millis(300);
        let r = ClaudeProvider::new(s, tree()).preflight(deadline).await;
        assert_eq!(r, Err(PreflightError::DeadlinePassed));
    }

    #[test]
    fn argv_comes_from_the_tree_with_field_errors() {
        let p = ClaudeProvider::new("claude".into(), tree());
        let mut spec = RunSpec {
            prompt: "-p".into(),
            cwd: "/".into(),
            timeout: Duration::from_secs(1),
            options: BTreeMap::new(),
        };
        let argv = p.argv(&spec).expect("argv");
        assert_eq!(argv.last().map(OsString::as_os_str), Some(OsStr::new("-p")));
        spec.options.insert(
            "permission_mode".into(),
            crate::cli_tree::OptionValue::Text("bypassPermissions".into()),
        );
        let e = p.argv(&spec).expect_err("refused");
        assert_eq!(e.code, ErrorCode::InvalidArguments);
        assert_eq!(e.extra["field"], "/permission_mode");
    }
}
