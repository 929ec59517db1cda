//! T9: `notifications/progress` for a `<ns>.run` call that carried `_meta.progressToken`, sent
//! as native events arrive so hosts that reset their timeout on progress keep waiting, and as a
//! heartbeat [`HEARTBEAT`] after the last notification while the native side is silent (a model
//! thinking quietly must not look like a dead call to a host with a reset-on-progress timeout).
//!
//! `progress` is the run's `events_total` plus the heartbeats sent so far, so it is strictly
//! increasing, as MCP requires, whichever of the two moved; `message` says both. Notifications
//! are rate-limited to at most [`MAX_PER_SECOND`] per call.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::transport::Outbox;

/// Upper bound on progress notifications per call and second (T9).
pub(crate) const MAX_PER_SECOND: u32 = 4;
/// While no native event arrives, a progress notification is still sent this long after the
/// last one (C-T9).
pub(crate) const HEARTBEAT: Duration = Duration::from_secs(1);

/// A running progress forwarder for one call.
pub(crate) struct Forwarder {
    handle: JoinHandle<()>,
    /// The last value actually handed to the outbox (0: none yet).
    delivered: Arc<AtomicU64>,
    ticks: Arc<AtomicU64>,
    events: watch::Receiver<u64>,
    out: Outbox,
    token: Value,
    with_message: bool,
}

