//! Engine unit tests against a scripted in-memory provider: the run table, states, capacity,
//! cancel/release, timeouts, bounded waits and the snapshot, without any real process. The same
//! behaviours are checked end to end over stdio with fake-claude in `tests/it/runs/`. The
//! provider and its simulated processes are in `tests/sim.rs`.

mod choices;
mod completion;
mod dialect;
mod sim;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::watch;

use self::sim::*;
use crate::native::Cleanup;
use crate::to_json;
use crate::*;

#[tokio::test]
async fn a_successful_run_has_exactly_the_run_4_shape() {
    let (e, _) = engine(vec![]);
    let id = e.start(req("hi"), None).expect("start");
    assert!(id.starts_with("run_") && uuid::Uuid::parse_str(&id).is_err());
    let r = settle(&e, &id).await;
    let keys: Vec<&str> = r
        .as_object()
        .expect("obj")
        .keys()
        .map(String::as_str)
        .collect();
    // RUN-4: every field, in the contract's order.
    assert_eq!(keys, cmk_contract::RESULT_FIELDS);
    assert_eq!(r["state"], "succeeded");
    assert_eq!(r["completed"], true);
    assert_eq!(r["is_error"], false);
    assert_eq!(r["cleanup_confirmed"], true);
    assert_eq!(r["exit_code"], 0);
    assert_eq!(r["events_total"], 2);
    assert_eq!(
        r["native_session_id"],
        "11111111-2222-4333-8444-555555555555"
    );
    // RUN-11 / OUT-4: the final as received, key order kept.
    assert_eq!(r["final"].to_string(), OK_FINAL);
}

#[tokio::test]
async fn version_refusal_fails_the_run_and_starts_nothing() {
    let p = ScriptProvider::default();
    p.scripts.lock().expect("lock").insert(
        "preflight".into(),
        Script {
            refuse: Some(
                ToolError::new(ErrorCode::VersionMismatch, "pinned elsewhere")
                    .with("expected", "2.1.328 (Claude Code)".into())
                    .with("actual", "9.9.9".into()),
            ),
            ..Script::default()
        },
    );
    let gate = Arc::new(Gate(p));
    let e = engine_with(gate.clone());
    let id = e.start(req("x"), None).expect("start");
    let r = settle(&e, &id).await;
    assert_eq!(r["state"], "failed");
    assert_eq!(code(&r), "version_mismatch");
    assert_eq!(r["error"]["actual"], "9.9.9");
    assert_eq!(r["cleanup_confirmed"], true);
    assert!(
        gate.0.spawned.lock().expect("lock").is_empty(),
        "NAT-2: nothing executed"
    );
}

#[tokio::test]
async fn a_version_check_whose_cleanup_is_unconfirmed_leaves_the_run_uncertain() {
    // RUN-10: the check is a process of the run too; when its group is not confirmed gone the
    // run starts nothing and is `uncertain`, the check's verdict still naming the primary cause.
    for (refuse, survivors, want) in [
        (None, vec![], "cleanup_unconfirmed"),
        (None, vec![77], "cleanup_failed"),
        (
            Some(ToolError::new(
                ErrorCode::VersionMismatch,
                "pinned elsewhere",
            )),
            vec![77],
            "version_mismatch",
        ),
    ] {
        let p = ScriptProvider::default();
        p.scripts.lock().expect("lock").insert(
            "preflight".into(),
            Script {
                refuse,
                preflight_cleanup: Some(Cleanup {
                    confirmed: false,
                    survivors,
                    error: Some("the check's supervisor vanished".into()),
                }),
                ..Script::default()
            },
        );
        let gate = Arc::new(Gate(p));
        let e = engine_with(gate.clone());
        let id = e.start(req("x"), None).expect("start");
        let r = settle(&e, &id).await;
        assert_eq!(r["state"], "uncertain", "{want}: {r}");
        assert_eq!(code(&r), want, "{r}");
        assert_eq!(r["cleanup_confirmed"], false);
        assert!(
            r["cleanup_error"]
                .as_str()
                .is_some_and(|c| c.contains("vanished")),
            "{r}"
        );
        assert!(gate.0.spawned.lock().expect("lock").is_empty(), "{want}");
        assert_eq!(
            e.release(&id).expect_err("kept").code,
            ErrorCode::CleanupUnconfirmed
        );
    }
}

#[tokio::test]
async fn spawn_failure_is_spawn_failed() {
    let (e, _) = engine(vec![(
        "x",
        Script {
            spawn_error: Some(ToolError::new(ErrorCode::SpawnFailed, "no supervisor")),
            ..Script::default()
        },
    )]);
    let id = e.start(req("x"), None).expect("start");
    let r = settle(&e, &id).await;
    assert_eq!(
        (r["state"].as_str(), code(&r)),
        (Some("failed"), "spawn_failed")
    );
}

