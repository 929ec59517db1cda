//! `FAKE_CURSOR_REPLAY=<file>`: replays a `{"dir","ms","msg"}` wire recording instead of playing
//! scenarios. Rows are taken in order and paced by causality, not by `ms`: an `a2c` row is
//! written as soon as every earlier `c2a` row has been matched; a `c2a` row waits for the
//! client's next message and matches it by shape (requests and notifications: same method, id
//! present or not as recorded, same top-level `params` keys; answers: same id, `result` or `error`
//! as recorded, same top-level `result` keys). Ids are rewritten so the client sees its own: an
//! agent answer carries the id of the client request it matched, and a session id the client
//! used in place of a recorded one replaces it in later agent rows. `a2c-stderr` rows go to
//! stderr (`"newline": false` writes the text as it is); `note` rows and rows without `dir` are
//! skipped. A mismatch (or EOF while a `c2a` row is still expected, or a client message after the
//! last row) is reported on stderr, exit 3; after the last row, EOF exits 0.
//!
//! What `claude-mcp-adapter --record` writes for an agent is replayed too (the ACP golden
//! recordings, `recordings/acp/`): an `a2c` row `{"raw": text}` (a line that was not JSON) is
//! written as that text and a newline, `{"oversized": {"len": N}}` (a line over the client's
//! bound, never held, so its content is unknown) as N bytes of `x` and a newline, and the run's
//! `n2a` row `{"exit": {"code", "signal"}}` ends the replay the way the process ended: a code is
//! exited with at once; a signal means something killed the process (the adapter ends the group
//! after every turn, ACP-7), so the replay then waits to be killed, EOF included, answering any
//! further client message as a mismatch.
//!
//! A recorded exit code is reproduced, not raced: the adapter sends its end-of-turn SIGTERM as
//! soon as it has the prompt's answer (ACP-7), while the recorded agent exited on its own. Which
//! came first was a matter of scheduling when the recording was made, and would be again on
//! every replay, so a replay whose recording ends with a code ignores SIGTERM ([`hold_sigterm`])
//! and exits with that code when it reaches it. SIGKILL still ends it at once.

use std::collections::HashMap;
use std::sync::mpsc::Receiver;

use serde_json::Value;

use crate::input::Input;
use crate::out::{Out, stderr};
use crate::process;

/// Env variable naming the recording.
pub const ENV_REPLAY: &str = "FAKE_CURSOR_REPLAY";
/// Exit status of a replay mismatch.
pub const MISMATCH: i32 = 3;
/// Exit status when the recording cannot be read (the fake's own failure).
pub const BAD_RECORDING: i32 = 2;

/// Ignores SIGTERM when the recording at `path` ends with an exit code (see the module docs);
/// call before the input threads start. A recording that cannot be read is left to [`run`] to
/// report.
pub fn hold_sigterm(path: &str) {
    let Ok(text) = std::fs::read_to_string(path) else {
        return;
    };
    let ends_with_code = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .any(|row| row["dir"] == "n2a" && row.pointer("/exit/code").is_some_and(Value::is_i64));
    if ends_with_code {
        // Ignored, not blocked: a blocked SIGTERM is the log's guard (`input::guard_sigterm`),
        // whose signal thread would take it and die by it.
        // SAFETY: SIG_IGN installs no handler, so no code runs in signal context.
        let _ = unsafe {
            nix::sys::signal::signal(
                nix::sys::signal::Signal::SIGTERM,
                nix::sys::signal::SigHandler::SigIgn,
            )
        };
    }
}

/// Replays the recording at `path`; returns the exit status.
pub fn run(path: &str, rx: &Receiver<Input>) -> i32 {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            return fail(
                BAD_RECORDING,
                &format!("cannot read {ENV_REPLAY} {path}: {e}"),
            );
        }
    };
    let mut out = Out::default();
    let mut ids: HashMap<String, Value> = HashMap::new();
    let mut sids: HashMap<String, String> = HashMap::new();
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let row_no = n + 1;
        let Ok(row) = serde_json::from_str::<Value>(line) else {
            return fail(
                BAD_RECORDING,
                &format!("row {row_no} of {path} is not JSON"),
            );
        };
        let msg = row.get("msg").cloned().unwrap_or(Value::Null);
        match row.get("dir").and_then(Value::as_str) {
            Some("a2c") => agent_line(&mut out, &row, &msg, &ids, &sids),
            Some("a2c-stderr") => stderr(
                msg.as_str().unwrap_or_default(),
                row.get("newline") != Some(&Value::Bool(false)),
            ),
            Some("n2a") if row.get("exit").is_some() => return end(&row["exit"], rx, row_no),
            Some("c2a") => {
                let got = match rx.recv() {
                    Ok(Input::Msg(got)) => got,
                    Ok(Input::Eof) | Err(_) => {
                        return fail(
                            MISMATCH,
                            &format!(
                                "replay mismatch at row {row_no}: the client closed stdin; expected {msg}"
                            ),
                        );
                    }
                };
                if let Err(why) = matches(&msg, &got) {
                    return fail(
                        MISMATCH,
                        &format!(
                            "replay mismatch at row {row_no}: {why}; expected {msg}, got {got}"
                        ),
                    );
                }
                learn(&msg, &got, &mut ids, &mut sids);
            }
            _ => {}
        }
    }
    match rx.recv() {
        Ok(Input::Msg(extra)) => fail(
            MISMATCH,
            &format!("replay mismatch: the client sent {extra} after the recording's last row"),
        ),
        _ => 0,
    }
}

