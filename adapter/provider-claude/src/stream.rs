//! claude's stream-json dialect (PROV-1): the final is the line whose top-level `type` is
//! `result` (OUT-2's validity rule below), the session id is `session_id`, a native error is the
//! final's (`is_error: true` or an error subtype) or an assistant event's `error` (RUN-11), and the
//! process exit settles execution (print mode exits when done; OUT-1 asks for status 0).
//!
//! A result event cut short is recognised too: no top-level `type` (the real CLI writes it near
//! the end of a result) but the result-only top-level `is_error`, on a line that is not complete
//! JSON. A complete object without `type` is not a result event.

use serde_json::Value;

use crate::scan::{TopLevel, TopScan};
use cmk_engine::jsonout::Candidate;
use cmk_engine::native::{NativeError, NativeSource, bounded};
use cmk_engine::provider::{Dialect, LineClass, LineKind, LineScanner};
use cmk_engine::tools::ToolEvent;

/// The stream-json dialect of `claude -p --output-format stream-json`.
#[derive(Debug, Clone, Copy, Default)]
pub struct StreamJson;

impl Dialect for StreamJson {
    fn classify(&self, line: &[u8]) -> LineClass {
        class_of(&TopScan::line(line), Some(line))
    }

    fn line_scanner(&self) -> Box<dyn LineScanner> {
        Box::new(StreamScan(TopScan::new()))
    }

    fn validate_final(&self, v: &Value) -> Result<(), String> {
        validate_final(v)
    }

    fn final_session_id(&self, v: &Value) -> Option<String> {
        v.get("session_id")
            .and_then(Value::as_str)
            .map(str::to_owned)
    }

    fn final_native_error(&self, v: &Value) -> Option<NativeError> {
        result_native_error(v)
    }

    fn event_native_error(&self, v: &Value) -> Option<NativeError> {
        assistant_native_error(v)
    }

    fn exit_decides(&self) -> bool {
        true
    }

    fn tool_events(&self, v: &Value) -> Vec<ToolEvent> {
        crate::tools::events(v)
    }

    fn structured_candidate(&self, final_value: &Value) -> Candidate {
        crate::tools::structured(final_value)
    }
}

/// A line too long to hold, scanned as it streams past (BND-3: a result event is recognised
/// without being held).
#[derive(Debug)]
struct StreamScan(TopScan);

impl LineScanner for StreamScan {
    fn feed(&mut self, chunk: &[u8]) {
        self.0.feed(chunk);
    }

    fn finish(self: Box<Self>) -> LineClass {
        let top = self.0.finish();
        let mut class = class_of(&top, None);
        // Only a line cut short can be a result cut short.
        if class.kind == LineKind::MaybeCutFinal && top.closed {
            class.kind = LineKind::Event;
        }
        class
    }
}

/// The line's class from its top-level keys: a final is `type: "result"`; a result cut short
/// has no `type` but the result-only `is_error`; an assistant event with `error` may carry a
/// native error; `line` (a whole line) is searched for tool markers.
fn class_of(top: &TopLevel, line: Option<&[u8]>) -> LineClass {
    let kind = if top.ty.as_deref() == Some("result") {
        LineKind::Final
    } else if top.is_object && top.ty.is_none() && top.has_is_error {
        LineKind::MaybeCutFinal
    } else {
        LineKind::Event
    };
    LineClass {
        kind,
        session_id: top.session_id.clone(),
        may_carry_error: top.ty.as_deref() == Some("assistant") && top.has_error,
        may_carry_tool_events: line.is_some_and(|l| crate::tools::may_carry(top, l)),
        tag: top.ty.clone(),
    }
}

