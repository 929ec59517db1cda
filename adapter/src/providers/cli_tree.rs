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
pub const CURSOR_EMBEDDED: &str = include_str!("../../../cursor-cli-tree.json");

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

/// The version assertion (NAT-2).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VersionSpec {
    /// Arguments that print the version.
    pub argv: Vec<String>,
    /// The pinned first line of that output.
    pub line: String,
}

/// A mode's fixed argv.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModeSpec {
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
    pub fn mode_argv(&self, mode: Mode) -> &[String] {
        self.modes
            .get(mode.key())
            .map_or(&[], |m| m.argv.as_slice())
    }

    /// Whether the tree declares `mode`.
    #[must_use]
    pub fn has_mode(&self, mode: Mode) -> bool {
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
    pub fn option_schema(&self, name: &str) -> Option<Value> {
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
                "format": "uuid",
                "pattern": "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
            }),
            ValueRule::Switch => json!({"type": "boolean"}),
        })
    }

    /// Checks one supplied value against its option's rule.
    pub fn check_value(&self, name: &str, value: &OptionValue) -> Result<(), ArgError> {
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
mod tests {
    use super::*;

    fn embedded() -> CliTree {
        CliTree::embedded().expect("the embedded tree is valid")
    }

    type Edit = Box<dyn FnOnce(&mut Value)>;

    fn with_edit(edit: impl FnOnce(&mut Value)) -> Result<CliTree, CliTreeError> {
        let mut raw: Value = serde_json::from_str(EMBEDDED).expect("json");
        edit(&mut raw);
        CliTree::parse(&raw.to_string())
    }

    fn os(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    #[test]
    fn embedded_tree_follows_its_schema_and_semantics() {
        let t = embedded();
        assert_eq!(t.version.line, "2.1.328 (Claude Code)");
        assert_eq!(t.version.argv, vec!["--version"]);
        assert_eq!(t.prompt_separator.as_deref(), Some("--"));
    }

    #[test]
    fn embedded_trees_follow_the_schema() {
        // Start-up skips the schema pass for the embedded trees; this is where it is proved.
        for (name, text) in [
            ("cli-tree.json", EMBEDDED),
            ("cursor-cli-tree.json", CURSOR_EMBEDDED),
        ] {
            let raw: Value = serde_json::from_str(text).expect("json");
            check_schema(&raw).unwrap_or_else(|e| panic!("{name}: {e}"));
            let full = CliTree::parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
            let fast = CliTree::parse_checked(text, false).expect("semantics");
            assert_eq!(full.raw, fast.raw, "{name}");
        }
    }

    #[test]
    fn schema_is_a_valid_draft_2020_12_schema() {
        let schema: Value = serde_json::from_str(SCHEMA).expect("json");
        assert_eq!(
            schema["$schema"],
            "https://json-schema.org/draft/2020-12/schema"
        );
        jsonschema::meta::validate(&schema).expect("valid against the meta-schema");
    }

    #[test]
    fn default_stream_argv_matches_the_real_capture() {
        // reference/claude-2.1.328/streams/mock-stream.cmd (NAT-3, NAT-5, NAT-7).
        let argv = embedded()
            .argv(Mode::Stream, &BTreeMap::new(), "say hi")
            .expect("argv");
        assert_eq!(
            argv,
            os(&[
                "-p",
                "--output-format",
                "stream-json",
                "--verbose",
                "--include-partial-messages",
                "--permission-mode",
                "dontAsk",
                "--",
                "say hi"
            ])
        );
        // reference/claude-2.1.328/streams/run-json.cmd (CLI-1).
        let argv = embedded()
            .argv(Mode::Json, &BTreeMap::new(), "say hi")
            .expect("argv");
        assert_eq!(
            argv,
            os(&[
                "-p",
                "--output-format",
                "json",
                "--permission-mode",
                "dontAsk",
                "--",
                "say hi"
            ])
        );
    }

    #[test]
    fn a_prompt_that_looks_like_a_flag_stays_after_the_separator() {
        // NAT-7.
        let argv = embedded()
            .argv(
                Mode::Stream,
                &BTreeMap::new(),
                "--dangerously-skip-permissions",
            )
            .expect("argv");
        let n = argv.len();
        assert_eq!(argv[n - 2], "--");
        assert_eq!(argv[n - 1], "--dangerously-skip-permissions");
    }

    /// A sample value per rule, read from the raw document (independently of the typed loader).
    fn sample(value_rule: &Value) -> (OptionValue, Vec<String>) {
        match value_rule["kind"].as_str().expect("kind") {
            "choice" => {
                let c = value_rule["choices"]
                    .as_array()
                    .expect("choices")
                    .last()
                    .and_then(Value::as_str)
                    .expect("a choice")
                    .to_owned();
                (OptionValue::Text(c.clone()), vec![c])
            }
            "string" => (OptionValue::Text("-x y".into()), vec!["-x y".into()]),
            "number" => (OptionValue::Number(0.25), vec!["0.25".into()]),
            "uuid" => {
                let u = "11111111-2222-4333-8444-555555555555".to_owned();
                (OptionValue::Text(u.clone()), vec![u])
            }
            "switch" => (OptionValue::Switch(true), vec![]),
            k => panic!("unknown kind {k}"),
        }
    }

    #[test]
    fn argv_for_every_option_combination_is_exactly_what_the_tree_says() {
        // NAT-1, NAT-4..7: mode argv, supplied options in declared order (always-options with
        // their default when absent), `--`, prompt; NAT-6 exclusions refused on the later option.
        let t = embedded();
        let raw: Value = serde_json::from_str(EMBEDDED).expect("json");
        let opts = raw["options"].as_array().expect("options");
        assert!(
            opts.len() < 16,
            "the combination test enumerates 2^n subsets"
        );
        let mut checked_ok = 0;
        let mut checked_err = 0;
        for mode in [Mode::Stream, Mode::Json] {
            let mode_key = if mode == Mode::Stream {
                "stream"
            } else {
                "json"
            };
            for mask in 0u32..(1 << opts.len()) {
                let mut values = BTreeMap::new();
                let mut expected: Vec<String> = raw["modes"][mode_key]["argv"]
                    .as_array()
                    .expect("argv")
                    .iter()
                    .map(|v| v.as_str().expect("str").to_owned())
                    .collect();
                let mut chosen: Vec<&str> = Vec::new();
                let mut conflict: Option<String> = None;
                for (i, o) in opts.iter().enumerate() {
                    let name = o["name"].as_str().expect("name");
                    let flag = o["flag"].as_str().expect("flag");
                    if mask & (1 << i) != 0 {
                        let (v, rest) = sample(&o["value"]);
                        values.insert(name.to_owned(), v);
                        let excludes: Vec<&str> = o["excludes"]
                            .as_array()
                            .map(|a| a.iter().filter_map(Value::as_str).collect())
                            .unwrap_or_default();
                        if conflict.is_none() && chosen.iter().any(|c| excludes.contains(c)) {
                            conflict = Some(name.to_owned());
                        }
                        chosen.push(name);
                        expected.push(flag.to_owned());
                        expected.extend(rest);
                    } else if o["always"] == true {
                        expected.push(flag.to_owned());
                        expected.push(o["default"].as_str().expect("default").to_owned());
                    }
                }
                expected.push("--".into());
                expected.push("the prompt".into());
                let got = t.argv(mode, &values, "the prompt");
                match conflict {
                    None => {
                        let want: Vec<OsString> = expected.iter().map(OsString::from).collect();
                        assert_eq!(got, Ok(want), "mask {mask:#b}");
                        checked_ok += 1;
                    }
                    Some(name) => {
                        let err = got.expect_err("an excluded combination is refused");
                        assert_eq!(err.name, name, "mask {mask:#b}");
                        checked_err += 1;
                    }
                }
            }
        }
        assert!(checked_ok > 50 && checked_err > 50);
    }

    #[test]
    fn every_declared_choice_is_passed_verbatim_and_others_are_refused() {
        let t = embedded();
        for opt in &t.options {
            if let ValueRule::Choice { choices, .. } = &opt.value {
                for c in choices {
                    let values = BTreeMap::from([(opt.name.clone(), OptionValue::Text(c.clone()))]);
                    let argv = t.argv(Mode::Stream, &values, "p").expect("argv");
                    let pos = argv
                        .iter()
                        .position(|a| a == opt.flag.as_str())
                        .expect("flag");
                    assert_eq!(argv[pos + 1], c.as_str());
                }
                let values =
                    BTreeMap::from([(opt.name.clone(), OptionValue::Text("bogus".into()))]);
                let err = t.argv(Mode::Stream, &values, "p").expect_err("refused");
                assert_eq!(err.pointer(), format!("/{}", opt.name));
            }
        }
    }

    #[test]
    fn bypass_and_undeclared_permission_modes_are_refused() {
        // NAT-5.
        let t = embedded();
        for mode in ["bypassPermissions", "auto", "manual", "default"] {
            let values =
                BTreeMap::from([("permission_mode".to_owned(), OptionValue::Text(mode.into()))]);
            let err = t.argv(Mode::Stream, &values, "p").expect_err("refused");
            assert_eq!(err.pointer(), "/permission_mode");
        }
    }

    #[test]
    fn value_rules_are_enforced() {
        let t = embedded();
        let check = |n: &str, v: OptionValue| t.check_value(n, &v);
        assert!(check("session_id", OptionValue::Text("not-a-uuid".into())).is_err());
        assert!(
            check(
                "session_id",
                OptionValue::Text("11111111222243338444555555555555".into())
            )
            .is_err(),
            "the simple form is not the documented one"
        );
        assert!(check("max_budget_usd", OptionValue::Number(0.0)).is_err());
        assert!(check("max_budget_usd", OptionValue::Number(-1.0)).is_err());
        assert!(check("max_budget_usd", OptionValue::Number(f64::NAN)).is_err());
        assert!(check("max_budget_usd", OptionValue::Number(0.01)).is_ok());
        assert!(check("model", OptionValue::Text("m".repeat(256))).is_ok());
        assert!(check("model", OptionValue::Text("m".repeat(257))).is_err());
        // 86 three-byte characters are 258 bytes: the bound is in bytes.
        assert!(check("model", OptionValue::Text("€".repeat(86))).is_err());
        assert!(check("model", OptionValue::Text("a\0b".into())).is_err());
        assert!(check("model", OptionValue::Number(1.0)).is_err());
        assert!(check("continue_previous", OptionValue::Text("yes".into())).is_err());
        assert!(check("undeclared", OptionValue::Switch(true)).is_err());
    }

    #[test]
    fn a_false_switch_is_not_passed_and_excludes_nothing() {
        let t = embedded();
        let values = BTreeMap::from([
            ("continue_previous".to_owned(), OptionValue::Switch(false)),
            (
                "resume_session_id".to_owned(),
                OptionValue::Text("11111111-2222-4333-8444-555555555555".into()),
            ),
        ]);
        let argv = t.argv(Mode::Stream, &values, "p").expect("argv");
        assert!(!argv.iter().any(|a| a == "--continue"));
        assert!(argv.iter().any(|a| a == "--resume"));
    }

    #[test]
    fn empty_and_nul_prompts_are_refused() {
        let t = embedded();
        assert_eq!(
            t.argv(Mode::Stream, &BTreeMap::new(), "")
                .expect_err("empty")
                .pointer(),
            "/prompt"
        );
        assert!(t.argv(Mode::Stream, &BTreeMap::new(), "a\0").is_err());
    }

    #[test]
    fn documents_that_break_the_schema_are_refused() {
        let cases: Vec<(&str, Edit)> = vec![
            (
                "unknown top-level field",
                Box::new(|v| v["extra"] = json!(1)),
            ),
            (
                "empty choices",
                Box::new(|v| v["options"][0]["value"]["choices"] = json!([])),
            ),
            (
                "bad flag",
                Box::new(|v| v["options"][1]["flag"] = json!("model")),
            ),
            (
                "unknown kind",
                Box::new(|v| v["options"][1]["value"] = json!({"kind": "path"})),
            ),
            (
                "separator",
                Box::new(|v| v["prompt_separator"] = json!("---")),
            ),
            (
                "format version",
                Box::new(|v| v["format_version"] = json!(2)),
            ),
            (
                "empty mode argv",
                Box::new(|v| v["modes"]["stream"]["argv"] = json!([])),
            ),
            (
                "missing version line",
                Box::new(|v| {
                    v["version"].as_object_mut().expect("obj").remove("line");
                }),
            ),
        ];
        for (what, edit) in cases {
            match with_edit(edit) {
                Err(CliTreeError::Schema(_)) => {}
                other => panic!("{what}: expected a schema error, got {other:?}"),
            }
        }
    }

    #[test]
    fn documents_that_contradict_themselves_are_refused() {
        let cases: Vec<(&str, Edit)> = vec![
            (
                "duplicate name",
                Box::new(|v| v["options"][2]["name"] = json!("model")),
            ),
            (
                "duplicate flag",
                Box::new(|v| v["options"][2]["flag"] = json!("--model")),
            ),
            (
                "default not a choice",
                Box::new(|v| v["options"][0]["default"] = json!("yolo")),
            ),
            (
                "choice not native",
                Box::new(|v| {
                    v["options"][0]["value"]["choices"] = json!(["dontAsk", "plan", "yolo"]);
                }),
            ),
            (
                "bypass offered",
                Box::new(|v| {
                    v["options"][0]["value"]["choices"] = json!(["dontAsk", "bypassPermissions"]);
                }),
            ),
            (
                "forbidden flag",
                Box::new(|v| {
                    v["options"][1]["flag"] = json!("--dangerously-skip-permissions");
                }),
            ),
            (
                "asymmetric excludes",
                Box::new(|v| v["options"][7]["excludes"] = json!([])),
            ),
            (
                "unknown exclude",
                Box::new(|v| v["options"][5]["excludes"] = json!(["nope"])),
            ),
            (
                "default without always",
                Box::new(|v| v["options"][1]["default"] = json!("x")),
            ),
        ];
        for (what, edit) in cases {
            match with_edit(edit) {
                Err(CliTreeError::Semantic(_)) => {}
                other => panic!("{what}: expected a semantic error, got {other:?}"),
            }
        }
    }

    #[test]
    fn load_reports_the_path_of_a_missing_file() {
        let err = CliTree::load(Path::new("/nonexistent/cli-tree.json")).expect_err("missing");
        assert!(err.to_string().contains("/nonexistent/cli-tree.json"));
    }

    #[test]
    fn option_schemas_follow_the_value_rules() {
        let t = embedded();
        assert_eq!(
            t.option_schema("permission_mode"),
            Some(json!({"type": "string", "enum": ["dontAsk", "plan", "acceptEdits"]}))
        );
        assert_eq!(
            t.option_schema("continue_previous"),
            Some(json!({"type": "boolean"}))
        );
        assert_eq!(
            t.option_schema("max_budget_usd"),
            Some(json!({"type": "number", "exclusiveMinimum": 0.0}))
        );
        assert!(t.option_schema("nope").is_none());
    }
}
