//! The table of in-flight `claude.run` calls (T7): a waiting call registers its request id and
//! run, and `notifications/cancelled` ([`crate::cancelled`]) finds it there.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::Value;
use tokio::sync::oneshot;

struct Entry {
    token: u64,
    run_id: String,
    cancel: oneshot::Sender<()>,
}

/// In-flight `claude.run` calls by request id (the id's JSON text, so `1` and `"1"` differ).
#[derive(Clone, Default)]
pub struct InflightCalls {
    inner: Arc<Mutex<HashMap<String, Entry>>>,
    next_token: Arc<AtomicU64>,
}

impl std::fmt::Debug for InflightCalls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("InflightCalls")
    }
}

/// A registered call: fires `cancelled` when a cancellation names it.
#[derive(Debug)]
pub struct Registration {
    /// Distinguishes this call from a later one reusing its id.
    pub token: u64,
    /// Resolves when the host cancelled this request.
    pub cancelled: oneshot::Receiver<()>,
}

impl InflightCalls {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, Entry>> {
        // The map stays consistent whatever a panicking holder did: each operation is one
        // insert or remove.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Registers the call with `id` waiting on `run_id`. A host reusing the id of a call still
    /// in flight (a protocol violation) makes cancellations reach the newer call only.
    pub fn register(&self, id: &Value, run_id: &str) -> Registration {
        let token = self.next_token.fetch_add(1, Ordering::Relaxed);
        let (cancel, cancelled) = oneshot::channel();
        self.lock().insert(
            id.to_string(),
            Entry {
                token,
                run_id: run_id.to_owned(),
                cancel,
            },
        );
        Registration { token, cancelled }
    }

    /// The call finished (answered): later cancellations naming it are ignored.
    pub fn finish(&self, id: &Value, token: u64) {
        let mut map = self.lock();
        let key = id.to_string();
        if map.get(&key).is_some_and(|e| e.token == token) {
            map.remove(&key);
        }
    }

    /// Removes the call with `id`, tells it it was cancelled and returns its run, if it was in
    /// flight.
    pub fn cancel(&self, id: &Value) -> Option<String> {
        let entry = self.lock().remove(&id.to_string())?;
        let _ = entry.cancel.send(());
        Some(entry.run_id)
    }
}
