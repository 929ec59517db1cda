//! The `mcp-replay` binary: `record`, `run` and `serve` (see the crate docs and docs/replay.md).
//! Exit codes: `run` and `serve` 0 same as the recording, 1 different, 2 could not run; `record`
//! the server's exit code, 2 when it could not start.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand, ValueEnum};
use mcp_replay::player::{self, Numbering, RunOptions, Side, Timing};
use mcp_replay::proxy::{self, RecordOptions};
use mcp_replay::recording::Recording;
use mcp_replay::report::{Report, Status, junit};
use mcp_replay::rules::RuleSet;
use mcp_replay::safe_file;
use mcp_replay::server::{self, ServeOptions};
use mcp_replay::writer::DEFAULT_MAX_LINE_BYTES;

#[derive(Debug, Parser)]
#[command(
    name = "mcp-replay",
    version,
    about = "Record, replay and serve golden MCP / ACP sessions"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Record a session: start as the server, run SERVER_CMD, pass every byte through, write FILE
    /// (it holds prompts and output: created 0600).
    Record {
        /// The recording to write.
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        /// Replace an existing file (never through a symbolic link).
        #[arg(long)]
        overwrite: bool,
        /// Lines longer than this are passed through but recorded cut (`oversized`).
        #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_LINE_BYTES)]
        max_line_bytes: usize,
        /// The server (or ACP agent) and its arguments.
        #[arg(last = true, required = true, value_name = "SERVER_CMD")]
        command: Vec<OsString>,
    },
    /// Replay RECORDING's client side against SERVER_CMD and compare every server message.
    Run {
        /// The recording.
        recording: PathBuf,
        #[command(flatten)]
        common: Common,
        /// Bound of each wait for a recorded answer, in milliseconds.
        #[arg(long, value_name = "MS", default_value_t = 10_000)]
        wait_ms: u64,
        /// `causal`: wait for each recorded answer; `recorded`: also keep the recorded gaps.
        #[arg(long, value_enum, default_value_t = TimingArg::Causal)]
        timing: TimingArg,
        /// After a difference, write the observed session as the new RECORDING (atomically).
        #[arg(long)]
        bless: bool,
        /// The server (or ACP agent) and its arguments.
        #[arg(last = true, required = true, value_name = "SERVER_CMD")]
        command: Vec<OsString>,
    },
    /// Act as the server for a host under test, answering from RECORDING's server side.
    Serve {
        /// The recording.
        recording: PathBuf,
        #[command(flatten)]
        common: Common,
        /// How long the host may stay silent while the recording expects more, in milliseconds.
        #[arg(long, value_name = "MS", default_value_t = 30_000)]
        idle_ms: u64,
        /// Also write the JSON report to FILE.
        #[arg(long, value_name = "FILE")]
        report: Option<PathBuf>,
    },
}

