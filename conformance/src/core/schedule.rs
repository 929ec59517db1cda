//! The one scheduler of both gates (`--jobs`): every selected case in a task of its own under a
//! concurrency limit, with its own [`Scope`] (transcript, the peers it starts, deadlines that a
//! handshake may move) and a timeout; afterwards every peer the case started is killed by
//! process group, whatever happened. Three phases (GATE-LOAD-2): the exclusive one (cases that
//! judge their peer's own lifecycle, one at a time, no other case alive); the parallel one
//! (costliest first), with the cross-cutting cases that probe a peer of their own
//! ([`Needs::CrosscutProbe`]) queued behind it, each grading what every case showed only once
//! the others have finished ([`Scope::settled`], [`crate::core::settled`]); then the other
//! cross-cutting cases ([`Needs::Crosscut`]), which grade the probes' exchanges too. A runner
//! `error` is
//! retried once after its phase, one retry at a time (GATE-LOAD-3); blocked verdicts are
//! resolved against the cases that block them (one defect, one verdict,
//! [`crate::core::blocked`]). A gate plugs in through [`Runner`]: how a case's context is made
//! from its scope, and what a timeout is called.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};
use tokio::task::JoinSet;

use crate::core::blocked::{Blockable, resolve_blocked};
use crate::core::case::{Case, Gate, Needs};
use crate::core::client::{Client, Deadline, ProcHandle, ServerSpec};
use crate::core::model::{Check, CheckFuture};
use crate::core::settled::{Counted, Opener, Settled};
use crate::core::transcript::{Entry, Transcript};
use crate::core::watch::Watcher;

/// How much of a case's time is kept back so a waiting case fails with its own message before
/// the scheduler's timeout fires (at most; see [`wait_deadline`]).
const WAIT_MARGIN: Duration = Duration::from_millis(300);

/// The deadline a case's waits use: the case's own deadline less a margin, so a wait ends with
/// its own message before the scheduler's timeout. The margin is at most a quarter of the case's
/// timeout: a fixed 300 ms would leave nothing to wait with under `--timeout-ms 300` and fail
/// every case "within 0 ms" against a server that answers in a few.
#[must_use]
pub fn wait_deadline(case_deadline: Instant, timeout: Duration) -> Instant {
    let margin = WAIT_MARGIN.min(timeout / 4);
    case_deadline.checked_sub(margin).unwrap_or(case_deadline)
}

/// What the scheduler gives every case, whatever the gate: its transcript, the peers it started
/// (killed afterwards), its deadlines, and a flag for a timeout that was not the check's own.
#[derive(Clone)]
pub struct Scope {
    /// The case's id.
    pub case_id: &'static str,
    /// The case's timeout.
    pub timeout: Duration,
    /// The case's transcript.
    pub transcript: Transcript,
    procs: Arc<Mutex<Vec<ProcHandle>>>,
    /// The deadline every wait of the case uses ([`wait_deadline`]).
    pub deadline: Deadline,
    /// The case's hard deadline (the scheduler's), moved with `deadline`.
    hard: Deadline,
    /// Set when the case timed out in a way the check reported itself.
    timed_out: Arc<AtomicBool>,
    /// A probing case's barrier ([`Scope::settled`]); `None` for every other case.
    settled: Option<Settled>,
    /// A probing case's slot of `--jobs`, given back at [`Scope::settled`].
    slot: Arc<Mutex<Option<OwnedSemaphorePermit>>>,
}

impl Scope {
    /// A scope for a case (or a discovery session) starting now with `timeout`: waits end at
    /// `wait_until`, the hard deadline is `hard_at`.
    #[must_use]
    pub fn new(
        case_id: &'static str,
        timeout: Duration,
        transcript: Transcript,
        wait_until: Instant,
        hard_at: Instant,
    ) -> Self {
        Self {
            case_id,
            timeout,
            transcript,
            procs: Arc::default(),
            deadline: Deadline::at(wait_until),
            hard: Deadline::at(hard_at),
            timed_out: Arc::default(),
            settled: None,
            slot: Arc::default(),
        }
    }

