//! The one-defect variants of the mutant agent: `--defect NAME` picks one, each changing a
//! single behaviour of the clean agent (the suite in `tests/it/mutant_suite_acp.rs` says which
//! verdicts each must get).

/// One deliberate defect (or none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Defect {
    /// The clean twin.
    None,
    // initialize (schema InitializeResponse; docs initialization).
    /// protocolVersion answered as the string "1".
    VersionString,
    /// Any proposed protocolVersion is echoed (999 included).
    VersionEcho,
    /// mcpCapabilities.http is the string "no".
    CapabilityNotBoolean,
    /// An auth method without `id`.
    AuthMethodNoId,
    // session/new and the session methods.
    /// session/new answered without `sessionId`.
    SessionNoId,
    /// Every session gets the same id.
    SameSessionId,
    /// A relative cwd is accepted.
    RelativeCwdAccepted,
    /// A session/new without mcpServers is accepted.
    MissingMcpServersAccepted,
    /// session/set_mode to an advertised mode fails.
    SetModeFails,
    /// session/set_mode to a mode never advertised is accepted.
    SetModeUnknownAccepted,
    /// session/load is served although loadSession is not advertised.
    LoadUnadvertisedAccepted,
    // The prompt turn (schema PromptResponse, SessionUpdate; docs prompt-turn).
    /// The prompt answer has no stopReason.
    NoStopReason,
    /// The prompt answer's stopReason is outside the enum.
    UnknownStopReason,
    /// The prompt is answered twice.
    PromptAnsweredTwice,
    /// The prompt is never answered.
    PromptNeverAnswered,
    /// session/update notifications carry no sessionId.
    UpdateNoSessionId,
    /// agent_message_chunk updates carry no content.
    ChunkNoContent,
    /// tool_call kind outside the enum.
    ToolCallBadKind,
    /// tool_call without title.
    ToolCallNoTitle,
    /// tool_call_update status outside the enum.
    ToolUpdateBadStatus,
    /// session/cancel is ignored: the turn runs on and ends end_turn.
    CancelIgnored,
    // Permission requests (schema RequestPermissionRequest / Response).
    /// A permission option without kind.
    PermissionNoKind,
    /// A permission request answered cancelled makes the prompt fail with an error.
    PermissionCancelledError,
    /// No defect, a variant ACP allows: after `session/cancel` the turn waits for the client's
    /// answer to its pending permission request (which the client MUST send, `cancelled`)
    /// before it answers the prompt. The gate must pass it.
    CancelAwaitsPermission,
    // Client capabilities (schema ClientCapabilities).
    /// fs/read_text_file sent although fs is not advertised.
    FsUnadvertised,
    /// fs/read_text_file with a relative path.
    FsRelativePath,
    // Content (docs content; schema PromptCapabilities).
    /// A resource_link prompt is refused.
    ResourceLinkRefused,
    /// An image prompt is refused although image is advertised.
    ImageRefused,
    /// An audio block is accepted although audio is not advertised (the client's MUST).
    AudioUnadvertisedAccepted,
    // JSON-RPC and stdio.
    /// A text line on stdout during each turn.
    StdoutNoise,
    /// The agent stays up after stdin EOF.
    NoExitOnEof,
    /// Unknown methods answered -32600 instead of -32601.
    UnknownMethodCode,
    /// Unknown extension methods answered -32603.
    ExtMethodCode,
    /// Unknown notifications answered with an error under id null.
    AnswerNotification,
    /// A line that is not JSON is dropped silently.
    ParseErrorSilent,
    /// The agent exits after a line that is not JSON.
    DieOnBadLine,
    /// String ids answered as numbers when they hold one, else under "0".
    StringIdRetyped,
    /// Numeric ids above 2^31 answered rounded to a float.
    BigIdAsFloat,
    // Extensibility (docs extensibility).
    /// A vendor notification without the `_` prefix during each turn.
    VendorMethod,
    /// session/update params carry a custom top-level key.
    MetaOutside,
}

/// Every defect by its `--defect` name.
pub const ALL: &[(&str, Defect)] = &[
    ("none", Defect::None),
    ("version-string", Defect::VersionString),
    ("version-echo", Defect::VersionEcho),
    ("capability-not-boolean", Defect::CapabilityNotBoolean),
    ("auth-method-no-id", Defect::AuthMethodNoId),
    ("session-no-id", Defect::SessionNoId),
    ("same-session-id", Defect::SameSessionId),
    ("relative-cwd-accepted", Defect::RelativeCwdAccepted),
    (
        "missing-mcp-servers-accepted",
        Defect::MissingMcpServersAccepted,
    ),
    ("set-mode-fails", Defect::SetModeFails),
    ("set-mode-unknown-accepted", Defect::SetModeUnknownAccepted),
    (
        "load-unadvertised-accepted",
        Defect::LoadUnadvertisedAccepted,
    ),
    ("no-stop-reason", Defect::NoStopReason),
    ("unknown-stop-reason", Defect::UnknownStopReason),
    ("prompt-answered-twice", Defect::PromptAnsweredTwice),
    ("prompt-never-answered", Defect::PromptNeverAnswered),
    ("update-no-session-id", Defect::UpdateNoSessionId),
    ("chunk-no-content", Defect::ChunkNoContent),
    ("tool-call-bad-kind", Defect::ToolCallBadKind),
    ("tool-call-no-title", Defect::ToolCallNoTitle),
    ("tool-update-bad-status", Defect::ToolUpdateBadStatus),
    ("cancel-ignored", Defect::CancelIgnored),
    ("permission-no-kind", Defect::PermissionNoKind),
    (
        "permission-cancelled-error",
        Defect::PermissionCancelledError,
    ),
    ("cancel-awaits-permission", Defect::CancelAwaitsPermission),
    ("fs-unadvertised", Defect::FsUnadvertised),
    ("fs-relative-path", Defect::FsRelativePath),
    ("resource-link-refused", Defect::ResourceLinkRefused),
    ("image-refused", Defect::ImageRefused),
    (
        "audio-unadvertised-accepted",
        Defect::AudioUnadvertisedAccepted,
    ),
    ("stdout-noise", Defect::StdoutNoise),
    ("no-exit-on-eof", Defect::NoExitOnEof),
    ("unknown-method-code", Defect::UnknownMethodCode),
    ("ext-method-code", Defect::ExtMethodCode),
    ("answer-notification", Defect::AnswerNotification),
    ("parse-error-silent", Defect::ParseErrorSilent),
    ("die-on-bad-line", Defect::DieOnBadLine),
    ("string-id-retyped", Defect::StringIdRetyped),
    ("big-id-as-float", Defect::BigIdAsFloat),
    ("vendor-method", Defect::VendorMethod),
    ("meta-outside", Defect::MetaOutside),
];

impl Defect {
    /// The defect named `name`.
    pub fn parse(name: &str) -> Option<Self> {
        ALL.iter().find(|(n, _)| *n == name).map(|(_, d)| *d)
    }
}
