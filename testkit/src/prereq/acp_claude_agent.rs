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
use super::claude_code::npm_ci;
use super::install::{self, io_err};

/// The pinned version.
pub const ACP_CLAUDE_AGENT_VERSION: &str = "0.23.1";

const INSTALL_NAME: &str = "claude-agent-acp-0.23.1";
const PACKAGE_DIR: &str = "node_modules/@zed-industries/claude-agent-acp";
const AGENT_ENTRY: &str = "dist/index.js";
const PACKAGE_JSON: &str = include_str!("../../pins/claude-agent-acp/package.json");
const PACKAGE_LOCK: &str = include_str!("../../pins/claude-agent-acp/package-lock.json");

/// The agent's script (`…/@zed-industries/claude-agent-acp/dist/index.js`), installed on first
/// use.
pub fn acp_claude_agent_entry() -> Result<PathBuf, PrereqError> {
    static ENTRY: OnceLock<Result<PathBuf, PrereqError>> = OnceLock::new();
    ENTRY
        .get_or_init(|| {
            let dir = install::ensure(INSTALL_NAME, is_complete, |dir, log| {
                for (name, text) in [
                    ("package.json", PACKAGE_JSON),
                    ("package-lock.json", PACKAGE_LOCK),
                ] {
                    let path = dir.join(name);
                    std::fs::write(&path, text).map_err(|e| io_err("write", &path, e))?;
                }
                log.run("npm ci", &mut npm_ci(dir))
            })?;
            Ok(dir.join(PACKAGE_DIR).join(AGENT_ENTRY))
        })
        .clone()
}

/// Complete when the agent script exists and the installed package is the pinned version.
fn is_complete(dir: &Path) -> bool {
    let package = dir.join(PACKAGE_DIR);
    let version = std::fs::read_to_string(package.join("package.json"))
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .and_then(|json| {
            json.get("version")
                .and_then(|v| v.as_str())
                .map(str::to_owned)
        });
    package.join(AGENT_ENTRY).is_file()
        && dir
            .join("node_modules/@anthropic-ai/claude-agent-sdk/package.json")
            .is_file()
        && version.as_deref() == Some(ACP_CLAUDE_AGENT_VERSION)
}

/// `node …/dist/index.js` pointed at a Messages API at `base_url` (the stand-in), with a
/// throw-away `HOME` (`home`), a dummy key, `IS_SANDBOX=1` (needed as root) and Claude Code's
/// non-essential traffic off. `CMK_NODE` overrides the `node` executable. The caller sets stdio
/// and the process group.
pub fn acp_claude_agent(base_url: &str, home: &Path) -> Result<Command, PrereqError> {
    let entry = acp_claude_agent_entry()?;
    let node = std::env::var_os("CMK_NODE").unwrap_or_else(|| "node".into());
    let mut cmd = Command::new(node);
    cmd.arg(entry)
        .env("ANTHROPIC_BASE_URL", base_url)
        .env("ANTHROPIC_API_KEY", "sk-ant-cmk-standin-dummy")
        .env("HOME", home)
        .env("IS_SANDBOX", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .env_remove("CLAUDECODE");
    Ok(cmd)
}
