//! Generic hosts for ANY stdio MCP server, on the pinned SDKs: the TypeScript SDK running
//! `testkit/hosts/core-client.mjs` and the Python SDK running `testkit/hosts/core_client.py`.
//! Each runs the core sequence (connect, tools/list, resources/list when declared, the given
//! tool calls, close) and prints one JSON summary, so the same host can run against a server and
//! against a recording of it. [`argv`] turns a prerequisite's command into an argv for tools
//! that take `-- COMMAND ARGS…`.

use std::ffi::OsString;
use std::process::Command;

use super::{PrereqError, mcp_ts_client, python_mcp_command};

/// The TypeScript SDK's generic host script.
pub const MCP_TS_CORE_CLIENT_SCRIPT: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/hosts/core-client.mjs");

/// The Python SDK's generic host script.
pub const PYTHON_CORE_CLIENT_SCRIPT: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/hosts/core_client.py");

/// `node core-client.mjs` with the pinned TypeScript SDK (`CMK_MCP_TS_SDK` set); append
/// `[--call NAME=JSON]... -- COMMAND ARGS…`.
pub fn mcp_ts_core_client() -> Result<Command, PrereqError> {
    let host = mcp_ts_client()?;
    let mut cmd = Command::new(host.get_program());
    cmd.arg(MCP_TS_CORE_CLIENT_SCRIPT);
    for (k, v) in host.get_envs() {
        if let Some(v) = v {
            cmd.env(k, v);
        }
    }
    Ok(cmd)
}

/// The pinned Python SDK's interpreter running `core_client.py`; append
/// `[--call NAME=JSON]... -- COMMAND ARGS…`.
pub fn python_core_client() -> Result<Command, PrereqError> {
    let mut cmd = python_mcp_command()?;
    cmd.arg(PYTHON_CORE_CLIENT_SCRIPT);
    Ok(cmd)
}

/// A command's program and arguments (its environment and directory are not carried: the
/// prerequisites' server commands set none).
#[must_use]
pub fn argv(cmd: &Command) -> Vec<OsString> {
    std::iter::once(cmd.get_program().to_owned())
        .chain(cmd.get_args().map(ToOwned::to_owned))
        .collect()
}

/// A command as one argv that carries its environment too, for tools that take
/// `-- COMMAND ARGS…` and start it with their own environment (ACP client mode): `env -u VAR
/// … VAR=VALUE … PROGRAM ARGS…` when the command sets or removes variables, else [`argv`]. The
/// directory is not carried.
#[must_use]
pub fn env_argv(cmd: &Command) -> Vec<String> {
    let mut envs: Vec<(String, Option<String>)> = cmd
        .get_envs()
        .map(|(k, v)| {
            (
                k.to_string_lossy().into_owned(),
                v.map(|v| v.to_string_lossy().into_owned()),
            )
        })
        .collect();
    let program = argv(cmd)
        .into_iter()
        .map(|w| w.to_string_lossy().into_owned());
    if envs.is_empty() {
        return program.collect();
    }
    envs.sort();
    let mut out = vec!["env".to_owned()];
    for (k, v) in &envs {
        if v.is_none() {
            out.extend(["-u".to_owned(), k.clone()]);
        }
    }
    out.extend(
        envs.iter()
            .filter_map(|(k, v)| v.as_ref().map(|v| format!("{k}={v}"))),
    );
    out.extend(program);
    out
}
