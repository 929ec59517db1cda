//! The evidence classes of the test suite and the generator of
//! `docs/evidence.md`: per contract id (`docs/contract.md`), which classes of test cover it.
//!
//! The classes, from the weakest claim about the real world to the strongest:
//! - [`Class::Fixture`], fixture protocol checks: the adapter, the runner or a library against
//!   fakes and fixtures this repository owns (fake-claude, fake-cursor-agent, toy servers, replayed
//!   recordings, unit tests, the conformance catalogue run against the reference adapter);
//! - [`Class::Native`], native interface checks: the real pinned native programs (claude 2.1.328
//!   against the local Messages API stand-in, real ACP agents) driven through our interface;
//! - [`Class::Host`], exact-host interoperability: real, pinned MCP hosts and peers nobody here
//!   wrote (TypeScript SDK, Inspector CLI, Python SDK, Claude Code as host, third-party servers
//!   graded by the runner);
//! - [`Class::Model`], authenticated model execution: a real account and a real model, opt-in,
//!   never in CI (its last result is recorded in `docs/model-runs.md`).
//!
//! The tagging convention is the test's module path: [`class_of`] maps a file to its class by the
//! directories below (the most specific rule wins), and every test file of the workspace is one
//! of them. A file covers the contract ids it cites (in its names, comments or strings: the
//! suite's convention is to cite the id of what a test checks); ranges such as `ACP-1..9` cite
//! each id of the range.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};

pub mod tier;

/// An evidence class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// Fixture protocol checks.
    Fixture,
    /// Native interface checks.
    Native,
    /// Exact-host interoperability.
    Host,
    /// Authenticated model execution.
    Model,
}

impl Class {
    /// Every class, in column order.
    pub const ALL: [Class; 4] = [Class::Fixture, Class::Native, Class::Host, Class::Model];

    /// The column title.
    #[must_use]
    pub fn title(self) -> &'static str {
        match self {
            Class::Fixture => "Fixture protocol",
            Class::Native => "Native interface",
            Class::Host => "Exact host",
            Class::Model => "Authenticated model",
        }
    }
}

/// Path rules, most specific first: a repository-relative path starting with the prefix has the
/// class. Anything else with tests is [`Class::Fixture`].
pub const RULES: [(&str, Class); 21] = [
    ("adapter/tests/it/model/", Class::Model),
    ("adapter/tests/it/hosts/", Class::Host),
    ("conformance/tests/it/real_servers.rs", Class::Host),
    ("conformance/tests/it/real_http_servers.rs", Class::Host),
    ("conformance/tests/it/real_rmcp_server.rs", Class::Host),
    ("conformance/tests/it/real_go_server.rs", Class::Host),
    ("conformance/tests/it/real_dotnet_server.rs", Class::Host),
    ("conformance/tests/it/real_context7_server.rs", Class::Host),
    ("conformance/tests/it/real_fastmcp_server.rs", Class::Host),
    (
        "conformance/tests/it/real_rust_mcp_sdk_server.rs",
        Class::Host,
    ),
    ("conformance/tests/it/real_firecrawl_server.rs", Class::Host),
    ("conformance/tests/it/real_npm_servers.rs", Class::Host),
    ("conformance/tests/it/real_pypi_servers.rs", Class::Host),
    ("adapter/tests/it/real_claude/", Class::Native),
    ("adapter/tests/it/fidelity/", Class::Native),
    ("adapter/tests/it/cursor/real_agent.rs", Class::Native),
    ("acp-client/tests/it/real_agents.rs", Class::Native),
    ("testkit/tests/it/standin_http.rs", Class::Fixture),
    ("testkit/tests/it/prereq_gate.rs", Class::Fixture),
    ("testkit/tests/it/support.rs", Class::Fixture),
    ("testkit/tests/it/", Class::Native),
];

/// The class of a repository-relative file path.
#[must_use]
pub fn class_of(rel: &str) -> Class {
    RULES
        .iter()
        .find(|(prefix, _)| rel.starts_with(prefix))
        .map_or(Class::Fixture, |(_, c)| *c)
}

