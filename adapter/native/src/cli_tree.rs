//! The pinned, partial command contract of a tested native CLI (NAT-1, ACP-9), loaded from
//! `cli-tree.json` (claude) or `cursor-cli-tree.json` (Cursor's agent): one format, one loader.
//!
//! A document from a file is checked once at start-up, first against `docs/cli-tree.schema.json`
//! (its format) and then semantically (unique names and flags, defaults among the choices, symmetric
//! exclusions, no bypass mode; NAT-5). After that it is the only source of the native argv:
//! [`CliTree::argv`] appends the mode's fixed argv, every declared option the caller supplied (and
//! the `always` ones) in declared order, the separator and the prompt (NAT-3..7); a tree with
//! `option_placement: "before_mode"` puts the options before the mode's argv (Cursor's global
//! flags go before `acp`), and a tree without a `prompt_separator` carries the prompt over its
//! protocol, never in argv. Nothing parses `--help` at run time; the maintainer's drift check
//! (`super::drift`) compares the tree with an installed CLI. The format is described in
//! `docs/cli-tree.md`.

use std::collections::{BTreeMap, HashSet};
use std::ffi::OsString;
use std::path::Path;

use serde::Deserialize;
use serde_json::{Value, json};

/// The raw text of the repository's cli-tree.json, embedded at build time.
pub const EMBEDDED: &str = include_str!("../../../cli-tree.json");

/// The raw text of the repository's cursor-cli-tree.json, embedded at build time (ACP-9).
pub(crate) const CURSOR_EMBEDDED: &str = include_str!("../../../cursor-cli-tree.json");

/// The JSON Schema of the cli-tree format (draft 2020-12), embedded at build time.
pub const SCHEMA: &str = include_str!("../../../docs/cli-tree.schema.json");

/// Flags and choices the adapter never produces (NAT-5). A tree that offers them is refused at
/// load, so a careless edit of cli-tree.json cannot open a bypass mode.
const FORBIDDEN_FLAGS: &[&str] = &[
    "--dangerously-skip-permissions",
    "--allow-dangerously-skip-permissions",
];
const FORBIDDEN_PERMISSION_CHOICES: &[&str] = &["bypassPermissions", "auto", "manual", "default"];

/// Why a cli-tree document was refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CliTreeError {
    /// The file could not be read.
    #[error("cannot read cli tree {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The text is not JSON.
    #[error("cli tree is not JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// The document does not follow docs/cli-tree.schema.json.
    #[error("cli tree does not follow its schema: {}", .0.join("; "))]
    Schema(Vec<String>),
    /// The document follows the schema but contradicts itself or NAT-5/NAT-6.
    #[error("cli tree is inconsistent: {0}")]
    Semantic(String),
}

/// The way the CLI is run (NAT-3): each has its own fixed argv in the tree, under its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// claude's MCP runs: stream-json, one event per line (`modes.stream`).
    Stream,
    /// claude's CLI projection (CLI-1): one JSON result (`modes.json`).
    Json,
    /// Cursor's agent speaking ACP on stdio (`modes.acp`, ACP-9).
    Acp,
}

impl Mode {
    /// The key of the mode under `modes`.
    #[must_use]
    pub fn key(self) -> &'static str {
        match self {
            Mode::Stream => "stream",
            Mode::Json => "json",
            Mode::Acp => "acp",
        }
    }
}

/// Where the declared options go relative to the mode's fixed argv.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OptionPlacement {
    /// `<mode argv> <options> [separator prompt]` (claude).
    #[default]
    AfterMode,
    /// `<options> <mode argv>`: global flags before a subcommand (`cursor-agent --model M acp`).
    BeforeMode,
}

/// The value rule of a declared option.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ValueRule {
    /// One of `choices`.
    Choice {
        /// What callers may pass.
        choices: Vec<String>,
        /// What the native CLI accepts (informational, for the drift check).
        #[serde(default)]
        native_choices: Option<Vec<String>>,
    },
    /// A UTF-8 string of at most `max_bytes` bytes.
    String {
        /// The bound in bytes.
        max_bytes: usize,
    },
    /// A finite number within the bounds.
    Number {
        /// Values must be greater than this.
        #[serde(default)]
        exclusive_minimum: Option<f64>,
        /// Values must be at least this.
        #[serde(default)]
        minimum: Option<f64>,
        /// Values must be at most this.
        #[serde(default)]
        maximum: Option<f64>,
    },
    /// A hyphenated UUID.
    Uuid,
    /// A flag without a value.
    Switch,
}

