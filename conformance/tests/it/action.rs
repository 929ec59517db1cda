//! The gate packaged for vendors' CI: the root `action.yml`'s logic, `.ci/gate`,
//! run as CI would run it, against the reference adapter (passes, shard by shard) and against a
//! one-defect server (fails, with the defect as a JUnit `<failure>`); the action maps each of its
//! inputs onto the script; and `cargo install` of the runner, the reference adapter and its two
//! fakes into a temporary root, from which the gate runs (slow but always run: it reuses this
//! build's target directory).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::support::{describe, toy};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_owned()
}

fn runner_path() -> &'static str {
    env!("CARGO_BIN_EXE_mcp-conformance")
}

/// What one gate run left: exit status, output, the reports, and the GitHub outputs it wrote.
struct Gate {
    out: Output,
    junit: String,
    json: Value,
    outputs: String,
    _dir: tempfile::TempDir,
}

/// Runs `.ci/gate` with `env` (GATE_* variables) and a fresh report directory.
fn gate(env: &[(&str, &str)]) -> Gate {
    gate_with(Command::new(repo().join(".ci/gate")), runner_path(), env)
}

fn gate_with(mut cmd: Command, runner: &str, env: &[(&str, &str)]) -> Gate {
    let dir = tempfile::tempdir().expect("tempdir");
    let reports = dir.path().join("reports");
    let outputs = dir.path().join("github-output");
    cmd.env("GATE_RUNNER", runner)
        .env("GATE_REPORT_DIR", &reports)
        .env("GITHUB_OUTPUT", &outputs);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run .ci/gate");
    let junit = std::fs::read_to_string(reports.join("junit.xml"))
        .unwrap_or_else(|e| panic!("no junit.xml ({e}): {}", describe(&out)));
    let json = std::fs::read_to_string(reports.join("report.json"))
        .map(|t| serde_json::from_str(&t).expect("report.json parses"))
        .unwrap_or_else(|e| panic!("no report.json ({e}): {}", describe(&out)));
    let outputs = std::fs::read_to_string(&outputs).unwrap_or_default();
    Gate {
        out,
        junit,
        json,
        outputs,
        _dir: dir,
    }
}

/// The `testsuites` element's attribute `name`, as a number.
fn total(junit: &str, name: &str) -> u64 {
    let head = junit
        .lines()
        .find(|l| l.trim_start().starts_with("<testsuites"))
        .expect("a testsuites element");
    let key = format!(" {name}=\"");
    let at = head.find(&key).expect("attribute") + key.len();
    head[at..]
        .split('"')
        .next()
        .and_then(|n| n.parse().ok())
        .expect("a number")
}

