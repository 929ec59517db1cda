//! A case's folder: the scenario file, the scripted agent's launcher (the `{agent}` command the
//! client gets) and the wire log, a FIFO the runner reads as the agent writes it, so the runner
//! sees each agent request the moment it goes out (events, not polling a file).

use std::io::Write as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use nix::sys::stat::Mode;

/// A case's folder, removed on drop.
#[derive(Debug)]
pub struct CaseDir {
    /// The folder (also the client's working directory).
    pub path: PathBuf,
    /// The `{agent}` command: an executable script that starts the scripted agent.
    pub agent: PathBuf,
    /// The wire log FIFO.
    pub fifo: PathBuf,
}

impl Drop for CaseDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Single-quotes `s` for `sh`.
fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Makes the folder for one case under `base`: `scenario.json`, the `agent` script running
/// `program` with the scenario and the log set, and the `wire.log` FIFO.
pub fn prepare(
    base: &Path,
    case: &str,
    scenario: &str,
    program: &Path,
) -> std::io::Result<CaseDir> {
    let slug: String = case
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let path = base.join(format!(
        "acp-client-{slug}-{}",
        uuid::Uuid::new_v4().simple()
    ));
    std::fs::create_dir_all(&path)?;
    let dir = CaseDir {
        agent: path.join("agent"),
        fifo: path.join("wire.log"),
        path,
    };
    let scenario_path = dir.path.join("scenario.json");
    std::fs::write(&scenario_path, scenario)?;
    nix::unistd::mkfifo(&dir.fifo, Mode::from_bits_truncate(0o600))
        .map_err(std::io::Error::from)?;
    // With no arguments (a generic ACP client starts its agent bare) the agent is put in ACP
    // mode; `--version` and `[options] acp` pass through as `cursor-agent` would take them.
    let script = format!(
        "#!/bin/sh\n# acp-conformance client mode: the scripted agent for case {case}.\n\
         [ \"$#\" -eq 0 ] && set -- acp\n\
         FAKE_CURSOR_SCENARIO={scenario} FAKE_CURSOR_LOG={log} exec {program} \"$@\"\n",
        scenario = sh_quote(&scenario_path.to_string_lossy()),
        log = sh_quote(&dir.fifo.to_string_lossy()),
        program = sh_quote(&program.to_string_lossy()),
    );
    let mut f = std::fs::File::create(&dir.agent)?;
    f.write_all(script.as_bytes())?;
    drop(f);
    std::fs::set_permissions(&dir.agent, std::fs::Permissions::from_mode(0o700))?;
    Ok(dir)
}

/// `words` with [`AGENT_PLACEHOLDER`](super::config::AGENT_PLACEHOLDER) replaced by `agent`.
#[must_use]
pub fn substitute(words: &[String], agent: &Path) -> Vec<String> {
    let agent = agent.to_string_lossy();
    words
        .iter()
        .map(|w| w.replace(super::config::AGENT_PLACEHOLDER, &agent))
        .collect()
}
