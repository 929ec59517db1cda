//! `firecrawl-mcp@3.26.0` from npm: Firecrawl's web scraping server, a real MCP server on the
//! FastMCP TypeScript framework (punkpeye's `fastmcp` 4.3.2, which wraps the TypeScript SDK
//! `@modelcontextprotocol/sdk` 1.32.2 in its own session, tool and transport layer). Installed
//! with `npm ci` (scripts off) from the lockfile in `testkit/pins/firecrawl-mcp/` (194 packages,
//! about 70 MB unpacked, seconds) and run as `node …/dist/index.js` over stdio.
//!
//! Its thirty tools call Firecrawl's web API, whose base URL is `FIRECRAWL_API_URL`: run with no
//! API key and that URL at a closed loopback port (so it does not fall back to its keyless cloud
//! mode) and every proxy variable at another, every call that would leave the machine fails
//! fast on loopback instead. It needs no network to start or to list its tools.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use super::PrereqError;
use super::npm_pin::{NpmPin, loopback_only, node};

/// The pinned version.
pub const FIRECRAWL_MCP_VERSION: &str = "3.26.0";

/// The framework it is built on, and the SDK under it (the tests say what they grade).
pub const FIRECRAWL_MCP_SDK: &str =
    "fastmcp 4.3.2 (TypeScript) on @modelcontextprotocol/sdk 1.32.2";

const PIN: NpmPin = NpmPin {
    install_name: "firecrawl-mcp-3.26.0",
    package_dir: "node_modules/firecrawl-mcp",
    version: FIRECRAWL_MCP_VERSION,
    marker: "dist/index.js",
    also: None,
    package_json: include_str!("../../pins/firecrawl-mcp/package.json"),
    package_lock: include_str!("../../pins/firecrawl-mcp/package-lock.json"),
};

/// The entry script `dist/index.js`, installed on first use.
pub fn firecrawl_mcp_entry() -> Result<PathBuf, PrereqError> {
    static ENTRY: OnceLock<Result<PathBuf, PrereqError>> = OnceLock::new();
    ENTRY
        .get_or_init(|| Ok(PIN.package()?.join(PIN.marker)))
        .clone()
}

/// `node …/firecrawl-mcp/dist/index.js` over stdio with no API key, its API and every proxy at
/// a closed loopback port. The variables are the command's environment: a caller that passes
/// argv on must carry them. `CMK_NODE` overrides `node`.
pub fn firecrawl_mcp_server() -> Result<Command, PrereqError> {
    let mut cmd = node(&firecrawl_mcp_entry()?);
    for var in [
        "FIRECRAWL_API_KEY",
        "FIRECRAWL_OAUTH_TOKEN",
        "CLOUD_SERVICE",
        "HTTP_STREAMABLE_SERVER",
        "SSE_LOCAL",
    ] {
        cmd.env_remove(var);
    }
    cmd.env("FIRECRAWL_API_URL", "http://127.0.0.1:9");
    loopback_only(&mut cmd);
    Ok(cmd)
}
