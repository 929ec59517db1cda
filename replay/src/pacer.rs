//! The player's extension point: what a caller adds to a replay for a peer that leaves evidence
//! beyond its stdout.
//!
//! [`crate::player`] paces the client side on the server's stdout alone: before each client
//! message it waits for the answers and notifications the recording shows before it. Some peers
//! do more than talk on stdout before the next client message may go: the reference adapter reads
//! native rows from a CLI it spawned (or lines from an ACP agent), which its own `--record` file
//! shows. A [`Pacer`] lets the caller
//!
//! - wait for such evidence too ([`Pacer::wait`]: bounded, a note for each wait that ran out);
//! - prepare what the peer needs just before a client message goes ([`Pacer::before_send`]: e.g.
//!   the scenario the next spawned native run will play);
//! - add the rows it observed to both transcripts ([`Pacer::side_rows`]: the `n2a`, `c2a` and
//!   `a2c` sections of [`crate::transcript`]).
//!
//! `mcp-replay run` uses [`NoPacer`]: stdout alone.

use std::time::Duration;

use crate::recording::Row;

/// Caller-supplied pacing and evidence for [`crate::player::run_with`]. Every method has a
/// default that adds nothing.
pub trait Pacer {
    /// Called before each client message, once the server messages the recording shows before
    /// it have come (or their waits ran out), and once more at the end, before the server's
    /// stdin closes. `before` is every recording row before that message (all directions, the
    /// meta row excluded; at the end the whole recording). Waits at most about `bound` until the
    /// peer has done whatever else `before` shows it did; returns a note for each wait that ran
    /// out (the replay goes on, the notes are reported).
    fn wait(&mut self, before: &[Row], bound: Duration) -> Vec<String> {
        let _ = (before, bound);
        Vec::new()
    }

    /// Called just before the recorded client row `row` is sent (after every wait), to prepare
    /// what the peer will need for it.
    fn before_send(&mut self, row: &Row) {
        let _ = row;
    }

    /// Called once the peer has ended: the side rows (`n2a`, `c2a`, `a2c`) the recording shows
    /// and those the replay observed, for the two transcripts.
    fn side_rows(&mut self, recorded: &[Row]) -> (Vec<Row>, Vec<Row>) {
        let _ = recorded;
        (Vec::new(), Vec::new())
    }
}

/// Paces on the server's stdout alone (what `mcp-replay run` does).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoPacer;

impl Pacer for NoPacer {}
