//! Replays the native side of a golden recording (`FAKE_CLAUDE_REPLAY=path`): every row with
//! `"dir": "n2a"` in order, exactly as recorded, whatever the output flags.
//!
//! Rows: `{"dir","ms","msg"}` → the message as compact JSON (key order kept) and `\n`;
//! `{"dir","ms","raw"}` → the text and `\n` unless the row says `"newline": false`;
//! `{"dir","ms","stderr"}` → the text on stderr (format extension);
//! `{"dir","ms","exit":{"code":C,"signal":S}}` → exit with C, or die by S when S is set
//! (format extension). Rows of other directions, and rows without `dir` (a timing summary), are
//! skipped. With env `FAKE_CLAUDE_REPLAY_TIMING=1` rows are spaced by their `ms`.

use std::io::Write as _;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::interp::output::Out;
use crate::interp::process;

/// Env variable naming the recording to replay.
pub const ENV_REPLAY: &str = "FAKE_CLAUDE_REPLAY";
/// Env variable: `1` spaces the rows by their recorded `ms`.
pub const ENV_REPLAY_TIMING: &str = "FAKE_CLAUDE_REPLAY_TIMING";
/// Direction of native stdout toward the adapter.
const NATIVE_TO_ADAPTER: &str = "n2a";

/// Replays `path`; returns the exit code (or never returns when the recording ends by signal).
pub fn replay(path: &str, out: &mut Out) -> Result<i32, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("replay file {path}: {e}"))?;
    let timed = std::env::var(ENV_REPLAY_TIMING).is_ok_and(|v| v == "1");
    let start = Instant::now();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let row: Value = serde_json::from_str(line)
            .map_err(|e| format!("replay file {path} line {}: {e}", n + 1))?;
        if row.get("dir").and_then(Value::as_str) != Some(NATIVE_TO_ADAPTER) {
            continue;
        }
        if timed && let Some(ms) = row.get("ms").and_then(Value::as_u64) {
            let due = start + Duration::from_millis(ms);
            if let Some(wait) = due.checked_duration_since(Instant::now()) {
                std::thread::sleep(wait);
            }
        }
        if let Some(msg) = row.get("msg") {
            out.write_json_line(msg);
        } else if let Some(raw) = row.get("raw").and_then(Value::as_str) {
            let mut bytes = raw.as_bytes().to_vec();
            if row.get("newline") != Some(&Value::Bool(false)) {
                bytes.push(b'\n');
            }
            out.write(&bytes);
        } else if let Some(err) = row.get("stderr").and_then(Value::as_str) {
            let _ = std::io::stderr().write_all(err.as_bytes());
        } else if let Some(exit) = row.get("exit") {
            return finish(exit, path, n + 1);
        } else {
            return Err(format!(
                "replay file {path} line {}: an n2a row needs msg, raw, stderr or exit",
                n + 1
            ));
        }
    }
    Ok(0)
}

fn finish(exit: &Value, path: &str, line: usize) -> Result<i32, String> {
    let signal = exit.get("signal").filter(|s| !s.is_null());
    if let Some(s) = signal {
        let sig = match s {
            Value::Number(n) => n
                .as_i64()
                .and_then(|n| i32::try_from(n).ok())
                .and_then(|n| nix::sys::signal::Signal::try_from(n).ok()),
            Value::String(name) => name.parse().ok(),
            _ => None,
        };
        let sig = sig.ok_or_else(|| format!("replay file {path} line {line}: bad signal {s}"))?;
        process::die_by(sig);
    }
    let code = exit.get("code").and_then(Value::as_i64).unwrap_or(0);
    Ok(i32::try_from(code).unwrap_or(1))
}
