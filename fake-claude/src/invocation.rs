//! The invocation record: what the fake was started with (argv, environment, open descriptors,
//! process ids, whether stdin is /dev/null). Appended as one JSON line to `FAKE_CLAUDE_LOG` for
//! every invocation, `--version` runs included, and written whole by `dump` steps, so tests can
//! assert NAT-7 (stdin /dev/null, prompt after `--`), NAT-8 (no inherited descriptors beyond 0-2,
//! no `CLAUDECODE`) and SUP-1 (own process group).

use std::io::Write as _;
use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _};

use serde_json::{Map, Value, json};

/// Env variable: a file to append one JSON line per invocation to.
pub const ENV_LOG: &str = "FAKE_CLAUDE_LOG";

/// Builds the record. Call first thing, before the fake opens any file of its own.
pub fn record(args: &[String]) -> Value {
    let fds = open_fds();
    let exe = std::env::args_os()
        .next()
        .map(|a| a.to_string_lossy().into_owned());
    let env: Map<String, Value> = std::env::vars_os()
        .map(|(k, v)| {
            (
                k.to_string_lossy().into_owned(),
                Value::String(v.to_string_lossy().into_owned()),
            )
        })
        .collect();
    let cwd = std::env::current_dir()
        .map(|p| p.display().to_string())
        .ok();
    json!({
        "argv": args,
        "exe": exe,
        "env": env,
        "fds": fds,
        "pid": std::process::id(),
        "ppid": nix::unistd::getppid().as_raw(),
        "pgid": nix::unistd::getpgrp().as_raw(),
        "sid": nix::unistd::getsid(None).map(|p| p.as_raw()).ok(),
        "uid": real_uid(),
        "cwd": cwd,
        "stdin_is_devnull": stdin_is_devnull(),
        "stdin_is_tty": nix::unistd::isatty(std::io::stdin()).unwrap_or(false),
    })
}

/// The real user id (what the real CLI's root check looks at).
pub fn real_uid() -> u32 {
    nix::unistd::getuid().as_raw()
}

/// Open descriptors with their link targets, without the one used to list the directory: it is
/// closed again by the time the links are read, so its readlink fails and it drops out.
fn open_fds() -> Vec<Value> {
    let mut numbers: Vec<i32> = match std::fs::read_dir("/proc/self/fd") {
        Ok(dir) => dir
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
            .collect(),
        Err(_) => Vec::new(),
    };
    numbers.sort_unstable();
    numbers
        .into_iter()
        .filter_map(|fd| {
            let target = std::fs::read_link(format!("/proc/self/fd/{fd}")).ok()?;
            Some(json!({"fd": fd, "target": target.display().to_string()}))
        })
        .collect()
}

/// Whether descriptor 0 is the /dev/null character device (NAT-7).
pub fn stdin_is_devnull() -> bool {
    let Ok(stdin) = std::fs::metadata("/proc/self/fd/0") else {
        return false;
    };
    let Ok(null) = std::fs::metadata("/dev/null") else {
        return false;
    };
    stdin.file_type().is_char_device() && stdin.rdev() == null.rdev()
}

/// Appends the record as one line with a single `write` on an `O_APPEND` descriptor, so lines
/// of several fakes logging to one file never interleave.
pub fn append_log(path: &str, record: &Value) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(record)?;
    line.push(b'\n');
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    let n = f.write(&line)?;
    if n != line.len() {
        return Err(std::io::Error::other("short append to the invocation log"));
    }
    Ok(())
}

/// Writes the record (pretty enough to read, one JSON document) to `path`, replacing it.
pub fn write_dump(path: &str, record: &Value) -> std::io::Result<()> {
    let mut text = serde_json::to_vec(record)?;
    text.push(b'\n');
    std::fs::write(path, text)
}
