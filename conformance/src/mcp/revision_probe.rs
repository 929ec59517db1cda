//! Which MCP revisions a server supports, found beside the discovery session: each handshake
//! date is offered to a fresh server (`initialize`; the answer echoing the date means
//! supported), and the stateless era is detected by `server/discover` carrying its envelope on
//! another. The servers are started side by side, each bounded by the cases' base timeout
//! (GATE-LOAD-1), and shut down before any case starts; the discovery session's own offer is
//! not made twice. What they answered
//! is what `lifecycle/initialize/revisions` grades (T2).

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::core::client::{Client, Deadline, error_code};
use crate::core::transcript::{Entry, Transcript};
use crate::mcp::discovery::init_params;
use crate::mcp::revision::{Era, Revision, envelope};
use crate::mcp::target::Target;
use crate::mcp::watch::{Observer, Watch};

/// The observer numbers of the probes' servers (the discovery session's are 1 and 2).
const FIRST_PROBE_SERVER: u32 = 100;

/// What a server answered to one offer.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// A result naming this `protocolVersion` (or none: an empty string).
    Date(String),
    /// An error response, or no result object (shown).
    Refused(String),
    /// No answer within the timeout, or the server could not be talked to (why).
    Silent(String),
}

/// One offer and its answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Offer {
    /// The revision offered.
    pub offered: Revision,
    /// What came back.
    pub answered: Answer,
}

impl Offer {
    /// Whether the answer supports the offered revision (a handshake date echoed; for the
    /// stateless era a `server/discover` result).
    #[must_use]
    pub fn supported(&self) -> bool {
        match (&self.answered, self.offered.era()) {
            (Answer::Date(d), Era::Handshake) => d == self.offered.date(),
            (Answer::Date(_), Era::Stateless) => true,
            _ => false,
        }
    }

    /// The answer in words.
    #[must_use]
    pub fn shown(&self) -> String {
        let what = match (&self.answered, self.offered.era()) {
            (Answer::Date(d), Era::Handshake) => format!("answered {d:?}"),
            (Answer::Date(_), Era::Stateless) => "answered server/discover".to_owned(),
            (Answer::Refused(e), _) => format!("refused: {e}"),
            (Answer::Silent(why), _) => format!("no answer ({why})"),
        };
        format!("{} {what}", self.offered.date())
    }
}

/// Every offer made and its answer, and the probes' wire transcript.
#[derive(Debug, Clone, Default)]
pub struct Support {
    /// The offers, oldest revision first.
    pub offers: Vec<Offer>,
    /// The probes' exchanges (shown with `lifecycle/initialize/revisions`).
    pub transcript: Vec<Entry>,
}

impl Support {
    /// The revisions the server supports, oldest first.
    #[must_use]
    pub fn supported(&self) -> Vec<Revision> {
        self.offers
            .iter()
            .filter(|o| o.supported())
            .map(|o| o.offered)
            .collect()
    }

    /// Offers answered with a date that was not offered and that no known revision defines.
    #[must_use]
    pub fn undefined_answers(&self) -> Vec<&Offer> {
        self.offers
            .iter()
            .filter(|o| match &o.answered {
                Answer::Date(d) => {
                    o.offered.era() == Era::Handshake
                        && d != o.offered.date()
                        && Revision::parse(d).is_none()
                }
                _ => false,
            })
            .collect()
    }

