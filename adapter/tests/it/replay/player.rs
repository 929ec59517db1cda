//! Replays a golden recording: its client side is sent to a fresh adapter whose native CLI is
//! fake-claude playing the recording's native side ([`super::native`]), and the adapter's answers
//! are rendered next to the recorded ones ([`super::compare`]).
//!
//! Pacing keeps the replay in the recorded order of cause and effect, without clocks: before a
//! client message that the recording shows after some answers, notifications and native rows,
//! the player waits (bounded) until the replayed adapter has sent those answers, notifications of
//! the same kinds (progress: at least one per token, since their number depends on the clock,
//! T9) and read as many native rows (the replay runs with `--record` too, so its native rows can
//! be counted). So a cancel the recording sends after the call's first progress is not sent
//! before it, where the adapter could still be between recording a native row and counting it. A request is thus
//! sent before an earlier one was answered only when the recording shows that overlap (a cancel
//! during a run). After a native exit row the player also gives the adapter [`SETTLE_GRACE`] to
//! move the run to its settled state (the engine writes the exit row just before it settles),
//! exactly as the maker did.
//!
//! An ACP recording (`recordings/acp/`, made with `--provider cursor`) is replayed the same way,
//! its agent being fake-cursor-agent replaying the recorded agent runs ([`super::acp`]); the
//! pacing then also waits for as many agent lines (`c2a` and `a2c` rows) as the recording shows
//! before the client message.
//!
//! Volatile values the client echoes (run ids, event cursors) are mapped from the recorded ones to
//! the ones the replayed adapter issued, by position in the matching answers.

use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::acp;
use super::compare;
use super::native::{self, starts_run};
use super::recording::{Body, Recording, Row, Tail};
use crate::support::client::{Client, base_env};
use crate::support::fake_claude_bin;

/// After a native exit row, how long the adapter gets to settle the run before the next client
/// message (the maker waits the same).
pub const SETTLE_GRACE: Duration = Duration::from_millis(500);
/// Bound on any one wait of the replay (shared, slow machine; only to avoid hangs).
const WAIT_BOUND: Duration = Duration::from_secs(60);

/// What a replay produced.
#[derive(Debug)]
pub struct Replayed {
    /// The recorded side's transcript.
    pub expected: String,
    /// The replayed side's transcript.
    pub actual: String,
    /// Waits that ran out (they explain a diff).
    pub notes: Vec<String>,
    /// The adapter's stderr.
    pub stderr: String,
}

