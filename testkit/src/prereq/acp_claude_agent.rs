//! `@zed-industries/claude-agent-acp@0.23.1` (the version of the reference transcript
//! `claude-agent-acp-0.23.1-extended.jsonl`): Claude Code behind the Claude Agent SDK, speaking
//! ACP on stdio. Installed with `npm ci` from the lockfile in `testkit/pins/claude-agent-acp/`.
//!
//! Unlike the SDK examples it runs a real model turn: pointed at the local Messages API stand-in
//! (`ANTHROPIC_BASE_URL`, a dummy `ANTHROPIC_API_KEY`) it completes `session/prompt` with no
//! account, streaming `agent_message_chunk`s, `tool_call`s, `session/request_permission` for
//! tools that ask, and a `usage_update`. As root it needs `IS_SANDBOX=1`. It never exits by
//! itself after a turn, and killing the Node wrapper alone can leave the Claude Code child
//! alive: kill the whole process group.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::PrereqError;
use super::npm_pin::{NpmPin, node};

/// The pinned version.
pub const ACP_CLAUDE_AGENT_VERSION: &str = "0.23.1";

const PIN: NpmPin = NpmPin {
    install_name: "claude-agent-acp-0.23.1",
    package_dir: "node_modules/@zed-industries/claude-agent-acp",
    version: ACP_CLAUDE_AGENT_VERSION,
    marker: "dist/index.js",
    also: None,
    package_json: include_str!("../../pins/claude-agent-acp/package.json"),
    package_lock: include_str!("../../pins/claude-agent-acp/package-lock.json"),
};

/// The agent's script (`…/@zed-industries/claude-agent-acp/dist/index.js`), installed on first
/// use.
pub fn acp_claude_agent_entry() -> Result<PathBuf, PrereqError> {
    static ENTRY: OnceLock<Result<PathBuf, PrereqError>> = OnceLock::new();
    ENTRY
        .get_or_init(|| Ok(PIN.package()?.join(PIN.marker)))
        .clone()
}

/// `node …/dist/index.js` pointed at a Messages API at `base_url` (the stand-in), with a
/// throw-away `HOME` (`home`), a dummy key, `IS_SANDBOX=1` (needed as root) and Claude Code's
/// non-essential traffic off. `CMK_NODE` overrides the `node` executable. The caller sets stdio
/// and the process group.
pub fn acp_claude_agent(base_url: &str, home: &Path) -> Result<Command, PrereqError> {
    let mut cmd = node(&acp_claude_agent_entry()?);
    cmd.env("ANTHROPIC_BASE_URL", base_url)
        .env("ANTHROPIC_API_KEY", "sk-ant-cmk-standin-dummy")
        .env("HOME", home)
        .env("IS_SANDBOX", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .env_remove("CLAUDECODE");
    Ok(cmd)
}
