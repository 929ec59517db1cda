//! A tiny re-exporting MCP proxy for the runner's own tests: it starts an upstream stdio server
//! and passes messages through both ways, line by line, with bounded frames (T6).
//!
//! - `--gateway` makes it a gateway as META-CONN-1 describes: the tools it lists keep their risk
//!   but lose the connection-local work and continuation declarations; the work resource (the
//!   upstream connection's snapshot, META-WORK-2) is not re-exported; a host's work-invocation in
//!   `tools/call` `_meta` is not passed on (it binds work on the host's connection, not on the
//!   gateway's). `--prefix P` also renames every tool `P<name>`, as gateways do; `--hex-names`
//!   renames every tool to an opaque `x<hex of the name>`, so no name suffix gives a role away.
//! - `--mutate NAME` breaks exactly one rule and passes everything else through untouched, so
//!   the runner's cases can be shown to catch each deviation precisely (tests/it/mutants.rs).
//! - `--strip-output-schemas` lists tools without their (optional) `outputSchema`, so a dropped
//!   result field is graded by the case that reads it, as for a server that declares no schema.
//!
//! Containment: the upstream stays in the proxy's process group, so the runner's group kill and
//! its memory sampling (T6) cover the whole chain. When the proxy ends on its own it ends the
//! upstream too: on stdin EOF it closes the upstream's stdin and waits for it (T8: the upstream
//! cancels its runs and exits), on SIGTERM/SIGINT/SIGHUP it forwards SIGTERM; after a bounded
//! grace the upstream is SIGKILLed and reaped before the proxy exits. After SIGTERM or SIGINT
//! the proxy exits 0 when the upstream exited 0 (T8), else with 128 + the signal number.

mod answers;
mod client;
mod listing;
mod mutation;
mod proxy;
mod relay;
mod upstream;

use std::ffi::OsString;
use std::process::{ExitCode, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clap::Parser;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use tokio::io::AsyncWriteExt;
use tokio::process::{Child, Command};
use tokio::signal::unix::{SignalKind, signal};

use crate::mutation::Mutation;
use crate::proxy::{Out, Proxy};
use crate::relay::{client_to_upstream, upstream_to_client, write_line};

/// How long the upstream may take to exit after stdin EOF (T8: it cancels its runs first).
const EOF_WAIT: Duration = Duration::from_secs(20);
/// How long the upstream may take to exit after SIGTERM before SIGKILL.
const TERM_GRACE: Duration = Duration::from_secs(3);
/// How long upstream output is still forwarded after the upstream exited.
const DRAIN: Duration = Duration::from_secs(2);

/// A re-exporting MCP proxy (test support of mcp-conformance).
#[derive(Debug, Parser)]
#[command(name = "mcp_proxy")]
struct Cli {
    /// Re-export as a gateway: strip work and continuation declarations, keep risk (META-CONN-1).
    #[arg(long)]
    gateway: bool,
    /// With --gateway: list every tool as PREFIX<name> (and call it back by that name).
    #[arg(
        long,
        value_name = "PREFIX",
        requires = "gateway",
        conflicts_with = "hex_names"
    )]
    prefix: Option<String>,
    /// With --gateway: list every tool as `x<hex of its name>` (an opaque id; decoded on call).
    #[arg(long, requires = "gateway")]
    hex_names: bool,
    /// Break exactly one rule on purpose.
    #[arg(long, value_enum, value_name = "NAME")]
    mutate: Option<Mutation>,
    /// List tools without their outputSchema (no rule broken: it is optional). With a mutation
    /// that drops a result field, the case that reads the field grades it, as it must for a
    /// server that declares no schema.
    #[arg(long)]
    strip_output_schemas: bool,
    /// The upstream server command and its arguments.
    #[arg(last = true, required = true, value_name = "UPSTREAM")]
    upstream: Vec<OsString>,
}

/// Why the proxy is ending.
enum End {
    /// The upstream exited (on its own or after stdin EOF).
    Exited(ExitStatus),
    /// The upstream did not exit within [`EOF_WAIT`] of stdin EOF.
    Stuck,
    /// A termination signal.
    Signal(Signal),
}