    /// Waits, for a case that probes a peer of its own before it grades what every case showed
    /// ([`Needs::CrosscutProbe`]), until every other case of its phase has finished (GATE-LOAD-2);
    /// returns at once for any other case. Its peers are shut down and its slot of `--jobs`
    /// given back first (`--jobs 1` still means one peer at a time), and the wait is off the
    /// case's clock, however long the phase's last case takes.
    pub async fn settled(&self) {
        let Some(settled) = &self.settled else {
            return;
        };
        if settled.is_open() {
            return;
        }
        self.shutdown().await;
        drop(
            self.slot
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take(),
        );
        loop {
            self.extend(self.timeout);
            let started = Instant::now();
            let open = tokio::time::timeout(self.timeout, settled.wait())
                .await
                .is_ok();
            self.shorten(self.timeout - started.elapsed().min(self.timeout));
            if open {
                return;
            }
        }
    }

    /// Starts a fresh peer (not initialized) that the scheduler kills after the case; `observer`
    /// gets what the connection shows (the cross-cutting engine).
    pub fn spawn(&self, spec: &ServerSpec, observer: Option<Watcher>) -> Result<Client, Check> {
        let client = Client::spawn(
            spec,
            self.transcript.clone(),
            self.deadline.clone(),
            observer,
        )
        .map_err(Check::from)?;
        self.procs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(client.handle());
        Ok(client)
    }

    /// Adds a note of the runner's own to the transcript.
    pub fn note(&self, text: &str) {
        self.transcript.note(text);
    }

    /// Moves the case's deadlines out by `by` (room for a step whose time is not the case's).
    pub fn extend(&self, by: Duration) {
        self.deadline.extend(by);
        self.hard.extend(by);
    }

    /// Moves the case's deadlines back in by `by` (what such a step did not take).
    pub fn shorten(&self, by: Duration) {
        self.deadline.shorten(by);
        self.hard.shorten(by);
    }

    /// Runs one step whose time is not the case's (a handshake: real peers take seconds to
    /// start, more on a loaded machine, which says nothing about what a case checks): it may
    /// take the whole case timeout, and the deadlines move out by what it took.
    pub async fn off_the_clock<T>(&self, step: impl Future<Output = T>) -> T {
        let wait = self.timeout;
        self.extend(wait);
        let started = Instant::now();
        let result = step.await;
        let took = started.elapsed().min(wait);
        self.shorten(wait - took);
        result
    }

    /// Marks the case as timed out although its check ended with a verdict of its own.
    pub fn mark_timed_out(&self) {
        self.timed_out.store(true, Ordering::Relaxed);
    }

    /// Shuts down every peer the scope started (closed stdin, bounded wait, SIGTERM, SIGKILL of
    /// the group, reaped), side by side.
    pub async fn shutdown(&self) {
        shutdown_all(&self.procs).await;
    }
}

/// A case's context, and what must live until the case's peers are gone.
pub type Made<G> = (<G as Gate>::Ctx, Box<dyn Send>);

/// What a gate tells the scheduler.
pub trait Runner: Send + Sync + 'static {
    /// The gate whose cases this runs.
    type Gate: Gate;
    /// The runner's name, prefixing a panicked task's report on stderr.
    fn name(&self) -> &'static str;
    /// What the peer under test is called in a timeout's failure (`server`, `agent`, `client`).
    fn peer(&self) -> &'static str;
    /// The expected text of a case's timeout failure.
    fn timeout_expected(&self, timeout: Duration) -> String;
    /// A fresh transcript for a case.
    fn transcript(&self) -> Transcript {
        Transcript::new()
    }
    /// The case's expected cost (the start order only; by default [`Case::cost`]).
    fn cost(&self, case: &Case<Self::Gate>) -> Duration {
        case.cost()
    }
    /// The case's context made from its scope, and what must live until the case's peers are
    /// gone (a scratch directory removed on drop); `Err`: the runner could not prepare the
    /// case (its verdict).
    fn context(&self, case: &Case<Self::Gate>, scope: Scope) -> Result<Made<Self::Gate>, Check>;
    /// Transcript entries shown before the case's own (MCP: the shared discovery session's,
    /// for cases that read it).
    fn preamble(&self, _case: &Case<Self::Gate>) -> Vec<Entry> {
        Vec::new()
    }
}

