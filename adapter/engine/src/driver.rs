//! One run's task: version check, spawn, streaming, termination and settling (RUN-10, NAT-2,
//! BND-4, RUN-6, SUP-3, SUP-4).
//!
//! Every wait is bounded: the version check by its own limit and the run's deadline, execution by
//! the deadline (then SIGTERM, grace, SIGKILL through the supervisor), the exit and the cleanup
//! report after a termination by [`CLEANUP_WAIT`], and stdout after the leader was reaped by
//! [`STDOUT_DRAIN`] (an escaped descendant may hold the pipe open, SUP-4).

use std::sync::Arc;
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::time::{Instant, sleep_until};

use crate::outcome::{Cleanup, Facts, classify};
use crate::provider::{
    BoxFuture, Completion, NativeProcess, NativeReader, PreflightError, Provider, RunSpec,
};
use crate::record::{Dir, Recorder};
use crate::table::{Run, Table};
use crate::tools::Trip;
use crate::{RunState, ToolError};
use cmk_supervisor::ExitStatus;

/// After a termination, how long the exit and the cleanup report may take beyond the grace.
pub const CLEANUP_WAIT: Duration = Duration::from_secs(10);
/// After the cleanup report, how long stdout/stderr may still be read before settling (SUP-4).
pub const STDOUT_DRAIN: Duration = Duration::from_secs(1);
/// Read size for native output.
const READ_CHUNK: usize = 256 * 1024;

/// What execution produced, for the classifier.
#[derive(Debug, Default)]
struct Exec {
    cancelled: bool,
    timed_out: bool,
    start_error: Option<ToolError>,
    exit: Option<ExitStatus>,
    cleanup: Option<Cleanup>,
    /// A protocol provider's failure without a final (ACP-6).
    protocol_error: Option<ToolError>,
    /// LOOP-3: the loop guard tripped.
    loop_trip: Option<Trip>,
}

/// Runs `spec` to the end and settles the run.
pub async fn drive(
    table: Arc<Table>,
    provider: Arc<dyn Provider>,
    run: Arc<Run>,
    spec: RunSpec,
    recorder: Option<Recorder>,
) {
    let deadline = Instant::now() + spec.timeout;
    let exec = execute(&table, provider.as_ref(), &run, &spec, deadline).await;
    if let (Some(r), Some(exit)) = (&recorder, exec.exit) {
        r.extra(
            Dir::N2a,
            "exit",
            serde_json::json!({"code": exit.code, "signal": exit.signal}),
        );
    }
    let cleanup = exec
        .cleanup
        .clone()
        .unwrap_or_else(Cleanup::nothing_started);
    let dialect = provider.dialect();
    let outcome = {
        let mut d = run.data();
        let outcome = classify(&Facts {
            cancelled: exec.cancelled,
            timed_out: exec.timed_out,
            timeout_s: run.timeout_s,
            start_error: exec.start_error.clone(),
            finals: &d.ingest.sink.finals,
            stream_native_error: d.ingest.stream_native_error(),
            stderr_last_line: d.ingest.stderr_last_line(),
            exit: exec.exit,
            cleanup: &cleanup,
            dialect: dialect.as_ref(),
            protocol_error: exec.protocol_error.clone(),
            loop_trip: exec.loop_trip.as_ref(),
            json_schema: spec.json_schema.as_ref(),
        });
        d.exit = exec.exit;
        d.cleanup = Some(cleanup);
        d.outcome = Some(outcome.clone());
        outcome
    };
    table.advance(&run.run_id, outcome.state);
}

/// Settles a run whose driver died without settling it: cleanup is not confirmed, so the state
/// is `uncertain` (RUN-10) with `cleanup_unconfirmed` as the cause.
pub fn abandon(table: &Table, run: &Run, why: &str) {
    let cleanup = Cleanup {
        confirmed: false,
        survivors: Vec::new(),
        error: Some(why.to_owned()),
    };
    {
        let mut d = run.data();
        d.outcome = Some(crate::outcome::Outcome {
            state: RunState::Uncertain,
            error: Some(ToolError::new(
                crate::ErrorCode::CleanupUnconfirmed,
                format!("{why}; cleanup was not acknowledged"),
            )),
            native_error: d.ingest.stream_native_error(),
            structured: None,
        });
        d.cleanup = Some(cleanup);
    }
    table.advance(&run.run_id, RunState::Uncertain);
}

