//! Portable schemas (TOOL-7): the rules strict hosts apply to tool schemas (MCP Inspector 2.x's
//! `--strict` schema lint), checked over the whole `tools/list` of an adapter serving both
//! providers, every input and output schema, every subschema. The host matrix runs the real
//! Inspector (`hosts::inspector`); this is the fast tier's check of the same rules.

use serde_json::{Map, Value};

use crate::support::Adapter;

/// Keywords whose value is one subschema.
const ONE: [&str; 12] = [
    "items",
    "contains",
    "not",
    "propertyNames",
    "if",
    "then",
    "else",
    "additionalProperties",
    "unevaluatedProperties",
    "additionalItems",
    "unevaluatedItems",
    "contentSchema",
];
/// Keywords whose value is an array of subschemas.
const MANY: [&str; 4] = ["allOf", "anyOf", "oneOf", "prefixItems"];
/// Keywords whose value maps names to subschemas.
const MAP: [&str; 6] = [
    "properties",
    "patternProperties",
    "dependentSchemas",
    "dependencies",
    "$defs",
    "definitions",
];
/// Where a boolean is a legal, portable spelling (`additionalProperties: false`).
const BOOLEAN_OK: [&str; 4] = [
    "additionalProperties",
    "unevaluatedProperties",
    "additionalItems",
    "unevaluatedItems",
];
/// Keywords that constrain a value: a subschema with none of them accepts anything.
const CONSTRAINING: [&str; 42] = [
    "type",
    "enum",
    "const",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "format",
    "contentMediaType",
    "contentEncoding",
    "contentSchema",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "items",
    "prefixItems",
    "contains",
    "additionalItems",
    "unevaluatedItems",
    "properties",
    "patternProperties",
    "additionalProperties",
    "unevaluatedProperties",
    "propertyNames",
    "dependentSchemas",
    "dependencies",
    "$ref",
    "$dynamicRef",
];

/// Every problem of one schema, with the path where it is.
fn problems(root: &Value) -> Vec<String> {
    let mut out = Vec::new();
    walk(root, root, "", None, &mut out);
    out
}

fn walk(root: &Value, node: &Value, at: &str, keyword: Option<&str>, out: &mut Vec<String>) {
    let Value::Object(m) = node else {
        if node.is_boolean() && !keyword.is_some_and(|k| BOOLEAN_OK.contains(&k)) {
            out.push(format!(
                "{at}: a bare `{node}` where a schema object belongs"
            ));
        }
        return;
    };
    if m.get("type").is_some_and(Value::is_array) {
        out.push(format!(
            "{at}: `type` is an array; an anyOf of single types is portable"
        ));
    }
    if keyword != Some("not") && !m.keys().any(|k| CONSTRAINING.contains(&k.as_str())) {
        out.push(format!(
            "{at}: a schema with no validation keyword accepts anything"
        ));
    }
    if let Some(r) = m.get("$ref") {
        let target = r
            .as_str()
            .and_then(|r| r.strip_prefix('#'))
            .and_then(|p| root.pointer(p));
        if target.is_none() {
            out.push(format!("{at}: $ref {r} does not resolve inside the schema"));
        }
    }
    each_subschema(m, at, |child, path, k| {
        walk(root, child, &path, Some(k), out)
    });
}

fn each_subschema(m: &Map<String, Value>, at: &str, mut visit: impl FnMut(&Value, String, &str)) {
    for k in MAP {
        if let Some(Value::Object(children)) = m.get(k) {
            for (name, child) in children {
                visit(child, format!("{at}/{k}/{name}"), k);
            }
        }
    }
    for k in MANY {
        if let Some(Value::Array(children)) = m.get(k) {
            for (i, child) in children.iter().enumerate() {
                visit(child, format!("{at}/{k}/{i}"), k);
            }
        }
    }
    for k in ONE {
        if let Some(child) = m.get(k) {
            visit(child, format!("{at}/{k}"), k);
        }
    }
}

#[test]
fn every_schema_of_both_providers_is_portable() {
    let mut s = Adapter::new()
        .args(["--provider", "claude", "--provider", "cursor"])
        .spawn();
    s.init();
    let r = s.call("tools/list", None);
    let tools = r["result"]["tools"].as_array().expect("tools");
    assert_eq!(tools.len(), 14);
    let mut all = Vec::new();
    for t in tools {
        for which in ["inputSchema", "outputSchema"] {
            for p in problems(&t[which]) {
                all.push(format!("{} {which}{p}", t["name"]));
            }
        }
    }
    assert!(
        all.is_empty(),
        "{} problems:\n{}",
        all.len(),
        all.join("\n")
    );
}

#[test]
fn the_portability_rules_catch_what_strict_hosts_flag() {
    // The checker itself: each rule on a schema that breaks only it.
    use serde_json::json;
    let clean = json!({"type": "object", "properties": {"a": {"anyOf": [{"type": "string"},
        {"type": "null"}]}, "b": {"$ref": "#/$defs/B"}}, "additionalProperties": false,
        "$defs": {"B": {"type": "integer"}}});
    assert_eq!(problems(&clean), Vec::<String>::new());
    for (bad, expect) in [
        (
            json!({"type": "array", "items": true}),
            "/items: a bare `true`",
        ),
        (json!({"type": ["string", "null"]}), ": `type` is an array"),
        (
            json!({"type": "object", "properties": {"x": {}}}),
            "/properties/x: a schema with no",
        ),
        (
            json!({"type": "object", "properties": {"x": {"description": "d"}}}),
            "/properties/x",
        ),
        (json!({"$ref": "#/$defs/Missing"}), ": $ref"),
    ] {
        let found = problems(&bad);
        assert!(
            found.iter().any(|p| p.starts_with(expect)),
            "{bad}: {found:?}"
        );
    }
}
