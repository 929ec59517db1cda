//! Capability discipline: the agent never calls `fs/*` or `terminal/*` when the client did not
//! advertise them (schema ClientCapabilities: "the Agent MUST NOT" call unadvertised methods),
//! and calls them with the schema's shape (an absolute path) when it did; the runner serves
//! `fs/*` in the case's scratch directory. The runner never advertises `terminal`.

use crate::acp::driver::{Agent, Caps};
use crate::acp::{AcpCase, Ctx};
use crate::catalogue::support::show;
use crate::model::{Check, CheckResult};

use super::{conforms, method_of};

/// The cases of this section.
pub const CASES: &[AcpCase] = &[
    acp_case!(
        "capabilities/unadvertised-fs-terminal",
        "schema ClientCapabilities (fs, terminal: the agent MUST NOT call what is not advertised)",
        Must,
        "with fs and terminal not advertised, a turn sends no fs/* or terminal/* request",
        unadvertised
    ),
    acp_case!(
        "capabilities/fs-requests",
        "schema ReadTextFileRequest / WriteTextFileRequest (absolute path, sessionId)",
        Must,
        "with fs advertised, every fs/* request of a turn has the schema's shape and an absolute path",
        fs_requests
    ),
];

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
        return Err(Check::skip("the turn made no fs/* request"));
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
