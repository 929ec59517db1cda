//! `mcp-replay serve`: plays a recording's server side to a host under test. Each message the
//! host sends is matched with the recording's client side; the server messages the recording
//! shows after it (its response, ids rewritten to the host's, and the notifications and
//! server-to-client requests that followed it) are sent back.
//!
//! Matching: a request matches the first unanswered recorded request of its method; if an
//! unanswered recorded request of another method comes before that one, the host asked out of
//! order. A request the recording does not have, or one out of order, is a difference, answered
//! with a JSON-RPC error ([`NOT_IN_RECORDING`]) at once, so the host never waits on it; `ping` is
//! always answered. Params that differ (after normalisation) are a difference too, but the
//! request is answered from the recording. When the host sends nothing for the idle bound while
//! the recording still expects something, that is a difference and the session ends: never a
//! hang. Recorded client messages the host never sent are differences at the end.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::sync::Arc;
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

use mcp_wire::message::{ErrorObject, error_response, response};
use serde_json::{Value, json};

use crate::compare::{Difference, unified};
use crate::error::{Error, Result};
use crate::observe::{self, Observed};
use crate::player::Side;
use crate::recording::{Recording, Row};
use crate::rules::{Normaliser, RuleSet};

/// The JSON-RPC error code of an answer to a request the recording does not have (or has later).
pub const NOT_IN_RECORDING: i64 = -32_001;

/// How to serve.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Normalisation rules (for comparing params).
    pub rules: Arc<RuleSet>,
    /// How long the host may stay silent while the recording still expects a message.
    pub idle: Duration,
    /// Which rows are the client and the server.
    pub side: Side,
    /// The line bound for the host's stdin.
    pub max_line_bytes: usize,
}

/// What serving found.
#[derive(Debug, Clone, Default)]
pub struct ServeOutcome {
    /// Every difference, in the order found.
    pub differences: Vec<Difference>,
    /// How often each rule fired.
    pub fired: BTreeMap<String, usize>,
    /// The positions of the recorded client messages (for the JUnit report).
    pub positions: Vec<String>,
}

