//! Helpers the adapter's benches share (`mod common;` in each): the machine line every bench
//! prints, a nearest-rank percentile, a reproducible xorshift generator, fake-claude next to the
//! adapter binary, and the adapter over MCP stdio ([`session`]). Each bench uses a part of it,
//! so unused items are expected per bench.

#![allow(
    dead_code,
    reason = "every bench includes this module and uses a different part of it; `expect` would \
              fail in the benches that use all of it"
)]

pub mod session;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The machine a bench ran on: CPU model, cores available, kernel and load average (recorded
/// numbers in bench/*.md mean little without it).
pub fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("model name"))
                .map(|r| r.trim_start_matches([' ', '\t', ':']).to_owned())
        })
        .unwrap_or_else(|| "unknown cpu".into());
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_owned())
        .unwrap_or_default();
    let load = std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default();
    format!("{cpu}, {cores} cores available, Linux {kernel}, load average {load}")
}

/// The `p`th percentile (nearest rank) of the finite values of `v`, in the same unit; NaN when
/// there are none.
pub fn percentile(v: &[f64], p: f64) -> f64 {
    let mut s: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    if s.is_empty() {
        return f64::NAN;
    }
    s.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * s.len() as f64).ceil() as usize;
    s[rank.clamp(1, s.len()) - 1]
}

/// xorshift64*: reproducible from a seed, no dependency.
pub struct Rng(pub u64);

impl Rng {
    /// The next value.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A value below `n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % (n as u64)).unwrap_or(0)
    }
}

/// fake-claude next to the adapter binary, built in the same profile when missing.
pub fn fake_claude(adapter: &Path) -> Result<PathBuf, String> {
    let fake = adapter.with_file_name("fake-claude");
    if fake.is_file() {
        return Ok(fake);
    }
    let profile_dir = adapter.parent().ok_or("adapter binary has no directory")?;
    let release = profile_dir.file_name().is_some_and(|n| n == "release");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args(["build", "-p", "fake-claude"]);
    if release {
        cmd.arg("--release");
    }
    let st = cmd.status().map_err(|e| format!("cannot run cargo: {e}"))?;
    if !st.success() || !fake.is_file() {
        return Err(format!(
            "fake-claude is not built at {} (cargo build -p fake-claude{})",
            fake.display(),
            if release { " --release" } else { "" }
        ));
    }
    Ok(fake)
}
