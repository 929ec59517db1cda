//! Scenario selection (FAKE-CLAUDE-2): the prompt's first line, else FAKE_CLAUDE_SCENARIO, else
//! `success`.

use serde_json::json;

use crate::{fake, json_lines, kinds, scenario_file};
use testkit::argv::stream_args;

fn dry_run(prompt: &str, env: Option<&str>) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut cmd = fake(dir.path());
    cmd.args(stream_args(prompt))
        .env("FAKE_CLAUDE_DRY_RUN", "1");
    if let Some(e) = env {
        cmd.env("FAKE_CLAUDE_SCENARIO", e);
    }
    let out = cmd.output().expect("run");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_prompt_line_wins_over_env_and_env_over_the_default() {
    assert!(
        dry_run(
            "fake-claude:scenario=missing-final\nrest",
            Some("duplicate-final")
        )
        .1
        .contains("scenario missing-final ")
    );
    assert!(
        dry_run("plain prompt", Some("duplicate-final"))
            .1
            .contains("scenario duplicate-final ")
    );
    assert!(
        dry_run("plain prompt", None)
            .1
            .contains("scenario success ")
    );
    assert!(
        dry_run("  fake-claude:scenario= many-events \n", None)
            .1
            .contains("scenario many-events ")
    );
    // Only the first line selects.
    assert!(
        dry_run("hello\nfake-claude:scenario=missing-final", None)
            .1
            .contains("scenario success ")
    );
}

#[test]
fn env_may_name_a_scenario_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = scenario_file(
        dir.path(),
        "mine",
        &json!({"description": "d", "steps": [
            {"emit": {"type": "result", "subtype": "success", "is_error": false, "result": "mine", "session_id": "{{session_id}}"}}
        ]}),
    );
    let out = fake(dir.path())
        .args(stream_args("x"))
        .env("FAKE_CLAUDE_SCENARIO", &path)
        .output()
        .expect("run");
    assert_eq!(json_lines(&out.stdout)[0]["result"], "mine");
    let by_prompt = fake(dir.path())
        .args(stream_args(&format!(
            "fake-claude:scenario={}",
            path.display()
        )))
        .output()
        .expect("run");
    assert_eq!(json_lines(&by_prompt.stdout)[0]["result"], "mine");
}

#[test]
fn an_unknown_scenario_is_the_fakes_error_with_exit_2() {
    for (prompt, env) in [
        ("fake-claude:scenario=no-such-thing", None),
        ("x", Some("no-such-thing")),
    ] {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut cmd = fake(dir.path());
        cmd.args(stream_args(prompt));
        if let Some(e) = env {
            cmd.env("FAKE_CLAUDE_SCENARIO", e);
        }
        let out = cmd.output().expect("run");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2));
        assert!(
            err.starts_with("fake-claude: unknown scenario \"no-such-thing\""),
            "{err}"
        );
        assert!(err.contains("success"), "lists the built-ins: {err}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn argv_errors_come_before_scenario_selection() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = fake(dir.path())
        .args([
            "-p",
            "--output-format",
            "stream-json",
            "--",
            "fake-claude:scenario=no-such-thing",
        ])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "Error: When using --print, --output-format=stream-json requires --verbose\n"
    );
    let ok = fake(dir.path())
        .args(stream_args("fake-claude:scenario=success"))
        .output()
        .expect("run");
    assert_eq!(
        kinds(&json_lines(&ok.stdout)).last().map(String::as_str),
        Some("result/success")
    );
}
