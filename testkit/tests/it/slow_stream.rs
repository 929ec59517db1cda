//! A slow stream cut mid-way: the CLI is terminated while the stand-in is still sending deltas.
//! The CLI leaves no result line, and the stand-in records that the client went away.

use std::io::{BufRead, BufReader};
use std::os::unix::process::ExitStatusExt;
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use testkit::argv::print_args;
use testkit::claude::ClaudeCommand;
use testkit::procs::kill_group;
use testkit::standin::{RequestKind, Scenario, Standin, StreamOutcome};

use crate::support::{real_claude, reference, shape};

/// Bound for every wait here; only there to avoid hangs.
const WAIT: Duration = Duration::from_secs(30);

#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn sigterm_mid_stream_ends_the_cli_without_a_result_and_the_standin_sees_the_client_go() {
    let Some(claude) = real_claude() else { return };
    // 40 deltas, 300 ms apart: about 13 s of stream, far longer than the kill below needs.
    let standin = Standin::builder()
        .scenario(Scenario::Slow)
        .slow(Duration::from_millis(300), 40)
        .text("a long answer that arrives in many small pieces, slowly")
        .start()
        .expect("stand-in");
    let cmd = ClaudeCommand::for_standin(&claude, &standin.base_url()).expect("temp HOME");
    let args = print_args(
        &["--include-partial-messages", "--permission-mode", "dontAsk"],
        "say hi",
    );
    let mut child = cmd
        .command()
        .args(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn claude");
    let pid = child.id();
    let (tx, lines) = mpsc::channel::<String>();
    let stdout = child.stdout.take().expect("stdout");
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });

    // Wait until the CLI has shown a text delta: the stream is flowing on both sides.
    let deadline = Instant::now() + WAIT;
    let mut seen = Vec::new();
    while !seen
        .iter()
        .any(|l: &String| l.contains("content_block_delta"))
    {
        let left = deadline.saturating_duration_since(Instant::now());
        match lines.recv_timeout(left) {
            Ok(line) => seen.push(line),
            Err(_) => {
                kill_group(pid);
                panic!("no delta within {WAIT:?}; got {seen:?}");
            }
        }
    }
    killpg(Pid::from_raw(pid as i32), Signal::SIGTERM).expect("SIGTERM");

    let ended = Instant::now() + WAIT;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > ended {
            kill_group(pid);
            panic!("claude ignored SIGTERM for {WAIT:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    kill_group(pid);
    seen.extend(lines.iter());
    let events = testkit::claude::parse_stream(seen.join("\n").as_bytes());

    // Observed with 2.1.328: it exits with status 143 (128 + SIGTERM) on its own, silently.
    assert_eq!(
        (status.code(), status.signal()),
        (Some(143), None),
        "status {status:?}"
    );
    assert!(
        testkit::claude::final_result(&events).is_none(),
        "no result after SIGTERM: {:?}",
        shape(&events)
    );
    // As in captures/mock-sigterm-mid-stream: init and status, then only stream events.
    let others = |evs: &[serde_json::Value]| -> Vec<String> {
        shape(evs)
            .into_iter()
            .filter(|k| !k.starts_with("stream_event/"))
            .collect()
    };
    assert_eq!(
        others(&events),
        others(&reference("mock-sigterm-mid-stream"))
    );
    assert!(standin.wait_for(WAIT, |log| {
        log.iter()
            .any(|r| matches!(r.outcome, StreamOutcome::ClientGone { .. }))
    }));
    let messages: Vec<_> = standin
        .requests()
        .into_iter()
        .filter(|r| r.kind == RequestKind::Messages)
        .collect();
    assert_eq!(messages.len(), 1);
    let StreamOutcome::ClientGone { events_sent } = messages[0].outcome else {
        unreachable!()
    };
    // message_start + ping + content_block_start + some deltas, well short of the full stream.
    assert!(
        (4..45).contains(&events_sent),
        "events sent before the cut: {events_sent}"
    );
}
