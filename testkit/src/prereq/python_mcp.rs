//! The Python MCP SDK `mcp==2.3.0` in a venv of its own (`python3 -m venv`, then pip). The venv
//! is built in its final folder (venvs are not relocatable) and published by the install
//! machinery's symlink. `CMK_PYTHON` overrides the `python3` used to create it.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::PrereqError;
use super::install::{self, StepLog};
use super::venv;

/// The pinned version.
pub const PYTHON_MCP_VERSION: &str = "2.3.0";

const INSTALL_NAME: &str = "python-mcp-2.3.0";
const VERSION_PROBE: &str = "import importlib.metadata as m, mcp; print(m.version('mcp'))";

/// The venv's `python` (with `mcp` 2.3.0 importable), installed on first use.
pub fn python_mcp() -> Result<PathBuf, PrereqError> {
    static PYTHON: OnceLock<Result<PathBuf, PrereqError>> = OnceLock::new();
    PYTHON
        .get_or_init(|| {
            let dir = install::ensure(INSTALL_NAME, |dir| python_in(dir).is_file(), build)?;
            Ok(python_in(&dir))
        })
        .clone()
}

/// A `Command` running the venv's `python`; add `-c CODE` or a script path.
pub fn python_mcp_command() -> Result<Command, PrereqError> {
    Ok(Command::new(python_mcp()?))
}

fn python_in(dir: &Path) -> PathBuf {
    venv::python_in(dir)
}

fn build(dir: &Path, log: &mut StepLog) -> Result<(), PrereqError> {
    let python = venv::create(dir, log)?;
    let requirement = format!("mcp=={PYTHON_MCP_VERSION}");
    log.run(
        "pip install mcp",
        &mut venv::pip(&python, &["install", &requirement]),
    )?;
    match venv::probe(&python, "import mcp", VERSION_PROBE, log) {
        Ok(found) if found == PYTHON_MCP_VERSION => Ok(()),
        Ok(found) | Err(found) => Err(PrereqError::WrongVersion {
            what: "python mcp",
            expected: PYTHON_MCP_VERSION,
            found,
        }),
    }
}
