//! The outcome classifier (OUT-1, OUT-2, RUN-10): pure, so every rule is unit-tested.
//!
//! Success needs exactly one valid result event with `subtype: "success"` and `is_error: false`, a
//! `session_id`, a string `result`, exit status 0 and confirmed cleanup (OUT-1). Anything else
//! gets ONE primary error code, in OUT-2's order: `cancelled`, `timeout`, `duplicate_final`,
//! `oversized_final`, `malformed_final`, `missing_final`, `native_error`, `nonzero_exit`,
//! `cleanup_failed`, `cleanup_unconfirmed`. Failures before anything ran (`native_not_found`,
//! `version_mismatch`, `spawn_failed`) come right after cancellation and timeout. The state is
//! `uncertain` whenever cleanup is not confirmed, whatever the execution outcome (RUN-10).

use serde_json::Value;

use crate::ingest::{FINAL_MAX, FinalFault, Finals, LINE_MAX};
use crate::jsonout::{self, Refusal, TEXT_KEPT_MAX};
use crate::native::{Cleanup, NativeError, NativeSource};
use crate::provider::Dialect;
use crate::to_json;
use crate::tools::{Trip, TripSummary};
use crate::{ErrorCode, RunState, ToolError};
use cmk_supervisor::ExitStatus;

/// Everything the classifier needs about a finished run.
#[derive(Debug)]
pub struct Facts<'a> {
    /// A cancel took effect while the native side could still run (RUN-6, T7, T8).
    pub cancelled: bool,
    /// The deadline passed before the leader exited (BND-4).
    pub timed_out: bool,
    /// The timeout, for the message.
    pub timeout_s: u64,
    /// A failure before the native run started (version check, spawn).
    pub start_error: Option<ToolError>,
    /// Result events seen.
    pub finals: &'a Finals,
    /// The native error carried by the stream (final, else assistant).
    pub stream_native_error: Option<NativeError>,
    /// The last stderr line, used as `native_error` (source `stderr`) when the process failed
    /// without saying why on stdout.
    pub stderr_last_line: Option<String>,
    /// How the group leader ended, when known.
    pub exit: Option<ExitStatus>,
    /// The cleanup outcome.
    pub cleanup: &'a Cleanup,
    /// The provider's dialect: how a final carries a native error, and whether the exit status
    /// is part of success (PROV-1).
    pub dialect: &'a dyn Dialect,
    /// A failure a protocol provider reported without a final (ACP-6), ranked right after a
    /// start failure.
    pub protocol_error: Option<ToolError>,
    /// LOOP-3: the loop guard tripped and stopped the run (ranked right after a cancel).
    pub loop_trip: Option<&'a Trip>,
    /// JSONOUT-1: the run's `json_schema`; a run that otherwise succeeds must deliver a valid
    /// structured object.
    pub json_schema: Option<&'a Value>,
}

/// The classification.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The settled state.
    pub state: RunState,
    /// The primary error (`None` only for `succeeded`).
    pub error: Option<ToolError>,
    /// `native_error` of the result.
    pub native_error: Option<NativeError>,
    /// JSONOUT-3: the validated structured object.
    pub structured: Option<Value>,
}

/// Applies OUT-1 / OUT-2 / RUN-10 and JSONOUT-3, judging the structured output inline (the
/// driver judges it off the runtime instead: [`classify_execution`], [`structured_due`],
/// [`apply_structured`]).
#[must_use]
pub fn classify(f: &Facts<'_>) -> Outcome {
    let mut outcome = classify_execution(f);
    if let Some(due) = structured_due(f, &outcome) {
        let verdict = jsonout::judge(due.schema, due.candidate);
        apply_structured(&mut outcome, verdict, f.dialect, &due.final_event);
    }
    outcome
}