/// One declared option.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptionSpec {
    /// The argument name callers use (e.g. `permission_mode`).
    pub name: String,
    /// The exact native flag (e.g. `--permission-mode`).
    pub flag: String,
    /// Free text.
    #[serde(default)]
    pub description: Option<String>,
    /// What values it takes.
    pub value: ValueRule,
    /// Passed on every run (with `default` when not supplied; NAT-5).
    #[serde(default)]
    pub always: bool,
    /// The value used when `always` and not supplied.
    #[serde(default)]
    pub default: Option<String>,
    /// Options that cannot be combined with this one (NAT-6).
    #[serde(default)]
    pub excludes: Vec<String>,
}

/// The file `cli-tree refresh` writes claude's refreshed tree to, in [`user_dir`].
pub const USER_FILE: &str = "cli-tree.json";
/// The file `cli-tree refresh --cursor` writes Cursor's refreshed tree to, in [`user_dir`].
pub const CURSOR_USER_FILE: &str = "cursor-cli-tree.json";

/// Where refreshed trees live: `$XDG_CONFIG_HOME/claude-mcp-adapter` (an absolute
/// `XDG_CONFIG_HOME`), else `$HOME/.config/claude-mcp-adapter`; `None` without either.
#[must_use]
pub fn user_dir() -> Option<std::path::PathBuf> {
    let non_empty = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    let base = non_empty("XDG_CONFIG_HOME")
        .map(std::path::PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| non_empty("HOME").map(|h| std::path::PathBuf::from(h).join(".config")))?;
    Some(base.join("claude-mcp-adapter"))
}

/// The tree a provider runs with: `path` when given (`--cli-tree`), else the refreshed `file`
/// in [`user_dir`] when one was written (`cli-tree refresh`), else `embedded`.
pub fn preferred(
    path: Option<&Path>,
    file: &str,
    embedded: fn() -> Result<CliTree, CliTreeError>,
) -> Result<CliTree, CliTreeError> {
    if let Some(p) = path {
        return CliTree::load(p);
    }
    match user_dir().map(|d| d.join(file)).filter(|p| p.is_file()) {
        Some(p) => CliTree::load(&p),
        None => embedded(),
    }
}

/// The version assertion (NAT-2).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VersionSpec {
    /// Arguments that print the version.
    pub argv: Vec<String>,
    /// The pinned first line of that output.
    pub line: String,
}

impl VersionSpec {
    /// Whether `line` reads as another version of the same CLI: a version token (a digit, then
    /// letters, digits, `.`, `-`, `+`) followed by exactly what follows the pinned line's own
    /// (` (Claude Code)` for claude, nothing for Cursor's agent).
    #[must_use]
    pub fn same_cli(&self, line: &str) -> bool {
        let split = |l: &str| -> Option<(String, String)> {
            let l = l.trim();
            let end = l.find(' ').unwrap_or(l.len());
            let (token, rest) = l.split_at(end);
            let ok = token.starts_with(|c: char| c.is_ascii_digit())
                && token
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+'));
            ok.then(|| (token.to_owned(), rest.to_owned()))
        };
        match (split(&self.line), split(line)) {
            (Some((_, pinned)), Some((_, seen))) => pinned == seen,
            _ => false,
        }
    }
}

/// A mode's fixed argv.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ModeSpec {
    /// Free text.
    #[serde(default)]
    pub description: Option<String>,
    /// The fixed arguments.
    pub argv: Vec<String>,
}

#[derive(Debug, Deserialize)]
struct Document {
    #[serde(rename = "$schema", default)]
    _schema: Option<String>,
    #[serde(rename = "format_version")]
    _format_version: u32,
    tool: String,
    package: String,
    version: VersionSpec,
    modes: BTreeMap<String, ModeSpec>,
    options: Vec<OptionSpec>,
    #[serde(default)]
    option_placement: OptionPlacement,
    prompt_separator: Option<String>,
}

