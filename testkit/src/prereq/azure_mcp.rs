//! `@azure/mcp@2.0.5` from npm: Microsoft's Azure MCP Server, a real MCP server written in C#
//! on the official C# SDK (`ModelContextProtocol` 1.0.0, .NET 10), shipped as a self-contained
//! single-file .NET binary in the npm platform package `@azure/mcp-linux-x64` (an optional
//! dependency of the wrapper). Installed with `npm ci` (scripts off) from the lockfile in
//! `testkit/pins/azure-mcp/`; the binary is run directly (`azmcp server start`, stdio), not
//! through the wrapper's Node script: about 140 MB, no .NET runtime needed, `npm ci` in seconds.
//!
//! Run without any Azure credential: its read-only tools (`group_list`, `subscription_list`, …)
//! answer an `isError` result when their arguments are wrong, and any HTTP it tries goes to the
//! closed loopback proxy ([`loopback_only`](super::npm_pin::loopback_only)) and fails fast. Its
//! telemetry is off (`AZURE_MCP_COLLECT_TELEMETRY=false`, its README's switch for every stream).
//! The single-file bundle unpacks its native libraries (about 40 MB) under `$HOME/.net` on the
//! first start, so it is given a throw-away home. It takes about 1 to 4 s to answer `initialize`
//! (JIT start-up), the slowest server the gate is tried on.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::PrereqError;
use super::npm_pin::{NpmPin, loopback_only, scratch_home};

/// The pinned version.
pub const AZURE_MCP_VERSION: &str = "2.0.5";

/// The MCP SDK its binary is built on (the tests say what they grade).
pub const AZURE_MCP_SDK: &str = "ModelContextProtocol 1.0.0 (C#)";

/// The binary inside the install, from the platform package npm picked.
const BINARY: Option<&str> = if cfg!(all(target_os = "linux", target_arch = "x86_64")) {
    Some("node_modules/@azure/mcp-linux-x64/dist/azmcp")
} else if cfg!(all(target_os = "linux", target_arch = "aarch64")) {
    Some("node_modules/@azure/mcp-linux-arm64/dist/azmcp")
} else if cfg!(all(target_os = "macos", target_arch = "x86_64")) {
    Some("node_modules/@azure/mcp-darwin-x64/dist/azmcp")
} else if cfg!(all(target_os = "macos", target_arch = "aarch64")) {
    Some("node_modules/@azure/mcp-darwin-arm64/dist/azmcp")
} else {
    None
};

const PIN: NpmPin = NpmPin {
    install_name: "azure-mcp-2.0.5",
    package_dir: "node_modules/@azure/mcp",
    version: AZURE_MCP_VERSION,
    marker: "index.js",
    also: BINARY,
    package_json: include_str!("../../pins/azure-mcp/package.json"),
    package_lock: include_str!("../../pins/azure-mcp/package-lock.json"),
};

/// The native `azmcp` binary of this platform, installed on first use.
pub fn azure_mcp_binary() -> Result<PathBuf, PrereqError> {
    static BIN: OnceLock<Result<PathBuf, PrereqError>> = OnceLock::new();
    BIN.get_or_init(|| PIN.native_binary("azure-mcp")).clone()
}

/// The variables that would hand it an Azure identity (the credential chain reads them).
const CREDENTIAL_VARS: [&str; 9] = [
    "AZURE_CLIENT_ID",
    "AZURE_CLIENT_SECRET",
    "AZURE_TENANT_ID",
    "AZURE_CLIENT_CERTIFICATE_PATH",
    "AZURE_USERNAME",
    "AZURE_PASSWORD",
    "AZURE_FEDERATED_TOKEN_FILE",
    "AZURE_SUBSCRIPTION_ID",
    "APPLICATIONINSIGHTS_CONNECTION_STRING",
];

/// `azmcp server start` over stdio with no Azure credential, telemetry off, `home` as its
/// throw-away home (and XDG folders), and any proxied HTTP pointed at a closed loopback port.
/// The variables are the command's environment: a caller that passes argv on must carry them.
pub fn azure_mcp_server(home: &Path) -> Result<Command, PrereqError> {
    let mut cmd = Command::new(azure_mcp_binary()?);
    cmd.args(["server", "start"]);
    for var in CREDENTIAL_VARS {
        cmd.env_remove(var);
    }
    cmd.env("AZURE_MCP_COLLECT_TELEMETRY", "false")
        .env("DOTNET_CLI_TELEMETRY_OPTOUT", "1");
    scratch_home(&mut cmd, home);
    loopback_only(&mut cmd);
    Ok(cmd)
}
