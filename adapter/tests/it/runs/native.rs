//! NAT-2..8 over stdio, read back from fake-claude's invocation log: the version check and
//! nothing else on failure, argv exactly as the cli tree says, session exclusions, refused bypass
//! modes, a scrubbed environment, no inherited descriptors, stdin `/dev/null`, the cwd.

use std::collections::BTreeMap;

use cmk_native::cli_tree::{CliTree, Mode, OptionValue};
use serde_json::{Value, json};

use super::{Harness, args, code, prompt, split};

fn argv_of(inv: &Value) -> Vec<String> {
    inv["argv"]
        .as_array()
        .expect("argv")
        .iter()
        .map(|a| a.as_str().expect("string").to_owned())
        .collect()
}

#[test]
fn a_version_mismatch_fails_and_nothing_but_the_check_is_executed() {
    // NAT-2.
    let mut h = Harness::with(|a| a.env("FAKE_CLAUDE_VERSION", "2.1.329 (Claude Code)"));
    let (r, is_error) = split(&h.run(args("success", json!({}))));
    assert!(is_error);
    assert_eq!(code(&r), "version_mismatch");
    assert_eq!(r["error"]["expected"], "2.1.328 (Claude Code)");
    assert_eq!(r["error"]["actual"], "2.1.329 (Claude Code)");
    assert_eq!(r["state"], "failed");
    assert_eq!(r["cleanup_confirmed"], true);
    let inv = h.invocations();
    assert_eq!(inv.len(), 1, "{inv:?}");
    assert_eq!(argv_of(&inv[0]), ["--version"]);
}

#[test]
fn a_missing_binary_is_native_not_found_and_nothing_is_executed() {
    let mut h = Harness::with(|a| a.args(["--claude", "/nonexistent/dir/claude"]));
    let (r, is_error) = split(&h.run(args("success", json!({}))));
    assert!(is_error);
    assert_eq!(code(&r), "native_not_found");
    assert_eq!(r["error"]["path"], "/nonexistent/dir/claude");
    let message = r["error"]["message"].as_str().expect("message");
    assert!(
        message.ends_with("; install claude or name its executable with --claude PATH"),
        "the message names the fix: {message}"
    );
    assert!(
        r["error"]["os_error"]
            .as_str()
            .is_some_and(|e| !e.is_empty())
    );
    assert!(h.invocations().is_empty());
}

#[test]
fn argv_is_exactly_what_the_cli_tree_says() {
    // NAT-1, NAT-3..7: every option supplied, in the tree's order, `--` before the prompt.
    let mut h = Harness::new();
    let session = "11111111-2222-4333-8444-555555555555";
    let extra = json!({
        "permission_mode": "plan",
        "model": "claude-opus-5-5",
        "effort": "high",
        "append_system_prompt": "be brief",
        "max_budget_usd": 0.5,
        "session_id": session,
        "no_session_persistence": true
    });
    let (r, _) = split(&h.run(args("success", extra)));
    assert_eq!(r["state"], "succeeded", "{r}");
    let runs = h.runs();
    assert_eq!(runs.len(), 1);
    let got = argv_of(&runs[0]);
    let p = prompt("success");
    let literal = [
        "-p",
        "--output-format",
        "stream-json",
        "--verbose",
        "--include-partial-messages",
        "--permission-mode",
        "plan",
        "--model",
        "claude-opus-5-5",
        "--effort",
        "high",
        "--append-system-prompt",
        "be brief",
        "--max-budget-usd",
        "0.5",
        "--session-id",
        session,
        "--no-session-persistence",
        "--",
        p.as_str(),
    ];
    assert_eq!(got, literal);
    let tree = CliTree::embedded().expect("tree");
    let values = BTreeMap::from([
        (
            "permission_mode".to_owned(),
            OptionValue::Text("plan".into()),
        ),
        (
            "model".to_owned(),
            OptionValue::Text("claude-opus-5-5".into()),
        ),
        ("effort".to_owned(), OptionValue::Text("high".into())),
        (
            "append_system_prompt".to_owned(),
            OptionValue::Text("be brief".into()),
        ),
        ("max_budget_usd".to_owned(), OptionValue::Number(0.5)),
        ("session_id".to_owned(), OptionValue::Text(session.into())),
        (
            "no_session_persistence".to_owned(),
            OptionValue::Switch(true),
        ),
    ]);
    let from_tree: Vec<String> = tree
        .argv(Mode::Stream, &values, &p)
        .expect("argv")
        .into_iter()
        .map(|a| a.into_string().expect("utf-8"))
        .collect();
    assert_eq!(got, from_tree);
}

