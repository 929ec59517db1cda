//! JSONOUT-4 unit tests: each limit refused with its name, and the cost bound on the schemas
//! that motivated it (reference fan-out, multiplication across instance levels).

use serde_json::{Map, Value, json};

use super::*;

/// `$defs` d0..=depth, each `allOf` of `fan` references to the one below: fan^depth in place.
pub(crate) fn fan_out(depth: usize, fan: usize) -> Value {
    let mut defs = Map::new();
    defs.insert("d0".into(), json!({"type": "object"}));
    for d in 1..=depth {
        let refs: Vec<Value> = (0..fan)
            .map(|_| json!({"$ref": format!("#/$defs/d{}", d - 1)}))
            .collect();
        defs.insert(format!("d{d}"), json!({"allOf": refs}));
    }
    json!({"$defs": defs, "$ref": format!("#/$defs/d{depth}")})
}

fn limit(schema: &Value) -> &'static str {
    measure(schema).expect_err("refused").name
}

#[test]
fn a_depth_eleven_fan_out_is_refused_by_its_evaluations() {
    // The measured attack: 2.5 KB, 8^11 evaluations at the top.
    let schema = fan_out(11, 8);
    assert!(serialized_len(&schema) < 3 * 1024);
    let e = measure(&schema).expect_err("refused");
    assert_eq!(e.name, "evaluations");
    assert_eq!(e.max, Some(MAX_EVALUATIONS));
    assert!(e.count.is_some_and(|v| v > MAX_EVALUATIONS), "{e}");
    assert!(e.message.contains("`evaluations`"), "{e}");
    // Three levels of eight are 512 references' worth: accepted, and costed.
    let ok = measure(&fan_out(3, 8)).expect("accepted");
    assert!(
        ok.levels[0] >= 512 && ok.levels[0] <= MAX_EVALUATIONS,
        "{ok:?}"
    );
}

#[test]
fn each_limit_is_refused_with_its_name_and_value() {
    let big = json!({"description": "x".repeat(MAX_BYTES as usize)});
    let e = measure(&big).expect_err("bytes");
    assert_eq!((e.name, e.max), ("bytes", Some(MAX_BYTES)));
    assert_eq!(e.value(), json!(serialized_len(&big)));

    let mut deep = json!({"type": "object"});
    for _ in 0..MAX_DEPTH {
        deep = json!({"properties": {"a": deep}});
    }
    let e = measure(&deep).expect_err("depth");
    assert_eq!(e.name, "depth");
    assert!(e.count.is_some_and(|v| v > MAX_DEPTH), "{e}");

    let refs: Vec<Value> = (0..=MAX_REFS)
        .map(|_| json!({"properties": {"a": {"$ref": "#/$defs/x"}}}))
        .collect();
    let many = json!({"$defs": {"x": true}, "prefixItems": refs});
    let e = measure(&many).expect_err("refs");
    assert_eq!((e.name, e.count), ("refs", Some(MAX_REFS + 1)));

    let e = measure(&json!({"$ref": "https://example.com/s.json"})).expect_err("ref_target");
    assert_eq!(e.name, "ref_target");
    assert_eq!(e.value(), json!("https://example.com/s.json"));
    assert_eq!(e.max, None);

    let e = measure(&json!({"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}))
        .expect_err("an in-place cycle has no bound");
    assert_eq!((e.name, e.value()), ("evaluations", json!("unbounded")));
    let e = measure(&json!({"enum": (0..=MAX_EVALUATIONS).collect::<Vec<_>>()})).expect_err("enum");
    assert_eq!(e.name, "evaluations", "enum values count one by one");
}

#[test]
fn multiplying_across_instance_levels_is_refused() {
    // Two applicators stepping into the same children double at every level of the instance.
    let doubling = json!({"allOf": [{"items": {"$ref": "#"}}, {"items": {"$ref": "#"}}]});
    assert_eq!(limit(&doubling), "evaluations");
    let e = measure(&doubling).expect_err("refused");
    assert!(e.message.contains("levels into the instance"), "{e}");
}

#[test]
fn ordinary_recursive_schemas_are_accepted() {
    // A tree, a binary tree, and the JSON-value shape: one subschema per child, whatever the
    // depth (names and kinds are told apart).
    for schema in [
        json!({"$defs": {"node": {"type": "object", "properties": {
            "name": {"type": "string"},
            "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}},
            "$ref": "#/$defs/node"}),
        json!({"$defs": {"t": {"type": ["object", "null"], "properties": {
            "left": {"$ref": "#/$defs/t"}, "right": {"$ref": "#/$defs/t"}}}},
            "$ref": "#/$defs/t"}),
        json!({"$anchor": "v", "anyOf": [{"type": "string"},
            {"type": "array", "items": {"$ref": "#v"}},
            {"type": "object", "additionalProperties": {"$ref": "#v"}}]}),
        json!({"type": "object", "properties": {"a": {"enum": ["x", "y"]}},
            "required": ["a"], "additionalProperties": false}),
    ] {
        let cost = measure(&schema).unwrap_or_else(|e| panic!("{schema}: {e}"));
        assert!(cost.levels.iter().all(|&c| c <= 64), "{schema}: {cost:?}");
    }
}

#[test]
fn an_instance_is_costed_level_by_level() {
    let cost = measure(&json!({"type": "object", "additionalProperties": {"type": "integer"}}))
        .expect("accepted");
    assert_eq!(cost.levels, vec![2, 1]);
    assert_eq!(cost.instance_cost(&json!({"a": 1, "b": 2})), 2 + 1 + 1);
    // Deeper than the schema reaches costs nothing more.
    assert_eq!(cost.instance_cost(&json!({"a": [[1]]})), 2 + 1);
}

#[test]
fn percent_encoded_pointers_resolve() {
    let schema = json!({"$defs": {"a b": {"allOf": [true, true]}}, "$ref": "#/$defs/a%20b"});
    let cost = measure(&schema).expect("accepted");
    assert!(cost.levels[0] >= 4, "the target is counted: {cost:?}");
}