/// OUT-2: a result event is valid when it is a JSON object with a string `session_id`, a string
/// `subtype` and a boolean `is_error`, and, for `subtype: "success"`, a string `result`. An error
/// subtype without `result` is valid (a native error, not a malformed final).
pub fn validate_final(v: &Value) -> Result<(), String> {
    let Some(o) = v.as_object() else {
        return Err("the result event is not a JSON object".into());
    };
    if !o.get("session_id").is_some_and(Value::is_string) {
        return Err("the result event has no string session_id".into());
    }
    let Some(subtype) = o.get("subtype").and_then(Value::as_str) else {
        return Err("the result event has no string subtype".into());
    };
    if !o.get("is_error").is_some_and(Value::is_boolean) {
        return Err("the result event has no boolean is_error".into());
    }
    if subtype == "success" && !o.get("result").is_some_and(Value::is_string) {
        return Err("a success result event has no string result".into());
    }
    Ok(())
}

/// The native error a valid final carries (`is_error: true`, or an error subtype), if any.
#[must_use]
pub(crate) fn result_native_error(v: &Value) -> Option<NativeError> {
    let is_error = v.get("is_error").and_then(Value::as_bool) == Some(true);
    let subtype = v.get("subtype").and_then(Value::as_str).unwrap_or("");
    if !is_error && subtype == "success" {
        return None;
    }
    let message = v
        .get("result")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .or_else(|| {
            let errs: Vec<&str> = v
                .get("errors")?
                .as_array()?
                .iter()
                .filter_map(Value::as_str)
                .collect();
            (!errs.is_empty()).then(|| errs.join("; "))
        })
        .unwrap_or_else(|| format!("native result {subtype}"));
    Some(NativeError {
        message: bounded(message),
        source: NativeSource::Result,
    })
}

