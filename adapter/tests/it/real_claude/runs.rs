//! MCP runs of the real claude 2.1.328 through the adapter: each outcome class the real CLI
//! produces, judged by the adapter's OUT rules, with cleanup confirmed.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use testkit::procs;
use testkit::standin::{Scenario, Standin, StreamOutcome};

use super::UNKNOWN_SESSION;
use super::{Real, check};
use crate::support::client::structured;

/// OUT-1: a plain text answer is a succeeded run whose final is the native result as received,
/// with progress (T9), the events in a page (RUN-5) and the session transcript in the
/// temporary HOME.
#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn real_claude_text_run_succeeds_with_progress_and_events() {
    let claude = testkit::require_prereq!(testkit::prereq::claude());
    let mut real = Real::with_standin(&claude, Scenario::Text, &[]);
    let res = real.run("say hi", json!({}));
    let r = structured(&res);
    check(
        res["isError"] == false,
        "a successful run is not isError",
        &res,
    );
    check(
        r["state"] == "succeeded" && r["completed"] == true,
        "succeeded",
        &res,
    );
    check(r["is_error"] == false, "is_error false", &res);
    check(
        r["final"]["subtype"] == "success",
        "final subtype success",
        &res,
    );
    check(
        r["final"]["result"] == testkit::standin::DEFAULT_TEXT,
        "the model's text",
        &res,
    );
    check(
        r["native_session_id"] == r["final"]["session_id"],
        "native_session_id is the final's session id (RUN-9)",
        &res,
    );
    check(r["cleanup_confirmed"] == true, "cleanup confirmed", &res);
    check(
        r["exit_code"] == 0 && r["error"].is_null(),
        "exit 0, no error",
        &res,
    );
    assert!(
        real.client.received.iter().any(|m| m["method"] == "notifications/progress"
            && m["params"]["progressToken"] == "p"),
        "progress notifications for the call's token (T9)"
    );
    let page = real.tool("claude.run.events", json!({"run_id": r["run_id"]}));
    let events = structured(&page)["events"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        events.first().map(|e| e["type"].clone()),
        Some(json!("system"))
    );
    assert_eq!(
        events.first().map(|e| e["subtype"].clone()),
        Some(json!("init"))
    );
    assert!(
        events.iter().any(|e| e["type"] == "stream_event"),
        "MCP runs ask for partial messages (NAT-3)"
    );
    assert_eq!(
        events.last().map(|e| e["type"].clone()),
        Some(json!("result"))
    );
    assert!(real.api_requests() >= 1, "the CLI asked the stand-in");
    assert!(
        real.cmd.transcripts().is_dir(),
        "the transcript went to the temporary HOME, nowhere else"
    );
}

/// OUT-2: a denied tool does not fail a run: the real CLI ends with `success` and
/// `permission_denials`, and nothing was written.
#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn real_claude_denied_tool_still_succeeds_with_permission_denials() {
    let claude = testkit::require_prereq!(testkit::prereq::claude());
    let mut real = Real::with_standin(&claude, Scenario::Tool, &[]);
    let res = real.run("create a file", json!({"permission_mode": "dontAsk"}));
    let r = structured(&res);
    check(
        r["state"] == "succeeded",
        "a denied tool does not fail the run",
        &res,
    );
    let denials = r["final"]["permission_denials"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    check(
        denials.iter().any(|d| d["tool_name"] == "Bash"),
        "the Bash call is listed as denied",
        &res,
    );
    assert!(
        !real.cmd.workdir().join("created-by-tool.txt").exists(),
        "dontAsk denied the write"
    );
}

