//! Fidelity of fake-claude: its built-in scenarios and the real claude 2.1.328's streams for the
//! same situation agree in event shapes, so the fake cannot drift from the real CLI unnoticed.
//!
//! For each pair, fake-claude runs with the argv the real capture was made with (so the gating
//! of `stream_event` lines on `--include-partial-messages` is checked too), and the two streams
//! are compared:
//! - the sequence of `stream_event` kinds (`event.type`), and separately the sequence of the other
//!   events' `(type, subtype)` (the real CLI interleaves the two by a race, see testkit/README.md);
//! - per event kind, the set of key paths at every depth (values ignored).
//!
//! A mismatch names the scenario, the event and the keys that differ.
//!
//! Real streams: `real/` holds copies of `shared/reference/claude-2.1.328/streams/` and of
//! `testkit/captures/` (each with the `.cmd` that made it). `live_*` tests also run the installed
//! real CLI against the Messages API stand-in and compare its live stream with the fake.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::support::fake_claude_bin;

const PARTIAL: &[&str] = &[
    "-p",
    "--output-format",
    "stream-json",
    "--verbose",
    "--include-partial-messages",
    "--permission-mode",
    "dontAsk",
];
const PLAIN: &[&str] = &[
    "-p",
    "--output-format",
    "stream-json",
    "--verbose",
    "--permission-mode",
    "dontAsk",
];

/// The real stream `file` (in `real/`) and fake-claude's `scenario` for the same situation, run
/// with `flags` (the capture's) followed by `extra` and the prompt.
struct Pair {
    scenario: &'static str,
    file: &'static str,
    flags: &'static [&'static str],
    extra: &'static [&'static str],
}

fn real_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/fidelity/real")
}

/// The stream fake-claude writes for `pair`.
fn fake_stream(pair: &Pair) -> Vec<Value> {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut cmd = Command::new(fake_claude_bin());
    cmd.args(pair.flags)
        .args(pair.extra)
        .args(["--", "say hi"])
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", dir.path())
        .env("FAKE_CLAUDE_SCENARIO", pair.scenario)
        .current_dir(dir.path())
        .stdin(Stdio::null());
    let out = testkit::claude::run_bounded(&mut cmd, Duration::from_secs(30)).expect("run fake");
    assert!(!out.timed_out, "fake-claude {} did not end", pair.scenario);
    testkit::claude::parse_stream(&out.stdout)
}

fn read_stream(path: &Path) -> Vec<Value> {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    testkit::claude::parse_stream(text.as_bytes())
}

/// An event's kind: `type/subtype`, or `stream_event/<event.type>`.
fn kind(e: &Value) -> String {
    let ty = e["type"].as_str().unwrap_or("?");
    if ty == "stream_event" {
        return format!(
            "stream_event/{}",
            e["event"]["type"].as_str().unwrap_or("?")
        );
    }
    match e["subtype"].as_str() {
        Some(s) => format!("{ty}/{s}"),
        None => ty.to_owned(),
    }
}

/// Key paths per kind, at every depth (`usage.server_tool_use.web_search_requests`; array
/// elements as `[]`, so `message.content[].type`), values ignored.
fn shapes(events: &[Value]) -> BTreeMap<String, BTreeSet<String>> {
    let mut m: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for e in events {
        key_paths(e, "", m.entry(kind(e)).or_default());
    }
    m
}

fn key_paths(v: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(o) => {
            for (k, x) in o {
                let p = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                key_paths(x, &p, out);
                out.insert(p);
            }
        }
        Value::Array(a) => {
            for x in a {
                key_paths(x, &format!("{prefix}[]"), out);
            }
        }
        _ => {}
    }
}