/// One finished case before grading.
pub struct Ran<G: Gate> {
    /// The case.
    pub case: Case<G>,
    /// What the check said.
    pub check: Check,
    /// When it started.
    pub started: Instant,
    /// Wall time.
    pub duration: Duration,
    /// Whether the case hit its timeout.
    pub timed_out: bool,
    /// The case's transcript.
    pub transcript: Vec<Entry>,
}

impl<G: Gate> Clone for Ran<G> {
    fn clone(&self) -> Self {
        Self {
            case: self.case,
            check: self.check.clone(),
            started: self.started,
            duration: self.duration,
            timed_out: self.timed_out,
            transcript: self.transcript.clone(),
        }
    }
}

impl<G: Gate> std::fmt::Debug for Ran<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ran")
            .field("case", &self.case.id)
            .field("check", &self.check)
            .field("duration", &self.duration)
            .field("timed_out", &self.timed_out)
            .finish_non_exhaustive()
    }
}

impl<G: Gate> Blockable for Ran<G> {
    fn case_id(&self) -> &'static str {
        self.case.id
    }
    fn verdict(&mut self) -> &mut Check {
        &mut self.check
    }
}

/// Settings of one run of the scheduler.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// Base per-case timeout (a case's is a multiple: [`Case::timeout`]).
    pub timeout: Duration,
    /// Cases at once.
    pub jobs: usize,
}

/// Runs `cases` through `runner`; `progress` receives each result as it finishes (a runner
/// error only once its retry is in). Results come back in the order of `cases`. The phases
/// run one after another: the exclusive cases ([`Case::exclusive`]) one at a time, with no
/// other peer alive; then the parallel ones longest first ([`Runner::cost`]; ties in catalogue
/// order), with the cross-cutting ones that probe queued behind them, each grading once the
/// others have finished ([`Scope::settled`]); then the other cross-cutting ones. Each phase's
/// runner errors are retried once at its end (`run_phase`), and blocked cases are resolved
/// against the verdicts of the cases that block them ([`resolve_blocked`]).
pub async fn run_all<R: Runner>(
    runner: Arc<R>,
    cases: Vec<Case<R::Gate>>,
    settings: Settings,
    progress: Option<mpsc::UnboundedSender<Ran<R::Gate>>>,
) -> Vec<Ran<R::Gate>> {
    let permits = Arc::new(Semaphore::new(settings.jobs.max(1)));
    let alone = Arc::new(Semaphore::new(1));
    let mut out: Vec<Option<Ran<R::Gate>>> = (0..cases.len()).map(|_| None).collect();
    let costs: Vec<Duration> = cases.iter().map(|c| runner.cost(c)).collect();
    let (late, early): (Vec<usize>, Vec<usize>) = longest_first(&costs)
        .into_iter()
        .partition(|&i| cases[i].needs.crosscut());
    let (probes, late): (Vec<usize>, Vec<usize>) = late
        .into_iter()
        .partition(|&i| cases[i].needs == Needs::CrosscutProbe);
    let (exclusive, parallel): (Vec<usize>, Vec<usize>) =
        early.into_iter().partition(|&i| cases[i].exclusive);
    for (phase, probing, limit) in [
        (exclusive, Vec::new(), &alone),
        (parallel, probes, &permits),
        (late, Vec::new(), &permits),
    ] {
        if phase.is_empty() && probing.is_empty() {
            continue;
        }
        let results = run_phase(
            &runner,
            &cases,
            (phase, probing),
            limit.clone(),
            settings.timeout,
            progress.as_ref(),
        )
        .await;
        for (slot, r) in out.iter_mut().zip(results) {
            if r.is_some() {
                *slot = r;
            }
        }
    }
    let mut ran: Vec<Ran<R::Gate>> = out
        .into_iter()
        .zip(cases)
        .map(|(ran, case)| {
            ran.unwrap_or_else(|| Ran {
                case,
                check: Check::Error("the case's task panicked (a runner bug)".into()),
                started: Instant::now(),
                duration: Duration::ZERO,
                timed_out: false,
                transcript: Vec::new(),
            })
        })
        .collect();
    resolve_blocked(&mut ran);
    ran
}

