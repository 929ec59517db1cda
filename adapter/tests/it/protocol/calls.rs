//! Helpers for the protocol tests that need runs: sessions with fake-claude on PATH, scenario
//! prompts, and bounded polling of a run's state.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::tools::structured;
use crate::support::{Adapter, Session, TIMEOUT};

/// The prompt that makes fake-claude play `scenario`.
pub fn scenario(name: &str) -> String {
    format!("fake-claude:scenario={name}")
}

/// An initialized session whose `claude` is fake-claude, proposing `version`.
pub fn session(version: &str) -> Session {
    let mut s = Adapter::new().fake_claude().spawn();
    let r = s.initialize(Some(json!(version)));
    assert_eq!(r["result"]["protocolVersion"], version, "{r}");
    s
}

/// `claude.run.start` of `scenario` (with `meta`); returns the run id.
pub fn start(s: &mut Session, name: &str, meta: Option<Value>) -> String {
    let r = s.call_tool(
        "claude.run.start",
        json!({"prompt": scenario(name), "timeout_s": 60}),
        meta,
    );
    assert_eq!(r["isError"], false, "start {name}: {r}");
    structured(&r)["run_id"]
        .as_str()
        .expect("run_id")
        .to_owned()
}

/// `claude.run.result` as data (asserting a successful read).
pub fn result(s: &mut Session, run_id: &str) -> Value {
    let r = s.call_tool("claude.run.result", json!({"run_id": run_id}), None);
    assert_eq!(r["isError"], false, "result read: {r}");
    structured(&r)
}

/// Polls `claude.run.result` until `pred` holds (bounded by [`TIMEOUT`]); returns that result.
pub fn wait_until(s: &mut Session, run_id: &str, pred: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        let r = result(s, run_id);
        if pred(&r) {
            return r;
        }
        assert!(
            Instant::now() < deadline,
            "run {run_id} never reached the awaited state: {r}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Waits until the run streams (its process is up and has produced events).
pub fn wait_running(s: &mut Session, run_id: &str) -> Value {
    wait_until(s, run_id, |r| {
        r["state"] == "running" && r["events_total"].as_u64().unwrap_or(0) > 0
    })
}

/// Waits until the run settled.
pub fn wait_settled(s: &mut Session, run_id: &str) -> Value {
    wait_until(s, run_id, |r| r["completed"] == true)
}

/// The only run of `claude.run.list` whose state is active, waiting until there is one.
pub fn the_active_run(s: &mut Session) -> String {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        let r = s.call_tool("claude.run.list", json!({}), None);
        let list = structured(&r);
        let active: Vec<&Value> = list["runs"]
            .as_array()
            .expect("runs")
            .iter()
            .filter(|r| r["completed"] == false)
            .collect();
        if let [one] = active.as_slice() {
            return one["run_id"].as_str().expect("run_id").to_owned();
        }
        assert!(Instant::now() < deadline, "no single active run: {list}");
        std::thread::sleep(Duration::from_millis(50));
    }
}
