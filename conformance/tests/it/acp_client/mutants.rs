//! The script client, well-behaved, passes every case (SIGINT is its documented interrupt, and
//! it takes 1.5 s to decide a permission, so a cancel finds one pending); each one-defect mutant
//! fails exactly its own case and passes the rest: ACP-GATE-2's rules on clients.

use mcp_conformance::acp::client::{ClientModeConfig, run_client_mode};
use mcp_conformance::acp::gate::AcpProfile;
use mcp_conformance::core::report::CaseResult;

use super::{check, check_in, script_cfg as cfg_in};

/// The script client under the Cursor profile: every case of the catalogue.
fn cfg(flags: &[&str]) -> ClientModeConfig {
    cfg_in(AcpProfile::Cursor, flags)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_well_behaved_client_passes_every_case() {
    check(&[], None).await;
}

/// The kit's Cursor policy (ACP-2, ACP-4) is not ACP's: under the default profile a client
/// that selects `allow_always` or authenticates unprompted passes (those cases are not run).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cursor_policy_is_not_graded_for_any_client() {
    check_in(
        AcpProfile::Client,
        &["--select-kind", "allow_always", "--authenticate"],
        &[],
    )
    .await;
}

/// Every ACP client supports `session/request_permission` (its Baseline Method): one that
/// answers it -32601 is flagged at the docs' level (SHOULD: a warning), in either profile.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_refusing_request_permission_warns_on_that_rule() {
    let results = run_client_mode(&cfg_in(
        AcpProfile::Client,
        &["--refuse-method", "session/request_permission"],
    ))
    .await;
    super::assert_pinned(
        &results,
        &super::all_pass_except_in(
            AcpProfile::Client,
            &[
                (
                    "client/supports-request-permission",
                    "warn",
                    "session/request_permission (id 0): error -32601",
                ),
                // Selecting nothing follows from the same answer: not applicable, never a
                // second failure. The cancel case races the SIGINT against the permission
                // request: answered before the cancel, nothing was pending (skip); read after
                // it, the -32601 answer is this same defect (skip, blocked by the rule above).
                (
                    "client/permission-echoes-offered-option",
                    "skip",
                    "the client selected no option",
                ),
                ("client/cancel-answers-pending-permission", "skip", ""),
            ],
        ),
    );
    let r = results
        .iter()
        .find(|r| r.id == "client/supports-request-permission")
        .expect("case");
    assert_eq!(r.level.name(), "SHOULD");
    let cancel = results
        .iter()
        .find(|r| r.id == "client/cancel-answers-pending-permission")
        .expect("case");
    assert!(
        cancel.blocked_by.as_deref() == Some("client/supports-request-permission")
            || cancel
                .reason
                .as_deref()
                .is_some_and(|r| r.contains("nothing was pending at the cancel")),
        "{}",
        super::describe(std::slice::from_ref(cancel))
    );
}

