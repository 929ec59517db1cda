//! The ACP TypeScript SDK `@agentclientprotocol/sdk@0.12.0` (the version of the reference
//! transcripts `ts-sdk-0.12.0-example-agent-*.jsonl`), installed with `npm ci` from the lockfile
//! in `testkit/pins/acp-ts-sdk/` together with its peer dependency `zod`.
//!
//! The published package ships its example agent, compiled, as `dist/examples/agent.js` (later
//! 1.x/2.x releases no longer ship `dist/examples/`, hence this version). Run with `node`, it
//! speaks ACP on stdin/stdout: `initialize` (`loadSession: false`), `session/new`, and a
//! scripted `session/prompt` turn (a text chunk, a `read` tool call, another chunk, an `edit`
//! tool call that asks `session/request_permission` with options `allow` (`allow_once`) and
//! `reject` (`reject_once`), a closing chunk that depends on the answer, `end_turn`), about 1 s
//! between steps; `session/cancel` makes the pending prompt answer `stopReason: "cancelled"`.
//! It never exits by itself: kill its process group.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::PrereqError;
use super::claude_code::npm_ci;
use super::install::{self, io_err};

/// The pinned SDK version.
pub const ACP_TS_SDK_VERSION: &str = "0.12.0";

const INSTALL_NAME: &str = "acp-ts-sdk-0.12.0";
const PACKAGE_DIR: &str = "node_modules/@agentclientprotocol/sdk";
const AGENT_ENTRY: &str = "dist/examples/agent.js";
const PACKAGE_JSON: &str = include_str!("../../pins/acp-ts-sdk/package.json");
const PACKAGE_LOCK: &str = include_str!("../../pins/acp-ts-sdk/package-lock.json");

/// The example agent's script (`…/@agentclientprotocol/sdk/dist/examples/agent.js`), installed
/// on first use.
pub fn acp_ts_example_agent_entry() -> Result<PathBuf, PrereqError> {
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

/// Complete when the agent script exists and the installed SDK is the pinned version.
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
        && dir.join("node_modules/zod/package.json").is_file()
        && version.as_deref() == Some(ACP_TS_SDK_VERSION)
}

/// `node …/dist/examples/agent.js`: the TypeScript SDK's example agent on stdio. `CMK_NODE`
/// overrides the `node` executable. The caller sets stdio and the process group.
pub fn acp_ts_example_agent() -> Result<Command, PrereqError> {
    let entry = acp_ts_example_agent_entry()?;
    let node = std::env::var_os("CMK_NODE").unwrap_or_else(|| "node".into());
    let mut cmd = Command::new(node);
    cmd.arg(entry);
    Ok(cmd)
}
