//! Unit tests of the MCP cross-cutting rules: what each exchange offends, and what the case
//! that saw it still reads.

use super::*;
use serde_json::json;

/// `msg` as if written as its compact text.
fn see(o: &Observer, line: u64, msg: &Value) -> Seen {
    o.message(line, msg, msg.to_string().as_bytes())
}

#[test]
fn an_id_beyond_64_bits_is_quoted_as_the_server_wrote_it() {
    let w = Watch::new();
    let o = Observer::new(w.clone(), "lifecycle/ping/after-initialize", 3, 0);
    o.sending(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
    let raw = br#"{"jsonrpc":"2.0","id":18446744073709551616,"result":{}}"#;
    let msg: Value = serde_json::from_slice(raw).expect("json");
    assert_eq!(o.message(1, &msg, raw), Seen::Fresh);
    let f = w.result(Rule::IdEcho).0.expect("an offence");
    assert!(
        f.evidence.starts_with(
            "a response with id 18446744073709551616, which no request of the runner carried"
        ) && f
            .evidence
            .ends_with(std::str::from_utf8(raw).expect("utf8")),
        "{}",
        f.evidence
    );
    assert!(!f.evidence.contains("e+19"), "{}", f.evidence);
}

#[test]
fn the_earliest_offence_wins_whatever_the_order_it_arrives_in() {
    let w = Watch::new();
    w.offend(Rule::Stdout, (5, 0, 1), "b", "late".into());
    w.offend(Rule::Stdout, (2, 1, 9), "a", "early".into());
    w.offend(Rule::Stdout, (2, 1, 10), "a", "later".into());
    let (f, looked) = w.result(Rule::Stdout);
    assert_eq!(f.unwrap().evidence, "early");
    assert_eq!(looked, 3);
}

#[test]
fn a_successful_result_is_held_to_its_tools_output_schema() {
    let w = Watch::new();
    let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}},
        "required": ["n"]});
    w.set_listed(["count".to_owned(), "plain".to_owned()].into());
    w.set_output_schemas(&[
        json!({"name": "count", "outputSchema": schema}),
        json!({"name": "plain"}),
    ]);
    let o = Observer::new(w.clone(), "tools/call/some-case", 3, 0);
    let call = |id: u64, tool: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}"}}}}"#
        )
    };
    let result = |id: u64, r: Value| json!({"jsonrpc": "2.0", "id": id, "result": r});
    let text = json!([{"type": "text", "text": "x"}]);
    o.sending(call(1, "count").as_bytes());
    see(
        &o,
        1,
        &result(1, json!({"content": text, "structuredContent": {"n": 3}})),
    );
    // A failed call and a tool without a schema are not looked at.
    o.sending(call(2, "count").as_bytes());
    see(&o, 2, &result(2, json!({"content": text, "isError": true})));
    o.sending(call(3, "plain").as_bytes());
    see(&o, 3, &result(3, json!({"content": text})));
    assert_eq!(w.result(Rule::OutputSchema), (None, 1));
    o.sending(call(4, "count").as_bytes());
    see(
        &o,
        4,
        &result(4, json!({"content": text, "structuredContent": {"n": "3"}})),
    );
    let f = w.result(Rule::OutputSchema).0.expect("an offence");
    assert!(f.evidence.contains("\"/n\""), "{}", f.evidence);
    // A successful result without structuredContent offends too.
    let w2 = Watch::new();
    w2.set_output_schemas(&[json!({"name": "count", "outputSchema": schema})]);
    let o = Observer::new(w2.clone(), "tools/call/some-case", 3, 0);
    o.sending(call(5, "count").as_bytes());
    see(&o, 5, &result(5, json!({"content": text})));
    assert!(w2.result(Rule::OutputSchema).0.is_none());
    let f = w2.result(Rule::OutputSchemaAbsent).0.expect("an offence");
    assert!(
        f.evidence.contains("no structuredContent"),
        "{}",
        f.evidence
    );
}

