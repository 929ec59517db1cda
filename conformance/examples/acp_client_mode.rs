//! A thin, temporary command line for ACP client mode until `acp-conformance --client` exists:
//!
//! ```text
//! cargo run -p mcp-conformance --example acp_client_mode -- \
//!     --agent-program target/debug/fake-cursor-agent [--cancel sigint|client-timeout] \
//!     [--stdin TEXT] [--case ID]... [--json FILE] [--strict] -- CLIENT_COMMAND… ({agent} in it)
//! ```
//!
//! Prints one line per case (outcome, level, id, and the finding) and, with `--json`, writes the
//! graded cases as a JSON array. Exit 0 when nothing counts as failed, else 1.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use mcp_conformance::acp::client::{CancelDriver, ClientModeConfig, run_client_mode};
use nix::sys::signal::Signal;

#[derive(Debug, Parser)]
struct Args {
    /// The scripted agent (fake-cursor-agent); default: next to this example's folder.
    #[arg(long)]
    agent_program: Option<PathBuf>,
    /// How the client is told to cancel: none, sigint, sigterm, client-timeout.
    #[arg(long, default_value = "none")]
    cancel: String,
    /// Text written to the client's stdin (then closed).
    #[arg(long)]
    stdin: Option<String>,
    /// Only these cases.
    #[arg(long = "case")]
    cases: Vec<String>,
    /// Per-case timeout in seconds.
    #[arg(long, default_value_t = 30)]
    case_timeout_s: u64,
    /// The answer bound in milliseconds.
    #[arg(long, default_value_t = 5000)]
    answer_bound_ms: u64,
    /// SHOULD deviations fail.
    #[arg(long)]
    strict: bool,
    /// Write the graded cases here as JSON.
    #[arg(long)]
    json: Option<PathBuf>,
    /// The client's command line; `{agent}` is replaced by the scripted agent's command.
    #[arg(last = true, required = true)]
    client: Vec<String>,
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    let agent = args.agent_program.unwrap_or_else(|| {
        std::env::current_exe()
            .ok()
            .and_then(|p| Some(p.parent()?.parent()?.join("fake-cursor-agent")))
            .unwrap_or_else(|| PathBuf::from("fake-cursor-agent"))
    });
    let mut cfg = ClientModeConfig::new(args.client, agent);
    cfg.cancel = match args.cancel.as_str() {
        "none" => CancelDriver::None,
        "sigint" => CancelDriver::Signal(Signal::SIGINT),
        "sigterm" => CancelDriver::Signal(Signal::SIGTERM),
        "client-timeout" => CancelDriver::ClientTimeout,
        other => {
            eprintln!("unknown --cancel {other:?}");
            return ExitCode::from(2);
        }
    };
    cfg.client_stdin = args.stdin.map(String::into_bytes);
    cfg.cases = args.cases;
    cfg.case_timeout = Duration::from_secs(args.case_timeout_s);
    cfg.answer_bound = Duration::from_millis(args.answer_bound_ms);
    cfg.strict = args.strict;
    let results = run_client_mode(&cfg).await;
    let mut failed = false;
    for r in &results {
        failed |= r.counts_as_failed();
        let finding = match (&r.expected, &r.actual, &r.reason) {
            (Some(e), Some(a), _) => format!(": expected {e}; got {a}"),
            (_, _, Some(reason)) => format!(": {reason}"),
            _ => String::new(),
        };
        println!(
            "{:<5} {:<6} {}{finding}",
            r.outcome.name(),
            r.level.name(),
            r.id
        );
    }
    if let Some(path) = args.json {
        let text = serde_json::to_string_pretty(&results).unwrap_or_default();
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("cannot write {}: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    ExitCode::from(u8::from(failed))
}
