//! The report writers are golden-tested themselves: one fixed report with a difference, a
//! note and fired rules, in each format (`BLESS=1` rewrites the files in `golden/`), and a
//! report of a run that could not happen as JUnit (one `<error>`, never a `<failure>`).

use std::path::Path;

use mcp_replay::compare::Difference;
use mcp_replay::report::{Report, Status, junit};

fn golden(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/it/golden")
        .join(name)
}

fn different() -> Report {
    Report {
        command: "run".into(),
        recording: "golden/session.jsonl".into(),
        status: Status::Different,
        positions: vec![
            "c2s #1 request id=1 initialize".into(),
            "c2s #2 request id=2 tools/call".into(),
        ],
        differences: vec![Difference {
            position: "c2s #2 request id=2 tools/call".into(),
            diff: "--- recording: c2s #2 request id=2 tools/call\n+++ replay: c2s #2 request id=2 tools/call\n@@ -1 +1 @@\n-\"text\": \"a < b\"\n+\"text\": \"a > b & c\"\n".into(),
        }],
        rules_fired: [("uuid".to_owned(), 4), ("timestamp".to_owned(), 2)].into(),
        notes: vec!["at the end: waited 10000 ms for a notifications/message notification, in vain".into()],
        error: None,
        stderr: "server: warming up\n".into(),
        duration_ms: 1234,
    }
}

#[test]
fn the_report_formats_match_their_goldens() {
    let r = different();
    assert_eq!(r.exit_code(), 1);
    testkit::golden::check(&golden("different.txt"), &r.pretty());
    testkit::golden::check(&golden("different.json"), &r.json());
    testkit::golden::check(&golden("different.junit.xml"), &junit::render(&r));
}

#[test]
fn a_run_that_could_not_happen_is_one_junit_error() {
    let r = Report {
        status: Status::Error,
        positions: Vec::new(),
        differences: Vec::new(),
        error: Some("cannot start ./server: No such file or directory (os error 2)".into()),
        ..different()
    };
    assert_eq!(r.exit_code(), 2);
    testkit::golden::check(&golden("error.junit.xml"), &junit::render(&r));
    assert!(!junit::render(&r).contains("<failure"));
}
