//! `mcp-replay run`: replays a recording's client side against a server (or ACP agent) and
//! compares every server message with the recording.
//!
//! Pacing is causal, not the clock's (unless `--timing recorded`): before each client message the
//! player waits until every server message recorded before it has a counterpart, each wait bounded
//! (`--wait-ms`): the response to each request (by id), and as many notifications and
//! server-to-client requests of each method as were recorded (progress: one per token, T9). A
//! wait that runs out is noted and its expectation dropped, so a missing answer costs one bound,
//! never a hang. Client answers to server requests get the observed request's id; values the
//! server issued and the client echoes (session ids, run ids: whatever a numbering rule
//! matched) are mapped to the ones the server issued this time.
//!
//! A caller whose server leaves evidence beyond its stdout (the reference adapter's `--record`
//! file with the native rows it read) adds its own waits, preparation and transcript rows through
//! a [`Pacer`] ([`run_with`]); [`RunOptions`] also say how the server is started (its
//! environment), how long it may take to exit, and how values are numbered.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::child::{Peer, Stderr, TERM_GRACE};
use crate::compare::{self, Difference};
use crate::error::{Error, Result};
use crate::observe::{self, Observed};
use crate::pacer::{NoPacer, Pacer};
use crate::recording::{Body, Recording, Row};
use crate::rules::{Normaliser, RuleSet};
use crate::transcript::{Transcript, notification_kind, transcript};

/// How the client side is paced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Timing {
    /// Wait for each recorded answer before sending on (the default).
    Causal,
    /// As causal, and also no earlier than the recorded time.
    Recorded,
}

/// Which rows are the client and which the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Side {
    /// The client's direction.
    pub client: &'static str,
    /// The server's direction.
    pub server: &'static str,
}

impl Side {
    /// `c2s` / `s2c`: a recording made by `mcp-replay record` (MCP or ACP).
    pub const WIRE: Self = Self {
        client: "c2s",
        server: "s2c",
    };
    /// `c2a` / `a2c`: the ACP lines inside the reference adapter's Cursor recordings.
    pub const ADAPTER_ACP: Self = Self {
        client: "c2a",
        server: "a2c",
    };
}

/// How to replay.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The server command.
    pub command: Vec<OsString>,
    /// Normalisation rules.
    pub rules: Arc<RuleSet>,
    /// The bound of each wait for recorded answers.
    pub wait: Duration,
    /// Pacing.
    pub timing: Timing,
    /// Which rows to replay.
    pub side: Side,
    /// The line bound for the server's stdout.
    pub max_line_bytes: usize,
    /// The server's environment: `None` inherits ours; `Some` is exactly these variables.
    pub env: Option<Vec<(OsString, OsString)>>,
    /// How long the server may take to exit once its stdin closed, before `SIGTERM`.
    pub exit_grace: Duration,
    /// How volatile values are numbered in the transcripts.
    pub numbering: Numbering,
}

/// How the transcripts number volatile values (`[RUN#1]`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Numbering {
    /// Afresh in each section, so a missing message shifts no number after it (the default).
    PerSection,
    /// By first appearance over the whole side, so "the same run" stays visible from one
    /// section to the next (the reference adapter's goldens).
    WholeSide,
}

impl Numbering {
    fn normaliser(self, rules: Arc<RuleSet>) -> Normaliser {
        match self {
            Self::PerSection => Normaliser::per_section(rules),
            Self::WholeSide => Normaliser::new(rules),
        }
    }
}

/// What a replay found.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    /// The recording's transcript.
    pub expected: Transcript,
    /// The replay's transcript.
    pub observed: Transcript,
    /// Every section that differs.
    pub differences: Vec<Difference>,
    /// How often each rule fired (both sides).
    pub fired: BTreeMap<String, usize>,
    /// Waits that ran out, messages not sent.
    pub notes: Vec<String>,
    /// The server's stderr tail.
    pub stderr: String,
    /// The replay as recording rows (for `--bless`), meta row first.
    pub rows: Vec<Value>,
}

