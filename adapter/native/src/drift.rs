//! The maintainer's drift check: compares an installed native CLI's `--version` and `--help`
//! with the tree its provider pins (claude's cli-tree.json, NAT-1; Cursor's agent's
//! cursor-cli-tree.json, ACP-9). Which CLIs there are, their flags and their pinned trees come
//! from the binary's provider registrations ([`Target`]); nothing here names a provider. Never
//! used at run time.
//!
//! Drift is: the version line differs; a declared flag (an option's, or one in a mode's or the
//! version's fixed argv) is missing from help; it takes another argument form (a value where the
//! tree declares a switch, or none where it declares a value); or a declared value (`choices`,
//! `native_choices`, a mode's fixed value) is no longer accepted. Flags the tree does not declare
//! are listed as information: the tree is partial by design. Exit 0 without drift, 1 with drift,
//! 2 when the check cannot run.

mod help;

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::time::Duration;

pub use help::{Arity, Help, HelpOption};

use crate::cli_tree::{CliTree, Mode, ValueRule};

/// Bound on each `claude --version` / `claude --help` call.
pub(crate) const CAPTURE_TIMEOUT: Duration = Duration::from_secs(60);
/// Most bytes of output read from each call.
pub(crate) const CAPTURE_MAX: u64 = 1024 * 1024;

/// One difference a reviewed update of cli-tree.json would have to resolve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// What in the tree is concerned (`version`, `modes.stream.argv`, an option name).
    pub subject: String,
    /// What the installed CLI says instead.
    pub problem: String,
    /// What the update would change.
    pub update: String,
}

/// The outcome of a comparison.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DriftReport {
    /// The installed CLI's version line.
    pub version_line: String,
    /// The pinned line.
    pub pinned_line: String,
    /// Every declared item checked, with what help says about it (`subject`, help head).
    pub checked: Vec<(String, String)>,
    /// Drift: each one fails the check.
    pub drift: Vec<Finding>,
    /// Information that is not drift (new native choices).
    pub notes: Vec<String>,
    /// Help entries the tree does not declare (heads as help prints them).
    pub undeclared: Vec<String>,
    /// The tree's file name, for the texts (`cli-tree.json`, `cursor-cli-tree.json`).
    pub tree_file: &'static str,
}

impl DriftReport {
    /// `true` when nothing drifted.
    #[must_use]
    pub fn clean(&self) -> bool {
        self.drift.is_empty()
    }

    /// The human report.
    #[must_use]
    pub fn render(&self) -> String {
        let mut s = String::new();
        s.push_str(&format!(
            "version: {:?} ({} pins {:?})\n\n",
            self.version_line, self.tree_file, self.pinned_line
        ));
        s.push_str(&format!(
            "declared items checked ({}):\n",
            self.checked.len()
        ));
        let width = self.checked.iter().map(|(s, _)| s.len()).max().unwrap_or(0) + 2;
        for (subject, head) in &self.checked {
            let mark = if self.drift.iter().any(|f| &f.subject == subject) {
                "DRIFT"
            } else {
                "ok"
            };
            s.push_str(&format!("  {mark:<6}{subject:<width$}{head}\n"));
        }
        if !self.drift.is_empty() {
            s.push_str(&format!("\ndrift ({}):\n", self.drift.len()));
            for (i, f) in self.drift.iter().enumerate() {
                s.push_str(&format!(
                    "  {}. {}: {}\n     update: {}\n",
                    i + 1,
                    f.subject,
                    f.problem,
                    f.update
                ));
            }
        }
        if !self.notes.is_empty() {
            s.push_str("\nnotes (not drift):\n");
            for n in &self.notes {
                s.push_str(&format!("  - {n}\n"));
            }
        }
        s.push_str(&format!(
            "\ninformation: {} flag(s) in --help that {} does not declare \
             (the tree is partial by design):\n",
            self.undeclared.len(),
            self.tree_file
        ));
        for u in &self.undeclared {
            s.push_str(&format!("  {u}\n"));
        }
        if self.clean() {
            s.push_str(&format!(
                "\nno drift: {} matches {}\n",
                self.tree_file, self.version_line
            ));
        } else {
            s.push_str(&format!(
                "\ndrift: {} finding(s); a reviewed update of {} would have to make \
                 the changes listed above\n",
                self.drift.len(),
                self.tree_file
            ));
        }
        s
    }
}

