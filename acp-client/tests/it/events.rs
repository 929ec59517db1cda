//! The `events` stream: every agent byte forwarded in order with the client's records at line
//! boundaries, and backpressure from a slow reader instead of unbounded buffering.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use acp_client::{GenericPolicy, TurnOutcome};
use serde_json::json;
use tokio::io::AsyncReadExt;

use crate::support::{PATIENCE, config, start_raw};

#[tokio::test]
async fn a_record_never_splits_an_oversized_line_being_forwarded() {
    let mut cfg = config("hi");
    // Room for the handshake answers, not for the long line.
    cfg.max_line = 200;
    cfg.cancel_grace = PATIENCE;
    let (events_in, mut events_out) = tokio::io::duplex(64 * 1024);
    let (mut agent, cancel, turn) = start_raw(cfg, Box::new(GenericPolicy), events_in, 64 * 1024);
    let prompt = agent.handshake_to_prompt().await;
    // An oversized line, its first half sent alone.
    let long = format!("{{\"pad\":\"{}\"}}", "y".repeat(500));
    let (head, tail) = long.split_at(300);
    agent.send_raw(head.as_bytes()).await;
    // Wait until the head has been forwarded to events, then cancel mid-line.
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&seen).contains(head) {
        let n = tokio::time::timeout(PATIENCE, events_out.read(&mut buf))
            .await
            .expect("events in time")
            .expect("read events");
        assert!(n > 0, "events ended early");
        seen.extend_from_slice(&buf[..n]);
    }
    cancel.send_replace(true);
    agent.expect("session/cancel").await;
    agent.send_raw(format!("{tail}\n").as_bytes()).await;
    agent
        .reply(&prompt, json!({"stopReason": "cancelled"}))
        .await;
    let report = tokio::time::timeout(PATIENCE, turn)
        .await
        .expect("in time")
        .expect("no panic");
    events_out
        .read_to_end(&mut seen)
        .await
        .expect("read events");
    assert!(matches!(report.outcome, TurnOutcome::Completed { .. }));
    let text = String::from_utf8(seen).expect("utf-8");
    let lines: Vec<&str> = text.lines().collect();
    // initialize answer, session/new answer, the whole oversized line, the cancel record (held
    // back until the line ended), the prompt answer.
    assert_eq!(lines.len(), 5, "{text}");
    assert_eq!(lines[2], long);
    assert_eq!(lines[3], r#"{"acp_client":"cancel","sent":true}"#);
    assert!(lines[4].contains("\"stopReason\":\"cancelled\""));
    assert_eq!(report.malformed_lines, 1);
}

#[tokio::test]
async fn a_slow_events_reader_slows_the_agent_instead_of_filling_memory() {
    const LINES: usize = 2000;
    const PIPE: usize = 4096;
    let (events_in, mut events_out) = tokio::io::duplex(PIPE);
    let (mut agent, _cancel, turn) =
        start_raw(config("hi"), Box::new(GenericPolicy), events_in, PIPE);
    let prompt = agent.handshake_to_prompt().await;
    // Handshake answers are now stuck in the events pipe, unread. The agent writes far more than
    // every buffer between here and the reader can hold.
    let written = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&written);
    let writer = tokio::spawn(async move {
        for i in 0..LINES {
            agent.say(&format!("{i:0>1000}")).await;
            counter.fetch_add(1, Ordering::SeqCst);
        }
        agent
            .reply(&prompt, json!({"stopReason": "end_turn"}))
            .await;
        agent
    });
    // Nobody reads events for a while: the agent must be held back. (Buffers: the agent pipe,
    // the client's read chunk and queue, the events pipe: well under 200 lines of 1 KiB.)
    tokio::time::sleep(Duration::from_millis(500)).await;
    let stalled = written.load(Ordering::SeqCst);
    assert!(stalled < 200, "{stalled} lines went through with no reader");
    // A slow reader then gets everything, in order.
    let mut all = Vec::new();
    let mut buf = [0u8; 512];
    loop {
        let n = tokio::time::timeout(PATIENCE, events_out.read(&mut buf))
            .await
            .expect("events keep flowing")
            .expect("read events");
        if n == 0 {
            break;
        }
        all.extend_from_slice(&buf[..n]);
    }
    let _agent = writer.await.expect("writer");
    let report = turn.await.expect("no panic");
    assert!(matches!(report.outcome, TurnOutcome::Completed { .. }));
    assert_eq!(report.text.len(), acp_client::DEFAULT_TEXT_MAX);
    assert!(report.text_truncated);
    let text = String::from_utf8(all).expect("utf-8");
    let chunks: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("agent_message_chunk"))
        .collect();
    assert_eq!(chunks.len(), LINES);
    assert!(chunks[LINES - 1].contains(&format!("{:0>1000}", LINES - 1)));
}
