//! stdout as the real CLI shapes it per `--output-format`: `stream-json` one compact event per
//! line (stream_event lines only with `--include-partial-messages`); `json` only the result
//! object (without `model_usage_since_last_result`, as captured), or with `--verbose` one JSON
//! array of every event; `text` only the result text. Writes go straight to descriptor 1 without
//! buffering, so timing steps are observable and floods move whole megabytes per syscall.

use std::io::Write as _;
use std::os::fd::AsFd as _;

use serde_json::Value;

use crate::validate::{OutputFormat, Plan};

/// Result key the real json output leaves out (compare run-stream.jsonl with run-json.jsonl).
const JSON_MODE_DROPS: &str = "model_usage_since_last_result";

pub struct Out {
    pub format: OutputFormat,
    partial: bool,
    /// stdout was closed by the scenario or the reader went away: drop further output.
    gone: bool,
    /// `--output-format json --verbose` prints all events as one array at the end.
    array: Option<Vec<Value>>,
}

impl Out {
    pub fn new(plan: &Plan) -> Self {
        let array = (plan.output == OutputFormat::Json && plan.verbose).then(Vec::new);
        Self {
            format: plan.output,
            partial: plan.partial,
            gone: false,
            array,
        }
    }

    /// Whether a stdout step with `modes` (or the kind's `default`) shows in this format.
    pub fn shows(&self, modes: Option<&[OutputFormat]>, default: &[OutputFormat]) -> bool {
        modes.unwrap_or(default).contains(&self.format)
    }

    /// Partial-message lines exist only with `--include-partial-messages`.
    pub fn gated(&self, event_type: Option<&str>) -> bool {
        event_type == Some("stream_event") && !self.partial
    }

    /// Writes bytes to descriptor 1, retrying short writes; a failed write marks stdout gone.
    pub fn write(&mut self, bytes: &[u8]) -> bool {
        if self.gone {
            return false;
        }
        let mut rest = bytes;
        while !rest.is_empty() {
            match nix::unistd::write(std::io::stdout().as_fd(), rest) {
                Ok(0) => break,
                Ok(n) => rest = &rest[n..],
                Err(nix::errno::Errno::EINTR) => {}
                Err(_) => {
                    self.gone = true;
                    return false;
                }
            }
        }
        true
    }

    /// One event line (compact JSON, key order kept, `\n`).
    pub fn write_json_line(&mut self, v: &Value) {
        let mut line = serde_json::to_vec(v).unwrap_or_default();
        line.push(b'\n');
        self.write(&line);
    }

    /// Shows one scripted event the way the current output format shows it.
    pub fn event(&mut self, ev: &Value, modes: Option<&[OutputFormat]>, text: Option<&str>) {
        let kind = ev.get("type").and_then(Value::as_str);
        let is_result = kind == Some("result");
        let default: &[OutputFormat] = if is_result {
            &[
                OutputFormat::StreamJson,
                OutputFormat::Json,
                OutputFormat::Text,
            ]
        } else {
            &[OutputFormat::StreamJson]
        };
        if self.gated(kind) {
            return;
        }
        if let Some(array) = self.array.as_mut() {
            // json+verbose lists what stream-json would print, results trimmed as in json mode.
            let wanted = modes
                .unwrap_or(default)
                .iter()
                .any(|m| *m != OutputFormat::Text);
            if wanted && kind != Some("stream_event") {
                array.push(if is_result { trimmed(ev) } else { ev.clone() });
            }
            return;
        }
        if !self.shows(modes, default) {
            return;
        }
        match self.format {
            OutputFormat::StreamJson => self.write_json_line(ev),
            OutputFormat::Json => self.write_json_line(&trimmed(ev)),
            OutputFormat::Text => {
                let shown = text
                    .map(str::to_owned)
                    .or_else(|| ev.get("result").and_then(Value::as_str).map(str::to_owned));
                if let Some(t) = shown {
                    self.write(format!("{t}\n").as_bytes());
                }
            }
        }
    }

    /// Dups /dev/null onto descriptor 1: the reader sees EOF (unless a child still holds the
    /// pipe) while the process keeps running.
    pub fn close(&mut self) {
        self.finish();
        if let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") {
            let _ = nix::unistd::dup2_stdout(null);
        }
        self.gone = true;
    }

    /// Prints what is held back (the json+verbose array); called before exiting or hanging.
    pub fn finish(&mut self) {
        if let Some(array) = self.array.take() {
            self.write_json_line(&Value::Array(array));
        }
        let _ = std::io::stdout().flush();
    }

    pub fn partial(&self) -> bool {
        self.partial
    }
}

fn trimmed(ev: &Value) -> Value {
    let mut ev = ev.clone();
    if let Some(map) = ev.as_object_mut() {
        map.shift_remove(JSON_MODE_DROPS);
    }
    ev
}
