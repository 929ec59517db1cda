//! stdout as the real CLI shapes it per `--output-format`: `stream-json` one compact event per
//! line (stream_event lines only with `--include-partial-messages`); `json` only the result
//! object (without `model_usage_since_last_result`, as captured), or with `--verbose` one JSON
//! array of the events the real CLI keeps for it (`in_json_array`); `text` only the result
//! text, a newline only after a `success` result's text (the real CLI's text printer, probed and
//! read out of 2.1.328). Writes go straight to descriptor 1 without buffering, so timing steps are
//! observable and floods move whole megabytes per syscall.

use std::io::Write as _;
use std::os::fd::AsFd as _;

use serde_json::Value;

use crate::validate::{OutputFormat, Plan};

/// Result key the real json output leaves out (compare run-stream.jsonl with run-json.jsonl).
const JSON_MODE_DROPS: &str = "model_usage_since_last_result";

/// `system` subtypes the real 2.1.328 leaves out of `--output-format json --verbose` (its message
/// filter for json and text output, read out of the shipped CLI; `permission_denied` confirmed
/// against a live run). They still appear in stream-json output.
const NOT_IN_JSON_ARRAY: &[&str] = &[
    "session_state_changed",
    "permission_denied",
    "task_notification",
    "task_started",
    "task_updated",
    "task_progress",
    "background_tasks_changed",
    "feedback_draft_queued",
    "control_request_progress",
    "notification",
    "post_turn_summary",
    "task_summary",
    "session_metadata",
    "hook_started",
    "hook_progress",
    "hook_response",
    "commands_changed",
    "elicitation_complete",
    "files_persisted",
    "mirror_error",
    "code_change_published",
    "tool_host_result",
    "peer_message_hold",
    "ui_invalidate",
    "ui_log",
    "ui_toast",
    "ui_notify",
    "ui_notify_cancel",
    "ui_status",
    "ui_panes",
    "ui_placed",
    "ui_scroll",
    "ui_focus",
    "permission_check_status",
    "vcs_state_changed",
    "shell_cwd",
    "dev_intent",
    "task_list_statuses",
    "session_title_changed",
    "turn_preempted",
    "per_turn_effort_changed",
    "instruction_size_warning",
    "file_attachments_missing",
];

/// Event types the same filter leaves out.
const TYPES_NOT_IN_JSON_ARRAY: &[&str] = &[
    "control_response",
    "control_request",
    "control_cancel_request",
    "stream_event",
    "keep_alive",
    "prompt_suggestion",
    "conversation_reset",
    "transcript_mirror",
    "command_lifecycle",
    "active_goal",
    "autocompact_state",
];

pub struct Out {
    pub format: OutputFormat,
    partial: bool,
    /// stdout was closed by the scenario or the reader went away: drop further output.
    gone: bool,
    /// `--output-format json --verbose` prints the kept events as one array at the end.
    array: Option<Vec<Value>>,
    /// A json-mode result went into `array`: the real CLI prints the array only after a result
    /// (an `--resume` failure before the run, for one, prints nothing).
    array_has_result: bool,
    /// Text results printed so far, and whether the last one ended with a newline (the real
    /// text printer separates results with a blank line).
    texts_printed: usize,
    text_ended_with_newline: bool,
}

impl Out {
    pub fn new(plan: &Plan) -> Self {
        let array = (plan.output == OutputFormat::Json && plan.verbose).then(Vec::new);
        Self {
            format: plan.output,
            partial: plan.partial,
            gone: false,
            array,
            array_has_result: false,
            texts_printed: 0,
            text_ended_with_newline: true,
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
        let modes = modes.unwrap_or(default);
        if let Some(array) = self.array.as_mut() {
            // json+verbose lists what stream-json would print, less what the real CLI filters
            // out; its results are the json-mode ones, trimmed as in json mode.
            if is_result {
                if modes.contains(&OutputFormat::Json) {
                    array.push(trimmed(ev));
                    self.array_has_result = true;
                }
            } else if modes.contains(&OutputFormat::StreamJson) && in_json_array(ev) {
                array.push(ev.clone());
            }
            return;
        }
        if !modes.contains(&self.format) {
            return;
        }
        match self.format {
            OutputFormat::StreamJson => self.write_json_line(ev),
            OutputFormat::Json => self.write_json_line(&trimmed(ev)),
            OutputFormat::Text => {
                if let Some(t) = text_of(ev, text) {
                    self.write_text(&t);
                }
            }
        }
    }

    /// One result's text as the real text printer writes it: after the first, a blank line
    /// separates results (one newline more when the previous text had none of its own).
    fn write_text(&mut self, t: &str) {
        let sep = match (self.texts_printed, self.text_ended_with_newline) {
            (0, _) => "",
            (_, true) => "\n",
            (_, false) => "\n\n",
        };
        self.write(format!("{sep}{t}").as_bytes());
        self.texts_printed += 1;
        self.text_ended_with_newline = t.ends_with('\n');
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
        if let Some(array) = self.array.take()
            && self.array_has_result
        {
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

/// Whether the real CLI keeps `ev` in the `--output-format json --verbose` array.
fn in_json_array(ev: &Value) -> bool {
    let ty = ev.get("type").and_then(Value::as_str).unwrap_or_default();
    let subtype = ev
        .get("subtype")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let dropped_system = ty == "system" && NOT_IN_JSON_ARRAY.contains(&subtype);
    !dropped_system && !TYPES_NOT_IN_JSON_ARRAY.contains(&ty)
}

/// What `--output-format text` prints for a result, as the real printer does: a `success`
/// result's text ends with exactly the newline it has or one added; the error subtypes print a
/// fixed line without a newline (`error_during_execution` is `Execution error`; the scenario's
/// `text` gives the others, e.g. `Error: Reached max turns (1)`). `None`: nothing to print.
fn text_of(ev: &Value, scripted: Option<&str>) -> Option<String> {
    let subtype = ev.get("subtype").and_then(Value::as_str);
    let shown = scripted.map(str::to_owned).or_else(|| match subtype {
        Some("error_during_execution") => Some("Execution error".to_owned()),
        _ => ev.get("result").and_then(Value::as_str).map(str::to_owned),
    })?;
    Some(if subtype == Some("success") && !shown.ends_with('\n') {
        shown + "\n"
    } else {
        shown
    })
}
