//! The top-level keys of a claude stream-json line, learned with bounded state (BND-3).
//!
//! The real CLI writes `"type"` near the END of its result events, and a result can be larger than
//! the 1 MiB line bound (BND-1), so the dialect must recognise a final event the engine never holds.
//! [`TopScan`] is fed the line in pieces (the decoder's oversized chunks, or a whole line); it is
//! the wire crate's key-path scanner ([`mcp_wire::scan::PathScan`], shared with the ACP client)
//! watching four top-level keys. Nested objects and strings that merely contain
//! `"type":"result"` are skipped. Like serde_json's map, a repeated top-level key keeps its last
//! value, so the scan and a later full parse agree.
//!
//! The scan is not a validator: on broken JSON it reports what it saw at the top level, which is
//! what lets a truncated `{"type":"result",…` be recognised as a malformed final (OUT-2).

use mcp_wire::scan::{PathScan, Scanned};

/// The watched top-level keys, in the order [`TopLevel::from_scan`] reads them.
const KEYS: &[&[&str]] = &[&["type"], &["session_id"], &["error"], &["is_error"]];

/// What the scan learned about the line's top level.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TopLevel {
    /// The line starts (after blanks) with `{`.
    pub is_object: bool,
    /// The last top-level `type` string value, when short enough.
    pub ty: Option<String>,
    /// The last top-level `session_id` string value, when short enough.
    pub session_id: Option<String>,
    /// A top-level `error` key with a value other than `null` was seen (assistant events that
    /// carry a native error, RUN-11).
    pub has_error: bool,
    /// A top-level `is_error` key was seen: in the stream-json protocol only result events carry
    /// one at the top level, which identifies a result cut short before its `type` (OUT-2).
    pub has_is_error: bool,
    /// The top-level object was closed (`}` seen at depth 1): the line was not cut short.
    pub closed: bool,
}

impl TopLevel {
    fn from_scan(s: Scanned) -> Self {
        let mut found = s.found.into_iter();
        let mut next = || found.next().unwrap_or_default();
        let (ty, session_id, error, is_error) = (next(), next(), next(), next());
        Self {
            is_object: s.is_object,
            ty: ty.string,
            session_id: session_id.string,
            has_error: error.non_null,
            has_is_error: is_error.seen,
            closed: s.closed,
        }
    }
}

/// The scanner. Memory: a few hundred bytes whatever the input.
#[derive(Debug, Clone)]
pub struct TopScan {
    inner: PathScan,
}

impl Default for TopScan {
    fn default() -> Self {
        Self::new()
    }
}

impl TopScan {
    /// A scanner at the start of a line.
    #[must_use]
    pub fn new() -> Self {
        Self {
            inner: PathScan::new(KEYS),
        }
    }

    /// Scans a whole line at once.
    #[must_use]
    pub fn line(bytes: &[u8]) -> TopLevel {
        TopLevel::from_scan(PathScan::line(KEYS, bytes))
    }

    /// What was seen so far (the line may be cut short: broken JSON reports what it had).
    #[must_use]
    pub fn finish(self) -> TopLevel {
        TopLevel::from_scan(self.inner.finish())
    }