/// The native error of an assistant event carrying `error`: its text content, else the error.
pub(crate) fn assistant_native_error(v: &Value) -> Option<NativeError> {
    let err = v.get("error").filter(|e| !e.is_null())?;
    let text: Vec<&str> = v
        .pointer("/message/content")
        .and_then(Value::as_array)
        .map(|blocks| {
            blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect()
        })
        .unwrap_or_default();
    let message = if text.is_empty() {
        err.as_str().map_or_else(|| err.to_string(), str::to_owned)
    } else {
        text.join("\n")
    };
    Some(NativeError {
        message: bounded(message),
        source: NativeSource::Assistant,
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use cmk_engine::ingest::{FinalFault, Ingest, LINE_MAX, STDERR_TAIL};
    use serde_json::json;

    fn ingest() -> Ingest {
        Ingest::new(1, None, Arc::new(StreamJson))
    }

    fn feed(lines: &[&[u8]]) -> Ingest {
        let mut ing = ingest();
        for l in lines {
            ing.stdout(l);
            ing.stdout(b"\n");
        }
        ing.stdout_eof();
        ing
    }

    fn fixture(name: &str) -> &'static str {
        match name {
            "stream" => include_str!("../../tests/it/runs/fixtures/mock-stream.jsonl"),
            "401" => include_str!("../../tests/it/runs/fixtures/mock-401-r1.jsonl"),
            "max-turns" => include_str!("../../tests/it/runs/fixtures/mock-max-turns.jsonl"),
            _ => unreachable!(),
        }
    }

    #[test]
    fn a_real_success_stream_yields_one_valid_final_as_received() {
        let text = fixture("stream");
        let mut ing = ingest();
        // Odd-sized reads, as a pipe delivers them.
        for c in text.as_bytes().chunks(977) {
            ing.stdout(c);
        }
        ing.stdout_eof();
        let f = &ing.sink.finals;
        assert_eq!(f.count, 1);
        assert!(f.first_fault.is_none());
        let kept = f.single_valid().expect("valid final");
        // OUT-4: as received, key order included.
        assert_eq!(kept.to_string(), text.lines().last().expect("last"));
        assert_eq!(ing.sink.events_total, text.lines().count() as u64);
        assert_eq!(
            ing.sink.session_id.as_deref(),
            Some("7ba98501-25dd-4f07-9763-a9d98bb88b8e")
        );
        assert!(ing.stream_native_error().is_none());
    }

    #[test]
    fn a_real_api_error_is_a_native_error_from_the_result() {
        // `subtype: "success"` with `is_error: true` (reference/claude-2.1.328/errors.md).
        let ing = feed(
            &fixture("401")
                .lines()
                .map(str::as_bytes)
                .collect::<Vec<_>>(),
        );
        let f = &ing.sink.finals;
        assert!(f.single_valid().is_some());
        let ne = ing.stream_native_error().expect("native error");
        assert_eq!(ne.source, NativeSource::Result);
        assert_eq!(
            ne.message,
            "Failed to authenticate. API Error: 401 mock authentication_error"
        );
        let a = ing.sink.assistant_error.clone().expect("assistant error");
        assert_eq!(a.source, NativeSource::Assistant);
        assert!(a.message.contains("Failed to authenticate"));
    }

    #[test]
    fn an_error_subtype_without_result_is_valid() {
        let ing = feed(
            &fixture("max-turns")
                .lines()
                .map(str::as_bytes)
                .collect::<Vec<_>>(),
        );
        assert!(ing.sink.finals.single_valid().is_some());
        let ne = ing.stream_native_error().expect("native error");
        assert_eq!(ne.message, "Reached maximum number of turns (1)");
    }

    #[test]
    fn malformed_finals_are_classified() {
        // C-OUT-1: a result event without a boolean `is_error` (or cut short) is not valid.
        for (line, kept) in [
            (
                r#"{"type":"result","subtype":"success","is_error":false,"result":"x"}"#,
                true,
            ),
            (
                r#"{"type":"result","subtype":"success","is_error":false,"session_id":"s"}"#,
                true,
            ),
            (
                r#"{"type":"result","subtype":"success","session_id":"s","result":"x"}"#,
                true,
            ),
            (
                r#"{"type":"result","subtype":"success","is_error":false,"session_id":"s","res"#,
                false,
            ),
        ] {
            let ing = feed(&[line.as_bytes()]);
            let f = &ing.sink.finals;
            assert_eq!(f.count, 1, "{line}");
            assert!(
                matches!(f.first_fault, Some(FinalFault::Malformed(_))),
                "{line}"
            );
            assert_eq!(f.kept.is_some(), kept, "{line}");
            assert!(f.single_valid().is_none());
        }
    }

    #[test]
    fn a_duplicate_final_keeps_the_first_valid_one() {
        let first = r#"{"type":"result","subtype":"success","is_error":false,"session_id":"s1","result":"one"}"#;
        let second = r#"{"type":"result","subtype":"success","is_error":false,"session_id":"s2","result":"two"}"#;
        let ing = feed(&[first.as_bytes(), b"garbage", second.as_bytes()]);
        let f = &ing.sink.finals;
        assert_eq!(f.count, 2);
        assert_eq!(f.kept.as_ref().expect("kept")["result"], "one");
        assert_eq!(ing.sink.session_id.as_deref(), Some("s1"));
        // C-RUN-3: the garbage line stays visible as a string event.
        let p = ing.sink.ring.page(None, 10).expect("page");
        assert_eq!(p.events[1], json!("garbage"));
    }

    #[test]
    fn a_later_valid_final_replaces_an_earlier_malformed_one_as_kept() {
        let bad = r#"{"type":"result","subtype":"success","is_error":false,"result":"x"}"#;
        let good = r#"{"type":"result","subtype":"success","is_error":false,"session_id":"s","result":"ok"}"#;
        let ing = feed(&[bad.as_bytes(), good.as_bytes()]);
        assert_eq!(ing.sink.finals.kept.as_ref().expect("kept")["result"], "ok");
        assert!(matches!(
            ing.sink.finals.first_fault,
            Some(FinalFault::Malformed(_))
        ));
    }

    #[test]
    fn an_oversized_non_final_is_omitted_and_the_run_goes_on() {
        // BND-1.
        let big = format!(
            r#"{{"type":"assistant","text":"{}"}}"#,
            "x".repeat(LINE_MAX + 10)
        );
        let ing = feed(&[
            br#"{"type":"system","subtype":"init","session_id":"s"}"#,
            big.as_bytes(),
            b"{\"type\":\"user\"}",
        ]);
        assert_eq!(ing.sink.omitted_oversized, 1);
        assert_eq!(ing.sink.events_total, 3);
        let p = ing.sink.ring.page(None, 10).expect("page");
        assert_eq!(p.events.len(), 2);
        assert_eq!(p.omitted_oversized, 1);
        assert_eq!(ing.sink.finals.count, 0);
    }

    #[test]
    fn finals_over_128_kib_and_over_1_mib_are_oversized_not_missing() {
        // BND-3: 200 KiB (held as a line, too big as a final) and 3 MiB (never held), both with
        // `type` at the end as the real CLI writes it.
        for size in [200 * 1024, 3 * 1024 * 1024] {
            let line = format!(
                r#"{{"session_id":"s","subtype":"success","is_error":false,"result":"{}","type":"result"}}"#,
                "r".repeat(size)
            );
            let mut ing = ingest();
            for c in line.as_bytes().chunks(64 * 1024) {
                ing.stdout(c);
                assert!(ing.buffered() <= LINE_MAX);
            }
            ing.stdout(b"\n");
            let f = &ing.sink.finals;
            assert_eq!(f.count, 1, "size {size}");
            assert!(
                matches!(f.first_fault, Some(FinalFault::Oversized(_))),
                "size {size}"
            );
            assert!(f.kept.is_none());
            assert_eq!(
                ing.sink.omitted_oversized, 0,
                "a final is not an omitted event"
            );
            assert_eq!(ing.sink.session_id.as_deref(), Some("s"));
        }
    }

    #[test]
    fn complete_lines_without_type_are_ordinary_events_even_with_is_error() {
        // C-OUT-1: only a line cut short before its `type` that carries `is_error` is a final.
        let ing = feed(&[
            br#"{"is_error":false,"note":"no type"}"#,
            b"{\"is_error\": oops",
        ]);
        assert_eq!(
            ing.sink.finals.count, 1,
            "only the broken one is a cut result"
        );
        let ing = feed(&[br#"{"is_error":false,"note":"no type"}"#]);
        assert_eq!(ing.sink.finals.count, 0);
        assert_eq!(ing.sink.events_total, 1);
    }

    #[test]
    fn a_final_without_a_trailing_newline_counts() {
        let mut ing = ingest();
        ing.stdout(br#"{"type":"result","subtype":"success","is_error":false,"session_id":"s","result":"x"}"#);
        assert_eq!(ing.sink.finals.count, 0);
        ing.stdout_eof();
        assert!(ing.sink.finals.single_valid().is_some());
    }

    #[test]
    fn hook_lines_before_init_are_ordinary_events() {
        // OUT-5.
        let ing = feed(&[
            br#"{"type":"system","subtype":"hook_started","hook_name":"SessionStart"}"#,
            br#"{"type":"system","subtype":"init","session_id":"s"}"#,
        ]);
        assert_eq!(ing.sink.events_total, 2);
        assert_eq!(ing.sink.ring.page(None, 10).expect("page").events.len(), 2);
        assert_eq!(ing.sink.finals.count, 0);
    }

    #[test]
    fn the_stderr_tail_keeps_the_last_8_kib() {
        let mut ing = ingest();
        for i in 0..1000 {
            ing.stderr(format!("line {i}\n").as_bytes());
        }
        let tail = ing.stderr_tail();
        assert!(tail.len() <= STDERR_TAIL);
        assert!(tail.ends_with("line 999\n"));
        ing.stderr(&vec![b'z'; 3 * STDERR_TAIL]);
        assert_eq!(ing.stderr_tail().len(), STDERR_TAIL);
        assert_eq!(ing.stderr_last_line().as_deref().map(str::len), Some(4096));
    }

    #[test]
    fn blank_lines_are_not_events() {
        // C-RUN-3: `events_total` counts non-blank lines only.
        let ing = feed(&[b"", b"  ", br#"{"type":"user"}"#]);
        assert_eq!(ing.sink.events_total, 1);
    }
}
