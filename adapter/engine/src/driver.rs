//! One run's task: version check, spawn, streaming, termination and settling (RUN-10, NAT-2,
//! BND-4, RUN-6, SUP-3, SUP-4).
//!
//! Every wait is bounded: the version check by its own limit and the run's deadline, execution by
//! the deadline (then SIGTERM, grace, SIGKILL through the supervisor), the exit and the cleanup
//! report after a termination by [`CLEANUP_WAIT`], and stdout after the leader was reaped by
//! [`STDOUT_DRAIN`] (an escaped descendant may hold the pipe open, SUP-4).

use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::sync::watch;
use tokio::time::{Instant, Sleep, sleep_until};

use crate::jsonout::{TIME_BUDGET, judge_within_budget};
use crate::native::Cleanup;
use crate::outcome::{Facts, apply_structured, classify_execution, structured_due};
use crate::provider::{
    BoxFuture, Checked, Completion, NativeProcess, NativeReader, PreflightError, Provider, RunSpec,
};
use crate::record::{Dir, Recorder};
use crate::table::{Run, Table};
use crate::tools::Trip;
use crate::{RunState, ToolError};
use cmk_supervisor::ExitStatus;

/// After a termination, how long the exit and the cleanup report may take beyond the grace.
pub(crate) const CLEANUP_WAIT: Duration = Duration::from_secs(10);
/// After the cleanup report, how long stdout/stderr may still be read before settling (SUP-4).
pub(crate) const STDOUT_DRAIN: Duration = Duration::from_secs(1);
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
pub(crate) async fn drive(
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
    // The execution's verdict, and what is left to judge of a structured output, are read
    // under the run's lock; the judging itself runs off the async runtime and without the lock
    // (JSONOUT-5), so reads of this run and of every other never wait on it.
    let (mut outcome, due) = {
        let d = run.data();
        let facts = Facts {
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
        };
        let outcome = classify_execution(&facts);
        let due = structured_due(&facts, &outcome)
            .map(|due| (due.schema.clone(), due.candidate, due.final_event));
        (outcome, due)
    };
    {
        // Visible while the output is judged: `exit_code` known, the run still settling.
        let mut d = run.data();
        d.exit = exec.exit;
    }
    if let Some((schema, candidate, final_event)) = due {
        let verdict = judge_within_budget(schema, candidate, TIME_BUDGET).await;
        apply_structured(&mut outcome, verdict, dialect.as_ref(), &final_event);
    }
    {
        let mut d = run.data();
        d.cleanup = Some(cleanup);
        d.outcome = Some(outcome.clone());
    }
    table.advance(&run.run_id, outcome.state);
}

/// Settles a run whose driver died without settling it: cleanup is not confirmed, so the state
/// is `uncertain` (RUN-10) with `cleanup_unconfirmed` as the cause.
pub(crate) fn abandon(table: &Table, run: &Run, why: &str) {
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
    let Some(checked) = preflight(provider, deadline, &mut cancel, &mut exec).await else {
        return exec;
    };
    table.advance(&run.run_id, RunState::Starting);
    let proc = match provider.spawn(&checked, spec).await {
        Ok(p) => p,
        Err(e) => {
            exec.cancelled = *cancel.borrow_and_update();
            exec.start_error = Some(e);
            return exec;
        }
    };
    table.advance(&run.run_id, RunState::Running);
    let cancelled = *cancel.borrow_and_update();
    let mut execution = Execution::new(table, run, proc, provider.term_grace(), cancel, exec);
    if cancelled {
        execution.exec.cancelled = true;
        execution.begin_termination(Ending::Cancel);
    }
    execution.run(deadline).await
}

/// pending: NAT-2. Not interrupted by a cancel (it is short and bounded, and ending it here
/// keeps the check's own cleanup in one place); the cancel is honoured right after. `None`: the
/// run ends here, with what `exec` says.
async fn preflight(
    provider: &dyn Provider,
    deadline: Instant,
    cancel: &mut watch::Receiver<bool>,
    exec: &mut Exec,
) -> Option<Checked> {
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
            return None;
        }
        Err(PreflightError::DeadlinePassed) => {
            exec.cancelled = *cancel.borrow_and_update();
            exec.timed_out = true;
            return None;
        }
        // Unwrapped by the loop above.
        Err(PreflightError::Uncleaned { .. }) => return None,
    };
    if *cancel.borrow_and_update() {
        exec.cancelled = true;
        // The no-go for a supervisor waiting to start the run (C-SUP-1): it exits, reaped here.
        if let Some(waiting) = checked.supervisor.take() {
            waiting.release().await;
        }
        return None;
    }
    Some(checked)
}

