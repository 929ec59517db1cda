//! One option's flags string (`"-d, --debug [filter]"`) read the way claude's own option class
//! reads it: which flag is short, which long, how many values the option takes and how its value
//! is checked.

/// How many argv words an option consumes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arity {
    /// `--verbose`: no value.
    Switch,
    /// `--model <model>`: the next word, whatever it looks like.
    Required,
    /// `--resume [value]`: the next word unless it looks like an option.
    Optional,
    /// `--add-dir <directories...>`: one required word, then every following non-option word.
    Variadic,
}

/// How a value is checked while parsing (the real parser's `argParser`/`choices`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// Anything goes.
    None,
    /// Exact membership; error `Allowed choices are a, b.`.
    Choices(&'static [&'static str]),
    /// JS `Number()` (with thousands separators) must not be NaN; error `must be a number`.
    Number,
    /// `Number(v) > 0`; error `--max-budget-usd must be a number greater than 0`.
    BudgetUsd,
    /// A positive integer; error `--task-budget must be a positive integer`.
    TaskBudget,
    /// The six shown modes plus `default`; the error lists the shown ones.
    PermissionMode,
    /// Truthy/falsy words, case-insensitive.
    PromptSuggestions,
    /// `auto` or at least 100k tokens.
    Autocompact,
    /// Unknown levels only warn on stderr and the run goes on.
    EffortWarning,
    /// Prints the version line and exits 0 the moment it is parsed.
    Version,
}

/// A declared option: its flags string (quoted verbatim in error messages), whether `--help`
/// hides it, and its value check.
#[derive(Clone, Copy, Debug)]
pub struct OptSpec {
    pub flags: &'static str,
    pub hidden: bool,
    pub check: Check,
}

impl OptSpec {
    pub const fn new(flags: &'static str, hidden: bool, check: Check) -> Self {
        Self {
            flags,
            hidden,
            check,
        }
    }

    /// `(short, long)`, following the real constructor: scanning from the end, each separator
    /// (` `, `,`, `|`) moves the cut; the first term is short when a second flag follows it.
    fn split(&self) -> (Option<&'static str>, Option<&'static str>) {
        let e = self.flags;
        let bytes = e.as_bytes();
        let (mut n, mut i, mut o) = (e.len(), None::<usize>, e.len());
        for s in (0..bytes.len()).rev() {
            if matches!(bytes[s], b' ' | b',' | b'|') {
                if s + 1 < n {
                    i = Some(s + 1);
                    o = n;
                }
                n = s;
            }
        }
        let first = &e[..n];
        match i {
            Some(i) if !matches!(bytes[i], b'<' | b'[') => (Some(first), Some(&e[i..o])),
            _ if n == 2 && first.starts_with('-') && first != "--" => (Some(first), None),
            _ => (None, Some(first)),
        }
    }

    /// The short slot (`-p`, but also `--allowedTools` or `--bg` for two-long-flag options).
    pub fn short(&self) -> Option<&'static str> {
        self.split().0
    }

    /// The long flag (`--print`); unknown-option suggestions are drawn from these.
    pub fn long(&self) -> Option<&'static str> {
        self.split().1
    }

    /// The canonical key under which parsed values are stored: the long flag, else the short.
    pub fn key(&self) -> &'static str {
        self.long().or(self.short()).unwrap_or(self.flags)
    }

    pub fn arity(&self) -> Arity {
        let f = self.flags;
        let variadic = (f.ends_with("...>") || f.ends_with("...]"))
            && f.len() >= 5
            && f.as_bytes()[f.len() - 5].is_ascii_alphanumeric();
        if variadic {
            Arity::Variadic
        } else if f.contains('<') {
            Arity::Required
        } else if f.contains('[') {
            Arity::Optional
        } else {
            Arity::Switch
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(flags: &'static str) -> OptSpec {
        OptSpec::new(flags, false, Check::None)
    }

    #[test]
    fn short_and_long_follow_the_real_constructor() {
        assert_eq!(
            spec("-d, --debug [filter]").split(),
            (Some("-d"), Some("--debug"))
        );
        assert_eq!(
            spec("--allowedTools, --allowed-tools <tools...>").split(),
            (Some("--allowedTools"), Some("--allowed-tools"))
        );
        assert_eq!(
            spec("--bg, --background").split(),
            (Some("--bg"), Some("--background"))
        );
        assert_eq!(
            spec("-d2e, --debug-to-stderr").split(),
            (Some("-d2e"), Some("--debug-to-stderr"))
        );
        assert_eq!(
            spec("--cloud [description|session_id|url]").split(),
            (None, Some("--cloud"))
        );
        assert_eq!(spec("--verbose").split(), (None, Some("--verbose")));
    }

    #[test]
    fn arity_comes_from_the_brackets() {
        assert_eq!(spec("--verbose").arity(), Arity::Switch);
        assert_eq!(spec("--model <model>").arity(), Arity::Required);
        assert_eq!(spec("-r, --resume [value]").arity(), Arity::Optional);
        assert_eq!(spec("--add-dir <directories...>").arity(), Arity::Variadic);
        assert_eq!(spec("--autocompact <auto|tokens>").arity(), Arity::Required);
    }
}
