//! Each step kind of the scenario format, through small scenario files run by the binary.

use std::os::unix::process::ExitStatusExt as _;
use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::{fake, json_lines, kinds, scenario_file};
use testkit::argv::stream_args;

/// Runs `steps` as a scenario file with `args` (default: the MCP-run argv).
fn play(dir: &Path, steps: Value, args: Option<&[&str]>) -> Output {
    let path = scenario_file(
        dir,
        "t",
        &json!({"description": "test scenario", "steps": steps}),
    );
    let mut cmd = fake(dir);
    match args {
        Some(a) => cmd.args(a),
        None => cmd.args(stream_args("hello there")),
    };
    cmd.env("FAKE_CLAUDE_SCENARIO", &path)
        .output()
        .expect("run fake")
}

fn result(is_error: bool) -> Value {
    json!({"type": "result", "subtype": "success", "is_error": is_error, "result": "done", "session_id": "{{session_id}}"})
}

#[test]
fn emit_fills_placeholders_and_keeps_key_order() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cwd = dir.path().canonicalize().expect("cwd");
    let ev = json!({"z": "{{session_id}}", "type": "system", "a": {"cwd": "{{cwd}}", "m": "{{model}}"},
        "p": "{{prompt}}", "u1": "{{uuid}}", "u2": "{{uuid}}", "e": "{{env:FAKE_T}}", "pm": "{{permission_mode}}",
        "v": "{{version}}", "n": 7, "keep": "{{not_a_placeholder}}"});
    let out = {
        let path = scenario_file(
            &cwd,
            "t",
            &json!({"description": "d", "steps": [{"emit": ev}]}),
        );
        fake(&cwd)
            .args([
                "-p",
                "--output-format",
                "stream-json",
                "--verbose",
                "--model",
                "m-x",
                "--permission-mode",
                "plan",
                "--session-id",
                "11111111-2222-4333-8444-555555555555",
                "--",
                "the prompt",
            ])
            .env("FAKE_CLAUDE_SCENARIO", &path)
            .env("FAKE_T", "from-env")
            .output()
            .expect("run")
    };
    let line = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        line.starts_with(
            "{\"z\":\"11111111-2222-4333-8444-555555555555\",\"type\":\"system\",\"a\":{\"cwd\""
        ),
        "{line}"
    );
    let v = &json_lines(line.as_bytes())[0];
    assert_eq!(v["a"]["cwd"], cwd.display().to_string());
    assert_eq!(v["a"]["m"], "m-x");
    assert_eq!(v["p"], "the prompt");
    assert_eq!(v["e"], "from-env");
    assert_eq!(v["pm"], "plan");
    assert_eq!(v["v"], "2.1.328");
    assert_eq!(v["n"], 7);
    assert_eq!(v["keep"], "{{not_a_placeholder}}");
    assert_ne!(v["u1"], v["u2"], "each {{uuid}} is fresh");
    assert_eq!(v["u1"].as_str().map(str::len), Some(36));
    assert_eq!(out.status.code(), Some(0), "no final: exit 0");
}

/// `{{model}}` is the model the real 2.1.328 reports for `--model`: aliases resolved (any case,
/// a `[1m]` suffix ignored, `opusplan` is sonnet), anything else as given, the default without.
#[test]
fn model_placeholder_resolves_aliases_like_the_real_cli() {
    let dir = tempfile::tempdir().expect("tempdir");
    let steps = json!([{"emit": {"type": "system", "subtype": "init", "model": "{{model}}"}}]);
    let model = |extra: &[&str]| {
        let mut args = vec!["-p", "--output-format", "stream-json", "--verbose"];
        args.extend_from_slice(extra);
        args.push("x");
        json_lines(&play(dir.path(), steps.clone(), Some(&args)).stdout)[0]["model"].clone()
    };
    assert_eq!(model(&[]), "claude-opus-5-5");
    for (given, reported) in [
        ("sonnet", "claude-sonnet-5-5"),
        ("Sonnet", "claude-sonnet-5-5"),
        ("opus[1m]", "claude-opus-5-5"),
        ("opusplan", "claude-sonnet-5-5"),
        ("haiku", "claude-haiku-5-5"),
        ("fable", "claude-fable-5-2"),
        ("default", "claude-opus-5-5"),
        ("claude-sonnet-4-5", "claude-sonnet-4-5"),
        ("bogus-model-x", "bogus-model-x"),
    ] {
        assert_eq!(model(&["--model", given]), reported, "--model {given}");
    }
}

