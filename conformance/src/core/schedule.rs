//! The one scheduler of both gates (`--jobs`): every selected case in a task of its own under a
//! concurrency limit, with its own [`Scope`] (transcript, the peers it starts, deadlines that a
//! handshake may move) and a timeout; afterwards every peer the case started is killed by
//! process group, whatever happened. Four phases (GATE-LOAD-2): the parallel one (costliest
//! first), then the exclusive one (cases that judge their peer's own lifecycle, one at a time,
//! no other case alive), then the cross-cutting cases, which grade what every other case
//! showed: those that probe a peer of their own first ([`Needs::CrosscutProbe`]), then the
//! others ([`Needs::Crosscut`]), which grade the probes' exchanges too. A runner `error` is
//! retried once after its phase, one retry at a time (GATE-LOAD-3); blocked verdicts are
//! resolved against the cases that block them (one defect, one verdict,
//! [`crate::core::blocked`]). A gate plugs in through [`Runner`]: how a case's context is made
//! from its scope, and what a timeout is called.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::{Semaphore, mpsc};
use tokio::task::JoinSet;

use crate::core::blocked::{Blockable, resolve_blocked};
use crate::core::case::{Case, Gate, Needs};
use crate::core::client::{Client, Deadline, ProcHandle, ServerSpec};
use crate::core::model::{Check, CheckFuture};
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
/// run one after another: the parallel cases longest first ([`Runner::cost`]; ties in
/// catalogue order), then the exclusive ones ([`Case::exclusive`]) one at a time, then the
/// cross-cutting ones that probe, then the other cross-cutting ones; each phase's runner errors are retried once at its end
/// (`run_phase`), and blocked cases are resolved against the verdicts of the cases that
/// block them ([`resolve_blocked`]).
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
    for (phase, limit) in [
        (parallel, &permits),
        (exclusive, &alone),
        (probes, &permits),
        (late, &permits),
    ] {
        if phase.is_empty() {
            continue;
        }
        let results = run_phase(
            &runner,
            &cases,
            phase,
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

/// Runs the cases of one phase (`order`, indexes into `cases`) under `permits`, then once more
/// each that ended in a runner error ([`Check::Error`], GATE-LOAD-3): the kit's own failure (a
/// spawn that failed, a fresh peer silent on `initialize` under load) says nothing about the
/// peer. The retries run one at a time: the load that caused the errors was largely the phase's
/// own `--jobs` peers starting at once, and retrying them all together again (a slow-starting
/// .NET or Python server, eight retries on two cores) recreated it. Only the retry's result is
/// reported, with a note in its transcript; a failure is never retried.
async fn run_phase<R: Runner>(
    runner: &Arc<R>,
    cases: &[Case<R::Gate>],
    order: Vec<usize>,
    permits: Arc<Semaphore>,
    timeout: Duration,
    progress: Option<&mpsc::UnboundedSender<Ran<R::Gate>>>,
) -> Vec<Option<Ran<R::Gate>>> {
    let mut results = run_indexed(
        runner.name(),
        cases.len(),
        order,
        permits,
        progress,
        |r: &Ran<R::Gate>| !matches!(r.check, Check::Error(_)),
        |index| run_one(runner.clone(), cases[index], timeout, None),
    )
    .await;
    let errors: Vec<(usize, String)> = results
        .iter()
        .enumerate()
        .filter_map(|(i, r)| match r.as_ref().map(|r| &r.check) {
            Some(Check::Error(why)) => Some((i, why.clone())),
            _ => None,
        })
        .collect();
    if errors.is_empty() {
        return results;
    }
    let reasons: std::collections::HashMap<usize, String> = errors.iter().cloned().collect();
    let retried = run_indexed(
        runner.name(),
        cases.len(),
        errors.iter().map(|(i, _)| *i).collect(),
        Arc::new(Semaphore::new(1)),
        progress,
        |_| true,
        |index| {
            let why = reasons.get(&index).cloned().unwrap_or_default();
            run_one(runner.clone(), cases[index], timeout, Some(why))
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

async fn run_one<R: Runner>(
    runner: Arc<R>,
    case: Case<R::Gate>,
    base: Duration,
    retry_of: Option<String>,
) -> Ran<R::Gate> {
    let started = Instant::now();
    let timeout = case.timeout(base);
    let transcript = runner.transcript();
    if let Some(why) = &retry_of {
        transcript.note(&format!(
            "the case's first run ended in a runner error ({why}); this is its one retry \
             (GATE-LOAD-3)"
        ));
    }
    let scope = Scope::new(
        case.id,
        timeout,
        transcript.clone(),
        wait_deadline(started + timeout, timeout),
        started + timeout,
    );
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
mod tests {
    use super::*;

    #[test]
    fn a_short_case_timeout_still_leaves_most_of_it_to_wait_with() {
        let now = Instant::now();
        for ms in [100, 300, 400, 1_000] {
            let timeout = Duration::from_millis(ms);
            let wait = wait_deadline(now + timeout, timeout);
            assert!(
                wait >= now + timeout * 3 / 4,
                "--timeout-ms {ms}: waits end {:?} after the start",
                wait.duration_since(now)
            );
            assert!(wait < now + timeout, "the margin is never zero");
        }
        let long = Duration::from_secs(10);
        assert_eq!(
            wait_deadline(now + long, long),
            now + long - WAIT_MARGIN,
            "long cases keep the full margin"
        );
    }

    #[test]
    fn the_costliest_case_starts_first_and_ties_keep_catalogue_order() {
        assert_eq!(longest_first(&[1, 5, 3, 5, 0]), vec![1, 3, 2, 0, 4]);
        assert!(longest_first::<u32>(&[]).is_empty());
    }

    /// A gate whose cases pass only when another runs at the same time.
    struct Meet;

    /// How many cases are running, whether two ever ran at once, and a wake-up.
    #[derive(Default)]
    struct Room {
        inside: std::sync::atomic::AtomicUsize,
        /// Two cases were inside at once.
        met: AtomicBool,
        changed: tokio::sync::Notify,
        /// Runs of the flaky, failing and broken checks.
        flaky: std::sync::atomic::AtomicUsize,
        failing: std::sync::atomic::AtomicUsize,
        broken: std::sync::atomic::AtomicUsize,
    }

    /// A case's presence in the room, left when the case ends (also when it is aborted).
    struct Present(Arc<Room>);

    impl Drop for Present {
        fn drop(&mut self) {
            self.0.inside.fetch_sub(1, Ordering::SeqCst);
            self.0.changed.notify_waiters();
        }
    }

    #[derive(Debug, Clone, Copy, serde::Serialize)]
    struct OneProfile;

    impl crate::core::report::ProfileName for OneProfile {
        fn name(&self) -> &'static str {
            "one"
        }
    }

    impl Gate for Meet {
        type Ctx = Arc<Room>;
        type Levels = crate::core::model::Level;
        type Variant = ();
        type Profile = OneProfile;
        fn level(levels: &Self::Levels, _: Self::Profile) -> Option<crate::core::model::Level> {
            Some(*levels)
        }
    }

    struct MeetRunner(Arc<Room>);

    impl Runner for MeetRunner {
        type Gate = Meet;
        fn name(&self) -> &'static str {
            "test"
        }
        fn peer(&self) -> &'static str {
            "peer"
        }
        fn timeout_expected(&self, _: Duration) -> String {
            "the other case at once".into()
        }
        fn context(&self, _: &Case<Meet>, _: Scope) -> Result<Made<Meet>, Check> {
            Ok((self.0.clone(), Box::new(())))
        }
    }

    async fn meet(room: Arc<Room>) -> crate::core::model::CheckResult {
        if room.inside.fetch_add(1, Ordering::SeqCst) >= 1 {
            room.met.store(true, Ordering::SeqCst);
        }
        room.changed.notify_waiters();
        let _present = Present(room.clone());
        loop {
            let changed = room.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            if room.met.load(Ordering::SeqCst) {
                return Ok(Check::Pass);
            }
            changed.await;
        }
    }

    /// An exclusive case: passes when no other case is inside as it enters, nor enters while
    /// it waits (200 ms at most) for one.
    async fn alone(room: Arc<Room>) -> crate::core::model::CheckResult {
        let changed = room.changed.notified();
        tokio::pin!(changed);
        changed.as_mut().enable();
        let before = room.inside.fetch_add(1, Ordering::SeqCst);
        let _present = Present(room.clone());
        let _ = tokio::time::timeout(Duration::from_millis(200), changed).await;
        let now = room.inside.load(Ordering::SeqCst);
        if before == 0 && now == 1 {
            Ok(Check::Pass)
        } else {
            Err(Check::fail(
                "alone",
                format!("{before} then {} others", now - 1),
            ))
        }
    }

    /// A runner error on its first run only.
    async fn flaky(room: Arc<Room>) -> crate::core::model::CheckResult {
        if room.flaky.fetch_add(1, Ordering::SeqCst) == 0 {
            return Err(Check::Error("spawn failed".into()));
        }
        Ok(Check::Pass)
    }

    /// A failure on every run.
    async fn failing(room: Arc<Room>) -> crate::core::model::CheckResult {
        room.failing.fetch_add(1, Ordering::SeqCst);
        Err(Check::fail("an answer", "none"))
    }

    /// A runner error on every run.
    async fn broken(room: Arc<Room>) -> crate::core::model::CheckResult {
        room.broken.fetch_add(1, Ordering::SeqCst);
        Err(Check::Error("spawn failed".into()))
    }

    fn case(id: &'static str, check: fn(Arc<Room>) -> CheckFuture) -> Case<Meet> {
        Case::<Meet> {
            id,
            requirement: "r",
            levels: crate::core::model::Level::Must,
            description: "d",
            needs: Needs::Server,
            timeout_factor: 1,
            cost_ms: 0,
            exclusive: false,
            check,
            variant: (),
        }
    }

    fn run_in(
        room: &Arc<Room>,
        cases: Vec<Case<Meet>>,
        jobs: usize,
        progress: Option<mpsc::UnboundedSender<Ran<Meet>>>,
    ) -> Vec<Ran<Meet>> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .expect("runtime");
        rt.block_on(run_all(
            Arc::new(MeetRunner(room.clone())),
            cases,
            Settings {
                timeout: Duration::from_millis(500),
                jobs,
            },
            progress,
        ))
    }

    fn meeting(jobs: usize) -> Vec<Ran<Meet>> {
        let meets = |id| case(id, |b| Box::pin(meet(b)));
        run_in(
            &Arc::default(),
            vec![meets("a/one"), meets("a/two")],
            jobs,
            None,
        )
    }

    #[test]
    fn an_exclusive_case_runs_with_no_other_case_alive() {
        // GATE-LOAD-2: listed first and with room for all three at once, the exclusive case
        // still waits for the parallel phase and runs alone; the others still meet.
        let mut solo = case("x/alone", |b| Box::pin(alone(b)));
        solo.exclusive = true;
        let meets = |id| case(id, |b| Box::pin(meet(b)));
        let ran = run_in(
            &Arc::default(),
            vec![solo, meets("a/one"), meets("a/two")],
            3,
            None,
        );
        assert!(ran.iter().all(|r| r.check == Check::Pass), "{ran:?}");
        assert!(
            ran[0].started >= ran[1].started + ran[1].duration
                && ran[0].started >= ran[2].started + ran[2].duration,
            "{ran:?}"
        );
    }

    #[test]
    fn a_runner_error_is_retried_once_and_a_failure_never() {
        // GATE-LOAD-3.
        let room: Arc<Room> = Arc::default();
        let (tx, mut rx) = mpsc::unbounded_channel();
        let ran = run_in(
            &room,
            vec![
                case("r/flaky", |b| Box::pin(flaky(b))),
                case("r/failing", |b| Box::pin(failing(b))),
                case("r/broken", |b| Box::pin(broken(b))),
            ],
            2,
            Some(tx),
        );
        assert_eq!(ran[0].check, Check::Pass, "{ran:?}");
        assert!(ran[1].check.is_fail(), "{ran:?}");
        assert!(matches!(ran[2].check, Check::Error(_)), "{ran:?}");
        let runs = |n: &std::sync::atomic::AtomicUsize| n.load(Ordering::SeqCst);
        assert_eq!(
            (runs(&room.flaky), runs(&room.failing), runs(&room.broken)),
            (2, 1, 2)
        );
        assert!(
            ran[0]
                .transcript
                .iter()
                .any(|e| e.line.contains("runner error (spawn failed)")),
            "{:?}",
            ran[0].transcript
        );
        // Progress shows each case once: the retry's result, never the first run's error.
        let mut shown = Vec::new();
        while let Ok(r) = rx.try_recv() {
            shown.push((r.case.id, matches!(r.check, Check::Error(_))));
        }
        shown.sort_unstable();
        assert_eq!(
            shown,
            [("r/broken", true), ("r/failing", false), ("r/flaky", false)]
        );
    }

    /// A runner error whenever another case runs beside it (a peer that starts in time only
    /// alone): [`alone`]'s failure turned into the kit's own error.
    async fn crowded(room: Arc<Room>) -> crate::core::model::CheckResult {
        match alone(room).await {
            Err(c) if c.is_fail() => Err(Check::Error("not answered under load".into())),
            other => other,
        }
    }

    #[test]
    fn runner_errors_are_retried_one_at_a_time() {
        // GATE-LOAD-3: three cases that err only when crowded all err at --jobs 3; their
        // retries, run together again, would err again.
        let ran = run_in(
            &Arc::default(),
            vec![
                case("c/one", |b| Box::pin(crowded(b))),
                case("c/two", |b| Box::pin(crowded(b))),
                case("c/three", |b| Box::pin(crowded(b))),
            ],
            3,
            None,
        );
        assert!(ran.iter().all(|r| r.check == Check::Pass), "{ran:?}");
        assert!(
            ran.iter().all(|r| r
                .transcript
                .iter()
                .any(|e| e.line.contains("not answered under load"))),
            "each passed on its retry: {ran:?}"
        );
    }

    #[test]
    fn jobs_is_how_many_cases_run_at_once() {
        let together = meeting(2);
        assert!(
            together.iter().all(|r| r.check == Check::Pass),
            "{together:?}"
        );
        // One at a time, neither meets the other: each ends at its timeout.
        let alone = meeting(1);
        assert!(
            alone.iter().all(|r| r.timed_out && r.check.is_fail()),
            "{alone:?}"
        );
    }
}
