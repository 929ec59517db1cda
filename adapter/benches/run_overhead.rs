//! Run-overhead benchmark (≤ 3 ms): what one `claude.run` costs over running the native CLI
//! directly. In one run it times N iterations (default 50, env `RUN_OVERHEAD_N`), alternating:
//!
//! - **direct**: `fake-claude --version`, then fake-claude with the exact print-mode argv the
//!   adapter builds from cli-tree.json for the prompt `hi` (read back once, untimed, through the
//!   `dump-invocation` scenario), stdin `/dev/null`, stdout read to EOF, both waited for;
//! - **adapter**: one `tools/call claude.run {"prompt": "hi"}` to an adapter already initialized
//!   over stdio (`--claude <fake-claude>`), timed from the request to its answer: the version check
//!   and the run, under one supervisor (C-SUP-1), ingest and the cleanup report.
//!
//! Each timed operation starts after a pause of [`SETTLE`] (the spare supervisor the adapter
//! starts for its next run after an answer must not land in the direct side's time).
//!
//! Prints median and p90 per run for both, and the overhead (median of the per-iteration
//! differences, and the difference of the medians). Goal: overhead ≤ 3 ms. Recorded numbers live
//! in `bench/run-overhead.md`. `RUN_OVERHEAD_ADAPTER=PATH` measures another adapter build. Run with `cargo bench -p claude-mcp-adapter --bench run_overhead`
//! (fake-claude is built in the same profile when missing). Not a timed test: nothing here fails
//! on a slow machine except a run that does not succeed.

mod common;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::session::Adapter;
use crate::common::{fake_claude, machine, percentile};

const PROMPT: &str = "hi";
/// Warm-up iterations per side, not counted (page cache, first-exec costs).
const WARMUP: usize = 3;
/// Pause before every timed operation, so that neither side pays for background work the other
/// left behind: the adapter starts the next run's spare supervisor after a run's answer
/// (`supervisor/spare.rs`), which would otherwise run during the next direct iteration and make
/// the overhead look smaller than it is. The pause spins rather than sleeps: on this VM a core
/// that went idle wakes slowly (a sleep of even 10 ms doubled both sides' times and their noise),
/// and the rounds before this one measured back to back, with the cores busy.
const SETTLE: Duration = Duration::from_millis(5);

