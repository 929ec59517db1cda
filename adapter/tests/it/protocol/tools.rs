//! The tool catalogue and tools/call surface: TOOL-1..5, RUN-0 schemas, META-WORK-4 parsing.

use serde_json::{Map, Value, json};

use crate::support::{Adapter, Session};

pub const DOTTED: [&str; 7] = [
    "claude.run",
    "claude.run.start",
    "claude.run.list",
    "claude.run.result",
    "claude.run.events",
    "claude.run.cancel",
    "claude.run.release",
];

/// The listed tools of an initialized session.
pub fn list_tools(s: &mut Session) -> Vec<Value> {
    let r = s.call("tools/list", None);
    assert!(r["result"].get("nextCursor").is_none(), "{r}");
    r["result"]["tools"]
        .as_array()
        .cloned()
        .expect("tools array")
}

fn tool<'a>(tools: &'a [Value], name: &str) -> &'a Value {
    tools
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("{name} not listed"))
}

/// Asserts the TOOL-4 shape and returns `structuredContent.result`.
pub fn structured(result: &Value) -> Value {
    assert!(result["isError"].is_boolean(), "isError: {result}");
    let content = result["content"].as_array().expect("content");
    assert_eq!(content.len(), 1, "exactly one content block: {result}");
    assert_eq!(content[0]["type"], "text");
    let text: Value =
        serde_json::from_str(content[0]["text"].as_str().expect("text")).expect("text is JSON");
    assert_eq!(
        text,
        crate::support::client::text_mirror(&result["structuredContent"]),
        "C-TOOL-4: the text is structuredContent with final's scalars only"
    );
    let sc = result["structuredContent"]
        .as_object()
        .expect("structuredContent");
    assert_eq!(sc.len(), 1, "structuredContent holds only result: {result}");
    sc["result"].clone()
}

/// Asserts an `invalid_arguments` tool result naming `field`.
fn assert_invalid(result: &Value, field: &str, what: &str) {
    assert_eq!(result["isError"], true, "{what}: {result}");
    let r = structured(result);
    assert_eq!(r["error"]["code"], "invalid_arguments", "{what}: {result}");
    assert_eq!(r["error"]["field"], field, "{what}: {result}");
    assert!(r["error"]["message"].is_string());
}

#[test]
fn exactly_seven_dotted_tools_are_listed() {
    // TOOL-1
    let mut s = Session::start();
    s.init();
    let names: Vec<Value> = list_tools(&mut s)
        .iter()
        .map(|t| t["name"].clone())
        .collect();
    assert_eq!(names, DOTTED.map(Value::from).to_vec());
}

#[test]
fn underscore_projection_renames_and_keeps_everything_else() {
    // TOOL-1: identical metadata and behaviour; C-TOOL-6: only `_meta` keeps dotted names.
    let mut dotted = Session::start();
    dotted.init();
    let mut under = Adapter::new().args(["--tool-names", "underscore"]).spawn();
    under.init();
    let a = list_tools(&mut dotted);
    let b = list_tools(&mut under);
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        let want = x["name"].as_str().expect("name").replace('.', "_");
        assert_eq!(y["name"], want.as_str());
        let strip = |v: &Value| {
            let mut m = v.as_object().cloned().expect("tool");
            m.remove("name");
            m
        };
        // C-TOOL-6: every text names tools in the active projection; `_meta` (identity) and
        // everything else stay identical.
        let mut projected = serde_json::to_string(&strip(x)).expect("json");
        for name in DOTTED.iter().rev() {
            // Longest first: `claude.run.result` before `claude.run`.
            projected = projected.replace(name, &name.replace('.', "_"));
        }
        let projected = projected.replace(
            "\"claude_run\",\"id_pointer\"",
            "\"claude.run\",\"id_pointer\"",
        );
        let y_text = serde_json::to_string(&strip(y)).expect("json");
        assert_eq!(projected, y_text, "{want}");
        let without_meta = {
            let mut m = strip(y);
            m.remove("_meta");
            serde_json::to_string(&m).expect("json")
        };
        assert!(
            !without_meta.contains("claude.run"),
            "{want}: {without_meta}"
        );
    }
    // Calls use the projected name; the dotted one is unknown there.
    let r = under.call_tool("claude_run_list", json!({}), None);
    assert_eq!(r["isError"], false, "{r}");
    let r = under.call_tool_response("claude.run.list", json!({}), None);
    assert_eq!(r["error"]["code"], -32602, "{r}");
    // The other spelling of a listed name names the listed one (and the reverse).
    let message = |r: &Value| r["error"]["message"].as_str().expect("message").to_owned();
    let r = under.call_tool_response("claude.run", json!({}), None);
    assert!(
        message(&r).ends_with(
            "unknown tool \"claude.run\"; did you mean \"claude_run\"? (this server spells \
             tool names as tools/list shows them, see --tool-names)"
        ),
        "{r}"
    );
    let r = dotted.call_tool_response("claude_run_start", json!({}), None);
    assert!(
        message(&r).contains("did you mean \"claude.run.start\"?"),
        "{r}"
    );
    let r = dotted.call_tool_response("claude.walk", json!({}), None);
    assert!(message(&r).ends_with("unknown tool \"claude.walk\""), "{r}");
}

