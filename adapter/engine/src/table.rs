//! The run table: the single source of truth for runs, their states, capacity and the work
//! snapshot (RUN-3, RUN-7, RUN-8, RUN-10, META-WORK-3..7).
//!
//! Lock order: the table lock, then a run's data lock; never the other way round. A state lives
//! in the table (so every change bumps the revision under one lock), a run's streamed data in
//! the run. States only move forward along RUN-10's order; a settled state is final.

use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{Map, Value, json};
use tokio::sync::watch;
use uuid::Uuid;

use crate::ingest::Ingest;
use crate::native::Cleanup;
use crate::outcome::Outcome;
use crate::results::{CancelAnswer, Released};
use crate::{ErrorCode, RunState, SnapshotRefused, ToolError};
use cmk_supervisor::ExitStatus;

/// Most retained runs (RUN-8).
pub(crate) const MAX_RETAINED: usize = 32;
/// Most runs that are active or have unconfirmed cleanup (RUN-8).
pub(crate) const MAX_ACTIVE: usize = 4;

/// Streamed data and the settled outcome of one run.
#[derive(Debug)]
pub(crate) struct RunData {
    /// Events, final, native errors, stderr tail.
    pub ingest: Ingest,
    /// How the leader ended.
    pub exit: Option<ExitStatus>,
    /// Cleanup as reported (set when settling ends).
    pub cleanup: Option<Cleanup>,
    /// The classification (set just before the state becomes settled).
    pub outcome: Option<Outcome>,
}

/// One run, shared by its driver task and readers.
#[derive(Debug)]
pub(crate) struct Run {
    /// The opaque id.
    pub run_id: String,
    /// The provider's namespace (PROV-2): the run's tools are `<namespace>.run…` and its work
    /// kind `<namespace>.run`.
    pub namespace: &'static str,
    /// The timeout, for messages.
    pub timeout_s: u64,
    /// Streamed data.
    pub data: Mutex<RunData>,
    /// `events_total`, for T9 progress.
    pub progress: watch::Sender<u64>,
    /// The state, for waiters.
    pub state: watch::Sender<RunState>,
    /// Set once a cancel was asked (RUN-6, T7, T8).
    pub cancel: watch::Sender<bool>,
}

impl Run {
    /// Locks the data (a poisoned lock still holds consistent counters: take it).
    pub(crate) fn data(&self) -> MutexGuard<'_, RunData> {
        self.data
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[derive(Debug)]
struct Entry {
    run: Arc<Run>,
    acquired_by: Option<Uuid>,
    state: RunState,
}

#[derive(Debug, Default)]
struct Inner {
    revision: u64,
    runs: Vec<Entry>,
}

/// The table.
#[derive(Debug, Default)]
pub(crate) struct Table {
    inner: Mutex<Inner>,
}

impl Table {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// RUN-8: admits a new run in state `pending`, evicting the oldest settled run with
    /// confirmed cleanup when 32 are retained.
    pub(crate) fn admit(&self, run: Arc<Run>, acquired_by: Option<Uuid>) -> Result<(), ToolError> {
        let mut t = self.lock();
        let busy = t
            .runs
            .iter()
            .filter(|e| e.state.is_active() || e.state == RunState::Uncertain)
            .count();
        if busy >= MAX_ACTIVE {
            return Err(ToolError::new(
                ErrorCode::CapacityExhausted,
                format!(
                    "{busy} runs are active or have unconfirmed cleanup (at most {MAX_ACTIVE})"
                ),
            ));
        }
        if t.runs.len() >= MAX_RETAINED {
            let Some(i) = t.runs.iter().position(|e| e.state.is_evictable()) else {
                return Err(ToolError::new(
                    ErrorCode::CapacityExhausted,
                    format!(
                        "{MAX_RETAINED} runs are retained and none is settled with confirmed \
                         cleanup; release one first"
                    ),
                ));
            };
            t.runs.remove(i);
            t.revision += 1;
        }
        t.runs.push(Entry {
            run,
            acquired_by,
            state: RunState::Pending,
        });
        t.revision += 1;
        Ok(())
    }

    /// Moves a run forward to `to` (ignored when it is not forward, or the run is gone).
    /// Returns whether the state changed.
    pub(crate) fn advance(&self, run_id: &str, to: RunState) -> bool {
        let mut t = self.lock();
        let Some(e) = t.runs.iter_mut().find(|e| e.run.run_id == run_id) else {
            return false;
        };
        if e.state.rank() >= to.rank() {
            return false;
        }
        e.state = to;
        e.run.state.send_replace(to);
        t.revision += 1;
        true
    }

    /// The run and its current state.
    pub(crate) fn get(
        &self,
        run_id: &str,
    ) -> Result<(Arc<Run>, RunState, Option<Uuid>), ToolError> {
        let t = self.lock();
        t.runs
            .iter()
            .find(|e| e.run.run_id == run_id)
            .map(|e| (e.run.clone(), e.state, e.acquired_by))
            .ok_or_else(|| unknown(run_id))
    }

