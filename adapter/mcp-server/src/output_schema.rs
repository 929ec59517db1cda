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
//! 2020-12) and uses only keywords that draft-07 reads the same way, because widely used clients
//! validate with a draft-07 validator (the TypeScript SDK's default Ajv). A type used more than
//! once in one schema (the error object, a loop-guard fingerprint) is written once under the
//! schema's own `$defs` and named by a `$ref` with nothing beside it, which both dialects resolve
//! alike; every other subschema is inlined (TOOL-6).
//!
//! Portable (TOOL-7): what strict hosts (MCP Inspector's `--strict` schema lint) flag has a
//! portable spelling here: no boolean subschema, no `type` array (a nullable value is an `anyOf`
//! of single-type branches), no subschema without a validation keyword (a field holding native
//! JSON says what it holds, see [`cmk_engine::results`]).
//!
//! Compact: every schema goes into a model's context with `tools/list`, so the served schemas carry
//! no `description`s; what each field means is the doc comment of its type, rendered in
//! `docs/results.md` ([`documented`], kept equal by a unit test).
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
use cmk_engine::tools::{Denial, Highest, ToolCall, TripSummary};

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
    let mut defs = Map::new();
    let result = take_defs(schema(result_type(kind)), &mut defs);
    let failure = take_defs(schema("Failure"), &mut defs);
    let mut doc = envelope(result, failure);
    if let Value::Object(m) = &mut doc {
        m.insert("$defs".into(), Value::Object(defs));
    }
    keep_shared_defs(&mut doc);
    doc
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

/// Moves a derived schema's `$defs` into `defs` (the same name is the same type in every
/// derivation of the one type system).
fn take_defs(mut schema: Value, defs: &mut Map<String, Value>) -> Value {
    if let Some(Value::Object(own)) = schema.as_object_mut().and_then(|m| m.remove("$defs")) {
        defs.extend(own);
    }
    schema
}

/// The `$ref` prefix of a definition of the same document.
const DEFS_REF: &str = "#/$defs/";

/// Keeps under `$defs` only the definitions the schema refers to more than once, each written
/// out whole (no `$ref` inside a definition, so a reader resolves one level of reference, never
/// a chain); every other definition is inlined where it is used.
fn keep_shared_defs(doc: &mut Value) {
    let Some(Value::Object(all)) = doc.as_object_mut().and_then(|m| m.remove("$defs")) else {
        return;
    };
    // Inline, one level at a time, what the body uses once: a type used once by each of two
    // types that are themselves used once (a fingerprint in `highest` and in `tripped`) is then
    // seen used twice.
    let mut left = all.clone();
    loop {
        let mut uses = std::collections::BTreeMap::<String, usize>::new();
        count_refs(doc, &mut uses);
        let once: Map<String, Value> = uses
            .iter()
            .filter(|(_, n)| **n == 1)
            .filter_map(|(name, _)| left.remove(name).map(|d| (name.clone(), d)))
            .collect();
        if once.is_empty() {
            let shared: Map<String, Value> = left
                .into_iter()
                .filter(|(name, _)| uses.contains_key(name))
                .map(|(name, mut d)| {
                    replace_refs(&mut d, &all, 0);
                    (name, d)
                })
                .collect();
            if !shared.is_empty()
                && let Value::Object(m) = doc
            {
                m.insert("$defs".into(), Value::Object(shared));
            }
            return;
        }
        replace_refs_once(doc, &once);
    }
}

/// [`replace_refs`] one level deep: the inlined definitions' own references stay.
fn replace_refs_once(v: &mut Value, inline: &Map<String, Value>) {
    match v {
        Value::Object(m) => {
            let def = m
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix(DEFS_REF))
                .and_then(|name| inline.get(name));
            if let Some(Value::Object(def)) = def {
                m.remove("$ref");
                for (k, d) in def {
                    m.entry(k.clone()).or_insert_with(|| d.clone());
                }
                return;
            }
            m.values_mut().for_each(|c| replace_refs_once(c, inline));
        }
        Value::Array(a) => a.iter_mut().for_each(|c| replace_refs_once(c, inline)),
        _ => {}
    }
}

