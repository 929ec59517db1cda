//! `messages-standin`: serves the Messages API stand-in with one scenario until SIGINT/SIGTERM,
//! for maintainers regenerating recordings of the real `claude` by hand.
//!
//! Prints `PORT=<port>` and `ANTHROPIC_BASE_URL=http://127.0.0.1:<port>` on stdout once ready.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::Parser;
use testkit::standin::{McpCall, Scenario, Standin};

/// Serve the local Messages API stand-in on 127.0.0.1.
#[derive(Debug, Parser)]
#[command(version, about, after_help = after_help())]
struct Args {
    /// Default scenario (a prompt can override it with `standin:scenario=NAME`).
    #[arg(long, default_value = "text")]
    scenario: Scenario,
    /// Port to bind on 127.0.0.1 (0: an ephemeral one).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Assistant text of text replies.
    #[arg(long)]
    text: Option<String>,
    /// Bash command of the `tool` and `tool-loop` scenarios.
    #[arg(long)]
    bash_command: Option<String>,
    /// Delay before each event of the `slow` scenario, in milliseconds.
    #[arg(long, default_value_t = 500)]
    slow_delay_ms: u64,
    /// Number of text deltas of the `slow` scenario.
    #[arg(long, default_value_t = 40)]
    slow_pieces: usize,
    /// A call of the `mcp-calls` scenario's script, `NAME=JSON` (repeatable, in order; a string
    /// value `{{run_id}}` is filled from the newest tool result).
    #[arg(long = "mcp-call", value_parser = McpCall::parse)]
    mcp_calls: Vec<McpCall>,
    /// Do not send `ping` events.
    #[arg(long)]
    no_ping: bool,
    /// Append every request (JSON line) to this file.
    #[arg(long)]
    log: Option<PathBuf>,
}

fn after_help() -> String {
    format!("Scenarios: {}", Scenario::NAMES.join(", "))
}

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("messages-standin: {error:#}");
            ExitCode::from(2)
        }
    }
}

fn run(args: Args) -> anyhow::Result<()> {
    let mut builder = Standin::builder()
        .scenario(args.scenario)
        .port(args.port)
        .slow(Duration::from_millis(args.slow_delay_ms), args.slow_pieces)
        .ping(!args.no_ping);
    if let Some(text) = args.text {
        builder = builder.text(text);
    }
    if let Some(command) = args.bash_command {
        builder = builder.bash_command(command);
    }
    for call in args.mcp_calls {
        builder = builder.mcp_call(call);
    }
    if let Some(log) = args.log {
        builder = builder.log_file(log);
    }
    let standin = builder.start()?;
    let mut out = std::io::stdout().lock();
    // A closed stdout only loses the announcement; the server keeps serving.
    let _ = writeln!(out, "PORT={}", standin.port());
    let _ = writeln!(out, "ANTHROPIC_BASE_URL={}", standin.base_url());
    let _ = out.flush();
    drop(out);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot build the signal runtime")?;
    runtime.block_on(async {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .context("cannot watch SIGTERM")?;
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
        anyhow::Ok(())
    })?;
    drop(standin);
    Ok(())
}
