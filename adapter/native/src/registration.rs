//! A provider's registration: everything the binary needs to offer it (PROV-2). Each provider
//! crate exports one [`Registration`] constant, and the binary's table lists them; the server's
//! `--provider NAME`, the flags `--NAME PATH` and `--NAME-cli-tree PATH` (claude's is
//! `--cli-tree`), the providers built for the MCP server and the one-shot `cli run` projection
//! all derive from that table, so adding a provider is one line there.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use cmk_engine::provider::Provider;
use cmk_engine::record::Recorder;

use crate::binary::EnvDeny;
use crate::cli_tree::{CliTree, CliTreeError};

/// One provider as the binary offers it.
#[derive(Debug)]
pub struct Registration {
    /// `--provider NAME`, its tools' namespace (`NAME.run…`) and the flag `--NAME PATH`.
    pub name: &'static str,
    /// What `--provider NAME` serves, one line for `--help`.
    pub summary: &'static str,
    /// The native CLI, as `--help` names it ("the native claude binary").
    pub native: &'static str,
    /// The program looked up on PATH at each run when `--NAME` is not given.
    pub default_binary: &'static str,
    /// The flag (without `--`) naming a pinned tree to use instead of the embedded one:
    /// `NAME-cli-tree` (claude's is `cli-tree`, which it had before there was a second provider).
    pub tree_flag: &'static str,
    /// The pinned tree's file name, for `--help` (`cli-tree.json`).
    pub tree_file: &'static str,
    /// The contract rule of the pinned tree (`NAT-1`, `ACP-9`).
    pub tree_rule: &'static str,
    /// The tree embedded at build time (`cli-tree check` compares an installed CLI with it,
    /// `cli-tree refresh` re-pins it).
    pub pinned: fn() -> Result<CliTree, CliTreeError>,
    /// Builds the provider.
    pub build: fn(&Setup<'_>) -> Result<Arc<dyn Provider>, CliTreeError>,
}

impl Registration {
    /// `--NAME`'s help line.
    #[must_use]
    pub fn binary_help(&self) -> String {
        format!(
            "The {} to run for `--provider {}` (a path, or a name looked up on PATH at each run)",
            self.native, self.name
        )
    }

    /// `--NAME-cli-tree`'s help line.
    #[must_use]
    pub fn tree_help(&self) -> String {
        format!(
            "A {} to use instead of the one embedded at build time ({})",
            self.tree_file, self.tree_rule
        )
    }
}

/// What a registration builds its provider from: the user's flags and the server's options.
#[derive(Debug, Clone, Copy)]
pub struct Setup<'a> {
    /// `--NAME PATH`: a path, or a bare name looked up on PATH at each run.
    pub binary: &'a Path,
    /// `--NAME-cli-tree PATH`, when given.
    pub cli_tree: Option<&'a Path>,
    /// `--env-deny`: held back from the native process too (NAT-8).
    pub env_deny: &'a EnvDeny,
    /// `--record`: a protocol provider may tee its wire into it.
    pub recorder: Option<&'a Recorder>,
    /// `--acp-step-timeout-s`: the bound of each handshake step of a protocol provider, when
    /// given (ACP-2); else the provider's default.
    pub step_timeout: Option<Duration>,
    /// `true` for the one-shot `cli run` projection (CLI-1): a line provider with a one-shot
    /// mode uses it (claude's `--output-format json`, NAT-3).
    pub one_shot: bool,
}

/// The providers the binary chose, each with its `--NAME` and `--NAME-cli-tree` values.
#[derive(Debug, Clone)]
pub struct Chosen {
    /// The registration.
    pub registration: &'static Registration,
    /// `--NAME PATH` (else the registration's default binary).
    pub binary: PathBuf,
    /// `--NAME-cli-tree PATH`.
    pub cli_tree: Option<PathBuf>,
}

impl Chosen {
    /// Builds the provider with the shared options.
    pub fn build(
        &self,
        env_deny: &EnvDeny,
        recorder: Option<&Recorder>,
        step_timeout: Option<Duration>,
        one_shot: bool,
    ) -> Result<Arc<dyn Provider>, CliTreeError> {
        (self.registration.build)(&Setup {
            binary: &self.binary,
            cli_tree: self.cli_tree.as_deref(),
            env_deny,
            recorder,
            step_timeout,
            one_shot,
        })
    }
}
