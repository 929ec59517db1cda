//! `@blowmage/cursor-agent-acp@0.7.1`: a community ACP adapter for the Cursor CLI, on the ACP
//! TypeScript SDK. Installed with `npm ci` from the lockfile in `testkit/pins/cursor-agent-acp/`.
//!
//! The adapter does no model work itself: it runs `cursor-agent` (Cursor's CLI, looked up on
//! `PATH`, not on npm) for models, version and every turn. It is run here without one, on a
//! `PATH` of an empty folder, so the outcome does not depend on the machine: it still answers
//! `initialize` (its `_meta` says `cursorCliStatus: "unavailable"`, with no auth methods),
//! gives sessions (`session/new` with three modes and the default `auto` model), and answers
//! each `session/prompt` with the spawn failure. `--retries 0`: with no `cursor-agent` to retry
//! for, each of its two start-up probes would otherwise wait out back-offs of 1 + 2 + 4 s
//! before `initialize` is answered. It does not reach the network itself.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::PrereqError;
use super::install::io_err;
use super::npm_pin::NpmPin;

/// The pinned version.
pub const ACP_CURSOR_AGENT_VERSION: &str = "0.7.1";

const PIN: NpmPin = NpmPin {
    install_name: "cursor-agent-acp-0.7.1",
    package_dir: "node_modules/@blowmage/cursor-agent-acp",
    version: ACP_CURSOR_AGENT_VERSION,
    marker: "dist/bin/cursor-agent-acp.js",
    also: Some("node_modules/@agentclientprotocol/sdk/package.json"),
    package_json: include_str!("../../pins/cursor-agent-acp/package.json"),
    package_lock: include_str!("../../pins/cursor-agent-acp/package-lock.json"),
};

/// The adapter's script (`…/@blowmage/cursor-agent-acp/dist/bin/cursor-agent-acp.js`),
/// installed on first use.
pub fn acp_cursor_agent_entry() -> Result<PathBuf, PrereqError> {
    static ENTRY: OnceLock<Result<PathBuf, PrereqError>> = OnceLock::new();
    ENTRY
        .get_or_init(|| Ok(PIN.package()?.join(PIN.marker)))
        .clone()
}

/// `node …/cursor-agent-acp.js --retries 0` with no `cursor-agent`: `node` resolved on the
/// caller's `PATH` (or `CMK_NODE`), then `PATH` set to an empty folder `home/bin`, and a
/// throw-away `HOME` (`home`; its sessions go to `home/.cursor-sessions`) with XDG folders under
/// it and proxied HTTP pointed at a closed loopback port. The caller sets stdio and the
/// process group.
pub fn acp_cursor_agent(home: &Path) -> Result<Command, PrereqError> {
    let entry = acp_cursor_agent_entry()?;
    let node = std::env::var_os("CMK_NODE")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("PATH").and_then(|paths| {
                std::env::split_paths(&paths)
                    .map(|dir| dir.join("node"))
                    .find(|candidate| candidate.is_file())
            })
        })
        .unwrap_or_else(|| PathBuf::from("node"));
    let bin = home.join("bin");
    std::fs::create_dir_all(&bin).map_err(|e| io_err("create", &bin, e))?;
    let mut cmd = Command::new(node);
    cmd.arg(entry).args(["--retries", "0"]).env("PATH", &bin);
    super::npm_pin::scratch_home(&mut cmd, home);
    super::npm_pin::loopback_only(&mut cmd);
    Ok(cmd)
}
