//! BND-1..3 over stdio: oversized events and finals, the 256-event buffer with its cursors, and
//! flat memory while a child writes a lot.

use std::time::Duration;

use serde_json::{Value, json};
use testkit::procs::vm_hwm_kib;

use super::{Harness, args, code, scenario_file, split};

#[test]
fn an_oversized_non_final_event_is_omitted_and_counted_and_the_run_goes_on() {
    // BND-1; C-RUN-3: `events_total` counts the oversized line, the page's `omitted_oversized` too.
    let mut h = Harness::new();
    let (r, _) = split(&h.run(args("oversized-event", json!({}))));
    assert_eq!(r["state"], "succeeded");
    let run_id = r["run_id"].as_str().expect("id").to_owned();
    let (page, _) = h.tool("claude.run.events", json!({"run_id": run_id, "limit": 256}));
    assert_eq!(page["omitted_oversized"], 1);
    let events = page["events"].as_array().expect("events");
    assert_eq!(
        r["events_total"].as_u64(),
        Some(events.len() as u64 + 1),
        "the omitted event is counted in events_total"
    );
    assert!(events.iter().all(|e| e.to_string().len() < 1024 * 1024));
}

#[test]
fn a_final_over_128_kib_is_oversized_final() {
    // BND-3.
    let mut h = Harness::new();
    let (r, _) = split(&h.run(args("oversized-final", json!({}))));
    assert_eq!(code(&r), "oversized_final");
    assert_eq!(
        r["final"],
        Value::Null,
        "never passed as a truncated success"
    );
}

#[test]
fn a_final_over_1_mib_is_oversized_final_not_missing_final() {
    // BND-3: `type` comes last on a 1.5 MiB line that is never held.
    let mut h = Harness::new();
    let (r, _) = split(&h.run(args("huge-final", json!({}))));
    assert_eq!(code(&r), "oversized_final");
    assert!(r["native_session_id"].is_string());
}

#[test]
fn three_hundred_events_overflow_the_buffer_and_an_old_cursor_is_stale() {
    // BND-2, RUN-5, C-RUN-3: a cursor taken early, read after 300 more events, is stale;
    // `events_dropped` counts the overflow.
    let mut scenario: Value = serde_json::from_str(
        &std::fs::read_to_string(scenario_file("many-events")).expect("many-events scenario"),
    )
    .expect("json");
    let steps = scenario["steps"].as_array_mut().expect("steps");
    steps.insert(1, json!({"sleep_ms": 1500}));
    let mut h = Harness::new();
    let file = h.dir.path().join("many-events-paused.json");
    std::fs::write(&file, scenario.to_string()).expect("write scenario");
    let run_id = h.start(json!({"prompt": super::prompt(&file.display().to_string())}));
    let early = h.until(&run_id, "the first event", |r| r["events_total"] == 1);
    assert_eq!(early["completed"], false);
    let (first, _) = h.tool("claude.run.events", json!({"run_id": run_id}));
    assert_eq!(first["events"].as_array().map(Vec::len), Some(1));
    let cursor = first["next_cursor"].as_str().expect("cursor").to_owned();

    let r = h.settled(&run_id);
    assert_eq!(r["state"], "succeeded");
    assert_eq!(r["events_total"], 302);
    assert_eq!(r["events_dropped"], 302 - 256);
    let (page, _) = h.tool(
        "claude.run.events",
        json!({"run_id": run_id, "cursor": cursor, "limit": 100}),
    );
    assert_eq!(page["stale_cursor"], true);
    assert_eq!(page["missed_events"], 302 - 256 - 1);
    assert_eq!(page["events"].as_array().map(Vec::len), Some(100));
    assert_eq!(page["has_more"], true);
    // Pages are bounded whatever is asked.
    let big = h.s.call_tool(
        "claude.run.events",
        json!({"run_id": run_id, "limit": 100000}),
        None,
    );
    assert!(split(&big).1, "limit above 256 is invalid_arguments");
}

#[test]
fn memory_stays_flat_while_a_child_writes_a_lot() {
    // BND-1..3: 128 MiB of stream-json through the adapter, peak RSS well under 64 MiB.
    let mut h = Harness::with(|a| a.env("FAKE_CLAUDE_FLOOD_MIB", "128"));
    let before = vm_hwm_kib(h.s.pid()).expect("VmHWM");
    let r = h.run_within(args("flood", json!({})), Duration::from_secs(300));
    let (r, _) = split(&r);
    assert_eq!(r["state"], "succeeded", "{r}");
    assert!(r["events_total"].as_u64().is_some_and(|n| n > 30_000));
    let peak = vm_hwm_kib(h.s.pid()).expect("VmHWM");
    assert!(
        peak < 64 * 1024,
        "adapter peak RSS {peak} KiB (was {before} KiB before the run)"
    );
}
