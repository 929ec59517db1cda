//! The id rule in client mode, one defect, one verdict (JSON-RPC 2.0 §4.1, §5; kit ACP-1,
//! ACP-GATE-2): each one-defect script client breaks it one way (an answer under a made-up id,
//! under its request's id retyped, to a notification, again after the turn) and fails exactly
//! `client/response-ids`; a case whose request went unanswered because its answer came under
//! another id is `skip` with `blocked_by` it. A `--case` shard keeps the rule on the scenarios it
//! runs, and only on those. The clean twin is `mutants::a_well_behaved_client_passes_every_case`.

use std::collections::BTreeMap;

use mcp_conformance::acp::client::run_client_mode;
use mcp_conformance::acp::gate::AcpProfile;
use mcp_conformance::core::report::CaseResult;

use super::{check, check_in, describe, outcomes, script_cfg};

const IDS: &str = "client/response-ids";
const ANSWERS: &str = "client/answers-agent-requests";

/// Asserts that `case` is a skip blocked by the id rule.
fn blocked_by_ids(results: &[CaseResult], case: &str) {
    let r = results.iter().find(|r| r.id == case).expect("case");
    assert_eq!(
        r.blocked_by.as_deref(),
        Some(IDS),
        "{}",
        describe(std::slice::from_ref(r))
    );
}

/// A cursor/update_todos answered under an id the agent never sent (1001 for 1): the id is the
/// finding; the request's missing answer is that same defect.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_answering_under_a_made_up_id_fails_only_response_ids() {
    let flags = ["--wrong-id", "cursor/update_todos"];
    check_in(
        AcpProfile::Cursor,
        &flags,
        &[
            (IDS, "fail", "a response with id 1001, which no request"),
            (ANSWERS, "skip", "blocked by client/response-ids"),
        ],
    )
    .await;
}

/// The request's own id retyped (`1` answered as `"1"`): another id (JSON-RPC 2.0 §5).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_answering_under_its_id_retyped_fails_only_response_ids() {
    let results = run_client_mode(&script_cfg(
        AcpProfile::Client,
        &["--retype-id", "cursor/update_todos"],
    ))
    .await;
    super::assert_pinned(
        &results,
        &super::all_pass_except_in(
            AcpProfile::Client,
            &[
                (IDS, "fail", r#"a response with id "1", which no request"#),
                (ANSWERS, "skip", "blocked by client/response-ids"),
            ],
        ),
    );
    blocked_by_ids(&results, ANSWERS);
}

/// A result under id null for each `session/update` notification: notifications are never
/// answered (JSON-RPC 2.0 §4.1), the id rule's finding alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_answering_notifications_fails_only_response_ids() {
    check(
        &["--answer-notifications"],
        Some((
            IDS,
            // Whether the permission request the agent wrote right after the update was
            // pending when the answer came is the agent's scheduling: either way the finding
            // names the answered notification.
            "an answer to a notification",
        )),
    )
    .await;
}

/// A second answer to a request after the turn is over (the prompt answered): however late, a
/// repeat.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_answering_again_after_the_turn_fails_only_response_ids() {
    check(
        &["--answer-after-turn", "cursor/update_todos"],
        Some((
            IDS,
            "a second response to id 1 (cursor/update_todos), which was answered already",
        )),
    )
    .await;
}

/// A `--case` shard runs the id rule on the scenarios of the cases it selected: a duplicate in
/// them fails it, a mislabelled answer there blocks its case by it. Every shard also runs the
/// rule on what the client owes (`client/answers-agent-requests`, a cross-cutting probe), and
/// the id rule grades that probe's exchanges too: a shard whose own scenario has no agent
/// request still catches a duplicate answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shard_keeps_the_id_rule_on_the_exchanges_it_makes() {
    let shard = |case: &str, flags: &[&str]| {
        let mut cfg = script_cfg(AcpProfile::Client, flags);
        cfg.cases = vec![case.to_owned()];
        cfg
    };
    let want = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
            .collect()
    };
    let results =
        run_client_mode(&shard(ANSWERS, &["--answer-twice", "cursor/update_todos"])).await;
    assert_eq!(
        outcomes(&results),
        want(&[(ANSWERS, "pass"), (IDS, "fail")]),
        "{}",
        describe(&results)
    );
    let results = run_client_mode(&shard(ANSWERS, &["--wrong-id", "cursor/update_todos"])).await;
    assert_eq!(
        outcomes(&results),
        want(&[(ANSWERS, "skip"), (IDS, "fail")]),
        "{}",
        describe(&results)
    );
    blocked_by_ids(&results, ANSWERS);
    let results = run_client_mode(&shard(
        "client/ends-agent-after-turn",
        &["--answer-twice", "cursor/update_todos"],
    ))
    .await;
    assert_eq!(
        outcomes(&results),
        want(&[
            (ANSWERS, "pass"),
            ("client/ends-agent-after-turn", "pass"),
            (IDS, "fail"),
        ]),
        "{}",
        describe(&results)
    );
}
