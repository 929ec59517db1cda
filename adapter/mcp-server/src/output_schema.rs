//! The `outputSchema` of every tool (TOOL-6), generated from the typed results the tools answer
//! with ([`cmk_engine::results`]), so the declaration and the answer have one source.
//!
//! MCP (2025-06-18 and 2025-11-25, server/tools "Output Schema"): when a tool declares an
//! `outputSchema`, its `structuredContent` MUST conform to it. That holds for every answer the
//! tool gives, `isError` ones included, because clients validate whatever `structuredContent`
//! comes (the TypeScript SDK's `callTool` does, errors or not). So each schema is TOOL-4's
//! envelope `{"result": …}` where the result is either the role's typed result or a failed
//! operation's `{"error": {code, message, …}}` (TOOL-5).
//!
//! The dialect: the schema names no `$schema` (MCP 2025-11-25 reads such a schema as JSON Schema
//! 2020-12) and uses only keywords that draft-07 reads the same way, with every subschema inlined
//! (no `$ref`), because widely used clients validate with a draft-07 validator (the TypeScript
//! SDK's default Ajv). A `$schema` naming 2020-12 would make such a client refuse the schema.
//!
//! Where the schemas come from: schemars derives them from the result types ([`derived`]), and
//! the derivation is kept in `output_schemas.json` beside this file, which the server reads. A
//! unit test fails when the file is not exactly what the types derive today (`BLESS=1` rewrites
//! it), so the file cannot drift from the types, and a change of a tool's output contract shows
//! in review as a diff of that file. The server does not derive at run time because the
//! derivation was a third of an unoptimised adapter's CPU up to its first `tools/list` answer
//! (measured: 26.8 ms from start to that answer, 20.6 ms with the schemas read from the file;
//! every conformance case starts one adapter).

use std::sync::LazyLock;

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

use cmk_engine::provider::Role as ToolKind;
use cmk_engine::results::{
    CancelAnswer, EventsPage, Failure, Released, RunList, RunResult, Started,
};

/// The schemas of the result types, as derived by [`derived`] (checked by a unit test).
const CHECKED_IN: &str = include_str!("output_schemas.json");

/// [`CHECKED_IN`], parsed on first use (the first `tools/list`), never at start-up.
///
/// # Panics
/// On first use, when the file is not a JSON object: it is part of the source and a unit test
/// parses it, so that is a build defect, and a stand-in (an empty schema allows anything) would
/// declare a contract the tools do not keep.
static RESULTS: LazyLock<Map<String, Value>> =
    LazyLock::new(|| match serde_json::from_str(CHECKED_IN) {
        Ok(Value::Object(m)) => m,
        other => panic!("output_schemas.json is not a JSON object: {other:?}"),
    });

/// The result type a role's tool answers with, by its name in `output_schemas.json`.
fn result_type(kind: ToolKind) -> &'static str {
    match kind {
        ToolKind::Run | ToolKind::Result => "RunResult",
        ToolKind::Start => "Started",
        ToolKind::List => "RunList",
        ToolKind::Events => "EventsPage",
        ToolKind::Cancel => "CancelAnswer",
        ToolKind::Release => "Released",
    }
}

/// The `outputSchema` of a role's tool (the same in every provider namespace).
///
/// # Panics
/// When `output_schemas.json` lacks the role's result type or `Failure`: a build defect, which
/// the unit test `the_checked_in_schemas_are_what_the_result_types_derive` catches.
#[must_use]
pub fn for_role(kind: ToolKind) -> Value {
    let schema = |name: &str| match RESULTS.get(name) {
        Some(s) => s.clone(),
        None => panic!("output_schemas.json has no schema for {name}"),
    };
    envelope(schema(result_type(kind)), schema("Failure"))
}

/// TOOL-4's envelope around a role's result schema or TOOL-5's failure.
fn envelope(result: Value, failure: Value) -> Value {
    json!({
        "type": "object",
        "properties": {
            "result": {"anyOf": [result, failure]}
        },
        "required": ["result"]
    })
}

/// What schemars derives for every result type today, by type name: the content
/// `output_schemas.json` must have.
#[must_use]
pub fn derived() -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("RunResult".into(), schema_of::<RunResult>());
    m.insert("Started".into(), schema_of::<Started>());
    m.insert("RunList".into(), schema_of::<RunList>());
    m.insert("EventsPage".into(), schema_of::<EventsPage>());
    m.insert("CancelAnswer".into(), schema_of::<CancelAnswer>());
    m.insert("Released".into(), schema_of::<Released>());
    m.insert("Failure".into(), schema_of::<Failure<'static>>());
    m
}

/// The schema of what `T` serialises to: subschemas inlined, no `$schema`, no root `title`.
fn schema_of<T: JsonSchema>() -> Value {
    let mut settings = SchemaSettings::draft2020_12().for_serialize();
    settings.inline_subschemas = true;
    settings.meta_schema = None;
    let mut v = settings
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    if let Value::Object(m) = &mut v {
        m.remove("title");
    }
    collapse_string_enums(&mut v);
    drop_number_formats(&mut v);
    v
}

