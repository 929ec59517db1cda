//! The seven tools (TOOL-1): names in both projections, titles, descriptions, input schemas
//! (TOOL-2, RUN-0), output schemas (TOOL-6, [`crate::output_schema`]), annotations and `_meta`
//! declarations (META-RISK, META-WORK-1, META-CONT).
//!
//! This table is the single source of truth: `tools/list` shows exactly these definitions, and
//! `tools/call` validates arguments with validators compiled once from the very same schemas (see
//! [`Catalogue::new`]). Start-up does not wait for them: each validator is compiled on its tool's
//! first call ([`LazyValidator`]), and the `tools/list` answer is serialised once, on first use
//! ([`Catalogue::tools_list_json`]), so `initialize` is answered within 5 ms of process start
//! (`bench/startup.md`).

use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value, json};

use cmk_engine::ToolNames;
use cmk_engine::jsonout::SCHEMA_MAX_BYTES;
use cmk_engine::provider::Provider;
use cmk_engine::tools::{DEFAULT_LOOP_LIMIT, LOOP_LIMIT_MAX, LOOP_LIMIT_MIN};

/// The `_meta` namespace prefix of this contract (section 3).
pub const META_NS: &str = "io.github.computer-mcp/";
/// `_meta` key of the risk class (META-RISK-1).
pub(crate) const META_RISK: &str = "io.github.computer-mcp/risk";
/// `_meta` key of the work declaration (META-WORK-1).
pub(crate) const META_WORK: &str = "io.github.computer-mcp/work";
/// `_meta` key of the continuation declaration (META-CONT-1).
pub(crate) const META_CONTINUATION: &str = "io.github.computer-mcp/continuation";
/// `tools/call` `_meta` key carrying the acquiring invocation's UUID (META-WORK-4).
pub(crate) const META_WORK_INVOCATION: &str = "io.github.computer-mcp/work-invocation";
/// The work resource (META-WORK-1, META-WORK-2).
pub const WORK_URI: &str = "computer-mcp://runtime/work/v1";

/// RUN-0: the prompt is one argv string, bounded by Linux's `MAX_ARG_STRLEN` (128 KiB).
pub(crate) const PROMPT_MAX_BYTES: usize = 128 * 1024;
/// RUN-0: `timeout_s` default.
pub const DEFAULT_TIMEOUT_S: u64 = 600;
/// RUN-0: `.events` `limit` default and maximum.
pub(crate) const EVENTS_LIMIT_DEFAULT: u64 = 64;
/// RUN-0: `.events` `limit` maximum.
pub(crate) const EVENTS_LIMIT_MAX: u64 = 256;
/// RUN-0: `run_id` length bound.
pub(crate) const RUN_ID_MAX: u64 = 128;
/// RUN-0: `cursor` length bound.
pub(crate) const CURSOR_MAX: u64 = 256;
/// PATH_MAX: a longer `cwd` cannot name a directory.
const CWD_MAX: u64 = 4096;

/// No NUL: these strings become argv entries, which cannot hold one (NAT-1).
const NO_NUL_PATTERN: &str = "^[^\\u0000]*$";

/// The seven tool roles (TOOL-1), shared by every provider namespace (PROV-2).
pub use cmk_engine::provider::Role as ToolKind;

/// The wire name of a role in a namespace under the chosen projection (TOOL-1, PROV-2).
#[must_use]
pub fn tool_name(namespace: &str, kind: ToolKind, names: ToolNames) -> String {
    names.project(&format!("{namespace}.run{}", kind.suffix()))
}

/// What the catalogue derives from a role.
trait RoleExt {
    fn risk(self) -> &'static str;
    fn continues_a_run(self) -> bool;
    fn annotations(self, title: &str) -> Value;
    fn input_schema(self, max_timeout_s: u64, provider: &dyn Provider) -> Value;
    fn meta(self, namespace: &str) -> Value;
}