fn count_refs(v: &Value, uses: &mut std::collections::BTreeMap<String, usize>) {
    match v {
        Value::Object(m) => {
            if let Some(name) = m
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix(DEFS_REF))
            {
                *uses.entry(name.to_owned()).or_default() += 1;
            }
            m.values().for_each(|c| count_refs(c, uses));
        }
        Value::Array(a) => a.iter().for_each(|c| count_refs(c, uses)),
        _ => {}
    }
}

/// Replaces each `{"$ref": "#/$defs/NAME"}` of `inline` by the definition (merged with any
/// keyword beside the `$ref`), the definitions' own references included. The result types are
/// not recursive; `depth` stops a recursive one from looping.
fn replace_refs(v: &mut Value, inline: &Map<String, Value>, depth: usize) {
    const MAX_DEPTH: usize = 32;
    if depth > MAX_DEPTH {
        return;
    }
    match v {
        Value::Object(m) => {
            let def = m
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix(DEFS_REF))
                .and_then(|name| inline.get(name));
            if let Some(Value::Object(def)) = def {
                m.remove("$ref");
                for (k, d) in def {
                    m.entry(k.clone()).or_insert_with(|| d.clone());
                }
            }
            m.values_mut()
                .for_each(|c| replace_refs(c, inline, depth + 1));
        }
        Value::Array(a) => a
            .iter_mut()
            .for_each(|c| replace_refs(c, inline, depth + 1)),
        _ => {}
    }
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

/// The result types with their doc comments as `description`s, rendered as the Markdown of
/// `docs/results.md` (what the served schemas leave out, TOOL-6).
#[must_use]
pub fn documented() -> String {
    let types = [
        ("RunResult", documented_schema_of::<RunResult>()),
        ("Started", documented_schema_of::<Started>()),
        ("RunList", documented_schema_of::<RunList>()),
        ("EventsPage", documented_schema_of::<EventsPage>()),
        ("CancelAnswer", documented_schema_of::<CancelAnswer>()),
        ("Released", documented_schema_of::<Released>()),
        ("Failure", documented_schema_of::<Failure<'static>>()),
        ("ToolCall", documented_schema_of::<ToolCall>()),
        ("Denial", documented_schema_of::<Denial>()),
        ("Highest", documented_schema_of::<Highest>()),
        ("TripSummary", documented_schema_of::<TripSummary>()),
    ];
    let mut defs = Map::new();
    let mut out = String::from(
        "# Tool results, field by field\n\n\
         Generated from the result types' doc comments (`adapter/engine/src/results.rs` and the \
         types it uses) by `BLESS=1 cargo test -p cmk-mcp-server --lib output_schema`; never \
         edit it by hand. Each tool's `outputSchema` in `tools/list` declares these types \
         without the descriptions (TOOL-6): `{\"result\": R}`, `R` the tool's result or a \
         `Failure`. `.run` and `.result` answer `RunResult`, `.start` `Started`, `.list` \
         `RunList`, `.events` `EventsPage`, `.cancel` `CancelAnswer`, `.release` `Released`. \
         Every field is always present (`null` when there is none). The text block of a \
         result is the compact JSON of `structuredContent`, except that `RunResult.final` keeps \
         only its scalar members there (TOOL-4): read `usage` and the like from \
         `structuredContent`.\n",
    );
    for (name, schema) in types {
        let schema = take_defs(schema, &mut defs);
        render_type(&mut out, name, &schema);
    }
    for (name, schema) in &defs {
        if schema.get("properties").is_some() {
            render_type(&mut out, name, schema);
        }
    }
    let enums: Vec<(&String, &Value)> = defs
        .iter()
        .filter(|(_, s)| s.get("enum").is_some())
        .collect();
    if !enums.is_empty() {
        out.push_str("\n## Value sets\n\n| Name | Values |\n|---|---|\n");
        for (name, s) in enums {
            out.push_str(&format!("| `{name}` | {} |\n", type_text(s)));
        }
    }
    out
}

/// One `## Name` section: its description and a table of its fields.
fn render_type(out: &mut String, name: &str, schema: &Value) {
    use std::fmt::Write as _;
    let _ = write!(out, "\n## {name}\n\n");
    if let Some(d) = schema.get("description").and_then(Value::as_str) {
        let _ = write!(out, "{d}\n\n");
    }
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    out.push_str("| Field | Type | Meaning |\n|---|---|---|\n");
    for (field, s) in props {
        let d = s.get("description").and_then(Value::as_str).unwrap_or("");
        let _ = writeln!(
            out,
            "| `{field}` | {} | {} |",
            type_text(s),
            d.replace('|', "\\|")
        );
    }
}

/// A schema as a reader says it: `string`, `integer ≥ 0`, `RunState`, `A or null`, `one of …`.
fn type_text(s: &Value) -> String {
    if let Some(name) = s
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix(DEFS_REF))
    {
        return format!("`{name}`");
    }
    if let Some(Value::Array(branches)) = s.get("anyOf") {
        return branches
            .iter()
            .map(type_text)
            .collect::<Vec<_>>()
            .join(" or ");
    }
    if let Some(Value::Array(values)) = s.get("enum") {
        let v: Vec<String> = values
            .iter()
            .map(|v| format!("`{}`", v.as_str().unwrap_or("?")))
            .collect();
        return format!("one of {}", v.join(", "));
    }
    match s.get("type").and_then(Value::as_str) {
        Some("array") => format!(
            "array of {}",
            s.get("items").map_or("any".into(), type_text)
        ),
        Some("integer") => match s.get("minimum") {
            Some(min) => format!("integer ≥ {min}"),
            None => "integer".into(),
        },
        Some(t) => t.into(),
        None => "any".into(),
    }
}

