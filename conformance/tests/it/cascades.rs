//! One defect, one verdict (RUNNER-11), on the toy server (plain profile, `--strict`) and through the proxy's
//! mutations (provider profile): a defect that removes other cases' precondition (an answer
//! under another id, a tool result that is no `CallToolResult`, an unreadable work resource)
//! fails its own rule once; every case it blocks is a `skip` with `blocked_by` that rule, every
//! other case keeps the conformant server's verdict, and the run exits 1. Each toy test pins the
//! exact set of verdicts that differ from the conformant toy's; each proxy test asserts the
//! failing set and that every skip is blocked by it (as `mutants.rs` does).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use serde_json::Value;

use crate::support::{describe, run_json, toy};

/// `(outcome, blocked_by)` of every case.
type Verdicts = BTreeMap<String, (String, Option<String>)>;

/// The whole plain suite under `--strict` against the toy with `flags`: exit status, verdicts
/// and the report.
fn suite(flags: &[&str]) -> (Option<i32>, Verdicts, Value) {
    let toy = toy().display().to_string();
    let mut server = vec![toy.as_str()];
    server.extend_from_slice(flags);
    let (out, report) = run_json(&["--strict", "--timeout-ms", "3000"], &server);
    let report = report.unwrap_or_else(|| panic!("no report: {}", describe(&out)));
    crate::docs::assert_matches_schema(&report);
    let verdicts = report["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| {
            (
                c["id"].as_str().expect("id").to_owned(),
                (
                    c["outcome"].as_str().expect("outcome").to_owned(),
                    c["blocked_by"].as_str().map(str::to_owned),
                ),
            )
        })
        .collect();
    (out.status.code(), verdicts, report)
}

/// The conformant toy's verdicts (no fail, no warn, no error), run once for the file.
fn clean() -> &'static Verdicts {
    static CLEAN: OnceLock<Verdicts> = OnceLock::new();
    CLEAN.get_or_init(|| {
        let (code, verdicts, _) = suite(&[]);
        assert_eq!(code, Some(0), "the conformant toy: {verdicts:?}");
        verdicts
    })
}

/// Runs the toy with `flags` and asserts: `own` fails, with an `actual` containing `says`;
/// exactly the cases `blocked` are skips blocked by `own`; every other case has the conformant
/// toy's verdict; exit 1.
fn assert_one_verdict(flags: &[&str], own: &str, says: &str, blocked: &BTreeSet<String>) -> Value {
    let clean = clean();
    let (code, got, report) = suite(flags);
    let mut want = clean.clone();
    want.insert(own.to_owned(), ("fail".to_owned(), None));
    for id in blocked {
        want.insert(id.clone(), ("skip".to_owned(), Some(own.to_owned())));
    }
    let differ: Vec<String> = want
        .keys()
        .chain(got.keys())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .filter(|id| want.get(*id) != got.get(*id))
        .map(|id| format!("{id}: want {:?}, got {:?}", want.get(id), got.get(id)))
        .collect();
    assert!(
        differ.is_empty(),
        "{flags:?}: verdicts differ:\n  {}\n{}",
        differ.join("\n  "),
        report["summary"]
    );
    let actual = crate::support::case(&report, own)["actual"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(actual.contains(says), "{flags:?}: {own}: {actual}");
    assert_eq!(code, Some(1), "{flags:?}");
    report
}

fn set(ids: &[&str]) -> BTreeSet<String> {
    ids.iter().map(|s| (*s).to_owned()).collect()
}

/// The cross-cutting cases: they grade the exchanges discovery made, so they still run when
/// discovery stopped early.
fn cross_cutting() -> BTreeSet<&'static str> {
    mcp_conformance::mcp::catalogue::all()
        .iter()
        .filter(|c| c.needs.crosscut())
        .map(|c| c.id)
        .collect()
}

