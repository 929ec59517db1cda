//! Options of the MCP server mode, shared by the protocol surface and the run engine.

use std::path::PathBuf;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use cmk_engine::ToolNames;
use cmk_native::binary::EnvDeny;

/// A provider family the server exposes (PROV-2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ProviderName {
    /// Claude Code's print mode: the `claude.run…` tools.
    Claude,
    /// Cursor's agent over ACP: the `cursor.run…` tools.
    Cursor,
}

/// Default inbound frame bound (T6).
pub(crate) const DEFAULT_MAX_FRAME_BYTES: usize = 4 * 1024 * 1024;
/// Default configurable maximum of `timeout_s` (BND-4).
pub const DEFAULT_MAX_TIMEOUT_S: u64 = 1800;

/// `claude-mcp-adapter [OPTIONS]`: serve MCP over stdio.
#[derive(Debug, Clone, clap::Args)]
pub struct ServeArgs {
    /// A provider whose seven tools to serve; repeat for several (one run table, one capacity
    /// and one work snapshot hold them all, PROV-2).
    #[arg(long = "provider", value_enum, value_name = "NAME", default_values_t = [ProviderName::Claude])]
    pub providers: Vec<ProviderName>,
    /// The native claude binary to run (default: `claude` found on PATH at each run).
    #[arg(long, value_name = "PATH", default_value = "claude")]
    pub claude: PathBuf,
    /// A cli-tree.json to use instead of the one embedded at build time (NAT-1).
    #[arg(long, value_name = "PATH")]
    pub cli_tree: Option<PathBuf>,
    /// The native Cursor agent to run for `--provider cursor` (default: `cursor-agent` found on
    /// PATH at each run).
    #[arg(long, value_name = "PATH", default_value = "cursor-agent")]
    pub cursor: PathBuf,
    /// A cursor-cli-tree.json to use instead of the one embedded at build time (ACP-9).
    #[arg(long, value_name = "PATH")]
    pub cursor_cli_tree: Option<PathBuf>,
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