impl RoleExt for ToolKind {
    fn risk(self) -> &'static str {
        // META-RISK-2.
        match self {
            ToolKind::Run | ToolKind::Start => "full-shell",
            ToolKind::List | ToolKind::Result | ToolKind::Events => "read-only",
            ToolKind::Cancel | ToolKind::Release => "destructive",
        }
    }

    fn continues_a_run(self) -> bool {
        // META-CONT-1 / META-CONT-2.
        matches!(
            self,
            ToolKind::Result | ToolKind::Events | ToolKind::Cancel | ToolKind::Release
        )
    }

    /// Standard annotations; never claim less than the risk (META-RISK-3).
    fn annotations(self, title: &str) -> Value {
        match self.risk() {
            "read-only" => json!({
                "title": title,
                "readOnlyHint": true,
                "destructiveHint": false,
                "idempotentHint": true,
                "openWorldHint": false
            }),
            "destructive" => json!({
                "title": title,
                "readOnlyHint": false,
                "destructiveHint": true,
                "idempotentHint": true,
                "openWorldHint": false
            }),
            _ => json!({
                "title": title,
                "readOnlyHint": false,
                "destructiveHint": true,
                "idempotentHint": false,
                "openWorldHint": true
            }),
        }
    }

    /// The `inputSchema` (TOOL-2, RUN-0, BND-4).
    fn input_schema(self, max_timeout_s: u64, provider: &dyn Provider) -> Value {
        let mut props = Map::new();
        let mut required: Vec<&str> = Vec::new();
        match self {
            ToolKind::Run | ToolKind::Start => {
                run_properties(&mut props, max_timeout_s, provider);
                if self == ToolKind::Run {
                    props.insert(
                        "detach_after_s".into(),
                        json!({
                            "type": "integer",
                            "minimum": 1,
                            "maximum": max_timeout_s,
                            "description": "Return the run_id after this many seconds; the \
                                run goes on."
                        }),
                    );
                }
                required.push("prompt");
            }
            ToolKind::List => {}
            ToolKind::Result | ToolKind::Events | ToolKind::Cancel | ToolKind::Release => {
                props.insert(
                    "run_id".into(),
                    json!({
                        "type": "string",
                        "minLength": 1,
                        "maxLength": RUN_ID_MAX
                    }),
                );
                required.push("run_id");
                if self == ToolKind::Events {
                    props.insert(
                        "cursor".into(),
                        json!({
                            "type": "string",
                            "maxLength": CURSOR_MAX,
                            "description": "A page's next_cursor; omit for the first page."
                        }),
                    );
                    props.insert(
                        "limit".into(),
                        json!({
                            "type": "integer",
                            "minimum": 1,
                            "maximum": EVENTS_LIMIT_MAX,
                            "default": EVENTS_LIMIT_DEFAULT
                        }),
                    );
                }
            }
        }
        // No `$schema`: MCP reads a schema without one as 2020-12, and every byte here is read
        // into a model's context with `tools/list`.
        let mut schema = Map::new();
        schema.insert("type".into(), "object".into());
        schema.insert("properties".into(), Value::Object(props));
        if !required.is_empty() {
            schema.insert("required".into(), json!(required));
        }
        schema.insert("additionalProperties".into(), false.into());
        Value::Object(schema)
    }

    /// The `_meta` declarations (META-RISK-1, META-WORK-1, META-CONT-1/2).
    fn meta(self, namespace: &str) -> Value {
        let mut m = Map::new();
        m.insert(META_RISK.into(), self.risk().into());
        m.insert(
            META_WORK.into(),
            json!({"format_version": 1, "uri": WORK_URI}),
        );
        if self.continues_a_run() {
            m.insert(
                META_CONTINUATION.into(),
                json!({"format_version": 1, "kind": format!("{namespace}.run"), "id_pointer": "/run_id"}),
            );
        }
        Value::Object(m)
    }
}

