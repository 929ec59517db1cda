//! The spare supervisor (C-SUP-2): the MCP server starts the next run's supervisor after an
//! answer, so a run does not wait for a supervisor's exec. What a spare may and may not be: it
//! holds nothing of any run, the next run runs under it, it ends with the last retained run's
//! release, and it dies with the adapter even when the adapter is SIGKILLed (SUP-2).

use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::{Value, json};
use testkit::procs::{self, ProcStat};

use super::{Harness, args, split};

const BOUND: Duration = Duration::from_secs(20);

/// The adapter's children, zombies included.
fn children(adapter: u32) -> Vec<ProcStat> {
    procs::scan()
        .into_iter()
        .filter(|p| p.ppid == adapter)
        .collect()
}

/// Waits (bounded) until the adapter has exactly one child, alive, that has become the spare
/// (exec'd as `__supervise`), which it starts once the answer before was written. Between the
/// fork and the exec the child is still a copy of the adapter, with the adapter's argv.
fn the_spare(adapter: u32) -> ProcStat {
    let deadline = Instant::now() + BOUND;
    let supervising = |pid: u32| {
        std::fs::read(format!("/proc/{pid}/cmdline"))
            .is_ok_and(|c| c.split(|b| *b == 0).any(|a| a == b"__supervise"))
    };
    loop {
        let now = children(adapter);
        if let [one] = now.as_slice()
            && !one.is_zombie()
            && supervising(one.pid)
        {
            return *one;
        }
        assert!(
            Instant::now() < deadline,
            "no spare supervisor within {BOUND:?}: children {now:?}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Waits (bounded) until the spare `pid` has marked what it inherited close-on-exec, which it
/// does first thing, before it reads its job (NAT-8): the spare exists as a child a moment
/// before that, and a look in between would see the inherited descriptors unmarked. After the
/// bound the assertions that follow report whatever is still unmarked.
fn settled_before_its_job(pid: u32, control: Option<&std::path::Path>) {
    let deadline = Instant::now() + BOUND;
    while Instant::now() < deadline {
        let unmarked = procs::open_fds(pid).expect("fds").into_iter().any(|n| {
            let target = std::fs::read_link(format!("/proc/{pid}/fd/{n}")).ok();
            n > 2 && target.as_deref() != control && !cloexec(pid, n)
        });
        if !unmarked {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Whether descriptor `n` of `pid` is close-on-exec (`/proc/<pid>/fdinfo/<n>`, flags in octal).
fn cloexec(pid: u32, n: i32) -> bool {
    let info = std::fs::read_to_string(format!("/proc/{pid}/fdinfo/{n}")).expect("fdinfo");
    let flags = info
        .lines()
        .find_map(|l| l.strip_prefix("flags:"))
        .and_then(|f| u32::from_str_radix(f.trim(), 8).ok())
        .expect("flags");
    flags & 0o2_000_000 != 0
}

fn succeeded(h: &mut Harness) -> String {
    let (r, is_error) = split(&h.run(args("success", json!({}))));
    assert!(!is_error, "{r}");
    assert_eq!(r["state"], "succeeded", "{r}");
    r["run_id"].as_str().expect("run_id").to_owned()
}

#[test]
fn the_next_run_runs_under_a_spare_that_holds_nothing_and_ends_with_the_last_release() {
    let mut h = Harness::new();
    let adapter = h.s.pid();
    assert!(
        children(adapter).is_empty(),
        "an adapter that has run nothing has no child"
    );
    let first = succeeded(&mut h);
    let spare = the_spare(adapter);

    // What a spare is: the adapter binary as `__supervise` and nothing more (its job comes over
    // the control socket), in a group of its own (SUP-2), with no environment and cwd `/` (none of
    // the adapter's, NAT-8), holding only its control socket and /dev/null: no run's descriptor.
    let cmdline = std::fs::read(format!("/proc/{}/cmdline", spare.pid)).expect("cmdline");
    let argv: Vec<&[u8]> = cmdline
        .split(|b| *b == 0)
        .filter(|a| !a.is_empty())
        .collect();
    assert_eq!(argv[1..], [b"__supervise".as_slice()], "{argv:?}");
    assert_eq!(
        procs::exe(spare.pid),
        procs::exe(adapter),
        "the spare is the adapter's own binary"
    );
    assert_eq!(spare.pgrp, spare.pid, "its own process group");
    let environ = std::fs::read(format!("/proc/{}/environ", spare.pid)).expect("environ");
    assert!(environ.is_empty(), "no environment: {environ:?}");
    let cwd = std::fs::read_link(format!("/proc/{}/cwd", spare.pid)).expect("cwd");
    assert_eq!(cwd, std::path::Path::new("/"));
    // Beyond 0..2 it holds its own copy of the control socket and only what the adapter itself
    // inherited from whoever started it (a test runner's descriptors), made close-on-exec so no
    // native process gets them.
    let control = std::fs::read_link(format!("/proc/{}/fd/0", spare.pid)).ok();
    settled_before_its_job(spare.pid, control.as_deref());
    for n in procs::open_fds(spare.pid).expect("fds") {
        let target = |pid: u32| std::fs::read_link(format!("/proc/{pid}/fd/{n}")).ok();
        if n <= 2 || target(spare.pid) == control {
            continue;
        }
        assert_eq!(
            target(spare.pid),
            target(adapter),
            "fd {n} of the spare is not one the adapter holds under that number"
        );
        assert!(
            !cloexec(adapter, n),
            "fd {n} of the spare is one the adapter opened, not one it inherited"
        );
        assert!(cloexec(spare.pid, n), "fd {n} would reach a native process");
    }
    let fd = |n: u32| std::fs::read_link(format!("/proc/{}/fd/{n}", spare.pid)).expect("fd");
    assert!(
        fd(0).to_string_lossy().starts_with("socket:"),
        "{:?}",
        fd(0)
    );
    assert_eq!(fd(1), std::path::Path::new("/dev/null"));
    assert_eq!(fd(2), std::path::Path::new("/dev/null"));

    // The next run (its version check and the run) runs under that spare.
    let second = succeeded(&mut h);
    let runs = h.runs();
    let last = runs.last().expect("the second run's invocation");
    assert_eq!(
        last["ppid"],
        json!(spare.pid),
        "the run's supervisor is the spare"
    );
    assert!(
        !procs::alive(spare.pid),
        "the spare ended with its run, as every supervisor does"
    );

    // Releasing the last retained run leaves the adapter with no child at all, zombie or not,
    // by the time the release is answered.
    let _ = the_spare(adapter);
    for id in [&first, &second] {
        let (r, is_error) = h.tool("claude.run.release", json!({ "run_id": id }));
        assert!(!is_error, "{r}");
        assert_eq!(r["released"], Value::Bool(true));
    }
    assert_eq!(children(adapter), [], "no child with no retained run");
}

#[test]
fn a_spare_dies_with_its_adapter_even_on_sigkill() {
    // SUP-2: the spare's lifeline is its control socket; the kernel closes the adapter's end
    // when the adapter dies, however it dies.
    let mut h = Harness::new();
    let adapter = h.s.pid();
    succeeded(&mut h);
    let spare = the_spare(adapter);
    kill(
        Pid::from_raw(i32::try_from(adapter).expect("pid")),
        Signal::SIGKILL,
    )
    .expect("SIGKILL the adapter");
    assert!(
        procs::wait_gone(spare.pid, BOUND),
        "the spare {} outlived its SIGKILLed adapter",
        spare.pid
    );
}

#[test]
fn a_spare_that_died_before_its_run_is_replaced_and_the_run_still_succeeds() {
    // A kept spare can die before it is used (an operator's kill, the OOM killer). Its socket
    // then refuses the job; the run gets a fresh supervisor instead of a spawn failure.
    let mut h = Harness::new();
    let adapter = h.s.pid();
    succeeded(&mut h);
    let dead = the_spare(adapter);
    kill(
        Pid::from_raw(i32::try_from(dead.pid).expect("pid")),
        Signal::SIGKILL,
    )
    .expect("SIGKILL the spare");
    assert!(procs::wait_gone(dead.pid, BOUND), "the spare did not die");
    succeeded(&mut h);
    let runs = h.runs();
    let last = runs.last().expect("the second run's invocation");
    assert_ne!(
        last["ppid"],
        json!(dead.pid),
        "the run's supervisor is not the dead spare"
    );
}
