//! The native side of a replay: each recorded native run becomes a fake-claude scenario file
//! (`FAKE_CLAUDE_SCENARIO=path`) that writes the recorded lines, byte for byte, and then ends the
//! way the recording shows.
//!
//! A scenario rather than `FAKE_CLAUDE_REPLAY` because a recording says more than "print these
//! rows and exit": a run the adapter terminated (timeout, cancel) must *not* exit by itself, or
//! the replayed adapter would see a different outcome. fake-claude's scenario steps express all
//! of it: `raw`/`raw_bytes` (exact lines), `line` (an oversized line of the recorded length and
//! top-level `type`, BND-1/BND-3), `stderr`, `exit`, `signal`, `hang`, `ignore_signals`.
//!
//! How a run ended, from the recording:
//! - it exited by itself (exit code or signal): the same `exit` / `signal`;
//! - the adapter terminated it (the run's settled state is `timed_out` or `cancelled`): `hang`
//!   until terminated; a recorded SIGKILL means SIGTERM was ignored (`ignore_signals`); a recorded
//!   exit code (the real CLI exits 143 on SIGTERM) needs a handler fake-claude has no step for, so
//!   the harness runs fake-claude under a small `sh` wrapper that traps SIGTERM and exits with
//!   that code ([`wrapper_script`]).

use std::path::Path;

use serde_json::{Value, json};

use super::recording::{Body, Recording, Row};

/// Signals as numbers (Linux).
const SIGKILL: i64 = 9;
const SIGTERM: i64 = 15;

/// One native run to replay.
#[derive(Debug, Clone)]
pub struct NativeRun {
    /// Its rows, exit row last (when there is one).
    pub rows: Vec<Row>,
    /// The adapter ended it (timeout or cancel) rather than the process itself.
    pub terminated: bool,
    /// The stderr the run's result reported (`stderr_tail`), used when the recording holds no
    /// `stderr` rows (the engine records only stdout today).
    pub stderr_tail: Option<String>,
}

impl NativeRun {
    /// The exit row's values.
    #[must_use]
    pub fn exit(&self) -> Option<(Option<i64>, Option<i64>)> {
        self.rows.iter().rev().find_map(|r| match r.body {
            Body::Exit { code, signal } => Some((code, signal)),
            _ => None,
        })
    }

    /// The exit code to answer SIGTERM with, when the adapter terminated a process that then
    /// exited with a code rather than by the signal.
    #[must_use]
    pub fn exit_code_on_sigterm(&self) -> Option<i64> {
        match self.exit() {
            Some((Some(code), None)) if self.terminated => Some(code),
            _ => None,
        }
    }

    /// The fake-claude scenario that reproduces this run.
    #[must_use]
    pub fn scenario(&self, name: &str) -> Value {
        let mut steps = Vec::new();
        let exit = self.exit();
        if self.terminated && matches!(exit, Some((_, Some(SIGKILL)))) {
            steps.push(json!({"ignore_signals": ["SIGTERM"]}));
        }
        let has_stderr_rows = self.rows.iter().any(|r| matches!(r.body, Body::Stderr(_)));
        if !has_stderr_rows && let Some(t) = self.stderr_tail.as_deref().filter(|t| !t.is_empty()) {
            steps.push(json!({"stderr": t, "newline": false}));
        }
        for r in &self.rows {
            match &r.body {
                Body::Msg(m) => steps.push(exact_line(&m.to_string())),
                Body::Raw(t) => steps.push(exact_line(t)),
                Body::Oversized { len, ty: Some(ty) } => {
                    steps.push(json!({"line": {"bytes": len, "type": ty}}));
                }
                Body::Oversized { len, ty: None } => {
                    // No top-level type was found: a line that is not JSON at all.
                    let n = usize::try_from(*len).expect("length fits");
                    steps.push(json!({"raw": "x".repeat(n)}));
                }
                Body::Stderr(t) => steps.push(json!({"stderr": t, "newline": false})),
                Body::Exit { .. } | Body::Other(_) => {}
            }
        }
        match exit {
            _ if self.terminated => steps.push(json!({"hang": true})),
            None => steps.push(json!({"hang": true})),
            Some((_, Some(sig))) => steps.push(json!({"signal": sig})),
            Some((code, None)) => steps.push(json!({"exit": code.unwrap_or(0)})),
        }
        json!({
            "format": 1,
            "description": format!("replay of a native run of the golden recording {name}"),
            "steps": steps,
        })
    }
}

/// A step writing `text` and a newline exactly: `raw` unless the text holds `{{` (fake-claude
/// fills placeholders in `raw` text), then `raw_bytes`.
fn exact_line(text: &str) -> Value {
    if text.contains("{{") {
        json!({"raw_bytes": text.as_bytes()})
    } else {
        json!({"raw": text})
    }
}