#[tokio::test]
async fn a_driver_that_panics_leaves_the_run_uncertain_not_hanging() {
    let (e, _) = engine(vec![(
        "bug",
        Script {
            panic_on_spawn: true,
            ..Script::default()
        },
    )]);
    let id = e.start(req("bug"), None).expect("start");
    let r = settle(&e, &id).await;
    assert_eq!(r["state"], "uncertain");
    assert_eq!(code(&r), "cleanup_unconfirmed");
    assert_eq!(
        e.release(&id).expect_err("kept").code,
        ErrorCode::CleanupUnconfirmed
    );
}

#[tokio::test]
async fn a_final_followed_by_a_hang_is_a_timeout_that_keeps_the_final() {
    // OUT-2, OUT-3, BND-4.
    let mut s = Script::lines(&[INIT, OK_FINAL]);
    s.hang = true;
    let (e, _) = engine(vec![("hang", s)]);
    let id = e.start(req_t("hang", 1), None).expect("start");
    let r = settle(&e, &id).await;
    assert_eq!(r["state"], "timed_out");
    assert_eq!(code(&r), "timeout");
    assert_eq!(r["final"]["result"], "hi");
    assert_eq!(r["signal"], 15);
    assert_eq!(r["cleanup_confirmed"], true);
}

#[tokio::test]
async fn cancel_moves_to_settling_then_cancelled_and_a_second_cancel_changes_nothing() {
    // RUN-6, C-RUN-2: `{run_id, state: "settling", already_settled: false}` at once.
    let mut s = Script::lines(&[INIT]);
    s.hang = true;
    let (e, _) = engine(vec![("slow", s)]);
    let id = e.start(req("slow"), None).expect("start");
    // Wait until it streams.
    let mut progress = e.progress(&id).expect("progress");
    tokio::time::timeout(Duration::from_secs(10), progress.wait_for(|n| *n >= 1))
        .await
        .expect("progress in time")
        .expect("open");
    let c = to_json(&e.cancel(&id).expect("cancel"));
    assert_eq!(
        c,
        json!({"run_id": id, "state": "settling", "already_settled": false})
    );
    let r = settle(&e, &id).await;
    assert_eq!(r["state"], "cancelled");
    assert_eq!(code(&r), "cancelled");
    assert_eq!(r["cleanup_confirmed"], true);
    let again = to_json(&e.cancel(&id).expect("cancel"));
    assert_eq!(
        again,
        json!({"run_id": id, "state": "cancelled", "already_settled": true})
    );
    assert_eq!(
        to_json(&e.result(&id).expect("result")),
        r,
        "cancel never changes a settled run"
    );
}

#[tokio::test]
async fn cancel_during_the_version_check_starts_nothing() {
    let p = ScriptProvider::default();
    p.scripts.lock().expect("lock").insert(
        "preflight".into(),
        Script {
            preflight_delay: Duration::from_millis(300),
            ..Script::default()
        },
    );
    let gate = Arc::new(Gate(p));
    let e = engine_with(gate.clone());
    let id = e.start(req("x"), None).expect("start");
    assert_eq!(e.state(&id), Some(RunState::Pending));
    e.cancel(&id).expect("cancel");
    let r = settle(&e, &id).await;
    assert_eq!(r["state"], "cancelled");
    assert!(gate.0.spawned.lock().expect("lock").is_empty());
}

#[tokio::test]
async fn release_rules() {
    // RUN-7.
    let mut hang = Script::lines(&[INIT]);
    hang.hang = true;
    let mut uncertain = Script::lines(&[INIT, OK_FINAL]);
    uncertain.cleanup = Some(Cleanup {
        confirmed: false,
        survivors: vec![4242],
        error: None,
    });
    let (e, _) = engine(vec![("hang", hang), ("uncertain", uncertain)]);

    let active = e.start(req("hang"), None).expect("start");
    let err = e.release(&active).expect_err("active");
    assert_eq!(err.code, ErrorCode::RunActive);

    let u = e.start(req("uncertain"), None).expect("start");
    let r = settle(&e, &u).await;
    assert_eq!(r["state"], "uncertain");
    assert_eq!(code(&r), "cleanup_failed");
    assert_eq!(
        r["final"]["result"], "hi",
        "OUT-3: the final survives a cleanup failure"
    );
    assert!(
        r["cleanup_error"]
            .as_str()
            .is_some_and(|s| s.contains("4242"))
    );
    let err = e.release(&u).expect_err("uncertain");
    assert_eq!(err.code, ErrorCode::CleanupUnconfirmed);
    assert!(e.result(&u).is_ok(), "it stays retained");

    let ok = e.start(req("fine"), None).expect("start");
    settle(&e, &ok).await;
    assert_eq!(
        to_json(&e.release(&ok).expect("release")),
        json!({"run_id": ok, "released": true})
    );
    assert_eq!(e.result(&ok).expect_err("gone").code, ErrorCode::UnknownRun);
    assert_eq!(
        e.release(&ok).expect_err("gone").code,
        ErrorCode::UnknownRun
    );

    e.cancel(&active).expect("cancel");
    settle(&e, &active).await;
}

