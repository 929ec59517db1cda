//! Lifecycle and version negotiation (MCP basic/lifecycle; contract T1, T2, T3, T8).

use std::time::Duration;

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::{Value, json};

use super::support::{LATE_GRACE, SILENCE, ensure, result_of, show, str_at};
use crate::core::case::case;
use crate::core::client::{Client, ClientError, Frame, error_code};
use crate::core::model::{Check, CheckResult, Level};
use crate::mcp::ctx::Ctx;
use crate::mcp::discovery::{DEFAULT_VERSION, init_params};
use crate::mcp::gate::Case;
use crate::mcp::profile::{Levels, Profile};

/// The date T2 answers for any proposal it does not support.
pub const FALLBACK_VERSION: &str = "2025-06-18";
/// How long a server may take to exit after stdin EOF (T8: cleanup is bounded).
pub const EOF_EXIT_WAIT: Duration = Duration::from_secs(5);
/// How long a server may take to exit after SIGTERM (T8; C-T8: an idle server has no run to
/// cancel, so its bounded cleanup is short).
pub const SIGTERM_EXIT_WAIT: Duration = Duration::from_secs(5);

/// The cases of this section.
pub const CASES: &[Case] = &[
    case!("lifecycle/server-discover/probe",
        "T3 (\"real hosts probe server/discover first and fall back on -32601\": the kit's rule; no MCP revision the runner negotiates defines server/discover)",
        Levels::KIT_ONLY, Server,
        "A `server/discover` probe as real hosts send first is answered -32601 (outside provider, a discover result also passes), and initialize still works",
        server_discover[]),
    case!("lifecycle/initialize/result-shape", "MCP basic/lifecycle", Levels::all(Level::Must), Discovery,
        "The initialize result has protocolVersion, capabilities and serverInfo {name, version}",
        result_shape[]),
    case!(
        "lifecycle/initialize/version/2024-11-05",
        "T2",
        Levels::all(Level::Must),
        Server,
        "A proposal of 2024-11-05 is answered with the same date (another supported date is info outside provider)",
        supported_version["2024-11-05"]
    ),
    case!(
        "lifecycle/initialize/version/2025-03-26",
        "T2",
        Levels::all(Level::Must),
        Server,
        "A proposal of 2025-03-26 is answered with the same date (another supported date is info outside provider)",
        supported_version["2025-03-26"]
    ),
    case!(
        "lifecycle/initialize/version/2025-06-18",
        "T2",
        Levels::all(Level::Must),
        Server,
        "A proposal of 2025-06-18 is answered with the same date (another supported date is info outside provider)",
        supported_version["2025-06-18"]
    ),
    case!(
        "lifecycle/initialize/unsupported-proposal",
        "T2",
        Levels::all(Level::Must),
        Server,
        "An unsupported future date (2099-01-01) is never echoed back; a provider answers 2025-06-18",
        unsupported_version[Some("2099-01-01")]
    ),
    case!(
        "lifecycle/initialize/older-proposal",
        "T2",
        Levels::all(Level::Must),
        Server,
        "An older date no MCP revision or draft ever used (2000-01-01) is never echoed back; a provider answers 2025-06-18",
        unsupported_version[Some("2000-01-01")]
    ),
    case!(
        "lifecycle/initialize/newer-proposal",
        "T2",
        Levels::PROVIDER_ONLY,
        Server,
        "A newer date the contract does not list (2025-11-25) is answered 2025-06-18",
        unsupported_version[Some("2025-11-25")]
    ),
    case!(
        "lifecycle/initialize/malformed-proposal",
        "T2",
        Levels::all(Level::Must),
        Server,
        "A malformed protocolVersion is never echoed back; a provider answers 2025-06-18",
        unsupported_version[Some("not-a-date")]
    ),
    case!(
        "lifecycle/initialize/missing-proposal",
        "T2 (\"Any other proposal (… missing) is answered with a supported date\": the kit's rule; MCP's initialize requires protocolVersion and says nothing of a request without one)",
        Levels::KIT_ONLY,
        Server,
        "An initialize without protocolVersion gets a supported date (a provider: 2025-06-18) or -32602",
        unsupported_version[None]
    ),
    case!("lifecycle/ping/before-initialize", "T3", Levels::CONTRACT_MUST, Server,
        "ping is answered with an empty result before initialize",
        ping_before_init[]),
    case!("lifecycle/ping/after-initialize", "MCP basic/utilities/ping", Levels::all(Level::Must), Server,
        "ping is answered with an empty result",
        ping_after_init[]),
    case!("lifecycle/request-before-initialize", "T3", Levels::CONTRACT_INFO, Server,
        "A request other than ping before initialize is answered -32600 (not initialized)",
        request_before_init[]),
    case!("lifecycle/initialized/no-early-requests",
        "MCP basic/lifecycle, initialization: \"The server SHOULD NOT send requests other than pings and logging before receiving the initialized notification\"",
        Levels::all(Level::Should), Server,
        "Between its initialize answer and notifications/initialized (held back 500 ms) the server sends no request but ping",
        no_early_requests[]),
    case!("lifecycle/stdout/protocol-only", "T1", Levels::all(Level::Must), Crosscut,
        "stdout carries only JSON-RPC messages, one per line, on every exchange of every case",
        stdout_protocol_only[]),
    case!("lifecycle/shutdown/stdin-eof", "T8", Levels::CONTRACT_MUST, Server,
        "After stdin EOF the server exits on its own within 5 s (a provider with status 0)",
        stdin_eof[]; exclusive true),
    case!("lifecycle/shutdown/sigterm", "T8", Levels::CONTRACT_MUST, Server,
        "After SIGTERM to the server's process (not its group) the server exits within 5 s (a provider with status 0)",
        sigterm[]; exclusive true),
];

