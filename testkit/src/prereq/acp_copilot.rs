//! `@github/copilot@1.0.102`: GitHub's Copilot CLI, speaking ACP on stdio under `--acp` ("Start
//! as Agent Client Protocol server"), a native binary from the npm platform package
//! (`@github/copilot-linux-x64` and siblings, optional dependencies of the wrapper). Installed
//! with `npm ci` from the lockfile in `testkit/pins/copilot/`; the binary is run directly, not
//! through the wrapper's `npm-loader.js`.
//!
//! With no credentials it answers `initialize` (one `copilot-login` auth method: run `copilot
//! login` in a terminal) and answers `session/new` with `-32000` "Authentication required", so
//! no model is ever reached. It does try HTTP on its own (two connects to the proxy under
//! strace for `initialize` and `session/new`, here on 2026-12-06): the proxy variables turn them
//! into connects to a closed loopback port.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::PrereqError;
use super::npm_pin::NpmPin;

/// The pinned version.
pub const ACP_COPILOT_VERSION: &str = "1.0.102";

/// The binary inside the install, from the platform package npm picked (glibc builds; the
/// `linuxmusl` ones are not used).
const BINARY: Option<&str> = if cfg!(all(target_os = "linux", target_arch = "x86_64")) {
    Some("node_modules/@github/copilot-linux-x64/copilot")
} else if cfg!(all(target_os = "linux", target_arch = "aarch64")) {
    Some("node_modules/@github/copilot-linux-arm64/copilot")
} else if cfg!(all(target_os = "macos", target_arch = "x86_64")) {
    Some("node_modules/@github/copilot-darwin-x64/copilot")
} else if cfg!(all(target_os = "macos", target_arch = "aarch64")) {
    Some("node_modules/@github/copilot-darwin-arm64/copilot")
} else {
    None
};

const PIN: NpmPin = NpmPin {
    install_name: "copilot-1.0.102",
    package_dir: "node_modules/@github/copilot",
    version: ACP_COPILOT_VERSION,
    marker: "npm-loader.js",
    also: BINARY,
    package_json: include_str!("../../pins/copilot/package.json"),
    package_lock: include_str!("../../pins/copilot/package-lock.json"),
};

/// The native `copilot` binary of this platform, installed on first use.
pub fn acp_copilot_binary() -> Result<PathBuf, PrereqError> {
    static BIN: OnceLock<Result<PathBuf, PrereqError>> = OnceLock::new();
    BIN.get_or_init(|| PIN.native_binary("copilot")).clone()
}

/// The variables that would hand Copilot a GitHub token or another home.
const CREDENTIAL_VARS: [&str; 5] = [
    "COPILOT_GITHUB_TOKEN",
    "GH_TOKEN",
    "GITHUB_TOKEN",
    "GH_HOST",
    "COPILOT_HOME",
];

/// `copilot --acp` with no credentials: a throw-away `HOME` (`home`; Copilot keeps its config in
/// `home/.copilot`) and XDG folders under it, no GitHub token, no self-update
/// (`COPILOT_AUTO_UPDATE=false`), and any proxied HTTP pointed at a closed loopback port so that
/// traffic fails fast instead of leaving the machine. The caller sets stdio and the process
/// group.
pub fn acp_copilot(home: &Path) -> Result<Command, PrereqError> {
    let mut cmd = Command::new(acp_copilot_binary()?);
    cmd.arg("--acp").env("COPILOT_AUTO_UPDATE", "false");
    for var in CREDENTIAL_VARS {
        cmd.env_remove(var);
    }
    super::npm_pin::scratch_home(&mut cmd, home);
    super::npm_pin::loopback_only(&mut cmd);
    Ok(cmd)
}