#[test]
fn every_input_schema_is_a_valid_closed_2020_12_object_schema() {
    // TOOL-2
    let mut s = Session::start();
    s.init();
    for t in list_tools(&mut s) {
        let schema = &t["inputSchema"];
        if let Err(e) = jsonschema::draft202012::meta::validate(schema) {
            panic!("{}: not a valid 2020-12 schema: {e}", t["name"]);
        }
        assert_eq!(schema["type"], "object", "{}", t["name"]);
        assert_eq!(schema["additionalProperties"], false, "{}", t["name"]);
        let props = schema["properties"].as_object().expect("properties");
        for (k, p) in props {
            let ty = p["type"].as_str().unwrap_or_else(|| panic!("{k} untyped"));
            match ty {
                "string" => assert!(
                    p.get("enum").is_some()
                        || p.get("maxLength").is_some()
                        || p.get("pattern").is_some(),
                    "{}: string {k} unbounded",
                    t["name"]
                ),
                "integer" => assert!(
                    p.get("minimum").is_some() && p.get("maximum").is_some(),
                    "{}: integer {k} unbounded",
                    t["name"]
                ),
                "number" => assert!(
                    p.get("exclusiveMinimum").is_some() || p.get("minimum").is_some(),
                    "{}: number {k} unbounded",
                    t["name"]
                ),
                "boolean" => {}
                // JSONOUT-1: a schema object's size cannot be stated in JSON Schema; the engine
                // bounds it and the description says so.
                "object" => assert!(
                    k == "json_schema"
                        && p["description"]
                            .as_str()
                            .is_some_and(|d| d.contains("bytes")),
                    "{}: object {k} unbounded",
                    t["name"]
                ),
                other => panic!("{k}: unexpected type {other}"),
            }
            // Described where the name, type, bounds and default do not say it all (the rest
            // is in docs/tools.md: every byte here is in a model's context).
            const NEED_WORDS: [&str; 7] = [
                "cwd",
                "loop_guard",
                "json_schema",
                "detach_after_s",
                "permission_mode",
                "resume_session_id",
                "cursor",
            ];
            assert!(
                p.get("description")
                    .map_or(!NEED_WORDS.contains(&k.as_str()), Value::is_string),
                "{}: {k} undocumented",
                t["name"]
            );
        }
        assert!(t["title"].is_string() && t["description"].is_string());
    }
}