/// Runs the cases of one phase (`order`, indexes into `cases`) under `permits`, with the
/// phase's probing cross-cutting cases (`probing`) queued behind them: each takes a slot of
/// `permits` for its probe and grades once every case of `order` has finished
/// ([`Scope::settled`]). Then, one at a time, once more each case that ended in a runner error
/// ([`Check::Error`], GATE-LOAD-3): the kit's own failure (a spawn that failed, a fresh peer
/// silent on `initialize` under load) says nothing about the peer. The retries run one at a
/// time: the load that caused the errors was largely the phase's own `--jobs` peers starting
/// at once, and retrying them all together again (a slow-starting .NET or Python server, eight
/// retries on two cores) recreated it. When a case of `order` was retried, the probing cases
/// run again after it, so that they grade its exchanges too. Only the last run is reported,
/// with a note in its transcript; a failure is never retried.
async fn run_phase<R: Runner>(
    runner: &Arc<R>,
    cases: &[Case<R::Gate>],
    (order, probing): (Vec<usize>, Vec<usize>),
    permits: Arc<Semaphore>,
    timeout: Duration,
    progress: Option<&mpsc::UnboundedSender<Ran<R::Gate>>>,
) -> Vec<Option<Ran<R::Gate>>> {
    let (opener, settled) = Opener::new(order.len());
    let counted = run_indexed(
        runner.name(),
        cases.len(),
        order,
        permits.clone(),
        progress,
        |r: &Ran<R::Gate>| !matches!(r.check, Check::Error(_)),
        |index| {
            let done = Counted(opener.clone());
            let run = run_one(runner.clone(), cases[index], timeout, None, None);
            async move {
                let r = run.await;
                drop(done);
                r
            }
        },
    );
    // The probes take their slots of `permits` themselves (given back while they wait), so
    // their own limit only lets them queue behind the phase's cases.
    let probes = run_indexed(
        runner.name(),
        cases.len(),
        probing.clone(),
        Arc::new(Semaphore::new(probing.len().max(1))),
        progress,
        |_| false,
        |index| {
            let probe = Some((settled.clone(), permits.clone()));
            run_one(runner.clone(), cases[index], timeout, None, probe)
        },
    );
    let (mut results, probed) = tokio::join!(counted, probes);
    for (slot, r) in results.iter_mut().zip(probed) {
        if r.is_some() {
            *slot = r;
        }
    }
    let errors: Vec<(usize, String)> = results
        .iter()
        .enumerate()
        .filter_map(|(i, r)| match r.as_ref().map(|r| &r.check) {
            Some(Check::Error(why)) => Some((i, why.clone())),
            _ => None,
        })
        .collect();
    let mut again: Vec<(usize, String)> = errors
        .iter()
        .map(|(i, why)| {
            let note = format!(
                "the case's first run ended in a runner error ({why}); this is its one retry \
                 (GATE-LOAD-3)"
            );
            (*i, note)
        })
        .collect();
    if errors.iter().any(|(i, _)| !probing.contains(i)) {
        for &p in &probing {
            if !errors.iter().any(|(i, _)| *i == p) {
                let note = "run again after its phase's retries, so that it grades their \
                            exchanges too (GATE-LOAD-2)";
                again.push((p, note.to_owned()));
            }
        }
    }
    // The probes that ran once are reported now, the others after their run below.
    if let Some(progress) = progress {
        for &p in &probing {
            if let Some(r) = results.get(p).and_then(Option::as_ref)
                && !again.iter().any(|(i, _)| *i == p)
            {
                let _ = progress.send(r.clone());
            }
        }
    }
    if again.is_empty() {
        return results;
    }
    let notes: std::collections::HashMap<usize, String> = again.iter().cloned().collect();
    let retried = run_indexed(
        runner.name(),
        cases.len(),
        again.iter().map(|(i, _)| *i).collect(),
        Arc::new(Semaphore::new(1)),
        progress,
        |_| true,
        |index| {
            let note = notes.get(&index).cloned();
            run_one(runner.clone(), cases[index], timeout, note, None)
        },
    )
    .await;
    for (slot, r) in results.iter_mut().zip(retried) {
        if r.is_some() {
            *slot = r;
        }
    }
    results
}

