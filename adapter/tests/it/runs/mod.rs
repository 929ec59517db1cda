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

use std::ops::{Deref, DerefMut};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::family::{RUN_BOUND, RunFamily, with_prompt};
pub use crate::support::family::{code, split};
use crate::support::{Adapter, Session};

/// The `claude.run…` family against the adapter with fake-claude first on PATH, and the fake's
/// invocation log.
pub struct Harness {
    family: RunFamily,
    pub dir: tempfile::TempDir,
}

impl Deref for Harness {
    type Target = RunFamily;

    fn deref(&self) -> &RunFamily {
        &self.family
    }
}

impl DerefMut for Harness {
    fn deref_mut(&mut self) -> &mut RunFamily {
        &mut self.family
    }
}

impl Harness {
    /// An initialized session; `f` may add arguments and environment.
    pub fn with(f: impl FnOnce(Adapter) -> Adapter) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let a = Adapter::new()
            .fake_claude()
            .env("FAKE_CLAUDE_LOG", dir.path().join("invocations.jsonl"));
        let mut s: Session = f(a).spawn();
        s.init();
        Self {
            family: RunFamily::new(s, "claude"),
            dir,
        }
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
        self.call_run(args, RUN_BOUND)
    }

    /// [`Harness::run`] with an explicit bound on the answer.
    pub fn run_within(&mut self, args: Value, bound: Duration) -> Value {
        self.call_run(args, bound)
    }
}

/// A prompt that selects a fake-claude scenario (by built-in name or file path).
pub fn prompt(scenario: &str) -> String {
    format!("fake-claude:scenario={scenario}\nsay hi")
}

/// `{"prompt": …}` for a scenario, plus extra arguments.
pub fn args(scenario: &str, extra: Value) -> Value {
    with_prompt(prompt(scenario), extra)
}

/// A scenario file of fake-claude's repository.
pub fn scenario_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fake-claude/scenarios")
        .join(format!("{name}.json"))
}
