//! `resources/list` and `resources/read` (META-WORK-2, META-WORK-3, META-WORK-5): the work
//! snapshot, the only resource.

use serde_json::{Value, json};

use crate::catalogue::WORK_URI;
use crate::errors;
use crate::server::{Handled, Server, no_cursor, params_object};

/// Answers `resources/list`: the work resource, on one page.
pub(crate) fn list(server: &mut Server, _id: &Value, params: Option<Value>) -> Handled {
    if let Err(e) = no_cursor(params) {
        return Err(e).into();
    }
    Ok(json!({
        "resources": [{
            "uri": WORK_URI,
            "name": "work",
            "title": server.catalogue.resource_title(),
            "description": server.catalogue.resource_description(),
            "mimeType": "application/json"
        }]
    }))
    .into()
}

/// Answers `resources/read`: the snapshot as one `application/json` text content, `-32000` when
/// unbound runs make it unprovable (META-WORK-5), `-32002` for any other URI.
pub(crate) fn read(server: &mut Server, _id: &Value, params: Option<Value>) -> Handled {
    let params = match params_object(params) {
        Ok(p) => p,
        Err(e) => return Err(e).into(),
    };
    let Some(uri) = params.get("uri").and_then(Value::as_str) else {
        return Err(mcp_wire::ErrorObject::invalid_params(
            "resources/read needs a string \"uri\"",
        ))
        .into();
    };
    if uri != WORK_URI {
        return Err(errors::resource_not_found(uri)).into();
    }
    match server.engine.snapshot() {
        Ok(snapshot) => Ok(json!({
            "contents": [{
                "uri": WORK_URI,
                "mimeType": "application/json",
                "text": snapshot.to_string()
            }]
        }))
        .into(),
        Err(refused) => Err(errors::snapshot_refused(&refused, server.catalogue.names)).into(),
    }
}

/// Answers `resources/templates/list`: there are none (the server declares `resources`, and some
/// hosts ask; `-32601` made Inspector's CLI fail).
pub(crate) fn templates_list(_server: &mut Server, _id: &Value, params: Option<Value>) -> Handled {
    if let Err(e) = no_cursor(params) {
        return Err(e).into();
    }
    Ok(json!({ "resourceTemplates": [] })).into()
}
