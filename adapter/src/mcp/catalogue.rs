//! The seven tools (TOOL-1): names in both projections, titles, descriptions, input schemas
//! (TOOL-2, RUN-0), annotations and `_meta` declarations (META-RISK, META-WORK-1, META-CONT).
//!
//! This table is the single source of truth: `tools/list` shows exactly these definitions, and
//! `tools/call` validates arguments with validators compiled once, at start-up, from the very same
//! schemas (see [`Catalogue::new`]).

use serde_json::{Map, Value, json};

use crate::cli_tree::{CliTree, ValueRule};
use crate::config::ToolNames;

/// The `_meta` namespace prefix of this contract (section 3).
pub const META_NS: &str = "io.github.computer-mcp/";
/// `_meta` key of the risk class (META-RISK-1).
pub const META_RISK: &str = "io.github.computer-mcp/risk";
/// `_meta` key of the work declaration (META-WORK-1).
pub const META_WORK: &str = "io.github.computer-mcp/work";
/// `_meta` key of the continuation declaration (META-CONT-1).
pub const META_CONTINUATION: &str = "io.github.computer-mcp/continuation";
/// `tools/call` `_meta` key carrying the acquiring invocation's UUID (META-WORK-4).
pub const META_WORK_INVOCATION: &str = "io.github.computer-mcp/work-invocation";
/// The work resource (META-WORK-1, META-WORK-2).
pub const WORK_URI: &str = "computer-mcp://runtime/work/v1";

/// RUN-0: the prompt is one argv string, bounded by Linux's `MAX_ARG_STRLEN` (128 KiB).
pub const PROMPT_MAX_BYTES: usize = 128 * 1024;
/// RUN-0: `timeout_s` default.
pub const DEFAULT_TIMEOUT_S: u64 = 600;
/// RUN-0: `.events` `limit` default and maximum.
pub const EVENTS_LIMIT_DEFAULT: u64 = 64;
/// RUN-0: `.events` `limit` maximum.
pub const EVENTS_LIMIT_MAX: u64 = 256;
/// RUN-0: `run_id` length bound.
pub const RUN_ID_MAX: u64 = 128;
/// RUN-0: `cursor` length bound.
pub const CURSOR_MAX: u64 = 256;
/// PATH_MAX: a longer `cwd` cannot name a directory.
const CWD_MAX: u64 = 4096;

/// No NUL: these strings become argv entries, which cannot hold one (NAT-1).
const NO_NUL_PATTERN: &str = "^[^\\u0000]*$";

/// The seven tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolKind {
    /// `claude.run` (RUN-1).
    Run,
    /// `claude.run.start` (RUN-2).
    Start,
    /// `claude.run.list` (RUN-3).
    List,
    /// `claude.run.result` (RUN-4).
    Result,
    /// `claude.run.events` (RUN-5).
    Events,
    /// `claude.run.cancel` (RUN-6).
    Cancel,
    /// `claude.run.release` (RUN-7).
    Release,
}

impl ToolKind {
    /// All tools, in listing order.
    pub const ALL: [ToolKind; 7] = [
        ToolKind::Run,
        ToolKind::Start,
        ToolKind::List,
        ToolKind::Result,
        ToolKind::Events,
        ToolKind::Cancel,
        ToolKind::Release,
    ];

