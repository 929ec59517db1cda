//! Value checks applied while parsing, one per [`Check`] kind, mirroring the real `argParser`s.
//! A failed check yields the reason the real CLI appends to
//! `error: option '<flags>' argument '<value>' is invalid.`

use super::flags::Check;
use super::jsnum::{js_trim, lenient, number};
use super::options::{EFFORT_LEVELS, PERMISSION_MODES_ACCEPTED, PERMISSION_MODES_SHOWN};

/// What a check decided about a value.
#[derive(Debug, PartialEq)]
pub enum Verdict {
    Ok,
    /// Accepted, with a warning line for stderr (only `--effort`).
    Warn(String),
    /// Rejected with this reason.
    Invalid(String),
}

fn allowed(choices: &[&str]) -> Verdict {
    Verdict::Invalid(format!("Allowed choices are {}.", choices.join(", ")))
}

/// Applies `check` to `value` (`None` for a switch or an optional option given no value).
pub fn check(check: Check, value: Option<&str>) -> Verdict {
    let Some(v) = value else {
        // The real parsers of value-less uses (`--prompt-suggestions` alone gets its preset
        // "true") never fail.
        return Verdict::Ok;
    };
    match check {
        Check::None | Check::Version => Verdict::Ok,
        Check::Choices(choices) => {
            if choices.contains(&v) {
                Verdict::Ok
            } else {
                allowed(choices)
            }
        }
        Check::PermissionMode => {
            if PERMISSION_MODES_ACCEPTED.contains(&v) {
                Verdict::Ok
            } else {
                allowed(PERMISSION_MODES_SHOWN)
            }
        }
        Check::Number => match lenient(v) {
            Some(_) => Verdict::Ok,
            None => Verdict::Invalid("must be a number".to_owned()),
        },
        Check::BudgetUsd => match number(v) {
            Some(n) if n > 0.0 => Verdict::Ok,
            _ => Verdict::Invalid("--max-budget-usd must be a number greater than 0".to_owned()),
        },
        Check::TaskBudget => match lenient(v) {
            Some(n) if n > 0.0 && n.is_finite() && n.fract() == 0.0 => Verdict::Ok,
            _ => Verdict::Invalid("--task-budget must be a positive integer".to_owned()),
        },
        Check::PromptSuggestions => {
            let t = js_trim(v).to_ascii_lowercase();
            if ["1", "true", "yes", "on", "0", "false", "no", "off"].contains(&t.as_str()) {
                Verdict::Ok
            } else {
                allowed(&["true", "false", "1", "0", "yes", "no", "on", "off"])
            }
        }
        Check::Autocompact => {
            if autocompact_ok(v) {
                Verdict::Ok
            } else {
                Verdict::Invalid(
                    "It must be 'auto', or at least 100k (e.g. 500k, 200000, or 200 as shorthand)"
                        .to_owned(),
                )
            }
        }
        Check::EffortWarning => {
            let t = js_trim(v).to_ascii_lowercase();
            if EFFORT_LEVELS.contains(&t.as_str()) {
                Verdict::Ok
            } else {
                Verdict::Warn(crate::errors::effort_warning(v))
            }
        }
    }
}

/// `auto`, or a token count of at least 100k: `500k`, `1.5m`, `200000`, or `200` (a bare number
/// under 1000 counts in thousands). Approximates the real reader, which was probed with these
/// values; it is not exposed to adapters, which never pass `--autocompact`.
fn autocompact_ok(v: &str) -> bool {
    let t = js_trim(v).to_ascii_lowercase();
    if t == "auto" {
        return true;
    }
    let (body, scale) = if let Some(b) = t.strip_suffix("kb").or_else(|| t.strip_suffix('k')) {
        (b, Some(1_000.0))
    } else if let Some(b) = t.strip_suffix("mb").or_else(|| t.strip_suffix('m')) {
        (b, Some(1_000_000.0))
    } else {
        (t.as_str(), None)
    };
    let Some(n) = number(body).filter(|_| !js_trim(body).is_empty()) else {
        return false;
    };
    let tokens = match scale {
        Some(s) => n * s,
        None if n < 1_000.0 => n * 1_000.0,
        None => n,
    };
    tokens >= 100_000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numeric_checks_follow_the_probed_cli() {
        assert_eq!(check(Check::Number, Some("")), Verdict::Ok);
        assert_eq!(check(Check::Number, Some("-5")), Verdict::Ok);
        assert!(matches!(
            check(Check::Number, Some("12abc")),
            Verdict::Invalid(_)
        ));
        assert!(matches!(
            check(Check::BudgetUsd, Some("0")),
            Verdict::Invalid(_)
        ));
        assert!(matches!(
            check(Check::BudgetUsd, Some(" ")),
            Verdict::Invalid(_)
        ));
        assert_eq!(check(Check::BudgetUsd, Some("1e-3")), Verdict::Ok);
        assert_eq!(check(Check::BudgetUsd, Some("Infinity")), Verdict::Ok);
        assert!(matches!(
            check(Check::TaskBudget, Some("1.5")),
            Verdict::Invalid(_)
        ));
    }

    #[test]
    fn autocompact_accepts_what_the_cli_accepted() {
        for ok in [
            "100k", "2000k", "5m", "1m", "200", "100", "1000000", "100000", "1e6", " 150K ",
        ] {
            assert!(autocompact_ok(ok), "{ok}");
        }
        for bad in ["99k", "99", "99999", "x"] {
            assert!(!autocompact_ok(bad), "{bad}");
        }
    }

    #[test]
    fn effort_is_case_insensitive_and_only_warns() {
        assert_eq!(check(Check::EffortWarning, Some("HIGH")), Verdict::Ok);
        assert!(matches!(
            check(Check::EffortWarning, Some("extreme")),
            Verdict::Warn(_)
        ));
    }
}
