//! The maintainer's drift check: compares an installed claude's `--version` and `--help` with
//! cli-tree.json (NAT-1). Never used at run time.

use std::process::ExitCode;

/// `cli-tree check` arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct DriftArgs {
    /// The claude binary to inspect.
    #[arg(long, default_value = "claude")]
    pub claude: std::path::PathBuf,
}

/// Prints what a reviewed update of cli-tree.json would have to change; exit 1 on drift.
pub fn run(_args: DriftArgs) -> ExitCode {
    eprintln!("claude-mcp-adapter: the drift check is not built yet");
    ExitCode::from(2)
}