/// The schema of what `T` serialises to as served: named types under `$defs` ([`for_role`]
/// keeps the shared ones), no `$schema`, no root `title`, no `description`s, portable.
fn schema_of<T: JsonSchema>() -> Value {
    let mut v = documented_schema_of::<T>();
    strip_descriptions(&mut v);
    drop_default_additional_properties(&mut v);
    open_value_sets(&mut v);
    v
}

/// Value sets served as plain strings: the error codes (TOOL-5). Twenty codes in each of the
/// fourteen tools' schemas were a fifth of `tools/list`; a host reads the code it is given,
/// and the set is TOOL-5's, listed in `docs/results.md`.
const OPEN_SETS: [&str; 1] = ["ErrorCode"];

fn open_value_sets(v: &mut Value) {
    if let Some(defs) = v.get_mut("$defs").and_then(Value::as_object_mut) {
        for name in OPEN_SETS {
            if let Some(d) = defs.get_mut(name) {
                *d = json!({"type": "string"});
            }
        }
    }
}

/// Drops `"additionalProperties": true`, the default (schemars writes it for the error's
/// flattened extra members): the same schema in fewer bytes.
fn drop_default_additional_properties(v: &mut Value) {
    match v {
        Value::Object(m) => {
            if m.get("additionalProperties") == Some(&Value::Bool(true)) {
                m.remove("additionalProperties");
            }
            m.values_mut().for_each(drop_default_additional_properties);
        }
        Value::Array(a) => a.iter_mut().for_each(drop_default_additional_properties),
        _ => {}
    }
}

/// [`schema_of`] with the types' doc comments as `description`s (the source of
/// `docs/results.md`).
fn documented_schema_of<T: JsonSchema>() -> Value {
    let mut settings = SchemaSettings::draft2020_12().for_serialize();
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
    split_type_arrays(&mut v);
    v
}