fn is_date(v: &str) -> bool {
    let b = v.as_bytes();
    b.len() == 10
        && b.iter().enumerate().all(|(i, c)| {
            if i == 4 || i == 7 {
                *c == b'-'
            } else {
                c.is_ascii_digit()
            }
        })
}

async fn server_discover(ctx: Ctx) -> CheckResult {
    let mut c = ctx.spawn()?;
    // The probe exactly as Claude Code 2.1.328 sends it (reference/hosts/).
    let id = json!("server-discover-probe-1");
    let params = json!({"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "mcp-conformance", "version": env!("CARGO_PKG_VERSION")},
        "io.modelcontextprotocol/clientCapabilities": {}
    }});
    c.send(&mcp_wire::request(&id, "server/discover", Some(params)))
        .await?;
    let answer = match c.response_to(&id, "server/discover").await {
        Ok(answer) => answer,
        Err(
            silent @ ClientError::Timeout {
                foreign_id: false, ..
            },
        ) => after_silence(&ctx, &mut c, &id, silent).await?,
        Err(e) => return Err(e.into()),
    };
    if answer.get("result").is_some_and(Value::is_object) {
        // T3 lists the provider's methods: anything else, server/discover included, is -32601.
        // A provider answering it would make a host speak a revision the contract lacks.
        ensure(
            ctx.profile != Profile::Provider,
            "error -32601 (T3: server/discover is not a method of the contract)",
            show(&answer),
        )?;
        // The server speaks the stateless revision; a host would not send initialize now.
        return Ok(Check::Pass);
    }
    ensure(
        error_code(&answer) == Some(mcp_wire::code::METHOD_NOT_FOUND),
        "error -32601 (hosts fall back to initialize on it) or a discover result",
        show(&answer),
    )?;
    let init = c
        .request("initialize", Some(init_params(Some(DEFAULT_VERSION))))
        .await?;
    result_of(&init, "initialize after the server/discover probe")?;
    Ok(Check::Pass)
}

