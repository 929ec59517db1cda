//! The MCP revisions the gate knows, which cases apply to which, and the expectations of the
//! rules that changed between them. A pure model (no I/O): discovery finds which revisions a
//! server supports (`revision_probe.rs`), and the runner grades each case on a connection of
//! its revision.
//!
//! Two eras: the handshake revisions (2024-11-05 to 2025-11-25) open a connection with
//! `initialize`; the stateless one (2026-07-28) has no `initialize`, every request carries
//! `params._meta["io.modelcontextprotocol/protocolVersion"]` (the envelope, [`envelope`]) and
//! discovery is `server/discover`.
//!
//! Most cases check a rule that reads the same in every handshake revision: they are graded
//! once, on the revision the discovery session negotiated ([`Applies::Once`]). A case about one
//! revision names it in its id ([`Applies::Pinned`]). A case whose rule changed is graded once
//! on the negotiated revision and again on a connection of each revision where the expectation
//! differs ([`Applies::Also`]), as an instance `ID@DATE`.

use serde_json::{Value, json};

/// One MCP revision, by its date.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Revision {
    /// 2024-11-05, the first published revision.
    R2024_11_05,
    /// 2025-03-26: JSON-RPC batches (a server MUST accept them).
    R2025_03_26,
    /// 2025-06-18: batches removed, structured tool output.
    R2025_06_18,
    /// 2025-11-25: tool names (SEP-986), input validation as tool errors (SEP-1303), JSON
    /// Schema 2020-12 as the default dialect (SEP-1613).
    R2025_11_25,
    /// 2026-07-28, the stateless era: no `initialize`, a per-request envelope,
    /// `server/discover`, resource-not-found `-32602` (SEP-2164).
    R2026_07_28,
}

/// How a connection of a revision is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    /// `initialize` proposing the date, then `notifications/initialized`.
    Handshake,
    /// No `initialize`: every request carries the envelope ([`envelope`]).
    Stateless,
}

/// The `_meta` key of the stateless era's per-request protocol version.
pub const ENVELOPE_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";

impl Revision {
    /// Every known revision, oldest first.
    pub const ALL: [Revision; 5] = [
        Revision::R2024_11_05,
        Revision::R2025_03_26,
        Revision::R2025_06_18,
        Revision::R2025_11_25,
        Revision::R2026_07_28,
    ];

    /// The revisions opened with `initialize`, oldest first.
    pub const HANDSHAKE: [Revision; 4] = [
        Revision::R2024_11_05,
        Revision::R2025_03_26,
        Revision::R2025_06_18,
        Revision::R2025_11_25,
    ];

    /// The revision the runner proposes by default and grades revision-independent cases on
    /// when the server supports it (T2's newest date).
    pub const DEFAULT: Revision = Revision::R2025_06_18;

    /// Its date, as proposed and answered on the wire.
    #[must_use]
    pub const fn date(self) -> &'static str {
        match self {
            Revision::R2024_11_05 => "2024-11-05",
            Revision::R2025_03_26 => "2025-03-26",
            Revision::R2025_06_18 => "2025-06-18",
            Revision::R2025_11_25 => "2025-11-25",
            Revision::R2026_07_28 => "2026-07-28",
        }
    }

    /// The revision of `date`, when it is a known one.
    #[must_use]
    pub fn parse(date: &str) -> Option<Revision> {
        Revision::ALL.into_iter().find(|r| r.date() == date)
    }

    /// How its connections are opened.
    #[must_use]
    pub const fn era(self) -> Era {
        match self {
            Revision::R2026_07_28 => Era::Stateless,
            _ => Era::Handshake,
        }
    }

    /// The known dates, for a usage error.
    #[must_use]
    pub fn known_dates() -> String {
        Revision::ALL.map(Revision::date).join(", ")
    }

    /// Resource not found (MCP server/resources, Error Handling): `-32002` up to 2025-11-25,
    /// `-32602` from 2026-07-28 (SEP-2164 standardises on invalid params). Up to 2025-11-25
    /// `-32602` is accepted too: servers already answer it, and SEP-2164 only names it.
    #[must_use]
    pub const fn resource_not_found_codes(self) -> &'static [i64] {
        match self {
            Revision::R2026_07_28 => &[-32602],
            _ => &[-32002, -32602],
        }
    }

    /// Whether a tool's input-validation failure may be a protocol error (`-32602`): the
    /// revisions up to 2025-06-18 list "invalid arguments" among a tool's protocol errors
    /// (server/tools, Error Handling); from 2025-11-25 (SEP-1303) it is a tool execution error,
    /// an `isError` result.
    #[must_use]
    pub fn invalid_arguments_may_be_protocol_error(self) -> bool {
        self < Revision::R2025_11_25
    }

    /// Whether a JSON-RPC batch must be accepted (2025-03-26 only; T5).
    #[must_use]
    pub fn requires_batches(self) -> bool {
        self == Revision::R2025_03_26
    }
}

