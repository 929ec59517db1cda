//! A local stand-in of the Anthropic Messages API, good enough to drive the real `claude`
//! 2.1.328 with no account (`ANTHROPIC_BASE_URL=http://127.0.0.1:PORT`, any dummy key).
//!
//! It serves on 127.0.0.1 and an ephemeral port from a thread of its own (so sync and async tests
//! can use it alike), answers each request by its own content (see [`Scenario`]), records every
//! request ([`RecordedRequest`]), and stops when dropped: open streams are cut and the thread is
//! joined.
//!
//! ```no_run
//! use testkit::standin::{Scenario, Standin};
//! let standin = Standin::start(Scenario::Text)?;
//! println!("ANTHROPIC_BASE_URL={}", standin.base_url());
//! # Ok::<(), testkit::standin::StandinError>(())
//! ```

mod mcp_calls;
mod record;
mod reply;
mod scenario;
mod server;

use std::fs::{File, OpenOptions};
use std::net::{SocketAddr, TcpListener as StdListener};
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::sync::oneshot;
use tokio::task::JoinSet;

pub use mcp_calls::{McpCall, RUN_ID_PLACEHOLDER, find_run_id, newest_tool_result_text};
pub use record::{RECORDED_HEADERS, RecordedRequest, RequestKind, StreamOutcome};
pub use scenario::{
    ApiError, DEFAULT_TEXT, DEFAULT_WRITE_COMMAND, READ_ONLY_COMMAND, SCENARIO_MARKER,
    STRUCTURED_INPUT, STRUCTURED_INVALID_INPUT, Scenario, ScenarioSettings, UnknownScenario,
};

use server::Shared;

/// Pause after a failed `accept` (e.g. out of descriptors) so the loop never spins.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// Why the stand-in could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StandinError {
    /// Binding 127.0.0.1 failed.
    #[error("cannot bind the stand-in to 127.0.0.1:{port}: {source}")]
    Bind {
        /// Port asked for (0 for ephemeral).
        port: u16,
        /// The OS error.
        source: std::io::Error,
    },
    /// The runtime or the server thread could not be created.
    #[error("cannot start the stand-in's server thread: {0}")]
    Runtime(std::io::Error),
    /// The request log file could not be opened.
    #[error("cannot open the stand-in's request log {path}: {source}")]
    LogFile {
        /// The file asked for.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

/// Settings of a stand-in before it starts.
#[derive(Debug, Clone)]
pub struct StandinBuilder {
    scenario: Scenario,
    settings: ScenarioSettings,
    port: u16,
    log_file: Option<PathBuf>,
}

impl StandinBuilder {
    /// The scenario used when a prompt carries no marker.
    pub fn scenario(mut self, scenario: Scenario) -> Self {
        self.scenario = scenario;
        self
    }

    /// The assistant text of text replies (default [`DEFAULT_TEXT`]).
    pub fn text(mut self, text: impl Into<String>) -> Self {
        self.settings.text = text.into();
        self
    }

    /// The Bash command of the `tool` and `tool-loop` scenarios.
    pub fn bash_command(mut self, command: impl Into<String>) -> Self {
        self.settings.bash_command = command.into();
        self
    }

    /// Delay before each event and number of text deltas of the `slow` scenario.
    pub fn slow(mut self, delay: Duration, pieces: usize) -> Self {
        self.settings.slow_delay = delay;
        self.settings.slow_pieces = pieces;
        self
    }

    /// Appends a call to the script of the `mcp-calls` scenario (see [`McpCall`]).
    pub fn mcp_call(mut self, call: McpCall) -> Self {
        self.settings.mcp_calls.push(call);
        self
    }

    /// Whether streams carry a `ping` event after `message_start` (default yes, as the API).
    pub fn ping(mut self, ping: bool) -> Self {
        self.settings.ping = ping;
        self
    }

    /// A fixed port instead of an ephemeral one (for the `messages-standin` binary).
    pub fn port(mut self, port: u16) -> Self {
        self.port = port;
        self
    }

    /// Also appends every finished request, as one JSON line, to this file.
    pub fn log_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.log_file = Some(path.into());
        self
    }

    /// Binds 127.0.0.1 and starts serving.
    pub fn start(self) -> Result<Standin, StandinError> {
        let listener = StdListener::bind(("127.0.0.1", self.port))
            .and_then(|l| l.set_nonblocking(true).map(|()| l))
            .map_err(|source| StandinError::Bind {
                port: self.port,
                source,
            })?;
        let addr = listener.local_addr().map_err(StandinError::Runtime)?;
        let log_file = self
            .log_file
            .map(|path| open_log(&path).map_err(|source| StandinError::LogFile { path, source }))
            .transpose()?;
        let shared = Arc::new(Shared {
            default_scenario: self.scenario,
            settings: self.settings,
            log: Mutex::new(Vec::new()),
            changed: Condvar::new(),
            log_file: log_file.map(Mutex::new),
        });
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(StandinError::Runtime)?;
        let (stop_tx, stop_rx) = oneshot::channel();
        let serving = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name(format!("messages-standin-{}", addr.port()))
            .spawn(move || runtime.block_on(serve(listener, serving, stop_rx)))
            .map_err(StandinError::Runtime)?;
        Ok(Standin {
            addr,
            shared,
            stop: Some(stop_tx),
            thread: Some(thread),
        })
    }
}

