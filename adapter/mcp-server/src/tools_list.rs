//! `tools/list` (TOOL-1, TOOL-2, META): the catalogue's listings, all on one page, answered with
//! the result the catalogue serialised once ([`crate::catalogue::Catalogue::tools_list_json`]).

use serde_json::Value;

use crate::server::{Handled, Server, no_cursor};

/// Answers `tools/list`. There is one page, so no `nextCursor`; any `cursor` is unknown
/// (`-32602`).
pub(crate) fn handle(server: &mut Server, _id: &Value, params: Option<Value>) -> Handled {
    if let Err(e) = no_cursor(params) {
        return Err(e).into();
    }
    Handled::Encoded(server.catalogue.tools_list_json())
}
