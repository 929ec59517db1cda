//! ACP client mode end to end: the runner's scripted agent launched by real clients (the kit's
//! own Cursor provider through `claude-mcp-adapter cli run`, the Python, TypeScript and Rust
//! SDKs' example clients, `acpx`), a well-behaved script client and its one-defect mutants,
//! containment, and the docs.
//!
//! The scripted agent (`fake-cursor-agent`) and the adapter must sit next to the test runner's
//! binary (`cargo build -p fake-cursor-agent -p claude-mcp-adapter`, or the whole workspace): a
//! missing one is a failure, as for the default target's tests.

mod acpx;
mod containment;
mod docs;
mod kit_cursor;
mod mutants;
mod python_sdk;
mod response_ids;
mod rust_sdk;
mod ts_sdk;

use std::collections::BTreeMap;
use std::path::PathBuf;

use mcp_conformance::acp::client::{CancelDriver, ClientModeConfig, run_client_mode};
use mcp_conformance::acp::gate::AcpProfile;
use mcp_conformance::core::report::CaseResult;
use nix::sys::signal::Signal;

/// A workspace binary next to the runner.
pub fn sibling(name: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_BIN_EXE_mcp-conformance"))
        .parent()
        .expect("bin dir")
        .join(name);
    assert!(
        path.is_file(),
        "{} is missing: build it first (cargo build -p fake-cursor-agent -p claude-mcp-adapter)",
        path.display()
    );
    path
}

/// A configuration for `client` with the scripted agent found next to the runner.
pub fn config(client: &[&str]) -> ClientModeConfig {
    ClientModeConfig::new(
        client.iter().map(|s| (*s).to_owned()).collect(),
        sibling("fake-cursor-agent"),
    )
}

/// The script client with `flags` under `profile`: it takes 1.5 s to decide a permission (so a
/// cancel finds one pending), and SIGINT, its documented interrupt, cancels its turn. Four cases
/// at once: they mostly wait on that decision, and the gates promise the same verdicts at any
/// `--jobs` (GATE-LOAD, with GATE-LOAD-2's lifecycle cases run alone), which every test of the
/// script client then shows again.
pub fn script_cfg(profile: AcpProfile, flags: &[&str]) -> ClientModeConfig {
    let mut all = vec!["--think-ms", "1500"];
    all.extend_from_slice(flags);
    let mut cfg = ClientModeConfig::new(script_client(&all), sibling("fake-cursor-agent"));
    cfg.cancel = CancelDriver::Signal(Signal::SIGINT);
    cfg.profile = profile;
    cfg.jobs = 4;
    cfg
}

/// Runs the script client with `flags` under `profile` and pins every case: all pass except
/// `overrides`.
pub async fn check_in(profile: AcpProfile, flags: &[&str], overrides: &[(&str, &str, &str)]) {
    let results = run_client_mode(&script_cfg(profile, flags)).await;
    assert_pinned(&results, &all_pass_except_in(profile, overrides));
}

/// [`check_in`] under the Cursor profile (every case) with at most one failing case.
pub async fn check(flags: &[&str], failing: Option<(&str, &str)>) {
    let overrides: Vec<(&str, &str, &str)> = failing
        .map(|(id, text)| vec![(id, "fail", text)])
        .unwrap_or_default();
    check_in(AcpProfile::Cursor, flags, &overrides).await;
}

/// The script client (standard-library Python): `python3 script_client.py FLAGS -- {agent}`.
pub fn script_client(flags: &[&str]) -> Vec<String> {
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/it/acp_client/script_client.py");
    let mut argv = vec!["python3".to_owned(), script.display().to_string()];
    argv.extend(flags.iter().map(|s| (*s).to_owned()));
    argv.push("--".into());
    argv.push("{agent}".into());
    argv
}

/// Every case's outcome by id.
pub fn outcomes(results: &[CaseResult]) -> BTreeMap<String, String> {
    results
        .iter()
        .map(|r| (r.id.clone(), r.outcome.name().to_owned()))
        .collect()
}

/// Every case as one line, for assertion messages.
pub fn describe(results: &[CaseResult]) -> String {
    results
        .iter()
        .map(|r| {
            format!(
                "{} {} {}: expected {:?} actual {:?} reason {:?}\n  transcript: {}",
                r.outcome.name(),
                r.level.name(),
                r.id,
                r.expected,
                r.actual,
                r.reason,
                r.transcript
                    .iter()
                    .map(|e| format!("[{} {} {}]", e.dir, e.ms, e.line))
                    .collect::<Vec<_>>()
                    .join(" ")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Asserts the verdict of every case: `(id, outcome, text the finding must contain)`; the text
/// is searched in `actual` and `reason` (each non-pass is pinned with its rule's finding). An
/// outcome `"pass|skip"` pins a race the client itself has (both verdicts true, neither a
/// failure); the text then applies to the skip.
pub fn assert_pinned(results: &[CaseResult], pinned: &[(&str, &str, &str)]) {
    let got = outcomes(results);
    let ids: Vec<&String> = got.keys().collect();
    let mut want_ids: Vec<&str> = pinned.iter().map(|(id, _, _)| *id).collect();
    want_ids.sort_unstable();
    assert_eq!(ids, want_ids, "cases differ:\n{}", describe(results));
    for (id, outcome, text) in pinned {
        let r = results.iter().find(|r| r.id == *id).expect("case");
        let name = r.outcome.name();
        assert!(
            outcome.split('|').any(|o| o == name),
            "{id}: {name}, pinned {outcome}:\n{}",
            describe(results)
        );
        if name == "pass" {
            continue;
        }
        let finding = format!(
            "{} {}",
            r.actual.as_deref().unwrap_or(""),
            r.reason.as_deref().unwrap_or("")
        );
        assert!(
            finding.contains(text),
            "{id}: the finding does not say {text:?}:\n{}",
            describe(std::slice::from_ref(r))
        );
    }
}

/// Each catalogue id of the default profile (`client`) once, all passing, except `overrides`.
pub fn all_pass_except<'a>(
    overrides: &[(&'a str, &'a str, &'a str)],
) -> Vec<(&'a str, &'a str, &'a str)> {
    all_pass_except_in(AcpProfile::Client, overrides)
}

/// Each catalogue id of `profile` once, all passing, except `overrides`.
pub fn all_pass_except_in<'a>(
    profile: AcpProfile,
    overrides: &[(&'a str, &'a str, &'a str)],
) -> Vec<(&'a str, &'a str, &'a str)> {
    mcp_conformance::acp::client::CASES
        .iter()
        .filter(|c| c.level(profile).is_some())
        .map(|c| {
            overrides
                .iter()
                .find(|(id, _, _)| *id == c.id)
                .copied()
                .unwrap_or((c.id, "pass", ""))
        })
        .collect()
}
