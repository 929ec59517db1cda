//! What a replay compares: both sides rendered as the same text transcript by
//! `mcp_replay::transcript` after normalising volatile values with the built-in rules the
//! reference adapter's replay has always used (`mcp_replay::rules::REFERENCE_ADAPTER`: run ids,
//! cursor nonces, the `instance` UUID, a `*.run.start` answer's start-up state, a tool result's
//! copy of its `structuredContent`, JSON carried as text), numbered over the whole side; a
//! difference is shown as a unified diff (`mcp_replay::compare::unified`). Everything else
//! (native session ids, UUIDs, timestamps and durations inside native events) is replayed
//! verbatim by fake-claude or fake-cursor-agent, so it is compared as it is.

use std::sync::Arc;

use mcp_replay::rules::{Normaliser, REFERENCE_ADAPTER, RuleSet};
use serde_json::Value;

use super::recording::Row;

pub use mcp_replay::transcript::{PROGRESS, notification_kind};

/// Renders one side of a replay: the client rows sent, the adapter's answers, the native and
/// ACP rows it read.
#[must_use]
pub fn transcript(c2s: &[Row], s2c: &[Value], n2a: &[Row]) -> String {
    let rules = RuleSet::builtin_only(REFERENCE_ADAPTER).expect("the built-in rules parse");
    let mut norm = Normaliser::new(Arc::new(rules));
    mcp_replay::transcript::transcript(c2s, s2c, n2a, &mut norm).to_string()
}
