//! The real Claude Code CLI, `@anthropic-ai/claude-code@2.1.328`, installed with `npm ci` from the
//! lockfile in `testkit/pins/claude-code/`. The npm package's own `bin/claude.exe` is a
//! placeholder that its postinstall replaces, and npm 11 does not run that postinstall here, so
//! the binary used is the native one of the platform package
//! (`node_modules/@anthropic-ai/claude-code-<os>-<arch>[-musl]/claude`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::PrereqError;
use super::install::{self, StepLog, io_err};

/// The pinned version.
pub const CLAUDE_VERSION: &str = "2.1.328";
/// What the pinned binary prints for `--version` (`cli-tree.json`, `version.txt`).
pub const CLAUDE_VERSION_LINE: &str = "2.1.328 (Claude Code)";

const INSTALL_NAME: &str = "claude-code-2.1.328";
const PACKAGE_JSON: &str = include_str!("../../pins/claude-code/package.json");
const PACKAGE_LOCK: &str = include_str!("../../pins/claude-code/package-lock.json");

/// The platform package holding the native binary for this machine, by OS, CPU and libc.
pub fn claude_platform_package() -> Result<&'static str, PrereqError> {
    use std::env::consts::{ARCH, OS};
    let musl = OS == "linux" && is_musl();
    Ok(match (OS, ARCH, musl) {
        ("linux", "x86_64", false) => "claude-code-linux-x64",
        ("linux", "x86_64", true) => "claude-code-linux-x64-musl",
        ("linux", "aarch64", false) => "claude-code-linux-arm64",
        ("linux", "aarch64", true) => "claude-code-linux-arm64-musl",
        ("macos", "x86_64", _) => "claude-code-darwin-x64",
        ("macos", "aarch64", _) => "claude-code-darwin-arm64",
        _ => {
            return Err(PrereqError::UnsupportedPlatform {
                what: "claude",
                os: OS,
                arch: ARCH,
            });
        }
    })
}

/// musl when there is no glibc loader but a musl one (a glibc system may have musl installed too).
fn is_musl() -> bool {
    let glibc = [
        "/lib64/ld-linux-x86-64.so.2",
        "/lib/ld-linux-aarch64.so.1",
        "/lib/ld-linux-x86-64.so.2",
    ];
    if glibc.iter().any(|p| Path::new(p).exists()) {
        return false;
    }
    std::fs::read_dir("/lib").is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with("ld-musl-"))
    })
}

/// The path of the real `claude` 2.1.328 native binary, installed on first use and checked
/// (`--version`) once per process.
pub fn claude() -> Result<PathBuf, PrereqError> {
    static CLAUDE: OnceLock<Result<PathBuf, PrereqError>> = OnceLock::new();
    CLAUDE.get_or_init(install_and_check).clone()
}

fn install_and_check() -> Result<PathBuf, PrereqError> {
    let relative = Path::new("node_modules/@anthropic-ai")
        .join(claude_platform_package()?)
        .join("claude");
    let dir = install::ensure(
        INSTALL_NAME,
        |dir| dir.join(&relative).is_file(),
        |dir, log| build(dir, log, &relative),
    )?;
    let binary = dir.join(&relative);
    check_version(&binary, None)?;
    Ok(binary)
}

fn build(dir: &Path, log: &mut StepLog, relative: &Path) -> Result<(), PrereqError> {
    for (name, text) in [
        ("package.json", PACKAGE_JSON),
        ("package-lock.json", PACKAGE_LOCK),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| io_err("write", &path, e))?;
    }
    log.run("npm ci", &mut npm_ci(dir))?;
    check_version(&dir.join(relative), Some(log))
}

/// `npm ci` in `dir`, scripts off (the postinstall would try to fetch a binary), no audit/fund
/// traffic. `CMK_NPM` overrides the `npm` executable.
pub(crate) fn npm_ci(dir: &Path) -> Command {
    let npm = std::env::var_os("CMK_NPM").unwrap_or_else(|| "npm".into());
    let mut cmd = Command::new(npm);
    cmd.args([
        "ci",
        "--ignore-scripts",
        "--no-audit",
        "--no-fund",
        "--loglevel=warn",
    ])
    .current_dir(dir)
    .env("npm_config_update_notifier", "false");
    cmd
}

/// Runs `binary --version` with a throw-away HOME and checks the pinned line.
fn check_version(binary: &Path, log: Option<&mut StepLog>) -> Result<(), PrereqError> {
    let home = tempfile::Builder::new()
        .prefix("cmk-version-home-")
        .tempdir()
        .map_err(|e| io_err("create", &std::env::temp_dir(), e))?;
    let mut cmd = Command::new(binary);
    cmd.arg("--version")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
    let output = match log {
        Some(log) => log.capture("claude --version", &mut cmd)?,
        None => cmd.output().map_err(|e| io_err("run", binary, e))?,
    };
    let found = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    if output.status.success() && found == CLAUDE_VERSION_LINE {
        Ok(())
    } else {
        Err(PrereqError::WrongVersion {
            what: "claude",
            expected: CLAUDE_VERSION_LINE,
            found,
        })
    }
}
