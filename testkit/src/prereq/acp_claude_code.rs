//! `@zed-industries/claude-code-acp@0.16.2` (the version of the reference transcripts
//! `claude-code-acp-0.16.2*.jsonl`): the older ACP adapter of Claude Code, speaking ACP on stdio.
//! Installed with `npm ci` from the lockfile in `testkit/pins/claude-code-acp/`.
//!
//! With no credentials it answers `initialize`, `session/new` and `session/set_mode`, and answers
//! `session/prompt` with `-32000` "Authentication required". As root it needs `IS_SANDBOX=1`. It
//! never exits by itself after a session, and killing the Node wrapper alone can leave the
//! Claude Code child alive: kill the whole process group.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::PrereqError;
use super::npm_pin::{NpmPin, node};

/// The pinned version.
pub const ACP_CLAUDE_CODE_VERSION: &str = "0.16.2";

const PIN: NpmPin = NpmPin {
    install_name: "claude-code-acp-0.16.2",
    package_dir: "node_modules/@zed-industries/claude-code-acp",
    version: ACP_CLAUDE_CODE_VERSION,
    marker: "dist/index.js",
    also: None,
    package_json: include_str!("../../pins/claude-code-acp/package.json"),
    package_lock: include_str!("../../pins/claude-code-acp/package-lock.json"),
};

/// The agent's script (`…/@zed-industries/claude-code-acp/dist/index.js`), installed on first
/// use.
pub fn acp_claude_code_entry() -> Result<PathBuf, PrereqError> {
    static ENTRY: OnceLock<Result<PathBuf, PrereqError>> = OnceLock::new();
    ENTRY
        .get_or_init(|| Ok(PIN.package()?.join(PIN.marker)))
        .clone()
}

/// `node …/dist/index.js` with no credentials: a throw-away `HOME` (`home`), no Anthropic key or
/// base URL, `IS_SANDBOX=1` (needed as root) and Claude Code's non-essential traffic off.
/// `CMK_NODE` overrides the `node` executable. The caller sets stdio and the process group.
pub fn acp_claude_code(home: &Path) -> Result<Command, PrereqError> {
    let mut cmd = node(&acp_claude_code_entry()?);
    cmd.env("HOME", home)
        .env("IS_SANDBOX", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("ANTHROPIC_BASE_URL")
        .env_remove("ANTHROPIC_AUTH_TOKEN")
        .env_remove("CLAUDECODE");
    Ok(cmd)
}