#[test]
fn run_schemas_follow_run_0() {
    let mut s = Adapter::new().args(["--max-timeout-s", "77"]).spawn();
    s.init();
    let tools = list_tools(&mut s);
    let run_args = [
        "prompt",
        "cwd",
        "timeout_s",
        "permission_mode",
        "model",
        "effort",
        "append_system_prompt",
        "max_budget_usd",
        "resume_session_id",
        "continue_previous",
        "session_id",
        "no_session_persistence",
        "loop_guard",
        "loop_limit",
        "json_schema",
    ];
    for name in ["claude.run", "claude.run.start"] {
        let schema = &tool(&tools, name)["inputSchema"];
        let props = schema["properties"].as_object().expect("props");
        let mut want: Vec<&str> = run_args.to_vec();
        if name == "claude.run" {
            want.push("detach_after_s");
        }
        let mut got: Vec<&str> = props.keys().map(String::as_str).collect();
        got.sort_unstable();
        want.sort_unstable();
        assert_eq!(got, want, "{name}");
        assert_eq!(schema["required"], json!(["prompt"]));
        assert_eq!(props["prompt"]["minLength"], 1);
        assert_eq!(props["prompt"]["maxLength"], 131072);
        assert_eq!(props["timeout_s"]["minimum"], 1);
        assert_eq!(
            props["timeout_s"]["maximum"], 77,
            "BND-4: the configured maximum"
        );
        assert_eq!(
            props["permission_mode"]["enum"],
            json!(["dontAsk", "plan", "acceptEdits"]),
            "NAT-5"
        );
        assert_eq!(
            props["effort"]["enum"],
            json!(["low", "medium", "high", "xhigh", "max"])
        );
        assert_eq!(props["model"]["maxLength"], 256);
        assert_eq!(props["append_system_prompt"]["maxLength"], 65536);
        assert_eq!(
            props["max_budget_usd"]["exclusiveMinimum"].as_f64(),
            Some(0.0)
        );
        assert_eq!(props["continue_previous"]["type"], "boolean");
        // LOOP-4, JSONOUT-1.
        assert_eq!(props["loop_guard"]["enum"], json!(["on", "off"]));
        assert_eq!(props["loop_guard"]["default"], "on");
        assert_eq!(props["loop_limit"]["minimum"], 2);
        assert_eq!(props["loop_limit"]["maximum"], 64);
        assert_eq!(props["loop_limit"]["default"], 2);
        assert_eq!(props["json_schema"]["type"], "object");
    }
    let run = &tool(&tools, "claude.run")["inputSchema"]["properties"];
    assert_eq!(run["detach_after_s"]["minimum"], 1);
    assert_eq!(run["detach_after_s"]["maximum"], 77);
    for name in [
        "claude.run.result",
        "claude.run.events",
        "claude.run.cancel",
        "claude.run.release",
    ] {
        let schema = &tool(&tools, name)["inputSchema"];
        assert_eq!(schema["required"], json!(["run_id"]), "{name}");
        assert_eq!(schema["properties"]["run_id"]["type"], "string");
        assert_eq!(schema["properties"]["run_id"]["maxLength"], 128);
    }
    let ev = &tool(&tools, "claude.run.events")["inputSchema"]["properties"];
    assert_eq!(ev["cursor"]["maxLength"], 256);
    assert_eq!(ev["limit"]["minimum"], 1);
    assert_eq!(ev["limit"]["maximum"], 256);
    assert_eq!(ev["limit"]["default"], 64);
    let list = &tool(&tools, "claude.run.list")["inputSchema"];
    assert_eq!(list["properties"], json!({}), ".list takes no argument");
}

