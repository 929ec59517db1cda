//! The context budget (TOOL-8): what `tools/list` puts in front of every conversation, with both
//! providers served. The sizes are deterministic (the listing is built from constants), so the
//! bounds are asserted in bytes; `bench/context.md` has the figures beside server-everything's.

use serde_json::{Value, json};

use crate::support::Adapter;

/// TOOL-8: the whole `tools/list` result, both providers.
const LISTING_MAX: usize = 32_000;
/// TOOL-8: names, descriptions and input schemas of the fourteen tools.
const CALLING_MAX: usize = 10_000;

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