    /// The canonical (dotted) name (TOOL-1).
    #[must_use]
    pub fn dotted(self) -> &'static str {
        match self {
            ToolKind::Run => "claude.run",
            ToolKind::Start => "claude.run.start",
            ToolKind::List => "claude.run.list",
            ToolKind::Result => "claude.run.result",
            ToolKind::Events => "claude.run.events",
            ToolKind::Cancel => "claude.run.cancel",
            ToolKind::Release => "claude.run.release",
        }
    }

    /// The name on the wire under the chosen projection (TOOL-1).
    #[must_use]
    pub fn name(self, names: ToolNames) -> String {
        match names {
            ToolNames::Dotted => self.dotted().to_owned(),
            ToolNames::Underscore => self.dotted().replace('.', "_"),
        }
    }

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

    fn title(self) -> &'static str {
        match self {
            ToolKind::Run => "Run Claude Code",
            ToolKind::Start => "Start a Claude Code run",
            ToolKind::List => "List Claude Code runs",
            ToolKind::Result => "Read a Claude Code run's result",
            ToolKind::Events => "Read a Claude Code run's events",
            ToolKind::Cancel => "Cancel a Claude Code run",
            ToolKind::Release => "Release a settled Claude Code run",
        }
    }

    fn description(self) -> &'static str {
        match self {
            ToolKind::Run => {
                "Runs one prompt through Claude Code's print mode (`claude -p`) and waits until \
                 the run has settled, its processes included, then returns the final result. \
                 Claude Code can read and write files and run commands in `cwd` within its \
                 permission mode: this is model execution with shell reach, not a sandbox. \
                 `completed: true` means the run settled, not that it succeeded: `is_error` and \
                 `state` say which, and a failed run is returned with isError. With \
                 `detach_after_s`, a run still going after that many seconds is returned as a \
                 handle (`run_id`, active `state`) to follow with claude.run.result / \
                 claude.run.events. A `progressToken` gets progress notifications as native \
                 events arrive. `resume_session_id`, `continue_previous` and `session_id` are \
                 mutually exclusive; `no_session_persistence` excludes resuming and continuing."
            }
            ToolKind::Start => {
                "Starts the same run as claude.run without waiting and returns `{run_id, state}` \
                 at once. The run_id is this adapter's opaque handle (not a process id, not a \
                 Claude session id); follow it with claude.run.result, claude.run.events, \
                 claude.run.cancel and claude.run.release. At most 4 runs are active at a time \
                 and 32 retained."
            }
            ToolKind::List => {
                "Lists the runs this adapter process retains, each with run_id, state, \
                 completed, is_error, native_session_id (when known) and acquired_by (when \
                 bound). Reading never releases anything."
            }
            ToolKind::Result => {
                "Returns a run's current state, or its settled final result: state, completed, \
                 is_error, native_session_id, the native final event as received, native_error, \
                 error, cleanup outcome, exit status and event counts. Reading a failed run is a \
                 successful read whose data says is_error."
            }
            ToolKind::Events => {
                "Returns one bounded page of a run's native stream-json events, oldest first. \
                 Pass the returned `next_cursor` to continue; a cursor older than the retained \
                 buffer reports `stale_cursor` and how many events were missed."
            }
            ToolKind::Cancel => {
                "Cancels a run: terminates its Claude Code process group and marks it \
                 cancelled; cleanup completes in the background and shows on later result \
                 reads. Cancelling a settled run changes nothing and says `already_settled`. \
                 Never releases the run."
            }
            ToolKind::Release => {
                "Discards a settled run whose process cleanup is confirmed, freeing its slot. \
                 An active run is refused (`run_active`), as is a run whose cleanup is not \
                 confirmed (`cleanup_unconfirmed`). The Claude Code session itself stays saved \
                 and resumable."
            }
        }
    }

    /// Standard annotations; never claim less than the risk (META-RISK-3).
    fn annotations(self) -> Value {
        let title = self.title();
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
    fn input_schema(self, max_timeout_s: u64, tree: &CliTree) -> Value {
        let mut props = Map::new();
        let mut required: Vec<&str> = Vec::new();
        match self {
            ToolKind::Run | ToolKind::Start => {
                run_properties(&mut props, max_timeout_s, tree);
                if self == ToolKind::Run {
                    props.insert(
                        "detach_after_s".into(),
                        json!({
                            "type": "integer",
                            "minimum": 1,
                            "maximum": max_timeout_s,
                            "description": "Return the run's handle instead of waiting longer \
                                than this many seconds (1 to timeout_s). The run goes on."
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
                        "maxLength": RUN_ID_MAX,
                        "description": "The run's handle, as returned by claude.run.start, \
                            claude.run or claude.run.list."
                    }),
                );
                required.push("run_id");
                if self == ToolKind::Events {
                    props.insert(
                        "cursor".into(),
                        json!({
                            "type": "string",
                            "maxLength": CURSOR_MAX,
                            "description": "Opaque position from a previous page's \
                                next_cursor; omit to start at the oldest retained event."
                        }),
                    );
                    props.insert(
                        "limit".into(),
                        json!({
                            "type": "integer",
                            "minimum": 1,
                            "maximum": EVENTS_LIMIT_MAX,
                            "default": EVENTS_LIMIT_DEFAULT,
                            "description": "Largest number of events in the page."
                        }),
                    );
                }
            }
        }
        let mut schema = Map::new();
        schema.insert(
            "$schema".into(),
            "https://json-schema.org/draft/2020-12/schema".into(),
        );
        schema.insert("type".into(), "object".into());
        schema.insert("properties".into(), Value::Object(props));
        if !required.is_empty() {
            schema.insert("required".into(), json!(required));
        }
        schema.insert("additionalProperties".into(), false.into());
        Value::Object(schema)
    }

    /// The `_meta` declarations (META-RISK-1, META-WORK-1, META-CONT-1/2).
    fn meta(self) -> Value {
        let mut m = Map::new();
        m.insert(META_RISK.into(), self.risk().into());
        m.insert(
            META_WORK.into(),
            json!({"format_version": 1, "uri": WORK_URI}),
        );
        if self.continues_a_run() {
            m.insert(
                META_CONTINUATION.into(),
                json!({"format_version": 1, "kind": "claude.run", "id_pointer": "/run_id"}),
            );
        }
        Value::Object(m)
    }
}

/// RUN-0 arguments shared by `claude.run` and `claude.run.start`: `prompt`, `cwd` and
/// `timeout_s` belong to the adapter; every native option comes from the pinned cli-tree
/// (NAT-1), so the schema offers exactly what argv can carry, with the tree's value rules.
fn run_properties(props: &mut Map<String, Value>, max_timeout_s: u64, tree: &CliTree) {
    props.insert(
        "prompt".into(),
        json!({
            "type": "string",
            "minLength": 1,
            // Characters; the byte bound (128 KiB of UTF-8) is enforced as well.
            "maxLength": PROMPT_MAX_BYTES,
            "pattern": NO_NUL_PATTERN,
            "description": "The prompt, passed after `--` (1 byte to 128 KiB of UTF-8, no NUL): \
                a prompt starting with `-` stays a prompt."
        }),
    );
    props.insert(
        "cwd".into(),
        json!({
            "type": "string",
            "minLength": 1,
            "maxLength": CWD_MAX,
            "pattern": "^/[^\\u0000]*$",
            "description": "Absolute path of an existing directory to run in; default the \
                adapter's working directory."
        }),
    );
    props.insert(
        "timeout_s".into(),
        json!({
            "type": "integer",
            "minimum": 1,
            "maximum": max_timeout_s,
            "default": DEFAULT_TIMEOUT_S.min(max_timeout_s),
            "description": "Seconds before the run is stopped and fails with `timeout`."
        }),
    );
    for opt in &tree.options {
        let Some(Value::Object(mut schema)) = tree.option_schema(&opt.name) else {
            continue;
        };
        if matches!(opt.value, ValueRule::String { .. }) {
            // Characters in JSON Schema; the tree's byte bound is enforced as well.
            schema.insert("pattern".into(), NO_NUL_PATTERN.into());
        }
        if let Some(d) = &opt.default {
            schema.insert("default".into(), d.clone().into());
        }
        let description = option_description(&opt.name)
            .map(str::to_owned)
            .or_else(|| opt.description.clone())
            .unwrap_or_else(|| format!("Forwarded as `{}`.", opt.flag));
        schema.insert("description".into(), description.into());
        props.insert(opt.name.clone(), Value::Object(schema));
    }
}

/// What a host needs to know about each native option the tree declares.
fn option_description(name: &str) -> Option<&'static str> {
    Some(match name {
        "permission_mode" => {
            "Claude Code's permission mode, always passed explicitly. dontAsk denies what is \
             not pre-approved; plan only plans; acceptEdits also allows file edits."
        }
        "model" => "Model alias or name, forwarded only when given.",
        "effort" => "Effort level, forwarded only when given.",
        "append_system_prompt" => "Text appended to the system prompt (UTF-8, bounded in bytes).",
        "max_budget_usd" => "Spending cap in US dollars, forwarded only when given.",
        "resume_session_id" => {
            "Resume this saved Claude Code session (its native session id, never a run_id)."
        }
        "continue_previous" => "Continue the most recent Claude Code session in cwd.",
        "session_id" => "Use this UUID as the new Claude Code session's id.",
        "no_session_persistence" => "Do not save the Claude Code session to disk.",
        _ => return None,
    })
}

