//! What a replay compares, and how: both sides are rendered to the same text transcript after
//! normalising volatile values, and a difference is shown as a unified diff
//! (`testkit::golden::diff`).
//!
//! The transcript, per side:
//! - each client message in order; a request is followed by its response, found by id (so the
//!   order in which concurrent answers arrived does not matter);
//! - answers that name no request (e.g. `id: null` errors for unparseable lines, T4);
//! - other notifications in order, but `notifications/progress` by kind only (one line per
//!   progress token: how many arrive depends on the clock, T9);
//! - for ACP runs, the lines the adapter sent its agent (`c2a`), then those it read (`a2c`);
//! - the native rows the adapter read (`n2a`), one compact line each.
//!
//! Normalised (cargo `compare.rs` style tokens): run ids → `[RUN#n]` (numbered by first
//! appearance, so "the same run" stays visible), the random nonce inside event cursors →
//! `[NONCE#n]`, the adapter's `instance` UUID → `[INSTANCE]`, and the state in a
//! `claude.run.start` answer while the run is still starting up (`pending`, `starting` or
//! `running`: it depends on the clock) → `[active]`. Tool results whose `text` content is the
//! JSON of their `structuredContent` (TOOL-4) show `[= structuredContent]` instead of the escaped
//! copy; other JSON objects carried as text are shown parsed (`{"[json text]": …}`). Everything
//! else (native session ids, UUIDs, timestamps and durations inside native events) is replayed
//! verbatim by fake-claude, so it is compared as it is.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::recording::{Body, Row};

/// Renders one side of a replay.
#[must_use]
pub fn transcript(c2s: &[Row], s2c: &[Value], n2a: &[Row]) -> String {
    let mut norm = Normaliser::default();
    let mut out = String::new();
    let mut answered: Vec<usize> = Vec::new();
    for (n, row) in c2s.iter().enumerate() {
        match &row.body {
            Body::Msg(m) => {
                let id = m.get("id");
                let method = m.get("method").and_then(Value::as_str).unwrap_or("?");
                let what = match (id, m.get("method")) {
                    (Some(id), Some(_)) => format!("request id={id} {method}"),
                    (None, Some(_)) => format!("notification {method}"),
                    _ => "message".to_owned(),
                };
                out.push_str(&format!("== c2s #{} {what}\n", n + 1));
                out.push_str(&norm.value(m).to_string());
                out.push('\n');
                if let (Some(id), Some(_)) = (id, m.get("method")) {
                    let found = s2c.iter().enumerate().find(|(i, r)| {
                        !answered.contains(i)
                            && r.get("method").is_none()
                            && r.get("id") == Some(id)
                    });
                    match found {
                        Some((i, r)) => {
                            answered.push(i);
                            let mut r = readable(r);
                            if starts_in_background(m) {
                                active_state_token(&mut r);
                            }
                            out.push_str("-- response\n");
                            out.push_str(&pretty(&norm.value(&r)));
                            out.push('\n');
                        }
                        None => out.push_str("-- no response\n"),
                    }
                }
            }
            Body::Raw(t) => out.push_str(&format!("== c2s #{} raw line\n{t}\n", n + 1)),
            Body::Oversized { len, .. } => {
                out.push_str(&format!(
                    "== c2s #{} oversized line of {len} bytes\n",
                    n + 1
                ));
            }
            other => out.push_str(&format!("== c2s #{} {other:?}\n", n + 1)),
        }
    }
    let unanswered: Vec<&Value> = s2c
        .iter()
        .enumerate()
        .filter(|(i, m)| !answered.contains(i) && m.get("method").is_none())
        .map(|(_, m)| m)
        .collect();
    if !unanswered.is_empty() {
        out.push_str("== s2c answers to no request sent\n");
        for m in unanswered {
            out.push_str(&norm.value(m).to_string());
            out.push('\n');
        }
    }
    out.push_str("== s2c notifications (notifications/progress by kind only)\n");
    let mut progress_kinds: Vec<String> = Vec::new();
    for m in s2c.iter().filter(|m| m.get("method").is_some()) {
        if m["method"] == "notifications/progress" {
            let kind = notification_kind(m);
            if !progress_kinds.contains(&kind) {
                out.push_str(&kind);
                out.push('\n');
                progress_kinds.push(kind);
            }
        } else {
            out.push_str(&norm.value(m).to_string());
            out.push('\n');
        }
    }
    // ACP runs: what the adapter sent its agent, then what it read, each in order (how the two
    // directions interleave depends on the clock; the replayed agent enforces the causal order).
    for (dir, title) in [
        ("c2a", "== c2a (what the adapter sent the agent)\n"),
        ("a2c", "== a2c (agent lines the adapter read)\n"),
    ] {
        let rows: Vec<&Row> = n2a.iter().filter(|r| r.dir == dir).collect();
        if !rows.is_empty() {
            out.push_str(title);
        }
        for r in rows {
            out.push_str(&row_line(r, &mut norm));
            out.push('\n');
        }
    }
    out.push_str("== n2a (native rows the adapter read)\n");
    for r in n2a.iter().filter(|r| r.dir == "n2a") {
        out.push_str(&row_line(r, &mut norm));
        out.push('\n');
    }
    out
}

