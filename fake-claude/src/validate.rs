//! What claude checks after reading argv, in the order it checks it (probed on the real 2.1.328
//! with pairs of faults: the first failing check wins). The order:
//!
//! 1. before argv is parsed properly: `--settings`, then `--setting-sources`;
//! 2. argv parsing (unknown options, invalid values, `--version`, `--help`);
//! 3. `--session-id` with `--resume`/`--continue` but no `--fork-session`; `--session-id` not a UUID;
//! 4. `--system-prompt-file`, `--append-system-prompt-file`, `--mcp-config` files;
//! 5. `--input-format stream-json` without stream-json output; `--include-partial-messages`
//!    without stream-json output; `--json-schema` not a JSON object;
//! 6. bypass modes as root unless `IS_SANDBOX=1`; `--resume-session-at` without `--resume`;
//! 7. `--resume` without a value or with a value that is not a UUID (the fake keeps no sessions,
//!    so no title ever matches);
//! 8. (after stdin is read, [`Plan::check_input`]) no prompt; whitespace-only prompt;
//!    stream-json output without `--verbose`.

use std::path::{Component, Path, PathBuf};

use crate::cli::flags::Arity;
use crate::cli::jsc_json;
use crate::cli::parse::{Outcome, Parsed, Value, parse};
use crate::errors::{CliError, ErrorId};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    Text,
    Json,
    StreamJson,
}

/// What the fake needs from the host to judge argv.
pub struct Host {
    pub cwd: PathBuf,
    pub is_root: bool,
    /// `IS_SANDBOX` is exactly `1` (`yes` or `true` do not count on the real CLI).
    pub sandbox: bool,
}

/// A print-mode invocation that passed every check that does not need stdin.
#[derive(Clone, Debug)]
pub struct Plan {
    pub output: OutputFormat,
    pub verbose: bool,
    pub partial: bool,
    pub stream_input: bool,
    pub prompt_arg: Option<String>,
    pub session_id: Option<String>,
    /// The `--resume` session id (always a UUID here).
    pub resume: Option<String>,
    pub fork_session: bool,
    pub model: Option<String>,
    pub permission_mode: Option<String>,
}

#[derive(Debug)]
pub enum Decision {
    Version,
    /// `--help`; `print_mode`: `-p`/`--print` stands in argv ([`print_flag_given`]).
    Help {
        print_mode: bool,
    },
    Fail(CliError),
    /// A `--resume` failure: the error on stderr, and with stream-json output a result line.
    ResumeFail(CliError, Plan),
    /// No `-p`: the fake only implements print mode.
    NotPrint,
    Run(Plan),
}

/// Judges argv; `warnings` go to stderr first, in order, whatever the decision.
pub fn validate(args: &[String], host: &Host) -> (Vec<String>, Decision) {
    if let Err(e) = early_settings(args, host) {
        return (Vec::new(), Decision::Fail(e));
    }
    let result = parse(args, true);
    let decision = match result.outcome {
        Outcome::Version => Decision::Version,
        Outcome::Help => Decision::Help {
            print_mode: print_flag_given(args),
        },
        Outcome::Error(e) => Decision::Fail(e),
        Outcome::Parsed(p) if !p.has("--print") => Decision::NotPrint,
        Outcome::Parsed(p) => judge(&p, host),
    };
    (result.warnings, decision)
}

/// Whether `-p` or `--print` stands in argv as an option word before `--`: the real CLI's
/// pre-scan (read out of 2.1.328) skips the values of options the way the parser takes them, and
/// a combined `-pc` does not count. It picks the help text: print mode's lists no commands
/// (probed: `-p --help`, `--help --print`; not `-pc --help`, `--model -p --help`, `--help -- -p`).
pub fn print_flag_given(args: &[String]) -> bool {
    let option_like = |w: &str| w.len() > 1 && w.starts_with('-');
    let mut i = 0;
    while i < args.len() {
        let word = args[i].as_str();
        if word == "--" {
            return false;
        }
        if word == "-p" || word == "--print" {
            return true;
        }
        match crate::cli::options::find(word).map(|o| o.arity()) {
            Some(Arity::Required) => i += 1,
            Some(Arity::Variadic) => {
                i += 1;
                while args.get(i + 1).is_some_and(|w| !option_like(w)) {
                    i += 1;
                }
            }
            Some(Arity::Optional) if args.get(i + 1).is_some_and(|w| !option_like(w)) => i += 1,
            _ => {}
        }
        i += 1;
    }
    false
}

fn err(id: ErrorId) -> CliError {
    CliError::new(id)
}

/// Step 1: claude reads `--settings` and `--setting-sources` before its real argv parse.
fn early_settings(args: &[String], host: &Host) -> Result<(), CliError> {
    let Outcome::Parsed(p) = parse(args, false).outcome else {
        return Ok(());
    };
    if let Some(s) = p.str("--settings")
        && !is_json_object(s)
        && !resolve(&host.cwd, s).exists()
    {
        let path = resolve(&host.cwd, s).display().to_string();
        return Err(err(ErrorId::SettingsNotFound).with("path", path));
    }
    if let Some(sources) = p.str("--setting-sources").filter(|s| !s.is_empty()) {
        for source in sources.split(',') {
            let source = crate::cli::jsnum::js_trim(source);
            if !["user", "project", "local"].contains(&source) {
                return Err(err(ErrorId::SettingSourceInvalid).with("source", source));
            }
        }
    }
    Ok(())
}

