//! The ACP TypeScript SDK's example client (`dist/examples/client.js` of
//! `@agentclientprotocol/sdk@0.12.0`, the install of [`super::acp_ts_example_agent`]), a real ACP
//! client nobody here wrote, run unmodified: its SHA-256 is checked before use.
//!
//! It takes no agent command: it starts `npx tsx <its own folder>/agent.ts` (the SDK's example
//! agent from source). Run here, `npx` is a shim first on `PATH` (written into the install,
//! [`NPX_SHIM`]) that execs what `ACP_CONFORMANCE_AGENT` names (ACP client mode's scripted agent)
//! when called as `npx tsx …/agent.ts`, and refuses anything else. Then it sends `initialize`
//! (fs read and write capabilities), `session/new` (cwd = its own) and one `session/prompt`
//! ("Hello, agent!"); each `session/request_permission` prints the options and reads the chosen
//! number from stdin through a new `readline` interface; `fs/*` are answered with a mock; other
//! agent requests `-32601`. Once the prompt is answered it kills the agent (SIGTERM) and exits 0.
//! It has no way to cancel a turn.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::Command;
use std::sync::{Arc, OnceLock};

use super::PrereqError;
use super::install::io_err;

/// SHA-256 of `dist/examples/client.js` in the pinned SDK (0.12.0).
pub const ACP_TS_EXAMPLE_CLIENT_SHA256: &str =
    "6747b1a97169f0c004a3f9354a97195b7dd7f45d40ecc53e6b35590f7ff333cc";

/// The `npx` the client finds first on `PATH`: only `npx tsx …/agent.ts`, which becomes the
/// agent `ACP_CONFORMANCE_AGENT` names.
pub const NPX_SHIM: &str = r#"#!/bin/sh
# claude-mcp-kit: stands in for `npx tsx .../agent.ts`, the one command the ACP TypeScript SDK's
# example client runs; the agent started is the one ACP_CONFORMANCE_AGENT names.
case "$1 $2" in
  "tsx "*/agent.ts) exec "$ACP_CONFORMANCE_AGENT" ;;
esac
echo "npx shim: only 'npx tsx .../agent.ts' is provided, got: $*" >&2
exit 127
"#;

/// The example client's script and the folder holding the `npx` shim, installed on first use
/// (the script's hash checked).
pub fn acp_ts_example_client_paths() -> Result<(PathBuf, PathBuf), PrereqError> {
    static PATHS: OnceLock<Result<(PathBuf, PathBuf), PrereqError>> = OnceLock::new();
    PATHS
        .get_or_init(|| {
            let (install, package) = super::acp_ts_agent::installed()?;
            let script = package.join("dist/examples/client.js");
            check_sha256(&script)?;
            let shim_dir = install.join("cmk-npx-shim");
            let shim = shim_dir.join("npx");
            let current = std::fs::read_to_string(&shim).ok();
            if current.as_deref() != Some(NPX_SHIM) {
                std::fs::create_dir_all(&shim_dir).map_err(|e| io_err("create", &shim_dir, e))?;
                // Through a temporary name and a rename: concurrent first uses never run half a
                // script.
                let tmp = shim_dir.join(format!("npx.{}.tmp", std::process::id()));
                std::fs::write(&tmp, NPX_SHIM).map_err(|e| io_err("write", &tmp, e))?;
                std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755))
                    .map_err(|e| io_err("chmod", &tmp, e))?;
                std::fs::rename(&tmp, &shim).map_err(|e| io_err("rename", &shim, e))?;
            }
            Ok((script, shim_dir))
        })
        .clone()
}

/// Fails unless `sha256sum` of `path` is [`ACP_TS_EXAMPLE_CLIENT_SHA256`].
fn check_sha256(path: &std::path::Path) -> Result<(), PrereqError> {
    let out = Command::new("sha256sum")
        .arg(path)
        .output()
        .map_err(|e| PrereqError::Io {
            what: "run sha256sum on".into(),
            path: path.to_path_buf(),
            source: Arc::new(e),
        })?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let found = stdout.split_whitespace().next().unwrap_or("").to_owned();
    if found == ACP_TS_EXAMPLE_CLIENT_SHA256 {
        Ok(())
    } else {
        Err(PrereqError::WrongVersion {
            what: "the ACP TypeScript SDK's examples/client.js (sha256)",
            expected: ACP_TS_EXAMPLE_CLIENT_SHA256,
            found: format!("{found} {}", String::from_utf8_lossy(&out.stderr).trim()),
        })
    }
}

/// `node …/dist/examples/client.js` with the `npx` shim first on `PATH`; `CMK_NODE` overrides
/// the `node` executable. The agent it starts is `ACP_CONFORMANCE_AGENT` (set by client mode).
pub fn acp_ts_example_client() -> Result<Command, PrereqError> {
    let (script, shim_dir) = acp_ts_example_client_paths()?;
    let mut path = std::ffi::OsString::from(shim_dir.as_os_str());
    if let Some(rest) = std::env::var_os("PATH") {
        path.push(":");
        path.push(rest);
    }
    let mut cmd = super::npm_pin::node(&script);
    cmd.env("PATH", path);
    Ok(cmd)
}
