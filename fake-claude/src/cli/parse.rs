//! claude's argv parser, step for step: options anywhere (before, between and after operands),
//! `--` ends options, `--flag=value` for options that take a value, combined short flags
//! (`-pc`, `-dhooks`), required values taken even when they start with `-`, optional values only
//! when the next word does not look like an option, variadic values until the next option-like
//! word. Value checks and `--version` act the moment their option is read (so
//! `--permission-mode yolo --version` fails, `--version --permission-mode yolo` prints the
//! version); help and unknown options are judged after the whole argv was read.

use super::flags::{Arity, Check};
use super::options::{self, HELP_FLAGS, OPTIONS};
use super::suggest::suggestion;
use super::values::{Verdict, check};
use crate::errors::{CliError, ErrorId};

/// A parsed option value, stored under the option's key (its long flag).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A switch, or an optional-value option given no value.
    Present,
    Str(String),
    List(Vec<String>),
}

/// The result of reading argv when nothing stopped it.
#[derive(Debug, Default)]
pub struct Parsed {
    /// Last value per key (lists accumulate), in first-seen order.
    pub values: Vec<(&'static str, Value)>,
    pub operands: Vec<String>,
}

impl Parsed {
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.values.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    }

    pub fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The value of a value-taking option, `None` when absent or given without a value.
    pub fn str(&self, key: &str) -> Option<&str> {
        match self.get(key) {
            Some(Value::Str(s)) => Some(s),
            _ => None,
        }
    }

    pub fn list(&self, key: &str) -> &[String] {
        match self.get(key) {
            Some(Value::List(l)) => l,
            _ => &[],
        }
    }

    fn set(&mut self, key: &'static str, value: Value) {
        match self.values.iter_mut().find(|(k, _)| *k == key) {
            Some((_, Value::List(old))) if matches!(value, Value::List(_)) => {
                if let Value::List(new) = value {
                    old.extend(new);
                }
            }
            Some((_, old)) => *old = value,
            None => self.values.push((key, value)),
        }
    }
}

/// How reading argv ended.
#[derive(Debug)]
pub enum Outcome {
    Parsed(Parsed),
    /// `-v`/`--version` was read: print the version line, exit 0.
    Version,
    /// `-h`/`--help` was among the unrecognised words: print help, exit 0.
    Help,
    Error(CliError),
}

/// Everything reading argv produced: warnings are printed in order before acting on the outcome.
#[derive(Debug)]
pub struct ParseResult {
    pub warnings: Vec<String>,
    pub outcome: Outcome,
}

/// What the real parser calls "looks like an option".
fn option_like(word: &str) -> bool {
    word.len() > 1 && word.starts_with('-')
}

/// Reads argv (without the program name). With `checks: false` (the early settings pass) value
/// checks, `--version` and errors are skipped and a missing value just ends the scan.
pub fn parse(args: &[String], checks: bool) -> ParseResult {
    let mut warnings = Vec::new();
    let outcome = run(args, checks, &mut warnings);
    ParseResult { warnings, outcome }
}

fn run(args: &[String], checks: bool, warnings: &mut Vec<String>) -> Outcome {
    let mut parsed = Parsed::default();
    let mut unknown: Vec<String> = Vec::new();
    let mut to_unknown = false;
    let mut h = 0;
    let mut pending: Option<String> = None;
    let next_is_value = |i: usize| i < args.len() && !option_like(&args[i]);

    while pending.is_some() || h < args.len() {
        let k = match pending.take() {
            Some(p) => p,
            None => {
                h += 1;
                args[h - 1].clone()
            }
        };
        if k == "--" {
            if to_unknown {
                unknown.push(k);
            }
            break;
        }
        if option_like(&k) {
            if let Some(spec) = options::find(&k) {
                let start = h;
                match spec.arity() {
                    Arity::Required | Arity::Variadic => {
                        if h == args.len() {
                            if !checks {
                                break;
                            }
                            return Outcome::Error(
                                CliError::new(ErrorId::MissingArgument).with("flags", spec.flags),
                            );
                        }
                        h += 1;
                    }
                    Arity::Optional if next_is_value(h) => h += 1,
                    Arity::Optional | Arity::Switch => {}
                }
                if spec.arity() == Arity::Variadic {
                    while next_is_value(h) {
                        h += 1;
                    }
                }
                if let Some(stop) = apply(spec, &args[start..h], checks, &mut parsed, warnings) {
                    return stop;
                }
                continue;
            }
            // `--flag=value`, or a known short flag glued to its value or to more short flags.
            let long = k.as_bytes()[1] == b'-';
            let cut = if long {
                k.find('=')
            } else {
                k.char_indices().nth(2).map(|(i, _)| i)
            };
            let glued = cut
                .filter(|&c| c > 0)
                .and_then(|c| options::find(&k[..c]).map(|s| (s, c)));
            if let Some((spec, c)) = glued {
                if spec.arity() != Arity::Switch {
                    let value = if long { &k[c + 1..] } else { &k[c..] };
                    let stop = apply(spec, &[value.to_owned()], checks, &mut parsed, warnings);
                    if let Some(stop) = stop {
                        return stop;
                    }
                    continue;
                }
                if !long {
                    if let Some(stop) = apply(spec, &[], checks, &mut parsed, warnings) {
                        return stop;
                    }
                    pending = Some(format!("-{}", &k[c..]));
                    continue;
                }
            }
            to_unknown = true;
        }
        if to_unknown {
            unknown.push(k)
        } else {
            parsed.operands.push(k)
        }
    }
    let rest = args[h..].iter().cloned();
    if to_unknown {
        unknown.extend(rest)
    } else {
        parsed.operands.extend(rest)
    }

    if checks {
        let help = [HELP_FLAGS.short(), HELP_FLAGS.long()];
        if unknown.iter().any(|u| help.contains(&Some(u.as_str()))) {
            return Outcome::Help;
        }
        if let Some(first) = unknown.first() {
            let mut candidates: Vec<&str> = OPTIONS
                .iter()
                .filter(|o| !o.hidden)
                .filter_map(|o| o.long())
                .collect();
            candidates.extend(HELP_FLAGS.long());
            let hint = if first.starts_with("--") {
                suggestion(first, &candidates)
            } else {
                String::new()
            };
            return Outcome::Error(
                CliError::new(ErrorId::UnknownOption)
                    .with("flag", first.clone())
                    .with("suggestion", hint),
            );
        }
    }
    Outcome::Parsed(parsed)
}

/// Stores an option's values after checking them; `Some` stops parsing (version or error).
fn apply(
    spec: &'static super::flags::OptSpec,
    values: &[String],
    checks: bool,
    parsed: &mut Parsed,
    warnings: &mut Vec<String>,
) -> Option<Outcome> {
    if checks && spec.check == Check::Version {
        return Some(Outcome::Version);
    }
    let key = spec.key();
    if spec.arity() == Arity::Variadic {
        parsed.set(key, Value::List(values.to_vec()));
        return None;
    }
    let value = values.first().map(String::as_str);
    if checks {
        match check(spec.check, value) {
            Verdict::Ok => {}
            Verdict::Warn(w) => warnings.push(w),
            Verdict::Invalid(reason) => {
                return Some(Outcome::Error(
                    CliError::new(ErrorId::InvalidArgument)
                        .with("flags", spec.flags)
                        .with("value", value.unwrap_or("undefined"))
                        .with("reason", reason),
                ));
            }
        }
    }
    parsed.set(
        key,
        value.map_or(Value::Present, |v| Value::Str(v.to_owned())),
    );
    None
}
