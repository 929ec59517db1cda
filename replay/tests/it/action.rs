//! The CI script behind `replay/action.yml` (`.ci/replay`): every recording replayed, a JUnit
//! and a JSON report each, the worst exit status (0 same, 1 different, 2 could not run).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::{bin, defect_server, record_defect_session, show};

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../.ci/replay")
}

fn replay(recordings: &str, server: &[String], reports: &Path) -> Output {
    Command::new("bash")
        .arg(script())
        .env("REPLAY_BIN", bin())
        .env("REPLAY_RECORDINGS", recordings)
        .env("REPLAY_SERVER_COMMAND", server.join(" "))
        .env("REPLAY_WAIT_MS", "2000")
        .env("REPLAY_REPORT_DIR", reports)
        .env_remove("GITHUB_OUTPUT")
        .output()
        .expect("bash .ci/replay")
}

#[test]
fn the_ci_script_replays_every_recording_and_exits_with_the_worst_status() {
    let dir = tempfile::tempdir().expect("tempdir");
    for name in ["one", "two"] {
        record_defect_session(&dir.path().join(format!("{name}.jsonl")));
    }
    let glob = format!("{}/*.jsonl", dir.path().display());
    let reports = dir.path().join("reports");

    let o = replay(&glob, &defect_server(None), &reports);
    assert_eq!(o.status.code(), Some(0), "{}", show(&o));
    for name in ["one", "two"] {
        let junit = std::fs::read_to_string(reports.join(format!("{name}.junit.xml")))
            .expect("a JUnit report per recording");
        assert!(junit.contains("failures=\"0\""), "{junit}");
        assert!(reports.join(format!("{name}.json")).is_file());
    }

    let o = replay(&glob, &defect_server(Some("changed-field")), &reports);
    assert_eq!(o.status.code(), Some(1), "{}", show(&o));
    let junit = std::fs::read_to_string(reports.join("two.junit.xml")).expect("junit");
    assert!(junit.contains("<failure"), "{junit}");

    let o = replay(&glob, &["/nonexistent/server".to_owned()], &reports);
    assert_eq!(o.status.code(), Some(2), "{}", show(&o));
    let o = replay(
        &format!("{}/none-*.jsonl", dir.path().display()),
        &defect_server(None),
        &reports,
    );
    assert_eq!(o.status.code(), Some(2), "{}", show(&o));
}

#[test]
fn the_action_maps_every_input_onto_the_replay_script() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let action = std::fs::read_to_string(root.join("action.yml")).expect("replay/action.yml");
    let script = std::fs::read_to_string(script()).expect(".ci/replay");
    assert!(action.contains("using: composite"));
    assert!(action.contains("\"$GITHUB_ACTION_PATH/../.ci/replay\""));
    for (input, var) in [
        ("recordings", "REPLAY_RECORDINGS"),
        ("server-command", "REPLAY_SERVER_COMMAND"),
        ("rules", "REPLAY_RULES"),
        ("side", "REPLAY_SIDE"),
        ("wait-ms", "REPLAY_WAIT_MS"),
        ("report-dir", "REPLAY_REPORT_DIR"),
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
    for output in ["report-dir", "exit-code"] {
        assert!(
            action.contains(&format!("steps.replay.outputs.{output} }}}}")),
            "{output}"
        );
        assert!(
            script.contains(&format!("echo \"{output}=")),
            "the script writes {output}"
        );
    }
}
