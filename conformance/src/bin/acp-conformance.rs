//! The `acp-conformance` binary: agent mode (`-- AGENT_COMMAND…`) and client mode (`--client --
//! CLIENT_COMMAND…`, [`mcp_conformance::acp::client`]) on the shared runner core. Exit statuses as
//! `mcp-conformance`: 0 conformant, 1 a required case failed or the baseline went stale, 2 the
//! runner could not do its job, 130 interrupted.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::parser::ValueSource;
use clap::{CommandFactory as _, FromArgMatches as _, Parser};

use mcp_conformance::acp::gate::{AcpCase, AcpProfile, AcpRunner};
use mcp_conformance::acp::{self, ctx};
use mcp_conformance::core::baseline::Baseline;
use mcp_conformance::core::cli::{self, CommonArgs, Outputs, Partial, err_line, out};
use mcp_conformance::core::client::ServerSpec;
use mcp_conformance::core::deadline::Deadlines;
use mcp_conformance::core::process;
use mcp_conformance::core::report::{self, Report};
use mcp_conformance::core::schedule::{self, Settings};
use mcp_conformance::core::verdict::{self, RunInfo};

/// Conformance gate for ACP (Agent Client Protocol) agents over stdio: initialize, sessions,
/// prompt turns, cancel, permissions, JSON-RPC, extensions, exit, content and capabilities,
/// graded MUST / SHOULD as the ACP v1 schema and docs say.
#[derive(Debug, Parser)]
#[command(name = "acp-conformance", version)]
#[command(mut_arg("timeout_ms", |a| a.help(
    "Base per-case timeout in milliseconds (turn cases use a multiple); raised to 2 x contention \
     (--jobs over the cores) x the agent's start-up measured by discovery + 1 s when more"
)))]
struct Cli {
    /// Client mode: the runner plays a scripted agent that the client under test launches
    /// (`{agent}` in CLIENT_COMMAND, or env ACP_CONFORMANCE_AGENT) and grades the client.
    #[arg(long)]
    client: bool,
    /// Client mode: the scripted agent (fake-cursor-agent; default: next to this executable).
    #[arg(long, value_name = "PATH", requires = "client")]
    agent_program: Option<PathBuf>,
    /// Client mode: how the client is told to cancel a turn: none, sigint, sigterm,
    /// client-timeout (its own turn timeout, set in CLIENT_COMMAND).
    #[arg(long, value_name = "HOW", default_value = "none", requires = "client")]
    cancel: String,
    /// Client mode: text written to the client's stdin (then closed); default /dev/null.
    #[arg(long, value_name = "TEXT", requires = "client")]
    client_stdin: Option<String>,
    /// Client mode: which clients the client is held to: client (what ACP asks of any
    /// client) or cursor (also the kit's Cursor policy: never allow_always, no authenticate).
    #[arg(
        long,
        value_name = "PROFILE",
        default_value = "client",
        requires = "client"
    )]
    profile: String,
    /// The options both runners share.
    #[command(flatten)]
    common: CommonArgs<20_000, 2>,
    /// The agent command and its arguments.
    #[arg(last = true, value_name = "AGENT_COMMAND")]
    command: Vec<OsString>,
}

fn usage(msg: &str) -> ExitCode {
    err_line(&format!("acp-conformance: {msg}"));
    ExitCode::from(2)
}

fn listing(cases: &[AcpCase]) -> String {
    let width = cases.iter().map(|c| c.id.len()).max().unwrap_or(0);
    cases
        .iter()
        .map(|c| {
            format!(
                "{:<width$}  {:<6}  {}\n",
                c.id,
                c.levels.name(),
                c.description
            )
        })
        .collect()
}