#[test]
fn a_cross_cutting_probe_feeds_every_rule_but_the_other_probe_s() {
    // The probes run before the other cross-cutting cases grade (Needs::CrosscutProbe), side
    // by side: each feeds its own rules and every watching rule, not another probe's rules, and
    // output-schema's calls (arguments made without knowing the tool) not the error split.
    let probing = [
        Rule::Mirror,
        Rule::OutputSchema,
        Rule::OutputSchemaAbsent,
        Rule::OutputSchemaUnknown,
        Rule::NotificationAnswered,
        Rule::IdlessAmbiguous,
    ];
    for probe in [
        "tools/result/output-schema",
        "tools/result/structured-mirror",
        "jsonrpc/unknown-notification",
    ] {
        for rule in Rule::ALL {
            let other_probe = probing.contains(&rule) && rule.case_id() != probe;
            let split = rule == Rule::ErrorSplit && probe == "tools/result/output-schema";
            assert_eq!(
                rule.counts_in(probe),
                !(other_probe || split),
                "{rule:?} in {probe}"
            );
        }
    }
    assert!(Rule::ResultShape.counts_in("tools/result/output-schema"));
    assert!(Rule::Stdout.counts_in("jsonrpc/unknown-notification"));
    assert!(Rule::IdEcho.counts_in("jsonrpc/unknown-notification"));
    assert!(Rule::ErrorSplit.counts_in("tools/result/structured-mirror"));
    assert!(Rule::ErrorSplit.counts_in("runs/list/retained"));
}

#[test]
fn an_invalid_output_schema_holds_no_result() {
    let w = Watch::new();
    w.set_output_schemas(&[json!({"name": "t", "outputSchema": {"type": 5}})]);
    assert!(w.output_schema("t").is_none());
}

#[test]
fn responses_to_unsent_ids_offend_except_in_the_id_cases() {
    let w = Watch::new();
    let o = Observer::new(w.clone(), "lifecycle/ping/after-initialize", 3, 0);
    o.sending(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
    see(&o, 1, &json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
    assert!(w.result(Rule::IdEcho).0.is_none());
    see(
        &o,
        2,
        &json!({"jsonrpc": "2.0", "id": "wrong-1", "result": {}}),
    );
    assert!(w.result(Rule::IdEcho).0.is_some());
    let w = Watch::new();
    let o = Observer::new(w.clone(), "jsonrpc/ids/u64-max", 3, 0);
    see(&o, 2, &json!({"jsonrpc": "2.0", "id": 5, "result": {}}));
    assert!(w.result(Rule::IdEcho).0.is_none());
}

#[test]
fn a_request_answered_twice_offends_the_id_rule_and_the_repeat_is_hidden() {
    let w = Watch::new();
    let o = Observer::new(w.clone(), "lifecycle/ping/after-initialize", 3, 0);
    o.sending(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
    let answer = json!({"jsonrpc": "2.0", "id": 1, "result": {}});
    assert_eq!(see(&o, 1, &answer), Seen::Fresh);
    assert!(w.result(Rule::IdEcho).0.is_none());
    assert_eq!(see(&o, 2, &answer), Seen::Repeat);
    let f = w.result(Rule::IdEcho).0.expect("an offence");
    assert!(
        f.evidence.starts_with("a second response to id 1 (ping)"),
        "{}",
        f.evidence
    );
    // An id the runner sends again may be answered again.
    o.sending(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
    assert_eq!(see(&o, 3, &answer), Seen::Fresh);
    // Inside a batch the repeat offends too, and the batch is read whole.
    let w = Watch::new();
    let o = Observer::new(w.clone(), "jsonrpc/batch/x", 3, 0);
    o.sending(br#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#);
    let a = json!({"jsonrpc": "2.0", "id": "a", "result": {}});
    assert_eq!(see(&o, 1, &a), Seen::Fresh);
    assert_eq!(see(&o, 2, &json!([a.clone(), a])), Seen::Fresh);
    assert!(w.result(Rule::IdEcho).0.is_some());
}

#[test]
fn an_answer_to_a_notification_offends_its_rule_and_is_hidden() {
    let w = Watch::new();
    let o = Observer::new(w.clone(), "lifecycle/ping/after-initialize", 3, 0);
    o.sending(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    assert_eq!(w.result(Rule::NotificationAnswered), (None, 1));
    o.sending(b"not json");
    // A parse error's answer (id null, -32700) is the sending case's to count.
    let parse = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "x"}});
    assert_eq!(see(&o, 1, &parse), Seen::Fresh);
    assert!(w.result(Rule::NotificationAnswered).0.is_none());
    let answered = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32601, "message": "x"}});
    assert_eq!(see(&o, 2, &answered), Seen::Idless);
    let f = w.result(Rule::NotificationAnswered).0.expect("an offence");
    assert!(
        f.evidence.starts_with("an answer to a notification"),
        "{}",
        f.evidence
    );
}

