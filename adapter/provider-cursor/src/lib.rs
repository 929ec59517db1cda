//! Cursor's agent over ACP, the second provider of the run contract (PROV-1, PROV-2, ACP-1..12).
//!
//! A run starts `cursor-agent [--model M] acp` (argv only from the pinned cursor command
//! contract, `cursor-cli-tree.json`, ACP-9) under the supervisor of its version check, with a piped
//! stdin, after asserting `cursor-agent --version` (NAT-2, C-SUP-1). The generic ACP client (`acp_client`) drives one
//! turn with Cursor's policy layered on top ([`acp_client::CursorPolicy`]: every `cursor/*`
//! request answered, ACP-5); every agent line and every client decision becomes one native event,
//! and the `session/prompt` answer becomes the out-of-band final `{stopReason, sessionId, text}`
//! ([`dialect`]). After every turn the whole group is killed: Cursor never exits on stdin EOF
//! after a turn (ACP-7). A cancel is `session/cancel`, a bounded grace, then the kill.
//!
//! Options: `model` (from the tree; a value beginning with `-` is refused, ACP-12),
//! `permission_mode` (ACP-4, ACP-11) and `resume_session_id` (ACP-8).
//! `continue_previous` and `no_session_persistence` are not offered. Nothing a host sends becomes
//! a credential: the user's environment passes through (scrubbed as NAT-8), with
//! `BROWSER=/bin/true` and `NO_OPEN_BROWSER=1` so nothing ever opens a login page.

#![warn(unreachable_pub)]

pub mod dialect;
mod process;
mod texts;
mod tools;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};

use cmk_engine::ToolError;
use cmk_engine::provider::{
    BoxFuture, Checked, Dialect, NativeProcess, OptionDecl, PreflightError, Provider, RunSpec,
    Texts,
};
use cmk_engine::record::{Dir, Recorder};
use cmk_native::binary::{EnvDeny, NativeBinary};
use cmk_native::cli_tree::{CliTree, CliTreeError, Mode, OptionValue};
use cmk_native::options::{NO_NUL_PATTERN, tree_options};
use cmk_native::registration::Registration;
use cmk_supervisor::{self as supervisor, StdinMode};

/// The permission modes a caller may choose (ACP-4); `dontAsk` is the default.
pub(crate) const PERMISSION_MODES: [&str; 3] = ["dontAsk", "plan", "acceptEdits"];
/// Longest `resume_session_id` accepted.
pub(crate) const SESSION_ID_MAX: usize = 256;

/// Other providers' credentials the agent never gets (NAT-8): Anthropic's API key, auth token
/// and Claude Code's OAuth token. Cursor's own (`CURSOR_API_KEY`) passes.
pub const FOREIGN_KEYS: &[&str] = &[
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CODE_OAUTH_TOKEN",
];

/// Runs `cursor-agent acp`.
#[derive(Debug, Clone)]
pub struct CursorProvider {
    native: NativeBinary,
    tree: Arc<CliTree>,
    step_timeout: Duration,
    cancel_grace: Duration,
    recorder: Option<Recorder>,
}

impl CursorProvider {
    /// `program` is a path, or a bare name looked up on PATH at each run.
    #[must_use]
    pub fn new(program: PathBuf, tree: Arc<CliTree>) -> Self {
        Self {
            native: NativeBinary::new(program, tree.clone())
                .with_env_deny(&EnvDeny::new(FOREIGN_KEYS.iter().copied()))
                .with_path_flag("--cursor"),
            tree,
            step_timeout: acp_client::HANDSHAKE_STEP,
            cancel_grace: acp_client::CANCEL_GRACE,
            recorder: None,
        }
    }

    /// Holds back `deny`'s variables too (`--env-deny`, NAT-8).
    #[must_use]
    pub fn with_env_deny(mut self, deny: &EnvDeny) -> Self {
        self.native = self.native.with_env_deny(deny);
        self
    }

