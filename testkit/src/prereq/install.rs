//! The install machinery shared by every prerequisite: cache root, per-install lock, logged
//! steps with a time limit, and the atomic publication of a finished install.
//!
//! Layout under the cache root:
//! `NAME` (a symlink, the only thing that says "installed") → `store/NAME-<uuid>/` (the real
//! install, built in place and never moved, so venvs and npm trees keep valid paths);
//! `locks/NAME.lock`; `logs/NAME.log` (output of every step of the last attempt). An install
//! interrupted at any point leaves at most an orphan `store/` folder that nothing points to.

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::PrereqError;

/// Longest any single install step may take before it is killed (npm fetching ~80 MB on a slow
/// link is the worst case seen).
pub(crate) const STEP_TIMEOUT: Duration = Duration::from_secs(20 * 60);
/// Poll interval while waiting for a step.
const STEP_POLL: Duration = Duration::from_millis(100);
/// How much of a step log is quoted in an error.
const LOG_TAIL_BYTES: u64 = 4096;

/// The cache root: `CMK_CACHE`, else `$XDG_CACHE_HOME/claude-mcp-kit`, else
/// `$HOME/.cache/claude-mcp-kit`. Empty values count as unset.
pub fn cache_root() -> Result<PathBuf, PrereqError> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(root) = var("CMK_CACHE") {
        return Ok(root);
    }
    if let Some(xdg) = var("XDG_CACHE_HOME") {
        return Ok(xdg.join("claude-mcp-kit"));
    }
    var("HOME")
        .map(|home| home.join(".cache").join("claude-mcp-kit"))
        .ok_or(PrereqError::NoCacheRoot)
}

pub(crate) fn io_err(what: &str, path: &Path, source: std::io::Error) -> PrereqError {
    PrereqError::Io {
        what: what.to_owned(),
        path: path.to_owned(),
        source: Arc::new(source),
    }
}

/// The log of one install attempt.
pub(crate) struct StepLog {
    pub(crate) path: PathBuf,
    file: File,
}

impl StepLog {
    fn create(path: PathBuf) -> Result<StepLog, PrereqError> {
        let file = OpenOptions::new()
            .create(true)
            .write(true)
            .truncate(true)
            .read(true)
            .open(&path)
            .map_err(|e| io_err("create install log", &path, e))?;
        Ok(StepLog { path, file })
    }

    /// Appends a note line.
    pub(crate) fn note(&mut self, line: &str) {
        // The log only helps a human; failing to write it must not fail the install.
        let _ = writeln!(self.file, "{line}");
    }

    /// The last few KiB of the log, for an error message.
    pub(crate) fn tail(&mut self) -> String {
        let len = self.file.metadata().map(|m| m.len()).unwrap_or(0);
        let mut text = String::new();
        if self
            .file
            .seek(SeekFrom::Start(len.saturating_sub(LOG_TAIL_BYTES)))
            .is_ok()
        {
            let mut bytes = Vec::new();
            let _ = self.file.read_to_end(&mut bytes);
            text = String::from_utf8_lossy(&bytes).into_owned();
        }
        let _ = self.file.seek(SeekFrom::End(0));
        text
    }

    /// Runs `cmd` with stdout and stderr appended to the log; fails with the log tail quoted if
    /// it cannot start, exits non-zero or outlives [`STEP_TIMEOUT`].
    pub(crate) fn run(&mut self, step: &str, cmd: &mut Command) -> Result<(), PrereqError> {
        self.note(&format!("$ {cmd:?}"));
        let out = self
            .file
            .try_clone()
            .map_err(|e| io_err("share install log", &self.path, e))?;
        let err = self
            .file
            .try_clone()
            .map_err(|e| io_err("share install log", &self.path, e))?;
        cmd.stdin(Stdio::null()).stdout(out).stderr(err);
        let status = wait_bounded(cmd).map_err(|detail| self.failed(step, detail))?;
        if status.success() {
            Ok(())
        } else {
            Err(self.failed(step, format!("exited with {status}")))
        }
    }

    /// Runs `cmd` capturing its output (also copied to the log).
    pub(crate) fn capture(&mut self, step: &str, cmd: &mut Command) -> Result<Output, PrereqError> {
        self.note(&format!("$ {cmd:?}"));
        let output = cmd
            .stdin(Stdio::null())
            .output()
            .map_err(|e| self.failed(step, format!("cannot start: {e}")))?;
        let _ = self.file.write_all(&output.stdout);
        let _ = self.file.write_all(&output.stderr);
        Ok(output)
    }

    pub(crate) fn failed(&mut self, step: &str, detail: String) -> PrereqError {
        self.note(&format!("step failed: {detail}"));
        PrereqError::StepFailed {
            step: step.to_owned(),
            detail,
            log: self.path.clone(),
            tail: self.tail(),
        }
    }
}