/// Where one run's execution stands (RUN-10). Moves happen in [`Execution::begin_termination`]
/// and [`Execution::cleanup_reported`] only, which also set the phase's timer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// The native process runs and nothing has ended it yet: cancels, the deadline and the loop
    /// guard act.
    Running,
    /// The leader exited or a termination began: the cleanup report is due by `by`.
    Ending { by: Instant },
    /// The cleanup report is in: the streams drain until `by` (SUP-4).
    Draining { by: Instant },
}

/// Why execution moves towards its end; every one goes through
/// [`Execution::begin_termination`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ending {
    /// RUN-6: a cancel.
    Cancel,
    /// BND-4; also "a final followed by a process that does not exit" (OUT-2).
    Deadline,
    /// LOOP-3: the loop guard tripped.
    LoopGuard,
    /// ACP-6: the protocol's answer settled the turn.
    Completed,
    /// The group leader exited by itself.
    Exited,
}

/// One run's execution after its spawn: the process, its streams and the phase.
struct Execution<'a> {
    table: &'a Table,
    run: &'a Run,
    proc: Box<dyn NativeProcess>,
    grace: Duration,
    phase: Phase,
    /// The phase's bound ([`Phase::Ending`], [`Phase::Draining`]); far away while running. It
    /// lives across iterations (reset on a move), so a busy stream does not register and
    /// cancel a timer per read.
    phase_timer: Pin<Box<Sleep>>,
    /// This driver asked the group to end (any [`Ending`] but the leader's own exit).
    asked: bool,
    /// The leader's end was reported (its status may still be unknown): the next report is
    /// the cleanup.
    exit_known: bool,
    /// The cancel flag; `None` once its sender is gone.
    cancel: Option<watch::Receiver<bool>>,
    completion: Option<BoxFuture<'static, Completion>>,
    stdout: Option<NativeReader>,
    stderr: Option<NativeReader>,
    out_buf: Vec<u8>,
    err_buf: Vec<u8>,
    exec: Exec,
}

impl<'a> Execution<'a> {
    fn new(
        table: &'a Table,
        run: &'a Run,
        mut proc: Box<dyn NativeProcess>,
        grace: Duration,
        cancel: watch::Receiver<bool>,
        exec: Exec,
    ) -> Self {
        Self {
            table,
            run,
            completion: proc.take_completion(),
            stdout: proc.take_stdout(),
            stderr: proc.take_stderr(),
            proc,
            grace,
            phase: Phase::Running,
            phase_timer: Box::pin(sleep_until(far())),
            asked: false,
            exit_known: false,
            cancel: Some(cancel),
            out_buf: vec![0u8; READ_CHUNK],
            err_buf: vec![0u8; 8 * 1024],
            exec,
        }
    }

    /// The one way towards the end: a cancel, the deadline and the loop guard use the
    /// provider's graceful interrupt (ACP-7's `session/cancel`; for claude SIGTERM), a
    /// completion and the leader's exit end the group (SUP-3: members it left are ended too;
    /// asking again is harmless). The cleanup report is then due within the grace plus
    /// [`CLEANUP_WAIT`], and the run is settling.
    fn begin_termination(&mut self, why: Ending) {
        match why {
            Ending::Cancel | Ending::Deadline | Ending::LoopGuard => self.proc.interrupt(),
            Ending::Completed | Ending::Exited => self.proc.terminate(),
        }
        if why != Ending::Exited {
            self.asked = true;
        }
        let by = Instant::now() + self.grace + CLEANUP_WAIT;
        match self.phase {
            Phase::Running => self.move_to(Phase::Ending { by }),
            Phase::Ending { by: was } => self.move_to(Phase::Ending { by: was.max(by) }),
            Phase::Draining { .. } => {}
        }
        self.table.advance(&self.run.run_id, RunState::Settling);
    }

    /// The supervisor's final word: the streams may drain a little longer (SUP-4).
    fn cleanup_reported(&mut self, c: Cleanup) {
        self.exec.cleanup = Some(c);
        self.move_to(Phase::Draining {
            by: Instant::now() + STDOUT_DRAIN,
        });
    }

