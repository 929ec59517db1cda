//! The prompt as the real CLI assembles it in print mode: the first positional argument, and,
//! when stdin is not a terminal, everything read from stdin until EOF, joined with a newline
//! (probed: `echo text | claude -p arg` sends `arg\ntext\n`, and waits for EOF first, so a
//! runner that leaves stdin an open pipe hangs the real CLI; NAT-7 gives it /dev/null).
//! With `--input-format stream-json` every `user` message on stdin is a turn, answered as its
//! line arrives (probed: the real CLI answers a turn while stdin stays open, runs one turn per
//! user line, and exits at EOF).

use std::io::{BufRead as _, Read as _};

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

/// The user turns of `--input-format stream-json`, read from stdin line by line as they come.
pub struct StreamTurns {
    stdin: Option<std::io::StdinLock<'static>>,
}

impl StreamTurns {
    /// Reads stdin unless it is a terminal (then there are no turns).
    #[expect(
        clippy::new_without_default,
        reason = "locks the process's stdin: not a value to make by default"
    )]
    pub fn new() -> Self {
        let tty = nix::unistd::isatty(std::io::stdin()).unwrap_or(false);
        Self {
            stdin: (!tty).then(|| std::io::stdin().lock()),
        }
    }

    /// The text of the next `user` message; `Ok(None)` at EOF. Blank lines and other message
    /// types are skipped; a line that is not JSON is the real CLI's parse error.
    pub fn next_turn(&mut self) -> Result<Option<String>, CliError> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Ok(None);
        };
        loop {
            let mut bytes = Vec::new();
            if stdin.read_until(b'\n', &mut bytes).unwrap_or(0) == 0 {
                return Ok(None);
            }
            let line = String::from_utf8_lossy(&bytes);
            let line = line.trim_end_matches(['\n', '\r']);
            if line.trim().is_empty() {
                continue;
            }
            let v: Value = serde_json::from_str(line).map_err(|_| {
                CliError::new(ErrorId::StreamInputLineNotJson)
                    .with("chars", line.encode_utf16().count().to_string())
            })?;
            if v.get("type").and_then(Value::as_str) == Some("user") {
                return Ok(Some(message_text(&v)));
            }
        }
    }
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
