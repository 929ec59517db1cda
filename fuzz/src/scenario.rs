//! Target `scenario`: fake-claude's scenario parser (`fake_claude::scenario::Scenario::parse`,
//! the `{"description", "steps"}` format of `fake-claude/scenarios/` with its built-in fragments)
//! and the prompt-line selector, on any text.

use fake_claude::scenario::Scenario;
use fake_claude::scenario::select::from_prompt;

/// The bytes are a scenario file's text (not UTF-8: read lossily, as no file of the fake's is).
/// Invariants: a parsed scenario keeps its name; the outcome depends on the JSON value only, not
/// on its spelling (the same value written out again by serde parses to the same steps, or fails
/// with the same message naming the same step).
pub fn scenario(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let _ = from_prompt(&text);
    let parsed = Scenario::parse("fuzz", &text);
    if let Ok(s) = &parsed {
        assert_eq!(s.name, "fuzz", "the parser renamed the scenario");
    }
    let Ok(value) = serde_json::from_str::<serde_json::Value>(&text) else {
        return;
    };
    let Ok(again) = serde_json::to_string(&value) else {
        return;
    };
    let outcome = |r: Result<Scenario, fake_claude::scenario::ScenarioError>| {
        format!("{:?}", r.map_err(|e| e.to_string()))
    };
    assert_eq!(
        outcome(parsed),
        outcome(Scenario::parse("fuzz", &again)),
        "the same JSON value written differently parses differently"
    );
}
