//! The engine driver's wait for a protocol provider's out-of-band completion (ACP-6): a run
//! whose native process has exited and whose streams are closed is not settled until the
//! completion is in, and the stdout drain bound (SUP-4) ends that wait when it never comes.
//! Time is tokio's paused clock: it only moves when every task is idle, so "before the drain
//! bound" and "after it" are exact, not wall-clock guesses.

use serde_json::Value;

use super::sim::*;
use crate::driver::STDOUT_DRAIN;
use crate::provider::Completion;
use crate::to_json;

/// A run whose process prints only its init line and exits 0 at once, its completion sent by
/// the test.
fn protocol_run() -> (
    crate::Engine,
    String,
    tokio::sync::oneshot::Sender<Completion>,
) {
    let (tx, rx) = completion();
    let mut s = Script::lines(&[INIT]);
    s.completion = Some(rx);
    let (e, _) = engine(vec![("acp", s)]);
    let id = e.start(req("acp"), None).expect("start");
    (e, id, tx)
}

#[tokio::test(start_paused = true)]
async fn acp_6_a_completion_after_the_exit_and_the_streams_end_still_settles_the_run() {
    let (e, id, tx) = protocol_run();
    // Half the drain bound: the clock moves only once the process has exited, its streams are
    // closed and the cleanup is reported (nothing else is left to run), so the only thing the
    // run can still be waiting for is the completion.
    let early = e.wait_settled(&id, Some(STDOUT_DRAIN / 2)).await;
    assert!(!early.expect("known"), "settled before its completion");
    let r = to_json(&e.result(&id).expect("result"));
    assert_eq!(r["state"], "settling", "the process has exited");
    assert_eq!(r["events_total"], 1, "its stdout was read");

    let final_value: Value = serde_json::from_str(OK_FINAL).expect("final");
    tx.send(Completion {
        final_value: Some(final_value),
        ..Completion::default()
    })
    .expect("the run waits for its completion");
    let r = settle(&e, &id).await;
    assert_eq!(r["state"], "succeeded");
    assert_eq!(r["final"].to_string(), OK_FINAL, "the completion's final");
    assert_eq!(r["cleanup_confirmed"], true);
}

#[tokio::test(start_paused = true)]
async fn sup_4_a_completion_that_never_comes_ends_at_the_stdout_drain_bound() {
    let (e, id, tx) = protocol_run();
    let started = tokio::time::Instant::now();
    let r = settle(&e, &id).await;
    assert!(
        started.elapsed() >= STDOUT_DRAIN,
        "settled after {:?}, before the drain bound",
        started.elapsed()
    );
    assert_eq!(r["state"], "failed");
    assert_eq!(code(&r), "missing_final");
    assert_eq!(r["final"], Value::Null);
    // Kept unsent until the end: the completion was pending all along, never dropped.
    drop(tx);
}
