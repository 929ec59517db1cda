//! stdio for MCP (T1, T6): a reader thread that cuts stdin into bounded frames with
//! [`mcp_wire::FrameDecoder`], and a writer thread that owns stdout.
//!
//! Both are plain OS threads rather than tokio's `stdin()`/`stdout()`: those run blocking reads on
//! the runtime's blocking pool, and a runtime cannot shut down while such a read waits on a stdin
//! that never closes (SIGTERM with the host still attached, T8). A detached thread does not hold
//! the process up.
//!
//! Memory stays bounded whatever the peer sends: the decoder holds at most one frame bound, an
//! oversized line is reported as [`Frame::Oversized`] without its bytes, and the frame channel is
//! small, so a slow dispatcher stops the reader rather than queueing lines. Outbound, messages
//! are encoded as soon as they are queued and the queue is bounded in bytes
//! (`OUTBOX_BYTES`), so a host that does not read its stdin holds senders up instead of
//! growing the adapter by its answers.

use std::io::{Read, Write};
use std::sync::Arc;

use mcp_wire::{DecodeEvent, FrameDecoder};
use serde_json::Value;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc, oneshot};

use cmk_engine::record::{Dir, Recorder};

/// Size of one read from stdin.
const READ_CHUNK: usize = 64 * 1024;
/// Frames decoded but not yet dispatched. Each holds at most one frame bound.
const FRAME_QUEUE: usize = 4;
/// Messages waiting for the writer. Senders wait when it is full (flow control towards a host
/// that does not read its stdin).
const OUTBOX_QUEUE: usize = 64;
/// Encoded bytes waiting for the writer, at most: senders wait for room. A single message larger
/// than this waits until the queue is empty and then takes all of it.
pub(crate) const OUTBOX_BYTES: usize = 8 * 1024 * 1024;

/// One inbound frame.
#[derive(Debug)]
pub enum Frame {
    /// A complete line (without `\n` and one trailing `\r`), possibly blank.
    Line(Vec<u8>),
    /// A line over the bound was discarded (T6); `len` bytes long.
    Oversized {
        /// Its length in bytes.
        len: u64,
    },
    /// stdin reached EOF or failed: no more frames.
    Closed,
}

/// Starts the stdin reader thread; frames arrive on the returned channel, `Closed` last.
pub(crate) fn spawn_reader(max_frame_bytes: usize) -> std::io::Result<mpsc::Receiver<Frame>> {
    let (tx, rx) = mpsc::channel(FRAME_QUEUE);
    std::thread::Builder::new()
        .name("mcp-stdin".into())
        .spawn(move || read_loop(max_frame_bytes, &tx))?;
    Ok(rx)
}

fn read_loop(max_frame_bytes: usize, tx: &mpsc::Sender<Frame>) {
    let mut decoder = FrameDecoder::new(max_frame_bytes);
    let mut stdin = std::io::stdin().lock();
    let mut chunk = vec![0u8; READ_CHUNK];
    // Frames completed by one read: at most the bytes of that read plus one bound.
    let mut ready: Vec<Frame> = Vec::new();
    loop {
        let n = match stdin.read(&mut chunk) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                cmk_engine::diag::emit(format!("claude-mcp-adapter: reading stdin failed: {e}"));
                0
            }
        };
        if n == 0 {
            decoder.finish(&mut |ev| collect(ev, &mut ready));
            ready.push(Frame::Closed);
        } else {
            decoder.decode(&chunk[..n], &mut |ev| collect(ev, &mut ready));
        }
        for frame in ready.drain(..) {
            let closed = matches!(frame, Frame::Closed);
            if tx.blocking_send(frame).is_err() || closed {
                // The server stopped listening, or this was the end.
                return;
            }
        }
    }
}

fn collect(ev: DecodeEvent<'_>, ready: &mut Vec<Frame>) {
    match ev {
        DecodeEvent::Line(l) => ready.push(Frame::Line(l.to_vec())),
        // T6: the bytes of an oversized line are dropped as they come.
        DecodeEvent::OversizedStart | DecodeEvent::OversizedChunk(_) => {}
        DecodeEvent::OversizedEnd { len } => ready.push(Frame::Oversized { len }),
    }
}

