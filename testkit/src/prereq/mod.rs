//! Pinned installs of the real peers the end-to-end tests need, in a cache outside the
//! repository, installed once on first use under a lock:
//!
//! - the real Claude Code CLI `@anthropic-ai/claude-code@2.1.328` ([`claude`]): its native
//!   binary from the platform package (npm 11 does not run the postinstall here);
//! - `@modelcontextprotocol/server-everything@2026.8.31` ([`everything_server`]), started in
//!   stdio mode;
//! - the Python MCP SDK `mcp==2.3.0` in a venv ([`python_mcp`]);
//! - `rust-mcp-server@0.4.1` from crates.io, a server on the official Rust SDK `rmcp` 3.1.0,
//!   built by `cargo install --locked` ([`rust_mcp_server`], stdio or Streamable HTTP);
//! - `kubernetes-mcp-server@0.0.67` from npm, a server written in Go on the official Go SDK
//!   (the native binary of its platform package, [`kubernetes_mcp_server`]), given a kubeconfig
//!   whose cluster is a closed loopback port;
//! - Microsoft's Azure MCP Server `@azure/mcp@2.0.5` from npm, a server written in C# on the
//!   official C# SDK (the self-contained .NET binary of its platform package, [`azure_mcp_server`]),
//!   run with no Azure credential, its telemetry off and a throw-away home;
//! - Upstash's Context7 server `@upstash/context7-mcp@4.1.1` from npm, on the second major
//!   version of the TypeScript SDK (`@modelcontextprotocol/server` 2.0.0,
//!   [`context7_mcp_server`]), its web API and every proxy at a closed loopback port;
//! - three official reference servers from npm, `@modelcontextprotocol/server-filesystem`,
//!   `server-memory` and `server-sequential-thinking`, all `2026.8.31`, in one install
//!   ([`mcp_filesystem_server`], [`mcp_memory_server`], [`mcp_sequential_thinking_server`]);
//! - two official reference servers from PyPI on the Python SDK, `mcp-server-time` and
//!   `mcp-server-git`, both `2026.10.19`, in one venv pinned by hashes ([`mcp_time_server`],
//!   [`mcp_git_server`]);
//! - a server on FastMCP (the standalone `fastmcp` 4.2.3) from PyPI, `better-mcps-filesystem`
//!   0.3.0, in a venv pinned by hashes ([`fastmcp_server`], its tools confined to one root);
//! - `rust-mcp-filesystem@0.4.5` from crates.io, a server on `rust-mcp-sdk` 1.0.1 (not `rmcp`),
//!   built by `cargo install --locked --debug` ([`rust_mcp_filesystem`], read-only, confined to
//!   one folder of its install);
//! - Firecrawl's server `firecrawl-mcp@3.26.0` from npm, on the FastMCP TypeScript framework
//!   (`fastmcp` 4.3.2 over `@modelcontextprotocol/sdk` 1.32.2, [`firecrawl_mcp_server`]), its
//!   web API and every proxy at a closed loopback port;
//! - six real ACP agents: the TypeScript SDK's example agent from `@agentclientprotocol/sdk@0.12.0`
//!   ([`acp_ts_example_agent`]), the Python SDK's echo agent from
//!   `agent-client-protocol==0.12.1` ([`acp_python_echo_agent`]; the same SDK's example *client*
//!   is [`acp_python_example_client`]), and
//!   `@zed-industries/claude-agent-acp@0.23.1` ([`acp_claude_agent`]), which runs real model turns
//!   against the Messages API stand-in, and three run without credentials by the ACP conformance
//!   gate: `@zed-industries/claude-code-acp@0.16.2` ([`acp_claude_code`]), Google's Gemini CLI
//!   `@google/gemini-cli@0.61.0` ([`acp_gemini_cli`], `--acp`) and Zed's Codex adapter
//!   `@zed-industries/codex-acp@0.16.0` ([`acp_codex`], the native binary of its platform
//!   package);
//! - three more real ACP agents run without credentials by the gate: Qwen Code
//!   `@qwen-code/qwen-code@0.24.4` ([`acp_qwen_code`], `--acp`, on the Node.js 22.23.5 it needs), GitHub's Copilot CLI
//!   `@github/copilot@1.0.102` ([`acp_copilot`], `--acp`, the native binary of its platform
//!   package) and the Cursor CLI adapter `@blowmage/cursor-agent-acp@0.7.1`
//!   ([`acp_cursor_agent`], run with no `cursor-agent` on `PATH`);
//! - four real ACP clients for the ACP gate's client mode: the Python SDK's example client
//!   ([`acp_python_example_client`], above), the TypeScript SDK's example client from the same
//!   `@agentclientprotocol/sdk@0.12.0` install as its example agent ([`acp_ts_example_client`],
//!   hash-checked, run with an `npx` shim that starts the agent client mode gives it),
//!   `acpx@0.19.1` from npm, OpenClaw's headless ACP CLI, on the Node.js 22.23.5 it needs
//!   ([`acp_acpx_client`]), and the Rust SDK `agent-client-protocol@5.2.0`'s example client
//!   `yolo_one_shot_client`, built from crates.io by `cargo install --locked --debug` with a
//!   lock file of this repository ([`acp_rust_example_client`]);
//! - two MCP hosts of the host matrix: the TypeScript SDK `@modelcontextprotocol/sdk@1.32.2` with
//!   the host script `testkit/hosts/ts-client.mjs` ([`mcp_ts_client`]) and the MCP Inspector CLI
//!   `@modelcontextprotocol/inspector@0.15.0` ([`mcp_inspector_cli`]), and the Inspector CLI
//!   `@modelcontextprotocol/inspector@2.12.0` on the Node.js 22.23.5 it needs, both from the npm
//!   registry ([`mcp_inspector_2_cli`], its `--strict` schema lint); and generic hosts of any
//!   server on both SDKs ([`mcp_ts_core_client`], [`python_core_client`]);
//! - the official conformance suite `@modelcontextprotocol/conformance@0.1.16` on Node.js
//!   22.23.5 ([`official_conformance`]), for the side-by-side in `docs/official-suite.md` only:
//!   no test uses it and plain `cmk-prereqs` does not install it.
//!
//! Cache root: `CMK_CACHE`, else `$XDG_CACHE_HOME/claude-mcp-kit`, else
//! `$HOME/.cache/claude-mcp-kit` ([`cache_root`]). Tests go through [`require`] or
//! [`require_prereq!`](crate::require_prereq): with `CI=true` a missing prerequisite fails the
//! test; elsewhere it prints `skipped: <reason>` and the test returns early.

