//! The shared discovery session: one server started before the cases, initialized, its tools and
//! resources listed (following pagination). Metadata cases read it instead of starting servers of
//! their own; a server that cannot get this far makes the runner exit 2, except one that answers
//! under another id than the request's: that is the id rule's finding (`jsonrpc/response-ids`,
//! graded on discovery's exchanges like any case's), and every case that needs discovery is
//! blocked by it ([`Discovery::mislabelled`]).

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::core::client::{Client, ClientError, Frame, error_code};
use crate::core::transcript::{Entry, Transcript};
use crate::mcp::roles::Roles;
use crate::mcp::target::Target;
use crate::mcp::watch::{Observer, Watch};

/// The protocol version the runner proposes by default: the newest date the contract lists (T2),
/// which the TypeScript and Python SDKs also support.
pub const DEFAULT_VERSION: &str = "2025-06-18";
/// The error of `initialize` from a server of the stateless era alone (Python SDK 2.3.0:
/// UNSUPPORTED_PROTOCOL_VERSION).
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
/// Pages of a paginated listing the runner follows before calling it endless.
pub const MAX_PAGES: usize = 100;

/// Why discovery failed: the runner cannot do its job (exit 2).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DiscoveryError {
    /// Starting or talking to the server failed.
    #[error(transparent)]
    Client(#[from] ClientError),
    /// `initialize` was answered with an error or without a result object.
    #[error("initialize failed: {0}")]
    Initialize(String),
}

/// What one listing returned.
#[derive(Debug, Clone, PartialEq)]
pub struct Listing {
    /// Every item over all pages.
    pub items: Vec<Value>,
    /// How many pages were read.
    pub pages: usize,
    /// The first problem with a page's answer (an error, no array), if any.
    pub problem: Option<String>,
    /// The first problem with the paging itself (a cursor loop, a cursor that is no string,
    /// no end within the page bound), if any: the pagination rule's finding, so the listing
    /// rules do not fail on it too (the items read so far may repeat).
    pub paging_problem: Option<String>,
}

/// The discovery snapshot every case may read.
#[derive(Debug, Clone)]
pub struct Discovery {
    /// The `initialize` request's `result`.
    pub init: Value,
    /// The answered `protocolVersion`.
    pub protocol_version: Option<String>,
    /// The answered `serverInfo`.
    pub server_info: Option<Value>,
    /// `tools/list` over all pages (`None`: the server declares no tools capability).
    pub tools: Option<Listing>,
    /// `resources/list` over all pages (`None`: no resources capability).
    pub resources: Option<Listing>,
    /// Tool roles of the computer-mcp contract found in the listing.
    pub roles: Roles,
    /// stdout lines of the discovery session that were not valid JSON-RPC messages (T1): the
    /// reason and the line, see [`crate::core::client::message_problem`].
    pub stdout_problems: Vec<String>,
    /// The wire transcript of the discovery session.
    pub transcript: Vec<Entry>,
    /// Discovery stopped at a request answered under another id (the timeout's text): what it
    /// holds is incomplete, and the cases are blocked by the id rule.
    pub mislabelled: Option<String>,
    /// How long the server took from its spawn to its `initialize` answer (the attempt that
    /// was answered): every case's deadlines scale with it (GATE-LOAD-1).
    pub startup: Duration,
}

/// The text of a wait that ended at an answer under another id (JSON-RPC 2.0 §5).
fn mislabelled(e: &ClientError) -> Option<String> {
    matches!(
        e,
        ClientError::Timeout {
            foreign_id: true,
            ..
        }
    )
    .then(|| e.to_string())
}

/// How long after `spawned` the server's first line came, for a wait that ended at an answer
/// under another id: the server was up and answering then, so the deadlines scale with that
/// (GATE-LOAD-1), not with the whole wait the answer's wrong id cost. The wait's own length
/// when nothing dated arrived.
fn first_line_after(e: &ClientError, spawned: Instant) -> Duration {
    let waited = spawned.elapsed();
    match e {
        ClientError::Timeout {
            ms,
            first_ms: Some(first),
            ..
        } => waited.saturating_sub(Duration::from_millis(ms.saturating_sub(*first))),
        _ => waited,
    }
}

impl Discovery {
    /// The listed tools (empty without the capability).
    #[must_use]
    pub fn tools(&self) -> &[Value] {
        self.tools.as_ref().map_or(&[], |l| l.items.as_slice())
    }

