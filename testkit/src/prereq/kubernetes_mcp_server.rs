//! `kubernetes-mcp-server@0.0.67` from npm: a real MCP server written in Go, on the official Go
//! SDK `github.com/modelcontextprotocol/go-sdk`, shipped as a native binary in the npm platform
//! package `kubernetes-mcp-server-linux-amd64` (an optional dependency of the wrapper). Installed
//! with `npm ci` (scripts off) from the lockfile in `testkit/pins/kubernetes-mcp-server/`; the
//! binary is run directly, not through the wrapper's Node script. Only linux x86-64 is supported:
//! the registry this kit installs from holds no other platform package, so the lockfile lists
//! those by `os`/`cpu` only (npm skips them there). The download is about 24 MB (78 MB
//! unpacked), with no Go toolchain; `npm ci` took 2 s.
//!
//! It refuses to start without a Kubernetes context, so it is given a kubeconfig of its own
//! (written into the install with it) whose one cluster is `https://127.0.0.1:9`, a closed loopback
//! port, with no user credentials: it starts, lists its tools, and every tool that reaches the
//! cluster fails fast with a refused connection. It logs nothing unless `--log-file` is given.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::PrereqError;
use super::claude_code::npm_ci;
use super::install::{ensure, io_err};

/// The pinned version.
pub const KUBERNETES_MCP_SERVER_VERSION: &str = "0.0.67";

/// The Go SDK its binary is built on (the tests say what they grade).
pub const KUBERNETES_MCP_SERVER_SDK: &str = "github.com/modelcontextprotocol/go-sdk";

const INSTALL_NAME: &str = "kubernetes-mcp-server-0.0.67";
/// The wrapper package, whose `package.json` states the installed version.
const PACKAGE_DIR: &str = "node_modules/kubernetes-mcp-server";

/// The binary inside the install, from the platform package npm picked.
const BINARY: Option<&str> = if cfg!(all(target_os = "linux", target_arch = "x86_64")) {
    Some("node_modules/kubernetes-mcp-server-linux-amd64/bin/kubernetes-mcp-server-linux-amd64")
} else {
    None
};

const PACKAGE_JSON: &str = include_str!("../../pins/kubernetes-mcp-server/package.json");
const PACKAGE_LOCK: &str = include_str!("../../pins/kubernetes-mcp-server/package-lock.json");

/// The kubeconfig it is given: one context on a closed loopback port, no credentials.
const KUBECONFIG: &str = "\
apiVersion: v1
kind: Config
clusters:
- name: cmk-closed-port
  cluster:
    server: https://127.0.0.1:9
contexts:
- name: cmk-closed-port
  context:
    cluster: cmk-closed-port
    user: cmk-no-credentials
current-context: cmk-closed-port
users:
- name: cmk-no-credentials
  user: {}
";

const KUBECONFIG_FILE: &str = "cmk-kubeconfig.yaml";

/// Complete when the binary and the kubeconfig exist and the wrapper is the pinned version.
fn complete(dir: &Path, binary: &str) -> bool {
    dir.join(binary).is_file()
        && dir.join(KUBECONFIG_FILE).is_file()
        && super::npm_package_version(&dir.join(PACKAGE_DIR)).as_deref()
            == Some(KUBERNETES_MCP_SERVER_VERSION)
}

/// The native binary and the kubeconfig file, installed on first use under the install lock:
/// `npm ci`, the kubeconfig written beside it, `--version` checked (it prints `v0.0.67`).
pub fn kubernetes_mcp_server_paths() -> Result<(PathBuf, PathBuf), PrereqError> {
    static PATHS: OnceLock<Result<(PathBuf, PathBuf), PrereqError>> = OnceLock::new();
    PATHS
        .get_or_init(|| {
            let binary = BINARY.ok_or(PrereqError::UnsupportedPlatform {
                what: "kubernetes-mcp-server",
                os: std::env::consts::OS,
                arch: std::env::consts::ARCH,
            })?;
            let dir = ensure(
                INSTALL_NAME,
                |dir| complete(dir, binary),
                |dir, log| {
                    for (name, text) in [
                        ("package.json", PACKAGE_JSON),
                        ("package-lock.json", PACKAGE_LOCK),
                        (KUBECONFIG_FILE, KUBECONFIG),
                    ] {
                        let path = dir.join(name);
                        std::fs::write(&path, text).map_err(|e| io_err("write", &path, e))?;
                    }
                    log.run("npm ci", &mut npm_ci(dir))?;
                    let out = log.capture(
                        "kubernetes-mcp-server --version",
                        Command::new(dir.join(binary)).arg("--version"),
                    )?;
                    let found = String::from_utf8_lossy(&out.stdout).trim().to_owned();
                    if found != format!("v{KUBERNETES_MCP_SERVER_VERSION}") {
                        return Err(PrereqError::WrongVersion {
                            what: "kubernetes-mcp-server",
                            expected: KUBERNETES_MCP_SERVER_VERSION,
                            found,
                        });
                    }
                    Ok(())
                },
            )?;
            Ok((dir.join(binary), dir.join(KUBECONFIG_FILE)))
        })
        .clone()
}

/// `kubernetes-mcp-server --cluster-provider kubeconfig --kubeconfig …`: the server over stdio,
/// its one cluster a closed loopback port. Arguments only, no environment (callers pass the
/// program and arguments on): the explicit provider and file win over `KUBECONFIG` and an
/// in-cluster environment, and Go's HTTP client never proxies loopback.
pub fn kubernetes_mcp_server() -> Result<Command, PrereqError> {
    let (binary, kubeconfig) = kubernetes_mcp_server_paths()?;
    let mut cmd = Command::new(binary);
    cmd.args(["--cluster-provider", "kubeconfig", "--kubeconfig"])
        .arg(kubeconfig);
    Ok(cmd)
}
