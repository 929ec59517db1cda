//! Capability discipline: the agent never calls `fs/*` or `terminal/*` when the client did not
//! advertise them (schema ClientCapabilities: "the Agent MUST NOT" call unadvertised methods),
//! and calls them with the schema's shape (an absolute path) when it did; the runner serves
//! `fs/*` and `terminal/*` ([`crate::acp::terminal`]) in the case's scratch directory, each only
//! in the case that grades its use.

use crate::acp::ctx::Ctx;
use crate::acp::driver::{Agent, Caps};
use crate::acp::gate::AcpCase;
use crate::core::case::case;
use crate::core::checks::show;
use crate::core::model::{Check, CheckResult, Gap, Level};

use crate::acp::schema::{conforms, method_of};

/// The cases of this section.
pub const CASES: &[AcpCase] = &[
    case!(
        "capabilities/unadvertised-fs-terminal",
        "schema ClientCapabilities (fs, terminal: the agent MUST NOT call what is not advertised)",
        Level::Must,
        Server,
        "with fs and terminal not advertised, a turn sends no fs/* or terminal/* request",
        unadvertised[]
    ),
    case!(
        "capabilities/fs-requests",
        "schema ReadTextFileRequest / WriteTextFileRequest (absolute path, sessionId)",
        Level::Must,
        Server,
        "with fs advertised, every fs/* request of a turn has the schema's shape and an absolute path",
        fs_requests[]
    ),
    case!(
        "capabilities/terminal-requests",
        "docs protocol/terminals (the Agent MUST release terminals it no longer needs; a released id is no longer valid) and schema CreateTerminalRequest / TerminalOutputRequest / WaitForTerminalExitRequest / KillTerminalRequest / ReleaseTerminalRequest",
        Level::Must,
        Server,
        "with terminal advertised, every terminal/* request of a turn has the schema's shape and the session's id, names only terminal ids the client issued and had not released, and every terminal created is released by the end of the turn",
        terminal_requests[]
    ),
];

/// The schema definition of a `terminal/*` request's params.
fn terminal_def(method: &str) -> Option<&'static str> {
    Some(match method {
        "terminal/create" => "CreateTerminalRequest",
        "terminal/output" => "TerminalOutputRequest",
        "terminal/wait_for_exit" => "WaitForTerminalExitRequest",
        "terminal/kill" => "KillTerminalRequest",
        "terminal/release" => "ReleaseTerminalRequest",
        _ => return None,
    })
}

async fn terminal_requests(ctx: Ctx) -> CheckResult {
    let (mut agent, session) = ctx.session(Caps::TERMINAL).await?;
    // The handshake is over: a wait for a command's exit ends with the case, so nothing the
    // agent started outlives it.
    agent
        .state
        .bound_terminal_waits(std::time::Instant::now() + agent.client.remaining());
    let turn = agent
        .prompt(
            &session,
            Agent::text("Hello from acp-conformance: run `ls` in a terminal."),
        )
        .await;
    // What the agent left running dies now, whatever the verdict (containment).
    let audit = agent.state.terminal_audit();
    agent.state.end_terminals();
    turn?;
    let requests: Vec<_> = agent
        .state
        .requests()
        .into_iter()
        .filter(|r| method_of(r).is_some_and(|m| m.starts_with("terminal/")))
        .collect();
    if requests.is_empty() {
        return Err(Check::ungraded(
            Gap::NotExercised,
            "the turn made no terminal/* request",
        ));
    }
    for r in &requests {
        let params = r.get("params").cloned().unwrap_or_default();
        let Some(def) = method_of(r).and_then(terminal_def) else {
            return Err(Check::fail(
                "terminal/create, output, wait_for_exit, kill or release",
                show(r),
            ));
        };
        conforms(def, &params, &format!("{def} params"))?;
        if params.get("sessionId").and_then(serde_json::Value::as_str) != Some(&session) {
            return Err(Check::fail(
                format!("the session's id {session:?} as sessionId"),
                show(r),
            ));
        }
    }
    if !audit.misuse.is_empty() {
        return Err(Check::fail(
            "terminal ids the client issued and the agent had not released",
            audit.misuse.join("; "),
        ));
    }
    let unreleased: Vec<&String> = audit
        .issued
        .iter()
        .filter(|id| !audit.released.contains(id))
        .collect();
    if !unreleased.is_empty() {
        return Err(Check::fail(
            "every terminal the agent created released (terminal/release) by the end of the turn",
            format!(
                "never released {}",
                unreleased
                    .iter()
                    .map(|i| format!("{i:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    Ok(Check::Pass)
}

async fn unadvertised(ctx: Ctx) -> CheckResult {
    let (mut agent, session) = ctx.session(Caps::NONE).await?;
    agent
        .prompt(
            &session,
            Agent::text("Hello from acp-conformance: read README.txt."),
        )
        .await?;
    let called: Vec<String> = agent
        .state
        .requests()
        .iter()
        .filter_map(|r| method_of(r))
        .filter(|m| m.starts_with("fs/") || m.starts_with("terminal/"))
        .map(str::to_owned)
        .collect();
    if called.is_empty() {
        Ok(Check::Pass)
    } else {
        Err(Check::fail(
            "no fs/* or terminal/* request: the client advertised neither",
            format!("sent {}", called.join(", ")),
        ))
    }
}

async fn fs_requests(ctx: Ctx) -> CheckResult {
    let (mut agent, session) = ctx.session(Caps::FS).await?;
    agent
        .prompt(
            &session,
            Agent::text("Hello from acp-conformance: read README.txt."),
        )
        .await?;
    let fs: Vec<_> = agent
        .state
        .requests()
        .into_iter()
        .filter(|r| method_of(r).is_some_and(|m| m.starts_with("fs/")))
        .collect();
    if fs.is_empty() {
        return Err(Check::ungraded(
            Gap::NotExercised,
            "the turn made no fs/* request",
        ));
    }
    for r in fs {
        let params = r.get("params").cloned().unwrap_or_default();
        let def = match method_of(&r) {
            Some("fs/read_text_file") => "ReadTextFileRequest",
            Some("fs/write_text_file") => "WriteTextFileRequest",
            _ => {
                return Err(Check::fail(
                    "fs/read_text_file or fs/write_text_file",
                    show(&r),
                ));
            }
        };
        conforms(def, &params, &format!("{def} params"))?;
        let absolute = params
            .get("path")
            .and_then(serde_json::Value::as_str)
            .is_some_and(|p| p.starts_with('/'));
        if !absolute {
            return Err(Check::fail("an absolute path", show(&params)));
        }
    }
    Ok(Check::Pass)
}
