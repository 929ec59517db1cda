//! Bless round trip: a changed server differs (exit 1), `--bless` writes the replay as the new
//! golden atomically (0600, no temporary file left), and the next replay is the same (exit 0).

use std::os::unix::fs::PermissionsExt as _;

use crate::support::{defect_server, record_defect_session, run, show};

#[test]
fn bless_round_trip_changed_server_differs_then_blessed_then_same() {
    let dir = tempfile::tempdir().expect("tempdir");
    let golden = dir.path().join("golden.jsonl");
    record_defect_session(&golden);
    let changed = defect_server(Some("changed-field"));

    let o = run(&golden, &[], &changed);
    assert_eq!(o.status.code(), Some(1), "{}", show(&o));

    let before = std::fs::read_to_string(&golden).expect("read");
    let o = run(&golden, &["--bless"], &changed);
    assert_eq!(o.status.code(), Some(0), "{}", show(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("blessed"),
        "{}",
        show(&o)
    );
    let after = std::fs::read_to_string(&golden).expect("read");
    assert_ne!(before, after);
    assert!(after.contains("HELLO") && after.contains("\"blessed_by\""));
    let mode = std::fs::metadata(&golden)
        .expect("meta")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .expect("dir")
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");

    let o = run(&golden, &[], &changed);
    assert_eq!(o.status.code(), Some(0), "{}", show(&o));
    // And the old server is now the different one.
    let o = run(&golden, &["--wait-ms", "1500"], &defect_server(None));
    assert_eq!(o.status.code(), Some(1), "{}", show(&o));
}

#[test]
fn bless_does_not_rewrite_a_golden_that_is_the_same() {
    let dir = tempfile::tempdir().expect("tempdir");
    let golden = dir.path().join("golden.jsonl");
    record_defect_session(&golden);
    let before = std::fs::read(&golden).expect("read");
    let o = run(&golden, &["--bless"], &defect_server(None));
    assert_eq!(o.status.code(), Some(0), "{}", show(&o));
    assert_eq!(std::fs::read(&golden).expect("read"), before);
}