/// The probe is a fresh server's first request, so its silence is either the server's (it
/// dropped the probe) or its start's (on a loaded machine it has not read its stdin yet;
/// GATE-LOAD-1 scaled the window with the start-up discovery measured, which another instance
/// may outlast). A ping sent after it, waited for off the case's clock as a handshake is, tells
/// them apart: stdin is ordered, so a ping answer proves the probe was read first. Then the
/// probe's own answer, if it came meanwhile, is graded, and its absence is the server's; with
/// no answer to the ping either, the server never started in time: the runner's `error`,
/// retried alone (GATE-LOAD-3), never a verdict about the probe.
async fn after_silence(
    ctx: &Ctx,
    c: &mut Client,
    probe: &Value,
    silent: ClientError,
) -> Result<Value, Check> {
    let alive = json!("server-discover-probe-alive");
    c.send(&mcp_wire::request(&alive, "ping", None)).await?;
    let waited = ctx
        .scope
        .off_the_clock(c.response_to(&alive, "a ping sent after the server/discover probe"))
        .await;
    match waited {
        Ok(_) => {
            // The silent window was the start's too, not the case's: the rest of the case
            // (initialize after the probe) gets it back.
            if let ClientError::Timeout { ms, .. } = &silent {
                ctx.scope.extend(Duration::from_millis(*ms));
            }
            c.response_within(probe, "server/discover", LATE_GRACE)
                .await
                .map_err(|_| silent.into())
        }
        Err(ClientError::Timeout {
            foreign_id: false,
            ms,
            ..
        }) => {
            ctx.scope.mark_timed_out();
            Err(Check::Error(format!(
                "the server answered nothing, neither the server/discover probe nor a ping \
                 sent after it ({ms} ms more): it had not started in time, though the \
                 discovery session's server did (a loaded machine: raise --timeout-ms or \
                 lower --jobs)"
            )))
        }
        Err(e) => Err(e.into()),
    }
}

async fn no_early_requests(ctx: Ctx) -> CheckResult {
    let (mut c, init) = ctx.initialized(init_params(Some(DEFAULT_VERSION))).await?;
    result_of(&init, "initialize")?;
    // The runner holds notifications/initialized back (C-T3: the gate does not wait for it
    // either way) and reads what the server sends meanwhile. The runner answers each request
    // at once (the client's reply to server requests), so no server waits on it.
    let early: Vec<String> = c
        .collect(SILENCE)
        .await?
        .iter()
        .filter_map(Frame::json)
        .filter(|m| {
            m.get("id").is_some_and(|id| !id.is_null())
                && m.get("method")
                    .and_then(Value::as_str)
                    .is_some_and(|method| method != "ping")
        })
        .map(show)
        .collect();
    ensure(
        early.is_empty(),
        "no request but ping before notifications/initialized (MCP basic/lifecycle: logging is \
         notifications, never a request)",
        early.join(" | "),
    )?;
    c.notify("notifications/initialized", None).await?;
    Ok(Check::Pass)
}

async fn result_shape(ctx: Ctx) -> CheckResult {
    let init = &ctx.discovery.init;
    let version_ok = str_at(init, "protocolVersion").is_some_and(is_date);
    let caps_ok = init.get("capabilities").is_some_and(Value::is_object);
    let info = init.get("serverInfo");
    let info_ok =
        info.is_some_and(|i| str_at(i, "name").is_some() && str_at(i, "version").is_some());
    ensure(
        version_ok && caps_ok && info_ok,
        "protocolVersion (YYYY-MM-DD), capabilities {…}, serverInfo {name, version}",
        show(init),
    )?;
    Ok(Check::Pass)
}

