//! The `mcp-conformance` binary: command line, output routing, Ctrl-C, exit codes (0 conformant,
//! 1 a required case failed or the baseline went stale, 2 the runner could not do its job).

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Parser;

use mcp_conformance::core::baseline::Baseline;
use mcp_conformance::core::cli::{self, CommonArgs, Outputs, Partial, err_line, out};
use mcp_conformance::core::deadline::Deadlines;
use mcp_conformance::core::report::{self, Report};
use mcp_conformance::core::schedule;
use mcp_conformance::core::verdict::{self, RunInfo};
use mcp_conformance::core::{process, select};
use mcp_conformance::mcp::discovery::Discovery;
use mcp_conformance::mcp::profile::Profile;
use mcp_conformance::mcp::revision::{self, Revision};
use mcp_conformance::mcp::revision_probe;
use mcp_conformance::mcp::run::{McpRunner, Settings};
use mcp_conformance::mcp::target::Target;
use mcp_conformance::mcp::{catalogue, listing};

/// Raw-stdio conformance gate for any MCP server: base protocol (lifecycle, JSON-RPC, bad input,
/// bounds, tools, resources, cancellation) and the computer-mcp metadata and run rules.
///
/// Without a server command it checks the reference adapter (claude-mcp-adapter, both tool
/// families) wired to fake-claude and fake-cursor-agent, all found next to this executable or on
/// PATH.
#[derive(Debug, Parser)]
#[command(name = "mcp-conformance", version)]
#[command(mut_arg("list", |a| a.help(
    "Print the catalogue (of --profile when given) and exit without running anything"
)))]
#[command(mut_arg("timeout_ms", |a| a.help(
    "Base per-case timeout in milliseconds (long cases use a multiple); raised to 2 x contention \
     (--jobs over the cores) x the server's start-up measured by discovery + 1 s when more"
)))]
#[command(mut_arg("jobs", |a| a.help(
    "Cases run at once (most of a case is waiting on a run, a grace or a server's exit, not CPU: \
     8 on two cores cut the default gate by about a quarter against 4)"
)))]
struct Cli {
    /// plain (base protocol; metadata informational), provider (every META rule MUST, run
    /// lifecycle), gateway (META-CONN-1). Default: provider for the built-in target, else plain.
    #[arg(long, value_enum)]
    profile: Option<Profile>,
    /// The options both runners share.
    #[command(flatten)]
    common: CommonArgs<10_000, 8>,
    /// Put fake-claude first on the server's PATH as `claude`, and fake-cursor-agent as
    /// `cursor-agent` beside it, and run the provider lifecycle cases against each tool family
    /// (default for the built-in target).
    #[arg(long, overrides_with = "no_drive_fake")]
    drive_fake: bool,
    /// Do not drive the server with fake-claude and fake-cursor-agent.
    #[arg(long)]
    no_drive_fake: bool,
    /// Outside the provider profile, also call tools not annotated readOnlyHint: true (by
    /// default the runner never calls a tool that might act on a foreign server).
    #[arg(long)]
    allow_tool_calls: bool,
    /// fake-claude to use with --drive-fake (default: next to this executable, else PATH).
    #[arg(long, value_name = "PATH")]
    fake_claude: Option<PathBuf>,
    /// fake-cursor-agent to put on the server's PATH as `cursor-agent` with --drive-fake
    /// (default: next to this executable, else PATH; without one a Cursor family's run cases
    /// skip).
    #[arg(long, value_name = "PATH")]
    fake_cursor_agent: Option<PathBuf>,
    /// Grade only these MCP revisions (dates; repeat or separate by commas). Default: every
    /// known one the server supports (2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25,
    /// 2026-07-28).
    #[arg(long = "revision", value_name = "DATE", num_args = 1..)]
    revisions: Vec<String>,
    /// Check the MCP server at this Streamable HTTP endpoint (http://HOST:PORT/PATH, started
    /// by you) instead of starting a server command: every case not about stdio runs over a
    /// session of it, and the transport's own cases too.
    #[arg(long, value_name = "URL")]
    url: Option<String>,
    /// The server command and its arguments.
    #[arg(last = true, value_name = "SERVER_COMMAND")]
    command: Vec<OsString>,
}