fn main() -> ExitCode {
    let matches = Cli::command().get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let outputs = match cli.common.outputs() {
        Ok(o) => o,
        Err(msg) => return usage(&msg),
    };
    if cli.client {
        // Clients under test may share a user-level configuration: client mode runs one client
        // at a time unless `--jobs` is given.
        let jobs = if matches.value_source("jobs") == Some(ValueSource::CommandLine) {
            cli.common.jobs()
        } else {
            1
        };
        return client_mode(&cli, &outputs, jobs);
    }
    let all = acp::all();
    let cases = acp::select(&all, &cli.common.cases);
    if cli.common.list {
        out(&listing(&cases));
        return ExitCode::SUCCESS;
    }
    if cli.command.is_empty() {
        return usage("no agent command: acp-conformance [OPTIONS] -- AGENT_COMMAND...");
    }
    if cases.is_empty() {
        return usage(&format!("no case matches --case {:?}", cli.common.cases));
    }
    // A shard keeps the id rule on the exchanges it makes.
    let cases = acp::select_with_crosscut(&all, &cli.common.cases);
    let runtime = match runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    let started = Instant::now();
    let partial = Partial::default();
    let code = runtime.block_on(async {
        tokio::select! {
            code = run(&cli, cases, &all, &outputs, partial.clone(), started) => code,
            () = cli::interrupted() => {
                process::kill_all();
                err_line("acp-conformance: interrupted; every agent process group was killed");
                let before = run_info(&cli, AcpProfile::Agent, None, None, started);
                cli::write_interrupted(&partial.interrupted(before), &outputs);
                ExitCode::from(130)
            }
        }
    });
    process::kill_all();
    runtime.shutdown_timeout(Duration::from_millis(200));
    code
}

/// The tokio runtime both modes run on.
fn runtime() -> Result<tokio::runtime::Runtime, ExitCode> {
    // Before any thread: every agent (or client) group dies with the runner, even by SIGKILL.
    process::contain().map_err(|e| usage(&e))?;
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| usage(&format!("cannot start the runtime: {e}")))
}