#[test]
fn wrong_arguments_are_invalid_arguments_naming_the_field() {
    // TOOL-3: isError with error.field = the JSON Pointer of the offending argument.
    let mut s = Adapter::new().args(["--max-timeout-s", "77"]).spawn();
    s.init();
    let long_run_id = "r".repeat(129);
    let cases: Vec<(&str, Value, &str)> = vec![
        ("claude.run", json!({}), "/prompt"),
        ("claude.run", json!({"prompt": ""}), "/prompt"),
        ("claude.run", json!({"prompt": 5}), "/prompt"),
        ("claude.run", json!({"prompt": "a\u{0}b"}), "/prompt"),
        (
            "claude.run",
            json!({"prompt": "é".repeat(70_000)}),
            "/prompt",
        ),
        ("claude.run", json!({"prompt": "x", "bogus": 1}), "/bogus"),
        (
            "claude.run",
            json!({"prompt": "x", "io.github.computer-mcp/work-invocation": "x"}),
            "/io.github.computer-mcp~1work-invocation",
        ),
        (
            "claude.run",
            json!({"prompt": "x", "timeout_s": 0}),
            "/timeout_s",
        ),
        (
            "claude.run",
            json!({"prompt": "x", "timeout_s": 78}),
            "/timeout_s",
        ),
        (
            "claude.run",
            json!({"prompt": "x", "timeout_s": 1.5}),
            "/timeout_s",
        ),
        (
            "claude.run",
            json!({"prompt": "x", "detach_after_s": 0}),
            "/detach_after_s",
        ),
        (
            "claude.run",
            json!({"prompt": "x", "timeout_s": 5, "detach_after_s": 6}),
            "/detach_after_s",
        ),
        (
            "claude.run",
            json!({"prompt": "x", "permission_mode": "bypassPermissions"}),
            "/permission_mode",
        ),
        (
            "claude.run",
            json!({"prompt": "x", "permission_mode": "default"}),
            "/permission_mode",
        ),
        (
            "claude.run",
            json!({"prompt": "x", "effort": "huge"}),
            "/effort",
        ),
        (
            "claude.run",
            json!({"prompt": "x", "model": "m".repeat(257)}),
            "/model",
        ),
        (
            "claude.run",
            json!({"prompt": "x", "max_budget_usd": 0}),
            "/max_budget_usd",
        ),
        (
            "claude.run",
            json!({"prompt": "x", "session_id": "not-a-uuid"}),
            "/session_id",
        ),
        (
            "claude.run",
            json!({"prompt": "x", "resume_session_id": 7}),
            "/resume_session_id",
        ),
        (
            "claude.run",
            json!({"prompt": "x", "continue_previous": "yes"}),
            "/continue_previous",
        ),
        (
            "claude.run",
            json!({"prompt": "x", "cwd": "relative/dir"}),
            "/cwd",
        ),
        (
            "claude.run",
            json!({"prompt": "x", "append_system_prompt": "é".repeat(40_000)}),
            "/append_system_prompt",
        ),
        (
            "claude.run.start",
            json!({"prompt": "x", "detach_after_s": 5}),
            "/detach_after_s",
        ),
        ("claude.run.start", json!({"cwd": "/"}), "/prompt"),
        ("claude.run.list", json!({"run_id": "x"}), "/run_id"),
        ("claude.run.result", json!({}), "/run_id"),
        ("claude.run.result", json!({"run_id": 5}), "/run_id"),
        (
            "claude.run.result",
            json!({"run_id": long_run_id}),
            "/run_id",
        ),
        (
            "claude.run.events",
            json!({"run_id": "r", "limit": 0}),
            "/limit",
        ),
        (
            "claude.run.events",
            json!({"run_id": "r", "limit": 257}),
            "/limit",
        ),
        (
            "claude.run.events",
            json!({"run_id": "r", "cursor": "c".repeat(257)}),
            "/cursor",
        ),
        (
            "claude.run.events",
            json!({"run_id": "r", "cursor": 3}),
            "/cursor",
        ),
        (
            "claude.run.cancel",
            json!({"run_id": "r", "force": true}),
            "/force",
        ),
        ("claude.run.release", json!({"run_id": ""}), "/run_id"),
    ];
    for (name, args, field) in cases {
        let what = format!("{name} {}", truncate(&args));
        let r = s.call_tool(name, args, None);
        assert_invalid(&r, field, &what);
    }
}

fn truncate(v: &Value) -> String {
    let s = v.to_string();
    s.chars().take(120).collect()
}

#[test]
fn valid_arguments_pass_validation() {
    // Valid calls reach the engine: an unknown run is unknown_run, not invalid_arguments.
    let mut s = Session::start();
    s.init();
    for (name, args) in [
        ("claude.run.result", json!({"run_id": "nope"})),
        (
            "claude.run.events",
            json!({"run_id": "nope", "cursor": "c", "limit": 256}),
        ),
        ("claude.run.events", json!({"run_id": "nope", "limit": 1.0})),
        ("claude.run.cancel", json!({"run_id": "nope"})),
        ("claude.run.release", json!({"run_id": "r".repeat(128)})),
    ] {
        let r = s.call_tool(name, args, None);
        assert_eq!(
            structured(&r)["error"]["code"],
            "unknown_run",
            "{name}: {r}"
        );
    }
    let r = s.call_tool("claude.run.list", json!({}), None);
    assert_eq!(r["isError"], false, "{r}");
    assert!(structured(&r)["runs"].is_array(), "{r}");
}

