//! The byte relay both ways: bounded framing of client and upstream lines (T6) with each
//! complete line handed to the rewriting, oversized lines streamed through untouched, and the
//! deliberately unbounded reader of mutation `unbounded-frame-read`.

use std::sync::Arc;

use mcp_wire::{DecodeEvent, FrameDecoder};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{ChildStdin, ChildStdout};
use tokio::sync::OwnedMutexGuard;

use crate::mutation::Mutation;
use crate::proxy::{Out, Proxy};

/// Bound of a client line the proxy inspects; longer lines stream through untouched (the
/// upstream applies its own bound, T6). Small so the proxy adds little to the group's memory.
const C2S_FRAME: usize = 1024 * 1024;
/// Bound of an upstream line the proxy inspects (tool results can be a few hundred KiB).
const S2C_FRAME: usize = 8 * 1024 * 1024;

pub(crate) async fn write_line(out: &Out, bytes: &[u8]) -> std::io::Result<()> {
    let mut o = out.lock().await;
    o.write_all(bytes).await?;
    o.write_all(b"\n").await?;
    o.flush().await
}

/// A piece of client input, after framing.
enum Piece {
    Line(Vec<u8>),
    /// Raw bytes of a line too long to inspect (passed through as they come).
    Raw(Vec<u8>),
}

/// Client → upstream: bounded framing (or, mutation `unbounded-frame-read`, whole lines read
/// into memory). Returns at stdin EOF, dropping the upstream's stdin so it sees EOF too.
pub(crate) async fn client_to_upstream(proxy: Arc<Proxy>, mut upstream: ChildStdin, out: Out) {
    let result = if proxy.is(Mutation::UnboundedFrameRead) {
        unbounded_reader(&proxy, &mut upstream, &out).await
    } else {
        bounded_reader(&proxy, &mut upstream, &out).await
    };
    if let Err(e) = result {
        eprintln!("mcp_proxy: client → upstream: {e}");
    }
}

async fn bounded_reader(
    proxy: &Proxy,
    upstream: &mut ChildStdin,
    out: &Out,
) -> std::io::Result<()> {
    let mut stdin = tokio::io::stdin();
    let mut decoder = FrameDecoder::new(C2S_FRAME);
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = stdin.read(&mut buf).await?;
        let mut pieces = Vec::new();
        let mut sink = |ev: DecodeEvent<'_>| match ev {
            DecodeEvent::Line(l) => pieces.push(Piece::Line(l.to_vec())),
            DecodeEvent::OversizedStart => {}
            DecodeEvent::OversizedChunk(c) => pieces.push(Piece::Raw(c.to_vec())),
            DecodeEvent::OversizedEnd { .. } => pieces.push(Piece::Raw(b"\n".to_vec())),
        };
        if n == 0 {
            decoder.finish(&mut sink);
        } else {
            decoder.decode(&buf[..n], &mut sink);
        }
        for piece in pieces {
            match piece {
                Piece::Line(l) => forward_line(proxy, upstream, out, &l).await?,
                Piece::Raw(r) => upstream.write_all(&r).await?,
            }
        }
        upstream.flush().await?;
        if n == 0 {
            return Ok(());
        }
    }
}

/// The deliberate bug of `unbounded-frame-read`: a whole line is held in memory, however long.
async fn unbounded_reader(
    proxy: &Proxy,
    upstream: &mut ChildStdin,
    out: &Out,
) -> std::io::Result<()> {
    let mut stdin = BufReader::new(tokio::io::stdin());
    loop {
        let mut line = Vec::new();
        if stdin.read_until(b'\n', &mut line).await? == 0 {
            return Ok(());
        }
        if line.last() == Some(&b'\n') {
            line.pop();
        }
        if line.len() > C2S_FRAME {
            upstream.write_all(&line).await?;
            upstream.write_all(b"\n").await?;
        } else {
            forward_line(proxy, upstream, out, &line).await?;
        }
        upstream.flush().await?;
    }
}

async fn forward_line(
    proxy: &Proxy,
    upstream: &mut ChildStdin,
    out: &Out,
    line: &[u8],
) -> std::io::Result<()> {
    let (lines, answers) = proxy.client_line(line);
    for l in lines {
        upstream.write_all(&l).await?;
        upstream.write_all(b"\n").await?;
    }
    for a in answers {
        write_line(out, a.to_string().as_bytes()).await?;
    }
    Ok(())
}

/// Upstream → client: bounded framing; an oversized line streams through untouched while the
/// client's stdout is held, so nothing interleaves with it.
pub(crate) async fn upstream_to_client(proxy: Arc<Proxy>, mut upstream: ChildStdout, out: Out) {
    if let Err(e) = upstream_reader(&proxy, &mut upstream, &out).await {
        eprintln!("mcp_proxy: upstream → client: {e}");
    }
}

enum Up {
    Line(Vec<u8>),
    Start,
    Chunk(Vec<u8>),
    End,
}

async fn upstream_reader(
    proxy: &Proxy,
    upstream: &mut (impl AsyncRead + Unpin),
    out: &Out,
) -> std::io::Result<()> {
    let mut decoder = FrameDecoder::new(S2C_FRAME);
    let mut buf = vec![0u8; 64 * 1024];
    let mut held: Option<OwnedMutexGuard<tokio::io::Stdout>> = None;
    loop {
        let n = upstream.read(&mut buf).await?;
        let mut pieces = Vec::new();
        let mut sink = |ev: DecodeEvent<'_>| match ev {
            DecodeEvent::Line(l) => pieces.push(Up::Line(l.to_vec())),
            DecodeEvent::OversizedStart => pieces.push(Up::Start),
            DecodeEvent::OversizedChunk(c) => pieces.push(Up::Chunk(c.to_vec())),
            DecodeEvent::OversizedEnd { .. } => pieces.push(Up::End),
        };
        if n == 0 {
            decoder.finish(&mut sink);
        } else {
            decoder.decode(&buf[..n], &mut sink);
        }
        for piece in pieces {
            match piece {
                Up::Line(l) => {
                    if let Some(bytes) = proxy.upstream_line(&l) {
                        write_line(out, &bytes).await?;
                    }
                }
                Up::Start => held = Some(out.clone().lock_owned().await),
                Up::Chunk(c) => {
                    if let Some(o) = held.as_mut() {
                        o.write_all(&c).await?;
                    }
                }
                Up::End => {
                    if let Some(mut o) = held.take() {
                        o.write_all(b"\n").await?;
                        o.flush().await?;
                    }
                }
            }
        }
        if n == 0 {
            return Ok(());
        }
    }
}
