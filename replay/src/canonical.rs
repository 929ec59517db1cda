//! The canonical form of a golden recording, written by the reference adapter's maker (`BLESS=1`) so that remaking
//! an unchanged session gives the same bytes: what depends on the clock or on chance is replaced
//! by stable stand-ins, consistently across every row (inside JSON carried as text too), and
//! what the replay relies on is kept.
//!
//! - `ms` is 0 on every row: the replay paces on the recorded order of cause and effect, never on
//!   the clock, so a golden pins no timing.
//! - `notifications/progress` (T9): how many arrive and where, relative to native rows, depends
//!   on the clock; the replay compares them by kind only and waits for one per token. A golden
//!   keeps the first per token, with progress 1, right after the first native row of the run it
//!   reports (the earliest moment a notification of 1 event can be sent; for an ACP run, its
//!   first agent line, `a2c`).
//! - Values numbered by first appearance, same length as the original (a native line keeps its
//!   byte size, which the adapter's bounds look at): UUIDs (session ids, event uuids, the
//!   adapter's `instance`, the work invocation), run ids (`run_` + 32 hex), event-cursor nonces
//!   (`c1.<8 hex>.`), the Messages API stand-in's `msg_mock…`, `toolu_…`, `req_mock…` ids and
//!   temporary folders (`/tmp/.tmpXXXXXX`; `cmk-claude-home-` and 32 hex digits or, since
//!   testkit makes them with `tempfile`, six alphanumerics). ISO timestamps all become
//!   one, and the CLI's messaging socket `/tmp/cc-socks/<pid>.sock` a five-digit number (how
//!   many distinct milliseconds, how many pid digits: chance too).
//! - Durations the real CLI measures (`duration_ms`, `ttft_ms`, …) are 0.
//!
//! Left as recorded: everything else, including the order of native rows (the real CLI's own
//! races, e.g. a denied tool's `permission_denied` and `user` lines before or after
//! `message_stop`, still show in a remake).

use std::collections::HashMap;

use serde_json::Value;

use crate::error::{Error, Result};

/// Keys whose numbers are measured durations.
const DURATION_KEYS: &[&str] = &[
    "duration_ms",
    "duration_api_ms",
    "ttft_ms",
    "ttft_stream_ms",
    "time_to_request_ms",
    "first_content_frame_ms",
    "retry_delay_ms",
];

/// The canonical form of the rows `claude-mcp-adapter --record` wrote (JSON Lines, no header).
pub fn canonical(recorded: &str) -> Result<String> {
    let mut rows: Vec<Value> = Vec::new();
    for (n, l) in recorded.lines().enumerate() {
        if l.trim().is_empty() {
            continue;
        }
        rows.push(serde_json::from_str(l).map_err(|e| Error::BadRow {
            path: "<recorded>".into(),
            line: n + 1,
            reason: e.to_string(),
        })?);
    }
    let mut names = Names::default();
    let mut out = String::new();
    for mut row in one_progress_per_token(rows) {
        if let Some(ms) = row.get_mut("ms") {
            *ms = Value::from(0);
        }
        out.push_str(&names.text(&row.to_string()));
        out.push('\n');
    }
    Ok(out)
}

fn is_progress(row: &Value) -> bool {
    row["dir"] == "s2c" && row["msg"]["method"] == "notifications/progress"
}

/// The progress token a client row's request carries.
fn request_token(row: &Value) -> Option<&Value> {
    (row["dir"] == "c2s")
        .then(|| &row["msg"]["params"]["_meta"]["progressToken"])
        .filter(|t| !t.is_null())
}

/// Keeps the first progress notification of each request (by its token), with progress 1,
/// moved right after the first native row that follows the request.
fn one_progress_per_token(rows: Vec<Value>) -> Vec<Value> {
    // (row index of the request, its first progress row, normalised)
    let mut kept: Vec<(usize, Value)> = Vec::new();
    let mut requests: Vec<(Value, usize)> = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        if let Some(token) = request_token(row) {
            requests.retain(|(t, _)| t != token);
            requests.push((token.clone(), i));
        }
        if !is_progress(row) {
            continue;
        }
        let token = &row["msg"]["params"]["progressToken"];
        let Some(&(_, request)) = requests.iter().find(|(t, _)| t == token) else {
            continue;
        };
        if kept.iter().any(|(r, _)| *r == request) {
            continue;
        }
        let mut row = row.clone();
        let params = &mut row["msg"]["params"];
        params["progress"] = Value::from(1);
        if params.get("message").is_some() {
            // What the adapter says after one native event (T9: "1 native event", singular).
            params["message"] = Value::from("1 native event");
        }
        kept.push((request, row));
    }
    let mut out: Vec<Value> = Vec::with_capacity(rows.len());
    let mut waiting: Option<Value> = None;
    for (i, row) in rows.into_iter().enumerate() {
        if is_progress(&row) {
            continue;
        }
        if let Some((_, p)) = kept.iter().find(|(r, _)| *r == i) {
            waiting = Some(p.clone());
        }
        // An ACP run's first agent line (`a2c`) plays the part of a native row.
        let native = row["dir"] == "n2a" || row["dir"] == "a2c";
        out.push(row);
        if native && let Some(p) = waiting.take() {
            out.push(p);
        }
    }
    out.extend(waiting);
    out
}