#[test]
fn session_id_is_the_flag_else_the_resumed_id_else_fresh() {
    let dir = tempfile::tempdir().expect("tempdir");
    let steps = json!([{"emit": result(false)}]);
    let sid = |args: &[&str]| {
        json_lines(&play(dir.path(), steps.clone(), Some(args)).stdout)[0]["session_id"].clone()
    };
    let id = "11111111-2222-4333-8444-555555555555";
    assert_eq!(
        sid(&["-p", "--output-format", "json", "--session-id", id, "x"]),
        id
    );
    assert_eq!(
        sid(&["-p", "--output-format", "json", "--resume", id, "x"]),
        id
    );
    let forked = sid(&[
        "-p",
        "--output-format",
        "json",
        "--resume",
        id,
        "--fork-session",
        "x",
    ]);
    assert_ne!(forked, id);
    let (a, b) = (
        sid(&["-p", "--output-format", "json", "x"]),
        sid(&["-p", "--output-format", "json", "x"]),
    );
    assert_ne!(a, b, "a fresh v4 UUID per invocation");
    assert_eq!(a.as_str().and_then(|s| s.chars().nth(14)), Some('4'));
}

#[test]
fn output_formats_show_events_as_the_real_cli_does() {
    // FAKE-CLAUDE-1: `json` only the final, `stream-json` one event per line.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut fin = result(false);
    fin["model_usage_since_last_result"] = json!({});
    let steps = json!([
        {"emit": {"type": "system", "subtype": "init"}},
        {"emit": {"type": "stream_event", "event": {}}},
        {"emit": {"type": "system", "subtype": "status"}, "requires_partial": true},
        {"emit": fin},
    ]);
    let stream = play(
        dir.path(),
        steps.clone(),
        Some(&["-p", "--output-format", "stream-json", "--verbose", "x"]),
    );
    assert_eq!(
        kinds(&json_lines(&stream.stdout)),
        ["system/init", "result/success"],
        "no partial lines without the flag"
    );
    let partial = play(dir.path(), steps.clone(), None);
    assert_eq!(
        kinds(&json_lines(&partial.stdout)),
        [
            "system/init",
            "stream_event",
            "system/status",
            "result/success"
        ]
    );
    let json_out = play(
        dir.path(),
        steps.clone(),
        Some(&["-p", "--output-format", "json", "x"]),
    );
    let only = json_lines(&json_out.stdout);
    assert_eq!(kinds(&only), ["result/success"]);
    assert!(
        only[0].get("model_usage_since_last_result").is_none(),
        "json output drops it, as captured"
    );
    let text = play(dir.path(), steps.clone(), Some(&["-p", "x"]));
    assert_eq!(String::from_utf8_lossy(&text.stdout), "done\n");
    let array = play(
        dir.path(),
        steps,
        Some(&["-p", "--output-format", "json", "--verbose", "x"]),
    );
    let lines = json_lines(&array.stdout);
    assert_eq!(lines.len(), 1);
    assert_eq!(
        kinds(lines[0].as_array().expect("array")),
        ["system/init", "result/success"]
    );
}

#[test]
fn emit_modes_and_text_override_per_format() {
    let dir = tempfile::tempdir().expect("tempdir");
    let steps = json!([
        {"emit": {"type": "result", "subtype": "error_max_turns", "is_error": true}, "text": "Error: custom", "modes": ["stream-json", "text"]}
    ]);
    let text = play(dir.path(), steps.clone(), Some(&["-p", "x"]));
    assert_eq!(
        String::from_utf8_lossy(&text.stdout),
        "Error: custom",
        "an error subtype's text has no newline, as the real text printer writes it"
    );
    assert_eq!(text.status.code(), Some(1), "is_error true: exit 1");
    let json_out = play(
        dir.path(),
        steps,
        Some(&["-p", "--output-format", "json", "x"]),
    );
    assert!(json_out.stdout.is_empty(), "not in json mode");
    assert_eq!(json_out.status.code(), Some(1));
}