    /// Runs discovery against `target` within `timeout`, recording into `transcript` (which
    /// the caller shows when discovery fails).
    /// A server that does not answer `initialize` within the timeout is given up and a second
    /// one started (a slow start under load); a second silence fails discovery (exit 2).
    pub async fn run(
        target: &Target,
        timeout: Duration,
        transcript: Transcript,
        watch: &Watch,
    ) -> Result<(Self, Client), DiscoveryError> {
        let mut attempt = 0;
        let mut spawned: Instant;
        let (mut client, init) = loop {
            attempt += 1;
            spawned = Instant::now();
            let observer = Observer::new(watch.clone(), "discovery", 0, attempt);
            let mut client = Client::spawn(
                &target.spec,
                transcript.clone(),
                crate::core::client::Deadline::at(Instant::now() + timeout),
                Some(std::sync::Arc::new(observer)),
            )?;
            match initialize(&mut client, DEFAULT_VERSION).await {
                Ok(init) => break (client, init),
                Err(e) if let Some(why) = mislabelled(&e) => {
                    let discovery = Self::incomplete(Value::Null, None, None, &client, &transcript);
                    let startup = first_line_after(&e, spawned);
                    return Ok((discovery.with_mislabelled(why, startup), client));
                }
                Err(ClientError::Timeout {
                    foreign_id: false, ..
                }) if attempt == 1 => {
                    transcript.note(
                        "initialize not answered in time; this server is given up and another \
                         started (once)",
                    );
                    let handle = client.handle();
                    drop(client);
                    handle.shutdown().await;
                }
                Err(e) => return Err(e.into()),
            }
        };
        let startup = spawned.elapsed();
        if error_code(&init) == Some(UNSUPPORTED_PROTOCOL_VERSION) {
            return Self::stateless(client, transcript, startup).await;
        }
        let result = match init.get("result") {
            Some(r) if r.is_object() => r.clone(),
            _ => {
                return Err(DiscoveryError::Initialize(crate::core::checks::show(&init)));
            }
        };
        client.notify("notifications/initialized", None).await?;
        let caps = result.get("capabilities").cloned().unwrap_or(Value::Null);
        let tools = if caps.get("tools").is_some() {
            match list_all(&mut client, "tools/list", "tools").await {
                Ok(l) => Some(l),
                Err(e) if let Some(why) = mislabelled(&e) => {
                    let discovery = Self::incomplete(result, None, None, &client, &transcript);
                    return Ok((discovery.with_mislabelled(why, startup), client));
                }
                Err(e) => return Err(e.into()),
            }
        } else {
            None
        };
        let resources = if caps.get("resources").is_some() {
            match list_all(&mut client, "resources/list", "resources").await {
                Ok(l) => Some(l),
                Err(e) if let Some(why) = mislabelled(&e) => {
                    let discovery = Self::incomplete(result, tools, None, &client, &transcript);
                    return Ok((discovery.with_mislabelled(why, startup), client));
                }
                Err(e) => return Err(e.into()),
            }
        } else {
            None
        };
        // A short wait so a line written right after the listings is seen too.
        let _: Vec<Frame> = client.collect(Duration::from_millis(50)).await?;
        let stdout_problems = client.stdout_problems();
        let roles = Roles::find(tools.as_ref().map_or(&[], |l| l.items.as_slice()));
        watch.set_listed(
            tools
                .iter()
                .flat_map(|l| &l.items)
                .filter_map(|t| t.get("name").and_then(Value::as_str))
                .map(str::to_owned)
                .collect(),
        );
        watch.set_output_schemas(tools.iter().flat_map(|l| &l.items));
        Ok((
            Self {
                protocol_version: result
                    .get("protocolVersion")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                server_info: result.get("serverInfo").cloned(),
                init: result,
                tools,
                resources,
                roles,
                stdout_problems,
                transcript: transcript.entries(),
                mislabelled: None,
                startup,
            },
            client,
        ))
    }