/// A usage error found after parsing (exit 2, like clap's own).
fn usage(msg: &str) -> ExitCode {
    err_line(&format!("mcp-conformance: {msg}"));
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outputs = match outputs(&cli) {
        Ok(o) => o,
        Err(msg) => return usage(&msg),
    };
    // `--` promises a server command: with nothing after it, checking the built-in target
    // instead would turn a forgotten variable (`-- $SERVER`) into a green gate.
    if cli.command.is_empty() && std::env::args_os().skip(1).any(|a| a == "--") {
        return usage(
            "`--` is followed by no server command (omit `--` to check the built-in target)",
        );
    }
    if cli.url.is_some() && !cli.command.is_empty() {
        return usage("--url and a server command exclude each other: check one server at a time");
    }
    if cli.url.is_some()
        && (cli.drive_fake || cli.fake_claude.is_some() || cli.fake_cursor_agent.is_some())
    {
        // Each needs a server the runner starts (fakes on its PATH): accepted silently, they
        // would promise a check that does not happen.
        return usage(
            "--url checks a server you started: --drive-fake, --fake-claude and \
             --fake-cursor-agent apply to a server command",
        );
    }
    let builtin = cli.command.is_empty() && cli.url.is_none();
    let profile = cli.profile.unwrap_or(if builtin {
        Profile::Provider
    } else {
        Profile::Plain
    });
    let chosen_revisions = match revision::parse_chosen(&cli.revisions) {
        Ok(r) => r,
        Err(msg) => return usage(&msg),
    };
    let all = catalogue::all();
    if cli.common.list {
        // The cases per revision: every instance of a changed rule, as if the server supported
        // every chosen revision.
        let graded = revision::Graded::new(
            chosen_revisions.clone(),
            Revision::ALL.to_vec(),
            Some(Revision::DEFAULT),
        );
        let all = catalogue::revisions::expand(all, &graded, &[]);
        let chosen = catalogue::select(&all, profile, &cli.common.cases);
        let shown = if cli.profile.is_some() {
            listing::text(&chosen, cli.profile)
        } else {
            let ids: Vec<&str> = chosen.iter().map(|c| c.id).collect();
            let every: Vec<_> = all
                .iter()
                .filter(|c| {
                    cli.common.cases.is_empty()
                        || ids.contains(&c.id)
                        || cli.common.cases.iter().any(|g| select::glob_match(g, c.id))
                })
                .copied()
                .collect();
            listing::text(&every, None)
        };
        out(&shown);
        if cli.url.is_some() {
            out(&listing_http(&cli.common.cases));
        }
        return ExitCode::SUCCESS;
    }
    // Before any thread: every server group dies with the runner, even by SIGKILL.
    if let Err(e) = process::contain() {
        return usage(&e);
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return usage(&format!("cannot start the runtime: {e}")),
    };
    let started = Instant::now();
    let shell = ErrorShell {
        command: match &cli.url {
            Some(url) => vec![url.clone()],
            None => cli
                .command
                .iter()
                .map(|s| s.to_string_lossy().into_owned())
                .collect(),
        },
        profile,
        strict: cli.common.strict,
        baseline: cli
            .common
            .baseline
            .as_ref()
            .map(|p| p.display().to_string()),
        min_coverage: cli.common.min_coverage,
        started,
        url: cli.url.is_some(),
    };
    let partial = Partial::default();
    let code = runtime.block_on(async {
        tokio::select! {
            code = run(cli, chosen_revisions, &shell, outputs.clone(), partial.clone()) => code,
            () = cli::interrupted() => {
                // Ctrl-C or SIGTERM of the runner: every spawned server group dies with it, and
                // the reports still get written, with the verdicts reached so far.
                process::kill_all();
                err_line("mcp-conformance: interrupted; every server process group was killed");
                cli::write_interrupted(&partial.interrupted(shell.info()), &outputs);
                ExitCode::from(130)
            }
        }
    });
    // Whatever path got here, no group is left behind.
    process::kill_all();
    runtime.shutdown_timeout(Duration::from_millis(200));
    code
}

fn outputs(cli: &Cli) -> Result<Outputs, String> {
    cli.common.outputs()
}

