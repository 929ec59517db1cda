//! The connection's state and the vocabulary every method handler shares: what a request is
//! answered with, now or later, and the checks of `params` several methods make. The dispatcher
//! (`crate::dispatch`) routes to the handlers; the handlers see only this module.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use mcp_wire::ErrorObject;
use serde_json::{Map, Value};
use tokio::task::JoinSet;

use crate::catalogue::Catalogue;
use crate::errors;
use crate::inflight::InflightCalls;
use crate::transport::Outbox;
use cmk_engine::Engine;
use cmk_engine::record::Recorder;

/// What a request is answered with.
pub type Answer = Result<Value, ErrorObject>;

/// A deferred answer; `None` means "send nothing" (a cancelled request, T7).
pub(crate) type Deferred = Pin<Box<dyn Future<Output = Option<Answer>> + Send>>;

/// A handler's outcome.
pub enum Handled {
    /// Answered at once.
    Now(Answer),
    /// Answered when the future completes.
    Later(Deferred),
    /// Answered at once with a result already serialised as compact JSON (`tools/list`): the
    /// response is assembled from bytes, the same bytes [`mcp_wire::response`] would encode.
    Encoded(Arc<str>),
}

impl From<Answer> for Handled {
    fn from(a: Answer) -> Self {
        Handled::Now(a)
    }
}

/// The connection's state, shared by the handlers.
pub struct Server {
    /// The run engine.
    pub engine: Engine,
    /// The tools, with their compiled validators.
    pub catalogue: Arc<Catalogue>,
    /// The way to stdout.
    pub out: Outbox,
    /// The negotiated protocol version, once `initialize` was answered.
    pub version: Option<&'static str>,
    /// In-flight `claude.run` calls (T7).
    pub inflight: InflightCalls,
    /// The inbound frame bound (T6).
    pub max_frame_bytes: usize,
    /// `--record`.
    pub recorder: Option<Recorder>,
    /// Deferred answers still running.
    pub tasks: JoinSet<()>,
}

/// The `params` of a method as an object: absent is empty; an array (by-position params, which
/// no MCP method uses) or anything else is `-32602`.
pub(crate) fn params_object(params: Option<Value>) -> Result<Map<String, Value>, ErrorObject> {
    match params {
        None => Ok(Map::new()),
        Some(Value::Object(m)) => Ok(m),
        Some(_) => Err(ErrorObject::invalid_params("params must be an object")),
    }
}

/// The `cursor` of a paginated list: this server lists everything on one page and never issues
/// a cursor, so any cursor is unknown (`-32602`).
pub(crate) fn no_cursor(params: Option<Value>) -> Result<(), ErrorObject> {
    let params = params_object(params)?;
    match params.get("cursor") {
        None | Some(Value::Null) => Ok(()),
        Some(_) => Err(errors::unknown_cursor()),
    }
}
