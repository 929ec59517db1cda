//! The catalogue of golden sessions: for each recording in `recordings/`, what it shows, which
//! native side made it, and the client script. `BLESS=1` runs these scripts ([`super::maker`]);
//! the replay never does (it replays the recorded client side instead).
//!
//! Every session runs its native runs one after the other (the replay relies on it) in `/tmp`
//! (a directory every machine has, so the recorded `cwd` is valid when replayed).

use serde_json::{Value, json};

/// The work invocation the sessions bind their runs to (META-WORK-4), so the work resource can
/// be read (META-WORK-5).
pub const INVOCATION: &str = "0d7c3f6e-5b1a-4e2f-9c8d-7a6b5c4d3e2f";
/// The working directory of every recorded run.
pub const CWD: &str = "/tmp";

/// Which native CLI a session runs.
#[derive(Debug, Clone, Copy)]
pub enum Native {
    /// fake-claude with this built-in scenario (`FAKE_CLAUDE_SCENARIO`).
    Fake { scenario: &'static str },
    /// The real claude 2.1.328: against the stand-in (`account: true`) or with no base URL and
    /// no key (`false`, the "Not logged in" fast failure).
    Real { account: bool },
    /// fake-cursor-agent with this built-in scenario, as the Cursor provider
    /// (`--provider cursor`, ACP; `recordings/acp/`, [`super::acp_sessions`]).
    Cursor { scenario: &'static str },
    /// A real ACP agent nobody here wrote (pinned by testkit), as the Cursor provider behind a
    /// version shim ([`super::acp::real_agent_shim`]); its agent side is replayed by
    /// fake-cursor-agent like the fake's.
    RealAcp { agent: super::acp::RealAgent },
}

/// One step of a session script.
#[derive(Debug, Clone)]
pub enum Step {
    /// `initialize` (2025-06-18) and `notifications/initialized`.
    Init,
    /// `tools/call`, waiting for the answer. `$RUN` / `$CURSOR` are filled in.
    Tool {
        name: &'static str,
        args: Value,
        meta: Option<Value>,
    },
    /// `tools/call` with this id, not waiting for the answer (a request that overlaps others).
    Send {
        id: u64,
        name: &'static str,
        args: Value,
        meta: Option<Value>,
    },
    /// A notification.
    Notify { method: &'static str, params: Value },
    /// Any other request, waiting for the answer.
    Request {
        method: &'static str,
        params: Option<Value>,
    },
    /// Wait until the adapter has read this many native rows.
    WaitNative(usize),
    /// Wait until a progress notification has arrived (so the recording shows one before what
    /// follows, and the replay, which paces on it, never races the adapter's count of events).
    WaitProgress,
    /// Wait until the adapter has exchanged this many lines with its ACP agent (`c2a` + `a2c`).
    WaitAgent(usize),
    /// Wait until this many native runs have exited (and the settle grace).
    WaitExit(usize),
}

/// A golden session.
#[derive(Debug, Clone, Copy)]
pub struct Definition {
    /// File stem in `recordings/`.
    pub name: &'static str,
    /// What it shows.
    pub about: &'static str,
    /// Its native side.
    pub native: Native,
    /// Extra environment of the adapter (passed on to the native CLI, NAT-7).
    pub env: &'static [(&'static str, &'static str)],
    /// Extra adapter arguments.
    pub adapter_args: &'static [&'static str],
    /// The client script.
    pub steps: fn() -> Vec<Step>,
}

fn meta_with_progress() -> Value {
    json!({
        "progressToken": "progress-1",
        "io.github.computer-mcp/work-invocation": INVOCATION,
    })
}

fn tool(name: &'static str, args: Value) -> Step {
    Step::Tool {
        name,
        args,
        meta: None,
    }
}

fn run_args(prompt: &str, timeout_s: u64) -> Value {
    json!({"prompt": prompt, "cwd": CWD, "timeout_s": timeout_s})
}

/// `claude.run` (with progress, bound), then every read of the settled run, the work snapshot,
/// and release.
fn blocking(args: Value) -> Vec<Step> {
    vec![
        Step::Init,
        Step::Tool {
            name: "claude.run",
            args,
            meta: Some(meta_with_progress()),
        },
        tool("claude.run.result", json!({"run_id": "$RUN"})),
        tool("claude.run.events", json!({"run_id": "$RUN"})),
        tool("claude.run.list", json!({})),
        Step::Request {
            method: "resources/read",
            params: Some(json!({"uri": "computer-mcp://runtime/work/v1"})),
        },
        tool("claude.run.release", json!({"run_id": "$RUN"})),
        tool("claude.run.list", json!({})),
    ]
}

/// `claude.run.start`, cancel once `rows` native rows were read, then the settled reads.
fn cancelled(args: Value, rows: usize) -> Vec<Step> {
    vec![
        Step::Init,
        Step::Tool {
            name: "claude.run.start",
            args,
            meta: Some(json!({"io.github.computer-mcp/work-invocation": INVOCATION})),
        },
        Step::WaitNative(rows),
        tool("claude.run.cancel", json!({"run_id": "$RUN"})),
        Step::WaitExit(1),
        tool("claude.run.result", json!({"run_id": "$RUN"})),
        tool("claude.run.events", json!({"run_id": "$RUN"})),
        tool("claude.run.cancel", json!({"run_id": "$RUN"})),
        tool("claude.run.release", json!({"run_id": "$RUN"})),
    ]
}

/// `claude.run` (with progress) sent without waiting; once `rows` native rows were read the
/// client cancels that request with `notifications/cancelled` (T7), then reads the run.
fn cancelled_request(args: Value, rows: usize) -> Vec<Step> {
    vec![
        Step::Init,
        Step::Send {
            id: 100,
            name: "claude.run",
            args,
            meta: Some(meta_with_progress()),
        },
        Step::WaitNative(rows),
        Step::WaitProgress,
        Step::Notify {
            method: "notifications/cancelled",
            params: json!({"requestId": 100, "reason": "the user pressed stop"}),
        },
        Step::WaitExit(1),
        tool("claude.run.list", json!({})),
        Step::Request {
            method: "resources/read",
            params: Some(json!({"uri": "computer-mcp://runtime/work/v1"})),
        },
    ]
}

macro_rules! fake {
    ($name:literal, $scenario:literal, $about:literal) => {
        Definition {
            name: $name,
            about: $about,
            native: Native::Fake {
                scenario: $scenario,
            },
            env: &[],
            adapter_args: &[],
            steps: || blocking(run_args("say hi", 30)),
        }
    };
}

/// The claude sessions (`recordings/*.jsonl`; the whole catalogue, with the ACP ones, is
/// `replay::all_sessions`).
#[must_use]
pub fn claude() -> Vec<Definition> {
    vec![
        // The real claude 2.1.328 against the local Messages API stand-in.
        Definition {
            name: "real-success",
            about: "A plain text run of the real claude: succeeded (OUT-1), progress (T9), \
                    events page, list, work snapshot, release; tools/list pins the catalogue.",
            native: Native::Real { account: true },
            env: &[],
            adapter_args: &[],
            steps: || {
                let mut s = blocking(run_args("say hi", 120));
                s.insert(
                    1,
                    Step::Request {
                        method: "tools/list",
                        params: None,
                    },
                );
                s
            },
        },
        Definition {
            name: "real-tool-denied",
            about: "The model calls Bash to write a file; dontAsk denies it; the real CLI ends \
                    with success and permission_denials, so the run succeeds (OUT-2).",
            native: Native::Real { account: true },
            env: &[],
            adapter_args: &[],
            steps: || blocking(run_args("create a file standin:scenario=tool", 120)),
        },
        Definition {
            name: "real-api-error",
            about: "HTTP 401 from the Messages API: the real CLI retries once, then ends with \
                    subtype success and is_error true, which fails the run as native_error \
                    (OUT-2).",
            native: Native::Real { account: true },
            env: &[],
            adapter_args: &[],
            steps: || blocking(run_args("say hi standin:scenario=error-401", 120)),
        },
        Definition {
            name: "real-max-turns",
            about: "A model that calls a tool on every turn, with CLAUDE_CODE_MAX_TURNS=1 in the \
                    user's environment (passed on, NAT-7): error_max_turns without result is a \
                    valid native error, not malformed (OUT-2).",
            native: Native::Real { account: true },
            env: &[("CLAUDE_CODE_MAX_TURNS", "1")],
            adapter_args: &[],
            steps: || blocking(run_args("create a file standin:scenario=tool-loop", 120)),
        },
        Definition {
            name: "real-unknown-resume",
            about: "resume_session_id of a session that does not exist: one result line, \
                    error_during_execution, exit 1: native_error (NAT-6, OUT-2).",
            native: Native::Real { account: true },
            env: &[],
            adapter_args: &[],
            steps: || {
                let mut args = run_args("say hi", 120);
                args["resume_session_id"] = json!(crate::real_claude::UNKNOWN_SESSION);
                blocking(args)
            },
        },
        Definition {
            name: "real-cancel",
            about: "claude.run.cancel while the real CLI streams a slow answer: SIGTERM to the \
                    group, the CLI exits 143, the run is cancelled with cleanup confirmed \
                    (RUN-6, SUP-3); a second cancel is already_settled.",
            native: Native::Real { account: true },
            env: &[],
            adapter_args: &[],
            steps: || cancelled(run_args("say hi standin:scenario=slow", 120), 4),
        },
        Definition {
            name: "real-not-logged-in",
            about: "No base URL and no key: the real CLI fails fast with 'Not logged in', \
                    success + is_error true, exit 1: native_error, cleanup confirmed.",
            native: Native::Real { account: false },
            env: &[],
            adapter_args: &[],
            steps: || blocking(run_args("say hi", 120)),
        },
        // fake-claude's failure modes (the run engine's issue), one recording each.
        fake!(
            "fake-success",
            "success",
            "A valid stream and final, exit 0: succeeded (OUT-1)."
        ),
        fake!(
            "fake-nonzero-exit",
            "nonzero-exit",
            "A valid success final, then exit 3: nonzero_exit, the final kept (OUT-2, OUT-3)."
        ),
        fake!(
            "fake-missing-final",
            "missing-final",
            "No result event, exit 0: missing_final (OUT-2)."
        ),
        fake!(
            "fake-duplicate-final",
            "duplicate-final",
            "Two result events: duplicate_final, the first kept (OUT-2, OUT-3)."
        ),
        fake!(
            "fake-malformed-final",
            "malformed-final",
            "A result line that is not JSON (kept as a raw row): malformed_final (OUT-2)."
        ),
        fake!(
            "fake-final-without-session-id",
            "final-without-session-id",
            "A success final without session_id: malformed_final (OUT-2)."
        ),
        fake!(
            "fake-final-without-result",
            "final-without-result",
            "A success final without a result string: malformed_final (OUT-2)."
        ),
        fake!(
            "fake-is-error-success",
            "is-error-success",
            "The real API-error shape, subtype success with is_error true: native_error (OUT-2)."
        ),
        fake!(
            "fake-error-subtype",
            "error-subtype",
            "An error_max_turns final without result: a valid native error (OUT-2)."
        ),
        fake!(
            "fake-oversized-event",
            "oversized-event",
            "A non-final line over 1 MiB: omitted and counted, the run goes on (BND-1)."
        ),
        fake!(
            "fake-oversized-final",
            "oversized-final",
            "A 256 KiB final (over 128 KiB): oversized_final, never a truncated success (BND-3)."
        ),
        fake!(
            "fake-huge-final",
            "huge-final",
            "A final over 1 MiB, recognised by the streaming type scan: oversized_final, never \
             missing_final (BND-3)."
        ),
        Definition {
            name: "fake-many-events",
            about: "300 events: the 256-event buffer drops the oldest; pages report missed \
                    events and walk with cursors (BND-2, RUN-5).",
            native: Native::Fake {
                scenario: "many-events",
            },
            env: &[],
            adapter_args: &[],
            steps: || {
                let mut s = blocking(run_args("say hi", 30));
                s.insert(
                    4,
                    tool(
                        "claude.run.events",
                        json!({"run_id": "$RUN", "cursor": "$CURSOR", "limit": 256}),
                    ),
                );
                s
            },
        },
        Definition {
            name: "fake-hang-after-final",
            about: "A valid final, then the process never exits: timeout, the final kept \
                    (OUT-2, OUT-3).",
            native: Native::Fake {
                scenario: "hang-after-final",
            },
            env: &[],
            adapter_args: &[],
            steps: || blocking(run_args("say hi", 2)),
        },
        Definition {
            name: "fake-ignore-sigterm",
            about: "A process that ignores SIGTERM and hangs: at the timeout SIGTERM, the grace, \
                    then SIGKILL (SUP-3); timed_out.",
            native: Native::Fake {
                scenario: "ignore-sigterm",
            },
            env: &[],
            adapter_args: &[],
            steps: || blocking(run_args("say hi", 2)),
        },
        fake!(
            "fake-grandchild",
            "grandchild",
            "A child left in the group after a valid success: group cleanup kills it (SUP-1)."
        ),
        fake!(
            "fake-escaped-grandchild",
            "escaped-grandchild",
            "A setsid child holding stdout open: settling does not wait for it (SUP-4)."
        ),
        fake!(
            "fake-stdout-closed-early",
            "stdout-closed-early",
            "stdout closed after init while the process runs on, then exit 0: missing_final."
        ),
        fake!(
            "fake-stderr-noise",
            "stderr-noise",
            "Lots of stderr around a valid success: only the 8 KiB tail is kept (RUN-11)."
        ),
        fake!(
            "fake-hooks-before-init",
            "hooks-before-init",
            "A hook event before system/init is a normal event (OUT-5)."
        ),
        Definition {
            name: "fake-cancel-streaming",
            about: "claude.run.cancel while fake-claude streams slowly: the group dies by \
                    SIGTERM, cancelled with cleanup confirmed (RUN-6, SUP-3).",
            native: Native::Fake {
                scenario: "slow-stream",
            },
            env: &[],
            adapter_args: &[],
            steps: || cancelled(run_args("say hi", 30), 3),
        },
        Definition {
            name: "fake-cancelled-request",
            about: "notifications/cancelled naming an in-flight claude.run: the run is cancelled \
                    and the request gets no answer (T7); the run stays readable as cancelled.",
            native: Native::Fake {
                scenario: "slow-stream",
            },
            env: &[],
            adapter_args: &[],
            steps: || cancelled_request(run_args("say hi", 30), 3),
        },
    ]
}
