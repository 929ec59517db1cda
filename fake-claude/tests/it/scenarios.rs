//! Built-in scenarios: each produces the documented stream and exit status; those copied from
//! real captures reproduce them line for line (same keys in the same order, same values) once
//! the values that differ per run are masked.

use serde_json::Value;

use crate::{crate_dir, fake, json_lines, kinds, run_scenario};
use testkit::argv::{STREAM, STREAM_PARTIAL};

/// Keys whose values differ between runs (ids, clock, machine paths).
const VOLATILE: &[&str] = &[
    "session_id",
    "uuid",
    "timestamp",
    "cwd",
    "original_cwd",
    "memory_paths",
    "messaging_socket_path",
    "hook_id",
];

fn mask(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        if VOLATILE.contains(&k.as_str()) {
                            Value::from("<masked>")
                        } else {
                            mask(v)
                        },
                    )
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(mask).collect()),
        other => other.clone(),
    }
}

fn capture(name: &str) -> Vec<String> {
    let text = std::fs::read_to_string(crate_dir().join("tests/fixtures/streams").join(name))
        .expect("capture");
    text.lines()
        .map(|l| mask(&serde_json::from_str(l).expect("capture json")).to_string())
        .collect()
}

fn run(scenario: &str, args: &[&str]) -> std::process::Output {
    let dir = tempfile::tempdir().expect("tempdir");
    fake(dir.path())
        .args(args)
        .arg("--")
        .arg(format!("fake-claude:scenario={scenario}\nsay hi"))
        .output()
        .expect("run fake")
}

fn assert_reproduces(scenario: &str, args: &[&str], capture_file: &str, code: i32) {
    let out = run(scenario, args);
    let got: Vec<String> = json_lines(&out.stdout)
        .iter()
        .map(|v| mask(v).to_string())
        .collect();
    let want = capture(capture_file);
    assert_eq!(got.len(), want.len(), "{scenario}: line count");
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(
            g,
            w,
            "{scenario}: line {} differs from {capture_file}",
            i + 1
        );
    }
    assert_eq!(out.status.code(), Some(code), "{scenario}: exit status");
    assert!(
        out.stderr.is_empty(),
        "{scenario}: stderr {:?}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Keys whose values a second capture of the same situation changes besides [`VOLATILE`]: API
/// message and tool ids, and the clock.
const PER_CAPTURE: &[&str] = &[
    "id",
    "api_message_id",
    "tool_use_id",
    "ttft_ms",
    "duration_ms",
    "duration_api_ms",
    "ttft_stream_ms",
    "time_to_request_ms",
    "first_content_frame_ms",
];

/// The same keys at every depth, in the same order, with the same values except ids and timings.
fn same_but_ids(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| {
                    let x = if PER_CAPTURE.contains(&k.as_str()) {
                        Value::from("<per capture>")
                    } else {
                        same_but_ids(x)
                    };
                    (k.clone(), x)
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(same_but_ids).collect()),
        other => other.clone(),
    }
}

/// A scenario holding the lines of two captures (one without, one with
/// `--include-partial-messages`) shows the second one's lines in its order: the partial lines
/// (`stream_event`, `system/status`) equal, ids and timings aside; the others are the first
/// capture's (checked by [`assert_reproduces`]; the second was made with testkit's quiet
/// environment, which changes values of `init`), so only their kind is compared here.
fn assert_same_lines_as(scenario: &str, args: &[&str], capture_file: &str) {
    let out = run(scenario, args);
    let got = json_lines(&out.stdout);
    let want: Vec<Value> = capture(capture_file)
        .iter()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    assert_eq!(kinds(&got), kinds(&want), "{scenario} vs {capture_file}");
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        if w["type"] == "stream_event" || w["subtype"] == "status" {
            assert_eq!(
                same_but_ids(&mask(g)),
                same_but_ids(w),
                "{scenario}: line {} differs from {capture_file}",
                i + 1
            );
        }
    }
}