/// `--output-format json --verbose` keeps what the real 2.1.328 keeps: no `stream_event`, no
/// `system` lines its json filter drops (`permission_denied`, hook lines), the json-mode result
/// rather than the stream-json one (both as in the not-logged-in captures); and prints nothing
/// when no json-mode result came (probed: an unknown `--resume` prints nothing there either).
#[test]
fn json_verbose_array_holds_what_the_real_cli_keeps() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut stream_result = result(true);
    stream_result["result"] = json!("the stream-json and text result");
    let steps = json!([
        {"emit": {"type": "system", "subtype": "hook_started"}},
        {"emit": {"type": "system", "subtype": "init"}},
        {"emit": {"type": "system", "subtype": "api_retry"}},
        {"emit": {"type": "assistant"}},
        {"emit": {"type": "system", "subtype": "permission_denied"}},
        {"emit": {"type": "user"}},
        {"emit": stream_result, "modes": ["stream-json", "text"]},
        {"emit": result(true), "modes": ["json"]},
    ]);
    let json_verbose = ["-p", "--output-format", "json", "--verbose", "x"];
    let out = play(dir.path(), steps.clone(), Some(&json_verbose));
    let lines = json_lines(&out.stdout);
    assert_eq!(lines.len(), 1, "one array");
    let array = lines[0].as_array().expect("array");
    assert_eq!(
        kinds(array),
        [
            "system/init",
            "system/api_retry",
            "assistant",
            "user",
            "result/success"
        ]
    );
    assert_eq!(array[4]["result"], "done", "the json-mode result");
    assert_eq!(out.status.code(), Some(1));

    let only_stream = json!([
        {"emit": {"type": "system", "subtype": "init"}},
        {"emit": result(true), "modes": ["stream-json"]},
        {"exit": 1},
    ]);
    let out = play(dir.path(), only_stream, Some(&json_verbose));
    assert!(
        out.stdout.is_empty(),
        "no json-mode result, no array: {:?}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// `--output-format text` prints as the real text printer does: a success result's text with
/// one newline, the fixed texts of error subtypes without one (`Execution error` for
/// `error_during_execution`), and a blank line between several results.
#[test]
fn text_output_follows_the_real_text_printer() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = |steps: Value| {
        let out = play(dir.path(), steps, Some(&["-p", "x"]));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let mut ends_with_newline = result(false);
    ends_with_newline["result"] = json!("done\n");
    assert_eq!(text(json!([{"emit": result(false)}])), "done\n");
    assert_eq!(text(json!([{"emit": ends_with_newline}])), "done\n");
    assert_eq!(
        text(
            json!([{"emit": {"type": "result", "subtype": "error_during_execution", "is_error": true}}])
        ),
        "Execution error"
    );
    assert_eq!(
        text(json!([
            {"emit": {"type": "result", "subtype": "error_max_turns", "is_error": true}, "text": "Error: Reached max turns (1)"},
            {"emit": result(false)},
            {"emit": result(false)},
        ])),
        "Error: Reached max turns (1)\n\ndone\n\ndone\n"
    );
}

#[test]
fn exit_status_follows_the_last_final_unless_an_exit_step_says_otherwise() {
    let dir = tempfile::tempdir().expect("tempdir");
    let code = |steps: Value| play(dir.path(), steps, None).status.code();
    assert_eq!(code(json!([{"emit": result(false)}])), Some(0));
    assert_eq!(code(json!([{"emit": result(true)}])), Some(1));
    assert_eq!(
        code(json!([{"emit": result(true)}, {"emit": result(false)}])),
        Some(0)
    );
    assert_eq!(
        code(json!([{"emit": {"type": "result", "subtype": "success"}}])),
        Some(1),
        "no is_error: false"
    );
    assert_eq!(code(json!([])), Some(0), "no final at all");
    assert_eq!(code(json!([{"emit": result(false)}, {"exit": 7}])), Some(7));
}

#[test]
fn raw_steps_write_bytes_with_or_without_newline() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = play(
        dir.path(),
        json!([
            {"raw": "not json {{session_id}}"},
            {"raw": "no-newline", "newline": false},
            {"raw_bytes": [255, 0, 65]},
        ]),
        None,
    );
    let s = &out.stdout;
    assert!(s.starts_with(b"not json "));
    assert!(!String::from_utf8_lossy(s).contains("{{session_id}}"));
    assert!(s.ends_with(b"\nno-newline\xff\x00A\n"));
}

