//! Mutants: the re-exporting proxy (`examples/mcp_proxy/`) in front of the reference adapter
//! breaks exactly one rule each (`--mutate NAME`) and passes everything else through, so the
//! provider profile's run-lifecycle cases still run through the real adapter and fake-claude.
//! For each mutant the whole provider suite runs (`--drive-fake --strict`) and the set of
//! failing case ids must be exactly the expected one: a case that misses its mutant is a gap in
//! the runner, a case that fails beside it is imprecise grading. The control (the proxy without a
//! mutation) passes everything.
//!
//! Tiers: in the full tier (`CMK_FULL=1`) every mutant runs the whole suite, so a case failing
//! beside the expected ones shows. The fast tier runs each mutant on its own cases only
//! (`--case`), which proves each case catches its defect; the mutants whose point is a cascade
//! (`blocked_by`) and the control run the whole suite in both tiers. Where several mutants prove
//! the same cross-cutting rule, one plain and one cascade stay in the fast tier and the others
//! are marked `full_tier`.
//!
//! A whole suite takes about 5 to 8 s; at most [`MAX_SUITES`] run at once so a 2-core machine
//! keeps its timing (the runner's own run cases have generous but real deadlines).

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Output;
use std::sync::{Condvar, Mutex, OnceLock, PoisonError};

use serde_json::Value;

use crate::support::{describe, run_json};

/// Whole suites running at once across the test binary.
const MAX_SUITES: usize = 2;

/// Skips that are never a mutant's doing: the runner skips `runs/events/stale-cursor` when the
/// run produced events before the first page could be taken (timing, reported with a reason).
const TIMING_SKIPS: [&str; 1] = ["runs/events/stale-cursor"];

/// Cases that never apply to the reference adapter behind the proxy: it declares no prompts
/// capability and writes no log message, so they skip on every run of it (nothing hidden).
const NOT_ON_THE_ADAPTER: [&str; 4] = [
    "prompts/list/shape",
    "prompts/get/shape",
    "prompts/get/unknown",
    "logging/message-shape",
];

/// Whether a skip of case `id` says nothing of the mutant (see the two lists above).
fn expected_skip(id: &str) -> bool {
    TIMING_SKIPS.contains(&id) || NOT_ON_THE_ADAPTER.contains(&id)
}

/// Whether a case of the report is an instance of a revision the server does not support.
fn revision_not_supported(case: &Value) -> bool {
    case["outcome"] == "skip"
        && case["reason"] == mcp_conformance::mcp::catalogue::revisions::NOT_SUPPORTED
}

/// A built binary of the workspace next to the runner (`cargo build --workspace`; the examples
/// are built by `cargo test` into `examples/`).
fn beside_runner(rel: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_BIN_EXE_mcp-conformance"))
        .parent()
        .expect("bin dir")
        .to_path_buf();
    let path = dir.join(rel);
    assert!(
        path.is_file(),
        "{} missing: build the workspace (cargo build --workspace) and run cargo test",
        path.display()
    );
    path
}

/// The proxy example.
pub fn proxy() -> String {
    beside_runner("examples/mcp_proxy").display().to_string()
}

/// The reference adapter.
pub fn adapter() -> String {
    beside_runner("claude-mcp-adapter").display().to_string()
}

/// A permit to run one whole suite (released on drop), shared by every file of whole-gate runs.
pub struct Slot;

static SLOTS: Mutex<usize> = Mutex::new(0);
static FREED: Condvar = Condvar::new();

impl Slot {
    /// Waits until fewer than [`MAX_SUITES`] whole suites run, then holds one place.
    pub fn take() -> Self {
        let mut busy = SLOTS.lock().unwrap_or_else(PoisonError::into_inner);
        while *busy >= MAX_SUITES {
            busy = FREED.wait(busy).unwrap_or_else(PoisonError::into_inner);
        }
        *busy += 1;
        Slot
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        *SLOTS.lock().unwrap_or_else(PoisonError::into_inner) -= 1;
        FREED.notify_one();
    }
}

/// One finished run of the runner against the proxy.
pub struct Suite {
    /// The runner's process output.
    pub out: Output,
    /// The JSON report.
    pub report: Value,
    /// Whether the run was narrowed with `--case` (a shard).
    pub shard: bool,
}

impl Suite {
    /// Runs the runner with `profile`, `--drive-fake --strict --jobs 8`, against
    /// `mcp_proxy PROXY_ARGS -- claude-mcp-adapter`.
    pub fn run(profile: &str, proxy_args: &[&str]) -> Self {
        Self::run_cases(profile, proxy_args, &[])
    }

