//! What both runner binaries (`mcp-conformance`, `acp-conformance`) share around the catalogue:
//! the shared options ([`CommonArgs`], flattened into each binary's parser, which adds only its
//! own flags), writing to a stdout that may be closed, the `--format`/`--out` routing of reports,
//! Ctrl-C and SIGTERM, and writing the finished reports. Exit statuses are 0, 1, 2 and 130 only.

use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use anyhow::Context as _;

use crate::core::baseline::Baseline;
use crate::core::case::Gate;
use crate::core::report::{self, CaseResult, ProfileName, Report};
use crate::core::schedule::Ran;
use crate::core::verdict::RunInfo;

/// The options both runners take, with each runner's defaults for `--timeout-ms` and `--jobs`
/// (`#[command(flatten)] common: CommonArgs<10_000, 8>`). A binary whose help says more about
/// one of them changes it with `#[command(mut_arg("list", …))]`.
#[derive(Debug, Clone, clap::Args)]
pub struct CommonArgs<const TIMEOUT_MS: u64, const JOBS: u64> {
    /// Report format, repeatable: pretty, json, junit; `FORMAT=FILE` writes it to FILE.
    #[arg(long = "format", value_name = "FORMAT[=FILE]")]
    pub formats: Vec<String>,
    /// Output file of the --format in the same position (repeatable).
    #[arg(long = "out", value_name = "FILE")]
    pub outs: Vec<PathBuf>,
    /// SHOULD deviations fail instead of warn.
    #[arg(long)]
    pub strict: bool,
    /// Expected failures, one case id per line (`#` comments). Strict both ways: an unlisted
    /// failure fails, and a listed case that passes fails too.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Select cases by id glob (`*` within a segment, `**` across; a bare prefix selects its group).
    #[arg(long = "case", value_name = "GLOB")]
    pub cases: Vec<String>,
    /// Print the catalogue and exit without running anything.
    #[arg(long)]
    pub list: bool,
    /// Base per-case timeout in milliseconds (some cases use a multiple).
    #[arg(long, value_name = "MS", default_value_t = TIMEOUT_MS,
          value_parser = clap::value_parser!(u64).range(100..))]
    pub timeout_ms: u64,
    /// Cases run at once.
    #[arg(long, value_name = "N", default_value_t = JOBS,
          value_parser = clap::value_parser!(u64).range(1..=64))]
    pub jobs: u64,
    /// Fail the gate (exit 1) when less than PCT percent (0 to 100) of the MUST and SHOULD
    /// cases that apply were graded (pass, fail, warn or info; a skip for want of a safe tool,
    /// an account or a precondition is not graded).
    #[arg(long, value_name = "PCT", allow_negative_numbers = true,
          value_parser = crate::core::coverage::parse_percent)]
    pub min_coverage: Option<f64>,
}

impl<const TIMEOUT_MS: u64, const JOBS: u64> CommonArgs<TIMEOUT_MS, JOBS> {
    /// Where the reports go (`--format` / `--out`, see [`outputs`]).
    pub fn outputs(&self) -> Result<Outputs, String> {
        outputs(&self.formats, &self.outs)
    }

    /// The base per-case timeout.
    #[must_use]
    pub fn timeout(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.timeout_ms)
    }

    /// Cases at once.
    #[must_use]
    pub fn jobs(&self) -> usize {
        usize::try_from(self.jobs).unwrap_or(1)
    }
}

/// A report format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// For people.
    Pretty,
    /// For machines.
    Json,
    /// For CI dashboards.
    Junit,
}

/// Where each requested report goes: `None` is stdout.
pub type Outputs = Vec<(Format, Option<PathBuf>)>;

/// Writes `text` to stdout, ignoring errors: a closed stdout (`| head`, a pager quit) must not
/// turn a verdict into a panic and exit status 101.
pub fn out(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush());
}

