//! The suite-wide outputSchema check (TOOL-6): every `tools/call` result a
//! [`super::Session`] receives is validated against the `outputSchema` its tool declares, so each
//! test that calls a tool also proves its answer conforms, `isError` answers included (MCP
//! 2025-06-18 / 2025-11-25 server/tools: structured results MUST conform to a declared
//! outputSchema).
//!
//! The schemas come from the function `tools/list` is built from
//! (`cmk_mcp_server::output_schema::for_role`); `protocol::tools` proves the listed ones
//! are exactly these. Validators are compiled once per role, per test process.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use cmk_engine::provider::Role;
use cmk_mcp_server::output_schema;
use serde_json::Value;

/// Results validated so far in this test process (a test proves the check runs).
pub static VALIDATED: AtomicU64 = AtomicU64::new(0);

/// The role of a tool name of either family in either projection (`claude.run.result`,
/// `cursor_run_events`, …), or `None` for a name that is none of the seven.
#[must_use]
pub fn role_of(name: &str) -> Option<Role> {
    let (family, rest) = name.split_once(['.', '_'])?;
    if !matches!(family, "claude" | "cursor") {
        return None;
    }
    let dotted = rest.replace('_', ".");
    Role::ALL
        .into_iter()
        .find(|r| format!("run{}", r.suffix()) == dotted)
}

fn validator(role: Role) -> &'static jsonschema::Validator {
    static COMPILED: OnceLock<Vec<jsonschema::Validator>> = OnceLock::new();
    let all = COMPILED.get_or_init(|| {
        Role::ALL
            .into_iter()
            .map(|r| {
                jsonschema::draft202012::new(&output_schema::for_role(r))
                    .expect("every outputSchema compiles")
            })
            .collect()
    });
    let i = Role::ALL
        .iter()
        .position(|r| *r == role)
        .expect("a role of ALL");
    &all[i]
}

/// Validates one `tools/call` result of `tool` against its outputSchema. `Ok` for names that
/// are not one of the seven (they are answered with a protocol error, not a result).
pub fn check(tool: &str, result: &Value) -> Result<(), String> {
    let Some(role) = role_of(tool) else {
        return Ok(());
    };
    let Some(structured) = result.get("structuredContent") else {
        return Err(format!(
            "{tool}: a result without structuredContent: {result}"
        ));
    };
    let errors: Vec<String> = validator(role)
        .iter_errors(structured)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    if errors.is_empty() {
        VALIDATED.fetch_add(1, Ordering::Relaxed);
        Ok(())
    } else {
        Err(format!(
            "{tool}: structuredContent does not conform to its outputSchema: {}\n{structured}",
            errors.join("; ")
        ))
    }
}