mod acp_acpx;
mod acp_claude_agent;
mod acp_claude_code;
mod acp_codex;
mod acp_copilot;
mod acp_cursor_agent;
mod acp_gemini_cli;
mod acp_python_agent;
mod acp_python_client;
mod acp_qwen_code;
mod acp_rust_client;
mod acp_ts_agent;
mod acp_ts_client;
mod azure_mcp;
mod cargo;
mod claude_code;
mod context7_mcp;
mod core_hosts;
mod everything;
mod fastmcp_server;
mod firecrawl_mcp;
mod install;
mod kubernetes_mcp_server;
mod mcp_inspector;
mod mcp_inspector_2;
mod mcp_ts_sdk;
mod npm_pin;
mod official_conformance;
mod python_mcp;
mod python_reference_servers;
mod reference_servers;
mod rust_mcp_filesystem;
mod rust_mcp_server;
mod venv;

use std::path::PathBuf;
use std::sync::Arc;

pub use acp_acpx::{ACP_ACPX_VERSION, acp_acpx_client, acp_acpx_paths};
pub use acp_claude_agent::{ACP_CLAUDE_AGENT_VERSION, acp_claude_agent, acp_claude_agent_entry};
pub use acp_claude_code::{ACP_CLAUDE_CODE_VERSION, acp_claude_code, acp_claude_code_entry};
pub use acp_codex::{ACP_CODEX_VERSION, acp_codex, acp_codex_binary};
pub use acp_copilot::{ACP_COPILOT_VERSION, acp_copilot, acp_copilot_binary};
pub use acp_cursor_agent::{ACP_CURSOR_AGENT_VERSION, acp_cursor_agent, acp_cursor_agent_entry};
pub use acp_gemini_cli::{ACP_GEMINI_CLI_VERSION, acp_gemini_cli, acp_gemini_cli_entry};
pub use acp_python_agent::{
    ACP_PYTHON_SDIST_SHA256, ACP_PYTHON_SDK_VERSION, acp_python_echo_agent,
    acp_python_echo_agent_paths,
};
pub use acp_python_client::{acp_python_example_client, acp_python_example_client_paths};
pub use acp_qwen_code::{ACP_QWEN_CODE_VERSION, acp_qwen_code, acp_qwen_code_paths};
pub use acp_rust_client::{
    ACP_RUST_SDK_VERSION, FETCH_MANIFEST, acp_rust_example_client, acp_rust_example_client_binary,
};
pub use acp_ts_agent::{ACP_TS_SDK_VERSION, acp_ts_example_agent, acp_ts_example_agent_entry};
pub use acp_ts_client::{
    ACP_TS_EXAMPLE_CLIENT_SHA256, NPX_SHIM, acp_ts_example_client, acp_ts_example_client_paths,
};
pub use azure_mcp::{AZURE_MCP_SDK, AZURE_MCP_VERSION, azure_mcp_binary, azure_mcp_server};
pub use claude_code::{CLAUDE_VERSION, CLAUDE_VERSION_LINE, claude, claude_platform_package};
pub use context7_mcp::{
    CONTEXT7_MCP_SDK, CONTEXT7_MCP_VERSION, context7_mcp_entry, context7_mcp_server,
};
pub use core_hosts::{
    MCP_TS_CORE_CLIENT_SCRIPT, PYTHON_CORE_CLIENT_SCRIPT, argv, env_argv, mcp_ts_core_client,
    python_core_client,
};
pub use everything::{
    EVERYTHING_VERSION, everything_server, everything_server_entry,
    everything_server_streamable_http,
};
pub use fastmcp_server::{
    FASTMCP_SERVER_VERSION, FASTMCP_VERSION, fastmcp_server, fastmcp_server_bin,
};
pub use firecrawl_mcp::{
    FIRECRAWL_MCP_SDK, FIRECRAWL_MCP_VERSION, firecrawl_mcp_entry, firecrawl_mcp_server,
};
pub use install::{cache_root, peers_off};
pub use kubernetes_mcp_server::{
    KUBERNETES_MCP_SERVER_SDK, KUBERNETES_MCP_SERVER_VERSION, kubernetes_mcp_server,
    kubernetes_mcp_server_paths,
};
pub use mcp_inspector::{MCP_INSPECTOR_VERSION, mcp_inspector_cli, mcp_inspector_cli_entry};
pub use mcp_inspector_2::{
    INSPECTOR_NODE_VERSION, MCP_INSPECTOR_2_VERSION, mcp_inspector_2_cli, mcp_inspector_2_paths,
};
pub use mcp_ts_sdk::{MCP_TS_CLIENT_SCRIPT, MCP_TS_SDK_VERSION, mcp_ts_client, mcp_ts_sdk_dir};
pub use official_conformance::{
    OFFICIAL_CONFORMANCE_NODE_VERSION, OFFICIAL_CONFORMANCE_VERSION, official_conformance,
    official_conformance_paths,
};
pub use python_mcp::{PYTHON_MCP_VERSION, python_mcp, python_mcp_command};
pub use python_reference_servers::{
    MCP_REFERENCE_SERVERS_PY_VERSION, mcp_git_server, mcp_reference_servers_py_bin, mcp_time_server,
};
pub use reference_servers::{
    MCP_REFERENCE_SERVERS_VERSION, mcp_filesystem_server, mcp_memory_server,
    mcp_reference_server_entries, mcp_sequential_thinking_server,
};
pub use rust_mcp_filesystem::{
    RUST_MCP_FILESYSTEM_SDK, RUST_MCP_FILESYSTEM_VERSION, rust_mcp_filesystem,
    rust_mcp_filesystem_dir,
};
pub use rust_mcp_server::{
    RUST_MCP_SERVER_RMCP_VERSION, RUST_MCP_SERVER_VERSION, rust_mcp_server, rust_mcp_server_dir,
    rust_mcp_server_streamable_http,
};

