//! `@google/gemini-cli@0.61.0` (the version of the reference transcripts
//! `gemini-cli-0.61.0*.jsonl`): Google's Gemini CLI, speaking ACP on stdio under `--acp` (its
//! `--help` calls the older `--experimental-acp` deprecated). Installed with `npm ci` from the
//! lockfile in `testkit/pins/gemini-cli/` (the CLI is one bundle; its optional native add-ons,
//! keytar and node-pty, are not built: `--ignore-scripts`).
//!
//! With no credentials it answers `initialize` and answers `session/new` with `-32000` "Gemini
//! API key is missing or not configured.", so no model is ever reached. By default the CLI
//! relaunches itself in a child Node with a larger heap (about 4.4 s to `initialize` here);
//! `GEMINI_CLI_NO_RELAUNCH=true`, what it sets in that child, keeps it to one process (about
//! 1.8 s). Kill the whole process group all the same. It does try HTTP on its own between
//! `initialize` and `session/new` (two connects under strace, here on 2026-12-06): the proxy
//! variables turn them into connects to a closed loopback port; codex-acp made none.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::PrereqError;
use super::npm_pin::{NpmPin, node};

/// The pinned version.
pub const ACP_GEMINI_CLI_VERSION: &str = "0.61.0";

const PIN: NpmPin = NpmPin {
    install_name: "gemini-cli-0.61.0",
    package_dir: "node_modules/@google/gemini-cli",
    version: ACP_GEMINI_CLI_VERSION,
    marker: "bundle/gemini.js",
    also: None,
    package_json: include_str!("../../pins/gemini-cli/package.json"),
    package_lock: include_str!("../../pins/gemini-cli/package-lock.json"),
};

/// The CLI's script (`…/@google/gemini-cli/bundle/gemini.js`), installed on first use.
pub fn acp_gemini_cli_entry() -> Result<PathBuf, PrereqError> {
    static ENTRY: OnceLock<Result<PathBuf, PrereqError>> = OnceLock::new();
    ENTRY
        .get_or_init(|| Ok(PIN.package()?.join(PIN.marker)))
        .clone()
}

/// The variables that would hand Gemini CLI a credential or a cloud project.
const CREDENTIAL_VARS: [&str; 9] = [
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "GOOGLE_CLOUD_PROJECT",
    "GOOGLE_CLOUD_PROJECT_ID",
    "GOOGLE_CLOUD_LOCATION",
    "GOOGLE_GENAI_USE_VERTEXAI",
    "GOOGLE_GENAI_USE_GCA",
    "CLOUD_SHELL",
];

/// `node …/bundle/gemini.js --acp` with no credentials: a throw-away `HOME` (`home`), none of
/// the Gemini / Google credential variables, no browser (`NO_BROWSER`), no self-relaunch, and
/// any proxied HTTP pointed at a closed loopback port so that traffic fails fast instead of
/// leaving the machine.
/// `CMK_NODE` overrides the `node` executable. The caller sets stdio and the process group.
pub fn acp_gemini_cli(home: &Path) -> Result<Command, PrereqError> {
    let mut cmd = node(&acp_gemini_cli_entry()?);
    cmd.arg("--acp")
        .env("HOME", home)
        .env("NO_BROWSER", "true")
        .env("GEMINI_CLI_NO_RELAUNCH", "true");
    for var in CREDENTIAL_VARS {
        cmd.env_remove(var);
    }
    super::npm_pin::loopback_only(&mut cmd);
    Ok(cmd)
}
