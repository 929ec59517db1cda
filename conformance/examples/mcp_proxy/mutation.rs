//! The deliberate deviations of `mcp_proxy --mutate NAME`: one value each, naming the rule it
//! breaks. The rewriting that carries each one out lives with the message it touches
//! (client.rs, upstream.rs, answers.rs, listing.rs, relay.rs, main.rs).

use clap::ValueEnum;

/// One deliberate violation each (the rule it breaks in brackets).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Mutation {
    /// `claude.run.cancel` declared read-only instead of destructive (META-RISK-2).
    WrongRisk,
    /// `claude.run.list` declares no risk (META-RISK-1).
    MissingRisk,
    /// `claude.run` annotated readOnlyHint true although it is full-shell (META-RISK-3).
    ReadonlyHintOnFullShell,
    /// `claude.run.events` declares work without its uri (META-WORK-1).
    MissingWorkUri,
    /// resources/list leaves the work URI out (META-WORK-2).
    WorkResourceUnlisted,
    /// `claude.run.cancel`'s continuation points at `/id`, not a property of its schema (META-CONT-1).
    ContinuationBadPointer,
    /// `claude.run.list` declares a continuation (META-CONT-2).
    ContinuationOnList,
    /// initialize answers any unsupported proposal back (T2).
    EchoUnsupportedVersion,
    /// initialize claims 2025-11-25, a revision the contract does not list (T2).
    EchoNewerVersion,
    /// tools/call of an unknown tool answered as an isError result, not -32602 (TOOL-3, TOOL-4).
    IserrorForProtocolError,
    /// The text block of tool results mirrors structuredContent.result, not structuredContent (TOOL-4).
    TextMirrorMismatch,
    /// The text block of a run's result leaves out a scalar member of `final` as well as its
    /// object- and array-valued ones (TOOL-4: only those are left out).
    TextDropsFinalScalar,
    /// Client lines are read whole into memory before forwarding, without a bound (T6).
    UnboundedFrameRead,
    /// notifications/cancelled is swallowed: the run is not cancelled (T7).
    HangOnCancel,
    /// A cancelled in-flight request is answered with an error at once (T7, MCP: SHOULD NOT answer).
    AnswerCancelled,
    /// Unparseable lines are dropped silently instead of answered -32700 (T4).
    DropMalformed,
    /// Unparseable lines are answered -32700 twice: by the proxy and by the upstream (T4,
    /// JSON-RPC: one response per request).
    ParseErrorTwice,
    /// -32601 answers lose their message (MCP basic: errors include a code and a message).
    ErrorWithoutMessage,
    /// Under 2025-03-26 a batch's answers become -32600 errors, one per element: the batch is
    /// "answered as a batch" but not accepted (MCP 2025-03-26 basic: MUST receive batches).
    BatchAnsweredWithErrors,
    /// ping is answered with a null result instead of `{}` (MCP basic/utilities/ping).
    PingResultNull,
    /// Request ids are held as i64: a u64 id above i64::MAX comes back saturated (T3a).
    WrongIdEcho,
    /// After a refused work read, the next snapshot's revision is below the refusal's (META-WORK-7).
    SnapshotRevisionRegress,
    /// The snapshot's acquired_by follows the latest work-invocation seen (META-WORK-4).
    AcquiredByRebind,
    /// Under 2025-06-18 a batch is split, run and answered as a batch instead of -32600 (T5).
    #[value(name = "batch-under-2025-06-18")]
    BatchUnder2025_06_18,
    /// A succeeded run is reported with is_error true (OUT-1).
    SucceededWithIsError,
    /// notifications/progress from the upstream are dropped (T9).
    NoProgress,
    /// Every notifications/progress is sent twice: its progress value does not increase (T9,
    /// MCP basic/utilities/progress: the value MUST increase with each notification).
    ProgressRepeated,
    /// Work snapshot entries lose their `kind` (META-WORK-3).
    SnapshotEntryWithoutKind,
    /// A banner line that is not JSON-RPC is written to stdout at start (T1).
    StdoutBanner,
    /// A JSON log record (JSON, but no JSON-RPC message) is written to stdout at start (T1).
    StdoutJsonLog,
    /// Responses lose their `"jsonrpc": "2.0"` member (T1, MCP basic: every message is
    /// JSON-RPC 2.0).
    ResponseWithoutJsonrpc,
    /// Exit status 1 after a clean stdin EOF shutdown (T8).
    EofExitNonzero,
    /// Exit status 1 after SIGTERM, although the upstream was still ended and reaped (T8).
    SigtermExitNonzero,
    /// An unknown notification is answered -32601 (T3: notifications are never answered).
    UnknownNotificationAnswered,
    /// `server/discover` answered with a result instead of -32601 (T3: not a method of the
    /// contract; a host would then speak the stateless revision to a server without it).
    DiscoverAnswered,
    /// A failed run's `native_error` reported as null (RUN-11: `{message, source}`).
    NativeErrorDropped,
    /// claude.run.list entries lose `acquired_by`, also for bound runs (RUN-3).
    ListWithoutAcquiredBy,
    /// Run results lose `stderr_tail` (RUN-11: the last 8 KiB of the native stderr are kept).
    StderrTailDropped,
    /// A run of the `grandchild` scenario leaves a native process carrying its prompt alive (in
    /// the proxy's group) while the run reports its cleanup confirmed (SUP-1).
    LeakRunProcess,
    /// `claude.run.list`'s inputSchema no longer sets additionalProperties false (TOOL-2).
    SchemaNotClosed,
    /// resources/read of an unknown URI answered with empty contents, not an error (MCP resources).
    UnknownResourceEmpty,
    /// resources/read of an unknown URI answered -32603, not resource-not-found (MCP resources).
    UnknownResourceWrongCode,
    /// With --gateway: `claude.run.cancel` keeps its continuation declaration (META-CONN-1).
    GatewayKeepsCancelContinuation,
    /// Tool results lose `structuredContent` (TOOL-4); the text block still holds the JSON.
    NoStructuredContent,
    /// Tool results lose `isError` (TOOL-4: a boolean on every result).
    MissingIsError,
    /// Tool results carry `isError` as a string, `"true"` or `"false"` (MCP server/tools:
    /// a boolean).
    IsErrorString,
    /// Tool results carry `isError` as a number, 1 or 0 (MCP server/tools: a boolean).
    IsErrorNumber,
    /// Reads of the work URI are answered -32603 (MCP server/resources: a listed resource is
    /// readable; META-WORK-3 has nothing to grade).
    WorkResourceUnreadable,
    /// Reads of the work URI are answered -32002 "Resource not found" although it is listed.
    WorkResourceNotFound,
    /// A text log line is written on stdout before every tools/call answer (T1).
    LogOnCall,
    /// Answers to `claude.run.list` calls come back under another id (JSON-RPC 2.0 §5).
    WrongIdOnList,
    /// Every request is answered twice (JSON-RPC 2.0 §5: exactly one Response per Request).
    AnsweredTwice,
    /// `initialize` is answered twice (JSON-RPC 2.0 §5).
    InitializeAnsweredTwice,
    /// Every single `ping` is answered twice (JSON-RPC 2.0 §5).
    PingAnsweredTwice,
    /// Every `tools/call` is answered twice (JSON-RPC 2.0 §5).
    CallAnsweredTwice,
    /// Every `tools/list` is answered twice (JSON-RPC 2.0 §5).
    ListAnsweredTwice,
    /// Just before the answer to `initialize`, a response under the integer id 424242, which
    /// no request carried (JSON-RPC 2.0 §5: a response answers a request).
    UnsolicitedNumberAnswer,
    /// The same under the string id "mcp-proxy-never-sent".
    UnsolicitedStringAnswer,
    /// Every notification, `notifications/initialized` and `notifications/cancelled` included,
    /// is answered -32601 with id null (T3, JSON-RPC 2.0 §4.1: a notification is never answered).
    NotificationsAnswered,
    /// `notifications/initialized` is answered -32601 with id null (T3).
    InitializedAnswered,
    /// `notifications/cancelled` is answered -32601 with id null (T3), the request still
    /// cancelled.
    CancelledAnswered,
}