async fn execute(
    table: &Table,
    provider: &dyn Provider,
    run: &Run,
    spec: &RunSpec,
    deadline: Instant,
) -> Exec {
    let mut cancel = run.cancel.subscribe();
    let mut exec = Exec::default();

    // pending: NAT-2. Not interrupted by a cancel (it is short and bounded, and ending it here
    // keeps the check's own cleanup in one place); the cancel is honoured right after.
    let mut verdict = provider.preflight(deadline).await;
    while let Err(PreflightError::Uncleaned {
        verdict: v,
        cleanup,
    }) = verdict
    {
        // RUN-10: the check's group was not confirmed gone; nothing more runs. Its verdict
        // still names the primary cause; a check that passed leaves the cleanup as the cause.
        verdict = match *v {
            Ok(_) => Err(PreflightError::Refused(ToolError::new(
                if cleanup.survivors.is_empty() {
                    crate::ErrorCode::CleanupUnconfirmed
                } else {
                    crate::ErrorCode::CleanupFailed
                },
                format!(
                    "the version check's processes were not confirmed gone: {}",
                    cleanup.error_text().unwrap_or_default()
                ),
            ))),
            other => other,
        };
        exec.cleanup.get_or_insert(cleanup);
    }
    let checked = match verdict {
        Ok(c) => c,
        Err(PreflightError::Refused(e)) => {
            exec.cancelled = *cancel.borrow_and_update();
            exec.start_error = Some(e);
            return exec;
        }
        Err(PreflightError::DeadlinePassed) => {
            exec.cancelled = *cancel.borrow_and_update();
            exec.timed_out = true;
            return exec;
        }
        // Unwrapped by the loop above.
        Err(PreflightError::Uncleaned { .. }) => return exec,
    };
    if *cancel.borrow_and_update() {
        exec.cancelled = true;
        // The no-go for a supervisor waiting to start the run (C-SUP-1): it exits, reaped here.
        if let Some(waiting) = checked.supervisor.take() {
            waiting.release().await;
        }
        return exec;
    }

    table.advance(&run.run_id, RunState::Starting);
    let mut proc = match provider.spawn(&checked, spec).await {
        Ok(p) => p,
        Err(e) => {
            exec.cancelled = *cancel.borrow_and_update();
            exec.start_error = Some(e);
            return exec;
        }
    };
    table.advance(&run.run_id, RunState::Running);
    let grace = provider.term_grace();
    let mut completion: Option<BoxFuture<'static, Completion>> = proc.take_completion();

    let mut stdout: Option<NativeReader> = proc.take_stdout();
    let mut stderr: Option<NativeReader> = proc.take_stderr();
    let mut out_buf = vec![0u8; READ_CHUNK];
    let mut err_buf = vec![0u8; 8 * 1024];
    let mut exit_known = false;
    let mut terminated = false;
    let mut cancel_gone = false;
    let mut cleanup_by: Option<Instant> = None;
    let mut drain_by: Option<Instant> = None;
    let far = Instant::now() + Duration::from_secs(365 * 24 * 3600);
    // Timers live across iterations (re-armed with `reset`), so a busy stream does not register
    // and cancel three timers per read.
    let deadline_timer = sleep_until(deadline);
    let cleanup_timer = sleep_until(far);
    let drain_timer = sleep_until(far);
    tokio::pin!(deadline_timer, cleanup_timer, drain_timer);

    if *cancel.borrow_and_update() {
        exec.cancelled = true;
        terminated = true;
        proc.interrupt();
        cleanup_by = Some(Instant::now() + grace + CLEANUP_WAIT);
    }

    let mut armed_cleanup = None;
    let mut armed_drain = None;
    loop {
        // Settled once the group is gone, both streams are read to their end and a protocol
        // provider's completion is in (ACP-6: its report of the turn, session id included,
        // may come after the cleanup report); the drain bound (SUP-4) ends the wait otherwise.
        if exec.cleanup.is_some() && stdout.is_none() && stderr.is_none() && completion.is_none() {
            break;
        }
        if cleanup_by != armed_cleanup {
            armed_cleanup = cleanup_by;
            cleanup_timer.as_mut().reset(cleanup_by.unwrap_or(far));
        }
        if drain_by != armed_drain {
            armed_drain = drain_by;
            drain_timer.as_mut().reset(drain_by.unwrap_or(far));
        }
        tokio::select! {
            r = read_some(&mut stdout, &mut out_buf), if stdout.is_some() => match r {
                Some(n) => {
                    let (total, trip) = {
                        let mut d = run.data();
                        d.ingest.stdout(&out_buf[..n]);
                        (d.ingest.sink.events_total, d.ingest.sink.tools.take_new_trip())
                    };
                    if let Some(trip) = trip
                        && !exec.cancelled
                    {
                        // LOOP-3: stopped through the cancel path (the provider's graceful
                        // interrupt, then the group's end, SUP-3); what the native process
                        // already did stays done.
                        exec.loop_trip = Some(trip);
                        if !terminated && !exit_known {
                            terminated = true;
                            proc.interrupt();
                            cleanup_by = Some(Instant::now() + grace + CLEANUP_WAIT);
                            table.advance(&run.run_id, RunState::Settling);
                        }
                    }
                    run.progress.send_if_modified(|v| {
                        let changed = *v != total;
                        *v = total;
                        changed
                    });
                }
                None => {
                    run.data().ingest.stdout_eof();
                    let total = run.data().ingest.sink.events_total;
                    run.progress.send_replace(total);
                    stdout = None;
                }
            },
            r = read_some(&mut stderr, &mut err_buf), if stderr.is_some() => match r {
                Some(n) => run.data().ingest.stderr(&err_buf[..n]),
                None => stderr = None,
            },
            ev = next_report(proc.as_mut(), exit_known), if exec.cleanup.is_none() => match ev {
                Report::Exited(st) => {
                    exit_known = true;
                    exec.exit = st;
                    // Members the leader left in its group are ended too (the supervisor does
                    // this on its own; asking again is harmless).
                    proc.terminate();
                    let by = Instant::now() + grace + CLEANUP_WAIT;
                    cleanup_by = Some(cleanup_by.map_or(by, |c| c.max(by)));
                    table.advance(&run.run_id, RunState::Settling);
                }
                Report::Cleanup(c) => {
                    exec.cleanup = Some(c);
                    drain_by = Some(Instant::now() + STDOUT_DRAIN);
                }
            },
            r = cancel.changed(), if !terminated && !exit_known && !cancel_gone => {
                if r.is_err() {
                    cancel_gone = true;
                } else if *cancel.borrow_and_update() {
                    exec.cancelled = true;
                    terminated = true;
                    // RUN-6: the provider's graceful interrupt (ACP-7), then the group's end.
                    proc.interrupt();
                    cleanup_by = Some(Instant::now() + grace + CLEANUP_WAIT);
                    table.advance(&run.run_id, RunState::Settling);
                }
            },
            () = &mut deadline_timer, if !terminated && !exit_known => {
                // BND-4; also "a final followed by a process that does not exit" (OUT-2).
                // Ended like a cancel (C-ACP-4): the provider's graceful interrupt (ACP's
                // session/cancel; for claude the same SIGTERM as before), then the group's end.
                exec.timed_out = true;
                terminated = true;
                proc.interrupt();
                cleanup_by = Some(Instant::now() + grace + CLEANUP_WAIT);
                table.advance(&run.run_id, RunState::Settling);
            },
            () = &mut cleanup_timer, if exec.cleanup.is_none() && cleanup_by.is_some() => {
                exec.cleanup = Some(Cleanup {
                    confirmed: false,
                    survivors: Vec::new(),
                    error: Some(format!(
                        "no cleanup report within {} s of the termination",
                        (grace + CLEANUP_WAIT).as_secs()
                    )),
                });
                break;
            },
            c = async { completion.as_mut()?.as_mut().await.into() }, if completion.is_some() => {
                // ACP-6: the protocol's answer settles execution; the provider ends the group
                // after every turn (ACP-7), so asking again here is harmless and bounds it.
                completion = None;
                if let Some(c) = c {
                    settle_completion(run, &mut exec, c);
                }
                if !terminated {
                    terminated = true;
                    proc.terminate();
                    let by = Instant::now() + grace + CLEANUP_WAIT;
                    cleanup_by = Some(cleanup_by.map_or(by, |c| c.max(by)));
                    table.advance(&run.run_id, RunState::Settling);
                }
            },
            () = &mut drain_timer, if drain_by.is_some() => {
                // SUP-4: an escaped descendant may hold the pipe; what it writes is not read.
                break;
            },
        }
    }
    exec
}

