//! The client's side of the pipe: a thread reads stdin through the bounded frame decoder (BND-1:
//! memory stays flat whatever the client writes), logs every line, and hands parsed messages to
//! the agent over a bounded channel. Lines that are not a JSON-RPC message are dropped here:
//! the real agent answers malformed input with silence, so the agent never even sees them.
//!
//! With the log on, the log must hold every line the client wrote before it ended us: a client
//! that writes its last lines (a permission answer right after its `session/cancel`) and then
//! SIGTERMs us at once must not lose them because this thread was not scheduled in between. So
//! [`guard_sigterm`] blocks SIGTERM before any thread starts, a signal thread waits for it, has
//! the reader read and log whatever is left in the pipe, then dies by SIGTERM as before (the
//! exit status is unchanged; death comes a drain later, bounded by [`DRAIN_BOUND`]). A SIGKILL
//! cannot be caught: lines still in the pipe then are lost to the log.

use std::io::Read as _;
use std::os::fd::{AsFd as _, OwnedFd};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::time::Duration;

use nix::fcntl::{FcntlArg, OFlag, fcntl};
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::sys::signal::{SigHandler, SigSet, SigmaskHow, Signal, pthread_sigmask};

use mcp_wire::codec::{DecodeEvent, FrameDecoder};
use serde_json::Value;

use crate::log::Log;

/// Longest client line kept (longer ones are logged by size and dropped).
const MAX_LINE: usize = 16 * 1024 * 1024;
/// Messages buffered between the reader and the agent; a stuck agent stops reading beyond this,
/// so a flooding client meets back-pressure instead of growing our memory.
const QUEUE: usize = 256;
/// How long a SIGTERM waits for the reader's drain at most (a reader stuck on a full queue must
/// not keep us alive).
const DRAIN_BOUND: Duration = Duration::from_millis(500);

/// What the reader hands to the agent.
#[derive(Debug)]
pub enum Input {
    /// A JSON object with a `method`, a `result` or an `error`.
    Msg(Value),
    /// stdin reached its end (or failed).
    Eof,
}

/// With the log on, blocks SIGTERM in this thread and so in every thread started after it (call
/// first in `main`); [`spawn`] then catches it to drain stdin into the log before dying by it.
pub fn guard_sigterm(log: &Log) {
    if log.enabled() {
        let _ = pthread_sigmask(SigmaskHow::SIG_BLOCK, Some(&sigterm()), None);
    }
}

fn sigterm() -> SigSet {
    let mut set = SigSet::empty();
    set.add(Signal::SIGTERM);
    set
}

/// Starts the reader thread (and, when SIGTERM is guarded, the signal thread).
pub fn spawn(log: Log) -> Receiver<Input> {
    let (tx, rx) = sync_channel(QUEUE);
    let guarded = SigSet::thread_get_mask().is_ok_and(|m| m.contains(Signal::SIGTERM));
    let wake = if guarded {
        nix::unistd::pipe().ok()
    } else {
        None
    };
    let (wake_rx, done_rx) = match wake {
        Some((r, w)) => {
            let (done_tx, done_rx) = sync_channel::<()>(1);
            std::thread::spawn(move || on_sigterm(w, &done_rx));
            (Some(r), Some(done_tx))
        }
        None => (None, None),
    };
    std::thread::spawn(move || read_loop(&tx, &log, wake_rx.as_ref(), done_rx.as_ref()));
    rx
}

/// Waits for SIGTERM, has the reader drain stdin (bounded), then dies by SIGTERM.
fn on_sigterm(wake: OwnedFd, done: &Receiver<()>) {
    if sigterm().wait().is_err() {
        return;
    }
    let _ = nix::unistd::write(&wake, b"t");
    let _ = done.recv_timeout(DRAIN_BOUND);
    // Die by SIGTERM as if it had never been blocked (no stdout flush: the agent may hold it).
    // SAFETY: restoring SIG_DFL installs no handler, so no code runs in signal context.
    let _ = unsafe { nix::sys::signal::signal(Signal::SIGTERM, SigHandler::SigDfl) };
    let _ = pthread_sigmask(SigmaskHow::SIG_UNBLOCK, Some(&sigterm()), None);
    let _ = nix::sys::signal::kill(nix::unistd::Pid::this(), Signal::SIGTERM);
    let _ = nix::sys::signal::kill(nix::unistd::Pid::this(), Signal::SIGKILL);
}

fn read_loop(
    tx: &SyncSender<Input>,
    log: &Log,
    wake: Option<&OwnedFd>,
    done: Option<&SyncSender<()>>,
) {
    let mut stdin = std::io::stdin().lock();
    let mut decoder = FrameDecoder::new(MAX_LINE);
    let mut buf = vec![0u8; 64 * 1024];
    let mut alive = true;
    let mut sink = |ev: DecodeEvent<'_>| match ev {
        DecodeEvent::Line(line) => {
            if line.iter().all(u8::is_ascii_whitespace) {
                return;
            }
            log.client_line(line);
            if let Some(msg) = parse(line) {
                alive = alive && tx.send(Input::Msg(msg)).is_ok();
            }
        }
        DecodeEvent::OversizedEnd { len } => log.oversized(len),
        DecodeEvent::OversizedStart | DecodeEvent::OversizedChunk(_) => {}
    };
    loop {
        if let Some(wake) = wake
            && sigterm_pending(&stdin, wake)
        {
            // Everything the client wrote before it ended us, then the signal thread's turn.
            let fd = stdin.as_fd();
            let drainable = fcntl(fd, FcntlArg::F_GETFL)
                .map(OFlag::from_bits_truncate)
                .and_then(|fl| fcntl(fd, FcntlArg::F_SETFL(fl | OFlag::O_NONBLOCK)))
                .is_ok();
            if drainable {
                loop {
                    match stdin.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => decoder.decode(&buf[..n], &mut sink),
                    }
                }
            }
            if let Some(done) = done {
                let _ = done.send(());
            }
            // The signal thread ends the process; never read again.
            loop {
                std::thread::park();
            }
        }
        match stdin.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => decoder.decode(&buf[..n], &mut sink),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    decoder.finish(&mut sink);
    log.eof();
    let _ = tx.send(Input::Eof);
}

/// Waits until stdin is readable or the signal thread wakes us: `true` for the wake.
fn sigterm_pending(stdin: &std::io::StdinLock<'_>, wake: &OwnedFd) -> bool {
    let mut fds = [
        PollFd::new(stdin.as_fd(), PollFlags::POLLIN),
        PollFd::new(wake.as_fd(), PollFlags::POLLIN),
    ];
    loop {
        match poll(&mut fds, PollTimeout::NONE) {
            Ok(_) => break,
            Err(nix::errno::Errno::EINTR) => {}
            Err(_) => return false,
        }
    }
    fds[1].revents().is_some_and(|r| !r.is_empty())
}

/// A JSON-RPC message, or `None` for anything the agent must not answer.
fn parse(line: &[u8]) -> Option<Value> {
    let v: Value = serde_json::from_slice(line).ok()?;
    let obj = v.as_object()?;
    let is_msg = obj.get("method").is_some_and(Value::is_string)
        || obj.contains_key("result")
        || obj.contains_key("error");
    is_msg.then_some(v)
}
