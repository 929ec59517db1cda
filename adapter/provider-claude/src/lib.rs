//! The claude provider: version assertion (NAT-2), argv from the cli tree only (NAT-1, NAT-3..7),
//! a scrubbed environment (NAT-8), a supervised spawn with stdin `/dev/null` (SUP-1), the
//! stream-json dialect ([`stream`], which classifies each line with the bounded top-level
//! [`scan`]), its tool events (`tools`) and its texts (`texts`). Its completion rule is the
//! process exit (print mode exits when done) and it has no graceful interrupt: a cancel ends
//! the process group (SUP-3).

#![warn(unreachable_pub)]

pub mod scan;
pub mod stream;
mod texts;
mod tools;

#[cfg(test)]
mod outcome_tests;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use cmk_engine::ToolError;
use cmk_engine::provider::{
    BoxFuture, Checked, Dialect, NativeProcess, OptionDecl, PreflightError, Provider, RunSpec,
    Texts,
};
use cmk_native::binary::{EnvDeny, NativeBinary};
use cmk_native::cli_tree::{CliTree, CliTreeError, Mode, OptionValue};
use cmk_native::options::{tree_options, tree_values};
use cmk_native::registration::Registration;
use cmk_supervisor as supervisor;

/// The tree option that carries the engine's `json_schema` (JSONOUT-1).
pub const JSON_SCHEMA_OPTION: &str = "json_schema";

/// Other providers' credentials claude never gets (NAT-8): Cursor's API key. Claude's own
/// (`ANTHROPIC_*`, `CLAUDE_CODE_*`) and the cloud credentials Bedrock and Vertex users need
/// (`AWS_*`, `GOOGLE_*`, …) pass.
pub const FOREIGN_KEYS: &[&str] = &["CURSOR_API_KEY"];

/// Runs `claude -p --output-format stream-json …` (or the JSON mode for the CLI projection).
#[derive(Debug, Clone)]
pub struct ClaudeProvider {
    native: NativeBinary,
    tree: Arc<CliTree>,
    mode: Mode,
}

impl ClaudeProvider {
    /// `claude` is a path, or a bare name looked up on PATH at each run.
    #[must_use]
    pub fn new(claude: PathBuf, tree: Arc<CliTree>) -> Self {
        Self {
            native: NativeBinary::new(claude, tree.clone())
                .with_env_deny(&EnvDeny::new(FOREIGN_KEYS.iter().copied()))
                .with_path_flag("--claude"),
            tree,
            mode: Mode::Stream,
        }
    }

    /// Holds back `deny`'s variables too (`--env-deny`, NAT-8).
    #[must_use]
    pub fn with_env_deny(mut self, deny: &EnvDeny) -> Self {
        self.native = self.native.with_env_deny(deny);
        self
    }

    /// Runs in the given mode (`Mode::Json` for the CLI projection, CLI-1).
    #[must_use]
    pub fn with_mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// Uses `exe` as the supervisor instead of the current executable (benches and tests whose
    /// own binary is not the adapter).
    #[must_use]
    pub fn with_supervisor_exe(mut self, exe: impl Into<OsString>) -> Self {
        self.native = self.native.with_supervisor_exe(exe);
        self
    }

    /// The native argv for a request (without the program).
    pub fn argv(&self, spec: &RunSpec) -> Result<Vec<OsString>, ToolError> {
        // A model name never begins with '-'; such a value is a flag in the model's place
        // (`--model --dangerously-skip-permissions`) and is refused before claude's own parser
        // sees it (NAT-4, TOOL-2), as the Cursor provider does (ACP-12).
        if let Some(serde_json::Value::String(model)) = spec.options.get("model")
            && model.starts_with('-')
        {
            return Err(ToolError::invalid_argument(
                "/model",
                "model must not begin with '-': claude would read it as another flag",
            ));
        }
        let mut values = tree_values(&spec.options)?;
        // JSONOUT-1: the engine's json_schema reaches claude as `--json-schema` (declared in
        // the tree like every flag, NAT-1).
        if let Some(schema) = &spec.json_schema {
            values.insert(
                JSON_SCHEMA_OPTION.into(),
                OptionValue::Text(schema.to_string()),
            );
        }
        self.tree
            .argv(self.mode, &values, &spec.prompt)
            .map_err(|e| ToolError::invalid_argument(e.pointer(), e.message))
    }
}

