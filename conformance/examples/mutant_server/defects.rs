//! The one-defect variants of the mutant server: `--defect NAME` picks one, each changing a
//! single behaviour of the clean server (the suite in `tests/it/mutant_suite_mcp.rs` says which
//! verdicts each must get).

/// One deliberate defect (or none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Defect {
    /// The clean twin.
    None,
    // Framing and stdout (JSON-RPC 2.0; MCP stdio transport: stdout carries only messages).
    /// A text banner on stdout before anything is read.
    Banner,
    /// A text line on stdout after the 3rd request of a connection.
    NoiseAfterThird,
    /// A text line on stdout after the 8th request of a connection.
    NoiseAfterEighth,
    /// A truncated JSON line before each ping answer.
    PartialLine,
    /// Once, a 17 MiB line that opens a JSON object and never closes it, before a read's answer.
    OversizedPartial,
    /// The log notification after initialized has no `"jsonrpc"`.
    NotificationNoJsonrpc,
    /// Ping answers without `"jsonrpc"`.
    NoJsonrpcOnPing,
    /// `resources/read` answers with `"jsonrpc": "1.0"`.
    WrongJsonrpcOnRead,
    /// Method-not-found errors also carry a `result`.
    ResultAndError,
    // Ids (JSON-RPC 2.0 §5: the response id is the request's).
    /// Ping answered under another id.
    WrongIdOnPing,
    /// `resources/list` answered under another id (during discovery).
    WrongIdOnResourcesList,
    /// `resources/read` answered with the id's type changed (a number as a string).
    IdTypeOnRead,
    /// Error responses to requests with a readable id carry id null.
    NullIdOnError,
    // Error objects (JSON-RPC 2.0 §5.1).
    /// Method-not-found errors without `code`.
    ErrorNoCode,
    /// Method-not-found errors without `message`.
    ErrorNoMessage,
    /// Method-not-found errors with the code as a string.
    ErrorCodeString,
    /// Method-not-found errors whose `error` is a string.
    ErrorNotObject,
    /// Unknown methods answered -32600 instead of -32601.
    UnknownMethodCode,
    /// Unknown methods never answered.
    UnknownMethodSilent,
    // Lifecycle (MCP basic/lifecycle).
    /// `initialize` answers a protocolVersion no client offered and no revision defines.
    VersionNeverOffered,
    /// `initialize` echoes any proposed protocolVersion no MCP revision defines.
    EchoAnyVersion,
    /// Ping answered with a non-empty result.
    PingNotEmpty,
    /// The initialize result has no `capabilities`.
    NoCapabilities,
    /// The initialize result has no `serverInfo`.
    NoServerInfo,
    /// `serverInfo` has no `version`.
    ServerInfoNoVersion,
    /// Requests before `initialize` are served rather than refused.
    ServedBeforeInitialize,
    /// A `roots/list` request to the client before its `notifications/initialized`.
    RequestBeforeInitialized,
    /// The server stays up after stdin EOF.
    NoExitOnEof,
    /// SIGTERM is ignored.
    IgnoreSigterm,
    // Notifications (JSON-RPC 2.0 §4.1: never answered).
    /// `notifications/initialized` answered with an error under id null.
    AnswerInitialized,
    /// `notifications/cancelled` answered with an error under id null.
    AnswerCancelled,
    /// Notifications the server does not know answered with an error under id null.
    AnswerUnknownNotifications,
    /// A notification the server does not know (outside a batch) is followed by a line on
    /// stdout that is not JSON (a debug print): only a case that sends one sees it.
    JunkAfterUnknownNotification,
    /// The same with a JSON object that is no JSON-RPC message (a structured debug print).
    JsonJunkAfterUnknownNotification,
    // Tools (MCP server/tools).
    /// `add` is listed without `inputSchema`.
    NoInputSchema,
    /// `echo`'s inputSchema is of type string.
    InputSchemaString,
    /// `isError` written as a string.
    IsErrorString,
    /// `echo`'s structuredContent breaks its outputSchema.
    StructuredMismatch,
    /// A content block of an unknown type.
    ContentBadType,
    /// A text content block without `text`.
    ContentNoText,
    /// No tool carries `readOnlyHint`.
    NoReadOnlyHint,
    /// `add` is named `add numbers` (a space).
    BadToolName,
    /// An unknown tool is an `isError` result, not a protocol error.
    UnknownToolIsError,
    /// Wrong-typed arguments are -32602, not an `isError` result.
    WrongArgsProtocolError,
    /// `add` declares an outputSchema that is no valid JSON Schema.
    InvalidOutputSchema,
    /// An unknown tool is answered -32601 instead of -32602.
    UnknownToolCode,
    /// A JSON log record (no JSON-RPC message) on stdout before each `tools/call` answer.
    JsonLogOnCall,
    // Resources (MCP server/resources).
    /// Reading the listed resource fails -32603.
    UnreadableResource,
    /// An unknown URI is answered -32600.
    MissingResourceWrongCode,
    /// An unknown URI is answered with empty contents.
    MissingResourceEmpty,
    /// Read contents have neither `text` nor `blob`.
    ContentsNoText,
    /// Read contents lack `uri`.
    ContentsNoUri,
    /// The listed resource has no `name`.
    ResourceNoName,
    // Pagination (MCP utilities/pagination).
    /// The last tools page points back at the first.
    CursorLoop,
    /// An unknown cursor is answered with the first page.
    CursorAccepted,
    // Malformed input (the kit's T4, JSON-RPC 2.0 §5.1, §6).
    /// Under 2025-03-26 a batch is not answered.
    BatchDropped,
    /// Under 2025-03-26 a batch's answers are written one per line, not as an array.
    BatchUnwrapped,
    /// An empty array is not answered.
    EmptyBatchSilent,
    /// A JSON scalar is answered -32700 instead of -32600.
    ScalarParseError,
    /// The server exits after a line that is not JSON.
    DieOnBadLine,
    /// A line that is not JSON is dropped silently.
    ParseErrorSilent,
    /// `"jsonrpc": "1.0"` is served as 2.0.
    WrongVersionAccepted,
    /// A request with id null is served.
    NullIdAccepted,
    // Prompts (MCP server/prompts).
    /// The listed prompt has no `name`.
    PromptNoName,
    /// `prompts/get` answers `messages` as an object.
    PromptGetWrongShape,
    /// An unknown prompt name is answered with error code 0 instead of -32602 (as the Python
    /// SDK's `mcp` 2.3.0 server does).
    PromptUnknownCode0,
    // Logging (MCP server/utilities/logging).
    /// A log notification with a level outside the enum after initialized.
    LogBadLevel,
    // Display metadata (MCP 2025-11-25 schema.ts: BaseMetadata, Icons; SEP-973). Each also
    // makes the server speak 2025-11-25, the only revision whose listings carry icons.
    /// On 2025-11-25 connections the listed resource's `title` is null.
    TitleNull,
    /// On 2025-11-25 connections `echo`'s one icon has the relative `src` `icons/echo.png`.
    IconRelativeSrc,
}

