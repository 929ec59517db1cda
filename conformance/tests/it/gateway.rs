//! The gateway profile exercised by a real gateway: the re-exporting proxy
//! (`examples/mcp_proxy/ --gateway`) in front of the reference adapter strips work and
//! continuation declarations and keeps risk (META-CONN-1), and passes; a pass-through proxy, or
//! one that forgets one tool, fails exactly `gateway/connection-local-stripped`. The proxy's own
//! containment is checked too: it ends its upstream on stdin EOF and on SIGTERM. The gateway
//! profile is RUNNER-2's; the prefixing gateway's tools are found by name suffix (RUNNER-9).

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use testkit::procs;

use crate::mutants::{Suite, adapter, proxy};

const META_CONN_1: &str = "gateway/connection-local-stripped";
/// Skips under the gateway profile: no case calls a listed tool with arguments it means to be
/// valid (the provider's run cases are not part of the profile), so the TOOL-4 error split has
/// no exchange to look at.
const ERROR_SPLIT: &str = "tools/result/error-split";

#[test]
fn a_stripping_gateway_passes_the_gateway_profile() {
    let suite = Suite::run("gateway", &["--gateway"]);
    // The gateway does not re-export the upstream connection's work resource, so there is no
    // resource to read.
    suite.assert_exactly("the gateway", &[], &["resources/read/listed", ERROR_SPLIT]);
    for id in [
        META_CONN_1,
        "meta-risk/declared",
        "meta-risk/by-role",
        "meta-risk/annotations",
        "tools/catalogue/roles",
        // Run through the gateway with fake-claude as the upstream's claude.
        "cancellation/in-flight/no-response",
    ] {
        assert_eq!(suite.outcome(id), "pass", "{id}{}", suite.explain());
    }
}

#[test]
fn a_prefixing_gateway_passes_with_every_role_found_by_name_suffix() {
    let suite = Suite::run("gateway", &["--gateway", "--prefix", "kit."]);
    suite.assert_exactly(
        "the prefixing gateway",
        &[],
        &["resources/read/listed", ERROR_SPLIT],
    );
    // INFO under the gateway profile: a pass means all seven roles were found behind the prefix.
    assert_eq!(
        suite.outcome("tools/catalogue/roles"),
        "pass",
        "{}",
        suite.explain()
    );
    assert_eq!(suite.outcome(META_CONN_1), "pass");
}

#[test]
fn a_gateway_with_opaque_tool_names_passes() {
    let suite = Suite::run("gateway", &["--gateway", "--hex-names"]);
    suite.assert_exactly(
        "the opaque-names gateway",
        &[],
        &["resources/read/listed", ERROR_SPLIT],
    );
    // Without name suffixes and without continuations only run, start, events (RUN-0's
    // arguments) and list can be told from metadata and schema: reported, never gating.
    assert_eq!(
        suite.outcome("tools/catalogue/roles"),
        "info",
        "{}",
        suite.explain()
    );
    assert_eq!(suite.outcome(META_CONN_1), "pass");
}

#[test]
fn a_pass_through_proxy_fails_only_meta_conn_1_under_the_gateway_profile() {
    let suite = Suite::run("gateway", &[]);
    suite.assert_exactly("the pass-through proxy", &[META_CONN_1], &[ERROR_SPLIT]);
}