impl std::fmt::Display for Revision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.date())
    }
}

/// Which revisions a case applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applies {
    /// The rule reads the same in every handshake revision: graded once, on the revision the
    /// discovery session negotiated.
    Once,
    /// The case is about one revision (its id names it): it proposes that date itself.
    Pinned(Revision),
    /// Graded once on the negotiated revision, and again on a connection of each listed
    /// revision, where the rule's expectation changed (instances `ID@DATE`).
    Also(&'static [Revision]),
}

/// The cases that are not [`Applies::Once`], by id. A test holds every id to the catalogue.
pub const APPLIES: &[(&str, Applies)] = &[
    (
        "lifecycle/initialize/version/2024-11-05",
        Applies::Pinned(Revision::R2024_11_05),
    ),
    (
        "lifecycle/initialize/version/2025-03-26",
        Applies::Pinned(Revision::R2025_03_26),
    ),
    (
        "lifecycle/initialize/version/2025-06-18",
        Applies::Pinned(Revision::R2025_06_18),
    ),
    (
        "jsonrpc/batch/2025-03-26",
        Applies::Pinned(Revision::R2025_03_26),
    ),
    (
        "jsonrpc/batch/rejected-2025-06-18",
        Applies::Pinned(Revision::R2025_06_18),
    ),
    (
        "jsonrpc/batch/rejected-2024-11-05",
        Applies::Pinned(Revision::R2024_11_05),
    ),
    // 2025-11-25's listing rules (SEP-986, SEP-1613), graded on a connection of it.
    (
        "tools/names/2025-11-25",
        Applies::Pinned(Revision::R2025_11_25),
    ),
    (
        "tools/schema/dialect/2025-11-25",
        Applies::Pinned(Revision::R2025_11_25),
    ),
    // 2025-11-25's display metadata of listed items (title, SEP-973 icons).
    (
        "listings/title/2025-11-25",
        Applies::Pinned(Revision::R2025_11_25),
    ),
    (
        "listings/icons/2025-11-25",
        Applies::Pinned(Revision::R2025_11_25),
    ),
    // SEP-1303: from 2025-11-25 an input-validation failure is an isError result.
    (
        "tools/call/wrong-typed-arguments",
        Applies::Also(&[Revision::R2025_11_25]),
    ),
    // The stateless era's own rules (catalogue/rev_2026_07_28.rs).
    (
        "lifecycle/2026-07-28/discover",
        Applies::Pinned(Revision::R2026_07_28),
    ),
    (
        "lifecycle/2026-07-28/envelope",
        Applies::Pinned(Revision::R2026_07_28),
    ),
    (
        "lifecycle/2026-07-28/envelope-missing",
        Applies::Pinned(Revision::R2026_07_28),
    ),
    (
        "lifecycle/2026-07-28/initialize-refused",
        Applies::Pinned(Revision::R2026_07_28),
    ),
    (
        "lifecycle/2026-07-28/legacy-refuses-envelope",
        Applies::Pinned(Revision::R2026_07_28),
    ),
    (
        "lifecycle/2026-07-28/stateless",
        Applies::Pinned(Revision::R2026_07_28),
    ),
    // SEP-2164: from 2026-07-28 a missing resource is -32602 only.
    (
        "resources/read/unknown",
        Applies::Also(&[Revision::R2026_07_28]),
    ),
];

/// Which revisions case `id` applies to (an instance `ID@…` as its case).
#[must_use]
pub fn applies(id: &str) -> Applies {
    let base = id.split('@').next().unwrap_or(id);
    APPLIES
        .iter()
        .find(|(case, _)| *case == base)
        .map_or(Applies::Once, |(_, a)| *a)
}

/// The revision an instance id names (`ID@DATE`), if any.
#[must_use]
pub fn of_instance(id: &str) -> Option<Revision> {
    id.rsplit_once('@')
        .and_then(|(_, tail)| Revision::parse(tail))
}

