//! What every native CLI provider does the same way (NAT-2, NAT-8, SUP-1): finding the program,
//! asserting its version against the pinned tree's line under the run's supervisor, starting the
//! run under that same supervisor, and the scrubbed environment. A provider holds a
//! [`NativeBinary`] and adds its own argv, stdin and dialect.

use std::ffi::{OsStr, OsString};
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::io::AsyncReadExt;

use crate::cli_tree::CliTree;
use cmk_engine::provider::{Checked, PreflightError};
use cmk_engine::{ErrorCode, ToolError};
use cmk_supervisor::{self as supervisor, SpawnSpec};

/// Upper bound of one `--version` call (a 370 MB binary starting cold on a slow disk).
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

/// Variables held back from one native process on top of [`is_scrubbed`] (NAT-8): each
/// provider's list of the other providers' credentials, and the user's `--env-deny` patterns.
/// A pattern is an exact name, or a prefix followed by `*`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvDeny {
    patterns: Vec<String>,
}

impl EnvDeny {
    /// The patterns `names` (exact names, or `PREFIX*`).
    #[must_use]
    pub fn new<S: Into<String>>(names: impl IntoIterator<Item = S>) -> Self {
        Self {
            patterns: names.into_iter().map(Into::into).collect(),
        }
    }

    /// These patterns and `more`'s.
    #[must_use]
    pub fn with(mut self, more: &EnvDeny) -> Self {
        self.patterns.extend(more.patterns.iter().cloned());
        self
    }

    /// Whether `key` is held back.
    #[must_use]
    pub fn denies(&self, key: &OsStr) -> bool {
        let k = key.as_encoded_bytes();
        self.patterns.iter().any(|p| match p.strip_suffix('*') {
            Some(prefix) => k.starts_with(prefix.as_bytes()),
            None => k == p.as_bytes(),
        })
    }

    /// Checks one `--env-deny` value: a variable name, or a non-empty prefix followed by `*`.
    pub fn parse_pattern(s: &str) -> Result<String, String> {
        let name = s.strip_suffix('*').unwrap_or(s);
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return Err(format!(
                "{s:?} is not a variable name (letters, digits, `_`) or such a prefix followed by `*`"
            ));
        }
        Ok(s.to_owned())
    }
}

/// Linux's limit for one argv string, its terminating NUL included (`MAX_ARG_STRLEN`, 32 pages).
pub const ARG_STRLEN_MAX: usize = 32 * 4096;