enum Out {
    /// One encoded message with its newline, holding its share of [`OUTBOX_BYTES`] until written.
    Line(Vec<u8>, OwnedSemaphorePermit),
    Flush(oneshot::Sender<()>),
}

/// The one way to stdout (T1): a cheap handle that queues messages for the writer thread.
#[derive(Debug, Clone)]
pub struct Outbox {
    tx: mpsc::Sender<Out>,
    room: Arc<Semaphore>,
}

impl std::fmt::Debug for Out {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Out::Line(b, _) => write!(f, "Line({} bytes)", b.len()),
            Out::Flush(_) => f.write_str("Flush"),
        }
    }
}

impl Outbox {
    fn new(tx: mpsc::Sender<Out>) -> Self {
        Self {
            tx,
            room: Arc::new(Semaphore::new(OUTBOX_BYTES)),
        }
    }

    /// Queues one message (a response, a batch array or a notification). After the writer
    /// stopped (stdout closed), messages are dropped.
    pub async fn send(&self, msg: Value) {
        self.send_line(mcp_wire::encode(&msg)).await;
    }

    /// Queues one message already encoded as compact JSON ending in `\n` (a batch answer
    /// assembled from encoded parts). Waits while `OUTBOX_BYTES` are queued.
    pub async fn send_line(&self, line: Vec<u8>) {
        let share = u32::try_from(line.len().min(OUTBOX_BYTES)).unwrap_or(u32::MAX);
        let Ok(permit) = self.room.clone().acquire_many_owned(share).await else {
            return; // Never closed; nothing to send to if it were.
        };
        let _ = self.tx.send(Out::Line(line, permit)).await;
    }