/// Replays `rec` and renders both sides.
pub fn replay(rec: &Recording) -> Replayed {
    let name = rec
        .path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = tempfile::tempdir().expect("temp dir");
    let scenario_path = tmp.path().join("native-run.json");
    let code_path = tmp.path().join("exit-code-on-sigterm");
    let record_path = tmp.path().join("replay.jsonl");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).expect("home");

    let agent_path = tmp.path().join("agent-run.jsonl");
    let is_acp = acp::is_acp(rec);
    let runs = native::native_runs(rec);
    let agent_runs = if is_acp {
        acp::agent_runs(rec)
    } else {
        Vec::new()
    };

    let mut args: Vec<OsString> = if is_acp {
        acp::adapter_args(&acp::fake_cursor_agent_bin())
    } else {
        let claude = native_program(&runs, tmp.path(), &code_path);
        vec!["--claude".into(), claude.into_os_string()]
    };
    if let Some(extra) = rec.meta.get("adapter_args").and_then(Value::as_array) {
        args.extend(extra.iter().filter_map(Value::as_str).map(OsString::from));
    }
    let mut env = base_env();
    env.push(("HOME".into(), home.into_os_string()));
    if is_acp {
        env.push((acp::ENV_REPLAY.into(), agent_path.clone().into()));
        env.push(("FAKE_CURSOR_MAX_LIFETIME_S".into(), "300".into()));
    } else {
        env.push(("FAKE_CLAUDE_SCENARIO".into(), scenario_path.clone().into()));
        // A hang of the replayed native side never outlives the test run for long.
        env.push(("FAKE_CLAUDE_MAX_LIFETIME_S".into(), "300".into()));
    }
    let side = if is_acp {
        Side::Agent {
            runs: &agent_runs,
            path: &agent_path,
        }
    } else {
        Side::Native {
            runs: &runs,
            name: &name,
            scenario_path: &scenario_path,
            code_path: &code_path,
        }
    };

    let mut client = Client::spawn(&args, &env, Some(&record_path));
    let mut tail = Tail::new(&record_path);
    let mut map = Mapping::default();
    let mut notes = Vec::new();
    let mut exits_seen_at_last_send = 0;

    let mut golden = Before::default();
    let mut golden_exits = 0usize;
    for row in &rec.rows {
        if row.is_agent_wire() {
            golden.wire += 1;
            golden.live_wire = true;
        }
        match row.dir.as_str() {
            "n2a" => {
                if row.is_native_output() {
                    golden.native += 1;
                }
                if row.is_exit() {
                    golden_exits += 1;
                    golden.exits += 1;
                    golden.live_wire = false;
                }
            }
            "s2c" => {
                let Some(m) = row.msg() else { continue };
                if m.get("method").is_some() {
                    golden.notified.push(compare::notification_kind(m));
                } else if let Some(id) = m.get("id").filter(|id| !id.is_null()) {
                    golden.answered.push(id.clone());
                }
            }
            "c2s" => {
                wait_for(&mut client, &mut tail, &golden, &mut notes);
                if golden_exits > exits_seen_at_last_send {
                    std::thread::sleep(SETTLE_GRACE);
                    exits_seen_at_last_send = golden_exits;
                }
                map.learn(rec, &client);
                send(&mut client, row, &map, &side, &tail);
            }
            _ => {}
        }
    }
    wait_for(&mut client, &mut tail, &golden, &mut notes);
    client.close_stdin();
    if client.wait_exit(WAIT_BOUND).is_none() {
        notes.push(format!(
            "the adapter did not exit within {WAIT_BOUND:?} of stdin EOF"
        ));
    }
    tail.poll();
    check_output_schemas(rec, &client);

    let (golden_c2s, golden_n2a) = compared_rows(&rec.rows);
    let golden_s2c: Vec<Value> = rec
        .rows
        .iter()
        .filter(|r| r.dir == "s2c")
        .filter_map(|r| r.msg().cloned())
        .collect();
    let (replay_c2s, replay_n2a) = compared_rows(&tail.rows);
    Replayed {
        expected: compare::transcript(&golden_c2s, &golden_s2c, &golden_n2a),
        actual: compare::transcript(&replay_c2s, &client.received, &replay_n2a),
        notes,
        stderr: client.stderr_text(),
    }
}

/// TOOL-6: every replayed `tools/call` answer (real CLI streams included) conforms to its tool's
/// outputSchema.
fn check_output_schemas(rec: &Recording, client: &Client) {
    for c in rec
        .rows
        .iter()
        .filter(|r| r.dir == "c2s")
        .filter_map(Row::msg)
    {
        let (Some("tools/call"), Some(id), Some(tool)) = (
            c.get("method").and_then(Value::as_str),
            c.get("id"),
            c.pointer("/params/name").and_then(Value::as_str),
        ) else {
            continue;
        };
        if let Some(result) = client.response(id).and_then(|r| r.get("result"))
            && let Err(e) = crate::support::outputs::check(tool, result)
        {
            panic!("replay of {}: {e}", rec.path.display());
        }
    }
}

/// The client rows and the native output rows of a recording, which both sides' transcripts
/// show.
fn compared_rows(rows: &[Row]) -> (Vec<Row>, Vec<Row>) {
    let pick = |keep: fn(&Row) -> bool| rows.iter().filter(|r| keep(r)).cloned().collect();
    (
        pick(|r| r.dir == "c2s"),
        pick(|r| r.is_native_output() || r.is_agent_wire()),
    )
}

/// What plays the native side of a replay.
enum Side<'a> {
    /// fake-claude, one scenario per recorded native run ([`native`]).
    Native {
        runs: &'a [native::NativeRun],
        name: &'a str,
        scenario_path: &'a Path,
        code_path: &'a Path,
    },
    /// fake-cursor-agent replaying the recorded agent runs ([`acp`]).
    Agent {
        runs: &'a [Vec<Value>],
        path: &'a Path,
    },
}

/// What the recording shows before a client message: the adapter had answered these requests,
/// sent notifications of these kinds and read this many native rows.
#[derive(Debug, Default)]
struct Before {
    answered: Vec<Value>,
    notified: Vec<String>,
    native: usize,
    /// ACP lines exchanged with the agent (`c2a` and `a2c` rows).
    wire: usize,
    /// Native runs that had exited.
    exits: usize,
    /// Whether agent lines came after the last of those exits (a run still going).
    live_wire: bool,
}