fn case_ids(report: &Value) -> Vec<String> {
    report["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| c["id"].as_str().expect("id").to_owned())
        .collect()
}

#[test]
fn the_gate_passes_the_reference_adapter_shard_by_shard_with_junit_per_shard() {
    // The kit's default target (empty server command): the reference adapter wired to
    // fake-claude, which must sit next to the runner (the workspace build puts it there).
    let shards = [
        ("tools lifecycle", &["tools/", "lifecycle/"][..]),
        ("runs/outcome", &["runs/outcome/"][..]),
    ];
    for (cases, prefixes) in shards {
        let g = gate(&[
            ("GATE_REFERENCE", "true"),
            ("GATE_CASES", cases),
            ("GATE_STRICT", "true"),
        ]);
        assert_eq!(
            g.out.status.code(),
            Some(0),
            "{cases}: {}",
            describe(&g.out)
        );
        assert_eq!(g.json["exit_code"], 0, "{cases}");
        assert_eq!(g.json["profile"], "provider", "{cases}");
        let ids = case_ids(&g.json);
        assert!(!ids.is_empty(), "{cases}: an empty shard proves nothing");
        // Besides the cross-cutting cases every shard keeps (graded on the shard's exchanges).
        let crosscut: Vec<&str> = mcp_conformance::mcp::catalogue::all()
            .iter()
            .filter(|c| c.needs.crosscut())
            .map(|c| c.id)
            .collect();
        for id in &ids {
            assert!(
                prefixes.iter().any(|p| id.starts_with(p)) || crosscut.contains(&id.as_str()),
                "{cases}: {id} is outside the shard"
            );
        }
        // The JUnit of the shard has its cases and no failure or error.
        assert_eq!(
            total(&g.junit, "tests"),
            ids.len() as u64,
            "{cases}: {}",
            g.junit
        );
        assert_eq!(total(&g.junit, "failures"), 0, "{}", g.junit);
        assert_eq!(total(&g.junit, "errors"), 0, "{}", g.junit);
        assert!(!g.junit.contains("<failure"), "{}", g.junit);
        // The action's outputs point at the reports.
        assert!(g.outputs.contains("exit-code=0\n"), "{}", g.outputs);
        assert!(
            g.outputs
                .lines()
                .any(|l| l.starts_with("junit=/") && l.ends_with("/junit.xml"))
        );
        assert!(
            g.outputs
                .lines()
                .any(|l| l.starts_with("json=/") && l.ends_with("/report.json"))
        );
    }
}

#[test]
fn the_gate_fails_a_one_defect_server_with_its_defect_as_a_junit_failure() {
    // toy_server --log-on-call writes a log line on stdout on each tools/call: T1, one case.
    let server = format!("{} --log-on-call", toy().display());
    let g = gate(&[("GATE_SERVER_COMMAND", &server), ("GATE_PROFILE", "plain")]);
    assert_eq!(g.out.status.code(), Some(1), "{}", describe(&g.out));
    assert!(g.outputs.contains("exit-code=1\n"), "{}", g.outputs);
    let failed: BTreeSet<&str> = g.json["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .filter(|c| c["outcome"] == "fail")
        .filter_map(|c| c["id"].as_str())
        .collect();
    assert_eq!(failed, BTreeSet::from(["lifecycle/stdout/protocol-only"]));
    assert_eq!(total(&g.junit, "failures"), 1, "{}", g.junit);
    let at = g
        .junit
        .find("name=\"lifecycle/stdout/protocol-only\"")
        .expect("the defect's testcase");
    let rest = &g.junit[at..];
    let end = rest.find("</testcase>").expect("the testcase has a body");
    assert!(rest[..end].contains("<failure"), "{}", &rest[..end]);
}

#[test]
fn a_baseline_and_strict_reach_the_runner_through_the_gate() {
    let dir = tempfile::tempdir().expect("tempdir");
    let baseline = dir.path().join("known-failures.txt");
    std::fs::write(
        &baseline,
        "# T1: the log line is known\nlifecycle/stdout/protocol-only\n",
    )
    .expect("write baseline");
    let defect = format!("{} --log-on-call", toy().display());
    let baseline_text = baseline.display().to_string();
    let g = gate(&[
        ("GATE_SERVER_COMMAND", &defect),
        ("GATE_BASELINE", &baseline_text),
    ]);
    assert_eq!(g.out.status.code(), Some(0), "{}", describe(&g.out));
    assert_eq!(g.json["baseline"]["listed"], 1, "{}", g.json["baseline"]);
    // The same baseline against the conformant toy is stale: strict both ways.
    let clean = toy().display().to_string();
    let g = gate(&[
        ("GATE_SERVER_COMMAND", &clean),
        ("GATE_BASELINE", &baseline_text),
    ]);
    assert_eq!(g.out.status.code(), Some(1), "{}", describe(&g.out));
    // --strict passes through (the conformant toy passes it).
    let g = gate(&[("GATE_SERVER_COMMAND", &clean), ("GATE_STRICT", "true")]);
    assert_eq!(g.out.status.code(), Some(0), "{}", describe(&g.out));
    assert_eq!(g.json["strict"], true, "{}", describe(&g.out));
}

#[test]
fn min_coverage_reaches_the_runner_through_the_gate() {
    // A server that marks no tool read-only: its tool shard grades too little for 90 %.
    let server = format!("{} --no-read-only-hint", toy().display());
    let env = [
        ("GATE_SERVER_COMMAND", server.as_str()),
        ("GATE_CASES", "tools"),
        ("GATE_MIN_COVERAGE", "90"),
    ];
    let g = gate(&env);
    assert_eq!(g.out.status.code(), Some(1), "{}", describe(&g.out));
    assert!(g.outputs.contains("exit-code=1\n"), "{}", g.outputs);
    assert_eq!(g.json["coverage"]["min_percent"], 90.0, "{}", g.json);
    assert!(g.junit.contains("type=\"min-coverage\""), "{}", g.junit);
    // A value that is no percentage is the runner's usage error (before any report).
    let dir = tempfile::tempdir().expect("tempdir");
    let out = Command::new(repo().join(".ci/gate"))
        .env("GATE_RUNNER", runner_path())
        .env("GATE_REPORT_DIR", dir.path())
        .env("GATE_SERVER_COMMAND", &server)
        .env("GATE_MIN_COVERAGE", "abc")
        .output()
        .expect("run .ci/gate");
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("percentage from 0 to 100"),
        "{}",
        describe(&out)
    );
}

#[test]
fn revisions_reach_the_runner_through_the_gate() {
    // T2: only the revisions asked for are graded; an unknown date is the runner's usage error.
    let server = toy().display().to_string();
    let env = [
        ("GATE_SERVER_COMMAND", server.as_str()),
        ("GATE_CASES", "lifecycle/initialize"),
        ("GATE_REVISIONS", "2025-06-18"),
    ];
    let g = gate(&env);
    assert_eq!(g.out.status.code(), Some(0), "{}", describe(&g.out));
    let cases = g.json["cases"].as_array().expect("cases");
    assert!(!cases.is_empty(), "{}", g.json);
    for c in cases {
        let rev = c["revision"].as_str().unwrap_or_default();
        assert!(
            rev.is_empty() || rev == "2025-06-18",
            "only 2025-06-18 is graded: {c}"
        );
    }
    assert!(
        cases.iter().any(|c| c["revision"] == "2025-06-18"),
        "{}",
        g.json
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let out = Command::new(repo().join(".ci/gate"))
        .env("GATE_RUNNER", runner_path())
        .env("GATE_REPORT_DIR", dir.path())
        .env("GATE_SERVER_COMMAND", &server)
        .env("GATE_REVISIONS", "1999-01-01")
        .output()
        .expect("run .ci/gate");
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
}

#[test]
fn a_gate_that_cannot_run_exits_2() {
    let out = Command::new(repo().join(".ci/gate"))
        .env("GATE_RUNNER", runner_path())
        .env("GATE_STRICT", "maybe")
        .env(
            "GATE_REPORT_DIR",
            tempfile::tempdir().expect("tempdir").path(),
        )
        .output()
        .expect("run .ci/gate");
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let out = Command::new(repo().join(".ci/gate"))
        .env("GATE_RUNNER", "/nonexistent/mcp-conformance")
        .output()
        .expect("run .ci/gate");
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
}

#[test]
fn an_empty_server_command_is_refused_unless_the_reference_adapter_is_asked_for() {
    // A workflow whose variable is unset must not check the kit's own adapter and go green.
    for env in [
        vec![],
        vec![("GATE_SERVER_COMMAND", "")],
        vec![("GATE_SERVER_COMMAND", "  ")],
        vec![("GATE_SERVER_COMMAND", ""), ("GATE_REFERENCE", "false")],
        vec![("GATE_REFERENCE", "maybe")],
        vec![
            ("GATE_SERVER_COMMAND", "my-server"),
            ("GATE_REFERENCE", "true"),
        ],
    ] {
        let reports = tempfile::tempdir().expect("tempdir");
        let mut cmd = Command::new(repo().join(".ci/gate"));
        cmd.env_remove("GATE_SERVER_COMMAND")
            .env_remove("GATE_REFERENCE")
            .env("GATE_RUNNER", runner_path())
            .env("GATE_REPORT_DIR", reports.path());
        for (k, v) in &env {
            cmd.env(k, v);
        }
        let out = cmd.output().expect("run .ci/gate");
        assert_eq!(out.status.code(), Some(2), "{env:?}: {}", describe(&out));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("gate: "), "{env:?}: {stderr}");
        assert!(
            !reports.path().join("report.json").exists(),
            "{env:?}: the runner did not run"
        );
    }
}

#[test]
fn the_action_maps_every_input_onto_the_gate_script() {
    let action = std::fs::read_to_string(repo().join("action.yml")).expect("action.yml");
    let script = std::fs::read_to_string(repo().join(".ci/gate")).expect(".ci/gate");
    assert!(action.contains("using: composite"));
    assert!(action.contains("\"$GITHUB_ACTION_PATH/.ci/gate\""));
    for (input, var) in [
        ("server-command", "GATE_SERVER_COMMAND"),
        ("url", "GATE_URL"),
        ("reference-adapter", "GATE_REFERENCE"),
        ("profile", "GATE_PROFILE"),
        ("baseline", "GATE_BASELINE"),
        ("strict", "GATE_STRICT"),
        ("cases", "GATE_CASES"),
        ("report-dir", "GATE_REPORT_DIR"),
        ("timeout-ms", "GATE_TIMEOUT_MS"),
        ("min-coverage", "GATE_MIN_COVERAGE"),
        ("revisions", "GATE_REVISIONS"),
    ] {
        assert!(
            action.contains(&format!("\n  {input}:\n")),
            "input {input} is declared"
        );
        assert!(
            action.contains(&format!("{var}: ${{{{ inputs.{input} }}}}")),
            "input {input} reaches {var}"
        );
        assert!(
            script.contains(&format!("${{{var}")),
            "the script reads {var}"
        );
    }
    for output in ["junit", "json", "exit-code"] {
        assert!(
            action.contains(&format!("steps.gate.outputs.{output} }}}}")),
            "{output}"
        );
        assert!(
            script.contains(&format!("echo \"{output}=")),
            "the script writes {output}"
        );
    }
}

/// Full tier (a `cargo install` recompiles whatever this build's artifacts do not match: minutes
/// on a fresh clone): `cargo install` of the binaries (the runner, the reference adapter,
/// fake-claude and fake-cursor-agent, which the built-in target drives for its two tool
/// families) into a temporary root, as docs/ci.md says, reusing this build's target directory
/// (`CARGO_TARGET_DIR`, `--debug`) so CI does not build them twice; then the gate runs from that
/// root alone, the runner finding the adapter and fake-claude next to itself.
#[test]
#[cfg_attr(not(cmk_full), ignore = "full tier: CMK_FULL=1")]
fn the_binaries_install_into_a_fresh_root_and_run_the_gate_from_there() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let target = Path::new(runner_path())
        .parent()
        .and_then(Path::parent)
        .expect("the target directory")
        .to_owned();
    let root = tempfile::tempdir().expect("tempdir");
    for package in ["conformance", "adapter", "fake-claude", "fake-cursor-agent"] {
        let out = Command::new(&cargo)
            .args(["install", "--offline", "--locked", "--debug", "--path"])
            .arg(repo().join(package))
            .arg("--root")
            .arg(root.path())
            .env("CARGO_TARGET_DIR", &target)
            .output()
            .expect("run cargo install");
        assert!(
            out.status.success(),
            "cargo install {package}: {}",
            describe(&out)
        );
    }
    let bin = root.path().join("bin");
    for name in [
        "mcp-conformance",
        "claude-mcp-adapter",
        "fake-claude",
        "fake-cursor-agent",
    ] {
        assert!(bin.join(name).is_file(), "{name} installed");
    }
    let mut cmd = Command::new(repo().join(".ci/gate"));
    // Only the installed root on PATH (plus the system), as on a vendor's runner.
    cmd.env("PATH", format!("{}:/usr/bin:/bin", bin.display()));
    let g = gate_with(
        cmd,
        "mcp-conformance",
        &[
            ("GATE_REFERENCE", "true"),
            ("GATE_CASES", "tools runs/outcome"),
        ],
    );
    assert_eq!(g.out.status.code(), Some(0), "{}", describe(&g.out));
    assert_eq!(g.json["server"]["builtin"], true, "{}", g.json["server"]);
    assert!(total(&g.junit, "tests") > 0);
    assert_eq!(total(&g.junit, "failures"), 0, "{}", g.junit);
}