#[derive(Debug, clap::Args)]
struct Common {
    /// Extra normalisation rules (JSON, docs/replay.md), after the built-in ones.
    #[arg(long, value_name = "FILE")]
    rules: Option<PathBuf>,
    /// Use no built-in rule.
    #[arg(long)]
    no_builtin_rules: bool,
    /// Which rows to play: `wire` (c2s/s2c, recordings of `record`) or `adapter-acp` (the ACP
    /// lines c2a/a2c inside the reference adapter's Cursor recordings).
    #[arg(long, value_enum, default_value_t = SideArg::Wire)]
    side: SideArg,
    /// Report format, repeatable: pretty, json, junit; FORMAT=FILE writes it to FILE.
    #[arg(long = "format", value_name = "FORMAT[=FILE]")]
    formats: Vec<String>,
    /// Line bound for what the peer writes.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_LINE_BYTES)]
    max_line_bytes: usize,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum TimingArg {
    Causal,
    Recorded,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum SideArg {
    Wire,
    AdapterAcp,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Before any thread: the peer's whole group dies with the tool, even by SIGKILL.
    if let Err(e) = cmk_lifeline::start() {
        eprintln!("mcp-replay: {e}");
        return ExitCode::from(2);
    }
    if let Err(e) = mcp_replay::child::contain_signals() {
        eprintln!("mcp-replay: {e}");
        return ExitCode::from(2);
    }
    match cli.command {
        Command::Record {
            out,
            overwrite,
            max_line_bytes,
            command,
        } => {
            let opts = RecordOptions {
                out,
                overwrite,
                max_line_bytes,
                command,
            };
            match proxy::record(&opts) {
                Ok(done) => {
                    if let Some(f) = done.failure {
                        eprintln!("mcp-replay record: recording stopped early: {f}");
                    }
                    ExitCode::from(u8::try_from(done.exit_code).unwrap_or(1))
                }
                Err(e) => {
                    eprintln!("mcp-replay record: {e}");
                    ExitCode::from(2)
                }
            }
        }
        Command::Run {
            recording,
            common,
            wait_ms,
            timing,
            bless,
            command,
        } => run(&recording, &common, wait_ms, timing, bless, command),
        Command::Serve {
            recording,
            common,
            idle_ms,
            report,
        } => serve(&recording, &common, idle_ms, report.as_deref()),
    }
}

fn rules(common: &Common) -> anyhow::Result<Arc<RuleSet>> {
    let base = if common.no_builtin_rules {
        RuleSet::none()
    } else {
        RuleSet::builtin()?
    };
    let set = match &common.rules {
        Some(p) => base.then(RuleSet::load(p)?),
        None => base,
    };
    Ok(Arc::new(set))
}

fn side(common: &Common) -> Side {
    match common.side {
        SideArg::Wire => Side::WIRE,
        SideArg::AdapterAcp => Side::ADAPTER_ACP,
    }
}

fn error_report(command: &str, recording: &Path, error: String, started: Instant) -> Report {
    Report {
        command: command.into(),
        recording: recording.display().to_string(),
        status: Status::Error,
        positions: Vec::new(),
        differences: Vec::new(),
        rules_fired: Default::default(),
        notes: Vec::new(),
        error: Some(error),
        stderr: String::new(),
        duration_ms: elapsed(started),
    }
}

fn elapsed(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

fn run(
    recording: &Path,
    common: &Common,
    wait_ms: u64,
    timing: TimingArg,
    bless: bool,
    command: Vec<OsString>,
) -> ExitCode {
    let started = Instant::now();
    let attempt = || -> anyhow::Result<Report> {
        let rec = Recording::load(recording)?;
        let opts = RunOptions {
            command,
            rules: rules(common)?,
            wait: Duration::from_millis(wait_ms),
            timing: match timing {
                TimingArg::Causal => Timing::Causal,
                TimingArg::Recorded => Timing::Recorded,
            },
            side: side(common),
            max_line_bytes: common.max_line_bytes,
            env: None,
            exit_grace: mcp_replay::child::EXIT_GRACE,
            numbering: Numbering::PerSection,
        };
        let outcome = player::run(&rec, &opts)?;
        let mut notes = outcome.notes;
        let mut status = if outcome.differences.is_empty() {
            Status::Same
        } else {
            Status::Different
        };
        if bless && status == Status::Different {
            let text: String = outcome.rows.iter().map(|r| format!("{r}\n")).collect();
            safe_file::write_atomically(recording, &text)?;
            notes.push(format!(
                "blessed: {} now holds this replay",
                recording.display()
            ));
            status = Status::Same;
        }
        Ok(Report {
            command: "run".into(),
            recording: recording.display().to_string(),
            status,
            positions: outcome
                .expected
                .sections
                .iter()
                .map(|s| s.title.clone())
                .collect(),
            differences: outcome.differences,
            rules_fired: outcome.fired,
            notes,
            error: None,
            stderr: outcome.stderr,
            duration_ms: elapsed(started),
        })
    };
    let report =
        attempt().unwrap_or_else(|e| error_report("run", recording, format!("{e:#}"), started));
    emit(&report, &common.formats, &mut std::io::stdout())
}

fn serve(recording: &Path, common: &Common, idle_ms: u64, report_file: Option<&Path>) -> ExitCode {
    let started = Instant::now();
    // Both of serve's outputs go through writer threads: a host that reads neither its server's
    // stdout nor its stderr cannot hold serve past its bounds.
    let (mut diag, diag_written) = Background::spawn(Target::Stderr);
    let attempt = |diag: &mut Background| -> anyhow::Result<Report> {
        let rec = Recording::load(recording)?;
        let opts = ServeOptions {
            rules: rules(common)?,
            idle: Duration::from_millis(idle_ms),
            side: side(common),
            max_line_bytes: common.max_line_bytes,
        };
        let mut on_difference = |d: &mcp_replay::compare::Difference| {
            let _ = writeln!(
                diag,
                "mcp-replay serve: difference at {}:\n{}",
                d.position, d.diff
            )
            .and_then(|()| diag.flush());
        };
        let (host, written) = Background::spawn(Target::Stdout);
        let outcome = server::serve(&rec, &opts, std::io::stdin(), host, &mut on_difference)?;
        // What is queued reaches a host that reads; one that does not cannot hold us.
        let _ = written.recv_timeout(FLUSH_BOUND);
        Ok(Report {
            command: "serve".into(),
            recording: recording.display().to_string(),
            status: if outcome.differences.is_empty() {
                Status::Same
            } else {
                Status::Different
            },
            positions: outcome.positions,
            differences: outcome.differences,
            rules_fired: outcome.fired,
            notes: Vec::new(),
            error: None,
            stderr: String::new(),
            duration_ms: elapsed(started),
        })
    };
    let report = attempt(&mut diag)
        .unwrap_or_else(|e| error_report("serve", recording, format!("{e:#}"), started));
    if let Some(path) = report_file
        && let Err(e) = std::fs::write(path, report.json())
    {
        eprintln!("mcp-replay serve: cannot write {}: {e}", path.display());
        return ExitCode::from(2);
    }
    let code = emit(&report, &common.formats, &mut diag);
    drop(diag);
    let _ = diag_written.recv_timeout(FLUSH_BOUND);
    code
}

/// How long `serve` waits at the end for its queued answers to reach the host.
const FLUSH_BOUND: Duration = Duration::from_secs(2);

/// Which stream a [`Background`] writer writes.
#[derive(Debug, Clone, Copy)]
enum Target {
    Stdout,
    Stderr,
}

/// A stream written on a thread of its own (`serve`'s stdout, the host's, and its stderr): a
/// reader that does not read blocks that thread, never the bounded waits of `serve`. Each
/// `flush` hands the buffered bytes over.
struct Background {
    buf: Vec<u8>,
    tx: std::sync::mpsc::Sender<Vec<u8>>,
}

impl Background {
    /// The writer, and a channel that closes once everything handed over was written (or a write
    /// failed) and the writer was dropped.
    fn spawn(target: Target) -> (Self, std::sync::mpsc::Receiver<()>) {
        let (tx, rx) = std::sync::mpsc::channel::<Vec<u8>>();
        let (done_tx, done) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut out: Box<dyn std::io::Write> = match target {
                Target::Stdout => Box::new(std::io::stdout()),
                Target::Stderr => Box::new(std::io::stderr()),
            };
            for bytes in rx {
                if out.write_all(&bytes).and_then(|()| out.flush()).is_err() {
                    break;
                }
            }
            drop(done_tx);
        });
        (
            Self {
                buf: Vec::new(),
                tx,
            },
            done,
        )
    }
}

impl std::io::Write for Background {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let bytes = std::mem::take(&mut self.buf);
        self.tx
            .send(bytes)
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::BrokenPipe))
    }
}

/// Writes the reports (`--format`, pretty by default): to their files, else to `out` (stdout;
/// stderr for `serve`, whose stdout is the host's). A closed `out` is not an error.
fn emit(report: &Report, formats: &[String], out: &mut dyn Write) -> ExitCode {
    let specs: Vec<String> = if formats.is_empty() {
        vec!["pretty".into()]
    } else {
        formats.to_vec()
    };
    for spec in specs {
        let (name, file) = match spec.split_once('=') {
            Some((n, f)) => (n.to_owned(), Some(PathBuf::from(f))),
            None => (spec.clone(), None),
        };
        let text = match name.as_str() {
            "pretty" => report.pretty(),
            "json" => report.json(),
            "junit" => junit::render(report),
            other => {
                eprintln!("mcp-replay: unknown --format {other:?} (pretty, json, junit)");
                return ExitCode::from(2);
            }
        };
        match file {
            Some(path) => {
                if let Err(e) = std::fs::write(&path, text) {
                    eprintln!("mcp-replay: cannot write {}: {e}", path.display());
                    return ExitCode::from(2);
                }
            }
            None => {
                let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
            }
        }
    }
    ExitCode::from(report.exit_code())
}