/// ACP's MUST on prompt content binds the client ("The Client MUST adapt its interface according
/// to PromptCapabilities"): an audio block the scripted agent did not advertise fails that rule.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_sending_content_the_agent_did_not_advertise_fails_only_that_case() {
    check_in(
        AcpProfile::Client,
        &["--prompt-block", "audio"],
        &[(
            "client/prompt-content-advertised",
            "fail",
            "session/prompt carried: audio block (promptCapabilities.audio not advertised)",
        )],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_selecting_allow_always_fails_only_that_case() {
    check(
        &["--select-kind", "allow_always"],
        Some((
            "client/permission-never-allow-always",
            "session/request_permission (id 0) answered selected \"allow-always\" (kind allow_always)",
        )),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_leaving_a_cursor_request_unanswered_fails_only_that_case() {
    check(
        &["--ignore-method", "cursor/update_todos"],
        Some((
            "client/answers-agent-requests",
            "cursor/update_todos (id 1): no answer",
        )),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_calling_authenticate_unprompted_fails_only_that_case() {
    check(
        &["--authenticate"],
        Some((
            "client/no-unprompted-authenticate",
            "authenticate sent: agent pid",
        )),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_selecting_an_option_nobody_offered_fails_only_that_case() {
    check(
        &["--bogus-option"],
        Some((
            "client/permission-echoes-offered-option",
            "selected \"allow\", offered [\"opt-7f3a-once\", \"opt-c2e1-always\", \"opt-9b04-no\"]",
        )),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_leaving_the_pending_permission_unanswered_at_cancel_fails_only_that_case() {
    check(
        &["--no-cancel-answer"],
        Some((
            "client/cancel-answers-pending-permission",
            // What follows ("closed the agent's stdin" or not) races the mutant's SIGTERM of
            // its agent against the agent logging its EOF: only the finding itself is pinned.
            "no answer; the client ",
        )),
    )
    .await;
}

/// Not a defect: a client that SIGTERMs its agent the moment it has cancelled (here: it stops
/// the agent first, so the agent cannot have read its last lines when the SIGTERM comes) is
/// graded on everything it wrote, not on what the agent got round to reading: under load that
/// was a false fail of the well-behaved client.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_ending_its_agent_right_after_cancelling_is_graded_on_all_it_wrote() {
    check(&["--end-agent-at-cancel"], None).await;
}

/// Every case of a run whose client ended (or hung) before its turn: `by` fails with `text`, and
/// every other case is a skip blocked by it (never a runner `error`).
fn blocked_by_one(results: &[mcp_conformance::core::report::CaseResult], by: &str, text: &str) {
    blocked_by_one_in(AcpProfile::Cursor, results, by, text);
}

/// [`blocked_by_one`] over the cases of `profile`.
fn blocked_by_one_in(
    profile: AcpProfile,
    results: &[mcp_conformance::core::report::CaseResult],
    by: &str,
    text: &str,
) {
    let blocked = format!("blocked by {by}");
    let pinned: Vec<(&str, &str, &str)> = mcp_conformance::acp::client::CASES
        .iter()
        .filter(|c| c.level(profile).is_some())
        .map(|c| {
            if c.id == by {
                (c.id, "fail", text)
            } else {
                (c.id, "skip", blocked.as_str())
            }
        })
        .collect();
    super::assert_pinned(results, &pinned);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_crashing_after_an_unprompted_authenticate_fails_that_rule_only() {
    // A real client once did this (an unprompted authenticate, then a crash) and got an error
    // for every case and exit 2 instead of the rule it broke.
    let results = run_client_mode(&cfg(&["--crash-after-authenticate"])).await;
    blocked_by_one(
        &results,
        "client/no-unprompted-authenticate",
        "authenticate sent",
    );
    // For any client authenticating is no defect: the missing turn is the finding.
    let results =
        run_client_mode(&cfg_in(AcpProfile::Client, &["--crash-after-authenticate"])).await;
    blocked_by_one_in(
        AcpProfile::Client,
        &results,
        "client/answers-agent-requests",
        "the client sent no session/prompt",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_crashing_before_its_turn_fails_the_turn_case_only() {
    let results = run_client_mode(&cfg(&["--crash-before-prompt"])).await;
    blocked_by_one(
        &results,
        "client/answers-agent-requests",
        "the client sent no session/prompt",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_hanging_before_its_turn_fails_the_turn_case_only() {
    let mut cfg = cfg(&["--hang-before-prompt"]);
    // Each case waits its whole timeout for a turn that never comes, so they all run side by
    // side. The timeout leaves the client time to start and speak first even on a loaded
    // machine: at 3 s, with the tests' other gates beside it, a client that took 1.9 s to reach
    // its agent sometimes had not spoken by the timeout, and that case was a runner error
    // ("never spoke to the scripted agent"), truthfully, instead of its blocked skip.
    cfg.case_timeout = std::time::Duration::from_secs(6);
    cfg.jobs = 12;
    let results = run_client_mode(&cfg).await;
    blocked_by_one(
        &results,
        "client/answers-agent-requests",
        "still running at the case timeout",
    );
}

/// JSON-RPC 2.0 §5, both ways (kit ACP-1): the id rule over every case's wire fails once, on
/// the first duplicate, with the id as the client wrote it; the cases that read the first
/// answer keep their verdicts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_answering_a_request_twice_fails_only_response_ids() {
    check(
        &["--answer-twice", "cursor/update_todos"],
        Some((
            "client/response-ids",
            "a second response to id 1 (cursor/update_todos), which was answered already",
        )),
    )
    .await;
}

/// An answer under an id the scripted agent never sent is the id rule's finding alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_answering_an_id_never_sent_fails_only_response_ids() {
    check(
        &["--stray-answer"],
        Some((
            "client/response-ids",
            r#"a response with id "script-client-stray", which no request"#,
        )),
    )
    .await;
}

/// A client that answers the first permission request of a turn and leaves the next one
/// unanswered (as one whose later prompts read a stdin the first prompt drained) fails the rule
/// it breaks, `client/answers-agent-requests` (ACP-GATE-2: every agent request of every case's
/// run is answered), with the run that showed it, although that case's own scenario asks only
/// once; the case judging the answers it gave is blocked by it, not passed because the one
/// answer echoed an offered id, nor failed for a subject it does not have. Under
/// `--profile client` only the option-id scenario asks twice; under `cursor` the allow-always
/// one does too, and the first in the catalogue is named.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_leaving_a_later_permission_request_unanswered_fails_the_answer_rule() {
    for (profile, blocked, shown_in) in [
        (
            AcpProfile::Client,
            &["client/permission-echoes-offered-option"][..],
            "(in client/permission-echoes-offered-option)",
        ),
        (
            AcpProfile::Cursor,
            &[
                "client/permission-never-allow-always",
                "client/permission-echoes-offered-option",
            ][..],
            "(in client/permission-never-allow-always)",
        ),
    ] {
        let mut cfg = cfg_in(
            profile,
            &["--answer-first-only", "session/request_permission"],
        );
        // The scenario waits for the answer that never comes: the case ends at its timeout.
        cfg.case_timeout = std::time::Duration::from_secs(15);
        let results = run_client_mode(&cfg).await;
        let rule = answer_rule_fails_alone(
            &results,
            profile,
            "session/request_permission (id 1): no answer",
            blocked,
        );
        assert!(
            rule.actual.as_deref().is_some_and(|a| a.contains(shown_in)),
            "{}",
            super::describe(std::slice::from_ref(rule))
        );
    }
}

/// Pins `client/answers-agent-requests` failing with `finding`, every case of `blocked` `skip`
/// with `blocked_by` it, and every other case of `profile` passing; returns the rule's result.
fn answer_rule_fails_alone<'a>(
    results: &'a [CaseResult],
    profile: AcpProfile,
    finding: &str,
    blocked: &[&str],
) -> &'a CaseResult {
    let mut pinned = vec![("client/answers-agent-requests", "fail", finding)];
    pinned.extend(blocked.iter().map(|id| (*id, "skip", "")));
    super::assert_pinned(results, &super::all_pass_except_in(profile, &pinned));
    for id in blocked {
        let r = results.iter().find(|r| r.id == *id).expect("case");
        assert_eq!(
            r.blocked_by.as_deref(),
            Some("client/answers-agent-requests"),
            "{}",
            super::describe(std::slice::from_ref(r))
        );
    }
    results
        .iter()
        .find(|r| r.id == "client/answers-agent-requests")
        .expect("case")
}

/// A client that never answers `session/request_permission` (not even an error) breaks one rule,
/// every agent request answered: `client/answers-agent-requests` fails, and every case whose
/// subject needs a permission answer (the option it selects, the answer after unknown updates,
/// under a colliding id, pending at a cancel) is `skip`, blocked by it, in either profile: the
/// plain turn's permission request is the control that tells this defect from those subjects.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_never_answering_permission_requests_fails_only_the_answer_rule() {
    for profile in [AcpProfile::Client, AcpProfile::Cursor] {
        let mut cfg = cfg_in(profile, &["--ignore-method", "session/request_permission"]);
        // The scenarios wait for answers that never come: each case ends at its timeout.
        cfg.case_timeout = std::time::Duration::from_secs(10);
        cfg.jobs = 8;
        let results = run_client_mode(&cfg).await;
        // Each scenario waits on its permission answer, so no other agent request went out:
        // the id rule has no answer to judge either.
        let mut blocked = vec![
            "client/response-ids",
            "client/supports-request-permission",
            "client/permission-echoes-offered-option",
            "client/tolerates-unknown-session-update",
            "client/colliding-request-ids",
            "client/cancel-answers-pending-permission",
        ];
        if profile == AcpProfile::Cursor {
            blocked.push("client/permission-never-allow-always");
        }
        answer_rule_fails_alone(
            &results,
            profile,
            "session/request_permission (id 0): no answer",
            &blocked,
        );
    }
}

/// The same rule in a `--case` shard: the rule on what the client owes is kept in every shard
/// and grades the shard's own runs (RUNNER-11), so a shard of the option-id case does not pass
/// a client that leaves its second request unanswered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shard_keeps_the_answer_rule_on_its_own_runs() {
    let mut cfg = cfg_in(
        AcpProfile::Client,
        &["--answer-first-only", "session/request_permission"],
    );
    cfg.case_timeout = std::time::Duration::from_secs(15);
    cfg.cases = vec!["client/permission-echoes-offered-option".into()];
    let results = run_client_mode(&cfg).await;
    let got = super::outcomes(&results);
    assert_eq!(
        got.into_iter().collect::<Vec<_>>(),
        [
            ("client/answers-agent-requests".into(), "fail".into()),
            (
                "client/permission-echoes-offered-option".into(),
                "skip".into()
            ),
            ("client/response-ids".into(), "pass".into()),
        ],
        "{}",
        super::describe(&results)
    );
}