/// A structured output to judge (C-JSONOUT-1: only for a run that otherwise succeeds).
#[derive(Debug)]
pub struct StructuredDue<'a> {
    /// The run's `json_schema`.
    pub schema: &'a Value,
    /// What the final offers.
    pub candidate: jsonout::Candidate,
    /// The final, for the error's `text`.
    pub final_event: Value,
}

/// OUT-1 / OUT-2 / RUN-10 without JSONOUT-3: `structured` is never set here.
#[must_use]
pub fn classify_execution(f: &Facts<'_>) -> Outcome {
    let exited_nonzero = f.exit.is_some_and(|e| e.code != Some(0));
    let mut native_error = f.stream_native_error.clone();
    // A protocol provider's client ends the process after every turn, so its exit says nothing
    // of the run unless no final came (ACP-6, ACP-7).
    let exit_speaks = f.dialect.exit_decides() || f.finals.count == 0;
    if native_error.is_none()
        && exit_speaks
        && exited_nonzero
        && let Some(line) = &f.stderr_last_line
    {
        native_error = Some(NativeError {
            message: line.clone(),
            source: NativeSource::Stderr,
        });
    }
    let error = primary_error(f);
    Outcome {
        state: state_of(f.cleanup.confirmed, error.as_ref()),
        error,
        native_error,
        structured: None,
    }
}

/// What is left to judge of `outcome` (JSONOUT-1, C-JSONOUT-1), if anything.
#[must_use]
pub fn structured_due<'a>(f: &Facts<'a>, outcome: &Outcome) -> Option<StructuredDue<'a>> {
    if outcome.error.is_some() {
        return None;
    }
    let (schema, final_event) = (f.json_schema?, f.finals.single_valid()?);
    Some(StructuredDue {
        schema,
        candidate: f.dialect.structured_candidate(final_event),
        final_event: final_event.clone(),
    })
}

/// Applies a judged structured output to an outcome that otherwise succeeded (JSONOUT-3).
pub fn apply_structured(
    outcome: &mut Outcome,
    verdict: Result<Value, Refusal>,
    dialect: &dyn Dialect,
    final_event: &Value,
) {
    match verdict {
        Ok(v) => outcome.structured = Some(v),
        Err(refusal) => {
            let e = structured_error(&refusal, dialect, final_event);
            outcome.state = match outcome.state {
                RunState::Uncertain => RunState::Uncertain,
                _ => state_of(true, Some(&e)),
            };
            outcome.error = Some(e);
        }
    }
}

/// RUN-10: `uncertain` without confirmed cleanup, whatever the error.
fn state_of(cleanup_confirmed: bool, error: Option<&ToolError>) -> RunState {
    if !cleanup_confirmed {
        return RunState::Uncertain;
    }
    match error.map(|e| e.code) {
        None => RunState::Succeeded,
        Some(ErrorCode::Cancelled) => RunState::Cancelled,
        Some(ErrorCode::Timeout) => RunState::TimedOut,
        Some(_) => RunState::Failed,
    }
}

/// JSONOUT-3: `invalid_structured_output` with the text kept and the first schema error's
/// pointer.
fn structured_error(refusal: &Refusal, dialect: &dyn Dialect, final_event: &Value) -> ToolError {
    let text = match dialect.structured_candidate(final_event) {
        jsonout::Candidate::Text(t) => t,
        jsonout::Candidate::Value(v) => v.to_string(),
        jsonout::Candidate::Missing => final_event
            .get("result")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
    };
    let mut e = ToolError::new(ErrorCode::InvalidStructuredOutput, refusal.to_string())
        .with("reason", refusal.reason().into())
        .with(
            "text",
            crate::native::bounded_to(text, TEXT_KEPT_MAX).into(),
        );
    if let Refusal::SchemaInvalid { pointer, .. } = refusal {
        e = e.with("pointer", pointer.clone().into());
    }
    e
}