/// Hands a protocol provider's completion to the run's ingest (final, session id) and execution
/// facts (its failure).
fn settle_completion(run: &Run, exec: &mut Exec, c: Completion) {
    let mut d = run.data();
    if let Some(id) = c.session_id {
        d.ingest.learn_session_id(id);
    }
    if let Some(v) = c.final_value {
        d.ingest.offer_final(v, c.final_oversized);
    }
    if let Some(ne) = c.native_error {
        d.ingest.note_native_error(ne);
    }
    exec.protocol_error = c.error;
}

enum Report {
    Exited(Option<ExitStatus>),
    Cleanup(Cleanup),
}

/// The supervisor's next report: the exit first, then the cleanup (both cancel-safe).
async fn next_report(proc: &mut dyn NativeProcess, exit_known: bool) -> Report {
    if exit_known {
        Report::Cleanup(proc.cleanup().await)
    } else {
        Report::Exited(proc.exited().await)
    }
}

/// Reads once; `None` at EOF or on a read error (both end the stream).
async fn read_some(r: &mut Option<NativeReader>, buf: &mut [u8]) -> Option<usize> {
    let reader = r.as_mut()?;
    match reader.read(buf).await {
        Ok(0) | Err(_) => None,
        Ok(n) => Some(n),
    }
}
