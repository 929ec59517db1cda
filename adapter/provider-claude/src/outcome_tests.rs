//! The engine's outcome rules (OUT-1, OUT-2) on claude's real dialect: finals, native errors
//! and exits as print mode produces them, judged by `cmk_engine::outcome`.

use std::sync::Arc;

use cmk_engine::ingest::{FINAL_MAX, Ingest};
use cmk_engine::native::{Cleanup, NativeSource};
use cmk_engine::outcome::*;
use cmk_engine::{ErrorCode, RunState};
use cmk_supervisor::ExitStatus;

use crate::stream::StreamJson;

const OK: &str =
    r#"{"type":"result","subtype":"success","is_error":false,"session_id":"s","result":"hi"}"#;
const API_ERR: &str = r#"{"type":"result","subtype":"success","is_error":true,"session_id":"s","result":"Not logged in"}"#;
const MAX_TURNS: &str = r#"{"type":"result","subtype":"error_max_turns","is_error":true,"session_id":"s","errors":["Reached maximum number of turns (1)"]}"#;
const NO_SESSION: &str = r#"{"type":"result","subtype":"success","is_error":false,"result":"hi"}"#;

fn ingest(lines: &[&str]) -> Ingest {
    let mut ing = Ingest::new(1, None, Arc::new(StreamJson));
    for l in lines {
        ing.stdout(l.as_bytes());
        ing.stdout(b"\n");
    }
    ing
}

fn exit(code: i32) -> Option<ExitStatus> {
    Some(ExitStatus {
        code: Some(code),
        signal: None,
    })
}

fn confirmed() -> Cleanup {
    Cleanup::nothing_started()
}

fn unconfirmed(survivors: Vec<u32>) -> Cleanup {
    Cleanup {
        confirmed: false,
        survivors,
        error: Some("supervisor ended without acknowledgement".into()),
    }
}

struct Case {
    lines: Vec<&'static str>,
    exit: Option<ExitStatus>,
    cleanup: Cleanup,
    cancelled: bool,
    timed_out: bool,
}

impl Case {
    fn new(lines: &[&'static str]) -> Self {
        Self {
            lines: lines.to_vec(),
            exit: exit(0),
            cleanup: confirmed(),
            cancelled: false,
            timed_out: false,
        }
    }

    fn run(&self) -> Outcome {
        let ing = ingest(&self.lines);
        classify(&Facts {
            cancelled: self.cancelled,
            timed_out: self.timed_out,
            timeout_s: 600,
            start_error: None,
            finals: &ing.sink.finals,
            stream_native_error: ing.stream_native_error(),
            stderr_last_line: Some("Error: boom".into()),
            exit: self.exit,
            cleanup: &self.cleanup,
            dialect: &StreamJson,
            protocol_error: None,
            loop_trip: None,
            json_schema: None,
        })
    }

    fn code(&self) -> Option<&'static str> {
        self.run().error.map(|e| e.code.as_str())
    }
}

#[test]
fn success_needs_everything_out_1_lists() {
    let o = Case::new(&[OK]).run();
    assert_eq!(o.state, RunState::Succeeded);
    assert_eq!(o.error, None);
    assert_eq!(o.native_error, None);
}

#[test]
fn success_then_nonzero_exit_fails() {
    let mut c = Case::new(&[OK]);
    c.exit = exit(1);
    assert_eq!(c.code(), Some("nonzero_exit"));
    c.exit = Some(ExitStatus {
        code: None,
        signal: Some(9),
    });
    assert_eq!(c.code(), Some("nonzero_exit"));
    assert_eq!(c.run().state, RunState::Failed);
}

#[test]
fn success_with_is_error_true_is_a_native_error() {
    let mut c = Case::new(&[API_ERR]);
    c.exit = exit(1);
    let o = c.run();
    assert_eq!(o.error.map(|e| e.code), Some(ErrorCode::NativeError));
    let ne = o.native_error.expect("native error");
    assert_eq!(
        (ne.source, ne.message.as_str()),
        (NativeSource::Result, "Not logged in")
    );
}

#[test]
fn an_error_subtype_without_result_is_a_native_error_not_malformed() {
    let mut c = Case::new(&[MAX_TURNS]);
    c.exit = exit(1);
    assert_eq!(c.code(), Some("native_error"));
}