/// Starts forwarding; call [`Forwarder::finish`] before answering the call, so no progress
/// follows the response.
pub(crate) fn forward(
    out: Outbox,
    token: Value,
    events: watch::Receiver<u64>,
    with_message: bool,
) -> Forwarder {
    let pause = Duration::from_secs(1) / MAX_PER_SECOND;
    let delivered = Arc::new(AtomicU64::new(0));
    let ticks = Arc::new(AtomicU64::new(0));
    let handle = {
        let (out, token, delivered, ticks, mut events) = (
            out.clone(),
            token.clone(),
            delivered.clone(),
            ticks.clone(),
            events.clone(),
        );
        tokio::spawn(async move {
            let mut seen = 0u64;
            let mut last = 0u64;
            // C-T9: the heartbeat is due a whole second after the last notification sent (or
            // after forwarding began), an absolute deadline the rate-limit pause does not push.
            let mut due = tokio::time::Instant::now() + HEARTBEAT;
            loop {
                let (n, heartbeat) = tokio::select! {
                    changed = events.changed() => {
                        if changed.is_err() {
                            return; // The run's sender is gone: nothing more will come.
                        }
                        (*events.borrow_and_update(), false)
                    }
                    () = tokio::time::sleep_until(due) => {
                        // Silent for a whole heartbeat: say the call is alive (C-T9).
                        ticks.fetch_add(1, Ordering::SeqCst);
                        (seen, true)
                    }
                };
                seen = seen.max(n);
                let value = seen + ticks.load(Ordering::SeqCst);
                if value > last {
                    last = value;
                    out.send(notification(&token, value, seen, heartbeat, with_message))
                        .await;
                    // Recorded only once handed over: a forwarder stopped mid-send has not
                    // delivered, and `finish` makes up for it.
                    delivered.store(value, Ordering::SeqCst);
                    due = tokio::time::Instant::now() + HEARTBEAT;
                    // The rate limit (T9): nothing more for a quarter second after a send.
                    tokio::time::sleep(pause).await;
                }
            }
        })
    };
    Forwarder {
        handle,
        delivered,
        ticks,
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
    pub(crate) async fn finish(self) {
        self.handle.abort();
        let _ = self.handle.await;
        let n = *self.events.borrow();
        if n > 0 && self.delivered.load(Ordering::SeqCst) == 0 {
            let t = self.ticks.load(Ordering::SeqCst);
            self.out
                .send(notification(
                    &self.token,
                    n + t,
                    n,
                    false,
                    self.with_message,
                ))
                .await;
        }
    }
}

fn notification(
    token: &Value,
    value: u64,
    events: u64,
    heartbeat: bool,
    with_message: bool,
) -> Value {
    let mut params = json!({"progressToken": token, "progress": value});
    if with_message {
        // `message` exists from protocol version 2025-03-26 on.
        let noun = if events == 1 { "event" } else { "events" };
        let mut m = format!("{events} native {noun}");
        if heartbeat {
            m.push_str("; still running, no native output for the last second");
        }
        params["message"] = m.into();
    }
    mcp_wire::notification("notifications/progress", Some(params))
}

/// A usable progress token: MCP allows a string or an integer.
#[must_use]
pub(crate) fn token(meta: Option<&serde_json::Map<String, Value>>) -> Option<Value> {
    meta.and_then(|m| m.get("progressToken"))
        .filter(|t| t.is_string() || t.is_i64() || t.is_u64())
        .cloned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::Outbox;

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

    #[tokio::test(start_paused = true)]
    async fn a_silent_run_still_gets_increasing_heartbeats() {
        // C-T9: reset-on-progress hosts must not time out a quiet run.
        let (tx, _keep) = watch::channel(0u64);
        let (out, mut sent) = Outbox::capture();
        let f = forward(out, json!("h"), tx.subscribe(), true);
        let first = sent.recv().await.expect("a heartbeat");
        let second = sent.recv().await.expect("another heartbeat");
        let (a, b) = (
            first["params"]["progress"].as_u64().expect("n"),
            second["params"]["progress"].as_u64().expect("n"),
        );
        assert!(b > a && a >= 1, "{a} {b}");
        let msg = first["params"]["message"].as_str().expect("message");
        assert!(msg.starts_with("0 native events; still running"), "{msg}");
        // An event after the heartbeats still increases progress.
        tx.send_replace(1);
        let third = sent.recv().await.expect("event progress");
        assert!(third["params"]["progress"].as_u64().expect("n") > b);
        assert!(
            third["params"]["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("1 native event") && !m.contains("events")),
            "{third}"
        );
        f.finish().await;
    }

    #[tokio::test(start_paused = true)]
    async fn a_heartbeat_comes_one_second_after_the_last_notification() {
        // C-T9: "a heartbeat goes out after each second without native output". The deadline
        // counts from the last notification sent, not from the end of the rate-limit pause
        // that follows it (which would make it 1.25 s). The paused clock makes this exact.
        use tokio::time::Instant;
        let (tx, _keep) = watch::channel(0u64);
        let (out, mut sent) = Outbox::capture();
        let start = Instant::now();
        let f = forward(out, json!("h"), tx.subscribe(), true);
        let first = sent.recv().await.expect("a first heartbeat");
        assert_eq!(first["params"]["progress"], 1);
        assert_eq!(
            start.elapsed(),
            HEARTBEAT,
            "first heartbeat after one silent second"
        );
        let second = sent.recv().await.expect("a second heartbeat");
        assert_eq!(second["params"]["progress"], 2);
        assert_eq!(start.elapsed(), 2 * HEARTBEAT, "then one per silent second");
        // An event notification moves the deadline: the next heartbeat is a second after it.
        tokio::time::sleep(Duration::from_millis(600)).await;
        tx.send_replace(1);
        let event = sent.recv().await.expect("event progress");
        assert_eq!(event["params"]["progress"], 3);
        let at_event = Instant::now();
        let beat = sent.recv().await.expect("heartbeat after the event");
        assert_eq!(beat["params"]["progress"], 4);
        assert_eq!(
            at_event.elapsed(),
            HEARTBEAT,
            "a second after the event, not 1.25 s"
        );
        // The rate limit still holds: a burst right after a notification waits out the pause.
        let before = Instant::now();
        tx.send_replace(2);
        let burst = sent.recv().await.expect("burst progress");
        assert_eq!(burst["params"]["progress"], 5);
        assert!(
            before.elapsed() >= Duration::from_secs(1) / MAX_PER_SECOND,
            "{:?}",
            before.elapsed()
        );
        f.finish().await;
    }
}
