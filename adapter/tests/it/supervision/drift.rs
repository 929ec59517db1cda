//! `claude-mcp-adapter cli-tree check` (NAT-1 drift) against a tiny fake executable that prints
//! the captured 2.1.328 `--version` and `--help`, and altered copies of them.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use assert_cmd::Command;

use super::{BOUND, adapter_exe};

pub const HELP_2_1_328: &str = include_str!("fixtures/claude-2.1.328-help.txt");
const VERSION_2_1_328: &str = "2.1.328 (Claude Code)";

/// A directory holding `claude`: a shell script printing `version` for `--version` and the
/// `help` file for `--help`.
pub struct FakeCli {
    dir: tempfile::TempDir,
}

impl FakeCli {
    pub fn new(version: &str, help: &str) -> Self {
        Self::named("claude", version, help)
    }

    /// The same script under another executable name (`cursor-agent`).
    pub fn named(name: &str, version: &str, help: &str) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("help.txt"), help).expect("write help");
        std::fs::write(dir.path().join("version.txt"), format!("{version}\n")).expect("version");
        let script = format!(
            "#!/bin/sh\ncase \"$1\" in\n  --version) exec cat '{d}/version.txt' ;;\n  \
             --help) exec cat '{d}/help.txt' ;;\n  *) echo \"unexpected: $*\" >&2; exit 9 ;;\nesac\n",
            d = dir.path().display()
        );
        let exe = dir.path().join(name);
        std::fs::write(&exe, script).expect("write script");
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        Self { dir }
    }

    pub fn claude(&self) -> PathBuf {
        self.dir.path().join("claude")
    }

    pub fn cursor(&self) -> PathBuf {
        self.dir.path().join("cursor-agent")
    }
}

/// A commander-style help of the shape Cursor's CLI prints, with the global `--model` option and
/// the `acp` command cursor-cli-tree.json relies on. Written for these tests, not captured: the
/// real `cursor-agent` is on no package registry, and fake-cursor-agent has no `--help` because
/// its text would be invented.
pub const CURSOR_HELP: &str = include_str!("fixtures/cursor-agent-help.txt");
const CURSOR_VERSION: &str = "2026.10.01-e373342";

/// `cli-tree check` of the captured claude and of `cursor` (ACP-9: `--cursor` checks Cursor's
/// agent against cursor-cli-tree.json too; the verdict is the worse of the two).
fn check_both(cursor: &Path) -> std::process::Output {
    let claude = FakeCli::new(VERSION_2_1_328, HELP_2_1_328);
    check(&claude.claude())
        .arg("--cursor")
        .arg(cursor)
        .output()
        .expect("run")
}

fn check(claude: &Path) -> Command {
    let mut cmd = Command::new(adapter_exe());
    cmd.args(["cli-tree", "check", "--claude"])
        .arg(claude)
        .timeout(BOUND);
    cmd
}

fn stdout_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_captured_2_1_328_help_has_no_drift() {
    let fake = FakeCli::new(VERSION_2_1_328, HELP_2_1_328);
    let out = check(&fake.claude()).output().expect("run");
    let text = stdout_of(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("no drift: cli-tree.json matches 2.1.328 (Claude Code)"),
        "{text}"
    );
    // Undeclared flags are information, never drift.
    assert!(text.contains("--add-dir <directories...>"), "{text}");
    assert!(text.contains("--dangerously-skip-permissions"), "{text}");
}

#[test]
fn a_new_version_line_is_drift_naming_the_update() {
    let fake = FakeCli::new("2.1.329 (Claude Code)", HELP_2_1_328);
    let out = check(&fake.claude()).output().expect("run");
    let text = stdout_of(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("set version.line to \"2.1.329 (Claude Code)\""),
        "{text}"
    );
}