impl Provider for ClaudeProvider {
    fn namespace(&self) -> &'static str {
        "claude"
    }

    fn texts(&self) -> &dyn Texts {
        &texts::ClaudeTexts
    }

    fn options(&self) -> Vec<OptionDecl> {
        // The engine owns json_schema (an object for every provider); the tree's string form
        // is only how it reaches argv.
        tree_options(&self.tree, texts::option_description)
            .into_iter()
            .filter(|o| !cmk_engine::ENGINE_ARGUMENTS.contains(&o.name.as_str()))
            .collect()
    }

    fn dialect(&self) -> Arc<dyn Dialect> {
        Arc::new(stream::StreamJson)
    }

    fn term_grace(&self) -> Duration {
        supervisor::TERM_GRACE
    }

    fn check(&self, spec: &RunSpec) -> Result<(), ToolError> {
        self.argv(spec).map(|_| ())
    }

    fn preflight(
        &self,
        deadline: tokio::time::Instant,
    ) -> BoxFuture<'_, Result<Checked, PreflightError>> {
        Box::pin(self.native.check_version(deadline))
    }

    fn spawn<'a>(
        &'a self,
        checked: &'a Checked,
        spec: &'a RunSpec,
    ) -> BoxFuture<'a, Result<Box<dyn NativeProcess>, ToolError>> {
        Box::pin(async move {
            let args = self.argv(spec)?;
            let process = self
                .native
                .start(
                    checked,
                    args,
                    spec.cwd.clone(),
                    self.native.env(),
                    supervisor::StdinMode::Null,
                )
                .await?;
            Ok(Box::new(process) as Box<dyn NativeProcess>)
        })
    }
}

/// claude's registration with the binary (PROV-2): `--provider claude`, `--claude PATH`,
/// `--cli-tree PATH`; the one-shot projection runs the JSON mode (NAT-3).
pub const REGISTRATION: Registration = Registration {
    name: "claude",
    summary: "Claude Code's print mode: the claude.run… tools",
    native: "native claude binary",
    default_binary: "claude",
    tree_flag: "cli-tree",
    tree_file: "cli-tree.json",
    tree_rule: "NAT-1",
    pinned: CliTree::embedded,
    build: |setup| {
        let tree = Arc::new(tree(setup.cli_tree)?);
        let mode = if setup.one_shot {
            Mode::Json
        } else {
            Mode::Stream
        };
        Ok(Arc::new(
            ClaudeProvider::new(setup.binary.to_path_buf(), tree)
                .with_mode(mode)
                .with_env_deny(setup.env_deny),
        ))
    },
};

