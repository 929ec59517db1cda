//! `@zed-industries/codex-acp@0.16.0` (the version of the reference transcripts
//! `codex-acp-zed-0.16.0*.jsonl`): OpenAI's Codex behind Zed's ACP adapter, a native binary from
//! the npm platform package (`@zed-industries/codex-acp-linux-x64` and siblings, optional
//! dependencies of the wrapper). Installed with `npm ci` from the lockfile in
//! `testkit/pins/codex-acp/`; the binary is run directly, not through the wrapper's Node script.
//!
//! With no credentials it answers `initialize` and answers `session/new` with `-32000`
//! "Authentication required" (it offers `CODEX_API_KEY` / `OPENAI_API_KEY` as `env_var` auth
//! methods), so no model is ever reached.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::PrereqError;
use super::npm_pin::NpmPin;

/// The pinned version.
pub const ACP_CODEX_VERSION: &str = "0.16.0";

/// The binary inside the install, from the platform package npm picked.
const BINARY: Option<&str> = if cfg!(all(target_os = "linux", target_arch = "x86_64")) {
    Some("node_modules/@zed-industries/codex-acp-linux-x64/bin/codex-acp")
} else if cfg!(all(target_os = "linux", target_arch = "aarch64")) {
    Some("node_modules/@zed-industries/codex-acp-linux-arm64/bin/codex-acp")
} else if cfg!(all(target_os = "macos", target_arch = "x86_64")) {
    Some("node_modules/@zed-industries/codex-acp-darwin-x64/bin/codex-acp")
} else if cfg!(all(target_os = "macos", target_arch = "aarch64")) {
    Some("node_modules/@zed-industries/codex-acp-darwin-arm64/bin/codex-acp")
} else {
    None
};

const PIN: NpmPin = NpmPin {
    install_name: "codex-acp-0.16.0",
    package_dir: "node_modules/@zed-industries/codex-acp",
    version: ACP_CODEX_VERSION,
    marker: "bin/codex-acp.js",
    also: BINARY,
    package_json: include_str!("../../pins/codex-acp/package.json"),
    package_lock: include_str!("../../pins/codex-acp/package-lock.json"),
};

/// The native `codex-acp` binary of this platform, installed on first use.
pub fn acp_codex_binary() -> Result<PathBuf, PrereqError> {
    static BIN: OnceLock<Result<PathBuf, PrereqError>> = OnceLock::new();
    BIN.get_or_init(|| PIN.native_binary("codex-acp")).clone()
}

/// The variables that would hand Codex a credential or another home.
const CREDENTIAL_VARS: [&str; 4] = [
    "OPENAI_API_KEY",
    "CODEX_API_KEY",
    "OPENAI_BASE_URL",
    "CODEX_HOME",
];

/// `codex-acp` with no credentials: a throw-away `HOME` (`home`; Codex makes `home/.codex`, and
/// refuses a `CODEX_HOME` that does not exist, so none is passed), no OpenAI or Codex key, and
/// any proxied HTTP pointed at a closed loopback port so that traffic fails fast instead of
/// leaving the machine. The caller sets stdio and the process group.
pub fn acp_codex(home: &Path) -> Result<Command, PrereqError> {
    let mut cmd = Command::new(acp_codex_binary()?);
    for var in CREDENTIAL_VARS {
        cmd.env_remove(var);
    }
    cmd.env("HOME", home);
    super::npm_pin::loopback_only(&mut cmd);
    Ok(cmd)
}
