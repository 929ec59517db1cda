//! Native output ingestion with flat memory (BND-1..3, RUN-11, OUT-3..5).
//!
//! stdout goes through the shared bounded [`FrameDecoder`] (1 MiB per line, never holding a longer
//! one); every line, whole or oversized, is classified by its top-level `type` with the bounded
//! [`TopScan`]. Ordinary events (hook lines before `system/init` included, OUT-5) go to the
//! [`EventRing`]; the result event (`type: "result"`) is counted and, when it is the first and
//! fits [`FINAL_MAX`], parsed and kept apart as the run's `final` (OUT-4: as received). The first
//! valid final and the first native error are never replaced by what comes later (OUT-3).
//! stderr keeps only its last [`STDERR_TAIL`] bytes.

use mcp_wire::codec::{DecodeEvent, FrameDecoder};
use serde::de::IgnoredAny;
use serde_json::{Map, Value};

use super::ring::EventRing;
use super::scan::{TopLevel, TopScan};
use crate::record::{Dir, Recorder};

/// Longest native stdout line held (BND-1).
pub const LINE_MAX: usize = 1024 * 1024;
/// Largest final result event kept (BND-3).
pub const FINAL_MAX: usize = 128 * 1024;
/// Native stderr tail kept (RUN-11).
pub const STDERR_TAIL: usize = 8 * 1024;
/// Longest `native_error.message`.
const NATIVE_MESSAGE_MAX: usize = 4 * 1024;

/// Where a native error was read (RUN-11).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NativeSource {
    /// The final result event (`is_error: true` or an error subtype).
    Result,
    /// An assistant event carrying `error`.
    Assistant,
    /// The native stderr (a failed run without a native error event).
    Stderr,
}

impl NativeSource {
    /// The wire spelling.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            NativeSource::Result => "result",
            NativeSource::Assistant => "assistant",
            NativeSource::Stderr => "stderr",
        }
    }
}

/// `native_error` of a result (RUN-11).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NativeError {
    /// What the CLI said, bounded.
    pub message: String,
    /// Where.
    pub source: NativeSource,
}

impl NativeError {
    /// `{message, source}`.
    #[must_use]
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("message".into(), self.message.clone().into());
        m.insert("source".into(), self.source.as_str().into());
        Value::Object(m)
    }
}

/// Why the single final event is not valid (OUT-2 `malformed_final`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FinalFault {
    /// Larger than [`FINAL_MAX`] (whether or not it fitted a line).
    Oversized(u64),
    /// Not a JSON object, or lacking what every native result has.
    Malformed(String),
}

/// What the stream said about result events.
#[derive(Debug, Default)]
pub struct Finals {
    /// Result events seen (valid or not).
    pub count: u32,
    /// The fault of the first result event, when it is not valid.
    pub first_fault: Option<FinalFault>,
    /// The kept final: the first valid one, else the first that parsed as an object.
    pub kept: Option<Value>,
    /// `kept` is valid.
    pub kept_valid: bool,
}

impl Finals {
    /// The one valid final, when there is exactly one result event and it is valid.
    #[must_use]
    pub fn single_valid(&self) -> Option<&Value> {
        (self.count == 1 && self.kept_valid)
            .then_some(self.kept.as_ref())
            .flatten()
    }
}

/// Counters and slots the decoder's callback writes into.
#[derive(Debug)]
pub struct Sink {
    /// The event buffer.
    pub ring: EventRing,
    /// Result events.
    pub finals: Finals,
    /// The first assistant event carrying `error`.
    pub assistant_error: Option<NativeError>,
    /// The native session id: the valid final's, else the first seen on any event.
    pub session_id: Option<String>,
    /// Native event lines seen (blank lines excluded), oversized ones included.
    pub events_total: u64,
    /// Oversized non-final events omitted (BND-1).
    pub omitted_oversized: u64,
    /// Scan state of the oversized line in progress.
    over: Option<TopScan>,
    recorder: Option<Recorder>,
}