/// What the player waits for: one per recorded server row.
#[derive(Debug, Clone, PartialEq)]
enum Expect {
    /// The response to this request id.
    Response(Value),
    /// The nth (1-based) message of this kind.
    Kind(String, usize),
    /// The nth line that was not JSON.
    Raw(usize),
}

struct Live {
    rx: Receiver<(u64, Observed)>,
    seen: Vec<Observed>,
    rows: Vec<Value>,
    server_dir: &'static str,
    open: bool,
}

impl Live {
    /// Takes one observed line, waiting until `until` at most; false on timeout or EOF.
    fn pump(&mut self, until: Instant) -> bool {
        if !self.open {
            return false;
        }
        let left = until.saturating_duration_since(Instant::now());
        match self.rx.recv_timeout(left) {
            Ok((ms, obs)) => {
                self.rows.push(obs.row(self.server_dir, ms));
                self.seen.push(obs);
                true
            }
            Err(RecvTimeoutError::Timeout) => false,
            Err(RecvTimeoutError::Disconnected) => {
                self.open = false;
                false
            }
        }
    }

    fn satisfied(&self, e: &Expect) -> bool {
        match e {
            Expect::Response(id) => self.seen.iter().any(|o| {
                matches!(o, Observed::Msg(m) if m.get("method").is_none() && m.get("id") == Some(id))
            }),
            Expect::Kind(kind, n) => {
                let have = self
                    .seen
                    .iter()
                    .filter(|o| matches!(o, Observed::Msg(m) if m.get("method").is_some() && notification_kind(m) == *kind))
                    .count();
                have >= *n
            }
            Expect::Raw(n) => {
                self.seen
                    .iter()
                    .filter(|o| !matches!(o, Observed::Msg(_)))
                    .count()
                    >= *n
            }
        }
    }

    /// Waits (bounded) until every live expectation is met; the unmet ones are abandoned.
    fn wait(&mut self, pending: &mut Vec<(usize, Expect)>, bound: Duration) -> Vec<usize> {
        let until = Instant::now() + bound;
        loop {
            pending.retain(|(_, e)| !self.satisfied(e));
            if pending.is_empty() || !self.pump(until) {
                break;
            }
        }
        pending.retain(|(_, e)| !self.satisfied(e));
        pending.drain(..).map(|(j, _)| j).collect()
    }
}

/// Replays `rec` against `opts.command`, paced on the server's stdout alone.
pub fn run(rec: &Recording, opts: &RunOptions) -> Result<RunOutcome> {
    run_with(rec, opts, &mut NoPacer)
}

