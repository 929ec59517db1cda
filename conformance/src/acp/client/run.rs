//! Runs one case: a fresh client process in its own process group, the scripted agent it
//! launches logging the wire into the case's FIFO, the cancel driver, the per-case timeout, and
//! the end: the client's group and every agent's group are killed and gone before the next case.

use std::process::Stdio;
use std::time::{Duration, Instant};

use mcp_wire::codec::{DecodeEvent, FrameDecoder};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWriteExt as _};

use super::config::{AGENT_ENV, CancelDriver, ClientModeConfig};
use super::launch::{self, CaseDir};
use super::wire::{self, Kind, Wire};
use crate::core::exits::{self, Exits};
use crate::core::process;
use crate::core::transcript::Transcript;

/// Longest wire-log line kept (the agent logs client lines up to 16 MiB, escaped).
const MAX_LOG_LINE: usize = 4 * 1024 * 1024;
/// How much of the client's stdout / stderr is kept for the transcript.
const OUTPUT_TAIL: usize = 2048;

/// What the runner itself saw during a case.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    /// The client could not be started (the case is an error).
    pub spawn_error: Option<String>,
    /// How the client ended, when it did within the case's time (`exit 0`, `signal 9`).
    pub client_exit: Option<String>,
    /// The cancel signal was sent to the client.
    pub cancel_signal_sent: bool,
    /// Agent processes (pid, argv) still running when the runner ended the case: after the
    /// client's exit and the end grace, or at the case timeout.
    pub agents_alive: Vec<(u32, Vec<String>)>,
    /// The tail of the client's stderr.
    pub client_stderr: String,
}

/// A finished case run.
#[derive(Debug)]
pub struct Ran {
    /// The agent-side wire.
    pub wire: Wire,
    /// What the runner saw.
    pub facts: Facts,
    /// The transcript (runner clock).
    pub transcript: Transcript,
    /// Wall time.
    pub duration: Duration,
    /// The case timeout ended it.
    pub timed_out: bool,
    /// This case drives the cancel ([`CancelDriver::Signal`] is sent).
    pub drive_cancel: bool,
}

impl Ran {
    /// A case that started nothing.
    #[must_use]
    pub fn not_run() -> Self {
        Self {
            wire: Wire::default(),
            facts: Facts::default(),
            transcript: Transcript::new(),
            duration: Duration::ZERO,
            timed_out: false,
            drive_cancel: false,
        }
    }
}

/// Runs the client once against `scenario`, recording into `transcript`; with `drive_cancel`
/// the cancel driver acts.
pub async fn run_case(
    cfg: &ClientModeConfig,
    case_id: &str,
    scenario: &str,
    drive_cancel: bool,
    transcript: Transcript,
) -> Ran {
    let started = Instant::now();
    let mut ran = Ran {
        wire: Wire::default(),
        facts: Facts::default(),
        transcript: transcript.clone(),
        duration: Duration::ZERO,
        timed_out: false,
        drive_cancel,
    };
    let base = cfg.work_dir.clone().unwrap_or_else(std::env::temp_dir);
    let dir = match launch::prepare(&base, case_id, scenario, &cfg.agent_program) {
        Ok(d) => d,
        Err(e) => {
            ran.facts.spawn_error = Some(format!("cannot prepare the case folder: {e}"));
            return ran;
        }
    };
    drive(cfg, &dir, &mut ran).await;
    ran.duration = started.elapsed();
    ran
}