/// Inside one stream the partial lines name the assistant message they build (`api_message_id`,
/// `message_start`'s id) and the tool call they stream, as in the real captures.
#[test]
fn partial_lines_name_the_messages_and_tools_of_their_stream() {
    for name in ["success", "tool-allowed", "tool-denied", "max-turns"] {
        let events = json_lines(&run(name, STREAM_PARTIAL).stdout);
        let message_ids: Vec<&Value> = events
            .iter()
            .filter(|e| e["type"] == "assistant")
            .map(|e| &e["message"]["id"])
            .collect();
        let tool_ids: Vec<&Value> = events
            .iter()
            .filter(|e| e["type"] == "assistant")
            .filter_map(|e| e["message"]["content"].as_array())
            .flatten()
            .filter(|b| b["type"] == "tool_use")
            .map(|b| &b["id"])
            .collect();
        let streamed: Vec<&Value> = events
            .iter()
            .filter(|e| e["type"] == "stream_event")
            .collect();
        assert!(!streamed.is_empty(), "{name}: partial lines");
        for e in streamed {
            let named = e
                .get("api_message_id")
                .unwrap_or(&e["event"]["message"]["id"]);
            assert!(message_ids.contains(&named), "{name}: {e}");
            if let Some(block) = e["event"].get("content_block")
                && block["type"] == "tool_use"
            {
                assert!(tool_ids.contains(&&block["id"]), "{name}: {e}");
            }
        }
    }
}

#[test]
fn success_reproduces_the_real_mock_stream() {
    assert_reproduces("success", STREAM_PARTIAL, "mock-stream.jsonl", 0);
}

#[test]
fn is_error_success_reproduces_the_real_api_error() {
    assert_reproduces("is-error-success", STREAM_PARTIAL, "mock-401-r1.jsonl", 1);
}