/// RUN-0 arguments shared by `<ns>.run` and `<ns>.run.start`: `prompt`, `cwd` and `timeout_s`
/// belong to the adapter; every other option is the provider's (PROV-1), so the schema offers
/// exactly what the provider can carry (for claude: what argv can carry, from the cli tree).
fn run_properties(props: &mut Map<String, Value>, max_timeout_s: u64, provider: &dyn Provider) {
    props.insert(
        "prompt".into(),
        json!({
            "type": "string",
            "minLength": 1,
            // Characters; the byte bound (128 KiB of UTF-8) is enforced as well.
            "maxLength": PROMPT_MAX_BYTES,
            "pattern": NO_NUL_PATTERN,
            "description": provider.texts().prompt_description()
        }),
    );
    props.insert(
        "cwd".into(),
        json!({
            "type": "string",
            "minLength": 1,
            "maxLength": CWD_MAX,
            "pattern": "^/[^\\u0000]*$",
            "description": "Absolute; default the adapter's."
        }),
    );
    props.insert(
        "timeout_s".into(),
        json!({
            "type": "integer",
            "minimum": 1,
            "maximum": max_timeout_s,
            "default": DEFAULT_TIMEOUT_S.min(max_timeout_s)
        }),
    );
    // LOOP-4, JSONOUT-1: the engine's own, the same for every provider.
    props.insert(
        "loop_guard".into(),
        json!({
            "type": "string",
            "enum": ["on", "off"],
            "default": "on",
            "description": "`on`: fail `loop_detected` when one tool call repeats over \
                loop_limit times."
        }),
    );
    props.insert(
        "loop_limit".into(),
        json!({
            "type": "integer",
            "minimum": LOOP_LIMIT_MIN,
            "maximum": LOOP_LIMIT_MAX,
            "default": DEFAULT_LOOP_LIMIT
        }),
    );
    props.insert(
        "json_schema".into(),
        json!({
            "type": "object",
            "description": format!(
                "Schema (≤ {SCHEMA_MAX_BYTES} bytes) of the JSON object the run must end \
                 with, returned as `structured`."
            )
        }),
    );
    for opt in provider.options() {
        props.insert(opt.name, opt.schema);
    }
}

/// Byte bounds of string arguments (RUN-0): JSON Schema's `maxLength` counts characters.
fn byte_bounds(kind: ToolKind, provider: &dyn Provider) -> Vec<(String, usize)> {
    if !matches!(kind, ToolKind::Run | ToolKind::Start) {
        return Vec::new();
    }
    let mut bounds = vec![("prompt".to_owned(), PROMPT_MAX_BYTES)];
    for opt in provider.options() {
        if let Some(b) = opt.max_bytes {
            bounds.push((opt.name, b));
        }
    }
    bounds
}

/// One tool: its listing and its compiled validator.
pub struct Tool {
    /// Which role.
    pub kind: ToolKind,
    /// The provider namespace it belongs to (PROV-2).
    pub namespace: &'static str,
    /// Its wire name under the configured projection.
    pub name: String,
    /// Its `tools/list` entry.
    pub listing: Value,
    /// The validator of `listing.inputSchema`, compiled on first use.
    pub validator: LazyValidator,
    /// String arguments bounded in UTF-8 bytes, with their bound (RUN-0).
    pub byte_bounds: Vec<(String, usize)>,
}

impl std::fmt::Debug for Tool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tool").field("name", &self.name).finish()
    }
}

/// A tool's input-schema validator, compiled on first use and then kept: it dereferences to the
/// compiled [`jsonschema::Validator`]. Compiling all of them at start-up cost more time than
/// answering `initialize` and memory that a session listing tools never needs.
pub struct LazyValidator {
    tool: String,
    schema: Value,
    compiled: OnceLock<jsonschema::Validator>,
}

impl LazyValidator {
    fn new(tool: String, schema: Value) -> Self {
        Self {
            tool,
            schema,
            compiled: OnceLock::new(),
        }
    }

    /// Compiles the schema now (tests prove every catalogue schema compiles).
    pub fn compile(&self) -> Result<&jsonschema::Validator, CatalogueError> {
        if let Some(v) = self.compiled.get() {
            return Ok(v);
        }
        let v = jsonschema::draft202012::new(&self.schema).map_err(|e| CatalogueError {
            tool: self.tool.clone(),
            message: e.to_string(),
        })?;
        Ok(self.compiled.get_or_init(|| v))
    }
}

