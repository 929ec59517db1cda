//! Tool roles of the computer-mcp contract, found from a prefix-tolerant name suffix confirmed by
//! the input schema, never from exact names (TOOL-1: hosts may prefix names, and the underscore
//! projection turns `claude.run.cancel` into `claude_run_cancel`). Metadata is what the META
//! cases grade, so it is only a fallback for names without a recognisable suffix (a gateway that
//! renamed the tools), where it is combined with the schema.

use serde_json::Value;

/// The seven tool roles of TOOL-1, spelled once for the gate and the adapter (names only).
pub use cmk_contract::Role;

/// What the gate expects of each role: its own statement of the rules, never the adapter's
/// (a judge must not be the code under test).
pub trait Expected {
    /// The default dotted name of the role (for messages only).
    fn default_name(self) -> String;
    /// The risk META-RISK-2 requires.
    fn risk(self) -> &'static str;
    /// Whether META-CONT-1 requires a continuation declaration (else META-CONT-2 forbids one).
    fn continues(self) -> bool;
}

impl Expected for Role {
    fn default_name(self) -> String {
        format!("claude.run{}", self.suffix())
    }

    fn risk(self) -> &'static str {
        match self {
            Role::Run | Role::Start => "full-shell",
            Role::List | Role::Result | Role::Events => "read-only",
            Role::Cancel | Role::Release => "destructive",
        }
    }

    fn continues(self) -> bool {
        matches!(
            self,
            Role::Result | Role::Events | Role::Cancel | Role::Release
        )
    }
}

/// The role's name suffix in the underscore projection (`run`, `run_start`, …), the form in
/// which names are matched.
fn name_suffix(role: Role) -> String {
    format!("run{}", role.suffix().replace('.', "_"))
}

/// `name` with the separators hosts use (`.`, `-`, `/`, `:`) turned into `_`: the underscore
/// projection's form, in which role suffixes are matched. ASCII to ASCII, so byte offsets agree
/// with the original name.
fn normalise(name: &str) -> String {
    name.chars()
        .map(|c| {
            if matches!(c, '.' | '-' | '/' | ':') {
                '_'
            } else {
                c
            }
        })
        .collect()
}

/// The role of one listed tool, or `None`.
#[must_use]
pub fn role_of(tool: &Value) -> Option<Role> {
    let name = tool.get("name")?.as_str()?;
    let norm = normalise(name);
    // Longest suffix first, so `…run_start` is not taken for `…run`.
    let by_name = [
        Role::Start,
        Role::List,
        Role::Result,
        Role::Events,
        Role::Cancel,
        Role::Release,
        Role::Run,
    ]
    .into_iter()
    .find(|r| {
        let s = name_suffix(*r);
        norm == s || norm.ends_with(&format!("_{s}"))
    });
    let props = tool
        .get("inputSchema")
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object);
    let has = |p: &str| props.is_some_and(|m| m.contains_key(p));
    let Some(by_name) = by_name else {
        return by_metadata(tool, &has);
    };
    // The schema must agree (RUN-0): a random `dry_run` tool is not a provider's run.
    let agrees = match by_name {
        Role::Run | Role::Start => has("prompt"),
        Role::List => !has("prompt") && !has("run_id"),
        Role::Events => has("run_id") && has("cursor"),
        Role::Result | Role::Cancel | Role::Release => has("run_id") && !has("prompt"),
    };
    agrees.then_some(by_name)
}

/// Fallback for names without a recognisable suffix (a gateway that renamed the tools): the
/// computer-mcp metadata and the schema together. Only unambiguous combinations count; cancel
/// and release cannot be told apart this way and stay unknown.
///
/// RUN-0's argument sets fingerprint the run, start and events tools whatever risk they
/// declare, so a gateway that renames them and lowers their risk is graded by META-RISK-2
/// instead of hiding the tool (deciding their role by the risk made a wrong risk unseeable).
fn by_metadata(tool: &Value, has: &dyn Fn(&str) -> bool) -> Option<Role> {
    let meta = tool.get("_meta")?;
    let risk = meta.get("io.github.computer-mcp/risk")?.as_str()?;
    let continues = meta.get("io.github.computer-mcp/continuation").is_some();
    if has("prompt") && has("permission_mode") && has("timeout_s") {
        return Some(if has("detach_after_s") {
            Role::Run
        } else {
            Role::Start
        });
    }
    if has("run_id") && has("cursor") && has("limit") {
        return Some(Role::Events);
    }
    match (risk, continues) {
        ("full-shell", false) if has("prompt") && has("detach_after_s") => Some(Role::Run),
        ("full-shell", false) if has("prompt") => Some(Role::Start),
        ("read-only", true) if has("run_id") && has("cursor") => Some(Role::Events),
        ("read-only", true) if has("run_id") => Some(Role::Result),
        ("read-only", false) if !has("prompt") && !has("run_id") => Some(Role::List),
        _ => None,
    }
}