#[test]
fn defaults_pass_only_the_permission_mode() {
    // NAT-4, NAT-5: nothing added silently; dontAsk passed explicitly.
    let mut h = Harness::new();
    split(&h.run(args("success", json!({}))));
    let got = argv_of(&h.runs()[0]);
    assert_eq!(
        got[..7],
        [
            "-p",
            "--output-format",
            "stream-json",
            "--verbose",
            "--include-partial-messages",
            "--permission-mode",
            "dontAsk"
        ]
    );
    assert_eq!(got[7], "--");
    assert_eq!(got.len(), 9);
}

#[test]
fn session_options_are_mutually_exclusive() {
    // NAT-6: refused before anything runs, with the field of the offending argument.
    let u1 = "11111111-2222-4333-8444-555555555555";
    let u2 = "22222222-2222-4333-8444-555555555555";
    let cases = [
        (
            json!({"resume_session_id": u1, "continue_previous": true}),
            ["/resume_session_id", "/continue_previous"],
        ),
        (
            json!({"resume_session_id": u1, "session_id": u2}),
            ["/resume_session_id", "/session_id"],
        ),
        (
            json!({"continue_previous": true, "session_id": u2}),
            ["/continue_previous", "/session_id"],
        ),
        (
            json!({"no_session_persistence": true, "resume_session_id": u1}),
            ["/no_session_persistence", "/resume_session_id"],
        ),
        (
            json!({"no_session_persistence": true, "continue_previous": true}),
            ["/no_session_persistence", "/continue_previous"],
        ),
    ];
    let mut h = Harness::new();
    for (extra, fields) in cases {
        let (r, is_error) = h.tool("claude.run.start", args("success", extra.clone()));
        assert!(is_error, "{extra}");
        assert_eq!(r["error"]["code"], "invalid_arguments", "{extra}");
        let field = r["error"]["field"].as_str().expect("field");
        assert!(fields.contains(&field), "{extra}: field {field}");
    }
    let (r, is_error) = h.tool(
        "claude.run.start",
        args("success", json!({"session_id": "not-a-uuid"})),
    );
    assert!(is_error);
    assert_eq!(r["error"]["field"], "/session_id");
    // A false switch excludes nothing.
    let (ok, is_error) = split(&h.run(args(
        "success",
        json!({"session_id": u2, "continue_previous": false}),
    )));
    assert!(!is_error, "{ok}");
    assert!(
        h.invocations()
            .iter()
            .all(|i| { !argv_of(i).contains(&"--resume".to_owned()) })
    );
}

#[test]
fn bypass_modes_are_refused_and_nothing_runs() {
    // NAT-5.
    let mut h = Harness::new();
    for mode in ["bypassPermissions", "auto", "manual", "default"] {
        let (r, is_error) = h.tool(
            "claude.run.start",
            args("success", json!({"permission_mode": mode})),
        );
        assert!(is_error, "{mode}");
        assert_eq!(r["error"]["code"], "invalid_arguments");
        assert_eq!(r["error"]["field"], "/permission_mode");
    }
    assert!(h.invocations().is_empty());
}

#[test]
fn the_native_process_gets_a_scrubbed_environment_no_extra_descriptors_and_dev_null_stdin() {
    // NAT-7, NAT-8, SUP-1, for the run and for the version check.
    let mut h = Harness::with(|a| {
        a.env("CLAUDECODE", "1")
            .env("COMPUTER_MCP_SECRET_TOKEN", "do-not-leak")
            .env("ANTHROPIC_API_KEY", "user-credential-kept")
    });
    let cwd = tempfile::tempdir().expect("cwd");
    let cwd_path = cwd.path().canonicalize().expect("canonical");
    let (r, _) = split(&h.run(args("success", json!({"cwd": cwd_path}))));
    assert_eq!(r["state"], "succeeded", "{r}");
    let inv = h.invocations();
    assert_eq!(inv.len(), 2, "the version check and the run");
    for i in &inv {
        let env = i["env"].as_object().expect("env");
        assert!(!env.contains_key("CLAUDECODE"), "{:?}", i["argv"]);
        assert!(
            !env.keys().any(|k| k.starts_with("COMPUTER_MCP_")),
            "{:?}",
            i["argv"]
        );
        assert_eq!(env["ANTHROPIC_API_KEY"], "user-credential-kept");
        let fds: Vec<i64> = i["fds"]
            .as_array()
            .expect("fds")
            .iter()
            .map(|f| f["fd"].as_i64().expect("fd"))
            .collect();
        assert_eq!(fds, [0, 1, 2], "{:?}: {}", i["argv"], i["fds"]);
        assert_eq!(i["stdin_is_devnull"], true);
        assert_eq!(i["pgid"], i["pid"], "own process group");
    }
    let run = &h.runs()[0];
    assert_eq!(run["cwd"], cwd_path.display().to_string());
}

