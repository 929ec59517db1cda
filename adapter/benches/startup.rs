//! Start-up benchmark (bench/startup.md): in one run, side by side, for the adapter (release
//! binary, default configuration), the Node reference server `@modelcontextprotocol/server-everything`
//! (`testkit::prereq::everything_server`) and a trivial Python stdio server
//! (`benches/trivial_server.py`, answering `tools/list` with the adapter's very listing bytes):
//!
//! - **initialize**: from just before `spawn` to the `initialize` answer line, with the request
//!   written as soon as the process exists (so start-up and the first answer are both counted);
//! - **idle RSS**: `VmRSS` (and thread count) after `initialize`, `notifications/initialized`
//!   and one `tools/list`, then 200 ms idle;
//! - **tools/list**: round trip of one request to its answer line on a warm server, adapter and
//!   trivial server alternating, `STARTUP_LIST_N` (default 200) per iteration.
//!
//! `STARTUP_ADAPTER=PATH` measures another adapter binary instead (a "before" build).
//! `STARTUP_BASELINE=PATH` also measures a second build in the same iterations (before/after).
//! `STARTUP_N` iterations (default 10), each starting fresh processes. Goals: initialize ≤ 5 ms
//! and ≥ 100× faster than the Node server; idle RSS ≤ 6 MiB; tools/list ≤ 1.2× the trivial
//! server. Recorded numbers live in `bench/startup.md`. Run with
//! `cargo bench -p claude-mcp-adapter --bench startup`. Not a timed test: nothing here fails on a
//! slow machine except a server that does not answer.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{machine, percentile};

const TRIVIAL: &str = include_str!("trivial_server.py");
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"startup-bench","version":"0"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("startup bench: {e}");
            ExitCode::FAILURE
        }
    }
}

fn env_n(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(default)
}

#[derive(Default)]
struct Side {
    init_ms: Vec<f64>,
    rss_kib: Vec<f64>,
    threads: Vec<f64>,
    list_ms: Vec<f64>,
}

