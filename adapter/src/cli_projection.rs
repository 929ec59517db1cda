//! The one-shot CLI projection (CLI-1): `claude-mcp-adapter cli run --permission-mode MODE … -- PROMPT`.
//!
//! With `--provider cursor`, one Cursor agent turn over ACP (the same as a `cursor.run` call),
//! printing its final `{stopReason, sessionId, text}`; options claude has and Cursor does not
//! are usage errors. By default, claude:
//! one print-mode call with `--output-format json` (NAT-3), through the very engine MCP runs use:
//! the same version assertion (NAT-2), argv from cli-tree.json (NAT-1, NAT-4..7), session
//! exclusions (NAT-6), supervision (SUP) and outcome rules (OUT-1, OUT-2); only the mode differs.
//! stdout carries the single native JSON result, nothing else. Exit 0 when the run succeeded,
//! 1 when it failed (the native result still printed when there is one, the error on stderr),
//! 2 on usage errors (clap's own, and arguments the engine refuses as `invalid_arguments`).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::Value;

use cmk_engine::{Engine, EngineConfig, ErrorCode, RunRequest, ToolError};
use cmk_mcp_server::config::DEFAULT_MAX_TIMEOUT_S;
use cmk_native::binary::EnvDeny;

use crate::providers;

/// Exit status of a failed run.
const EXIT_FAILED: u8 = 1;
/// Exit status of a usage error (clap uses the same).
const EXIT_USAGE: u8 = 2;

/// `cli run` arguments (CLI-1), boxed: the subcommand enum stays small.
#[derive(Debug, Clone, clap::Args)]
#[command(
    after_help = "Prints the single native JSON result on stdout. Exit status: 0 when the run \
                  succeeded, 1 when it failed (the native result is still printed when there is \
                  one; the error goes to stderr), 2 on usage errors."
)]
pub struct CliRunArgs {
    /// The options and the prompt.
    #[command(flatten)]
    pub run: Box<RunOptions>,
}

/// The options of `cli run`. Value rules beyond what clap states here (UUIDs, effort levels,
/// budget bounds, cwd existence, timeout range) are the engine's and the cli tree's, so the
/// projection cannot accept what an MCP run would refuse.
#[derive(Debug, Clone, clap::Args)]
pub struct RunOptions {
    /// Which native CLI runs the prompt (its one-shot mode: claude's `--output-format json`;
    /// Cursor's one turn, its final `{stopReason, sessionId, text}` printed), and every
    /// provider's `--NAME PATH` / `--NAME-cli-tree PATH`.
    #[command(flatten)]
    pub provider: providers::One,
    /// Native permission mode, passed explicitly (NAT-5): dontAsk, plan or acceptEdits.
    #[arg(long, value_name = "MODE", required = true)]
    pub permission_mode: String,
    /// Model for the run (forwarded only when given, NAT-4).
    #[arg(long, value_name = "M")]
    pub model: Option<String>,
    /// Effort level: low, medium, high, xhigh or max.
    #[arg(long, value_name = "E")]
    pub effort: Option<String>,
    /// Text appended to the default system prompt.
    #[arg(long, value_name = "S")]
    pub append_system_prompt: Option<String>,
    /// Spending limit in USD (greater than 0).
    #[arg(long, value_name = "N")]
    pub max_budget_usd: Option<f64>,
    /// Resume the native session with this UUID.
    #[arg(long, value_name = "ID", conflicts_with_all = ["continue_previous", "session_id", "no_session_persistence"])]
    pub resume: Option<String>,
    /// Continue the most recent native session in the working directory.
    #[arg(long = "continue", id = "continue_previous", conflicts_with_all = ["session_id", "no_session_persistence"])]
    pub continue_previous: bool,
    /// Use this UUID as the new native session id.
    #[arg(long, value_name = "ID")]
    pub session_id: Option<String>,
    /// Do not save the native session.
    #[arg(long)]
    pub no_session_persistence: bool,
    /// Working directory of the run (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Run timeout in seconds (default 600, at most 1800).
    #[arg(long, value_name = "N")]
    pub timeout_s: Option<u64>,
    /// Hold a variable back from the native process: a NAME, or a PREFIX* (repeatable; the
    /// other provider's keys are always held back, NAT-8).
    #[arg(long = "env-deny", value_name = "NAME|PREFIX*", value_parser = EnvDeny::parse_pattern)]
    pub env_deny: Vec<String>,
    /// The prompt, after `--` (a prompt starting with `-` stays a prompt, NAT-7).
    #[arg(last = true, required = true, value_name = "PROMPT")]
    pub prompt: String,
}

