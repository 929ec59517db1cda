//! Unit tests of the drift comparison against captured and altered help texts.

use super::*;

const VERSION: &str = "2.1.328 (Claude Code)\n";

fn tree() -> CliTree {
    CliTree::embedded().unwrap()
}

/// The help entries the embedded tree needs, as 2.1.328 prints them, plus one it does not.
fn help_text() -> String {
    "Options:
  --append-system-prompt <prompt>       Add text
  -c, --continue                        Continue the most recent conversation
  --effort <level>                      Effort level for the current session
                                    (low, medium, high, xhigh, max)
  --include-partial-messages            Include partial message chunks
  --json-schema <schema>                JSON Schema for structured output
                                    validation (only works with --print).
  --max-budget-usd <amount>             Maximum dollar amount
  --model <model>                       Model for the current session
  --no-session-persistence              Don't save sessions
  --output-format <format>              Output format (choices: \"text\", \"json\",
                                    \"stream-json\")
  --permission-mode <mode>              Permission mode to use for the session
                                    (choices: \"acceptEdits\", \"auto\",
                                    \"bypassPermissions\", \"manual\",
                                    \"dontAsk\", \"plan\")
  -p, --print                           Print response and exit
  -r, --resume [value]                  Resume a conversation
  --session-id <uuid>                   Use a specific session ID
  --verbose                             Override the verbose setting
  -v, --version                         Output the version number
  --chrome                              Turn on Claude in Chrome
"
    .to_owned()
}

fn report(version: &str, help: &str) -> DriftReport {
    compare(
        &tree(),
        "cli-tree.json",
        version,
        &Help::parse(help).unwrap(),
    )
}

#[test]
fn matching_help_and_version_is_no_drift() {
    let r = report(VERSION, &help_text());
    assert!(r.clean(), "{}", r.render());
    assert_eq!(r.undeclared, vec!["--chrome".to_owned()]);
    assert!(r.render().contains("no drift"));
}

#[test]
fn another_version_line_is_drift() {
    let r = report("2.1.329 (Claude Code)\n", &help_text());
    assert_eq!(r.drift.len(), 1);
    assert_eq!(r.drift[0].subject, "version");
    assert!(r.drift[0].update.contains("\"2.1.329 (Claude Code)\""));
}

#[test]
fn a_missing_declared_flag_is_drift() {
    let help = help_text().replace(
        "  --model <model>                       Model for the current session\n",
        "",
    );
    let r = report(VERSION, &help);
    assert_eq!(r.drift.len(), 1, "{}", r.render());
    assert_eq!(r.drift[0].subject, "options[model]");
    assert!(r.drift[0].problem.contains("--model is missing"));
}

#[test]
fn a_missing_mode_flag_is_drift() {
    let help = help_text().replace(
        "  --verbose                             Override the verbose setting\n",
        "",
    );
    let r = report(VERSION, &help);
    assert_eq!(r.drift.len(), 1, "{}", r.render());
    assert_eq!(r.drift[0].subject, "modes.stream.argv --verbose");
}

#[test]
fn another_argument_form_is_drift() {
    let help = help_text()
        .replace("--session-id <uuid>  ", "--session-id         ")
        .replace("--no-session-persistence  ", "--no-session-persistence <x>");
    let r = report(VERSION, &help);
    let subjects: Vec<&str> = r.drift.iter().map(|f| f.subject.as_str()).collect();
    assert_eq!(
        subjects,
        ["options[session_id]", "options[no_session_persistence]"],
        "{}",
        r.render()
    );
    assert!(r.drift[0].problem.contains("taking no value"));
    assert!(r.drift[1].problem.contains("declares a switch"));
}

#[test]
fn a_declared_choice_that_left_the_list_is_drift() {
    let help = help_text()
        .replace("\"dontAsk\", ", "")
        .replace("high, xhigh, max", "high, max")
        .replace("\"json\",", "");
    let r = report(VERSION, &help);
    let problems: Vec<String> = r
        .drift
        .iter()
        .map(|f| format!("{}: {}", f.subject, f.problem))
        .collect();
    assert_eq!(r.drift.len(), 4, "{problems:#?}");
    assert!(problems[0].starts_with(
        "modes.json.argv --output-format json: --output-format no longer accepts \"json\""
    ));
    assert!(
        problems[1].starts_with(
            "options[permission_mode]: --permission-mode no longer accepts \"dontAsk\""
        )
    );
    assert!(r.drift[1].update.contains("value.choices"));
    assert!(r.drift[2].update.contains("value.native_choices"));
    assert!(problems[3].starts_with("options[effort]: --effort no longer accepts \"xhigh\""));
}

#[test]
fn a_new_native_choice_is_a_note_not_drift() {
    let help = help_text().replace("\"dontAsk\", \"plan\"", "\"dontAsk\", \"plan\", \"yolo\"");
    let r = report(VERSION, &help);
    assert!(r.clean(), "{}", r.render());
    assert_eq!(r.notes.len(), 1);
    assert!(r.notes[0].contains("\"yolo\""));
}

/// A commander-style help of the shape Cursor's CLI prints (written for this test, not
/// captured: the real `cursor-agent` is not installable here), with the global `--model`
/// option and the `acp` command the cursor tree relies on.
const CURSOR_HELP: &str =
    include_str!("../../../tests/it/supervision/fixtures/cursor-agent-help.txt");

#[test]
fn the_cursor_tree_checks_its_option_and_its_acp_command() {
    // ACP-9: the acp subcommand is looked up under Commands, --model under Options.
    let tree = CliTree::cursor_embedded().expect("cursor tree");
    let help = Help::parse(CURSOR_HELP).expect("help");
    assert_eq!(help.commands, ["acp", "login", "status"]);
    let r = compare(&tree, "cursor-cli-tree.json", "2026.10.01-e373342\n", &help);
    assert!(r.clean(), "{}", r.render());
    assert!(
        r.checked
            .iter()
            .any(|(s, h)| s == "modes.acp.argv acp" && h == "command acp")
    );

    let no_acp = CURSOR_HELP.replace("  acp ", "  run ");
    let r = compare(
        &tree,
        "cursor-cli-tree.json",
        "2026.10.01-e373342\n",
        &Help::parse(&no_acp).expect("help"),
    );
    assert!(
        r.drift.iter().any(|f| f.subject == "modes.acp.argv acp"),
        "{}",
        r.render()
    );

    let no_model = CURSOR_HELP.replace("--model <model>", "--mode <mode>  ");
    let r = compare(
        &tree,
        "cursor-cli-tree.json",
        "2026.10.01-e373342\n",
        &Help::parse(&no_model).expect("help"),
    );
    assert!(
        r.drift.iter().any(|f| f.subject == "options[model]"),
        "{}",
        r.render()
    );

    let r = compare(&tree, "cursor-cli-tree.json", "2026.11.02-aaaaaaa\n", &help);
    assert!(
        r.drift.iter().any(|f| f.subject == "version"),
        "{}",
        r.render()
    );
}

#[test]
fn the_commands_of_the_real_claude_help_are_read() {
    let help = Help::parse(include_str!("../../../../fake-claude/assets/help.txt")).expect("help");
    for c in ["agents", "auth", "doctor", "mcp"] {
        assert!(help.has_command(c), "{c}: {:?}", help.commands);
    }
    assert!(!help.has_command("acp"));
}
