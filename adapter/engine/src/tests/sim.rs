//! The scripted in-memory provider the engine's unit tests run against: each prompt names a
//! script (lines on stdout and stderr, delays, exit code, hangs, cleanup verdicts, refusals), and
//! a simulated native process plays it (with, when the test asks, a protocol provider's
//! out-of-band completion that the test sends); plus the small helpers the tests share (an engine over
//! scripts, requests, settling a run).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncWriteExt, DuplexStream};
use tokio::sync::{oneshot, watch};

use crate::native::Cleanup;
use crate::provider::{
    BoxFuture, Checked, Completion, NativeProcess, NativeReader, PreflightError, Provider, RunSpec,
};
use crate::to_json;
use crate::{Engine, EngineConfig, RunRequest, ToolError};
use cmk_supervisor::ExitStatus;

pub(super) const OK_FINAL: &str = r#"{"type":"result","subtype":"success","is_error":false,"session_id":"11111111-2222-4333-8444-555555555555","result":"hi","extra":{"z":1,"a":2}}"#;
pub(super) const INIT: &str =
    r#"{"type":"system","subtype":"init","session_id":"11111111-2222-4333-8444-555555555555"}"#;

#[derive(Debug, Clone)]
pub(super) enum Step {
    Out(Vec<u8>),
    Err(Vec<u8>),
    Sleep(Duration),
}

#[derive(Debug, Clone, Default)]
pub(super) struct Script {
    pub(super) refuse: Option<ToolError>,
    pub(super) spawn_error: Option<ToolError>,
    pub(super) preflight_delay: Duration,
    pub(super) steps: Vec<Step>,
    pub(super) exit_code: i32,
    /// After the steps, wait for a termination.
    pub(super) hang: bool,
    /// Not confirmed cleanup, as reported.
    pub(super) cleanup: Option<Cleanup>,
    /// After a termination the supervisor never reports anything.
    pub(super) silent_after_term: bool,
    /// stdout is never closed (an escaped descendant holds it).
    pub(super) hold_stdout: bool,
    /// The provider panics while spawning (a bug in a provider).
    pub(super) panic_on_spawn: bool,
    /// The version check's own cleanup, when not confirmed (the `Gate` preflight).
    pub(super) preflight_cleanup: Option<Cleanup>,
    /// A protocol provider's out-of-band completion (ACP-6), sent by the test whenever it
    /// chooses: independent of the steps, the exit and the streams.
    pub(super) completion: Option<CompletionRx>,
}

/// The run's end of a simulated completion (see [`completion`]).
#[derive(Debug, Clone, Default)]
pub(super) struct CompletionRx(Arc<Mutex<Option<oneshot::Receiver<Completion>>>>);

/// A completion the test controls: the run's completion resolves with what is sent on the
/// sender, and never if nothing is (a dropped sender included).
pub(super) fn completion() -> (oneshot::Sender<Completion>, CompletionRx) {
    let (tx, rx) = oneshot::channel();
    (tx, CompletionRx(Arc::new(Mutex::new(Some(rx)))))
}

impl CompletionRx {
    /// The completion future, once (the script is cloned per lookup; the first process takes it).
    fn take(&self) -> Option<BoxFuture<'static, Completion>> {
        let rx = self.0.lock().expect("lock").take()?;
        Some(Box::pin(async move {
            match rx.await {
                Ok(c) => c,
                Err(_) => std::future::pending().await,
            }
        }))
    }
}

impl Script {
    pub(super) fn lines(lines: &[&str]) -> Self {
        let mut out = Vec::new();
        for l in lines {
            out.extend_from_slice(l.as_bytes());
            out.push(b'\n');
        }
        Self {
            steps: vec![Step::Out(out)],
            ..Self::default()
        }
    }
}

#[derive(Debug, Default)]
pub(super) struct ScriptProvider {
    pub(super) scripts: Mutex<HashMap<String, Script>>,
    pub(super) spawned: Mutex<Vec<String>>,
    pub(super) held: Arc<Mutex<Vec<DuplexStream>>>,
}