/// Compares the tree pinned in `tree_file` with what the installed CLI printed for
/// `--version` and `--help`.
#[must_use]
pub fn compare(
    tree: &CliTree,
    tree_file: &'static str,
    version_output: &str,
    help: &Help,
) -> DriftReport {
    let mut r = DriftReport {
        version_line: version_output
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("")
            .to_owned(),
        pinned_line: tree.version.line.clone(),
        tree_file,
        ..DriftReport::default()
    };
    let file = r.tree_file;
    if r.version_line != r.pinned_line {
        r.drift.push(Finding {
            subject: "version".into(),
            problem: format!(
                "the installed CLI prints {:?}, {file} pins {:?}",
                r.version_line, r.pinned_line
            ),
            update: format!(
                "review the CLI's changes, then set version.line to {:?}",
                r.version_line
            ),
        });
    }
    let mut declared: Vec<&str> = Vec::new();
    check_fixed_argv(
        &mut r,
        help,
        "version.argv",
        &tree.version.argv,
        &mut declared,
    );
    for mode in [Mode::Stream, Mode::Json, Mode::Acp] {
        if !tree.has_mode(mode) {
            continue;
        }
        check_fixed_argv(
            &mut r,
            help,
            &format!("modes.{}.argv", mode.key()),
            tree.mode_argv(mode),
            &mut declared,
        );
    }
    for opt in &tree.options {
        declared.push(&opt.flag);
        let subject = format!("options[{}]", opt.name);
        let Some(h) = help.find(&opt.flag) else {
            r.checked.push((subject.clone(), "(missing)".into()));
            r.drift.push(Finding {
                subject,
                problem: format!("{} is missing from --help", opt.flag),
                update: format!(
                    "remove option {:?} (and the tool arguments derived from it) or declare the \
                     flag that replaced {}",
                    opt.name, opt.flag
                ),
            });
            continue;
        };
        r.checked.push((subject.clone(), describe(h)));
        let declared_switch = matches!(opt.value, ValueRule::Switch);
        if declared_switch == h.arity().takes_value() {
            r.drift.push(Finding {
                subject: subject.clone(),
                problem: if declared_switch {
                    format!(
                        "--help shows {} taking a value ({}), {file} declares a switch",
                        opt.flag,
                        h.form.as_deref().unwrap_or("")
                    )
                } else {
                    format!(
                        "--help shows {} taking no value, {file} declares a {} value",
                        opt.flag,
                        kind_name(&opt.value)
                    )
                },
                update: format!(
                    "change options[{}].value.kind to match {}",
                    opt.name,
                    h.head()
                ),
            });
        }
        if let ValueRule::Choice {
            choices,
            native_choices,
        } = &opt.value
        {
            for (field, values) in [
                ("choices", Some(choices)),
                ("native_choices", native_choices.as_ref()),
            ] {
                for v in values.into_iter().flatten() {
                    if !accepts(h, v) {
                        r.drift.push(Finding {
                            subject: subject.clone(),
                            problem: format!(
                                "{} no longer accepts {v:?} ({})",
                                opt.flag,
                                accepted_text(h)
                            ),
                            update: format!(
                                "remove {v:?} from options[{}].value.{field}",
                                opt.name
                            ),
                        });
                    }
                }
            }
            if let (Some(native), Some(listed)) = (native_choices, &h.choices) {
                let new: Vec<&String> = listed.iter().filter(|c| !native.contains(c)).collect();
                if !new.is_empty() {
                    r.notes.push(format!(
                        "{} accepts value(s) not in options[{}].value.native_choices: {}",
                        opt.flag,
                        opt.name,
                        join_quoted(&new)
                    ));
                }
            }
        }
    }
    r.undeclared = help
        .options
        .iter()
        .filter(|o| !o.spellings.iter().any(|s| declared.contains(&s.as_str())))
        .map(HelpOption::head)
        .collect();
    r
}

