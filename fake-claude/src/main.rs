//! fake-claude: a scriptable stand-in for the `claude` 2.1.328 binary. It reads argv like the real
//! CLI (same flags, same rejections, same texts), then plays a scenario (data in `scenarios/`) or a
//! recording, producing on demand every native behaviour and failure the adapter must handle.
//! See README.md for the scenario format, selection rules and environment variables.

use std::io::Write as _;
use std::process::ExitCode;

use fake_claude::interp::Interp;
use fake_claude::interp::output::Out;
use fake_claude::interp::placeholders::Vars;
use fake_claude::validate::{Decision, Host, OutputFormat, Plan};
use fake_claude::{errors, input, invocation, replay, scenario, validate, version};

/// Exit code for the fake's own failures (bad scenario, unknown name): never a code the real CLI
/// uses for its errors (1), so a test cannot mistake one for the other.
const FAKE_ERROR: i32 = 2;
/// The model the real CLI reports when none is chosen (captures in reference/streams).
const DEFAULT_MODEL: &str = "claude-opus-5-5";
/// `--model` aliases as the real 2.1.328 resolves them in print mode (probed: the `model` of
/// `init` and the `modelUsage` key; case and a `[1m]` suffix do not matter; `opusplan` is sonnet
/// in plan mode too). Any other value is used as given.
const MODEL_ALIASES: &[(&str, &str)] = &[
    ("opus", "claude-opus-5-5"),
    ("default", "claude-opus-5-5"),
    ("best", "claude-opus-5-5"),
    ("sonnet", "claude-sonnet-5-5"),
    ("opusplan", "claude-sonnet-5-5"),
    ("haiku", "claude-haiku-5-5"),
    ("fable", "claude-fable-5-2"),
];
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
        Decision::Help { print_mode } => {
            let _ = std::io::stdout().write_all(help_text(print_mode).as_bytes());
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
            let mut turns = Turns::new(&plan, record);
            let loaded = scenario::select::load(RESUME_INVALID, "an invalid --resume");
            turns.play("", vars, loaded).unwrap_or(turns.code)
        }
        Decision::Run(plan) => run_plan(&plan, record),
    }
}

/// Prints a CLI error on stderr and returns its exit code.
fn cli_error(e: &errors::CliError) -> i32 {
    let _ = writeln!(std::io::stderr(), "{}", e.render());
    i32::from(e.exit_code())
}

fn run_plan(plan: &Plan, record: &serde_json::Value) -> i32 {
    if plan.stream_input {
        return run_stream_input(plan, record);
    }
    let prompt = input::text_prompt(plan.prompt_arg.as_deref());
    if let Err(e) = plan.check_input(prompt.as_deref()) {
        return cli_error(&e);
    }
    let Some(prompt) = prompt else {
        return 0;
    };
    if let Some(code) = replay(plan) {
        return code;
    }
    let mut turns = Turns::new(plan, record);
    turns.turn(&prompt).unwrap_or(turns.code)
}

/// `--input-format stream-json`: one turn per user message, each answered as its line arrives;
/// the exit status follows the last final, a line that is not JSON ends the run with the real
/// parse error after the turns before it. Without a user message the real CLI ends quietly.
fn run_stream_input(plan: &Plan, record: &serde_json::Value) -> i32 {
    let mut input = input::StreamTurns::new();
    if let Err(e) = plan.check_input(None) {
        // The real CLI reads stdin to its end before this check (probed with stdin held open).
        loop {
            match input.next_turn() {
                Ok(Some(_)) => {}
                Ok(None) => return cli_error(&e),
                Err(parse) => return cli_error(&parse),
            }
        }
    }
    let mut turns = Turns::new(plan, record);
    loop {
        match input.next_turn() {
            Ok(Some(prompt)) => {
                if turns.played == 0
                    && let Some(code) = replay(plan)
                {
                    return code;
                }
                if let Some(code) = turns.turn(&prompt) {
                    return code;
                }
            }
            Ok(None) => return turns.code,
            Err(e) => return cli_error(&e),
        }
    }
}

