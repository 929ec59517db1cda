//! T9: `notifications/progress` for a `claude.run` call that carried `_meta.progressToken`, sent
//! as native events arrive so hosts that reset their timeout on progress keep waiting.
//!
//! `progress` is the run's `events_total` (strictly increasing, as MCP requires) and
//! notifications are rate-limited to at most [`MAX_PER_SECOND`] per call.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::transport::Outbox;

/// Upper bound on progress notifications per call and second (T9).
pub const MAX_PER_SECOND: u32 = 4;

/// Starts forwarding; abort the handle (and await it) before answering the call, so no
/// progress follows the response.
pub fn forward(
    out: Outbox,
    token: Value,
    mut events: watch::Receiver<u64>,
    with_message: bool,
) -> JoinHandle<()> {
    let pause = Duration::from_secs(1) / MAX_PER_SECOND;
    tokio::spawn(async move {
        let mut last = 0u64;
        loop {
            if events.changed().await.is_err() {
                return; // The run's sender is gone: nothing more will come.
            }
            let n = *events.borrow_and_update();
            if n > last {
                last = n;
                let mut params = json!({"progressToken": token, "progress": n});
                if with_message {
                    // `message` exists from protocol version 2025-03-26 on.
                    params["message"] = format!("{n} native events").into();
                }
                out.send(mcp_wire::notification(
                    "notifications/progress",
                    Some(params),
                ))
                .await;
            }
            tokio::time::sleep(pause).await;
        }
    })
}

/// A usable progress token: MCP allows a string or an integer.
#[must_use]
pub fn token(meta: Option<&serde_json::Map<String, Value>>) -> Option<Value> {
    meta.and_then(|m| m.get("progressToken"))
        .filter(|t| t.is_string() || t.is_i64() || t.is_u64())
        .cloned()
}