/// OUT-2: real API errors end with `subtype: success` and `is_error: true`; that is a failed run
/// (`native_error`), never a success, and the native result is kept.
#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn real_claude_api_error_with_success_subtype_fails_the_run() {
    let claude = testkit::require_prereq!(testkit::prereq::claude());
    let mut real = Real::with_standin(&claude, Scenario::Text, &[]);
    for (marker, status) in [("error-401", "401"), ("error-529", "529")] {
        let res = real.run(&format!("say hi standin:scenario={marker}"), json!({}));
        let r = structured(&res);
        check(
            res["isError"] == true,
            "claude.run of a failed run is isError",
            &res,
        );
        check(
            r["state"] == "failed" && r["is_error"] == true,
            "failed",
            &res,
        );
        check(r["error"]["code"] == "native_error", "native_error", &res);
        check(
            r["final"]["subtype"] == "success" && r["final"]["is_error"] == true,
            "the native final is the success + is_error shape",
            &res,
        );
        check(
            r["native_error"]["source"] == "result"
                && r["native_error"]["message"]
                    .as_str()
                    .is_some_and(|m| m.contains(status)),
            "native_error carries the API error text",
            &res,
        );
        check(r["cleanup_confirmed"] == true, "cleanup confirmed", &res);
        check(r["exit_code"] == 1, "the CLI exits 1", &res);
    }
}

/// OUT-2: `error_max_turns` without `result` (turn limit from the user's environment,
/// `CLAUDE_CODE_MAX_TURNS`, which the adapter passes on and never adds itself, NAT-4) is a valid
/// native error, not `malformed_final`.
#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn real_claude_max_turns_is_a_native_error_not_malformed() {
    let claude = testkit::require_prereq!(testkit::prereq::claude());
    let mut real = Real::with_standin(
        &claude,
        Scenario::ToolLoop,
        &[("CLAUDE_CODE_MAX_TURNS", "1")],
    );
    let res = real.run("create a file", json!({}));
    let r = structured(&res);
    check(r["state"] == "failed", "failed", &res);
    check(
        r["error"]["code"] == "native_error",
        "native_error, not malformed_final",
        &res,
    );
    check(
        r["final"]["subtype"] == "error_max_turns",
        "error_max_turns",
        &res,
    );
    check(
        r["final"].get("result").is_none(),
        "the real final has no result",
        &res,
    );
    check(r["cleanup_confirmed"] == true, "cleanup confirmed", &res);
}

/// NAT-6 / OUT-2: resuming a session that does not exist fails fast with
/// `error_during_execution`, no API request, the CLI's stderr kept (RUN-11).
#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn real_claude_unknown_resume_id_is_a_native_error() {
    let claude = testkit::require_prereq!(testkit::prereq::claude());
    let mut real = Real::with_standin(&claude, Scenario::Text, &[]);
    let res = real.run("say hi", json!({"resume_session_id": UNKNOWN_SESSION}));
    let r = structured(&res);
    check(r["state"] == "failed", "failed", &res);
    check(r["error"]["code"] == "native_error", "native_error", &res);
    check(
        r["final"]["subtype"] == "error_during_execution"
            && r["final"]["session_id"] == UNKNOWN_SESSION,
        "the real unknown-resume final",
        &res,
    );
    check(
        r["stderr_tail"]
            .as_str()
            .is_some_and(|t| t.contains("No conversation found with session ID")),
        "the CLI's stderr is kept",
        &res,
    );
    check(r["exit_code"] == 1, "exit 1", &res);
    assert_eq!(real.api_requests(), 0, "an unknown resume asks no model");
}