#[test]
fn reading_an_unknown_run_matches_the_reference_host_shape() {
    // TOOL-4, TOOL-5; reference/hosts/claude-code-2.1.328-as-host.jsonl, id 3.
    let mut s = Session::start();
    s.initialize(Some(json!("2025-11-25")));
    let r = s.call_tool(
        "claude.run.result",
        json!({"run_id": "abc"}),
        Some(json!({"claudecode/toolUseId": "toolu_x", "progressToken": 3})),
    );
    assert_eq!(r["isError"], true, "{r}");
    let result = structured(&r);
    let err = result["error"].as_object().expect("error object");
    assert_eq!(err["code"], "unknown_run");
    assert!(err["message"].as_str().is_some_and(|m| !m.is_empty()));
    assert_eq!(result.as_object().map(Map::len), Some(1), "{r}");
}

#[test]
fn an_unknown_tool_is_invalid_params() {
    // TOOL-3, C-TOOL-1: names match the configured projection only.
    let mut s = Session::start();
    s.init();
    for name in [
        "nope",
        "claude_run",
        "mcp__kit__claude_run_result",
        "CLAUDE.RUN",
        "",
    ] {
        let r = s.call_tool_response(name, json!({}), None);
        assert_eq!(r["error"]["code"], -32602, "{name}: {r}");
    }
}

#[test]
fn arguments_that_are_not_an_object_are_invalid_params() {
    // C-TOOL-1: MCP types `arguments` (and `_meta`) as objects; absent or null `arguments` is {}.
    let mut s = Session::start();
    s.init();
    for args in [json!([]), json!("x"), json!(1), json!(true)] {
        let r = s.call_tool_response("claude.run.list", args.clone(), None);
        assert_eq!(r["error"]["code"], -32602, "{args}: {r}");
    }
    let r = s.call_tool("claude.run.list", Value::Null, None);
    assert_eq!(r["isError"], false, "{r}");
    let r = s.call("tools/call", Some(json!({"name": "claude.run.list"})));
    assert_eq!(r["result"]["isError"], false, "absent arguments: {r}");
    let r = s.call("tools/call", Some(json!({"name": "claude.run.result"})));
    let field = &structured(&r["result"])["error"]["field"];
    assert_eq!(
        field, "/run_id",
        "absent arguments are validated as {{}}: {r}"
    );
    let r = s.call_tool_response("claude.run.list", json!({}), Some(json!("meta")));
    assert_eq!(r["error"]["code"], -32602, "_meta not an object: {r}");
}

#[test]
fn a_malformed_work_invocation_is_invalid_arguments() {
    // META-WORK-4, C-TOOL-3: the field is a pointer into `params`, not into the arguments.
    let mut s = Session::start();
    s.init();
    for bad in [
        json!("nope"),
        json!(42),
        json!("123e4567e89b12d3a456426614174000"),
    ] {
        let meta = json!({"io.github.computer-mcp/work-invocation": bad});
        for (name, args) in [
            ("claude.run.list", json!({})),
            ("claude.run.start", json!({"prompt": "x"})),
            ("claude.run", json!({"prompt": "x"})),
        ] {
            let r = s.call_tool(name, args, Some(meta.clone()));
            assert_invalid(
                &r,
                "/_meta/io.github.computer-mcp~1work-invocation",
                &format!("{name} {bad}"),
            );
        }
    }
    let meta =
        json!({"io.github.computer-mcp/work-invocation": "123E4567-E89B-12D3-A456-426614174000"});
    let r = s.call_tool("claude.run.list", json!({}), Some(meta));
    assert_eq!(r["isError"], false, "{r}");
}

#[test]
fn tools_list_rejects_an_unknown_cursor() {
    // C-PAGE: everything is on one page, so a cursor is -32602.
    let mut s = Session::start();
    s.init();
    let r = s.call("tools/list", Some(json!({"cursor": "page-2"})));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let r = s.call("tools/list", Some(json!({"_meta": {"x": 1}})));
    assert_eq!(
        r["result"]["tools"].as_array().map(Vec::len),
        Some(7),
        "{r}"
    );
}