/// Replays `rec` against `opts.command`, `pacer` adding its waits, preparation and side rows.
pub fn run_with(rec: &Recording, opts: &RunOptions, pacer: &mut dyn Pacer) -> Result<RunOutcome> {
    let side = opts.side;
    // The replayed rows, each with its index among all the recording's rows (for the pacer).
    let (at, rows): (Vec<usize>, Vec<&Row>) = rec
        .rows
        .iter()
        .enumerate()
        .filter(|(_, r)| r.dir == side.client || r.dir == side.server)
        .unzip();
    let expects = expectations(&rows, side);
    let mut peer = Peer::spawn_env(&opts.command, Stderr::Tail, opts.env.as_deref())?;
    let start = Instant::now();
    let stdout = peer
        .stdout
        .take()
        .ok_or_else(|| Error::Peer(std::io::Error::other("no stdout")))?;
    let mut live = Live {
        rx: observe::spawn(stdout, opts.max_line_bytes, start),
        seen: Vec::new(),
        rows: Vec::new(),
        server_dir: side.server,
        open: true,
    };
    let mut notes = Vec::new();
    let mut to_server = peer.stdin.take().map(writer);
    let mut sent: Vec<Row> = Vec::new();
    let mut next_expect = 0;
    let mut pending: Vec<(usize, Expect)> = Vec::new();
    let first_ms = rows.first().map_or(0, |r| r.ms);
    for (i, row) in rows.iter().enumerate() {
        if row.dir != side.client {
            continue;
        }
        while next_expect < expects.len() && expects[next_expect].0 < i {
            pending.push((expects[next_expect].0, expects[next_expect].1.clone()));
            next_expect += 1;
        }
        for j in live.wait(&mut pending, opts.wait) {
            notes.push(format!(
                "before client message #{}: waited {} ms for {}, in vain",
                sent.len() + 1,
                opts.wait.as_millis(),
                describe(rows[j])
            ));
        }
        notes.extend(pacer.wait(&rec.rows[..at[i]], opts.wait));
        // What came meanwhile counts for the mapping below.
        while live.pump(Instant::now()) {}
        if opts.timing == Timing::Recorded {
            let at = start + Duration::from_millis(row.ms.saturating_sub(first_ms));
            while Instant::now() < at && live.pump(at) {}
        }
        let line = match &row.body {
            Body::Msg(m) => {
                let m = rewrite(m, &rows[..i], &live.seen, side, &opts.rules, &mut notes);
                serde_json::to_vec(&m).map(|mut b| {
                    b.push(b'\n');
                    (b, Row::msg_row(side.client, 0, m))
                })
            }
            Body::Raw(t) => Ok((format!("{t}\n").into_bytes(), (*row).clone())),
            _ => continue,
        };
        let Ok((bytes, mut sent_row)) = line else {
            continue;
        };
        pacer.before_send(row);
        let ms = u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
        sent_row.ms = ms;
        if let Some(obj) = sent_row.value.as_object_mut() {
            obj.insert("ms".into(), ms.into());
        }
        if to_server.as_ref().is_none_or(|tx| tx.send(bytes).is_err()) {
            notes.push(format!(
                "client message #{} could not be sent: the server closed its stdin",
                sent.len() + 1
            ));
        }
        live.rows.push(sent_row.value.clone());
        sent.push(sent_row);
    }
    pending.extend(expects[next_expect..].iter().cloned());
    for j in live.wait(&mut pending, opts.wait) {
        notes.push(format!(
            "at the end: waited {} ms for {}, in vain",
            opts.wait.as_millis(),
            describe(rows[j])
        ));
    }
    notes.extend(pacer.wait(&rec.rows, opts.wait));
    // Close stdin (once the writer has written what it holds); what the server writes until its
    // EOF still counts (an extra message).
    drop(to_server.take());
    let until = Instant::now() + opts.exit_grace;
    while live.pump(until) {}
    let _ = peer.shutdown_within(opts.exit_grace);
    let until = Instant::now() + TERM_GRACE;
    while live.pump(until) {}

    let mut expected_norm = opts.numbering.normaliser(opts.rules.clone());
    let mut observed_norm = opts.numbering.normaliser(opts.rules.clone());
    let recorded_c2s: Vec<Row> = rows
        .iter()
        .filter(|r| r.dir == side.client)
        .map(|r| (*r).clone())
        .collect();
    let recorded_s2c: Vec<Value> = rows
        .iter()
        .filter(|r| r.dir == side.server)
        .filter_map(|r| server_message(r))
        .collect();
    let observed_s2c: Vec<Value> = live.seen.iter().map(Observed::as_message).collect();
    let (recorded_side, observed_side) = pacer.side_rows(&rec.rows);
    let expected = transcript(
        &recorded_c2s,
        &recorded_s2c,
        &recorded_side,
        &mut expected_norm,
    );
    let observed = transcript(&sent, &observed_s2c, &observed_side, &mut observed_norm);
    let differences = compare::differences(&expected, &observed);
    let mut fired = expected_norm.fired;
    for (k, v) in observed_norm.fired {
        *fired.entry(k).or_default() += v;
    }
    let mut out_rows = Vec::with_capacity(live.rows.len() + 1);
    let mut meta = if rec.meta.is_object() {
        rec.meta.clone()
    } else {
        serde_json::json!({"dir": "meta", "ms": 0})
    };
    meta["blessed_by"] = Value::from("mcp-replay run --bless");
    out_rows.push(meta);
    out_rows.extend(live.rows);
    Ok(RunOutcome {
        expected,
        observed,
        differences,
        fired,
        notes,
        stderr: peer.stderr_tail(),
        rows: out_rows,
    })
}

