//! What one turn is asked to do: the prompt, the session, the permission mode and every bound
//! (ACP-2, ACP-4, ACP-7, ACP-8, BND-1, BND-3).

use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;

/// Default bound of each handshake step (ACP-2): about 3x the slowest `session/new` the Cursor
/// spike measured (3.4 s).
pub const HANDSHAKE_STEP: Duration = Duration::from_secs(10);
/// Default wait for `stopReason: "cancelled"` after `session/cancel` (ACP-7); Cursor answered
/// within 4 ms in the spike.
pub const CANCEL_GRACE: Duration = Duration::from_secs(2);
/// Default longest agent line held in memory (BND-1).
pub const DEFAULT_MAX_LINE: usize = 1024 * 1024;
/// Default bound of the concatenated `agent_message_chunk` text (BND-3).
pub const DEFAULT_TEXT_MAX: usize = 128 * 1024;

/// How `session/request_permission` is answered (ACP-4). `allow_always` and `reject_always` are
/// never selected in any mode: they persist into the user's global agent config.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PermissionMode {
    /// Select the offered `reject_once` option for every request (the default).
    #[default]
    DontAsk,
    /// Send `session/set_mode {modeId: "plan"}` before the prompt, then answer like
    /// [`PermissionMode::DontAsk`].
    Plan,
    /// Select `allow_once` for tool calls of kind `edit`, `reject_once` for everything else.
    AcceptEdits,
}

impl PermissionMode {
    /// The name used in event records (`dontAsk`, `plan`, `acceptEdits`).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            PermissionMode::DontAsk => "dontAsk",
            PermissionMode::Plan => "plan",
            PermissionMode::AcceptEdits => "acceptEdits",
        }
    }
}

/// The `clientInfo` sent in `initialize`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClientInfo {
    /// Client name.
    pub name: String,
    /// Client version.
    pub version: String,
}

impl Default for ClientInfo {
    fn default() -> Self {
        Self {
            name: env!("CARGO_PKG_NAME").to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
        }
    }
}

/// Sees every line that crosses the agent's stdio, for a wire recorder (the adapter's `--record`
/// writes them as `c2a` / `a2c` rows). Called inline: implementations must not block.
pub trait WireTap: Send + Sync + std::fmt::Debug {
    /// One line the client wrote to the agent's stdin (without its newline).
    fn sent(&self, line: &[u8]);
    /// One line the agent wrote on stdout (without its newline), within the line bound.
    fn received(&self, line: &[u8]);
    /// A line over the line bound (never held): its length.
    fn received_oversized(&self, _len: u64) {}
}

/// One prompt turn: what to send and every bound that applies.
#[derive(Debug, Clone)]
pub struct TurnConfig {
    /// The session's working folder; must be absolute (sent in `session/new` / `session/load`).
    pub cwd: PathBuf,
    /// The prompt, sent as one text block.
    pub prompt: String,
    /// How permission requests are answered (ACP-4).
    pub permission_mode: PermissionMode,
    /// ACP-8: resume this ACP session with `session/load`, only if the agent advertises
    /// `loadSession`; otherwise the turn ends [`ResumeUnsupported`](crate::TurnOutcome::ResumeUnsupported).
    pub resume_session_id: Option<String>,
    /// ACP-2: the bound of each handshake step (`initialize`, `session/new` or `session/load`,
    /// `session/set_mode`), counted while waiting on the agent.
    pub step_timeout: Duration,
    /// ACP-7: how long to wait for the prompt's answer after `session/cancel`.
    pub cancel_grace: Duration,
    /// BND-1: longest agent line held; longer lines are forwarded in pieces and counted malformed.
    pub max_line: usize,
    /// BND-3: bound in bytes of the concatenated `agent_message_chunk` text.
    pub text_max: usize,
    /// Sent as `clientInfo` in `initialize`.
    pub client_info: ClientInfo,
    /// Sees every line both ways, when set.
    pub tap: Option<std::sync::Arc<dyn WireTap>>,
}

impl TurnConfig {
    /// A turn with the defaults: [`PermissionMode::DontAsk`], a new session,
    /// [`HANDSHAKE_STEP`], [`CANCEL_GRACE`], [`DEFAULT_MAX_LINE`], [`DEFAULT_TEXT_MAX`] and this
    /// crate as `clientInfo`.
    pub fn new(cwd: impl Into<PathBuf>, prompt: impl Into<String>) -> Self {
        Self {
            cwd: cwd.into(),
            prompt: prompt.into(),
            permission_mode: PermissionMode::DontAsk,
            resume_session_id: None,
            step_timeout: HANDSHAKE_STEP,
            cancel_grace: CANCEL_GRACE,
            max_line: DEFAULT_MAX_LINE,
            text_max: DEFAULT_TEXT_MAX,
            client_info: ClientInfo::default(),
            tap: None,
        }
    }
}
