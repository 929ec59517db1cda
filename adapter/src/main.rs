//! The `claude-mcp-adapter` binary: MCP over stdio by default, `cli run` for the one-shot CLI
//! projection, `cli-tree check` for maintainers, and a hidden supervisor mode.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use claude_mcp_adapter::{cli_projection, cli_tree_cmd, providers};
use cmk_mcp_server::config::ServeArgs;
use cmk_supervisor as supervisor;

/// What `--help` says first: both providers, and how the server is reached.
const ABOUT: &str = "A stdio MCP server that runs agent CLIs as tools, with bounded buffers, \
process-group supervision and strict success rules: Claude Code's print mode (`--provider \
claude`, the default: `claude -p --output-format stream-json`, the claude.run… tools) and \
Cursor's agent over ACP (`--provider cursor`: `cursor-agent acp`, the cursor.run… tools); \
repeat --provider to serve both. An MCP host starts it and speaks JSON-RPC on its stdin; \
`cli run` runs one prompt from a shell.";

#[derive(Debug, Parser)]
#[command(name = "claude-mcp-adapter", version, about = ABOUT, long_about = None)]
struct Cli {
    #[command(flatten)]
    providers: providers::Served,
    #[command(flatten)]
    serve: ServeArgs,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// One-shot CLI projection of a print-mode call (CLI-1).
    Cli {
        #[command(subcommand)]
        command: CliCommand,
    },
    /// Maintainer tools for cli-tree.json (NAT-1).
    CliTree {
        #[command(subcommand)]
        command: CliTreeCommand,
    },
}

#[derive(Debug, Subcommand)]
enum CliCommand {
    /// Run one prompt with `--output-format json` and print the native result.
    Run(cli_projection::CliRunArgs),
}

#[derive(Debug, Subcommand)]
enum CliTreeCommand {
    /// Compare installed native CLIs' --version and --help with the trees their providers pin:
    /// the default provider's always, every other provider's when its flag names its CLI.
    Check(cli_tree_cmd::CheckArgs),
    /// Check each updated native CLI named against everything the adapter uses from its
    /// provider's pinned tree and, when all of it still holds, pin its new version in
    /// $XDG_CONFIG_HOME/claude-mcp-adapter/ (else ~/.config/claude-mcp-adapter/).
    Refresh(cli_tree_cmd::RefreshArgs),
}

fn main() -> ExitCode {
    cmk_mcp_server::alloc::pin_mmap_threshold();
    // The supervisor must not start a tokio runtime or parse the public CLI (SUP-1).
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == supervisor::SUBCOMMAND) {
        return supervisor::main(&args[2..]);
    }
    let cli = Cli::parse();
    // Before any thread: the CLI a `cli-tree` subcommand runs dies with the adapter, even by
    // SIGKILL (C-SUP-5).
    if matches!(cli.command, Some(Command::CliTree { .. }))
        && let Err(e) = cmk_native::drift::contain()
    {
        eprintln!("claude-mcp-adapter cli-tree: {e}");
        return ExitCode::from(2);
    }
    match cli.command {
        Some(Command::Cli {
            command: CliCommand::Run(a),
        }) => cli_projection::run(a),
        Some(Command::CliTree {
            command: CliTreeCommand::Check(a),
        }) => cmk_native::drift::run(&a.targets()),
        Some(Command::CliTree {
            command: CliTreeCommand::Refresh(a),
        }) => cmk_native::refresh::run(a.targets()),
        None => {
            // A person who started the server in a terminal sees why nothing happens.
            if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
                cmk_engine::diag::now(
                    "claude-mcp-adapter: waiting for an MCP client on stdin; see --help",
                );
            }
            serve(cli.serve, cli.providers)
        }
    }
}

/// The MCP server on a multi-threaded runtime.
fn serve(args: ServeArgs, providers: providers::Served) -> ExitCode {
    match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt.block_on(cmk_mcp_server::serve(args, |a, r| providers.build(a, r))),
        Err(e) => {
            cmk_engine::diag::now(&format!(
                "claude-mcp-adapter: cannot start the runtime: {e}"
            ));
            ExitCode::from(2)
        }
    }
}
