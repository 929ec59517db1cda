//! What the native side said, before any rule judges it: a native error and where it was read
//! (RUN-11), and the cleanup of its process group as the engine saw it (SUP-3). Providers build
//! these; the ingest, the outcome rules and the results read them.

use serde_json::Value;

/// Longest `native_error.message`.
const NATIVE_MESSAGE_MAX: usize = 4 * 1024;

/// Where a native error was read (RUN-11); serialised as [`NativeSource::as_str`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NativeSource {
    /// The final result event (`is_error: true` or an error subtype).
    Result,
    /// An assistant event carrying `error`.
    Assistant,
    /// The native stderr (a failed run without a native error event).
    Stderr,
    /// The native protocol's answer (ACP: an error answer, a refused handshake, a stop reason
    /// other than `end_turn`).
    Protocol,
}

impl NativeSource {
    /// The wire spelling.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            NativeSource::Result => "result",
            NativeSource::Assistant => "assistant",
            NativeSource::Stderr => "stderr",
            NativeSource::Protocol => "protocol",
        }
    }
}

/// `native_error` of a result (RUN-11).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct NativeError {
    /// What the native side said (bounded).
    pub message: String,
    /// Where it was read.
    pub source: NativeSource,
}

impl NativeError {
    /// `{message, source}`.
    #[must_use]
    pub fn to_value(&self) -> Value {
        crate::to_json(self)
    }
}

/// Cleanup as the engine saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cleanup {
    /// Every process of the group is gone, acknowledged (or nothing was ever started).
    pub confirmed: bool,
    /// Processes that survived SIGKILL (`cleanup_failed`).
    pub survivors: Vec<u32>,
    /// The detail for `cleanup_error`.
    pub error: Option<String>,
}

impl Cleanup {
    /// Nothing was started, so there is nothing to clean up.
    #[must_use]
    pub fn nothing_started() -> Self {
        Self {
            confirmed: true,
            survivors: Vec::new(),
            error: None,
        }
    }

    /// The `cleanup_error` text, when cleanup is not confirmed.
    #[must_use]
    pub fn error_text(&self) -> Option<String> {
        if self.confirmed {
            return None;
        }
        let mut parts = Vec::new();
        if !self.survivors.is_empty() {
            let pids: Vec<String> = self.survivors.iter().map(u32::to_string).collect();
            parts.push(format!("processes survived SIGKILL: {}", pids.join(", ")));
        }
        if let Some(e) = &self.error {
            parts.push(e.clone());
        }
        if parts.is_empty() {
            parts.push("cleanup was not acknowledged".into());
        }
        Some(parts.join("; "))
    }
}

/// Cuts a message to `NATIVE_MESSAGE_MAX` bytes at a char boundary.
#[must_use]
pub fn bounded(s: String) -> String {
    bounded_to(s, NATIVE_MESSAGE_MAX)
}

/// Cuts a text to `max` bytes at a char boundary.
#[must_use]
pub(crate) fn bounded_to(mut s: String, max: usize) -> String {
    if s.len() > max {
        let mut cut = max;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
    }
    s
}