fn open_log(path: &std::path::Path) -> std::io::Result<File> {
    OpenOptions::new().create(true).append(true).open(path)
}

/// A running stand-in. Dropping it stops the server.
pub struct Standin {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Standin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Standin")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl Standin {
    /// A builder with scenario `text` and default settings.
    pub fn builder() -> StandinBuilder {
        StandinBuilder {
            scenario: Scenario::Text,
            settings: ScenarioSettings::default(),
            port: 0,
            log_file: None,
        }
    }

    /// Starts a stand-in whose default scenario is `scenario`.
    pub fn start(scenario: Scenario) -> Result<Standin, StandinError> {
        Standin::builder().scenario(scenario).start()
    }

    /// The bound port.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// `http://127.0.0.1:PORT`, the value for `ANTHROPIC_BASE_URL`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// A snapshot of every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.lock_log().clone()
    }

    /// The `POST /v1/messages` requests received so far.
    pub fn messages_requests(&self) -> Vec<RecordedRequest> {
        self.requests()
            .into_iter()
            .filter(|r| r.kind == RequestKind::Messages)
            .collect()
    }

    /// Blocks until `done(log)` holds or `timeout` passes; returns whether it held. Meant for
    /// sync tests (an async test calls it from `spawn_blocking`).
    pub fn wait_for(
        &self,
        timeout: Duration,
        mut done: impl FnMut(&[RecordedRequest]) -> bool,
    ) -> bool {
        let deadline = Instant::now() + timeout;
        let mut log = self.shared.lock_log();
        loop {
            if done(&log) {
                return true;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            log = match self.shared.changed.wait_timeout(log, left) {
                Ok((guard, _)) => guard,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }
}

impl Drop for Standin {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            // The server may already be gone; nothing to do then.
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            // A panic in the server thread was already reported on stderr.
            let _ = thread.join();
        }
    }
}

/// Accepts connections until told to stop, then cuts the open ones (slow streams included).
async fn serve(listener: StdListener, shared: Arc<Shared>, mut stop: oneshot::Receiver<()>) {
    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
        return;
    };
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            _ = &mut stop => break,
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else {
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                    continue;
                };
                let shared = Arc::clone(&shared);
                connections.spawn(async move {
                    let service = service_fn(move |req| server::handle(Arc::clone(&shared), req));
                    // A client that goes away mid-answer is an ordinary event here.
                    let _ = http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    connections.abort_all();
    while connections.join_next().await.is_some() {}
}