fn judge(p: &Parsed, host: &Host) -> Decision {
    match plan(p, host) {
        Ok(plan) => match resume_error(p) {
            Some(e) => Decision::ResumeFail(e, plan),
            None => Decision::Run(plan),
        },
        Err(e) => Decision::Fail(e),
    }
}

fn plan(p: &Parsed, host: &Host) -> Result<Plan, CliError> {
    let session_id = p.str("--session-id");
    let resuming = p.has("--resume") || p.has("--continue");
    if session_id.is_some() && resuming && !p.has("--fork-session") {
        return Err(err(ErrorId::SessionIdNeedsFork));
    }
    if session_id.is_some_and(|s| !is_uuid(s)) {
        return Err(err(ErrorId::SessionIdInvalid));
    }
    for (key, id) in [
        ("--system-prompt-file", ErrorId::SystemPromptFileNotFound),
        (
            "--append-system-prompt-file",
            ErrorId::AppendSystemPromptFileNotFound,
        ),
    ] {
        if let Some(f) = p.str(key).filter(|f| !resolve(&host.cwd, f).exists()) {
            return Err(err(id).with("path", resolve(&host.cwd, f).display().to_string()));
        }
    }
    let missing: Vec<String> = p
        .list("--mcp-config")
        .iter()
        .filter(|c| !is_json_object(c) && !resolve(&host.cwd, c).exists())
        .map(|c| {
            format!(
                "MCP config file not found: {}",
                resolve(&host.cwd, c).display()
            )
        })
        .collect();
    if !missing.is_empty() {
        return Err(err(ErrorId::McpConfigInvalid).with("lines", missing.join("\n")));
    }
    let output = match p.str("--output-format") {
        Some("json") => OutputFormat::Json,
        Some("stream-json") => OutputFormat::StreamJson,
        _ => OutputFormat::Text,
    };
    let stream_input = p.str("--input-format") == Some("stream-json");
    if stream_input && output != OutputFormat::StreamJson {
        return Err(err(ErrorId::InputFormatNeedsStreamJson));
    }
    let partial = p.has("--include-partial-messages");
    if partial && output != OutputFormat::StreamJson {
        return Err(err(ErrorId::PartialNeedsStreamJson));
    }
    if let Some(schema) = p.str("--json-schema").filter(|s| !s.is_empty()) {
        if let Err(detail) = jsc_json::check(schema) {
            return Err(err(ErrorId::JsonSchemaInvalidJson).with("detail", detail));
        }
        if !is_json_object(schema) {
            return Err(err(ErrorId::JsonSchemaNotObject));
        }
    }
    let bypass = p.str("--permission-mode") == Some("bypassPermissions")
        || p.has("--dangerously-skip-permissions")
        || p.has("--allow-dangerously-skip-permissions");
    if bypass && host.is_root && !host.sandbox {
        return Err(err(ErrorId::BypassAsRoot));
    }
    if p.has("--resume-session-at") && !p.has("--resume") {
        return Err(err(ErrorId::ResumeSessionAtNeedsResume));
    }
    Ok(Plan {
        output,
        verbose: p.has("--verbose"),
        partial,
        stream_input,
        prompt_arg: p.operands.first().cloned(),
        session_id: session_id.map(str::to_owned),
        resume: p.str("--resume").filter(|r| is_uuid(r)).map(str::to_owned),
        fork_session: p.has("--fork-session"),
        model: p.str("--model").map(str::to_owned),
        permission_mode: p.str("--permission-mode").map(str::to_owned),
    })
}

/// Step 7. `-r ''` counts as no value, as in the real parser (`value || true`).
fn resume_error(p: &Parsed) -> Option<CliError> {
    match p.get("--resume")? {
        Value::Str(v) if is_uuid(v) => None,
        Value::Str(v) if !v.is_empty() => {
            Some(err(ErrorId::ResumeTitleNotFound).with("value", v.clone()))
        }
        _ => Some(err(ErrorId::ResumeNeedsValue)),
    }
}

impl Plan {
    /// Step 8, once the prompt is known (the argument, plus stdin when stdin had text).
    pub fn check_input(&self, prompt: Option<&str>) -> Result<(), CliError> {
        if !self.stream_input {
            match prompt {
                None | Some("") => return Err(err(ErrorId::NoInput)),
                Some(p) if crate::cli::jsnum::js_trim(p).is_empty() => {
                    return Err(err(ErrorId::WhitespaceInput));
                }
                Some(_) => {}
            }
        }
        if self.output == OutputFormat::StreamJson && !self.verbose {
            return Err(err(ErrorId::StreamJsonNeedsVerbose));
        }
        Ok(())
    }
}

/// `8-4-4-4-12` hex digits, any case; version and variant bits are not checked (probed).
pub fn is_uuid(s: &str) -> bool {
    let groups: Vec<&str> = s.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(g, n)| g.len() == n && g.bytes().all(|b| b.is_ascii_hexdigit()))
}

fn is_json_object(s: &str) -> bool {
    matches!(
        serde_json::from_str::<serde_json::Value>(s),
        Ok(serde_json::Value::Object(_))
    )
}

/// Node's `path.resolve(cwd, p)`: absolute result with `.` and `..` folded, no symlink lookup.
fn resolve(cwd: &Path, p: &str) -> PathBuf {
    let mut out = PathBuf::from("/");
    for c in cwd.join(p).components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(n) => out.push(n),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    out
}