async fn run(
    cli: Cli,
    revisions: Vec<Revision>,
    shell: &ErrorShell,
    outputs: Outputs,
    partial: Partial<Profile>,
) -> ExitCode {
    let error_outputs = outputs.clone();
    match run_inner(cli, revisions, shell, outputs, partial).await {
        Ok(code) => code,
        Err(e) => {
            let msg = format!("{e:#}");
            err_line(&format!("mcp-conformance: {msg}"));
            // A CI job reading the JSON or JUnit report still gets one, saying why there is
            // no verdict.
            cli::write_error_reports("mcp-conformance", &shell.report(&msg), &error_outputs);
            ExitCode::from(2)
        }
    }
}

/// What a report written after a runner error knows.
struct ErrorShell {
    command: Vec<String>,
    /// Whether `command` is a `--url`.
    url: bool,
    profile: Profile,
    strict: bool,
    baseline: Option<String>,
    min_coverage: Option<f64>,
    started: Instant,
}

impl ErrorShell {
    /// What the report of a run that did not get under way says of it.
    fn info(&self) -> RunInfo<Profile> {
        RunInfo {
            runner: "mcp-conformance",
            profile: self.profile,
            command: self.command.clone(),
            builtin: self.command.is_empty() && !self.url,
            peer_info: None,
            protocol_version: None,
            strict: self.strict,
            drive_fake: false,
            baseline_file: self.baseline.clone(),
            min_coverage: self.min_coverage,
            started: self.started,
            deadlines: None,
        }
    }

    fn report(&self, error: &str) -> Report<Profile> {
        verdict::error_report(self.info(), error)
    }
}