impl RunOptions {
    /// The same request an MCP `claude.run` call with these arguments would make.
    fn request(&self) -> Result<RunRequest, String> {
        let cwd = match &self.cwd {
            // Relative to where the user typed it; the engine requires an absolute path.
            Some(p) if p.is_relative() => Some(
                std::env::current_dir()
                    .map_err(|e| format!("cannot resolve --cwd {}: {e}", p.display()))?
                    .join(p),
            ),
            other => other.clone(),
        };
        let mut options = serde_json::Map::new();
        let mut text = |name: &str, v: &Option<String>| {
            if let Some(v) = v {
                options.insert(name.to_owned(), v.clone().into());
            }
        };
        text("permission_mode", &Some(self.permission_mode.clone()));
        text("model", &self.model);
        text("effort", &self.effort);
        text("append_system_prompt", &self.append_system_prompt);
        text("resume_session_id", &self.resume);
        text("session_id", &self.session_id);
        if let Some(n) = self.max_budget_usd {
            let n = serde_json::Number::from_f64(n).ok_or_else(|| {
                "invalid --max-budget-usd: max_budget_usd must be a finite number".to_owned()
            })?;
            options.insert("max_budget_usd".into(), Value::Number(n));
        }
        if self.continue_previous {
            options.insert("continue_previous".into(), true.into());
        }
        if self.no_session_persistence {
            options.insert("no_session_persistence".into(), true.into());
        }
        Ok(RunRequest {
            prompt: self.prompt.clone(),
            cwd,
            timeout_s: self.timeout_s,
            options,
            ..RunRequest::default()
        })
    }
}

/// The CLI spelling of an engine argument, for usage messages.
fn flag_of(field: &str) -> String {
    match field.trim_start_matches('/') {
        "resume_session_id" => "--resume".into(),
        "continue_previous" => "--continue".into(),
        "prompt" => "PROMPT".into(),
        other => format!("--{}", other.replace('_', "-")),
    }
}

/// How a settled run ended, for the exit status.
#[derive(Debug)]
enum Ended {
    /// The run's result object (RUN-4).
    Run(Value),
    /// The engine refused the request before running anything.
    Refused(ToolError),
}

/// Runs one print-mode call and prints the native JSON result.
pub fn run(args: CliRunArgs) -> ExitCode {
    let fail = |code: u8, msg: &str| {
        cmk_engine::diag::now(&format!("claude-mcp-adapter cli run: {msg}"));
        ExitCode::from(code)
    };
    let args = *args.run;
    let deny = EnvDeny::new(args.env_deny.iter().cloned());
    // The same tree an MCP run uses (`--NAME-cli-tree`, else a refreshed one, else embedded).
    let provider = match args.provider.build(&deny) {
        Ok(p) => p,
        Err(e) => return fail(EXIT_USAGE, &e.to_string()),
    };
    let req = match args.request() {
        Ok(r) => r,
        Err(e) => return fail(EXIT_USAGE, &e),
    };
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return fail(EXIT_FAILED, &format!("cannot start the runtime: {e}")),
    };
    let cfg = EngineConfig {
        max_timeout_s: DEFAULT_MAX_TIMEOUT_S,
        recorder: None,
        tool_names: cmk_engine::ToolNames::Dotted,
        hooks: cmk_mcp_server::hooks(),
    };
    let engine = Engine::with_provider(cfg, provider);
    match rt.block_on(execute(&engine, req)) {
        Ended::Refused(e) if e.code == ErrorCode::InvalidArguments => {
            let field = e.extra.get("field").and_then(Value::as_str).map(flag_of);
            let msg = match field {
                Some(f) => format!("invalid {f}: {}", e.message),
                None => e.message.clone(),
            };
            fail(EXIT_USAGE, &msg)
        }
        Ended::Refused(e) => fail(EXIT_FAILED, &format!("{}: {}", e.code.as_str(), e.message)),
        Ended::Run(result) => report(&result),
    }
}

/// Starts the run and waits for it to settle (cleanup included). SIGINT or SIGTERM cancel it
/// (RUN-6) and still wait for the cleanup, so an interrupted projection leaves no process behind;
/// SIGKILL is covered by the supervisor's lifeline (SUP-2).
async fn execute(engine: &Engine, req: RunRequest) -> Ended {
    let run_id = match engine.start(req, None) {
        Ok(id) => id,
        Err(e) => return Ended::Refused(e),
    };
    let settled = engine.wait_settled(&run_id, None);
    tokio::pin!(settled);
    let mut sigterm =
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    tokio::select! {
        _ = &mut settled => {}
        _ = tokio::signal::ctrl_c() => {
            let _ = engine.cancel(&run_id);
            let _ = settled.await;
        }
        Some(()) = async {
            match sigterm.as_mut() {
                Some(s) => s.recv().await,
                None => std::future::pending().await,
            }
        } => {
            let _ = engine.cancel(&run_id);
            let _ = settled.await;
        }
    }
    match engine.result(&run_id) {
        Ok(v) => Ended::Run(cmk_engine::to_json(&v)),
        Err(e) => Ended::Refused(e),
    }
}

