//! Tools: listing shape and pagination, schema validity (`jsonschema`), SEP-986 names, unknown
//! tools, wrong-typed arguments, result shape (MCP server/tools; contract TOOL-1..5).

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::support::{call_tool, ensure, show, str_at, tool_answer};
use crate::core::case::case;
use crate::core::client::error_code;
use crate::core::model::{Check, CheckResult, Gap, Level};
use crate::mcp::ctx::Ctx;
use crate::mcp::gate::Case;
use crate::mcp::profile::{Levels, Profile};
use crate::mcp::roles::{Expected, Role};
use crate::mcp::tool_result::compile;

/// The cases of this section.
pub const CASES: &[Case] = &[
    case!("tools/list/shape", "MCP server/tools", Levels::all(Level::Must), Discovery,
        "tools/list returns a tools array; each tool has a string name and an object inputSchema of type object",
        list_shape[]),
    case!("tools/list/pagination", "MCP utilities/pagination", Levels::all(Level::Must), Discovery,
        "Following nextCursor ends, never loops, and lists no name twice",
        pagination[]),
    case!("tools/list/invalid-cursor", "MCP utilities/pagination", Levels::all(Level::Should), Server,
        "An unknown cursor is answered -32602",
        invalid_cursor[]),
    case!("tools/schema/valid", "TOOL-2", Levels::all(Level::Must), Discovery,
        "Every inputSchema, and every outputSchema a tool declares, is a valid JSON Schema (meta-schema check and compilation)",
        schema_valid[]),
    case!("tools/schema/closed-objects", "TOOL-2", Levels::CONTRACT_INFO, Discovery,
        "Every inputSchema is type object, types each property and sets additionalProperties false",
        schema_closed[]),
    case!("tools/names/sep-986", "SEP-986", Levels::CONTRACT_MUST, Discovery,
        "Tool names are unique, 1 to 128 characters of A-Z a-z 0-9 _ - .",
        names[]),
    case!("tools/catalogue/roles", "TOOL-1", Levels { plain: None, provider: Some(Level::Must), gateway: Some(Level::Info) }, Discovery,
        "Each of the seven roles (run, start, list, result, events, cancel, release) is served by exactly one tool",
        catalogue_roles[]),
    case!("tools/call/unknown-tool", "TOOL-3", Levels::CONTRACT_MUST, Server,
        "tools/call of an unknown tool is a protocol error -32602, not an isError result",
        unknown_tool[]),
    case!("tools/call/wrong-typed-arguments", "TOOL-3", Levels::CONTRACT_MUST, Server,
        "Wrong-typed arguments give an isError result (a provider: invalid_arguments with the JSON Pointer of the field; outside provider -32602 is info)",
        wrong_typed[]),
    case!("tools/call/unknown-run", "TOOL-5", Levels::PROVIDER_ONLY, Server,
        "Reading an unknown run is an isError result with error.code unknown_run",
        unknown_run[]),
    case!("tools/result/shape", "MCP server/tools", Levels::all(Level::Must), Crosscut,
        "Every tools/call result of every case is a CallToolResult: a content array of typed blocks, a boolean isError and an object structuredContent when present",
        result_shape[]),
    case!("tools/result/structured-mirror", "TOOL-4", Levels::PROVIDER_ONLY, CrosscutProbe,
        "Every tools/call result of every case has structuredContent.result, one text block holding the same JSON (a run's final with its scalar members only), and a boolean isError",
        structured_mirror[]),
    case!("tools/result/error-split", "TOOL-4", Levels::CONTRACT_MUST, Crosscut,
        "No listed tool called with well-formed arguments is answered with a protocol error, and no unknown tool with an isError result",
        error_split[]),
    case!("tools/result/output-schema", "MCP server/tools (output schema)", Levels::all(Level::Must), CrosscutProbe,
        "Every successful tools/call result of a tool that declares an outputSchema has structuredContent conforming to it",
        output_schema[]),
];

