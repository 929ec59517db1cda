//! The probe barrier (GATE-LOAD-2): a cross-cutting case that probes a peer of its own
//! ([`crate::core::case::Needs::CrosscutProbe`]) runs in the parallel phase, queued behind every
//! other case of it, and grades only once all of them have finished ([`Settled`]), so it sees
//! every exchange they made while its own probe overlaps their tail instead of adding a phase.
//! The rules that watch the probes' exchanges still grade after them, in the last phase.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::watch;

/// What a probing case waits on before it grades: open once every other case of its phase has
/// finished (at once when there is none).
#[derive(Debug, Clone)]
pub struct Settled(watch::Receiver<bool>);

impl Settled {
    /// A barrier that is open already (a retry after its phase).
    #[must_use]
    pub fn open() -> Self {
        Self(watch::channel(true).1)
    }

    /// Whether every case it waits for has finished.
    #[must_use]
    pub fn is_open(&self) -> bool {
        *self.0.borrow()
    }

    /// Waits until it is open (or its opener is gone: a runner bug, never a hang).
    pub async fn wait(&self) {
        let mut rx = self.0.clone();
        let _ = rx.wait_for(|open| *open).await;
    }
}

/// Opens a [`Settled`] when the last of the cases it counts has finished.
#[derive(Debug)]
pub struct Opener {
    tx: watch::Sender<bool>,
    left: AtomicUsize,
}

impl Opener {
    /// An opener counting `cases` cases, and the barrier it opens.
    #[must_use]
    pub fn new(cases: usize) -> (Arc<Self>, Settled) {
        let (tx, rx) = watch::channel(cases == 0);
        (
            Arc::new(Self {
                tx,
                left: AtomicUsize::new(cases),
            }),
            Settled(rx),
        )
    }
}

/// One counted case: finished when dropped (after its run, or when its task panicked).
#[derive(Debug)]
pub struct Counted(pub Arc<Opener>);

impl Drop for Counted {
    fn drop(&mut self) {
        if self.0.left.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.tx.send_replace(true);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn it_opens_when_the_last_counted_case_is_done() {
        let (opener, settled) = Opener::new(2);
        let (a, b) = (Counted(opener.clone()), Counted(opener));
        assert!(!settled.is_open());
        drop(a);
        assert!(!settled.is_open());
        drop(b);
        assert!(settled.is_open());
        settled.wait().await;
        assert!(Opener::new(0).1.is_open());
        assert!(Settled::open().is_open());
    }
}