#[test]
fn line_steps_build_exact_sizes_and_respect_partial_gating() {
    let dir = tempfile::tempdir().expect("tempdir");
    let steps = json!([
        {"line": {"bytes": 5000, "type": "stream_event", "fields": {"event": {"type": "x"}}}},
        {"line": {"bytes": 300, "type": "result", "fields": {"subtype": "success", "is_error": false, "result": "", "session_id": "{{session_id}}"}, "pad": "/result"}},
    ]);
    let out = play(dir.path(), steps.clone(), None);
    let lines: Vec<&[u8]> = out
        .stdout
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(
        lines.iter().map(|l| l.len()).collect::<Vec<_>>(),
        [5000, 300]
    );
    assert!(lines[0].ends_with(b"\"type\":\"stream_event\"}"));
    assert_eq!(
        out.status.code(),
        Some(0),
        "a sized success final counts as is_error false"
    );
    let no_partial = play(
        dir.path(),
        steps,
        Some(&["-p", "--output-format", "stream-json", "--verbose", "x"]),
    );
    assert_eq!(
        no_partial.stdout.iter().filter(|b| **b == b'\n').count(),
        1,
        "stream_event lines need the flag"
    );
    let too_small = play(
        dir.path(),
        json!([{"line": {"bytes": 5, "type": "assistant"}}]),
        None,
    );
    assert_eq!(too_small.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&too_small.stderr).starts_with("fake-claude: "));
}

#[test]
fn stderr_sleep_and_repeat_steps() {
    let dir = tempfile::tempdir().expect("tempdir");
    let start = Instant::now();
    let out = play(
        dir.path(),
        json!([
            {"repeat": 3, "steps": [{"stderr": "line {{i}}"}, {"sleep_ms": 100}]},
            {"stderr": "tail", "newline": false},
        ]),
        None,
    );
    assert!(start.elapsed() >= Duration::from_millis(300));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "line 0\nline 1\nline 2\ntail"
    );
}

#[test]
fn signal_and_ignore_signal_steps() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = play(
        dir.path(),
        json!([{"emit": {"type": "system"}}, {"signal": "SIGTERM"}]),
        None,
    );
    assert_eq!(out.status.signal(), Some(15));
    let out = play(
        dir.path(),
        json!([{"ignore_signals": ["SIGTERM"]}, {"signal": 15}]),
        None,
    );
    // A signal step restores the default disposition first: it always dies by that signal.
    assert_eq!(out.status.signal(), Some(15));
}

#[test]
fn flood_step_takes_its_size_from_env() {
    let dir = tempfile::tempdir().expect("tempdir");
    let steps = json!([{"flood": {"event": {"type": "assistant", "n": "{{session_id}}"}, "default_mib": 1, "env": "FAKE_T_MIB"}}]);
    let out = play(dir.path(), steps.clone(), None);
    assert!((1 << 20..(1 << 20) + 200).contains(&out.stdout.len()));
    let path = scenario_file(
        dir.path(),
        "f",
        &json!({"description": "d", "steps": steps}),
    );
    let out = fake(dir.path())
        .args(stream_args("x"))
        .env("FAKE_CLAUDE_SCENARIO", &path)
        .env("FAKE_T_MIB", "3")
        .output()
        .expect("run");
    assert!((3 << 20..(3 << 20) + 200).contains(&out.stdout.len()));
    assert!(
        json_lines(&out.stdout)
            .iter()
            .all(|l| l["type"] == "assistant")
    );
}

