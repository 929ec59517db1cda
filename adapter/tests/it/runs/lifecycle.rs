//! Run lifecycle over stdio: timeouts, cancel, release, capacity and process-group cleanup
//! (RUN-6..10, BND-4, OUT-2/OUT-3, SUP-1..4, T8).

use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::{Value, json};
use testkit::procs::{alive, group_members, kill_group, kill_pid};

use super::{Harness, args, code, split};

/// The native group of the only run invocation so far.
fn native_pgid(h: &Harness) -> u32 {
    let runs = h.runs();
    let inv = runs.last().expect("a run invocation");
    assert_eq!(
        inv["pgid"], inv["pid"],
        "SUP-1: the native process leads its group"
    );
    pgid_of(inv)
}

/// The `pgid` an invocation logged.
fn pgid_of(inv: &Value) -> u32 {
    u32::try_from(inv["pgid"].as_u64().expect("pgid")).expect("a pgid fits u32")
}

fn wait_group_gone(pgid: u32) {
    let left = testkit::procs::wait_group_gone(pgid, Duration::from_secs(10));
    assert!(left.is_empty(), "group {pgid} still has {left:?}");
}

#[test]
fn a_final_followed_by_a_hang_is_a_timeout_that_keeps_the_final() {
    // OUT-2 ("a final followed by a process that does not exit is a timeout"), OUT-3, BND-4.
    let mut h = Harness::new();
    let (r, is_error) = split(&h.run(args("hang-after-final", json!({"timeout_s": 1}))));
    assert!(is_error);
    assert_eq!(r["state"], "timed_out");
    assert_eq!(code(&r), "timeout");
    assert_eq!(
        r["final"]["result"], "Hi there!",
        "the first valid final stays visible"
    );
    assert_eq!(r["cleanup_confirmed"], true);
    wait_group_gone(native_pgid(&h));
}

#[test]
fn a_process_ignoring_sigterm_is_killed_after_the_grace() {
    // SUP-3: SIGTERM, grace, SIGKILL; cleanup confirmed.
    let mut h = Harness::new();
    let (r, _) = split(&h.run(args("ignore-sigterm", json!({"timeout_s": 1}))));
    assert_eq!(r["state"], "timed_out");
    assert_eq!(r["signal"], 9);
    assert_eq!(r["cleanup_confirmed"], true);
    assert_eq!(r["cleanup_error"], Value::Null);
    assert!(group_members(native_pgid(&h)).is_empty());
}

#[test]
fn a_grandchild_left_in_the_group_is_killed_and_settling_does_not_wait_for_it() {
    // SUP-1, SUP-4: the leader succeeds and exits; its child keeps stdout open in the group.
    let mut h = Harness::new();
    let started = Instant::now();
    let (r, _) = split(&h.run(args("grandchild", json!({}))));
    assert_eq!(r["state"], "succeeded", "{r}");
    assert_eq!(r["cleanup_confirmed"], true);
    assert!(group_members(native_pgid(&h)).is_empty());
    assert!(started.elapsed() < Duration::from_secs(30));
}

#[test]
fn grandchildren_ignoring_sigterm_are_killed_on_timeout() {
    let mut h = Harness::new();
    let (r, _) = split(&h.run(args("grandchild-ignore-sigterm", json!({"timeout_s": 1}))));
    assert_eq!(r["state"], "timed_out");
    assert_eq!(r["cleanup_confirmed"], true);
    assert!(group_members(native_pgid(&h)).is_empty());
}