#[test]
fn final_faults_are_classified() {
    assert_eq!(Case::new(&[]).code(), Some("missing_final"));
    assert_eq!(Case::new(&[OK, OK]).code(), Some("duplicate_final"));
    assert_eq!(Case::new(&[NO_SESSION]).code(), Some("malformed_final"));
    assert_eq!(
        Case::new(&[r#"{"type":"result","subtype":"success","is_error":false,"session_id":"s"}"#])
            .code(),
        Some("malformed_final")
    );
    assert_eq!(
        Case::new(&[r#"{"type":"result","#]).code(),
        Some("malformed_final")
    );
    let big = format!(
        r#"{{"session_id":"s","subtype":"success","is_error":false,"result":"{}","type":"result"}}"#,
        "x".repeat(FINAL_MAX)
    );
    let ing = ingest(&[&big]);
    let o = classify(&Facts {
        cancelled: false,
        timed_out: false,
        timeout_s: 1,
        start_error: None,
        finals: &ing.sink.finals,
        stream_native_error: None,
        stderr_last_line: None,
        exit: exit(0),
        cleanup: &confirmed(),
        dialect: &StreamJson,
        protocol_error: None,
        loop_trip: None,
        json_schema: None,
    });
    assert_eq!(o.error.map(|e| e.code), Some(ErrorCode::OversizedFinal));
}

#[test]
fn out_2_order_is_respected() {
    // Each row adds a cause ranked higher than all the previous ones.
    let mut c = Case::new(&[OK]);
    c.cleanup = unconfirmed(vec![]);
    assert_eq!(c.code(), Some("cleanup_unconfirmed"));
    c.cleanup = unconfirmed(vec![42]);
    assert_eq!(c.code(), Some("cleanup_failed"));
    c.exit = exit(3);
    assert_eq!(c.code(), Some("nonzero_exit"));
    c.lines = vec![API_ERR];
    assert_eq!(c.code(), Some("native_error"));
    c.lines = vec![];
    assert_eq!(c.code(), Some("missing_final"));
    c.lines = vec![NO_SESSION];
    assert_eq!(c.code(), Some("malformed_final"));
    c.lines = vec![NO_SESSION, OK];
    assert_eq!(c.code(), Some("duplicate_final"));
    c.timed_out = true;
    assert_eq!(c.code(), Some("timeout"));
    c.cancelled = true;
    assert_eq!(c.code(), Some("cancelled"));
}

#[test]
fn unconfirmed_cleanup_is_uncertain_whatever_the_outcome() {
    // RUN-10.
    for (lines, cancelled, timed_out) in [
        (vec![OK], false, false),
        (vec![OK], true, false),
        (vec![OK], false, true),
        (vec![], false, false),
    ] {
        let mut c = Case::new(&lines);
        c.cancelled = cancelled;
        c.timed_out = timed_out;
        c.cleanup = unconfirmed(vec![]);
        assert_eq!(c.run().state, RunState::Uncertain);
    }
}

#[test]
fn cancelled_and_timed_out_states() {
    let mut c = Case::new(&[OK]);
    c.cancelled = true;
    assert_eq!(c.run().state, RunState::Cancelled);
    c.cancelled = false;
    c.timed_out = true;
    let o = c.run();
    assert_eq!(o.state, RunState::TimedOut);
    assert_eq!(o.error.map(|e| e.code), Some(ErrorCode::Timeout));
}

#[test]
fn stderr_explains_a_silent_nonzero_exit() {
    let mut c = Case::new(&[]);
    c.exit = exit(1);
    let o = c.run();
    assert_eq!(o.error.map(|e| e.code), Some(ErrorCode::MissingFinal));
    let ne = o.native_error.expect("from stderr");
    assert_eq!(
        (ne.source, ne.message.as_str()),
        (NativeSource::Stderr, "Error: boom")
    );
    // A clean exit does not blame stderr noise.
    let c = Case::new(&[OK]);
    assert_eq!(c.run().native_error, None);
}

#[test]
fn cleanup_error_text_names_survivors() {
    let c = unconfirmed(vec![7, 8]);
    let t = c.error_text().expect("text");
    assert!(t.contains("7, 8") && t.contains("acknowledgement"));
    assert_eq!(confirmed().error_text(), None);
}