#[test]
fn an_error_under_id_null_is_the_id_rules_where_only_readable_ids_were_sent() {
    let err = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32601, "message": "x"}});
    // Only a request with a readable id was sent (JSON-RPC 2.0 §5): the id rule's, hidden.
    let w = Watch::new();
    let o = Observer::new(w.clone(), "lifecycle/request-before-initialize", 3, 0);
    o.sending(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    assert_eq!(see(&o, 1, &err), Seen::Idless);
    assert!(o.idless_hidden());
    let f = w.result(Rule::IdEcho).0.expect("an offence");
    assert!(
        f.evidence.starts_with("an error with id null"),
        "{}",
        f.evidence
    );
    assert!(w.result(Rule::NotificationAnswered).0.is_none());
    // A notification and a pending request: either may be what it answers.
    let w = Watch::new();
    let o = Observer::new(w.clone(), "jsonrpc/unknown-method", 3, 0);
    o.sending(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    o.sending(br#"{"jsonrpc":"2.0","id":2,"method":"nope"}"#);
    assert_eq!(see(&o, 1, &err), Seen::Idless);
    assert!(o.idless_hidden());
    assert!(w.result(Rule::IdlessAmbiguous).0.is_some());
    assert!(w.result(Rule::IdEcho).0.is_none());
    // An invalid request may be answered under id null: its case counts the answers.
    let w = Watch::new();
    let o = Observer::new(w.clone(), "jsonrpc/invalid/wrong-version", 3, 0);
    o.sending(br#"{"jsonrpc":"1.0","id":3,"method":"ping"}"#);
    let invalid = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "x"}});
    assert_eq!(see(&o, 1, &invalid), Seen::Fresh);
    assert!(!o.idless_hidden());
    assert!(w.result(Rule::IdEcho).0.is_none());
}

#[test]
fn a_result_echoing_the_runners_null_id_is_no_stdout_offence() {
    let w = Watch::new();
    let o = Observer::new(w.clone(), "jsonrpc/invalid/null-id", 3, 0);
    o.sending(br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#);
    let raw = br#"{"jsonrpc":"2.0","id":null,"result":{}}"#;
    let msg: Value = serde_json::from_slice(raw).expect("json");
    assert_eq!(o.message(1, &msg, raw), Seen::Fresh);
    o.not_protocol(
        1,
        "a result whose id is neither a string nor an integer".into(),
    );
    assert!(w.result(Rule::Stdout).0.is_none());
    // Elsewhere (no null id sent) the same line offends.
    let o = Observer::new(w.clone(), "lifecycle/ping/after-initialize", 4, 0);
    o.sending(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
    assert_eq!(o.message(1, &msg, raw), Seen::Fresh);
    o.not_protocol(
        1,
        "a result whose id is neither a string nor an integer".into(),
    );
    assert!(w.result(Rule::Stdout).0.is_some());
}

#[test]
fn a_notification_answer_inside_a_batch_is_what_the_notification_rule_blames() {
    let answered = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32601, "message": "x"}});
    assert!(answers_a_notification(&answered));
    assert!(!answers_a_notification(
        &json!({"jsonrpc": "2.0", "id": null,
        "error": {"code": -32600, "message": "x"}})
    ));
    assert!(!answers_a_notification(&json!({"jsonrpc": "2.0", "id": 1,
        "error": {"code": -32601, "message": "x"}})));
}