/// Roles found in a tool listing.
#[derive(Debug, Clone, Default)]
pub struct Roles {
    /// `(role, tool name, index in the listing)` in listing order.
    pub found: Vec<(Role, String, usize)>,
}

/// Which fake drives a family's native side under `--drive-fake` (C-PROV-3): the family's
/// namespace names its provider, as the adapter's tool names do (`cursor.run…` is Cursor's
/// agent over ACP, anything else claude's print mode).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FakeKind {
    /// fake-claude, scenarios chosen by a prompt line `fake-claude:scenario=NAME`.
    Claude,
    /// fake-cursor-agent, scenarios chosen by a prompt line `scenario: NAME`.
    Cursor,
}

/// One tool family: the tools whose names share a prefix before the role suffix
/// (`claude.run…`, `cursor.run…`, `mcp__kit__claude_run…`). Tools found only by metadata
/// (renamed by a gateway) have no prefix and form the family `""`.
#[derive(Debug, Clone)]
pub struct Family {
    /// The name prefix before the role suffix, separators trimmed (`claude`, `cursor`).
    pub name: String,
    /// The fake that drives it.
    pub fake: FakeKind,
    /// The family's roles.
    pub roles: Roles,
}

/// The prefix of `name` before `role`'s suffix, separators trimmed; `None` when the name does
/// not end with the suffix (a role found by metadata).
fn family_prefix(name: &str, role: Role) -> Option<String> {
    let suffix = name_suffix(role);
    if !normalise(name).ends_with(&suffix) {
        return None;
    }
    let cut = name.len().checked_sub(suffix.len())?;
    let prefix = name.get(..cut)?;
    Some(
        prefix
            .trim_end_matches(['.', '-', '/', ':', '_'])
            .to_owned(),
    )
}

impl Roles {
    /// Finds the roles of every tool.
    #[must_use]
    pub fn find(tools: &[Value]) -> Self {
        let found = tools
            .iter()
            .enumerate()
            .filter_map(|(i, t)| {
                let role = role_of(t)?;
                let name = t.get("name")?.as_str()?.to_owned();
                Some((role, name, i))
            })
            .collect();
        Self { found }
    }

    /// The name of the first tool with `role`.
    #[must_use]
    pub fn name(&self, role: Role) -> Option<&str> {
        self.found
            .iter()
            .find(|(r, _, _)| *r == role)
            .map(|(_, n, _)| n.as_str())
    }