#[test]
fn an_escaped_grandchild_is_a_documented_limit_not_a_hang() {
    // SUP-4: a descendant that setsid()s out of the group survives group cleanup and may hold
    // stdout; settling drains for a bounded time and does not wait for it (it lives 20 s).
    let pid_dir = tempfile::tempdir().expect("temp dir");
    let pidfile = pid_dir.path().join("escapees");
    let mut h = Harness::with(|a| a.env("FAKE_CLAUDE_ESCAPEE_PIDFILE", &pidfile));
    let started = Instant::now();
    let (r, _) = split(&h.run(args("escaped-grandchild", json!({}))));
    let took = started.elapsed();
    assert_eq!(r["state"], "succeeded", "{r}");
    assert_eq!(r["cleanup_confirmed"], true, "the group itself is gone");
    assert!(
        took < Duration::from_secs(15),
        "settling waited {took:?} for the escapee"
    );
    let escapees: Vec<u32> = std::fs::read_to_string(&pidfile)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect();
    assert_eq!(escapees.len(), 1);
    assert!(
        alive(escapees[0]),
        "the documented limit: it left the group and survives"
    );
    kill_pid(escapees[0]);
}

#[test]
fn stdout_closed_early_waits_for_the_exit_and_is_missing_final() {
    let mut h = Harness::new();
    let (r, _) = split(&h.run(args("stdout-closed-early", json!({}))));
    assert_eq!(code(&r), "missing_final");
    assert_eq!(r["exit_code"], 0, "the exit was awaited after stdout's EOF");
    assert_eq!(r["cleanup_confirmed"], true);
}

#[test]
fn cancel_during_streaming_kills_the_group_and_settles_cancelled() {
    // RUN-6.
    let mut h = Harness::new();
    let run_id = h.start(args("grandchild-hang", json!({})));
    h.until(&run_id, "streaming", |r| {
        r["state"] == "running" && r["events_total"].as_u64() >= Some(1)
    });
    let pgid = native_pgid(&h);
    let (c, is_error) = h.tool("claude.run.cancel", json!({"run_id": run_id}));
    assert!(!is_error);
    assert_eq!(c["already_settled"], false);
    assert_eq!(c["state"], "settling");
    let r = h.settled(&run_id);
    assert_eq!(r["state"], "cancelled");
    assert_eq!(code(&r), "cancelled");
    assert_eq!(r["cleanup_confirmed"], true);
    assert!(
        group_members(pgid).is_empty(),
        "grandchild killed with its leader"
    );
    let (again, _) = h.tool("claude.run.cancel", json!({"run_id": run_id}));
    assert_eq!(
        again,
        json!({"run_id": run_id, "state": "cancelled", "already_settled": true})
    );
    assert_eq!(h.result(&run_id), r, "cancel never changes a settled run");
}

#[test]
fn release_of_active_settled_and_uncertain_runs() {
    // RUN-7. An uncertain run is made by SIGKILLing its supervisor: no acknowledgement.
    let mut h = Harness::new();
    let active = h.start(args("hang-before-final", json!({})));
    h.until(&active, "running", |r| {
        r["events_total"].as_u64() >= Some(1)
    });
    let (e, is_error) = h.tool("claude.run.release", json!({"run_id": active}));
    assert!(is_error);
    assert_eq!(e["error"]["code"], "run_active");

    let inv = h.runs().pop().expect("invocation");
    let supervisor = inv["ppid"].as_i64().expect("ppid");
    let pgid = pgid_of(&inv);
    kill(Pid::from_raw(supervisor as i32), Signal::SIGKILL).expect("kill the supervisor");
    let r = h.settled(&active);
    assert_eq!(r["state"], "uncertain", "{r}");
    assert_eq!(r["cleanup_confirmed"], false);
    assert!(r["cleanup_error"].is_string());
    let (e, is_error) = h.tool("claude.run.release", json!({"run_id": active}));
    assert!(is_error);
    assert_eq!(e["error"]["code"], "cleanup_unconfirmed");
    assert_eq!(h.result(&active)["state"], "uncertain", "it stays retained");
    // The orphaned group is ours to clean up in the test.
    kill_group(pgid);

    let (done, _) = split(&h.run(args("success", json!({}))));
    let id = done["run_id"].as_str().expect("id").to_owned();
    let (ok, is_error) = h.tool("claude.run.release", json!({"run_id": id}));
    assert!(!is_error);
    assert_eq!(ok["run_id"], id.as_str());
    let (gone, is_error) = h.tool("claude.run.result", json!({"run_id": id}));
    assert!(is_error);
    assert_eq!(gone["error"]["code"], "unknown_run");
}

