//! Golden recordings (`recordings/*.jsonl` for claude, `recordings/acp/*.jsonl` for Cursor over
//! ACP), one named test each: the recorded client side is replayed against a fresh adapter while
//! fake-claude replays the recorded native side (or fake-cursor-agent the recorded agent side),
//! and the adapter's answers must match the recorded ones after normalising volatile values; a
//! difference fails with a unified diff and writes `recordings/NAME.actual`. PROV-3: claude's
//! recordings replay unchanged through the provider seam. REC-2: the replay; REC-3: `BLESS=1`.
//!
//! `BLESS=1` remakes each recording first (fake-claude and fake-cursor-agent scenarios directly;
//! the real-claude ones with the real CLI 2.1.328 and the local Messages API stand-in), then
//! replays it. The one
//! command is [`maker::REMAKE`]; `recordings/README.md` documents the format.
//!
//! - `recording`: the row format (`mcp_replay::recording`, re-exported).
//! - `native`: recorded native runs → fake-claude scenarios.
//! - `pacer`: the replay, an `mcp_replay::player` run with the adapter's pacer (its native side,
//!   the native and agent rows of its `--record` file, the settle grace).
//! - `sessions` / `maker`: the catalogue of sessions and the `BLESS` maker.
//! - `acp` / `acp_sessions`: the ACP recordings (`recordings/acp/`, `--provider cursor`), whose
//!   agent side fake-cursor-agent replays.
//! - `canonical`: the form the maker writes, stable from one remake to the next
//!   (`mcp_replay::canonical`).
//! - `recorder`: what `--record` writes.

pub mod acp;
pub mod acp_sessions;
mod canonical;
pub mod maker;
pub mod native;
pub mod pacer;
mod record_file;
mod recorder;
pub mod recording;
pub mod sessions;

use std::path::{Path, PathBuf};

use recording::Recording;

/// Declares the recordings, one `#[test]` each (named after the file), and [`NAMES`].
macro_rules! recordings {
    ($($test:ident => $name:literal),* $(,)?) => {
        /// Every recording a test replays, by file stem.
        pub const NAMES: &[&str] = &[$($name),*];

        /// One test per golden recording.
        mod golden {
            $(
                #[test]
                fn $test() {
                    super::check($name);
                }
            )*
        }
    };
}

recordings! {
    real_success => "real-success",
    real_tool_denied => "real-tool-denied",
    real_api_error => "real-api-error",
    real_max_turns => "real-max-turns",
    real_unknown_resume => "real-unknown-resume",
    real_cancel => "real-cancel",
    real_not_logged_in => "real-not-logged-in",
    fake_success => "fake-success",
    fake_nonzero_exit => "fake-nonzero-exit",
    fake_missing_final => "fake-missing-final",
    fake_duplicate_final => "fake-duplicate-final",
    fake_malformed_final => "fake-malformed-final",
    fake_final_without_session_id => "fake-final-without-session-id",
    fake_final_without_result => "fake-final-without-result",
    fake_is_error_success => "fake-is-error-success",
    fake_error_subtype => "fake-error-subtype",
    fake_oversized_event => "fake-oversized-event",
    fake_oversized_final => "fake-oversized-final",
    fake_huge_final => "fake-huge-final",
    fake_many_events => "fake-many-events",
    fake_hang_after_final => "fake-hang-after-final",
    fake_ignore_sigterm => "fake-ignore-sigterm",
    fake_grandchild => "fake-grandchild",
    fake_escaped_grandchild => "fake-escaped-grandchild",
    fake_stdout_closed_early => "fake-stdout-closed-early",
    fake_stderr_noise => "fake-stderr-noise",
    fake_hooks_before_init => "fake-hooks-before-init",
    fake_cancel_streaming => "fake-cancel-streaming",
    fake_cancelled_request => "fake-cancelled-request",
    acp_real_ts_example_agent => "acp/real-ts-example-agent",
    acp_real_python_echo_agent => "acp/real-python-echo-agent",
    acp_real_claude_agent_acp => "acp/real-claude-agent-acp",
    acp_default => "acp/default",
    acp_tools => "acp/tools",
    acp_permission_shell_dont_ask => "acp/permission-shell-dont-ask",
    acp_plan_mode => "acp/plan-mode",
    acp_accept_edits => "acp/accept-edits",
    acp_cursor_extensions => "acp/cursor-extensions",
    acp_ask_question_permission => "acp/ask-question-permission",
    acp_refusal => "acp/refusal",
    acp_max_tokens => "acp/max-tokens",
    acp_prompt_error => "acp/prompt-error",
    acp_crash_midturn => "acp/crash-midturn",
    acp_cancel_midturn => "acp/cancel-midturn",
    acp_auth_required => "acp/auth-required",
    acp_unknown_update => "acp/unknown-update",
    acp_toolcallid_newline => "acp/toolcallid-newline",
    acp_garbage_lines => "acp/garbage-lines",
    acp_hang_session_new => "acp/hang-session-new",
}

