//! The effective base timeout of a run (RUN-LOAD-1): `--timeout-ms`, or more when the discovery
//! session showed a slow start. A server that needs 5 s to initialize on its own needs more
//! than that when `--jobs` cases start one each on a machine with fewer cores, and no verdict may
//! depend on that: every case's deadlines (and the handshake's allowance, a multiple of the
//! base) derive from the effective timeout, which the report states.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;

/// How many starts measured alone a case's base timeout allows per unit of contention: one for
/// the handshake every case makes, one for the case's own work, which a loaded machine slows
/// in the same measure.
pub const STARTUP_FACTOR: u32 = 2;
/// Added to the scaled start: room for the case's own exchanges.
pub const STARTUP_MARGIN: Duration = Duration::from_secs(1);

/// A run's deadlines: what was configured, what discovery measured, and what the cases use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Deadlines {
    /// `--timeout-ms`.
    pub timeout_ms: u64,
    /// How long the discovery session's peer took from its spawn to its `initialize` answer.
    pub startup_ms: u64,
    /// How many peers may start on one core at once: `--jobs` over the cores, rounded up, at
    /// least 1.
    pub contention: u32,
    /// The base timeout every case uses: the larger of `timeout_ms` and
    /// [`STARTUP_FACTOR`] × `contention` × `startup_ms` + [`STARTUP_MARGIN`].
    pub effective_ms: u64,
}

impl Deadlines {
    /// The deadlines of a run with `configured` as `--timeout-ms`, a discovery start of
    /// `startup`, `jobs` cases at once on `cores` cores.
    #[must_use]
    pub fn derive(configured: Duration, startup: Duration, jobs: usize, cores: usize) -> Self {
        let contention = u32::try_from(jobs.max(1).div_ceil(cores.max(1))).unwrap_or(u32::MAX);
        // Whole milliseconds, as reported, so the report's numbers add up.
        let startup = Duration::from_millis(millis(startup));
        let scaled = startup
            .saturating_mul(STARTUP_FACTOR.saturating_mul(contention))
            .saturating_add(STARTUP_MARGIN);
        let effective = configured.max(scaled);
        Self {
            timeout_ms: millis(configured),
            startup_ms: millis(startup),
            contention,
            effective_ms: millis(effective),
        }
    }

    /// [`Deadlines::derive`] on this machine's cores.
    #[must_use]
    pub fn for_this_machine(configured: Duration, startup: Duration, jobs: usize) -> Self {
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        Self::derive(configured, startup, jobs, cores)
    }

    /// The base timeout the cases use.
    #[must_use]
    pub fn effective(&self) -> Duration {
        Duration::from_millis(self.effective_ms)
    }

    /// One line for the pretty report and logs.
    #[must_use]
    pub fn line(&self) -> String {
        if self.effective_ms == self.timeout_ms {
            format!(
                "deadlines: base case timeout {} ms (--timeout-ms; start-up measured {} ms)",
                self.timeout_ms, self.startup_ms
            )
        } else {
            format!(
                "deadlines: base case timeout {} ms, raised from --timeout-ms {} ms for a start-up \
                 of {} ms ({} × {} × start-up + {} ms)",
                self.effective_ms,
                self.timeout_ms,
                self.startup_ms,
                STARTUP_FACTOR,
                self.contention,
                STARTUP_MARGIN.as_millis()
            )
        }
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fast_start_keeps_the_configured_timeout() {
        let d = Deadlines::derive(Duration::from_secs(10), Duration::from_millis(40), 8, 2);
        assert_eq!((d.contention, d.effective_ms), (4, 10_000));
        assert!(d.line().contains("--timeout-ms"), "{}", d.line());
    }

    #[test]
    fn a_slow_start_raises_the_timeout_by_the_contention() {
        let start = Duration::from_secs(5);
        let alone = Deadlines::derive(Duration::from_secs(10), start, 1, 2);
        assert_eq!((alone.contention, alone.effective_ms), (1, 11_000));
        let eight = Deadlines::derive(Duration::from_secs(10), start, 8, 2);
        assert_eq!((eight.contention, eight.effective_ms), (4, 41_000));
        let odd = Deadlines::derive(Duration::from_secs(3), start, 3, 2);
        assert_eq!((odd.contention, odd.effective_ms), (2, 21_000));
        assert!(eight.line().contains("raised from"), "{}", eight.line());
        // No cores reported and no jobs still mean one of each.
        assert_eq!(Deadlines::derive(Duration::ZERO, start, 0, 0).contention, 1);
    }
}

/// A deadline shared by everything a case does, which the runner can move: the time a server
/// takes to answer `initialize` is not taken from the case (a slow start under load says
/// nothing about what the case checks), so each successful handshake pushes it out by as much.
#[derive(Debug, Clone)]
pub struct Deadline(Arc<std::sync::Mutex<Instant>>);

impl Deadline {
    /// A deadline at `at`.
    #[must_use]
    pub fn at(at: Instant) -> Self {
        Self(Arc::new(std::sync::Mutex::new(at)))
    }

    /// The current instant.
    #[must_use]
    pub fn get(&self) -> Instant {
        *self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Moves the deadline later by `by`.
    pub fn extend(&self, by: Duration) {
        let mut d = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *d += by;
    }

    /// Moves the deadline earlier by `by`.
    pub fn shorten(&self, by: Duration) {
        let mut d = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *d = d.checked_sub(by).unwrap_or(*d);
    }
}
