//! Normalisation rules as data: what is volatile in a message (ids, timestamps, durations, temp
//! folders) and the stable token it is compared as. The built-in set is `rules/builtin.json`
//! (embedded); a user file (`--rules FILE`) adds rules of the same shape after it:
//!
//! ```json
//! {"rules": [
//!   {"id": "server-version", "pointer": "/result/serverInfo/version", "replace": "[VERSION]"},
//!   {"id": "trace-ids", "regex": "trace-[0-9a-f]{16}", "replace": "[TRACE#{n}]"},
//!   {"id": "no-elapsed", "key": ["elapsed", "took_ms"], "replace": 0},
//!   {"id": "no-debug", "pointer": "/result/_meta/debug", "remove": true}
//! ]}
//! ```
//!
//! - `pointer` (RFC 6901, relative to the message): the value there is replaced (or removed).
//! - `key`: every object member of that name (or names) at any depth, optionally only when its
//!   value (a string, or a number's text) wholly matches `value` (a regex).
//! - `regex`: every match inside every string; with a named group `v` only that group is
//!   replaced; `boundary: true` skips a match next to an ASCII letter or digit.
//! - `replace` is the token (default `"[..]"`); in a string token `{n}` is the number of the
//!   distinct value by first appearance on that side, so "the same id twice" stays visible.
//! - `builtin`: one of the structural rules named in the built-in file.
//!
//! Every rule has an `id`; a [`Normaliser`] counts how often each fired, for the report.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;

use regex::Regex;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::error::{Error, Result};

/// The built-in rules file, embedded.
pub const BUILTIN: &str = include_str!("../rules/builtin.json");

/// The built-in rules the reference adapter's own replay uses: exactly what it normalised
/// before the rules became data (its other volatile values are replayed verbatim).
pub const REFERENCE_ADAPTER: &[&str] = &[
    "json-text",
    "structured-content-copy",
    "start-state-active",
    "instance",
    "run-id",
    "cursor-nonce",
];

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RulesFile {
    #[serde(default)]
    #[expect(dead_code, reason = "documentation inside the file")]
    description: Option<String>,
    rules: Vec<RuleSpec>,
}

/// One rule as written in a rules file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleSpec {
    id: String,
    #[serde(default)]
    #[expect(dead_code, reason = "documentation inside the file")]
    description: Option<String>,
    #[serde(default)]
    pointer: Option<String>,
    #[serde(default)]
    key: Option<OneOrMany>,
    #[serde(default)]
    regex: Option<String>,
    #[serde(default)]
    builtin: Option<String>,
    #[serde(default)]
    value: Option<String>,
    #[serde(default)]
    boundary: bool,
    #[serde(default)]
    replace: Option<Value>,
    #[serde(default)]
    remove: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

/// A structural rule that is code, named by the built-in file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builtin {
    /// A string holding a JSON object is compared parsed.
    JsonText,
    /// A tool result's text content equal to its `structuredContent` becomes a marker.
    StructuredContentCopy,
    /// A `*.run.start` answer's state while starting up becomes `[active]`.
    StartStateActive,
}

#[derive(Debug, Clone)]
enum Kind {
    Pointer {
        pointer: String,
        replace: Option<Value>,
    },
    Key {
        keys: Vec<String>,
        value: Option<Regex>,
        replace: Value,
    },
    Regex {
        re: Regex,
        boundary: bool,
        replace: String,
    },
    Builtin(Builtin),
}

/// A compiled rule.
#[derive(Debug, Clone)]
pub struct Rule {
    /// Its id (reported when it fires).
    pub id: String,
    kind: Kind,
}

/// An ordered set of rules.
#[derive(Debug, Clone, Default)]
pub struct RuleSet {
    rules: Vec<Rule>,
}

impl RuleSet {
    /// Every built-in rule.
    pub fn builtin() -> Result<Self> {
        Self::parse(Path::new("<built-in>"), BUILTIN)
    }

    /// The built-in rules with these ids only (in the built-in order).
    pub fn builtin_only(ids: &[&str]) -> Result<Self> {
        let mut set = Self::builtin()?;
        set.rules.retain(|r| ids.contains(&r.id.as_str()));
        Ok(set)
    }

    /// No rules at all.
    #[must_use]
    pub fn none() -> Self {
        Self::default()
    }