fn listing(ctx: &Ctx) -> Result<&crate::mcp::discovery::Listing, Check> {
    match ctx.discovery.tools.as_ref() {
        Some(l) => Ok(l),
        None => Err(super::support::declared(ctx, "tools")
            .err()
            .unwrap_or_else(|| Check::skip("the server declares no tools capability"))),
    }
}

async fn list_shape(ctx: Ctx) -> CheckResult {
    let l = listing(&ctx)?;
    if let Some(p) = &l.problem {
        return Err(Check::fail(
            "a tools/list result with a tools array",
            p.clone(),
        ));
    }
    for t in &l.items {
        let ok = str_at(t, "name").is_some()
            && t.get("inputSchema").and_then(|s| str_at(s, "type")) == Some("object");
        ensure(ok, "name (string) and inputSchema {type: object}", show(t))?;
    }
    Ok(Check::Pass)
}

async fn pagination(ctx: Ctx) -> CheckResult {
    let l = listing(&ctx)?;
    if let Some(p) = l.problem.as_ref().or(l.paging_problem.as_ref()) {
        return Err(Check::fail("pages that end", p.clone()));
    }
    let mut names = BTreeSet::new();
    for t in &l.items {
        let n = str_at(t, "name").unwrap_or("");
        ensure(
            names.insert(n),
            "no tool listed twice",
            format!("{n:?} listed twice over {} page(s)", l.pages),
        )?;
    }
    Ok(Check::Pass)
}

async fn invalid_cursor(ctx: Ctx) -> CheckResult {
    listing(&ctx)?;
    let mut c = ctx.session().await?;
    let answer = c
        .request(
            "tools/list",
            Some(json!({"cursor": "mcp-conformance-invalid-cursor"})),
        )
        .await?;
    ensure(
        error_code(&answer) == Some(mcp_wire::code::INVALID_PARAMS),
        "error -32602 (invalid cursor)",
        show(&answer),
    )?;
    Ok(Check::Pass)
}

/// Validates one schema: the meta-schema of its draft (2020-12 when undeclared), then
/// compilation (which catches unresolvable references and bad regexes).
#[must_use]
pub fn schema_problem(schema: &Value) -> Option<String> {
    compile(schema).err()
}

async fn schema_valid(ctx: Ctx) -> CheckResult {
    let l = listing(&ctx)?;
    let mut bad = Vec::new();
    for t in &l.items {
        let name = str_at(t, "name").unwrap_or("?");
        // A tool without an inputSchema has none to validate: tools/list/shape grades that it
        // lacks one (one defect, one verdict).
        if let Some(schema) = t.get("inputSchema") {
            // A `$schema` naming an unknown meta-schema makes the crate panic in
            // `meta::validate`'s detection; guard so one odd tool does not end the runner.
            let problem = std::panic::catch_unwind(|| schema_problem(schema))
                .unwrap_or_else(|_| Some("its $schema names no known draft".into()));
            if let Some(p) = problem {
                bad.push(format!("{name}: {p}"));
            }
        }
        // MCP server/tools: an optional outputSchema is a JSON Schema too.
        if let Some(out) = t.get("outputSchema") {
            let problem = std::panic::catch_unwind(|| schema_problem(out))
                .unwrap_or_else(|_| Some("its $schema names no known draft".into()));
            if let Some(p) = problem {
                bad.push(format!("{name} outputSchema: {p}"));
            }
        }
    }
    ensure(
        bad.is_empty(),
        "every inputSchema and outputSchema valid",
        bad.join("; "),
    )?;
    Ok(Check::Pass)
}