/// The ingest state of one run.
#[derive(Debug)]
pub struct Ingest {
    decoder: FrameDecoder,
    /// What was learned.
    pub sink: Sink,
    stderr: Vec<u8>,
}

impl Ingest {
    /// Fresh state; `nonce` ties event cursors to the run.
    #[must_use]
    pub fn new(nonce: u32, recorder: Option<Recorder>) -> Self {
        Self {
            decoder: FrameDecoder::new(LINE_MAX),
            sink: Sink {
                ring: EventRing::new(nonce),
                finals: Finals::default(),
                assistant_error: None,
                session_id: None,
                events_total: 0,
                omitted_oversized: 0,
                over: None,
                recorder,
            },
            stderr: Vec::new(),
        }
    }

    /// Feeds native stdout bytes.
    pub fn stdout(&mut self, data: &[u8]) {
        let sink = &mut self.sink;
        self.decoder.decode(data, &mut |ev| sink.on(ev));
    }

    /// stdout ended: a last line without a newline still counts.
    pub fn stdout_eof(&mut self) {
        let sink = &mut self.sink;
        self.decoder.finish(&mut |ev| sink.on(ev));
    }

    /// Feeds native stderr bytes; only the tail is kept.
    pub fn stderr(&mut self, data: &[u8]) {
        if data.len() >= STDERR_TAIL {
            self.stderr.clear();
            self.stderr
                .extend_from_slice(&data[data.len() - STDERR_TAIL..]);
            return;
        }
        let excess = (self.stderr.len() + data.len()).saturating_sub(STDERR_TAIL);
        if excess > 0 {
            self.stderr.drain(..excess);
        }
        self.stderr.extend_from_slice(data);
    }

    /// The stderr tail as text (lossy UTF-8; a character cut at the front shows as U+FFFD).
    #[must_use]
    pub fn stderr_tail(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }

    /// The last non-blank stderr line, for `native_error` with source `stderr`.
    #[must_use]
    pub fn stderr_last_line(&self) -> Option<String> {
        let text = self.stderr_tail();
        text.lines()
            .rev()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .map(|l| bounded(l.to_owned()))
    }

    /// The native error the stream carried: the final's, else the first assistant error.
    #[must_use]
    pub fn stream_native_error(&self) -> Option<NativeError> {
        self.sink
            .finals
            .kept
            .as_ref()
            .filter(|_| self.sink.finals.kept_valid)
            .and_then(result_native_error)
            .or_else(|| self.sink.assistant_error.clone())
    }
}

impl Sink {
    fn on(&mut self, ev: DecodeEvent<'_>) {
        match ev {
            DecodeEvent::Line(line) => self.line(line),
            DecodeEvent::OversizedStart => self.over = Some(TopScan::new()),
            DecodeEvent::OversizedChunk(c) => {
                if let Some(s) = self.over.as_mut() {
                    s.feed(c);
                }
            }
            DecodeEvent::OversizedEnd { len } => {
                let top = self.over.take().map(TopScan::finish).unwrap_or_default();
                if let Some(r) = &self.recorder {
                    r.extra(
                        Dir::N2a,
                        "oversized",
                        serde_json::json!({"len": len, "type": top.ty}),
                    );
                }
                self.events_total += 1;
                self.learn_session(&top);
                if is_result(&top) || is_cut_result(&top, !top.closed) {
                    // BND-3: recognised by the streaming scan, never held.
                    self.final_seen(FinalFault::Oversized(len), None);
                } else {
                    self.omitted_oversized += 1;
                }
                self.ring.push_omitted();
            }
        }
    }

