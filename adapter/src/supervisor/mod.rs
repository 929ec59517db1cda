//! The private per-run supervisor process (SUP-1..4), run as the adapter binary's hidden
//! `__supervise` subcommand.

use std::ffi::OsString;
use std::process::ExitCode;

/// Name of the hidden subcommand that turns this binary into a supervisor.
pub const SUBCOMMAND: &str = "__supervise";

/// Entry point of the supervisor process (no tokio runtime is started for it).
pub fn main(_args: &[OsString]) -> ExitCode {
    eprintln!("claude-mcp-adapter: the supervisor is not built yet");
    ExitCode::from(2)
}