    /// Parses a rules file's text.
    pub fn parse(path: &Path, text: &str) -> Result<Self> {
        let bad = |reason: String| Error::BadRules {
            path: path.to_path_buf(),
            reason,
        };
        let file: RulesFile = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
        let mut rules = Vec::new();
        for spec in file.rules {
            rules.push(compile(spec).map_err(bad)?);
        }
        Ok(Self { rules })
    }

    /// Reads a rules file.
    pub fn load(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io("read", path, e))?;
        Self::parse(path, &text)
    }

    /// This set followed by `more`.
    #[must_use]
    pub fn then(mut self, more: Self) -> Self {
        self.rules.extend(more.rules);
        self
    }

    /// The rules' ids, in order.
    #[must_use]
    pub fn ids(&self) -> Vec<&str> {
        self.rules.iter().map(|r| r.id.as_str()).collect()
    }

    fn has(&self, b: Builtin) -> bool {
        self.rules
            .iter()
            .any(|r| matches!(r.kind, Kind::Builtin(x) if x == b))
    }
}

fn compile(spec: RuleSpec) -> Result<Rule, String> {
    let id = spec.id.clone();
    let what = |e: &dyn std::fmt::Display| format!("rule {id:?}: {e}");
    let token = spec
        .replace
        .clone()
        .unwrap_or_else(|| Value::String("[..]".into()));
    let kinds = [
        spec.pointer.is_some(),
        spec.key.is_some(),
        spec.regex.is_some(),
        spec.builtin.is_some(),
    ];
    if kinds.iter().filter(|k| **k).count() != 1 {
        return Err(what(&"needs exactly one of pointer, key, regex, builtin"));
    }
    let kind = if let Some(pointer) = spec.pointer {
        if !pointer.is_empty() && !pointer.starts_with('/') {
            return Err(what(&"a JSON Pointer starts with /"));
        }
        Kind::Pointer {
            pointer,
            replace: (!spec.remove).then_some(token),
        }
    } else if let Some(key) = spec.key {
        let value = match spec.value {
            Some(v) => Some(Regex::new(&v).map_err(|e| what(&e))?),
            None => None,
        };
        Kind::Key {
            keys: match key {
                OneOrMany::One(k) => vec![k],
                OneOrMany::Many(k) => k,
            },
            value,
            replace: token,
        }
    } else if let Some(re) = spec.regex {
        let Value::String(replace) = token else {
            return Err(what(&"a regex rule's replace is a string"));
        };
        Kind::Regex {
            re: Regex::new(&re).map_err(|e| what(&e))?,
            boundary: spec.boundary,
            replace,
        }
    } else {
        Kind::Builtin(match spec.builtin.as_deref() {
            Some("json-text") => Builtin::JsonText,
            Some("structured-content-copy") => Builtin::StructuredContentCopy,
            Some("start-state-active") => Builtin::StartStateActive,
            other => return Err(what(&format!("unknown builtin {other:?}"))),
        })
    };
    Ok(Rule { id, kind })
}

/// Applies a [`RuleSet`] to one side of a replay, numbering distinct values by first appearance
/// and counting which rules fired.
#[derive(Debug, Clone)]
pub struct Normaliser {
    rules: Arc<RuleSet>,
    numbers: HashMap<String, HashMap<String, usize>>,
    per_section: bool,
    /// How many times each rule fired, by id.
    pub fired: BTreeMap<String, usize>,
}

impl Normaliser {
    /// A normaliser for one side, numbering values by first appearance on the whole side (so
    /// "the same run" stays visible from one message to the next).
    #[must_use]
    pub fn new(rules: Arc<RuleSet>) -> Self {
        Self {
            rules,
            numbers: HashMap::new(),
            per_section: false,
            fired: BTreeMap::new(),
        }
    }

    /// A normaliser numbering values afresh in each transcript section ([`Self::section`]): a
    /// missing or extra message then shifts no number in the sections after it, so a diff shows
    /// exactly the messages that changed (`mcp-replay run` and `serve`).
    #[must_use]
    pub fn per_section(rules: Arc<RuleSet>) -> Self {
        Self {
            per_section: true,
            ..Self::new(rules)
        }
    }

    /// A new transcript section starts: numbering restarts when [`Self::per_section`].
    pub fn section(&mut self) {
        if self.per_section {
            self.numbers.clear();
        }
    }

