//! A streaming scanner of a JSON line's top-level object keys with bounded state (BND-3).
//!
//! The real CLI writes `"type"` near the END of its result events, and a result can be larger than
//! the 1 MiB line bound (BND-1), so the engine must recognise a final event it will never hold.
//! [`TopScan`] is fed the line in pieces (the decoder's oversized chunks, or a whole line) and
//! remembers only: nesting depth, whether it is inside a string, the current top-level key (64
//! bytes at most) and the string values of a few top-level keys (256 bytes at most). Nested
//! objects and strings that merely contain `"type":"result"` are skipped. Like serde_json's map,
//! a repeated top-level key keeps its last value, so the scan and a later full parse agree.
//!
//! The scan is not a validator: on broken JSON it reports what it saw at the top level, which is
//! what lets a truncated `{"type":"result",…` be recognised as a malformed final (OUT-2).

/// Longest top-level key kept (longer keys are none of the ones we look for).
const KEY_CAP: usize = 64;
/// Longest captured string value (a `type`, a session id); longer values are reported as absent.
const VALUE_CAP: usize = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum St {
    /// Before the first non-blank byte.
    Start,
    /// Inside the top-level object, expecting a key or `}`.
    ExpectKey,
    /// Inside a top-level key string.
    InKey,
    /// After a key, expecting `:`.
    AfterKey,
    /// After `:`, expecting a value.
    ExpectValue,
    /// Inside a top-level string value.
    InValue,
    /// Inside a top-level scalar (number, literal).
    InScalar,
    /// Inside a nested object or array (depth > 1).
    Nested,
    /// After a value, expecting `,` or `}`.
    AfterValue,
    /// The top-level value ended, or it was not an object.
    Done,
}

/// Which top-level key the current value belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Want {
    Other,
    Type,
    SessionId,
    Error,
    IsError,
}

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

