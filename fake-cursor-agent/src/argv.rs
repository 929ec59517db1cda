//! argv as `cursor-agent` reads it before its `acp` subcommand (ACP-9): global options first,
//! then the mode word. Options the spike showed to be accepted and ignored in ACP mode
//! (`--mode`, `--allowed-tools`) are accepted and ignored here too; an unknown option is refused
//! with a commander-style error on stderr and exit 1, as the real CLI (a commander.js program)
//! refuses it.

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum Command {
    /// `--version` / `-v`: print the pinned version line.
    Version,
    /// `[options] acp`: speak ACP on stdio.
    Acp(Options),
    /// A command line the real CLI accepts but the fake does not implement (interactive mode,
    /// print mode, other subcommands): the fake's own error, exit 2.
    Unimplemented(String),
}

/// The global options that matter to the ACP session.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// `--model M`: reported as the session's current model.
    pub model: Option<String>,
    /// `--api-key K` was given (counts as credentials for the `auth: "env"` rule).
    pub api_key: bool,
}

/// An argv the real CLI refuses: the text it prints on stderr (exit 1).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ArgvError {
    /// An option the CLI does not know.
    #[error("error: unknown option '{0}'")]
    UnknownOption(String),
    /// A value option at the end of argv.
    #[error("error: option '{0}' argument missing")]
    MissingValue(String),
    /// A word after `acp` (the subcommand takes no arguments).
    #[error("error: too many arguments for 'acp'. Expected 0 arguments but got {0}.")]
    AcpArguments(usize),
}

/// Options taking a value, with whether the value is kept.
const VALUE_OPTIONS: &[&str] = &["--model", "--mode", "--allowed-tools", "--api-key"];
/// Switches accepted before `acp`.
const SWITCHES: &[&str] = &["--trust", "--force", "-f"];

/// Reads argv (without the program name).
pub fn parse(args: &[String]) -> Result<Command, ArgvError> {
    let mut opts = Options::default();
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        i += 1;
        if arg == "--version" || arg == "-v" {
            return Ok(Command::Version);
        }
        if arg == "acp" {
            let rest = &args[i..];
            if let Some(opt) = rest.iter().find(|a| a.starts_with('-')) {
                return Err(ArgvError::UnknownOption(opt_name(opt)));
            }
            if !rest.is_empty() {
                return Err(ArgvError::AcpArguments(rest.len()));
            }
            return Ok(Command::Acp(opts));
        }
        if SWITCHES.contains(&arg) {
            continue;
        }
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_owned())),
            _ => (arg, None),
        };
        if VALUE_OPTIONS.contains(&name) {
            let value = match inline {
                Some(v) => v,
                None => {
                    let Some(v) = args.get(i) else {
                        return Err(ArgvError::MissingValue(name.to_owned()));
                    };
                    i += 1;
                    v.clone()
                }
            };
            match name {
                "--model" => opts.model = Some(value),
                "--api-key" => opts.api_key = !value.is_empty(),
                // --mode and --allowed-tools: accepted and ignored in ACP mode (spike, item 1).
                _ => {}
            }
            continue;
        }
        if arg.starts_with('-') {
            return Err(ArgvError::UnknownOption(opt_name(arg)));
        }
        return Ok(Command::Unimplemented(format!(
            "only `acp` and `--version` are implemented, not {arg:?}"
        )));
    }
    Ok(Command::Unimplemented(
        "only `acp` and `--version` are implemented (no mode word given)".to_owned(),
    ))
}

fn opt_name(arg: &str) -> String {
    arg.split_once('=').map_or(arg, |(n, _)| n).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn global_flags_go_before_acp_and_mode_is_ignored() {
        let cmd = parse(&args(&[
            "--model", "m1", "--mode", "plan", "--trust", "acp",
        ]));
        assert_eq!(
            cmd,
            Ok(Command::Acp(Options {
                model: Some("m1".into()),
                api_key: false
            }))
        );
    }

    #[test]
    fn options_after_acp_are_refused() {
        assert_eq!(
            parse(&args(&["acp", "--cwd", "/x"])),
            Err(ArgvError::UnknownOption("--cwd".into()))
        );
        assert_eq!(
            parse(&args(&["--bogus", "acp"])),
            Err(ArgvError::UnknownOption("--bogus".into()))
        );
    }
}
