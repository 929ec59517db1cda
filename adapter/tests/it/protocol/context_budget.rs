//! The context budget (TOOL-8): what `tools/list` puts in front of every conversation, with both
//! providers served, and what one successful run's result adds in text form. The sizes are
//! deterministic (the listing is built from constants, fake-claude's `success` final is fixed), so
//! the bounds are asserted in bytes; `bench/context.md` has the figures beside server-everything's.

use serde_json::{Value, json};

use super::calls::{scenario, session};
use super::tools::structured;
use crate::support::Adapter;

/// TOOL-8: the whole `tools/list` result, both providers.
const LISTING_MAX: usize = 32_000;
/// TOOL-8: names, descriptions and input schemas of the fourteen tools.
const CALLING_MAX: usize = 10_000;
/// TOOL-8: one successful run's result in text form (its text block, TOOL-4).
const RUN_TEXT_MAX: usize = 1_500;

/// Bytes of compact JSON.
fn size(v: &Value) -> usize {
    v.to_string().len()
}

/// The `tools/list` result of an adapter serving both providers.
fn both_providers_listing() -> Value {
    let mut s = Adapter::new()
        .args(["--provider", "claude", "--provider", "cursor"])
        .spawn();
    s.init();
    let r = s.call("tools/list", None);
    r["result"].clone()
}

#[test]
fn tools_list_with_both_providers_fits_the_context_budget() {
    let listing = both_providers_listing();
    let tools = listing["tools"].as_array().expect("tools");
    assert_eq!(tools.len(), 14);
    let whole = size(&listing);
    let calling: usize = tools
        .iter()
        .map(|t| {
            size(&json!({
                "name": t["name"],
                "description": t["description"],
                "inputSchema": t["inputSchema"],
            }))
        })
        .sum();
    eprintln!("tools/list: {whole} bytes; names, descriptions, input schemas: {calling} bytes");
    assert!(
        whole <= LISTING_MAX,
        "tools/list is {whole} bytes, over {LISTING_MAX}"
    );
    assert!(
        calling <= CALLING_MAX,
        "names, descriptions and input schemas are {calling} bytes, over {CALLING_MAX}"
    );
}

#[test]
fn the_budget_keeps_the_metadata_and_the_typed_output_schemas() {
    // TOOL-8 is met by shorter texts and compact schemas, never by leaving out what a host
    // relies on: every tool keeps its `_meta` declarations (META-RISK-1, META-WORK-1,
    // META-CONT-1), its annotations and an object `outputSchema` with the result's members.
    let listing = both_providers_listing();
    for t in listing["tools"].as_array().expect("tools") {
        let name = t["name"].as_str().expect("name");
        let meta = &t["_meta"];
        assert!(meta["io.github.computer-mcp/risk"].is_string(), "{name}");
        assert!(meta["io.github.computer-mcp/work"].is_object(), "{name}");
        assert!(t["annotations"].is_object(), "{name}");
        let out = &t["outputSchema"];
        assert_eq!(out["type"], "object", "{name}");
        let result = &out["properties"]["result"]["anyOf"][0];
        assert!(
            result["properties"]
                .as_object()
                .is_some_and(|p| !p.is_empty()),
            "{name}: {out}"
        );
        assert!(result["required"].is_array(), "{name}: {out}");
    }
}

#[test]
fn a_successful_run_result_fits_the_context_budget_in_text_form() {
    let mut s = session("2025-06-18");
    let r = s.call_tool("claude.run", json!({"prompt": scenario("success")}), None);
    assert_eq!(r["isError"], false, "{r}");
    let text = r["content"][0]["text"].as_str().expect("text block");
    eprintln!(
        "claude.run success: text {} bytes, structuredContent {} bytes",
        text.len(),
        size(&r["structuredContent"])
    );
    assert!(
        text.len() <= RUN_TEXT_MAX,
        "the success result's text is {} bytes, over {RUN_TEXT_MAX}: {text}",
        text.len()
    );
    // The budget is met in the text only: `structuredContent` keeps the native final verbatim
    // (RUN-11), its usage included, and the text keeps every scalar a model reads.
    let result = structured(&r);
    assert!(result["final"]["usage"].is_object(), "{r}");
    let shown: Value = serde_json::from_str(text).expect("text is JSON");
    assert_eq!(
        shown["result"]["final"]["result"],
        result["final"]["result"]
    );
    assert_eq!(shown["result"]["state"], "succeeded");
}
