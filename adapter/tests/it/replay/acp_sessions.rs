//! The ACP golden sessions (`recordings/acp/`): the adapter as `--provider cursor` against
//! fake-cursor-agent's scenarios, one session each, the scenario chosen by
//! `FAKE_CURSOR_SCENARIO` (which the adapter passes on to its agent, ACP-9). `BLESS=1` runs these
//! scripts ([`super::maker`]); the replay plays the recorded client and agent sides instead
//! ([`super::player`], [`super::acp`]).
//!
//! Like the claude sessions, every run is in `/tmp` and runs never overlap.

use serde_json::{Value, json};

use super::acp::RealAgent;
use super::sessions::{CWD, Definition, INVOCATION, Native, Step};

/// `cursor.run` with this prompt and the given permission mode (ACP-4; `None`: the default,
/// `dontAsk`).
fn run_args(prompt: &str, permission_mode: Option<&str>) -> Value {
    let mut args = json!({"prompt": prompt, "cwd": CWD, "timeout_s": 30});
    if let Some(m) = permission_mode {
        args["permission_mode"] = json!(m);
    }
    args
}

fn tool(name: &'static str, args: Value) -> Step {
    Step::Tool {
        name,
        args,
        meta: None,
    }
}

/// `cursor.run` (with progress, bound to the work invocation), then the settled run's result,
/// its events page and release.
fn blocking(args: Value) -> Vec<Step> {
    vec![
        Step::Init,
        Step::Tool {
            name: "cursor.run",
            args,
            meta: Some(json!({
                "progressToken": "progress-1",
                "io.github.computer-mcp/work-invocation": INVOCATION,
            })),
        },
        tool("cursor.run.result", json!({"run_id": "$RUN"})),
        tool("cursor.run.events", json!({"run_id": "$RUN"})),
        tool("cursor.run.release", json!({"run_id": "$RUN"})),
    ]
}

/// The default turn, with the catalogue, the list and the work snapshot too.
fn full(args: Value) -> Vec<Step> {
    let mut s = blocking(args);
    s.insert(
        1,
        Step::Request {
            method: "tools/list",
            params: None,
        },
    );
    s.insert(5, tool("cursor.run.list", json!({})));
    s.insert(
        6,
        Step::Request {
            method: "resources/read",
            params: Some(json!({"uri": "computer-mcp://runtime/work/v1"})),
        },
    );
    s
}

/// `cursor.run.start`, `cursor.run.cancel` once `lines` agent lines were exchanged, then the
/// settled reads and a second cancel.
fn cancelled(args: Value, lines: usize) -> Vec<Step> {
    vec![
        Step::Init,
        Step::Tool {
            name: "cursor.run.start",
            args,
            meta: Some(json!({"io.github.computer-mcp/work-invocation": INVOCATION})),
        },
        Step::WaitAgent(lines),
        tool("cursor.run.cancel", json!({"run_id": "$RUN"})),
        Step::WaitExit(1),
        tool("cursor.run.result", json!({"run_id": "$RUN"})),
        tool("cursor.run.events", json!({"run_id": "$RUN"})),
        tool("cursor.run.cancel", json!({"run_id": "$RUN"})),
        tool("cursor.run.release", json!({"run_id": "$RUN"})),
    ]
}

macro_rules! acp {
    ($name:literal, $scenario:literal, $about:literal) => {
        acp!($name, $scenario, $about, || blocking(run_args(
            "hello", None
        )))
    };
    ($name:literal, $scenario:literal, $about:literal, $steps:expr) => {
        Definition {
            name: $name,
            about: $about,
            native: Native::Cursor {
                scenario: $scenario,
            },
            env: &[],
            adapter_args: &[],
            steps: $steps,
        }
    };
}

/// A golden of a real ACP agent behind the Cursor provider.
fn real(
    name: &'static str,
    agent: RealAgent,
    about: &'static str,
    steps: fn() -> Vec<Step>,
) -> Definition {
    Definition {
        name,
        about,
        native: Native::RealAcp { agent },
        env: &[],
        adapter_args: &[],
        steps,
    }
}

