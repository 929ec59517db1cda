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

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::PrereqError;
use super::claude_code::npm_ci;
use super::install::{self, io_err};

/// The pinned version.
pub const MCP_INSPECTOR_VERSION: &str = "0.15.0";

const INSTALL_NAME: &str = "mcp-inspector-0.15.0";
const PACKAGE_DIR: &str = "node_modules/@modelcontextprotocol/inspector";
const CLI_ENTRY: &str = "cli/build/index.js";
const PACKAGE_JSON: &str = include_str!("../../pins/mcp-inspector/package.json");
const PACKAGE_LOCK: &str = include_str!("../../pins/mcp-inspector/package-lock.json");

/// The inspector's CLI script (`…/inspector/cli/build/index.js`), installed on first use.
pub fn mcp_inspector_cli_entry() -> Result<PathBuf, PrereqError> {
    static ENTRY: OnceLock<Result<PathBuf, PrereqError>> = OnceLock::new();
    ENTRY
        .get_or_init(|| {
            let dir = install::ensure(INSTALL_NAME, is_complete, |dir, log| {
                for (name, text) in [
                    ("package.json", PACKAGE_JSON),
                    ("package-lock.json", PACKAGE_LOCK),
                ] {
                    let path = dir.join(name);
                    std::fs::write(&path, text).map_err(|e| io_err("write", &path, e))?;
                }
                log.run("npm ci", &mut npm_ci(dir))
            })?;
            Ok(dir.join(PACKAGE_DIR).join(CLI_ENTRY))
        })
        .clone()
}

/// Complete when the CLI script exists and the installed inspector is the pinned version.
fn is_complete(dir: &Path) -> bool {
    let package = dir.join(PACKAGE_DIR);
    package.join(CLI_ENTRY).is_file()
        && super::npm_package_version(&package).as_deref() == Some(MCP_INSPECTOR_VERSION)
}

/// `node …/inspector/cli/build/index.js`; add `SERVER [ARGS...] --method METHOD [...]`
/// (`--tool-name`, `--tool-arg key=value`, `--uri`). `CMK_NODE` overrides the `node` executable.
pub fn mcp_inspector_cli() -> Result<Command, PrereqError> {
    let entry = mcp_inspector_cli_entry()?;
    let node = std::env::var_os("CMK_NODE").unwrap_or_else(|| "node".into());
    let mut cmd = Command::new(node);
    cmd.arg(entry);
    Ok(cmd)
}