#[test]
fn dump_writes_the_invocation_record() {
    let dir = tempfile::tempdir().expect("tempdir");
    let dump = dir.path().join("dump.json");
    let steps = json!([{"dump": "{{env:FAKE_T_DUMP}}"}, {"emit": result(false)}]);
    let path = scenario_file(
        dir.path(),
        "d",
        &json!({"description": "d", "steps": steps}),
    );
    let out = fake(dir.path())
        .args(stream_args("x"))
        .env("FAKE_CLAUDE_SCENARIO", &path)
        .env("FAKE_T_DUMP", &dump)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    let rec: Value = serde_json::from_slice(&std::fs::read(&dump).expect("dump")).expect("json");
    assert_eq!(rec["argv"], json!(stream_args("x")));
    assert_eq!(rec["env"]["FAKE_T_DUMP"], dump.display().to_string());
    assert_eq!(rec["stdin_is_devnull"], true);
}

#[test]
fn close_stdout_gives_eof_while_the_process_runs_on() {
    use std::io::Read as _;
    let dir = tempfile::tempdir().expect("tempdir");
    let path = scenario_file(
        dir.path(),
        "c",
        &json!({"description": "d", "steps": [
            {"emit": {"type": "system"}}, {"close_stdout": true}, {"emit": {"type": "lost"}}, {"sleep_ms": 3000}, {"exit": 4}
        ]}),
    );
    let mut child = fake(dir.path())
        .args(stream_args("x"))
        .env("FAKE_CLAUDE_SCENARIO", &path)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut seen = String::new();
    child
        .stdout
        .take()
        .expect("stdout")
        .read_to_string(&mut seen)
        .expect("read to EOF");
    assert_eq!(seen, "{\"type\":\"system\"}\n");
    assert!(
        child.try_wait().expect("try_wait").is_none(),
        "still running after stdout EOF"
    );
    assert_eq!(child.wait().expect("wait").code(), Some(4));
}

#[test]
fn hang_step_runs_until_killed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = scenario_file(
        dir.path(),
        "h",
        &json!({"description": "d", "steps": [{"hang": true}]}),
    );
    let mut child = fake(dir.path())
        .args(stream_args("x"))
        .env("FAKE_CLAUDE_SCENARIO", &path)
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("spawn");
    std::thread::sleep(Duration::from_millis(500));
    assert!(child.try_wait().expect("try_wait").is_none());
    child.kill().expect("kill");
    assert_eq!(child.wait().expect("wait").signal(), Some(9));
}

#[test]
fn hang_ends_at_the_safety_lifetime() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = scenario_file(
        dir.path(),
        "h",
        &json!({"description": "d", "steps": [{"hang": true}]}),
    );
    let out = fake(dir.path())
        .args(stream_args("x"))
        .env("FAKE_CLAUDE_SCENARIO", &path)
        .env("FAKE_CLAUDE_MAX_LIFETIME_S", "1")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(99));
}

#[test]
fn malformed_scenarios_are_the_fakes_own_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (steps, needle) in [
        (json!([{"emitt": {}}]), "unknown step kind"),
        (json!([{"emit": {}, "raw": "x"}]), "exactly one action"),
        (json!([{"emit": {}, "newline": false}]), "does not apply"),
        (json!([{"signal": "SIGNOPE"}]), "unknown signal"),
        (
            json!([{"repeat": 2, "steps": [{"bogus": 1}]}]),
            "step 1 repeat step 1",
        ),
    ] {
        let out = play(dir.path(), steps, None);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.starts_with("fake-claude: ") && err.contains(needle),
            "{err}"
        );
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn dump_invocation_builtin_writes_its_record_and_succeeds() {
    let dir = tempfile::tempdir().expect("tempdir");
    let dump = dir.path().join("inv.json");
    let out = fake(dir.path())
        .args(stream_args("fake-claude:scenario=dump-invocation"))
        .env("FAKE_CLAUDE_DUMP", &dump)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    let rec: Value = serde_json::from_slice(&std::fs::read(&dump).expect("dump")).expect("json");
    assert_eq!(
        rec["argv"]
            .as_array()
            .and_then(|a| a.last())
            .and_then(Value::as_str),
        Some("fake-claude:scenario=dump-invocation")
    );
    assert_eq!(
        kinds(&json_lines(&out.stdout)).last().map(String::as_str),
        Some("result/success")
    );
}