/// Everything that differs between a real and a fake stream, as readable lines.
fn differences(label: &str, real: &[Value], fake: &[Value]) -> Vec<String> {
    let mut out = Vec::new();
    let split = |s: &[Value]| -> (Vec<String>, Vec<String>) {
        let (streamed, other): (Vec<&Value>, Vec<&Value>) =
            s.iter().partition(|e| e["type"] == "stream_event");
        (
            streamed.into_iter().map(kind).collect(),
            other.into_iter().map(kind).collect(),
        )
    };
    let (real_streamed, real_other) = split(real);
    let (fake_streamed, fake_other) = split(fake);
    for (what, r, f) in [
        ("events other than stream_event", &real_other, &fake_other),
        ("stream_event sequence", &real_streamed, &fake_streamed),
    ] {
        if r != f {
            let at = r
                .iter()
                .zip(f.iter())
                .position(|(a, b)| a != b)
                .unwrap_or(r.len().min(f.len()));
            out.push(format!(
                "{label}: {what} differ at event #{}: real {:?}, fake {:?}\n  real: {r:?}\n  fake: {f:?}",
                at + 1,
                r.get(at),
                f.get(at)
            ));
        }
    }
    let (rs, fs) = (shapes(real), shapes(fake));
    for (k, rkeys) in &rs {
        let Some(fkeys) = fs.get(k) else { continue };
        let only_real: Vec<&String> = rkeys.difference(fkeys).collect();
        let only_fake: Vec<&String> = fkeys.difference(rkeys).collect();
        if !only_real.is_empty() || !only_fake.is_empty() {
            out.push(format!(
                "{label}: event {k}: keys only in the real stream {only_real:?}, only in the \
                 fake {only_fake:?}"
            ));
        }
    }
    out
}

