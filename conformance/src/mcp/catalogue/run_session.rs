//! A run-lifecycle session with a provider (`--drive-fake`): the [`Runs`] helper the run,
//! cancellation and work-metadata cases share. It opens a fresh server with a marker unique to
//! the case in its environment, finds tools by role, and reads, polls and cleans up runs.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::families;
use super::support::{call_tool, ensure, show, str_at, tool_answer};
use crate::core::client::Client;
use crate::core::model::Check;
use crate::mcp::ctx::Ctx;
use crate::mcp::roles::Role;
/// How often settled-ness is polled.
const POLL: Duration = Duration::from_millis(50);
/// States of a run that has not settled (RUN-10).
pub const ACTIVE_STATES: [&str; 4] = ["pending", "starting", "running", "settling"];

/// The environment variable that carries a case's marker to the server and its runs.
pub const MARKER_VAR: &str = "MCP_CONFORMANCE_RUN_MARKER";

/// The work-invocation key of META-WORK-4.
pub const INVOCATION_KEY: &str = "io.github.computer-mcp/work-invocation";

/// A session with a provider, its tools found by role.
pub struct Runs {
    /// The connection.
    pub c: Client,
    ctx: Ctx,
    /// A marker unique to this case's runs, in every prompt: it reaches the native argv and
    /// lets [`Runs::survivors`] find what a run left behind.
    marker: String,
}

impl Runs {
    /// Starts a fresh server (fake-claude on its PATH) and completes the handshake.
    pub async fn open(ctx: &Ctx) -> Result<Self, Check> {
        ctx.require_fake()?;
        let marker = format!("mcp-conformance-run-{}", uuid::Uuid::new_v4().simple());
        // The marker also rides in the server's environment, which its native processes
        // inherit: an ACP agent gets its prompt on stdin, not in its argv.
        let mut ctx = ctx.clone();
        ctx.server_env
            .push((MARKER_VAR.into(), marker.clone().into()));
        Ok(Self {
            c: ctx.session().await?,
            ctx,
            marker,
        })
    }

    /// The prompt that selects `scenario` in the fake of the case's family (fake-claude's
    /// scenario names; [`families::scenario`] maps them for the other fake).
    #[must_use]
    pub fn prompt(&self, scenario: &str) -> String {
        format!(
            "{}\nmcp-conformance case {} {}",
            families::selector(self.ctx.fake_kind(), scenario),
            self.ctx.case_id,
            self.marker
        )
    }