/// `--client`: the client catalogue on the one scheduler (`jobs` clients at once), graded and
/// reported like agent mode's (profile `client`, or `cursor` with `--profile cursor`).
fn client_mode(cli: &Cli, outputs: &Outputs, jobs: usize) -> ExitCode {
    use mcp_conformance::acp::client::{
        CASES, CancelDriver, ClientModeConfig, run_client_cases, selected,
    };
    let profile = match cli.profile.as_str() {
        "client" => AcpProfile::Client,
        "cursor" => AcpProfile::Cursor,
        other => return usage(&format!("unknown --profile {other:?} (client, cursor)")),
    };
    let ids: Vec<String> = CASES
        .iter()
        .filter(|c| c.level(profile).is_some())
        .filter(|c| {
            cli.common.cases.is_empty()
                || cli
                    .common
                    .cases
                    .iter()
                    .any(|g| mcp_conformance::core::select::glob_match(g, c.id))
        })
        .map(|c| c.id.to_owned())
        .collect();
    if cli.common.list {
        let width = CASES.iter().map(|c| c.id.len()).max().unwrap_or(0);
        for c in CASES.iter().filter(|c| ids.iter().any(|i| i == c.id)) {
            out(&format!(
                "{:<width$}  {:<6}  {}\n",
                c.id,
                c.levels.name(),
                c.description
            ));
        }
        return ExitCode::SUCCESS;
    }
    if cli.command.is_empty() {
        return usage("no client command: acp-conformance --client [OPTIONS] -- CLIENT_COMMAND...");
    }
    if ids.is_empty() {
        return usage(&format!(
            "no client case matches --case {:?}",
            cli.common.cases
        ));
    }
    let baseline = match &cli.common.baseline {
        Some(p) => match Baseline::load(p).and_then(|b| {
            b.check_known(p, |id| CASES.iter().any(|c| c.id == id))
                .map(|()| b)
        }) {
            Ok(b) => b,
            Err(e) => return usage(&e.to_string()),
        },
        None => Baseline::default(),
    };
    let cancel = match cli.cancel.as_str() {
        "none" => CancelDriver::None,
        "sigint" => CancelDriver::Signal(nix::sys::signal::Signal::SIGINT),
        "sigterm" => CancelDriver::Signal(nix::sys::signal::Signal::SIGTERM),
        "client-timeout" => CancelDriver::ClientTimeout,
        other => {
            return usage(&format!(
                "unknown --cancel {other:?} (none, sigint, sigterm, client-timeout)"
            ));
        }
    };
    let agent = cli.agent_program.clone().unwrap_or_else(|| {
        std::env::current_exe()
            .ok()
            .and_then(|p| Some(p.parent()?.join("fake-cursor-agent")))
            .unwrap_or_else(|| PathBuf::from("fake-cursor-agent"))
    });
    let mut cfg = ClientModeConfig::new(command_words(cli), agent);
    cfg.cancel = cancel;
    cfg.client_stdin = cli.client_stdin.clone().map(String::into_bytes);
    cfg.cases = ids;
    cfg.jobs = jobs;
    cfg.strict = cli.common.strict;
    cfg.baseline = baseline;
    cfg.profile = profile;
    cfg.case_timeout = Duration::from_millis(cli.common.timeout_ms.max(30_000));
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    let started = Instant::now();
    let info = run_info(cli, profile, None, None, started);
    let cases = selected(&cfg);
    let partial = Partial::default();
    partial.start(
        info.clone(),
        cases.iter().map(|c| c.id).collect(),
        CASES.iter().map(|c| c.id).collect(),
        &cfg.baseline,
    );
    let progress_to_stdout = cli::progress_to_stdout(outputs);
    let results = rt.block_on(async {
        let (tx, printer) = cli::progress_printer(
            cases.len(),
            progress_to_stdout,
            profile,
            cfg.strict,
            &cfg.baseline,
            partial.clone(),
        );
        tokio::select! {
            r = run_client_cases(&cfg, Some(tx)) => {
                let _ = printer.await;
                Some(r)
            }
            () = cli::interrupted() => None,
        }
    });
    process::kill_all();
    rt.shutdown_timeout(Duration::from_millis(200));
    let Some(ran) = results else {
        err_line("acp-conformance: interrupted; every process group was killed");
        cli::write_interrupted(&partial.interrupted(info), outputs);
        return ExitCode::from(130);
    };
    let known: BTreeSet<&str> = CASES.iter().map(|c| c.id).collect();
    let graded = ran
        .iter()
        .map(|r| verdict::grade(r, profile, cfg.strict, &cfg.baseline))
        .collect();
    let report = verdict::assemble(info, graded, &cfg.baseline, &known);
    if let Err(e) = cli::write_reports(&report, outputs, progress_to_stdout) {
        return usage(&format!("{e:#}"));
    }
    ExitCode::from(report.exit_code)
}

fn command_words(cli: &Cli) -> Vec<String> {
    cli.command
        .iter()
        .map(|s| s.to_string_lossy().into_owned())
        .collect()
}

/// What the report says of the run besides its cases.
fn run_info(
    cli: &Cli,
    profile: AcpProfile,
    peer_info: Option<serde_json::Value>,
    protocol_version: Option<String>,
    started: Instant,
) -> RunInfo<AcpProfile> {
    RunInfo {
        runner: "acp-conformance",
        profile,
        command: command_words(cli),
        builtin: false,
        peer_info,
        protocol_version,
        strict: cli.common.strict,
        drive_fake: false,
        baseline_file: cli
            .common
            .baseline
            .as_ref()
            .map(|p| p.display().to_string()),
        min_coverage: cli.common.min_coverage,
        started,
        deadlines: None,
    }
}

/// The report of a run that could not start (exit 2), for JSON readers.
fn error_report(cli: &Cli, error: &str, started: Instant) -> Report<AcpProfile> {
    verdict::error_report(run_info(cli, AcpProfile::Agent, None, None, started), error)
}