    /// Every offer in words, `; `-separated.
    #[must_use]
    pub fn shown(&self) -> String {
        self.offers
            .iter()
            .map(Offer::shown)
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// Offers every known revision but `already` (the discovery session's own offer, recorded as
/// given) to servers of `target`, side by side, each within `timeout`.
pub async fn probe(target: &Target, timeout: Duration, watch: &Watch, already: Offer) -> Support {
    let mut set = tokio::task::JoinSet::new();
    for (n, revision) in (FIRST_PROBE_SERVER..).zip(Revision::ALL) {
        if revision == already.offered {
            continue;
        }
        let spec = target.spec.clone();
        let observer = Observer::new(watch.clone(), "discovery", 0, n);
        set.spawn(async move {
            let transcript = Transcript::new();
            transcript.note(&format!("offering revision {revision}"));
            let deadline = Deadline::at(Instant::now() + timeout);
            let answered = match Client::spawn(
                &spec,
                transcript.clone(),
                deadline,
                Some(std::sync::Arc::new(observer)),
            ) {
                Ok(mut client) => {
                    let answered = offer(&mut client, revision).await;
                    let handle = client.handle();
                    drop(client);
                    handle.shutdown().await;
                    answered
                }
                Err(e) => Answer::Silent(e.to_string()),
            };
            (
                Offer {
                    offered: revision,
                    answered,
                },
                transcript.entries(),
            )
        });
    }
    let mut offers = vec![(already, Vec::new())];
    while let Some(joined) = set.join_next().await {
        if let Ok(done) = joined {
            offers.push(done);
        }
    }
    offers.sort_by_key(|(o, _)| o.offered);
    let transcript = offers.iter().flat_map(|(_, t)| t.iter().cloned()).collect();
    Support {
        offers: offers.into_iter().map(|(o, _)| o).collect(),
        transcript,
    }
}

/// Offers `revision` on a fresh connection: `initialize` proposing its date, or for the
/// stateless era `server/discover` in its envelope.
async fn offer(client: &mut Client, revision: Revision) -> Answer {
    let asked = match revision.era() {
        Era::Handshake => {
            client
                .request("initialize", Some(init_params(Some(revision.date()))))
                .await
        }
        Era::Stateless => {
            client
                .request("server/discover", Some(envelope(json!({}), revision)))
                .await
        }
    };
    match asked {
        Ok(msg) => answer_of(&msg, revision),
        Err(e) => Answer::Silent(e.to_string()),
    }
}

/// What an answer to an offer of `revision` says.
#[must_use]
pub fn answer_of(msg: &Value, revision: Revision) -> Answer {
    // JSON-RPC 2.0 §5: a response carries result or error, never both. One with both is no
    // answer to build on (lifecycle/stdout/protocol-only grades its envelope): a `result` beside
    // an `error` must not make an error read as support.
    let result = msg.get("result").filter(|_| msg.get("error").is_none());
    match result {
        Some(r) if r.is_object() => match revision.era() {
            Era::Handshake => Answer::Date(
                r.get("protocolVersion")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
            ),
            // A discover result speaks for the stateless era unless its `supportedVersions`
            // (the list of what the server speaks) leaves the date out; a result without the
            // list is still the era's, and `lifecycle/2026-07-28/discover` grades its shape.
            Era::Stateless => {
                let names = r
                    .get("supportedVersions")
                    .and_then(Value::as_array)
                    .is_none_or(|v| v.iter().any(|d| d.as_str() == Some(revision.date())));
                if names {
                    Answer::Date(revision.date().to_owned())
                } else {
                    Answer::Refused(format!(
                        "a server/discover result whose supportedVersions does not name {}: {}",
                        revision.date(),
                        crate::core::checks::show(msg)
                    ))
                }
            }
        },
        _ if msg.get("result").is_some() && msg.get("error").is_some() => Answer::Refused(format!(
            "a response with both result and error: {}",
            crate::core::checks::show(msg)
        )),
        _ => Answer::Refused(match error_code(msg) {
            Some(code) => format!("error {code}"),
            None => crate::core::checks::show(msg),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offer(r: Revision, a: Answer) -> Offer {
        Offer {
            offered: r,
            answered: a,
        }
    }

    #[test]
    fn an_echo_is_support_and_an_undefined_date_is_found() {
        let s = Support {
            offers: vec![
                offer(Revision::R2024_11_05, Answer::Date("2025-07-01".into())),
                offer(Revision::R2025_06_18, Answer::Date("2025-06-18".into())),
                offer(Revision::R2025_11_25, Answer::Date("2025-06-18".into())),
                offer(
                    Revision::R2026_07_28,
                    Answer::Refused("error -32601".into()),
                ),
            ],
            transcript: Vec::new(),
        };
        assert_eq!(s.supported(), [Revision::R2025_06_18]);
        let undefined: Vec<Revision> = s.undefined_answers().iter().map(|o| o.offered).collect();
        assert_eq!(undefined, [Revision::R2024_11_05]);
        assert!(s.shown().contains("2026-07-28 refused: error -32601"));
    }

    #[test]
    fn a_discover_result_is_the_stateless_era() {
        let a = answer_of(
            &json!({"jsonrpc": "2.0", "id": 1, "result": {"supportedVersions": ["2026-07-28"]}}),
            Revision::R2026_07_28,
        );
        assert!(offer(Revision::R2026_07_28, a).supported());
        let refused = answer_of(
            &json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "x"}}),
            Revision::R2026_07_28,
        );
        assert_eq!(refused, Answer::Refused("error -32601".into()));
        let other = answer_of(
            &json!({"jsonrpc": "2.0", "id": 1, "result": {"supportedVersions": ["2025-06-18"]}}),
            Revision::R2026_07_28,
        );
        assert!(
            !offer(Revision::R2026_07_28, other).supported(),
            "a discover result that does not name 2026-07-28 is not that era"
        );
        let both = answer_of(
            &json!({"jsonrpc": "2.0", "id": 1, "result": {},
                    "error": {"code": -32601, "message": "x"}}),
            Revision::R2026_07_28,
        );
        assert!(
            matches!(&both, Answer::Refused(why) if why.contains("both result and error")),
            "an error that also carries a result is no discover answer: {both:?}"
        );
    }
}
