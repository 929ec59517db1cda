//! fake-cursor-agent: a scriptable stand-in for `cursor-agent` 2026.10.01-e373342 in ACP mode
//! (`cursor-agent [--model M] acp`, FAKE-ACP). It reads argv like the real CLI, then speaks ACP
//! over newline-delimited JSON-RPC on stdio, playing scenarios (data in `scenarios/`) or a
//! recording, so every measured behaviour and failure of the real agent can be produced on
//! demand without an account. See README.md for scenarios, selection and environment variables.

mod agent;
mod argv;
mod input;
mod log;
mod out;
mod process;
mod profile;
mod replay;
mod rpc;
mod scenario;
mod version;

use std::process::ExitCode;

use argv::Command;

/// Exit status for the fake's own failures (unknown scenario, unimplemented mode).
const FAKE_ERROR: i32 = 2;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let log = log::Log::from_env();
    input::guard_sigterm(&log);
    log.start(&args);
    let code = run(&args, log);
    ExitCode::from(u8::try_from(code.rem_euclid(256)).unwrap_or(1))
}

fn run(args: &[String], log: log::Log) -> i32 {
    let opts = match argv::parse(args) {
        Ok(Command::Version) => {
            println!("{}", version::pinned_line());
            return 0;
        }
        Ok(Command::Acp(opts)) => opts,
        Ok(Command::Unimplemented(why)) => {
            eprintln!("fake-cursor-agent: {why}");
            return FAKE_ERROR;
        }
        Err(e) => {
            eprintln!("{e}");
            return 1;
        }
    };
    if let Some(path) = std::env::var_os(replay::ENV_REPLAY).filter(|p| !p.is_empty()) {
        replay::hold_sigterm(&path.to_string_lossy());
        let rx = input::spawn(log);
        return replay::run(&path.to_string_lossy(), &rx);
    }
    let base = match scenario::for_process() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("fake-cursor-agent: {e}");
            return FAKE_ERROR;
        }
    };
    let out = out::Out::logged(log.clone());
    let rx = input::spawn(log);
    agent::Agent::new(rx, out, profile::Profile::load(), opts, base).run()
}