#[tokio::test]
async fn a_fifth_active_run_is_capacity_exhausted() {
    // RUN-8.
    let mut hang = Script::lines(&[INIT]);
    hang.hang = true;
    let (e, _) = engine(vec![("hang", hang)]);
    let ids: Vec<String> = (0..4)
        .map(|_| e.start(req("hang"), None).expect("start"))
        .collect();
    let err = e.start(req("hang"), None).expect_err("fifth");
    assert_eq!(err.code, ErrorCode::CapacityExhausted);
    e.shutdown().await;
    for id in &ids {
        assert_eq!(
            to_json(&e.result(id).expect("result"))["state"],
            "cancelled"
        );
    }
    // Settled runs free the active slots.
    let id = e.start(req("hang"), None).expect("a slot is free again");
    e.cancel(&id).expect("cancel");
    settle(&e, &id).await;
}

#[tokio::test]
async fn the_33rd_run_evicts_the_oldest_settled_confirmed_run() {
    let (e, _) = engine(vec![]);
    let mut ids = Vec::new();
    for _ in 0..32 {
        let id = e.start(req("ok"), None).expect("start");
        settle(&e, &id).await;
        ids.push(id);
    }
    let before = e.table.revision();
    let id33 = e.start(req("ok"), None).expect("evicts");
    assert_eq!(
        e.result(&ids[0]).expect_err("evicted").code,
        ErrorCode::UnknownRun
    );
    assert!(e.result(&ids[1]).is_ok());
    assert!(
        e.table.revision() >= before + 2,
        "eviction and admission both count"
    );
    assert_eq!(
        to_json(&e.list())["runs"].as_array().expect("runs").len(),
        32
    );
    settle(&e, &id33).await;
}

fn bare_run(id: &str) -> Arc<table::Run> {
    Arc::new(table::Run {
        run_id: id.into(),
        namespace: "claude",
        timeout_s: 1,
        data: Mutex::new(table::RunData {
            ingest: ingest::Ingest::new(0, None, Arc::new(dialect::Lines)),
            exit: None,
            cleanup: None,
            outcome: None,
        }),
        progress: watch::Sender::new(0),
        state: watch::Sender::new(RunState::Pending),
        cancel: watch::Sender::new(false),
    })
}

#[test]
fn without_an_evictable_run_admission_is_capacity_exhausted() {
    // RUN-8 at the table level. A run that is not evictable is active or uncertain, and at most
    // 4 of those are admitted, so "32 retained, none evictable" is refused by the active limit
    // first: 4 uncertain runs (settled, cleanup unconfirmed) block every new run, even with
    // free room.
    let t = table::Table::default();
    for i in 0..4 {
        t.admit(bare_run(&format!("u{i}")), None).expect("admit");
        assert!(t.advance(&format!("u{i}"), RunState::Uncertain));
    }
    let err = t.admit(bare_run("new"), None).expect_err("4 unconfirmed");
    assert_eq!(err.code, ErrorCode::CapacityExhausted);
    // Uncertain runs are not evictable and cannot be released.
    assert_eq!(
        t.release("u0", || ()).expect_err("x").code,
        ErrorCode::CleanupUnconfirmed
    );

    // 28 settled runs + 4 uncertain = 32: the new run is still refused (4 unconfirmed) ...
    for i in 0..28 {
        t.admit(bare_run(&format!("s{i}")), None)
            .expect_err("blocked");
    }
    // ... while a table of 28 settled + 3 uncertain + 1 settled evicts the oldest settled one.
    let t = table::Table::default();
    for i in 0..3 {
        t.admit(bare_run(&format!("u{i}")), None).expect("admit");
        t.advance(&format!("u{i}"), RunState::Uncertain);
    }
    for i in 0..29 {
        t.admit(bare_run(&format!("s{i}")), None).expect("admit");
        t.advance(&format!("s{i}"), RunState::Failed);
    }
    t.admit(bare_run("new"), None)
        .expect("evicts s0, not an uncertain run");
    assert!(t.get("s0").is_err());
    assert!(t.get("u0").is_ok());
    assert_eq!(t.all().len(), 32);
}

