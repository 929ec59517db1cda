//! Reading the `Options:` section of a commander-style `--help` text, for the drift check only
//! (NAT-1: nothing parses help at run time).
//!
//! An entry starts on a line indented by exactly two spaces followed by `-`:
//! `  -r, --resume [value]   Resume a conversation…`. Its spellings are comma-separated, the
//! argument form (`<x>`, `[x]`, `<x...>`) follows the last one, and the description runs from two
//! or more spaces after the head (or from the next line, for long heads) through every deeper
//! indented continuation line. A `(choices: "a", "b", …)` note lists the accepted values.

/// How an option takes its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arity {
    /// A switch: no value.
    None,
    /// `<x>`: a value is required.
    Required,
    /// `[x]`: a value may follow.
    Optional,
}

impl Arity {
    /// `true` when the flag accepts a value after it.
    #[must_use]
    pub(crate) fn takes_value(self) -> bool {
        !matches!(self, Arity::None)
    }
}

/// One entry of the `Options:` section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HelpOption {
    /// Every spelling, e.g. `["-r", "--resume"]`.
    pub spellings: Vec<String>,
    /// The argument form as printed (`<uuid>`, `[value]`), if any.
    pub form: Option<String>,
    /// The description, continuation lines joined by single spaces.
    pub description: String,
    /// The `(choices: …)` values, when the help lists them.
    pub choices: Option<Vec<String>>,
}

impl HelpOption {
    /// How the option takes its value.
    #[must_use]
    pub fn arity(&self) -> Arity {
        match self.form.as_deref().and_then(|f| f.chars().next()) {
            Some('<') => Arity::Required,
            Some('[') => Arity::Optional,
            _ => Arity::None,
        }
    }

    /// The head as help prints it: `-r, --resume [value]`.
    #[must_use]
    pub fn head(&self) -> String {
        match &self.form {
            Some(f) => format!("{} {f}", self.spellings.join(", ")),
            None => self.spellings.join(", "),
        }
    }

    /// `true` when `word` appears in the description as a whole word (for values a help text
    /// lists in prose, like `(low, medium, high, xhigh, max)`).
    #[must_use]
    pub(crate) fn mentions(&self, word: &str) -> bool {
        self.description
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            .any(|w| w == word)
    }
}

/// The parsed options of one help text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Help {
    /// The entries in help order.
    pub options: Vec<HelpOption>,
    /// The first word of each entry of the `Commands:` section (subcommands such as `acp`).
    pub commands: Vec<String>,
}

impl Help {
    /// Parses the `Options:` section; `None` when the text has none (not a help text).
    #[must_use]
    pub fn parse(text: &str) -> Option<Help> {
        let mut lines = text.lines().skip_while(|l| l.trim_end() != "Options:");
        lines.next()?;
        let mut options: Vec<HelpOption> = Vec::new();
        for line in lines {
            if line.trim().is_empty() {
                continue;
            }
            if !line.starts_with(' ') {
                break; // the next section (`Commands:`)
            }
            if let Some(rest) = line.strip_prefix("  -") {
                options.push(parse_head(&format!("-{rest}")));
            } else if let Some(last) = options.last_mut() {
                if !last.description.is_empty() {
                    last.description.push(' ');
                }
                last.description.push_str(line.trim());
            }
        }
        for o in &mut options {
            o.choices = parse_choices(&o.description);
        }
        Some(Help {
            options,
            commands: parse_commands(text),
        })
    }

    /// Whether the `Commands:` section lists `word` as a subcommand.
    #[must_use]
    pub(crate) fn has_command(&self, word: &str) -> bool {
        self.commands.iter().any(|c| c == word)
    }

    /// The entry one of whose spellings is exactly `flag`.
    #[must_use]
    pub fn find(&self, flag: &str) -> Option<&HelpOption> {
        self.options
            .iter()
            .find(|o| o.spellings.iter().any(|s| s == flag))
    }
}

/// The subcommand names of the `Commands:` section: each entry line is indented by exactly two
/// spaces, and its first word (up to a space or `|` alias separator) is the command.
fn parse_commands(text: &str) -> Vec<String> {
    let mut lines = text.lines().skip_while(|l| l.trim_end() != "Commands:");
    if lines.next().is_none() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for line in lines {
        if line.trim().is_empty() {
            continue;
        }
        if !line.starts_with(' ') {
            break;
        }
        let Some(rest) = line.strip_prefix("  ") else {
            continue;
        };
        if rest.starts_with(' ') {
            continue; // a continuation line
        }
        let word: String = rest
            .chars()
            .take_while(|c| !c.is_whitespace() && *c != '|')
            .collect();
        if !word.is_empty() && !word.starts_with('-') {
            out.push(word);
        }
    }
    out
}

