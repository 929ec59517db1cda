//! What a turn produced: its outcome (ACP-6), the agent's text (BND-3), every permission
//! decision (ACP-4) and the counters of what was tolerated (ACP-1, ACP-3).

use std::time::Duration;

use mcp_wire::message::ErrorObject;
use serde_json::{Value, json};

/// How many permission decisions a report keeps; later ones are only counted.
pub const MAX_KEPT_DECISIONS: usize = 256;

/// How the turn ended.
#[derive(Debug, Clone, PartialEq)]
pub enum TurnOutcome {
    /// `session/prompt` was answered with a result, whatever its `stopReason` (including
    /// `"cancelled"`). `stop_reason` is empty when the result carried none.
    Completed {
        /// `result.stopReason`.
        stop_reason: String,
        /// The whole result.
        response: Value,
    },
    /// `session/prompt` was answered with an error.
    PromptError {
        /// The error as received.
        error: ErrorObject,
    },
    /// `session/new` or `session/load` answered `-32000` (or an error whose message says
    /// authentication is required): the agent is not logged in. Nothing is retried and
    /// `authenticate` is never sent (ACP-2).
    AuthRequired {
        /// `"session/new"` or `"session/load"`.
        step: &'static str,
        /// The error as received.
        error: ErrorObject,
    },
    /// A handshake step was answered with an error.
    HandshakeError {
        /// `"initialize"`, `"session/new"`, `"session/load"` or `"session/set_mode"`.
        step: &'static str,
        /// The error as received.
        error: ErrorObject,
    },
    /// A handshake step was answered with a result the turn cannot go on with (no `sessionId`
    /// from `session/new`, a `protocolVersion` other than 1).
    InvalidResponse {
        /// The step.
        step: &'static str,
        /// What was wrong.
        detail: String,
    },
    /// The permission mode needs an agent mode (`plan`) the agent cannot apply (ACP-11): the
    /// `session/new` (or `session/load`) answer does not advertise it (`error` is `None`), or
    /// `session/set_mode` was answered with an error. Nothing was prompted.
    ModeUnavailable {
        /// The mode id asked for.
        mode: &'static str,
        /// The ids of `modes.availableModes` the agent advertised (empty: none).
        offered: Vec<String>,
        /// The `session/set_mode` error, when the agent refused the switch.
        error: Option<ErrorObject>,
    },
    /// A handshake step got no answer within `step_timeout` (ACP-2).
    HandshakeTimeout {
        /// The step.
        step: &'static str,
        /// The bound that passed.
        after: Duration,
    },
    /// A resume was asked for but the agent does not advertise `loadSession` (ACP-8); nothing was
    /// sent after `initialize`.
    ResumeUnsupported,
    /// The agent's stdout ended, or writing its stdin failed, before the awaited answer.
    AgentClosed {
        /// The step whose answer was awaited (`"session/prompt"` during the turn).
        step: &'static str,
        /// What happened.
        detail: String,
    },
    /// Cancel was requested during the handshake: the turn returned at once, no prompt sent.
    CancelledDuringHandshake {
        /// The step in progress.
        step: &'static str,
    },
    /// Cancel was requested during the turn; `session/cancel` went out (if the agent's stdin
    /// still took it) and no prompt answer came within `cancel_grace` (ACP-7).
    CancelledUnanswered,
    /// The configuration cannot be sent (a relative or non-UTF-8 `cwd`); nothing was sent.
    InvalidConfig {
        /// What is wrong.
        detail: String,
    },
}

/// One answer to `session/request_permission` (ACP-4). Strings from the agent are kept up to
/// [`FIELD_MAX`](crate::FIELD_MAX) bytes each and at most
/// [`MAX_OFFERED`](crate::MAX_OFFERED) offered options are listed; the reply itself always
/// echoes the full `optionId`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermissionDecision {
    /// `toolCall.toolCallId`.
    pub tool_call_id: Option<String>,
    /// `toolCall.kind`, else the kind of an earlier `tool_call` update with the same id.
    pub tool_kind: Option<String>,
    /// `toolCall.title`.
    pub title: Option<String>,
    /// The offered `(optionId, kind)` pairs, in order.
    pub offered: Vec<(String, String)>,
    /// The selected `optionId` (none when the outcome is `cancelled`).
    pub selected: Option<String>,
    /// The selected option's `kind`.
    pub selected_kind: Option<String>,
    /// `"selected"` or `"cancelled"`.
    pub outcome: &'static str,
    /// Why, in words.
    pub reason: String,
}

impl PermissionDecision {
    /// The event record: `{"acp_client":"permission", ...}` with these fields and the request id.
    #[must_use]
    pub fn record(&self, id: &Value, mode: &str) -> Value {
        let offered: Vec<Value> = self
            .offered
            .iter()
            .map(|(option_id, kind)| json!({"optionId": option_id, "kind": kind}))
            .collect();
        json!({
            "acp_client": "permission",
            "id": id,
            "mode": mode,
            "tool_call_id": self.tool_call_id,
            "tool_kind": self.tool_kind,
            "title": self.title,
            "offered": offered,
            "selected": self.selected,
            "selected_kind": self.selected_kind,
            "outcome": self.outcome,
            "reason": self.reason,
        })
    }
}