async fn supported_version(ctx: Ctx, version: &'static str) -> CheckResult {
    let (_c, answer) = ctx.initialized(init_params(Some(version))).await?;
    let result = result_of(&answer, "initialize")?;
    let got = str_at(result, "protocolVersion").unwrap_or("");
    if got == version {
        return Ok(Check::Pass);
    }
    let expected = format!("protocolVersion {version:?}");
    let actual = format!("protocolVersion {got:?}");
    let graded = if ctx.profile != Profile::Provider && is_date(got) {
        // MCP lets a server answer another version it supports; only the contract (T2) pins it.
        Check::note(
            expected,
            format!("{actual} (the server does not support {version})"),
        )
    } else {
        Check::fail(expected, actual)
    };
    // A date no revision defines is no version the server supports.
    super::revisions::undefined_revision(version, got, graded.clone())?;
    if graded.is_fail() {
        return Err(graded);
    }
    Ok(graded)
}

async fn unsupported_version(ctx: Ctx, proposal: Option<&'static str>) -> CheckResult {
    let (_c, answer) = ctx.initialized(init_params(proposal)).await?;
    let provider = ctx.profile == Profile::Provider;
    if let Some(err) = answer.get("error") {
        // Rejecting a malformed or missing proposal as bad params is MCP-legal; T2 wants a date.
        let bad_params = error_code(&answer) == Some(mcp_wire::code::INVALID_PARAMS);
        let lenient = lenient_proposal(proposal);
        if !provider && bad_params && lenient {
            return Ok(Check::Pass);
        }
        let expected = if provider {
            format!("a result with protocolVersion {FALLBACK_VERSION:?} (T2)")
        } else if lenient {
            "a result with a protocolVersion the server supports (never the proposal), or error \
             -32602 (MCP basic/lifecycle)"
                .to_owned()
        } else {
            "a result with a protocolVersion the server supports, never the proposal echoed back \
             (MCP basic/lifecycle: version negotiation)"
                .to_owned()
        };
        return Err(Check::fail(expected, format!("error {}", show(err))));
    }
    let result = result_of(&answer, "initialize")?;
    let got = str_at(result, "protocolVersion").unwrap_or("");
    let shown = format!("protocolVersion {got:?}");
    if provider {
        ensure(
            got == FALLBACK_VERSION,
            format!("protocolVersion {FALLBACK_VERSION:?}"),
            shown,
        )?;
    } else {
        ensure(
            Some(got) != proposal && is_date(got),
            if lenient_proposal(proposal) {
                "another protocolVersion the server supports (never the proposal echoed back), \
                 or error -32602 (MCP basic/lifecycle)"
            } else {
                "another protocolVersion the server supports (never the proposal echoed back; \
                 MCP basic/lifecycle)"
            },
            shown,
        )?;
    }
    Ok(Check::Pass)
}

/// Proposals that may also be rejected with -32602 outside the provider profile.
fn lenient_proposal(proposal: Option<&str>) -> bool {
    matches!(proposal, None | Some("not-a-date"))
}

async fn ping_before_init(ctx: Ctx) -> CheckResult {
    let (_c, answer) = ctx.first_answer("ping", Value::Null).await?;
    super::support::well_formed(&answer, "ping")?;
    // MCP basic/utilities/ping: the receiver MUST respond with an empty response, before
    // initialize as after it.
    ensure(
        answer.get("result") == Some(&json!({})),
        "result {} before initialize",
        show(&answer),
    )?;
    Ok(Check::Pass)
}

async fn ping_after_init(ctx: Ctx) -> CheckResult {
    let mut c = ctx.session().await?;
    let answer = c.request("ping", None).await?;
    super::support::well_formed(&answer, "ping")?;
    ensure(
        answer.get("result") == Some(&json!({})),
        "result {}",
        show(&answer),
    )?;
    Ok(Check::Pass)
}

async fn request_before_init(ctx: Ctx) -> CheckResult {
    let (_c, answer) = ctx.first_answer("tools/list", Value::Null).await?;
    ensure(
        error_code(&answer) == Some(mcp_wire::code::INVALID_REQUEST),
        "error -32600 (not initialized)",
        show(&answer),
    )?;
    Ok(Check::Pass)
}