/// Writes one line to stderr, ignoring errors (as [`out`]).
pub fn err_line(text: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

/// Parses the repeatable `--format FORMAT[=FILE]` and `--out FILE` options (pretty by default):
/// at most one report may go to stdout.
pub fn outputs(formats: &[String], outs: &[PathBuf]) -> Result<Outputs, String> {
    let mut out = Vec::new();
    let specs: Vec<String> = if formats.is_empty() {
        vec!["pretty".into()]
    } else {
        formats.to_vec()
    };
    if outs.len() > specs.len() {
        return Err("more --out than --format".into());
    }
    for (i, spec) in specs.iter().enumerate() {
        let (name, file) = match spec.split_once('=') {
            Some((n, f)) => (n, Some(PathBuf::from(f))),
            None => (spec.as_str(), outs.get(i).cloned()),
        };
        let format = match name {
            "pretty" => Format::Pretty,
            "json" => Format::Json,
            "junit" => Format::Junit,
            other => return Err(format!("unknown --format {other:?} (pretty, json, junit)")),
        };
        out.push((format, file));
    }
    if out.iter().filter(|(_, f)| f.is_none()).count() > 1 {
        return Err(
            "only one report can go to stdout; give the others --out FILE or FORMAT=FILE".into(),
        );
    }
    Ok(out)
}

/// Whether the pretty report goes to stdout (then progress lines go there too).
#[must_use]
pub fn progress_to_stdout(outputs: &Outputs) -> bool {
    outputs
        .iter()
        .any(|(f, o)| *f == Format::Pretty && o.is_none())
}

/// Resolves on Ctrl-C or SIGTERM of the runner.
pub async fn interrupted() {
    let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
        Ok(s) => s,
        Err(_) => {
            let _ = tokio::signal::ctrl_c().await;
            return;
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
}

/// Writes every requested report; when none went to stdout, closes stdout with the summary
/// lines for logs.
pub fn write_reports<P: ProfileName>(
    report: &Report<P>,
    outputs: &Outputs,
    progress_to_stdout: bool,
) -> anyhow::Result<()> {
    for (format, file) in outputs {
        let text = match format {
            Format::Pretty => report::pretty::render(report),
            Format::Json => report::json::render(report),
            Format::Junit => report::junit::render(report),
        };
        match file {
            Some(path) => std::fs::write(path, text)
                .with_context(|| format!("cannot write {}", path.display()))?,
            None => {
                if progress_to_stdout {
                    out("\n");
                }
                // A closed stdout (a pager quit) is not the peer's failure.
                out(&text);
            }
        }
    }
    if !outputs.iter().any(|(_, f)| f.is_none()) {
        let coverage = report
            .coverage
            .as_ref()
            .map(|c| format!("{}\n", c.line()))
            .unwrap_or_default();
        out(&format!(
            "{coverage}{}\n{}\n",
            report.summary.detail_line(),
            report.summary.last_line()
        ));
    }
    if report.exit_code == 2
        && let Some(note) = crate::core::verdict::exit_note(&report.runner.name, &report.summary)
    {
        err_line(&note);
    }
    // An interrupted run (130) graded only what finished: its coverage is no verdict.
    if report.exit_code != 130
        && let Some(note) = report
            .coverage
            .as_ref()
            .and_then(|c| c.shortfall_note(&report.runner.name))
    {
        err_line(&note);
    }
    Ok(())
}

/// Writes the JSON and JUnit reports of a run that ended in a runner error (`runner` prefixes
/// messages), so a CI job reading either still gets one, saying why there is no verdict.
pub fn write_error_reports<P: ProfileName>(runner: &str, report: &Report<P>, outputs: &Outputs) {
    for (format, file) in outputs {
        let text = match format {
            Format::Json => report::json::render(report),
            Format::Junit => report::junit::render(report),
            Format::Pretty => continue,
        };
        match file {
            Some(path) => {
                if let Err(e) = std::fs::write(path, &text) {
                    err_line(&format!("{runner}: cannot write {}: {e}", path.display()));
                }
            }
            None => out(&text),
        }
    }
}

/// The verdicts of a run as they arrive, so that an interrupted run (exit 130) still writes
/// its reports with the verdicts reached so far.
pub struct Partial<P> {
    inner: Arc<Mutex<PartialRun<P>>>,
}

impl<P> Clone for Partial<P> {
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone(),
        }
    }
}

struct PartialRun<P> {
    /// What the report says of the run, once known (after discovery).
    info: Option<RunInfo<P>>,
    /// The selected cases' ids, in report order.
    order: Vec<&'static str>,
    /// Every id the gate knows (for the baseline).
    known: Vec<&'static str>,
    baseline: Baseline,
    graded: Vec<CaseResult>,
}

