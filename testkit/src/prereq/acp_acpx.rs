//! `acpx@0.19.1` (npm, OpenClaw's "headless CLI client for the Agent Client Protocol"): a real
//! ACP client nobody here wrote, checked by the ACP gate's client mode. Installed with `npm ci`
//! from the lockfile in `testkit/pins/acpx/`; it needs Node 22.13 or newer (`engines`) and the
//! machines here run Node 20, so the pin also holds Node.js 22.23.5 from the npm registry's
//! platform packages (as for the Qwen Code pin) and it runs on that `node`. Its dependency
//! `@openclaw/fs-safe` names seven optional native platform packages of which the npm registry
//! serves two (`linux-x64-gnu`, `linux-x64-musl`); `npm ci` refuses a lock file that lacks the
//! others, so the lock file's entry for it lists only those two (the package itself, and its
//! integrity, unchanged; it runs without them, as a fresh `npm install` leaves it).
//!
//! `acpx --agent COMMAND [flags] exec PROMPT` is its one-shot run (no saved session): it starts
//! `COMMAND` (its documented escape hatch for any ACP agent), sends `initialize` (fs and terminal
//! capabilities), `session/new` and one `session/prompt`, prints the turn and exits when the
//! prompt is answered, ending the agent. Permission requests are answered at once by its policy
//! flags (`--approve-reads`: reads allowed, everything else denied when no TTY can ask); SIGINT
//! (Ctrl-C) cancels the running turn with `session/cancel`. Run with no credentials, nothing of
//! it reaches the network (no connect under strace, 2026-12-06); [`acp_acpx_client`] still gives
//! it a throw-away `HOME` and proxies at a closed loopback port.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::PrereqError;
use super::npm_pin::{NpmPin, PINNED_NODE};

/// The pinned version.
pub const ACP_ACPX_VERSION: &str = "0.19.1";

const PIN: NpmPin = NpmPin {
    install_name: "acpx-0.19.1",
    package_dir: "node_modules/acpx",
    version: ACP_ACPX_VERSION,
    marker: "dist/cli.js",
    also: Some(PINNED_NODE),
    package_json: include_str!("../../pins/acpx/package.json"),
    package_lock: include_str!("../../pins/acpx/package-lock.json"),
};

/// Its CLI (`…/acpx/dist/cli.js`) and the pinned `node`, installed on first use.
pub fn acp_acpx_paths() -> Result<(PathBuf, PathBuf), PrereqError> {
    static PATHS: OnceLock<Result<(PathBuf, PathBuf), PrereqError>> = OnceLock::new();
    PATHS.get_or_init(|| PIN.script_on_node()).clone()
}

/// `node …/acpx/dist/cli.js` on the pinned Node 22 with a throw-away `HOME` (`home`: acpx keeps
/// its sessions and config in `home/.acpx`) and XDG folders under it, and any proxied HTTP
/// pointed at a closed loopback port. The caller adds `--agent …`, the flags and the command.
pub fn acp_acpx_client(home: &Path) -> Result<Command, PrereqError> {
    let (entry, node) = acp_acpx_paths()?;
    let mut cmd = Command::new(node);
    cmd.arg(entry);
    super::npm_pin::scratch_home(&mut cmd, home);
    super::npm_pin::loopback_only(&mut cmd);
    Ok(cmd)
}
