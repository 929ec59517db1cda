//! The MCP protocol surface over stdio (T1..T9, TOOL, META): framing, lifecycle, dispatch, the
//! seven tools and the work resource, on top of [`cmk_engine::Engine`].
//!
//! # Layout
//!
//! One file per method or concern, one dispatch table (`dispatch`):
//! [`transport`] (stdin frames, the stdout writer), `dispatch` (gate, classification, batches),
//! `initialize`, `ping`, `tools_list`, `tools_call`, `resources`, `cancelled`,
//! `progress`, [`catalogue`] (the tool table and schemas), `arguments` (validation),
//! `tool_result` (result shaping) and `errors` (every JSON-RPC error this server sends).
//!
//! # Behaviour choices
//!
//! Where MCP or JSON-RPC leave room, this server does the following (the project's
//! `docs/contract.md` restates these):
//!
//! - **Framing (T1, T6).** One JSON value per line; one trailing `\r` is stripped; blank lines
//!   (only whitespace) are ignored. A line over `--max-frame-bytes` is dropped as it streams in
//!   (never held whole) and answered `-32600` with `id: null`. Invalid UTF-8 is `-32700`. A frame
//!   whose JSON tree would cost more than three times the bound is `-32600` with `id: null`
//!   before anything is built ([`mcp_wire::cost`], C-T6a). A last line cut by EOF is still
//!   handled, then the server shuts down.
//! - **Before `initialize` (T3).** `ping` is answered; known methods are `-32600` "not
//!   initialized"; unknown methods are `-32601` (hosts probe `server/discover` first and fall back
//!   on `-32601`); notifications are ignored. The server counts as initialized once it has
//!   answered `initialize`; it does not wait for `notifications/initialized`.
//! - **A second `initialize`** is `-32600` "already initialized" and changes nothing: the
//!   version negotiated first (which also decides batch handling) holds for the connection.
//! - **Negotiation (T2).** `2024-11-05`, `2025-03-26` and `2025-06-18` are echoed; any other
//!   proposal (a newer or older date, a number, `null`, absent) is answered `2025-06-18`.
//!   `params` that are not an object are `-32602`.
//! - **Batches (T5).** Only after `2025-03-26` was negotiated: answered as one array in request
//!   order; notifications and stray responses get no entry; an invalid element gets its own
//!   `-32600` entry; `initialize` inside a batch is a `-32600` entry; a batch of notifications
//!   only gets no answer at all; `[]` is a single `-32600` with `id: null`. Under the other
//!   versions, and before `initialize`, any batch is one `-32600` with `id: null`. A batch holding
//!   a waiting `claude.run` is answered when that run settles; a cancelled element (T7) gets no
//!   entry. Bounds: a batch of more than `dispatch::MAX_BATCH_ELEMENTS` elements is one
//!   `-32600` with `id: null` and none of it runs; once a batch's answers reach
//!   `dispatch::BATCH_ANSWER_BYTES`, its later requests are not executed and are answered
//!   `-32603` with their ids.
//! - **Responses from the client** (this server sends no requests) are ignored.
//! - **`tools/call` params.** Not an object, no string `name`, an unknown tool (names match the
//!   configured projection only), `arguments` or `_meta` present but not an object: `-32602`,
//!   since MCP's schema types `arguments` as an object. `arguments` absent or `null` is `{}`.
//!   Everything about the arguments' content is an `isError` result with `invalid_arguments`
//!   and `field` = JSON Pointer into `arguments` (TOOL-3); for an unknown property it names that
//!   property. A malformed `_meta["io.github.computer-mcp/work-invocation"]` is
//!   `invalid_arguments` with `field` = `/_meta/io.github.computer-mcp~1work-invocation`
//!   (relative to `params`, since it is not an argument).
//! - **Tool schemas.** `prompt`, `cwd`, `timeout_s` (1 to `--max-timeout-s`) and
//!   `detach_after_s` belong to this layer; every native option (`permission_mode`, `model`, …)
//!   is offered with the value rule the pinned cli-tree declares (NAT-1), so listing, validation
//!   and argv agree. String bounds of argv strings are enforced in UTF-8 bytes as well as in
//!   characters, and NUL is refused. Integral floats (`5.0`) are accepted for integers, as JSON
//!   Schema does.
//! - **Tool results (TOOL-4).** The one text block is the compact JSON of the `structuredContent`
//!   object (`{"result": …}`) with a run's `final` reduced to its scalar members (TOOL-8).
//! - **Pagination.** `tools/list` and `resources/list` return everything on one page; this server
//!   never issues a cursor, so any `cursor` is `-32602` "unknown cursor".
//! - **Resources.** An unknown URI in `resources/read` is MCP's resource-not-found `-32002` with
//!   `data: {"uri": …}`; META-WORK-5's refusal is `-32000` with `data: {"unbound_runs",
//!   "last_revision"}`.
//! - **Cancellation (T7).** Only in-flight `claude.run` calls can be cancelled (every other
//!   request is answered before the next frame is read). The run is cancelled through the engine
//!   and the call gets no response; unknown or finished request ids are ignored.
//! - **Progress (T9).** With a string or integer `_meta.progressToken`, a `claude.run` call gets
//!   `notifications/progress` whose `progress` is the run's native event count, at most four a
//!   second, never after its response; `message` is added from `2025-03-26` on.
//! - **Flow control.** Messages are encoded when queued and at most
//!   `transport::OUTBOX_BYTES` wait for stdout; with `MAX_DEFERRED` deferred answers
//!   outstanding no further frame is read. A host that does not read its stdin therefore stops
//!   the server instead of growing it.
//! - **Shutdown (T8).** stdin EOF, SIGTERM, SIGINT, or stdout closing by the host (also while
//!   idle, from `POLLERR`/`POLLHUP`, C-T8): stop reading,
//!   cancel every run and await its cleanup ([`Engine::shutdown`], bounded by
//!   `SHUTDOWN_BOUND`), let answers of calls that settled go out, flush, exit 0. A second
//!   SIGTERM/SIGINT during that ends the process at once with 128 + the signal number (the
//!   supervisors still kill their groups when the adapter is gone, SUP-2).