/// Drops every `description` keyword (property names are not keywords).
fn strip_descriptions(v: &mut Value) {
    match v {
        Value::Object(m) => {
            if m.get("description").is_some_and(Value::is_string) {
                m.remove("description");
            }
            for (k, c) in m.iter_mut() {
                if k == "properties" {
                    if let Value::Object(props) = c {
                        props.values_mut().for_each(strip_descriptions);
                    }
                } else {
                    strip_descriptions(c);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(strip_descriptions),
        _ => {}
    }
}

/// schemars spells an `Option<T>` of a plain type as `{"type": ["T", "null"]}`: legal, but a
/// host mapping tool schemas onto a single-`type` dialect rejects it (TOOL-7). The same as an
/// `anyOf` of single-type branches, each keeping the other keywords that apply to it.
fn split_type_arrays(v: &mut Value) {
    match v {
        Value::Object(m) => {
            if let Some(Value::Array(types)) = m.get("type").cloned() {
                m.remove("type");
                let description = m.remove("description");
                let rest = std::mem::take(m);
                let branches: Vec<Value> = types
                    .into_iter()
                    .map(|t| {
                        let mut b = Map::new();
                        let null = t == "null";
                        b.insert("type".into(), t);
                        if !null {
                            b.extend(rest.iter().map(|(k, x)| (k.clone(), x.clone())));
                        }
                        Value::Object(b)
                    })
                    .collect();
                m.insert("anyOf".into(), Value::Array(branches));
                if let Some(d) = description {
                    m.insert("description".into(), d);
                }
            }
            m.values_mut().for_each(split_type_arrays);
        }
        Value::Array(a) => a.iter_mut().for_each(split_type_arrays),
        _ => {}
    }
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
                    // Property and definition names are not keywords.
                    if k == "properties" || k == "$defs" {
                        if let Value::Object(props) = child {
                            for (name, s) in props {
                                keywords(s, &format!("{at}/{k}/{name}"), out);
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
        // TOOL-6: the keywords both dialects read the same way; `$schema`, `prefixItems`,
        // `$dynamicRef` and friends would make a draft-07 client (the TS SDK) read another schema
        // than a 2020-12 one. A `$ref` names a definition of the same document's `$defs` and
        // has nothing beside it (draft-07 ignores a `$ref`'s siblings).
        const COMMON: [&str; 15] = [
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
            "$ref",
            "$defs",
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
            let defs = s.get("$defs").and_then(Value::as_object);
            let mut uses = std::collections::BTreeMap::new();
            count_refs(&s, &mut uses);
            for (name, n) in &uses {
                assert!(
                    defs.is_some_and(|d| d.contains_key(name)),
                    "{kind:?}: {name}"
                );
                assert!(
                    *n > 1,
                    "{kind:?}: {name} is used once and should be inlined"
                );
            }
            assert_eq!(
                defs.map_or(0, Map::len),
                uses.len(),
                "{kind:?}: an unused definition"
            );
            for (name, def) in defs.into_iter().flatten() {
                let mut inner = std::collections::BTreeMap::new();
                count_refs(def, &mut inner);
                assert!(inner.is_empty(), "{kind:?}: {name} refers to {inner:?}");
            }
        }
    }

    #[test]
    fn draft_07_and_2020_12_validators_judge_results_alike() {
        // TOOL-6: the `$ref`s resolve the same way in both dialects: a result that conforms
        // passes both, one that does not fails both.
        let run = json!({"result": {
            "run_id": "run_1", "state": "failed", "completed": true, "is_error": true,
            "native_session_id": null, "final": {"type": "result"}, "native_error": null,
            "error": {"code": "timeout", "message": "m", "extra": 1},
            "cleanup_confirmed": true, "cleanup_error": null, "exit_code": null, "signal": 9,
            "events_total": 1, "events_dropped": 0, "stderr_tail": "",
            "tool_calls": {"calls": [], "left_out": 0},
            "permission_denials": {"denials": [], "left_out": 0},
            "loop_guard": {"enabled": true, "limit": 2, "coarse_limit": 16,
                "highest": {"fingerprint": {"kind": "strict", "tool": "shell",
                    "arguments": {"command": "ls"}, "outcome": "ok"}, "count": 1, "limit": 2},
                "tripped": null},
            "structured": null
        }});
        let failure = json!({"result": {"error": {"code": "unknown_run", "message": "m"}}});
        // The shared error definition, through the `$ref`.
        let mut bad_error = run.clone();
        bad_error["result"]["error"]["message"] = 1.into();
        let mut bad_state = run.clone();
        bad_state["result"]["state"] = "done".into();
        // Else it would pass as a failure (`{"error": …}` with more members).
        bad_state["result"]["error"] = Value::Null;
        let s = for_role(ToolKind::Result);
        let v7 = jsonschema::draft7::new(&s).expect("draft-07 compiles");
        let v12 = jsonschema::draft202012::new(&s).expect("2020-12 compiles");
        for (instance, valid) in [
            (&run, true),
            (&failure, true),
            (&bad_error, false),
            (&bad_state, false),
        ] {
            assert_eq!(v7.is_valid(instance), valid, "draft-07: {instance}");
            assert_eq!(v12.is_valid(instance), valid, "2020-12: {instance}");
        }
    }

    #[test]
    fn the_results_doc_is_what_the_types_say() {
        // The field descriptions the served schemas leave out live in docs/results.md.
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/results.md");
        testkit::golden::check(&path, &documented());
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