/// Why a prerequisite is unavailable. Cheap to clone: each is computed once per process.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum PrereqError {
    /// None of `CMK_CACHE`, `XDG_CACHE_HOME`, `HOME` is set.
    #[error("no cache folder: set CMK_CACHE, XDG_CACHE_HOME or HOME")]
    NoCacheRoot,
    /// A file-system operation on the cache failed.
    #[error("cannot {what} {path}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The path involved.
        path: PathBuf,
        /// The OS error.
        source: Arc<std::io::Error>,
    },
    /// The platform has no build of the peer.
    #[error("no {what} build for {os}/{arch}")]
    UnsupportedPlatform {
        /// Which peer.
        what: &'static str,
        /// `std::env::consts::OS`.
        os: &'static str,
        /// `std::env::consts::ARCH`.
        arch: &'static str,
    },
    /// An installed peer is not what was pinned.
    #[error("{what} is not the pinned version: expected {expected:?}, found {found:?}")]
    WrongVersion {
        /// Which peer.
        what: &'static str,
        /// The pinned version (or version line).
        expected: &'static str,
        /// What it reported.
        found: String,
    },
    /// `CMK_NO_PEERS=1`: real peers are refused, installed or not (the fast tier's hermetic run;
    /// a test that reaches this belongs in the full tier).
    #[error(
        "real peer {name} refused: CMK_NO_PEERS=1 keeps this run hermetic (a test that needs it \
         belongs in the full tier: #[cfg_attr(not(cmk_full), ignore)])"
    )]
    PeersOff {
        /// The install asked for.
        name: String,
    },
    /// An install step failed; its output is in `log`, the end of which is quoted.
    #[error("install step `{step}` failed: {detail} (log: {log})\n--- end of log ---\n{tail}")]
    StepFailed {
        /// The step (e.g. `npm ci`).
        step: String,
        /// What went wrong.
        detail: String,
        /// The full log.
        log: PathBuf,
        /// The last few KiB of the log.
        tail: String,
    },
}

