//! Unit tests of the cli-tree loader: the embedded trees follow the schema and the semantic
//! rules, documents that break either are refused, the argv a tree builds (NAT-3..7), the value
//! rules of options and the option schemas derived from them.

use super::*;

fn embedded() -> CliTree {
    CliTree::embedded().expect("the embedded tree is valid")
}

type Edit = Box<dyn FnOnce(&mut Value)>;

fn with_edit(edit: impl FnOnce(&mut Value)) -> Result<CliTree, CliTreeError> {
    let mut raw: Value = serde_json::from_str(EMBEDDED).expect("json");
    edit(&mut raw);
    CliTree::parse(&raw.to_string())
}

fn os(v: &[&str]) -> Vec<OsString> {
    v.iter().map(OsString::from).collect()
}

#[test]
fn embedded_tree_follows_its_schema_and_semantics() {
    let t = embedded();
    assert_eq!(t.version.line, "2.1.328 (Claude Code)");
    assert_eq!(t.version.argv, vec!["--version"]);
    assert_eq!(t.prompt_separator.as_deref(), Some("--"));
}

#[test]
fn embedded_trees_follow_the_schema() {
    // Start-up skips the schema pass for the embedded trees; this is where it is proved.
    for (name, text) in [
        ("cli-tree.json", EMBEDDED),
        ("cursor-cli-tree.json", CURSOR_EMBEDDED),
    ] {
        let raw: Value = serde_json::from_str(text).expect("json");
        check_schema(&raw).unwrap_or_else(|e| panic!("{name}: {e}"));
        let full = CliTree::parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let fast = CliTree::parse_checked(text, false).expect("semantics");
        assert_eq!(full.raw, fast.raw, "{name}");
    }
}

#[test]
fn schema_is_a_valid_draft_2020_12_schema() {
    let schema: Value = serde_json::from_str(SCHEMA).expect("json");
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    jsonschema::meta::validate(&schema).expect("valid against the meta-schema");
}

#[test]
fn default_stream_argv_matches_the_real_capture() {
    // reference/claude-2.1.328/streams/mock-stream.cmd (NAT-3, NAT-5, NAT-7).
    let argv = embedded()
        .argv(Mode::Stream, &BTreeMap::new(), "say hi")
        .expect("argv");
    assert_eq!(
        argv,
        os(&[
            "-p",
            "--output-format",
            "stream-json",
            "--verbose",
            "--include-partial-messages",
            "--permission-mode",
            "dontAsk",
            "--",
            "say hi"
        ])
    );
    // reference/claude-2.1.328/streams/run-json.cmd (CLI-1).
    let argv = embedded()
        .argv(Mode::Json, &BTreeMap::new(), "say hi")
        .expect("argv");
    assert_eq!(
        argv,
        os(&[
            "-p",
            "--output-format",
            "json",
            "--permission-mode",
            "dontAsk",
            "--",
            "say hi"
        ])
    );
}

#[test]
fn a_prompt_that_looks_like_a_flag_stays_after_the_separator() {
    // NAT-7.
    let argv = embedded()
        .argv(
            Mode::Stream,
            &BTreeMap::new(),
            "--dangerously-skip-permissions",
        )
        .expect("argv");
    let n = argv.len();
    assert_eq!(argv[n - 2], "--");
    assert_eq!(argv[n - 1], "--dangerously-skip-permissions");
}

/// A sample value per rule, read from the raw document (independently of the typed loader).
fn sample(value_rule: &Value) -> (OptionValue, Vec<String>) {
    match value_rule["kind"].as_str().expect("kind") {
        "choice" => {
            let c = value_rule["choices"]
                .as_array()
                .expect("choices")
                .last()
                .and_then(Value::as_str)
                .expect("a choice")
                .to_owned();
            (OptionValue::Text(c.clone()), vec![c])
        }
        "string" => (OptionValue::Text("-x y".into()), vec!["-x y".into()]),
        "number" => (OptionValue::Number(0.25), vec!["0.25".into()]),
        "uuid" => {
            let u = "11111111-2222-4333-8444-555555555555".to_owned();
            (OptionValue::Text(u.clone()), vec![u])
        }
        "switch" => (OptionValue::Switch(true), vec![]),
        k => panic!("unknown kind {k}"),
    }
}