/// Checks a fixed argv (`-p --output-format json`): every flag exists, takes a value exactly when
/// the argv gives one, and the value is accepted.
fn check_fixed_argv<'a>(
    r: &mut DriftReport,
    help: &Help,
    subject: &str,
    argv: &'a [String],
    declared: &mut Vec<&'a str>,
) {
    let mut i = 0;
    while i < argv.len() {
        let flag = &argv[i];
        if !flag.starts_with('-') {
            // A subcommand (`cursor-agent acp`): listed under Commands.
            i += 1;
            let item = format!("{subject} {flag}");
            if help.has_command(flag) {
                r.checked.push((item, format!("command {flag}")));
            } else {
                r.checked.push((item.clone(), "(missing)".into()));
                r.drift.push(Finding {
                    subject: item,
                    problem: format!("the command {flag} is missing from --help"),
                    update: format!("replace {flag} in {subject} with what the CLI offers now"),
                });
            }
            continue;
        }
        let value = argv.get(i + 1).filter(|v| !v.starts_with('-'));
        i += 1 + usize::from(value.is_some());
        declared.push(flag);
        let item = match value {
            Some(v) => format!("{subject} {flag} {v}"),
            None => format!("{subject} {flag}"),
        };
        let Some(h) = help.find(flag) else {
            r.checked.push((item.clone(), "(missing)".into()));
            r.drift.push(Finding {
                subject: item,
                problem: format!("{flag} is missing from --help"),
                update: format!("replace {flag} in {subject} with what the CLI offers now"),
            });
            continue;
        };
        r.checked.push((item.clone(), describe(h)));
        match (value, h.arity()) {
            (Some(v), Arity::None) => r.drift.push(Finding {
                subject: item,
                problem: format!("--help shows {flag} taking no value, {subject} passes {v:?}"),
                update: format!("drop {v:?} after {flag} in {subject}"),
            }),
            (None, Arity::Required) => r.drift.push(Finding {
                subject: item,
                problem: format!("--help shows {flag} requiring a value ({})", h.head()),
                update: format!("give {flag} a value in {subject}"),
            }),
            (Some(v), _) if !accepts(h, v) => r.drift.push(Finding {
                subject: item,
                problem: format!("{flag} no longer accepts {v:?} ({})", accepted_text(h)),
                update: format!("replace {v:?} in {subject}"),
            }),
            _ => {}
        }
    }
}

/// Whether help still accepts `value` for the option: its choices list when it has one,
/// otherwise the value named in its description (values listed in prose, like `--effort`'s).
fn accepts(h: &HelpOption, value: &str) -> bool {
    match &h.choices {
        Some(list) => list.iter().any(|c| c == value),
        None => h.mentions(value),
    }
}

fn accepted_text(h: &HelpOption) -> String {
    match &h.choices {
        Some(list) => format!("choices: {}", list.join(", ")),
        None => format!("its description does not name it: {:?}", h.description),
    }
}

fn describe(h: &HelpOption) -> String {
    match &h.choices {
        Some(list) => format!("{} (choices: {})", h.head(), list.join(", ")),
        None => h.head(),
    }
}