/// fake-claude itself, or the SIGTERM wrapper when a run must answer SIGTERM with an exit code.
fn native_program(runs: &[native::NativeRun], dir: &Path, code_path: &Path) -> PathBuf {
    let fake = fake_claude_bin();
    if runs.iter().all(|r| r.exit_code_on_sigterm().is_none()) {
        return fake;
    }
    assert!(
        runs.iter()
            .all(|r| r.terminated || r.exit().is_none_or(|(_, sig)| sig.is_none())),
        "a recording mixing a native exit code on SIGTERM with a native death by a signal cannot \
         be replayed under the SIGTERM wrapper"
    );
    let path = dir.join("claude-sigterm-wrapper");
    std::fs::write(&path, native::wrapper_script(&fake, code_path)).expect("write the wrapper");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path
}

/// Waits until the replayed adapter has done what the recording shows it had done ([`Before`]).
fn wait_for(client: &mut Client, tail: &mut Tail, before: &Before, notes: &mut Vec<String>) {
    // Once a wait has run out (or the adapter is gone) the replay has already failed: later waits
    // are short, so a broken adapter fails the test quickly with the whole diff.
    let bound = if notes.is_empty() && client.is_running() {
        WAIT_BOUND
    } else {
        Duration::from_secs(2)
    };
    let deadline = Instant::now() + bound;
    loop {
        tail.poll();
        let missing: Vec<&Value> = before
            .answered
            .iter()
            .filter(|id| client.response(id).is_none())
            .collect();
        let sent: Vec<String> = client
            .received
            .iter()
            .filter(|m| m.get("method").is_some())
            .map(compare::notification_kind)
            .collect();
        let unsent = missing_kinds(&before.notified, &sent);
        // Agent lines stop with their run's exit: lines still missing once the run they belong
        // to has ended in the replay will never come (a replayed agent that ended early), so
        // waiting on is pointless; the diff shows what is missing.
        let lines_may_come =
            tail.exits() < before.exits || (tail.exits() == before.exits && before.live_wire);
        let native_short = tail.native_output() < before.native
            || (tail.agent_wire() < before.wire && lines_may_come);
        if missing.is_empty() && unsent.is_empty() && !native_short {
            return;
        }
        if Instant::now() >= deadline {
            let note = format!(
                "gave up after {bound:?} waiting for answers to {missing:?}, notifications \
                 {unsent:?}, native rows ({} of {} read) and agent lines ({} of {})",
                tail.native_output(),
                before.native,
                tail.agent_wire(),
                before.wire
            );
            if !notes.contains(&note) {
                notes.push(note);
            }
            return;
        }
        client.pump(Duration::from_millis(20));
    }
}

/// The notification kinds of `recorded` that `sent` does not hold as often (each kind as often
/// as recorded; [`compare::notification_kind`] makes all progress of one token one kind, once).
fn missing_kinds(recorded: &[String], sent: &[String]) -> Vec<String> {
    let mut left: Vec<&String> = sent.iter().collect();
    let mut missing = Vec::new();
    let mut seen_progress: Vec<&String> = Vec::new();
    for kind in recorded {
        if kind.starts_with(compare::PROGRESS) {
            if seen_progress.contains(&kind) {
                continue;
            }
            seen_progress.push(kind);
            if !sent.contains(kind) {
                missing.push(kind.clone());
            }
        } else if let Some(i) = left.iter().position(|s| *s == kind) {
            left.remove(i);
        } else {
            missing.push(kind.clone());
        }
    }
    missing
}