#![warn(unreachable_pub)]

pub mod alloc;
mod arguments;
mod cancelled;
pub mod catalogue;
pub mod config;
mod dispatch;
mod errors;
mod inflight;
mod initialize;
pub mod output_schema;
mod ping;
mod progress;
mod resources;
pub mod server;
mod tool_result;
mod tools_call;
mod tools_list;
pub mod transport;

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use tokio::signal::unix::{SignalKind, signal};
use tokio::task::JoinSet;

use self::catalogue::Catalogue;
use self::server::Server;
use self::transport::Frame;
use crate::config::ServeArgs;
use cmk_engine::provider::Provider;
use cmk_engine::record::{RecordError, Recorder};
use cmk_engine::{Engine, EngineConfig, Hooks};
use cmk_native::cli_tree::CliTreeError;

/// Upper bound on [`Engine::shutdown`] (T8): a safety net a little above the engine's own bound
/// ([`cmk_engine::SHUTDOWN_WAIT`]).
pub(crate) const SHUTDOWN_BOUND: Duration =
    cmk_engine::SHUTDOWN_WAIT.saturating_add(Duration::from_secs(5));
/// How long answers of calls settled by the shutdown get to go out.
const ANSWER_GRACE: Duration = Duration::from_secs(2);
/// How long the last answers get to be written to stdout.
const FLUSH_GRACE: Duration = Duration::from_secs(2);
/// How long the last diagnostics get to reach stderr (a host may not read it at all).
const DIAG_GRACE: Duration = Duration::from_millis(500);
/// Deferred answers (waiting `claude.run` calls and batches) outstanding at most: at this many,
/// no frame is read until one is sent. At most four runs are active (RUN-8), so the rest wait on
/// a host that does not read its stdout, and every new call would add an answer held in memory.
pub(crate) const MAX_DEFERRED: usize = 16;

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum ServeError {
    /// `--record FILE` could not be created.
    #[error("cannot create the recording {path}: {source}{hint}")]
    Record {
        /// The file.
        path: String,
        /// Why.
        source: RecordError,
        /// What to do about it.
        hint: &'static str,
    },
    /// The cli-tree could not be read, parsed or validated (NAT-1).
    #[error("cannot load the cli tree: {0}")]
    CliTree(#[from] CliTreeError),
    /// A tool schema does not compile.
    #[error(transparent)]
    Catalogue(#[from] catalogue::CatalogueError),
    /// A stdio thread or signal handler could not be set up.
    #[error("cannot set up stdio: {0}")]
    Io(#[from] std::io::Error),
}

/// What the engine tells the server: with no run retained there is no native process either, so
/// the spare supervisor ends (C-SUP-2) and freed memory goes back (`alloc`); at shutdown the spare
/// ends too.
#[must_use]
pub fn hooks() -> Hooks {
    Hooks::default()
        .on_idle(|| {
            cmk_supervisor::retire_spare();
            alloc::trim_idle();
        })
        .on_shutdown(cmk_supervisor::retire_spare)
}

/// Why the server loop ended.
#[derive(Debug, Clone, Copy)]
enum Stop {
    Eof,
    OutputClosed,
    Signal,
}

/// Builds the providers to serve from the server's arguments (the binary's registration table;
/// this crate names no provider). A protocol provider may tee its wire into the recorder.
pub trait Registry:
    FnOnce(&ServeArgs, Option<&Recorder>) -> Result<Vec<Arc<dyn Provider>>, CliTreeError>
{
}

impl<F> Registry for F where
    F: FnOnce(&ServeArgs, Option<&Recorder>) -> Result<Vec<Arc<dyn Provider>>, CliTreeError>
{
}

/// Serves MCP on stdin/stdout until EOF or a signal (T8), with the providers `registry` builds.
/// Exit 0 after a clean shutdown, 2 when the server could not start.
pub async fn serve(args: ServeArgs, registry: impl Registry) -> ExitCode {
    match run(args, registry).await {
        Ok(code) => code,
        Err(e) => {
            cmk_engine::diag::now(&format!("claude-mcp-adapter: {e}"));
            ExitCode::from(2)
        }
    }
}

async fn run(args: ServeArgs, registry: impl Registry) -> Result<ExitCode, ServeError> {
    let recorder = match &args.record {
        None => None,
        Some(p) => Some(
            Recorder::create(p, args.record_overwrite).map_err(|source| ServeError::Record {
                path: p.display().to_string(),
                hint: match source {
                    RecordError::Exists => "; pass --record-overwrite to replace it",
                    RecordError::Symlink | RecordError::NotPlain => {
                        "; name a new file (a link is never written through)"
                    }
                    _ => "",
                },
                source,
            })?,
        ),
    };
    let providers = registry(&args, recorder.as_ref())?;
    let catalogue = Arc::new(Catalogue::new(
        args.tool_names,
        args.max_timeout_s,
        &providers,
    )?);
    let engine = Engine::new(
        EngineConfig {
            max_timeout_s: args.max_timeout_s,
            recorder: recorder.clone(),
            tool_names: args.tool_names,
            hooks: hooks(),
        },
        providers,
    );
    // A long-lived server: a spare supervisor is kept ready for the next run (C-SUP-2).
    cmk_supervisor::keep_spares();
    let mut sigterm = signal(SignalKind::terminate())?;
    let mut sigint = signal(SignalKind::interrupt())?;
    // The spare is started once everything queued is written, so it never delays an answer.
    let (out, mut stdout_closed) =
        transport::spawn_writer(recorder.clone(), cmk_supervisor::refill_spare)?;
    let mut frames = transport::spawn_reader(args.max_frame_bytes)?;

    let mut server = Server {
        engine: engine.clone(),
        catalogue,
        out,
        version: None,
        inflight: inflight::InflightCalls::default(),
        max_frame_bytes: args.max_frame_bytes,
        recorder,
        tasks: JoinSet::new(),
    };

    let stop = loop {
        tokio::select! {
            // Flow control: deferred answers stuck behind a host that does not read are bounded.
            frame = frames.recv(), if server.tasks.len() < MAX_DEFERRED => {
                let handled = match frame {
                    Some(Frame::Line(line)) => {
                        // A handler may wait on a full outbox (a host not reading): signals
                        // still get through.
                        tokio::select! {
                            () = server.on_line(&line) => None,
                            _ = sigterm.recv() => Some(Stop::Signal),
                            _ = sigint.recv() => Some(Stop::Signal),
                        }
                    }
                    Some(Frame::Oversized { len }) => {
                        tokio::select! {
                            () = server.on_oversized(len) => None,
                            _ = sigterm.recv() => Some(Stop::Signal),
                            _ = sigint.recv() => Some(Stop::Signal),
                        }
                    }
                    Some(Frame::Closed) | None => Some(Stop::Eof),
                };
                if let Some(stop) = handled {
                    break stop;
                }
            }
            _ = sigterm.recv() => break Stop::Signal,
            _ = sigint.recv() => break Stop::Signal,
            _ = &mut stdout_closed => break Stop::OutputClosed,
            Some(done) = server.tasks.join_next(), if !server.tasks.is_empty() => {
                if let Err(e) = done
                    && e.is_panic()
                {
                    cmk_engine::diag::emit(format!(
                        "claude-mcp-adapter: a tool call task panicked: {e}"
                    ));
                }
            }
        }
    };
    // Stop reading: the reader thread ends at its next frame.
    drop(frames);
    cmk_engine::diag::emit(format!("claude-mcp-adapter: shutting down ({stop:?})"));

    let graceful = async {
        if tokio::time::timeout(SHUTDOWN_BOUND, engine.shutdown())
            .await
            .is_err()
        {
            cmk_engine::diag::emit(format!(
                "claude-mcp-adapter: run cleanup did not finish within {SHUTDOWN_BOUND:?}"
            ));
        }
        let _ = tokio::time::timeout(ANSWER_GRACE, async {
            while server.tasks.join_next().await.is_some() {}
        })
        .await;
        server.tasks.abort_all();
        let _ = tokio::time::timeout(FLUSH_GRACE, server.out.flush()).await;
    };
    let forced = tokio::select! {
        () = graceful => None,
        _ = sigterm.recv() => Some(nix::sys::signal::Signal::SIGTERM),
        _ = sigint.recv() => Some(nix::sys::signal::Signal::SIGINT),
    };
    Ok(match forced {
        None => {
            cmk_engine::diag::flush(DIAG_GRACE);
            ExitCode::SUCCESS
        }
        Some(sig) => {
            cmk_engine::diag::emit(
                "claude-mcp-adapter: second signal during shutdown, exiting now",
            );
            cmk_engine::diag::flush(DIAG_GRACE);
            ExitCode::from(128 + sig as u8)
        }
    })
}
