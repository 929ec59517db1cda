//! Diagnostics on stderr (T1: stdout carries only protocol messages) that never stop the server.
//!
//! `eprintln!` blocks while the host does not read a piped stderr and panics once the host closed
//! its read end (`EPIPE`): a client sending stray responses could then hang the server, and the
//! `shutting down` line turned T8's exit 0 into a panic. In MCP mode lines go through
//! [`emit`]: a bounded queue and a writer thread of their own; a full queue drops the line, a
//! failed write is ignored. One-shot commands use [`now`], which waits but never panics.

use std::io::Write;
use std::sync::OnceLock;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::time::Duration;

/// Lines waiting for stderr; more are dropped.
const QUEUE: usize = 256;

enum Diag {
    Line(String),
    Flush(SyncSender<()>),
}

fn queue() -> Option<&'static SyncSender<Diag>> {
    static TX: OnceLock<Option<SyncSender<Diag>>> = OnceLock::new();
    TX.get_or_init(|| {
        let (tx, rx) = sync_channel(QUEUE);
        std::thread::Builder::new()
            .name("diagnostics".into())
            .spawn(move || write_loop(&rx))
            .ok()
            .map(|_| tx)
    })
    .as_ref()
}

fn write_loop(rx: &Receiver<Diag>) {
    let mut err = std::io::stderr();
    for d in rx {
        match d {
            Diag::Line(l) => {
                let _ = err.write_all(l.as_bytes()).and_then(|()| err.flush());
            }
            Diag::Flush(done) => {
                let _ = done.try_send(());
            }
        }
    }
}

/// Queues one diagnostic line (without its newline) for stderr; never blocks, never panics.
pub fn emit(line: impl Into<String>) {
    let mut line = line.into();
    line.push('\n');
    if let Some(tx) = queue() {
        let _ = tx.try_send(Diag::Line(line));
    }
}

/// Waits at most `bound` for the queued lines to be written (before the process exits).
pub fn flush(bound: Duration) {
    let Some(tx) = queue() else { return };
    let (done, wait) = sync_channel(1);
    if tx.try_send(Diag::Flush(done)).is_ok() {
        let _ = wait.recv_timeout(bound);
    }
}

/// Writes one diagnostic line at once (one-shot commands): waits for stderr, never panics.
pub fn now(line: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{line}").and_then(|()| err.flush());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emitting_far_more_than_the_queue_never_blocks() {
        // The test's stderr may be captured or slow: emit must return regardless.
        let start = std::time::Instant::now();
        for i in 0..(QUEUE * 20) {
            emit(format!("diag test line {i}"));
        }
        flush(Duration::from_secs(5));
        assert!(start.elapsed() < Duration::from_secs(10));
    }
}