/// The contract ids of `docs/contract.md`, in document order: every `**ID**` that opens a list
/// item and has the shape of an id ([`is_contract_id`]).
#[must_use]
pub fn contract_ids(contract: &str) -> Vec<String> {
    contract
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("- **"))
        .filter_map(|rest| rest.split_once("**").map(|(id, _)| id.to_owned()))
        .filter(|id| is_contract_id(id))
        .collect()
}

/// The one grammar of a contract id: dash-separated segments of capitals and digits starting
/// with a capital (`T2`, `RUN-8`, `META-WORK-5`, or one with no number), the last of which may
/// end in one lowercase letter after a digit (`C-T6a`, `T3a`).
#[must_use]
pub fn is_contract_id(token: &str) -> bool {
    let body = match token.strip_suffix(|c: char| c.is_ascii_lowercase()) {
        Some(body) if body.ends_with(|c: char| c.is_ascii_digit()) => body,
        Some(_) => return false,
        None => token,
    };
    body.starts_with(|c: char| c.is_ascii_uppercase())
        && body.split('-').all(|segment| {
            !segment.is_empty()
                && segment
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
        })
}

/// `(prefix, number)` of a numbered id ([`is_contract_id`] and ending in digits, with its
/// optional letter): `C-T6a` → `("C-T", "6a")`, `RUN-8` → `("RUN-", "8")`. `None` for an
/// unnumbered id or anything that is not an id. Ids that share a prefix are a family:
/// a cited token of a family's prefix that the contract does not define is a wrong citation.
#[must_use]
pub fn split_id(token: &str) -> Option<(&str, &str)> {
    if !is_contract_id(token) {
        return None;
    }
    let body = token.trim_end_matches(|c: char| c.is_ascii_lowercase());
    let digits = body.len() - body.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let prefix = &body[..body.len() - digits];
    (digits > 0 && !prefix.is_empty()).then(|| (prefix, &token[prefix.len()..]))
}

/// The ids of `known` that `text` cites, ranges (`RUN-1..7`) expanded.
#[must_use]
pub fn cited(text: &str, known: &BTreeSet<&str>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '.';
    for run in text.split(|c: char| !is_word(c)) {
        for (i, part) in run.split("..").enumerate() {
            let token = part.trim_matches(|c| c == '.' || c == '-');
            if known.contains(token) {
                out.insert(token.to_owned());
            }
            // `PREFIX-a..b`: the part after `..` is the range's end.
            if i == 1
                && let Some(first) = run.split("..").next()
                && let Some((prefix, start)) = first.rsplit_once('-')
                && let (Ok(a), Ok(b)) = (start.parse::<u32>(), token.parse::<u32>())
                && a < b
                && b - a < 64
            {
                for n in a..=b {
                    let id = format!("{prefix}-{n}");
                    if known.contains(id.as_str()) {
                        out.insert(id);
                    }
                }
            }
        }
    }
    out
}

/// Rust files with tests: everything under a crate's `tests/`, and `src/` files holding a
/// `#[test]`, plus the conformance catalogue (its cases run against the reference adapter in
/// the default-target test, so they are fixture evidence too).
fn test_files(repo: &Path) -> io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for krate in [
        "adapter",
        "adapter/engine",
        "adapter/mcp-server",
        "adapter/native",
        "adapter/provider-claude",
        "adapter/provider-cursor",
        "adapter/procfs",
        "adapter/supervisor",
        "acp-client",
        "conformance",
        "fake-claude",
        "fake-cursor-agent",
        "testkit",
        "wire",
    ] {
        for dir in ["tests", "src"] {
            walk(&repo.join(krate).join(dir), &mut out)?;
        }
    }
    out.retain(|p| {
        let rel = p
            .strip_prefix(repo)
            .unwrap_or(p)
            .to_string_lossy()
            .into_owned();
        // This generator and its check name ids as examples, not as evidence.
        if rel == "testkit/src/evidence.rs"
            || rel == "testkit/src/evidence/tier.rs"
            || rel == "adapter/tests/it/evidence.rs"
        {
            return false;
        }
        let in_tests = rel.contains("/tests/");
        let catalogue = rel.starts_with("conformance/src/mcp/catalogue/");
        in_tests
            || catalogue
            || std::fs::read_to_string(p)
                .is_ok_and(|t| t.contains("#[test]") || t.contains("::test]"))
    });
    out.sort();
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> io::Result<()> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for e in entries {
        let path = e?.path();
        if path.is_dir() {
            walk(&path, out)?;
        } else if path
            .extension()
            .is_some_and(|x| x == "rs" || x == "py" || x == "mjs")
        {
            out.push(path);
        }
    }
    Ok(())
}

