//! `tools/call` (TOOL-3..5, RUN-1..7, META-WORK-4, T7, T9): params, argument validation, and the
//! mapping of each tool onto the engine.
//!
//! Protocol errors (`-32602`) are for calls that are not well-formed `tools/call` requests: params
//! not an object, `name` missing or not a string, an unknown tool, `arguments` or `_meta` present
//! but not an object (`arguments: null` is read as absent). Everything about the arguments'
//! content is a tool result with `isError: true` and `invalid_arguments` (TOOL-3, TOOL-4).

use serde_json::{Map, Value};
use uuid::Uuid;

use crate::arguments::{self, RunArgs};
use crate::catalogue::ToolKind;
use crate::server::{Answer, Handled, Server, params_object};
use crate::{errors, progress, tool_result};
use cmk_engine::results::Started;
use cmk_engine::{Engine, RunState, ToolError};

/// Answers `tools/call`.
pub(crate) fn handle(server: &mut Server, id: &Value, params: Option<Value>) -> Handled {
    match prepare(server, params) {
        Err(protocol_error) => Handled::Now(Err(protocol_error)),
        Ok(Err(tool_error)) => Handled::Now(Ok(tool_result::failure(&tool_error))),
        Ok(Ok(call)) => call.run(server, id),
    }
}

/// A well-formed call with valid arguments.
struct Call {
    kind: ToolKind,
    /// The tool's provider namespace (PROV-2).
    ns: &'static str,
    args: Map<String, Value>,
    acquired_by: Option<Uuid>,
    progress_token: Option<Value>,
}

type Prepared = Result<Result<Call, ToolError>, mcp_wire::ErrorObject>;

fn prepare(server: &Server, params: Option<Value>) -> Prepared {
    use mcp_wire::ErrorObject;
    let mut params = params_object(params)?;
    let Some(Value::String(name)) = params.get("name") else {
        return Err(ErrorObject::invalid_params(
            "tools/call needs a string \"name\"",
        ));
    };
    let Some(tool) = server.catalogue.get(name) else {
        // TOOL-1: the other spelling of a listed name is a projection mix-up; say so.
        let other = if name.contains('.') {
            name.replace('.', "_")
        } else {
            name.replace('_', ".")
        };
        let listed = server.catalogue.get(&other).map(|_| other.as_str());
        return Err(errors::unknown_tool(name, listed));
    };
    let args = match params.remove("arguments") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(v @ Value::Object(_)) => v,
        Some(_) => {
            return Err(ErrorObject::invalid_params(
                "tools/call \"arguments\" must be an object",
            ));
        }
    };
    let meta = match params.get("_meta") {
        None | Some(Value::Null) => None,
        Some(Value::Object(m)) => Some(m),
        Some(_) => {
            return Err(ErrorObject::invalid_params(
                "tools/call \"_meta\" must be an object",
            ));
        }
    };
    if let Err(e) = arguments::validate(tool, &args) {
        return Ok(Err(e));
    }
    let Value::Object(args) = args else {
        return Ok(Err(ToolError::invalid_argument(
            "",
            "arguments must be an object",
        )));
    };
    let acquired_by = match arguments::work_invocation(meta) {
        Ok(u) => u,
        Err(e) => return Ok(Err(e)),
    };
    Ok(Ok(Call {
        kind: tool.kind,
        ns: tool.namespace,
        args,
        acquired_by,
        progress_token: progress::token(meta),
    }))
}

/// A tool operation's answer: success data, or a failed operation (TOOL-4).
fn settle<T: serde::Serialize>(r: Result<T, ToolError>) -> Answer {
    Ok(match r {
        Ok(v) => tool_result::success(&v),
        Err(e) => tool_result::failure(&e),
    })
}

impl Call {
    fn run(self, server: &mut Server, id: &Value) -> Handled {
        let engine = &server.engine;
        let ns = Some(self.ns);
        let run_id = arguments::run_id(&self.args);
        match self.kind {
            ToolKind::Run => self.run_and_wait(server, id),
            ToolKind::Start => {
                settle(start(engine, self.ns, self.args, self.acquired_by, server)).into()
            }
            ToolKind::List => settle(Ok(engine.list_in(ns))).into(),
            ToolKind::Result => settle(engine.result_in(ns, run_id)).into(),
            ToolKind::Events => {
                let (cursor, limit) = arguments::page(&self.args);
                settle(engine.events_in(ns, run_id, cursor, limit)).into()
            }
            ToolKind::Cancel => settle(engine.cancel_in(ns, run_id)).into(),
            ToolKind::Release => settle(engine.release_in(ns, run_id)).into(),
        }
    }

    /// `claude.run` (RUN-1): start, then wait for settlement (or `detach_after_s`) off the
    /// server loop; progress while waiting (T9); no answer once cancelled (T7).
    fn run_and_wait(self, server: &mut Server, id: &Value) -> Handled {
        let max = server.catalogue.max_timeout_s;
        let RunArgs {
            request,
            detach_after,
        } = match arguments::run_args(self.args, max) {
            Ok(a) => a,
            Err(e) => return Ok(tool_result::failure(&e)).into(),
        };
        let run_id = match server
            .engine
            .start_in(Some(self.ns), request, self.acquired_by)
        {
            Ok(r) => r,
            Err(e) => return Ok(tool_result::failure(&e)).into(),
        };
        let registration = server.inflight.register(id, &run_id);
        let forwarder = self.progress_token.and_then(|token| {
            let events = server.engine.progress(&run_id)?;
            let with_message = server.version != Some("2024-11-05");
            Some(progress::forward(
                server.out.clone(),
                token,
                events,
                with_message,
            ))
        });
        let engine = server.engine.clone();
        let inflight = server.inflight.clone();
        let id = id.clone();
        Handled::Later(Box::pin(async move {
            let waited = tokio::select! {
                biased;
                // Only a real cancellation counts: the sender is also dropped when a host reuses
                // this request id for a newer call (the registration is replaced), and this call
                // must still be answered then (T4: nothing accepted is lost).
                Ok(()) = registration.cancelled => None,
                r = engine.wait_settled(&run_id, detach_after) => Some(r),
            };
            if let Some(f) = forwarder {
                f.finish().await;
            }
            // T7: a cancelled request is not answered.
            let waited = waited?;
            inflight.finish(&id, registration.token);
            Some(Ok(finished(&engine, &run_id, waited)))
        }))
    }
}

/// `claude.run`'s answer once the wait ended: the run's result, `isError` when it settled failed
/// (TOOL-5); a detached, still active run is a successful answer (RUN-1).
fn finished(engine: &Engine, run_id: &str, waited: Result<bool, ToolError>) -> Value {
    let settled = match waited {
        Ok(s) => s,
        Err(e) => return tool_result::failure(&e),
    };
    match engine.result(run_id) {
        Ok(result) => {
            let failed = settled && result.is_error;
            tool_result::with_error_flag(&result, failed)
        }
        Err(e) => tool_result::failure(&e),
    }
}

/// `claude.run.start` (RUN-2): `{run_id, state}` at once.
fn start(
    engine: &Engine,
    ns: &str,
    args: Map<String, Value>,
    acquired_by: Option<Uuid>,
    server: &Server,
) -> Result<Started, ToolError> {
    let RunArgs { request, .. } = arguments::run_args(args, server.catalogue.max_timeout_s)?;
    let run_id = engine.start_in(Some(ns), request, acquired_by)?;
    // Just admitted: it cannot be released or evicted yet, so it has a state.
    let state = engine.state(&run_id).unwrap_or(RunState::Pending);
    Ok(Started { run_id, state })
}
