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
    // The shard keeps the id rule, which found no answer to judge in it.
    assert_eq!(results.len(), 2, "{}", describe(&results));
    assert_eq!(results[1].id, "client/response-ids");
    assert_eq!(results[1].outcome, Outcome::Skip, "{}", describe(&results));
    let r = &results[0];
    assert!(r.timed_out, "{}", describe(&results));
    // It started the agent it was given, so the wiring is right: hanging before its turn is the
    // client's defect, graded (the turn case is not selected, so this case grades it at its own
    // level: SHOULD, a warning), never the runner's error.
    assert_eq!(r.outcome, Outcome::Warn, "{}", describe(&results));
    assert!(
        r.actual
            .as_deref()
            .unwrap_or("")
            .contains("the client sent no session/prompt"),
        "{}",
        describe(&results)
    );
    // Every process the run saw (the client, the agent) is gone.
    let pids: Vec<u32> = r
        .transcript
        .iter()
        .filter_map(|e| {
            let rest = e.line.split("(pid ").nth(1)?;
            rest.split(|c: char| !c.is_ascii_digit())
                .next()?
                .parse()
                .ok()
        })
        .collect();
    assert!(
        pids.len() >= 2,
        "client and agent pids in the transcript: {}",
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