/// Every golden session: the claude ones, then the ACP ones.
#[must_use]
pub fn all_sessions() -> Vec<sessions::Definition> {
    let mut all = sessions::claude();
    all.extend(acp_sessions::all());
    all
}

/// The session definition of the recording `name`.
#[must_use]
pub fn find_session(name: &str) -> Option<sessions::Definition> {
    all_sessions().into_iter().find(|d| d.name == name)
}

fn golden_path(name: &str) -> PathBuf {
    maker::recordings_dir().join(format!("{name}.jsonl"))
}

/// Remakes `name` under `BLESS`, then replays it and panics with a diff on a mismatch.
fn check(name: &str) {
    // `BLESS=1` (or `true`): remake the recording, then replay it as always.
    if testkit::golden::blessing() {
        let def = find_session(name)
            .unwrap_or_else(|| panic!("no session definition for recording {name}"));
        maker::make(&def);
    }
    let path = golden_path(name);
    assert!(
        path.is_file(),
        "recording {} is missing; remake the recordings with `{}`",
        path.display(),
        maker::REMAKE
    );
    if let Err(e) = verify(&path) {
        panic!("{e}");
    }
}

/// Replays the recording at `path`; on a mismatch writes `<stem>.actual` beside it and returns
/// the readable failure (a unified diff).
pub fn verify(path: &Path) -> Result<(), String> {
    let rec = Recording::load(path).map_err(|e| e.to_string())?;
    let replayed = pacer::replay(&rec);
    let (expected, actual) = (replayed.expected.to_string(), replayed.observed.to_string());
    let name = path
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let Some(diff) =
        mcp_replay::compare::unified(&expected, &actual, &format!("golden {name}"), "replay")
    else {
        let _ = std::fs::remove_file(path.with_extension("actual"));
        return Ok(());
    };
    let actual_path = path.with_extension("actual");
    let _ = std::fs::write(&actual_path, &actual);
    let mut msg = format!(
        "replay of {} differs from the recording (- recorded, + replayed); the replayed \
         transcript is in {}.\nIf the change is intended, remake the recordings: {}\n\n{diff}",
        path.display(),
        actual_path.display(),
        maker::REMAKE
    );
    for n in &replayed.notes {
        msg.push_str(&format!("\nnote: {n}"));
    }
    if !replayed.stderr.trim().is_empty() {
        msg.push_str(&format!(
            "\nadapter stderr (tail):\n{}",
            tail(&replayed.stderr, 4000)
        ));
    }
    Err(msg)
}

fn tail(s: &str, n: usize) -> &str {
    let mut cut = s.len().saturating_sub(n);
    while !s.is_char_boundary(cut) {
        cut += 1;
    }
    &s[cut..]
}

/// A recording that no test replays fails CI (and a listed one that is missing fails too).
#[test]
fn every_recording_is_replayed_by_a_named_test() {
    // REC-3.
    let mut on_disk: Vec<String> = Vec::new();
    for (sub, prefix) in [("", ""), ("acp", "acp/")] {
        let dir = maker::recordings_dir().join(sub);
        on_disk.extend(
            std::fs::read_dir(&dir)
                .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
                .filter_map(|p| {
                    p.file_stem()
                        .map(|s| format!("{prefix}{}", s.to_string_lossy()))
                }),
        );
    }
    on_disk.sort();
    let unused: Vec<&String> = on_disk
        .iter()
        .filter(|n| !NAMES.contains(&n.as_str()))
        .collect();
    assert!(
        unused.is_empty(),
        "recordings no test replays (add them to `recordings!` in {}): {unused:?}",
        file!()
    );
    let missing: Vec<&&str> = NAMES
        .iter()
        .filter(|n| !on_disk.iter().any(|d| d == *n))
        .collect();
    assert!(
        missing.is_empty(),
        "recordings listed but missing (remake with `{}`): {missing:?}",
        maker::REMAKE
    );
}