impl ScriptProvider {
    fn script(&self, prompt: &str) -> Script {
        self.scripts
            .lock()
            .expect("lock")
            .get(prompt)
            .cloned()
            .unwrap_or_else(|| Script::lines(&[INIT, OK_FINAL]))
    }
}

// Test-only: the simulated provider speaks claude's dialect, so the engine's rules are exercised
// on the real stream shapes.
impl Provider for ScriptProvider {
    fn namespace(&self) -> &'static str {
        "claude"
    }

    fn texts(&self) -> &dyn crate::provider::Texts {
        &super::dialect::TestTexts
    }

    fn options(&self) -> Vec<crate::provider::OptionDecl> {
        Vec::new()
    }

    fn dialect(&self) -> Arc<dyn crate::provider::Dialect> {
        Arc::new(super::dialect::Lines)
    }

    fn term_grace(&self) -> Duration {
        cmk_supervisor::TERM_GRACE
    }

    fn check(&self, _spec: &RunSpec) -> Result<(), ToolError> {
        Ok(())
    }

    fn preflight(
        &self,
        _deadline: tokio::time::Instant,
    ) -> BoxFuture<'_, Result<Checked, PreflightError>> {
        Box::pin(async { Ok(Checked::new("/sim".into())) })
    }

    fn spawn<'a>(
        &'a self,
        _checked: &'a Checked,
        spec: &'a RunSpec,
    ) -> BoxFuture<'a, Result<Box<dyn NativeProcess>, ToolError>> {
        Box::pin(async move {
            let script = self.script(&spec.prompt);
            if let Some(e) = script.spawn_error.clone() {
                return Err(e);
            }
            assert!(!script.panic_on_spawn, "simulated provider bug");
            self.spawned.lock().expect("lock").push(spec.prompt.clone());
            Ok(Box::new(SimProcess::start(script, self.held.clone())) as Box<dyn NativeProcess>)
        })
    }
}

/// A provider whose preflight follows the script of the prompt (refusal, delay).
#[derive(Debug)]
pub(super) struct Gate(pub(super) ScriptProvider);

impl Provider for Gate {
    fn namespace(&self) -> &'static str {
        self.0.namespace()
    }

    fn texts(&self) -> &dyn crate::provider::Texts {
        self.0.texts()
    }

    fn options(&self) -> Vec<crate::provider::OptionDecl> {
        self.0.options()
    }

    fn dialect(&self) -> Arc<dyn crate::provider::Dialect> {
        self.0.dialect()
    }

    fn term_grace(&self) -> Duration {
        self.0.term_grace()
    }

    fn check(&self, spec: &RunSpec) -> Result<(), ToolError> {
        self.0.check(spec)
    }

    fn preflight(
        &self,
        _deadline: tokio::time::Instant,
    ) -> BoxFuture<'_, Result<Checked, PreflightError>> {
        // The gate applies the script registered under "preflight".
        let s = self.0.script("preflight");
        Box::pin(async move {
            tokio::time::sleep(s.preflight_delay).await;
            let verdict = match s.refuse {
                Some(e) => Err(PreflightError::Refused(e)),
                None => Ok(Checked::new("/sim".into())),
            };
            match s.preflight_cleanup {
                Some(cleanup) => Err(PreflightError::Uncleaned {
                    verdict: Box::new(verdict),
                    cleanup,
                }),
                None => verdict,
            }
        })
    }

    fn spawn<'a>(
        &'a self,
        checked: &'a Checked,
        spec: &'a RunSpec,
    ) -> BoxFuture<'a, Result<Box<dyn NativeProcess>, ToolError>> {
        self.0.spawn(checked, spec)
    }
}

struct SimProcess {
    stdout: Option<DuplexStream>,
    stderr: Option<DuplexStream>,
    term: watch::Sender<bool>,
    exit: watch::Receiver<Option<ExitStatus>>,
    cleanup: Cleanup,
    silent_after_term: bool,
    completion: Option<BoxFuture<'static, Completion>>,
}