/// A value supplied for a declared option.
#[derive(Debug, Clone, PartialEq)]
pub enum OptionValue {
    /// For `choice`, `string` and `uuid` options.
    Text(String),
    /// For `number` options.
    Number(f64),
    /// For `switch` options: `true` passes the flag, `false` is the same as not supplying it.
    Switch(bool),
}

/// An argument the tree refuses: becomes `invalid_arguments` with `field` = `/name` (TOOL-3).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ArgError {
    /// The option name (the JSON Pointer is `/` + this).
    pub name: String,
    /// What is wrong, lowercase.
    pub message: String,
}

impl ArgError {
    fn new(name: &str, message: impl Into<String>) -> Self {
        Self {
            name: name.to_owned(),
            message: message.into(),
        }
    }

    /// The JSON Pointer of the offending argument.
    #[must_use]
    pub fn pointer(&self) -> String {
        format!("/{}", self.name)
    }
}

/// The loaded, validated command contract.
#[derive(Debug, Clone)]
pub struct CliTree {
    /// The parsed file as written (key order kept).
    pub raw: Value,
    /// The tool's command name (`claude`).
    pub tool: String,
    /// The package that ships it.
    pub package: String,
    /// The version assertion (NAT-2).
    pub version: VersionSpec,
    /// Declared options in argv order.
    pub options: Vec<OptionSpec>,
    /// Placed before the prompt (NAT-7); `None` when the prompt goes over the protocol (ACP).
    pub prompt_separator: Option<String>,
    /// Where options go relative to the mode's argv.
    pub option_placement: OptionPlacement,
    modes: BTreeMap<String, ModeSpec>,
}

impl CliTree {
    /// The tree embedded at build time, semantically checked. Its schema conformance is proved
    /// by a test instead of at every start-up (see the module header).
    pub fn embedded() -> Result<Self, CliTreeError> {
        Self::parse_checked(EMBEDDED, false)
    }

