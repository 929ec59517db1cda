//! Fidelity of fake-claude: its built-in scenarios and the real claude 2.1.328's streams for the
//! same situation agree in event shapes, so the fake cannot drift from the real CLI unnoticed.
//!
//! For each pair, fake-claude runs with the argv the real capture was made with (so the gating
//! of `stream_event` lines on `--include-partial-messages` is checked too), and the two streams
//! are compared:
//! - the sequence of `stream_event` kinds (`event.type`), and separately the sequence of the other
//!   events' `(type, subtype)` (the real CLI interleaves the two by a race, see testkit/README.md);
//! - per event kind, the set of key paths at every depth (values ignored), and the order of the
//!   keys both have (the real CLI's key order differs between kinds, e.g. a success result
//!   starts with `duration_api_ms`, an error result with `type`).
//!
//! A mismatch names the scenario, the event and the keys that differ.
//!
//! `live_outputs_*` tests run the real CLI and fake-claude with the same argv for each output
//! format the adapter or a vendor may use besides stream-json (`text`, `json`, `json --verbose`)
//! and compare exit status, stderr, stdout's framing (trailing newline, line count), the text
//! exactly, and the JSON events as above.
//!
//! Real streams: `real/` holds copies of `shared/reference/claude-2.1.328/streams/` and of
//! `testkit/captures/` (each with the `.cmd` that made it). `live_*` tests also run the installed
//! real CLI against the Messages API stand-in and compare its live stream with the fake.

use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

use crate::support::fake_claude_bin;

/// The adapter's MCP-run options with and without partial messages (`testkit::argv`).
const PARTIAL: &[&str] = testkit::argv::STREAM_PARTIAL;
const PLAIN: &[&str] = testkit::argv::STREAM;

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

/// `flags`, `extra` and the prompt: the argv of a comparison.
fn argv<'a>(flags: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
    testkit::argv::with_prompt(flags, extra, "say hi")
}

/// fake-claude's `scenario` run with `args`, stdin /dev/null.
fn fake_run(scenario: &str, args: &[&str]) -> testkit::claude::Finished {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut cmd = Command::new(fake_claude_bin());
    cmd.args(args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", dir.path())
        .env("FAKE_CLAUDE_SCENARIO", scenario)
        .current_dir(dir.path())
        .process_group(0);
    let out = testkit::claude::run_bounded(&mut cmd, Duration::from_secs(30)).expect("run fake");
    assert!(!out.timed_out, "fake-claude {scenario} did not end");
    out
}

/// The stream fake-claude writes for `pair`.
fn fake_stream(pair: &Pair) -> Vec<Value> {
    testkit::claude::parse_stream(&fake_run(pair.scenario, &argv(pair.flags, pair.extra)).stdout)
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
        let mut paths = Vec::new();
        ordered_paths(e, "", &mut paths);
        m.entry(kind(e)).or_default().extend(paths);
    }
    m
}

/// Key paths per kind in document order (first event of each kind), for the order check.
fn key_orders(events: &[Value]) -> BTreeMap<String, Vec<String>> {
    let mut m: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for e in events {
        m.entry(kind(e)).or_insert_with(|| {
            let mut out = Vec::new();
            ordered_paths(e, "", &mut out);
            out
        });
    }
    m
}