/// One run of `case`: `note` goes first in its transcript (why it runs again); `probe`, for
/// a probing cross-cutting case, is its barrier and the `--jobs` slots it takes one of first
/// ([`Scope::settled`]).
async fn run_one<R: Runner>(
    runner: Arc<R>,
    case: Case<R::Gate>,
    base: Duration,
    note: Option<String>,
    probe: Option<(Settled, Arc<Semaphore>)>,
) -> Ran<R::Gate> {
    let (settled, slot) = match probe {
        // A closed semaphore cannot happen (it is never closed); run anyway if it did.
        Some((settled, slots)) => (Some(settled), slots.acquire_owned().await.ok()),
        None => (None, None),
    };
    let started = Instant::now();
    let timeout = case.timeout(base);
    let transcript = runner.transcript();
    if let Some(note) = &note {
        transcript.note(note);
    }
    let mut scope = Scope::new(
        case.id,
        timeout,
        transcript.clone(),
        wait_deadline(started + timeout, timeout),
        started + timeout,
    );
    scope.settled = settled;
    *scope.slot.lock().unwrap_or_else(PoisonError::into_inner) = slot;
    let (ctx, keep) = match runner.context(&case, scope.clone()) {
        Ok(made) => made,
        Err(check) => {
            return Ran {
                case,
                check,
                started,
                duration: started.elapsed(),
                timed_out: false,
                transcript: transcript.entries(),
            };
        }
    };
    let guarded = guard(
        (case.check)(ctx),
        started,
        &scope.hard,
        &scope.procs,
        &transcript,
    );
    let (check, timed_out) = guarded
        .await
        .into_check(&runner.timeout_expected(timeout), runner.peer());
    drop(keep);
    let timed_out = timed_out || scope.timed_out.load(Ordering::Relaxed);
    let mut entries = runner.preamble(&case);
    entries.extend(transcript.entries());
    Ran {
        case,
        check,
        started,
        duration: started.elapsed(),
        timed_out,
        transcript: entries,
    }
}

/// The start order of cases whose expected costs are `costs`: the costliest first, ties in the
/// given (catalogue) order. The gate's wall time is at least its longest case, so the longest
/// must start first, not last behind a queue of short ones; a cost is an estimate for this order
/// only, never a bound.
#[must_use]
pub fn longest_first<C: Ord>(costs: &[C]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..costs.len()).collect();
    // A stable sort keeps ties in the given order.
    order.sort_by(|&a, &b| costs[b].cmp(&costs[a]));
    order
}

/// Runs `task(i)` for every `i` of `order` (started in that order), at most `permits` at once
/// (the permits are shared, so several phases can use one limit); `progress` gets each result
/// that `report` accepts as it finishes. Returns the results indexed by `i` in a vector of `len`; an index whose task
/// panicked (a runner bug) stays `None`, and the panic is reported on stderr with `runner` as
/// the prefix.
pub async fn run_indexed<R, F, Fut>(
    runner: &str,
    len: usize,
    order: Vec<usize>,
    permits: Arc<Semaphore>,
    progress: Option<&mpsc::UnboundedSender<R>>,
    report: fn(&R) -> bool,
    task: F,
) -> Vec<Option<R>>
where
    R: Clone + Send + 'static,
    F: Fn(usize) -> Fut,
    Fut: Future<Output = R> + Send + 'static,
{
    let mut out: Vec<Option<R>> = (0..len).map(|_| None).collect();
    let mut set = JoinSet::new();
    for index in order {
        let permits = permits.clone();
        let fut = task(index);
        let progress = progress.cloned();
        set.spawn(async move {
            // A closed semaphore cannot happen (it is never closed); run anyway if it did.
            let _permit = permits.acquire_owned().await.ok();
            let r = fut.await;
            if let Some(p) = &progress
                && report(&r)
            {
                let _ = p.send(r.clone());
            }
            (index, r)
        });
    }
    while let Some(joined) = set.join_next().await {
        match joined {
            Ok((i, r)) => {
                if let Some(slot) = out.get_mut(i) {
                    *slot = Some(r);
                }
            }
            Err(e) => {
                // Its index is unknown here: the caller fills the hole.
                use std::io::Write as _;
                let _ = writeln!(
                    std::io::stderr().lock(),
                    "{runner}: a case task failed: {e}"
                );
            }
        }
    }
    out
}

