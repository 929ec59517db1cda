//! A bounded `json_schema` (JSONOUT-4, JSONOUT-5) through the adapter with fake-claude: the
//! limits refused up front with their names, and a validation that runs past its time budget
//! holding no read and no shutdown.

use std::time::{Duration, Instant};

use nix::sys::signal::Signal;
use serde_json::{Map, Value, json};

use crate::runs::{Harness, args, code, split};
use crate::support::Session;

/// `$defs` d0..=depth, each `allOf` of `fan` references to the one below: fan^depth
/// evaluations at the top, in about 2.5 KB at depth 11.
fn fan_out(depth: usize, fan: usize) -> Value {
    let mut defs = Map::new();
    defs.insert("d0".into(), json!({"type": "object"}));
    for d in 1..=depth {
        let refs: Vec<Value> = (0..fan)
            .map(|_| json!({"$ref": format!("#/$defs/d{}", d - 1)}))
            .collect();
        defs.insert(format!("d{d}"), json!({"allOf": refs}));
    }
    json!({"$defs": defs, "$ref": format!("#/$defs/d{depth}")})
}

/// Within every static limit, yet each string's match runs into the regex engine's
/// backtracking limit (about 25 ms each in a release build, 200 ms in a debug one):
/// `structured-slow`'s 1000 distinct strings take far longer than the time budget.
fn slow_schema() -> Value {
    json!({"type": "object", "properties": {"xs": {"type": "array",
        "items": {"anyOf": [{"pattern": "^(a*)*(?!a)\\1c"}, true]}}}})
}