/// The key paths of `v` in document order, each once, appended to `out`.
fn ordered_paths(v: &Value, prefix: &str, out: &mut Vec<String>) {
    match v {
        Value::Object(o) => {
            for (k, x) in o {
                let p = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                if !out.contains(&p) {
                    out.push(p.clone());
                }
                ordered_paths(x, &p, out);
            }
        }
        Value::Array(a) => {
            for x in a {
                ordered_paths(x, &format!("{prefix}[]"), out);
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
    let (ro, fo) = (key_orders(real), key_orders(fake));
    for (k, rpaths) in &ro {
        let Some(fpaths) = fo.get(k) else { continue };
        let shared = |a: &[String], b: &[String]| -> Vec<String> {
            a.iter().filter(|p| b.contains(p)).cloned().collect()
        };
        let (r, f) = (shared(rpaths, fpaths), shared(fpaths, rpaths));
        if r != f {
            let at = r.iter().zip(&f).position(|(a, b)| a != b).unwrap_or(0);
            out.push(format!(
                "{label}: event {k}: keys in another order from {:?}: real {:?}, fake {:?}",
                r[at],
                &r[at..],
                &f[at..]
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

    let mut reordered = real.clone();
    let result = reordered
        .iter_mut()
        .find(|e| e["type"] == "result")
        .and_then(Value::as_object_mut)
        .expect("a result event");
    let is_error = result.shift_remove("is_error").expect("is_error");
    result.insert("is_error".into(), is_error);
    let diffs = differences("scenario X vs real Y", &real, &reordered).join("\n");
    assert!(
        diffs.contains("event result/success: keys in another order from \"is_error\""),
        "{diffs}"
    );
}

/// How a live run of the real CLI is set up.
#[derive(Clone, Copy)]
enum Live {
    /// Against the stand-in with this default scenario.
    Standin(testkit::standin::Scenario),
    /// No base URL, no key.
    NoAccount,
}

/// Runs the installed real CLI live once per argv of `argvs`, all against one stand-in (or none).
/// `None` when the CLI is not installed outside CI (the test then skips).
fn real_runs(live: Live, argvs: &[Vec<&str>]) -> Option<Vec<testkit::claude::Finished>> {
    let claude = testkit::prereq::require(testkit::prereq::claude())?;
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
    let runs = argvs
        .iter()
        .map(|args| {
            let mut c = cmd.command();
            c.args(args);
            let out =
                testkit::claude::run_bounded(&mut c, Duration::from_secs(120)).expect("run claude");
            assert!(
                !out.timed_out,
                "the real CLI did not end: {}",
                out.stderr_text()
            );
            out
        })
        .collect();
    Some(runs)
}

/// Runs the installed real CLI live with `pair`'s argv and compares its stream with the fake's.
fn check_live(pair: &Pair, live: Live) {
    let Some(mut runs) = real_runs(live, &[argv(pair.flags, pair.extra)]) else {
        return;
    };
    let out = runs.remove(0);
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

/// The output formats besides stream-json: text (also with `--verbose`, which changes nothing
/// there), json, and json with `--verbose` (one array).
const FORMATS: [&[&str]; 4] = [
    &["-p", "--permission-mode", "dontAsk"],
    &["-p", "--verbose", "--permission-mode", "dontAsk"],
    &[
        "-p",
        "--output-format",
        "json",
        "--permission-mode",
        "dontAsk",
    ],
    &[
        "-p",
        "--output-format",
        "json",
        "--verbose",
        "--permission-mode",
        "dontAsk",
    ],
];

/// JSON lines of `stdout`, an array's elements in its place.
fn json_values(stdout: &[u8]) -> Vec<Value> {
    testkit::claude::parse_stream(stdout)
        .into_iter()
        .flat_map(|v| match v {
            Value::Array(a) => a,
            other => vec![other],
        })
        .collect()
}

/// For each of [`FORMATS`], the real CLI live and fake-claude's `scenario` with the same argv:
/// the same exit status, the same stderr, stdout framed alike (lines, trailing newline), text
/// equal, and JSON events of the same kinds, keys and key order.
fn check_live_formats(scenario: &str, live: Live, extra: &[&str]) {
    let argvs: Vec<Vec<&str>> = FORMATS.iter().map(|f| argv(f, extra)).collect();
    let Some(real) = real_runs(live, &argvs) else {
        return;
    };
    let mut diffs = Vec::new();
    for (args, real) in argvs.iter().zip(&real) {
        let fake = fake_run(scenario, args);
        let label = format!("fake-claude scenario {scenario} vs a live real run of {args:?}");
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        let (rout, fout) = (text(&real.stdout), text(&fake.stdout));
        if real.status.code() != fake.status.code() {
            diffs.push(format!(
                "{label}: exit {:?}, fake {:?}",
                real.status.code(),
                fake.status.code()
            ));
        }
        if real.stderr != fake.stderr {
            diffs.push(format!(
                "{label}: stderr {:?}, fake {:?}",
                real.stderr_text(),
                fake.stderr_text()
            ));
        }
        if rout.lines().count() != fout.lines().count()
            || rout.ends_with('\n') != fout.ends_with('\n')
        {
            diffs.push(format!(
                "{label}: stdout framed otherwise: real {:?}, fake {:?}",
                rout.chars().take(300).collect::<String>(),
                fout.chars().take(300).collect::<String>()
            ));
        }
        if args.contains(&"json") {
            diffs.extend(differences(
                &label,
                &json_values(&real.stdout),
                &json_values(&fake.stdout),
            ));
        } else if rout != fout {
            diffs.push(format!("{label}: text {rout:?}, fake {fout:?}"));
        }
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// `--input-format stream-json` with two user lines: the real CLI answers both turns in one
/// session, and so does the fake (same kinds, keys and key order; same exit status).
#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn live_stream_json_input_turns_agree() {
    let args = [
        "-p",
        "--input-format",
        "stream-json",
        "--output-format",
        "stream-json",
        "--verbose",
    ];
    let line = |t: &str| {
        format!(
            "{}\n",
            serde_json::json!({"type": "user", "message": {"role": "user", "content": t}})
        )
    };
    let input = format!("{}{}", line("say hi"), line("say hi again"));
    let Some(claude) = testkit::prereq::require(testkit::prereq::claude()) else {
        return;
    };
    let standin =
        testkit::standin::Standin::start(testkit::standin::Scenario::Turns).expect("stand-in");
    let cmd =
        testkit::claude::ClaudeCommand::for_standin(&claude, &standin.base_url()).expect("HOME");
    let mut c = cmd.command();
    c.args(args);
    let real = testkit::claude::run_bounded_with_input(
        &mut c,
        Some(input.as_bytes()),
        Duration::from_secs(120),
    )
    .expect("run claude");
    let dir = tempfile::tempdir().expect("temp dir");
    let mut f = Command::new(fake_claude_bin());
    f.args(args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", dir.path())
        .current_dir(dir.path())
        .process_group(0);
    let fake = testkit::claude::run_bounded_with_input(
        &mut f,
        Some(input.as_bytes()),
        Duration::from_secs(30),
    )
    .expect("run fake");
    let (r, f) = (real.events(), fake.events());
    let diffs = differences(
        "fake-claude success per turn vs two live real turns",
        &r,
        &f,
    );
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
    assert_eq!(real.status.code(), fake.status.code());
    assert_eq!(
        r.iter().filter(|e| e["type"] == "result").count(),
        2,
        "two turns, two results"
    );
}

/// `--model` as the real CLI reports it in `init` (aliases resolved) and as the fake does.
#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn live_model_names_agree() {
    let models = [
        "sonnet",
        "opus[1m]",
        "opusplan",
        "haiku",
        "fable",
        "claude-sonnet-4-5",
    ];
    let argvs: Vec<Vec<&str>> = models
        .iter()
        .map(|m| argv(&[PLAIN, &["--model", m]].concat(), &[]))
        .collect();
    let Some(real) = real_runs(Live::Standin(testkit::standin::Scenario::Text), &argvs) else {
        return;
    };
    let init_model = |out: &testkit::claude::Finished| {
        out.events()
            .into_iter()
            .find(|e| e["subtype"] == "init")
            .map(|e| e["model"].clone())
    };
    for ((model, args), real) in models.iter().zip(&argvs).zip(&real) {
        assert_eq!(
            init_model(&fake_run("success", args)),
            init_model(real),
            "--model {model}"
        );
    }
}

macro_rules! live_formats {
    ($($test:ident: $scenario:literal ~ $live:expr, $extra:expr;)*) => {
        $(
            #[test]
            #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
            fn $test() {
                check_live_formats($scenario, $live, $extra);
            }
        )*
    };
}

live_formats! {
    live_outputs_of_success_agree_per_format:
        "success" ~ Live::Standin(testkit::standin::Scenario::Text), &[];
    live_outputs_of_a_denied_tool_agree_per_format:
        "tool-denied" ~ Live::Standin(testkit::standin::Scenario::Tool), &[];
    live_outputs_of_an_allowed_tool_agree_per_format:
        "tool-allowed" ~ Live::Standin(testkit::standin::Scenario::ToolEcho), &[];
    live_outputs_of_an_api_error_agree_per_format:
        "is-error-success"
            ~ Live::Standin(testkit::standin::Scenario::HttpError(
                testkit::standin::ApiError::Authentication,
            )),
            &[];
    live_outputs_of_max_turns_agree_per_format:
        "max-turns" ~ Live::Standin(testkit::standin::Scenario::ToolLoop), &["--max-turns", "1"];
    live_outputs_of_an_unknown_resume_agree_per_format:
        "unknown-resume" ~ Live::Standin(testkit::standin::Scenario::Text),
            &["--resume", "99999999-2222-4333-8444-555555555555"];
    live_outputs_of_no_account_agree_per_format:
        "not-logged-in" ~ Live::NoAccount, &[];
}

macro_rules! live_pairs {
    ($($test:ident: $scenario:literal ~ $live:expr, $flags:expr, $extra:expr;)*) => {
        $(
            #[test]
            #[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
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
