//! Containment and the per-case timeout: a client that never speaks ACP and never exits, whose
//! agent never exits either, is ended at the case timeout, and nothing it or its agent started
//! survives the run.

use std::time::Duration;

use mcp_conformance::acp::client::run_client_mode;
use mcp_conformance::core::model::Outcome;
use testkit::procs;

use super::{config, describe};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hung_client_and_its_agent_are_killed_at_the_case_timeout() {
    // The agent's stdin is a pipe from `sleep` that never closes: it never sees EOF, never
    // exits; the client waits for it forever.
    let mut cfg = config(&[
        "sh",
        "-c",
        "sleep 1000 | \"$ACP_CONFORMANCE_AGENT\" > /dev/null & wait",
    ]);
    cfg.case_timeout = Duration::from_secs(3);
    cfg.cases = vec!["client/ends-agent-after-turn".into()];
    let results = run_client_mode(&cfg).await;
    // The shard keeps the cross-cutting rules: the rule on what the client owes, which probes
    // with its own scenario (and so its own hung client), and the id rule, which found no
    // answer to judge.
    let ids: Vec<&str> = results.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "client/answers-agent-requests",
            "client/ends-agent-after-turn",
            "client/response-ids"
        ],
        "{}",
        describe(&results)
    );
    assert_eq!(results[2].outcome, Outcome::Skip, "{}", describe(&results));
    let (turn, ends) = (&results[0], &results[1]);
    assert!(turn.timed_out && ends.timed_out, "{}", describe(&results));
    // It started the agent it was given, so the wiring is right: hanging before its turn is the
    // client's defect, graded (failing the turn case, which blocks the others), never the
    // runner's error.
    assert_eq!(turn.outcome, Outcome::Fail, "{}", describe(&results));
    assert!(
        turn.actual
            .as_deref()
            .unwrap_or("")
            .contains("the client sent no session/prompt"),
        "{}",
        describe(&results)
    );
    assert_eq!(ends.outcome, Outcome::Skip, "{}", describe(&results));
    assert_eq!(
        ends.blocked_by.as_deref(),
        Some("client/answers-agent-requests"),
        "{}",
        describe(&results)
    );
    // Every process the run saw (both clients, both agents) is gone.
    let pids: Vec<u32> = [turn, ends]
        .iter()
        .flat_map(|r| r.transcript.iter())
        .filter_map(|e| {
            let rest = e.line.split("(pid ").nth(1)?;
            rest.split(|c: char| !c.is_ascii_digit())
                .next()?
                .parse()
                .ok()
        })
        .collect();
    assert!(
        pids.len() >= 4,
        "client and agent pids in the transcripts: {}",
        describe(&results)
    );
    for pid in pids {
        // Gone, or a zombie (dead, not yet reaped).
        assert!(!procs::alive(pid), "pid {pid} survived the run");
    }
}

#[test]
fn a_runner_killed_right_after_it_started_the_client_leaves_no_group() {
    // C-SUP-5: the client registers its group with the runner's lifeline before it execs, so a
    // runner killed at once (the client's first act) leaves nothing, however the scheduler
    // ordered the kill and the runner's own registration.
    testkit::parent_kill::assert_parent_sigkill_leaves_no_group(
        "acp-conformance's client",
        |probe| {
            std::process::Command::new(env!("CARGO_BIN_EXE_acp-conformance"))
                .args(["--client", "--case", "client/ends-agent-after-turn", "--"])
                .args(probe.argv())
                .env("TMPDIR", probe.scratch())
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .expect("the runner starts")
        },
    );
}