#[test]
fn argv_for_every_option_combination_is_exactly_what_the_tree_says() {
    // NAT-1, NAT-4..7: mode argv, supplied options in declared order (always-options with
    // their default when absent), `--`, prompt; NAT-6 exclusions refused on the later option.
    let t = embedded();
    let raw: Value = serde_json::from_str(EMBEDDED).expect("json");
    let opts = raw["options"].as_array().expect("options");
    assert!(
        opts.len() < 16,
        "the combination test enumerates 2^n subsets"
    );
    let mut checked_ok = 0;
    let mut checked_err = 0;
    for mode in [Mode::Stream, Mode::Json] {
        let mode_key = if mode == Mode::Stream {
            "stream"
        } else {
            "json"
        };
        for mask in 0u32..(1 << opts.len()) {
            let mut values = BTreeMap::new();
            let mut expected: Vec<String> = raw["modes"][mode_key]["argv"]
                .as_array()
                .expect("argv")
                .iter()
                .map(|v| v.as_str().expect("str").to_owned())
                .collect();
            let mut chosen: Vec<&str> = Vec::new();
            let mut conflict: Option<String> = None;
            for (i, o) in opts.iter().enumerate() {
                let name = o["name"].as_str().expect("name");
                let flag = o["flag"].as_str().expect("flag");
                if mask & (1 << i) != 0 {
                    let (v, rest) = sample(&o["value"]);
                    values.insert(name.to_owned(), v);
                    let excludes: Vec<&str> = o["excludes"]
                        .as_array()
                        .map(|a| a.iter().filter_map(Value::as_str).collect())
                        .unwrap_or_default();
                    if conflict.is_none() && chosen.iter().any(|c| excludes.contains(c)) {
                        conflict = Some(name.to_owned());
                    }
                    chosen.push(name);
                    expected.push(flag.to_owned());
                    expected.extend(rest);
                } else if o["always"] == true {
                    expected.push(flag.to_owned());
                    expected.push(o["default"].as_str().expect("default").to_owned());
                }
            }
            expected.push("--".into());
            expected.push("the prompt".into());
            let got = t.argv(mode, &values, "the prompt");
            match conflict {
                None => {
                    let want: Vec<OsString> = expected.iter().map(OsString::from).collect();
                    assert_eq!(got, Ok(want), "mask {mask:#b}");
                    checked_ok += 1;
                }
                Some(name) => {
                    let err = got.expect_err("an excluded combination is refused");
                    assert_eq!(err.name, name, "mask {mask:#b}");
                    checked_err += 1;
                }
            }
        }
    }
    assert!(checked_ok > 50 && checked_err > 50);
}

#[test]
fn every_declared_choice_is_passed_verbatim_and_others_are_refused() {
    let t = embedded();
    for opt in &t.options {
        if let ValueRule::Choice { choices, .. } = &opt.value {
            for c in choices {
                let values = BTreeMap::from([(opt.name.clone(), OptionValue::Text(c.clone()))]);
                let argv = t.argv(Mode::Stream, &values, "p").expect("argv");
                let pos = argv
                    .iter()
                    .position(|a| a == opt.flag.as_str())
                    .expect("flag");
                assert_eq!(argv[pos + 1], c.as_str());
            }
            let values = BTreeMap::from([(opt.name.clone(), OptionValue::Text("bogus".into()))]);
            let err = t.argv(Mode::Stream, &values, "p").expect_err("refused");
            assert_eq!(err.pointer(), format!("/{}", opt.name));
        }
    }
}

#[test]
fn bypass_and_undeclared_permission_modes_are_refused() {
    // NAT-5.
    let t = embedded();
    for mode in ["bypassPermissions", "auto", "manual", "default"] {
        let values =
            BTreeMap::from([("permission_mode".to_owned(), OptionValue::Text(mode.into()))]);
        let err = t.argv(Mode::Stream, &values, "p").expect_err("refused");
        assert_eq!(err.pointer(), "/permission_mode");
    }
}

#[test]
fn value_rules_are_enforced() {
    let t = embedded();
    let check = |n: &str, v: OptionValue| t.check_value(n, &v);
    assert!(check("session_id", OptionValue::Text("not-a-uuid".into())).is_err());
    assert!(
        check(
            "session_id",
            OptionValue::Text("11111111222243338444555555555555".into())
        )
        .is_err(),
        "the simple form is not the documented one"
    );
    assert!(check("max_budget_usd", OptionValue::Number(0.0)).is_err());
    assert!(check("max_budget_usd", OptionValue::Number(-1.0)).is_err());
    assert!(check("max_budget_usd", OptionValue::Number(f64::NAN)).is_err());
    assert!(check("max_budget_usd", OptionValue::Number(0.01)).is_ok());
    assert!(check("model", OptionValue::Text("m".repeat(256))).is_ok());
    assert!(check("model", OptionValue::Text("m".repeat(257))).is_err());
    // 86 three-byte characters are 258 bytes: the bound is in bytes.
    assert!(check("model", OptionValue::Text("€".repeat(86))).is_err());
    assert!(check("model", OptionValue::Text("a\0b".into())).is_err());
    assert!(check("model", OptionValue::Number(1.0)).is_err());
    assert!(check("continue_previous", OptionValue::Text("yes".into())).is_err());
    assert!(check("undeclared", OptionValue::Switch(true)).is_err());
}

#[test]
fn a_false_switch_is_not_passed_and_excludes_nothing() {
    let t = embedded();
    let values = BTreeMap::from([
        ("continue_previous".to_owned(), OptionValue::Switch(false)),
        (
            "resume_session_id".to_owned(),
            OptionValue::Text("11111111-2222-4333-8444-555555555555".into()),
        ),
    ]);
    let argv = t.argv(Mode::Stream, &values, "p").expect("argv");
    assert!(!argv.iter().any(|a| a == "--continue"));
    assert!(argv.iter().any(|a| a == "--resume"));
}

