//! The claude provider: version assertion (NAT-2), argv from the cli tree only (NAT-1, NAT-3..7),
//! a scrubbed environment (NAT-8) and a supervised spawn (SUP-1).

use std::ffi::{OsStr, OsString};
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
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

/// Linux's limit for one argv string, its terminating NUL included (`MAX_ARG_STRLEN`, 32 pages).
pub const ARG_STRLEN_MAX: usize = 32 * 4096;

/// `execve` refuses an argv string of [`ARG_STRLEN_MAX`] bytes or more (`E2BIG`). RUN-0 accepts
/// a prompt of up to 128 KiB, one byte more than Linux can pass: such a run fails
/// `spawn_failed`, saying why, rather than blaming the supervisor that could not start.
fn too_long_for_exec(args: &[OsString]) -> Result<(), ToolError> {
    match args.iter().find(|a| a.len() >= ARG_STRLEN_MAX) {
        None => Ok(()),
        Some(a) => Err(ToolError::new(
            ErrorCode::SpawnFailed,
            format!(
                "an argument of {} bytes cannot be passed to the native process: Linux takes at \
                 most {} bytes per argument, its terminating NUL included (MAX_ARG_STRLEN)",
                a.len(),
                ARG_STRLEN_MAX
            ),
        )),
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

    /// Starts `spec` under a supervisor (the configured executable, else this one).
    async fn supervised(&self, spec: SpawnSpec) -> Result<supervisor::Supervised, String> {
        match &self.supervisor_exe {
            Some(exe) => supervisor::spawn_with(exe, spec).await,
            None => supervisor::spawn(spec).await,
        }
        .map_err(|e| e.to_string())
    }

    /// NAT-2: `claude --version` against the pinned line. The check is a native process of the
    /// run like any other: it runs under its own supervisor (SUP-1), so it dies with the adapter
    /// even on SIGKILL (SUP-2), members it leaves in its group are ended, and it gets stdin
    /// `/dev/null`, the scrubbed environment and no other descriptor (C-NAT-2).
    async fn check_version(
        &self,
        deadline: tokio::time::Instant,
    ) -> Result<Checked, PreflightError> {
        let program = self.resolve().map_err(PreflightError::Refused)?;
        let spec = SpawnSpec {
            program: program.clone(),
            args: self.tree.version.argv.iter().map(OsString::from).collect(),
            cwd: std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")),
            env: scrubbed_env(),
            grace: supervisor::TERM_GRACE,
            stdin: supervisor::StdinMode::Null,
        };
        let mut check = self.supervised(spec).await.map_err(|e| {
            PreflightError::Refused(
                ToolError::new(
                    ErrorCode::NativeNotFound,
                    format!("cannot run {}: {e}", program.display()),
                )
                .with("path", program.display().to_string().into())
                .with("os_error", e.into()),
            )
        })?;
        let verdict = self.judge(&mut check, &program, deadline).await;
        // Ends members the check left in its group (bounded); RUN-10 when that is not confirmed.
        let report = check.cleanup().await;
        if report.confirmed {
            return verdict;
        }
        Err(PreflightError::Uncleaned {
            verdict: Box::new(verdict),
            cleanup: super::outcome::Cleanup {
                confirmed: false,
                survivors: report.survivors,
                error: report.error,
            },
        })
    }

    /// Reads the check's answer (bounded by the run's deadline and [`VERSION_TIMEOUT`]; a check
    /// that does not answer in time is killed) and judges it against the pinned line.
    async fn judge(
        &self,
        check: &mut supervisor::Supervised,
        program: &std::path::Path,
        deadline: tokio::time::Instant,
    ) -> Result<Checked, PreflightError> {
        let expected = self.tree.version.line.clone();
        let stdout = check.stdout.take();
        let stderr = check.stderr.take();
        let mut out = Vec::new();
        let mut err = Vec::new();
        let work = async {
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
            check.exited().await
        };
        let limit = deadline.min(tokio::time::Instant::now() + VERSION_TIMEOUT);
        let Ok(status) = tokio::time::timeout_at(limit, work).await else {
            // Bounded: SIGKILL to the check's group at once; the caller awaits its cleanup.
            check.terminate();
            check.kill_now();
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
        };
        let text = String::from_utf8_lossy(&out);
        let actual = text.lines().next().unwrap_or("").trim().to_owned();
        let status_ok = status.is_some_and(|s| s.code == Some(0));
        if actual == expected && status_ok {
            return Ok(Checked {
                program: program.to_owned(),
            });
        }
        let mut message = format!(
            "{} reports version {actual:?}, this adapter is pinned to {expected:?}",
            program.display()
        );
        if !status_ok {
            let detail = super::outcome::describe_exit(status);
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
            too_long_for_exec(&args)?;
            let sspec = SpawnSpec {
                program: checked.program.clone(),
                args,
                cwd: spec.cwd.clone(),
                env: scrubbed_env(),
                grace: supervisor::TERM_GRACE,
                stdin: supervisor::StdinMode::Null,
            };
            match self.supervised(sspec).await {
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

    fn tree() -> Arc<CliTree> {
        Arc::new(CliTree::embedded().expect("tree"))
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
    async fn an_argument_linux_cannot_pass_is_spawn_failed_saying_why() {
        // RUN-0's 128 KiB is one byte over MAX_ARG_STRLEN (which counts the NUL).
        let p = ClaudeProvider::new("claude".into(), tree());
        let checked = Checked {
            program: "/nonexistent/never-started".into(),
        };
        let mut spec = RunSpec {
            prompt: "x".repeat(ARG_STRLEN_MAX),
            cwd: "/".into(),
            timeout: Duration::from_secs(1),
            options: BTreeMap::new(),
        };
        let e = match p.spawn(&checked, &spec).await {
            Err(e) => e,
            Ok(_) => panic!("spawned an impossible argv"),
        };
        assert_eq!(e.code, ErrorCode::SpawnFailed);
        assert!(e.message.contains("MAX_ARG_STRLEN"), "{}", e.message);
        assert!(e.message.contains("131072 bytes"), "{}", e.message);
        spec.prompt.pop();
        assert!(too_long_for_exec(&p.argv(&spec).expect("argv")).is_ok());
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
