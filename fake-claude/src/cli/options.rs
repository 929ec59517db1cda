//! The option table of claude 2.1.328's root command, as data: every flag its argv parser knows,
//! visible (in `--help`) or hidden, with the value check its parser applies.
//!
//! Extracted from the shipped CLI (the `program.option(...)` / `addOption(new Option(...))` chain)
//! and cross-checked against `assets/help.txt` by a unit test: an option is visible exactly when
//! its flags string appears in the help text. Visibility matters because unknown-option
//! suggestions (`(Did you mean --verbose?)`) only consider visible long flags.

use super::flags::{Check, OptSpec};

/// Shown permission modes, in the order the real error message lists them.
pub const PERMISSION_MODES_SHOWN: &[&str] = &[
    "acceptEdits",
    "auto",
    "bypassPermissions",
    "manual",
    "dontAsk",
    "plan",
];
/// `default` is accepted too (messages-api.md: shown as `manual`).
pub const PERMISSION_MODES_ACCEPTED: &[&str] = &[
    "acceptEdits",
    "auto",
    "bypassPermissions",
    "default",
    "dontAsk",
    "plan",
    "manual",
];
/// `--effort` levels (errors.md: an unknown one is a warning).
pub const EFFORT_LEVELS: &[&str] = &["low", "medium", "high", "xhigh", "max"];

const H: bool = true;
const V: bool = false;