impl std::ops::Deref for LazyValidator {
    type Target = jsonschema::Validator;

    fn deref(&self) -> &jsonschema::Validator {
        match self.compile() {
            Ok(v) => v,
            Err(e) => {
                // A programming error the catalogue's tests rule out: refuse every argument set
                // rather than accept unvalidated ones, and say why.
                cmk_engine::diag::emit(format!("claude-mcp-adapter: {e}"));
                self.compiled.get_or_init(refuse_all)
            }
        }
    }
}

#[expect(
    clippy::expect_used,
    reason = "the constant schema `false` always compiles"
)]
fn refuse_all() -> jsonschema::Validator {
    jsonschema::draft202012::new(&Value::Bool(false)).expect("`false` is a valid schema")
}

/// A schema of the catalogue does not compile (a programming error caught at start-up).
#[derive(Debug, thiserror::Error)]
#[error("the input schema of {tool} does not compile: {message}")]
pub struct CatalogueError {
    tool: String,
    message: String,
}

/// The seven tools of each provider under one configuration.
#[derive(Debug)]
pub struct Catalogue {
    tools: Vec<Tool>,
    /// Largest `timeout_s` (BND-4).
    pub max_timeout_s: u64,
    /// The name projection every text uses (TOOL-1).
    pub names: ToolNames,
    instructions: String,
    server_title: String,
    resource_title: String,
    resource_description: String,
    /// The `tools/list` result, serialised once on first use.
    tools_list_json: OnceLock<Arc<str>>,
}

/// Rewrites every tool name of `namespaces` in `text` into the projection (TOOL-1): a host that
/// follows a description must find the name it reads in `tools/list`.
#[must_use]
pub fn project(text: &str, names: ToolNames, namespaces: &[&str]) -> String {
    if names == ToolNames::Dotted {
        return text.to_owned();
    }
    let mut out = text.to_owned();
    for ns in namespaces {
        // Longest first, so `claude.run.result` is not read as `claude.run` + `.result`.
        let mut kinds = ToolKind::ALL;
        kinds.sort_by_key(|k| std::cmp::Reverse(k.suffix().len()));
        for kind in kinds {
            let dotted = tool_name(ns, kind, ToolNames::Dotted);
            out = out.replace(&dotted, &tool_name(ns, kind, names));
        }
    }
    out
}

/// [`project`] applied to every `description` string of a listing.
fn project_descriptions(v: &mut Value, names: ToolNames, namespaces: &[&str]) {
    match v {
        Value::Object(m) => {
            for (k, child) in m.iter_mut() {
                match child {
                    Value::String(s) if k == "description" => {
                        *s = project(s, names, namespaces);
                    }
                    other => project_descriptions(other, names, namespaces),
                }
            }
        }
        Value::Array(a) => a
            .iter_mut()
            .for_each(|c| project_descriptions(c, names, namespaces)),
        _ => {}
    }
}

/// A listing with `outputSchema` right after `inputSchema`.
fn with_output_schema(listing: &Value, schema: Option<&Value>) -> Value {
    let Value::Object(m) = listing else {
        return listing.clone();
    };
    let mut out = Map::with_capacity(m.len() + 1);
    for (k, v) in m {
        out.insert(k.clone(), v.clone());
        if k == "inputSchema"
            && let Some(s) = schema
        {
            out.insert("outputSchema".into(), s.clone());
        }
    }
    Value::Object(out)
}

