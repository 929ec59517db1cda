//! Makes a golden recording (`BLESS=1`): runs a session script against the adapter with
//! `--record`, its native side being fake-claude playing a built-in scenario or the real claude
//! 2.1.328 against the local Messages API stand-in, or (`--provider cursor`) fake-cursor-agent
//! playing a built-in scenario over ACP, then writes `recordings/NAME.jsonl` with a
//! `meta` header row saying what it shows and how it was made.
//!
//! Scripts wait the way the replay paces ([`super::player`]): a call waits for its answer (and
//! for that answer's row in the recording, so the recorded order is the causal order),
//! `WaitNative(n)` until the adapter has read n native rows, `WaitProgress` until a progress
//! notification came, `WaitExit(k)` until k native runs have exited plus the same settle grace. `$RUN` and `$CURSOR` in arguments stand for the last
//! run id and `next_cursor` the adapter answered.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use super::pacer::SETTLE_GRACE;
use super::recording::Tail;
use super::sessions::{Definition, Native, Step};
use crate::support::client::{Client, base_env};
use crate::support::fake_claude_bin;

/// How long one call of a script may take (real runs included).
const CALL_BOUND: Duration = Duration::from_secs(120);

/// The one command that remakes every recording (also in the meta rows and the README).
/// `-p fake-claude -p fake-cursor-agent` make cargo build both fakes the sessions run (their own
/// `it` binaries run their `replay::` tests too, which `BLESS` does not touch).
pub const REMAKE: &str = "BLESS=1 cargo test -p fake-claude -p fake-cursor-agent -p claude-mcp-adapter --test it -- replay::";

/// The directory of the golden recordings.
#[must_use]
pub fn recordings_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("recordings")
}