#[tokio::test]
async fn snapshot_follows_meta_work_rules() {
    let (e, _) = engine(vec![]);
    let empty = e.snapshot().expect("empty snapshot");
    assert_eq!(empty["format_version"], 1);
    assert_eq!(empty["instance"], e.instance().to_string());
    assert_eq!(empty["work"], json!([]));
    let r0 = empty["revision"].as_u64().expect("rev");

    let who = uuid::Uuid::new_v4();
    let id = e.start(req("ok"), Some(who)).expect("start");
    settle(&e, &id).await;
    let s = e.snapshot().expect("bound only");
    assert_eq!(
        s["work"],
        json!([{"kind": "claude.run", "run_id": id, "acquired_by": who.to_string(), "state": "succeeded"}])
    );
    let r1 = s["revision"].as_u64().expect("rev");
    // pending admitted, starting, running, settling, succeeded: at least 3 changes.
    assert!(r1 >= r0 + 3, "{r0} -> {r1}");
    assert_eq!(
        e.snapshot().expect("again")["revision"],
        r1,
        "reads change nothing"
    );

    let unbound = e.start(req("ok"), None).expect("start");
    settle(&e, &unbound).await;
    let refused = e.snapshot().expect_err("META-WORK-5");
    assert_eq!(refused.unbound_runs, 1);
    assert!(refused.last_revision > r1);
    let again = e.snapshot().expect_err("still refused");
    assert_eq!(again.last_revision, refused.last_revision, "META-WORK-7");
    e.release(&unbound).expect("release");
    let s = e.snapshot().expect("bound again");
    assert!(s["revision"].as_u64().expect("rev") > refused.last_revision);
    assert_eq!(
        to_json(&e.list())["runs"][0]["acquired_by"],
        who.to_string()
    );
}

