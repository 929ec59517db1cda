//! What the runner checks: a server command line from the user, or the embedded default (the
//! reference adapter wired to fake-claude and fake-cursor-agent). Binaries are found next to
//! the runner's own executable, else on PATH, never linked (the runner must stay usable on any
//! server).

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use crate::core::client::ServerSpec;

/// The reference adapter's binary name.
pub const ADAPTER_BIN: &str = "claude-mcp-adapter";
/// The fake claude's binary name.
pub const FAKE_CLAUDE_BIN: &str = "fake-claude";
/// The fake Cursor agent's binary name (C-PROV-3: linked as `cursor-agent` with `--drive-fake`).
pub const FAKE_CURSOR_BIN: &str = "fake-cursor-agent";
/// The arguments of the built-in target: both provider families (claude and Cursor), each
/// driven by its fake.
pub const BUILTIN_ARGS: [&str; 4] = ["--provider", "claude", "--provider", "cursor"];

/// Why a target could not be prepared (exit 2).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TargetError {
    /// A binary was neither next to the runner nor on PATH.
    #[error("cannot find {name} next to {beside} or on PATH")]
    NotFound {
        /// The binary.
        name: String,
        /// The runner's own directory.
        beside: String,
    },
    /// A fake given on the command line is not an executable file.
    #[error("{flag} {path}: not an executable file")]
    NotExecutable {
        /// The option that named it.
        flag: &'static str,
        /// The path as given.
        path: String,
    },
    /// The temporary PATH directory could not be made.
    #[error("cannot prepare the fake-claude PATH directory {dir}: {source}")]
    FakeDir {
        /// The directory.
        dir: String,
        /// Why.
        source: std::io::Error,
    },
}

/// A prepared target: how to start the server, and the temporary directory holding the
/// `claude` → fake-claude link when the fake drives it (removed on drop).
#[derive(Debug)]
pub struct Target {
    /// How to start one server process.
    pub spec: ServerSpec,
    /// Whether this is the embedded default (reference adapter + fake-claude).
    pub builtin: bool,
    /// Whether fake-claude is first on the server's PATH as `claude`.
    pub drives_fake: bool,
    /// The fake-claude executable (symlinks resolved) when it drives the server: what
    /// `/proc/PID/exe` of a run's native processes shows.
    pub fake_exe: Option<PathBuf>,
    /// The fake-cursor-agent executable (symlinks resolved) when it is on the server's PATH as
    /// `cursor-agent`: found next to the runner or on PATH, or given; `None` when not found
    /// (the Cursor family's run cases then skip, saying so).
    pub fake_cursor_exe: Option<PathBuf>,
    fake_dir: Option<PathBuf>,
}

