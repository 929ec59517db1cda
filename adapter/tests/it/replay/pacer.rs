//! A golden replay is an `mcp_replay::player` run: the recorded client side is sent to a fresh
//! adapter and its answers compared with the recorded ones. What is the adapter's own is here, as
//! the player's [`Pacer`]:
//!
//! - the native side: fake-claude plays each recorded native run from a scenario written just
//!   before the client message that starts the run ([`super::native`]), or fake-cursor-agent the
//!   recorded agent run ([`super::acp`]);
//! - the pacing beyond stdout: the replay runs with `--record` too, so before a client message the
//!   pacer waits (bounded) until the adapter has read as many native rows, and exchanged as many
//!   agent lines (`c2a` and `a2c` rows), as the recording shows before it. So a cancel the
//!   recording sends after the call's first progress is not sent before it, where the adapter
//!   could still be between recording a native row and counting it. After a native exit row the
//!   adapter also gets [`SETTLE_GRACE`] to move the run to its settled state (the engine writes
//!   the exit row just before it settles), exactly as the maker did;
//! - the native and agent rows of that `--record` file, shown in both transcripts.
//!
//! The player itself waits for the recorded answers and notifications of each kind (progress: at
//! least one per token, T9), maps the run ids and cursors the client echoes to the replayed
//! adapter's (the `run-id` and `cursor-nonce` rules' numbering), and renders both transcripts
//! (`mcp_replay::transcript`) after normalising volatile values with the built-in rules the
//! adapter's replay has always used (`mcp_replay::rules::REFERENCE_ADAPTER`: run ids, cursor
//! nonces, the `instance` UUID, a `*.run.start` answer's start-up state, a tool result's copy of
//! its `structuredContent`, JSON carried as text), numbered over the whole side. Everything else
//! (native session ids, UUIDs, timestamps and durations inside native events) is replayed
//! verbatim by fake-claude or fake-cursor-agent, so it is compared as it is.

use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_replay::pacer::Pacer;
use mcp_replay::player::{self, Numbering, RunOptions, RunOutcome, Side, Timing};
use mcp_replay::rules::{REFERENCE_ADAPTER, RuleSet};
use serde_json::Value;

use super::acp;
use super::native::{self, starts_run};
use super::recording::{Body, Recording, Row, Tail};
use crate::support::client::base_env;
use crate::support::{adapter_bin, fake_claude_bin};

/// After a native exit row, how long the adapter gets to settle the run before the next client
/// message (the maker waits the same).
pub const SETTLE_GRACE: Duration = Duration::from_millis(500);
/// Bound on any one wait of the replay, and on the adapter's exit after stdin EOF (shared, slow
/// machine; only to avoid hangs).
const WAIT_BOUND: Duration = Duration::from_secs(60);
/// The bound of the pacer's waits once one ran out (the replay has failed by then; the rest
/// should fail quickly with the whole diff).
const SHORT_BOUND: Duration = Duration::from_secs(2);
/// The adapter's stdout lines are read whole up to this (its answers are bounded far below).
const MAX_LINE_BYTES: usize = 64 << 20;
/// The configuration directory the adapter looks in (none: a developer's own tree must not
/// change what the replay sees), as `support::Adapter` sets it.
const NO_CONFIG: &str = "/nonexistent/cmk-tests-config";

/// Replays `rec` against a fresh adapter; panics only when the replay cannot start.
pub fn replay(rec: &Recording) -> RunOutcome {
    let name = rec
        .path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = tempfile::tempdir().expect("temp dir");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).expect("home");
    let record_path = tmp.path().join("replay.jsonl");
    let is_acp = acp::is_acp(rec);

    let mut env = base_env();
    env.push(("HOME".into(), home.into_os_string()));
    env.push(("XDG_CONFIG_HOME".into(), NO_CONFIG.into()));
    let (mut args, native): (Vec<OsString>, NativeSide) = if is_acp {
        let path = tmp.path().join("agent-run.jsonl");
        env.push((acp::ENV_REPLAY.into(), path.clone().into()));
        env.push(("FAKE_CURSOR_MAX_LIFETIME_S".into(), "300".into()));
        (
            acp::adapter_args(&acp::fake_cursor_agent_bin()),
            NativeSide::Agent {
                runs: acp::agent_runs(rec),
                path,
            },
        )
    } else {
        let runs = native::native_runs(rec);
        let scenario_path = tmp.path().join("native-run.json");
        let code_path = tmp.path().join("exit-code-on-sigterm");
        let claude = native_program(&runs, tmp.path(), &code_path);
        env.push(("FAKE_CLAUDE_SCENARIO".into(), scenario_path.clone().into()));
        // A hang of the replayed native side never outlives the test run for long.
        env.push(("FAKE_CLAUDE_MAX_LIFETIME_S".into(), "300".into()));
        (
            vec!["--claude".into(), claude.into_os_string()],
            NativeSide::Claude {
                runs,
                name,
                scenario_path,
                code_path,
            },
        )
    };
    if let Some(extra) = rec.meta.get("adapter_args").and_then(Value::as_array) {
        args.extend(extra.iter().filter_map(Value::as_str).map(OsString::from));
    }
    let mut command = vec![adapter_bin().as_os_str().to_owned()];
    command.extend(args);
    command.push("--record".into());
    command.push(record_path.clone().into_os_string());

    let opts = RunOptions {
        command,
        rules: Arc::new(
            RuleSet::builtin_only(REFERENCE_ADAPTER).expect("the built-in rules parse"),
        ),
        wait: WAIT_BOUND,
        timing: Timing::Causal,
        side: Side::WIRE,
        max_line_bytes: MAX_LINE_BYTES,
        env: Some(env),
        exit_grace: WAIT_BOUND,
        numbering: Numbering::WholeSide,
    };
    let mut pacer = AdapterPacer {
        tail: Tail::new(&record_path),
        native,
        gave_up: false,
        exits_before: 0,
        exits_settled: 0,
    };
    let outcome = player::run_with(rec, &opts, &mut pacer)
        .unwrap_or_else(|e| panic!("replay of {}: {e}", rec.path.display()));
    check_output_schemas(rec, &outcome);
    outcome
}

