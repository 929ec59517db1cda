//! The provider registration: which native agent CLIs `--provider` can name (PROV-1, PROV-2).
//! Each provider is a crate of its own behind the engine's `Provider` trait and exports its
//! [`Registration`]; [`PROVIDERS`] is the one place that names them. Everything else derives
//! from it: the server's repeatable `--provider NAME` ([`Served`]), `cli run`'s single one
//! ([`One`]), each provider's `--NAME PATH` and `--NAME-cli-tree PATH` flags, and the providers
//! built for the MCP server and the one-shot projection.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::builder::{PossibleValue, PossibleValuesParser};
use clap::{Arg, ArgAction, ArgMatches, Command};

use cmk_engine::provider::Provider;
use cmk_engine::record::Recorder;
use cmk_mcp_server::config::ServeArgs;
use cmk_native::binary::EnvDeny;
use cmk_native::cli_tree::CliTreeError;
use cmk_native::registration::{Chosen, Registration};

/// Every provider the binary offers, the default (`--provider` not given) first. Adding a
/// provider is adding its crate's registration here.
pub static PROVIDERS: &[Registration] = &[
    cmk_provider_claude::REGISTRATION,
    cmk_provider_cursor::REGISTRATION,
];

/// The id of the `--provider` argument.
const PROVIDER: &str = "provider";

/// `--provider` (repeatable or not) and every provider's `--NAME` / `--NAME-cli-tree`.
fn augment(cmd: Command, repeat: bool) -> Command {
    let names = PROVIDERS
        .iter()
        .map(|r| PossibleValue::new(r.name).help(r.summary));
    let provider = Arg::new(PROVIDER)
        .long(PROVIDER)
        .value_name("NAME")
        .value_parser(PossibleValuesParser::new(names))
        .default_value(PROVIDERS[0].name);
    let provider = if repeat {
        provider.action(ArgAction::Append).help(
            "A provider whose seven tools to serve; repeat for several (one run table, one \
             capacity and one work snapshot hold them all, PROV-2)",
        )
    } else {
        provider.help("Which native CLI runs the prompt, in its one-shot mode")
    };
    PROVIDERS.iter().fold(cmd.arg(provider), |cmd, r| {
        cmd.arg(
            Arg::new(r.name)
                .long(r.name)
                .value_name("PATH")
                .value_parser(clap::value_parser!(PathBuf))
                .default_value(r.default_binary)
                .help(r.binary_help()),
        )
        .arg(
            Arg::new(r.tree_flag)
                .long(r.tree_flag)
                .value_name("PATH")
                .value_parser(clap::value_parser!(PathBuf))
                .help(r.tree_help()),
        )
    })
}

/// The chosen providers, each once, in the order `--provider` named them.
fn chosen(m: &ArgMatches) -> Result<Vec<Chosen>, clap::Error> {
    let mut out: Vec<Chosen> = Vec::new();
    for name in m.get_many::<String>(PROVIDER).into_iter().flatten() {
        if out.iter().any(|c| c.registration.name == name) {
            continue;
        }
        let registration = PROVIDERS
            .iter()
            .find(|r| r.name == name)
            .ok_or_else(|| clap::Error::raw(clap::error::ErrorKind::InvalidValue, name))?;
        let binary = m
            .get_one::<PathBuf>(registration.name)
            .cloned()
            .unwrap_or_else(|| PathBuf::from(registration.default_binary));
        out.push(Chosen {
            registration,
            binary,
            cli_tree: m.get_one::<PathBuf>(registration.tree_flag).cloned(),
        });
    }
    Ok(out)
}

/// The server's providers: `--provider NAME`, repeatable (default: the first registered).
#[derive(Debug, Clone, Default)]
pub struct Served {
    chosen: Vec<Chosen>,
}

impl Served {
    /// The providers `--provider` names, in order, each once (PROV-2).
    pub fn build(
        &self,
        args: &ServeArgs,
        recorder: Option<&Recorder>,
    ) -> Result<Vec<Arc<dyn Provider>>, CliTreeError> {
        let deny = EnvDeny::new(args.env_deny.iter().cloned());
        let step = Some(Duration::from_secs(args.acp_step_timeout_s));
        self.chosen
            .iter()
            .map(|c| c.build(&deny, recorder, step, false))
            .collect()
    }
}

impl clap::FromArgMatches for Served {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        Ok(Self { chosen: chosen(m)? })
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl clap::Args for Served {
    fn augment_args(cmd: Command) -> Command {
        augment(cmd, true)
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        augment(cmd, true)
    }
}

/// `cli run`'s provider: one `--provider NAME` (default: the first registered).
#[derive(Debug, Clone)]
pub struct One {
    chosen: Chosen,
}

impl One {
    /// The provider for the one-shot projection (CLI-1): its one-shot mode, no recorder, the
    /// provider's own handshake bounds.
    pub fn build(&self, env_deny: &EnvDeny) -> Result<Arc<dyn Provider>, CliTreeError> {
        self.chosen.build(env_deny, None, None, true)
    }

    /// The provider's name (`claude`).
    #[must_use]
    pub fn name(&self) -> &'static str {
        self.chosen.registration.name
    }
}

impl clap::FromArgMatches for One {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        chosen(m)?
            .into_iter()
            .next()
            .map(|chosen| Self { chosen })
            .ok_or_else(|| {
                clap::Error::raw(clap::error::ErrorKind::MissingRequiredArgument, PROVIDER)
            })
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl clap::Args for One {
    fn augment_args(cmd: Command) -> Command {
        augment(cmd, false)
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        augment(cmd, false)
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        providers: Served,
    }

    fn names(argv: &[&str]) -> Vec<(&'static str, PathBuf, Option<PathBuf>)> {
        let cli = Cli::try_parse_from(std::iter::once("adapter").chain(argv.iter().copied()))
            .expect("parses");
        cli.providers
            .chosen
            .into_iter()
            .map(|c| (c.registration.name, c.binary, c.cli_tree))
            .collect()
    }

    #[test]
    fn every_registered_provider_gets_its_flags_and_the_first_is_the_default() {
        assert_eq!(
            names(&[]),
            [("claude", PathBuf::from("claude"), None)],
            "the first registration is the default"
        );
        assert_eq!(
            names(&[
                "--provider",
                "cursor",
                "--provider",
                "claude",
                "--provider",
                "cursor",
                "--cursor",
                "/x/agent",
                "--cursor-cli-tree",
                "/x/tree.json",
                "--cli-tree",
                "/y/tree.json",
            ]),
            [
                (
                    "cursor",
                    PathBuf::from("/x/agent"),
                    Some(PathBuf::from("/x/tree.json"))
                ),
                (
                    "claude",
                    PathBuf::from("claude"),
                    Some(PathBuf::from("/y/tree.json"))
                ),
            ],
            "each once, in the order named"
        );
        let unknown = Cli::try_parse_from(["adapter", "--provider", "nobody"]);
        assert!(
            unknown.is_err(),
            "a name no registration has is a usage error"
        );
    }

    #[test]
    fn registrations_have_distinct_names_and_flags() {
        let mut flags: Vec<&str> = PROVIDERS
            .iter()
            .flat_map(|r| [r.name, r.tree_flag])
            .collect();
        let n = flags.len();
        flags.sort_unstable();
        flags.dedup();
        assert_eq!(flags.len(), n, "{flags:?}");
    }
}
