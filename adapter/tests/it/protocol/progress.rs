//! T9: a `progressToken` on `claude.run` gets `notifications/progress` as native events arrive,
//! rate-limited, never after the response; no token, no progress.

use std::time::Instant;

use serde_json::{Value, json};

use super::calls::{scenario, session};
use super::tools::structured;
use crate::support::TIMEOUT;

/// Runs `slow-stream` (events 300 ms apart) with `meta`; returns the response, the progress
/// notifications received before it, and the seconds the call took.
fn run_slow(version: &str, meta: Option<Value>) -> (Value, Vec<Value>, f64) {
    run_scenario("slow-stream", version, meta)
}

fn run_scenario(name: &str, version: &str, meta: Option<Value>) -> (Value, Vec<Value>, f64) {
    let mut s = session(version);
    let mut params = json!({"name": "claude.run",
                            "arguments": {"prompt": scenario(name), "timeout_s": 60}});
    if let Some(m) = meta {
        params["_meta"] = m;
    }
    let began = Instant::now();
    let id = s.request("tools/call", Some(params));
    let resp = s.response(&id);
    let took = began.elapsed().as_secs_f64();
    let progress: Vec<Value> = s
        .notifications
        .iter()
        .filter(|n| n["method"] == "notifications/progress")
        .map(|n| n["params"].clone())
        .collect();
    // Nothing about this call may follow its response.
    s.close_stdin();
    while let Some(v) = s.recv(TIMEOUT) {
        assert_ne!(
            v["method"], "notifications/progress",
            "progress after the response: {v}"
        );
    }
    (resp, progress, took)
}

#[test]
fn a_progress_token_gets_increasing_progress_before_the_response() {
    let (resp, progress, took) = run_slow("2025-06-18", Some(json!({"progressToken": "tok-1"})));
    eprintln!(
        "{} progress notifications in {took:.1} s: {progress:?}",
        progress.len()
    );
    assert_eq!(structured(&resp["result"])["state"], "succeeded", "{resp}");
    assert!(
        progress.len() >= 2,
        "a 3 s stream of events gave {} progress notifications",
        progress.len()
    );
    let mut last = 0;
    for p in &progress {
        assert_eq!(p["progressToken"], "tok-1", "{p}");
        let n = p["progress"].as_u64().expect("progress is a count");
        assert!(n > last, "progress must increase: {progress:?}");
        last = n;
        assert!(p["message"].is_string(), "{p}");
    }
    // At most 4 per second (plus one for the window's edges).
    let allowed = (took * 4.0).ceil() as usize + 1;
    assert!(
        progress.len() <= allowed,
        "{} notifications in {took:.1} s",
        progress.len()
    );
    let events_total = structured(&resp["result"])["events_total"]
        .as_u64()
        .expect("events_total");
    assert!(last <= events_total, "progress counts native events");
}

#[test]
fn an_integer_token_is_echoed_and_2024_11_05_gets_no_message_field() {
    let (_, progress, _) = run_slow("2024-11-05", Some(json!({"progressToken": 0})));
    assert!(!progress.is_empty());
    for p in &progress {
        assert_eq!(p["progressToken"], 0, "{p}");
        assert!(
            p.get("message").is_none(),
            "message is not in 2024-11-05: {p}"
        );
    }
}

#[test]
fn without_a_progress_token_there_is_no_progress() {
    let (resp, progress, _) = run_slow("2025-06-18", Some(json!({"claudecode/toolUseId": "t"})));
    assert_eq!(resp["result"]["isError"], false, "{resp}");
    assert!(progress.is_empty(), "{progress:?}");
}

#[test]
fn a_burst_of_events_is_rate_limited() {
    // 300 events written at once: progress stays within 4 per second.
    let (resp, progress, took) = run_scenario(
        "many-events",
        "2025-06-18",
        Some(json!({"progressToken": "burst"})),
    );
    let result = structured(&resp["result"]);
    assert!(result["events_total"].as_u64() > Some(300), "{result}");
    let allowed = (took * 4.0).ceil() as usize + 1;
    assert!(
        progress.len() <= allowed,
        "{} notifications in {took:.1} s",
        progress.len()
    );
}

#[test]
fn a_run_that_settles_before_the_first_tick_still_reports_progress_once() {
    // T9: whether a call saw progress must not depend on scheduling. `success` writes all its
    // events at once; the forwarder may never see a change, yet the call gets exactly one
    // notification carrying the final count, before its response.
    for _ in 0..3 {
        let (resp, progress, _) =
            run_scenario("success", "2025-06-18", Some(json!({"progressToken": 7})));
        let result = structured(&resp["result"]);
        assert_eq!(result["state"], "succeeded", "{resp}");
        assert!(
            !progress.is_empty(),
            "no progress for a run with events: {resp}"
        );
        let last = progress.last().expect("one")["progress"].as_u64();
        assert!(last.is_some_and(|n| n > 0), "{progress:?}");
        assert!(
            last <= result["events_total"].as_u64(),
            "{progress:?} vs {result}"
        );
    }
}