/// Runs `def`'s session and writes its golden recording.
pub fn make(def: &Definition) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let record = tmp.path().join("session.jsonl");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).expect("home");

    // Kept alive until the session ends: the stand-in and the real CLI's temporary HOME.
    let mut _standin = None;
    let mut _claude_cmd = None;
    let mut provider_args: Option<Vec<OsString>> = None;
    let (program, mut env, native_meta) = match &def.native {
        Native::Cursor { scenario } => {
            let agent = super::acp::fake_cursor_agent_bin();
            provider_args = Some(super::acp::adapter_args(&agent));
            let mut env = base_env();
            env.push(("HOME".into(), home.clone().into()));
            env.push(("FAKE_CURSOR_SCENARIO".into(), (*scenario).into()));
            (
                agent,
                env,
                json!({"kind": super::acp::KIND, "scenario": scenario}),
            )
        }
        Native::RealAcp { agent } => {
            let base_url = agent.standin().map(|scenario| {
                let standin = testkit::standin::Standin::start(scenario)
                    .expect("start the Messages API stand-in");
                let url = standin.base_url();
                _standin = Some(standin);
                url
            });
            let shim = super::acp::real_agent_shim(tmp.path(), *agent, base_url.as_deref(), &home);
            provider_args = Some(super::acp::adapter_args(&shim));
            let mut env = base_env();
            env.push(("HOME".into(), home.clone().into()));
            (
                shim,
                env,
                json!({
                    "kind": super::acp::REAL_KIND,
                    "agent": agent.describe(),
                    "shim": "answers --version with the pinned cursor-agent line (NAT-2), \
                             otherwise execs the agent; the wire is the real agent's",
                }),
            )
        }
        Native::Fake { scenario } => {
            let mut env = base_env();
            env.push(("HOME".into(), home.clone().into()));
            env.push(("FAKE_CLAUDE_SCENARIO".into(), (*scenario).into()));
            (
                fake_claude_bin(),
                env,
                json!({"kind": "fake-claude", "scenario": scenario}),
            )
        }
        Native::Real { account } => {
            let claude = crate::real_claude::claude_for_bless();
            let cmd = if *account {
                let standin = testkit::standin::Standin::start(testkit::standin::Scenario::Text)
                    .expect("start the Messages API stand-in");
                let cmd = testkit::claude::ClaudeCommand::for_standin(&claude, &standin.base_url())
                    .expect("temporary HOME");
                _standin = Some(standin);
                cmd
            } else {
                testkit::claude::ClaudeCommand::not_logged_in(&claude).expect("temporary HOME")
            };
            let env = cmd.environment();
            _claude_cmd = Some(cmd);
            let standin = if *account {
                json!(
                    "testkit::standin::Standin, default scenario `text`; the prompt's \
                       `standin:scenario=NAME` marker picks another"
                )
            } else {
                json!(null)
            };
            (
                claude,
                env,
                json!({
                    "kind": "claude",
                    "version": testkit::prereq::CLAUDE_VERSION_LINE,
                    "messages_api": standin,
                    "env": "testkit::claude::ClaudeCommand (temporary HOME, dummy key, quiet \
                            offline variables, CLAUDE_CODE_MAX_RETRIES=1)",
                }),
            )
        }
    };
    for (k, v) in def.env {
        env.push(((*k).into(), (*v).into()));
    }
    let mut args: Vec<OsString> =
        provider_args.unwrap_or_else(|| vec!["--claude".into(), program.into_os_string()]);
    args.extend(def.adapter_args.iter().map(OsString::from));

    let mut client = Client::spawn(&args, &env, Some(&record));
    let mut tail = Tail::new(&record);
    let mut last_run: Option<String> = None;
    let mut last_cursor: Option<String> = None;
    for step in (def.steps)() {
        match step {
            Step::Init => {
                client.init();
            }
            Step::Tool { name, args, meta } => {
                let args = fill(&args, last_run.as_deref(), last_cursor.as_deref());
                let mut params = json!({"name": name, "arguments": args});
                if let Some(m) = meta {
                    params["_meta"] = m;
                }
                let resp = client.call("tools/call", Some(params), CALL_BOUND);
                recorded_answer(&mut tail, &resp);
                let s = &resp["result"]["structuredContent"]["result"];
                if let Some(r) = s.get("run_id").and_then(Value::as_str) {
                    last_run = Some(r.to_owned());
                }
                if let Some(c) = s.get("next_cursor").and_then(Value::as_str) {
                    last_cursor = Some(c.to_owned());
                }
            }
            Step::Request { method, params } => {
                let resp = client.call(method, params, CALL_BOUND);
                recorded_answer(&mut tail, &resp);
            }
            Step::Send {
                id,
                name,
                args,
                meta,
            } => {
                let mut params = json!({"name": name, "arguments": args});
                if let Some(m) = meta {
                    params["_meta"] = m;
                }
                client.send(&json!({
                    "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params
                }));
            }
            Step::Notify { method, params } => client.notify(method, Some(params)),
            Step::WaitNative(n) => wait(&mut tail, &format!("{n} native rows"), |t| {
                t.native_output() >= n
            }),
            Step::WaitAgent(n) => wait(&mut tail, &format!("{n} agent lines"), |t| {
                t.agent_wire() >= n
            }),
            Step::WaitProgress => {
                let deadline = Instant::now() + CALL_BOUND;
                while !client
                    .received
                    .iter()
                    .any(|m| m["method"] == "notifications/progress")
                {
                    assert!(
                        Instant::now() < deadline,
                        "no progress notification within {CALL_BOUND:?}"
                    );
                    client.pump(Duration::from_millis(20));
                }
            }
            Step::WaitExit(k) => {
                wait(&mut tail, &format!("{k} native exits"), |t| t.exits() >= k);
                std::thread::sleep(SETTLE_GRACE);
            }
        }
    }
    client.close_stdin();
    let status = client.wait_exit(Duration::from_secs(60));
    assert!(
        status.is_some_and(|s| s.success()),
        "the adapter did not exit 0 after stdin EOF ({status:?}); stderr:\n{}",
        client.stderr_text()
    );
    drop(client);

    let rows =
        super::canonical::canonical(&std::fs::read_to_string(&record).expect("read the recording"));
    let mut meta = Map::new();
    meta.insert("dir".into(), "meta".into());
    meta.insert("ms".into(), 0.into());
    meta.insert("recording".into(), def.name.into());
    meta.insert("shows".into(), def.about.into());
    meta.insert("native".into(), native_meta);
    if !def.env.is_empty() {
        let extra: Map<String, Value> = def
            .env
            .iter()
            .map(|(k, v)| ((*k).to_owned(), Value::from(*v)))
            .collect();
        meta.insert("adapter_env".into(), Value::Object(extra));
    }
    if !def.adapter_args.is_empty() {
        meta.insert("adapter_args".into(), json!(def.adapter_args));
    }
    let script = match def.native {
        Native::Cursor { .. } | Native::RealAcp { .. } => "acp_sessions.rs",
        Native::Fake { .. } | Native::Real { .. } => "sessions.rs",
    };
    meta.insert(
        "made_by".into(),
        format!(
            "adapter/tests/it/replay/{script} (the script) through claude-mcp-adapter --record"
        )
        .into(),
    );
    meta.insert("remake".into(), REMAKE.into());
    let mut text = Value::Object(meta).to_string();
    text.push('\n');
    text.push_str(&rows);
    let out = recordings_dir().join(format!("{}.jsonl", def.name));
    std::fs::write(&out, text).unwrap_or_else(|e| panic!("write {}: {e}", out.display()));
}

/// Waits until the adapter's recording holds the answer the client just received. The recorder
/// writes an answer's row only after writing it to stdout, so without this wait the client's
/// next message could be recorded before the answer it reacted to, and the replay (which paces on
/// the recorded order) would send it too early.
fn recorded_answer(tail: &mut Tail, resp: &Value) {
    let id = resp.get("id").cloned().unwrap_or(Value::Null);
    wait(tail, &format!("the recorded answer to {id}"), |t| {
        t.rows.iter().any(|r| {
            r.dir == "s2c"
                && r.msg()
                    .is_some_and(|m| m.get("method").is_none() && m.get("id") == Some(&id))
        })
    });
}

fn wait(tail: &mut Tail, what: &str, done: impl Fn(&Tail) -> bool) {
    let deadline = Instant::now() + CALL_BOUND;
    loop {
        tail.poll();
        if done(tail) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the session never reached {what} within {CALL_BOUND:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `$RUN` / `$CURSOR` in string values → the last run id / cursor answered.
fn fill(v: &Value, run: Option<&str>, cursor: Option<&str>) -> Value {
    match v {
        Value::String(s) if s == "$RUN" => {
            Value::String(run.expect("a run id was answered before `$RUN`").to_owned())
        }
        Value::String(s) if s == "$CURSOR" => Value::String(
            cursor
                .expect("a cursor was answered before `$CURSOR`")
                .to_owned(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(|x| fill(x, run, cursor)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| (k.clone(), fill(x, run, cursor)))
                .collect(),
        ),
        other => other.clone(),
    }
}