async fn stdout_protocol_only(ctx: Ctx) -> CheckResult {
    // Every line of every case's servers and of the discovery session: a JSON line that is no
    // JSON-RPC message (a log record, a response without "jsonrpc" or without an error
    // message) breaks T1 as surely as a text banner, or a log line written on each tools/call
    // (MCP 2025-06-18 basic/transports: "The server MUST NOT write anything to its stdout that
    // is not a valid MCP message").
    super::support::grade_rule(
        &ctx,
        crate::mcp::watch::Rule::Stdout,
        "only JSON-RPC 2.0 messages on stdout, one per line (T1; MCP basic/transports)",
        "no stdout line was read",
    )
}

async fn stdin_eof(ctx: Ctx) -> CheckResult {
    let mut c = ctx.session().await?;
    let answer = c.request("ping", None).await?;
    result_of(&answer, "ping")?;
    c.close_stdin();
    expect_shutdown(&ctx, c, EOF_EXIT_WAIT, "stdin EOF").await
}

async fn sigterm(ctx: Ctx) -> CheckResult {
    let mut c = ctx.session().await?;
    let answer = c.request("ping", None).await?;
    result_of(&answer, "ping")?;
    // The process the runner started, not its group: a wrapper or gateway must pass the
    // shutdown on to what it started itself (T8); the runner's group kill is only the backstop.
    let pid = c.pid();
    if pid <= 1 {
        return Err(Check::fail(
            "a server process to signal",
            format!("pid {pid}"),
        ));
    }
    c.transcript().note(&format!("SIGTERM to pid {pid}"));
    if let Err(e) = kill(Pid::from_raw(pid), Signal::SIGTERM) {
        return Err(Check::fail(
            "the server process alive to receive SIGTERM",
            format!("kill: {e}"),
        ));
    }
    expect_shutdown(&ctx, c, SIGTERM_EXIT_WAIT, "SIGTERM").await
}

/// T8: after `cause` the server exits within `wait`. Outside provider any exit counts (SIGTERM's
/// default action, death by the signal, is an ordinary exit); T8 and C-T8 make a provider's
/// shutdown clean, with status 0.
async fn expect_shutdown(ctx: &Ctx, mut c: Client, wait: Duration, cause: &str) -> CheckResult {
    // A machine slow enough to delay the server's start delays its exit as much: the bound grows
    // by the start the server was seen to take, so the verdict does not depend on load.
    let wait = wait + c.start_latency();
    let Some(status) = c.wait_exit(wait).await else {
        return Err(Check::fail(
            format!("an exit within {} s of {cause}", wait.as_secs()),
            "still running",
        ));
    };
    // Drain what is left so the transcript shows it.
    let rest = c.collect(Duration::from_millis(50)).await?;
    let _: Vec<Frame> = rest;
    if ctx.profile == Profile::Provider {
        ensure(
            status.code() == Some(0),
            format!("exit status 0 after {cause} (T8: runs cancelled, cleanup awaited, exit 0)"),
            format!("the server {}", crate::core::client::describe_exit(status)),
        )?;
    } else if cause == "SIGTERM" {
        // SIGTERM's default action, a clean exit, or a shell's 128 + 15 all end the server as
        // asked; a panic (status 101), an abort or another signal is the server dying of its
        // own error while shutting down: reported (T8 asks for a clean exit).
        use std::os::unix::process::ExitStatusExt as _;
        let clean =
            matches!(status.code(), Some(0 | 143)) || status.signal() == Some(libc::SIGTERM);
        ensure(
            clean,
            "an exit by SIGTERM's default action or with status 0 (T8: a clean shutdown)",
            format!(
                "the server {} after SIGTERM: it died of its own error while shutting down",
                crate::core::client::describe_exit(status)
            ),
        )?;
    }
    Ok(Check::Pass)
}
