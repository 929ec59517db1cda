//! The one-shot CLI projection (CLI-1): `claude-mcp-adapter cli run --permission-mode MODE … -- PROMPT`.

use std::process::ExitCode;

/// `cli run` arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct CliRunArgs {
    /// The prompt.
    #[arg(last = true)]
    pub prompt: Vec<String>,
}

/// Runs one print-mode call and prints the native JSON result.
pub fn run(_args: CliRunArgs) -> ExitCode {
    eprintln!("claude-mcp-adapter: cli run is not built yet");
    ExitCode::from(2)
}
