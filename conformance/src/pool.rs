//! Protocol-neutral scheduling (`--jobs`), shared by both runners' schedulers (MCP's
//! [`crate::schedule`], ACP's `crate::acp::schedule`): the start order (costliest first), the
//! pool that runs one task per case under a concurrency limit, the guard that runs one check in
//! a task of its own against a deadline that may move and kills every server it started, and
//! the resolution of blocked verdicts (one defect, one verdict).

use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use tokio::sync::{Semaphore, mpsc};
use tokio::task::JoinSet;

use crate::client::{Deadline, ProcHandle};
use crate::model::{Check, CheckFuture};
use crate::transcript::Transcript;

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
/// as it finishes. Returns the results indexed by `i` in a vector of `len`; an index whose task
/// panicked (a runner bug) stays `None`, and the panic is reported on stderr with `runner` as
/// the prefix.
pub async fn run_indexed<R, F, Fut>(
    runner: &str,
    len: usize,
    order: Vec<usize>,
    permits: Arc<Semaphore>,
    progress: Option<&mpsc::UnboundedSender<R>>,
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
            if let Some(p) = &progress {
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
            Guarded::TimedOut(after)
        }
    };
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
    guarded
}

/// A finished case whose verdict may be a [`Check::Blocked`].
pub trait Blockable {
    /// The case's id.
    fn case_id(&self) -> &'static str;
    /// The case's verdict.
    fn verdict(&mut self) -> &mut Check;
}

/// One defect, one verdict: a case blocked by another stays a `skip` (with `blocked_by`) only
/// when that case ran and failed in this run; otherwise (not selected, passed, skipped) it is
/// graded by the failure it would have been, so a selection never turns a defect green.
pub fn resolve_blocked<T: Blockable>(ran: &mut [T]) {
    let mut failed = std::collections::HashSet::new();
    for r in ran.iter_mut() {
        if r.verdict().is_fail() {
            failed.insert(r.case_id());
        }
    }
    for r in ran.iter_mut() {
        while let Check::Blocked { by, fallback } = r.verdict() {
            if failed.contains(&*by) {
                break;
            }
            let fallback = (**fallback).clone();
            *r.verdict() = fallback;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_costliest_case_starts_first_and_ties_keep_catalogue_order() {
        assert_eq!(longest_first(&[1, 5, 3, 5, 0]), vec![1, 3, 2, 0, 4]);
        assert!(longest_first::<u32>(&[]).is_empty());
    }

    struct R(&'static str, Check);
    impl Blockable for R {
        fn case_id(&self) -> &'static str {
            self.0
        }
        fn verdict(&mut self) -> &mut Check {
            &mut self.1
        }
    }

    #[test]
    fn a_blocked_case_stays_a_skip_only_when_its_blocker_failed() {
        let blocked = |by| Check::blocked(by, Check::fail("x", "y"));
        let mut ran = [
            R("a", Check::fail("e", "a")),
            R("b", Check::Pass),
            R("c", blocked("a")),
            R("d", blocked("b")),
        ];
        resolve_blocked(&mut ran);
        assert!(matches!(ran[2].1, Check::Blocked { by: "a", .. }));
        assert!(ran[3].1.is_fail(), "{:?}", ran[3].1);
    }
}