fn run() -> Result<(), String> {
    let n = env_n("STARTUP_N", 10);
    let list_n = env_n("STARTUP_LIST_N", 200);
    // STARTUP_ADAPTER measures another build (e.g. a "before" binary) in the same harness.
    let adapter_exe = std::env::var_os("STARTUP_ADAPTER").map_or_else(
        || PathBuf::from(env!("CARGO_BIN_EXE_claude-mcp-adapter")),
        PathBuf::from,
    );
    println!("adapter: {}", adapter_exe.display());
    let dir = tempfile::tempdir().map_err(|e| format!("temp dir: {e}"))?;
    let script = dir.path().join("trivial_server.py");
    std::fs::write(&script, TRIVIAL).map_err(|e| format!("write {}: {e}", script.display()))?;
    let listing = dir.path().join("listing.json");
    {
        // The trivial server lists exactly what the adapter lists.
        let (mut a, _) = Server::start(adapter(&adapter_exe))?;
        let (line, _) = a.request(2, "tools/list")?;
        let v: Value = serde_json::from_str(&line).map_err(|e| format!("listing: {e}"))?;
        std::fs::write(&listing, v["result"].to_string()).map_err(|e| format!("{e}"))?;
        a.stop();
    }
    let everything = testkit::prereq::everything_server().map_err(|e| format!("{e}"))?;
    println!("machine: {}", machine());

    // STARTUP_BASELINE=PATH: another adapter build measured in the same iterations (before/after
    // side by side under the same load).
    let baseline = std::env::var_os("STARTUP_BASELINE").map(PathBuf::from);
    let mut bl = Side::default();
    let (mut ad, mut ev, mut tr) = (Side::default(), Side::default(), Side::default());
    for _ in 0..n {
        if let Some(exe) = &baseline {
            let (mut b, b_ms) = Server::start(adapter(exe))?;
            bl.init_ms.push(b_ms);
            b.notify(INITIALIZED)?;
            b.request(2, "tools/list")?;
            std::thread::sleep(Duration::from_millis(200));
            let (rss, threads) = b.status()?;
            bl.rss_kib.push(rss);
            bl.threads.push(threads);
            for i in 0..list_n {
                bl.list_ms.push(b.request(10 + i as u64, "tools/list")?.1);
            }
            b.stop();
        }
        let (mut a, a_ms) = Server::start(adapter(&adapter_exe))?;
        let (mut e, e_ms) = Server::start(clone_cmd(&everything))?;
        let (mut t, t_ms) = Server::start(trivial(&script, &listing))?;
        ad.init_ms.push(a_ms);
        ev.init_ms.push(e_ms);
        tr.init_ms.push(t_ms);
        for s in [&mut a, &mut e, &mut t] {
            s.notify(INITIALIZED)?;
            s.request(2, "tools/list")?;
        }
        std::thread::sleep(Duration::from_millis(200));
        for (s, side) in [(&a, &mut ad), (&e, &mut ev), (&t, &mut tr)] {
            let (rss, threads) = s.status()?;
            side.rss_kib.push(rss);
            side.threads.push(threads);
        }
        for i in 0..list_n {
            let id = 10 + i as u64;
            ad.list_ms.push(a.request(id, "tools/list")?.1);
            tr.list_ms.push(t.request(id, "tools/list")?.1);
        }
        a.stop();
        e.stop();
        t.stop();
    }

    let med = |v: &[f64]| percentile(v, 50.0);
    let p90 = |v: &[f64]| percentile(v, 90.0);
    println!(
        "iterations: {n} (fresh processes each), tools/list round trips: {list_n} per iteration per side"
    );
    for (name, s) in [
        ("adapter", &ad),
        ("everything (node)", &ev),
        ("trivial (python)", &tr),
    ] {
        println!(
            "{name:18}: initialize median {:.2} ms p90 {:.2} ms | idle RSS median {:.0} KiB ({:.2} MiB), threads {:.0}",
            med(&s.init_ms),
            p90(&s.init_ms),
            med(&s.rss_kib),
            med(&s.rss_kib) / 1024.0,
            med(&s.threads)
        );
    }
    if let Some(exe) = &baseline {
        println!(
            "baseline {}: initialize median {:.2} ms p90 {:.2} ms | idle RSS median {:.0} KiB ({:.2} MiB), threads {:.0} | tools/list median {:.3} ms p90 {:.3} ms",
            exe.display(),
            med(&bl.init_ms),
            p90(&bl.init_ms),
            med(&bl.rss_kib),
            med(&bl.rss_kib) / 1024.0,
            med(&bl.threads),
            med(&bl.list_ms),
            p90(&bl.list_ms)
        );
    }
    println!(
        "initialize: node / adapter = {:.0}x (goal >= 100x); adapter median {:.2} ms (goal <= 5 ms)",
        med(&ev.init_ms) / med(&ad.init_ms),
        med(&ad.init_ms)
    );
    println!(
        "tools/list: adapter median {:.3} ms p90 {:.3} ms, trivial median {:.3} ms p90 {:.3} ms, ratio {:.2} (goal <= 1.2)",
        med(&ad.list_ms),
        p90(&ad.list_ms),
        med(&tr.list_ms),
        p90(&tr.list_ms),
        med(&ad.list_ms) / med(&tr.list_ms)
    );
    println!(
        "idle RSS: adapter median {:.2} MiB (goal <= 6 MiB)",
        med(&ad.rss_kib) / 1024.0
    );
    pieces();
    Ok(())
}