async fn drive(cfg: &ClientModeConfig, dir: &CaseDir, ran: &mut Ran) {
    let log = match tokio::net::unix::pipe::OpenOptions::new()
        .read_write(true)
        .open_receiver(&dir.fifo)
    {
        Ok(r) => r,
        Err(e) => {
            ran.facts.spawn_error = Some(format!("cannot open the wire log FIFO: {e}"));
            return;
        }
    };
    let argv = launch::substitute(&cfg.client_command, &dir.agent);
    let Some((program, args)) = argv.split_first() else {
        ran.facts.spawn_error = Some("empty client command".into());
        return;
    };
    let mut cmd = tokio::process::Command::new(program);
    cmd.args(args)
        .env(AGENT_ENV, &dir.agent)
        .current_dir(&dir.path)
        .process_group(0)
        .stdin(if cfg.client_stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // C-SUP-5: the client's group is registered with the lifeline from the child, before it
    // execs, so a runner killed right after the spawn still takes it down.
    let spawned = cmk_lifeline::spawn_registered(
        &mut cmd,
        tokio::process::Command::as_std_mut,
        tokio::process::Command::spawn,
    );
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => {
            ran.facts.spawn_error = Some(format!("cannot start the client {program:?}: {e}"));
            return;
        }
    };
    let client_pid = child.id().and_then(|p| i32::try_from(p).ok()).unwrap_or(0);
    process::register(client_pid);
    ran.transcript.note(&format!(
        "client started (pid {client_pid}): {}",
        argv.join(" ")
    ));
    if let (Some(mut stdin), Some(bytes)) = (child.stdin.take(), cfg.client_stdin.clone()) {
        tokio::spawn(async move {
            let _ = stdin.write_all(&bytes).await;
            // Dropping stdin closes it.
        });
    }
    let out_task = child.stdout.take().map(|s| tokio::spawn(tail(s)));
    let err_task = child.stderr.take().map(|s| tokio::spawn(tail(s)));

    let mut groups: Vec<i32> = Vec::new();
    let deadline = tokio::time::Instant::now() + cfg.case_timeout;
    let mut reader = LogReader::new(log);
    let mut client_done = false;
    let mut end_deadline: Option<tokio::time::Instant> = None;
    // The ends of the agents the client started (they are the client's children, not ours):
    // each is watched from its start line on, and after the client's exit the runner waits
    // for all of them, or for the end grace.
    let mut agents = Exits::default();
    loop {
        tokio::select! {
            lines = reader.next_lines() => {
                for line in lines {
                    on_log_line(cfg, &line, client_pid, ran, &mut groups, &mut agents);
                }
            }
            status = child.wait(), if !client_done => {
                client_done = true;
                let what = match status {
                    Ok(s) => describe_status(s),
                    Err(e) => format!("wait failed: {e}"),
                };
                ran.transcript.note(&format!("client ended: {what}"));
                ran.facts.client_exit = Some(what);
                end_deadline = Some(tokio::time::Instant::now() + cfg.end_grace);
            }
            () = agents.all_gone(), if client_done => {
                // Every agent seen so far has ended; one whose start line is still in the
                // pipe is read before the case ends.
                let lines = reader.drain();
                if lines.is_empty() {
                    break;
                }
                for line in lines {
                    on_log_line(cfg, &line, client_pid, ran, &mut groups, &mut agents);
                }
            }
            () = sleep_until_some(end_deadline) => break,
            () = tokio::time::sleep_until(deadline) => {
                ran.timed_out = true;
                ran.transcript.note(&format!(
                    "case timeout ({} ms): the runner ends the client", cfg.case_timeout.as_millis()
                ));
                break;
            }
        }
    }
    ran.facts.agents_alive = alive_agents(&ran.wire);
    for (pid, _) in &ran.facts.agents_alive {
        ran.transcript.note(&format!(
            "agent pid {pid} still running: the runner kills it"
        ));
    }
    // Containment: the client's group and every agent's group (an agent may have left the
    // client's group, as the adapter's supervisor puts it in its own). An agent whose start
    // is read only in the final drain gets the same treatment in a second round.
    groups.push(client_pid);
    let mut killed: Vec<i32> = Vec::new();
    loop {
        let targets: Vec<i32> = groups
            .iter()
            .copied()
            .filter(|g| !killed.contains(g))
            .collect();
        if targets.is_empty() {
            break;
        }
        for g in &targets {
            process::signal_group(*g, Signal::SIGKILL);
        }
        if killed.is_empty() {
            let _ = child.wait().await;
        }
        for g in &targets {
            process::wait_group_gone(*g).await;
        }
        killed.extend(targets);
        // Every writer is gone now: what they logged last is still in the pipe.
        for line in reader.drain() {
            on_log_line(cfg, &line, client_pid, ran, &mut groups, &mut agents);
        }
    }
    for g in &killed {
        process::unregister(*g);
    }
    let tail_of = |t: Option<tokio::task::JoinHandle<String>>| async move {
        match t {
            Some(t) => t.await.unwrap_or_default(),
            None => String::new(),
        }
    };
    let stdout = tail_of(out_task).await;
    let stderr = tail_of(err_task).await;
    if !stdout.is_empty() {
        ran.transcript
            .record("client-stdout", stdout.trim_end().as_bytes());
    }
    if !stderr.is_empty() {
        ran.transcript
            .record("client-stderr", stderr.trim_end().as_bytes());
    }
    ran.facts.client_stderr = stderr;
}