async fn run(
    cli: &Cli,
    cases: Vec<AcpCase>,
    all: &[AcpCase],
    outputs: &Outputs,
    partial: Partial<AcpProfile>,
    started: Instant,
) -> ExitCode {
    match run_inner(cli, cases, all, outputs, partial, started).await {
        Ok(code) => code,
        Err(e) => {
            let msg = format!("{e:#}");
            err_line(&format!("acp-conformance: {msg}"));
            let report = error_report(cli, &msg, started);
            cli::write_error_reports("acp-conformance", &report, outputs);
            ExitCode::from(2)
        }
    }
}

async fn run_inner(
    cli: &Cli,
    cases: Vec<AcpCase>,
    all: &[AcpCase],
    outputs: &Outputs,
    partial: Partial<AcpProfile>,
    started: Instant,
) -> anyhow::Result<ExitCode> {
    let baseline = match &cli.common.baseline {
        Some(p) => {
            let b = Baseline::load(p)?;
            b.check_known(p, |id| all.iter().any(|c| c.id == id))?;
            b
        }
        None => Baseline::default(),
    };
    let Some((program, args)) = cli.command.split_first() else {
        anyhow::bail!("no agent command");
    };
    let spec = Arc::new(ServerSpec {
        program: program.clone(),
        args: args.to_vec(),
        env: Vec::new(),
        endpoint: None,
    });
    let timeout = cli.common.timeout();
    let watch = acp::watch::Watch::new();
    let (init, startup) = match ctx::discover(spec.clone(), timeout, watch.clone()).await {
        Ok(found) => found,
        Err((why, transcript)) => {
            err_line("acp-conformance: discovery transcript:");
            for entry in transcript {
                err_line(&format!(
                    "  {:>6} ms {:<6} {}",
                    entry.ms,
                    entry.dir,
                    report::pretty::printable(&entry.line)
                ));
            }
            anyhow::bail!("the agent would not start or initialize: {}", why);
        }
    };
    let progress_to_stdout = cli::progress_to_stdout(outputs);
    // GATE-LOAD-1: every case's deadlines allow the start this agent was seen to take.
    let deadlines = Deadlines::for_this_machine(timeout, startup, cli.common.jobs());
    let mut info = run_info(
        cli,
        AcpProfile::Agent,
        init.get("agentInfo").cloned(),
        init.get("protocolVersion").map(|v| v.to_string()),
        started,
    );
    info.deadlines = Some(deadlines);
    partial.start(
        info.clone(),
        cases.iter().map(|c| c.id).collect(),
        all.iter().map(|c| c.id).collect(),
        &baseline,
    );
    let (tx, printer) = cli::progress_printer(
        cases.len(),
        progress_to_stdout,
        AcpProfile::Agent,
        cli.common.strict,
        &baseline,
        partial,
    );
    let settings = Settings {
        timeout: deadlines.effective(),
        jobs: cli.common.jobs(),
    };
    let starts = Arc::new(mcp_conformance::core::starts::Starts::default());
    let ran = schedule::run_all(
        Arc::new(AcpRunner {
            spec,
            watch,
            catalogue: Arc::new(all.iter().map(|c| c.id).collect()),
            starts: starts.clone(),
        }),
        cases,
        settings,
        Some(tx),
    )
    .await;
    let _ = printer.await;
    // Many runner errors of one cause are said once, with the cause.
    if let Some(given_up) = starts.only_first_instance() {
        err_line(&format!(
            "acp-conformance: no agent a case started answered initialize ({given_up} case(s) \
             gave up), although the discovery session's agent did: the agent seems to work \
             only as its first instance (a lock file, a port, state the first instance leaves \
             behind); an agent that is only slow to start needs a larger --timeout-ms"
        ));
    }
    let ids: BTreeSet<&str> = all.iter().map(|c| c.id).collect();
    let graded = ran
        .iter()
        .map(|r| verdict::grade(r, AcpProfile::Agent, cli.common.strict, &baseline))
        .collect();
    let report = verdict::assemble(info, graded, &baseline, &ids);
    cli::write_reports(&report, outputs, progress_to_stdout)?;
    Ok(ExitCode::from(report.exit_code))
}
