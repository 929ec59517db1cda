//! The rules 2025-11-25 added that a black-box client observes on a listing, graded on a
//! connection of that revision (MCP 2025-11-25 server/tools): tool names (SEP-986), the
//! JSON Schema dialect of tool schemas (SEP-1613), and the display metadata of listed tools,
//! resources and prompts (`title`, and SEP-973's `icons`). A server that does not support
//! 2025-11-25 gets `skip: revision not supported`.

use std::collections::BTreeSet;

use serde_json::Value;

use super::revisions::NOT_SUPPORTED;
use super::support::{declared, ensure, str_at};
use super::tools::{schema_problem, sep986};
use crate::core::case::case;
use crate::core::checks::show;
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
    // The display metadata: MCP 2025-11-25 schema.ts, `Tool`, `Resource` and `Prompt` each
    // "extends BaseMetadata, Icons"; basic/index: the schema "is the source of truth for all
    // protocol messages and structures", so a field of another type is no such message (MUST).
    case!("listings/title/2025-11-25",
        "MCP 2025-11-25 schema.ts BaseMetadata: \"title?: string\" (Tool, Resource and Prompt each \"extends BaseMetadata, Icons\"); basic/index: the schema \"is the source of truth for all protocol messages and structures\"",
        Levels::all(Level::Must), Server,
        "On a 2025-11-25 connection every listed tool, resource and prompt that has a title has a string",
        titles[]),
    case!("listings/icons/2025-11-25",
        "SEP-973 (MCP 2025-11-25 schema.ts Icons: \"icons?: Icon[]\"; Icon: \"src: string\", \"A standard URI pointing to an icon resource\" (@format uri), \"mimeType?: string\", \"sizes?: string[]\", theme \"light\" or \"dark\" (\"theme?\"); basic/index: \"src: A URI pointing to the icon resource (required)\")",
        Levels::all(Level::Must), Server,
        "On a 2025-11-25 connection every listed tool, resource and prompt that has icons has an array of Icon: a src that is a URI, and mimeType a string, sizes an array of strings, theme light or dark when present",
        icons[]),
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

/// The listings whose items carry `title` and `icons` in 2025-11-25: (capability, method,
/// result key, the case that grades the listing's own shape).
const DISPLAYED: [(&str, &str, &str, &str); 3] = [
    ("tools", "tools/list", "tools", "tools/list/shape"),
    (
        "resources",
        "resources/list",
        "resources",
        "resources/list/shape",
    ),
    ("prompts", "prompts/list", "prompts", "prompts/list/shape"),
];

/// Every item of the declared listings on one fresh 2025-11-25 connection, each named
/// (`tool "echo"`), or the skip saying why there is nothing to read.
async fn displayed(ctx: &Ctx) -> Result<Vec<(String, Value)>, Check> {
    if !ctx.support.supported().contains(&Revision::R2025_11_25) {
        return Err(Check::skip(NOT_SUPPORTED));
    }
    let mut kinds = Vec::new();
    for kind in DISPLAYED {
        match declared(ctx, kind.0) {
            Ok(()) => kinds.push(kind),
            // No capabilities object: the result-shape case's block, whichever kind says it.
            Err(e @ Check::Blocked { .. }) => return Err(e),
            Err(_) => {}
        }
    }
    if kinds.is_empty() {
        return Err(Check::skip(
            "the server declares no tools, resources or prompts capability",
        ));
    }
    let mut c = ctx.session_with(Revision::R2025_11_25.date()).await?;
    let mut items = Vec::new();
    for (_, method, key, shape_case) in kinds {
        let l = list_all(&mut c, method, key).await?;
        if let Some(p) = l.problem {
            // The listing's own case grades an answer without its array; nothing to read here.
            return Err(Check::blocked(
                shape_case,
                Check::fail(format!("a {method} result with a {key} array"), p),
            ));
        }
        let what = key.trim_end_matches('s');
        for item in l.items {
            let name = str_at(&item, "name").map_or_else(|| "?".to_owned(), |n| format!("{n:?}"));
            items.push((format!("{what} {name}"), item));
        }
    }
    Ok(items)
}