fn on_log_line(
    cfg: &ClientModeConfig,
    line: &[u8],
    client_pid: i32,
    ran: &mut Ran,
    groups: &mut Vec<i32>,
    agents: &mut Exits,
) {
    let Some(ev) = wire::parse_event(&String::from_utf8_lossy(line)) else {
        return;
    };
    match &ev.kind {
        Kind::Start { argv, pgid } => {
            agents.watch(i32::try_from(ev.pid).unwrap_or(0));
            // Never the runner's own group (nor init's): those are not the case's to kill.
            let own = nix::unistd::getpgrp().as_raw();
            if *pgid > 1 && *pgid != own && !groups.contains(pgid) {
                // Ctrl-C of the runner kills it too (an agent may lead a group of its own).
                process::register(*pgid);
                groups.push(*pgid);
            }
            ran.transcript.note(&format!(
                "agent started (pid {}, group {pgid}): {}",
                ev.pid,
                argv.join(" ")
            ));
        }
        Kind::C2a(l) => ran.transcript.record("c2a", l.raw.as_bytes()),
        Kind::A2c(l) => {
            ran.transcript.record("a2c", l.raw.as_bytes());
            if let CancelDriver::Signal(sig) = cfg.cancel
                && ran.drive_cancel
                && !ran.facts.cancel_signal_sent
                && l.is_request()
                && l.method() == Some("session/request_permission")
            {
                ran.facts.cancel_signal_sent = true;
                let _ = kill(Pid::from_raw(client_pid), sig);
                ran.transcript.note(&format!(
                    "the runner tells the client to cancel: {sig} to pid {client_pid}"
                ));
            }
        }
        Kind::Eof => ran
            .transcript
            .note(&format!("agent pid {}: stdin closed by the client", ev.pid)),
        Kind::Oversized(n) => ran.transcript.note(&format!(
            "client line of {n} bytes (over the agent's bound)"
        )),
    }
    ran.wire.push(ev);
}

/// Agent processes (pid, argv) of the wire that still run.
fn alive_agents(wire: &Wire) -> Vec<(u32, Vec<String>)> {
    wire.processes()
        .into_iter()
        .filter(|(pid, _, _)| i32::try_from(*pid).is_ok_and(exits::running))
        .map(|(pid, _, argv)| (pid, argv))
        .collect()
}

/// Sleeps until `at`, or forever without one.
async fn sleep_until_some(at: Option<tokio::time::Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

fn describe_status(s: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt as _;
    match (s.code(), s.signal()) {
        (Some(c), _) => format!("exit {c}"),
        (None, Some(sig)) => Signal::try_from(sig)
            .map_or_else(|_| format!("signal {sig}"), |s| format!("signal {s}")),
        (None, None) => "ended".into(),
    }
}

/// Reads a stream to its end, keeping the last [`OUTPUT_TAIL`] bytes.
async fn tail(mut r: impl AsyncRead + Unpin) -> String {
    let mut keep: Vec<u8> = Vec::new();
    let mut buf = vec![0u8; 8192];
    while let Ok(n) = r.read(&mut buf).await {
        if n == 0 {
            break;
        }
        keep.extend_from_slice(&buf[..n]);
        if keep.len() > OUTPUT_TAIL {
            keep.drain(..keep.len() - OUTPUT_TAIL);
        }
    }
    String::from_utf8_lossy(&keep).into_owned()
}

/// Lines of the wire log FIFO, through the bounded frame decoder.
struct LogReader {
    rx: tokio::net::unix::pipe::Receiver,
    decoder: FrameDecoder,
    buf: Vec<u8>,
}

impl LogReader {
    fn new(rx: tokio::net::unix::pipe::Receiver) -> Self {
        Self {
            rx,
            decoder: FrameDecoder::new(MAX_LOG_LINE),
            buf: vec![0u8; 64 * 1024],
        }
    }

    /// Every complete line still in the pipe, without waiting (the writers are gone).
    fn drain(&mut self) -> Vec<Vec<u8>> {
        let mut lines = Vec::new();
        while let Ok(n) = self.rx.try_read(&mut self.buf) {
            if n == 0 {
                break;
            }
            self.decoder.decode(&self.buf[..n], &mut |ev| {
                if let DecodeEvent::Line(l) = ev {
                    lines.push(l.to_vec());
                }
            });
        }
        lines
    }

    /// The next complete lines (waits for data; the runner holds a write end, so no EOF).
    async fn next_lines(&mut self) -> Vec<Vec<u8>> {
        let n = match self.rx.read(&mut self.buf).await {
            Ok(n) => n,
            Err(_) => {
                std::future::pending::<()>().await;
                0
            }
        };
        let mut lines = Vec::new();
        self.decoder.decode(&self.buf[..n], &mut |ev| {
            if let DecodeEvent::Line(l) = ev {
                lines.push(l.to_vec());
            }
        });
        lines
    }
}