/// Stable stand-ins for volatile values, numbered by first appearance per kind.
#[derive(Debug, Default)]
struct Names {
    seen: HashMap<(&'static str, String), String>,
    counts: HashMap<&'static str, u64>,
}

impl Names {
    fn name(&mut self, kind: &'static str, value: &str, make: impl Fn(u64) -> String) -> String {
        if let Some(n) = self.seen.get(&(kind, value.to_owned())) {
            return n.clone();
        }
        let count = self.counts.entry(kind).or_insert(0);
        *count += 1;
        let n = make(*count);
        self.seen.insert((kind, value.to_owned()), n.clone());
        n
    }

    /// `text` with every volatile value replaced (the text of a whole row, JSON escapes and all).
    fn text(&mut self, text: &str) -> String {
        let b = text.as_bytes();
        let mut out = String::with_capacity(text.len());
        let mut i = 0;
        while i < b.len() {
            let boundary = i == 0 || !b[i - 1].is_ascii_alphanumeric();
            let rest = &text[i..];
            if let Some((len, replacement)) = self.token_at(rest, boundary) {
                out.push_str(&replacement);
                i += len;
                continue;
            }
            let c = rest.chars().next().map_or(1, char::len_utf8);
            out.push_str(&rest[..c]);
            i += c;
        }
        out
    }