/// Splits `-r, --resume [value]   Resume …` into spellings, form and the start of the description.
fn parse_head(line: &str) -> HelpOption {
    let (head, description) = match line.find("  ") {
        Some(i) => (&line[..i], line[i..].trim()),
        None => (line.trim_end(), ""),
    };
    let mut spellings = Vec::new();
    let mut form_parts: Vec<&str> = Vec::new();
    for token in head.split_whitespace() {
        if form_parts.is_empty() && token.starts_with('-') {
            spellings.push(token.trim_end_matches(',').to_owned());
        } else {
            form_parts.push(token);
        }
    }
    HelpOption {
        spellings,
        form: (!form_parts.is_empty()).then(|| form_parts.join(" ")),
        description: description.to_owned(),
        choices: None,
    }
}

/// The quoted values after `choices:` up to the closing parenthesis or a `default:`/`preset:`
/// note: `(choices: "text", "json", default: "text")` gives `["text", "json"]`.
fn parse_choices(description: &str) -> Option<Vec<String>> {
    let start = description.find("choices:")? + "choices:".len();
    let mut rest = description[start..].trim_start();
    let mut values = Vec::new();
    while let Some(after_quote) = rest.strip_prefix('"') {
        let end = after_quote.find('"')?;
        values.push(after_quote[..end].to_owned());
        rest = after_quote[end + 1..].trim_start();
        match rest.strip_prefix(',') {
            Some(r) => rest = r.trim_start(),
            None => break,
        }
    }
    (!values.is_empty()).then_some(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "Usage: claude [options] [command] [prompt]

Options:
  --allowedTools, --allowed-tools <tools...>
      Comma or space-separated list of tool names to allow (e.g. \"Bash(git *)
      Edit\")
  --bare                                Minimal mode: skip hooks. Explicitly
                                        provide context via:
                                        --system-prompt[-file], --add-dir
  -c, --continue                        Continue the most recent conversation
  --effort <level>                      Effort level for the current session
                                        (low, medium, high, xhigh, max)
  --input-format <format>               Input format (only works with --print):
                                        \"text\" (default), or \"stream-json\"
                                        (choices: \"text\", \"stream-json\")
  --permission-prompts <target>         Who answers (choices: \"host\", \"none\",
                                        default: \"host\")
  -r, --resume [value]                  Resume a conversation by session ID

Commands:
  agents [options]                      Manage background agents
";

    #[test]
    fn parses_spellings_forms_and_multi_line_descriptions() {
        let h = Help::parse(SAMPLE).unwrap();
        let heads: Vec<String> = h.options.iter().map(HelpOption::head).collect();
        assert_eq!(
            heads,
            [
                "--allowedTools, --allowed-tools <tools...>",
                "--bare",
                "-c, --continue",
                "--effort <level>",
                "--input-format <format>",
                "--permission-prompts <target>",
                "-r, --resume [value]",
            ]
        );
        let bare = h.find("--bare").unwrap();
        assert_eq!(bare.arity(), Arity::None);
        assert!(
            bare.description
                .ends_with("--system-prompt[-file], --add-dir")
        );
        assert!(h.find("--system-prompt").is_none(), "prose is not an entry");
        assert_eq!(h.find("-r").unwrap().arity(), Arity::Optional);
        assert_eq!(h.find("--allowed-tools").unwrap().arity(), Arity::Required);
        assert!(h.find("agents").is_none(), "commands are not options");
    }

    #[test]
    fn reads_choice_lists_and_prose_values() {
        let h = Help::parse(SAMPLE).unwrap();
        assert_eq!(
            h.find("--input-format").unwrap().choices,
            Some(vec!["text".into(), "stream-json".into()])
        );
        assert_eq!(
            h.find("--permission-prompts").unwrap().choices,
            Some(vec!["host".into(), "none".into()])
        );
        let effort = h.find("--effort").unwrap();
        assert_eq!(effort.choices, None);
        assert!(effort.mentions("xhigh") && !effort.mentions("extreme"));
    }

    #[test]
    fn a_text_without_options_is_not_help() {
        assert_eq!(Help::parse("2.1.328 (Claude Code)\n"), None);
    }
}
