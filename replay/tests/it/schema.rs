//! The recording format is published as a JSON Schema (`docs/recording.schema.json`): every
//! recording in the repository, and one fresh from the proxy, validates against it.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::record_defect_session;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace")
        .to_path_buf()
}

fn validator() -> jsonschema::Validator {
    let text = std::fs::read_to_string(repo().join("docs/recording.schema.json")).expect("schema");
    let schema: Value = serde_json::from_str(&text).expect("schema is JSON");
    jsonschema::validator_for(&schema).expect("a valid schema")
}

fn check(v: &jsonschema::Validator, path: &Path) -> usize {
    let text = std::fs::read_to_string(path).expect("read");
    let mut n = 0;
    for (i, line) in text.lines().enumerate() {
        let row: Value = serde_json::from_str(line).expect("row is JSON");
        let errors: Vec<String> = v.iter_errors(&row).map(|e| e.to_string()).collect();
        assert!(
            errors.is_empty(),
            "{} line {}: {errors:?}",
            path.display(),
            i + 1
        );
        n += 1;
    }
    n
}

#[test]
fn every_recording_in_the_repository_validates_against_the_schema() {
    let v = validator();
    let mut files = 0;
    for sub in ["recordings", "recordings/acp"] {
        for entry in std::fs::read_dir(repo().join(sub)).expect("recordings") {
            let path = entry.expect("entry").path();
            if path.extension().is_some_and(|x| x == "jsonl") {
                assert!(check(&v, &path) > 1);
                files += 1;
            }
        }
    }
    assert!(files >= 49, "{files} recordings");
}

#[test]
fn a_fresh_proxy_recording_validates_against_the_schema() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("fresh.jsonl");
    record_defect_session(&path);
    assert!(check(&validator(), &path) > 6);
}

#[test]
fn the_schema_rejects_a_row_without_a_direction() {
    let v = validator();
    let bad: Value = serde_json::json!({"ms": 0, "msg": {}});
    assert!(!v.is_valid(&bad));
    let bad: Value = serde_json::json!({"dir": "s2c", "ms": 0});
    assert!(!v.is_valid(&bad), "a wire row needs a payload");
}