    fn line(&mut self, line: &[u8]) {
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        if let Some(r) = &self.recorder {
            r.line(Dir::N2a, line);
        }
        self.events_total += 1;
        let top = TopScan::line(line);
        self.learn_session(&top);
        if is_cut_result(&top, true) && serde_json::from_slice::<IgnoredAny>(line).is_err() {
            self.final_seen(
                FinalFault::Malformed(
                    "a result event was cut short (not JSON, its type never came)".into(),
                ),
                None,
            );
            if !self.ring.push(line) {
                self.omitted_oversized += 1;
            }
            return;
        }
        match top.ty.as_deref() {
            Some("result") => {
                if line.len() > FINAL_MAX {
                    self.final_seen(FinalFault::Oversized(line.len() as u64), None);
                    self.ring.push_omitted();
                    return;
                }
                match serde_json::from_slice::<Value>(line) {
                    Ok(v) => match validate_final(&v) {
                        Ok(()) => self.final_seen_valid(v),
                        Err(why) => {
                            let kept = v.is_object().then_some(v);
                            self.final_seen(FinalFault::Malformed(why), kept);
                        }
                    },
                    Err(e) => self.final_seen(
                        FinalFault::Malformed(format!("the result event is not JSON: {e}")),
                        None,
                    ),
                }
            }
            Some("assistant") if top.has_error && self.assistant_error.is_none() => {
                self.assistant_error = serde_json::from_slice::<Value>(line)
                    .ok()
                    .as_ref()
                    .and_then(assistant_native_error);
            }
            _ => {}
        }
        if !self.ring.push(line) {
            self.omitted_oversized += 1;
        }
    }

    fn learn_session(&mut self, top: &TopLevel) {
        if self.session_id.is_none()
            && let Some(s) = &top.session_id
        {
            self.session_id = Some(s.clone());
        }
    }

    fn final_seen(&mut self, fault: FinalFault, kept: Option<Value>) {
        self.finals.count += 1;
        if self.finals.count == 1 {
            self.finals.first_fault = Some(fault);
        }
        if self.finals.kept.is_none() {
            self.finals.kept = kept;
        }
    }

    fn final_seen_valid(&mut self, v: Value) {
        self.finals.count += 1;
        if !self.finals.kept_valid {
            // OUT-3: the first valid final is kept whatever follows.
            if let Some(s) = v.get("session_id").and_then(Value::as_str) {
                self.session_id = Some(s.to_owned());
            }
            self.finals.kept = Some(v);
            self.finals.kept_valid = true;
        }
    }
}

/// A line whose top-level `type` is `result`.
fn is_result(top: &TopLevel) -> bool {
    top.ty.as_deref() == Some("result")
}

/// A result event cut short: no top-level `type` (the real CLI writes it near the end of a
/// result) but the result-only top-level `is_error`, on a line that is not complete JSON
/// (`broken`). A complete object without `type` is not a result event.
fn is_cut_result(top: &TopLevel, broken: bool) -> bool {
    broken && top.is_object && top.ty.is_none() && top.has_is_error
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
pub fn result_native_error(v: &Value) -> Option<NativeError> {
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
fn assistant_native_error(v: &Value) -> Option<NativeError> {
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

/// Cuts a message to [`NATIVE_MESSAGE_MAX`] bytes at a char boundary.
fn bounded(mut s: String) -> String {
    if s.len() > NATIVE_MESSAGE_MAX {
        let mut cut = NATIVE_MESSAGE_MAX;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn feed(lines: &[&[u8]]) -> Ingest {
        let mut ing = Ingest::new(1, None);
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
        let mut ing = Ingest::new(1, None);
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
        // The garbage line stays visible as a string event.
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
            let mut ing = Ingest::new(1, None);
            for c in line.as_bytes().chunks(64 * 1024) {
                ing.stdout(c);
                assert!(ing.decoder.buffered() <= LINE_MAX);
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
        let mut ing = Ingest::new(1, None);
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
        let mut ing = Ingest::new(1, None);
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
        let ing = feed(&[b"", b"  ", br#"{"type":"user"}"#]);
        assert_eq!(ing.sink.events_total, 1);
    }
}