// The runner once graded META-CONN-1 only on tools whose role it recognised; behind opaque names
// cancel and release have no recognisable role, so a kept continuation there passed. Now every
// listed tool is checked.
#[test]
fn a_gateway_that_keeps_a_renamed_tools_continuation_fails_meta_conn_1() {
    for names in [&["--hex-names"][..], &[]] {
        let mut args = vec!["--gateway", "--mutate", "gateway-keeps-cancel-continuation"];
        args.extend_from_slice(names);
        let suite = Suite::run("gateway", &args);
        suite.assert_exactly(
            &format!("the gateway keeping cancel's continuation {names:?}"),
            &[META_CONN_1],
            &["resources/read/listed", ERROR_SPLIT],
        );
        let actual = crate::support::case(&suite.report, META_CONN_1)["actual"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        assert!(
            actual.contains("continuation declaration kept")
                && !actual.contains("work declaration"),
            "{actual}"
        );
    }
}

// META-CONN-1 keeps risk, META-RISK-2 says which: a gateway that lowers cancel to read-only
// fails the two risk checks whether its names give the role away (a prefix) or not (opaque ids).
// Behind opaque names the runner once could not see it: it told run and start apart by their
// declared risk, and result, cancel and release not at all.
#[test]
fn a_gateway_lowering_a_risk_fails_the_risk_checks_behind_any_names() {
    for names in [&["--hex-names"][..], &["--prefix", "kit."]] {
        let mut args = vec!["--gateway", "--mutate", "wrong-risk"];
        args.extend_from_slice(names);
        let suite = Suite::run("gateway", &args);
        suite.assert_exactly(
            &format!("the gateway declaring cancel read-only {names:?}"),
            &["meta-risk/by-role", META_CONN_1],
            &["resources/read/listed", ERROR_SPLIT],
        );
    }
}

/// Starts `mcp_proxy --gateway -- claude-mcp-adapter` leading its own group, initializes it and
/// returns it with its stdin and stdout, once the upstream answered (so both processes run).
fn started_gateway() -> (
    std::process::Child,
    std::process::ChildStdin,
    BufReader<std::process::ChildStdout>,
) {
    started_proxy(&["--gateway"])
}

/// Starts `mcp_proxy ARGS -- claude-mcp-adapter` as [`started_gateway`] does.
fn started_proxy(
    args: &[&str],
) -> (
    std::process::Child,
    std::process::ChildStdin,
    BufReader<std::process::ChildStdout>,
) {
    let mut child = Command::new(proxy())
        .args(args)
        .args(["--", &adapter()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .expect("start the proxy");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#
    )
    .expect("write initialize");
    let mut line = String::new();
    stdout.read_line(&mut line).expect("read initialize");
    assert!(line.contains("\"protocolVersion\""), "{line}");
    assert!(
        procs::group_members_with_zombies(child.id()).len() >= 2,
        "the upstream runs in the proxy's group"
    );
    (child, stdin, stdout)
}

/// Waits (bounded) for the proxy to exit, then for its group to be empty.
fn exits_and_leaves_nothing(child: &mut std::process::Child) -> std::process::ExitStatus {
    let pgid = child.id();
    let until = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            break status;
        }
        if Instant::now() > until {
            procs::kill_group(pgid);
            panic!("the proxy did not exit");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    // Zombies count: the proxy reaps its upstream before it exits.
    let left = procs::group_members_with_zombies(pgid);
    if !left.is_empty() {
        procs::kill_group(pgid);
    }
    assert!(left.is_empty(), "left in the proxy's group: {left:?}");
    status
}

#[test]
fn the_proxy_ends_its_upstream_on_stdin_eof_and_exits_with_its_status() {
    let (mut child, stdin, _stdout) = started_gateway();
    drop(stdin);
    let status = exits_and_leaves_nothing(&mut child);
    // T8: the upstream exits 0 after EOF and the proxy passes that on.
    assert_eq!(status.code(), Some(0), "{status}");
}

/// SIGTERMs the proxy only (not the group): it must pass the signal on to its upstream.
fn sigterm(child: &std::process::Child) {
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(i32::try_from(child.id()).expect("pid")),
        nix::sys::signal::Signal::SIGTERM,
    )
    .expect("SIGTERM the proxy");
}

#[test]
fn the_proxy_ends_its_upstream_on_sigterm_and_exits_0_as_the_upstream_does() {
    let (mut child, _stdin, _stdout) = started_gateway();
    sigterm(&child);
    let status = exits_and_leaves_nothing(&mut child);
    // T8: the adapter exits 0 on SIGTERM and the proxy passes that clean shutdown on.
    assert_eq!(status.code(), Some(0), "{status}");
}

#[test]
fn the_sigterm_exit_nonzero_mutant_still_ends_its_upstream() {
    let (mut child, _stdin, _stdout) = started_proxy(&["--mutate", "sigterm-exit-nonzero"]);
    sigterm(&child);
    // Only the status is wrong (T8): containment holds, so the runner's case fails on the
    // status alone.
    let status = exits_and_leaves_nothing(&mut child);
    assert_eq!(status.code(), Some(1), "{status}");
}