/// The scanner. Memory: a few hundred bytes whatever the input.
#[derive(Debug, Clone)]
pub struct TopScan {
    st: St,
    /// Depth inside nested containers while `st == Nested` (1 = directly inside the value).
    depth: u64,
    in_string: bool,
    escape: bool,
    key: Vec<u8>,
    key_overflow: bool,
    want: Want,
    value: Vec<u8>,
    value_overflow: bool,
    scalar_null: bool,
    out: TopLevel,
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
            st: St::Start,
            depth: 0,
            in_string: false,
            escape: false,
            key: Vec::with_capacity(KEY_CAP),
            key_overflow: false,
            want: Want::Other,
            value: Vec::new(),
            value_overflow: false,
            scalar_null: false,
            out: TopLevel::default(),
        }
    }

    /// Scans a whole line at once.
    #[must_use]
    pub fn line(bytes: &[u8]) -> TopLevel {
        let mut s = Self::new();
        s.feed(bytes);
        s.finish()
    }

    /// What was seen so far (the line may be cut short: broken JSON reports what it had).
    #[must_use]
    pub fn finish(self) -> TopLevel {
        self.out
    }

    /// Feeds the next piece of the line.
    pub fn feed(&mut self, data: &[u8]) {
        let mut i = 0;
        let n = data.len();
        while i < n {
            match self.st {
                St::Done => return,
                St::Nested => {
                    if self.in_string {
                        if self.escape {
                            self.escape = false;
                            i += 1;
                            continue;
                        }
                        match find2(&data[i..], b'"', b'\\') {
                            None => return,
                            Some(k) => {
                                i += k;
                                if data[i] == b'\\' {
                                    self.escape = true;
                                } else {
                                    self.in_string = false;
                                }
                                i += 1;
                            }
                        }
                    } else {
                        match find_structural(&data[i..]) {
                            None => return,
                            Some(k) => {
                                i += k;
                                match data[i] {
                                    b'"' => self.in_string = true,
                                    b'{' | b'[' => self.depth += 1,
                                    _ => {
                                        self.depth -= 1;
                                        if self.depth == 0 {
                                            self.st = St::AfterValue;
                                        }
                                    }
                                }
                                i += 1;
                            }
                        }
                    }
                }
                St::InKey | St::InValue => {
                    let capture = self.st == St::InKey || self.want != Want::Other;
                    if self.escape {
                        self.escape = false;
                        if capture {
                            self.push_captured(data[i]);
                        }
                        i += 1;
                        continue;
                    }
                    match find2(&data[i..], b'"', b'\\') {
                        None => {
                            if capture {
                                self.extend_captured(&data[i..]);
                            }
                            return;
                        }
                        Some(k) => {
                            if capture {
                                self.extend_captured(&data[i..i + k]);
                            }
                            i += k;
                            if data[i] == b'\\' {
                                self.escape = true;
                                if capture {
                                    self.push_captured(b'\\');
                                }
                            } else {
                                self.end_string();
                            }
                            i += 1;
                        }
                    }
                }
                _ => {
                    let b = data[i];
                    i += 1;
                    self.structural(b);
                }
            }
        }
    }

    /// One byte outside any string, at the top level of the object.
    fn structural(&mut self, b: u8) {
        let blank = matches!(b, b' ' | b'\t' | b'\r' | b'\n');
        match self.st {
            St::Start => {
                if blank {
                } else if b == b'{' {
                    self.out.is_object = true;
                    self.st = St::ExpectKey;
                } else {
                    self.st = St::Done;
                }
            }
            St::ExpectKey => match b {
                b'"' => {
                    self.key.clear();
                    self.key_overflow = false;
                    self.st = St::InKey;
                }
                b'}' => self.close(),
                _ => {}
            },
            St::AfterKey => {
                if b == b':' {
                    self.want = self.classify_key();
                    if self.want == Want::IsError {
                        self.out.has_is_error = true;
                    }
                    self.st = St::ExpectValue;
                }
            }
            St::ExpectValue => match b {
                _ if blank => {}
                b'"' => {
                    self.value.clear();
                    self.value_overflow = false;
                    self.st = St::InValue;
                }
                b'{' | b'[' => {
                    match self.want {
                        Want::Error => self.out.has_error = true,
                        Want::Type => self.out.ty = None,
                        Want::SessionId => self.out.session_id = None,
                        Want::IsError | Want::Other => {}
                    }
                    self.depth = 1;
                    self.st = St::Nested;
                }
                b',' => self.st = St::ExpectKey,
                b'}' => self.close(),
                _ => {
                    self.scalar_null = b == b'n';
                    self.st = St::InScalar;
                }
            },
            St::InScalar => match b {
                b',' => {
                    self.end_scalar();
                    self.st = St::ExpectKey;
                }
                b'}' => {
                    self.end_scalar();
                    self.close();
                }
                _ if blank => {
                    self.end_scalar();
                    self.st = St::AfterValue;
                }
                _ => {}
            },
            St::AfterValue => match b {
                b',' => self.st = St::ExpectKey,
                b'}' => self.close(),
                _ => {}
            },
            St::InKey | St::InValue | St::Nested | St::Done => {}
        }
    }

    fn close(&mut self) {
        self.out.closed = true;
        self.st = St::Done;
    }

    fn end_scalar(&mut self) {
        if self.want == Want::Error && !self.scalar_null {
            self.out.has_error = true;
        }
        // A non-string `type` or `session_id` replaces an earlier string one (last key wins).
        match self.want {
            Want::Type => self.out.ty = None,
            Want::SessionId => self.out.session_id = None,
            Want::Error | Want::IsError | Want::Other => {}
        }
    }

    fn end_string(&mut self) {
        match self.st {
            St::InKey => self.st = St::AfterKey,
            St::InValue => {
                let v = if self.value_overflow {
                    None
                } else {
                    unescape(&self.value)
                };
                match self.want {
                    Want::Type => self.out.ty = v,
                    Want::SessionId => self.out.session_id = v,
                    Want::Error => self.out.has_error = true,
                    Want::IsError | Want::Other => {}
                }
                self.st = St::AfterValue;
            }
            _ => {}
        }
    }

    fn classify_key(&self) -> Want {
        if self.key_overflow {
            return Want::Other;
        }
        let key: &[u8] = &self.key;
        let decoded;
        let key = if key.contains(&b'\\') {
            match unescape(key) {
                Some(k) => {
                    decoded = k;
                    decoded.as_bytes()
                }
                None => return Want::Other,
            }
        } else {
            key
        };
        match key {
            b"type" => Want::Type,
            b"session_id" => Want::SessionId,
            b"error" => Want::Error,
            b"is_error" => Want::IsError,
            _ => Want::Other,
        }
    }

    fn push_captured(&mut self, b: u8) {
        self.extend_captured(&[b]);
    }

    fn extend_captured(&mut self, bytes: &[u8]) {
        let (buf, overflow, cap) = if self.st == St::InKey {
            (&mut self.key, &mut self.key_overflow, KEY_CAP)
        } else {
            (&mut self.value, &mut self.value_overflow, VALUE_CAP)
        };
        if *overflow {
            return;
        }
        if buf.len() + bytes.len() > cap {
            *overflow = true;
            buf.clear();
        } else {
            buf.extend_from_slice(bytes);
        }
    }
}

