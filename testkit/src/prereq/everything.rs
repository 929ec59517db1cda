//! `@modelcontextprotocol/server-everything@2026.8.31`, installed with `npm ci` from the lockfile
//! in `testkit/pins/server-everything/` (its dependencies float otherwise). Its entry point takes
//! the transport as first argument: `node dist/index.js stdio` serves MCP on stdin/stdout (it
//! also prints `Starting default (STDIO) server...` on stderr).

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use super::PrereqError;
use super::npm_pin::{NpmPin, node};

/// The pinned version.
pub const EVERYTHING_VERSION: &str = "2026.8.31";

const PIN: NpmPin = NpmPin {
    install_name: "server-everything-2026.8.31",
    package_dir: "node_modules/@modelcontextprotocol/server-everything",
    version: EVERYTHING_VERSION,
    marker: "dist/index.js",
    also: None,
    package_json: include_str!("../../pins/server-everything/package.json"),
    package_lock: include_str!("../../pins/server-everything/package-lock.json"),
};

/// The server's entry script (`…/server-everything/dist/index.js`), installed on first use.
pub fn everything_server_entry() -> Result<PathBuf, PrereqError> {
    static ENTRY: OnceLock<Result<PathBuf, PrereqError>> = OnceLock::new();
    ENTRY
        .get_or_init(|| Ok(PIN.package()?.join(PIN.marker)))
        .clone()
}

/// `node …/dist/index.js stdio`: the everything server in stdio mode. `CMK_NODE` overrides the
/// `node` executable.
pub fn everything_server() -> Result<Command, PrereqError> {
    let mut cmd = node(&everything_server_entry()?);
    cmd.arg("stdio");
    Ok(cmd)
}

/// `node …/dist/index.js streamableHttp`: the everything server on Streamable HTTP at `/mcp`,
/// on the port the `PORT` variable names (3001 when unset). It listens on every interface by
/// itself; a caller that wants loopback only pins it (the conformance test preloads a script
/// that binds its listener to 127.0.0.1).
pub fn everything_server_streamable_http() -> Result<Command, PrereqError> {
    let mut cmd = node(&everything_server_entry()?);
    cmd.arg("streamableHttp");
    Ok(cmd)
}