    /// Records every line exchanged with the agent as `c2a` / `a2c` rows (`--record`).
    #[must_use]
    pub fn with_recorder(mut self, recorder: Option<Recorder>) -> Self {
        self.recorder = recorder;
        self
    }

    /// Bounds each handshake step by `d` instead of [`acp_client::HANDSHAKE_STEP`] (ACP-2).
    #[must_use]
    pub fn with_step_timeout(mut self, d: Duration) -> Self {
        self.step_timeout = d;
        self
    }

    /// Uses `exe` as the supervisor instead of the current executable.
    #[must_use]
    pub fn with_supervisor_exe(mut self, exe: impl Into<OsString>) -> Self {
        self.native = self.native.with_supervisor_exe(exe);
        self
    }

    /// The checked options: the tree's (argv) values, the permission mode and the resume id.
    fn read_options(&self, options: &Map<String, Value>) -> Result<Options, ToolError> {
        let mut tree_values = BTreeMap::new();
        let mut permission_mode = acp_client::PermissionMode::DontAsk;
        let mut resume = None;
        for (name, v) in options {
            match name.as_str() {
                "permission_mode" => {
                    permission_mode = match v.as_str() {
                        Some("dontAsk") => acp_client::PermissionMode::DontAsk,
                        Some("plan") => acp_client::PermissionMode::Plan,
                        Some("acceptEdits") => acp_client::PermissionMode::AcceptEdits,
                        _ => {
                            return Err(ToolError::invalid_argument(
                                "/permission_mode",
                                format!(
                                    "permission_mode must be one of {}",
                                    PERMISSION_MODES.join(", ")
                                ),
                            ));
                        }
                    }
                }
                "resume_session_id" => match v.as_str() {
                    Some(s) if !s.is_empty() && s.len() <= SESSION_ID_MAX && !s.contains('\0') => {
                        resume = Some(s.to_owned());
                    }
                    _ => {
                        return Err(ToolError::invalid_argument(
                            "/resume_session_id",
                            format!(
                                "resume_session_id must be 1 to {SESSION_ID_MAX} bytes without NUL"
                            ),
                        ));
                    }
                },
                _ => {
                    let value = match v {
                        // ACP-12: a value that argv would read as another flag
                        // (`--model --api-key`) never reaches the agent's parser.
                        Value::String(s) if s.starts_with('-') => {
                            return Err(ToolError::invalid_argument(
                                format!("/{name}"),
                                format!(
                                    "{name} must not begin with '-': cursor-agent would read \
                                     {s:?} as another flag",
                                    s = value_head(s)
                                ),
                            ));
                        }
                        Value::String(s) => OptionValue::Text(s.clone()),
                        _ => {
                            return Err(ToolError::invalid_argument(
                                format!("/{name}"),
                                format!("{name} is not a string option of cursor-agent"),
                            ));
                        }
                    };
                    tree_values.insert(name.clone(), value);
                }
            }
        }
        Ok(Options {
            tree_values,
            permission_mode,
            resume,
        })
    }

    /// The native argv (ACP-9): the tree's options, then `acp`; the prompt is never in argv.
    pub fn argv(&self, spec: &RunSpec) -> Result<Vec<OsString>, ToolError> {
        let o = self.read_options(&spec.options)?;
        self.tree
            .argv(Mode::Acp, &o.tree_values, &spec.prompt)
            .map_err(|e| ToolError::invalid_argument(e.pointer(), e.message))
    }
}

/// The first bytes of an option value, for a message.
fn value_head(s: &str) -> &str {
    let mut end = s.len().min(64);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// A request's options, read.
struct Options {
    tree_values: BTreeMap<String, OptionValue>,
    permission_mode: acp_client::PermissionMode,
    resume: Option<String>,
}

/// The environment of the agent (ACP-9): the user's, scrubbed (NAT-8), and never a login page.
#[must_use]
pub(crate) fn agent_env(base: Vec<(OsString, OsString)>) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = base
        .into_iter()
        .filter(|(k, _)| k != "BROWSER" && k != "NO_OPEN_BROWSER")
        .collect();
    env.push(("BROWSER".into(), "/bin/true".into()));
    env.push(("NO_OPEN_BROWSER".into(), "1".into()));
    env
}