/// How a guarded check ended.
#[derive(Debug)]
pub enum Guarded {
    /// The check's verdict.
    Finished(Check),
    /// The check's task panicked (the panic's text).
    Panicked(String),
    /// The hard deadline passed first, this long after the case started; the check was
    /// aborted (and the case's transcript says so).
    TimedOut(std::time::Duration),
}

impl Guarded {
    /// The case's verdict and whether it timed out. `expected` is the Expected text of a
    /// timeout's failure (the case timeout, and what else it covers); `peer` names who did not
    /// answer (`server`, `agent`).
    #[must_use]
    pub fn into_check(self, expected: &str, peer: &str) -> (Check, bool) {
        match self {
            Guarded::Finished(c) => (c, false),
            Guarded::Panicked(e) => (Check::Error(format!("the check panicked: {e}")), false),
            Guarded::TimedOut(after) => (
                Check::fail(
                    expected.to_owned(),
                    format!(
                        "timed out after {} ms: the {peer} did not answer in time (hung?)",
                        after.as_millis()
                    ),
                ),
                true,
            ),
        }
    }
}

/// Runs `check` in a task of its own (so a panic is contained) until it finishes or `hard`
/// passes. The deadline is re-read whenever its timer fires: a handshake may have moved it out
/// meanwhile. A timeout is noted in `transcript` (the case started at `started`). Afterwards every server in `procs` is shut down (closed stdin, bounded wait,
/// SIGTERM, SIGKILL of the group, reaped), all at once, whatever happened.
pub async fn guard(
    check: CheckFuture,
    started: Instant,
    hard: &Deadline,
    procs: &Arc<Mutex<Vec<ProcHandle>>>,
    transcript: &Transcript,
) -> Guarded {
    let mut task = tokio::spawn(check);
    let abort = task.abort_handle();
    let outcome = loop {
        let at = hard.get();
        tokio::select! {
            joined = &mut task => break Some(joined),
            () = tokio::time::sleep_until(at.into()) => {
                if hard.get() <= Instant::now() {
                    break None;
                }
            }
        }
    };
    let guarded = match outcome {
        Some(Ok(Ok(c) | Err(c))) => Guarded::Finished(c),
        Some(Err(e)) => Guarded::Panicked(e.to_string()),
        None => {
            abort.abort();
            let after = started.elapsed();
            transcript.note(&format!("case timed out after {} ms", after.as_millis()));
            // The aborted check is gone (its clients dropped) before the case's slot is free:
            // `--jobs 1` means one case at a time, also after a timeout.
            let _ = (&mut task).await;
            Guarded::TimedOut(after)
        }
    };
    shutdown_all(procs).await;
    guarded
}

/// Shuts down every server in `procs`, all at once.
async fn shutdown_all(procs: &Arc<Mutex<Vec<ProcHandle>>>) {
    let handles: Vec<ProcHandle> = procs
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .drain(..)
        .collect();
    // Each shutdown waits on its own server's exit: side by side, a case with two servers
    // waits for the slower one, not for their sum.
    let mut shutdowns = JoinSet::new();
    for h in handles {
        shutdowns.spawn(async move { h.shutdown().await });
    }
    while shutdowns.join_next().await.is_some() {}
}

#[cfg(test)]
mod tests;