async fn schema_closed(ctx: Ctx) -> CheckResult {
    let l = listing(&ctx)?;
    let mut bad = Vec::new();
    for t in &l.items {
        let name = str_at(t, "name").unwrap_or("?");
        // A missing inputSchema is tools/list/shape's finding, not this rule's.
        let Some(s) = t.get("inputSchema") else {
            continue;
        };
        if str_at(s, "type") != Some("object") {
            bad.push(format!("{name}: type is not object"));
        }
        if s.get("additionalProperties") != Some(&Value::Bool(false)) {
            bad.push(format!("{name}: additionalProperties is not false"));
        }
        if let Some(props) = s.get("properties").and_then(Value::as_object) {
            for (p, ps) in props {
                let typed = ["type", "enum", "const", "$ref", "anyOf", "oneOf"]
                    .iter()
                    .any(|k| ps.get(k).is_some());
                if !typed {
                    bad.push(format!("{name}: property {p} has no type"));
                }
            }
        }
    }
    ensure(
        bad.is_empty(),
        "closed, typed object schemas",
        bad.join("; "),
    )?;
    Ok(Check::Pass)
}

/// Whether `name` follows SEP-986.
#[must_use]
pub fn sep986(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

async fn names(ctx: Ctx) -> CheckResult {
    let l = listing(&ctx)?;
    let mut seen = BTreeSet::new();
    let mut bad = Vec::new();
    for t in &l.items {
        match str_at(t, "name") {
            Some(n) if !sep986(n) => bad.push(format!("{n:?} breaks the charset or length")),
            // Names repeated by a cursor loop are tools/list/pagination's finding.
            Some(n) if !seen.insert(n) && l.paging_problem.is_none() => {
                bad.push(format!("{n:?} is listed twice"));
            }
            Some(_) => {}
            None => bad.push("a tool without a string name".into()),
        }
    }
    ensure(bad.is_empty(), "valid, unique names", bad.join("; "))?;
    Ok(Check::Pass)
}

async fn catalogue_roles(ctx: Ctx) -> CheckResult {
    // TOOL-1 holds per tool family (C-PROV-3: `claude.run…` and `cursor.run…` are seven each).
    let mut families = ctx.roles().families();
    if families.is_empty() {
        // No family at all: every role is missing, said role by role.
        families.push(crate::mcp::roles::Family {
            name: String::new(),
            fake: crate::mcp::roles::FakeKind::Claude,
            roles: crate::mcp::roles::Roles::default(),
        });
    }
    let several = families.len() > 1;
    let mut problems = Vec::new();
    for family in &families {
        for role in Role::ALL {
            let n = family
                .roles
                .found
                .iter()
                .filter(|(r, _, _)| *r == role)
                .count();
            if n != 1 {
                let of = if several {
                    format!("family {:?}: ", family.name)
                } else {
                    String::new()
                };
                problems.push(format!(
                    "{of}{} tools with the role of {}",
                    n,
                    role.default_name()
                ));
            }
        }
    }
    ensure(
        problems.is_empty(),
        "exactly one tool per role (in each tool family)",
        problems.join("; "),
    )?;
    Ok(Check::Pass)
}

async fn unknown_tool(ctx: Ctx) -> CheckResult {
    listing(&ctx)?;
    let mut c = ctx.session().await?;
    let answer = call_tool(&mut c, "mcp-conformance-no-such-tool", json!({}), None).await?;
    if error_code(&answer) == Some(mcp_wire::code::INVALID_PARAMS) {
        return Ok(Check::Pass);
    }
    Err(Check::fail("error -32602 (unknown tool)", show(&answer)))
}

/// Whether a listed tool says it only reads (`annotations.readOnlyHint: true`).
#[must_use]
pub fn read_only(tool: &Value) -> bool {
    tool.get("annotations").and_then(|a| a.get("readOnlyHint")) == Some(&json!(true))
}

/// Whether the runner calls only tools annotated `readOnlyHint: true` (outside the provider
/// profile, without `--allow-tool-calls`).
fn only_read_only(ctx: &Ctx) -> bool {
    ctx.profile != Profile::Provider && !ctx.allow_tool_calls
}

/// A skip of a case that grades tool calls, made [`Gap::NoSafeTool`] when the runner withheld
/// a call that could have graded it: it calls only read-only tools, and a listed tool that
/// `wanted` accepts is not annotated so (`--allow-tool-calls` would call it). Anything else is
/// passed through.
fn withheld(ctx: &Ctx, check: Check, wanted: impl Fn(&Value) -> bool) -> Check {
    match check {
        Check::Skip(reason)
            if only_read_only(ctx)
                && ctx
                    .discovery
                    .tools()
                    .iter()
                    .any(|t| !read_only(t) && wanted(t)) =>
        {
            Check::ungraded(
                Gap::NoSafeTool,
                format!(
                    "{reason}; a listed tool that could grade it is not annotated \
                     readOnlyHint: true, so the runner did not call it (--allow-tool-calls \
                     would)"
                ),
            )
        }
        other => other,
    }
}

/// Picks a tool and a wrong-typed argument for it: `(tool, arguments, pointer)`. With
/// `only_read_only` (outside the provider profile, unless `--allow-tool-calls`) only tools
/// annotated `readOnlyHint: true` are candidates: a server that does not validate would run the
/// call, and on a server with real side effects that may act (schedule a task, write a file).
fn wrong_typed_target(ctx: &Ctx, only_read_only: bool) -> Option<(String, Value, String)> {
    if let Some(name) = ctx.roles().name(Role::Result)
        && (!only_read_only || ctx.tool(name).is_some_and(read_only))
    {
        return Some((name.to_owned(), json!({"run_id": 12345}), "/run_id".into()));
    }
    let wrong = |ty: &str| match ty {
        "string" => Some(json!(12345)),
        "integer" | "number" => Some(json!("not-a-number")),
        "boolean" => Some(json!("not-a-boolean")),
        _ => None,
    };
    let mut tools: Vec<&Value> = ctx
        .discovery
        .tools()
        .iter()
        .filter(|t| !only_read_only || read_only(t))
        .collect();
    // Prefer tools that say they only read: the call should be rejected, but if a server runs it
    // anyway, better a harmless one.
    tools.sort_by_key(|t| !read_only(t));
    for t in tools {
        let s = t.get("inputSchema")?;
        let props = s.get("properties").and_then(Value::as_object);
        let required: Vec<&str> = s
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for r in required {
            if let Some(v) = props
                .and_then(|p| p.get(r))
                .and_then(|p| str_at(p, "type"))
                .and_then(wrong)
            {
                let mut args = serde_json::Map::new();
                args.insert(r.to_owned(), v);
                return Some((
                    str_at(t, "name")?.to_owned(),
                    Value::Object(args),
                    format!("/{r}"),
                ));
            }
        }
    }
    None
}

async fn wrong_typed(ctx: Ctx) -> CheckResult {
    listing(&ctx)?;
    let Some((tool, args, pointer)) = wrong_typed_target(&ctx, only_read_only(&ctx)) else {
        if only_read_only(&ctx) && wrong_typed_target(&ctx, false).is_some() {
            return Err(Check::ungraded(
                Gap::NoSafeTool,
                "no tool annotated readOnlyHint: true has a required argument of a simple type; \
                 the runner does not call tools that might act (a server that did not validate \
                 would run the call): --allow-tool-calls would grade this case",
            ));
        }
        return Err(Check::skip(
            "no tool with a required argument of a simple type",
        ));
    };
    let mut c = ctx.session().await?;
    let answer = call_tool(&mut c, &tool, args.clone(), None).await?;
    let shown = format!("{tool} {args} → {}", show(&answer));
    let provider = ctx.profile == Profile::Provider;
    let expected = if provider {
        format!(
            "an isError tool result with error {{code: invalid_arguments, field: {pointer:?}}} \
             (TOOL-3)"
        )
    } else if ctx.revision.invalid_arguments_may_be_protocol_error() {
        "an isError tool result (MCP SEP-1303), or -32602 (allowed by the revisions up to \
         2025-06-18: reported as info)"
            .to_owned()
    } else {
        format!(
            "an isError tool result (MCP {} server/tools, SEP-1303: input validation errors are \
             tool execution errors)",
            ctx.revision
        )
    };
    if answer.get("error").is_some() {
        // The revisions the runner negotiates (2024-11-05 to 2025-06-18) list "invalid
        // arguments" among a tool's protocol errors (2025-06-18 server/tools, Error Handling);
        // only 2025-11-25 (SEP-1303) makes them tool execution errors. Outside the provider
        // profile -32602 is therefore an allowed choice, reported; TOOL-3 binds providers.
        if !provider
            && ctx.revision.invalid_arguments_may_be_protocol_error()
            && error_code(&answer) == Some(mcp_wire::code::INVALID_PARAMS)
        {
            return Ok(Check::note(
                expected,
                format!(
                    "{shown} (-32602: allowed by the negotiated revision; 2025-11-25, SEP-1303, \
                     asks for an isError result)"
                ),
            ));
        }
        return Err(Check::fail(expected, shown));
    }
    if !provider {
        let result = super::support::result_of(&answer, "tools/call")?;
        if result.get("isError").is_some_and(|v| !v.is_boolean()) {
            // Whether the call failed cannot be told: tools/result/shape grades that isError.
            return Err(Check::blocked(
                crate::mcp::watch::Rule::ResultShape.case_id(),
                Check::fail(expected, shown),
            ));
        }
        let is_error = result.get("isError") == Some(&Value::Bool(true));
        ensure(is_error, expected, shown)?;
        return Ok(Check::Pass);
    }
    let (is_error, inner, _) = tool_answer(&answer, "tools/call", None)?;
    let err = inner.get("error").cloned().unwrap_or(Value::Null);
    ensure(
        is_error
            && str_at(&err, "code") == Some("invalid_arguments")
            && str_at(&err, "field") == Some(pointer.as_str()),
        expected,
        shown,
    )?;
    Ok(Check::Pass)
}

async fn unknown_run(ctx: Ctx) -> CheckResult {
    let tool = ctx.role(Role::Result)?;
    let mut c = ctx.session().await?;
    let answer = call_tool(
        &mut c,
        &tool,
        json!({"run_id": "mcp-conformance-no-such-run"}),
        None,
    )
    .await?;
    let (is_error, inner, _) = tool_answer(&answer, "tools/call", None)?;
    let code = inner
        .get("error")
        .and_then(|e| str_at(e, "code"))
        .unwrap_or("");
    ensure(
        is_error && code == "unknown_run",
        "isError true with error.code unknown_run",
        show(&answer),
    )?;
    Ok(Check::Pass)
}

async fn result_shape(ctx: Ctx) -> CheckResult {
    let verdict = super::support::grade_rule(
        &ctx,
        crate::mcp::watch::Rule::ResultShape,
        "CallToolResult {content: [{type, ...}], isError?: boolean, structuredContent?: {...}} \
         (MCP server/tools)",
        "no tools/call was answered with a result (in plain and gateway, only tools annotated \
         readOnlyHint are called, see --allow-tool-calls)",
    );
    verdict
        .map_err(|c| withheld(&ctx, c, |_| true))
        .or_else(|c| undeclared(&ctx, c))
}

/// A cross-cutting tools rule with nothing to look at on a server that has no tools listing:
/// blocked like the listing's cases when the initialize result has no capabilities.
fn undeclared(ctx: &Ctx, c: Check) -> CheckResult {
    match c {
        Check::Skip(_) if ctx.discovery.tools.is_none() => {
            match super::support::declared(ctx, "tools") {
                Err(blocked @ Check::Blocked { .. }) => Err(blocked),
                _ => Err(c),
            }
        }
        other => Err(other),
    }
}

async fn structured_mirror(ctx: Ctx) -> CheckResult {
    // A probe of its own, so the rule is checked even when no other case calls a tool.
    let tool = ctx.role(Role::List)?;
    let mut c = ctx.session().await?;
    let _ = call_tool(&mut c, &tool, json!({}), None).await?;
    drop(c);
    // What every other case showed, once they have all finished (GATE-LOAD-2).
    ctx.scope.settled().await;
    super::support::grade_rule(
        &ctx,
        crate::mcp::watch::Rule::Mirror,
        "structuredContent {result: {...}}, exactly one text block with the same JSON (a run's \
         final with its scalar members only), and a boolean isError (TOOL-4)",
        "no tools/call was answered with a result",
    )
}

async fn error_split(ctx: Ctx) -> CheckResult {
    // TOOL-4: "isError: true means the operation failed; it is never used for a protocol
    // error, and a protocol error is never used for a failed operation". The cases that send
    // unknown tools or invalid arguments on purpose grade those answers themselves.
    super::support::grade_rule(
        &ctx,
        crate::mcp::watch::Rule::ErrorSplit,
        "isError results for failed operations, protocol errors (-32602) only for unknown \
         tools and malformed requests (TOOL-4)",
        "no tools/call of another case to look at",
    )
}

async fn output_schema(ctx: Ctx) -> CheckResult {
    // MCP 2025-06-18 server/tools: "If an output schema is provided: servers MUST provide
    // structured results that conform to this schema." Other cases' calls are graded by the
    // watch; a probe of its own calls, once each, every tool that declares an outputSchema and
    // may be called (annotated readOnlyHint, or any tool with --allow-tool-calls outside the
    // provider profile) with arguments made from its inputSchema. A call that fails (isError,
    // or a protocol error for arguments the server finds wrong) shows nothing and is let be.
    if let Ok(l) = listing(&ctx) {
        let any = ctx.profile != Profile::Provider && ctx.allow_tool_calls;
        let targets: Vec<(String, Value)> = l
            .items
            .iter()
            .filter(|t| t.get("outputSchema").is_some() && (any || read_only(t)))
            .filter_map(|t| {
                let name = str_at(t, "name")?.to_owned();
                let args = super::support::arguments_for(t.get("inputSchema")?)?;
                Some((name, args))
            })
            .collect();
        if !targets.is_empty() {
            let mut c = ctx.session().await?;
            for (name, args) in targets {
                let _ = call_tool(&mut c, &name, args, None).await?;
            }
        }
    }
    ctx.scope.settled().await;
    let expected = "structuredContent conforming to the tool's outputSchema on every successful \
                    call (MCP server/tools)";
    let verdict = super::support::grade_rule(
        &ctx,
        crate::mcp::watch::Rule::OutputSchema,
        expected,
        "no successful tools/call of a tool with an outputSchema to look at (in plain and \
         gateway, only tools annotated readOnlyHint are called, see --allow-tool-calls)",
    )
    .map_err(|c| {
        withheld(&ctx, c, |t| {
            t.get("outputSchema").is_some()
                && t.get("inputSchema")
                    .and_then(super::support::arguments_for)
                    .is_some()
        })
    });
    // Results whose isError is no boolean could not be graded: blocked by the shape rule,
    // unless this rule failed on other results.
    if let (Ok(_) | Err(Check::Skip(_) | Check::Ungraded { .. }), Some(f)) = (
        &verdict,
        ctx.watch
            .result(crate::mcp::watch::Rule::OutputSchemaUnknown)
            .0,
    ) {
        return Err(Check::blocked(
            crate::mcp::watch::Rule::ResultShape.case_id(),
            Check::skip(format!(
                "{} (first seen in {}): whether the call succeeded, and so whether its \
                 outputSchema applies, cannot be told",
                f.evidence, f.case
            )),
        ));
    }
    // No structuredContent at all: where TOOL-4 applies, structured-mirror grades that defect.
    match (
        &verdict,
        ctx.watch
            .result(crate::mcp::watch::Rule::OutputSchemaAbsent)
            .0,
    ) {
        (Err(Check::Fail { .. }), _) | (_, None) => verdict.or_else(|c| undeclared(&ctx, c)),
        (_, Some(f)) => Err(Check::blocked(
            crate::mcp::watch::Rule::Mirror.case_id(),
            Check::fail(
                expected,
                format!("{} (first seen in {})", f.evidence, f.case),
            ),
        )),
    }
}
