//! The client's side of the pipe: a thread reads stdin through the bounded frame decoder (BND-1:
//! memory stays flat whatever the client writes), logs every line, and hands parsed messages to
//! the agent over a bounded channel. Lines that are not a JSON-RPC message are dropped here:
//! the real agent answers malformed input with silence, so the agent never even sees them.

use std::io::Read as _;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use mcp_wire::codec::{DecodeEvent, FrameDecoder};
use serde_json::Value;

use crate::log::Log;

/// Longest client line kept (longer ones are logged by size and dropped).
const MAX_LINE: usize = 16 * 1024 * 1024;
/// Messages buffered between the reader and the agent; a stuck agent stops reading beyond this,
/// so a flooding client meets back-pressure instead of growing our memory.
const QUEUE: usize = 256;

/// What the reader hands to the agent.
#[derive(Debug)]
pub enum Input {
    /// A JSON object with a `method`, a `result` or an `error`.
    Msg(Value),
    /// stdin reached its end (or failed).
    Eof,
}

/// Starts the reader thread.
pub fn spawn(log: Log) -> Receiver<Input> {
    let (tx, rx) = sync_channel(QUEUE);
    std::thread::spawn(move || read_loop(&tx, &log));
    rx
}

fn read_loop(tx: &SyncSender<Input>, log: &Log) {
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

/// A JSON-RPC message, or `None` for anything the agent must not answer.
fn parse(line: &[u8]) -> Option<Value> {
    let v: Value = serde_json::from_slice(line).ok()?;
    let obj = v.as_object()?;
    let is_msg = obj.get("method").is_some_and(Value::is_string)
        || obj.contains_key("result")
        || obj.contains_key("error");
    is_msg.then_some(v)
}