/// The server's stdin, written on a thread of its own: a server that stops reading blocks that
/// thread, never the player's bounded waits (the shutdown's `SIGKILL` ends the write). Dropping
/// the sender closes stdin after what was queued; a send fails once a write failed.
fn writer(mut stdin: std::process::ChildStdin) -> std::sync::mpsc::Sender<Vec<u8>> {
    let (tx, rx) = std::sync::mpsc::channel::<Vec<u8>>();
    std::thread::spawn(move || {
        use std::io::Write as _;
        for bytes in rx {
            if stdin
                .write_all(&bytes)
                .and_then(|()| stdin.flush())
                .is_err()
            {
                return;
            }
        }
    });
    tx
}

/// A recorded server row as the message the transcript shows.
fn server_message(r: &Row) -> Option<Value> {
    match &r.body {
        Body::Msg(m) => Some(m.clone()),
        Body::Raw(t) => Some(Observed::Raw(t.clone()).as_message()),
        Body::Oversized { len, .. } => Some(Observed::Oversized(*len).as_message()),
        _ => None,
    }
}

/// One expectation per recorded server row, by row index.
fn expectations(rows: &[&Row], side: Side) -> Vec<(usize, Expect)> {
    let mut out = Vec::new();
    let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
    let mut raw = 0;
    let client_request_ids: Vec<&Value> = rows
        .iter()
        .filter(|r| r.dir == side.client)
        .filter_map(|r| r.msg())
        .filter(|m| m.get("method").is_some())
        .filter_map(|m| m.get("id"))
        .collect();
    for (i, r) in rows.iter().enumerate() {
        if r.dir != side.server {
            continue;
        }
        let e = match r.msg() {
            Some(m) if m.get("method").is_some() => {
                let kind = notification_kind(m);
                let n = kinds.entry(kind.clone()).or_default();
                *n += 1;
                // Progress: at least one per token; how many is the clock's (T9).
                let nth = if kind.starts_with(crate::transcript::PROGRESS) {
                    1
                } else {
                    *n
                };
                Expect::Kind(kind, nth)
            }
            Some(m) => match m.get("id") {
                Some(id) if client_request_ids.contains(&id) => Expect::Response(id.clone()),
                _ => {
                    raw += 1;
                    Expect::Raw(raw)
                }
            },
            None => {
                raw += 1;
                Expect::Raw(raw)
            }
        };
        out.push((i, e));
    }
    out
}

fn describe(r: &Row) -> String {
    match r.msg() {
        Some(m) => match (m.get("method").and_then(Value::as_str), m.get("id")) {
            (Some(method), Some(id)) => format!("the server request {method} (id {id})"),
            (Some(method), None) => format!("a {method} notification"),
            (None, Some(id)) => format!("the response to id {id}"),
            (None, None) => "a message".into(),
        },
        None => "a line that is not JSON".into(),
    }
}