    /// [`Suite::run`] narrowed to the cases `ids` (`--case` each; all cases when empty).
    pub fn run_cases(profile: &str, proxy_args: &[&str], ids: &[&str]) -> Self {
        // A run of a few cases costs a fraction of a second: only whole suites take a slot.
        let _slot = ids.is_empty().then(Slot::take);
        let (proxy, adapter) = (proxy(), adapter());
        let mut server = vec![proxy.as_str()];
        server.extend_from_slice(proxy_args);
        server.extend(["--", adapter.as_str()]);
        // Most of a suite's time is waiting on runs, not CPU: 8 cases at once save a third.
        let mut args = vec![
            "--profile",
            profile,
            "--drive-fake",
            "--strict",
            "--jobs",
            "8",
        ];
        for id in ids {
            args.extend(["--case", id]);
        }
        let (out, report) = run_json(&args, &server);
        let report = report.unwrap_or_else(|| panic!("no report: {}", describe(&out)));
        assert_eq!(report["profile"], profile);
        Suite {
            out,
            report,
            shard: !ids.is_empty(),
        }
    }

    fn ids_with(&self, outcomes: &[&str]) -> BTreeSet<String> {
        self.cases()
            .iter()
            .filter(|c| outcomes.iter().any(|o| c["outcome"] == *o))
            .map(|c| c["id"].as_str().expect("id").to_owned())
            .collect()
    }

    fn cases(&self) -> &[Value] {
        self.report["cases"].as_array().expect("cases")
    }

    /// Cases that did not hold (`--strict` turns warnings into failures; errors count too).
    pub fn failing(&self) -> BTreeSet<String> {
        self.ids_with(&["fail", "warn", "error"])
    }

    /// Skipped cases, but the instances of revisions the server does not support: the
    /// revision probes decide those, never a mutant (one that broke a revision's support fails
    /// `lifecycle/initialize/revisions` or a version case instead).
    pub fn skipped(&self) -> BTreeSet<String> {
        self.cases()
            .iter()
            .filter(|c| c["outcome"] == "skip" && !revision_not_supported(c))
            .map(|c| c["id"].as_str().expect("id").to_owned())
            .collect()
    }

    /// The outcome of case `id`.
    pub fn outcome(&self, id: &str) -> &str {
        crate::support::outcome(&self.report, id)
    }

    /// Every case that did not pass, with expected and actual, for assertion messages.
    pub fn explain(&self) -> String {
        let mut text = String::new();
        for c in self.cases().iter().filter(|c| c["outcome"] != "pass") {
            text.push_str(&format!(
                "\n  {} {}: expected {}, actual {}, reason {}",
                c["outcome"], c["id"], c["expected"], c["actual"], c["reason"]
            ));
        }
        format!("{text}\nsummary {}", self.report["summary"])
    }

    /// Asserts the failing cases are exactly `expected`, and every skip other than timing skips
    /// is `blocked_by` the case `blocker` (which must fail): one defect, one verdict, however
    /// many cases lost their precondition. At least one case must be blocked.
    pub fn assert_blocking(&self, what: &str, expected: &[&str], blocker: &str) {
        let blocked: Vec<String> = self
            .cases()
            .iter()
            .filter(|c| c["outcome"] == "skip")
            .filter(|c| !expected_skip(c["id"].as_str().unwrap_or("")))
            .filter(|c| !revision_not_supported(c))
            .map(|c| {
                assert_eq!(
                    c["blocked_by"],
                    blocker,
                    "{what}: {} skipped for another reason{}",
                    c["id"],
                    self.explain()
                );
                c["id"].as_str().unwrap_or("").to_owned()
            })
            .collect();
        assert!(
            !blocked.is_empty(),
            "{what}: nothing was blocked{}",
            self.explain()
        );
        let blocked: Vec<&str> = blocked.iter().map(String::as_str).collect();
        self.assert_exactly(what, expected, &blocked);
    }

    /// Asserts the failing cases are exactly `expected`, skips are only timing skips or
    /// `extra_skips`, and the exit status follows (0 when nothing failed, else 1).
    pub fn assert_exactly(&self, what: &str, expected: &[&str], extra_skips: &[&str]) {
        let expected: BTreeSet<String> = expected.iter().map(|s| (*s).to_owned()).collect();
        let failing = self.failing();
        assert_eq!(
            failing,
            expected,
            "{what}: failing cases differ (missing = a gap in the runner, extra = imprecise \
             grading or a broken pass-through){}",
            self.explain()
        );
        // In a shard (the fast tier's runs) a cross-cutting case may have nothing to grade.
        let shard = self.shard;
        let unexpected_skips: Vec<String> = self
            .skipped()
            .into_iter()
            .filter(|s| !expected_skip(s) && !extra_skips.contains(&s.as_str()))
            .filter(|s| !(shard && cross_cutting(s)))
            .collect();
        assert!(
            unexpected_skips.is_empty(),
            "{what}: skipped {unexpected_skips:?} (a skip can hide a failure){}",
            self.explain()
        );
        for s in extra_skips {
            assert_eq!(self.outcome(s), "skip", "{what}: {s}{}", self.explain());
        }
        let code = if expected.is_empty() { 0 } else { 1 };
        assert_eq!(
            self.out.status.code(),
            Some(code),
            "{what}: {}",
            describe(&self.out)
        );
        crate::docs::assert_matches_schema(&self.report);
    }
}