fn settle() {
    let until = Instant::now() + SETTLE;
    while Instant::now() < until {
        std::hint::spin_loop();
    }
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("run_overhead bench: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let n: usize = std::env::var("RUN_OVERHEAD_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(50);
    // RUN_OVERHEAD_ADAPTER measures another build (e.g. a "before" binary) against the same fake.
    let built = PathBuf::from(env!("CARGO_BIN_EXE_claude-mcp-adapter"));
    let fake = fake_claude(&built)?;
    let adapter_exe = std::env::var_os("RUN_OVERHEAD_ADAPTER").map_or(built, PathBuf::from);
    println!("adapter: {}", adapter_exe.display());
    println!("machine: {}", machine());
    println!("fake-claude: {}", fake.display());

    let dump_dir = tempfile::tempdir().map_err(|e| format!("temp dir: {e}"))?;
    let dump = dump_dir.path().join("invocation.json");
    let mut adapter = Adapter::start(&adapter_exe, &fake, &dump)?;
    let argv = adapter.native_argv(&dump)?;
    println!("native argv: {}", argv.join(" "));

    let mut direct_ms = Vec::with_capacity(n);
    let mut adapter_ms = Vec::with_capacity(n);
    for i in 0..WARMUP + n {
        settle();
        let d = direct(&fake, &argv)?;
        settle();
        let a = adapter.run(PROMPT)?;
        if i >= WARMUP {
            direct_ms.push(d);
            adapter_ms.push(a);
        }
    }
    adapter.stop()?;

    let diffs: Vec<f64> = adapter_ms
        .iter()
        .zip(&direct_ms)
        .map(|(a, d)| a - d)
        .collect();
    let (dm, dp) = (percentile(&direct_ms, 50.0), percentile(&direct_ms, 90.0));
    let (am, ap) = (percentile(&adapter_ms, 50.0), percentile(&adapter_ms, 90.0));
    println!("iterations : {n} per side (alternating, after {WARMUP} warm-up each)");
    println!("direct     : median {dm:.2} ms, p90 {dp:.2} ms (--version + print-mode run)");
    println!("claude.run : median {am:.2} ms, p90 {ap:.2} ms (tools/call to its answer)");
    println!(
        "overhead   : median of per-iteration differences {:.2} ms (p90 {:.2} ms); difference of medians {:.2} ms (goal <= 3 ms)",
        percentile(&diffs, 50.0),
        percentile(&diffs, 90.0),
        am - dm
    );
    Ok(())
}

/// One direct iteration, in ms: the version check, then the print-mode run read to EOF.
fn direct(fake: &Path, argv: &[String]) -> Result<f64, String> {
    let started = Instant::now();
    let v = Command::new(fake)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run fake-claude --version: {e}"))?;
    if !v.status.success() {
        return Err(format!("fake-claude --version: {}", v.status));
    }
    let out = Command::new(fake)
        .args(argv)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run fake-claude: {e}"))?;
    let ms = started.elapsed().as_secs_f64() * 1e3;
    if !out.status.success() || !out.stdout.ends_with(b"\n") {
        return Err(format!("the direct run failed: {}", out.status));
    }
    Ok(ms)
}

impl Adapter {
    /// Starts the adapter and initializes it.
    fn start(exe: &Path, fake: &Path, dump: &Path) -> Result<Self, String> {
        let child = Command::new(exe)
            .arg("--claude")
            .arg(fake)
            // Read by the dump-invocation scenario only (passed through, NAT-8).
            .env("FAKE_CLAUDE_DUMP", dump)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start the adapter: {e}"))?;
        Self::initialized(child, "run-overhead-bench")
    }

    /// One `claude.run`, in ms; fails unless the run succeeded.
    fn run(&mut self, prompt: &str) -> Result<f64, String> {
        let started = Instant::now();
        let resp = self.call(
            "tools/call",
            json!({"name": "claude.run", "arguments": {"prompt": prompt}}),
        )?;
        let ms = started.elapsed().as_secs_f64() * 1e3;
        let state = &resp["result"]["structuredContent"]["result"]["state"];
        if state != "succeeded" {
            return Err(format!("claude.run did not succeed: {resp}"));
        }
        Ok(ms)
    }

    /// The argv the adapter gives the native process for [`PROMPT`], read back (untimed) from a
    /// `dump-invocation` run: the same options, only the prompt differs.
    fn native_argv(&mut self, dump: &Path) -> Result<Vec<String>, String> {
        let marker = "fake-claude:scenario=dump-invocation";
        let resp = self.call(
            "tools/call",
            json!({"name": "claude.run", "arguments": {"prompt": marker}}),
        )?;
        if resp["result"]["structuredContent"]["result"]["state"] != "succeeded" {
            return Err(format!("the dump-invocation run did not succeed: {resp}"));
        }
        let rec: Value = serde_json::from_slice(
            &std::fs::read(dump).map_err(|e| format!("no invocation dump: {e}"))?,
        )
        .map_err(|e| format!("unreadable invocation dump: {e}"))?;
        let mut argv: Vec<String> = rec["argv"]
            .as_array()
            .ok_or("the dump has no argv")?
            .iter()
            .map(|a| a.as_str().map(str::to_owned).ok_or("a non-string argument"))
            .collect::<Result<_, _>>()?;
        match argv.last_mut() {
            Some(last) if last == marker => *last = PROMPT.to_owned(),
            _ => return Err(format!("the prompt is not the last argument: {argv:?}")),
        }
        Ok(argv)
    }

    /// Stdin EOF: the adapter shuts down (T8); bounded.
    fn stop(mut self) -> Result<(), String> {
        drop(self.stdin.take());
        let mut rest = Vec::new();
        let _ = self.stdout.read_to_end(&mut rest);
        let deadline = Instant::now() + Duration::from_secs(30);
        while self.child.try_wait().map_err(|e| e.to_string())?.is_none() {
            if Instant::now() > deadline {
                let _ = self.child.kill();
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.wait();
        Ok(())
    }
}