fn wait_bounded(cmd: &mut Command) -> Result<std::process::ExitStatus, String> {
    let mut child = cmd.spawn().map_err(|e| format!("cannot start: {e}"))?;
    let deadline = Instant::now() + STEP_TIMEOUT;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status),
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "timed out after {} s and was killed",
                    STEP_TIMEOUT.as_secs()
                ));
            }
            Ok(None) => std::thread::sleep(STEP_POLL),
            Err(e) => return Err(format!("cannot wait: {e}")),
        }
    }
}

/// Whether `CMK_NO_PEERS` refuses every real peer, installed or not: `.ci/run` sets it for the
/// fast tier, so a fast test that reaches for a real peer fails there. Only unset, empty, `0`
/// and `false` let peers through: a misspelt value keeps the run hermetic rather than quietly
/// allowing installs.
#[must_use]
pub fn peers_off() -> bool {
    peers_off_by(std::env::var("CMK_NO_PEERS").ok().as_deref())
}

/// [`peers_off`] for a given value of `CMK_NO_PEERS`.
fn peers_off_by(value: Option<&str>) -> bool {
    value.is_some_and(|v| !(v.is_empty() || v == "0" || v.eq_ignore_ascii_case("false")))
}

/// Returns the install `name` under the cache root, building it first if it is not there.
///
/// `complete(dir)` says whether a published install looks whole; `build(dir, log)` fills a
/// fresh `store/` folder and must leave it so that `complete` holds. Concurrent callers (threads
/// or processes) serialise on `locks/NAME.lock` (std `File::lock`); the loser of the race finds
/// the winner's install published and returns it.
pub(crate) fn ensure(
    name: &str,
    complete: impl Fn(&Path) -> bool,
    build: impl FnOnce(&Path, &mut StepLog) -> Result<(), PrereqError>,
) -> Result<PathBuf, PrereqError> {
    if peers_off() {
        return Err(PrereqError::PeersOff {
            name: name.to_owned(),
        });
    }
    let root = cache_root()?;
    let published = root.join(name);
    if complete(&published) {
        return Ok(published);
    }
    for sub in ["locks", "logs", "store"] {
        let dir = root.join(sub);
        fs::create_dir_all(&dir).map_err(|e| io_err("create cache folder", &dir, e))?;
    }
    let lock_path = root.join("locks").join(format!("{name}.lock"));
    let lock = File::create(&lock_path).map_err(|e| io_err("create lock", &lock_path, e))?;
    lock.lock()
        .map_err(|e| io_err("take lock", &lock_path, e))?;
    if complete(&published) {
        return Ok(published);
    }
    let store_name = format!("{name}-{}", uuid::Uuid::new_v4().simple());
    let store = root.join("store").join(&store_name);
    fs::create_dir_all(&store).map_err(|e| io_err("create install folder", &store, e))?;
    let mut log = StepLog::create(root.join("logs").join(format!("{name}.log")))?;
    log.note(&format!("installing {name} into {}", store.display()));
    let built = build(&store, &mut log).and_then(|()| {
        if complete(&store) {
            Ok(())
        } else {
            Err(log.failed(
                "final check",
                "the finished install is incomplete".to_owned(),
            ))
        }
    });
    if let Err(error) = built {
        let _ = fs::remove_dir_all(&store);
        return Err(error);
    }
    publish(&root, name, &store_name)?;
    remove_stale(&root, name, &store_name);
    log.note("installed");
    Ok(published)
}

/// Points `root/NAME` at `store/STORE_NAME` atomically: a temporary symlink renamed over it.
fn publish(root: &Path, name: &str, store_name: &str) -> Result<(), PrereqError> {
    let temp = root.join(format!(".{name}.link-{}", uuid::Uuid::new_v4().simple()));
    let target = Path::new("store").join(store_name);
    std::os::unix::fs::symlink(&target, &temp).map_err(|e| io_err("create link", &temp, e))?;
    let published = root.join(name);
    fs::rename(&temp, &published).map_err(|e| {
        let _ = fs::remove_file(&temp);
        io_err("publish install", &published, e)
    })
}

/// Removes earlier (broken or replaced) store folders of `name`; called under the lock.
fn remove_stale(root: &Path, name: &str, keep: &str) {
    let prefix = format!("{name}-");
    let Ok(entries) = fs::read_dir(root.join("store")) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(file_name) = file_name.to_str() else {
            continue;
        };
        let rest = file_name.strip_prefix(&prefix);
        // Only `NAME-<32 hex>`: another install whose name extends ours is left alone.
        if file_name != keep
            && rest.is_some_and(|r| r.len() == 32 && r.chars().all(|c| c.is_ascii_hexdigit()))
        {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

#[cfg(test)]
mod peers_off_tests {
    use super::peers_off_by;

    #[test]
    fn only_an_explicit_off_lets_real_peers_through() {
        for on in ["1", "true", "TRUE", "yes", "on", "2"] {
            assert!(peers_off_by(Some(on)), "{on}");
        }
        for off in [None, Some(""), Some("0"), Some("false"), Some("False")] {
            assert!(!peers_off_by(off), "{off:?}");
        }
    }
}
