//! T9: `notifications/progress` for a `claude.run` call that carried `_meta.progressToken`, sent
//! as native events arrive so hosts that reset their timeout on progress keep waiting.
//!
//! `progress` is the run's `events_total` (strictly increasing, as MCP requires) and
//! notifications are rate-limited to at most [`MAX_PER_SECOND`] per call.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::transport::Outbox;

/// Upper bound on progress notifications per call and second (T9).
pub const MAX_PER_SECOND: u32 = 4;

/// A running progress forwarder for one call.
pub struct Forwarder {
    handle: JoinHandle<()>,
    last: Arc<AtomicU64>,
    events: watch::Receiver<u64>,
    out: Outbox,
    token: Value,
    with_message: bool,
}

/// Starts forwarding; call [`Forwarder::finish`] before answering the call, so no progress
/// follows the response.
pub fn forward(
    out: Outbox,
    token: Value,
    events: watch::Receiver<u64>,
    with_message: bool,
) -> Forwarder {
    let pause = Duration::from_secs(1) / MAX_PER_SECOND;
    let last = Arc::new(AtomicU64::new(0));
    let handle = {
        let (out, token, last, mut events) =
            (out.clone(), token.clone(), last.clone(), events.clone());
        tokio::spawn(async move {
            loop {
                if events.changed().await.is_err() {
                    return; // The run's sender is gone: nothing more will come.
                }
                let n = *events.borrow_and_update();
                if n > last.load(Ordering::SeqCst) {
                    last.store(n, Ordering::SeqCst);
                    out.send(notification(&token, n, with_message)).await;
                }
                tokio::time::sleep(pause).await;
            }
        })
    };
    Forwarder {
        handle,
        last,
        events,
        out,
        token,
        with_message,
    }
}

impl Forwarder {
    /// Stops forwarding. A run that produced events but whose forwarder never got to send one
    /// (it settled before the first change was seen) still gets exactly one notification, so
    /// whether a call saw progress does not depend on scheduling; none is sent after this.
    pub async fn finish(self) {
        self.handle.abort();
        let _ = self.handle.await;
        let n = *self.events.borrow();
        if n > 0 && self.last.load(Ordering::SeqCst) == 0 {
            self.out
                .send(notification(&self.token, n, self.with_message))
                .await;
        }
    }
}

fn notification(token: &Value, n: u64, with_message: bool) -> Value {
    let mut params = json!({"progressToken": token, "progress": n});
    if with_message {
        // `message` exists from protocol version 2025-03-26 on.
        params["message"] = format!("{n} native events").into();
    }
    mcp_wire::notification("notifications/progress", Some(params))
}

/// A usable progress token: MCP allows a string or an integer.
#[must_use]
pub fn token(meta: Option<&serde_json::Map<String, Value>>) -> Option<Value> {
    meta.and_then(|m| m.get("progressToken"))
        .filter(|t| t.is_string() || t.is_i64() || t.is_u64())
        .cloned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::transport::Outbox;

    #[tokio::test]
    async fn events_that_all_arrived_before_forwarding_still_give_one_notification() {
        // T9: the run wrote everything before the forwarder subscribed, so no change is ever
        // seen; finishing must still report the count once.
        let (tx, _keep) = watch::channel(0u64);
        tx.send_replace(5);
        let (out, mut sent) = Outbox::capture();
        let f = forward(out, json!("t"), tx.subscribe(), true);
        f.finish().await;
        let got = sent.recv().await.expect("one notification");
        assert_eq!(got["params"]["progress"], 5);
        assert_eq!(got["params"]["progressToken"], "t");
        assert!(sent.try_recv().is_err(), "exactly one");
    }

    #[tokio::test]
    async fn no_events_no_notification() {
        let (tx, _keep) = watch::channel(0u64);
        let (out, mut sent) = Outbox::capture();
        forward(out, json!(1), tx.subscribe(), false).finish().await;
        tokio::task::yield_now().await;
        assert!(sent.try_recv().is_err());
    }

    #[tokio::test]
    async fn nothing_is_added_when_the_forwarder_already_reported() {
        let (tx, _keep) = watch::channel(0u64);
        let (out, mut sent) = Outbox::capture();
        let f = forward(out, json!(1), tx.subscribe(), false);
        tx.send_replace(3);
        let first = sent.recv().await.expect("forwarded");
        assert_eq!(first["params"]["progress"], 3);
        f.finish().await;
        tokio::task::yield_now().await;
        assert!(
            sent.try_recv().is_err(),
            "no second notification for the same count"
        );
    }
}
