//! Reports of a replay (`run`) or a served session (`serve`): a human text, JSON (the
//! [`Report`] serialised) and JUnit XML ([`junit`]), chosen as the gates choose theirs:
//! `--format pretty|json|junit[=FILE]`, repeatable.

pub mod junit;

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use crate::compare::Difference;

/// The outcome of one `run` or `serve`.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// `run` or `serve`.
    pub command: String,
    /// The recording replayed.
    pub recording: String,
    /// `same`, `different`, or `error` (could not run).
    pub status: Status,
    /// Every position compared (a JUnit test case each).
    pub positions: Vec<String>,
    /// The positions that differ, each with its unified diff.
    pub differences: Vec<Difference>,
    /// How often each normalisation rule fired, by id.
    pub rules_fired: BTreeMap<String, usize>,
    /// Waits that ran out and similar remarks.
    pub notes: Vec<String>,
    /// Why it could not run (status `error`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The peer's stderr tail, when it ran one.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub stderr: String,
    /// Wall time.
    pub duration_ms: u64,
}

/// The verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// No difference: exit 0.
    Same,
    /// At least one difference: exit 1.
    Different,
    /// The tool could not do its job: exit 2.
    Error,
}

impl Report {
    /// The process exit code: 0 same, 1 different, 2 could not run.
    #[must_use]
    pub fn exit_code(&self) -> u8 {
        match self.status {
            Status::Same => 0,
            Status::Different => 1,
            Status::Error => 2,
        }
    }

    /// The JSON report.
    #[must_use]
    pub fn json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }

    /// The human report.
    #[must_use]
    pub fn pretty(&self) -> String {
        let mut out = String::new();
        let verdict = match self.status {
            Status::Same => "same as the recording".to_owned(),
            Status::Different => format!("{} difference(s)", self.differences.len()),
            Status::Error => "could not run".to_owned(),
        };
        let _ = writeln!(
            out,
            "mcp-replay {} {}: {verdict}",
            self.command, self.recording
        );
        if let Some(e) = &self.error {
            let _ = writeln!(out, "error: {e}");
        }
        for d in &self.differences {
            let _ = writeln!(out, "\ndifference at {}:\n{}", d.position, d.diff);
        }
        for n in &self.notes {
            let _ = writeln!(out, "note: {n}");
        }
        if !self.rules_fired.is_empty() {
            let fired: Vec<String> = self
                .rules_fired
                .iter()
                .map(|(k, v)| format!("{k} ×{v}"))
                .collect();
            let _ = writeln!(out, "rules fired: {}", fired.join(", "));
        }
        if self.status != Status::Same && !self.stderr.trim().is_empty() {
            let _ = writeln!(out, "peer stderr (tail):\n{}", self.stderr.trim_end());
        }
        out
    }
}