#[test]
fn a_depth_eleven_fan_out_schema_is_refused_up_front_naming_its_limit() {
    // JSONOUT-4: refused when the call arrives, before any native process runs.
    let schema = fan_out(11, 8);
    assert!(schema.to_string().len() < 3 * 1024);
    let mut h = Harness::new();
    let started = Instant::now();
    let (r, is_error) = split(&h.run(args("structured-valid", json!({"json_schema": schema}))));
    assert!(is_error, "{r}");
    assert_eq!(code(&r), "invalid_arguments", "{r}");
    let e = &r["error"];
    assert_eq!(e["field"], "/json_schema", "{r}");
    assert_eq!(e["limit"], "evaluations", "{r}");
    assert_eq!(e["max"], 4096, "{r}");
    assert!(e["value"].as_u64().is_some_and(|v| v > 4096), "{r}");
    assert!(
        e["message"]
            .as_str()
            .is_some_and(|m| m.contains("`evaluations`")),
        "{r}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(h.runs().is_empty(), "nothing ran: {:?}", h.runs());
}

#[test]
fn each_json_schema_limit_is_refused_with_its_name() {
    // JSONOUT-4, TOOL-3: `invalid_arguments` at /json_schema, `limit` naming the limit.
    let mut deep = json!({"type": "object"});
    for _ in 0..40 {
        deep = json!({"properties": {"a": deep}});
    }
    let refs: Vec<Value> = (0..257)
        .map(|_| json!({"properties": {"a": {"$ref": "#/$defs/x"}}}))
        .collect();
    let cases = [
        (json!({"description": "x".repeat(70_000)}), "bytes"),
        (deep, "depth"),
        (json!({"$defs": {"x": true}, "prefixItems": refs}), "refs"),
        (json!({"$ref": "https://example.com/s.json"}), "ref_target"),
        (fan_out(5, 8), "evaluations"),
        (
            json!({"allOf": [{"items": {"$ref": "#"}}, {"items": {"$ref": "#"}}]}),
            "evaluations",
        ),
    ];
    let mut s = Session::start();
    s.init();
    for (schema, limit) in cases {
        let r = s.call_tool(
            "claude.run.start",
            json!({"prompt": "x", "json_schema": schema}),
            None,
        );
        let (r, is_error) = split(&r);
        assert!(is_error, "{limit}: {r}");
        assert_eq!(code(&r), "invalid_arguments", "{limit}: {r}");
        assert_eq!(r["error"]["field"], "/json_schema", "{limit}: {r}");
        assert_eq!(r["error"]["limit"], limit, "{r}");
        assert!(r["error"]["value"] != Value::Null, "{limit}: {r}");
    }
}

/// A result without its final (which holds the whole output): for failure messages.
fn brief(r: &Value) -> Value {
    let mut r = r.clone();
    if let Some(m) = r.as_object_mut() {
        m.remove("final");
    }
    r
}

/// `claude.run.result` of `run_id`, timed.
fn read(s: &mut Session, tool: &str, run_id: &str) -> (Value, Duration) {
    let started = Instant::now();
    let r = s.call_tool(tool, json!({"run_id": run_id}), None);
    let took = started.elapsed();
    (split(&r).0, took)
}

/// Starts `structured-slow` with [`slow_schema`] and waits until its output is being judged:
/// the native process has exited (`exit_code` known) and the run is still `settling`. Every
/// read on the way answers within `bound`.
fn start_slow_validation(h: &mut Harness, bound: Duration) -> String {
    let r = h.s.call_tool(
        "claude.run.start",
        args(
            "structured-slow",
            json!({"json_schema": slow_schema(), "timeout_s": 120}),
        ),
        None,
    );
    let (r, is_error) = split(&r);
    assert!(!is_error, "{r}");
    let run_id = r["run_id"].as_str().expect("run_id").to_owned();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (r, took) = read(&mut h.s, "claude.run.result", &run_id);
        assert!(took < bound, ".result took {took:?}: {}", brief(&r));
        if r["exit_code"] == 0 && r["state"] == "settling" {
            return run_id;
        }
        assert!(
            r["completed"] == false,
            "settled before it was seen judging: {r}"
        );
        assert!(Instant::now() < deadline, "never judged: {r}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_validation_in_flight_holds_no_read_and_fails_at_its_time_budget() {
    // JSONOUT-5. There is no event for "did not wait", so the reads are timed: 100 ms is
    // generous for an answer that takes no lock held by the validation (on a build that
    // validated on the runtime under the run's lock, they waited the whole validation).
    let bound = Duration::from_millis(100);
    let mut h = Harness::new();
    // The polls that find the judging need only not wait on it: a looser bound there keeps a
    // loaded machine from failing the test on a slow poll rather than on a wait.
    let run_id = start_slow_validation(&mut h, Duration::from_secs(2));
    let judging = Instant::now();
    for tool in ["claude.run.list", "claude.run.result", "claude.run.events"] {
        let args = if tool == "claude.run.list" {
            json!({})
        } else {
            json!({"run_id": run_id})
        };
        let started = Instant::now();
        let r = h.s.call_tool(tool, args, None);
        let took = started.elapsed();
        assert_eq!(r["isError"], false, "{tool}: {r}");
        assert!(
            took < bound,
            "{tool} took {took:?} while the output was judged"
        );
    }
    // The budget (5 s) ends it; the validation alone would take far longer in this build.
    let r = crate::protocol::calls::wait_settled(&mut h.s, &run_id);
    let waited = judging.elapsed();
    let r = brief(&r);
    assert_eq!(r["state"], "failed", "{r}");
    assert_eq!(code(&r), "invalid_structured_output", "{r}");
    assert_eq!(r["error"]["reason"], "budget", "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("5000 ms budget")),
        "{r}"
    );
    assert_eq!(r["structured"], Value::Null, "{r}");
    assert!(waited < Duration::from_secs(15), "{waited:?}");
}

#[test]
fn shutdown_with_a_validation_in_flight_ends_within_its_bound() {
    // T8, C-T8, JSONOUT-5: SIGTERM and stdin EOF while an output is judged; the validation's
    // thread is not waited for beyond its budget, so the adapter exits 0 well within 25 s.
    for how in ["SIGTERM", "stdin EOF"] {
        let mut h = Harness::new();
        start_slow_validation(&mut h, Duration::from_secs(5));
        let started = Instant::now();
        if how == "SIGTERM" {
            h.s.signal(Signal::SIGTERM);
        } else {
            h.s.close_stdin();
        }
        while h.s.recv_line(Duration::from_secs(25)).is_some() {}
        let st =
            h.s.wait_exit(Duration::from_secs(25))
                .unwrap_or_else(|| panic!("{how}: no exit within 25 s"));
        let took = started.elapsed();
        assert_eq!(st.code(), Some(0), "{how}: {}", h.s.stderr_text());
        assert!(took < Duration::from_secs(25), "{how}: exit after {took:?}");
    }
}
