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

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use super::PrereqError;
use super::npm_pin::{NpmPin, node};

/// The pinned SDK version.
pub const ACP_TS_SDK_VERSION: &str = "0.12.0";

const PIN: NpmPin = NpmPin {
    install_name: "acp-ts-sdk-0.12.0",
    package_dir: "node_modules/@agentclientprotocol/sdk",
    version: ACP_TS_SDK_VERSION,
    marker: "dist/examples/agent.js",
    also: Some("node_modules/zod/package.json"),
    package_json: include_str!("../../pins/acp-ts-sdk/package.json"),
    package_lock: include_str!("../../pins/acp-ts-sdk/package-lock.json"),
};

/// The example agent's script (`…/@agentclientprotocol/sdk/dist/examples/agent.js`), installed
/// on first use (with its peer dependency `zod`).
pub fn acp_ts_example_agent_entry() -> Result<PathBuf, PrereqError> {
    static ENTRY: OnceLock<Result<PathBuf, PrereqError>> = OnceLock::new();
    ENTRY
        .get_or_init(|| Ok(PIN.package()?.join(PIN.marker)))
        .clone()
}

/// The install folder and the SDK package folder inside it
/// (`…/node_modules/@agentclientprotocol/sdk`), installed on first use: its example client is
/// [`super::acp_ts_example_client`].
pub(super) fn installed() -> Result<(PathBuf, PathBuf), PrereqError> {
    PIN.installed()
}

/// `node …/dist/examples/agent.js`: the TypeScript SDK's example agent on stdio. `CMK_NODE`
/// overrides the `node` executable. The caller sets stdio and the process group.
pub fn acp_ts_example_agent() -> Result<Command, PrereqError> {
    Ok(node(&acp_ts_example_agent_entry()?))
}