/// Writes one recorded agent line: a message (ids rewritten), a raw line, or an oversized one.
fn agent_line(
    out: &mut Out,
    row: &Value,
    msg: &Value,
    ids: &HashMap<String, Value>,
    sids: &HashMap<String, String>,
) {
    if let Some(text) = row.get("raw").and_then(Value::as_str) {
        let mut line = text.as_bytes().to_vec();
        line.push(b'\n');
        out.write(&line);
    } else if let Some(len) = row.pointer("/oversized/len").and_then(Value::as_u64) {
        // The recorder never held the line, so only its length is known (BND-1).
        let mut line = vec![b'x'; usize::try_from(len).unwrap_or(0)];
        line.push(b'\n');
        out.write(&line);
    } else {
        out.send(&rewrite(msg, ids, sids));
    }
}

/// Ends the replay as the recorded process ended: with its exit code, or (killed by a signal)
/// by waiting until something kills it; a client message meanwhile is a mismatch.
fn end(exit: &Value, rx: &Receiver<Input>, row_no: usize) -> i32 {
    if let Some(code) = exit.get("code").and_then(Value::as_i64) {
        process::exit(i32::try_from(code).unwrap_or(1));
    }
    match rx.recv() {
        Ok(Input::Msg(extra)) => fail(
            MISMATCH,
            &format!(
                "replay mismatch at row {row_no}: the client sent {extra} where the recording \
                 shows the process killed"
            ),
        ),
        Ok(Input::Eof) | Err(_) => process::hang(),
    }
}

fn fail(code: i32, msg: &str) -> i32 {
    stderr(&format!("fake-cursor-agent: {msg}"), true);
    code
}

/// Whether the client's `got` has the shape of the recorded `want`.
fn matches(want: &Value, got: &Value) -> Result<(), String> {
    let method = |v: &Value| v.get("method").and_then(Value::as_str).map(str::to_owned);
    match method(want) {
        Some(m) => {
            if method(got).as_deref() != Some(m.as_str()) {
                return Err(format!("method {:?} instead of {m:?}", method(got)));
            }
            if want.get("id").is_some() != got.get("id").is_some() {
                return Err("request/notification kind differs".into());
            }
            same_keys(want.get("params"), got.get("params"), "params")
        }
        None => {
            if method(got).is_some() {
                return Err("a request instead of an answer".into());
            }
            if want.get("id") != got.get("id") {
                return Err("an answer to a different request".into());
            }
            if want.get("error").is_some() != got.get("error").is_some() {
                return Err("result/error differs".into());
            }
            same_keys(want.get("result"), got.get("result"), "result")
        }
    }
}

fn same_keys(want: Option<&Value>, got: Option<&Value>, what: &str) -> Result<(), String> {
    let keys = |v: Option<&Value>| -> Option<Vec<String>> {
        let mut k: Vec<String> = v?.as_object()?.keys().cloned().collect();
        k.sort();
        Some(k)
    };
    let (w, g) = (keys(want), keys(got));
    if w == g {
        Ok(())
    } else {
        Err(format!("{what} keys {g:?} instead of {w:?}"))
    }
}

/// Learns the client's id for a recorded request and any session id it used instead of ours.
fn learn(
    want: &Value,
    got: &Value,
    ids: &mut HashMap<String, Value>,
    sids: &mut HashMap<String, String>,
) {
    if want.get("method").is_some()
        && let (Some(w), Some(g)) = (want.get("id"), got.get("id"))
    {
        ids.insert(w.to_string(), g.clone());
    }
    let sid = |v: &Value| {
        v.pointer("/params/sessionId")
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    if let (Some(w), Some(g)) = (sid(want), sid(got))
        && w != g
    {
        sids.insert(w, g);
    }
}

/// A recorded agent message with the client's ids put in.
fn rewrite(msg: &Value, ids: &HashMap<String, Value>, sids: &HashMap<String, String>) -> Value {
    let mut msg = replace_sids(msg, sids);
    let is_answer = msg.get("method").is_none();
    if is_answer
        && let Some(id) = msg.get("id").map(Value::to_string)
        && let Some(client_id) = ids.get(&id)
        && let Some(obj) = msg.as_object_mut()
    {
        obj.insert("id".into(), client_id.clone());
    }
    msg
}

fn replace_sids(v: &Value, sids: &HashMap<String, String>) -> Value {
    if sids.is_empty() {
        return v.clone();
    }
    match v {
        Value::String(s) => Value::String(sids.get(s).cloned().unwrap_or_else(|| s.clone())),
        Value::Array(a) => Value::Array(a.iter().map(|x| replace_sids(x, sids)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| (k.clone(), replace_sids(x, sids)))
                .collect(),
        ),
        other => other.clone(),
    }
}