/// `(flags, hidden, check)` in the real definition order.
pub const OPTIONS: &[OptSpec] = &[
    OptSpec::new("-d, --debug [filter]", V, Check::None),
    OptSpec::new("-d2e, --debug-to-stderr", H, Check::None),
    OptSpec::new("--debug-file <path>", V, Check::None),
    OptSpec::new("--verbose", V, Check::None),
    OptSpec::new("-p, --print", V, Check::None),
    OptSpec::new("--bare", V, Check::None),
    OptSpec::new("--safe-mode", V, Check::None),
    OptSpec::new("--init", H, Check::None),
    OptSpec::new("--init-only", H, Check::None),
    OptSpec::new("--maintenance", H, Check::None),
    OptSpec::new(
        "--output-format <format>",
        V,
        Check::Choices(&["text", "json", "stream-json"]),
    ),
    OptSpec::new("--json-schema <schema>", V, Check::None),
    OptSpec::new("--include-hook-events", V, Check::None),
    OptSpec::new("--include-partial-messages", V, Check::None),
    OptSpec::new("--forward-subagent-text", V, Check::None),
    OptSpec::new("--session-mirror", H, Check::None),
    OptSpec::new("--await-claim", H, Check::None),
    OptSpec::new(
        "--input-format <format>",
        V,
        Check::Choices(&["text", "stream-json"]),
    ),
    OptSpec::new("--await-initialize", H, Check::None),
    OptSpec::new("--dangerously-skip-permissions", V, Check::None),
    OptSpec::new("--allow-dangerously-skip-permissions", V, Check::None),
    OptSpec::new(
        "--thinking <mode>",
        H,
        Check::Choices(&["enabled", "adaptive", "disabled"]),
    ),
    OptSpec::new(
        "--thinking-display <display>",
        H,
        Check::Choices(&["summarized", "omitted", "highlights"]),
    ),
    OptSpec::new("--max-thinking-tokens <tokens>", H, Check::Number),
    OptSpec::new("--max-turns <turns>", H, Check::Number),
    OptSpec::new("--max-budget-usd <amount>", V, Check::BudgetUsd),
    OptSpec::new("--task-budget <tokens>", H, Check::TaskBudget),
    OptSpec::new("--replay-user-messages", V, Check::None),
    OptSpec::new("--prompt-suggestions [value]", V, Check::PromptSuggestions),
    OptSpec::new("--enable-auth-status", H, Check::None),
    OptSpec::new("--allowedTools, --allowed-tools <tools...>", V, Check::None),
    OptSpec::new("--tools <tools...>", V, Check::None),
    OptSpec::new("--restricted", V, Check::None),
    OptSpec::new(
        "--disallowedTools, --disallowed-tools <tools...>",
        V,
        Check::None,
    ),
    OptSpec::new("--mcp-config <configs...>", V, Check::None),
    OptSpec::new("--permission-prompt-tool <tool>", H, Check::None),
    OptSpec::new(
        "--permission-prompts <target>",
        V,
        Check::Choices(&["host", "none"]),
    ),
    OptSpec::new("--system-prompt <prompt>", V, Check::None),
    OptSpec::new("--system-prompt-file <file>", H, Check::None),
    OptSpec::new("--append-system-prompt <prompt>", V, Check::None),
    OptSpec::new("--append-system-prompt-file <file>", H, Check::None),
    OptSpec::new(
        "--system-prompt-snapshot <on|off>",
        V,
        Check::Choices(&["on", "off"]),
    ),
    OptSpec::new("--append-subagent-system-prompt <prompt>", H, Check::None),
    OptSpec::new(
        "--append-subagent-system-prompt-file <file>",
        H,
        Check::None,
    ),
    OptSpec::new("--plan-mode-instructions <instructions>", H, Check::None),
    OptSpec::new("--exclude-dynamic-system-prompt-sections", V, Check::None),
    OptSpec::new("--permission-mode <mode>", V, Check::PermissionMode),
    OptSpec::new("--inherit-permission-mode <mode>", H, Check::PermissionMode),
    OptSpec::new("-c, --continue", V, Check::None),
    OptSpec::new("-r, --resume [value]", V, Check::None),
    OptSpec::new("--fork-session", V, Check::None),
    OptSpec::new("--watch-artifact <artifact>", H, Check::None),
    OptSpec::new("--watch-artifact-no-autoreact <artifact>", H, Check::None),
    OptSpec::new("--prefill <text>", H, Check::None),
    OptSpec::new("--deep-link-origin", H, Check::None),
    OptSpec::new("--deep-link-repo <slug>", H, Check::None),
    OptSpec::new("--deep-link-last-fetch <ms>", H, Check::None),
    OptSpec::new("--prefill-b64 <b64>", H, Check::None),
    OptSpec::new("--deep-link-cwd-b64 <b64>", H, Check::None),
    OptSpec::new("--from-pr [value]", V, Check::None),
    OptSpec::new("--no-session-persistence", V, Check::None),
    OptSpec::new("--resume-session-at <message id>", H, Check::None),
    OptSpec::new("--resume-drops-turn <message id>", H, Check::None),
    OptSpec::new("--reply-on-resume", H, Check::None),
    OptSpec::new("--rewind-files <user-message-id>", H, Check::None),
    OptSpec::new("--model <model>", V, Check::None),
    OptSpec::new("--include-unsupported-models", H, Check::None),
    OptSpec::new("--effort <level>", V, Check::EffortWarning),
    OptSpec::new("--fast-mode <on|off>", H, Check::None),
    OptSpec::new("--agent <agent>", V, Check::None),
    OptSpec::new("--betas <betas...>", V, Check::None),
    OptSpec::new("--fallback-model <model>", V, Check::None),
    OptSpec::new("--workload <tag>", H, Check::None),
    OptSpec::new("--settings <file-or-json>", V, Check::None),
    OptSpec::new("--client-data-url <url>", H, Check::None),
    OptSpec::new("--allow-other-models", H, Check::None),
    OptSpec::new("--managed-settings <json>", H, Check::None),
    OptSpec::new("--managed-settings-in-initialize", H, Check::None),
    OptSpec::new("--host-auth-is-org-sign-in", H, Check::None),
    OptSpec::new("--add-dir <directories...>", V, Check::None),
    OptSpec::new("--project-config-root <dir>", H, Check::None),
    OptSpec::new("--ide", V, Check::None),
    OptSpec::new("--desktop", V, Check::None),
    OptSpec::new("--strict-mcp-config", V, Check::None),
    OptSpec::new("--session-id <uuid>", V, Check::None),
    OptSpec::new("-n, --name <name>", V, Check::None),
    OptSpec::new("--agents <json-or-file>", V, Check::None),
    OptSpec::new("--setting-sources <sources>", V, Check::None),
    OptSpec::new("--plugin-dir <path>", V, Check::None),
    OptSpec::new("--plugin-dir-no-mcp <path>", H, Check::None),
    OptSpec::new("--plugin-url <url>", V, Check::None),
    OptSpec::new("--disable-slash-commands", V, Check::None),
    OptSpec::new("--chrome", V, Check::None),
    OptSpec::new("--no-chrome", V, Check::None),
    OptSpec::new("--file <specs...>", V, Check::None),
    OptSpec::new("-w, --worktree [name]", V, Check::None),
    OptSpec::new("--tmux", V, Check::None),
    OptSpec::new("--advisor <model>", H, Check::None),
    OptSpec::new("--autocompact <auto|tokens>", V, Check::Autocompact),
    OptSpec::new("--enable-auto-mode", H, Check::None),
    OptSpec::new(
        "--proactivity <level>",
        H,
        Check::Choices(&["ask", "default", "proactive"]),
    ),
    OptSpec::new("--agents-view-if-allowed", H, Check::None),
    OptSpec::new("--bg, --background", V, Check::None),
    OptSpec::new("--messaging-socket-path <path>", H, Check::None),
    OptSpec::new("--brief", V, Check::None),
    OptSpec::new("--ax-screen-reader", V, Check::None),
    OptSpec::new("--channels <servers...>", H, Check::None),
    OptSpec::new(
        "--dangerously-load-development-channels <servers...>",
        H,
        Check::None,
    ),
    OptSpec::new("--agent-id <id>", H, Check::None),
    OptSpec::new("--agent-name <name>", H, Check::None),
    OptSpec::new("--team-name <name>", H, Check::None),
    OptSpec::new("--agent-color <color>", H, Check::None),
    OptSpec::new("--plan-mode-required", H, Check::None),
    OptSpec::new("--parent-session-id <id>", H, Check::None),
    OptSpec::new("--lead-verify-key <time.key>", H, Check::None),
    OptSpec::new(
        "--teammate-mode <mode>",
        H,
        Check::Choices(&["auto", "tmux", "iterm2", "in-process"]),
    ),
    OptSpec::new("--agent-type <type>", H, Check::None),
    OptSpec::new("--sdk-url <url>", H, Check::None),
    OptSpec::new("--runner-declares <names>", H, Check::None),
    OptSpec::new("--hold-repository-while-parked", H, Check::None),
    OptSpec::new("--session-began-as-copy <value>", H, Check::None),
    OptSpec::new("--initialize-fields <names>", H, Check::None),
    OptSpec::new("--teleport [session]", V, Check::None),
    OptSpec::new("--cloud [description|session_id|url]", V, Check::None),
    OptSpec::new(
        "--forward-home-settings <true|false>",
        H,
        Check::Choices(&["true", "false", "1", "0"]),
    ),
    OptSpec::new("--remote [description|session_id|url]", H, Check::None),
    OptSpec::new("--attach-serve <session_id>", H, Check::None),
    OptSpec::new("--environment <environment_id>", V, Check::None),
    OptSpec::new("--pool <pool_id>", H, Check::None),
    OptSpec::new("--correlation-id <id>", H, Check::None),
    OptSpec::new("--metadata <key=value>", H, Check::None),
    OptSpec::new("--ref <ref>", H, Check::None),
    OptSpec::new("--on-branch <branch>", H, Check::None),
    OptSpec::new("--remote-control [name]", V, Check::None),
    OptSpec::new("--rc [name]", H, Check::None),
    OptSpec::new(
        "--remote-control-session-name-prefix <prefix>",
        V,
        Check::None,
    ),
    // `.version(line, "-v, --version")` registers a real option whose parser prints and exits.
    OptSpec::new("-v, --version", V, Check::Version),
];