/// Every defect by its `--defect` name.
pub const ALL: &[(&str, Defect)] = &[
    ("none", Defect::None),
    ("banner", Defect::Banner),
    ("noise-after-third", Defect::NoiseAfterThird),
    ("noise-after-eighth", Defect::NoiseAfterEighth),
    ("partial-line", Defect::PartialLine),
    ("oversized-partial", Defect::OversizedPartial),
    ("notification-no-jsonrpc", Defect::NotificationNoJsonrpc),
    ("no-jsonrpc-on-ping", Defect::NoJsonrpcOnPing),
    ("wrong-jsonrpc-on-read", Defect::WrongJsonrpcOnRead),
    ("result-and-error", Defect::ResultAndError),
    ("wrong-id-on-ping", Defect::WrongIdOnPing),
    ("wrong-id-on-resources-list", Defect::WrongIdOnResourcesList),
    ("id-type-on-read", Defect::IdTypeOnRead),
    ("null-id-on-error", Defect::NullIdOnError),
    ("error-no-code", Defect::ErrorNoCode),
    ("error-no-message", Defect::ErrorNoMessage),
    ("error-code-string", Defect::ErrorCodeString),
    ("error-not-object", Defect::ErrorNotObject),
    ("unknown-method-code", Defect::UnknownMethodCode),
    ("unknown-method-silent", Defect::UnknownMethodSilent),
    ("version-never-offered", Defect::VersionNeverOffered),
    ("echo-any-version", Defect::EchoAnyVersion),
    ("ping-not-empty", Defect::PingNotEmpty),
    ("no-capabilities", Defect::NoCapabilities),
    ("no-server-info", Defect::NoServerInfo),
    ("server-info-no-version", Defect::ServerInfoNoVersion),
    ("served-before-initialize", Defect::ServedBeforeInitialize),
    (
        "request-before-initialized",
        Defect::RequestBeforeInitialized,
    ),
    ("no-exit-on-eof", Defect::NoExitOnEof),
    ("ignore-sigterm", Defect::IgnoreSigterm),
    ("answer-initialized", Defect::AnswerInitialized),
    ("answer-cancelled", Defect::AnswerCancelled),
    (
        "answer-unknown-notifications",
        Defect::AnswerUnknownNotifications,
    ),
    (
        "junk-after-unknown-notification",
        Defect::JunkAfterUnknownNotification,
    ),
    (
        "json-junk-after-unknown-notification",
        Defect::JsonJunkAfterUnknownNotification,
    ),
    ("no-input-schema", Defect::NoInputSchema),
    ("input-schema-string", Defect::InputSchemaString),
    ("is-error-string", Defect::IsErrorString),
    ("structured-mismatch", Defect::StructuredMismatch),
    ("content-bad-type", Defect::ContentBadType),
    ("content-no-text", Defect::ContentNoText),
    ("no-read-only-hint", Defect::NoReadOnlyHint),
    ("bad-tool-name", Defect::BadToolName),
    ("unknown-tool-is-error", Defect::UnknownToolIsError),
    ("wrong-args-protocol-error", Defect::WrongArgsProtocolError),
    ("invalid-output-schema", Defect::InvalidOutputSchema),
    ("unknown-tool-code", Defect::UnknownToolCode),
    ("json-log-on-call", Defect::JsonLogOnCall),
    ("unreadable-resource", Defect::UnreadableResource),
    (
        "missing-resource-wrong-code",
        Defect::MissingResourceWrongCode,
    ),
    ("missing-resource-empty", Defect::MissingResourceEmpty),
    ("contents-no-text", Defect::ContentsNoText),
    ("contents-no-uri", Defect::ContentsNoUri),
    ("resource-no-name", Defect::ResourceNoName),
    ("cursor-loop", Defect::CursorLoop),
    ("cursor-accepted", Defect::CursorAccepted),
    ("batch-dropped", Defect::BatchDropped),
    ("batch-unwrapped", Defect::BatchUnwrapped),
    ("empty-batch-silent", Defect::EmptyBatchSilent),
    ("scalar-parse-error", Defect::ScalarParseError),
    ("die-on-bad-line", Defect::DieOnBadLine),
    ("parse-error-silent", Defect::ParseErrorSilent),
    ("wrong-version-accepted", Defect::WrongVersionAccepted),
    ("null-id-accepted", Defect::NullIdAccepted),
    ("prompt-no-name", Defect::PromptNoName),
    ("prompt-get-wrong-shape", Defect::PromptGetWrongShape),
    ("prompt-unknown-code-0", Defect::PromptUnknownCode0),
    ("log-bad-level", Defect::LogBadLevel),
    ("title-null", Defect::TitleNull),
    ("icon-relative-src", Defect::IconRelativeSrc),
];

impl Defect {
    /// The defect named `name`.
    pub fn parse(name: &str) -> Option<Self> {
        ALL.iter().find(|(n, _)| *n == name).map(|(_, d)| *d)
    }

    /// Whether the defect lives on 2025-11-25 connections only (the server then speaks it).
    pub fn needs_2025_11_25(self) -> bool {
        matches!(self, Defect::TitleNull | Defect::IconRelativeSrc)
    }
}