async fn titles(ctx: Ctx) -> CheckResult {
    let items = displayed(&ctx).await?;
    let bad: Vec<String> = items
        .iter()
        .filter_map(|(name, item)| match item.get("title") {
            None | Some(Value::String(_)) => None,
            Some(t) => Some(format!("{name}: title {} is not a string", show(t))),
        })
        .collect();
    ensure(
        bad.is_empty(),
        "every title a string (MCP 2025-11-25 BaseMetadata)",
        bad.join("; "),
    )?;
    Ok(Check::Pass)
}

async fn icons(ctx: Ctx) -> CheckResult {
    let items = displayed(&ctx).await?;
    let mut bad = Vec::new();
    for (name, item) in &items {
        match item.get("icons") {
            None => {}
            Some(Value::Array(icons)) => {
                for (i, icon) in icons.iter().enumerate() {
                    bad.extend(icon_problem(icon).map(|p| format!("{name}: icons[{i}] {p}")));
                }
            }
            Some(v) => bad.push(format!("{name}: icons {} is not an array", show(v))),
        }
    }
    ensure(
        bad.is_empty(),
        "every icons an array of Icon {src: a URI, mimeType?: string, sizes?: string[], theme?: light|dark} (MCP 2025-11-25, SEP-973)",
        bad.join("; "),
    )?;
    Ok(Check::Pass)
}

/// What is wrong with one `Icon`, if anything (MCP 2025-11-25 schema.ts `Icon`).
fn icon_problem(icon: &Value) -> Option<String> {
    let Some(icon) = icon.as_object() else {
        return Some(format!("{} is not an object", show(icon)));
    };
    let Some(src) = icon.get("src") else {
        return Some("has no src".into());
    };
    let Some(src) = src.as_str() else {
        return Some(format!("src {} is not a string", show(src)));
    };
    if !is_uri(src) {
        return Some(format!(
            "src {src:?} is not a URI (a scheme, then no whitespace)"
        ));
    }
    if let Some(m) = icon.get("mimeType").filter(|m| !m.is_string()) {
        return Some(format!("mimeType {} is not a string", show(m)));
    }
    if let Some(s) = icon.get("sizes").filter(|s| {
        s.as_array()
            .is_none_or(|a| a.iter().any(|x| !x.is_string()))
    }) {
        return Some(format!("sizes {} is not an array of strings", show(s)));
    }
    if let Some(t) = icon
        .get("theme")
        .filter(|t| !matches!(t.as_str(), Some("light" | "dark")))
    {
        return Some(format!(
            "theme {} is neither \"light\" nor \"dark\"",
            show(t)
        ));
    }
    None
}

/// Whether `s` is a URI as `@format uri` (RFC 3986) has it: a scheme (a letter, then letters,
/// digits, `+`, `-` or `.`) and `:`, and no whitespace or control character anywhere. A relative
/// reference (`icon.png`) is not one.
fn is_uri(s: &str) -> bool {
    let Some((scheme, _)) = s.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        && !s.chars().any(|c| c.is_whitespace() || c.is_control())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{icon_problem, is_uri};

    #[test]
    fn icon_sources_are_uris_with_a_scheme() {
        for ok in [
            "https://example.com/icon.png",
            "data:image/png;base64,iVBORw0KGgo=",
            "file:///icons/a.svg",
        ] {
            assert!(is_uri(ok), "{ok}");
        }
        for bad in [
            "icon.png",
            "/icons/a.png",
            "",
            ":x",
            "1http://a",
            "https://a b/c",
        ] {
            assert!(!is_uri(bad), "{bad}");
        }
    }

    #[test]
    fn an_icon_is_judged_by_its_schema_fields() {
        assert_eq!(
            icon_problem(&json!({"src": "https://a/i.png", "mimeType": "image/png",
                                 "sizes": ["48x48", "any"], "theme": "dark"})),
            None
        );
        for (icon, says) in [
            (json!("https://a/i.png"), "is not an object"),
            (json!({"mimeType": "image/png"}), "has no src"),
            (json!({"src": 7}), "src 7 is not a string"),
            (json!({"src": "i.png"}), "is not a URI"),
            (json!({"src": "https://a/i.png", "mimeType": 1}), "mimeType"),
            (json!({"src": "https://a/i.png", "sizes": "48x48"}), "sizes"),
            (json!({"src": "https://a/i.png", "sizes": [48]}), "sizes"),
            (json!({"src": "https://a/i.png", "theme": "blue"}), "theme"),
        ] {
            let p = icon_problem(&icon).unwrap_or_default();
            assert!(p.contains(says), "{icon}: {p:?}");
        }
    }
}