impl Catalogue {
    /// Builds the listings of every provider's seven tools (its options from the provider,
    /// PROV-1) and compiles each input schema once.
    pub fn new(
        names: ToolNames,
        max_timeout_s: u64,
        providers: &[Arc<dyn Provider>],
    ) -> Result<Self, CatalogueError> {
        let mut tools = Vec::with_capacity(ToolKind::ALL.len() * providers.len());
        let namespaces: Vec<&str> = providers.iter().map(|p| p.namespace()).collect();
        for provider in providers {
            let ns = provider.namespace();
            let texts = provider.texts();
            for kind in ToolKind::ALL {
                let name = tool_name(ns, kind, names);
                let schema = kind.input_schema(max_timeout_s, provider.as_ref());
                let validator =
                    LazyValidator::new(tool_name(ns, kind, ToolNames::Dotted), schema.clone());
                let mut listing = json!({
                    "name": name,
                    "title": texts.title(kind),
                    "description": texts.description(kind),
                    "inputSchema": schema,
                    "annotations": kind.annotations(texts.title(kind)),
                    "_meta": kind.meta(ns),
                });
                project_descriptions(&mut listing, names, &namespaces);
                tools.push(Tool {
                    kind,
                    namespace: ns,
                    name,
                    listing,
                    validator,
                    byte_bounds: byte_bounds(kind, provider.as_ref()),
                });
            }
        }
        let instructions: Vec<&str> = providers.iter().map(|p| p.texts().instructions()).collect();
        let (resource_title, kinds) = match providers {
            [one] => (
                format!("{} runs held by this adapter", one.texts().product()),
                format!("{}.run", one.namespace()),
            ),
            _ => (
                "Agent runs held by this adapter".to_owned(),
                namespaces
                    .iter()
                    .map(|ns| format!("{ns}.run"))
                    .collect::<Vec<_>>()
                    .join(" and "),
            ),
        };
        let server_title = providers
            .iter()
            .map(|p| p.texts().server_title())
            .collect::<Vec<_>>()
            .join(" and ");
        let resource_description = format!(
            "The work snapshot: every retained {kinds} of this adapter process with its state \
             and acquiring invocation (format_version 1)."
        );
        Ok(Self {
            tools,
            max_timeout_s,
            names,
            instructions: project(&instructions.join("\n\n"), names, &namespaces),
            server_title,
            resource_title,
            resource_description: project(&resource_description, names, &namespaces),
            tools_list_json: OnceLock::new(),
        })
    }

    /// The `tools/list` result `{"tools":[…]}` as compact JSON, serialised once (on first use)
    /// from the listings, so every later `tools/list` copies bytes instead of building a tree.
    /// Each listing gains its `outputSchema` (TOOL-6) here, after `inputSchema`: generated once
    /// per role for this answer and then dropped, so no schema tree stays in memory.
    #[must_use]
    pub fn tools_list_json(&self) -> Arc<str> {
        let mut built = false;
        let json = self
            .tools_list_json
            .get_or_init(|| {
                built = true;
                let schemas = ToolKind::ALL.map(crate::output_schema::for_role);
                let tools: Vec<Value> = self
                    .tools
                    .iter()
                    .map(|t| {
                        let at = ToolKind::ALL.iter().position(|k| *k == t.kind);
                        with_output_schema(&t.listing, at.and_then(|i| schemas.get(i)))
                    })
                    .collect();
                Arc::from(serde_json::json!({ "tools": tools }).to_string())
            })
            .clone();
        if built {
            // The trees the listing was built from are freed by now; most hosts list once and
            // then idle, and an idle adapter should hold little memory (`bench/startup.md`).
            crate::alloc::trim_idle();
        }
        json
    }

    /// A tool's listing exactly as `tools/list` shows it, `outputSchema` included.
    #[must_use]
    pub fn listed(&self, tool: &Tool) -> Value {
        let schema = crate::output_schema::for_role(tool.kind);
        with_output_schema(&tool.listing, Some(&schema))
    }

    /// The server's `instructions`, in the projection (T2, TOOL-1).
    #[must_use]
    pub fn instructions(&self) -> &str {
        &self.instructions
    }

    /// `serverInfo.title`: what this server runs.
    #[must_use]
    pub fn server_title(&self) -> &str {
        &self.server_title
    }

    /// The work resource's title.
    #[must_use]
    pub(crate) fn resource_title(&self) -> &str {
        &self.resource_title
    }

    /// The work resource's description, in the projection.
    #[must_use]
    pub(crate) fn resource_description(&self) -> &str {
        &self.resource_description
    }

