//! Three of the official MCP reference servers from npm, all `2026.8.31` and all on the
//! TypeScript SDK: `@modelcontextprotocol/server-filesystem`, `@modelcontextprotocol/server-memory`
//! and `@modelcontextprotocol/server-sequential-thinking`. One `npm ci` (scripts off) from the
//! lockfile in `testkit/pins/mcp-reference-servers/` installs the three (their dependencies use
//! `^` ranges, the lockfile pins them; about 130 packages, seconds). Each is run as
//! `node …/dist/index.js` over stdio; none reaches the network (their read-only tools read the
//! allowed directory, the memory file, or nothing at all).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::PrereqError;
use super::npm_pin::{NpmPin, node};

/// The pinned version of the three servers.
pub const MCP_REFERENCE_SERVERS_VERSION: &str = "2026.8.31";

const PACKAGE_JSON: &str = include_str!("../../pins/mcp-reference-servers/package.json");
const PACKAGE_LOCK: &str = include_str!("../../pins/mcp-reference-servers/package-lock.json");

/// One install for the three: the pins differ only in the package they check.
const fn pin(package_dir: &'static str) -> NpmPin {
    NpmPin {
        install_name: "mcp-reference-servers-2026.8.31",
        package_dir,
        version: MCP_REFERENCE_SERVERS_VERSION,
        marker: "dist/index.js",
        also: None,
        package_json: PACKAGE_JSON,
        package_lock: PACKAGE_LOCK,
    }
}

const FILESYSTEM: NpmPin = pin("node_modules/@modelcontextprotocol/server-filesystem");
const MEMORY: NpmPin = pin("node_modules/@modelcontextprotocol/server-memory");
const SEQUENTIAL_THINKING: NpmPin =
    pin("node_modules/@modelcontextprotocol/server-sequential-thinking");

/// The entry scripts of the filesystem, memory and sequential-thinking servers, installed on
/// first use.
pub fn mcp_reference_server_entries() -> Result<[PathBuf; 3], PrereqError> {
    static ENTRIES: OnceLock<Result<[PathBuf; 3], PrereqError>> = OnceLock::new();
    ENTRIES
        .get_or_init(|| {
            Ok([
                FILESYSTEM.package()?.join(FILESYSTEM.marker),
                MEMORY.package()?.join(MEMORY.marker),
                SEQUENTIAL_THINKING
                    .package()?
                    .join(SEQUENTIAL_THINKING.marker),
            ])
        })
        .clone()
}

/// `node …/server-filesystem/dist/index.js ROOT`: the filesystem server, its one allowed
/// directory `ROOT` (it refuses every path outside it; a client that declares roots has them
/// replace it). `CMK_NODE` overrides `node`.
pub fn mcp_filesystem_server(root: &Path) -> Result<Command, PrereqError> {
    let [entry, _, _] = mcp_reference_server_entries()?;
    let mut cmd = node(&entry);
    cmd.arg(root);
    Ok(cmd)
}

/// `node …/server-memory/dist/index.js` with `MEMORY_FILE_PATH=memory_file`: the knowledge-graph
/// server, its graph kept in that JSON-lines file (written only by its write tools). The
/// variable is the command's environment: a caller that passes argv on must carry it too.
pub fn mcp_memory_server(memory_file: &Path) -> Result<Command, PrereqError> {
    let [_, entry, _] = mcp_reference_server_entries()?;
    let mut cmd = node(&entry);
    cmd.env("MEMORY_FILE_PATH", memory_file);
    Ok(cmd)
}

/// `node …/server-sequential-thinking/dist/index.js`: one tool, `sequentialthinking`, which
/// keeps the thoughts in memory (and logs them to stderr).
pub fn mcp_sequential_thinking_server() -> Result<Command, PrereqError> {
    let [_, _, entry] = mcp_reference_server_entries()?;
    Ok(node(&entry))
}