/// Byte bounds of string arguments (RUN-0): JSON Schema's `maxLength` counts characters.
fn byte_bounds(kind: ToolKind, tree: &CliTree) -> Vec<(String, usize)> {
    if !matches!(kind, ToolKind::Run | ToolKind::Start) {
        return Vec::new();
    }
    let mut bounds = vec![("prompt".to_owned(), PROMPT_MAX_BYTES)];
    for opt in &tree.options {
        if let ValueRule::String { max_bytes } = opt.value {
            bounds.push((opt.name.clone(), max_bytes));
        }
    }
    bounds
}

/// One tool: its listing and its compiled validator.
pub struct Tool {
    /// Which tool.
    pub kind: ToolKind,
    /// Its wire name under the configured projection.
    pub name: String,
    /// Its `tools/list` entry.
    pub listing: Value,
    /// The validator compiled from `listing.inputSchema`.
    pub validator: jsonschema::Validator,
    /// String arguments bounded in UTF-8 bytes, with their bound (RUN-0).
    pub byte_bounds: Vec<(String, usize)>,
}

impl std::fmt::Debug for Tool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tool").field("name", &self.name).finish()
    }
}

/// A schema of the catalogue does not compile (a programming error caught at start-up).
#[derive(Debug, thiserror::Error)]
#[error("the input schema of {tool} does not compile: {message}")]
pub struct CatalogueError {
    tool: &'static str,
    message: String,
}