/// The revision case `id` is graded on, given the revision the base connection negotiated.
#[must_use]
pub fn of_case(id: &str, base: Revision) -> Revision {
    if let Some(r) = of_instance(id) {
        return r;
    }
    match applies(id) {
        Applies::Pinned(r) => r,
        Applies::Once | Applies::Also(_) => base,
    }
}

/// What `--list` and the catalogue table show of a case's revisions: its date, or `handshake`
/// for a case graded once on whichever handshake revision the server negotiates, followed by
/// `+DATE` for each revision where its rule changed (an instance `ID@DATE`).
#[must_use]
pub fn label(id: &str) -> String {
    if let Some(r) = of_instance(id) {
        return r.date().to_owned();
    }
    match applies(id) {
        Applies::Pinned(r) => r.date().to_owned(),
        Applies::Once => "handshake".to_owned(),
        Applies::Also(rs) => {
            let mut out = "handshake".to_owned();
            for r in rs {
                out.push_str(" +");
                out.push_str(r.date());
            }
            out
        }
    }
}

/// `params` with the stateless era's envelope for `revision` in `_meta` (kept beside any
/// `_meta` it has): the client's protocol version, identity and capabilities.
#[must_use]
pub fn envelope(params: Value, revision: Revision) -> Value {
    let mut params = match params {
        Value::Object(m) => m,
        _ => serde_json::Map::new(),
    };
    let meta = params
        .entry("_meta")
        .or_insert_with(|| Value::Object(serde_json::Map::new()));
    if let Value::Object(meta) = meta {
        meta.insert(ENVELOPE_VERSION_KEY.into(), json!(revision.date()));
        meta.insert(
            "io.modelcontextprotocol/clientInfo".into(),
            json!({"name": "mcp-conformance", "version": env!("CARGO_PKG_VERSION")}),
        );
        meta.insert(
            "io.modelcontextprotocol/clientCapabilities".into(),
            json!({}),
        );
    }
    Value::Object(params)
}

/// The revisions a run grades: those chosen (`--revision`; all when none) that the server
/// supports, and the one revision-independent cases are graded on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Graded {
    /// Chosen with `--revision` (every known one when none was given).
    pub chosen: Vec<Revision>,
    /// Supported by the server (discovery's probes).
    pub supported: Vec<Revision>,
    /// The revision revision-independent cases are graded on.
    pub base: Revision,
    /// Whether revision-independent cases are graded at all: a chosen handshake revision is
    /// spoken by the server.
    pub once: bool,
}

impl Graded {
    /// What a run grades, given the `chosen` revisions, the `supported` ones and the one the
    /// discovery session `negotiated`: revision-independent cases are graded on the negotiated
    /// revision when it is chosen, else on the newest chosen handshake revision the server
    /// supports (their handshakes then propose it), else, when the server negotiated no known
    /// revision, on what the default's offer opens, else not at all.
    #[must_use]
    pub fn new(
        chosen: Vec<Revision>,
        supported: Vec<Revision>,
        negotiated: Option<Revision>,
    ) -> Self {
        let base = negotiated
            .filter(|r| chosen.contains(r) && r.era() == Era::Handshake)
            .or_else(|| {
                chosen
                    .iter()
                    .rev()
                    .find(|r| r.era() == Era::Handshake && supported.contains(r))
                    .copied()
            })
            // The discovery session negotiated no known revision (a date none defines, an
            // answer under another id): the cases run on what the default offer opens, as the
            // cases that grade that answer (T2, the id rule) expect.
            .or_else(|| {
                (negotiated.is_none() && chosen.contains(&Revision::DEFAULT))
                    .then_some(Revision::DEFAULT)
            });
        Self {
            chosen,
            supported,
            base: base.unwrap_or(Revision::DEFAULT),
            once: base.is_some(),
        }
    }

    /// Whether the server supports the stateless era and no handshake revision.
    #[must_use]
    pub fn modern_only(&self) -> bool {
        modern_only(&self.supported)
    }

    /// Whether cases of `r` are run at all (chosen).
    #[must_use]
    pub fn chosen(&self, r: Revision) -> bool {
        self.chosen.contains(&r)
    }
}

/// Whether `supported` holds the stateless era and no handshake revision: a server of
/// 2026-07-28 alone, which refuses `initialize`.
#[must_use]
pub fn modern_only(supported: &[Revision]) -> bool {
    supported.contains(&Revision::R2026_07_28)
        && !supported.iter().any(|r| r.era() == Era::Handshake)
}