impl<P: ProfileName> Default for Partial<P> {
    fn default() -> Self {
        Self {
            inner: Arc::new(Mutex::new(PartialRun {
                info: None,
                order: Vec::new(),
                known: Vec::new(),
                baseline: Baseline::default(),
                graded: Vec::new(),
            })),
        }
    }
}

impl<P: ProfileName> Partial<P> {
    fn lock(&self) -> std::sync::MutexGuard<'_, PartialRun<P>> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The run is under way: what its report says of it, the selected cases' ids in report
    /// order, every id the gate knows, and the baseline.
    pub fn start(
        &self,
        info: RunInfo<P>,
        order: Vec<&'static str>,
        known: Vec<&'static str>,
        baseline: &Baseline,
    ) {
        let mut run = self.lock();
        run.info = Some(info);
        run.order = order;
        run.known = known;
        run.baseline = baseline.clone();
    }

    fn push(&self, graded: CaseResult) {
        self.lock().graded.push(graded);
    }

    /// The report of the run interrupted now: the verdicts reached, in report order (`before`:
    /// what the report says of a run interrupted before it got under way).
    pub fn interrupted(&self, before: RunInfo<P>) -> Report<P> {
        let mut run = self.lock();
        let info = run.info.take().unwrap_or(before);
        let mut graded = std::mem::take(&mut run.graded);
        let order = &run.order;
        graded.sort_by_key(|c| order.iter().position(|id| *id == c.id));
        let known: BTreeSet<&str> = run.known.iter().copied().collect();
        crate::core::verdict::interrupted_report(info, graded, order.len(), &run.baseline, &known)
    }
}

/// The progress printer of a run: each finished case, graded, as one line on stdout (when
/// `to_stdout`) or stderr, and kept in `partial`. Send every [`Ran`] to the returned sender;
/// the task ends when the sender is dropped (the scheduler drops it when the last case is in).
pub fn progress_printer<G: Gate>(
    total: usize,
    to_stdout: bool,
    profile: G::Profile,
    strict: bool,
    baseline: &Baseline,
    partial: Partial<G::Profile>,
) -> (
    tokio::sync::mpsc::UnboundedSender<Ran<G>>,
    tokio::task::JoinHandle<()>,
) {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Ran<G>>();
    let baseline = baseline.clone();
    let printer = tokio::spawn(async move {
        let mut done = 0;
        while let Some(ran) = rx.recv().await {
            done += 1;
            let graded = crate::core::verdict::grade(&ran, profile, strict, &baseline);
            let line = report::pretty::progress_line(done, total, &graded);
            if to_stdout {
                out(&format!("{line}\n"));
            } else {
                err_line(&line);
            }
            partial.push(graded);
        }
    });
    (tx, printer)
}

/// Writes the reports of an interrupted run (exit 130) to every output, saying so on stderr.
pub fn write_interrupted<P: ProfileName>(report: &Report<P>, outputs: &Outputs) {
    if let Err(e) = write_reports(report, outputs, false) {
        err_line(&format!("{}: {e:#}", report.runner.name));
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::CommonArgs;

    #[derive(Debug, Parser)]
    struct Runner {
        #[command(flatten)]
        common: CommonArgs<20_000, 2>,
    }

    #[test]
    fn each_runner_keeps_its_own_defaults_and_the_shared_bounds() {
        let r = Runner::try_parse_from(["r"]).expect("parses");
        assert_eq!((r.common.timeout_ms, r.common.jobs), (20_000, 2));
        assert!(r.common.outputs().is_ok() && !r.common.list && !r.common.strict);
        let r = Runner::try_parse_from([
            "r",
            "--case",
            "a/*",
            "--case",
            "b",
            "--jobs",
            "3",
            "--format",
            "json=x.json",
        ])
        .expect("parses");
        assert_eq!(r.common.cases, ["a/*", "b"]);
        assert_eq!(r.common.jobs(), 3);
        assert!(Runner::try_parse_from(["r", "--jobs", "0"]).is_err());
        assert!(Runner::try_parse_from(["r", "--timeout-ms", "99"]).is_err());
    }
}
