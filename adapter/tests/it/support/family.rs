//! The one run-family harness for every provider (PROV-2): a [`Session`] and the namespace whose
//! seven tools it drives (`claude.run…`, `cursor.run…`), with one set of waits. `runs::Harness`
//! (fake-claude) and `cursor::Cursor` (fake-cursor-agent) are this harness plus their fake's
//! log, and dereference to it.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::Session;

/// Bound on a run's answer and on every poll for a run's state: a safety net against a hang on
/// the shared two-core machine, far beyond anything a fake scenario takes. What a test proves
/// about timing it bounds itself.
pub const RUN_BOUND: Duration = Duration::from_secs(60);

/// Pause between two polls of `<ns>.run.result`.
pub const POLL: Duration = Duration::from_millis(20);

/// A session and the namespace of the run family it drives.
pub struct RunFamily {
    /// The session (initialized).
    pub s: Session,
    ns: &'static str,
}

impl RunFamily {
    /// Drives `ns`'s tools over `s` (already initialized).
    pub fn new(s: Session, ns: &'static str) -> Self {
        Self { s, ns }
    }

    /// Calls a tool and returns `(structuredContent.result, isError)`.
    pub fn tool(&mut self, name: &str, args: Value) -> (Value, bool) {
        split(&self.s.call_tool(name, args, None))
    }

    /// `<ns>.run` with `args`, answered within `bound`; returns the tool result as sent.
    pub fn call_run(&mut self, args: Value, bound: Duration) -> Value {
        let tool = format!("{}.run", self.ns);
        let id = self
            .s
            .request("tools/call", Some(json!({"name": tool, "arguments": args})));
        let resp = self.s.response_within(&id, bound).unwrap_or_else(|| {
            panic!(
                "{tool} did not answer within {bound:?}; stderr:\n{}",
                self.s.stderr_text()
            )
        });
        resp.get("result")
            .cloned()
            .unwrap_or_else(|| panic!("{tool} answered with a protocol error: {resp}"))
    }

    /// `<ns>.run.start`; returns the run id.
    pub fn start(&mut self, args: Value) -> String {
        let tool = format!("{}.run.start", self.ns);
        let (r, is_error) = self.tool(&tool, args);
        assert!(!is_error, "{tool} failed: {r}");
        r["run_id"].as_str().expect("run_id").to_owned()
    }

    /// `<ns>.run.result` of a run (a successful read).
    pub fn result(&mut self, run_id: &str) -> Value {
        self.result_in(self.ns, run_id)
    }

    /// `<ns>.run.result` of a run of another namespace served by the same adapter.
    pub fn result_in(&mut self, ns: &str, run_id: &str) -> Value {
        let (r, is_error) = self.tool(&format!("{ns}.run.result"), json!({"run_id": run_id}));
        assert!(!is_error, "reading a run is a successful read: {r}");
        r
    }

    /// Polls `<ns>.run.result` until `cond` holds (bounded by [`RUN_BOUND`]).
    pub fn until(&mut self, run_id: &str, what: &str, cond: impl Fn(&Value) -> bool) -> Value {
        self.until_in(self.ns, run_id, what, cond)
    }

    /// [`RunFamily::until`] for a run of another namespace.
    pub fn until_in(
        &mut self,
        ns: &str,
        run_id: &str,
        what: &str,
        cond: impl Fn(&Value) -> bool,
    ) -> Value {
        let deadline = Instant::now() + RUN_BOUND;
        loop {
            let r = self.result_in(ns, run_id);
            if cond(&r) {
                return r;
            }
            assert!(
                Instant::now() < deadline,
                "run {run_id}: {what} never happened: {r}"
            );
            std::thread::sleep(POLL);
        }
    }

    /// Polls until the run settled (bounded).
    pub fn settled(&mut self, run_id: &str) -> Value {
        self.until(run_id, "settling", |r| r["completed"] == true)
    }

    /// [`RunFamily::settled`] for a run of another namespace.
    pub fn settled_in(&mut self, ns: &str, run_id: &str) -> Value {
        self.until_in(ns, run_id, "settling", |r| r["completed"] == true)
    }

    /// Every event the run still holds (all pages of `<ns>.run.events`, oldest first) and the
    /// `omitted_oversized` count of the first page.
    pub fn events(&mut self, run_id: &str) -> (Vec<Value>, u64) {
        let tool = format!("{}.run.events", self.ns);
        let mut out = Vec::new();
        let mut cursor = Value::Null;
        let mut omitted = None;
        loop {
            let mut args = json!({"run_id": run_id, "limit": 256});
            if !cursor.is_null() {
                args["cursor"] = cursor.clone();
            }
            let (page, is_error) = self.tool(&tool, args);
            assert!(!is_error, "{tool} failed: {page}");
            omitted.get_or_insert(page["omitted_oversized"].as_u64().unwrap_or(0));
            out.extend(page["events"].as_array().expect("events").iter().cloned());
            if page["has_more"] != true {
                break;
            }
            cursor = page["next_cursor"].clone();
        }
        (out, omitted.unwrap_or(0))
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

/// The primary error code of a run result.
pub fn code(r: &Value) -> &str {
    r["error"]["code"].as_str().unwrap_or("<none>")
}

/// `{"prompt": prompt}` plus the extra arguments `extra` (an object).
pub fn with_prompt(prompt: String, extra: Value) -> Value {
    let mut a = json!({ "prompt": prompt });
    if let Value::Object(m) = extra {
        for (k, v) in m {
            a[k] = v;
        }
    }
    a
}
