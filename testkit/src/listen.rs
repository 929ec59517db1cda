//! Servers a test starts on loopback: a free port to give them, and a start that returns once
//! the server says on stderr that it listens (the line is the event; no polling of the port),
//! with the rest of its stderr drained so the server never blocks on a full pipe.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// A TCP port on 127.0.0.1 that was free a moment ago (bound, read and released), for a server
/// that takes its port as an argument or variable.
///
/// # Panics
/// No loopback port can be bound.
#[must_use]
pub fn free_loopback_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
        .port()
}

/// Spawns `cmd` in a process group of its own, with its stderr piped (stdin and stdout to null),
/// and returns once a stderr line contains `listening`; the rest of stderr is copied to nowhere
/// on a thread. `what` names the server in failures. The child's pid is its group's id: kill
/// the group ([`crate::procs::kill_group`]), not the child alone, so the helpers a wrapper
/// (`npx`, a Node or Python launcher) forked go with it.
///
/// # Panics
/// The server cannot be spawned, or its stderr ends (it exited) before the line came.
pub fn spawn_listening(cmd: &mut Command, listening: &str, what: &str) -> Child {
    use std::os::unix::process::CommandExt as _;
    let mut child = cmd
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("start {what}: {e}"));
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr is piped"));
    let mut line = String::new();
    loop {
        line.clear();
        let n = stderr
            .read_line(&mut line)
            .unwrap_or_else(|e| panic!("read {what}'s stderr: {e}"));
        assert!(n > 0, "{what} exited before listening");
        if line.contains(listening) {
            break;
        }
    }
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    child
}
