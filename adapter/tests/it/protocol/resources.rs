//! The work resource (META-WORK-2, META-WORK-3) and resource errors.

use serde_json::{Value, json};
use uuid::Uuid;

use crate::support::Session;

const URI: &str = "computer-mcp://runtime/work/v1";

/// Reads the work snapshot; panics on an error answer.
pub fn read_snapshot(s: &mut Session) -> Value {
    let r = s.call("resources/read", Some(json!({"uri": URI})));
    let contents = r["result"]["contents"]
        .as_array()
        .unwrap_or_else(|| panic!("resources/read failed: {r}"));
    assert_eq!(contents.len(), 1, "{r}");
    assert_eq!(contents[0]["uri"], URI);
    assert_eq!(contents[0]["mimeType"], "application/json");
    serde_json::from_str(contents[0]["text"].as_str().expect("text")).expect("snapshot JSON")
}

#[test]
fn resources_list_names_the_work_resource() {
    // META-WORK-2
    let mut s = Session::start();
    s.init();
    let r = s.call("resources/list", None);
    let list = r["result"]["resources"].as_array().expect("resources");
    assert_eq!(list.len(), 1, "{r}");
    assert_eq!(list[0]["uri"], URI);
    assert_eq!(list[0]["mimeType"], "application/json");
    assert!(list[0]["name"].is_string());
}

#[test]
fn the_snapshot_has_the_meta_work_3_shape_and_a_fixed_instance() {
    // META-WORK-3
    let mut s = Session::start();
    s.init();
    let a = read_snapshot(&mut s);
    assert_eq!(a["format_version"], 1, "{a}");
    let instance = a["instance"].as_str().expect("instance");
    Uuid::parse_str(instance).expect("instance is a UUID");
    assert!(a["revision"].is_u64(), "{a}");
    assert_eq!(a["work"], json!([]), "a fresh adapter holds no work: {a}");
    let b = read_snapshot(&mut s);
    assert_eq!(
        a["instance"], b["instance"],
        "instance is fixed for the process"
    );
    assert!(b["revision"].as_u64() >= a["revision"].as_u64());
    // Another adapter process is another instance.
    let mut other = Session::start();
    other.init();
    assert_ne!(read_snapshot(&mut other)["instance"], a["instance"]);
}

#[test]
fn an_unknown_uri_is_resource_not_found_with_the_uri() {
    // C-RES: MCP's resource-not-found, with `data.uri`.
    let mut s = Session::start();
    s.init();
    for uri in ["computer-mcp://runtime/work/v2", "file:///etc/passwd", ""] {
        let r = s.call("resources/read", Some(json!({"uri": uri})));
        assert_eq!(r["error"]["code"], -32002, "{uri}: {r}");
        assert_eq!(r["error"]["data"]["uri"], uri, "{r}");
    }
}