#[test]
fn not_logged_in_reproduces_the_real_stream_and_json_outputs() {
    assert_reproduces("not-logged-in", STREAM_PARTIAL, "run-stream.jsonl", 1);
    assert_reproduces(
        "not-logged-in",
        &[
            "-p",
            "--output-format",
            "json",
            "--permission-mode",
            "dontAsk",
        ],
        "run-json.jsonl",
        1,
    );
    let out = run("not-logged-in", &["-p"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "Not logged in \u{b7} Please run /login\n"
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn max_turns_and_error_subtype_reproduce_the_real_error_max_turns() {
    for name in ["max-turns", "error-subtype"] {
        assert_reproduces(name, STREAM, "mock-max-turns.jsonl", 1);
        assert_same_lines_as(name, STREAM_PARTIAL, "mock-max-turns-partial.jsonl");
        let last = json_lines(&run(name, STREAM).stdout).pop().expect("final");
        assert_eq!(last["subtype"], "error_max_turns");
        assert!(
            last.get("result").is_none(),
            "an error subtype final carries no result string"
        );
        let text = run(name, &["-p"]);
        assert_eq!(
            String::from_utf8_lossy(&text.stdout),
            "Error: Reached max turns (1)",
            "errors.md text output, without a newline (probed: only a success text gets one)"
        );
    }
}

#[test]
fn tool_scenarios_reproduce_the_real_tool_runs() {
    assert_reproduces(
        "tool-denied",
        STREAM_PARTIAL,
        "mock-tool-deny-partial.jsonl",
        0,
    );
    assert_reproduces("tool-allowed", STREAM, "mock-tool-dontask.jsonl", 0);
    assert_same_lines_as(
        "tool-allowed",
        STREAM_PARTIAL,
        "mock-tool-dontask-partial.jsonl",
    );
    let last = json_lines(&run("tool-denied", STREAM).stdout)
        .pop()
        .expect("final");
    assert_eq!(last["permission_denials"][0]["tool_name"], "Bash");
}

#[test]
fn unknown_resume_answers_like_the_real_cli() {
    let id = "99999999-2222-4333-8444-555555555555";
    let mut args = STREAM.to_vec();
    args.extend(["--resume", id]);
    assert_reproduces_with_stderr(&args, id);
    // json and text output: nothing on stdout, same stderr (probed on the real CLI).
    for fmt in ["json", "text"] {
        let out = run(
            "unknown-resume",
            &["-p", "--output-format", fmt, "--resume", id],
        );
        assert!(out.stdout.is_empty(), "{fmt}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!("No conversation found with session ID: {id}\n")
        );
        assert_eq!(out.status.code(), Some(1));
    }
}

fn assert_reproduces_with_stderr(args: &[&str], id: &str) {
    let out = run("unknown-resume", args);
    let lines = json_lines(&out.stdout);
    assert_eq!(lines.len(), 1);
    assert_eq!(
        mask(&lines[0]).to_string(),
        capture("unknown-resume.jsonl")[0]
    );
    assert_eq!(
        lines[0]["session_id"], id,
        "the result names the resumed id"
    );
    let real =
        std::fs::read_to_string(crate_dir().join("tests/fixtures/streams/unknown-resume.stderr"))
            .expect("stderr");
    assert_eq!(String::from_utf8_lossy(&out.stderr), real);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn hooks_before_init_reproduce_the_real_hook_lines() {
    let out = run("hooks-before-init", STREAM);
    let got: Vec<String> = json_lines(&out.stdout)
        .iter()
        .map(|v| mask(v).to_string())
        .collect();
    assert_eq!(got[..2], capture("hooks-before-init.jsonl")[..2]);
    assert_eq!(
        kinds(&json_lines(&out.stdout))[2],
        "system/init",
        "OUT-5: hook lines come before init"
    );
    assert_eq!(out.status.code(), Some(0));
}

fn stdout_lines(out: &std::process::Output) -> Vec<&[u8]> {
    out.stdout
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn failure_shaped_scenarios_end_as_documented() {
    let cases: &[(&str, &[&str], i32)] = &[
        (
            "nonzero-exit",
            &["system/init", "assistant", "result/success"],
            3,
        ),
        ("missing-final", &["system/init", "assistant"], 0),
        (
            "duplicate-final",
            &[
                "system/init",
                "assistant",
                "result/success",
                "result/success",
            ],
            0,
        ),
        (
            "final-without-session-id",
            &["system/init", "assistant", "result/success"],
            0,
        ),
        (
            "final-without-result",
            &["system/init", "assistant", "result/success"],
            0,
        ),
    ];
    for (name, want, code) in cases {
        let out = run_scenario(name);
        assert_eq!(kinds(&json_lines(&out.stdout)), *want, "{name}");
        assert_eq!(out.status.code(), Some(*code), "{name}");
    }
    let last = |name: &str| json_lines(&run_scenario(name).stdout).pop().expect("final");
    assert!(last("final-without-session-id").get("session_id").is_none());
    let no_result = last("final-without-result");
    assert!(no_result.get("result").is_none());
    assert_eq!(no_result["is_error"], false);
}

#[test]
fn malformed_final_ends_with_a_line_that_is_not_json() {
    let out = run_scenario("malformed-final");
    let lines = stdout_lines(&out);
    assert_eq!(lines.len(), 3);
    assert!(serde_json::from_slice::<Value>(lines[2]).is_err());
    assert!(lines[2].starts_with(b"{\"duration_api_ms\""));
    assert_eq!(out.status.code(), Some(0));
}

/// The sized line: exact length, valid JSON, `type` the last key.
fn assert_sized(line: &[u8], bytes: usize, kind: &str) -> Value {
    assert_eq!(line.len(), bytes);
    assert!(
        line.ends_with(format!(",\"type\":\"{kind}\"}}").as_bytes()),
        "type is last"
    );
    serde_json::from_slice(line).expect("valid JSON")
}

#[test]
fn oversized_lines_have_exact_sizes_with_type_last() {
    let out = run_scenario("oversized-event");
    let lines = stdout_lines(&out);
    let big = assert_sized(lines[1], 1_114_112, "assistant");
    assert!(lines[1].len() > 1 << 20, "BND-1: over 1 MiB");
    assert!(
        big["message"]["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.len() > 1_000_000)
    );
    assert_eq!(
        kinds(&json_lines(lines[2..].join(&b'\n').as_slice())),
        ["assistant", "result/success"]
    );
    assert_eq!(out.status.code(), Some(0));

    let out = run_scenario("oversized-final");
    let last = *stdout_lines(&out).last().expect("final");
    let fin = assert_sized(last, 262_144, "result");
    assert!(
        ((128 << 10) + 1..1 << 20).contains(&last.len()),
        "BND-3: between 128 KiB and 1 MiB"
    );
    assert_eq!(
        (fin["subtype"].as_str(), fin["is_error"].as_bool()),
        (Some("success"), Some(false))
    );
    assert!(fin["session_id"].as_str().is_some_and(|s| s.len() == 36));
    assert_eq!(out.status.code(), Some(0));

    let out = run_scenario("huge-final");
    let last = *stdout_lines(&out).last().expect("final");
    assert_sized(last, 1_572_864, "result");
    assert!(last.len() > 1 << 20);
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn many_events_emits_300_events_then_success() {
    let out = run_scenario("many-events");
    let events = json_lines(&out.stdout);
    assert_eq!(events.len(), 302);
    assert_eq!(events[1]["message"]["content"][0]["text"], "chunk 0");
    assert_eq!(events[300]["message"]["content"][0]["text"], "chunk 299");
    assert_eq!(kinds(&events)[301], "result/success");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn stderr_noise_fills_stderr_and_still_succeeds() {
    let out = run_scenario("stderr-noise");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 3000);
    assert!(out.stderr.len() > 200_000);
    assert_eq!(
        kinds(&json_lines(&out.stdout)).last().map(String::as_str),
        Some("result/success")
    );
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn slow_stream_spaces_its_events() {
    let start = std::time::Instant::now();
    let out = run_scenario("slow-stream");
    // Seven 300 ms pauses: a lower bound only (sleeps never end early).
    assert!(start.elapsed() >= std::time::Duration::from_millis(2100));
    assert_eq!(
        kinds(&json_lines(&out.stdout)).last().map(String::as_str),
        Some("result/success")
    );
}

#[test]
fn die_by_signal_scenarios_die_mid_stream() {
    use std::os::unix::process::ExitStatusExt as _;
    for (name, sig) in [("die-by-signal", 9), ("die-by-sigsegv", 11)] {
        let out = run_scenario(name);
        assert_eq!(out.status.signal(), Some(sig), "{name}");
        assert_eq!(
            kinds(&json_lines(&out.stdout)),
            ["system/init", "assistant"],
            "{name}"
        );
    }
}

#[test]
fn flood_writes_the_requested_mebibytes_of_valid_lines() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = fake(dir.path())
        .args(crate::stream_args("fake-claude:scenario=flood"))
        .env("FAKE_CLAUDE_FLOOD_MIB", "32")
        .output()
        .expect("run");
    let lines = stdout_lines(&out);
    let flood: usize = lines[1..lines.len() - 2].iter().map(|l| l.len() + 1).sum();
    assert!(
        (32 << 20..(32 << 20) + 8192).contains(&flood),
        "flood bytes {flood}"
    );
    for l in [lines[1], lines[lines.len() / 2], lines[lines.len() - 3]] {
        assert_eq!(
            serde_json::from_slice::<Value>(l).expect("valid")["type"],
            "assistant"
        );
    }
    assert_eq!(
        kinds(&json_lines(lines[lines.len() - 1])),
        ["result/success"]
    );
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn every_scenario_file_parses_and_is_reachable_by_name() {
    let dir = crate_dir().join("scenarios");
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("scenarios dir") {
        let path = entry.expect("entry").path();
        if path.file_name().is_some_and(|n| n == "fragments") && path.is_dir() {
            // Shared events (`emit_fragment`), not scenarios: checked below.
            continue;
        }
        assert_eq!(
            path.extension().and_then(|e| e.to_str()),
            Some("json"),
            "only .json files and fragments/: {}",
            path.display()
        );
        let doc: Value =
            serde_json::from_slice(&std::fs::read(&path).expect("read")).expect("valid JSON");
        assert!(
            doc["description"].as_str().is_some_and(|d| d.len() > 20),
            "{}: description",
            path.display()
        );
        names.push(
            path.file_stem()
                .and_then(|s| s.to_str())
                .expect("name")
                .to_owned(),
        );
    }
    assert!(names.len() >= 30);
    let tmp = tempfile::tempdir().expect("tempdir");
    for name in names {
        let out = fake(tmp.path())
            .args(["-p", "--", &format!("fake-claude:scenario={name}")])
            .env("FAKE_CLAUDE_DRY_RUN", "1")
            .output()
            .expect("run");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{name}: {stderr}");
        assert!(
            stderr.starts_with(&format!("fake-claude: dry run: scenario {name} (")),
            "{name}: {stderr}"
        );
    }
}

#[test]
fn builtin_scenarios_leave_no_placeholder_unfilled() {
    let tmp = tempfile::tempdir().expect("tempdir");
    for name in [
        "success",
        "tool-denied",
        "is-error-success",
        "hooks-before-init",
        "many-events",
        "not-logged-in",
    ] {
        let out = fake(tmp.path())
            .args(crate::stream_args(&format!("fake-claude:scenario={name}")))
            .output()
            .expect("run");
        assert!(
            !String::from_utf8_lossy(&out.stdout).contains("{{"),
            "{name}"
        );
    }
}

#[test]
fn a_fragment_emits_the_shared_event_with_its_overrides_in_place() {
    // The shared 2.1.328 system/init event: `with` replaces apiKeySource where it stands.
    let fragment: Value = serde_json::from_str(
        &std::fs::read_to_string(crate_dir().join("scenarios/fragments/system-init.json"))
            .expect("the fragment"),
    )
    .expect("JSON");
    let tmp = tempfile::tempdir().expect("tempdir");
    let scenario = tmp.path().join("frag.json");
    std::fs::write(
        &scenario,
        r#"{"description": "a fragment with an override, then a plain success result",
            "steps": [{"emit_fragment": "system-init", "with": {"apiKeySource": "none", "extra": 1}},
                      {"emit": {"type": "result", "subtype": "success", "is_error": false,
                                "result": "ok", "session_id": "{{session_id}}"}}]}"#,
    )
    .expect("write");
    let out = fake(tmp.path())
        .env("FAKE_CLAUDE_SCENARIO", &scenario)
        .args([
            "-p",
            "--output-format",
            "stream-json",
            "--verbose",
            "--",
            "hi",
        ])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    let first: Value = serde_json::from_str(text.lines().next().expect("a line")).expect("JSON");
    let keys: Vec<&String> = first.as_object().expect("object").keys().collect();
    let mut want: Vec<&String> = fragment.as_object().expect("object").keys().collect();
    let extra = "extra".to_owned();
    want.push(&extra);
    assert_eq!(keys, want, "the fragment's key order, the new key last");
    assert_eq!(first["apiKeySource"], "none");
    assert_eq!(first["tools"], fragment["tools"]);

    std::fs::write(
        &scenario,
        r#"{"description": "an unknown fragment", "steps": [{"emit_fragment": "no-such"}]}"#,
    )
    .expect("write");
    let out = fake(tmp.path())
        .env("FAKE_CLAUDE_SCENARIO", &scenario)
        .args([
            "-p",
            "--output-format",
            "stream-json",
            "--verbose",
            "--",
            "hi",
        ])
        .output()
        .expect("run");
    assert_ne!(out.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("unknown fragment \"no-such\""),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_specs_built_in_scenarios_are_all_data_files_reachable_by_name() {
    // FAKE-CLAUDE-3: the built-ins the contract names, each a data file of its own name.
    let dir = crate_dir().join("scenarios");
    let tmp = tempfile::tempdir().expect("tempdir");
    for name in [
        "success",
        "is-error-success",
        "error-subtype",
        "nonzero-exit",
        "missing-final",
        "duplicate-final",
        "malformed-final",
        "final-without-session-id",
        "final-without-result",
        "oversized-event",
        "oversized-final",
        "huge-final",
        "many-events",
        "hang-after-final",
        "hang-before-final",
        "ignore-sigterm",
        "grandchild",
        "escaped-grandchild",
        "stdout-closed-early",
        "stderr-noise",
        "hooks-before-init",
        "flood",
        "slow-stream",
    ] {
        assert!(
            dir.join(format!("{name}.json")).is_file(),
            "{name}: no scenario file"
        );
        let out = fake(tmp.path())
            .args(["-p", "--", &format!("fake-claude:scenario={name}")])
            .env("FAKE_CLAUDE_DRY_RUN", "1")
            .output()
            .expect("run");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{name}: {stderr}");
        assert!(
            stderr.starts_with(&format!("fake-claude: dry run: scenario {name} (")),
            "{name}: {stderr}"
        );
    }
}