impl SimProcess {
    fn start(script: Script, held: Arc<Mutex<Vec<DuplexStream>>>) -> Self {
        let (out_r, mut out_w) = tokio::io::duplex(64 * 1024);
        let (err_r, mut err_w) = tokio::io::duplex(64 * 1024);
        let term = watch::Sender::new(false);
        let (exit_tx, exit_rx) = watch::channel(None);
        let mut term_rx = term.subscribe();
        let s = script.clone();
        tokio::spawn(async move {
            let steps = async {
                for step in &s.steps {
                    match step {
                        Step::Out(b) => {
                            let _ = out_w.write_all(b).await;
                        }
                        Step::Err(b) => {
                            let _ = err_w.write_all(b).await;
                        }
                        Step::Sleep(d) => tokio::time::sleep(*d).await,
                    }
                }
                if s.hang {
                    std::future::pending::<()>().await;
                }
            };
            let terminated = tokio::select! {
                () = steps => false,
                _ = term_rx.wait_for(|t| *t) => true,
            };
            let status = if terminated {
                ExitStatus {
                    code: None,
                    signal: Some(15),
                }
            } else {
                ExitStatus {
                    code: Some(s.exit_code),
                    signal: None,
                }
            };
            if s.hold_stdout {
                held.lock().expect("lock").push(out_w);
            } else {
                drop(out_w);
            }
            drop(err_w);
            if !(terminated && s.silent_after_term) {
                let _ = exit_tx.send(Some(status));
            }
            // Keep the sender alive so exited() stays pending rather than closing.
            std::future::pending::<()>().await;
        });
        Self {
            stdout: Some(out_r),
            stderr: Some(err_r),
            term,
            exit: exit_rx,
            cleanup: script.cleanup.unwrap_or_else(Cleanup::nothing_started),
            silent_after_term: script.silent_after_term,
            completion: script.completion.as_ref().and_then(CompletionRx::take),
        }
    }
}

impl NativeProcess for SimProcess {
    fn take_stdout(&mut self) -> Option<NativeReader> {
        self.stdout.take().map(|r| Box::pin(r) as NativeReader)
    }

    fn take_stderr(&mut self) -> Option<NativeReader> {
        self.stderr.take().map(|r| Box::pin(r) as NativeReader)
    }

    fn take_completion(&mut self) -> Option<BoxFuture<'static, Completion>> {
        self.completion.take()
    }

    fn terminate(&self) {
        self.term.send_replace(true);
    }

    fn exited(&mut self) -> BoxFuture<'_, Option<ExitStatus>> {
        let mut rx = self.exit.clone();
        Box::pin(async move { rx.wait_for(Option::is_some).await.ok().and_then(|v| *v) })
    }

    fn cleanup(&mut self) -> BoxFuture<'_, Cleanup> {
        let c = self.cleanup.clone();
        let silent = self.silent_after_term && *self.term.borrow();
        Box::pin(async move {
            if silent {
                std::future::pending::<()>().await;
            }
            c
        })
    }
}

pub(super) fn engine_with(provider: Arc<dyn Provider>) -> Engine {
    let cfg = EngineConfig {
        max_timeout_s: 1800,
        recorder: None,
        tool_names: crate::ToolNames::Dotted,
        hooks: crate::Hooks::default(),
    };
    Engine::with_provider(cfg, provider)
}

pub(super) fn engine(scripts: Vec<(&str, Script)>) -> (Engine, Arc<ScriptProvider>) {
    let p = Arc::new(ScriptProvider::default());
    for (k, s) in scripts {
        p.scripts.lock().expect("lock").insert(k.into(), s);
    }
    (engine_with(p.clone()), p)
}

pub(super) fn req(prompt: &str) -> RunRequest {
    RunRequest {
        prompt: prompt.into(),
        ..RunRequest::default()
    }
}

pub(super) fn req_t(prompt: &str, timeout_s: u64) -> RunRequest {
    RunRequest {
        prompt: prompt.into(),
        timeout_s: Some(timeout_s),
        ..RunRequest::default()
    }
}

pub(super) const WAIT: Option<Duration> = Some(Duration::from_secs(30));

pub(super) async fn settle(e: &Engine, id: &str) -> Value {
    assert!(
        e.wait_settled(id, WAIT).await.expect("known"),
        "run {id} did not settle"
    );
    to_json(&e.result(id).expect("result"))
}

pub(super) fn code(v: &Value) -> &str {
    v["error"]["code"].as_str().unwrap_or("<none>")
}