impl Provider for CursorProvider {
    fn namespace(&self) -> &'static str {
        "cursor"
    }

    fn texts(&self) -> &dyn Texts {
        &texts::CursorTexts
    }

    fn options(&self) -> Vec<OptionDecl> {
        let mut out = tree_options(&self.tree, texts::option_description);
        out.push(OptionDecl {
            name: "permission_mode".into(),
            schema: json!({
                "type": "string",
                "enum": PERMISSION_MODES,
                "default": "dontAsk",
                "description": texts::option_description("permission_mode"),
            }),
            max_bytes: None,
        });
        out.push(OptionDecl {
            name: "resume_session_id".into(),
            schema: json!({
                "type": "string",
                "minLength": 1,
                "maxLength": SESSION_ID_MAX,
                "pattern": NO_NUL_PATTERN,
                "description": texts::option_description("resume_session_id"),
            }),
            max_bytes: Some(SESSION_ID_MAX),
        });
        out
    }

    fn dialect(&self) -> Arc<dyn Dialect> {
        Arc::new(dialect::Acp)
    }

    fn records_native_lines(&self) -> bool {
        false
    }

    fn term_grace(&self) -> Duration {
        // ACP-7: the cancel's own grace, then SIGTERM's.
        self.cancel_grace + supervisor::TERM_GRACE
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
            let o = self.read_options(&spec.options)?;
            let supervised = self
                .native
                .start(
                    checked,
                    args,
                    spec.cwd.clone(),
                    agent_env(self.native.env()),
                    StdinMode::Pipe,
                )
                .await?;
            // JSONOUT-2: no schema flag; the strict instruction goes with the prompt and the
            // final text is parsed strictly by the engine.
            let prompt = match &spec.json_schema {
                Some(schema) => format!(
                    "{}{}",
                    spec.prompt,
                    cmk_engine::jsonout::instruction(schema)
                ),
                None => spec.prompt.clone(),
            };
            let mut turn = acp_client::TurnConfig::new(spec.cwd.clone(), prompt);
            turn.permission_mode = o.permission_mode;
            turn.resume_session_id = o.resume;
            turn.step_timeout = self.step_timeout;
            turn.cancel_grace = self.cancel_grace;
            turn.max_line = cmk_engine::ingest::LINE_MAX;
            turn.text_max = process::TEXT_MAX;
            turn.tap = self
                .recorder
                .clone()
                .map(|r| Arc::new(RecordTap(r)) as Arc<dyn acp_client::WireTap>);
            turn.client_info = acp_client::ClientInfo {
                name: "claude-mcp-adapter".into(),
                version: env!("CARGO_PKG_VERSION").into(),
            };
            process::CursorProcess::start(supervised, turn)
                .map(|p| Box::new(p) as Box<dyn NativeProcess>)
        })
    }
}

/// The recorder as an ACP client's wire tap: lines to the agent are `c2a` rows, lines from it
/// `a2c` rows, an oversized agent line an `a2c` row `{"oversized": {"len"}}`.
#[derive(Debug)]
struct RecordTap(Recorder);

impl acp_client::WireTap for RecordTap {
    fn sent(&self, line: &[u8]) {
        self.0.line(Dir::C2a, line);
    }

    fn received(&self, line: &[u8]) {
        self.0.line(Dir::A2c, line);
    }

    fn received_oversized(&self, len: u64) {
        self.0
            .extra(Dir::A2c, "oversized", serde_json::json!({ "len": len }));
    }
}

