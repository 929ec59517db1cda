//! Prompts: the listing's shape, a listed prompt's `prompts/get` result and the answer to an
//! unknown prompt name (MCP 2025-06-18 server/prompts). Each runs only when the server declares
//! the `prompts` capability; all are read-only (`prompts/get` renders a template), so they are
//! safe on any server.

use serde_json::{Map, Value, json};

use super::support::{declared, ensure, result_of, show, str_at};
use crate::core::case::case;
use crate::core::client::Client;
use crate::core::model::{Check, CheckResult, Level};
use crate::mcp::ctx::Ctx;
use crate::mcp::discovery::{Listing, list_all};
use crate::mcp::gate::Case;
use crate::mcp::profile::Levels;

/// The case that grades the listing (a get is blocked by it when nothing listed can be got).
const LIST_CASE: &str = "prompts/list/shape";

/// The prompt name `prompts/get/unknown` asks for (one no server should list).
const UNKNOWN_PROMPT: &str = "mcp-conformance-no-such-prompt";

/// The cases of this section.
pub const CASES: &[Case] = &[
    case!("prompts/list/shape", "MCP server/prompts", Levels::all(Level::Must), Server,
        "prompts/list returns a prompts array; each Prompt has a string name, and its arguments (when present) each a string name and a boolean required",
        list_shape[]),
    case!("prompts/get/shape", "MCP server/prompts", Levels::all(Level::Must), Server,
        "prompts/get of the first listed prompt (every declared argument given) returns messages, an array of PromptMessage {role user|assistant, content block with a string type}",
        get_shape[]),
    case!("prompts/get/unknown", "MCP server/prompts", Levels::all(Level::Should), Server,
        "prompts/get of a prompt name the server does not list is an error response -32602 (Invalid params), not another code or a result",
        get_unknown[]),
];

/// A fresh session and its prompts listing over all pages (MCP utilities/pagination).
async fn listed(ctx: &Ctx) -> Result<(Client, Listing), Check> {
    declared(ctx, "prompts")?;
    let mut c = ctx.session().await?;
    let l = list_all(&mut c, "prompts/list", "prompts").await?;
    Ok((c, l))
}

/// What is wrong with one `Prompt` of the listing, if anything (MCP 2025-06-18 schema:
/// `name: string`, `title?`/`description?: string`, `arguments?: PromptArgument[]` with
/// `name: string`, `description?: string`, `required?: boolean`).
fn prompt_problem(p: &Value) -> Option<&'static str> {
    let Some(p) = p.as_object() else {
        return Some("a prompt that is not an object");
    };
    if !p.get("name").is_some_and(Value::is_string) {
        return Some("a prompt without a string name");
    }
    let optional_str = |o: &Map<String, Value>, k: &str| o.get(k).is_none_or(Value::is_string);
    if !optional_str(p, "title") || !optional_str(p, "description") {
        return Some("a title or description that is not a string");
    }
    match p.get("arguments") {
        None => None,
        Some(Value::Array(args)) => args.iter().find_map(|a| {
            let Some(a) = a.as_object() else {
                return Some("an argument that is not an object");
            };
            if !a.get("name").is_some_and(Value::is_string) {
                Some("an argument without a string name")
            } else if !a.get("required").is_none_or(Value::is_boolean) {
                Some("an argument whose required is not a boolean")
            } else if !optional_str(a, "description") {
                Some("an argument whose description is not a string")
            } else {
                None
            }
        }),
        Some(_) => Some("arguments that are not an array"),
    }
}

async fn list_shape(ctx: Ctx) -> CheckResult {
    let (_c, l) = listed(&ctx).await?;
    // No prompts pagination case: a loop in prompts/list is this rule's finding.
    if let Some(p) = l.problem.as_ref().or(l.paging_problem.as_ref()) {
        return Err(Check::fail(
            "a prompts/list result with a prompts array",
            p.clone(),
        ));
    }
    for p in &l.items {
        if let Some(problem) = prompt_problem(p) {
            return Err(Check::fail(
                "Prompt {name: string, arguments?: [{name: string, required?: boolean}]}",
                format!("{problem}: {}", show(p)),
            ));
        }
    }
    Ok(Check::Pass)
}

/// What is wrong with one `PromptMessage`, if anything (MCP 2025-06-18 schema: `role: Role`
/// ("user" | "assistant"), `content: ContentBlock`, each block typed by a string `type`; a
/// text block carries a string `text`).
fn message_problem(m: &Value) -> Option<&'static str> {
    if !matches!(str_at(m, "role"), Some("user" | "assistant")) {
        return Some("a message whose role is not \"user\" or \"assistant\"");
    }
    let Some(content) = m.get("content").filter(|c| c.is_object()) else {
        return Some("a message whose content is not a content block object");
    };
    match str_at(content, "type") {
        None => Some("a content block without a string type"),
        Some("text") if str_at(content, "text").is_none() => {
            Some("a text content block without a string text")
        }
        Some(_) => None,
    }
}