/// The native runs of `rec`, each with how it ended. The k-th run belongs to the k-th run the
/// session started; its settled state comes from the adapter's recorded answers.
#[must_use]
pub fn native_runs(rec: &Recording) -> Vec<NativeRun> {
    let run_ids = started_runs(rec);
    rec.native_runs()
        .into_iter()
        .enumerate()
        .map(|(k, rows)| {
            let id = run_ids.get(k);
            let last = id.and_then(|id| last_result_of(rec, id));
            let state = last
                .as_ref()
                .and_then(|r| r.get("state"))
                .and_then(Value::as_str)
                .map(str::to_owned);
            let code = last
                .as_ref()
                .and_then(|r| r.pointer("/error/code"))
                .and_then(Value::as_str)
                .map(str::to_owned);
            let by_adapter = matches!(state.as_deref(), Some("timed_out" | "cancelled"))
                || matches!(code.as_deref(), Some("timeout" | "cancelled"));
            let run = NativeRun {
                stderr_tail: last
                    .as_ref()
                    .and_then(|r| r.get("stderr_tail"))
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                rows,
                terminated: false,
            };
            // Without a known settled state, a death by SIGTERM or SIGKILL is the adapter's.
            let terminated = if state.is_some() {
                by_adapter
            } else {
                matches!(run.exit(), Some((_, Some(SIGTERM | SIGKILL))))
            };
            NativeRun { terminated, ..run }
        })
        .collect()
}

/// Tool names that start a run.
pub const START_TOOLS: [&str; 8] = [
    "claude.run",
    "claude.run.start",
    "claude_run",
    "claude_run_start",
    "cursor.run",
    "cursor.run.start",
    "cursor_run",
    "cursor_run_start",
];

/// Whether `msg` is a `tools/call` that starts a run.
#[must_use]
pub fn starts_run(msg: &Value) -> bool {
    msg.get("method").and_then(Value::as_str) == Some("tools/call")
        && msg
            .pointer("/params/name")
            .and_then(Value::as_str)
            .is_some_and(|n| START_TOOLS.contains(&n))
}

/// The run ids the session's start calls were answered with, in order.
fn started_runs(rec: &Recording) -> Vec<String> {
    let mut ids = Vec::new();
    for c in rec.rows.iter().filter(|r| r.dir == "c2s") {
        let Some(msg) = c.msg() else { continue };
        if !starts_run(msg) {
            continue;
        }
        let Some(id) = msg.get("id") else { continue };
        let answer = rec
            .rows
            .iter()
            .filter(|r| r.dir == "s2c")
            .filter_map(Row::msg)
            .find(|m| m.get("method").is_none() && m.get("id") == Some(id));
        if let Some(run_id) = answer
            .and_then(|a| a.pointer("/result/structuredContent/result/run_id"))
            .and_then(Value::as_str)
        {
            ids.push(run_id.to_owned());
        }
    }
    ids
}

/// The last result-shaped object (`run_id` + `stderr_tail` or `state`) the adapter sent for
/// `run_id`, preferring full results (they carry `stderr_tail`).
fn last_result_of(rec: &Recording, run_id: &str) -> Option<Value> {
    let mut full = None;
    let mut any = None;
    for m in rec
        .rows
        .iter()
        .filter(|r| r.dir == "s2c")
        .filter_map(Row::msg)
    {
        visit(m, &mut |o| {
            if o.get("run_id").and_then(Value::as_str) == Some(run_id) && o.get("state").is_some() {
                if o.get("stderr_tail").is_some() {
                    full = Some(Value::Object(o.clone()));
                }
                any = Some(Value::Object(o.clone()));
            }
        });
    }
    match (full, any) {
        (Some(f), Some(a)) => {
            // A later short answer (cancel, list) may carry a newer state than the last full one.
            let mut f = f;
            if let (Some(s), Some(obj)) = (a.get("state"), f.as_object_mut())
                && a.get("stderr_tail").is_none()
                && state_rank(s) > state_rank(&obj["state"])
            {
                obj.insert("state".into(), s.clone());
            }
            Some(f)
        }
        (None, a) => a,
        (f, None) => f,
    }
}

fn state_rank(s: &Value) -> u8 {
    match s.as_str() {
        Some("pending") => 0,
        Some("starting") => 1,
        Some("running") => 2,
        Some("settling") => 3,
        Some(_) => 4,
        None => 0,
    }
}

/// Calls `f` on every object inside `v` (depth first).
fn visit(v: &Value, f: &mut impl FnMut(&serde_json::Map<String, Value>)) {
    match v {
        Value::Object(o) => {
            f(o);
            for x in o.values() {
                visit(x, f);
            }
        }
        Value::Array(a) => {
            for x in a {
                visit(x, f);
            }
        }
        _ => {}
    }
}

/// A `/bin/sh` wrapper around fake-claude that answers SIGTERM by exiting with the code in
/// `code_file` (the real CLI exits 143 on SIGTERM; fake-claude's scenarios can only die by it).
/// fake-claude runs as a child in the same process group, so the group's SIGTERM ends it too.
#[must_use]
pub fn wrapper_script(fake: &Path, code_file: &Path) -> String {
    format!(
        "#!/bin/sh\n\
         # Written by the replay harness (adapter/tests/it/replay/native.rs).\n\
         CODE_FILE={code}\n\
         trap 'exit \"$(cat \"$CODE_FILE\")\"' TERM\n\
         {fake} \"$@\" &\n\
         # The shell's own job report (\"Terminated\") must not reach the native stderr.\n\
         exec 2>/dev/null\n\
         wait $!\n",
        code = sh_quote(&code_file.to_string_lossy()),
        fake = sh_quote(&fake.to_string_lossy()),
    )
}

fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}