    /// Whether no tool has a role.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.found.is_empty()
    }

    /// The tool families, in the order their first tool is listed (TOOL-1 holds per family).
    #[must_use]
    pub fn families(&self) -> Vec<Family> {
        let mut families: Vec<Family> = Vec::new();
        for (role, name, index) in &self.found {
            let prefix = family_prefix(name, *role).unwrap_or_default();
            let family = match families.iter_mut().find(|f| f.name == prefix) {
                Some(f) => f,
                None => {
                    let last = prefix
                        .rsplit(['.', '-', '/', ':', '_'])
                        .next()
                        .unwrap_or("");
                    let fake = if last == "cursor" {
                        FakeKind::Cursor
                    } else {
                        FakeKind::Claude
                    };
                    families.push(Family {
                        name: prefix,
                        fake,
                        roles: Roles::default(),
                    });
                    let Some(f) = families.last_mut() else {
                        continue;
                    };
                    f
                }
            };
            family.roles.found.push((*role, name.clone(), *index));
        }
        families
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str, props: &[&str]) -> Value {
        let props: serde_json::Map<String, Value> =
            props.iter().map(|p| ((*p).to_owned(), json!({}))).collect();
        json!({"name": name, "inputSchema": {"type": "object", "properties": props}})
    }

    #[test]
    fn roles_tolerate_prefixes_and_the_underscore_projection() {
        // RUNNER-9.
        assert_eq!(role_of(&tool("claude.run", &["prompt"])), Some(Role::Run));
        assert_eq!(
            role_of(&tool("mcp__kit__claude_run_cancel", &["run_id"])),
            Some(Role::Cancel)
        );
        assert_eq!(
            role_of(&tool("gw.claude.run.start", &["prompt"])),
            Some(Role::Start)
        );
        assert_eq!(
            role_of(&tool("x_run_events", &["run_id", "cursor"])),
            Some(Role::Events)
        );
        assert_eq!(role_of(&tool("claude_run_list", &[])), Some(Role::List));
    }

    #[test]
    fn renamed_tools_are_found_by_metadata_and_schema() {
        let mut t = tool("t1", &["prompt", "detach_after_s"]);
        t["_meta"] = json!({"io.github.computer-mcp/risk": "full-shell"});
        assert_eq!(role_of(&t), Some(Role::Run));
        let mut t = tool("t2", &["run_id", "cursor"]);
        t["_meta"] = json!({"io.github.computer-mcp/risk": "read-only",
                            "io.github.computer-mcp/continuation": {}});
        assert_eq!(role_of(&t), Some(Role::Events));
        let mut t = tool("t3", &["run_id"]);
        t["_meta"] = json!({"io.github.computer-mcp/risk": "destructive",
                            "io.github.computer-mcp/continuation": {}});
        assert_eq!(role_of(&t), None, "cancel and release cannot be told apart");
        // RUN-0's arguments give run, start and events away whatever risk is declared, so a
        // lowered risk is graded instead of hiding the tool.
        let mut t = tool(
            "t5",
            &["prompt", "permission_mode", "timeout_s", "detach_after_s"],
        );
        t["_meta"] = json!({"io.github.computer-mcp/risk": "read-only"});
        assert_eq!(role_of(&t), Some(Role::Run));
        let mut t = tool("t6", &["prompt", "permission_mode", "timeout_s"]);
        t["_meta"] = json!({"io.github.computer-mcp/risk": "destructive"});
        assert_eq!(role_of(&t), Some(Role::Start));
        let mut t = tool("t7", &["run_id", "cursor", "limit"]);
        t["_meta"] = json!({"io.github.computer-mcp/risk": "destructive"});
        assert_eq!(role_of(&t), Some(Role::Events));
        let mut t = tool("t8", &["prompt"]);
        t["_meta"] = json!({"io.github.computer-mcp/risk": "read-only"});
        assert_eq!(role_of(&t), None, "a prompt alone is no run tool");
        assert_eq!(
            role_of(&tool("t4", &["prompt"])),
            None,
            "no metadata, no suffix"
        );
    }

    #[test]
    fn families_group_roles_by_their_name_prefix() {
        let listing: Vec<Value> = ["claude", "cursor"]
            .iter()
            .flat_map(|ns| {
                [
                    tool(&format!("{ns}.run"), &["prompt"]),
                    tool(&format!("{ns}.run.cancel"), &["run_id"]),
                ]
            })
            .chain([tool("mcp__kit__claude_run_list", &[])])
            .collect();
        let families = Roles::find(&listing).families();
        let names: Vec<&str> = families.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["claude", "cursor", "mcp__kit__claude"]);
        assert_eq!(families[0].fake, FakeKind::Claude);
        assert_eq!(families[1].fake, FakeKind::Cursor);
        assert_eq!(
            families[1].roles.name(Role::Cancel),
            Some("cursor.run.cancel")
        );
        assert_eq!(families[2].roles.found.len(), 1);
        let bare = Roles::find(&[tool("run_start", &["prompt"])]).families();
        assert_eq!(bare[0].name, "", "a bare suffix has the empty prefix");
    }

    #[test]
    fn a_name_alone_is_not_a_role() {
        assert_eq!(role_of(&tool("dry_run", &["path"])), None);
        assert_eq!(role_of(&tool("trigger_run_result", &["x"])), None);
        assert_eq!(role_of(&tool("rerun", &["prompt"])), None);
    }
}
