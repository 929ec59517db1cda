//! `mcp-replay record`: a recording proxy. The host starts it as if it were the server; it starts
//! the real server (or ACP agent) in its own process group and passes every byte through
//! unchanged both ways, while each complete line becomes a row of the recording: `c2s` what the
//! host (client) wrote, `s2c` what the server wrote. The server's stderr is passed through as it
//! is and not recorded. The proxy ends when the server's stdout closes (the server ended, or
//! closed it after the host closed stdin), shuts the server's group down, and exits with the
//! server's exit code.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::PathBuf;

use serde_json::json;

use crate::child::{self, Peer, Stderr};
use crate::error::{Error, Result};
use crate::safe_file;
use crate::writer::RowWriter;

/// What to record.
#[derive(Debug, Clone)]
pub struct RecordOptions {
    /// The recording file.
    pub out: PathBuf,
    /// Replace an existing file (never a link).
    pub overwrite: bool,
    /// The line bound ([`crate::writer::DEFAULT_MAX_LINE_BYTES`]).
    pub max_line_bytes: usize,
    /// The server command and its arguments.
    pub command: Vec<OsString>,
}

/// How a recording session ended.
#[derive(Debug)]
pub struct Recorded {
    /// The server's exit code (128 + signal when a signal ended it).
    pub exit_code: i32,
    /// Why recording stopped early, if it did (bytes still passed through).
    pub failure: Option<String>,
}

/// Runs the proxy on this process's stdin and stdout until the server's stdout closes.
pub fn record(opts: &RecordOptions) -> Result<Recorded> {
    let file = safe_file::create(&opts.out, opts.overwrite)?;
    let writer = RowWriter::new(file);
    let program = opts
        .command
        .first()
        .map(|p| {
            std::path::Path::new(p)
                .file_name()
                .unwrap_or(p)
                .to_string_lossy()
                .into_owned()
        })
        .unwrap_or_default();
    writer.row(&json!({
        "dir": "meta", "ms": 0,
        "made_by": "mcp-replay record",
        "server": program,
        "note": "holds every message exchanged: prompts, tool arguments and outputs"
    }));
    let mut peer = Peer::spawn(&opts.command, Stderr::Inherit)?;
    let mut to_server = peer.stdin.take();
    let from_server = peer.stdout.take();

    // Host -> server. Ends at the host's EOF (closing the server's stdin) or a write error; a
    // thread blocked on our stdin when the server is gone ends with the process.
    let mut c2s = writer.direction("c2s", opts.max_line_bytes);
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = match stdin.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            // Recorded before it is forwarded: a request's row then always precedes its
            // response's, whatever the threads' timing (the recording is causal).
            c2s.feed(&buf[..n]);
            let Some(out) = to_server.as_mut() else { break };
            if out.write_all(&buf[..n]).and_then(|()| out.flush()).is_err() {
                break;
            }
        }
        c2s.finish();
        drop(to_server.take());
    });

    // Server -> host, on this thread.
    let mut s2c = writer.direction("s2c", opts.max_line_bytes);
    if let Some(mut from) = from_server {
        let mut stdout = std::io::stdout().lock();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = match from.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    let _ = peer.shutdown();
                    return Err(Error::Peer(e));
                }
            };
            s2c.feed(&buf[..n]);
            // The host went away: keep draining so the server is not blocked, record on.
            let _ = stdout.write_all(&buf[..n]).and_then(|()| stdout.flush());
        }
    }
    s2c.finish();
    let status = peer.shutdown();
    Ok(Recorded {
        exit_code: child::exit_code(status),
        failure: writer.failure(),
    })
}
