//! Every text the fake prints for an argv or input error, as one table of templates copied from
//! the real claude 2.1.328 (`reference/claude-2.1.328/errors.md`, plus probes of the installed
//! CLI). Nothing else in the crate spells an error text.
//!
//! Placeholders in templates are `{name}`; [`CliError::render`] fills them. Every entry exits 1,
//! like the real CLI (commander errors start with a lower-case `error:`, the CLI's own checks
//! with `Error:`).

/// Identifies one row of [`TABLE`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorId {
    UnknownOption,
    MissingArgument,
    InvalidArgument,
    SettingsNotFound,
    SettingSourceInvalid,
    SessionIdNeedsFork,
    SessionIdInvalid,
    SystemPromptFileNotFound,
    AppendSystemPromptFileNotFound,
    McpConfigInvalid,
    InputFormatNeedsStreamJson,
    PartialNeedsStreamJson,
    JsonSchemaInvalidJson,
    JsonSchemaNotObject,
    BypassAsRoot,
    ResumeSessionAtNeedsResume,
    ResumeNeedsValue,
    ResumeTitleNotFound,
    NoInput,
    WhitespaceInput,
    StreamJsonNeedsVerbose,
    StreamInputLineNotJson,
}

/// `(id, stderr template)`; the line ends with `\n` when printed.
pub const TABLE: &[(ErrorId, &str)] = &[
    (
        ErrorId::UnknownOption,
        "error: unknown option '{flag}'{suggestion}",
    ),
    (
        ErrorId::MissingArgument,
        "error: option '{flags}' argument missing",
    ),
    (
        ErrorId::InvalidArgument,
        "error: option '{flags}' argument '{value}' is invalid. {reason}",
    ),
    (
        ErrorId::SettingsNotFound,
        "Error: Settings file not found: {path}",
    ),
    (
        ErrorId::SettingSourceInvalid,
        "Error processing --setting-sources: Invalid setting source: {source}. Valid options are: user, project, local",
    ),
    (
        ErrorId::SessionIdNeedsFork,
        "Error: --session-id with --continue or --resume also needs --fork-session.",
    ),
    (
        ErrorId::SessionIdInvalid,
        "Error: Invalid session ID. Must be a valid UUID.",
    ),
    (
        ErrorId::SystemPromptFileNotFound,
        "Error: System prompt file not found: {path}",
    ),
    (
        ErrorId::AppendSystemPromptFileNotFound,
        "Error: Append system prompt file not found: {path}",
    ),
    (
        ErrorId::McpConfigInvalid,
        "Error: Invalid MCP configuration:\n{lines}",
    ),
    (
        ErrorId::InputFormatNeedsStreamJson,
        "Error: --input-format=stream-json requires output-format=stream-json.",
    ),
    (
        ErrorId::PartialNeedsStreamJson,
        "Error: --include-partial-messages requires --print and --output-format=stream-json.",
    ),
    (
        ErrorId::JsonSchemaInvalidJson,
        "Error: --json-schema is not valid JSON: JSON Parse error: {detail}",
    ),
    (
        ErrorId::JsonSchemaNotObject,
        "Error: --json-schema must be a JSON object",
    ),
    (
        ErrorId::BypassAsRoot,
        "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons",
    ),
    (
        ErrorId::ResumeSessionAtNeedsResume,
        "Error: --resume-session-at requires --resume",
    ),
    (
        ErrorId::ResumeNeedsValue,
        "Error: --resume requires a valid session ID or session title when used with --print. Usage: claude -p --resume <session-id|title>",
    ),
    (
        ErrorId::ResumeTitleNotFound,
        "Error: --resume requires a valid session ID or session title when used with --print. Usage: claude -p --resume <session-id|title>. Provided value \"{value}\" is not a UUID and does not match any session title.",
    ),
    (
        ErrorId::NoInput,
        "Error: Input must be provided either through stdin or as a prompt argument when using --print",
    ),
    (
        ErrorId::WhitespaceInput,
        "Error: Input contained only whitespace. Provide a prompt with text through stdin or as a prompt argument when using --print",
    ),
    (
        ErrorId::StreamJsonNeedsVerbose,
        "Error: When using --print, --output-format=stream-json requires --verbose",
    ),
    (
        ErrorId::StreamInputLineNotJson,
        "Error parsing streaming input line (type=unknown, {chars} chars): SyntaxError",
    ),
];

/// Warning printed for an unknown `--effort` value; the run continues (errors.md).
const EFFORT_WARNING: &str = "Warning: Unknown --effort value '{value}' \u{2014} ignoring it and using the default effort. Valid values: low, medium, high, xhigh, max.";

/// One error with its values, ready to print.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CliError {
    pub id: ErrorId,
    pub args: Vec<(&'static str, String)>,
}

impl CliError {
    pub fn new(id: ErrorId) -> Self {
        Self {
            id,
            args: Vec::new(),
        }
    }

    pub fn with(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.args.push((name, value.into()));
        self
    }

    /// The exact stderr text, without the trailing newline.
    pub fn render(&self) -> String {
        let template = TABLE
            .iter()
            .find(|(id, _)| *id == self.id)
            .map_or("", |(_, t)| *t);
        fill(template, &self.args)
    }

    /// Every error of the table exits 1, as the real CLI does.
    pub fn exit_code(&self) -> u8 {
        1
    }
}

/// The `--effort` warning line for `value`.
pub fn effort_warning(value: &str) -> String {
    fill(EFFORT_WARNING, &[("value", value.to_owned())])
}

/// Single pass, so a value that itself contains `{x}` is never expanded again.
fn fill(template: &str, args: &[(&'static str, String)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let value = after.find('}').and_then(|close| {
            let name = &after[..close];
            args.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (v, close))
        });
        match value {
            Some((v, close)) => {
                out.push_str(v);
                rest = &after[close + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_id_has_exactly_one_template() {
        for (id, _) in TABLE {
            assert_eq!(
                TABLE.iter().filter(|(other, _)| other == id).count(),
                1,
                "{id:?}"
            );
        }
    }

    #[test]
    fn templates_fill_their_placeholders() {
        let e = CliError::new(ErrorId::UnknownOption)
            .with("flag", "--x")
            .with("suggestion", "");
        assert_eq!(e.render(), "error: unknown option '--x'");
    }
}
