//! What the client owes across the run: every agent request answered (JSON-RPC 2.0 §4: "The
//! Server MUST reply with a Response"; ACP: both sides send requests), graded under
//! [`super::checks::TURN_CASE`] on every case's run, not only on that case's own scenario (ACP-GATE-2). A
//! client that answers the one permission request of the turn case's scenario and leaves the
//! second of two in a row unanswered fails that rule once, with the first run that showed it
//! (in catalogue order), and the cases that judge those answers are `skip`, blocked by it: one
//! defect, one verdict.
//!
//! Not booked: a request answered under another id (`client/response-ids`' subject, see
//! [`super::checks::mislabelled`]), and the runs of the cases whose own subject is whether one
//! request gets its answer (the cancel cases, the colliding id, the request after unknown
//! updates: [`super::gate::Script::grades_answers`]); they grade it themselves.

use std::sync::{Arc, Mutex, PoisonError};

use super::checks::{ending, label, mislabelled, turn};
use super::run::Ran;

/// The first run (by catalogue position) that left an agent request unanswered.
#[derive(Debug, Clone, Default)]
pub struct Owed(Arc<Mutex<Option<Unanswered>>>);

/// One run's unanswered agent requests, described.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unanswered {
    /// The case whose run showed them.
    pub case: &'static str,
    /// Its place in the catalogue.
    pub position: usize,
    /// `method (id X): no answer; …; what the client did at the end`.
    pub evidence: String,
}

impl Owed {
    /// An empty store.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Books the agent requests of `ran` (case `case`, catalogue `position`) that got no
    /// answer at all, keeping the first run's by position. A run without a turn books nothing
    /// (its cases are blocked by [`super::checks::TURN_CASE`] already).
    pub fn book(&self, ran: &Ran, case: &'static str, position: usize) {
        let Ok((pid, _)) = turn(ran) else { return };
        let requests = ran.wire.agent_requests(pid);
        let missing: Vec<_> = requests
            .iter()
            .filter(|r| ran.wire.answer_to(pid, r).is_none())
            .collect();
        let unanswered: Vec<String> = missing
            .iter()
            .zip(mislabelled(ran, pid, &missing))
            .filter(|(_, m)| !m)
            .map(|(r, _)| format!("{}: no answer", label(r)))
            .collect();
        if unanswered.is_empty() {
            return;
        }
        let found = Unanswered {
            case,
            position,
            evidence: format!("{}; {}", unanswered.join("; "), ending(ran, pid)),
        };
        let mut first = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if first.as_ref().is_none_or(|f| f.position > position) {
            *first = Some(found);
        }
    }

    /// The first run's unanswered requests, if any run left one.
    #[must_use]
    pub fn first(&self) -> Option<Unanswered> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}