/// Cursor's registration with the binary (PROV-2): `--provider cursor`, `--cursor PATH`,
/// `--cursor-cli-tree PATH`; the one-shot projection runs the same turn as a `cursor.run` call
/// (ACP has one mode).
pub const REGISTRATION: Registration = Registration {
    name: "cursor",
    summary: "Cursor's agent over ACP: the cursor.run… tools",
    native: "native Cursor agent",
    default_binary: "cursor-agent",
    tree_flag: "cursor-cli-tree",
    tree_file: "cursor-cli-tree.json",
    tree_rule: "ACP-9",
    pinned: CliTree::cursor_embedded,
    build: |setup| {
        let tree = Arc::new(tree(setup.cli_tree)?);
        let mut provider = CursorProvider::new(setup.binary.to_path_buf(), tree)
            .with_recorder(setup.recorder.cloned())
            .with_env_deny(setup.env_deny);
        if let Some(d) = setup.step_timeout {
            provider = provider.with_step_timeout(d);
        }
        Ok(Arc::new(provider))
    },
};

/// Cursor's tree (ACP-9): the embedded one, or `path`; it must declare `acp` and no prompt
/// separator (the prompt goes over the protocol).
pub fn tree(path: Option<&Path>) -> Result<CliTree, CliTreeError> {
    let tree = cmk_native::cli_tree::preferred(
        path,
        cmk_native::cli_tree::CURSOR_USER_FILE,
        CliTree::cursor_embedded,
    )?;
    tree.require_modes(&[Mode::Acp], false)?;
    Ok(tree)
}

#[cfg(test)]
mod tests {
    use super::*;
    use cmk_engine::ErrorCode;

    fn provider() -> CursorProvider {
        CursorProvider::new(
            "cursor-agent".into(),
            Arc::new(CliTree::cursor_embedded().expect("tree")),
        )
    }

    fn spec(options: Value) -> RunSpec {
        let Value::Object(options) = options else {
            panic!("object")
        };
        RunSpec {
            prompt: "hi".into(),
            cwd: "/".into(),
            timeout: Duration::from_secs(1),
            options,
            guard: cmk_engine::tools::GuardConfig::default(),
            json_schema: None,
        }
    }

    #[test]
    fn argv_puts_global_flags_before_acp_and_never_the_prompt() {
        // ACP-9.
        let p = provider();
        let argv = p.argv(&spec(json!({}))).expect("argv");
        assert_eq!(argv, vec![OsString::from("acp")]);
        let argv = p
            .argv(&spec(
                json!({"model": "composer-2.5", "permission_mode": "plan"}),
            ))
            .expect("argv");
        assert_eq!(
            argv,
            ["--model", "composer-2.5", "acp"]
                .map(OsString::from)
                .to_vec()
        );
    }

    #[test]
    fn options_are_checked_with_their_field() {
        let p = provider();
        for (bad, field) in [
            (
                json!({"permission_mode": "bypassPermissions"}),
                "/permission_mode",
            ),
            (json!({"resume_session_id": ""}), "/resume_session_id"),
            (json!({"continue_previous": true}), "/continue_previous"),
            (json!({"model": "x".repeat(257)}), "/model"),
            // ACP-12: never a flag in a value's place.
            (json!({"model": "--dangerously-skip-permissions"}), "/model"),
            (json!({"model": "--api-key"}), "/model"),
            (json!({"model": "-m"}), "/model"),
            (json!({"model": "-"}), "/model"),
        ] {
            let e = p.check(&spec(bad.clone())).expect_err("refused");
            assert_eq!(e.code, ErrorCode::InvalidArguments, "{bad}");
            assert_eq!(e.extra["field"], field, "{bad}");
        }
    }

    #[test]
    fn the_schema_offers_exactly_cursors_options() {
        // ACP-8: no continue_previous, no no_session_persistence.
        let names: Vec<String> = provider().options().into_iter().map(|o| o.name).collect();
        assert_eq!(names, ["model", "permission_mode", "resume_session_id"]);
    }

    #[test]
    fn the_agent_never_opens_a_login_page() {
        // ACP-9.
        let env = agent_env(cmk_native::binary::scrubbed_env());
        let get = |k: &str| {
            env.iter()
                .filter(|(n, _)| n == k)
                .map(|(_, v)| v.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(get("BROWSER"), vec![OsString::from("/bin/true")]);
        assert_eq!(get("NO_OPEN_BROWSER"), vec![OsString::from("1")]);
    }
}
