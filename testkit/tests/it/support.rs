//! Shared helpers: running the real CLI against a stand-in, and comparing stream shapes with the
//! reference captures of claude 2.1.328 (copied from `shared/reference/claude-2.1.328/streams/`
//! into `tests/it/reference/`).

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;
use testkit::claude::{ClaudeCommand, Finished, final_result, run_bounded_with_input};
use testkit::standin::Standin;

/// Upper bound for one CLI run; only there to avoid hangs (runs take about a second).
pub const RUN_LIMIT: Duration = Duration::from_secs(60);

/// Result keys whose presence is a timing metric, not part of the shape.
const TIMING_KEYS: [&str; 4] = [
    "ttft_ms",
    "ttft_stream_ms",
    "time_to_request_ms",
    "first_content_frame_ms",
];

/// The real claude binary, or `None` (test skipped; a panic under `CI=true`).
pub fn real_claude() -> Option<PathBuf> {
    testkit::prereq::require(testkit::prereq::claude())
}

/// One finished run of the CLI.
pub struct Run {
    pub finished: Finished,
    pub events: Vec<Value>,
    /// Kept so the temporary HOME outlives the run (and for transcript assertions).
    pub cmd: ClaudeCommand,
}

impl Run {
    pub fn result(&self) -> &Value {
        final_result(&self.events)
            .unwrap_or_else(|| panic!("no result event; stderr: {}", self.finished.stderr_text()))
    }

    pub fn exit_code(&self) -> Option<i32> {
        self.finished.status.code()
    }

    /// Events of one type (and subtype, if given).
    pub fn of(&self, kind: &str, subtype: Option<&str>) -> Vec<&Value> {
        self.events
            .iter()
            .filter(|e| e["type"] == kind && subtype.is_none_or(|s| e["subtype"] == s))
            .collect()
    }
}

/// Runs `claude ARGS` against `standin` with the testkit's quiet environment.
pub fn run_against(claude: &PathBuf, standin: &Standin, args: &[&str]) -> Run {
    run_with(
        ClaudeCommand::for_standin(claude, &standin.base_url()).expect("temp HOME"),
        args,
        None,
    )
}

/// Runs a prepared command with `args` and optional stdin.
pub fn run_with(cmd: ClaudeCommand, args: &[&str], input: Option<&[u8]>) -> Run {
    let finished =
        run_bounded_with_input(cmd.command().args(args), input, RUN_LIMIT).expect("spawn claude");
    assert!(
        !finished.timed_out,
        "claude did not finish within {RUN_LIMIT:?}"
    );
    let events = finished.events();
    Run {
        finished,
        events,
        cmd,
    }
}

/// A reference capture's events: `tests/it/reference/NAME.jsonl`, or `captures/NAME.jsonl` (the
/// ones this crate made, see `captures/make.sh`).
pub fn reference(name: &str) -> Vec<Value> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let copied = root
        .join("tests/it/reference")
        .join(format!("{name}.jsonl"));
    let path = if copied.exists() {
        copied
    } else {
        root.join("captures").join(format!("{name}.jsonl"))
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    testkit::claude::parse_stream(text.as_bytes())
}

/// `type[/subtype]` of each event, `stream_event/<event type>` for partial messages.
pub fn shape(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| {
            let kind = e["type"].as_str().unwrap_or("?");
            match (kind, e["subtype"].as_str(), e["event"]["type"].as_str()) {
                ("stream_event", _, Some(inner)) => format!("stream_event/{inner}"),
                (_, Some(subtype), _) => format!("{kind}/{subtype}"),
                _ => kind.to_owned(),
            }
        })
        .collect()
}

/// Asserts `events` have the shape of a reference capture: the same `stream_event` sequence and
/// the same sequence of the other events. How the two interleave is left free: the CLI runs a
/// tool (and reports `permission_denied`) while the rest of the HTTP stream is still arriving,
/// so that order is a race, not part of the shape.
pub fn assert_shape_like(events: &[Value], reference_name: &str) {
    let (ours, theirs) = (shape(events), shape(&reference(reference_name)));
    let split = |s: &[String]| -> (Vec<String>, Vec<String>) {
        s.iter()
            .cloned()
            .partition(|k| k.starts_with("stream_event/"))
    };
    assert_eq!(
        split(&ours),
        split(&theirs),
        "shape differs from {reference_name}: {ours:?}"
    );
}

/// Top-level keys of an event, timing metrics left out.
pub fn keys(event: &Value) -> BTreeSet<String> {
    event
        .as_object()
        .map(|o| {
            o.keys()
                .filter(|k| !TIMING_KEYS.contains(&k.as_str()))
                .cloned()
                .collect()
        })
        .unwrap_or_default()
}

/// Asserts the result event has the same key set as the reference capture's result.
pub fn assert_result_keys_like(run: &Run, reference_name: &str) {
    let reference = reference(reference_name);
    let expected = keys(final_result(&reference).expect("reference has a result"));
    assert_eq!(
        keys(run.result()),
        expected,
        "result keys differ from {reference_name}"
    );
}

/// The user-typed text of the last user message of a messages request body.
pub fn last_user_text(body: &Value) -> String {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let Some(user) = messages.iter().rev().find(|m| m["role"] == "user") else {
        return String::new();
    };
    match &user["content"] {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}