/// Per contract id, per class, the test files citing it.
pub type Coverage = BTreeMap<String, BTreeMap<Class, BTreeSet<String>>>;

/// The coverage of the repository at `repo`.
pub fn coverage(repo: &Path) -> io::Result<(Vec<String>, Coverage)> {
    let contract = std::fs::read_to_string(repo.join("docs/contract.md"))?;
    let ids = contract_ids(&contract);
    let known: BTreeSet<&str> = ids.iter().map(String::as_str).collect();
    let mut cov = Coverage::new();
    for file in test_files(repo)? {
        let rel = file
            .strip_prefix(repo)
            .unwrap_or(&file)
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(&file)?;
        for id in cited(&text, &known) {
            cov.entry(id)
                .or_default()
                .entry(class_of(&rel))
                .or_default()
                .insert(rel.clone());
        }
    }
    Ok((ids, cov))
}

/// The last recorded authenticated model run (the last row of `docs/model-runs.md`'s table), or
/// `None` when nobody recorded one.
#[must_use]
pub fn last_model_run(model_runs: &str) -> Option<String> {
    model_runs
        .lines()
        .rfind(|l| l.starts_with("| 2"))
        .map(str::to_owned)
}

/// Contract ids that no test can check, each with the reason `docs/evidence.md` gives for it
/// (instead of listing it among the ids cited by no test). An id here that a test cites is
/// covered like any other, and its reason is not shown.
pub const NOT_TESTABLE: [(&str, &str); 1] = [(
    "META-PRIV-1",
    "a negative over every host: no private host service needed, no native permission changed, \
     no host configuration enabled, host metadata never a credential. Tests pin what the adapter \
     does instead, under their own ids (the permission modes it passes, NAT-5; the environment \
     it gives the native process, NAT-8; the work-invocation it reads, META-WORK-4); the \
     absence of everything else a host might offer is not observable, so it holds by \
     construction and review",
)];

/// `docs/evidence.md` for the repository at `repo`.
pub fn generate(repo: &Path) -> io::Result<String> {
    generate_with(repo, &NOT_TESTABLE)
}

