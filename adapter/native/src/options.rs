//! The run tools' options of a native CLI, derived from its pinned command contract (NAT-1):
//! their JSON Schemas for `tools/list` and the tree's values from validated arguments
//! (NAT-4..6). Every tree-driven provider declares its options this way.

use std::collections::BTreeMap;

use cmk_engine::ToolError;
use cmk_engine::provider::OptionDecl;
use serde_json::{Map, Value};

use crate::cli_tree::{CliTree, OptionValue, ValueRule};

/// No NUL: these strings become argv entries, which cannot hold one (NAT-1).
pub const NO_NUL_PATTERN: &str = "^[^\\u0000]*$";

/// The cli tree's values from validated JSON arguments: strings are `Text`, numbers `Number`,
/// booleans `Switch`; the tree then checks names and value rules (NAT-4..6).
pub fn tree_values(
    options: &Map<String, Value>,
) -> Result<BTreeMap<String, OptionValue>, ToolError> {
    let mut values = BTreeMap::new();
    for (name, v) in options {
        let value = match v {
            Value::String(s) => OptionValue::Text(s.clone()),
            Value::Bool(b) => OptionValue::Switch(*b),
            Value::Number(n) => OptionValue::Number(n.as_f64().ok_or_else(|| {
                ToolError::invalid_argument(
                    format!("/{name}"),
                    format!("{name} is not a finite number"),
                )
            })?),
            _ => {
                return Err(ToolError::invalid_argument(
                    format!("/{name}"),
                    format!("{name} must be a string, a number or a boolean"),
                ));
            }
        };
        values.insert(name.clone(), value);
    }
    Ok(values)
}

/// The run tools' options derived from a cli tree (NAT-1): exactly what argv can carry, with the
/// tree's value rules, string bounds in bytes and the descriptions `describe` gives, else the
/// tree's own; an option whose name, type and bounds say what it is has none (every byte of a
/// schema is read into a model's context).
#[must_use]
pub fn tree_options(tree: &CliTree, describe: fn(&str) -> Option<&'static str>) -> Vec<OptionDecl> {
    let mut out = Vec::new();
    for opt in &tree.options {
        let Some(Value::Object(mut schema)) = tree.option_schema(&opt.name) else {
            continue;
        };
        let mut max_bytes = None;
        if let ValueRule::String { max_bytes: b } = opt.value {
            // Characters in JSON Schema; the tree's byte bound is enforced as well.
            schema.insert("pattern".into(), NO_NUL_PATTERN.into());
            max_bytes = Some(b);
        }
        if let Some(d) = &opt.default {
            schema.insert("default".into(), d.clone().into());
        }
        if let Some(description) = describe(&opt.name)
            .map(str::to_owned)
            .or_else(|| opt.description.clone())
        {
            schema.insert("description".into(), description.into());
        }
        out.push(OptionDecl {
            name: opt.name.clone(),
            schema: Value::Object(schema),
            max_bytes,
        });
    }
    out
}
