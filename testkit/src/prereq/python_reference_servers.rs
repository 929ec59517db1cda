//! Two of the official MCP reference servers from PyPI, both `2026.10.19` and both on the Python
//! SDK (`mcp` 2.3.0): `mcp-server-time` and `mcp-server-git`, in one venv of their own. Every
//! distribution the two need is pinned by version and SHA-256 in
//! `testkit/pins/mcp-reference-servers-py/requirements.txt` (`pip install --require-hashes
//! --no-deps`, [`venv::install_hashed`]); the hashes are of the wheels for CPython 3.11 on linux x86-64 (four of the 35 are
//! platform wheels), so another interpreter or platform fails the install with pip's hash error.
//! The venv is built in its final folder (venvs are not relocatable); `CMK_PYTHON` overrides the
//! `python3` that creates it. About 12 s to install.
//!
//! Neither reaches the network: the time server's tools read the clock and the tz database, the
//! git server's run `git` on the one repository it is given.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::PrereqError;
use super::install::{self, StepLog};
use super::venv;

/// The pinned version of the two servers.
pub const MCP_REFERENCE_SERVERS_PY_VERSION: &str = "2026.10.19";

const INSTALL_NAME: &str = "mcp-reference-servers-py-2026.10.19";
const REQUIREMENTS: &str = include_str!("../../pins/mcp-reference-servers-py/requirements.txt");
const VERSION_PROBE: &str = "import importlib.metadata as m, mcp_server_time, mcp_server_git; \
     print(m.version('mcp-server-time'), m.version('mcp-server-git'))";

/// The venv's `bin` folder (with `mcp-server-time` and `mcp-server-git`), installed on first use.
pub fn mcp_reference_servers_py_bin() -> Result<PathBuf, PrereqError> {
    static BIN: OnceLock<Result<PathBuf, PrereqError>> = OnceLock::new();
    BIN.get_or_init(|| {
        let dir = install::ensure(INSTALL_NAME, is_complete, build)?;
        Ok(dir.join("bin"))
    })
    .clone()
}

/// `mcp-server-time --local-timezone UTC`: the time server (tools `get_current_time` and
/// `convert_time`), its local zone fixed so that it does not depend on the machine's.
pub fn mcp_time_server() -> Result<Command, PrereqError> {
    let mut cmd = Command::new(mcp_reference_servers_py_bin()?.join("mcp-server-time"));
    cmd.args(["--local-timezone", "UTC"]);
    Ok(cmd)
}

/// `mcp-server-git --repository REPO`: the git server, confined to the repository `REPO`
/// (which must exist; its tools refuse any other `repo_path`).
pub fn mcp_git_server(repository: &Path) -> Result<Command, PrereqError> {
    let mut cmd = Command::new(mcp_reference_servers_py_bin()?.join("mcp-server-git"));
    cmd.arg("--repository").arg(repository);
    Ok(cmd)
}

fn is_complete(dir: &Path) -> bool {
    ["mcp-server-time", "mcp-server-git"]
        .iter()
        .all(|bin| dir.join("bin").join(bin).is_file())
}

fn build(dir: &Path, log: &mut StepLog) -> Result<(), PrereqError> {
    let python = venv::create(dir, log)?;
    venv::install_hashed(&python, dir, REQUIREMENTS, log)?;
    let expected = format!("{v} {v}", v = MCP_REFERENCE_SERVERS_PY_VERSION);
    match venv::probe(&python, "import the servers", VERSION_PROBE, log) {
        Ok(found) if found == expected => Ok(()),
        Ok(found) | Err(found) => Err(PrereqError::WrongVersion {
            what: "mcp-server-time and mcp-server-git",
            expected: MCP_REFERENCE_SERVERS_PY_VERSION,
            found,
        }),
    }
}