    fn fire(&mut self, id: &str) {
        *self.fired.entry(id.to_owned()).or_default() += 1;
    }

    fn number(&mut self, id: &str, value: &str) -> usize {
        let seen = self.numbers.entry(id.to_owned()).or_default();
        let n = seen.len() + 1;
        *seen.entry(value.to_owned()).or_insert(n)
    }

    /// The value numbered `n` by rule `id` on this side, if any (to map echoed values).
    #[must_use]
    pub fn numbered(&self) -> Vec<(String, String, usize)> {
        let mut out = Vec::new();
        for (id, seen) in &self.numbers {
            for (v, n) in seen {
                out.push((id.clone(), v.clone(), *n));
            }
        }
        out
    }

    /// A normalised copy of a whole message: pointer rules first, then every value inside.
    pub fn message(&mut self, msg: &Value) -> Value {
        let mut m = msg.clone();
        let rules = self.rules.clone();
        for rule in &rules.rules {
            if let Kind::Pointer { pointer, replace } = &rule.kind
                && apply_pointer(&mut m, pointer, replace.as_ref())
            {
                self.fire(&rule.id);
            }
        }
        self.value(&m)
    }

    /// A normalised copy of a response to `request` (the structural built-ins need both).
    pub fn response(&mut self, request: &Value, response: &Value) -> Value {
        let mut r = response.clone();
        if self.rules.has(Builtin::StructuredContentCopy) && readable(&mut r) {
            self.fire("structured-content-copy");
        }
        if self.rules.has(Builtin::StartStateActive)
            && starts_in_background(request)
            && active_state_token(&mut r)
        {
            self.fire("start-state-active");
        }
        self.message(&r)
    }

    /// A normalised copy of any value.
    pub fn value(&mut self, v: &Value) -> Value {
        match v {
            Value::String(s) => {
                if s.starts_with('{')
                    && self.rules.has(Builtin::JsonText)
                    && let Ok(inner @ Value::Object(_)) = serde_json::from_str::<Value>(s)
                {
                    self.fire("json-text");
                    let mut m = Map::new();
                    m.insert("[json text]".into(), self.value(&inner));
                    return Value::Object(m);
                }
                Value::String(self.text(s))
            }
            Value::Array(a) => Value::Array(a.iter().map(|x| self.value(x)).collect()),
            Value::Object(o) => {
                let mut m = Map::new();
                for (k, x) in o {
                    let nx = match self.key_rule(k, x) {
                        Some(token) => token,
                        None => self.value(x),
                    };
                    m.insert(k.clone(), nx);
                }
                Value::Object(m)
            }
            other => other.clone(),
        }
    }

    fn key_rule(&mut self, key: &str, x: &Value) -> Option<Value> {
        let rules = self.rules.clone();
        for rule in &rules.rules {
            let Kind::Key {
                keys,
                value,
                replace,
            } = &rule.kind
            else {
                continue;
            };
            if !keys.iter().any(|k| k == key) {
                continue;
            }
            let text = match x {
                Value::String(s) => s.clone(),
                Value::Number(n) => n.to_string(),
                _ if value.is_none() => x.to_string(),
                _ => continue,
            };
            if value.as_ref().is_some_and(|re| !whole_match(re, &text)) {
                continue;
            }
            self.fire(&rule.id);
            return Some(match replace {
                Value::String(t) if t.contains("{n}") => {
                    let n = self.number(&rule.id, &text);
                    Value::String(t.replace("{n}", &n.to_string()))
                }
                other => other.clone(),
            });
        }
        None
    }

    /// A normalised copy of a string: every regex rule in order.
    pub fn text(&mut self, s: &str) -> String {
        let rules = self.rules.clone();
        let mut out = s.to_owned();
        for rule in &rules.rules {
            if let Kind::Regex {
                re,
                boundary,
                replace,
            } = &rule.kind
            {
                out = self.regex(&rule.id, re, *boundary, replace, &out);
            }
        }
        out
    }

