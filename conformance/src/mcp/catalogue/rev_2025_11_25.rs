//! The rules 2025-11-25 added that a black-box client observes on a listing, graded on a
//! connection of that revision (MCP 2025-11-25 server/tools): tool names (SEP-986) and the
//! JSON Schema dialect of tool schemas (SEP-1613). A server that does not support 2025-11-25
//! gets `skip: revision not supported`.

use std::collections::BTreeSet;

use serde_json::Value;

use super::revisions::NOT_SUPPORTED;
use super::support::{ensure, str_at};
use super::tools::{schema_problem, sep986};
use crate::core::case::case;
use crate::core::model::{Check, CheckResult, Level};
use crate::mcp::ctx::Ctx;
use crate::mcp::discovery::{Listing, list_all};
use crate::mcp::gate::Case;
use crate::mcp::profile::Levels;
use crate::mcp::revision::Revision;

/// The cases of this section (part of `tools`). MCP 2025-11-25 server/tools, Tool Names: "Tool
/// names SHOULD be between 1 and 128 characters in length (inclusive)"; "The following SHOULD be
/// the only allowed characters: uppercase and lowercase ASCII letters (A-Z, a-z), digits (0-9),
/// underscore (_), hyphen (-), and dot (.)"; "Tool names SHOULD be unique within a server" (a
/// SHOULD: warn). Tool: `inputSchema` and `outputSchema` each "Defaults to 2020-12 if no
/// `$schema` field is present", and `inputSchema` "MUST be a valid JSON Schema object (not
/// `null`)" (a MUST: fail).
pub const CASES: &[Case] = &[
    case!("tools/names/2025-11-25",
        "SEP-986 (MCP 2025-11-25 server/tools: \"Tool names SHOULD be between 1 and 128 characters\", only A-Z a-z 0-9 _ - ., \"unique within a server\")",
        Levels::all(Level::Should), Server,
        "On a 2025-11-25 connection every listed tool name is 1 to 128 characters of A-Z a-z 0-9 _ - . and no name is listed twice",
        names[]),
    case!("tools/schema/dialect/2025-11-25",
        "SEP-1613 (MCP 2025-11-25 server/tools: a schema \"Defaults to 2020-12 if no `$schema` field is present\"; inputSchema \"MUST be a valid JSON Schema object\")",
        Levels::all(Level::Must), Server,
        "On a 2025-11-25 connection every inputSchema and outputSchema is a valid JSON Schema of the draft its $schema names, of 2020-12 when it names none",
        dialect[]),
];

/// The tools listed on a fresh 2025-11-25 connection, or the skip saying why there are none.
async fn listing(ctx: &Ctx) -> Result<Listing, Check> {
    if !ctx.support.supported().contains(&Revision::R2025_11_25) {
        return Err(Check::skip(NOT_SUPPORTED));
    }
    if ctx.discovery.tools.is_none() {
        return Err(Check::skip("the server declares no tools capability"));
    }
    let mut c = ctx.session_with(Revision::R2025_11_25.date()).await?;
    let l = list_all(&mut c, "tools/list", "tools").await?;
    if let Some(p) = l.problem {
        // The listing's shape and paging are graded by tools/list/shape and
        // tools/list/pagination; this case has nothing to read.
        return Err(Check::blocked(
            "tools/list/shape",
            Check::fail("a tools/list result with a tools array", p),
        ));
    }
    Ok(l)
}

async fn names(ctx: Ctx) -> CheckResult {
    let l = listing(&ctx).await?;
    let mut seen = BTreeSet::new();
    let mut bad = Vec::new();
    for t in &l.items {
        match str_at(t, "name") {
            Some(n) if !sep986(n) => bad.push(format!(
                "{n:?} ({} characters) is not 1 to 128 of A-Z a-z 0-9 _ - .",
                n.chars().count()
            )),
            // Tool names are case-sensitive: only the same name twice is a duplicate.
            Some(n) if !seen.insert(n) => bad.push(format!("{n:?} is listed twice")),
            Some(_) => {}
            None => bad.push("a tool without a string name".into()),
        }
    }
    ensure(
        bad.is_empty(),
        "tool names as MCP 2025-11-25 server/tools says (SEP-986)",
        bad.join("; "),
    )?;
    Ok(Check::Pass)
}

/// One schema against the meta-schema of the draft its `$schema` names (2020-12 when it names
/// none, as `jsonschema::meta` detects it), then compiled.
fn problem(schema: &Value) -> Option<String> {
    // A `$schema` naming an unknown meta-schema makes the crate panic in its draft detection.
    std::panic::catch_unwind(|| schema_problem(schema))
        .unwrap_or_else(|_| Some("its $schema names no known draft".into()))
        .map(|p| {
            let dialect = str_at(schema, "$schema").map_or_else(
                || "2020-12, the default with no $schema".to_owned(),
                |s| format!("the draft its $schema names, {s}"),
            );
            format!("{p} (checked as {dialect})")
        })
}

async fn dialect(ctx: Ctx) -> CheckResult {
    let l = listing(&ctx).await?;
    let mut bad = Vec::new();
    for t in &l.items {
        let name = str_at(t, "name").unwrap_or("?");
        match t.get("inputSchema") {
            None | Some(Value::Null) => bad.push(format!("{name}: inputSchema is missing or null")),
            Some(s) => bad.extend(problem(s).map(|p| format!("{name} inputSchema: {p}"))),
        }
        if let Some(out) = t.get("outputSchema") {
            bad.extend(problem(out).map(|p| format!("{name} outputSchema: {p}")));
        }
    }
    ensure(
        bad.is_empty(),
        "every inputSchema and outputSchema valid in its dialect (2020-12 by default, SEP-1613)",
        bad.join("; "),
    )?;
    Ok(Check::Pass)
}
