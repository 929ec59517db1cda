//! Resources: list shape, reading a listed resource, reading an unknown one (MCP server/resources).

use serde_json::{Value, json};

use super::support::{ensure, result_of, show, str_at};
use crate::core::case::case;
use crate::core::model::{Check, CheckResult, Level};
use crate::mcp::ctx::Ctx;
use crate::mcp::gate::Case;
use crate::mcp::profile::Levels;

/// The cases of this section.
pub const CASES: &[Case] = &[
    case!("resources/list/shape", "MCP server/resources", Levels::all(Level::Must), Discovery,
        "resources/list returns a resources array; each has a string uri and name",
        list_shape[]),
    case!("resources/read/listed", "MCP server/resources", Levels::all(Level::Must), Server,
        "Reading the first listed resource returns contents with uri and text or blob (none at all is info)",
        read_listed[]),
    case!("resources/read/unknown", "MCP server/resources", Levels::all(Level::Should), Server,
        "Reading an unknown URI is an error response (-32002 or -32602; from 2026-07-28 -32602, SEP-2164)",
        read_unknown[]),
];

fn listing(ctx: &Ctx) -> Result<&crate::mcp::discovery::Listing, Check> {
    match ctx.discovery.resources.as_ref() {
        Some(l) => Ok(l),
        None => Err(super::support::declared(ctx, "resources")
            .err()
            .unwrap_or_else(|| Check::skip("the server declares no resources capability"))),
    }
}

async fn list_shape(ctx: Ctx) -> CheckResult {
    let l = listing(&ctx)?;
    // No resources pagination case: a loop in resources/list is this rule's finding.
    if let Some(p) = l.problem.as_ref().or(l.paging_problem.as_ref()) {
        return Err(Check::fail(
            "a resources/list result with a resources array",
            p.clone(),
        ));
    }
    for r in &l.items {
        ensure(
            str_at(r, "uri").is_some() && str_at(r, "name").is_some(),
            "uri and name strings",
            show(r),
        )?;
    }
    Ok(Check::Pass)
}

async fn read_listed(ctx: Ctx) -> CheckResult {
    let l = listing(&ctx)?;
    let Some(uri) = l.items.iter().find_map(|r| str_at(r, "uri")) else {
        return Err(Check::skip("the server lists no resource"));
    };
    let mut c = ctx.session().await?;
    let answer = c
        .request("resources/read", Some(json!({"uri": uri})))
        .await?;
    let result = result_of(&answer, &format!("resources/read {uri}"))?;
    let contents = result.get("contents").and_then(Value::as_array);
    let ok = contents.is_some_and(|cs| {
        cs.iter().all(|x| {
            str_at(x, "uri").is_some()
                && (str_at(x, "text").is_some() || str_at(x, "blob").is_some())
        })
    });
    ensure(ok, "contents [{uri, text|blob}]", show(result))?;
    if contents.is_some_and(Vec::is_empty) {
        // ReadResourceResult.contents has no minimum length in the MCP schema: an empty read is
        // legal, if unusual, so it is reported rather than failed.
        return Ok(Check::note(
            format!("contents [{{uri, text|blob}}] for {uri}"),
            "an empty contents array (allowed by the MCP schema)",
        ));
    }
    Ok(Check::Pass)
}

async fn read_unknown(ctx: Ctx) -> CheckResult {
    listing(&ctx)?;
    let (_c, answer) = ctx
        .request_in_revision(
            "resources/read",
            json!({"uri": "mcp-conformance://no/such/resource"}),
        )
        .await?;
    // MCP server/resources (Error Handling): servers SHOULD answer "Resource not found" with a
    // standard error, -32002 up to 2025-11-25 and -32602 from 2026-07-28 (SEP-2164, which
    // earlier servers already answer too); any other code (or an empty result) is a SHOULD
    // deviation.
    let codes = ctx.revision.resource_not_found_codes();
    let code = crate::core::client::error_code(&answer);
    ensure(
        code.is_some_and(|c| codes.contains(&c)),
        format!(
            "an error response {} (resource not found, MCP {})",
            codes
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(" or "),
            ctx.revision
        ),
        show(&answer),
    )?;
    Ok(Check::Pass)
}