/// schemars marks Rust integer widths as `"format": "uint32"` and the like, formats no JSON
/// Schema dialect defines: a client validating formats (the TS SDK's Ajv) warns about each on
/// stderr. `minimum` already says what matters (not negative).
fn drop_number_formats(v: &mut Value) {
    match v {
        Value::Object(m) => {
            if m.get("format")
                .and_then(Value::as_str)
                .is_some_and(|f| f.starts_with("int") || f.starts_with("uint"))
            {
                m.remove("format");
            }
            m.values_mut().for_each(drop_number_formats);
        }
        Value::Array(a) => a.iter_mut().for_each(drop_number_formats),
        _ => {}
    }
}

/// schemars spells an enum whose variants carry doc comments as a `oneOf` of documented
/// `const`s; a host needs the values, not our variant docs: one `{"type": "string", "enum": […]}`
/// says the same in a fraction of the bytes (`tools/list` is read into models' contexts).
fn collapse_string_enums(v: &mut Value) {
    match v {
        Value::Object(m) => {
            let values = m
                .get("oneOf")
                .and_then(Value::as_array)
                .and_then(|members| {
                    let mut all = Vec::new();
                    for member in members {
                        if member.get("type") != Some(&Value::from("string")) {
                            return None;
                        }
                        match (member.get("const"), member.get("enum")) {
                            (Some(c), None) => all.push(c.clone()),
                            (None, Some(Value::Array(e))) => all.extend(e.iter().cloned()),
                            _ => return None,
                        }
                    }
                    Some(all)
                });
            if let Some(values) = values {
                m.remove("oneOf");
                m.insert("type".into(), "string".into());
                m.insert("enum".into(), Value::Array(values));
            }
            m.values_mut().for_each(collapse_string_enums);
        }
        Value::Array(a) => a.iter_mut().for_each(collapse_string_enums),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every keyword of a schema tree, with the JSON Pointer of where it was found.
    fn keywords(v: &Value, at: &str, out: &mut Vec<(String, String)>) {
        match v {
            Value::Object(m) => {
                for (k, child) in m {
                    out.push((at.to_owned(), k.clone()));
                    // Property names are not keywords.
                    if k == "properties" {
                        if let Value::Object(props) = child {
                            for (name, s) in props {
                                keywords(s, &format!("{at}/properties/{name}"), out);
                            }
                        }
                    } else {
                        keywords(child, &format!("{at}/{k}"), out);
                    }
                }
            }
            Value::Array(a) => {
                for (i, c) in a.iter().enumerate() {
                    keywords(c, &format!("{at}/{i}"), out);
                }
            }
            _ => {}
        }
    }

    #[test]
    fn the_checked_in_schemas_are_what_the_result_types_derive() {
        // TOOL-6: the served schemas are the types' derivation, byte for byte.
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/output_schemas.json");
        let derived = derived();
        let mut text = serde_json::to_string_pretty(&derived).expect("a JSON map serialises");
        text.push('\n');
        testkit::golden::check(&path, &text);
        assert_eq!(
            *RESULTS, derived,
            "the binary was built with another output_schemas.json (rebuild after BLESS=1)"
        );
        for kind in ToolKind::ALL {
            assert!(RESULTS.contains_key(result_type(kind)), "{kind:?}");
        }
    }

    #[test]
    fn every_output_schema_is_a_valid_schema_in_draft_07_and_2020_12_alike() {
        // The keywords both dialects read the same way; `$ref`, `$defs`, `$schema`,
        // `prefixItems` and friends would make a draft-07 client (the TS SDK) read another
        // schema than a 2020-12 one.
        const COMMON: [&str; 13] = [
            "type",
            "properties",
            "required",
            "items",
            "anyOf",
            "oneOf",
            "enum",
            "const",
            "description",
            "minimum",
            "maximum",
            "additionalProperties",
            "default",
        ];
        for kind in ToolKind::ALL {
            let s = for_role(kind);
            assert!(jsonschema::draft202012::meta::is_valid(&s), "{kind:?}");
            assert!(jsonschema::draft7::meta::is_valid(&s), "{kind:?}");
            let mut found = Vec::new();
            keywords(&s, "", &mut found);
            for (at, k) in found {
                assert!(COMMON.contains(&k.as_str()), "{kind:?}: {k} at {at}: {s:#}");
            }
        }
    }

    #[test]
    fn every_property_of_every_result_object_is_required() {
        // The result types never skip a field (`null` for none), so a host may rely on each.
        fn check(v: &Value, at: &str) {
            match v {
                Value::Object(m) => {
                    if let Some(Value::Object(props)) = m.get("properties") {
                        let required: Vec<&str> = m
                            .get("required")
                            .and_then(Value::as_array)
                            .map(|r| r.iter().filter_map(Value::as_str).collect())
                            .unwrap_or_default();
                        for name in props.keys() {
                            assert!(required.contains(&name.as_str()), "{name} at {at}");
                        }
                    }
                    for (k, c) in m {
                        check(c, &format!("{at}/{k}"));
                    }
                }
                Value::Array(a) => a.iter().for_each(|c| check(c, at)),
                _ => {}
            }
        }
        for kind in ToolKind::ALL {
            check(&for_role(kind), &format!("{kind:?}"));
        }
    }
}
