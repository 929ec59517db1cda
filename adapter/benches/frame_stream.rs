//! A fuzz stream through the release adapter (bench/soak.md): `FRAME_STREAM_N` frames (default
//! one million) over stdio, mutated from the fuzz seeds (`fuzz/corpus/{wire,dispatch}`) and mixed
//! with adversarial frames (tiny-element arrays near the frame bound, deep nesting, oversized
//! lines, batches, a `json_schema.enum` near the cost bound), with a valid `ping` at every
//! 100th frame. Asserts, and exits non-zero otherwise: the adapter's peak RSS (`VmHWM`) stays
//! under 32 MiB, every valid ping is answered exactly once, and the adapter is still serving at
//! the end. Not a timed test: run with
//! `cargo bench -p claude-mcp-adapter --bench frame_stream`. Recorded in `bench/soak.md`.
//!
//! The adapter gets `--claude` pointing at a path that does not exist: a mutated frame that
//! happens to be a valid `claude.run` ends `native_not_found` without starting a process.

mod common;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

use serde_json::Value;

use crate::common::Rng;

/// Peak RSS goal: a million hostile frames stay within 32 MiB (C-T6, C-T6a).
const PEAK_GOAL_KIB: u64 = 32 * 1024;
/// The adapter's default frame bound (T6).
const FRAME_BOUND: usize = 4 * 1024 * 1024;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("frame_stream: FAILED: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let n: usize = std::env::var("FRAME_STREAM_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let adapter_exe = std::env::var_os("FRAME_STREAM_ADAPTER").map_or_else(
        || PathBuf::from(env!("CARGO_BIN_EXE_claude-mcp-adapter")),
        PathBuf::from,
    );
    let seeds = seeds()?;
    println!("adapter: {}", adapter_exe.display());
    println!("frames: {n}, seed lines: {}", seeds.len());

    let mut child = Command::new(&adapter_exe)
        .args(["--claude", "/nonexistent/claude"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start the adapter: {e}"))?;
    let pid = child.id();
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    // Answers are drained on a thread (the adapter's output must never back up into its input).
    let reader = std::thread::spawn(move || {
        let mut pings: HashMap<String, u32> = HashMap::new();
        let mut lines = 0u64;
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            lines += 1;
            if line.contains("\"ping-")
                && let Ok(v) = serde_json::from_str::<Value>(&line)
                && let Some(id) = v["id"].as_str()
                && id.starts_with("ping-")
                && v.get("result").is_some()
            {
                *pings.entry(id.to_owned()).or_default() += 1;
            }
        }
        (lines, pings)
    });

    let started = Instant::now();
    let mut rng = Rng(0x0f0f_2026_1201);
    let mut out = std::io::BufWriter::with_capacity(1 << 16, &mut stdin);
    write_line(
        &mut out,
        br#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"frame-stream","version":"0"}}}"#,
    )?;
    let mut pings_sent = 0u64;
    let mut bytes = 0u64;
    let mut big = 0u64;
    for i in 0..n {
        let frame = if i % 100 == 0 {
            pings_sent += 1;
            format!(r#"{{"jsonrpc":"2.0","id":"ping-{i}","method":"ping"}}"#).into_bytes()
        } else if i % 20_000 == 1 {
            big += 1;
            adversarial(&mut rng)
        } else {
            let seed = &seeds[rng.below(seeds.len())];
            mutate(&mut rng, seed)
        };
        bytes += frame.len() as u64 + 1;
        write_line(&mut out, &frame)?;
    }
    out.flush().map_err(|e| format!("write: {e}"))?;
    drop(out);
    // The adapter is still serving: one more ping, answered before EOF ends it.
    write_line(
        &mut stdin,
        br#"{"jsonrpc":"2.0","id":"ping-last","method":"ping"}"#,
    )?;
    let hwm = testkit::procs::vm_hwm_kib(pid);
    let rss = testkit::procs::vm_rss_kib(pid);
    drop(stdin);
    let (lines, pings) = reader.join().map_err(|_| "reader panicked")?;
    let status = child.wait().map_err(|e| format!("wait: {e}"))?;
    let elapsed = started.elapsed().as_secs_f64();
    let hwm = hwm.ok_or("could not read VmHWM before EOF")?;
    println!(
        "sent {n} frames ({:.1} MiB, {big} near-bound adversarial) in {elapsed:.1} s; {lines} answer lines",
        bytes as f64 / 1048576.0
    );
    println!(
        "adapter peak RSS (VmHWM) {hwm} KiB, RSS at the end {} KiB; exit {status}",
        rss.unwrap_or(0)
    );
    let answered_once = pings.values().filter(|&&c| c == 1).count() as u64;
    let twice = pings.values().filter(|&&c| c > 1).count();
    println!(
        "valid pings: {} sent, {answered_once} answered once, {twice} more than once",
        pings_sent + 1
    );
    if answered_once != pings_sent + 1 || twice != 0 {
        return Err("a valid ping was not answered exactly once".into());
    }
    if hwm >= PEAK_GOAL_KIB {
        return Err(format!("peak RSS {hwm} KiB >= {PEAK_GOAL_KIB} KiB"));
    }
    println!("frame_stream: OK");
    Ok(())
}

fn write_line(w: &mut impl Write, frame: &[u8]) -> Result<(), String> {
    w.write_all(frame)
        .and_then(|()| w.write_all(b"\n"))
        .map_err(|e| format!("write: {e}"))
}

/// One line of every seed file (newlines inside a frame are the framing, so lines are frames).
fn seeds() -> Result<Vec<Vec<u8>>, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus");
    let mut out = Vec::new();
    for sub in ["wire", "dispatch"] {
        let dir = root.join(sub);
        for e in std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))? {
            let p = e.map_err(|e| e.to_string())?.path();
            let text = std::fs::read(&p).map_err(|e| format!("{}: {e}", p.display()))?;
            out.extend(
                text.split(|&b| b == b'\n')
                    .filter(|l| !l.is_empty() && l.len() < 64 * 1024)
                    .map(<[u8]>::to_vec),
            );
        }
    }
    if out.is_empty() {
        return Err("no seed lines".into());
    }
    Ok(out)
}

