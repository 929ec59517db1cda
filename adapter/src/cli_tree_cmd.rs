//! `cli-tree check` and `cli-tree refresh`: their flags derive from the provider registration
//! table ([`PROVIDERS`]), like the server's. Each provider gets `--NAME PATH` (the installed CLI)
//! and, for `check`, its tree flag (`--cli-tree`, `--cursor-cli-tree`: a tree file to compare
//! with instead of the pinned one). `check` always checks the default provider (the first
//! registered, its CLI looked up on PATH unless named) and every other provider whose CLI is
//! named; `refresh` pins the CLIs named, at least one.

use std::path::PathBuf;

use clap::{Arg, ArgGroup, ArgMatches, Command};

use cmk_native::cli_tree::CliTree;
use cmk_native::registration::Registration;
use cmk_native::{drift, refresh};

use crate::providers::PROVIDERS;

/// The group of the CLI flags `refresh` requires one of.
const CLI_GROUP: &str = "cli";

/// The registration that is checked without being named: the default provider.
fn is_default(r: &Registration) -> bool {
    PROVIDERS.first().is_some_and(|d| d.name == r.name)
}

/// `cli-tree check` arguments.
#[derive(Debug, Clone, Default)]
pub struct CheckArgs {
    /// Each provider to check, with its program and the tree file its flag named.
    chosen: Vec<(&'static Registration, PathBuf, Option<PathBuf>)>,
}

impl CheckArgs {
    /// The drift check's targets, in registration order.
    #[must_use]
    pub fn targets(&self) -> Vec<drift::Target> {
        self.chosen
            .iter()
            .map(|(r, program, tree)| drift::Target {
                program: program.clone(),
                flag: format!("--{}", r.name),
                tree: tree.as_deref().map_or_else(r.pinned, CliTree::load),
                tree_source: tree.as_ref().map_or_else(
                    || format!("the embedded {}", r.tree_file),
                    |p| p.display().to_string(),
                ),
                tree_file: r.tree_file,
            })
            .collect()
    }
}

impl clap::FromArgMatches for CheckArgs {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let chosen = PROVIDERS
            .iter()
            .filter_map(|r| {
                let program = m.get_one::<PathBuf>(r.name).cloned();
                let program = match program {
                    Some(p) => p,
                    None if is_default(r) => PathBuf::from(r.default_binary),
                    None => return None,
                };
                Some((r, program, m.get_one::<PathBuf>(r.tree_flag).cloned()))
            })
            .collect();
        Ok(Self { chosen })
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl clap::Args for CheckArgs {
    fn augment_args(cmd: Command) -> Command {
        PROVIDERS.iter().fold(cmd, |cmd, r| {
            let program = Arg::new(r.name)
                .long(r.name)
                .value_name("PATH")
                .value_parser(clap::value_parser!(PathBuf));
            let (program, tree) = if is_default(r) {
                (
                    program.help(format!(
                        "The {} to inspect (a path, or a name looked up on PATH; default {})",
                        r.native, r.default_binary
                    )),
                    Arg::new(r.tree_flag),
                )
            } else {
                (
                    program.help(format!(
                        "Also check this {} against {} ({})",
                        r.native, r.tree_file, r.tree_rule
                    )),
                    Arg::new(r.tree_flag).requires(r.name),
                )
            };
            cmd.arg(program).arg(
                tree.long(r.tree_flag)
                    .value_name("PATH")
                    .value_parser(clap::value_parser!(PathBuf))
                    .help(format!(
                        "The {} to check (default: the one embedded at build time)",
                        r.tree_file
                    )),
            )
        })
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

/// `cli-tree refresh` arguments.
#[derive(Debug, Clone, Default)]
pub struct RefreshArgs {
    /// Each provider whose CLI was named, with the program.
    chosen: Vec<(&'static Registration, PathBuf)>,
}

impl RefreshArgs {
    /// The refresh's targets, in registration order.
    #[must_use]
    pub fn targets(&self) -> Vec<refresh::Target> {
        self.chosen
            .iter()
            .map(|(r, program)| refresh::Target {
                program: program.clone(),
                flag: format!("--{}", r.name),
                tree_flag: format!("--{}", r.tree_flag),
                pinned: (r.pinned)(),
                file: r.tree_file,
            })
            .collect()
    }
}

impl clap::FromArgMatches for RefreshArgs {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let chosen = PROVIDERS
            .iter()
            .filter_map(|r| Some((r, m.get_one::<PathBuf>(r.name).cloned()?)))
            .collect();
        Ok(Self { chosen })
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl clap::Args for RefreshArgs {
    fn augment_args(cmd: Command) -> Command {
        let names: Vec<&str> = PROVIDERS.iter().map(|r| r.name).collect();
        PROVIDERS
            .iter()
            .fold(cmd, |cmd, r| {
                cmd.arg(
                    Arg::new(r.name)
                        .long(r.name)
                        .value_name("PATH")
                        .value_parser(clap::value_parser!(PathBuf))
                        .help(format!(
                            "The installed {} to pin (a path, or a name looked up on PATH)",
                            r.native
                        )),
                )
            })
            .group(
                ArgGroup::new(CLI_GROUP)
                    .args(names)
                    .required(true)
                    .multiple(true),
            )
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Debug, Parser)]
    enum Cli {
        Check(CheckArgs),
        Refresh(RefreshArgs),
    }

    fn check(argv: &[&str]) -> Vec<(String, PathBuf, String)> {
        let cli = Cli::try_parse_from(["t", "check"].iter().chain(argv).copied());
        let Ok(Cli::Check(args)) = cli else {
            panic!("check {argv:?} does not parse: {cli:?}")
        };
        args.targets()
            .into_iter()
            .map(|t| (t.flag, t.program, t.tree_source))
            .collect()
    }

    #[test]
    fn check_flags_derive_from_the_registrations() {
        let default = &PROVIDERS[0];
        assert_eq!(
            check(&[]),
            [(
                format!("--{}", default.name),
                PathBuf::from(default.default_binary),
                format!("the embedded {}", default.tree_file)
            )],
            "no flag checks the default provider's CLI on PATH against its pinned tree"
        );
        for other in &PROVIDERS[1..] {
            let flag = format!("--{}", other.name);
            let tree_flag = format!("--{}", other.tree_flag);
            let got = check(&[&flag, "/x/cli", &tree_flag, "/x/tree.json"]);
            assert_eq!(got.len(), 2, "{got:?}");
            assert_eq!(
                got[1],
                (flag.clone(), PathBuf::from("/x/cli"), "/x/tree.json".into())
            );
            let orphan = Cli::try_parse_from(["t", "check", &tree_flag, "/x/tree.json"]);
            assert!(
                orphan.is_err(),
                "{tree_flag} without {flag} is a usage error"
            );
        }
    }

    #[test]
    fn refresh_needs_one_cli_and_pins_each_named() {
        assert!(
            Cli::try_parse_from(["t", "refresh"]).is_err(),
            "refresh with no CLI is a usage error"
        );
        for r in PROVIDERS {
            let flag = format!("--{}", r.name);
            let Ok(Cli::Refresh(args)) = Cli::try_parse_from(["t", "refresh", &flag, "/x/cli"])
            else {
                panic!("refresh {flag} does not parse")
            };
            let targets = args.targets();
            assert_eq!(targets.len(), 1);
            assert_eq!(targets[0].flag, flag);
            assert_eq!(targets[0].file, r.tree_file);
            assert_eq!(targets[0].tree_flag, format!("--{}", r.tree_flag));
            assert!(targets[0].pinned.is_ok(), "{}'s pinned tree loads", r.name);
        }
    }
}