/// The seven tools under one configuration.
#[derive(Debug)]
pub struct Catalogue {
    tools: Vec<Tool>,
    /// Largest `timeout_s` (BND-4).
    pub max_timeout_s: u64,
}

impl Catalogue {
    /// Builds the listings (native options from `tree`, NAT-1) and compiles each input schema
    /// once.
    pub fn new(
        names: ToolNames,
        max_timeout_s: u64,
        tree: &CliTree,
    ) -> Result<Self, CatalogueError> {
        let mut tools = Vec::with_capacity(ToolKind::ALL.len());
        for kind in ToolKind::ALL {
            let name = kind.name(names);
            let schema = kind.input_schema(max_timeout_s, tree);
            let validator = jsonschema::draft202012::new(&schema).map_err(|e| CatalogueError {
                tool: kind.dotted(),
                message: e.to_string(),
            })?;
            let listing = json!({
                "name": name,
                "title": kind.title(),
                "description": kind.description(),
                "inputSchema": schema,
                "annotations": kind.annotations(),
                "_meta": kind.meta(),
            });
            tools.push(Tool {
                kind,
                name,
                listing,
                validator,
                byte_bounds: byte_bounds(kind, tree),
            });
        }
        Ok(Self {
            tools,
            max_timeout_s,
        })
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

    fn tree() -> CliTree {
        CliTree::embedded().expect("embedded cli tree")
    }

    #[test]
    fn every_schema_compiles_and_is_a_valid_2020_12_schema() {
        let c = Catalogue::new(ToolNames::Dotted, 1800, &tree()).expect("catalogue");
        for t in c.tools() {
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
