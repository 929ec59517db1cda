//! The MCP Inspector `@modelcontextprotocol/inspector@0.15.0`, installed with `npm ci` from the
//! lockfile in `testkit/pins/mcp-inspector/`; its `--cli` mode is a real, scriptable MCP host:
//! `mcp-inspector --cli SERVER [ARGS...] --method tools/list` prints the method's JSON result on
//! stdout and exits 0, or prints the error and exits 1.
//!
//! 0.15.0 is the last release that runs on Node 20: every later one (0.16.0 to 2.12.0) declares
//! `node >=22.7.5` or newer. Its CLI is built on `@modelcontextprotocol/sdk` 1.x (the lockfile
//! resolves 1.32.2). The wrapper (`cli/build/cli.js --cli …`) starts `node cli/build/index.js …`,
//! which spawns the server; the matrix calls that `index.js` directly, one process fewer to
//! contain (the wrapper only forwards its argv).

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use super::PrereqError;
use super::npm_pin::{NpmPin, node};

/// The pinned version.
pub const MCP_INSPECTOR_VERSION: &str = "0.15.0";

const PIN: NpmPin = NpmPin {
    install_name: "mcp-inspector-0.15.0",
    package_dir: "node_modules/@modelcontextprotocol/inspector",
    version: MCP_INSPECTOR_VERSION,
    marker: "cli/build/index.js",
    also: None,
    package_json: include_str!("../../pins/mcp-inspector/package.json"),
    package_lock: include_str!("../../pins/mcp-inspector/package-lock.json"),
};

/// The inspector's CLI script (`…/inspector/cli/build/index.js`), installed on first use.
pub fn mcp_inspector_cli_entry() -> Result<PathBuf, PrereqError> {
    static ENTRY: OnceLock<Result<PathBuf, PrereqError>> = OnceLock::new();
    ENTRY
        .get_or_init(|| Ok(PIN.package()?.join(PIN.marker)))
        .clone()
}

/// `node …/inspector/cli/build/index.js`; add `SERVER [ARGS...] --method METHOD [...]`
/// (`--tool-name`, `--tool-arg key=value`, `--uri`). `CMK_NODE` overrides the `node` executable.
pub fn mcp_inspector_cli() -> Result<Command, PrereqError> {
    Ok(node(&mcp_inspector_cli_entry()?))
}