#[test]
fn a_fifth_concurrent_active_run_is_capacity_exhausted() {
    // RUN-8.
    let mut h = Harness::new();
    let ids: Vec<String> = (0..4)
        .map(|_| h.start(args("hang-before-final", json!({}))))
        .collect();
    let (e, is_error) = h.tool("claude.run.start", args("success", json!({})));
    assert!(is_error);
    assert_eq!(e["error"]["code"], "capacity_exhausted");
    for id in &ids {
        h.tool("claude.run.cancel", json!({"run_id": id}));
    }
    for id in &ids {
        assert_eq!(h.settled(id)["state"], "cancelled");
    }
    let (ok, is_error) = split(&h.run(args("success", json!({}))));
    assert!(!is_error, "slots are free again: {ok}");
}

#[test]
fn the_33rd_run_evicts_the_oldest_settled_run_unless_four_are_active() {
    // RUN-8.
    let mut h = Harness::new();
    let mut ids = Vec::new();
    for _ in 0..32 {
        let (r, _) = split(&h.run(args("missing-final", json!({}))));
        assert_eq!(r["completed"], true);
        ids.push(r["run_id"].as_str().expect("id").to_owned());
    }
    let (list, _) = h.tool("claude.run.list", json!({}));
    assert_eq!(list["runs"].as_array().map(Vec::len), Some(32));

    // The 33rd evicts the oldest settled run with confirmed cleanup.
    let (r33, _) = split(&h.run(args("missing-final", json!({}))));
    assert_eq!(r33["completed"], true);
    let (gone, is_error) = h.tool("claude.run.result", json!({"run_id": ids[0]}));
    assert!(is_error);
    assert_eq!(gone["error"]["code"], "unknown_run");
    let (list, _) = h.tool("claude.run.list", json!({}));
    assert_eq!(list["runs"].as_array().map(Vec::len), Some(32));

    // Four active runs (each evicting one settled run), then a fifth is refused and nothing
    // more is evicted.
    let active: Vec<String> = (0..4)
        .map(|_| h.start(args("hang-before-final", json!({}))))
        .collect();
    let (list, _) = h.tool("claude.run.list", json!({}));
    let before: Vec<Value> = list["runs"].as_array().expect("runs").clone();
    assert_eq!(before.len(), 32);
    let (e, is_error) = h.tool("claude.run.start", args("success", json!({})));
    assert!(is_error);
    assert_eq!(e["error"]["code"], "capacity_exhausted");
    let (list, _) = h.tool("claude.run.list", json!({}));
    let ids_before: Vec<&Value> = before.iter().map(|r| &r["run_id"]).collect();
    let ids_after: Vec<&Value> = list["runs"]
        .as_array()
        .expect("runs")
        .iter()
        .map(|r| &r["run_id"])
        .collect();
    assert_eq!(ids_before, ids_after, "a refused run evicts nothing");
    for id in &active {
        h.tool("claude.run.cancel", json!({"run_id": id}));
    }
    for id in &active {
        h.settled(id);
    }
}

#[test]
fn stdin_eof_cancels_active_runs_and_the_adapter_exits_after_cleanup() {
    // T8.
    let mut h = Harness::new();
    let run_id = h.start(args("grandchild-hang", json!({})));
    h.until(&run_id, "streaming", |r| {
        r["events_total"].as_u64() >= Some(1)
    });
    let pgid = native_pgid(&h);
    h.s.close_stdin();
    let status =
        h.s.wait_exit(Duration::from_secs(30))
            .expect("the adapter exits");
    assert!(status.success(), "{status:?}");
    assert!(
        group_members(pgid).is_empty(),
        "the native group died with the run"
    );
}