    fn regex(&mut self, id: &str, re: &Regex, boundary: bool, replace: &str, s: &str) -> String {
        let b = s.as_bytes();
        let mut out = String::with_capacity(s.len());
        let mut copied = 0;
        let mut at = 0;
        while at <= s.len() {
            let Some(caps) = re.captures_at(s, at) else {
                break;
            };
            let Some(whole) = caps.get(0) else { break };
            let alnum = |i: usize| b.get(i).is_some_and(u8::is_ascii_alphanumeric);
            let fenced = whole.start() == 0 || !alnum(whole.start() - 1);
            if boundary && (!fenced || alnum(whole.end())) || whole.is_empty() {
                at = next_char(s, whole.start());
                continue;
            }
            let part = caps.name("v").unwrap_or(whole);
            let token = if replace.contains("{n}") {
                let n = self.number(id, part.as_str());
                replace.replace("{n}", &n.to_string())
            } else {
                replace.to_owned()
            };
            self.fire(id);
            out.push_str(&s[copied..part.start()]);
            out.push_str(&token);
            copied = part.end();
            at = whole.end();
        }
        out.push_str(&s[copied..]);
        out
    }
}

fn next_char(s: &str, i: usize) -> usize {
    i + s[i..].chars().next().map_or(1, char::len_utf8)
}

fn whole_match(re: &Regex, text: &str) -> bool {
    re.find(text)
        .is_some_and(|m| m.start() == 0 && m.end() == text.len())
}

/// Replaces (or removes, `replace: None`) the value at `pointer`; whether it was there.
fn apply_pointer(msg: &mut Value, pointer: &str, replace: Option<&Value>) -> bool {
    match replace {
        Some(token) => match msg.pointer_mut(pointer) {
            Some(slot) => {
                *slot = token.clone();
                true
            }
            None => false,
        },
        None => {
            let Some((parent, last)) = pointer.rsplit_once('/') else {
                return false;
            };
            let last = last.replace("~1", "/").replace("~0", "~");
            match msg.pointer_mut(parent) {
                Some(Value::Object(o)) => o.remove(&last).is_some(),
                Some(Value::Array(a)) => match last.parse::<usize>() {
                    Ok(i) if i < a.len() => {
                        a.remove(i);
                        true
                    }
                    _ => false,
                },
                _ => false,
            }
        }
    }
}

/// `*.run.start` (RUN-2): answered at once, while the run is somewhere in its start-up.
fn starts_in_background(request: &Value) -> bool {
    request["method"] == "tools/call"
        && matches!(
            request.pointer("/params/name").and_then(Value::as_str),
            Some("claude.run.start" | "claude_run_start" | "cursor.run.start" | "cursor_run_start")
        )
}

/// The state a run had when `*.run.start` answered depends on the clock (RUN-10): `[active]`.
/// A settled state there stays as it is (it would be a finding).
fn active_state_token(response: &mut Value) -> bool {
    if let Some(state) = response.pointer_mut("/result/structuredContent/result/state")
        && matches!(state.as_str(), Some("pending" | "starting" | "running"))
    {
        *state = Value::String("[active]".into());
        return true;
    }
    false
}

/// A tool result whose text content repeats `structuredContent` (TOOL-4) shows a marker instead
/// of the escaped copy, and another one when it repeats it with a run's `final` reduced to its
/// scalar members (TOOL-4's text form); a JSON object text that differs is shown parsed. Whether
/// it changed.
fn readable(msg: &mut Value) -> bool {
    let Some(result) = msg.get_mut("result").and_then(Value::as_object_mut) else {
        return false;
    };
    let structured = result.get("structuredContent").cloned();
    let mut changed = false;
    if let Some(Value::Array(content)) = result.get_mut("content") {
        for item in content.iter_mut() {
            let Some(text) = item.get("text").and_then(Value::as_str) else {
                continue;
            };
            let Ok(parsed) = serde_json::from_str::<Value>(text) else {
                continue;
            };
            if !parsed.is_object() {
                continue;
            }
            changed = true;
            item["text"] = if Some(&parsed) == structured.as_ref() {
                Value::String("[= structuredContent]".into())
            } else if structured.as_ref().map(final_scalars_only).as_ref() == Some(&parsed) {
                Value::String("[= structuredContent, final's scalars only]".into())
            } else {
                parsed
            };
        }
    }
    changed
}

/// `structured` with `result.final`, when it is an object, reduced to its scalar members.
fn final_scalars_only(structured: &Value) -> Value {
    let mut view = structured.clone();
    if let Some(Value::Object(fin)) = view.get_mut("result").and_then(|r| r.get_mut("final")) {
        fin.retain(|_, v| !v.is_object() && !v.is_array());
    }
    view
}

#[cfg(test)]
#[path = "rules_tests.rs"]
mod tests;