/// Each recording says what it shows and how to remake it, and each has a session to remake it.
#[test]
fn every_recording_has_a_header_and_a_session_that_remakes_it() {
    // REC-1: the header; REC-3: remade by one command.
    for name in NAMES {
        assert!(
            find_session(name).is_some(),
            "{name}: no session definition in sessions.rs"
        );
        let rec = Recording::load(&golden_path(name)).expect("load");
        assert_eq!(rec.meta["recording"], *name, "{name}: meta.recording");
        assert!(
            rec.meta["shows"].as_str().is_some_and(|s| !s.is_empty()),
            "{name}: meta.shows"
        );
        assert_eq!(rec.meta["remake"], maker::REMAKE, "{name}: meta.remake");
        assert!(
            rec.meta["native"]["kind"].is_string(),
            "{name}: meta.native"
        );
        assert!(
            rec.rows.iter().any(|r| r.dir == "c2s")
                && rec.rows.iter().any(|r| r.dir == "s2c")
                && rec.rows.iter().any(|r| r.is_exit()),
            "{name}: a recording holds client, server and native rows"
        );
    }
    for def in all_sessions() {
        assert!(
            NAMES.contains(&def.name),
            "session {} has no recording test",
            def.name
        );
    }
}

/// Every golden is in the canonical form the maker writes (so a remake of an unchanged session
/// changes no byte, and a hand edit that breaks the form shows).
#[test]
fn every_golden_is_in_canonical_form() {
    // REC-3: never edited by hand.
    for name in NAMES {
        let text = std::fs::read_to_string(golden_path(name)).expect("read golden");
        let (header, rows) = text.split_once('\n').expect("a header row and rows");
        assert!(
            header.starts_with("{\"dir\":\"meta\""),
            "{name}: header first"
        );
        assert!(
            canonical::canonical(rows) == rows,
            "{name} is not in canonical form; remake it with `{}`",
            maker::REMAKE
        );
    }
}

/// The replay is not a test that cannot fail: a copy of a golden whose native final says
/// something else no longer matches its recorded answers, and the failure is a readable diff.
#[test]
fn an_altered_golden_fails_the_replay_with_a_readable_diff() {
    // REC-2.
    let golden = std::fs::read_to_string(golden_path("fake-success")).expect("read golden");
    let needle = "\"result\":\"Hi there!\"";
    assert!(
        golden.contains(needle),
        "fake-success.jsonl no longer has the native final this test alters"
    );
    // Alter only the native side's final event (n2a), as if the CLI had answered differently.
    let altered: String = golden
        .lines()
        .map(|l| {
            if l.starts_with("{\"dir\":\"n2a\"") && l.contains("\"type\":\"result\"") {
                l.replace(needle, "\"result\":\"Hi from an altered copy!\"")
            } else {
                l.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert_ne!(
        altered.trim(),
        golden.trim(),
        "the alteration changed nothing"
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let copy = dir.path().join("fake-success.jsonl");
    std::fs::write(&copy, altered).expect("write the copy");

    let err = verify(&copy).expect_err("an altered golden must fail its replay");
    assert!(err.contains("--- golden fake-success.jsonl"), "{err}");
    assert!(err.contains("+++ replay"), "{err}");
    assert!(err.contains("@@ "), "a unified diff has hunks: {err}");
    let removed = err
        .lines()
        .any(|l| l.starts_with('-') && l.contains("\"result\": \"Hi there!\""));
    let added = err
        .lines()
        .any(|l| l.starts_with('+') && l.contains("\"result\": \"Hi from an altered copy!\""));
    assert!(removed && added, "the diff names the changed value: {err}");
    assert!(
        dir.path().join("fake-success.actual").is_file(),
        "the replayed transcript is written beside the golden"
    );

    // The unaltered golden replays cleanly through the same path (so the failure above is the
    // alteration's, not the harness's).
    let clean = dir.path().join("clean.jsonl");
    std::fs::write(&clean, &golden).expect("write");
    verify(&clean).expect("the unaltered golden replays");
}

/// An altered recorded *answer* fails too: the replay compares every answer field.
#[test]
fn an_altered_recorded_answer_fails_the_replay() {
    let golden = std::fs::read_to_string(golden_path("fake-missing-final")).expect("read golden");
    let altered = golden.replacen(
        "\\\"code\\\":\\\"missing_final\\\"",
        "\\\"code\\\":\\\"timeout\\\"",
        1,
    );
    let altered = altered.replacen("\"code\":\"missing_final\"", "\"code\":\"timeout\"", 1);
    assert_ne!(
        altered, golden,
        "the recording no longer has the answer this test alters"
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let copy = dir.path().join("fake-missing-final.jsonl");
    std::fs::write(&copy, altered).expect("write the copy");
    let err = verify(&copy).expect_err("an altered answer must fail the replay");
    assert!(
        err.lines()
            .any(|l| l.starts_with('-') && l.contains("\"code\": \"timeout\""))
            && err
                .lines()
                .any(|l| l.starts_with('+') && l.contains("\"code\": \"missing_final\"")),
        "{err}"
    );
}