/// `execve` refuses an argv string of [`ARG_STRLEN_MAX`] bytes or more (`E2BIG`). RUN-0 accepts
/// a prompt of up to 128 KiB, one byte more than Linux can pass: such a run fails
/// `spawn_failed`, saying why, rather than blaming the supervisor that could not start.
pub fn too_long_for_exec(args: &[OsString]) -> Result<(), ToolError> {
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

/// A native program and its pinned command contract.
#[derive(Debug, Clone)]
pub struct NativeBinary {
    program: PathBuf,
    tree: Arc<CliTree>,
    supervisor_exe: Option<OsString>,
    deny: EnvDeny,
    path_flag: Option<&'static str>,
}

impl NativeBinary {
    /// `program` is a path, or a bare name looked up on PATH at each run.
    #[must_use]
    pub fn new(program: PathBuf, tree: Arc<CliTree>) -> Self {
        Self {
            program,
            tree,
            supervisor_exe: None,
            deny: EnvDeny::default(),
            path_flag: None,
        }
    }

    /// Names the adapter flag that chooses the program (`--claude`), for `native_not_found`.
    #[must_use]
    pub fn with_path_flag(mut self, flag: &'static str) -> Self {
        self.path_flag = Some(flag);
        self
    }

    /// What `native_not_found` tells the user to do.
    fn not_found_fix(&self) -> String {
        match self.path_flag {
            Some(flag) => format!(
                "; install {} or name its executable with {flag} PATH",
                self.tree.tool
            ),
            None => String::new(),
        }
    }

    /// Holds back `deny`'s variables too, in the version check and in the run (NAT-8).
    #[must_use]
    pub fn with_env_deny(mut self, deny: &EnvDeny) -> Self {
        self.deny = std::mem::take(&mut self.deny).with(deny);
        self
    }

    /// The native process's environment: the adapter's, scrubbed (NAT-8) and without the
    /// held-back variables.
    #[must_use]
    pub fn env(&self) -> Vec<(OsString, OsString)> {
        scrubbed_env()
            .into_iter()
            .filter(|(k, _)| !self.deny.denies(k))
            .collect()
    }

    /// Uses `exe` as the supervisor instead of the current executable.
    #[must_use]
    pub fn with_supervisor_exe(mut self, exe: impl Into<OsString>) -> Self {
        self.supervisor_exe = Some(exe.into());
        self
    }

    /// Finds the program: a path is taken as is (made absolute), a bare name is looked up on PATH.
    pub fn resolve(&self) -> Result<PathBuf, ToolError> {
        let not_found = |os_error: String| {
            ToolError::new(
                ErrorCode::NativeNotFound,
                format!(
                    "cannot run {}: {os_error}{}",
                    self.program.display(),
                    self.not_found_fix()
                ),
            )
            .with("path", self.program.display().to_string().into())
            .with("os_error", os_error.into())
        };
        if self.program.components().count() > 1 || self.program.is_absolute() {
            let p = if self.program.is_absolute() {
                self.program.clone()
            } else {
                std::env::current_dir()
                    .map_err(|e| not_found(e.to_string()))?
                    .join(&self.program)
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
            let p = dir.join(&self.program);
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
    pub async fn supervised(&self, spec: SpawnSpec) -> Result<supervisor::Supervised, String> {
        match &self.supervisor_exe {
            Some(exe) => supervisor::spawn_with(exe, spec).await,
            None => supervisor::spawn(spec).await,
        }
        .map_err(|e| e.to_string())
    }

    /// Starts `spec` as a version check that the run may follow under the same supervisor.
    async fn supervised_check(&self, spec: SpawnSpec) -> Result<supervisor::Supervised, String> {
        let current;
        let exe = match &self.supervisor_exe {
            Some(exe) => exe.as_os_str(),
            None => {
                current = std::env::current_exe()
                    .map_err(|e| format!("cannot locate the adapter executable: {e}"))?;
                current.as_os_str()
            }
        };
        supervisor::spawn_check_with(exe, spec)
            .await
            .map_err(|e| e.to_string())
    }

    /// Starts a run's native process (SUP-1): `args` after the program that passed the version
    /// check, in `cwd`, with `env` and `stdin`, under the check's supervisor when the preflight
    /// left one waiting (C-SUP-1), else under a new one. Argument length is checked first
    /// (RUN-0's bound is one byte over what Linux passes); every failure is `spawn_failed`
    /// saying why, and nothing is left running.
    pub async fn start(
        &self,
        checked: &Checked,
        args: Vec<OsString>,
        cwd: PathBuf,
        env: Vec<(OsString, OsString)>,
        stdin: supervisor::StdinMode,
    ) -> Result<supervisor::Supervised, ToolError> {
        let waiting = checked.supervisor.take();
        if let Err(e) = too_long_for_exec(&args) {
            if let Some(w) = waiting {
                w.release().await;
            }
            return Err(e);
        }
        let spec = SpawnSpec {
            program: checked.program.clone(),
            args,
            cwd,
            env,
            grace: supervisor::TERM_GRACE,
            stdin,
        };
        let started = match waiting {
            Some(w) => w.run(spec).await.map_err(|e| e.to_string()),
            None => self.supervised(spec).await,
        };
        started.map_err(|e| {
            ToolError::new(
                ErrorCode::SpawnFailed,
                format!("cannot start {}: {e}", checked.program.display()),
            )
        })
    }

    /// NAT-2: `claude --version` against the pinned line, before every run. The check is a
    /// native process of the run like any other: it runs under the run's supervisor (SUP-1), so
    /// it dies with the adapter even on SIGKILL (SUP-2), members it leaves in its group are
    /// ended, and it gets stdin `/dev/null`, the scrubbed environment and no other descriptor
    /// (C-NAT-2). Once its group is confirmed gone and its answer is the pinned line, the same
    /// supervisor waits in the returned [`Checked`] for the run ([`NativeBinary::start`]); any
    /// other verdict releases it (C-SUP-1).
    pub async fn check_version(
        &self,
        deadline: tokio::time::Instant,
    ) -> Result<Checked, PreflightError> {
        let program = self.resolve().map_err(PreflightError::Refused)?;
        let spec = SpawnSpec {
            program: program.clone(),
            args: self.tree.version.argv.iter().map(OsString::from).collect(),
            cwd: std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")),
            env: self.env(),
            grace: supervisor::TERM_GRACE,
            stdin: supervisor::StdinMode::Null,
        };
        let mut check = self.supervised_check(spec).await.map_err(|e| {
            PreflightError::Refused(
                ToolError::new(
                    ErrorCode::NativeNotFound,
                    format!(
                        "cannot run {}: {e}{}",
                        program.display(),
                        self.not_found_fix()
                    ),
                )
                .with("path", program.display().to_string().into())
                .with("os_error", e.into()),
            )
        })?;
        let verdict = self.judge(&mut check, &program, deadline).await;
        // Ends members the check left in its group (bounded); RUN-10 when that is not confirmed.
        let report = check.cleanup().await;
        if report.confirmed
            && let Ok(mut checked) = verdict
        {
            checked.supervisor = supervisor::Waiting::new(check);
            return Ok(checked);
        }
        check.release().await;
        if report.confirmed {
            return verdict;
        }
        Err(PreflightError::Uncleaned {
            verdict: Box::new(verdict),
            cleanup: cmk_engine::native::Cleanup {
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
            return Ok(Checked::new(program.to_owned()));
        }
        let mut message = format!(
            "{} reports version {actual:?}, this adapter is pinned to {expected:?}",
            program.display()
        );
        if !status_ok {
            let detail = cmk_engine::outcome::describe_exit(status);
            let stderr_line = String::from_utf8_lossy(&err)
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .map(|l| format!(": {l}"))
                .unwrap_or_default();
            message.push_str(&format!(" (the version check {detail}{stderr_line})"));
        } else if let Some(flag) = self.path_flag
            && self.tree.version.same_cli(&actual)
        {
            // Another version of the same CLI: the upgrade path (NAT-1).
            message.push_str(&format!(
                "; if {actual:?} is the version to use, `claude-mcp-adapter cli-tree refresh \
                 {flag} {}` checks it against everything the adapter uses and pins it",
                program.display()
            ));
        }
        Err(PreflightError::Refused(
            ToolError::new(ErrorCode::VersionMismatch, message)
                .with("expected", expected.into())
                .with("actual", actual.into())
                .with("path", program.display().to_string().into()),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_deny_matches_names_exactly_and_prefixes_with_a_star() {
        let deny = EnvDeny::new(["CURSOR_API_KEY"]).with(&EnvDeny::new(["AWS_*"]));
        assert!(deny.denies(OsStr::new("CURSOR_API_KEY")));
        assert!(!deny.denies(OsStr::new("CURSOR_API_KEY_2")));
        assert!(deny.denies(OsStr::new("AWS_SECRET_ACCESS_KEY")));
        assert!(!deny.denies(OsStr::new("AWSX")));
        assert!(!EnvDeny::default().denies(OsStr::new("ANYTHING")));
    }

    #[test]
    fn env_deny_patterns_are_names_or_prefixes() {
        assert!(EnvDeny::parse_pattern("MY_TOKEN").is_ok());
        assert!(EnvDeny::parse_pattern("MY_*").is_ok());
        for bad in ["", "*", "A-B", "A*B", "A B"] {
            assert!(EnvDeny::parse_pattern(bad).is_err(), "{bad:?}");
        }
    }
}