/// The `version` of the npm package installed in `package_dir` (its `package.json`), if readable.
pub(crate) fn npm_package_version(package_dir: &std::path::Path) -> Option<String> {
    let text = std::fs::read_to_string(package_dir.join("package.json")).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    json.get("version")?.as_str().map(str::to_owned)
}

/// Whether this run is CI (`CI=true`): then a missing prerequisite is a failure, never a skip.
pub fn is_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1")
}

/// Gate for tests: `Some(value)` when the prerequisite is available. Otherwise panics with the
/// reason under `CI=true`, or prints `skipped: <reason>` and returns `None`.
#[track_caller]
pub fn require<T>(prerequisite: Result<T, PrereqError>) -> Option<T> {
    require_in(is_ci(), prerequisite)
}

/// [`require`] with the CI mode given instead of read from `CI` (for testing the gate itself).
#[track_caller]
pub fn require_in<T>(ci: bool, prerequisite: Result<T, PrereqError>) -> Option<T> {
    match prerequisite {
        Ok(value) => Some(value),
        Err(error) if ci => {
            panic!("prerequisite unavailable (CI=true makes this a failure): {error}")
        }
        Err(error) => {
            println!("skipped: prerequisite unavailable: {error}");
            None
        }
    }
}

/// Unwraps a prerequisite in a test, or ends the test: a panic under `CI=true`, else a printed
/// `skipped: <reason>` and an early `return`.
///
/// ```no_run
/// # fn t() {
/// let claude = testkit::require_prereq!(testkit::prereq::claude());
/// # let _ = claude; }
/// ```
#[macro_export]
macro_rules! require_prereq {
    ($prerequisite:expr) => {
        match $crate::prereq::require($prerequisite) {
            Some(value) => value,
            None => return,
        }
    };
}
