//! The one way a pinned Python peer gets its venv: `python3 -m venv` in the install's final
//! folder (venvs are not relocatable; the install machinery publishes it by symlink), pip run
//! quietly inside it, every distribution pinned by version and SHA-256 where the pin has a
//! requirements file, and an import probe of what got installed. `CMK_PYTHON` overrides the
//! `python3` that creates the venv.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::PrereqError;
use super::install::{StepLog, io_err};

/// The venv's `python`.
pub(crate) fn python_in(dir: &Path) -> PathBuf {
    dir.join("bin").join("python")
}

/// Creates the venv in `dir`; returns its `python`.
pub(crate) fn create(dir: &Path, log: &mut StepLog) -> Result<PathBuf, PrereqError> {
    let python3 = std::env::var_os("CMK_PYTHON").unwrap_or_else(|| "python3".into());
    log.run(
        "python3 -m venv",
        Command::new(python3).args(["-m", "venv"]).arg(dir),
    )?;
    Ok(python_in(dir))
}

/// `python -m pip ARGS` without the version check or prompts.
pub(crate) fn pip(python: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(python);
    cmd.args(["-m", "pip"])
        .args(args)
        .args(["--disable-pip-version-check", "--no-input"]);
    cmd
}

/// Installs exactly the distributions of `requirements` (a pip requirements file whose every
/// line carries its `--hash`) into the venv of `python` in `dir`: `--no-deps --require-hashes`,
/// so a missing, extra or changed wheel fails the install.
pub(crate) fn install_hashed(
    python: &Path,
    dir: &Path,
    requirements: &str,
    log: &mut StepLog,
) -> Result<(), PrereqError> {
    let path = dir.join("cmk-requirements.txt");
    std::fs::write(&path, requirements).map_err(|e| io_err("write", &path, e))?;
    let path = path.to_string_lossy().into_owned();
    log.run(
        "pip install --require-hashes",
        &mut pip(
            python,
            &["install", "--no-deps", "--require-hashes", "-r", &path],
        ),
    )
}

/// Runs `python -c code` (an import and a print of the installed versions) as the install
/// step `step`: its trimmed stdout when it exits 0, else what it printed, as the error.
pub(crate) fn probe(
    python: &Path,
    step: &str,
    code: &str,
    log: &mut StepLog,
) -> Result<String, String> {
    let output = log
        .capture(step, Command::new(python).args(["-c", code]))
        .map_err(|e| e.to_string())?;
    let found = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    if output.status.success() {
        Ok(found)
    } else {
        Err(found)
    }
}
