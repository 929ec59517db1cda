//! `mcp-conformance --url`: the HTTP cases selected, run on the one scheduler against the
//! endpoint, graded and assembled into the same report as a stdio run.

use std::collections::BTreeSet;
use std::sync::Arc;

use super::{HttpRunner, cases, rev_2025_11_25};
use crate::core::baseline::Baseline;
use crate::core::cli::{self, Partial};
use crate::core::http::HttpTarget;
use crate::core::report::Report;
use crate::core::schedule;
use crate::core::verdict::{self, RunInfo};
use crate::mcp::profile::Profile;
use crate::mcp::revision::Revision;

/// What a `--url` run is given by the command line.
#[derive(Debug)]
pub struct UrlRun<'a> {
    /// The endpoint.
    pub target: HttpTarget,
    /// `--case` globs (empty: all).
    pub globs: &'a [String],
    /// The run's description in the report (profile, strict, baseline, start).
    pub info: RunInfo<Profile>,
    /// The scheduler's settings.
    pub settings: schedule::Settings,
    /// Whether progress goes to stdout.
    pub progress_to_stdout: bool,
    /// The revisions chosen (`--revision`; every known one when none).
    pub revisions: Vec<Revision>,
}

/// Every HTTP case: the transport's rules on 2025-06-18, then 2025-11-25's.
#[must_use]
pub fn all() -> Vec<super::Case> {
    cases::CASES
        .iter()
        .chain(rev_2025_11_25::CASES)
        .copied()
        .collect()
}

/// The HTTP cases `globs` select (all when empty).
#[must_use]
pub fn select(globs: &[String]) -> Vec<super::Case> {
    all()
        .into_iter()
        .filter(|c| {
            globs.is_empty()
                || globs
                    .iter()
                    .any(|g| crate::core::select::glob_match(g, c.id))
        })
        .collect()
}

/// Runs the selected HTTP cases; `Err` when the selection is empty (a usage error).
pub async fn run(
    run: UrlRun<'_>,
    baseline: &Baseline,
    partial: Partial<Profile>,
) -> Result<Report<Profile>, String> {
    let chosen = select(run.globs);
    if chosen.is_empty() {
        return Err(format!(
            "no Streamable HTTP case matches --case {:?}",
            run.globs
        ));
    }
    let ids: BTreeSet<&str> = all().iter().map(|c| c.id).collect();
    partial.start(
        run.info.clone(),
        chosen.iter().map(|c| c.id).collect(),
        ids.iter().copied().collect(),
        baseline,
    );
    let profile = run.info.profile;
    let strict = run.info.strict;
    let (tx, printer) = cli::progress_printer(
        chosen.len(),
        run.progress_to_stdout,
        profile,
        strict,
        baseline,
        partial,
    );
    let runner = Arc::new(HttpRunner {
        target: Arc::new(run.target),
        revisions: Arc::new(run.revisions),
    });
    let ran = schedule::run_all(runner, chosen, run.settings, Some(tx)).await;
    let _ = printer.await;
    let results = ran
        .iter()
        .map(|r| graded(r, profile, strict, baseline))
        .collect();
    Ok(verdict::assemble(run.info, results, baseline, &ids))
}

/// A finished HTTP case graded, with the revision it was graded on.
#[must_use]
pub fn graded(
    ran: &schedule::Ran<super::McpHttp>,
    profile: Profile,
    strict: bool,
    baseline: &Baseline,
) -> crate::core::report::CaseResult {
    let mut graded = verdict::grade(ran, profile, strict, baseline);
    graded.revision = Some(super::revision_of(ran.case.id).to_string());
    graded
}