    /// An outbox whose messages are counted and dropped instead of written (fuzzing the
    /// dispatcher, `fuzz/`). Must be called within a tokio runtime: a task drains it. The count
    /// of messages sent so far is in the returned counter.
    #[must_use]
    pub fn discarding() -> (Self, Arc<std::sync::atomic::AtomicUsize>) {
        let (tx, mut rx) = mpsc::channel::<Out>(OUTBOX_QUEUE);
        let count = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let seen = count.clone();
        tokio::spawn(async move {
            while let Some(out) = rx.recv().await {
                match out {
                    Out::Line(..) => {
                        seen.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                    Out::Flush(done) => {
                        let _ = done.send(());
                    }
                }
            }
        });
        (Self::new(tx), count)
    }

    /// An outbox whose messages land in a channel instead of stdout (unit tests).
    #[cfg(test)]
    pub(crate) fn capture() -> (Self, mpsc::Receiver<Value>) {
        let (tx, mut rx) = mpsc::channel::<Out>(OUTBOX_QUEUE);
        let (cap_tx, cap_rx) = mpsc::channel(OUTBOX_QUEUE);
        tokio::spawn(async move {
            while let Some(out) = rx.recv().await {
                match out {
                    Out::Line(bytes, _permit) => {
                        let v = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
                        let _ = cap_tx.send(v).await;
                    }
                    Out::Flush(done) => {
                        let _ = done.send(());
                    }
                }
            }
        });
        (Self::new(tx), cap_rx)
    }

    /// Waits until everything queued before this call was written (or the writer stopped).
    pub async fn flush(&self) {
        let (done, wait) = oneshot::channel();
        if self.tx.send(Out::Flush(done)).await.is_ok() {
            let _ = wait.await;
        }
    }
}

/// Fires the stop signal once, from whichever thread learns first that stdout is gone.
type ClosedSignal = Arc<std::sync::Mutex<Option<oneshot::Sender<()>>>>;

fn signal_closed(closed: &ClosedSignal) {
    let tx = closed
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take();
    if let Some(tx) = tx {
        let _ = tx.send(());
    }
}

/// Starts the stdout writer thread. `closed` fires once when stdout can no longer be written
/// (the host closed its end): nobody can hear answers any more, which the server treats like EOF
/// (C-T8). It is learnt from a failed write, or, while nothing is being written, from the kernel
/// (`watch_hangup`).
pub fn spawn_writer(
    recorder: Option<Recorder>,
    after_drain: fn(),
) -> std::io::Result<(Outbox, oneshot::Receiver<()>)> {
    let (tx, mut rx) = mpsc::channel::<Out>(OUTBOX_QUEUE);
    // `after_drain` may start processes through tokio (the spare supervisor), which needs the
    // runtime's context on this plain thread.
    let runtime = tokio::runtime::Handle::current();
    let (closed_tx, closed_rx) = oneshot::channel();
    let closed: ClosedSignal = Arc::new(std::sync::Mutex::new(Some(closed_tx)));
    let watcher = closed.clone();
    std::thread::Builder::new()
        .name("mcp-stdout".into())
        .spawn(move || {
            let _runtime = runtime.enter();
            let mut stdout = std::io::stdout().lock();
            let mut gone = false;
            while let Some(out) = rx.blocking_recv() {
                match out {
                    Out::Flush(done) => {
                        let _ = done.send(());
                    }
                    // The permit returns the message's room once it was written (or dropped).
                    Out::Line(bytes, _permit) => {
                        if gone {
                            continue; // stdout is gone: drain so senders never block.
                        }
                        // Recorded before it is written, so a recording never shows the client's
                        // reaction to an answer ahead of the answer itself.
                        if let Some(r) = &recorder {
                            r.line(Dir::S2c, bytes.strip_suffix(b"\n").unwrap_or(&bytes));
                        }
                        if let Err(e) = stdout.write_all(&bytes).and_then(|()| stdout.flush()) {
                            cmk_engine::diag::emit(format!(
                                "claude-mcp-adapter: writing stdout failed: {e}"
                            ));
                            gone = true;
                            signal_closed(&closed);
                            continue;
                        }
                        // Nothing more to write: the quiet point after an answer, for work that
                        // must not delay one.
                        if rx.is_empty() {
                            after_drain();
                        }
                    }
                }
            }
        })?;
    std::thread::Builder::new()
        .name("mcp-stdout-hup".into())
        .stack_size(HUP_STACK)
        .spawn(move || {
            if watch_hangup() {
                cmk_engine::diag::emit("claude-mcp-adapter: the host closed stdout");
                signal_closed(&watcher);
            }
        })?;
    Ok((Outbox::new(tx), closed_rx))
}

/// Stack of the hang-up watcher: it only sits in `poll(2)`.
const HUP_STACK: usize = 64 * 1024;

/// C-T8: blocks in `poll(2)` on stdout asking for no event at all, so it wakes only for what the
/// kernel always reports: `POLLERR` (a pipe whose read end is closed) or `POLLHUP` (a hung-up
/// terminal or socket). One wait on an event, not a poll loop. Returns `true` when the host
/// closed stdout; `false` when stdout cannot be watched (not open, or the wait failed): then the
/// next failed write still tells. Regular files and `/dev/null` never report either, and the
/// thread simply stays blocked (it is detached and holds nothing up).
fn watch_hangup() -> bool {
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    use std::os::fd::AsFd;
    let stdout = std::io::stdout();
    let fd = stdout.as_fd();
    loop {
        let mut fds = [PollFd::new(fd, PollFlags::empty())];
        match poll(&mut fds, PollTimeout::NONE) {
            Err(nix::errno::Errno::EINTR) => {}
            Err(_) => return false,
            Ok(_) => {
                let revents = fds[0].revents().unwrap_or(PollFlags::empty());
                if revents.contains(PollFlags::POLLNVAL) {
                    return false;
                }
                if revents.intersects(PollFlags::POLLERR | PollFlags::POLLHUP) {
                    return true;
                }
            }
        }
    }
}