async fn run_inner(
    cli: Cli,
    revisions: Vec<Revision>,
    shell: &ErrorShell,
    outputs: Outputs,
    partial: Partial<Profile>,
) -> anyhow::Result<ExitCode> {
    let profile = shell.profile;
    let all = catalogue::all();
    let http_all = mcp_conformance::mcp::http::run::all();
    let http_ids: Vec<&str> = http_all.iter().map(|c| c.id).collect();
    let baseline = match &cli.common.baseline {
        Some(p) => {
            let b = Baseline::load(p)?;
            b.check_known(p, |id| {
                catalogue::revisions::known_id(&all, id)
                    || (cli.url.is_some() && http_ids.contains(&id))
            })?;
            b
        }
        None => Baseline::default(),
    };
    // Over Streamable HTTP the transport's own cases (HTTP-1..10) run besides the catalogue's.
    let http_cases = match &cli.url {
        Some(_) => mcp_conformance::mcp::http::run::select(&cli.common.cases),
        None => Vec::new(),
    };
    let builtin = cli.command.is_empty() && cli.url.is_none();
    let drive_fake = if cli.no_drive_fake {
        false
    } else {
        cli.drive_fake || builtin
    };
    // A selection that matches nothing is a usage error: found before any server starts.
    // `ID@FAMILY` globs select their case here; the family part applies once discovery has
    // listed the families.
    let cases = catalogue::select(
        &all,
        profile,
        &catalogue::families::base_globs(&cli.common.cases),
    );
    if let Some(url) = &cli.url
        && cases.is_empty()
        && !http_cases.is_empty()
    {
        // Only the transport's own cases chosen: no discovery needed.
        return run_url(&cli, url, revisions, shell, &outputs, partial).await;
    }
    if cases.is_empty() {
        anyhow::bail!(
            "no case matches --case {:?} under --profile {}",
            cli.common.cases,
            profile.name()
        );
    }
    let cases = catalogue::with_crosscut(&cases, &all, profile);
    let target = Arc::new(match &cli.url {
        Some(url) => Target::endpoint(mcp_conformance::core::http::HttpTarget::parse(url)?),
        None => Target::prepare_with(
            &cli.command,
            drive_fake,
            cli.fake_claude.as_deref(),
            cli.fake_cursor_agent.as_deref(),
        )?,
    });
    let timeout = cli.common.timeout();
    let progress_to_stdout = cli::progress_to_stdout(&outputs);

    let transcript = mcp_conformance::core::transcript::Transcript::new();
    let watch = mcp_conformance::mcp::watch::Watch::new();
    let (discovery, client) = match Discovery::run(&target, timeout, transcript.clone(), &watch)
        .await
    {
        Ok(d) => d,
        Err(e) => {
            // Show what the server said: usually its stderr explains why it would not start.
            err_line("mcp-conformance: discovery session transcript:");
            for entry in transcript.entries() {
                err_line(&format!(
                    "  {:>6} ms {:<6} {}",
                    entry.ms,
                    entry.dir,
                    report::pretty::printable(&entry.line)
                ));
            }
            return Err(anyhow::Error::new(e).context("the server would not start or initialize"));
        }
    };
    // Closing its stdin first lets the discovery server exit on EOF instead of waiting out the
    // grace before SIGTERM. Its whole group is gone before any case starts (a server holding a
    // lock file must not meet its discovery twin).
    let handle = client.handle();
    drop(client);
    handle.shutdown().await;
    // GATE-LOAD-1: every case's deadlines allow the start this server was seen to take, as
    // slowed by `--jobs` servers starting at once on this machine's cores.
    let deadlines = Deadlines::for_this_machine(timeout, discovery.startup, cli.common.jobs());
    // Which revisions the server supports: each other known revision offered to a server of
    // its own, side by side (discovery's own offer counts as made), each allowed the start a
    // case's server is (fewer start at once than `--jobs`).
    let negotiated = discovery
        .protocol_version
        .as_deref()
        .and_then(Revision::parse);
    let support = revision_probe::probe(
        &target,
        Duration::from_millis(deadlines.effective_ms),
        &watch,
        revision_probe::Offer {
            offered: Revision::DEFAULT,
            // A server of the stateless era alone refused the discovery session's initialize.
            answered: if negotiated == Some(Revision::R2026_07_28) {
                revision_probe::Answer::Refused(format!(
                    "error {}",
                    mcp_conformance::mcp::discovery::UNSUPPORTED_PROTOCOL_VERSION
                ))
            } else {
                revision_probe::Answer::Date(discovery.protocol_version.clone().unwrap_or_default())
            },
        },
    )
    .await;
    let graded = revision::Graded::new(revisions, support.supported(), negotiated);
    let discovery = Arc::new(discovery);
    // C-PROV-3: the run lifecycle of every tool family the server lists.
    let cases = catalogue::families::expand(cases, &discovery.roles.families(), &cli.common.cases);
    // Each revision's cases on a connection of that revision; revision-independent ones once.
    let cases = catalogue::revisions::expand(cases, &graded, &cli.common.cases);
    if cases.is_empty() {
        anyhow::bail!(
            "no case matches --case {:?} under --profile {} (tool families: {})",
            cli.common.cases,
            profile.name(),
            discovery
                .roles
                .families()
                .iter()
                .map(|f| f.name.clone())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }

    let strict = cli.common.strict;
    let info = RunInfo {
        runner: "mcp-conformance",
        profile,
        command: target.spec.command_words(),
        builtin: target.builtin,
        peer_info: discovery.server_info.clone(),
        protocol_version: discovery.protocol_version.clone(),
        strict,
        drive_fake,
        baseline_file: shell.baseline.clone(),
        min_coverage: shell.min_coverage,
        started: shell.started,
        deadlines: Some(deadlines),
    };
    partial.start(
        info.clone(),
        cases
            .iter()
            .map(|c| c.id)
            .chain(http_cases.iter().map(|c| c.id))
            .collect(),
        all.iter()
            .map(|c| c.id)
            .chain(http_cases.iter().map(|c| c.id))
            .collect(),
        &baseline,
    );
    let (tx, printer) = cli::progress_printer(
        cases.len(),
        progress_to_stdout,
        profile,
        strict,
        &baseline,
        partial.clone(),
    );
    let starts = Arc::new(mcp_conformance::mcp::ctx::Starts::default());
    let runner = Arc::new(McpRunner {
        target: target.clone(),
        discovery: discovery.clone(),
        watch,
        starts: starts.clone(),
        settings: Settings {
            profile,
            drive_fake,
            allow_tool_calls: cli.allow_tool_calls,
        },
        support: Arc::new(support),
        base: graded.base,
    });
    let settings = schedule::Settings {
        timeout: deadlines.effective(),
        jobs: cli.common.jobs(),
    };
    let ran = schedule::run_all(runner, cases, settings, Some(tx)).await;
    let _ = printer.await;
    let transport = match &target.spec.endpoint {
        Some(endpoint) if !http_cases.is_empty() => {
            let (tx, printer) = cli::progress_printer(
                http_cases.len(),
                progress_to_stdout,
                profile,
                strict,
                &baseline,
                partial,
            );
            // A revision the probes found the server does not speak is skipped as such
            // without a session of it.
            let revisions: Vec<Revision> = graded
                .chosen
                .iter()
                .filter(|r| graded.supported.contains(r))
                .copied()
                .collect();
            let runner = Arc::new(mcp_conformance::mcp::http::HttpRunner {
                target: Arc::new(endpoint.clone()),
                revisions: Arc::new(revisions),
            });
            let ran = schedule::run_all(runner, http_cases.clone(), settings, Some(tx)).await;
            let _ = printer.await;
            ran
        }
        _ => Vec::new(),
    };
    // Many runner errors of one cause are said once, with the cause.
    if let Some(line) = mcp_conformance::mcp::ctx::starts_verdict(&starts, "mcp-conformance") {
        err_line(&line);
    }

    let results: Vec<_> = ran
        .iter()
        .map(|r| {
            let mut graded_case = verdict::grade(r, profile, strict, &baseline);
            graded_case.revision = Some(revision::of_case(r.case.id, graded.base).to_string());
            graded_case
        })
        .chain(
            transport
                .iter()
                .map(|r| mcp_conformance::mcp::http::run::graded(r, profile, strict, &baseline)),
        )
        .collect();
    // Family instances (`ID@FAMILY`) are cases too: a baseline may list them; so are the
    // revision instances (`ID@DATE`), whether this run selected them or not.
    let ran_ids: Vec<String> = results
        .iter()
        .map(|r| r.id.clone())
        .chain(
            baseline
                .ids
                .iter()
                .filter(|id| {
                    revision::of_instance(id).is_some() && catalogue::revisions::known_id(&all, id)
                })
                .cloned(),
        )
        .collect();
    let ids: std::collections::BTreeSet<&str> = all
        .iter()
        .map(|c| c.id)
        .chain(http_cases.iter().map(|c| c.id))
        .chain(ran_ids.iter().map(String::as_str))
        .collect();
    let report = verdict::assemble(info, results, &baseline, &ids);
    cli::write_reports(&report, &outputs, progress_to_stdout)?;
    Ok(ExitCode::from(report.exit_code))
}

/// The HTTP catalogue as `--list` shows it with `--url`.
fn listing_http(globs: &[String]) -> String {
    mcp_conformance::mcp::http::run::select(globs)
        .iter()
        .map(|c| {
            format!(
                "{}  {}  {}  {}\n",
                c.id,
                c.levels.name(),
                c.requirement,
                c.description
            )
        })
        .collect()
}

/// `--url` when only the transport's own cases are chosen: those against the endpoint.
async fn run_url(
    cli: &Cli,
    url: &str,
    revisions: Vec<Revision>,
    shell: &ErrorShell,
    outputs: &Outputs,
    partial: Partial<Profile>,
) -> anyhow::Result<ExitCode> {
    use mcp_conformance::mcp::http::run::{UrlRun, run};
    let target = mcp_conformance::core::http::HttpTarget::parse(url)?;
    let baseline = match &cli.common.baseline {
        Some(p) => Baseline::load(p)?,
        None => Baseline::default(),
    };
    let progress_to_stdout = cli::progress_to_stdout(outputs);
    let mut info = shell.info();
    info.command = vec![target.url()];
    let report = run(
        UrlRun {
            target,
            globs: &cli.common.cases,
            info,
            settings: schedule::Settings {
                timeout: cli.common.timeout(),
                jobs: cli.common.jobs(),
            },
            progress_to_stdout,
            revisions,
        },
        &baseline,
        partial,
    )
    .await
    .map_err(anyhow::Error::msg)?;
    cli::write_reports(&report, outputs, progress_to_stdout)?;
    Ok(ExitCode::from(report.exit_code))
}
