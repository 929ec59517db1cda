//! Wall time of the default gate (`mcp-conformance` with no server command: the reference
//! adapter wired to fake-claude, provider profile, every case), measured by running the built
//! runner several times. A benchmark, not a test: timing on a shared machine is never asserted.
//!
//!     cargo build -q --workspace --bins
//!     cargo bench -p mcp-conformance --bench gate            # 5 runs of target/debug
//!     GATE_RUNS=10 GATE_ARGS="--jobs 8" cargo bench -p mcp-conformance --bench gate
//!
//! `GATE_RUNNER` names another runner executable (default: the debug build of this workspace,
//! the one the README's main job runs). Prints each run's wall time and exit status, then the
//! minimum, median and maximum.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn main() {
    let runner = std::env::var_os("GATE_RUNNER").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/debug/mcp-conformance"),
        PathBuf::from,
    );
    if !runner.is_file() {
        eprintln!(
            "gate bench: {} missing (cargo build -q --workspace --bins first)",
            runner.display()
        );
        std::process::exit(2);
    }
    let runs: usize = std::env::var("GATE_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let extra: Vec<String> = std::env::var("GATE_ARGS")
        .map(|a| a.split_whitespace().map(str::to_owned).collect())
        .unwrap_or_default();
    let mut times: Vec<Duration> = Vec::with_capacity(runs);
    for i in 1..=runs {
        let started = Instant::now();
        let status = Command::new(&runner)
            .args(&extra)
            .args(["--format", "json"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let took = started.elapsed();
        match status {
            Ok(s) => println!("run {i}: {:.2} s ({s})", took.as_secs_f64()),
            Err(e) => {
                eprintln!("gate bench: cannot run {}: {e}", runner.display());
                std::process::exit(2);
            }
        }
        times.push(took);
    }
    times.sort();
    if let (Some(min), Some(max)) = (times.first(), times.last()) {
        println!(
            "gate: min {:.2} s, median {:.2} s, max {:.2} s over {runs} runs ({})",
            min.as_secs_f64(),
            times[times.len() / 2].as_secs_f64(),
            max.as_secs_f64(),
            runner.display()
        );
    }
}