fn join_quoted(values: &[&String]) -> String {
    values
        .iter()
        .map(|v| format!("{v:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn kind_name(rule: &ValueRule) -> &'static str {
    match rule {
        ValueRule::Choice { .. } => "choice",
        ValueRule::String { .. } => "string",
        ValueRule::Number { .. } => "number",
        ValueRule::Uuid => "uuid",
        ValueRule::Switch => "switch",
    }
}

/// Why the check could not run (exit 2).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CheckError {
    /// The tree could not be loaded.
    #[error(transparent)]
    Tree(#[from] crate::cli_tree::CliTreeError),
    /// The CLI could not be run, failed, or hung.
    #[error("{0}")]
    Run(String),
    /// The program's version line is not one of the tree's CLI (another program): what it
    /// printed, what the CLI prints, and which flag names the CLI.
    #[error("{0}")]
    NotTheCli(String),
    /// `--help` printed no `Options:` section.
    #[error("{0} --help printed no Options: section")]
    NotHelp(String),
}

/// Starts the lifeline watchdog ([`cmk_lifeline`]) that kills the group of a CLI being checked if
/// the adapter dies without doing so itself (`SIGKILL`; C-SUP-5). The `cli-tree` subcommands
/// call it first, before any thread exists (the MCP server never does: an adapter with no run has
/// no child process, C-SUP-2).
///
/// # Errors
/// The watchdog could not be forked: the check refuses to run uncontained.
pub fn contain() -> Result<(), CheckError> {
    cmk_lifeline::start().map_err(|e| CheckError::Run(e.to_string()))
}

/// Runs `program args…` with stdin `/dev/null`, in its own process group, bounded in time and
/// output; returns stdout. A non-zero exit is an error carrying stderr's first line. The group is
/// registered with the lifeline watchdog before the program execs (C-SUP-5; the binary starts
/// the watchdog for `cli-tree`), so the adapter killed at any instant leaves it no survivor, and
/// killed and unregistered once the program is reaped.
fn capture(program: &OsStr, args: &[&str]) -> Result<String, CheckError> {
    let shown = format!("{} {}", program.to_string_lossy(), args.join(" "));
    let mut cmd = Command::new(program);
    cmd.args(args)
        .env_clear()
        // NAT-8: the same scrubbing as runs (claude refuses to start under CLAUDECODE).
        .envs(crate::binary::scrubbed_env())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmk_lifeline::spawn_registered(&mut cmd, |c| c, Command::spawn)
        .map_err(|e| CheckError::Run(format!("cannot run {shown}: {e}")))?;
    let pgid = child.id();
    let registered = i32::try_from(pgid).unwrap_or_default();
    cmk_lifeline::register(registered);
    let result = finish_capture(&mut child, pgid, &shown);
    // The leader is reaped on every path; what it left in its group goes too (as mcp-replay's
    // shutdown does), then the group is ours no more.
    if registered > 1 {
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(registered),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    cmk_lifeline::unregister(registered);
    result
}

/// The rest of [`capture`]: reads the started `child` (leader of group `pgid`) to its end within
/// [`CAPTURE_TIMEOUT`], and reaps it.
fn finish_capture(
    child: &mut std::process::Child,
    pgid: u32,
    shown: &str,
) -> Result<String, CheckError> {
    let reader = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(p) = pipe {
                let _ = p.take(CAPTURE_MAX).read_to_end(&mut buf);
            }
            buf
        })
    };
    let out = reader(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err = reader(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    // The child's exit is an event: a thread waits for it without reaping it (`WNOWAIT`), and
    // the bound is a wait on that thread's word, not a poll.
    let (exited, gone) = std::sync::mpsc::channel();
    if let Ok(raw) = i32::try_from(pgid) {
        std::thread::spawn(move || {
            use nix::sys::wait::{Id, WaitPidFlag, waitid};
            let pid = nix::unistd::Pid::from_raw(raw);
            while let Err(nix::errno::Errno::EINTR) =
                waitid(Id::Pid(pid), WaitPidFlag::WEXITED | WaitPidFlag::WNOWAIT)
            {}
            let _ = exited.send(());
        });
    }
    if gone.recv_timeout(CAPTURE_TIMEOUT).is_err() {
        // Unreaped, so the pgid is still ours to signal.
        if let Ok(raw) = i32::try_from(pgid) {
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(raw),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
        let _ = child.wait();
        return Err(CheckError::Run(format!(
            "{shown} did not finish within {CAPTURE_TIMEOUT:?}"
        )));
    }
    let status = child
        .wait()
        .map_err(|e| CheckError::Run(format!("{shown}: cannot reap it: {e}")))?;
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    if !status.success() {
        let first = String::from_utf8_lossy(&stderr)
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .map(|l| format!(": {l}"))
            .unwrap_or_default();
        return Err(CheckError::Run(format!("{shown} failed ({status}){first}")));
    }
    Ok(String::from_utf8_lossy(&stdout).into_owned())
}

/// One CLI to check, as a provider's registration describes it.
#[derive(Debug)]
pub struct Target {
    /// The program to run (a path, or a name looked up on PATH).
    pub program: PathBuf,
    /// The flag that named it (`--claude`), for the texts.
    pub flag: String,
    /// The tree to compare with: the provider's pinned one, or the file its tree flag named.
    pub tree: Result<CliTree, crate::cli_tree::CliTreeError>,
    /// Where the tree came from, for the texts ("the embedded cli-tree.json", a path).
    pub tree_source: String,
    /// The pinned tree's file name (`cli-tree.json`).
    pub tree_file: &'static str,
}

impl Target {
    /// Runs the CLI and compares it with its tree.
    pub fn check(&self) -> Result<DriftReport, CheckError> {
        let tree = self
            .tree
            .as_ref()
            .map_err(|e| CheckError::Run(e.to_string()))?;
        check_tree(&self.program, tree, &self.flag, self.tree_file)
    }
}

/// Runs `program --version` and `program --help` and compares them with `tree`, pinned in
/// `tree_file`. A program that is not the tree's CLI is [`CheckError::NotTheCli`], naming `flag`.
pub fn check_tree(
    program: &std::path::Path,
    tree: &CliTree,
    flag: &str,
    tree_file: &'static str,
) -> Result<DriftReport, CheckError> {
    let version_args: Vec<&str> = tree.version.argv.iter().map(String::as_str).collect();
    let not_the_cli = |got: String| {
        CheckError::NotTheCli(format!(
            "{program} does not look like {tool}: `{program} {args}` {got}, while {tool} prints \
             a line like {pinned:?}; point {flag} at the {tool} executable",
            program = program.display(),
            tool = tree.tool,
            args = version_args.join(" "),
            pinned = tree.version.line,
        ))
    };
    let version = match capture(program.as_os_str(), &version_args) {
        Ok(v) => v,
        Err(CheckError::Run(e)) if program.exists() => {
            return Err(not_the_cli(format!("did not answer as a CLI ({e})")));
        }
        Err(e) => return Err(e),
    };
    let line = version.lines().map(str::trim).find(|l| !l.is_empty());
    if !line.is_some_and(|l| tree.version.same_cli(l)) {
        return Err(not_the_cli(format!("printed {:?}", line.unwrap_or(""))));
    }
    let help_text = capture(program.as_os_str(), &["--help"])?;
    let help = Help::parse(&help_text)
        .ok_or_else(|| CheckError::NotHelp(program.display().to_string()))?;
    Ok(compare(tree, tree_file, &version, &help))
}

/// Checks each target in turn and prints what a reviewed update of its tree would have to
/// change; exit 0 without drift, 1 on drift, 2 when a check cannot run (the worst of them).
#[must_use]
pub fn run(targets: &[Target]) -> ExitCode {
    let mut worst = 0u8;
    for (i, target) in targets.iter().enumerate() {
        let code = match target.check() {
            Ok(report) => {
                let text = format!(
                    "{}cli-tree check of {} against {}\n\n{}",
                    if i == 0 { "" } else { "\n" },
                    target.program.display(),
                    target.tree_source,
                    report.render()
                );
                // A closed stdout (a pager quit early) does not change the verdict.
                let mut stdout = std::io::stdout().lock();
                let _ = stdout.write_all(text.as_bytes());
                let _ = stdout.flush();
                u8::from(!report.clean())
            }
            Err(e) => {
                eprintln!("claude-mcp-adapter cli-tree check: {e}");
                2
            }
        };
        worst = worst.max(code);
    }
    ExitCode::from(worst)
}

#[cfg(test)]
mod tests;
