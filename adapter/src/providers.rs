//! The provider registration: which native agent CLIs `--provider` can name, and how each is
//! built from the server's arguments (PROV-1, PROV-2). Each provider is a crate of its own
//! (`cmk-provider-claude`, `cmk-provider-cursor`) behind the engine's `Provider` trait; the
//! engine crate cannot name them, and this table is the one place that does.

use std::sync::Arc;

use cmk_engine::provider::Provider;
use cmk_engine::record::Recorder;
use cmk_mcp_server::config::{ProviderName, ServeArgs};
use cmk_native::binary::EnvDeny;
use cmk_native::cli_tree::CliTreeError;

/// The providers `--provider` names, in order, each once (PROV-2).
pub fn from_args(
    args: &ServeArgs,
    recorder: Option<&Recorder>,
) -> Result<Vec<Arc<dyn Provider>>, CliTreeError> {
    let mut out: Vec<Arc<dyn Provider>> = Vec::new();
    let mut seen = Vec::new();
    let deny = EnvDeny::new(args.env_deny.iter().cloned());
    for name in &args.providers {
        if seen.contains(name) {
            continue;
        }
        seen.push(*name);
        match name {
            ProviderName::Claude => {
                let tree = Arc::new(cmk_provider_claude::tree(args.cli_tree.as_deref())?);
                out.push(Arc::new(
                    cmk_provider_claude::ClaudeProvider::new(args.claude.clone(), tree)
                        .with_env_deny(&deny),
                ));
            }
            ProviderName::Cursor => {
                let tree = Arc::new(cmk_provider_cursor::tree(args.cursor_cli_tree.as_deref())?);
                out.push(Arc::new(
                    cmk_provider_cursor::CursorProvider::new(args.cursor.clone(), tree)
                        .with_step_timeout(std::time::Duration::from_secs(args.acp_step_timeout_s))
                        .with_recorder(recorder.cloned())
                        .with_env_deny(&deny),
                ));
            }
        }
    }
    Ok(out)
}