/// One wire or native row, compact.
fn row_line(r: &Row, norm: &mut Normaliser) -> String {
    match &r.body {
        Body::Msg(m) => format!("msg {}", norm.value(m)),
        Body::Raw(t) => format!("raw {}", Value::String(t.clone())),
        Body::Oversized { len, ty } => format!("oversized len={len} type={ty:?}"),
        Body::Stderr(t) => format!("stderr {}", Value::String(t.clone())),
        Body::Exit { code, signal } => format!("exit code={code:?} signal={signal:?}"),
        Body::Other(v) => format!("other {v}"),
    }
}

/// How [`notification_kind`] spells progress notifications.
pub const PROGRESS: &str = "notifications/progress progressToken=";

/// A notification's kind: its method; for `notifications/progress` the method and the token
/// (their number depends on the clock, T9, so progress is compared by this kind only).
#[must_use]
pub fn notification_kind(m: &Value) -> String {
    let method = m.get("method").and_then(Value::as_str).unwrap_or("?");
    if method == "notifications/progress" {
        let token = m.pointer("/params/progressToken").unwrap_or(&Value::Null);
        format!("{PROGRESS}{token}")
    } else {
        method.to_owned()
    }
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string())
}

/// `claude.run.start` (RUN-2): answered at once, while the run is somewhere in its start-up.
fn starts_in_background(request: &Value) -> bool {
    request["method"] == "tools/call"
        && matches!(
            request.pointer("/params/name").and_then(Value::as_str),
            Some("claude.run.start" | "claude_run_start" | "cursor.run.start" | "cursor_run_start")
        )
}

/// The state a run had at the instant `claude.run.start` answered depends on the clock
/// (`pending`, `starting` or `running`, RUN-10): compared as `[active]`. A settled state there
/// stays as it is (it would be a finding).
fn active_state_token(response: &mut Value) {
    if let Some(state) = response.pointer_mut("/result/structuredContent/result/state")
        && matches!(state.as_str(), Some("pending" | "starting" | "running"))
    {
        *state = Value::String("[active]".into());
    }
}

/// A tool result whose text content repeats `structuredContent` (TOOL-4) shows a marker
/// instead of the escaped copy; a text that differs is shown parsed.
fn readable(msg: &Value) -> Value {
    let mut msg = msg.clone();
    let Some(result) = msg.get_mut("result").and_then(Value::as_object_mut) else {
        return msg;
    };
    let structured = result.get("structuredContent").cloned();
    if let Some(Value::Array(content)) = result.get_mut("content") {
        for item in content.iter_mut() {
            let Some(text) = item.get("text").and_then(Value::as_str) else {
                continue;
            };
            let Ok(parsed) = serde_json::from_str::<Value>(text) else {
                continue;
            };
            if !parsed.is_object() {
                continue;
            }
            item["text"] = if Some(&parsed) == structured.as_ref() {
                Value::String("[= structuredContent]".into())
            } else {
                parsed
            };
        }
    }
    msg
}

/// Replaces volatile values with stable tokens, numbering distinct values in order of first
/// appearance.
#[derive(Debug, Default)]
pub struct Normaliser {
    runs: HashMap<String, String>,
    nonces: HashMap<String, String>,
}