    /// Reads and validates a tree from a file (`--cli-tree PATH`).
    pub fn load(path: &Path) -> Result<Self, CliTreeError> {
        let text = std::fs::read_to_string(path).map_err(|source| CliTreeError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Self::parse(&text)
    }

    /// Parses and validates a cli-tree document: schema first, then the semantic rules.
    pub fn parse(text: &str) -> Result<Self, CliTreeError> {
        Self::parse_checked(text, true)
    }

    /// [`CliTree::parse`], with the schema pass only when `schema` is set (the embedded trees).
    fn parse_checked(text: &str, schema: bool) -> Result<Self, CliTreeError> {
        let raw: Value = serde_json::from_str(text)?;
        if schema {
            check_schema(&raw)?;
        }
        let doc: Document = serde_json::from_value(raw.clone())?;
        let tree = Self {
            raw,
            tool: doc.tool,
            package: doc.package,
            version: doc.version,
            options: doc.options,
            prompt_separator: doc.prompt_separator,
            option_placement: doc.option_placement,
            modes: doc.modes,
        };
        tree.check_semantics()?;
        Ok(tree)
    }

    /// The embedded cursor tree, semantically checked (ACP-9); like [`CliTree::embedded`], its
    /// schema conformance is proved by a test.
    pub fn cursor_embedded() -> Result<Self, CliTreeError> {
        Self::parse_checked(CURSOR_EMBEDDED, false)
    }

    /// The fixed argv of a mode (empty for a mode the tree does not declare: a provider checks
    /// its modes with [`CliTree::require_modes`] when it loads its tree).
    #[must_use]
    pub(crate) fn mode_argv(&self, mode: Mode) -> &[String] {
        self.modes
            .get(mode.key())
            .map_or(&[], |m| m.argv.as_slice())
    }

    /// Whether the tree declares `mode`.
    #[must_use]
    pub(crate) fn has_mode(&self, mode: Mode) -> bool {
        self.modes.contains_key(mode.key())
    }

    /// Refuses a tree that lacks one of the modes a provider runs, or that has no prompt
    /// separator where the provider passes the prompt in argv.
    pub fn require_modes(&self, modes: &[Mode], prompt_in_argv: bool) -> Result<(), CliTreeError> {
        for m in modes {
            if !self.modes.contains_key(m.key()) {
                return Err(CliTreeError::Semantic(format!(
                    "{} needs modes.{}, which the tree does not declare",
                    self.tool,
                    m.key()
                )));
            }
        }
        if prompt_in_argv != self.prompt_separator.is_some() {
            return Err(CliTreeError::Semantic(format!(
                "{} passes the prompt {}, so prompt_separator must be {}",
                self.tool,
                if prompt_in_argv {
                    "in argv"
                } else {
                    "over its protocol"
                },
                if prompt_in_argv { "a string" } else { "null" }
            )));
        }
        Ok(())
    }

    /// A declared option by name.
    #[must_use]
    pub fn option(&self, name: &str) -> Option<&OptionSpec> {
        self.options.iter().find(|o| o.name == name)
    }

    /// A JSON Schema fragment (draft 2020-12) for the option's argument, so tool input schemas
    /// can be derived from the tree. String bounds are in bytes here and in code points in JSON
    /// Schema; the fragment uses the byte bound as `maxLength` (never looser than the tree for
    /// ASCII) and [`CliTree::check_value`] enforces bytes.
    #[must_use]
    pub(crate) fn option_schema(&self, name: &str) -> Option<Value> {
        let opt = self.option(name)?;
        Some(match &opt.value {
            ValueRule::Choice { choices, .. } => json!({"type": "string", "enum": choices}),
            ValueRule::String { max_bytes } => {
                json!({"type": "string", "minLength": 1, "maxLength": max_bytes})
            }
            ValueRule::Number {
                exclusive_minimum,
                minimum,
                maximum,
            } => {
                let mut m = serde_json::Map::new();
                m.insert("type".into(), "number".into());
                if let Some(v) = exclusive_minimum {
                    m.insert("exclusiveMinimum".into(), json!(v));
                }
                if let Some(v) = minimum {
                    m.insert("minimum".into(), json!(v));
                }
                if let Some(v) = maximum {
                    m.insert("maximum".into(), json!(v));
                }
                Value::Object(m)
            }
            ValueRule::Uuid => json!({
                "type": "string",
                "pattern": "^[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}$"
            }),
            ValueRule::Switch => json!({"type": "boolean"}),
        })
    }

    /// Checks one supplied value against its option's rule.
    pub(crate) fn check_value(&self, name: &str, value: &OptionValue) -> Result<(), ArgError> {
        let opt = self
            .option(name)
            .ok_or_else(|| ArgError::new(name, format!("{name} is not a declared option")))?;
        match (&opt.value, value) {
            (ValueRule::Choice { choices, .. }, OptionValue::Text(s)) => {
                if choices.iter().any(|c| c == s) {
                    Ok(())
                } else {
                    Err(ArgError::new(
                        name,
                        format!("{name} must be one of {}", choices.join(", ")),
                    ))
                }
            }
            (ValueRule::String { max_bytes }, OptionValue::Text(s)) => {
                if s.is_empty() {
                    Err(ArgError::new(name, format!("{name} must not be empty")))
                } else if s.len() > *max_bytes {
                    Err(ArgError::new(
                        name,
                        format!("{name} is longer than {max_bytes} bytes"),
                    ))
                } else if s.contains('\0') {
                    Err(ArgError::new(
                        name,
                        format!("{name} contains a NUL byte, which no argv string can carry"),
                    ))
                } else {
                    Ok(())
                }
            }
            (
                ValueRule::Number {
                    exclusive_minimum,
                    minimum,
                    maximum,
                },
                OptionValue::Number(n),
            ) => {
                if !n.is_finite() {
                    return Err(ArgError::new(
                        name,
                        format!("{name} must be a finite number"),
                    ));
                }
                if let Some(m) = exclusive_minimum
                    && *n <= *m
                {
                    return Err(ArgError::new(
                        name,
                        format!("{name} must be greater than {m}"),
                    ));
                }
                if let Some(m) = minimum
                    && *n < *m
                {
                    return Err(ArgError::new(name, format!("{name} must be at least {m}")));
                }
                if let Some(m) = maximum
                    && *n > *m
                {
                    return Err(ArgError::new(name, format!("{name} must be at most {m}")));
                }
                Ok(())
            }
            (ValueRule::Uuid, OptionValue::Text(s)) => {
                if is_hyphenated_uuid(s) {
                    Ok(())
                } else {
                    Err(ArgError::new(
                        name,
                        format!("{name} must be a UUID (8-4-4-4-12 hex digits)"),
                    ))
                }
            }
            (ValueRule::Switch, OptionValue::Switch(_)) => Ok(()),
            (rule, _) => Err(ArgError::new(
                name,
                format!("{name} has the wrong type (expected {})", rule_kind(rule)),
            )),
        }
    }

    /// Builds the native argv (without the program): the mode's argv, then each declared option
    /// that was supplied (or is `always`) in declared order, then the separator and the prompt
    /// (NAT-1, NAT-3..7). `values` maps option names to values; unknown names, bad values and
    /// excluded combinations are refused.
    pub fn argv(
        &self,
        mode: Mode,
        values: &BTreeMap<String, OptionValue>,
        prompt: &str,
    ) -> Result<Vec<OsString>, ArgError> {
        for (name, value) in values {
            self.check_value(name, value)?;
        }
        // NAT-6: exclusions, reported on the later option in declared order so the message
        // names the pair in a stable way.
        let set: Vec<&OptionSpec> = self
            .options
            .iter()
            .filter(|o| is_set(values.get(&o.name)))
            .collect();
        for (i, later) in set.iter().enumerate() {
            if let Some(earlier) = set[..i].iter().find(|e| later.excludes.contains(&e.name)) {
                return Err(ArgError::new(
                    &later.name,
                    format!("{} cannot be combined with {}", later.name, earlier.name),
                ));
            }
        }
        if prompt.is_empty() {
            return Err(ArgError::new("prompt", "prompt must not be empty"));
        }
        if prompt.contains('\0') {
            return Err(ArgError::new(
                "prompt",
                "prompt contains a NUL byte, which no argv string can carry",
            ));
        }

        let mode_argv = self.mode_argv(mode).iter().map(OsString::from);
        let mut argv: Vec<OsString> = Vec::new();
        if self.option_placement == OptionPlacement::AfterMode {
            argv.extend(mode_argv.clone());
        }
        for opt in &self.options {
            let supplied = values.get(&opt.name);
            let value = match supplied {
                Some(v) => v.clone(),
                None if opt.always => match &opt.default {
                    Some(d) => OptionValue::Text(d.clone()),
                    // Semantics guarantee a default for `always` options.
                    None => continue,
                },
                None => continue,
            };
            match value {
                OptionValue::Switch(false) => {}
                OptionValue::Switch(true) => argv.push(opt.flag.clone().into()),
                OptionValue::Text(s) => {
                    argv.push(opt.flag.clone().into());
                    argv.push(s.into());
                }
                OptionValue::Number(n) => {
                    argv.push(opt.flag.clone().into());
                    argv.push(format_number(n).into());
                }
            }
        }
        if self.option_placement == OptionPlacement::BeforeMode {
            argv.extend(mode_argv);
        }
        // ACP: no separator, and the prompt goes over the protocol (ACP-3), never argv.
        if let Some(sep) = &self.prompt_separator {
            argv.push(sep.clone().into());
            argv.push(prompt.into());
        }
        Ok(argv)
    }

    fn check_semantics(&self) -> Result<(), CliTreeError> {
        let bad = |m: String| Err(CliTreeError::Semantic(m));
        if self.version.line.trim() != self.version.line {
            return bad("version.line has leading or trailing whitespace".into());
        }
        let mut names = HashSet::new();
        let mut flags = HashSet::new();
        for m in self.modes.values() {
            for a in &m.argv {
                if FORBIDDEN_FLAGS.contains(&a.as_str()) {
                    return bad(format!("mode argv contains {a} (NAT-5)"));
                }
            }
        }
        for opt in &self.options {
            if !names.insert(opt.name.as_str()) {
                return bad(format!("option name {} is declared twice", opt.name));
            }
            if !flags.insert(opt.flag.as_str()) {
                return bad(format!("flag {} is declared twice", opt.flag));
            }
            if opt.name == "prompt" {
                return bad("an option cannot be named prompt".into());
            }
            if FORBIDDEN_FLAGS.contains(&opt.flag.as_str()) {
                return bad(format!("{} is never produced (NAT-5)", opt.flag));
            }
            for m in self.modes.values() {
                if m.argv.contains(&opt.flag) {
                    return bad(format!(
                        "{} is both a mode argument and an option",
                        opt.flag
                    ));
                }
            }
            if let ValueRule::Choice {
                choices,
                native_choices,
            } = &opt.value
            {
                if let Some(native) = native_choices
                    && let Some(c) = choices.iter().find(|c| !native.contains(c))
                {
                    return bad(format!(
                        "{}: choice {c} is not among the native choices",
                        opt.name
                    ));
                }
                if opt.flag == "--permission-mode"
                    && let Some(c) = choices
                        .iter()
                        .find(|c| FORBIDDEN_PERMISSION_CHOICES.contains(&c.as_str()))
                {
                    return bad(format!("permission mode {c} is never offered (NAT-5)"));
                }
            }
            match (&opt.default, opt.always) {
                (Some(_), false) => {
                    return bad(format!(
                        "{}: a default is only meaningful with always: true",
                        opt.name
                    ));
                }
                (None, true) => return bad(format!("{}: always needs a default", opt.name)),
                (Some(d), true) => {
                    if let Err(e) = self.check_value(&opt.name, &OptionValue::Text(d.clone())) {
                        return bad(format!("{}: default {d:?} is invalid: {e}", opt.name));
                    }
                }
                (None, false) => {}
            }
            if opt.always && !opt.excludes.is_empty() {
                return bad(format!(
                    "{}: an always-passed option cannot exclude others",
                    opt.name
                ));
            }
        }
        for opt in &self.options {
            for ex in &opt.excludes {
                if ex == &opt.name {
                    return bad(format!("{} excludes itself", opt.name));
                }
                let Some(other) = self.option(ex) else {
                    return bad(format!("{} excludes unknown option {ex}", opt.name));
                };
                if !other.excludes.contains(&opt.name) {
                    return bad(format!(
                        "{} excludes {ex} but {ex} does not exclude {}",
                        opt.name, opt.name
                    ));
                }
            }
        }
        Ok(())
    }
}

fn check_schema(raw: &Value) -> Result<(), CliTreeError> {
    let schema: Value = serde_json::from_str(SCHEMA)?;
    let validator = jsonschema::validator_for(&schema)
        .map_err(|e| CliTreeError::Schema(vec![format!("the schema itself is invalid: {e}")]))?;
    let errors: Vec<String> = validator
        .iter_errors(raw)
        .take(8)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(CliTreeError::Schema(errors))
    }
}

fn is_set(v: Option<&OptionValue>) -> bool {
    !matches!(v, None | Some(OptionValue::Switch(false)))
}

fn rule_kind(rule: &ValueRule) -> &'static str {
    match rule {
        ValueRule::Choice { .. } | ValueRule::String { .. } => "a string",
        ValueRule::Number { .. } => "a number",
        ValueRule::Uuid => "a UUID string",
        ValueRule::Switch => "a boolean",
    }
}

/// True for the 36-character 8-4-4-4-12 spelling only (the form the native CLI documents).
#[must_use]
pub fn is_hyphenated_uuid(s: &str) -> bool {
    s.len() == 36
        && s.bytes().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
}

/// Shortest decimal spelling of a finite number, never in exponent form (the CLI parses it with
/// `Number()`, which accepts both, but a plain decimal reads unambiguously in logs).
fn format_number(n: f64) -> String {
    // Rust's Display for f64 is the shortest round-tripping decimal without an exponent.
    format!("{n}")
}

#[cfg(test)]
mod tests;
