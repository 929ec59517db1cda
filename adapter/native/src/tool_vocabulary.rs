//! The canonical tool vocabulary and alias table (TOOLCALL-2/3), as data: `tool_vocabulary.json`
//! beside this file, embedded at build time and parsed once. Both providers' dialects read it;
//! the engine sees only the canonical names it produces.

use std::collections::HashMap;
use std::sync::LazyLock;

use serde::Deserialize;
use serde_json::{Map, Value};

use cmk_engine::tools::ToolOutcome;

/// The raw table, embedded.
pub(crate) const RAW: &str = include_str!("tool_vocabulary.json");

/// One failure text and its class.
#[derive(Debug, Clone, Deserialize)]
pub struct ErrorText {
    /// Matched case-insensitively (the entry is lowercase).
    pub contains: String,
    /// An outcome class.
    pub outcome: String,
}

/// The parsed table.
#[derive(Debug, Clone, Deserialize)]
pub struct Vocabulary {
    /// The canonical tools, in the contract's order.
    pub canonical: Vec<String>,
    /// claude's tool names.
    pub claude_names: HashMap<String, String>,
    /// ACP tool `kind`s.
    pub acp_kinds: HashMap<String, String>,
    /// Cursor's `rawInput._toolName`s.
    pub acp_tool_names: HashMap<String, String>,
    /// Native argument names onto canonical ones.
    pub argument_aliases: HashMap<String, String>,
    /// Native argument names left out of canonical arguments (they do not change what a call
    /// does: claude's Bash `description`, Cursor's `_toolName`).
    pub ignored_arguments: Vec<String>,
    /// Failure texts, first match wins.
    pub error_texts: Vec<ErrorText>,
}

/// The table (a broken embedded table is a build defect, caught by the tests below).
pub static VOCABULARY: LazyLock<Vocabulary> = LazyLock::new(|| {
    serde_json::from_str(RAW).unwrap_or_else(|e| panic!("tool_vocabulary.json is broken: {e}"))
});

impl Vocabulary {
    /// claude's tool name onto the vocabulary; unknown names are `other` (TOOLCALL-2).
    #[must_use]
    pub fn claude_tool(&self, name: &str) -> String {
        self.claude_names
            .get(name)
            .cloned()
            .unwrap_or_else(|| "other".into())
    }

    /// An ACP call's tool: Cursor's `_toolName` when the table knows it, else its `kind`.
    #[must_use]
    pub fn acp_tool(&self, kind: Option<&str>, tool_name: Option<&str>) -> Option<String> {
        if let Some(t) = tool_name.and_then(|n| self.acp_tool_names.get(n)) {
            return Some(t.clone());
        }
        match (kind, tool_name) {
            (Some(k), _) => Some(
                self.acp_kinds
                    .get(k)
                    .cloned()
                    .unwrap_or_else(|| "other".into()),
            ),
            (None, Some(_)) => Some("other".into()),
            (None, None) => None,
        }
    }

    /// Native arguments onto canonical spellings; a key already present keeps its first value.
    #[must_use]
    pub fn arguments(&self, raw: Option<&Value>) -> Map<String, Value> {
        let mut out = Map::new();
        let Some(Value::Object(m)) = raw else {
            return out;
        };
        for (k, v) in m {
            if self.ignored_arguments.iter().any(|i| i == k) {
                continue;
            }
            let name = self.argument_aliases.get(k).unwrap_or(k);
            if !out.contains_key(name) {
                out.insert(name.clone(), v.clone());
            }
        }
        out
    }

    /// The class of a failure text (TOOLCALL-3): the first table entry it contains, else
    /// `tool_error`.
    #[must_use]
    pub fn failure(&self, text: &str) -> ToolOutcome {
        let lower = text.to_lowercase();
        self.error_texts
            .iter()
            .find(|e| lower.contains(&e.contains))
            .map_or(ToolOutcome::ToolError, |e| outcome_named(&e.outcome))
    }
}

/// An outcome class by its wire name (`tool_error` for a name the contract does not have).
#[must_use]
pub fn outcome_named(name: &str) -> ToolOutcome {
    match name {
        "ok" => ToolOutcome::Ok,
        "validation_failed" => ToolOutcome::ValidationFailed,
        "missing_path" => ToolOutcome::MissingPath,
        "permission_denied" => ToolOutcome::PermissionDenied,
        "timeout" => ToolOutcome::Timeout,
        "unknown" => ToolOutcome::Unknown,
        _ => ToolOutcome::ToolError,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use cmk_engine::tools::CANONICAL_TOOLS;

    #[test]
    fn the_table_names_only_the_contracts_vocabulary_and_outcomes() {
        let v = &*VOCABULARY;
        assert_eq!(v.canonical, CANONICAL_TOOLS);
        for t in v
            .claude_names
            .values()
            .chain(v.acp_kinds.values())
            .chain(v.acp_tool_names.values())
        {
            assert!(CANONICAL_TOOLS.contains(&t.as_str()), "{t}");
        }
        for e in &v.error_texts {
            assert_eq!(e.contains, e.contains.to_lowercase());
            assert_eq!(
                outcome_named(&e.outcome).as_str(),
                e.outcome,
                "{}",
                e.outcome
            );
        }
    }

    #[test]
    fn aliases_map_onto_one_spelling_and_unknown_tools_stay_other() {
        let v = &*VOCABULARY;
        assert_eq!(
            v.arguments(Some(
                &json!({"file_path": "/a", "description": "d", "cmd": "ls"})
            )),
            json!({"path": "/a", "command": "ls"})
                .as_object()
                .cloned()
                .unwrap_or_default()
        );
        assert_eq!(v.claude_tool("Bash"), "bash");
        assert_eq!(v.claude_tool("mcp__x__y"), "other");
        assert_eq!(v.acp_tool(Some("execute"), None).as_deref(), Some("bash"));
        assert_eq!(
            v.acp_tool(Some("other"), Some("updateTodos")).as_deref(),
            Some("todo")
        );
        assert_eq!(v.acp_tool(Some("weird"), None).as_deref(), Some("other"));
        assert_eq!(v.acp_tool(None, None), None);
        assert_eq!(v.failure("File does not exist."), ToolOutcome::MissingPath);
        assert_eq!(v.failure("Exit code 1"), ToolOutcome::ToolError);
    }
}
