//! The native agent CLIs behind the run engine (PROV-1). Everything specific to one CLI lives
//! here, under its provider: its pinned command contract ([`cli_tree`], one format and loader for
//! every CLI), the version assertion, argv, the options it adds to the run tools, its dialect,
//! its completion rule, its graceful interrupt and its stdin. The engine (`crate::engine`) knows
//! providers only through its `Provider` trait and its code never names this module (a unit
//! test scans the engine's source); the MCP layer and
//! the CLI projection build the providers and hand them to the engine.
//!
//! - [`claude`]: Claude Code's print mode, `claude -p --output-format stream-json`.
//! - [`cursor`]: Cursor's agent over ACP, `cursor-agent [--model M] acp`.
//! - [`drift`]: the maintainer's check of each pinned tree against an installed CLI.

pub mod claude;
pub mod cli_tree;
pub mod cursor;
pub mod drift;
pub mod native;
pub mod tool_vocabulary;

use std::path::Path;
use std::sync::Arc;

use crate::config::{ProviderName, ServeArgs};
use crate::engine::provider::Provider;
use cli_tree::{CliTree, CliTreeError, Mode};

/// claude's tree: the embedded one, or `path`; it must declare the modes claude runs.
pub fn claude_tree(path: Option<&Path>) -> Result<CliTree, CliTreeError> {
    let tree = match path {
        None => CliTree::embedded(),
        Some(p) => CliTree::load(p),
    }?;
    tree.require_modes(&[Mode::Stream, Mode::Json], true)?;
    Ok(tree)
}

/// Cursor's tree (ACP-9): the embedded one, or `path`; it must declare `acp` and no prompt
/// separator (the prompt goes over the protocol).
pub fn cursor_tree(path: Option<&Path>) -> Result<CliTree, CliTreeError> {
    let tree = match path {
        None => CliTree::cursor_embedded(),
        Some(p) => CliTree::load(p),
    }?;
    tree.require_modes(&[Mode::Acp], false)?;
    Ok(tree)
}

/// The providers `--provider` names, in order, each once (PROV-2).
pub fn from_args(
    args: &ServeArgs,
    recorder: Option<&crate::record::Recorder>,
) -> Result<Vec<Arc<dyn Provider>>, CliTreeError> {
    let mut out: Vec<Arc<dyn Provider>> = Vec::new();
    let mut seen = Vec::new();
    for name in &args.providers {
        if seen.contains(name) {
            continue;
        }
        seen.push(*name);
        match name {
            ProviderName::Claude => {
                let tree = Arc::new(claude_tree(args.cli_tree.as_deref())?);
                out.push(Arc::new(claude::ClaudeProvider::new(
                    args.claude.clone(),
                    tree,
                )));
            }
            ProviderName::Cursor => {
                let tree = Arc::new(cursor_tree(args.cursor_cli_tree.as_deref())?);
                out.push(Arc::new(
                    cursor::CursorProvider::new(args.cursor.clone(), tree)
                        .with_step_timeout(std::time::Duration::from_secs(args.acp_step_timeout_s))
                        .with_recorder(recorder.cloned()),
                ));
            }
        }
    }
    Ok(out)
}