    /// The volatile value `rest` starts with: its length and its stand-in.
    fn token_at(&mut self, rest: &str, boundary: bool) -> Option<(usize, String)> {
        let b = rest.as_bytes();
        if boundary && let Some(len) = uuid_len(b) {
            let v = &rest[..len];
            return Some((
                len,
                self.name("uuid", v, |n| format!("00000000-0000-4000-8000-{n:012x}")),
            ));
        }
        if boundary && rest.starts_with("run_") && hex_run(&b[4..]) == 32 {
            let v = &rest[..36];
            return Some((36, self.name("run", v, |n| format!("run_{n:032x}"))));
        }
        if boundary && rest.starts_with("c1.") && hex_run(&b[3..]) == 8 && b.get(11) == Some(&b'.')
        {
            let v = &rest[3..11];
            let n = self.name("nonce", v, |n| format!("{n:08x}"));
            return Some((11, format!("c1.{n}")));
        }
        if boundary && let Some(len) = timestamp_len(b) {
            // One stand-in for all: how many distinct milliseconds a run spans is the clock's.
            return Some((len, "2026-01-01T00:00:00.000Z".to_owned()));
        }
        for (prefix, kind) in [
            ("msg_mock", "msg"),
            ("toolu_mock", "toolu"),
            ("toolu_", "toolu"),
            ("req_mock", "req"),
            ("cmk-claude-home-", "home"),
        ] {
            if boundary && rest.starts_with(prefix) {
                let tail = &b[prefix.len()..];
                // testkit's home folders come from `tempfile` (six alphanumerics) since it
                // dropped its own 32-hex names; both are a temporary folder's.
                let n = match kind {
                    "home" => tail
                        .iter()
                        .take_while(|c| c.is_ascii_alphanumeric())
                        .count(),
                    _ => hex_run(tail),
                };
                if n > 0 {
                    let len = prefix.len() + n;
                    let v = &rest[..len];
                    let name = self.name(kind, v, |c| format!("{prefix}{c:0n$x}"));
                    return Some((len, name));
                }
            }
        }
        if let Some(tail) = rest.strip_prefix("/tmp/.tmp") {
            let n = tail.bytes().take_while(u8::is_ascii_alphanumeric).count();
            if n == 6 {
                let v = &rest[..15];
                return Some((15, self.name("tmp", v, |c| format!("/tmp/.tmp{c:06}"))));
            }
        }
        if let Some(tail) = rest.strip_prefix("/tmp/cc-socks/") {
            let n = tail.bytes().take_while(u8::is_ascii_digit).count();
            if n > 0 && tail[n..].starts_with(".sock") {
                // A pid: its number of digits is chance too, so the stand-in has five.
                let len = 14 + n + 5;
                let v = &rest[..len];
                return Some((
                    len,
                    self.name("sock", v, |c| format!("/tmp/cc-socks/{c:05}.sock")),
                ));
            }
        }
        if b.first() == Some(&b'"') {
            for key in DURATION_KEYS {
                if let Some(len) = duration_at(&rest[1..], key) {
                    let head = &rest[..1 + len.0];
                    return Some((1 + len.0 + len.1, format!("{head}0")));
                }
            }
        }
        None
    }
}

/// Leading lowercase hex digits.
fn hex_run(b: &[u8]) -> usize {
    b.iter()
        .take_while(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(c))
        .count()
}

/// A lowercase `8-4-4-4-12` UUID at the start of `b`, not followed by an alphanumeric.
fn uuid_len(b: &[u8]) -> Option<usize> {
    let mut i = 0;
    for (k, n) in [8, 4, 4, 4, 12].into_iter().enumerate() {
        if k > 0 {
            if b.get(i) != Some(&b'-') {
                return None;
            }
            i += 1;
        }
        if b.len() < i + n || hex_run(&b[i..i + n]) != n {
            return None;
        }
        i += n;
    }
    (!b.get(i).is_some_and(u8::is_ascii_alphanumeric)).then_some(i)
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` at the start of `b`.
fn timestamp_len(b: &[u8]) -> Option<usize> {
    const SHAPE: &[u8] = b"dddd-dd-ddTdd:dd:dd.dddZ";
    (b.len() >= SHAPE.len()
        && SHAPE.iter().zip(b).all(|(s, c)| match s {
            b'd' => c.is_ascii_digit(),
            other => other == c,
        }))
    .then_some(SHAPE.len())
}

/// `key` then its closing quote (escaped at any depth), `:` and a number: the length up to the
/// number and the number's length.
fn duration_at(s: &str, key: &str) -> Option<(usize, usize)> {
    let b = s.as_bytes();
    if !s.starts_with(key) {
        return None;
    }
    let mut i = key.len();
    while b.get(i) == Some(&b'\\') {
        i += 1;
    }
    if b.get(i) != Some(&b'"') || b.get(i + 1) != Some(&b':') {
        return None;
    }
    i += 2;
    let n = b[i..]
        .iter()
        .take_while(|c| c.is_ascii_digit() || **c == b'.')
        .count();
    (n > 0).then_some((i, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn volatile_values_become_numbered_stand_ins_of_the_same_length() {
        let mut n = Names::default();
        let a = "1ce30cbf-de95-44b2-aa0f-bbf9e57414b7";
        let text = format!(
            "{a} {a} run_0123456789abcdef0123456789abcdef c1.0badcafe.1f \
             2026-11-30T03:46:52.454Z msg_mock01cee666748f4cf9 toolu_mocka95446d88a49 \
             /tmp/.tmpzaxzVL/home /tmp/cc-socks/25175.sock cmk-claude-home-{h}/x \
             {{\"duration_ms\":350,\"x\":{{\\\"ttft_ms\\\":57}}}}",
            h = "0123456789abcdef0123456789abcdef"
        );
        let got = n.text(&text);
        assert_eq!(got.len() + 3, text.len(), "only the durations shrink");
        assert_eq!(
            got,
            "00000000-0000-4000-8000-000000000001 00000000-0000-4000-8000-000000000001 \
             run_00000000000000000000000000000001 c1.00000001.1f 2026-01-01T00:00:00.000Z \
             msg_mock0000000000000001 toolu_mock000000000001 /tmp/.tmp000001/home \
             /tmp/cc-socks/00001.sock cmk-claude-home-00000000000000000000000000000001/x \
             {\"duration_ms\":0,\"x\":{\\\"ttft_ms\\\":0}}"
        );
        assert_eq!(n.text("run_short c1.zz"), "run_short c1.zz");
        assert_eq!(
            n.text("/tmp/cmk-claude-home-IOx5Tj/.claude /tmp/cmk-claude-home-IOx5Tj"),
            "/tmp/cmk-claude-home-000002/.claude /tmp/cmk-claude-home-000002"
        );
    }

    #[test]
    fn one_progress_per_token_follows_the_first_native_row_of_its_run() {
        let row = |s: &str| serde_json::from_str::<Value>(s).expect("row");
        let progress = |n: u64| {
            row(&format!(
                r#"{{"dir":"s2c","ms":{n},"msg":{{"method":"notifications/progress","params":{{"progressToken":"p","progress":{n},"message":"{n} native events"}}}}}}"#
            ))
        };
        let rows = [
            row(r#"{"dir":"c2s","ms":1,"msg":{"id":2,"params":{"_meta":{"progressToken":"p"}}}}"#),
            row(r#"{"dir":"n2a","ms":2,"msg":{"type":"system"}}"#),
            row(r#"{"dir":"n2a","ms":3,"msg":{"type":"assistant"}}"#),
            progress(2),
            row(r#"{"dir":"n2a","ms":4,"msg":{"type":"result"}}"#),
            progress(3),
            row(r#"{"dir":"s2c","ms":5,"msg":{"id":2,"result":{}}}"#),
        ];
        let text: String = rows.iter().map(|r| format!("{r}\n")).collect();
        let got: Vec<Value> = canonical(&text)
            .expect("rows")
            .lines()
            .map(|l| serde_json::from_str(l).expect("json"))
            .collect();
        let shape: Vec<String> = got
            .iter()
            .map(|r| {
                format!(
                    "{} {}",
                    r["dir"].as_str().unwrap_or_default(),
                    r["msg"]["method"].as_str().unwrap_or_default()
                )
            })
            .collect();
        assert_eq!(
            shape,
            [
                "c2s ",
                "n2a ",
                "s2c notifications/progress",
                "n2a ",
                "n2a ",
                "s2c "
            ]
        );
        assert_eq!(got[2]["msg"]["params"]["progress"], 1);
        assert_eq!(got[2]["msg"]["params"]["message"], "1 native event");
        assert!(got.iter().all(|r| r["ms"] == 0));
    }
}