/// Serves `rec` to the host on `input` / `output` until the host's EOF or the idle bound.
/// `on_difference` is called as each difference is found (the binary prints it on stderr).
pub fn serve<R: Read + Send + 'static, W: Write>(
    rec: &Recording,
    opts: &ServeOptions,
    input: R,
    mut output: W,
    on_difference: &mut dyn FnMut(&Difference),
) -> Result<ServeOutcome> {
    let side = opts.side;
    let rows: Vec<&Row> = rec
        .rows
        .iter()
        .filter(|r| r.dir == side.client || r.dir == side.server)
        .collect();
    let triggers = triggers(&rows, side);
    let client: Vec<usize> = (0..rows.len())
        .filter(|i| rows[*i].dir == side.client)
        .collect();
    let title = |i: usize| -> String {
        let n = client.iter().position(|c| *c == i).map_or(0, |p| p + 1);
        match rows[i].msg() {
            Some(m) => match (m.get("method").and_then(Value::as_str), m.get("id")) {
                (Some(method), Some(id)) => format!("c2s #{n} request id={id} {method}"),
                (Some(method), None) => format!("c2s #{n} notification {method}"),
                _ => format!("c2s #{n} message"),
            },
            None => format!("c2s #{n} line"),
        }
    };
    let mut out = ServeOutcome {
        positions: client.iter().map(|i| title(*i)).collect(),
        ..ServeOutcome::default()
    };
    let mut norm_rec = Normaliser::per_section(opts.rules.clone());
    let mut norm_host = Normaliser::per_section(opts.rules.clone());
    let mut consumed = vec![false; rows.len()];
    let send = |output: &mut W, v: &Value| -> Result<()> {
        let mut line = v.to_string().into_bytes();
        line.push(b'\n');
        output
            .write_all(&line)
            .and_then(|()| output.flush())
            .map_err(Error::Peer)
    };
    let mut report = |out: &mut ServeOutcome, d: Difference| {
        on_difference(&d);
        out.differences.push(d);
    };
    // What the recording's server said before any client message.
    for (j, t) in triggers.iter().enumerate() {
        if t.is_none()
            && rows[j].dir == side.server
            && let Some(m) = rows[j].msg()
        {
            send(&mut output, m)?;
        }
    }
    let rx = observe::spawn(input, opts.max_line_bytes, Instant::now());
    let mut host_n = 0usize;
    loop {
        let (_, obs) = match rx.recv_timeout(opts.idle) {
            Ok(x) => x,
            Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => {
                if let Some(next) = client.iter().find(|i| !consumed[**i]) {
                    report(
                        &mut out,
                        Difference {
                            position: title(*next),
                            diff: format!(
                                "the host sent nothing for {} ms; the recording expects next:\n{}\n",
                                opts.idle.as_millis(),
                                rows[*next].value
                            ),
                        },
                    );
                }
                break;
            }
        };
        host_n += 1;
        let Observed::Msg(m) = obs else {
            let d = Difference {
                position: format!("host message #{host_n}"),
                diff: format!("a line that is not JSON: {}\n", obs.as_message()),
            };
            report(&mut out, d);
            let e = ErrorObject::parse_error("not JSON");
            let _ = send(&mut output, &error_response(None, &e));
            continue;
        };
        let method = m.get("method").and_then(Value::as_str);
        let id = m.get("id");
        // The recorded client row this message is.
        let candidate = client.iter().copied().find(|i| {
            !consumed[*i]
                && rows[*i].msg().is_some_and(|r| match (method, id) {
                    (Some(meth), _) => {
                        r.get("method").and_then(Value::as_str) == Some(meth)
                            && r.get("id").is_some() == id.is_some()
                    }
                    (None, Some(id)) => r.get("method").is_none() && r.get("id") == Some(id),
                    (None, None) => false,
                })
        });
        let is_request = method.is_some() && id.is_some();
        let earlier = candidate.and_then(|c| {
            client.iter().copied().find(|i| {
                *i < c
                    && !consumed[*i]
                    && rows[*i]
                        .msg()
                        .is_some_and(|r| r.get("method").is_some() && r.get("id").is_some())
            })
        });
        let what = match (method, id) {
            (Some(meth), Some(id)) => format!("request {meth} id={id}"),
            (Some(meth), None) => format!("notification {meth}"),
            (None, Some(id)) => format!("response id={id}"),
            (None, None) => "message".into(),
        };
        let refuse = |reason: String| {
            let e = ErrorObject::new(NOT_IN_RECORDING, format!("mcp-replay: {reason}"));
            id.map(|id| error_response(Some(id), &e))
        };
        let Some(i) = candidate.filter(|_| !is_request || earlier.is_none()) else {
            if method == Some("ping")
                && let Some(id) = id
            {
                send(&mut output, &response(id, json!({})))?;
                continue;
            }
            let reason = match earlier {
                Some(e) if is_request => format!(
                    "{what} out of order: the recording expects {} first",
                    title(e)
                ),
                _ => format!("{what} is not in the recording"),
            };
            let pretty = serde_json::to_string_pretty(&m).unwrap_or_default();
            report(
                &mut out,
                Difference {
                    position: format!("host message #{host_n}: {what}"),
                    diff: format!("{reason}\n{}\n", pretty),
                },
            );
            if let Some(answer) = refuse(reason) {
                let _ = send(&mut output, &answer);
            }
            continue;
        };
        consumed[i] = true;
        let recorded = rows[i].msg().cloned().unwrap_or(Value::Null);
        norm_rec.section();
        norm_host.section();
        let want = pretty(&norm_rec.value(recorded.get("params").unwrap_or(&Value::Null)));
        let got = pretty(&norm_host.value(m.get("params").unwrap_or(&Value::Null)));
        if let Some(diff) = unified(&want, &got, "recording: params", "host: params") {
            report(
                &mut out,
                Difference {
                    position: title(i),
                    diff,
                },
            );
        }
        for (j, t) in triggers.iter().enumerate() {
            if *t != Some(i) {
                continue;
            }
            let Some(mut s) = rows[j].msg().cloned() else {
                continue;
            };
            if s.get("method").is_none()
                && let Some(host_id) = id
                && is_request
            {
                s["id"] = host_id.clone();
            }
            if send(&mut output, &s).is_err() {
                break;
            }
        }
    }
    for i in client.iter().copied().filter(|i| !consumed[*i]) {
        report(
            &mut out,
            Difference {
                position: title(i),
                diff: format!("the host never sent it:\n{}\n", rows[i].value),
            },
        );
    }
    out.fired = norm_rec.fired;
    for (k, v) in norm_host.fired {
        *out.fired.entry(k).or_default() += v;
    }
    Ok(out)
}

fn pretty(v: &Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_default();
    s.push('\n');
    s
}

/// For each row, the client row whose arrival releases it (server rows only): a response
/// follows its request (by id); anything else the last client row before it. `None` for client
/// rows and for server rows before any client row.
fn triggers(rows: &[&Row], side: Side) -> Vec<Option<usize>> {
    let mut out = vec![None; rows.len()];
    let mut last_client = None;
    for (j, r) in rows.iter().enumerate() {
        if r.dir == side.client {
            last_client = Some(j);
            continue;
        }
        let by_id = r
            .msg()
            .filter(|m| m.get("method").is_none())
            .and_then(|m| m.get("id"))
            .and_then(|id| {
                let asks = |c: &&Row| {
                    c.dir == side.client
                        && c.msg().is_some_and(|cm| {
                            cm.get("method").is_some() && cm.get("id") == Some(id)
                        })
                };
                // The request before it; in a recording made by another tool the request's row
                // may follow its response's.
                rows[..j]
                    .iter()
                    .rposition(&asks)
                    .or_else(|| rows[j..].iter().position(&asks).map(|k| j + k))
            });
        out[j] = by_id.or(last_client);
    }
    out
}

#[cfg(test)]
#[path = "server_tests.rs"]
mod tests;
