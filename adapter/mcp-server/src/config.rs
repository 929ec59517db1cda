//! Options of the MCP server mode, shared by the protocol surface and the run engine.

use std::path::PathBuf;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use cmk_engine::ToolNames;
use cmk_native::binary::EnvDeny;

/// Default inbound frame bound (T6).
pub(crate) const DEFAULT_MAX_FRAME_BYTES: usize = 4 * 1024 * 1024;
/// Default configurable maximum of `timeout_s` (BND-4).
pub const DEFAULT_MAX_TIMEOUT_S: u64 = 1800;

/// `claude-mcp-adapter [OPTIONS]`: serve MCP over stdio. The providers' own flags
/// (`--provider`, `--NAME PATH`, `--NAME-cli-tree PATH`) are the binary's, derived from its
/// registration table: this crate names no provider.
#[derive(Debug, Clone, clap::Args)]
pub struct ServeArgs {
    /// Hold a variable back from every provider's native process: a NAME, or a PREFIX* (repeat
    /// for several). Each provider already holds back the other providers' keys (claude never
    /// gets CURSOR_API_KEY; cursor-agent never gets ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN or
    /// CLAUDE_CODE_OAUTH_TOKEN); everything else passes (NAT-8).
    #[arg(long = "env-deny", value_name = "NAME|PREFIX*", value_parser = EnvDeny::parse_pattern)]
    pub env_deny: Vec<String>,
    /// Bound of each ACP handshake step (`initialize`, `session/new`…) in seconds (ACP-2).
    #[arg(long, value_name = "N", default_value_t = 10,
          value_parser = clap::value_parser!(u64).range(1..=600))]
    pub acp_step_timeout_s: u64,
    /// Tool name spelling: `dotted` (claude.run…) or `underscore` (claude_run…) (TOOL-1).
    #[arg(long, value_name = "TOOL_NAMES", default_value = "dotted", value_parser = tool_names())]
    pub tool_names: ToolNames,
    /// Largest `timeout_s` a caller may ask for, in seconds (BND-4).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_TIMEOUT_S,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub max_timeout_s: u64,
    /// Largest inbound JSON-RPC line in bytes; longer lines are discarded and answered -32600 (T6).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_FRAME_BYTES,
          value_parser = parse_frame_bound)]
    pub max_frame_bytes: usize,
    /// Write every MCP message and native line to FILE as {"dir","ms","msg"} rows. The file
    /// holds prompts and output in clear: it is created new with mode 0600, and an existing
    /// file or a symbolic link is refused.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Let `--record` replace an existing regular file (never a link); it is emptied and
    /// set to mode 0600.
    #[arg(long, requires = "record")]
    pub record_overwrite: bool,
}

/// `--tool-names`: the engine's [`ToolNames`], with what each spelling means in `--help`.
fn tool_names() -> impl TypedValueParser<Value = ToolNames> {
    PossibleValuesParser::new([
        PossibleValue::new("dotted").help("`claude.run`, `claude.run.start`, … (default)"),
        PossibleValue::new("underscore")
            .help("`claude_run`, `claude_run_start`, … for hosts that reject dots"),
    ])
    .map(|s| match s.as_str() {
        "underscore" => ToolNames::Underscore,
        _ => ToolNames::Dotted,
    })
}

fn parse_frame_bound(s: &str) -> Result<usize, String> {
    let n: usize = s.parse().map_err(|e| format!("{e}"))?;
    if n < 1024 {
        return Err("must be at least 1024 bytes".into());
    }
    Ok(n)
}
