//! How the fresh peers of a run's cases started. A peer whose later instances never initialize
//! (a lock file, a port, state its first instance leaves behind) looks, case by case, like a
//! machine too loaded to start it; across the run it is one cause, and each gate says it once.

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::sync::PoisonError;
use std::sync::atomic::{AtomicU32, Ordering};

/// The run's count of cases' peers that answered their first request, and of cases that gave
/// up on theirs.
#[derive(Debug, Default)]
pub struct Starts {
    answered: AtomicU32,
    /// The cases that gave up (a case the scheduler runs again counts once).
    given_up: Mutex<BTreeSet<&'static str>>,
}

impl Starts {
    /// Notes that a case's peer answered its first request.
    pub fn answered(&self) {
        self.answered.fetch_add(1, Ordering::Relaxed);
    }

    /// Whether no case's peer has answered its first request yet.
    #[must_use]
    pub fn none_answered(&self) -> bool {
        self.answered.load(Ordering::Relaxed) == 0
    }

    /// How many cases' peers answered their first request, and how many cases gave up.
    #[must_use]
    pub fn counts(&self) -> (u32, usize) {
        (self.answered.load(Ordering::Relaxed), self.gave_up(None))
    }

    /// Notes that `case` gave up (when given); how many cases did.
    pub fn gave_up(&self, case: Option<&'static str>) -> usize {
        let mut cases = self.given_up.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(case) = case {
            cases.insert(case);
        }
        cases.len()
    }

    /// How many cases gave up when no case's peer ever answered (the run's one line on it),
    /// else `None`.
    #[must_use]
    pub fn only_first_instance(&self) -> Option<usize> {
        match self.counts() {
            (0, given_up) if given_up > 0 => Some(given_up),
            _ => None,
        }
    }
}