/// Prints the native result (when there is one) and maps the run's outcome to the exit status.
fn report(result: &Value) -> ExitCode {
    if let Some(native) = result.get("final").filter(|v| !v.is_null()) {
        let mut line = serde_json::to_string(native).unwrap_or_default();
        line.push('\n');
        let mut out = std::io::stdout().lock();
        // A closed stdout (the reader went away) does not change the run's outcome.
        let _ = out.write_all(line.as_bytes());
        let _ = out.flush();
    }
    if result.get("state").and_then(Value::as_str) == Some("succeeded") {
        return ExitCode::SUCCESS;
    }
    let error = result.get("error");
    let code = error
        .and_then(|e| e.get("code"))
        .and_then(Value::as_str)
        .unwrap_or("failed");
    let message = error
        .and_then(|e| e.get("message"))
        .and_then(Value::as_str)
        .unwrap_or("the run did not succeed");
    let state = result.get("state").and_then(Value::as_str).unwrap_or("?");
    cmk_engine::diag::now(&format!(
        "claude-mcp-adapter cli run: {code}: {message} (state {state})"
    ));
    if let Some(c) = result.get("cleanup_error").and_then(Value::as_str) {
        cmk_engine::diag::now(&format!("claude-mcp-adapter cli run: cleanup: {c}"));
    }
    ExitCode::from(EXIT_FAILED)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Wrapper {
        #[command(flatten)]
        args: CliRunArgs,
    }

    fn parse(argv: &[&str]) -> Result<RunOptions, clap::Error> {
        Wrapper::try_parse_from(std::iter::once("run").chain(argv.iter().copied()))
            .map(|w| *w.args.run)
    }

    #[test]
    fn the_permission_mode_and_the_prompt_are_required() {
        assert!(parse(&["--", "hi"]).is_err());
        assert!(parse(&["--permission-mode", "plan"]).is_err());
        let a = parse(&["--permission-mode", "plan", "--", "-starts-with-dash"]).unwrap();
        assert_eq!(a.prompt, "-starts-with-dash");
    }

    #[test]
    fn session_options_exclude_each_other_at_parse_time() {
        let id = "11111111-2222-4333-8444-555555555555";
        for bad in [
            vec!["--resume", id, "--continue"],
            vec!["--resume", id, "--session-id", id],
            vec!["--continue", "--session-id", id],
            vec!["--resume", id, "--no-session-persistence"],
            vec!["--continue", "--no-session-persistence"],
        ] {
            let mut argv = vec!["--permission-mode", "dontAsk"];
            argv.extend(bad.iter().copied());
            argv.extend(["--", "p"]);
            let e = parse(&argv).expect_err("NAT-6 exclusion");
            assert_eq!(e.exit_code(), 2, "{bad:?}");
        }
        let ok = parse(&[
            "--permission-mode",
            "dontAsk",
            "--session-id",
            id,
            "--no-session-persistence",
            "--",
            "p",
        ]);
        assert!(ok.is_ok());
    }

    #[test]
    fn the_request_is_the_mcp_request_with_a_resolved_cwd() {
        let a = parse(&[
            "--permission-mode",
            "acceptEdits",
            "--continue",
            "--max-budget-usd",
            "0.5",
            "--cwd",
            "some/dir",
            "--",
            "p",
        ])
        .unwrap();
        let r = a.request().unwrap();
        assert_eq!(r.options["permission_mode"], "acceptEdits");
        assert_eq!(r.options["continue_previous"], true);
        assert!(!r.options.contains_key("no_session_persistence"));
        assert_eq!(r.options["max_budget_usd"], 0.5);
        let cwd = r.cwd.unwrap();
        assert!(cwd.is_absolute() && cwd.ends_with("some/dir"));
    }

    #[test]
    fn engine_fields_are_named_by_their_cli_flags() {
        assert_eq!(flag_of("/resume_session_id"), "--resume");
        assert_eq!(flag_of("/continue_previous"), "--continue");
        assert_eq!(flag_of("/max_budget_usd"), "--max-budget-usd");
        assert_eq!(flag_of("/prompt"), "PROMPT");
    }
}