    fn move_to(&mut self, phase: Phase) {
        if let Phase::Ending { by } | Phase::Draining { by } = phase {
            self.phase_timer.as_mut().reset(by);
        }
        self.phase = phase;
    }

    /// Settled once the group is gone, both streams are read to their end and a protocol
    /// provider's completion is in (ACP-6: its report of the turn, session id included, may
    /// come after the cleanup report); the drain bound (SUP-4) ends the wait otherwise.
    fn done(&self) -> bool {
        matches!(self.phase, Phase::Draining { .. })
            && self.stdout.is_none()
            && self.stderr.is_none()
            && self.completion.is_none()
    }

    async fn run(mut self, deadline: Instant) -> Exec {
        let deadline_timer = sleep_until(deadline);
        tokio::pin!(deadline_timer);
        while !self.done() {
            let running = self.phase == Phase::Running;
            tokio::select! {
                r = read_some(&mut self.stdout, &mut self.out_buf), if self.stdout.is_some() => {
                    match r {
                        Some(n) => self.on_stdout(n),
                        None => {
                            self.run.data().ingest.stdout_eof();
                            let total = self.run.data().ingest.sink.events_total;
                            self.run.progress.send_replace(total);
                            self.stdout = None;
                        }
                    }
                },
                r = read_some(&mut self.stderr, &mut self.err_buf), if self.stderr.is_some() => {
                    match r {
                        Some(n) => self.run.data().ingest.stderr(&self.err_buf[..n]),
                        None => self.stderr = None,
                    }
                },
                ev = next_report(self.proc.as_mut(), self.exit_known),
                    if !matches!(self.phase, Phase::Draining { .. }) => match ev {
                    Report::Exited(st) => {
                        self.exit_known = true;
                        self.exec.exit = st;
                        self.begin_termination(Ending::Exited);
                    }
                    Report::Cleanup(c) => self.cleanup_reported(c),
                },
                r = changed(&mut self.cancel), if running && self.cancel.is_some() => match r {
                    None => self.cancel = None,
                    Some(true) => {
                        self.exec.cancelled = true;
                        self.begin_termination(Ending::Cancel);
                    }
                    Some(false) => {}
                },
                () = &mut deadline_timer, if running => {
                    // Ended like a cancel (C-ACP-4).
                    self.exec.timed_out = true;
                    self.begin_termination(Ending::Deadline);
                },
                () = &mut self.phase_timer, if !running => {
                    if let Phase::Ending { .. } = self.phase {
                        self.exec.cleanup = Some(Cleanup {
                            confirmed: false,
                            survivors: Vec::new(),
                            error: Some(format!(
                                "no cleanup report within {} s of the termination",
                                (self.grace + CLEANUP_WAIT).as_secs()
                            )),
                        });
                    }
                    // Draining: an escaped descendant may hold the pipe; what it writes is not
                    // read (SUP-4).
                    break;
                },
                c = async { self.completion.as_mut()?.as_mut().await.into() },
                    if self.completion.is_some() => {
                    self.completion = None;
                    if let Some(c) = c {
                        settle_completion(self.run, &mut self.exec, c);
                    }
                    if !self.asked {
                        self.begin_termination(Ending::Completed);
                    }
                },
            }
        }
        self.exec
    }

    /// Native stdout bytes into the run's ingest; a loop guard trip ends the run (LOOP-3).
    fn on_stdout(&mut self, n: usize) {
        let (total, trip) = {
            let mut d = self.run.data();
            d.ingest.stdout(&self.out_buf[..n]);
            (
                d.ingest.sink.events_total,
                d.ingest.sink.tools.take_new_trip(),
            )
        };
        if let Some(trip) = trip
            && !self.exec.cancelled
        {
            // Stopped through the cancel path; what the native process already did stays done.
            self.exec.loop_trip = Some(trip);
            if self.phase == Phase::Running {
                self.begin_termination(Ending::LoopGuard);
            }
        }
        self.run.progress.send_if_modified(|v| {
            let changed = *v != total;
            *v = total;
            changed
        });
    }
}

/// A time no run reaches.
fn far() -> Instant {
    Instant::now() + Duration::from_secs(365 * 24 * 3600)
}

/// The cancel flag's next value; `None` once its sender is gone.
async fn changed(cancel: &mut Option<watch::Receiver<bool>>) -> Option<bool> {
    let rx = cancel.as_mut()?;
    rx.changed().await.ok()?;
    Some(*rx.borrow_and_update())
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