    /// The tools in listing order.
    #[must_use]
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// The tool with this wire name, if any (names are matched exactly, in the configured
    /// projection only).
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> Vec<Arc<dyn Provider>> {
        let tree = cmk_native::cli_tree::CliTree::embedded().expect("embedded cli tree");
        vec![Arc::new(cmk_provider_claude::ClaudeProvider::new(
            "claude".into(),
            Arc::new(tree),
        ))]
    }

    #[test]
    fn every_schema_compiles_and_is_a_valid_2020_12_schema() {
        let c = Catalogue::new(ToolNames::Dotted, 1800, &tree()).expect("catalogue");
        for t in c.tools() {
            t.validator.compile().expect("the schema compiles");
            let schema = &t.listing["inputSchema"];
            assert!(
                jsonschema::draft202012::meta::is_valid(schema),
                "{}",
                t.name
            );
        }
    }

    #[test]
    fn the_nul_pattern_rejects_nul_and_accepts_a_long_prompt() {
        let c = Catalogue::new(ToolNames::Dotted, 1800, &tree()).expect("catalogue");
        let run = c.get("claude.run").expect("claude.run");
        assert!(!run.validator.is_valid(&json!({"prompt": "a\u{0}b"})));
        let long = "é".repeat(60_000);
        assert!(run.validator.is_valid(&json!({"prompt": long})));
    }

    #[test]
    fn no_text_names_a_tool_outside_the_projection() {
        // TOOL-1, C-TOOL-6: descriptions, parameter descriptions and instructions use
        // the active projection, so a model following them calls a name that exists. (Both
        // families, and everything else the server sends, over the wire:
        // `cursor::families::every_text_an_underscore_server_of_both_families_sends_uses_the_projection`.)
        let c = Catalogue::new(ToolNames::Underscore, 60, &tree()).expect("catalogue");
        let texts: Vec<String> = c
            .tools()
            .iter()
            .map(|t| {
                let mut l = t.listing.clone();
                if let Some(m) = l.as_object_mut() {
                    m.remove("_meta"); // identity lives in metadata, dotted by design
                }
                l.to_string()
            })
            .chain([
                c.instructions().to_owned(),
                c.resource_description().to_owned(),
            ])
            .collect();
        for text in &texts {
            assert!(!text.contains("claude.run"), "{text}");
        }
        assert!(c.instructions().contains("claude_run_result"));
        let dotted = Catalogue::new(ToolNames::Dotted, 60, &tree()).expect("catalogue");
        assert_eq!(
            dotted.instructions(),
            "Runs Claude Code's print mode (`claude -p`) as supervised, bounded runs. Use \
             claude.run for one prompt end to end, or claude.run.start and then claude.run.result \
             / claude.run.events to follow a long run; release settled runs you no longer need \
             with claude.run.release (32 are retained, 4 may be active). `completed` means \
             settled, not succeeded: check `is_error` and `state`. Runs have shell reach in \
             their working directory within the chosen permission mode; they are not sandboxed."
        );
    }

    #[test]
    fn the_cached_listing_is_the_listings_serialised() {
        for names in [ToolNames::Dotted, ToolNames::Underscore] {
            let c = Catalogue::new(names, 60, &tree()).expect("catalogue");
            let cached: Value = serde_json::from_str(&c.tools_list_json()).expect("JSON");
            let tools: Vec<Value> = c.tools().iter().map(|t| c.listed(t)).collect();
            assert_eq!(cached, json!({ "tools": tools }));
            assert_eq!(*c.tools_list_json(), json!({ "tools": tools }).to_string());
        }
    }

    #[test]
    fn underscore_names_project_every_dot() {
        let c = Catalogue::new(ToolNames::Underscore, 60, &tree()).expect("catalogue");
        let names: Vec<&str> = c.tools().iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "claude_run",
                "claude_run_start",
                "claude_run_list",
                "claude_run_result",
                "claude_run_events",
                "claude_run_cancel",
                "claude_run_release"
            ]
        );
    }
}
