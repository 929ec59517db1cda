//! How the engine is set up by its host: the configuration, the hooks it calls back, and the
//! tool names' projection it uses in messages.

use std::sync::Arc;

use crate::record::Recorder;

/// The engine's configuration.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// Largest `timeout_s` (BND-4).
    pub max_timeout_s: u64,
    /// The recorder, when `--record` is on.
    pub recorder: Option<Recorder>,
    /// The tool name projection (TOOL-1), for the messages that name tools (C-TOOL-6).
    pub tool_names: ToolNames,
    /// What the engine's host is told about.
    pub hooks: Hooks,
}

/// What the engine's host hears about, injected at construction: the engine names no process
/// pool and no allocator (the MCP server ends its spare supervisor and trims the heap here).
#[derive(Clone, Default)]
pub struct Hooks {
    idle: Option<Arc<dyn Fn() + Send + Sync>>,
    shut_down: Option<Arc<dyn Fn() + Send + Sync>>,
}

impl Hooks {
    /// Calls `f` whenever a release leaves the run table empty (no run retained: no native
    /// process either).
    #[must_use]
    pub fn on_idle(mut self, f: impl Fn() + Send + Sync + 'static) -> Self {
        self.idle = Some(Arc::new(f));
        self
    }

    /// Calls `f` once [`crate::Engine::shutdown`] has ended or given up on every run.
    #[must_use]
    pub fn on_shutdown(mut self, f: impl Fn() + Send + Sync + 'static) -> Self {
        self.shut_down = Some(Arc::new(f));
        self
    }

    pub(crate) fn idle(&self) {
        if let Some(f) = &self.idle {
            f();
        }
    }

    pub(crate) fn shut_down(&self) {
        if let Some(f) = &self.shut_down {
            f();
        }
    }
}

impl std::fmt::Debug for Hooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hooks")
            .field("idle", &self.idle.is_some())
            .field("shut_down", &self.shut_down.is_some())
            .finish()
    }
}

/// How tool names are spelled on the wire (TOOL-1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolNames {
    /// `claude.run`, `claude.run.start`, … (default).
    Dotted,
    /// `claude_run`, `claude_run_start`, … for hosts that reject dots.
    Underscore,
}

impl ToolNames {
    /// A dotted name (`claude.run.result`) as this projection spells it (`claude_run_result`).
    #[must_use]
    pub fn project(self, dotted: &str) -> String {
        match self {
            ToolNames::Dotted => dotted.to_owned(),
            ToolNames::Underscore => dotted.replace('.', "_"),
        }
    }
}