/// Every ACP golden session.
#[must_use]
pub fn all() -> Vec<Definition> {
    vec![
        real(
            "acp/real-ts-example-agent",
            RealAgent::TsExample,
            "The TypeScript SDK's example agent (a real agent nobody here wrote) as the Cursor \
             provider under acceptEdits: its chunks, tool calls and its edit's permission request, \
             answered allow_once (ACP-4); end_turn succeeds and the group is killed after the \
             turn (ACP-7).",
            || blocking(run_args("Hello", Some("acceptEdits"))),
        ),
        Definition {
            name: "acp/real-claude-agent-acp",
            about: "claude-agent-acp (Claude Code behind the Claude Agent SDK, a real agent nobody \
                    here wrote) as the Cursor provider, its model turns against the Messages API \
                    stand-in: the model's Bash call asks permission under dontAsk and is answered \
                    reject_once (ACP-4), so the command never runs; the model's closing text is \
                    the final, end_turn succeeds and the group is killed after the turn (ACP-6, \
                    ACP-7). Claude Code's session/new takes seconds, hence the step bound.",
            native: Native::RealAcp {
                agent: RealAgent::ClaudeAgent,
            },
            env: &[],
            adapter_args: &["--acp-step-timeout-s", "90"],
            steps: || blocking(run_args("Run the command the tool offers", None)),
        },
        real(
            "acp/real-python-echo-agent",
            RealAgent::PythonEcho,
            "The Python SDK's echo agent (a real agent nobody here wrote) as the Cursor provider: \
             the prompt echoed as one agent_message_chunk with _meta, end_turn; the final text is \
             the echo (ACP-6).",
            || blocking(run_args("Hello echo", None)),
        ),
        acp!(
            "acp/default",
            "default",
            "A short successful Cursor turn over ACP: handshake (ACP-2), chunks, a \
             cursor/update_todos request answered {} (ACP-5), end_turn: succeeded with the final \
             {stopReason, sessionId, text} (ACP-6), the group killed after the turn (ACP-7); \
             tools/list pins the cursor catalogue, list and work snapshot show kind cursor.run.",
            || full(run_args("hello", None))
        ),
        acp!(
            "acp/tools",
            "tools",
            "The spike's tool turn (read, grep, shell, edits, todos, session_info_update) with no \
             permission request: every session/update is one event (ACP-3); end_turn."
        ),
        acp!(
            "acp/permission-shell-dont-ask",
            "permission-shell",
            "A shell call asks permission under dontAsk (the default): the adapter selects the \
             offered reject_once option (ACP-4), the tool is reported completed with no output; \
             end_turn succeeds."
        ),
        acp!(
            "acp/plan-mode",
            "plan-mode",
            "permission_mode plan: session/set_mode {modeId: plan} before the prompt, the agent's \
             edit is blocked in plan mode and the shell permission rejected (ACP-4).",
            || blocking(run_args("hello", Some("plan")))
        ),
        acp!(
            "acp/accept-edits",
            "plan-mode",
            "permission_mode acceptEdits: no set_mode; the edit runs (it asks nothing) and the \
             shell call, not of kind edit, is rejected with reject_once (ACP-4).",
            || blocking(run_args("hello", Some("acceptEdits")))
        ),
        acp!(
            "acp/cursor-extensions",
            "cursor-extensions",
            "All five cursor/* requests: update_todos, task and generate_image answered {}, \
             ask_question and create_plan answered -32601 (ACP-5); the turn goes on to end_turn."
        ),
        acp!(
            "acp/ask-question-permission",
            "ask-question-permission",
            "ask_question arriving as session/request_permission with an __ask_question_skip__ \
             option: answered with that skip option (ACP-5); end_turn."
        ),
        acp!(
            "acp/refusal",
            "refusal",
            "stopReason refusal: native_error with the stop reason kept (ACP-6)."
        ),
        acp!(
            "acp/max-tokens",
            "max-tokens",
            "stopReason max_tokens: native_error with the stop reason kept (ACP-6)."
        ),
        acp!(
            "acp/prompt-error",
            "prompt-error",
            "session/prompt answered with a JSON-RPC error (-32603, data): native_error with the \
             error kept (ACP-6)."
        ),
        acp!(
            "acp/crash-midturn",
            "crash-midturn",
            "The agent writes a stderr line and exits 1 mid-turn without answering the prompt: \
             missing_final, the stderr tail kept."
        ),
        acp!(
            "acp/cancel-midturn",
            "cancel-midturn",
            "cursor.run.cancel while the agent streams: session/cancel, the prompt answers \
             cancelled, the group is killed; the run is cancelled with cleanup confirmed \
             (ACP-7, RUN-6); a second cancel is already_settled.",
            || cancelled(run_args("hello", None), 8)
        ),
        acp!(
            "acp/auth-required",
            "auth-required",
            "No credentials: session/new answers -32000 Authentication required; the run fails \
             native_error saying the agent is not logged in, nothing retried, authenticate never \
             sent (ACP-2)."
        ),
        acp!(
            "acp/unknown-update",
            "unknown-update",
            "Non-standard and unknown sessionUpdate variants are kept as events and never fail \
             the run (ACP-3); end_turn."
        ),
        acp!(
            "acp/toolcallid-newline",
            "toolcallid-newline",
            "A toolCallId holding a newline is kept as it is (ACP-1, ACP-3); end_turn."
        ),
        acp!(
            "acp/garbage-lines",
            "garbage-lines",
            "A non-JSON line, a cut JSON-RPC line, invalid UTF-8, a blank line and a 2 MiB line \
             between valid chunks: counted, kept as events, never a crash (ACP-1, BND-1); \
             end_turn succeeds."
        ),
        acp!(
            "acp/hang-session-new",
            "hang-session-new",
            "session/new is never answered: the 10 s handshake bound fires (ACP-2) and the run \
             fails native_error saying so."
        ),
    ]
}