async fn get_shape(ctx: Ctx) -> CheckResult {
    let (mut c, l) = listed(&ctx).await?;
    let Some(prompt) = l
        .items
        .iter()
        .find(|p| p.get("name").is_some_and(Value::is_string))
    else {
        if l.items.is_empty() && l.problem.is_none() {
            return Err(Check::skip("the server lists no prompt"));
        }
        // A listing that failed, or whose prompts have no name: graded there, once.
        return Err(Check::blocked(
            LIST_CASE,
            Check::skip("no listed prompt has a name to get"),
        ));
    };
    let name = str_at(prompt, "name").unwrap_or_default();
    // Every declared argument, required or not, gets a plain string value (prompt arguments are
    // strings: `arguments?: { [key: string]: string }`).
    let arguments: Map<String, Value> = prompt
        .get("arguments")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|a| str_at(a, "name"))
        .map(|n| (n.to_owned(), json!("mcp-conformance")))
        .collect();
    let answer = c
        .request(
            "prompts/get",
            Some(json!({"name": name, "arguments": arguments})),
        )
        .await?;
    super::support::well_formed(&answer, "prompts/get")?;
    let result = result_of(&answer, &format!("prompts/get {name:?}"))?;
    let expected = "GetPromptResult {messages: [{role: user|assistant, content: {type, ...}}]}";
    let Some(messages) = result.get("messages").and_then(Value::as_array) else {
        return Err(Check::fail(expected, show(result)));
    };
    for m in messages {
        if let Some(problem) = message_problem(m) {
            return Err(Check::fail(expected, format!("{problem}: {}", show(m))));
        }
    }
    ensure(
        result.get("description").is_none_or(Value::is_string),
        "a description that is a string, when present",
        show(result),
    )?;
    Ok(Check::Pass)
}

async fn get_unknown(ctx: Ctx) -> CheckResult {
    let (mut c, l) = listed(&ctx).await?;
    if l.items
        .iter()
        .any(|p| str_at(p, "name") == Some(UNKNOWN_PROMPT))
    {
        return Err(Check::skip(format!(
            "the server lists a prompt named {UNKNOWN_PROMPT:?}"
        )));
    }
    let answer = c
        .request("prompts/get", Some(json!({"name": UNKNOWN_PROMPT})))
        .await?;
    super::support::well_formed(&answer, "prompts/get")?;
    grade_unknown(&answer)
}

/// Grades the answer to `prompts/get` of a name the server does not list. MCP server/prompts
/// (Error Handling, the same words in every revision from 2024-11-05 to 2026-07-28): "Servers
/// **SHOULD** return standard JSON-RPC errors for common failure cases: Invalid prompt name:
/// `-32602` (Invalid params)". Only a SHOULD: an error with another code, or a result for the
/// name, is a deviation (the case's level makes it a warning), never a MUST failure.
fn grade_unknown(answer: &Value) -> CheckResult {
    let expected = "an error response -32602 (Invalid params) for an invalid prompt name \
                    (MCP server/prompts, Error Handling: servers SHOULD)";
    match (
        crate::core::client::error_code(answer),
        answer.get("result"),
    ) {
        (Some(mcp_wire::code::INVALID_PARAMS), _) => Ok(Check::Pass),
        (Some(code), _) => Err(Check::fail(
            expected,
            format!("an error with code {code}: {}", show(answer)),
        )),
        (None, Some(_)) => Err(Check::fail(
            expected,
            format!(
                "a result for {UNKNOWN_PROMPT:?}, a name the server does not list: {}",
                show(answer)
            ),
        )),
        (None, None) => Err(Check::fail(expected, show(answer))),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn a_prompt_needs_a_string_name_and_well_typed_arguments() {
        let ok = json!({"name": "greet", "arguments": [{"name": "who", "required": true}]});
        assert_eq!(super::prompt_problem(&ok), None);
        assert!(super::prompt_problem(&json!({"description": "x"})).is_some());
        let bad = json!({"name": "g", "arguments": [{"name": "who", "required": "yes"}]});
        assert!(super::prompt_problem(&bad).is_some());
        assert!(super::prompt_problem(&json!({"name": "g", "arguments": {}})).is_some());
    }

    #[test]
    fn an_unknown_prompt_is_invalid_params_and_anything_else_deviates() {
        use crate::core::model::Check;
        let error = |code: i64| json!({"jsonrpc": "2.0", "id": 1, "error": {"code": code, "message": "Unknown prompt"}});
        assert!(matches!(
            super::grade_unknown(&error(-32602)),
            Ok(Check::Pass)
        ));
        // The Python SDK (mcp 2.3.0) answers code 0; -32601 or -32002 are other codes too.
        for code in [0, -32601, -32002, -32603] {
            assert!(
                matches!(super::grade_unknown(&error(code)), Err(Check::Fail { .. })),
                "{code}"
            );
        }
        let served = json!({"jsonrpc": "2.0", "id": 1, "result": {"messages": []}});
        assert!(matches!(
            super::grade_unknown(&served),
            Err(Check::Fail { .. })
        ));
    }

    #[test]
    fn a_prompt_message_has_a_role_and_a_typed_content_block() {
        let ok = json!({"role": "assistant", "content": {"type": "image", "data": "", "mimeType": "image/png"}});
        assert_eq!(super::message_problem(&ok), None);
        assert!(
            super::message_problem(
                &json!({"role": "system", "content": {"type": "text", "text": ""}})
            )
            .is_some()
        );
        assert!(
            super::message_problem(
                &json!({"role": "user", "content": [{"type": "text", "text": ""}]})
            )
            .is_some()
        );
        assert!(
            super::message_problem(&json!({"role": "user", "content": {"type": "text"}})).is_some()
        );
    }
}
