//! The 2025-11-25 listing rules, each against a toy server with exactly that defect on its
//! 2025-11-25 connections: tool names (SEP-986, SHOULD: warn) and the JSON Schema dialect
//! (SEP-1613, MUST: fail; a `$schema` naming draft-07 is honoured). The clean twin passes
//! both, and the reference adapter, which does not speak 2025-11-25, skips them.

use serde_json::Value;

use crate::support::{case, describe, run_json, toy};

const NAMES: &str = "tools/names/2025-11-25";
const DIALECT: &str = "tools/schema/dialect/2025-11-25";

/// Runs the two cases and the revision-independent ones they mirror against the toy with
/// `extra` flags (a server of 2025-06-18 and 2025-11-25); returns the report.
fn graded(extra: &[&str]) -> Value {
    let toy = toy().display().to_string();
    let mut server = vec![toy.as_str(), "--versions", "2025-06-18,2025-11-25"];
    server.extend_from_slice(extra);
    let (out, report) = run_json(
        &[
            "--case",
            NAMES,
            "--case",
            DIALECT,
            "--case",
            "tools/names/sep-986",
            "--case",
            "tools/schema/valid",
        ],
        &server,
    );
    report.unwrap_or_else(|| panic!("no report: {}", describe(&out)))
}

/// The ids of the cases that did not pass or skip.
fn findings(report: &Value) -> Vec<(String, String)> {
    report["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .filter(|c| !matches!(c["outcome"].as_str(), Some("pass" | "skip")))
        .map(|c| (c["id"].to_string(), c["outcome"].to_string()))
        .map(|(id, outcome)| {
            (
                id.trim_matches('"').to_owned(),
                outcome.trim_matches('"').to_owned(),
            )
        })
        .collect()
}

#[test]
fn a_tool_name_with_spaces_and_commas_warns_on_the_2025_11_25_connection_only() {
    let report = graded(&["--defect-2025-11-25", "name"]);
    assert_eq!(
        findings(&report),
        [(NAMES.to_owned(), "warn".to_owned())],
        "{report}"
    );
    let c = case(&report, NAMES);
    assert_eq!(c["revision"], "2025-11-25", "{c}");
    assert!(
        c["actual"].as_str().unwrap().contains("bad name, here"),
        "{c}"
    );
}

#[test]
fn a_schema_without_dollar_schema_that_is_not_2020_12_fails() {
    let report = graded(&["--defect-2025-11-25", "schema"]);
    assert_eq!(
        findings(&report),
        [(DIALECT.to_owned(), "fail".to_owned())],
        "{report}"
    );
    let c = case(&report, DIALECT);
    assert_eq!(c["revision"], "2025-11-25", "{c}");
    let actual = c["actual"].as_str().unwrap();
    assert!(
        actual.contains("legacy_pair inputSchema") && actual.contains("2020-12"),
        "{c}"
    );
}

#[test]
fn a_schema_naming_draft_07_is_checked_as_draft_07() {
    // The same schema as the failing one, with `$schema` naming draft-07: valid there.
    let report = graded(&["--defect-2025-11-25", "draft-07"]);
    assert!(findings(&report).is_empty(), "{report}");
    assert_eq!(case(&report, DIALECT)["outcome"], "pass");
}

#[test]
fn the_clean_twin_passes_both_on_2025_11_25() {
    let report = graded(&[]);
    assert!(findings(&report).is_empty(), "{report}");
    for id in [NAMES, DIALECT] {
        let c = case(&report, id);
        assert_eq!(c["outcome"], "pass", "{c}");
        assert_eq!(c["revision"], "2025-11-25", "{c}");
    }
}

#[test]
fn the_reference_adapter_skips_them_as_a_revision_it_does_not_support() {
    let (out, report) = run_json(&["--case", NAMES, "--case", DIALECT], &[]);
    let report = report.unwrap_or_else(|| panic!("no report: {}", describe(&out)));
    for id in [NAMES, DIALECT] {
        let c = case(&report, id);
        assert_eq!(c["outcome"], "skip", "{c}");
        assert_eq!(c["reason"], "revision not supported", "{c}");
    }
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
}

#[test]
fn a_baseline_lists_an_instance_of_a_revision_by_its_id() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("known.txt");
    let toy = toy().display().to_string();
    let server = [
        toy.as_str(),
        "--versions",
        "2025-06-18,2025-11-25",
        "--defect-2025-11-25",
        "name",
    ];
    let baseline = file.display().to_string();
    // Under --strict the 2025-11-25 instance's warning fails; the baseline knows it.
    std::fs::write(&file, "tools/names/2025-11-25\n").expect("write");
    let (out, report) = run_json(
        &["--strict", "--baseline", &baseline, "--case", NAMES],
        &server,
    );
    let report = report.unwrap_or_else(|| panic!("no report: {}", describe(&out)));
    assert_eq!(case(&report, NAMES)["baselined"], true, "{report}");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    // An instance ID@DATE of a changed rule is an id too.
    std::fs::write(
        &file,
        "tools/names/2025-11-25\ntools/call/wrong-typed-arguments@2025-11-25\n",
    )
    .expect("write");
    let (out, _) = run_json(
        &["--strict", "--baseline", &baseline, "--case", NAMES],
        &server,
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    // A revision the case's rule did not change in names no instance: a usage error.
    std::fs::write(&file, "tools/list/shape@2025-11-25\n").expect("write");
    let (out, _) = run_json(&["--baseline", &baseline, "--case", NAMES], &server);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("tools/list/shape@2025-11-25"),
        "{}",
        describe(&out)
    );
}