/// Whether case `id` is a cross-cutting rule: it grades the exchanges of every other case, so a
/// run of it alone has next to nothing to grade.
fn cross_cutting(id: &str) -> bool {
    static IDS: OnceLock<BTreeSet<&'static str>> = OnceLock::new();
    IDS.get_or_init(|| {
        mcp_conformance::mcp::catalogue::all()
            .iter()
            .filter(|c| c.needs.crosscut())
            .map(|c| c.id)
            .collect()
    })
    .contains(id)
}

/// Runs the provider suite through `--mutate name` and checks the failing set: the whole suite
/// in the full tier, and in the fast tier the mutant's own cases (`expected` and `extra_skips`),
/// or the whole suite when one of them is a cross-cutting rule.
fn check_mutant(name: &str, expected: &[&str], extra_skips: &[&str]) {
    let own: Vec<&str> = if cfg!(cmk_full) || expected.iter().any(|id| cross_cutting(id)) {
        Vec::new()
    } else {
        expected.iter().chain(extra_skips).copied().collect()
    };
    let suite = Suite::run_cases("provider", &["--mutate", name], &own);
    suite.assert_exactly(&format!("mutant {name}"), expected, extra_skips);
    if !own.is_empty() {
        // A shard carries the cross-cutting rules (graded on its own exchanges) besides its cases,
        // and its cases' instances of other revisions (`ID@DATE`).
        let ran: BTreeSet<&str> = suite
            .cases()
            .iter()
            .filter_map(|c| c["id"].as_str())
            .filter(|id| !cross_cutting(id))
            .filter(|id| mcp_conformance::mcp::revision::of_instance(id).is_none())
            .collect();
        assert_eq!(
            ran,
            own.iter().copied().collect::<BTreeSet<&str>>(),
            "mutant {name}: the fast tier runs exactly its own cases"
        );
    }
}

#[test]
fn the_proxy_without_a_mutation_passes_the_whole_provider_suite() {
    let suite = Suite::run("provider", &[]);
    suite.assert_exactly("the control (no mutation)", &[], &[]);
    assert_eq!(suite.report["drive_fake"], true);
    assert_eq!(
        suite.report["server"]["serverInfo"]["name"], "claude-mcp-adapter",
        "the proxy passes initialize through"
    );
}