/// Start-up pieces timed in this process, first call (cold caches, as in a fresh adapter): what
/// the cli-tree load costs (parse, schema check, semantics), what the catalogue costs, and what
/// compiling the seven validators costs (deferred to each tool's first call, not at start-up).
fn pieces() {
    use cmk_engine::ToolNames;
    use cmk_mcp_server::catalogue::Catalogue;
    use cmk_native::cli_tree::CliTree;
    use cmk_provider_claude::ClaudeProvider;
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    let raw: Result<Value, _> = serde_json::from_str(include_str!("../../cli-tree.json"));
    let parse_ms = ms(t);
    let t = Instant::now();
    let tree = CliTree::embedded();
    let tree_ms = ms(t);
    let (Ok(_), Ok(tree)) = (raw, tree) else {
        println!("pieces: the embedded cli tree did not load");
        return;
    };
    let provider: std::sync::Arc<dyn cmk_engine::provider::Provider> = std::sync::Arc::new(
        ClaudeProvider::new("claude".into(), std::sync::Arc::new(tree)),
    );
    let t = Instant::now();
    let Ok(catalogue) = Catalogue::new(ToolNames::Dotted, 1800, &[provider]) else {
        println!("pieces: the catalogue did not build");
        return;
    };
    let catalogue_ms = ms(t);
    let t = Instant::now();
    let compiled = catalogue
        .tools()
        .iter()
        .filter(|tool| tool.validator.compile().is_ok())
        .count();
    let validators_ms = ms(t);
    let t = Instant::now();
    let listing = catalogue.tools_list_json();
    let listing_ms = ms(t);
    println!(
        "pieces (in-process, first call): cli-tree JSON parse {parse_ms:.2} ms; CliTree::embedded \
         (parse + semantics; its schema check is a test) {tree_ms:.2} ms; Catalogue::new {catalogue_ms:.2} ms; \
         compiling {compiled} validators {validators_ms:.2} ms (now on first tools/call); \
         serialising tools/list ({} bytes) {listing_ms:.3} ms (once)",
        listing.len()
    );
}

fn adapter(exe: &Path) -> Command {
    Command::new(exe)
}

fn trivial(script: &Path, listing: &Path) -> Command {
    let mut c = Command::new("python3");
    c.arg(script).arg(listing);
    c
}

fn clone_cmd(c: &Command) -> Command {
    let mut out = Command::new(c.get_program());
    out.args(c.get_args());
    for (k, v) in c.get_envs() {
        match v {
            Some(v) => out.env(k, v),
            None => out.env_remove(k),
        };
    }
    out
}

/// One server process in its own process group, killed with the group when stopped.
struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Server {
    /// Spawns and initializes; returns the time from before spawn to the answer line.
    fn start(mut cmd: Command) -> Result<(Self, f64), String> {
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0);
        let t0 = Instant::now();
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("spawn {:?}: {e}", cmd.get_program()))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err("no pipes".into());
        };
        let mut s = Self {
            child,
            stdin,
            stdout: BufReader::with_capacity(256 * 1024, stdout),
        };
        s.send(INITIALIZE)?;
        s.answer(1)?;
        Ok((s, t0.elapsed().as_secs_f64() * 1e3))
    }

    fn send(&mut self, line: &str) -> Result<(), String> {
        self.stdin
            .write_all(line.as_bytes())
            .and_then(|()| self.stdin.write_all(b"\n"))
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("write: {e}"))
    }

    fn notify(&mut self, line: &str) -> Result<(), String> {
        self.send(line)
    }

    /// Reads lines until the answer to `id` (servers may log or notify first).
    fn answer(&mut self, id: u64) -> Result<String, String> {
        let needle = format!("\"id\":{id},");
        loop {
            let mut line = String::new();
            let n = self
                .stdout
                .read_line(&mut line)
                .map_err(|e| format!("read: {e}"))?;
            if n == 0 {
                return Err("server closed stdout".into());
            }
            if line.contains(&needle) || line.contains(&format!("\"id\":{id}}}")) {
                return Ok(line);
            }
        }
    }

    fn request(&mut self, id: u64, method: &str) -> Result<(String, f64), String> {
        let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}"}}"#);
        let t0 = Instant::now();
        self.send(&line)?;
        let answer = self.answer(id)?;
        Ok((answer, t0.elapsed().as_secs_f64() * 1e3))
    }

    /// `VmRSS` in KiB and the thread count.
    fn status(&self) -> Result<(f64, f64), String> {
        let path = format!("/proc/{}/status", self.child.id());
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
        let field = |name: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|v| v.split_whitespace().next())
                .and_then(|v| v.parse::<f64>().ok())
                .unwrap_or(f64::NAN)
        };
        Ok((field("VmRSS:"), field("Threads:")))
    }

    fn stop(mut self) {
        testkit::procs::kill_group(self.child.id());
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            testkit::procs::kill_group(self.child.id());
            let _ = self.child.wait();
        }
    }
}
