//! `session/new`: a fresh session (UUID v4 id, mode `agent`, the legacy `models` block with
//! `--model` as the current model) after the scenario's delay, or never (hang). Under the
//! scenario's `auth: "env"` rule it fails -32000 "Authentication required" unless credentials are
//! present (env `CURSOR_API_KEY` non-empty, or `--api-key`), as the real agent does without a
//! login.

use std::io::Read as _;
use std::time::Duration;

use serde_json::{Value, json};

use super::{Agent, Session, vars};
use crate::process;
use crate::scenario::Auth;

/// Answers `session/new` request `id`.
pub fn handle(agent: &mut Agent, id: &Value, params: &Value) {
    let phase = agent.base.handshake.session_new.clone();
    if phase.hang {
        process::hang();
    }
    std::thread::sleep(Duration::from_millis(phase.delay_ms));
    if !has_credentials(agent) {
        let err = agent.profile.auth_required_error();
        agent.reply_error(id, err);
        return;
    }
    let session = open(agent, uuid_v4(), params);
    let mut result = json!({"sessionId": session.id});
    if let (Some(r), Some(extra)) = (
        result.as_object_mut(),
        session_fields(agent, &session).as_object(),
    ) {
        r.extend(extra.clone());
    }
    agent.reply(id, result);
}

/// Whether `session/new` may succeed under the process scenario's auth rule.
pub fn has_credentials(agent: &Agent) -> bool {
    match agent.base.handshake.auth {
        Auth::None => true,
        Auth::Env => {
            agent.opts.api_key || std::env::var("CURSOR_API_KEY").is_ok_and(|k| !k.is_empty())
        }
    }
}

/// Registers a session with id `id` and the cwd of `params`.
pub fn open(agent: &mut Agent, id: String, params: &Value) -> Session {
    let cwd = params
        .get("cwd")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .unwrap_or_else(|| {
            std::env::current_dir()
                .map(|p| p.display().to_string())
                .unwrap_or_default()
        });
    let session = Session {
        id,
        cwd,
        mode: "agent".to_owned(),
        model: agent.profile.model_name(agent.opts.model.as_deref()),
    };
    agent.sessions.push(session.clone());
    session
}

/// The `modes` and `models` for `session` (placeholders filled).
pub fn session_fields(agent: &Agent, session: &Session) -> Value {
    vars::fill(&advertised(agent), &vars::Vars::of(session, None))
}

/// The profile's `session/new` fields with the process scenario's `modes` (absent when `null`).
pub fn advertised(agent: &Agent) -> Value {
    let mut fields = agent.profile.session_new();
    if let (Some(modes), Some(obj)) = (&agent.base.handshake.modes, fields.as_object_mut()) {
        if modes.is_null() {
            obj.remove("modes");
        } else {
            obj.insert("modes".into(), modes.clone());
        }
    }
    fields
}

/// A random (version 4) UUID from the kernel's generator.
fn uuid_v4() -> String {
    let mut b = [0u8; 16];
    if std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut b))
        .is_err()
    {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        b = (nanos ^ (u128::from(std::process::id()) << 64)).to_le_bytes();
    }
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}