    /// Fails when a process of this case's runs is still alive a short while after the
    /// provider confirmed its cleanup (SUP-1, SUP-3): `cleanup_confirmed` is the provider's
    /// word, `/proc` is the truth. Descendants that left with `setsid` are not counted (SUP-4).
    pub async fn no_survivors(&self, rule: &str) -> Result<(), Check> {
        let Some(exe) = self.ctx.fake_exe() else {
            // Without the fake's path the run's processes cannot be told apart: nothing to add.
            return Ok(());
        };
        // Reaping may trail the confirmation by a moment; a real leak outlives this.
        let until = Instant::now() + Duration::from_secs(2).min(self.c.remaining());
        loop {
            let live = crate::core::process::live_with_marker(self.marker.as_bytes(), exe);
            if live.is_empty() {
                return Ok(());
            }
            if Instant::now() >= until {
                return Err(Check::fail(
                    format!("no process of the run left once cleanup is confirmed ({rule})"),
                    format!("still running: pid {live:?}"),
                ));
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// Waits until a native process of this case's runs is alive (the provider has taken a run
    /// request and started its run), at most `within`; whether one was seen. `/proc` gives no
    /// event for a process that is not the runner's child, so it is looked at every few
    /// milliseconds; without the fake's path nothing can be seen and the whole `within` is waited.
    pub async fn native_started(&self, within: Duration) -> bool {
        let until = Instant::now() + within.min(self.c.remaining());
        let Some(exe) = self.ctx.fake_exe() else {
            tokio::time::sleep_until(until.into()).await;
            return false;
        };
        loop {
            if !crate::core::process::live_with_marker(self.marker.as_bytes(), exe).is_empty() {
                return true;
            }
            if Instant::now() >= until {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Calls the tool of `role`: `(isError, structuredContent.result, whole answer)`.
    pub async fn call(
        &mut self,
        role: Role,
        args: Value,
        meta: Option<Value>,
    ) -> Result<(bool, Value, Value), Check> {
        let name = self.ctx.role(role)?;
        let answer = call_tool(&mut self.c, &name, args, meta).await?;
        let (is_error, inner, _) = tool_answer(
            &answer,
            &name,
            self.ctx.watch.output_schema(&name).as_deref(),
        )?;
        Ok((is_error, inner, answer))
    }

    /// `claude.run` of `scenario` with extra arguments merged in.
    pub async fn run(
        &mut self,
        scenario: &str,
        extra: Value,
    ) -> Result<(bool, Value, Value), Check> {
        let args = merge(
            json!({"prompt": self.prompt(scenario), "timeout_s": 30}),
            extra,
        );
        self.call(Role::Run, args, None).await
    }

    /// `claude.run.start` of `scenario`; returns the run id.
    pub async fn start(&mut self, scenario: &str, meta: Option<Value>) -> Result<String, Check> {
        let args = json!({"prompt": self.prompt(scenario), "timeout_s": 30});
        let (is_error, inner, answer) = self.call(Role::Start, args, meta).await?;
        match str_at(&inner, "run_id") {
            Some(id) if !is_error => Ok(id.to_owned()),
            _ => Err(Check::fail(
                "a started run {run_id, state} (RUN-2)",
                show(&answer),
            )),
        }
    }

    /// `claude.run.result`.
    pub async fn result(&mut self, run_id: &str) -> Result<(bool, Value, Value), Check> {
        self.call(Role::Result, json!({"run_id": run_id}), None)
            .await
    }

    /// Polls `.result` until `completed` (or the case deadline).
    pub async fn settled(&mut self, run_id: &str) -> Result<Value, Check> {
        loop {
            let (_, inner, answer) = self.result(run_id).await?;
            if inner.get("completed") == Some(&json!(true)) {
                return Ok(inner);
            }
            if self.c.remaining() < POLL * 2 {
                return Err(Check::fail(
                    "the run to settle (completed: true)",
                    show(&answer),
                ));
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// Polls `.result` until `cleanup_confirmed` is true, or the deadline.
    pub async fn cleaned(&mut self, run_id: &str) -> Result<Value, Check> {
        loop {
            let inner = self.settled(run_id).await?;
            if inner.get("cleanup_confirmed") == Some(&json!(true)) {
                return Ok(inner);
            }
            if self.c.remaining() < POLL * 2 {
                return Err(Check::fail("cleanup_confirmed: true (SUP-3)", show(&inner)));
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// Polls until the run's state is not `pending`/`starting` (it is executing or done).
    pub async fn running(&mut self, run_id: &str) -> Result<(), Check> {
        let until = Instant::now() + Duration::from_secs(10).min(self.c.remaining());
        loop {
            let (_, inner, _) = self.result(run_id).await?;
            let state = str_at(&inner, "state").unwrap_or("");
            if !matches!(state, "pending" | "starting") || Instant::now() >= until {
                return Ok(());
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// `claude.run.cancel`.
    pub async fn cancel(&mut self, run_id: &str) -> Result<(bool, Value, Value), Check> {
        self.call(Role::Cancel, json!({"run_id": run_id}), None)
            .await
    }

    /// `claude.run.release`.
    pub async fn release(&mut self, run_id: &str) -> Result<(bool, Value, Value), Check> {
        self.call(Role::Release, json!({"run_id": run_id}), None)
            .await
    }

    /// `claude.run.list`: the retained runs.
    pub async fn list(&mut self) -> Result<Vec<Value>, Check> {
        let (_, inner, answer) = self.call(Role::List, json!({}), None).await?;
        inner
            .get("runs")
            .and_then(Value::as_array)
            .cloned()
            .ok_or_else(|| Check::fail("a list result {runs: [...]} (RUN-3)", show(&answer)))
    }

    /// `claude.run.events`.
    pub async fn events(
        &mut self,
        run_id: &str,
        cursor: Option<&str>,
        limit: u64,
    ) -> Result<Value, Check> {
        let mut args = json!({"run_id": run_id, "limit": limit});
        if let (Some(c), Some(o)) = (cursor, args.as_object_mut()) {
            o.insert("cursor".into(), json!(c));
        }
        let (is_error, inner, answer) = self.call(Role::Events, args, None).await?;
        ensure(
            !is_error && inner.get("events").is_some_and(Value::is_array),
            "an events page (RUN-5)",
            show(&answer),
        )?;
        Ok(inner)
    }
}

fn merge(mut base: Value, extra: Value) -> Value {
    if let (Some(b), Value::Object(e)) = (base.as_object_mut(), extra) {
        b.extend(e);
    }
    base
}
