//! `better-mcps-filesystem==0.3.0` from PyPI: a real MCP server on FastMCP (the standalone
//! `fastmcp` 4.2.3, not the Python SDK's `mcp.server.fastmcp`), with two filesystem tools
//! (`list_dir`, `read_text_file`) scoped to the root directories it is given. Every distribution
//! it needs is pinned by version and SHA-256 in `testkit/pins/fastmcp-filesystem/requirements.txt`
//! (63 wheels for CPython 3.11 on linux x86-64, eight of them platform wheels), installed into a
//! venv of its own ([`venv::install_hashed`]); about 20 s.
//!
//! FastMCP's start-up is its cost: importing `fastmcp` builds some 600 pydantic models (the
//! three MCP revisions' types of `mcp` 2.3.0 among them), about 1.4 s of CPU per instance
//! against 0.9 s for the plain Python SDK's `mcp-server-time`, and the gate starts some 70
//! instances. Its update check (a PyPI request when it prints its banner) and the banner are off
//! (`FASTMCP_CHECK_FOR_UPDATES=off`, `FASTMCP_SHOW_SERVER_BANNER=false`), every proxy points at a
//! closed loopback port, and its tools read only under the root.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::PrereqError;
use super::install::{self, StepLog};
use super::npm_pin::loopback_only;
use super::venv;

/// The pinned server version.
pub const FASTMCP_SERVER_VERSION: &str = "0.3.0";
/// The FastMCP it runs on (the tests say what they grade).
pub const FASTMCP_VERSION: &str = "4.2.3";

const INSTALL_NAME: &str = "fastmcp-filesystem-0.3.0";
const REQUIREMENTS: &str = include_str!("../../pins/fastmcp-filesystem/requirements.txt");
const BIN: &str = "better-mcps-filesystem";
const VERSION_PROBE: &str = "import importlib.metadata as m, better_mcps_filesystem.server; \
     print(m.version('better-mcps-filesystem'), m.version('fastmcp'))";

/// The server's entry point in its venv, installed on first use.
pub fn fastmcp_server_bin() -> Result<PathBuf, PrereqError> {
    static BIN_PATH: OnceLock<Result<PathBuf, PrereqError>> = OnceLock::new();
    BIN_PATH
        .get_or_init(|| {
            let dir = install::ensure(INSTALL_NAME, is_complete, build)?;
            Ok(dir.join("bin").join(BIN))
        })
        .clone()
}

/// `better-mcps-filesystem ROOT` over stdio: its tools confined to `ROOT` (absolute), FastMCP's
/// update check and banner off, every proxy at a closed loopback port. The variables are the
/// command's environment: a caller that passes argv on must carry them.
pub fn fastmcp_server(root: &Path) -> Result<Command, PrereqError> {
    let mut cmd = Command::new(fastmcp_server_bin()?);
    cmd.arg(root)
        .env("FASTMCP_CHECK_FOR_UPDATES", "off")
        .env("FASTMCP_SHOW_SERVER_BANNER", "false");
    loopback_only(&mut cmd);
    Ok(cmd)
}

fn is_complete(dir: &Path) -> bool {
    dir.join("bin").join(BIN).is_file()
}

fn build(dir: &Path, log: &mut StepLog) -> Result<(), PrereqError> {
    let python = venv::create(dir, log)?;
    venv::install_hashed(&python, dir, REQUIREMENTS, log)?;
    let expected = format!("{FASTMCP_SERVER_VERSION} {FASTMCP_VERSION}");
    match venv::probe(&python, "import the server", VERSION_PROBE, log) {
        Ok(found) if found == expected => Ok(()),
        Ok(found) | Err(found) => Err(PrereqError::WrongVersion {
            what: "better-mcps-filesystem on fastmcp",
            expected: FASTMCP_SERVER_VERSION,
            found,
        }),
    }
}