impl Drop for Target {
    fn drop(&mut self) {
        if let Some(dir) = &self.fake_dir {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

impl Target {
    /// A server already running at a Streamable HTTP endpoint (`--url`): every case's
    /// connection is a session of it; nothing is started, no fake drives it.
    #[must_use]
    pub fn endpoint(endpoint: crate::core::http::HttpTarget) -> Self {
        Self {
            spec: ServerSpec::endpoint(endpoint),
            builtin: false,
            drives_fake: false,
            fake_exe: None,
            fake_cursor_exe: None,
            fake_dir: None,
        }
    }

    /// Whether the server is reached over Streamable HTTP.
    #[must_use]
    pub fn is_http(&self) -> bool {
        self.spec.endpoint.is_some()
    }

    /// Prepares a target. `command` empty means the embedded default. With `drive_fake`, the
    /// server's PATH starts with a private directory whose `claude` is fake-claude (found at
    /// `fake_claude`, else next to the runner, else on PATH) and whose `cursor-agent` is
    /// fake-cursor-agent (found the same way; optional for a given command, required for the
    /// built-in one, which lists both families).
    pub fn prepare(
        command: &[OsString],
        drive_fake: bool,
        fake_claude: Option<&Path>,
    ) -> Result<Self, TargetError> {
        Self::prepare_with(command, drive_fake, fake_claude, None)
    }

    /// [`Target::prepare`] with an explicit fake-cursor-agent.
    pub fn prepare_with(
        command: &[OsString],
        drive_fake: bool,
        fake_claude: Option<&Path>,
        fake_cursor: Option<&Path>,
    ) -> Result<Self, TargetError> {
        let (mut spec, builtin) = match command.split_first() {
            Some((program, args)) => (
                ServerSpec {
                    program: program.clone(),
                    args: args.to_vec(),
                    env: Vec::new(),
                    endpoint: None,
                },
                false,
            ),
            None => (
                ServerSpec {
                    program: find_binary(ADAPTER_BIN)?.into_os_string(),
                    args: BUILTIN_ARGS.iter().map(OsString::from).collect(),
                    env: Vec::new(),
                    endpoint: None,
                },
                true,
            ),
        };
        let mut fake_dir = None;
        let mut fake_exe = None;
        let mut fake_cursor_exe = None;
        if drive_fake {
            let fake = match fake_claude {
                Some(p) => given(p, "--fake-claude")?,
                None => find_binary(FAKE_CLAUDE_BIN)?,
            };
            let cursor = match fake_cursor {
                Some(p) => Some(given(p, "--fake-cursor-agent")?),
                None if builtin => Some(find_binary(FAKE_CURSOR_BIN)?),
                None => find_binary(FAKE_CURSOR_BIN).ok(),
            };
            let dir =
                std::env::temp_dir().join(format!("mcp-conformance-{}", uuid::Uuid::new_v4()));
            let mut links = vec![(fake.as_path(), "claude")];
            if let Some(c) = &cursor {
                links.push((c.as_path(), "cursor-agent"));
            }
            std::fs::create_dir_all(&dir)
                .and_then(|()| {
                    links
                        .iter()
                        .try_for_each(|(exe, name)| std::os::unix::fs::symlink(exe, dir.join(name)))
                })
                .map_err(|source| TargetError::FakeDir {
                    dir: dir.display().to_string(),
                    source,
                })?;
            let mut path = OsString::from(dir.as_os_str());
            if let Some(old) = std::env::var_os("PATH") {
                path.push(":");
                path.push(old);
            }
            spec.env.push(("PATH".into(), path));
            fake_dir = Some(dir);
            fake_exe = std::fs::canonicalize(&fake).ok();
            fake_cursor_exe = cursor.and_then(|c| std::fs::canonicalize(c).ok());
        }
        Ok(Self {
            spec,
            builtin,
            drives_fake: drive_fake,
            fake_exe,
            fake_cursor_exe,
            fake_dir,
        })
    }
}

/// Finds `name` next to the running executable, else on PATH.
pub fn find_binary(name: &str) -> Result<PathBuf, TargetError> {
    let beside = std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf));
    if let Some(dir) = &beside {
        let candidate = dir.join(name);
        if is_executable(&candidate) {
            return Ok(candidate);
        }
    }
    if let Some(found) = on_path(name, std::env::var_os("PATH").as_deref()) {
        return Ok(found);
    }
    Err(TargetError::NotFound {
        name: name.to_owned(),
        beside: beside.map_or_else(|| "the runner".into(), |d| d.display().to_string()),
    })
}

fn on_path(name: &str, path: Option<&OsStr>) -> Option<PathBuf> {
    std::env::split_paths(path?)
        .map(|d| d.join(name))
        .find(|p| is_executable(p))
}

/// A fake named on the command line: it must be an executable file (a typo would otherwise turn
/// every run case into a failure or a skip that blames the server).
fn given(p: &Path, flag: &'static str) -> Result<PathBuf, TargetError> {
    if is_executable(p) {
        Ok(p.to_path_buf())
    } else {
        Err(TargetError::NotExecutable {
            flag,
            path: p.display().to_string(),
        })
    }
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}
