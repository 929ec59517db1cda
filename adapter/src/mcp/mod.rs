//! The MCP protocol surface over stdio (T1..T9, TOOL, META): owned by the protocol work.

use std::process::ExitCode;

use crate::config::ServeArgs;

/// Serves MCP on stdin/stdout until EOF or SIGTERM (T8).
pub async fn serve(_args: ServeArgs) -> ExitCode {
    eprintln!("claude-mcp-adapter: the MCP server is not built yet");
    ExitCode::from(2)
}