/// Sends one recorded client row (mapped), preparing the native run first when it starts one.
fn send(client: &mut Client, row: &Row, map: &Mapping, side: &Side<'_>, tail: &Tail) {
    match &row.body {
        Body::Msg(m) => {
            if starts_run(m)
                && let Side::Agent { runs, path } = side
            {
                // As below: the next agent run is the one after those that have exited.
                let run = runs.get(tail.exits()).map_or(&[][..], Vec::as_slice);
                acp::publish(path, run);
            } else if starts_run(m)
                && let Side::Native {
                    runs,
                    name,
                    scenario_path,
                    code_path,
                } = side
            {
                // Runs never overlap in a recording: the next native run is the one after the
                // runs that have exited so far.
                let k = tail.exits();
                let run = runs.get(k).cloned().unwrap_or_else(|| native::NativeRun {
                    rows: Vec::new(),
                    terminated: false,
                    stderr_tail: None,
                });
                let text = serde_json::to_string_pretty(&run.scenario(name)).expect("scenario");
                let tmp = scenario_path.with_extension("tmp");
                std::fs::write(&tmp, text).expect("write the native scenario");
                std::fs::rename(&tmp, scenario_path).expect("publish the native scenario");
                let code = run.exit_code_on_sigterm().unwrap_or(143);
                std::fs::write(code_path, code.to_string()).expect("write the exit code");
            }
            client.send(&map.apply(m));
        }
        Body::Raw(t) => client.send_line(t.as_bytes()),
        Body::Oversized { len, .. } => {
            let n = usize::try_from(*len).expect("length fits");
            client.send_line("x".repeat(n).as_bytes());
        }
        _ => {}
    }
}

/// Recorded → replayed spellings of values the adapter issued and the client echoes.
#[derive(Debug, Default)]
struct Mapping {
    pairs: Vec<(String, String)>,
}

impl Mapping {
    /// Pairs the run ids and cursors of every recorded answer with the replayed answer to the
    /// same request, by order of appearance.
    fn learn(&mut self, rec: &Recording, client: &Client) {
        for g in rec
            .rows
            .iter()
            .filter(|r| r.dir == "s2c")
            .filter_map(Row::msg)
        {
            let Some(id) = g.get("id").filter(|_| g.get("method").is_none()) else {
                continue;
            };
            let Some(a) = client.response(id) else {
                continue;
            };
            let (gt, at) = (tokens(&g.to_string()), tokens(&a.to_string()));
            for (x, y) in gt.into_iter().zip(at) {
                if x != y && !self.pairs.iter().any(|(k, _)| *k == x) {
                    self.pairs.push((x, y));
                }
            }
        }
    }

    fn apply(&self, v: &Value) -> Value {
        match v {
            Value::String(s) => {
                let mut s = s.clone();
                for (k, r) in &self.pairs {
                    s = s.replace(k, r);
                }
                Value::String(s)
            }
            Value::Array(a) => Value::Array(a.iter().map(|x| self.apply(x)).collect()),
            Value::Object(o) => {
                Value::Object(o.iter().map(|(k, x)| (k.clone(), self.apply(x))).collect())
            }
            other => other.clone(),
        }
    }
}

/// Run ids and event cursors in `s`, in order of appearance.
fn tokens(s: &str) -> Vec<String> {
    let mut found = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let rest = &s[i..];
        if rest.starts_with("run_")
            && rest.len() >= 36
            && rest.as_bytes()[4..36].iter().all(u8::is_ascii_hexdigit)
            && (i == 0 || !b[i - 1].is_ascii_alphanumeric())
        {
            found.push(rest[..36].to_owned());
            i += 36;
            continue;
        }
        if rest.starts_with("c1.")
            && (i == 0 || !b[i - 1].is_ascii_alphanumeric())
            && rest.len() > 13
            && rest.as_bytes()[3..11].iter().all(u8::is_ascii_hexdigit)
            && rest.as_bytes()[11] == b'.'
        {
            let end = 12
                + rest.as_bytes()[12..]
                    .iter()
                    .take_while(|c| c.is_ascii_hexdigit())
                    .count();
            if end > 12 {
                found.push(rest[..end].to_owned());
                i += end;
                continue;
            }
        }
        i += rest.chars().next().map_or(1, char::len_utf8);
    }
    found
}

/// Pacing asks for every recorded notification kind: progress once per token whatever its count,
/// other notifications as often as recorded.
#[test]
fn pacing_waits_for_each_recorded_notification_kind() {
    let p = |t: &str| format!("{}\"{t}\"", compare::PROGRESS);
    let s = |x: &str| x.to_owned();
    let recorded = [p("a"), p("a"), p("a"), s("x"), s("x")];
    assert_eq!(
        missing_kinds(&recorded, &[p("a"), s("x"), s("x")]),
        Vec::<String>::new()
    );
    assert_eq!(missing_kinds(&recorded, &[s("x"), s("x")]), [p("a")]);
    assert_eq!(
        missing_kinds(&recorded, &[p("a"), p("b"), s("x")]),
        [s("x")]
    );
    assert_eq!(missing_kinds(&[], &[p("a")]), Vec::<String>::new());
}