fn check_pair(pair: &Pair) {
    let real = read_stream(&real_dir().join(pair.file));
    assert!(!real.is_empty(), "{} holds no events", pair.file);
    let fake = fake_stream(pair);
    let label = format!(
        "fake-claude scenario {} vs real {}",
        pair.scenario, pair.file
    );
    let diffs = differences(&label, &real, &fake);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

macro_rules! pairs {
    ($($test:ident: $scenario:literal ~ $file:literal, $flags:expr, $extra:expr;)*) => {
        $(
            #[test]
            fn $test() {
                check_pair(&Pair {
                    scenario: $scenario,
                    file: $file,
                    flags: $flags,
                    extra: $extra,
                });
            }
        )*
    };
}

pairs! {
    fake_success_has_the_shape_of_the_real_success_stream:
        "success" ~ "mock-stream.jsonl", PARTIAL, &[];
    fake_is_error_success_has_the_shape_of_the_real_401_stream:
        "is-error-success" ~ "mock-401-r1.jsonl", PARTIAL, &[];
    fake_is_error_success_has_the_shape_of_the_real_429_stream:
        "is-error-success" ~ "mock-429-r1.jsonl", PLAIN, &[];
    fake_not_logged_in_has_the_shape_of_the_real_stream:
        "not-logged-in" ~ "run-stream.jsonl", PARTIAL, &[];
    fake_not_logged_in_json_has_the_shape_of_the_real_json_result:
        "not-logged-in" ~ "run-json.jsonl", &["-p", "--output-format", "json", "--permission-mode", "dontAsk"], &[];
    fake_max_turns_has_the_shape_of_the_real_max_turns_stream:
        "max-turns" ~ "mock-max-turns.jsonl", PLAIN, &["--max-turns", "1"];
    fake_error_subtype_has_the_shape_of_the_real_max_turns_stream:
        "error-subtype" ~ "mock-max-turns.jsonl", PLAIN, &["--max-turns", "1"];
    fake_tool_denied_has_the_shape_of_the_real_denied_tool_stream:
        "tool-denied" ~ "mock-tool-deny-partial.jsonl", PARTIAL, &[];
    fake_tool_allowed_has_the_shape_of_the_real_allowed_tool_stream:
        "tool-allowed" ~ "mock-tool-dontask.jsonl", PLAIN, &[];
    fake_tool_allowed_has_the_shape_of_the_real_allowed_tool_partial_stream:
        "tool-allowed" ~ "mock-tool-dontask-partial.jsonl", PARTIAL, &[];
    fake_max_turns_has_the_shape_of_the_real_max_turns_partial_stream:
        "max-turns" ~ "mock-max-turns-partial.jsonl", PARTIAL, &["--max-turns", "1"];
    fake_error_subtype_has_the_shape_of_the_real_max_turns_partial_stream:
        "error-subtype" ~ "mock-max-turns-partial.jsonl", PARTIAL, &["--max-turns", "1"];
    fake_unknown_resume_has_the_shape_of_the_real_unknown_resume_stream:
        "unknown-resume" ~ "resume-unknown.jsonl", PLAIN, &["--resume", "99999999-2222-4333-8444-555555555555"];
}

/// The comparison itself can fail: a fake stream missing a key, or with an extra event, is
/// reported with the scenario, the event and the keys.
#[test]
fn a_shape_difference_is_reported_with_scenario_event_and_keys() {
    let real = read_stream(&real_dir().join("mock-stream.jsonl"));
    let mut fake = real.clone();
    let result = fake
        .iter_mut()
        .find(|e| e["type"] == "result")
        .and_then(Value::as_object_mut)
        .expect("a result event");
    result.remove("permission_denials");
    result.insert("made_up".into(), Value::Bool(true));
    fake.insert(
        1,
        serde_json::json!({"type": "system", "subtype": "invented"}),
    );
    let diffs = differences("scenario X vs real Y", &real, &fake).join("\n");
    assert!(diffs.contains("scenario X vs real Y"), "{diffs}");
    assert!(diffs.contains("event result/success"), "{diffs}");
    assert!(
        diffs.contains("\"permission_denials\"") && diffs.contains("\"made_up\""),
        "{diffs}"
    );
    assert!(diffs.contains("system/invented"), "{diffs}");
}

/// How a live run of the real CLI is set up.
#[derive(Clone, Copy)]
enum Live {
    /// Against the stand-in with this default scenario.
    Standin(testkit::standin::Scenario),
    /// No base URL, no key.
    NoAccount,
}

/// Runs the installed real CLI live with `pair`'s argv and compares its stream with the fake's.
fn check_live(pair: &Pair, live: Live) {
    let claude = testkit::require_prereq!(testkit::prereq::claude());
    let _standin;
    let cmd = match live {
        Live::Standin(s) => {
            let standin = testkit::standin::Standin::start(s).expect("stand-in");
            let cmd = testkit::claude::ClaudeCommand::for_standin(&claude, &standin.base_url())
                .expect("HOME");
            _standin = standin;
            cmd
        }
        Live::NoAccount => testkit::claude::ClaudeCommand::not_logged_in(&claude).expect("HOME"),
    };
    let mut c = cmd.command();
    c.args(pair.flags).args(pair.extra).args(["--", "say hi"]);
    let out = testkit::claude::run_bounded(&mut c, Duration::from_secs(120)).expect("run claude");
    assert!(
        !out.timed_out,
        "the real CLI did not end: {}",
        out.stderr_text()
    );
    let real = out.events();
    assert!(
        !real.is_empty(),
        "the real CLI wrote no events: {}",
        out.stderr_text()
    );
    let fake = fake_stream(pair);
    let label = format!("fake-claude scenario {} vs a live real run", pair.scenario);
    let diffs = differences(&label, &real, &fake);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

macro_rules! live_pairs {
    ($($test:ident: $scenario:literal ~ $live:expr, $flags:expr, $extra:expr;)*) => {
        $(
            #[test]
            fn $test() {
                check_live(
                    &Pair { scenario: $scenario, file: "", flags: $flags, extra: $extra },
                    $live,
                );
            }
        )*
    };
}

live_pairs! {
    live_real_success_has_the_shape_of_fake_success:
        "success" ~ Live::Standin(testkit::standin::Scenario::Text), PARTIAL, &[];
    live_real_denied_tool_has_the_shape_of_fake_tool_denied:
        "tool-denied" ~ Live::Standin(testkit::standin::Scenario::Tool), PARTIAL, &[];
    live_real_api_error_has_the_shape_of_fake_is_error_success:
        "is-error-success"
            ~ Live::Standin(testkit::standin::Scenario::HttpError(
                testkit::standin::ApiError::Authentication,
            )),
            PARTIAL, &[];
    live_real_max_turns_has_the_shape_of_fake_max_turns:
        "max-turns" ~ Live::Standin(testkit::standin::Scenario::ToolLoop), PLAIN, &["--max-turns", "1"];
    live_real_max_turns_partial_has_the_shape_of_fake_max_turns:
        "max-turns" ~ Live::Standin(testkit::standin::Scenario::ToolLoop), PARTIAL, &["--max-turns", "1"];
    live_real_allowed_tool_partial_has_the_shape_of_fake_tool_allowed:
        "tool-allowed" ~ Live::Standin(testkit::standin::Scenario::ToolEcho), PARTIAL, &[];
    live_real_unknown_resume_has_the_shape_of_fake_unknown_resume:
        "unknown-resume" ~ Live::Standin(testkit::standin::Scenario::Text),
            PLAIN, &["--resume", "99999999-2222-4333-8444-555555555555"];
    live_real_not_logged_in_has_the_shape_of_fake_not_logged_in:
        "not-logged-in" ~ Live::NoAccount, PARTIAL, &[];
}
