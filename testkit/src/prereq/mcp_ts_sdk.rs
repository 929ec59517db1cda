//! The MCP TypeScript SDK `@modelcontextprotocol/sdk@1.32.2`, installed with `npm ci` from the
//! lockfile in `testkit/pins/mcp-ts-sdk/`, and the host script that drives it,
//! `testkit/hosts/ts-client.mjs` (in this repository): a real MCP host of a stdio server that runs
//! the host matrix's core sequence and prints a JSON summary (see the script's header).
//!
//! 1.32.x is the line the author used; it declares `node >=18` and runs on Node 20 here.
//! Its `Client.callTool` validates `structuredContent` against a tool's `outputSchema` when the
//! tool declares one, and its request options carry `timeout` and `resetTimeoutOnProgress`.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use super::PrereqError;
use super::npm_pin::{NpmPin, node};

/// The pinned SDK version.
pub const MCP_TS_SDK_VERSION: &str = "1.32.2";

const PIN: NpmPin = NpmPin {
    install_name: "mcp-ts-sdk-1.32.2",
    package_dir: "node_modules/@modelcontextprotocol/sdk",
    version: MCP_TS_SDK_VERSION,
    marker: "dist/esm/client/index.js",
    also: None,
    package_json: include_str!("../../pins/mcp-ts-sdk/package.json"),
    package_lock: include_str!("../../pins/mcp-ts-sdk/package-lock.json"),
};

/// The host script shipped in this repository.
pub const MCP_TS_CLIENT_SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/hosts/ts-client.mjs");

/// The installed package folder (`…/node_modules/@modelcontextprotocol/sdk`), installed on first
/// use.
pub fn mcp_ts_sdk_dir() -> Result<PathBuf, PrereqError> {
    static DIR: OnceLock<Result<PathBuf, PrereqError>> = OnceLock::new();
    DIR.get_or_init(|| PIN.package()).clone()
}

/// `node testkit/hosts/ts-client.mjs` with `CMK_MCP_TS_SDK` set to the installed SDK; add
/// `[--names dotted|underscore] -- SERVER [ARGS...]`. `CMK_NODE` overrides the `node` executable.
pub fn mcp_ts_client() -> Result<Command, PrereqError> {
    let sdk = mcp_ts_sdk_dir()?;
    let mut cmd = node(std::path::Path::new(MCP_TS_CLIENT_SCRIPT));
    cmd.env("CMK_MCP_TS_SDK", sdk);
    Ok(cmd)
}