#[tokio::test]
async fn three_hundred_events_overflow_the_buffer_and_pages_report_it() {
    // BND-2, RUN-5.
    let mut lines: Vec<String> = (0..300)
        .map(|i| format!(r#"{{"type":"stream_event","i":{i}}}"#))
        .collect();
    lines.push(OK_FINAL.into());
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let (e, _) = engine(vec![("many", Script::lines(&refs))]);
    let id = e.start(req("many"), None).expect("start");
    let first = to_json(&e.events(&id, None, 1).expect("page"));
    let early_cursor = first["next_cursor"].as_str().expect("cursor").to_owned();
    let r = settle(&e, &id).await;
    assert_eq!(r["state"], "succeeded");
    assert_eq!(r["events_total"], 301);
    assert_eq!(r["events_dropped"], 301 - 256);
    let p = to_json(&e.events(&id, Some(&early_cursor), 64).expect("page"));
    assert_eq!(p["stale_cursor"], true);
    assert!(p["missed_events"].as_u64().expect("n") > 0);
    assert_eq!(p["events"].as_array().expect("events").len(), 64);
    assert_eq!(p["has_more"], true);
    // Walk to the end with bounded pages.
    let mut cursor = p["next_cursor"].as_str().expect("c").to_owned();
    let mut seen = 64;
    loop {
        let p = to_json(&e.events(&id, Some(&cursor), 256).expect("page"));
        seen += p["events"].as_array().expect("events").len();
        cursor = p["next_cursor"].as_str().expect("c").to_owned();
        if p["has_more"] == false {
            break;
        }
    }
    assert_eq!(seen, 256);
    assert_eq!(
        e.events(&id, None, 0).expect_err("limit").extra["field"],
        "/limit"
    );
    assert_eq!(
        e.events(&id, None, 257).expect_err("limit").extra["field"],
        "/limit"
    );
    assert_eq!(
        e.events(&id, Some("bogus"), 1).expect_err("cursor").extra["field"],
        "/cursor"
    );
}

#[tokio::test]
async fn an_escaped_descendant_holding_stdout_does_not_hang_settling() {
    // SUP-4, C-SUP-4: the leader ended and was reaped, stdout stays open: a bounded drain, then
    // settle, without waiting for the descendant that holds the pipe.
    let mut s = Script::lines(&[INIT, OK_FINAL]);
    s.hold_stdout = true;
    let (e, _) = engine(vec![("escaped", s)]);
    let id = e.start(req("escaped"), None).expect("start");
    let r = settle(&e, &id).await;
    assert_eq!(r["state"], "succeeded");
}

#[tokio::test(start_paused = true)]
async fn a_silent_supervisor_after_termination_leaves_the_run_uncertain() {
    // SUP-3: no acknowledgement within the bound is cleanup_unconfirmed; the state is uncertain.
    // Paused time: the timeout and the cleanup bound pass as soon as nothing else can happen.
    let mut s = Script::lines(&[INIT, OK_FINAL]);
    s.hang = true;
    s.silent_after_term = true;
    let (e, _) = engine(vec![("silent", s)]);
    let id = e.start(req_t("silent", 1), None).expect("start");
    let r = settle(&e, &id).await;
    assert_eq!(r["state"], "uncertain");
    assert_eq!(code(&r), "timeout", "the primary cause stays the timeout");
    assert_eq!(r["cleanup_confirmed"], false);
    assert!(
        r["cleanup_error"]
            .as_str()
            .is_some_and(|s| s.contains("no cleanup report"))
    );
    assert_eq!(r["final"]["result"], "hi");
}

#[tokio::test]
async fn stderr_tail_and_native_error_from_stderr() {
    let s = Script {
        steps: vec![Step::Err(
            b"Error: Invalid session ID. Must be a valid UUID.\n".to_vec(),
        )],
        exit_code: 1,
        ..Script::default()
    };
    let (e, _) = engine(vec![("bad", s)]);
    let id = e.start(req("bad"), None).expect("start");
    let r = settle(&e, &id).await;
    assert_eq!(code(&r), "missing_final");
    assert_eq!(r["exit_code"], 1);
    assert_eq!(
        r["native_error"],
        json!({"message": "Error: Invalid session ID. Must be a valid UUID.", "source": "stderr"})
    );
    assert_eq!(
        r["stderr_tail"],
        "Error: Invalid session ID. Must be a valid UUID.\n"
    );
}

#[tokio::test]
async fn results_while_running_are_not_completed() {
    let mut s = Script::lines(&[INIT]);
    s.steps.push(Step::Sleep(Duration::from_secs(30)));
    let (e, _) = engine(vec![("slow", s)]);
    let id = e.start(req("slow"), None).expect("start");
    let r = to_json(&e.result(&id).expect("result"));
    assert_eq!(r["completed"], false);
    assert_eq!(r["is_error"], false);
    assert_eq!(r["error"], Value::Null);
    assert_eq!(r["cleanup_confirmed"], false);
    assert!(
        !e.wait_settled(&id, Some(Duration::from_millis(50)))
            .await
            .expect("known")
    );
    e.cancel(&id).expect("cancel");
    settle(&e, &id).await;
}

#[tokio::test]
async fn invalid_arguments_name_their_field() {
    let (e, _) = engine(vec![]);
    let mut r = req("x");
    r.timeout_s = Some(0);
    assert_eq!(
        e.start(r, None).expect_err("bad").extra["field"],
        "/timeout_s"
    );
    assert_eq!(
        e.start(req(""), None).expect_err("bad").extra["field"],
        "/prompt"
    );
    assert!(
        to_json(&e.list())["runs"]
            .as_array()
            .expect("runs")
            .is_empty(),
        "nothing was admitted"
    );
}

#[tokio::test]
async fn unknown_runs_are_unknown_run() {
    let (e, _) = engine(vec![]);
    assert_eq!(
        e.result("run_nope").expect_err("x").code,
        ErrorCode::UnknownRun
    );
    assert_eq!(
        e.events("run_nope", None, 1).expect_err("x").code,
        ErrorCode::UnknownRun
    );
    assert_eq!(
        e.cancel("run_nope").expect_err("x").code,
        ErrorCode::UnknownRun
    );
    assert_eq!(
        e.release("run_nope").expect_err("x").code,
        ErrorCode::UnknownRun
    );
    assert!(e.wait_settled("run_nope", None).await.is_err());
    assert!(e.progress("run_nope").is_none());
}

#[tokio::test]
async fn shutdown_cancels_every_active_run_and_waits_for_cleanup() {
    // T8.
    let mut hang = Script::lines(&[INIT]);
    hang.hang = true;
    let (e, _) = engine(vec![("hang", hang)]);
    let a = e.start(req("hang"), None).expect("start");
    let b = e.start(req("hang"), None).expect("start");
    e.shutdown().await;
    for id in [a, b] {
        let r = to_json(&e.result(&id).expect("result"));
        assert_eq!(r["state"], "cancelled");
        assert_eq!(r["cleanup_confirmed"], true);
    }
}