/// RUN-6 / SUP-3: cancelling while the real CLI streams ends the run as `cancelled` with cleanup
/// confirmed, and afterwards no process of the CLI's process group is left.
#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn real_claude_cancel_mid_stream_leaves_no_process_of_its_group() {
    let claude = testkit::require_prereq!(testkit::prereq::claude());
    let standin = Standin::builder()
        .scenario(Scenario::Slow)
        .slow(Duration::from_millis(300), 40)
        .start()
        .expect("stand-in");
    let cmd =
        testkit::claude::ClaudeCommand::for_standin(&claude, &standin.base_url()).expect("HOME");
    let home = cmd.home().to_path_buf();
    let mut real = Real::spawn(&claude, cmd, Some(standin));

    let started = real.tool(
        "claude.run.start",
        json!({"prompt": "say hi", "cwd": real.cmd.workdir(), "timeout_s": 120}),
    );
    let run_id = structured(&started)["run_id"].clone();
    assert!(run_id.is_string(), "start answers a run id: {started}");

    // Mid-stream: the stand-in has sent part of a slow stream.
    let streaming = real
        .standin
        .as_ref()
        .expect("stand-in")
        .wait_for(super::RUN_BOUND, |reqs| {
            reqs.iter().any(|r| {
                matches!(r.outcome, StreamOutcome::InProgress { events_sent } if events_sent >= 3)
            })
        });
    assert!(streaming, "the real CLI never got a stream going");
    let leader = claude_process(&claude, &home).expect("the real claude process is running");
    let pgid = procs::stat(leader).expect("its process group").pgrp;
    assert_eq!(
        pgid, leader,
        "the native process leads its own group (SUP-1)"
    );

    let cancel = real.tool("claude.run.cancel", json!({"run_id": run_id}));
    assert_eq!(structured(&cancel)["already_settled"], false, "{cancel}");
    let res = wait_settled(&mut real, &run_id);
    let r = structured(&res);
    check(r["state"] == "cancelled", "cancelled", &res);
    check(r["error"]["code"] == "cancelled", "error cancelled", &res);
    check(r["cleanup_confirmed"] == true, "cleanup confirmed", &res);
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        // Zombies included: a zombie still holds its group.
        let left = procs::group_members_with_zombies(pgid);
        if left.is_empty() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "processes of the cancelled run's group {pgid} are still alive: {left:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let gone = real
        .standin
        .as_ref()
        .expect("stand-in")
        .wait_for(Duration::from_secs(20), |reqs| {
            reqs.iter()
                .any(|r| matches!(r.outcome, StreamOutcome::ClientGone { .. }))
        });
    assert!(gone, "the CLI dropped its stream when it was terminated");
}

/// The no-account case: no base URL and no key fail fast with "Not logged in", a
/// `native_error` with the native result retained, cleanup confirmed.
#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn real_claude_without_account_fails_fast_as_native_error() {
    let claude = testkit::require_prereq!(testkit::prereq::claude());
    let mut real = super::Real::not_logged_in(&claude);
    let started = Instant::now();
    let res = real.run("say hi", json!({}));
    let r = structured(&res);
    check(r["state"] == "failed", "failed", &res);
    check(r["error"]["code"] == "native_error", "native_error", &res);
    check(
        r["final"]["result"]
            .as_str()
            .is_some_and(|t| t.contains("Not logged in")),
        "the native result is retained",
        &res,
    );
    check(
        r["native_error"]["message"]
            .as_str()
            .is_some_and(|t| t.contains("Not logged in")),
        "native_error says why",
        &res,
    );
    check(r["cleanup_confirmed"] == true, "cleanup confirmed", &res);
    check(r["exit_code"] == 1, "exit 1", &res);
    // "Fast" only in the sense of not waiting for anything: a generous bound, never tight.
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "the no-account failure took {:?}",
        started.elapsed()
    );
}

/// Polls `claude.run.result` until the run settled (bounded).
fn wait_settled(real: &mut Real, run_id: &Value) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let res = real.tool("claude.run.result", json!({"run_id": run_id}));
        if structured(&res)["completed"] == true {
            return res;
        }
        assert!(Instant::now() < deadline, "the run never settled: {res}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The pid of the real claude process whose `HOME` is `home` (each test has its own).
fn claude_process(claude: &Path, home: &Path) -> Option<u32> {
    let exe = std::fs::canonicalize(claude).ok()?;
    let want = format!("HOME={}", home.display());
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        for pid in procs::scan().into_iter().map(|p| p.pid) {
            if procs::exe(pid).is_some_and(|p| p == exe) && procs::env_has(pid, &want) {
                return Some(pid);
            }
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