/// Parses `--revision` dates; `Err` names the unknown one.
pub fn parse_chosen(dates: &[String]) -> Result<Vec<Revision>, String> {
    if dates.is_empty() {
        return Ok(Revision::ALL.to_vec());
    }
    let mut out = Vec::new();
    for d in dates.iter().flat_map(|d| d.split(',')) {
        let r = Revision::parse(d.trim()).ok_or_else(|| {
            format!(
                "--revision {d}: not a known MCP revision (known: {})",
                Revision::known_dates()
            )
        })?;
        if !out.contains(&r) {
            out.push(r);
        }
    }
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instances_carry_their_revision_and_other_cases_the_base() {
        let base = Revision::R2025_06_18;
        assert_eq!(
            of_case("resources/read/unknown@2026-07-28", base),
            Revision::R2026_07_28
        );
        assert_eq!(of_case("resources/read/unknown", base), base);
        assert_eq!(
            of_case("jsonrpc/batch/2025-03-26", base),
            Revision::R2025_03_26
        );
        assert_eq!(of_case("runs/run/succeeded@cursor", base), base);
        assert_eq!(label("tools/list/shape"), "handshake");
        assert_eq!(label("resources/read/unknown"), "handshake +2026-07-28");
        assert_eq!(label("resources/read/unknown@2026-07-28"), "2026-07-28");
    }

    #[test]
    fn changed_rules_have_an_expectation_per_revision() {
        assert_eq!(
            Revision::R2025_06_18.resource_not_found_codes(),
            &[-32002, -32602]
        );
        assert_eq!(Revision::R2026_07_28.resource_not_found_codes(), &[-32602]);
        assert!(Revision::R2025_06_18.invalid_arguments_may_be_protocol_error());
        assert!(!Revision::R2025_11_25.invalid_arguments_may_be_protocol_error());
        let batches: Vec<Revision> = Revision::ALL
            .into_iter()
            .filter(|r| r.requires_batches())
            .collect();
        assert_eq!(batches, [Revision::R2025_03_26]);
    }

    #[test]
    fn revision_independent_cases_go_to_a_chosen_revision_the_server_speaks() {
        use Revision::{R2025_06_18, R2025_11_25, R2026_07_28};
        let both = vec![R2025_06_18, R2025_11_25];
        let g = Graded::new(Revision::ALL.to_vec(), both.clone(), Some(R2025_06_18));
        assert!(g.once && g.base == R2025_06_18);
        let g = Graded::new(vec![R2025_11_25], both.clone(), Some(R2025_06_18));
        assert!(g.once && g.base == R2025_11_25);
        // The chosen revision is not spoken: nothing is graded once on a date it would not echo.
        let g = Graded::new(vec![R2025_06_18], vec![R2025_11_25], Some(R2025_11_25));
        assert!(!g.once);
        let g = Graded::new(vec![R2026_07_28], Revision::ALL.to_vec(), Some(R2025_06_18));
        assert!(!g.once);
        // A server of the stateless era alone: nothing is graded once.
        let g = Graded::new(Revision::ALL.to_vec(), vec![R2026_07_28], Some(R2026_07_28));
        assert!(!g.once && g.modern_only());
        // No known revision negotiated: graded as the default offer opened, as before.
        let g = Graded::new(Revision::ALL.to_vec(), Vec::new(), None);
        assert!(g.once && g.base == R2025_06_18);
    }

    #[test]
    fn an_unknown_date_is_refused_by_name() {
        assert_eq!(
            parse_chosen(&["2025-11-25,2024-11-05".into()]),
            Ok(vec![Revision::R2024_11_05, Revision::R2025_11_25])
        );
        let e = parse_chosen(&["2025-07-01".into()]).unwrap_err();
        assert!(e.contains("2025-07-01") && e.contains("2026-07-28"), "{e}");
    }

    #[test]
    fn the_envelope_keeps_the_params_and_names_the_revision() {
        let p = envelope(
            json!({"uri": "x", "_meta": {"k": 1}}),
            Revision::R2026_07_28,
        );
        assert_eq!(p["uri"], "x");
        assert_eq!(p["_meta"]["k"], 1);
        assert_eq!(p["_meta"][ENVELOPE_VERSION_KEY], "2026-07-28");
    }
}
