//! The prompt as the real CLI assembles it in print mode: the first positional argument, and,
//! when stdin is not a terminal, everything read from stdin until EOF, joined with a newline
//! (probed: `echo text | claude -p arg` sends `arg\ntext\n`, and waits for EOF first, so a
//! runner that leaves stdin an open pipe hangs the real CLI; NAT-7 gives it /dev/null).
//! With `--input-format stream-json` the first user message read from stdin is the prompt.

use std::io::Read as _;

use serde_json::Value;

use crate::errors::{CliError, ErrorId};

/// Reads stdin to EOF unless it is a terminal.
fn read_stdin() -> String {
    if nix::unistd::isatty(std::io::stdin()).unwrap_or(false) {
        return String::new();
    }
    let mut bytes = Vec::new();
    let _ = std::io::stdin().lock().read_to_end(&mut bytes);
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The text-input prompt: argument and stdin, either, or none.
pub fn text_prompt(arg: Option<&str>) -> Option<String> {
    let stdin = read_stdin();
    match (arg, stdin.is_empty()) {
        (Some(a), true) => Some(a.to_owned()),
        (Some(a), false) => Some(format!("{a}\n{stdin}")),
        (None, false) => Some(stdin),
        (None, true) => None,
    }
}

/// The stream-json-input prompt: the text of the first `user` message on stdin; `Ok(None)` when
/// stdin held no user message (the real CLI then exits 0 without output).
pub fn stream_prompt() -> Result<Option<String>, CliError> {
    let stdin = read_stdin();
    let mut first = None;
    for line in stdin.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line).map_err(|_| {
            CliError::new(ErrorId::StreamInputLineNotJson)
                .with("chars", line.encode_utf16().count().to_string())
        })?;
        if first.is_none() && v.get("type").and_then(Value::as_str) == Some("user") {
            first = Some(message_text(&v));
        }
    }
    Ok(first)
}

fn message_text(v: &Value) -> String {
    match v.pointer("/message/content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}
