//! What a replay compares: one side of a session rendered as a text transcript of sections, after
//! normalising volatile values ([`crate::rules`]). Both sides are rendered the same way, so a
//! difference is a difference of one section, shown as a unified diff ([`crate::compare`]).
//!
//! The sections, in order:
//! - each client message (`c2s #n …`); a request is followed by its response, found by id (so
//!   the order in which concurrent answers arrived does not matter), or `-- no response`;
//! - answers that name no request sent (e.g. `id: null` errors for unparseable lines, T4);
//! - server notifications and server-to-client requests in order, but `notifications/progress`
//!   by kind only (one line per progress token: how many arrive depends on the clock, T9);
//! - for the reference adapter's ACP runs, the lines it sent its agent (`c2a`), then those it read
//!   (`a2c`);
//! - the native rows the reference adapter read (`n2a`), one compact line each (always present,
//!   empty for other recordings).

use serde_json::Value;

use crate::recording::{Body, Row};
use crate::rules::Normaliser;

/// One section: its title line (without the leading `== `) and the lines under it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// The title, e.g. `c2s #3 request id=3 tools/call`.
    pub title: String,
    /// Everything under the title, each line ending in `\n`.
    pub body: String,
}

/// A whole transcript.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Transcript {
    /// Its sections, in order.
    pub sections: Vec<Section>,
}

impl std::fmt::Display for Transcript {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for s in &self.sections {
            write!(f, "== {}\n{}", s.title, s.body)?;
        }
        Ok(())
    }
}

impl Transcript {
    fn push(&mut self, title: String) -> &mut String {
        self.sections.push(Section {
            title,
            body: String::new(),
        });
        let last = self.sections.len() - 1;
        &mut self.sections[last].body
    }
}

/// Renders one side: the client rows sent, the server messages received, the side rows
/// (`n2a`, `c2a`, `a2c`) of the reference adapter's recordings.
#[must_use]
pub fn transcript(c2s: &[Row], s2c: &[Value], side: &[Row], norm: &mut Normaliser) -> Transcript {
    let mut t = Transcript::default();
    let mut answered: Vec<usize> = Vec::new();
    for (n, row) in c2s.iter().enumerate() {
        match &row.body {
            Body::Msg(m) => {
                norm.section();
                let id = m.get("id");
                let method = m.get("method").and_then(Value::as_str).unwrap_or("?");
                let what = match (id, m.get("method")) {
                    (Some(id), Some(_)) => format!("request id={id} {method}"),
                    (None, Some(_)) => format!("notification {method}"),
                    _ => "message".to_owned(),
                };
                let mut body = norm.message(m).to_string();
                body.push('\n');
                if let (Some(id), Some(_)) = (id, m.get("method")) {
                    let found = s2c.iter().enumerate().find(|(i, r)| {
                        !answered.contains(i)
                            && r.get("method").is_none()
                            && r.get("id") == Some(id)
                    });
                    match found {
                        Some((i, r)) => {
                            answered.push(i);
                            body.push_str("-- response\n");
                            body.push_str(&pretty(&norm.response(m, r)));
                            body.push('\n');
                        }
                        None => body.push_str("-- no response\n"),
                    }
                }
                t.push(format!("c2s #{} {what}", n + 1)).push_str(&body);
            }
            Body::Raw(text) => {
                t.push(format!("c2s #{} raw line", n + 1))
                    .push_str(&format!("{text}\n"));
            }
            Body::Oversized { len, .. } => {
                t.push(format!("c2s #{} oversized line of {len} bytes", n + 1));
            }
            other => {
                t.push(format!("c2s #{} {other:?}", n + 1));
            }
        }
    }
    let unanswered: Vec<&Value> = s2c
        .iter()
        .enumerate()
        .filter(|(i, m)| !answered.contains(i) && m.get("method").is_none())
        .map(|(_, m)| m)
        .collect();
    if !unanswered.is_empty() {
        norm.section();
        let mut body = String::new();
        for m in unanswered {
            body.push_str(&norm.message(m).to_string());
            body.push('\n');
        }
        t.push("s2c answers to no request sent".into())
            .push_str(&body);
    }
    norm.section();
    let mut body = String::new();
    let mut progress_kinds: Vec<String> = Vec::new();
    for m in s2c.iter().filter(|m| m.get("method").is_some()) {
        if m["method"] == "notifications/progress" {
            let kind = notification_kind(m);
            if !progress_kinds.contains(&kind) {
                body.push_str(&kind);
                body.push('\n');
                progress_kinds.push(kind);
            }
        } else {
            body.push_str(&norm.message(m).to_string());
            body.push('\n');
        }
    }
    t.push("s2c notifications (notifications/progress by kind only)".into())
        .push_str(&body);
    // ACP runs: what the adapter sent its agent, then what it read, each in order (how the two
    // directions interleave depends on the clock).
    for (dir, title) in [
        ("c2a", "c2a (what the adapter sent the agent)"),
        ("a2c", "a2c (agent lines the adapter read)"),
    ] {
        let rows: Vec<&Row> = side.iter().filter(|r| r.dir == dir).collect();
        if rows.is_empty() {
            continue;
        }
        norm.section();
        let mut body = String::new();
        for r in rows {
            body.push_str(&row_line(r, norm));
            body.push('\n');
        }
        t.push(title.into()).push_str(&body);
    }
    norm.section();
    let mut body = String::new();
    for r in side.iter().filter(|r| r.dir == "n2a") {
        body.push_str(&row_line(r, norm));
        body.push('\n');
    }
    t.push("n2a (native rows the adapter read)".into())
        .push_str(&body);
    t
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
