//! A generic Agent Client Protocol (ACP) client: drives one prompt turn of an ACP agent over
//! its stdio, with every bound the run contract asks for (ACP-1..ACP-8 in
//! `shared/spec/cursor-acp-provider.md`, BND-1, BND-3).
//!
//! [`run_turn`] takes the agent's stdout and stdin (the caller spawned it and owns its process
//! group; the client never kills it), an `events` writer, a [`TurnConfig`], an
//! [`AgentRequestPolicy`] and a cancel signal, and returns a [`TurnReport`].
//!
//! - **Wire (ACP-1):** newline-delimited JSON-RPC 2.0, requests both ways, routed by shape; agent
//!   ids may be integers, strings or `null` and may collide with ours; each is echoed as the very
//!   text the agent sent, whatever its size (ACP-12). Agent lines are bounded by
//!   `max_line` (`mcp_wire::codec::FrameDecoder`); a malformed, unknown or oversized line is
//!   counted, never fatal. `error.data` of any JSON type is accepted.
//! - **Handshake (ACP-2, ACP-8):** `initialize`, then `session/new` (or `session/load` when
//!   resuming and the agent advertises `loadSession`), then for plan mode `session/set_mode`;
//!   each step bounded by `step_timeout`; `authenticate` is never sent.
//! - **Turn (ACP-3, ACP-6, ACP-10):** `session/prompt`; `agent_message_chunk` text of the run's
//!   session is concatenated up to `text_max`; the turn settles when the prompt is answered.
//!   Updates of another session and updates read after the answer are forwarded and counted
//!   (`foreign_updates`, `late_updates`), never applied. An `agent_message_chunk` line over
//!   `max_line` is never held, but a bounded scan of its keys (`mcp_wire::scan::PathScan`) knows
//!   it for one: the report then says the text is cut (`text_truncated`,
//!   `oversized_text_chunks`), so a caller never passes it as whole (BND-3).
//! - **Permissions (ACP-4):** see [`PermissionMode`]; `allow_always` and `reject_always` are never
//!   selected; every decision is recorded.
//! - **Other agent requests (ACP-5):** answered through the [`AgentRequestPolicy`]
//!   ([`GenericPolicy`], [`CursorPolicy`]).
//! - **Cancel (ACP-7):** `session/cancel`, later permission requests answered `cancelled`, a
//!   bounded wait (`cancel_grace`) for the prompt's answer.
//!
//! # The `events` stream
//!
//! Every byte the agent writes on stdout is forwarded to `events`, line by line (an oversized
//! line as the decoder's pieces followed by a newline; a trailing `\r` is dropped, as the decoder
//! drops it), interleaved at line boundaries with the client's own records, one JSON object per
//! line with a top-level `"acp_client"` key:
//!
//! - `{"acp_client":"permission","id":ID,"mode":M,"tool_call_id":..,"tool_kind":..,"title":..,
//!   "offered":[{"optionId":..,"kind":..}],"selected":..,"selected_kind":..,"outcome":"selected"|"cancelled","reason":..}`
//!   after each `session/request_permission`;
//! - `{"acp_client":"agent_request","method":M,"id":ID,"answer":"result"|"error","code":C|null}`
//!   after each other agent request;
//! - `{"acp_client":"cancel","sent":true|false}` when `session/cancel` is sent.
//!
//! Writes to `events` are awaited: a slow reader slows the client's reading of the agent, and
//! nothing is buffered without bound (at most one 64 KiB read and one `max_line` line are held).
//! A last agent line cut by EOF is forwarded with a newline added.
//!
//! # What the caller owns
//!
//! The agent's process and the overall deadline. `run_turn` never kills the agent and has no
//! deadline of its own for the prompt (only the handshake steps and the cancel grace are
//! bounded); the caller kills the agent's process group at its deadline, which ends any read or
//! write in progress (`AgentClosed`), or drops the future, which is safe at any point. A write
//! to an agent that stops reading its stdin, or to an `events` reader that stops reading, waits
//! until then.

mod config;
mod conn;
mod events;
mod inbound;
mod outbound;
mod policy;
mod report;
mod request_permission;
mod session_update;
mod turn;

pub use config::{
    CANCEL_GRACE, ClientInfo, DEFAULT_MAX_LINE, DEFAULT_TEXT_MAX, HANDSHAKE_STEP, PermissionMode,
    TurnConfig, WireTap,
};
pub use outbound::PROTOCOL_VERSION;
pub use policy::{AgentRequestPolicy, Answer, CURSOR_ACKNOWLEDGED, CursorPolicy, GenericPolicy};
pub use report::{AgentIdentity, MAX_KEPT_DECISIONS, PermissionDecision, TurnOutcome, TurnReport};
pub use request_permission::{ASK_QUESTION_SKIP, FIELD_MAX, MAX_OFFERED};
pub use session_update::{KNOWN_UPDATES, MAX_TOOL_ID, MAX_TOOL_KINDS};
pub use turn::run_turn;