#[test]
fn empty_and_nul_prompts_are_refused() {
    let t = embedded();
    assert_eq!(
        t.argv(Mode::Stream, &BTreeMap::new(), "")
            .expect_err("empty")
            .pointer(),
        "/prompt"
    );
    assert!(t.argv(Mode::Stream, &BTreeMap::new(), "a\0").is_err());
}

#[test]
fn documents_that_break_the_schema_are_refused() {
    let cases: Vec<(&str, Edit)> = vec![
        (
            "unknown top-level field",
            Box::new(|v| v["extra"] = json!(1)),
        ),
        (
            "empty choices",
            Box::new(|v| v["options"][0]["value"]["choices"] = json!([])),
        ),
        (
            "bad flag",
            Box::new(|v| v["options"][1]["flag"] = json!("model")),
        ),
        (
            "unknown kind",
            Box::new(|v| v["options"][1]["value"] = json!({"kind": "path"})),
        ),
        (
            "separator",
            Box::new(|v| v["prompt_separator"] = json!("---")),
        ),
        (
            "format version",
            Box::new(|v| v["format_version"] = json!(2)),
        ),
        (
            "empty mode argv",
            Box::new(|v| v["modes"]["stream"]["argv"] = json!([])),
        ),
        (
            "missing version line",
            Box::new(|v| {
                v["version"].as_object_mut().expect("obj").remove("line");
            }),
        ),
    ];
    for (what, edit) in cases {
        match with_edit(edit) {
            Err(CliTreeError::Schema(_)) => {}
            other => panic!("{what}: expected a schema error, got {other:?}"),
        }
    }
}

#[test]
fn documents_that_contradict_themselves_are_refused() {
    let cases: Vec<(&str, Edit)> = vec![
        (
            "duplicate name",
            Box::new(|v| v["options"][2]["name"] = json!("model")),
        ),
        (
            "duplicate flag",
            Box::new(|v| v["options"][2]["flag"] = json!("--model")),
        ),
        (
            "default not a choice",
            Box::new(|v| v["options"][0]["default"] = json!("yolo")),
        ),
        (
            "choice not native",
            Box::new(|v| {
                v["options"][0]["value"]["choices"] = json!(["dontAsk", "plan", "yolo"]);
            }),
        ),
        (
            "bypass offered",
            Box::new(|v| {
                v["options"][0]["value"]["choices"] = json!(["dontAsk", "bypassPermissions"]);
            }),
        ),
        (
            "forbidden flag",
            Box::new(|v| {
                v["options"][1]["flag"] = json!("--dangerously-skip-permissions");
            }),
        ),
        (
            "asymmetric excludes",
            Box::new(|v| v["options"][7]["excludes"] = json!([])),
        ),
        (
            "unknown exclude",
            Box::new(|v| v["options"][5]["excludes"] = json!(["nope"])),
        ),
        (
            "default without always",
            Box::new(|v| v["options"][1]["default"] = json!("x")),
        ),
    ];
    for (what, edit) in cases {
        match with_edit(edit) {
            Err(CliTreeError::Semantic(_)) => {}
            other => panic!("{what}: expected a semantic error, got {other:?}"),
        }
    }
}

#[test]
fn load_reports_the_path_of_a_missing_file() {
    let err = CliTree::load(Path::new("/nonexistent/cli-tree.json")).expect_err("missing");
    assert!(err.to_string().contains("/nonexistent/cli-tree.json"));
}

#[test]
fn option_schemas_follow_the_value_rules() {
    let t = embedded();
    assert_eq!(
        t.option_schema("permission_mode"),
        Some(json!({"type": "string", "enum": ["dontAsk", "plan", "acceptEdits"]}))
    );
    assert_eq!(
        t.option_schema("continue_previous"),
        Some(json!({"type": "boolean"}))
    );
    assert_eq!(
        t.option_schema("max_budget_usd"),
        Some(json!({"type": "number", "exclusiveMinimum": 0.0}))
    );
    assert!(t.option_schema("nope").is_none());
}

#[test]
fn another_version_of_the_same_cli_is_recognised_by_its_line() {
    let claude = CliTree::embedded().expect("embedded").version;
    assert!(claude.same_cli("2.1.329 (Claude Code)"));
    assert!(claude.same_cli("3.0.0-beta.1 (Claude Code)"));
    assert!(!claude.same_cli("2026.10.01-e373342"));
    assert!(!claude.same_cli("claude 2.1.329"));
    assert!(!claude.same_cli(""));
    let cursor = CliTree::cursor_embedded().expect("embedded").version;
    assert!(cursor.same_cli("2026.11.02-abc1234"));
    assert!(!cursor.same_cli("2.1.328 (Claude Code)"));
}