/// The help flag is not in the option map: the real parser finds it among the unknown args.
pub const HELP_FLAGS: OptSpec = OptSpec::new("-h, --help", V, Check::None);

/// The option whose short or long flag is exactly `flag`.
pub fn find(flag: &str) -> Option<&'static OptSpec> {
    OPTIONS
        .iter()
        .find(|o| o.short() == Some(flag) || o.long() == Some(flag))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HELP: &str = include_str!("../../assets/help.txt");

    /// Whether `--help` lists `flags` as an option term (at the start of an indented line).
    fn listed(flags: &str) -> bool {
        HELP.lines().any(|l| {
            l.strip_prefix("  ")
                .and_then(|t| t.strip_prefix(flags))
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
        })
    }

    #[test]
    fn visibility_matches_the_real_help_text() {
        for o in OPTIONS {
            assert_eq!(listed(o.flags), !o.hidden, "{}", o.flags);
        }
        assert!(listed(HELP_FLAGS.flags));
    }

    #[test]
    fn every_flag_in_the_help_text_is_in_the_table() {
        let terms = HELP
            .split("\nCommands:")
            .next()
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.strip_prefix("  "))
            .filter(|t| t.starts_with('-'));
        for term in terms {
            let flag = term.split([' ', ',']).next().unwrap_or_default();
            assert!(
                find(flag).is_some() || HELP_FLAGS.short() == Some(flag),
                "{flag}"
            );
        }
    }

    #[test]
    fn hidden_flags_of_messages_api_md_are_known() {
        for flag in [
            "--max-turns",
            "--system-prompt-file",
            "--append-system-prompt-file",
            "--permission-prompt-tool",
            "--task-budget",
            "--resume-session-at",
            "--thinking",
            "--thinking-display",
            "--max-thinking-tokens",
            "--await-initialize",
            "--sdk-url",
            "--init",
            "--init-only",
            "--maintenance",
        ] {
            assert!(find(flag).is_some_and(|o| o.hidden), "{flag}");
        }
    }
}
