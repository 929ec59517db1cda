//! `@modelcontextprotocol/server-everything@2026.8.31`, installed with `npm ci` from the lockfile
//! in `testkit/pins/server-everything/` (its dependencies float otherwise). Its entry point takes
//! the transport as first argument: `node dist/index.js stdio` serves MCP on stdin/stdout (it
//! also prints `Starting default (STDIO) server...` on stderr).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::PrereqError;
use super::claude_code::npm_ci;
use super::install::{self, io_err};

/// The pinned version.
pub const EVERYTHING_VERSION: &str = "2026.8.31";

const INSTALL_NAME: &str = "server-everything-2026.8.31";
const PACKAGE_DIR: &str = "node_modules/@modelcontextprotocol/server-everything";
const PACKAGE_JSON: &str = include_str!("../../pins/server-everything/package.json");
const PACKAGE_LOCK: &str = include_str!("../../pins/server-everything/package-lock.json");

/// The server's entry script (`…/server-everything/dist/index.js`), installed on first use.
pub fn everything_server_entry() -> Result<PathBuf, PrereqError> {
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
            Ok(dir.join(PACKAGE_DIR).join("dist/index.js"))
        })
        .clone()
}

/// Complete when the entry exists and the installed package is the pinned version.
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
    package.join("dist/index.js").is_file() && version.as_deref() == Some(EVERYTHING_VERSION)
}

/// `node …/dist/index.js stdio`: the everything server in stdio mode. `CMK_NODE` overrides the
/// `node` executable.
pub fn everything_server() -> Result<Command, PrereqError> {
    let entry = everything_server_entry()?;
    let node = std::env::var_os("CMK_NODE").unwrap_or_else(|| "node".into());
    let mut cmd = Command::new(node);
    cmd.arg(entry).arg("stdio");
    Ok(cmd)
}
