//! The ACP Rust SDK's example client (`examples/yolo_one_shot_client.rs` of the crate
//! `agent-client-protocol@5.2.0`, the official Rust SDK), a real ACP client nobody here wrote:
//! `yolo_one_shot_client --command AGENT_COMMAND PROMPT` starts the agent (its command parsed as
//! words), sends `initialize` (protocol 1, no capabilities), `session/new` (cwd = its own) and
//! one `session/prompt`; it selects the `allow_once` option of each permission request (else
//! `allow_always`, else answers `cancelled`), answers other agent requests with an error, and
//! exits once the prompt is answered. It has no way to cancel a turn (Ctrl-C kills it).
//!
//! Built from crates.io, unmodified: `cargo metadata` on a one-dependency manifest
//! ([`FETCH_MANIFEST`]) downloads the crate (cargo checks its checksum against the index) and
//! names its source folder; the folder is copied into the install with the lock file of
//! `testkit/pins/acp-rust-sdk/Cargo.lock` and built by `cargo install --locked --debug --path
//! … --example yolo_one_shot_client --features process`. The lock file is this repository's:
//! the crate's own names `jiff-static 0.2.42`, which the crates.io index no longer serves, so
//! `cargo install --locked agent-client-protocol@5.2.0` cannot resolve (ours was made by
//! `cargo generate-lockfile` in the crate's folder on 2026-12-06). The debug build (about 1.5
//! minutes of CPU) compiles in `build/acp-rust-sdk-5.2.0-debug/` under the cache root, kept after
//! the install.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::PrereqError;
use super::cargo::cargo;
use super::install::{cache_root, ensure, io_err};

/// The pinned crate version.
pub const ACP_RUST_SDK_VERSION: &str = "5.2.0";

const INSTALL_NAME: &str = "acp-rust-sdk-5.2.0-debug";
const BINARY: &str = "bin/yolo_one_shot_client";
const LOCK: &str = include_str!("../../pins/acp-rust-sdk/Cargo.lock");

/// A manifest whose one dependency is the pinned crate: `cargo metadata` on it fetches the crate.
pub const FETCH_MANIFEST: &str = r#"[package]
name = "cmk-fetch-acp-rust-sdk"
version = "0.0.0"
edition = "2021"
publish = false

[lib]
path = "lib.rs"

[dependencies]
agent-client-protocol = "=5.2.0"

[workspace]
"#;

/// The example client's binary, built on first use with `CMK_CARGO`, else the `cargo` running
/// this build (`CARGO`), else `cargo` on the PATH.
pub fn acp_rust_example_client_binary() -> Result<PathBuf, PrereqError> {
    static BIN: OnceLock<Result<PathBuf, PrereqError>> = OnceLock::new();
    BIN.get_or_init(|| {
        let target = cache_root()?.join("build").join(INSTALL_NAME);
        let dir = ensure(
            INSTALL_NAME,
            |dir: &Path| dir.join(BINARY).is_file(),
            |store, log| {
                let fetch = store.join("fetch");
                std::fs::create_dir_all(&fetch).map_err(|e| io_err("create", &fetch, e))?;
                for (name, text) in [("Cargo.toml", FETCH_MANIFEST), ("lib.rs", "")] {
                    let path = fetch.join(name);
                    std::fs::write(&path, text).map_err(|e| io_err("write", &path, e))?;
                }
                let out = log.capture(
                    "cargo metadata",
                    cargo()
                        .args(["metadata", "--format-version", "1", "--manifest-path"])
                        .arg(fetch.join("Cargo.toml"))
                        .current_dir(&fetch),
                )?;
                let source = crate_source(&out.stdout).ok_or_else(|| {
                    log.failed(
                        "cargo metadata",
                        format!("no agent-client-protocol {ACP_RUST_SDK_VERSION} in its output"),
                    )
                })?;
                let copy = store.join(format!("agent-client-protocol-{ACP_RUST_SDK_VERSION}"));
                log.run(
                    "copy the crate source",
                    Command::new("cp").arg("-R").arg(&source).arg(&copy),
                )?;
                let lock = copy.join("Cargo.lock");
                std::fs::write(&lock, LOCK).map_err(|e| io_err("write", &lock, e))?;
                std::fs::create_dir_all(&target).map_err(|e| io_err("create", &target, e))?;
                log.run(
                    "cargo install the example client",
                    cargo()
                        .args(["install", "--locked", "--debug", "--features", "process"])
                        .args(["--example", "yolo_one_shot_client", "--path"])
                        .arg(&copy)
                        .arg("--root")
                        .arg(store)
                        .arg("--target-dir")
                        .arg(&target)
                        // Outside any workspace, so no project's `.cargo/config.toml` applies.
                        .current_dir(store),
                )
            },
        )?;
        Ok(dir.join(BINARY))
    })
    .clone()
}

/// The source folder of the pinned crate in `cargo metadata` output.
fn crate_source(metadata: &[u8]) -> Option<PathBuf> {
    let json: serde_json::Value = serde_json::from_slice(metadata).ok()?;
    json.get("packages")?
        .as_array()?
        .iter()
        .find(|p| {
            p.get("name").and_then(serde_json::Value::as_str) == Some("agent-client-protocol")
                && p.get("version").and_then(serde_json::Value::as_str)
                    == Some(ACP_RUST_SDK_VERSION)
        })
        .and_then(|p| p.get("manifest_path")?.as_str())
        .and_then(|m| Path::new(m).parent().map(Path::to_path_buf))
}

/// `yolo_one_shot_client`; the caller adds `--command AGENT_COMMAND PROMPT`.
pub fn acp_rust_example_client() -> Result<Command, PrereqError> {
    Ok(Command::new(acp_rust_example_client_binary()?))
}