/// [`generate`] with `not_testable` as the table of reasons.
fn generate_with(repo: &Path, not_testable: &[(&str, &str)]) -> io::Result<String> {
    let (ids, cov) = coverage(repo)?;
    let runs = std::fs::read_to_string(repo.join("docs/model-runs.md")).unwrap_or_default();
    let mut s = String::new();
    s.push_str(
        "# Evidence by contract id\n\n\
         <!-- Generated by testkit::evidence; checked by `cargo test -p claude-mcp-adapter --test it \
         -- evidence::`, rewritten with BLESS=1 on that command. Do not edit by hand. -->\n\n\
         What kind of test backs each requirement of [the contract](contract.md). A number is how \
         many test files of that class cite the id (in a test name, comment or string); `-` is \
         none. The classes, weakest claim first:\n\n\
         - **Fixture protocol**: against fakes and fixtures of this repository (fake-claude, \
         fake-cursor-agent, toy servers, replayed recordings, unit tests, the conformance \
         catalogue run against the reference adapter).\n\
         - **Native interface**: the real pinned native programs through our interface (claude \
         2.1.328 against the local Messages API stand-in, real ACP agents).\n\
         - **Exact host**: real pinned MCP hosts and peers nobody here wrote (TypeScript SDK, \
         Inspector CLI, Python SDK, Claude Code as host, third-party servers the runner grades).\n\
         - **Authenticated model**: a real account and model; opt-in, never in CI \
         ([procedure and record](model-runs.md)).\n\n\
         The class of a test is its module path (`testkit::evidence::RULES`): \
         `adapter/tests/it/model/` authenticated model; `adapter/tests/it/hosts/`, \
         `conformance/tests/it/real_servers.rs`, `conformance/tests/it/real_http_servers.rs`, \
         `conformance/tests/it/real_rmcp_server.rs`, `conformance/tests/it/real_go_server.rs`, \
         `conformance/tests/it/real_dotnet_server.rs`, `conformance/tests/it/real_context7_server.rs`, \
         `conformance/tests/it/real_fastmcp_server.rs`, \
         `conformance/tests/it/real_rust_mcp_sdk_server.rs`, \
         `conformance/tests/it/real_firecrawl_server.rs`, \
         `conformance/tests/it/real_npm_servers.rs` and `conformance/tests/it/real_pypi_servers.rs` \
         exact host; `adapter/tests/it/real_claude/`, \
         `adapter/tests/it/fidelity/`, `adapter/tests/it/cursor/real_agent.rs`, \
         `acp-client/tests/it/real_agents.rs` and the real-CLI tests of `testkit/tests/it/` native \
         interface; everything else fixture protocol.\n\n",
    );
    let _ = writeln!(s, "## Last authenticated model execution\n");
    match last_model_run(&runs) {
        Some(row) => {
            let _ = writeln!(
                s,
                "| Date | claude | adapter | model | result |\n|---|---|---|---|---|\n{row}\n"
            );
        }
        None => s.push_str(
            "Not run here: this machine has no account. The opt-in set and its procedure are in \
             [model-runs.md](model-runs.md); whoever runs it records the date and versions there.\n\n",
        ),
    }
    s.push_str("## Coverage\n\n| Id |");
    for c in Class::ALL {
        let _ = write!(s, " {} |", c.title());
    }
    s.push_str("\n|---|");
    for _ in Class::ALL {
        s.push_str("---|");
    }
    s.push('\n');
    // Until someone records a run, the authenticated tests cite ids but have never checked them:
    // their counts say so rather than read as coverage.
    let model_ran = last_model_run(&runs).is_some();
    let mut totals = [0usize; 4];
    let mut uncovered = Vec::new();
    let mut reasons = Vec::new();
    for id in &ids {
        let _ = write!(s, "| {id} |");
        let by = cov.get(id);
        for (i, c) in Class::ALL.iter().enumerate() {
            match by.and_then(|m| m.get(c)).map(BTreeSet::len) {
                Some(n) if n > 0 && *c == Class::Model && !model_ran => {
                    let _ = write!(s, " {n}, never run |");
                }
                Some(n) if n > 0 => {
                    totals[i] += 1;
                    let _ = write!(s, " {n} |");
                }
                _ => s.push_str(" - |"),
            }
        }
        s.push('\n');
        if by.is_none_or(BTreeMap::is_empty) {
            match not_testable.iter().find(|(n, _)| n == id) {
                Some(&(_, why)) => reasons.push((id.as_str(), why)),
                None => uncovered.push(id.as_str()),
            }
        }
    }
    let _ = write!(s, "\nIds covered, of {}:", ids.len());
    for (i, c) in Class::ALL.iter().enumerate() {
        let _ = write!(
            s,
            " {} {}{}",
            c.title().to_lowercase(),
            totals[i],
            if i + 1 < totals.len() { ";" } else { "." }
        );
    }
    s.push('\n');
    let fast = tier::fast_cited(repo)?;
    let _ = writeln!(
        s,
        "\nIds a fast-tier test cites (the README's test command, without `CMK_FULL`; \
         `testkit::evidence::tier` reads which tests are fast): {} of {}.",
        ids.iter().filter(|id| fast.contains(*id)).count(),
        ids.len()
    );
    if !reasons.is_empty() {
        s.push_str("\nNot testable, with the reason:\n\n");
        for (id, why) in reasons {
            let _ = writeln!(s, "- **{id}**: {why}.");
        }
    }
    if !uncovered.is_empty() {
        let _ = writeln!(s, "\nCited by no test: {}.", uncovered.join(", "));
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_ids_are_read_from_text() {
        let known: BTreeSet<&str> = ["RUN-1", "RUN-2", "RUN-3", "T3", "T3a", "C-T9", "ACP-9"]
            .into_iter()
            .collect();
        let got = cited(
            "RUN-1..3, T3a and (C-T9); not T3aa or XRUN-1. ACP-9.",
            &known,
        );
        let want: BTreeSet<String> = ["RUN-1", "RUN-2", "RUN-3", "T3a", "C-T9", "ACP-9"]
            .into_iter()
            .map(str::to_owned)
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn the_most_specific_path_rule_wins() {
        assert_eq!(class_of("adapter/tests/it/hosts/ts_sdk.rs"), Class::Host);
        assert_eq!(class_of("testkit/tests/it/standin_http.rs"), Class::Fixture);
        assert_eq!(class_of("testkit/tests/it/success.rs"), Class::Native);
        assert_eq!(class_of("adapter/tests/it/model/mod.rs"), Class::Model);
        assert_eq!(class_of("adapter/src/engine/tests.rs"), Class::Fixture);
    }

    #[test]
    fn contract_ids_are_the_bold_list_items() {
        let ids = contract_ids(
            "- **T1** a\n- **C-TOOL-6** b\n  - **T3a** c\n- **Note** d\n- **X-PAGE** e\n",
        );
        assert_eq!(ids, ["T1", "C-TOOL-6", "T3a", "X-PAGE"]);
    }

    #[test]
    fn one_grammar_for_ids_numbered_or_not() {
        for id in [
            "T2",
            "RUN-8",
            "META-WORK-5",
            "C-T6a",
            "X-PAGE",
            "UTF-8",
            "ACP-9",
        ] {
            assert!(is_contract_id(id), "{id}");
        }
        for not in [
            "run-8", "Note", "RUN-", "-RUN-8", "RUN--8", "X-PAGEs", "T6ab", "8", "",
        ] {
            assert!(!is_contract_id(not), "{not}");
        }
        assert_eq!(split_id("RUN-9"), Some(("RUN-", "9")));
        assert_eq!(split_id("C-T6a"), Some(("C-T", "6a")));
        assert_eq!(split_id("T2"), Some(("T", "2")));
        assert_eq!(split_id("X-PAGE"), None);
        assert_eq!(split_id("RUN"), None);
    }

    #[test]
    fn an_untestable_id_is_shown_with_its_reason_not_as_uncited() {
        let repo = tempfile::tempdir().expect("temp dir");
        let write = |rel: &str, text: &str| {
            let p = repo.path().join(rel);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(p, text).expect("write");
        };
        write(
            "docs/contract.md",
            "- **RUN-1** a run\n- **RUN-2** another\n- **META-X-1** a negative\n- **META-X-2** b\n",
        );
        write("adapter/tests/it/a.rs", "// RUN-1, META-X-2\n");
        let table = [
            ("META-X-1", "nothing to observe"),
            ("META-X-2", "cited anyway"),
        ];
        let text = generate_with(repo.path(), &table).expect("generate");
        assert!(
            text.ends_with(
                "\nNot testable, with the reason:\n\n- **META-X-1**: nothing to observe.\n\n\
                 Cited by no test: RUN-2.\n"
            ),
            "{text}"
        );
        assert!(
            !text.contains("cited anyway"),
            "a cited id is covered: {text}"
        );
        let text = generate_with(repo.path(), &[]).expect("generate");
        assert!(
            text.ends_with("\nCited by no test: RUN-2, META-X-1.\n"),
            "{text}"
        );
        assert!(!text.contains("Not testable"), "{text}");
    }

    #[test]
    fn authenticated_tests_count_as_coverage_only_once_a_run_is_recorded() {
        // An #[ignore]d opt-in test that nobody ran has checked nothing.
        let repo = tempfile::tempdir().expect("temp dir");
        let write = |rel: &str, text: &str| {
            let p = repo.path().join(rel);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(p, text).expect("write");
        };
        write("docs/contract.md", "- **RUN-1** a run\n");
        write("adapter/tests/it/model/mod.rs", "// RUN-1\n");
        write("docs/model-runs.md", "| Date | claude |\n|---|---|\n");
        let text = generate(repo.path()).expect("generate");
        assert!(
            text.contains("| RUN-1 | - | - | - | 1, never run |"),
            "{text}"
        );
        assert!(text.contains("authenticated model 0."), "{text}");

        write(
            "docs/model-runs.md",
            "| Date | claude |\n|---|---|\n| 2026-12-02 | 2.1.328 | 0.1.0 | m | pass |\n",
        );
        let text = generate(repo.path()).expect("generate");
        assert!(text.contains("| RUN-1 | - | - | - | 1 |"), "{text}");
        assert!(text.contains("authenticated model 1."), "{text}");
    }
}