fn primary_error(f: &Facts<'_>) -> Option<ToolError> {
    if f.cancelled {
        return Some(ToolError::new(
            ErrorCode::Cancelled,
            "the run was cancelled",
        ));
    }
    if let Some(t) = f.loop_trip {
        // LOOP-3: named with its fingerprint, count and calls.
        let v = to_json(&TripSummary::of(t));
        let mut e = ToolError::new(ErrorCode::LoopDetected, t.describe());
        if let Value::Object(m) = v {
            for (k, x) in m {
                e = e.with(&k, x);
            }
        }
        return Some(e);
    }
    if f.timed_out {
        return Some(ToolError::new(
            ErrorCode::Timeout,
            format!(
                "the native process did not end within timeout_s ({} s)",
                f.timeout_s
            ),
        ));
    }
    if let Some(e) = &f.start_error {
        return Some(e.clone());
    }
    if let Some(e) = &f.protocol_error {
        return Some(e.clone());
    }
    let finals = f.finals;
    if finals.count > 1 {
        return Some(ToolError::new(
            ErrorCode::DuplicateFinal,
            format!("the native process wrote {} result events", finals.count),
        ));
    }
    match &finals.first_fault {
        Some(FinalFault::Oversized(len)) => {
            let bound = if *len > LINE_MAX as u64 {
                format!("over the {LINE_MAX}-byte line bound")
            } else {
                format!("over the {FINAL_MAX}-byte final bound")
            };
            return Some(ToolError::new(
                ErrorCode::OversizedFinal,
                format!("the result event is {len} bytes, {bound}"),
            ));
        }
        Some(FinalFault::Malformed(why)) => {
            return Some(ToolError::new(ErrorCode::MalformedFinal, why.clone()));
        }
        None => {}
    }
    let Some(final_event) = finals.single_valid() else {
        return Some(ToolError::new(
            ErrorCode::MissingFinal,
            format!(
                "the native process ended without a result event ({})",
                describe_exit(f.exit)
            ),
        ));
    };
    if let Some(ne) = f.dialect.final_native_error(final_event) {
        let subtype = final_event
            .get("subtype")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("");
        // A `success` subtype with `is_error: true` (not logged in, an API error) is no
        // failure kind: showing it would read as the cause.
        let message = if subtype.is_empty() || subtype == "success" {
            format!("the native run failed: {}", ne.message)
        } else {
            format!("the native run failed ({subtype}): {}", ne.message)
        };
        return Some(ToolError::new(ErrorCode::NativeError, message));
    }
    // PROV-1: only where the exit settles execution is its status part of success (OUT-1).
    let exit = if f.dialect.exit_decides() {
        f.exit
    } else {
        Some(ExitStatus {
            code: Some(0),
            signal: None,
        })
    };
    match exit {
        Some(ExitStatus { code: Some(0), .. }) => {}
        Some(exit) => {
            return Some(ToolError::new(
                ErrorCode::NonzeroExit,
                format!("the native process {}", describe_exit(Some(exit))),
            ));
        }
        // Unknown exit with confirmed cleanup: still not the exit status 0 OUT-1 asks for.
        None if f.cleanup.confirmed => {
            return Some(ToolError::new(
                ErrorCode::NonzeroExit,
                "the native exit status is unknown",
            ));
        }
        None => {}
    }
    if !f.cleanup.confirmed {
        let detail = f.cleanup.error_text().unwrap_or_default();
        let code = if f.cleanup.survivors.is_empty() {
            ErrorCode::CleanupUnconfirmed
        } else {
            ErrorCode::CleanupFailed
        };
        return Some(ToolError::new(code, detail));
    }
    None
}

/// "exited with code 1", "was killed by signal 9", "exit status unknown".
#[must_use]
pub fn describe_exit(exit: Option<ExitStatus>) -> String {
    match exit {
        Some(ExitStatus { code: Some(c), .. }) => format!("exited with code {c}"),
        Some(ExitStatus {
            signal: Some(s), ..
        }) => format!("was killed by signal {s}"),
        _ => "exit status unknown".into(),
    }
}
