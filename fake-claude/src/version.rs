//! `claude --version`: the pinned line of `cli-tree.json` (NAT-1, NAT-2), embedded at build time,
//! unless env `FAKE_CLAUDE_VERSION` says otherwise.
//!
//! `FAKE_CLAUDE_VERSION` values: any text → printed instead of the pinned line; `__exit<N>` →
//! nothing on stdout, a note on stderr, exit N (a failed version check); `__hang` → never
//! answers (until the safety lifetime); `__empty` → prints nothing and exits 0.

use std::io::Write as _;

/// Env variable overriding the version answer.
pub const ENV_VERSION: &str = "FAKE_CLAUDE_VERSION";

const CLI_TREE: &str = include_str!("../../cli-tree.json");

/// `version.line` of the pinned cli-tree.json (`2.1.328 (Claude Code)`).
pub fn pinned_line() -> String {
    serde_json::from_str::<serde_json::Value>(CLI_TREE)
        .ok()
        .and_then(|v| v.pointer("/version/line")?.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// The bare version number (`2.1.328`), used in `claude_code_version` placeholders.
pub fn number() -> String {
    pinned_line()
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_owned()
}

/// Answers a version request; returns the exit code.
pub fn answer() -> i32 {
    let Ok(over) = std::env::var(ENV_VERSION) else {
        return print_line(&pinned_line());
    };
    if let Some(code) = over.strip_prefix("__exit") {
        let code = code.parse::<i32>().unwrap_or(1);
        eprintln!("fake-claude: {ENV_VERSION}={over} makes this version check fail (exit {code})");
        return code;
    }
    match over.as_str() {
        "__hang" => crate::interp::process::hang(None),
        "__empty" => 0,
        line => print_line(line),
    }
}

fn print_line(line: &str) -> i32 {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
    0
}
