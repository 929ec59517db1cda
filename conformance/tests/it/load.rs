//! Verdicts independent of load and `--jobs` (GATE-LOAD-1 to 3): the same report, modulo
//! timings (each case's outcome and level), at `--jobs 1`, `4` and `8` and with both cores busy,
//! for a server that takes 5 s to start (the toy's `--slow-start-ms`) and for one whose
//! instances share a lock file (the toy's `--lock-file`: on stdin EOF an instance waits until
//! no other instance is alive, then lingers holding the lock). The whole matrix is full tier;
//! one fast representative of each server runs in the fast tier.

use std::collections::BTreeMap;
use std::process::{Child, Command, Stdio};

use serde_json::Value;

use crate::support::{describe, run_json, toy};

/// Each case's `(outcome, level)` by id: the report modulo timings.
type Verdicts = BTreeMap<String, (String, String)>;

fn verdicts(report: &Value) -> Verdicts {
    report["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| {
            let s = |k: &str| c[k].as_str().unwrap_or_default().to_owned();
            (s("id"), (s("outcome"), s("level")))
        })
        .collect()
}

/// CPU burners (`yes > /dev/null`), one per core of the test machine's two, killed on drop.
struct Busy(Vec<Child>);

impl Busy {
    fn both_cores() -> Self {
        Self(
            (0..2)
                .map(|_| {
                    Command::new("yes")
                        .stdout(Stdio::null())
                        .spawn()
                        .expect("spawn yes")
                })
                .collect(),
        )
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// One load setting: `--jobs` and whether both cores are busy meanwhile.
#[derive(Debug, Clone, Copy)]
struct Load {
    jobs: u32,
    busy: bool,
}

const MATRIX: [Load; 4] = [
    Load {
        jobs: 1,
        busy: false,
    },
    Load {
        jobs: 4,
        busy: false,
    },
    Load {
        jobs: 8,
        busy: false,
    },
    Load {
        jobs: 8,
        busy: true,
    },
];

/// Runs the plain suite with the runner's `args` against the toy with `flags` under `load`;
/// every run must exit 0.
fn run(flags: &[&str], args: &[&str], load: Load) -> Value {
    let jobs = load.jobs.to_string();
    let mut args = args.to_vec();
    args.extend(["--jobs", jobs.as_str()]);
    let toy = toy().display().to_string();
    let server: Vec<&str> = std::iter::once(toy.as_str())
        .chain(flags.iter().copied())
        .collect();
    let busy = load.busy.then(Busy::both_cores);
    let (out, report) = run_json(&args, &server);
    drop(busy);
    let report = report.unwrap_or_else(|| panic!("{load:?}: no report: {}", describe(&out)));
    assert_eq!(out.status.code(), Some(0), "{load:?}: {}", describe(&out));
    crate::docs::assert_matches_schema(&report);
    report
}

/// The same verdicts under every load of `loads`; returns each run's report.
fn same_everywhere(flags: &[&str], args: &[&str], loads: &[Load]) -> Vec<Value> {
    let reports: Vec<Value> = loads.iter().map(|l| run(flags, args, *l)).collect();
    let first = verdicts(&reports[0]);
    assert!(
        first.values().all(|(o, _)| o != "error"),
        "runner errors: {first:?}"
    );
    for (load, report) in loads.iter().zip(&reports).skip(1) {
        assert_eq!(
            verdicts(report),
            first,
            "{load:?} against {:?}: the verdicts changed with the load",
            loads[0]
        );
    }
    reports
}

/// GATE-LOAD-1: the report states the deadlines, raised for the start discovery measured.
fn assert_deadlines_allow(report: &Value, start_ms: u64) {
    let d = &report["deadlines"];
    let n = |k: &str| d[k].as_u64().unwrap_or_else(|| panic!("{k}: {d}"));
    assert!(n("startup_ms") >= start_ms, "{d}");
    assert_eq!(
        n("effective_ms"),
        n("timeout_ms").max(2 * n("contention") * n("startup_ms") + 1000),
        "{d}"
    );
}

#[test]
fn a_server_that_shares_a_lock_file_gets_the_same_lifecycle_verdicts_at_jobs_1_and_8() {
    // Fast representative: the lifecycle section, whose shutdown cases run alone (GATE-LOAD-2)
    // while the version cases start servers side by side.
    let lock = tempfile::tempdir().expect("tempdir");
    let file = lock.path().join("store.lock").display().to_string();
    let flags = ["--lock-file", file.as_str()];
    let loads = [MATRIX[0], MATRIX[2]];
    same_everywhere(&flags, &["--case", "lifecycle"], &loads);
}

#[test]
fn a_server_slow_to_start_gets_deadlines_that_allow_it() {
    // Fast representative: 1.5 s to start, a configured timeout of 2 s at --jobs 8; the probe
    // case sends its first request straight after the spawn (no handshake helper).
    let report = run(
        &["--slow-start-ms", "1500"],
        &[
            "--case",
            "lifecycle/server-discover/probe",
            "--case",
            "lifecycle/ping/before-initialize",
            "--case",
            "lifecycle/shutdown",
            "--timeout-ms",
            "2000",
        ],
        MATRIX[2],
    );
    assert_deadlines_allow(&report, 1500);
    let v = verdicts(&report);
    assert!(
        v.values().all(|(o, _)| o == "pass" || o == "skip"),
        "{v:?}\n{}",
        report["cases"]
    );
}

#[test]
fn a_probe_answered_after_its_window_is_graded_on_its_answer() {
    // GATE-LOAD-1, GATE-LOAD-3: the server/discover probe is a fresh server's first request;
    // an instance that stays silent past the window discovery's start-up allowed (a FastMCP
    // server importing its packages on a loaded machine) had not read it yet. Its late -32601
    // passes; "nothing within" would be a verdict on a start, not on the probe.
    let report = run(
        &["--slow-discover-ms", "2500"],
        &[
            "--case",
            "lifecycle/server-discover/probe",
            "--timeout-ms",
            "2000",
        ],
        MATRIX[0],
    );
    let v = verdicts(&report);
    assert_eq!(
        v.get("lifecycle/server-discover/probe")
            .map(|(o, _)| o.as_str()),
        Some("pass"),
        "{v:?}\n{}",
        report["cases"]
    );
}

#[test]
fn an_id_answered_after_the_probe_behind_it_is_echoed_not_dropped() {
    // T3a, JSON-RPC 2.0 §5: the ping with id -2^63 is answered 500 ms after the probe ping sent
    // behind it (a server answering concurrently, as the C# SDK's does, on a loaded machine).
    // JSON-RPC orders no responses, so the id is echoed: "dropped" would be the load's verdict.
    let report = run(
        &["--answer-negative-ids-late", "500"],
        &[
            "--case",
            "jsonrpc/ids/i64-min",
            "--case",
            "jsonrpc/ids/negative",
        ],
        MATRIX[0],
    );
    let v = verdicts(&report);
    for id in ["jsonrpc/ids/i64-min", "jsonrpc/ids/negative"] {
        assert_eq!(
            v.get(id).map(|(o, _)| o.as_str()),
            Some("pass"),
            "{id}: {v:?}\n{}",
            report["cases"]
        );
    }
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn a_server_that_takes_5_s_to_start_gets_the_same_report_under_any_load() {
    let reports = same_everywhere(&["--slow-start-ms", "5000"], &[], &MATRIX);
    for r in &reports {
        assert_deadlines_allow(r, 5000);
    }
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn a_server_that_shares_a_lock_file_gets_the_same_report_under_any_load() {
    // Each instance takes a second to start, so at --jobs 8 others are alive for seconds around
    // any case: a shutdown case among them would wait for all of them to be gone.
    let lock = tempfile::tempdir().expect("tempdir");
    let file = lock.path().join("store.lock").display().to_string();
    let flags = ["--lock-file", file.as_str(), "--slow-start-ms", "1000"];
    same_everywhere(&flags, &[], &MATRIX);
}

#[test]
fn the_cases_that_judge_a_peers_own_exit_run_alone() {
    // GATE-LOAD-2: exactly the cases whose subject is the peer's own exit are exclusive.
    let judges_exit = |id: &str| {
        ["lifecycle/shutdown/", "runs/eof/", "runs/sigterm/", "exit/"]
            .iter()
            .any(|p| id.starts_with(p))
    };
    for c in mcp_conformance::mcp::catalogue::all() {
        assert_eq!(c.exclusive, judges_exit(c.id), "{}", c.id);
    }
    for c in mcp_conformance::acp::all() {
        assert_eq!(c.exclusive, judges_exit(c.id), "{}", c.id);
    }
}
