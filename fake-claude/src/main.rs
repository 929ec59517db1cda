//! fake-claude: a scriptable stand-in for the `claude` 2.1.328 binary. It reads argv like the real
//! CLI (same flags, same rejections, same texts), then plays a scenario (data in `scenarios/`) or a
//! recording, producing on demand every native behaviour and failure the adapter must handle.
//! See README.md for the scenario format, selection rules and environment variables.

mod cli;
mod errors;
mod input;
mod interp;
mod invocation;
mod replay;
mod scenario;
mod validate;
mod version;

use std::io::Write as _;
use std::process::ExitCode;

use interp::Interp;
use interp::output::Out;
use interp::placeholders::Vars;
use validate::{Decision, Host, OutputFormat, Plan};

/// Exit code for the fake's own failures (bad scenario, unknown name): never a code the real CLI
/// uses for its errors (1), so a test cannot mistake one for the other.
const FAKE_ERROR: i32 = 2;
/// The model the real CLI reports when none is chosen (captures in reference/streams).
const DEFAULT_MODEL: &str = "claude-opus-5-5";
/// Built-in scenario used for `--resume` values the fake cannot resolve.
const RESUME_INVALID: &str = "resume-invalid";
const HELP: &str = include_str!("../assets/help.txt");
/// Env variable: `1` selects and loads the scenario, names it on stderr and exits 0 without
/// running it (lets a runner check which scenario a prompt or env would pick).
const ENV_DRY_RUN: &str = "FAKE_CLAUDE_DRY_RUN";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let record = invocation::record(&args);
    if let Some(path) = std::env::var_os(invocation::ENV_LOG).filter(|p| !p.is_empty())
        && let Err(e) = invocation::append_log(&path.to_string_lossy(), &record)
    {
        fake_error(&format!("cannot append to {}: {e}", invocation::ENV_LOG));
    }
    let code = run(&args, &record);
    let _ = std::io::stdout().flush();
    ExitCode::from(u8::try_from(code.rem_euclid(256)).unwrap_or(1))
}

fn fake_error(msg: &str) {
    let _ = writeln!(std::io::stderr(), "fake-claude: {msg}");
}

fn run(args: &[String], record: &serde_json::Value) -> i32 {
    let host = Host {
        cwd: std::env::current_dir().unwrap_or_else(|_| "/".into()),
        is_root: invocation::real_uid() == 0,
        sandbox: std::env::var("IS_SANDBOX").is_ok_and(|v| v == "1"),
    };
    let (warnings, decision) = validate::validate(args, &host);
    for w in warnings {
        let _ = writeln!(std::io::stderr(), "{w}");
    }
    match decision {
        Decision::Version => version::answer(),
        Decision::Help => {
            let _ = std::io::stdout().write_all(HELP.as_bytes());
            0
        }
        Decision::Fail(e) => {
            let _ = writeln!(std::io::stderr(), "{}", e.render());
            i32::from(e.exit_code())
        }
        Decision::NotPrint => {
            fake_error("only print mode (-p/--print) is implemented; interactive mode is not");
            FAKE_ERROR
        }
        Decision::ResumeFail(e, plan) => {
            let mut vars = vars_for(&plan, "");
            vars.set("error", e.render());
            play(
                scenario::select::load(RESUME_INVALID, "an invalid --resume"),
                &plan,
                vars,
                record,
            )
        }
        Decision::Run(plan) => run_plan(&plan, record),
    }
}

fn run_plan(plan: &Plan, record: &serde_json::Value) -> i32 {
    let prompt = if plan.stream_input {
        match input::stream_prompt() {
            Ok(p) => p,
            Err(e) => {
                let _ = writeln!(std::io::stderr(), "{}", e.render());
                return i32::from(e.exit_code());
            }
        }
    } else {
        input::text_prompt(plan.prompt_arg.as_deref())
    };
    if let Err(e) = plan.check_input(prompt.as_deref()) {
        let _ = writeln!(std::io::stderr(), "{}", e.render());
        return i32::from(e.exit_code());
    }
    let Some(prompt) = prompt else {
        // stream-json input without a user message: the real CLI ends quietly.
        return 0;
    };
    let vars = vars_for(plan, &prompt);
    if let Some(path) = std::env::var_os(replay::ENV_REPLAY).filter(|p| !p.is_empty()) {
        let mut out = Out::new(plan);
        return match replay::replay(&path.to_string_lossy(), &mut out) {
            Ok(code) => code,
            Err(e) => {
                fake_error(&e);
                FAKE_ERROR
            }
        };
    }
    play(scenario::select::select(Some(&prompt)), plan, vars, record)
}

fn play(
    loaded: Result<scenario::Scenario, scenario::ScenarioError>,
    plan: &Plan,
    vars: Vars,
    record: &serde_json::Value,
) -> i32 {
    let scenario = match loaded {
        Ok(s) => s,
        Err(e) => {
            fake_error(&e.to_string());
            return FAKE_ERROR;
        }
    };
    if std::env::var(ENV_DRY_RUN).is_ok_and(|v| v == "1") {
        fake_error(&format!(
            "dry run: scenario {} ({} steps)",
            scenario.name,
            scenario.steps.len()
        ));
        return 0;
    }
    let mut interp = Interp::new(Out::new(plan), vars, record);
    match interp.run(&scenario) {
        Ok(code) => code,
        Err(e) => {
            interp.out.finish();
            fake_error(&format!("scenario {}: {e}", scenario.name));
            FAKE_ERROR
        }
    }
}

/// Placeholder values for this invocation (README.md lists them).
fn vars_for(plan: &Plan, prompt: &str) -> Vars {
    let cwd = std::env::current_dir()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    // The session id the real CLI would report: --session-id, else the resumed one (unless
    // forking), else a fresh v4 UUID per invocation.
    let resumed = plan.resume.clone().filter(|_| !plan.fork_session);
    let session_id = plan
        .session_id
        .clone()
        .or(resumed)
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    let permission_mode = match plan.permission_mode.as_deref() {
        None | Some("default" | "manual") => "default",
        Some(m) => m,
    };
    let slug: String = cwd
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let mut v = Vars::default();
    v.set("session_id", session_id);
    v.set("cwd", cwd);
    v.set("cwd_slug", slug);
    v.set("home", std::env::var("HOME").unwrap_or_default());
    v.set(
        "model",
        plan.model
            .clone()
            .unwrap_or_else(|| DEFAULT_MODEL.to_owned()),
    );
    v.set("prompt", prompt);
    v.set("permission_mode", permission_mode);
    v.set("resume", plan.resume.clone().unwrap_or_default());
    v.set("version", version::number());
    v.set("pid", std::process::id().to_string());
    v.set(
        "output_format",
        match plan.output {
            OutputFormat::Text => "text",
            OutputFormat::Json => "json",
            OutputFormat::StreamJson => "stream-json",
        },
    );
    v
}
