//! `rust-mcp-filesystem@0.4.5` from crates.io: a filesystem MCP server built on `rust-mcp-sdk`
//! (1.0.1 in its lock file, with `rust-mcp-schema` 0.10.3 and `rust-mcp-transport` 1.0.0), the
//! Rust SDK of the rust-mcp-stack project, which shares no code with the official `rmcp`.
//! Installed with `cargo install --locked --debug` (its own `Cargo.lock`, so its dependencies do
//! not float). It needs no credentials and no network: `rust-mcp-filesystem DIR` serves MCP on
//! stdin/stdout, its tools confined to `DIR` and read-only unless `--allow-write` is given (it
//! is not, here). It logs nothing on stdout.
//!
//! The build is small (about 160 crates): a debug build took 1 min 8 s of wall time on two
//! cores (1 min 20 s of CPU; measured 2026-12-06), and the gate grades protocol behaviour,
//! which optimisation does not change. It compiles in `build/rust-mcp-filesystem-0.4.5-debug/`
//! under the cache root, kept after the install, so an interrupted or repeated install does not
//! start over.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::PrereqError;
use super::cargo::install_crate;
use super::install::{ensure, io_err};

/// The pinned version.
pub const RUST_MCP_FILESYSTEM_VERSION: &str = "0.4.5";

/// The SDK its lock file pins (what the tests say they grade).
pub const RUST_MCP_FILESYSTEM_SDK: &str = "rust-mcp-sdk 1.0.1";

const INSTALL_NAME: &str = "rust-mcp-filesystem-0.4.5-debug";
const BINARY: &str = "bin/rust-mcp-filesystem";
/// The one directory its tools may read, with one small text file in it.
const ROOT: &str = "root";
const ROOT_FILE: (&str, &str) = ("hello.txt", "hello from the conformance kit\n");

fn complete(dir: &Path) -> bool {
    dir.join(BINARY).is_file() && dir.join(ROOT).join(ROOT_FILE.0).is_file()
}

/// The install folder (`bin/rust-mcp-filesystem`, `root/`), built on first use with
/// `CMK_CARGO`, else the `cargo` running this build (`CARGO`), else `cargo` on the PATH.
pub fn rust_mcp_filesystem_dir() -> Result<PathBuf, PrereqError> {
    static DIR: OnceLock<Result<PathBuf, PrereqError>> = OnceLock::new();
    DIR.get_or_init(|| {
        ensure(INSTALL_NAME, complete, |store, log| {
            let pin = ("rust-mcp-filesystem", RUST_MCP_FILESYSTEM_VERSION);
            install_crate(store, INSTALL_NAME, pin, &[], log)?;
            let root = store.join(ROOT);
            std::fs::create_dir_all(&root).map_err(|e| io_err("create root folder", &root, e))?;
            let file = root.join(ROOT_FILE.0);
            std::fs::write(&file, ROOT_FILE.1).map_err(|e| io_err("write", &file, e))?;
            let binary = store.join(BINARY);
            let out = log.capture(
                "rust-mcp-filesystem --version",
                Command::new(&binary).arg("--version"),
            )?;
            let found = String::from_utf8_lossy(&out.stdout).trim().to_owned();
            if found != format!("rust-mcp-filesystem {RUST_MCP_FILESYSTEM_VERSION}") {
                return Err(PrereqError::WrongVersion {
                    what: "rust-mcp-filesystem",
                    expected: RUST_MCP_FILESYSTEM_VERSION,
                    found,
                });
            }
            Ok(())
        })
    })
    .clone()
}

/// `rust-mcp-filesystem ROOT` over stdio: read-only, its tools confined to the install's
/// `root/` folder (one small text file).
pub fn rust_mcp_filesystem() -> Result<Command, PrereqError> {
    let dir = rust_mcp_filesystem_dir()?;
    let mut cmd = Command::new(dir.join(BINARY));
    cmd.arg(dir.join(ROOT));
    Ok(cmd)
}