/// Decodes the body of a JSON string (escapes included) as serde_json would.
fn unescape(body: &[u8]) -> Option<String> {
    if !body.contains(&b'\\') {
        return std::str::from_utf8(body).ok().map(str::to_owned);
    }
    let mut quoted = Vec::with_capacity(body.len() + 2);
    quoted.push(b'"');
    quoted.extend_from_slice(body);
    quoted.push(b'"');
    serde_json::from_slice::<String>(&quoted).ok()
}

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// Marks (high bit) the bytes of `w` equal to `b`. The lowest mark is exact; marks above a true
/// match may be spurious, so only the first one is used.
#[inline]
fn eq_mask(w: u64, b: u8) -> u64 {
    let x = w ^ (LO * u64::from(b));
    x.wrapping_sub(LO) & !x & HI
}

#[inline]
fn word(chunk: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(chunk);
    u64::from_le_bytes(a)
}

/// First index of `a` or `b` (strings are most of a stream's bytes, so this is the hot loop):
/// `memchr2`, vectorised (SSE2/AVX2 chosen at run time on x86_64, NEON on aarch64).
#[inline]
fn find2(s: &[u8], a: u8, b: u8) -> Option<usize> {
    memchr::memchr2(a, b, s)
}

/// First `"`, `{`, `}`, `[` or `]`. Setting bit 5 folds `[`/`]` onto `{`/`}`; the one other byte
/// that folds onto the three (0x02 onto `"`) is ruled out exactly afterwards.
fn find_structural(s: &[u8]) -> Option<usize> {
    let is = |c: u8| matches!(c, b'"' | b'{' | b'}' | b'[' | b']');
    let mut i = 0;
    while i + 8 <= s.len() {
        let w = word(&s[i..i + 8]) | (LO * 0x20);
        let m = eq_mask(w, b'"') | eq_mask(w, b'{') | eq_mask(w, b'}');
        if m == 0 {
            i += 8;
            continue;
        }
        let k = i + (m.trailing_zeros() / 8) as usize;
        if is(s[k]) {
            return Some(k);
        }
        // The only look-alike is the control byte 0x02 (folds onto `"`): step past it.
        i = k + 1;
    }
    s[i..].iter().position(|&c| is(c)).map(|p| i + p)
}

#[cfg(test)]
mod tests {
    use super::*;

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
            assert!(s.key.capacity() <= KEY_CAP && s.value.capacity() <= VALUE_CAP * 2);
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

    #[test]
    fn find_helpers_agree_with_a_naive_search() {
        let samples: [&[u8]; 5] = [
            b"abcdefghijklmnop\"",
            b"abcdefgh;;;;;;;;{",
            b"\x02\x02\x02\x02\x02\x02\x02\x02]",
            b"[",
            b"no structure here at all........",
        ];
        for s in samples {
            let naive = s
                .iter()
                .position(|c| matches!(c, b'"' | b'{' | b'}' | b'[' | b']'));
            assert_eq!(find_structural(s), naive, "{s:?}");
            let naive2 = s.iter().position(|c| matches!(c, b'"' | b'\\'));
            assert_eq!(find2(s, b'"', b'\\'), naive2);
        }
        // Every position and length around the 8- and 16-byte blocks.
        for len in 0..40 {
            for at in 0..=len {
                let mut v = vec![b'x'; len];
                if at < len {
                    v[at] = b'\\';
                }
                let want = (at < len).then_some(at);
                assert_eq!(find2(&v, b'"', b'\\'), want, "len {len} at {at}");
            }
        }
    }
}
