//! The display metadata 2025-11-25 gives listed items (schema.ts: `Tool`, `Resource` and
//! `Prompt` each "extends BaseMetadata, Icons"): on a 2025-11-25 connection every listed tool,
//! resource and prompt carries a `title` and an `icons` array (SEP-973), added to the finished
//! listing; the two display defects break one field of one item there. Connections of earlier
//! revisions get the listings as before.

use serde_json::{Value, json};

use crate::defects::Defect;

/// The one revision whose listings carry icons.
pub const REVISION: &str = "2025-11-25";

/// One icon per item: a PNG at a fixed size for light backgrounds and an SVG for any size.
fn icons(name: &str) -> Value {
    json!([
        {"src": format!("https://mutant.example/icons/{name}.png"), "mimeType": "image/png",
         "sizes": ["48x48"], "theme": "light"},
        {"src": "data:image/svg+xml;base64,PHN2Zy8+", "mimeType": "image/svg+xml",
         "sizes": ["any"]}
    ])
}

/// `result` of listing `method` with titles and icons added to its items, and the display
/// defect applied.
pub fn decorate(defect: Defect, method: &str, mut result: Value) -> Value {
    let key = match method {
        "tools/list" => "tools",
        "resources/list" => "resources",
        "prompts/list" => "prompts",
        _ => return result,
    };
    let Some(items) = result.get_mut(key).and_then(Value::as_array_mut) else {
        return result;
    };
    for item in items.iter_mut() {
        let Some(obj) = item.as_object_mut() else {
            continue;
        };
        let name = obj
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("item")
            .to_owned();
        obj.entry("title")
            .or_insert_with(|| json!(format!("The {name}")));
        obj.insert("icons".into(), icons(&name));
        match (defect, key) {
            // A serializer that writes an unset optional as null.
            (Defect::TitleNull, "resources") => {
                obj.insert("title".into(), Value::Null);
            }
            // A path relative to the server's site instead of a URI.
            (Defect::IconRelativeSrc, "tools") if name == "echo" => {
                obj.insert("icons".into(), json!([{"src": "icons/echo.png"}]));
            }
            _ => {}
        }
    }
    result
}