    /// A server that refused `initialize` with `-32022` (a server of the stateless era
    /// alone, as the Python SDK 2.3.0 names it: UNSUPPORTED_PROTOCOL_VERSION) is discovered by
    /// `server/discover` in the 2026-07-28 envelope on the same connection: its result stands
    /// for `initialize`'s, and the negotiated revision is 2026-07-28. The listings are not
    /// read (the handshake-era cases that read them say `skip: revision not supported`).
    async fn stateless(
        mut client: Client,
        transcript: Transcript,
        startup: Duration,
    ) -> Result<(Self, Client), DiscoveryError> {
        let modern = crate::mcp::revision::Revision::R2026_07_28;
        let answer = client
            .request(
                "server/discover",
                Some(crate::mcp::revision::envelope(json!({}), modern)),
            )
            .await?;
        let result = match answer.get("result") {
            Some(r) if r.is_object() => r.clone(),
            _ => {
                return Err(DiscoveryError::Initialize(format!(
                    "initialize refused with -32022 and server/discover in the 2026-07-28 \
                     envelope answered {}",
                    crate::core::checks::show(&answer)
                )));
            }
        };
        let mut discovery = Self::incomplete(result, None, None, &client, &transcript);
        discovery.protocol_version = Some(modern.date().to_owned());
        discovery.startup = startup;
        Ok((discovery, client))
    }

    /// What discovery holds when it stopped early (`init` Null when `initialize` itself was
    /// not answered under its id).
    fn incomplete(
        init: Value,
        tools: Option<Listing>,
        resources: Option<Listing>,
        client: &Client,
        transcript: &Transcript,
    ) -> Self {
        Self {
            protocol_version: init
                .get("protocolVersion")
                .and_then(Value::as_str)
                .map(str::to_owned),
            server_info: init.get("serverInfo").cloned(),
            roles: Roles::find(tools.as_ref().map_or(&[], |l| l.items.as_slice())),
            init,
            tools,
            resources,
            stdout_problems: client.stdout_problems(),
            transcript: transcript.entries(),
            mislabelled: None,
            startup: Duration::ZERO,
        }
    }

    fn with_mislabelled(mut self, why: String, startup: Duration) -> Self {
        self.mislabelled = Some(why);
        self.startup = startup;
        self
    }
}

/// Sends `initialize` proposing `version` and returns the whole answer.
pub async fn initialize(client: &mut Client, version: &str) -> Result<Value, ClientError> {
    client
        .request("initialize", Some(init_params(Some(version))))
        .await
}

/// `initialize` params as a plain client sends them; `None` omits `protocolVersion`.
#[must_use]
pub fn init_params(version: Option<&str>) -> Value {
    let mut p = json!({
        "capabilities": {},
        "clientInfo": {"name": "mcp-conformance", "version": env!("CARGO_PKG_VERSION")}
    });
    if let (Some(v), Some(obj)) = (version, p.as_object_mut()) {
        obj.insert("protocolVersion".into(), json!(v));
    }
    p
}

/// Follows `nextCursor` until the end, a problem, or [`MAX_PAGES`].
pub async fn list_all(
    client: &mut Client,
    method: &str,
    key: &str,
) -> Result<Listing, ClientError> {
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    let mut seen_cursors = std::collections::HashSet::new();
    for page in 1..=MAX_PAGES {
        let params = cursor.as_ref().map(|c| json!({"cursor": c}));
        let msg = client.request(method, params).await?;
        let Some(result) = msg.get("result") else {
            let problem = format!("{method} answered an error (code {:?})", error_code(&msg));
            return Ok(Listing {
                items,
                pages: page,
                problem: Some(problem),
                paging_problem: None,
            });
        };
        let Some(list) = result.get(key).and_then(Value::as_array) else {
            let problem = format!("{method} result has no \"{key}\" array");
            return Ok(Listing {
                items,
                pages: page,
                problem: Some(problem),
                paging_problem: None,
            });
        };
        items.extend(list.iter().cloned());
        match result.get("nextCursor") {
            None | Some(Value::Null) => {
                return Ok(Listing {
                    items,
                    pages: page,
                    problem: None,
                    paging_problem: None,
                });
            }
            Some(Value::String(next)) => {
                if !seen_cursors.insert(next.clone()) {
                    let problem = format!("{method} returned cursor {next:?} twice (a loop)");
                    return Ok(Listing {
                        items,
                        pages: page,
                        problem: None,
                        paging_problem: Some(problem),
                    });
                }
                cursor = Some(next.clone());
            }
            Some(other) => {
                let problem = format!("{method} nextCursor is not a string: {other}");
                return Ok(Listing {
                    items,
                    pages: page,
                    problem: None,
                    paging_problem: Some(problem),
                });
            }
        }
    }
    Ok(Listing {
        items,
        pages: MAX_PAGES,
        problem: None,
        paging_problem: Some(format!("{method} did not end within {MAX_PAGES} pages")),
    })
}