    /// Feeds the next piece of the line.
    pub fn feed(&mut self, data: &[u8]) {
        self.inner.feed(data);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_wire::scan::{KEY_CAP, VALUE_CAP};

    fn scan_in_pieces(line: &[u8], piece: usize) -> TopLevel {
        let mut s = TopScan::new();
        for c in line.chunks(piece.max(1)) {
            s.feed(c);
        }
        s.finish()
    }

    fn ty(line: &str) -> Option<String> {
        TopScan::line(line.as_bytes()).ty
    }

    #[test]
    fn finds_the_type_at_the_end_of_a_result_line() {
        // BND-3: the real CLI writes `type` near the end of a result.
        let text = include_str!("../../tests/it/runs/fixtures/mock-stream.jsonl");
        let last = text.lines().last().expect("a line");
        let t = TopScan::line(last.as_bytes());
        assert_eq!(t.ty.as_deref(), Some("result"));
        assert_eq!(
            t.session_id.as_deref(),
            Some("7ba98501-25dd-4f07-9763-a9d98bb88b8e")
        );
        for line in text.lines() {
            let t = TopScan::line(line.as_bytes());
            let v: serde_json::Value = serde_json::from_str(line).expect("json");
            assert_eq!(t.ty.as_deref(), v["type"].as_str(), "{line}");
        }
    }

    #[test]
    fn nested_and_quoted_types_are_ignored() {
        assert_eq!(
            ty(r#"{"type":"assistant","message":{"type":"result"}}"#).as_deref(),
            Some("assistant")
        );
        assert_eq!(
            ty(
                r#"{"message":{"type":"result","x":[{"type":"result"}]},"note":"\"type\":\"result\""}"#
            ),
            None
        );
        assert_eq!(
            ty(r#"{"a":"{\"type\":\"result\"}","b":["type","result"],"type":"user"}"#).as_deref(),
            Some("user")
        );
    }

    #[test]
    fn the_last_top_level_key_wins_like_serde_json() {
        let line = r#"{"type":"assistant","x":1,"type":"result"}"#;
        assert_eq!(ty(line).as_deref(), Some("result"));
        let parsed: serde_json::Value = serde_json::from_str(line).expect("json");
        assert_eq!(parsed["type"], "result");
        assert_eq!(ty(r#"{"type":"result","type":7}"#), None);
    }

    #[test]
    fn escaped_keys_and_values_are_decoded() {
        assert_eq!(
            ty(r#"{"ty\u0070e":"res\u0075lt"}"#).as_deref(),
            Some("result")
        );
        assert_eq!(ty(r#"{"type":"a\"b\\"}"#).as_deref(), Some("a\"b\\"));
    }

    #[test]
    fn non_objects_have_no_type() {
        for line in [
            r#"["type","result"]"#,
            r#""type""#,
            "42",
            "garbage {\"type\":\"result\"}",
        ] {
            let t = TopScan::line(line.as_bytes());
            assert_eq!(t.ty, None, "{line}");
            assert!(!t.is_object || line.starts_with('{'));
        }
        assert!(TopScan::line(b"  {}").is_object);
    }

    #[test]
    fn closing_and_is_error_presence_are_reported() {
        let t = TopScan::line(br#"{"a":{"is_error":true},"b":1}"#);
        assert!(t.closed && !t.has_is_error);
        let t = TopScan::line(br#"{"session_id":"s","is_error":false,"result":"Hi ther"#);
        assert!(!t.closed && t.has_is_error && t.ty.is_none());
        assert!(TopScan::line(b"{}").closed);
        assert!(TopScan::line(br#"{"n":1}"#).closed);
        assert!(!TopScan::line(br#"{"n":[1}"#).closed);
    }

    #[test]
    fn a_truncated_result_is_still_recognised() {
        assert_eq!(
            ty(r#"{"type":"result","subtype":"success","resu"#).as_deref(),
            Some("result")
        );
    }

    #[test]
    fn error_presence_is_reported_unless_null() {
        assert!(
            TopScan::line(br#"{"type":"assistant","error":"authentication_failed"}"#).has_error
        );
        assert!(TopScan::line(br#"{"error":{"a":1},"type":"assistant"}"#).has_error);
        assert!(!TopScan::line(br#"{"type":"assistant","error":null}"#).has_error);
        assert!(!TopScan::line(br#"{"type":"assistant","message":{"error":"x"}}"#).has_error);
    }

    #[test]
    fn scalars_and_blanks_between_tokens_are_handled() {
        let line = "{ \"n\" : 12.5e3 , \"t\" : true , \"type\" : \"result\" , \"z\" : null }";
        assert_eq!(ty(line).as_deref(), Some("result"));
        assert_eq!(ty(r#"{"n":-1,"type":"x"}"#).as_deref(), Some("x"));
    }

    #[test]
    fn piecewise_feeding_gives_the_same_answer_as_one_piece() {
        let line = br#"{"type":"stream_event","event":{"type":"content_block_delta","delta":{"text":"a \"quoted\" \\ [brace} {"}},"session_id":"s-1","error":null,"type":"result"}"#;
        let whole = TopScan::line(line);
        assert_eq!(whole.ty.as_deref(), Some("result"));
        for piece in 1..=17 {
            assert_eq!(scan_in_pieces(line, piece), whole, "piece {piece}");
        }
    }

    #[test]
    fn a_multi_mebibyte_line_keeps_the_state_small_and_finds_the_final_type() {
        // BND-3: a 5 MiB result whose type comes last, fed in 64 KiB chunks.
        let mut s = TopScan::new();
        s.feed(br#"{"session_id":"abc","result":""#);
        let filler = vec![b'x'; 64 * 1024];
        for _ in 0..80 {
            s.feed(&filler);
            assert!(s.inner.held_capacity() <= KEY_CAP + VALUE_CAP * 2);
        }
        s.feed(br#"","nested":{"type":"assistant"},"type":"result"}"#);
        let t = s.finish();
        assert_eq!(t.ty.as_deref(), Some("result"));
        assert_eq!(t.session_id.as_deref(), Some("abc"));
    }

    #[test]
    fn overlong_values_are_reported_absent() {
        let long = "r".repeat(VALUE_CAP + 1);
        assert_eq!(ty(&format!(r#"{{"type":"{long}"}}"#)), None);
    }
}
