//! Wall and CPU time of the default gate (`mcp-conformance` with no server command: the
//! reference adapter wired to fake-claude and fake-cursor-agent, provider profile, every case),
//! measured by running built runners several times, side by side. A benchmark, not a test:
//! timing on a shared machine is never asserted.
//!
//!     cargo build -q --workspace --bins
//!     cargo build -q --release -p mcp-conformance -p claude-mcp-adapter -p fake-claude -p fake-cursor-agent
//!     cargo bench -p mcp-conformance --bench gate            # 5 rounds
//!     GATE_RUNS=10 GATE_ARGS="--jobs 8" cargo bench -p mcp-conformance --bench gate
//!
//! `GATE_RUNNERS` names the runner executables to compare, separated by `:` (default: the
//! debug build of this workspace, the one the README's main job runs, and the release build
//! when it exists; each finds the adapter and the fakes next to it). Runners take turns within
//! each round, so they see the same load. Prints each run's wall time, CPU time (user + system
//! of the runner and everything it started) and exit status, then per runner the minimum,
//! median and maximum wall time and the median CPU time.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::resource::{UsageWho, getrusage};

/// User + system CPU of every waited-for descendant so far.
fn children_cpu() -> Duration {
    getrusage(UsageWho::RUSAGE_CHILDREN).map_or(Duration::ZERO, |u| {
        let t = |tv: nix::sys::time::TimeVal| {
            Duration::new(
                u64::try_from(tv.tv_sec()).unwrap_or(0),
                u32::try_from(tv.tv_usec()).unwrap_or(0) * 1000,
            )
        };
        t(u.user_time()) + t(u.system_time())
    })
}

fn runners() -> Vec<PathBuf> {
    if let Some(list) = std::env::var_os("GATE_RUNNERS") {
        return std::env::split_paths(&list).collect();
    }
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let target = manifest.parent().unwrap_or(&manifest).join("target");
    let mut all = vec![target.join("debug/mcp-conformance")];
    let release = target.join("release/mcp-conformance");
    if release.is_file() {
        all.push(release);
    }
    all
}

fn main() {
    let runners = runners();
    for r in &runners {
        if !r.is_file() {
            eprintln!(
                "gate bench: {} missing (cargo build -q --workspace --bins first)",
                r.display()
            );
            std::process::exit(2);
        }
    }
    let runs: usize = match std::env::var("GATE_RUNS") {
        Err(_) => 5,
        Ok(v) => match v.parse() {
            Ok(n) if n > 0 => n,
            _ => {
                eprintln!("gate bench: GATE_RUNS={v:?} is not a positive number of runs");
                std::process::exit(2);
            }
        },
    };
    let extra: Vec<String> = std::env::var("GATE_ARGS")
        .map(|a| a.split_whitespace().map(str::to_owned).collect())
        .unwrap_or_default();
    let mut walls: Vec<Vec<Duration>> = vec![Vec::with_capacity(runs); runners.len()];
    let mut cpus: Vec<Vec<Duration>> = vec![Vec::with_capacity(runs); runners.len()];
    for i in 1..=runs {
        for (k, runner) in runners.iter().enumerate() {
            let cpu_before = children_cpu();
            let started = Instant::now();
            let status = Command::new(runner)
                .args(&extra)
                .args(["--format", "json"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
            let took = started.elapsed();
            let cpu = children_cpu().saturating_sub(cpu_before);
            match status {
                Ok(s) => println!(
                    "round {i}, {}: {:.2} s wall, {:.2} s CPU ({s})",
                    runner.display(),
                    took.as_secs_f64(),
                    cpu.as_secs_f64()
                ),
                Err(e) => {
                    eprintln!("gate bench: cannot run {}: {e}", runner.display());
                    std::process::exit(2);
                }
            }
            walls[k].push(took);
            cpus[k].push(cpu);
        }
    }
    for (k, runner) in runners.iter().enumerate() {
        walls[k].sort();
        cpus[k].sort();
        let (w, c) = (&walls[k], &cpus[k]);
        if let (Some(min), Some(max)) = (w.first(), w.last()) {
            println!(
                "gate: min {:.2} s, median {:.2} s, max {:.2} s wall; median {:.2} s CPU; over {runs} runs ({})",
                min.as_secs_f64(),
                w[w.len() / 2].as_secs_f64(),
                max.as_secs_f64(),
                c[c.len() / 2].as_secs_f64(),
                runner.display()
            );
        }
    }
}