/// Who the agent said it is in its `initialize` result.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AgentIdentity {
    /// `agentInfo`, as received.
    pub info: Option<Value>,
    /// The `id` of each `authMethods` entry.
    pub auth_method_ids: Vec<String>,
}

impl AgentIdentity {
    /// From an `initialize` result.
    #[must_use]
    pub fn of(init: &Value) -> Self {
        Self {
            info: init.get("agentInfo").cloned(),
            auth_method_ids: init
                .get("authMethods")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|m| m.get("id").and_then(Value::as_str).map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default(),
        }
    }
}

/// Everything a turn learned.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnReport {
    /// The ACP session id (from `session/new`, or the resumed id).
    pub session_id: Option<String>,
    /// `agentCapabilities` from the `initialize` result.
    pub agent_capabilities: Option<Value>,
    /// `agentInfo` (`{name, title, version}`) from the `initialize` result, when the agent
    /// reported one, and the ids of its `authMethods`: who the agent says it is, for messages.
    pub agent_identity: AgentIdentity,
    /// How the turn ended.
    pub outcome: TurnOutcome,
    /// Concatenated `agent_message_chunk` text (`content.type: "text"`) of this turn's prompt,
    /// bounded by `text_max` bytes (cut at a character boundary).
    pub text: String,
    /// Whether `text` was cut: over `text_max`, or missing the text of an oversized
    /// `agent_message_chunk` line (then `oversized_text_chunks` counts it). `text` stays a prefix
    /// of what the agent said.
    pub text_truncated: bool,
    /// `agent_message_chunk` text lines of this turn's prompt over the line bound (BND-1): never
    /// held, so their text is not in `text`; a final built from it would be cut (BND-3).
    pub oversized_text_chunks: u64,
    /// The first [`MAX_KEPT_DECISIONS`] permission decisions.
    pub permission_decisions: Vec<PermissionDecision>,
    /// Decisions made but not kept.
    pub permission_decisions_dropped: u64,
    /// Agent lines that were not one JSON-RPC message: not JSON, not an object, oversized, or of
    /// no recognisable shape.
    pub malformed_lines: u64,
    /// `session/update` notifications whose `sessionUpdate` variant is unknown (or missing).
    pub unknown_updates: u64,
    /// Every `session/update` notification received.
    pub updates: u64,
    /// `session/update` notifications of the turn whose `sessionId` is not the run's (or is
    /// missing): counted and forwarded as events, never applied (ACP-10).
    pub foreign_updates: u64,
    /// `session/update` notifications read after the prompt's answer (in the same read, so still
    /// handled): counted and forwarded as events, never applied (ACP-10).
    pub late_updates: u64,
    /// Notifications other than `session/update`.
    pub other_notifications: u64,
    /// Responses whose id matches no request of ours still awaited.
    pub unmatched_responses: u64,
    /// Agent requests answered (permission requests included).
    pub agent_requests: u64,
    /// Set when writing to `events` failed; forwarding stopped there, the turn went on.
    pub events_error: Option<String>,
}

impl TurnReport {
    pub(crate) fn new() -> Self {
        Self {
            session_id: None,
            agent_capabilities: None,
            agent_identity: AgentIdentity::default(),
            outcome: TurnOutcome::CancelledUnanswered,
            text: String::new(),
            text_truncated: false,
            oversized_text_chunks: 0,
            permission_decisions: Vec::new(),
            permission_decisions_dropped: 0,
            malformed_lines: 0,
            unknown_updates: 0,
            updates: 0,
            foreign_updates: 0,
            late_updates: 0,
            other_notifications: 0,
            unmatched_responses: 0,
            agent_requests: 0,
            events_error: None,
        }
    }

    pub(crate) fn keep_decision(&mut self, decision: PermissionDecision) {
        if self.permission_decisions.len() < MAX_KEPT_DECISIONS {
            self.permission_decisions.push(decision);
        } else {
            self.permission_decisions_dropped += 1;
        }
    }

    /// An `agent_message_chunk` line over the line bound: its text is missing, so the text is
    /// cut from here on (it stays a prefix of what the agent said).
    pub(crate) fn lose_text_chunk(&mut self) {
        self.oversized_text_chunks += 1;
        self.text_truncated = true;
    }

    /// Appends agent text up to `max` bytes in all, cutting at a character boundary.
    pub(crate) fn push_text(&mut self, piece: &str, max: usize) {
        if self.text_truncated {
            // The text stays a prefix of what the agent said.
            return;
        }
        let room = max.saturating_sub(self.text.len());
        if piece.len() <= room {
            self.text.push_str(piece);
            return;
        }
        self.text.push_str(truncate(piece, room));
        self.text_truncated = true;
    }
}

/// The longest prefix of `s` of at most `max` bytes that ends on a character boundary.
pub(crate) fn truncate(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}