/// A seed line with a few random byte edits (flip, insert, delete, truncate, duplicate a span);
/// never a newline, so it stays one frame.
fn mutate(rng: &mut Rng, seed: &[u8]) -> Vec<u8> {
    let mut f = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        if f.is_empty() {
            f.push(b'{');
        }
        let at = rng.below(f.len());
        match rng.below(6) {
            0 => f[at] ^= 1 << rng.below(8),
            1 => f.insert(at, b"{}[]\",:0e-\\u"[rng.below(12)]),
            2 => {
                f.remove(at);
            }
            3 => f.truncate(at),
            4 => {
                let end = (at + 1 + rng.below(16)).min(f.len());
                let span = f[at..end].to_vec();
                f.splice(at..at, span);
            }
            _ => {} // unchanged: a valid seed frame
        }
    }
    for b in &mut f {
        if *b == b'\n' {
            *b = b' ';
        }
    }
    f
}

/// Frames that cost most while parsed: tiny elements up to the bound, deep nesting, an
/// oversized line, a large batch of pings, and a run whose `json_schema.enum` holds the
/// costliest tree the cost pre-scan admits (C-T6a, JSONOUT-4).
fn adversarial(rng: &mut Rng) -> Vec<u8> {
    let head = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"claude.run.list","arguments":{"x":["#;
    match rng.below(5) {
        0 => {
            let mut f = head.to_vec();
            while f.len() + 8 < FRAME_BOUND {
                f.extend_from_slice(b"0,");
            }
            f.extend_from_slice(b"0]}}}");
            f
        }
        1 => {
            let depth = (FRAME_BOUND - 64) / 2;
            let mut f = Vec::with_capacity(FRAME_BOUND);
            f.extend(std::iter::repeat_n(b'[', depth));
            f.extend(std::iter::repeat_n(b']', depth));
            f
        }
        2 => vec![b'x'; FRAME_BOUND + 4096],
        3 => json_schema_enum(),
        _ => {
            let mut f = b"[".to_vec();
            while f.len() + 64 < FRAME_BOUND {
                f.extend_from_slice(br#"{"jsonrpc":"2.0","method":"ping"},"#);
            }
            f.extend_from_slice(br#"{"jsonrpc":"2.0","method":"ping"}]"#);
            f
        }
    }
}

/// A `claude.run.start` whose `json_schema.enum` is 17 000 one-member objects: 136 KB, near the
/// most C-T6a's pre-scan admits, refused by JSONOUT-4's `bytes` limit.
fn json_schema_enum() -> Vec<u8> {
    let mut f = br#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"claude.run.start","arguments":{"prompt":"x","json_schema":{"enum":["#.to_vec();
    for i in 0..17_000 {
        f.extend_from_slice(if i == 0 {
            br#"{"a":0}"#
        } else {
            br#",{"a":0}"#
        });
    }
    f.extend_from_slice(b"]}}}}");
    f
}