#[test]
fn a_cwd_that_is_not_a_directory_is_invalid_arguments() {
    let mut h = Harness::new();
    let (r, is_error) = h.tool(
        "claude.run.start",
        args("success", json!({"cwd": "/nonexistent/cwd"})),
    );
    assert!(is_error);
    assert_eq!(r["error"]["code"], "invalid_arguments");
    assert_eq!(r["error"]["field"], "/cwd");
    assert!(h.invocations().is_empty());
}

#[test]
fn prompts_are_bounded_in_utf8_bytes_and_the_longest_linux_takes_runs() {
    // RUN-0 / C-TOOL-2: 1 byte to 128 KiB of UTF-8, counted in bytes (a multi-byte character
    // counts for its bytes). 131071 bytes is the longest argv string Linux passes; the exact
    // 128 KiB is accepted and fails spawn_failed saying why (MAX_ARG_STRLEN counts the NUL).
    let mut h = Harness::new();
    let head = format!("{}\n", prompt("success"));
    let filled = |total: usize, unit: &str| {
        let mut p = head.clone();
        while p.len() + unit.len() <= total {
            p.push_str(unit);
        }
        while p.len() < total {
            p.push('x');
        }
        p
    };
    let longest = filled(131_071, "é");
    assert_eq!(longest.len(), 131_071);
    let (r, is_error) = split(&h.run(json!({ "prompt": longest })));
    assert!(!is_error, "{r}");
    assert_eq!(r["state"], "succeeded");
    let runs = h.runs();
    let sent = argv_of(runs.last().expect("a run"));
    assert_eq!(
        sent.last().map(String::len),
        Some(131_071),
        "the prompt arrived whole"
    );

    let exact = filled(128 * 1024, "é");
    let (r, is_error) = split(&h.run(json!({ "prompt": exact })));
    assert!(is_error);
    assert_eq!(code(&r), "spawn_failed", "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("MAX_ARG_STRLEN")),
        "{r}"
    );

    for over in [filled(128 * 1024 + 1, "x"), filled(128 * 1024 + 1, "é")] {
        assert_eq!(over.len(), 128 * 1024 + 1);
        let (r, is_error) = split(&h.run(json!({ "prompt": over })));
        assert!(is_error);
        assert_eq!(code(&r), "invalid_arguments", "{r}");
        assert_eq!(r["error"]["field"], "/prompt");
    }
}

#[test]
fn claude_never_gets_cursors_key_and_env_deny_holds_back_more() {
    // NAT-8: CURSOR_API_KEY is Cursor's; `--env-deny NAME|PREFIX*` holds back more; claude's own
    // credentials and the cloud credentials Bedrock and Vertex need pass.
    let mut h = Harness::with(|a| {
        a.env("CURSOR_API_KEY", "cursor-secret")
            .env("ANTHROPIC_API_KEY", "kept")
            .env("AWS_SECRET_ACCESS_KEY", "kept-for-bedrock")
            .env("MY_TOKEN_A", "held")
            .env("MY_TOKEN_B", "held")
            .env("EXACT_X", "held")
            .env("EXACT_XY", "kept")
            .args(["--env-deny", "MY_TOKEN_*", "--env-deny", "EXACT_X"])
    });
    let (r, _) = split(&h.run(args("success", json!({}))));
    assert_eq!(r["state"], "succeeded", "{r}");
    let inv = h.invocations();
    assert_eq!(inv.len(), 2, "the version check and the run");
    for i in &inv {
        let env = i["env"].as_object().expect("env");
        for gone in ["CURSOR_API_KEY", "MY_TOKEN_A", "MY_TOKEN_B", "EXACT_X"] {
            assert!(!env.contains_key(gone), "{gone} reached {:?}", i["argv"]);
        }
        assert_eq!(env["ANTHROPIC_API_KEY"], "kept");
        assert_eq!(env["AWS_SECRET_ACCESS_KEY"], "kept-for-bedrock");
        assert_eq!(env["EXACT_XY"], "kept", "a name without `*` is exact");
    }
}

#[test]
fn an_env_deny_value_that_is_no_name_is_a_usage_error() {
    for bad in ["*", "A-B", ""] {
        crate::support::adapter_cli()
            .args(["--env-deny", bad])
            .assert()
            .code(2)
            .stdout(predicates::str::is_empty())
            .stderr(predicates::str::contains("--env-deny"));
    }
}
