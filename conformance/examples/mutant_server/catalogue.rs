//! What the server serves: two read-only tools on two pages, one text resource, one prompt
//! and logging levels (MCP 2025-06-18 server features), each with its defects.

use serde_json::{Value, json};

use crate::defects::Defect;
use crate::methods::{MethodError, internal, invalid_params};
use crate::wire::{INVALID_REQUEST, METHOD_NOT_FOUND, RESOURCE_NOT_FOUND};

const RESOURCE_URI: &str = "mutant://notes/readme";
const RESOURCE_TEXT: &str = "The mutant server's only resource.";

fn echo_tool(defect: Defect) -> Value {
    let input = if defect == Defect::InputSchemaString {
        json!({"type": "string"})
    } else {
        json!({"type": "object", "properties": {"text": {"type": "string"}},
               "required": ["text"], "additionalProperties": false})
    };
    json!({"name": "echo", "title": "Echo", "description": "Returns its text",
           "inputSchema": input,
           "outputSchema": {"type": "object", "properties": {"text": {"type": "string"}},
                            "required": ["text"], "additionalProperties": false},
           "annotations": {"readOnlyHint": true, "idempotentHint": true}})
}

fn add_tool(defect: Defect) -> Value {
    let name = if defect == Defect::BadToolName {
        "add numbers"
    } else {
        "add"
    };
    let output = if defect == Defect::InvalidOutputSchema {
        json!({"type": "object", "properties": {"sum": {"type": "decimal"}}})
    } else {
        json!({"type": "object", "properties": {"sum": {"type": "number"}},
               "required": ["sum"], "additionalProperties": false})
    };
    let mut tool = json!({"name": name, "description": "Adds two numbers",
           "inputSchema": {"type": "object",
                           "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                           "required": ["a", "b"], "additionalProperties": false},
           "outputSchema": output,
           "annotations": {"readOnlyHint": true}});
    if defect == Defect::NoInputSchema {
        tool.as_object_mut().map(|o| o.remove("inputSchema"));
    }
    tool
}

/// `tools/list`: `echo` on the first page, `add` on the second (MCP utilities/pagination).
pub fn tools_list(defect: Defect, params: &Value) -> Result<Value, MethodError> {
    let strip = |mut tool: Value| {
        if defect == Defect::NoReadOnlyHint {
            tool.as_object_mut().map(|o| o.remove("annotations"));
        }
        tool
    };
    let first = || json!({"tools": [strip(echo_tool(defect))], "nextCursor": "page-2"});
    match params.get("cursor") {
        None | Some(Value::Null) => Ok(first()),
        Some(c) if c == "page-2" => {
            let mut page = json!({"tools": [strip(add_tool(defect))]});
            if defect == Defect::CursorLoop {
                page["nextCursor"] = json!("page-1");
            }
            Ok(page)
        }
        Some(c) if c == "page-1" && defect == Defect::CursorLoop => Ok(first()),
        Some(_) if defect == Defect::CursorAccepted => Ok(first()),
        Some(_) => Err(invalid_params("invalid cursor")),
    }
}

/// A `CallToolResult` of one text block and its structured twin.
fn tool_result(defect: Defect, text: String, structured: Option<Value>, is_error: bool) -> Value {
    let block = match defect {
        Defect::ContentBadType => json!({"type": "txt", "text": text}),
        Defect::ContentNoText => json!({"type": "text"}),
        _ => json!({"type": "text", "text": text}),
    };
    let mut result = json!({"content": [block], "isError": is_error});
    if let Some(s) = structured {
        result["structuredContent"] = s;
    }
    if defect == Defect::IsErrorString {
        result["isError"] = json!(is_error.to_string());
    }
    result
}

/// `tools/call`: tool errors are results (`isError`), unknown tools protocol errors (MCP
/// server/tools, error handling).
pub fn tools_call(defect: Defect, params: &Value) -> Result<Value, MethodError> {
    let name = params.get("name").and_then(Value::as_str).unwrap_or("");
    let args = params.get("arguments").cloned().unwrap_or(json!({}));
    let add_name = if defect == Defect::BadToolName {
        "add numbers"
    } else {
        "add"
    };
    let bad_args = |message: &str| {
        if defect == Defect::WrongArgsProtocolError {
            Err(invalid_params(message))
        } else {
            Ok(tool_result(defect, message.to_owned(), None, true))
        }
    };
    if name == "echo" {
        let Some(text) = args.get("text").and_then(Value::as_str) else {
            return bad_args("text must be a string");
        };
        let structured = if defect == Defect::StructuredMismatch {
            json!({"text": text.len()})
        } else {
            json!({"text": text})
        };
        return Ok(tool_result(
            defect,
            text.to_owned(),
            Some(structured),
            false,
        ));
    }
    if name == add_name {
        let (Some(a), Some(b)) = (
            args.get("a").and_then(Value::as_f64),
            args.get("b").and_then(Value::as_f64),
        ) else {
            return bad_args("a and b must be numbers");
        };
        let sum = a + b;
        return Ok(tool_result(
            defect,
            sum.to_string(),
            Some(json!({"sum": sum})),
            false,
        ));
    }
    if defect == Defect::UnknownToolCode {
        return Err((METHOD_NOT_FOUND, format!("unknown tool: {name}")));
    }
    if defect == Defect::UnknownToolIsError {
        return Ok(tool_result(
            defect,
            format!("unknown tool {name}"),
            None,
            true,
        ));
    }
    Err(invalid_params(&format!("unknown tool: {name}")))
}

/// `resources/list`: one text resource.
pub fn resources_list(defect: Defect) -> Value {
    let mut resource = json!({"uri": RESOURCE_URI, "name": "readme", "title": "Read me",
                              "mimeType": "text/plain"});
    if defect == Defect::ResourceNoName {
        resource.as_object_mut().map(|o| o.remove("name"));
    }
    json!({"resources": [resource]})
}

/// `resources/read`: the listed resource, else -32002 (MCP server/resources, error handling).
pub fn resources_read(defect: Defect, params: &Value) -> Result<Value, MethodError> {
    let uri = params.get("uri").and_then(Value::as_str).unwrap_or("");
    if uri != RESOURCE_URI {
        return match defect {
            Defect::MissingResourceWrongCode => {
                Err((INVALID_REQUEST, "no such resource".to_owned()))
            }
            Defect::MissingResourceEmpty => Ok(json!({"contents": []})),
            _ => Err((RESOURCE_NOT_FOUND, format!("resource not found: {uri}"))),
        };
    }
    if defect == Defect::UnreadableResource {
        return Err(internal("storage offline"));
    }
    let mut content = json!({"uri": RESOURCE_URI, "mimeType": "text/plain", "text": RESOURCE_TEXT});
    if defect == Defect::ContentsNoUri {
        content.as_object_mut().map(|o| o.remove("uri"));
    }
    if defect == Defect::ContentsNoText {
        content.as_object_mut().map(|o| o.remove("text"));
    }
    Ok(json!({"contents": [content]}))
}

/// `prompts/list`: one prompt with one required argument.
pub fn prompts_list(defect: Defect) -> Value {
    let mut prompt = json!({"name": "greet", "description": "Greets someone",
        "arguments": [{"name": "who", "description": "Whom to greet", "required": true}]});
    if defect == Defect::PromptNoName {
        prompt.as_object_mut().map(|o| o.remove("name"));
    }
    json!({"prompts": [prompt]})
}

/// `prompts/get`: the prompt's messages, -32602 for an unknown prompt (`prompt-unknown-code-0`:
/// 0) or a missing argument.
pub fn prompts_get(defect: Defect, params: &Value) -> Result<Value, MethodError> {
    if params.get("name").and_then(Value::as_str) != Some("greet") {
        if defect == Defect::PromptUnknownCode0 {
            return Err((0, "unknown prompt".to_owned()));
        }
        return Err(invalid_params("unknown prompt"));
    }
    let Some(who) = params
        .get("arguments")
        .and_then(|a| a.get("who"))
        .and_then(Value::as_str)
    else {
        return Err(invalid_params("missing argument: who"));
    };
    let message = json!({"role": "user", "content": {"type": "text", "text": format!("Say hello to {who}.")}});
    let messages = if defect == Defect::PromptGetWrongShape {
        message
    } else {
        json!([message])
    };
    Ok(json!({"description": "A greeting", "messages": messages}))
}

/// `logging/setLevel`: one of RFC 5424's levels as MCP names them.
pub fn set_level(params: &Value) -> Result<Value, MethodError> {
    const LEVELS: [&str; 8] = [
        "debug",
        "info",
        "notice",
        "warning",
        "error",
        "critical",
        "alert",
        "emergency",
    ];
    match params.get("level").and_then(Value::as_str) {
        Some(l) if LEVELS.contains(&l) => Ok(json!({})),
        _ => Err(invalid_params("unknown level")),
    }
}