/// One test per mutant: `mutant!(test_name, "mutation", [failing ids…] [, skips [ids…]])`.
/// A leading `full_tier` keeps a mutant out of the fast tier: one whose rule another mutant
/// already proves there and which would cost a whole gate (a cross-cutting rule, a cascade).
macro_rules! mutant {
    (full_tier $test:ident $($rest:tt)*) => {
        mutant!(@fn [#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]] $test $($rest)*);
    };
    ($test:ident $($rest:tt)*) => {
        mutant!(@fn [] $test $($rest)*);
    };
    (@fn [$(#[$meta:meta])*] $test:ident, $name:literal, [$($id:literal),+ $(,)?] $(, skips [$($skip:literal),* $(,)?])?) => {
        #[test]
        $(#[$meta])*
        fn $test() {
            check_mutant($name, &[$($id),+], &[$($($skip),*)?]);
        }
    };
    (@fn [$(#[$meta:meta])*] $test:ident, $name:literal, [$($id:literal),+ $(,)?], blocked_by $blocker:literal) => {
        #[test]
        $(#[$meta])*
        fn $test() {
            let suite = Suite::run("provider", &["--mutate", $name]);
            suite.assert_blocking(&format!("mutant {}", $name), &[$($id),+], $blocker);
        }
    };
}

// META-RISK-2: claude.run.cancel declared read-only. Still a legal risk (META-RISK-1 holds) and
// its annotations claim more than read-only, never less (META-RISK-3 holds).
mutant!(
    a_wrong_risk_fails_only_risk_by_role,
    "wrong-risk",
    ["meta-risk/by-role"]
);

// META-RISK-1: claude.run.list declares no risk. META-RISK-2 cannot hold for a tool without a
// risk, so by-role fails with it: two cases, one missing value.
mutant!(
    a_missing_risk_fails_risk_declared_and_by_role,
    "missing-risk",
    ["meta-risk/declared", "meta-risk/by-role"]
);

// META-RISK-3: readOnlyHint true on the full-shell claude.run.
mutant!(
    a_read_only_hint_on_a_full_shell_tool_fails_only_risk_annotations,
    "readonly-hint-on-full-shell",
    ["meta-risk/annotations"]
);

// META-WORK-1: claude.run.events declares work without its uri.
mutant!(
    a_missing_work_uri_fails_only_work_declared,
    "missing-work-uri",
    ["meta-work/declared"]
);

// META-WORK-2: the work URI is left out of resources/list. With no resource listed,
// resources/read/listed has nothing to read and skips (with its reason).
mutant!(
    an_unlisted_work_resource_fails_only_resource_listed,
    "work-resource-unlisted",
    ["meta-work/resource-listed"],
    skips["resources/read/listed"]
);

// META-CONT-1: claude.run.cancel's continuation points at /id, not a property of its schema.
mutant!(
    a_bad_continuation_pointer_fails_only_continuation_declared,
    "continuation-bad-pointer",
    ["meta-continuation/declared"]
);

// META-CONT-2: claude.run.list declares a continuation.
mutant!(
    a_continuation_on_list_fails_only_continuation_absent,
    "continuation-on-list",
    ["meta-continuation/absent"]
);

// T2 "never echoed back": the catalogue probes that one sentence with four proposals (a future
// date, an older date, the newer 2025-11-25, a malformed string) on purpose, one case each, and a
// server that echoes unsupported proposals echoes them all. The missing proposal has nothing to
// echo and still passes; the supported dates still pass.
mutant!(
    echoing_unsupported_versions_fails_the_four_unsupported_proposal_cases,
    "echo-unsupported-version",
    [
        "lifecycle/initialize/unsupported-proposal",
        "lifecycle/initialize/older-proposal",
        "lifecycle/initialize/newer-proposal",
        "lifecycle/initialize/malformed-proposal",
    ]
);

// T2: only 2025-11-25 is claimed (a server listing a revision it does not implement).
mutant!(
    claiming_2025_11_25_fails_only_the_newer_proposal,
    "echo-newer-version",
    ["lifecycle/initialize/newer-proposal"]
);

// TOOL-3 / TOOL-4: an unknown tool answered as an isError result instead of -32602.
mutant!(
    an_is_error_result_for_a_protocol_error_fails_only_unknown_tool,
    "iserror-for-protocol-error",
    ["tools/call/unknown-tool"]
);

// TOOL-4: the text block mirrors structuredContent.result instead of structuredContent.
mutant!(
    full_tier a_text_block_that_mirrors_the_wrong_object_fails_only_structured_mirror,
    "text-mirror-mismatch",
    ["tools/result/structured-mirror"]
);

// TOOL-4: the text block of a run's result leaves out a scalar of `final` too (only its object-
// and array-valued members may be left out of the text).
mutant!(
    full_tier a_text_block_that_drops_a_scalar_of_final_fails_only_structured_mirror,
    "text-drops-final-scalar",
    ["tools/result/structured-mirror"]
);

// TOOL-2: claude.run.list's schema is no longer closed (the adapter behind it still rejects
// unknown arguments, so only the listing is wrong).
mutant!(
    an_open_schema_fails_only_closed_objects,
    "schema-not-closed",
    ["tools/schema/closed-objects"]
);

// MCP server/resources: an unknown URI is read as empty contents instead of an error.
mutant!(
    an_unknown_resource_read_as_empty_fails_only_read_unknown,
    "unknown-resource-empty",
    ["resources/read/unknown"]
);

// T6: the proxy holds whole client lines in memory. The 64 MiB line is still forwarded, so the
// upstream answers it -32600 and keeps serving; only the memory sampling can see the bug.
mutant!(
    an_unbounded_frame_read_fails_only_memory_bounded,
    "unbounded-frame-read",
    ["jsonrpc/oversized/memory-bounded"]
);

// T7: notifications/cancelled is swallowed, so the run is never cancelled. The call still gets
// no answer within the case's window (the run hangs), which is what no-response checks.
mutant!(
    a_swallowed_cancellation_fails_only_run_cancelled,
    "hang-on-cancel",
    ["cancellation/in-flight/run-cancelled"]
);

// T7: the cancellation reaches the run, but the cancelled request is answered anyway.
mutant!(
    answering_a_cancelled_request_fails_only_no_response,
    "answer-cancelled",
    ["cancellation/in-flight/no-response"]
);

// T4: unparseable lines are dropped silently. Invalid JSON and invalid UTF-8 are the two kinds
// of unparseable line, one case each, both answered -32700 by the same rule.
mutant!(
    dropping_malformed_lines_fails_only_the_two_parse_error_cases,
    "drop-malformed",
    [
        "jsonrpc/malformed/parse-error",
        "jsonrpc/malformed/invalid-utf8"
    ]
);

// T3a: ids held as i64 saturate above i64::MAX: only u64::MAX is out of i64's range.
mutant!(
    an_i64_id_type_fails_only_the_u64_max_id,
    "wrong-id-echo",
    ["jsonrpc/ids/u64-max"]
);

// META-WORK-7: after a refused read the next snapshot's revision is below the refusal's.
mutant!(
    a_revision_that_regresses_after_a_refused_read_fails_only_failed_read_changes_nothing,
    "snapshot-revision-regress",
    ["meta-work/failed-read-changes-nothing"]
);

// META-WORK-4: acquired_by follows the latest work-invocation seen (a rebind).
mutant!(
    rebinding_acquired_by_fails_only_invocation_recorded,
    "acquired-by-rebind",
    ["meta-work/invocation-recorded"]
);

// T5: under 2025-06-18 a batch is split and answered as a batch instead of -32600.
mutant!(
    accepting_a_batch_under_2025_06_18_fails_only_that_batch_case,
    "batch-under-2025-06-18",
    ["jsonrpc/batch/rejected-2025-06-18"]
);

// OUT-1: a succeeded run reported with is_error true (the text mirror follows, TOOL-4 holds).
// runs/run/succeeded and runs/run/hooks-before-init are the same OUT-1 check on two scenarios
// that both end in success; the cases that only need isError false or the state still pass.
mutant!(
    a_succeeded_run_with_is_error_fails_only_the_two_success_cases,
    "succeeded-with-is-error",
    ["runs/run/succeeded", "runs/run/hooks-before-init"]
);

// T9: progress notifications are dropped.
mutant!(
    dropped_progress_fails_only_runs_progress,
    "no-progress",
    ["runs/progress"]
);

// T1: a banner that is not JSON-RPC on stdout.
mutant!(
    full_tier a_stdout_banner_fails_only_protocol_only,
    "stdout-banner",
    ["lifecycle/stdout/protocol-only"]
);

// T8: exit status 1 after stdin EOF. T8's exit status is checked after an idle EOF and after an
// EOF with an active run; both see the same wrong status.
mutant!(
    a_nonzero_exit_after_eof_fails_only_the_two_eof_cases,
    "eof-exit-nonzero",
    ["lifecycle/shutdown/stdin-eof", "runs/eof/cancels-runs"]
);

// T8: exit status 1 after SIGTERM (the upstream is still ended and reaped). Only the SIGTERM
// case signals the server; every EOF case still sees the upstream's clean status.
mutant!(
    a_nonzero_exit_after_sigterm_fails_only_the_two_sigterm_cases,
    "sigterm-exit-nonzero",
    ["lifecycle/shutdown/sigterm", "runs/sigterm/cancels-runs"]
);

// T3: an unknown notification is answered.
mutant!(
    answering_an_unknown_notification_fails_only_unknown_notification,
    "unknown-notification-answered",
    ["jsonrpc/unknown-notification"]
);

// T9 with MCP basic/utilities/progress: every progress notification is sent twice, so its value
// does not increase. The runner once only checked that some progress arrived.
mutant!(
    repeated_progress_fails_only_runs_progress,
    "progress-repeated",
    ["runs/progress"]
);

// META-WORK-3: snapshot entries without their kind. The runner once checked only the snapshot's
// top level; meta-work/snapshot-entries now checks a bound run's entry.
mutant!(
    snapshot_entries_without_kind_fail_only_snapshot_entries,
    "snapshot-entry-without-kind",
    ["meta-work/snapshot-entries"]
);

// T3: server/discover answered with a result. Outside the provider profile that is the stateless
// revision and passes; a provider's methods are T3's list, so the runner once passed a provider
// that would lead hosts into a revision the contract does not have.
mutant!(
    answering_server_discover_fails_only_the_discover_probe,
    "discover-answered",
    ["lifecycle/server-discover/probe"]
);

// RUN-11: a failed run's native_error reported as null (error.code still native_error). The two
// native_error scenarios (is-error-success, error-subtype) run the same check; the runner once
// checked only the code.
mutant!(
    a_null_native_error_fails_only_the_two_native_error_cases,
    "native-error-dropped",
    [
        "runs/outcome/is-error-success",
        "runs/outcome/error-subtype"
    ]
);

// RUN-3: list entries without acquired_by, also for bound runs. The runner once listed only an
// unbound run; runs/list/retained now lists a bound one. The tools are listed without their
// outputSchema (optional), so nothing else holds the list to its shape; with the schema kept,
// the next test shows the one verdict moving to the schema rule.
#[test]
fn a_list_without_acquired_by_fails_only_list_retained() {
    let suite = Suite::run(
        "provider",
        &[
            "--mutate",
            "list-without-acquired-by",
            "--strip-output-schemas",
        ],
    );
    suite.assert_exactly(
        "list-without-acquired-by, no outputSchema",
        &["runs/list/retained"],
        &["tools/result/output-schema"],
    );
}

// MCP server/tools (output schema): the same list, under the reference adapter's outputSchema.
// The result breaks the schema its tool declares: tools/result/output-schema fails once, naming
// the missing property, and the cases that read such a result are blocked by it (one defect,
// one verdict).
mutant!(
    a_list_breaking_its_output_schema_fails_only_output_schema,
    "list-without-acquired-by",
    ["tools/result/output-schema"],
    blocked_by "tools/result/output-schema"
);

// T1: a JSON log record on stdout. It parses as JSON but is no JSON-RPC message; the runner once
// checked only that stdout lines parse (MCP 2025-06-18 basic/transports: the server MUST NOT
// write anything to its stdout that is not a valid MCP message).
mutant!(
    full_tier a_json_log_line_on_stdout_fails_only_protocol_only,
    "stdout-json-log",
    ["lifecycle/stdout/protocol-only"]
);

// T1 with MCP basic: responses without "jsonrpc": "2.0". No case but T1's reads that member, so
// the runner once passed a server whose every answer was not JSON-RPC 2.0.
mutant!(
    full_tier responses_without_jsonrpc_fail_only_protocol_only,
    "response-without-jsonrpc",
    ["lifecycle/stdout/protocol-only"],
    blocked_by "lifecycle/stdout/protocol-only"
);

// T4 with JSON-RPC 2.0 §5: an unparseable line answered twice. Invalid JSON and invalid UTF-8
// are the two unparseable cases; the runner once passed any answer set holding a match.
mutant!(
    a_parse_error_answered_twice_fails_only_the_two_parse_error_cases,
    "parse-error-twice",
    [
        "jsonrpc/malformed/parse-error",
        "jsonrpc/malformed/invalid-utf8"
    ]
);

// T1 with MCP basic: -32601 answers without a message are no valid JSON-RPC messages. The
// runner once read only the code; T1 now grades the shape once, on every exchange, and
// unknown-method, whose answer it is, is blocked by it.
mutant!(
    full_tier a_method_not_found_without_message_fails_only_protocol_only,
    "error-without-message",
    ["lifecycle/stdout/protocol-only"],
    blocked_by "lifecycle/stdout/protocol-only"
);

// T5 with MCP 2025-03-26 basic (implementations MUST support receiving batches): each element of
// a batch answered -32600 inside an array. The runner once accepted any array holding responses
// with the right ids, errors included.
mutant!(
    a_batch_answered_with_errors_fails_only_the_2025_03_26_batch,
    "batch-answered-with-errors",
    ["jsonrpc/batch/2025-03-26"]
);

// MCP basic/utilities/ping: the receiver MUST answer with an empty result. Before and after
// initialize are the same rule probed twice; the runner once accepted any result before it.
mutant!(
    a_null_ping_result_fails_only_protocol_only_and_blocks_the_ping_cases,
    "ping-result-null",
    ["lifecycle/stdout/protocol-only"],
    blocked_by "lifecycle/stdout/protocol-only"
);

// TOOL-4: tool results lose structuredContent. Every case that reads a result is blocked by
// the one TOOL-4 failure instead of failing on a missing field (one defect, one verdict).
mutant!(
    results_without_structured_content_fail_only_structured_mirror,
    "no-structured-content",
    ["tools/result/structured-mirror"],
    blocked_by "tools/result/structured-mirror"
);

// TOOL-4: tool results lose isError.
mutant!(
    full_tier results_without_is_error_fail_only_structured_mirror,
    "missing-is-error",
    ["tools/result/structured-mirror"],
    blocked_by "tools/result/structured-mirror"
);

// T1: a text log line before every tools/call answer. Discovery calls no tool, so the runner
// once passed it; T1 is now checked on every exchange of every case.
mutant!(
    full_tier a_log_line_on_each_call_fails_only_protocol_only,
    "log-on-call",
    ["lifecycle/stdout/protocol-only"]
);

// JSON-RPC 2.0 §5: claude.run.list answered under another id. The id rule fails once; the cases
// that waited for a list answer are blocked by it rather than timing out as failures.
mutant!(
    full_tier a_list_answered_under_another_id_fails_only_response_ids,
    "wrong-id-on-list",
    ["jsonrpc/response-ids"],
    blocked_by "jsonrpc/response-ids"
);

// MCP server/resources (Error Handling): an unknown URI answered -32603 instead of the
// resource-not-found code (-32002, or -32602 since SEP-2164). The runner once took any error.
mutant!(
    an_unknown_resource_with_the_wrong_code_fails_only_read_unknown,
    "unknown-resource-wrong-code",
    ["resources/read/unknown"]
);

// RUN-4 / RUN-11: run results without stderr_tail. The runner once read a missing tail as an
// empty one, which is "at most 8 KiB"; a missing field is the result's shape defect, so
// result-shape fails and stderr-noise, whose subject is the tail's content, is blocked by it.
#[test]
fn a_result_without_stderr_tail_fails_only_result_shape() {
    // With the outputSchema kept, output-schema grades it instead (as for the list above).
    let suite = Suite::run_cases(
        "provider",
        &["--mutate", "stderr-tail-dropped", "--strip-output-schemas"],
        &["runs/run/result-shape", "runs/run/stderr-noise"],
    );
    suite.assert_exactly(
        "stderr-tail-dropped, no outputSchema",
        &["runs/run/result-shape"],
        &["tools/result/output-schema", "runs/run/stderr-noise"],
    );
    let noise = suite
        .cases()
        .iter()
        .find(|c| c["id"] == "runs/run/stderr-noise")
        .expect("stderr-noise ran");
    assert_eq!(noise["outcome"], "skip", "{noise}");
    assert_eq!(noise["blocked_by"], "runs/run/result-shape", "{noise}");
}

// SUP-1: a process of the run outlives it while the run reports cleanup confirmed. The runner
// once took cleanup_confirmed on the provider's word; it now looks for the run's processes in
// /proc by a marker its prompt carries.
mutant!(
    a_process_left_behind_by_a_run_fails_only_supervision_grandchild,
    "leak-run-process",
    ["runs/supervision/grandchild"]
);

// JSON-RPC 2.0 §5 (exactly one Response per Request): a request answered twice. The id rule
// tracks what the server owes on every connection; the repeated answer is graded there once
// and no other case reads it (one once blamed notifications, another a parse error). Each
// mutant repeats the answers of another kind of request.
mutant!(
    every_request_answered_twice_fails_only_response_ids,
    "answered-twice",
    ["jsonrpc/response-ids"]
);

mutant!(
    full_tier initialize_answered_twice_fails_only_response_ids,
    "initialize-answered-twice",
    ["jsonrpc/response-ids"]
);

mutant!(
    full_tier ping_answered_twice_fails_only_response_ids,
    "ping-answered-twice",
    ["jsonrpc/response-ids"]
);

mutant!(
    full_tier tools_call_answered_twice_fails_only_response_ids,
    "call-answered-twice",
    ["jsonrpc/response-ids"]
);

mutant!(
    full_tier tools_list_answered_twice_fails_only_response_ids,
    "list-answered-twice",
    ["jsonrpc/response-ids"]
);

// The same rule's other half: a response under an id no request carried (here once per
// connection, just before the answer to initialize), integer or string.
mutant!(
    full_tier an_answer_under_a_fresh_integer_id_fails_only_response_ids,
    "unsolicited-number-answer",
    ["jsonrpc/response-ids"]
);

mutant!(
    full_tier an_answer_under_a_string_id_never_sent_fails_only_response_ids,
    "unsolicited-string-answer",
    ["jsonrpc/response-ids"]
);

// T3 with JSON-RPC 2.0 §4.1: notifications answered (-32601, id null). The watch grades every
// notification of every case under the notification rule, and no other case reads the answer
// (an answer to notifications/initialized once failed eleven cases that sent bad input next).
mutant!(
    full_tier every_notification_answered_fails_only_unknown_notification,
    "notifications-answered",
    ["jsonrpc/unknown-notification"]
);

mutant!(
    full_tier an_answered_initialized_notification_fails_only_unknown_notification,
    "initialized-answered",
    ["jsonrpc/unknown-notification"]
);

mutant!(
    full_tier an_answered_cancellation_fails_only_unknown_notification,
    "cancelled-answered",
    ["jsonrpc/unknown-notification"]
);

/// Runs one `--case` shard of the provider suite through `mcp_proxy --mutate MUTATION`; returns
/// the ids of the cases that did not hold, and the report.
fn shard(globs: &[&str], mutation: &str) -> (BTreeSet<String>, Value) {
    let _slot = Slot::take();
    let (proxy, adapter) = (proxy(), adapter());
    let mut args = vec!["--profile", "provider", "--drive-fake", "--strict"];
    for g in globs {
        args.extend(["--case", g]);
    }
    let server = [proxy.as_str(), "--mutate", mutation, "--", adapter.as_str()];
    let (out, report) = run_json(&args, &server);
    let report = report.unwrap_or_else(|| panic!("no report: {}", describe(&out)));
    let failing = report["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .filter(|c| ["fail", "warn", "error"].iter().any(|o| c["outcome"] == *o))
        .map(|c| c["id"].as_str().expect("id").to_owned())
        .collect();
    (failing, report)
}

// A `--case` shard keeps the cross-cutting rules on the exchanges it makes: a shard of cases
// that read only listings once passed a server whose answers were not JSON-RPC 2.0, or that
// answered every request twice. One test per shard, so they run side by side.
fn assert_shard_keeps(globs: &[&str], mutation: &str, expected: &str) {
    let (failing, report) = shard(globs, mutation);
    assert_eq!(
        failing,
        BTreeSet::from([expected.to_owned()]),
        "{globs:?} through {mutation}: {}",
        report["summary"]
    );
    // The shard's own cases ran besides the cross-cutting ones.
    assert!(
        report["cases"]
            .as_array()
            .expect("cases")
            .iter()
            .any(|c| globs
                .iter()
                .any(|g| c["id"].as_str().unwrap_or("").starts_with(g))),
        "{report}"
    );
}

#[test]
fn a_shard_keeps_the_cross_cutting_rules_a_catalogue_shard_sees_no_jsonrpc() {
    assert_shard_keeps(
        &["tools/catalogue"],
        "response-without-jsonrpc",
        "lifecycle/stdout/protocol-only",
    );
}

// GATE-LOAD-2. The cross-cutting cases that probe (output-schema's calls, structured-mirror's)
// run before the other cross-cutting cases grade, which see the probes' exchanges: a shard of
// output-schema alone once skipped the result-shape rule, "no tools/call was answered with a
// result".
#[test]
fn a_shard_keeps_the_cross_cutting_rules_an_output_schema_shard_sees_is_error_a_string() {
    assert_shard_keeps(
        &["tools/result/output-schema"],
        "is-error-string",
        "tools/result/shape",
    );
}

#[test]
fn a_shard_keeps_the_cross_cutting_rules_a_resources_shard_sees_answers_twice() {
    assert_shard_keeps(&["resources"], "answered-twice", "jsonrpc/response-ids");
}

#[test]
fn a_shard_keeps_the_cross_cutting_rules_a_ping_shard_sees_a_ping_answered_twice() {
    assert_shard_keeps(
        &["lifecycle/ping"],
        "ping-answered-twice",
        "jsonrpc/response-ids",
    );
}

#[test]
fn a_shard_keeps_the_cross_cutting_rules_a_ping_shard_sees_an_unsolicited_answer() {
    assert_shard_keeps(
        &["lifecycle/ping"],
        "unsolicited-string-answer",
        "jsonrpc/response-ids",
    );
}

#[test]
fn a_shard_keeps_the_cross_cutting_rules_a_listing_shard_sees_a_list_answered_twice() {
    assert_shard_keeps(
        &["tools/list"],
        "list-answered-twice",
        "jsonrpc/response-ids",
    );
}

#[test]
fn a_shard_keeps_the_cross_cutting_rules_a_notification_shard_sees_a_banner() {
    assert_shard_keeps(
        &["jsonrpc/unknown-notification"],
        "stdout-banner",
        "lifecycle/stdout/protocol-only",
    );
}

// The id rule's evidence names the offence and the first exchange: a repeat says which request
// was answered again, an unsolicited answer quotes the id as written.
#[test]
fn the_id_rules_evidence_names_each_kind_of_offence() {
    for (mutation, says) in [
        (
            "list-answered-twice",
            "(tools/list), which was answered already",
        ),
        (
            "unsolicited-string-answer",
            "a response with id \"mcp-proxy-never-sent\", which no request of the runner carried",
        ),
        (
            "unsolicited-number-answer",
            "a response with id 424242, which no request of the runner carried",
        ),
    ] {
        let (failing, report) = shard(&["jsonrpc/response-ids"], mutation);
        assert_eq!(
            failing,
            BTreeSet::from(["jsonrpc/response-ids".to_owned()]),
            "{mutation}"
        );
        let c = crate::support::case(&report, "jsonrpc/response-ids");
        let actual = c["actual"].as_str().unwrap_or_default();
        assert!(
            actual.contains(says) && actual.contains("(first seen in discovery)"),
            "{mutation}: {actual}"
        );
    }
}