impl Normaliser {
    /// A normalised copy of `v`.
    pub fn value(&mut self, v: &Value) -> Value {
        match v {
            // JSON carried as text (the work snapshot of `resources/read`): compared parsed, so
            // volatile values inside are normalised and a difference shows field by field.
            Value::String(s) if s.starts_with('{') => match serde_json::from_str::<Value>(s) {
                Ok(inner @ Value::Object(_)) => {
                    let mut m = Map::new();
                    m.insert("[json text]".into(), self.value(&inner));
                    Value::Object(m)
                }
                _ => Value::String(self.text(s)),
            },
            Value::String(s) => Value::String(self.text(s)),
            Value::Array(a) => Value::Array(a.iter().map(|x| self.value(x)).collect()),
            Value::Object(o) => {
                let mut m = Map::new();
                for (k, x) in o {
                    let nx = if k == "instance" && x.as_str().is_some_and(is_uuid) {
                        Value::String("[INSTANCE]".into())
                    } else {
                        self.value(x)
                    };
                    m.insert(k.clone(), nx);
                }
                Value::Object(m)
            }
            other => other.clone(),
        }
    }

    /// A normalised copy of a string (run ids and cursor nonces anywhere inside it).
    pub fn text(&mut self, s: &str) -> String {
        let mut out = String::with_capacity(s.len());
        let mut rest = s;
        loop {
            let next_run = find_run_id(rest);
            let next_cursor = find_cursor_nonce(rest);
            match (next_run, next_cursor) {
                (Some((i, id)), c) if c.is_none_or(|(j, _)| i < j) => {
                    out.push_str(&rest[..i]);
                    let n = self.runs.len() + 1;
                    let tok = self
                        .runs
                        .entry(id.to_owned())
                        .or_insert_with(|| format!("[RUN#{n}]"));
                    out.push_str(tok);
                    rest = &rest[i + id.len()..];
                }
                (_, Some((j, nonce))) => {
                    out.push_str(&rest[..j]);
                    let n = self.nonces.len() + 1;
                    let tok = self
                        .nonces
                        .entry(nonce.to_owned())
                        .or_insert_with(|| format!("[NONCE#{n}]"));
                    out.push_str("c1.");
                    out.push_str(tok);
                    out.push('.');
                    rest = &rest[j + 3 + nonce.len() + 1..];
                }
                _ => {
                    out.push_str(rest);
                    return out;
                }
            }
        }
    }
}

/// `run_` + 32 lowercase hex digits, not inside a longer word (RUN-2's spelling in this adapter).
fn find_run_id(s: &str) -> Option<(usize, &str)> {
    let b = s.as_bytes();
    let mut from = 0;
    while let Some(off) = s[from..].find("run_") {
        let i = from + off;
        let end = i + 4 + 32;
        let before_ok = i == 0 || !b[i - 1].is_ascii_alphanumeric();
        if before_ok
            && end <= b.len()
            && b[i + 4..end]
                .iter()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
            && (end == b.len() || !b[end].is_ascii_alphanumeric())
        {
            return Some((i, &s[i..end]));
        }
        from = i + 4;
    }
    None
}

/// An event cursor `c1.<8 hex nonce>.<hex seq>` (RUN-5): where it starts and its nonce.
fn find_cursor_nonce(s: &str) -> Option<(usize, &str)> {
    let b = s.as_bytes();
    let mut from = 0;
    while let Some(off) = s[from..].find("c1.") {
        let i = from + off;
        let n0 = i + 3;
        let n1 = n0 + 8;
        let before_ok = i == 0 || !b[i - 1].is_ascii_alphanumeric();
        if before_ok
            && n1 < b.len()
            && b[n0..n1].iter().all(u8::is_ascii_hexdigit)
            && b[n1] == b'.'
            && b.get(n1 + 1).is_some_and(u8::is_ascii_hexdigit)
        {
            return Some((i, &s[n0..n1]));
        }
        from = i + 3;
    }
    None
}

fn is_uuid(s: &str) -> bool {
    uuid::Uuid::parse_str(s).is_ok() && s.len() == 36
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ids_and_cursor_nonces_become_numbered_tokens() {
        let mut n = Normaliser::default();
        let a = "run_0123456789abcdef0123456789abcdef";
        let b = "run_ffffffffffffffffffffffffffffffff";
        let s = format!("{a} {b} {a} c1.0badcafe.1f and c1.0badcafe.20 run_short");
        assert_eq!(
            n.text(&s),
            "[RUN#1] [RUN#2] [RUN#1] c1.[NONCE#1].1f and c1.[NONCE#1].20 run_short"
        );
    }
}