#[test]
fn a_removed_flag_a_changed_argument_form_and_a_dropped_choice_are_drift() {
    let help = HELP_2_1_328
        // --session-id disappears
        .replace(
            "  --session-id <uuid>                   Use a specific session ID for the\n",
            "",
        )
        // --no-session-persistence now takes a value
        .replace(
            "  --no-session-persistence              Don't save",
            "  --no-session-persistence <when>       Don't save",
        )
        // dontAsk is no longer a permission mode
        .replace("\"dontAsk\", \"plan\")", "\"plan\")");
    assert_ne!(help, HELP_2_1_328);
    let fake = FakeCli::new(VERSION_2_1_328, &help);
    let out = check(&fake.claude()).output().expect("run");
    let text = stdout_of(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    for expected in [
        "options[session_id]: --session-id is missing from --help",
        "options[no_session_persistence]: --help shows --no-session-persistence taking a value \
         (<when>), cli-tree.json declares a switch",
        "options[permission_mode]: --permission-mode no longer accepts \"dontAsk\"",
        "update: remove \"dontAsk\" from options[permission_mode].value.choices",
        "drift: 4 finding(s)",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
}

#[test]
fn a_dropped_output_format_breaks_a_mode() {
    let help = HELP_2_1_328.replace(
        "(choices: \"text\", \"json\",\n                                        \"stream-json\")",
        "(choices: \"text\", \"json\")",
    );
    assert_ne!(help, HELP_2_1_328);
    let fake = FakeCli::new(VERSION_2_1_328, &help);
    let out = check(&fake.claude()).output().expect("run");
    let text = stdout_of(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains(
            "modes.stream.argv --output-format stream-json: --output-format no longer accepts \
             \"stream-json\""
        ),
        "{text}"
    );
}

#[test]
fn a_missing_cli_cannot_be_checked() {
    check(Path::new("/nonexistent/claude"))
        .assert()
        .code(2)
        .stdout(predicates::str::is_empty())
        .stderr(predicates::str::contains("cannot run /nonexistent/claude"));
}

#[test]
fn a_cli_without_an_options_section_cannot_be_checked() {
    let fake = FakeCli::new(VERSION_2_1_328, "Usage: claude\n");
    check(&fake.claude())
        .assert()
        .code(2)
        .stderr(predicates::str::contains("no Options: section"));
}

#[test]
fn an_invalid_cli_tree_cannot_be_checked() {
    let fake = FakeCli::new(VERSION_2_1_328, HELP_2_1_328);
    let tree = fake.dir.path().join("cli-tree.json");
    std::fs::write(&tree, "{\"format_version\": 1}").expect("write");
    check(&fake.claude())
        .arg("--cli-tree")
        .arg(&tree)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("schema"));
}

#[test]
fn an_explicit_cli_tree_is_the_one_compared() {
    // The same tree with another pinned line: drift against the 2.1.328 capture.
    let fake = FakeCli::new(VERSION_2_1_328, HELP_2_1_328);
    let tree = fake.dir.path().join("cli-tree.json");
    let text = cmk_native::cli_tree::EMBEDDED.replace(
        "\"line\": \"2.1.328 (Claude Code)\"",
        "\"line\": \"2.1.327 (Claude Code)\"",
    );
    assert_ne!(text, cmk_native::cli_tree::EMBEDDED);
    std::fs::write(&tree, text).expect("write");
    let out = check(&fake.claude())
        .arg("--cli-tree")
        .arg(&tree)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1), "{}", stdout_of(&out));
    assert!(stdout_of(&out).contains("cli-tree.json pins \"2.1.327 (Claude Code)\""));
}

#[test]
fn the_cursor_tree_is_checked_end_to_end_with_the_worse_verdict_of_the_two() {
    // ACP-9, NAT-1: clean against the pinned cursor tree: exit 0, both reports printed.
    let cursor = FakeCli::named("cursor-agent", CURSOR_VERSION, CURSOR_HELP);
    let out = check_both(&cursor.cursor());
    let text = stdout_of(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("against the embedded cursor-cli-tree.json"),
        "{text}"
    );
    assert!(
        text.contains("no drift: cursor-cli-tree.json matches 2026.10.01-e373342"),
        "{text}"
    );

    // No `acp` command any more: drift, exit 1, although claude is clean.
    let moved = FakeCli::named(
        "cursor-agent",
        CURSOR_VERSION,
        &CURSOR_HELP.replace("  acp ", "  serve "),
    );
    let out = check_both(&moved.cursor());
    let text = stdout_of(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("modes.acp.argv acp"), "{text}");

    // Another version line: drift naming the update.
    let newer = FakeCli::named("cursor-agent", "2026.11.02-aaaaaaa", CURSOR_HELP);
    let out = check_both(&newer.cursor());
    let text = stdout_of(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("2026.11.02-aaaaaaa"), "{text}");

    // A cursor-agent that cannot be run: exit 2, said on stderr.
    let out = check_both(Path::new("/nonexistent/cursor-agent"));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("/nonexistent/cursor-agent"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_program_that_is_not_claude_is_named_as_such() {
    // Cursor's agent given as `--claude`: its version line is not claude's, so the check says
    // what the program is not and which flag to fix, instead of reaching `--help`.
    let not_claude = FakeCli::new(CURSOR_VERSION, CURSOR_HELP);
    let out = check(&not_claude.claude()).output().expect("run");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("does not look like claude")
            && stderr.contains("\"2026.10.01-e373342\"")
            && stderr.contains("point --claude at the claude executable"),
        "{stderr}"
    );
    assert!(!stderr.contains("--help"), "{stderr}");
    // A program that fails `--version` is not claude either.
    let out = check(Path::new("/bin/false")).output().expect("run");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("/bin/false does not look like claude"),
        "{stderr}"
    );
    // And Cursor's check names --cursor.
    let claude_as_cursor = FakeCli::named("cursor-agent", VERSION_2_1_328, HELP_2_1_328);
    let out = check_both(&claude_as_cursor.cursor());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("point --cursor at"), "{stderr}");
}

#[test]
fn an_adapter_killed_right_after_it_started_the_cli_leaves_no_group() {
    // C-SUP-5: the CLI being checked registers its group with the adapter's lifeline (started for
    // `cli-tree`) before it execs, so an adapter killed at once (the CLI's first act) leaves
    // nothing, however the scheduler ordered the kill and the adapter's own registration.
    testkit::parent_kill::assert_parent_sigkill_leaves_no_group(
        "claude-mcp-adapter cli-tree check's CLI",
        |probe| {
            std::process::Command::new(adapter_exe())
                .args(["cli-tree", "check", "--claude"])
                .arg(probe.executable())
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .expect("the adapter starts")
        },
    );
}
