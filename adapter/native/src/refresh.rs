//! `claude-mcp-adapter cli-tree refresh`: the upgrade path after a CLI update (NAT-1, NAT-2,
//! ACP-9). The installed CLI is checked against everything the adapter uses from the pinned tree
//! (the drift check: commands, flags, value shapes, the modes' argv, Cursor's `acp` command);
//! when only the version line differs, a copy of the tree pinned to the new version is written
//! to the user's configuration directory ([`user_dir`]), where the adapter finds it without
//! flags (`--cli-tree` / `--cursor-cli-tree` still win). When anything else changed, it says
//! what and writes nothing.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::cli_tree::{CliTree, CliTreeError, user_dir};
use crate::drift::{self, CheckError};

/// One installed CLI to pin, as a provider's registration describes it.
#[derive(Debug)]
pub struct Target {
    /// The installed program (a path, or a name looked up on PATH).
    pub program: PathBuf,
    /// The flag that named it (`--claude`), for the texts.
    pub flag: String,
    /// The flag that names a tree file instead (`--cli-tree`), for the texts.
    pub tree_flag: String,
    /// The provider's pinned tree.
    pub pinned: Result<CliTree, CliTreeError>,
    /// The file the refreshed tree is written as, in [`user_dir`] (`cli-tree.json`); the
    /// provider looks for it there.
    pub file: &'static str,
}

/// What one refresh did.
#[derive(Debug)]
enum Refreshed {
    /// The tree for `line` was written to the path.
    Written(String, PathBuf),
    /// The CLI already prints the pinned line: nothing to write.
    Current(String),
    /// Something the adapter uses changed: these findings, nothing written.
    Refused(Vec<drift::Finding>),
}

/// Checks `program` against `pinned` and writes the refreshed tree as `file` in `dir`.
fn refresh_one(
    program: &Path,
    pinned: &CliTree,
    flag: &str,
    dir: &Path,
    file: &'static str,
) -> Result<Refreshed, CheckError> {
    let report = drift::check_tree(program, pinned, flag, file)?;
    let blocking: Vec<drift::Finding> = report
        .drift
        .iter()
        .filter(|f| f.subject != "version")
        .cloned()
        .collect();
    if !blocking.is_empty() {
        return Ok(Refreshed::Refused(blocking));
    }
    if report.version_line == pinned.version.line {
        return Ok(Refreshed::Current(report.version_line));
    }
    let mut raw = pinned.raw.clone();
    raw["version"]["line"] = report.version_line.clone().into();
    let text = serde_json::to_string_pretty(&raw)
        .map_err(|e| CheckError::Run(format!("cannot write the tree: {e}")))?;
    // The written tree must load as the adapter will load it.
    CliTree::parse(&text)?;
    let path = dir.join(file);
    let io = |e: std::io::Error| CheckError::Run(format!("cannot write {}: {e}", path.display()));
    std::fs::create_dir_all(dir).map_err(io)?;
    let tmp = dir.join(format!(".{file}.tmp"));
    std::fs::write(&tmp, format!("{text}\n")).map_err(io)?;
    std::fs::rename(&tmp, &path).map_err(io)?;
    Ok(Refreshed::Written(report.version_line, path))
}

/// Refreshes each CLI given; exit 0 when every one is pinned (written or already current), 1
/// when one changed in a way the adapter relies on, 2 when a check could not run.
#[must_use]
pub fn run(targets: Vec<Target>) -> ExitCode {
    let Some(dir) = user_dir() else {
        eprintln!(
            "claude-mcp-adapter cli-tree refresh: neither XDG_CONFIG_HOME nor HOME is set, so \
             there is no configuration directory to write to"
        );
        return ExitCode::from(2);
    };
    let mut worst = 0u8;
    for target in targets {
        let Target {
            program,
            flag,
            tree_flag,
            pinned,
            file,
        } = target;
        let program = program.as_path();
        let outcome = pinned
            .map_err(CheckError::from)
            .and_then(|t| refresh_one(program, &t, &flag, &dir, file));
        let (code, text) = match outcome {
            Ok(Refreshed::Written(line, path)) => (
                0,
                format!(
                    "{}: {line:?} uses every command, flag and value the adapter relies on; \
                     wrote {} (the adapter uses it without flags; {tree_flag} still wins)\n",
                    program.display(),
                    path.display()
                ),
            ),
            Ok(Refreshed::Current(line)) => (
                0,
                format!(
                    "{}: prints the pinned {line:?}; nothing to refresh\n",
                    program.display()
                ),
            ),
            Ok(Refreshed::Refused(findings)) => {
                let mut t = format!(
                    "{}: not refreshed, nothing written: the CLI changed what the adapter \
                     relies on\n",
                    program.display()
                );
                for f in findings {
                    t.push_str(&format!("  {}: {}\n", f.subject, f.problem));
                }
                (1, t)
            }
            Err(e) => (2, format!("claude-mcp-adapter cli-tree refresh: {e}\n")),
        };
        if code == 0 {
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
        } else {
            let _ = std::io::stderr().lock().write_all(text.as_bytes());
        }
        worst = worst.max(code);
    }
    ExitCode::from(worst)
}