    /// RUN-6: asks a run to stop. Settled runs are untouched.
    ///
    /// C-RUN-2: an active run's answer is the state this call leaves it in (`settling`), decided
    /// under the table's lock together with the cancel itself, so a driver settling the run on
    /// another thread right after cannot turn the answer into `cancelled` with
    /// `already_settled: false`.
    pub(crate) fn cancel(&self, run_id: &str) -> Result<CancelAnswer, ToolError> {
        let mut t = self.lock();
        let e = t
            .runs
            .iter_mut()
            .find(|e| e.run.run_id == run_id)
            .ok_or_else(|| unknown(run_id))?;
        if e.state.is_settled() {
            return Ok(CancelAnswer {
                run_id: run_id.to_owned(),
                state: e.state,
                already_settled: true,
            });
        }
        e.run.cancel.send_replace(true);
        // The run is settling from now on: its cleanup completes in the background.
        let moved = e.state.rank() < RunState::Settling.rank();
        if moved {
            e.state = RunState::Settling;
            e.run.state.send_replace(RunState::Settling);
        }
        let state = e.state;
        if moved {
            t.revision += 1;
        }
        Ok(CancelAnswer {
            run_id: run_id.to_owned(),
            state,
            already_settled: false,
        })
    }

    /// RUN-7: discards a settled run with confirmed cleanup; calls `on_idle` when that leaves
    /// the table empty.
    pub(crate) fn release(
        &self,
        run_id: &str,
        on_idle: impl FnOnce(),
    ) -> Result<Released, ToolError> {
        let mut t = self.lock();
        let i = t
            .runs
            .iter()
            .position(|e| e.run.run_id == run_id)
            .ok_or_else(|| unknown(run_id))?;
        let state = t.runs[i].state;
        if state.is_active() {
            return Err(ToolError::new(
                ErrorCode::RunActive,
                format!(
                    "run {run_id} is {}; cancel it or wait until it settles",
                    state.as_str()
                ),
            )
            .with("state", state.as_str().into()));
        }
        if state == RunState::Uncertain {
            return Err(ToolError::new(
                ErrorCode::CleanupUnconfirmed,
                format!("run {run_id} has unconfirmed cleanup and stays retained"),
            )
            .with("state", state.as_str().into()));
        }
        let entry = t.runs.remove(i);
        t.revision += 1;
        let idle = t.runs.is_empty();
        drop(t);
        // The run's buffers are freed here when no reader holds it any more.
        drop(entry);
        if idle {
            // No retained run: no child process either (the host's hook ends a kept spare
            // supervisor and gives freed memory back).
            on_idle();
        }
        Ok(Released {
            run_id: run_id.to_owned(),
            released: true,
        })
    }

    /// Every retained run, oldest first.
    pub(crate) fn all(&self) -> Vec<(Arc<Run>, RunState, Option<Uuid>)> {
        let t = self.lock();
        t.runs
            .iter()
            .map(|e| (e.run.clone(), e.state, e.acquired_by))
            .collect()
    }

    /// META-WORK-3..7: the snapshot, or why it cannot be served. Reading changes nothing.
    pub(crate) fn snapshot(&self, instance: Uuid) -> Result<Value, SnapshotRefused> {
        let t = self.lock();
        let unbound = t.runs.iter().filter(|e| e.acquired_by.is_none()).count();
        if unbound > 0 {
            return Err(SnapshotRefused {
                unbound: t
                    .runs
                    .iter()
                    .filter(|e| e.acquired_by.is_none())
                    .map(|e| {
                        (
                            e.run.run_id.clone(),
                            format!("{}.run", e.run.namespace),
                            e.state,
                        )
                    })
                    .collect(),
                unbound_runs: unbound,
                last_revision: t.revision,
            });
        }
        let work: Vec<Value> = t
            .runs
            .iter()
            .filter_map(|e| {
                let by = e.acquired_by?;
                let mut m = Map::new();
                // PROV-2: one snapshot holds every provider's runs, each under its own kind.
                m.insert("kind".into(), format!("{}.run", e.run.namespace).into());
                m.insert("run_id".into(), e.run.run_id.clone().into());
                m.insert("acquired_by".into(), by.to_string().into());
                m.insert("state".into(), e.state.as_str().into());
                Some(Value::Object(m))
            })
            .collect();
        Ok(json!({
            "format_version": 1,
            "instance": instance.to_string(),
            "revision": t.revision,
            "work": work,
        }))
    }

    /// The current revision.
    #[cfg(test)]
    pub(crate) fn revision(&self) -> u64 {
        self.lock().revision
    }
}

fn unknown(run_id: &str) -> ToolError {
    ToolError::new(
        ErrorCode::UnknownRun,
        format!("no retained run {run_id} (unknown, released or evicted)"),
    )
}