/// Every case that needs discovery (all but the cross-cutting ones), and the cross-cutting
/// ones that then have nothing to grade: what a discovery stopped by an answer under another
/// id blocks. `notified`: discovery got as far as `notifications/initialized`, which the
/// notification rule then grades (and passes).
fn all_but_discovery_graders(notified: bool) -> BTreeSet<String> {
    let keep = cross_cutting();
    clean()
        .keys()
        .filter(|id| !keep.contains(id.as_str()))
        .cloned()
        .chain(set(&[
            "tools/result/shape",
            "tools/result/error-split",
            "tools/result/output-schema",
            "logging/message-shape",
        ]))
        .chain((!notified).then(|| "jsonrpc/unknown-notification".to_owned()))
        .filter(|id| id != "jsonrpc/response-ids")
        .collect()
}

const ID_RULE: &str = "jsonrpc/response-ids";

// JSON-RPC 2.0 §5 during discovery: tools/list answered under another id. The runner once gave
// up ("would not start", exit 2); the id rule grades it from discovery's exchanges, and every
// case that needed the listing is blocked by it.
#[test]
fn a_wrong_id_on_tools_list_in_discovery_fails_the_id_rule_and_blocks_the_rest() {
    assert_one_verdict(
        &["--wrong-id-method", "tools/list"],
        ID_RULE,
        "first seen in discovery",
        &all_but_discovery_graders(true),
    );
}

// The same on initialize itself: discovery has no server information at all. The server
// answered at once, under the wrong id: its start-up is that answer's time, not the whole wait
// the wrong id cost, so the deadlines stay at `--timeout-ms` (GATE-LOAD-1; they were once
// scaled by a 3-second "start-up" to 25 s each).
#[test]
fn a_wrong_id_on_initialize_fails_the_id_rule_and_blocks_the_rest() {
    let report = assert_one_verdict(
        &["--wrong-id-method", "initialize"],
        ID_RULE,
        "first seen in discovery",
        &all_but_discovery_graders(false),
    );
    let deadlines = &report["deadlines"];
    assert!(
        deadlines["startup_ms"].as_u64().expect("startup_ms") < 3000,
        "{deadlines}"
    );
    assert_eq!(deadlines["effective_ms"], 3000, "{deadlines}");
}

// The same on resources/list, after tools/list was answered right.
#[test]
fn a_wrong_id_on_resources_list_fails_the_id_rule_and_blocks_the_rest() {
    let (_, clean_with_resource, _) = suite(&["--empty-resource"]);
    assert!(clean_with_resource.values().all(|(o, _)| o != "fail"));
    let toy = ["--wrong-id-method", "resources/list", "--empty-resource"];
    let (code, got, report) = suite(&toy);
    assert_eq!(code, Some(1));
    let failing: BTreeSet<&String> = got
        .iter()
        .filter(|(_, v)| v.0 == "fail")
        .map(|(id, _)| id)
        .collect();
    assert_eq!(
        failing,
        BTreeSet::from([&ID_RULE.to_owned()]),
        "{}",
        report["summary"]
    );
    for (id, (outcome, by)) in &got {
        assert!(
            outcome == "pass" || outcome == "fail" || by.as_deref() == Some(ID_RULE),
            "{id}: {outcome} {by:?}"
        );
    }
}

// A wrong id on every ping: the id rule fails once. The ids/* cases probe the same echo with
// other id values; their probe comes back mislabelled too, so they are blocked by the id rule
// (a server that mislabels only some id values still fails them, defects.rs and the
// wrong-id-echo mutant), as is every case that waited for a ping's answer.
/// What a ping answered under another id blocks: every case that waited for a ping's answer,
/// and the ids/* cases whose plain probe ping came back mislabelled too.
const PING_BLOCKED: &[&str] = &[
    "lifecycle/ping/after-initialize",
    "lifecycle/shutdown/stdin-eof",
    "lifecycle/shutdown/sigterm",
    "jsonrpc/ids/zero",
    "jsonrpc/ids/negative",
    "jsonrpc/ids/string",
    "jsonrpc/ids/empty-string",
    "jsonrpc/ids/i64-max",
    "jsonrpc/ids/i64-min",
    "jsonrpc/ids/u64-max",
    "jsonrpc/unknown-notification",
    "jsonrpc/malformed/parse-error",
    "jsonrpc/malformed/invalid-utf8",
    "jsonrpc/invalid/not-an-object",
    "jsonrpc/invalid/wrong-version",
    "jsonrpc/invalid/method-not-string",
    "jsonrpc/invalid/params-not-structured",
    "jsonrpc/invalid/null-id",
    "jsonrpc/batch/2025-03-26",
    "jsonrpc/batch/rejected-2025-06-18",
    "jsonrpc/batch/rejected-2024-11-05",
    "jsonrpc/batch/empty",
    "jsonrpc/oversized/answered",
    "jsonrpc/oversized/memory-bounded",
    "liveness/after-malformed",
    "liveness/after-oversized",
    "liveness/in-flight-kept",
    "cancellation/unknown-request",
];