/// The client message to send: an answer to a server request gets the observed request's id;
/// values the server issued (numbered by a rule) are mapped to this run's.
fn rewrite(
    m: &Value,
    before: &[&Row],
    seen: &[Observed],
    side: Side,
    rules: &Arc<RuleSet>,
    notes: &mut Vec<String>,
) -> Value {
    let mut m = m.clone();
    if m.get("method").is_none()
        && let Some(id) = m.get("id").cloned()
    {
        // Which recorded server request this answers, as the nth of its method.
        let recorded: Vec<&Value> = before
            .iter()
            .filter(|r| r.dir == side.server)
            .filter_map(|r| r.msg())
            .filter(|r| r.get("method").is_some() && r.get("id").is_some())
            .collect();
        if let Some(pos) = recorded.iter().rposition(|r| r.get("id") == Some(&id)) {
            let method = &recorded[pos]["method"];
            let nth = recorded[..=pos]
                .iter()
                .filter(|r| &r["method"] == method)
                .count();
            let observed = seen
                .iter()
                .filter_map(|o| match o {
                    Observed::Msg(v) if &v["method"] == method && v.get("id").is_some() => Some(v),
                    _ => None,
                })
                .nth(nth - 1);
            match observed {
                Some(o) => m["id"] = o["id"].clone(),
                None => notes.push(format!(
                    "the server never sent the {method} request answered with id {id}; answered as recorded"
                )),
            }
        }
    }
    let mut rec_norm = Normaliser::new(rules.clone());
    for r in before.iter().filter(|r| r.dir == side.server) {
        if let Some(v) = r.msg() {
            let _ = rec_norm.message(v);
        }
    }
    let mut obs_norm = Normaliser::new(rules.clone());
    for o in seen {
        if let Observed::Msg(v) = o {
            let _ = obs_norm.message(v);
        }
    }
    let theirs = obs_norm.numbered();
    let mut map: Vec<(String, String)> = Vec::new();
    for (id, value, n) in rec_norm.numbered() {
        if let Some((_, now, _)) = theirs.iter().find(|(i, _, k)| *i == id && *k == n)
            && *now != value
        {
            map.push((value, now.clone()));
        }
    }
    if map.is_empty() {
        return m;
    }
    map.sort_by_key(|(v, _)| std::cmp::Reverse(v.len()));
    let alternation: Vec<String> = map.iter().map(|(v, _)| regex::escape(v)).collect();
    let Ok(re) = regex::Regex::new(&alternation.join("|")) else {
        return m;
    };
    let text = m.to_string();
    let replaced = re.replace_all(&text, |c: &regex::Captures<'_>| {
        let hit = c.get(0).map_or("", |x| x.as_str());
        map.iter()
            .find(|(v, _)| v == hit)
            .map_or_else(|| hit.to_owned(), |(_, now)| now.clone())
    });
    serde_json::from_str(&replaced).unwrap_or(m)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn row(dir: &str, msg: Value) -> Row {
        Row::msg_row(dir, 0, msg)
    }

    #[test]
    fn an_answer_to_a_server_request_gets_the_observed_requests_id() {
        let recorded = [
            row(
                "s2c",
                json!({"id": 0, "method": "session/request_permission"}),
            ),
            row(
                "s2c",
                json!({"id": 1, "method": "session/request_permission"}),
            ),
        ];
        let before: Vec<&Row> = recorded.iter().collect();
        let seen = [
            Observed::Msg(json!({"id": "p-7", "method": "session/request_permission"})),
            Observed::Msg(json!({"id": "p-8", "method": "session/request_permission"})),
        ];
        let rules = Arc::new(RuleSet::builtin().expect("rules"));
        let mut notes = Vec::new();
        let answer = json!({"id": 1, "result": {"outcome": "allow"}});
        let sent = rewrite(&answer, &before, &seen, Side::WIRE, &rules, &mut notes);
        assert_eq!(
            sent["id"], "p-8",
            "the second request of the method, this run's id"
        );
        assert!(notes.is_empty());
        // A request the server did not send this time: answered as recorded, with a note.
        let sent = rewrite(&answer, &before, &seen[..1], Side::WIRE, &rules, &mut notes);
        assert_eq!(sent["id"], 1);
        assert_eq!(notes.len(), 1);
    }

    #[test]
    fn values_the_server_issued_are_mapped_where_the_client_echoes_them() {
        let recorded = [row(
            "s2c",
            json!({"id": 1, "result": {"sessionId": "aaaa1111", "run": "run_0123456789abcdef0123456789abcdef"}}),
        )];
        let before: Vec<&Row> = recorded.iter().collect();
        let seen = [Observed::Msg(
            json!({"id": 1, "result": {"sessionId": "bbbb2222", "run": "run_ffffffffffffffffffffffffffffffff"}}),
        )];
        let rules = Arc::new(RuleSet::builtin().expect("rules"));
        let prompt = json!({"id": 2, "method": "session/prompt",
            "params": {"sessionId": "aaaa1111", "text": "see run_0123456789abcdef0123456789abcdef"}});
        let sent = rewrite(&prompt, &before, &seen, Side::WIRE, &rules, &mut Vec::new());
        assert_eq!(sent["params"]["sessionId"], "bbbb2222");
        assert_eq!(
            sent["params"]["text"],
            "see run_ffffffffffffffffffffffffffffffff"
        );
        assert_eq!(sent["id"], 2, "the client's own ids stay");
    }
}
