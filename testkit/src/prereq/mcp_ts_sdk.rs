//! The MCP TypeScript SDK `@modelcontextprotocol/sdk@1.32.2`, installed with `npm ci` from the
//! lockfile in `testkit/pins/mcp-ts-sdk/`, and the host script that drives it,
//! `testkit/hosts/ts-client.mjs` (in this repository): a real MCP host of a stdio server that runs
//! the host matrix's core sequence and prints a JSON summary (see the script's header).
//!
//! 1.32.x is the line the author used; it declares `node >=18` and runs on Node 20 here.
//! Its `Client.callTool` validates `structuredContent` against a tool's `outputSchema` when the
//! tool declares one, and its request options carry `timeout` and `resetTimeoutOnProgress`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::PrereqError;
use super::claude_code::npm_ci;
use super::install::{self, io_err};

/// The pinned SDK version.
pub const MCP_TS_SDK_VERSION: &str = "1.32.2";

const INSTALL_NAME: &str = "mcp-ts-sdk-1.32.2";
const PACKAGE_DIR: &str = "node_modules/@modelcontextprotocol/sdk";
const CLIENT_ENTRY: &str = "dist/esm/client/index.js";
const PACKAGE_JSON: &str = include_str!("../../pins/mcp-ts-sdk/package.json");
const PACKAGE_LOCK: &str = include_str!("../../pins/mcp-ts-sdk/package-lock.json");

/// The host script shipped in this repository.
pub const MCP_TS_CLIENT_SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/hosts/ts-client.mjs");

/// The installed package folder (`…/node_modules/@modelcontextprotocol/sdk`), installed on first
/// use.
pub fn mcp_ts_sdk_dir() -> Result<PathBuf, PrereqError> {
    static DIR: OnceLock<Result<PathBuf, PrereqError>> = OnceLock::new();
    DIR.get_or_init(|| {
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
        Ok(dir.join(PACKAGE_DIR))
    })
    .clone()
}

/// Complete when the client entry exists and the installed SDK is the pinned version.
fn is_complete(dir: &Path) -> bool {
    let package = dir.join(PACKAGE_DIR);
    package.join(CLIENT_ENTRY).is_file()
        && super::npm_package_version(&package).as_deref() == Some(MCP_TS_SDK_VERSION)
}

/// `node testkit/hosts/ts-client.mjs` with `CMK_MCP_TS_SDK` set to the installed SDK; add
/// `[--names dotted|underscore] -- SERVER [ARGS...]`. `CMK_NODE` overrides the `node` executable.
pub fn mcp_ts_client() -> Result<Command, PrereqError> {
    let sdk = mcp_ts_sdk_dir()?;
    let node = std::env::var_os("CMK_NODE").unwrap_or_else(|| "node".into());
    let mut cmd = Command::new(node);
    cmd.arg(MCP_TS_CLIENT_SCRIPT).env("CMK_MCP_TS_SDK", sdk);
    Ok(cmd)
}