// Full tier: the wrong id above u64 (below) makes the same cascade in the fast tier, and each
// of these whole gates waits out the oversized cases' long deadline on a ping never answered
// under its own id.
#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn a_wrong_id_on_ping_fails_the_id_rule_once() {
    assert_one_verdict(
        &["--wrong-id-method", "ping"],
        ID_RULE,
        "first seen in",
        &set(PING_BLOCKED),
    );
}

// RUNNER-11. The same under 18446744073709551616, an integer one above u64: a valid id (MCP: a string or
// integer), so the answers are JSON-RPC messages and T1 holds; only the id rule fails, and its
// evidence shows the id as the server wrote it.
#[test]
fn a_wrong_integer_id_above_u64_on_ping_fails_the_id_rule_once() {
    assert_one_verdict(
        &["--huge-wrong-id-method", "ping"],
        ID_RULE,
        // Quoted as written, not as the float serde_json holds (1.8446744073709552e+19).
        "a response with id 18446744073709551616, which no request of the runner carried",
        &set(PING_BLOCKED),
    );
}

// MCP server/tools: isError written as a string. Only the result-shape rule fails: the
// output-schema rule cannot tell whether the call succeeded (so whether its schema applies),
// and the case grading an invalid-argument call cannot tell whether it failed.
#[test]
fn an_is_error_string_fails_only_result_shape() {
    assert_one_verdict(
        &["--is-error-string"],
        "tools/result/shape",
        "isError that is not a boolean",
        &set(&[
            "tools/result/output-schema",
            "tools/call/wrong-typed-arguments",
        ]),
    );
}

// T3, JSON-RPC 2.0 §4.1: every notification answered (notifications/initialized included):
// only the notification rule fails, nothing that sent a notification before its own request
// is failed or blocked.
#[test]
fn answering_every_notification_fails_only_unknown_notification() {
    assert_one_verdict(
        &["--answer-notifications"],
        "jsonrpc/unknown-notification",
        "an answer to a notification",
        &BTreeSet::new(),
    );
}

/// The whole provider suite through `mcp_proxy --mutate MUTATION`: exactly `own` fails, and
/// every skip is blocked by it.
fn proxy_blocking(mutation: &str, own: &str) {
    let suite = crate::mutants::Suite::run("provider", &["--mutate", mutation]);
    suite.assert_blocking(&format!("mutant {mutation}"), &[own], own);
}

// MCP server/resources: the listed work URI cannot be read (-32603). resources/read/listed,
// which reads it, fails once; META-WORK-3's snapshot shape, and every case that needs a
// snapshot, is blocked by it instead of failing on the error answer.
#[test]
fn an_unreadable_work_resource_fails_only_read_listed() {
    proxy_blocking("work-resource-unreadable", "resources/read/listed");
}

// The same with "Resource not found" (-32002) for a URI the server lists.
#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn a_listed_work_resource_not_found_fails_only_read_listed() {
    proxy_blocking("work-resource-not-found", "resources/read/listed");
}

// MCP server/tools: isError as a string in provider results. The result-shape rule fails once;
// the output-schema rule (which cannot tell a successful call) and every case reading a result
// are blocked by it, and TOOL-4's mirror leaves the boolean to it.
#[test]
fn a_provider_is_error_string_fails_only_result_shape() {
    proxy_blocking("is-error-string", "tools/result/shape");
}

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn a_provider_is_error_number_fails_only_result_shape() {
    proxy_blocking("is-error-number", "tools/result/shape");
}