/// claude's tree: the embedded one, or `path`; it must declare the modes claude runs.
pub fn tree(path: Option<&Path>) -> Result<CliTree, CliTreeError> {
    let tree =
        cmk_native::cli_tree::preferred(path, cmk_native::cli_tree::USER_FILE, CliTree::embedded)?;
    tree.require_modes(&[Mode::Stream, Mode::Json], true)?;
    Ok(tree)
}

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;

    use serde_json::Map;

    use super::*;
    use cmk_engine::ErrorCode;
    use cmk_native::binary::{ARG_STRLEN_MAX, is_scrubbed, scrub, too_long_for_exec};

    fn tree() -> Arc<CliTree> {
        Arc::new(CliTree::embedded().expect("tree"))
    }

    fn far() -> tokio::time::Instant {
        tokio::time::Instant::now() + Duration::from_secs(60)
    }

    fn refused(r: Result<Checked, PreflightError>) -> ToolError {
        match r {
            Err(PreflightError::Refused(e)) => e,
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn scrubbing_drops_reserved_variables_only() {
        // NAT-8.
        assert!(is_scrubbed(OsStr::new("CLAUDECODE")));
        assert!(is_scrubbed(OsStr::new("COMPUTER_MCP_ANYTHING")));
        assert!(!is_scrubbed(OsStr::new("CLAUDECODE_X")));
        assert!(!is_scrubbed(OsStr::new("ANTHROPIC_API_KEY")));
        assert!(!is_scrubbed(OsStr::new("PATH")));
        let kept = scrub([
            ("CLAUDECODE".into(), "1".into()),
            ("COMPUTER_MCP_X".into(), "y".into()),
            ("HOME".into(), "/h".into()),
        ]);
        assert_eq!(kept, vec![(OsString::from("HOME"), OsString::from("/h"))]);
    }

    #[tokio::test]
    async fn a_missing_binary_is_native_not_found_with_path_and_os_error() {
        let p = ClaudeProvider::new("/nonexistent/claude".into(), tree());
        let e = refused(p.preflight(far()).await);
        assert_eq!(e.code, ErrorCode::NativeNotFound);
        assert_eq!(e.extra["path"], "/nonexistent/claude");
        assert!(e.extra["os_error"].as_str().is_some_and(|s| !s.is_empty()));
        let p = ClaudeProvider::new("no-such-claude-binary-here".into(), tree());
        let e = refused(p.preflight(far()).await);
        assert_eq!(e.code, ErrorCode::NativeNotFound);
        assert_eq!(e.extra["os_error"], "not found on PATH");
    }

    #[tokio::test]
    async fn an_argument_linux_cannot_pass_is_spawn_failed_saying_why() {
        // RUN-0's 128 KiB is one byte over MAX_ARG_STRLEN (which counts the NUL).
        let p = ClaudeProvider::new("claude".into(), tree());
        let checked = Checked::new("/nonexistent/never-started".into());
        let mut spec = RunSpec {
            prompt: "x".repeat(ARG_STRLEN_MAX),
            cwd: "/".into(),
            timeout: Duration::from_secs(1),
            options: Map::new(),
            guard: cmk_engine::tools::GuardConfig::default(),
            json_schema: None,
        };
        let e = match p.spawn(&checked, &spec).await {
            Err(e) => e,
            Ok(_) => panic!("spawned an impossible argv"),
        };
        assert_eq!(e.code, ErrorCode::SpawnFailed);
        assert!(e.message.contains("MAX_ARG_STRLEN"), "{}", e.message);
        assert!(e.message.contains("131072 bytes"), "{}", e.message);
        spec.prompt.pop();
        assert!(too_long_for_exec(&p.argv(&spec).expect("argv")).is_ok());
    }

    #[test]
    fn argv_comes_from_the_tree_with_field_errors() {
        let p = ClaudeProvider::new("claude".into(), tree());
        let mut spec = RunSpec {
            prompt: "-p".into(),
            cwd: "/".into(),
            timeout: Duration::from_secs(1),
            options: Map::new(),
            guard: cmk_engine::tools::GuardConfig::default(),
            json_schema: None,
        };
        let argv = p.argv(&spec).expect("argv");
        assert_eq!(argv.last().map(OsString::as_os_str), Some(OsStr::new("-p")));
        spec.options
            .insert("permission_mode".into(), "bypassPermissions".into());
        let e = p.argv(&spec).expect_err("refused");
        assert_eq!(e.code, ErrorCode::InvalidArguments);
        assert_eq!(e.extra["field"], "/permission_mode");
    }

    #[test]
    fn a_model_that_begins_with_a_dash_is_refused_naming_the_field() {
        // NAT-4, TOOL-2: never a flag in the model's place.
        let p = ClaudeProvider::new("claude".into(), tree());
        let mut spec = RunSpec {
            prompt: "hi".into(),
            cwd: "/".into(),
            timeout: Duration::from_secs(1),
            options: Map::new(),
            guard: cmk_engine::tools::GuardConfig::default(),
            json_schema: None,
        };
        for model in ["--dangerously-skip-permissions", "--api-key", "-m"] {
            spec.options.insert("model".into(), model.into());
            let e = p.argv(&spec).expect_err(model);
            assert_eq!(e.code, ErrorCode::InvalidArguments, "{model}");
            assert_eq!(e.extra["field"], "/model", "{model}");
            assert!(
                e.message.contains("must not begin with '-'"),
                "{}",
                e.message
            );
        }
        spec.options.insert("model".into(), "sonnet".into());
        let argv = p.argv(&spec).expect("a plain model passes");
        assert!(argv.iter().any(|a| a == "sonnet"), "{argv:?}");
    }
}