/// `FAKE_CLAUDE_REPLAY`: replays a recording instead of any scenario; `None` when unset.
fn replay(plan: &Plan) -> Option<i32> {
    let path = std::env::var_os(replay::ENV_REPLAY).filter(|p| !p.is_empty())?;
    let mut out = Out::new(plan);
    Some(match replay::replay(&path.to_string_lossy(), &mut out) {
        Ok(code) => code,
        Err(e) => {
            fake_error(&e);
            FAKE_ERROR
        }
    })
}

/// The turns of one invocation, played by one interpreter: the output state, the session id
/// and the exit status (from the last final) carry over from turn to turn.
struct Turns<'a> {
    plan: &'a Plan,
    record: &'a serde_json::Value,
    interp: Option<Interp<'a>>,
    /// The exit status so far: that of the last turn that ran to its end.
    code: i32,
    played: usize,
}

impl<'a> Turns<'a> {
    fn new(plan: &'a Plan, record: &'a serde_json::Value) -> Self {
        Self {
            plan,
            record,
            interp: None,
            code: 0,
            played: 0,
        }
    }

    /// Plays the scenario `prompt` selects; `Some(code)` when the process must end now.
    fn turn(&mut self, prompt: &str) -> Option<i32> {
        let vars = vars_for(self.plan, prompt);
        self.play(prompt, vars, scenario::select::select(Some(prompt)))
    }

    /// Plays `loaded`; `vars` are this invocation's placeholders (used by the first turn: later
    /// turns keep the session and only take their prompt).
    fn play(
        &mut self,
        prompt: &str,
        vars: Vars,
        loaded: Result<scenario::Scenario, scenario::ScenarioError>,
    ) -> Option<i32> {
        let scenario = match loaded {
            Ok(s) => s,
            Err(e) => {
                fake_error(&e.to_string());
                return Some(FAKE_ERROR);
            }
        };
        if std::env::var(ENV_DRY_RUN).is_ok_and(|v| v == "1") {
            fake_error(&format!(
                "dry run: scenario {} ({} steps)",
                scenario.name,
                scenario.steps.len()
            ));
            return Some(0);
        }
        let (plan, record) = (self.plan, self.record);
        let interp = self
            .interp
            .get_or_insert_with(|| Interp::new(Out::new(plan), vars, record));
        interp.vars.set("prompt", prompt);
        self.played += 1;
        match interp.run(&scenario) {
            Ok(code) => {
                self.code = code;
                None
            }
            Err(e) => {
                interp.out.finish();
                fake_error(&format!("scenario {}: {e}", scenario.name));
                Some(FAKE_ERROR)
            }
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
    v.set("model", model_name(plan.model.as_deref()));
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

/// `--help` as the real CLI prints it: in print mode without the `Commands:` section and with
/// `Usage: claude [options] [prompt]` (probed, byte for byte).
fn help_text(print_mode: bool) -> String {
    if !print_mode {
        return HELP.to_owned();
    }
    let options = HELP.split("\n\nCommands:\n").next().unwrap_or(HELP);
    let body = options
        .strip_prefix("Usage: claude [options] [command] [prompt]")
        .unwrap_or(options);
    format!("Usage: claude [options] [prompt]{body}\n")
}

/// The model the real CLI reports for `--model` (an alias resolved, else as given).
fn model_name(arg: Option<&str>) -> String {
    let Some(given) = arg else {
        return DEFAULT_MODEL.to_owned();
    };
    let key = given.trim().to_ascii_lowercase();
    let key = key.strip_suffix("[1m]").unwrap_or(&key);
    MODEL_ALIASES
        .iter()
        .find(|(alias, _)| *alias == key)
        .map_or_else(|| given.to_owned(), |(_, full)| (*full).to_owned())
}
