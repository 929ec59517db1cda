//! The `claude-mcp-adapter` binary: MCP over stdio by default, `cli run` for the one-shot CLI
//! projection, `cli-tree check` for maintainers, and a hidden supervisor mode.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use claude_mcp_adapter::{cli_projection, config::ServeArgs, mcp, providers::drift, supervisor};

/// A reference MCP server that runs Claude Code's print mode (`claude -p --output-format
/// stream-json`) with bounded buffers, process-group supervision and strict success rules.
#[derive(Debug, Parser)]
#[command(name = "claude-mcp-adapter", version, about, long_about = None)]
struct Cli {
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
    /// Compare an installed claude's --version and --help with cli-tree.json.
    Check(drift::DriftArgs),
}

/// glibc's mmap threshold for large blocks (its own initial value, `DEFAULT_MMAP_THRESHOLD_MIN`).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD: libc::c_int = 128 * 1024;

/// Keeps every block of 128 KiB or more in its own mapping, returned to the system when freed.
///
/// glibc starts with that threshold but raises it to the size of the first mapped block freed
/// (up to 32 MiB), after which such blocks come from the malloc arenas. Every run allocates a
/// 256 KiB read buffer (`engine::driver`), and long lines and event pages make other blocks that
/// size, so once the threshold moved these landed in the arena of whichever thread allocated
/// them, and each arena's heap ratcheted up to its own high-water mark of interleaved large and small
/// blocks: +1.1 MiB of RSS over the first ~2 000 runs of the soak, with the adapter idle at both
/// samples (bench/soak.md). Setting the threshold explicitly turns that adjustment off, so a
/// released run's large buffers leave the process's RSS; a mapped block also only costs the
/// pages actually touched (a read buffer that took one short line is one page, not 256 KiB).
fn pin_mmap_threshold() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt(3) only changes glibc's allocator parameters; it is called first thing in
    // main, before any other thread exists, and M_MMAP_THRESHOLD with a value under glibc's
    // maximum (32 MiB on 64-bit) is always accepted. A failure (returns 0) would only leave the
    // default behaviour, so the result is not checked.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
    }
}

fn main() -> ExitCode {
    pin_mmap_threshold();
    // The supervisor must not start a tokio runtime or parse the public CLI (SUP-1).
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == supervisor::SUBCOMMAND) {
        return supervisor::main(&args[2..]);
    }
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Cli {
            command: CliCommand::Run(a),
        }) => cli_projection::run(a),
        Some(Command::CliTree {
            command: CliTreeCommand::Check(a),
        }) => drift::run(a),
        None => match tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
        {
            Ok(rt) => rt.block_on(mcp::serve(cli.serve)),
            Err(e) => {
                claude_mcp_adapter::diag::now(&format!(
                    "claude-mcp-adapter: cannot start the runtime: {e}"
                ));
                ExitCode::from(2)
            }
        },
    }
}
