//! The run engine end to end: the built adapter over stdio, running fake-claude scenarios
//! (RUN, NAT, BND, OUT, and the SUP behaviour a run shows). One test per failure mode.
//!
//! - `outcome`: OUT-1/OUT-2 codes for every final-event shape and exit.
//! - `bounds`: BND-1..3 (oversized events and finals, the event buffer, flat memory).
//! - `lifecycle`: timeouts, cancel, release, capacity, process-group cleanup (RUN-6..10, SUP).
//! - `native`: NAT-2..8 (version check, argv, sessions, environment, descriptors, stdin).

mod bounds;
mod lifecycle;
mod native;
mod outcome;
mod spare;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{Adapter, Session};

/// A session against the adapter with fake-claude first on PATH and an invocation log.
pub struct Harness {
    pub s: Session,
    pub dir: tempfile::TempDir,
}

impl Harness {
    /// An initialized session; `f` may add arguments and environment.
    pub fn with(f: impl FnOnce(Adapter) -> Adapter) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let a = Adapter::new()
            .fake_claude()
            .env("FAKE_CLAUDE_LOG", dir.path().join("invocations.jsonl"));
        let mut s = f(a).spawn();
        s.init();
        Self { s, dir }
    }

    /// An initialized session with defaults.
    pub fn new() -> Self {
        Self::with(|a| a)
    }

    /// The fake's invocation records so far (`--version` calls included).
    pub fn invocations(&self) -> Vec<Value> {
        let p = self.dir.path().join("invocations.jsonl");
        std::fs::read_to_string(p)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).expect("invocation record is JSON"))
            .collect()
    }

    /// Invocations that were runs (not `--version`).
    pub fn runs(&self) -> Vec<Value> {
        self.invocations()
            .into_iter()
            .filter(|i| i["argv"] != json!(["--version"]))
            .collect()
    }

    /// `claude.run` with `args` (the prompt picks the scenario); returns the tool result.
    pub fn run(&mut self, args: Value) -> Value {
        self.run_within(args, Duration::from_secs(60))
    }

    /// [`Harness::run`] with an explicit bound on the answer.
    pub fn run_within(&mut self, args: Value, bound: Duration) -> Value {
        let id = self.s.request(
            "tools/call",
            Some(json!({"name": "claude.run", "arguments": args})),
        );
        let resp = self
            .s
            .response_within(&id, bound)
            .unwrap_or_else(|| panic!("claude.run did not answer within {bound:?}"));
        resp.get("result")
            .cloned()
            .unwrap_or_else(|| panic!("claude.run answered with a protocol error: {resp}"))
    }

    /// Calls a tool and returns `(structuredContent.result, isError)`.
    pub fn tool(&mut self, name: &str, args: Value) -> (Value, bool) {
        let r = self.s.call_tool(name, args, None);
        split(&r)
    }

    /// `claude.run.start`; returns the run id.
    pub fn start(&mut self, args: Value) -> String {
        let (r, is_error) = self.tool("claude.run.start", args);
        assert!(!is_error, "claude.run.start failed: {r}");
        r["run_id"].as_str().expect("run_id").to_owned()
    }

    /// `claude.run.result` of a run.
    pub fn result(&mut self, run_id: &str) -> Value {
        let (r, is_error) = self.tool("claude.run.result", json!({"run_id": run_id}));
        assert!(!is_error, "reading a run is a successful read: {r}");
        r
    }

    /// Polls `claude.run.result` until the run settled (bounded).
    pub fn settled(&mut self, run_id: &str) -> Value {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let r = self.result(run_id);
            if r["completed"] == true {
                return r;
            }
            assert!(
                Instant::now() < deadline,
                "run {run_id} did not settle: {r}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Polls until `cond` holds on the run's result (bounded).
    pub fn until(&mut self, run_id: &str, what: &str, cond: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let r = self.result(run_id);
            if cond(&r) {
                return r;
            }
            assert!(
                Instant::now() < deadline,
                "run {run_id}: {what} never happened: {r}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// `(structuredContent.result, isError)` of a tool result, checking TOOL-4's mirror.
pub fn split(tool_result: &Value) -> (Value, bool) {
    let sc = &tool_result["structuredContent"];
    let text = tool_result["content"][0]["text"]
        .as_str()
        .expect("text block");
    let mirrored: Value = serde_json::from_str(text).expect("text is JSON");
    assert_eq!(
        mirrored,
        crate::support::client::text_mirror(sc),
        "TOOL-4: the text block mirrors structuredContent, final's scalars only"
    );
    (
        sc["result"].clone(),
        tool_result["isError"].as_bool().unwrap_or(false),
    )
}

/// A prompt that selects a fake-claude scenario (by built-in name or file path).
pub fn prompt(scenario: &str) -> String {
    format!("fake-claude:scenario={scenario}\nsay hi")
}

/// `{"prompt": …}` for a scenario, plus extra arguments.
pub fn args(scenario: &str, extra: Value) -> Value {
    let mut a = json!({"prompt": prompt(scenario)});
    if let Value::Object(m) = extra {
        for (k, v) in m {
            a[k] = v;
        }
    }
    a
}

/// The primary error code of a run result.
pub fn code(r: &Value) -> &str {
    r["error"]["code"].as_str().unwrap_or("<none>")
}

/// A scenario file of fake-claude's repository.
pub fn scenario_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fake-claude/scenarios")
        .join(format!("{name}.json"))
}