/// What plays the native side of a replay.
enum NativeSide {
    /// fake-claude, one scenario per recorded native run ([`native`]).
    Claude {
        runs: Vec<native::NativeRun>,
        name: String,
        scenario_path: PathBuf,
        code_path: PathBuf,
    },
    /// fake-cursor-agent replaying the recorded agent runs ([`acp`]).
    Agent {
        runs: Vec<Vec<Value>>,
        path: PathBuf,
    },
}

/// The adapter's part of the pacing and of the transcripts.
struct AdapterPacer {
    /// The replayed adapter's `--record` file.
    tail: Tail,
    native: NativeSide,
    /// A wait ran out: the replay has failed, later waits are short.
    gave_up: bool,
    /// Native exit rows the recording shows before the message about to be sent.
    exits_before: usize,
    /// Native exit rows the adapter has been given [`SETTLE_GRACE`] for.
    exits_settled: usize,
}

/// What the recording shows the adapter had done before a client message.
#[derive(Debug, Default)]
struct Before {
    /// Native output rows read.
    native: usize,
    /// ACP lines exchanged with the agent (`c2a` and `a2c` rows).
    wire: usize,
    /// Native runs that had exited.
    exits: usize,
    /// Whether agent lines came after the last of those exits (a run still going).
    live_wire: bool,
}

impl Before {
    fn of(rows: &[Row]) -> Self {
        let mut b = Self::default();
        for row in rows {
            if row.is_agent_wire() {
                b.wire += 1;
                b.live_wire = true;
            }
            if row.dir == "n2a" {
                if row.is_native_output() {
                    b.native += 1;
                }
                if row.is_exit() {
                    b.exits += 1;
                    b.live_wire = false;
                }
            }
        }
        b
    }
}

impl Pacer for AdapterPacer {
    fn wait(&mut self, before: &[Row], bound: Duration) -> Vec<String> {
        let want = Before::of(before);
        self.exits_before = want.exits;
        let bound = if self.gave_up { SHORT_BOUND } else { bound };
        let deadline = Instant::now() + bound;
        loop {
            self.tail.poll();
            let tail = &self.tail;
            // Agent lines stop with their run's exit: lines still missing once the run they
            // belong to has ended in the replay will never come (a replayed agent that ended
            // early), so waiting on is pointless; the diff shows what is missing.
            let lines_may_come =
                tail.exits() < want.exits || (tail.exits() == want.exits && want.live_wire);
            let short = tail.native_output() < want.native
                || (tail.agent_wire() < want.wire && lines_may_come);
            if !short {
                return Vec::new();
            }
            if Instant::now() >= deadline {
                self.gave_up = true;
                return vec![format!(
                    "gave up after {bound:?} waiting for native rows ({} of {} read) and agent \
                     lines ({} of {})",
                    tail.native_output(),
                    want.native,
                    tail.agent_wire(),
                    want.wire
                )];
            }
            // The file is written by another process: read it again shortly.
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn before_send(&mut self, row: &Row) {
        if self.exits_before > self.exits_settled {
            std::thread::sleep(SETTLE_GRACE);
            self.exits_settled = self.exits_before;
        }
        let Body::Msg(m) = &row.body else { return };
        if !starts_run(m) {
            return;
        }
        // Runs never overlap in a recording: the next run is the one after those that have
        // exited so far.
        let k = self.tail.exits();
        match &self.native {
            NativeSide::Agent { runs, path } => {
                acp::publish(path, runs.get(k).map_or(&[][..], Vec::as_slice));
            }
            NativeSide::Claude {
                runs,
                name,
                scenario_path,
                code_path,
            } => {
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
        }
    }

    fn side_rows(&mut self, recorded: &[Row]) -> (Vec<Row>, Vec<Row>) {
        self.tail.poll();
        (side(recorded), side(&self.tail.rows))
    }
}

/// The native output and agent rows, which both transcripts show.
fn side(rows: &[Row]) -> Vec<Row> {
    rows.iter()
        .filter(|r| r.is_native_output() || r.is_agent_wire())
        .cloned()
        .collect()
}

/// TOOL-6: every replayed `tools/call` answer (real CLI streams included) conforms to its tool's
/// outputSchema.
fn check_output_schemas(rec: &Recording, outcome: &RunOutcome) {
    let answers: Vec<&Value> = outcome
        .rows
        .iter()
        .filter(|r| r["dir"] == "s2c")
        .map(|r| &r["msg"])
        .filter(|m| m.get("method").is_none())
        .collect();
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
        if let Some(result) = answers
            .iter()
            .find(|m| m.get("id") == Some(id))
            .and_then(|r| r.get("result"))
            && let Err(e) = crate::support::outputs::check(tool, result)
        {
            panic!("replay of {}: {e}", rec.path.display());
        }
    }
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