/// SIGTERM to the upstream, a grace, then SIGKILL; always reaped. Returns the upstream's status
/// when it exited on its own within the grace.
async fn terminate(child: &mut Child) -> Option<ExitStatus> {
    if let Some(pid) = child.id().and_then(|p| i32::try_from(p).ok()) {
        let _ = kill(Pid::from_raw(pid), Signal::SIGTERM);
    }
    match tokio::time::timeout(TERM_GRACE, child.wait()).await {
        Ok(status) => status.ok(),
        Err(_) => {
            let _ = child.kill().await;
            None
        }
    }
}

async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let Some((program, args)) = cli.upstream.split_first() else {
        anyhow::bail!("no upstream command");
    };
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| anyhow::anyhow!("cannot start {}: {e}", program.to_string_lossy()))?;
    let (Some(up_in), Some(up_out)) = (child.stdin.take(), child.stdout.take()) else {
        anyhow::bail!("the upstream's stdio is not piped");
    };
    let proxy = Arc::new(Proxy {
        gateway: cli.gateway,
        prefix: cli.prefix,
        hex_names: cli.hex_names,
        mutation: cli.mutate,
        strip_output_schemas: cli.strip_output_schemas,
        state: Mutex::default(),
    });
    let out: Out = Arc::new(tokio::sync::Mutex::new(tokio::io::stdout()));
    if proxy.is(Mutation::StdoutBanner) {
        write_line(&out, b"mcp_proxy: ready").await?;
    }
    if proxy.is(Mutation::StdoutJsonLog) {
        write_line(&out, br#"{"level":"info","message":"mcp_proxy ready"}"#).await?;
    }
    let mut c2s = tokio::spawn(client_to_upstream(proxy.clone(), up_in, out.clone()));
    let mut s2c = tokio::spawn(upstream_to_client(proxy.clone(), up_out, out.clone()));
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    let mut hup = signal(SignalKind::hangup())?;
    let mut stdin_closed = false;
    // Armed at stdin EOF; until then far in the future.
    let eof_timer = tokio::time::sleep(Duration::from_secs(365 * 24 * 3600));
    tokio::pin!(eof_timer);
    let end = loop {
        tokio::select! {
            status = child.wait() => break status.map_or(End::Stuck, End::Exited),
            _ = &mut c2s, if !stdin_closed => {
                // T8: the upstream saw EOF too; give it time to cancel its runs and exit.
                stdin_closed = true;
                eof_timer.as_mut().reset(tokio::time::Instant::now() + EOF_WAIT);
            }
            () = &mut eof_timer, if stdin_closed => break End::Stuck,
            _ = term.recv() => break End::Signal(Signal::SIGTERM),
            _ = int.recv() => break End::Signal(Signal::SIGINT),
            _ = hup.recv() => break End::Signal(Signal::SIGHUP),
        }
    };
    let terminated = if matches!(end, End::Exited(_)) {
        None
    } else {
        terminate(&mut child).await
    };
    c2s.abort();
    if tokio::time::timeout(DRAIN, &mut s2c).await.is_err() {
        s2c.abort();
    }
    let _ = out.lock().await.flush().await;
    Ok(match end {
        End::Exited(_) if stdin_closed && proxy.is(Mutation::EofExitNonzero) => ExitCode::from(1),
        End::Exited(status) => ExitCode::from(
            status
                .code()
                .and_then(|c| u8::try_from(c).ok())
                .unwrap_or(1),
        ),
        End::Stuck => ExitCode::from(1),
        End::Signal(Signal::SIGTERM) if proxy.is(Mutation::SigtermExitNonzero) => ExitCode::from(1),
        // T8 / C-T8: SIGTERM or SIGINT is a clean shutdown; an upstream that ended cleanly on
        // the forwarded SIGTERM makes the proxy's exit clean too (status 0).
        End::Signal(Signal::SIGTERM | Signal::SIGINT)
            if terminated.is_some_and(|s| s.success()) =>
        {
            ExitCode::SUCCESS
        }
        End::Signal(sig) => ExitCode::from(u8::try_from(128 + sig as i32).unwrap_or(1)),
    })
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("mcp_proxy: cannot start the runtime: {e}");
            return ExitCode::from(2);
        }
    };
    let code = match runtime.block_on(run(cli)) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("mcp_proxy: {e:#}");
            ExitCode::from(2)
        }
    };
    // tokio's stdin is a blocking read on a pool thread that cannot be cancelled: do not wait
    // for it (the upstream is already reaped).
    runtime.shutdown_background();
    code
}
