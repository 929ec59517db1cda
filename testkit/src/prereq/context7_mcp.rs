//! `@upstash/context7-mcp@4.1.1` from npm: Upstash's Context7 documentation server, a real MCP
//! server on the second major version of the TypeScript SDK (`@modelcontextprotocol/server`
//! 2.0.0, which also speaks the 2026-07-28 draft's `server/discover`). Installed with `npm ci`
//! (scripts off) from the lockfile in `testkit/pins/context7-mcp/` (107 packages, seconds) and
//! run as `node …/dist/index.js` over stdio.
//!
//! Its two tools (`resolve-library-id`, `query-docs`) are read-only and query Context7's web API.
//! Run with no API key, the API's base URL (`CONTEXT7_API_URL`) at a closed loopback port and
//! the proxy variables it honours (`HTTPS_PROXY`, undici's `ProxyAgent`) at another, its
//! OpenTelemetry off (`OTEL_SDK_DISABLED=true`): every call that would leave the machine fails
//! fast on loopback instead.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use super::PrereqError;
use super::npm_pin::{NpmPin, loopback_only, node};

/// The pinned version.
pub const CONTEXT7_MCP_VERSION: &str = "4.1.1";

/// The MCP SDK it is built on (the tests say what they grade).
pub const CONTEXT7_MCP_SDK: &str = "@modelcontextprotocol/server 2.0.0";

const PIN: NpmPin = NpmPin {
    install_name: "context7-mcp-4.1.1",
    package_dir: "node_modules/@upstash/context7-mcp",
    version: CONTEXT7_MCP_VERSION,
    marker: "dist/index.js",
    also: None,
    package_json: include_str!("../../pins/context7-mcp/package.json"),
    package_lock: include_str!("../../pins/context7-mcp/package-lock.json"),
};

/// The entry script `dist/index.js`, installed on first use.
pub fn context7_mcp_entry() -> Result<PathBuf, PrereqError> {
    static ENTRY: OnceLock<Result<PathBuf, PrereqError>> = OnceLock::new();
    ENTRY
        .get_or_init(|| Ok(PIN.package()?.join(PIN.marker)))
        .clone()
}

/// `node …/context7-mcp/dist/index.js` over stdio with no API key, its API and every proxy at a
/// closed loopback port and telemetry off. The variables are the command's environment: a
/// caller that passes argv on must carry them. `CMK_NODE` overrides `node`.
pub fn context7_mcp_server() -> Result<Command, PrereqError> {
    let mut cmd = node(&context7_mcp_entry()?);
    cmd.env_remove("CONTEXT7_API_KEY")
        .env("CONTEXT7_API_URL", "http://127.0.0.1:9/api")
        .env("OTEL_SDK_DISABLED", "true");
    loopback_only(&mut cmd);
    Ok(cmd)
}
