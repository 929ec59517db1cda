//! Metadata of the listed tools (META-RISK-1..3, META-WORK-1, META-CONT-1..2), under both name
//! projections (TOOL-1: identity lives in the metadata, never in the name).

use serde_json::{Value, json};

use super::tools::list_tools;
use crate::support::Adapter;

const RISK: &str = "io.github.computer-mcp/risk";
const WORK: &str = "io.github.computer-mcp/work";
const CONT: &str = "io.github.computer-mcp/continuation";

fn tools(projection: &str) -> Vec<Value> {
    let mut s = Adapter::new().args(["--tool-names", projection]).spawn();
    s.init();
    list_tools(&mut s)
}

/// The canonical name of a listed tool, whatever the projection.
fn canonical(t: &Value) -> String {
    t["name"].as_str().expect("name").replace('_', ".")
}

fn check_all(check: impl Fn(&str, &Value)) {
    for projection in ["dotted", "underscore"] {
        let listed = tools(projection);
        assert_eq!(listed.len(), 7);
        for t in &listed {
            check(&canonical(t), t);
        }
    }
}

#[test]
fn every_tool_declares_its_risk() {
    // META-RISK-1, META-RISK-2
    check_all(|name, t| {
        let want = match name {
            "claude.run" | "claude.run.start" => "full-shell",
            "claude.run.list" | "claude.run.result" | "claude.run.events" => "read-only",
            "claude.run.cancel" | "claude.run.release" => "destructive",
            other => panic!("unexpected tool {other}"),
        };
        assert_eq!(t["_meta"][RISK], want, "{name}");
    });
}

#[test]
fn annotations_never_claim_less_than_the_risk() {
    // META-RISK-3
    check_all(|name, t| {
        let risk = t["_meta"][RISK].as_str().expect("risk");
        let Some(ann) = t.get("annotations") else {
            return;
        };
        if ann["readOnlyHint"] == true {
            assert_eq!(risk, "read-only", "{name}: readOnlyHint on a {risk} tool");
        }
        if risk != "read-only" {
            assert_ne!(
                ann["destructiveHint"], false,
                "{name}: destructiveHint false"
            );
            assert_ne!(ann["readOnlyHint"], true, "{name}");
        }
    });
}

#[test]
fn every_tool_declares_the_work_resource() {
    // META-WORK-1
    check_all(|name, t| {
        assert_eq!(
            t["_meta"][WORK],
            json!({"format_version": 1, "uri": "computer-mcp://runtime/work/v1"}),
            "{name}"
        );
    });
}

#[test]
fn continuations_are_declared_exactly_on_the_run_id_tools() {
    // META-CONT-1, META-CONT-2
    check_all(|name, t| {
        let cont = t["_meta"].get(CONT);
        match name {
            "claude.run.result" | "claude.run.events" | "claude.run.cancel"
            | "claude.run.release" => {
                let c = cont.unwrap_or_else(|| panic!("{name}: no continuation"));
                assert_eq!(
                    c,
                    &json!({"format_version": 1, "kind": "claude.run", "id_pointer": "/run_id"}),
                    "{name}"
                );
                // The pointer names a required string property of the inputSchema.
                let schema = &t["inputSchema"];
                let prop = schema["properties"]
                    .pointer(c["id_pointer"].as_str().expect("pointer"))
                    .unwrap_or_else(|| panic!("{name}: pointer names no property"));
                assert_eq!(prop["type"], "string", "{name}");
                let required = schema["required"].as_array().expect("required");
                assert!(required.contains(&json!("run_id")), "{name}");
            }
            _ => assert!(cont.is_none(), "{name} must not declare a continuation"),
        }
    });
}

#[test]
fn all_meta_keys_are_namespaced() {
    check_all(|name, t| {
        for k in t["_meta"].as_object().expect("_meta").keys() {
            assert!(k.starts_with("io.github.computer-mcp/"), "{name}: {k}");
        }
    });
}
