//! `rust-mcp-server@0.4.1` from crates.io: an MCP server built on the official Rust SDK `rmcp`
//! (3.1.0 in its lock file) that exposes cargo, rustc and rustup as tools. Installed with
//! `cargo install --locked --debug --features http` (its own `Cargo.lock`, so its dependencies
//! do not float), which adds the Streamable HTTP mode bound to 127.0.0.1. It needs no
//! credentials and no network to serve: `rust-mcp-server` serves MCP on stdin/stdout (and prints
//! `Rust MCP Server started on stdio` on stderr); `--http --port P` serves Streamable HTTP at
//! `http://127.0.0.1:P/` (and prints `Rust MCP Server started on http://127.0.0.1:P/`).
//!
//! Its tools run cargo in the workspace it is given: every command here gives it an empty folder
//! of the install, never the caller's. None of its tools is annotated `readOnlyHint`, so the
//! conformance gate calls none of them under its default profiles.
//!
//! The build is the costly part (about 140 crates). A release build took 3 min 37 s of CPU
//! (4 min 21 s of wall time on two cores shared with other builds), a debug build 1 min 37 s of
//! CPU (measured 2026-12-06); the debug binary gets the same verdicts with the same timings (the
//! gate grades protocol behaviour, which optimisation does not change), so the install builds
//! that, to keep CI's time. It compiles in `build/rust-mcp-server-0.4.1-debug/` under the cache
//! root, kept after the install, so an interrupted or repeated install does not start over.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::PrereqError;
use super::cargo::install_crate;
use super::install::{ensure, io_err};

/// The pinned version.
pub const RUST_MCP_SERVER_VERSION: &str = "0.4.1";

/// The `rmcp` version its lock file pins (what the tests say they grade).
pub const RUST_MCP_SERVER_RMCP_VERSION: &str = "3.1.0";

const INSTALL_NAME: &str = "rust-mcp-server-0.4.1-debug";
const BINARY: &str = "bin/rust-mcp-server";
/// The empty folder the server is told is its workspace.
const WORKSPACE: &str = "workspace";

fn complete(dir: &Path) -> bool {
    dir.join(BINARY).is_file() && dir.join(WORKSPACE).is_dir()
}

/// The install folder (`bin/rust-mcp-server`, `workspace/`), built on first use with
/// `CMK_CARGO`, else the `cargo` running this build (`CARGO`), else `cargo` on the PATH.
pub fn rust_mcp_server_dir() -> Result<PathBuf, PrereqError> {
    static DIR: OnceLock<Result<PathBuf, PrereqError>> = OnceLock::new();
    DIR.get_or_init(|| {
        ensure(INSTALL_NAME, complete, |store, log| {
            let pin = ("rust-mcp-server", RUST_MCP_SERVER_VERSION);
            install_crate(store, INSTALL_NAME, pin, &["http"], log)?;
            let workspace = store.join(WORKSPACE);
            std::fs::create_dir_all(&workspace)
                .map_err(|e| io_err("create workspace folder", &workspace, e))?;
            let binary = store.join(BINARY);
            let out = log.capture(
                "rust-mcp-server --version",
                Command::new(&binary).arg("--version"),
            )?;
            let found = String::from_utf8_lossy(&out.stdout).trim().to_owned();
            // It prints `rust-mcp-server 0.4.1.` (with the trailing dot).
            if !found.starts_with(&format!("rust-mcp-server {RUST_MCP_SERVER_VERSION}")) {
                return Err(PrereqError::WrongVersion {
                    what: "rust-mcp-server",
                    expected: RUST_MCP_SERVER_VERSION,
                    found,
                });
            }
            Ok(())
        })
    })
    .clone()
}

/// The server's command: its empty workspace, no log file (it logs nothing then).
fn command() -> Result<Command, PrereqError> {
    let dir = rust_mcp_server_dir()?;
    let mut cmd = Command::new(dir.join(BINARY));
    cmd.arg("--workspace").arg(dir.join(WORKSPACE));
    Ok(cmd)
}

/// `rust-mcp-server --workspace …`: the server over stdio.
pub fn rust_mcp_server() -> Result<Command, PrereqError> {
    command()
}

/// `rust-mcp-server --workspace … --http --port PORT`: the server over Streamable HTTP at
/// `http://127.0.0.1:PORT/` (it binds 127.0.0.1 only).
pub fn rust_mcp_server_streamable_http(port: u16) -> Result<Command, PrereqError> {
    let mut cmd = command()?;
    cmd.arg("--http").arg("--port").arg(port.to_string());
    Ok(cmd)
}
